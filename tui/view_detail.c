/*
 * Detail of one event, usually a kernel launch: the model's items
 * (index/view/detail.c: kernel fields, the launch call, the CPU ops above
 * it with their shapes, the bytes moved, python frames, args), the same
 * `tix show` prints, laid out once into lines at the screen width (again on
 * a resize), so scrolling, search and filter are the table's.
 */
#include <stdarg.h>
#include "index/grow.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/table.h"
#include "tui/view.h"

enum role { R_TEXT, R_HEAD, R_NOTE };

struct dline {
	char *text;
	enum role role;
};

struct detail {
	struct dline *lines;
	uint32_t n, cap;
	int width;
	int oom;
};

#define LABEL_W 18

static void add_line(struct detail *d, enum role role, const char *text, size_t len)
{
	if (d->oom)
		return;
	if (tix_grow32(&d->lines, &d->cap, (size_t)d->n + 1, sizeof *d->lines, 64) != 0) {
		d->oom = 1;
		return;
	}
	char *t = malloc(len + 1);
	if (!t) {
		d->oom = 1;
		return;
	}
	memcpy(t, text, len);
	t[len] = 0;
	d->lines[d->n].text = t;
	d->lines[d->n].role = role;
	d->n++;
}

/* "  label             value", the value wrapped under itself. */
static void add_kv(struct detail *d, int indent, const char *label, const char *value, enum role role)
{
	int lw = label ? LABEL_W : 0;
	int room = d->width - indent - lw;
	if (room < 20)
		room = 20;
	size_t len = strlen(value);
	size_t at = 0;
	int first = 1;
	do {
		size_t take = len - at;
		if (take > (size_t)room) {
			take = (size_t)room;
			/* break after a space or comma in the second half when there is one */
			size_t b = take;
			while (b > take / 2 && value[at + b - 1] != ' ' && value[at + b - 1] != ',')
				b--;
			if (b > take / 2)
				take = b;
			while (take > 1 && (value[at + take] & 0xc0) == 0x80)
				take--;
		}
		char line[4096];
		int n = snprintf(line, sizeof line, "%*s%-*s", indent, "", lw,
		                 first && label ? label : "");
		if (n < 0 || (size_t)n >= sizeof line)
			n = 0;
		size_t room_left = sizeof line - (size_t)n - 1;
		size_t t = take < room_left ? take : room_left;
		memcpy(line + n, value + at, t);
		add_line(d, role, line, (size_t)n + t);
		at += take;
		first = 0;
	} while (at < len);
}

/* Lays the model's detail (index/view/view.h) out at the screen's width: a
 * blank line before each section, values wrapped under themselves. */
static void build(struct app *a, struct view *v)
{
	struct detail *d = v->priv;
	for (uint32_t i = 0; i < d->n; i++)
		free(d->lines[i].text);
	d->n = 0;
	d->width = COLS > 40 ? COLS - 1 : 40;
	struct tix_detail items;
	struct tix_view_fmt f = {a->full_names, a->timeunit};
	if (tix_detail_build(a->ix, v->args.row, &f, &items) != 0)
		app_msg(a, "out of memory: detail cut short");
	static const enum role roles[] = {[TIX_DETAIL_TEXT] = R_TEXT, [TIX_DETAIL_HEAD] = R_HEAD,
	                                  [TIX_DETAIL_NOTE] = R_NOTE, [TIX_DETAIL_DATA] = R_TEXT};
	for (uint32_t i = 0; i < items.n; i++) {
		const struct tix_detail_item *it = &items.items[i];
		if (it->role == TIX_DETAIL_DATA) /* for JSON only */
			continue;
		if (it->role == TIX_DETAIL_HEAD && i > 0)
			add_line(d, R_TEXT, "", 0);
		add_kv(d, it->indent, it->label[0] ? it->label : NULL, it->value, roles[it->role]);
	}
	tix_detail_done(&items);
	if (d->oom)
		app_msg(a, "out of memory: detail cut short");
	uint32_t keep = v->cursor;
	view_set_rows(v, d->n);
	v->cursor = keep < d->n ? keep : 0;
	if (v->has_filter)
		table_rebuild(a, v);
}

static int detail_open(struct app *a, struct view *v)
{
	if (v->args.row == TIX_NONE || v->args.row >= tix_event_count(a->ix)) {
		app_msg(a, "no launch chosen");
		return -1;
	}
	v->priv = calloc(1, sizeof(struct detail));
	if (!v->priv)
		return -1;
	build(a, v);
	return 0;
}

static void detail_close(struct view *v)
{
	struct detail *d = v->priv;
	if (!d)
		return;
	for (uint32_t i = 0; i < d->n; i++)
		free(d->lines[i].text);
	free(d->lines);
	free(d);
}

static void detail_draw(struct app *a, struct view *v, int y0, int h)
{
	struct detail *d = v->priv;
	table_scroll(v, h);
	for (int y = 0; y < h; y++) {
		uint32_t pos = v->top + (uint32_t)y;
		if (pos >= v->nvis)
			break;
		const struct dline *l = &d->lines[v->order[pos]];
		int attr = l->role == R_HEAD ? draw_attr(a, CR_HEADER)
		         : l->role == R_NOTE ? draw_attr(a, CR_LABEL) : (int)A_NORMAL;
		if (pos == v->cursor)
			attr = draw_attr(a, CR_CURSOR);
		attron(attr);
		draw_text(a, y0 + y, 0, COLS, l->text, 1);
		attroff(attr);
	}
}

static const char *detail_sel_name(struct app *a, struct view *v, char *buf, size_t cap)
{
	struct tix_event e;
	tix_event_get(a->ix, v->args.row, &e);
	return app_name(a, e.name, buf, cap);
}

static const char *detail_text(struct app *a, struct view *v, uint32_t row, char *buf, size_t cap)
{
	return ((struct detail *)v->priv)->lines[row].text;
}

static int detail_enter(struct app *a, struct view *v, uint32_t row)
{
	struct view_args va = view_args_none();
	va.row = v->args.row;
	va.step = tix_event_step(a->ix, v->args.row);
	return app_push(a, &view_timeline_ops, &va) ? 0 : -1;
}

static void detail_crumb(struct app *a, struct view *v, char *buf, size_t cap)
{
	if (v->args.ordinal != TIX_NONE)
		snprintf(buf, cap, "launch #%u", v->args.ordinal);
	else
		snprintf(buf, cap, "event %u", v->args.row);
}

static void detail_context(struct app *a, struct view *v, struct ctx *c)
{
	c->row = v->args.row;
	c->step = tix_event_step(a->ix, v->args.row);
	c->group = v->args.group;
}

static int detail_export(struct app *a, struct view *v, struct tix_export_sel *sel, char *path,
                         size_t cap, void **owned)
{
	sel->rows = &v->args.row;
	sel->nrows = 1;
	snprintf(path, cap, "launch%u", v->args.row);
	return 0;
}

const struct view_ops view_detail_ops = {
	.name = "Detail",
	.rows_name = "lines",
	.kind = VK_DETAIL,
	.cols = NULL,
	.ncols = 0,
	.default_sort = -1,
	.open = detail_open,
	.close = detail_close,
	.text = detail_text,
	.sel_name = detail_sel_name,
	.enter = detail_enter,
	.crumb = detail_crumb,
	.context = detail_context,
	.export_sel = detail_export,
	.draw = detail_draw,
	.resize = build,
};
