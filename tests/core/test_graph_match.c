/*
 * Unit tests of index/graph_match.c, the CUDA-graph attribution rule (R7):
 * exact, aligned (one extra kernel), reordered (an adjacent swap, moves over
 * 8 and 9 launches), the batch tie-break, unnamed windows (positional,
 * ambiguous), scores around 0.9, the memo and its invalidation, errors and
 * the memory limit, a randomized check against a plain O(n*m) reference,
 * and a timed 600-kernel x 50-window x 300-replay case.
 *
 *   test_graph_match [SRC_DIR BIN_DIR]   (both ignored)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "index/graph_match.h"
#include "tests/check.h"

#define MAXN 4096

/* One call's result. */
struct res {
	int rc;
	uint32_t window;
	uint32_t pos[MAXN];
	uint8_t match[MAXN];
};

static void run(struct gm_scratch *s, const struct gm_window *w, uint32_t nw,
                const struct gm_replay *r, struct res *out)
{
	struct tix_error err = {0};
	out->rc = gm_match(w, nw, r, &out->window, out->pos, out->match, s, &err);
	if (out->rc != 0)
		printf("      (gm_match: %s)\n", err.msg);
}

static void run_fresh(const struct gm_window *w, uint32_t nw, const struct gm_replay *r,
                      struct res *out)
{
	struct gm_scratch s;
	gm_scratch_init(&s, 0);
	run(&s, w, nw, r, out);
	gm_scratch_done(&s);
}

static uint32_t count(const struct res *x, uint32_t n, enum tix_capture_match m)
{
	uint32_t c = 0;
	for (uint32_t i = 0; i < n; i++)
		c += x->match[i] == m;
	return c;
}

/* Deterministic PRNG (xorshift64*). */
static uint64_t rng_state = 0x2545F4914F6CDD1DULL;
static uint32_t rnd(uint32_t bound)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545F4914F6CDD1DULL) >> 33) % bound;
}

static uint32_t seq_a[MAXN], seq_b[MAXN], seq_r[MAXN];

/* 0, 1, 2, ... n-1 shifted by base: distinct names. */
static void distinct_names(uint32_t *p, uint32_t n, uint32_t base)
{
	for (uint32_t i = 0; i < n; i++)
		p[i] = base + i;
}

/* A decode-like sequence: per layer the same few kernels. */
static void layered_names(uint32_t *p, uint32_t n, uint32_t per_layer)
{
	for (uint32_t i = 0; i < n; i++)
		p[i] = 100 + i % per_layer;
}

/* ---- the named cases ---- */

static struct res R;

static void test_exact(void)
{
	layered_names(seq_a, 60, 7);
	memcpy(seq_b, seq_a, 60 * sizeof(uint32_t));
	seq_b[30] = 999; /* window 0: one name differs (would score 59/60) */
	struct gm_window w[2] = {{seq_b, 60, -1}, {seq_a, 60, -1}};
	struct gm_replay r = {seq_a, 60, -1};
	run_fresh(w, 2, &r, &R);
	int pos_ok = 1;
	for (uint32_t i = 0; i < 60; i++)
		pos_ok &= R.pos[i] == i;
	CHECK(R.rc == 0 && R.window == 1 && count(&R, 60, TIX_MATCH_EXACT) == 60 && pos_ok,
	      "identical sequence: window 1 (not the 59/60 one before it), all 60 exact at their "
	      "positions (window %u, exact %u)", R.window, count(&R, 60, TIX_MATCH_EXACT));

	/* the same with an unknown name in both: never "exact" */
	uint32_t with_none[60];
	memcpy(with_none, seq_a, sizeof(with_none));
	with_none[5] = TIX_NONE;
	struct gm_window w1 = {with_none, 60, -1};
	struct gm_replay r1 = {with_none, 60, -1};
	run_fresh(&w1, 1, &r1, &R);
	CHECK(R.rc == 0 && R.window == 0 && count(&R, 60, TIX_MATCH_EXACT) == 0 &&
	      count(&R, 60, TIX_MATCH_ALIGNED) == 59 && R.match[5] == TIX_MATCH_NONE,
	      "TIX_NONE equals nothing: 59 aligned, the unnamed one none, none exact (window %u, "
	      "aligned %u)", R.window, count(&R, 60, TIX_MATCH_ALIGNED));
}

