/* Drawing helpers: colours, glyphs, safe text, bars. */
#include "tui/view.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

static const char *const eighths_utf8[8] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};

static const struct glyphs glyphs_utf8 = {
	.crumb_sep = " › ",
	.vline = "│",
	.bar_full = "█",
	.bar_part = eighths_utf8,
	.busy = "█",
	.arrow = "→",
	.ellipsis = "…",
	.sort_down = "▼",
	.sort_up = "▲",
};

static const struct glyphs glyphs_ascii = {
	.crumb_sep = " > ",
	.vline = "|",
	.bar_full = "#",
	.bar_part = NULL,
	.busy = "#",
	.arrow = "->",
	.ellipsis = "~",
	.sort_down = "v",
	.sort_up = "^",
};

static const struct {
	short fg, bg;
	int attr;
} color_table[CR_COUNT] = {
#define TUI_COLOR_ROW(name, fg, bg, attr) {fg, bg, attr},
	TUI_COLORS(TUI_COLOR_ROW)
#undef TUI_COLOR_ROW
};

/* Attributes without colour: what each role looks like on a plain terminal. */
static const int mono_table[CR_COUNT] = {
	[CR_NORMAL] = A_NORMAL, [CR_TITLE] = A_REVERSE, [CR_HEADER] = A_BOLD,
	[CR_CURSOR] = A_REVERSE, [CR_BAR] = A_NORMAL, [CR_TOTAL] = A_BOLD,
	[CR_STATUS] = A_REVERSE, [CR_HINT] = A_NORMAL, [CR_LABEL] = A_BOLD,
	[CR_GPU] = A_NORMAL, [CR_CPU] = A_NORMAL, [CR_WARN] = A_BOLD,
};

void draw_init(struct app *a)
{
	const char *nc = getenv("NO_COLOR");
	a->color = has_colors() && !(nc && *nc);
	if (!a->color)
		return;
	start_color();
	use_default_colors();
	for (int r = 1; r < CR_COUNT; r++)
		init_pair((short)r, color_table[r].fg, color_table[r].bg);
}

const struct glyphs *draw_glyphs(const struct app *a)
{
	return a->utf8 ? &glyphs_utf8 : &glyphs_ascii;
}

int draw_attr(const struct app *a, enum color_role r)
{
	if (!a->color)
		return mono_table[r];
	return COLOR_PAIR(r) | color_table[r].attr;
}

/* One character of s: its length in bytes, its screen width; '?' for what
 * cannot be shown, and for what must not reach the terminal (index/text.c:
 * controls, C1, the bidi overrides and isolates, bytes that are not UTF-8). */
static size_t next_char(const struct app *a, const char *s, size_t n, int *w, int *bad)
{
	unsigned char c = (unsigned char)s[0];
	*bad = 0;
	int unsafe;
	size_t ulen = tix_text_char((const unsigned char *)s, n, &unsafe);
	if (unsafe) {
		*w = 1;
		*bad = 1;
		return ulen;
	}
	if (c < 0x80) {
		*w = 1;
		return 1;
	}
	if (!a->utf8) {
		*w = 1;
		*bad = 1;
		return 1;
	}
	mbstate_t st;
	memset(&st, 0, sizeof st);
	wchar_t wc;
	size_t len = mbrtowc(&wc, s, n, &st);
	if (len == (size_t)-1 || len == (size_t)-2 || len == 0) {
		*w = 1;
		*bad = 1;
		return 1;
	}
	int cw = wcwidth(wc);
	if (cw < 0) {
		*w = 1;
		*bad = 1;
	} else {
		*w = cw;
	}
	return len;
}

int draw_textn(const struct app *a, int y, int x, int width, const char *s, size_t n, int pad)
{
	int used = 0;
	if (width <= 0 || y < 0 || y >= LINES || x >= COLS)
		return 0;
	if (x + width > COLS)
		width = COLS - x;
	move(y, x);
	size_t i = 0;
	while (i < n && s[i]) {
		int w, bad;
		size_t len = next_char(a, s + i, n - i, &w, &bad);
		if (used + w > width)
			break;
		if (bad)
			addch('?');
		else if (w > 0)
			addnstr(s + i, (int)len);
		used += w;
		i += len;
	}
	if (pad)
		for (; used < width; used++)
			addch(' ');
	return used;
}

int draw_text(const struct app *a, int y, int x, int width, const char *s, int pad)
{
	return draw_textn(a, y, x, width, s, (size_t)-1, pad);
}

int text_width(const struct app *a, const char *s)
{
	int used = 0;
	size_t n = strlen(s), i = 0;
	while (i < n) {
		int w, bad;
		i += next_char(a, s + i, n - i, &w, &bad);
		used += w;
	}
	return used;
}

int draw_char_width(const struct app *a, const char *s, size_t n, size_t *len)
{
	int w, bad;
	*len = next_char(a, s, n, &w, &bad);
	return w;
}

void draw_bar(const struct app *a, int y, int x, int width, double frac)
{
	if (width <= 0)
		return;
	if (frac < 0)
		frac = 0;
	if (frac > 1)
		frac = 1;
	const struct glyphs *g = draw_glyphs(a);
	int eighths = (int)(frac * width * 8 + 0.5);
	int full = eighths / 8, part = eighths % 8;
	int attr = draw_attr(a, CR_BAR);
	move(y, x);
	attron(attr);
	int i = 0;
	for (; i < full && i < width; i++)
		addstr(g->bar_full);
	if (i < width && part) {
		if (g->bar_part)
			addstr(g->bar_part[part]);
		else
			addch(part >= 4 ? '#' : ' ');
		i++;
	}
	attroff(attr);
	for (; i < width; i++)
		addch(' ');
}

void draw_fill(int y, int attr)
{
	if (y < 0 || y >= LINES)
		return;
	attron(attr);
	mvhline(y, 0, ' ', COLS);
	attroff(attr);
}
