/* Printing a view's rows (index/view/view.h) as text, CSV or JSON: what
 * summary and show print is what the TUI draws.  Private to cli/. */
#ifndef TIX_CLI_ROWS_H
#define TIX_CLI_ROWS_H

#include <stdio.h>

#include "index/view/view.h"

/* The column --sort names: its number, -1 when sort is NULL, or -2 with
 * the keys listed on stderr when it names none. */
int rows_sort_col(enum tix_view_kind kind, const char *cmd, const char *sort);
/* The rows to print, the pinned (totals) rows excluded: sorted by the
 * column whose key is sort (NULL: by the kind's rank column when top > 0,
 * else in the view's own order), then the first top of them (top <= 0:
 * all).  *order is malloc'd.  -1 with a message on stderr when sort names
 * no column (cmd names the subcommand). */
int rows_order(const struct tix_view *v, const char *cmd, const char *sort, long top,
               uint32_t **order, uint32_t *n);

/* A text table: the view's screen columns (no bars), headers as the TUI's,
 * every cell as the TUI writes it; with_pinned: the totals rows first. */
void rows_text(FILE *f, const struct tix_view *v, const uint32_t *order, uint32_t n,
               int with_pinned, const struct tix_view_fmt *fmt);
/* CSV: a header of the column keys, then raw values (ns, counts). */
void rows_csv(FILE *f, const struct tix_view *v, const uint32_t *order, uint32_t n);
/* One row as a JSON object: {"key": raw value, ...}; unknown is null. */
void rows_json_row(FILE *f, const struct tix_view *v, uint32_t row);
/* [row, row, ...] one per line. */
void rows_json(FILE *f, const struct tix_view *v, const uint32_t *order, uint32_t n);

/* The detail of one event (index/view, tix_detail_build) as a JSON object:
 * every item's key and raw value, nested as its OBJECT and ARRAY items say. */
void detail_json(FILE *f, const struct tix_detail *d);

#endif
