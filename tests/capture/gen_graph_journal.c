/*
 * tests/capture/gen_graph_journal.c: writes a capture journal shaped like
 * an SGLang rank that decodes with CUDA graphs: GRAPHS graphs captured at
 * start (one per batch size), NODES kernel nodes each with their NVTX
 * frames and launch call, the copies made by instantiation, then replays
 * cycling over the graphs until KERNELS replayed kernels were recorded,
 * each replay a cudaGraphLaunch inside step[DECODE bs=N].  For the scale
 * test (capture_graph_scale) and bench/graph_journal.sh.  Owner:
 * cupti_capture.
 * Usage: gen_graph_journal DIR KERNELS [GRAPHS [NODES]]  (prints the path)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_capture/journal.h"

#define T0 1700000000000000000LL
#define TID 4242u

static void fail(const char *what)
{
	fprintf(stderr, "gen_graph_journal: %s\n", what);
	exit(1);
}

/* Captured node n of graph g, and its instantiated copy. */
static uint64_t captured(uint32_t g, uint32_t n) { return ((uint64_t)(2 * g + 1) << 32) | n; }
static uint64_t instance(uint32_t g, uint32_t n) { return ((uint64_t)(2 * g + 2) << 32) | n; }

int main(int argc, char **argv)
{
	if (argc < 3)
		fail("usage: gen_graph_journal DIR KERNELS [GRAPHS [NODES]]");
	uint64_t kernels = strtoull(argv[2], NULL, 10);
	uint32_t graphs = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 52;
	uint32_t nodes = argc > 4 ? (uint32_t)strtoul(argv[4], NULL, 10) : 780;
	if (!kernels || !graphs || !nodes)
		fail("KERNELS, GRAPHS and NODES must be > 0");
	struct tixj_header h = {.pid = 31337, .start_ns = T0, .flush_ms = 250};
	snprintf(h.host, sizeof h.host, "genhost");
	static const char cmd[] = "python3\0-m\0sglang.launch_server\0";
	struct tixj_writer w;
	if (tixj_writer_init(&w, argv[1], &h, cmd, sizeof cmd - 1) != 0)
		fail("out of memory");
	uint32_t launch = tixj_intern(&w, "__cudaLaunchKernel_v13000", 25);
	uint32_t graph_launch = tixj_intern(&w, "cudaGraphLaunch_v10000", 22);
	uint32_t names[10];
	for (int k = 0; k < 10; k++) {
		char name[64];
		int n = snprintf(name, sizeof name, "_Z13fused_kernel%dPKfPf", k); /* fused_kernelK(float const*, float*) */
		names[k] = tixj_intern(&w, name, (size_t)n);
	}
	int64_t t = T0 + 1000;
	/* the captures, then instantiation */
	for (uint32_t g = 0; g < graphs; g++) {
		for (uint32_t n = 0; n < nodes; n++) {
			char frames[128];
			int len = snprintf(frames, sizeof frames, "cuda_graph_capture bs=%u%clayer.%02u%cop.%u",
			                   g + 1, 0, n / 10, 0, n % 10);
			struct tixj_graph_node c = {
				.node_id = captured(g, n), .ts = t++, .graph_id = 2 * g + 1, .tid = TID,
				.how = TIXJ_G_CREATED, .frames = tixj_intern(&w, frames, (size_t)len + 1),
				.api = launch, .correlation = (uint32_t)(g * nodes + n + 1), .cbid = 505,
				.domain = TIXJ_API_RUNTIME,
			};
			tixj_add(&w, TIXJ_GRAPH_NODES, &c, c.ts, c.ts);
		}
		for (uint32_t n = 0; n < nodes; n++) {
			struct tixj_graph_node c = {
				.node_id = instance(g, n), .orig_node_id = captured(g, n), .ts = t++,
				.graph_id = 2 * g + 2, .tid = TID, .how = TIXJ_G_CLONED,
				.frames = TIXJ_NONE, .api = TIXJ_NONE,
			};
			tixj_add(&w, TIXJ_GRAPH_NODES, &c, c.ts, c.ts);
		}
	}
	/* the replays */
	char step[64];
	uint32_t corr = graphs * nodes + 1, marker = 1;
	for (uint64_t done = 0, r = 0; done < kernels; r++) {
		uint32_t g = (uint32_t)(r % graphs);
		int n = snprintf(step, sizeof step, "step[DECODE bs=%u]", g + 1);
		struct tixj_marker m = {.ts = t, .id = marker, .flags = TIXJ_M_START, .tid = TID,
		                        .name = tixj_intern(&w, step, (size_t)n), .domain = TIXJ_NONE};
		tixj_add(&w, TIXJ_MARKERS, &m, m.ts, m.ts);
		struct tixj_api a = {.start = t + 10, .end = t + 20, .name = graph_launch, .cbid = 311,
		                     .tid = TID, .correlation = corr, .domain = TIXJ_API_RUNTIME};
		tixj_add(&w, TIXJ_APIS, &a, a.start, a.end);
		int64_t k0 = t + 100;
		for (uint32_t i = 0; i < nodes && done < kernels; i++, done++) {
			struct tixj_kernel k = {
				.start = k0 + (int64_t)i * 1000, .end = k0 + (int64_t)i * 1000 + 900,
				.graph_node_id = instance(g, i), .name = names[i % 10], .correlation = corr,
				.stream = 7, .graph_id = 2 * g + 2, .grid = {1024, 1, 1}, .block = {128, 1, 1},
				.registers = 32,
			};
			tixj_add(&w, TIXJ_KERNELS, &k, k.start, k.end);
		}
		t = k0 + (int64_t)nodes * 1000 + 100;
		m = (struct tixj_marker){.ts = t, .id = marker++, .flags = TIXJ_M_END, .tid = TID,
		                         .name = TIXJ_NONE, .domain = TIXJ_NONE};
		tixj_add(&w, TIXJ_MARKERS, &m, m.ts, m.ts);
		corr++;
		t += 1000;
		if (tixj_staged_rows(&w) > 50000 && tixj_flush(&w) != 0) /* one flush, like the writer thread */
			fail("cannot write the journal");
	}
	if (tixj_flush(&w) != 0)
		fail("cannot write the journal");
	printf("%s\n", w.path);
	struct tixj_drops d = {0};
	tixj_writer_close(&w, &d);
	return 0;
}
