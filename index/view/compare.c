/*
 * Two traces side by side: what changed between a base and a new trace of
 * the same workload (a fix, a config change), by kernel, CPU op, step,
 * (op, Input Dims), and the launches of one kernel on both sides.
 *
 * Each side's rows are keyed (GPU work by full name and kind, an op by its
 * name, a step by its position, a shape by op name and Input Dims), the two
 * key-sorted lists merged, and the merged rows sorted by the absolute
 * change of their time (steps stay in order).  When the traces have
 * different numbers of steps and no step is chosen, times are compared per
 * step (each side's total over its step count): a 30-step and a 20-step
 * profile of the same server are comparable; the shown time columns are
 * then the per-step ones (another column table), CSV and JSON carry both.
 */
#include "index/view/compare_int.h"
#include "index/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct crow *cmp_add(struct cmp *c)
{
	if (tix_grow(&c->rows, &c->cap, c->n + 1, sizeof *c->rows, 256) != 0)
		return NULL;
	struct crow *r = &c->rows[c->n++];
	memset(r, 0, sizeof *r);
	r->total[0] = r->total[1] = -1;
	r->name[0] = r->name[1] = r->group[0] = r->group[1] = TIX_NONE;
	return r;
}

/* Hands the string d to c (which frees it); 0, or -1 when memory runs out. */
static int cmp_take(struct cmp *c, char *d)
{
	if (tix_grow(&c->owned, &c->capowned, c->nowned + 1, sizeof *c->owned, 64) != 0)
		return -1;
	c->owned[c->nowned++] = d;
	return 0;
}

const char *cmp_own(struct cmp *c, const char *s)
{
	char *d = strdup(s);
	if (d && cmp_take(c, d) != 0) {
		free(d);
		d = NULL;
	}
	return d;
}

void cmp_done(struct cmp *c)
{
	for (size_t i = 0; i < c->nowned; i++)
		free(c->owned[i]);
	free(c->owned);
	free(c->rows);
	memset(c, 0, sizeof *c);
}

/* out takes over the strings of from */
static int cmp_take_strings(struct cmp *out, struct cmp *from)
{
	for (; from->nowned > 0; from->nowned--) {
		if (cmp_take(out, from->owned[from->nowned - 1]) != 0)
			return -1; /* from still owns the rest */
	}
	return 0;
}

static int cmp_key(const struct crow *a, const struct crow *b)
{
	int c = strcmp(a->key, b->key);
	if (!c)
		c = strcmp(a->kind, b->kind);
	if (!c)
		c = strcmp(a->dims ? a->dims : "", b->dims ? b->dims : "");
	return c;
}

static int cmp_key_q(const void *a, const void *b)
{
	return cmp_key(a, b);
}

/* ---- each side's rows ---- */

static int side_kernels(struct tix_index *ix, int k, uint32_t step, struct cmp *out)
{
	uint32_t ng;
	const struct tix_group *gs;
	if (step != TIX_NONE) {
		gs = tix_step_groups(ix, step, &ng);
	} else {
		ng = tix_group_count(ix);
		gs = ng ? tix_group_get(ix, 0) : NULL;
	}
	for (uint32_t g = 0; g < ng; g++) {
		struct crow *r = cmp_add(out);
		if (!r)
			return -1;
		r->key = tix_str(ix, tix_name_full(ix, gs[g].name));
		r->kind = tix_kind_label((enum tix_kind)gs[g].kind);
		r->name[k] = gs[g].name;
		r->total[k] = gs[g].total_ns;
		r->count[k] = gs[g].instances;
		r->group[k] = gs[g].group;
		if (gs[g].kind == TIX_KIND_KERNEL && gs[g].common_info != TIX_NONE)
			r->info[k] = tix_kernel_info_get(ix, gs[g].common_info);
	}
	return 0;
}

static int side_ops(struct tix_index *ix, int k, struct cmp *out)
{
	for (uint32_t i = 0; i < tix_op_count(ix); i++) {
		const struct tix_op *o = tix_op_get(ix, i);
		struct crow *r = cmp_add(out);
		if (!r)
			return -1;
		r->key = tix_str(ix, o->name);
		r->kind = "op";
		r->name[k] = o->name;
		r->total[k] = o->gpu_ns;
		r->count[k] = o->calls;
	}
	return 0;
}

