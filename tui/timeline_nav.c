/* The timeline's selection: which events the lanes show (python frames
 * hide while there are CPU ops), the event at a time, search within a lane
 * and o between a launch call and its GPU work. */
#include <stdlib.h>
#include <string.h>

#include "tui/table.h"
#include "tui/timeline_int.h"

/* Python frames hide while the trace has CPU ops to show (P shows them):
 * with them, the ops the GPU work came from sink below the lane's depth. */
int tl_hidden(struct app *a, enum tix_kind k)
{
	return k == TIX_KIND_PYTHON && !a->python_shown && a->sum->kind_counts[TIX_KIND_CPU_OP] > 0;
}

/* The event at row, or its innermost enclosing one that is not hidden;
 * TIX_NONE when all of them are. */
uint32_t tl_shown_event(struct app *a, uint32_t row)
{
	for (int d = 0; row != TIX_NONE && d < 64; d++) {
		struct tix_event e;
		tix_event_get(a->ix, row, &e);
		if (!tl_hidden(a, e.kind))
			return row;
		row = e.parent;
	}
	return TIX_NONE;
}

/* The event of track t at time tm: the last one starting at or before it
 * (its innermost enclosing one on a CPU thread), else the next one. */
uint32_t tl_event_at(struct app *a, uint32_t t, int64_t tm)
{
	const struct tix_track *tr = tix_track_get(a->ix, t);
	if (tr->row_count == 0)
		return TIX_NONE;
	uint32_t i = tix_track_lower_bound(a->ix, t, tm + 1), end = tr->first_row + tr->row_count;
	if (i > tr->first_row) {
		uint32_t s = tl_shown_event(a, i - 1);
		if (s != TIX_NONE)
			return s;
	}
	for (; i < end; i++) { /* the next one shown */
		struct tix_event e;
		tix_event_get(a->ix, i, &e);
		if (!tl_hidden(a, e.kind))
			return i;
	}
	return TIX_NONE;
}

/* The first GPU work or CPU op of the step in lane l, on screen: what the
 * timeline selects when it opens on a step. */
uint32_t tl_first_of_step(struct app *a, const struct timeline *p, uint32_t t)
{
	const struct tix_track *tr = tix_track_get(a->ix, t);
	uint32_t end = tr->first_row + tr->row_count;
	for (uint32_t i = tix_track_lower_bound(a->ix, t, p->lo), k = 0; i < end && k < 4096; i++, k++) {
		struct tix_event e;
		tix_event_get(a->ix, i, &e);
		if (e.start_ns >= p->hi)
			break;
		if (!(tix_kind_is_gpu_work(e.kind) || e.kind == TIX_KIND_CPU_OP))
			continue;
		if (p->step == TIX_NONE || tix_event_step(a->ix, i) == p->step)
			return i;
	}
	return TIX_NONE;
}

int tl_name_matches(struct app *a, struct timeline *p, uint32_t name)
{
	if (!p->memo || strcmp(p->memo_pat, a->search) != 0) {
		free(p->memo);
		p->memo = calloc(a->sum->strings + 1, 1);
		snprintf(p->memo_pat, sizeof p->memo_pat, "%s", a->search);
		if (!p->memo)
			return 0;
	}
	if (name >= a->sum->strings)
		return pattern_match(&a->search_re, tix_str(a->ix, name));
	if (!p->memo[name])
		p->memo[name] = pattern_match(&a->search_re, tix_str(a->ix, name)) ? 1 : 2;
	return p->memo[name] == 1;
}

/* Next/previous event in the cursor's lane whose name matches the search. */
void tl_search(struct app *a, struct view *v, int dir)
{
	struct timeline *p = v->priv;
	if (!a->has_search) {
		app_msg(a, "no search yet: press / first");
		return;
	}
	uint32_t t = tl_cur_track(v);
	if (t == TIX_NONE)
		return;
	const struct tix_track *tr = tix_track_get(a->ix, t);
	uint32_t end = tr->first_row + tr->row_count;
	uint32_t i = p->sel == TIX_NONE ? tr->first_row : p->sel;
	for (uint32_t k = 0; k < tr->row_count; k++) {
		if (dir > 0)
			i = i + 1 >= end ? tr->first_row : i + 1;
		else
			i = i <= tr->first_row ? end - 1 : i - 1;
		struct tix_event e;
		tix_event_get(a->ix, i, &e);
		if (tl_name_matches(a, p, e.name)) {
			p->sel = i;
			tl_show_sel(a, p);
			return;
		}
	}
	app_msg(a, "not found in this lane: %s", a->search);
}

/* o: from a launch call to the GPU work it launched, and back.  A kernel
 * knows its launch row; a launch call finds its kernel by looking, on the GPU
 * lanes, at the work that starts after the call whose launch is this row. */
void tl_jump_linked(struct app *a, struct view *v)
{
	struct timeline *p = v->priv;
	if (p->sel == TIX_NONE) {
		app_msg(a, "no event selected");
		return;
	}
	struct tix_event e;
	tix_event_get(a->ix, p->sel, &e);
	uint32_t target = TIX_NONE;
	if (tix_kind_is_gpu_work(e.kind)) {
		target = e.launch;
		if (target == TIX_NONE) {
			app_msg(a, "no launch call known for this GPU work");
			return;
		}
	} else {
		/* GPU work starts after its launch; search each GPU lane forward a
		 * bounded number of events (a kernel rarely queues behind more) */
		for (uint32_t l = 0; l < v->nrows && target == TIX_NONE; l++) {
			uint32_t t = p->lanes[l];
			const struct tix_track *tr = tix_track_get(a->ix, t);
			if (tr->kind != TIX_TRACK_GPU)
				continue;
			uint32_t end = tr->first_row + tr->row_count;
			for (uint32_t i = tix_track_lower_bound(a->ix, t, e.start_ns), k = 0;
			     i < end && k < 4096; i++, k++) {
				struct tix_event g;
				tix_event_get(a->ix, i, &g);
				if (g.launch == p->sel) {
					target = i;
					break;
				}
			}
		}
		if (target == TIX_NONE) {
			app_msg(a, "no GPU work launched by this event in the lanes");
			return;
		}
	}
	struct tix_event t;
	tix_event_get(a->ix, target, &t);
	for (uint32_t l = 0; l < v->nrows; l++)
		if (p->lanes[l] == t.track) {
			view_goto_row(v, l);
			break;
		}
	p->sel = target;
	tl_show_sel(a, p);
	app_msg(a, "%s", tix_kind_is_gpu_work(t.kind) ? "the GPU work of this launch (o: back)"
	                                              : "the launch call of this GPU work (o: back)");
}

