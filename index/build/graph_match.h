/*
 * index/build/graph_match.h: which capture window a CUDA-graph replay came
 * from, and which captured launch each replayed kernel was (the rule below;
 * docs/FORMAT.md, "Graph attribution", says what the index keeps of it).
 * Private to index/build/: the graph phase (graph.c) calls it; nothing here
 * knows about traces, rows or the index file.
 *
 * A pure function of its inputs: names are string ids (equal ids = equal
 * names, TIX_NONE = the capture gave no name, as NVIDIA Kineto's capture
 * launches), batch sizes are numbers.  The scratch only caches; the same
 * inputs give the same outputs with a fresh scratch or a reused one.
 *
 * The rule, for one replay of n kernels against windows w[0..nw):
 *
 *  1. Exact: a window whose names equal the replay's, position by position,
 *     none TIX_NONE.  Every kernel i -> position i, "exact".
 *  2. Aligned: else, among windows with at least one name, the best
 *     score = LCS(names) / max(n, m), kept if >= 0.9 (TIX_NONE equals
 *     nothing, not even TIX_NONE).  Kernels paired by the longest common
 *     subsequence -> "aligned".  Then each unpaired replay kernel, in replay
 *     order, takes the unpaired window launch of its name nearest to the
 *     place the LCS leaves for it, if it is at most 8 launches away ->
 *     "reordered"; the rest "none".  The place: between the window
 *     positions j0 and j1 of the nearest LCS-paired replay kernels before
 *     and after it (j0 = -1, j1 = m where there is none); a launch at j
 *     is j0 - j launches away when j < j0, j - j1 when j > j1 (it jumped
 *     over that many); ties go to the smaller j.  (A launch between j0 and
 *     j1 cannot be left unpaired: the LCS would have taken it.)  Where
 *     several LCSs are equally long, the traceback from the ends of both
 *     sequences picks one, dropping the later replay kernel first (in an
 *     adjacent swap the first of the two is "aligned", the second
 *     "reordered"); the number "aligned" is the LCS length either way.
 *  3. Positional: else, the windows with no names at all (every name
 *     TIX_NONE) and exactly n launches: kernel i -> position i,
 *     "positional" (the names are unverified).  When the tie-break below
 *     leaves several such windows, none is chosen: every kernel
 *     "ambiguous", window and positions TIX_NONE.
 *
 *  Ties (equal rational score in 1 and 2, equal count in 3): when the
 *  replay's batch is known (>= 0), the windows labelled with a batch >= it
 *  win, the smallest label first; then window order (1 and 2 only: in 3 a
 *  tie that batch labels do not break is "ambiguous").  An unknown replay
 *  batch, or no label >= it, leaves the tie to window order.
 *
 *  No window position is ever given to more than one kernel.  A replay with
 *  no kernels gets no window.
 *
 * Cost: sequence hashes decide exact matches; windows whose length makes
 * 0.9 impossible (10 * min(n, m) < 9 * max(n, m)) or whose name counts
 * bound the LCS below the best score so far are skipped; the LCS length is
 * bit-parallel, O(n * m / 64) words of work per window, once per distinct
 * name sequence among the windows (captures for several batch sizes often
 * launch the same kernels); only the chosen window's LCS keeps its rows,
 * (m + 1) * ceil(n / 64) words (O(n*m) bits), for the traceback.  Results
 * are memoised by (replay sequence, batch) while the windows stay the same
 * (checked by a hash of all of them on each call).
 */
#ifndef TIX_INDEX_GRAPH_MATCH_H
#define TIX_INDEX_GRAPH_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "index/sink.h"

/* A capture window: the launches recorded between StreamBeginCapture and
 * StreamEndCapture, in start order.  Borrowed: gm_match only reads. */
struct gm_window {
	const uint32_t *names;   /* n string ids, TIX_NONE where unnamed; may be NULL if n == 0 */
	uint32_t n;
	int64_t batch;           /* labelled batch size (capture_N), -1 none */
};

/* A graph replay: its kernels in GPU start order.  Borrowed. */
struct gm_replay {
	const uint32_t *names;   /* n string ids, TIX_NONE where unknown; may be NULL if n == 0 */
	uint32_t n;
	int64_t batch;           /* from the step name, -1 unknown */
};