static void test_extra(void)
{
	distinct_names(seq_a, 50, 0);
	/* replay: the window with one extra kernel at 20, named like window kernel 22 */
	for (uint32_t i = 0, j = 0; i < 51; i++)
		seq_r[i] = i == 20 ? 22 : seq_a[j++];
	struct gm_window w = {seq_a, 50, -1};
	struct gm_replay r = {seq_r, 51, -1};
	run_fresh(&w, 1, &r, &R);
	int ok = R.rc == 0 && R.window == 0;
	for (uint32_t i = 0; i < 51 && ok; i++) {
		if (i == 20)
			ok = R.match[i] == TIX_MATCH_NONE && R.pos[i] == TIX_NONE;
		else
			ok = R.match[i] == TIX_MATCH_ALIGNED && R.pos[i] == (i < 20 ? i : i - 1);
	}
	CHECK(ok, "one extra kernel: the 50 others aligned to their launches, the extra none "
	      "(aligned %u, none %u)", count(&R, 51, TIX_MATCH_ALIGNED), count(&R, 51, TIX_MATCH_NONE));

	/* layered names: the extra is a repeat of a layer's kernel */
	layered_names(seq_a, 70, 7);
	for (uint32_t i = 0, j = 0; i < 71; i++)
		seq_r[i] = i == 33 ? seq_a[33] : seq_a[j++];
	struct gm_window w2 = {seq_a, 70, -1};
	struct gm_replay r2 = {seq_r, 71, -1};
	run_fresh(&w2, 1, &r2, &R);
	CHECK(R.rc == 0 && R.window == 0 && count(&R, 71, TIX_MATCH_ALIGNED) == 70 &&
	      count(&R, 71, TIX_MATCH_NONE) == 1,
	      "extra kernel repeating its neighbour: 70 aligned, 1 none (aligned %u)",
	      count(&R, 71, TIX_MATCH_ALIGNED));
}

static void test_swap(void)
{
	distinct_names(seq_a, 40, 0);
	memcpy(seq_r, seq_a, 40 * sizeof(uint32_t));
	seq_r[10] = 11;
	seq_r[11] = 10;
	struct gm_window w = {seq_a, 40, -1};
	struct gm_replay r = {seq_r, 40, -1};
	run_fresh(&w, 1, &r, &R);
	int pos_ok = R.rc == 0 && R.window == 0, rest_aligned = 1;
	for (uint32_t i = 0; i < 40; i++) {
		pos_ok &= R.pos[i] == seq_r[i]; /* name k is launch k */
		if (i != 10 && i != 11)
			rest_aligned &= R.match[i] == TIX_MATCH_ALIGNED;
	}
	int pair = (R.match[10] == TIX_MATCH_REORDERED && R.match[11] == TIX_MATCH_ALIGNED) ||
	           (R.match[10] == TIX_MATCH_ALIGNED && R.match[11] == TIX_MATCH_REORDERED);
	CHECK(pos_ok && rest_aligned && pair,
	      "adjacent swap: both kernels of the pair go to their own launches, one paired by "
	      "the LCS (aligned), the other repaired (reordered); the other 38 aligned "
	      "(matches at 10, 11: %s, %s)", tix_capture_match_label(R.match[10]),
	      tix_capture_match_label(R.match[11]));
}

/* Moves window kernel `from` so that it jumps over `over` launches (forward
 * when over > 0, back when < 0); returns the replay index it lands at. */
static uint32_t moved(uint32_t n, uint32_t from, int over)
{
	uint32_t to = (uint32_t)((int)from + over);
	uint32_t tmp[MAXN];
	memcpy(tmp, seq_a, n * sizeof(uint32_t));
	uint32_t k = tmp[from];
	if (over > 0)
		memmove(tmp + from, tmp + from + 1, (size_t)(to - from) * sizeof(uint32_t));
	else
		memmove(tmp + to + 1, tmp + to, (size_t)(from - to) * sizeof(uint32_t));
	tmp[to] = k;
	memcpy(seq_r, tmp, n * sizeof(uint32_t));
	return to;
}

static void test_moves(void)
{
	distinct_names(seq_a, 60, 0);
	struct gm_window w = {seq_a, 60, -1};
	struct gm_replay r = {seq_r, 60, -1};
	int overs[] = {8, -8, 9, -9, 12, -12, 2, -2, 5};
	for (size_t t = 0; t < sizeof(overs) / sizeof(*overs); t++) {
		int over = overs[t];
		uint32_t from = 30, at = moved(60, from, over);
		run_fresh(&w, 1, &r, &R);
		int near = over <= 8 && over >= -8;
		int others = 1;
		for (uint32_t i = 0; i < 60; i++)
			if (i != at)
				others &= R.match[i] == TIX_MATCH_ALIGNED && R.pos[i] == seq_r[i];
		int moved_ok = near ? R.match[at] == TIX_MATCH_REORDERED && R.pos[at] == from
		                    : R.match[at] == TIX_MATCH_NONE && R.pos[at] == TIX_NONE;
		CHECK(R.rc == 0 && R.window == 0 && others && moved_ok,
		      "a kernel moved over %d launches: %s, the 59 others aligned (got %s)", over,
		      near ? "reordered to its launch" : "none", tix_capture_match_label(R.match[at]));
	}

	/* A moved kernel whose name also sits further away, unpaired: the
	 * nearest launch of the name wins. */
	layered_names(seq_a, 60, 20); /* names repeat every 20 */
	memcpy(seq_r, seq_a, 60 * sizeof(uint32_t));
	seq_r[25] = seq_a[27];
	seq_r[26] = seq_a[25];
	seq_r[27] = seq_a[26];
	run_fresh(&w, 1, &r, &R);
	int used_ok = 1;
	for (uint32_t i = 0; i < 60; i++)
		used_ok &= R.pos[i] != TIX_NONE && seq_a[R.pos[i]] == seq_r[i];
	CHECK(R.rc == 0 && count(&R, 60, TIX_MATCH_REORDERED) == 1 && used_ok &&
	      R.pos[25] == 27 && R.pos[26] == 25 && R.pos[27] == 26,
	      "a rotation of three in repeating layers: every kernel to its own launch, one reordered");
}

