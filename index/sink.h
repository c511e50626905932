/*
 * index/sink.h: the producer's contract.  What a producer of events (the
 * JSON reader in parse/, the journal reader in cupti_capture/, a test's
 * recording sink) sends, and the sink it sends it to.  It knows nothing of
 * the index file or its queries: index/build/builder.h turns a sink's events into
 * a .tix, index/index.h reads one.
 *
 * Example call sequence of a producer, whatever the sink:
 *
 *   sink->track_meta(sink->ctx, &pid, &tid, TIX_META_THREAD_NAME, "main", 4, &err);
 *   sink->event(sink->ctx, &ev, &err);        // any order
 *   sink->flow(sink->ctx, &flow, &err);
 *   sink->warn(sink->ctx, "trace.json: truncated at byte 1234", &err);
 *
 * Errors: functions that can fail return 0 on success and -1 on failure with
 * a one-line message in *err (no trailing newline, names the file).
 * Strings given to a sink are copied before the call returns.
 */
#ifndef TIX_INDEX_SINK_H
#define TIX_INDEX_SINK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TIX_NONE UINT32_MAX /* "no row / no string / no record" */

/* What kind of failure an error is, set where the error is made; the CLI's
 * exit status follows it (docs/CLI.md). */
enum tix_error_class {
	TIX_ERR_INPUT = 0, /* the trace, index or file named is bad or missing (exit 2) */
	TIX_ERR_ENV,       /* the system refused: disk full, permission, memory, a name
	                    * too long, something in the way of the index (exit 3) */
	TIX_ERR_USAGE,     /* what the command line asks cannot be done: an output
	                    * that is the input, a directory, a socket (exit 1) */
};

struct tix_error {
	char msg[2048]; /* a path may appear twice, and a message may hold two (open.c) */
	enum tix_error_class cls;
	int code; /* the errno behind it (ENOMEM for tix_error_oom), 0 when none */
};

/* Formats err->msg (printf-style), with every byte that is not printable
 * (control characters, invalid UTF-8: a file name may hold anything) made
 * printable as by tix_printable(), so a message is always one line and never
 * reaches the terminal as an escape sequence.  Returns -1, so callers can
 * `return tix_error_set(err, "...")`.  err may be NULL.
 *   tix_error_set    class TIX_ERR_INPUT
 *   tix_error_env    class TIX_ERR_ENV
 *   tix_error_usage  class TIX_ERR_USAGE
 *   tix_error_errno  appends ": strerror(errnum)"; the class is
 *                    tix_errno_class(errnum), the code errnum
 *   tix_error_sys    appends ": strerror(errnum)"; class TIX_ERR_ENV (a
 *                    file of tix's own: a temporary, the index being
 *                    written), the code errnum
 *   tix_error_oom    "PATH: out of memory" ("out of memory" when path is
 *                    NULL), class TIX_ERR_ENV, code ENOMEM: the one spelling
 *                    of running out, which is never the input's fault */
