/*
 * The TUI framework: the event loop, the view stacks (one per trace), the
 * requests every view shares (movement, sort, search, filter, export, view
 * and trace switching), the prompt, and the frame around the views:
 *
 *   row 0          breadcrumb: tix > trace > step 12 > kernel > launch #3
 *   rows 1..H-3    the top view (a table, or the view's own drawing)
 *   row H-2        status: what is shown, the sort, the filter, a message
 *   row H-1        key hints, generated from the keymap (keys.h)
 */
#include "tui/tui.h"

#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tui/fatal.h"
#include "tui/keys.h"
#include "tui/model.h"
#include "tui/table.h"
#include "tui/view.h"

#define MIN_COLS 30
#define MIN_LINES 6

void app_msg(struct app *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->msg, sizeof a->msg, fmt, ap);
	va_end(ap);
}

struct view_args view_args_none(void)
{
	struct view_args va = {TIX_NONE, TIX_NONE, TIX_NONE, TIX_NONE, TIX_NONE};
	return va;
}

const char *app_name(struct app *a, uint32_t str, char *buf, size_t cap)
{
	/* the index's short label is unique among the trace's GPU work names
	 * (cutlass::device_kernel<..., Sm90, ...>); other names are their own */
	uint32_t full = tix_name_full(a->ix, str), sh = tix_name_short(a->ix, str);
	if (a->full_names)
		return tix_str(a->ix, full);
	if (sh != TIX_NONE)
		return tix_str(a->ix, sh);
	tix_short_name(tix_str(a->ix, full), tix_str_len(a->ix, full), buf, cap);
	return buf;
}

int64_t app_rel(struct app *a, int64_t t)
{
	return t - a->sum->first_ns;
}

struct view *app_top(struct app *a)
{
	struct trace_state *ts = &a->traces[a->cur];
	return ts->depth ? ts->stack[ts->depth - 1] : NULL;
}

static void view_free(struct view *v)
{
	if (!v)
		return;
	if (v->ops->close)
		v->ops->close(v);
	if (v->has_filter)
		pattern_free(&v->filter_re);
	free(v->order);
	free(v);
}

struct view *app_push(struct app *a, const struct view_ops *ops, const struct view_args *args)
{
	struct trace_state *ts = &a->traces[a->cur];
	if (ts->depth >= VIEW_STACK_MAX) {
		app_msg(a, "too many views open: go back first");
		return NULL;
	}
	struct view *v = calloc(1, sizeof *v);
	if (!v) {
		app_msg(a, "out of memory");
		return NULL;
	}
	v->ops = ops;
	v->args = *args;
	v->sort_col = ops->default_sort;
	if (ops->open(a, v) != 0) {
		view_free(v);
		return NULL;
	}
	if (!v->order)
		view_set_rows(v, 0);
	if (v->sort_col >= 0)
		table_rebuild(a, v);
	ts->stack[ts->depth++] = v;
	return v;
}

void app_pop(struct app *a)
{
	struct trace_state *ts = &a->traces[a->cur];
	if (ts->depth > 1)
		view_free(ts->stack[--ts->depth]);
}

static void app_pop_to(struct app *a, int depth)
{
	struct trace_state *ts = &a->traces[a->cur];
	while (ts->depth > depth && ts->depth > 1)
		app_pop(a);
}

/* ---- the prompt ---- */

static void app_draw(struct app *a);
static void app_resize(struct app *a);

static void history_add(struct history *h, const char *text)
{
	if (!text[0] || (h->n && strcmp(h->items[h->n - 1], text) == 0))
		return;
	if (h->n == HISTORY_MAX) {
		memmove(h->items[0], h->items[1], sizeof h->items[0] * (HISTORY_MAX - 1));
		h->n--;
	}
	snprintf(h->items[h->n++], sizeof h->items[0], "%s", text);
}

/* Reads the rest of an escape sequence ncurses did not decode (a terminal
 * whose keys differ from its terminfo entry: TERM=xterm-256color inside
 * tmux sends End as Esc [ 4 ~).  Returns 1 when one was swallowed, so that
 * its digits never reach the keymap; 0 when the Esc stood alone. */
