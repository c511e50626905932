/*
 * Launches: single GPU events, in time order: the members of one group (in
 * a step or overall, or only those beneath one CPU op), or rows the caller
 * chose (tix show's matches).  Start counts from the step's start when a
 * step is given, else from the trace's.  Sorting decodes the rows once into
 * a key table (35K launches of a kernel sort in milliseconds).
 */
#include "index/view/view_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { C_NUM, C_START, C_DUR, C_GRID, C_BLOCK, C_REGS, C_SHARED, C_STREAM, C_OCC, C_STEP, C_BY,
       C_ROW, C_NAME, C_START_NS };

static const struct tix_col cols[] = {
	[C_NUM] = {"#", 6, TIX_COL_RIGHT | TIX_COL_ASC, 0, "index", TIX_UNIT_INT},
	[C_START] = {"Start", 10, TIX_COL_RIGHT | TIX_COL_ASC, 0, "offset_ns", TIX_UNIT_TIME},
	[C_DUR] = {"Duration", 9, TIX_COL_RIGHT, 0, "dur_ns", TIX_UNIT_DUR},
	[C_GRID] = {"Grid", 12, 0, 0, "grid", TIX_UNIT_DIM3},
	[C_BLOCK] = {"Block", 10, 0, 0, "block", TIX_UNIT_DIM3},
	[C_REGS] = {"Regs", 4, TIX_COL_RIGHT, 2, "registers", TIX_UNIT_INT},
	[C_SHARED] = {"Shared", 8, TIX_COL_RIGHT, 3, "shared_bytes", TIX_UNIT_BYTES},
	[C_STREAM] = {"Stream", 6, TIX_COL_RIGHT | TIX_COL_ASC, 3, "stream", TIX_UNIT_INT},
	[C_OCC] = {"Occ%", 5, TIX_COL_RIGHT, 3, "occupancy_pct", TIX_UNIT_PCT},
	[C_STEP] = {"Step", 5, TIX_COL_RIGHT | TIX_COL_ASC, 4, "step", TIX_UNIT_INT},
	[C_BY] = {"Launched by", 12, TIX_COL_FLEX | TIX_COL_ASC, 0, "launched_by", TIX_UNIT_TEXT},
	[C_ROW] = {"Row", 0, TIX_COL_DATA | TIX_COL_ASC, 0, "row", TIX_UNIT_INT},
	[C_NAME] = {"Name", 0, TIX_COL_DATA | TIX_COL_ASC, 0, "name", TIX_UNIT_NAME},
	[C_START_NS] = {"Start (trace clock)", 0, TIX_COL_DATA | TIX_COL_ASC, 0, "start_ns", TIX_UNIT_INT},
};

struct lkey {
	int64_t dur, grid, block;
	int32_t regs, shared, stream, occ;
	uint32_t step, by;
};

struct launches {
	const uint32_t *members;
	uint32_t *owned;             /* members beneath the op, when scoped to one */
	int64_t base;                /* Start counts from it */
	struct lkey *keys;           /* built on the first sort */
};

