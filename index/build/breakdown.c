/* The breakdown phase (docs/FINDINGS.md, sections 1 and 2): each step's and
 * the trace's GPU time breakdown (compute, exposed communication, memory,
 * idle over the span of its GPU work), its idle time by cause over all
 * streams and per stream, the part of it synchronising calls covered, and
 * the launch-bound stretches (BREAKDOWNS, STREAM_IDLE, SYNCS).
 *
 * One pass over the GPU work of every track merged by start time (each
 * track's rows are sorted by start already: a k-way merge, no sort), which
 * keeps one set of unions per step and one for the trace, and one state per
 * stream.  The synchronising calls are listed first, by thread, so that a
 * gap can ask which one its launching thread sat in. */
#include "index/index.h"
#include "index/grow.h"

#include <stdlib.h>
#include <string.h>

#include "index/build/phases.h"
#include "index/merge.h"

/* ---- the synchronising calls, by thread ---- */
struct sync_call {
	uint32_t row, track;
	int64_t start, end;
	uint32_t rec_step, rec_trace; /* their tix_sync records (in the dedup) */
};

struct sync_key {              /* what a tix_sync record is of */
	uint32_t step, call, op;
};

/* The op a user wrote above row: the outermost of the CPU ops directly
 * above the innermost one (aten::item above aten::_local_scalar_dense,
 * aten::to above aten::_to_copy and aten::copy_); TIX_NONE when none. */
static uint32_t user_op_above(const struct tix_rows *v, uint32_t row)
{
	uint32_t anc[64];
	uint32_t n = tix_rule_ancestors(v, row, anc, 64), op = TIX_NONE;
	n = n < 64 ? n : 64;
	for (uint32_t i = 0; i < n; i++) {
		if (v->rows[anc[i]].kind == TIX_KIND_CPU_OP)
			op = anc[i];
		else if (op != TIX_NONE)
			break;
	}
	return op;
}

struct state {
	struct linker *L;
	struct tix_rows v;
	uint8_t *name_class;      /* string id -> 0 unknown, 1 + enum tix_gpu_class; 1 + 2: sync */
	struct sync_call *syncs;
	uint32_t nsyncs;
	uint32_t *sync_first, *sync_count; /* by track */
	struct dedup sync_recs;   /* struct sync_key */
	struct tix_sync *sync_acc; /* by sync_recs id */
	uint32_t sync_cap;
	struct dedup stream_recs; /* struct stream_key */
	struct tix_stream_idle *stream_acc;
	uint32_t stream_cap;
};

struct stream_key {
	uint32_t track, step;
};

static const char *str(const struct state *st, uint32_t id)
{
	return intern_str(&st->L->b->c.strings, id);
}

/* tix_sync record of (step, call, op), added if new; TIX_NONE on OOM. */
static uint32_t sync_rec(struct state *st, uint32_t step, uint32_t call, uint32_t op)
{
	struct sync_key k = {step, call, op};
	uint32_t before = st->sync_recs.n, id = dedup_add(&st->sync_recs, &k);
	if (id == TIX_NONE || tix_grow32_zeroed(&st->sync_acc, &st->sync_cap, id, sizeof(*st->sync_acc), 64))
		return TIX_NONE;
	if (st->sync_recs.n > before)
		st->sync_acc[id] = (struct tix_sync){.step = step, .call = call, .op = op, .example_row = TIX_NONE};
	return id;
}

/* What the pass learns of a name once, in name_class: */
#define NAME_SYNC_KNOWN 0x80  /* whether it is a synchronising call, known */
#define NAME_SYNC 0x40        /* it is one */
#define NAME_CLASS_KNOWN 0x20 /* a kernel name's class, known */
#define NAME_COMM 0x10        /* it is communication */

static int is_sync_name(struct state *st, uint32_t name)
{
	uint8_t *c = &st->name_class[name];
	if (!(*c & NAME_SYNC_KNOWN))
		*c |= NAME_SYNC_KNOWN | (tix_rule_is_sync_call(str(st, name)) ? NAME_SYNC : 0);
	return (*c & NAME_SYNC) != 0;
}

