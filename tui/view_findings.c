/*
 * Findings (key 7): why the step is slow and what a fix could save, as
 * `tix findings` prints it, from the same model (index/findings.h, the rows
 * of index/view/findings.c).  Three parts, top to bottom:
 *
 *   the header   the step (or the real steps averaged), the device and its
 *                peaks, the GPU time breakdown, idle by cause, the total
 *   the table    one row per finding, largest saving first: #, Saving/step,
 *                Share (w: of the wall time), Rule, Finding
 *   the pane     the selected finding: how its saving was estimated (the
 *                formula with its numbers), its ops, kernel, overlaps and
 *                evidence, and what Enter opens; then the notes (what could
 *                not be computed)
 *
 * The view follows the step the user is in (the Steps view's selection, a
 * step's Kernels or Ops view) and the real steps averaged otherwise.  Enter
 * opens a finding's evidence in the other views (struct drill says which);
 * Backspace comes back here, on the same row.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/findings.h"
#include "tui/table.h"
#include "tui/view.h"

#define LABEL_W 10 /* "evidence: " */

struct findings_view {
	struct tix_findings *F;
};

static const struct tix_findings *findings(const struct view *v)
{
	return ((const struct findings_view *)v->priv)->F;
}

static const struct tix_finding *finding_at(const struct view *v, uint32_t row)
{
	const struct tix_findings *F = findings(v);
	return row < F->n ? &F->items[row] : NULL;
}

/* The findings of step (TIX_NONE: of the real steps, averaged) with the
 * peaks the command line gave; NULL with the message set. */
static struct tix_findings *compute(struct app *a, uint32_t step)
{
	struct tix_findings_opts o = {step, a->peak_bw, a->peak_flops};
	struct tix_findings *F;
	struct tix_error err;
	if (tix_findings_compute(a->ix, &o, &F, &err) != 0) {
		app_msg(a, "findings: %s", err.msg);
		return NULL;
	}
	return F;
}

/* Traces that name their ranks (the ones the TUI opens on the Ranks view)
 * are one run, as tix findings takes them: the real steps' findings gain
 * the set's straggler, when there is one worth a finding.  Traces that do
 * not may be two runs to compare (D), whose "straggler" would mean nothing. */
static void add_straggler(struct app *a, struct tix_findings *F)
{
	if (a->ntraces < 2 || F->step != TIX_NONE)
		return;
	int named = 0;
	struct tix_rank_set *rs = tui_rank_set(a, &named);
	struct tix_finding f;
	if (rs && named && tix_rank_straggler_finding(rs, &f) && tix_findings_add(F, &f) != 0)
		app_msg(a, "out of memory: the straggler is not among the findings");
	tix_rank_set_free(rs);
}

static int findings_open(struct app *a, struct view *v)
{
	uint32_t step = v->args.step;
	if (step != TIX_NONE && step == tix_step_before_trace(a->ix))
		app_msg(a, "the GPU work before the trace is no step: the findings of the real steps");
	if (step != TIX_NONE && (step == tix_step_before_trace(a->ix) || !tix_breakdown_get(a->ix, step)))
		step = TIX_NONE;
	struct findings_view *p = calloc(1, sizeof *p);
	struct tix_error err;
	if (!p) {
		app_msg(a, "out of memory");
		return -1;
	}
	if (!(p->F = compute(a, step))) {
		free(p);
		return -1;
	}
	add_straggler(a, p->F);
	if (!(v->model = tix_view_findings(a->ix, p->F, &err))) {
		app_msg(a, "findings: %s", err.msg);
		tix_findings_free(p->F);
		free(p);
		return -1;
	}
	v->args.step = step;
	v->priv = p;
	v->cols = tix_view_columns(v->model, &v->ncols);
	view_set_rows(v, tix_view_rows(v->model));
	return 0;
}

static void findings_close(struct view *v)
{
	struct findings_view *p = v->priv;
	if (!p)
		return;
	tix_view_free(v->model); /* before the findings it borrows */
	v->model = NULL;
	tix_findings_free(p->F);
	free(p);
}

/* ---- what Enter opens ---- */

enum drill_to { TO_NONE, TO_LAUNCHES, TO_TIMELINE, TO_KERNELS, TO_STEPS, TO_RANKS };

