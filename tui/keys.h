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

/* X(name, hint, description, keys...) */
#define TUI_REQUESTS(X)                                                                  \
	X(DOWN, NULL, "move down one row (timeline: next lane)", 'j', KEY_DOWN)             \
	X(UP, NULL, "move up one row (timeline: previous lane)", 'k', KEY_UP)               \
	X(PAGE_DOWN, NULL, "move down one page", KEY_NPAGE, ' ', TUI_CTRL('f'))             \
	X(PAGE_UP, NULL, "move up one page", KEY_PPAGE, TUI_CTRL('b'))                      \
	X(FIRST, NULL, "go to the first row", 'g', KEY_HOME)                                \
	X(LAST, NULL, "go to the last row", 'G', KEY_END)                                   \
	X(ENTER, "drill", "drill into the selected row (timeline: detail of the event)",   \
	  '\n', '\r', KEY_ENTER, 'l', KEY_RIGHT)                                            \
	X(BACK, "back", "go back to the previous view", KEY_BACKSPACE, 127, '\b', 'h',     \
	  KEY_LEFT, 27)                                                                     \
	X(HOTTEST, "hottest", "jump to the row that ate the most time", 'c')                \
	X(NEXT_VIEW, NULL, "switch to the next view", '\t')                                 \
	X(PREV_VIEW, NULL, "switch to the previous view", KEY_BTAB)                         \
	X(VIEW_STEPS, NULL, "view 1: steps (home)", '1')                                    \
	X(VIEW_KERNELS, NULL, "view 2: kernels of the current step (or all steps)", '2')    \
	X(VIEW_LAUNCHES, NULL, "view 3: launches of the current kernel", '3')               \
	X(VIEW_DETAIL, NULL, "view 4: detail of the current launch", '4')                   \
	X(VIEW_OPS, NULL, "view 5: CPU ops ranked by the GPU time beneath them", '5')       \
	X(VIEW_TIMELINE, NULL, "view 6: timeline of the current step", '6')                 \
	X(SORT, "sort", "sort by the next column", 's')                                     \
	X(SORT_REVERSE, NULL, "reverse the sort order", 'S')                                \
	X(SEARCH, "search", "search names (POSIX regex; lower case ignores case)", '/')     \
	X(SEARCH_NEXT, NULL, "next search match", 'n')                                      \
	X(SEARCH_PREV, NULL, "previous search match", 'N')                                  \
	X(FILTER, "filter", "show only rows matching a regex (empty: all rows)", 'f')       \
	X(NAMES, "names", "toggle short and full kernel names", 't')                        \
	X(EXPORT, "export", "export the selection to Chrome-trace JSON", 'e')               \
	X(PREV_EVENT, NULL, "timeline: select the previous event in the lane", ',')         \
	X(NEXT_EVENT, NULL, "timeline: select the next event in the lane", '.')             \
	X(PAN_LEFT, NULL, "timeline: pan left by half a screen", '<', 'H')                  \
	X(PAN_RIGHT, NULL, "timeline: pan right by half a screen", '>', 'L')                \
	X(ZOOM_IN, NULL, "timeline: zoom in around the selected event", '+', '=')           \
	X(ZOOM_OUT, NULL, "timeline: zoom out", '-')                                        \
	X(ZOOM_FIT, NULL, "timeline: show the whole step", 'z')                             \
	X(PREV_TRACE, NULL, "switch to the previous trace (several on the command line)", '[') \
	X(NEXT_TRACE, NULL, "switch to the next trace", ']')                                \
	X(REDRAW, NULL, "redraw the screen", TUI_CTRL('l'))                                 \
	X(HELP, "help", "show this help", '?')                                              \
	X(QUIT, "quit", "quit (in the help: close it)", 'q')

enum req {
	REQ_NONE,
#define TUI_REQ_ENUM(name, hint, desc, ...) REQ_##name,
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
const char *keys_req_name(enum req r); /* "DOWN" */
/* The name of one key: "j", "Down", "PgDn", "Enter", "Ctrl-L". */
const char *keys_name(int ch, char *buf, size_t cap);

#endif /* TIX_TUI_KEYS_H */
