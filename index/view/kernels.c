/*
 * Kernels: the GPU work groups (one name and kind) of all steps, of a step,
 * or launched beneath one CPU op, with the columns of `nsys stats`.  The
 * index keeps the groups ranked by total time, so the natural order is the
 * ranking.  Time% is a share of the scope's GPU time (copies included).
 * Beneath an op only the count and total are the op's own: the spread
 * (median, min, max, stddev) describes the kernel overall, so it is unknown.
 * Beneath an op in one step (the Ops view of a step, Enter) the step's
 * groups are counted here: the members each launched beneath the op.
 */
#include "index/view/view_int.h"

#include <stdlib.h>

enum { C_PCT, C_TOTAL, C_INST, C_AVG, C_MED, C_MIN, C_MAX, C_STD, C_GRID, C_BLOCK, C_BAR, C_NAME,
       C_KIND };

static const struct tix_col cols[] = {
	[C_PCT] = {"Time%", 6, TIX_COL_RIGHT, 0, "time_pct", TIX_UNIT_PCT},
	[C_TOTAL] = {"Total", 9, TIX_COL_RIGHT, 0, "total_ns", TIX_UNIT_DUR},
	[C_INST] = {"Instances", 10, TIX_COL_RIGHT, 0, "instances", TIX_UNIT_COUNT},
	[C_AVG] = {"Avg", 9, TIX_COL_RIGHT, 3, "avg_ns", TIX_UNIT_DUR},
	[C_MED] = {"Med", 9, TIX_COL_RIGHT, 5, "med_ns", TIX_UNIT_DUR},
	[C_MIN] = {"Min", 9, TIX_COL_RIGHT, 6, "min_ns", TIX_UNIT_DUR},
	[C_MAX] = {"Max", 9, TIX_COL_RIGHT, 6, "max_ns", TIX_UNIT_DUR},
	[C_STD] = {"StdDev", 9, TIX_COL_RIGHT, 7, "stddev_ns", TIX_UNIT_DUR},
	[C_GRID] = {"Grid", 12, 0, 0, "grid", TIX_UNIT_DIM3},
	[C_BLOCK] = {"Block", 10, 0, 0, "block", TIX_UNIT_DIM3},
	[C_BAR] = {"", 8, TIX_COL_BAR, 2, NULL, TIX_UNIT_BAR},
	[C_NAME] = {"Name", 28, TIX_COL_FLEX | TIX_COL_NAME | TIX_COL_ASC, 0, "name", TIX_UNIT_NAME},
	[C_KIND] = {"Kind", 0, TIX_COL_DATA | TIX_COL_ASC, 0, "kind", TIX_UNIT_TEXT},
};

enum scope { SCOPE_ALL, SCOPE_STEP, SCOPE_OP, SCOPE_OP_STEP };

/* SCOPE_OP_STEP: a step group's launches beneath the op. */
struct op_step_row {
	const struct tix_group *g;              /* the step's group */
	uint32_t count;
	int64_t total;
};

struct kernels {
	enum scope scope;
	const struct tix_group *step_groups;    /* SCOPE_STEP */
	const struct tix_op_group *op_groups;   /* SCOPE_OP */
	struct op_step_row *op_step;            /* SCOPE_OP_STEP, ranked by total */
	int64_t whole;                          /* the 100% of Time% */
};

static int cmp_op_step(const void *x, const void *y)
{
	const struct op_step_row *a = x, *b = y;
	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return a->g->group < b->g->group ? -1 : a->g->group > b->g->group;
}

/* The step's groups, each counted over its launches beneath the op. */
static int open_op_step(struct tix_index *ix, struct kernels *p, uint32_t step, uint32_t op, uint32_t *n)
{
	uint32_t ng, k = 0, cap = 0;
	const struct tix_group *g = tix_step_groups(ix, step, &ng);
	for (uint32_t i = 0; i < ng; i++)
		cap = g[i].members_count > cap ? g[i].members_count : cap;
	uint32_t *rows = malloc(((size_t)cap + 1) * sizeof *rows);
	p->op_step = calloc((size_t)ng + 1, sizeof *p->op_step);
	if (!rows || !p->op_step) {
		free(rows);
		return -1;
	}
	for (uint32_t i = 0; i < ng; i++) {
		long m = tix_group_beneath_op(ix, &g[i], op, rows);
		if (m < 0) {
			free(rows);
			return -1;
		}
		if (m == 0)
			continue;
		struct op_step_row *r = &p->op_step[k++];
		r->g = &g[i];
		r->count = (uint32_t)m;
		for (long j = 0; j < m; j++) {
			struct tix_event e;
			tix_event_get(ix, rows[j], &e);
			r->total = tix_sat_add(r->total, e.dur_ns);
		}
		p->whole = tix_sat_add(p->whole, r->total);
	}
	free(rows);
	if (k)
		qsort(p->op_step, k, sizeof *p->op_step, cmp_op_step);
	*n = k;
	return 0;
}

