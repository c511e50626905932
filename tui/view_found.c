/*
 * Found (F): every event of the trace whose name matches a pattern, in time
 * order, with its step and lane.  The search matches each distinct event
 * name once and reads only the events of the names that matched
 * (tix_find_by_name), so it costs the hits, not the trace.  Enter opens a
 * GPU event's detail, or the timeline at a CPU event.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/table.h"
#include "tui/view.h"

enum { C_STEP, C_LANE, C_START, C_DUR, C_KIND, C_NAME };

static const struct tix_col cols[] = {
	[C_STEP] = {"Step", 5, TIX_COL_RIGHT | TIX_COL_ASC, 0, NULL, TIX_UNIT_TEXT},
	[C_LANE] = {"Lane", 18, TIX_COL_ASC, 2, NULL, TIX_UNIT_TEXT},
	[C_START] = {"Start", 10, TIX_COL_RIGHT | TIX_COL_ASC, 0, NULL, TIX_UNIT_TEXT},
	[C_DUR] = {"Duration", 9, TIX_COL_RIGHT, 0, NULL, TIX_UNIT_TEXT},
	[C_KIND] = {"Kind", 8, TIX_COL_ASC, 3, NULL, TIX_UNIT_TEXT},
	[C_NAME] = {"Name", 20, TIX_COL_FLEX | TIX_COL_NAME | TIX_COL_ASC, 0, NULL, TIX_UNIT_TEXT},
};

#define FOUND_MAX 1000000 /* hits kept; the status line says when there were more */

struct found {
	uint32_t *rows;
	uint32_t n, total;
	char pattern[256];
};

/* The names as / matches them: shown (demangled). */
static int found_match(void *ctx, uint32_t name)
{
	struct app *a = ctx;
	return pattern_match(&a->search_re, tix_str(a->ix, tix_name_full(a->ix, name)));
}

static int found_open(struct app *a, struct view *v)
{
	if (!a->has_search) {
		app_msg(a, "no search pattern");
		return -1;
	}
	struct found *f = calloc(1, sizeof *f);
	if (!f) {
		app_msg(a, "out of memory");
		return -1;
	}
	snprintf(f->pattern, sizeof f->pattern, "%s", a->search);
	/* each distinct name matched once, then only its events, in time order
	 * (the index keeps each name's rows) */
	long total = tix_find_by_name(a->ix, found_match, a, FOUND_MAX, &f->rows);
	if (total < 0) {
		free(f);
		app_msg(a, "out of memory");
		return -1;
	}
	f->total = (uint32_t)total;
	f->n = f->total < FOUND_MAX ? f->total : FOUND_MAX;
	v->priv = f;
	view_set_rows(v, f->n);
	if (f->total == 0)
		app_msg(a, "no event in the trace is named like %s", f->pattern);
	else if (f->total > f->n)
		app_msg(a, "%u events match %s; the first %u are listed", f->total, f->pattern, f->n);
	else
		app_msg(a, "%u events match %s", f->total, f->pattern);
	return 0;
}

static void found_close(struct view *v)
{
	struct found *f = v->priv;
	if (f)
		free(f->rows);
	free(f);
}

static const char *found_cell(struct app *a, struct view *v, uint32_t row, int col, char *buf,
                              size_t cap)
{
	struct found *f = v->priv;
	struct tix_event e;
	tix_event_get(a->ix, f->rows[row], &e);
	switch (col) {
	case C_STEP: {
		uint32_t s = tix_event_step(a->ix, e.row);
		if (s == TIX_NONE)
			return "-";
		if (s == tix_step_before_trace(a->ix))
			return "before";
		snprintf(buf, cap, "%u", s);
		return buf;
	}
	case C_LANE: track_label(a, e.track, buf, cap); return buf;
	case C_START: {
		char d[48];
		snprintf(buf, cap, "+%s", tix_fmt_dur_unit(app_rel(a, e.start_ns), TIX_TU_AUTO, d, sizeof d));
		return buf;
	}
	case C_DUR: return tix_fmt_dur_unit(e.dur_ns, TIX_TU_AUTO, buf, cap);
	case C_KIND: return tix_kind_label(e.kind);
	case C_NAME: return app_name(a, e.name, buf, cap);
	}
	return "";
}

