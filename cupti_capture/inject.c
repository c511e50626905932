/*
 * cupti_capture/inject.c: libtixcap.so, the CUPTI injection library.
 * Owner: cupti_capture.  Facts it relies on: ../shared/CUPTI.md.
 *
 * libcuda dlopens this library (CUDA_INJECTION64_PATH) inside cuInit and
 * calls InitializeInjection on the application thread before any context
 * exists; NVTX loads it too (NVTX_INJECTION64_PATH, callbacks.c).  Then:
 *
 *   app threads:  CUPTI asks for buffers -> buf_request (lock-free pool)
 *                 API / NVTX / resource callbacks -> callbacks.c
 *   CUPTI thread: full buffers -> buf_complete -> completion queue
 *   flush thread: every TIX_CAPTURE_FLUSH_MS: window timers, API kinds on/off,
 *                 cuptiActivityFlushAll(0) (hands back completed buffers),
 *                 and a look at CUPTI's clock (has another client taken it?)
 *   writer thread: queue -> convert.c -> journal.c -> one write(2) per flush
 *   atexit:       forced flush, drain, END chunk
 *
 * Rules: never abort or block the host program; on any failure print one
 * line naming the cause and let it run untraced.  No CUDA calls here, no
 * signal handlers (the host owns its signals), nothing written until there
 * is something recorded to write.
 */
#include "cupti_capture/inject_int.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

struct tixcap_state tixcap_g;
_Atomic int tixcap_phase;

/* CUPTI 13.0 GA (API version 130000) could crash in cuptiActivityFlushAll
 * and deadlock disabling CONCURRENT_KERNEL; both fixed in 13.0 Update 1
 * (CUPTI 13.0 release notes).  With it, tix never calls either: not
 * periodically, not at exit (the notes do not say which flushes crashed,
 * so none is taken as safe). */
#define CUPTI_13_0_GA 130000u
/* No buffer after this many of our flushes while kernels are launched: the
 * records may be going somewhere else.  Only said, never acted on: a GPU
 * that is never idle also withholds its newest buffer (a running kernel's
 * record is incomplete) until it is full, which at a low launch rate can
 * take longer. */
#define STARVE_FLUSHES 40
/* CUPTI time and CLOCK_REALTIME drifting apart by more than this: CUPTI's
 * clock was replaced (NTP steps move both). */
#define CLOCK_JUMP_NS (60 * 1000000000LL)

int64_t tixcap_clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t tixcap_now(void)
{
	uint64_t t = 0;
	if (cuptiGetTimestamp(&t) != CUPTI_SUCCESS)
		return tixcap_clock_ns(CLOCK_REALTIME);
	return (int64_t)t;
}

const char *tixcap_cupti_err(CUptiResult r)
{
	const char *s = NULL;
	if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
		return "unknown CUPTI error";
	return s;
}

/* Notes go into the journal (and from there into the index's warnings);
 * G.mu because the flush and writer threads both write them. */
void tixcap_note(const char *fmt, ...)
{
	pthread_mutex_lock(&G.mu);
	size_t l = strlen(G.notes);
	va_list ap;
	va_start(ap, fmt);
	if (l < sizeof G.notes - 3) {
		if (l)
			l += (size_t)snprintf(G.notes + l, sizeof G.notes - l, "; ");
		vsnprintf(G.notes + l, sizeof G.notes - l, fmt, ap);
	}
	va_end(ap);
	pthread_mutex_unlock(&G.mu);
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
	o->nbuf = (size_t)env_num("TIX_CAPTURE_BUFFERS", 0);
	o->buf_mb = (size_t)env_num("TIX_CAPTURE_BUFFER_MB", 0);
	o->any_cupti = env_num("TIX_CAPTURE_ANY_CUPTI", 0) > 0;
	o->ga_flush = env_num("TIX_CAPTURE_GA_FLUSH", 0) > 0;
}

