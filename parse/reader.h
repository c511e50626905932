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

#define WINDOW (8u << 20)

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
	const char *last_start; /* of the last event taken */
	int is_second;          /* the second thread of a split parse */
	int stop_at_events;     /* parse_consume() returns where the events begin */
	struct shared_progress *share;
};

enum scan { SCAN_OK, SCAN_MORE, SCAN_BAD, SCAN_DEEP };

/* The careful scanner's limit, an event's own braces counted: what tix
 * accepts (simdjson's max_depth of 1024 does not bind, as the shim takes the
 * values it does not walk as raw text). */
#define MAX_NESTING 4096

/* Progress of the second thread, read by the first when it reports. */
struct shared_progress {
	_Atomic uint64_t second_done; /* bytes the second thread has taken */
	uint64_t first_start;
};


/* Bytes of blank from b[p] on. */
size_t parse_skip_ws(const char *b, size_t p, size_t n);
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
int parse_reader_init(struct reader *r, const char *path, const struct tix_sink *sink,
                      struct tix_error *err);
void parse_reader_done(struct reader *r);
int parse_finish(struct reader *r, int eof_state_ok, struct tix_parse_result *res);
int parse_gzip(struct reader *r, int fd, size_t size, const struct tix_parse_opts *opts,
               struct tix_parse_result *res);

#endif /* TIX_PARSE_READER_H */
