/*
 * Compare by (op, Input Dims): each side's op instances with their shapes
 * (calls) and the GPU time launched beneath them, in one pass over the rows;
 * the two sides on two threads (compare.c merges them).
 */
#include "index/view/compare_int.h"
#include "index/grow.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* (op, Input Dims): calls of each op instance with those shapes, and the GPU
 * time launched beneath them (each GPU event once per distinct pair among
 * the ancestors of its launch call, as the Ops view counts names). */
struct shape_acc {
	uint32_t name, dims, calls;
	int64_t gpu_ns;
};

/* The side's (op, Input Dims) pairs, found by a hash of the two ids. */
struct shape_set {
	struct shape_acc *acc;
	size_t n, cap;
	uint32_t *slot;             /* index into acc + 1; 0: free */
	size_t nslot;               /* a power of two, over twice n */
};

static size_t shape_hash(uint32_t name, uint32_t dims)
{
	uint64_t h = ((uint64_t)name << 32 | dims) * 0x9E3779B97F4A7C15ull;
	return (size_t)(h >> 17);
}

/* The pair's index in acc (added with no calls when new); -1: no memory. */
static long shape_find(struct shape_set *ss, uint32_t name, uint32_t dims)
{
	if (2 * (ss->n + 1) > ss->nslot) {
		size_t ns = ss->nslot ? 2 * ss->nslot : 256;
		uint32_t *sl = calloc(ns, sizeof *sl);
		if (!sl)
			return -1;
		for (size_t i = 0; i < ss->n; i++) {
			size_t h = shape_hash(ss->acc[i].name, ss->acc[i].dims) & (ns - 1);
			while (sl[h])
				h = (h + 1) & (ns - 1);
			sl[h] = (uint32_t)i + 1;
		}
		free(ss->slot);
		ss->slot = sl;
		ss->nslot = ns;
	}
	size_t h = shape_hash(name, dims) & (ss->nslot - 1);
	for (; ss->slot[h]; h = (h + 1) & (ss->nslot - 1)) {
		const struct shape_acc *x = &ss->acc[ss->slot[h] - 1];
		if (x->name == name && x->dims == dims)
			return (long)ss->slot[h] - 1;
	}
	if (tix_grow(&ss->acc, &ss->cap, ss->n + 1, sizeof *ss->acc, 64) != 0)
		return -1;
	ss->acc[ss->n] = (struct shape_acc){name, dims, 0, 0};
	ss->slot[h] = (uint32_t)ss->n + 1;
	return (long)ss->n++;
}

/* A GPU event's launch call and its time. */
struct shape_launch {
	uint32_t launch;
	int64_t dur_ns;
};

/* The rank of row's bit among those set in bits (before[w]: the bits set
 * in the words before w), or -1 when it is not set. */
static long bit_rank(const uint64_t *bits, const uint32_t *before, uint32_t row)
{
	uint64_t w = bits[row >> 6];
	if (!(w >> (row & 63) & 1))
		return -1;
	return (long)before[row >> 6] + __builtin_popcountll(w & ((UINT64_C(1) << (row & 63)) - 1));
}

/* The op instances with shapes: a bit per row, and, by the rank of a set
 * bit (bits set before it: before[word] plus those in its word), the pair
 * of that instance.  A walk up from a launch asks each ancestor's bit, so it
 * reads no event that is not an op instance with shapes. */
struct shape_rows {
	uint64_t *bits;
	uint32_t *before;
	uint32_t *pair;
};

static long shape_row_pair(const struct shape_rows *sr, uint32_t row)
{
	long r = bit_rank(sr->bits, sr->before, row);
	return r < 0 ? -1 : (long)sr->pair[r];
}

/* Adds dur to each distinct pair among the op instances of anc[0..na) (the
 * ancestors of one launch call, innermost first); seen has room for na. */
static void credit_shapes(const struct shape_rows *sr, const uint32_t *anc, long na, long *seen,
                          int64_t dur, struct shape_acc *acc)
{
	long ns = 0;
	for (long x = 0; x < na; x++) {
		long p = shape_row_pair(sr, anc[x]);
		if (p < 0)
			continue;
		int dup = 0; /* once per distinct pair above this launch */
		for (long y = 0; y < ns && !dup; y++)
			dup = seen[y] == p;
		if (dup)
			continue;
		seen[ns++] = p;
		acc[p].gpu_ns = tix_sat_add(acc[p].gpu_ns, dur);
	}
}

/* Credits dur (the GPU time of the events a launch call launched) to the
 * pairs above that call (the rows before it are in sr already: ancestors
 * come before their children in row order). */
static int credit_launch(struct tix_index *ix, const struct shape_rows *sr, uint32_t launch, int64_t dur,
                         struct shape_acc *acc)
{
	enum { SHALLOW = 128 };
	uint32_t a0[SHALLOW];
	long seen0[SHALLOW];
	uint32_t na = tix_event_ancestors(ix, launch, a0, SHALLOW);
	if (na <= SHALLOW) {
		credit_shapes(sr, a0, na, seen0, dur, acc);
		return 0;
	}
	uint32_t *anc = NULL; /* deeper than most */
	long nb = tix_event_ancestors_all(ix, launch, &anc);
	long *seen = nb > 0 ? malloc((size_t)nb * sizeof *seen) : NULL;
	if (seen)
		credit_shapes(sr, anc, nb, seen, dur, acc);
	free(anc);
	free(seen);
	return nb < 0 || !seen ? -1 : 0;
}

/* One pass over the rows: each op instance with shapes counted, and, once
 * the pass reaches a launch call of GPU work, the GPU time it launched
 * credited to the pairs above it.  The walks up from the launches (22 rows
 * each on the story's trace) read rows the pass has just read, so they hit
 * the cache; made kernel by kernel, group by group, each step of a walk
 * was a miss (90 ms a side at 1.2M events and 69K kernels).  Each GPU event
 * adds its time once per distinct pair above its launch, as before; the
 * events of one launch (a graph's) are summed first. */
