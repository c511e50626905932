/*
 * Ops: CPU op and annotation names ranked by the GPU time launched beneath
 * them.  Over the whole trace the index keeps them ranked, and the ops that
 * captured CUDA-graph replays (tix_event_capture) are rows of their own,
 * marked captured (their calls and CPU time are the capture trace's, so
 * unknown here).  Over one step they are counted here, by the index's rule
 * (index/rules.h, "ops"; tix_event_op_names): each GPU event of the step
 * counts once for every distinct op name among its launch call's
 * ancestors, step markers left out; calls and CPU time are the instances
 * that began in the step.
 *
 * The roofline columns (docs/FINDINGS.md, section 3) are the index's op
 * model over the whole trace (tix_op_roofline): unknown over one step.
 */
#include "index/findings.h"
#include "index/grow.h"
#include "index/rules.h"
#include "index/view/view_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	C_PCT, C_GPU, C_EVENTS, C_CALLS, C_CPU, C_RATE, C_PEAK, C_BOUND, C_BAR, C_NAME, C_CAPTURED,
	C_FLOPS, C_BYTES, C_MODEL_CALLS, C_MODEL_GPU, C_FLOP_RATE, C_BYTE_RATE, C_PEAK_FRACTION
};

static const struct tix_col cols[] = {
	[C_PCT] = {"GPU%", 6, TIX_COL_RIGHT, 0, "gpu_pct", TIX_UNIT_PCT},
	[C_GPU] = {"GPU time", 9, TIX_COL_RIGHT, 0, "gpu_ns", TIX_UNIT_DUR},
	[C_EVENTS] = {"GPU events", 10, TIX_COL_RIGHT, 0, "gpu_events", TIX_UNIT_COUNT},
	[C_CALLS] = {"Calls", 8, TIX_COL_RIGHT, 0, "calls", TIX_UNIT_COUNT},
	[C_CPU] = {"CPU time", 9, TIX_COL_RIGHT, 2, "cpu_ns", TIX_UNIT_DUR},
	/* the rate that bounds it (FLOP/s when compute-bound, else B/s) */
	[C_RATE] = {"Rate", 12, TIX_COL_RIGHT | TIX_COL_NOSORT, 3, NULL, TIX_UNIT_TEXT},
	[C_PEAK] = {"Peak%", 6, TIX_COL_RIGHT, 3, NULL, TIX_UNIT_FRACTION},
	[C_BOUND] = {"Bound", 7, 0, 4, "bound", TIX_UNIT_TEXT},
	[C_BAR] = {"", 10, TIX_COL_BAR, 1, NULL, TIX_UNIT_BAR},
	[C_NAME] = {"Op", 20, TIX_COL_FLEX | TIX_COL_ASC, 0, "name", TIX_UNIT_TEXT},
	[C_CAPTURED] = {"Captured", 0, TIX_COL_DATA, 0, "captured", TIX_UNIT_BOOL},
	[C_FLOPS] = {"FLOPs", 0, TIX_COL_DATA, 0, "flops", TIX_UNIT_FLOPS},
	[C_BYTES] = {"Bytes", 0, TIX_COL_DATA, 0, "bytes", TIX_UNIT_FLOPS},
	[C_MODEL_CALLS] = {"Modelled calls", 0, TIX_COL_DATA, 0, "model_calls", TIX_UNIT_COUNT},
	[C_MODEL_GPU] = {"Modelled GPU time", 0, TIX_COL_DATA, 0, "model_gpu_ns", TIX_UNIT_DUR},
	[C_FLOP_RATE] = {"FLOP/s", 0, TIX_COL_DATA, 0, "flops_per_s", TIX_UNIT_FLOP_RATE},
	[C_BYTE_RATE] = {"B/s", 0, TIX_COL_DATA, 0, "bytes_per_s", TIX_UNIT_BYTE_RATE},
	[C_PEAK_FRACTION] = {"Peak fraction", 0, TIX_COL_DATA, 0, "peak_fraction", TIX_UNIT_FRACTION},
};

