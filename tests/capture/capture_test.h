/*
 * tests/capture/capture_test.h: helpers shared by the capture tests: a
 * recording tix_sink, CUPTI records fabricated the way CUPTI packs them
 * (8-byte aligned, back to back), and the reference "story" buffer.
 * Owner: cupti_capture.  Header-only so each test stays one .c file.
 */
#ifndef TIX_TESTS_CAPTURE_TEST_H
#define TIX_TESTS_CAPTURE_TEST_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/index.h"

/* Each test uses only some of these helpers. */
#pragma GCC diagnostic ignored "-Wunused-function"

static int t_failures __attribute__((unused));
#define CHECK(cond)                                                               \
	do {                                                                      \
		if (!(cond)) {                                                    \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
			t_failures++;                                             \
		}                                                                 \
	} while (0)
#define CHECK_EQ_INT(a, b)                                                        \
	do {                                                                      \
		long long a_ = (long long)(a), b_ = (long long)(b);               \
		if (a_ != b_) {                                                   \
			fprintf(stderr, "%s:%d: %s == %lld, want %lld\n", __FILE__, __LINE__, #a, a_, b_); \
			t_failures++;                                             \
		}                                                                 \
	} while (0)

/* ---- recording sink ---- */

struct rec_event {
	struct tix_event_in ev;     /* strings point into the copies below */
	char *name, *args, *cat;
	int has_launch;
	struct tix_launch_in launch;
	/* ev.captured, copied: frame names joined by " > ", their count, the
	 * kind of the innermost, the match and the source */
	char *captured, *capture_source;
	uint32_t nframes;
	enum tix_kind inner_kind;
	enum tix_capture_match match;
};
struct rec_sink {
	struct rec_event *ev;
	size_t n, cap;
	char meta[8][4096];
	char meta_key[8][64];
	size_t nmeta;
	char track[64][160];        /* "pid/tid key=value" */
	size_t ntrack;
	char warnings[4096];
	int64_t base;
};

static char *rec_dup(const char *p, size_t n)
{
	char *s = malloc(n + 1);
	memcpy(s, p ? p : "", n);
	s[n] = 0;
	return s;
}

static int rec_event(void *ctx, const struct tix_event_in *ev, struct tix_error *err)
{
	struct rec_sink *r = ctx;
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		r->ev = realloc(r->ev, r->cap * sizeof *r->ev);
	}
	struct rec_event *e = &r->ev[r->n++];
	memset(e, 0, sizeof *e);
	e->ev = *ev;
	e->name = rec_dup(ev->name.ptr, ev->name.len);
	e->args = rec_dup(ev->args.ptr, ev->args.len);
	e->cat = rec_dup(ev->cat.ptr, ev->cat.len);
	if (ev->launch) {
		e->has_launch = 1;
		e->launch = *ev->launch;
	}
	e->ev.launch = NULL;
	if (ev->captured) {
		const struct tix_capture_in *c = ev->captured;
		size_t len = 1;
		for (uint32_t i = 0; i < c->nframes; i++)
			len += c->frames[i].name.len + 3;
		e->captured = calloc(1, len);
		for (uint32_t i = 0; i < c->nframes; i++) {
			if (i)
				strcat(e->captured, " > ");
			strncat(e->captured, c->frames[i].name.ptr, c->frames[i].name.len);
		}
		e->nframes = c->nframes;
		e->inner_kind = c->nframes ? c->frames[c->nframes - 1].kind : TIX_KIND_OTHER;
		e->match = c->match;
		e->capture_source = rec_dup(c->source.ptr, c->source.len);
	}
	e->ev.captured = NULL;
	return 0;
}
static int rec_flow(void *ctx, const struct tix_flow_in *fl, struct tix_error *err) { return 0; }
static int rec_track(void *ctx, const struct tix_id *pid, const struct tix_id *tid,
                     enum tix_meta_key key, const char *value, size_t len, struct tix_error *err)
{
	struct rec_sink *r = ctx;
	if (r->ntrack < 64)
		snprintf(r->track[r->ntrack++], 160, "%lld/%lld %d=%.*s", (long long)pid->num,
		         (long long)tid->num, (int)key, (int)len, value);
	return 0;
}
static int rec_meta(void *ctx, struct tix_str key, struct tix_str json, struct tix_error *err)
{
	struct rec_sink *r = ctx;
	if (r->nmeta < 8) {
		snprintf(r->meta_key[r->nmeta], 64, "%.*s", (int)key.len, key.ptr);
		snprintf(r->meta[r->nmeta++], 4096, "%.*s", (int)json.len, json.ptr);
	}
	return 0;
}
static void rec_base(void *ctx, int64_t base) { ((struct rec_sink *)ctx)->base = base; }
static int rec_warn(void *ctx, const char *msg, struct tix_error *err)
{
	struct rec_sink *r = ctx;
	size_t l = strlen(r->warnings);
	snprintf(r->warnings + l, sizeof r->warnings - l, "%s%s", l ? "; " : "", msg);
	return 0;
}
static void rec_init(struct rec_sink *r, struct tix_sink *s)
{
	memset(r, 0, sizeof *r);
	*s = (struct tix_sink){r, rec_event, rec_flow, rec_track, rec_meta, rec_base, rec_warn, NULL, NULL};
}
static void rec_free(struct rec_sink *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->ev[i].name);
		free(r->ev[i].args);
		free(r->ev[i].cat);
		free(r->ev[i].captured);
		free(r->ev[i].capture_source);
	}
	free(r->ev);
	r->ev = NULL;
	r->n = r->cap = 0;
}
static const struct rec_event *rec_find(const struct rec_sink *r, enum tix_kind k,
                                        const char *name_prefix)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->ev[i].ev.kind == k &&
		    strncmp(r->ev[i].name, name_prefix, strlen(name_prefix)) == 0)
			return &r->ev[i];
	return NULL;
}
static size_t rec_count(const struct rec_sink *r, enum tix_kind k)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n; i++)
		n += r->ev[i].ev.kind == k;
	return n;
}

