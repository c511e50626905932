/*
 * cupti_capture/inject.c: libtixcap.so, the CUPTI injection library.
 * Owner: cupti_capture.  Facts it relies on: ../shared/CUPTI.md.
 *
 * libcuda dlopens this library (CUDA_INJECTION64_PATH) inside cuInit and
 * calls InitializeInjection, the only exported symbol, on the application
 * thread before any context exists.  From then on:
 *
 *   app threads:  CUPTI asks for buffers -> buf_request (lock-free pool)
 *                 resource / driver / NVTX callbacks -> window edges,
 *                 graph nodes (rare; a mutex)
 *   CUPTI thread: full buffers -> buf_complete -> completion queue
 *   flush thread: every TIX_CAPTURE_FLUSH_MS: window timers, API kinds on/off,
 *                 cuptiActivityFlushAll(0) (hands back partial buffers)
 *   writer thread: queue -> convert.c -> journal.c -> one write(2) per flush
 *   atexit:       forced flush, drain, END chunk
 *
 * Rules: never abort or block the host program; on any failure print one
 * line naming the cause and let it run untraced.  No CUDA calls here, no
 * signal handlers (the host owns its signals), nothing written until there
 * is something to write.  State is global because CUPTI's buffer callbacks
 * carry no user pointer; it is confined to this file.
 */
#include <cupti.h>
#include <dlfcn.h>
/* types only: the NVTX implementation belongs to the host program */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>
#include <generated_nvtx_meta.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cupti_capture/convert.h"
#include "cupti_capture/journal.h"
#include "cupti_capture/pool.h"

#define EXPORT __attribute__((visibility("default")))

struct opts {
	char dir[3072];
	int flush_ms;
	double delay_s, duration_s;
	char nvtx[256];             /* trigger range name, "" none */
	int nvtx_prefix;            /* name ended with '*' */
	int profiler_api;
	size_t nbuf, buf_mb;
};

static struct {
	struct opts o;
	pid_t pid;
	CUpti_SubscriberHandle sub;
	int subscribed;
	struct tixcap_pool pool;
	struct tixcap_queue queue;
	struct tixcap_windows win;
	struct tixj_writer w;
	struct tixcap_conv conv;
	pthread_t flush_thr, writer_thr;
	int flush_started, writer_started;
	pthread_mutex_t mu;         /* guards cv, graph nodes */
	pthread_cond_t cv;          /* wakes the flush thread */
	_Atomic int stop;
	_Atomic int windows_done;   /* --duration elapsed: no new windows */
	_Atomic int64_t first_open;
	_Atomic int api_on;         /* API/copy kinds enabled (set under api_mu) */
	_Atomic int64_t api_off_since;
	int64_t t_init;
	struct tixj_graph_node *gn;
	size_t ngn, capgn;
	uint64_t gn_lost;
	char notes[1024];
} G;

/* 0 untouched, 1 capturing, 2 off (failed), 3 stopped */
static _Atomic int g_state;

static int64_t now_cupti(void)
{
	uint64_t t = 0;
	if (cuptiGetTimestamp(&t) != CUPTI_SUCCESS) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	}
	return (int64_t)t;
}

static int64_t clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static const char *cupti_err(CUptiResult r)
{
	const char *s = NULL;
	if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
		return "unknown CUPTI error";
	return s;
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	size_t l = strlen(G.notes);
	va_list ap;
	va_start(ap, fmt);
	if (l < sizeof G.notes - 3) {
		if (l)
			l += (size_t)snprintf(G.notes + l, sizeof G.notes - l, "; ");
		vsnprintf(G.notes + l, sizeof G.notes - l, fmt, ap);
	}
	va_end(ap);
}

/* ---- options: TIX_CAPTURE_* from the launcher ---- */

static double env_num(const char *name, double dflt)
{
	const char *v = getenv(name);
	char *end;
	if (!v || !*v)
		return dflt;
	double d = strtod(v, &end);
	return end != v && d >= 0 ? d : dflt;
}

