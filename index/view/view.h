/*
 * view: the rows and columns of tix's views, without curses.  Both faces
 * print them: the TUI draws a view's rows (tui/), `tix summary` and
 * `tix show` print the same rows as text, CSV or JSON (cli/).  So a number
 * has one definition and one rounding, here (STYLE.md, practice 7: every
 * screen has a headless twin over the same model).
 *
 * A view is a set of rows over an open index (the steps; the GPU work
 * groups of a step or of a CPU op; the launches of a group; the CPU ops;
 * launches grouped by input shape), a constant table of columns, and per
 * cell a raw value (struct tix_cell: unknown is not zero) and its text.
 * Rows come in the view's natural order (the index's ranking); sorting,
 * filtering and the cursor belong to the face that shows them.
 *
 * The index knows nothing of views: this layer only asks index/index.h.
 * It is the only door of index/view/.
 */
#ifndef TIX_VIEW_H
#define TIX_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "index/index.h"

enum tix_view_kind {
	TIX_VIEW_STEPS,      /* a totals row, [before the trace], then each step */
	TIX_VIEW_KERNELS,    /* GPU work groups: of all steps, a step, or an op */
	TIX_VIEW_LAUNCHES,   /* the launches (members) of one group */
	TIX_VIEW_OPS,        /* CPU ops by GPU time launched beneath them */
	/* two traces side by side (tix_view_compare): rows matched by name */
	TIX_VIEW_CMP_KERNELS, /* GPU work by full name and kind */
	TIX_VIEW_CMP_OPS,     /* CPU ops by name */
	TIX_VIEW_CMP_STEPS,   /* steps by position */
	TIX_VIEW_CMP_SHAPES,  /* (op, Input Dims) */
	TIX_VIEW_CMP_LAUNCHES, /* the launches of one kernel on both sides */
	TIX_VIEW_COUNT
};

/* What a view is opened over; TIX_NONE where it does not apply. */
struct tix_view_scope {
	uint32_t step;       /* KERNELS, LAUNCHES: one step (TIX_NONE: all) */
	uint32_t group;      /* LAUNCHES: the overall group id */
	uint32_t op;         /* KERNELS, LAUNCHES: only what this op (rank) launched */
	/* LAUNCHES: these GPU event rows instead of a group's (tix show's
	 * matches; the caller keeps them alive), when rows is not NULL */
	const uint32_t *rows;
	uint32_t nrows;
};
struct tix_view_scope tix_view_scope_all(void);

/* How a column's raw value reads. */
enum tix_unit {
	TIX_UNIT_TEXT,       /* a string */
	TIX_UNIT_NAME,       /* a kernel or op name: i is its string id; the text is
	                      * its short label or (full_names) the demangled name */
	TIX_UNIT_INT,        /* a plain integer: a step number, a stream */
	TIX_UNIT_COUNT,      /* a count with thousands separators */
	TIX_UNIT_DUR,        /* a duration, ns */
	TIX_UNIT_TIME,       /* an offset, ns: "+828.1 us" (or "-" before its origin) */
	TIX_UNIT_PCT,        /* a share, 0..100 */
	TIX_UNIT_DIM3,       /* [x,y,z] */
	TIX_UNIT_BYTES,      /* bytes: 4.1 kB */
	TIX_UNIT_BOOL,
	TIX_UNIT_DELTA,      /* a signed change of a count: +3, -1, 0 */
	TIX_UNIT_DDUR,       /* a signed change of a duration, ns: +1.21 ms, -21.5 ms */
	TIX_UNIT_RATIO,      /* d: new over base, 0.71x */
	TIX_UNIT_BAR,        /* a share bar: no text, drawn from tix_view_share */
};

enum tix_col_flag {
	TIX_COL_RIGHT = 1,   /* right-aligned (numbers) */
	TIX_COL_BAR = 2,     /* a share bar */
	TIX_COL_FLEX = 4,    /* takes the width left over (names) */
	TIX_COL_NOSORT = 8,
	TIX_COL_NAME = 16,   /* a C++ name: leading namespaces go first when narrow */
	TIX_COL_ASC = 32,    /* its natural sort is smallest (or A) first */
	TIX_COL_FIT = 64,    /* as wide as its content (tix_view_width), before the flexible one */
	TIX_COL_DATA = 128,  /* a value for CSV and JSON only: no screen or text column */
	TIX_COL_SIGNED = 256, /* a change: the TUI colours it by its sign; sorts by magnitude */
};

/* The first four fields are the TUI's own column description, so the TUI's
 * views that have no model (help, detail) declare theirs the same way. */
struct tix_col {
	const char *title;   /* "Time%": the header in the TUI and in text */
	int width;           /* screen columns (minimum for TIX_COL_FLEX) */
	int flags;           /* enum tix_col_flag */
	int prio;            /* 0 always shown; higher numbers drop first when narrow */
	const char *key;     /* "time_pct": CSV header, JSON key, --sort name */
	enum tix_unit unit;
};

/* A cell's raw value.  known 0: the trace does not say ("-", null). */
struct tix_cell {
	int known;
	int64_t i;           /* INT, COUNT, DUR, TIME, BYTES, BOOL; NAME: string id */
	double d;            /* PCT */
	int32_t dim[3];      /* DIM3 */
	const char *s;       /* TEXT; for other units a label that stands for the
	                      * value ("all", "(no launch call)"); lives as long as the view */
	const char *mark;    /* text only: written before the value ("[captured] ") */
	const struct tix_index *ix; /* NAME: the index the string id is of (NULL: the view's) */
};

/* How text is written: full names or short labels, and one time unit for
 * every duration (0: each value in its own unit, 950 ns, 828.1 us). */
