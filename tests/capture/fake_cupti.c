/*
 * tests/capture/fake_cupti.c: a stand-in libcupti.so.13, so libtixcap.so
 * runs end to end without a GPU: its subscribe, callbacks, buffer pool,
 * flush and writer threads, atexit and journal.  Owner: cupti_capture.
 * Loaded through LD_LIBRARY_PATH by test_inject_fake (and by the GPU
 * script's rehearsal, tests/capture/gpu_standin.c), which call
 * tixfake_run() (fake_program.c) to play a program.
 *
 * It behaves as CUPTI 13 does where tix depends on it (cupti_activity.h,
 * cupti_callbacks.h, CUDA 13.0):
 *   - records only of the kinds and API cbids tix enabled, laid out as
 *     CUPTI lays them; API, NVTX, device and name records in the calling
 *     thread's buffer, GPU records (kernels, copies) in another, so their
 *     buffers come back in either order; cuptiActivityFlushAll(0) hands
 *     back a GPU buffer only once every record in it is complete (its work
 *     ended), the forced flush every buffer; at a flush the GPU's comes
 *     back first;
 *   - buffers are checked to be zeroed whole when tix said it zeroes them
 *     (CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER), and CUPTI writes
 *     past the valid bytes it reports (a record begun, not completed);
 *   - callbacks only for the cbids and domains tix enabled, on the
 *     program's thread, inside the call; the enable calls made from inside
 *     an NVTX callback are counted (tix must make none);
 *   - its clock advances (CLOCK_REALTIME ns); dropped records are "since
 *     the last call"; cuptiActivityEnableDeviceGraph is counted as called
 *     before or after kernel records were enabled.
 * FAKE_CUPTI_VERSION sets the API version, FAKE_CUPTI_FAIL=NAME makes the
 * call NAME fail (CUPTI_ERROR_NOT_SUPPORTED).
 */
#include "tests/capture/fake_cupti.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define OK return CUPTI_SUCCESS

struct tixfake_stats tixfake_stats;
CUpti_CallbackFunc fake_cb;
uint8_t fake_kind_on[64];
int fake_tsc_clock;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static CUpti_BuffersCallbackRequestFunc req;
static CUpti_BuffersCallbackCompleteFunc done;
static int nvtx_domain, zeroed;
static uint8_t cb_on[8][1024];            /* [domain][cbid] */
static uint8_t rt_on[1024], drv_on[1024]; /* API records by cbid */
static size_t pending_dropped;
static _Thread_local int in_nvtx;

struct fbuf { uint8_t *p; size_t size, fill; int64_t max_end; };
static struct fbuf thread_buf, gpu_buf;

