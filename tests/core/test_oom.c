/*
 * Out of memory where it is reached by reading: an allocator that fails on
 * command (the test is linked with -Wl,--wrap=realloc, so every realloc of
 * the code under test comes here), and what each failure must leave:
 *   - tix_error_oom: the environment's class (exit 3), ENOMEM, the file named;
 *   - the growth rule (index/grow.h): a failed or overflowing growth leaves
 *     the array and its capacity as they were;
 *   - event_conv_adopt: the second half's open "B" events handed over when
 *     the room for them cannot be made stay the second half's alone (they
 *     were freed by both halves: a double free, seen by ASan and glibc).
 *
 *   test_oom [SRC_DIR BIN_DIR]   (both ignored)
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/grow.h"
#include "index/index.h"
#include "parse/events.h"
#include "tests/check.h"

static int fail_reallocs; /* set: every realloc fails */
void *__real_realloc(void *p, size_t n);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_realloc(void *p, size_t n)
{
	return fail_reallocs ? NULL : __real_realloc(p, n);
}

static void test_error_oom(void)
{
	struct tix_error e = {{0}, TIX_ERR_INPUT, 0};
	CHECK(tix_error_oom(&e, "x.json") == -1 && e.cls == TIX_ERR_ENV && e.code == ENOMEM &&
	              strcmp(e.msg, "x.json: out of memory") == 0,
	      "tix_error_oom names the file, class environment, ENOMEM (%s)", e.msg);
	CHECK(tix_error_oom(&e, NULL) == -1 && strcmp(e.msg, "out of memory") == 0 &&
	              e.code == ENOMEM,
	      "tix_error_oom without a file");
	tix_error_set(&e, "bad");
	CHECK(e.code == 0 && e.cls == TIX_ERR_INPUT, "tix_error_set has no code");
	tix_error_errno(&e, EACCES, "y");
	CHECK(e.code == EACCES && e.cls == TIX_ERR_ENV, "tix_error_errno keeps the errno");
	tix_error_sys(&e, ENOENT, "tmp");
	CHECK(e.code == ENOENT && e.cls == TIX_ERR_ENV,
	      "tix_error_sys: the environment's, whatever the errno");
}

static void test_grow(void)
{
	int *a = NULL;
	size_t cap = 0;
	CHECK(tix_grow(&a, &cap, 1, sizeof *a, 16) == 0 && cap == 16,
	      "first growth: the first size");
	CHECK(tix_grow(&a, &cap, 17, sizeof *a, 16) == 0 && cap == 32, "then doubling");
	CHECK(tix_grow(&a, &cap, 100, sizeof *a, 16) == 0 && cap == 128, "doubling until it fits");
	int *before = a;
	CHECK(tix_grow(&a, &cap, SIZE_MAX / 2, sizeof *a, 16) == -1 && a == before && cap == 128,
	      "a size past size_t fails and leaves the array");
	fail_reallocs = 1;
	CHECK(tix_grow(&a, &cap, 129, sizeof *a, 16) == -1 && a == before && cap == 128,
	      "a failed realloc leaves the array");
	fail_reallocs = 0;
	uint32_t c32 = UINT32_MAX / 2 + 1;
	CHECK(tix_grow_cap(c32, (size_t)c32 + 1, 16, UINT32_MAX) == UINT32_MAX,
	      "a uint32_t capacity stops at its largest");
	CHECK(tix_grow_cap(16, (size_t)UINT32_MAX + 1, 16, UINT32_MAX) == 0, "and past it, fails");
	free(a);
}

static int take_event(void *ctx, const struct tix_event_in *ev, struct tix_error *err)
{
	(void)ctx, (void)ev, (void)err;
	return 0;
}

static void begin(struct event_conv *c, int tid)
{
	struct shim_event ev;
	memset(&ev, 0, sizeof ev);
	ev.ph = (struct shim_str){"B", 1};
	ev.name = (struct shim_str){"op", 2};
	ev.ts = (struct shim_str){"1", 1};
	ev.pid = (struct shim_id){1, 1, {NULL, 0}};
	ev.tid = (struct shim_id){1, tid, {NULL, 0}};
	ev.correlation = -1;
	struct tix_error e;
	EXPECT(event_conv_take(c, &ev, &e) == 0, "a \"B\" event taken");
}

static void test_adopt(void)
{
	struct tix_sink sink = {0};
	sink.event = take_event;
	for (int fail = 0; fail < 2; fail++) {
		struct event_conv first, second;
		event_conv_init(&first, "t.json", &sink);
		event_conv_init(&second, "t.json", &sink);
		for (int i = 0; i < 15; i++) /* the first half's room: one place left of 16 */
			begin(&first, i);
		for (int i = 0; i < 3; i++)
			begin(&second, 100 + i);
		struct tix_error e = {{0}, TIX_ERR_INPUT, 0};
		fail_reallocs = fail;
		int rc = event_conv_adopt(&first, &second, &e);
		fail_reallocs = 0;
		if (fail)
			CHECK(rc == -1 && e.cls == TIX_ERR_ENV && e.code == ENOMEM &&
			              first.nopen == 15 && second.nopen == 3,
			      "adopt without room: out of memory, each half keeps its own (%s)",
			      e.msg);
		else
			CHECK(rc == 0 && first.nopen == 18 && second.nopen == 0,
			      "adopt: the 3 open events move");
		event_conv_done(&second); /* before the fix, a double free of the ones moved */
		event_conv_done(&first);
	}
}

int main(void)
{
	test_error_oom();
	test_grow();
	test_adopt();
	return checks_done("test_oom");
}
