/*
 * tests/capture/fake_cupti.c: a stand-in libcupti.so.13 that plays a CUDA
 * program, so libtixcap.so runs end to end without a GPU: its subscribe,
 * callbacks, buffer pool, flush and writer threads, atexit and journal.
 * Owner: cupti_capture.  Loaded through LD_LIBRARY_PATH by
 * test_inject_fake, which calls tixfake_run() to play the program.
 *
 * It behaves as CUPTI 13 does where tix depends on it:
 *   - records only of the kinds and API cbids tix enabled, laid out as
 *     CUPTI lays them, handed back on cuptiActivityFlushAll;
 *   - callbacks only for the cbids and domains tix enabled, on the
 *     program's thread, inside the call (GRAPHNODE_CREATED inside the
 *     launch being captured; CLONED inside instantiation, after a CREATED
 *     for the same node, which is how the CUPTI sample says instantiation
 *     reports its copies);
 *   - its clock advances (CLOCK_REALTIME ns);
 *   - cuptiActivityGetNumDroppedRecords says "since the last call";
 *   - nvcc 13's <<<>>> launches are cbid 505 (__cudaLaunchKernel_v13000).
 * And, on request, what goes wrong on real machines: dropped records,
 * Kineto's takeover (its own buffer callbacks, a TSC clock, kinds disabled
 * when it stops), the 13.0 GA version number, a newer one.
 *
 * The program is the shape of tests/gpu/e2e_decode.cu: steps of
 * step[DECODE bs=1] > 78 x (layer.NN > aten::to > aten::_to_copy >
 * aten::copy_ > launch of the cast), eager or replayed from a CUDA graph
 * captured once before the steps, inside nvtxRangeStart("decode_window").
 */
#define CAPTURE_TEST_CUPTI
#define CAPTURE_TEST_NO_JOURNAL
#include "tests/capture/capture_test.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>
#include <generated_nvtx_meta.h>

#define OK return CUPTI_SUCCESS

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static CUpti_BuffersCallbackRequestFunc req;
static CUpti_BuffersCallbackCompleteFunc done;
static CUpti_CallbackFunc cb;
static int nvtx_domain;
static uint8_t cb_on[8][1024];         /* [domain][cbid] */
static uint8_t kind_on[64];
static uint8_t rt_on[1024], drv_on[1024]; /* API records by cbid */
static int tsc_clock;                  /* Kineto's clock */
static size_t pending_dropped;
static uint8_t *cur;                   /* the buffer being filled */
static size_t cur_size, cur_fill;

