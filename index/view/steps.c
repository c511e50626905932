/*
 * Steps: a totals row, then (when the trace has GPU work launched before
 * its CPU window) a "before the trace" row, as it came first in time, then
 * the steps in order.  A step's Top kernel is its largest kernel (copies
 * and memsets are not kernels), and Top% is that kernel's share of the
 * step's GPU time: the Time% the same kernel has in the step's Kernels view.
 * Wall is the step's CPU window; GPU span runs from the first GPU work
 * launched in the step to the end of the last, and may be the longer of the
 * two (vLLM: the GPU runs on after the CPU has launched everything).  Busy%
 * is GPU busy over the longer, so it never passes 100.
 */
#include "index/view/view_int.h"

#include <stdio.h>
#include <stdlib.h>

enum { C_NUM, C_NAME, C_START, C_WALL, C_SPAN, C_BUSY, C_BUSYPCT, C_KERNELS, C_TOPPCT, C_BAR, C_TOP,
       C_START_NS, C_GPU, C_KERNEL_NS, C_GPU_EVENTS, C_TOP_NS };

static const struct tix_col cols[] = {
	[C_NUM] = {"#", 4, TIX_COL_RIGHT | TIX_COL_ASC, 0, "index", TIX_UNIT_INT},
	[C_NAME] = {"Step", 16, TIX_COL_ASC | TIX_COL_FIT, 2, "name", TIX_UNIT_TEXT},
	[C_START] = {"Start", 10, TIX_COL_RIGHT | TIX_COL_ASC, 4, "offset_ns", TIX_UNIT_TIME},
	[C_WALL] = {"Wall", 9, TIX_COL_RIGHT, 0, "wall_ns", TIX_UNIT_DUR},
	[C_SPAN] = {"GPU span", 9, TIX_COL_RIGHT, 3, "gpu_span_ns", TIX_UNIT_DUR},
	[C_BUSY] = {"GPU busy", 9, TIX_COL_RIGHT, 0, "gpu_busy_ns", TIX_UNIT_DUR},
	[C_BUSYPCT] = {"Busy%", 5, TIX_COL_RIGHT, 5, "busy_pct", TIX_UNIT_PCT},
	[C_KERNELS] = {"Kernels", 7, TIX_COL_RIGHT, 3, "kernels", TIX_UNIT_COUNT},
	[C_TOPPCT] = {"Top%", 5, TIX_COL_RIGHT, 0, "top_pct", TIX_UNIT_PCT},
	[C_BAR] = {"", 8, TIX_COL_BAR, 1, NULL, TIX_UNIT_BAR},
	[C_TOP] = {"Top kernel", 22, TIX_COL_FLEX | TIX_COL_NAME | TIX_COL_ASC, 0, "top_kernel", TIX_UNIT_NAME},
	[C_START_NS] = {"Start (trace clock)", 0, TIX_COL_DATA | TIX_COL_ASC, 0, "start_ns", TIX_UNIT_INT},
	[C_GPU] = {"GPU time", 0, TIX_COL_DATA, 0, "gpu_ns", TIX_UNIT_DUR},
	[C_KERNEL_NS] = {"Kernel time", 0, TIX_COL_DATA, 0, "kernel_ns", TIX_UNIT_DUR},
	[C_GPU_EVENTS] = {"GPU events", 0, TIX_COL_DATA, 0, "gpu_events", TIX_UNIT_COUNT},
	[C_TOP_NS] = {"Top time", 0, TIX_COL_DATA, 0, "top_ns", TIX_UNIT_DUR},
};

/* What the columns mean, for `?` (docs/TUI.md and docs/CLI.md say the same). */
static const char *const what[sizeof cols / sizeof cols[0]] = {
	[C_WALL] = "the step's CPU window: its marker's duration",
	[C_SPAN] = "the first GPU work's start to the last one's end (may outlast Wall)",
	[C_BUSY] = "the union of the GPU work launched in the step",
	[C_BUSYPCT] = "GPU busy over the longer of Wall and GPU span, so never above 100",
	[C_TOPPCT] = "the Top kernel's share of the step's GPU time",
};

/* A row's figures: a step's, or (the totals row) the trace's. */
struct figures {
	const struct tix_step *st;   /* NULL: the totals row */
	int64_t wall, span, busy, gpu, kernel_ns;
	uint64_t kernels, gpu_events;
	const struct tix_group *top; /* the largest kernel group, or NULL */
};

struct steps {
	uint32_t nsteps;
	uint32_t before;             /* step id of "before the trace", TIX_NONE */
	struct figures *rows;        /* per row, computed at open: a few thousand at most */
	char totals_name[32];
};

/* The step id of a row: TIX_NONE for the totals row. */
static uint32_t row_step(const struct steps *p, uint32_t row)
{
	if (row == 0)
		return TIX_NONE;
	if (p->before != TIX_NONE)
		return row == 1 ? p->before : row - 2;
	return row - 1;
}

static void largest_kernel(const struct tix_group *g, uint32_t n, struct figures *f)
{
	for (uint32_t i = 0; i < n; i++) {
		if (g[i].kind != TIX_KIND_KERNEL)
			continue;
		f->kernel_ns = tix_sat_add(f->kernel_ns, g[i].total_ns);
		if (!f->top) /* groups come ranked by total */
			f->top = &g[i];
	}
}

/* From the first GPU work of the step's groups to the end of the last;
 * -1 when it ran none. */