static enum tix_gpu_class gpu_class(struct state *st, const struct tix_row_disk *r)
{
	if (r->kind != TIX_KIND_KERNEL)
		return tix_rule_gpu_class(r->kind, "");
	uint8_t *c = &st->name_class[r->name];
	if (!(*c & NAME_CLASS_KNOWN))
		*c |= NAME_CLASS_KNOWN |
		      (tix_rule_gpu_class(r->kind, str(st, r->name)) == TIX_GPU_COMM ? NAME_COMM : 0);
	return (*c & NAME_COMM) ? TIX_GPU_COMM : TIX_GPU_COMPUTE;
}

static int cmp_sync_row(const void *a, const void *b)
{
	const struct sync_call *x = a, *y = b;
	return x->row < y->row ? -1 : (x->row > y->row);
}

/* Every synchronising call, found by name (the name-rows phase listed each
 * name's rows), then put in row order (by thread, then start), with its
 * records for its step and for the trace. */
static int list_syncs(struct state *st, struct tix_error *err)
{
	struct linker *L = st->L;
	uint32_t cap = 0;
	st->sync_first = calloc((size_t)L->ntracks + 1, sizeof(uint32_t));
	st->sync_count = calloc((size_t)L->ntracks + 1, sizeof(uint32_t));
	if (!st->sync_first || !st->sync_count)
		return tix_error_oom(err, NULL);
	const struct tix_names_disk *names = (const struct tix_names_disk *)L->names.base;
	const uint32_t *name_rows = (const uint32_t *)L->name_rows.base;
	for (size_t k = 0; k < L->names.n; k++) {
		if (!is_sync_name(st, names[k].name))
			continue;
		for (uint32_t j = 0; j < names[k].count; j++) {
			uint32_t i = name_rows[names[k].first + j];
			const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
			if (!tix_kind_is_launch(r->kind))
				continue;
			if (tix_grow32(&st->syncs, &cap, (size_t)st->nsyncs + 1, sizeof(*st->syncs), 64) != 0)
				return tix_error_oom(err, NULL);
			st->syncs[st->nsyncs++] = (struct sync_call){i, r->track, r->start_ns, 0, TIX_NONE, TIX_NONE};
		}
	}
	if (st->nsyncs)
		qsort(st->syncs, st->nsyncs, sizeof(*st->syncs), cmp_sync_row);
	for (uint32_t k = 0; k < st->nsyncs; k++) {
		struct sync_call *sc = &st->syncs[k];
		uint32_t i = sc->row;
		const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
		if (k == 0 || sc->track != sc[-1].track)
			st->sync_first[sc->track] = k;
		st->sync_count[sc->track]++;
		uint32_t op_row = user_op_above(&st->v, i);
		uint32_t op = op_row == TIX_NONE ? TIX_NONE : SPILL_AT(&L->rows, struct tix_row_disk, op_row).name;
		uint32_t step = tix_rule_step_of(&st->v, i);
		int64_t dur = row_dur(L, i);
		sc->end = sc->start + dur;
		sc->rec_trace = sync_rec(st, TIX_NONE, r->name, op);
		if (step != TIX_NONE)
			sc->rec_step = sync_rec(st, step, r->name, op);
		if (sc->rec_trace == TIX_NONE || (step != TIX_NONE && sc->rec_step == TIX_NONE))
			return tix_error_oom(err, NULL);
		uint32_t recs[2] = {sc->rec_trace, sc->rec_step};
		for (int j = 0; j < 2; j++) {
			if (recs[j] == TIX_NONE)
				continue;
			struct tix_sync *a = &st->sync_acc[recs[j]];
			if (a->example_row == TIX_NONE)
				a->example_row = i;
			a->count++;
			a->cpu_ns = tix_sat_add(a->cpu_ns, dur);
			struct tix_breakdown *bd = &L->breakdowns[j == 0 ? L->nsteps : step];
			bd->sync_calls++;
			bd->sync_cpu_ns = tix_sat_add(bd->sync_cpu_ns, dur);
		}
	}
	return 0;
}

/* The synchronising call on track t that the CPU sat in at time ts, or
 * NULL. */
