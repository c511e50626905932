/* summary, info, index and export: the headless twins of the TUI views. */
#include "cli/cli.h"

#include <inttypes.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/args.h"

static void dim3(char *buf, size_t cap, const int32_t d[3])
{
	if (!tix_dim3_known(d))
		snprintf(buf, cap, "-");
	else
		snprintf(buf, cap, "[%d,%d,%d]", d[0], d[1], d[2]);
}

static void json_dim3(FILE *f, const int32_t d[3])
{
	if (!tix_dim3_known(d))
		fputs("null", f);
	else
		fprintf(f, "[%d, %d, %d]", d[0], d[1], d[2]);
}

/* "name" (demangled in full), "short_name", and "mangled_name" when the
 * trace's name was mangled. */
static void json_names(struct tix_index *ix, uint32_t name)
{
	uint32_t full = tix_name_full(ix, name), sh = tix_name_short(ix, name);
	printf("\"name\": ");
	json_str(stdout, tix_str(ix, full), tix_str_len(ix, full));
	if (sh != TIX_NONE) {
		printf(", \"short_name\": ");
		json_str(stdout, tix_str(ix, sh), tix_str_len(ix, sh));
	}
	if (full != name) {
		printf(", \"mangled_name\": ");
		json_str(stdout, tix_str(ix, name), tix_str_len(ix, name));
	}
}

/* The short label of a GPU work name, as the TUI shows it. */
static const char *short_label(struct tix_index *ix, uint32_t name, char *buf, size_t cap)
{
	uint32_t sh = tix_name_short(ix, name);
	if (sh != TIX_NONE)
		return tix_str(ix, sh);
	uint32_t full = tix_name_full(ix, name);
	tix_short_name(tix_str(ix, full), tix_str_len(ix, full), buf, cap);
	return buf;
}