struct drill {
	enum drill_to to;
	uint32_t step, group, op, row;
	int64_t window;    /* TO_TIMELINE: the time to show around row */
	char what[320];    /* what it opens, or why nothing can */
};

/* The op rank (tix_op_get's numbering) of an op name, TIX_NONE. */
static uint32_t op_named(struct app *a, uint32_t name)
{
	for (uint32_t i = 0, n = name == TIX_NONE ? 0 : tix_op_count(a->ix); i < n; i++)
		if (tix_op_get(a->ix, i)->name == name)
			return i;
	return TIX_NONE;
}

static const char *group_name(struct app *a, uint32_t group, char *buf, size_t cap)
{
	const struct tix_group *g = group != TIX_NONE ? tix_group_get(a->ix, group) : NULL;
	return g ? app_name(a, g->name, buf, cap) : "-";
}

/* The same, at most 32 columns, for a line that says where Enter goes. */
static const char *group_short(struct app *a, uint32_t group, char *buf, size_t cap)
{
	char name[1024];
	return name_fit(a, group_name(a, group, name, sizeof name), 32, buf, cap);
}

static void drill_ops(struct app *a, const struct tix_findings *F, const struct tix_finding *f, struct drill *d)
{
	char k[512];
	uint32_t name = f->nops ? f->ops[f->nops - 1] : TIX_NONE;
	if (name == TIX_NONE && f->row != TIX_NONE) {
		struct tix_event e;
		tix_event_get(a->ix, f->row, &e);
		name = e.name;
	}
	if (f->group == TIX_NONE) {
		snprintf(d->what, sizeof d->what, "nothing: no kernel ran beneath this op");
		return;
	}
	d->to = TO_LAUNCHES;
	d->step = F->step;
	d->group = f->group;
	d->op = op_named(a, name);
	snprintf(d->what, sizeof d->what, "launches of %s%s%s%s", group_short(a, f->group, k, sizeof k),
	         d->op != TIX_NONE ? " beneath " : "", d->op != TIX_NONE ? tix_str(a->ix, name) : "",
	         F->step != TIX_NONE ? ", in the step" : ", all steps");
}

/* The longest gap of the finding's cause over all streams, in the step
 * (when averaged: in the real step with the most idle of that cause). */
static void drill_gap(struct app *a, const struct tix_findings *F, const struct tix_finding *f, struct drill *d)
{
	(void)F;
	const char *what = f->rule == TIX_RULE_IDLE_KERNEL ? "kernel-wait" : "host-wait";
	if (!f->has_gap) {
		snprintf(d->what, sizeof d->what, "nothing: no such gap in the step");
		return;
	}
	struct tix_gap gap = f->gap;
	uint32_t step = f->gap_step;
	struct tix_event e;
	tix_event_get(a->ix, gap.next_row, &e);
	char lane[64], g[32];
	track_label(a, e.track, lane, sizeof lane);
	d->to = TO_TIMELINE;
	d->row = gap.next_row;
	int64_t w = 8 * gap.dur_ns, around = (e.dur_ns + 2 * gap.dur_ns) * 5 / 4;
	d->window = w > around ? w : around;
	snprintf(d->what, sizeof d->what, "timeline: the longest %s gap of step %u, %s, ends at the selected %s on %s",
	         what, step, tix_fmt_dur_unit(gap.dur_ns, TIX_TU_AUTO, g, sizeof g), e.kind == TIX_KIND_KERNEL ? "kernel" : "event", lane);
}

static void drill_sync(struct app *a, const struct tix_finding *f, struct drill *d)
{
	if (f->row == TIX_NONE) {
		snprintf(d->what, sizeof d->what, "nothing: no synchronising call is recorded for it");
		return;
	}
	struct tix_event e;
	tix_event_get(a->ix, f->row, &e);
	d->to = TO_TIMELINE;
	d->row = f->row;
	d->window = e.dur_ns * 4 > 20000 ? e.dur_ns * 4 : 20000;
	snprintf(d->what, sizeof d->what, "timeline: the first %s%s", tix_str(a->ix, e.name),
	         tix_event_step(a->ix, f->row) != TIX_NONE ? " of its kind in the step" : "");
}