static const struct sync_call *sync_at(const struct state *st, uint32_t t, int64_t ts)
{
	if (t >= st->L->ntracks || !st->sync_count[t])
		return NULL;
	const struct sync_call *s = st->syncs + st->sync_first[t];
	uint32_t lo = 0, hi = st->sync_count[t];
	while (lo < hi) { /* the last call starting at or before ts */
		uint32_t mid = lo + (hi - lo) / 2;
		if (s[mid].start <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && ts < s[lo - 1].end ? &s[lo - 1] : NULL;
}

/* ---- the pass ---- */

/* The unions and causes of one step (or of the trace). */
struct span_acc {
	struct tix_union all, compute, comm, cc; /* cc: compute or comm */
	int64_t first;
	int any;
};

/* One stream as the pass goes along it. */
struct stream_state {
	int has_prev;
	int64_t end;                /* the latest end so far */
	uint32_t end_row;           /* the event that reached it */
	uint32_t prev_step;         /* the step of the event before */
	uint32_t rec_trace, rec_step, rec_step_of; /* records: over the trace, of rec_step_of */
	/* the launch-bound stretch being built: counted once it is long
	 * enough, its first members held until then */
	uint32_t run, run_last;     /* members; the last one's row */
	uint32_t held_step[TIX_LAUNCH_RUN_MIN];         /* the held members' steps */
	int64_t held_gap[TIX_LAUNCH_RUN_MIN];           /* the gaps before them (0: none) */
	uint32_t held_gap_step[TIX_LAUNCH_RUN_MIN];     /* the step both sides of it share */
	uint32_t held_rec[TIX_LAUNCH_RUN_MIN];          /* that step's stream record */
};

static uint32_t stream_rec(struct state *st, uint32_t track, uint32_t step, struct tix_error *err)
{
	struct stream_key k = {track, step};
	uint32_t before = st->stream_recs.n, id = dedup_add(&st->stream_recs, &k);
	if (id == TIX_NONE ||
	    tix_grow32_zeroed(&st->stream_acc, &st->stream_cap, id, sizeof(*st->stream_acc), 64)) {
		tix_error_oom(err, NULL);
		return TIX_NONE;
	}
	if (st->stream_recs.n > before)
		st->stream_acc[id] = (struct tix_stream_idle){.track = track, .step = step,
		                                               .longest_gap_row = TIX_NONE};
	return id;
}

static void add_gap(struct tix_stream_idle *r, enum tix_idle_cause c, int64_t gap, uint32_t row)
{
	r->gaps++;
	int64_t *to = c == TIX_IDLE_HOST ? &r->host_wait_ns : c == TIX_IDLE_KERNEL ? &r->kernel_wait_ns
	                                                                             : &r->other_ns;
	*to += gap;
	if (gap > r->longest_gap_ns) {
		r->longest_gap_ns = gap;
		r->longest_gap_row = row;
	}
}

/* A member of a launch-bound stretch long enough to count: the kernel in
 * its step, the gap before it (ns, the step its two sides share, that
 * step's stream record) in the trace and in that step. */
static void count_member(struct state *st, struct stream_state *ss, uint32_t step, int64_t gap,
                         uint32_t gap_step, uint32_t rec)
{
	struct linker *L = st->L;
	struct tix_breakdown *t = &L->breakdowns[L->nsteps];
	t->launch_bound_kernels++;
	t->launch_bound_idle_ns += gap;
	st->stream_acc[ss->rec_trace].launch_bound_idle_ns += gap;
	if (step != TIX_NONE && step < L->nsteps)
		L->breakdowns[step].launch_bound_kernels++;
	if (gap_step != TIX_NONE && gap_step < L->nsteps) {
		L->breakdowns[gap_step].launch_bound_idle_ns += gap;
		if (rec != TIX_NONE)
			st->stream_acc[rec].launch_bound_idle_ns += gap;
	}
}

/* A launch-bound kernel joins the stretch (gap: the host-wait gap before
 * it, 0 for the first). */
static void run_add(struct state *st, struct stream_state *ss, uint32_t row, uint32_t step, int64_t gap,
                    uint32_t gap_step, uint32_t rec)
{
	if (ss->run < TIX_LAUNCH_RUN_MIN - 1) {
		ss->held_step[ss->run] = step;
		ss->held_gap[ss->run] = gap;
		ss->held_gap_step[ss->run] = gap_step;
		ss->held_rec[ss->run] = rec;
	} else if (ss->run == TIX_LAUNCH_RUN_MIN - 1) { /* long enough: the held ones count */
		for (uint32_t i = 0; i < ss->run; i++)
			count_member(st, ss, ss->held_step[i], ss->held_gap[i], ss->held_gap_step[i], ss->held_rec[i]);
		count_member(st, ss, step, gap, gap_step, rec);
	} else {
		count_member(st, ss, step, gap, gap_step, rec);
	}
	ss->run++;
	ss->run_last = row;
}

/* One GPU work event on its stream: the stream's gap before it, and the
 * launch-bound stretch it may continue (a stretch: launch-bound kernels in
 * a row on one stream, each after a host-wait gap left by the one before
 * it, docs/FINDINGS.md section 2). */
static int on_stream(struct state *st, struct stream_state *ss, uint32_t t, uint32_t row, uint32_t step,
                     int64_t s, int64_t e, int64_t launch_ns, int launch_bound, struct tix_error *err)
{
	if (ss->rec_trace == TIX_NONE && (ss->rec_trace = stream_rec(st, t, TIX_NONE, err)) == TIX_NONE)
		return -1;
	if (step != TIX_NONE && ss->rec_step_of != step) { /* every stream of a step has its record */
		if ((ss->rec_step = stream_rec(st, t, step, err)) == TIX_NONE)
			return -1;
		ss->rec_step_of = step;
	}
	int64_t gap = 0;
	enum tix_idle_cause cause = TIX_IDLE_OTHER;
	uint32_t gap_step = TIX_NONE;
	if (ss->has_prev && s > ss->end) {
		gap = s - ss->end;
		cause = tix_rule_idle_cause(ss->end, gap, launch_ns);
		add_gap(&st->stream_acc[ss->rec_trace], cause, gap, row);
		if (step != TIX_NONE && ss->prev_step == step) {
			add_gap(&st->stream_acc[ss->rec_step], cause, gap, row);
			gap_step = step;
		}
	}
	if (launch_bound && ss->run && gap > 0 && cause == TIX_IDLE_HOST && ss->end_row == ss->run_last) {
		run_add(st, ss, row, step, gap, gap_step, gap_step != TIX_NONE ? ss->rec_step : TIX_NONE);
	} else {
		ss->run = 0;
		if (launch_bound)
			run_add(st, ss, row, step, 0, TIX_NONE, TIX_NONE);
	}
	if (!ss->has_prev || e > ss->end) {
		ss->end = e;
		ss->end_row = row;
	}
	ss->has_prev = 1;
	ss->prev_step = step;
	return 0;
}

/* One GPU work event in the unions of its step or of the trace. */
static void on_span(struct state *st, struct span_acc *a, struct tix_breakdown *bd, uint32_t row,
                    int64_t s, int64_t e, int64_t dur, enum tix_gpu_class cls, int64_t launch_ns,
                    uint32_t launch_track)
{
	if (a->any && s > a->all.e) { /* a gap over all streams */
		int64_t g0 = a->all.e, gap = s - g0;
		enum tix_idle_cause c = tix_rule_idle_cause(g0, gap, launch_ns);
		*(c == TIX_IDLE_HOST ? &bd->idle_host_ns : c == TIX_IDLE_KERNEL ? &bd->idle_kernel_ns
		                                                                 : &bd->idle_other_ns) += gap;
		bd->gaps++;
		const struct sync_call *sc = launch_ns != INT64_MIN ? sync_at(st, launch_track, g0) : NULL;
		if (sc) {
			bd->idle_sync_ns += gap;
			uint32_t rec = bd == &st->L->breakdowns[st->L->nsteps] ? sc->rec_trace : sc->rec_step;
			if (rec != TIX_NONE)
				st->sync_acc[rec].idle_ns += gap;
		}
	}
	if (!a->any) {
		a->first = s;
		a->any = 1;
	}
	tix_union_add(&a->all, s, e);
	if (cls == TIX_GPU_COMPUTE)
		tix_union_add(&a->compute, s, e);
	if (cls == TIX_GPU_COMM)
		tix_union_add(&a->comm, s, e);
	if (cls != TIX_GPU_MEMORY)
		tix_union_add(&a->cc, s, e);
	bd->gpu_events++;
	bd->gpu_ns = tix_sat_add(bd->gpu_ns, dur);
	(void)row;
}

static void span_done(const struct span_acc *a, struct tix_breakdown *bd)
{
	if (!a->any)
		return;
	int64_t all = tix_union_total(&a->all), c = tix_union_total(&a->compute), m = tix_union_total(&a->comm),
	        cc = tix_union_total(&a->cc);
	bd->span_start = a->first;
	bd->span_end = a->all.e > a->first ? a->all.e : a->first;
	/* the end of the last interval is the latest end: unions are fed in
	 * start order and keep the largest end */
	bd->busy_ns = all;
	bd->compute_ns = c;
	bd->comm_ns = cc - c;
	bd->memory_ns = all - cc;
	bd->overlap_ns = c + m - cc;
	bd->idle_ns = (bd->span_end - bd->span_start) - all;
}

/* The GPU tracks merged by start: a binary heap of track cursors. */
struct cursor {
	uint32_t track, row, end;
	int64_t start, dur;
};

/* Start order; events that start together longer first (as rows are on
 * one track), then by row. */
static int cursor_before(const struct cursor *a, const struct cursor *b)
{
	if (a->start != b->start)
		return a->start < b->start;
	return a->dur != b->dur ? a->dur > b->dur : a->row < b->row;
}

TIX_HEAP_DOWN(heap_down, struct cursor, cursor_before)

/* Moves c to the next GPU work row of its track; 0 when there is none. */
static int cursor_next(const struct linker *L, struct cursor *c)
{
	for (; c->row < c->end; c->row++) {
		const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, c->row);
		if (tix_kind_is_gpu_work(r->kind)) {
			c->start = r->start_ns;
			c->dur = row_dur(L, c->row);
			return 1;
		}
	}
	return 0;
}

static int sweep(struct state *st, struct tix_error *err)
{
	struct linker *L = st->L;
	struct cursor *h = malloc(((size_t)L->ntracks + 1) * sizeof(*h));
	struct stream_state *ss = calloc((size_t)L->ntracks + 1, sizeof(*ss));
	struct span_acc *acc = calloc((size_t)L->nsteps + 1, sizeof(*acc));
	int rc = -1;
	if (!h || !ss || !acc) {
		tix_error_oom(err, NULL);
		goto out;
	}
	uint32_t n = 0;
	for (uint32_t t = 0; t < L->ntracks; t++) {
		ss[t].rec_trace = ss[t].rec_step = ss[t].rec_step_of = TIX_NONE;
		struct cursor c = {t, L->tracks[t].first_row, L->tracks[t].first_row + L->tracks[t].row_count, 0, 0};
		if (cursor_next(L, &c))
			h[n++] = c;
	}
	for (uint32_t i = n / 2; i-- > 0;)
		heap_down(h, n, i);
	struct tix_breakdown *trace = &L->breakdowns[L->nsteps];
	while (n) {
		struct cursor *c = &h[0];
		uint32_t row = c->row, t = c->track;
		const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, row);
		int64_t s = r->start_ns, dur = row_dur(L, row), e = s + dur;
		uint32_t step = tix_rule_step_of(&st->v, row);
		enum tix_gpu_class cls = gpu_class(st, r);
		int64_t launch_ns = INT64_MIN, launch_dur = -1;
		uint32_t launch_track = TIX_NONE;
		if (r->link != TIX_NONE) {
			const struct tix_row_disk *lr = &SPILL_AT(&L->rows, struct tix_row_disk, r->link);
			launch_ns = lr->start_ns;
			launch_dur = row_dur(L, r->link);
			launch_track = lr->track;
		}
		int lb = r->kind == TIX_KIND_KERNEL && launch_dur >= 0 && tix_rule_launch_bound(dur, launch_dur);
		if (on_stream(st, &ss[t], t, row, step, s, e, launch_ns, lb, err) != 0)
			goto out;
		on_span(st, &acc[L->nsteps], trace, row, s, e, dur, cls, launch_ns, launch_track);
		if (step != TIX_NONE && step < L->nsteps)
			on_span(st, &acc[step], &L->breakdowns[step], row, s, e, dur, cls, launch_ns, launch_track);
		if (tix_rule_is_pageable_copy(r->kind, str(st, r->name))) {
			trace->pageable_copies++;
			trace->pageable_ns = tix_sat_add(trace->pageable_ns, dur);
			if (step != TIX_NONE && step < L->nsteps) {
				L->breakdowns[step].pageable_copies++;
				L->breakdowns[step].pageable_ns = tix_sat_add(L->breakdowns[step].pageable_ns, dur);
			}
		}
		c->row++;
		if (!cursor_next(L, c))
			h[0] = h[--n];
		heap_down(h, n, 0);
	}
	for (uint32_t s = 0; s <= L->nsteps; s++)
		span_done(&acc[s], &L->breakdowns[s]);
	rc = 0;
out:
	free(h);
	free(ss);
	free(acc);
	return rc;
}

