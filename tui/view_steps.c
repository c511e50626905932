/*
 * Steps, the home view: one row per step (ProfilerStep#N, SGLang/vLLM step
 * markers, or the one implicit step) and a totals row on top.  Row 0 is the
 * totals row; then, when the trace has GPU work launched before its CPU
 * window, a "before the trace" row (as it came first in time); then the
 * steps in order.  row_step() maps a row to its step id.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/view.h"

/* The step id of a row (TIX_NONE for the totals row) and back. */
static uint32_t row_step(const struct view *v, uint32_t row)
{
	struct tix_view_ref r;
	tix_view_ref(v->model, row, &r);
	return r.step;
}

static uint32_t step_row(const struct view *v, uint32_t step)
{
	for (uint32_t r = 0; r < v->nrows; r++)
		if (row_step(v, r) == step)
			return r;
	return 0;
}

static int steps_open(struct app *a, struct view *v)
{
	return view_open_model(a, v, TIX_VIEW_STEPS);
}

static const char *steps_text(struct app *a, struct view *v, uint32_t row, char *buf, size_t cap)
{
	char name[512], top[512];
	const char *sn = tix_view_text(v->model, row, tix_view_col_by_key(TIX_VIEW_STEPS, "name"), NULL,
	                               name, sizeof name);
	const char *tk = model_cell(a, v, row, tix_view_col_by_key(TIX_VIEW_STEPS, "top_kernel"), top,
	                            sizeof top);
	snprintf(buf, cap, "%s %s", row ? sn : "all", tk);
	return buf;
}

static int steps_enter(struct app *a, struct view *v, uint32_t row)
{
	struct view_args va = view_args_none();
	va.step = row_step(v, row);
	return app_push(a, &view_kernels_ops, &va) ? 0 : -1;
}

static uint32_t steps_hottest(struct app *a, struct view *v)
{
	uint32_t best = TIX_NONE;
	int64_t max = -1;
	for (uint32_t r = 1; r < v->nrows; r++) {
		struct tix_cell c;
		tix_view_cell(v->model, r, tix_view_col_by_key(TIX_VIEW_STEPS, "wall_ns"), &c);
		if (row_step(v, r) != tix_step_before_trace(a->ix) && c.i > max) {
			max = c.i;
			best = r;
		}
	}
	return best;
}

static void steps_context(struct app *a, struct view *v, struct ctx *c)
{
	uint32_t row = view_cur_row(v);
	c->step = row == TIX_NONE ? TIX_NONE : row_step(v, row);
}

static void steps_select(struct app *a, struct view *v, const struct ctx *c)
{
	view_goto_row(v, step_row(v, c->step));
}

static int steps_export(struct app *a, struct view *v, struct tix_export_sel *sel, char *path,
                        size_t cap, void **owned)
{
	uint32_t row = view_cur_row(v);
	if (row == TIX_NONE || row == 0) {
		snprintf(path, cap, "all");
		return 0;
	}
	sel->has_step = 1;
	sel->step = row_step(v, row);
	if (sel->step == tix_step_before_trace(a->ix))
		snprintf(path, cap, "before-trace");
	else
		snprintf(path, cap, "step%u", sel->step);
	return 0;
}

const struct view_ops view_steps_ops = {
	.name = "Steps",
	.rows_name = "rows",
	.kind = VK_STEPS,
	.default_sort = -1,
	.pinned = 1,
	.open = steps_open,
	.cell = model_cell,
	.share = model_share,
	.cmp = model_cmp,
	.width = model_width,
	.text = steps_text,
	.enter = steps_enter,
	.hottest = steps_hottest,
	.context = steps_context,
	.select = steps_select,
	.export_sel = steps_export,
};
