/*
 * index/build/graph_match.c against a plain O(n*m) reference on random windows and
 * replays, and a 600-kernel x 50-window x 300-replay decode case (its time
 * printed, not checked: speed is the benchmark's).
 *
 *   test_graph_random [SRC_DIR BIN_DIR]   (both ignored)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "index/build/graph_match.h"
#include "tests/check.h"
#include "tests/core/graph_match_run.h"

/* Deterministic PRNG (xorshift64*). */
static uint64_t rng_state = 0x2545F4914F6CDD1DULL;
static uint32_t rnd(uint32_t bound)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545F4914F6CDD1DULL) >> 33) % bound;
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
	test_random();
	test_large();
	return checks_done("test_graph_random");
}