static void read_opts(struct opts *o)
{
	const char *dir = getenv("TIX_CAPTURE_DIR");
	snprintf(o->dir, sizeof o->dir, "%s", dir && *dir ? dir : ".");
	o->flush_ms = (int)env_num("TIX_CAPTURE_FLUSH_MS", 250);
	if (o->flush_ms < 10)
		o->flush_ms = 10;
	o->delay_s = env_num("TIX_CAPTURE_DELAY_S", 0);
	o->duration_s = env_num("TIX_CAPTURE_DURATION_S", 0);
	const char *nv = getenv("TIX_CAPTURE_NVTX");
	snprintf(o->nvtx, sizeof o->nvtx, "%s", nv ? nv : "");
	size_t l = strlen(o->nvtx);
	if (l && o->nvtx[l - 1] == '*') {
		o->nvtx[l - 1] = 0;
		o->nvtx_prefix = 1;
	}
	o->profiler_api = env_num("TIX_CAPTURE_CUDA_PROFILER_API", 0) > 0;
	o->nbuf = (size_t)env_num("TIX_CAPTURE_BUFFERS", 16);
	o->buf_mb = (size_t)env_num("TIX_CAPTURE_BUFFER_MB", 4);
	if (o->nbuf < 2)
		o->nbuf = 2;
	if (o->buf_mb < 1)
		o->buf_mb = 1;
}

/* ---- CUPTI buffer callbacks: any thread, must not block ---- */

static void CUPTIAPI buf_request(uint8_t **buffer, size_t *size, size_t *max_records)
{
	/* NULL is back-pressure CUPTI >= 13 accepts (CUPTI.md 2.3); refused
	 * requests are counted by the pool. */
	uint8_t *b = tixcap_pool_get(&G.pool);
	*buffer = b;
	*size = b ? G.pool.bufsize : 0;
	*max_records = 0;
}

static void CUPTIAPI buf_complete(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                  size_t valid)
{
	if (!buffer || !tixcap_pool_owns(&G.pool, buffer))
		return;
	if (tixcap_queue_push(&G.queue, buffer, valid) != 0)
		tixcap_pool_put(&G.pool, buffer, valid); /* closed at exit: lost */
}

/* ---- the API calls journaled: launches, copies, sets, syncs ---- */

static const CUpti_CallbackId runtime_ids[] = {
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
	CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
	CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3D_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DAsync_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeer_v4000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_ptds_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3D_ptds_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DAsync_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000,
};

/* Driver calls only where apps call the driver directly (Triton, CUTLASS,
 * cuda-python); the runtime's own driver calls are not wanted twice. */
static const CUpti_CallbackId driver_ids[] = {
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
	CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2,
	CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,
	CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,
};

static const CUpti_ActivityKind window_kinds[] = {
	CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET,
};

/* Turns the per-window records on or off (mechanism B of CUPTI.md 3.5);
 * kernels stay enabled from init so their instrumentation exists. */
static pthread_mutex_t api_mu = PTHREAD_MUTEX_INITIALIZER;

static void set_api_kinds(int on)
{
	pthread_mutex_lock(&api_mu);
	/* A window may have opened since the flush thread decided to turn the
	 * kinds off: never disable under an open window. */
	if (G.api_on == on || (!on && G.win.windowed && tixcap_windows_is_open(&G.win))) {
		pthread_mutex_unlock(&api_mu);
		return;
	}
	int bad = 0;
	for (size_t i = 0; i < sizeof runtime_ids / sizeof *runtime_ids; i++)
		bad |= cuptiActivityEnableRuntimeApi(runtime_ids[i], (uint8_t)on) != CUPTI_SUCCESS;
	for (size_t i = 0; i < sizeof driver_ids / sizeof *driver_ids; i++)
		bad |= cuptiActivityEnableDriverApi(driver_ids[i], (uint8_t)on) != CUPTI_SUCCESS;
	for (size_t i = 0; i < sizeof window_kinds / sizeof *window_kinds; i++)
		bad |= (on ? cuptiActivityEnable(window_kinds[i]) : cuptiActivityDisable(window_kinds[i])) !=
		       CUPTI_SUCCESS;
	if (bad && on)
		note("some API/copy record kinds could not be enabled");
	G.api_on = on;
	pthread_mutex_unlock(&api_mu);
}