static void test_batch_tie(void)
{
	distinct_names(seq_a, 40, 0);
	struct gm_window w[4] = {
		{seq_a, 40, 64}, {seq_a, 40, 16}, {seq_a, 40, 32}, {seq_a, 40, -1},
	};
	struct {
		int64_t bs;
		uint32_t want;
	} cases[] = {{24, 2}, {32, 2}, {33, 0}, {1, 1}, {100, 0}, {-1, 0}};
	for (size_t t = 0; t < sizeof(cases) / sizeof(*cases); t++) {
		struct gm_replay r = {seq_a, 40, cases[t].bs};
		run_fresh(w, 4, &r, &R);
		CHECK(R.rc == 0 && R.window == cases[t].want && count(&R, 40, TIX_MATCH_EXACT) == 40,
		      "exact windows bs 64, 16, 32, unlabelled; replay bs %" PRId64 " -> window %u "
		      "(got %u)", cases[t].bs, cases[t].want, R.window);
	}
	/* the same tie among aligned windows: the replay has an extra kernel */
	for (uint32_t i = 0, j = 0; i < 41; i++)
		seq_r[i] = i == 7 ? 500 : seq_a[j++];
	struct gm_replay r = {seq_r, 41, 24};
	run_fresh(w, 4, &r, &R);
	CHECK(R.rc == 0 && R.window == 2 && count(&R, 41, TIX_MATCH_ALIGNED) == 40,
	      "aligned windows bs 64, 16, 32 tie at 40/41; replay bs 24 -> bs 32 (got window %u)",
	      R.window);
	/* the tie-break never beats a better score */
	memcpy(seq_b, seq_a, 40 * sizeof(uint32_t));
	seq_b[3] = 501;
	struct gm_window w2[2] = {{seq_b, 40, 32}, {seq_a, 40, 128}};
	run_fresh(w2, 2, &r, &R);
	CHECK(R.rc == 0 && R.window == 1,
	      "a better score beats a better batch label (window %u)", R.window);
}

static void test_unnamed(void)
{
	uint32_t none[64];
	for (uint32_t i = 0; i < 64; i++)
		none[i] = TIX_NONE;
	distinct_names(seq_r, 30, 0);
	struct gm_replay r = {seq_r, 30, -1};

	struct gm_window w1[2] = {{none, 31, -1}, {none, 30, -1}};
	run_fresh(w1, 2, &r, &R);
	int pos_ok = 1;
	for (uint32_t i = 0; i < 30; i++)
		pos_ok &= R.pos[i] == i;
	CHECK(R.rc == 0 && R.window == 1 && count(&R, 30, TIX_MATCH_POSITIONAL) == 30 && pos_ok,
	      "unnamed windows of 31 and 30 launches, replay of 30: positional to window 1 "
	      "(window %u)", R.window);

	struct gm_window w2[3] = {{none, 30, -1}, {none, 31, -1}, {none, 30, -1}};
	run_fresh(w2, 3, &r, &R);
	int pos_none = 1;
	for (uint32_t i = 0; i < 30; i++)
		pos_none &= R.pos[i] == TIX_NONE;
	CHECK(R.rc == 0 && R.window == TIX_NONE && count(&R, 30, TIX_MATCH_AMBIGUOUS) == 30 &&
	      pos_none, "two unnamed windows of 30: ambiguous, no window, no positions");

	struct gm_window w3[2] = {{none, 30, 8}, {none, 30, 16}};
	struct gm_replay r3 = {seq_r, 30, 12};
	run_fresh(w3, 2, &r3, &R);
	CHECK(R.rc == 0 && R.window == 1 && count(&R, 30, TIX_MATCH_POSITIONAL) == 30,
	      "unnamed windows bs 8 and 16, replay bs 12: positional to bs 16 (window %u)", R.window);
	r3.batch = -1;
	run_fresh(w3, 2, &r3, &R);
	CHECK(R.rc == 0 && R.window == TIX_NONE && count(&R, 30, TIX_MATCH_AMBIGUOUS) == 30,
	      "the same with the replay's batch unknown: ambiguous");
	r3.batch = 20;
	run_fresh(w3, 2, &r3, &R);
	CHECK(R.rc == 0 && R.window == TIX_NONE && count(&R, 30, TIX_MATCH_AMBIGUOUS) == 30,
	      "replay bs 20, above both labels: ambiguous");
	struct gm_window w4[2] = {{none, 30, 16}, {none, 30, 16}};
	r3.batch = 12;
	run_fresh(w4, 2, &r3, &R);
	CHECK(R.rc == 0 && R.window == TIX_NONE && count(&R, 30, TIX_MATCH_AMBIGUOUS) == 30,
	      "two unnamed windows both bs 16: ambiguous");

	struct gm_replay r5 = {seq_r, 29, -1};
	run_fresh(w1, 2, &r5, &R);
	CHECK(R.rc == 0 && R.window == TIX_NONE && count(&R, 29, TIX_MATCH_NONE) == 29,
	      "no unnamed window of the replay's count (29): none");

	/* a named window that aligns wins over a positional one */
	distinct_names(seq_a, 30, 0);
	seq_a[4] = 777;
	struct gm_window w6[2] = {{none, 30, -1}, {seq_a, 30, -1}};
	run_fresh(w6, 2, &r, &R);
	CHECK(R.rc == 0 && R.window == 1 && count(&R, 30, TIX_MATCH_ALIGNED) == 29,
	      "a named window scoring 29/30 is preferred to an unnamed one (window %u)", R.window);
}