struct tixfake_stats tixfake_stats; /* what the test reads back */

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(tsc_clock ? CLOCK_MONOTONIC : CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint32_t version(void)
{
	const char *v = getenv("FAKE_CUPTI_VERSION");
	return v && *v ? (uint32_t)strtoul(v, NULL, 10) : CUPTI_API_VERSION;
}

/* ---- the CUPTI API libtixcap.so calls ---- */

CUptiResult cuptiSubscribe_v2(CUpti_SubscriberHandle *s, CUpti_CallbackFunc f, void *u,
                              CUpti_SubscriberParams *p)
{
	*s = (CUpti_SubscriberHandle)1;
	cb = f;
	OK;
}
CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle s) { cb = NULL; OK; }
CUptiResult cuptiSetThreadIdType(CUpti_ActivityThreadIdType t) { OK; }
CUptiResult cuptiActivitySetAttribute(CUpti_ActivityAttribute a, size_t *s, void *v) { OK; }
CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc r,
                                           CUpti_BuffersCallbackCompleteFunc d)
{
	pthread_mutex_lock(&mu);
	req = r;
	done = d;
	pthread_mutex_unlock(&mu);
	OK;
}
CUptiResult cuptiActivityEnable(CUpti_ActivityKind k) { kind_on[k & 63] = 1; OK; }
CUptiResult cuptiActivityDisable(CUpti_ActivityKind k) { kind_on[k & 63] = 0; OK; }
CUptiResult cuptiActivityEnableRuntimeApi(CUpti_CallbackId c, uint8_t e) { rt_on[c & 1023] = e; OK; }
CUptiResult cuptiActivityEnableDriverApi(CUpti_CallbackId c, uint8_t e) { drv_on[c & 1023] = e; OK; }
CUptiResult cuptiActivityFlushPeriod(uint32_t ms) { tixfake_stats.flush_period_ms = (int)ms; OK; }
CUptiResult cuptiEnableCallback(uint32_t e, CUpti_SubscriberHandle s, CUpti_CallbackDomain d,
                                CUpti_CallbackId c)
{
	cb_on[d & 7][c & 1023] = (uint8_t)e;
	OK;
}
CUptiResult cuptiEnableDomain(uint32_t e, CUpti_SubscriberHandle s, CUpti_CallbackDomain d)
{
	if (d == CUPTI_CB_DOMAIN_NVTX)
		nvtx_domain = (int)e;
	OK;
}
/* A node or graph handle is its id: the program below makes them so. */
CUptiResult cuptiGetGraphNodeId(CUgraphNode n, uint64_t *id) { *id = (uint64_t)(uintptr_t)n; OK; }
CUptiResult cuptiGetGraphId(CUgraph g, uint32_t *id) { *id = (uint32_t)(uintptr_t)g; OK; }
CUptiResult cuptiGetVersion(uint32_t *v) { *v = version(); OK; }
CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext c, uint32_t s, size_t *n)
{
	pthread_mutex_lock(&mu);
	*n = c ? 0 : pending_dropped; /* the program's records go to the global queue */
	if (!c)
		pending_dropped = 0; /* "since the last call" */
	pthread_mutex_unlock(&mu);
	OK;
}
CUptiResult cuptiGetResultString(CUptiResult r, const char **s) { *s = "FAKE"; OK; }
CUptiResult cuptiGetTimestamp(uint64_t *t) { *t = (uint64_t)now_ns(); OK; }
CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain d, uint32_t cbid, const char **name)
{
	static const struct { uint32_t cbid; const char *name; } rt[] = {
		{CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, "__cudaLaunchKernel_v13000"},
		{CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel_v7000"},
		{CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, "cudaGraphLaunch_v10000"},
		{CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, "cudaMemcpyAsync_v3020"},
		{CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020, "cudaMemsetAsync_v3020"},
		{CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, "cudaStreamSynchronize_v3020"},
		{CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiate_v12000, "cudaGraphInstantiate_v12000"},
	};
	*name = "unknownCall_v1";
	for (size_t i = 0; d == CUPTI_CB_DOMAIN_RUNTIME_API && i < sizeof rt / sizeof *rt; i++)
		if (rt[i].cbid == cbid)
			*name = rt[i].name;
	OK;
}

static size_t rec_size(CUpti_ActivityKind k)
{
	switch (k) {
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return sizeof(CUpti_ActivityKernel10);
	case CUPTI_ACTIVITY_KIND_RUNTIME:
	case CUPTI_ACTIVITY_KIND_DRIVER: return sizeof(CUpti_ActivityAPI);
	case CUPTI_ACTIVITY_KIND_MARKER: return sizeof(CUpti_ActivityMarker2);
	case CUPTI_ACTIVITY_KIND_MEMCPY: return sizeof(CUpti_ActivityMemcpy6);
	case CUPTI_ACTIVITY_KIND_MEMSET: return sizeof(CUpti_ActivityMemset4);
	case CUPTI_ACTIVITY_KIND_DEVICE: return sizeof(CUpti_ActivityDevice5);
	case CUPTI_ACTIVITY_KIND_NAME: return sizeof(CUpti_ActivityName);
	case CUPTI_ACTIVITY_KIND_OVERHEAD: return sizeof(CUpti_ActivityOverhead3);
	default: return 0;
	}
}

CUptiResult cuptiActivityGetNextRecord(uint8_t *buf, size_t valid, CUpti_Activity **rec)
{
	uint8_t *p = *rec ? (uint8_t *)*rec + ((rec_size((*rec)->kind) + 7) & ~(size_t)7) : buf;
	if (p >= buf + valid || rec_size(((CUpti_Activity *)p)->kind) == 0)
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	*rec = (CUpti_Activity *)p;
	OK;
}

/* Hands the buffer being filled back (caller holds mu). */
static void complete_locked(void)
{
	if (cur && done)
		done(NULL, 0, cur, cur_size, cur_fill);
	cur = NULL;
	cur_fill = 0;
}

CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
	pthread_mutex_lock(&mu);
	if (flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)
		tixfake_stats.flushes_forced++;
	else
		tixfake_stats.flushes_plain++;
	complete_locked();
	pthread_mutex_unlock(&mu);
	OK;
}

