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

/* The short label of a kernel group (text), or its full demangled name
 * (JSON: what a program matches on). */
static const char *group_label(const struct tix_index *ix, uint32_t group)
{
	const struct tix_group *g = tix_group_get(ix, group);
	if (!g)
		return "";
	uint32_t s = tix_name_short(ix, g->name);
	return tix_str(ix, s != TIX_NONE ? s : g->name);
}

/* A kernel group's name as the trace gives it (JSON). */
static const char *group_name(const struct tix_index *ix, uint32_t group)
{
	const struct tix_group *g = tix_group_get(ix, group);
	return g ? tix_str(ix, g->name) : "";
}

/* Whether some GPU work has a launch call: without any, host wait and what
 * follows from it are unknown (null), not 0. */
static int has_launches(const struct tix_index *ix)
{
	struct tix_summary_info si;
	tix_index_summary(ix, &si);
	uint32_t gpu = si.kind_counts[TIX_KIND_KERNEL] + si.kind_counts[TIX_KIND_MEMCPY] +
	               si.kind_counts[TIX_KIND_MEMSET];
	return si.gpu_without_launch < gpu;
}

/* A stream's label: "stream N" by its number, else its track's name. */
static void stream_label(const struct tix_index *ix, const struct tix_track *t, char *buf, size_t cap)
{
	if (t->stream >= 0)
		snprintf(buf, cap, "stream %d", t->stream);
	else
		snprintf(buf, cap, "%s", tix_str(ix, t->name));
}

static void print_text_header(const struct tix_index *ix, const char *path, const struct tix_findings *F,
                              const struct tix_breakdown *bd)
{
	char a[48], b[48], c[48], d[48], e[48], pb[300];
	printf("findings  %s\n", tix_printable(path, pb, sizeof pb));
	if (F->step != TIX_NONE) {
		const struct tix_step *st = tix_step_get(ix, F->step);
		printf("step      %u, %s, wall %s, GPU time %s\n", F->step,
		       tix_printable(tix_str(ix, st ? st->name : TIX_NONE), pb, sizeof pb),
		       tix_fmt_dur(F->basis.wall_ns, a, sizeof a), tix_fmt_dur(F->basis.gpu_ns, b, sizeof b));
	} else {
		printf("per step  averaged over %u step%s of %s wall, %s of GPU time each\n", F->basis.steps,
		       F->basis.steps == 1 ? "" : "s", tix_fmt_dur(F->basis.wall_ns, a, sizeof a),
		       tix_fmt_dur(F->basis.gpu_ns, b, sizeof b));
	}
	const struct tix_device *dv = &F->device;
	if (dv->known)
		printf("device    %s%s%s: %s memory bandwidth, BF16 %s dense%s\n",
		       dv->name[0] ? tix_printable(dv->name, pb, sizeof pb) : "(given)",
		       dv->model ? " as " : "", dv->model ? dv->model : "",
		       dv->peak_Bps > 0 ? tix_fmt_scaled(dv->peak_Bps, "B/s", a, sizeof a) : "-",
		       dv->peak_flops[TIX_PEAK_BF16] > 0 ? tix_fmt_scaled(dv->peak_flops[TIX_PEAK_BF16], "FLOP/s", b, sizeof b) : "-",
		       dv->overridden ? " (from --peak-bw / --peak-flops)" : "");
	else
		printf("device    %s: no peaks known\n", dv->name[0] ? tix_printable(dv->name, pb, sizeof pb) : "not named");
	int64_t span = bd->span_end - bd->span_start;
	if (span > 0) {
		printf("GPU time  span %s = compute %s + exposed comm %s + memory %s + idle %s\n",
		       tix_fmt_dur(span, a, sizeof a), tix_fmt_dur(bd->compute_ns, b, sizeof b), tix_fmt_dur(bd->comm_ns, c, sizeof c),
		       tix_fmt_dur(bd->memory_ns, d, sizeof d), tix_fmt_dur(bd->idle_ns, e, sizeof e));
		printf("idle      host wait %s, kernel wait %s, other %s; %s of it while a synchronising call ran\n",
		       tix_fmt_dur(bd->idle_host_ns, a, sizeof a), tix_fmt_dur(bd->idle_kernel_ns, b, sizeof b),
		       tix_fmt_dur(bd->idle_other_ns, c, sizeof c), tix_fmt_dur(bd->idle_sync_ns, d, sizeof d));
	}
}

/* A finding's main line: the cells of its row in the findings view
 * (index/view/findings.c), what the TUI's Findings view draws, laid out
 * under the header line above. */
