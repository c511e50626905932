/*
 * The finish's state and services: struct linker, which the phases
 * (phases.h) fill in order, and what every phase may call (linker.c,
 * sort.c).  The services call no phase.  Private to index/build/.
 *
 * Memory: everything whose size grows with the number of events lives in
 * spills (builder_int.h), which phases hand back to a pool when done
 * (linker_release) so that the next phase reuses their pages
 * (linker_spill): fresh pages cost ~0.3 GB/s here.
 */
#ifndef TIX_INDEX_BUILD_LINKER_H
#define TIX_INDEX_BUILD_LINKER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "index/build/builder_int.h"
#include "index/format.h"
#include "index/index.h"
#include "index/rules.h"

/* Rows first .. first + count - 1. */
struct linker_span {
	uint32_t first, count;
};

/* The fields, grouped by the phase that writes them, in phase order
 * (finish.c's table; docs/FORMAT.md, "Building an index", draws it).
 * Besides their own fields, later phases write parts of the rows:
 *   parents    ROWS.link of CPU-side rows, the CHAIN flag
 *   launches   ROWS.link of GPU rows, the LINK_BY_FLOW, NO_LAUNCH and
 *              GRAPH_REPLAY flags
 *   steps      the STEP_MARKER and BEFORE_TRACE flags
 *   graph      ROWS.detail of the replayed kernels it attributes
 *   aggregate  ROWS.gpu_beneath (op_totals.c)
 * and place, steps and graph add strings and details to b->c. */
struct linker {
	/* set by linker_init; read by every phase */
	struct tix_builder *b;      /* the collected events, their strings and details, the options */
	uint32_t nrows;             /* both collectors' rows */
	uint32_t row_names;         /* the strings a row's name may be: the parse's (later
	                             * phases add others, which name no row) */

	/* the services' (linker.c): spills one phase released, for the next to
	 * reuse; under mu, with the warnings, for the phases that run beside
	 * others (finish.c) */
	struct spill pool[8];
	int npool;
	pthread_mutex_t mu;

	/* written by place; read by every later phase, and by write */
	struct tix_track *tracks;   /* final order: CPU threads, GPU streams, the rest */
	uint32_t ntracks;
	uint32_t *track_remap;      /* collector track -> final track; read by launches (by-flow) */
	struct spill rows;          /* struct tix_row_disk, final order, in the output file */
	int out_rows_mapped;        /* rows maps the output file itself (read by write) */
	struct tix_long_dur_disk *long_durs; /* the durations over 32 bits, by row */
	uint32_t nlong;
	int64_t first_ns, last_ns;  /* the span of every row; read by steps and write */
	struct spill corr;          /* int64 correlation id per row, -1 but for launch calls and
	                             * GPU rows (so that outside gpu_spans, an id says a launch
	                             * call: linker_launch_corr); read by launches and steps,
	                             * released by the driver after graph */
	struct linker_span *gpu_spans; /* the rows of the tracks that hold GPU-side events, in
	                             * row order (linker_gpu_row walks them) */
	uint32_t ngpu_spans;

	/* written by parents; read by aggregate (its ops, gpu_beneath) and write */
	struct spill chains;        /* struct tix_chain_disk, by row */
	struct spill chain_rows;    /* uint32 */

	/* written by launches; read by the driver (whether by-flow runs) and write */
	uint32_t corr_collisions;   /* correlation ids carried by several launch calls */
	uint32_t unlinked_by_corr;  /* GPU work the correlation ids did not link */
	uint32_t gpu_without_launch; /* GPU work no launch was found for (marks) */

	/* written by steps; read by graph, aggregate (which adds the totals), write */
	struct tix_step *steps;     /* the real steps by start, then "before the trace" */
	uint32_t nsteps;            /* including "before the trace" */
	uint32_t before_trace_step; /* its id (nsteps - 1), TIX_NONE */
	uint32_t gpu_before_trace;  /* GPU work launched before the trace's CPU window */
	const char *step_rule;      /* the rule that found the steps, for META */

