/* Sorting the builder's large arrays, and work buffers, without anonymous
 * memory.
 *
 * glibc's qsort is a merge sort that mallocs a copy of the array when it
 * can (below a quarter of physical memory): 24 bytes of anonymous memory
 * per GPU event for the step intervals alone, 960 MB at 40M events
 * (issue 9, item 5).  linker_sort is a stable natural merge sort whose
 * buffer comes from linker_buf: the heap below SMALL_BYTES, a spill file
 * (page cache, not anonymous memory) above.  The arrays it gets are mostly
 * made of a few sorted runs (one per stream or per group), which it finds
 * and merges, so sorted input costs one pass of comparisons and no copy. */
#include "index/index.h"

#include <stdlib.h>
#include <string.h>

#include "index/build/linker.h"

#define SMALL_BYTES (1u << 20) /* a heap buffer below this */
#define MAX_ELEM 256           /* element size the insertion step holds on the stack */

typedef int (*cmp_fn)(const void *, const void *);

void *linker_buf(struct linker *L, struct linker_buf *b, size_t n, size_t elem, struct tix_error *err)
{
	size_t bytes = (n ? n : 1) * elem; /* room for none is still room: NULL means failure */
	if (bytes <= SMALL_BYTES) {
		if (bytes > b->heap_bytes) {
			void *p = realloc(b->heap, bytes);
			if (!p) {
				tix_error_oom(err, NULL);
				return NULL;
			}
			b->heap = p;
			b->heap_bytes = bytes;
		}
		return b->heap;
	}
	if (!b->has_spill) {
		if (linker_spill(L, &b->sp, elem, n, err) != 0)
			return NULL;
		b->has_spill = 1;
	}
	if (b->sp.elem != elem)
		spill_retype(&b->sp, elem);
	if (spill_resize(&b->sp, n, err) != 0)
		return NULL;
	return b->sp.base;
}

void linker_buf_done(struct linker *L, struct linker_buf *b)
{
	free(b->heap);
	if (b->has_spill)
		linker_release(L, &b->sp);
	memset(b, 0, sizeof(*b));
}

struct run {
	size_t start, len;
};

/* Sorts a[lo, hi) by insertion, a[lo, mid) being sorted already. */
static void insertion(unsigned char *a, size_t size, size_t lo, size_t mid, size_t hi, cmp_fn cmp)
{
	unsigned char tmp[MAX_ELEM];
	for (size_t i = mid; i < hi; i++) {
		size_t j = i;
		if (cmp(a + (j - 1) * size, a + i * size) <= 0)
			continue;
		memcpy(tmp, a + i * size, size);
		while (j > lo && cmp(a + (j - 1) * size, tmp) > 0)
			j--;
		memmove(a + (j + 1) * size, a + j * size, (i - j) * size);
		memcpy(a + j * size, tmp, size);
	}
}

/* Merges the adjacent runs a[x.start, +x.len) and y into one, stably,
 * copying x into buf first. */
static void merge(unsigned char *a, size_t size, struct run x, struct run y, unsigned char *buf, cmp_fn cmp)
{
	unsigned char *l = a + x.start * size, *r = a + y.start * size;
	if (cmp(r - size, r) <= 0)
		return; /* already in order: the common case for runs of one stream */
	memcpy(buf, l, x.len * size);
	unsigned char *bl = buf, *bend = buf + x.len * size, *rend = r + y.len * size, *out = l;
	while (bl < bend && r < rend) {
		if (cmp(r, bl) < 0) {
			memcpy(out, r, size);
			r += size;
		} else {
			memcpy(out, bl, size);
			bl += size;
		}
		out += size;
	}
	memcpy(out, bl, (size_t)(bend - bl)); /* what is left of y is in place */
}

/* The shortest run worth merging: as Timsort computes it, 16..32, so that
 * n / minrun is close to a power of two. */
static size_t min_run(size_t n)
{
	size_t r = 0;
	while (n >= 32) {
		r |= n & 1;
		n >>= 1;
	}
	return n + r;
}

int linker_sort(struct linker *L, void *base, size_t n, size_t size, cmp_fn cmp, struct tix_error *err)
{
	unsigned char *a = base;
	if (n < 2)
		return 0;
	if (size > MAX_ELEM)
		return tix_error_set(err, "internal: sorting elements of %zu bytes", size);
	size_t i = 1;
	while (i < n && cmp(a + (i - 1) * size, a + i * size) <= 0)
		i++;
	if (i == n)
		return 0;

	struct linker_buf lb;
	memset(&lb, 0, sizeof(lb));
	unsigned char *buf = linker_buf(L, &lb, n, size, err);
	if (!buf) {
		linker_buf_done(L, &lb);
		return -1;
	}
	/* Timsort's stack of runs: each run longer than the two above it
	 * together, so the stack stays shallow (log_phi n) and merges balanced. */
	struct run stack[128];
	int top = 0;
	size_t minrun = min_run(n);
	for (size_t lo = 0; lo < n;) {
		size_t hi = lo + 1;
		while (hi < n && cmp(a + (hi - 1) * size, a + hi * size) <= 0)
			hi++;
		if (hi - lo < minrun) {
			size_t end = lo + minrun < n ? lo + minrun : n;
			insertion(a, size, lo, hi, end, cmp);
			hi = end;
		}
		stack[top++] = (struct run){lo, hi - lo};
		lo = hi;
		while (top > 1) {
			int k = top - 2;
			if ((k > 0 && stack[k - 1].len <= stack[k].len + stack[k + 1].len) ||
			    (k > 1 && stack[k - 2].len <= stack[k - 1].len + stack[k].len)) {
				if (stack[k - 1].len < stack[k + 1].len)
					k--;
			} else if (stack[k].len > stack[k + 1].len) {
				break;
			}
			merge(a, size, stack[k], stack[k + 1], buf, cmp);
			stack[k].len += stack[k + 1].len;
			for (int j = k + 1; j < top - 1; j++)
				stack[j] = stack[j + 1];
			top--;
		}
	}
	while (top > 1) {
		merge(a, size, stack[top - 2], stack[top - 1], buf, cmp);
		stack[top - 2].len += stack[top - 1].len;
		top--;
	}
	linker_buf_done(L, &lb);
	return 0;
}
