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
	TIX_VIEW_CMP_FINDINGS, /* the base's findings, and what the new side saved of each */
	TIX_VIEW_RANKS,      /* a rank set's step x rank rows (tix_view_ranks) */
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
	/* OPS: the device whose peaks the roofline columns use (NULL: the
	 * index's own, tix_index_device; the caller keeps it alive) */
	const struct tix_device *device;
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
	TIX_UNIT_FCOUNT,     /* d: a count per step, 78 or 39.5 (thousands separators) */
	TIX_UNIT_FDELTA,     /* d: a signed change of a count per step: +0, -0.5 */
	TIX_UNIT_BAR,        /* a share bar: no text, drawn from tix_view_share */
	/* d: numbers too large or too fine for i (docs/FINDINGS.md's roofline) */
	TIX_UNIT_FLOPS,      /* floating-point operations: 137.4 GFLOP */
	TIX_UNIT_FLOP_RATE,  /* FLOP/s: 85.2 TFLOP/s */
	TIX_UNIT_BYTE_RATE,  /* bytes/s: 1.03 TB/s */
	TIX_UNIT_FRACTION,   /* a fraction 0..1 (of a peak): 12.9% in text, 0.129 in JSON */
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
/* A column's header as both faces write it: its title, with the unit of a
 * duration column when one is chosen ("Total (us)").  buf, or the title. */
const char *tix_col_title(const struct tix_col *c, const struct tix_view_fmt *f, char *buf, size_t cap);

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
/* What column col means, for `?` and the docs ("GPU busy over the longer
 * of Wall and GPU span"), or NULL when its title says it. */
const char *tix_view_what(const struct tix_view *v, int col);
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
	/* the rows' counts, times and ratios are per step: the traces have
	 * different step counts and the rows are not steps themselves */
	int normalised;
	uint32_t step;       /* the one step compared (TIX_NONE: all) */
	/* per step when normalised, else summed over the steps */
	double wall_ns[2], gpu_busy_ns[2], kernel_ns[2];
	double per_step_wall_ns[2], per_step_gpu_busy_ns[2], per_step_kernel_ns[2];
};
void tix_compare_totals(const struct tix_view *v, struct tix_compare_totals *out);
/* The line both faces print under the per-step totals when the step counts
 * differ ("4 vs 6 steps: counts and times below are per step, ..."), or ""
 * when they agree.  Returns buf. */
const char *tix_compare_note(const struct tix_view *v, char *buf, size_t cap);
/* What a compare row matched on each side: the overall group of a kernel
 * row (TIX_NONE where absent), the event row of a launch row and its side. */
struct tix_compare_ref {
	uint32_t group[2];
	uint32_t event;
	int side;            /* 0 base, 1 new: of a launch row */
};
void tix_compare_ref(const struct tix_view *v, uint32_t row, struct tix_compare_ref *out);

/* ---- the detail of one event ----
 * Items of (indent, label, value), in sections (a HEAD item each): what the
 * TUI's Detail view lays out at the screen's width and `tix show` prints.
 * Each item may carry a JSON key and the raw value behind its text (unknown:
 * null), and DATA items carry values for JSON only: `show --format json`
 * writes the items' keys and raw values, nothing else (docs/CLI.md, "JSON:
 * show --format json").  OBJECT and ARRAY items open a nested value that
 * the next END item closes; in an ARRAY the items have no keys. */
enum tix_detail_role { TIX_DETAIL_TEXT, TIX_DETAIL_HEAD, TIX_DETAIL_NOTE, TIX_DETAIL_DATA };
enum tix_detail_raw {
	TIX_RAW_NONE,        /* text only: not in JSON */
	TIX_RAW_NULL,        /* null: the trace does not say */
	TIX_RAW_INT,         /* i */
	TIX_RAW_NUM,         /* d, with i decimals */
	TIX_RAW_BOOL,        /* i */
	TIX_RAW_STR,         /* s */
	TIX_RAW_JSON,        /* s, the profiler's own JSON (Input Dims): as it is when it is an
	                      * array or a string, else as a string */
	TIX_RAW_DIM3,        /* dim */
	TIX_RAW_OBJECT,      /* opens {...} */
	TIX_RAW_ARRAY,       /* opens [...] */
	TIX_RAW_END,         /* closes the innermost open one */
};
struct tix_detail_item {
	int indent;
	char label[20];      /* "" when none */
	char *value;         /* "" for DATA items */
	enum tix_detail_role role;
	const char *key;     /* JSON key (a constant), NULL inside an ARRAY */
	enum tix_detail_raw raw;
	int64_t i;
	double d;
	int32_t dim[3];
	char *s;             /* owned */
};
struct tix_detail {
	struct tix_detail_item *items;
	uint32_t n, cap;
	int oom;             /* memory ran out: the items so far */
};
/* 0, or -1 when row is no event or memory ran out (the items made so far
 * are kept).  tix_detail_done frees them. */