/* The step's (or all steps') communication kernels: the largest first. */
static void drill_comm(struct app *a, const struct tix_findings *F, struct drill *d)
{
	uint32_t n, count = 0;
	const struct tix_group *g = NULL, *all = NULL;
	if (F->step != TIX_NONE)
		all = tix_step_groups(a->ix, F->step, &n);
	else
		n = tix_group_count(a->ix);
	for (uint32_t i = 0; i < n; i++) {
		const struct tix_group *gi = all ? &all[i] : tix_group_get(a->ix, i);
		if (gi->kind == TIX_KIND_KERNEL && tix_name_is_comm(tix_str(a->ix, gi->name)) && !count++)
			g = gi;
	}
	if (!g) {
		snprintf(d->what, sizeof d->what, "nothing: no communication kernel here");
		return;
	}
	char k[512];
	d->to = TO_KERNELS;
	d->step = F->step;
	d->group = g->group;
	snprintf(d->what, sizeof d->what, "kernels, at the largest of %u communication kernel%s: %s", count,
	         count == 1 ? "" : "s", group_short(a, g->group, k, sizeof k));
}

/* The step whose wall time exceeds its GPU busy time most. */
static void drill_cpu(struct app *a, const struct tix_findings *F, struct drill *d)
{
	uint32_t best = F->step;
	int64_t most = -1;
	for (uint32_t s = 0; best == TIX_NONE && s < tix_step_count(a->ix); s++) {
		const struct tix_step *st = tix_step_get(a->ix, s);
		if (st->dur_ns - st->gpu_busy_ns > most) {
			most = st->dur_ns - st->gpu_busy_ns;
			best = s;
		}
	}
	const struct tix_step *st = best != TIX_NONE ? tix_step_get(a->ix, best) : NULL;
	if (!st) {
		snprintf(d->what, sizeof d->what, "nothing: the trace has no steps");
		return;
	}
	char w[32], b[32];
	d->to = TO_STEPS;
	d->step = best;
	snprintf(d->what, sizeof d->what, "steps, at step %u: wall %s, GPU busy %s", best,
	         tix_fmt_dur_unit(st->dur_ns, TIX_TU_AUTO, w, sizeof w), tix_fmt_dur_unit(st->gpu_busy_ns, TIX_TU_AUTO, b, sizeof b));
}

static void drill_of(struct app *a, const struct view *v, const struct tix_finding *f, struct drill *d)
{
	const struct tix_findings *F = findings(v);
	memset(d, 0, sizeof *d);
	d->step = d->group = d->op = d->row = TIX_NONE;
	switch (f->rule) {
	case TIX_RULE_MEMORY_BOUND:
	case TIX_RULE_REPEATED_COPY:
	case TIX_RULE_COMPUTE_LOW: drill_ops(a, F, f, d); break;
	case TIX_RULE_IDLE_HOST:
	case TIX_RULE_IDLE_KERNEL:
	case TIX_RULE_LAUNCH_BOUND: drill_gap(a, F, f, d); break;
	case TIX_RULE_SYNC: drill_sync(a, f, d); break;
	case TIX_RULE_EXPOSED_COMM: drill_comm(a, F, d); break;
	case TIX_RULE_CPU_BOUND: drill_cpu(a, F, d); break;
	case TIX_RULE_STRAGGLER:
		d->to = TO_RANKS;
		snprintf(d->what, sizeof d->what, "ranks: the open traces side by side");
		break;
	case TIX_RULE_COUNT: break;
	}
	if (d->to == TO_NONE && !d->what[0])
		snprintf(d->what, sizeof d->what, "nothing: no view shows this finding's evidence");
}

/* Zooms the timeline just opened in on its selection until about window
 * ns show (the timeline opens on its whole step; + halves the span). */
static void zoom_to(struct app *a, struct view *t, uint32_t row, int64_t window)
{
	uint32_t s = tix_event_step(a->ix, row);
	const struct tix_step *st = s != TIX_NONE ? tix_step_get(a->ix, s) : NULL;
	int64_t w = st ? st->dur_ns + st->dur_ns / 20 : a->sum->last_ns - a->sum->first_ns;
	for (int k = 0; k < 40 && w / 2 >= window; k++, w /= 2)
		t->ops->request(a, t, REQ_ZOOM_IN);
}