static int found_cmp(struct app *a, struct view *v, uint32_t ra, uint32_t rb, int col)
{
	struct found *f = v->priv;
	struct tix_event x, y;
	tix_event_get(a->ix, f->rows[ra], &x);
	tix_event_get(a->ix, f->rows[rb], &y);
	switch (col) {
	case C_DUR: return cmp_big_first(x.dur_ns, y.dur_ns);
	case C_STEP: return cmp_small_first(tix_event_step(a->ix, x.row), tix_event_step(a->ix, y.row));
	case C_LANE: return cmp_small_first(x.track, y.track);
	case C_KIND: return cmp_small_first(x.kind, y.kind);
	case C_NAME: return strcmp(tix_str(a->ix, x.name), tix_str(a->ix, y.name));
	}
	return cmp_small_first(x.start_ns, y.start_ns);
}

static const char *found_text(struct app *a, struct view *v, uint32_t row, char *buf, size_t cap)
{
	struct tix_event e;
	tix_event_get(a->ix, ((struct found *)v->priv)->rows[row], &e);
	return tix_str(a->ix, tix_name_full(a->ix, e.name));
}

static int found_enter(struct app *a, struct view *v, uint32_t row)
{
	struct found *f = v->priv;
	struct tix_event e;
	tix_event_get(a->ix, f->rows[row], &e);
	struct view_args va = view_args_none();
	va.row = e.row;
	if (tix_kind_is_gpu_work(e.kind))
		return app_push(a, &view_detail_ops, &va) ? 0 : -1;
	va.step = tix_event_step(a->ix, e.row);
	return app_push(a, &view_timeline_ops, &va) ? 0 : -1;
}

static uint32_t found_hottest(struct app *a, struct view *v)
{
	struct found *f = v->priv;
	uint32_t best = TIX_NONE;
	int64_t max = -1;
	for (uint32_t i = 0; i < f->n; i++) {
		struct tix_event e;
		tix_event_get(a->ix, f->rows[i], &e);
		if (e.dur_ns > max) {
			max = e.dur_ns;
			best = i;
		}
	}
	return best;
}

static void found_crumb(struct app *a, struct view *v, char *buf, size_t cap)
{
	struct found *f = v->priv;
	snprintf(buf, cap, "events named like %s (%u)", f->pattern, f->total);
}

static void found_context(struct app *a, struct view *v, struct ctx *c)
{
	uint32_t row = view_cur_row(v);
	if (row == TIX_NONE)
		return;
	struct tix_event e;
	tix_event_get(a->ix, ((struct found *)v->priv)->rows[row], &e);
	c->step = tix_event_step(a->ix, e.row);
	if (tix_kind_is_gpu_work(e.kind))
		c->row = e.row;
}

static int found_export(struct app *a, struct view *v, struct tix_export_sel *sel, char *path,
                        size_t cap, void **owned)
{
	struct found *f = v->priv;
	sel->rows = f->rows;
	sel->nrows = f->n;
	snprintf(path, cap, "found");
	return 0;
}

const struct view_ops view_found_ops = {
	.name = "Found",
	.rows_name = "events",
	.kind = VK_FOUND,
	.cols = cols,
	.ncols = sizeof cols / sizeof cols[0],
	.default_sort = -1, /* time order, from open */
	.open = found_open,
	.close = found_close,
	.cell = found_cell,
	.cmp = found_cmp,
	.text = found_text,
	.enter = found_enter,
	.hottest = found_hottest,
	.crumb = found_crumb,
	.context = found_context,
	.export_sel = found_export,
};