static int swallow_escape(void)
{
	nodelay(stdscr, TRUE);
	int c = getch();
	int seq = 0;
	if (c == '[' || c == 'O') {
		seq = 1;
		/* CSI: parameters and intermediates up to a final byte @ .. ~ */
		for (int n = 0; n < 16; n++) {
			c = getch();
			if (c == ERR || (c >= 0x40 && c <= 0x7e))
				break;
		}
	} else if (c != ERR) {
		seq = 1; /* Alt-key: Esc then the key */
	}
	nodelay(stdscr, FALSE);
	return seq;
}

int app_prompt(struct app *a, enum prompt_kind k, const char *label, char *buf, size_t cap)
{
	struct history *h = &a->hist[k];
	int at = h->n;                /* history position; h->n: the line being typed */
	char typed[1024];
	snprintf(typed, sizeof typed, "%s", buf);
	size_t len = strlen(buf);
	curs_set(1);
	for (;;) {
		app_draw(a);
		int y = LINES - 2;
		draw_fill(y, A_NORMAL);
		int lw = draw_text(a, y, 0, COLS, label, 0);
		/* show the tail of what was typed when it is longer than the row */
		int room = COLS - lw - 1;
		size_t from = 0;
		while (room > 0 && text_width(a, buf + from) > room) {
			from++;
			while ((buf[from] & 0xc0) == 0x80)
				from++;
		}
		int w = room > 0 ? draw_text(a, y, lw, room, buf + from, 0) : 0;
		move(y, lw + w < COLS ? lw + w : COLS - 1);
		refresh();
		int ch = getch();
		if (ch == KEY_RESIZE)
			app_resize(a);
		if (ch == KEY_RESIZE || ch == ERR)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &a->t_key); /* the time typing ends is not the app's */
		if (ch == 27 && swallow_escape())
			continue;
		if (ch == 27 || ch == TUI_CTRL('c') || ch == TUI_CTRL('g')) {
			curs_set(0);
			return 0;
		}
		if (ch == '\n' || ch == '\r' || ch == KEY_ENTER)
			break;
		if (ch == KEY_UP || ch == KEY_DOWN) {
			if (at == h->n)
				snprintf(typed, sizeof typed, "%s", buf);
			at += ch == KEY_UP ? -1 : 1;
			if (at < 0)
				at = 0;
			if (at > h->n)
				at = h->n;
			snprintf(buf, cap, "%s", at == h->n ? typed : h->items[at]);
			len = strlen(buf);
		} else if (ch == KEY_BACKSPACE || ch == 127 || ch == '\b') {
			while (len > 0 && (buf[len - 1] & 0xc0) == 0x80)
				len--;
			if (len > 0)
				len--;
			buf[len] = 0;
		} else if (ch == TUI_CTRL('u')) {
			len = 0;
			buf[0] = 0;
		} else if (ch >= 0x20 && ch < 0x100 && ch != 0x7f && len + 1 < cap) {
			buf[len++] = (char)ch;
			buf[len] = 0;
		}
	}
	curs_set(0);
	history_add(h, buf);
	return 1;
}

int app_confirm(struct app *a, const char *question)
{
	app_msg(a, "%s (y/n)", question);
	app_draw(a);
	int ch;
	while ((ch = getch()) == KEY_RESIZE || ch == ERR)
		if (ch == KEY_RESIZE) {
			app_resize(a);
			app_draw(a);
		}
	a->msg[0] = 0;
	clock_gettime(CLOCK_MONOTONIC, &a->t_key);
	return ch == 'y' || ch == 'Y';
}

/* :N, the step N in the Steps view (its own number, as the # column shows),
 * row N (from 1, as the status line counts) elsewhere. */
