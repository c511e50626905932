/* The builder's finishing half: orders the collected events by track and
 * time, resolves the links (parent on the same thread by time nesting,
 * launch call by correlation id or ac2g flow), finds the steps, has
 * aggregate.c compute the totals, and writes the sections of the .tix. */
#include "index/index.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "index/builder_int.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int linker_spill(struct linker *L, struct spill *s, size_t elem, struct tix_error *err)
{
	int best = -1;
	for (int i = 0; i < L->npool; i++)
		if (best < 0 || L->pool[i].cap * L->pool[i].elem > L->pool[best].cap * L->pool[best].elem)
			best = i;
	if (best < 0)
		return spill_init(s, L->b->dir, L->b->out_path, elem, err);
	*s = L->pool[best];
	L->pool[best] = L->pool[--L->npool];
	spill_retype(s, elem);
	return 0;
}

void linker_release(struct linker *L, struct spill *s)
{
	if (s->base && s->fd >= 0 && L->npool < (int)(sizeof(L->pool) / sizeof(L->pool[0]))) {
		L->pool[L->npool++] = *s;
		memset(s, 0, sizeof(*s));
		s->fd = -1;
		return;
	}
	spill_done(s);
}

/* ---- ordering ---- */

static int track_class(const struct tix_builder *b, const struct btrack *t)
{
	if (t->gpu_count * 2 > t->count)
		return TIX_TRACK_GPU;
	if (t->key.pid_str != TIX_NONE)
		return TIX_TRACK_OTHER;
	return TIX_TRACK_CPU;
}

static const struct tix_builder *sort_builder; /* qsort has no context argument */

static int cmp_track(const void *a, const void *b)
{
	const struct btrack *x = &sort_builder->c.tracks[*(const uint32_t *)a];
	const struct btrack *y = &sort_builder->c.tracks[*(const uint32_t *)b];
	int cx = track_class(sort_builder, x), cy = track_class(sort_builder, y);
	if (cx != cy)
		return cx - cy;
	if (x->key.pid != y->key.pid)
		return x->key.pid < y->key.pid ? -1 : 1;
	if (x->key.pid_str != y->key.pid_str)
		return x->key.pid_str < y->key.pid_str ? -1 : 1;
	if (x->key.tid != y->key.tid)
		return x->key.tid < y->key.tid ? -1 : 1;
	return x->key.tid_str < y->key.tid_str ? -1 : (x->key.tid_str > y->key.tid_str);
}

static int same_pid(const struct btrack_key *a, const struct btrack_key *b)
{
	return a->pid == b->pid && a->pid_str == b->pid_str;
}

/* Final tracks: CPU threads, then GPU streams, then the rest, each by pid
 * and tid.  Fills L->tracks and returns old id -> new id. */
static uint32_t *order_tracks(struct linker *L, struct tix_error *err)
{
	struct tix_builder *b = L->b;
	uint32_t n = b->c.ntracks;
	uint32_t *order = malloc((n + 1) * sizeof(*order));
	uint32_t *remap = malloc((n + 1) * sizeof(*remap));
	L->tracks = calloc(n + 1, sizeof(*L->tracks));
	if (!order || !remap || !L->tracks) {
		free(order);
		free(remap);
		tix_error_set(err, "out of memory");
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	sort_builder = b;
	qsort(order, n, sizeof(*order), cmp_track);
	uint32_t first = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct btrack *bt = &b->c.tracks[order[i]];
		struct tix_track *t = &L->tracks[i];
		remap[order[i]] = i;
		t->pid = bt->key.pid;
		t->tid = bt->key.tid;
		t->pid_str = bt->key.pid_str;
		t->tid_str = bt->key.tid_str;
		t->kind = (uint8_t)track_class(b, bt);
		t->device = t->kind == TIX_TRACK_GPU ? (bt->device >= 0 ? bt->device : (int32_t)bt->key.pid) : -1;
		t->stream = t->kind == TIX_TRACK_GPU ? (bt->stream >= 0 ? bt->stream : (int32_t)bt->key.tid) : -1;
		t->first_row = first;
		t->row_count = bt->count;
		t->name = t->process_name = TIX_NONE;
		first += bt->count;
		/* Metadata events name threads and processes. */
		for (size_t m = 0; m < b->c.nmetas; m++) {
			const struct bmeta *mt = &b->c.metas[m];
			if (!same_pid(&mt->key, &bt->key))
				continue;
			const char *v = intern_str(&b->c.strings, mt->value);
			switch (mt->kind) {
			case TIX_META_PROCESS_NAME:
				t->process_name = mt->value;
				break;
			case TIX_META_PROCESS_SORT:
				if (t->sort_index == 0)
					t->sort_index = (int32_t)strtol(v, NULL, 10);
				break;
			case TIX_META_THREAD_NAME:
				if (mt->key.tid == bt->key.tid && mt->key.tid_str == bt->key.tid_str)
					t->name = mt->value;
				break;
			case TIX_META_THREAD_SORT:
				if (mt->key.tid == bt->key.tid && mt->key.tid_str == bt->key.tid_str)
					t->sort_index = (int32_t)strtol(v, NULL, 10);
				break;
			}
		}
		if (t->name == TIX_NONE) {
			char buf[64];
			if (t->kind == TIX_TRACK_GPU)
				snprintf(buf, sizeof(buf), "stream %d", (int)t->stream);
			else if (t->tid_str != TIX_NONE)
				snprintf(buf, sizeof(buf), "%.60s", intern_str(&b->c.strings, t->tid_str));
			else
				snprintf(buf, sizeof(buf), "thread %lld", (long long)t->tid);
			t->name = intern_add(&b->c.strings, buf, strlen(buf));
		}
	}
	free(order);
	L->ntracks = n;
	return remap;
}