static void summary_kernels(struct tix_index *ix, const struct args *a)
{
	const struct tix_group *gs;
	uint32_t ng;
	int64_t total = 0;
	if (a->has_step) {
		gs = tix_step_groups(ix, (uint32_t)a->step, &ng);
	} else {
		gs = tix_group_get(ix, 0);
		ng = tix_group_count(ix);
	}
	for (uint32_t i = 0; i < ng; i++)
		total = tix_sat_add(total, gs[i].total_ns);
	long top = a->top >= 0 ? a->top : (!strcmp(a->format, "text") ? 25 : (long)ng);
	uint32_t n = ng < (uint64_t)top ? ng : (uint32_t)top;
	if (!strcmp(a->format, "json")) {
		printf("{\"trace\": ");
		json_str(stdout, a->trace, strlen(a->trace));
		if (a->has_step)
			printf(", \"step\": %ld", a->step);
		else
			printf(", \"step\": null");
		printf(", \"total_gpu_ns\": %" PRId64 ", \"kernels\": [", total);
		for (uint32_t i = 0; i < n; i++) {
			const struct tix_group *g = &gs[i];
			const struct tix_kernel_info *ki = tix_kernel_info_get(ix, g->common_info);
			printf("%s\n  {", i ? "," : "");
			json_names(ix, g->name);
			printf(", \"kind\": \"%s\", \"instances\": %u, \"total_ns\": %" PRId64
			       ", \"avg_ns\": %" PRId64 ", \"med_ns\": %" PRId64 ", \"min_ns\": %" PRId64
			       ", \"max_ns\": %" PRId64 ", \"stddev_ns\": %.1f, \"time_pct\": %.3f",
			       tix_kind_label((enum tix_kind)g->kind), g->instances, g->total_ns,
			       g->total_ns / g->instances, g->med_ns, g->min_ns, g->max_ns, g->stddev_ns,
			       total ? 100.0 * (double)g->total_ns / (double)total : 0.0);
			if (ki && g->kind == TIX_KIND_KERNEL) {
				printf(", \"grid\": ");
				json_dim3(stdout, ki->grid);
				printf(", \"block\": ");
				json_dim3(stdout, ki->block);
			} else {
				printf(", \"grid\": null, \"block\": null");
			}
			printf("}");
		}
		printf("\n]}\n");
		return;
	}
	if (!strcmp(a->format, "csv")) {
		printf("time_pct,total_ns,instances,avg_ns,med_ns,min_ns,max_ns,stddev_ns,grid,block,kind,name\n");
		for (uint32_t i = 0; i < n; i++) {
			const struct tix_group *g = &gs[i];
			const struct tix_kernel_info *ki = tix_kernel_info_get(ix, g->common_info);
			char grid[48] = "", block[48] = "";
			if (ki && g->kind == TIX_KIND_KERNEL) {
				dim3(grid, sizeof(grid), ki->grid);
				dim3(block, sizeof(block), ki->block);
			}
			printf("%.3f,%" PRId64 ",%u,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%.1f,",
			       total ? 100.0 * (double)g->total_ns / (double)total : 0.0, g->total_ns,
			       g->instances, g->total_ns / g->instances, g->med_ns, g->min_ns, g->max_ns,
			       g->stddev_ns);
			csv_str(stdout, grid); /* "[557496,1,1]" holds commas */
			putchar(',');
			csv_str(stdout, block);
			printf(",%s,", tix_kind_label((enum tix_kind)g->kind));
			csv_str(stdout, tix_str(ix, tix_name_full(ix, g->name)));
			putchar('\n');
		}
		return;
	}
	if (a->has_step) {
		const struct tix_step *s = tix_step_get(ix, (uint32_t)a->step);
		char wall[32];
		tix_fmt_dur(wall, sizeof(wall), s->dur_ns);
		printf("step %ld: %s, wall %s\n", a->step, tix_str(ix, s->name), wall);
	}
	printf("%6s  %10s  %9s  %10s  %10s  %10s  %10s  %10s  %-14s  %-11s  %s\n", "Time %", "Total",
	       "Instances", "Avg", "Med", "Min", "Max", "StdDev", "Grid", "Block", "Name");
	for (uint32_t i = 0; i < n; i++) {
		const struct tix_group *g = &gs[i];
		const struct tix_kernel_info *ki = tix_kernel_info_get(ix, g->common_info);
		char t[32], av[32], md[32], mn[32], mx[32], sd[32], grid[48] = "-", block[48] = "-";
		tix_fmt_dur(t, sizeof(t), g->total_ns);
		tix_fmt_dur(av, sizeof(av), g->total_ns / g->instances);
		tix_fmt_dur(md, sizeof(md), g->med_ns);
		tix_fmt_dur(mn, sizeof(mn), g->min_ns);
		tix_fmt_dur(mx, sizeof(mx), g->max_ns);
		tix_fmt_dur(sd, sizeof(sd), (int64_t)(g->stddev_ns + 0.5));
		if (ki && g->kind == TIX_KIND_KERNEL) {
			dim3(grid, sizeof(grid), ki->grid);
			dim3(block, sizeof(block), ki->block);
		}
		char nb[160];
		const char *name = short_label(ix, g->name, nb, sizeof(nb));
		char kind[24] = ""; /* copies are marked: [memcpy] Memcpy HtoD (...) */
		if (g->kind != TIX_KIND_KERNEL)
			snprintf(kind, sizeof(kind), "[%s] ", tix_kind_label((enum tix_kind)g->kind));
		printf("%5.1f%%  %10s  %9u  %10s  %10s  %10s  %10s  %10s  %-14s  %-11s  %s%s\n",
		       total ? 100.0 * (double)g->total_ns / (double)total : 0.0, t, g->instances, av, md,
		       mn, mx, sd, grid, block, kind, name);
	}
	if (n < ng)
		fprintf(stderr, "(%u more; --top N shows more)\n", ng - n); /* not into pipes */
}

/* The largest kernel (not copy) group of a step, or NULL. */
static const struct tix_group *top_kernel(struct tix_index *ix, uint32_t s, int64_t *kernel_ns)
{
	uint32_t ng;
	const struct tix_group *gs = tix_step_groups(ix, s, &ng), *top = NULL;
	*kernel_ns = 0;
	for (uint32_t i = 0; i < ng; i++) {
		if (gs[i].kind != TIX_KIND_KERNEL)
			continue;
		*kernel_ns = tix_sat_add(*kernel_ns, gs[i].total_ns);
		if (!top)
			top = &gs[i];
	}
	return top;
}

