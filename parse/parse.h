/*
 * parse: reads a Chrome-trace / Kineto JSON trace (plain or gzip) and feeds
 * its events to a tix_sink (normally the index builder).  This header is the
 * module's only door.
 *
 * The file is mapped, not read: windows of events are parsed in place with
 * simdjson On-Demand (see parse.c for how a window is cut and checked), so
 * memory stays bounded whatever the trace size.  Gzip input is inflated
 * (ISA-L, or zlib) through one reused window per thread.  Known limits are
 * listed at the top of parse.c.
 */
#ifndef TIX_PARSE_H
#define TIX_PARSE_H

#include <stdint.h>

#include "index/sink.h"

/* The words of the warning that says malformed events were skipped (the
 * CLI's --strict looks for them in an index built without it). */
#define TIX_PARSE_MALFORMED "malformed event"

struct tix_parse_opts {
	/* Called now and then with bytes of input consumed so far and the
	 * total (compressed bytes for gzip).  May be NULL. */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
	/* A second sink (tix_builder_sink_extra) lets a large plain-JSON trace
	 * be parsed by two threads, one half into each sink.  NULL: one
	 * thread.  Must provide discard(). */
	const struct tix_sink *extra_sink;
	/* Plain traces at least this large are split between the two threads
	 * (0: 64 MB, below which one thread is as fast).  Tests and fuzzers
	 * make it small to exercise the split. */
	uint64_t split_min;
	/* A second thread's share of this many windows or more may have its cut
	 * moved toward balance (parse.c, "The cut moved once"; 0: 512).  The
	 * fuzzers make it small so that the move runs on small inputs. */
	uint32_t recut_min;
	/* Above 0 (and below 1): after the probe the cut moves to the event
	 * boundary from this share of the file's bytes, whatever the threads'
	 * speeds, where it may (rel_recut: a move earlier and one later on a
	 * loaded machine). */
	double recut_to;
	/* A malformed event in traceEvents is an error (-1, the first one's
	 * message) instead of skipped with a warning (parse/resync.c). */
	int strict;
	/* Knobs for tests and bench/ (the CLI sets them from TIX_PARSE_WINDOW,
	 * TIX_TIMING, TIX_INFLATE and TIX_RECUT_TO; nothing in parse/ reads the
	 * environment). */
	size_t window;    /* bytes a parse window holds (0, or under 256: WINDOW, 1 MB, and
	                   * GZIP_WINDOW, 256 KB, for inflated text) */
	int timing;       /* when the two threads of a split parse finished, on stderr */
	int inflate_zlib; /* gzip through zlib even where ISA-L is built in */
};

struct tix_parse_result {
	uint64_t events;       /* trace events read (all phases) */
	uint64_t input_bytes;  /* size of the JSON text (after inflating) */
	int truncated;         /* the trace ended inside an event: what was whole was kept */
	uint64_t malformed;    /* malformed events skipped (strict: 0, it was an error) */
	uint64_t salvaged_to;  /* when truncated: byte offset after the last whole event */
};

/* Parses the trace at path into sink.  On a truncated trace it keeps every
 * whole event, sends a warning to the sink, sets result->truncated and
 * returns 0.  On bad input returns -1 with err->msg like
 *   "trace.json: byte 1234: expected ',' or ']' after an event"
 * and the caller must abort the sink's index. */
int tix_parse_trace(const char *path, const struct tix_sink *sink,
                    const struct tix_parse_opts *opts,
                    struct tix_parse_result *result, struct tix_error *err);

#endif /* TIX_PARSE_H */
