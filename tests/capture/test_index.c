/*
 * tests/capture/test_index.c: the story journal through the real index
 * builder and reader: the cast kernel (grid 557496x1x1, block 128) links to
 * its cudaLaunchKernel, whose parents are aten::copy_ < aten::_to_copy <
 * aten::to < layer.00 < step[DECODE bs=1], the step the kernel belongs to;
 * the graph replay is labelled and stored as captured under that chain and
 * its capture-time launch, match exact.  Owner: cupti_capture.
 * Usage: test_index SRCDIR BINDIR.
 */
#define CAPTURE_TEST_CUPTI
#include "tests/capture/capture_test.h"

#include <sys/stat.h>
#include <unistd.h>

#include "cupti_capture/capture.h"
#include "index/build/builder.h"

/* The index of journal, built into out through the real builder; NULL
 * (after a line on stderr) when it could not be. */
static struct tix_index *index_of(const char *journal, const char *out)
{
	struct tix_error err = {0};
	struct tix_build_opts o = {.source_path = journal};
	struct tix_builder *b = tix_builder_new(out, &o, &err);
	struct tix_index *ix = NULL;
	struct tix_sink sink;
	if (b) {
		tix_builder_sink(b, &sink);
		if (tixcap_journal_read(journal, &sink, NULL, &err) != 0 ||
		    tix_builder_finish(b, &err) != 0 || tix_index_open(out, &ix, &err) != 0)
			ix = NULL;
	}
	if (!ix) {
		fprintf(stderr, "%s: %s\n", journal, err.msg);
		t_failures++;
	}
	return ix;
}

/* A kernel whose mangled name holds DF16b (std::bfloat16_t, which
 * libstdc++ 12's demangler does not know): the index's demangler, the one
 * every trace goes through, names it. */
static void bfloat16_name(const char *dir)
{
	static const char mangled[] = "_Z4castIDF16bEvPT_";
	struct fab f = {0};
	CUpti_ActivityKernel10 k;
	memset(&k, 0, sizeof k);
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.start = (uint64_t)STORY_T0 + 100;
	k.end = k.start + 1000;
	k.gridX = k.gridY = k.gridZ = k.blockX = k.blockY = k.blockZ = 1;
	k.correlationId = 5;
	k.name = mangled;
	fab_add(&f, &k, sizeof k);
	char journal[4096], out[4200];
	journal_from(&f, dir, NULL, 0, journal, sizeof journal);
	free(f.p);
	snprintf(out, sizeof out, "%s.tix", journal);
	struct tix_index *ix = index_of(journal, out);
	for (uint32_t row = 0; ix && row < tix_event_count(ix); row++) {
		struct tix_event e;
		tix_event_get(ix, row, &e);
		if (e.kind != TIX_KIND_KERNEL)
			continue;
		CHECK(strcmp(tix_str(ix, e.name), mangled) == 0);
		CHECK(strcmp(tix_str(ix, tix_name_full(ix, e.name)),
		             "void cast<std::bfloat16_t>(std::bfloat16_t*)") == 0);
	}
	if (ix)
		tix_index_close(ix);
	unlink(out);
	unlink(journal);
}

