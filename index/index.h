/*
 * index: the .tix trace index — its reader and every query the TUI and the
 * CLI ask.  This header is the readers' only door; producers include
 * index/sink.h and the program that builds an index index/build/builder.h.
 *
 * Data flows one way (see docs/FORMAT.md for the byte layout):
 *
 *   producer (parse/ JSON reader, cupti_capture/ journal reader)
 *       |  tix_builder_add_event / _add_flow / _set_track_meta / _set_meta
 *       v
 *   tix_builder  -- sorts, links, aggregates, writes OUT.tix atomically
 *       |
 *   tix_index_open (mmap; each part checked when first read)  -->  queries below
 *
 * Errors: functions that can fail return 0 on success and -1 on failure with
 * a one-line message in *err (no trailing newline, names the file).
 * Strings returned by the reader live in the mapping and stay valid until tix_index_close().
 */
#ifndef TIX_INDEX_H
#define TIX_INDEX_H

/* The version of the .tix files this tix writes (index/format.h says what
 * each brought).  It refuses older ones ("older than this tix reads"): the
 * CLI rebuilds them from their trace. */
#define TIX_INDEX_VERSION 5u

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "index/sink.h"

/* ---- reader side -------------------------------------------------------
 * Everything below points into the read-only mapping.  Row, string and
 * record numbers have been range-checked before a query returns them, so
 * callers may use any value these functions return without checking again.
 *
 * When: tix_index_open checks the header, the section table and the few
 * small sections the other checks need, in a time that does not grow with
 * the file.  Every other part (a block of at most 64 KiB of one section) is
 * checked -- its checksum, then every reference in it -- when a query first
 * reads it.  A query that meets a damaged block cannot return what it read:
 * it calls the index's damage handler with one line naming the file
 * ("X.tix: damaged index (event 812)").  The handler must not return; the
 * default one writes "tix: LINE" on stderr and exits with status 2, and one
 * that returns is followed by that exit.  Queries may run on several
 * threads at once. */

struct tix_index;

int tix_index_open(const char *path, struct tix_index **out, struct tix_error *err);
void tix_index_close(struct tix_index *ix);
/* The path ix was opened with. */
const char *tix_index_path(const struct tix_index *ix);

typedef void (*tix_damage_fn)(const struct tix_index *ix, void *ctx, const char *msg);
/* Sets ix's damage handler (fn NULL: the default again). */
void tix_index_on_damage(struct tix_index *ix, tix_damage_fn fn, void *ctx);
/* Checks every block not checked yet: 0, or -1 with the first damage in
 * *err (what tix_index_open of format 2 refused at open: tix info). */
int tix_index_check_all(const struct tix_index *ix, struct tix_error *err);
/* tix dump: writes to out what ix holds, in the text form docs/CLI.md
 * shows (the header, the section table, then each section record by
 * record, every field by name; a section of a later format as hex), after
 * checking every block as the queries would.  section: NULL for all, or
 * one section by its name (format.h's, any case) or id.  0; 1 when the file
 * has no such section (err names those it has; nothing written); -1 with
 * err set when the file is damaged (nothing written) or out fails. */
int tix_index_dump(const struct tix_index *ix, const char *section, FILE *out,
                   struct tix_error *err);
/* Checks the blocks not checked yet on a thread of its own, so that a query
 * that later reads the whole trace finds them checked (the TUI, after open).
 * What it finds damaged is reported when a query reads it.  Stopped by
 * tix_index_close; nothing happens when no thread can start. */
void tix_index_check_background(struct tix_index *ix);
/* Whether addr lies in ix's mapping of its file: a SIGBUS there means the
 * file shrank under the reader (another program truncated it).  Safe in a
 * signal handler. */
int tix_index_maps(const struct tix_index *ix, const void *addr);
/* Whether addr lies in the mapping of any index open in the process.
 * Safe in a signal handler (the CLI's SIGBUS handler asks it). */
int tix_index_any_maps(const void *addr);

/* The file ix was opened from, as fstat saw it then: its owner and mode say
 * whether an index found beside a trace may be trusted (cli/open.c). */
struct tix_file_info {
	uint64_t dev, ino;
	uint32_t uid, mode;
};
void tix_index_file(const struct tix_index *ix, struct tix_file_info *out);

/* What the index says about its source, for cache validation. */
struct tix_source_info {
	uint64_t size;
	int64_t mtime_ns;
	uint64_t hash;
	uint64_t dev, ino;         /* st_dev, st_ino */
	int64_t ctime_ns;
	const char *path;          /* as given at build time; "" if none */
	const char *step_marker;   /* "" when the defaults were used */
	const char *capture_sources; /* --graph-capture traces, "; "-joined, "" */
};
void tix_index_source(const struct tix_index *ix, struct tix_source_info *out);

