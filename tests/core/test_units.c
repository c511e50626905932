/*
 * Unit tests of the index module (white-box where it helps): the builder
 * and reader on a hand-made event sequence (two CPU threads, a kernel
 * linked by correlation, one by ac2g flow only, one with no launch, a
 * nested op chain with Input Dims, ProfilerStep#N steps, a memcpy, a
 * duration over 4.29 s), parents by containment, and linker_sort.  The
 * small pure functions are test_basics.c's.
 *
 *   test_units SRC_DIR BIN_DIR     (writes BIN_DIR/units*.tix)
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "index/build/builder.h"
#include "index/build/linker.h"
#include "index/index.h"
#include "parse/events.h"

#include "tests/check.h"

/* ---- builder + reader ---- */

#define S(lit) ((struct tix_str){lit, sizeof(lit) - 1})
#define CPU_PID 100
#define GPU_PID 0
#define STREAM 7
#define LONG_NS ((int64_t)5000000000LL) /* > 4.29 s: does not fit the row's u32 */

static struct tix_builder *B;
static struct tix_error E;
static int build_failed;

static void ev(enum tix_kind kind, int64_t pid, int64_t tid, int64_t start, int64_t dur, struct tix_str name,
               int64_t corr, const struct tix_launch_in *li, const struct tix_op_in *oi, struct tix_str args)
{
	struct tix_event_in e = {0};
	e.kind = kind;
	e.pid.num = pid;
	e.tid.num = tid;
	e.start_ns = start;
	e.dur_ns = dur;
	e.name = name;
	e.cat = (struct tix_str){tix_kind_cat(kind), strlen(tix_kind_cat(kind))};
	e.args = args;
	e.correlation = corr;
	e.launch = li;
	e.op = oi;
	if (tix_builder_add_event(B, &e, &E) != 0) {
		build_failed = 1;
		printf("FAIL  add_event: %s\n", E.msg);
	}
}

static void cpu(enum tix_kind k, int tid, int64_t start, int64_t dur, struct tix_str name, int64_t corr,
                const struct tix_op_in *oi)
{
	ev(k, CPU_PID, tid, start, dur, name, corr, NULL, oi, (struct tix_str){"", 0});
}

static void gpu(enum tix_kind k, int64_t start, int64_t dur, struct tix_str name, int64_t corr,
                const struct tix_launch_in *li)
{
	ev(k, GPU_PID, STREAM, start, dur, name, corr, li, NULL, S("{\"device\": 0, \"stream\": 7}"));
}

static void flow(int64_t pid, int64_t tid, int64_t ts, uint64_t id, int is_start)
{
	struct tix_flow_in f = {0};
	f.pid.num = pid;
	f.tid.num = tid;
	f.ts_ns = ts;
	f.id = id;
	f.is_start = is_start;
	f.is_ac2g = 1;
	if (tix_builder_add_flow(B, &f, &E) != 0) {
		build_failed = 1;
		printf("FAIL  add_flow: %s\n", E.msg);
	}
}

/* Finds the row of the event of this name starting at start (any track). */
static uint32_t find_row(struct tix_index *ix, const char *name, int64_t start)
{
	struct tix_event e;
	for (uint32_t r = 0; r < tix_event_count(ix); r++) {
		tix_event_get(ix, r, &e);
		if (e.start_ns == start && strcmp(tix_str(ix, e.name), name) == 0)
			return r;
	}
	return TIX_NONE;
}

static const struct tix_group *find_group(const struct tix_group *gs, uint32_t n, struct tix_index *ix,
                                          const char *name)
{
	for (uint32_t i = 0; i < n; i++)
		if (strcmp(tix_str(ix, gs[i].name), name) == 0)
			return &gs[i];
	return NULL;
}

static const struct tix_op *find_op(struct tix_index *ix, const char *name, uint32_t *pos)
{
	for (uint32_t i = 0; i < tix_op_count(ix); i++) {
		const struct tix_op *o = tix_op_get(ix, i);
		if (strcmp(tix_str(ix, o->name), name) == 0) {
			if (pos)
				*pos = i;
			return o;
		}
	}
	return NULL;
}