/* Counters, for tests and for the builder's statistics. */
struct gm_stats {
	uint64_t calls;
	uint64_t memo_hits;       /* calls answered from the memo */
	uint64_t lcs_runs;        /* LCS lengths computed (one per window tried) */
	uint64_t windows_skipped; /* by length ratio or name counts (or as the
	                           * same names as a window skipped before) */
};

/* Working memory and memo, reused across calls.  Fields are private.
 * Everything it holds counts against limit_bytes: the working buffers
 * grow to the largest (replay, window) seen, and a call that would need
 * more than the limit fails; the memo takes at most half the limit and then
 * stops growing (calls still succeed, unmemoised), and is dropped when the
 * working buffers need its room.  Not thread-safe: one scratch per thread. */
struct gm_scratch {
	size_t limit_bytes, bytes;
	struct gm_stats stats;
	void *grown;                     /* GROW's hand-over */
	/* windows: per-window hash and class, and the fingerprint of them all */
	uint64_t *whash;
	uint8_t *wclass;
	uint32_t *wfirst;                /* the first window with the same names */
	int64_t *wlcs;                   /* per window: LCS length, -2 skipped */
	size_t whash_cap, wclass_cap, wfirst_cap, wlcs_cap;
	uint64_t fingerprint;
	int fp_valid;
	/* replay: distinct names (open addressing), their counts and masks */
	uint32_t *slot_name, *slot_idx;  /* slot_idx: distinct index + 1, 0 empty */
	size_t slot_name_cap, slot_idx_cap;
	uint32_t nslots;
	uint32_t *rcount, *wcount, *touched;
	size_t rcount_cap, wcount_cap, touched_cap;
	uint64_t *masks;                 /* distinct x words */
	uint64_t *rows;                  /* LCS rows: one, or (m + 1) x words */
	size_t masks_cap, rows_cap;
	uint32_t *pair, *anchor, *widx;  /* per replay kernel, per replay kernel, per launch */
	uint8_t *wused;                  /* per launch */
	size_t pair_cap, anchor_cap, widx_cap, wused_cap;
	/* memo: entries (open addressing on the sequence hash) and an arena of
	 * names, positions and matches */
	struct gm_memo *memo;
	uint32_t memo_n, memo_cap;       /* entries; memo_cap is a power of 2 or 0 */
	unsigned char *arena;
	size_t arena_len, arena_cap;
};

/* limit_bytes: the most the scratch may hold; 0 = GM_DEFAULT_LIMIT.
 * Allocates nothing yet. */
#define GM_DEFAULT_LIMIT ((size_t)1 << 30)
void gm_scratch_init(struct gm_scratch *s, size_t limit_bytes);
/* Frees everything; s may then be initialised again. */
void gm_scratch_done(struct gm_scratch *s);

/*
 * Matches replay r against windows w[0..nw).  Writes *window_out (the chosen
 * window's index, or TIX_NONE), and for each replayed kernel i < r->n:
 * pos_out[i], the position in that window it is attributed to (TIX_NONE
 * when none), and match_out[i], an enum tix_capture_match (index/sink.h).
 * pos_out and match_out hold r->n entries each (may be NULL if r->n == 0).
 *
 * Returns 0, or -1 with a one-line message in *err (err may be NULL; the
 * message starts "graph attribution: " and names no file: the caller adds
 * which capture) and, where the output pointers allow, the outputs written
 * as "no window, all none".  Failures: misuse (s, r or window_out NULL; NULL
 * names, pos_out or match_out with a count > 0; a count or nw of TIX_NONE
 * or more) or working memory beyond the scratch's limit or refused by
 * malloc ("out of memory").  The scratch stays usable after a failure.
 */
int gm_match(const struct gm_window *w, uint32_t nw, const struct gm_replay *r,
             uint32_t *window_out, uint32_t *pos_out, uint8_t *match_out,
             struct gm_scratch *s, struct tix_error *err);

#endif /* TIX_INDEX_GRAPH_MATCH_H */
