/*
 * Detail of one event, usually a kernel launch: every kernel field, the
 * launch call and its delay, the CPU ops above it from outermost to
 * innermost with their shapes and types, the bytes the innermost op moves
 * and the bandwidth that implies, python frames and the remaining args.
 * The text is laid out once into lines at the screen width (again on a
 * resize), so scrolling, search and filter are the table's.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/model.h"
#include "tui/table.h"
#include "tui/view.h"

enum role { R_TEXT, R_HEAD, R_NOTE };

struct dline {
	char *text;
	enum role role;
};

struct detail {
	struct dline *lines;
	uint32_t n, cap;
	int width;
	int oom;
};

#define LABEL_W 18
#define CHAIN_MAX 128

static void add_line(struct detail *d, enum role role, const char *text, size_t len)
{
	if (d->oom)
		return;
	if (d->n == d->cap) {
		uint32_t cap = d->cap ? d->cap * 2 : 64;
		struct dline *l = realloc(d->lines, cap * sizeof *l);
		if (!l) {
			d->oom = 1;
			return;
		}
		d->lines = l;
		d->cap = cap;
	}
	char *t = malloc(len + 1);
	if (!t) {
		d->oom = 1;
		return;
	}
	memcpy(t, text, len);
	t[len] = 0;
	d->lines[d->n].text = t;
	d->lines[d->n].role = role;
	d->n++;
}

/* "  label             value", the value wrapped under itself. */
static void add_kv(struct detail *d, int indent, const char *label, const char *value, enum role role)
{
	int lw = label ? LABEL_W : 0;
	int room = d->width - indent - lw;
	if (room < 20)
		room = 20;
	size_t len = strlen(value);
	size_t at = 0;
	int first = 1;
	do {
		size_t take = len - at;
		if (take > (size_t)room) {
			take = (size_t)room;
			/* break after a space or comma in the second half when there is one */
			size_t b = take;
			while (b > take / 2 && value[at + b - 1] != ' ' && value[at + b - 1] != ',')
				b--;
			if (b > take / 2)
				take = b;
			while (take > 1 && (value[at + take] & 0xc0) == 0x80)
				take--;
		}
		char line[4096];
		int n = snprintf(line, sizeof line, "%*s%-*s", indent, "", lw,
		                 first && label ? label : "");
		if (n < 0 || (size_t)n >= sizeof line)
			n = 0;
		size_t room_left = sizeof line - (size_t)n - 1;
		size_t t = take < room_left ? take : room_left;
		memcpy(line + n, value + at, t);
		add_line(d, role, line, (size_t)n + t);
		at += take;
		first = 0;
	} while (at < len);
}