static int side_steps(struct tix_index *ix, int k, struct cmp *out)
{
	for (uint32_t i = 0; i < tix_step_count(ix); i++) {
		const struct tix_step *st = tix_step_get(ix, i);
		struct crow *r = cmp_add(out);
		if (!r)
			return -1;
		r->index = i;
		snprintf(r->pos, sizeof r->pos, "%010u", i); /* matched by position */
		r->key = NULL;                               /* set after the merge: pos moves */
		r->kind = "step";
		r->name[k] = st->name;
		r->total[k] = st->gpu_ns;
		r->count[k] = st->kernels;
		r->wall[k] = st->dur_ns;
		r->busy[k] = st->gpu_busy_ns;
	}
	return 0;
}

/* Merges the two sides (each holding only its own) into out. */
static int merge(struct cmp *a, struct cmp *b, struct cmp *out)
{
	if (a->n)
		qsort(a->rows, a->n, sizeof *a->rows, cmp_key_q);
	if (b->n)
		qsort(b->rows, b->n, sizeof *b->rows, cmp_key_q);
	size_t i = 0, j = 0;
	while (i < a->n || j < b->n) {
		int c = i >= a->n ? 1 : j >= b->n ? -1 : cmp_key(&a->rows[i], &b->rows[j]);
		struct crow *r = cmp_add(out);
		if (!r)
			return -1;
		if (c <= 0) {
			*r = a->rows[i++];
			if (c == 0) {
				const struct crow *y = &b->rows[j++];
				r->name[1] = y->name[1];
				r->total[1] = y->total[1];
				r->count[1] = y->count[1];
				r->info[1] = y->info[1];
				r->wall[1] = y->wall[1];
				r->busy[1] = y->busy[1];
				r->group[1] = y->group[1];
			}
		} else {
			*r = b->rows[j++];
		}
	}
	return 0;
}

/* v over the steps side k's rows sum: its step count, or 1 when the rows
 * are of one step (--step N) */
static double per_step(const struct tix_compare_totals *t, int k, int64_t v)
{
	uint32_t n = t->step != TIX_NONE ? 1 : t->steps[k];
	return n ? (double)v / n : (double)v;
}

/* The time a row shows on side k: its total, or per step; -1 absent. */
static double shown(const struct tix_compare_totals *t, const struct crow *r, int k)
{
	if (r->total[k] < 0)
		return -1;
	return t->normalised ? per_step(t, k, r->total[k]) : (double)r->total[k];
}

static double delta(const struct tix_compare_totals *t, const struct crow *r)
{
	double a = shown(t, r, 0), b = shown(t, r, 1);
	return (b < 0 ? 0 : b) - (a < 0 ? 0 : a);
}

static int cmp_delta(const void *x, const void *y, void *ctx)
{
	const struct tix_compare_totals *t = ctx;
	double a = delta(t, x), b = delta(t, y);
	a = a < 0 ? -a : a;
	b = b < 0 ? -b : b;
	if (a != b)
		return a > b ? -1 : 1;
	return cmp_key(x, y);
}

void view_cmp_totals(struct tix_index *ix[2], uint32_t step, struct tix_compare_totals *t)
{
	memset(t, 0, sizeof *t);
	for (int k = 0; k < 2; k++) {
		int64_t wall = 0, busy = 0, kern = 0;
		t->steps[k] = tix_step_count(ix[k]);
		for (uint32_t i = 0; i < t->steps[k]; i++) {
			if (step != TIX_NONE && i != step)
				continue;
			const struct tix_step *st = tix_step_get(ix[k], i);
			wall = tix_sat_add(wall, st->dur_ns);
			busy = tix_sat_add(busy, st->gpu_busy_ns);
			uint32_t ng;
			const struct tix_group *gs = tix_step_groups(ix[k], i, &ng);
			for (uint32_t g = 0; g < ng; g++)
				if (gs[g].kind == TIX_KIND_KERNEL)
					kern = tix_sat_add(kern, gs[g].total_ns);
		}
		uint32_t n = step != TIX_NONE ? 1 : t->steps[k];
		t->wall_ns[k] = (double)wall;
		t->gpu_busy_ns[k] = (double)busy;
		t->kernel_ns[k] = (double)kern;
		t->per_step_wall_ns[k] = n ? (double)wall / n : (double)wall;
		t->per_step_gpu_busy_ns[k] = n ? (double)busy / n : (double)busy;
		t->per_step_kernel_ns[k] = n ? (double)kern / n : (double)kern;
	}
	t->step = step;
	t->normalised = step == TIX_NONE && t->steps[0] != t->steps[1];
}

