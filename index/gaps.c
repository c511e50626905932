/* The longest gap of one cause over all streams of a step (index/index.h,
 * tix_longest_gap): the gaps the breakdown counts (docs/FINDINGS.md,
 * section 2), found again where a face needs one to point at.  The build
 * keeps their sums by cause, not where they are. */
#include "index/index.h"

#include <stdlib.h>

#include "index/rules.h"

struct gpu_ev {
	int64_t start, end;
	uint32_t row;
};

/* Start order, the lowest row first among those that start together (the
 * event whose cause a gap takes). */
static int by_start(const void *pa, const void *pb)
{
	const struct gpu_ev *x = pa, *y = pb;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

/* The cause of the gap [g0, g0 + gap) ended by GPU row next. */
static enum tix_gap_cause cause_of(const struct tix_index *ix, int64_t g0, int64_t gap, uint32_t next)
{
	int64_t launch_dur, launch_ns = INT64_MIN;
	uint32_t call = tix_event_launch(ix, next, &launch_dur);
	if (call != TIX_NONE) {
		struct tix_event e;
		tix_event_get(ix, call, &e);
		launch_ns = e.start_ns;
	}
	switch (tix_rule_idle_cause(g0, gap, launch_ns)) {
	case TIX_IDLE_HOST: return TIX_GAP_HOST;
	case TIX_IDLE_KERNEL: return TIX_GAP_KERNEL;
	case TIX_IDLE_OTHER: break;
	}
	return TIX_GAP_OTHER;
}

int tix_longest_gap(const struct tix_index *ix, uint32_t s, enum tix_gap_cause cause, struct tix_gap *out)
{
	uint32_t ng, n = 0;
	const struct tix_group *g = tix_step_groups(ix, s, &ng);
	for (uint32_t i = 0; g && i < ng; i++)
		n += g[i].members_count;
	struct gpu_ev *ev = malloc((n ? n : 1) * sizeof(*ev));
	if (!ev)
		return -1;
	n = 0;
	for (uint32_t i = 0; g && i < ng; i++) {
		const uint32_t *m = tix_members(ix, g[i].members_first, g[i].members_count);
		for (uint32_t k = 0; m && k < g[i].members_count; k++) {
			struct tix_event e;
			tix_event_get(ix, m[k], &e);
			ev[n++] = (struct gpu_ev){e.start_ns, e.start_ns + e.dur_ns, m[k]};
		}
	}
	qsort(ev, n, sizeof(*ev), by_start);
	int found = 0;
	int64_t end = n ? ev[0].end : 0;
	for (uint32_t i = 1; i < n; i++) {
		if (ev[i].start > end) {
			int64_t gap = ev[i].start - end;
			enum tix_gap_cause c = cause_of(ix, end, gap, ev[i].row);
			if ((cause == TIX_GAP_ANY || c == cause) && (!found || gap > out->dur_ns)) {
				*out = (struct tix_gap){end, gap, ev[i].row, c};
				found = 1;
			}
		}
		if (ev[i].end > end)
			end = ev[i].end;
	}
	free(ev);
	return found;
}