	/* written by graph; read by write */
	uint32_t replayed;          /* GPU work replayed from CUDA graphs */
	uint32_t replayed_by_match[8]; /* by enum tix_capture_match */
	char *capture_sources;

	/* written by aggregate's groups (aggregate.c); read by its ops, names, write */
	struct tix_group *groups;       /* overall, sorted by total */
	uint32_t ngroups;
	struct tix_group *step_groups;  /* sorted by step, then total */
	uint32_t nstep_groups;
	struct spill members;           /* uint32 rows, by group */
	int64_t total_gpu_ns;

	/* written by aggregate's ops (op_totals.c); read by write */
	struct tix_op *ops;
	uint32_t nops;
	struct tix_op_group *op_groups;
	uint32_t nop_groups;

	/* written by breakdown; read by op-shapes (its steps' records), write */
	struct tix_breakdown *breakdowns; /* nsteps + 1: each step, then the whole trace */
	struct tix_stream_idle *stream_idle; /* by step (the trace's last), then track */
	uint32_t nstream_idle;
	struct tix_sync *syncs;         /* by step (the trace's last), then idle covered */
	uint32_t nsyncs;

	/* written by op-shapes; read by write */
	struct tix_op_shape *op_shapes; /* overall, by GPU time */
	uint32_t nop_shapes;
	struct tix_op_shape *step_op_shapes; /* by step, then GPU time */
	uint32_t nstep_op_shapes;
	struct tix_op_group *op_shape_groups; /* by shape, then GPU time */
	uint32_t nop_shape_groups;
	struct tix_op_model *op_models; /* one per op */

	/* written by names; read by write */
	struct tix_name_form_disk *name_forms; /* by raw */
	uint32_t nname_forms;

	/* written by name-rows; read by write */
	struct spill names;         /* struct tix_names_disk, by name */
	struct spill name_rows;     /* uint32 rows, by name, then row */

	/* written by row-sums; read by write */
	uint64_t *rows_sums;        /* ROWS's block sums (format.h), NULL until summed */
	uint64_t rows_checksum;     /* ROWS's checksum, the hash of those sums */

	/* written by any phase through linker_warn; read by write */
	char *warnings;             /* "; "-joined */
};

/* ---- the state (linker.c) ---- */

/* L empty, for the rows b collected. */
void linker_init(struct linker *L, struct tix_builder *b);
/* Frees everything L holds, whichever phase it stopped after. */
void linker_done(struct linker *L);

/* ---- services (linker.c) ---- */

/* Whether the finish shares its work between two threads: from
 * opts.split_rows rows (default 65536). */
int linker_two_threads(const struct linker *L);
/* A spill for elements of elem bytes, expected to hold about expect of
 * them (an upper bound will do; 0: a few, pushed): a released one (the
 * smallest that holds them, else the largest), or a new file for an array
 * of less than a megabyte, so that the large released ones are kept for
 * the arrays that fill them. */
int linker_spill(struct linker *L, struct spill *s, size_t elem, size_t expect, struct tix_error *err);
/* Gives s back to the pool (or frees it when the pool is full). */
void linker_release(struct linker *L, struct spill *s);
/* Adds a warning the index keeps and repeats on every open. */
int linker_warn(struct linker *L, const char *msg, struct tix_error *err);
/* The rows as rules.h sees them (pointers into the spills: valid until
 * one of them grows). */
void linker_rows_view(const struct linker *L, struct tix_rows *v);
/* Step of a row (rules.h), TIX_NONE: once steps has run. */
uint32_t linker_step_of(const struct linker *L, uint32_t row);

