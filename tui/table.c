/*
 * Table views: the rows on screen (order[]), cursor and scrolling, sort,
 * filter, search, and drawing a table from a view's column list.  Filter and
 * search walk the view's rows (steps, groups, a group's launches), never the
 * trace's events.
 */
#include "tui/table.h"

#include <ctype.h>
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
	struct tix_view_fmt f = {a->full_names, a->timeunit};
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
		pattern_done(&v->filter_re);
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

void pattern_done(struct pattern *p)
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

/* s cut to width around the bytes d[0..nd) (ascending), where it differs
 * from names that a plain cut would show alike: its name up to the
 * template arguments, then a window from a little before each d, so that
 * the rows stay apart. */
static const char *name_fit_at(const struct app *a, const char *s, const size_t *d, int nd, int width, char *buf,
                               size_t cap)
{
	const char *ell = draw_glyphs(a)->ellipsis;
	int ew = text_width(a, ell), n = count_chars(s);
	int lt = (int)strcspn(s, "<(");
	int head = lt + 1 < width / 4 ? lt + 1 : width / 4;
	int len = nd ? (width - head - (nd + 1) * ew) / nd : 0;
	if (n <= width || nd == 0 || len < 4)
		return name_fit(a, s, width, buf, cap);
	size_t used = 0;
	const char *h_end = skip_chars(s, head);
	used += (size_t)snprintf(buf, cap, "%.*s", (int)(h_end - s), s);
	int at = head; /* characters of s shown so far */
	for (int k = 0; k < nd && used < cap; k++) {
		char pre[1024];
		snprintf(pre, sizeof pre, "%.*s", (int)(d[k] < sizeof pre ? d[k] : sizeof pre - 1), s);
		int from = count_chars(pre) - 3;
		from = from > at ? from : at;
		if (from >= n)
			break;
		int take = from + len < n ? len : n - from;
		const char *w_from = skip_chars(s, from), *w_end = skip_chars(s, from + take);
		used += (size_t)snprintf(buf + used, cap - used, "%s%.*s", from > at ? ell : "", (int)(w_end - w_from), w_from);
		at = from + take;
	}
	if (at < n && used < cap)
		snprintf(buf + used, cap - used, "%s", ell);
	return buf;
}

/* s without its namespaces, inner ones too: "device_kernel<GemmUniversal<
 * GroupProblemShape<...>, ...>>" of the cutlass:: ... label; what a cut
 * that must keep where names differ works on. */
static void strip_namespaces(const char *s, char *out, size_t cap)
{
	size_t j = 0;
	int start = 1; /* at the start of a name: of s, after "<", ", ", "(", or a dropped qualifier */
	for (size_t i = 0; s[i] && j + 1 < cap;) {
		size_t k = i;
		while (start && (isalnum((unsigned char)s[k]) || s[k] == '_'))
			k++;
		if (start && k > i && s[k] == ':' && s[k + 1] == ':') { /* a qualifier: drop it */
			i = k + 2;
			continue;
		}
		start = strchr("<, (", s[i]) != NULL;
		out[j++] = s[i++];
	}
	out[j] = 0;
}

static int cmp_size(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	return (a > b) - (a < b);
}

/* The names of the rows on screen (pos top.. for h rows) cut to width:
 * where a cut would show two different names alike, each is cut around
 * where it differs from the others, until no two rows read the same (a few
 * rounds: a new cut may meet another row's).  NULL for the rows a plain
 * cut serves. */