/* The buffer pool: 16 x 4 MiB, reserved, unless asked otherwise.  With
 * libcupti 13.0.0, whose last partial buffers are never flushed (see
 * flush_safe), 64 x 1 MiB, so what a run loses at its end stays small. */
static void pool_size(struct opts *o, int flush_safe)
{
	if (!o->nbuf)
		o->nbuf = flush_safe ? 16 : 64;
	if (!o->buf_mb)
		o->buf_mb = flush_safe ? 4 : 1;
	if (o->nbuf < 2)
		o->nbuf = 2;
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
	struct tixcap_done d = {buffer, valid, (void *)ctx, stream};
	if (tixcap_queue_push(&G.queue, &d) != 0)
		tixcap_pool_put(&G.pool, buffer); /* closed at exit: lost */
}

/* ---- the per-window record kinds (mechanism B of CUPTI.md 3.5) ---- */

static const CUpti_ActivityKind window_kinds[] = {
	CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET,
};

static void set_kinds(int on)
{
	int bad = 0;
	for (size_t i = 0; i < tixcap_n_runtime_ids; i++)
		bad |= cuptiActivityEnableRuntimeApi(tixcap_runtime_ids[i], (uint8_t)on) != CUPTI_SUCCESS;
	for (size_t i = 0; i < tixcap_n_driver_ids; i++)
		bad |= cuptiActivityEnableDriverApi(tixcap_driver_ids[i], (uint8_t)on) != CUPTI_SUCCESS;
	for (size_t i = 0; i < sizeof window_kinds / sizeof *window_kinds; i++)
		bad |= (on ? cuptiActivityEnable(window_kinds[i]) : cuptiActivityDisable(window_kinds[i])) !=
		       CUPTI_SUCCESS;
	if (bad && on)
		tixcap_note("some API/copy record kinds could not be enabled");
}

/* What the kinds should be now.  Off again only a second after the last
 * window closed, so per-step windows do not switch them every step. */
static int api_wanted(void)
{
	if (G.api_always || !G.win.windowed || tixcap_windows_is_open(&G.win))
		return 1;
	if (G.windows_done)
		return 0;
	int64_t since = G.api_off_since;
	if (!since)
		return G.api_on;
	return tixcap_now() - since > 1000000000 ? 0 : G.api_on;
}

void tixcap_apply_api_kinds(void)
{
	for (;;) {
		int idle = 0;
		/* No lock: a thread inside a CUDA call must never wait for one
		 * that is calling CUPTI.  Whoever holds the flag looks again. */
		if (!atomic_compare_exchange_strong(&G.api_busy, &idle, 1))
			return;
		int want = api_wanted();
		if (want != G.api_on) {
			set_kinds(want);
			G.api_on = want;
		}
		G.api_busy = 0;
		if (api_wanted() == G.api_on)
			return;
	}
}

/* ---- windows: edges from timers (flush thread), cuProfilerStart/Stop and
 * NVTX (callbacks.c) ---- */

static void wake_flush(void)
{
	pthread_mutex_lock(&G.mu);
	pthread_cond_signal(&G.cv);
	pthread_mutex_unlock(&G.mu);
}

void tixcap_window_open(int64_t ts)
{
	if (G.windows_done)
		return;
	int64_t zero = 0;
	atomic_compare_exchange_strong(&G.first_open, &zero, ts);
	tixcap_windows_open(&G.win, ts);
	G.api_off_since = 0;
	/* API records on now, on this thread, as NVIDIA's sample does in its
	 * cuProfilerStart callback: waiting for the flush thread would lose
	 * the window's first launch calls.  With --nvtx they are always on,
	 * so nothing is switched from inside an NVTX callback. */
	if (!G.api_always)
		tixcap_apply_api_kinds();
}

void tixcap_window_close(int64_t ts) { tixcap_windows_close(&G.win, ts); }

/* ---- another CUPTI client (torch.profiler's Kineto) ---- */