/* Kineto calls the NVTX entry of the libcupti it loaded; tix hands over
 * to ours. */
int InitializeInjectionNvtx2(const void *(*get_table)(uint32_t))
{
	tixfake_stats.nvtx_table = (const void *)get_table;
	return 1;
}

/* ---- records ---- */

static void emit(const void *rec, size_t size)
{
	size_t need = (size + 7) & ~(size_t)7;
	pthread_mutex_lock(&mu);
	if (cur && cur_fill + need > cur_size)
		complete_locked();
	if (!cur && req) {
		size_t max = 0;
		req(&cur, &cur_size, &max);
		cur_fill = 0;
		if (!cur)
			tixfake_stats.refused++;
	}
	if (cur && cur_fill + need <= cur_size) {
		memset(cur + cur_fill, 0, need);
		memcpy(cur + cur_fill, rec, size);
		cur_fill += need;
		tixfake_stats.records++;
	} else {
		pending_dropped++;
	}
	pthread_mutex_unlock(&mu);
}

static uint32_t tid(void) { return (uint32_t)syscall(SYS_gettid); }

static void marker(uint32_t flags, uint32_t id, const char *name)
{
	if (!kind_on[CUPTI_ACTIVITY_KIND_MARKER])
		return;
	CUpti_ActivityMarker2 m;
	memset(&m, 0, sizeof m);
	m.kind = CUPTI_ACTIVITY_KIND_MARKER;
	m.flags = (CUpti_ActivityFlag)flags;
	m.timestamp = (uint64_t)now_ns();
	m.id = id;
	m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	m.objectId.pt.processId = (uint32_t)getpid();
	m.objectId.pt.threadId = tid();
	m.name = name;
	emit(&m, sizeof m);
}

/* ---- the program's calls, as CUPTI sees them ---- */

static uint32_t next_corr = 100, next_marker = 1;
static uint32_t stack_ids[64];
static int depth;

static void nvtx_push(const char *name)
{
	if (nvtx_domain && cb) {
		nvtxRangePushA_params p = {name};
		int ret = depth;
		CUpti_NvtxData d = {"nvtxRangePushA", &p, &ret};
		cb(NULL, CUPTI_CB_DOMAIN_NVTX, CUPTI_CBID_NVTX_nvtxRangePushA, &d);
	}
	stack_ids[depth++] = next_marker;
	marker(CUPTI_ACTIVITY_FLAG_MARKER_START, next_marker++, name);
}

static void nvtx_pop(void)
{
	if (nvtx_domain && cb) {
		int ret = depth;
		CUpti_NvtxData d = {"nvtxRangePop", NULL, &ret}; /* no parameters */
		cb(NULL, CUPTI_CB_DOMAIN_NVTX, CUPTI_CBID_NVTX_nvtxRangePop, &d);
	}
	marker(CUPTI_ACTIVITY_FLAG_MARKER_END, stack_ids[--depth], NULL);
}

typedef void (*inside_fn)(uint32_t corr, void *arg);

/* One API call: ENTER callback, what happens inside, EXIT callback, and
 * its record when that cbid's records are on. */
static uint32_t api(CUpti_CallbackDomain dom, uint32_t cbid, const char *fname, inside_fn in,
                    void *arg)
{
	uint32_t corr = next_corr++;
	int64_t t0 = now_ns();
	CUpti_CallbackData d;
	memset(&d, 0, sizeof d);
	d.functionName = fname;
	d.correlationId = corr;
	int call = cb && cb_on[dom & 7][cbid & 1023];
	if (call) {
		d.callbackSite = CUPTI_API_ENTER;
		cb(NULL, dom, cbid, &d);
	}
	if (in)
		in(corr, arg);
	if (call) {
		d.callbackSite = CUPTI_API_EXIT;
		cb(NULL, dom, cbid, &d);
	}
	int rec = dom == CUPTI_CB_DOMAIN_RUNTIME_API ? rt_on[cbid & 1023] : drv_on[cbid & 1023];
	if (rec) {
		CUpti_ActivityAPI a;
		memset(&a, 0, sizeof a);
		a.kind = dom == CUPTI_CB_DOMAIN_RUNTIME_API ? CUPTI_ACTIVITY_KIND_RUNTIME
		                                            : CUPTI_ACTIVITY_KIND_DRIVER;
		a.cbid = cbid;
		a.start = (uint64_t)t0;
		a.end = (uint64_t)now_ns();
		a.processId = (uint32_t)getpid();
		a.threadId = tid();
		a.correlationId = corr;
		emit(&a, sizeof a);
	}
	return corr;
}

