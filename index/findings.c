/* The findings' rules (docs/FINDINGS.md, section 6), over what the build
 * computed: the breakdowns (BREAKDOWNS), the op-shape groups and the op
 * models, the device's peaks.  Nothing here walks the events: a finding
 * costs the op-shape groups and the steps, never the rows. */
#include "index/findings.h"
#include "index/findings_int.h"
#include "index/grow.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/rules.h"

static const char *const rule_names[TIX_RULE_COUNT] = {
#define TIX_RULE_NAME(e, name, letter, what) [TIX_RULE_##e] = name,
	TIX_RULES(TIX_RULE_NAME)
#undef TIX_RULE_NAME
};
static const char *const rule_whats[TIX_RULE_COUNT] = {
#define TIX_RULE_WHAT(e, name, letter, what) [TIX_RULE_##e] = what,
	TIX_RULES(TIX_RULE_WHAT)
#undef TIX_RULE_WHAT
};

const char *tix_rule_name(enum tix_rule r)
{
	return r < TIX_RULE_COUNT ? rule_names[r] : "";
}

const char *tix_rule_what(enum tix_rule r)
{
	return r < TIX_RULE_COUNT ? rule_whats[r] : "";
}

/* Text cut to its buffer: a finding's words are cut, never its numbers,
 * which the JSON keeps whole. */
void findings_put_text(char *out, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out, cap, fmt, ap);
	va_end(ap);
}

/* ---- a step's basis ---- */

/* The real steps averaged, or step s. */
void findings_step_basis(const struct tix_index *ix, uint32_t s, struct tix_step_basis *b,
                         struct tix_breakdown *avg)
{
	memset(b, 0, sizeof(*b));
	memset(avg, 0, sizeof(*avg));
	uint32_t first = s, n = 1;
	if (s == TIX_NONE) {
		first = 0;
		n = tix_step_count(ix);
	}
	for (uint32_t k = first; k < first + n; k++) {
		const struct tix_step *st = tix_step_get(ix, k);
		const struct tix_breakdown *bd = tix_breakdown_get(ix, k);
		if (!st || !bd)
			continue;
		b->steps++;
		b->wall_ns += st->dur_ns;
		/* the breakdown's durations: busy .. sync_cpu, summed */
		const int64_t *from = &bd->busy_ns;
		int64_t *to = &avg->busy_ns;
		for (int i = 0; i < 14; i++)
			to[i] = tix_sat_add(to[i], from[i]);
		avg->span_end = tix_sat_add(avg->span_end, bd->span_end - bd->span_start);
		avg->gpu_events += bd->gpu_events;
		avg->gaps += bd->gaps;
		avg->launch_bound_kernels += bd->launch_bound_kernels;
		avg->pageable_copies += bd->pageable_copies;
		avg->sync_calls += bd->sync_calls;
	}
	if (b->steps > 1) {
		int64_t *to = &avg->busy_ns;
		for (int i = 0; i < 14; i++)
			to[i] /= b->steps;
		avg->span_end /= b->steps;
		b->wall_ns /= b->steps;
	}
	avg->span_start = 0; /* span_end holds the span's length */
	b->gpu_ns = avg->gpu_ns;
	b->busy_ns = avg->busy_ns;
	b->span_ns = avg->span_end;
}

/* ---- words ---- */

/* "[495552, 1, 576]": input i's dims, folded and cut to cap. */
static void dims_text(const struct tix_op_inputs *in, int i, char *out, size_t cap)
{
	size_t n = 0;
	out[0] = 0;
	if (i >= in->n || in->rank[i] < 0)
		return;
	n += (size_t)snprintf(out + n, cap - n, "[");
	for (int d = 0; d < in->rank[i] && n < cap; d++)
		n += (size_t)snprintf(out + n, cap - n, "%s%lld", d ? ", " : "", (long long)in->dims[i][d]);
	if (n < cap)
		snprintf(out + n, cap - n, "]");
}

/* Input i's dtype as the trace spells it, without "c10::". */
static void type_text(const char *types, int i, char *out, size_t cap)
{
	out[0] = 0;
	const char *p = types ? strchr(types, '[') : NULL;
	for (int k = 0; p && k <= i; k++) {
		p = strchr(p + 1, '"');
		if (!p)
			return;
		const char *e = strchr(p + 1, '"');
		if (!e)
			return;
		if (k == i) {
			const char *s = p + 1;
			if (!strncmp(s, "c10::", 5))
				s += 5;
			size_t len = (size_t)(e - s) < cap - 1 ? (size_t)(e - s) : cap - 1;
			memcpy(out, s, len);
			out[len] = 0;
			return;
		}
		p = e;
	}
}

