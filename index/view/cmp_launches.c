/*
 * The launches of one kernel on both sides of a compare: a summary row per
 * side (its launches, their time, the most common grid and block, the
 * Input Dims of the op that launched the first one), then each side's
 * launches in time order, as its Launches view has them, with the Input
 * Dims of the op that launched each.  So a grid or shape that the fix
 * changed reads in one column, base over new.
 */
#include "index/view/view_int.h"
#include "index/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { C_SIDE, C_NUM, C_START, C_DUR, C_GRID, C_BLOCK, C_DIMS, C_BY, C_ROW, C_NAME, C_START_NS };

static const struct tix_col cols[] = {
	[C_SIDE] = {"Side", 4, TIX_COL_ASC, 0, "side", TIX_UNIT_TEXT},
	[C_NUM] = {"#", 6, TIX_COL_RIGHT | TIX_COL_ASC, 0, "index", TIX_UNIT_INT},
	[C_START] = {"Start", 10, TIX_COL_RIGHT | TIX_COL_ASC, 2, "offset_ns", TIX_UNIT_TIME},
	[C_DUR] = {"Duration", 9, TIX_COL_RIGHT, 0, "dur_ns", TIX_UNIT_DUR},
	[C_GRID] = {"Grid", 12, 0, 0, "grid", TIX_UNIT_DIM3},
	[C_BLOCK] = {"Block", 10, 0, 1, "block", TIX_UNIT_DIM3},
	[C_DIMS] = {"Input Dims", 24, TIX_COL_FLEX | TIX_COL_ASC, 0, "input_dims", TIX_UNIT_TEXT},
	[C_BY] = {"Launched by", 16, TIX_COL_ASC | TIX_COL_FIT, 1, "launched_by", TIX_UNIT_TEXT},
	[C_ROW] = {"Row", 0, TIX_COL_DATA | TIX_COL_ASC, 0, "row", TIX_UNIT_INT},
	[C_NAME] = {"Name", 0, TIX_COL_DATA | TIX_COL_ASC, 0, "name", TIX_UNIT_NAME},
	[C_START_NS] = {"Start (trace clock)", 0, TIX_COL_DATA | TIX_COL_ASC, 0, "start_ns", TIX_UNIT_INT},
};

struct cl {
	struct tix_compare_totals t;    /* first: tix_compare_totals reads it */
	struct tix_index *ix[2];
	struct tix_view *side[2];       /* each side's Launches view, NULL where absent */
	uint32_t n[2];
	const struct tix_group *g[2];   /* the group in scope on each side */
	char label[2][48];              /* "78 launches" */
	int side_col[2][C_START_NS + 1]; /* each column in the side's view, -1 */
	struct tix_cell *keys;          /* the cells of column keys_col, for sorting */
	int keys_col;
	/* Input Dims written over several lines (vLLM), each folded once:
	 * the index's text and its one-line copy */
	const char **multi;
	char **one;
	size_t nmulti, capmulti;
};

static int cl_open(struct tix_view *v, struct tix_error *err)
{
	struct cl *p = calloc(1, sizeof *p);
	if (!p)
		return tix_error_oom(err, tix_index_path(v->ix));
	p->ix[0] = v->ix;
	p->ix[1] = v->other;
	uint32_t st = v->cmp.step;
	if (st != TIX_NONE && (st >= tix_step_count(p->ix[0]) || st >= tix_step_count(p->ix[1])))
		st = TIX_NONE;
	view_cmp_totals(p->ix, st, &p->t);
	for (int k = 0; k < 2; k++) {
		uint32_t g = v->cmp.group[k];
		if (g == TIX_NONE)
			continue;
		struct tix_view_scope sc = tix_view_scope_all();
		sc.group = g;
		if (v->cmp.step != TIX_NONE && tix_step_get(p->ix[k], v->cmp.step))
			sc.step = v->cmp.step;
		p->side[k] = tix_view_new(p->ix[k], TIX_VIEW_LAUNCHES, &sc, err);
		if (!p->side[k]) {
			tix_view_free(p->side[0]);
			free(p);
			return -1;
		}
		p->n[k] = tix_view_rows(p->side[k]);
		for (int c = 0; c <= C_START_NS; c++)
			p->side_col[k][c] = tix_view_col(p->side[k], cols[c].key);
		p->g[k] = tix_group_get(p->ix[k], g);
		if (tix_view_scope(p->side[k])->step != TIX_NONE) {
			uint32_t ns;
			const struct tix_group *sg = tix_step_groups(p->ix[k], sc.step, &ns);
			for (uint32_t i = 0; i < ns; i++)
				if (sg[i].group == g)
					p->g[k] = &sg[i];
		}
		snprintf(p->label[k], sizeof p->label[k], "%u launch%s", p->n[k], p->n[k] == 1 ? "" : "es");
	}
	p->keys_col = -1;
	v->priv = p;
	v->pinned = 2;
	v->nrows = 2 + p->n[0] + p->n[1];
	return 0;
}