static void test_threshold(void)
{
	distinct_names(seq_a, 50, 0);
	struct gm_window w = {seq_a, 50, -1};
	struct gm_replay r = {seq_r, 50, -1};
	/* 6 substitutions: 44/50 = 0.88 */
	memcpy(seq_r, seq_a, 50 * sizeof(uint32_t));
	for (uint32_t k = 0; k < 6; k++)
		seq_r[3 + 7 * k] = 1000 + k;
	run_fresh(&w, 1, &r, &R);
	CHECK(R.rc == 0 && R.window == TIX_NONE && count(&R, 50, TIX_MATCH_NONE) == 50,
	      "score 44/50 < 0.9: no window, all none (window %u)", R.window);
	/* 5 substitutions: 45/50 = 0.9 exactly, kept */
	seq_r[3 + 7 * 5] = seq_a[3 + 7 * 5];
	run_fresh(&w, 1, &r, &R);
	CHECK(R.rc == 0 && R.window == 0 && count(&R, 50, TIX_MATCH_ALIGNED) == 45 &&
	      count(&R, 50, TIX_MATCH_NONE) == 5,
	      "score 45/50 = 0.9: aligned (45 aligned, 5 none; got %u aligned)",
	      count(&R, 50, TIX_MATCH_ALIGNED));
	/* a prefix of 44: the length ratio alone rules it out */
	struct gm_replay r2 = {seq_a, 44, -1};
	struct gm_scratch s;
	gm_scratch_init(&s, 0);
	run(&s, &w, 1, &r2, &R);
	CHECK(R.rc == 0 && R.window == TIX_NONE && s.stats.lcs_runs == 0 &&
	      s.stats.windows_skipped == 1,
	      "a replay of 44 against 50 launches is skipped without an LCS");
	gm_scratch_done(&s);
}

static void test_memo_and_errors(void)
{
	layered_names(seq_a, 80, 9);
	memcpy(seq_r, seq_a, 80 * sizeof(uint32_t));
	seq_r[40] = seq_a[41];
	seq_r[41] = seq_a[40];
	struct gm_window w = {seq_a, 80, -1};
	struct gm_replay r = {seq_r, 80, -1};
	struct gm_scratch s;
	gm_scratch_init(&s, 0);
	struct res *first = malloc(sizeof(*first));
	run(&s, &w, 1, &r, first);
	for (int k = 0; k < 5; k++)
		run(&s, &w, 1, &r, &R);
	CHECK(R.rc == 0 && s.stats.memo_hits == 5 && s.stats.lcs_runs == 1 &&
	      R.window == first->window && memcmp(R.pos, first->pos, 80 * 4) == 0 &&
	      memcmp(R.match, first->match, 80) == 0,
	      "a repeated replay is answered from the memo, identically (hits %" PRIu64
	      ", LCS runs %" PRIu64 ")", s.stats.memo_hits, s.stats.lcs_runs);
	/* the batch is part of the key */
	r.batch = 4;
	run(&s, &w, 1, &r, &R);
	CHECK(s.stats.memo_hits == 5, "another batch is not a memo hit");
	/* changing a window in place invalidates the memo */
	seq_a[41] = 900;
	run(&s, &w, 1, &r, &R);
	struct res *fresh = malloc(sizeof(*fresh));
	run_fresh(&w, 1, &r, fresh);
	CHECK(R.rc == 0 && s.stats.memo_hits == 5 && R.window == fresh->window &&
	      memcmp(R.pos, fresh->pos, 80 * 4) == 0 && memcmp(R.match, fresh->match, 80) == 0 &&
	      R.match[40] == TIX_MATCH_NONE,
	      "a window changed in place: recomputed, as a fresh scratch would (match at 40: %s)",
	      tix_capture_match_label(R.match[40]));
	gm_scratch_done(&s);

	/* the memory limit: too small for the working buffers */
	gm_scratch_init(&s, 256);
	struct tix_error err = {0};
	R.window = 7;
	R.match[0] = 9;
	int rc = gm_match(&w, 1, &r, &R.window, R.pos, R.match, &s, &err);
	CHECK(rc == -1 && strstr(err.msg, "out of memory") && R.window == TIX_NONE &&
	      R.match[0] == TIX_MATCH_NONE && R.pos[0] == TIX_NONE && s.bytes <= 256,
	      "a 256-byte limit: -1, \"%s\", outputs none, %zu bytes held", err.msg, s.bytes);
	gm_scratch_done(&s);
	/* a limit big enough for the work but not much memo: still correct */
	gm_scratch_init(&s, 8192);
	int all_ok = 1;
	for (int k = 0; k < 20; k++) {
		seq_r[k] = 700 + (uint32_t)k; /* 20 distinct replays */
		r.batch = -1;
		run(&s, &w, 1, &r, &R);
		run_fresh(&w, 1, &r, fresh);
		all_ok &= R.rc == 0 && R.window == fresh->window &&
		          memcmp(R.match, fresh->match, 80) == 0 && s.bytes <= 8192;
	}
	CHECK(all_ok, "an 8 KiB limit: 20 replays give the fresh results, %zu bytes held", s.bytes);
	gm_scratch_done(&s);

	/* misuse */
	gm_scratch_init(&s, 0);
	struct gm_replay bad = {NULL, 3, -1};
	rc = gm_match(&w, 1, &bad, &R.window, R.pos, R.match, &s, &err);
	CHECK(rc == -1, "NULL names with n > 0: -1 (%s)", err.msg);
	struct gm_window badw = {NULL, 5, -1};
	rc = gm_match(&badw, 1, &r, &R.window, R.pos, R.match, &s, &err);
	CHECK(rc == -1 && R.window == TIX_NONE, "a window with NULL names: -1 (%s)", err.msg);
	struct gm_replay empty = {NULL, 0, -1};
	rc = gm_match(&w, 1, &empty, &R.window, NULL, NULL, &s, &err);
	CHECK(rc == 0 && R.window == TIX_NONE, "an empty replay: no window");
	rc = gm_match(NULL, 0, &r, &R.window, R.pos, R.match, &s, &err);
	CHECK(rc == 0 && R.window == TIX_NONE && count(&R, 80, TIX_MATCH_NONE) == 80,
	      "no windows at all: all none");
	gm_scratch_done(&s);
	free(first);
	free(fresh);
}

