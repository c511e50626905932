/* Inside the timeline (view_timeline.c: lanes and drawing; timeline_nav.c:
 * which event is selected, and moving it): its state and shared steps. */
#ifndef TIX_TUI_TIMELINE_INT_H
#define TIX_TUI_TIMELINE_INT_H

#include "tui/view.h"

struct timeline {
	uint32_t step;
	int64_t lo, hi;          /* the step's extent: z shows it */
	int64_t t0, t1;          /* the window on screen */
	uint32_t *lanes;         /* track ids, one per view row */
	uint32_t sel;            /* selected event row, TIX_NONE */
	int64_t sel_t;           /* time the cursor follows across lanes */
	unsigned char *memo;     /* per string id: 0 unknown, 1 matches the search, 2 not */
	char memo_pat[256];
	uint32_t *cells;         /* scratch: event row per depth and screen column */
	int ncells;              /* columns per depth row */
	int used_depth;          /* depth rows the last fill_lane marked */
};

/* A kind the lanes do not draw now (python frames while ops are there). */
int tl_hidden(struct app *a, enum tix_kind k);
/* The event at row, or its innermost enclosing one shown; TIX_NONE. */
uint32_t tl_shown_event(struct app *a, uint32_t row);
/* Track t's event at time tm (shown), else the next one; TIX_NONE. */
uint32_t tl_event_at(struct app *a, uint32_t t, int64_t tm);
/* The first GPU work or CPU op of p's step on track t, on screen. */
uint32_t tl_first_of_step(struct app *a, const struct timeline *p, uint32_t t);
/* Whether a name matches the search (memoized per string). */
int tl_name_matches(struct app *a, struct timeline *p, uint32_t name);
/* n / N: the next or previous match in the cursor's lane. */
void tl_search(struct app *a, struct view *v, int dir);
/* o: from a launch call to its GPU work and back. */
void tl_jump_linked(struct app *a, struct view *v);
/* Pans so that the selection is on screen. */
void tl_show_sel(struct app *a, struct timeline *p);
uint32_t tl_lane_track(struct view *v, uint32_t lane);
uint32_t tl_cur_track(struct view *v);

#endif
