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

#include "tui/model.h"
#include "tui/view.h"

enum { C_NUM, C_NAME, C_START, C_WALL, C_BUSY, C_BUSYPCT, C_KERNELS, C_TOPPCT, C_BAR, C_TOP };

static const struct col cols[] = {
	[C_NUM] = {"#", 4, COL_RIGHT | COL_ASC, 0},
	[C_NAME] = {"Step", 16, COL_ASC | COL_FIT, 2},
	[C_START] = {"Start", 9, COL_RIGHT | COL_ASC, 4},
	[C_WALL] = {"Wall", 9, COL_RIGHT, 0},
	[C_BUSY] = {"GPU busy", 9, COL_RIGHT, 0},
	[C_BUSYPCT] = {"Busy%", 5, COL_RIGHT, 5},
	[C_KERNELS] = {"Kernels", 7, COL_RIGHT, 3},
	[C_TOPPCT] = {"Top%", 5, COL_RIGHT, 0},
	[C_BAR] = {"", 8, COL_BAR, 1},
	[C_TOP] = {"Top kernel", 22, COL_FLEX | COL_NAME | COL_ASC, 0},
};

struct steps {
	uint32_t nsteps;
	uint32_t before;        /* step id of "before the trace", TIX_NONE */
	int64_t wall, busy, gpu;
	int name_w;             /* widest step name, 0 until asked */
	uint64_t kernels;
};

static int steps_open(struct app *a, struct view *v)
{
	struct steps *p = calloc(1, sizeof *p);
	if (!p)
		return -1;
	p->nsteps = tix_step_count(a->ix);
	p->before = tix_step_before_trace(a->ix);
	for (uint32_t s = 0; s < p->nsteps; s++) {
		const struct tix_step *st = tix_step_get(a->ix, s);
		p->wall = tix_sat_add(p->wall, st->dur_ns);
		p->busy = tix_sat_add(p->busy, st->gpu_busy_ns);
		p->kernels += st->kernels;
	}
	if (p->before != TIX_NONE) { /* GPU work of the trace, though in no step */
		p->busy += tix_step_get(a->ix, p->before)->gpu_busy_ns;
		p->kernels += tix_step_get(a->ix, p->before)->kernels;
	}
	p->gpu = tix_total_gpu_ns(a->ix);
	v->priv = p;
	view_set_rows(v, p->nsteps + 1 + (p->before != TIX_NONE));
	return 0;
}

/* The step id of a row: TIX_NONE for the totals row. */
static uint32_t row_step(const struct view *v, uint32_t row)
{
	const struct steps *p = v->priv;
	if (row == 0)
		return TIX_NONE;
	if (p->before != TIX_NONE)
		return row == 1 ? p->before : row - 2;
	return row - 1;
}

static uint32_t step_row(const struct view *v, uint32_t step)
{
	const struct steps *p = v->priv;
	if (step == TIX_NONE)
		return 0;
	if (p->before != TIX_NONE)
		return step == p->before ? 1 : step + 2;
	return step + 1;
}

static void steps_close(struct view *v)
{
	free(v->priv);
}

/* The largest group of a row and its total, with the row's GPU time. */
static const struct tix_group *top_group(struct app *a, const struct view *v, uint32_t row,
                                         int64_t *whole)
{
	uint32_t s = row_step(v, row);
	if (s == TIX_NONE) {
		*whole = tix_total_gpu_ns(a->ix);
		return tix_group_count(a->ix) ? tix_group_get(a->ix, 0) : NULL;
	}
	uint32_t n;
	const struct tix_group *g = tix_step_groups(a->ix, s, &n);
	*whole = tix_step_get(a->ix, s)->gpu_ns;
	return n ? &g[0] : NULL;
}

static double steps_share(struct app *a, struct view *v, uint32_t row)
{
	int64_t whole;
	const struct tix_group *g = top_group(a, v, row, &whole);
	return g && whole > 0 ? (double)g->total_ns / (double)whole : 0;
}