static int drop_next;               /* kernel records lost to "no buffer space" */

static void kernel(uint32_t corr, uint32_t graph, uint64_t node)
{
	if (!kind_on[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL])
		return;
	if (drop_next > 0) {
		drop_next--;
		pthread_mutex_lock(&mu);
		pending_dropped++;
		pthread_mutex_unlock(&mu);
		return;
	}
	static const char name[] = STORY_KERNEL;
	CUpti_ActivityKernel10 k;
	memset(&k, 0, sizeof k);
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.registersPerThread = 14;
	k.start = (uint64_t)now_ns() + 1000;
	k.end = k.start + 200000;
	k.contextId = 1;
	k.streamId = 13;
	k.gridX = 557496;
	k.gridY = k.gridZ = 1;
	k.blockX = 128;
	k.blockY = k.blockZ = 1;
	k.correlationId = corr;
	k.name = name;
	k.graphId = graph;
	k.graphNodeId = node;
	emit(&k, sizeof k);
}

static void resource(CUpti_CallbackId cbid, uint64_t node, uint64_t orig)
{
	if (!cb || !cb_on[CUPTI_CB_DOMAIN_RESOURCE][cbid])
		return;
	CUpti_GraphData g;
	memset(&g, 0, sizeof g);
	g.graph = (CUgraph)(uintptr_t)(node >> 32);
	g.node = (CUgraphNode)(uintptr_t)node;
	g.originalNode = (CUgraphNode)(uintptr_t)orig;
	g.nodeType = CU_GRAPH_NODE_TYPE_KERNEL;
	CUpti_ResourceData rd;
	memset(&rd, 0, sizeof rd);
	rd.resourceDescriptor = &g;
	cb(NULL, CUPTI_CB_DOMAIN_RESOURCE, cbid, &rd);
}

#define LAYERS 78
#define CAPTURED(l) ((1ull << 32) | (uint64_t)(0x100 + (l))) /* graph 1 */
#define INSTANCE(l) ((2ull << 32) | (uint64_t)(0x100 + (l))) /* graph 2: the exec copy */

struct prog { int graph, steps, prof_a, prof_b, drop_at, drop_n, kineto_at, steal_at; };
static int capturing;

static void in_launch(uint32_t corr, void *arg)
{
	int l = *(int *)arg;
	if (capturing)
		resource(CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED, CAPTURED(l), 0);
	else
		kernel(corr, 0, 0);
}

static void layers(void)
{
	static char names[LAYERS][24];
	for (int l = 0; l < LAYERS; l++) {
		snprintf(names[l], sizeof names[l], "layer.%02d", l);
		nvtx_push(names[l]);
		nvtx_push("aten::to");
		nvtx_push("aten::_to_copy");
		nvtx_push("aten::copy_");
		api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
		    "__cudaLaunchKernel", in_launch, &l);
		nvtx_pop();
		nvtx_pop();
		nvtx_pop();
		nvtx_pop();
	}
}

static void in_instantiate(uint32_t corr, void *arg)
{
	for (int l = 0; l < LAYERS; l++) {
		resource(CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED, INSTANCE(l), 0);
		resource(CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED, INSTANCE(l), CAPTURED(l));
	}
}

static void in_graph_launch(uint32_t corr, void *arg)
{
	for (int l = 0; l < LAYERS; l++)
		kernel(corr, 2, INSTANCE(l));
}

static void profiler(uint32_t cbid)
{
	api(CUPTI_CB_DOMAIN_DRIVER_API, cbid, "cuProfiler", NULL, NULL);
}

