/*
 * Detail of one event, usually a kernel launch: every kernel field, the
 * launch call and its delay, the CPU ops above it from outermost to
 * innermost with their shapes and types, the bytes the innermost op moves
 * and the bandwidth that implies, python frames and the remaining args.
 * Items of (indent, label, value): the TUI's Detail view wraps them at the
 * screen's width, `tix show` prints them as they are, so both say the same.
 */
#include "index/findings.h"
#include "index/view/detail_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHAIN_MAX 128

static struct tix_detail_item *add_kv(struct tix_detail *d, int indent, const char *label, const char *value,
                                      enum tix_detail_role role)
{
	return detail_add(d, indent, label, value, role);
}

static struct tix_detail_item *add_kvf(struct tix_detail *d, int indent, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static struct tix_detail_item *add_kvf(struct tix_detail *d, int indent, const char *label, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return add_kv(d, indent, label, buf, TIX_DETAIL_TEXT);
}

/* A duration in a sentence: in its own unit, or the one --timeunit chose. */
static char *fmt_dur(const struct dctx *a, int64_t ns, char *out, size_t cap)
{
	static const char *const unit[] = {"", " ns", " us", " ms", " s"};
	char v[40];
	if (a->unit == TIX_TU_AUTO)
		return tix_fmt_dur_unit(ns, TIX_TU_AUTO, out, cap);
	snprintf(out, cap, "%s%s", tix_fmt_dur_unit(ns, a->unit, v, sizeof v), ns < 0 ? "" : unit[a->unit]);
	return out;
}

static char *fmt_count(uint64_t n, char *out, size_t cap)
{
	return tix_fmt_count(n, out, cap);
}

static char *fmt_bytes(double b, char *out, size_t cap)
{
	return tix_fmt_scaled(b, "B", out, cap);
}

static char *fmt_id(int32_t v, char *out, size_t cap)
{
	if (v < 0)
		snprintf(out, cap, "-");
	else
		snprintf(out, cap, "%d", v);
	return out;
}

/* Why GPU work has no launch call: the Launches view says the same. */
static const char *no_launch_why(const struct tix_event *e)
{
	return e->flags & TIX_ROW_GRAPH_REPLAY    ? "no launch call (CUDA graph replay)"
	       : e->flags & TIX_ROW_BEFORE_TRACE ? "no launch call (launched before the trace's CPU window)"
	                                         : "no launch call (lost correlation or flow)";
}

/* The name as the views show it: the short label, or in full. */
static const char *name_of(const struct dctx *a, uint32_t str, char *buf, size_t cap)
{
	return tix_name_label(a->ix, str, a->full_names, buf, cap);
}

static void add_head(struct tix_detail *d, const char *text)
{
	add_kv(d, 0, NULL, text, TIX_DETAIL_HEAD); /* a section: the faces put a blank line before */
}

static void track_desc(const struct dctx *a, uint32_t track, char *buf, size_t cap)
{
	const struct tix_track *t = tix_track_get(a->ix, track);
	if (t->kind == TIX_TRACK_GPU) {
		snprintf(buf, cap, "%s (device %d, stream %d)", tix_str(a->ix, t->name), t->device,
		         t->stream);
		return;
	}
	char tid[64];
	if (t->tid_str != TIX_NONE)
		snprintf(tid, sizeof tid, "%s", tix_str(a->ix, t->tid_str));
	else
		snprintf(tid, sizeof tid, "%lld", (long long)t->tid);
	snprintf(buf, cap, "%s (tid %s)", t->name != TIX_NONE ? tix_str(a->ix, t->name) : "thread",
	         tid);
}

/* A list that says nothing: [[], [], []] or ["", "", ""] (strides and
 * concrete values the profiler wrote for scalars). */
static int says_nothing(const char *s)
{
	while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
		s++;
	if (*s++ != '[')
		return 0;
	for (; *s; s++) {
		if (!strncmp(s, "[]", 2) || !strncmp(s, "\"\"", 2))
			s++;
		else if (*s == ']')
			return s[1 + strspn(s + 1, " \n\t\r")] == 0;
		else if (!strchr(", \n\t\r", *s))
			return 0;
	}
	return 0;
}

/* Input Dims and friends of a CPU op, each folded to one line; strides and
 * concrete inputs only when they say something. */
static void add_op_info(const struct dctx *a, struct tix_detail *d, int indent, const struct tix_event *e)
{
	if (e->op_info == TIX_NONE)
		return;
	const struct tix_op_info *oi = tix_op_info_get(a->ix, e->op_info);
	const char *keys[4] = {"Input Dims", "Input type", "Input Strides", "Concrete Inputs"};
	uint32_t vals[4] = {oi->dims, oi->types, oi->strides, oi->concrete};
	char buf[4096];
	for (int k = 0; k < 4; k++)
		if (vals[k] != TIX_NONE && !(k >= 2 && says_nothing(tix_str(a->ix, vals[k]))))
			add_kv(d, indent, keys[k], tix_fold_ws(tix_str(a->ix, vals[k]), buf, sizeof buf),
			       TIX_DETAIL_TEXT);
}

/* The ancestors of a CPU row (index/rules.h: by containment), innermost
 * first.  Returns how many (at most CHAIN_MAX). */
static int chain_of(const struct dctx *a, uint32_t row, uint32_t *rows)
{
	uint32_t n = tix_event_ancestors(a->ix, row, rows, CHAIN_MAX);
	return (int)(n < CHAIN_MAX ? n : CHAIN_MAX);
}

/* The overall op-shape group of instance row (its name and op info's
 * texts), TIX_NONE. */
static uint32_t shape_of_instance(const struct tix_index *ix, const struct tix_event *op)
{
	const struct tix_op_info *oi = tix_op_info_get(ix, op->op_info);
	for (uint32_t i = 0; oi && i < tix_op_shape_count(ix); i++) {
		const struct tix_op_shape *o = tix_op_shape_get(ix, i);
		const struct tix_op_info *so = tix_op_info_get(ix, o->op_info);
		if (o->name == op->name && so && so->dims == oi->dims && so->types == oi->types &&
		    so->concrete == oi->concrete)
			return i;
	}
	return TIX_NONE;
}

/* Appends to buf (holding len bytes of cap) what fmt says, cut to fit. */
static size_t cat(char *buf, size_t len, size_t cap, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static size_t cat(char *buf, size_t len, size_t cap, const char *fmt, ...)
{
	if (len + 1 >= cap)
		return len;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + len, cap - len, fmt, ap);
	va_end(ap);
	return strlen(buf);
}

/* ", 85.2 TFLOP/s, 1.03 TB/s" for the rates that are known. */
static size_t cat_rates(char *buf, size_t len, size_t cap, double fps, double bps)
{
	char x[48], y[48];
	if (fps >= 0)
		len = cat(buf, len, cap, "%s", tix_fmt_scaled(fps, "FLOP/s", x, sizeof x));
	if (bps >= 0)
		len = cat(buf, len, cap, "%s%s", fps >= 0 ? ", " : "", tix_fmt_scaled(bps, "B/s", y, sizeof y));
	return len;
}

static size_t cat_fraction(char *buf, size_t len, size_t cap, const struct tix_device *dev, double fraction,
                           const char *bound)
{
	if (fraction >= 0)
		return cat(buf, len, cap, ": %.1f%% of the %s's roofline (%s-bound)", 100 * fraction,
		           dev->model ? dev->model : "device", bound ? bound : "?");
	if (!dev->known)
		return cat(buf, len, cap, " (the device's peaks are not known)");
	return bound ? cat(buf, len, cap, " (above the roofline: not its work alone)") : len;
}

/* What the roofline line says, for its JSON object too. */
struct roof {
	const char *op, *formula, *over, *bound;
	double flops, bytes, gpu_ns, fps, bps, fraction;
};

/* The "roofline" item: its text, and its figures for JSON ("roofline":
 * {op, formula, flops, bytes, over, gpu_ns, flops_per_s, bytes_per_s,
 * peak_fraction, bound}, null where unknown). */
static void emit_roofline(struct tix_detail *d, const char *text, const struct roof *r)
{
	struct tix_detail_item *it = add_kv(d, 2, "roofline", text, TIX_DETAIL_NOTE);
	if (!it)
		return;
	raw_open(it, "roofline", TIX_RAW_OBJECT);
	data_str(d, "op", r->op);
	data_str(d, "formula", r->formula && r->formula[0] ? r->formula : NULL);
	raw_num(detail_add(d, 0, NULL, NULL, TIX_DETAIL_DATA), "flops", r->flops, 0);
	raw_num(detail_add(d, 0, NULL, NULL, TIX_DETAIL_DATA), "bytes", r->bytes, 0);
	data_str(d, "over", r->over);
	raw_num(detail_add(d, 0, NULL, NULL, TIX_DETAIL_DATA), "gpu_ns", r->gpu_ns, 0);
	raw_num(detail_add(d, 0, NULL, NULL, TIX_DETAIL_DATA), "flops_per_s", r->fps, 1);
	raw_num(detail_add(d, 0, NULL, NULL, TIX_DETAIL_DATA), "bytes_per_s", r->bps, 1);
	raw_num(detail_add(d, 0, NULL, NULL, TIX_DETAIL_DATA), "peak_fraction", r->fraction, 6);
	data_str(d, "bound", r->bound);
	data_end(d);
}

/* The roofline of the innermost modelled op above the launch
 * (docs/FINDINGS.md, section 3): its cost, and its rate over this kernel
 * when it launched only this one, else over every call of its shape. */
static void add_roofline(const struct dctx *a, struct tix_detail *d, const uint32_t *rows, int n,
                         const struct tix_event *gpu_ev)
{
	char buf[1024], x[48], y[48], z[48];
	struct tix_event op;
	struct tix_op_cost c;
	int found = 0;
	for (int i = 0; i < n && !found; i++) {
		tix_event_get(a->ix, rows[i], &op);
		if (op.kind != TIX_KIND_CPU_OP || tix_op_class_of(tix_str(a->ix, op.name)) == TIX_OPC_NONE)
			continue;
		const struct tix_op_info *oi = tix_op_info_get(a->ix, op.op_info);
		tix_op_cost(tix_str(a->ix, op.name), oi && oi->dims != TIX_NONE ? tix_str(a->ix, oi->dims) : NULL,
		            oi && oi->types != TIX_NONE ? tix_str(a->ix, oi->types) : NULL,
		            oi && oi->concrete != TIX_NONE ? tix_str(a->ix, oi->concrete) : NULL, &c);
		found = 1;
	}
	if (!found)
		return;
	struct roof r = {tix_str(a->ix, op.name), c.formula, NULL, NULL, c.flops, c.bytes, -1, -1, -1, -1};
	size_t len = cat(buf, 0, sizeof buf, "%s: ", r.op);
	if (c.flops < 0 && c.bytes < 0) {
		cat(buf, len, sizeof buf, "n/a (%s)", c.why_not ? c.why_not : "not modelled");
		emit_roofline(d, buf, &r);
		return;
	}
	len = cat(buf, len, sizeof buf, "%s", c.formula);
	if (c.flops >= 0)
		len = cat(buf, len, sizeof buf, " = %s", tix_fmt_scaled(c.flops, "FLOP", x, sizeof x));
	if (c.bytes >= 0)
		len = cat(buf, len, sizeof buf, "%s%s", c.flops >= 0 || c.formula[0] ? ", " : "",
		          tix_fmt_scaled(c.bytes, "B", y, sizeof y));
	const struct tix_kernel_info *ki = tix_kernel_info_get(a->ix, gpu_ev->kernel_info);
	struct tix_device dev;
	tix_index_device(a->ix, ki ? ki->device : -1, &dev);
	uint32_t beneath = tix_event_gpu_beneath(a->ix, op.row);
	if (beneath == 1 && gpu_ev->dur_ns > 0) { /* this kernel is all the op did */
		double t = (double)gpu_ev->dur_ns;
		r.over = "this kernel";
		r.gpu_ns = t;
		r.fps = c.flops >= 0 ? c.flops * 1e9 / t : -1;
		r.bps = c.bytes >= 0 ? c.bytes * 1e9 / t : -1;
		enum tix_peak as;
		double pf = c.flops >= 0 ? tix_device_peak_flops(&dev, c.peak, r.fps, &as) : -1;
		double tf = pf > 0 ? c.flops * 1e9 / pf : -1;
		double tb = c.bytes >= 0 && dev.peak_Bps > 0 ? c.bytes * 1e9 / dev.peak_Bps : -1;
		if (tb >= 0 && (tf >= 0 || !tix_op_class_is_compute(c.cls))) {
			double roof = tf > tb ? tf : tb;
			r.bound = tf > tb ? "compute" : "memory";
			r.fraction = roof <= t ? roof / t : -1;
		}
		len = cat(buf, len, sizeof buf, " in %s = ", fmt_dur(a, gpu_ev->dur_ns, z, sizeof z));
		len = cat_rates(buf, len, sizeof buf, r.fps, r.bps);
		cat_fraction(buf, len, sizeof buf, &dev, r.fraction, r.bound);
		if (r.fraction < 0)
			r.bound = NULL; /* above the roofline: no bound to quote */
		emit_roofline(d, buf, &r);
		return;
	}
	uint32_t shape = shape_of_instance(a->ix, &op);
	struct tix_shape_figures f;
	tix_shape_figures(a->ix, &dev, shape, TIX_NONE, &f);
	const struct tix_op_shape *os = tix_op_shape_get(a->ix, shape);
	if (!os || f.gpu_ns <= 0) {
		cat(buf, len, sizeof buf, "; it launched %u GPU events: its rate is not this one's alone", beneath);
		emit_roofline(d, buf, &r);
		return;
	}
	r.over = "every call of its shape";
	r.gpu_ns = (double)f.gpu_ns;
	r.fps = f.flops_per_s;
	r.bps = f.bytes_per_s;
	r.fraction = f.peak_fraction;
	r.bound = f.peak_fraction >= 0 ? f.bound : NULL;
	len = cat(buf, len, sizeof buf, "; it launched %u GPU events: over the %u calls of this shape, ", beneath,
	          os->calls);
	len = cat_rates(buf, len, sizeof buf, f.flops_per_s, f.bytes_per_s);
	cat_fraction(buf, len, sizeof buf, &dev, f.peak_fraction, f.bound);
	emit_roofline(d, buf, &r);
}

/* The story in four lines, before the sections: which op launched this,
 * on what shapes, and the bytes and bandwidth that implies. */
static void add_summary(const struct dctx *a, struct tix_detail *d, const uint32_t *rows, int n,
                        const struct tix_event *gpu_ev)
{
	char buf[4096];
	int op = -1;
	for (int i = 0; i < n && op < 0; i++) {
		struct tix_event e;
		tix_event_get(a->ix, rows[i], &e);
		if (e.kind == TIX_KIND_CPU_OP)
			op = i;
	}
	struct tix_capture_view cv;
	tix_event_capture(a->ix, gpu_ev->row, &cv);
	const struct tix_capture_frame *cop = NULL; /* the innermost op at capture time */
	for (uint32_t i = 0; i < cv.nframes; i++)
		if (cv.frames[i].kind == TIX_KIND_CPU_OP)
			cop = &cv.frames[i];
	if (op < 0 && cop) {
		raw_str(add_kv(d, 2, "captured under", tix_str(a->ix, cop->name), TIX_DETAIL_NOTE), "launched_by", NULL);
		if (cop->dims != TIX_NONE)
			add_kv(d, 2, "Input Dims", tix_fold_ws(tix_str(a->ix, cop->dims), buf, sizeof buf), TIX_DETAIL_TEXT);
		if (cop->types != TIX_NONE)
			add_kv(d, 2, "Input type", tix_fold_ws(tix_str(a->ix, cop->types), buf, sizeof buf), TIX_DETAIL_TEXT);
	} else if (op < 0) {
		raw_str(add_kv(d, 2, "launched by",
		               gpu_ev->flags & TIX_ROW_GRAPH_REPLAY ? "a CUDA graph launch (see Captured under)"
		                                                    : "(no enclosing CPU op)",
		               TIX_DETAIL_NOTE),
		        "launched_by", NULL);
	} else {
		struct tix_event e;
		tix_event_get(a->ix, rows[op], &e);
		raw_str(add_kv(d, 2, "launched by", tix_str(a->ix, e.name), TIX_DETAIL_NOTE), "launched_by",
		        tix_str(a->ix, e.name));
		if (e.op_info != TIX_NONE) {
			const struct tix_op_info *oi = tix_op_info_get(a->ix, e.op_info);
			if (oi->dims != TIX_NONE)
				add_kv(d, 2, "Input Dims", tix_fold_ws(tix_str(a->ix, oi->dims), buf, sizeof buf),
				       TIX_DETAIL_TEXT);
			if (oi->types != TIX_NONE)
				add_kv(d, 2, "Input type", tix_fold_ws(tix_str(a->ix, oi->types), buf, sizeof buf),
				       TIX_DETAIL_TEXT);
		}
	}
	struct tix_traffic tr;
	tix_event_traffic(a->ix, gpu_ev->row, &tr);
	data_traffic(d, add_kv(d, 2, "bytes moved", tix_traffic_text(&tr, gpu_ev->dur_ns, buf, sizeof buf),
	                       TIX_DETAIL_NOTE), &tr);
	add_roofline(a, d, rows, n, gpu_ev);
}

/* What captured a kernel replayed from a CUDA graph (its ops and shapes at
 * capture time), or why that is not known. */
static void add_captured(const struct dctx *a, struct tix_detail *d, const struct tix_event *ev)
{
	struct tix_capture_view cv;
	enum tix_capture_match m = tix_event_capture(a->ix, ev->row, &cv);
	char buf[4096], dims[2048];
	struct tix_summary_info si;
	tix_index_summary(a->ix, &si);
	add_head(d, "Captured under");
	data_str(d, "capture_match", tix_capture_match_label(m));
	if (!cv.nframes) {
		add_kv(d, 2, NULL,
		       m == TIX_MATCH_AMBIGUOUS ? "ambiguous: several capture windows fit this replay"
		       : si.capture_sources[0]
		               ? "not attributed: no capture window matches this replay"
		               : "unknown: give the capture trace with --graph-capture",
		       TIX_DETAIL_NOTE);
		data_str(d, "captured_under", NULL);
		data_str(d, "capture_source", NULL);
		return;
	}
	snprintf(buf, sizeof buf, "from %s, match: %s", tix_str(a->ix, cv.source),
	         tix_capture_match_label(m));
	raw_str(add_kv(d, 2, NULL, buf, TIX_DETAIL_NOTE), "capture_source", tix_str(a->ix, cv.source));
	data_open(d, "captured_under", TIX_RAW_ARRAY);
	for (uint32_t i = 0; i < cv.nframes; i++) {
		const struct tix_capture_frame *f = &cv.frames[i];
		int in = 2 * (int)(i < 8 ? i : 8);
		raw_open(add_kvf(d, 2 + in, NULL, "%s  (%s)", tix_str(a->ix, f->name),
		                 tix_kind_label((enum tix_kind)f->kind)), NULL, TIX_RAW_OBJECT);
		data_str(d, "name", tix_str(a->ix, f->name));
		data_str(d, "kind", tix_kind_label((enum tix_kind)f->kind));
		if (f->dims != TIX_NONE)
			raw_json(add_kv(d, 4 + in, "Input Dims", tix_fold_ws(tix_str(a->ix, f->dims), dims, sizeof dims),
			                TIX_DETAIL_TEXT), "input_dims", tix_str(a->ix, f->dims));
		if (f->types != TIX_NONE)
			raw_json(add_kv(d, 4 + in, "Input type", tix_fold_ws(tix_str(a->ix, f->types), dims, sizeof dims),
			                TIX_DETAIL_TEXT), "input_types", tix_str(a->ix, f->types));
		data_end(d);
	}
	data_end(d);
}

/* The CPU ops (then the python frames) of a chain, outermost first. */
static void add_chain(const struct dctx *a, struct tix_detail *d, const uint32_t *rows, int n)
{
	char dur[32], buf[2048];
	int ops = 0, py = 0;
	for (int i = n - 1; i >= 0; i--) {
		struct tix_event e;
		tix_event_get(a->ix, rows[i], &e);
		if (e.kind == TIX_KIND_PYTHON) {
			py++;
			continue;
		}
		if (!ops++)
			add_head(d, "CPU ops, outermost first");
		snprintf(buf, sizeof buf, "%s  (%s, %s)", tix_str(a->ix, e.name), tix_kind_label(e.kind),
		         fmt_dur(a, e.dur_ns, dur, sizeof dur));
		add_kv(d, 2, NULL, buf, TIX_DETAIL_TEXT);
		add_op_info(a, d, 4, &e);
	}
	if (!ops)
		add_kv(d, 2, NULL, "(no enclosing CPU op)", TIX_DETAIL_TEXT);
	if (!py)
		return;
	add_head(d, "Python frames, outermost first");
	for (int i = n - 1; i >= 0; i--) {
		struct tix_event e;
		tix_event_get(a->ix, rows[i], &e);
		if (e.kind == TIX_KIND_PYTHON)
			add_kv(d, 2, NULL, tix_str(a->ix, e.name), TIX_DETAIL_TEXT);
	}
}

/* The JSON fields of the Kernel section that an event without one lacks. */
static void data_no_kernel(struct tix_detail *d, const struct tix_event *ev)
{
	static const char *const keys[] = {"grid", "block", "registers", "shared_mem", "bytes", "graph_id"};
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
		data_int(d, keys[k], -1);
	raw_bool(detail_add(d, 0, NULL, NULL, TIX_DETAIL_DATA), "graph_replay",
	         (ev->flags & TIX_ROW_GRAPH_REPLAY) != 0);
}

static void add_kernel(const struct dctx *a, struct tix_detail *d, const struct tix_event *ev)
{
	char x[64], y[64];
	if (ev->kernel_info == TIX_NONE) {
		data_no_kernel(d, ev);
		return;
	}
	const struct tix_kernel_info *ki = tix_kernel_info_get(a->ix, ev->kernel_info);
	add_head(d, "Kernel");
	if (ev->kind == TIX_KIND_KERNEL) {
		int64_t blocks = (int64_t)ki->grid[0] * ki->grid[1] * ki->grid[2];
		int64_t threads = blocks * ki->block[0] * ki->block[1] * ki->block[2];
		if (tix_dim3_known(ki->grid))
			raw_dim3(add_kvf(d, 2, "grid", "%s  (%s %s)", tix_fmt_dim3(ki->grid, x, sizeof x),
			                 fmt_count((uint64_t)blocks, y, sizeof y), blocks == 1 ? "block" : "blocks"),
			         "grid", ki->grid);
		else
			raw_dim3(add_kv(d, 2, "grid", "-  (not in the trace)", TIX_DETAIL_TEXT), "grid", NULL);
		if (tix_dim3_known(ki->grid) && tix_dim3_known(ki->block))
			raw_dim3(add_kvf(d, 2, "block", "%s  (%s thread%s in all)", tix_fmt_dim3(ki->block, x, sizeof x),
			                 fmt_count((uint64_t)(threads > 0 ? threads : 0), y, sizeof y),
			                 threads == 1 ? "" : "s"),
			         "block", ki->block);
		else
			raw_dim3(add_kvf(d, 2, "block", "%s", tix_fmt_dim3(ki->block, x, sizeof x)), "block", ki->block);
	} else {
		data_int(d, "grid", -1);
		data_int(d, "block", -1);
	}
	int kernel = ev->kind == TIX_KIND_KERNEL;
	if (kernel && ki->registers >= 0)
		raw_int(add_kvf(d, 2, "registers", "%d per thread", ki->registers), "registers", ki->registers);
	else
		data_int(d, "registers", -1);
	if (kernel && ki->shared_mem >= 0)
		raw_int(add_kvf(d, 2, "shared memory", "%s%s%s", fmt_bytes(ki->shared_mem, x, sizeof x),
		                ki->dynamic_shared >= 0 ? ", dynamic " : "",
		                ki->dynamic_shared >= 0 ? fmt_bytes(ki->dynamic_shared, y, sizeof y) : ""),
		        "shared_mem", ki->shared_mem);
	else
		data_int(d, "shared_mem", -1);
	if (kernel && ki->blocks_per_sm >= 0)
		raw_num(add_kvf(d, 2, "blocks per SM", "%.2f", ki->blocks_per_sm), "blocks_per_sm", ki->blocks_per_sm, 2);
	if (kernel && ki->warps_per_sm >= 0)
		raw_num(add_kvf(d, 2, "warps per SM", "%.2f", ki->warps_per_sm), "warps_per_sm", ki->warps_per_sm, 2);
	if (kernel && ki->occupancy >= 0)
		raw_num(add_kvf(d, 2, "occupancy", "%.0f %%", ki->occupancy), "occupancy_pct", ki->occupancy, 1);
	if (ki->bytes >= 0)
		raw_int(add_kvf(d, 2, "bytes", "%s (%s B)", fmt_bytes((double)ki->bytes, x, sizeof x),
		                fmt_count((uint64_t)ki->bytes, y, sizeof y)),
		        "bytes", ki->bytes);
	else
		data_int(d, "bytes", -1);
	char dev[3][16];
	raw_int(add_kvf(d, 2, "device", "%s, context %s, stream %s", fmt_id(ki->device, dev[0], sizeof dev[0]),
	                fmt_id(ki->context, dev[1], sizeof dev[1]), fmt_id(ki->stream, dev[2], sizeof dev[2])),
	        "context", ki->context);
	if (ki->graph_id)
		raw_int(add_kvf(d, 2, "CUDA graph", "id %u (replayed from a graph)", ki->graph_id), "graph_id",
		        ki->graph_id);
	else if (ev->flags & TIX_ROW_GRAPH_REPLAY)
		raw_int(add_kv(d, 2, "CUDA graph", "replayed from a graph (id -)", TIX_DETAIL_TEXT), "graph_id", -1);
	else
		data_int(d, "graph_id", -1);
	raw_bool(detail_add(d, 0, NULL, NULL, TIX_DETAIL_DATA), "graph_replay",
	         (ev->flags & TIX_ROW_GRAPH_REPLAY) != 0);
}

/* The first lines: what the event is, its step and time, where it ran. */
static void add_top(const struct dctx *a, struct tix_detail *d, const struct tix_event *ev, int *shortened)
{
	char buf[2048], x[64], y[64], name[1024];
	const char *label = name_of(a, ev->name, name, sizeof name); /* name, or a string of the index */
	snprintf(buf, sizeof buf, "%s  %s", tix_kind_label(ev->kind), label);
	add_kv(d, 0, NULL, buf, TIX_DETAIL_HEAD);
	data_int(d, "row", ev->row);
	data_str(d, "kind", tix_kind_label(ev->kind));
	uint32_t full = tix_name_full(a->ix, ev->name), sh = tix_name_short(a->ix, ev->name);
	data_str(d, "name", tix_str(a->ix, full));
	if (sh != TIX_NONE)
		data_str(d, "short_name", tix_str(a->ix, sh));
	if (full != ev->name)
		data_str(d, "mangled_name", tix_str(a->ix, ev->name));
	*shortened = !a->full_names && strcmp(label, tix_str(a->ix, ev->name)) != 0;
	uint32_t s = tix_event_step(a->ix, ev->row);
	int64_t at = ev->start_ns - a->first_ns;
	if (s != TIX_NONE && s == tix_step_before_trace(a->ix)) { /* in no step: "-" as in Steps */
		raw_int(add_kv(d, 2, "step", "-  (launched before the trace's CPU window)", TIX_DETAIL_TEXT), "step", -1);
		raw_bool(detail_add(d, 0, NULL, NULL, TIX_DETAIL_DATA), "before_trace", 1);
		data_str(d, "step_name", NULL);
		raw_ns(add_kvf(d, 2, "start", "+%s in the trace", fmt_dur(a, at, x, sizeof x)), "start_ns", ev->start_ns);
	} else if (s != TIX_NONE) {
		const struct tix_step *st = tix_step_get(a->ix, s);
		raw_int(add_kvf(d, 2, "step", "%u  %s", s, tix_str(a->ix, st->name)), "step", s);
		data_str(d, "step_name", tix_str(a->ix, st->name));
		raw_ns(add_kvf(d, 2, "start", "+%s in the step, +%s in the trace",
		                fmt_dur(a, ev->start_ns - st->start_ns, x, sizeof x), fmt_dur(a, at, y, sizeof y)),
		        "start_ns", ev->start_ns);
	} else {
		data_int(d, "step", -1);
		data_str(d, "step_name", NULL);
		raw_ns(add_kvf(d, 2, "start", "+%s in the trace", fmt_dur(a, at, x, sizeof x)), "start_ns", ev->start_ns);
	}
	data_ns(d, "offset_ns", at);
	raw_ns(add_kvf(d, 2, "duration", "%s", fmt_dur(a, ev->dur_ns, x, sizeof x)), "dur_ns", ev->dur_ns);
	const struct tix_track *tr = tix_track_get(a->ix, ev->track);
	track_desc(a, ev->track, buf, sizeof buf);
	int gpu = tix_kind_is_gpu(ev->kind);
	struct tix_detail_item *it = add_kv(d, 2, gpu ? "stream" : "thread", buf, TIX_DETAIL_TEXT);
	if (gpu) {
		raw_int(it, "stream", tr->stream);
		const struct tix_kernel_info *ki = tix_kernel_info_get(a->ix, ev->kernel_info);
		data_int(d, "device", ki ? ki->device : tr->device);
	}
}

/* The launch call and the CPU events containing it; "launch": {...} or
 * null with "no_launch" saying why. */
static void add_launch(const struct dctx *a, struct tix_detail *d, const struct tix_event *ev)
{
	char buf[2048], x[64], y[64];
	uint32_t rows[CHAIN_MAX];
	struct tix_detail_item *head = add_kv(d, 0, NULL, "Launch call", TIX_DETAIL_HEAD);
	if (ev->launch == TIX_NONE) {
		raw_str(head, "launch", NULL);
		raw_str(add_kv(d, 2, NULL, no_launch_why(ev), TIX_DETAIL_NOTE), "no_launch", no_launch_why(ev));
		data_parents(a, d, TIX_NONE);
		return;
	}
	struct tix_event l;
	tix_event_get(a->ix, ev->launch, &l);
	const struct tix_track *lt = tix_track_get(a->ix, l.track);
	raw_open(head, "launch", TIX_RAW_OBJECT);
	raw_str(add_kv(d, 2, "call", tix_str(a->ix, l.name), TIX_DETAIL_TEXT), "name", tix_str(a->ix, l.name));
	track_desc(a, l.track, buf, sizeof buf);
	add_kv(d, 2, "thread", buf, TIX_DETAIL_TEXT);
	data_id(d, "pid", a->ix, lt->pid, lt->pid_str);
	data_id(d, "tid", a->ix, lt->tid, lt->tid_str);
	data_ns(d, "start_ns", l.start_ns);
	raw_ns(add_kvf(d, 2, "duration", "%s", fmt_dur(a, l.dur_ns, x, sizeof x)), "dur_ns", l.dur_ns);
	int64_t after_start = ev->start_ns - l.start_ns;
	int64_t after_end = ev->start_ns - (l.start_ns + l.dur_ns);
	struct tix_detail_item *it =
		add_kvf(d, 2, "delay", "kernel started %s%s after the call began (%s%s after it returned)",
		        after_start < 0 ? "-" : "", fmt_dur(a, after_start < 0 ? -after_start : after_start, x, sizeof x),
		        after_end < 0 ? "-" : "", fmt_dur(a, after_end < 0 ? -after_end : after_end, y, sizeof y));
	raw_ns(it, "delay_ns", after_start); /* negative too (clocks): as it is */
	if (ev->flags & TIX_ROW_LINK_BY_FLOW)
		add_kv(d, 2, NULL, "(linked by an ac2g flow: no correlation id)", TIX_DETAIL_TEXT);
	data_end(d);
	int n = chain_of(a, l.row, rows);
	add_chain(a, d, rows, n);
	data_parents(a, d, l.row);
}

static void build(const struct dctx *a, struct tix_detail *d)
{
	struct tix_event ev;
	tix_event_get(a->ix, a->row, &ev);
	int gpu = tix_kind_is_gpu(ev.kind), shortened;
	char x[64], y[64];
	add_top(a, d, &ev, &shortened);
	uint32_t rows[CHAIN_MAX];
	if (ev.kind == TIX_KIND_KERNEL && ev.kernel_info != TIX_NONE) {
		const struct tix_kernel_info *ki = tix_kernel_info_get(a->ix, ev.kernel_info);
		add_kvf(d, 2, "grid x block", "%s x %s", tix_fmt_dim3(ki->grid, x, sizeof x),
		        tix_fmt_dim3(ki->block, y, sizeof y));
	}
	if (tix_kind_is_gpu_work(ev.kind) && ev.launch == TIX_NONE) {
		raw_str(add_kv(d, 2, "launched by", no_launch_why(&ev), TIX_DETAIL_NOTE), "launched_by", NULL);
		struct tix_traffic tr;
		tix_event_traffic(a->ix, ev.row, &tr);
		data_traffic(d, NULL, &tr);
	} else if (ev.launch != TIX_NONE) {
		struct tix_event l;
		tix_event_get(a->ix, ev.launch, &l);
		int n = chain_of(a, l.row, rows);
		add_summary(a, d, rows, n, &ev);
	}
	if (gpu)
		add_kernel(a, d, &ev);
	if (tix_kind_is_gpu_work(ev.kind) && (ev.flags & TIX_ROW_GRAPH_REPLAY)) {
		add_captured(a, d, &ev);
	} else if (gpu) {
		data_str(d, "capture_match", NULL);
		data_str(d, "captured_under", NULL);
		data_str(d, "capture_source", NULL);
	}
	if (tix_kind_is_gpu_work(ev.kind) || ev.launch != TIX_NONE) {
		add_launch(a, d, &ev);
	} else {
		if (ev.op_info != TIX_NONE) {
			add_head(d, "Inputs");
			add_op_info(a, d, 2, &ev);
		}
		int n = chain_of(a, ev.row, rows);
		if (n)
			add_chain(a, d, rows, n);
	}
	if (ev.args != TIX_NONE && tix_str_len(a->ix, ev.args) > 2) {
		add_head(d, "Args");
		static char folded[16384]; /* one line: a pretty-printed object has newlines */
		add_kv(d, 2, NULL, tix_fold_ws(tix_str(a->ix, ev.args), folded, sizeof folded), TIX_DETAIL_TEXT);
	}
	if (shortened) {
		add_head(d, "Full name");
		add_kv(d, 2, NULL, tix_str(a->ix, ev.name), TIX_DETAIL_TEXT);
	}
}

int tix_detail_build(struct tix_index *ix, uint32_t row, const struct tix_view_fmt *f,
                     struct tix_detail *out)
{
	memset(out, 0, sizeof *out);
	if (row >= tix_event_count(ix))
		return -1;
	struct tix_summary_info si;
	tix_index_summary(ix, &si);
	struct dctx a = {ix, row, f ? f->full_names : 0, f ? f->timeunit : TIX_TU_AUTO, si.first_ns};
	build(&a, out);
	return out->oom ? -1 : 0;
}

void tix_detail_done(struct tix_detail *d)
{
	for (uint32_t i = 0; i < d->n; i++) {
		free(d->items[i].value);
		free(d->items[i].s);
	}
	free(d->items);
	memset(d, 0, sizeof *d);
}
