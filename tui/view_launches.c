/*
 * Launches: the members of one group (a kernel name) in a step or overall,
 * one row per GPU event, in time order.  Rows on screen are decoded when
 * drawn; sorting decodes the group's members once into a key table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/table.h"
#include "tui/view.h"

static int launches_request(struct app *a, struct view *v, enum req r);

static int launches_open(struct app *a, struct view *v)
{
	if (v->args.group == TIX_NONE || v->args.group >= tix_group_count(a->ix)) {
		app_msg(a, "no kernel chosen");
		return -1;
	}
	return view_open_model(a, v, TIX_VIEW_LAUNCHES);
}

/* The event row of a view row. */
static uint32_t member(const struct view *v, uint32_t row)
{
	struct tix_view_ref r;
	tix_view_ref(v->model, row, &r);
	return r.event;
}

static const struct tix_kernel_info *info_of(struct app *a, const struct tix_event *ev)
{
	return ev->kernel_info == TIX_NONE ? NULL : tix_kernel_info_get(a->ix, ev->kernel_info);
}

/* What / and f match: "grid [557496, 1, 1] block [128, 1, 1] stream 7".
 * Decodes one event and its kernel record per launch (no parent walk), so
 * a search over the 35K launches of a kernel stays in a few milliseconds. */
static const char *launches_text(struct app *a, struct view *v, uint32_t row, char *buf, size_t cap)
{
	struct tix_event ev;
	tix_event_get(a->ix, member(v, row), &ev);
	const struct tix_kernel_info *ki = info_of(a, &ev);
	if (!ki)
		return "";
	snprintf(buf, cap, "grid [%d, %d, %d] block [%d, %d, %d] stream %d", ki->grid[0], ki->grid[1],
	         ki->grid[2], ki->block[0], ki->block[1], ki->block[2], ki->stream);
	return buf;
}

static int launches_enter(struct app *a, struct view *v, uint32_t row)
{
	struct view_args va = view_args_none();
	va.step = v->args.step;
	va.group = v->args.group;
	va.row = member(v, row);
	va.ordinal = row;
	return app_push(a, &view_detail_ops, &va) ? 0 : -1;
}

static uint32_t launches_hottest(struct app *a, struct view *v)
{
	uint32_t best = TIX_NONE;
	int col = tix_view_rank_col(TIX_VIEW_LAUNCHES);
	for (uint32_t r = 0; r < v->nrows; r++)
		if (best == TIX_NONE || tix_view_cmp(v->model, r, best, col) < 0)
			best = r;
	return best;
}

static void launches_crumb(struct app *a, struct view *v, char *buf, size_t cap)
{
	char name[1024];
	char fit[256];
	const char *nm = app_name(a, tix_group_get(a->ix, v->args.group)->name, name, sizeof name);
	snprintf(buf, cap, "%s", name_fit(a, nm, 40, fit, sizeof fit));
}

static void launches_context(struct app *a, struct view *v, struct ctx *c)
{
	c->step = v->args.step;
	c->group = v->args.group;
	uint32_t row = view_cur_row(v);
	if (row != TIX_NONE)
		c->row = member(v, row);
}

static void launches_select(struct app *a, struct view *v, const struct ctx *c)
{
	if (c->row == TIX_NONE)
		return;
	for (uint32_t r = 0; r < v->nrows; r++)
		if (member(v, r) == c->row) {
			view_goto_row(v, r);
			return;
		}
}

static int launches_export(struct app *a, struct view *v, struct tix_export_sel *sel, char *path,
                           size_t cap, void **owned)
{
	uint32_t row = view_cur_row(v);
	if (row == TIX_NONE) {
		app_msg(a, "no launch selected");
		return -1;
	}
	uint32_t *one = malloc(sizeof *one);
	if (!one) {
		app_msg(a, "out of memory");
		return -1;
	}
	*one = member(v, row);
	sel->rows = one;
	sel->nrows = 1;
	*owned = one;
	snprintf(path, cap, "launch%u", *one);
	return 0;
}

