/*
 * Ops: CPU op names ranked by the GPU time launched beneath them (the index
 * keeps them ranked); Enter lists the kernels beneath the selected op.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/view.h"

static int ops_open(struct app *a, struct view *v)
{
	v->sort_col = tix_view_col_by_key(TIX_VIEW_OPS, "gpu_ns"); /* marked, as ranked */
	return view_open_model(a, v, TIX_VIEW_OPS);
}

/* The op rank of a row: TIX_NONE for an op that captured a CUDA graph in
 * a capture trace (it ran there, not here). */
static uint32_t row_op(const struct view *v, uint32_t row)
{
	struct tix_view_ref r;
	tix_view_ref(v->model, row, &r);
	return r.op;
}

uint32_t view_ops_selected(const struct view *v)
{
	uint32_t row = view_cur_row(v);
	return row == TIX_NONE ? TIX_NONE : row_op(v, row);
}

static const char *ops_text(struct app *a, struct view *v, uint32_t row, char *buf, size_t cap)
{
	return tix_view_text(v->model, row, tix_view_col_by_key(TIX_VIEW_OPS, "name"), NULL, buf, cap);
}

static int ops_enter(struct app *a, struct view *v, uint32_t row)
{
	struct view_args va = view_args_none();
	va.op = row_op(v, row);
	va.step = v->args.step; /* the op's kernels in the step it was chosen in */
	if (va.op == TIX_NONE) {
		app_msg(a, "a captured op: its kernels were replayed from a CUDA graph (see the launches' detail)");
		return -1;
	}
	return app_push(a, &view_kernels_ops, &va) ? 0 : -1;
}

static uint32_t ops_hottest(struct app *a, struct view *v)
{
	return v->nrows ? 0 : TIX_NONE; /* the model ranks them by GPU time */
}

static void ops_crumb(struct app *a, struct view *v, char *buf, size_t cap)
{
	if (v->args.step != TIX_NONE)
		snprintf(buf, cap, "ops of step %u", v->args.step);
	else
		snprintf(buf, cap, "ops");
}

static void ops_context(struct app *a, struct view *v, struct ctx *c)
{
	c->op = view_ops_selected(v);
}

static void ops_select(struct app *a, struct view *v, const struct ctx *c)
{
	for (uint32_t r = 0; c->op != TIX_NONE && r < v->nrows; r++)
		if (row_op(v, r) == c->op) {
			view_goto_row(v, r);
			return;
		}
}

static int ops_export(struct app *a, struct view *v, struct tix_export_sel *sel, char *path,
                      size_t cap, void **owned)
{
	uint32_t row = view_ops_selected(v);
	if (row == TIX_NONE) {
		app_msg(a, view_cur_row(v) == TIX_NONE ? "no op selected" : "a captured op: export its kernels from the Kernels view");
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
	.default_sort = -1, /* GPU time, set at open (the model's column) */
	.open = ops_open,
	.cell = model_cell,
	.share = model_share,
	.cmp = model_cmp,
	.text = ops_text,
	.enter = ops_enter,
	.hottest = ops_hottest,
	.crumb = ops_crumb,
	.context = ops_context,
	.select = ops_select,
	.export_sel = ops_export,
};
