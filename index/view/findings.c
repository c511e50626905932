/*
 * Findings (TIX_VIEW_FINDINGS): one row per finding of a struct
 * tix_findings (index/findings.h), in rank order, largest saving first.
 * `tix findings` prints each finding's main line from these cells and the
 * TUI's Findings view draws them, so both show one model; the header
 * lines above them and the evidence figures are written here too.
 */
#include "index/view/view_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/findings.h"

enum {
	C_RANK = TIX_FIND_COL_RANK,
	C_SAVING = TIX_FIND_COL_SAVING,
	C_SHARE = TIX_FIND_COL_SHARE,
	C_RULE = TIX_FIND_COL_RULE,
	C_TITLE = TIX_FIND_COL_TITLE,
	C_GPU = TIX_FIND_COL_COUNT,
	C_SHARE_RAW,
	C_SHARE_OF,
	C_BASIS,
	C_COUNT
};

/* The screen columns carry the keys whose raw value is JSON's (rank,
 * saving_ns, rule, title); Share shows a percent where JSON's share is a
 * fraction, so the fraction is a data column of its own. */
static const struct tix_col cols[C_COUNT] = {
	[C_RANK] = {"#", 3, TIX_COL_RIGHT | TIX_COL_ASC, 0, "rank", TIX_UNIT_INT},
	[C_SAVING] = {"Saving/step", 11, TIX_COL_RIGHT, 0, "saving_ns", TIX_UNIT_DUR},
	[C_SHARE] = {"Share", 7, TIX_COL_RIGHT, 0, NULL, TIX_UNIT_PCT}, /* "100.0%w" */
	[C_RULE] = {"Rule", 13, TIX_COL_ASC, 1, "rule", TIX_UNIT_TEXT},
	[C_TITLE] = {"Finding", 20, TIX_COL_FLEX | TIX_COL_PROSE | TIX_COL_ASC, 0, "title", TIX_UNIT_TEXT},
	[C_GPU] = {"GPU time/step", 0, TIX_COL_DATA, 0, "gpu_ns", TIX_UNIT_DUR},
	[C_SHARE_RAW] = {"Share (0..1)", 0, TIX_COL_DATA, 0, "share", TIX_UNIT_RATIO},
	[C_SHARE_OF] = {"Share of", 0, TIX_COL_DATA | TIX_COL_ASC, 0, "share_of", TIX_UNIT_TEXT},
	[C_BASIS] = {"How", 0, TIX_COL_DATA | TIX_COL_ASC, 0, "saving_basis", TIX_UNIT_TEXT},
};

/* Share's text per row: "69.1% " of the step's GPU time, "12.0%w" of its
 * wall time (the CLI's legend says so), the blank keeping the digits of
 * both in one column when right-aligned. */
struct findings_rows {
	char (*share)[16];
};

static const struct tix_findings *of(const struct tix_view *v)
{
	return v->arg;
}

static int findings_open(struct tix_view *v, struct tix_error *err)
{
	const struct tix_findings *F = of(v);
	struct findings_rows *p = calloc(1, sizeof *p);
	if (!p || (F->n && !(p->share = calloc(F->n, sizeof *p->share)))) {
		free(p);
		return tix_error_oom(err, tix_index_path(v->ix));
	}
	for (uint32_t i = 0; i < F->n; i++)
		snprintf(p->share[i], sizeof p->share[i], "%.1f%%%s", 100 * F->items[i].share,
		         F->items[i].share_of_wall ? "w" : " ");
	v->priv = p;
	v->nrows = F->n;
	return 0;
}

static void findings_close(struct tix_view *v)
{
	struct findings_rows *p = v->priv;
	if (p)
		free(p->share);
	free(p);
}

static void findings_cell(const struct tix_view *v, uint32_t row, int col, struct tix_cell *out)
{
	const struct tix_finding *f = &of(v)->items[row];
	const struct findings_rows *p = v->priv;
	switch (col) {
	case C_RANK: cell_int(out, row + 1); break;
	case C_SAVING: cell_int(out, f->saving_ns); break;
	case C_GPU: cell_int(out, f->gpu_ns); break;
	case C_SHARE:
		out->known = 1;
		out->d = 100 * f->share;
		out->s = p->share[row];
		break;
	case C_SHARE_RAW:
		out->known = 1;
		out->d = f->share;
		break;
	case C_RULE:
		out->known = 1;
		out->s = tix_rule_name(f->rule);
		break;
	case C_TITLE:
		out->known = 1;
		out->s = f->title;
		break;
	case C_SHARE_OF:
		out->known = 1;
		out->s = f->share_of_wall ? "wall_time" : "gpu_time";
		break;
	case C_BASIS:
		out->known = 1;
		out->s = f->basis;
		break;
	}
}

static double findings_share(const struct tix_view *v, uint32_t row)
{
	double s = of(v)->items[row].share;
	return s > 1 ? 1 : s > 0 ? s : 0;
}

static void findings_ref(const struct tix_view *v, uint32_t row, struct tix_view_ref *out)
{
	const struct tix_finding *f = &of(v)->items[row];
	out->step = of(v)->step;
	out->group = f->group;
	out->event = f->row;
}

