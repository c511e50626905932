/*
 * Inside the TUI: the app context, views and their operations, the drawing
 * helpers.  Private to tui/ (tui.h is the module's door).
 *
 * A view is a const table of operations (struct view_ops, one per file:
 * view_steps.c, view_kernels.c, ...); the framework (tui.c) owns the view's
 * state: its rows in display order (filtered and sorted), cursor, scroll
 * position, sort column and filter.  Views sit on a stack per trace; the
 * breadcrumb is the stack read bottom to top.
 *
 * Rows are the view's own numbers 0 .. nrows-1 (a step, a group, a member);
 * v->order[] maps screen positions to rows.  A view's row ops are only asked
 * about rows it declared, and only for the rows on screen, so drawing costs
 * what is visible, not what is in the trace.
 */
#ifndef TIX_TUI_VIEW_H
#define TIX_TUI_VIEW_H

#include <regex.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>
#include <stdint.h>

#include "index/index.h"
#include "index/view/view.h"
#include "tui/keys.h"
#include "tui/tui.h"

struct app;
struct view;

enum view_kind { VK_STEPS, VK_KERNELS, VK_LAUNCHES, VK_DETAIL, VK_OPS, VK_TIMELINE, VK_HELP, VK_MENU, VK_FOUND, VK_SHAPES, VK_COMPARE, VK_RANKS, VK_FINDINGS };

/* What a selection points at, used to rebuild the stack when the user
 * switches views with Tab or 1-6.  TIX_NONE: not known. */
struct ctx {
	uint32_t step;     /* step number */
	uint32_t group;    /* overall group id */
	uint32_t row;      /* an event row (a launch) */
	uint32_t op;       /* a CPU op rank */
};

/* Arguments a view is opened with (all TIX_NONE when unused). */
struct view_args {
	uint32_t step;     /* step scope, TIX_NONE: all steps */
	uint32_t group;    /* overall group id */
	uint32_t op;       /* op rank: the kernels beneath that op */
	uint32_t row;      /* event row (detail, timeline) */
	uint32_t ordinal;  /* launch number within its group (for the breadcrumb) */
	/* compare views (view_compare.c): the new side's trace, what is
	 * compared (a TIX_VIEW_CMP_ kind), the kernel's group on the new side */
	int other;
	int by;
	uint32_t group_new;
	/* opened from a view on another trace (Ranks, Compare): Backspace
	 * goes back there; -1 none */
	int from_trace;
};

/* Columns are the model's (index/view/view.h): struct tix_col, TIX_COL_*.
 * A view with a model takes its columns from it; the others (help,
 * detail, the timeline) declare their own. */

/* A compiled search or filter: a POSIX ERE, or a plain substring when the
 * pattern has no special characters (most searches; strstr is ~20x faster
 * than regexec).  Case is ignored when the pattern has no capitals. */
struct pattern {
	regex_t re;
	int literal, icase;
	char text[256];
};