/* ---- windows: edges come from timers, NVTX and cuProfilerStart/Stop ---- */

static void wake_flush(void)
{
	pthread_mutex_lock(&G.mu);
	pthread_cond_signal(&G.cv);
	pthread_mutex_unlock(&G.mu);
}

static void window_open(int64_t ts)
{
	if (G.windows_done)
		return;
	int64_t zero = 0;
	atomic_compare_exchange_strong(&G.first_open, &zero, ts);
	tixcap_windows_open(&G.win, ts);
	/* API records on now, on this thread, as NVIDIA's sample does in its
	 * cuProfilerStart callback: waiting for the flush thread would lose the
	 * window's first launch calls.  Turning them off is the flush
	 * thread's job. */
	if (!G.api_on)
		set_api_kinds(1);
	G.api_off_since = 0;
}

static void window_close(int64_t ts)
{
	tixcap_windows_close(&G.win, ts);
}

static _Thread_local int t_depth, t_match_depth;

static int nvtx_matches(const char *msg)
{
	if (!msg)
		return 0;
	if (G.o.nvtx_prefix)
		return strncmp(msg, G.o.nvtx, strlen(G.o.nvtx)) == 0;
	return strcmp(msg, G.o.nvtx) == 0;
}

static const char *nvtx_message(CUpti_CallbackId cbid, const void *params)
{
	const nvtxEventAttributes_t *a = NULL;
	switch (cbid) {
	case CUPTI_CBID_NVTX_nvtxRangePushA:
		return ((const nvtxRangePushA_params *)params)->message;
	case CUPTI_CBID_NVTX_nvtxRangePushEx:
		a = ((const nvtxRangePushEx_params *)params)->eventAttrib;
		break;
	case CUPTI_CBID_NVTX_nvtxDomainRangePushEx:
		a = ((const nvtxDomainRangePushEx_params *)params)->core.eventAttrib;
		break;
	default:
		return NULL;
	}
	return a && a->messageType == NVTX_MESSAGE_TYPE_ASCII ? a->message.ascii : NULL;
}

/* Push/pop only: the window is the first matching range on a thread, from
 * its push to its pop. */
static void on_nvtx(CUpti_CallbackId cbid, const CUpti_NvtxData *d)
{
	switch (cbid) {
	case CUPTI_CBID_NVTX_nvtxRangePushA:
	case CUPTI_CBID_NVTX_nvtxRangePushEx:
	case CUPTI_CBID_NVTX_nvtxDomainRangePushEx:
		t_depth++;
		if (!t_match_depth && nvtx_matches(nvtx_message(cbid, d->functionParams))) {
			t_match_depth = t_depth;
			window_open(now_cupti());
		}
		break;
	case CUPTI_CBID_NVTX_nvtxRangePop:
	case CUPTI_CBID_NVTX_nvtxDomainRangePop:
		if (t_match_depth && t_depth == t_match_depth) {
			window_close(now_cupti());
			t_match_depth = 0;
		}
		if (t_depth > 0)
			t_depth--;
		break;
	default:
		break;
	}
}