static int near(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

/* Adds the events in a scrambled order: the builder must not depend on it. */
static void add_sequence(int reverse)
{
	static const struct tix_launch_in cast = {
		.grid = {557496, 1, 1}, .block = {128, 1, 1}, .registers = 32, .shared_mem = 0,
		.dynamic_shared = -1, .blocks_per_sm = 4224.9f, .warps_per_sm = 16899.8f, .occupancy = 1.0f,
		.device = 0, .context = 1, .stream = STREAM, .bytes = -1};
	static const struct tix_launch_in gemm = {
		.grid = {1, 16, 8}, .block = {384, 1, 1}, .registers = 168, .shared_mem = 232448,
		.dynamic_shared = -1, .blocks_per_sm = -1, .warps_per_sm = -1, .occupancy = -1,
		.device = 0, .context = 1, .stream = STREAM, .bytes = -1};
	static const struct tix_launch_in copy = {
		.grid = {0, 0, 0}, .block = {0, 0, 0}, .registers = -1, .shared_mem = -1, .dynamic_shared = -1,
		.blocks_per_sm = -1, .warps_per_sm = -1, .occupancy = -1, .device = 0, .context = 1,
		.stream = STREAM, .bytes = 4096};
	static const struct tix_op_in copy_op = {
		.dims = S("[[495552, 1, 576], [495552, 1, 576], []]"),
		.types = S("[\"c10::BFloat16\", \"c10::Float8_e4m3fn\", \"Scalar\"]"),
		.strides = S(""), .concrete = S("")};
	static const struct tix_op_in to_op = {.dims = S("[[495552, 1, 576], [], []]"),
	                                       .types = S("[\"c10::Float8_e4m3fn\", \"Scalar\", \"\"]")};

	/* 16 closures, one event each, so the order can be reversed */
	for (int k = 0; k < 18; k++) {
		int i = reverse ? 17 - k : k;
		switch (i) {
		/* thread 1: two steps, a nested op chain, launches */
		case 0: cpu(TIX_KIND_USER_ANNOTATION, 1, 0, 1000000, S("ProfilerStep#1"), -1, NULL); break;
		case 1: cpu(TIX_KIND_USER_ANNOTATION, 1, 1000000, 1000000, S("ProfilerStep#2"), -1, NULL); break;
		case 2: cpu(TIX_KIND_CPU_OP, 1, 100, 9900, S("aten::to"), -1, &to_op); break;
		case 3: cpu(TIX_KIND_CPU_OP, 1, 200, 8800, S("aten::_to_copy"), -1, NULL); break;
		case 4: cpu(TIX_KIND_CPU_OP, 1, 300, 4700, S("aten::copy_"), -1, &copy_op); break;
		case 5: cpu(TIX_KIND_RUNTIME, 1, 400, 100, S("cudaLaunchKernel"), 11, NULL); break;
		case 6: cpu(TIX_KIND_CPU_OP, 1, 1000050, 350, S("aten::mm"), -1, NULL); break;
		case 7: cpu(TIX_KIND_RUNTIME, 1, 1000100, 50, S("cudaLaunchKernel"), 12, NULL); break;
		case 8: cpu(TIX_KIND_RUNTIME, 1, 1000300, 40, S("cudaLaunchKernel"), 14, NULL); break;
		case 9: cpu(TIX_KIND_RUNTIME, 1, 1000350, 30, S("cudaMemcpyAsync"), 15, NULL); break;
		/* thread 2: a launch with no correlation, linked by an ac2g flow */
		case 10: cpu(TIX_KIND_CPU_OP, 2, 500, 4500, S("t2::op"), -1, NULL); break;
		case 11: cpu(TIX_KIND_RUNTIME, 2, 600, 100, S("cudaLaunchKernel"), -1, NULL); break;
		case 12: cpu(TIX_KIND_RUNTIME, 2, 1000200, 60, S("cudaLaunchKernel"), 13, NULL); break;
		/* GPU stream 7 */
		case 13:
			gpu(TIX_KIND_KERNEL, 10000, 1000, S("castA"), 11, &cast);
			gpu(TIX_KIND_KERNEL, 1000500, 3000, S("castA"), 12, &cast);
			gpu(TIX_KIND_KERNEL, 1500000, 5000, S("castA"), 99, &cast); /* no launch */
			break;
		case 14:
			gpu(TIX_KIND_KERNEL, 20000, 2000, S("gemmB"), -1, &gemm);  /* flow only */
			gpu(TIX_KIND_KERNEL, 1001000, 4000, S("gemmB"), 13, &gemm);
			break;
		case 15: gpu(TIX_KIND_KERNEL, 1900000, LONG_NS, S("longK"), 14, &gemm); break;
		case 16: gpu(TIX_KIND_MEMCPY, 1002000, 100, S("Memcpy HtoD"), 15, &copy); break;
		case 17:
			flow(CPU_PID, 2, 600, 77, 1);
			flow(GPU_PID, STREAM, 20000, 77, 0);
			/* a dangling flow start and an unmatched end change nothing */
			flow(CPU_PID, 1, 400, 78, 1);
			flow(GPU_PID, STREAM, 777, 79, 0);
			break;
		}
	}
	struct tix_id pid = {CPU_PID, {NULL, 0}}, tid = {1, {NULL, 0}}, gp = {GPU_PID, {NULL, 0}},
	              gt = {STREAM, {NULL, 0}};
	if (tix_builder_set_track_meta(B, &pid, &tid, TIX_META_THREAD_NAME, "python main", 11, &E) ||
	    tix_builder_set_track_meta(B, &pid, &tid, TIX_META_PROCESS_NAME, "python3", 7, &E) ||
	    tix_builder_set_track_meta(B, &gp, &gt, TIX_META_THREAD_NAME, "stream 7 7", 10, &E) ||
	    tix_builder_set_meta(B, S("deviceProperties"), S("[{\"id\": 0, \"name\": \"H200\"}]"), &E) ||
	    tix_builder_warn(B, "first warning", &E) || tix_builder_warn(B, "second warning", &E)) {
		build_failed = 1;
		printf("FAIL  metadata: %s\n", E.msg);
	}
	tix_builder_set_base_time(B, 1700000000000000000LL);
}

static void check_index(struct tix_index *ix, const char *label)
{
	printf("-- checking %s\n", label);
	struct tix_summary_info si;
	tix_index_summary(ix, &si);
	CHECK(si.events == 20, "%s: 20 events (got %u)", label, si.events);
	CHECK(si.kind_counts[TIX_KIND_KERNEL] == 6 && si.kind_counts[TIX_KIND_MEMCPY] == 1 &&
	      si.kind_counts[TIX_KIND_RUNTIME] == 6 && si.kind_counts[TIX_KIND_CPU_OP] == 5 &&
	      si.kind_counts[TIX_KIND_USER_ANNOTATION] == 2,
	      "%s: kind counts 6 kernels, 1 memcpy, 6 runtime, 5 cpu ops, 2 annotations", label);
	CHECK(si.tracks == 3, "%s: 3 tracks (got %u)", label, si.tracks);
	CHECK(si.steps == 2 && strstr(si.step_rule, "ProfilerStep"), "%s: 2 steps by %s", label, si.step_rule);
	CHECK(si.gpu_without_launch == 1, "%s: 1 GPU event without launch (got %u)", label, si.gpu_without_launch);
	CHECK(si.base_time_ns == 1700000000000000000LL, "%s: base time kept", label);
	CHECK(si.first_ns == 0 && si.last_ns == 1900000 + LONG_NS, "%s: extent 0 .. %" PRId64 " (got %" PRId64
	      " .. %" PRId64 ")", label, 1900000 + LONG_NS, si.first_ns, si.last_ns);
	CHECK(strstr(si.warnings, "first warning") && strstr(si.warnings, "second warning"),
	      "%s: warnings joined: \"%s\"", label, si.warnings);
	CHECK(tix_meta_count(ix) == 1, "%s: one top-level meta key", label);
	if (tix_meta_count(ix) == 1) {
		const char *k, *v;
		tix_meta_get(ix, 0, &k, &v);
		CHECK(strcmp(k, "deviceProperties") == 0 && strstr(v, "H200"), "%s: meta %s", label, k);
	}

	/* tracks */
	uint32_t cpu1 = TIX_NONE, gputr = TIX_NONE;
	for (uint32_t t = 0; t < tix_track_count(ix); t++) {
		const struct tix_track *tr = tix_track_get(ix, t);
		if (tr->pid == CPU_PID && tr->tid == 1)
			cpu1 = t;
		if (tr->kind == TIX_TRACK_GPU)
			gputr = t;
	}
	CHECK(cpu1 != TIX_NONE && strcmp(tix_str(ix, tix_track_get(ix, cpu1)->name), "python main") == 0 &&
	      strcmp(tix_str(ix, tix_track_get(ix, cpu1)->process_name), "python3") == 0,
	      "%s: thread and process names", label);
	CHECK(gputr != TIX_NONE && tix_track_get(ix, gputr)->stream == STREAM &&
	      tix_track_get(ix, gputr)->row_count == 7, "%s: one GPU track, stream 7, 7 events", label);
	if (cpu1 == TIX_NONE || gputr == TIX_NONE)
		return;
	uint32_t lb = tix_track_lower_bound(ix, gputr, 1000500);
	struct tix_event e;
	tix_event_get(ix, lb, &e);
	CHECK(e.start_ns == 1000500, "%s: tix_track_lower_bound finds the kernel at 1000500", label);
	const struct tix_track *g = tix_track_get(ix, gputr);
	CHECK(tix_track_lower_bound(ix, gputr, INT64_MAX) == g->first_row + g->row_count,
	      "%s: lower bound past the end is the track end", label);

	/* links by correlation, with the nested op chain above the launch */
	uint32_t k1 = find_row(ix, "castA", 10000), l1 = find_row(ix, "cudaLaunchKernel", 400);
	uint32_t copy_ = find_row(ix, "aten::copy_", 300), toc = find_row(ix, "aten::_to_copy", 200),
	         to = find_row(ix, "aten::to", 100), st1 = find_row(ix, "ProfilerStep#1", 0);
	CHECK(k1 != TIX_NONE && l1 != TIX_NONE && copy_ != TIX_NONE && toc != TIX_NONE && to != TIX_NONE,
	      "%s: rows found", label);
	if (k1 == TIX_NONE || l1 == TIX_NONE || copy_ == TIX_NONE || toc == TIX_NONE || to == TIX_NONE)
		return;
	tix_event_get(ix, k1, &e);
	CHECK(e.launch == l1 && !(e.flags & (TIX_ROW_NO_LAUNCH | TIX_ROW_LINK_BY_FLOW)),
	      "%s: kernel linked to its launch by correlation", label);
	CHECK(e.kind == TIX_KIND_KERNEL && e.dur_ns == 1000, "%s: kernel kind and duration", label);
	CHECK(strcmp(tix_str(ix, e.args), "{\"device\": 0, \"stream\": 7}") == 0, "%s: args kept: %s", label,
	      tix_str(ix, e.args));
	CHECK(strcmp(tix_str(ix, e.cat), "kernel") == 0, "%s: category kept", label);
	const struct tix_kernel_info *ki = tix_kernel_info_get(ix, e.kernel_info);
	CHECK(ki && ki->grid[0] == 557496 && ki->grid[1] == 1 && ki->block[0] == 128 && ki->registers == 32 &&
	      ki->stream == STREAM && near(ki->occupancy, 1.0, 1e-6),
	      "%s: kernel info grid [557496,1,1] block [128,1,1] registers 32", label);
	struct tix_event l;
	tix_event_get(ix, l1, &l);
	CHECK(l.parent == copy_, "%s: launch's parent is aten::copy_", label);
	struct tix_event p;
	tix_event_get(ix, copy_, &p);
	CHECK(p.parent == toc, "%s: aten::copy_'s parent is aten::_to_copy", label);
	const struct tix_op_info *oi = tix_op_info_get(ix, p.op_info);
	CHECK(oi && strcmp(tix_str(ix, oi->dims), "[[495552, 1, 576], [495552, 1, 576], []]") == 0 &&
	      strstr(tix_str(ix, oi->types), "Float8_e4m3fn"),
	      "%s: aten::copy_ Input Dims and types", label);
	CHECK(oi && oi->strides == TIX_NONE, "%s: empty Input Strides stored as none", label);
	tix_event_get(ix, toc, &p);
	CHECK(p.parent == to, "%s: aten::_to_copy's parent is aten::to", label);
	CHECK(p.op_info == TIX_NONE || tix_op_info_get(ix, p.op_info) == NULL ||
	      tix_op_info_get(ix, p.op_info)->dims == TIX_NONE, "%s: op without details has none", label);
	tix_event_get(ix, to, &p);
	CHECK(p.parent == st1, "%s: aten::to's parent is the step marker", label);
	tix_event_get(ix, st1, &p);
	CHECK(p.parent == TIX_NONE && (p.flags & TIX_ROW_STEP_MARKER), "%s: step marker is outermost, flagged",
	      label);

	/* link by ac2g flow only */
	uint32_t k2 = find_row(ix, "gemmB", 20000), l2 = find_row(ix, "cudaLaunchKernel", 600),
	         t2op = find_row(ix, "t2::op", 500);
	tix_event_get(ix, k2, &e);
	CHECK(k2 != TIX_NONE && e.launch == l2 && (e.flags & TIX_ROW_LINK_BY_FLOW),
	      "%s: kernel without correlation linked by its ac2g flow, flagged", label);
	tix_event_get(ix, l2, &l);
	CHECK(l2 != TIX_NONE && l.parent == t2op, "%s: flow launch's parent is t2::op on thread 2", label);

	/* no launch */
	uint32_t k3 = find_row(ix, "castA", 1500000);
	tix_event_get(ix, k3, &e);
	CHECK(k3 != TIX_NONE && e.launch == TIX_NONE && (e.flags & TIX_ROW_NO_LAUNCH),
	      "%s: kernel with an unknown correlation is labelled no-launch", label);
	CHECK(tix_event_step(ix, k3) == 1, "%s: no-launch kernel in the step of its own start", label);

	/* long duration */
	uint32_t kl = find_row(ix, "longK", 1900000);
	tix_event_get(ix, kl, &e);
	CHECK(kl != TIX_NONE && e.dur_ns == LONG_NS && (e.flags & TIX_ROW_LONG_DUR),
	      "%s: 5 s kernel keeps its duration (got %" PRId64 ")", label, e.dur_ns);

	/* steps: a GPU event belongs to the step its launch began in */
	CHECK(tix_event_step(ix, k1) == 0 && tix_event_step(ix, k2) == 0, "%s: step-0 kernels", label);
	uint32_t k4 = find_row(ix, "castA", 1000500);
	CHECK(tix_event_step(ix, k4) == 1 && tix_event_step(ix, kl) == 1, "%s: step-1 kernels", label);
	CHECK(tix_event_step(ix, copy_) == 0, "%s: a CPU op is in the step containing its start", label);
	const struct tix_step *s0 = tix_step_get(ix, 0), *s1 = tix_step_get(ix, 1);
	CHECK(strcmp(tix_str(ix, s0->name), "ProfilerStep#1") == 0 && s0->start_ns == 0 && s0->dur_ns == 1000000 &&
	      s0->marker_row == st1, "%s: step 0 ProfilerStep#1 [0, 1 ms)", label);
	CHECK(s0->kernels == 2 && s0->gpu_events == 2 && s0->gpu_ns == 3000 && s0->gpu_busy_ns == 3000,
	      "%s: step 0: 2 kernels, gpu 3000, busy 3000 (got %u, %u, %" PRId64 ", %" PRId64 ")", label,
	      s0->kernels, s0->gpu_events, s0->gpu_ns, s0->gpu_busy_ns);
	CHECK(strcmp(tix_str(ix, s1->name), "ProfilerStep#2") == 0 && s1->start_ns == 1000000,
	      "%s: step 1 ProfilerStep#2", label);
	int64_t busy1 = 4500 + 5000 + LONG_NS, gpu1 = 3000 + 4000 + 100 + 5000 + LONG_NS;
	CHECK(s1->kernels == 4 && s1->gpu_events == 5 && s1->gpu_ns == gpu1 && s1->gpu_busy_ns == busy1,
	      "%s: step 1: 4 kernels, 5 events, gpu %" PRId64 ", busy %" PRId64 " (got %u, %u, %" PRId64
	      ", %" PRId64 ")", label, gpu1, busy1, s1->kernels, s1->gpu_events, s1->gpu_ns, s1->gpu_busy_ns);

	/* overall groups: sorted by total; stats */
	CHECK(tix_group_count(ix) == 4, "%s: 4 groups (got %u)", label, tix_group_count(ix));
	const struct tix_group *gs = tix_group_get(ix, 0);
	uint32_t ng = tix_group_count(ix);
	int sorted = 1;
	for (uint32_t i = 1; i < ng; i++)
		if (gs[i].total_ns > gs[i - 1].total_ns)
			sorted = 0;
	CHECK(sorted && strcmp(tix_str(ix, gs[0].name), "longK") == 0, "%s: groups by total, longK first", label);
	const struct tix_group *ga = find_group(gs, ng, ix, "castA"), *gb = find_group(gs, ng, ix, "gemmB"),
	                       *gm = find_group(gs, ng, ix, "Memcpy HtoD");
	CHECK(ga && ga->instances == 3 && ga->total_ns == 9000 && ga->min_ns == 1000 && ga->max_ns == 5000 &&
	      ga->med_ns == 3000 && near(ga->stddev_ns, sqrt(8e6 / 3), 0.5) && ga->step == TIX_NONE,
	      "%s: castA: 3 instances, median (odd) 3000, stddev 1633", label);
	CHECK(gb && gb->instances == 2 && gb->total_ns == 6000 && gb->med_ns == 3000 && near(gb->stddev_ns, 1000, 0.5),
	      "%s: gemmB: median (even) 3000, stddev 1000", label);
	CHECK(gm && gm->kind == TIX_KIND_MEMCPY && gm->instances == 1 && gm->stddev_ns == 0,
	      "%s: memcpy group", label);
	const struct tix_kernel_info *gki = ga ? tix_kernel_info_get(ix, ga->common_info) : NULL;
	CHECK(gki && gki->grid[0] == 557496, "%s: castA's common launch has grid 557496", label);
	CHECK(tix_total_gpu_ns(ix) == 9000 + 6000 + 100 + LONG_NS, "%s: total GPU time", label);
	if (ga) {
		const uint32_t *m = tix_members(ix, ga->members_first, ga->members_count);
		int ok = m != NULL;
		int64_t prev = INT64_MIN;
		for (uint32_t i = 0; ok && i < ga->members_count; i++) {
			tix_event_get(ix, m[i], &e);
			ok = strcmp(tix_str(ix, e.name), "castA") == 0 && e.start_ns >= prev;
			prev = e.start_ns;
		}
		CHECK(ok, "%s: castA members are its 3 kernels, by time", label);
	}

	/* per-step groups */
	uint32_t n1;
	const struct tix_group *sg = tix_step_groups(ix, 1, &n1);
	const struct tix_group *sa = sg ? find_group(sg, n1, ix, "castA") : NULL;
	CHECK(n1 == 4 && sa && sa->instances == 2 && sa->med_ns == 4000 && sa->total_ns == 8000 && sa->step == 1 &&
	      ga && sa->group == (uint32_t)(ga - gs), "%s: step 1 castA: 2 instances, median 4000", label);
	uint32_t n0;
	tix_step_groups(ix, 0, &n0);
	CHECK(n0 == 2, "%s: step 0 has 2 groups (got %u)", label, n0);
	CHECK(s1->top_group != TIX_NONE && strcmp(tix_str(ix, gs[s1->top_group].name), "longK") == 0,
	      "%s: step 1's top group is longK", label);

	/* ops ranked by GPU time launched beneath them; step markers left out */
	uint32_t pos_mm = 99, pos_t2 = 99, pos_copy = 99;
	const struct tix_op *omm = find_op(ix, "aten::mm", &pos_mm), *ot2 = find_op(ix, "t2::op", &pos_t2),
	                    *ocp = find_op(ix, "aten::copy_", &pos_copy), *oto = find_op(ix, "aten::to", NULL);
	CHECK(omm && omm->gpu_ns == 3000 + 100 + LONG_NS && omm->gpu_events == 3 && omm->calls == 1 &&
	      omm->cpu_ns == 350, "%s: aten::mm: GPU %" PRId64 " in 3 events", label, 3100 + LONG_NS);
	CHECK(ot2 && ot2->gpu_ns == 2000 && ot2->gpu_events == 1, "%s: t2::op gets the flow-linked kernel", label);
	CHECK(ocp && ocp->gpu_ns == 1000 && oto && oto->gpu_ns == 1000, "%s: copy_ and to get 1000 each", label);
	CHECK(pos_mm == 0 && pos_t2 == 1 && pos_copy >= 2, "%s: op ranking mm, t2::op, then the chain", label);
	CHECK(!find_op(ix, "ProfilerStep#1", NULL) && !find_op(ix, "ProfilerStep#2", NULL),
	      "%s: step markers are not ranked as ops", label);
	if (omm) {
		uint32_t nog;
		const struct tix_op_group *og = tix_op_groups(ix, pos_mm, &nog);
		int64_t sum = 0;
		for (uint32_t i = 0; og && i < nog; i++)
			sum += og[i].gpu_ns;
		CHECK(nog == 3 && sum == omm->gpu_ns, "%s: aten::mm's op groups add up", label);
	}

	/* source identity */
	struct tix_source_info src;
	tix_index_source(ix, &src);
	CHECK(src.size == 1234 && src.mtime_ns == 5678 && src.hash == 0xabcdef && strcmp(src.path, "hand-made") == 0 &&
	      strcmp(src.step_marker, "") == 0, "%s: source identity recorded", label);
	CHECK(strcmp(tix_str(ix, TIX_NONE), "") == 0 && tix_str_len(ix, TIX_NONE) == 0, "%s: string none is \"\"", label);
}

static int build_index(const char *path, int reverse, const char *marker)
{
	struct tix_build_opts bo = {.source_path = "hand-made", .source_size = 1234, .source_mtime_ns = 5678,
	                            .source_hash = 0xabcdef, .step_marker = marker};
	unlink(path);
	B = tix_builder_new(path, &bo, &E);
	if (!B) {
		printf("FAIL  tix_builder_new: %s\n", E.msg);
		failures++;
		return -1;
	}
	build_failed = 0;
	add_sequence(reverse);
	if (access(path, F_OK) == 0)
		CHECK(0, "nothing at %s before finish", path);
	if (tix_builder_finish(B, &E) != 0 || build_failed) {
		CHECK(0, "build %s: %s", path, E.msg);
		return -1;
	}
	return 0;
}

/* Containment, as Kineto writes with_stack=True: profiler.step()'s frame
 * starts inside ProfilerStep#1 and outlives it; ProfilerStep#2 starts inside
 * that frame.  A launch in step 2 must have ProfilerStep#2 (and the frame
 * only while it is open) as ancestors, never ProfilerStep#1.  Also: GPU
 * work launched before the trace, and a correlation id two processes use. */
static void add_overlap(void)
{
	cpu(TIX_KIND_PYTHON, 1, 0, 100000, S("main.py(1): <module>"), -1, NULL);
	cpu(TIX_KIND_USER_ANNOTATION, 1, 1000, 40000, S("ProfilerStep#1"), -1, NULL);
	cpu(TIX_KIND_PYTHON, 1, 30000, 20000, S("profiler.py(9): step"), -1, NULL);   /* outlives #1 */
	cpu(TIX_KIND_USER_ANNOTATION, 1, 41000, 50000, S("ProfilerStep#2"), -1, NULL);/* inside step() */
	cpu(TIX_KIND_RUNTIME, 1, 45000, 2000, S("cudaLaunchKernel"), 10, NULL);        /* in frame and #2 */
	cpu(TIX_KIND_CPU_OP, 1, 60000, 5000, S("aten::mm"), -1, NULL);
	cpu(TIX_KIND_RUNTIME, 1, 61000, 4500, S("cudaLaunchKernel"), 11, NULL);       /* ends 0.5 us late: inside */
	cpu(TIX_KIND_RUNTIME, 1, 65600, 300, S("cudaLaunchKernel"), 12, NULL);        /* starts after mm ends, within 1 us: sibling */
	gpu(TIX_KIND_KERNEL, 46000, 1000, S("k_a"), 10, NULL);
	gpu(TIX_KIND_KERNEL, 62000, 1000, S("k_b"), 11, NULL);
	gpu(TIX_KIND_KERNEL, 66000, 1000, S("k_c"), 12, NULL);
	gpu(TIX_KIND_KERNEL, 100, 200, S("k_early"), 3, NULL);                         /* before the trace */
	/* a second process reuses correlation 11, much later */
	ev(TIX_KIND_RUNTIME, 77, 77, 95000, 1000, S("cudaLaunchKernel"), 11, NULL, NULL, S(""));
	ev(TIX_KIND_KERNEL, 9, 9, 96000, 1000, S("k_other"), 11, NULL, NULL, S(""));
}

static void ancestors_are(struct tix_index *ix, uint32_t row, const char *want, const char *label)
{
	uint32_t a[16], n = tix_event_ancestors(ix, row, a, 16);
	char got[512] = "";
	for (uint32_t i = n; i-- > 0;) { /* outermost first */
		struct tix_event e;
		tix_event_get(ix, a[i], &e);
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", got[0] ? " > " : "",
		         tix_str(ix, e.name));
	}
	CHECK(strcmp(got, want) == 0, "%s: ancestors \"%s\" (want \"%s\")", label, got, want);
}