/* ---- columns ----
 * Fields are numbered once; each kind lists the ones it shows (and, for
 * traces with different step counts, a table whose time columns are the
 * per-step ones). */
enum field {
	F_STATUS, F_STEP, F_CBASE, F_CNEW, F_CDELTA, F_TBASE, F_TNEW, F_TDELTA, F_PBASE, F_PNEW,
	F_PDELTA, F_RATIO, F_GBASE, F_GNEW, F_BBASE, F_BNEW, F_WBASE, F_WNEW, F_UBASE, F_UNEW, F_NAME,
	F_OPNAME, F_DIMS, F_KIND, F_QBASE, F_QNEW, F_QDELTA, F_PERSTEP, F_COUNT
};

#define COLS_OF(name, ...)                                                      \
	static const struct tix_col name[] = {__VA_ARGS__}

/* The shown time columns of a table: totals, or per step (the header says
 * which, once: tix_compare_note). */
#define T_TOTALS(right, prio)                                                                   \
	{"Base time", 9, right, prio, "total_ns_base", TIX_UNIT_DUR},                          \
	{"New time", 9, right, prio, "total_ns_new", TIX_UNIT_DUR},                            \
	{"Δ time", 10, right | TIX_COL_SIGNED, prio, "total_ns_delta", TIX_UNIT_DDUR}
#define T_PER_STEP(right, prio)                                                                 \
	{"Base time", 9, right, prio, "per_step_ns_base", TIX_UNIT_DUR},                       \
	{"New time", 9, right, prio, "per_step_ns_new", TIX_UNIT_DUR},                         \
	{"Δ time", 10, right | TIX_COL_SIGNED, prio, "per_step_ns_delta", TIX_UNIT_DDUR}
#define T_DATA_TOTALS                                                                           \
	{"Base time", 0, TIX_COL_DATA, 0, "total_ns_base", TIX_UNIT_DUR},                      \
	{"New time", 0, TIX_COL_DATA, 0, "total_ns_new", TIX_UNIT_DUR},                        \
	{"Δ time", 0, TIX_COL_DATA, 0, "total_ns_delta", TIX_UNIT_DDUR}
#define T_DATA_PER_STEP                                                                         \
	{"Base/step", 0, TIX_COL_DATA, 0, "per_step_ns_base", TIX_UNIT_DUR},                   \
	{"New/step", 0, TIX_COL_DATA, 0, "per_step_ns_new", TIX_UNIT_DUR},                     \
	{"Δ/step", 0, TIX_COL_DATA, 0, "per_step_ns_delta", TIX_UNIT_DDUR}
/* Counts: as wide as their widest value (a number is never cut) */
#define C_COUNTS(b, n)                                                                          \
	{b, 7, TIX_COL_RIGHT | TIX_COL_FIT, 0, "instances_base", TIX_UNIT_COUNT},             \
	{n, 7, TIX_COL_RIGHT | TIX_COL_FIT, 0, "instances_new", TIX_UNIT_COUNT},              \
	{"Δ", 5, TIX_COL_RIGHT | TIX_COL_SIGNED | TIX_COL_FIT, 0, "instances_delta", TIX_UNIT_DELTA}
#define C_PER_STEP_COUNTS(b, n)                                                                 \
	{b, 7, TIX_COL_RIGHT | TIX_COL_FIT, 0, "instances_per_step_base", TIX_UNIT_FCOUNT},   \
	{n, 7, TIX_COL_RIGHT | TIX_COL_FIT, 0, "instances_per_step_new", TIX_UNIT_FCOUNT},    \
	{"Δ", 5, TIX_COL_RIGHT | TIX_COL_SIGNED | TIX_COL_FIT, 0, "instances_per_step_delta",   \
	 TIX_UNIT_FDELTA}
#define C_DATA_COUNTS                                                                           \
	{"Base", 0, TIX_COL_DATA, 0, "instances_base", TIX_UNIT_COUNT},                        \
	{"New", 0, TIX_COL_DATA, 0, "instances_new", TIX_UNIT_COUNT},                          \
	{"Δ", 0, TIX_COL_DATA, 0, "instances_delta", TIX_UNIT_DELTA}
