/* tix findings: why a step is slow, ranked by what a fix could save
 * (docs/FINDINGS.md; the rules are index/findings.c's, the text here only
 * lays them out).  Text for people, JSON with the keys of FINDINGS.md,
 * section 9. */
#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "index/findings.h"
#include "index/view/view.h"

/* ---- shared words ---- */

static const char *fmt_dur(int64_t ns, char *b, size_t cap)
{
	tix_fmt_dur(b, cap, ns);
	return b;
}

/* The short label of a kernel group, or its name. */
static const char *group_label(const struct tix_index *ix, uint32_t group)
{
	const struct tix_group *g = tix_group_get(ix, group);
	if (!g)
		return "";
	uint32_t s = tix_name_short(ix, g->name);
	return tix_str(ix, s != TIX_NONE ? s : g->name);
}

static void print_text_header(const struct tix_index *ix, const char *path, const struct tix_findings *F,
                              const struct tix_breakdown *bd)
{
	char a[48], b[48], c[48], d[48], e[48], pb[300];
	printf("findings: %s\n", tix_printable(path, pb, sizeof pb));
	if (F->step != TIX_NONE) {
		const struct tix_step *st = tix_step_get(ix, F->step);
		printf("step:     %u, %s, wall %s, GPU time %s\n", F->step,
		       tix_printable(tix_str(ix, st ? st->name : TIX_NONE), pb, sizeof pb),
		       fmt_dur(F->basis.wall_ns, a, sizeof a), fmt_dur(F->basis.gpu_ns, b, sizeof b));
	} else {
		printf("per step: averaged over %u step%s of %s wall, %s of GPU time each\n", F->basis.steps,
		       F->basis.steps == 1 ? "" : "s", fmt_dur(F->basis.wall_ns, a, sizeof a),
		       fmt_dur(F->basis.gpu_ns, b, sizeof b));
	}
	const struct tix_device *dv = &F->device;
	if (dv->known)
		printf("device:   %s%s%s: %s memory bandwidth, BF16 %s dense%s\n",
		       dv->name[0] ? tix_printable(dv->name, pb, sizeof pb) : "(given)",
		       dv->model ? " as " : "", dv->model ? dv->model : "",
		       dv->peak_Bps > 0 ? tix_fmt_scaled(dv->peak_Bps, "B/s", a, sizeof a) : "-",
		       dv->peak_flops[TIX_PEAK_BF16] > 0 ? tix_fmt_scaled(dv->peak_flops[TIX_PEAK_BF16], "FLOP/s", b, sizeof b) : "-",
		       dv->overridden ? " (from --peak-bw / --peak-flops)" : "");
	else
		printf("device:   %s: no peaks known\n", dv->name[0] ? tix_printable(dv->name, pb, sizeof pb) : "not named");
	int64_t span = bd->span_end - bd->span_start;
	if (span > 0) {
		printf("GPU time: span %s = compute %s + exposed comm %s + memory %s + idle %s\n",
		       fmt_dur(span, a, sizeof a), fmt_dur(bd->compute_ns, b, sizeof b), fmt_dur(bd->comm_ns, c, sizeof c),
		       fmt_dur(bd->memory_ns, d, sizeof d), fmt_dur(bd->idle_ns, e, sizeof e));
		printf("idle:     host wait %s, kernel wait %s, other %s; %s of it while a synchronising call ran\n",
		       fmt_dur(bd->idle_host_ns, a, sizeof a), fmt_dur(bd->idle_kernel_ns, b, sizeof b),
		       fmt_dur(bd->idle_other_ns, c, sizeof c), fmt_dur(bd->idle_sync_ns, d, sizeof d));
	}
}

/* A finding's main line: the cells of its row in the findings view
 * (index/view/findings.c), what the TUI's Findings view draws. */
static void print_main_line(const struct tix_view *fv, uint32_t row)
{
	int nc;
	const struct tix_col *cols = tix_view_columns(fv, &nc);
	char buf[TIX_FIND_COL_COUNT][400], pb[400];
	const char *t[TIX_FIND_COL_COUNT];
	for (int c = 0; c < TIX_FIND_COL_COUNT && c < nc; c++)
		t[c] = tix_view_text(fv, row, c, NULL, buf[c], sizeof buf[c]);
	printf("%*s  %*s  %*s %-*s  %s\n", cols[TIX_FIND_COL_RANK].width, t[TIX_FIND_COL_RANK],
	       cols[TIX_FIND_COL_SAVING].width, t[TIX_FIND_COL_SAVING], cols[TIX_FIND_COL_SHARE].width,
	       t[TIX_FIND_COL_SHARE], cols[TIX_FIND_COL_RULE].width, t[TIX_FIND_COL_RULE],
	       tix_printable(t[TIX_FIND_COL_TITLE], pb, sizeof pb));
}