static int findings_enter(struct app *a, struct view *v, uint32_t row)
{
	const struct tix_finding *f = finding_at(v, row);
	if (!f)
		return -1;
	struct drill d;
	drill_of(a, v, f, &d);
	struct view_args va = view_args_none();
	struct ctx c = {d.step, d.group, TIX_NONE, TIX_NONE};
	struct view *w = NULL;
	va.step = d.step;
	switch (d.to) {
	case TO_NONE: {
		char fit[400];
		app_msg(a, "Enter opens %s", text_fit(a, d.what, COLS - 12, fit, sizeof fit));
		return -1;
	}
	case TO_LAUNCHES:
		va.group = d.group;
		va.op = d.op;
		w = app_push(a, &view_launches_ops, &va);
		break;
	case TO_TIMELINE:
		va.step = TIX_NONE; /* the step of the event */
		va.row = d.row;
		if ((w = app_push(a, &view_timeline_ops, &va)))
			zoom_to(a, w, d.row, d.window);
		break;
	case TO_KERNELS:
		if ((w = app_push(a, &view_kernels_ops, &va)))
			w->ops->select(a, w, &c);
		break;
	case TO_STEPS:
		if ((w = app_push(a, &view_steps_ops, &va)))
			w->ops->select(a, w, &c);
		break;
	case TO_RANKS: w = app_push(a, &view_ranks_ops, &va); break;
	}
	if (!w)
		return -1; /* the view said why */
	char fit[400];
	const char *back = " (Bksp: findings)";
	app_msg(a, "%s%s", text_fit(a, d.what, COLS - 1 - text_width(a, back), fit, sizeof fit), back);
	return 0;
}

/* ---- drawing ---- */

/* The bytes of s that fit width columns, broken after a space when one is
 * there (at least one character). */
static size_t wrap_len(const struct app *a, const char *s, int width)
{
	size_t i = 0, brk = 0, list = 0;
	int used = 0;
	while (s[i]) {
		char ch[8];
		size_t len = 1;
		while (len < 7 && (s[i + len] & 0xc0) == 0x80)
			len++;
		memcpy(ch, s + i, len);
		ch[len] = 0;
		int w = text_width(a, ch);
		if (used + w > width)
			break;
		used += w;
		i += len;
		if (s[i - 1] == ' ') {
			brk = i;
			if (i >= 2 && (s[i - 2] == ',' || s[i - 2] == ';'))
				list = i;
		}
	}
	if (!s[i])
		return i;
	/* a list (the evidence, the idle causes) breaks between its items,
	 * not between a figure and its unit, unless that wastes half the line */
	if (list && used > 0 && 2 * list >= brk)
		return list;
	return brk ? brk : i ? i : 1;
}

/* A labelled item of the header or the pane. */
struct item {
	const char *label; /* "how:", or NULL: the text from column 0 */
	char text[1024];
	int attr;
	int hang;          /* without a label: where its next lines start */
};

/* Lines item takes at the screen's width; with draw, drawn from y (at most
 * max lines; the last one drawn ends with an ellipsis when the item, or
 * with more the items after it, go on). */
static int item_lines(struct app *a, const struct item *it, int y, int max, int draw, int more)
{
	int x0 = it->label ? LABEL_W : 0, n = 0;
	const char *p = it->text;
	do {
		if (n == 1 && !it->label)
			x0 = it->hang;
		int w = COLS - x0 < 8 ? 8 : COLS - x0;
		size_t len = wrap_len(a, p, w);
		if (draw && n < max) {
			if (it->attr)
				attron(it->attr);
			if (n == 0 && it->label)
				draw_text(a, y, 0, LABEL_W, it->label, 1);
			int last = n == max - 1 && (p[len] || more);
			const char *ell = draw_glyphs(a)->ellipsis;
			int used = draw_textn(a, y + n, x0, w - (last ? text_width(a, ell) : 0), p, len, 0);
			if (last)
				draw_text(a, y + n, x0 + used, COLS - x0 - used, ell, 0);
			if (it->attr)
				attroff(it->attr);
		}
		n++;
		p += len;
		while (*p == ' ')
			p++;
	} while (*p);
	return n;
}

