/*
 * Table views: the rows on screen (order[]), cursor and scrolling, sort,
 * filter, search, and drawing a table from a view's column list.  Filter and
 * search walk the view's rows (steps, groups, a group's launches), never the
 * trace's events.
 */
#include "tui/table.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>

void view_set_rows(struct view *v, uint32_t nrows)
{
	free(v->order);
	v->nrows = nrows;
	v->order = calloc(nrows ? nrows : 1, sizeof *v->order);
	for (uint32_t i = 0; i < nrows; i++)
		v->order[i] = i;
	v->nvis = v->order ? nrows : 0;
	v->cursor = v->top = 0;
}

uint32_t view_cur_row(const struct view *v)
{
	return v->cursor < v->nvis ? v->order[v->cursor] : TIX_NONE;
}

void view_goto_row(struct view *v, uint32_t row)
{
	for (uint32_t i = 0; i < v->nvis; i++)
		if (v->order[i] == row) {
			v->cursor = i;
			return;
		}
}

int view_open_model(struct app *a, struct view *v, enum tix_view_kind kind)
{
	struct tix_view_scope sc = tix_view_scope_all();
	sc.step = v->args.step;
	sc.group = v->args.group;
	sc.op = v->args.op;
	struct tix_error err;
	v->model = tix_view_new(a->ix, kind, &sc, &err);
	if (!v->model) {
		app_msg(a, "%s", err.msg);
		return -1;
	}
	/* the model may have widened the scope (a kernel not in the step) */
	v->args.step = tix_view_scope(v->model)->step;
	v->cols = tix_view_cols(kind, &v->ncols);
	view_set_rows(v, tix_view_rows(v->model));
	return 0;
}

const char *model_cell(struct app *a, struct view *v, uint32_t row, int col, char *buf, size_t cap)
{
	struct tix_view_fmt f = {a->full_names, TIX_TU_AUTO};
	return tix_view_text(v->model, row, col, &f, buf, cap);
}

int model_cmp(struct app *a, struct view *v, uint32_t ra, uint32_t rb, int col)
{
	return tix_view_cmp(v->model, ra, rb, col);
}

double model_share(struct app *a, struct view *v, uint32_t row)
{
	return tix_view_share(v->model, row);
}

int model_width(struct app *a, struct view *v, int col)
{
	return tix_view_width(v->model, col);
}

void table_move(struct app *a, struct view *v, int64_t delta)
{
	if (v->nvis == 0)
		return;
	int64_t c = (int64_t)v->cursor + delta;
	if (c < 0)
		c = 0;
	if (c >= (int64_t)v->nvis)
		c = v->nvis - 1;
	v->cursor = (uint32_t)c;
}

/* ---- sort ---- */
struct sort_ctx {
	struct app *a;
	struct view *v;
};

static int sort_cmp(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *sc = arg;
	uint32_t ra = *(const uint32_t *)pa, rb = *(const uint32_t *)pb;
	int c = sc->v->ops->cmp(sc->a, sc->v, ra, rb, sc->v->sort_col);
	if (sc->v->sort_rev)
		c = -c;
	if (c == 0)
		c = ra < rb ? -1 : ra > rb;  /* stable: natural order breaks ties */
	return c;
}

/* Rebuilds order[]: pinned rows, then the rows that pass the filter, sorted. */
void table_rebuild(struct app *a, struct view *v)
{
	uint32_t keep = view_cur_row(v);
	uint32_t n = 0;
	char buf[1024];
	uint32_t pinned = (uint32_t)v->ops->pinned;
	for (uint32_t r = 0; r < v->nrows; r++) {
		if (r >= pinned && v->has_filter && v->ops->text) {
			const char *t = v->ops->text(a, v, r, buf, sizeof buf);
			if (!pattern_match(&v->filter_re, t))
				continue;
		}
		v->order[n++] = r;
	}
	v->nvis = n;
	uint32_t first = pinned < n ? pinned : n;
	if (v->sort_col >= 0 && v->ops->cmp && n > first) {
		struct sort_ctx sc = {a, v};
		qsort_r(v->order + first, n - first, sizeof *v->order, sort_cmp, &sc);
	}
	v->cursor = 0;
	if (keep != TIX_NONE)
		view_goto_row(v, keep);
}

int table_sortable(const struct view *v, int col)
{
	return col >= 0 && col < v->ncols &&
	       !(v->cols[col].flags & (TIX_COL_NOSORT | TIX_COL_BAR | TIX_COL_DATA));
}

