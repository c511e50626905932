/* What the reader checks of a .tix, and when: see reader_int.h. */
#include "index/reader_int.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BAD(...) (tix_error_set(err, __VA_ARGS__), -1)

static int str_ok(const struct tix_index *ix, uint32_t id, int none_ok)
{
	return id < ix->nstr || (none_ok && id == TIX_NONE);
}

static int ref_ok(uint32_t id, uint32_t n)
{
	return id < n || id == TIX_NONE;
}

/* A duration or a sum of them: never negative. */
static int ns_ok(int64_t v)
{
	return v >= 0;
}

/* Every block of records first .. first+n-1 of sec is good (0), or -1. */
static int range_check(const struct tix_index *ix, unsigned sec, uint64_t first, uint64_t n,
                       struct tix_error *err)
{
	const struct part *p = &ix->part[sec];
	for (uint64_t b = first >> p->shift; n && b <= (first + n - 1) >> p->shift; b++)
		if (part_check(ix, sec, b, err) != 0)
			return -1;
	return 0;
}

static int check_string_offsets(const struct tix_index *ix, uint32_t lo, uint32_t hi,
                                struct tix_error *err)
{
	for (uint32_t i = lo; i < hi; i++) {
		if (i == 0 && ix->str_off[0] != 0)
			return BAD("%s: damaged index (string table)", ix->path);
		if (i == ix->nstr) /* the end of the data: its size, checked at open */
			continue;
		uint64_t a = ix->str_off[i], b = ix->str_off[i + 1];
		if (a >= b || b > ix->str_bytes || ix->str_data[b - 1] != '\0')
			return BAD("%s: damaged index (string %u)", ix->path, i);
	}
	return 0;
}

static int check_meta(const struct tix_index *ix, struct tix_error *err)
{
	const struct tix_meta_disk *m = ix->meta;
	if (!str_ok(ix, m->source_path, 0) || !str_ok(ix, m->step_marker, 0) ||
	    !str_ok(ix, m->warnings, 0) || !str_ok(ix, m->step_rule, 0) ||
	    !str_ok(ix, m->capture_sources, 0))
		return BAD("%s: damaged index (meta)", ix->path);
	return 0;
}

static int check_tracks(const struct tix_index *ix, uint32_t lo, uint32_t hi, struct tix_error *err)
{
	for (uint32_t t = lo; t < hi; t++) {
		const struct tix_track *tr = &ix->tracks[t];
		if (!str_ok(ix, tr->pid_str, 1) || !str_ok(ix, tr->tid_str, 1) ||
		    !str_ok(ix, tr->name, 1) || !str_ok(ix, tr->process_name, 1))
			return BAD("%s: damaged index (track %u)", ix->path, t);
	}
	return 0;
}

static int check_rows(const struct tix_index *ix, uint32_t lo, uint32_t hi, struct tix_error *err)
{
	/* the kinds' CPU-ness looked up in a table: this loop is the largest */
	unsigned char cpu_kind[TIX_KIND_COUNT];
	for (int k = 0; k < TIX_KIND_COUNT; k++)
		cpu_kind[k] = !tix_kind_is_gpu((enum tix_kind)k);
	uint32_t t = track_of(ix, lo);
	for (uint32_t i = lo; i < hi; i++) {
		while (i >= ix->tracks[t].first_row + ix->tracks[t].row_count)
			t++;
		const struct tix_track *tr = &ix->tracks[t];
		const struct tix_row_disk *r = &ix->rows[i];
		/* A CPU row's parent precedes it on its track, so walking parents
		 * always ends. */
		int cpu = r->kind < TIX_KIND_COUNT && cpu_kind[r->kind];
		if (r->track != t || !str_ok(ix, r->name, 0) || !ref_ok(r->detail, ix->ndetails) ||
		    !ref_ok(r->link, ix->nrows) || r->kind >= TIX_KIND_COUNT ||
		    (cpu && r->link != TIX_NONE && (r->link >= i || r->link < tr->first_row)) ||
		    (i > tr->first_row && r->start_ns < ix->rows[i - 1].start_ns))
			return BAD("%s: damaged index (event %u)", ix->path, i);
	}
	return 0;
}