static void cl_close(struct tix_view *v)
{
	struct cl *p = v->priv;
	tix_view_free(p->side[0]);
	tix_view_free(p->side[1]);
	free(p->keys);
	for (size_t i = 0; i < p->nmulti; i++)
		free(p->one[i]);
	free(p->multi);
	free(p->one);
	free(p);
}

/* Which side a row is on and its row there (TIX_NONE: the summary row). */
static int side_of(const struct cl *p, uint32_t row, uint32_t *inner)
{
	if (row < 2) {
		*inner = TIX_NONE;
		return (int)row;
	}
	row -= 2;
	if (row < p->n[0]) {
		*inner = row;
		return 0;
	}
	*inner = row - p->n[0];
	return 1;
}

/* s on one line, as show writes it: itself, or a copy folded once. */
static const char *one_line(const struct cl *pc, const char *s)
{
	struct cl *p = (struct cl *)pc; /* a cache of pure answers */
	if (!s || !strchr(s, '\n'))
		return s;
	for (size_t i = 0; i < p->nmulti; i++)
		if (p->multi[i] == s)
			return p->one[i];
	if (p->nmulti == p->capmulti) {
		size_t cap = tix_grow_cap(p->capmulti, p->nmulti + 1, 16, SIZE_MAX / sizeof(char *)); /* both */
		if (!cap)
			return "(out of memory)";
		const char **m = realloc(p->multi, cap * sizeof *m);
		if (m)
			p->multi = m;
		char **o = m ? realloc(p->one, cap * sizeof *o) : NULL;
		if (!o)
			return "(out of memory)";
		p->one = o;
		p->capmulti = cap;
	}
	char buf[4096];
	char *f = strdup(tix_fold_ws(s, buf, sizeof buf));
	if (!f)
		return "(out of memory)";
	p->multi[p->nmulti] = s;
	p->one[p->nmulti++] = f;
	return f;
}

/* The Input Dims of the innermost CPU op above a GPU event's launch. */
static const char *launch_dims(struct tix_index *ix, uint32_t event)
{
	struct tix_event e;
	tix_event_get(ix, event, &e);
	if (e.launch == TIX_NONE)
		return NULL;
	uint32_t op = tix_event_ancestor_of_kind(ix, e.launch, TIX_KIND_CPU_OP, 128); /* the walk stops there */
	if (op == TIX_NONE)
		return NULL;
	struct tix_event up;
	tix_event_get(ix, op, &up);
	if (up.op_info == TIX_NONE)
		return NULL;
	uint32_t dims = tix_op_info_get(ix, up.op_info)->dims;
	return dims == TIX_NONE ? NULL : tix_str(ix, dims);
}

