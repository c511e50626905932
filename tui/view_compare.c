/*
 * Compare: two open traces side by side (tix --diff BASE NEW, or D with two
 * traces open), by kernel, CPU op, step or shape, as `tix diff` prints them:
 * the rows of the model's compare views (index/view/view.h), a header line
 * with the per-step wall, GPU busy and kernel time of both sides, and the
 * change columns coloured by their sign.  Enter drills: a step into its
 * kernels, a kernel into its launches on both sides (a summary row per side,
 * then each side's launches with grid and Input Dims), a launch into its
 * detail on its own trace (Backspace comes back).
 *
 * The view sits on the base trace's stack; 1, 2, 5, p and 7 switch what is
 * compared (steps, kernels, ops, shapes, the base's findings with what the
 * new trace saved of each), Tab cycles through them.  Enter on a finding
 * compares the launches of its kernel on both sides.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/table.h"
#include "tui/view.h"

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static int compare_open(struct app *a, struct view *v)
{
	if (v->args.other < 0 || v->args.other >= a->ntraces || v->args.other == a->cur) {
		app_msg(a, "compare: no second trace");
		return -1;
	}
	struct tix_compare_scope sc = {v->args.step, {v->args.group, v->args.group_new}};
	struct tix_error err;
	v->model = tix_view_compare(a->ix, a->traces[v->args.other].ix, (enum tix_view_kind)v->args.by, &sc, &err);
	if (!v->model) {
		app_msg(a, "compare: %s", err.msg);
		return -1;
	}
	v->cols = tix_view_columns(v->model, &v->ncols);
	view_set_rows(v, tix_view_rows(v->model));
	return 0;
}

struct view *app_compare(struct app *a, int other, int kind, uint32_t step)
{
	struct view_args va = view_args_none();
	va.other = other;
	va.by = kind;
	va.step = kind == TIX_VIEW_CMP_KERNELS || kind == TIX_VIEW_CMP_FINDINGS ? step : TIX_NONE;
	return app_push(a, &view_compare_ops, &va);
}

static const char *compare_text(struct app *a, struct view *v, uint32_t row, char *buf, size_t cap)
{
	int col = tix_view_col(v->model, "name");
	if (v->args.by == TIX_VIEW_CMP_LAUNCHES)
		col = tix_view_col(v->model, "launched_by");
	else if (v->args.by == TIX_VIEW_CMP_FINDINGS)
		col = tix_view_col(v->model, "title");
	struct tix_view_fmt full = {1, TIX_TU_AUTO};
	const char *name = tix_view_text(v->model, row, col, &full, buf, cap);
	if (v->args.by != TIX_VIEW_CMP_SHAPES)
		return name;
	char dims[512];
	snprintf(dims, sizeof dims, "%s", tix_view_text(v->model, row, tix_view_col(v->model, "input_dims"),
	                                               NULL, dims, sizeof dims));
	size_t n = strlen(buf);
	if (n + 1 < cap)
		snprintf(buf + n, cap - n, " %s", dims);
	return buf;
}

static int compare_enter(struct app *a, struct view *v, uint32_t row)
{
	struct tix_view_ref ref;
	struct tix_compare_ref cr;
	tix_view_ref(v->model, row, &ref);
	tix_compare_ref(v->model, row, &cr);
	switch (v->args.by) {
	case TIX_VIEW_CMP_STEPS:
		return app_compare(a, v->args.other, TIX_VIEW_CMP_KERNELS, ref.step) ? 0 : -1;
	case TIX_VIEW_CMP_KERNELS: {
		struct view_args va = v->args;
		va.by = TIX_VIEW_CMP_LAUNCHES;
		va.group = cr.group[0];
		va.group_new = cr.group[1];
		return app_push(a, &view_compare_ops, &va) ? 0 : -1;
	}
	case TIX_VIEW_CMP_LAUNCHES: {
		if (cr.event == TIX_NONE) {
			app_msg(a, "a side's summary: Enter on one of its launches opens it");
			return -1;
		}
		/* the launch's detail, on its own trace: [ and ] come back here */
		int side_trace = cr.side ? v->args.other : a->cur;
		int back = a->cur;
		if (side_trace != a->cur)
			app_set_trace(a, side_trace);
		struct view_args va = view_args_none();
		va.row = cr.event;
		va.group = cr.group[cr.side];
		va.from_trace = side_trace != back ? back : -1;
		if (!app_push(a, &view_detail_ops, &va)) {
			app_set_trace(a, back);
			return -1;
		}
		if (side_trace != back)
			app_msg(a, "the new trace's launch: Backspace goes back to the compare");
		return 0;
	}
	case TIX_VIEW_CMP_FINDINGS: {
		/* a finding about a kernel: that kernel's launches, side by side */
		struct tix_view_ref fr;
		tix_view_ref(v->model, row, &fr);
		const struct tix_group *g = fr.group != TIX_NONE ? tix_group_get(a->ix, fr.group) : NULL;
		if (!g) {
			app_msg(a, "this finding is about idle time or communication: no kernel to compare");
			return -1;
		}
		const struct tix_index *nw = a->traces[v->args.other].ix;
		uint32_t other = TIX_NONE;
		const char *name = tix_str(a->ix, g->name);
		for (uint32_t i = 0; i < tix_group_count(nw) && other == TIX_NONE; i++) {
			const struct tix_group *h = tix_group_get(nw, i);
			if (h->kind == g->kind && !strcmp(tix_str(nw, h->name), name))
				other = i;
		}
		struct view_args va = v->args;
		va.by = TIX_VIEW_CMP_LAUNCHES;
		va.group = fr.group;
		va.group_new = other;
		va.step = TIX_NONE;
		return app_push(a, &view_compare_ops, &va) ? 0 : -1;
	}
	default:
		app_msg(a, "nothing to open: compare by kernel (2) to drill into launches");
		return -1;
	}
}