/* ---- the randomized check, against a plain reference ---- */

static uint32_t ref_lcs(const uint32_t *a, uint32_t n, const uint32_t *b, uint32_t m)
{
	static uint32_t D[2][MAXN + 1];
	memset(D, 0, sizeof(D));
	for (uint32_t i = 1; i <= n; i++) {
		uint32_t *cur = D[i & 1], *prev = D[(i - 1) & 1];
		cur[0] = 0;
		for (uint32_t j = 1; j <= m; j++) {
			uint32_t best = prev[j] > cur[j - 1] ? prev[j] : cur[j - 1];
			if (a[i - 1] == b[j - 1] && a[i - 1] != TIX_NONE && prev[j - 1] + 1 > best)
				best = prev[j - 1] + 1;
			cur[j] = best;
		}
	}
	return D[n & 1][m];
}

static uint64_t ref_rank(int64_t label, int64_t rb)
{
	return rb >= 0 && label >= rb ? (uint64_t)label : UINT64_MAX;
}

static int named(const struct gm_window *w)
{
	for (uint32_t j = 0; j < w->n; j++)
		if (w->names[j] != TIX_NONE)
			return 1;
	return 0;
}

/* The window the rule chooses, and its kind (EXACT, ALIGNED, POSITIONAL,
 * AMBIGUOUS, NONE), computed the slow way. */
static uint32_t ref_choice(const struct gm_window *w, uint32_t nw, const struct gm_replay *r,
                           int *kind, uint32_t *lcs_out)
{
	int any_none = 0;
	for (uint32_t i = 0; i < r->n; i++)
		any_none |= r->names[i] == TIX_NONE;
	uint32_t best = TIX_NONE;
	uint64_t best_rank = UINT64_MAX;
	for (uint32_t k = 0; k < nw && !any_none; k++) {
		if (w[k].n != r->n || memcmp(w[k].names, r->names, r->n * 4) != 0)
			continue;
		uint64_t rk = ref_rank(w[k].batch, r->batch);
		if (best == TIX_NONE || rk < best_rank)
			best = k, best_rank = rk;
	}
	if (best != TIX_NONE) {
		*kind = TIX_MATCH_EXACT;
		return best;
	}
	uint64_t bl = 0, bm = 1;
	for (uint32_t k = 0; k < nw; k++) {
		if (!named(&w[k]))
			continue;
		uint64_t l = ref_lcs(r->names, r->n, w[k].names, w[k].n);
		uint64_t mx = w[k].n > r->n ? w[k].n : r->n;
		if (10 * l < 9 * mx)
			continue;
		uint64_t rk = ref_rank(w[k].batch, r->batch);
		if (best == TIX_NONE || l * bm > bl * mx || (l * bm == bl * mx && rk < best_rank)) {
			best = k, bl = l, bm = mx, best_rank = rk;
			*lcs_out = (uint32_t)l;
		}
	}
	if (best != TIX_NONE) {
		*kind = TIX_MATCH_ALIGNED;
		return best;
	}
	uint32_t tied = 0;
	for (uint32_t k = 0; k < nw; k++) {
		if (named(&w[k]) || w[k].n == 0 || w[k].n != r->n)
			continue;
		uint64_t rk = ref_rank(w[k].batch, r->batch);
		if (best == TIX_NONE || rk < best_rank)
			best = k, best_rank = rk, tied = 1;
		else if (rk == best_rank)
			tied++;
	}
	if (best == TIX_NONE) {
		*kind = TIX_MATCH_NONE;
		return TIX_NONE;
	}
	if (tied > 1) {
		*kind = TIX_MATCH_AMBIGUOUS;
		return TIX_NONE;
	}
	*kind = TIX_MATCH_POSITIONAL;
	return best;
}