int main(int argc, char **argv)
{
	const char *bindir = argc > 2 ? argv[2] : ".";
	char dir[4096], journal[4096], out[4200];
	snprintf(dir, sizeof dir, "%s/index.%d", bindir, (int)getpid());
	mkdir(dir, 0755);
	struct fab f = {0};
	fab_story(&f);
	journal_from(&f, dir, NULL, 1, journal, sizeof journal);
	free(f.p);
	snprintf(out, sizeof out, "%s.tix", journal);

	struct tix_index *ix = index_of(journal, out);
	if (!ix)
		return 1;
	struct tix_summary_info si;
	tix_index_summary(ix, &si);
	CHECK_EQ_INT(si.kind_counts[TIX_KIND_KERNEL], 3);
	CHECK_EQ_INT(si.kind_counts[TIX_KIND_USER_ANNOTATION], 5);
	CHECK(si.steps >= 1);

	int found = 0, graph = 0;
	for (uint32_t row = 0; row < tix_event_count(ix); row++) {
		struct tix_event e;
		tix_event_get(ix, row, &e);
		if (e.kind != TIX_KIND_KERNEL)
			continue;
		if (e.flags & TIX_ROW_GRAPH_REPLAY) {
			graph++;
			/* the exact join ends in the index: captured under the NVTX
			 * chain and the captured launch, match exact, from the journal */
			struct tix_capture_view cv;
			CHECK_EQ_INT(tix_event_capture(ix, row, &cv), TIX_MATCH_EXACT);
			const char *want[] = {"step[DECODE bs=1]", "layer.00", "aten::to", "aten::_to_copy",
			                      "aten::copy_", "cudaLaunchKernel"};
			CHECK_EQ_INT(cv.nframes, 6);
			for (uint32_t i = 0; i < cv.nframes && i < 6; i++) {
				if (strcmp(tix_str(ix, cv.frames[i].name), want[i]) != 0) {
					fprintf(stderr, "captured frame %u is '%s', want '%s'\n", i,
					        tix_str(ix, cv.frames[i].name), want[i]);
					t_failures++;
				}
				CHECK_EQ_INT(cv.frames[i].kind, i < 5 ? TIX_KIND_USER_ANNOTATION : TIX_KIND_RUNTIME);
			}
			CHECK(cv.source != TIX_NONE && strcmp(tix_str(ix, cv.source), journal) == 0);
		} else if (e.kind == TIX_KIND_KERNEL) {
			struct tix_capture_view cv;
			CHECK_EQ_INT(tix_event_capture(ix, row, &cv), TIX_MATCH_NONE);
		}
		const struct tix_kernel_info *ki =
			e.kernel_info != TIX_NONE ? tix_kernel_info_get(ix, e.kernel_info) : NULL;
		if (!ki || ki->grid[0] != 557496 || (e.flags & TIX_ROW_GRAPH_REPLAY))
			continue;
		if (e.args != TIX_NONE && strstr(tix_str(ix, e.args), "no timestamp")) {
			/* the record without timestamps: kept, with no launch found */
			CHECK(e.launch == TIX_NONE && (e.flags & TIX_ROW_NO_LAUNCH));
			continue;
		}
		found++;
		/* one demangler: the journal gives the name mangled, and the index
		 * shows it demangled, the mangled one kept (as for Kineto traces) */
		CHECK(strcmp(tix_str(ix, e.name), STORY_KERNEL) == 0);
		CHECK(strcmp(tix_str(ix, tix_name_full(ix, e.name)), STORY_KERNEL_DEMANGLED) == 0);
		CHECK_EQ_INT(ki->grid[1], 1);
		CHECK_EQ_INT(ki->block[0], 128);
		CHECK_EQ_INT(ki->registers, 14);
		CHECK(e.launch != TIX_NONE);
		if (e.launch == TIX_NONE)
			continue;
		struct tix_event l;
		tix_event_get(ix, e.launch, &l);
		CHECK(strcmp(tix_str(ix, l.name), "cudaLaunchKernel") == 0);
		const char *want[] = {"aten::copy_", "aten::_to_copy", "aten::to", "layer.00",
		                      "step[DECODE bs=1]"};
		uint32_t p = l.parent;
		for (int i = 0; i < 5; i++) {
			CHECK(p != TIX_NONE);
			if (p == TIX_NONE)
				break;
			struct tix_event pe;
			tix_event_get(ix, p, &pe);
			if (strcmp(tix_str(ix, pe.name), want[i]) != 0) {
				fprintf(stderr, "parent %d is '%s', want '%s'\n", i, tix_str(ix, pe.name), want[i]);
				t_failures++;
			}
			p = pe.parent;
		}
		uint32_t s = tix_event_step(ix, row);
		CHECK(s != TIX_NONE);
		if (s != TIX_NONE)
			CHECK(strcmp(tix_str(ix, tix_step_get(ix, s)->name), "step[DECODE bs=1]") == 0);
	}
	CHECK_EQ_INT(found, 1);
	CHECK_EQ_INT(graph, 1);
	tix_index_close(ix);
	unlink(out);
	unlink(journal);
	bfloat16_name(dir);
	rmdir(dir);
	if (t_failures)
		fprintf(stderr, "test_index: %d failures\n", t_failures);
	else
		printf("test_index: ok\n");
	return t_failures ? 1 : 0;
}