int tix_detail_build(struct tix_index *ix, uint32_t row, const struct tix_view_fmt *f,
                     struct tix_detail *out);
void tix_detail_done(struct tix_detail *d);

/* ---- formatting: the one definition of each ----
 * Each writes at most cap bytes (NUL included) and returns out. */
/* A GPU work or op name as the views show it: the index's short label
 * (distinct among the trace's GPU work names), else the name shortened,
 * or (full) the demangled name in full.  buf, or a string of the index. */
const char *tix_name_label(const struct tix_index *ix, uint32_t str, int full, char *buf, size_t cap);
/* 950 ns, 828.1 us, 64.60 ms, 1.234 s (or in unit); "-" for negative values. */
char *tix_fmt_dur_unit(int64_t ns, enum tix_timeunit unit, char *out, size_t cap);
/* "69.4": part of whole in percent, one decimal; "-" when whole <= 0. */
char *tix_fmt_pct(int64_t part, int64_t whole, char *out, size_t cap);
/* [557496, 1, 1], or "-" when unknown. */
char *tix_fmt_dim3(const int32_t v[3], char *out, size_t cap);

/* ---- ranks: several traces of one run ----------------------------------
 * (index/view/ranks.c)  One trace per rank of a tensor/data-parallel run:
 * per step x rank the wall, GPU busy, compute and communication time, and
 * per step the sync skew and the straggler.  `tix summary FILES... --by
 * rank` prints it; a TUI Ranks view can draw the same rows and columns.
 *
 * Definitions (docs/CLI.md, "summary --by rank", says the same):
 *   comm       union of the intervals of the step's communication kernels
 *              (tix_name_is_comm, index/index.h): time some collective ran on the GPU.
 *   compute    union of the intervals of the step's other GPU work
 *              (kernels, copies, memsets): the busy time of non-comm work.
 *   overlap    compute + comm - GPU busy: comm hidden under compute.
 *   wait       comm - the least comm of the step over the ranks: the time
 *              this rank spent in collectives beyond the rank that waited
 *              least.  Collectives end together on every rank, so a rank's
 *              comm is its own transfer time plus the time it waited for
 *              the last rank to arrive.
 *   skew       max - min over the ranks of comm (= the largest wait): the
 *              time the most-waiting rank lost to the last arrival.  Made
 *              of durations only, so it needs no common clock: ranks on
 *              several hosts have clocks that disagree by more than a
 *              decode step, and even on one host the start of a collective
 *              says when it was launched, not when its peers arrived.
 *   straggler  the rank with the least comm in the step (ties: the lowest
 *              rank): the one that arrived last at the collectives, so
 *              the others waited for it.  Whatever made it late (longer
 *              compute, a slow CPU launching late, an idle GPU) it is
 *              named; slowest_compute (the rank with the most compute)
 *              says whether compute was the cause.  None when the skew
 *              is 0: nobody waited.
 * Steps are aligned by number: step s of every rank.  A rank without step
 * s has no cell there (unknown, not zero); skew and straggler need two
 * ranks with the step and one communication kernel among them.  GPU work
 * launched before a trace's CPU window belongs to no step and is left out.
 *
 * Usage: per file, open its index, tix_rank_trace_new() (it copies what it
 * needs), close the index; then tix_rank_set_new() over all of them. */


/* One step of one trace.  Durations in ns. */
struct tix_rank_fig {
	int64_t wall_ns, gpu_busy_ns, compute_ns, comm_ns, overlap_ns;
	uint32_t gpu_events, comm_kernels;
	char *name;                /* the step's marker name (owned) */
};

/* What one trace says, copied out of its index so that the index can be
 * closed at once: a 64-rank set never holds 64 mappings. */
struct tix_rank_trace {
	char *path;                /* as given (owned) */
	int has_info;              /* distributedInfo.rank was there */
	int64_t info_rank;         /* distributedInfo.rank */
	int64_t info_world;        /* distributedInfo.world_size, -1 when absent */
	uint32_t nsteps;
	struct tix_rank_fig *steps; /* nsteps of them */
	char *step_rule;           /* how its steps were found (owned) */
};
/* The figures of every step of ix, which path names.  NULL with err set
 * when memory runs out.  Reads the steps, their GPU work rows (start and
 * duration only) and the top-level key distributedInfo. */
struct tix_rank_trace *tix_rank_trace_new(const struct tix_index *ix, const char *path,
                                          struct tix_error *err);
void tix_rank_trace_free(struct tix_rank_trace *t);

/* How the ranks were told: the first rule that gives every trace one. */
enum tix_rank_rule {
	TIX_RANK_AUTO = -1,
	TIX_RANK_INFO,             /* distributedInfo.rank */
	TIX_RANK_NAME,             /* the file name: rank-N, TP-N, DP-N, PP-N, EP-N */
	TIX_RANK_ORDER,            /* the order given, from 0 */
};