static int items_lines(struct app *a, const struct item *it, int n)
{
	int lines = 0;
	for (int i = 0; i < n; i++)
		lines += item_lines(a, &it[i], 0, 0, 0, 0);
	return lines;
}

static void items_draw(struct app *a, const struct item *it, int n, int y, int h)
{
	for (int i = 0; i < n && h > 0; i++) {
		int used = item_lines(a, &it[i], y, h, 1, i + 1 < n);
		used = used < h ? used : h;
		y += used;
		h -= used;
	}
}

static int header_items(struct app *a, const struct view *v, struct item *it, int max)
{
	const struct tix_findings *F = findings(v);
	int n = 0;
	for (int k = 0; n < max - 1; k++) {
		it[n].label = NULL;
		it[n].attr = 0;
		it[n].hang = LABEL_W; /* its words go on under its text, not its label ("idle      ") */
		if (!tix_findings_header(a->ix, F, k, it[n].text, sizeof it[n].text))
			break;
		n++;
	}
	if (F->n && n < max) {
		it[n].label = "total";
		it[n].attr = draw_attr(a, CR_LABEL);
		tix_findings_total(F, it[n].text, sizeof it[n].text);
		n++;
	}
	return n;
}

/* Appends an item (NULL when there is no room). */
__attribute__((format(printf, 5, 6))) static struct item *add_item(struct item *it, int *n, int max,
                                                                   const char *label, const char *fmt, ...)
{
	if (*n >= max)
		return NULL;
	struct item *p = &it[(*n)++];
	p->label = label;
	p->attr = 0;
	p->hang = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->text, sizeof p->text, fmt, ap);
	va_end(ap);
	return p;
}

/* The selected finding's pane: its heading, its title, how, ops, kernel, overlaps,
 * evidence, what Enter opens; then the notes. */
static int pane_items(struct app *a, const struct view *v, struct item *it, int max)
{
	const struct tix_findings *F = findings(v);
	uint32_t row = view_cur_row(v);
	const struct tix_finding *f = row != TIX_NONE ? finding_at(v, row) : NULL;
	int n = 0;
#define ITEM(lab, ...) add_item(it, &n, max, lab, __VA_ARGS__)
	if (f) {
		struct item *h = ITEM(NULL, "#%u %s: %s", row + 1, tix_rule_name(f->rule), tix_rule_what(f->rule));
		if (h)
			h->attr = draw_attr(a, CR_HEADER);
		ITEM("finding:", "%s", f->title); /* whole: the table's column cuts it */
		ITEM("how:", "%s", f->basis);
		if (f->nops) {
			struct item *o = ITEM("ops:", "%s", "");
			for (uint32_t k = 0; o && k < f->nops; k++) {
				size_t len = strlen(o->text);
				snprintf(o->text + len, sizeof o->text - len, "%s%s", k ? " > " : "", tix_str(a->ix, f->ops[k]));
			}
		}
		char k[512];
		if (f->group != TIX_NONE)
			ITEM("kernel:", "%s", group_name(a, f->group, k, sizeof k));
		if (f->noverlaps) {
			struct item *o = ITEM("overlaps:", "%s", "");
			for (int j = 0; o && j < f->noverlaps; j++) {
				size_t len = strlen(o->text);
				snprintf(o->text + len, sizeof o->text - len, "#%d ", f->overlaps[j] + 1);
			}
			if (o)
				strncat(o->text, "(the same time: counted once)", sizeof o->text - strlen(o->text) - 1);
		}
		struct drill d;
		drill_of(a, v, f, &d);
		ITEM("Enter:", "%s", d.what);
		struct item *e = f->nev ? ITEM("evidence:", "%s", "") : NULL;
		for (int j = 0; e && j < f->nev; j++) {
			char val[128];
			if (!f->ev[j].text[0] && isnan(f->ev[j].value))
				continue; /* unknown for this op: not a figure of its evidence */
			size_t len = strlen(e->text);
			snprintf(e->text + len, sizeof e->text - len, "%s%s %s", len ? ", " : "", f->ev[j].key,
			         tix_evidence_text(&f->ev[j], val, sizeof val));
		}
	}
	for (int i = 0; i < F->nnotes; i++)
		ITEM(i ? "" : "notes", "%s", F->notes[i]);
#undef ITEM
	return n;
}