static int check_details(const struct tix_index *ix, uint32_t lo, uint32_t hi, struct tix_error *err)
{
	for (uint32_t i = lo; i < hi; i++) {
		const struct tix_detail_disk *d = &ix->details[i];
		if (!str_ok(ix, d->cat, 1) || !str_ok(ix, d->args, 1) ||
		    !ref_ok(d->kernel_info, ix->nkinfos) || !ref_ok(d->op_info, ix->nopinfos) ||
		    !ref_ok(d->capture, ix->ncap_chains) || d->capture_match >= TIX_MATCH_COUNT)
			return BAD("%s: damaged index (detail %u)", ix->path, i);
	}
	return 0;
}

static int check_op_infos(const struct tix_index *ix, uint32_t lo, uint32_t hi, struct tix_error *err)
{
	for (uint32_t i = lo; i < hi; i++) {
		const struct tix_op_info *o = &ix->opinfos[i];
		if (!str_ok(ix, o->dims, 1) || !str_ok(ix, o->types, 1) || !str_ok(ix, o->strides, 1) ||
		    !str_ok(ix, o->concrete, 1))
			return BAD("%s: damaged index (op info %u)", ix->path, i);
	}
	return 0;
}

static int check_long_durs(const struct tix_index *ix, uint32_t lo, uint32_t hi, struct tix_error *err)
{
	for (uint32_t i = lo; i < hi; i++)
		if (ix->long_durs[i].row >= ix->nrows || ix->long_durs[i].dur_ns < 0 ||
		    (i && ix->long_durs[i].row <= ix->long_durs[i - 1].row))
			return BAD("%s: damaged index (long duration %u)", ix->path, i);
	return 0;
}

static int check_steps(const struct tix_index *ix, uint32_t lo, uint32_t hi, struct tix_error *err)
{
	for (uint32_t i = lo; i < hi; i++) {
		const struct tix_step *s = &ix->steps[i];
		if (!str_ok(ix, s->name, 0) || !ref_ok(s->marker_row, ix->nrows) ||
		    !ref_ok(s->top_group, ix->ngroups) ||
		    (uint64_t)s->groups_first + s->groups_count > ix->nstep_groups ||
		    (i && i < ix->nsteps_real && s->start_ns < ix->steps[i - 1].start_ns))
			return BAD("%s: damaged index (step %u)", ix->path, i);
	}
	return 0;
}

static int check_groups(const struct tix_index *ix, const struct tix_group *gs, int per_step,
                        uint32_t lo, uint32_t hi, struct tix_error *err)
{
	for (uint32_t i = lo; i < hi; i++) {
		const struct tix_group *g = &gs[i];
		if (!str_ok(ix, g->name, 0) || g->kind >= TIX_KIND_COUNT ||
		    !ref_ok(g->common_info, ix->nkinfos) || g->group >= ix->ngroups ||
		    !ref_ok(g->step, ix->nsteps) || (per_step && g->step == TIX_NONE) ||
		    g->instances != g->members_count || g->instances == 0 ||
		    (uint64_t)g->members_first + g->members_count > ix->nmembers)
			return BAD("%s: damaged index (group %u)", ix->path, i);
	}
	return 0;
}

static int check_rows_list(const struct tix_index *ix, const uint32_t *list, const char *what,
                           uint32_t lo, uint32_t hi, struct tix_error *err)
{
	for (uint32_t i = lo; i < hi; i++)
		if (list[i] >= ix->nrows)
			return BAD("%s: damaged index (%s %u)", ix->path, what, i);
	return 0;
}

