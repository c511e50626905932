/*
 * cupti_capture/journal_read_int.h: what journal_read.c and journal_meta.c
 * share while reading one journal.  Internal to cupti_capture/.  Owner:
 * cupti_capture.
 */
#ifndef TIX_CAPTURE_JOURNAL_READ_INT_H
#define TIX_CAPTURE_JOURNAL_READ_INT_H

#include <stddef.h>
#include <stdint.h>

#include "cupti_capture/capture.h"
#include "cupti_capture/journal.h"

struct sb { char *p; size_t len, cap; }; /* growable text; NULL p until used */
void tixjr_sb_add(struct sb *b, const char *s, size_t n);
void tixjr_sb_printf(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A JSON string literal, as tix_json_str writes it. */
void tixjr_sb_json(struct sb *b, const char *s, size_t n);

struct str { const char *p; uint32_t len; };
struct range { int64_t s, e; uint32_t tid, name, domain, unclosed; };
struct stream_key { uint32_t device, stream; };

struct rd {
	const uint8_t *p;
	size_t n;
	const char *path;
	const struct tix_sink *sink;
	struct tix_error *err;
	struct tixj_header hdr;
	const char *cmdline;
	size_t cmdline_len;
	struct str *str;
	size_t nstr, capstr;         /* ids seen (highest + 1), room */
	struct tixj_marker *mk;
	size_t nmk, capmk;
	struct tixj_graph_node *gn;
	size_t ngn, capgn;
	struct tixj_graph_event *ge;
	size_t nge, capge;
	struct graph_join *graph;   /* journal_graph.c */
	struct tixj_thread *th;
	size_t nth, capth;
	struct tixj_device *dev;
	size_t ndev, capdev;
	struct tixj_window *win;
	size_t nwin, capwin;
	struct stream_key *streams;
	size_t nstreams, capstreams;
	struct range *rg;
	size_t nrg;
	struct tixj_drops drops;
	int have_end, damaged;
	size_t good_end;
	uint32_t chunks, old_version_chunks;
	int64_t base, t_last;
	uint64_t records, unclosed;
	struct sb notes;
};

struct graph_join;

/* Pass 1 over r->p[0..n): checks the chain of chunks (r->damaged,
 * r->good_end say where it stops) and collects strings, markers, graph
 * nodes and metadata.  Returns 0, or -1 when out of memory.  tixjr_done
 * releases what it and the rest of the reader allocated. */
int tixjr_scan(struct rd *r);
void tixjr_done(struct rd *r);

/* String id -> bytes in the mapping; "" for unknown ids. */
struct str tixjr_str(const struct rd *r, uint32_t id);
/* Journal time (epoch ns) -> row time (relative to the base). */
int64_t tixjr_rel(const struct rd *r, uint64_t t);
struct tix_id tixjr_id(int64_t v);
/* An API call's name as the program wrote it (CUPTI's cbid name without
 * its version suffix; see journal_meta.c). */
struct tix_str tixjr_api_name(struct str cupti_name);

/* journal_graph.c: replayed GPU work -> the graph node it replays, by node
 * id (linear: one hash table).  tixjr_graph_index runs once after pass 1;
 * tixjr_graph_capture appends the node id to the args a and returns what
 * captured the work of a replay launched by call `correlation` (the GPU
 * work's; 0 unknown) that started at `start` (journal time): owned by r,
 * valid until tixjr_graph_done; NULL when the node was never journaled,
 * nothing is known of its capture, or the node was updated before that
 * launch (then "graph node updated" is in the args). */
int tixjr_graph_index(struct rd *r);
const struct tix_capture_in *tixjr_graph_capture(struct rd *r, uint64_t node_id,
                                                 uint32_t correlation, int64_t start, struct sb *a);
uint64_t tixjr_graph_unknown(const struct rd *r); /* lookups that found no node */
uint64_t tixjr_graph_updated(const struct rd *r); /* replays after their node was updated */
void tixjr_graph_done(struct rd *r);

/* Sink calls after the events: metadata and track names, warnings. */
int tixjr_emit_meta(struct rd *r);
int tixjr_emit_warnings(struct rd *r);

#endif /* TIX_CAPTURE_JOURNAL_READ_INT_H */