static void compare_crumb(struct app *a, struct view *v, char *buf, size_t cap)
{
	static const char *const what[] = {[TIX_VIEW_CMP_KERNELS] = "kernels", [TIX_VIEW_CMP_OPS] = "ops",
	                                   [TIX_VIEW_CMP_STEPS] = "steps", [TIX_VIEW_CMP_SHAPES] = "shapes",
	                                   [TIX_VIEW_CMP_LAUNCHES] = "launches",
	                                   [TIX_VIEW_CMP_FINDINGS] = "the base's findings, what NEW saved"};
	int by = v->args.by >= TIX_VIEW_CMP_KERNELS && v->args.by <= TIX_VIEW_CMP_FINDINGS ? v->args.by
	                                                                                 : TIX_VIEW_CMP_KERNELS;
	char step[32] = "";
	if (v->args.step != TIX_NONE)
		snprintf(step, sizeof step, ", step %u", v->args.step);
	if (by == TIX_VIEW_CMP_LAUNCHES) {
		char name[256];
		struct tix_view_fmt f = {0, TIX_TU_AUTO};
		snprintf(buf, cap, "launches of %s%s",
		         tix_view_text(v->model, 0, tix_view_col(v->model, "name"), &f, name, sizeof name), step);
		return;
	}
	snprintf(buf, cap, "vs %s: %s%s", base_name(a->traces[v->args.other].t->path), what[by], step);
}

/* What is compared, switched in place: the compare views above the first
 * one go, and the new one takes its place. */
static void compare_switch(struct app *a, struct view *v, int by)
{
	int other = v->args.other;
	uint32_t step = by == TIX_VIEW_CMP_KERNELS || by == TIX_VIEW_CMP_FINDINGS ? v->args.step : TIX_NONE;
	while (app_top(a)->ops == &view_compare_ops && a->traces[a->cur].depth > 1)
		app_pop(a);
	app_compare(a, other, by, step);
}