struct tix_summary_info {
	uint32_t events, tracks, strings, steps, groups, ops;
	uint32_t kind_counts[TIX_KIND_COUNT];
	uint32_t gpu_without_launch;  /* GPU work with no launch call found */
	int64_t base_time_ns;         /* epoch offset (0 unknown) */
	int64_t first_ns, last_ns;    /* trace extent, in row time */
	uint64_t file_size;
	const char *warnings;         /* "" when none */
	const char *step_rule;        /* how steps were found, e.g. "ProfilerStep#N" */
	uint32_t format_version;      /* of the .tix file (TIX_INDEX_VERSION: this tix's) */
	uint32_t gpu_before_trace;    /* GPU work launched before the trace's CPU window */
	uint32_t corr_collisions;     /* correlation ids carried by several launch calls */
	uint32_t replayed;            /* GPU work replayed from a CUDA graph */
	uint32_t replayed_by_match[TIX_MATCH_COUNT]; /* ... by how it was attributed */
	const char *capture_sources;  /* capture traces used ("; "-joined), "" */
};
void tix_index_summary(const struct tix_index *ix, struct tix_summary_info *out);

/* Top-level keys of the source trace: the i-th (key, JSON value) pair. */
uint32_t tix_meta_count(const struct tix_index *ix);
void tix_meta_get(const struct tix_index *ix, uint32_t i, const char **key,
                  const char **json);

/* Strings: NUL-terminated, length known.  id TIX_NONE gives "". */
const char *tix_str(const struct tix_index *ix, uint32_t id);
uint32_t tix_str_len(const struct tix_index *ix, uint32_t id);

/* ---- tracks: a CPU thread or a GPU stream ---- */
enum tix_track_kind { TIX_TRACK_CPU, TIX_TRACK_GPU, TIX_TRACK_OTHER };

struct tix_track {             /* 56 bytes on disk */
	int64_t pid, tid;          /* numbers, or 0 when given as strings */
	uint32_t pid_str, tid_str; /* string ids when given as strings, else TIX_NONE */
	uint32_t name;             /* thread_name, or "stream N" for GPU; string id */
	uint32_t process_name;     /* string id or TIX_NONE */
	uint32_t first_row, row_count; /* its events, contiguous, sorted by start */
	int32_t device, stream;    /* GPU tracks; -1 otherwise */
	int32_t sort_index;
	uint8_t kind;              /* enum tix_track_kind */
	uint8_t pad[3];
};
uint32_t tix_track_count(const struct tix_index *ix);
const struct tix_track *tix_track_get(const struct tix_index *ix, uint32_t t);
/* First row of track t whose start >= t_ns (row_count end if none). */
uint32_t tix_track_lower_bound(const struct tix_index *ix, uint32_t t, int64_t t_ns);

/* ---- events ---- */
enum tix_row_flag {
	TIX_ROW_GRAPH_REPLAY = 1 << 0, /* GPU work replayed from a CUDA graph */
	TIX_ROW_NO_LAUNCH = 1 << 1,    /* GPU work whose launch call is unknown */
	TIX_ROW_LINK_BY_FLOW = 1 << 2, /* launch found through an ac2g flow */
	TIX_ROW_LONG_DUR = 1 << 3,     /* duration kept in the long-duration table */
	TIX_ROW_STEP_MARKER = 1 << 4,  /* this event defines a step */
	TIX_ROW_CHAIN = 1 << 5,        /* its ancestors are listed, not walked (see rules.h) */
	TIX_ROW_BEFORE_TRACE = 1 << 6, /* GPU work launched before the trace's CPU window */
	TIX_ROW_OPEN_END = 1 << 7,     /* its end is unknown (negative duration in the trace) */
};

struct tix_event {             /* a decoded row */
	uint32_t row;
	enum tix_kind kind;
	uint32_t flags;            /* enum tix_row_flag */
	uint32_t track;
	int64_t start_ns, dur_ns;
	uint32_t name, cat, args;  /* string ids (args: JSON object text or TIX_NONE) */
	uint32_t launch;           /* GPU work: its launch call row, else TIX_NONE */
	uint32_t parent;           /* CPU side: the enclosing event on its thread */
	uint32_t kernel_info;      /* GPU work: record for tix_kernel_info_get */
	uint32_t op_info;          /* CPU ops: record for tix_op_info_get */
};
uint32_t tix_event_count(const struct tix_index *ix);
void tix_event_get(const struct tix_index *ix, uint32_t row, struct tix_event *out);
/* Step of a row: for GPU work the step in which its launch call began,
 * otherwise the step containing its start; GPU work launched before the
 * trace is in tix_step_before_trace().  TIX_NONE if in no step. */
uint32_t tix_event_step(const struct tix_index *ix, uint32_t row);
/* A CPU op row's op_info (for tix_op_info_get) and its name, without
 * decoding the whole row (for passes over every row); TIX_NONE for other
 * rows and for ops without one (*name is then left as it was). */
uint32_t tix_event_op_info(const struct tix_index *ix, uint32_t row, uint32_t *name);
/* GPU work's launch call row (and into *dur_ns its duration), without
 * decoding the whole row; TIX_NONE for CPU rows and for GPU work whose
 * launch is unknown (*dur_ns then left as it was). */