/* Every property of a result that the rule promises; returns 1 if it holds. */
static int verify(const struct gm_window *w, uint32_t nw, const struct gm_replay *r,
                  const struct res *x, const char *what)
{
	uint32_t n = r->n, lcs = 0;
	int kind = -1;
	uint32_t want = ref_choice(w, nw, r, &kind, &lcs);
	int ok = 1;
#define V(cond, ...)                                     \
	do {                                             \
		if (!(cond)) {                           \
			EXPECT(0, __VA_ARGS__);          \
			ok = 0;                          \
		}                                        \
	} while (0)
	V(x->rc == 0, "%s: rc %d", what, x->rc);
	V(x->window == want, "%s: window %u, the reference says %u", what, x->window, want);
	if (!ok)
		return 0;
	uint8_t used[MAXN] = {0};
	uint32_t nexact = count(x, n, TIX_MATCH_EXACT), naligned = count(x, n, TIX_MATCH_ALIGNED);
	uint32_t m = want == TIX_NONE ? 0 : w[want].n;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t p = x->pos[i];
		uint8_t mt = x->match[i];
		V((p == TIX_NONE) == (mt == TIX_MATCH_NONE || mt == TIX_MATCH_AMBIGUOUS),
		  "%s: kernel %u: position %u with match %s", what, i, p, tix_capture_match_label(mt));
		if (p == TIX_NONE)
			continue;
		V(p < m, "%s: kernel %u: position %u of %u", what, i, p, m);
		if (p >= m)
			return 0;
		V(!used[p], "%s: window position %u used twice", what, p);
		used[p] = 1;
		if (mt == TIX_MATCH_EXACT || mt == TIX_MATCH_ALIGNED || mt == TIX_MATCH_REORDERED)
			V(w[want].names[p] == r->names[i] && r->names[i] != TIX_NONE,
			  "%s: kernel %u paired with a launch of another name", what, i);
		if (mt == TIX_MATCH_POSITIONAL || mt == TIX_MATCH_EXACT)
			V(p == i, "%s: kernel %u: %s at position %u", what, i, tix_capture_match_label(mt), p);
	}
	switch (kind) {
	case TIX_MATCH_EXACT:
		V(nexact == n, "%s: exact window but %u of %u exact", what, nexact, n);
		break;
	case TIX_MATCH_ALIGNED: {
		V(nexact == 0, "%s: %u exact kernels from a non-identical window", what, nexact);
		V(naligned == lcs, "%s: %u aligned, the LCS is %u", what, naligned, lcs);
		/* aligned pairs increase; each reorder is within 8 of its place */
		int64_t last = -1, j0 = -1;
		for (uint32_t i = 0; i < n; i++) {
			if (x->match[i] == TIX_MATCH_ALIGNED) {
				V((int64_t)x->pos[i] > last, "%s: aligned pairs cross at %u", what, i);
				last = j0 = x->pos[i];
			} else if (x->match[i] == TIX_MATCH_REORDERED) {
				int64_t j1 = m;
				for (uint32_t k = i + 1; k < n; k++)
					if (x->match[k] == TIX_MATCH_ALIGNED) {
						j1 = x->pos[k];
						break;
					}
				int64_t p = x->pos[i];
				int64_t d = p < j0 ? j0 - p : p > j1 ? p - j1 : 0;
				V(d >= 1 && d <= 8, "%s: kernel %u reordered %" PRId64 " launches away", what, i, d);
			}
		}
		/* a kernel left "none" found no launch of its name within reach
		 * that was free when its turn came (in replay order) */
		uint32_t user[MAXN];
		for (uint32_t j = 0; j < m; j++)
			user[j] = TIX_NONE;
		for (uint32_t i = 0; i < n; i++)
			if (x->pos[i] != TIX_NONE)
				user[x->pos[i]] = i;
		j0 = -1;
		for (uint32_t i = 0; i < n; i++) {
			if (x->match[i] == TIX_MATCH_ALIGNED)
				j0 = x->pos[i];
			if (x->match[i] != TIX_MATCH_NONE || r->names[i] == TIX_NONE)
				continue;
			int64_t j1 = m;
			for (uint32_t k = i + 1; k < n; k++)
				if (x->match[k] == TIX_MATCH_ALIGNED) {
					j1 = x->pos[k];
					break;
				}
			for (int64_t p = 0; p < m; p++) {
				int64_t d = p < j0 ? j0 - p : p > j1 ? p - j1 : 0;
				if (d > 8 || w[want].names[p] != r->names[i])
					continue;
				uint32_t u = user[p];
				V(u != TIX_NONE && (x->match[u] == TIX_MATCH_ALIGNED || u < i),
				  "%s: kernel %u left none, launch %" PRId64 " of its name free within reach",
				  what, i, p);
			}
		}
		break;
	}
	case TIX_MATCH_POSITIONAL:
		V(count(x, n, TIX_MATCH_POSITIONAL) == n, "%s: positional but not all", what);
		break;
	case TIX_MATCH_AMBIGUOUS:
		V(count(x, n, TIX_MATCH_AMBIGUOUS) == n, "%s: ambiguous but not all", what);
		break;
	default:
		V(count(x, n, TIX_MATCH_NONE) == n, "%s: no window but not all none", what);
	}
	if (nexact) {
		V(want != TIX_NONE && w[want].n == n && !memcmp(w[want].names, r->names, n * 4),
		  "%s: exact for a sequence that differs", what);
	}
