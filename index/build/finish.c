/* The finish: everything after the last event, in one driver.  It ends the
 * collecting (builder.c), runs the phases of the table below in order,
 * each once, times them (TIX_TIMING=1), and puts the index in place.  It
 * is the only caller of every phase (phases.h), so the order in which the
 * fields of struct linker are filled is written here and nowhere else;
 * docs/FORMAT.md, "Building an index", draws it.
 *
 * Adding a phase: write `int linker_NAME(struct linker *L, struct tix_error
 * *err)` in a file of its own in index/build/ (add it to
 * index/sources.cmake), declare it in phases.h, give struct linker
 * (linker.h) its fields under a comment "written by NAME; read by ..." at
 * its place in the phase order, free them in linker_done (linker.c), and
 * add one row to `phases` below, after the phases whose fields it reads:
 *     {"NAME", linker_NAME, NULL, MAIN},
 * (the third column: a test of L that skips the phase when it says 0; the
 * fourth: where it runs, below).
 *
 * Beside: a run of BESIDE rows is started on a thread of its own where it
 * stands in the table, the phases after it going on meanwhile, up to the
 * JOIN row that waits for it; with the finish on one thread
 * (linker_two_threads) they run in the table's order.  A BESIDE phase reads
 * only fields written before its run starts, writes none that the phases
 * running meanwhile read or write (fields of a struct apart, as aggregate's
 * ROWS.gpu_beneath and steps' totals while breakdown reads the rows' other
 * fields and the steps' bounds), adds no strings (intern_add may move what
 * intern_str returned) and no warnings (their order would follow the
 * threads'); the spill pool is locked.  Its index is the same either way:
 * scripts/same_index.sh compares one thread with two. */
#include "index/build/phases.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The parents phase runs the launches' links by correlation alongside, on
 * the calling thread (they write only GPU rows). */
static int parents_and_launches(struct linker *L, struct tix_error *err)
{
	return linker_parents(L, linker_link_by_correlation, err);
}

/* The second collector's flows, needed only by the links by flow. */
static int merge_flows(struct linker *L, struct tix_error *err)
{
	return builder_merge_flows(L->b, err);
}

static int some_gpu_unlinked(const struct linker *L)
{
	return L->unlinked_by_corr != 0;
}

/* Nothing reads the correlation ids after graph: their pages serve the
 * aggregate phase's spills. */
static int drop_correlations(struct linker *L, struct tix_error *err)
{
	(void)err;
	linker_release(L, &L->corr);
	return 0;
}

/* Nothing after op-shapes takes a spill from the pool, and nothing after
 * by-flow reads the collectors' flows: their pages (the collectors' rows
 * among them) are freed on another thread while the index is written and
 * committed (tix_builder_abort joins it). */
static int reap_spills(struct linker *L, struct tix_error *err)
{
	(void)err;
	struct spill done[sizeof(L->pool) / sizeof(L->pool[0]) + 2];
	int n = 0;
	for (int i = 0; i < L->npool; i++)
		done[n++] = L->pool[i];
	L->npool = 0;
	struct collector *c[2] = {&L->b->c, L->b->extra};
	for (int k = 0; k < 2; k++) {
		if (!c[k])
			continue;
		done[n++] = c[k]->flows;
		memset(&c[k]->flows, 0, sizeof(c[k]->flows));
		c[k]->flows.fd = -1;
	}
	spill_reap(&L->b->reapers[0], done, n);
	return 0;
}

enum lane { MAIN, BESIDE, JOIN };

struct phase {
	const char *name;   /* its TIX_TIMING line; NULL: not timed (counted in the next) */
	int (*run)(struct linker *L, struct tix_error *err);
	int (*wanted)(const struct linker *L); /* NULL: always run */
	enum lane lane;
};

