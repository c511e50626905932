/*
 * Kernels: the GPU work groups (one name and kind) of a step, of all steps,
 * or launched beneath one CPU op, with the columns of `nsys stats`.  The
 * index keeps the groups ranked by total time, so the natural order is the
 * ranking and nothing is computed here but what is on screen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/model.h"
#include "tui/view.h"

enum { C_PCT, C_TOTAL, C_INST, C_AVG, C_MED, C_MIN, C_MAX, C_STD, C_GRID, C_BLOCK, C_BAR, C_NAME };

static const struct col cols[] = {
	[C_PCT] = {"Time%", 6, COL_RIGHT, 0},
	[C_TOTAL] = {"Total", 9, COL_RIGHT, 0},
	[C_INST] = {"Instances", 10, COL_RIGHT, 0},
	[C_AVG] = {"Avg", 9, COL_RIGHT, 3},
	[C_MED] = {"Med", 9, COL_RIGHT, 5},
	[C_MIN] = {"Min", 9, COL_RIGHT, 6},
	[C_MAX] = {"Max", 9, COL_RIGHT, 6},
	[C_STD] = {"StdDev", 9, COL_RIGHT, 7},
	[C_GRID] = {"Grid", 12, 0, 0},
	[C_BLOCK] = {"Block", 10, 0, 0},
	[C_BAR] = {"", 8, COL_BAR, 2},
	[C_NAME] = {"Name", 28, COL_FLEX | COL_NAME | COL_ASC, 0},
};

enum scope { SCOPE_ALL, SCOPE_STEP, SCOPE_OP };

struct kernels {
	enum scope scope;
	const struct tix_group *step_groups;    /* SCOPE_STEP */
	const struct tix_op_group *op_groups;   /* SCOPE_OP */
	int64_t whole;                          /* the 100% of Time% */
};

static int kernels_open(struct app *a, struct view *v)
{
	struct kernels *p = calloc(1, sizeof *p);
	if (!p)
		return -1;
	uint32_t n;
	if (v->args.op != TIX_NONE) {
		p->scope = SCOPE_OP;
		p->op_groups = tix_op_groups(a->ix, v->args.op, &n);
		p->whole = tix_op_get(a->ix, v->args.op)->gpu_ns;
		v->args.step = TIX_NONE;
	} else if (v->args.step != TIX_NONE && tix_step_get(a->ix, v->args.step)) {
		p->scope = SCOPE_STEP;
		p->step_groups = tix_step_groups(a->ix, v->args.step, &n);
		p->whole = tix_step_get(a->ix, v->args.step)->gpu_ns;
	} else {
		p->scope = SCOPE_ALL;
		v->args.step = TIX_NONE;
		n = tix_group_count(a->ix);
		p->whole = tix_total_gpu_ns(a->ix);
	}
	v->priv = p;
	view_set_rows(v, n);
	return 0;
}

static void kernels_close(struct view *v)
{
	free(v->priv);
}

/* The group of a row, with the total and count that apply in this scope. */
static const struct tix_group *grp(struct app *a, struct view *v, uint32_t row, int64_t *total,
                                   uint32_t *count)
{
	struct kernels *p = v->priv;
	const struct tix_group *g;
	if (p->scope == SCOPE_STEP) {
		g = &p->step_groups[row];
	} else if (p->scope == SCOPE_OP) {
		g = tix_group_get(a->ix, p->op_groups[row].group);
		if (total)
			*total = p->op_groups[row].gpu_ns;
		if (count)
			*count = p->op_groups[row].count;
		return g;
	} else {
		g = tix_group_get(a->ix, row);
	}
	if (total)
		*total = g->total_ns;
	if (count)
		*count = g->instances;
	return g;
}

static double kernels_share(struct app *a, struct view *v, uint32_t row)
{
	struct kernels *p = v->priv;
	int64_t total;
	grp(a, v, row, &total, NULL);
	return p->whole > 0 ? (double)total / (double)p->whole : 0;
}

static const struct tix_kernel_info *common_info(struct app *a, const struct tix_group *g)
{
	return g->common_info == TIX_NONE ? NULL : tix_kernel_info_get(a->ix, g->common_info);
}

static const char *kernels_cell(struct app *a, struct view *v, uint32_t row, int col, char *buf,
                                size_t cap)
{
	struct kernels *p = v->priv;
	int64_t total;
	uint32_t count;
	const struct tix_group *g = grp(a, v, row, &total, &count);
	/* under an op only the count and total are the op's own; the spread
	 * statistics describe the kernel overall, so they are left out */
	int own = p->scope != SCOPE_OP;
	const struct tix_kernel_info *ki;
	switch (col) {
	case C_PCT: return fmt_pct(total, p->whole, buf, cap);
	case C_TOTAL: return fmt_dur(total, buf, cap);
	case C_INST: return fmt_count(count, buf, cap);
	case C_AVG: return fmt_dur(count ? total / count : -1, buf, cap);
	case C_MED: return fmt_dur(own ? g->med_ns : -1, buf, cap);
	case C_MIN: return fmt_dur(own ? g->min_ns : -1, buf, cap);
	case C_MAX: return fmt_dur(own ? g->max_ns : -1, buf, cap);
	case C_STD: return fmt_dur(own ? (int64_t)(g->stddev_ns + 0.5) : -1, buf, cap);
	case C_GRID:
		ki = common_info(a, g);
		return ki ? fmt_dim3_compact(ki->grid, buf, cap) : "-";
	case C_BLOCK:
		ki = common_info(a, g);
		return ki ? fmt_dim3_compact(ki->block, buf, cap) : "-";
	case C_NAME: return app_name(a, g->name, buf, cap);
	}
	return "";
}