static void on_graph(CUpti_CallbackId cbid, const CUpti_ResourceData *rd)
{
	const CUpti_GraphData *gd = rd ? rd->resourceDescriptor : NULL;
	if (!gd)
		return;
	struct tixj_graph_node g = {0};
	g.ts = now_cupti();
	g.tid = (uint32_t)syscall(SYS_gettid);
	g.node_type = (uint32_t)gd->nodeType;
	if (cuptiGetGraphNodeId(gd->node, &g.node_id) != CUPTI_SUCCESS)
		return;
	cuptiGetGraphId(gd->graph, &g.graph_id);
	if (cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED) {
		g.how = TIXJ_G_CLONED;
		cuptiGetGraphNodeId(gd->originalNode, &g.orig_node_id);
	} else {
		g.how = TIXJ_G_CREATED;
	}
	pthread_mutex_lock(&G.mu);
	if (G.ngn == G.capgn && G.capgn < (1u << 20)) {
		size_t cap = G.capgn ? G.capgn * 2 : 256;
		void *p = realloc(G.gn, cap * sizeof *G.gn);
		if (p) {
			G.gn = p;
			G.capgn = cap;
		}
	}
	if (G.ngn < G.capgn)
		G.gn[G.ngn++] = g;
	else
		G.gn_lost++;
	pthread_mutex_unlock(&G.mu);
}

static void CUPTIAPI on_callback(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
                                 const void *data)
{
	if (g_state != 1)
		return;
	if (dom == CUPTI_CB_DOMAIN_RESOURCE) {
		on_graph(cbid, data);
	} else if (dom == CUPTI_CB_DOMAIN_DRIVER_API) {
		const CUpti_CallbackData *cd = data;
		if (cd->callbackSite != CUPTI_API_ENTER)
			return;
		if (cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart)
			window_open(now_cupti());
		else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop)
			window_close(now_cupti());
	} else if (dom == CUPTI_CB_DOMAIN_NVTX) {
		on_nvtx(cbid, data);
	}
}

/* ---- flush thread ---- */

static void *flush_main(void *arg)
{
	int64_t period = (int64_t)G.o.flush_ms * 1000000;
	while (!G.stop) {
		struct timespec dl;
		clock_gettime(CLOCK_MONOTONIC, &dl);
		dl.tv_nsec += (long)(period % 1000000000);
		dl.tv_sec += (time_t)(period / 1000000000) + dl.tv_nsec / 1000000000;
		dl.tv_nsec %= 1000000000;
		pthread_mutex_lock(&G.mu);
		if (!G.stop)
			pthread_cond_timedwait(&G.cv, &G.mu, &dl);
		pthread_mutex_unlock(&G.mu);
		if (G.stop)
			break;
		int64_t now = now_cupti();
		if (G.win.windowed) {
			int64_t first = G.first_open;
			if (G.o.delay_s > 0 && !first && !G.o.nvtx[0] && !G.o.profiler_api &&
			    now >= G.t_init + (int64_t)(G.o.delay_s * 1e9))
				window_open(now);
			first = G.first_open;
			if (G.o.duration_s > 0 && first && !G.windows_done &&
			    now >= first + (int64_t)(G.o.duration_s * 1e9)) {
				G.windows_done = 1;
				window_close(now);
			}
			/* API records on while a window is open; off again only after
			 * a second closed, so per-step NVTX windows do not toggle them
			 * on every step. */
			int open = tixcap_windows_is_open(&G.win);
			if (open && !G.api_on)
				set_api_kinds(1);
			if (open)
				G.api_off_since = 0;
			else if (G.api_on && !G.api_off_since)
				G.api_off_since = now;
			if (G.api_on && !open &&
			    (G.windows_done || now - G.api_off_since > 1000000000))
				set_api_kinds(0);
		}
		cuptiActivityFlushAll(0);
		tixcap_queue_kick(&G.queue);
	}
	return NULL;
}

/* ---- writer thread ---- */