static int check_ops(const struct tix_index *ix, uint32_t lo, uint32_t hi, struct tix_error *err)
{
	for (uint32_t i = lo; i < hi; i++) {
		const struct tix_op *o = &ix->ops[i];
		if (!str_ok(ix, o->name, 0) || (uint64_t)o->groups_first + o->groups_count > ix->nop_groups)
			return BAD("%s: damaged index (op %u)", ix->path, i);
	}
	return 0;
}

static int check_op_group_refs(const struct tix_index *ix, const struct tix_op_group *gs, uint32_t lo,
                               uint32_t hi, struct tix_error *err)
{
	for (uint32_t i = lo; i < hi; i++)
		if (gs[i].group >= ix->ngroups || !ns_ok(gs[i].gpu_ns))
			return BAD("%s: damaged index (op group %u)", ix->path, i);
	return 0;
}

static int check_top_meta(const struct tix_index *ix, uint32_t lo, uint32_t hi, struct tix_error *err)
{
	for (uint32_t i = lo; i < hi; i++)
		if (!str_ok(ix, ix->top_meta[2 * i], 0) || !str_ok(ix, ix->top_meta[2 * i + 1], 0))
			return BAD("%s: damaged index (trace metadata)", ix->path);
	return 0;
}

static int check_chains(const struct tix_index *ix, uint32_t lo, uint32_t hi, struct tix_error *err)
{
	for (uint32_t i = lo; i < hi; i++) {
		const struct tix_chain_disk *c = &ix->chains[i];
		if (c->row >= ix->nrows || (i && c->row <= ix->chains[i - 1].row) ||
		    (uint64_t)c->first + c->count > ix->nchain_rows)
			return BAD("%s: damaged index (chain %u)", ix->path, i);
		/* its ancestors: earlier rows of the same track */
		if (range_check(ix, TIX_SEC_CHAIN_ROWS, c->first, c->count, err) != 0)
			return -1;
		uint32_t from = ix->tracks[track_of(ix, c->row)].first_row;
		for (uint32_t k = 0; k < c->count; k++) {
			uint32_t a = ix->chain_rows[c->first + k];
			if (a >= c->row || a < from)
				return BAD("%s: damaged index (chain %u)", ix->path, i);
		}
	}
	return 0;
}

static int check_name_forms(const struct tix_index *ix, uint32_t lo, uint32_t hi, struct tix_error *err)
{
	for (uint32_t i = lo; i < hi; i++) {
		const struct tix_name_form_disk *f = &ix->name_forms[i];
		if (!str_ok(ix, f->raw, 0) || !str_ok(ix, f->full, 0) || !str_ok(ix, f->shortened, 0) ||
		    (i && f->raw <= ix->name_forms[i - 1].raw))
			return BAD("%s: damaged index (name form %u)", ix->path, i);
	}
	return 0;
}

static int check_capture_chains(const struct tix_index *ix, uint32_t lo, uint32_t hi,
                                struct tix_error *err)
{
	for (uint32_t i = lo; i < hi; i++) {
		const struct tix_capture_chain_disk *c = &ix->cap_chains[i];
		if (!str_ok(ix, c->source, 0) || (uint64_t)c->first + c->count > ix->ncap_frames)
			return BAD("%s: damaged index (capture chain %u)", ix->path, i);
	}
	return 0;
}

static int check_capture_frames(const struct tix_index *ix, uint32_t lo, uint32_t hi,
                                struct tix_error *err)
{
	for (uint32_t i = lo; i < hi; i++) {
		const struct tix_capture_frame *f = &ix->cap_frames[i];
		if (!str_ok(ix, f->name, 0) || !str_ok(ix, f->dims, 1) || !str_ok(ix, f->types, 1) ||
		    f->kind >= TIX_KIND_COUNT)
			return BAD("%s: damaged index (capture frame %u)", ix->path, i);
	}
	return 0;
}