uint32_t tix_event_launch(const struct tix_index *ix, uint32_t row, int64_t *dur_ns);
/* The CPU op rows with an op_info among rows [first, first + n), in order:
 * each row, its op_info and its name into rows[], ops[] and names[] (room
 * for n); returns how many.  A pass over every row, in few calls. */
uint32_t tix_event_ops_in(const struct tix_index *ix, uint32_t first, uint32_t n, uint32_t *rows,
                          uint32_t *ops, uint32_t *names);
/* The CPU events on a CPU row's thread that contain it in time (Kineto's
 * 1 us rounding allowed; one that starts inside another and outlives it is
 * not inside it): up to cap rows into out, innermost first.  Returns how
 * many there are (may exceed cap); 0 for GPU rows. */
uint32_t tix_event_ancestors(const struct tix_index *ix, uint32_t row, uint32_t *out,
                             uint32_t cap);
/* The innermost row of that kind among the first max ancestors of row (as
 * tix_event_ancestors lists them), TIX_NONE when none; the walk stops
 * there.  TIX_NONE for GPU rows. */
uint32_t tix_event_ancestor_of_kind(const struct tix_index *ix, uint32_t row, enum tix_kind kind,
                                    uint32_t max);
/* The same, all of them, innermost first, in *out (malloc'd; the caller
 * frees it).  Returns how many, or -1 when out of memory. */
long tix_event_ancestors_all(const struct tix_index *ix, uint32_t row, uint32_t **out);
/* The op names a GPU event counts for (the index's rule, docs/FORMAT.md
 * "Rules"): the distinct names of the ops among its launch call's
 * ancestors, innermost first, in *out (malloc'd, the caller frees it; NULL
 * when none).  Returns how many (0 when it has no launch call), or -1 when
 * out of memory. */
long tix_event_op_names(const struct tix_index *ix, uint32_t row, uint32_t **out);
/* CPU ops and annotations: GPU work launched beneath this instance
 * (saturates at 65535). */
uint32_t tix_event_gpu_beneath(const struct tix_index *ix, uint32_t row);

/* What captured a GPU row replayed from a CUDA graph. */
struct tix_capture_frame {     /* 16 bytes on disk */
	uint32_t name, dims, types; /* string ids; dims/types TIX_NONE when absent */
	uint8_t kind;              /* enum tix_kind */
	uint8_t pad[3];
};
struct tix_capture_view {
	const struct tix_capture_frame *frames; /* outermost first */
	uint32_t nframes;
	uint32_t source;           /* string id of the capture it came from, TIX_NONE */
};
/* Fills *out (no frames when unknown) and returns how the row was matched
 * to its capture (TIX_MATCH_NONE: not attributed, or not a replay). */
enum tix_capture_match tix_event_capture(const struct tix_index *ix, uint32_t row,
                                         struct tix_capture_view *out);

struct tix_kernel_info {       /* 72 bytes on disk, deduplicated */
	int32_t grid[3], block[3];
	int32_t registers, shared_mem, dynamic_shared;
	float blocks_per_sm, warps_per_sm, occupancy;
	int32_t device, context, stream;
	uint32_t graph_id;
	int64_t bytes;
};
const struct tix_kernel_info *tix_kernel_info_get(const struct tix_index *ix, uint32_t id);
/* A grid or block the trace gave: Kineto writes none for copies and for
 * kernels replayed from graphs on ROCm, and tix stores zeros then. */
static inline int tix_dim3_known(const int32_t d[3])
{
	return d[0] > 0 || d[1] > 0 || d[2] > 0;
}

struct tix_op_info {           /* string ids, TIX_NONE when absent */
	uint32_t dims, types, strides, concrete;
};
const struct tix_op_info *tix_op_info_get(const struct tix_index *ix, uint32_t id);

/* ---- steps ---- */
struct tix_step {              /* 80 bytes on disk */
	uint32_t name;             /* marker name, e.g. "ProfilerStep#12" */
	uint32_t marker_row;       /* the marker event, TIX_NONE for the implicit step */
	int64_t start_ns, dur_ns;  /* wall time */
	int64_t gpu_busy_ns;       /* union of GPU work intervals launched in the step */
	int64_t gpu_ns;            /* sum of GPU work durations */
	uint32_t kernels;          /* kernel count */
	uint32_t gpu_events;       /* kernels + memcpy + memset */
	uint32_t groups_first, groups_count; /* its rows of tix_step_groups */
	uint32_t top_group;        /* overall group id of its largest group, TIX_NONE */
	uint32_t comm_kernels;     /* communication kernels (tix_name_is_comm) */
	/* the union of the intervals of its communication kernels, and of its
	 * other GPU work (kernels, copies, memsets): what a rank computed and
	 * how long it sat in collectives (index/view/view.h, "ranks") */
	int64_t compute_busy_ns, comm_busy_ns;
};
/* The real steps, numbered from 0 in time order. */
uint32_t tix_step_count(const struct tix_index *ix);
/* The step holding the GPU work launched before the trace (numbered
 * tix_step_count(), after the real ones), or TIX_NONE when there is none. */