static void add_kvf(struct detail *d, int indent, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void add_kvf(struct detail *d, int indent, const char *label, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	add_kv(d, indent, label, buf, R_TEXT);
}

static void add_head(struct detail *d, const char *text)
{
	add_line(d, R_TEXT, "", 0);
	add_kv(d, 0, NULL, text, R_HEAD);
}

static void track_desc(struct app *a, uint32_t track, char *buf, size_t cap)
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

/* Input Dims and friends of a CPU op, each folded to one line. */
static void add_op_info(struct app *a, struct detail *d, int indent, const struct tix_event *e)
{
	if (e->op_info == TIX_NONE)
		return;
	const struct tix_op_info *oi = tix_op_info_get(a->ix, e->op_info);
	const char *keys[4] = {"Input Dims", "Input type", "Input Strides", "Concrete Inputs"};
	uint32_t vals[4] = {oi->dims, oi->types, oi->strides, oi->concrete};
	char buf[4096];
	for (int k = 0; k < 4; k++)
		if (vals[k] != TIX_NONE)
			add_kv(d, indent, keys[k], tix_fold_ws(tix_str(a->ix, vals[k]), buf, sizeof buf),
			       R_TEXT);
}

/* The ancestors of a CPU row (index/rules.h: by containment), innermost
 * first.  Returns how many (at most CHAIN_MAX). */
static int chain_of(struct app *a, uint32_t row, uint32_t *rows)
{
	uint32_t n = tix_event_ancestors(a->ix, row, rows, CHAIN_MAX);
	return (int)(n < CHAIN_MAX ? n : CHAIN_MAX);
}

/* The story in four lines, before the sections: which op launched this,
 * on what shapes, and the bytes and bandwidth that implies. */
static void add_summary(struct app *a, struct detail *d, const uint32_t *rows, int n,
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
		add_kv(d, 2, "captured under", tix_str(a->ix, cop->name), R_NOTE);
		if (cop->dims != TIX_NONE)
			add_kv(d, 2, "Input Dims", tix_fold_ws(tix_str(a->ix, cop->dims), buf, sizeof buf), R_TEXT);
		if (cop->types != TIX_NONE)
			add_kv(d, 2, "Input type", tix_fold_ws(tix_str(a->ix, cop->types), buf, sizeof buf), R_TEXT);
	} else if (op < 0) {
		add_kv(d, 2, "launched by",
		       gpu_ev->flags & TIX_ROW_GRAPH_REPLAY ? "a CUDA graph launch (see Captured under)"
		                                            : "(no enclosing CPU op)",
		       R_NOTE);
	} else {
		struct tix_event e;
		tix_event_get(a->ix, rows[op], &e);
		add_kv(d, 2, "launched by", tix_str(a->ix, e.name), R_NOTE);
		if (e.op_info != TIX_NONE) {
			const struct tix_op_info *oi = tix_op_info_get(a->ix, e.op_info);
			if (oi->dims != TIX_NONE)
				add_kv(d, 2, "Input Dims", tix_fold_ws(tix_str(a->ix, oi->dims), buf, sizeof buf),
				       R_TEXT);
			if (oi->types != TIX_NONE)
				add_kv(d, 2, "Input type", tix_fold_ws(tix_str(a->ix, oi->types), buf, sizeof buf),
				       R_TEXT);
		}
	}
	struct tix_traffic tr;
	tix_event_traffic(a->ix, gpu_ev->row, &tr);
	add_kv(d, 2, "bytes moved", tix_traffic_text(&tr, gpu_ev->dur_ns, buf, sizeof buf), R_NOTE);
}

/* What captured a kernel replayed from a CUDA graph (its ops and shapes at
 * capture time), or why that is not known. */
static void add_captured(struct app *a, struct detail *d, const struct tix_event *ev)
{
	struct tix_capture_view cv;
	enum tix_capture_match m = tix_event_capture(a->ix, ev->row, &cv);
	char buf[4096], dims[2048];
	struct tix_summary_info si;
	tix_index_summary(a->ix, &si);
	add_head(d, "Captured under");
	if (!cv.nframes) {
		add_kv(d, 2, NULL,
		       m == TIX_MATCH_AMBIGUOUS ? "ambiguous: several capture windows fit this replay"
		       : si.capture_sources[0]
		               ? "not attributed: no capture window matches this replay"
		               : "unknown: give the capture trace with --graph-capture",
		       R_NOTE);
		return;
	}
	snprintf(buf, sizeof buf, "from %s, match: %s", tix_str(a->ix, cv.source),
	         tix_capture_match_label(m));
	add_kv(d, 2, NULL, buf, R_NOTE);
	for (uint32_t i = 0; i < cv.nframes; i++) {
		const struct tix_capture_frame *f = &cv.frames[i];
		add_kvf(d, 2 + 2 * (int)(i < 8 ? i : 8), NULL, "%s  (%s)", tix_str(a->ix, f->name),
		        tix_kind_label((enum tix_kind)f->kind));
		if (f->dims != TIX_NONE)
			add_kv(d, 4 + 2 * (int)(i < 8 ? i : 8), "Input Dims",
			       tix_fold_ws(tix_str(a->ix, f->dims), dims, sizeof dims), R_TEXT);
		if (f->types != TIX_NONE)
			add_kv(d, 4 + 2 * (int)(i < 8 ? i : 8), "Input type",
			       tix_fold_ws(tix_str(a->ix, f->types), dims, sizeof dims), R_TEXT);
	}
}