/* One row of summary --by step; index is the step number, or -1 for the
 * GPU work launched before the trace. */
static void step_row(struct tix_index *ix, const struct tix_summary_info *si, uint32_t sid,
                     long index, int json, int csv, int first)
{
	const struct tix_step *s = tix_step_get(ix, sid);
	int64_t kns;
	const struct tix_group *tk = top_kernel(ix, sid, &kns);
	double pct = tk && kns ? 100.0 * (double)tk->total_ns / (double)kns : 0;
	uint32_t tname_id = tk ? tix_name_full(ix, tk->name) : TIX_NONE;
	const char *tname = tk ? tix_str(ix, tname_id) : "";
	if (json) {
		if (index >= 0)
			printf("%s\n  {\"index\": %ld, \"name\": ", first ? "" : ",", index);
		else
			printf("{\"index\": null, \"name\": ");
		json_str(stdout, tix_str(ix, s->name), tix_str_len(ix, s->name));
		printf(", \"start_ns\": %" PRId64 ", \"offset_ns\": %" PRId64 ", \"wall_ns\": %" PRId64
		       ", \"gpu_busy_ns\": %" PRId64 ", \"gpu_ns\": %" PRId64 ", \"kernel_ns\": %" PRId64
		       ", \"kernels\": %u, \"gpu_events\": %u, \"top_kernel\": ",
		       s->start_ns, s->start_ns - si->first_ns, s->dur_ns, s->gpu_busy_ns, s->gpu_ns, kns,
		       s->kernels, s->gpu_events);
		if (tk)
			json_str(stdout, tname, strlen(tname));
		else
			printf("null");
		printf(", \"top_ns\": %" PRId64 ", \"top_pct\": %.3f}", tk ? tk->total_ns : 0, pct);
	} else if (csv) {
		if (index >= 0)
			printf("%ld,", index);
		else
			printf("before_trace,");
		csv_str(stdout, tix_str(ix, s->name));
		printf(",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%u,%u,",
		       s->start_ns, s->start_ns - si->first_ns, s->dur_ns, s->gpu_busy_ns, s->gpu_ns, kns,
		       s->kernels, s->gpu_events);
		csv_str(stdout, tname);
		printf(",%" PRId64 ",%.3f\n", tk ? tk->total_ns : 0, pct);
	} else {
		char st[32], wall[32], busy[32], nb[160], idx[16];
		tix_fmt_dur(st, sizeof(st), s->start_ns - si->first_ns);
		tix_fmt_dur(wall, sizeof(wall), s->dur_ns);
		tix_fmt_dur(busy, sizeof(busy), s->gpu_busy_ns);
		const char *name = tk ? short_label(ix, tk->name, nb, sizeof(nb)) : "";
		if (index >= 0)
			snprintf(idx, sizeof(idx), "%ld", index);
		else
			snprintf(idx, sizeof(idx), "-");
		printf("%5s  %-24.24s  %10s  %10s  %10s  %7u  %5.1f%%  %s\n", idx, tix_str(ix, s->name), st,
		       wall, busy, s->kernels, pct, name);
	}
}

static void summary_steps(struct tix_index *ix, const struct args *a)
{
	struct tix_summary_info si;
	tix_index_summary(ix, &si);
	uint32_t ns = tix_step_count(ix);
	long top = a->top >= 0 ? a->top : (long)ns;
	uint32_t n = ns < (uint64_t)top ? ns : (uint32_t)top;
	uint32_t before = tix_step_before_trace(ix);
	int json = !strcmp(a->format, "json"), csv = !strcmp(a->format, "csv");
	if (json) {
		printf("{\"trace\": ");
		json_str(stdout, a->trace, strlen(a->trace));
		printf(", \"step_rule\": \"%s\", \"before_trace\": ", si.step_rule);
		if (before != TIX_NONE)
			step_row(ix, &si, before, -1, 1, 0, 1);
		else
			printf("null");
		printf(", \"steps\": [");
	} else if (csv) {
		printf("index,name,start_ns,offset_ns,wall_ns,gpu_busy_ns,gpu_ns,kernel_ns,kernels,gpu_events,top_kernel,top_ns,top_pct\n");
	} else {
		printf("steps found by: %s\n%5s  %-24s  %10s  %10s  %10s  %7s  %6s  %s\n", si.step_rule, "Step",
		       "Marker", "Start", "Wall", "GPU busy", "Kernels", "Top %", "Top kernel");
	}
	/* GPU work launched before the trace's CPU window comes first, in the
	 * text and CSV, as it came first in time. */
	if (!json && before != TIX_NONE)
		step_row(ix, &si, before, -1, 0, csv, 1);
	for (uint32_t i = 0; i < n; i++)
		step_row(ix, &si, i, i, json, csv, i == 0);
	if (json)
		printf("\n]}\n");
}

