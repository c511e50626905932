/*
 * Ranks: the open traces as the ranks of one run (a TP8 decode is 8 files),
 * side by side, as `tix summary FILES... --by rank` prints them: per step x
 * rank the wall, GPU busy, compute and communication time, the wait beyond
 * the fastest rank and the step's skew, the straggler of each step marked
 * and its rows highlighted, the straggler overall in the header line.
 * Enter opens that rank's step (its Kernels view, on its own trace;
 * Backspace comes back).  R opens it; the TUI opens on it when the traces name their
 * ranks (distributedInfo.rank, or TP-N style file names).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/table.h"
#include "tui/view.h"

struct ranks {
	struct tix_rank_set *rs;
	int *trace_of;     /* rank index -> the app's trace */
};

/* The rank set of the open traces: ranks by rule (auto: what the traces
 * say, else the order given); NULL with the reason in *err. */
static struct tix_rank_set *build_set(struct app *a, enum tix_rank_rule rule, struct tix_error *err)
{
	struct tix_rank_trace **t = calloc((size_t)a->ntraces, sizeof *t);
	if (!t) {
		tix_error_oom(err, NULL);
		return NULL;
	}
	for (int i = 0; i < a->ntraces; i++)
		if (!(t[i] = tix_rank_trace_new(a->traces[i].ix, a->traces[i].t->path, err))) {
			for (int k = 0; k < i; k++)
				tix_rank_trace_free(t[k]);
			free(t);
			return NULL;
		}
	struct tix_rank_set *rs = tix_rank_set_new(t, (uint32_t)a->ntraces, rule, err);
	free(t); /* the set owns the traces, failure included */
	return rs;
}

struct tix_rank_set *tui_rank_set(struct app *a, int *named)
{
	struct tix_error err;
	struct tix_rank_set *rs = build_set(a, TIX_RANK_AUTO, &err);
	if (named)
		*named = rs && tix_rank_set_rule(rs) != TIX_RANK_ORDER;
	return rs;
}

static int ranks_open(struct app *a, struct view *v)
{
	if (a->ntraces < 2) {
		app_msg(a, "ranks: open the traces of every rank (tix rank0.json rank1.json ..., or tix DIR)");
		return -1;
	}
	struct tix_error err;
	struct tix_rank_set *rs = a->ranks_ready ? a->ranks_ready : build_set(a, TIX_RANK_AUTO, &err);
	a->ranks_ready = NULL;
	if (!rs) /* two traces claim one rank: side by side in the order given */
		rs = build_set(a, TIX_RANK_ORDER, &err);
	struct ranks *p = rs ? calloc(1, sizeof *p) : NULL;
	if (p)
		p->trace_of = calloc(tix_rank_count(rs), sizeof *p->trace_of);
	if (!p || !p->trace_of || !(v->model = tix_view_ranks(rs, &err))) {
		app_msg(a, "ranks: %s", rs ? "out of memory" : err.msg);
		if (p)
			free(p->trace_of);
		free(p);
		tix_rank_set_free(rs);
		return -1;
	}
	p->rs = rs;
	for (uint32_t i = 0; i < tix_rank_count(rs); i++) /* the set keeps the paths it was given */
		for (int k = 0; k < a->ntraces; k++)
			if (!strcmp(tix_rank_trace_at(rs, i)->path, a->traces[k].t->path))
				p->trace_of[i] = k;
	v->priv = p;
	v->cols = tix_view_columns(v->model, &v->ncols);
	view_set_rows(v, tix_view_rows(v->model));
	return 0;
}

static void ranks_close(struct view *v)
{
	struct ranks *p = v->priv;
	if (!p)
		return;
	tix_view_free(v->model); /* before the set it borrows */
	v->model = NULL;
	tix_rank_set_free(p->rs);
	free(p->trace_of);
	free(p);
}

static uint32_t nranks(const struct view *v)
{
	return tix_rank_count(((const struct ranks *)v->priv)->rs);
}

static const char *ranks_text(struct app *a, struct view *v, uint32_t row, char *buf, size_t cap)
{
	const struct ranks *p = v->priv;
	const struct tix_rank_trace *t = tix_rank_trace_at(p->rs, row % nranks(v));
	const struct tix_rank_fig *f = tix_rank_cell(p->rs, row / nranks(v), row % nranks(v));
	snprintf(buf, cap, "%s %s %s", tix_rank_label(p->rs, tix_rank_number(p->rs, row % nranks(v))), t->path,
	         f && f->name ? f->name : "");
	return buf;
}

/* The straggler's rows stand out. */
static int ranks_row_attr(struct app *a, struct view *v, uint32_t row)
{
	const struct ranks *p = v->priv;
	const struct tix_rank_step *st = tix_rank_step_get(p->rs, row / nranks(v));
	return st && st->straggler >= 0 && st->straggler == tix_rank_number(p->rs, row % nranks(v))
	               ? draw_attr(a, CR_WARN)
	               : 0;
}

