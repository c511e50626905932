/*
 * tests/capture/test_convert.c: fabricated CUPTI records -> the real
 * cuptiActivityGetNextRecord -> converter -> journal file -> journal reader
 * -> recording sink.  No GPU or driver needed.  Owner: cupti_capture.
 * Usage: test_convert SRCDIR BINDIR (BINDIR gets the scratch journals).
 */
#define CAPTURE_TEST_CUPTI
#include "tests/capture/capture_test.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cupti_capture/capture.h"
#include "cupti_capture/convert.h"
#include "cupti_capture/journal.h"

static void scratch_dir(char *out, size_t cap, const char *bindir, const char *name)
{
	snprintf(out, cap, "%s/%s.%d", bindir, name, (int)getpid());
	mkdir(out, 0755);
	DIR *d = opendir(out);
	struct dirent *de;
	char p[8192];
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "%s/%s", out, de->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
}

static void test_story(const char *bindir)
{
	char dir[4096], path[4096];
	scratch_dir(dir, sizeof dir, bindir, "convert");
	struct fab f = {0};
	fab_story(&f);
	journal_from(&f, dir, NULL, 1, path, sizeof path);

	struct rec_sink r;
	struct tix_sink s;
	rec_init(&r, &s);
	struct tixcap_journal_result res;
	struct tix_error err = {0};
	CHECK(tixcap_journal_read(path, &s, &res, &err) == 0);
	CHECK(!res.truncated);
	CHECK(r.base > 0 && r.base <= STORY_T0);

	/* the name as CUPTI gave it: the index demangles (test_index) */
	const struct rec_event *k = rec_find(&r, TIX_KIND_KERNEL, STORY_KERNEL);
	CHECK(k != NULL);
	if (k) {
		CHECK(strcmp(k->name, STORY_KERNEL) == 0);
		CHECK(k->has_launch);
		CHECK_EQ_INT(k->launch.grid[0], 557496);
		CHECK_EQ_INT(k->launch.grid[1], 1);
		CHECK_EQ_INT(k->launch.grid[2], 1);
		CHECK_EQ_INT(k->launch.block[0], 128);
		CHECK_EQ_INT(k->launch.registers, 14);
		CHECK_EQ_INT(k->launch.shared_mem, 0);
		CHECK_EQ_INT(k->launch.stream, 7);
		CHECK_EQ_INT(k->ev.correlation, 77);
		CHECK_EQ_INT(k->ev.pid.num, 0);  /* device */
		CHECK_EQ_INT(k->ev.tid.num, 7);  /* stream */
		CHECK_EQ_INT(k->ev.dur_ns, 830);
		CHECK_EQ_INT(k->ev.start_ns + r.base, STORY_T0 + 2100);
		CHECK_EQ_INT(k->launch.graph_id, 0);
	}
	const struct rec_event *api = rec_find(&r, TIX_KIND_RUNTIME, "cudaLaunchKernel");
	CHECK(api != NULL);
	if (api) {
		/* cbid 505 (__cudaLaunchKernel_v13000) is shown as the launch the
		 * program wrote */
		CHECK(strcmp(api->name, "cudaLaunchKernel") == 0);
		CHECK(strstr(api->args, "\"cbid\":505") != NULL);
		CHECK_EQ_INT(api->ev.correlation, 77);
		CHECK_EQ_INT(api->ev.pid.num, STORY_PID);
		CHECK_EQ_INT(api->ev.tid.num, STORY_TID);
	}
	CHECK(rec_find(&r, TIX_KIND_DRIVER, "cuLaunchKernel") != NULL);
	/* NVTX parent chain: each range encloses the launch call, nested. */
	const char *chain[] = {"step[DECODE bs=1]", "layer.00", "aten::to", "aten::_to_copy",
	                       "aten::copy_"};
	int64_t prev_s = INT64_MIN, prev_e = INT64_MAX;
	for (int i = 0; i < 5; i++) {
		const struct rec_event *m = rec_find(&r, TIX_KIND_USER_ANNOTATION, chain[i]);
		CHECK(m != NULL);
		if (!m || !api)
			continue;
		CHECK(strcmp(m->name, chain[i]) == 0);
		CHECK_EQ_INT(m->ev.tid.num, STORY_TID);
		int64_t e = m->ev.start_ns + m->ev.dur_ns;
		CHECK(m->ev.start_ns <= api->ev.start_ns && api->ev.start_ns + api->ev.dur_ns <= e);
		CHECK(prev_s <= m->ev.start_ns && e <= prev_e);
		prev_s = m->ev.start_ns;
		prev_e = e;
	}
	CHECK_EQ_INT(rec_count(&r, TIX_KIND_USER_ANNOTATION), 5);
	const struct rec_event *mc = rec_find(&r, TIX_KIND_MEMCPY, "Memcpy");
	CHECK(mc && strcmp(mc->name, "Memcpy HtoD (Pageable -> Device)") == 0);
	CHECK(mc && mc->launch.bytes == 4 && mc->ev.correlation == 76);
	const struct rec_event *ms = rec_find(&r, TIX_KIND_MEMSET, "Memset");
	CHECK(ms && strcmp(ms->name, "Memset (Device)") == 0 && ms->launch.bytes == 4);
	/* kernel without timestamps: kept, flagged, counted */
	int no_ts = 0, graph = 0;
	for (size_t i = 0; i < r.n; i++) {
		if (r.ev[i].ev.kind != TIX_KIND_KERNEL)
			continue;
		if (strstr(r.ev[i].args, "\"no timestamp\":true"))
			no_ts++;
		if (r.ev[i].launch.graph_id == 5) {
			graph++;
			CHECK_EQ_INT(r.ev[i].launch.graph_node_id, 2); /* low 32 bits */
			CHECK_EQ_INT(r.ev[i].ev.correlation, 90);
			CHECK(strstr(r.ev[i].args, "\"graph node\":4294967298") != NULL);
			/* the exact join reaches the sink as frames, outermost first,
			 * and nowhere else: the index stores and shows them */
			CHECK(strstr(r.ev[i].args, "captured") == NULL);
			CHECK(r.ev[i].captured && !strcmp(r.ev[i].captured,
			      "step[DECODE bs=1] > layer.00 > aten::to > aten::_to_copy > aten::copy_ > "
			      "cudaLaunchKernel"));
			CHECK_EQ_INT(r.ev[i].nframes, 6);
			CHECK_EQ_INT(r.ev[i].inner_kind, TIX_KIND_RUNTIME);
			CHECK_EQ_INT(r.ev[i].match, TIX_MATCH_EXACT);
			CHECK(r.ev[i].capture_source && !strcmp(r.ev[i].capture_source, path));
		} else {
			CHECK(r.ev[i].captured == NULL); /* eager kernels were captured by nothing */
		}
	}
	CHECK_EQ_INT(no_ts, 1);
	CHECK_EQ_INT(graph, 1);
	CHECK_EQ_INT(rec_count(&r, TIX_KIND_KERNEL), 3);
	CHECK(strstr(r.warnings, "1 GPU records had no timestamp") != NULL);
	CHECK(strstr(r.warnings, "not closed") == NULL);
	/* metadata: device, process, thread and stream names */
	int dev = 0, cap = 0;
	for (size_t i = 0; i < r.nmeta; i++) {
		if (!strcmp(r.meta_key[i], "deviceProperties"))
			dev = strstr(r.meta[i], "\"name\":\"NVIDIA H200\"") && strstr(r.meta[i], "\"numSms\":132");
		if (!strcmp(r.meta_key[i], "tixCapture"))
			cap = strstr(r.meta[i], "\"cmdline\":\"python3 -m sglang.launch_server\"") != NULL;
	}
	CHECK(dev);
	CHECK(cap);
	int thread = 0, stream = 0, gpu = 0;
	for (size_t i = 0; i < r.ntrack; i++) {
		thread |= strstr(r.track[i], "31337/4242 1=scheduler") != NULL;
		stream |= strstr(r.track[i], "0/7 1=stream 7") != NULL;
		gpu |= strstr(r.track[i], "0/0 0=GPU 0: NVIDIA H200") != NULL;
	}
	CHECK(thread && stream && gpu);
	CHECK_EQ_INT(res.records, r.n);
	rec_free(&r);
	free(f.p);
}