/* One row of summary --by op: an op of the trace, or (captured) an op of a
 * capture trace that GPU work replayed from a graph is attributed to. */
struct op_row {
	uint32_t name, gpu_events, calls;
	int64_t gpu_ns, cpu_ns;
	int captured;
};

static int cmp_op_row(const void *x, const void *y)
{
	const struct op_row *a = x, *b = y;
	if (a->gpu_ns != b->gpu_ns)
		return a->gpu_ns > b->gpu_ns ? -1 : 1;
	return a->captured - b->captured;
}

/* The ops that captured the replayed kernels (tix_event_capture), each
 * GPU event counted once per distinct op or annotation name of its chain,
 * as the trace's own ops are counted over their launch's ancestors. */
static struct op_row *captured_ops(struct tix_index *ix, uint32_t *n_out)
{
	struct tix_summary_info si;
	tix_index_summary(ix, &si);
	*n_out = 0;
	uint32_t attributed = si.replayed - si.replayed_by_match[TIX_MATCH_NONE] -
	                      si.replayed_by_match[TIX_MATCH_AMBIGUOUS];
	if (!attributed)
		return NULL;
	uint32_t *slot = calloc((size_t)si.strings + 1, sizeof(*slot)); /* name -> row + 1 */
	struct op_row *rows = NULL;
	uint32_t n = 0, cap = 0;
	if (!slot)
		return NULL;
	for (uint32_t g = 0; g < tix_group_count(ix); g++) {
		const struct tix_group *G = tix_group_get(ix, g);
		const uint32_t *m = tix_members(ix, G->members_first, G->members_count);
		for (uint32_t k = 0; m && k < G->members_count; k++) {
			struct tix_capture_view cv;
			tix_event_capture(ix, m[k], &cv);
			if (!cv.nframes)
				continue;
			struct tix_event e;
			tix_event_get(ix, m[k], &e);
			for (uint32_t f = 0; f < cv.nframes; f++) {
				uint32_t nm = cv.frames[f].name, dup = 0;
				for (uint32_t q = 0; q < f && !dup; q++)
					dup = cv.frames[q].name == nm;
				if (dup || nm >= si.strings)
					continue;
				if (!slot[nm]) {
					if (n == cap) {
						cap = cap ? cap * 2 : 64;
						struct op_row *r = realloc(rows, cap * sizeof(*r));
						if (!r)
							goto out;
						rows = r;
					}
					rows[n] = (struct op_row){nm, 0, 0, 0, -1, 1};
					slot[nm] = ++n;
				}
				rows[slot[nm] - 1].gpu_ns += e.dur_ns;
				rows[slot[nm] - 1].gpu_events++;
			}
		}
	}
out:
	free(slot);
	*n_out = n;
	return rows;
}

