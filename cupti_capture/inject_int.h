/*
 * cupti_capture/inject_int.h: what the two halves of libtixcap.so share.
 * Internal to the library.  Owner: cupti_capture.
 *
 *   inject.c     InitializeInjection, options, the buffer callbacks, the
 *                flush and writer threads, stop at exit
 *   callbacks.c  what CUPTI calls on application threads: the API, NVTX and
 *                resource callbacks (window edges, the per-thread NVTX
 *                stack, graph nodes) and the NVTX route into libcupti
 *   api_ids.c    which CUDA calls are followed, and enabling their callbacks
 *
 * State is one global because CUPTI's buffer callbacks carry no user
 * pointer; nothing outside these two files sees it.
 */
#ifndef TIX_CAPTURE_INJECT_INT_H
#define TIX_CAPTURE_INJECT_INT_H

#include <cupti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "cupti_capture/convert.h"
#include "cupti_capture/journal.h"
#include "cupti_capture/pool.h"

struct opts {
	char dir[3072];
	int flush_ms;
	double delay_s, duration_s;
	char nvtx[256];             /* trigger range name, "" none */
	int nvtx_prefix;            /* name ended with '*' */
	int profiler_api;
	size_t nbuf, buf_mb;        /* 0: the default for the libcupti loaded */
	int any_cupti;              /* TIX_CAPTURE_ANY_CUPTI=1: skip the layout check */
	int ga_flush;               /* TIX_CAPTURE_GA_FLUSH=1: flush libcupti 13.0.0 anyway */
};

/* Graph nodes seen by the resource callbacks, waiting for the writer
 * thread: rows plus their NVTX frames (NUL-terminated names) in an arena. */
struct pending_nodes {
	struct tixj_graph_node *row;
	uint32_t *frames_off, *frames_len; /* into arena; len 0: none */
	size_t n, cap;
	char *arena;
	size_t alen, acap;
	struct tixj_graph_event *ev;       /* executable graphs made and updated */
	size_t nev, capev;
};

enum { ST_UNTOUCHED, ST_CAPTURING, ST_OFF, ST_STOPPED };

struct tixcap_state {
	struct opts o;
	pid_t pid;
	uint32_t cupti_version;     /* of the libcupti loaded */
	int flush_safe;             /* cuptiActivityFlushAll may be called periodically */
	CUpti_SubscriberHandle sub;
	int subscribed;
	struct tixcap_pool pool;
	struct tixcap_queue queue;
	struct tixcap_windows win;
	struct tixj_writer w;
	struct tixcap_conv conv;
	pthread_t flush_thr, writer_thr;
	int flush_started, writer_started;
	pthread_mutex_t mu;         /* guards cv, nodes */
	pthread_cond_t cv;          /* wakes the flush thread */
	_Atomic int stop;
	_Atomic int windows_done;   /* --duration elapsed: no new windows */
	_Atomic int64_t first_open;
	_Atomic int api_on;         /* API/copy kinds are enabled */
	_Atomic int api_busy;       /* a thread is switching them (never waited on) */
	_Atomic int64_t api_off_since;
	int api_always;             /* --nvtx: kinds on from the start, never switched */
	int64_t t_init;
	int64_t clock_offset;       /* CUPTI time - CLOCK_REALTIME at start */
	_Atomic uint64_t launches;  /* kernel / graph launch calls the API callbacks saw */
	_Atomic uint64_t flushes;   /* periodic cuptiActivityFlushAll calls made */
	_Atomic int taken;          /* another CUPTI client took over: record nothing more */
	struct pending_nodes nodes; /* under mu */
	uint64_t nodes_lost;
	char notes[1024];
};
extern struct tixcap_state tixcap_g;
#define G tixcap_g
extern _Atomic int tixcap_phase; /* ST_* */

/* inject.c */
int64_t tixcap_now(void);       /* CUPTI time (CLOCK_REALTIME ns unless taken over) */
int64_t tixcap_clock_ns(clockid_t c);
const char *tixcap_cupti_err(CUptiResult r);
void tixcap_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tixcap_window_open(int64_t ts);
void tixcap_window_close(int64_t ts);
/* Brings the API/copy record kinds to what the windows want now.  Never
 * waits: when another thread is switching them, that thread looks again
 * after it is done. */
void tixcap_apply_api_kinds(void);

/* api_ids.c: the calls whose records are journaled (and followed) */
extern const CUpti_CallbackId tixcap_runtime_ids[], tixcap_driver_ids[];
extern const size_t tixcap_n_runtime_ids, tixcap_n_driver_ids;
/* 1 for the calls that launch kernels (counted: see STARVE_FLUSHES) */
int tixcap_is_launch(int driver, CUpti_CallbackId cbid);
enum tixcap_graph_call { TIXCAP_GC_NONE, TIXCAP_GC_INSTANTIATE, TIXCAP_GC_EXEC_UPDATE,
	                 TIXCAP_GC_NODE_SET };
enum tixcap_graph_call tixcap_graph_call_of(int driver, CUpti_CallbackId cbid);
/* Enables the callbacks capture needs (API calls, NVTX, graph resources,
 * cuProfilerStart/Stop when asked).  Returns 0 or the first failure. */
CUptiResult tixcap_enable_callbacks(void);

/* callbacks.c */
void CUPTIAPI tixcap_on_callback(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
                                 const void *data);
/* Moves the pending graph nodes to *out (which the caller frees with
 * tixcap_nodes_done); *out is empty when there are none. */
void tixcap_take_nodes(struct pending_nodes *out);
void tixcap_nodes_done(struct pending_nodes *n);
/* Where NVTX should be routed: libtixcap.so itself (NULL if unknown). */
const char *tixcap_self_path(void);

#endif /* TIX_CAPTURE_INJECT_INT_H */
