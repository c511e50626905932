/*
 * The reader's state and its window machinery, shared by windows.c (cutting
 * the traceEvents array into windows, the careful scanner, the top-level
 * object) and parse.c (mapped and gzip input, the two-thread split).
 * Private to parse/.
 */
#ifndef TIX_PARSE_READER_H
#define TIX_PARSE_READER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "parse/events.h"
#include "parse/json_shim.h"
#include "parse/parse.h"

/* Bytes of events a parse window of a mapped file holds.  simdjson's
 * buffers for a window (~5.7 bytes a byte: structural indexes, strings)
 * stay in the caches at 1 MB: 0.96-0.98x the wall and CPU of 8 MB windows
 * on the story trace, peak anonymous memory 21 -> 6 MB (docs/PERFORMANCE.md,
 * "Round 6"); 512 and 256 KB windows were slower (round 12). */
#define WINDOW (1u << 20)
/* The window of gzip input, which is inflated just before it is parsed:
 * at 256 KB its text is still in the core's cache when simdjson reads it.
 * Against 1 MB on the story trace, min of 8-12 runs: 0.95-0.98x the wall,
 * 0.93-0.96x the CPU; 128 and 384 KB did less well (docs/PERFORMANCE.md,
 * round 12).  A mapped file's text comes from memory either way, and
 * smaller windows only cost it more of them. */
#define GZIP_WINDOW (256u << 10)
/* How far past an event's start the careful scanner looks for its end
 * before an event that another one starts inside is called malformed (a
 * stray quote turns strings inside out; scanning to the end of the file for
 * each would not end): 8 MB, what it was when it was the window.  Tests that
 * set a small window get that window, so that they reach it. */
#define SCAN_REACH (8u << 20)

enum top_state { TOP_START, TOP_KEY, TOP_EVENTS, TOP_AFTER_EVENTS, TOP_DONE };

struct reader {
	const char *path;
	int gzip;
	struct shim_parser *shim;
	struct event_conv conv;
	struct tix_error *err;
	enum top_state state;
	int array_format;
	int expect_comma;      /* in the top-level object */
	uint64_t base;         /* offset in the JSON text of buf[0] */
	uint64_t salvaged_to;
	int truncated;
	size_t window;
	size_t reach;          /* SCAN_REACH, or the window the tests set */
	/* The longest array simdjson was given (parse_run): its buffers are
	 * sized to it, and a longer one frees them and first-touches bigger
	 * ones (~0.3 GB/s here), so later windows are cut to fit it. */
	size_t shim_len;
	unsigned shim_grew;     /* times a longer one came after the first (TIX_TIMING) */
	int timing, inflate_zlib; /* tix_parse_opts's */
	const char *last_start; /* of the last event taken */
	int is_second;          /* the second thread of a split parse */
	int stop_at_events;     /* parse_consume() returns where the events begin */
	struct shared_progress *share;
	/* Malformed events (resync.c): skipped and counted, or with strict
	 * the first is an error.  at_cut: the data given ends at a guessed
	 * cut, not at the trace's end (a split's first half). */
	int strict, at_cut;
	uint64_t bad_events, bad_places, first_bad_at;
	uint64_t gz_cut_at;     /* a gzip stream cut short: its compressed size (0: it was not) */
	uint64_t gz_inflated;   /* ... and the JSON bytes it gave */
	char reason[300];       /* what the last bad event had wrong (parse_bad) */
	char first_bad[300];    /* ... and the first one */
};

enum scan { SCAN_OK, SCAN_MORE, SCAN_BAD, SCAN_DEEP };

/* The careful scanner's limit, an event's own braces counted: what tix
 * accepts (simdjson's max_depth of 1024 does not bind, as the shim takes the
 * values it does not walk as raw text). */
#define MAX_NESTING 4096

/* Progress of the second thread, read by the first when it reports. */
struct shared_progress {
	_Atomic uint64_t second_done; /* bytes the second thread has taken */
	_Atomic uint64_t first_start; /* where the second thread's share starts */
	_Atomic uint64_t first_at;    /* the first thread's events end here so far */
};


/* ---- after a malformed event (resync.c) ---- */
/* Says what is wrong at a bad event (printf-style, without the file name):
 * into r->reason, and r->err as the error --strict gives. */
void parse_bad(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The first '{' in b[from, n) after a '}' and a ',' that starts an event
 * (scans whole within a window, has "ph", is followed by ',' or ']'), or 0;
 * *passed counts the candidates that did not. */
size_t parse_next_event(struct reader *r, const char *b, size_t from, size_t n, int eof, uint64_t *passed);
/* The event (or bytes) at b[q] is malformed, r->reason says how: -1 when
 * strict (r->err set); 1 with *next at the next event's '{', or at the ']'
 * that closes traceEvents (eof only), the skip counted; 0 when neither is
 * in b[..n) (more data needed, or the trace was cut inside the event). */
int parse_resync(struct reader *r, const char *b, size_t q, size_t n, int eof, size_t *next);
/* The one warning for the skips, sent to the sink (parse_finish). */
int parse_warn_malformed(struct reader *r);
/* Adds a split's second half's skips to r's. */
void parse_adopt_malformed(struct reader *r, const struct reader *second);

/* Bytes of blank from b[p] on. */
size_t parse_skip_ws(const char *b, size_t p, size_t n);
/* Any JSON value from b[p]: sets *end past it (SCAN_OK), or *bad_at where
 * the nesting breaks.  Checks nesting and strings, not the grammar of
 * numbers and literals (simdjson does that). */
enum scan parse_scan_value(const char *b, size_t p, size_t n, size_t *end, size_t *bad_at);
/* A guessed event boundary in b[from, limit): a ',' between '}' and '{'
 * (its position), or 0. */
size_t parse_guess_cut(const char *b, size_t from, size_t limit);
/* The careful walk of whole events from b[*p] up to limit. */
enum scan parse_walk_events(struct reader *r, char *b, size_t *p, size_t n, size_t limit, int eof,
                            int *closed, int *failed);
/* Events from b[*p]: SCAN_OK when the array closed (*p past its ']'),
 * SCAN_MORE when more data is needed (at eof: the trace was cut), SCAN_BAD
 * on an error (r->err set). */
enum scan parse_take_events(struct reader *r, char *b, size_t *p, size_t n, int eof,
                            const struct tix_parse_opts *opts, uint64_t total);
/* The top-level structure from b[start]: returns the first byte not
 * consumed, or (size_t)-1 on an error. */
size_t parse_consume(struct reader *r, char *b, size_t start, size_t n, int eof,
                     const struct tix_parse_opts *opts, uint64_t total);

/* Traces at least this large are split between two threads unless the
 * caller says otherwise (below it one thread is as fast). */
#define SPLIT_MIN (64u << 20)

/* parse.c: the reader's set-up and tear-down, and the end of a parse
 * (truncation salvage, counts into res).  gzip.c: the .json.gz path. */
/* gzip non-zero: the text is inflated (r->gzip), in GZIP_WINDOW windows. */
int parse_reader_init(struct reader *r, const char *path, int gzip, const struct tix_sink *sink,
                      const struct tix_parse_opts *opts, struct tix_error *err);
void parse_reader_done(struct reader *r);
int parse_finish(struct reader *r, int eof_state_ok, struct tix_parse_result *res);
int parse_gzip(struct reader *r, int fd, size_t size, const struct tix_parse_opts *opts,
               struct tix_parse_result *res);

#endif /* TIX_PARSE_READER_H */