struct view_ops {
	const char *name;
	const char *rows_name;   /* what a row is, for the status line: "steps" */
	enum view_kind kind;
	const struct tix_col *cols;  /* NULL when the view has a model: its columns */
	int ncols;
	int default_sort;  /* column sorted on open, -1 none (rows come ranked) */
	int pinned;        /* rows 0 .. pinned-1 stay on top, unsorted, unfiltered */
	/* Sets v->nrows and v->priv.  Returns 0, or -1 with app_msg() set. */
	int (*open)(struct app *a, struct view *v);
	void (*close)(struct view *v);
	/* Text of a cell: buf, or a string that lives as long as the index. */
	const char *(*cell)(struct app *a, struct view *v, uint32_t row, int col, char *buf,
	                    size_t cap);
	double (*share)(struct app *a, struct view *v, uint32_t row);  /* 0..1, for TIX_COL_BAR */
	/* <0, 0, >0 as row a sorts before, with or after b by column col. */
	int (*cmp)(struct app *a, struct view *v, uint32_t ra, uint32_t rb, int col);
	/* Text that / and f match (the name, usually). */
	const char *(*text)(struct app *a, struct view *v, uint32_t row, char *buf, size_t cap);
	int (*enter)(struct app *a, struct view *v, uint32_t row);     /* push a view; -1 none */
	uint32_t (*hottest)(struct app *a, struct view *v);            /* a row, or TIX_NONE */
	int (*request)(struct app *a, struct view *v, enum req r);     /* 1 handled, 0 pass on */
	void (*crumb)(struct app *a, struct view *v, char *buf, size_t cap);
	void (*context)(struct app *a, struct view *v, struct ctx *c);
	/* Fills sel for the current selection and names it in `path` ("step3",
	 * "launch812"; the framework makes ./TRACE-step3.json of it); 0 or -1
	 * (message set).
	 * *owned receives memory to free after the export (or NULL). */
	int (*export_sel)(struct app *a, struct view *v, struct tix_export_sel *sel, char *path,
	                  size_t cap, void **owned);
	/* Custom body (timeline, help); NULL: the framework draws a table. */
	void (*draw)(struct app *a, struct view *v, int y0, int h);
	/* Moves the cursor to what c points at (after a view switch). */
	void (*select)(struct app *a, struct view *v, const struct ctx *c);
	/* The full name of the selection, for y (NULL: the flexible column of
	 * the selected row, in full). */
	const char *(*sel_name)(struct app *a, struct view *v, char *buf, size_t cap);
	/* The widest content of a TIX_COL_FIT column, in screen columns. */
	int (*width)(struct app *a, struct view *v, int col);
	/* The screen size changed (detail re-wraps its text). */
	void (*resize)(struct app *a, struct view *v);
	/* The attribute of a row off the cursor (0: the table's), e.g. the
	 * straggler's rows in Ranks. */
	int (*row_attr)(struct app *a, struct view *v, uint32_t row);
	/* :N goes to what N numbers here ("rank": the Ranks view's rank N in
	 * the cursor's step); NULL: step N in Steps, row N elsewhere. */
	const char *goto_what;
	int (*goto_n)(struct app *a, struct view *v, unsigned long n);
};

struct view {
	const struct view_ops *ops;
	struct view_args args;
	struct tix_view *model;   /* the rows' model (index/view/), or NULL */
	const struct tix_col *cols; /* the model's or the ops' */
	int ncols;
	void *priv;
	uint32_t nrows;
	uint32_t *order;   /* rows on screen, in display order */
	uint32_t nvis;
	uint32_t cursor;   /* position in order[] */
	uint32_t top;      /* first position on screen */
	int sort_col;      /* -1: natural order */
	int sort_rev;
	int hscroll;       /* characters of the flexible column scrolled off (< >) */
	char filter[256];
	int has_filter;
	struct pattern filter_re;
};

#define VIEW_STACK_MAX 16

/* The prompts, each with its own history (Up/Down recall earlier entries). */
enum prompt_kind { PROMPT_SEARCH, PROMPT_FILTER, PROMPT_GOTO, PROMPT_EXPORT, PROMPT_FIND, PROMPT_COUNT };
#define HISTORY_MAX 32
struct history {
	char items[HISTORY_MAX][256];
	int n;
};

struct trace_state {
	const struct tui_trace *t;
	struct tix_index *ix;
	struct tix_summary_info sum;
	struct view *stack[VIEW_STACK_MAX];
	int depth;
};

struct app {
	struct trace_state *traces;
	int ntraces, cur;
	struct tix_index *ix;          /* traces[cur].ix */
	const struct tix_summary_info *sum;
	int utf8, color;
	int full_names;                /* t toggles */
	enum tix_timeunit timeunit;    /* u cycles; every duration column in one unit */
	int python_shown;              /* P: the timeline draws python frames too */
	int quit;
	int body_h;                    /* rows available to a view body */
	char search[256];
	int has_search;
	struct pattern search_re;
	char msg[512];                 /* status message, cleared on the next key */
	struct history hist[PROMPT_COUNT]; /* what was entered at each prompt, oldest first */
	/* mouse: the last click, to tell a double click (same row, soon after) */
	uint32_t click_pos;
	struct timespec t_click;
	/* where the last drawing put things, for the mouse: the view position
	 * on each screen line (TIX_NONE: none), the header line and columns */
	uint32_t line_pos[512];
	int hdr_y, ncol_x;
	int col_x[32], col_w[32], col_i[32];
	FILE *timing;                  /* $TIX_TUI_TIMING: one line per key, or NULL */
	struct tix_rank_set *ranks_ready; /* built at start for the Ranks view it opens on */
	struct timespec t_key;         /* when the key being handled arrived (or its prompt ended) */
	const char *peak_bw, *peak_flops; /* --peak-bw, --peak-flops (NULL: the device table's) */
	char *copied;                  /* what y / Y copied last (malloc'd, made safe), or NULL */
};

