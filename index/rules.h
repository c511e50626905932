/*
 * The rules that give an event its meaning, defined once: included by the
 * build's phases (index/build/) while they write the index and
 * by the reader (reader.c, export.c, ...) when it answers queries, so that an
 * aggregate computed at build time and a query asked later cannot disagree.
 * Private to index/.  docs/FORMAT.md ("Rules") is the long form.
 *
 * Both sides see the rows through a struct tix_rows: the builder points it at
 * its spill files, the reader at the mapping.  The reader checks each part
 * of its file when first read (reader_int.h), so a rule says what it is
 * about to read through tix_rows_need(); the builder's rows need nothing.
 */
#ifndef TIX_INDEX_RULES_H
#define TIX_INDEX_RULES_H

#include <stdint.h>
#include <string.h>

#include "index/format.h"
#include "index/index.h"

struct tix_rows {
	const struct tix_row_disk *rows;
	uint32_t nrows;
	const struct tix_long_dur_disk *long_durs;  /* sorted by row */
	uint32_t nlong;
	const struct tix_chain_disk *chains;        /* sorted by row */
	uint32_t nchains;
	const uint32_t *chain_rows;
	uint32_t nchain_rows;
	const struct tix_step *steps;               /* the real steps, by start */
	uint32_t nsteps;
	uint32_t before_trace_step;                 /* step id of "before the trace", TIX_NONE */
	/* records first .. first+n-1 of section sec are about to be read
	 * (the reader's check; NULL for the builder) */
	void (*need)(const struct tix_rows *v, unsigned sec, uint32_t first, uint32_t n);
	/* the ROWS blocks' states (TIX_ROWS_GOOD: checked and good) and the
	 * records a block holds, 1 << rows_shift: a row of a good block is
	 * read without calling need (NULL for the builder) */
	const uint8_t *rows_state;
	unsigned rows_shift;
};
#define TIX_ROWS_GOOD 1 /* the reader's BLOCK_GOOD */

static inline void tix_rows_need(const struct tix_rows *v, unsigned sec, uint32_t first, uint32_t n)
{
	/* the walks up a thread's stack ask for one row a step: most often
	 * of a block already good, so that is looked at here, not through
	 * the call (19% of the compare by shapes' time at 1.2M events) */
	if (sec == TIX_SEC_ROWS && n == 1 && v->rows_state &&
	    __atomic_load_n(&v->rows_state[first >> v->rows_shift], __ATOMIC_ACQUIRE) == TIX_ROWS_GOOD)
		return;
	if (v->need)
		v->need(v, sec, first, n);
}

/* ---- duration ----
 * A row keeps its duration in 32 bits; longer ones (over 4.29 s) are in the
 * long-duration table. */
static inline int64_t tix_rule_dur(const struct tix_rows *v, uint32_t row)
{
	tix_rows_need(v, TIX_SEC_ROWS, row, 1);
	const struct tix_row_disk *r = &v->rows[row];
	if (r->dur_ns != UINT32_MAX)
		return r->dur_ns;
	uint32_t lo = 0, hi = v->nlong;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		tix_rows_need(v, TIX_SEC_LONG_DUR, mid, 1);
		if (v->long_durs[mid].row < row)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < v->nlong)
		tix_rows_need(v, TIX_SEC_LONG_DUR, lo, 1);
	return lo < v->nlong && v->long_durs[lo].row == row ? v->long_durs[lo].dur_ns : r->dur_ns;
}

/* ---- parents: containment ----
 * Kineto writes times in whole microseconds, so a child may overrun its
 * parent's end by up to this much and still be inside it. */
#define TIX_PARENT_SLACK_NS 1000

/* The CPU-side events that can hold others: everything on a thread except
 * instants and counters (points, not intervals). */
static inline int tix_rule_is_container_kind(uint8_t kind)
{
	return !tix_kind_is_gpu((enum tix_kind)kind) && kind != TIX_KIND_INSTANT &&
	       kind != TIX_KIND_COUNTER;
}

/* 1 when [ps, ps+pd) contains [cs, cs+cd): the child starts inside the
 * parent (or with it) and ends no more than the slack after it.  An event
 * that starts when another has ended is its sibling, however short.
 * Computed in 128 bits: times may be near the int64 limits. */
static inline int tix_rule_contains(int64_t ps, int64_t pd, int64_t cs, int64_t cd)
{
	return ps <= cs && (cs == ps || (__int128)cs < (__int128)ps + pd) &&
	       (__int128)cs + cd <= (__int128)ps + pd + TIX_PARENT_SLACK_NS;
}

/* 1 when nothing starting at ts or later can be inside [ps, ps+pd). */
static inline int tix_rule_closed_before(int64_t ps, int64_t pd, int64_t ts)
{
	return ts > ps && (__int128)ts >= (__int128)ps + pd;
}