static void print_main_line(const struct tix_view *fv, uint32_t row)
{
	char buf[TIX_FIND_COL_COUNT][400], pb[400];
	const char *t[TIX_FIND_COL_COUNT];
	for (int c = 0; c < TIX_FIND_COL_COUNT; c++)
		t[c] = tix_view_text(fv, row, c, NULL, buf[c], sizeof buf[c]);
	printf("%3s  %11s  %6s %-13s  %s\n", t[TIX_FIND_COL_RANK], t[TIX_FIND_COL_SAVING], t[TIX_FIND_COL_SHARE],
	       t[TIX_FIND_COL_RULE], tix_printable(t[TIX_FIND_COL_TITLE], pb, sizeof pb));
}

static void print_text(struct tix_index *ix, const char *path, const struct tix_findings *F,
                       const struct tix_breakdown *bd, long top)
{
	char a[48], b[48], pb[400];
	(void)bd;
	print_text_header(ix, path, F, &F->per_step);
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
			if (f->has_gap) {
				const struct tix_step *gs = tix_step_get(ix, f->gap_step);
				struct tix_event ge;
				tix_event_get(ix, f->gap.next_row, &ge);
				const struct tix_track *gt = tix_track_get(ix, ge.track);
				char lane[160];
				stream_label(ix, gt, lane, sizeof lane);
				printf("%30s gap: the longest of step %u, %s at +%s in the step, ended by %s on %s\n", "",
				       f->gap_step, tix_fmt_dur(f->gap.dur_ns, a, sizeof a),
				       tix_fmt_dur(gs ? f->gap.start_ns - gs->start_ns : 0, b, sizeof b),
				       tix_printable(tix_str(ix, tix_name_short(ix, ge.name) != TIX_NONE ? tix_name_short(ix, ge.name)
				                                                                          : ge.name),
				                     pb, sizeof pb),
				       lane);
			}
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
		       tix_fmt_dur(F->total_saving_ns, a, sizeof a), tix_fmt_dur(F->basis.wall_ns > F->basis.span_ns ? F->basis.wall_ns : F->basis.span_ns, b, sizeof b),
		       F->total_basis);
		printf("Share: of the step's GPU time; w: of its wall time\n");
	}
	tix_view_free(fv);
	for (int i = 0; i < F->nnotes; i++)
		printf("%s%s\n", i ? "          " : "\nnotes     ", tix_printable(F->notes[i], pb, sizeof pb));
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

/* A JSON text of the trace's (Input Dims, Input type, Concrete Inputs) as a
 * string in one canonical line: no white space but a space after each
 * comma and colon (as Python's json.dumps writes it), so a value written
 * over many lines (vLLM's) reads and compares as one. */