static void journal_side_rows(int64_t *last_clock, uint64_t *last_dropped)
{
	pthread_mutex_lock(&G.mu);
	struct tixj_graph_node *gn = G.gn;
	size_t n = G.ngn;
	G.gn = NULL;
	G.ngn = G.capgn = 0;
	pthread_mutex_unlock(&G.mu);
	for (size_t i = 0; i < n; i++)
		tixj_add(&G.w, TIXJ_GRAPH_NODES, &gn[i], gn[i].ts, gn[i].ts);
	free(gn);
	int64_t now = now_cupti();
	if (now - *last_clock > 10 * 1000000000LL) {
		struct tixj_clock c = {now, clock_ns(CLOCK_REALTIME), clock_ns(CLOCK_MONOTONIC)};
		tixj_add(&G.w, TIXJ_CLOCKS, &c, now, now);
		*last_clock = now;
	}
	size_t dropped = 0;
	cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped);
	G.conv.drops.cupti_dropped = dropped;
	G.conv.drops.buffers_refused = G.pool.refused;
	uint64_t sum = dropped + G.conv.drops.buffers_refused + G.conv.drops.no_timestamp;
	if (sum != *last_dropped && tixj_staged_rows(&G.w)) {
		tixj_add(&G.w, TIXJ_DROPS, &G.conv.drops, 0, 0);
		*last_dropped = sum;
	}
	if (G.notes[0] && tixj_staged_rows(&G.w)) {
		tixj_note(&G.w, G.notes);
		G.notes[0] = 0;
	}
}

static void *writer_main(void *arg)
{
	int64_t last_clock = 0;
	uint64_t last_dropped = 0;
	for (;;) {
		struct tixcap_done d;
		int rc = tixcap_queue_pop(&G.queue, &d, 2 * G.o.flush_ms);
		if (rc == 1) {
			tixcap_conv_buffer(&G.conv, d.buf, d.valid);
			tixcap_pool_put(&G.pool, d.buf, d.valid);
			/* more waiting: convert them before one write for all */
			while (tixcap_queue_pop(&G.queue, &d, 0) == 1) {
				tixcap_conv_buffer(&G.conv, d.buf, d.valid);
				tixcap_pool_put(&G.pool, d.buf, d.valid);
			}
		}
		tixcap_conv_sync_windows(&G.conv);
		journal_side_rows(&last_clock, &last_dropped);
		tixj_flush(&G.w);
		if (rc < 0)
			break;
	}
	tixj_writer_close(&G.w, &G.conv.drops);
	return NULL;
}

/* ---- start and stop ---- */

static int timed_join(pthread_t t, int seconds)
{
	struct timespec dl;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += seconds;
	return pthread_timedjoin_np(t, NULL, &dl);
}

static void stop_capture(void)
{
	int running = 1;
	if (getpid() != G.pid || !atomic_compare_exchange_strong(&g_state, &running, 3))
		return;
	G.stop = 1;
	wake_flush();
	if (G.flush_started)
		timed_join(G.flush_thr, 2);
	/* Forced: also the records of buffers CUPTI has not filled. */
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	tixcap_queue_close(&G.queue);
	if (G.writer_started && timed_join(G.writer_thr, 5) != 0)
		fprintf(stderr, "tixcap: pid %d: journal writer did not finish in 5 s; the "
		                "journal is kept up to its last flush\n", (int)G.pid);
}

/* A forked child (no exec) shares our journal fd but not our threads:
 * it must never write to the parent's journal. */
static void after_fork_child(void) { g_state = 2; }

static void read_cmdline(char *buf, size_t cap, size_t *len)
{
	*len = 0;
	FILE *f = fopen("/proc/self/cmdline", "rb");
	if (f) {
		*len = fread(buf, 1, cap, f);
		fclose(f);
	}
}

/* NVTX reaches CUPTI only through NVTX_INJECTION64_PATH, and it must be the
 * libcupti we are linked with, or a second CUPTI is loaded (CUPTI.md 1.2). */
