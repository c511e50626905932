/*
 * The views' model: opening a kind, and what every kind shares: the text of
 * a cell by its unit, comparisons, the widest text of a column.
 */
#include "index/view/view_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct view_kind_ops *kind_ops(enum tix_view_kind kind)
{
	switch (kind) {
	case TIX_VIEW_STEPS: return &view_steps_kind;
	case TIX_VIEW_KERNELS: return &view_kernels_kind;
	case TIX_VIEW_LAUNCHES: return &view_launches_kind;
	case TIX_VIEW_OPS: return &view_ops_kind;
	case TIX_VIEW_CMP_KERNELS: return &view_cmp_kernels_kind;
	case TIX_VIEW_CMP_OPS: return &view_cmp_ops_kind;
	case TIX_VIEW_CMP_STEPS: return &view_cmp_steps_kind;
	case TIX_VIEW_CMP_SHAPES: return &view_cmp_shapes_kind;
	case TIX_VIEW_CMP_LAUNCHES: return &view_cmp_launches_kind;
	case TIX_VIEW_CMP_FINDINGS: return &view_cmp_findings_kind;
	case TIX_VIEW_RANKS: return &view_ranks_kind;
	case TIX_VIEW_FINDINGS: return &view_findings_kind;
	case TIX_VIEW_COUNT: break;
	}
	return NULL;
}

struct tix_view_scope tix_view_scope_all(void)
{
	return (struct tix_view_scope){TIX_NONE, TIX_NONE, TIX_NONE, NULL, 0, NULL};
}

static struct tix_view *view_open(struct tix_index *ix, struct tix_index *other,
                                   enum tix_view_kind kind, const struct tix_view_scope *scope,
                                   const struct tix_compare_scope *cmp, struct tix_error *err);

struct tix_view *tix_view_new(struct tix_index *ix, enum tix_view_kind kind,
                              const struct tix_view_scope *scope, struct tix_error *err)
{
	if (kind == TIX_VIEW_FINDINGS) {
		tix_error_set(err, "a findings view is opened over its findings (tix_view_findings)");
		return NULL;
	}
	if (kind >= TIX_VIEW_CMP_KERNELS) {
		tix_error_set(err, "a compare or ranks view needs several traces");
		return NULL;
	}
	return view_open(ix, NULL, kind, scope, NULL, err);
}

/* A view over a model of its own (a rank set, findings): arg, borrowed. */
static struct tix_view *view_over(struct tix_index *ix, enum tix_view_kind kind, const void *arg,
                                  struct tix_error *err)
{
	const struct view_kind_ops *k = kind_ops(kind);
	struct tix_view *v = calloc(1, sizeof *v);
	if (!v) {
		tix_error_oom(err, ix ? tix_index_path(ix) : NULL);
		return NULL;
	}
	v->ix = ix;
	v->kind = kind;
	v->k = k;
	v->scope = tix_view_scope_all();
	v->arg = arg;
	if (k->open(v, err) != 0) {
		free(v);
		return NULL;
	}
	return v;
}

struct tix_view *tix_view_ranks(const struct tix_rank_set *rs, struct tix_error *err)
{
	return view_over(NULL, TIX_VIEW_RANKS, rs, err);
}

struct tix_view *tix_view_findings(struct tix_index *ix, const struct tix_findings *f,
                                   struct tix_error *err)
{
	return view_over(ix, TIX_VIEW_FINDINGS, f, err);
}

struct tix_view *tix_view_compare(struct tix_index *base, struct tix_index *new_, enum tix_view_kind kind,
                                  const struct tix_compare_scope *scope, struct tix_error *err)
{
	if (kind < TIX_VIEW_CMP_KERNELS || kind > TIX_VIEW_CMP_FINDINGS) {
		tix_error_set(err, "not a compare view");
		return NULL;
	}
	static const struct tix_compare_scope none = {TIX_NONE, {TIX_NONE, TIX_NONE}};
	return view_open(base, new_, kind, NULL, scope ? scope : &none, err);
}

