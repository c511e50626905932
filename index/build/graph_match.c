/* Graph attribution: which capture window a replay came from and which
 * captured launch each replayed kernel was (graph_match.h states the
 * rule).  Pure: no globals, no I/O; memory only through the scratch. */
#include "index/build/graph_match.h"

#include <errno.h>
#include <string.h>
#include <stdlib.h>

#define GM_REACH 8             /* a reorder repairs moves over at most 8 launches */
#define GM_SEED 0x67726170686d61ULL /* "graphma" */

enum { WC_EMPTY, WC_NAMED, WC_UNNAMED };

struct gm_memo {
	uint64_t hash;
	int64_t batch;
	size_t off;            /* in the arena: names[n], pos[n] (u32), match[n] (u8) */
	uint32_t n;
	uint32_t window;
	uint32_t used;
};

void gm_scratch_init(struct gm_scratch *s, size_t limit_bytes)
{
	memset(s, 0, sizeof(*s));
	s->limit_bytes = limit_bytes ? limit_bytes : GM_DEFAULT_LIMIT;
}

void gm_scratch_done(struct gm_scratch *s)
{
	free(s->whash);
	free(s->wclass);
	free(s->wfirst);
	free(s->wlcs);
	free(s->slot_name);
	free(s->slot_idx);
	free(s->rcount);
	free(s->wcount);
	free(s->touched);
	free(s->masks);
	free(s->rows);
	free(s->pair);
	free(s->anchor);
	free(s->widx);
	free(s->wused);
	free(s->memo);
	free(s->arena);
	memset(s, 0, sizeof(*s));
}

/* Returns a block of at least need elements of elem bytes holding *cap
 * elements of p's contents (p itself when big enough), counting its bytes
 * against `budget` (the most s->bytes may reach); NULL, with p and *cap
 * untouched, when that or malloc refuses. */
static void *grow(struct gm_scratch *s, void *p, size_t *cap, size_t need, size_t elem,
                  size_t budget)
{
	if (need == 0)
		need = 1;
	if (need <= *cap)
		return p;
	size_t ncap = *cap > need / 2 ? *cap * 2 : need;
	for (int attempt = 0; attempt < 2; attempt++, ncap = need) {
		if (ncap > SIZE_MAX / elem)
			continue;
		size_t old = *cap * elem, nb = ncap * elem, others = s->bytes - old;
		if (others > budget || nb > budget - others)
			continue;
		void *q = realloc(p, nb);
		if (!q)
			continue;
		s->bytes = others + nb;
		*cap = ncap;
		return q;
	}
	return NULL;
}

static void memo_done(struct gm_scratch *s)
{
	s->bytes -= s->memo_cap * sizeof(*s->memo) + s->arena_cap;
	free(s->memo);
	free(s->arena);
	s->memo = NULL;
	s->arena = NULL;
	s->memo_n = s->memo_cap = 0;
	s->arena_len = s->arena_cap = 0;
}

/* grow() for a working buffer: the memo gives way when the limit is hit. */
static void *grow_work(struct gm_scratch *s, void *p, size_t *cap, size_t need, size_t elem)
{
	void *q = grow(s, p, cap, need, elem, s->limit_bytes);
	if (!q && (s->memo_cap || s->arena_cap)) {
		memo_done(s);
		q = grow(s, p, cap, need, elem, s->limit_bytes);
	}
	return q;
}

static int oom(const struct gm_scratch *s, size_t need, size_t elem, struct tix_error *err)
{
	tix_error_env(err, "graph attribution: out of memory (%zu elements of %zu bytes, limit %zu bytes)",
	              need, elem, s->limit_bytes);
	if (err)
		err->code = ENOMEM;
	return -1;
}

/* Grows working buffer f of s (capacity in f_cap) to need elements, the
 * memo giving way if need be: 0, or -1 with err set. */