/* What Kineto does when torch.profiler starts in a process tix holds. */
static void kineto_clock(void) { tsc_clock = 1; }
static void CUPTIAPI kineto_req(uint8_t **b, size_t *s, size_t *m)
{
	static uint8_t kbuf[1 << 16];
	*b = kbuf;
	*s = sizeof kbuf;
	*m = 0;
}
static void CUPTIAPI kineto_done(CUcontext c, uint32_t s, uint8_t *b, size_t size, size_t v) {}
static void kineto_callbacks(void)
{
	pthread_mutex_lock(&mu);
	complete_locked(); /* what was ours is delivered to us */
	req = kineto_req;
	done = kineto_done;
	pthread_mutex_unlock(&mu);
}

static void parse(const char *spec, struct prog *p)
{
	memset(p, 0, sizeof *p);
	p->steps = 3;
	p->prof_a = p->prof_b = p->drop_at = p->kineto_at = p->steal_at = -1;
	const char *s;
	p->graph = strstr(spec, "graph") != NULL;
	if ((s = strstr(spec, "steps=")))
		p->steps = atoi(s + 6);
	if ((s = strstr(spec, "profile=")))
		sscanf(s + 8, "%d:%d", &p->prof_a, &p->prof_b);
	if ((s = strstr(spec, "drop=")))
		sscanf(s + 5, "%d:%d", &p->drop_at, &p->drop_n);
	if ((s = strstr(spec, "kineto=")))
		p->kineto_at = atoi(s + 7);
	if ((s = strstr(spec, "steal=")))
		p->steal_at = atoi(s + 6);
}

/* Plays the program on the calling thread.  spec: "eager|graph steps=N
 * [profile=A:B] [drop=STEP:N] [kineto=STEP] [steal=STEP]". */
void tixfake_run(const char *spec)
{
	struct prog p;
	parse(spec, &p);
	/* what CUPTI reports once a context exists */
	if (kind_on[CUPTI_ACTIVITY_KIND_DEVICE]) {
		CUpti_ActivityDevice5 d;
		memset(&d, 0, sizeof d);
		d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
		d.name = "NVIDIA H200";
		d.computeCapabilityMajor = 9;
		d.numMultiprocessors = 132;
		emit(&d, sizeof d);
	}
	if (kind_on[CUPTI_ACTIVITY_KIND_NAME]) {
		CUpti_ActivityName n;
		memset(&n, 0, sizeof n);
		n.kind = CUPTI_ACTIVITY_KIND_NAME;
		n.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
		n.objectId.pt.threadId = tid();
		n.name = "scheduler";
		emit(&n, sizeof n);
	}
	if (p.graph) {
		capturing = 1; /* cudaStreamBeginCapture .. EndCapture */
		layers();
		capturing = 0;
		api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiate_v12000,
		    "cudaGraphInstantiate", in_instantiate, NULL);
	}
	uint32_t window = next_marker++;
	marker(CUPTI_ACTIVITY_FLAG_MARKER_START, window, "decode_window"); /* nvtxRangeStartA */
	for (int st = 0; st < p.steps; st++) {
		if (st == p.prof_a)
			profiler(CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
		if (st == p.drop_at)
			drop_next = p.drop_n;
		if (st == p.kineto_at)
			kineto_clock();
		if ((p.kineto_at >= 0 && st == p.kineto_at + 1) || st == p.steal_at)
			kineto_callbacks();
		nvtx_push("step[DECODE bs=1]");
		api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
		    "cudaMemcpyAsync", NULL, NULL);
		if (p.graph)
			api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
			    "cudaGraphLaunch", in_graph_launch, NULL);
		else
			layers();
		api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
		    "cudaStreamSynchronize", NULL, NULL);
		nvtx_pop();
		if (st == p.prof_b)
			profiler(CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
		usleep(5000); /* a step of GPU time: the flush thread runs meanwhile */
	}
	marker(CUPTI_ACTIVITY_FLAG_MARKER_END, window, NULL);
	if (p.kineto_at >= 0) /* Kineto stops: kernel and API records off */
		kind_on[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL] = 0;
	if (p.steal_at >= 0) {
		/* keep launching while the records go elsewhere, for 60 of tix's
		 * flushes (it speaks up after 40), however slow the machine */
		int start = tixfake_stats.flushes_plain;
		for (int i = 0; i < 2000 && tixfake_stats.flushes_plain - start < 60; i++) {
			int l = 0;
			api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
			    "__cudaLaunchKernel", in_launch, &l);
			usleep(10000);
		}
	}
}