/* ---- the records, in the order the reader finds them ---- */

/* Steps first (TIX_NONE, the trace, sorts last), then as each says. */
static int cmp_stream(const void *a, const void *b)
{
	const struct tix_stream_idle *x = a, *y = b;
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	return x->track < y->track ? -1 : (x->track > y->track);
}

static int cmp_sync(const void *a, const void *b)
{
	const struct tix_sync *x = a, *y = b;
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	if (x->idle_ns != y->idle_ns)
		return x->idle_ns > y->idle_ns ? -1 : 1;
	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns > y->cpu_ns ? -1 : 1;
	return x->example_row < y->example_row ? -1 : (x->example_row > y->example_row);
}

/* breakdown s's first/count of records sorted by step. */
static void ranges(struct linker *L, const void *recs, size_t elem, uint32_t n, int syncs)
{
	for (uint32_t i = 0; i < n;) {
		uint32_t s = *(const uint32_t *)((const char *)recs + (size_t)i * elem + (syncs ? 0 : 4));
		uint32_t j = i;
		while (j < n && *(const uint32_t *)((const char *)recs + (size_t)j * elem + (syncs ? 0 : 4)) == s)
			j++;
		struct tix_breakdown *bd = &L->breakdowns[s == TIX_NONE ? L->nsteps : s];
		if (syncs) {
			bd->syncs_first = i;
			bd->syncs_count = j - i;
		} else {
			bd->streams_first = i;
			bd->streams_count = j - i;
		}
		i = j;
	}
}