uint32_t tix_step_before_trace(const struct tix_index *ix);
/* A real step, or the before-the-trace one; NULL otherwise. */
const struct tix_step *tix_step_get(const struct tix_index *ix, uint32_t s);

/* ---- kernel groups: GPU work of one name and kind ----
 * Overall groups are sorted by total time, descending; so are the groups of
 * each step. */
struct tix_group {             /* 72 bytes on disk */
	uint32_t name;
	uint8_t kind;              /* enum tix_kind */
	uint8_t pad[3];
	uint32_t instances;
	uint32_t common_info;      /* kernel info of the most common launch, TIX_NONE */
	int64_t total_ns, min_ns, max_ns, med_ns;
	double stddev_ns;          /* population standard deviation */
	uint32_t members_first, members_count; /* rows in tix_members, by time */
	uint32_t group;            /* the overall group (itself for overall groups) */
	uint32_t step;             /* TIX_NONE for overall groups */
};
uint32_t tix_group_count(const struct tix_index *ix);
const struct tix_group *tix_group_get(const struct tix_index *ix, uint32_t g);
/* The groups of step s, in their own table. */
const struct tix_group *tix_step_groups(const struct tix_index *ix, uint32_t s,
                                        uint32_t *count);
/* Rows of GPU events: members_first .. + members_count of a group. */
const uint32_t *tix_members(const struct tix_index *ix, uint32_t first, uint32_t count);
/* Total GPU work time over all events (the 100% of Time %). */
int64_t tix_total_gpu_ns(const struct tix_index *ix);

/* ---- CPU ops ranked by the GPU time launched beneath them ---- */
struct tix_op {                /* 48 bytes on disk */
	uint32_t name;
	uint32_t calls;            /* instances of the op */
	int64_t cpu_ns;            /* their summed wall time */
	int64_t gpu_ns;            /* GPU work launched beneath any instance */
	uint32_t gpu_events;
	uint32_t groups_first, groups_count; /* tix_op_groups rows */
	uint32_t pad[3];
};
struct tix_op_group {          /* 16 bytes on disk */
	uint32_t group;            /* overall group id */
	uint32_t count;
	int64_t gpu_ns;
};
uint32_t tix_op_count(const struct tix_index *ix);
const struct tix_op *tix_op_get(const struct tix_index *ix, uint32_t i);
const struct tix_op_group *tix_op_groups(const struct tix_index *ix, uint32_t op,
                                         uint32_t *count);

/* ---- what findings read (docs/FINDINGS.md), computed at build time ----
 * A step's GPU time breakdown and its idle time by cause (sections 1, 2):
 * tix_breakdown_get(ix, s) for a step of tix_step_get's numbering, or
 * TIX_NONE for the whole trace. */
struct tix_breakdown {         /* 176 bytes on disk */
	int64_t span_start, span_end; /* first start, last end of its GPU work (both 0: none) */
	int64_t busy_ns;           /* |U(all)| */
	int64_t compute_ns;        /* |U(compute)| */
	int64_t comm_ns;           /* |U(comm) - U(compute)|: exposed communication */
	int64_t memory_ns;         /* |U(memory) - U(compute) - U(comm)| */
	int64_t idle_ns;           /* span - busy */
	int64_t overlap_ns;        /* |U(comm) & U(compute)|: communication hidden */
	int64_t idle_host_ns, idle_kernel_ns, idle_other_ns; /* idle by cause, over all streams */
	int64_t idle_sync_ns;      /* the part of idle a synchronising call covered */
	int64_t launch_bound_idle_ns; /* idle inside launch-bound stretches (per stream, summed) */
	int64_t gpu_ns;            /* sum of its GPU work durations */
	int64_t pageable_ns;       /* memcpys from or to pageable memory */
	int64_t sync_cpu_ns;       /* CPU time in synchronising calls */
	uint32_t gpu_events, gaps; /* its GPU work; gaps over all streams */
	uint32_t launch_bound_kernels, pageable_copies;
	uint32_t sync_calls;       /* synchronising calls in it */
	uint32_t streams_first, streams_count; /* its tix_stream_idle records */
	uint32_t syncs_first, syncs_count;     /* its tix_sync records */
	uint32_t shapes_first, shapes_count;   /* its op-shape groups (tix_step_op_shapes) */
	uint32_t pad;
};
/* NULL when s names no step. */
const struct tix_breakdown *tix_breakdown_get(const struct tix_index *ix, uint32_t s);

/* One stream's idle by cause over a step or the trace (HTA's figure). */
struct tix_stream_idle {       /* 56 bytes on disk */
	uint32_t track;            /* the GPU stream */
	uint32_t step;             /* TIX_NONE: over the trace */
	uint32_t gaps;
	uint32_t longest_gap_row;  /* the GPU row after the longest gap, TIX_NONE */
	int64_t host_wait_ns, kernel_wait_ns, other_ns;
	int64_t longest_gap_ns;
	int64_t launch_bound_idle_ns;
};
/* The records first .. first+count-1 (a breakdown's streams). */
const struct tix_stream_idle *tix_stream_idle(const struct tix_index *ix, uint32_t first,
                                              uint32_t count);