/* Windowed capture: only the launch at t+1500 falls inside [1450, 1650). */
static void test_window(const char *bindir)
{
	char dir[4096], path[4096];
	scratch_dir(dir, sizeof dir, bindir, "window");
	struct fab f = {0};
	fab_story(&f);
	struct tixcap_windows *win = malloc(sizeof *win);
	tixcap_windows_init(win, 1);
	tixcap_windows_open(win, STORY_T0 + 1450);
	tixcap_windows_note_call(win, 77); /* the launch's callback, at STORY_T0 + 1500 */
	tixcap_windows_close(win, STORY_T0 + 1650);
	CHECK(!tixcap_windows_is_open(win));
	journal_from(&f, dir, win, 0, path, sizeof path);

	struct rec_sink r;
	struct tix_sink s;
	rec_init(&r, &s);
	struct tix_error err = {0};
	CHECK(tixcap_journal_read(path, &s, NULL, &err) == 0);
	CHECK_EQ_INT(rec_count(&r, TIX_KIND_RUNTIME), 1);
	CHECK_EQ_INT(rec_count(&r, TIX_KIND_DRIVER), 0);
	CHECK_EQ_INT(rec_count(&r, TIX_KIND_MEMCPY), 0);
	CHECK_EQ_INT(rec_count(&r, TIX_KIND_MEMSET), 0);
	/* the cast ran after the window closed, but was launched inside it */
	const struct rec_event *k = rec_find(&r, TIX_KIND_KERNEL, STORY_KERNEL);
	CHECK(k && k->ev.correlation == 77);
	CHECK_EQ_INT(rec_count(&r, TIX_KIND_KERNEL), 1);
	/* the ranges around the window are kept as parents; none is unclosed */
	CHECK_EQ_INT(rec_count(&r, TIX_KIND_USER_ANNOTATION), 5);
	CHECK(strstr(r.warnings, "never closed") == NULL);
	int edges = 0;
	for (size_t i = 0; i < r.nmeta; i++)
		if (!strcmp(r.meta_key[i], "tixCapture"))
			edges = strstr(r.meta[i], "\"windows\":[[") != NULL;
	CHECK(edges);
	rec_free(&r);

	/* A window that never opens: nothing to write, so no file at all. */
	scratch_dir(dir, sizeof dir, bindir, "nowindow");
	tixcap_windows_init(win, 1);
	struct tixj_header h = {.pid = 1, .start_ns = STORY_T0};
	struct tixj_writer w;
	struct tixcap_conv c;
	tixj_writer_init(&w, dir, &h, "x", 1);
	tixcap_conv_init(&c, &w, win);
	struct fab g = {0};
	fab_api(&g, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
	        STORY_T0 + 1, STORY_T0 + 2, 1);
	fab_kernel(&g, STORY_T0 + 3, STORY_T0 + 4, 1, 0, 0);
	tixcap_conv_buffer(&c, g.p, g.len);
	CHECK(tixj_flush(&w) == 0);
	CHECK(w.fd < 0);
	tixj_writer_close(&w, NULL);
	tixcap_conv_done(&c);
	DIR *d = opendir(dir);
	int files = 0;
	struct dirent *de;
	while (d && (de = readdir(d)))
		files += de->d_name[0] != '.';
	if (d)
		closedir(d);
	CHECK_EQ_INT(files, 0);
	free(g.p);
	free(win);
	free(f.p);
}