/* What a shape group is, in a few words: "aten::copy_ of [495552, 1, 576]
 * Float8_e4m3fn -> BFloat16", "aten::mm [1, 2048] x [2048, 7168] BFloat16". */
static void shape_words(const struct tix_index *ix, const struct tix_op_shape *o, char *out, size_t cap)
{
	const struct tix_op_info *oi = tix_op_info_get(ix, o->op_info);
	const char *dims = oi && oi->dims != TIX_NONE ? tix_str(ix, oi->dims) : "";
	const char *types = oi && oi->types != TIX_NONE ? tix_str(ix, oi->types) : "";
	struct tix_op_inputs in;
	tix_op_inputs_parse(dims, types, NULL, &in);
	char d0[96], d1[96], t0[48], t1[48];
	dims_text(&in, 0, d0, sizeof d0);
	dims_text(&in, 1, d1, sizeof d1);
	type_text(types, 0, t0, sizeof t0);
	type_text(types, 1, t1, sizeof t1);
	const char *op = tix_str(ix, o->name);
	if (o->cls == TIX_OPC_COPY && !strcmp(op, "aten::copy_") && strcmp(t0, t1))
		findings_put_text(out, cap, "%s of %s %s -> %s", op, d0, t1, t0);
	else if (o->cls == TIX_OPC_GEMM && d1[0])
		findings_put_text(out, cap, "%s %s x %s %s", op, d0, d1, t0);
	else
		findings_put_text(out, cap, "%s %s %s", op, d0, t0);
}

/* The consecutive CPU ops above and at instance row, outermost first. */
static uint32_t ops_chain(const struct tix_index *ix, uint32_t row, uint32_t *names, uint32_t cap)
{
	uint32_t anc[64], chain[TIX_FINDING_OPS], n = 0;
	struct tix_event e;
	tix_event_get(ix, row, &e);
	chain[n++] = e.name;
	uint32_t k = tix_event_ancestors(ix, row, anc, 64);
	k = k < 64 ? k : 64;
	for (uint32_t i = 0; i < k && n < TIX_FINDING_OPS && n < cap; i++) {
		tix_event_get(ix, anc[i], &e);
		if (e.kind != TIX_KIND_CPU_OP || (e.flags & TIX_ROW_STEP_MARKER))
			break;
		chain[n++] = e.name;
	}
	for (uint32_t i = 0; i < n; i++)
		names[i] = chain[n - 1 - i];
	return n;
}

static void ev_num(struct tix_finding *f, const char *key, double v, const char *unit)
{
	if (f->nev >= TIX_EVIDENCE_MAX)
		return;
	f->ev[f->nev++] = (struct tix_evidence){key, v, unit, ""};
}

static void ev_text(struct tix_finding *f, const char *key, const char *text)
{
	if (f->nev >= TIX_EVIDENCE_MAX)
		return;
	struct tix_evidence *e = &f->ev[f->nev++];
	*e = (struct tix_evidence){key, NAN, "", ""};
	findings_put_text(e->text, sizeof e->text, "%s", text);
}

static const char *pct(double x, char *b, size_t cap)
{
	snprintf(b, cap, "%.1f%%", 100 * x);
	return b;
}

/* ---- the list ---- */

struct list {
	struct tix_findings *f;
	uint32_t cap;
	int oom;
};

static struct tix_finding *push(struct list *l, enum tix_rule rule)
{
	if (tix_grow32(&l->f->items, &l->cap, (size_t)l->f->n + 1, sizeof(*l->f->items), 16) != 0) {
		l->oom = 1;
		return NULL;
	}
	struct tix_finding *f = &l->f->items[l->f->n++];
	memset(f, 0, sizeof(*f));
	f->rule = rule;
	f->shape = f->group = f->op = f->row = f->gap_step = TIX_NONE;
	f->step = l->f->step;
	return f;
}

static void note(struct tix_findings *f, const char *msg)
{
	if (f->nnotes < (int)(sizeof f->notes / sizeof f->notes[0]))
		findings_put_text(f->notes[f->nnotes++], sizeof f->notes[0], "%s", msg);
}

static void link_overlap(struct tix_finding *a, int ia, struct tix_finding *b, int ib)
{
	if (a->noverlaps < 4)
		a->overlaps[a->noverlaps++] = ib;
	if (b->noverlaps < 4)
		b->overlaps[b->noverlaps++] = ia;
}