const struct view_kind_ops view_findings_kind = {
	.cols = cols,
	.ncols = C_COUNT,
	.rank_col = C_SAVING,
	.open = findings_open,
	.close = findings_close,
	.cell = findings_cell,
	.share = findings_share,
	.ref = findings_ref,
};

/* ---- what is written around the rows ---- */

/* The device line: its name, the table row it matched and the peaks. */
static void device_line(const struct tix_device *dv, char *buf, size_t cap)
{
	char a[48], b[48], pb[300];
	if (!dv->known) {
		snprintf(buf, cap, "device    %s: no peaks known",
		         dv->name[0] ? tix_printable(dv->name, pb, sizeof pb) : "not named");
		return;
	}
	snprintf(buf, cap, "device    %s%s%s: %s memory bandwidth, BF16 %s dense%s",
	         dv->name[0] ? tix_printable(dv->name, pb, sizeof pb) : "(given)", dv->model ? " as " : "",
	         dv->model ? dv->model : "",
	         dv->peak_Bps > 0 ? tix_fmt_scaled(dv->peak_Bps, "B/s", a, sizeof a) : "-",
	         dv->peak_flops[TIX_PEAK_BF16] > 0 ? tix_fmt_scaled(dv->peak_flops[TIX_PEAK_BF16], "FLOP/s", b, sizeof b)
	                                           : "-",
	         dv->overridden ? " (from --peak-bw / --peak-flops)" : "");
}

const char *tix_findings_header(const struct tix_index *ix, const struct tix_findings *F, int k,
                                char *buf, size_t cap)
{
	char a[48], b[48], c[48], d[48], e[48], pb[300];
	const struct tix_breakdown *bd = &F->per_step; /* the step's, or the real steps' averaged */
	int64_t span = bd->span_end - bd->span_start;
	switch (k) {
	case 0:
		if (F->step != TIX_NONE) {
			const struct tix_step *st = tix_step_get(ix, F->step);
			snprintf(buf, cap, "step      %u, %s, wall %s, GPU time %s", F->step,
			         tix_printable(tix_str(ix, st ? st->name : TIX_NONE), pb, sizeof pb),
			         tix_fmt_dur(F->basis.wall_ns, a, sizeof a), tix_fmt_dur(F->basis.gpu_ns, b, sizeof b));
		} else {
			snprintf(buf, cap, "per step  averaged over %u step%s of %s wall, %s of GPU time each",
			         F->basis.steps, F->basis.steps == 1 ? "" : "s", tix_fmt_dur(F->basis.wall_ns, a, sizeof a),
			         tix_fmt_dur(F->basis.gpu_ns, b, sizeof b));
		}
		return buf;
	case 1: device_line(&F->device, buf, cap); return buf;
	case 2:
		if (span <= 0)
			return NULL;
		snprintf(buf, cap, "GPU time  span %s = compute %s + exposed comm %s + memory %s + idle %s",
		         tix_fmt_dur(span, a, sizeof a), tix_fmt_dur(bd->compute_ns, b, sizeof b), tix_fmt_dur(bd->comm_ns, c, sizeof c),
		         tix_fmt_dur(bd->memory_ns, d, sizeof d), tix_fmt_dur(bd->idle_ns, e, sizeof e));
		return buf;
	case 3:
		if (span <= 0)
			return NULL;
		snprintf(buf, cap, "idle      host wait %s, kernel wait %s, other %s; %s of it while a synchronising call ran",
		         tix_fmt_dur(bd->idle_host_ns, a, sizeof a), tix_fmt_dur(bd->idle_kernel_ns, b, sizeof b),
		         tix_fmt_dur(bd->idle_other_ns, c, sizeof c), tix_fmt_dur(bd->idle_sync_ns, d, sizeof d));
		return buf;
	}
	return NULL;
}

const char *tix_findings_total(const struct tix_findings *F, char *buf, size_t cap)
{
	char a[48], b[48];
	int64_t step = F->basis.wall_ns > F->basis.span_ns ? F->basis.wall_ns : F->basis.span_ns;
	snprintf(buf, cap, "counted once, the findings could save up to %s of the %s step (%s)",
	         tix_fmt_dur(F->total_saving_ns, a, sizeof a), tix_fmt_dur(step, b, sizeof b), F->total_basis);
	return buf;
}

const char *tix_evidence_text(const struct tix_evidence *e, char *buf, size_t cap)
{
	if (e->text[0]) {
		snprintf(buf, cap, "%s", e->text);
		return buf;
	}
	if (!isfinite(e->value)) {
		snprintf(buf, cap, "-");
		return buf;
	}
	const char *u = e->unit ? e->unit : "";
	if (!strcmp(u, "ns"))
		return tix_fmt_dur((int64_t)llround(e->value), buf, cap);
	if (!strcmp(u, "ratio")) {
		snprintf(buf, cap, "%.1f%%", 100 * e->value);
		return buf;
	}
	if (u[0])
		return tix_fmt_scaled(e->value, u, buf, cap);
	if (e->value == floor(e->value) && fabs(e->value) < 1e15)
		return tix_fmt_count((uint64_t)fabs(e->value), buf, cap);
	snprintf(buf, cap, "%.1f", e->value);
	return buf;
}