const struct view_ops view_launches_ops = {
	.name = "Launches",
	.rows_name = "launches",
	.kind = VK_LAUNCHES,
	.default_sort = -1,
	.open = launches_open,
	.cell = model_cell,
	.cmp = model_cmp,
	.text = launches_text,
	.enter = launches_enter,
	.hottest = launches_hottest,
	.crumb = launches_crumb,
	.context = launches_context,
	.select = launches_select,
	.export_sel = launches_export,
	.request = launches_request,
};

/* ---- shapes (p): launches grouped by their op's (Input Dims, Input type) ----
 * A view pushed over the launches view: one row per (op, dims, types) with
 * the launch count and time.  Built once when asked: one parent walk per
 * launch, then a sort, so 35K launches take tens of milliseconds.  Over the
 * Ops view it groups the selected op's own instances (count and CPU time):
 * one pass over the trace's events, when asked, as F does. */

enum { S_COUNT, S_TOTAL, S_AVG, S_OP, S_TYPES, S_DIMS };

static const struct tix_col shape_cols[] = {
	[S_COUNT] = {"Launches", 8, TIX_COL_RIGHT, 0, NULL, TIX_UNIT_TEXT},
	[S_TOTAL] = {"Total", 9, TIX_COL_RIGHT, 0, NULL, TIX_UNIT_TEXT},
	[S_AVG] = {"Avg", 9, TIX_COL_RIGHT, 1, NULL, TIX_UNIT_TEXT},
	[S_OP] = {"Op", 14, TIX_COL_ASC, 2, NULL, TIX_UNIT_TEXT},
	[S_TYPES] = {"Input type", 26, TIX_COL_ASC, 3, NULL, TIX_UNIT_TEXT},
	[S_DIMS] = {"Input Dims", 20, TIX_COL_FLEX | TIX_COL_ASC, 0, NULL, TIX_UNIT_TEXT},
};

static const struct tix_col op_shape_cols[] = {
	[S_COUNT] = {"Calls", 8, TIX_COL_RIGHT, 0, NULL, TIX_UNIT_TEXT},
	[S_TOTAL] = {"CPU time", 9, TIX_COL_RIGHT, 0, NULL, TIX_UNIT_TEXT},
	[S_AVG] = {"Avg", 9, TIX_COL_RIGHT, 1, NULL, TIX_UNIT_TEXT},
	[S_OP] = {"Op", 14, TIX_COL_ASC, 2, NULL, TIX_UNIT_TEXT},
	[S_TYPES] = {"Input type", 26, TIX_COL_ASC, 3, NULL, TIX_UNIT_TEXT},
	[S_DIMS] = {"Input Dims", 20, TIX_COL_FLEX | TIX_COL_ASC, 0, NULL, TIX_UNIT_TEXT},
};

struct shape {
	uint32_t op, dims, types;  /* string ids, TIX_NONE when unknown */
	uint32_t first;            /* launch row (in the launches view) of the first one */
	uint32_t count;
	int64_t total;
};

struct shapes {
	struct view *under;        /* the launches (or ops) view */
	int of_op;                 /* over the Ops view: rows are op instances */
	struct shape *s;
	uint32_t n;
};