static int check_names(const struct tix_index *ix, uint32_t lo, uint32_t hi, struct tix_error *err)
{
	for (uint32_t i = lo; i < hi; i++) {
		const struct tix_names_disk *n = &ix->names[i];
		if (!str_ok(ix, n->name, 0) || n->count == 0 ||
		    (uint64_t)n->first + n->count > ix->nname_rows || (i && n->name <= ix->names[i - 1].name))
			return BAD("%s: damaged index (name %u)", ix->path, i);
	}
	return 0;
}

static int check_breakdowns(const struct tix_index *ix, uint32_t lo, uint32_t hi, struct tix_error *err)
{
	for (uint32_t i = lo; i < hi; i++) {
		const struct tix_breakdown *b = &ix->breakdowns[i];
		const int64_t *ns = &b->busy_ns; /* busy .. sync_cpu: the durations */
		int ok = b->span_end >= b->span_start &&
		         (uint64_t)b->streams_first + b->streams_count <= ix->nstream_idle &&
		         (uint64_t)b->syncs_first + b->syncs_count <= ix->nsyncs &&
		         (uint64_t)b->shapes_first + b->shapes_count <= ix->nstep_op_shapes;
		for (int k = 0; ok && k < 14; k++)
			ok = ns_ok(ns[k]);
		if (!ok)
			return BAD("%s: damaged index (breakdown %u)", ix->path, i);
	}
	return 0;
}

static int check_stream_idle(const struct tix_index *ix, uint32_t lo, uint32_t hi, struct tix_error *err)
{
	for (uint32_t i = lo; i < hi; i++) {
		const struct tix_stream_idle *s = &ix->stream_idle[i];
		if (s->track >= ix->ntracks || !ref_ok(s->step, ix->nsteps) ||
		    !ref_ok(s->longest_gap_row, ix->nrows) || !ns_ok(s->host_wait_ns) ||
		    !ns_ok(s->kernel_wait_ns) || !ns_ok(s->other_ns) || !ns_ok(s->longest_gap_ns) ||
		    !ns_ok(s->launch_bound_idle_ns))
			return BAD("%s: damaged index (stream idle %u)", ix->path, i);
	}
	return 0;
}

static int check_syncs(const struct tix_index *ix, uint32_t lo, uint32_t hi, struct tix_error *err)
{
	for (uint32_t i = lo; i < hi; i++) {
		const struct tix_sync *s = &ix->syncs[i];
		if (!ref_ok(s->step, ix->nsteps) || !str_ok(ix, s->call, 0) || !str_ok(ix, s->op, 1) ||
		    !ref_ok(s->example_row, ix->nrows) || !ns_ok(s->cpu_ns) || !ns_ok(s->idle_ns))
			return BAD("%s: damaged index (sync %u)", ix->path, i);
	}
	return 0;
}

static int check_op_shapes(const struct tix_index *ix, const struct tix_op_shape *os, int per_step,
                           uint32_t lo, uint32_t hi, struct tix_error *err)
{
	for (uint32_t i = lo; i < hi; i++) {
		const struct tix_op_shape *o = &os[i];
		if (!str_ok(ix, o->name, 0) || o->op_info >= ix->nopinfos || o->shape >= ix->nop_shapes ||
		    (per_step ? o->step >= ix->nsteps : o->step != TIX_NONE) ||
		    !ref_ok(o->example_row, ix->nrows) || o->cls >= TIX_OPC_COUNT || !ns_ok(o->gpu_ns) ||
		    (o->groups_count && (uint64_t)o->groups_first + o->groups_count > ix->nop_shape_groups))
			return BAD("%s: damaged index (op shape %u)", ix->path, i);
	}
	return 0;
}

