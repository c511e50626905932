/* The builder's finishing half: place.c orders the collected events by
 * track and time; parents.c links each CPU row to its container on the
 * same thread; this file links GPU events to their launch calls (by
 * correlation id or ac2g flow) and finds the steps; aggregate.c computes
 * the totals; write.c writes the sections. */
#include "index/index.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "index/builder_int.h"
#include "index/rules.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int linker_spill(struct linker *L, struct spill *s, size_t elem, struct tix_error *err)
{
	int best = -1;
	for (int i = 0; i < L->npool; i++)
		if (best < 0 || L->pool[i].cap * L->pool[i].elem > L->pool[best].cap * L->pool[best].elem)
			best = i;
	if (best < 0)
		return spill_init(s, L->b->dir, L->b->out_path, elem, &L->b->budget, err);
	*s = L->pool[best];
	L->pool[best] = L->pool[--L->npool];
	spill_retype(s, elem);
	return 0;
}

void linker_release(struct linker *L, struct spill *s)
{
	if (s->base && s->fd >= 0 && L->npool < (int)(sizeof(L->pool) / sizeof(L->pool[0]))) {
		L->pool[L->npool++] = *s;
		memset(s, 0, sizeof(*s));
		s->fd = -1;
		return;
	}
	spill_done(s);
}

int linker_two_threads(const struct linker *L)
{
	uint32_t from = L->b->opts.split_rows ? L->b->opts.split_rows : 65536;
	return L->nrows >= from;
}

/* ---- links ---- */

int linker_warn(struct linker *L, const char *msg, struct tix_error *err)
{
	size_t n = strlen(msg), old = L->warnings ? strlen(L->warnings) : 0;
	char *w = realloc(L->warnings, old + n + 3);
	if (!w)
		return tix_error_env(err, "out of memory");
	if (old)
		memcpy(w + old, "; ", 2), old += 2;
	memcpy(w + old, msg, n + 1);
	L->warnings = w;
	return 0;
}

void linker_rows_view(const struct linker *L, struct tix_rows *v)
{
	memset(v, 0, sizeof(*v));
	v->rows = (const struct tix_row_disk *)L->rows.base;
	v->nrows = L->nrows;
	v->long_durs = L->long_durs;
	v->nlong = L->nlong;
	v->chains = (const struct tix_chain_disk *)L->chains.base;
	v->nchains = (uint32_t)L->chains.n;
	v->chain_rows = (const uint32_t *)L->chain_rows.base;
	v->nchain_rows = (uint32_t)L->chain_rows.n;
	v->steps = L->steps;
	v->nsteps = L->nsteps - (L->before_trace_step != TIX_NONE);
	v->before_trace_step = L->before_trace_step;
}

struct corr_slot {
	int64_t corr;
	uint32_t row;
	uint32_t used;
};

static int is_launch_kind(uint8_t k)
{
	return k == TIX_KIND_RUNTIME || k == TIX_KIND_DRIVER;
}