/* The first row at or after row on a track that holds GPU-side events
 * (tix_kind_is_gpu), TIX_NONE past the last; *span is the walk's place in
 * L->gpu_spans, 0 to start.  A scan for GPU rows walks these instead of
 * every row (on the story trace, 6.5% of them: each full pass over ROWS
 * read 39 MB for the 80k rows it wanted); it still tests each row's kind,
 * since a CPU thread may carry a few GPU events:
 *     for (uint32_t sp = 0, i = linker_gpu_row(L, &sp, 0); i != TIX_NONE;
 *          i = linker_gpu_row(L, &sp, i + 1)) */
static inline uint32_t linker_gpu_row(const struct linker *L, uint32_t *span, uint32_t row)
{
	for (; *span < L->ngpu_spans; (*span)++) {
		const struct linker_span *s = &L->gpu_spans[*span];
		if (row < s->first)
			row = s->first;
		if (row - s->first < s->count)
			return row;
	}
	return TIX_NONE;
}

/* How many rows L->gpu_spans hold: a bound on the GPU rows. */
static inline uint32_t linker_gpu_span_rows(const struct linker *L)
{
	uint32_t n = 0;
	for (uint32_t k = 0; k < L->ngpu_spans; k++)
		n += L->gpu_spans[k].count;
	return n;
}

/* Whether row lies in one of L->gpu_spans, for rows asked in increasing
 * order (*span: the walk's place, 0 to start). */
static inline int linker_in_gpu_span(const struct linker *L, uint32_t *span, uint32_t row)
{
	while (*span < L->ngpu_spans && row >= L->gpu_spans[*span].first + L->gpu_spans[*span].count)
		(*span)++;
	return *span < L->ngpu_spans && row >= L->gpu_spans[*span].first;
}

/* The correlation id of row when it is a launch call's, else -1, for rows
 * asked in increasing order (*span as above).  Outside the GPU spans an id
 * is a launch call's (place keeps no other), so the row itself, far from
 * the last one wanted, is read only inside them. */
static inline int64_t linker_launch_corr(const struct linker *L, uint32_t *span, uint32_t row)
{
	int64_t c = SPILL_AT(&L->corr, int64_t, row);
	if (c >= 0 && linker_in_gpu_span(L, span, row) &&
	    !tix_kind_is_launch(SPILL_AT(&L->rows, struct tix_row_disk, row).kind))
		return -1;
	return c;
}

static inline int64_t row_dur(const struct linker *L, uint32_t row)
{
	struct tix_rows v = {.rows = (const struct tix_row_disk *)L->rows.base,
	                     .nrows = L->nrows, .long_durs = L->long_durs, .nlong = L->nlong};
	return tix_rule_dur(&v, row);
}

/* ---- work buffers and sorting (sort.c) ---- */

/* A work buffer whose size may follow the number of events: in the heap
 * while it is small (no file, no system call), in a spill above 1 MB (no
 * anonymous memory).  linker_buf returns room for n elements of elem
 * bytes (the contents of an earlier call are not kept) or NULL with err
 * set; linker_buf_done frees it.  Zero-initialise before first use. */
struct linker_buf {
	void *heap;
	size_t heap_bytes;
	struct spill sp;
	int has_spill;
};
void *linker_buf(struct linker *L, struct linker_buf *b, size_t n, size_t elem, struct tix_error *err);
void linker_buf_done(struct linker *L, struct linker_buf *b);
/* Sorts base[0..n) by cmp, stably and in place, with its buffer from
 * linker_buf: use it, not qsort, for arrays that grow with the trace.
 * 0, or -1 with err set. */
int linker_sort(struct linker *L, void *base, size_t n, size_t size,
                int (*cmp)(const void *, const void *), struct tix_error *err);

/* Where ROWS starts in the output file: the header and section table fit
 * before it, and the rows are mapped there directly (a page boundary).
 * place maps it, write writes the rest around it. */
#define ROWS_OFFSET 4096u

#endif /* TIX_INDEX_BUILD_LINKER_H */
