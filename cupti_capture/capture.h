/*
 * cupti_capture: the CUPTI injection library (libtixcap.so, loaded by the
 * CUDA driver through CUDA_INJECTION64_PATH), its crash-safe journal, the
 * journal reader that feeds the index builder, and the `tix capture`
 * launcher.  This header is the module's only door for the tix program; the
 * injection library exports only InitializeInjection.
 */
#ifndef TIX_CAPTURE_H
#define TIX_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "index/sink.h"

/* 1 when the first n bytes at head start a tix capture journal. */
int tixcap_is_journal(const void *head, size_t n);

struct tixcap_journal_result {
	uint64_t records;      /* records sent to the sink */
	int truncated;         /* stopped at a torn or damaged chunk */
	uint64_t salvaged_to;  /* byte offset after the last whole chunk */
};

/* Reads the journal at path into sink (the index builder).  A torn or
 * damaged tail is salvaged: the whole chunks before it are kept, a warning
 * naming the byte offset goes to the sink, and 0 is returned.  Returns -1
 * with err set when nothing usable is there. */
int tixcap_journal_read(const char *path, const struct tix_sink *sink,
                        struct tixcap_journal_result *res, struct tix_error *err);

/* Writes what the journal at path holds to out, chunk by chunk and row by
 * row (the first `rows` rows of each type): the raw record, before any
 * index, for checks on a GPU host and for debugging.  Returns 0, 1 when
 * the journal is damaged (the whole prefix is still dumped), or -1 with err
 * set when it cannot be read at all. */
int tixcap_journal_dump(const char *path, FILE *out, unsigned rows, struct tix_error *err);

/* How `tix capture` turns a journal into an index: the tix program lends
 * its own ingest door (the one `tix JOURNAL` goes through), so the index is
 * built the same way and lands where tix looks for it.  Returns 0 with the
 * index's path in out, or -1 with err set. */
typedef int (*tixcap_ingest_fn)(const char *journal, const char *step_marker, char *out,
                                size_t cap, struct tix_error *err);

/* What `tix capture` was asked for.  cli/capture.c fills it from the
 * command line (its options are the rows of cli/help.c's table). */
#define TIXCAP_FLUSH_MS_DEFAULT 250 /* journal flush period, also libtixcap.so's */
#define TIXCAP_WAIT_S_DEFAULT 30    /* how long to wait for what CMD left running */
struct tixcap_opts {
	const char *out;            /* -o: the folder; NULL: tix-capture-DATE-TIME */
	double delay_s, duration_s; /* --delay, --duration; 0: none */
	const char *nvtx;           /* --nvtx RANGE; NULL: none */
	int profiler_api;           /* --cuda-profiler-api */
	double flush_ms;            /* --flush-ms */
	double wait_s;              /* --wait: seconds; INFINITY: until all have ended */
	const char *step_marker;    /* --step-marker, for the index; NULL: the defaults */
	char *const *cmd;           /* CMD and its arguments, NULL-terminated */
};

/* Runs o->cmd with capture, waits for it, then for the processes it left
 * running (at most o->wait_s seconds, or until a SIGINT/SIGTERM/SIGHUP),
 * then indexes each journal they wrote with ingest (NULL: leaves the
 * journals and says so).  Returns the exit status for tix: CMD's status
 * (128+N when signal N ended it), or 2 when capture is unavailable in this
 * build (saying why) or a journal could not be indexed. */
int tixcap_run(const struct tixcap_opts *o, const char *tix_exe_path, tixcap_ingest_fn ingest);

#endif /* TIX_CAPTURE_H */
