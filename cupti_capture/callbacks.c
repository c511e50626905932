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
#include "index/grow.h"

#include <dlfcn.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
/* types only: the NVTX implementation belongs to the host program */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>
#include <generated_nvtx_meta.h>
/* The parameters of the graph calls followed (on_graph_call) come with
 * cupti.h (CUDA 13.0): generated_cuda_runtime_api_meta.h and
 * generated_cuda_meta.h, which have no include guards. */

#define EXPORT __attribute__((visibility("default")))

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
	/* --nvtx: the range that opened a window, by its domain and the
	 * ranges of that domain open on this thread (it included): the window
	 * closes on the pop that brings them below it, a pop in that domain.
	 * Domains nest independently, so a pop in another is not its end. */
	int matched;
	const void *match_dom;
	uint32_t match_dom_open;
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
	if (s->matched) {
		s->match_dom_open += dom == s->match_dom;
		return;
	}
	/* The window is the first matching range on a thread, from its push
	 * to its pop.  Its record kinds are on from the start (api_always):
	 * no CUPTI call is made from inside an NVTX callback. */
	if (nvtx_matches(msg)) {
		s->matched = 1;
		s->match_dom = dom;
		s->match_dom_open = 1;
		tixcap_window_open(tixcap_now());
	}
}

static void on_pop(const void *dom)
{
	struct nvtx_stack *s = &t_nvtx;
	if (s->matched && dom == s->match_dom && --s->match_dom_open == 0) {
		tixcap_window_close(tixcap_now());
		s->matched = 0;
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

static void on_graph_call(enum tixcap_graph_call gc, const CUpti_CallbackData *cd, uint32_t corr);

static void on_api(int driver, CUpti_CallbackId cbid, const CUpti_CallbackData *cd)
{
	if (cd->callbackSite == CUPTI_API_ENTER) {
		/* the call is a window's if one is open now, whichever buffer
		 * its record and its kernels come back in */
		if (G.win.windowed)
			tixcap_windows_note_call(&G.win, cd->correlationId);
		if (t_api.depth++ == 0)
			t_api = (struct api_now){1, cbid, cd->correlationId,
			                         driver ? TIXJ_API_DRIVER : TIXJ_API_RUNTIME};
		if (tixcap_is_launch(driver, cbid))
			atomic_fetch_add_explicit(&G.launches, 1, memory_order_relaxed);
	} else if (t_api.depth && --t_api.depth == 0) {
		/* The outermost call returns: a graph call says what it made or
		 * changed (keyed by its correlation id, which the node copies it
		 * made were given). */
		enum tixcap_graph_call gc = tixcap_graph_call_of(driver, cbid);
		if (gc != TIXCAP_GC_NONE)
			on_graph_call(gc, cd, t_api.correlation);
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
	return tix_grow(&n->arena, &n->acap, n->alen + frame_bytes, 1, 16384);
}

static void on_graph(CUpti_CallbackId cbid, const CUpti_ResourceData *rd)
{
	const CUpti_GraphData *gd = rd ? rd->resourceDescriptor : NULL;
	if (!gd)
		return;
	int created = cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED;
	/* Instantiation makes the executable graph's nodes: they are copies,
	 * mapped by the CLONED callback, not captures. */
	if (created && t_api.depth &&
	    tixcap_graph_call_of(t_api.domain == TIXJ_API_DRIVER, t_api.cbid) == TIXCAP_GC_INSTANTIATE)
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
	/* the call making the node: the captured launch, or the instantiation
	 * whose executable graph the copy belongs to */
	if (t_api.depth) {
		g.cbid = (uint16_t)t_api.cbid;
		g.correlation = t_api.correlation;
		g.domain = t_api.domain;
	}
	if (!created) {
		g.how = TIXJ_G_CLONED;
		cuptiGetGraphNodeId(gd->originalNode, &g.orig_node_id);
	} else {
		g.how = TIXJ_G_CREATED;
		/* a launch during capture makes a node, not a kernel */
		if (t_api.depth && tixcap_is_launch(t_api.domain == TIXJ_API_DRIVER, t_api.cbid))
			atomic_fetch_sub_explicit(&G.launches, 1, memory_order_relaxed);
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

/* ---- executable graphs: made, and changed after their nodes were
 * journaled (journal.h, TIXJ_GRAPH_EVENTS) ---- */

static void graph_event(uint32_t what, uint64_t node_id, uint32_t exec_id, uint32_t corr)
{
	struct tixj_graph_event e = {tixcap_now(), node_id, exec_id, corr, what, 0};
	pthread_mutex_lock(&G.mu);
	struct pending_nodes *n = &G.nodes;
	if (n->nev == n->capev) {
		size_t cap = n->capev ? n->capev * 2 : 64;
		void *p = cap <= (1u << 20) ? realloc(n->ev, cap * sizeof *n->ev) : NULL;
		if (p) {
			n->ev = p;
			n->capev = cap;
		}
	}
	if (n->nev < n->capev)
		n->ev[n->nev++] = e;
	else
		G.nodes_lost++;
	pthread_mutex_unlock(&G.mu);
}

/* What the graph calls' parameters begin with (CUDA 13.0's
 * generated_cuda_runtime_api_meta.h and generated_cuda_meta.h): the
 * instantiations, a pointer to where the executable graph is returned; the
 * updates, the executable graph, then the graph (ExecUpdate) or the node
 * of the graph it was instantiated from (Exec*NodeSetParams). */
struct graph_call_params { void *first, *second; };
_Static_assert(offsetof(cudaGraphInstantiate_v12000_params, pGraphExec) == 0, "params");
_Static_assert(offsetof(cudaGraphInstantiateWithFlags_v11040_params, pGraphExec) == 0, "params");
_Static_assert(offsetof(cudaGraphInstantiateWithParams_v12000_params, pGraphExec) == 0, "params");
_Static_assert(offsetof(cuGraphInstantiateWithFlags_params, phGraphExec) == 0, "params");
_Static_assert(offsetof(cuGraphInstantiateWithParams_params, phGraphExec) == 0, "params");
_Static_assert(offsetof(cuGraphInstantiate_v2_params, phGraphExec) == 0, "params");
_Static_assert(offsetof(cudaGraphExecUpdate_v10020_params, hGraphExec) == 0, "params");
_Static_assert(offsetof(cuGraphExecUpdate_v2_params, hGraphExec) == 0, "params");
_Static_assert(offsetof(cudaGraphExecKernelNodeSetParams_v10010_params, node) == sizeof(void *),
               "params");
_Static_assert(offsetof(cudaGraphExecNodeSetParams_v12020_params, node) == sizeof(void *), "params");
_Static_assert(offsetof(cuGraphExecKernelNodeSetParams_v2_params, hNode) == sizeof(void *), "params");
_Static_assert(offsetof(cuGraphExecNodeSetParams_params, hNode) == sizeof(void *), "params");

static void on_graph_call(enum tixcap_graph_call gc, const CUpti_CallbackData *cd, uint32_t corr)
{
	const struct graph_call_params *p = cd->functionParams;
	/* cudaError_t and CUresult: 0 is success */
	if (!p || !cd->functionReturnValue || *(const int *)cd->functionReturnValue != 0)
		return;
	uint32_t exec = 0;
	uint64_t node = 0;
	if (gc == TIXCAP_GC_INSTANTIATE) {
		const CUgraphExec *made = p->first;
		if (made && *made && cuptiGetGraphExecId(*made, &exec) == CUPTI_SUCCESS)
			graph_event(TIXJ_GE_EXEC_MADE, 0, exec, corr);
		return;
	}
	if (p->first)
		cuptiGetGraphExecId((CUgraphExec)p->first, &exec);
	if (gc == TIXCAP_GC_EXEC_UPDATE)
		graph_event(TIXJ_GE_EXEC_UPDATED, 0, exec, corr);
	else if (p->second && cuptiGetGraphNodeId((CUgraphNode)p->second, &node) == CUPTI_SUCCESS)
		graph_event(TIXJ_GE_NODE_UPDATED, node, exec, corr);
}

/* GRAPH_NODE_UPDATED / _SET_PARAMS (cupti_callbacks.h, CUDA 13.0): which
 * node CUPTI names (the executable graph's copy, or its original) is not
 * documented; the reader looks for it along the whole chain. */
static void on_node_update(const CUpti_ResourceData *rd)
{
	const CUpti_GraphData *gd = rd ? rd->resourceDescriptor : NULL;
	uint64_t node = 0;
	uint32_t exec = 0;
	if (!gd || !gd->node || cuptiGetGraphNodeId(gd->node, &node) != CUPTI_SUCCESS)
		return;
	if (gd->graphExec)
		cuptiGetGraphExecId(gd->graphExec, &exec);
	graph_event(TIXJ_GE_NODE_UPDATED, node, exec, t_api.depth ? t_api.correlation : 0);
}

void tixcap_take_nodes(struct pending_nodes *out)
{
	pthread_mutex_lock(&G.mu);
	*out = G.nodes;
	memset(&G.nodes, 0, sizeof G.nodes);
	pthread_mutex_unlock(&G.mu);
}

void tixcap_nodes_done(struct pending_nodes *n)
{
	free(n->row);
	free(n->frames_off);
	free(n->frames_len);
	free(n->arena);
	free(n->ev);
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
		else if (cbid == CUPTI_CBID_RESOURCE_GRAPH_NODE_UPDATED ||
		         cbid == CUPTI_CBID_RESOURCE_GRAPH_NODE_SET_PARAMS)
			on_node_update(data);
		break;
	default:
		break;
	}
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

/* The libcupti this library is bound to (in a PyTorch process, the
 * wheel's copy torch loaded: the SONAME was already there), for the NVTX
 * entry points below.  dlopen'd with RTLD_NOLOAD and never closed
 * (CUPTI.md 2.3). */
static void *cupti_entry(const char *name, const char **lib)
{
	Dl_info di;
	void *h = NULL;
	*lib = "the libcupti in use";
	if (dladdr((void *)cuptiGetVersion, &di) && di.dli_fname) {
		h = dlopen(di.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
		*lib = di.dli_fname;
	}
	return h ? dlsym(h, name) : NULL;
}

/* NVTX loads the library NVTX_INJECTION64_PATH names and calls this.  The
 * launcher points it here, and we hand over to the libcupti this library
 * is bound to, so NVTX and capture share one CUPTI whichever file the
 * toolkit has.  Runs possibly before InitializeInjection (NVTX used before
 * CUDA starts). */
EXPORT int InitializeInjectionNvtx2(nvtx_export_table_fn get_table)
{
	const char *lib;
	int (*init)(nvtx_export_table_fn) = NULL;
	*(void **)&init = cupti_entry("InitializeInjectionNvtx2", &lib);
	if (!init) {
		fprintf(stderr, "tixcap: pid %d: NVTX ranges off: %s has no InitializeInjectionNvtx2\n",
		        (int)getpid(), lib);
		return 0;
	}
	return init(get_table);
}

/* NVTX's extensions (payloads, counters, memory: nvtxDetail/nvtxExtInit.h,
 * CUDA 13.0) look for this entry in the same library; libcupti 13 exports
 * it too.  Handed over the same way; without it, NVTX turns those
 * extension calls into no-ops, which is all that is lost. */
struct nvtxExtModuleInfo_t; /* nvtxDetail/nvtxExtTypes.h: passed on untouched */
EXPORT int InitializeInjectionNvtxExtension(struct nvtxExtModuleInfo_t *info)
{
	const char *lib;
	int (*init)(struct nvtxExtModuleInfo_t *) = NULL;
	*(void **)&init = cupti_entry("InitializeInjectionNvtxExtension", &lib);
	return init ? init(info) : 0;
}