/* tix_error_set lives in index/; the capture tests that do not link the
 * index get this one (define CAPTURE_TEST_OWN_ERROR before including). */
#ifdef CAPTURE_TEST_OWN_ERROR
int tix_error_set(struct tix_error *err, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
	}
	return -1;
}
#endif

#ifdef CAPTURE_TEST_CUPTI
#include <cupti.h>

/* The reference story, in CUPTI time (epoch ns). */
#define STORY_T0 1700000000000000000LL
#define STORY_TID 4242u
#define STORY_PID 31337u
#define STORY_KERNEL "_ZN3sim27unrolled_elementwise_kernelINS_13CastFp8ToBf16ELi4EEEvmT_PK13__nv_fp8_e4m3P13__nv_bfloat16"
#define STORY_KERNEL_DEMANGLED "void sim::unrolled_elementwise_kernel<sim::CastFp8ToBf16, 4>(unsigned long, sim::CastFp8ToBf16, __nv_fp8_e4m3 const*, __nv_bfloat16*)"

/* What fake_cupti.c counts while the program runs, for test_inject_fake. */
struct tixfake_stats {
	int flushes_plain, flushes_forced, flush_period_ms;
	const void *nvtx_table;     /* what InitializeInjectionNvtx2 was given */
	const void *nvtx_ext;       /* what InitializeInjectionNvtxExtension was given */
	int records, refused;
	int dirty_buffers;          /* buffers handed over not all zero (the attribute was set) */
	int device_graph;           /* cuptiActivityEnableDeviceGraph(1): 1 before kernel
	                             * records were enabled, 2 after, 0 never */
	int enable_in_nvtx;         /* enable/disable calls made inside NVTX callbacks */
};

struct fab { uint8_t *p; size_t len, cap; };

/* Appends one record as CUPTI lays them: 8-byte aligned, back to back. */
static void *fab_add(struct fab *f, const void *rec, size_t size)
{
	size_t need = f->len + ((size + 7) & ~(size_t)7);
	if (need > f->cap) {
		f->cap = need * 2 + 4096;
		f->p = realloc(f->p, f->cap);
	}
	void *at = f->p + f->len;
	memset(at, 0, (size + 7) & ~(size_t)7);
	memcpy(at, rec, size);
	f->len = need;
	return at;
}

static void fab_marker(struct fab *f, uint32_t flags, uint32_t id, int64_t ts, const char *name)
{
	CUpti_ActivityMarker2 m;
	memset(&m, 0, sizeof m);
	m.kind = CUPTI_ACTIVITY_KIND_MARKER;
	m.flags = (CUpti_ActivityFlag)flags;
	m.timestamp = (uint64_t)ts;
	m.id = id;
	m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	m.objectId.pt.processId = STORY_PID;
	m.objectId.pt.threadId = STORY_TID;
	m.name = name;
	fab_add(f, &m, sizeof m);
}