static void cl_cell(const struct tix_view *v, uint32_t row, int col, struct tix_cell *c)
{
	const struct cl *p = v->priv;
	uint32_t inner;
	int k = side_of(p, row, &inner);
	if (col == C_SIDE) {
		c->known = 1;
		c->s = k ? "new" : "base";
		return;
	}
	if (inner == TIX_NONE) { /* the side's summary */
		const struct tix_group *g = p->g[k];
		if (!g) {
			if (col == C_BY)
				c->s = "(no such kernel on this side)";
			return;
		}
		const struct tix_kernel_info *ki =
			g->common_info != TIX_NONE ? tix_kernel_info_get(p->ix[k], g->common_info) : NULL;
		switch (col) {
		case C_NUM: c->s = "all"; return;
		case C_START: c->s = ""; return;
		case C_DUR: cell_int(c, g->total_ns); return;
		case C_GRID:
		case C_BLOCK:
			if (ki && tix_dim3_known(col == C_GRID ? ki->grid : ki->block)) {
				c->known = 1;
				memcpy(c->dim, col == C_GRID ? ki->grid : ki->block, sizeof c->dim);
			}
			return;
		case C_DIMS: {
			const uint32_t *m = tix_members(p->ix[k], g->members_first, g->members_count);
			const char *d = one_line(p, m && g->members_count ? launch_dims(p->ix[k], m[0]) : NULL);
			c->known = d != NULL;
			c->s = d;
			return;
		}
		case C_BY: c->known = 1; c->s = p->label[k]; return;
		case C_NAME: cell_int(c, g->name); c->ix = p->ix[k]; return;
		}
		return;
	}
	const struct tix_view *sv = p->side[k];
	if (col == C_DIMS) {
		struct tix_view_ref r;
		tix_view_ref(sv, inner, &r);
		const char *d = one_line(p, launch_dims(p->ix[k], r.event));
		c->known = d != NULL;
		c->s = d;
		return;
	}
	tix_view_cell(sv, inner, p->side_col[k][col], c);
	if (cols[col].unit == TIX_UNIT_NAME)
		c->ix = p->ix[k];
}

/* A sort compares each row ~15 times; each cell costs a decoded event and,
 * for Input Dims and Launched by, a walk up from its launch: the column's
 * cells are made once (20K rows: 60-85 ms a sort before, on two 485 MB
 * traces) and compared as tix_view_cmp compares them. */
static int cl_cmp(const struct tix_view *v, uint32_t ra, uint32_t rb, int col)
{
	struct cl *p = v->priv;
	if (p->keys_col != col) {
		if (!p->keys)
			p->keys = malloc((v->nrows ? v->nrows : 1) * sizeof *p->keys);
		if (p->keys) {
			for (uint32_t r = 0; r < v->nrows; r++) {
				memset(&p->keys[r], 0, sizeof p->keys[r]);
				cl_cell(v, r, col, &p->keys[r]);
			}
			p->keys_col = col;
		}
	}
	if (!p->keys || ra >= v->nrows || rb >= v->nrows) { /* out of memory: cell by cell */
		struct tix_cell x, y;
		tix_view_cell(v, ra, col, &x);
		tix_view_cell(v, rb, col, &y);
		return view_cmp_cells(v, col, &x, &y);
	}
	return view_cmp_cells(v, col, &p->keys[ra], &p->keys[rb]);
}

void view_cmp_launches_ref(const struct tix_view *v, uint32_t row, struct tix_compare_ref *out)
{
	const struct cl *p = v->priv;
	uint32_t inner;
	int k = side_of(p, row, &inner);
	out->side = k;
	out->group[0] = v->cmp.group[0];
	out->group[1] = v->cmp.group[1];
	out->event = TIX_NONE; /* a side's summary row: no launch */
	if (inner != TIX_NONE) {
		struct tix_view_ref r;
		tix_view_ref(p->side[k], inner, &r);
		out->event = r.event;
	}
}

static void cl_ref(const struct tix_view *v, uint32_t row, struct tix_view_ref *out)
{
	struct tix_compare_ref r;
	view_cmp_launches_ref(v, row, &r);
	out->step = v->cmp.step;
	out->group = r.group[r.side];
	out->event = r.event;
}

const struct view_kind_ops view_cmp_launches_kind = {
	.cols = cols,
	.ncols = sizeof cols / sizeof cols[0],
	.rank_col = C_DUR,
	.open = cl_open,
	.close = cl_close,
	.cell = cl_cell,
	.cmp = cl_cmp,
	.ref = cl_ref,
};
