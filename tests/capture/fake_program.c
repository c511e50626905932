/*
 * tests/capture/fake_program.c: the program the stand-in libcupti plays
 * (fake_cupti.c), as CUPTI would report it.  Owner: cupti_capture.
 *
 * The shape of tests/gpu/e2e_decode.cu: steps of step[DECODE bs=1] > 78 x
 * (layer.NN > aten::to > aten::_to_copy > aten::copy_ > launch of the
 * cast), eager or replayed from a CUDA graph captured once before the
 * steps, inside nvtxRangeStart("decode_window").  nvcc 13's <<<>>>
 * launches are cbid 505 (__cudaLaunchKernel_v13000).  Graph nodes are
 * reported as CUPTI's sample says: CREATED inside the launch being
 * captured; CREATED then CLONED for each copy inside instantiation.
 *
 * tixfake_run(spec) plays it on the calling thread; spec is "eager|graph
 * [steps=N] [profile=A:B] [drop=STEP:N] [kineto=STEP] [steal=STEP]
 * [late=MS] [calls] [domains] [update=STEP] [setparams=STEP:LAYER]
 * [progress]":
 *   profile   cudaProfilerStart before step A, Stop after step B
 *   drop      N kernel records of step STEP lost ("no buffer space")
 *   kineto    Kineto's takeover at STEP: its clock, then its callbacks
 *   steal     another client's buffer callbacks from STEP on
 *   late      kernels start MS ms after their launch (a queued GPU)
 *   calls     each step also copies to a symbol, records an event,
 *             launches a host function and a batch of two copies
 *   domains   each step opens a range in another NVTX domain around the
 *             step's push, closed right after it (domains nest apart)
 *   update    cudaGraphExecUpdate of the executable graph before STEP
 *   setparams cudaGraphExecKernelNodeSetParams of LAYER's node before STEP
 *   progress  prints {"step":i,"pid":p,"t_end_ns":realtime} after each step
 */
#include "tests/capture/fake_cupti.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>
#include <generated_nvtx_meta.h>

static uint32_t tid(void) { return (uint32_t)syscall(SYS_gettid); }

/* ---- NVTX ---- */

static void marker(uint32_t flags, uint32_t id, const char *name, const char *domain)
{
	if (!fake_kind_on[CUPTI_ACTIVITY_KIND_MARKER])
		return;
	CUpti_ActivityMarker2 m;
	memset(&m, 0, sizeof m);
	m.kind = CUPTI_ACTIVITY_KIND_MARKER;
	m.flags = (CUpti_ActivityFlag)flags;
	m.timestamp = (uint64_t)fake_now();
	m.id = id;
	m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	m.objectId.pt.processId = (uint32_t)getpid();
	m.objectId.pt.threadId = tid();
	m.name = name;
	m.domain = domain;
	fake_emit(&m, sizeof m);
}

static uint32_t next_corr = 100, next_marker = 1;
static uint32_t stack_ids[64];
static int depth;

static void nvtx_push(const char *name)
{
	nvtxRangePushA_params p = {name};
	int ret = depth;
	CUpti_NvtxData d = {"nvtxRangePushA", &p, &ret};
	fake_nvtx_callback(CUPTI_CBID_NVTX_nvtxRangePushA, &d);
	stack_ids[depth++] = next_marker;
	marker(CUPTI_ACTIVITY_FLAG_MARKER_START, next_marker++, name, NULL);
}

static void nvtx_pop(void)
{
	int ret = depth;
	CUpti_NvtxData d = {"nvtxRangePop", NULL, &ret}; /* no parameters */
	fake_nvtx_callback(CUPTI_CBID_NVTX_nvtxRangePop, &d);
	marker(CUPTI_ACTIVITY_FLAG_MARKER_END, stack_ids[--depth], NULL, NULL);
}

/* A range in another domain ("nvtxDomainRangePushEx(dom, ...)"). */
static const char other_domain[] = "tokenizer";
static nvtxDomainHandle_t other = (nvtxDomainHandle_t)(uintptr_t)0x5000;
static uint32_t other_id;

