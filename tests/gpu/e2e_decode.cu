// tests/gpu/e2e_decode.cu: a decode loop shaped like the tix story, for the
// GPU checks of cupti_capture (run by run_gpu_checks.sh).  Owner: cupti_capture.
//
// STEPS decode steps; each: push "step[DECODE bs=1]", a 4-byte HtoD copy,
// LAYERS x [push layer.NN > aten::to > aten::_to_copy > aten::copy_, the cast
// sim::unrolled_elementwise_kernel<sim::CastFp8ToBf16, 4><<<557496, 128>>>
// over 285,437,952 FP8 elements to BF16, pop x4], a 4-byte memset, a stream
// sync, pop.  The loop sits in nvtxRangeStartA("decode_window").  --mode graph
// captures one step's launches (with their NVTX pushes) into a CUDA graph and
// replays it each step.  --profile A:B calls cudaProfilerStart before step A
// and cudaProfilerStop after step B.  --tiny swaps the cast for a kernel of
// one 32-thread block that does nothing, and --per-layer N launches it N
// times per layer: a launch-bound loop, where host-side cost shows.
// --progress prints {"step":i,"pid":p,"t_end_ns":realtime} after each step
// (the SIGKILL check's clock).  Prints one JSON line at the end.
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

namespace sim {
struct CastFp8ToBf16 {
	__device__ __nv_bfloat16 operator()(__nv_fp8_e4m3 v) const
	{
		return __float2bfloat16(static_cast<float>(v));
	}
};

// Same shape as PyTorch's unrolled_elementwise_kernel: 4 elements a thread.
template <typename Op, int VEC>
__global__ void unrolled_elementwise_kernel(unsigned long n, Op op, const __nv_fp8_e4m3 *in,
                                            __nv_bfloat16 *out)
{
	unsigned long base = ((unsigned long)blockIdx.x * blockDim.x + threadIdx.x) * VEC;
#pragma unroll
	for (int i = 0; i < VEC; i++)
		if (base + i < n)
			out[base + i] = op(in[base + i]);
}

// The launch-bound variant: as cheap as a kernel gets.
__global__ void tiny_kernel(int *flag)
{
	if (threadIdx.x == 0 && flag[0] == 12345)
		flag[0] = 0;
}
} // namespace sim

