/*
 * index/grow.h: the one rule for growing an array in place, for every part
 * of tix (parse/, index/, the views, the TUI, the capture library, which
 * links nothing of index/: hence static inline in a header, not a function
 * in index/common.c).
 *
 * The capacity doubles from a first size until the need fits, so n appends
 * cost O(n) copies; a size that would overflow (the element count doubled,
 * or times the element size, past what the capacity's type or size_t
 * holds) fails like malloc, never wraps to a small buffer that is then
 * written past.  On failure the array and its capacity are unchanged: the
 * caller still owns and frees what it had.
 *
 *   if (tix_grow(&a->rows, &a->cap, a->n + 1, sizeof *a->rows, 64) != 0)
 *           return tix_error_oom(err, path);
 */
#ifndef TIX_INDEX_GROW_H
#define TIX_INDEX_GROW_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The capacity of at least need elements, doubling *cap (first from min);
 * 0 when no capacity up to max fits need. */
static inline size_t tix_grow_cap(size_t cap, size_t need, size_t min, size_t max)
{
	if (need > max)
		return 0;
	size_t c = cap ? cap : (min ? min : 1);
	while (c < need)
		c = c > max / 2 ? max : c * 2;
	return c > max ? max : c;
}

/* Moves the array *(T **)arr of elem-byte elements to a capacity of at
 * least need (in *cap; unchanged when it already fits).  0, or -1 when out
 * of memory or the size would overflow. */
static inline int tix_grow_to(void *arr, size_t *cap, size_t need, size_t elem, size_t min,
                              size_t max)
{
	if (need <= *cap)
		return 0;
	if (elem && max > SIZE_MAX / elem)
		max = SIZE_MAX / elem;
	size_t c = tix_grow_cap(*cap, need, min, max);
	if (!c)
		return -1;
	void *old;
	memcpy(&old, arr, sizeof old); /* arr is a T **: no aliasing of T * as void * */
	void *p = realloc(old, c * elem);
	if (!p)
		return -1;
	memcpy(arr, &p, sizeof p);
	*cap = c;
	/* cppcheck-suppress memleak ; p is stored in the caller's pointer, through arr */
	return 0;
}

/* The two capacity types in use: size_t, and uint32_t for arrays indexed
 * by a row number (which the index's format keeps under TIX_NONE). */
static inline int tix_grow(void *arr, size_t *cap, size_t need, size_t elem, size_t min)
{
	return tix_grow_to(arr, cap, need, elem, min, SIZE_MAX);
}

static inline int tix_grow32(void *arr, uint32_t *cap, size_t need, size_t elem, uint32_t min)
{
	size_t c = *cap;
	if (tix_grow_to(arr, &c, need, elem, min, UINT32_MAX) != 0)
		return -1;
	*cap = (uint32_t)c;
	return 0;
}

/* tix_grow32 to fit index id (need id + 1), the new elements zeroed: for
 * accumulators indexed by a name or a group. */
static inline int tix_grow32_zeroed(void *arr, uint32_t *cap, size_t id, size_t elem, uint32_t min)
{
	uint32_t was = *cap;
	if (tix_grow32(arr, cap, id + 1, elem, min) != 0)
		return -1;
	if (*cap > was) {
		char *a;
		memcpy(&a, arr, sizeof a);
		memset(a + (size_t)was * elem, 0, (size_t)(*cap - was) * elem);
	}
	return 0;
}

#endif /* TIX_INDEX_GROW_H */