static int check_op_models(const struct tix_index *ix, uint32_t lo, uint32_t hi, struct tix_error *err)
{
	for (uint32_t i = lo; i < hi; i++) {
		const struct tix_op_model *m = &ix->op_models[i];
		/* figures -1 (unknown) or not negative; NaN fails both */
		if (m->cls >= TIX_OPC_COUNT || m->peak > TIX_PEAK_NONE || !ns_ok(m->gpu_ns) ||
		    !(m->flops == -1 || m->flops >= 0) || !(m->bytes == -1 || m->bytes >= 0) ||
		    !(m->flops < 1e300 && m->bytes < 1e300))
			return BAD("%s: damaged index (op model %u)", ix->path, i);
	}
	return 0;
}

/* The references in records lo .. hi-1 of sec. */
static int check_refs(const struct tix_index *ix, unsigned sec, uint32_t lo, uint32_t hi,
                      struct tix_error *err)
{
	switch (sec) {
	case TIX_SEC_META: return check_meta(ix, err);
	case TIX_SEC_STRING_OFFSETS: return check_string_offsets(ix, lo, hi, err);
	case TIX_SEC_TRACKS: return check_tracks(ix, lo, hi, err);
	case TIX_SEC_ROWS: return check_rows(ix, lo, hi, err);
	case TIX_SEC_DETAILS: return check_details(ix, lo, hi, err);
	case TIX_SEC_OP_INFO: return check_op_infos(ix, lo, hi, err);
	case TIX_SEC_LONG_DUR: return check_long_durs(ix, lo, hi, err);
	case TIX_SEC_STEPS: return check_steps(ix, lo, hi, err);
	case TIX_SEC_GROUPS: return check_groups(ix, ix->groups, 0, lo, hi, err);
	case TIX_SEC_STEP_GROUPS: return check_groups(ix, ix->step_groups, 1, lo, hi, err);
	case TIX_SEC_MEMBERS: return check_rows_list(ix, ix->members, "member", lo, hi, err);
	case TIX_SEC_OPS: return check_ops(ix, lo, hi, err);
	case TIX_SEC_OP_GROUPS: return check_op_group_refs(ix, ix->op_groups, lo, hi, err);
	case TIX_SEC_TOP_META: return check_top_meta(ix, lo, hi, err);
	case TIX_SEC_CHAINS: return check_chains(ix, lo, hi, err);
	case TIX_SEC_CHAIN_ROWS: return check_rows_list(ix, ix->chain_rows, "chain row", lo, hi, err);
	case TIX_SEC_NAME_FORMS: return check_name_forms(ix, lo, hi, err);
	case TIX_SEC_CAPTURE_CHAINS: return check_capture_chains(ix, lo, hi, err);
	case TIX_SEC_CAPTURE_FRAMES: return check_capture_frames(ix, lo, hi, err);
	case TIX_SEC_NAMES: return check_names(ix, lo, hi, err);
	case TIX_SEC_NAME_ROWS: return check_rows_list(ix, ix->name_rows, "name row", lo, hi, err);
	case TIX_SEC_BREAKDOWNS: return check_breakdowns(ix, lo, hi, err);
	case TIX_SEC_STREAM_IDLE: return check_stream_idle(ix, lo, hi, err);
	case TIX_SEC_SYNCS: return check_syncs(ix, lo, hi, err);
	case TIX_SEC_OP_SHAPES: return check_op_shapes(ix, ix->op_shapes, 0, lo, hi, err);
	case TIX_SEC_STEP_OP_SHAPES: return check_op_shapes(ix, ix->step_op_shapes, 1, lo, hi, err);
	case TIX_SEC_OP_SHAPE_GROUPS: return check_op_group_refs(ix, ix->op_shape_groups, lo, hi, err);
	case TIX_SEC_OP_MODELS: return check_op_models(ix, lo, hi, err);
	default: return 0; /* bytes, or records without references */
	}
}