/* The longest gap over all streams (docs/FINDINGS.md, section 2: a gap of
 * the union of a step's GPU work, with the cause of the event that ends
 * it) of one cause, in step s (tix_step_get's numbering).  Not kept by the
 * build: found by one pass over the step's GPU work (index/gaps.c), a few
 * milliseconds for a step of 10,000 events.  1 with *out set, 0 when the
 * step has no gap of that cause, -1 out of memory. */
enum tix_gap_cause { TIX_GAP_HOST, TIX_GAP_KERNEL, TIX_GAP_OTHER, TIX_GAP_ANY };
struct tix_gap {
	int64_t start_ns, dur_ns;
	uint32_t next_row;         /* the GPU event that ends it */
	enum tix_gap_cause cause;
};
int tix_longest_gap(const struct tix_index *ix, uint32_t s, enum tix_gap_cause cause, struct tix_gap *out);

/* Synchronising calls of one name under one op, in a step or the trace. */
struct tix_sync {              /* 40 bytes on disk */
	uint32_t step;             /* TIX_NONE: over the trace */
	uint32_t call;             /* string: "cudaStreamSynchronize" */
	uint32_t op;               /* string: the innermost CPU op above the calls, TIX_NONE */
	uint32_t count;
	int64_t cpu_ns;            /* time in the calls */
	int64_t idle_ns;           /* GPU idle they covered */
	uint32_t example_row;      /* the first of them */
	uint32_t pad;
};
const struct tix_sync *tix_syncs(const struct tix_index *ix, uint32_t first, uint32_t count);

/* Op-shape groups (section 4): the GPU work whose innermost modelled op
 * above its launch is an instance of one (op name, op info).  Overall
 * groups by GPU time, largest first; each step's in their own table. */
struct tix_op_shape {          /* 56 bytes on disk */
	uint32_t name;             /* the op */
	uint32_t op_info;          /* its Input Dims / Input type */
	uint32_t step;             /* TIX_NONE for overall groups */
	uint32_t shape;            /* the overall group (itself for overall groups) */
	uint32_t calls;            /* instances that are the leaf of some GPU work */
	uint32_t calls_in_steps;   /* of those, in real steps (overall groups) */
	uint32_t gpu_events;
	uint32_t example_row;      /* its first instance */
	int64_t gpu_ns;            /* the GPU work's summed duration */
	uint32_t groups_first, groups_count; /* its kernel groups (tix_op_shape_groups) */
	uint8_t cls;               /* enum tix_op_class */
	uint8_t pad[7];
};
uint32_t tix_op_shape_count(const struct tix_index *ix);
const struct tix_op_shape *tix_op_shape_get(const struct tix_index *ix, uint32_t i);
/* The groups of step s. */
const struct tix_op_shape *tix_step_op_shapes(const struct tix_index *ix, uint32_t s, uint32_t *count);
/* Kernel groups of an overall op-shape group, by GPU time. */
const struct tix_op_group *tix_op_shape_groups(const struct tix_index *ix, uint32_t shape,
                                               uint32_t *count);

/* The op model over an op's instances (section 3): one per tix_op. */
struct tix_op_model {          /* 40 bytes on disk */
	double flops, bytes;       /* summed over the modelled instances, -1 unknown */
	int64_t gpu_ns;            /* GPU time beneath them */
	uint32_t calls;            /* modelled instances with GPU work beneath */
	uint8_t cls;               /* enum tix_op_class */
	uint8_t peak;              /* enum tix_peak of every instance, TIX_PEAK_NONE: none or mixed */
	uint8_t mixed;             /* instances of different peaks */
	uint8_t pad[9];
};
/* NULL for an op out of range. */
const struct tix_op_model *tix_op_model_get(const struct tix_index *ix, uint32_t op);

/* ---- events by name, and beneath an op ---- */
/* The rows of every event whose name match(ctx, name) accepts -- asked once
 * per distinct name of the trace's events, the name as the trace gave it
 * (tix_name_full gives the one shown) -- in time order (start, then row):
 * the first cap of them in *out (malloc'd, the caller frees it; NULL when
 * there are none).  Returns how many match in all (may exceed cap), or -1
 * when out of memory.  Reads the names and the rows that match, never all
 * rows (the index keeps each name's rows). */
long tix_find_by_name(const struct tix_index *ix, int (*match)(void *ctx, uint32_t name), void *ctx,
                      uint32_t cap, uint32_t **out);
/* Of rows[0..n), those beneath an event named name: for GPU work, whose
 * launch call has it among its ancestors (tix_event_ancestors); for a CPU
 * row, whose own ancestors have it.  In their order, into out (room for n;
 * may be rows).  Returns how many, or -1 when out of memory.  Each ancestor
 * is walked once for all the rows (a kernel's 300,000 launches share a few
 * thousand op instances), where asking tix_event_ancestors of each launch
 * walks them again and again. */