/* The rows of one journal made from buffers converted in the order given
 * (CUPTI hands back the buffer of a kernel and of its launch call in
 * either order: they are filled on different threads). */
static void journal_of_buffers(const char *dir, struct tixcap_windows *win, struct fab *bufs,
                               int n, struct rec_sink *r)
{
	struct tixj_header h = {.pid = STORY_PID, .start_ns = STORY_T0};
	struct tixj_writer w;
	struct tixcap_conv c;
	CHECK(tixj_writer_init(&w, dir, &h, "x", 1) == 0);
	CHECK(tixcap_conv_init(&c, &w, win) == 0);
	for (int i = 0; i < n; i++)
		tixcap_conv_buffer(&c, bufs[i].p, bufs[i].len);
	CHECK(tixj_flush(&w) == 0);
	char path[4096];
	snprintf(path, sizeof path, "%s", w.path);
	tixj_writer_close(&w, &c.drops);
	tixcap_conv_done(&c);
	struct tix_sink s;
	rec_init(r, &s);
	struct tix_error err = {0};
	CHECK(tixcap_journal_read(path, &s, NULL, &err) == 0);
	unlink(path);
}

static int has_kernel(const struct rec_sink *r, uint32_t corr)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->ev[i].ev.kind == TIX_KIND_KERNEL && r->ev[i].ev.correlation == corr)
			return 1;
	return 0;
}

/* Windows [open[i], close[i]) with the calls noted in each (0 ends a
 * window's list), as the API callbacks note them. */
static struct tixcap_windows *windows_with(int n, const int64_t *open, const int64_t *close,
                                           const uint32_t *calls)
{
	struct tixcap_windows *win = malloc(sizeof *win);
	tixcap_windows_init(win, 1);
	for (int i = 0; i < n; i++) {
		tixcap_windows_open(win, open[i]);
		for (; *calls; calls++)
			tixcap_windows_note_call(win, *calls);
		calls++;
		tixcap_windows_close(win, close[i]);
	}
	return win;
}

/* A kernel launched in a window and run after it closed is kept when its
 * buffer comes back before its launch call's: before, the window learnt
 * the call's id from its record, too late for the kernel. */