void table_next_sort(struct app *a, struct view *v)
{
	if (!v->ops->cmp || v->ncols == 0) {
		app_msg(a, "nothing to sort here");
		return;
	}
	/* only the columns on screen: a sort by a hidden column looks like none */
	int w[32], c = v->sort_col;
	table_layout(a, v, COLS, w);
	for (int i = 0; i < v->ncols + 1; i++) {
		c++;
		if (c >= v->ncols)
			c = v->ops->default_sort < 0 ? -1 : 0;
		if (c == -1 || (table_sortable(v, c) && (c >= 32 || w[c] >= 0)))
			break;
	}
	v->sort_col = c;
	/* numbers sort largest first, names A to Z */
	v->sort_rev = 0;
	table_rebuild(a, v);
	if (c < 0)
		app_msg(a, "in the view's own order");
}

int table_set_filter(struct app *a, struct view *v, const char *pattern)
{
	if (v->has_filter)
		pattern_free(&v->filter_re);
	v->has_filter = 0;
	v->filter[0] = 0;
	if (pattern && *pattern) {
		if (table_compile(a, &v->filter_re, pattern) != 0)
			return -1;
		snprintf(v->filter, sizeof v->filter, "%s", pattern);
		v->has_filter = 1;
	}
	table_rebuild(a, v);
	return 0;
}

int table_compile(struct app *a, struct pattern *p, const char *pattern)
{
	memset(p, 0, sizeof *p);
	p->icase = 1;
	p->literal = 1;
	for (const char *c = pattern; *c; c++) {
		if (*c >= 'A' && *c <= 'Z')
			p->icase = 0; /* smart case, as in less -i and vim */
		if (strchr(".[]()*+?{}|^$\\", *c))
			p->literal = 0;
	}
	snprintf(p->text, sizeof p->text, "%s", pattern);
	if (p->literal)
		return 0;
	int rc = regcomp(&p->re, pattern, REG_EXTENDED | (p->icase ? REG_ICASE : 0));
	if (rc != 0) {
		char e[128];
		regerror(rc, &p->re, e, sizeof e);
		app_msg(a, "bad regex: %s", e);
		return -1;
	}
	return 0;
}

int pattern_match(const struct pattern *p, const char *s)
{
	if (p->literal)
		return (p->icase ? strcasestr(s, p->text) : strstr(s, p->text)) != NULL;
	return regexec(&p->re, s, 0, NULL, 0) == 0;
}

void pattern_free(struct pattern *p)
{
	if (!p->literal)
		regfree(&p->re);
}

int table_search(struct app *a, struct view *v, int dir)
{
	if (!a->has_search) {
		app_msg(a, "no search yet: press / first");
		return -1;
	}
	if (!v->ops->text || v->nvis == 0) {
		app_msg(a, "nothing to search here");
		return -1;
	}
	/* one pass over the rows: the match to go to and "match 3 of 78" */
	char buf[1024];
	uint32_t total = 0, first = 0, last = 0, next = TIX_NONE, prev = TIX_NONE;
	uint32_t n_first = 0, n_last = 0, n_next = 0, n_prev = 0;
	for (uint32_t pos = 0; pos < v->nvis; pos++) {
		const char *t = v->ops->text(a, v, v->order[pos], buf, sizeof buf);
		if (!pattern_match(&a->search_re, t))
			continue;
		total++;
		if (total == 1) {
			first = pos;
			n_first = 1;
		}
		last = pos;
		n_last = total;
		if (pos > v->cursor && next == TIX_NONE) {
			next = pos;
			n_next = total;
		}
		if (pos < v->cursor) {
			prev = pos;
			n_prev = total;
		}
	}
	if (total == 0) {
		app_msg(a, "not found: %s", a->search);
		return -1;
	}
	uint32_t to, nth;
	int wrapped = 0;
	if (dir > 0) {
		wrapped = next == TIX_NONE;
		to = wrapped ? first : next;
		nth = wrapped ? n_first : n_next;
	} else {
		wrapped = prev == TIX_NONE;
		to = wrapped ? last : prev;
		nth = wrapped ? n_last : n_prev;
	}
	v->cursor = to;
	app_msg(a, "match %u of %u: %s%s", nth, total, a->search, wrapped ? "  (search wrapped)" : "");
	return 0;
}

/* ---- drawing ---- */

/* s after its first n characters (UTF-8), or its last character. */
static const char *skip_chars(const char *s, int n)
{
	while (n-- > 0 && s[0] && s[1]) {
		s++;
		while ((*s & 0xc0) == 0x80)
			s++;
	}
	return s;
}

static int count_chars(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += (*s & 0xc0) != 0x80;
	return n;
}

