/*
 * Requests that do more than move or switch: go to (:N), export (e) and the
 * mouse (copy, y / Y / v, is copy.c's).  tui.c's app_request dispatches to
 * them.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tui/table.h"
#include "tui/view.h"

void app_goto(struct app *a, struct view *v)
{
	char num[64] = "", ask[64];
	int steps = v->ops->kind == VK_STEPS;
	snprintf(ask, sizeof ask, "go to %s: ", v->ops->goto_what ? v->ops->goto_what : steps ? "step" : "row");
	if (!app_prompt(a, PROMPT_GOTO, ask, num, sizeof num) || !num[0])
		return;
	char *end;
	unsigned long n = strtoul(num, &end, 10);
	if (*end || end == num) {
		app_msg(a, "not a number: %s", num);
		return;
	}
	if (v->ops->goto_n) {
		v->ops->goto_n(a, v, n);
		return;
	}
	if (steps && v->ops->select) {
		if (n >= tix_step_count(a->ix)) {
			app_msg(a, "no step %lu: the steps are 0 to %u", n, tix_step_count(a->ix) - 1);
			return;
		}
		struct ctx c = {(uint32_t)n, TIX_NONE, TIX_NONE, TIX_NONE};
		v->ops->select(a, v, &c);
		return;
	}
	if (n < 1 || n > v->nvis) {
		app_msg(a, "no row %lu: the rows are 1 to %u", n, v->nvis);
		return;
	}
	v->cursor = (uint32_t)(n - 1);
}

/* The trace's file name without its directory and its .json / .gz / .tix
 * endings: "rank0" for /data/rank0.json.gz. */
static void trace_stem(const char *path, char *out, size_t cap)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	snprintf(out, cap, "%s", base);
	static const char *const ends[] = {".tix", ".gz", ".json"};
	for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
		size_t n = strlen(out), e = strlen(ends[i]);
		if (n > e && strcmp(out + n - e, ends[i]) == 0)
			out[n - e] = 0;
	}
}

/* path with a leading ~ or ~/ made $HOME; 0, or -1 when HOME is unset. */
static int expand_home(const char *path, char *out, size_t cap)
{
	if (path[0] != '~' || (path[1] && path[1] != '/')) {
		snprintf(out, cap, "%s", path);
		return 0;
	}
	const char *home = getenv("HOME");
	if (!home || !*home)
		return -1;
	snprintf(out, cap, "%s%s", home, path + 1);
	return 0;
}

void app_export(struct app *a, struct view *v)
{
	if (!v->ops->export_sel) {
		app_msg(a, "nothing to export here");
		return;
	}
	struct tix_export_sel sel;
	memset(&sel, 0, sizeof sel);
	char what[256] = "", stem[256], path[1024], full[1200];
	void *owned = NULL;
	if (v->ops->export_sel(a, v, &sel, what, sizeof what, &owned) != 0)
		return;
	trace_stem(a->traces[a->cur].t->path, stem, sizeof stem);
	snprintf(path, sizeof path, "./%s-%s.json", stem, what);
	if (!app_prompt(a, PROMPT_EXPORT, "export to: ", path, sizeof path) || !path[0]) {
		app_msg(a, "export cancelled");
	} else if (expand_home(path, full, sizeof full) != 0) {
		app_msg(a, "export cancelled: ~ needs $HOME");
	} else if (access(full, F_OK) == 0 && !app_confirm(a, "file exists: replace it?")) {
		app_msg(a, "export cancelled: %s kept", full);
	} else {
		struct tix_error err;
		char count[32];
		long n = tix_export_json(a->ix, &sel, full, &err);
		if (n < 0)
			app_msg(a, "export failed: %s", err.msg);
		else
			app_msg(a, "exported %s traceEvents to %s", tix_fmt_count((uint64_t)n, count, sizeof count), full);
	}
	free(owned);
}

#define DOUBLE_CLICK_MS 400

void app_mouse(struct app *a, struct view *v)
{
	MEVENT me;
	if (getmouse(&me) != OK)
		return;
	if (me.bstate & BUTTON4_PRESSED) { /* wheel: three rows a notch */
		for (int i = 0; i < 3; i++)
			app_request(a, REQ_UP);
		return;
	}
#ifdef BUTTON5_PRESSED
	if (me.bstate & BUTTON5_PRESSED) {
		for (int i = 0; i < 3; i++)
			app_request(a, REQ_DOWN);
		return;
	}
#endif
	if (!(me.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)))
		return;
	if (me.y == a->hdr_y && v->cols) {
		/* a header: sort by that column; again: invert */
		for (int k = 0; k < a->ncol_x; k++) {
			if (me.x < a->col_x[k] || me.x >= a->col_x[k] + a->col_w[k] + 1)
				continue;
			int c = a->col_i[k];
			if (!table_sortable(v, c) || !v->ops->cmp) {
				app_msg(a, "this column does not sort");
				return;
			}
			v->sort_rev = v->sort_col == c ? !v->sort_rev : 0;
			v->sort_col = c;
			table_rebuild(a, v);
			return;
		}
		return;
	}
	if (me.y < 0 || me.y >= 512 || a->line_pos[me.y] == TIX_NONE)
		return;
	uint32_t pos = a->line_pos[me.y];
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	long ms = (now.tv_sec - a->t_click.tv_sec) * 1000 + (now.tv_nsec - a->t_click.tv_nsec) / 1000000;
	int dbl = pos == a->click_pos && ms < DOUBLE_CLICK_MS;
	a->click_pos = dbl ? TIX_NONE : pos;
	a->t_click = now;
	if (v->ops->request && v->ops->request(a, v, REQ_MOUSE))
		; /* the view moved its own cursor */
	else
		v->cursor = pos;
	if (dbl)
		app_request(a, REQ_ENTER);
}