/* CUDA 13.0 allows one subscriber, but the activity API is process-wide:
 * Kineto registers its own buffer callbacks (even when its subscribe
 * failed), its own clock, and disables kernel records when it stops.
 * Records after that would be lost or on a clock we cannot place: stop,
 * and say so once. */
static void taken_over(const char *why)
{
	int no = 0;
	if (!atomic_compare_exchange_strong(&G.taken, &no, 1))
		return;
	fprintf(stderr, "tixcap: pid %d: capture stopped: %s; another CUPTI client "
	                "(torch.profiler?) took over the activity records; the journal keeps "
	                "what came before\n", (int)G.pid, why);
	tixcap_note("capture stopped: %s; another CUPTI client (torch.profiler?) took over the "
	            "activity records", why);
}

/* ---- flush thread ---- */

static void window_timers(int64_t now)
{
	int64_t first = G.first_open;
	if (G.o.delay_s > 0 && !first && !G.o.nvtx[0] && !G.o.profiler_api &&
	    now >= G.t_init + (int64_t)(G.o.delay_s * 1e9))
		tixcap_window_open(now);
	first = G.first_open;
	if (G.o.duration_s > 0 && first && !G.windows_done &&
	    now >= first + (int64_t)(G.o.duration_s * 1e9)) {
		G.windows_done = 1;
		tixcap_window_close(now);
	}
	int open = tixcap_windows_is_open(&G.win);
	if (open)
		G.api_off_since = 0;
	else if (G.api_on && !G.api_off_since)
		G.api_off_since = now;
	tixcap_apply_api_kinds();
}

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
		int64_t now = tixcap_now();
		int64_t drift = now - tixcap_clock_ns(CLOCK_REALTIME) - G.clock_offset;
		if (drift > CLOCK_JUMP_NS || drift < -CLOCK_JUMP_NS)
			taken_over("CUPTI's clock stopped following CLOCK_REALTIME");
		if (G.taken)
			continue; /* flushing now would feed the other client's buffers */
		if (G.win.windowed)
			window_timers(now);
		if (G.flush_safe) {
			cuptiActivityFlushAll(0);
			G.flushes++;
		}
		tixcap_queue_kick(&G.queue);
	}
	return NULL;
}

/* ---- writer thread ---- */

#define MAX_QUEUES 64
struct writer {
	struct { void *ctx; uint32_t stream; } q[MAX_QUEUES]; /* whose drops to read */
	size_t nq;
	uint64_t last_dropped, last_lost;
	uint64_t flushes_then, launches_then; /* when a buffer last came */
	int starved_said;
};

static void seen_queue(struct writer *wr, const struct tixcap_done *d)
{
	for (size_t i = 0; i < wr->nq; i++)
		if (wr->q[i].ctx == d->ctx && wr->q[i].stream == d->stream)
			return;
	if (wr->nq < MAX_QUEUES) {
		wr->q[wr->nq].ctx = d->ctx;
		wr->q[wr->nq].stream = d->stream;
		wr->nq++;
	}
}

static void convert(struct writer *wr, const struct tixcap_done *d)
{
	seen_queue(wr, d);
	wr->flushes_then = G.flushes;
	wr->launches_then = G.launches;
	/* Converted even once taken over: what a buffer holds from before is
	 * good, and the converter stops at the first record on a foreign clock. */
	if (!G.conv.foreign_ts) {
		tixcap_conv_buffer(&G.conv, d->buf, d->valid);
		if (G.conv.foreign_ts) {
			char why[128];
			snprintf(why, sizeof why, "a record came stamped %lld, not CLOCK_REALTIME ns",
			         (long long)G.conv.foreign_ts);
			taken_over(why);
		}
		/* What the buffer held: how CUPTI fills them sets what a kill
		 * loses.  Only beside recorded rows: outside every window these
		 * would pile up unwritten. */
		struct tixj_buffer b = G.conv.last;
		b.done_ts = tixcap_now();
		b.context = (uint64_t)(uintptr_t)d->ctx;
		b.stream = d->stream;
		if (tixj_will_write(&G.w))
			tixj_add(&G.w, TIXJ_BUFFERS, &b, b.done_ts, b.done_ts);
	}
	tixcap_pool_put(&G.pool, d->buf);
}