/* Where ROWS goes in the output file: placed there directly (the file's
 * own pages), so the largest section is never built and copied. */
#define ROWS_OFFSET 4096u

static int map_out_rows(struct linker *L, uint32_t n, struct tix_error *err)
{
	struct tix_builder *b = L->b;
	if (n == 0)
		return linker_spill(L, &L->rows, sizeof(struct tix_row_disk), err);
	size_t bytes = (size_t)n * sizeof(struct tix_row_disk);
	if (file_reserve(b->out_fd, 0, ROWS_OFFSET + bytes) != 0)
		return tix_error_set(err, "%s: cannot grow the index to %zu MB: %s", b->out_path,
		                     bytes >> 20, strerror(errno));
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, b->out_fd, ROWS_OFFSET);
	if (p == MAP_FAILED)
		return tix_error_set(err, "%s: cannot map the index: %s", b->out_path, strerror(errno));
	memset(&L->rows, 0, sizeof(L->rows));
	L->rows.fd = -1; /* the mapping is not a spill file of ours */
	L->rows.base = p;
	L->rows.elem = sizeof(struct tix_row_disk);
	L->rows.n = L->rows.cap = n;
	L->out_rows_mapped = 1;
	return 0;
}

struct mover {
	struct tix_row_disk *rows;
	int64_t *corr;
};

static int row_before(const struct tix_row_disk *x, const struct tix_row_disk *y)
{
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns;
	return x->dur_ns > y->dur_ns; /* parents before children */
}

struct displaced {
	struct tix_row_disk row;
	int64_t corr;
	uint32_t from;
	uint32_t pad;
};

static int cmp_displaced(const void *a, const void *b)
{
	const struct displaced *x = a, *y = b;
	if (row_before(&x->row, &y->row))
		return -1;
	if (row_before(&y->row, &x->row))
		return 1;
	return x->from < y->from ? -1 : (x->from > y->from);
}

/* Sorts rows [f, f+n) by time.  Traces come nearly sorted (a few events
 * written late), so the rows that break the order are lifted out, sorted,
 * and merged back in place: O(n + d log d) for d of them. */
static int sort_track(struct mover *m, uint32_t f, uint32_t n, struct displaced **tmp,
                      size_t *tmp_cap)
{
	if (n < 2)
		return 0;
	struct tix_row_disk *rows = m->rows + f;
	int64_t *corr = m->corr + f;
	uint32_t i = 1;
	while (i < n && !row_before(&rows[i], &rows[i - 1]))
		i++;
	if (i >= n)
		return 0;
	/* Compact the rows that keep the order; lift out the others. */
	size_t d = 0;
	uint32_t w = i;
	for (; i < n; i++) {
		if (row_before(&rows[i], &rows[w - 1])) {
			if (d == *tmp_cap) {
				size_t cap = *tmp_cap ? *tmp_cap * 2 : 1024;
				struct displaced *t = realloc(*tmp, cap * sizeof(*t));
				if (!t)
					return -1;
				*tmp = t;
				*tmp_cap = cap;
			}
			(*tmp)[d++] = (struct displaced){rows[i], corr[i], f + i, 0};
		} else {
			rows[w] = rows[i];
			corr[w] = corr[i];
			w++;
		}
	}
	struct displaced *dp = *tmp;
	qsort(dp, d, sizeof(*dp), cmp_displaced);
	/* Merge from the back into the room the lifted rows left. */
	int64_t a = (int64_t)w - 1, k = (int64_t)n - 1, j = (int64_t)d - 1;
	while (j >= 0) {
		if (a >= 0 && row_before(&dp[j].row, &rows[a])) {
			rows[k] = rows[a];
			corr[k] = corr[a];
			a--;
		} else {
			rows[k] = dp[j].row;
			corr[k] = dp[j].corr;
			j--;
		}
		k--;
	}
	return 0;
}

