/*
 * index/merge.h: the two pieces of every k-way merge by start time in
 * index/ (the GPU tracks in build/breakdown.c, a step's runs in
 * build/aggregate.c, a query's runs in find.c), defined once:
 *
 *   TIX_HEAP_DOWN(name, type, before) writes
 *     static void name(type *h, uint32_t n, uint32_t i)
 *   which moves h[i] down the binary min-heap of n elements until no child
 *   comes before it; before(a, b) (pointers to type) is nonzero when *a
 *   must leave the heap before *b.  A macro, so that the merges' hot loops
 *   compare inline, not through a function pointer.
 *
 *   struct tix_union: a union of intervals fed in order of start, its
 *   covered time so far (tix_union_add, tix_union_total).
 */
#ifndef TIX_INDEX_MERGE_H
#define TIX_INDEX_MERGE_H

#include <stdint.h>

#define TIX_HEAP_DOWN(name, type, before)                                   \
	static void name(type *h, uint32_t n, uint32_t i)                   \
	{                                                                   \
		for (;;) {                                                  \
			uint32_t l = 2 * i + 1, m = i;                      \
			if (l < n && before(&h[l], &h[m]))                  \
				m = l;                                      \
			if (l + 1 < n && before(&h[l + 1], &h[m]))          \
				m = l + 1;                                  \
			if (m == i)                                         \
				return;                                     \
			type t = h[i];                                      \
			h[i] = h[m];                                        \
			h[m] = t;                                           \
			i = m;                                              \
		}                                                           \
	}

struct tix_union {
	int64_t s, e, total; /* [s, e): the open span; total: covered before it */
	int open;
};

/* Adds [s, e) to u.  Touching intervals merge, as HTA's do. */
static inline void tix_union_add(struct tix_union *u, int64_t s, int64_t e)
{
	if (!u->open) {
		*u = (struct tix_union){s, e, 0, 1};
	} else if (s > u->e) {
		u->total += u->e - u->s;
		u->s = s;
		u->e = e;
	} else if (e > u->e) {
		u->e = e;
	}
}

/* The time u covers. */
static inline int64_t tix_union_total(const struct tix_union *u)
{
	return u->total + (u->open ? u->e - u->s : 0);
}

#endif
