/*
 * Unit tests of index/build/graph_match.c, the CUDA-graph attribution rule
 * (R7): exact, aligned (one extra kernel), reordered (an adjacent swap, moves over
 * 8 and 9 launches), the batch tie-break, unnamed windows (positional,
 * ambiguous), scores around 0.9, the memo and its invalidation, errors and
 * the memory limit.  test_graph_random.c has the randomized check and the
 * large case.
 *
 *   test_graph_match [SRC_DIR BIN_DIR]   (both ignored)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "index/build/graph_match.h"
#include "tests/check.h"
#include "tests/core/graph_match_run.h"

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
	return checks_done("test_graph_match");
}
