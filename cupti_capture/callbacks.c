/*
 * cupti_capture/callbacks.c: what libtixcap.so does on application threads,
 * inside the calls CUPTI reports.  Owner: cupti_capture.  Facts it relies
 * on: ../shared/CUPTI.md (1.2 NVTX, 3.5 windows, 3.6 graphs).
 *
 * Every handler here runs inside someone else's CUDA or NVTX call, so it
 * makes no CUPTI enable/disable call (the one exception is the
 * cuProfilerStart window edge, see inject.c), takes no lock that a CUPTI
 * call is made under, allocates only on rare paths, and never blocks.
 *
 * Per thread it keeps two facts, for the moment a CUDA graph node is made:
 *   - the NVTX push/pop ranges open (names copied: the program may free
 *     its strings after the push);
 *   - the outermost API call in progress (a runtime launch may call the
 *     driver underneath; the program called the runtime).
 * GRAPHNODE_CREATED fires inside the launch call being captured, on the
 * capturing thread, so both are exactly what captured the node.
 */
#include "cupti_capture/inject_int.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
/* types only: the NVTX implementation belongs to the host program */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>
#include <generated_nvtx_meta.h>

#define EXPORT __attribute__((visibility("default")))

/* ---- the API calls: journaled as records, and followed by callbacks ---- */