static void journal_nodes(void)
{
	struct pending_nodes n;
	tixcap_take_nodes(&n);
	for (size_t i = 0; i < n.n; i++) {
		struct tixj_graph_node row = n.row[i];
		if (n.frames_len[i])
			row.frames = tixj_intern(&G.w, n.arena + n.frames_off[i], n.frames_len[i]);
		if (row.domain)
			row.api = tixcap_conv_api_name(&G.conv, row.domain == TIXJ_API_DRIVER, row.cbid);
		tixj_add(&G.w, TIXJ_GRAPH_NODES, &row, row.ts, row.ts);
	}
	for (size_t i = 0; i < n.nev; i++)
		tixj_add(&G.w, TIXJ_GRAPH_EVENTS, &n.ev[i], n.ev[i].ts, n.ev[i].ts);
	tixcap_nodes_done(&n);
}

static void journal_side_rows(struct writer *wr)
{
	journal_nodes();
	/* Each reading is "dropped since the last call" on that queue
	 * (cupti_activity.h), so the journal carries the sum. */
	for (size_t i = 0; i <= wr->nq; i++) {
		size_t dropped = 0;
		void *ctx = i < wr->nq ? wr->q[i].ctx : NULL;
		uint32_t stream = i < wr->nq ? wr->q[i].stream : 0;
		if (i < wr->nq && !ctx && !stream)
			continue; /* the global queue, read below */
		if (cuptiActivityGetNumDroppedRecords((CUcontext)ctx, stream, &dropped) == CUPTI_SUCCESS)
			G.conv.drops.cupti_dropped += dropped;
	}
	G.conv.drops.buffers_refused = G.pool.refused;
	uint64_t sum = G.conv.drops.cupti_dropped + G.conv.drops.buffers_refused +
	               G.conv.drops.no_timestamp;
	if (sum != wr->last_dropped) {
		tixj_add(&G.w, TIXJ_DROPS, &G.conv.drops, 0, 0);
		wr->last_dropped = sum;
	}
	if (G.nodes_lost != wr->last_lost) {
		tixcap_note("%llu CUDA graph nodes were not recorded (out of memory)",
		            (unsigned long long)G.nodes_lost);
		wr->last_lost = G.nodes_lost;
	}
	if (G.flush_safe && !G.taken && !wr->starved_said && G.launches > wr->launches_then &&
	    G.flushes - wr->flushes_then >= STARVE_FLUSHES) {
		wr->starved_said = 1;
		fprintf(stderr, "tixcap: pid %d: warning: no CUPTI buffer came back after %d flushes "
		                "while the program launched %llu kernels: another CUPTI client "
		                "(torch.profiler?) may have taken the activity records\n", (int)G.pid,
		        STARVE_FLUSHES, (unsigned long long)(G.launches - wr->launches_then));
		tixcap_note("no CUPTI buffer came back after %d flushes while the program launched "
		            "%llu kernels: another CUPTI client (torch.profiler?) may have taken the "
		            "activity records", STARVE_FLUSHES,
		            (unsigned long long)(G.launches - wr->launches_then));
	}
	pthread_mutex_lock(&G.mu);
	if (G.notes[0]) {
		tixj_note(&G.w, G.notes);
		G.notes[0] = 0;
	}
	pthread_mutex_unlock(&G.mu);
	/* Every write carries the clocks, so a journal says when it was last
	 * written: the bound on what a kill lost. */
	if (tixj_will_write(&G.w)) {
		int64_t now = tixcap_now();
		struct tixj_clock c = {now, tixcap_clock_ns(CLOCK_REALTIME),
		                       tixcap_clock_ns(CLOCK_MONOTONIC)};
		tixj_add(&G.w, TIXJ_CLOCKS, &c, now, now);
	}
}

