/*
 * index/build/builder.h: builds a .tix from the events of a producer.  The
 * builder is a tix_sink (index/sink.h); producers never include this
 * header, the program that drives them does (cli/, the capture launcher).
 *
 *   struct tix_error err;
 *   struct tix_builder *b = tix_builder_new("trace.json.tix", &opts, &err);
 *   struct tix_sink sink;
 *   tix_builder_sink(b, &sink);
 *   ... a producer feeds sink ...
 *   if (tix_builder_finish(b, &err) != 0)     // frees b in all cases
 *       fprintf(stderr, "tix: %s\n", err.msg);
 *
 * The phases of tix_builder_finish() are described in docs/FORMAT.md.
 */
#ifndef TIX_INDEX_BUILDER_H
#define TIX_INDEX_BUILDER_H

#include "index/sink.h"

struct tix_index;

struct tix_build_opts {
	const char *source_path;   /* recorded in the index; may be NULL */
	/* Source identity recorded for cache validation (see tix_index_source). */
	uint64_t source_size;
	int64_t source_mtime_ns;
	uint64_t source_hash;
	uint64_t source_dev, source_ino;
	int64_t source_ctime_ns;
	uint32_t source_mode;      /* its st_mode: the index is never more readable (0: unknown) */
	int out_given;             /* out_path is the user's (-o): index.h's tix_out_opts.follow */
	uint64_t max_temp;         /* the disk the build may take, bytes (0: the free space less a margin) */
	const char *step_marker;   /* user regex (POSIX ERE) or NULL for the defaults */
	int64_t base_time_ns;      /* added to every time to make it epoch ns; 0 if unknown */
	/* The capture traces of a CUDA-graph replay trace, already indexed and
	 * open, with the names the index records for them: each replayed
	 * kernel is attributed to the launch recorded while its graph was
	 * captured (docs/FORMAT.md, "Graph attribution").  Borrowed until
	 * tix_builder_finish() returns.  capture_sources is the "; "-joined
	 * list the index keeps to tell whether it is current. */
	const struct tix_index *const *captures;
	const char *const *capture_names;
	uint32_t ncaptures;
	const char *capture_sources;
	/* The finish shares its work between two threads from this many rows
	 * up; 0: the default (65536), UINT32_MAX: one thread.  The index is
	 * the same either way (tests set 2 to split small traces). */
	uint32_t split_rows;
	/* Knobs for tests and bench/ (the CLI sets them from TIX_TIMING,
	 * TIX_NO_FALLOCATE and TIX_FAIL_PHASE; nothing in index/ reads the
	 * environment). */
	int timing;       /* each phase's time on stderr */
	int no_fallocate; /* reserve disk by writing zeros, as where fallocate is missing */
	const char *fail_phase; /* the finish's phase of this TIX_TIMING name fails (as if out of
	                         * disk) instead of running: how each failure is handed on */
};

struct tix_builder;

/* Starts an index at out_path.  Nothing appears at out_path until
 * tix_builder_finish() succeeds: the data goes to a temporary file in the
 * same folder, renamed at the end.  Returns NULL and fills err on failure. */
struct tix_builder *tix_builder_new(const char *out_path,
                                    const struct tix_build_opts *opts,
                                    struct tix_error *err);

int tix_builder_add_event(struct tix_builder *b, const struct tix_event_in *ev,
                          struct tix_error *err);
int tix_builder_add_flow(struct tix_builder *b, const struct tix_flow_in *fl,
                         struct tix_error *err);
int tix_builder_set_track_meta(struct tix_builder *b, const struct tix_id *pid,
                               const struct tix_id *tid, enum tix_meta_key key,
                               const char *value, size_t len,
                               struct tix_error *err);
/* A top-level key of the trace other than traceEvents, as "key": JSON text,
 * e.g. ("deviceProperties", "[...]").  Kept for `tix info` and export. */
int tix_builder_set_meta(struct tix_builder *b, struct tix_str key,
                         struct tix_str json, struct tix_error *err);
/* Sets the epoch offset once it is known (Kineto writes
 * baseTimeNanoseconds after traceEvents). */
void tix_builder_set_base_time(struct tix_builder *b, int64_t base_ns);
/* A warning shown by `tix info` and the TUI, e.g. the salvage of a
 * truncated trace.  Several are joined with "; ". */
int tix_builder_warn(struct tix_builder *b, const char *msg, struct tix_error *err);

/* Fills *sink with functions that forward to b. */
void tix_builder_sink(struct tix_builder *b, struct tix_sink *sink);
/* A second, independent sink into b, for a second producer thread: each
 * sink may be fed by one thread at a time, concurrently with the other.
 * What it collects is merged at tix_builder_finish(), as if it had come
 * after everything given to the first sink. */
int tix_builder_sink_extra(struct tix_builder *b, struct tix_sink *sink, struct tix_error *err);

/* Links, aggregates and writes the index, then renames it into place.
 * Frees b whether it succeeds or not. */
int tix_builder_finish(struct tix_builder *b, struct tix_error *err);
/* Drops everything, removes the temporary file, frees b. */
void tix_builder_abort(struct tix_builder *b);

#endif /* TIX_INDEX_BUILDER_H */