static int side_shapes(struct tix_index *ix, int k, struct cmp *out)
{
	struct shape_set ss = {0};
	struct shape_rows sr = {0};
	uint32_t nrows = tix_event_count(ix), nwords = nrows / 64 + 1;
	uint64_t *lbits = calloc(nwords, sizeof *lbits);      /* the launch calls */
	uint32_t *lbefore = malloc(nwords * sizeof *lbefore);
	int64_t *ldur = NULL;                                   /* by rank of the launch */
	size_t nop = 0, opcap = 0;
	int rc = -1;
	sr.bits = calloc(nwords, sizeof *sr.bits);
	sr.before = malloc(nwords * sizeof *sr.before);
	if (!lbits || !lbefore || !sr.bits || !sr.before)
		goto out;
	/* the launches: their bits, then each one's time by the rank of its bit */
	size_t ncap = 0, nl = 0;
	for (uint32_t g = 0; g < tix_group_count(ix); g++)
		ncap += tix_group_get(ix, g)->members_count;
	struct shape_launch *ls = malloc((ncap ? ncap : 1) * sizeof *ls);
	if (!ls)
		goto out;
	for (uint32_t g = 0; g < tix_group_count(ix); g++) {
		const struct tix_group *G = tix_group_get(ix, g);
		const uint32_t *mem = tix_members(ix, G->members_first, G->members_count);
		for (uint32_t q = 0; mem && q < G->members_count; q++) {
			int64_t dur = 0;
			uint32_t l = tix_event_launch(ix, mem[q], &dur); /* not the whole event */
			if (l == TIX_NONE || l >= nrows)
				continue;
			lbits[l >> 6] |= UINT64_C(1) << (l & 63);
			ls[nl++] = (struct shape_launch){l, dur};
		}
	}
	uint32_t nlaunch = 0;
	for (uint32_t w = 0; w < nwords; w++) {
		lbefore[w] = nlaunch;
		nlaunch += (uint32_t)__builtin_popcountll(lbits[w]);
	}
	ldur = calloc(nlaunch ? nlaunch : 1, sizeof *ldur);
	for (size_t i = 0; ldur && i < nl; i++) {
		long r = bit_rank(lbits, lbefore, ls[i].launch);
		ldur[r] = tix_sat_add(ldur[r], ls[i].dur_ns);
	}
	free(ls);
	if (!ldur)
		goto out;
	for (uint32_t w = 0; w < nwords; w++) { /* 64 rows at a time */
		uint32_t orow[64], oop[64], oname[64];
		uint32_t no = tix_event_ops_in(ix, w * 64, 64, orow, oop, oname);
		sr.before[w] = (uint32_t)nop;
		for (uint32_t i = 0; i < no; i++) {
			uint32_t d = tix_op_info_get(ix, oop[i])->dims;
			if (d == TIX_NONE)
				continue;
			long p = shape_find(&ss, oname[i], d); /* an op instance with shapes */
			if (p < 0)
				goto out;
			ss.acc[p].calls++;
			if (tix_grow(&sr.pair, &opcap, nop + 1, sizeof *sr.pair, 1024) != 0)
				goto out;
			sr.pair[nop++] = (uint32_t)p;
			sr.bits[w] |= UINT64_C(1) << (orow[i] & 63);
		}
		/* the launch calls among these rows: their ancestors come before
		 * them, so they are in sr now (rows after a launch are none of
		 * its ancestors) */
		for (uint64_t lb = lbits[w]; lb; lb &= lb - 1) {
			uint32_t row = w * 64 + (uint32_t)__builtin_ctzll(lb);
			if (credit_launch(ix, &sr, row, ldur[bit_rank(lbits, lbefore, row)], ss.acc) != 0)
				goto out;
		}
	}
	for (size_t i = 0; i < ss.n; i++) {
		struct crow *r = cmp_add(out);
		if (!r)
			goto out;
		r->key = tix_str(ix, ss.acc[i].name);
		/* on one line, as show writes them (vLLM writes them over many) */
		char one[4096];
		if (!(r->dims = cmp_own(out, tix_fold_ws(tix_str(ix, ss.acc[i].dims), one, sizeof one))))
			goto out;
		r->kind = "op";
		r->name[k] = ss.acc[i].name;
		r->total[k] = ss.acc[i].gpu_ns;
		r->count[k] = ss.acc[i].calls;
	}
	rc = 0;
out:
	free(lbits);
	free(lbefore);
	free(ldur);
	free(sr.bits);
	free(sr.before);
	free(sr.pair);
	free(ss.slot);
	free(ss.acc);
	return rc;
}

struct shapes_job {
	struct tix_index *ix;
	struct cmp *out;
	int rc;
};

static void *shapes_thread(void *arg)
{
	struct shapes_job *j = arg;
	j->rc = side_shapes(j->ix, 1, j->out);
	return NULL;
}

/* Both sides' shapes, the new side on a second thread (each side is a pass
 * over all its rows: ~17 ms at 1.2M events; the indexes are only read).
 * Where no thread can be made, one after the other. */
int cmp_shapes_both(struct tix_index *ix[2], struct cmp side[2])
{
	struct shapes_job j = {ix[1], &side[1], -1};
	pthread_t th;
	int threaded = pthread_create(&th, NULL, shapes_thread, &j) == 0;
	int rc = side_shapes(ix[0], 0, &side[0]);
	if (threaded)
		pthread_join(th, NULL);
	else
		shapes_thread(&j);
	return rc || j.rc ? -1 : 0;
}