const char *name_fit(const struct app *a, const char *s, int width, char *buf, size_t cap)
{
	while (text_width(a, s) > width) {
		/* the first "::" before any template or parameter list */
		const char *stop = s + strcspn(s, "<(");
		const char *ns = strstr(s, "::");
		if (!ns || ns >= stop)
			break;
		s = ns + 2;
	}
	if (text_width(a, s) <= width || width < 4)
		return s;
	/* Still too wide: cut out the middle and say so with an ellipsis.  The
	 * head keeps the name up to its template arguments, the tail their end,
	 * so labels that differ in one argument ("<..., Sm90, ...>") stay apart
	 * as far as the width allows. */
	const char *ell = draw_glyphs(a)->ellipsis;
	int keep = width - text_width(a, ell);
	int tail = keep / 3;
	int head = keep - tail;
	int lt = (int)strcspn(s, "<(");
	if (s[lt] && lt + 1 > head) { /* the name itself whole when it can be */
		head = lt + 1 < keep ? lt + 1 : lt <= keep ? lt : keep - 1;
		tail = keep - head;
	}
	const char *h_end = skip_chars(s, head);
	const char *t_from = skip_chars(s, count_chars(s) - tail);
	snprintf(buf, cap, "%.*s%s%s", (int)(h_end - s), s, ell, t_from);
	return buf;
}

const char *text_fit(const struct app *a, const char *s, int width, char *buf, size_t cap)
{
	if (text_width(a, s) <= width || width < 4)
		return s;
	/* the head says what it is about, the tail its figures */
	const char *ell = draw_glyphs(a)->ellipsis;
	int keep = width - text_width(a, ell);
	int head = keep - keep / 3;
	const char *h_end = skip_chars(s, head);
	const char *t_from = skip_chars(s, count_chars(s) - (keep - head));
	snprintf(buf, cap, "%.*s%s%s", (int)(h_end - s), s, ell, t_from);
	return buf;
}

/* A cell's text fitted to its column: words cut in the middle, names as
 * name_fit cuts them. */
static const char *cell_fit(const struct app *a, const struct view *v, int col, const char *s, int width,
                            char *buf, size_t cap)
{
	if (v->cols[col].flags & TIX_COL_PROSE)
		return text_fit(a, s, width, buf, cap);
	return name_fit(a, s, width, buf, cap);
}

void table_scroll(struct view *v, int h)
{
	if (h <= 0)
		return;
	if (v->cursor < v->top)
		v->top = v->cursor;
	if (v->cursor >= v->top + (uint32_t)h)
		v->top = v->cursor - (uint32_t)h + 1;
	if (v->top + (uint32_t)h > v->nvis)
		v->top = v->nvis > (uint32_t)h ? v->nvis - (uint32_t)h : 0;
}

/* Which columns fit in width, and their widths.  Columns with the highest
 * prio drop first; the flexible column takes what is left. */
int table_layout(struct app *a, const struct view *v, int width, int *w)
{
	const struct tix_col *cols = v->cols;
	int n = v->ncols < 32 ? v->ncols : 32;
	for (int i = 0; i < n; i++) { /* DATA: CSV and JSON only; a header is never cut */
		int tw = text_width(a, cols[i].title) + 1; /* room for the sort arrow */
		w[i] = cols[i].flags & TIX_COL_DATA ? -1 : cols[i].width > tw ? cols[i].width : tw;
		if (cols[i].flags & TIX_COL_BAR)
			w[i] = cols[i].width;
	}
	for (;;) {
		int sum = 0, flex = -1, maxprio = 0, drop = -1;
		for (int i = 0; i < n; i++) {
			if (w[i] < 0)
				continue;
			sum += w[i] + 1;
			if (cols[i].flags & TIX_COL_FLEX)
				flex = i;
			if (cols[i].prio > maxprio) {
				maxprio = cols[i].prio;
				drop = i;
			}
		}
		if (sum - 1 <= width || drop < 0) {
			/* what is left goes first to columns that want their content
			 * whole (step names), then to the flexible one (names) */
			int room = width - (sum - 1);
			for (int i = 0; i < n && v->ops->width; i++) {
				if (w[i] < 0 || !(cols[i].flags & TIX_COL_FIT))
					continue;
				int want = v->ops->width(a, (struct view *)v, i) - w[i];
				int add = want < room ? want : room;
				if (add > 0) {
					w[i] += add;
					room -= add;
				}
			}
			if (flex >= 0 && room > 0)
				w[flex] += room;
			return 0;
		}
		w[drop] = -1;
	}
}

/* Screen lines a row takes: 1, or with full names (t) as many as its name
 * needs in the flexible column, at most max. */