static void app_goto(struct app *a, struct view *v)
{
	char num[64] = "";
	int steps = v->ops->kind == VK_STEPS;
	if (!app_prompt(a, PROMPT_GOTO, steps ? "go to step: " : "go to row: ", num, sizeof num) ||
	    !num[0])
		return;
	char *end;
	unsigned long n = strtoul(num, &end, 10);
	if (*end || end == num) {
		app_msg(a, "not a number: %s", num);
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

/* ---- switching views (Tab, 1-6) ---- */

static void view_context(struct app *a, struct ctx *c)
{
	c->step = c->group = c->row = c->op = TIX_NONE;
	struct trace_state *ts = &a->traces[a->cur];
	/* the top view knows most; views below fill what it does not */
	for (int i = ts->depth - 1; i >= 0; i--) {
		struct view *v = ts->stack[i];
		struct ctx vc = {TIX_NONE, TIX_NONE, TIX_NONE, TIX_NONE};
		if (v->ops->context)
			v->ops->context(a, v, &vc);
		if (c->step == TIX_NONE)
			c->step = vc.step;
		if (c->group == TIX_NONE)
			c->group = vc.group;
		if (c->row == TIX_NONE)
			c->row = vc.row;
		if (c->op == TIX_NONE)
			c->op = vc.op;
	}
}

static struct view *push_select(struct app *a, const struct view_ops *ops,
                                const struct view_args *va, const struct ctx *c)
{
	struct view *v = app_push(a, ops, va);
	if (v && ops->select)
		ops->select(a, v, c);
	return v;
}

static void app_switch(struct app *a, enum view_kind kind)
{
	struct ctx c;
	view_context(a, &c);
	app_pop_to(a, 1);
	struct view *root = app_top(a);
	if (root->ops->select)
		root->ops->select(a, root, &c);
	struct view_args va = view_args_none();
	va.step = c.step;
	switch (kind) {
	case VK_STEPS:
	case VK_HELP:
	case VK_MENU:
	case VK_FOUND:
	case VK_SHAPES:
		return;
	case VK_OPS:
		push_select(a, &view_ops_ops, &va, &c);
		return;
	case VK_TIMELINE:
		va.row = c.row;
		if (va.step == TIX_NONE && c.row != TIX_NONE)
			va.step = tix_event_step(a->ix, c.row);
		push_select(a, &view_timeline_ops, &va, &c);
		return;
	default:
		break;
	}
	struct view *k = push_select(a, &view_kernels_ops, &va, &c);
	if (!k || kind == VK_KERNELS)
		return;
	if (c.group == TIX_NONE) {
		/* no kernel chosen yet: the hottest one of the scope */
		uint32_t r = k->ops->hottest ? k->ops->hottest(a, k) : TIX_NONE;
		if (r == TIX_NONE) {
			app_msg(a, "no kernels here");
			return;
		}
		view_goto_row(k, r);
		struct ctx kc = {TIX_NONE, TIX_NONE, TIX_NONE, TIX_NONE};
		k->ops->context(a, k, &kc);
		c.group = kc.group;
	}
	va.group = c.group;
	struct view *l = push_select(a, &view_launches_ops, &va, &c);
	if (!l || kind == VK_LAUNCHES)
		return;
	l->ops->enter(a, l, view_cur_row(l));
}

/* ---- export ---- */

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

static void app_export(struct app *a, struct view *v)
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
		long n = tix_export_json(a->ix, &sel, full, &err);
		if (n < 0)
			app_msg(a, "export failed: %s", err.msg);
		else
			app_msg(a, "exported %ld events to %s", n, full);
	}
	free(owned);
}

/* ---- copy (y, Y) and the mouse ---- */

static void app_request(struct app *a, enum req r);

/* y: the selection's full name; Y: the selected row, its cells tab-separated.
 * Sent with OSC 52, which terminals (and tmux with set-clipboard on) put on
 * the clipboard even over ssh; the status line shows the text as well, for
 * a terminal that ignores OSC 52. */