#undef V
	return ok;
}

/* A random perturbation of src into dst; returns its length. */
static uint32_t perturb(const uint32_t *src, uint32_t n, uint32_t *dst, uint32_t alphabet)
{
	memcpy(dst, src, n * sizeof(uint32_t));
	uint32_t ops = rnd(4);
	for (uint32_t o = 0; o < ops; o++) {
		uint32_t kind = rnd(5);
		if (kind == 0 && n < 60) { /* insert */
			uint32_t at = rnd(n + 1);
			memmove(dst + at + 1, dst + at, (n - at) * sizeof(uint32_t));
			dst[at] = rnd(alphabet + 2);
			n++;
		} else if (kind == 1 && n > 1) { /* delete */
			uint32_t at = rnd(n);
			memmove(dst + at, dst + at + 1, (n - at - 1) * sizeof(uint32_t));
			n--;
		} else if (kind == 2 && n > 1) { /* adjacent swap */
			uint32_t at = rnd(n - 1), t = dst[at];
			dst[at] = dst[at + 1];
			dst[at + 1] = t;
		} else if (kind == 3 && n > 2) { /* move by up to 12 */
			uint32_t from = rnd(n), to = rnd(n);
			if (to > from + 12)
				to = from + 12;
			if (from > to + 12)
				to = from - 12;
			uint32_t k = dst[from];
			if (to > from)
				memmove(dst + from, dst + from + 1, (to - from) * sizeof(uint32_t));
			else
				memmove(dst + to + 1, dst + to, (from - to) * sizeof(uint32_t));
			dst[to] = k;
		} else if (n) { /* substitute */
			dst[rnd(n)] = rnd(alphabet + 2);
		}
	}
	return n;
}

static void test_random(void)
{
	static uint32_t wnames[8][64];
	static uint32_t rnames[64];
	struct gm_scratch shared;
	gm_scratch_init(&shared, 0);
	struct res *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	int64_t labels[] = {-1, 1, 2, 4, 8, 16};
	uint32_t rounds = 6000, bad = 0, exact = 0, aligned = 0, reordered = 0, positional = 0,
	         ambiguous = 0, none = 0, differ = 0;
	for (uint32_t t = 0; t < rounds; t++) {
		uint32_t alphabet = 2 + rnd(10);
		uint32_t nw = 1 + rnd(6);
		struct gm_window w[8];
		uint32_t base_n = 1 + rnd(40);
		for (uint32_t k = 0; k < nw; k++) {
			uint32_t n, mode = k ? rnd(4) : 0;
			if (mode == 0) { /* random names, often the common length */
				n = rnd(3) ? base_n : 1 + rnd(40);
				for (uint32_t j = 0; j < n; j++)
					wnames[k][j] = rnd(alphabet);
			} else if (mode == 1 || mode == 2) { /* a variant of window 0 */
				n = perturb(wnames[0], w[0].n, wnames[k], alphabet);
			} else { /* a copy of an earlier window (another label) */
				uint32_t from = rnd(k);
				n = w[from].n;
				memcpy(wnames[k], wnames[from], n * sizeof(uint32_t));
			}
			if (rnd(10) == 0) /* an NVIDIA-like window: no names */
				for (uint32_t j = 0; j < n; j++)
					wnames[k][j] = TIX_NONE;
			else if (rnd(20) == 0 && n)
				wnames[k][rnd(n)] = TIX_NONE;
			w[k] = (struct gm_window){wnames[k], n, labels[rnd(6)]};
		}
		uint32_t src = rnd(nw);
		uint32_t n = rnd(8) ? perturb(wnames[src], w[src].n, rnames, alphabet) : 1 + rnd(40);
		if (n == 0)
			continue;
		if (rnd(8) == 0)
			for (uint32_t i = 0; i < n; i++)
				rnames[i] = rnd(alphabet);
		if (rnd(40) == 0)
			rnames[rnd(n)] = TIX_NONE;
		struct gm_replay r = {rnames, n, labels[rnd(6)] + (int64_t)rnd(2)};
		run(&shared, w, nw, &r, a);
		run_fresh(w, nw, &r, b);
		char what[64];
		snprintf(what, sizeof(what), "random case %u", t);
		if (!verify(w, nw, &r, a, what))
			bad++;
		if (a->window != b->window || memcmp(a->pos, b->pos, n * 4) || memcmp(a->match, b->match, n))
			differ++;
		/* the same replay again: from the memo, the same answer */
		run(&shared, w, nw, &r, b);
		if (a->window != b->window || memcmp(a->pos, b->pos, n * 4) || memcmp(a->match, b->match, n))
			differ++;
		exact += count(a, n, TIX_MATCH_EXACT);
		aligned += count(a, n, TIX_MATCH_ALIGNED);
		reordered += count(a, n, TIX_MATCH_REORDERED);
		positional += count(a, n, TIX_MATCH_POSITIONAL);
		ambiguous += count(a, n, TIX_MATCH_AMBIGUOUS);
		none += count(a, n, TIX_MATCH_NONE);
	}
	CHECK(bad == 0 && differ == 0,
	      "randomized: %u cases against the reference (window choice, LCS size, no position "
	      "twice, exact only for identical sequences, reorders within 8); shared scratch = "
	      "fresh scratch = memo (%u bad, %u differ)", rounds, bad, differ);
	CHECK(exact && aligned && reordered && positional && ambiguous && none,
	      "randomized cases cover every label: exact %u aligned %u reordered %u positional %u "
	      "ambiguous %u none %u", exact, aligned, reordered, positional, ambiguous, none);
	gm_scratch_done(&shared);
	free(a);
	free(b);
}

