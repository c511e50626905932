/*
 * The reader's insides, shared by reader.c (open, close, the queries) and
 * check.c (what is checked, and when).  Private to index/.
 *
 * tix_index_open checks the header, the section table, every section's
 * bounds and checksum-of-sums, and the small sections whose records every
 * check needs (META, TRACKS).  Everything else is checked a block at a time
 * (format.h: at most 64 KiB of one section) when a query first reads it:
 * the block's checksum, then every reference in its records.  A query
 * reads a record only after need() said its block is good, so what it
 * returns has been range-checked as if the whole file had been at open.
 *
 *   query --need(ix, SEC, first, n)--> state of each block covering them
 *            good: go on    unchecked: check it now    bad: report, exit
 */
#ifndef TIX_INDEX_READER_INT_H
#define TIX_INDEX_READER_INT_H

#include <pthread.h>
#include <stdint.h>

#include "index/format.h"
#include "index/index.h"
#include "index/rules.h"

enum { BLOCK_UNCHECKED = 0, BLOCK_GOOD = 1, BLOCK_BAD = 2 };

/* One section as the reader sees it. */
struct part {
	const unsigned char *base;
	uint64_t nrec;             /* records */
	uint32_t elem;             /* bytes per record */
	unsigned shift;            /* records per block: 1 << shift */
	uint64_t nblocks;
	const uint64_t *sums;      /* its blocks' checksums, in BLOCK_SUMS */
	uint8_t *state;            /* BLOCK_*, one per block; written with atomics */
};

struct tix_index {
	const unsigned char *map;
	size_t size;
	char *path;                /* as opened: every message names it */
	struct tix_file_info file; /* what fstat said of it at open */
	struct part part[TIX_SEC_MAX + 1];
	uint8_t *states;           /* all parts' states, one allocation */
	tix_damage_fn on_damage;
	void *damage_ctx;
	pthread_t checker;         /* tix_index_check_background */
	int checker_on;
	int stop;                  /* asks the checker to end (atomic) */

	const struct tix_meta_disk *meta;
	const uint64_t *str_off;
	const char *str_data;
	uint32_t nstr;
	uint64_t str_bytes;
	const struct tix_track *tracks;
	uint32_t ntracks;
	const struct tix_row_disk *rows;
	uint32_t nrows;
	const struct tix_detail_disk *details;
	uint32_t ndetails;
	const struct tix_kernel_info *kinfos;
	uint32_t nkinfos;
	const struct tix_op_info *opinfos;
	uint32_t nopinfos;
	const struct tix_long_dur_disk *long_durs;
	uint32_t nlong;
	const struct tix_step *steps;
	uint32_t nsteps;
	const struct tix_group *groups;
	uint32_t ngroups;
	const struct tix_group *step_groups;
	uint32_t nstep_groups;
	const uint32_t *members;
	uint32_t nmembers;
	const struct tix_op *ops;
	uint32_t nops;
	const struct tix_op_group *op_groups;
	uint32_t nop_groups;
	const uint32_t *top_meta;
	uint32_t ntop_meta;
	const struct tix_chain_disk *chains;
	uint32_t nchains;
	const uint32_t *chain_rows;
	uint32_t nchain_rows;
	const struct tix_name_form_disk *name_forms;
	uint32_t nname_forms;
	const struct tix_capture_chain_disk *cap_chains;
	uint32_t ncap_chains;
	const struct tix_capture_frame *cap_frames;
	uint32_t ncap_frames;
	const struct tix_names_disk *names;
	uint32_t nnames;
	const uint32_t *name_rows;
	uint32_t nname_rows;
	const struct tix_breakdown *breakdowns;
	uint32_t nbreakdowns;
	const struct tix_stream_idle *stream_idle;
	uint32_t nstream_idle;
	const struct tix_sync *syncs;
	uint32_t nsyncs;
	const struct tix_op_shape *op_shapes;
	uint32_t nop_shapes;
	const struct tix_op_shape *step_op_shapes;
	uint32_t nstep_op_shapes;
	const struct tix_op_group *op_shape_groups;
	uint32_t nop_shape_groups;
	const struct tix_op_model *op_models;
	uint32_t nop_models;
	struct tix_rows view;      /* the rows as rules.h sees them */
	uint32_t version;          /* the file's format version */
	uint32_t nsteps_real;      /* steps less "before the trace" */
};

/* check.c: checks block b of section sec unless done: 0 when it is good,
 * else -1 with the damage in err (err may be NULL). */
int part_check(const struct tix_index *ix, unsigned sec, uint64_t b, struct tix_error *err);
/* check.c: the slow path of need(): checks block b, and on damage calls the
 * damage handler (never returns then). */
void part_settle(const struct tix_index *ix, unsigned sec, uint64_t b);
/* check.c: what open checks of the sections themselves (META, TRACKS, the
 * string table's size); 0, or -1 with err set. */
int check_at_open(struct tix_index *ix, struct tix_error *err);
/* check.c: stops and joins the background checker, if any. */
void check_stop(struct tix_index *ix);

/* Records first .. first+n-1 of section sec (in range: the caller checked)
 * may be read: each block they lie in is good, or is checked now. */
static inline void need(const struct tix_index *ix, unsigned sec, uint64_t first, uint64_t n)
{
	if (n == 0)
		return;
	const struct part *p = &ix->part[sec];
	for (uint64_t b = first >> p->shift, e = (first + n - 1) >> p->shift; b <= e; b++)
		if (__atomic_load_n(&p->state[b], __ATOMIC_ACQUIRE) != BLOCK_GOOD)
			part_settle(ix, sec, b);
}

static inline void need1(const struct tix_index *ix, unsigned sec, uint64_t i)
{
	const struct part *p = &ix->part[sec];
	if (__atomic_load_n(&p->state[i >> p->shift], __ATOMIC_ACQUIRE) != BLOCK_GOOD)
		part_settle(ix, sec, i >> p->shift);
}

/* The track holding row (< nrows; the tracks cover the rows exactly, in
 * order: checked at open): the last one starting at or before it. */
static inline uint32_t track_of(const struct tix_index *ix, uint32_t row)
{
	uint32_t lo = 0, hi = ix->ntracks;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (ix->tracks[mid].first_row <= row)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

#endif /* TIX_INDEX_READER_INT_H */
