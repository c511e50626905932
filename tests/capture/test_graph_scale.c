/*
 * tests/capture/test_graph_scale.c: the graph join at the scale of an
 * SGLang rank.  Reads a journal from gen_graph_journal (tens of thousands
 * of captured nodes, hundreds of thousands of replayed kernels) through a
 * counting sink: every replayed kernel must reach the sink joined exactly
 * to the node that captured it, and the read must take well under
 * MAX_SECONDS (a join that scans every node for every kernel took 42 s on
 * the journal the test uses, on the 2-core dev machine; the hash join 0.6 s).
 * Owner: cupti_capture.  Usage: test_graph_scale JOURNAL KERNELS MAX_SECONDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cupti_capture/capture.h"

struct counts { uint64_t kernels, exact, bad; };

static int on_event(void *ctx, const struct tix_event_in *ev, struct tix_error *err)
{
	struct counts *c = ctx;
	if (ev->kind != TIX_KIND_KERNEL)
		return 0;
	c->kernels++;
	const struct tix_capture_in *cap = ev->captured;
	static const char head[] = "cuda_graph_capture bs=", launch[] = "cudaLaunchKernel";
	if (cap && cap->match == TIX_MATCH_EXACT && cap->nframes == 4 &&
	    cap->frames[0].name.len > sizeof head - 1 &&
	    !memcmp(cap->frames[0].name.ptr, head, sizeof head - 1) &&
	    cap->frames[3].name.len == sizeof launch - 1 &&
	    !memcmp(cap->frames[3].name.ptr, launch, sizeof launch - 1) &&
	    cap->frames[3].kind == TIX_KIND_RUNTIME)
		c->exact++;
	else if (c->bad++ == 0)
		fprintf(stderr, "kernel at %lld: not joined exactly to its capture\n",
		        (long long)ev->start_ns);
	return 0;
}
static int on_flow(void *ctx, const struct tix_flow_in *f, struct tix_error *e) { return 0; }
static int on_track(void *ctx, const struct tix_id *p, const struct tix_id *t, enum tix_meta_key k,
                    const char *v, size_t n, struct tix_error *e) { return 0; }
static int on_meta(void *ctx, struct tix_str k, struct tix_str j, struct tix_error *e) { return 0; }
static int on_warn(void *ctx, const char *msg, struct tix_error *e)
{
	fprintf(stderr, "warning: %s\n", msg);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: test_graph_scale JOURNAL KERNELS MAX_SECONDS\n");
		return 2;
	}
	uint64_t want = strtoull(argv[2], NULL, 10);
	double max_s = atof(argv[3]);
	struct counts c = {0};
	struct tix_sink s = {&c, on_event, on_flow, on_track, on_meta, NULL, on_warn, NULL, NULL};
	struct tix_error err = {0};
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = tixcap_journal_read(argv[1], &s, NULL, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s_taken = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	int fails = 0;
	if (rc != 0) {
		fprintf(stderr, "read: %s\n", err.msg);
		fails++;
	}
	if (c.kernels != want || c.exact != want) {
		fprintf(stderr, "%llu kernels, %llu joined exactly; want %llu of each\n",
		        (unsigned long long)c.kernels, (unsigned long long)c.exact, (unsigned long long)want);
		fails++;
	}
	if (s_taken > max_s) {
		fprintf(stderr, "reading took %.2f s, more than %.1f s: is the graph join linear?\n", s_taken,
		        max_s);
		fails++;
	}
	printf("test_graph_scale: %s: %llu kernels joined exactly in %.3f s\n", fails ? "FAIL" : "ok",
	       (unsigned long long)c.exact, s_taken);
	return fails ? 1 : 0;
}
