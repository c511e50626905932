/* Inside index/view/: what each kind of view provides (one file a kind). */
#ifndef TIX_VIEW_INT_H
#define TIX_VIEW_INT_H

#include "index/view/view.h"

struct tix_view;

struct view_kind_ops {
	const struct tix_col *cols;
	int ncols;
	int rank_col;      /* what --top ranks by */
	const char *const *what; /* per column, what it means (NULL: the title says it) */
	/* Sets v->nrows, v->pinned and v->priv; 0, or -1 with err set. */
	int (*open)(struct tix_view *v, struct tix_error *err);
	void (*close)(struct tix_view *v);
	void (*cell)(const struct tix_view *v, uint32_t row, int col, struct tix_cell *out);
	/* Optional: a faster comparison than the cells' (launches keep keys). */
	int (*cmp)(const struct tix_view *v, uint32_t ra, uint32_t rb, int col);
	double (*share)(const struct tix_view *v, uint32_t row);
	void (*ref)(const struct tix_view *v, uint32_t row, struct tix_view_ref *out);
};

struct tix_view {
	struct tix_index *ix;
	enum tix_view_kind kind;
	struct tix_view_scope scope;
	const struct view_kind_ops *k;
	uint32_t nrows, pinned;
	int64_t first_ns;  /* the trace's start: TIME columns count from it */
	void *priv;
	int fit_width[16]; /* tix_view_width's answers, 0 until asked */
	/* compare views: the new side (ix is the base) and what to compare */
	struct tix_index *other;
	struct tix_compare_scope cmp;
	const void *arg;   /* TIX_VIEW_RANKS: the rank set */
};

/* tix_view_cmp of two cells of column col (for a kind's cmp that keeps
 * its cells). */
int view_cmp_cells(const struct tix_view *v, int col, const struct tix_cell *x, const struct tix_cell *y);

extern const struct view_kind_ops view_steps_kind, view_kernels_kind, view_launches_kind,
	view_ops_kind, view_cmp_kernels_kind, view_cmp_ops_kind, view_cmp_steps_kind,
	view_cmp_shapes_kind, view_cmp_launches_kind, view_cmp_findings_kind, view_ranks_kind;

/* The per-step totals of two traces (of step `step` only, unless TIX_NONE)
 * (compare.c). */
void view_cmp_totals(struct tix_index *ix[2], uint32_t step, struct tix_compare_totals *t);
/* A row of a CMP_LAUNCHES view (cmp_launches.c). */
void view_cmp_launches_ref(const struct tix_view *v, uint32_t row, struct tix_compare_ref *out);

/* Cell constructors. */
static inline void cell_int(struct tix_cell *c, int64_t v)
{
	c->known = 1;
	c->i = v;
}
static inline void cell_pct(struct tix_cell *c, int64_t part, int64_t whole)
{
	c->known = whole > 0 && part >= 0;
	c->d = c->known ? 100.0 * (double)part / (double)whole : 0;
}
/* A duration or count the trace may not give (negative: unknown). */
static inline void cell_maybe(struct tix_cell *c, int64_t v)
{
	c->known = v >= 0;
	c->i = v;
}

#endif