static void test_containment(const char *dir)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/units-overlap.tix", dir);
	unlink(path);
	struct tix_build_opts bo = {.source_path = "overlap"};
	B = tix_builder_new(path, &bo, &E);
	struct tix_index *ix;
	if (!B) {
		CHECK(0, "builder: %s", E.msg);
		return;
	}
	build_failed = 0;
	add_overlap();
	if (tix_builder_finish(B, &E) != 0 || build_failed || tix_index_open(path, &ix, &E) != 0) {
		CHECK(0, "overlap index: %s", E.msg);
		return;
	}
	ancestors_are(ix, find_row(ix, "cudaLaunchKernel", 45000),
	              "main.py(1): <module> > profiler.py(9): step > ProfilerStep#2",
	              "a launch inside step() and ProfilerStep#2, not #1");
	ancestors_are(ix, find_row(ix, "ProfilerStep#2", 41000), "main.py(1): <module>",
	              "ProfilerStep#2 starts inside step() but outlives it: a sibling");
	ancestors_are(ix, find_row(ix, "profiler.py(9): step", 30000), "main.py(1): <module>",
	              "step() starts inside ProfilerStep#1 and outlives it: a sibling");
	ancestors_are(ix, find_row(ix, "cudaLaunchKernel", 61000),
	              "main.py(1): <module> > ProfilerStep#2 > aten::mm", "overrunning by 0.5 us is inside");
	ancestors_are(ix, find_row(ix, "cudaLaunchKernel", 65600), "main.py(1): <module> > ProfilerStep#2",
	              "starting after the op ended is not inside it, even within the slack");
	uint32_t before = tix_step_before_trace(ix);
	CHECK(tix_step_count(ix) == 2 && before == 2, "two steps and before-the-trace (%u, %u)",
	      tix_step_count(ix), before);
	uint32_t early = find_row(ix, "k_early", 100);
	CHECK(early != TIX_NONE && tix_event_step(ix, early) == before, "GPU work before the trace is apart");
	const struct tix_step *s0 = tix_step_get(ix, 0), *s1 = tix_step_get(ix, 1);
	CHECK(s0 && s0->kernels == 0 && s1 && s1->kernels == 3,
	      "step 0 launched nothing, step 1 three kernels (%u, %u)", s0 ? s0->kernels : 99,
	      s1 ? s1->kernels : 99);
	struct tix_event k;
	tix_event_get(ix, find_row(ix, "k_other", 96000), &k);
	CHECK(k.launch == find_row(ix, "cudaLaunchKernel", 95000),
	      "a reused correlation id links to the launch just before the kernel");
	tix_event_get(ix, find_row(ix, "k_b", 62000), &k);
	CHECK(k.launch == find_row(ix, "cudaLaunchKernel", 61000), "... and the other kernel to its own");
	struct tix_summary_info si;
	tix_index_summary(ix, &si);
	CHECK(si.corr_collisions == 1 && strstr(si.warnings, "correlation ids") &&
	      strstr(si.warnings, "before the trace"),
	      "warnings recorded: \"%s\"", si.warnings);
	/* --by op over containment: aten::mm holds k_b only; the frame k_a only */
	uint32_t pos;
	const struct tix_op *mm = find_op(ix, "aten::mm", &pos);
	CHECK(mm && mm->gpu_events == 1 && mm->gpu_ns == 1000, "aten::mm: one GPU event beneath it");
	CHECK(tix_event_gpu_beneath(ix, find_row(ix, "aten::mm", 60000)) == 1, "gpu_beneath of aten::mm is 1");
	tix_index_close(ix);
}

