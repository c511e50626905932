/* The launches phase: each GPU event linked to the launch call that asked
 * for it, by correlation id (beside the parents phase, on the calling
 * thread) or, for what the ids left unlinked, by ac2g flow; then what the
 * links say of each GPU event (no launch found, replayed from a graph) and
 * of the trace. */
#include "index/build/phases.h"

#include <stdio.h>
#include <string.h>

struct corr_slot {
	int64_t corr;
	uint32_t row;
	uint32_t used;
};

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
		if (want_launch ? tix_kind_is_launch(r->kind) : tix_kind_is_gpu(r->kind))
			return i;
	}
	return TIX_NONE;
}

/* The table of launch calls by correlation id.  Kineto numbers the
 * launches of a process from 1 up, so the ids of a trace mostly fill a
 * range not much wider than their count: then the id less the smallest is
 * the slot, and a walk over the rows (each track in time order, its ids
 * rising) touches the table in order.  A hash scatters those touches over
 * a table far larger than the caches at millions of launches (at 10M
 * events, the phase took 10x its time at 2.5M), so it serves only ids too
 * sparse for that.  Either way a slot holds one id: what the links are
 * does not depend on which. */
struct corr_table {
	struct spill sp;
	struct corr_slot *slots;
	uint32_t mask;   /* hashed: slots - 1 */
	int direct;      /* slot = id - lo */
	int64_t lo, hi;  /* direct: the ids' range */
};

/* Direct when the range holds at most this many slots per launch (the hash
 * takes 2-4 per launch, so the table is no larger). */
#define DIRECT_SLOTS_PER_LAUNCH 4

static int corr_table_init(struct linker *L, struct corr_table *t, uint32_t nlaunch, struct tix_error *err)
{
	memset(t, 0, sizeof(*t));
	t->sp.fd = -1;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (uint32_t sp = 0, i = 0; i < L->nrows; i++) {
		int64_t c = linker_launch_corr(L, &sp, i);
		if (c < 0)
			continue;
		lo = c < lo ? c : lo;
		hi = c > hi ? c : hi;
	}
	uint64_t nslots = 16;
	if (lo <= hi && (uint64_t)(hi - lo) < (uint64_t)DIRECT_SLOTS_PER_LAUNCH * nlaunch + 16) {
		t->direct = 1;
		t->lo = lo;
		t->hi = hi;
		nslots = (uint64_t)(hi - lo) + 1;
	} else {
		while (nslots < 2ull * nlaunch)
			nslots *= 2;
		t->mask = (uint32_t)(nslots - 1);
	}
	if (linker_spill(L, &t->sp, sizeof(struct corr_slot), nslots, err) || spill_resize(&t->sp, nslots, err))
		return -1;
	t->slots = (struct corr_slot *)t->sp.base;
	memset(t->slots, 0, nslots * sizeof(*t->slots));
	return 0;
}

/* The slot of id c (>= 0): the one that holds it, or the free one it would
 * take; NULL when a direct table has no room for it (then it is no
 * launch's). */
static struct corr_slot *corr_slot_of(const struct corr_table *t, int64_t c)
{
	if (t->direct)
		return c >= t->lo && c <= t->hi ? &t->slots[c - t->lo] : NULL;
	uint32_t j = (uint32_t)tix_hash64(&c, 8, 3) & t->mask;
	while (t->slots[j].used && t->slots[j].corr != c)
		j = (j + 1) & t->mask;
	return &t->slots[j];
}