#define CK(x)                                                                          \
	do {                                                                           \
		cudaError_t e_ = (x);                                                  \
		if (e_ != cudaSuccess) {                                               \
			fprintf(stderr, "e2e_decode: %s: %s\n", #x, cudaGetErrorString(e_)); \
			exit(2);                                                       \
		}                                                                      \
	} while (0)

static long long now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static const unsigned long kElems = 285437952UL; // 495552 x 1 x 576
static const int kThreads = 128, kVec = 4;
static const int kBlocks = (int)((kElems + kThreads * kVec - 1) / (kThreads * kVec)); // 557496

static int g_tiny, g_per_layer = 1;
static int *g_flag;

static void layers(int n, cudaStream_t s, const __nv_fp8_e4m3 *in, __nv_bfloat16 *out)
{
	char name[32];
	for (int l = 0; l < n; l++) {
		snprintf(name, sizeof name, "layer.%02d", l);
		nvtxRangePushA(name);
		nvtxRangePushA("aten::to");
		nvtxRangePushA("aten::_to_copy");
		nvtxRangePushA("aten::copy_");
		for (int k = 0; k < g_per_layer; k++) {
			if (g_tiny)
				sim::tiny_kernel<<<1, 32, 0, s>>>(g_flag);
			else
				sim::unrolled_elementwise_kernel<sim::CastFp8ToBf16, 4>
					<<<kBlocks, kThreads, 0, s>>>(kElems, sim::CastFp8ToBf16(), in, out);
		}
		nvtxRangePop();
		nvtxRangePop();
		nvtxRangePop();
		nvtxRangePop();
	}
}

int main(int argc, char **argv)
{
	int steps = 5, nlayers = 78, graph = 0, prof_a = -1, prof_b = -1, progress = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--steps") && i + 1 < argc)
			steps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--layers") && i + 1 < argc)
			nlayers = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--mode") && i + 1 < argc)
			graph = !strcmp(argv[++i], "graph");
		else if (!strcmp(argv[i], "--profile") && i + 1 < argc)
			sscanf(argv[++i], "%d:%d", &prof_a, &prof_b);
		else if (!strcmp(argv[i], "--tiny"))
			g_tiny = 1;
		else if (!strcmp(argv[i], "--per-layer") && i + 1 < argc)
			g_per_layer = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--progress"))
			progress = 1;
		else {
			fprintf(stderr, "usage: e2e_decode [--steps N] [--layers N] [--mode eager|graph] "
			                "[--profile A:B] [--tiny] [--per-layer N] [--progress]\n");
			return 1;
		}
	}
	long long t_start = now_ns(CLOCK_REALTIME);
	int tid = (int)syscall(SYS_gettid);
	nvtxNameOsThreadA((uint32_t)tid, "scheduler");

	__nv_fp8_e4m3 *in;
	__nv_bfloat16 *out;
	int *flag, host_flag = 1;
	CK(cudaMalloc(&in, kElems));
	CK(cudaMalloc(&out, kElems * sizeof(__nv_bfloat16)));
	CK(cudaMalloc(&flag, sizeof(int)));
	g_flag = flag;
	CK(cudaMemset(in, 0x38, kElems)); // FP8 e4m3 1.0; the 285,437,952 B memset
	cudaStream_t s;
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	cudaFuncAttributes fa;
	CK(cudaFuncGetAttributes(&fa, sim::unrolled_elementwise_kernel<sim::CastFp8ToBf16, 4>));

	cudaGraphExec_t exec = NULL;
	if (graph) {
		cudaGraph_t g;
		CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
		layers(nlayers, s, in, out);
		CK(cudaStreamEndCapture(s, &g));
		CK(cudaGraphInstantiate(&exec, g, 0));
		CK(cudaGraphDestroy(g));
	}
	CK(cudaDeviceSynchronize());

	nvtxRangeId_t window = nvtxRangeStartA("decode_window");
	long long t0 = 0;
	for (int st = 0; st < steps; st++) {
		if (st == 1)
			t0 = now_ns(CLOCK_MONOTONIC); // step 0 warms up
		if (st == prof_a)
			CK(cudaProfilerStart());
		nvtxRangePushA("step[DECODE bs=1]");
		CK(cudaMemcpyAsync(flag, &host_flag, sizeof host_flag, cudaMemcpyHostToDevice, s));
		if (graph)
			CK(cudaGraphLaunch(exec, s));
		else
			layers(nlayers, s, in, out);
		CK(cudaGetLastError());
		CK(cudaMemsetAsync(flag, 0, sizeof(int), s));
		CK(cudaStreamSynchronize(s));
		nvtxRangePop();
		if (st == prof_b)
			CK(cudaProfilerStop());
		if (progress) {
			printf("{\"step\":%d,\"pid\":%d,\"t_end_ns\":%lld}\n", st, (int)getpid(),
			       now_ns(CLOCK_REALTIME));
			fflush(stdout);
		}
	}
	long long t1 = now_ns(CLOCK_MONOTONIC);
	nvtxRangeEnd(window);
	double mean_ms = steps > 1 ? (t1 - t0) / 1e6 / (steps - 1) : 0;
	printf("{\"mode\":\"%s\",\"steps\":%d,\"layers\":%d,\"tid\":%d,\"pid\":%d,\"numRegs\":%d,"
	       "\"staticSmem\":%zu,\"blocks\":%d,\"tiny\":%d,\"per_layer\":%d,\"mean_step_ms\":%.4f,"
	       "\"t_start_ns\":%lld,\"t_end_ns\":%lld}\n",
	       graph ? "graph" : "eager", steps, nlayers, tid, (int)getpid(), fa.numRegs,
	       fa.sharedSizeBytes, kBlocks, g_tiny, g_per_layer, mean_ms, t_start,
	       now_ns(CLOCK_REALTIME));
	if (exec)
		cudaGraphExecDestroy(exec);
	cudaFree(in);
	cudaFree(out);
	cudaFree(flag);
	return 0;
}
