/*
 * Timeline of a step: one lane per GPU stream and per CPU thread, events as
 * blocks, a cursor on one event.  The framework's rows are the lanes (so
 * j/k, g/G and f work on lanes); this view handles the time axis itself.
 *
 * Drawing a lane costs O(columns x log events), not O(events): the walk
 * draws an event, and when the next one would land in the same screen
 * column it jumps with tix_track_lower_bound() to the next column,
 * re-marking the enclosing events (the parent chain) that span the jump.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/table.h"
#include "tui/timeline_int.h"

#define LABEL_W 16
/* Nested CPU events get a line per depth, up to this many (the deeper ones
 * show in the last line). */
#define MAX_DEPTH 6
#define MIN_NS_PER_COL 1.0

uint32_t tl_lane_track(struct view *v, uint32_t lane)
{
	return ((struct timeline *)v->priv)->lanes[lane];
}

uint32_t tl_cur_track(struct view *v)
{
	uint32_t lane = view_cur_row(v);
	return lane == TIX_NONE ? TIX_NONE : tl_lane_track(v, lane);
}

static int lane_cmp(const void *pa, const void *pb, void *arg)
{
	const struct tix_index *ix = arg;
	const struct tix_track *x = tix_track_get(ix, *(const uint32_t *)pa);
	const struct tix_track *y = tix_track_get(ix, *(const uint32_t *)pb);
	if (x->kind != y->kind)
		return x->kind == TIX_TRACK_GPU ? -1 : y->kind == TIX_TRACK_GPU ? 1 : (int)x->kind - (int)y->kind;
	if (x->kind == TIX_TRACK_GPU) {
		if (x->device != y->device)
			return x->device < y->device ? -1 : 1;
		return x->stream < y->stream ? -1 : x->stream > y->stream;
	}
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->sort_index != y->sort_index)
		return x->sort_index < y->sort_index ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int overlaps(struct app *a, uint32_t t, int64_t lo, int64_t hi)
{
	const struct tix_track *tr = tix_track_get(a->ix, t);
	if (tr->row_count == 0)
		return 0;
	uint32_t i = tix_track_lower_bound(a->ix, t, lo);
	uint32_t j = tix_track_lower_bound(a->ix, t, hi);
	if (j > i)
		return 1;
	if (i > tr->first_row) {
		struct tix_event e;
		tix_event_get(a->ix, i - 1, &e);
		for (int d = 0; d < 64; d++) {
			if (e.start_ns + e.dur_ns > lo)
				return 1;
			if (e.parent == TIX_NONE)
				break;
			tix_event_get(a->ix, e.parent, &e);
		}
	}
	return 0;
}

static int timeline_open(struct app *a, struct view *v)
{
	struct timeline *p = calloc(1, sizeof *p);
	if (!p)
		return -1;
	v->priv = p;
	p->sel = TIX_NONE;
	p->step = v->args.step;
	if (p->step == TIX_NONE && v->args.row != TIX_NONE)
		p->step = tix_event_step(a->ix, v->args.row);
	if (p->step == TIX_NONE && tix_step_count(a->ix) > 0)
		p->step = 0;
	v->args.step = p->step;
	if (p->step != TIX_NONE) {
		const struct tix_step *st = tix_step_get(a->ix, p->step);
		p->lo = st->start_ns;
		p->hi = st->start_ns + st->dur_ns;
		p->hi += (p->hi - p->lo) / 20; /* GPU work launched late runs past the step */
	} else {
		p->lo = a->sum->first_ns;
		p->hi = a->sum->last_ns;
	}
	if (v->args.row != TIX_NONE) {
		struct tix_event e;
		tix_event_get(a->ix, v->args.row, &e);
		if (e.start_ns < p->lo)
			p->lo = e.start_ns;
		if (e.start_ns + e.dur_ns > p->hi)
			p->hi = e.start_ns + e.dur_ns;
		p->sel = v->args.row;
		p->sel_t = e.start_ns;
	}
	if (p->hi <= p->lo)
		p->hi = p->lo + 1000;
	p->t0 = p->lo;
	p->t1 = p->hi;
	uint32_t nt = tix_track_count(a->ix), n = 0, sel_track = TIX_NONE;
	p->lanes = calloc(nt ? nt : 1, sizeof *p->lanes);
	if (!p->lanes)
		return -1;
	if (p->sel != TIX_NONE) {
		struct tix_event e;
		tix_event_get(a->ix, p->sel, &e);
		sel_track = e.track;
	}
	for (uint32_t t = 0; t < nt; t++) {
		const struct tix_track *tr = tix_track_get(a->ix, t);
		if (tr->kind == TIX_TRACK_OTHER && t != sel_track)
			continue;
		if (t == sel_track || overlaps(a, t, p->lo, p->hi))
			p->lanes[n++] = t;
	}
	qsort_r(p->lanes, n, sizeof *p->lanes, lane_cmp, a->ix);
	view_set_rows(v, n);
	if (p->sel != TIX_NONE) {
		struct tix_event e;
		tix_event_get(a->ix, p->sel, &e);
		for (uint32_t l = 0; l < n; l++)
			if (p->lanes[l] == e.track)
				view_goto_row(v, l);
	} else if (n > 0) {
		/* start on the first GPU work (or op) of the step itself, on screen:
		 * not on work of the step before that ran into this one */
		p->sel_t = p->lo;
		for (uint32_t l = 0; l < n && p->sel == TIX_NONE; l++) {
			uint32_t i = tl_first_of_step(a, p, p->lanes[l]);
			if (i == TIX_NONE)
				continue;
			struct tix_event e;
			tix_event_get(a->ix, i, &e);
			p->sel = i;
			p->sel_t = e.start_ns;
			view_goto_row(v, l);
		}
	}
	return 0;
}