#define GROW(s, f, need, err)                                                              \
	(((s)->grown = grow_work((s), (s)->f, &(s)->f##_cap, (need), sizeof(*(s)->f)))         \
	         ? ((s)->f = (s)->grown, 0)                                                  \
	         : oom((s), (need), sizeof(*(s)->f), (err)))

/* ---- the windows: hashes, classes, fingerprint ---- */

static uint64_t seq_hash(const uint32_t *names, uint32_t n)
{
	return n ? tix_hash64(names, (size_t)n * sizeof(*names), GM_SEED) : GM_SEED;
}

static uint64_t mix(uint64_t h, uint64_t a, uint64_t b)
{
	uint64_t v[3] = {h, a, b};
	return tix_hash64(v, sizeof(v), GM_SEED);
}

static void memo_clear(struct gm_scratch *s)
{
	if (s->memo)
		memset(s->memo, 0, s->memo_cap * sizeof(*s->memo));
	s->memo_n = 0;
	s->arena_len = 0;
}

/* Hashes and classifies every window; forgets the memo if they changed. */
static int scan_windows(struct gm_scratch *s, const struct gm_window *w, uint32_t nw,
                        struct tix_error *err)
{
	if (GROW(s, whash, nw, err) < 0 || GROW(s, wclass, nw, err) < 0)
		return -1;
	uint64_t fp = mix(GM_SEED, nw, 0);
	for (uint32_t k = 0; k < nw; k++) {
		uint8_t c = WC_EMPTY;
		for (uint32_t j = 0; j < w[k].n; j++) {
			if (w[k].names[j] != TIX_NONE) {
				c = WC_NAMED;
				break;
			}
			c = WC_UNNAMED;
		}
		s->wclass[k] = c;
		s->whash[k] = seq_hash(w[k].names, w[k].n);
		fp = mix(fp, s->whash[k], ((uint64_t)w[k].n << 32) ^ (uint64_t)w[k].batch);
	}
	if (!s->fp_valid || s->fingerprint != fp) {
		memo_clear(s);
		s->fp_valid = 0;
		/* wfirst[k]: the first window with k's names (k itself if none) */
		if (GROW(s, wfirst, nw, err) < 0)
			return -1;
		for (uint32_t k = 0; k < nw; k++) {
			s->wfirst[k] = k;
			for (uint32_t f = 0; f < k; f++) {
				if (s->wfirst[f] == f && s->whash[f] == s->whash[k] && w[f].n == w[k].n &&
				    !memcmp(w[f].names, w[k].names, (size_t)w[k].n * sizeof(uint32_t))) {
					s->wfirst[k] = f;
					break;
				}
			}
		}
		s->fingerprint = fp;
		s->fp_valid = 1;
	}
	return 0;
}

/* ---- ties ---- */

/* Rank of a window's batch label for a replay of batch rb: the label when
 * it is >= a known rb, else "no preference".  Smaller is preferred. */
static uint64_t batch_rank(int64_t label, int64_t rb)
{
	return rb >= 0 && label >= rb ? (uint64_t)label : UINT64_MAX;
}

/* ---- the memo ---- */

static struct gm_memo *memo_find(struct gm_scratch *s, uint64_t h, const struct gm_replay *r)
{
	if (!s->memo_cap)
		return NULL;
	for (uint32_t i = (uint32_t)h & (s->memo_cap - 1);; i = (i + 1) & (s->memo_cap - 1)) {
		struct gm_memo *e = &s->memo[i];
		if (!e->used)
			return NULL;
		if (e->hash == h && e->n == r->n && e->batch == r->batch &&
		    memcmp(s->arena + e->off, r->names, (size_t)r->n * sizeof(uint32_t)) == 0)
			return e;
	}
}

/* Remembers a result if the memo's half of the limit allows; never fails. */
static void memo_add(struct gm_scratch *s, uint64_t h, const struct gm_replay *r, uint32_t window,
                     const uint32_t *pos, const uint8_t *match)
{
	/* the memo may hold half the limit, the working buffers the rest */
	size_t others = s->bytes - (s->memo_cap * sizeof(*s->memo) + s->arena_cap);
	size_t budget = others < s->limit_bytes / 2 ? s->limit_bytes / 2 + others : s->limit_bytes;
	size_t n = r->n;
	size_t len = n * (2 * sizeof(uint32_t) + 1);
	len = (len + 7) & ~(size_t)7;
	if ((s->memo_n + 1) * 2 > s->memo_cap) {
		/* rehash into a table twice the size */
		uint32_t ncap = s->memo_cap ? s->memo_cap * 2 : 64;
		size_t nb = (size_t)ncap * sizeof(struct gm_memo);
		size_t rest = s->bytes - s->memo_cap * sizeof(*s->memo);
		if (ncap > (1u << 30) || rest > budget || nb > budget - rest)
			return;
		struct gm_memo *t = calloc(ncap, sizeof(*t));
		if (!t)
			return;
		for (uint32_t i = 0; i < s->memo_cap; i++) {
			if (!s->memo[i].used)
				continue;
			uint32_t k = (uint32_t)s->memo[i].hash & (ncap - 1);
			while (t[k].used)
				k = (k + 1) & (ncap - 1);
			t[k] = s->memo[i];
		}
		s->bytes = rest + nb;
		free(s->memo);
		s->memo = t;
		s->memo_cap = ncap;
	}
	if (s->arena_len > SIZE_MAX - len)
		return;
	void *a = grow(s, s->arena, &s->arena_cap, s->arena_len + len, 1, budget);
	if (!a)
		return;
	s->arena = a;
	size_t off = s->arena_len;
	s->arena_len += len;
	unsigned char *p = s->arena + off;
	memcpy(p, r->names, n * sizeof(uint32_t));
	memcpy(p + n * sizeof(uint32_t), pos, n * sizeof(uint32_t));
	memcpy(p + 2 * n * sizeof(uint32_t), match, n);
	uint32_t k = (uint32_t)h & (s->memo_cap - 1);
	while (s->memo[k].used)
		k = (k + 1) & (s->memo_cap - 1);
	s->memo[k] = (struct gm_memo){h, r->batch, off, r->n, window, 1};
	s->memo_n++;
}

/* ---- the replay's names: distinct names, counts, bit masks ---- */

static uint32_t slot_of(uint32_t name, uint32_t nslots)
{
	return (uint32_t)(((uint64_t)name * 0x9E3779B97F4A7C15ULL) >> 32) & (nslots - 1);
}

/* Distinct index of name in the replay, or TIX_NONE. */
static uint32_t rt_find(const struct gm_scratch *s, uint32_t name)
{
	if (name == TIX_NONE)
		return TIX_NONE;
	for (uint32_t i = slot_of(name, s->nslots);; i = (i + 1) & (s->nslots - 1)) {
		if (!s->slot_idx[i])
			return TIX_NONE;
		if (s->slot_name[i] == name)
			return s->slot_idx[i] - 1;
	}
}

/* Builds the replay's name table, counts and masks (words per mask: W).
 * Returns the number of distinct names or -1. */
static int64_t replay_table(struct gm_scratch *s, const struct gm_replay *r, size_t W,
                            struct tix_error *err)
{
	uint32_t n = r->n;
	uint32_t nslots = 16;
	while (nslots < 2 * (uint64_t)n)
		nslots *= 2;
	if (GROW(s, slot_name, nslots, err) < 0 || GROW(s, slot_idx, nslots, err) < 0 ||
	    GROW(s, pair, n, err) < 0)
		return -1;
	s->nslots = nslots;
	memset(s->slot_idx, 0, nslots * sizeof(uint32_t));
	uint32_t distinct = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t name = r->names[i], idx = TIX_NONE;
		if (name != TIX_NONE) {
			uint32_t k = slot_of(name, nslots);
			while (s->slot_idx[k] && s->slot_name[k] != name)
				k = (k + 1) & (nslots - 1);
			if (!s->slot_idx[k]) {
				s->slot_name[k] = name;
				s->slot_idx[k] = ++distinct;
			}
			idx = s->slot_idx[k] - 1;
		}
		s->pair[i] = idx; /* for the masks just below */
	}
	if (GROW(s, rcount, distinct, err) < 0 ||
	    GROW(s, wcount, distinct, err) < 0 ||
	    GROW(s, touched, distinct, err) < 0 ||
	    (W && distinct > SIZE_MAX / W) || GROW(s, masks, (size_t)distinct * W, err) < 0)
		return -1;
	memset(s->rcount, 0, distinct * sizeof(uint32_t));
	memset(s->wcount, 0, distinct * sizeof(uint32_t));
	memset(s->masks, 0, (size_t)distinct * W * sizeof(uint64_t));
	for (uint32_t i = 0; i < n; i++) {
		uint32_t idx = s->pair[i];
		if (idx == TIX_NONE)
			continue;
		s->rcount[idx]++;
		s->masks[(size_t)idx * W + i / 64] |= (uint64_t)1 << (i % 64);
	}
	return distinct;
}

/* Maps window k's names to the replay's distinct indices (s->widx) and
 * returns the name-count bound on their LCS: sum of min(counts). */
static uint32_t window_bound(struct gm_scratch *s, const struct gm_window *wk)
{
	uint32_t ub = 0, ntouched = 0;
	for (uint32_t j = 0; j < wk->n; j++) {
		uint32_t idx = rt_find(s, wk->names[j]);
		s->widx[j] = idx;
		if (idx == TIX_NONE)
			continue;
		if (s->wcount[idx]++ == 0)
			s->touched[ntouched++] = idx;
		ub += s->wcount[idx] <= s->rcount[idx];
	}
	for (uint32_t t = 0; t < ntouched; t++)
		s->wcount[s->touched[t]] = 0;
	return ub;
}

/* ---- the LCS, bit-parallel (Allison-Dix / Hyyro) ----
 * Rows are window launches j, bits are replay kernels i.  Row V_j has bit
 * i clear iff D[j][i+1] = D[j][i] + 1, where D[j][i] is the LCS length of
 * window[0..j) and replay[0..i); so D[j][i] = zeros of V_j below bit i.
 * V_0 is all ones; V_{j+1} = (V + (V & M)) | (V & ~M), M = the mask of
 * window[j]'s name over the replay.  With rows != NULL, V_j is kept at
 * rows + j * W for the traceback; else rows is one row of work. */
static uint32_t lcs(const struct gm_scratch *s, uint32_t m, uint32_t n, size_t W, uint64_t *rows,
                    int keep)
{
	uint64_t *V = rows;
	for (size_t q = 0; q < W; q++)
		V[q] = ~(uint64_t)0;
	for (uint32_t j = 0; j < m; j++) {
		uint64_t *next = keep ? V + W : V;
		uint32_t idx = s->widx[j];
		if (idx == TIX_NONE) {
			if (keep)
				memcpy(next, V, W * sizeof(*V));
			V = next;
			continue;
		}
		const uint64_t *M = s->masks + (size_t)idx * W;
		uint64_t carry = 0;
		for (size_t q = 0; q < W; q++) {
			uint64_t v = V[q], u = v & M[q];
			uint64_t sum = v + u;
			uint64_t c1 = sum < v;
			sum += carry;
			carry = c1 | (sum < carry);
			next[q] = sum | (v & ~M[q]);
		}
		V = next;
	}
	uint32_t ones = 0;
	for (size_t q = 0; q < W; q++) {
		uint64_t v = V[q];
		if (q == W - 1 && n % 64)
			v &= ((uint64_t)1 << (n % 64)) - 1;
		ones += (uint32_t)__builtin_popcountll(v);
	}
	return n - ones;
}

/* D[j][i] from row V_j: the clear bits below bit i. */
static uint32_t row_zeros(const uint64_t *V, uint32_t i)
{
	uint32_t ones = 0, q;
	for (q = 0; q < i / 64; q++)
		ones += (uint32_t)__builtin_popcountll(V[q]);
	if (i % 64)
		ones += (uint32_t)__builtin_popcountll(V[q] & (((uint64_t)1 << (i % 64)) - 1));
	return i - ones;
}

static int bit(const uint64_t *V, uint32_t i)
{
	return (int)((V[i / 64] >> (i % 64)) & 1);
}

/* Walks the kept rows back from (m, n): s->pair[i] = window position of
 * replay kernel i in one LCS, or TIX_NONE; s->wused marks the positions. */
static void traceback(struct gm_scratch *s, uint32_t m, uint32_t n, size_t W)
{
	const uint64_t *R = s->rows;
	for (uint32_t i = 0; i < n; i++)
		s->pair[i] = TIX_NONE;
	memset(s->wused, 0, m);
	uint32_t j = m, i = n;
	if (!j || !i)
		return;
	uint32_t cur = row_zeros(R + (size_t)j * W, i);        /* D[j][i] */
	uint32_t prev = row_zeros(R + (size_t)(j - 1) * W, i); /* D[j-1][i] */
	while (j > 0 && i > 0 && cur > 0) {
		const uint64_t *Vj = R + (size_t)j * W, *Vp = R + (size_t)(j - 1) * W;
		if (bit(Vj, i - 1)) { /* D[j][i] = D[j][i-1]: replay i-1 not needed */
			prev -= !bit(Vp, i - 1);
			i--;
		} else if (prev == cur) { /* D[j-1][i] = D[j][i]: launch j-1 not needed */
			j--;
			cur = prev;
			prev = j ? row_zeros(R + (size_t)(j - 1) * W, i) : 0;
		} else { /* both neighbours are one less: a pair */
			s->pair[i - 1] = j - 1;
			s->wused[j - 1] = 1;
			cur = prev - !bit(Vp, i - 1);
			i--;
			j--;
			prev = j ? row_zeros(R + (size_t)(j - 1) * W, i) : 0;
		}
	}
}

/* ---- one replay ---- */

static void write_none(const struct gm_replay *r, uint32_t *window_out, uint32_t *pos_out,
                       uint8_t *match_out, uint8_t match)
{
	*window_out = TIX_NONE;
	for (uint32_t i = 0; i < r->n; i++) {
		pos_out[i] = TIX_NONE;
		match_out[i] = match;
	}
}

/* Rule 1.  Returns the window or TIX_NONE. */
static uint32_t find_exact(const struct gm_scratch *s, const struct gm_window *w, uint32_t nw,
                           const struct gm_replay *r, uint64_t h)
{
	for (uint32_t i = 0; i < r->n; i++)
		if (r->names[i] == TIX_NONE)
			return TIX_NONE;
	uint32_t best = TIX_NONE;
	uint64_t best_rank = 0;
	for (uint32_t k = 0; k < nw; k++) {
		if (w[k].n != r->n || s->whash[k] != h ||
		    memcmp(w[k].names, r->names, (size_t)r->n * sizeof(uint32_t)) != 0)
			continue;
		uint64_t rank = batch_rank(w[k].batch, r->batch);
		if (best == TIX_NONE || rank < best_rank) {
			best = k;
			best_rank = rank;
		}
	}
	return best;
}

/* Rule 2.  Returns 1 with the outputs written, 0 when no window scores
 * >= 0.9, -1 on error. */
static int align(struct gm_scratch *s, const struct gm_window *w, uint32_t nw,
                 const struct gm_replay *r, uint32_t *window_out, uint32_t *pos_out,
                 uint8_t *match_out, struct tix_error *err)
{
	uint32_t n = r->n, maxm = 0;
	size_t W = ((size_t)n + 63) / 64;
	for (uint32_t k = 0; k < nw; k++)
		if (s->wclass[k] == WC_NAMED && w[k].n > maxm)
			maxm = w[k].n;
	if (!maxm)
		return 0;
	if (replay_table(s, r, W, err) < 0 || GROW(s, widx, maxm, err) < 0 ||
	    GROW(s, rows, W, err) < 0 || GROW(s, wlcs, nw, err) < 0)
		return -1;

	uint32_t best = TIX_NONE, best_l = 0, best_max = 1;
	uint64_t best_rank = UINT64_MAX;
	for (uint32_t k = 0; k < nw; k++) {
		if (s->wclass[k] != WC_NAMED)
			continue;
		uint32_t m = w[k].n, f = s->wfirst[k];
		uint64_t lo = m < n ? m : n, hi = m < n ? n : m;
		s->wlcs[k] = -2; /* skipped */
		if (f != k) {
			/* the same names as window f: its LCS, or skipped as it was
			 * (the best so far has only grown since) */
			if (s->wlcs[f] < 0) {
				s->stats.windows_skipped++;
				continue;
			}
		} else if (10 * lo < 9 * hi) { /* even a full LCS scores < 0.9 */
			s->stats.windows_skipped++;
			continue;
		} else {
			uint64_t ub = window_bound(s, &w[k]);
			/* ub / hi < 0.9, or < the best score: k can neither win nor tie */
			if (10 * ub < 9 * hi ||
			    (best != TIX_NONE && ub * best_max < (uint64_t)best_l * hi)) {
				s->stats.windows_skipped++;
				continue;
			}
			s->stats.lcs_runs++;
			s->wlcs[k] = lcs(s, m, n, W, s->rows, 0);
		}
		uint64_t l = (uint64_t)s->wlcs[f];
		s->wlcs[k] = s->wlcs[f];
		if (10 * l < 9 * hi)
			continue;
		uint64_t rank = batch_rank(w[k].batch, r->batch);
		int better;
		if (best == TIX_NONE)
			better = 1;
		else if (l * best_max != (uint64_t)best_l * hi)
			better = l * best_max > (uint64_t)best_l * hi;
		else
			better = rank < best_rank;
		if (better) {
			best = k;
			best_l = (uint32_t)l;
			best_max = (uint32_t)hi;
			best_rank = rank;
		}
	}
	if (best == TIX_NONE)
		return 0;

	/* The chosen window again, keeping its rows, then the pairs. */
	const struct gm_window *wb = &w[best];
	uint32_t m = wb->n;
	if (((size_t)m + 1) > SIZE_MAX / sizeof(uint64_t) / (W ? W : 1) ||
	    GROW(s, rows, ((size_t)m + 1) * W, err) < 0 ||
	    GROW(s, wused, m, err) < 0 || GROW(s, anchor, n, err) < 0)
		return -1;
	window_bound(s, wb);
	lcs(s, m, n, W, s->rows, 1);
	traceback(s, m, n, W);

	*window_out = best;
	for (uint32_t i = 0; i < n; i++) {
		pos_out[i] = s->pair[i];
		match_out[i] = s->pair[i] == TIX_NONE ? TIX_MATCH_NONE : TIX_MATCH_ALIGNED;
	}
	/* anchor[i]: window position of the nearest LCS pair after i, or m */
	uint32_t j1 = m;
	for (uint32_t i = n; i-- > 0;) {
		s->anchor[i] = j1;
		if (s->pair[i] != TIX_NONE)
			j1 = s->pair[i];
	}
	/* Reorders: each unpaired kernel takes the nearest unpaired launch of
	 * its name within GM_REACH launches of its place (j0, j1). */
	int64_t j0 = -1;
	for (uint32_t i = 0; i < n; i++) {
		if (s->pair[i] != TIX_NONE) {
			j0 = s->pair[i];
			continue;
		}
		uint32_t name = r->names[i];
		if (name == TIX_NONE)
			continue;
		int64_t after = s->anchor[i];
		for (int64_t d = 1; d <= GM_REACH; d++) {
			int64_t cand[2] = {j0 - d, after + d}, pick = -1;
			for (int c = 0; c < 2 && pick < 0; c++)
				if (cand[c] >= 0 && cand[c] < m && !s->wused[cand[c]] &&
				    wb->names[cand[c]] == name)
					pick = cand[c];
			if (pick >= 0) {
				s->wused[pick] = 1;
				pos_out[i] = (uint32_t)pick;
				match_out[i] = TIX_MATCH_REORDERED;
				break;
			}
		}
	}
	return 1;
}

/* Rule 3.  Writes the outputs (positional, ambiguous, or none). */
static void positional(const struct gm_scratch *s, const struct gm_window *w, uint32_t nw,
                       const struct gm_replay *r, uint32_t *window_out, uint32_t *pos_out,
                       uint8_t *match_out)
{
	uint32_t best = TIX_NONE, tied = 0;
	uint64_t best_rank = UINT64_MAX;
	for (uint32_t k = 0; k < nw; k++) {
		if (s->wclass[k] != WC_UNNAMED || w[k].n != r->n)
			continue;
		uint64_t rank = batch_rank(w[k].batch, r->batch);
		if (best == TIX_NONE || rank < best_rank) {
			best = k;
			best_rank = rank;
			tied = 1;
		} else if (rank == best_rank) {
			tied++;
		}
	}
	if (best == TIX_NONE) {
		write_none(r, window_out, pos_out, match_out, TIX_MATCH_NONE);
	} else if (tied > 1) {
		write_none(r, window_out, pos_out, match_out, TIX_MATCH_AMBIGUOUS);
	} else {
		*window_out = best;
		for (uint32_t i = 0; i < r->n; i++) {
			pos_out[i] = i;
			match_out[i] = TIX_MATCH_POSITIONAL;
		}
	}
}

int gm_match(const struct gm_window *w, uint32_t nw, const struct gm_replay *r,
             uint32_t *window_out, uint32_t *pos_out, uint8_t *match_out,
             struct gm_scratch *s, struct tix_error *err)
{
	if (!s || !r || !window_out || r->n == TIX_NONE || (r->n && (!r->names || !pos_out || !match_out)))
		return tix_error_set(err, "graph attribution: invalid arguments");
	write_none(r, window_out, pos_out, match_out, TIX_MATCH_NONE);
	if (nw >= TIX_NONE || (nw && !w))
		return tix_error_set(err, "graph attribution: invalid arguments");
	for (uint32_t k = 0; k < nw; k++)
		if (w[k].n == TIX_NONE || (w[k].n && !w[k].names))
			return tix_error_set(err, "graph attribution: invalid capture window %u", k);
	s->stats.calls++;
	if (!r->n)
		return 0;
	if (scan_windows(s, w, nw, err) < 0)
		return -1;

	uint64_t h = seq_hash(r->names, r->n);
	const struct gm_memo *e = memo_find(s, h, r);
	if (e) {
		const unsigned char *p = s->arena + e->off + (size_t)r->n * sizeof(uint32_t);
		*window_out = e->window;
		memcpy(pos_out, p, (size_t)r->n * sizeof(uint32_t));
		memcpy(match_out, p + (size_t)r->n * sizeof(uint32_t), r->n);
		s->stats.memo_hits++;
		return 0;
	}

	uint32_t k = find_exact(s, w, nw, r, h);
	if (k != TIX_NONE) {
		*window_out = k;
		for (uint32_t i = 0; i < r->n; i++) {
			pos_out[i] = i;
			match_out[i] = TIX_MATCH_EXACT;
		}
	} else {
		int rc = align(s, w, nw, r, window_out, pos_out, match_out, err);
		if (rc < 0) {
			write_none(r, window_out, pos_out, match_out, TIX_MATCH_NONE);
			return -1;
		}
		if (rc == 0)
			positional(s, w, nw, r, window_out, pos_out, match_out);
	}
	memo_add(s, h, r, *window_out, pos_out, match_out);
	return 0;
}