static void app_copy(struct app *a, struct view *v, int whole_row)
{
	static char text[16384], seq[22000];
	char buf[4096];
	text[0] = 0;
	uint32_t row = view_cur_row(v);
	int keep = a->full_names;
	a->full_names = 1;
	if (whole_row && v->ops->cols && row != TIX_NONE) {
		size_t n = 0;
		for (int i = 0; i < v->ops->ncols && n < sizeof text; i++) {
			if (v->ops->cols[i].flags & COL_BAR)
				continue;
			const char *c = v->ops->cell(a, v, row, i, buf, sizeof buf);
			n += (size_t)snprintf(text + n, sizeof text - n, "%s%s", n ? "\t" : "", c);
		}
	} else if (whole_row && row != TIX_NONE && v->ops->text) {
		snprintf(text, sizeof text, "%s", v->ops->text(a, v, row, buf, sizeof buf));
	} else if (v->ops->sel_name) {
		const char *s = v->ops->sel_name(a, v, buf, sizeof buf);
		snprintf(text, sizeof text, "%s", s ? s : "");
	} else if (v->ops->cols && row != TIX_NONE) {
		for (int i = 0; i < v->ops->ncols; i++)
			if (v->ops->cols[i].flags & COL_FLEX)
				snprintf(text, sizeof text, "%s", v->ops->cell(a, v, row, i, buf, sizeof buf));
	}
	a->full_names = keep;
	if (!text[0]) {
		app_msg(a, "nothing to copy here");
		return;
	}
	int sent = 0;
	if (osc52(text, seq, sizeof seq)) {
		fflush(stdout);
		sent = write(STDOUT_FILENO, seq, strlen(seq)) == (ssize_t)strlen(seq);
	}
	const char *how = sent ? "copied (OSC 52)" : "not sent (too long for OSC 52)";
	if (text_width(a, text) + (int)strlen(how) + 2 <= COLS) {
		app_msg(a, "%s: %s", how, text);
		return;
	}
	/* Longer than the status line: show it outside the screen, as plain text
	 * the terminal wraps itself, so selecting it by hand copies one line
	 * (the way to copy where OSC 52 does not reach) */
	def_prog_mode();
	endwin();
	printf("\n%s\n\n%s.  Select the text above to copy it by hand.\n"
	       "Press Enter to return to tix. ", text, how);
	fflush(stdout);
	char c; /* read(2), not stdio: what is typed after Enter stays for curses */
	while (read(STDIN_FILENO, &c, 1) == 1 && c != '\n' && c != '\r')
		;
	reset_prog_mode();
	clearok(curscr, TRUE);
	app_msg(a, "%s: %d characters", how, (int)strlen(text));
}

#define DOUBLE_CLICK_MS 400