static int ranks_enter(struct app *a, struct view *v, uint32_t row)
{
	const struct ranks *p = v->priv;
	uint32_t s = row / nranks(v), i = row % nranks(v);
	int k = p->trace_of[i];
	if (!tix_rank_cell(p->rs, s, i)) {
		app_msg(a, "%s has no step %u", tix_rank_label(p->rs, tix_rank_number(p->rs, i)), s);
		return -1;
	}
	int back = a->cur;
	app_set_trace(a, k);
	struct view_args va = view_args_none();
	va.step = s;
	va.from_trace = k != back ? back : -1;
	if (!app_push(a, &view_kernels_ops, &va)) {
		app_set_trace(a, back);
		return -1;
	}
	if (k != back)
		app_msg(a, "%s, step %u: Backspace goes back to the ranks",
		        tix_rank_label(p->rs, tix_rank_number(p->rs, i)), s);
	return 0;
}

/* :N: rank N in the cursor's step (the digits alone switch views). */
static int ranks_goto(struct app *a, struct view *v, unsigned long n)
{
	const struct ranks *p = v->priv;
	uint32_t row = view_cur_row(v), s = row == TIX_NONE ? 0 : row / nranks(v);
	for (uint32_t i = 0; i < nranks(v); i++)
		if ((unsigned long)tix_rank_number(p->rs, i) == n) {
			view_goto_row(v, s * nranks(v) + i);
			if (view_cur_row(v) != s * nranks(v) + i) {
				app_msg(a, "rank %lu's row is filtered out (f, Enter shows all)", n);
				return -1;
			}
			app_msg(a, "%s, step %u", tix_rank_label(p->rs, (int32_t)n), s);
			return 0;
		}
	app_msg(a, "no rank %lu: the ranks are %d to %d", n, tix_rank_number(p->rs, 0),
	        tix_rank_number(p->rs, nranks(v) - 1));
	return -1;
}

/* c: the worst wait of the set. */
static uint32_t ranks_hottest(struct app *a, struct view *v)
{
	uint32_t best = TIX_NONE;
	int col = tix_view_col(v->model, "wait_ns");
	for (uint32_t r = 0; r < v->nrows; r++)
		if (best == TIX_NONE || tix_view_cmp(v->model, r, best, col) < 0)
			best = r;
	return best;
}

static void ranks_crumb(struct app *a, struct view *v, char *buf, size_t cap)
{
	const struct ranks *p = v->priv;
	snprintf(buf, cap, "ranks (%u, by %s)", tix_rank_count(p->rs), tix_rank_rule_text(p->rs));
}

static void ranks_draw(struct app *a, struct view *v, int y0, int h)
{
	const struct ranks *p = v->priv;
	uint32_t steps = 0, of = 0;
	int32_t s = tix_rank_straggler(p->rs, 0, tix_rank_steps(p->rs), &steps, &of);
	char line[256];
	if (s >= 0)
		snprintf(line, sizeof line, "straggler: %s, in %u of the %u steps that have one (the others wait for it in the collectives)",
		         tix_rank_label(p->rs, s), steps, of);
	else
		snprintf(line, sizeof line, "no straggler: no step has ranks waiting in collectives");
	int attr = s >= 0 ? draw_attr(a, CR_WARN) : (int)A_NORMAL;
	attron(attr);
	draw_text(a, y0, 0, COLS, line, 1);
	attroff(attr);
	table_draw(a, v, y0 + 1, h - 1);
}

static void ranks_context(struct app *a, struct view *v, struct ctx *c)
{
	uint32_t row = view_cur_row(v);
	if (row != TIX_NONE)
		c->step = row / nranks(v);
}

static int ranks_request(struct app *a, struct view *v, enum req r)
{
	if (r == REQ_RANKS) {
		app_msg(a, "this is the ranks view");
		return 1;
	}
	if (r == REQ_EXPORT) {
		app_msg(a, "export works on one trace: Enter on a rank's step first");
		return 1;
	}
	return 0;
}

const struct view_ops view_ranks_ops = {
	.name = "Ranks",
	.rows_name = "rows",
	.kind = VK_RANKS,
	.default_sort = -1,
	.open = ranks_open,
	.close = ranks_close,
	.cell = model_cell,
	.cmp = model_cmp,
	.width = model_width,
	.text = ranks_text,
	.enter = ranks_enter,
	.hottest = ranks_hottest,
	.crumb = ranks_crumb,
	.draw = ranks_draw,
	.context = ranks_context,
	.request = ranks_request,
	.row_attr = ranks_row_attr,
	.goto_what = "rank",
	.goto_n = ranks_goto,
};