static int launches_open(struct tix_view *v, struct tix_error *err)
{
	struct tix_index *ix = v->ix;
	struct launches *p = calloc(1, sizeof *p);
	if (!p)
		return tix_error_oom(err, tix_index_path(v->ix));
	p->base = v->first_ns;
	uint32_t n;
	if (v->scope.rows) {
		p->members = v->scope.rows;
		n = v->scope.nrows;
	} else {
		if (v->scope.group == TIX_NONE || v->scope.group >= tix_group_count(ix)) {
			free(p);
			return tix_error_set(err, "no kernel group %u in the index", v->scope.group);
		}
		const struct tix_group *g = tix_group_get(ix, v->scope.group);
		if (v->scope.step != TIX_NONE) {
			uint32_t ns;
			const struct tix_group *sg = tix_step_groups(ix, v->scope.step, &ns), *found = NULL;
			for (uint32_t i = 0; i < ns && !found; i++)
				if (sg[i].group == v->scope.group)
					found = &sg[i];
			if (found)
				g = found;
			else
				v->scope.step = TIX_NONE; /* not in that step: all its launches */
		}
		p->members = tix_members(ix, g->members_first, g->members_count);
		n = g->members_count;
		if (v->scope.op != TIX_NONE && v->scope.op < tix_op_count(ix)) {
			/* opened under an op: the launches beneath an instance of it
			 * (a copy when the op launched them all, else one walk) */
			p->owned = malloc(((size_t)n + 1) * sizeof *p->owned);
			long k = p->owned ? tix_group_beneath_op(ix, g, v->scope.op, p->owned) : -1;
			if (k < 0) {
				free(p->owned);
				free(p);
				return tix_error_oom(err, tix_index_path(v->ix));
			}
			n = (uint32_t)k;
			p->members = p->owned;
		}
	}
	if (v->scope.step != TIX_NONE && tix_step_get(ix, v->scope.step))
		p->base = tix_step_get(ix, v->scope.step)->start_ns;
	v->nrows = n;
	v->priv = p;
	return 0;
}

static void launches_close(struct tix_view *v)
{
	struct launches *p = v->priv;
	free(p->keys);
	free(p->owned);
	free(p);
}

static const struct tix_kernel_info *info_of(const struct tix_index *ix, const struct tix_event *e)
{
	return e->kernel_info == TIX_NONE ? NULL : tix_kernel_info_get(ix, e->kernel_info);
}

/* The innermost CPU op above a launch, or TIX_NONE. */
static uint32_t launcher_op(const struct tix_index *ix, const struct tix_event *ev)
{
	if (ev->launch == TIX_NONE)
		return TIX_NONE;
	/* among the first 256 ancestors; the walk stops at the op (its parent,
	 * most often), not at the top of the thread's stack */
	uint32_t op = tix_event_ancestor_of_kind(ix, ev->launch, TIX_KIND_CPU_OP, 256);
	if (op == TIX_NONE)
		return TIX_NONE;
	struct tix_event e;
	tix_event_get(ix, op, &e);
	return e.name;
}

static void dim3(struct tix_cell *c, const int32_t d[3])
{
	if (!tix_dim3_known(d))
		return;
	c->known = 1;
	memcpy(c->dim, d, sizeof c->dim);
}

static void launches_cell(const struct tix_view *v, uint32_t row, int col, struct tix_cell *c)
{
	const struct launches *p = v->priv;
	struct tix_event ev;
	tix_event_get(v->ix, p->members[row], &ev);
	const struct tix_kernel_info *ki = info_of(v->ix, &ev);
	switch (col) {
	case C_NUM: cell_int(c, row); return;
	case C_ROW: cell_int(c, ev.row); return;
	case C_START: cell_int(c, ev.start_ns - p->base); return;
	case C_START_NS: cell_int(c, ev.start_ns); return;
	case C_DUR: cell_maybe(c, ev.flags & TIX_ROW_OPEN_END ? -1 : ev.dur_ns); return;
	case C_GRID:
		if (ki)
			dim3(c, ki->grid);
		return;
	case C_BLOCK:
		if (ki)
			dim3(c, ki->block);
		return;
	case C_REGS: cell_maybe(c, ki ? ki->registers : -1); return;
	case C_SHARED: cell_maybe(c, ki ? ki->shared_mem : -1); return;
	case C_STREAM: cell_maybe(c, ki ? ki->stream : -1); return;
	case C_OCC:
		if (ki && ki->occupancy >= 0) { /* Kineto gives a percent */
			c->known = 1;
			c->d = ki->occupancy;
		}
		return;
	case C_STEP: {
		uint32_t s = tix_event_step(v->ix, ev.row);
		if (s != TIX_NONE && s < tix_step_count(v->ix))
			cell_int(c, s);
		return;
	}
	case C_BY: {
		c->known = 1;
		if (ev.launch == TIX_NONE) {
			c->s = ev.flags & TIX_ROW_GRAPH_REPLAY ? "(CUDA graph replay)"
			       : ev.flags & TIX_ROW_BEFORE_TRACE ? "(launched before the trace)"
			                                         : "(lost correlation or flow)";
			return;
		}
		uint32_t op = launcher_op(v->ix, &ev);
		c->s = op == TIX_NONE ? "(no CPU op)" : tix_str(v->ix, op);
		return;
	}
	case C_NAME: cell_int(c, ev.name); return;
	}
}

