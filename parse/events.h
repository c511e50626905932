/*
 * From one parsed JSON event to the sink: phases, categories, times and
 * links in the Kineto dialect.  Private to parse/.
 */
#ifndef TIX_PARSE_EVENTS_H
#define TIX_PARSE_EVENTS_H

#include "index/sink.h"
#include "parse/json_shim.h"

struct open_begin;
struct orphan_end;

struct event_conv {
	const char *path;
	const struct tix_sink *sink;
	uint64_t events;          /* events seen (every phase) */
	uint64_t skipped;         /* unusable: no ph, no ts, out of range */
	uint64_t unsupported;     /* phases tix does not model */
	struct open_begin *open;  /* "B" events waiting for their "E" */
	size_t nopen, open_cap;
	/* The second half of a split parse keeps its "E" events that have no
	 * "B", for event_conv_adopt() to match against the first half's. */
	int keep_orphan_ends;
	struct orphan_end *orphans;
	size_t norphans, orphans_cap;
};

int event_conv_init(struct event_conv *c, const char *path, const struct tix_sink *sink);
void event_conv_done(struct event_conv *c);
/* Takes one event; -1 with err set when the sink fails. */
int event_conv_take(struct event_conv *c, const struct shim_event *ev, struct tix_error *err);
/* A top-level key other than traceEvents, with its raw JSON value. */
int event_conv_top_key(struct event_conv *c, struct tix_str key, struct tix_str json,
                       struct tix_error *err);
int event_conv_warn(struct event_conv *c, const char *msg, struct tix_error *err);
/* Takes over what the converter of the second half of a split parse left:
 * its "E" events close the first half's open "B" events, its open "B"
 * events and its counts join ours. */
int event_conv_adopt(struct event_conv *c, struct event_conv *second, struct tix_error *err);
/* Flushes unmatched "B" events and the skip counts. */
int event_conv_finish(struct event_conv *c, struct tix_error *err);

/* Microseconds as JSON number text ("1712195495519689.0", "5.2e3") to
 * integer nanoseconds, rounding half up.  -1 if not a number or out of
 * range. */
int parse_us_to_ns(const char *s, size_t n, int64_t *out);

#endif /* TIX_PARSE_EVENTS_H */
