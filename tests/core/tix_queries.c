/*
 * The reader's queries over many rows against the plain way of asking the
 * same, on real indexes (tests/core/e2e_queries.py builds them):
 *
 *   tix_queries INDEX.tix...
 *
 * - tix_find_by_name: for every name alone, all names, a third of them and
 *   none, with several caps, against a pass over every row sorted by (start,
 *   row);
 * - tix_rows_beneath and tix_group_beneath_op: for ops and the groups they
 *   launched (overall and in a step) and some they did not, against
 *   tix_event_ancestors of each launch;
 * - tix_longest_gap: for every step and cause, against a pass over every
 *   row (the step's GPU work in (start, row) order, the gaps of its union,
 *   each with the cause docs/FINDINGS.md gives it), whose sums by cause
 *   must also be the step's breakdown (tix_breakdown_get);
 * - tix_index_check_all finds nothing; tix_index_check_background runs
 *   beside the queries, and a close while it runs stops it.
 * Exits 1 on any difference.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/index.h"

static int failures, checks;

#define CHECK(cond, ...)                                         \
	do {                                                     \
		checks++;                                        \
		if (!(cond)) {                                   \
			failures++;                              \
			printf("FAIL  ");                        \
			printf(__VA_ARGS__);                     \
			printf("\n");                            \
		}                                                \
	} while (0)

struct hit {
	int64_t start;
	uint32_t row;
};

static int hit_cmp(const void *pa, const void *pb)
{
	const struct hit *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->row < b->row ? -1 : a->row > b->row;
}

static int accept(void *ctx, uint32_t name)
{
	const uint8_t *want = ctx;
	return want[name];
}

/* want: accepted name ids (strings + 1 bytes). */
static void find_one(const struct tix_index *ix, const uint8_t *want, const char *what)
{
	uint32_t ne = tix_event_count(ix), n = 0;
	struct hit *h = malloc(((size_t)ne + 1) * sizeof(*h));
	for (uint32_t r = 0; r < ne; r++) {
		struct tix_event e;
		tix_event_get(ix, r, &e);
		if (want[e.name])
			h[n++] = (struct hit){e.start_ns, r};
	}
	qsort(h, n, sizeof(*h), hit_cmp);
	uint32_t caps[] = {UINT32_MAX, 1, 7, n / 2, 0};
	for (size_t c = 0; c < sizeof(caps) / sizeof(caps[0]); c++) {
		uint32_t *rows;
		long got = tix_find_by_name(ix, accept, (void *)want, caps[c], &rows);
		uint32_t k = n < caps[c] ? n : caps[c];
		int same = got == (long)n && (k == 0 || rows);
		for (uint32_t i = 0; same && i < k; i++)
			same = rows[i] == h[i].row;
		CHECK(same, "%s: tix_find_by_name %s, cap %u: %ld rows, the scan %u", tix_index_path(ix), what, caps[c],
		      got, n);
		free(rows);
	}
	free(h);
}

static void test_find(const struct tix_index *ix)
{
	struct tix_summary_info si;
	tix_index_summary(ix, &si);
	uint8_t *names = calloc((size_t)si.strings + 1, 1), *want = calloc((size_t)si.strings + 1, 1);
	for (uint32_t r = 0; r < si.events; r++) {
		struct tix_event e;
		tix_event_get(ix, r, &e);
		names[e.name] = 1;
	}
	uint32_t tried = 0;
	for (uint32_t s = 0; s < si.strings && tried < 40; s++) {
		if (!names[s])
			continue;
		want[s] = 1;
		char what[64];
		snprintf(what, sizeof what, "name %u", s);
		find_one(ix, want, what);
		want[s] = 0;
		tried++;
	}
	find_one(ix, names, "every name");
	for (uint32_t s = 0; s < si.strings; s++)
		want[s] = names[s] && s % 3 == 0;
	find_one(ix, want, "a third of the names");
	memset(want, 0, (size_t)si.strings + 1);
	find_one(ix, want, "no name");
	free(names);
	free(want);
}

/* Whether row's launch (a CPU row: the row) has an ancestor named name. */
static int beneath_plain(const struct tix_index *ix, uint32_t row, uint32_t name)
{
	struct tix_event e;
	tix_event_get(ix, row, &e);
	uint32_t from = tix_kind_is_gpu(e.kind) ? e.launch : row;
	if (from == TIX_NONE)
		return 0;
	uint32_t *anc;
	long n = tix_event_ancestors_all(ix, from, &anc);
	int hit = 0;
	for (long i = 0; i < n && !hit; i++) {
		struct tix_event up;
		tix_event_get(ix, anc[i], &up);
		hit = up.name == name;
	}
	free(anc);
	return hit;
}

