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
 *     {"NAME", linker_NAME, NULL},
 * (the third column: a test of L that skips the phase when it says 0). */
#include "index/build/phases.h"

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

struct phase {
	const char *name;   /* its TIX_TIMING line; NULL: not timed (counted in the next) */
	int (*run)(struct linker *L, struct tix_error *err);
	int (*wanted)(const struct linker *L); /* NULL: always run */
};

static const struct phase phases[] = {
	{"place", linker_place, NULL},
	{"parents+launches", parents_and_launches, NULL},
	{"flows", merge_flows, some_gpu_unlinked},
	{"by-flow", linker_link_by_flows, some_gpu_unlinked},
	{"marks", linker_mark_launches, NULL},
	{"steps", linker_steps, NULL},
	{"graph", linker_graph, NULL},
	{NULL, drop_correlations, NULL},
	{"aggregate", linker_aggregate, NULL},
	{"names", linker_name_forms, NULL},
	{"name-rows", linker_name_rows, NULL},
	{"breakdown", linker_breakdown, NULL},
	{"op-shapes", linker_op_shapes, NULL},
	{NULL, reap_spills, NULL},
	{"write", linker_write, NULL},
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Runs every phase in order; 0, or -1 with err set by the one that failed. */
static int run_phases(struct tix_builder *b, struct tix_error *err)
{
	struct linker L;
	linker_init(&L, b);
	int timing = b->opts.timing;
	double t = now_s();
	int rc = 0;
	for (size_t i = 0; i < sizeof(phases) / sizeof(phases[0]) && rc == 0; i++) {
		const struct phase *p = &phases[i];
		if (p->wanted && !p->wanted(&L))
			continue;
		if (p->run(&L, err) != 0)
			rc = -1;
		else if (timing && p->name) {
			fprintf(stderr, "tix: timing: %-10s %.3f s\n", p->name, now_s() - t);
			t = now_s();
		}
	}
	linker_done(&L);
	return rc;
}

int tix_builder_finish(struct tix_builder *b, struct tix_error *err)
{
	int rc = builder_merge(b, err);
	if (rc == 0)
		rc = run_phases(b, err);
	if (rc == 0)
		rc = builder_commit(b, err);
	tix_builder_abort(b);
	return rc;
}