/* Scatters the collected rows into track order (straight into the output
 * file), then sorts each track by time. */
static int place_rows(struct linker *L, const uint32_t *remap, struct tix_error *err)
{
	struct tix_builder *b = L->b;
	uint32_t n = L->nrows;
	int64_t *longs = NULL; /* long durations, in the order met */
	uint32_t nlong = 0, long_cap = 0;
	struct displaced *tmp = NULL;
	size_t tmp_cap = 0;
	int rc = -1;
	uint32_t *cursor = malloc((L->ntracks + 1) * sizeof(*cursor));
	if (!cursor)
		return tix_error_set(err, "out of memory");
	if (map_out_rows(L, n, err) || linker_spill(L, &L->corr, sizeof(int64_t), err) ||
	    spill_resize(&L->corr, n, err))
		goto out;
	for (uint32_t t = 0; t < L->ntracks; t++)
		cursor[t] = L->tracks[t].first_row;
	L->first_ns = n ? INT64_MAX : 0;
	L->last_ns = n ? INT64_MIN : 0;
	struct tix_row_disk *rows = (struct tix_row_disk *)L->rows.base;
	int64_t *corr = (int64_t *)L->corr.base;
	/* The primary collector's rows, then the second thread's, renumbered. */
	struct collector *src[2] = {&b->c, b->extra};
	for (int k = 0; k < 2 && src[k]; k++) {
		const uint32_t *sm = k ? b->xmap_str : NULL, *dm = k ? b->xmap_detail : NULL;
		const uint32_t *tm = k ? b->xmap_track : NULL;
		size_t cnt = src[k]->rows.n;
		for (size_t i = 0; i < cnt; i++) {
			const struct brow *s = &SPILL_AT(&src[k]->rows, struct brow, i);
			uint32_t track = remap[tm ? tm[s->track] : s->track];
			uint32_t pos = cursor[track]++;
			struct tix_row_disk *r = &rows[pos];
			r->start_ns = s->start_ns;
			r->name = sm ? sm[s->name] : s->name;
			r->track = track;
			r->detail = dm && s->detail != TIX_NONE ? dm[s->detail] : s->detail;
			r->link = TIX_NONE;
			r->kind = s->kind;
			r->flags = s->flags;
			r->reserved = 0;
			if (s->dur_ns >= UINT32_MAX) {
				if (nlong == long_cap) {
					long_cap = long_cap ? long_cap * 2 : 64;
					void *p = realloc(longs, long_cap * sizeof(*longs));
					if (!p)
						goto oom;
					longs = p;
				}
				/* The link field is free until linking: it carries the
				 * duration's index while rows move. */
				r->link = nlong;
				longs[nlong++] = s->dur_ns;
				r->dur_ns = UINT32_MAX;
				r->flags |= TIX_ROW_LONG_DUR;
			} else {
				r->dur_ns = (uint32_t)s->dur_ns;
			}
			corr[pos] = s->corr;
			if (s->start_ns < L->first_ns)
				L->first_ns = s->start_ns;
			if (s->start_ns + s->dur_ns > L->last_ns)
				L->last_ns = s->start_ns + s->dur_ns;
		}
	}
	if (b->extra)
		linker_release(L, &b->extra->rows);
	linker_release(L, &b->c.rows); /* its pages serve the next arrays */

	struct mover m = {rows, corr};
	for (uint32_t t = 0; t < L->ntracks; t++)
		if (sort_track(&m, L->tracks[t].first_row, L->tracks[t].row_count, &tmp, &tmp_cap) != 0)
			goto oom;
	if (nlong) {
		L->long_durs = malloc(nlong * sizeof(*L->long_durs));
		if (!L->long_durs)
			goto oom;
		for (uint32_t i = 0; i < n; i++) {
			struct tix_row_disk *r = &rows[i];
			if (!(r->flags & TIX_ROW_LONG_DUR))
				continue;
			L->long_durs[L->nlong++] = (struct tix_long_dur_disk){i, 0, longs[r->link]};
			r->link = TIX_NONE;
		}
		L->long_cap = nlong;
	}
	rc = 0;
	goto out;
oom:
	rc = tix_error_set(err, "out of memory");
out:
	free(cursor);
	free(longs);
	free(tmp);
	return rc;
}

