/* Inside the compare views (compare.c, cmp_shapes.c): a side's rows. */
#ifndef TIX_VIEW_COMPARE_INT_H
#define TIX_VIEW_COMPARE_INT_H

#include "index/view/view_int.h"

/* One matched quantity on both sides. */
struct crow {
	const char *key;             /* full name (or "%010u" position); points into an index */
	const char *kind;            /* "kernel", "memcpy", "op", "step" */
	const char *dims;            /* shapes: the op's Input Dims, else NULL */
	uint32_t name[2];            /* string id on each side (TIX_NONE: absent) */
	int64_t total[2];            /* ns; -1: absent on that side */
	uint32_t count[2];           /* instances, calls, kernels */
	const struct tix_kernel_info *info[2]; /* most common launch, NULL */
	int64_t wall[2], busy[2];    /* steps */
	uint32_t group[2];           /* kernels: overall group, TIX_NONE */
	uint32_t index;              /* steps: the position */
	char pos[12];                /* steps: the key */
};

struct cmp {
	struct crow *rows;
	size_t n, cap;
	struct tix_compare_totals t;
	char **owned;                /* strings the rows point at (folded Input Dims) */
	size_t nowned, capowned;
};

/* A new row of c, absent on both sides; NULL when memory runs out. */
struct crow *cmp_add(struct cmp *c);
/* A copy of s that c owns (freed with it), or NULL when memory runs out. */
const char *cmp_own(struct cmp *c, const char *s);
/* Frees what c owns: its rows and strings. */
void cmp_done(struct cmp *c);
/* Both sides' (op, Input Dims) rows into side[0] and side[1] (cmp_shapes.c);
 * 0, or -1 when memory runs out. */
int cmp_shapes_both(struct tix_index *ix[2], struct cmp side[2]);

#endif