static void jtext(const char *t)
{
	if (!t) { /* the trace gave none */
		fputs("null", stdout);
		return;
	}
	size_t n = strlen(t);
	char *out = malloc(2 * n + 1);
	if (!out) {
		jstr(t);
		return;
	}
	size_t k = 0;
	int in_str = 0;
	for (const char *p = t; *p; p++) {
		if (in_str) {
			out[k++] = *p;
			if (*p == '\\' && p[1])
				out[k++] = *++p;
			else if (*p == '"')
				in_str = 0;
			continue;
		}
		if (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
			continue;
		out[k++] = *p;
		if (*p == '"')
			in_str = 1;
		else if (*p == ',' || *p == ':')
			out[k++] = ' ';
	}
	out[k] = 0;
	jstr(out);
	free(out);
}

static void json_breakdown(const struct tix_breakdown *bd, int64_t wall, int launches)
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
		if (!launches && (!strcmp(f[i].k, "idle_host_ns") || !strcmp(f[i].k, "idle_sync_ns") ||
		                  !strncmp(f[i].k, "launch_bound", 12)))
			fputs("null", stdout);
		else
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


static void json_streams(const struct tix_index *ix, const struct tix_breakdown *bd, int launches)
{
	const struct tix_stream_idle *si = tix_stream_idle(ix, bd->streams_first, bd->streams_count);
	printf("[");
	for (uint32_t i = 0; si && i < bd->streams_count; i++) {
		const struct tix_track *t = tix_track_get(ix, si[i].track);
		char label[160];
		stream_label(ix, t, label, sizeof label);
		printf("%s{", i ? ", " : "");
		jkey("stream");
		jstr(label);
		printf(", \"device\": ");
		if (t->device >= 0)
			printf("%d", t->device);
		else
			fputs("null", stdout);
		printf(", \"stream_id\": ");
		if (t->stream >= 0)
			printf("%d", t->stream);
		else
			fputs("null", stdout);
		printf(", \"gaps\": %u, \"host_wait_ns\": ", si[i].gaps);
		if (launches)
			jns(si[i].host_wait_ns);
		else
			fputs("null", stdout);
		printf(", \"kernel_wait_ns\": %lld, \"other_ns\": %lld, \"launch_bound_idle_ns\": ",
		       (long long)si[i].kernel_wait_ns, (long long)si[i].other_ns);
		if (launches)
			jns(si[i].launch_bound_idle_ns);
		else
			fputs("null", stdout);
		printf("}");
	}
	printf("]");
}

/* The op-shape groups over the trace, or of one step (its own records). */
static void json_shapes(const struct tix_index *ix, const struct tix_findings *F, long top)
{
	uint32_t n = tix_op_shape_count(ix), shown = 0, nstep = 0;
	uint32_t limit = top > 0 ? (uint32_t)top : (top == 0 ? UINT32_MAX : 10);
	const struct tix_op_shape *step = F->step != TIX_NONE ? tix_step_op_shapes(ix, F->step, &nstep) : NULL;
	if (step)
		n = nstep;
	printf("[");
	for (uint32_t i = 0; i < n && shown < limit; i++) {
		const struct tix_op_shape *o = step ? &step[i] : tix_op_shape_get(ix, i);
		struct tix_shape_figures sf;
		tix_shape_figures(ix, &F->device, o->shape, F->step, &sf);
		const struct tix_op_info *oi = tix_op_info_get(ix, o->op_info);
		printf("%s{", shown++ ? ", " : "");
		jkey("op");
		jstr(tix_str(ix, o->name));
		printf(", ");
		jkey("dims");
		jtext(oi && oi->dims != TIX_NONE ? tix_str(ix, oi->dims) : NULL);
		printf(", ");
		jkey("types");
		jtext(oi && oi->types != TIX_NONE ? tix_str(ix, oi->types) : NULL);
		printf(", ");
		jkey("concrete");
		jtext(oi && oi->concrete != TIX_NONE ? tix_str(ix, oi->concrete) : NULL);
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
		const struct tix_op_group *gs = tix_op_shape_groups(ix, o->shape, &gc);
		for (uint32_t k = 0; k < gc; k++) {
			printf("%s", k ? ", " : "");
			jstr(group_name(ix, gs[k].group));
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
	if (ix && f->group != TIX_NONE)
		jstr(group_name(ix, f->group));
	printf("], \"ops\": [");
	for (uint32_t k = 0; ix && k < f->nops; k++) {
		printf("%s", k ? ", " : "");
		jstr(tix_str(ix, f->ops[k]));
	}
	printf("], \"row\": ");
	if (f->row != TIX_NONE)
		printf("%u", f->row);
	else
		fputs("null", stdout);
	printf(", \"gap\": ");
	if (f->has_gap)
		printf("{\"step\": %u, \"start_ns\": %lld, \"dur_ns\": %lld, \"row\": %u}", f->gap_step,
		       (long long)f->gap.start_ns, (long long)f->gap.dur_ns, f->gap.next_row);
	else
		fputs("null", stdout);
	printf(", \"evidence\": {");
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
	int launches = has_launches(ix);
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
	json_breakdown(bd, st ? st->dur_ns : -1, launches);
	printf("}");
	if (F->step == TIX_NONE) {
		printf(", ");
		jkey("per_step");
		printf("[");
		/* "(before the trace)" first, as summary --by step lists it */
		uint32_t real = tix_step_count(ix), before = tix_step_before_trace(ix), k = 0;
		for (uint32_t i = 0; i < real + (before != TIX_NONE); i++) {
			uint32_t s = before != TIX_NONE ? (i == 0 ? before : i - 1) : i;
			const struct tix_step *sp = tix_step_get(ix, s);
			const struct tix_breakdown *sb = tix_breakdown_get(ix, s);
			printf("%s{\"step\": ", k++ ? ", " : "");
			if (s == before)
				fputs("null", stdout);
			else
				printf("%u", s);
			printf(", ");
			jkey("name");
			jstr(tix_str(ix, sp->name));
			printf(", ");
			json_breakdown(sb, sp->dur_ns, launches);
			printf("}");
		}
		printf("]");
	}
	printf(", ");
	jkey("idle");
	json_streams(ix, bd, launches);
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

/* One trace's findings, printed; 0, or an exit status. */
static int one_trace(const char *path, struct args *a, struct tix_rank_trace **rank_out, int json)
{
	struct tix_index *ix;
	a->trace = path;
	if (args_open(a, &ix) != 0)
		return a->exit_status;
	struct tix_findings_opts o = {a->has_step ? (uint32_t)a->step : TIX_NONE, a->peak_bw, a->peak_flops};
	struct tix_findings *F;
	struct tix_error err;
	if (tix_findings_compute(ix, &o, &F, &err) != 0) {
		fprintf(stderr, "tix findings: %s\n", err.msg);
		tix_index_close(ix);
		return cli_exit_status(&err);
	}
	if (rank_out && !(*rank_out = tix_rank_trace_new(ix, path, &err))) {
		fprintf(stderr, "tix findings: %s\n", err.msg);
		tix_findings_free(F);
		tix_index_close(ix);
		return cli_exit_status(&err);
	}
	const struct tix_breakdown *bd = tix_breakdown_get(ix, o.step);
	long top = a->top >= 0 ? a->top : (json ? 0 : 10);
	if (json)
		print_json(ix, path, F, bd, top);
	else
		print_text(ix, path, F, bd, top);
	tix_findings_free(F);
	tix_index_close(ix);
	return EXIT_OK;
}

/* The rank set's own finding (the straggler), after every trace's. */
static int rank_set(struct tix_rank_trace **traces, uint32_t n, int json)
{
	struct tix_error err;
	struct tix_rank_set *rs = tix_rank_set_new(traces, n, TIX_RANK_AUTO, &err);
	if (!rs) {
		fprintf(stderr, "tix findings: %s\n", err.msg);
		return cli_exit_status(&err);
	}
	struct tix_finding f;
	int has = tix_rank_straggler_finding(rs, &f);
	char a[48], pb[400];
	if (json) {
		printf("{\"ranks\": %u, \"rank_rule\": ", tix_rank_count(rs));
		jstr(tix_rank_rule_key(rs));
		printf(", \"findings\": [");
		if (has)
			json_finding(NULL, &f, 1);
		printf("]}");
	} else {
		printf("rank set  %u traces, ranks by %s\n", tix_rank_count(rs), tix_rank_rule_text(rs));
		if (has) {
			printf("%3u  %11s  %4.1f%%w %-13s  %s\n", 1u, tix_fmt_dur(f.saving_ns, a, sizeof a), 100 * f.share,
			       tix_rule_name(f.rule), tix_printable(f.title, pb, sizeof pb));
			printf("%30s how: %s\n", "", tix_printable(f.basis, pb, sizeof pb));
		} else {
			printf("no straggler: no rank is waited for longer than %.0f%% of a step\n",
			       100 * TIX_FIND_MIN_SHARE);
		}
	}
	tix_rank_set_free(rs);
	return EXIT_OK;
}

int cmd_findings(int argc, char **argv)
{
	/* tix findings TRACE... [options]: the traces are the arguments that
	 * are neither options nor an option's value */
	char **v = calloc((size_t)argc + 2, sizeof *v);
	const char **paths = calloc((size_t)argc + 1, sizeof *paths);
	int n = 0, np = 0, rc = EXIT_OK;
	if (!v || !paths) {
		free(v);
		free(paths);
		fprintf(stderr, "tix findings: out of memory\n");
		return EXIT_ENV;
	}
	v[n++] = argv[0];
	for (int i = 1; i < argc; i++) {
		if (cli_opt_takes_value("findings", argv[i]) && i + 1 < argc) {
			v[n++] = argv[i++];
			v[n++] = argv[i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			v[n++] = argv[i];
		} else {
			paths[np++] = argv[i];
		}
	}
	if (np)
		v[n++] = (char *)paths[0]; /* args_parse checks the options over one */
	struct args a;
	if (args_parse(n, v, &a) != 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (a.help) {
		cli_help(stdout, "findings");
		goto out;
	}
	int json = !strcmp(a.format, "json");
	if (np == 1) {
		rc = one_trace(paths[0], &a, NULL, json);
		goto out;
	}
	/* the ranks of one run: each trace's findings, then the set's */
	struct tix_rank_trace **traces = calloc((size_t)np, sizeof *traces);
	if (!traces) {
		rc = EXIT_ENV;
		goto out;
	}
	if (json)
		printf("{\"traces\": [");
	int got = 0;
	for (int i = 0; i < np && rc == EXIT_OK; i++) {
		if (json && i)
			printf(", ");
		else if (!json && i)
			printf("\n");
		rc = one_trace(paths[i], &a, &traces[i], json);
		got += rc == EXIT_OK;
	}
	if (rc == EXIT_OK) {
		if (json)
			printf("], \"rank_set\": ");
		else
			printf("\n");
		rc = rank_set(traces, (uint32_t)np, json); /* the set owns the traces now */
		if (json)
			printf("}\n");
	} else {
		for (int i = 0; i < got; i++)
			tix_rank_trace_free(traces[i]);
	}
	free(traces);
out:
	cli_open_opts_done(&a.open);
	free(v);
	free(paths);
	return rc;
}