int64_t fake_now(void)
{
	struct timespec ts;
	clock_gettime(fake_tsc_clock ? CLOCK_MONOTONIC : CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint32_t version(void)
{
	const char *v = getenv("FAKE_CUPTI_VERSION");
	return v && *v ? (uint32_t)strtoul(v, NULL, 10) : CUPTI_API_VERSION;
}

static int fails(const char *name)
{
	const char *f = getenv("FAKE_CUPTI_FAIL");
	return f && !strcmp(f, name);
}

/* An enable or disable call: counted when made inside an NVTX callback. */
static void enabling(void)
{
	if (in_nvtx)
		tixfake_stats.enable_in_nvtx++;
}

int fake_cb_on(CUpti_CallbackDomain d, uint32_t cbid) { return fake_cb && cb_on[d & 7][cbid & 1023]; }
int fake_nvtx_on(void) { return fake_cb && nvtx_domain; }
int fake_records_on(CUpti_CallbackDomain d, uint32_t cbid)
{
	return d == CUPTI_CB_DOMAIN_RUNTIME_API ? rt_on[cbid & 1023] : drv_on[cbid & 1023];
}

void fake_nvtx_callback(CUpti_CallbackId cbid, const void *data)
{
	if (!fake_nvtx_on())
		return;
	in_nvtx = 1;
	fake_cb(NULL, CUPTI_CB_DOMAIN_NVTX, cbid, data);
	in_nvtx = 0;
}

/* ---- the CUPTI API libtixcap.so calls ---- */

CUptiResult cuptiSubscribe_v2(CUpti_SubscriberHandle *s, CUpti_CallbackFunc f, void *u,
                              CUpti_SubscriberParams *p)
{
	*s = (CUpti_SubscriberHandle)1;
	fake_cb = f;
	OK;
}
CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle s) { fake_cb = NULL; OK; }
CUptiResult cuptiSetThreadIdType(CUpti_ActivityThreadIdType t) { OK; }
CUptiResult cuptiActivitySetAttribute(CUpti_ActivityAttribute a, size_t *s, void *v)
{
	if (a == CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER && *s == 1)
		zeroed = *(uint8_t *)v != 0;
	OK;
}
CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc r,
                                           CUpti_BuffersCallbackCompleteFunc d)
{
	pthread_mutex_lock(&mu);
	req = r;
	done = d;
	pthread_mutex_unlock(&mu);
	OK;
}
CUptiResult cuptiActivityEnableDeviceGraph(uint8_t e)
{
	if (fails("cuptiActivityEnableDeviceGraph"))
		return CUPTI_ERROR_NOT_SUPPORTED;
	if (e)
		tixfake_stats.device_graph = fake_kind_on[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL] ? 2 : 1;
	OK;
}
CUptiResult cuptiActivityEnable(CUpti_ActivityKind k) { enabling(); fake_kind_on[k & 63] = 1; OK; }
CUptiResult cuptiActivityDisable(CUpti_ActivityKind k) { enabling(); fake_kind_on[k & 63] = 0; OK; }
CUptiResult cuptiActivityEnableRuntimeApi(CUpti_CallbackId c, uint8_t e)
{
	enabling();
	rt_on[c & 1023] = e;
	OK;
}
CUptiResult cuptiActivityEnableDriverApi(CUpti_CallbackId c, uint8_t e)
{
	enabling();
	drv_on[c & 1023] = e;
	OK;
}
CUptiResult cuptiActivityFlushPeriod(uint32_t ms) { tixfake_stats.flush_period_ms = (int)ms; OK; }
CUptiResult cuptiEnableCallback(uint32_t e, CUpti_SubscriberHandle s, CUpti_CallbackDomain d,
                                CUpti_CallbackId c)
{
	enabling();
	cb_on[d & 7][c & 1023] = (uint8_t)e;
	OK;
}
CUptiResult cuptiEnableDomain(uint32_t e, CUpti_SubscriberHandle s, CUpti_CallbackDomain d)
{
	enabling();
	if (d == CUPTI_CB_DOMAIN_NVTX)
		nvtx_domain = (int)e;
	OK;
}
/* A node, graph or executable graph handle is its id: the program makes them so. */
CUptiResult cuptiGetGraphNodeId(CUgraphNode n, uint64_t *id) { *id = (uint64_t)(uintptr_t)n; OK; }
CUptiResult cuptiGetGraphId(CUgraph g, uint32_t *id) { *id = (uint32_t)(uintptr_t)g; OK; }
CUptiResult cuptiGetGraphExecId(CUgraphExec g, uint32_t *id) { *id = (uint32_t)(uintptr_t)g; OK; }
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
CUptiResult cuptiGetTimestamp(uint64_t *t) { *t = (uint64_t)fake_now(); OK; }
CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain d, uint32_t cbid, const char **name)
{
#define RT(n) {CUPTI_RUNTIME_TRACE_CBID_##n, #n}
	static const struct { uint32_t cbid; const char *name; } rt[] = {
		RT(__cudaLaunchKernel_v13000), RT(cudaLaunchKernel_v7000), RT(cudaGraphLaunch_v10000),
		RT(cudaMemcpyAsync_v3020), RT(cudaMemsetAsync_v3020), RT(cudaStreamSynchronize_v3020),
		RT(cudaGraphInstantiate_v12000), RT(cudaGraphExecUpdate_v10020),
		RT(cudaGraphExecKernelNodeSetParams_v10010), RT(cudaMemcpyToSymbolAsync_v3020),
		RT(cudaMemcpyBatchAsync_v13000), RT(cudaLaunchHostFunc_v10000), RT(cudaEventRecord_v3020),
	};
#undef RT
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

/* ---- buffers ---- */

/* Hands b back (caller holds mu), with a record begun past its valid
 * bytes, as CUPTI may leave one. */
static void complete_locked(struct fbuf *b)
{
	if (b->p && done) {
		size_t tail = b->size - b->fill < 64 ? b->size - b->fill : 64;
		memset(b->p + b->fill, 0xab, tail);
		done(NULL, 0, b->p, b->size, b->fill);
	}
	b->p = NULL;
	b->fill = 0;
	b->max_end = 0;
}

CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
	pthread_mutex_lock(&mu);
	int forced = (flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) != 0;
	if (forced)
		tixfake_stats.flushes_forced++;
	else
		tixfake_stats.flushes_plain++;
	/* the GPU's buffer first, and only once its work has ended, unless forced */
	if (forced || gpu_buf.max_end <= fake_now())
		complete_locked(&gpu_buf);
	complete_locked(&thread_buf);
	pthread_mutex_unlock(&mu);
	OK;
}