static void domain_push(const char *name)
{
	nvtxEventAttributes_t a;
	memset(&a, 0, sizeof a);
	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = name;
	nvtxDomainRangePushEx_params p;
	memset(&p, 0, sizeof p);
	p.domain = other;
	p.core.eventAttrib = &a;
	int ret = 0;
	CUpti_NvtxData d = {"nvtxDomainRangePushEx", &p, &ret};
	fake_nvtx_callback(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, &d);
	other_id = next_marker++;
	marker(CUPTI_ACTIVITY_FLAG_MARKER_START, other_id, name, other_domain);
}

static void domain_pop(void)
{
	nvtxDomainRangePop_params p = {other};
	int ret = 0;
	CUpti_NvtxData d = {"nvtxDomainRangePop", &p, &ret};
	fake_nvtx_callback(CUPTI_CBID_NVTX_nvtxDomainRangePop, &d);
	marker(CUPTI_ACTIVITY_FLAG_MARKER_END, other_id, NULL, other_domain);
}

/* ---- API calls ---- */

typedef void (*inside_fn)(uint32_t corr, void *arg);

/* One API call: ENTER callback, what happens inside, EXIT callback (with
 * params and a success return value), and its record when that cbid's
 * records are on. */
static uint32_t api(CUpti_CallbackDomain dom, uint32_t cbid, const char *fname, inside_fn in,
                    void *arg, const void *params)
{
	uint32_t corr = next_corr++;
	int64_t t0 = fake_now();
	int ret = 0; /* cudaSuccess, CUDA_SUCCESS */
	CUpti_CallbackData d;
	memset(&d, 0, sizeof d);
	d.functionName = fname;
	d.correlationId = corr;
	d.functionParams = params;
	d.functionReturnValue = &ret;
	int call = fake_cb_on(dom, cbid);
	if (call) {
		d.callbackSite = CUPTI_API_ENTER;
		fake_cb(NULL, dom, cbid, &d);
	}
	if (in)
		in(corr, arg);
	if (call) {
		d.callbackSite = CUPTI_API_EXIT;
		fake_cb(NULL, dom, cbid, &d);
	}
	if (fake_records_on(dom, cbid)) {
		CUpti_ActivityAPI a;
		memset(&a, 0, sizeof a);
		a.kind = dom == CUPTI_CB_DOMAIN_RUNTIME_API ? CUPTI_ACTIVITY_KIND_RUNTIME
		                                            : CUPTI_ACTIVITY_KIND_DRIVER;
		a.cbid = cbid;
		a.start = (uint64_t)t0;
		a.end = (uint64_t)fake_now();
		a.processId = (uint32_t)getpid();
		a.threadId = tid();
		a.correlationId = corr;
		fake_emit(&a, sizeof a);
	}
	return corr;
}

static uint32_t rt(uint32_t cbid, const char *fname, inside_fn in, void *arg, const void *params)
{
	return api(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, fname, in, arg, params);
}

/* ---- GPU work ---- */

static int drop_next;  /* kernel records lost to "no buffer space" */
static int64_t lag_ns; /* late=MS */

static void kernel(uint32_t corr, uint32_t graph, uint64_t node)
{
	if (!fake_kind_on[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL])
		return;
	if (drop_next > 0) {
		drop_next--;
		fake_count_dropped();
		return;
	}
	CUpti_ActivityKernel10 k;
	int64_t start = fake_now() + 1000 + lag_ns;
	story_kernel(&k, start, start + 200000, corr, graph, node);
	k.streamId = 13;
	fake_emit_gpu(&k, sizeof k, (int64_t)k.end);
}