int linker_breakdown(struct linker *L, struct tix_error *err)
{
	struct state st;
	memset(&st, 0, sizeof(st));
	st.L = L;
	linker_rows_view(L, &st.v);
	int rc = -1;
	L->breakdowns = calloc((size_t)L->nsteps + 1, sizeof(*L->breakdowns));
	st.name_class = calloc((size_t)L->b->c.strings.n + 1, 1);
	if (dedup_init(&st.sync_recs, sizeof(struct sync_key)) != 0) {
		free(st.name_class);
		return tix_error_oom(err, NULL);
	}
	if (dedup_init(&st.stream_recs, sizeof(struct stream_key)) != 0) {
		dedup_done(&st.sync_recs);
		free(st.name_class);
		return tix_error_oom(err, NULL);
	}
	if (!L->breakdowns || !st.name_class) {
		tix_error_oom(err, NULL);
		goto out;
	}
	if (list_syncs(&st, err) != 0 || sweep(&st, err) != 0)
		goto out;
	L->nstream_idle = st.stream_recs.n;
	L->stream_idle = st.stream_acc;
	st.stream_acc = NULL;
	if (L->nstream_idle)
		qsort(L->stream_idle, L->nstream_idle, sizeof(*L->stream_idle), cmp_stream);
	ranges(L, L->stream_idle, sizeof(*L->stream_idle), L->nstream_idle, 0);
	L->nsyncs = st.sync_recs.n;
	L->syncs = st.sync_acc;
	st.sync_acc = NULL;
	if (L->nsyncs)
		qsort(L->syncs, L->nsyncs, sizeof(*L->syncs), cmp_sync);
	ranges(L, L->syncs, sizeof(*L->syncs), L->nsyncs, 1);
	rc = 0;
out:
	free(st.name_class);
	free(st.syncs);
	free(st.sync_first);
	free(st.sync_count);
	free(st.sync_acc);
	free(st.stream_acc);
	dedup_done(&st.sync_recs);
	dedup_done(&st.stream_recs);
	return rc;
}
