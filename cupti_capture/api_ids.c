/*
 * cupti_capture/api_ids.c: which CUDA calls libtixcap.so follows, and how.
 * Owner: cupti_capture.  The callback ids are CUDA 13.0's
 * (cupti_runtime_cbid.h, cupti_driver_cbid.h, cupti_callbacks.h); a name
 * missing from an older toolkit fails the build, which cupti_gate.cmake
 * prevents.
 *
 *   records + callbacks: the calls whose activity records are journaled
 *       (the launch calls of kernels and copies, and what orders them) and
 *       whose callbacks keep the thread's call in progress (callbacks.c);
 *   callbacks only: rare calls that build, instantiate or change graphs.
 */
#include "cupti_capture/inject_int.h"

#define NELEM(a) (sizeof(a) / sizeof *(a))

/* The calls that launch kernels (counted: see STARVE_FLUSHES in inject.c). */
#define RUNTIME_LAUNCHES                                                   \
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,                   \
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,              \
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,               \
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,          \
	CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, /* nvcc 13's <<<...>>> */ \
	CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,           \
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,        \
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,   \
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,                   \
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000
#define DRIVER_LAUNCHES                                                    \
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,                            \
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,                       \
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,                          \
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,                     \
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,                 \
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,            \
	CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,                             \
	CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz

/* ---- the API calls: journaled as records, and followed by callbacks ---- */

const CUpti_CallbackId tixcap_runtime_ids[] = {
	RUNTIME_LAUNCHES,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_v10000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_ptsz_v10000,
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
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbolAsync_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbolAsync_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_ptds_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_ptds_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbolAsync_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbolAsync_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyBatchAsync_v12080,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyBatchAsync_ptsz_v12080,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyBatchAsync_v13000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyBatchAsync_ptsz_v13000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010,
	CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000,
};
const size_t tixcap_n_runtime_ids = NELEM(tixcap_runtime_ids);

/* Driver calls only where apps call the driver directly (Triton, CUTLASS,
 * cuda-python); the runtime's own driver calls are not wanted twice. */
const CUpti_CallbackId tixcap_driver_ids[] = {
	DRIVER_LAUNCHES,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_v2_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async,
	CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async,
	CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuEventRecord,
	CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags,
	CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,
	CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,
};
const size_t tixcap_n_driver_ids = NELEM(tixcap_driver_ids);

/* ---- calls followed by callbacks only (rare; no records) ---- */

/* Those that build graph nodes explicitly. */
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
/* Instantiation: its node copies are not captures, and it makes the
 * executable graph the updates below name.  Each call's parameters begin
 * with a pointer to where the executable graph is returned
 * (generated_cuda_runtime_api_meta.h, generated_cuda_meta.h, CUDA 13.0). */
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
/* Changes to an executable graph after instantiation: the whole of it
 * (ExecUpdate) or one node's parameters (Exec*NodeSetParams).  Their
 * parameters begin with the executable graph, then the graph or node. */
static const CUpti_CallbackId exec_update_runtime_ids[] = {
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphExecUpdate_v10020,
};
static const CUpti_CallbackId exec_update_driver_ids[] = {
	CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate,
	CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2,
};
static const CUpti_CallbackId node_set_runtime_ids[] = {
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphExecKernelNodeSetParams_v10010,
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphExecNodeSetParams_v12020,
};
static const CUpti_CallbackId node_set_driver_ids[] = {
	CUPTI_DRIVER_TRACE_CBID_cuGraphExecKernelNodeSetParams,
	CUPTI_DRIVER_TRACE_CBID_cuGraphExecKernelNodeSetParams_v2,
	CUPTI_DRIVER_TRACE_CBID_cuGraphExecNodeSetParams,
};

static int in_list(CUpti_CallbackId cbid, const CUpti_CallbackId *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == cbid)
			return 1;
	return 0;
}

