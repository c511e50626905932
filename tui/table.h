/* Table views: rows on screen, sort, filter, search, drawing (table.c). */
#ifndef TIX_TUI_TABLE_H
#define TIX_TUI_TABLE_H

#include "tui/view.h"

/* Moves the cursor by delta rows, clamped. */
void table_move(struct app *a, struct view *v, int64_t delta);
/* Recomputes order[] from the filter and the sort column; keeps the row
 * under the cursor when it is still shown. */
void table_rebuild(struct app *a, struct view *v);
int table_sortable(const struct view *v, int col);
/* s: the next sortable column (after the last, back to the view's rank). */
void table_next_sort(struct app *a, struct view *v);
/* Sets (or with "" clears) the filter; -1 and a message on a bad regex. */
int table_set_filter(struct app *a, struct view *v, const char *pattern);
/* Compiles a pattern (see struct pattern); -1 and a message when bad. */
int table_compile(struct app *a, struct pattern *p, const char *pattern);
int pattern_match(const struct pattern *p, const char *s);
void pattern_done(struct pattern *p);
/* Moves to the next (dir 1) or previous (-1) row matching the search. */
int table_search(struct app *a, struct view *v, int dir);
/* s fitted to width: first without the leading namespaces it needs to lose
 * ("at::native::f<...>" -> "f<...>"), then, if still too wide, cut in the
 * middle with an ellipsis (into buf).  s itself when it fits. */
const char *name_fit(const struct app *a, const char *s, int width, char *buf, size_t cap);
/* Words (a finding's title, a message) fitted to width: cut in the middle
 * with an ellipsis, the head longer than the tail (into buf).  s itself
 * when it fits. */
const char *text_fit(const struct app *a, const char *s, int width, char *buf, size_t cap);
/* Scrolls so the cursor is among the h rows on screen. */
void table_scroll(struct view *v, int h);
/* Which columns fit in width, and their widths: w[i] (at least 32 entries)
 * is -1 for a column that does not fit. */
int table_layout(struct app *a, const struct view *v, int width, int *w);
/* Draws the header and the visible rows in rows y0 .. y0+h-1. */
void table_draw(struct app *a, struct view *v, int y0, int h);

#endif /* TIX_TUI_TABLE_H */