static int64_t clamp_saving(double s, int64_t cap)
{
	if (!(s > 0))
		return 0;
	return s > (double)cap ? cap : (int64_t)s;
}

/* Rules a, b, c on one op-shape group. */
static void shape_rules(struct list *l, const struct tix_index *ix, uint32_t shape)
{
	struct tix_findings *F = l->f;
	const struct tix_device *d = &F->device;
	const struct tix_op_shape *o = tix_op_shape_get(ix, shape);
	struct tix_shape_figures sf;
	tix_shape_figures(ix, d, shape, F->step, &sf);
	if (!o || sf.gpu_ns <= 0 || F->basis.gpu_ns <= 0)
		return;
	double share = (double)sf.gpu_ns / (double)F->basis.gpu_ns;
	if (share < TIX_FIND_MIN_SHARE || sf.cost.cls == TIX_OPC_NONE)
		return;
	char what[200], a[48], b[48], c[48], e[48];
	shape_words(ix, o, what, sizeof what);
	uint32_t gcount, group = TIX_NONE;
	const struct tix_op_group *gs = tix_op_shape_groups(ix, shape, &gcount);
	if (gcount)
		group = gs[0].group;
	int first = (int)F->n;
	int mem = !tix_op_class_is_compute(sf.cost.cls);
	double n = sf.calls, bytes_each = sf.cost.bytes;
	/* (b) the same copy, many times a step */
	if (sf.cost.cls == TIX_OPC_COPY && n >= TIX_FIND_REPEAT_MIN) {
		struct tix_finding *f = push(l, TIX_RULE_REPEATED_COPY);
		if (!f)
			return;
		double save = (double)sf.gpu_ns * (n - 1) / n;
		f->saving_ns = clamp_saving(save, sf.gpu_ns);
		findings_put_text(f->title, sizeof f->title, "the same %s, %.0f times a step%s%s: %s a step, %s of its GPU time",
		         what, n, bytes_each >= 0 ? ", " : "",
		         bytes_each >= 0 ? tix_fmt_scaled(bytes_each, "B each", e, sizeof e) : "",
		         tix_fmt_dur(sf.gpu_ns, a, sizeof a), pct(share, b, sizeof b));
		findings_put_text(f->basis, sizeof f->basis, "all but one of them: %s x (%.0f - 1) / %.0f = %s",
		         tix_fmt_dur(sf.gpu_ns, a, sizeof a), n, n, tix_fmt_dur(f->saving_ns, c, sizeof c));
	}
	/* (a) memory-bound below the peak bandwidth */
	if (mem && sf.bytes_per_s >= 0 && d->peak_Bps > 0 && sf.bytes_per_s < TIX_FIND_BW_LOW * d->peak_Bps &&
	    sf.roofline_ns >= 0) {
		struct tix_finding *f = push(l, TIX_RULE_MEMORY_BOUND);
		if (!f)
			return;
		f->saving_ns = clamp_saving((double)sf.gpu_ns - sf.roofline_ns, sf.gpu_ns);
		findings_put_text(f->title, sizeof f->title, "%s moves its bytes at %s, %s of the %s's %s", what,
		         tix_fmt_scaled(sf.bytes_per_s, "B/s", a, sizeof a), pct(sf.bytes_per_s / d->peak_Bps, b, sizeof b),
		         d->model ? d->model : "device", tix_fmt_scaled(d->peak_Bps, "B/s", c, sizeof c));
		char t[48], r[48];
		findings_put_text(f->basis, sizeof f->basis, "its time minus its bytes at the peak bandwidth: %s - %.0f x %s / %s = %s",
		         tix_fmt_dur(sf.gpu_ns, t, sizeof t), n, tix_fmt_scaled(bytes_each, "B", e, sizeof e),
		         tix_fmt_scaled(d->peak_Bps, "B/s", c, sizeof c), tix_fmt_dur(f->saving_ns, r, sizeof r));
	}
	/* (c) a GEMM, attention or convolution far below its roofline */
	if (!mem && sf.peak_fraction >= 0 && sf.peak_fraction < TIX_FIND_REACHABLE) {
		struct tix_finding *f = push(l, TIX_RULE_COMPUTE_LOW);
		if (!f)
			return;
		double target = sf.roofline_ns / TIX_FIND_REACHABLE;
		f->saving_ns = clamp_saving((double)sf.gpu_ns - target, sf.gpu_ns);
		findings_put_text(f->title, sizeof f->title, "%s runs at %s of its roofline (%s-bound, %s)", what,
		         pct(sf.peak_fraction, a, sizeof a), sf.bound ? sf.bound : "?",
		         sf.flops_per_s >= 0 ? tix_fmt_scaled(sf.flops_per_s, "FLOP/s", b, sizeof b) : "-");
		char t[48], r[48], q[48];
		findings_put_text(f->basis, sizeof f->basis, "its time minus its roofline time at %.0f%%: %s - %s / %.2f = %s",
		         100 * TIX_FIND_REACHABLE, tix_fmt_dur(sf.gpu_ns, t, sizeof t), tix_fmt_dur((int64_t)sf.roofline_ns, q, sizeof q),
		         TIX_FIND_REACHABLE, tix_fmt_dur(f->saving_ns, r, sizeof r));
	}
	if (l->oom)
		return;
	/* what they share: the group, the ops, the evidence */
	for (int i = first; i < (int)F->n; i++) {
		struct tix_finding *f = &F->items[i];
		f->gpu_ns = sf.gpu_ns;
		f->share = share;
		f->shape = shape;
		f->group = group;
		f->row = o->example_row;
		f->nops = o->example_row != TIX_NONE ? ops_chain(ix, o->example_row, f->ops, TIX_FINDING_OPS) : 0;
		ev_num(f, "calls_per_step", n, "");
		ev_num(f, "gpu_ns_per_step", (double)sf.gpu_ns, "ns");
		ev_num(f, "bytes_per_call", bytes_each >= 0 ? bytes_each : NAN, "B");
		ev_num(f, "flops_per_call", sf.cost.flops >= 0 ? sf.cost.flops : NAN, "FLOP");
		ev_num(f, "bytes_per_s", sf.bytes_per_s >= 0 ? sf.bytes_per_s : NAN, "B/s");
		ev_num(f, "flops_per_s", sf.flops_per_s >= 0 ? sf.flops_per_s : NAN, "FLOP/s");
		ev_num(f, "peak_bytes_per_s", d->peak_Bps > 0 ? d->peak_Bps : NAN, "B/s");
		double pf = sf.cost.peak < TIX_PEAK_COUNT ? d->peak_flops[sf.peak_as] : -1;
		ev_num(f, "peak_flops", pf > 0 ? pf : NAN, "FLOP/s");
		ev_num(f, "roofline_ns_per_step", sf.roofline_ns >= 0 ? sf.roofline_ns : NAN, "ns");
		ev_num(f, "peak_fraction", sf.peak_fraction >= 0 ? sf.peak_fraction : NAN, "ratio");
		if (sf.cost.formula[0])
			ev_text(f, "formula", sf.cost.formula);
		ev_text(f, "class", tix_op_class_name(sf.cost.cls));
		if (sf.bound)
			ev_text(f, "bound", sf.bound);
		for (int j = first; j < i; j++)
			link_overlap(&F->items[j], j, f, i);
	}
	/* (b)'s other figure: what a peak-bandwidth kernel would save of all n */
	for (int i = first; i < (int)F->n; i++)
		if (F->items[i].rule == TIX_RULE_REPEATED_COPY && sf.roofline_ns >= 0)
			ev_num(&F->items[i], "saving_at_peak_bw_ns",
			       (double)clamp_saving((double)sf.gpu_ns - sf.roofline_ns, sf.gpu_ns), "ns");
}