/* The ancestors of a CPU-side row: the container-kind rows on its track,
 * before it in row order (start, then longer first), that contain it.  Each
 * row links to its innermost ancestor; where walking those links would not
 * give exactly its ancestors (events that start inside one another and
 * outlive it), the builder stored the full list in the chain table.
 * Writes up to cap row numbers into out, innermost first, and returns how
 * many there are (which may exceed cap). */
/* Whether a row's ancestors are listed in the chain table: 1 with *list
 * (innermost first) and *count set; else 0, and they are its link followed
 * by the link's own ancestors.  tix_rule_ancestors walks that; callers
 * that walk it themselves (reader's tix_rows_beneath) go by this too. */
static inline int tix_rule_listed(const struct tix_rows *v, uint32_t row, const uint32_t **list,
                                  uint32_t *count)
{
	tix_rows_need(v, TIX_SEC_ROWS, row, 1);
	if (!(v->rows[row].flags & TIX_ROW_CHAIN))
		return 0;
	uint32_t lo = 0, hi = v->nchains;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		tix_rows_need(v, TIX_SEC_CHAINS, mid, 1);
		if (v->chains[mid].row < row)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == v->nchains)
		return 0;
	tix_rows_need(v, TIX_SEC_CHAINS, lo, 1);
	const struct tix_chain_disk *c = &v->chains[lo];
	if (c->row != row)
		return 0;
	tix_rows_need(v, TIX_SEC_CHAIN_ROWS, c->first, c->count);
	*list = v->chain_rows + c->first;
	*count = c->count;
	return 1;
}

static inline uint32_t tix_rule_ancestors(const struct tix_rows *v, uint32_t row, uint32_t *out,
                                          uint32_t cap)
{
	uint32_t n = 0;
	for (uint32_t p = row;;) {
		const uint32_t *list;
		uint32_t count;
		if (tix_rule_listed(v, p, &list, &count)) {
			/* p's list is explicit: the rest of ours is p's */
			for (uint32_t i = 0; i < count && n + i < cap; i++)
				out[n + i] = list[i];
			return n + count;
		}
		p = v->rows[p].link;
		if (p == TIX_NONE)
			return n;
		if (n < cap)
			out[n] = p;
		n++;
	}
}

/* The innermost row of the given kind among the first max ancestors of
 * row, in the order tix_rule_ancestors lists them, or TIX_NONE: the same
 * walk, stopped there (the op above a launch is most often its parent). */
static inline uint32_t tix_rule_ancestor_of_kind(const struct tix_rows *v, uint32_t row, uint8_t kind,
                                                 uint32_t max)
{
	uint32_t n = 0;
	for (uint32_t p = row;;) {
		const uint32_t *list;
		uint32_t count;
		if (tix_rule_listed(v, p, &list, &count)) { /* the rest is p's list */
			for (uint32_t i = 0; i < count && n + i < max; i++) {
				tix_rows_need(v, TIX_SEC_ROWS, list[i], 1);
				if (v->rows[list[i]].kind == kind)
					return list[i];
			}
			return TIX_NONE;
		}
		p = v->rows[p].link;
		if (p == TIX_NONE || n >= max)
			return TIX_NONE;
		tix_rows_need(v, TIX_SEC_ROWS, p, 1);
		if (v->rows[p].kind == kind)
			return p;
		n++;
	}
}

/* ---- ops ----
 * An op is a CPU op or a user annotation (tix_kind_is_op) that is not a
 * step marker: a marker's name may be an op's too (vLLM's execute_model
 * nested in the one that marks the step), but the marker itself is none.
 * A GPU event with a launch call counts, with its whole duration, once for
 * every distinct op name among the launch call's ancestors; no launch: for
 * none.  The build ranks the ops by it (op_totals.c), a step's ops follow
 * it at query time (tix_event_op_names, for view/ops.c). */
static inline int tix_rule_is_op(uint8_t kind, uint8_t flags)
{
	return tix_kind_is_op(kind) && !(flags & TIX_ROW_STEP_MARKER);
}

/* The op names a launch call with the ancestors anc[0..n) (innermost
 * first, as tix_rule_ancestors lists them) counts its GPU work for: each
 * distinct one once, innermost first, into names (room for n; it may be
 * anc itself).  Returns how many. */
static inline uint32_t tix_rule_op_names(const struct tix_rows *v, const uint32_t *anc, uint32_t n,
                                         uint32_t *names)
{
	uint32_t k = 0;
	for (uint32_t a = 0; a < n; a++) {
		tix_rows_need(v, TIX_SEC_ROWS, anc[a], 1);
		const struct tix_row_disk *r = &v->rows[anc[a]];
		if (!tix_rule_is_op(r->kind, r->flags))
			continue;
		uint32_t q = 0;
		while (q < k && names[q] != r->name)
			q++;
		if (q == k)
			names[k++] = r->name;
	}
	return k;
}

/* ---- steps ----
 * The time that places a row in a step: GPU work by the start of its launch
 * call (a kernel runs late, but belongs to the step that asked for it), any
 * other row by its own start. */