/* The CPU ops (then the python frames) of a chain, outermost first. */
static void add_chain(struct app *a, struct detail *d, const uint32_t *rows, int n)
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
		         fmt_dur(e.dur_ns, dur, sizeof dur));
		add_kv(d, 2, NULL, buf, R_TEXT);
		add_op_info(a, d, 4, &e);
	}
	if (!ops)
		add_kv(d, 2, NULL, "(no enclosing CPU op)", R_TEXT);
	if (!py)
		return;
	add_head(d, "Python frames, outermost first");
	for (int i = n - 1; i >= 0; i--) {
		struct tix_event e;
		tix_event_get(a->ix, rows[i], &e);
		if (e.kind == TIX_KIND_PYTHON)
			add_kv(d, 2, NULL, tix_str(a->ix, e.name), R_TEXT);
	}
}

static void add_kernel(struct app *a, struct view *v, struct detail *d, const struct tix_event *ev)
{
	char x[64], y[64];
	if (ev->kernel_info == TIX_NONE)
		return;
	const struct tix_kernel_info *ki = tix_kernel_info_get(a->ix, ev->kernel_info);
	add_head(d, "Kernel");
	if (ev->kind == TIX_KIND_KERNEL) {
		int64_t threads = (int64_t)ki->grid[0] * ki->grid[1] * ki->grid[2] * ki->block[0] *
		                  ki->block[1] * ki->block[2];
		if (tix_dim3_known(ki->grid))
			add_kvf(d, 2, "grid", "%s  (%s blocks)", fmt_dim3(ki->grid, x, sizeof x),
			        fmt_count((uint64_t)((int64_t)ki->grid[0] * ki->grid[1] * ki->grid[2]), y, sizeof y));
		else
			add_kv(d, 2, "grid", "-  (not in the trace)", R_TEXT);
		if (tix_dim3_known(ki->grid) && tix_dim3_known(ki->block))
			add_kvf(d, 2, "block", "%s  (%s threads in all)", fmt_dim3(ki->block, x, sizeof x),
			        fmt_count((uint64_t)(threads > 0 ? threads : 0), y, sizeof y));
		else
			add_kvf(d, 2, "block", "%s", fmt_dim3(ki->block, x, sizeof x));
		if (ki->registers >= 0)
			add_kvf(d, 2, "registers", "%d per thread", ki->registers);
		if (ki->shared_mem >= 0)
			add_kvf(d, 2, "shared memory", "%s%s%s", fmt_bytes(ki->shared_mem, x, sizeof x),
			        ki->dynamic_shared >= 0 ? ", dynamic " : "",
			        ki->dynamic_shared >= 0 ? fmt_bytes(ki->dynamic_shared, y, sizeof y) : "");
		if (ki->blocks_per_sm >= 0)
			add_kvf(d, 2, "blocks per SM", "%.2f", ki->blocks_per_sm);
		if (ki->warps_per_sm >= 0)
			add_kvf(d, 2, "warps per SM", "%.2f", ki->warps_per_sm);
		if (ki->occupancy >= 0)
			add_kvf(d, 2, "occupancy", "%.0f %%", ki->occupancy);
	}
	if (ki->bytes >= 0)
		add_kvf(d, 2, "bytes", "%s (%s B)", fmt_bytes((double)ki->bytes, x, sizeof x),
		        fmt_count((uint64_t)ki->bytes, y, sizeof y));
	char dev[3][16];
	add_kvf(d, 2, "device", "%s, context %s, stream %s", fmt_id(ki->device, dev[0], sizeof dev[0]),
	        fmt_id(ki->context, dev[1], sizeof dev[1]), fmt_id(ki->stream, dev[2], sizeof dev[2]));
	if (ki->graph_id)
		add_kvf(d, 2, "CUDA graph", "id %u (replayed from a graph)", ki->graph_id);
	else if (ev->flags & TIX_ROW_GRAPH_REPLAY)
		add_kv(d, 2, "CUDA graph", "replayed from a graph (id -)", R_TEXT);
}