static void summary_ops(struct tix_index *ix, const struct args *a)
{
	uint32_t no = tix_op_count(ix), nc = 0;
	struct op_row *cap = captured_ops(ix, &nc);
	struct op_row *rows = malloc(((size_t)no + nc + 1) * sizeof(*rows));
	if (!rows) {
		free(cap);
		fprintf(stderr, "tix: out of memory\n");
		return;
	}
	for (uint32_t i = 0; i < no; i++) {
		const struct tix_op *o = tix_op_get(ix, i);
		rows[i] = (struct op_row){o->name, o->gpu_events, o->calls, o->gpu_ns, o->cpu_ns, 0};
	}
	if (nc) {
		memcpy(rows + no, cap, nc * sizeof(*rows));
		qsort(rows, no + nc, sizeof(*rows), cmp_op_row);
	}
	free(cap);
	uint32_t nr = no + nc;
	long top = a->top >= 0 ? a->top : (!strcmp(a->format, "text") ? 25 : (long)nr);
	uint32_t n = nr < (uint64_t)top ? nr : (uint32_t)top;
	int64_t total = tix_total_gpu_ns(ix);
	int json = !strcmp(a->format, "json"), csv = !strcmp(a->format, "csv");
	if (json)
		printf("{\"total_gpu_ns\": %" PRId64 ", \"ops\": [", total);
	else if (csv)
		printf("gpu_pct,gpu_ns,gpu_events,calls,cpu_ns,captured,name\n");
	else
		printf("%6s  %10s  %10s  %8s  %10s  %s\n", "GPU %", "GPU time", "GPU events", "Calls",
		       "CPU time", "Op");
	for (uint32_t i = 0; i < n; i++) {
		const struct op_row *o = &rows[i];
		double pct = total ? 100.0 * (double)o->gpu_ns / (double)total : 0;
		if (json) {
			printf("%s\n  {\"name\": ", i ? "," : "");
			json_str(stdout, tix_str(ix, o->name), tix_str_len(ix, o->name));
			if (o->captured)
				printf(", \"gpu_ns\": %" PRId64 ", \"gpu_events\": %u, \"calls\": null, \"cpu_ns\": null"
				       ", \"gpu_pct\": %.3f, \"captured\": true}", o->gpu_ns, o->gpu_events, pct);
			else
				printf(", \"gpu_ns\": %" PRId64 ", \"gpu_events\": %u, \"calls\": %u, \"cpu_ns\": %" PRId64
				       ", \"gpu_pct\": %.3f, \"captured\": false}", o->gpu_ns, o->gpu_events, o->calls,
				       o->cpu_ns, pct);
		} else if (csv) {
			if (o->captured)
				printf("%.3f,%" PRId64 ",%u,,,1,", pct, o->gpu_ns, o->gpu_events);
			else
				printf("%.3f,%" PRId64 ",%u,%u,%" PRId64 ",0,", pct, o->gpu_ns, o->gpu_events, o->calls,
				       o->cpu_ns);
			csv_str(stdout, tix_str(ix, o->name));
			putchar('\n');
		} else {
			char g[32], c[32], calls[16];
			tix_fmt_dur(g, sizeof(g), o->gpu_ns);
			if (o->captured) {
				snprintf(c, sizeof(c), "-");
				snprintf(calls, sizeof(calls), "-");
			} else {
				tix_fmt_dur(c, sizeof(c), o->cpu_ns);
				snprintf(calls, sizeof(calls), "%u", o->calls);
			}
			printf("%5.1f%%  %10s  %10u  %8s  %10s  %s%s\n", pct, g, o->gpu_events, calls, c,
			       o->captured ? "[captured] " : "", tix_str(ix, o->name));
		}
	}
	if (json)
		printf("\n]}\n");
	else if (!csv && n < nr)
		fprintf(stderr, "(%u more; --top N shows more)\n", nr - n); /* not into pipes */
	free(rows);
}

static int cmd_summary_run(struct args *ap)
{
	struct args a = *ap;
	if (a.help) {
		puts("usage: tix summary TRACE [--by kernel|step|op] [--step N] [--top N] [--format text|csv|json]");
		return EXIT_OK;
	}
	if (a.has_step && strcmp(a.by, "kernel")) {
		fprintf(stderr, "tix summary: --step goes with --by kernel\n");
		return EXIT_USAGE;
	}
	struct tix_index *ix;
	if (args_open(&a, &ix) != 0)
		return a.exit_status;
	if (!strcmp(a.by, "step"))
		summary_steps(ix, &a);
	else if (!strcmp(a.by, "op"))
		summary_ops(ix, &a);
	else
		summary_kernels(ix, &a);
	tix_index_close(ix);
	return EXIT_OK;
}