static int compare_request(struct app *a, struct view *v, enum req r)
{
	static const int cycle[] = {TIX_VIEW_CMP_STEPS, TIX_VIEW_CMP_KERNELS, TIX_VIEW_CMP_OPS,
	                            TIX_VIEW_CMP_SHAPES, TIX_VIEW_CMP_FINDINGS};
	enum { NCYCLE = sizeof cycle / sizeof cycle[0] };
	switch (r) {
	case REQ_VIEW_STEPS: compare_switch(a, v, TIX_VIEW_CMP_STEPS); return 1;
	case REQ_VIEW_KERNELS: compare_switch(a, v, TIX_VIEW_CMP_KERNELS); return 1;
	case REQ_VIEW_OPS: compare_switch(a, v, TIX_VIEW_CMP_OPS); return 1;
	case REQ_SHAPES: compare_switch(a, v, TIX_VIEW_CMP_SHAPES); return 1;
	case REQ_VIEW_FINDINGS: compare_switch(a, v, TIX_VIEW_CMP_FINDINGS); return 1;
	case REQ_NEXT_VIEW:
	case REQ_PREV_VIEW: {
		int i = 0;
		while (i < NCYCLE && cycle[i] != v->args.by)
			i++;
		i = i == NCYCLE ? 1 : (i + (r == REQ_NEXT_VIEW ? 1 : NCYCLE - 1)) % NCYCLE;
		compare_switch(a, v, cycle[i]);
		return 1;
	}
	case REQ_VIEW_LAUNCHES:
	case REQ_VIEW_DETAIL:
	case REQ_VIEW_TIMELINE:
		app_msg(a, "comparing: 1 steps, 2 kernels, 5 ops, p shapes, 7 findings; Enter drills; Backspace leaves");
		return 1;
	case REQ_COMPARE:
		app_msg(a, "already comparing: Backspace leaves the compare");
		return 1;
	case REQ_EXPORT:
		app_msg(a, "export works on one trace: leave the compare (Backspace) first");
		return 1;
	default: return 0;
	}
}

/* The header line (per-step totals of both sides), then the table. */
static void compare_draw(struct app *a, struct view *v, int y0, int h)
{
	struct tix_compare_totals t;
	tix_compare_totals(v->model, &t);
	char w[2][32], b[2][32], line[512];
	for (int k = 0; k < 2; k++) {
		tix_fmt_dur((int64_t)t.per_step_wall_ns[k], w[k], sizeof w[k]);
		tix_fmt_dur((int64_t)t.per_step_gpu_busy_ns[k], b[k], sizeof b[k]);
	}
	double dw = t.per_step_wall_ns[0] > 0 ? 100.0 * (t.per_step_wall_ns[1] - t.per_step_wall_ns[0]) / t.per_step_wall_ns[0] : 0;
	double db = t.per_step_gpu_busy_ns[0] > 0
	                    ? 100.0 * (t.per_step_gpu_busy_ns[1] - t.per_step_gpu_busy_ns[0]) / t.per_step_gpu_busy_ns[0]
	                    : 0;
	/* the traces are named in the breadcrumb; the figures are never cut:
	 * a line too wide for the screen is two */
	snprintf(line, sizeof line, "per step: wall %s -> %s (%+.1f%%), GPU busy %s -> %s (%+.1f%%)", w[0], w[1],
	         dw, b[0], b[1], db);
	int nl = 0;
	if (text_width(a, line) <= COLS) {
		draw_text(a, y0 + nl++, 0, COLS, line, 1);
	} else {
		snprintf(line, sizeof line, "per step: wall %s -> %s (%+.1f%%),", w[0], w[1], dw);
		draw_text(a, y0 + nl++, 0, COLS, line, 1);
		snprintf(line, sizeof line, "          GPU busy %s -> %s (%+.1f%%)", b[0], b[1], db);
		draw_text(a, y0 + nl++, 0, COLS, line, 1);
	}
	/* different step counts: a line of its own, as tix diff prints it */
	char note[256];
	if (*tix_compare_note(v->model, note, sizeof note))
		draw_text(a, y0 + nl++, 0, COLS, note, 1);
	table_draw(a, v, y0 + nl, h - nl);
}

static void compare_context(struct app *a, struct view *v, struct ctx *c)
{
	c->step = v->args.step;
}

const struct view_ops view_compare_ops = {
	.name = "Compare",
	.rows_name = "rows",
	.kind = VK_COMPARE,
	.default_sort = -1,
	.open = compare_open,
	.cell = model_cell,
	.cmp = model_cmp,
	.text = compare_text,
	.enter = compare_enter,
	.crumb = compare_crumb,
	.request = compare_request,
	.draw = compare_draw,
	.context = compare_context,
	.width = model_width,
};