static void fab_api(struct fab *f, CUpti_ActivityKind kind, uint32_t cbid, int64_t s, int64_t e,
                    uint32_t corr)
{
	CUpti_ActivityAPI a;
	memset(&a, 0, sizeof a);
	a.kind = kind;
	a.cbid = cbid;
	a.start = (uint64_t)s;
	a.end = (uint64_t)e;
	a.processId = STORY_PID;
	a.threadId = STORY_TID;
	a.correlationId = corr;
	fab_add(f, &a, sizeof a);
}

/* The story's cast as CUPTI records it: grid 557496, block 128, 14
 * registers, on stream 7. */
static void story_kernel(CUpti_ActivityKernel10 *k_out, int64_t s, int64_t e, uint32_t corr,
                         uint32_t graph_id, uint64_t node)
{
	CUpti_ActivityKernel10 k;
	memset(&k, 0, sizeof k);
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.registersPerThread = 14;
	k.start = (uint64_t)s;
	k.end = (uint64_t)e;
	k.deviceId = 0;
	k.contextId = 1;
	k.streamId = 7;
	k.gridX = 557496;
	k.gridY = k.gridZ = 1;
	k.blockX = 128;
	k.blockY = k.blockZ = 1;
	k.staticSharedMemory = 0;
	k.dynamicSharedMemory = 0;
	k.correlationId = corr;
	k.name = STORY_KERNEL;
	k.graphId = graph_id;
	k.graphNodeId = node;
	*k_out = k;
}

static void fab_kernel(struct fab *f, int64_t s, int64_t e, uint32_t corr, uint32_t graph_id,
                       uint64_t node)
{
	CUpti_ActivityKernel10 k;
	story_kernel(&k, s, e, corr, graph_id, node);
	fab_add(f, &k, sizeof k);
}

/* One decode step of the story: step > layer.00 > aten::to > aten::_to_copy
 * > aten::copy_ around a cudaLaunchKernel of the cast, plus a memcpy, a
 * memset, device and thread-name records, a kernel without timestamps and
 * a record kind the converter skips.  t: ns after STORY_T0. */
static void fab_story(struct fab *f)
{
	int64_t t = STORY_T0;
	CUpti_ActivityDevice5 d;
	memset(&d, 0, sizeof d);
	d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
	d.id = 0;
	d.name = "NVIDIA H200";
	d.computeCapabilityMajor = 9;
	d.numMultiprocessors = 132;
	d.globalMemorySize = 150ull << 30;
	fab_add(f, &d, sizeof d);
	CUpti_ActivityName n;
	memset(&n, 0, sizeof n);
	n.kind = CUPTI_ACTIVITY_KIND_NAME;
	n.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	n.objectId.pt.threadId = STORY_TID;
	n.name = "scheduler";
	fab_add(f, &n, sizeof n);

	fab_marker(f, CUPTI_ACTIVITY_FLAG_MARKER_START, 1, t + 1000, "step[DECODE bs=1]");
	CUpti_ActivityMemcpy6 mc;
	memset(&mc, 0, sizeof mc);
	mc.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	mc.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
	mc.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
	mc.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	mc.bytes = 4;
	mc.start = (uint64_t)(t + 1060);
	mc.end = (uint64_t)(t + 1070);
	mc.streamId = 7;
	mc.correlationId = 76;
	fab_api(f, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
	        t + 1040, t + 1050, 76);
	fab_add(f, &mc, sizeof mc);
	fab_marker(f, CUPTI_ACTIVITY_FLAG_MARKER_START, 2, t + 1100, "layer.00");
	fab_marker(f, CUPTI_ACTIVITY_FLAG_MARKER_START, 3, t + 1200, "aten::to");
	fab_marker(f, CUPTI_ACTIVITY_FLAG_MARKER_START, 4, t + 1300, "aten::_to_copy");
	fab_marker(f, CUPTI_ACTIVITY_FLAG_MARKER_START, 5, t + 1400, "aten::copy_");
	/* nvcc 13 compiles <<<...>>> into __cudaLaunchKernel (cbid 505) */
	fab_api(f, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
	        t + 1500, t + 1600, 77);
	fab_marker(f, CUPTI_ACTIVITY_FLAG_MARKER_END, 5, t + 1700, NULL);
	fab_marker(f, CUPTI_ACTIVITY_FLAG_MARKER_END, 4, t + 1800, NULL);
	fab_marker(f, CUPTI_ACTIVITY_FLAG_MARKER_END, 3, t + 1900, NULL);
	fab_marker(f, CUPTI_ACTIVITY_FLAG_MARKER_END, 2, t + 2000, NULL);
	fab_kernel(f, t + 2100, t + 2930, 77, 0, 0);
	CUpti_ActivityMemset4 ms;
	memset(&ms, 0, sizeof ms);
	ms.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	ms.bytes = 4;
	ms.start = (uint64_t)(t + 2950);
	ms.end = (uint64_t)(t + 2960);
	ms.streamId = 7;
	ms.correlationId = 78;
	ms.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	fab_api(f, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020,
	        t + 2010, t + 2020, 78);
	fab_add(f, &ms, sizeof ms);
	fab_api(f, CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
	        t + 2030, t + 2040, 79);
	fab_kernel(f, 0, 0, 80, 0, 0); /* device buffer was full: no timestamps */
	CUpti_ActivityOverhead3 o;
	memset(&o, 0, sizeof o);
	o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
	fab_add(f, &o, sizeof o);
	fab_marker(f, CUPTI_ACTIVITY_FLAG_MARKER_END, 1, t + 3000, NULL);
	/* A CUDA-graph replay: launched by cudaGraphLaunch, node 0x100000002. */
	fab_api(f, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
	        t + 3100, t + 3200, 90);
	fab_kernel(f, t + 3300, t + 4100, 90, 5, 0x100000002ull);
}
#ifndef CAPTURE_TEST_NO_JOURNAL
#include "cupti_capture/convert.h"
#include "cupti_capture/journal.h"