/* First row of track t at or after time ts. */
static uint32_t lower_bound(const struct linker *L, uint32_t t, int64_t ts)
{
	uint32_t lo = L->tracks[t].first_row, hi = lo + L->tracks[t].row_count;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (SPILL_AT(&L->rows, struct tix_row_disk, mid).start_ns < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int cmp_flow(const void *a, const void *b)
{
	const struct bflow *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return (int)y->is_start - (int)x->is_start; /* "s" first */
}

/* Kineto binds an "s" to the launch call starting at ts on its thread and
 * an "f" (bp "e") to the GPU event starting at ts on its stream. */
static uint32_t flow_end_row(const struct linker *L, const struct bflow *f, int want_launch)
{
	uint32_t end = L->tracks[f->track].first_row + L->tracks[f->track].row_count;
	for (uint32_t i = lower_bound(L, f->track, f->ts_ns); i < end; i++) {
		const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
		if (r->start_ns != f->ts_ns)
			break;
		if (want_launch ? is_launch_kind(r->kind) : tix_kind_is_gpu(r->kind))
			return i;
	}
	return TIX_NONE;
}

/* Launch calls by correlation id (rule: docs/FORMAT.md, "Links"). */
static int link_by_correlation(struct linker *L, struct tix_error *err)
{
	struct tix_builder *b = L->b;
	uint32_t nlaunch = b->c.kind_counts[TIX_KIND_RUNTIME] + b->c.kind_counts[TIX_KIND_DRIVER];
	uint32_t nslots = 16;
	while (nslots < 2ull * nlaunch)
		nslots *= 2;
	struct spill table;
	if (linker_spill(L, &table, sizeof(struct corr_slot), err) ||
	    spill_resize(&table, nslots, err)) {
		spill_done(&table);
		return -1;
	}
	struct corr_slot *slots = (struct corr_slot *)table.base;
	memset(slots, 0, (size_t)nslots * sizeof(*slots));
	uint32_t mask = nslots - 1;
	/* Launch calls by correlation id.  Merged traces of several processes
	 * (and some single ones) reuse ids: the slot keeps a list, through
	 * next[], of every launch with its id. */
	struct spill nexts;
	if (linker_spill(L, &nexts, sizeof(uint32_t), err) || spill_resize(&nexts, L->nrows, err)) {
		spill_done(&nexts);
		linker_release(L, &table);
		return -1;
	}
	uint32_t *next = (uint32_t *)nexts.base;
	for (uint32_t i = 0; i < L->nrows; i++) {
		int64_t c = SPILL_AT(&L->corr, int64_t, i);
		if (c < 0 || !is_launch_kind(SPILL_AT(&L->rows, struct tix_row_disk, i).kind))
			continue;
		uint32_t j = (uint32_t)tix_hash64(&c, 8, 3) & mask;
		while (slots[j].used && slots[j].corr != c)
			j = (j + 1) & mask;
		next[i] = slots[j].used ? slots[j].row : TIX_NONE;
		if (slots[j].used == 1)
			L->corr_collisions++;
		slots[j].corr = c;
		slots[j].row = i;
		slots[j].used++;
	}
	uint32_t unlinked = 0;
	for (uint32_t i = 0; i < L->nrows; i++) {
		struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
		if (!tix_kind_is_gpu(r->kind))
			continue;
		int64_t c = SPILL_AT(&L->corr, int64_t, i);
		if (c < 0) {
			unlinked += tix_kind_is_gpu_work(r->kind);
			continue;
		}
		uint32_t j = (uint32_t)tix_hash64(&c, 8, 3) & mask;
		while (slots[j].used && slots[j].corr != c)
			j = (j + 1) & mask;
		if (!slots[j].used) {
			unlinked += tix_kind_is_gpu_work(r->kind);
			continue;
		}
		/* The launch that precedes the GPU event most closely; when none
		 * precedes it, the earliest. */
		uint32_t best = TIX_NONE, first = TIX_NONE;
		for (uint32_t k = slots[j].row; k != TIX_NONE; k = next[k]) {
			int64_t ks = SPILL_AT(&L->rows, struct tix_row_disk, k).start_ns;
			if (ks <= r->start_ns &&
			    (best == TIX_NONE || ks > SPILL_AT(&L->rows, struct tix_row_disk, best).start_ns))
				best = k;
			if (first == TIX_NONE || ks < SPILL_AT(&L->rows, struct tix_row_disk, first).start_ns)
				first = k;
		}
		r->link = best != TIX_NONE ? best : first;
	}
	linker_release(L, &nexts);
	linker_release(L, &table);

	L->unlinked_by_corr = unlinked;
	return 0;
}

/* ac2g flows, for GPU events whose correlation id led nowhere: the driver
 * runs this (after merging the second producer's flows) only when some
 * did. */
static int link_by_flows(struct linker *L, struct tix_error *err)
{
	struct tix_builder *b = L->b;
	(void)err;
	for (size_t i = 0; i < b->c.flows.n; i++) { /* flows name tracks too */
		struct bflow *f = &SPILL_AT(&b->c.flows, struct bflow, i);
		f->track = L->track_remap[f->track];
	}
	struct bflow *fl = (struct bflow *)b->c.flows.base;
	size_t nf = b->c.flows.n;
	if (linker_sort(L, fl, nf, sizeof(*fl), cmp_flow, err) != 0)
		return -1;
	for (size_t i = 0; i + 1 < nf; i++) {
		if (!fl[i].is_start || fl[i + 1].is_start || fl[i + 1].id != fl[i].id)
			continue;
		uint32_t dst = flow_end_row(L, &fl[i + 1], 0);
		if (dst == TIX_NONE)
			continue;
		struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, dst);
		if (r->link != TIX_NONE)
			continue;
		uint32_t src = flow_end_row(L, &fl[i], 1);
		if (src != TIX_NONE) {
			r->link = src;
			r->flags |= TIX_ROW_LINK_BY_FLOW;
		}
	}
	return 0;
}

/* What the links say of each GPU event: no launch found, or replayed from
 * a graph (launched by cudaGraphLaunch / hipGraphLaunch); and what the
 * launches say of the trace. */
static int mark_launches(struct linker *L, struct tix_error *err)
{
	struct tix_builder *b = L->b;
	for (uint32_t i = 0; i < L->nrows; i++) {
		struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
		if (!tix_kind_is_gpu_work(r->kind))
			continue;
		if (r->link == TIX_NONE) {
			r->flags |= TIX_ROW_NO_LAUNCH;
			L->gpu_without_launch++;
		} else {
			const char *ln = intern_str(&b->c.strings,
			                            SPILL_AT(&L->rows, struct tix_row_disk, r->link).name);
			if (strstr(ln, "GraphLaunch"))
				r->flags |= TIX_ROW_GRAPH_REPLAY;
		}
	}
	char msg[300];
	if (L->corr_collisions) {
		snprintf(msg, sizeof(msg),
		         "%u correlation ids are carried by several launch calls (merged processes?): "
		         "each GPU event was linked to the launch that precedes it most closely",
		         L->corr_collisions);
		if (linker_warn(L, msg, err) != 0)
			return -1;
	}
	uint32_t gpu_work = b->c.kind_counts[TIX_KIND_KERNEL] + b->c.kind_counts[TIX_KIND_MEMCPY] +
	                    b->c.kind_counts[TIX_KIND_MEMSET];
	if (gpu_work == 0) {
		/* The runtime and driver calls that would have GPU activity:
		 * those with a correlation id (corr is still there in this phase). */
		uint32_t launches = 0;
		for (uint32_t i = 0; i < L->nrows; i++) {
			const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
			if (is_launch_kind(r->kind) && SPILL_AT(&L->corr, int64_t, i) >= 0)
				launches++;
		}
		if (launches) {
			snprintf(msg, sizeof(msg),
			         "%u CUDA runtime/driver calls and no GPU activity at all (no kernel, memcpy "
			         "or memset): the profiler did not record the GPU side (CUPTI activity off?)",
			         launches);
			if (linker_warn(L, msg, err) != 0)
				return -1;
		}
	}
	return 0;
}

/* ---- steps ---- */

struct step_rule {
	const char *label;
	const char *regex;
};

static const struct step_rule default_rules[] = {
	{"ProfilerStep#N", "^ProfilerStep#[0-9]+$"},
	{"SGLang step[...]", "^step\\[(DECODE|EXTEND|PREFILL|MIXED|IDLE)([] ,].*)?$"},
	/* vLLM v1's annotations: execute_context_1(888_788544)_generation_0(0),
	 * execute_32_context_0(sq0sk0...)_generation_32(...) */
	{"vLLM execute_*_context_*_generation_*",
	 "^execute_([0-9]+_)?context_[0-9]+(\\(.*\\))?_generation_[0-9]+(\\(.*\\))?$"},
	{"vLLM execute_model", "^execute_model$"},
};

static int cmp_marker(const void *a, const void *b, void *ctx)
{
	const struct linker *L = ctx;
	const struct tix_row_disk *x = &SPILL_AT(&L->rows, struct tix_row_disk, *(const uint32_t *)a);
	const struct tix_row_disk *y = &SPILL_AT(&L->rows, struct tix_row_disk, *(const uint32_t *)b);
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static int is_marker_kind(uint8_t k)
{
	return k == TIX_KIND_CPU_OP || k == TIX_KIND_USER_ANNOTATION || k == TIX_KIND_PYTHON ||
	       k == TIX_KIND_OTHER;
}

/* GPU work launched before the profiler's CPU window: no launch call, and a
 * correlation id below every launch call's or a start before the first CPU
 * event.  Counted in a step of its own, after the real ones, so that it does
 * not inflate the first. */
static int mark_before_trace(struct linker *L, struct tix_error *err)
{
	int64_t min_corr = INT64_MAX, cpu_start = INT64_MAX;
	for (uint32_t i = 0; i < L->nrows; i++) {
		const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
		if (!tix_rule_is_container_kind(r->kind))
			continue;
		cpu_start = r->start_ns < cpu_start ? r->start_ns : cpu_start;
		int64_t c = SPILL_AT(&L->corr, int64_t, i);
		if (is_launch_kind(r->kind) && c >= 0 && c < min_corr)
			min_corr = c;
	}
	L->before_trace_step = TIX_NONE;
	if (cpu_start == INT64_MAX) /* no CPU side at all: no window to be before */
		return 0;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (uint32_t i = 0; i < L->nrows; i++) {
		struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
		if (!tix_kind_is_gpu_work(r->kind) || r->link != TIX_NONE)
			continue;
		int64_t c = SPILL_AT(&L->corr, int64_t, i);
		if (!((c >= 0 && c < min_corr && min_corr != INT64_MAX) || r->start_ns < cpu_start))
			continue;
		r->flags |= TIX_ROW_BEFORE_TRACE;
		L->gpu_before_trace++;
		int64_t e = r->start_ns + row_dur(L, i);
		lo = r->start_ns < lo ? r->start_ns : lo;
		hi = e > hi ? e : hi;
	}
	if (!L->gpu_before_trace)
		return 0;
	struct tix_step *s = &L->steps[L->nsteps];
	memset(s, 0, sizeof(*s));
	s->name = intern_add(&L->b->c.strings, "(before the trace)", 18);
	if (s->name == TIX_NONE)
		return tix_error_env(err, "out of memory");
	s->marker_row = TIX_NONE;
	s->start_ns = lo;
	s->dur_ns = hi - lo;
	s->top_group = TIX_NONE;
	L->before_trace_step = L->nsteps++;
	char msg[200];
	snprintf(msg, sizeof(msg),
	         "%u GPU events were launched before the trace's CPU window: shown apart, as \"before the trace\"",
	         L->gpu_before_trace);
	return linker_warn(L, msg, err);
}

static int find_steps(struct linker *L, struct tix_error *err)
{
	struct tix_builder *b = L->b;
	uint32_t nstr = b->c.strings.n;
	uint8_t *is_name = calloc(nstr + 1, 1);   /* 1: a CPU-side name, 2: a marker name */
	uint32_t *markers = NULL;
	if (!is_name)
		return tix_error_env(err, "out of memory");
	for (uint32_t i = 0; i < L->nrows; i++) {
		const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
		if (is_marker_kind(r->kind))
			is_name[r->name] = 1;
	}
	struct step_rule user = {"--step-marker", b->step_marker};
	const struct step_rule *rules = b->step_marker[0] ? &user : default_rules;
	size_t nrules = b->step_marker[0] ? 1 : sizeof(default_rules) / sizeof(default_rules[0]);
	int found = 0;
	for (size_t k = 0; k < nrules && !found; k++) {
		regex_t re;
		if (regcomp(&re, rules[k].regex, REG_EXTENDED | REG_NOSUB) != 0) {
			free(is_name);
			char pb[200];
			return tix_error_set(err, "invalid step marker regex '%s'",
			                     tix_printable(rules[k].regex, pb, sizeof(pb)));
		}
		for (uint32_t s = 0; s < nstr; s++) {
			if (is_name[s] && regexec(&re, intern_str(&b->c.strings, s), 0, NULL, 0) == 0) {
				is_name[s] = 2;
				found = 1;
			}
		}
		regfree(&re);
		if (found)
			L->step_rule = rules[k].label;
	}

	uint32_t nm = 0, cap = 0;
	if (found) {
		for (uint32_t i = 0; i < L->nrows; i++) {
			const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
			if (!is_marker_kind(r->kind) || is_name[r->name] != 2)
				continue;
			if (nm == cap) {
				cap = cap ? cap * 2 : 64;
				uint32_t *p = realloc(markers, cap * sizeof(*p));
				if (!p)
					goto oom;
				markers = p;
			}
			markers[nm++] = i;
		}
		qsort_r(markers, nm, sizeof(*markers), cmp_marker, L);
	}
	free(is_name);
	is_name = NULL;

	L->steps = calloc((nm ? nm : 1) + 1, sizeof(*L->steps)); /* + before the trace */
	if (!L->steps)
		goto oom;
	int64_t open_end = INT64_MIN;
	for (uint32_t m = 0; m < nm; m++) {
		uint32_t row = markers[m];
		struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, row);
		/* A marker inside another (vLLM's nested execute_model) is not a
		 * step of its own. */
		if (r->start_ns < open_end)
			continue;
		struct tix_step *s = &L->steps[L->nsteps++];
		s->name = r->name;
		s->marker_row = row;
		s->start_ns = r->start_ns;
		s->dur_ns = row_dur(L, row);
		if (r->flags & TIX_ROW_OPEN_END) /* its end unknown: until the next marker, or the end */
			s->dur_ns = (m + 1 < nm ? SPILL_AT(&L->rows, struct tix_row_disk, markers[m + 1]).start_ns
			                        : L->last_ns) - s->start_ns;
		s->top_group = TIX_NONE;
		open_end = s->start_ns + s->dur_ns;
		r->flags |= TIX_ROW_STEP_MARKER;
	}
	free(markers);
	if (L->nsteps == 0) {
		if (b->step_marker[0]) {
			char msg[300], pb[200];
			snprintf(msg, sizeof(msg), "--step-marker '%s' matched no event: the trace is one step",
			         tix_printable(b->step_marker, pb, sizeof(pb)));
			if (linker_warn(L, msg, err) != 0)
				return -1;
		}
		/* The span of the events that have one (not instants or counters). */
		int64_t lo = INT64_MAX, hi = INT64_MIN;
		for (uint32_t i = 0; i < L->nrows; i++) {
			const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
			if (r->kind == TIX_KIND_INSTANT || r->kind == TIX_KIND_COUNTER)
				continue;
			lo = r->start_ns < lo ? r->start_ns : lo;
			hi = r->start_ns + row_dur(L, i) > hi ? r->start_ns + row_dur(L, i) : hi;
		}
		if (lo > hi)
			lo = hi = L->first_ns;
		struct tix_step *s = &L->steps[L->nsteps++];
		s->name = intern_add(&b->c.strings, "(whole trace)", 13);
		s->marker_row = TIX_NONE;
		s->start_ns = lo;
		s->dur_ns = hi - lo;
		s->top_group = TIX_NONE;
		L->step_rule = "none found: one step";
		if (s->name == TIX_NONE)
			return tix_error_env(err, "out of memory");
	}
	return mark_before_trace(L, err);
oom:
	free(is_name);
	free(markers);
	return tix_error_env(err, "out of memory");
}

uint32_t linker_step_of(const struct linker *L, uint32_t row)
{
	struct tix_rows v;
	linker_rows_view(L, &v);
	return tix_rule_step_of(&v, row);
}

int builder_link_and_write(struct tix_builder *b, struct tix_error *err)
{
	struct linker L;
	memset(&L, 0, sizeof(L));
	L.b = b;
	L.rows.fd = L.corr.fd = L.members.fd = L.chains.fd = L.chain_rows.fd = -1;
	L.names.fd = L.name_rows.fd = -1;
	L.before_trace_step = TIX_NONE;
	L.nrows = (uint32_t)(b->c.rows.n + (b->extra ? b->extra->rows.n : 0));
	int rc = -1;
	int timing = getenv("TIX_TIMING") != NULL;
	double t = now_s();
#define PHASE(name, call)                                                              \
	do {                                                                           \
		if ((call) != 0)                                                       \
			goto out;                                                      \
		if (timing) {                                                          \
			fprintf(stderr, "tix: timing: %-10s %.3f s\n", name, now_s() - t); \
			t = now_s();                                                   \
		}                                                                      \
	} while (0)
	uint32_t *remap = linker_order_tracks(&L, err);
	if (!remap)
		goto out;
	L.track_remap = remap;
	PHASE("place", linker_place_rows(&L, remap, err));
	PHASE("parents+launches", linker_parents(&L, link_by_correlation, err));
	if (L.unlinked_by_corr) {
		PHASE("flows", builder_merge_flows(b, err));
		PHASE("by-flow", link_by_flows(&L, err));
	}
	PHASE("marks", mark_launches(&L, err));
	PHASE("steps", find_steps(&L, err));
	PHASE("graph", linker_graph(&L, err));
	linker_release(&L, &L.corr);
	PHASE("aggregate", linker_aggregate(&L, err));
	PHASE("names", linker_name_forms(&L, err));
	PHASE("name-rows", linker_name_rows(&L, err));
	PHASE("write", linker_write(&L, err));
#undef PHASE
	rc = 0;
out:
	free(remap);
	for (int i = 0; i < L.npool; i++)
		spill_done(&L.pool[i]);
	spill_done(&L.rows);
	spill_done(&L.corr);
	spill_done(&L.members);
	spill_done(&L.chains);
	spill_done(&L.chain_rows);
	spill_done(&L.names);
	spill_done(&L.name_rows);
	free(L.tracks);
	free(L.long_durs);
	free(L.steps);
	free(L.groups);
	free(L.step_groups);
	free(L.ops);
	free(L.op_groups);
	free(L.name_forms);
	free(L.warnings);
	free(L.capture_sources);
	return rc;
}