static void app_mouse(struct app *a, struct view *v)
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
	if (me.y == a->hdr_y && v->ops->cols) {
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

/* ---- requests every view shares ---- */

static void app_set_trace(struct app *a, int i)
{
	a->cur = i;
	a->ix = a->traces[i].ix;
	a->sum = &a->traces[i].sum;
	if (a->traces[i].depth == 0) {
		struct view_args va = view_args_none();
		app_push(a, &view_steps_ops, &va);
	}
}

/* The pattern / and F share (n and N repeat it, matches are underlined). */
static int app_set_search(struct app *a, const char *pat)
{
	struct pattern re;
	if (table_compile(a, &re, pat) != 0)
		return -1;
	if (a->has_search)
		pattern_free(&a->search_re);
	a->search_re = re;
	a->has_search = 1;
	snprintf(a->search, sizeof a->search, "%s", pat);
	return 0;
}

static void app_request(struct app *a, enum req r)
{
	struct view *v = app_top(a);
	if (v->ops->request && v->ops->request(a, v, r))
		return;
	int page = a->body_h > 1 ? a->body_h - 1 : 1;
	switch (r) {
	case REQ_DOWN: table_move(a, v, 1); break;
	case REQ_UP: table_move(a, v, -1); break;
	case REQ_PAGE_DOWN: table_move(a, v, page); break;
	case REQ_PAGE_UP: table_move(a, v, -page); break;
	case REQ_FIRST: v->cursor = 0; break;
	case REQ_GOTO: app_goto(a, v); break;
	case REQ_LAST: v->cursor = v->nvis ? v->nvis - 1 : 0; break;
	case REQ_ENTER:
		if (!v->ops->enter || view_cur_row(v) == TIX_NONE)
			app_msg(a, "nothing to open here");
		else
			v->ops->enter(a, v, view_cur_row(v));
		break;
	case REQ_BACK:
		if (a->traces[a->cur].depth > 1)
			app_pop(a);
		else
			app_msg(a, "this is the first view: q quits");
		break;
	case REQ_HOTTEST: {
		uint32_t row = v->ops->hottest ? v->ops->hottest(a, v) : TIX_NONE;
		if (row == TIX_NONE)
			app_msg(a, "no hottest row here");
		else
			view_goto_row(v, row);
		break;
	}
	case REQ_NEXT_VIEW:
	case REQ_PREV_VIEW: {
		int k = v->ops->kind > VK_TIMELINE ? VK_STEPS : (int)v->ops->kind;
		k = (k + (r == REQ_NEXT_VIEW ? 1 : VK_TIMELINE)) % (VK_TIMELINE + 1);
		app_switch(a, (enum view_kind)k);
		break;
	}
	case REQ_VIEW_STEPS: app_switch(a, VK_STEPS); break;
	case REQ_VIEW_KERNELS: app_switch(a, VK_KERNELS); break;
	case REQ_VIEW_LAUNCHES: app_switch(a, VK_LAUNCHES); break;
	case REQ_VIEW_DETAIL: app_switch(a, VK_DETAIL); break;
	case REQ_VIEW_OPS: app_switch(a, VK_OPS); break;
	case REQ_VIEW_TIMELINE: app_switch(a, VK_TIMELINE); break;
	case REQ_SORT: table_next_sort(a, v); break;
	case REQ_SORT_MENU: {
		struct view_args va = view_args_none();
		app_push(a, &view_menu_ops, &va);
		break;
	}
	case REQ_RIGHT: app_request(a, REQ_ENTER); break;
	case REQ_SCROLL_LEFT:
	case REQ_SCROLL_RIGHT:
		if (!v->ops->cols) {
			app_msg(a, "nothing to scroll here");
			break;
		}
		v->hscroll += r == REQ_SCROLL_RIGHT ? 8 : -8;
		if (v->hscroll <= 0) {
			v->hscroll = 0;
			app_msg(a, "names from their start");
		} else {
			app_msg(a, "names scrolled by %d characters (< back)", v->hscroll);
		}
		break;
	case REQ_LEFT: app_request(a, REQ_BACK); break;
	case REQ_SORT_INVERT:
		if (v->sort_col < 0 && v->ops->default_sort < 0 && !v->ops->cmp) {
			app_msg(a, "nothing to sort here");
			break;
		}
		v->sort_rev = !v->sort_rev;
		if (v->sort_col < 0) /* natural rank: reverse it by the first column */
			v->sort_col = table_sortable(v, 0) ? 0 : -1;
		table_rebuild(a, v);
		break;
	case REQ_SEARCH: {
		char pat[256] = "";
		if (!app_prompt(a, PROMPT_SEARCH, "search (regex): /", pat, sizeof pat))
			break;
		if (!pat[0]) { /* as in less: an empty search repeats the last one */
			if (a->has_search)
				app_request(a, REQ_SEARCH_NEXT);
			break;
		}
		if (app_set_search(a, pat) == 0)
			app_request(a, REQ_SEARCH_NEXT);
		break;
	}
	case REQ_SEARCH_ALL: {
		char pat[256] = "";
		if (!app_prompt(a, PROMPT_FIND, "find in all events (regex): ", pat, sizeof pat) || !pat[0])
			break;
		if (app_set_search(a, pat) != 0)
			break;
		struct view_args va = view_args_none();
		app_push(a, &view_found_ops, &va);
		break;
	}
	case REQ_SEARCH_NEXT: table_search(a, v, 1); break;
	case REQ_SEARCH_PREV: table_search(a, v, -1); break;
	case REQ_FILTER: {
		if (!v->ops->text) {
			app_msg(a, "nothing to filter here");
			break;
		}
		/* starts empty, as / does; Up recalls the filter in force */
		char pat[256] = "";
		if (v->has_filter)
			history_add(&a->hist[PROMPT_FILTER], v->filter);
		if (app_prompt(a, PROMPT_FILTER, "filter (regex, empty: all): ", pat, sizeof pat))
			table_set_filter(a, v, pat);
		break;
	}
	case REQ_NAMES:
		a->full_names = !a->full_names;
		app_msg(a, "%s names", a->full_names ? "full" : "short");
		for (int i = 0; i < a->traces[a->cur].depth; i++) {
			struct view *w = a->traces[a->cur].stack[i];
			if (w->ops->resize)
				w->ops->resize(a, w);
		}
		break;
	case REQ_EXPORT: app_export(a, v); break;
	case REQ_COPY:
	case REQ_COPY_ROW: app_copy(a, v, r == REQ_COPY_ROW); break;
	case REQ_MOUSE: app_mouse(a, v); break;
	case REQ_PREV_TRACE:
	case REQ_NEXT_TRACE:
		if (a->ntraces < 2) {
			app_msg(a, "only one trace open");
			break;
		}
		app_set_trace(a, (a->cur + (r == REQ_NEXT_TRACE ? 1 : a->ntraces - 1)) % a->ntraces);
		app_msg(a, "trace %d of %d: %s", a->cur + 1, a->ntraces, a->traces[a->cur].t->path);
		break;
	case REQ_REDRAW: clearok(curscr, TRUE); break;
	case REQ_HELP:
		if (v->ops->kind != VK_HELP) {
			struct view_args va = view_args_none();
			app_push(a, &view_help_ops, &va);
		}
		break;
	case REQ_QUIT: a->quit = 1; break;
	default:
		app_msg(a, "%s: not in this view", keys_label(r));
		break;
	}
}

/* ---- the frame ---- */

static void draw_crumbs(struct app *a)
{
	struct trace_state *ts = &a->traces[a->cur];
	const struct glyphs *g = draw_glyphs(a);
	char head[1024], rest[2048];
	const char *base = strrchr(ts->t->path, '/');
	base = base ? base + 1 : ts->t->path;
	int n = snprintf(head, sizeof head, "tix%s%s", g->crumb_sep, base);
	if (a->ntraces > 1 && n >= 0 && (size_t)n < sizeof head)
		snprintf(head + n, sizeof head - (size_t)n, " [%d/%d]", a->cur + 1, a->ntraces);
	size_t m = 0;
	rest[0] = 0;
	for (int i = 1; i < ts->depth && m < sizeof rest; i++) {
		char c[512] = "";
		struct view *v = ts->stack[i];
		if (v->ops->crumb)
			v->ops->crumb(a, v, c, sizeof c);
		else
			snprintf(c, sizeof c, "%s", v->ops->name);
		m += (size_t)snprintf(rest + m, sizeof rest - m, "%s%s", g->crumb_sep, c);
	}
	int attr = draw_attr(a, CR_TITLE);
	draw_fill(0, attr);
	attron(attr);
	int room = COLS - 1;
	int x = draw_text(a, 0, 0, room, head, 0);
	/* too long: keep the end of the path, where the user is */
	const char *s = rest;
	if (text_width(a, s) > room - x) {
		x += draw_text(a, 0, x, room - x, g->crumb_sep, 0);
		x += draw_text(a, 0, x, room - x, g->ellipsis, 0);
		while (*s && text_width(a, s) > room - x) {
			s++;
			while ((*s & 0xc0) == 0x80)
				s++;
		}
	}
	draw_text(a, 0, x, room - x, s, 0);
	attroff(attr);
}

static void draw_status(struct app *a, struct view *v)
{
	int y = LINES - 2;
	int attr = draw_attr(a, CR_STATUS);
	draw_fill(y, attr);
	attron(attr);
	char s[1024];
	if (a->msg[0]) {
		snprintf(s, sizeof s, "%s", a->msg);
	} else {
		int n = snprintf(s, sizeof s, "%s: ", v->ops->name);
		const char *rows = v->ops->rows_name ? v->ops->rows_name : "rows";
		if (v->nvis == v->nrows)
			n += snprintf(s + n, sizeof s - n, "%u %s", v->nrows, rows);
		else
			n += snprintf(s + n, sizeof s - n, "%u of %u %s", v->nvis, v->nrows, rows);
		if (v->nvis)
			n += snprintf(s + n, sizeof s - n, ", at %u", v->cursor + 1);
		if (v->sort_col >= 0 && v->sort_col < v->ops->ncols)
			n += snprintf(s + n, sizeof s - n, "  sort: %s%s", v->ops->cols[v->sort_col].title,
			              v->sort_rev ? " (reversed)" : "");
		if (v->has_filter)
			snprintf(s + n, sizeof s - n, "  filter: %s", v->filter);
	}
	draw_text(a, y, 0, COLS, s, 0);
	attroff(attr);
}

/* "Enter:drill  Bksp:back ..." from the keymap; help and quit stay at the
 * right end, the rest fill what room is left. */
static const char *hint_key(enum req r, char *key, size_t cap)
{
	if (r == REQ_VIEW_STEPS || r == REQ_GOTO) { /* the six view keys; : takes a number */
		snprintf(key, cap, "%s", r == REQ_GOTO ? ":N" : "1-6");
		return key;
	}
	snprintf(key, cap, "%s", keys_label(r));
	char *sp = strchr(key, ' ');
	if (sp)
		*sp = 0;
	if (strcmp(key, "Backspace") == 0)
		snprintf(key, cap, "Bksp");
	return key;
}

static int hint_width(enum req r)
{
	char key[64];
	return (int)(strlen(hint_key(r, key, sizeof key)) + 1 + strlen(keys_hint(r)) + 2);
}

static int draw_hint(struct app *a, int y, int x, enum req r, int attr)
{
	char key[64];
	int x0 = x;
	attron(attr | A_BOLD);
	x += draw_text(a, y, x, COLS - x, hint_key(r, key, sizeof key), 0);
	attroff(attr | A_BOLD);
	x += draw_text(a, y, x, COLS - x, ":", 0);
	x += draw_text(a, y, x, COLS - x, keys_hint(r), 0);
	x += draw_text(a, y, x, COLS - x, "  ", 0);
	return x - x0;
}

static void draw_hints(struct app *a)
{
	int y = LINES - 1;
	int attr = draw_attr(a, CR_HINT);
	draw_fill(y, A_NORMAL);
	int end = COLS - (hint_width(REQ_HELP) + hint_width(REQ_QUIT) - 2);
	if (end < 0)
		end = 0;
	int x = end;
	x += draw_hint(a, y, x, REQ_HELP, attr);
	draw_hint(a, y, x, REQ_QUIT, attr);
	/* the hints in rank order, as many as fit: the least used drop first */
	x = 0;
	for (int rank = 1;; rank++) {
		enum req r = REQ_NONE;
		int more = 0;
		for (int q = 1; q < REQ_COUNT; q++) {
			if (keys_hint_rank((enum req)q) == rank)
				r = (enum req)q;
			if (keys_hint_rank((enum req)q) > rank)
				more = 1;
		}
		if (r != REQ_NONE) {
			if (x + hint_width(r) > end)
				break;
			x += draw_hint(a, y, x, r, attr);
		}
		if (!more)
			break;
	}
}

static void app_draw(struct app *a)
{
	erase();
	if (LINES < MIN_LINES || COLS < MIN_COLS) {
		const char *m = COLS >= 30 ? "terminal too small (need 30x6)" : "too small";
		draw_text(a, LINES / 2, 0, COLS, m, 0);
		refresh();
		return;
	}
	struct view *v = app_top(a);
	for (int i = 0; i < 512; i++)
		a->line_pos[i] = TIX_NONE;
	a->hdr_y = -1;
	a->ncol_x = 0;
	draw_crumbs(a);
	int h = LINES - 3;
	a->body_h = h;
	if (v->ops->draw)
		v->ops->draw(a, v, 1, h);
	else
		table_draw(a, v, 1, h);
	draw_status(a, v);
	draw_hints(a);
	refresh();
}

static void app_resize(struct app *a)
{
	for (int t = 0; t < a->ntraces; t++) {
		struct tix_index *keep = a->ix;
		a->ix = a->traces[t].ix;
		for (int i = 0; i < a->traces[t].depth; i++) {
			struct view *v = a->traces[t].stack[i];
			if (v->ops->resize)
				v->ops->resize(a, v);
		}
		a->ix = keep;
	}
}

/* Home and End as terminals send them whatever their terminfo entry says
 * (xterm's Esc O H / Esc [ H, the VT220 Esc [ 1 ~ / Esc [ 4 ~ that tmux and
 * screen send, rxvt's Esc [ 7 ~ / Esc [ 8 ~), so TERM=xterm-256color inside
 * tmux decodes them too. */
static void define_extra_keys(void)
{
	static const struct {
		const char *seq;
		int key;
	} extra[] = {
		{"\033[1~", KEY_HOME}, {"\033[4~", KEY_END}, {"\033[7~", KEY_HOME},
		{"\033[8~", KEY_END},  {"\033[H", KEY_HOME}, {"\033[F", KEY_END},
		{"\033OH", KEY_HOME},  {"\033OF", KEY_END},  {"\033[1;2D", KEY_SLEFT},
		{"\033[1;2C", KEY_SRIGHT}, {"\033[1;2A", KEY_SR}, {"\033[1;2B", KEY_SF},
	};
	for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
		if (key_defined(extra[i].seq) <= 0)
			define_key(extra[i].seq, extra[i].key);
}

int tui_run(const struct tui_trace *traces, int ntraces)
{
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "tix: the explorer needs a terminal; for text output use "
		                "`tix summary TRACE` (or tix show / tix export)\n");
		return 1;
	}
	if (ntraces <= 0)
		return 1;
	setlocale(LC_ALL, "");
	struct app app;
	memset(&app, 0, sizeof app);
	struct app *a = &app;
	const char *cs = nl_langinfo(CODESET);
	a->utf8 = cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
	a->traces = calloc((size_t)ntraces, sizeof *a->traces);
	if (!a->traces) {
		fprintf(stderr, "tix: out of memory\n");
		return 1;
	}
	a->ntraces = ntraces;
	for (int i = 0; i < ntraces; i++) {
		a->traces[i].t = &traces[i];
		a->traces[i].ix = traces[i].ix;
		tix_index_summary(traces[i].ix, &a->traces[i].sum);
	}
	fatal_begin(traces, ntraces); /* without it (out of memory) the TUI still runs */
	SCREEN *scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		fatal_end();
		const char *term = getenv("TERM");
		fprintf(stderr, "tix: cannot drive terminal type '%s'; for text output use "
		                "`tix summary TRACE`\n", term ? term : "");
		free(a->traces);
		return 1;
	}
	char *cup = tigetstr("cup");
	if (!cup || cup == (char *)-1) {
		/* TERM=dumb and the like: no cursor addressing, no screen */
		endwin();
		delscreen(scr);
		fatal_end();
		const char *term = getenv("TERM");
		fprintf(stderr, "tix: terminal type '%s' cannot move the cursor; for text output use "
		                "`tix summary TRACE`\n", term ? term : "");
		free(a->traces);
		return 1;
	}
	/* a short wait after Esc: long enough for a sequence over ssh to arrive
	 * whole, short enough that Esc alone feels immediate */
	set_escdelay(25);
	define_extra_keys();
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	/* presses, not clicks: ncurses would hold a click back to see whether
	 * it becomes a double one; tix tells double clicks itself */
	mouseinterval(0);
	mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
	          | BUTTON5_PRESSED
