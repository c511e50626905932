/*
 * Compare findings: each finding of the base trace, its estimated saving,
 * and what the new trace saved of the same thing, per step
 * (docs/FINDINGS.md, section 8; the matching is index/findings.c's
 * tix_findings_outcomes).  The rows are the base's findings in their rank
 * order: the prediction, then the outcome beside it.
 */
#include "index/findings.h"
#include "index/view/view_int.h"

#include <stdlib.h>
#include <string.h>

enum { C_RANK, C_RULE, C_PREDICTED, C_BASE, C_NEW, C_SAVED, C_OF, C_TITLE, C_MATCHED, C_BASIS };

static const struct tix_col cols[] = {
	[C_RANK] = {"#", 3, TIX_COL_RIGHT | TIX_COL_ASC, 0, "rank", TIX_UNIT_INT},
	[C_RULE] = {"Rule", 13, TIX_COL_ASC, 2, "rule", TIX_UNIT_TEXT},
	[C_PREDICTED] = {"Predicted", 10, TIX_COL_RIGHT, 0, "predicted_saving_ns", TIX_UNIT_DUR},
	[C_BASE] = {"Base", 10, TIX_COL_RIGHT, 1, "base_ns", TIX_UNIT_DUR},
	[C_NEW] = {"New", 10, TIX_COL_RIGHT, 1, "new_ns", TIX_UNIT_DUR},
	[C_SAVED] = {"Saved", 10, TIX_COL_RIGHT, 0, "saved_ns", TIX_UNIT_DDUR}, /* - when it grew */
	[C_OF] = {"Of pred.", 8, TIX_COL_RIGHT, 1, "of_predicted", TIX_UNIT_RATIO},
	[C_TITLE] = {"Finding (per step)", 20, TIX_COL_FLEX | TIX_COL_ASC | TIX_COL_PROSE, 0, "title", TIX_UNIT_TEXT},
	[C_MATCHED] = {"Matched", 0, TIX_COL_DATA, 0, "matched", TIX_UNIT_TEXT},
	[C_BASIS] = {"Basis", 0, TIX_COL_DATA, 0, "saving_basis", TIX_UNIT_TEXT},
};

struct cmp_findings {
	struct tix_compare_totals t; /* first: tix_compare_totals reads it */
	struct tix_findings *f;
	struct tix_finding_outcome *out;
};

static int open_(struct tix_view *v, struct tix_error *err)
{
	struct cmp_findings *p = calloc(1, sizeof *p);
	if (!p)
		return tix_error_oom(err, tix_index_path(v->ix));
	struct tix_findings_opts o = {v->cmp.step, NULL, NULL};
	if (tix_findings_compute(v->ix, &o, &p->f, err) != 0) {
		free(p);
		return -1;
	}
	p->out = calloc((size_t)p->f->n + 1, sizeof *p->out);
	if (!p->out) {
		tix_findings_free(p->f);
		free(p);
		return tix_error_oom(err, tix_index_path(v->ix));
	}
	tix_findings_outcomes(v->ix, p->f, v->other, &o, p->out);
	struct tix_index *ix[2] = {v->ix, v->other};
	view_cmp_totals(ix, v->cmp.step, &p->t);
	v->nrows = p->f->n;
	v->priv = p;
	return 0;
}

static void close_(struct tix_view *v)
{
	struct cmp_findings *p = v->priv;
	tix_findings_free(p->f);
	free(p->out);
	free(p);
}

static void cell(const struct tix_view *v, uint32_t row, int col, struct tix_cell *c)
{
	const struct cmp_findings *p = v->priv;
	const struct tix_finding *f = &p->f->items[row];
	const struct tix_finding_outcome *o = &p->out[row];
	switch (col) {
	case C_RANK: cell_int(c, row + 1); return;
	case C_RULE:
		c->known = 1;
		c->s = tix_rule_name(f->rule);
		return;
	case C_PREDICTED: cell_int(c, f->saving_ns); return;
	case C_BASE: cell_int(c, o->base_ns); return;
	case C_NEW: cell_maybe(c, o->new_ns); return;
	case C_SAVED:
		c->known = o->new_ns >= 0;
		c->i = o->saved_ns;
		return;
	case C_OF: /* what came true of the prediction: 1.00x all of it */
		c->known = o->new_ns >= 0 && f->saving_ns > 0;
		c->d = c->known ? (double)o->saved_ns / (double)f->saving_ns : 0;
		return;
	case C_TITLE:
		c->known = 1;
		c->s = f->title;
		return;
	case C_MATCHED:
		c->known = 1;
		c->s = o->matched;
		return;
	case C_BASIS:
		c->known = 1;
		c->s = f->basis;
		return;
	}
}

static void ref(const struct tix_view *v, uint32_t row, struct tix_view_ref *out)
{
	const struct cmp_findings *p = v->priv;
	const struct tix_finding *f = &p->f->items[row];
	out->step = f->step;
	out->group = f->group;
	out->op = f->op;
	out->event = f->row;
}

const struct view_kind_ops view_cmp_findings_kind = {
	.cols = cols,
	.ncols = sizeof cols / sizeof cols[0],
	.rank_col = C_PREDICTED,
	.open = open_,
	.close = close_,
	.cell = cell,
	.ref = ref,
};
