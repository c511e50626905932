/* The finish's state and the services every phase may call (linker.h):
 * the spill pool, the two-thread switch, the warnings, the rows as
 * rules.h sees them.  Nothing here calls a phase. */
#include "index/build/linker.h"

#include <stdlib.h>
#include <string.h>

void linker_init(struct linker *L, struct tix_builder *b)
{
	memset(L, 0, sizeof(*L));
	L->b = b;
	pthread_mutex_init(&L->mu, NULL);
	L->rows.fd = L->corr.fd = L->members.fd = L->chains.fd = L->chain_rows.fd = -1;
	L->names.fd = L->name_rows.fd = -1;
	L->before_trace_step = TIX_NONE;
	L->nrows = (uint32_t)(b->c.rows.n + (b->extra ? b->extra->rows.n : 0));
	L->row_names = b->c.strings.n;
}

void linker_done(struct linker *L)
{
	free(L->track_remap);
	free(L->gpu_spans);
	/* freed beside the commit (builder_int.h, spill_reaper); the rows are
	 * the index's own pages, written already: only their mapping goes */
	struct spill done[sizeof(L->pool) / sizeof(L->pool[0]) + 7];
	int n = 0;
	for (int i = 0; i < L->npool; i++)
		done[n++] = L->pool[i];
	L->npool = 0;
	struct spill *own[] = {&L->rows, &L->corr, &L->members, &L->chains, &L->chain_rows, &L->names, &L->name_rows};
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		done[n++] = *own[i];
	spill_reap(&L->b->reapers[1], done, n);
	free(L->tracks);
	free(L->long_durs);
	free(L->steps);
	free(L->groups);
	free(L->step_groups);
	free(L->ops);
	free(L->op_groups);
	free(L->name_forms);
	free(L->breakdowns);
	free(L->stream_idle);
	free(L->syncs);
	free(L->op_shapes);
	free(L->step_op_shapes);
	free(L->op_shape_groups);
	free(L->op_models);
	free(L->rows_sums);
	free(L->warnings);
	free(L->capture_sources);
	pthread_mutex_destroy(&L->mu);
}

/* Below this an array takes a new file: it touches few of its pages, and
 * a released spill it took would hold its megabytes of written pages
 * until the array is done. */
#define POOL_MIN_NEED (1u << 20)

/* The pool's choice for need bytes (-1: a new file).  A pooled
 * spill's pages have been written once, so an array placed there costs no
 * new page; a new file costs the kernel's fresh pages, zeroed (its blocks
 * read as zeros) before the array is written.  Taking the largest for
 * every array gave the two collectors' 49 MB to the chain table of the
 * story trace, which stays empty, and fresh pages to the 2-10 MB arrays of
 * every phase after it (docs/PERFORMANCE.md, "Round 11"). */
static int pool_pick(const struct linker *L, size_t need)
{
	int fit = -1, largest = -1;
	if (need < POOL_MIN_NEED)
		return -1;
	for (int i = 0; i < L->npool; i++) {
		size_t have = L->pool[i].cap * L->pool[i].elem;
		if (have >= need && (fit < 0 || have < L->pool[fit].cap * L->pool[fit].elem))
			fit = i;
		if (largest < 0 || have > L->pool[largest].cap * L->pool[largest].elem)
			largest = i;
	}
	return fit >= 0 ? fit : largest;
}

int linker_spill(struct linker *L, struct spill *s, size_t elem, size_t expect, struct tix_error *err)
{
	pthread_mutex_lock(&L->mu);
	int best = pool_pick(L, expect * elem);
	if (best >= 0) {
		*s = L->pool[best];
		L->pool[best] = L->pool[--L->npool];
	}
	pthread_mutex_unlock(&L->mu);
	if (best < 0)
		return spill_init(s, L->b->dir, L->b->out_path, elem, &L->b->budget, err);
	spill_retype(s, elem);
	return 0;
}

void linker_release(struct linker *L, struct spill *s)
{
	pthread_mutex_lock(&L->mu);
	int pooled = s->base && s->fd >= 0 && L->npool < (int)(sizeof(L->pool) / sizeof(L->pool[0]));
	if (pooled)
		L->pool[L->npool++] = *s;
	pthread_mutex_unlock(&L->mu);
	if (pooled) {
		memset(s, 0, sizeof(*s));
		s->fd = -1;
		return;
	}
	spill_done(s);
}

int linker_two_threads(const struct linker *L)
{
	uint32_t from = L->b->opts.split_rows ? L->b->opts.split_rows : 65536;
	return L->nrows >= from;
}

int linker_warn(struct linker *L, const char *msg, struct tix_error *err)
{
	pthread_mutex_lock(&L->mu);
	size_t n = strlen(msg), old = L->warnings ? strlen(L->warnings) : 0;
	char *w = realloc(L->warnings, old + n + 3);
	if (w) {
		if (old)
			memcpy(w + old, "; ", 2), old += 2;
		memcpy(w + old, msg, n + 1);
		L->warnings = w;
	}
	pthread_mutex_unlock(&L->mu);
	return w ? 0 : tix_error_oom(err, NULL);
}

void linker_rows_view(const struct linker *L, struct tix_rows *v)
{
	memset(v, 0, sizeof(*v));
	v->rows = (const struct tix_row_disk *)L->rows.base;
	v->nrows = L->nrows;
	v->long_durs = L->long_durs;
	v->nlong = L->nlong;
	v->chains = (const struct tix_chain_disk *)L->chains.base;
	v->nchains = (uint32_t)L->chains.n;
	v->chain_rows = (const uint32_t *)L->chain_rows.base;
	v->nchain_rows = (uint32_t)L->chain_rows.n;
	v->steps = L->steps;
	v->nsteps = L->nsteps - (L->before_trace_step != TIX_NONE);
	v->before_trace_step = L->before_trace_step;
}

uint32_t linker_step_of(const struct linker *L, uint32_t row)
{
	struct tix_rows v;
	linker_rows_view(L, &v);
	return tix_rule_step_of(&v, row);
}