static void *writer_main(void *arg)
{
	struct writer wr = {0};
	for (;;) {
		struct tixcap_done d;
		int rc = tixcap_queue_pop(&G.queue, &d, 2 * G.o.flush_ms);
		if (rc == 1) {
			convert(&wr, &d);
			/* more waiting: convert them before one write for all */
			while (tixcap_queue_pop(&G.queue, &d, 0) == 1)
				convert(&wr, &d);
		}
		tixcap_conv_sync_windows(&G.conv);
		journal_side_rows(&wr);
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
	int running = ST_CAPTURING;
	if (getpid() != G.pid || !atomic_compare_exchange_strong(&tixcap_phase, &running, ST_STOPPED))
		return;
	G.stop = 1;
	wake_flush();
	if (G.flush_started)
		timed_join(G.flush_thr, 2);
	/* Forced: also the records of buffers CUPTI has not filled.  Not when
	 * another client owns the buffers now, and never on 13.0 GA: the crash
	 * its periodic flush was stopped for is in this same call, and a crash
	 * at exit would change the program's exit status (the note of
	 * enable_records says what is lost instead). */
	if (!G.taken && G.flush_safe)
		cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	tixcap_queue_close(&G.queue);
	if (G.writer_started && timed_join(G.writer_thr, 5) != 0)
		fprintf(stderr, "tixcap: pid %d: journal writer did not finish in 5 s; the "
		                "journal is kept up to its last flush\n", (int)G.pid);
}

/* A forked child (no exec) shares our journal fd but not our threads:
 * it must never write to the parent's journal. */
static void after_fork_child(void) { tixcap_phase = ST_OFF; }

static void read_cmdline(char *buf, size_t cap, size_t *len)
{
	*len = 0;
	FILE *f = fopen("/proc/self/cmdline", "rb");
	if (f) {
		*len = fread(buf, 1, cap, f);
		fclose(f);
	}
}

/* NVTX reaches CUPTI only through NVTX_INJECTION64_PATH: it must name this
 * library (which hands over to the libcupti in use) or that libcupti
 * itself, or a second CUPTI is loaded and the ranges are lost. */
static void check_nvtx_route(void)
{
	const char *nv = getenv("NVTX_INJECTION64_PATH");
	if (!nv || !*nv) {
		tixcap_note("NVTX_INJECTION64_PATH is not set: no NVTX ranges and no capture-time "
		            "parents for CUDA graphs (run under tix capture)");
		return;
	}
	Dl_info di;
	char want[PATH_MAX], cupti[PATH_MAX];
	const char *self = tixcap_self_path();
	if (!realpath(nv, want))
		snprintf(want, sizeof want, "%s", nv);
	if (self && !strcmp(want, self))
		return;
	if (dladdr((void *)cuptiGetVersion, &di) && di.dli_fname && realpath(di.dli_fname, cupti) &&
	    !strcmp(want, cupti))
		return;
	fprintf(stderr, "tixcap: pid %d: NVTX_INJECTION64_PATH=%s is neither libtixcap.so nor "
	                "the libcupti in use; NVTX ranges may be missing\n", (int)G.pid, nv);
	tixcap_note("NVTX_INJECTION64_PATH %s is neither libtixcap.so nor the libcupti in use", nv);
}

static int subscribe(void)
{
	char old[256] = "";
	CUpti_SubscriberParams sp = {0};
	sp.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
	sp.subscriberName = "tix";
	sp.oldSubscriberName = old;
	sp.oldSubscriberSize = sizeof old;
	CUptiResult r = cuptiSubscribe_v2(&G.sub, tixcap_on_callback, NULL, &sp);
	if (r == CUPTI_SUCCESS) {
		G.subscribed = 1;
		return 0;
	}
	if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
		fprintf(stderr, "tixcap: pid %d: capture off: another CUPTI client holds the "
		                "process (%s); CUDA 13.0 allows one (nsys, ncu, torch.profiler)\n",
		        (int)G.pid, old[0] ? old : "unnamed");
	else
		fprintf(stderr, "tixcap: pid %d: capture off: cuptiSubscribe: %s%s\n", (int)G.pid,
		        tixcap_cupti_err(r), r == CUPTI_ERROR_UNKNOWN ? " (no usable CUDA driver?)" : "");
	return -1;
}

/* The libcupti loaded may not be the one we were built with (torch's wheel
 * copy): read its records only if their layout is ours. */
static int check_layouts(void)
{
	cuptiGetVersion(&G.cupti_version);
	if (tixcap_layouts_known(G.cupti_version) || G.o.any_cupti)
		return 0;
	fprintf(stderr, "tixcap: pid %d: capture off: the libcupti loaded has API version "
	                "%u, this tix reads the record layouts of %u; misreading them could "
	                "crash the program (rebuild tix with that CUDA, or set "
	                "TIX_CAPTURE_ANY_CUPTI=1 to try)\n",
	        (int)G.pid, G.cupti_version, (unsigned)CUPTI_API_VERSION);
	return -1;
}

/* Buffers, their callbacks and the record kinds, in the order CUPTI wants
 * them: all before any context exists (we are inside cuInit). */
static int enable_records(void)
{
	CUptiResult r;
	if ((r = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM)) != CUPTI_SUCCESS)
		tixcap_note("cuptiSetThreadIdType: %s (thread ids are pthread ids)", tixcap_cupti_err(r));
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
		        (int)G.pid, tixcap_cupti_err(r));
		return -1;
	}
	/* The kernels of device-launched graphs are recorded only when asked
	 * before CUDA initialises (cuptiActivityEnableDeviceGraph,
	 * cupti_activity.h, CUDA 13.0); without it they would be missing
	 * without a word.  Their records say "device launched". */
	if ((r = cuptiActivityEnableDeviceGraph(1)) != CUPTI_SUCCESS)
		tixcap_note("the kernels of device-launched CUDA graphs are not recorded "
		            "(cuptiActivityEnableDeviceGraph: %s)", tixcap_cupti_err(r));
	/* Kernels from the start (enabling later stalls on code generation). */
	if ((r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) != CUPTI_SUCCESS) {
		fprintf(stderr, "tixcap: pid %d: capture off: enabling kernel records: %s\n",
		        (int)G.pid, tixcap_cupti_err(r));
		return -1;
	}
	static const CUpti_ActivityKind meta_kinds[] = {
		CUPTI_ACTIVITY_KIND_DEVICE, CUPTI_ACTIVITY_KIND_MARKER, CUPTI_ACTIVITY_KIND_NAME,
	};
	for (size_t i = 0; i < sizeof meta_kinds / sizeof *meta_kinds; i++)
		if ((r = cuptiActivityEnable(meta_kinds[i])) != CUPTI_SUCCESS)
			tixcap_note("activity kind %d: %s", (int)meta_kinds[i], tixcap_cupti_err(r));
	if (!G.flush_safe) {
		/* CUPTI's own worker then hands back full buffers. */
		cuptiActivityFlushPeriod((uint32_t)G.o.flush_ms);
		fprintf(stderr, "tixcap: pid %d: libcupti 13.0.0 (CUDA 13.0 GA) can crash in "
		                "cuptiActivityFlushAll (fixed in 13.0 Update 1), so tix never calls it: "
		                "only full %zu MiB activity buffers are written, and the records of the "
		                "last ones are lost at exit (TIX_CAPTURE_GA_FLUSH=1 flushes anyway)\n",
		        (int)G.pid, G.o.buf_mb);
		tixcap_note("libcupti 13.0.0: never flushed (its cuptiActivityFlushAll could crash, "
		            "fixed in 13.0 Update 1): the records of its last partial buffers are "
		            "not in the journal");
	}
	return 0;
}

