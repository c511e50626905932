/*
 * The C face of simdjson On-Demand, private to parse/.  simdjson is C++;
 * everything else in tix is C, so this shim is the only C++ in the project:
 * it walks an array of Chrome-trace events and hands each one to C as a
 * flat struct of string views and numbers.
 */
#ifndef TIX_PARSE_JSON_SHIM_H
#define TIX_PARSE_JSON_SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct shim_str {
	const char *ptr; /* NULL when absent */
	size_t len;
};

/* A pid or tid: a number, or a string when str.ptr != NULL. */
struct shim_id {
	int present;
	int64_t num;
	struct shim_str str;
};

/* One event, as read.  Views point into the parser's buffers and the input
 * and are valid only during the callback. */
struct shim_event {
	const char *start;          /* first byte of the event object in the input */
	struct shim_str ph, cat, name, bp, scope;
	struct shim_id pid, tid;
	struct shim_str ts, dur;    /* number text as written (or a string's content) */
	int has_id;
	uint64_t id;                /* flow id */
	/* args */
	struct shim_str args;       /* rebuilt object text without per-instance ids */
	int64_t correlation;        /* -1 when absent */
	int has_launch;             /* any kernel/copy field present */
	int32_t grid[3], block[3];
	int32_t registers, shared_mem;
	float blocks_per_sm, warps_per_sm, occupancy;
	int32_t device, context, stream;
	int64_t bytes;
	uint32_t graph_id, graph_node_id;
	struct shim_str dims, types, strides, concrete;
	struct shim_str meta_name;  /* args.name of M events */
	struct shim_str meta_sort;  /* args.sort_index of M events, as text */
};

typedef int (*shim_event_fn)(void *ctx, const struct shim_event *ev);

struct shim_parser;

struct shim_parser *shim_new(void);
void shim_free(struct shim_parser *p);
/* Bytes that must be readable after any buffer given to the shim. */
size_t shim_padding(void);

/* Why the shim refused a buffer: where, simdjson's error code and its
 * message.  The code, not the message, is what callers decide on: the
 * message is simdjson's English and may change with its version. */
struct shim_fail {
	size_t at;       /* byte offset in buf where simdjson noticed it */
	int code;        /* simdjson::error_code */
	const char *msg; /* simdjson's message for code (static) */
};
/* simdjson::error_code values the C side decides on; json_shim.cpp checks
 * each against simdjson's enum at compile time. */
enum { SHIM_DEPTH_ERROR = 4 /* nested deeper than the parser's limit */ };

/* Parses buf[0..len), which must hold one JSON array of event objects, with
 * at least shim_padding() readable bytes after buf[len].  Calls fn for each
 * event; fn returning non-zero stops the walk and is returned.  On a JSON
 * error returns -1 and fills *fail. */
int shim_parse_events(struct shim_parser *p, const char *buf, size_t len, shim_event_fn fn,
                      void *ctx, struct shim_fail *fail);

/* Same, for exactly one event object buf[0..len). */
int shim_parse_one(struct shim_parser *p, const char *buf, size_t len, shim_event_fn fn, void *ctx,
                   struct shim_fail *fail);

#ifdef __cplusplus
}
#endif

#endif /* TIX_PARSE_JSON_SHIM_H */