static int row_lines(struct app *a, struct view *v, uint32_t row, int flex, int fw, int max)
{
	if (!a->full_names || flex < 0 || fw <= 0 || max <= 1)
		return 1;
	char buf[1024];
	int tw = text_width(a, v->ops->cell(a, v, row, flex, buf, sizeof buf));
	int lines = (tw + fw - 1) / fw;
	return lines < 1 ? 1 : lines > max ? max : lines;
}

/* table_scroll for rows of several lines: the cursor's row whole on screen. */
static void table_scroll_rows(struct app *a, struct view *v, int h, int flex, int fw)
{
	table_scroll(v, h);
	if (!a->full_names || flex < 0)
		return;
	for (;;) {
		int used = 0;
		for (uint32_t p = v->top; p <= v->cursor && p < v->nvis; p++)
			used += row_lines(a, v, v->order[p], flex, fw, h);
		if (used <= h || v->top >= v->cursor)
			return;
		v->top++;
	}
}

/* Where the search matches s: its byte offset and length, or -1. */
static int match_span(const struct app *a, const char *s, int *len)
{
	if (!a->has_search)
		return -1;
	const struct pattern *p = &a->search_re;
	if (p->literal) {
		const char *m = p->icase ? strcasestr(s, p->text) : strstr(s, p->text);
		*len = (int)strlen(p->text);
		return m && *len ? (int)(m - s) : -1;
	}
	regmatch_t rm;
	if (regexec(&p->re, s, 1, &rm, 0) != 0 || rm.rm_eo <= rm.rm_so)
		return -1;
	*len = (int)(rm.rm_eo - rm.rm_so);
	return (int)rm.rm_so;
}

/* The flexible (name) column: scrolled by v->hscroll, fitted or (full
 * names) wrapped over `lines` lines, with the search match highlighted. */
static void draw_name(struct app *a, struct view *v, uint32_t row, int col, int y, int x, int w,
                      int lines, int attr)
{
	char buf[1024], fit[1024];
	const struct glyphs *g = draw_glyphs(a);
	const char *s = v->ops->cell(a, v, row, col, buf, sizeof buf);
	int lead = 0;
	if (v->hscroll > 0 && s[0]) {
		s = skip_chars(s, v->hscroll);
		lead = draw_text(a, y, x, w, g->ellipsis, 0);
	}
	if (lines <= 1) {
		if (v->cols[col].flags & (TIX_COL_NAME | TIX_COL_PROSE) || !a->full_names)
			s = cell_fit(a, v, col, s, w - lead, fit, sizeof fit);
		draw_text(a, y, x + lead, w - lead, s, 1);
	} else {
		/* wrap: w columns a line */
		const char *p = s;
		for (int k = 0; k < lines && *p; k++) {
			int used = draw_text(a, y + k, x + (k ? 0 : lead), w - (k ? 0 : lead), p, 1);
			if (used == 0)
				break;
			for (; used > 0 && *p; used--) /* past the characters drawn */
				for (p++; (*p & 0xc0) == 0x80; p++)
					;
		}
		return;
	}
	/* highlight what the search matched, where it is on screen */
	int mlen, at = match_span(a, s, &mlen);
	if (at < 0)
		return;
	char pre[1024];
	snprintf(pre, sizeof pre, "%.*s", at, s);
	int px = text_width(a, pre);
	if (px >= w - lead)
		return;
	attron(A_UNDERLINE | A_BOLD);
	draw_textn(a, y, x + lead + px, w - lead - px, s + at, (size_t)mlen, 0);
	attroff(A_UNDERLINE | A_BOLD);
	(void)attr;
}

/* A change (TIX_COL_SIGNED) is coloured by its sign: less is green (less
 * time), more is red; none on the cursor's row, whose colours are its own. */
static int signed_color(struct app *a, struct view *v, uint32_t row, int col, int on_cursor)
{
	if (on_cursor || !v->model || !(v->cols[col].flags & TIX_COL_SIGNED))
		return 0;
	struct tix_cell c;
	tix_view_cell(v->model, row, col, &c);
	if (!c.known || c.i == 0)
		return 0;
	return draw_attr(a, c.i < 0 ? CR_GPU : CR_WARN);
}