/* The longest gap a finding of an idle rule is about (findings.h). */
static void find_gap(const struct tix_index *ix, struct tix_finding *f, uint32_t step)
{
	enum tix_gap_cause cause = f->rule == TIX_RULE_IDLE_KERNEL ? TIX_GAP_KERNEL : TIX_GAP_HOST;
	int64_t most = -1;
	for (uint32_t s = 0; step == TIX_NONE && s < tix_step_count(ix); s++) {
		const struct tix_breakdown *bd = tix_breakdown_get(ix, s);
		int64_t idle = f->rule == TIX_RULE_IDLE_KERNEL    ? bd->idle_kernel_ns
		               : f->rule == TIX_RULE_LAUNCH_BOUND ? bd->launch_bound_idle_ns
		                                                  : bd->idle_host_ns;
		if (idle > most) {
			most = idle;
			f->gap_step = s;
		}
	}
	if (step != TIX_NONE)
		f->gap_step = step;
	f->has_gap = f->gap_step != TIX_NONE && tix_longest_gap(ix, f->gap_step, cause, &f->gap) == 1;
	if (f->has_gap)
		f->row = f->gap.next_row;
}

/* Rules d, e, f (exposed), g on the step's breakdown. */
static void time_rules(struct list *l, const struct tix_index *ix, const struct tix_breakdown *bd)
{
	struct tix_findings *F = l->f;
	const struct tix_step_basis *B = &F->basis;
	char a[48], b[48], c[48];
	/* idle findings are shares of the step's wall time (its GPU span when
	 * longer), and their thresholds are on that share */
	int64_t span = B->span_ns, wall = B->wall_ns > span ? B->wall_ns : span;
	int ih = -1, ilb = -1, isync = -1, icpu = -1, iker = -1;
	if (span <= 0)
		return;
	if ((double)bd->idle_host_ns >= TIX_FIND_IDLE_MIN * (double)wall) {
		struct tix_finding *f = push(l, TIX_RULE_IDLE_HOST);
		if (!f)
			return;
		ih = (int)F->n - 1;
		f->gpu_ns = f->saving_ns = bd->idle_host_ns;
		f->share = (double)bd->idle_host_ns / (double)wall;
		f->share_of_wall = 1;
		findings_put_text(f->title, sizeof f->title, "the GPU waits for the CPU to launch work %s a step (%s of the step)",
		         tix_fmt_dur(bd->idle_host_ns, a, sizeof a), pct(f->share, b, sizeof b));
		findings_put_text(f->basis, sizeof f->basis,
		         "the host-wait idle over all streams: gaps ended by work whose launch call began after the "
		         "GPU ran out of work, %s a step", tix_fmt_dur(bd->idle_host_ns, c, sizeof c));
		ev_num(f, "idle_host_ns", (double)bd->idle_host_ns, "ns");
		ev_num(f, "span_ns", (double)span, "ns");
	}
	if ((double)bd->idle_kernel_ns >= TIX_FIND_IDLE_MIN * (double)wall) {
		struct tix_finding *f = push(l, TIX_RULE_IDLE_KERNEL);
		if (!f)
			return;
		iker = (int)F->n - 1;
		f->gpu_ns = f->saving_ns = bd->idle_kernel_ns;
		f->share = (double)bd->idle_kernel_ns / (double)wall;
		f->share_of_wall = 1;
		findings_put_text(f->title, sizeof f->title,
		         "gaps under %d us between back-to-back kernels add up to %s a step (%s of the step)",
		         TIX_KERNEL_WAIT_NS / 1000, tix_fmt_dur(bd->idle_kernel_ns, a, sizeof a), pct(f->share, b, sizeof b));
		findings_put_text(f->basis, sizeof f->basis, "the kernel-wait idle over all streams, %s a step: fusing the "
		         "kernels or a CUDA graph removes it", tix_fmt_dur(bd->idle_kernel_ns, c, sizeof c));
		ev_num(f, "idle_kernel_ns", (double)bd->idle_kernel_ns, "ns");
	}
	if (bd->launch_bound_idle_ns > 0 && bd->launch_bound_kernels >= TIX_LAUNCH_RUN_MIN &&
	    (double)bd->launch_bound_idle_ns >= TIX_FIND_SMALL * (double)wall) {
		struct tix_finding *f = push(l, TIX_RULE_LAUNCH_BOUND);
		if (!f)
			return;
		ilb = (int)F->n - 1;
		int64_t cap = bd->idle_host_ns > 0 ? bd->idle_host_ns : 0;
		f->gpu_ns = bd->launch_bound_idle_ns;
		f->saving_ns = bd->launch_bound_idle_ns < cap ? bd->launch_bound_idle_ns : cap;
		f->share = (double)f->gpu_ns / (double)wall;
		f->share_of_wall = 1;
		findings_put_text(f->title, sizeof f->title,
		         "%u kernel%s a step run%s shorter than %s launch call%s, %d or more in a row: the GPU idles "
		         "%s between them", bd->launch_bound_kernels, bd->launch_bound_kernels == 1 ? "" : "s",
		         bd->launch_bound_kernels == 1 ? "s" : "", bd->launch_bound_kernels == 1 ? "its" : "their",
		         bd->launch_bound_kernels == 1 ? "" : "s", TIX_LAUNCH_RUN_MIN,
		         tix_fmt_dur(bd->launch_bound_idle_ns, a, sizeof a));
		findings_put_text(f->basis, sizeof f->basis,
		         "the idle inside the launch-bound stretches, %s, counted up to the host-wait idle (%s): "
		         "launch them as a CUDA graph or fuse them", tix_fmt_dur(bd->launch_bound_idle_ns, b, sizeof b),
		         tix_fmt_dur(cap, c, sizeof c));
		ev_num(f, "launch_bound_kernels", bd->launch_bound_kernels, "");
		ev_num(f, "launch_bound_idle_ns", (double)bd->launch_bound_idle_ns, "ns");
	}
	if (bd->idle_sync_ns > 0 && (double)bd->idle_sync_ns >= TIX_FIND_SMALL * (double)wall) {
		struct tix_finding *f = push(l, TIX_RULE_SYNC);
		if (!f)
			return;
		isync = (int)F->n - 1;
		f->gpu_ns = f->saving_ns = bd->idle_sync_ns;
		f->share = (double)bd->idle_sync_ns / (double)wall;
		f->share_of_wall = 1;
		uint32_t n = 0;
		const struct tix_breakdown *own = tix_breakdown_get(ix, F->step); /* the trace's, or the step's */
		const struct tix_sync *sy = own ? tix_syncs(ix, own->syncs_first, own->syncs_count) : NULL;
		n = own && sy ? own->syncs_count : 0;
		char who[160] = "";
		if (n) {
			findings_put_text(who, sizeof who, "%s%s%s", tix_str(ix, sy[0].call), sy[0].op != TIX_NONE ? " under " : "",
			         sy[0].op != TIX_NONE ? tix_str(ix, sy[0].op) : "");
			f->row = sy[0].example_row;
			if (sy[0].op != TIX_NONE)
				f->ops[f->nops++] = sy[0].op;
		}
		findings_put_text(f->title, sizeof f->title, "%u synchronising call%s a step%s%s leave%s the GPU idle %s (%s of the step)",
		         bd->sync_calls, bd->sync_calls == 1 ? "" : "s", who[0] ? ", most " : "", who,
		         bd->sync_calls == 1 ? "s" : "", tix_fmt_dur(bd->idle_sync_ns, a, sizeof a), pct(f->share, b, sizeof b));
		findings_put_text(f->basis, sizeof f->basis,
		         "the idle that began while the launching thread sat in a synchronising call: %s a step",
		         tix_fmt_dur(bd->idle_sync_ns, c, sizeof c));
		ev_num(f, "sync_calls", bd->sync_calls, "");
		ev_num(f, "sync_cpu_ns", (double)bd->sync_cpu_ns, "ns");
		ev_num(f, "idle_sync_ns", (double)bd->idle_sync_ns, "ns");
		ev_num(f, "pageable_copies", bd->pageable_copies, "");
		ev_num(f, "pageable_ns", (double)bd->pageable_ns, "ns");
	}
	if ((double)bd->comm_ns >= TIX_FIND_MIN_SHARE * (double)span) {
		struct tix_finding *f = push(l, TIX_RULE_EXPOSED_COMM);
		if (!f)
			return;
		f->gpu_ns = f->saving_ns = bd->comm_ns;
		f->share = B->gpu_ns > 0 ? (double)bd->comm_ns / (double)B->gpu_ns : 0;
		if (f->share > 1) /* a step's GPU time is at least its busy time */
			f->share = 1;
		findings_put_text(f->title, sizeof f->title,
		         "communication not hidden under compute: %s a step (%s of its GPU time)",
		         tix_fmt_dur(bd->comm_ns, a, sizeof a), pct(f->share, b, sizeof b));
		findings_put_text(f->basis, sizeof f->basis,
		         "the exposed communication, |U(comm) - U(compute)| = %s a step, if it all overlapped compute "
		         "(%s of it already does)", tix_fmt_dur(bd->comm_ns, c, sizeof c), tix_fmt_dur(bd->overlap_ns, b, sizeof b));
		ev_num(f, "comm_ns", (double)bd->comm_ns, "ns");
		ev_num(f, "overlap_ns", (double)bd->overlap_ns, "ns");
	}
	if (B->wall_ns > 0 && (double)B->busy_ns < TIX_FIND_CPU_BOUND * (double)B->wall_ns) {
		struct tix_finding *f = push(l, TIX_RULE_CPU_BOUND);
		if (!f)
			return;
		icpu = (int)F->n - 1;
		f->gpu_ns = f->saving_ns = B->wall_ns - B->busy_ns;
		f->share = (double)f->gpu_ns / (double)B->wall_ns;
		f->share_of_wall = 1;
		findings_put_text(f->title, sizeof f->title, "the GPU is busy %s of a %s step: the step is CPU-bound",
		         pct((double)B->busy_ns / (double)B->wall_ns, a, sizeof a), tix_fmt_dur(B->wall_ns, b, sizeof b));
		findings_put_text(f->basis, sizeof f->basis, "its wall time minus its GPU busy time: %s - %s = %s",
		         tix_fmt_dur(B->wall_ns, a, sizeof a), tix_fmt_dur(B->busy_ns, b, sizeof b), tix_fmt_dur(f->saving_ns, c, sizeof c));
		ev_num(f, "wall_ns", (double)B->wall_ns, "ns");
		ev_num(f, "busy_ns", (double)B->busy_ns, "ns");
	}
	for (int i = 0; i < 3; i++) {
		int k = i == 0 ? ih : i == 1 ? iker : ilb;
		if (k >= 0)
			find_gap(ix, &F->items[k], F->step);
	}
	/* idle findings are parts of one idle time */
	int idle[5] = {ih, iker, ilb, isync, icpu};
	for (int i = 0; i < 5; i++)
		for (int j = i + 1; j < 5; j++)
			if (idle[i] >= 0 && idle[j] >= 0 && !(idle[i] == ih && idle[j] == iker))
				link_overlap(&F->items[idle[i]], idle[i], &F->items[idle[j]], idle[j]);
}

