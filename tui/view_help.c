/* Help: what the columns of the view below mean (those that say more than
 * their title), then the keymap of keys.h, one row per request.  q or ?
 * closes it. */
#include <stdio.h>
#include <stdlib.h>

#include "tui/view.h"

static const struct tix_col cols[] = {
	{"Keys", 24, 0, 0, NULL, TIX_UNIT_TEXT},
	{"Action", 20, TIX_COL_FLEX, 0, NULL, TIX_UNIT_TEXT},
};

/* The columns of the view under the help that carry a meaning. */
struct help {
	const struct tix_col *notes[32];
	const char *what[32];
	uint32_t nnotes;
};

static int help_open(struct app *a, struct view *v)
{
	struct help *h = calloc(1, sizeof *h);
	if (!h)
		return -1;
	struct view *under = a->traces[a->cur].depth ? app_top(a) : NULL;
	for (int i = 0; under && under->model && i < under->ncols && h->nnotes < 32; i++) {
		const char *w = tix_view_what(under->model, i);
		if (w && !(under->cols[i].flags & TIX_COL_DATA)) {
			h->notes[h->nnotes] = &under->cols[i];
			h->what[h->nnotes++] = w;
		}
	}
	v->priv = h;
	view_set_rows(v, h->nnotes + REQ_COUNT - 1);
	return 0;
}

static void help_close(struct view *v)
{
	free(v->priv);
}

static const char *help_cell(struct app *a, struct view *v, uint32_t row, int col, char *buf,
                             size_t cap)
{
	const struct help *h = v->priv;
	if (row < h->nnotes) { /* a column of the view below */
		if (col == 0)
			snprintf(buf, cap, "column %s", h->notes[row]->title);
		else
			snprintf(buf, cap, "%s", h->what[row]);
		return buf;
	}
	enum req r = (enum req)(row - h->nnotes + 1);
	if (col == 0) {
		snprintf(buf, cap, "%s", keys_label(r));
		return buf;
	}
	return keys_desc(r);
}

static const char *help_text(struct app *a, struct view *v, uint32_t row, char *buf, size_t cap)
{
	char k[64], d[512];
	snprintf(buf, cap, "%s %s", help_cell(a, v, row, 0, k, sizeof k), help_cell(a, v, row, 1, d, sizeof d));
	return buf;
}

static int help_request(struct app *a, struct view *v, enum req r)
{
	if (r == REQ_QUIT || r == REQ_HELP || r == REQ_BACK || r == REQ_ENTER) {
		app_pop(a);
		return 1;
	}
	return 0;
}

static void help_crumb(struct app *a, struct view *v, char *buf, size_t cap)
{
	snprintf(buf, cap, "help (q closes)");
}

const struct view_ops view_help_ops = {
	.name = "Help",
	.rows_name = "lines",
	.kind = VK_HELP,
	.cols = cols,
	.ncols = 2,
	.default_sort = -1,
	.open = help_open,
	.close = help_close,
	.cell = help_cell,
	.text = help_text,
	.request = help_request,
	.crumb = help_crumb,
};