/* ---- framework (tui.c) ---- */
void app_msg(struct app *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Opens a view of the given ops over the current trace and pushes it.
 * Returns the view, or NULL (message set). */
struct view *app_push(struct app *a, const struct view_ops *ops, const struct view_args *args);
struct view *app_top(struct app *a);
/* Makes trace i the current one (its Steps view opened when it has none). */
void app_set_trace(struct app *a, int i);
/* Closes the top view (never the first one). */
void app_pop(struct app *a);
void view_set_rows(struct view *v, uint32_t nrows);
/* Moves the cursor to row (if visible). */
void view_goto_row(struct view *v, uint32_t row);
uint32_t view_cur_row(const struct view *v);   /* TIX_NONE when empty */
/* Reads a line in the status row, starting from buf (usually ""); Up and
 * Down walk the prompt's history.  1 entered (and remembered), 0 cancelled. */
int app_prompt(struct app *a, enum prompt_kind k, const char *label, char *buf, size_t cap);
/* Asks a yes/no question in the status row: 1 for y, 0 for anything else. */
int app_confirm(struct app *a, const char *question);
/* Remembers text as the newest entry of a prompt's history. */
void app_history_add(struct history *h, const char *text);
/* After an Esc: swallows the rest of a key sequence ncurses did not decode;
 * 1 when there was one, 0 when the Esc stood alone (prompt.c). */
int tui_swallow_escape(void);
/* Handles a request: the top view first, then the framework (tui.c). */
void app_request(struct app *a, enum req r);
/* Draws the whole screen; tells the views the size changed (tui.c). */
void app_draw(struct app *a);
void app_resize(struct app *a);
/* :N, e, y / Y and the mouse (actions.c). */
void app_goto(struct app *a, struct view *v);
void app_export(struct app *a, struct view *v);
/* y / Y / v (copy.c): y the selection's full name, Y its row, onto the
 * clipboard (OSC 52) and into a->copied; v shows a->copied on a page. */
void app_copy(struct app *a, struct view *v, int whole_row);
void app_copy_show(struct app *a, struct view *v);
void app_mouse(struct app *a, struct view *v);
struct view_args view_args_none(void);
/* The display name of a kernel/op name string (short unless t was pressed). */
const char *app_name(struct app *a, uint32_t str, char *buf, size_t cap);
/* Offset of t from the start of the trace. */
int64_t app_rel(struct app *a, int64_t t);

/* Comparisons for ops->cmp: numbers sort largest first, names A to Z. */
static inline int cmp_big_first(int64_t x, int64_t y)
{
	return (x < y) - (x > y);
}
static inline int cmp_small_first(int64_t x, int64_t y)
{
	return (x > y) - (x < y);
}

/* Opens the model of kind over the current trace for v, with v->args as
 * its scope, and sets the rows and columns from it.  0, or -1 (message
 * set).  The framework frees it with the view (tui.c). */
int view_open_model(struct app *a, struct view *v, enum tix_view_kind kind);
/* view_ops hooks for views with a model: the model's text (as a->full_names
 * says), comparison, bar and column width. */
const char *model_cell(struct app *a, struct view *v, uint32_t row, int col, char *buf, size_t cap);
int model_cmp(struct app *a, struct view *v, uint32_t ra, uint32_t rb, int col);
double model_share(struct app *a, struct view *v, uint32_t row);
int model_width(struct app *a, struct view *v, int col);

/* ---- the views ---- */
extern const struct view_ops view_steps_ops, view_kernels_ops, view_launches_ops,
	view_detail_ops, view_ops_ops, view_timeline_ops, view_help_ops, view_menu_ops,
	view_found_ops, view_shapes_ops, view_op_shapes_ops, view_compare_ops, view_ranks_ops,
	view_findings_ops;
/* The first screen's word on the findings (view_findings.c): how many there
 * are and the top one with its saving, on the status line. */
void findings_first_screen(struct app *a);
/* The rank set of the open traces (view_ranks.c); *named: the traces said
 * their ranks (distributedInfo, file names), not just their order. */
struct tix_rank_set *tui_rank_set(struct app *a, int *named);
/* Opens the compare view of the current trace against trace `other`, by
 * kind (a TIX_VIEW_CMP_ kind), on top of the current stack (view_compare.c). */
struct view *app_compare(struct app *a, int other, int kind, uint32_t step);
/* The op rank selected in an Ops view, TIX_NONE (view_ops.c). */
uint32_t view_ops_selected(const struct view *v);
/* A lane's label: "GPU0 s7", "python 1234" (thread name and tid). */
void track_label(struct app *a, uint32_t track, char *buf, size_t cap);

/* ---- drawing helpers (draw.c) ---- */
#define TUI_COLORS(X)                                                   \
	X(NORMAL, -1, -1, 0)                                            \
	X(TITLE, COLOR_BLACK, COLOR_CYAN, 0)                            \
	X(HEADER, COLOR_YELLOW, -1, A_BOLD)                             \
	X(CURSOR, COLOR_BLACK, COLOR_GREEN, 0)                          \
	X(BAR, COLOR_GREEN, -1, 0)                                      \
	X(TOTAL, COLOR_CYAN, -1, A_BOLD)                                \
	X(STATUS, COLOR_BLACK, COLOR_WHITE, 0)                          \
	X(HINT, COLOR_CYAN, -1, 0)                                      \
	X(LABEL, COLOR_YELLOW, -1, 0)                                   \
	X(GPU, COLOR_GREEN, -1, 0)                                      \
	X(CPU, COLOR_BLUE, -1, 0)                                       \
	X(WARN, COLOR_RED, -1, A_BOLD)

enum color_role {
#define TUI_COLOR_ENUM(name, fg, bg, attr) CR_##name,
	TUI_COLORS(TUI_COLOR_ENUM)
#undef TUI_COLOR_ENUM
	CR_COUNT
};

/* The glyphs of the current locale: UTF-8 or plain ASCII. */
struct glyphs {
	const char *crumb_sep;   /* " › " or " > " */
	const char *vline;       /* "│" or "|" */
	const char *bar_full;    /* "█" or "#" */
	const char *const *bar_part; /* eighths 1..7, or NULL (ASCII) */
	const char *busy;        /* timeline block */
	const char *arrow;       /* "→" or "->" */
	const char *ellipsis;    /* "…" or "~" */
	const char *sort_down, *sort_up; /* sort markers in a header */
};

void draw_init(struct app *a);
const struct glyphs *draw_glyphs(const struct app *a);
int draw_attr(const struct app *a, enum color_role r);
/* Draws s at (y, x) in at most width screen columns, replacing control
 * characters and invalid UTF-8 with '?'; pads with spaces when pad.  Returns
 * the columns used. */
int draw_text(const struct app *a, int y, int x, int width, const char *s, int pad);
int draw_textn(const struct app *a, int y, int x, int width, const char *s, size_t n, int pad);
/* A horizontal share bar, frac in 0..1, width columns. */
void draw_bar(const struct app *a, int y, int x, int width, double frac);
/* Fills a whole row with attribute attr and spaces. */
void draw_fill(int y, int attr);
/* Screen columns s takes (UTF-8 aware). */
int text_width(const struct app *a, const char *s);
/* The screen width of the character at s (n bytes there) as draw_text
 * draws it, and its length in *len. */
int draw_char_width(const struct app *a, const char *s, size_t n, size_t *len);

#endif /* TIX_TUI_VIEW_H */