int part_check(const struct tix_index *ix, unsigned sec, uint64_t b, struct tix_error *err)
{
	const struct part *p = &ix->part[sec];
	if (__atomic_load_n(&p->state[b], __ATOMIC_ACQUIRE) == BLOCK_GOOD)
		return 0;
	uint64_t lo = b << p->shift, hi = lo + (1ull << p->shift);
	if (hi > p->nrec)
		hi = p->nrec;
	int rc;
	if (tix_hash64(p->base + lo * p->elem, (size_t)((hi - lo) * p->elem), 0) != p->sums[b])
		rc = BAD("%s: damaged index (checksum of section %u, block %llu)", ix->path, sec,
		         (unsigned long long)b);
	else
		rc = check_refs(ix, sec, (uint32_t)lo, (uint32_t)hi, err);
	/* two threads checking one block store the same answer */
	__atomic_store_n(&p->state[b], rc == 0 ? BLOCK_GOOD : BLOCK_BAD, __ATOMIC_RELEASE);
	return rc;
}

void part_settle(const struct tix_index *ix, unsigned sec, uint64_t b)
{
	struct tix_error err;
	if (part_check(ix, sec, b, &err) == 0)
		return;
	if (ix->on_damage) {
		ix->on_damage(ix, ix->damage_ctx, err.msg);
	} else {
		fflush(stdout);
		fprintf(stderr, "tix: %s\n", err.msg);
	}
	exit(2);
}

int check_at_open(struct tix_index *ix, struct tix_error *err)
{
	if (ix->part[TIX_SEC_STRING_OFFSETS].nrec == 0 ||
	    ix->str_off[ix->nstr] != ix->str_bytes)
		return BAD("%s: damaged index (string table size)", ix->path);
	/* what every other check relies on: the metadata, and the tracks
	 * covering the rows exactly (a row's track is found from them) */
	if (range_check(ix, TIX_SEC_META, 0, 1, err) != 0 ||
	    range_check(ix, TIX_SEC_TRACKS, 0, ix->ntracks, err) != 0)
		return -1;
	uint64_t rows_seen = 0;
	for (uint32_t t = 0; t < ix->ntracks; t++) {
		const struct tix_track *tr = &ix->tracks[t];
		if (tr->first_row != rows_seen || (uint64_t)tr->first_row + tr->row_count > ix->nrows)
			return BAD("%s: damaged index (track %u)", ix->path, t);
		rows_seen += tr->row_count;
	}
	if (rows_seen != ix->nrows)
		return BAD("%s: damaged index (tracks do not cover the events)", ix->path);
	return 0;
}

int tix_index_check_all(const struct tix_index *ix, struct tix_error *err)
{
	for (unsigned sec = 1; sec <= TIX_SEC_MAX; sec++)
		for (uint64_t b = 0; b < ix->part[sec].nblocks; b++)
			if (part_check(ix, sec, b, err) != 0)
				return -1;
	return 0;
}

static void *checker_main(void *arg)
{
	const struct tix_index *ix = arg;
	for (unsigned sec = 1; sec <= TIX_SEC_MAX; sec++)
		for (uint64_t b = 0; b < ix->part[sec].nblocks; b++) {
			if (__atomic_load_n(&ix->stop, __ATOMIC_RELAXED))
				return NULL;
			part_check(ix, sec, b, NULL);
		}
	return NULL;
}

void tix_index_check_background(struct tix_index *ix)
{
	if (ix->checker_on)
		return;
	/* Signals go to the thread that asked (curses' SIGWINCH, ^C): the
	 * checker takes only those its own faults raise. */
	sigset_t all, old;
	sigfillset(&all);
	static const int own[] = {SIGBUS, SIGSEGV, SIGFPE, SIGILL, SIGABRT};
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		sigdelset(&all, own[i]);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ix->checker_on = pthread_create(&ix->checker, NULL, checker_main, ix) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void check_stop(struct tix_index *ix)
{
	if (!ix->checker_on)
		return;
	__atomic_store_n(&ix->stop, 1, __ATOMIC_RELAXED);
	pthread_join(ix->checker, NULL);
	ix->checker_on = 0;
}