static struct tix_view *view_open(struct tix_index *ix, struct tix_index *other,
                                   enum tix_view_kind kind, const struct tix_view_scope *scope,
                                   const struct tix_compare_scope *cmp, struct tix_error *err)
{
	const struct view_kind_ops *k = kind_ops(kind);
	struct tix_view *v = k ? calloc(1, sizeof *v) : NULL;
	if (!v) {
		tix_error_oom(err, ix ? tix_index_path(ix) : NULL);
		return NULL;
	}
	struct tix_summary_info si;
	tix_index_summary(ix, &si);
	v->ix = ix;
	v->kind = kind;
	v->k = k;
	v->scope = scope ? *scope : tix_view_scope_all();
	v->first_ns = si.first_ns;
	v->other = other;
	if (cmp)
		v->cmp = *cmp;
	if (k->open(v, err) != 0) {
		free(v);
		return NULL;
	}
	return v;
}

void tix_view_free(struct tix_view *v)
{
	if (!v)
		return;
	if (v->k->close)
		v->k->close(v);
	free(v);
}

enum tix_view_kind tix_view_kind(const struct tix_view *v)
{
	return v->kind;
}

struct tix_index *tix_view_index(const struct tix_view *v)
{
	return v->ix;
}

const struct tix_view_scope *tix_view_scope(const struct tix_view *v)
{
	return &v->scope;
}

const struct tix_col *tix_view_cols(enum tix_view_kind kind, int *ncols)
{
	const struct view_kind_ops *k = kind_ops(kind);
	*ncols = k ? k->ncols : 0;
	return k ? k->cols : NULL;
}

const struct tix_col *tix_view_columns(const struct tix_view *v, int *ncols)
{
	*ncols = v->k->ncols;
	return v->k->cols;
}

int tix_view_col(const struct tix_view *v, const char *key)
{
	for (int i = 0; i < v->k->ncols; i++)
		if (v->k->cols[i].key && !strcmp(v->k->cols[i].key, key))
			return i;
	return -1;
}

const char *tix_view_what(const struct tix_view *v, int col)
{
	return v->k->what && col >= 0 && col < v->k->ncols ? v->k->what[col] : NULL;
}

int tix_view_rank(const struct tix_view *v)
{
	return v->k->rank_col;
}

int tix_view_col_by_key(enum tix_view_kind kind, const char *key)
{
	int n;
	const struct tix_col *c = tix_view_cols(kind, &n);
	for (int i = 0; i < n; i++)
		if (c[i].key && !strcmp(c[i].key, key))
			return i;
	return -1;
}

int tix_view_rank_col(enum tix_view_kind kind)
{
	const struct view_kind_ops *k = kind_ops(kind);
	return k ? k->rank_col : -1;
}

uint32_t tix_view_rows(const struct tix_view *v)
{
	return v->nrows;
}

uint32_t tix_view_pinned(const struct tix_view *v)
{
	return v->pinned;
}

void tix_view_cell(const struct tix_view *v, uint32_t row, int col, struct tix_cell *out)
{
	memset(out, 0, sizeof *out);
	if (row < v->nrows && col >= 0 && col < v->k->ncols)
		v->k->cell(v, row, col, out);
}

/* The label of a GPU work or op name: the index's short label (unique among
 * the trace's GPU work names), else the name shortened here, else itself. */
const char *tix_name_label(const struct tix_index *ix, uint32_t str, int full, char *buf, size_t cap)
{
	uint32_t fn = tix_name_full(ix, str), sh = tix_name_short(ix, str);
	if (full)
		return tix_str(ix, fn);
	if (sh != TIX_NONE)
		return tix_str(ix, sh);
	tix_short_name(tix_str(ix, fn), tix_str_len(ix, fn), buf, cap);
	return buf;
}

static const char *cell_text(const struct tix_view *v, const struct tix_cell *cp, enum tix_unit u,
                             const struct tix_view_fmt *f, char *buf, size_t cap);

/* A signed count with thousands separators ("+1,440", "-3", "+0"), or, for
 * a count per step, one decimal when it is not whole ("-0.5", "39.3"). */
