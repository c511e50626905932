/*
 * Ops: CPU op names ranked by the GPU time launched beneath them (the index
 * keeps them ranked); Enter lists the kernels beneath the selected op.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/model.h"
#include "tui/view.h"

enum { C_PCT, C_GPU, C_EVENTS, C_CALLS, C_CPU, C_BAR, C_NAME };

static const struct col cols[] = {
	[C_PCT] = {"GPU%", 6, COL_RIGHT, 0},
	[C_GPU] = {"GPU time", 9, COL_RIGHT, 0},
	[C_EVENTS] = {"Kernels", 8, COL_RIGHT, 0},
	[C_CALLS] = {"Calls", 8, COL_RIGHT, 0},
	[C_CPU] = {"CPU time", 9, COL_RIGHT, 2},
	[C_BAR] = {"", 10, COL_BAR, 1},
	[C_NAME] = {"Op", 20, COL_FLEX | COL_ASC, 0},
};

static int ops_open(struct app *a, struct view *v)
{
	view_set_rows(v, tix_op_count(a->ix));
	return 0;
}

static double ops_share(struct app *a, struct view *v, uint32_t row)
{
	int64_t whole = tix_total_gpu_ns(a->ix);
	return whole > 0 ? (double)tix_op_get(a->ix, row)->gpu_ns / (double)whole : 0;
}

static const char *ops_cell(struct app *a, struct view *v, uint32_t row, int col, char *buf,
                            size_t cap)
{
	const struct tix_op *op = tix_op_get(a->ix, row);
	switch (col) {
	case C_PCT: return fmt_pct(op->gpu_ns, tix_total_gpu_ns(a->ix), buf, cap);
	case C_GPU: return fmt_dur(op->gpu_ns, buf, cap);
	case C_EVENTS: return fmt_count(op->gpu_events, buf, cap);
	case C_CALLS: return fmt_count(op->calls, buf, cap);
	case C_CPU: return fmt_dur(op->cpu_ns, buf, cap);
	case C_NAME: return tix_str(a->ix, op->name);
	}
	return "";
}

static int ops_cmp(struct app *a, struct view *v, uint32_t ra, uint32_t rb, int col)
{
	const struct tix_op *x = tix_op_get(a->ix, ra), *y = tix_op_get(a->ix, rb);
	switch (col) {
	case C_PCT:
	case C_GPU: return cmp_big_first(x->gpu_ns, y->gpu_ns);
	case C_EVENTS: return cmp_big_first(x->gpu_events, y->gpu_events);
	case C_CALLS: return cmp_big_first(x->calls, y->calls);
	case C_CPU: return cmp_big_first(x->cpu_ns, y->cpu_ns);
	case C_NAME: return strcmp(tix_str(a->ix, x->name), tix_str(a->ix, y->name));
	}
	return 0;
}

static const char *ops_text(struct app *a, struct view *v, uint32_t row, char *buf, size_t cap)
{
	return tix_str(a->ix, tix_op_get(a->ix, row)->name);
}

static int ops_enter(struct app *a, struct view *v, uint32_t row)
{
	struct view_args va = view_args_none();
	va.op = row;
	return app_push(a, &view_kernels_ops, &va) ? 0 : -1;
}

static uint32_t ops_hottest(struct app *a, struct view *v)
{
	uint32_t best = TIX_NONE;
	int64_t max = -1;
	for (uint32_t r = 0; r < v->nrows; r++)
		if (tix_op_get(a->ix, r)->gpu_ns > max) {
			max = tix_op_get(a->ix, r)->gpu_ns;
			best = r;
		}
	return best;
}

static void ops_crumb(struct app *a, struct view *v, char *buf, size_t cap)
{
	snprintf(buf, cap, "ops");
}

static void ops_context(struct app *a, struct view *v, struct ctx *c)
{
	c->op = view_cur_row(v);
}

static void ops_select(struct app *a, struct view *v, const struct ctx *c)
{
	if (c->op != TIX_NONE)
		view_goto_row(v, c->op);
}

static int ops_export(struct app *a, struct view *v, struct tix_export_sel *sel, char *path,
                      size_t cap, void **owned)
{
	uint32_t row = view_cur_row(v);
	if (row == TIX_NONE) {
		app_msg(a, "no op selected");
		return -1;
	}
	/* every launch of the kernels beneath the op (the index keeps which
	 * kernels, not which of their launches) */
	uint32_t n;
	const struct tix_op_group *og = tix_op_groups(a->ix, row, &n);
	size_t total = 0;
	for (uint32_t i = 0; i < n; i++)
		total += tix_group_get(a->ix, og[i].group)->members_count;
	uint32_t *rows = malloc((total ? total : 1) * sizeof *rows);
	if (!rows) {
		app_msg(a, "out of memory");
		return -1;
	}
	size_t k = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct tix_group *g = tix_group_get(a->ix, og[i].group);
		memcpy(rows + k, tix_members(a->ix, g->members_first, g->members_count),
		       g->members_count * sizeof *rows);
		k += g->members_count;
	}
	sel->rows = rows;
	sel->nrows = k;
	*owned = rows;
	snprintf(path, cap, "op%u", row);
	return 0;
}

/* p: the selected op's instances grouped by shape (view_launches.c) */
static int ops_request(struct app *a, struct view *v, enum req r)
{
	if (r != REQ_SHAPES)
		return 0;
	struct view_args va = view_args_none();
	struct view *s = app_push(a, &view_op_shapes_ops, &va);
	if (s) {
		char c[512];
		s->ops->crumb(a, s, c, sizeof c);
		app_msg(a, "%s", c);
	}
	return 1;
}

const struct view_ops view_ops_ops = {
	.request = ops_request,
	.name = "Ops",
	.rows_name = "ops",
	.kind = VK_OPS,
	.cols = cols,
	.ncols = sizeof cols / sizeof cols[0],
	.default_sort = C_GPU,
	.open = ops_open,
	.cell = ops_cell,
	.share = ops_share,
	.cmp = ops_cmp,
	.text = ops_text,
	.enter = ops_enter,
	.hottest = ops_hottest,
	.crumb = ops_crumb,
	.context = ops_context,
	.select = ops_select,
	.export_sel = ops_export,
};