/* ---- the large case ---- */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define LW 50
#define LN 600
#define LR 300

/* A decode graph of batch bucket b: 48 layers of 12 kernels between a
 * 12-kernel prologue and epilogue; the attention kernel depends on b. */
static void decode_graph(uint32_t *p, uint32_t b)
{
	uint32_t i = 0;
	for (uint32_t k = 0; k < 12; k++)
		p[i++] = 10 + k;
	for (uint32_t l = 0; l < 48; l++)
		for (uint32_t k = 0; k < 12; k++)
			p[i++] = k == 5 ? 200 + b : 30 + k;
	for (uint32_t k = 0; k < 12; k++)
		p[i++] = 50 + k;
}

static void test_large(void)
{
	static uint32_t wn[LW][LN], rn[LR][LN + 2];
	struct gm_window w[LW];
	struct gm_replay r[LR];
	for (uint32_t k = 0; k < LW; k++) {
		decode_graph(wn[k], k / 10); /* 5 buckets of 10 batch sizes */
		w[k] = (struct gm_window){wn[k], LN, (int64_t)(k + 1) * 8};
	}
	struct res *x = malloc(sizeof(*x));
	for (int pass = 0; pass < 2; pass++) {
		/* pass 0: as a decode run: 10 distinct sequences, repeated;
		 * pass 1: every replay distinct (the memo never helps) */
		for (uint32_t t = 0; t < LR; t++) {
			uint32_t v = pass == 0 ? t % 10 : t;
			uint32_t k = (v * 7) % LW, n = LN;
			memcpy(rn[t], wn[k], LN * sizeof(uint32_t));
			if (v % 3 == 1) { /* one extra kernel */
				uint32_t at = 1 + (v * 37) % (LN - 1);
				memmove(rn[t] + at + 1, rn[t] + at, (LN - at) * sizeof(uint32_t));
				rn[t][at] = 900 + v;
				n++;
			} else if (v % 3 == 2) { /* a local reorder */
				uint32_t at = 20 + (v * 53) % (LN - 40), tmp = rn[t][at];
				rn[t][at] = rn[t][at + 3];
				rn[t][at + 3] = tmp;
			}
			r[t] = (struct gm_replay){rn[t], n, (int64_t)(k + 1) * 8 - 3};
		}
		struct gm_scratch s;
		gm_scratch_init(&s, 0);
		uint32_t attributed = 0, total = 0, wrong = 0;
		double t0 = now_s();
		for (uint32_t t = 0; t < LR; t++) {
			run(&s, w, LW, &r[t], x);
			uint32_t k = (uint32_t)((r[t].batch + 3) / 8 - 1);
			wrong += x->rc != 0 || x->window != k;
			for (uint32_t i = 0; i < r[t].n; i++)
				attributed += x->match[i] != TIX_MATCH_NONE;
			total += r[t].n;
		}
		double dt = now_s() - t0;
		printf("      large case (%s): %u windows x %u launches, %u replays: %.1f ms "
		       "(%" PRIu64 " memo hits, %" PRIu64 " LCS runs, %" PRIu64 " windows skipped, "
		       "%zu bytes of scratch)\n",
		       pass == 0 ? "10 distinct replays" : "all 300 distinct", LW, LN, LR, dt * 1e3,
		       s.stats.memo_hits, s.stats.lcs_runs, s.stats.windows_skipped, s.bytes);
		/* every kernel but the extra ones is attributed, to the window of its batch */
		uint32_t extras = 0;
		for (uint32_t t = 0; t < LR; t++)
			extras += r[t].n == LN + 1;
		CHECK(wrong == 0 && attributed == total - extras,
		      "large case (%s): every replay gets the window of its batch, %u of %u kernels "
		      "attributed (%u extra kernels left none)", pass == 0 ? "repeats" : "distinct",
		      attributed, total, extras);
		gm_scratch_done(&s);
	}
	free(x);
}

int main(void)
{
	test_exact();
	test_extra();
	test_swap();
	test_moves();
	test_batch_tie();
	test_unnamed();
	test_threshold();
	test_memo_and_errors();
	test_random();
	test_large();
	return checks_done("test_graph_match");
}