static const char *steps_cell(struct app *a, struct view *v, uint32_t row, int col, char *buf,
                              size_t cap)
{
	struct steps *p = v->priv;
	uint32_t sid = row_step(v, row);
	const struct tix_step *st = sid != TIX_NONE ? tix_step_get(a->ix, sid) : NULL;
	int64_t wall = st ? st->dur_ns : p->wall;
	int64_t busy = st ? st->gpu_busy_ns : p->busy;
	switch (col) {
	case C_NUM:
		if (!st)
			return "all";
		if (sid == p->before)
			return "-";
		snprintf(buf, cap, "%u", sid);
		return buf;
	case C_NAME:
		if (!st) {
			snprintf(buf, cap, "%u steps", p->nsteps);
			return buf;
		}
		return tix_str(a->ix, st->name);
	case C_START: return st ? fmt_dur(app_rel(a, st->start_ns), buf, cap) : "";
	case C_WALL: return fmt_dur(wall, buf, cap);
	case C_BUSY: return fmt_dur(busy, buf, cap);
	case C_BUSYPCT: return fmt_pct(busy, wall, buf, cap);
	case C_KERNELS: return fmt_count(st ? st->kernels : p->kernels, buf, cap);
	case C_TOPPCT: {
		int64_t whole;
		const struct tix_group *g = top_group(a, v, row, &whole);
		return g ? fmt_pct(g->total_ns, whole, buf, cap) : "-";
	}
	case C_TOP: {
		int64_t whole;
		const struct tix_group *g = top_group(a, v, row, &whole);
		return g ? app_name(a, g->name, buf, cap) : "(no GPU work)";
	}
	}
	return "";
}

static int64_t steps_key(struct app *a, const struct view *v, uint32_t row, int col)
{
	const struct tix_step *st = tix_step_get(a->ix, row_step(v, row));
	switch (col) {
	case C_WALL: return st->dur_ns;
	case C_BUSY: return st->gpu_busy_ns;
	case C_BUSYPCT: return st->dur_ns ? st->gpu_busy_ns * 10000 / st->dur_ns : 0;
	case C_KERNELS: return st->kernels;
	case C_TOPPCT: return (int64_t)(steps_share(a, (struct view *)v, row) * 1e6);
	}
	return 0;
}

static int steps_width(struct app *a, struct view *v, int col)
{
	struct steps *p = v->priv;
	if (!p->name_w) /* once: the steps are at most a few thousand */
		for (uint32_t s = 0; s < p->nsteps; s++) {
			int w = text_width(a, tix_str(a->ix, tix_step_get(a->ix, s)->name));
			if (w > p->name_w)
				p->name_w = w;
		}
	return col == C_NAME ? p->name_w : 0;
}

static int steps_cmp(struct app *a, struct view *v, uint32_t ra, uint32_t rb, int col)
{
	switch (col) {
	case C_NUM:
	case C_START: return cmp_small_first(ra, rb);
	case C_NAME:
		return strcmp(tix_str(a->ix, tix_step_get(a->ix, row_step(v, ra))->name),
		              tix_str(a->ix, tix_step_get(a->ix, row_step(v, rb))->name));
	case C_TOP: {
		char x[512], y[512];
		int64_t w;
		const struct tix_group *ga = top_group(a, v, ra, &w), *gb = top_group(a, v, rb, &w);
		return strcmp(ga ? app_name(a, ga->name, x, sizeof x) : "",
		              gb ? app_name(a, gb->name, y, sizeof y) : "");
	}
	}
	return cmp_big_first(steps_key(a, v, ra, col), steps_key(a, v, rb, col));
}

static const char *steps_text(struct app *a, struct view *v, uint32_t row, char *buf, size_t cap)
{
	char name[512];
	int64_t w;
	const struct tix_group *g = top_group(a, v, row, &w);
	snprintf(buf, cap, "%s %s", row ? tix_str(a->ix, tix_step_get(a->ix, row_step(v, row))->name) : "all",
	         g ? app_name(a, g->name, name, sizeof name) : "");
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
	struct steps *p = v->priv;
	uint32_t best = TIX_NONE;
	int64_t max = -1;
	for (uint32_t s = 0; s < p->nsteps; s++) {
		int64_t d = tix_step_get(a->ix, s)->dur_ns;
		if (d > max) {
			max = d;
			best = step_row(v, s);
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
	.cols = cols,
	.ncols = sizeof cols / sizeof cols[0],
	.default_sort = -1,
	.pinned = 1,
	.open = steps_open,
	.close = steps_close,
	.cell = steps_cell,
	.share = steps_share,
	.cmp = steps_cmp,
	.width = steps_width,
	.text = steps_text,
	.enter = steps_enter,
	.hottest = steps_hottest,
	.context = steps_context,
	.select = steps_select,
	.export_sel = steps_export,
};