#define C_DATA_PER_STEP_COUNTS                                                                  \
	{"Base/step", 0, TIX_COL_DATA, 0, "instances_per_step_base", TIX_UNIT_FCOUNT},         \
	{"New/step", 0, TIX_COL_DATA, 0, "instances_per_step_new", TIX_UNIT_FCOUNT},           \
	{"Δ/step", 0, TIX_COL_DATA, 0, "instances_per_step_delta", TIX_UNIT_FDELTA}
#define C_PER_STEP_FLAG {"Per step", 0, TIX_COL_DATA, 0, "per_step", TIX_UNIT_BOOL}
#define C_STATUS {"Status", 7, TIX_COL_ASC, 3, "status", TIX_UNIT_TEXT}
#define C_RATIO {"Ratio", 6, TIX_COL_RIGHT, 1, "ratio", TIX_UNIT_RATIO}
#define C_KIND {"Kind", 0, TIX_COL_DATA, 0, "kind", TIX_UNIT_TEXT}
#define C_GRIDS                                                                                 \
	{"Grid base", 12, 0, 2, "grid_base", TIX_UNIT_DIM3},                                   \
	{"Grid new", 12, 0, 2, "grid_new", TIX_UNIT_DIM3}
#define C_BLOCKS                                                                                \
	{"Block base", 0, TIX_COL_DATA, 0, "block_base", TIX_UNIT_DIM3},                       \
	{"Block new", 0, TIX_COL_DATA, 0, "block_new", TIX_UNIT_DIM3}
#define C_NAMECOL {"Name", 24, TIX_COL_FLEX | TIX_COL_NAME | TIX_COL_ASC, 0, "name", TIX_UNIT_NAME}

/* The fields behind each table's columns, in its order: the shown
 * columns, then those for CSV and JSON only. */
#define FIELDS_COUNTS F_CBASE, F_CNEW, F_CDELTA
#define FIELDS_QCOUNTS F_QBASE, F_QNEW, F_QDELTA
#define FIELDS_TOTALS F_TBASE, F_TNEW, F_TDELTA
#define FIELDS_PER_STEP F_PBASE, F_PNEW, F_PDELTA

COLS_OF(kernel_cols, C_STATUS, C_COUNTS("Base", "New"), T_TOTALS(TIX_COL_RIGHT, 0), C_RATIO, C_GRIDS,
        C_NAMECOL, C_KIND, T_DATA_PER_STEP, C_DATA_PER_STEP_COUNTS, C_BLOCKS, C_PER_STEP_FLAG);
COLS_OF(kernel_cols_ps, C_STATUS, C_PER_STEP_COUNTS("Base", "New"), T_PER_STEP(TIX_COL_RIGHT, 0),
        C_RATIO, C_GRIDS, C_NAMECOL, C_KIND, T_DATA_TOTALS, C_DATA_COUNTS, C_BLOCKS, C_PER_STEP_FLAG);
static const enum field kernel_fields[] = {F_STATUS, FIELDS_COUNTS, FIELDS_TOTALS, F_RATIO, F_GBASE,
                                           F_GNEW, F_NAME, F_KIND, FIELDS_PER_STEP, FIELDS_QCOUNTS,
                                           F_BBASE, F_BNEW, F_PERSTEP};
static const enum field kernel_fields_ps[] = {F_STATUS, FIELDS_QCOUNTS, FIELDS_PER_STEP, F_RATIO, F_GBASE,
                                              F_GNEW, F_NAME, F_KIND, FIELDS_TOTALS, FIELDS_COUNTS,
                                              F_BBASE, F_BNEW, F_PERSTEP};

#define C_OPNAME {"Op", 24, TIX_COL_FLEX | TIX_COL_ASC, 0, "name", TIX_UNIT_TEXT}
COLS_OF(op_cols, C_STATUS, C_COUNTS("Calls base", "Calls new"), T_TOTALS(TIX_COL_RIGHT, 0), C_RATIO,
        C_OPNAME, C_KIND, T_DATA_PER_STEP, C_DATA_PER_STEP_COUNTS, C_PER_STEP_FLAG);
COLS_OF(op_cols_ps, C_STATUS, C_PER_STEP_COUNTS("Calls base", "Calls new"), T_PER_STEP(TIX_COL_RIGHT, 0),
        C_RATIO, C_OPNAME, C_KIND, T_DATA_TOTALS, C_DATA_COUNTS, C_PER_STEP_FLAG);