long tix_rows_beneath(const struct tix_index *ix, const uint32_t *rows, uint32_t n, uint32_t name,
                      uint32_t *out);
/* The members of group g (an overall group, or one of a step's from
 * tix_step_groups) launched beneath an instance of op (tix_op_get's
 * numbering), in their order, into out (room for g->members_count; not the
 * members themselves).  Returns how many, or -1 when out of memory.  When
 * the op launched every event of the kernel (its op group's count, the
 * common case) a copy; else tix_rows_beneath of the members. */
long tix_group_beneath_op(const struct tix_index *ix, const struct tix_group *g, uint32_t op,
                          uint32_t *out);

/* ---- names ---- */
/* GPU work names as shown: demangled in full, and a short label that no
 * other GPU work name of the trace shares (computed at build time).  Other
 * names: tix_name_full gives the name itself, tix_name_short TIX_NONE. */
uint32_t tix_name_full(const struct tix_index *ix, uint32_t name);
uint32_t tix_name_short(const struct tix_index *ix, uint32_t name);
/* 1 when the compiled regex (regex_t *) matches the name as the trace
 * gave it or as it is shown (demangled). */
int tix_name_matches(const struct tix_index *ix, uint32_t name, const void *regex);

/* Shortens a C++ kernel name for display: template argument lists and
 * parameter lists collapse to <...> and (...), "void " return types go.
 * Writes at most cap-1 bytes plus NUL into out; returns the full length it
 * wanted.  Never reads past name[len]. */
size_t tix_short_name(const char *name, size_t len, char *out, size_t cap);
/* The same, but the first template argument list shows its keep_arg-th
 * argument ("cutlass::device_kernel<..., Sm90, ...>"): what the build uses
 * to tell apart kernels whose short names would be equal. */
size_t tix_short_name_arg(const char *name, size_t len, int keep_arg, char *out, size_t cap);
/* Labels for n names whose short labels are equal: each shows the template
 * arguments in which the names differ, however deep, the rest as "..."
 * ("cutlass::device_kernel<GemmUniversal<..., CollectiveMma<Mainloop...<5,
 * ...>, ...>, ...>>").  labels[k] (each NULL or malloc'd, replaced) may
 * still be equal where the names differ outside their first template list.
 * 0, or -1 when memory runs out. */
int tix_labels_apart(const char *const *names, const size_t *lens, uint32_t n, char **labels);
/* The one rule for communication GPU work: a name that contains, ignoring
 * case, one of nccl, rccl, msccl, nvshmem, deep_ep, allreduce, all_reduce,
 * allgather, all_gather, reducescatter, reduce_scatter, alltoall,
 * all_to_all, cross_device_reduce (NCCL/RCCL kernels and the custom
 * all-reduces of vLLM, SGLang and TensorRT-LLM).  Mangled names keep their
 * identifiers, so the name as the trace gave it is enough.  The builder
 * sorts a step's kernels into compute and communication by it (struct
 * tix_step); copies and memsets are never communication. */
int tix_name_is_comm(const char *name);

/* ---- traffic: bytes a GPU event moved (rules in index/traffic.c) ---- */
struct tix_traffic {
	int64_t bytes;             /* -1: unknown ("n/a") */
	double bandwidth_Bps;      /* -1: unknown, or above the peak */
	double peak_Bps;           /* the device's peak memory bandwidth, -1 unknown */
	const char *basis;         /* "bytes" (a copy's own size), "aten::copy_", NULL */
	int over_peak;             /* bytes / duration exceeds the peak: not shown */
	int64_t elements;          /* aten::copy_: elements per tensor, -1 when they differ */
	int tensors;
	int elem_sizes[2];
	const char *device;        /* the device's name from the trace, NULL */
	char device_buf[128];
	int kind;                  /* enum tix_kind of the GPU work (a memset's size is its own) */
};
/* Fills *out for GPU work row; returns 1 when bytes are known, else 0. */
int tix_event_traffic(const struct tix_index *ix, uint32_t row, struct tix_traffic *out);
/* "285,437,952 elements x (2 + 1) bytes = 856.31 MB in 830.86 us = 1.03 TB/s
 * (21.5% of peak)", or why there is no figure.  Returns out. */
char *tix_traffic_text(const struct tix_traffic *t, int64_t dur_ns, char *out, size_t cap);
/* v with an SI prefix: "856.31 MB" for (856313856, "B"). */
char *tix_fmt_scaled(double v, const char *unit, char *out, size_t cap);
/* n with thousands separators: "285,437,952". */
char *tix_fmt_count(uint64_t n, char *out, size_t cap);

/* ---- the op model: FLOPs and bytes from an op's shapes ----
 * (docs/FINDINGS.md, section 3; index/perf_model.c).  Which device peak an
 * op is measured against: the dtype of its first tensor input. */