/* Largest saving first; ties by time, then rule. */
static int cmp_finding(const void *a, const void *b)
{
	const struct tix_finding *x = a, *y = b;
	if (x->saving_ns != y->saving_ns)
		return x->saving_ns > y->saving_ns ? -1 : 1;
	if (x->gpu_ns != y->gpu_ns)
		return x->gpu_ns > y->gpu_ns ? -1 : 1;
	return (int)x->rule - (int)y->rule;
}

/* Ranks the items, renumbers their overlaps, and counts the total once:
 * per op-shape group its largest saving; of the idle findings the largest
 * (host and kernel wait, which are disjoint, together), up to the step's
 * idle; exposed communication; all of it up to the step's wall time. */
static void rank_and_total(struct tix_findings *F)
{
	uint32_t n = F->n;
	/* sort a permutation (n is small), then renumber the overlaps */
	int *order = malloc((n + 1) * sizeof(*order)), *pos = malloc((n + 1) * sizeof(*pos));
	struct tix_finding *copy = malloc((n + 1) * sizeof(*copy));
	if (order && pos && copy) {
		if (n) /* no findings: items is NULL, and memcpy may not be given NULL */
			memcpy(copy, F->items, n * sizeof(*copy));
		for (uint32_t i = 0; i < n; i++) {
			int k = (int)i, j = (int)i - 1;
			while (j >= 0 && cmp_finding(&copy[order[j]], &copy[k]) > 0) {
				order[j + 1] = order[j];
				j--;
			}
			order[j + 1] = k;
		}
		for (uint32_t i = 0; i < n; i++) {
			pos[order[i]] = (int)i;
			F->items[i] = copy[order[i]];
		}
		for (uint32_t i = 0; i < n; i++) {
			struct tix_finding *f = &F->items[i];
			for (int k = 0; k < f->noverlaps; k++)
				f->overlaps[k] = pos[f->overlaps[k]];
			for (int k = 1; k < f->noverlaps; k++) /* in rank order */
				for (int j = k; j > 0 && f->overlaps[j - 1] > f->overlaps[j]; j--) {
					int t = f->overlaps[j];
					f->overlaps[j] = f->overlaps[j - 1];
					f->overlaps[j - 1] = t;
				}
		}
	}
	free(order);
	free(pos);
	free(copy);
	int64_t op = 0, idle = 0, hostker = 0, comm = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct tix_finding *f = &F->items[i];
		switch (f->rule) {
		case TIX_RULE_MEMORY_BOUND:
		case TIX_RULE_REPEATED_COPY:
		case TIX_RULE_COMPUTE_LOW: {
			int largest = 1; /* the largest of its group's findings counts */
			for (int k = 0; k < f->noverlaps; k++)
				if (f->overlaps[k] < (int)i && F->items[f->overlaps[k]].shape == f->shape)
					largest = 0;
			if (largest)
				op += f->saving_ns;
			break;
		}
		case TIX_RULE_IDLE_HOST:
		case TIX_RULE_IDLE_KERNEL:
			hostker += f->saving_ns;
			break;
		case TIX_RULE_EXPOSED_COMM:
		case TIX_RULE_STRAGGLER:
			comm = f->saving_ns > comm ? f->saving_ns : comm;
			break;
		default:
			idle = f->saving_ns > idle ? f->saving_ns : idle;
			break;
		}
	}
	idle = hostker > idle ? hostker : idle;
	int64_t idle_cap = F->basis.wall_ns - F->basis.busy_ns;
	int64_t span_idle = F->basis.span_ns - F->basis.busy_ns;
	idle_cap = idle_cap > span_idle ? idle_cap : span_idle;
	if (idle > idle_cap)
		idle = idle_cap > 0 ? idle_cap : 0;
	int64_t total = op + idle + comm, wall = F->basis.wall_ns > F->basis.span_ns ? F->basis.wall_ns : F->basis.span_ns;
	F->total_saving_ns = total < wall ? total : wall;
	char a[48], b[48], c[48], d[48];
	findings_put_text(F->total_basis, sizeof F->total_basis,
	         "op findings %s + idle %s + communication %s, each counted once, up to the step's %s",
	         tix_fmt_dur(op, a, sizeof a), tix_fmt_dur(idle, b, sizeof b), tix_fmt_dur(comm, c, sizeof c), tix_fmt_dur(wall, d, sizeof d));
}