static void copy(uint32_t corr, void *arg)
{
	if (!fake_kind_on[CUPTI_ACTIVITY_KIND_MEMCPY])
		return;
	int n = arg ? *(int *)arg : 1;
	for (int i = 0; i < n; i++) {
		CUpti_ActivityMemcpy6 m;
		memset(&m, 0, sizeof m);
		m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
		m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
		m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
		m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
		m.bytes = 64;
		m.start = (uint64_t)(fake_now() + 500);
		m.end = m.start + 1000;
		m.streamId = 13;
		m.correlationId = corr;
		fake_emit_gpu(&m, sizeof m, (int64_t)m.end);
	}
}

/* ---- graphs ---- */

static void resource(CUpti_CallbackId cbid, uint64_t node, uint64_t orig)
{
	if (!fake_cb_on(CUPTI_CB_DOMAIN_RESOURCE, cbid))
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
	fake_cb(NULL, CUPTI_CB_DOMAIN_RESOURCE, cbid, &rd);
}

#define LAYERS 78
#define CAPTURED(l) ((1ull << 32) | (uint64_t)(0x100 + (l))) /* graph 1 */
#define INSTANCE(l) ((2ull << 32) | (uint64_t)(0x100 + (l))) /* graph 2: the exec copy */
#define EXEC ((cudaGraphExec_t)(uintptr_t)0x2e)                /* its executable graph */

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
		rt(CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, "__cudaLaunchKernel", in_launch,
		   &l, NULL);
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

static void instantiate(void)
{
	static cudaGraphExec_t made;
	made = EXEC;
	cudaGraphInstantiate_v12000_params p = {&made, (cudaGraph_t)(uintptr_t)1, 0};
	rt(CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiate_v12000, "cudaGraphInstantiate",
	   in_instantiate, NULL, &p);
}

static void exec_update(void)
{
	cudaGraphExecUpdate_v10020_params p = {EXEC, (cudaGraph_t)(uintptr_t)3, NULL};
	rt(CUPTI_RUNTIME_TRACE_CBID_cudaGraphExecUpdate_v10020, "cudaGraphExecUpdate", NULL, NULL, &p);
}

static void node_set_params(int layer)
{
	cudaGraphExecKernelNodeSetParams_v10010_params p = {
		EXEC, (cudaGraphNode_t)(uintptr_t)CAPTURED(layer), NULL};
	rt(CUPTI_RUNTIME_TRACE_CBID_cudaGraphExecKernelNodeSetParams_v10010,
	   "cudaGraphExecKernelNodeSetParams", NULL, NULL, &p);
}

/* ---- what CUPTI reports once a context exists ---- */

static void context_records(void)
{
	if (fake_kind_on[CUPTI_ACTIVITY_KIND_DEVICE]) {
		CUpti_ActivityDevice5 d;
		memset(&d, 0, sizeof d);
		d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
		d.name = "NVIDIA H200";
		d.computeCapabilityMajor = 9;
		d.numMultiprocessors = 132;
		fake_emit(&d, sizeof d);
	}
	if (fake_kind_on[CUPTI_ACTIVITY_KIND_NAME]) {
		CUpti_ActivityName n;
		memset(&n, 0, sizeof n);
		n.kind = CUPTI_ACTIVITY_KIND_NAME;
		n.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
		n.objectId.pt.threadId = tid();
		n.name = "scheduler";
		fake_emit(&n, sizeof n);
	}
}

/* ---- the program ---- */

struct prog {
	int graph, steps, prof_a, prof_b, drop_at, drop_n, kineto_at, steal_at, calls, domains;
	int update_at, setparams_at, setparams_layer, progress;
};

static void parse(const char *spec, struct prog *p)
{
	memset(p, 0, sizeof *p);
	p->steps = 3;
	p->prof_a = p->prof_b = p->drop_at = p->kineto_at = p->steal_at = -1;
	p->update_at = p->setparams_at = -1;
	const char *s;
	p->graph = strstr(spec, "graph") != NULL;
	p->calls = strstr(spec, "calls") != NULL;
	p->domains = strstr(spec, "domains") != NULL;
	p->progress = strstr(spec, "progress") != NULL;
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
	if ((s = strstr(spec, "late=")))
		lag_ns = (int64_t)atoi(s + 5) * 1000000;
	if ((s = strstr(spec, "update=")))
		p->update_at = atoi(s + 7);
	if ((s = strstr(spec, "setparams=")))
		sscanf(s + 10, "%d:%d", &p->setparams_at, &p->setparams_layer);
}

