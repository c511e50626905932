/*
 * tests/capture/gpu_standin.c: tests/gpu/e2e_decode.cu's stand-in for the
 * GPU script's rehearsal on a machine without a GPU (test_gpu_scripts.sh):
 * the same options and the same output lines, the decode loop played by
 * the stand-in libcupti (fake_cupti.c, found as libcupti.so.13 on the
 * library path) instead of a GPU.  It does what libcuda and NVTX do with
 * the injection variables that `tix capture` sets: loads
 * CUDA_INJECTION64_PATH and calls its InitializeInjection (libcuda does so
 * inside cuInit), and hands NVTX to NVTX_INJECTION64_PATH's
 * InitializeInjectionNvtx2.  Owner: cupti_capture.
 *
 *   gpu_standin [--steps N] [--layers 78] [--mode eager|graph]
 *               [--profile A:B] [--tiny] [--per-layer N] [--progress]
 *
 * Keep its options and output in step with e2e_decode.cu.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static const void *nvtx_table(unsigned id) { return NULL; }

static void *symbol(const char *lib, const char *name)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
	void *f = h ? dlsym(h, name) : NULL;
	if (!f)
		fprintf(stderr, "gpu_standin: %s: %s%s\n", lib, h ? "no " : dlerror(), h ? name : "");
	return f;
}

int main(int argc, char **argv)
{
	int steps = 5, layers = 78, graph = 0, prof_a = -1, prof_b = -1, progress = 0, tiny = 0;
	int per_layer = 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--steps") && i + 1 < argc)
			steps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--layers") && i + 1 < argc)
			layers = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--mode") && i + 1 < argc)
			graph = !strcmp(argv[++i], "graph");
		else if (!strcmp(argv[i], "--profile") && i + 1 < argc)
			sscanf(argv[++i], "%d:%d", &prof_a, &prof_b);
		else if (!strcmp(argv[i], "--tiny"))
			tiny = 1;
		else if (!strcmp(argv[i], "--per-layer") && i + 1 < argc)
			per_layer = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--progress"))
			progress = 1;
		else {
			fprintf(stderr, "usage: gpu_standin [--steps N] [--mode eager|graph] "
			                "[--profile A:B] [--tiny] [--per-layer N] [--progress]\n");
			return 1;
		}
	}
	if (layers != 78) {
		fprintf(stderr, "gpu_standin: the stand-in plays 78 layers only\n");
		return 1;
	}
	long long t_start = now_ns(CLOCK_REALTIME);
	int tid = (int)syscall(SYS_gettid);
	const char *inj = getenv("CUDA_INJECTION64_PATH");
	if (inj && *inj) { /* libcuda, inside cuInit */
		int (*init)(void) = (int (*)(void))symbol(inj, "InitializeInjection");
		if (init)
			init();
	}
	const char *nv = getenv("NVTX_INJECTION64_PATH");
	if (nv && *nv) { /* NVTX, at its first call */
		int (*init)(const void *(*)(unsigned)) = NULL;
		*(void **)&init = symbol(nv, "InitializeInjectionNvtx2");
		if (init)
			init(nvtx_table);
	}
	void (*run)(const char *) = NULL;
	*(void **)&run = symbol("libcupti.so.13", "tixfake_run");
	if (!run)
		return 2; /* as e2e_decode does when CUDA cannot start */
	char spec[128];
	snprintf(spec, sizeof spec, "%s steps=%d%s", graph ? "graph" : "eager", steps,
	         progress ? " progress" : "");
	if (prof_a >= 0) {
		size_t l = strlen(spec);
		snprintf(spec + l, sizeof spec - l, " profile=%d:%d", prof_a, prof_b);
	}
	long long t0 = now_ns(CLOCK_MONOTONIC);
	run(spec);
	long long t1 = now_ns(CLOCK_MONOTONIC);
	double mean_ms = steps ? (t1 - t0) / 1e6 / steps : 0;
	printf("{\"mode\":\"%s\",\"steps\":%d,\"layers\":%d,\"tid\":%d,\"pid\":%d,\"numRegs\":14,"
	       "\"staticSmem\":0,\"blocks\":557496,\"tiny\":%d,\"per_layer\":%d,\"mean_step_ms\":%.4f,"
	       "\"t_start_ns\":%lld,\"t_end_ns\":%lld}\n",
	       graph ? "graph" : "eager", steps, layers, tid, (int)getpid(), tiny, per_layer, mean_ms,
	       t_start, now_ns(CLOCK_REALTIME));
	return 0;
}