static void timeline_close(struct view *v)
{
	struct timeline *p = v->priv;
	if (!p)
		return;
	free(p->lanes);
	free(p->memo);
	free(p->cells);
	free(p);
}

/* Keeps the selection on the cursor's lane, near the time it followed. */
static void sync_sel(struct app *a, struct view *v)
{
	struct timeline *p = v->priv;
	uint32_t t = tl_cur_track(v);
	if (t == TIX_NONE) {
		p->sel = TIX_NONE;
		return;
	}
	if (p->sel != TIX_NONE) {
		struct tix_event e;
		tix_event_get(a->ix, p->sel, &e);
		if (e.track == t)
			return;
	}
	p->sel = tl_event_at(a, t, p->sel_t);
}

/* Pans the window so that the selection is on screen. */
void tl_show_sel(struct app *a, struct timeline *p)
{
	if (p->sel == TIX_NONE)
		return;
	struct tix_event e;
	tix_event_get(a->ix, p->sel, &e);
	p->sel_t = e.start_ns;
	int64_t w = p->t1 - p->t0;
	if (e.start_ns < p->t0 || e.start_ns >= p->t1) {
		p->t0 = e.start_ns - w / 2;
		p->t1 = p->t0 + w;
	}
}

void track_label(struct app *a, uint32_t t, char *buf, size_t cap)
{
	const struct tix_track *tr = tix_track_get(a->ix, t);
	char tid[64];
	if (tr->tid_str != TIX_NONE)
		snprintf(tid, sizeof tid, "%s", tix_str(a->ix, tr->tid_str));
	else
		snprintf(tid, sizeof tid, "%lld", (long long)tr->tid);
	if (tr->kind == TIX_TRACK_GPU) {
		snprintf(buf, cap, "GPU%d s%d", tr->device, tr->stream);
	} else if (tr->name != TIX_NONE && tix_str_len(a->ix, tr->name)) {
		/* Kineto names threads "thread 123 (python)": keep "python"; the tid
		 * last, where a cut name keeps it (name_fit keeps the tail) */
		const char *n = tix_str(a->ix, tr->name);
		const char *open = strchr(n, '(');
		size_t len = open ? strcspn(open + 1, ")") : 0;
		if (strncmp(n, "thread ", 7) == 0 && open && len)
			snprintf(buf, cap, "%.*s %s", (int)len, open + 1, tid);
		else if (strstr(n, tid))
			snprintf(buf, cap, "%s", n);
		else
			snprintf(buf, cap, "%s %s", n, tid);
	} else {
		snprintf(buf, cap, "tid %s", tid);
	}
}