static int64_t grid_blocks(struct app *a, const struct tix_group *g, int block)
{
	const struct tix_kernel_info *ki = common_info(a, g);
	if (!ki)
		return 0;
	const int32_t *d = block ? ki->block : ki->grid;
	return (int64_t)d[0] * d[1] * d[2];
}

static int kernels_cmp(struct app *a, struct view *v, uint32_t ra, uint32_t rb, int col)
{
	int64_t ta, tb;
	uint32_t ca, cb;
	const struct tix_group *ga = grp(a, v, ra, &ta, &ca), *gb = grp(a, v, rb, &tb, &cb);
	switch (col) {
	case C_PCT:
	case C_TOTAL: return cmp_big_first(ta, tb);
	case C_INST: return cmp_big_first(ca, cb);
	case C_AVG: return cmp_big_first(ca ? ta / ca : 0, cb ? tb / cb : 0);
	case C_MED: return cmp_big_first(ga->med_ns, gb->med_ns);
	case C_MIN: return cmp_big_first(ga->min_ns, gb->min_ns);
	case C_MAX: return cmp_big_first(ga->max_ns, gb->max_ns);
	case C_STD: return (ga->stddev_ns < gb->stddev_ns) - (ga->stddev_ns > gb->stddev_ns);
	case C_GRID: return cmp_big_first(grid_blocks(a, ga, 0), grid_blocks(a, gb, 0));
	case C_BLOCK: return cmp_big_first(grid_blocks(a, ga, 1), grid_blocks(a, gb, 1));
	case C_NAME: {
		char x[1024], y[1024];
		return strcmp(app_name(a, ga->name, x, sizeof x), app_name(a, gb->name, y, sizeof y));
	}
	}
	return 0;
}

static const char *kernels_text(struct app *a, struct view *v, uint32_t row, char *buf, size_t cap)
{
	/* the full name, so a search finds template arguments too */
	return tix_str(a->ix, grp(a, v, row, NULL, NULL)->name);
}

static int kernels_enter(struct app *a, struct view *v, uint32_t row)
{
	struct view_args va = view_args_none();
	va.step = v->args.step;
	va.op = v->args.op; /* under an op: only its launches */
	va.group = grp(a, v, row, NULL, NULL)->group;
	return app_push(a, &view_launches_ops, &va) ? 0 : -1;
}

static uint32_t kernels_hottest(struct app *a, struct view *v)
{
	uint32_t best = TIX_NONE;
	int64_t max = -1;
	for (uint32_t r = 0; r < v->nrows; r++) {
		int64_t t;
		grp(a, v, r, &t, NULL);
		if (t > max) {
			max = t;
			best = r;
		}
	}
	return best;
}

static void kernels_crumb(struct app *a, struct view *v, char *buf, size_t cap)
{
	struct kernels *p = v->priv;
	if (p->scope == SCOPE_OP)
		snprintf(buf, cap, "%s", tix_str(a->ix, tix_op_get(a->ix, v->args.op)->name));
	else if (p->scope == SCOPE_STEP)
		snprintf(buf, cap, "step %u", v->args.step);
	else
		snprintf(buf, cap, "all steps");
}

static void kernels_context(struct app *a, struct view *v, struct ctx *c)
{
	c->step = v->args.step;
	c->op = v->args.op;
	uint32_t row = view_cur_row(v);
	if (row != TIX_NONE)
		c->group = grp(a, v, row, NULL, NULL)->group;
}

static void kernels_select(struct app *a, struct view *v, const struct ctx *c)
{
	if (c->group == TIX_NONE)
		return;
	for (uint32_t r = 0; r < v->nrows; r++)
		if (grp(a, v, r, NULL, NULL)->group == c->group) {
			view_goto_row(v, r);
			return;
		}
}

static int kernels_export(struct app *a, struct view *v, struct tix_export_sel *sel, char *path,
                          size_t cap, void **owned)
{
	struct kernels *p = v->priv;
	uint32_t row = view_cur_row(v);
	if (row == TIX_NONE) {
		app_msg(a, "no kernel selected");
		return -1;
	}
	const struct tix_group *g = grp(a, v, row, NULL, NULL);
	if (p->scope == SCOPE_OP) {
		/* the kernel's launches overall (the index does not keep which
		 * of them ran beneath the op) */
		g = tix_group_get(a->ix, g->group);
	}
	sel->rows = tix_members(a->ix, g->members_first, g->members_count);
	sel->nrows = g->members_count;
	if (v->args.step != TIX_NONE)
		snprintf(path, cap, "step%u-kernel%u", v->args.step, g->group);
	else
		snprintf(path, cap, "kernel%u", g->group);
	return 0;
}

const struct view_ops view_kernels_ops = {
	.name = "Kernels",
	.rows_name = "kernels",
	.kind = VK_KERNELS,
	.cols = cols,
	.ncols = sizeof cols / sizeof cols[0],
	.default_sort = C_TOTAL,
	.open = kernels_open,
	.close = kernels_close,
	.cell = kernels_cell,
	.share = kernels_share,
	.cmp = kernels_cmp,
	.text = kernels_text,
	.enter = kernels_enter,
	.hottest = kernels_hottest,
	.crumb = kernels_crumb,
	.context = kernels_context,
	.select = kernels_select,
	.export_sel = kernels_export,
};