static char *fmt_count_signed(double d, int sign, int whole, char *buf, size_t cap)
{
	double a = d < 0 ? -d : d;
	/* in tenths, rounded; a count is whole */
	int64_t t = whole ? (int64_t)(a + 0.5) * 10 : (int64_t)(a * 10 + 0.5);
	char n[48];
	tix_fmt_count((uint64_t)(t / 10), n, sizeof n);
	if (t % 10) {
		size_t len = strlen(n);
		snprintf(n + len, sizeof n - len, ".%d", (int)(t % 10));
	}
	const char *s = t == 0 ? (sign ? "+" : "") : d < 0 ? "-" : sign ? "+" : "";
	snprintf(buf, cap, "%s%s", s, n);
	return buf;
}

const char *tix_view_text(const struct tix_view *v, uint32_t row, int col,
                          const struct tix_view_fmt *f, char *buf, size_t cap)
{
	static const struct tix_view_fmt defaults = {0, TIX_TU_AUTO};
	struct tix_cell c;
	if (!f)
		f = &defaults;
	tix_view_cell(v, row, col, &c);
	if (col < 0 || col >= v->k->ncols)
		return "";
	enum tix_unit u = v->k->cols[col].unit;
	if (!c.mark)
		return cell_text(v, &c, u, f, buf, cap);
	char tmp[1024];
	const char *t = cell_text(v, &c, u, f, tmp, sizeof tmp);
	snprintf(buf, cap, "%s%s", c.mark, t);
	return buf;
}

static const char *cell_text(const struct tix_view *v, const struct tix_cell *cp, enum tix_unit u,
                             const struct tix_view_fmt *f, char *buf, size_t cap)
{
	struct tix_cell c = *cp;
	if (c.s && u != TIX_UNIT_TEXT)
		return c.s;
	if (!c.known)
		return u == TIX_UNIT_BAR ? "" : "-";
	switch (u) {
	case TIX_UNIT_TEXT: return c.s ? c.s : "";
	case TIX_UNIT_NAME: return tix_name_label(c.ix ? c.ix : v->ix, (uint32_t)c.i, f->full_names, buf, cap);
	case TIX_UNIT_INT: snprintf(buf, cap, "%" PRId64, c.i); return buf;
	case TIX_UNIT_COUNT: return tix_fmt_count((uint64_t)c.i, buf, cap);
	case TIX_UNIT_DUR: return tix_fmt_dur_unit(c.i, f->timeunit, buf, cap);
	case TIX_UNIT_TIME: /* an offset and a change of time both carry their sign */
	case TIX_UNIT_DDUR:
		if (cap < 2)
			return "";
		buf[0] = c.i < 0 ? '-' : '+';
		tix_fmt_dur_unit(c.i < 0 ? -c.i : c.i, f->timeunit, buf + 1, cap - 1);
		return buf;
	case TIX_UNIT_PCT: snprintf(buf, cap, "%.1f", c.d); return buf;
	case TIX_UNIT_DIM3:
		snprintf(buf, cap, "[%d,%d,%d]", c.dim[0], c.dim[1], c.dim[2]);
		return buf;
	case TIX_UNIT_BYTES: return tix_fmt_scaled((double)c.i, "B", buf, cap);
	case TIX_UNIT_BOOL: return c.i ? "yes" : "no";
	case TIX_UNIT_DELTA: return fmt_count_signed((double)c.i, 1, 1, buf, cap);
	case TIX_UNIT_FCOUNT: return fmt_count_signed(c.d, 0, 0, buf, cap);
	case TIX_UNIT_FDELTA: return fmt_count_signed(c.d, 1, 0, buf, cap);
	case TIX_UNIT_RATIO: snprintf(buf, cap, "%.2fx", c.d); return buf;
	case TIX_UNIT_BAR: return "";
	case TIX_UNIT_FLOPS: return tix_fmt_scaled(c.d, "FLOP", buf, cap);
	case TIX_UNIT_FLOP_RATE: return tix_fmt_scaled(c.d, "FLOP/s", buf, cap);
	case TIX_UNIT_BYTE_RATE: return tix_fmt_scaled(c.d, "B/s", buf, cap);
	case TIX_UNIT_FRACTION: snprintf(buf, cap, "%.1f%%", 100 * c.d); return buf;
	}
	return "";
}