static char **names_apart(struct app *a, struct view *v, int col, int width, int h)
{
	enum { MAXD = 8 };
	uint32_t n = v->nvis - v->top < (uint32_t)h ? v->nvis - v->top : (uint32_t)h;
	char **full = calloc(n + 1, sizeof *full), **text = calloc(n + 1, sizeof *text);
	size_t (*d)[MAXD] = calloc(n + 1, sizeof *d);
	int *nd = calloc(n + 1, sizeof *nd);
	char buf[1024], fit[1024];
	int ok = full && text && d && nd;
	for (uint32_t k = 0; ok && k < n; k++) {
		const char *s = v->ops->cell(a, v, v->order[v->top + k], col, buf, sizeof buf);
		char bare[1024];
		strip_namespaces(s, bare, sizeof bare);
		full[k] = strdup(bare); /* the rows apart are cut from it */
		text[k] = strdup(name_fit(a, s, width, fit, sizeof fit));
		ok = full[k] && text[k];
	}
	for (int round = 0, clash = 1; ok && clash && round < 4; round++) {
		clash = 0;
		for (uint32_t k = 0; k < n; k++) {
			int more = 0;
			for (uint32_t m = 0; m < n && nd[k] < MAXD; m++) {
				if (m == k || strcmp(text[k], text[m]) || !strcmp(full[k], full[m]))
					continue;
				size_t p = 0;
				while (full[k][p] && full[k][p] == full[m][p])
					p++;
				int dup = 0;
				for (int i = 0; i < nd[k]; i++)
					dup |= d[k][i] == p;
				if (!dup)
					d[k][nd[k]++] = p, more = 1;
			}
			if (!more)
				continue;
			clash = 1;
			qsort(d[k], (size_t)nd[k], sizeof d[k][0], cmp_size);
			char *t = strdup(name_fit_at(a, full[k], d[k], nd[k], width, fit, sizeof fit));
			if (t) {
				free(text[k]);
				text[k] = t;
			}
		}
	}
	char **out = ok ? calloc(n + 1, sizeof *out) : NULL;
	for (uint32_t k = 0; k < n; k++) {
		if (out && nd[k]) /* cut apart: the text to draw */
			out[k] = text[k], text[k] = NULL;
		if (full)
			free(full[k]);
		if (text)
			free(text[k]);
	}
	free(full);
	free(text);
	free(d);
	free(nd);
	return out;
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
	struct tix_view_fmt f = {a->full_names, a->timeunit};
	for (int i = 0; i < n; i++) { /* DATA: CSV and JSON only; a header is never cut */
		char tb[64];
		int tw = text_width(a, tix_col_title(&cols[i], &f, tb, sizeof tb)) + 1; /* room for the sort arrow */
		w[i] = cols[i].flags & TIX_COL_DATA ? -1 : cols[i].width > tw ? cols[i].width : tw;
		if (cols[i].flags & TIX_COL_BAR)
			w[i] = cols[i].width;
		/* a number that wants its width whole gets it, or its column goes */
		int whole = (cols[i].flags & (TIX_COL_FIT | TIX_COL_RIGHT)) == (TIX_COL_FIT | TIX_COL_RIGHT);
		if (whole && w[i] >= 0 && v->ops->width) {
			int cw = v->ops->width(a, (struct view *)v, i);
			if (cw > w[i])
				w[i] = cw;
		}
		/* one unit a column (u): "64590.393" in us; up to 1000 s in any unit */
		int dur = cols[i].unit == TIX_UNIT_DUR || cols[i].unit == TIX_UNIT_TIME || cols[i].unit == TIX_UNIT_DDUR;
		if (dur && a->timeunit != TIX_TU_AUTO && w[i] >= 0 && w[i] < 12 + (cols[i].unit != TIX_UNIT_DUR))
			w[i] = 12 + (cols[i].unit != TIX_UNIT_DUR);
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
			/* a flexible column that fits its content (Input Dims) is
			 * served before the others that do (an op name's padding) */
			for (int pass = 0; pass < 2; pass++)
				for (int i = 0; i < n && v->ops->width; i++) {
					int fit = (cols[i].flags & TIX_COL_FIT) && !(cols[i].flags & TIX_COL_RIGHT);
					if (w[i] < 0 || !fit || ((cols[i].flags & TIX_COL_FLEX) == 0) != pass)
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
 * needs in the flexible column, at most max and WRAP_LINES. */
#define WRAP_LINES 3
static int row_lines(struct app *a, struct view *v, uint32_t row, int flex, int fw, int max)
{
	if (max > WRAP_LINES)
		max = WRAP_LINES;
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
                      int lines, int attr, const char *apart)
{
	char buf[1024], fit[1024];
	const struct glyphs *g = draw_glyphs(a);
	const char *s = v->ops->cell(a, v, row, col, buf, sizeof buf);
	if (apart && lines <= 1 && v->hscroll <= 0) /* cut where it differs from another row */
		s = apart;
	int lead = 0;
	if (v->hscroll > 0 && s[0]) {
		s = skip_chars(s, v->hscroll);
		lead = draw_text(a, y, x, w, g->ellipsis, 0);
	}
	if (lines <= 1) {
		if ((v->cols[col].flags & (TIX_COL_NAME | TIX_COL_PROSE) || !a->full_names) && s != apart)
			s = cell_fit(a, v, col, s, w - lead, fit, sizeof fit);
		draw_text(a, y, x + lead, w - lead, s, 1);
	} else {
		/* wrap: w columns a line, at most WRAP_LINES (the detail has it whole) */
		const char *p = s;
		for (int k = 0; k < lines && *p; k++) {
			int used = draw_text(a, y + k, x + (k ? 0 : lead), w - (k ? 0 : lead), p, 1);
			if (used == 0)
				break;
			for (; used > 0 && *p; used--) /* past the characters drawn */
				for (p++; (*p & 0xc0) == 0x80; p++)
					;
			if (k == lines - 1 && *p && w > 1) /* more than the lines hold: say so */
				draw_text(a, y + k, x + w - text_width(a, g->ellipsis), text_width(a, g->ellipsis),
				          g->ellipsis, 0);
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
	double d = v->cols[col].unit == TIX_UNIT_FDELTA ? c.d : (double)c.i;
	if (!c.known || d == 0)
		return 0;
	return draw_attr(a, d < 0 ? CR_GPU : CR_WARN);
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
			char t[64], tb[64];
			struct tix_view_fmt f = {a->full_names, a->timeunit};
			const char *title = tix_col_title(&cols[i], &f, tb, sizeof tb);
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
	/* names kept apart where a cut would show them alike; words are not names */
	char **apart = flex >= 0 && !a->full_names && !(cols[flex].flags & TIX_COL_PROSE)
	                       ? names_apart(a, v, flex, w[flex], h)
	                       : NULL;
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
				draw_name(a, v, row, i, y0 + y, x, w[i], lines, attr,
				          apart ? apart[pos - (int)v->top] : NULL);
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
	for (uint32_t k = 0; apart && k < (uint32_t)h && k + v->top < v->nvis; k++)
		free(apart[k]);
	free(apart);
}
