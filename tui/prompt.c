/*
 * The status-row prompt (with a history per prompt), the yes/no question,
 * and the escape sequences ncurses leaves undecoded.
 */
#include <curses.h>
#include <string.h>
#include <time.h>

#include "tui/keys.h"
#include "tui/view.h"

void app_history_add(struct history *h, const char *text)
{
	if (!text[0] || (h->n && strcmp(h->items[h->n - 1], text) == 0))
		return;
	if (h->n == HISTORY_MAX) {
		memmove(h->items[0], h->items[1], sizeof h->items[0] * (HISTORY_MAX - 1));
		h->n--;
	}
	snprintf(h->items[h->n++], sizeof h->items[0], "%s", text);
}

/* Reads the rest of an escape sequence ncurses did not decode (a terminal
 * whose keys differ from its terminfo entry: TERM=xterm-256color inside
 * tmux sends End as Esc [ 4 ~).  Returns 1 when one was swallowed, so that
 * its digits never reach the keymap; 0 when the Esc stood alone. */
int tui_swallow_escape(void)
{
	nodelay(stdscr, TRUE);
	int c = getch();
	int seq = 0;
	if (c == '[' || c == 'O') {
		seq = 1;
		/* CSI: parameters and intermediates up to a final byte @ .. ~ */
		for (int n = 0; n < 16; n++) {
			c = getch();
			if (c == ERR || (c >= 0x40 && c <= 0x7e))
				break;
		}
	} else if (c != ERR) {
		seq = 1; /* Alt-key: Esc then the key */
	}
	nodelay(stdscr, FALSE);
	return seq;
}

int app_prompt(struct app *a, enum prompt_kind k, const char *label, char *buf, size_t cap)
{
	struct history *h = &a->hist[k];
	int at = h->n;                /* history position; h->n: the line being typed */
	char typed[1024];
	snprintf(typed, sizeof typed, "%s", buf);
	size_t len = strlen(buf);
	curs_set(1);
	for (;;) {
		app_draw(a);
		int y = LINES - 2;
		draw_fill(y, A_NORMAL);
		int lw = draw_text(a, y, 0, COLS, label, 0);
		/* show the tail of what was typed when it is longer than the row */
		int room = COLS - lw - 1;
		size_t from = 0;
		while (room > 0 && text_width(a, buf + from) > room) {
			from++;
			while ((buf[from] & 0xc0) == 0x80)
				from++;
		}
		int w = room > 0 ? draw_text(a, y, lw, room, buf + from, 0) : 0;
		move(y, lw + w < COLS ? lw + w : COLS - 1);
		refresh();
		int ch = getch();
		if (ch == KEY_RESIZE)
			app_resize(a);
		if (ch == KEY_RESIZE || ch == ERR)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &a->t_key); /* the time typing ends is not the app's */
		if (ch == 27 && tui_swallow_escape())
			continue;
		if (ch == 27 || ch == TUI_CTRL('c') || ch == TUI_CTRL('g')) {
			curs_set(0);
			return 0;
		}
		if (ch == '\n' || ch == '\r' || ch == KEY_ENTER)
			break;
		if (ch == KEY_UP || ch == KEY_DOWN) {
			if (at == h->n)
				snprintf(typed, sizeof typed, "%s", buf);
			at += ch == KEY_UP ? -1 : 1;
			if (at < 0)
				at = 0;
			if (at > h->n)
				at = h->n;
			snprintf(buf, cap, "%s", at == h->n ? typed : h->items[at]);
			len = strlen(buf);
		} else if (ch == KEY_BACKSPACE || ch == 127 || ch == '\b') {
			while (len > 0 && (buf[len - 1] & 0xc0) == 0x80)
				len--;
			if (len > 0)
				len--;
			buf[len] = 0;
		} else if (ch == TUI_CTRL('u')) {
			len = 0;
			buf[0] = 0;
		} else if (ch >= 0x20 && ch < 0x100 && ch != 0x7f && len + 1 < cap) {
			buf[len++] = (char)ch;
			buf[len] = 0;
		}
	}
	curs_set(0);
	app_history_add(h, buf);
	return 1;
}

int app_confirm(struct app *a, const char *question)
{
	app_msg(a, "%s (y/n)", question);
	app_draw(a);
	int ch;
	while ((ch = getch()) == KEY_RESIZE || ch == ERR)
		if (ch == KEY_RESIZE) {
			app_resize(a);
			app_draw(a);
		}
	a->msg[0] = 0;
	clock_gettime(CLOCK_MONOTONIC, &a->t_key);
	return ch == 'y' || ch == 'Y';
}

/* :N, the step N in the Steps view (its own number, as the # column shows),
 * row N (from 1, as the status line counts) elsewhere. */