/* ---- links ---- */

static int is_cpu_side(uint8_t kind)
{
	return !tix_kind_is_gpu((enum tix_kind)kind);
}

/* Parent of every CPU-side row: the innermost earlier row on its track
 * that is still open when it starts. */
static int link_parents(struct linker *L, struct tix_error *err)
{
	uint32_t cap = 256, *stack = malloc(cap * sizeof(*stack));
	if (!stack)
		return tix_error_set(err, "out of memory");
	for (uint32_t t = 0; t < L->ntracks; t++) {
		uint32_t sp = 0;
		uint32_t end = L->tracks[t].first_row + L->tracks[t].row_count;
		for (uint32_t i = L->tracks[t].first_row; i < end; i++) {
			struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
			if (!is_cpu_side(r->kind))
				continue;
			while (sp > 0) {
				uint32_t top = stack[sp - 1];
				const struct tix_row_disk *p = &SPILL_AT(&L->rows, struct tix_row_disk, top);
				if (p->start_ns + row_dur(L, top) > r->start_ns)
					break;
				sp--;
			}
			r->link = sp ? stack[sp - 1] : TIX_NONE;
			if (r->kind == TIX_KIND_INSTANT || r->kind == TIX_KIND_COUNTER)
				continue;
			if (sp == cap) {
				uint32_t *s2 = realloc(stack, 2 * cap * sizeof(*stack));
				if (!s2) {
					free(stack);
					return tix_error_set(err, "out of memory");
				}
				stack = s2;
				cap *= 2;
			}
			stack[sp++] = i;
		}
	}
	free(stack);
	return 0;
}

struct corr_slot {
	int64_t corr;
	uint32_t row;
	uint32_t used;
};

static int is_launch_kind(uint8_t k)
{
	return k == TIX_KIND_RUNTIME || k == TIX_KIND_DRIVER;
}