static void print_text(struct tix_index *ix, const char *path, const struct tix_findings *F,
                       const struct tix_breakdown *bd, long top)
{
	char a[48], b[48], pb[400];
	print_text_header(ix, path, F, bd);
	struct tix_error verr;
	struct tix_view *fv = F->n ? tix_view_findings(ix, F, &verr) : NULL;
	if (F->n && !fv) {
		fprintf(stderr, "tix findings: %s\n", verr.msg);
		return;
	}
	uint32_t n = top > 0 && (uint32_t)top < F->n ? (uint32_t)top : F->n;
	if (!F->n) {
		printf("\nno findings%s\n", F->nnotes ? " (see the notes)" : "");
	} else {
		printf("\n  #  Saving/step  Share  Rule           Finding\n");
		for (uint32_t i = 0; i < n; i++) {
			const struct tix_finding *f = &F->items[i];
			print_main_line(fv, i);
			printf("%30s how: %s\n", "", tix_printable(f->basis, pb, sizeof pb));
			if (f->nops) {
				printf("%30s ops: ", "");
				for (uint32_t k = 0; k < f->nops; k++)
					printf("%s%s", k ? " > " : "", tix_printable(tix_str(ix, f->ops[k]), pb, sizeof pb));
				putchar('\n');
			}
			if (f->group != TIX_NONE)
				printf("%30s kernel: %s\n", "", tix_printable(group_label(ix, f->group), pb, sizeof pb));
			if (f->noverlaps) {
				printf("%30s overlaps", "");
				for (int k = 0; k < f->noverlaps; k++)
					printf(" #%d", f->overlaps[k] + 1);
				printf(" (the same time: counted once)\n");
			}
		}
		if (n < F->n)
			printf("(%u more; --top N shows more, --top 0 all)\n", F->n - n);
		printf("\ncounted once, the findings could save up to %s of the %s step (%s)\n",
		       fmt_dur(F->total_saving_ns, a, sizeof a), fmt_dur(F->basis.wall_ns > F->basis.span_ns ? F->basis.wall_ns : F->basis.span_ns, b, sizeof b),
		       F->total_basis);
		printf("Share: of the step's GPU time; w: of its wall time\n");
	}
	tix_view_free(fv);
	for (int i = 0; i < F->nnotes; i++)
		printf("%s %s\n", i ? "      " : "\nnotes:", tix_printable(F->notes[i], pb, sizeof pb));
}

/* ---- JSON ---- */

static void jkey(const char *k)
{
	printf("\"%s\": ", k);
}

static void jstr(const char *s)
{
	json_str(stdout, s, strlen(s));
}

static void jnum(double v)
{
	if (!isfinite(v))
		fputs("null", stdout);
	else if (v == floor(v) && fabs(v) < 9e15)
		printf("%.0f", v);
	else
		printf("%.17g", v);
}

static void jns(int64_t v)
{
	printf("%lld", (long long)v);
}

static void json_breakdown(const struct tix_breakdown *bd, int64_t wall)
{
	jkey("wall_ns");
	if (wall >= 0)
		jns(wall);
	else
		fputs("null", stdout);
	printf(", ");
	struct {
		const char *k;
		int64_t v;
	} f[] = {{"span_ns", bd->span_end - bd->span_start}, {"busy_ns", bd->busy_ns},
	         {"compute_ns", bd->compute_ns},             {"comm_ns", bd->comm_ns},
	         {"memory_ns", bd->memory_ns},               {"idle_ns", bd->idle_ns},
	         {"overlap_ns", bd->overlap_ns},             {"idle_host_ns", bd->idle_host_ns},
	         {"idle_kernel_ns", bd->idle_kernel_ns},     {"idle_other_ns", bd->idle_other_ns},
	         {"idle_sync_ns", bd->idle_sync_ns},         {"launch_bound_idle_ns", bd->launch_bound_idle_ns},
	         {"launch_bound_kernels", bd->launch_bound_kernels}, {"gpu_ns", bd->gpu_ns},
	         {"gpu_events", bd->gpu_events},             {"gaps", bd->gaps},
	         {"sync_calls", bd->sync_calls},             {"sync_cpu_ns", bd->sync_cpu_ns},
	         {"pageable_copies", bd->pageable_copies},   {"pageable_ns", bd->pageable_ns}};
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
		printf("%s", i ? ", " : "");
		jkey(f[i].k);
		jns(f[i].v);
	}
}