static int kernels_open(struct tix_view *v, struct tix_error *err)
{
	struct kernels *p = calloc(1, sizeof *p);
	struct tix_index *ix = v->ix;
	if (!p)
		return tix_error_oom(err, tix_index_path(v->ix));
	uint32_t n;
	if (v->scope.op != TIX_NONE && v->scope.op >= tix_op_count(ix)) {
		free(p);
		return tix_error_set(err, "no op %u in the index", v->scope.op);
	}
	if (v->scope.op != TIX_NONE && v->scope.step != TIX_NONE && tix_step_get(ix, v->scope.step)) {
		p->scope = SCOPE_OP_STEP;
		if (open_op_step(ix, p, v->scope.step, v->scope.op, &n) != 0) {
			free(p->op_step);
			free(p);
			return tix_error_oom(err, tix_index_path(v->ix));
		}
	} else if (v->scope.op != TIX_NONE) {
		p->scope = SCOPE_OP;
		p->op_groups = tix_op_groups(ix, v->scope.op, &n);
		p->whole = tix_op_get(ix, v->scope.op)->gpu_ns;
		v->scope.step = TIX_NONE;
	} else if (v->scope.step != TIX_NONE) {
		if (!tix_step_get(ix, v->scope.step)) {
			free(p);
			return tix_error_set(err, "no step %u in the index", v->scope.step);
		}
		p->scope = SCOPE_STEP;
		p->step_groups = tix_step_groups(ix, v->scope.step, &n);
		p->whole = tix_step_get(ix, v->scope.step)->gpu_ns;
	} else {
		p->scope = SCOPE_ALL;
		n = tix_group_count(ix);
		p->whole = tix_total_gpu_ns(ix);
	}
	v->priv = p;
	v->nrows = n;
	return 0;
}

static void kernels_close(struct tix_view *v)
{
	struct kernels *p = v->priv;
	free(p->op_step);
	free(p);
}

/* The group of a row, with the total and count that apply in this scope. */
static const struct tix_group *grp(const struct tix_view *v, uint32_t row, int64_t *total,
                                   uint32_t *count)
{
	const struct kernels *p = v->priv;
	const struct tix_group *g;
	if (p->scope == SCOPE_OP_STEP) {
		*total = p->op_step[row].total;
		*count = p->op_step[row].count;
		return p->op_step[row].g;
	}
	if (p->scope == SCOPE_OP) {
		g = tix_group_get(v->ix, p->op_groups[row].group);
		*total = p->op_groups[row].gpu_ns;
		*count = p->op_groups[row].count;
		return g;
	}
	g = p->scope == SCOPE_STEP ? &p->step_groups[row] : tix_group_get(v->ix, row);
	*total = g->total_ns;
	*count = g->instances;
	return g;
}

static void dim3(struct tix_cell *c, const struct tix_index *ix, const struct tix_group *g, int block)
{
	if (g->kind != TIX_KIND_KERNEL || g->common_info == TIX_NONE)
		return;
	const struct tix_kernel_info *ki = tix_kernel_info_get(ix, g->common_info);
	const int32_t *d = block ? ki->block : ki->grid;
	if (!tix_dim3_known(d))
		return;
	c->known = 1;
	for (int i = 0; i < 3; i++)
		c->dim[i] = d[i];
}

static void kernels_cell(const struct tix_view *v, uint32_t row, int col, struct tix_cell *c)
{
	const struct kernels *p = v->priv;
	int64_t total;
	uint32_t count;
	const struct tix_group *g = grp(v, row, &total, &count);
	int own = p->scope != SCOPE_OP && p->scope != SCOPE_OP_STEP;
	switch (col) {
	case C_PCT: cell_pct(c, total, p->whole); return;
	case C_TOTAL: cell_int(c, total); return;
	case C_INST: cell_int(c, count); return;
	case C_AVG:
		if (count)
			cell_int(c, total / count);
		return;
	case C_MED: cell_maybe(c, own ? g->med_ns : -1); return;
	case C_MIN: cell_maybe(c, own ? g->min_ns : -1); return;
	case C_MAX: cell_maybe(c, own ? g->max_ns : -1); return;
	case C_STD: cell_maybe(c, own ? (int64_t)(g->stddev_ns + 0.5) : -1); return;
	case C_GRID: dim3(c, v->ix, g, 0); return;
	case C_BLOCK: dim3(c, v->ix, g, 1); return;
	case C_NAME: cell_int(c, g->name); return;
	case C_KIND:
		c->known = 1;
		c->s = tix_kind_label((enum tix_kind)g->kind);
		return;
	}
}

static double kernels_share(const struct tix_view *v, uint32_t row)
{
	const struct kernels *p = v->priv;
	int64_t total;
	uint32_t count;
	grp(v, row, &total, &count);
	return p->whole > 0 ? (double)total / (double)p->whole : 0;
}

static void kernels_ref(const struct tix_view *v, uint32_t row, struct tix_view_ref *out)
{
	int64_t total;
	uint32_t count;
	out->step = v->scope.step;
	out->op = v->scope.op;
	out->group = grp(v, row, &total, &count)->group;
}

const struct view_kind_ops view_kernels_kind = {
	.cols = cols,
	.ncols = sizeof cols / sizeof cols[0],
	.rank_col = C_TOTAL,
	.open = kernels_open,
	.close = kernels_close,
	.cell = kernels_cell,
	.share = kernels_share,
	.ref = kernels_ref,
};