struct op_row {
	uint32_t name, op;           /* op: its rank in the index, TIX_NONE */
	uint32_t gpu_events, calls;
	int64_t gpu_ns, cpu_ns;      /* cpu_ns -1: unknown */
	int captured;
};

struct ops {
	struct op_row *rows;
	int64_t whole;               /* the 100% of GPU% */
	struct tix_device device;    /* the roofline's peaks */
	struct tix_op_roofline *roof; /* by op (tix_op numbering); NULL over one step */
	char (*rate)[24];            /* the Rate column's text, by op */
};

static int cmp_row(const void *x, const void *y)
{
	const struct op_row *a = x, *b = y;
	if (a->gpu_ns != b->gpu_ns)
		return a->gpu_ns > b->gpu_ns ? -1 : 1;
	if (a->captured != b->captured)
		return a->captured - b->captured;
	if (a->cpu_ns != b->cpu_ns)
		return a->cpu_ns > b->cpu_ns ? -1 : 1;
	return a->name < b->name ? -1 : a->name > b->name;
}

/* Rows keyed by name: slot[name] is the row + 1. */
struct acc {
	struct op_row *rows;
	uint32_t n, cap;
	uint32_t *slot;
	uint32_t nstr;
};

static struct op_row *acc_row(struct acc *a, uint32_t name)
{
	if (name >= a->nstr)
		return NULL;
	if (!a->slot[name]) {
		if (tix_grow32(&a->rows, &a->cap, (size_t)a->n + 1, sizeof *a->rows, 64) != 0)
			return NULL;
		a->rows[a->n] = (struct op_row){name, TIX_NONE, 0, 0, 0, 0, 0};
		a->slot[name] = ++a->n;
	}
	return &a->rows[a->slot[name] - 1];
}

/* The ops that captured replayed GPU work: each GPU event counted once per
 * distinct name of its capture chain. */
static int add_captured(struct tix_index *ix, struct acc *a)
{
	for (uint32_t g = 0; g < tix_group_count(ix); g++) {
		const struct tix_group *G = tix_group_get(ix, g);
		const uint32_t *m = tix_members(ix, G->members_first, G->members_count);
		for (uint32_t k = 0; m && k < G->members_count; k++) {
			struct tix_capture_view cv;
			tix_event_capture(ix, m[k], &cv);
			if (!cv.nframes)
				continue;
			struct tix_event e;
			tix_event_get(ix, m[k], &e);
			for (uint32_t f = 0; f < cv.nframes; f++) {
				uint32_t nm = cv.frames[f].name, dup = 0;
				for (uint32_t q = 0; q < f && !dup; q++)
					dup = cv.frames[q].name == nm;
				if (dup)
					continue;
				struct op_row *r = acc_row(a, nm);
				if (!r)
					return -1;
				r->captured = 1;
				r->cpu_ns = -1;
				r->gpu_ns = tix_sat_add(r->gpu_ns, e.dur_ns);
				r->gpu_events++;
			}
		}
	}
	return 0;
}