static const enum field op_fields[] = {F_STATUS, FIELDS_COUNTS, FIELDS_TOTALS, F_RATIO, F_OPNAME,
                                       F_KIND, FIELDS_PER_STEP, FIELDS_QCOUNTS, F_PERSTEP};
static const enum field op_fields_ps[] = {F_STATUS, FIELDS_QCOUNTS, FIELDS_PER_STEP, F_RATIO, F_OPNAME,
                                          F_KIND, FIELDS_TOTALS, FIELDS_COUNTS, F_PERSTEP};

/* Input Dims get the width they need before the Op column is padded */
#define C_DIMS {"Input Dims", 20, TIX_COL_FLEX | TIX_COL_ASC | TIX_COL_FIT, 0, "input_dims", TIX_UNIT_TEXT}
#define C_SHAPEOP {"Op", 20, TIX_COL_ASC | TIX_COL_FIT, 0, "name", TIX_UNIT_TEXT}
COLS_OF(shape_cols, C_STATUS, C_COUNTS("Calls base", "Calls new"), T_TOTALS(TIX_COL_RIGHT, 0),
        C_RATIO, C_SHAPEOP, C_DIMS, C_KIND, T_DATA_PER_STEP, C_DATA_PER_STEP_COUNTS, C_PER_STEP_FLAG);
COLS_OF(shape_cols_ps, C_STATUS, C_PER_STEP_COUNTS("Calls base", "Calls new"),
        T_PER_STEP(TIX_COL_RIGHT, 0), C_RATIO, C_SHAPEOP, C_DIMS, C_KIND, T_DATA_TOTALS, C_DATA_COUNTS,
        C_PER_STEP_FLAG);
static const enum field shape_fields[] = {F_STATUS, FIELDS_COUNTS, FIELDS_TOTALS, F_RATIO, F_OPNAME,
                                          F_DIMS, F_KIND, FIELDS_PER_STEP, FIELDS_QCOUNTS, F_PERSTEP};
static const enum field shape_fields_ps[] = {F_STATUS, FIELDS_QCOUNTS, FIELDS_PER_STEP, F_RATIO,
                                             F_OPNAME, F_DIMS, F_KIND, FIELDS_TOTALS, FIELDS_COUNTS,
                                             F_PERSTEP};

/* Steps: each row is one step of each side, never divided */
COLS_OF(step_cols, {"#", 4, TIX_COL_RIGHT | TIX_COL_ASC, 0, "step", TIX_UNIT_INT}, C_STATUS,
        C_COUNTS("Kernels base", "Kernels new"), T_TOTALS(TIX_COL_RIGHT, 0), C_RATIO,
        {"Wall base", 10, TIX_COL_RIGHT, 1, "wall_ns_base", TIX_UNIT_DUR},
        {"Wall new", 10, TIX_COL_RIGHT, 1, "wall_ns_new", TIX_UNIT_DUR},
        {"Busy base", 10, TIX_COL_RIGHT, 2, "gpu_busy_ns_base", TIX_UNIT_DUR},
        {"Busy new", 10, TIX_COL_RIGHT, 2, "gpu_busy_ns_new", TIX_UNIT_DUR},
        {"Step", 16, TIX_COL_FLEX | TIX_COL_ASC, 0, "name", TIX_UNIT_NAME}, C_KIND, C_PER_STEP_FLAG);
static const enum field step_fields[] = {F_STEP, F_STATUS, FIELDS_COUNTS, FIELDS_TOTALS, F_RATIO,
                                         F_WBASE, F_WNEW, F_UBASE, F_UNEW, F_NAME, F_KIND, F_PERSTEP};

struct cmp_view {
	struct cmp c;
	const enum field *fields;
};

static const struct view_kind_ops *variant(enum tix_view_kind kind, int per_step);