static void check_nvtx_route(void)
{
	const char *nv = getenv("NVTX_INJECTION64_PATH");
	Dl_info di;
	char a[PATH_MAX], b[PATH_MAX];
	if (!nv || !*nv) {
		note("NVTX_INJECTION64_PATH is not set: no NVTX ranges (run under tix capture)");
		return;
	}
	if (dladdr((void *)cuptiGetVersion, &di) && di.dli_fname && realpath(nv, a) &&
	    realpath(di.dli_fname, b) && strcmp(a, b) != 0) {
		fprintf(stderr, "tixcap: pid %d: NVTX_INJECTION64_PATH=%s is not the libcupti in "
		                "use (%s); NVTX ranges may be missing\n", (int)G.pid, nv, b);
		note("NVTX_INJECTION64_PATH %s differs from the libcupti in use %s", nv, b);
	}
}

static int start(void)
{
	G.pid = getpid();
	read_opts(&G.o);
	pthread_mutex_init(&G.mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&G.cv, &ca);
	pthread_condattr_destroy(&ca);

	char old[256] = "";
	CUpti_SubscriberParams sp = {0};
	sp.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
	sp.subscriberName = "tix";
	sp.oldSubscriberName = old;
	sp.oldSubscriberSize = sizeof old;
	CUptiResult r = cuptiSubscribe_v2(&G.sub, on_callback, NULL, &sp);
	if (r != CUPTI_SUCCESS) {
		if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
			fprintf(stderr, "tixcap: pid %d: capture off: another CUPTI client holds the "
			                "process (%s); CUDA 13.0 allows one (nsys, ncu, torch.profiler)\n",
			        (int)G.pid, old[0] ? old : "unnamed");
		else
			fprintf(stderr, "tixcap: pid %d: capture off: cuptiSubscribe: %s%s\n", (int)G.pid,
			        cupti_err(r),
			        r == CUPTI_ERROR_UNKNOWN ? " (no usable CUDA driver?)" : "");
		return -1;
	}
	G.subscribed = 1;
	if ((r = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM)) != CUPTI_SUCCESS)
		note("cuptiSetThreadIdType: %s (thread ids are pthread ids)", cupti_err(r));
	if (tixcap_pool_init(&G.pool, G.o.nbuf, G.o.buf_mb << 20, 4) != 0 ||
	    tixcap_queue_init(&G.queue, G.o.nbuf) != 0) {
		fprintf(stderr, "tixcap: pid %d: capture off: cannot reserve %zu x %zu MiB buffers: %s\n",
		        (int)G.pid, G.o.nbuf, G.o.buf_mb, strerror(errno));
		return -1;
	}
	uint8_t one = 1;
	size_t sz = sizeof one;
	cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &sz, &one);
	if ((r = cuptiActivityRegisterCallbacks(buf_request, buf_complete)) != CUPTI_SUCCESS) {
		fprintf(stderr, "tixcap: pid %d: capture off: cuptiActivityRegisterCallbacks: %s\n",
		        (int)G.pid, cupti_err(r));
		return -1;
	}
	/* Kernels from the start (enabling later stalls on code generation). */
	if ((r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) != CUPTI_SUCCESS) {
		fprintf(stderr, "tixcap: pid %d: capture off: enabling kernel records: %s\n",
		        (int)G.pid, cupti_err(r));
		return -1;
	}
	static const CUpti_ActivityKind meta_kinds[] = {
		CUPTI_ACTIVITY_KIND_DEVICE, CUPTI_ACTIVITY_KIND_MARKER, CUPTI_ACTIVITY_KIND_NAME,
	};
	for (size_t i = 0; i < sizeof meta_kinds / sizeof *meta_kinds; i++)
		if ((r = cuptiActivityEnable(meta_kinds[i])) != CUPTI_SUCCESS)
			note("activity kind %d: %s", (int)meta_kinds[i], cupti_err(r));
	/* Graph nodes: their capture-time NVTX parents (CUPTI.md 3.6). */
	cuptiEnableCallback(1, G.sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED);
	cuptiEnableCallback(1, G.sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED);

	int windowed = G.o.delay_s > 0 || G.o.duration_s > 0 || G.o.nvtx[0] || G.o.profiler_api;
	tixcap_windows_init(&G.win, windowed);
	G.t_init = now_cupti();
	if (G.o.profiler_api) {
		cuptiEnableCallback(1, G.sub, CUPTI_CB_DOMAIN_DRIVER_API,
		                    CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
		cuptiEnableCallback(1, G.sub, CUPTI_CB_DOMAIN_DRIVER_API,
		                    CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
	}
	if (G.o.nvtx[0] && (r = cuptiEnableDomain(1, G.sub, CUPTI_CB_DOMAIN_NVTX)) != CUPTI_SUCCESS)
		note("NVTX callbacks: %s (--nvtx cannot open windows)", cupti_err(r));
	if (!windowed || (G.o.delay_s <= 0 && !G.o.nvtx[0] && !G.o.profiler_api)) {
		if (windowed)
			window_open(G.t_init); /* --duration alone: from now */
		set_api_kinds(1);
	}

	struct tixj_header h = {0};
	h.pid = (uint32_t)G.pid;
	h.start_ns = G.t_init;
	h.realtime_ns = clock_ns(CLOCK_REALTIME);
	h.monotonic_ns = clock_ns(CLOCK_MONOTONIC);
	cuptiGetVersion(&h.cupti_version);
	h.cupti_build = CUPTI_API_VERSION;
	h.flush_ms = (uint32_t)G.o.flush_ms;
	h.flags = windowed ? TIXJ_HDR_WINDOWED : 0;
	gethostname(h.host, sizeof h.host - 1);
	char cmd[4096];
	size_t cmdlen;
	read_cmdline(cmd, sizeof cmd, &cmdlen);
	if (tixj_writer_init(&G.w, G.o.dir, &h, cmd, cmdlen) != 0 ||
	    tixcap_conv_init(&G.conv, &G.w, &G.win) != 0) {
		fprintf(stderr, "tixcap: pid %d: capture off: out of memory\n", (int)G.pid);
		return -1;
	}
	if (h.cupti_version && h.cupti_version < CUPTI_API_VERSION)
		note("libcupti API version %u is older than the build's %u", h.cupti_version,
		     (unsigned)CUPTI_API_VERSION);
	check_nvtx_route();

	/* Our threads take no signals: the host program owns them. */
	sigset_t all, prev;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &prev);
	G.writer_started = pthread_create(&G.writer_thr, NULL, writer_main, NULL) == 0;
	G.flush_started = G.writer_started &&
	                  pthread_create(&G.flush_thr, NULL, flush_main, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &prev, NULL);
	if (!G.flush_started) {
		fprintf(stderr, "tixcap: pid %d: capture off: cannot start threads\n", (int)G.pid);
		if (G.writer_started) {
			tixcap_queue_close(&G.queue);
			pthread_join(G.writer_thr, NULL);
			G.writer_started = 0;
		}
		return -1;
	}
	pthread_atfork(NULL, NULL, after_fork_child);
	atexit(stop_capture);
	return 0;
}

/* Undo what start() did, so CUPTI costs nothing more. */
static void give_up(void)
{
	if (G.subscribed) {
		cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
		cuptiUnsubscribe(G.sub);
		G.subscribed = 0;
	}
	/* The pool stays mapped: CUPTI may still hold one of its buffers. */
}

EXPORT int InitializeInjection(void)
{
	int untouched = 0;
	/* libcuda may call us more than once (CUPTI.md 1.1). */
	if (!atomic_compare_exchange_strong(&g_state, &untouched, 1))
		return 1;
	if (start() != 0) {
		g_state = 2;
		give_up();
	}
	return 1; /* never fail cuInit: the program runs, traced or not */
}