/* The ops of one step, by the index's rule (see the top of the file). */
static int add_step(struct tix_index *ix, uint32_t s, struct acc *a)
{
	const struct tix_step *st = tix_step_get(ix, s);
	uint32_t n;
	const struct tix_group *g = tix_step_groups(ix, s, &n);
	for (uint32_t i = 0; i < n; i++) {
		const uint32_t *m = tix_members(ix, g[i].members_first, g[i].members_count);
		for (uint32_t k = 0; m && k < g[i].members_count; k++) {
			uint32_t *names;
			long nn = tix_event_op_names(ix, m[k], &names);
			if (nn < 0)
				return -1;
			struct tix_event e;
			tix_event_get(ix, m[k], &e);
			for (long d = 0; d < nn; d++) {
				struct op_row *r = acc_row(a, names[d]);
				if (!r) {
					free(names);
					return -1;
				}
				r->gpu_ns = tix_sat_add(r->gpu_ns, e.dur_ns);
				r->gpu_events++;
			}
			free(names);
		}
	}
	/* the instances that began in the step */
	for (uint32_t t = 0; st->marker_row != TIX_NONE && t < tix_track_count(ix); t++) {
		const struct tix_track *tr = tix_track_get(ix, t);
		if (tr->kind != TIX_TRACK_CPU)
			continue;
		uint32_t end = tr->first_row + tr->row_count;
		for (uint32_t row = tix_track_lower_bound(ix, t, st->start_ns); row < end; row++) {
			struct tix_event e;
			tix_event_get(ix, row, &e);
			if (e.start_ns >= st->start_ns + st->dur_ns)
				break;
			if (!tix_rule_is_op(e.kind, e.flags) || tix_event_step(ix, row) != s)
				continue;
			struct op_row *r = acc_row(a, e.name);
			if (!r)
				return -1;
			r->calls++;
			r->cpu_ns = tix_sat_add(r->cpu_ns, e.dur_ns);
		}
	}
	if (st->marker_row == TIX_NONE && s != tix_step_before_trace(ix)) /* the one implicit step */
		for (uint32_t i = 0; i < tix_op_count(ix); i++) {
			const struct tix_op *o = tix_op_get(ix, i);
			struct op_row *r = acc_row(a, o->name);
			if (!r)
				return -1;
			r->calls = o->calls;
			r->cpu_ns = o->cpu_ns;
		}
	return 0;
}

static int ops_open(struct tix_view *v, struct tix_error *err)
{
	struct tix_index *ix = v->ix;
	struct tix_summary_info si;
	tix_index_summary(ix, &si);
	struct ops *p = calloc(1, sizeof *p);
	struct acc a = {NULL, 0, 0, calloc((size_t)si.strings + 1, sizeof(uint32_t)), si.strings};
	if (!p || !a.slot)
		goto oom;
	if (v->scope.step != TIX_NONE && !tix_step_get(ix, v->scope.step)) {
		free(a.slot);
		free(p);
		return tix_error_set(err, "no step %u in the index", v->scope.step);
	}
	/* the trace's ops first, so a name both ran here and captured a graph
	 * keeps its own row; captured rows are the capture trace's ops */
	for (uint32_t i = 0; i < tix_op_count(ix); i++) {
		const struct tix_op *o = tix_op_get(ix, i);
		struct op_row *r = acc_row(&a, o->name);
		if (!r)
			goto oom;
		r->op = i;
		if (v->scope.step == TIX_NONE) {
			r->calls = o->calls;
			r->cpu_ns = o->cpu_ns;
			r->gpu_ns = o->gpu_ns;
			r->gpu_events = o->gpu_events;
		}
	}
	uint32_t nown = a.n;
	if (v->scope.step == TIX_NONE) {
		/* captured names get rows of their own even when the trace has an
		 * op of that name: mark the slots free again */
		for (uint32_t i = 0; i < nown; i++)
			a.slot[a.rows[i].name] = 0;
		if (add_captured(ix, &a) != 0)
			goto oom;
		p->whole = tix_total_gpu_ns(ix);
	} else {
		if (add_step(ix, v->scope.step, &a) != 0)
			goto oom;
		p->whole = tix_step_get(ix, v->scope.step)->gpu_ns;
		/* an op with nothing in this step is no row of it */
		uint32_t k = 0;
		for (uint32_t i = 0; i < a.n; i++)
			if (a.rows[i].calls || a.rows[i].gpu_events)
				a.rows[k++] = a.rows[i];
		a.n = k;
	}
	if (a.n)
		qsort(a.rows, a.n, sizeof *a.rows, cmp_row);
	free(a.slot);
	if (v->scope.device)
		p->device = *v->scope.device;
	else
		tix_index_device(ix, -1, &p->device);
	if (v->scope.step == TIX_NONE) {
		uint32_t nops = tix_op_count(ix);
		p->roof = calloc((size_t)nops + 1, sizeof *p->roof);
		p->rate = calloc((size_t)nops + 1, sizeof *p->rate);
		if (!p->roof || !p->rate) {
			free(p->roof);
			free(p->rate);
			a.slot = NULL;
			goto oom;
		}
		for (uint32_t i = 0; i < nops; i++) {
			const struct tix_op_roofline *r = &p->roof[i];
			tix_op_roofline(ix, &p->device, i, &p->roof[i]);
			if (r->bound && !strcmp(r->bound, "compute") && r->flops_per_s >= 0)
				tix_fmt_scaled(r->flops_per_s, "FLOP/s", p->rate[i], sizeof p->rate[i]);
			else if (r->bytes_per_s >= 0)
				tix_fmt_scaled(r->bytes_per_s, "B/s", p->rate[i], sizeof p->rate[i]);
		}
	}
	p->rows = a.rows;
	v->nrows = a.n;
	v->priv = p;
	return 0;
oom:
	free(a.rows);
	free(a.slot);
	free(p);
	return tix_error_oom(err, tix_index_path(v->ix));
}