static const struct phase phases[] = {
	{"place", linker_place, NULL, MAIN},
	{"parents+launches", parents_and_launches, NULL, MAIN},
	{"flows", merge_flows, some_gpu_unlinked, MAIN},
	{"by-flow", linker_link_by_flows, some_gpu_unlinked, MAIN},
	/* name-rows reads only the rows' names, and the parse's strings:
	 * beside the three phases that add strings and set rows' flags and
	 * details, on one core each */
	{"name-rows", linker_name_rows, NULL, BESIDE},
	{"marks", linker_mark_launches, NULL, MAIN},
	{"steps", linker_steps, NULL, MAIN},
	{"graph", linker_graph, NULL, MAIN},
	{NULL, NULL, NULL, JOIN}, /* breakdown reads name-rows' lists */
	{NULL, drop_correlations, NULL, MAIN},
	/* breakdown reads the rows, the steps' bounds and the strings: beside
	 * aggregate, which writes only ROWS.gpu_beneath and the steps' totals
	 * and adds no strings */
	{"breakdown", linker_breakdown, NULL, BESIDE},
	{"aggregate", linker_aggregate, NULL, MAIN},
	{NULL, NULL, NULL, JOIN}, /* before names adds strings, and op-shapes reads breakdown's */
	/* ROWS is final now: its checksums (most of write's time) are taken
	 * beside names and op-shapes, which only read the rows */
	{"row-sums", linker_sum_rows, NULL, BESIDE},
	{"names", linker_name_forms, NULL, MAIN},
	{"op-shapes", linker_op_shapes, NULL, MAIN},
	{NULL, reap_spills, NULL, MAIN},
	{NULL, NULL, NULL, JOIN}, /* write reads row-sums' */
	{"write", linker_write, NULL, MAIN},
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define NPHASES (sizeof(phases) / sizeof(phases[0]))

/* A run of BESIDE phases, on a thread of its own. */
struct beside {
	struct linker *L;
	size_t first, end; /* phases[first, end) */
	size_t done;       /* phases[first, done) ran to the end */
	double took[NPHASES];
	struct tix_error err;
	int rc;
	pthread_t th;
	int started;
};

/* A phase that fails on command (TIX_FAIL_PHASE), as a full disk would. */
static int failed_on_command(const struct phase *p, struct linker *L, struct tix_error *err)
{
	const char *f = L->b->opts.fail_phase;
	if (!f || !p->name || strcmp(f, p->name) != 0)
		return 0;
	tix_error_env(err, "%s: the %s phase failed on command (TIX_FAIL_PHASE)", L->b->out_path, p->name);
	return 1;
}

static int run_one(const struct phase *p, struct linker *L, struct tix_error *err)
{
	if (p->wanted && !p->wanted(L))
		return 0;
	if (failed_on_command(p, L, err))
		return -1;
	return p->run(L, err);
}

static void *run_beside(void *arg)
{
	struct beside *bs = arg;
	bs->done = bs->first;
	for (size_t i = bs->first; i < bs->end && bs->rc == 0; i++) {
		double t = now_s();
		bs->rc = run_one(&phases[i], bs->L, &bs->err);
		bs->took[i] = now_s() - t;
		if (bs->rc == 0)
			bs->done = i + 1;
	}
	return NULL;
}

/* Waits for the BESIDE run; its error is the finish's unless one came first. */
static int join_beside(struct beside *bs, int timing, int rc, struct tix_error *err)
{
	if (!bs->started)
		return rc;
	pthread_join(bs->th, NULL);
	bs->started = 0;
	if (timing)
		for (size_t i = bs->first; i < bs->done; i++)
			if (phases[i].name)
				fprintf(stderr, "tix: timing: %-10s %.3f s (beside)\n", phases[i].name, bs->took[i]);
	if (rc == 0 && bs->rc != 0) {
		*err = bs->err;
		return -1;
	}
	return rc;
}

/* Runs every phase in order; 0, or -1 with err set by the one that failed. */
static int run_phases(struct tix_builder *b, struct tix_error *err)
{
	struct linker L;
	linker_init(&L, b);
	int timing = b->opts.timing;
	double t = now_s();
	int rc = 0;
	struct beside bs;
	memset(&bs, 0, sizeof(bs));
	bs.L = &L;
	for (size_t i = 0; i < NPHASES && rc == 0; i++) {
		const struct phase *p = &phases[i];
		if (p->lane == JOIN) {
			rc = join_beside(&bs, timing, rc, err);
			t = now_s();
			continue;
		}
		if (p->lane == BESIDE && linker_two_threads(&L)) {
			size_t end = i;
			while (end < NPHASES && phases[end].lane == BESIDE)
				end++;
			bs.first = i;
			bs.end = end;
			bs.started = pthread_create(&bs.th, NULL, run_beside, &bs) == 0;
			if (!bs.started) /* no thread: in order, here */
				run_beside(&bs);
			if (!bs.started && bs.rc != 0) {
				*err = bs.err;
				rc = -1;
			}
			i = end - 1;
			continue;
		}
		if (p->wanted && !p->wanted(&L))
			continue;
		if (run_one(p, &L, err) != 0)
			rc = -1;
		else if (timing && p->name) {
			fprintf(stderr, "tix: timing: %-10s %.3f s\n", p->name, now_s() - t);
			t = now_s();
		}
	}
	rc = join_beside(&bs, timing, rc, err); /* a failure before the JOIN row */
	linker_done(&L);
	return rc;
}

int tix_builder_finish(struct tix_builder *b, struct tix_error *err)
{
	int timing = b->opts.timing;
	double t = now_s();
	int rc = builder_merge(b, err);
	if (timing && rc == 0)
		fprintf(stderr, "tix: timing: %-10s %.3f s (the two collectors, before the phases)\n", "merge",
		        now_s() - t);
	if (rc == 0)
		rc = run_phases(b, err);
	t = now_s();
	if (rc == 0)
		rc = builder_commit(b, err);
	if (timing && rc == 0)
		fprintf(stderr, "tix: timing: %-10s %.3f s (renamed into place, the index it replaces freed)\n",
		        "commit", now_s() - t);
	t = now_s();
	tix_builder_abort(b); /* waits for the threads that free the spills */
	if (timing && rc == 0)
		fprintf(stderr, "tix: timing: %-10s %.3f s (the spills' pages freed; waited for)\n", "free",
		        now_s() - t);
	return rc;
}