/* tix_group_beneath_op(g, op) against the plain walk over g's members. */
static void group_beneath(const struct tix_index *ix, const struct tix_group *g, uint32_t op, const char *what)
{
	const struct tix_op *o = tix_op_get(ix, op);
	const uint32_t *m = tix_members(ix, g->members_first, g->members_count);
	uint32_t n = g->members_count, want = 0;
	uint32_t *plain = malloc(((size_t)n + 1) * sizeof(*plain)), *got = malloc(((size_t)n + 1) * sizeof(*got));
	for (uint32_t i = 0; i < n; i++)
		if (beneath_plain(ix, m[i], o->name))
			plain[want++] = m[i];
	long k = tix_group_beneath_op(ix, g, op, got);
	CHECK(k == (long)want && (want == 0 || memcmp(got, plain, want * sizeof(*got)) == 0),
	      "%s: tix_group_beneath_op %s x %s (%s): %ld, the walk %u", tix_index_path(ix), tix_str(ix, o->name),
	      tix_str(ix, g->name), what, k, want);
	free(plain);
	free(got);
}

static void test_beneath(const struct tix_index *ix)
{
	uint32_t nops = tix_op_count(ix), pairs = 0;
	for (uint32_t o = 0; o < nops && o < 40; o++) {
		const struct tix_op *op = tix_op_get(ix, o);
		uint32_t ng;
		const struct tix_op_group *og = tix_op_groups(ix, o, &ng);
		for (uint32_t k = 0; k < ng && k < 8; k++) {
			const struct tix_group *g = tix_group_get(ix, og[k].group);
			const uint32_t *m = tix_members(ix, g->members_first, g->members_count);
			uint32_t n = g->members_count, want = 0;
			uint32_t *plain = malloc(((size_t)n + 1) * sizeof(*plain));
			uint32_t *got = malloc(((size_t)n + 1) * sizeof(*got));
			for (uint32_t i = 0; i < n; i++)
				if (beneath_plain(ix, m[i], op->name))
					plain[want++] = m[i];
			long k2 = tix_rows_beneath(ix, m, n, op->name, got);
			int same = k2 == (long)want && (want == 0 || memcmp(got, plain, want * sizeof(*got)) == 0);
			/* in place */
			memcpy(got, m, n * sizeof(*got));
			long k3 = tix_rows_beneath(ix, got, n, op->name, got);
			same = same && k3 == (long)want && (want == 0 || memcmp(got, plain, want * sizeof(*got)) == 0);
			CHECK(same, "%s: tix_rows_beneath %s x %s: %ld (in place %ld), the walk %u", tix_index_path(ix),
			      tix_str(ix, op->name), tix_str(ix, g->name), k2, k3, want);
			/* the op's count of the group's GPU events is the same set */
			CHECK(want == og[k].count, "%s: %s x %s: %u beneath, the op group says %u", tix_index_path(ix),
			      tix_str(ix, op->name), tix_str(ix, g->name), want, og[k].count);
			free(plain);
			free(got);
			group_beneath(ix, g, o, "overall");
			uint32_t nsg;
			const struct tix_group *sg = tix_step_groups(ix, 0, &nsg);
			for (uint32_t j = 0; j < nsg; j++)
				if (sg[j].group == og[k].group)
					group_beneath(ix, &sg[j], o, "step 0");
			pairs++;
		}
		/* kernels the op may not have launched */
		for (uint32_t gi = 0; gi < tix_group_count(ix) && gi < 6; gi++)
			group_beneath(ix, tix_group_get(ix, gi), o, "any kernel");
	}
	printf("ok    %s: tix_rows_beneath on %u (op, kernel) pairs\n", tix_index_path(ix), pairs);
}

/* ---- tix_longest_gap ---- */

/* docs/FINDINGS.md, section 2: host wait when the next event's launch call
 * began after the gap began, else kernel wait under 30 us, else other. */
static enum tix_gap_cause plain_cause(const struct tix_index *ix, int64_t g0, int64_t gap, uint32_t next)
{
	struct tix_event e, l;
	tix_event_get(ix, next, &e);
	if (e.launch != TIX_NONE) {
		tix_event_get(ix, e.launch, &l);
		if (l.start_ns > g0)
			return TIX_GAP_HOST;
	}
	return gap < 30000 ? TIX_GAP_KERNEL : TIX_GAP_OTHER;
}