static int cmp_open(struct tix_view *v, struct tix_error *err)
{
	struct tix_index *ix[2] = {v->ix, v->other};
	uint32_t step = v->cmp.step;
	if (step != TIX_NONE && (step >= tix_step_count(ix[0]) || step >= tix_step_count(ix[1])))
		return tix_error_set(err, "no step %u in both traces (they have %u and %u)", step,
		                     tix_step_count(ix[0]), tix_step_count(ix[1]));
	struct cmp_view *p = calloc(1, sizeof *p);
	struct cmp side[2] = {{0}};
	if (!p)
		return tix_error_oom(err, tix_index_path(v->ix));
	view_cmp_totals(ix, v->kind == TIX_VIEW_CMP_KERNELS ? step : TIX_NONE, &p->c.t);
	if (v->kind == TIX_VIEW_CMP_STEPS)
		p->c.t.normalised = 0; /* a row is one step of each side */
	if (v->kind == TIX_VIEW_CMP_SHAPES) {
		if (cmp_shapes_both(ix, side) != 0)
			goto oom;
	} else {
		for (int k = 0; k < 2; k++) {
			int rc = v->kind == TIX_VIEW_CMP_OPS    ? side_ops(ix[k], k, &side[k])
			         : v->kind == TIX_VIEW_CMP_STEPS ? side_steps(ix[k], k, &side[k])
			                                         : side_kernels(ix[k], k, step, &side[k]);
			if (rc)
				goto oom;
		}
	}
	if (v->kind == TIX_VIEW_CMP_STEPS)
		for (int k = 0; k < 2; k++)
			for (size_t i = 0; i < side[k].n; i++)
				side[k].rows[i].key = side[k].rows[i].pos;
	if (merge(&side[0], &side[1], &p->c) != 0 || cmp_take_strings(&p->c, &side[0]) != 0 ||
	    cmp_take_strings(&p->c, &side[1]) != 0)
		goto oom;
	for (size_t i = 0; v->kind == TIX_VIEW_CMP_STEPS && i < p->c.n; i++)
		p->c.rows[i].key = NULL; /* they pointed into the sides' rows, freed below */
	if (v->kind != TIX_VIEW_CMP_STEPS && p->c.n)
		qsort_r(p->c.rows, p->c.n, sizeof *p->c.rows, cmp_delta, &p->c.t);
	cmp_done(&side[0]);
	cmp_done(&side[1]);
	v->k = variant(v->kind, p->c.t.normalised);
	p->fields = v->kind == TIX_VIEW_CMP_OPS      ? (p->c.t.normalised ? op_fields_ps : op_fields)
	            : v->kind == TIX_VIEW_CMP_SHAPES ? (p->c.t.normalised ? shape_fields_ps : shape_fields)
	            : v->kind == TIX_VIEW_CMP_STEPS  ? step_fields
	            : p->c.t.normalised              ? kernel_fields_ps
	                                             : kernel_fields;
	v->nrows = (uint32_t)p->c.n;
	v->priv = p;
	return 0;
oom:
	cmp_done(&side[0]);
	cmp_done(&side[1]);
	cmp_done(&p->c);
	free(p);
	return tix_error_oom(err, tix_index_path(v->ix));
}

static void cmp_close(struct tix_view *v)
{
	struct cmp_view *p = v->priv;
	cmp_done(&p->c);
	free(p);
}

static void dim(struct tix_cell *c, const struct tix_kernel_info *ki, int block)
{
	const int32_t *d = ki ? (block ? ki->block : ki->grid) : NULL;
	if (d && tix_dim3_known(d)) {
		c->known = 1;
		memcpy(c->dim, d, sizeof c->dim);
	}
}

