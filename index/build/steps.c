/* The steps phase: the step rules (the default markers, or the user's
 * --step-marker), the steps they find, and the GPU work launched before
 * the trace's CPU window, counted in a step of its own (docs/CLI.md,
 * "Steps"; docs/FORMAT.md, "Rules"). */
#include "index/build/phases.h"
#include "index/grow.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* What one pass over every row learns for both of steps' parts: the names
 * that markers carry, where the marker rows lie (the second pass looks only
 * there), and for mark_before_trace the start of the CPU side and the lowest
 * launch call's correlation id.  One pass instead of two: each reads all
 * ROWS (~44 MB on the 485 MB trace). */
struct row_scan {
	uint8_t *is_name;          /* by string: 1 a CPU-side name, 2 a marker name */
	uint32_t first_marker, end_marker; /* the marker rows lie in [first, end) */
	int64_t min_corr, cpu_start;
};

static int scan_rows(struct linker *L, struct row_scan *sc, struct tix_error *err)
{
	sc->is_name = calloc((size_t)L->b->c.strings.n + 1, 1);
	if (!sc->is_name)
		return tix_error_oom(err, NULL);
	sc->first_marker = L->nrows;
	sc->end_marker = 0;
	sc->min_corr = sc->cpu_start = INT64_MAX;
	for (uint32_t i = 0; i < L->nrows; i++) {
		const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
		if (!tix_rule_is_container_kind(r->kind))
			continue;
		sc->cpu_start = r->start_ns < sc->cpu_start ? r->start_ns : sc->cpu_start;
		if (tix_kind_is_launch(r->kind)) {
			int64_t c = SPILL_AT(&L->corr, int64_t, i);
			if (c >= 0 && c < sc->min_corr)
				sc->min_corr = c;
		}
		if (tix_kind_is_marker(r->kind)) {
			sc->is_name[r->name] = 1;
			sc->first_marker = i < sc->first_marker ? i : sc->first_marker;
			sc->end_marker = i + 1;
		}
	}
	return 0;
}

/* GPU work launched before the profiler's CPU window: no launch call, and a
 * correlation id below every launch call's or a start before the first CPU
 * event.  Counted in a step of its own, after the real ones, so that it does
 * not inflate the first. */
static int mark_before_trace(struct linker *L, const struct row_scan *sc, struct tix_error *err)
{
	int64_t min_corr = sc->min_corr, cpu_start = sc->cpu_start;
	L->before_trace_step = TIX_NONE;
	if (cpu_start == INT64_MAX) /* no CPU side at all: no window to be before */
		return 0;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (uint32_t sp = 0, i = linker_gpu_row(L, &sp, 0); i != TIX_NONE; i = linker_gpu_row(L, &sp, i + 1)) {
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
		return tix_error_oom(err, NULL);
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

static int find_steps(struct linker *L, struct row_scan *sc, struct tix_error *err)
{
	struct tix_builder *b = L->b;
	uint32_t nstr = b->c.strings.n;
	uint8_t *is_name = sc->is_name;
	uint32_t *markers = NULL;
	struct step_rule user = {"--step-marker", b->step_marker};
	const struct step_rule *rules = b->step_marker[0] ? &user : default_rules;
	size_t nrules = b->step_marker[0] ? 1 : sizeof(default_rules) / sizeof(default_rules[0]);
	int found = 0;
	for (size_t k = 0; k < nrules && !found; k++) {
		regex_t re;
		if (regcomp(&re, rules[k].regex, REG_EXTENDED | REG_NOSUB) != 0) {
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
		for (uint32_t i = sc->first_marker; i < sc->end_marker; i++) {
			const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
			if (!tix_kind_is_marker(r->kind) || is_name[r->name] != 2)
				continue;
			if (tix_grow32(&markers, &cap, (size_t)nm + 1, sizeof(*markers), 64) != 0)
				goto oom;
			markers[nm++] = i;
		}
		qsort_r(markers, nm, sizeof(*markers), cmp_marker, L);
	}
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
			return tix_error_oom(err, NULL);
	}
	return 0;
oom:
	free(markers);
	return tix_error_oom(err, NULL);
}

int linker_steps(struct linker *L, struct tix_error *err)
{
	struct row_scan sc;
	if (scan_rows(L, &sc, err) != 0)
		return -1;
	int rc = find_steps(L, &sc, err) != 0 ? -1 : mark_before_trace(L, &sc, err);
	free(sc.is_name);
	return rc;
}
