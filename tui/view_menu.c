/*
 * The sort menu (S), as htop's F6: the sortable columns of the view below,
 * on screen now; Enter sorts by one, I inverts the order, q or Esc closes.
 * It is a view on the stack, so it needs no modal state of its own.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tui/table.h"
#include "tui/view.h"

static const struct tix_col cols[] = {
	{"Sort by", 20, 0, 0, NULL, TIX_UNIT_TEXT},
	{"", 20, TIX_COL_FLEX, 0, NULL, TIX_UNIT_TEXT},
};

struct menu {
	struct view *under;   /* the view being sorted (below this one on the stack) */
	int cols[32];         /* its sortable columns on screen, one per row */
};

static int menu_open(struct app *a, struct view *v)
{
	struct view *u = app_top(a);
	if (!u || !u->ops->cmp || u->ncols == 0) {
		app_msg(a, "nothing to sort here");
		return -1;
	}
	struct menu *m = calloc(1, sizeof *m);
	if (!m)
		return -1;
	m->under = u;
	int w[32], n = 0;
	table_layout(a, u, COLS, w);
	for (int c = 0; c < u->ncols && c < 32; c++)
		if (w[c] >= 0 && table_sortable(u, c))
			m->cols[n++] = c;
	v->priv = m;
	view_set_rows(v, (uint32_t)n);
	for (int i = 0; i < n; i++)
		if (m->cols[i] == u->sort_col)
			v->cursor = (uint32_t)i;
	return 0;
}

static void menu_close(struct view *v)
{
	free(v->priv);
}

static const char *menu_cell(struct app *a, struct view *v, uint32_t row, int col, char *buf,
                             size_t cap)
{
	struct menu *m = v->priv;
	int c = m->cols[row];
	if (col == 0)
		return m->under->cols[c].title;
	if (c != m->under->sort_col)
		return "";
	int up = !(m->under->cols[c].flags & TIX_COL_ASC) != !m->under->sort_rev;
	snprintf(buf, cap, "%s now (%s)", up ? draw_glyphs(a)->sort_up : draw_glyphs(a)->sort_down,
	         up ? "ascending" : "descending");
	return buf;
}

static const char *menu_text(struct app *a, struct view *v, uint32_t row, char *buf, size_t cap)
{
	return ((struct menu *)v->priv)->under->cols[((struct menu *)v->priv)->cols[row]].title;
}

static int menu_request(struct app *a, struct view *v, enum req r)
{
	struct menu *m = v->priv;
	struct view *u = m->under;
	uint32_t row = view_cur_row(v);
	switch (r) {
	case REQ_ENTER:
	case REQ_RIGHT:
		if (row != TIX_NONE) {
			u->sort_col = m->cols[row];
			u->sort_rev = 0;
			table_rebuild(a, u);
			app_msg(a, "sorted by %s", u->cols[u->sort_col].title);
		}
		app_pop(a);
		return 1;
	case REQ_SORT_INVERT:
		u->sort_rev = !u->sort_rev;
		if (row != TIX_NONE)
			u->sort_col = m->cols[row];
		table_rebuild(a, u);
		app_pop(a);
		return 1;
	case REQ_QUIT:
	case REQ_BACK:
	case REQ_LEFT:
	case REQ_SORT_MENU:
		app_pop(a);
		return 1;
	default:
		return 0;
	}
}

static void menu_crumb(struct app *a, struct view *v, char *buf, size_t cap)
{
	snprintf(buf, cap, "sort %s (Enter sorts, I inverts, q closes)",
	         ((struct menu *)v->priv)->under->ops->name);
}

const struct view_ops view_menu_ops = {
	.name = "Sort",
	.rows_name = "columns",
	.kind = VK_MENU,
	.cols = cols,
	.ncols = 2,
	.default_sort = -1,
	.open = menu_open,
	.close = menu_close,
	.cell = menu_cell,
	.text = menu_text,
	.request = menu_request,
	.crumb = menu_crumb,
};