const CUpti_CallbackId tixcap_runtime_ids[] = {
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
	CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, /* <<<...>>> from nvcc 13 */
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
const size_t tixcap_n_runtime_ids = sizeof tixcap_runtime_ids / sizeof *tixcap_runtime_ids;

/* Driver calls only where apps call the driver directly (Triton, CUTLASS,
 * cuda-python); the runtime's own driver calls are not wanted twice. */
const CUpti_CallbackId tixcap_driver_ids[] = {
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
const size_t tixcap_n_driver_ids = sizeof tixcap_driver_ids / sizeof *tixcap_driver_ids;

/* Calls followed by callbacks only (rare ones, no records): those that
 * build graph nodes explicitly, and instantiation, whose node copies are
 * not captures. */
static const CUpti_CallbackId graph_add_runtime_ids[] = {
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddKernelNode_v10000,
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddMemcpyNode_v10000,
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddMemsetNode_v10000,
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddMemcpyNode1D_v11010,
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddNode_v12020,
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddNode_v12030,
};
static const CUpti_CallbackId graph_add_driver_ids[] = {
	CUPTI_DRIVER_TRACE_CBID_cuGraphAddKernelNode,
	CUPTI_DRIVER_TRACE_CBID_cuGraphAddKernelNode_v2,
	CUPTI_DRIVER_TRACE_CBID_cuGraphAddMemcpyNode,
	CUPTI_DRIVER_TRACE_CBID_cuGraphAddMemsetNode,
	CUPTI_DRIVER_TRACE_CBID_cuGraphAddNode,
	CUPTI_DRIVER_TRACE_CBID_cuGraphAddNode_v2,
};
static const CUpti_CallbackId instantiate_runtime_ids[] = {
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiate_v10000,
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiate_v12000,
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiateWithFlags_v11040,
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiateWithParams_v12000,
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiateWithParams_ptsz_v12000,
};
static const CUpti_CallbackId instantiate_driver_ids[] = {
	CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate,
	CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2,
	CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags,
	CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams,
	CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz,
};
#define NELEM(a) (sizeof(a) / sizeof *(a))

static int is_launch(int driver, CUpti_CallbackId cbid)
{
	if (driver)
		return cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel ||
		       cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
		       cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ||
		       cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz ||
		       cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel ||
		       cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz ||
		       cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
		       cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
	return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 ||
	       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000 ||
	       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060 ||
	       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060 ||
	       cbid == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000 ||
	       cbid == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000 ||
	       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000 ||
	       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000 ||
	       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000 ||
	       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000;
}

static int is_instantiate(int driver, CUpti_CallbackId cbid)
{
	const CUpti_CallbackId *ids = driver ? instantiate_driver_ids : instantiate_runtime_ids;
	size_t n = driver ? NELEM(instantiate_driver_ids) : NELEM(instantiate_runtime_ids);
	for (size_t i = 0; i < n; i++)
		if (ids[i] == cbid)
			return 1;
	return 0;
}

/* ---- per-thread facts ---- */

#define STACK_DEPTH 64
#define STACK_BYTES 2048
struct nvtx_stack {
	uint32_t depth;             /* ranges open; may exceed `stored` */
	uint32_t stored;            /* the outermost ranges, whose names are in buf */
	uint32_t used;              /* bytes of buf */
	uint16_t off[STACK_DEPTH];
	const void *dom[STACK_DEPTH]; /* domain handle; NULL: the default domain */
	char buf[STACK_BYTES];      /* names, each ending in a NUL, outermost first */
	uint32_t match_depth;       /* --nvtx: depth of the range that opened a window */
};
struct api_now {
	uint32_t depth;             /* API calls in progress (runtime over driver) */
	uint32_t cbid, correlation;
	uint8_t domain;             /* TIXJ_API_* of the outermost */
};
static _Thread_local struct nvtx_stack t_nvtx;
static _Thread_local struct api_now t_api;

static void stack_push(struct nvtx_stack *s, const char *name, const void *dom)
{
	size_t len = name ? strlen(name) : 0;
	/* A name is stored only while all the ranges around it are, so the
	 * stored names are always the outermost ones. */
	if (s->depth == s->stored && s->stored < STACK_DEPTH && s->used + len + 1 <= STACK_BYTES) {
		s->off[s->stored] = (uint16_t)s->used;
		s->dom[s->stored] = dom;
		memcpy(s->buf + s->used, name ? name : "", len);
		s->buf[s->used + len] = 0;
		s->used += (uint32_t)len + 1;
		s->stored++;
	}
	s->depth++;
}

static void stack_pop(struct nvtx_stack *s, const void *dom)
{
	if (s->depth == 0)
		return; /* a pop of a range pushed before we were loaded */
	if (s->depth > s->stored) {
		s->depth--;
		return;
	}
	uint32_t i = s->stored;
	while (i > 0 && s->dom[i - 1] != dom)
		i--;
	if (i == 0)
		return; /* no open range in that domain */
	i--;
	/* Domains nest independently: the range popped need not be the top. */
	uint32_t start = s->off[i], next = i + 1 < s->stored ? s->off[i + 1] : s->used;
	uint32_t gap = next - start;
	memmove(s->buf + start, s->buf + next, s->used - next);
	for (uint32_t k = i; k + 1 < s->stored; k++) {
		s->off[k] = (uint16_t)(s->off[k + 1] - gap);
		s->dom[k] = s->dom[k + 1];
	}
	s->used -= gap;
	s->stored--;
	s->depth--;
}

/* ---- NVTX registered strings (nvtxDomainRegisterStringA) ---- */

#define REG_SLOTS 4096
static struct {
	_Atomic(const void *) handle; /* published after name is written */
	char *name;
} reg[REG_SLOTS];
static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;

static size_t reg_hash(const void *h) { return ((uintptr_t)h >> 4) * 2654435761u % REG_SLOTS; }

static void reg_add(const void *h, const char *s)
{
	if (!h || !s)
		return;
	pthread_mutex_lock(&reg_mu);
	for (size_t i = reg_hash(h), k = 0; k < REG_SLOTS; k++, i = (i + 1) % REG_SLOTS) {
		const void *cur = atomic_load_explicit(&reg[i].handle, memory_order_relaxed);
		if (cur == h)
			break;
		if (!cur) {
			reg[i].name = strdup(s);
			if (reg[i].name)
				atomic_store_explicit(&reg[i].handle, h, memory_order_release);
			break;
		}
	}
	pthread_mutex_unlock(&reg_mu);
}

static const char *reg_find(const void *h)
{
	for (size_t i = reg_hash(h), k = 0; h && k < REG_SLOTS; k++, i = (i + 1) % REG_SLOTS) {
		const void *cur = atomic_load_explicit(&reg[i].handle, memory_order_acquire);
		if (!cur)
			break;
		if (cur == h)
			return reg[i].name;
	}
	return NULL;
}

static const char *attr_message(const nvtxEventAttributes_t *a)
{
	if (!a)
		return NULL;
	if (a->messageType == NVTX_MESSAGE_TYPE_ASCII)
		return a->message.ascii;
	if (a->messageType == NVTX_MESSAGE_TYPE_REGISTERED) {
		const char *s = reg_find(a->message.registered);
		return s ? s : "(registered string)";
	}
	return a->messageType == NVTX_MESSAGE_TYPE_UNICODE ? "(wide string)" : NULL;
}

/* ---- NVTX: the stack, and --nvtx windows ---- */

static int nvtx_matches(const char *msg)
{
	if (!msg || !G.o.nvtx[0])
		return 0;
	if (G.o.nvtx_prefix)
		return strncmp(msg, G.o.nvtx, strlen(G.o.nvtx)) == 0;
	return strcmp(msg, G.o.nvtx) == 0;
}

static void on_push(const char *msg, const void *dom)
{
	struct nvtx_stack *s = &t_nvtx;
	stack_push(s, msg, dom);
	/* The window is the first matching range on a thread, from its push
	 * to its pop.  Its record kinds are on from the start (api_always):
	 * no CUPTI call is made from inside an NVTX callback. */
	if (!s->match_depth && nvtx_matches(msg)) {
		s->match_depth = s->depth;
		tixcap_window_open(tixcap_now());
	}
}

static void on_pop(const void *dom)
{
	struct nvtx_stack *s = &t_nvtx;
	if (s->match_depth && s->depth == s->match_depth) {
		tixcap_window_close(tixcap_now());
		s->match_depth = 0;
	}
	stack_pop(s, dom);
}

static void on_nvtx(CUpti_CallbackId cbid, const CUpti_NvtxData *d)
{
	const void *p = d ? d->functionParams : NULL;
	if (!p && cbid != CUPTI_CBID_NVTX_nvtxRangePop)
		return; /* nvtxRangePop has no parameters to pass */
	switch (cbid) {
	case CUPTI_CBID_NVTX_nvtxRangePushA:
		on_push(((const nvtxRangePushA_params *)p)->message, NULL);
		break;
	case CUPTI_CBID_NVTX_nvtxRangePushW:
		on_push("(wide string)", NULL);
		break;
	case CUPTI_CBID_NVTX_nvtxRangePushEx:
		on_push(attr_message(((const nvtxRangePushEx_params *)p)->eventAttrib), NULL);
		break;
	case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
		const nvtxDomainRangePushEx_params *q = p;
		on_push(attr_message(q->core.eventAttrib), q->domain);
		break;
	}
	case CUPTI_CBID_NVTX_nvtxRangePop:
		on_pop(NULL);
		break;
	case CUPTI_CBID_NVTX_nvtxDomainRangePop:
		on_pop(((const nvtxDomainRangePop_params *)p)->domain);
		break;
	case CUPTI_CBID_NVTX_nvtxDomainRegisterStringA:
		if (d->functionReturnValue)
			reg_add(*(const nvtxStringHandle_t *)d->functionReturnValue,
			        ((const nvtxDomainRegisterStringA_params *)p)->string);
		break;
	default:
		break;
	}
}

/* ---- API calls ---- */

static void on_api(int driver, CUpti_CallbackId cbid, const CUpti_CallbackData *cd)
{
	if (cd->callbackSite == CUPTI_API_ENTER) {
		if (t_api.depth++ == 0)
			t_api = (struct api_now){1, cbid, cd->correlationId,
			                         driver ? TIXJ_API_DRIVER : TIXJ_API_RUNTIME};
		if (is_launch(driver, cbid))
			atomic_fetch_add_explicit(&G.launches, 1, memory_order_relaxed);
	} else if (t_api.depth) {
		t_api.depth--;
	}
}

/* ---- graph nodes ---- */

static int nodes_reserve(struct pending_nodes *n, size_t frame_bytes)
{
	if (n->n == n->cap) {
		size_t cap = n->cap ? n->cap * 2 : 256;
		if (cap > (1u << 20))
			return -1; /* a writer thread that stopped: do not grow forever */
		void *a = realloc(n->row, cap * sizeof *n->row);
		if (a)
			n->row = a;
		void *b = realloc(n->frames_off, cap * sizeof *n->frames_off);
		if (b)
			n->frames_off = b;
		void *c = realloc(n->frames_len, cap * sizeof *n->frames_len);
		if (c)
			n->frames_len = c;
		if (!a || !b || !c)
			return -1;
		n->cap = cap;
	}
	if (n->alen + frame_bytes > n->acap) {
		size_t cap = n->acap ? n->acap : 16384;
		while (cap < n->alen + frame_bytes)
			cap *= 2;
		char *p = realloc(n->arena, cap);
		if (!p)
			return -1;
		n->arena = p;
		n->acap = cap;
	}
	return 0;
}

static void on_graph(CUpti_CallbackId cbid, const CUpti_ResourceData *rd)
{
	const CUpti_GraphData *gd = rd ? rd->resourceDescriptor : NULL;
	if (!gd)
		return;
	int created = cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED;
	/* Instantiation makes the executable graph's nodes: they are copies,
	 * mapped by the CLONED callback, not captures. */
	if (created && t_api.depth && is_instantiate(t_api.domain == TIXJ_API_DRIVER, t_api.cbid))
		return;
	struct tixj_graph_node g = {0};
	g.ts = tixcap_now();
	g.tid = (uint32_t)syscall(SYS_gettid);
	g.node_type = (uint32_t)gd->nodeType;
	g.frames = g.api = TIXJ_NONE;
	if (cuptiGetGraphNodeId(gd->node, &g.node_id) != CUPTI_SUCCESS)
		return;
	cuptiGetGraphId(gd->graph, &g.graph_id);
	const struct nvtx_stack *s = &t_nvtx;
	uint32_t frame_bytes = 0;
	if (!created) {
		g.how = TIXJ_G_CLONED;
		cuptiGetGraphNodeId(gd->originalNode, &g.orig_node_id);
	} else {
		g.how = TIXJ_G_CREATED;
		if (t_api.depth) {
			g.cbid = (uint16_t)t_api.cbid;
			g.correlation = t_api.correlation;
			g.domain = t_api.domain;
			/* a launch during capture makes a node, not a kernel */
			if (is_launch(t_api.domain == TIXJ_API_DRIVER, t_api.cbid))
				atomic_fetch_sub_explicit(&G.launches, 1, memory_order_relaxed);
		}
		frame_bytes = s->used;
		if (s->depth > s->stored)
			g.flags |= TIXJ_G_FRAMES_CUT;
	}
	pthread_mutex_lock(&G.mu);
	struct pending_nodes *n = &G.nodes;
	if (nodes_reserve(n, frame_bytes) == 0) {
		n->row[n->n] = g;
		n->frames_off[n->n] = (uint32_t)n->alen;
		n->frames_len[n->n] = frame_bytes;
		memcpy(n->arena + n->alen, s->buf, frame_bytes);
		n->alen += frame_bytes;
		n->n++;
	} else {
		G.nodes_lost++;
	}
	pthread_mutex_unlock(&G.mu);
}

void tixcap_take_nodes(struct pending_nodes *out)
{
	pthread_mutex_lock(&G.mu);
	*out = G.nodes;
	memset(&G.nodes, 0, sizeof G.nodes);
	pthread_mutex_unlock(&G.mu);
}

void tixcap_nodes_free(struct pending_nodes *n)
{
	free(n->row);
	free(n->frames_off);
	free(n->frames_len);
	free(n->arena);
	memset(n, 0, sizeof *n);
}

/* ---- the subscriber's callback ---- */

void CUPTIAPI tixcap_on_callback(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
                                 const void *data)
{
	if (tixcap_phase != ST_CAPTURING || !data)
		return;
	switch (dom) {
	case CUPTI_CB_DOMAIN_RUNTIME_API:
		on_api(0, cbid, data);
		break;
	case CUPTI_CB_DOMAIN_DRIVER_API: {
		const CUpti_CallbackData *cd = data;
		if (cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart ||
		    cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop) {
			if (G.o.profiler_api && cd->callbackSite == CUPTI_API_ENTER) {
				if (cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart)
					tixcap_window_open(tixcap_now());
				else
					tixcap_window_close(tixcap_now());
			}
			break;
		}
		on_api(1, cbid, cd);
		break;
	}
	case CUPTI_CB_DOMAIN_NVTX:
		on_nvtx(cbid, data);
		break;
	case CUPTI_CB_DOMAIN_RESOURCE:
		if (cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED ||
		    cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED)
			on_graph(cbid, data);
		break;
	default:
		break;
	}
}

static CUptiResult enable_list(CUpti_CallbackDomain dom, const CUpti_CallbackId *ids, size_t n)
{
	CUptiResult first = CUPTI_SUCCESS;
	for (size_t i = 0; i < n; i++) {
		CUptiResult r = cuptiEnableCallback(1, G.sub, dom, ids[i]);
		if (r != CUPTI_SUCCESS && first == CUPTI_SUCCESS)
			first = r;
	}
	return first;
}

CUptiResult tixcap_enable_callbacks(void)
{
	static const CUpti_CallbackId resource_ids[] = {
		CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED, CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED,
	};
	static const CUpti_CallbackId profiler_ids[] = {
		CUPTI_DRIVER_TRACE_CBID_cuProfilerStart, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop,
	};
	CUptiResult r[9] = {
		enable_list(CUPTI_CB_DOMAIN_RUNTIME_API, tixcap_runtime_ids, tixcap_n_runtime_ids),
		enable_list(CUPTI_CB_DOMAIN_DRIVER_API, tixcap_driver_ids, tixcap_n_driver_ids),
		enable_list(CUPTI_CB_DOMAIN_RUNTIME_API, graph_add_runtime_ids, NELEM(graph_add_runtime_ids)),
		enable_list(CUPTI_CB_DOMAIN_DRIVER_API, graph_add_driver_ids, NELEM(graph_add_driver_ids)),
		enable_list(CUPTI_CB_DOMAIN_RUNTIME_API, instantiate_runtime_ids,
		            NELEM(instantiate_runtime_ids)),
		enable_list(CUPTI_CB_DOMAIN_DRIVER_API, instantiate_driver_ids, NELEM(instantiate_driver_ids)),
		enable_list(CUPTI_CB_DOMAIN_RESOURCE, resource_ids, NELEM(resource_ids)),
		G.o.profiler_api ? enable_list(CUPTI_CB_DOMAIN_DRIVER_API, profiler_ids, NELEM(profiler_ids))
		                 : CUPTI_SUCCESS,
		/* the NVTX stack is needed for every graph capture, windows or not */
		cuptiEnableDomain(1, G.sub, CUPTI_CB_DOMAIN_NVTX),
	};
	for (size_t i = 0; i < NELEM(r); i++)
		if (r[i] != CUPTI_SUCCESS)
			return r[i];
	return CUPTI_SUCCESS;
}

/* ---- NVTX routing ---- */

const char *tixcap_self_path(void)
{
	static char path[PATH_MAX];
	Dl_info di;
	if (!path[0] && dladdr((void *)tixcap_self_path, &di) && di.dli_fname &&
	    !realpath(di.dli_fname, path))
		path[0] = 0;
	return path[0] ? path : NULL;
}

typedef const void *(*nvtx_export_table_fn)(uint32_t id);

/* NVTX loads the library NVTX_INJECTION64_PATH names and calls this.  The
 * launcher points it here, and we hand over to the libcupti this library
 * is bound to: in a PyTorch process that is the wheel's copy torch loaded
 * (the SONAME was already there), so NVTX and capture share one CUPTI
 * whichever file the toolkit has.  Runs possibly before
 * InitializeInjection (NVTX used before CUDA starts). */
EXPORT int InitializeInjectionNvtx2(nvtx_export_table_fn get_table)
{
	Dl_info di;
	void *h = NULL;
	int (*init)(nvtx_export_table_fn) = NULL;
	if (dladdr((void *)cuptiGetVersion, &di) && di.dli_fname)
		h = dlopen(di.dli_fname, RTLD_LAZY | RTLD_NOLOAD); /* never closed: CUPTI.md 2.3 */
	if (h)
		*(void **)&init = dlsym(h, "InitializeInjectionNvtx2");
	if (!init) {
		fprintf(stderr, "tixcap: pid %d: NVTX ranges off: %s has no InitializeInjectionNvtx2\n",
		        (int)getpid(), h ? di.dli_fname : "the libcupti in use");
		return 0;
	}
	return init(get_table);
}