/* Window edges that come from timers or from the start, and the record
 * kinds they want now. */
static void start_windows(void)
{
	int windowed = G.o.delay_s > 0 || G.o.duration_s > 0 || G.o.nvtx[0] || G.o.profiler_api;
	tixcap_windows_init(&G.win, windowed);
	G.t_init = tixcap_now();
	G.clock_offset = G.t_init - tixcap_clock_ns(CLOCK_REALTIME);
	/* --nvtx: mechanism A of CUPTI.md 3.5 (all records on, rows outside
	 * windows dropped by the converter), because window edges come from
	 * inside NVTX callbacks, where enabling CUPTI kinds is not safe. */
	G.api_always = G.o.nvtx[0] != 0;
	CUptiResult r = tixcap_enable_callbacks();
	if (r != CUPTI_SUCCESS)
		tixcap_note("enabling callbacks: %s (some calls, NVTX ranges or CUDA graph events are "
		            "not followed: capture-time context may be missing%s)",
		            tixcap_cupti_err(r), windowed ? ", windows may not open" : "");
	if (windowed && G.o.delay_s <= 0 && !G.o.nvtx[0] && !G.o.profiler_api)
		tixcap_window_open(G.t_init); /* --duration alone: from now */
	tixcap_apply_api_kinds();
}

