/*
 * What a compare view's rows refer to (tix_view_ref), on units.tix (written
 * by core_units) against itself:
 *
 *   tix_view_refs UNITS.tix
 *
 * The launches of one kernel side by side (TIX_VIEW_CMP_LAUNCHES): its two
 * summary rows (one a side) refer to no event, each launch row to its own.
 * gcc -fanalyzer found the summary rows' event read from a struct never
 * set (index/view/cmp_launches.c, cl_ref): whatever the stack held, here
 * made zeros (event 0, a real row) before each ask.
 */
#include <string.h>

#include "index/view/view.h"
#include "tests/check.h"

/* Leaves zeros where the next call's locals will lie. */
static __attribute__((noinline)) void zero_stack(void)
{
	volatile unsigned char b[4096];
	memset((void *)b, 0, sizeof b);
}

int main(int argc, char **argv)
{
	struct tix_index *ix;
	struct tix_error err;
	if (argc != 2 || tix_index_open(argv[1], &ix, &err) != 0) {
		printf("FAIL  usage: tix_view_refs UNITS.tix (%s)\n", argc == 2 ? err.msg : "");
		return 1;
	}
	struct tix_compare_scope sc = {.step = TIX_NONE, .group = {0, 0}};
	struct tix_view *v = tix_view_compare(ix, ix, TIX_VIEW_CMP_LAUNCHES, &sc, &err);
	CHECK(v != NULL, "a compare view of group 0's launches (%s)", v ? "" : err.msg);
	if (v) {
		uint32_t n = tix_view_rows(v), members = tix_group_get(ix, 0)->members_count;
		CHECK(n == 2 + 2 * members, "two summary rows and %u launches a side: %u rows",
		      members, n);
		for (uint32_t row = 0; row < n; row++) {
			struct tix_view_ref r;
			zero_stack();
			tix_view_ref(v, row, &r);
			if (row < 2)
				CHECK(r.event == TIX_NONE,
				      "row %u, side %u's summary: no event (%u)", row, row,
				      r.event);
			else
				CHECK(r.event != TIX_NONE && r.event < tix_event_count(ix),
				      "row %u, a launch: its event (%u)", row, r.event);
		}
		tix_view_free(v);
	}
	tix_index_close(ix);
	return checks_done("core_view_refs");
}