int tix_error_set(struct tix_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int tix_error_usage(struct tix_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int tix_error_env(struct tix_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int tix_error_errno(struct tix_error *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int tix_error_sys(struct tix_error *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int tix_error_oom(struct tix_error *err, const char *path);
/* The class of a failure with errno e on a file the user named: a name
 * that leads nowhere (ENOENT, ENOTDIR, EISDIR, ELOOP, ENXIO...) is bad
 * input; anything else (EACCES, ENOSPC, EIO, ENOMEM...) is the environment. */
enum tix_error_class tix_errno_class(int e);

/* ---- event kinds --------------------------------------------------------
 * One row per kind, and every fact of a kind is a column of it, so that
 * parser, journal reader, index, legend and export cannot disagree:
 *   e          the enum name (TIX_KIND_e)
 *   label      short label (CLI/TUI)
 *   cat        the Kineto "cat" written on export and by the journal reader
 *   spellings  the "cat"s a trace may carry for it (tix_kind_of_cat), "|"-
 *              separated, any case, Kineto's own (= cat) first; "*x": any
 *              that ends in x; "": none (a kind given by "ph", or the rest)
 *   gpu        runs on the GPU (tix_kind_is_gpu)
 *   work       GPU work: grouped, counted as GPU time, attributed to
 *              launches (tix_kind_is_gpu_work)
 *   launch     a runtime/driver API call that may launch GPU work
 *              (tix_kind_is_launch)
 *   marker     may be a step marker (tix_kind_is_marker)
 *   op         an op: ranked by the GPU time beneath it, an ancestor a
 *              capture chain keeps (tix_kind_is_op; rules.h's tix_rule_is_op
 *              leaves the step markers out) */
#define TIX_KINDS(X)                                                                          \
	/* e             label          cat             spellings   gpu work launch marker op */  \
	X(CPU_OP, "cpu_op", "cpu_op", "cpu_op|operator", 0, 0, 0, 1, 1)                         \
	X(USER_ANNOTATION, "annotation", "user_annotation", "user_annotation", 0, 0, 0, 1, 1)   \
	X(PYTHON, "python", "python_function", "python_function", 0, 0, 0, 1, 0)                \
	X(RUNTIME, "runtime", "cuda_runtime", "cuda_runtime|runtime|*_runtime", 0, 0, 1, 0, 0)  \
	X(DRIVER, "driver", "cuda_driver", "cuda_driver|driver", 0, 0, 1, 0, 0)                 \
	X(KERNEL, "kernel", "kernel", "kernel", 1, 1, 0, 0, 0)                                  \
	X(MEMCPY, "memcpy", "gpu_memcpy", "gpu_memcpy|memcpy", 1, 1, 0, 0, 0)                   \
	X(MEMSET, "memset", "gpu_memset", "gpu_memset|memset", 1, 1, 0, 0, 0)                   \
	X(SYNC, "sync", "cuda_sync", "cuda_sync", 1, 0, 0, 0, 0)                                \
	X(GPU_ANNOTATION, "gpu_annotation", "gpu_user_annotation", "gpu_user_annotation", 1, 0, 0, 0, 0) \
	X(INSTANT, "instant", "instant", "", 0, 0, 0, 0, 0)                                     \
	X(COUNTER, "counter", "counter", "", 0, 0, 0, 0, 0)                                     \
	X(OTHER, "other", "other", "", 0, 0, 0, 1, 0)

enum tix_kind {
#define TIX_KIND_ENUM(e, label, cat, spellings, gpu, work, launch, marker, op) TIX_KIND_##e,
	TIX_KINDS(TIX_KIND_ENUM)
#undef TIX_KIND_ENUM
	TIX_KIND_COUNT
};

const char *tix_kind_label(enum tix_kind k);  /* "kernel"; "?" if out of range */
const char *tix_kind_cat(enum tix_kind k);    /* Kineto category for export */

/* The predicates, one bit per kind for each column (out of range: 0). */
#define TIX_KIND_BIT(e, col) ((col) ? 1u << TIX_KIND_##e : 0u)
#define TIX_KIND_GPU_BIT(e, label, cat, spellings, gpu, work, launch, marker, op) | TIX_KIND_BIT(e, gpu)
#define TIX_KIND_WORK_BIT(e, label, cat, spellings, gpu, work, launch, marker, op) | TIX_KIND_BIT(e, work)
#define TIX_KIND_LAUNCH_BIT(e, label, cat, spellings, gpu, work, launch, marker, op) | TIX_KIND_BIT(e, launch)
#define TIX_KIND_MARKER_BIT(e, label, cat, spellings, gpu, work, launch, marker, op) | TIX_KIND_BIT(e, marker)
#define TIX_KIND_OP_BIT(e, label, cat, spellings, gpu, work, launch, marker, op) | TIX_KIND_BIT(e, op)
enum {
	TIX_KINDS_GPU = 0u TIX_KINDS(TIX_KIND_GPU_BIT),
	TIX_KINDS_WORK = 0u TIX_KINDS(TIX_KIND_WORK_BIT),
	TIX_KINDS_LAUNCH = 0u TIX_KINDS(TIX_KIND_LAUNCH_BIT),
	TIX_KINDS_MARKER = 0u TIX_KINDS(TIX_KIND_MARKER_BIT),
	TIX_KINDS_OP = 0u TIX_KINDS(TIX_KIND_OP_BIT),
};
#undef TIX_KIND_GPU_BIT
#undef TIX_KIND_WORK_BIT
#undef TIX_KIND_LAUNCH_BIT
#undef TIX_KIND_MARKER_BIT
#undef TIX_KIND_OP_BIT
#undef TIX_KIND_BIT
static inline int tix_kind_in(unsigned set, unsigned k)
{
	return k < TIX_KIND_COUNT && ((set >> k) & 1u);
}
/* kernels, copies, syncs, gpu annotations */
static inline int tix_kind_is_gpu(unsigned k) { return tix_kind_in(TIX_KINDS_GPU, k); }
/* kernels, memcpy and memset */
static inline int tix_kind_is_gpu_work(unsigned k) { return tix_kind_in(TIX_KINDS_WORK, k); }
/* runtime and driver API calls */
static inline int tix_kind_is_launch(unsigned k) { return tix_kind_in(TIX_KINDS_LAUNCH, k); }
/* CPU ops, annotations, python frames and the rest */
static inline int tix_kind_is_marker(unsigned k) { return tix_kind_in(TIX_KINDS_MARKER, k); }
/* CPU ops and annotations */
static inline int tix_kind_is_op(unsigned k) { return tix_kind_in(TIX_KINDS_OP, k); }

/* The kind a trace's "cat" of len bytes names, by the spellings column:
 * TIX_KIND_COUNT when it names none (the producer decides; the JSON
 * reader makes it TIX_KIND_OTHER).  Kineto's own spellings, as written,
 * are found inline; tix_kind_of_spelling tries the others. */
enum tix_kind tix_kind_of_spelling(const char *s, size_t len);
static inline enum tix_kind tix_kind_of_cat(const char *s, size_t len)
{
#define TIX_KIND_EXACT(e, label, cat, spellings, gpu, work, launch, marker, op)      \
	if (spellings[0] && len == sizeof(cat) - 1 && __builtin_memcmp(s, cat, len) == 0) \
		return TIX_KIND_##e;
	TIX_KINDS(TIX_KIND_EXACT)
#undef TIX_KIND_EXACT
	return tix_kind_of_spelling(s, len);
}

/* ---- producer side ------------------------------------------------------ */

/* A byte string that need not be NUL-terminated. */
struct tix_str {
	const char *ptr;
	size_t len;
};

/* A kind's Kineto category (the cat column), for a producer's events. */
static inline struct tix_str tix_kind_cat_str(enum tix_kind k)
{
	const char *c = tix_kind_cat(k);
	return (struct tix_str){c, __builtin_strlen(c)};
}

/* A Chrome-trace pid or tid: a number, or a string ("Spans", "") when
 * str.ptr != NULL. */
struct tix_id {
	int64_t num;
	struct tix_str str;
};

/* Grid, block and the other launch facts of a kernel (copies use bytes). */
struct tix_launch_in {
	int32_t grid[3], block[3];
	int32_t registers;       /* per thread; -1 unknown */
	int32_t shared_mem;      /* static + dynamic bytes; -1 unknown */
	int32_t dynamic_shared;  /* -1 unknown (Kineto gives only the sum) */
	float blocks_per_sm, warps_per_sm, occupancy; /* <0: unknown */
	int32_t device, context, stream;              /* -1 unknown */
	int64_t bytes;           /* memcpy/memset size; -1 unknown */
	uint32_t graph_id, graph_node_id; /* 0: not a graph replay */
};

/* Input Dims / Input type / Input Strides / Concrete Inputs as the JSON
 * texts the profiler gave (e.g. "[[495552, 1, 576], []]"); len 0 if absent. */
struct tix_op_in {
	struct tix_str dims, types, strides, concrete;
};

/* The time range of an index, in ns: about 146 years either side of the
 * producer's zero (Kineto's epoch microseconds, 1.7e18 ns today, fit).  Any
 * two times in it differ by less than INT64_MAX, so no end, delay or
 * offset computed from them overflows.  The builder skips events that start
 * outside it and cuts those that end past it, with a warning. */
#define TIX_TIME_MAX (INT64_MAX / 2)
#define TIX_TIME_MIN (-TIX_TIME_MAX)

/* a + b for sums of durations (totals of a group, a step, the trace):
 * held at the int64 limits rather than wrapping, since durations may each
 * be near TIX_TIME_MAX.  Every such sum, in the builder and in its readers,
 * goes through it. */
static inline int64_t tix_sat_add(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}
/* How a kernel replayed from a CUDA graph was tied to the launch recorded
 * while the graph was captured (docs/FORMAT.md, "Graph attribution"). */
#define TIX_CAPTURE_MATCHES(X)                                             \
	X(NONE, "none")                                                    \
	X(EXACT, "exact")           /* the same name sequence, or a node id */ \
	X(ALIGNED, "aligned")       /* by the longest common subsequence */    \
	X(REORDERED, "reordered")   /* a local reorder repaired by name */     \
	X(POSITIONAL, "positional") /* by position only: names unverified */   \
	X(AMBIGUOUS, "ambiguous")

enum tix_capture_match {
#define TIX_MATCH_ENUM(e, label) TIX_MATCH_##e,
	TIX_CAPTURE_MATCHES(TIX_MATCH_ENUM)
#undef TIX_MATCH_ENUM
	TIX_MATCH_COUNT
};
const char *tix_capture_match_label(enum tix_capture_match m); /* "aligned"; "?" out of range */

/* One CPU frame above a capture-time launch: an op or an annotation / NVTX
 * range, with the op's Input Dims and Input type when known (len 0 if not). */
struct tix_frame_in {
	struct tix_str name, dims, types;
	enum tix_kind kind;
};

/* What captured a replayed kernel. */
struct tix_capture_in {
	const struct tix_frame_in *frames;  /* outermost first */
	uint32_t nframes;
	enum tix_capture_match match;
	struct tix_str source;              /* where the capture was seen: a trace or journal name */
};

struct tix_event_in {
	enum tix_kind kind;
	struct tix_id pid, tid;
	int64_t start_ns;      /* producer's clock; see TIX_TIME_MAX */
	/* >= 0; 0 for instants and counters.  < 0: the end is unknown (Kineto
	 * writes a negative "dur" for an event that had not ended when it
	 * stopped, or whose end it lost; a "B" with no "E"): kept with zero
	 * duration and flagged TIX_ROW_OPEN_END; a step marker so flagged lasts
	 * until the next. */
	int64_t dur_ns;
	struct tix_str name;
	struct tix_str cat;    /* original category; may be empty */
	/* The args object as JSON text, minus per-instance ids (External id,
	 * correlation, Ev Idx, ...), which the index replaces with links.  Empty
	 * when there are none. */
	struct tix_str args;
	int64_t correlation;   /* CUDA correlation id; -1 none */
	const struct tix_launch_in *launch; /* GPU work only; may be NULL */
	const struct tix_op_in *op;         /* CPU ops only; may be NULL */
	const struct tix_capture_in *captured; /* GPU work replayed from a graph: what captured it; NULL if unknown */
};

/* One end of a Chrome-trace flow ("s" / "f"): links a launch call to its
 * GPU event when the correlation id is missing. */
struct tix_flow_in {
	struct tix_id pid, tid;
	int64_t ts_ns;
	uint64_t id;
	int is_start;          /* 1 for "s", 0 for "f" */
	int is_ac2g;           /* category ac2g (async CPU to GPU) */
};

enum tix_meta_key {
	TIX_META_PROCESS_NAME,   /* tid ignored */
	TIX_META_THREAD_NAME,
	TIX_META_PROCESS_SORT,   /* value: decimal text */
	TIX_META_THREAD_SORT,
};

/* The builder seen as an event sink: producers (parse/, cupti_capture/)
 * write to a sink, so tests can plug in a recording one.  Each function
 * returns 0 or -1 with err set, like the builder calls it wraps. */
struct tix_sink {
	void *ctx;
	int (*event)(void *ctx, const struct tix_event_in *ev, struct tix_error *err);
	int (*flow)(void *ctx, const struct tix_flow_in *fl, struct tix_error *err);
	int (*track_meta)(void *ctx, const struct tix_id *pid, const struct tix_id *tid,
	                  enum tix_meta_key key, const char *value, size_t len,
	                  struct tix_error *err);
	int (*meta)(void *ctx, struct tix_str key, struct tix_str json, struct tix_error *err);
	void (*base_time)(void *ctx, int64_t base_ns);
	int (*warn)(void *ctx, const char *msg, struct tix_error *err);
	/* Forgets everything this sink was given (a parallel producer whose
	 * share turned out to be invalid).  May be NULL. */
	void (*discard)(void *ctx);
	/* The producer has sent its last event and its thread would idle while
	 * another producer still sends: the sink may use the thread to get
	 * ready for its finish, and returns soon after *stop becomes nonzero
	 * (read it with __atomic_load_n(stop, __ATOMIC_ACQUIRE); the producer
	 * waits for the return before it joins).  Called on the producer's
	 * thread, only after a share that succeeded.  May be NULL. */
	void (*idle)(void *ctx, const int *stop);
};
/* ---- text that leaves tix (index/text.c says why each is unsafe) ---- */
/* The character at p (avail bytes there, avail > 0): returns its length in
 * bytes (1 for a byte that starts no valid UTF-8 sequence) and sets *unsafe
 * when it must not reach a terminal, clipboard or spreadsheet as it is: C0
 * controls, DEL, C1 controls (U+0080-U+009F), the bidi overrides and
 * isolates (U+202A-U+202E, U+2066-U+2069), bytes that are not UTF-8. */
size_t tix_text_char(const unsigned char *p, size_t avail, int *unsafe);
/* s made fit for a one-line message or text output: every unsafe
 * character is written as its bytes, \xNN each; valid UTF-8 text passes as
 * it is.  Cut (with "...") to fit cap.  Returns buf. */
const char *tix_printable(const char *s, char *buf, size_t cap);
/* s[0..n) as a JSON string literal: '"' and '\\' escaped, the unsafe
 * characters as \uXXXX (the same string to a JSON reader, no raw control
 * for a terminal), a byte that is not UTF-8 as \ufffd. */
void tix_json_str(FILE *f, const char *s, size_t n);
/* The same literal into out (at most cap bytes, NUL included, as snprintf);
 * returns its whole length, so tix_json_buf(NULL, 0, s, n) + 1 is the room
 * it needs. */
size_t tix_json_buf(char *out, size_t cap, const char *s, size_t n);
/* Whether s[0..n) is exactly one JSON value (RFC 8259; whitespace around
 * it allowed): strings of valid UTF-8 without raw controls, nested at most
 * TIX_JSON_MAX_DEPTH deep (simdjson's limit too).  For JSON text tix passes
 * on as it is, such as a trace's top-level values that export writes back. */
#define TIX_JSON_MAX_DEPTH 1024
int tix_json_valid(const char *s, size_t n);
/* s as a quoted CSV field: '"' doubled, unsafe characters as tix_printable
 * writes them, and a leading "'" when it would start a formula ('=', '+',
 * '-', '@', tab, CR), as docs/CLI.md says. */
void tix_csv_str(FILE *f, const char *s);
/* The length of the valid UTF-8 sequence at p (1-4; avail bytes are there),
 * or 0 when p[0] does not start one (overlong forms, surrogates and code
 * points past U+10FFFF are not valid). */
size_t tix_utf8_len(const unsigned char *p, size_t avail);

/* A fast 64-bit hash of bytes (used for the checksums and the cache key). */
uint64_t tix_hash64(const void *data, size_t len, uint64_t seed);

#endif /* TIX_INDEX_SINK_H */