enum tix_peak {
	TIX_PEAK_FP32, TIX_PEAK_TF32, TIX_PEAK_FP16, TIX_PEAK_BF16, TIX_PEAK_FP8,
	TIX_PEAK_FP4, TIX_PEAK_INT8, TIX_PEAK_COUNT,
	TIX_PEAK_NONE = TIX_PEAK_COUNT /* no tensor peak applies (fp64, integers, bool) */
};
/* "fp32", "tf32", "fp16", "bf16", "fp8", "fp4", "int8"; NULL for NONE. */
const char *tix_peak_name(enum tix_peak p);
/* -1 when s names no peak. */
int tix_peak_parse(const char *s);

enum tix_op_class {
	TIX_OPC_NONE,        /* not modelled */
	TIX_OPC_GEMM, TIX_OPC_ATTENTION, TIX_OPC_CONV,                  /* FLOPs */
	TIX_OPC_COPY, TIX_OPC_ELEMENTWISE, TIX_OPC_REDUCTION, TIX_OPC_NORM, /* bytes */
	TIX_OPC_COUNT
};
/* "gemm", "attention", "convolution", "copy", "elementwise", "reduction", "norm", "none". */
const char *tix_op_class_name(enum tix_op_class c);
/* GEMM, attention and convolution: measured by their FLOPs. */
int tix_op_class_is_compute(enum tix_op_class c);
/* The class an op name belongs to, whatever its inputs. */
enum tix_op_class tix_op_class_of(const char *op);

#define TIX_MODEL_MAX_INPUTS 16
#define TIX_MODEL_MAX_RANK 8
/* An op's inputs, parsed from its Input Dims / Input type / Concrete
 * Inputs texts (pointers into concrete stay valid while that text does). */
struct tix_op_inputs {
	int n;                                      /* inputs in Input Dims */
	int rank[TIX_MODEL_MAX_INPUTS];             /* -1: not a list of ints */
	int64_t dims[TIX_MODEL_MAX_INPUTS][TIX_MODEL_MAX_RANK];
	int size[TIX_MODEL_MAX_INPUTS];             /* bytes an element, 0 unknown dtype */
	enum tix_peak peak[TIX_MODEL_MAX_INPUTS];   /* the dtype's compute peak */
	int scalar[TIX_MODEL_MAX_INPUTS];           /* typed Scalar / ScalarType */
	const char *concrete[TIX_MODEL_MAX_INPUTS]; /* the JSON value, NULL */
};
/* 0, or -1 when dims is not a list. */
int tix_op_inputs_parse(const char *dims, const char *types, const char *concrete,
                        struct tix_op_inputs *out);

/* One instance's cost.  flops / bytes -1: unknown (the class does not count
 * it, or an input's shape or dtype is not known). */
struct tix_op_cost {
	enum tix_op_class cls;
	double flops, bytes;
	enum tix_peak peak;        /* the compute peak it is measured against */
	char formula[200];         /* "2*M*N*K = 2*1*7168*2048", "" */
	const char *why_not;       /* why flops and bytes are unknown, NULL */
};
/* The cost of op `op` with these inputs: 0, or -1 (c->why_not says why). */
int tix_op_cost_of(const char *op, const struct tix_op_inputs *in, struct tix_op_cost *c);
/* The same from the texts the trace gave (any may be NULL). */
int tix_op_cost(const char *op, const char *dims, const char *types, const char *concrete,
                struct tix_op_cost *c);

/* ---- the device and its peaks (index/peaks.c; docs/FINDINGS.md 5, 10) ---- */
struct tix_device {
	int known;                 /* a row of the table matched (or an override gave a peak) */
	int id;                    /* deviceProperties id, -1 none */
	char name[128];            /* as the trace gave it (printable), "" */
	int sms;                   /* numSms, 0 unknown */
	double mem_bytes;          /* totalGlobalMem, 0 unknown */
	const char *model;         /* the table's row, "H100 SXM5"; NULL */
	const char *source;        /* the document its figures come from; NULL */
	double peak_Bps;           /* memory bandwidth, -1 unknown */
	double peak_flops[TIX_PEAK_COUNT]; /* dense tensor FLOP/s (FP32: non-tensor), -1 none */
	int overridden;            /* --peak-bw / --peak-flops gave some */
};
/* Device `device` of the trace's deviceProperties (its "id"; -1: the one
 * the most GPU work ran on; the first entry when no id matches), matched in
 * the table.  No deviceProperties: name "" and no peak. */
void tix_index_device(const struct tix_index *ix, int device, struct tix_device *out);
/* The table row for a device by its properties (name, numSms,
 * totalGlobalMem in bytes, 0 unknown); fills the peaks of *out. */
void tix_device_match(const char *name, int sms, double mem_bytes, struct tix_device *out);
/* Overrides (--peak-bw, --peak-flops), either may be NULL: bw "4.8e12",
 * "4.8T" (B/s; "TB/s" and the like ignored after the number); flops "F"
 * for every dtype, or "bf16=F,fp8=F,...".  0, or -1 with *why. */