static int64_t gpu_span(const struct tix_index *ix, const struct tix_group *g, uint32_t n)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (uint32_t i = 0; i < n; i++) {
		const uint32_t *m = tix_members(ix, g[i].members_first, g[i].members_count);
		for (uint32_t k = 0; m && k < g[i].members_count; k++) {
			struct tix_event e;
			tix_event_get(ix, m[k], &e);
			lo = e.start_ns < lo ? e.start_ns : lo;
			hi = tix_sat_add(e.start_ns, e.dur_ns) > hi ? tix_sat_add(e.start_ns, e.dur_ns) : hi;
		}
	}
	return lo <= hi ? hi - lo : -1;
}

/* GPU busy over the longer of the CPU wall and the GPU span. */
static void busy_pct(struct tix_cell *c, const struct figures *f)
{
	cell_pct(c, f->busy, f->span > f->wall ? f->span : f->wall);
}

static int steps_open(struct tix_view *v, struct tix_error *err)
{
	struct steps *p = calloc(1, sizeof *p);
	struct tix_index *ix = v->ix;
	if (!p)
		return tix_error_oom(err, tix_index_path(v->ix));
	p->nsteps = tix_step_count(ix);
	p->before = tix_step_before_trace(ix);
	v->nrows = p->nsteps + 1 + (p->before != TIX_NONE);
	p->rows = calloc(v->nrows, sizeof *p->rows);
	if (!p->rows) {
		free(p);
		return tix_error_oom(err, tix_index_path(v->ix));
	}
	struct figures *all = &p->rows[0];
	for (uint32_t r = 1; r < v->nrows; r++) {
		uint32_t s = row_step(p, r), n;
		struct figures *f = &p->rows[r];
		f->st = tix_step_get(ix, s);
		f->wall = f->st->dur_ns;
		f->busy = f->st->gpu_busy_ns;
		f->gpu = f->st->gpu_ns;
		f->kernels = f->st->kernels;
		f->gpu_events = f->st->gpu_events;
		const struct tix_group *g = tix_step_groups(ix, s, &n);
		largest_kernel(g, n, f);
		f->span = gpu_span(ix, g, n);
		if (f->span > 0)
			all->span = tix_sat_add(all->span, f->span);
		/* the totals: wall over the steps; GPU work of the whole trace,
		 * the work launched before it included */
		if (s != p->before)
			all->wall = tix_sat_add(all->wall, f->wall);
		all->busy = tix_sat_add(all->busy, f->busy);
		all->kernels += f->kernels;
		all->gpu_events += f->gpu_events;
	}
	all->gpu = tix_total_gpu_ns(ix);
	uint32_t ng = tix_group_count(ix);
	largest_kernel(ng ? tix_group_get(ix, 0) : NULL, ng, all);
	snprintf(p->totals_name, sizeof p->totals_name, "%u step%s", p->nsteps, p->nsteps == 1 ? "" : "s");
	v->pinned = 1;
	v->priv = p;
	return 0;
}

static void steps_close(struct tix_view *v)
{
	struct steps *p = v->priv;
	free(p->rows);
	free(p);
}

static void steps_cell(const struct tix_view *v, uint32_t row, int col, struct tix_cell *c)
{
	const struct steps *p = v->priv;
	const struct figures *f = &p->rows[row];
	uint32_t sid = row_step(p, row);
	switch (col) {
	case C_NUM:
		if (!f->st)
			c->s = "all";
		else if (sid != p->before)
			cell_int(c, sid);
		return;
	case C_NAME:
		c->known = 1;
		c->s = f->st ? tix_str(v->ix, f->st->name) : p->totals_name;
		return;
	case C_START:
		if (f->st)
			cell_int(c, f->st->start_ns - v->first_ns);
		else
			c->s = "";
		return;
	case C_START_NS:
		if (f->st)
			cell_int(c, f->st->start_ns);
		return;
	case C_WALL: cell_int(c, f->wall); return;
	case C_SPAN: cell_maybe(c, f->span); return;
	case C_BUSY: cell_int(c, f->busy); return;
	case C_BUSYPCT: busy_pct(c, f); return;
	case C_KERNELS: cell_int(c, (int64_t)f->kernels); return;
	case C_GPU: cell_int(c, f->gpu); return;
	case C_KERNEL_NS: cell_int(c, f->kernel_ns); return;
	case C_GPU_EVENTS: cell_int(c, (int64_t)f->gpu_events); return;
	case C_TOPPCT:
		if (f->top)
			cell_pct(c, f->top->total_ns, f->gpu);
		return;
	case C_TOP_NS:
		if (f->top)
			cell_int(c, f->top->total_ns);
		return;
	case C_TOP:
		if (f->top)
			cell_int(c, f->top->name);
		else
			c->s = "(no kernels)";
		return;
	}
}

static double steps_share(const struct tix_view *v, uint32_t row)
{
	const struct figures *f = &((const struct steps *)v->priv)->rows[row];
	return f->top && f->gpu > 0 ? (double)f->top->total_ns / (double)f->gpu : 0;
}

static void steps_ref(const struct tix_view *v, uint32_t row, struct tix_view_ref *out)
{
	const struct steps *p = v->priv;
	out->step = row_step(p, row);
	out->group = p->rows[row].top ? p->rows[row].top->group : TIX_NONE;
}

const struct view_kind_ops view_steps_kind = {
	.cols = cols,
	.ncols = sizeof cols / sizeof cols[0],
	.rank_col = C_WALL,
	.what = what,
	.open = steps_open,
	.close = steps_close,
	.cell = steps_cell,
	.share = steps_share,
	.ref = steps_ref,
};
