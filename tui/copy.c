/*
 * Copy: y puts the selection's full name on the clipboard, Y the selected
 * row (its cells tab-separated), v shows what was copied on a page of its
 * own.  tui.c's app_request dispatches to them.
 *
 * The clipboard is reached with OSC 52, which terminals (and tmux with
 * set-clipboard on) honour even over ssh.  What is copied is the text as
 * text output shows it (clip.c copy_text_add: no control byte but the tabs
 * between cells, so a name cannot set the window title or the clipboard).
 * For a terminal that ignores OSC 52, v draws the text on the alternate
 * screen, written as one run that the terminal wraps itself (so that a
 * selection by hand copies it as one line), with tix's mouse off; a key
 * brings the view back.  Nothing is ever printed on the main screen.
 */
#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tui/clip.h"
#include "tui/table.h"
#include "tui/view.h"

/* OSC 52 payloads past this are refused by many terminals (xterm takes
 * 100,000 bytes of base64 by default): longer text is not sent. */
#define OSC52_MAX 100000

/* The text of y (whole_row 0) or Y for the selection, or NULL. */
static char *copy_build(struct app *a, struct view *v, int whole_row)
{
	char buf[4096];
	char *text = NULL;
	uint32_t row = view_cur_row(v);
	int keep = a->full_names;
	a->full_names = 1;
	int rc = 0;
	if (whole_row && v->cols && row != TIX_NONE) {
		for (int i = 0; i < v->ncols && rc == 0; i++)
			if (!(v->cols[i].flags & (TIX_COL_BAR | TIX_COL_DATA)))
				rc = copy_text_add(&text, v->ops->cell(a, v, row, i, buf, sizeof buf));
	} else if (whole_row && row != TIX_NONE && v->ops->text) {
		rc = copy_text_add(&text, v->ops->text(a, v, row, buf, sizeof buf));
	} else if (v->ops->sel_name) {
		const char *s = v->ops->sel_name(a, v, buf, sizeof buf);
		rc = copy_text_add(&text, s ? s : "");
	} else if (v->cols && row != TIX_NONE) {
		for (int i = 0; i < v->ncols && rc == 0; i++)
			if (v->cols[i].flags & TIX_COL_FLEX) {
				free(text);
				text = NULL;
				rc = copy_text_add(&text, v->ops->cell(a, v, row, i, buf, sizeof buf));
			}
	}
	a->full_names = keep;
	if (rc != 0 || (text && !text[0])) {
		free(text);
		return NULL;
	}
	return text;
}

void app_copy(struct app *a, struct view *v, int whole_row)
{
	char *text = copy_build(a, v, whole_row);
	if (!text) {
		app_msg(a, "nothing to copy here");
		return;
	}
	free(a->copied);
	a->copied = text;
	size_t chars = text_chars(text), n = strlen(text), need = 7 + (n + 2) / 3 * 4 + 2;
	char *seq = need <= OSC52_MAX ? malloc(need) : NULL;
	int sent = 0;
	if (seq && osc52(text, seq, need)) {
		fflush(stdout);
		sent = write(STDOUT_FILENO, seq, strlen(seq)) == (ssize_t)strlen(seq);
	}
	free(seq);
	const char *s = chars == 1 ? "" : "s";
	if (!sent)
		app_msg(a, "not copied: %zu char%s, more than OSC 52 carries; v shows them to copy by hand", chars, s);
	else if (!strchr(text, '\t') && text_width(a, text) + 24 <= COLS)
		app_msg(a, "copied %zu char%s: %s", chars, s, text);
	else
		app_msg(a, "copied %zu char%s (OSC 52; v shows them)", chars, s);
}

/* Where the text from s[at] stops filling rows x cols cells, as the
 * terminal wraps it (a wide character that does not fit moves to the next
 * row; a tab goes to the next multiple of 8). */
static size_t page_end(const struct app *a, const char *s, size_t at, size_t n, int rows, int cols)
{
	int row = 0, col = 0;
	while (at < n) {
		size_t len;
		int w = s[at] == '\t' ? 8 - col % 8 : draw_char_width(a, s + at, n - at, &len);
		if (s[at] == '\t')
			len = 1;
		if (col + w > cols) {
			if (++row >= rows)
				break;
			col = s[at] == '\t' ? 0 : w;
		} else {
			col += w;
		}
		at += len;
	}
	return at;
}

static void put_raw(const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(STDOUT_FILENO, s, n);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

void app_copy_show(struct app *a, struct view *v)
{
	if (!a->copied && !(a->copied = copy_build(a, v, 0))) {
		app_msg(a, "nothing copied yet, and nothing to copy here");
		return;
	}
	const char *s = a->copied;
	size_t n = strlen(s), at = 0, chars = text_chars(s);
	mmask_t mouse = 0;
	mousemask(0, &mouse); /* a drag selects text: the terminal's, not tix's */
	int resized = 0;
	for (;;) {
		erase();
		move(0, 0);
		refresh(); /* the alternate screen blank, the cursor home */
		int rows = LINES > 3 ? LINES - 2 : 1;
		size_t end = page_end(a, s, at, n, rows, COLS > 0 ? COLS : 1);
		fflush(stdout);
		put_raw(s + at, end - at);
		char foot[200];
		int len = snprintf(foot, sizeof foot, "\r\n\r\n-- %zu char%s%s; select with the mouse, a key returns%s --",
		                   chars, chars == 1 ? "" : "s", at || end < n ? " (a page of them)" : "",
		                   end < n ? ", Space: the next page" : "");
		put_raw(foot, (size_t)len < sizeof foot ? (size_t)len : sizeof foot - 1);
		int ch = getch();
		if (ch == KEY_RESIZE || ch == ERR) {
			resized |= ch == KEY_RESIZE;
			continue; /* the same text, laid out again */
		}
		if ((ch == ' ' || ch == KEY_NPAGE) && end < n) {
			at = end;
			continue;
		}
		break;
	}
	clock_gettime(CLOCK_MONOTONIC, &a->t_key); /* the reading is not the app's time */
	mousemask(mouse, NULL);
	clearok(curscr, TRUE);
	if (resized)
		app_resize(a);
	app_msg(a, "%zu char%s copied last", chars, chars == 1 ? "" : "s");
}