static void test_gaps(const struct tix_index *ix)
{
	uint32_t ne = tix_event_count(ix), nsteps = tix_step_count(ix) + (tix_step_before_trace(ix) != TIX_NONE);
	struct hit *h = malloc(((size_t)ne + 1) * sizeof(*h));
	uint32_t *step_of = malloc(((size_t)ne + 1) * sizeof(*step_of));
	if (!h || !step_of) {
		CHECK(0, "out of memory");
		free(h);
		free(step_of);
		return;
	}
	for (uint32_t r = 0; r < ne; r++) {
		struct tix_event e;
		tix_event_get(ix, r, &e);
		step_of[r] = tix_kind_is_gpu_work(e.kind) ? tix_event_step(ix, r) : TIX_NONE;
	}
	for (uint32_t s = 0; s < nsteps; s++) {
		uint32_t n = 0;
		for (uint32_t r = 0; r < ne; r++)
			if (step_of[r] == s) {
				struct tix_event e;
				tix_event_get(ix, r, &e);
				h[n++] = (struct hit){e.start_ns, r};
			}
		qsort(h, n, sizeof(*h), hit_cmp);
		int64_t sum[3] = {0, 0, 0}, end = INT64_MIN;
		struct tix_gap best[4] = {{0}};
		int found[4] = {0, 0, 0, 0};
		for (uint32_t i = 0; i < n; i++) {
			struct tix_event e;
			tix_event_get(ix, h[i].row, &e);
			if (i && e.start_ns > end) {
				int64_t gap = e.start_ns - end;
				enum tix_gap_cause c = plain_cause(ix, end, gap, h[i].row);
				sum[c] += gap;
				for (int k = 0; k < 4; k++)
					if ((k == TIX_GAP_ANY || k == (int)c) && (!found[k] || gap > best[k].dur_ns)) {
						best[k] = (struct tix_gap){end, gap, h[i].row, c};
						found[k] = 1;
					}
			}
			if (!i || e.start_ns + e.dur_ns > end)
				end = e.start_ns + e.dur_ns;
		}
		const struct tix_breakdown *bd = tix_breakdown_get(ix, s);
		CHECK(bd && bd->idle_host_ns == sum[0] && bd->idle_kernel_ns == sum[1] && bd->idle_other_ns == sum[2],
		      "step %u: gaps by cause %" PRId64 " %" PRId64 " %" PRId64 ", the breakdown %" PRId64 " %" PRId64
		      " %" PRId64, s, sum[0], sum[1], sum[2], bd ? bd->idle_host_ns : -1, bd ? bd->idle_kernel_ns : -1,
		      bd ? bd->idle_other_ns : -1);
		for (int k = 0; k < 4; k++) {
			struct tix_gap g;
			int got = tix_longest_gap(ix, s, (enum tix_gap_cause)k, &g);
			CHECK(got == found[k] && (!got || (g.start_ns == best[k].start_ns && g.dur_ns == best[k].dur_ns &&
			                                   g.next_row == best[k].next_row && g.cause == best[k].cause)),
			      "step %u, cause %d: tix_longest_gap %d (%" PRId64 " ns before row %u), plainly %d (%" PRId64
			      " ns before row %u)", s, k, got, got > 0 ? g.dur_ns : 0, got > 0 ? g.next_row : 0, found[k],
			      found[k] ? best[k].dur_ns : 0, found[k] ? best[k].next_row : 0);
		}
	}
	free(h);
	free(step_of);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: tix_queries INDEX.tix...\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		struct tix_index *ix;
		struct tix_error err;
		if (tix_index_open(argv[i], &ix, &err) != 0) {
			printf("FAIL  %s\n", err.msg);
			failures++;
			continue;
		}
		tix_index_check_background(ix); /* beside the queries: they may run at once */
		test_find(ix);
		test_beneath(ix);
		test_gaps(ix);
		CHECK(tix_index_check_all(ix, &err) == 0, "%s: tix_index_check_all: %s", argv[i], err.msg);
		tix_index_close(ix);
		/* closed while the checker runs */
		if (tix_index_open(argv[i], &ix, &err) == 0) {
			tix_index_check_background(ix);
			tix_index_close(ix);
		}
		printf("ok    %s\n", argv[i]);
	}
	printf("tix_queries: %d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}
