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
	struct view_args va = {TIX_NONE, TIX_NONE, TIX_NONE, TIX_NONE, TIX_NONE, -1, 0, TIX_NONE, -1};
	return va;
}

const char *app_name(struct app *a, uint32_t str, char *buf, size_t cap)
{
	return tix_name_label(a->ix, str, a->full_names, buf, cap);
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
	tix_view_free(v->model);
	if (v->has_filter)
		pattern_done(&v->filter_re);
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
	v->cols = ops->cols;
	v->ncols = ops->ncols;
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

/* ---- switching views (Tab, 1-7) ---- */

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
	/* from the ranks of a run, the findings are the set's: of its real steps */
	int of_set = app_top(a)->ops->kind == VK_RANKS;
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
	case VK_FINDINGS: /* of the step the user is in, else of the real steps averaged */
		if (of_set)
			va.step = TIX_NONE;
		push_select(a, &view_findings_ops, &va, &c);
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

/* ---- requests every view shares ---- */

void app_set_trace(struct app *a, int i)
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
		pattern_done(&a->search_re);
	a->search_re = re;
	a->has_search = 1;
	snprintf(a->search, sizeof a->search, "%s", pat);
	return 0;
}

void app_request(struct app *a, enum req r)
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
	case REQ_BACK: {
		int back_to = v->args.from_trace; /* opened from Ranks or Compare on another trace */
		if (a->traces[a->cur].depth > 1)
			app_pop(a);
		else
			app_msg(a, "this is the first view: q quits");
		if (back_to >= 0 && back_to < a->ntraces && back_to != a->cur)
			app_set_trace(a, back_to);
		break;
	}
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
		/* the views of keys 1-7, in their order */
		static const enum view_kind cycle[] = {VK_STEPS, VK_KERNELS, VK_LAUNCHES, VK_DETAIL,
		                                       VK_OPS, VK_TIMELINE, VK_FINDINGS};
		int n = (int)(sizeof cycle / sizeof cycle[0]), k = 0;
		for (int i = 0; i < n; i++)
			if (cycle[i] == v->ops->kind)
				k = i;
		app_switch(a, cycle[(k + (r == REQ_NEXT_VIEW ? 1 : n - 1)) % n]);
		break;
	}
	case REQ_VIEW_STEPS: app_switch(a, VK_STEPS); break;
	case REQ_VIEW_KERNELS: app_switch(a, VK_KERNELS); break;
	case REQ_VIEW_LAUNCHES: app_switch(a, VK_LAUNCHES); break;
	case REQ_VIEW_DETAIL: app_switch(a, VK_DETAIL); break;
	case REQ_VIEW_OPS: app_switch(a, VK_OPS); break;
	case REQ_VIEW_TIMELINE: app_switch(a, VK_TIMELINE); break;
	case REQ_VIEW_FINDINGS: app_switch(a, VK_FINDINGS); break;
	case REQ_SORT: table_next_sort(a, v); break;
	case REQ_SORT_MENU: {
		struct view_args va = view_args_none();
		app_push(a, &view_menu_ops, &va);
		break;
	}
	case REQ_RIGHT: app_request(a, REQ_ENTER); break;
	case REQ_SCROLL_LEFT:
	case REQ_SCROLL_RIGHT:
		if (!v->cols) {
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
			app_history_add(&a->hist[PROMPT_FILTER], v->filter);
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
	case REQ_TIMEUNIT: {
		static const char *const said[] = {"each duration in its own unit", "durations in ns",
		                                   "durations in us", "durations in ms", "durations in s"};
		a->timeunit = (enum tix_timeunit)((a->timeunit + 1) % (TIX_TU_S + 1));
		app_msg(a, "%s (u: next unit)", said[a->timeunit]);
		for (int i = 0; i < a->traces[a->cur].depth; i++) {
			struct view *w = a->traces[a->cur].stack[i];
			if (w->ops->resize)
				w->ops->resize(a, w);
		}
		break;
	}
	case REQ_EXPORT: app_export(a, v); break;
	case REQ_COPY:
	case REQ_COPY_ROW: app_copy(a, v, r == REQ_COPY_ROW); break;
	case REQ_COPY_SHOW: app_copy_show(a, v); break;
	case REQ_MOUSE: app_mouse(a, v); break;
	case REQ_COMPARE: {
		if (a->ntraces < 2) {
			app_msg(a, "compare needs two traces: tix --diff BASE NEW, or tix A B and D");
			break;
		}
		struct ctx c;
		view_context(a, &c);
		uint32_t step = c.step != TIX_NONE && c.step < tix_step_count(a->ix) ? c.step : TIX_NONE;
		app_compare(a, (a->cur + 1) % a->ntraces, TIX_VIEW_CMP_KERNELS, step);
		break;
	}
	case REQ_RANKS: {
		struct view_args va = view_args_none();
		app_push(a, &view_ranks_ops, &va);
		break;
	}
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

/* "1 kernel", "1 launch": what a row is, for a count of one. */
static const char *rows_word(const char *rows, uint32_t n, char *buf, size_t cap)
{
	size_t len = strlen(rows);
	if (n != 1 || len < 2 || rows[len - 1] != 's')
		return rows;
	int es = len > 4 && !strcmp(rows + len - 4, "ches"); /* launches */
	snprintf(buf, cap, "%.*s", (int)(len - (es ? 2 : 1)), rows);
	return buf;
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
		char one[32];
		const char *rows = rows_word(v->ops->rows_name ? v->ops->rows_name : "rows", v->nrows, one, sizeof one);
		if (v->nvis == v->nrows)
			n += snprintf(s + n, sizeof s - n, "%u %s", v->nrows, rows);
		else
			n += snprintf(s + n, sizeof s - n, "%u of %u %s", v->nvis, v->nrows, rows);
		if (v->nvis)
			n += snprintf(s + n, sizeof s - n, ", at %u", v->cursor + 1);
		if (v->sort_col >= 0 && v->sort_col < v->ncols)
			n += snprintf(s + n, sizeof s - n, "  sort: %s%s", v->cols[v->sort_col].title,
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
	if (r == REQ_VIEW_STEPS || r == REQ_GOTO) { /* the seven view keys; : takes a number */
		snprintf(key, cap, "%s", r == REQ_GOTO ? ":N" : "1-7");
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

void app_draw(struct app *a)
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

void app_resize(struct app *a)
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

int tui_run(const struct tui_trace *traces, int ntraces, const struct tui_opts *o)
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
	a->peak_bw = o->peak_bw;
	a->peak_flops = o->peak_flops;
	a->timeunit = o->timeunit >= TIX_TU_AUTO && o->timeunit <= TIX_TU_S ? (enum tix_timeunit)o->timeunit
	                                                                     : TIX_TU_AUTO;
	for (int i = 0; i < ntraces; i++) {
		a->traces[i].t = &traces[i];
		a->traces[i].ix = traces[i].ix;
		tix_index_summary(traces[i].ix, &a->traces[i].sum);
	}
	fatal_begin(traces, ntraces); /* without it (out of memory) the TUI still runs */
	/* the parts of each index not read yet are checked while the first
	 * screen is looked at, so that a key that reads the whole trace later
	 * does not check it then (index.h) */
	for (int i = 0; i < ntraces; i++)
		tix_index_check_background(traces[i].ix);
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
	if (o->compare && ntraces >= 2) { /* tix --diff BASE NEW */
		app_compare(a, 1, TIX_VIEW_CMP_KERNELS, TIX_NONE);
	} else if (ntraces >= 2) { /* the ranks of one run, when they say so */
		int named = 0;
		a->ranks_ready = tui_rank_set(a, &named);
		if (named) {
			struct view_args va = view_args_none();
			app_push(a, &view_ranks_ops, &va); /* takes ranks_ready */
		}
		tix_rank_set_free(a->ranks_ready);
		a->ranks_ready = NULL;
	}
	if (app_top(a)->ops->kind == VK_STEPS && !a->msg[0]) /* a warning goes first */
		findings_first_screen(a);
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
		if (ch == 27 && tui_swallow_escape()) {
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
		pattern_done(&a->search_re);
	free(a->copied);
	free(a->traces);
	return 0;
}