static void build(struct app *a, struct view *v)
{
	struct detail *d = v->priv;
	for (uint32_t i = 0; i < d->n; i++)
		free(d->lines[i].text);
	d->n = 0;
	d->width = COLS > 40 ? COLS - 1 : 40;
	char buf[2048], x[64], y[64];
	struct tix_event ev;
	tix_event_get(a->ix, v->args.row, &ev);
	int gpu = tix_kind_is_gpu(ev.kind);
	char name[1024];
	snprintf(buf, sizeof buf, "%s  %s", tix_kind_label(ev.kind), app_name(a, ev.name, name, sizeof name));
	add_kv(d, 0, NULL, buf, R_HEAD);
	int shortened = !a->full_names && strcmp(name, tix_str(a->ix, ev.name)) != 0;
	uint32_t s = tix_event_step(a->ix, ev.row);
	if (s != TIX_NONE) {
		const struct tix_step *st = tix_step_get(a->ix, s);
		add_kvf(d, 2, "step", "%u  %s", s, tix_str(a->ix, st->name));
		add_kvf(d, 2, "start", "+%s in the step, +%s in the trace",
		        fmt_dur(ev.start_ns - st->start_ns, x, sizeof x), fmt_dur(app_rel(a, ev.start_ns), y, sizeof y));
	} else {
		add_kvf(d, 2, "start", "+%s in the trace", fmt_dur(app_rel(a, ev.start_ns), x, sizeof x));
	}
	add_kvf(d, 2, "duration", "%s", fmt_dur(ev.dur_ns, x, sizeof x));
	track_desc(a, ev.track, buf, sizeof buf);
	add_kv(d, 2, gpu ? "stream" : "thread", buf, R_TEXT);
	uint32_t rows[CHAIN_MAX];
	if (ev.kind == TIX_KIND_KERNEL && ev.kernel_info != TIX_NONE) {
		const struct tix_kernel_info *ki = tix_kernel_info_get(a->ix, ev.kernel_info);
		add_kvf(d, 2, "grid x block", "%s x %s", fmt_dim3(ki->grid, x, sizeof x),
		        fmt_dim3(ki->block, y, sizeof y));
	}
	if (tix_kind_is_gpu_work(ev.kind) && ev.launch == TIX_NONE) {
		add_kv(d, 2, "launched by",
		       ev.flags & TIX_ROW_GRAPH_REPLAY ? "no launch call (CUDA graph replay)"
		                                       : "no launch call (CUDA graph replay / lost flow)",
		       R_NOTE);
	} else if (ev.launch != TIX_NONE) {
		struct tix_event l;
		tix_event_get(a->ix, ev.launch, &l);
		int n = chain_of(a, l.row, rows);
		add_summary(a, d, rows, n, &ev);
	}
	if (gpu)
		add_kernel(a, v, d, &ev);
	if (tix_kind_is_gpu_work(ev.kind) && (ev.flags & TIX_ROW_GRAPH_REPLAY))
		add_captured(a, d, &ev);
	if (tix_kind_is_gpu_work(ev.kind) || ev.launch != TIX_NONE) {
		add_head(d, "Launch call");
		if (ev.launch == TIX_NONE) {
			add_kv(d, 2, NULL,
			       ev.flags & TIX_ROW_GRAPH_REPLAY
			               ? "no launch call (CUDA graph replay)"
			               : "no launch call (CUDA graph replay / lost flow)",
			       R_NOTE);
		} else {
			struct tix_event l;
			tix_event_get(a->ix, ev.launch, &l);
			add_kv(d, 2, "call", tix_str(a->ix, l.name), R_TEXT);
			track_desc(a, l.track, buf, sizeof buf);
			add_kv(d, 2, "thread", buf, R_TEXT);
			add_kvf(d, 2, "duration", "%s", fmt_dur(l.dur_ns, x, sizeof x));
			int64_t after_start = ev.start_ns - l.start_ns;
			int64_t after_end = ev.start_ns - (l.start_ns + l.dur_ns);
			add_kvf(d, 2, "delay", "kernel started %s%s after the call began (%s%s after it returned)",
			        after_start < 0 ? "-" : "", fmt_dur(after_start < 0 ? -after_start : after_start, x, sizeof x),
			        after_end < 0 ? "-" : "", fmt_dur(after_end < 0 ? -after_end : after_end, y, sizeof y));
			if (ev.flags & TIX_ROW_LINK_BY_FLOW)
				add_kv(d, 2, NULL, "(linked by an ac2g flow: no correlation id)", R_TEXT);
			int n = chain_of(a, l.row, rows);
			add_chain(a, d, rows, n);
		}
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
		add_kv(d, 2, NULL, tix_str(a->ix, ev.args), R_TEXT);
	}
	if (shortened) {
		add_head(d, "Full name");
		add_kv(d, 2, NULL, tix_str(a->ix, ev.name), R_TEXT);
	}
	if (d->oom)
		app_msg(a, "out of memory: detail cut short");
	uint32_t keep = v->cursor;
	view_set_rows(v, d->n);
	v->cursor = keep < d->n ? keep : 0;
	if (v->has_filter)
		table_rebuild(a, v);
}

