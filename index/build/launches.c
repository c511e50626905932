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

/* Launch calls by correlation id (rule: docs/FORMAT.md, "Links"). */
int linker_link_by_correlation(struct linker *L, struct tix_error *err)
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
	/* Launch calls by correlation id.  Merged traces of several processes
	 * (and some single ones) reuse ids: the slot keeps a list, through
	 * next[], of every launch with its id. */
	struct spill nexts;
	if (linker_spill(L, &nexts, sizeof(uint32_t), err) || spill_resize(&nexts, L->nrows, err)) {
		spill_done(&nexts);
		linker_release(L, &table);
		return -1;
	}
	uint32_t *next = (uint32_t *)nexts.base;
	for (uint32_t i = 0; i < L->nrows; i++) {
		int64_t c = SPILL_AT(&L->corr, int64_t, i);
		if (c < 0 || !tix_kind_is_launch(SPILL_AT(&L->rows, struct tix_row_disk, i).kind))
			continue;
		uint32_t j = (uint32_t)tix_hash64(&c, 8, 3) & mask;
		while (slots[j].used && slots[j].corr != c)
			j = (j + 1) & mask;
		next[i] = slots[j].used ? slots[j].row : TIX_NONE;
		if (slots[j].used == 1)
			L->corr_collisions++;
		slots[j].corr = c;
		slots[j].row = i;
		slots[j].used++;
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
		if (!slots[j].used) {
			unlinked += tix_kind_is_gpu_work(r->kind);
			continue;
		}
		/* The launch that precedes the GPU event most closely; when none
		 * precedes it, the earliest. */
		uint32_t best = TIX_NONE, first = TIX_NONE;
		for (uint32_t k = slots[j].row; k != TIX_NONE; k = next[k]) {
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
	linker_release(L, &table);

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
		for (uint32_t i = 0; i < L->nrows; i++) {
			const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
			if (tix_kind_is_launch(r->kind) && SPILL_AT(&L->corr, int64_t, i) >= 0)
				launches++;
		}
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