static void findings_draw(struct app *a, struct view *v, int y0, int h)
{
	struct item hdr[8], pane[8 + 8];
	int nh = header_items(a, v, hdr, 8), np = pane_items(a, v, pane, 16);
	int hl = items_lines(a, hdr, nh), pl = items_lines(a, pane, np);
	uint32_t rows = v->nvis ? v->nvis : 1;
	int tmin = 1 + (int)(rows < 3 ? rows : 3), tmax = 1 + (int)rows;
	/* the table gets its rows, or at least three of them; the pane what
	 * is left, then the header */
	int th = h - hl - pl;
	th = th < tmin ? tmin : th > tmax ? tmax : th;
	if (hl + th + pl > h)
		pl = h - hl - th > 0 ? h - hl - th : 0;
	if (hl + th + pl > h)
		hl = h - th > 0 ? h - th : 0;
	if (th > h)
		th = h;
	items_draw(a, hdr, nh, y0, hl);
	table_draw(a, v, y0 + hl, th);
	items_draw(a, pane, np, y0 + hl + th, pl);
}

/* ---- the rest of the view's operations ---- */

static const char *findings_text(struct app *a, struct view *v, uint32_t row, char *buf, size_t cap)
{
	const struct tix_finding *f = finding_at(v, row);
	snprintf(buf, cap, "%s %s", f ? tix_rule_name(f->rule) : "", f ? f->title : "");
	return buf;
}

static uint32_t findings_hottest(struct app *a, struct view *v)
{
	return v->nrows ? 0 : TIX_NONE; /* ranked by saving */
}

static void findings_crumb(struct app *a, struct view *v, char *buf, size_t cap)
{
	const struct tix_findings *F = findings(v);
	if (F->step != TIX_NONE)
		snprintf(buf, cap, "findings of step %u", F->step);
	else
		snprintf(buf, cap, "findings per step");
}

static void findings_context(struct app *a, struct view *v, struct ctx *c)
{
	c->step = findings(v)->step;
	uint32_t row = view_cur_row(v);
	const struct tix_finding *f = row != TIX_NONE ? finding_at(v, row) : NULL;
	if (f)
		c->group = f->group;
}

static int findings_request(struct app *a, struct view *v, enum req r)
{
	if (r == REQ_EXPORT) {
		app_msg(a, "export the evidence: Enter opens it, e exports from there");
		return 1;
	}
	if (r == REQ_SHAPES) {
		app_msg(a, "p groups launches or ops by shape: Enter opens a finding's launches first");
		return 1;
	}
	return 0;
}

const struct view_ops view_findings_ops = {
	.name = "Findings",
	.rows_name = "findings",
	.kind = VK_FINDINGS,
	.default_sort = -1,
	.open = findings_open,
	.close = findings_close,
	.cell = model_cell,
	.share = model_share,
	.cmp = model_cmp,
	.width = model_width,
	.text = findings_text,
	.enter = findings_enter,
	.hottest = findings_hottest,
	.crumb = findings_crumb,
	.context = findings_context,
	.request = findings_request,
	.draw = findings_draw,
};

/* ---- the first screen ---- */

void findings_first_screen(struct app *a)
{
	struct tix_findings *F = compute(a, TIX_NONE);
	if (!F)
		return;
	char tail[96], fit[400], save[48];
	if (!F->n) {
		app_msg(a, "%s", text_fit(a, "no findings (7: the GPU time breakdown, and what could not be computed)",
		                          COLS - 1, fit, sizeof fit));
		tix_findings_free(F);
		return;
	}
	const struct tix_finding *f = &F->items[0];
	char head[48];
	snprintf(head, sizeof head, "%u finding%s; top: ", F->n, F->n == 1 ? "" : "s");
	snprintf(tail, sizeof tail, ", could save %s a step (7)", tix_fmt_dur_unit(f->saving_ns, TIX_TU_AUTO, save, sizeof save));
	int room = COLS - 1 - text_width(a, head) - text_width(a, tail);
	if (room < 12)
		app_msg(a, "%u finding%s (7)", F->n, F->n == 1 ? "" : "s");
	else
		app_msg(a, "%s%s%s", head, text_fit(a, f->title, room, fit, sizeof fit), tail);
	tix_findings_free(F);
}
