/*
 * The keymap, as data.  One row per request: its name, the word shown in the
 * hint line (NULL: not shown there), the description shown by `?` and in
 * docs/TUI.md, and the keys bound to it.  The request enum, the help view,
 * the hint line and tui_print_keys() are all generated from this table, so
 * they cannot drift apart (tests/tui checks docs/TUI.md against it).
 *
 * Views receive requests, never raw keys.  A view that does not handle a
 * request passes it on to the framework (see tui.c: app_request).
 */
#ifndef TIX_TUI_KEYS_H
#define TIX_TUI_KEYS_H

#include <curses.h>

#define TUI_CTRL(c) ((c)&0x1f)

/* X(name, hint, rank, description, keys...).  rank orders the hint line:
 * when the terminal is narrow the hints with the highest rank (the keys
 * used least) drop first; 0 for requests not in the hint line. */
#define TUI_REQUESTS(X)                                                                  \
	X(DOWN, NULL, 0, "move down one row (timeline: next lane)", 'j', KEY_DOWN)          \
	X(UP, NULL, 0, "move up one row (timeline: previous lane)", 'k', KEY_UP)            \
	X(PAGE_DOWN, NULL, 0, "move down one page", KEY_NPAGE, ' ', TUI_CTRL('f'))          \
	X(PAGE_UP, NULL, 0, "move up one page", KEY_PPAGE, TUI_CTRL('b'))                   \
	X(FIRST, NULL, 0, "go to the first row", 'g', KEY_HOME)                             \
	X(LAST, NULL, 0, "go to the last row", 'G', KEY_END)                                \
	X(GOTO, "go to", 9, "go to step N (Steps), rank N (Ranks) or row N (elsewhere): type N, Enter", ':') \
	X(ENTER, "drill", 1, "drill into the selected row (timeline: detail of the event)", \
	  '\n', '\r', KEY_ENTER, 'l')                                                       \
	X(RIGHT, NULL, 0, "drill in (timeline: pan right)", KEY_RIGHT)                      \
	X(BACK, "back", 2, "go back to the previous view", KEY_BACKSPACE, 127, '\b', 'h', 27) \
	X(LEFT, NULL, 0, "go back (timeline: pan left)", KEY_LEFT)                          \
	X(HOTTEST, "hottest", 4, "jump to the row that ate the most time", 'c')             \
	X(NEXT_VIEW, NULL, 0, "switch to the next view", '\t')                              \
	X(PREV_VIEW, NULL, 0, "switch to the previous view", KEY_BTAB)                      \
	X(VIEW_STEPS, "views", 3, "view 1: steps (home)", '1')                              \
	X(VIEW_KERNELS, NULL, 0, "view 2: kernels of the current step (or all steps)", '2') \
	X(VIEW_LAUNCHES, NULL, 0, "view 3: launches of the current kernel", '3')            \
	X(VIEW_DETAIL, NULL, 0, "view 4: detail of the current launch", '4')                \
	X(VIEW_OPS, NULL, 0, "view 5: CPU ops ranked by the GPU time beneath them", '5')    \
	X(VIEW_TIMELINE, NULL, 0, "view 6: timeline of the current step", '6')              \
	X(VIEW_FINDINGS, NULL, 0, "view 7: findings: why the step is slow, what a fix could save", '7') \
	X(SORT, "sort", 7, "sort by the next column on screen", 's')                        \
	X(SORT_MENU, NULL, 0, "choose the sort column from a menu", 'S')                    \
	X(SORT_INVERT, NULL, 0, "invert the sort order", 'I')                               \
	X(SEARCH, "search", 5, "search names (POSIX regex; lower case ignores case)", '/')  \
	X(SEARCH_NEXT, NULL, 0, "next search match", 'n')                                   \
	X(SEARCH_PREV, NULL, 0, "previous search match", 'N')                               \
	X(SEARCH_ALL, "find all", 10, "find events by name in the whole trace, list the hits", 'F') \
	X(FILTER, "filter", 6, "show only rows matching a regex (empty: all rows)", 'f')    \
	X(NAMES, "names", 11, "toggle short and full names (full names wrap)", 't')         \
	X(TIMEUNIT, NULL, 0, "durations in one unit a column: each its own, ns, us, ms, s (--timeunit)", 'u') \
	X(SCROLL_LEFT, NULL, 0, "scroll names left (timeline: pan left by half a screen)",  \
	  '<', 'H', KEY_SLEFT)                                                              \
	X(SCROLL_RIGHT, NULL, 0, "scroll names right (timeline: pan right by half a screen)", \
	  '>', 'L', KEY_SRIGHT)                                                             \
	X(SHAPES, NULL, 0, "launches, ops: group by shape (Input Dims, Input type); again: back", 'p') \
	X(COPY, "copy", 12, "copy the name to the clipboard (OSC 52)", 'y')                 \
	X(COPY_ROW, NULL, 0, "copy the selected row as tab-separated text (OSC 52)", 'Y')   \
	X(COPY_SHOW, NULL, 0, "show what y / Y copied, on a page of its own to select by hand", 'v') \
	X(EXPORT, "export", 8, "export the selection to Chrome-trace JSON", 'e')            \
	X(PREV_EVENT, NULL, 0, "timeline: select the previous event in the lane", ',')      \
	X(NEXT_EVENT, NULL, 0, "timeline: select the next event in the lane", '.')          \
	X(LINKED, NULL, 0, "timeline: jump between a launch call and its kernel", 'o')      \
	X(ZOOM_IN, NULL, 0, "timeline: zoom in around the selected event", '+', '=', KEY_SR) \
	X(ZOOM_OUT, NULL, 0, "timeline: zoom out", '-', KEY_SF)                             \
	X(ZOOM_FIT, NULL, 0, "timeline: show the whole step", 'z')                          \
	X(PYTHON, NULL, 0, "timeline: show or hide python frames (hidden where there are CPU ops)", 'P') \
	X(COMPARE, "compare", 13, "compare this trace with the next one open (as tix --diff BASE NEW)", 'D') \
	X(RANKS, "ranks", 14, "ranks: the open traces as the ranks of one run, side by side", 'R') \
	X(PREV_TRACE, NULL, 0, "switch to the previous trace (several on the command line)", '[') \
	X(NEXT_TRACE, NULL, 0, "switch to the next trace", ']')                             \
	X(MOUSE, NULL, 0, "click selects, double-click drills, wheel scrolls, header sorts", KEY_MOUSE) \
	X(REDRAW, NULL, 0, "redraw the screen", TUI_CTRL('l'))                              \
	X(HELP, "help", 0, "show this help", '?', KEY_F(1))                                 \
	X(QUIT, "quit", 0, "quit (in the help: close it)", 'q', KEY_F(10))

enum req {
	REQ_NONE,
#define TUI_REQ_ENUM(name, hint, rank, desc, ...) REQ_##name,
	TUI_REQUESTS(TUI_REQ_ENUM)
#undef TUI_REQ_ENUM
	REQ_COUNT
};

/* The request bound to key ch, REQ_NONE if none. */
enum req keys_lookup(int ch);
/* The keys of request r as text, e.g. "j Down" (static storage, valid until
 * the next call). */
const char *keys_label(enum req r);
const char *keys_desc(enum req r);
const char *keys_hint(enum req r);   /* NULL when not in the hint line */
int keys_hint_rank(enum req r);      /* hints with a higher rank drop first */
const char *keys_req_name(enum req r); /* "DOWN" */
/* The name of one key: "j", "Down", "PgDn", "Enter", "Ctrl-L". */
const char *keys_name(int ch, char *buf, size_t cap);

#endif /* TIX_TUI_KEYS_H */