static void test_builder(const char *dir)
{
	test_containment(dir);
	char path[4096], path2[4096], path3[4096];
	snprintf(path, sizeof(path), "%s/units.tix", dir);
	snprintf(path2, sizeof(path2), "%s/units-reversed.tix", dir);
	snprintf(path3, sizeof(path3), "%s/units-marker.tix", dir);
	struct tix_index *ix;
	if (build_index(path, 0, NULL) == 0 && tix_index_open(path, &ix, &E) == 0) {
		check_index(ix, "in order");
		tix_index_close(ix);
	} else {
		CHECK(0, "open %s: %s", path, E.msg);
	}
	if (build_index(path2, 1, NULL) == 0 && tix_index_open(path2, &ix, &E) == 0) {
		check_index(ix, "reversed");
		tix_index_close(ix);
	} else {
		CHECK(0, "open %s: %s", path2, E.msg);
	}
	/* a user marker replaces the defaults */
	if (build_index(path3, 0, "^aten::_to_copy$") == 0 && tix_index_open(path3, &ix, &E) == 0) {
		struct tix_source_info src;
		tix_index_source(ix, &src);
		const struct tix_step *s = tix_step_count(ix) ? tix_step_get(ix, 0) : NULL;
		CHECK(tix_step_count(ix) == 1 && s && s->start_ns == 200 && s->dur_ns == 8800 && s->kernels == 2,
		      "--step-marker: one step aten::_to_copy with the 2 kernels launched in it (both threads)");
		CHECK(strcmp(src.step_marker, "^aten::_to_copy$") == 0, "--step-marker recorded in the index");
		tix_index_close(ix);
	} else {
		CHECK(0, "open %s: %s", path3, E.msg);
	}
	/* abort leaves nothing behind */
	char ab[4096];
	snprintf(ab, sizeof(ab), "%s/units-aborted.tix", dir);
	unlink(ab);
	struct tix_build_opts bo = {0};
	B = tix_builder_new(ab, &bo, &E);
	if (B) {
		add_sequence(0);
		tix_builder_abort(B);
	}
	CHECK(B && access(ab, F_OK) != 0, "tix_builder_abort leaves no file");
	/* an empty index is valid: no events, one implicit step or none */
	char em[4096];
	snprintf(em, sizeof(em), "%s/units-empty.tix", dir);
	B = tix_builder_new(em, &bo, &E);
	int ok = B && tix_builder_finish(B, &E) == 0 && tix_index_open(em, &ix, &E) == 0;
	CHECK(ok, "an index without events builds and opens (%s)", ok ? "" : E.msg);
	if (ok) {
		CHECK(tix_event_count(ix) == 0 && tix_group_count(ix) == 0 && tix_op_count(ix) == 0,
		      "empty index: no events, groups, ops");
		tix_index_close(ix);
	}
	/* a builder in a folder that does not exist fails with a message */
	B = tix_builder_new("/nonexistent-dir/x.tix", &bo, &E);
	CHECK(B == NULL && strstr(E.msg, "/nonexistent-dir"), "builder in a missing folder: \"%s\"", E.msg);
	if (B)
		tix_builder_abort(B);
	/* the reader refuses what is not an index */
	char notix[4096];
	snprintf(notix, sizeof(notix), "%s/units-not.tix", dir);
	FILE *f = fopen(notix, "w");
	if (f) {
		fputs("{\"traceEvents\": []}\n" "padding padding padding padding padding padding padding padding", f);
		fclose(f);
	}
	CHECK(tix_index_open(notix, &ix, &E) != 0 && strstr(E.msg, notix) && strstr(E.msg, "not a tix index"),
	      "reader refuses JSON: \"%s\"", E.msg);
	CHECK(tix_index_open(dir, &ix, &E) != 0 && strstr(E.msg, dir), "reader refuses a folder: \"%s\"", E.msg);
}