#endif
	          , NULL);
	curs_set(0);
	draw_init(a);
	app_set_trace(a, 0);
	if (a->sum->warnings && a->sum->warnings[0])
		app_msg(a, "warning: %s", a->sum->warnings);
	/* TIX_TUI_TIMING=FILE logs how long each key took, handled and drawn
	 * (for bench/ and docs/PERFORMANCE.md) */
	const char *tpath = getenv("TIX_TUI_TIMING");
	a->timing = tpath && *tpath ? fopen(tpath, "a") : NULL;
	enum req last = REQ_NONE;
	while (!a->quit) {
		app_draw(a);
		if (a->timing && last != REQ_NONE) {
			struct timespec t_now;
			clock_gettime(CLOCK_MONOTONIC, &t_now);
			fprintf(a->timing, "%s %.3f ms\n", keys_req_name(last),
			        (t_now.tv_sec - a->t_key.tv_sec) * 1e3 + (t_now.tv_nsec - a->t_key.tv_nsec) / 1e6);
			fflush(a->timing);
			last = REQ_NONE;
		}
		int ch = getch();
		if (ch == ERR)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &a->t_key);
		if (ch == KEY_RESIZE) {
			app_resize(a);
			continue;
		}
		a->msg[0] = 0;
		if (LINES < MIN_LINES || COLS < MIN_COLS) {
			if (keys_lookup(ch) == REQ_QUIT)
				a->quit = 1;
			continue;
		}
		if (ch == 27 && swallow_escape()) {
			app_msg(a, "unknown key sequence (ignored)");
			continue;
		}
		last = keys_lookup(ch);
		if (last == REQ_NONE) {
			char kn[32];
			app_msg(a, "key %s does nothing here: ? or F1 lists the keys",
			        keys_name(ch, kn, sizeof kn));
			continue;
		}
		app_request(a, last);
	}
	if (a->timing)
		fclose(a->timing);
	endwin();
	delscreen(scr);
	fatal_end();
	for (int t = 0; t < ntraces; t++) {
		a->cur = t;
		while (a->traces[t].depth > 0)
			view_free(a->traces[t].stack[--a->traces[t].depth]);
	}
	if (a->has_search)
		pattern_free(&a->search_re);
	free(a->traces);
	return 0;
}