/* Marks columns [from, to) of an event with its row, in its depth line. */
static void mark(struct timeline *p, int w, double npc, int64_t from, int64_t to, uint32_t row,
                 int depth)
{
	if (depth >= MAX_DEPTH)
		depth = MAX_DEPTH - 1;
	if (depth + 1 > p->used_depth)
		p->used_depth = depth + 1;
	uint32_t *cells = p->cells + (size_t)depth * (size_t)p->ncells;
	if (to <= p->t0 || from >= p->t1)
		return;
	int c0 = from <= p->t0 ? 0 : (int)((double)(from - p->t0) / npc);
	int c1 = to >= p->t1 ? w : (int)((double)(to - p->t0) / npc);
	if (c1 <= c0)
		c1 = c0 + 1;
	for (int c = c0; c < c1 && c < w; c++)
		cells[c] = row;
}

/* Marks the events enclosing row (itself included) that reach past from,
 * outermost first, from `from` on. */
static void mark_chain(struct app *a, struct timeline *p, int w, double npc, uint32_t row, int64_t from)
{
	struct tix_event chain[64];
	int n = 0;
	while (row != TIX_NONE && n < 64) {
		tix_event_get(a->ix, row, &chain[n]);
		row = chain[n].parent;
		n++;
	}
	for (int i = n - 1, depth = 0; i >= 0; i--) {
		if (tl_hidden(a, chain[i].kind))
			continue;
		if (chain[i].start_ns + chain[i].dur_ns > from)
			mark(p, w, npc, from > chain[i].start_ns ? from : chain[i].start_ns,
			     chain[i].start_ns + chain[i].dur_ns, chain[i].row, depth);
		depth++;
	}
}

/* How many CPU events shown enclose e on its thread (0: outermost). */
static int event_depth(struct app *a, const struct tix_event *e)
{
	int d = 0;
	struct tix_event x = *e;
	for (int k = 0; x.parent != TIX_NONE && d < MAX_DEPTH && k < 64; k++) {
		tix_event_get(a->ix, x.parent, &x);
		d += !tl_hidden(a, x.kind);
	}
	return d;
}

static void fill_lane(struct app *a, struct timeline *p, uint32_t t, int w)
{
	double npc = (double)(p->t1 - p->t0) / w;
	for (int c = 0; c < w * MAX_DEPTH; c++)
		p->cells[c] = TIX_NONE;
	p->used_depth = 1;
	const struct tix_track *tr = tix_track_get(a->ix, t);
	uint32_t end = tr->first_row + tr->row_count;
	uint32_t i = tix_track_lower_bound(a->ix, t, p->t0);
	if (i > tr->first_row)
		mark_chain(a, p, w, npc, i - 1, p->t0);
	while (i < end) {
		struct tix_event e;
		tix_event_get(a->ix, i, &e);
		if (e.start_ns >= p->t1)
			break;
		if (!tl_hidden(a, e.kind))
			mark(p, w, npc, e.start_ns, e.start_ns + e.dur_ns, e.row, event_depth(a, &e));
		int c = (int)((double)(e.start_ns - p->t0) / npc);
		int64_t next_col = p->t0 + (int64_t)((c + 1) * npc) + 1;
		if (i + 1 < end && e.start_ns + e.dur_ns < next_col) {
			uint32_t j = tix_track_lower_bound(a->ix, t, next_col);
			if (j > i + 2) {
				/* the events skipped start in column c: only what
				 * encloses the last of them can reach further */
				mark_chain(a, p, w, npc, j - 1, next_col);
				i = j;
				continue;
			}
		}
		i++;
	}
	/* the selected event always shows, even where others share its column */
	if (p->sel != TIX_NONE) {
		struct tix_event e;
		tix_event_get(a->ix, p->sel, &e);
		if (e.track == t)
			mark(p, w, npc, e.start_ns, e.start_ns + e.dur_ns, e.row, event_depth(a, &e));
	}
}