static void profiler(uint32_t cbid)
{
	api(CUPTI_CB_DOMAIN_DRIVER_API, cbid, "cuProfiler", NULL, NULL, NULL);
}

/* The calls of `calls`: each of them must come with its API frame. */
static void other_calls(void)
{
	static int two = 2;
	rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbolAsync_v3020, "cudaMemcpyToSymbolAsync", copy,
	   NULL, NULL);
	rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyBatchAsync_v13000, "cudaMemcpyBatchAsync", copy, &two,
	   NULL);
	rt(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_v10000, "cudaLaunchHostFunc", NULL, NULL, NULL);
	rt(CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, "cudaEventRecord", NULL, NULL, NULL);
}

/* What happens to the program at the start of step st. */
static void before_step(const struct prog *p, int st)
{
	if (st == p->prof_a)
		profiler(CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
	if (st == p->drop_at)
		drop_next = p->drop_n;
	if (st == p->kineto_at)
		fake_tsc_clock = 1; /* what Kineto does when torch.profiler starts */
	if ((p->kineto_at >= 0 && st == p->kineto_at + 1) || st == p->steal_at)
		fake_kineto_callbacks();
	if (st == p->update_at)
		exec_update();
	if (st == p->setparams_at)
		node_set_params(p->setparams_layer);
}

static void step(const struct prog *p)
{
	if (p->domains)
		domain_push("detokenize");
	nvtx_push("step[DECODE bs=1]");
	if (p->domains)
		domain_pop(); /* another domain's range ends inside the step */
	rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, "cudaMemcpyAsync", NULL, NULL, NULL);
	if (p->graph)
		rt(CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, "cudaGraphLaunch", in_graph_launch,
		   NULL, NULL);
	else
		layers();
	if (p->calls)
		other_calls();
	rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, "cudaStreamSynchronize", NULL, NULL,
	   NULL);
	nvtx_pop();
}

/* Keeps launching while the records go elsewhere, for 60 of tix's flushes
 * (it speaks up after 40), however slow the machine. */
static void launch_while_stolen(void)
{
	int start = tixfake_stats.flushes_plain;
	for (int i = 0; i < 2000 && tixfake_stats.flushes_plain - start < 60; i++) {
		int l = 0;
		rt(CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, "__cudaLaunchKernel", in_launch,
		   &l, NULL);
		usleep(10000);
	}
}

void tixfake_run(const char *spec)
{
	struct prog p;
	parse(spec, &p);
	context_records();
	if (p.graph) {
		capturing = 1; /* cudaStreamBeginCapture .. EndCapture */
		layers();
		capturing = 0;
		instantiate();
	}
	uint32_t window = next_marker++;
	marker(CUPTI_ACTIVITY_FLAG_MARKER_START, window, "decode_window", NULL); /* nvtxRangeStartA */
	for (int st = 0; st < p.steps; st++) {
		before_step(&p, st);
		step(&p);
		if (st == p.prof_b)
			profiler(CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
		usleep(5000); /* a step of GPU time: the flush thread runs meanwhile */
		if (p.progress) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			printf("{\"step\":%d,\"pid\":%d,\"t_end_ns\":%lld}\n", st, (int)getpid(),
			       (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
			fflush(stdout);
		}
	}
	marker(CUPTI_ACTIVITY_FLAG_MARKER_END, window, NULL, NULL);
	if (p.kineto_at >= 0) /* Kineto stops: kernel and API records off */
		fake_kind_on[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL] = 0;
	if (p.steal_at >= 0)
		launch_while_stolen();
}