static void json_device(const struct tix_device *d)
{
	printf("{");
	jkey("id");
	if (d->id >= 0)
		printf("%d", d->id);
	else
		fputs("null", stdout);
	printf(", ");
	jkey("name");
	jstr(d->name);
	printf(", ");
	jkey("model");
	if (d->model)
		jstr(d->model);
	else
		fputs("null", stdout);
	printf(", ");
	jkey("source");
	if (d->source)
		jstr(d->source);
	else
		fputs("null", stdout);
	printf(", ");
	jkey("peak_bytes_per_s");
	jnum(d->peak_Bps > 0 ? d->peak_Bps : NAN);
	printf(", ");
	jkey("peak_flops");
	int any = 0;
	for (int p = 0; p < TIX_PEAK_COUNT; p++)
		any |= d->peak_flops[p] > 0;
	if (!any) {
		fputs("null", stdout);
	} else {
		printf("{");
		for (int p = 0; p < TIX_PEAK_COUNT; p++) {
			printf("%s", p ? ", " : "");
			jkey(tix_peak_name((enum tix_peak)p));
			jnum(d->peak_flops[p] > 0 ? d->peak_flops[p] : NAN);
		}
		printf("}");
	}
	printf(", ");
	jkey("overridden");
	printf("%s}", d->overridden ? "true" : "false");
}

static void json_streams(const struct tix_index *ix, const struct tix_breakdown *bd)
{
	const struct tix_stream_idle *si = tix_stream_idle(ix, bd->streams_first, bd->streams_count);
	printf("[");
	for (uint32_t i = 0; si && i < bd->streams_count; i++) {
		const struct tix_track *t = tix_track_get(ix, si[i].track);
		printf("%s{", i ? ", " : "");
		jkey("stream");
		jstr(tix_str(ix, t->name));
		printf(", \"device\": %d, \"stream_id\": %d, \"gaps\": %u, ", t->device, t->stream, si[i].gaps);
		printf("\"host_wait_ns\": %lld, \"kernel_wait_ns\": %lld, \"other_ns\": %lld, "
		       "\"launch_bound_idle_ns\": %lld}",
		       (long long)si[i].host_wait_ns, (long long)si[i].kernel_wait_ns, (long long)si[i].other_ns,
		       (long long)si[i].launch_bound_idle_ns);
	}
	printf("]");
}

static void json_shapes(const struct tix_index *ix, const struct tix_findings *F, long top)
{
	uint32_t n = tix_op_shape_count(ix), shown = 0;
	uint32_t limit = top > 0 ? (uint32_t)top : (top == 0 ? UINT32_MAX : 10);
	printf("[");
	for (uint32_t i = 0; i < n && shown < limit; i++) {
		const struct tix_op_shape *o = tix_op_shape_get(ix, i);
		struct tix_shape_figures sf;
		tix_shape_figures(ix, &F->device, i, F->step, &sf);
		if (F->step != TIX_NONE && sf.gpu_ns == 0)
			continue;
		const struct tix_op_info *oi = tix_op_info_get(ix, o->op_info);
		printf("%s{", shown++ ? ", " : "");
		jkey("op");
		jstr(tix_str(ix, o->name));
		printf(", ");
		jkey("dims");
		jstr(oi && oi->dims != TIX_NONE ? tix_str(ix, oi->dims) : "");
		printf(", ");
		jkey("types");
		jstr(oi && oi->types != TIX_NONE ? tix_str(ix, oi->types) : "");
		printf(", \"class\": \"%s\", ", tix_op_class_name((enum tix_op_class)o->cls));
		printf("\"calls\": %u, \"calls_per_step\": ", o->calls);
		jnum(sf.calls);
		printf(", \"gpu_events\": %u, \"gpu_ns\": %lld, \"gpu_ns_per_step\": %lld, \"flops\": ", o->gpu_events,
		       (long long)o->gpu_ns, (long long)sf.gpu_ns);
		jnum(sf.cost.flops >= 0 ? sf.cost.flops : NAN);
		printf(", \"bytes\": ");
		jnum(sf.cost.bytes >= 0 ? sf.cost.bytes : NAN);
		printf(", \"peak_fraction\": ");
		jnum(sf.peak_fraction >= 0 ? sf.peak_fraction : NAN);
		printf(", \"kernels\": [");
		uint32_t gc;
		const struct tix_op_group *gs = tix_op_shape_groups(ix, i, &gc);
		for (uint32_t k = 0; k < gc; k++) {
			printf("%s", k ? ", " : "");
			jstr(group_label(ix, gs[k].group));
		}
		printf("]}");
	}
	printf("]");
}