static int detail_open(struct app *a, struct view *v)
{
	if (v->args.row == TIX_NONE || v->args.row >= tix_event_count(a->ix)) {
		app_msg(a, "no launch chosen");
		return -1;
	}
	v->priv = calloc(1, sizeof(struct detail));
	if (!v->priv)
		return -1;
	build(a, v);
	return 0;
}

static void detail_close(struct view *v)
{
	struct detail *d = v->priv;
	if (!d)
		return;
	for (uint32_t i = 0; i < d->n; i++)
		free(d->lines[i].text);
	free(d->lines);
	free(d);
}

static void detail_draw(struct app *a, struct view *v, int y0, int h)
{
	struct detail *d = v->priv;
	table_scroll(v, h);
	for (int y = 0; y < h; y++) {
		uint32_t pos = v->top + (uint32_t)y;
		if (pos >= v->nvis)
			break;
		const struct dline *l = &d->lines[v->order[pos]];
		int attr = l->role == R_HEAD ? draw_attr(a, CR_HEADER)
		         : l->role == R_NOTE ? draw_attr(a, CR_LABEL) : (int)A_NORMAL;
		if (pos == v->cursor)
			attr = draw_attr(a, CR_CURSOR);
		attron(attr);
		draw_text(a, y0 + y, 0, COLS, l->text, 1);
		attroff(attr);
	}
}

static const char *detail_sel_name(struct app *a, struct view *v, char *buf, size_t cap)
{
	struct tix_event e;
	tix_event_get(a->ix, v->args.row, &e);
	return app_name(a, e.name, buf, cap);
}

static const char *detail_text(struct app *a, struct view *v, uint32_t row, char *buf, size_t cap)
{
	return ((struct detail *)v->priv)->lines[row].text;
}

static int detail_enter(struct app *a, struct view *v, uint32_t row)
{
	struct view_args va = view_args_none();
	va.row = v->args.row;
	va.step = tix_event_step(a->ix, v->args.row);
	return app_push(a, &view_timeline_ops, &va) ? 0 : -1;
}

static void detail_crumb(struct app *a, struct view *v, char *buf, size_t cap)
{
	if (v->args.ordinal != TIX_NONE)
		snprintf(buf, cap, "launch #%u", v->args.ordinal);
	else
		snprintf(buf, cap, "event %u", v->args.row);
}

static void detail_context(struct app *a, struct view *v, struct ctx *c)
{
	c->row = v->args.row;
	c->step = tix_event_step(a->ix, v->args.row);
	c->group = v->args.group;
}

static int detail_export(struct app *a, struct view *v, struct tix_export_sel *sel, char *path,
                         size_t cap, void **owned)
{
	sel->rows = &v->args.row;
	sel->nrows = 1;
	snprintf(path, cap, "launch%u", v->args.row);
	return 0;
}

const struct view_ops view_detail_ops = {
	.name = "Detail",
	.rows_name = "lines",
	.kind = VK_DETAIL,
	.cols = NULL,
	.ncols = 0,
	.default_sort = -1,
	.open = detail_open,
	.close = detail_close,
	.text = detail_text,
	.sel_name = detail_sel_name,
	.enter = detail_enter,
	.crumb = detail_crumb,
	.context = detail_context,
	.export_sel = detail_export,
	.draw = detail_draw,
	.resize = build,
};