int tix_device_override(struct tix_device *d, const char *bw, const char *flops, const char **why);
/* The peak FLOP/s of dtype p on d, -1 when none.  An FP32 op whose rate r
 * is above the FP32 figure ran on TF32 tensor cores: the TF32 peak then
 * (*as set to TIX_PEAK_TF32).  r < 0: no rate to go by. */
double tix_device_peak_flops(const struct tix_device *d, enum tix_peak p, double r, enum tix_peak *as);

/* s on one line: every run of white space (newlines of a pretty-printed
 * value) made one space, none just inside brackets or before a comma
 * outside strings ([[888, 2880], []]), the ends trimmed, cut to cap.
 * Returns buf. */
const char *tix_fold_ws(const char *s, char *buf, size_t cap);

/* A duration for people: "812 ns", "828.1 us", "64.61 ms", "1.937 s"; a
 * negative one (a difference) with its sign.  The formatting family is
 * value first, writes at most cap bytes (NUL included) and returns out:
 * tix_fmt_dur, tix_fmt_count, tix_fmt_scaled here; tix_fmt_dur_unit ("-"
 * for unknown, a unit chosen), tix_fmt_pct, tix_fmt_dim3 in view.h. */
char *tix_fmt_dur(int64_t ns, char *out, size_t cap);

/* ---- export to Chrome-trace JSON (Perfetto, chrome://tracing, tix) ----
 * Selects GPU work (all of it, a step, names matching a regex, a time range,
 * or given rows), adds their launch calls, the CPU op / python chains above
 * those, the ac2g flows linking them and the process/thread metadata, and
 * writes them atomically (temporary file + rename) with their args.
 * Fields left at their zero/NULL value do not restrict. */
struct tix_export_sel {
	int has_step;
	uint32_t step;
	const char *name_regex;    /* POSIX ERE on GPU work names, or NULL */
	int has_range;
	int64_t t0_ns, t1_ns;      /* row time: events overlapping [t0, t1) */
	const uint32_t *rows;      /* explicit GPU (or any) rows, or NULL */
	size_t nrows;
};
/* Returns the number of traceEvents written (events, flow starts and ends,
 * process and thread names), or -1 with err set.  The trace's top-level
 * values are written back as they were when each is one JSON value
 * (tix_json_valid), else as a JSON string of their text. */
long tix_export_json(const struct tix_index *ix, const struct tix_export_sel *sel,
                     const char *out_path, struct tix_error *err);

/* ---- output files (index/outfile.c: the rules and why) ----------------
 * The one door through which tix writes a file it was asked for (an index,
 * an export):
 *
 *   struct tix_outfile f;
 *   if (tix_outfile_open(&f, path, &opts, &err) != 0) ...   // nothing written
 *   ... write to f.fd ...
 *   if (tix_outfile_commit(&f, &err) != 0) ...               // or _abort(&f)
 *
 * A regular file (or nothing) at path is replaced atomically (an unnamed
 * temporary in its folder, renamed over it at commit); a FIFO, a character
 * device or a descriptor's name (/dev/stdout) is written through when
 * opts.stream allows it; a directory, a socket, a block device, one of
 * opts.inputs (by device and inode) or a link of another user's is refused
 * with class TIX_ERR_USAGE before anything is written. */
struct tix_file_id {
	uint64_t dev, ino;
};
struct tix_out_opts {
	int follow;       /* a path the user gave (-o): the user's own links (and
	                   * root's) are followed, a FIFO or device written
	                   * through; 0: tix's own place, replaced whatever is there */
	int stream;       /* the content may go through a pipe (JSON; not an index) */
	int index;        /* an index: never writable by group or others */
	uint32_t from_mode; /* the mode of the file it is made from; 0 unknown */
	const struct tix_file_id *inputs; /* never written over */
	int ninputs;
};
struct tix_outfile {
	int fd;           /* write here (seekable unless through) */
	int through;      /* written straight into a FIFO, device or descriptor */
	int unnamed;      /* fd is an O_TMPFILE not yet named */
	int slot;         /* its temporary name's place in the signal cleanup */
	char *name;       /* the path as given, for messages */
	char *path, *dir, *tmp; /* where it goes, its folder, its temporary name */
};
/* Says whether path can be written as opts asks, without writing: 0, or -1
 * with err set (the refusals above; a missing folder is ENOENT). */
int tix_outfile_check(const char *path, const struct tix_out_opts *opts, struct tix_error *err);
int tix_outfile_open(struct tix_outfile *f, const char *path, const struct tix_out_opts *opts,
                     struct tix_error *err);
/* Closes f.fd and puts the file in place: 0, or -1 with err set (nothing
 * left behind then).  Frees f's strings either way. */
int tix_outfile_commit(struct tix_outfile *f, struct tix_error *err);
/* Closes f.fd, removes the temporary, frees f's strings.  Safe on a
 * tix_outfile that failed to open or is already committed. */
void tix_outfile_abort(struct tix_outfile *f);
/* n random letters and digits (getrandom) into xs, for temporary names
 * nobody can guess: 0, or -1. */
int tix_random_name(char *xs, size_t n);

#endif /* TIX_INDEX_H */