static int open_journal(void)
{
	struct tixj_header h = {0};
	h.pid = (uint32_t)G.pid;
	h.start_ns = G.t_init;
	h.realtime_ns = tixcap_clock_ns(CLOCK_REALTIME);
	h.monotonic_ns = tixcap_clock_ns(CLOCK_MONOTONIC);
	h.cupti_version = G.cupti_version;
	h.cupti_build = CUPTI_API_VERSION;
	h.flush_ms = (uint32_t)G.o.flush_ms;
	h.flags = G.win.windowed ? TIXJ_HDR_WINDOWED : 0;
	gethostname(h.host, sizeof h.host - 1);
	char cmd[4096];
	size_t cmdlen;
	read_cmdline(cmd, sizeof cmd, &cmdlen);
	if (tixj_writer_init(&G.w, G.o.dir, &h, cmd, cmdlen) != 0 ||
	    tixcap_conv_init(&G.conv, &G.w, &G.win) != 0) {
		fprintf(stderr, "tixcap: pid %d: capture off: out of memory\n", (int)G.pid);
		return -1;
	}
	/* Records are never older than our start; a day of slack for clock
	 * steps.  Kineto's TSC ticks are far below it. */
	G.conv.t_floor = G.t_init - 86400 * 1000000000LL;
	if (h.cupti_version && h.cupti_version < CUPTI_API_VERSION)
		tixcap_note("libcupti API version %u is older than the build's %u", h.cupti_version,
		            (unsigned)CUPTI_API_VERSION);
	return 0;
}

static int start_threads(void)
{
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
	if (check_layouts() != 0)
		return -1;
	/* 13.0 GA: no cuptiActivityFlushAll at all (CUPTI_13_0_GA) */
	G.flush_safe = G.cupti_version != CUPTI_13_0_GA || G.o.ga_flush;
	pool_size(&G.o, G.flush_safe);
	if (subscribe() != 0 || enable_records() != 0)
		return -1;
	start_windows();
	if (open_journal() != 0)
		return -1;
	check_nvtx_route();
	return start_threads();
}

/* Undo what start() did, so CUPTI costs nothing more. */
static void give_up(void)
{
	if (G.subscribed) {
		if (G.flush_safe) /* 13.0 GA could deadlock here */
			cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
		cuptiUnsubscribe(G.sub);
		G.subscribed = 0;
	}
	/* The pool stays mapped: CUPTI may still hold one of its buffers. */
}

EXPORT int InitializeInjection(void)
{
	int untouched = ST_UNTOUCHED;
	/* libcuda may call us more than once (CUPTI.md 1.1). */
	if (!atomic_compare_exchange_strong(&tixcap_phase, &untouched, ST_CAPTURING))
		return 1;
	if (start() != 0) {
		tixcap_phase = ST_OFF;
		give_up();
	}
	return 1; /* never fail cuInit: the program runs, traced or not */
}