static void build_keys(const struct tix_view *v, struct launches *p)
{
	p->keys = calloc(v->nrows ? v->nrows : 1, sizeof *p->keys);
	for (uint32_t i = 0; p->keys && i < v->nrows; i++) {
		struct tix_event ev;
		tix_event_get(v->ix, p->members[i], &ev);
		const struct tix_kernel_info *ki = info_of(v->ix, &ev);
		struct lkey *k = &p->keys[i];
		k->dur = ev.dur_ns;
		k->step = tix_event_step(v->ix, ev.row);
		k->by = launcher_op(v->ix, &ev);
		k->regs = k->shared = k->stream = k->occ = -1;
		if (ki) {
			k->grid = (int64_t)ki->grid[0] * ki->grid[1] * ki->grid[2];
			k->block = (int64_t)ki->block[0] * ki->block[1] * ki->block[2];
			k->regs = ki->registers;
			k->shared = ki->shared_mem;
			k->stream = ki->stream;
			k->occ = ki->occupancy >= 0 ? (int32_t)(ki->occupancy * 1000) : -1;
		}
	}
}

static int big_first(int64_t x, int64_t y)
{
	return (x < y) - (x > y);
}

static int launches_cmp(const struct tix_view *v, uint32_t ra, uint32_t rb, int col)
{
	struct launches *p = v->priv;
	if (!p->keys) /* a cache of pure answers, built once */
		build_keys(v, p);
	if (!p->keys)
		return 0;
	const struct lkey *x = &p->keys[ra], *y = &p->keys[rb];
	switch (col) {
	case C_DUR: return big_first(x->dur, y->dur);
	case C_GRID: return big_first(x->grid, y->grid);
	case C_BLOCK: return big_first(x->block, y->block);
	case C_REGS: return big_first(x->regs, y->regs);
	case C_SHARED: return big_first(x->shared, y->shared);
	case C_STREAM: return -big_first(x->stream, y->stream);
	case C_OCC: return big_first(x->occ, y->occ);
	case C_STEP: return -big_first(x->step, y->step);
	case C_BY: return x->by == y->by ? 0 : strcmp(tix_str(v->ix, x->by), tix_str(v->ix, y->by));
	case C_NAME: {
		struct tix_event a, b;
		tix_event_get(v->ix, p->members[ra], &a);
		tix_event_get(v->ix, p->members[rb], &b);
		return a.name == b.name ? 0 : strcmp(tix_str(v->ix, a.name), tix_str(v->ix, b.name));
	}
	}
	return -big_first(ra, rb); /* #, Start, Row: the natural (time) order */
}

static void launches_ref(const struct tix_view *v, uint32_t row, struct tix_view_ref *out)
{
	const struct launches *p = v->priv;
	out->step = v->scope.step;
	out->group = v->scope.group;
	out->op = v->scope.op;
	out->event = p->members[row];
}

const struct view_kind_ops view_launches_kind = {
	.cols = cols,
	.ncols = sizeof cols / sizeof cols[0],
	.rank_col = C_DUR,
	.open = launches_open,
	.close = launches_close,
	.cell = launches_cell,
	.cmp = launches_cmp,
	.ref = launches_ref,
};