/* First row of track t at or after time ts. */
static uint32_t lower_bound(const struct linker *L, uint32_t t, int64_t ts)
{
	uint32_t lo = L->tracks[t].first_row, hi = lo + L->tracks[t].row_count;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (SPILL_AT(&L->rows, struct tix_row_disk, mid).start_ns < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int cmp_flow(const void *a, const void *b)
{
	const struct bflow *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return (int)y->is_start - (int)x->is_start; /* "s" first */
}

/* Kineto binds an "s" to the launch call starting at ts on its thread and
 * an "f" (bp "e") to the GPU event starting at ts on its stream. */
static uint32_t flow_end_row(const struct linker *L, const struct bflow *f, int want_launch)
{
	uint32_t end = L->tracks[f->track].first_row + L->tracks[f->track].row_count;
	for (uint32_t i = lower_bound(L, f->track, f->ts_ns); i < end; i++) {
		const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
		if (r->start_ns != f->ts_ns)
			break;
		if (want_launch ? is_launch_kind(r->kind) : tix_kind_is_gpu(r->kind))
			return i;
	}
	return TIX_NONE;
}

static int link_launches(struct linker *L, struct tix_error *err)
{
	struct tix_builder *b = L->b;
	uint32_t nlaunch = b->c.kind_counts[TIX_KIND_RUNTIME] + b->c.kind_counts[TIX_KIND_DRIVER];
	uint32_t nslots = 16;
	while (nslots < 2ull * nlaunch)
		nslots *= 2;
	struct spill table;
	if (linker_spill(L, &table, sizeof(struct corr_slot), err) ||
	    spill_resize(&table, nslots, err)) {
		spill_done(&table);
		return -1;
	}
	struct corr_slot *slots = (struct corr_slot *)table.base;
	memset(slots, 0, (size_t)nslots * sizeof(*slots));
	uint32_t mask = nslots - 1;
	for (uint32_t i = 0; i < L->nrows; i++) {
		int64_t c = SPILL_AT(&L->corr, int64_t, i);
		if (c < 0 || !is_launch_kind(SPILL_AT(&L->rows, struct tix_row_disk, i).kind))
			continue;
		uint32_t j = (uint32_t)tix_hash64(&c, 8, 3) & mask;
		while (slots[j].used && slots[j].corr != c)
			j = (j + 1) & mask;
		if (!slots[j].used) /* a reused id keeps its first launch */
			slots[j] = (struct corr_slot){c, i, 1};
	}
	uint32_t unlinked = 0;
	for (uint32_t i = 0; i < L->nrows; i++) {
		struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
		if (!tix_kind_is_gpu(r->kind))
			continue;
		int64_t c = SPILL_AT(&L->corr, int64_t, i);
		if (c < 0) {
			unlinked += tix_kind_is_gpu_work(r->kind);
			continue;
		}
		uint32_t j = (uint32_t)tix_hash64(&c, 8, 3) & mask;
		while (slots[j].used && slots[j].corr != c)
			j = (j + 1) & mask;
		if (slots[j].used)
			r->link = slots[j].row;
		else
			unlinked += tix_kind_is_gpu_work(r->kind);
	}
	linker_release(L, &table);

	/* ac2g flows, for GPU events whose correlation id led nowhere. */
	if (unlinked) {
		if (builder_merge_flows(b, err) != 0)
			return -1;
		for (size_t i = 0; i < b->c.flows.n; i++) { /* flows name tracks too */
			struct bflow *f = &SPILL_AT(&b->c.flows, struct bflow, i);
			f->track = L->track_remap[f->track];
		}
	}
	struct bflow *fl = (struct bflow *)b->c.flows.base;
	size_t nf = unlinked ? b->c.flows.n : 0; /* nothing left for flows to link */
	if (nf)
		qsort(fl, nf, sizeof(*fl), cmp_flow);
	for (size_t i = 0; i + 1 < nf; i++) {
		if (!fl[i].is_start || fl[i + 1].is_start || fl[i + 1].id != fl[i].id)
			continue;
		uint32_t dst = flow_end_row(L, &fl[i + 1], 0);
		if (dst == TIX_NONE)
			continue;
		struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, dst);
		if (r->link != TIX_NONE)
			continue;
		uint32_t src = flow_end_row(L, &fl[i], 1);
		if (src != TIX_NONE) {
			r->link = src;
			r->flags |= TIX_ROW_LINK_BY_FLOW;
		}
	}

	for (uint32_t i = 0; i < L->nrows; i++) {
		struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
		if (!tix_kind_is_gpu_work(r->kind))
			continue;
		if (r->link == TIX_NONE) {
			r->flags |= TIX_ROW_NO_LAUNCH;
			L->gpu_without_launch++;
		} else {
			const char *ln = intern_str(&b->c.strings,
			                            SPILL_AT(&L->rows, struct tix_row_disk, r->link).name);
			if (strstr(ln, "GraphLaunch"))
				r->flags |= TIX_ROW_GRAPH_REPLAY;
		}
	}
	return 0;
}

/* ---- steps ---- */

struct step_rule {
	const char *label;
	const char *regex;
};

static const struct step_rule default_rules[] = {
	{"ProfilerStep#N", "^ProfilerStep#[0-9]+$"},
	{"SGLang step[...]", "^step\\[(DECODE|EXTEND|PREFILL|MIXED|IDLE)([] ,].*)?$"},
	{"vLLM execute_*", "^execute_[A-Za-z0-9_]+$"},
};

static struct linker *step_sort_linker;

static int cmp_marker(const void *a, const void *b)
{
	const struct tix_row_disk *x = &SPILL_AT(&step_sort_linker->rows, struct tix_row_disk,
	                                         *(const uint32_t *)a);
	const struct tix_row_disk *y = &SPILL_AT(&step_sort_linker->rows, struct tix_row_disk,
	                                         *(const uint32_t *)b);
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static int is_marker_kind(uint8_t k)
{
	return k == TIX_KIND_CPU_OP || k == TIX_KIND_USER_ANNOTATION || k == TIX_KIND_PYTHON ||
	       k == TIX_KIND_OTHER;
}

static int find_steps(struct linker *L, struct tix_error *err)
{
	struct tix_builder *b = L->b;
	uint32_t nstr = b->c.strings.n;
	uint8_t *is_name = calloc(nstr + 1, 1);   /* 1: a CPU-side name, 2: a marker name */
	uint32_t *markers = NULL;
	if (!is_name)
		return tix_error_set(err, "out of memory");
	for (uint32_t i = 0; i < L->nrows; i++) {
		const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
		if (is_marker_kind(r->kind))
			is_name[r->name] = 1;
	}
	struct step_rule user = {"--step-marker", b->step_marker};
	const struct step_rule *rules = b->step_marker[0] ? &user : default_rules;
	size_t nrules = b->step_marker[0] ? 1 : sizeof(default_rules) / sizeof(default_rules[0]);
	int found = 0;
	for (size_t k = 0; k < nrules && !found; k++) {
		regex_t re;
		if (regcomp(&re, rules[k].regex, REG_EXTENDED | REG_NOSUB) != 0) {
			free(is_name);
			char pb[200];
			return tix_error_set(err, "invalid step marker regex '%s'",
			                     tix_printable(rules[k].regex, pb, sizeof(pb)));
		}
		for (uint32_t s = 0; s < nstr; s++) {
			if (is_name[s] && regexec(&re, intern_str(&b->c.strings, s), 0, NULL, 0) == 0) {
				is_name[s] = 2;
				found = 1;
			}
		}
		regfree(&re);
		if (found)
			L->step_rule = rules[k].label;
	}

	uint32_t nm = 0, cap = 0;
	if (found) {
		for (uint32_t i = 0; i < L->nrows; i++) {
			const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
			if (!is_marker_kind(r->kind) || is_name[r->name] != 2)
				continue;
			if (nm == cap) {
				cap = cap ? cap * 2 : 64;
				uint32_t *p = realloc(markers, cap * sizeof(*p));
				if (!p)
					goto oom;
				markers = p;
			}
			markers[nm++] = i;
		}
		step_sort_linker = L;
		qsort(markers, nm, sizeof(*markers), cmp_marker);
	}
	free(is_name);
	is_name = NULL;

	L->steps = calloc(nm ? nm : 1, sizeof(*L->steps));
	if (!L->steps)
		goto oom;
	int64_t open_end = INT64_MIN;
	for (uint32_t m = 0; m < nm; m++) {
		uint32_t row = markers[m];
		struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, row);
		/* A marker inside another (vLLM's nested execute_model) is not a
		 * step of its own. */
		if (r->start_ns < open_end)
			continue;
		struct tix_step *s = &L->steps[L->nsteps++];
		s->name = r->name;
		s->marker_row = row;
		s->start_ns = r->start_ns;
		s->dur_ns = row_dur(L, row);
		s->top_group = TIX_NONE;
		open_end = s->start_ns + s->dur_ns;
		r->flags |= TIX_ROW_STEP_MARKER;
	}
	free(markers);
	if (L->nsteps == 0) {
		if (b->step_marker[0]) {
			char msg[300], pb[200];
			snprintf(msg, sizeof(msg), "--step-marker '%s' matched no event: the trace is one step",
			         tix_printable(b->step_marker, pb, sizeof(pb)));
			if (tix_builder_warn(b, msg, err) != 0)
				return -1;
		}
		/* The span of the events that have one (not instants or counters). */
		int64_t lo = INT64_MAX, hi = INT64_MIN;
		for (uint32_t i = 0; i < L->nrows; i++) {
			const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
			if (r->kind == TIX_KIND_INSTANT || r->kind == TIX_KIND_COUNTER)
				continue;
			lo = r->start_ns < lo ? r->start_ns : lo;
			hi = r->start_ns + row_dur(L, i) > hi ? r->start_ns + row_dur(L, i) : hi;
		}
		if (lo > hi)
			lo = hi = L->first_ns;
		struct tix_step *s = &L->steps[L->nsteps++];
		s->name = intern_add(&b->c.strings, "(whole trace)", 13);
		s->marker_row = TIX_NONE;
		s->start_ns = lo;
		s->dur_ns = hi - lo;
		s->top_group = TIX_NONE;
		L->step_rule = "none found: one step";
		if (s->name == TIX_NONE)
			return tix_error_set(err, "out of memory");
	}
	return 0;
oom:
	free(is_name);
	free(markers);
	return tix_error_set(err, "out of memory");
}

uint32_t linker_step_of(const struct linker *L, uint32_t row)
{
	const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, row);
	int64_t t = r->start_ns;
	if (tix_kind_is_gpu(r->kind) && r->link != TIX_NONE)
		t = SPILL_AT(&L->rows, struct tix_row_disk, r->link).start_ns;
	uint32_t lo = 0, hi = L->nsteps;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (L->steps[mid].start_ns <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return TIX_NONE;
	const struct tix_step *s = &L->steps[lo - 1];
	/* The implicit whole-trace step holds everything. */
	if (s->marker_row == TIX_NONE || t < s->start_ns + s->dur_ns)
		return lo - 1;
	return TIX_NONE;
}

/* ---- writing ---- */

struct out_section {
	uint32_t id, elem;
	const void *data;
	uint64_t size;
};

static int write_all(int fd, const void *p, size_t n, uint64_t off, const char *path,
                     struct tix_error *err)
{
	const char *c = p;
	while (n) {
		ssize_t w = pwrite(fd, c, n > (1u << 26) ? (1u << 26) : n, (off_t)off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return tix_error_set(err, "%s: cannot write the index: %s", path,
			                     strerror(errno));
		}
		c += w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

static int write_file(struct linker *L, struct tix_error *err)
{
	struct tix_builder *b = L->b;
	struct tix_meta_disk meta;
	memset(&meta, 0, sizeof(meta));
	meta.source_size = b->opts.source_size;
	meta.source_mtime_ns = b->opts.source_mtime_ns;
	meta.source_hash = b->opts.source_hash;
	meta.base_time_ns = b->base_time_ns;
	meta.first_ns = L->first_ns;
	meta.last_ns = L->last_ns;
	meta.total_gpu_ns = L->total_gpu_ns;
	meta.source_path = intern_add(&b->c.strings, b->source_path, strlen(b->source_path));
	meta.step_marker = intern_add(&b->c.strings, b->step_marker, strlen(b->step_marker));
	meta.warnings = intern_add(&b->c.strings, b->c.warnings ? b->c.warnings : "", b->c.warnings_len);
	meta.step_rule = intern_add(&b->c.strings, L->step_rule, strlen(L->step_rule));
	meta.gpu_without_launch = L->gpu_without_launch;
	memcpy(meta.kind_counts, b->c.kind_counts, sizeof(meta.kind_counts));
	if (meta.source_path == TIX_NONE || meta.step_marker == TIX_NONE ||
	    meta.warnings == TIX_NONE || meta.step_rule == TIX_NONE)
		return tix_error_set(err, "out of memory");

	struct out_section secs[] = {
		{TIX_SEC_META, sizeof(meta), &meta, sizeof(meta)},
		{TIX_SEC_STRING_OFFSETS, 8, b->c.strings.offsets, (uint64_t)(b->c.strings.n + 1) * 8},
		{TIX_SEC_STRING_DATA, 1, b->c.strings.data, b->c.strings.data_len},
		{TIX_SEC_TRACKS, sizeof(struct tix_track), L->tracks,
		 (uint64_t)L->ntracks * sizeof(struct tix_track)},
		{TIX_SEC_ROWS, sizeof(struct tix_row_disk), L->rows.base,
		 (uint64_t)L->nrows * sizeof(struct tix_row_disk)},
		{TIX_SEC_DETAILS, sizeof(struct tix_detail_disk), b->c.details.recs,
		 (uint64_t)b->c.details.n * sizeof(struct tix_detail_disk)},
		{TIX_SEC_KERNEL_INFO, sizeof(struct tix_kernel_info), b->c.kinfos.recs,
		 (uint64_t)b->c.kinfos.n * sizeof(struct tix_kernel_info)},
		{TIX_SEC_OP_INFO, sizeof(struct tix_op_info), b->c.opinfos.recs,
		 (uint64_t)b->c.opinfos.n * sizeof(struct tix_op_info)},
		{TIX_SEC_LONG_DUR, sizeof(struct tix_long_dur_disk), L->long_durs,
		 (uint64_t)L->nlong * sizeof(struct tix_long_dur_disk)},
		{TIX_SEC_STEPS, sizeof(struct tix_step), L->steps,
		 (uint64_t)L->nsteps * sizeof(struct tix_step)},
		{TIX_SEC_GROUPS, sizeof(struct tix_group), L->groups,
		 (uint64_t)L->ngroups * sizeof(struct tix_group)},
		{TIX_SEC_STEP_GROUPS, sizeof(struct tix_group), L->step_groups,
		 (uint64_t)L->nstep_groups * sizeof(struct tix_group)},
		{TIX_SEC_MEMBERS, 4, L->members.base, (uint64_t)L->members.n * 4},
		{TIX_SEC_OPS, sizeof(struct tix_op), L->ops, (uint64_t)L->nops * sizeof(struct tix_op)},
		{TIX_SEC_OP_GROUPS, sizeof(struct tix_op_group), L->op_groups,
		 (uint64_t)L->nop_groups * sizeof(struct tix_op_group)},
		{TIX_SEC_TOP_META, 8, b->c.top_meta, (uint64_t)b->c.ntop_meta * 8},
	};
	enum { NSEC = sizeof(secs) / sizeof(secs[0]) };
	struct tix_section_disk table[NSEC];
	_Static_assert(sizeof(struct tix_header_disk) + sizeof(table) <= ROWS_OFFSET,
	               "header and table fit before the rows");
	uint64_t off = sizeof(struct tix_header_disk) + sizeof(table);
	if (L->out_rows_mapped) /* ROWS is in place already; the rest follows it */
		off = ROWS_OFFSET + (uint64_t)L->nrows * sizeof(struct tix_row_disk);
	for (int i = 0; i < NSEC; i++) {
		int in_place = secs[i].id == TIX_SEC_ROWS && L->out_rows_mapped;
		uint64_t at = in_place ? ROWS_OFFSET
		                       : (off + TIX_SECTION_ALIGN - 1) & ~(uint64_t)(TIX_SECTION_ALIGN - 1);
		table[i].id = secs[i].id;
		table[i].elem_size = secs[i].elem;
		table[i].offset = at;
		table[i].size = secs[i].size;
		table[i].checksum = tix_hash64(secs[i].size ? secs[i].data : "", secs[i].size, 0);
		if (in_place)
			continue;
		if (secs[i].size &&
		    write_all(b->out_fd, secs[i].data, secs[i].size, at, b->out_path, err) != 0)
			return -1;
		off = at + secs[i].size;
	}
	struct tix_header_disk h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, TIX_MAGIC, 8);
	h.version = TIX_FORMAT_VERSION;
	h.min_reader_version = TIX_MIN_READER_VERSION;
	h.header_size = sizeof(h);
	h.endian = TIX_ENDIAN_MARK;
	h.section_count = NSEC;
	h.section_table_offset = sizeof(h);
	h.file_size = off;
	unsigned char hb[sizeof(h) + sizeof(table)];
	memcpy(hb, &h, sizeof(h));
	memcpy(hb + sizeof(h), table, sizeof(table));
	h.checksum = tix_hash64(hb, sizeof(hb), 0);
	memcpy(hb, &h, sizeof(h));
	if (write_all(b->out_fd, hb, sizeof(hb), 0, b->out_path, err) != 0)
		return -1;
	if (ftruncate(b->out_fd, (off_t)off) != 0)
		return tix_error_set(err, "%s: %s", b->out_path, strerror(errno));
	return 0;
}

int builder_link_and_write(struct tix_builder *b, struct tix_error *err)
{
	struct linker L;
	memset(&L, 0, sizeof(L));
	L.b = b;
	L.rows.fd = L.corr.fd = L.members.fd = -1;
	L.nrows = (uint32_t)(b->c.rows.n + (b->extra ? b->extra->rows.n : 0));
	int rc = -1;
	int timing = getenv("TIX_TIMING") != NULL;
	double t = now_s();
#define PHASE(name, call)                                                              \
	do {                                                                           \
		if ((call) != 0)                                                       \
			goto out;                                                      \
		if (timing) {                                                          \
			fprintf(stderr, "tix: timing: %-10s %.3f s\n", name, now_s() - t); \
			t = now_s();                                                   \
		}                                                                      \
	} while (0)
	uint32_t *remap = order_tracks(&L, err);
	if (!remap)
		goto out;
	L.track_remap = remap;
	PHASE("place", place_rows(&L, remap, err));
	PHASE("parents", link_parents(&L, err));
	PHASE("launches", link_launches(&L, err));
	PHASE("steps", find_steps(&L, err));
	linker_release(&L, &L.corr);
	PHASE("aggregate", linker_aggregate(&L, err));
	PHASE("write", write_file(&L, err));
#undef PHASE
	rc = 0;
out:
	free(remap);
	for (int i = 0; i < L.npool; i++)
		spill_done(&L.pool[i]);
	spill_done(&L.rows);
	spill_done(&L.corr);
	spill_done(&L.members);
	free(L.tracks);
	free(L.long_durs);
	free(L.steps);
	free(L.groups);
	free(L.step_groups);
	free(L.ops);
	free(L.op_groups);
	return rc;
}