static void trace_notes(const struct tix_index *ix, struct tix_findings *F, uint32_t unknown_dtype)
{
	struct tix_summary_info si;
	tix_index_summary(ix, &si);
	uint32_t gpu = si.kind_counts[TIX_KIND_KERNEL] + si.kind_counts[TIX_KIND_MEMCPY] +
	               si.kind_counts[TIX_KIND_MEMSET];
	char m[200];
	if (!gpu) {
		note(F, "no GPU work in the trace (CPU only): no breakdown, no idle causes, no roofline");
		return;
	}
	if (si.gpu_without_launch == gpu)
		note(F, "no GPU work has a launch call: host wait and launch-bound stretches cannot be told; "
		        "every gap counts as kernel wait or other");
	if (tix_op_shape_count(ix) == 0)
		note(F, "no op above the GPU work has Input Dims that tix models (record_shapes off?): no "
		        "roofline, no op findings");
	if (unknown_dtype) {
		findings_put_text(m, sizeof m, "%u op shapes with GPU time have an input of a dtype tix does not know: "
		                      "not modelled", unknown_dtype);
		note(F, m);
	}
	if (!F->device.known) {
		if (F->device.name[0])
			findings_put_text(m, sizeof m, "device \"%s\" is not in tix's table of peaks: no roofline "
			                      "(give --peak-bw and --peak-flops)", F->device.name);
		else
			findings_put_text(m, sizeof m, "the trace names no device (no deviceProperties): no roofline "
			                      "(give --peak-bw and --peak-flops)");
		note(F, m);
	}
}