int cmd_summary(int argc, char **argv)
{
	struct args a;
	int rc = args_parse(argc, argv, &a, ARG_BY | ARG_STEP | ARG_TOP | ARG_FORMAT | ARG_CSV) != 0 ? EXIT_USAGE : cmd_summary_run(&a);
	cli_open_opts_done(&a.open);
	return rc;
}

static int cmd_info_run(struct args *ap)
{
	struct args a = *ap;
	if (a.help) {
		puts("usage: tix info FILE.tix|TRACE");
		return EXIT_OK;
	}
	struct tix_index *ix;
	a.open.check_all = 1; /* tix info checks every byte of the index */
	if (args_open(&a, &ix) != 0)
		return a.exit_status;
	struct tix_summary_info si;
	struct tix_source_info src;
	tix_index_summary(ix, &si);
	tix_index_source(ix, &src);
	char span[32];
	tix_fmt_dur(span, sizeof(span), si.last_ns - si.first_ns);
	char pb[600];
	printf("index:    %s (%.1f MB, format %u)\n", tix_printable(a.trace, pb, sizeof(pb)), si.file_size / 1e6,
	       si.format_version);
	printf("source:   %s (%.1f MB)\n", tix_printable(src.path, pb, sizeof(pb)), src.size / 1e6);
	printf("events:   %u on %u tracks, spanning %s\n", si.events, si.tracks, span);
	printf("kinds:   ");
	for (int k = 0; k < TIX_KIND_COUNT; k++)
		if (si.kind_counts[k])
			printf(" %s %u", tix_kind_label((enum tix_kind)k), si.kind_counts[k]);
	printf("\nsteps:    %u (%s)\n", si.steps, si.step_rule);
	printf("groups:   %u GPU names; %u CPU op names; %u strings\n", si.groups, si.ops, si.strings);
	printf("unlinked: %u GPU events without a launch call", si.gpu_without_launch);
	if (si.gpu_before_trace)
		printf(" (%u of them launched before the trace)", si.gpu_before_trace);
	putchar('\n');
	if (si.corr_collisions)
		printf("links:    %u correlation ids carried by several launch calls\n", si.corr_collisions);
	if (si.replayed) {
		const uint32_t *m = si.replayed_by_match;
		uint32_t attributed = si.replayed - m[TIX_MATCH_NONE] - m[TIX_MATCH_AMBIGUOUS];
		printf("graph replays: %u kernels, %u attributed (exact %u, aligned %u, reordered %u, "
		       "positional %u), %u not attributed%s%s\n",
		       si.replayed, attributed, m[TIX_MATCH_EXACT], m[TIX_MATCH_ALIGNED],
		       m[TIX_MATCH_REORDERED], m[TIX_MATCH_POSITIONAL],
		       m[TIX_MATCH_NONE] + m[TIX_MATCH_AMBIGUOUS],
		       si.capture_sources[0] ? "; captures: " : " (no --graph-capture given)",
		       si.capture_sources);
	}
	if (si.base_time_ns)
		printf("base:     %" PRId64 " ns since the epoch\n", si.base_time_ns);
	for (uint32_t i = 0; i < tix_meta_count(ix); i++) {
		const char *k, *v;
		tix_meta_get(ix, i, &k, &v);
		printf("meta:     %s: %.60s%s\n", k, v, strlen(v) > 60 ? "..." : "");
	}
	for (const char *w = si.warnings; *w;) { /* one line each */
		const char *e = strstr(w, "; ");
		size_t n = e ? (size_t)(e - w) : strlen(w);
		printf("warning:  %.*s\n", (int)n, w);
		w += n + (e ? 2 : 0);
	}
	tix_index_close(ix);
	return EXIT_OK;
}

int cmd_info(int argc, char **argv)
{
	struct args a;
	int rc = args_parse(argc, argv, &a, ARG_FORMAT) != 0 ? EXIT_USAGE : cmd_info_run(&a);
	cli_open_opts_done(&a.open);
	return rc;
}