/* A step across the ranks.  -1 where unknown. */
struct tix_rank_step {
	uint32_t ranks;            /* ranks that have this step */
	int64_t skew_ns;
	int32_t straggler;         /* rank number */
	int32_t slowest_compute;   /* rank number */
	int64_t compute_spread_ns; /* max - min compute */
	int comm_mismatch;         /* the ranks ran different numbers of comm kernels */
};

struct tix_rank_set;

/* Takes the n traces (the set owns them from now on, failure included),
 * gives each its rank by rule (TIX_RANK_AUTO: distributedInfo when every
 * trace has it, else a file-name key present in every name whose numbers
 * differ (rank, then TP, DP, PP, EP), else the order given) and aligns
 * their steps.  NULL with err set when two traces get the same rank (the
 * message names both and the rule: a usage error) or memory runs out. */
struct tix_rank_set *tix_rank_set_new(struct tix_rank_trace **traces, uint32_t n,
                                      enum tix_rank_rule rule, struct tix_error *err);
void tix_rank_set_free(struct tix_rank_set *rs);

enum tix_rank_rule tix_rank_set_rule(const struct tix_rank_set *rs);
/* "distributedInfo.rank", "file name (TP-N)", "order given". */
const char *tix_rank_rule_text(const struct tix_rank_set *rs);
/* "distributedInfo", "name", "order": rank_rule in JSON. */
const char *tix_rank_rule_key(const struct tix_rank_set *rs);
/* The world size every trace's distributedInfo agrees on, else -1. */
int64_t tix_rank_world(const struct tix_rank_set *rs);
uint32_t tix_rank_count(const struct tix_rank_set *rs);
/* The i-th rank in rank order: its number and its trace. */
int32_t tix_rank_number(const struct tix_rank_set *rs, uint32_t i);
const struct tix_rank_trace *tix_rank_trace_at(const struct tix_rank_set *rs, uint32_t i);
/* Steps: the most any rank has. */
uint32_t tix_rank_steps(const struct tix_rank_set *rs);
/* Rank i's figures at step s, NULL when it has no step s. */
const struct tix_rank_fig *tix_rank_cell(const struct tix_rank_set *rs, uint32_t s, uint32_t i);
/* Rank i's wait at step s, -1 when unknown. */
int64_t tix_rank_wait(const struct tix_rank_set *rs, uint32_t s, uint32_t i);
const struct tix_rank_step *tix_rank_step_get(const struct tix_rank_set *rs, uint32_t s);
/* The straggler over steps first .. first+count-1 (clipped to the set):
 * the rank that is the straggler of the most of them (ties: the lowest
 * rank), -1 when none has one; *steps how many steps it was, *of how many
 * of them have a straggler (either may be NULL). */
int32_t tix_rank_straggler(const struct tix_rank_set *rs, uint32_t first, uint32_t count,
                           uint32_t *steps, uint32_t *of);
/* How many of those steps rank i is the straggler of. */
uint32_t tix_rank_straggler_steps(const struct tix_rank_set *rs, uint32_t i, uint32_t first,
                                  uint32_t count);

/* How a row, a message or a header names rank `rank` (a number):
 * "TP-5" when the file names told the ranks by TP (DP, PP, EP), else
 * "rank 5".  A string of the set. */
const char *tix_rank_label(const struct tix_rank_set *rs, int32_t rank);

struct tix_finding;
/* The straggler as a finding (index/findings.h: rule straggler), its
 * saving the skew a step; 1 when there is one worth a finding, else 0. */
int tix_rank_straggler_finding(const struct tix_rank_set *rs, struct tix_finding *out);

/* Rows for a face: step x rank, row = s * tix_rank_count() + i, step by
 * step; step values (the skew) repeat on each rank's row.  The columns
 * after FILE are for CSV and JSON only. */
enum tix_rank_col {
	TIX_RANK_COL_STEP, TIX_RANK_COL_RANK, TIX_RANK_COL_STRAGGLER, TIX_RANK_COL_WALL,
	TIX_RANK_COL_BUSY, TIX_RANK_COL_COMPUTE, TIX_RANK_COL_COMM, TIX_RANK_COL_WAIT,
	TIX_RANK_COL_SKEW, TIX_RANK_COL_FILE, TIX_RANK_COL_NAME, TIX_RANK_COL_OVERLAP,
	TIX_RANK_COL_GPU_EVENTS, TIX_RANK_COL_COMM_KERNELS, TIX_RANK_COL_TRACE, TIX_RANK_COL_COUNT
};
const struct tix_col *tix_rank_cols(int *ncols);
uint32_t tix_rank_rows(const struct tix_rank_set *rs);
/* A row's cell (the straggler column is known everywhere: true on the
 * step's straggler, with the text "*"). */
void tix_rank_row_cell(const struct tix_rank_set *rs, uint32_t row, int col, struct tix_cell *out);
/* The same rows as a view (kind TIX_VIEW_RANKS), so a face sorts and prints
 * them as any other; it borrows rs, which must outlive it. */
struct tix_view *tix_view_ranks(const struct tix_rank_set *rs, struct tix_error *err);

#endif /* TIX_VIEW_H */