static inline int64_t tix_rule_step_time(const struct tix_rows *v, uint32_t row)
{
	tix_rows_need(v, TIX_SEC_ROWS, row, 1);
	const struct tix_row_disk *r = &v->rows[row];
	if (tix_kind_is_gpu((enum tix_kind)r->kind) && r->link != TIX_NONE) {
		tix_rows_need(v, TIX_SEC_ROWS, r->link, 1);
		return v->rows[r->link].start_ns;
	}
	return r->start_ns;
}

/* The step of a row, TIX_NONE when in none.  GPU work launched before the
 * trace (flagged at link time) is in the "before the trace" step; the
 * implicit whole-trace step (no marker) holds everything else. */
static inline uint32_t tix_rule_step_of(const struct tix_rows *v, uint32_t row)
{
	tix_rows_need(v, TIX_SEC_ROWS, row, 1);
	if (v->rows[row].flags & TIX_ROW_BEFORE_TRACE)
		return v->before_trace_step;
	int64_t t = tix_rule_step_time(v, row);
	uint32_t lo = 0, hi = v->nsteps;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		tix_rows_need(v, TIX_SEC_STEPS, mid, 1);
		if (v->steps[mid].start_ns <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return TIX_NONE;
	tix_rows_need(v, TIX_SEC_STEPS, lo - 1, 1);
	const struct tix_step *s = &v->steps[lo - 1];
	if (s->marker_row == TIX_NONE || (__int128)t < (__int128)s->start_ns + s->dur_ns)
		return lo - 1;
	return TIX_NONE;
}

/* ---- findings: the rules of docs/FINDINGS.md, sections 1 and 2 ----
 * A GPU work event's class in the breakdown: communication (a kernel the
 * comm rule names), memory (a copy or memset), compute (the other kernels). */
enum tix_gpu_class { TIX_GPU_COMPUTE, TIX_GPU_COMM, TIX_GPU_MEMORY };
static inline enum tix_gpu_class tix_rule_gpu_class(uint8_t kind, const char *name)
{
	if (kind == TIX_KIND_MEMCPY || kind == TIX_KIND_MEMSET)
		return TIX_GPU_MEMORY;
	return tix_name_is_comm(name) ? TIX_GPU_COMM : TIX_GPU_COMPUTE;
}

/* A gap shorter than this, with its next work already asked for, is the
 * wait between back-to-back launched kernels: HTA's
 * consecutive_kernel_delay (30 us; its docs say ns, its code compares
 * microseconds). */
#define TIX_KERNEL_WAIT_NS 30000

enum tix_idle_cause { TIX_IDLE_HOST, TIX_IDLE_KERNEL, TIX_IDLE_OTHER };
/* The cause of a gap [gap_start, gap_start + gap_ns) ended by GPU work
 * whose launch call started at launch_ns (INT64_MIN: no launch known):
 * host wait when the call started after the gap began, else kernel wait
 * when the gap is short, else other (HTA's get_idle_time_breakdown). */
static inline enum tix_idle_cause tix_rule_idle_cause(int64_t gap_start, int64_t gap_ns,
                                                      int64_t launch_ns)
{
	if (launch_ns != INT64_MIN && launch_ns > gap_start)
		return TIX_IDLE_HOST;
	return gap_ns < TIX_KERNEL_WAIT_NS ? TIX_IDLE_KERNEL : TIX_IDLE_OTHER;
}

/* A kernel that ran for less time than its launch call took on the CPU
 * (HTA's "short GPU kernels"): the GPU finishes it faster than the CPU can
 * ask for the next. */
static inline int tix_rule_launch_bound(int64_t kernel_ns, int64_t launch_call_ns)
{
	return kernel_ns < launch_call_ns;
}
/* Launch-bound kernels in a row, on one stream with only host-wait gaps
 * between them, that make a stretch a graph or a fusion could remove. */
#define TIX_LAUNCH_RUN_MIN 8

/* A runtime or driver call that blocks the calling CPU thread until the
 * GPU has done something: the device, stream and event synchronizations,
 * and the copies and memsets that are not Async (CUDA, the driver API and
 * HIP spellings).  cudaStreamWaitEvent does not block the CPU. */
static inline int tix_rule_is_sync_call(const char *name)
{
	const char *p = name;
	if (!strncmp(p, "cuda", 4) || !strncmp(p, "hip", 3))
		p += p[0] == 'c' ? 4 : 3;
	else if (!strncmp(p, "cu", 2))
		p += 2;
	else
		return 0;
	if (strstr(p, "Synchronize"))
		return 1;
	return (!strncmp(p, "Memcpy", 6) || !strncmp(p, "Memset", 6)) && !strstr(p, "Async");
}

/* A memcpy from or to pageable host memory, as Kineto names them
 * ("Memcpy HtoD (Pageable -> Device)"): a synchronous copy through a
 * staging buffer. */
static inline int tix_rule_is_pageable_copy(uint8_t kind, const char *name)
{
	return kind == TIX_KIND_MEMCPY && strstr(name, "Pageable") != NULL;
}

#endif /* TIX_INDEX_RULES_H */