static void cmp_cell(const struct tix_view *v, uint32_t row, int col, struct tix_cell *c)
{
	const struct cmp_view *p = v->priv;
	const struct crow *r = &p->c.rows[row];
	const struct tix_compare_totals *t = &p->c.t;
	int both = r->total[0] >= 0 && r->total[1] >= 0;
	int64_t tb = r->total[0] < 0 ? 0 : r->total[0], tn = r->total[1] < 0 ? 0 : r->total[1];
	double pb = shown(t, r, 0), pn = shown(t, r, 1);
	switch (p->fields[col]) {
	case F_STATUS:
		c->known = 1;
		c->s = r->total[0] < 0 ? "added" : r->total[1] < 0 ? "removed" : "both";
		return;
	case F_STEP: cell_int(c, r->index); return;
	case F_CBASE: cell_int(c, r->count[0]); return;
	case F_CNEW: cell_int(c, r->count[1]); return;
	case F_CDELTA: cell_int(c, (int64_t)r->count[1] - (int64_t)r->count[0]); return;
	/* a name absent on one side ran 0 times there: a known zero (status
	 * says added or removed); a step absent on one side is unknown there */
	case F_TBASE: cell_maybe(c, v->kind == TIX_VIEW_CMP_STEPS ? r->total[0] : tb); return;
	case F_TNEW: cell_maybe(c, v->kind == TIX_VIEW_CMP_STEPS ? r->total[1] : tn); return;
	case F_TDELTA: cell_int(c, tn - tb); return;
	case F_PBASE: cell_int(c, (int64_t)(per_step(t, 0, tb) + 0.5)); return;
	case F_PNEW: cell_int(c, (int64_t)(per_step(t, 1, tn) + 0.5)); return;
	case F_PDELTA: {
		double d = (r->total[1] < 0 ? 0 : per_step(t, 1, r->total[1])) -
		           (r->total[0] < 0 ? 0 : per_step(t, 0, r->total[0]));
		cell_int(c, (int64_t)(d < 0 ? d - 0.5 : d + 0.5));
		return;
	}
	case F_QBASE:
	case F_QNEW: {
		int k = p->fields[col] == F_QNEW;
		c->known = 1;
		c->d = per_step(t, k, r->count[k]);
		return;
	}
	case F_QDELTA:
		c->known = 1;
		c->d = per_step(t, 1, r->count[1]) - per_step(t, 0, r->count[0]);
		return;
	case F_PERSTEP: cell_int(c, t->normalised); return;
	case F_RATIO:
		if (both && pb > 0) { /* per step when the step counts differ */
			c->known = 1;
			c->d = pn / pb;
		}
		return;
	case F_GBASE: dim(c, r->info[0], 0); return;
	case F_GNEW: dim(c, r->info[1], 0); return;
	case F_BBASE: dim(c, r->info[0], 1); return;
	case F_BNEW: dim(c, r->info[1], 1); return;
	case F_WBASE: cell_maybe(c, r->total[0] < 0 ? -1 : r->wall[0]); return;
	case F_WNEW: cell_maybe(c, r->total[1] < 0 ? -1 : r->wall[1]); return;
	case F_UBASE: cell_maybe(c, r->total[0] < 0 ? -1 : r->busy[0]); return;
	case F_UNEW: cell_maybe(c, r->total[1] < 0 ? -1 : r->busy[1]); return;
	case F_NAME: { /* the new side's name where it has one: what the fix left */
		int k = r->name[1] != TIX_NONE ? 1 : 0;
		if (r->name[k] == TIX_NONE)
			return;
		cell_int(c, r->name[k]);
		c->ix = k ? v->other : v->ix;
		if (v->kind == TIX_VIEW_CMP_STEPS) { /* step names are not kernel names: as given */
			c->s = tix_str(c->ix, r->name[k]);
		}
		return;
	}
	case F_OPNAME:
		c->known = 1;
		c->s = r->key;
		return;
	case F_DIMS:
		if (r->dims) {
			c->known = 1;
			c->s = r->dims;
		}
		return;
	case F_KIND:
		c->known = 1;
		c->s = r->kind;
		return;
	case F_COUNT: return;
	}
}

static double cmp_share(const struct tix_view *v, uint32_t row)
{
	return 0;
}

static int row_cmp(const struct tix_view *v, uint32_t ra, uint32_t rb, int col)
{
	struct tix_cell x, y;
	tix_view_cell(v, ra, col, &x);
	tix_view_cell(v, rb, col, &y);
	if (x.known != y.known)
		return x.known ? -1 : 1;
	if (!x.known)
		return 0;
	const struct tix_col *cd = &v->k->cols[col];
	int asc = (cd->flags & TIX_COL_ASC) != 0;
	if (cd->unit == TIX_UNIT_TEXT || (cd->unit == TIX_UNIT_NAME && x.s))
		return strcmp(x.s ? x.s : "", y.s ? y.s : "");
	if (cd->unit == TIX_UNIT_NAME) { /* by the label on screen */
		char bx[512], by[512];
		return strcmp(tix_name_label(x.ix ? x.ix : v->ix, (uint32_t)x.i, 0, bx, sizeof bx),
		              tix_name_label(y.ix ? y.ix : v->ix, (uint32_t)y.i, 0, by, sizeof by));
	}
	if (cd->unit == TIX_UNIT_RATIO || cd->unit == TIX_UNIT_FCOUNT || cd->unit == TIX_UNIT_FDELTA) {
		double a = x.d, b = y.d;
		if (cd->flags & TIX_COL_SIGNED) {
			a = a < 0 ? -a : a;
			b = b < 0 ? -b : b;
		}
		return a == b ? 0 : ((a > b) == !asc ? -1 : 1);
	}
	if (cd->unit == TIX_UNIT_DIM3) {
		int64_t a = (int64_t)x.dim[0] * x.dim[1] * x.dim[2], b = (int64_t)y.dim[0] * y.dim[1] * y.dim[2];
		return a == b ? 0 : ((a > b) == !asc ? -1 : 1);
	}
	int64_t a = x.i, b = y.i;
	if (cd->flags & TIX_COL_SIGNED) {
		a = a < 0 ? -a : a;
		b = b < 0 ? -b : b;
	}
	return a == b ? 0 : ((a > b) == !asc ? -1 : 1);
}