static void ops_close(struct tix_view *v)
{
	struct ops *p = v->priv;
	free(p->rows);
	free(p->roof);
	free(p->rate);
	free(p);
}

/* The op model's figure of column col, for a row of the trace's own ops. */
static void roofline_cell(const struct ops *p, const struct op_row *r, int col, struct tix_cell *c)
{
	if (!p->roof || r->captured || r->op == TIX_NONE)
		return;
	const struct tix_op_roofline *m = &p->roof[r->op];
	if (!m->modelled)
		return;
	double d = -1;
	switch (col) {
	case C_RATE:
		if (p->rate[r->op][0]) {
			c->known = 1;
			c->s = p->rate[r->op];
		}
		return;
	case C_BOUND:
		if (m->bound) {
			c->known = 1;
			c->s = m->bound;
		}
		return;
	case C_MODEL_CALLS: cell_int(c, m->calls); return;
	case C_MODEL_GPU: cell_int(c, m->gpu_ns); return;
	case C_FLOPS: d = m->flops; break;
	case C_BYTES: d = m->bytes; break;
	case C_FLOP_RATE: d = m->flops_per_s; break;
	case C_BYTE_RATE: d = m->bytes_per_s; break;
	case C_PEAK:
	case C_PEAK_FRACTION: d = m->peak_fraction; break;
	}
	c->known = d >= 0;
	c->d = d;
}

static void ops_cell(const struct tix_view *v, uint32_t row, int col, struct tix_cell *c)
{
	const struct ops *p = v->priv;
	const struct op_row *r = &p->rows[row];
	switch (col) {
	case C_PCT: cell_pct(c, r->gpu_ns, p->whole); return;
	case C_GPU: cell_int(c, r->gpu_ns); return;
	case C_EVENTS: cell_int(c, r->gpu_events); return;
	case C_CALLS:
		if (!r->captured)
			cell_int(c, r->calls);
		return;
	case C_CPU: cell_maybe(c, r->captured ? -1 : r->cpu_ns); return;
	case C_NAME:
		c->known = 1;
		c->s = tix_str(v->ix, r->name);
		c->mark = r->captured ? "[captured] " : NULL;
		return;
	case C_CAPTURED: cell_int(c, r->captured); return;
	default: roofline_cell(p, r, col, c); return;
	}
}

static double ops_share(const struct tix_view *v, uint32_t row)
{
	const struct ops *p = v->priv;
	return p->whole > 0 ? (double)p->rows[row].gpu_ns / (double)p->whole : 0;
}

static void ops_ref(const struct tix_view *v, uint32_t row, struct tix_view_ref *out)
{
	const struct ops *p = v->priv;
	out->step = v->scope.step;
	out->op = p->rows[row].captured ? TIX_NONE : p->rows[row].op;
}

const struct view_kind_ops view_ops_kind = {
	.cols = cols,
	.ncols = sizeof cols / sizeof cols[0],
	.rank_col = C_GPU,
	.open = ops_open,
	.close = ops_close,
	.cell = ops_cell,
	.share = ops_share,
	.ref = ops_ref,
};
