/*
 * Kernels: the GPU work groups (one name and kind) of a step, of all steps,
 * or launched beneath one CPU op, with the columns of `nsys stats`.  The
 * index keeps the groups ranked by total time, so the natural order is the
 * ranking and nothing is computed here but what is on screen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/view.h"

static int kernels_open(struct app *a, struct view *v)
{
	v->sort_col = tix_view_col_by_key(TIX_VIEW_KERNELS, "total_ns"); /* marked, as ranked */
	return view_open_model(a, v, TIX_VIEW_KERNELS);
}

/* The overall group of a row. */
static uint32_t row_group(const struct view *v, uint32_t row)
{
	struct tix_view_ref r;
	tix_view_ref(v->model, row, &r);
	return r.group;
}

static const char *kernels_text(struct app *a, struct view *v, uint32_t row, char *buf, size_t cap)
{
	/* the full name, so a search finds template arguments too */
	return tix_str(a->ix, tix_group_get(a->ix, row_group(v, row))->name);
}

static int kernels_enter(struct app *a, struct view *v, uint32_t row)
{
	struct view_args va = view_args_none();
	va.step = v->args.step;
	va.op = v->args.op; /* under an op: only its launches */
	va.group = row_group(v, row);
	return app_push(a, &view_launches_ops, &va) ? 0 : -1;
}

static uint32_t kernels_hottest(struct app *a, struct view *v)
{
	return v->nrows ? 0 : TIX_NONE; /* the model ranks them by total */
}

static void kernels_crumb(struct app *a, struct view *v, char *buf, size_t cap)
{
	if (v->args.op != TIX_NONE && v->args.step != TIX_NONE)
		snprintf(buf, cap, "%s in step %u", tix_str(a->ix, tix_op_get(a->ix, v->args.op)->name), v->args.step);
	else if (v->args.op != TIX_NONE)
		snprintf(buf, cap, "%s", tix_str(a->ix, tix_op_get(a->ix, v->args.op)->name));
	else if (v->args.step != TIX_NONE)
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
		c->group = row_group(v, row);
}

static void kernels_select(struct app *a, struct view *v, const struct ctx *c)
{
	if (c->group == TIX_NONE)
		return;
	for (uint32_t r = 0; r < v->nrows; r++)
		if (row_group(v, r) == c->group) {
			view_goto_row(v, r);
			return;
		}
}

static int kernels_export(struct app *a, struct view *v, struct tix_export_sel *sel, char *path,
                          size_t cap, void **owned)
{
	uint32_t row = view_cur_row(v);
	if (row == TIX_NONE) {
		app_msg(a, "no kernel selected");
		return -1;
	}
	/* under an op: the kernel's launches overall (the index does not keep
	 * which of them ran beneath the op) */
	const struct tix_group *g = tix_group_get(a->ix, row_group(v, row));
	if (v->args.step != TIX_NONE) {
		uint32_t n;
		const struct tix_group *sg = tix_step_groups(a->ix, v->args.step, &n);
		for (uint32_t i = 0; i < n; i++)
			if (sg[i].group == g->group)
				g = &sg[i];
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
	.default_sort = -1, /* Total, set at open (the model's column) */
	.open = kernels_open,
	.cell = model_cell,
	.share = model_share,
	.cmp = model_cmp,
	.text = kernels_text,
	.enter = kernels_enter,
	.hottest = kernels_hottest,
	.crumb = kernels_crumb,
	.context = kernels_context,
	.select = kernels_select,
	.export_sel = kernels_export,
};