void table_draw(struct app *a, struct view *v, int y0, int h)
{
	const struct tix_col *cols = v->cols;
	int n = v->ncols;
	int w[32];
	if (n > 32)
		n = 32;
	table_layout(a, v, COLS, w);
	a->hdr_y = -1;
	a->ncol_x = 0;
	for (int i = 0, x = 0; i < n; i++)
		if (w[i] >= 0) {
			a->col_x[a->ncol_x] = x;
			a->col_w[a->ncol_x] = w[i];
			a->col_i[a->ncol_x++] = i;
			x += w[i] + 1;
		}
	/* header */
	int hattr = draw_attr(a, CR_HEADER);
	if (n > 1 || (n == 1 && cols[0].title[0])) {
		attron(hattr);
		int x = 0;
		for (int i = 0; i < n; i++) {
			if (w[i] < 0)
				continue;
			char t[64];
			const char *title = cols[i].title;
			if (i == v->sort_col) {
				const struct glyphs *g = draw_glyphs(a);
				/* the arrow points the way the values go down the screen */
				int up = !(cols[i].flags & TIX_COL_ASC) != !v->sort_rev;
				snprintf(t, sizeof t, "%s%s", title, up ? g->sort_up : g->sort_down);
				title = t;
			}
			int tw = text_width(a, title);
			if ((cols[i].flags & TIX_COL_RIGHT) && tw < w[i]) {
				draw_text(a, y0, x, w[i] - tw, "", 1);
				draw_text(a, y0, x + w[i] - tw, tw, title, 1);
			} else {
				draw_text(a, y0, x, w[i], title, 1);
			}
			x += w[i] + 1;
			if (x - 1 < COLS)
				mvaddch(y0, x - 1, ' ');
		}
		attroff(hattr);
		a->hdr_y = y0;
		y0++;
		h--;
	}
	if (h <= 0)
		return;
	a->body_h = h;
	int flex = -1;
	for (int i = 0; i < n; i++)
		if (w[i] >= 0 && (cols[i].flags & TIX_COL_FLEX))
			flex = i;
	table_scroll_rows(a, v, h, flex, flex >= 0 ? w[flex] : 0);
	if (v->nvis == 0) {
		draw_text(a, y0, 0, COLS, v->has_filter ? "(no rows match the filter; f and Enter clears it)" : "(nothing here)", 1);
		return;
	}
	char buf[1024], fit[1024];
	for (int y = 0, pos = (int)v->top; y < h && (uint32_t)pos < v->nvis; pos++) {
		uint32_t row = v->order[pos];
		int lines = row_lines(a, v, row, flex, flex >= 0 ? w[flex] : 0, h - y);
		int attr = A_NORMAL;
		if ((uint32_t)pos == v->cursor)
			attr = draw_attr(a, CR_CURSOR);
		else if (row < (uint32_t)v->ops->pinned)
			attr = draw_attr(a, CR_TOTAL);
		else if (v->ops->row_attr && v->ops->row_attr(a, v, row))
			attr = v->ops->row_attr(a, v, row);
		for (int k = 0; k < lines; k++)
			if (y0 + y + k >= 0 && y0 + y + k < 512)
				a->line_pos[y0 + y + k] = (uint32_t)pos;
		attron(attr);
		for (int k = 1; k < lines; k++)
			draw_text(a, y0 + y + k, 0, COLS, "", 1);
		int x = 0;
		for (int i = 0; i < n; i++) {
			if (w[i] < 0)
				continue;
			if (cols[i].flags & TIX_COL_BAR) {
				double f = v->ops->share ? v->ops->share(a, v, row) : 0;
				if ((uint32_t)pos == v->cursor)
					attroff(attr);
				draw_bar(a, y0 + y, x, w[i], f);
				if ((uint32_t)pos == v->cursor)
					attron(attr);
			} else if (i == flex) {
				draw_name(a, v, row, i, y0 + y, x, w[i], lines, attr);
			} else {
				const char *s = v->ops->cell(a, v, row, i, buf, sizeof buf);
				if (!(cols[i].flags & TIX_COL_RIGHT)) /* cut visibly, never silently */
					s = cell_fit(a, v, i, s, w[i], fit, sizeof fit);
				int tw = (cols[i].flags & TIX_COL_RIGHT) ? text_width(a, s) : 0;
				int sign = signed_color(a, v, row, i, (uint32_t)pos == v->cursor);
				if (sign)
					attron(sign);
				if (tw && tw < w[i]) {
					draw_text(a, y0 + y, x, w[i] - tw, "", 1);
					draw_text(a, y0 + y, x + w[i] - tw, tw, s, 1);
				} else {
					draw_text(a, y0 + y, x, w[i], s, 1);
				}
				if (sign) {
					attroff(sign);
					attron(attr);
				}
			}
			x += w[i] + 1;
			if (x - 1 < COLS)
				mvaddch(y0 + y, x - 1, ' ');
		}
		attroff(attr);
		y += lines;
	}
}