static void timeline_draw(struct app *a, struct view *v, int y0, int h)
{
	struct timeline *p = v->priv;
	const struct glyphs *g = draw_glyphs(a);
	int w = COLS - LABEL_W - 1;
	if (w < 4 || h < 3)
		return;
	if (p->ncells != w) {
		free(p->cells);
		p->cells = calloc((size_t)w * MAX_DEPTH, sizeof *p->cells);
		p->ncells = p->cells ? w : 0;
		if (!p->cells)
			return;
	}
	sync_sel(a, v);
	char buf[1024], fit[1024], x[48], y[48];
	/* axis: offsets from the step start */
	int hattr = draw_attr(a, CR_HEADER);
	attron(hattr);
	draw_fill(y0, hattr);
	snprintf(buf, sizeof buf, "%s/col", tix_fmt_dur_unit((p->t1 - p->t0) / w, TIX_TU_AUTO, x, sizeof x));
	draw_text(a, y0, 0, LABEL_W, buf, 1);
	for (int k = 0; k < 4; k++) {
		int col = k * w / 4;
		int64_t t = p->t0 + (int64_t)((double)(p->t1 - p->t0) * k / 4) - p->lo;
		snprintf(buf, sizeof buf, "%s%s%s", g->vline, t < 0 ? "-" : "+", tix_fmt_dur_unit(t < 0 ? -t : t, TIX_TU_AUTO, x, sizeof x));
		draw_text(a, y0, LABEL_W + 1 + col, w - col, buf, 0);
	}
	attroff(hattr);
	int lanes_h = h - 2;
	table_scroll(v, lanes_h);
	/* lanes of several depth lines: scroll until the cursor's lane is whole */
	for (;;) {
		int used = 0;
		for (uint32_t pos = v->top; pos <= v->cursor && pos < v->nvis; pos++) {
			fill_lane(a, p, tl_lane_track(v, v->order[pos]), w);
			used += p->used_depth;
		}
		if (used <= lanes_h || v->top >= v->cursor)
			break;
		v->top++;
	}
	a->body_h = lanes_h;
	for (int r = 0, pos = (int)v->top; r < lanes_h && (uint32_t)pos < v->nvis; pos++) {
		uint32_t t = tl_lane_track(v, v->order[pos]);
		int gpu = tix_track_get(a->ix, t)->kind == TIX_TRACK_GPU;
		fill_lane(a, p, t, w);
		int depth = p->used_depth;
		track_label(a, t, buf, sizeof buf);
		int lattr = (uint32_t)pos == v->cursor ? draw_attr(a, CR_CURSOR) : draw_attr(a, gpu ? CR_GPU : CR_CPU);
		int battr = draw_attr(a, gpu ? CR_GPU : CR_CPU);
		for (int d = 0; d < depth && r < lanes_h; d++, r++) {
			int yy = y0 + 1 + r;
			if (yy < 512)
				a->line_pos[yy] = (uint32_t)pos;
			attron(lattr);
			draw_text(a, yy, 0, LABEL_W, d == 0 ? name_fit(a, buf, LABEL_W, fit, sizeof fit) : "", 1);
			attroff(lattr);
			draw_text(a, yy, LABEL_W, 1, g->vline, 0);
			const uint32_t *cells = p->cells + (size_t)d * (size_t)p->ncells;
			for (int c = 0; c < w;) {
				uint32_t row = cells[c];
				int e = c + 1;
				while (e < w && cells[e] == row)
					e++;
				int xx = LABEL_W + 1 + c;
				if (row == TIX_NONE) {
					draw_text(a, yy, xx, e - c, "", 1);
				} else {
					int sel = row == p->sel;
					int attr = sel ? draw_attr(a, CR_CURSOR) | (int)A_BOLD : battr;
					struct tix_event ev;
					tix_event_get(a->ix, row, &ev);
					if (a->has_search && tl_name_matches(a, p, ev.name))
						attr |= (int)(A_UNDERLINE | A_BOLD); /* what / or n would find */
					int tattr = sel ? attr : attr | (int)A_REVERSE;
					if (e - c >= 4 || sel) {
						/* wide enough for a name: reverse video with the name in it */
						char nm[1024];
						attron(tattr);
						draw_text(a, yy, xx, e - c, name_fit(a, app_name(a, ev.name, nm, sizeof nm), e - c, fit, sizeof fit), 1);
						attroff(tattr);
					} else {
						attron(attr);
						move(yy, xx);
						for (int k = c; k < e; k++)
							addstr(g->busy);
						attroff(attr);
					}
				}
				c = e;
			}
		}
	}
	/* the selected event */
	int yi = y0 + h - 1;
	if (p->sel == TIX_NONE) {
		draw_text(a, yi, 0, COLS, "no event in this lane", 1);
		return;
	}
	struct tix_event ev;
	tix_event_get(a->ix, p->sel, &ev);
	char name[512];
	int64_t rel = ev.start_ns - p->lo;
	/* the name takes the room the rest leaves, cut as names are */
	char tail[128];
	snprintf(tail, sizeof tail, "  %s%s  %s  (Enter: detail)", rel < 0 ? "-" : "+",
	         tix_fmt_dur_unit(rel < 0 ? -rel : rel, TIX_TU_AUTO, x, sizeof x), tix_fmt_dur_unit(ev.dur_ns, TIX_TU_AUTO, y, sizeof y));
	int room = COLS - text_width(a, tix_kind_label(ev.kind)) - 1 - text_width(a, tail);
	snprintf(buf, sizeof buf, "%s %s%s", tix_kind_label(ev.kind),
	         name_fit(a, app_name(a, ev.name, name, sizeof name), room > 8 ? room : 8, fit, sizeof fit), tail);
	int iattr = draw_attr(a, CR_LABEL);
	attron(iattr);
	draw_text(a, yi, 0, COLS, buf, 1);
	attroff(iattr);
}