static void cmp_ref(const struct tix_view *v, uint32_t row, struct tix_view_ref *out)
{
	const struct cmp_view *p = v->priv;
	const struct crow *r = &p->c.rows[row];
	out->step = v->kind == TIX_VIEW_CMP_STEPS ? r->index : v->cmp.step;
	out->group = r->group[0] != TIX_NONE ? r->group[0] : r->group[1];
}

#define KIND(name, cols_, rank)                                                                 \
	const struct view_kind_ops name = {.cols = cols_,                                      \
	                                   .ncols = sizeof cols_ / sizeof cols_[0],             \
	                                   .rank_col = rank,                                    \
	                                   .open = cmp_open,                                    \
	                                   .close = cmp_close,                                  \
	                                   .cell = cmp_cell,                                    \
	                                   .cmp = row_cmp,                                      \
	                                   .share = cmp_share,                                  \
	                                   .ref = cmp_ref}
/* rank: the Δ time column (6 in every table but steps', where it is 7) */
KIND(view_cmp_kernels_kind, kernel_cols, 6);
KIND(view_cmp_ops_kind, op_cols, 6);
KIND(view_cmp_shapes_kind, shape_cols, 6);
KIND(view_cmp_steps_kind, step_cols, 7);
static KIND(cmp_kernels_ps, kernel_cols_ps, 6);
static KIND(cmp_ops_ps, op_cols_ps, 6);
static KIND(cmp_shapes_ps, shape_cols_ps, 6);

static const struct view_kind_ops *variant(enum tix_view_kind kind, int per_step)
{
	switch (kind) {
	case TIX_VIEW_CMP_OPS: return per_step ? &cmp_ops_ps : &view_cmp_ops_kind;
	case TIX_VIEW_CMP_SHAPES: return per_step ? &cmp_shapes_ps : &view_cmp_shapes_kind;
	case TIX_VIEW_CMP_STEPS: return &view_cmp_steps_kind;
	default: return per_step ? &cmp_kernels_ps : &view_cmp_kernels_kind;
	}
}

void tix_compare_totals(const struct tix_view *v, struct tix_compare_totals *out)
{
	memset(out, 0, sizeof *out);
	if (v->kind >= TIX_VIEW_CMP_KERNELS && v->kind <= TIX_VIEW_CMP_SHAPES)
		*out = ((const struct cmp_view *)v->priv)->c.t;
	else if (v->kind == TIX_VIEW_CMP_LAUNCHES || v->kind == TIX_VIEW_CMP_FINDINGS)
		*out = *(const struct tix_compare_totals *)v->priv; /* its first member */
}

const char *tix_compare_note(const struct tix_view *v, char *buf, size_t cap)
{
	struct tix_compare_totals t;
	tix_compare_totals(v, &t);
	if (cap)
		buf[0] = 0;
	if (t.normalised)
		snprintf(buf, cap, "%u vs %u steps: counts and times below are per step", t.steps[0], t.steps[1]);
	else if (v->kind == TIX_VIEW_CMP_STEPS && t.steps[0] != t.steps[1])
		snprintf(buf, cap, "%u vs %u steps, matched by position: '-' where a side lacks one", t.steps[0],
		         t.steps[1]);
	return buf;
}

void tix_compare_ref(const struct tix_view *v, uint32_t row, struct tix_compare_ref *out)
{
	out->group[0] = out->group[1] = out->event = TIX_NONE;
	out->side = 0;
	if (row >= v->nrows)
		return;
	if (v->kind == TIX_VIEW_CMP_LAUNCHES) {
		view_cmp_launches_ref(v, row, out);
		return;
	}
	if (v->kind < TIX_VIEW_CMP_KERNELS || v->kind > TIX_VIEW_CMP_SHAPES)
		return; /* not a compare of matched rows (findings: tix_view_ref) */
	const struct crow *r = &((const struct cmp_view *)v->priv)->c.rows[row];
	out->group[0] = r->group[0];
	out->group[1] = r->group[1];
}