/* Converts buffer f into a journal in dir (windows may be NULL); with
 * graph, adds the graph-node rows the resource callbacks would journal
 * for the replayed kernel of fab_story. */
static void journal_from(struct fab *f, const char *dir, struct tixcap_windows *win, int graph,
                         char *path_out, size_t cap)
{
	struct tixj_header h = {.pid = STORY_PID, .start_ns = STORY_T0, .flush_ms = 250};
	snprintf(h.host, sizeof h.host, "testhost");
	static const char cmd[] = "python3\0-m\0sglang.launch_server\0";
	struct tixj_writer w;
	CHECK(tixj_writer_init(&w, dir, &h, cmd, sizeof cmd - 1) == 0);
	struct tixcap_conv c;
	CHECK(tixcap_conv_init(&c, &w, win) == 0);
	if (graph) {
		/* What the resource callbacks journal: the node made while the
		 * cast's launch was captured, with the NVTX ranges open then and
		 * that launch call; then its copy made by instantiation, whose id
		 * the replayed kernel carries. */
		static const char frames[] = "step[DECODE bs=1]\0layer.00\0aten::to\0aten::_to_copy\0"
		                             "aten::copy_";
		struct tixj_graph_node made = {
			.node_id = 0x100000001ull, .ts = STORY_T0 + 1450, .graph_id = 5,
			.tid = STORY_TID, .how = TIXJ_G_CREATED,
			.frames = tixj_intern(&w, frames, sizeof frames),
			.api = tixcap_conv_api_name(&c, 0, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000),
			.correlation = 60, .cbid = CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
			.domain = TIXJ_API_RUNTIME,
		};
		struct tixj_graph_node cloned = {
			.node_id = 0x100000002ull, .orig_node_id = 0x100000001ull, .ts = STORY_T0 + 3050,
			.graph_id = 5, .tid = STORY_TID, .how = TIXJ_G_CLONED, .frames = TIXJ_NONE,
			.api = TIXJ_NONE,
		};
		tixj_add(&w, TIXJ_GRAPH_NODES, &made, made.ts, made.ts);
		tixj_add(&w, TIXJ_GRAPH_NODES, &cloned, cloned.ts, cloned.ts);
	}
	size_t rows = tixcap_conv_buffer(&c, f->p, f->len);
	CHECK(rows > 0);
	CHECK(tixcap_conv_buffer(&c, f->p, 0) == 0); /* validSize 0 */
	CHECK(tixj_flush(&w) == 0);
	snprintf(path_out, cap, "%s", w.path);
	tixj_writer_close(&w, &c.drops);
	tixcap_conv_done(&c);
}

#endif /* CAPTURE_TEST_NO_JOURNAL */
#endif /* CAPTURE_TEST_CUPTI */

#endif /* TIX_TESTS_CAPTURE_TEST_H */