static int timeline_request(struct app *a, struct view *v, enum req r)
{
	struct timeline *p = v->priv;
	sync_sel(a, v);
	int64_t w = p->t1 - p->t0;
	int64_t minw = (int64_t)(MIN_NS_PER_COL * (COLS > LABEL_W + 5 ? COLS - LABEL_W - 1 : 4));
	uint32_t t = tl_cur_track(v);
	switch (r) {
	case REQ_PREV_EVENT:
	case REQ_NEXT_EVENT: {
		if (t == TIX_NONE)
			return 1;
		const struct tix_track *tr = tix_track_get(a->ix, t);
		if (p->sel == TIX_NONE) {
			p->sel = tl_event_at(a, t, p->t0);
		} else { /* the next (previous) one shown */
			uint32_t i = p->sel, end = tr->first_row + tr->row_count;
			for (;;) {
				if (r == REQ_NEXT_EVENT ? i + 1 >= end : i <= tr->first_row)
					break;
				i += r == REQ_NEXT_EVENT ? 1 : (uint32_t)-1;
				struct tix_event e;
				tix_event_get(a->ix, i, &e);
				if (!tl_hidden(a, e.kind)) {
					p->sel = i;
					break;
				}
			}
		}
		tl_show_sel(a, p);
		return 1;
	}
	case REQ_PYTHON:
		a->python_shown = !a->python_shown;
		if (p->sel != TIX_NONE)
			p->sel = tl_shown_event(a, p->sel);
		app_msg(a, "python frames %s", a->python_shown || a->sum->kind_counts[TIX_KIND_CPU_OP] == 0
		                                   ? "shown (P hides them)" : "hidden (P shows them)");
		return 1;
	case REQ_SCROLL_LEFT:
	case REQ_SCROLL_RIGHT:
	case REQ_LEFT:
	case REQ_RIGHT: {
		/* half a screen with < >, a quarter with the arrows (finer steps) */
		int64_t step = r == REQ_LEFT || r == REQ_RIGHT ? w / 4 : w / 2;
		int64_t d = r == REQ_SCROLL_LEFT || r == REQ_LEFT ? -step : step;
		p->t0 += d;
		p->t1 += d;
		p->sel_t = p->t0 + w / 2;
		if (t != TIX_NONE)
			p->sel = tl_event_at(a, t, p->sel_t);
		return 1;
	}
	case REQ_ZOOM_IN:
	case REQ_ZOOM_OUT: {
		int64_t c = p->t0 + w / 2;
		if (p->sel != TIX_NONE) {
			struct tix_event e;
			tix_event_get(a->ix, p->sel, &e);
			c = e.start_ns + e.dur_ns / 2;
		}
		int64_t nw = r == REQ_ZOOM_IN ? w / 2 : w * 2;
		if (nw < minw)
			nw = minw;
		int64_t maxw = (a->sum->last_ns - a->sum->first_ns) * 2 + 1000;
		if (nw > maxw)
			nw = maxw;
		p->t0 = c - nw / 2;
		p->t1 = p->t0 + nw;
		return 1;
	}
	case REQ_ZOOM_FIT:
		p->t0 = p->lo;
		p->t1 = p->hi;
		return 1;
	case REQ_ENTER: {
		if (p->sel == TIX_NONE) {
			app_msg(a, "no event selected");
			return 1;
		}
		struct view_args va = view_args_none();
		va.row = p->sel;
		app_push(a, &view_detail_ops, &va);
		return 1;
	}
	case REQ_HOTTEST: {
		/* the longest event of the lane on screen */
		if (t == TIX_NONE)
			return 1;
		const struct tix_track *tr = tix_track_get(a->ix, t);
		uint32_t end = tr->first_row + tr->row_count, best = TIX_NONE;
		int64_t max = -1;
		for (uint32_t i = tix_track_lower_bound(a->ix, t, p->t0); i < end; i++) {
			struct tix_event e;
			tix_event_get(a->ix, i, &e);
			if (e.start_ns >= p->t1)
				break;
			if (e.dur_ns > max) {
				max = e.dur_ns;
				best = i;
			}
		}
		if (best != TIX_NONE)
			p->sel = best;
		return 1;
	}
	case REQ_SEARCH_NEXT: tl_search(a, v, 1); return 1;
	case REQ_SEARCH_PREV: tl_search(a, v, -1); return 1;
	case REQ_LINKED: tl_jump_linked(a, v); return 1;
	case REQ_SORT:
	case REQ_SORT_MENU:
	case REQ_SORT_INVERT: app_msg(a, "lanes keep their order"); return 1;
	default: return 0;
	}
}