static int shape_key_cmp(const void *pa, const void *pb)
{
	const struct shape *x = pa, *y = pb;
	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	if (x->dims != y->dims)
		return x->dims < y->dims ? -1 : 1;
	if (x->types != y->types)
		return x->types < y->types ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* The innermost CPU op above a launch with its shapes (op TIX_NONE: none). */
static void launch_shape(struct app *a, uint32_t member, struct shape *out)
{
	struct tix_event ev;
	tix_event_get(a->ix, member, &ev);
	out->op = out->dims = out->types = TIX_NONE;
	out->total = ev.dur_ns;
	if (ev.launch == TIX_NONE)
		return;
	uint32_t anc[256];
	uint32_t n = tix_event_ancestors(a->ix, ev.launch, anc, 256);
	for (uint32_t d = 0; d < n && d < 256; d++) {
		struct tix_event e;
		tix_event_get(a->ix, anc[d], &e);
		if (e.kind != TIX_KIND_CPU_OP)
			continue;
		out->op = e.name;
		const struct tix_op_info *oi =
			e.op_info == TIX_NONE ? NULL : tix_op_info_get(a->ix, e.op_info);
		if (oi) {
			out->dims = oi->dims;
			out->types = oi->types;
		}
		return;
	}
}

/* The instances of op rank `op` grouped by shape: all events, once. */
static int is_name(void *ctx, uint32_t name)
{
	return name == *(const uint32_t *)ctx;
}

/* The instances of op rank `op` (of step `step` only, unless TIX_NONE)
 * grouped by shape: the rows of its name, which the index keeps. */
static int op_shapes(struct app *a, uint32_t op, uint32_t step, struct shape **out, uint32_t *nout)
{
	uint32_t name = tix_op_get(a->ix, op)->name, *rows = NULL, n = 0;
	long nr = tix_find_by_name(a->ix, is_name, &name, UINT32_MAX, &rows);
	struct shape *all = nr >= 0 ? malloc(((size_t)nr + 1) * sizeof *all) : NULL;
	if (!all) {
		free(rows);
		return -1;
	}
	for (long i = 0; i < nr; i++) {
		struct tix_event e;
		tix_event_get(a->ix, rows[i], &e);
		if (e.kind != TIX_KIND_CPU_OP || (step != TIX_NONE && tix_event_step(a->ix, rows[i]) != step))
			continue;
		const struct tix_op_info *oi =
			e.op_info == TIX_NONE ? NULL : tix_op_info_get(a->ix, e.op_info);
		all[n++] = (struct shape){name, oi ? oi->dims : TIX_NONE, oi ? oi->types : TIX_NONE, rows[i], 1,
		                          e.dur_ns};
	}
	free(rows);
	*out = all;
	*nout = n;
	return 0;
}

static int shapes_open(struct app *a, struct view *v)
{
	struct view *u = app_top(a);
	if (u && u->ops == &view_ops_ops) {
		uint32_t op = view_ops_selected(u);
		struct shapes *p = calloc(1, sizeof *p);
		if (!p || op == TIX_NONE || op_shapes(a, op, u->args.step, &p->s, &p->n) != 0) {
			free(p);
			app_msg(a, op == TIX_NONE ? "no op selected" : "out of memory");
			return -1;
		}
		qsort(p->s, p->n, sizeof *p->s, shape_key_cmp);
		uint32_t k = 0;
		for (uint32_t r = 0; r < p->n; r++) {
			if (k && p->s[k - 1].dims == p->s[r].dims && p->s[k - 1].types == p->s[r].types) {
				p->s[k - 1].count++;
				p->s[k - 1].total += p->s[r].total;
				continue;
			}
			p->s[k++] = p->s[r];
		}
		p->n = k;
		p->under = u;
		p->of_op = 1;
		v->priv = p;
		view_set_rows(v, k);
		return 0;
	}
	if (!u || u->ops != &view_launches_ops) {
		app_msg(a, "shapes: from a list of launches or ops");
		return -1;
	}
	struct shapes *p = calloc(1, sizeof *p);
	uint32_t n = u->nrows;
	struct shape *all = calloc(n ? n : 1, sizeof *all);
	if (!p || !all) {
		free(p);
		free(all);
		return -1;
	}
	for (uint32_t r = 0; r < n; r++) {
		launch_shape(a, member(u, r), &all[r]);
		all[r].first = r;
		all[r].count = 1;
	}
	qsort(all, n, sizeof *all, shape_key_cmp);
	uint32_t k = 0;
	for (uint32_t r = 0; r < n; r++) {
		if (k && all[k - 1].op == all[r].op && all[k - 1].dims == all[r].dims &&
		    all[k - 1].types == all[r].types) {
			all[k - 1].count++;
			all[k - 1].total += all[r].total;
			continue;
		}
		all[k++] = all[r];
	}
	p->under = u;
	p->s = all;
	p->n = k;
	v->priv = p;
	view_set_rows(v, k);
	return 0;
}

static void shapes_close(struct view *v)
{
	struct shapes *p = v->priv;
	if (p)
		free(p->s);
	free(p);
}

/* "Float8_e4m3fn -> BFloat16" for a copy (its source, then its destination),
 * else the tensor types in order; c10::, quotes and Scalar entries dropped. */
static const char *types_text(struct app *a, const struct shape *s, char *buf, size_t cap)
{
	if (s->types == TIX_NONE)
		return "-";
	char t[8][64];
	int nt = 0;
	const char *p = tix_str(a->ix, s->types);
	while (*p && nt < 8) {
		p += strcspn(p, "\"");
		if (!*p)
			break;
		const char *q = strchr(p + 1, '"');
		if (!q)
			break;
		const char *b = p + 1;
		if (strncmp(b, "c10::", 5) == 0)
			b += 5;
		/* tensors only: Scalar and empty entries are not a tensor's type */
		if (q > b && strncmp(b, "Scalar", (size_t)(q - b)) != 0)
			snprintf(t[nt++], sizeof t[0], "%.*s", (int)(q - b), b);
		p = q + 1;
	}
	if (nt == 0)
		return tix_fold_ws(tix_str(a->ix, s->types), buf, cap);
	if (nt == 2 && s->op != TIX_NONE && strcmp(tix_str(a->ix, s->op), "aten::copy_") == 0) {
		snprintf(buf, cap, "%s -> %s", t[1], t[0]);
		return buf;
	}
	size_t o = 0;
	buf[0] = 0;
	for (int i = 0; i < nt && o < cap; i++)
		o += (size_t)snprintf(buf + o, cap - o, "%s%s", i ? ", " : "", t[i]);
	return buf;
}

static const char *shapes_cell(struct app *a, struct view *v, uint32_t row, int col, char *buf,
                               size_t cap)
{
	const struct shape *s = &((struct shapes *)v->priv)->s[row];
	switch (col) {
	case S_COUNT: return tix_fmt_count(s->count, buf, cap);
	case S_TOTAL: return tix_fmt_dur_unit(s->total, TIX_TU_AUTO, buf, cap);
	case S_AVG: return tix_fmt_dur_unit(s->count ? s->total / s->count : 0, TIX_TU_AUTO, buf, cap);
	case S_OP: return s->op == TIX_NONE ? "(no CPU op)" : tix_str(a->ix, s->op);
	case S_TYPES: return types_text(a, s, buf, cap);
	case S_DIMS:
		return s->dims == TIX_NONE ? "(no shapes)" : tix_fold_ws(tix_str(a->ix, s->dims), buf, cap);
	}
	return "";
}

static int shapes_cmp(struct app *a, struct view *v, uint32_t ra, uint32_t rb, int col)
{
	const struct shape *x = &((struct shapes *)v->priv)->s[ra], *y = &((struct shapes *)v->priv)->s[rb];
	char bx[512], by[512];
	switch (col) {
	case S_COUNT: return cmp_big_first(x->count, y->count);
	case S_AVG:
		return cmp_big_first(x->count ? x->total / x->count : 0, y->count ? y->total / y->count : 0);
	case S_OP:
	case S_TYPES:
	case S_DIMS:
		return strcmp(shapes_cell(a, v, ra, col, bx, sizeof bx), shapes_cell(a, v, rb, col, by, sizeof by));
	}
	return cmp_big_first(x->total, y->total);
}

static const char *shapes_text(struct app *a, struct view *v, uint32_t row, char *buf, size_t cap)
{
	char t[256], d[512];
	snprintf(buf, cap, "%s %s %s", shapes_cell(a, v, row, S_OP, t, sizeof t),
	         shapes_cell(a, v, row, S_DIMS, d, sizeof d), shapes_cell(a, v, row, S_TYPES, t, sizeof t));
	return buf;
}

/* "78 launches, all [[495552, 1, 576], ...] Float8_e4m3fn -> BFloat16" */
static void shapes_crumb(struct app *a, struct view *v, char *buf, size_t cap)
{
	struct shapes *p = v->priv;
	uint32_t launches = 0;
	for (uint32_t i = 0; i < p->n; i++)
		launches += p->s[i].count;
	const char *what = p->of_op ? (launches == 1 ? "call" : "calls")
	                            : (launches == 1 ? "launch" : "launches");
	if (p->n != 1) {
		snprintf(buf, cap, "%u %s in %u shapes", launches, what, p->n);
		return;
	}
	char d[512], first[128], t[256];
	const char *dims = shapes_cell(a, v, 0, S_DIMS, d, sizeof d);
	/* the first tensor's dims: "[[495552, 1, 576], ...]" */
	size_t close = strcspn(dims + 1, "]");
	if (dims[0] == '[' && dims[1] == '[' && dims[1 + close] && dims[2 + close] == ',')
		snprintf(first, sizeof first, "%.*s], ...]", (int)(close + 1), dims);
	else
		snprintf(first, sizeof first, "%s", dims);
	snprintf(buf, cap, "%u %s, all %s %s", launches, what, first,
	         shapes_cell(a, v, 0, S_TYPES, t, sizeof t));
}

static int shapes_request(struct app *a, struct view *v, enum req r)
{
	struct shapes *p = v->priv;
	if (r == REQ_SHAPES || r == REQ_QUIT) {
		app_pop(a);
		return 1;
	}
	if ((r == REQ_ENTER || r == REQ_RIGHT) && p->of_op) {
		/* the timeline at the first call of this shape */
		uint32_t row = view_cur_row(v);
		if (row == TIX_NONE)
			return 1;
		struct view_args va = view_args_none();
		va.row = p->s[row].first;
		va.step = tix_event_step(a->ix, va.row);
		app_push(a, &view_timeline_ops, &va);
		return 1;
	}
	if (r == REQ_ENTER || r == REQ_RIGHT) {
		/* back to the launches, on the first launch of this shape */
		uint32_t row = view_cur_row(v);
		struct view *u = p->under;
		uint32_t first = row == TIX_NONE ? TIX_NONE : p->s[row].first;
		app_pop(a);
		if (first != TIX_NONE)
			view_goto_row(u, first);
		return 1;
	}
	return 0;
}

const struct view_ops view_shapes_ops = {
	.name = "Shapes",
	.rows_name = "shapes",
	.kind = VK_SHAPES,
	.cols = shape_cols,
	.ncols = sizeof shape_cols / sizeof shape_cols[0],
	.default_sort = S_TOTAL,
	.open = shapes_open,
	.close = shapes_close,
	.cell = shapes_cell,
	.cmp = shapes_cmp,
	.text = shapes_text,
	.request = shapes_request,
	.crumb = shapes_crumb,
};

/* The same over the Ops view: the op's calls and their CPU time. */
const struct view_ops view_op_shapes_ops = {
	.name = "Shapes",
	.rows_name = "shapes",
	.kind = VK_SHAPES,
	.cols = op_shape_cols,
	.ncols = sizeof op_shape_cols / sizeof op_shape_cols[0],
	.default_sort = S_TOTAL,
	.open = shapes_open,
	.close = shapes_close,
	.cell = shapes_cell,
	.cmp = shapes_cmp,
	.text = shapes_text,
	.request = shapes_request,
	.crumb = shapes_crumb,
};

static int launches_request(struct app *a, struct view *v, enum req r)
{
	if (r != REQ_SHAPES)
		return 0;
	struct view_args va = view_args_none();
	struct view *s = app_push(a, &view_shapes_ops, &va);
	if (s) {
		char c[512];
		shapes_crumb(a, s, c, sizeof c);
		app_msg(a, "%s", c);
	}
	return 1;
}