static int cmp_num(int64_t x, int64_t y, int asc)
{
	int c = (x > y) - (x < y);
	return asc ? c : -c;
}

int tix_view_cmp(const struct tix_view *v, uint32_t ra, uint32_t rb, int col)
{
	if (col < 0 || col >= v->k->ncols)
		return 0;
	if (v->k->cmp)
		return v->k->cmp(v, ra, rb, col);
	struct tix_cell x, y;
	tix_view_cell(v, ra, col, &x);
	tix_view_cell(v, rb, col, &y);
	return view_cmp_cells(v, col, &x, &y);
}

int view_cmp_cells(const struct tix_view *v, int col, const struct tix_cell *px, const struct tix_cell *py)
{
	const struct tix_col *cd = &v->k->cols[col];
	struct tix_cell x = *px, y = *py;
	if (x.known != y.known) /* unknown last, whatever the direction */
		return x.known ? -1 : 1;
	if (!x.known)
		return 0;
	int asc = (cd->flags & TIX_COL_ASC) != 0;
	if (cd->flags & TIX_COL_SIGNED) { /* the largest change first, either way */
		x.i = x.i < 0 ? -x.i : x.i;
		y.i = y.i < 0 ? -y.i : y.i;
		x.d = x.d < 0 ? -x.d : x.d;
		y.d = y.d < 0 ? -y.d : y.d;
	}
	switch (cd->unit) {
	case TIX_UNIT_TEXT: return strcmp(x.s ? x.s : "", y.s ? y.s : "");
	case TIX_UNIT_NAME: { /* by the label on screen, not the full name behind it */
		if (x.i == y.i && x.ix == y.ix)
			return 0;
		char bx[512], by[512];
		return strcmp(tix_name_label(x.ix ? x.ix : v->ix, (uint32_t)x.i, 0, bx, sizeof bx),
		              tix_name_label(y.ix ? y.ix : v->ix, (uint32_t)y.i, 0, by, sizeof by));
	}
	case TIX_UNIT_PCT:
	case TIX_UNIT_FCOUNT:
	case TIX_UNIT_FDELTA:
	case TIX_UNIT_RATIO:
	case TIX_UNIT_FLOPS:
	case TIX_UNIT_FLOP_RATE:
	case TIX_UNIT_BYTE_RATE:
	case TIX_UNIT_FRACTION: return (x.d > y.d) == (y.d > x.d) ? 0 : ((x.d > y.d) == !asc ? -1 : 1);
	case TIX_UNIT_DIM3:
		return cmp_num((int64_t)x.dim[0] * x.dim[1] * x.dim[2],
		               (int64_t)y.dim[0] * y.dim[1] * y.dim[2], asc);
	default: return cmp_num(x.i, y.i, asc);
	}
}

double tix_view_share(const struct tix_view *v, uint32_t row)
{
	return v->k->share && row < v->nrows ? v->k->share(v, row) : 0;
}

static int utf8_chars(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += (*s & 0xc0) != 0x80;
	return n;
}

int tix_view_width(const struct tix_view *v, int col)
{
	if (col < 0 || col >= v->k->ncols)
		return 0;
	if (col < 16 && v->fit_width[col])
		return v->fit_width[col];
	int w = 1;
	char buf[1024];
	for (uint32_t r = 0; r < v->nrows; r++) {
		int n = utf8_chars(tix_view_text(v, r, col, NULL, buf, sizeof buf));
		if (n > w)
			w = n;
	}
	if (col < 16)
		((struct tix_view *)v)->fit_width[col] = w; /* a cache of a pure answer */
	return w;
}

void tix_view_ref(const struct tix_view *v, uint32_t row, struct tix_view_ref *out)
{
	*out = (struct tix_view_ref){TIX_NONE, TIX_NONE, TIX_NONE, TIX_NONE};
	if (row < v->nrows && v->k->ref)
		v->k->ref(v, row, out);
}