static const char *timeline_text(struct app *a, struct view *v, uint32_t row, char *buf, size_t cap)
{
	track_label(a, tl_lane_track(v, row), buf, cap);
	return buf;
}

static void timeline_crumb(struct app *a, struct view *v, char *buf, size_t cap)
{
	struct timeline *p = v->priv;
	if (p->step == TIX_NONE)
		snprintf(buf, cap, "timeline");
	else
		snprintf(buf, cap, "timeline of step %u", p->step);
}

static void timeline_context(struct app *a, struct view *v, struct ctx *c)
{
	struct timeline *p = v->priv;
	c->step = p->step;
	if (p->sel != TIX_NONE) {
		struct tix_event e;
		tix_event_get(a->ix, p->sel, &e);
		if (tix_kind_is_gpu_work(e.kind))
			c->row = p->sel;
	}
}

static void timeline_select(struct app *a, struct view *v, const struct ctx *c)
{
	struct timeline *p = v->priv;
	if (c->row == TIX_NONE)
		return;
	struct tix_event e;
	tix_event_get(a->ix, c->row, &e);
	for (uint32_t l = 0; l < v->nrows; l++)
		if (p->lanes[l] == e.track) {
			view_goto_row(v, l);
			p->sel = c->row;
			tl_show_sel(a, p);
		}
}

static const char *timeline_sel_name(struct app *a, struct view *v, char *buf, size_t cap)
{
	struct timeline *p = v->priv;
	if (p->sel == TIX_NONE)
		return NULL;
	struct tix_event e;
	tix_event_get(a->ix, p->sel, &e);
	return app_name(a, e.name, buf, cap);
}

static int timeline_export(struct app *a, struct view *v, struct tix_export_sel *sel, char *path,
                           size_t cap, void **owned)
{
	struct timeline *p = v->priv;
	sel->has_range = 1;
	sel->t0_ns = p->t0;
	sel->t1_ns = p->t1;
	/* the unit in the name, as --range takes it: range-187654us-283270us */
	snprintf(path, cap, "range-%lldus-%lldus", (long long)app_rel(a, p->t0) / 1000,
	         (long long)app_rel(a, p->t1) / 1000);
	return 0;
}

const struct view_ops view_timeline_ops = {
	.name = "Timeline",
	.rows_name = "lanes",
	.kind = VK_TIMELINE,
	.cols = NULL,
	.ncols = 0,
	.default_sort = -1,
	.open = timeline_open,
	.close = timeline_close,
	.text = timeline_text,
	.request = timeline_request,
	.crumb = timeline_crumb,
	.context = timeline_context,
	.select = timeline_select,
	.export_sel = timeline_export,
	.sel_name = timeline_sel_name,
	.draw = timeline_draw,
};
