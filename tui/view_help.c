/* Help: the keymap of keys.h, one row per request.  q or ? closes it. */
#include <stdio.h>

#include "tui/view.h"

static const struct tix_col cols[] = {
	{"Keys", 24, 0, 0, NULL, TIX_UNIT_TEXT},
	{"Action", 20, TIX_COL_FLEX, 0, NULL, TIX_UNIT_TEXT},
};

static int help_open(struct app *a, struct view *v)
{
	view_set_rows(v, REQ_COUNT - 1);
	return 0;
}

static const char *help_cell(struct app *a, struct view *v, uint32_t row, int col, char *buf,
                             size_t cap)
{
	enum req r = (enum req)(row + 1);
	if (col == 0) {
		snprintf(buf, cap, "%s", keys_label(r));
		return buf;
	}
	return keys_desc(r);
}

static const char *help_text(struct app *a, struct view *v, uint32_t row, char *buf, size_t cap)
{
	enum req r = (enum req)(row + 1);
	snprintf(buf, cap, "%s %s", keys_label(r), keys_desc(r));
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
	.rows_name = "actions",
	.kind = VK_HELP,
	.cols = cols,
	.ncols = 2,
	.default_sort = -1,
	.open = help_open,
	.cell = help_cell,
	.text = help_text,
	.request = help_request,
	.crumb = help_crumb,
};