/* Kineto calls the NVTX entries of the libcupti it loaded; tix hands over
 * to ours. */
int InitializeInjectionNvtx2(const void *(*get_table)(uint32_t))
{
	tixfake_stats.nvtx_table = (const void *)get_table;
	return 1;
}
int InitializeInjectionNvtxExtension(void *module_info)
{
	tixfake_stats.nvtx_ext = module_info;
	return 1;
}

static int all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

static void put(struct fbuf *b, const void *rec, size_t size, int64_t end)
{
	size_t need = (size + 7) & ~(size_t)7;
	pthread_mutex_lock(&mu);
	if (b->p && b->fill + need > b->size)
		complete_locked(b);
	if (!b->p && req) {
		size_t max = 0;
		req(&b->p, &b->size, &max);
		b->fill = 0;
		if (!b->p)
			tixfake_stats.refused++;
		else if (zeroed && !all_zero(b->p, b->size))
			tixfake_stats.dirty_buffers++;
	}
	if (b->p && b->fill + need <= b->size) {
		memset(b->p + b->fill, 0, need);
		memcpy(b->p + b->fill, rec, size);
		b->fill += need;
		if (end > b->max_end)
			b->max_end = end;
		tixfake_stats.records++;
	} else {
		pending_dropped++;
	}
	pthread_mutex_unlock(&mu);
}

void fake_emit(const void *rec, size_t size) { put(&thread_buf, rec, size, 0); }
void fake_emit_gpu(const void *rec, size_t size, int64_t end) { put(&gpu_buf, rec, size, end); }

void fake_count_dropped(void)
{
	pthread_mutex_lock(&mu);
	pending_dropped++;
	pthread_mutex_unlock(&mu);
}

static void CUPTIAPI kineto_req(uint8_t **b, size_t *s, size_t *m)
{
	static uint8_t kbuf[1 << 16];
	*b = kbuf;
	*s = sizeof kbuf;
	*m = 0;
}
static void CUPTIAPI kineto_done(CUcontext c, uint32_t s, uint8_t *b, size_t size, size_t v) {}

void fake_kineto_callbacks(void)
{
	pthread_mutex_lock(&mu);
	complete_locked(&gpu_buf); /* what was ours is delivered to us */
	complete_locked(&thread_buf);
	req = kineto_req;
	done = kineto_done;
	zeroed = 0; /* Kineto's buffer is its own business */
	pthread_mutex_unlock(&mu);
}