static void json_finding(const struct tix_index *ix, const struct tix_finding *f, uint32_t rank)
{
	printf("{\"rank\": %u, ", rank);
	jkey("rule");
	jstr(tix_rule_name(f->rule));
	printf(", ");
	jkey("title");
	jstr(f->title);
	printf(", \"gpu_ns\": %lld, \"share\": ", (long long)f->gpu_ns);
	jnum(f->share);
	printf(", \"share_of\": \"%s\", \"saving_ns\": %lld, ", f->share_of_wall ? "wall_time" : "gpu_time",
	       (long long)f->saving_ns);
	jkey("saving_basis");
	jstr(f->basis);
	printf(", \"overlaps\": [");
	for (int k = 0; k < f->noverlaps; k++)
		printf("%s%d", k ? ", " : "", f->overlaps[k] + 1);
	printf("], \"kernels\": [");
	if (f->group != TIX_NONE)
		jstr(group_label(ix, f->group));
	printf("], \"ops\": [");
	for (uint32_t k = 0; k < f->nops; k++) {
		printf("%s", k ? ", " : "");
		jstr(tix_str(ix, f->ops[k]));
	}
	printf("], \"evidence\": {");
	for (int k = 0; k < f->nev; k++) {
		printf("%s", k ? ", " : "");
		jkey(f->ev[k].key);
		if (f->ev[k].text[0])
			jstr(f->ev[k].text);
		else
			jnum(f->ev[k].value);
	}
	printf("}}");
}

static void print_json(const struct tix_index *ix, const char *path, const struct tix_findings *F,
                       const struct tix_breakdown *bd, long top)
{
	printf("{");
	jkey("trace");
	jstr(path);
	printf(", \"steps\": %u, \"step\": ", tix_step_count(ix));
	if (F->step != TIX_NONE)
		printf("%u", F->step);
	else
		fputs("null", stdout);
	printf(", ");
	jkey("device");
	json_device(&F->device);
	printf(", ");
	jkey("breakdown");
	printf("{");
	const struct tix_step *st = F->step != TIX_NONE ? tix_step_get(ix, F->step) : NULL;
	json_breakdown(bd, st ? st->dur_ns : -1);
	printf("}");
	if (F->step == TIX_NONE) {
		printf(", ");
		jkey("per_step");
		printf("[");
		uint32_t ns = tix_step_count(ix) + (tix_step_before_trace(ix) != TIX_NONE);
		for (uint32_t s = 0; s < ns; s++) {
			const struct tix_step *sp = tix_step_get(ix, s);
			const struct tix_breakdown *sb = tix_breakdown_get(ix, s);
			printf("%s{\"step\": %u, ", s ? ", " : "", s);
			jkey("name");
			jstr(tix_str(ix, sp->name));
			printf(", ");
			json_breakdown(sb, sp->dur_ns);
			printf("}");
		}
		printf("]");
	}
	printf(", ");
	jkey("idle");
	json_streams(ix, bd);
	printf(", ");
	jkey("op_shapes");
	json_shapes(ix, F, top);
	printf(", ");
	jkey("findings");
	printf("[");
	uint32_t n = top > 0 && (uint32_t)top < F->n ? (uint32_t)top : F->n;
	for (uint32_t i = 0; i < n; i++) {
		printf("%s", i ? ", " : "");
		json_finding(ix, &F->items[i], i + 1);
	}
	printf("], \"total_saving_ns\": %lld, ", (long long)F->total_saving_ns);
	jkey("total_basis");
	jstr(F->total_basis);
	printf(", ");
	jkey("notes");
	printf("[");
	for (int i = 0; i < F->nnotes; i++) {
		printf("%s", i ? ", " : "");
		jstr(F->notes[i]);
	}
	printf("]}\n");
}

int cmd_findings(int argc, char **argv)
{
	struct args a;
	if (args_parse(argc, argv, &a, ARG_STEP | ARG_TOP | ARG_FORMAT | ARG_PEAK) != 0)
		return EXIT_USAGE;
	if (a.help) {
		cli_help(stdout, "findings");
		return EXIT_OK;
	}
	struct tix_index *ix;
	if (args_open(&a, &ix) != 0)
		return a.exit_status;
	struct tix_findings_opts o = {a.has_step ? (uint32_t)a.step : TIX_NONE, a.peak_bw, a.peak_flops};
	struct tix_findings *F;
	struct tix_error err;
	if (tix_findings_compute(ix, &o, &F, &err) != 0) {
		fprintf(stderr, "tix findings: %s\n", err.msg);
		tix_index_close(ix);
		return cli_exit_status(&err);
	}
	const struct tix_breakdown *bd = tix_breakdown_get(ix, o.step);
	long top = a.top >= 0 ? a.top : (strcmp(a.format, "json") ? 10 : 0);
	if (!strcmp(a.format, "json"))
		print_json(ix, a.trace, F, bd, top);
	else
		print_text(ix, a.trace, F, bd, top);
	tix_findings_free(F);
	tix_index_close(ix);
	return EXIT_OK;
}