enum tix_timeunit { TIX_TU_AUTO, TIX_TU_NS, TIX_TU_US, TIX_TU_MS, TIX_TU_S };
struct tix_view_fmt {
	int full_names;
	enum tix_timeunit timeunit;
};
/* "ns" -> TIX_TU_NS ...; -1 when s names no unit. */
int tix_timeunit_parse(const char *s);

struct tix_view;

/* Opens a view of kind over ix (which must outlive it).  NULL with err set
 * when scope names nothing in ix or memory runs out. */
struct tix_view *tix_view_new(struct tix_index *ix, enum tix_view_kind kind,
                              const struct tix_view_scope *scope, struct tix_error *err);
void tix_view_free(struct tix_view *v);

enum tix_view_kind tix_view_kind(const struct tix_view *v);
struct tix_index *tix_view_index(const struct tix_view *v);
const struct tix_view_scope *tix_view_scope(const struct tix_view *v);
/* The columns of a view (constant tables; TIX_COL_DATA ones come last), the
 * column whose key is key (or -1), the column --top ranks by. */
const struct tix_col *tix_view_columns(const struct tix_view *v, int *ncols);
int tix_view_col(const struct tix_view *v, const char *key);
int tix_view_rank(const struct tix_view *v);
/* The same for a kind before a view is open (a compare kind: as when its
 * two traces have the same number of steps). */
const struct tix_col *tix_view_cols(enum tix_view_kind kind, int *ncols);
/* The column whose key is key, or -1. */
int tix_view_col_by_key(enum tix_view_kind kind, const char *key);
uint32_t tix_view_rows(const struct tix_view *v);
/* Rows 0 .. pinned-1 are totals: they stay on top, unsorted, unfiltered. */
uint32_t tix_view_pinned(const struct tix_view *v);

void tix_view_cell(const struct tix_view *v, uint32_t row, int col, struct tix_cell *out);
/* The cell as both faces print it: buf, or a string that lives as long as
 * the view. */
const char *tix_view_text(const struct tix_view *v, uint32_t row, int col,
                          const struct tix_view_fmt *f, char *buf, size_t cap);
/* <0, 0, >0 as row a comes before, with or after row b when sorted by col
 * in its natural direction (numbers largest first; TIX_COL_ASC columns
 * smallest or A first).  Ties: 0 (the caller keeps the natural order). */
int tix_view_cmp(const struct tix_view *v, uint32_t ra, uint32_t rb, int col);
/* The column --top ranks by when no --sort is given (Wall for steps). */
int tix_view_rank_col(enum tix_view_kind kind);
/* The share a row's bar shows, 0..1. */
double tix_view_share(const struct tix_view *v, uint32_t row);
/* The widest text of a TIX_COL_FIT column, in characters. */
int tix_view_width(const struct tix_view *v, int col);

/* What a row points at (TIX_NONE where nothing): the step, the overall
 * group, the op rank, the event row (a launch). */
struct tix_view_ref {
	uint32_t step, group, op, event;
};
void tix_view_ref(const struct tix_view *v, uint32_t row, struct tix_view_ref *out);

/* ---- two traces side by side ----
 * Rows of the two sides are matched (GPU work by full name and kind, ops
 * by name, steps by position, shapes by op name and Input Dims, launches
 * of one kernel by their order) and, but for steps and launches, sorted
 * by the absolute change of their time.  When the traces have different
 * numbers of steps (and no step is chosen), times are compared per step:
 * each side's total divided by its step count; the text columns then show
 * per-step times, and CSV/JSON carry both. */
struct tix_compare_scope {
	uint32_t step;       /* compare step N of both (KERNELS), TIX_NONE: all */
	uint32_t group[2];   /* CMP_LAUNCHES: the kernel's overall group on each side (TIX_NONE: absent) */
};
/* Opens a compare view of kind (a TIX_VIEW_CMP_ kind); NULL with err set. */
struct tix_view *tix_view_compare(struct tix_index *base, struct tix_index *new_, enum tix_view_kind kind,
                                  const struct tix_compare_scope *scope, struct tix_error *err);
struct tix_compare_totals {
	uint32_t steps[2];
	int normalised;      /* different step counts: per step */
	/* per step when normalised, else summed over the steps */
	double wall_ns[2], gpu_busy_ns[2], kernel_ns[2];
	double per_step_wall_ns[2], per_step_gpu_busy_ns[2], per_step_kernel_ns[2];
};
void tix_compare_totals(const struct tix_view *v, struct tix_compare_totals *out);
/* What a compare row matched on each side: the overall group of a kernel
 * row (TIX_NONE where absent), the event row of a launch row and its side. */
struct tix_compare_ref {
	uint32_t group[2];
	uint32_t event;
	int side;            /* 0 base, 1 new: of a launch row */
};
void tix_compare_ref(const struct tix_view *v, uint32_t row, struct tix_compare_ref *out);

/* ---- formatting: the one definition of each ----
 * Each writes at most cap bytes (NUL included) and returns out. */
/* 950 ns, 828.1 us, 64.60 ms, 1.234 s (or in unit); "-" for negative values. */
char *tix_fmt_dur_unit(int64_t ns, enum tix_timeunit unit, char *out, size_t cap);
/* "69.4": part of whole in percent, one decimal; "-" when whole <= 0. */
char *tix_fmt_pct(int64_t part, int64_t whole, char *out, size_t cap);
/* [557496, 1, 1], or "-" when unknown. */
char *tix_fmt_dim3(const int32_t v[3], char *out, size_t cap);

#endif /* TIX_VIEW_H */