int tix_findings_compute(const struct tix_index *ix, const struct tix_findings_opts *o,
                         struct tix_findings **out, struct tix_error *err)
{
	struct tix_findings *F = calloc(1, sizeof(*F));
	if (!F)
		return tix_error_oom(err, NULL);
	F->step = o->step;
	tix_index_device(ix, -1, &F->device);
	const char *why;
	if (tix_device_override(&F->device, o->peak_bw, o->peak_flops, &why) != 0) {
		free(F);
		return tix_error_set(err, "%s", why);
	}
	struct tix_breakdown bd;
	findings_step_basis(ix, o->step, &F->basis, &bd);
	F->per_step = bd;
	struct list l = {F, 0, 0};
	uint32_t unknown_dtype = 0;
	for (uint32_t s = 0; s < tix_op_shape_count(ix) && !l.oom; s++) {
		const struct tix_op_shape *os = tix_op_shape_get(ix, s);
		struct tix_op_cost c;
		findings_shape_cost(ix, os, &c);
		if (c.cls != TIX_OPC_NONE && c.bytes < 0 && c.why_not && strstr(c.why_not, "dtype"))
			unknown_dtype++;
		/* a group under the threshold over the trace can be above it in one step */
		shape_rules(&l, ix, s);
	}
	if (!l.oom)
		time_rules(&l, ix, &bd);
	if (l.oom) {
		tix_findings_free(F);
		return tix_error_oom(err, NULL);
	}
	trace_notes(ix, F, unknown_dtype);
	rank_and_total(F);
	*out = F;
	return 0;
}

int tix_findings_add(struct tix_findings *F, const struct tix_finding *item)
{
	struct tix_finding *p = realloc(F->items, (F->n + 1) * sizeof(*p));
	if (!p)
		return -1;
	F->items = p;
	F->items[F->n++] = *item;
	rank_and_total(F);
	return 0;
}

void tix_findings_free(struct tix_findings *f)
{
	if (!f)
		return;
	free(f->items);
	free(f);
}