/* Launch calls by correlation id (rule: docs/FORMAT.md, "Links"). */
int linker_link_by_correlation(struct linker *L, struct tix_error *err)
{
	struct tix_builder *b = L->b;
	uint32_t nlaunch = b->c.kind_counts[TIX_KIND_RUNTIME] + b->c.kind_counts[TIX_KIND_DRIVER];
	struct corr_table table;
	if (corr_table_init(L, &table, nlaunch, err) != 0) {
		spill_done(&table.sp);
		return -1;
	}
	/* Launch calls by correlation id.  Merged traces of several processes
	 * (and some single ones) reuse ids: the slot keeps a list, through
	 * next[], of every launch with its id. */
	struct spill nexts;
	if (linker_spill(L, &nexts, sizeof(uint32_t), L->nrows, err) || spill_resize(&nexts, L->nrows, err)) {
		spill_done(&nexts);
		linker_release(L, &table.sp);
		return -1;
	}
	uint32_t *next = (uint32_t *)nexts.base;
	for (uint32_t sp = 0, i = 0; i < L->nrows; i++) {
		int64_t c = linker_launch_corr(L, &sp, i);
		if (c < 0)
			continue;
		struct corr_slot *slot = corr_slot_of(&table, c); /* never NULL: the range holds every launch's */
		next[i] = slot->used ? slot->row : TIX_NONE;
		if (slot->used == 1)
			L->corr_collisions++;
		slot->corr = c;
		slot->row = i;
		slot->used++;
	}
	uint32_t unlinked = 0;
	for (uint32_t sp = 0, i = linker_gpu_row(L, &sp, 0); i != TIX_NONE; i = linker_gpu_row(L, &sp, i + 1)) {
		struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
		if (!tix_kind_is_gpu(r->kind))
			continue;
		int64_t c = SPILL_AT(&L->corr, int64_t, i);
		if (c < 0) {
			unlinked += tix_kind_is_gpu_work(r->kind);
			continue;
		}
		const struct corr_slot *slot = corr_slot_of(&table, c);
		if (!slot || !slot->used) {
			unlinked += tix_kind_is_gpu_work(r->kind);
			continue;
		}
		/* The launch that precedes the GPU event most closely; when none
		 * precedes it, the earliest. */
		uint32_t best = TIX_NONE, first = TIX_NONE;
		for (uint32_t k = slot->row; k != TIX_NONE; k = next[k]) {
			int64_t ks = SPILL_AT(&L->rows, struct tix_row_disk, k).start_ns;
			if (ks <= r->start_ns &&
			    (best == TIX_NONE || ks > SPILL_AT(&L->rows, struct tix_row_disk, best).start_ns))
				best = k;
			if (first == TIX_NONE || ks < SPILL_AT(&L->rows, struct tix_row_disk, first).start_ns)
				first = k;
		}
		r->link = best != TIX_NONE ? best : first;
	}
	linker_release(L, &nexts);
	linker_release(L, &table.sp);

	L->unlinked_by_corr = unlinked;
	return 0;
}

/* ac2g flows, for GPU events whose correlation id led nowhere: the driver
 * runs this (after merging the second producer's flows) only when some
 * did. */
int linker_link_by_flows(struct linker *L, struct tix_error *err)
{
	struct tix_builder *b = L->b;
	(void)err;
	for (size_t i = 0; i < b->c.flows.n; i++) { /* flows name tracks too */
		struct bflow *f = &SPILL_AT(&b->c.flows, struct bflow, i);
		f->track = L->track_remap[f->track];
	}
	struct bflow *fl = (struct bflow *)b->c.flows.base;
	size_t nf = b->c.flows.n;
	if (linker_sort(L, fl, nf, sizeof(*fl), cmp_flow, err) != 0)
		return -1;
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
	return 0;
}

/* What the links say of each GPU event: no launch found, or replayed from
 * a graph (launched by cudaGraphLaunch / hipGraphLaunch); and what the
 * launches say of the trace. */
int linker_mark_launches(struct linker *L, struct tix_error *err)
{
	struct tix_builder *b = L->b;
	for (uint32_t sp = 0, i = linker_gpu_row(L, &sp, 0); i != TIX_NONE; i = linker_gpu_row(L, &sp, i + 1)) {
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
	char msg[300];
	if (L->corr_collisions) {
		snprintf(msg, sizeof(msg),
		         "%u correlation ids are carried by several launch calls (merged processes?): "
		         "each GPU event was linked to the launch that precedes it most closely",
		         L->corr_collisions);
		if (linker_warn(L, msg, err) != 0)
			return -1;
	}
	uint32_t gpu_work = b->c.kind_counts[TIX_KIND_KERNEL] + b->c.kind_counts[TIX_KIND_MEMCPY] +
	                    b->c.kind_counts[TIX_KIND_MEMSET];
	if (gpu_work == 0) {
		/* The runtime and driver calls that would have GPU activity:
		 * those with a correlation id (corr is still there in this phase). */
		uint32_t launches = 0;
		for (uint32_t sp = 0, i = 0; i < L->nrows; i++)
			launches += linker_launch_corr(L, &sp, i) >= 0;
		if (launches) {
			snprintf(msg, sizeof(msg),
			         "%u CUDA runtime/driver calls and no GPU activity at all (no kernel, memcpy "
			         "or memset): the profiler did not record the GPU side (CUPTI activity off?)",
			         launches);
			if (linker_warn(L, msg, err) != 0)
				return -1;
		}
	}
	return 0;
}