struct sort_rec {
	uint32_t key, seq; /* seq: the order before the sort, for stability */
	uint64_t pad;
};

static int cmp_sort_rec(const void *a, const void *b)
{
	const struct sort_rec *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* linker_sort on the shapes it meets (sorted, a few sorted runs, reversed,
 * random with ties), small (heap buffer) and large (a spill buffer in
 * dir): sorted, stable, nothing lost. */
static void test_sort(const char *dir)
{
	struct tix_builder b;
	struct linker L;
	memset(&b, 0, sizeof(b));
	memset(&L, 0, sizeof(L));
	b.dir = (char *)dir;
	b.out_path = (char *)"units-sort";
	L.b = &b;
	static const size_t sizes[] = {0, 1, 2, 31, 1000, 200000};
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		size_t n = sizes[si];
		struct sort_rec *a = malloc((n + 1) * sizeof(*a));
		for (int shape = 0; shape < 4 && a; shape++) {
			uint64_t sum = 0;
			for (size_t i = 0; i < n; i++) {
				uint32_t k = shape == 0   ? (uint32_t)i
				             : shape == 1 ? (uint32_t)(i % 8) * 1000000u + (uint32_t)(i / 8)
				             : shape == 2 ? (uint32_t)(n - i)
				                          : (uint32_t)((i * 2654435761u) % 997u);
				a[i] = (struct sort_rec){k, (uint32_t)i, 0};
				sum += k;
			}
			int rc = linker_sort(&L, a, n, sizeof(*a), cmp_sort_rec, &E);
			int ok = rc == 0;
			uint64_t after = 0;
			for (size_t i = 0; i < n; i++) {
				after += a[i].key;
				if (i && (a[i - 1].key > a[i].key || (a[i - 1].key == a[i].key && a[i - 1].seq > a[i].seq)))
					ok = 0;
			}
			CHECK(ok && after == sum, "linker_sort: %zu records of shape %d sorted and stable (rc %d %s)", n,
			      shape, rc, E.msg);
		}
		free(a);
	}
	for (int i = 0; i < L.npool; i++)
		spill_done(&L.pool[i]);
}

int main(int argc, char **argv)
{
	const char *bin = argc > 2 ? argv[2] : ".";
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_builder(bin);
	test_sort(bin);
	return checks_done("test_units");
}