static int cmd_index_run(struct args *ap)
{
	struct args a = *ap;
	if (a.help) {
		puts("usage: tix index TRACE [-o OUT.tix] [--step-marker REGEX]");
		return EXIT_OK;
	}
	char path[4096];
	a.open.out = a.out;
	a.open.force = 1;
	a.open.opened = path;
	a.open.opened_cap = sizeof(path);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct tix_index *ix;
	if (args_open(&a, &ix) != 0)
		return a.exit_status;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	struct tix_summary_info si;
	tix_index_summary(ix, &si);
	char pb[600];
	printf("indexed %u events, %u steps into %s (%.1f MB) in %.2f s\n", si.events, si.steps,
	       tix_printable(path, pb, sizeof(pb)),
	       si.file_size / 1e6, (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	tix_index_close(ix);
	return EXIT_OK;
}

int cmd_index(int argc, char **argv)
{
	struct args a;
	int rc = args_parse(argc, argv, &a, ARG_OUT) != 0 ? EXIT_USAGE : cmd_index_run(&a);
	cli_open_opts_done(&a.open);
	return rc;
}

/* "12.5", "300us", "2s" -> ns; a bare number is milliseconds. */
static int parse_time(const char *s, int64_t *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s)
		return -1;
	double mul = 1e6;
	if (!strcmp(end, "ns"))
		mul = 1;
	else if (!strcmp(end, "us"))
		mul = 1e3;
	else if (!strcmp(end, "ms") || !*end)
		mul = 1e6;
	else if (!strcmp(end, "s"))
		mul = 1e9;
	else
		return -1;
	*out = (int64_t)(v * mul);
	return 0;
}

static int cmd_export_run(struct args *ap)
{
	struct args a = *ap;
	if (a.help) {
		puts("usage: tix export TRACE [--step N] [--kernel REGEX] [--range T0:T1] -o OUT.json\n"
		     "T0:T1 are times from the trace start, in ms unless suffixed ns, us or s");
		return EXIT_OK;
	}
	if (!a.out) {
		fprintf(stderr, "tix export: -o OUT.json is required\n");
		return EXIT_USAGE;
	}
	struct tix_export_sel sel = {0};
	if (a.kernel) {
		regex_t re;
		if (regcomp(&re, a.kernel, REG_EXTENDED | REG_NOSUB) != 0) {
			char pb[200];
			fprintf(stderr, "tix export: invalid --kernel regex '%s'\n",
			        tix_printable(a.kernel, pb, sizeof(pb)));
			return EXIT_USAGE;
		}
		regfree(&re);
		sel.name_regex = a.kernel;
	}
	int64_t t0 = 0, t1 = 0;
	if (a.range) {
		char *colon = strchr(a.range, ':');
		if (!colon) {
			fprintf(stderr, "tix export: --range takes T0:T1\n");
			return EXIT_USAGE;
		}
		*colon = '\0';
		if (parse_time(a.range, &t0) || parse_time(colon + 1, &t1) || t1 <= t0) {
			fprintf(stderr, "tix export: --range takes T0:T1 with T0 < T1 (ms, or with ns/us/s)\n");
			return EXIT_USAGE;
		}
	}
	struct tix_index *ix;
	if (args_open(&a, &ix) != 0)
		return a.exit_status;
	if (a.range) {
		struct tix_summary_info si;
		tix_index_summary(ix, &si);
		sel.has_range = 1;
		sel.t0_ns = si.first_ns + t0;
		sel.t1_ns = si.first_ns + t1;
	}
	sel.has_step = a.has_step;
	sel.step = (uint32_t)a.step;
	struct tix_error err;
	long n = tix_export_json(ix, &sel, a.out, &err);
	tix_index_close(ix);
	if (n < 0) {
		fprintf(stderr, "tix: %s\n", err.msg);
		return cli_exit_status(&err);
	}
	char pb[600];
	printf("wrote %ld events to %s\n", n, tix_printable(a.out, pb, sizeof(pb)));
	return EXIT_OK;
}

int cmd_export(int argc, char **argv)
{
	struct args a;
	int rc = args_parse(argc, argv, &a, ARG_STEP | ARG_KERNEL | ARG_RANGE | ARG_OUT) != 0 ? EXIT_USAGE : cmd_export_run(&a);
	cli_open_opts_done(&a.open);
	return rc;
}