static void test_window_order(const char *bindir)
{
	char dir[4096];
	scratch_dir(dir, sizeof dir, bindir, "order");
	const int64_t open = STORY_T0 + 1000, close = STORY_T0 + 2000;
	const uint32_t calls[] = {77, 0}; /* cudaLaunchKernel's callback */
	struct tixcap_windows *win = windows_with(1, &open, &close, calls);
	struct fab b[2] = {{0}, {0}};
	fab_kernel(&b[0], STORY_T0 + 3000, STORY_T0 + 4000, 77, 0, 0); /* after the close */
	fab_kernel(&b[0], STORY_T0 + 3000, STORY_T0 + 4000, 78, 0, 0); /* launched after it */
	fab_api(&b[1], CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
	        STORY_T0 + 1500, STORY_T0 + 1600, 77);
	struct rec_sink r;
	journal_of_buffers(dir, win, b, 2, &r); /* the kernels' buffer first */
	CHECK(has_kernel(&r, 77));
	CHECK(!has_kernel(&r, 78));
	CHECK_EQ_INT(rec_count(&r, TIX_KIND_RUNTIME), 1);
	rec_free(&r);
	free(b[0].p);
	free(b[1].p);
	free(win);
	rmdir(dir);
}

/* Correlation ids are CUPTI's u32 and wrap on a long run: a window whose
 * calls span the wrap keeps its kernels and no others, and an old window's
 * ids seen again long after it closed are a later call's. */
static void test_window_wrap(const char *bindir)
{
	char dir[4096];
	scratch_dir(dir, sizeof dir, bindir, "wrap");
	int64_t w2 = STORY_T0 + 1000000000LL; /* a second window, 1 s later */
	const int64_t open[] = {STORY_T0 + 1000, w2}, close[] = {STORY_T0 + 2000, w2 + 1000};
	const uint32_t calls[] = {0xfffffff0u, 0xffffffffu, 3, 0x10, 0, 100, 200, 0};
	struct tixcap_windows *win = windows_with(2, open, close, calls);
	struct fab b = {0};
	int64_t after = w2 + 5000000; /* every kernel starts after both windows */
	fab_kernel(&b, after, after + 10, 5, 0, 0);            /* window 1, past the wrap */
	fab_kernel(&b, after, after + 10, 0xfffffff5u, 0, 0);  /* window 1, before it */
	fab_kernel(&b, after, after + 10, 0x20, 0, 0);         /* no window's */
	fab_kernel(&b, after, after + 10, 0x7fffffffu, 0, 0);  /* no window's */
	fab_kernel(&b, after, after + 10, 150, 0, 0);          /* window 2 */
	int64_t late = w2 + 1000 + 2 * 3600 * 1000000000LL;    /* two hours after it closed */
	fab_kernel(&b, late, late + 10, 151, 0, 0);            /* a wrapped id: not window 2's */
	struct rec_sink r;
	journal_of_buffers(dir, win, &b, 1, &r);
	CHECK(has_kernel(&r, 5));
	CHECK(has_kernel(&r, 0xfffffff5u));
	CHECK(!has_kernel(&r, 0x20));
	CHECK(!has_kernel(&r, 0x7fffffffu));
	CHECK(has_kernel(&r, 150));
	CHECK(!has_kernel(&r, 151));
	CHECK_EQ_INT(rec_count(&r, TIX_KIND_KERNEL), 3);
	rec_free(&r);
	free(b.p);
	free(win);
	rmdir(dir);
}

static void test_not_journal(void)
{
	struct rec_sink r;
	struct tix_sink s;
	rec_init(&r, &s);
	struct tix_error err = {0};
	const char junk[] = "{\"traceEvents\": []}";
	CHECK(!tixcap_is_journal(junk, sizeof junk));
	CHECK(tixcap_journal_read_mem(junk, sizeof junk, "junk.json", &s, NULL, &err) == -1);
	CHECK(strstr(err.msg, "junk.json: not a tix capture journal") != NULL);
	CHECK(tixcap_journal_read("/nonexistent/x.tixj", &s, NULL, &err) == -1);
	CHECK(strstr(err.msg, "/nonexistent/x.tixj") != NULL);
	rec_free(&r);
}

/* `test_convert --emit DIR`: writes the story journal into DIR (for the
 * launcher and CLI tests, whose dummy command "runs CUDA" this way). */
static int emit_story(const char *dir)
{
	struct fab f = {0};
	fab_story(&f);
	char path[4096];
	journal_from(&f, dir, NULL, 1, path, sizeof path);
	free(f.p);
	printf("%s\n", path);
	return t_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "--emit"))
		return emit_story(argv[2]);
	const char *bindir = argc > 2 ? argv[2] : ".";
	test_story(bindir);
	test_window(bindir);
	test_window_order(bindir);
	test_window_wrap(bindir);
	test_not_journal();
	if (t_failures)
		fprintf(stderr, "test_convert: %d failures\n", t_failures);
	else
		printf("test_convert: ok\n");
	return t_failures ? 1 : 0;
}