int tixcap_is_launch(int driver, CUpti_CallbackId cbid)
{
	static const CUpti_CallbackId rt[] = {RUNTIME_LAUNCHES}, drv[] = {DRIVER_LAUNCHES};
	return driver ? in_list(cbid, drv, NELEM(drv)) : in_list(cbid, rt, NELEM(rt));
}

enum tixcap_graph_call tixcap_graph_call_of(int driver, CUpti_CallbackId cbid)
{
	if (driver ? in_list(cbid, instantiate_driver_ids, NELEM(instantiate_driver_ids))
	           : in_list(cbid, instantiate_runtime_ids, NELEM(instantiate_runtime_ids)))
		return TIXCAP_GC_INSTANTIATE;
	if (driver ? in_list(cbid, exec_update_driver_ids, NELEM(exec_update_driver_ids))
	           : in_list(cbid, exec_update_runtime_ids, NELEM(exec_update_runtime_ids)))
		return TIXCAP_GC_EXEC_UPDATE;
	if (driver ? in_list(cbid, node_set_driver_ids, NELEM(node_set_driver_ids))
	           : in_list(cbid, node_set_runtime_ids, NELEM(node_set_runtime_ids)))
		return TIXCAP_GC_NODE_SET;
	return TIXCAP_GC_NONE;
}

/* ---- enabling them ---- */

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
		CUPTI_CBID_RESOURCE_GRAPH_NODE_UPDATED, CUPTI_CBID_RESOURCE_GRAPH_NODE_SET_PARAMS,
	};
	static const CUpti_CallbackId profiler_ids[] = {
		CUPTI_DRIVER_TRACE_CBID_cuProfilerStart, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop,
	};
	static const struct {
		CUpti_CallbackDomain dom;
		const CUpti_CallbackId *ids;
		size_t n;
	} lists[] = {
		{CUPTI_CB_DOMAIN_RUNTIME_API, tixcap_runtime_ids, NELEM(tixcap_runtime_ids)},
		{CUPTI_CB_DOMAIN_DRIVER_API, tixcap_driver_ids, NELEM(tixcap_driver_ids)},
		{CUPTI_CB_DOMAIN_RUNTIME_API, graph_add_runtime_ids, NELEM(graph_add_runtime_ids)},
		{CUPTI_CB_DOMAIN_DRIVER_API, graph_add_driver_ids, NELEM(graph_add_driver_ids)},
		{CUPTI_CB_DOMAIN_RUNTIME_API, instantiate_runtime_ids, NELEM(instantiate_runtime_ids)},
		{CUPTI_CB_DOMAIN_DRIVER_API, instantiate_driver_ids, NELEM(instantiate_driver_ids)},
		{CUPTI_CB_DOMAIN_RUNTIME_API, exec_update_runtime_ids, NELEM(exec_update_runtime_ids)},
		{CUPTI_CB_DOMAIN_DRIVER_API, exec_update_driver_ids, NELEM(exec_update_driver_ids)},
		{CUPTI_CB_DOMAIN_RUNTIME_API, node_set_runtime_ids, NELEM(node_set_runtime_ids)},
		{CUPTI_CB_DOMAIN_DRIVER_API, node_set_driver_ids, NELEM(node_set_driver_ids)},
		{CUPTI_CB_DOMAIN_RESOURCE, resource_ids, NELEM(resource_ids)},
	};
	CUptiResult first = CUPTI_SUCCESS;
	for (size_t i = 0; i < NELEM(lists); i++) {
		CUptiResult r = enable_list(lists[i].dom, lists[i].ids, lists[i].n);
		if (first == CUPTI_SUCCESS)
			first = r;
	}
	if (G.o.profiler_api) {
		CUptiResult r = enable_list(CUPTI_CB_DOMAIN_DRIVER_API, profiler_ids, NELEM(profiler_ids));
		if (first == CUPTI_SUCCESS)
			first = r;
	}
	/* the NVTX stack is needed for every graph capture, windows or not */
	CUptiResult r = cuptiEnableDomain(1, G.sub, CUPTI_CB_DOMAIN_NVTX);
	return first == CUPTI_SUCCESS ? r : first;
}
