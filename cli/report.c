/* summary, info, index and export: the headless twins of the TUI views. */
#include "cli/cli.h"

#include <getopt.h>
#include <inttypes.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/args.h"

void json_str(FILE *f, const char *s, size_t n)
{
	putc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			putc(c, f);
	}
	putc('"', f);
}

void csv_str(FILE *f, const char *s)
{
	putc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', f);
		putc(*s, f);
	}
	putc('"', f);
}

int args_parse(int argc, char **argv, struct args *a, unsigned allowed)
{
	static const struct option longopts[] = {
		{"by", required_argument, 0, 'b'},
		{"step", required_argument, 0, 's'},
		{"top", required_argument, 0, 't'},
		{"format", required_argument, 0, 'f'},
		{"kernel", required_argument, 0, 'k'},
		{"limit", required_argument, 0, 'l'},
		{"range", required_argument, 0, 'r'},
		{"output", required_argument, 0, 'o'},
		{"step-marker", required_argument, 0, 'm'},
		{"no-cache", no_argument, 0, 'n'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	static const struct {
		int opt;
		unsigned flag;
	} flags[] = {{'b', ARG_BY}, {'s', ARG_STEP}, {'t', ARG_TOP}, {'f', ARG_FORMAT},
	             {'k', ARG_KERNEL}, {'l', ARG_LIMIT}, {'r', ARG_RANGE}, {'o', ARG_OUT}};
	memset(a, 0, sizeof(*a));
	a->by = "kernel";
	a->format = "text";
	a->top = -1;
	a->limit = 20;
	optind = 1;
	opterr = 0;
	int c, li = -1;
	/* _only: "-dash.json" is one unknown option, named whole in the error,
	 * not a cluster of short ones (-d -a -s ...) */
	while ((c = getopt_long_only(argc, argv, "o:h", longopts, &li)) != -1) {
		char name[40]; /* the option itself: argv[optind - 1] may be its value */
		if (li >= 0)
			snprintf(name, sizeof(name), "--%s", longopts[li].name);
		else
			snprintf(name, sizeof(name), "-%c", c);
		li = -1;
		for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
			if (flags[i].opt == c && !(allowed & flags[i].flag)) {
				fprintf(stderr, "tix %s: option '%s' does not apply here\n", argv[0], name);
				return -1;
			}
		}
		char *end;
		switch (c) {
		case 'b':
			a->by = optarg;
			if (strcmp(a->by, "kernel") && strcmp(a->by, "step") && strcmp(a->by, "op")) {
				fprintf(stderr, "tix %s: --by takes kernel, step or op\n", argv[0]);
				return -1;
			}
			break;
		case 's':
			a->step = strtol(optarg, &end, 10);
			if (*end || a->step < 0) {
				fprintf(stderr, "tix %s: --step takes a step number (see summary --by step)\n", argv[0]);
				return -1;
			}
			a->has_step = 1;
			break;
		case 't':
		case 'l': {
			long v = strtol(optarg, &end, 10);
			if (*end || v < 0) {
				fprintf(stderr, "tix %s: %s takes a number\n", argv[0], name);
				return -1;
			}
			if (c == 't')
				a->top = v;
			else
				a->limit = v;
			break;
		}
		case 'f':
			a->format = optarg;
			if (strcmp(a->format, "text") && strcmp(a->format, "json") &&
			    (strcmp(a->format, "csv") || !(allowed & ARG_CSV))) {
				char pb[120];
				fprintf(stderr, "tix %s: unknown --format '%s'\n", argv[0], tix_printable(optarg, pb, sizeof(pb)));
				return -1;
			}
			break;
		case 'k':
			a->kernel = optarg;
			break;
		case 'r':
			a->range = optarg;
			break;
		case 'o':
			a->out = optarg;
			break;
		case 'm':
			a->open.step_marker = optarg;
			break;
		case 'n':
			a->open.no_cache = 1;
			break;
		case 'h':
			a->help = 1;
			return 0;
		default: /* getopt has stepped past the element it refused */
			char pb[120];
			const char *bad = argv[optind - 1];
			fprintf(stderr, "tix %s: unknown or incomplete option '%s'%s\n", argv[0],
			        tix_printable(bad, pb, sizeof(pb)),
			        bad[1] != '-' ? " (a file whose name starts with '-' goes after --)" : "");
			return -1;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "tix %s: which trace?\n", argv[0]);
		return -1;
	}
	a->trace = argv[optind];
	if (optind + 1 < argc) {
		char pb[120];
		fprintf(stderr, "tix %s: unexpected argument '%s'\n", argv[0],
		        tix_printable(argv[optind + 1], pb, sizeof(pb)));
		return -1;
	}
	if (a->open.step_marker) {
		regex_t re;
		if (regcomp(&re, a->open.step_marker, REG_EXTENDED | REG_NOSUB) != 0) {
			char pb[200];
			fprintf(stderr, "tix %s: invalid --step-marker regex '%s'\n", argv[0],
			        tix_printable(a->open.step_marker, pb, sizeof(pb)));
			return -1;
		}
		regfree(&re);
	}
	a->open.progress = isatty(STDERR_FILENO);
	return 0;
}

int args_open(struct args *a, struct tix_index **ix)
{
	struct tix_error err;
	int built;
	if (cli_open_trace(a->trace, &a->open, ix, &built, &err) != 0) {
		fprintf(stderr, "tix: %s\n", err.msg);
		a->exit_status = cli_exit_status(&err);
		return -1;
	}
	if (a->has_step && (uint32_t)a->step >= tix_step_count(*ix)) {
		char pb[300];
		fprintf(stderr, "tix: %s: no step %ld (the trace has %u; see tix summary --by step)\n",
		        tix_printable(a->trace, pb, sizeof(pb)), a->step, tix_step_count(*ix));
		tix_index_close(*ix);
		a->exit_status = EXIT_BAD_INPUT;
		return -1;
	}
	return 0;
}

static void dim3(char *buf, size_t cap, const int32_t d[3])
{
	snprintf(buf, cap, "[%d,%d,%d]", d[0], d[1], d[2]);
}

static void json_dim3(FILE *f, const int32_t d[3])
{
	fprintf(f, "[%d, %d, %d]", d[0], d[1], d[2]);
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
			printf("%s\n  {\"name\": ", i ? "," : "");
			json_str(stdout, tix_str(ix, g->name), tix_str_len(ix, g->name));
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
			csv_str(stdout, tix_str(ix, g->name));
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
		char name[160];
		tix_short_name(tix_str(ix, g->name), tix_str_len(ix, g->name), name, sizeof(name));
		char kind[24] = ""; /* copies are marked: [memcpy] Memcpy HtoD (...) */
		if (g->kind != TIX_KIND_KERNEL)
			snprintf(kind, sizeof(kind), "[%s] ", tix_kind_label((enum tix_kind)g->kind));
		printf("%5.1f%%  %10s  %9u  %10s  %10s  %10s  %10s  %10s  %-14s  %-11s  %s%s\n",
		       total ? 100.0 * (double)g->total_ns / (double)total : 0.0, t, g->instances, av, md,
		       mn, mx, sd, grid, block, kind, name);
	}
	if (n < ng)
		printf("(%u more; --top N shows more)\n", ng - n);
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

static void summary_steps(struct tix_index *ix, const struct args *a)
{
	struct tix_summary_info si;
	tix_index_summary(ix, &si);
	uint32_t ns = tix_step_count(ix);
	long top = a->top >= 0 ? a->top : (long)ns;
	uint32_t n = ns < (uint64_t)top ? ns : (uint32_t)top;
	int json = !strcmp(a->format, "json"), csv = !strcmp(a->format, "csv");
	if (json)
		{ printf("{\"trace\": "); json_str(stdout, a->trace, strlen(a->trace)); printf(", \"step_rule\": \"%s\", \"steps\": [", si.step_rule); }
	else if (csv)
		printf("index,name,start_ns,offset_ns,wall_ns,gpu_busy_ns,gpu_ns,kernel_ns,kernels,gpu_events,top_kernel,top_ns,top_pct\n");
	else
		printf("steps found by: %s\n%5s  %-24s  %10s  %10s  %10s  %7s  %6s  %s\n", si.step_rule, "Step",
		       "Marker", "Start", "Wall", "GPU busy", "Kernels", "Top %", "Top kernel");
	for (uint32_t i = 0; i < n; i++) {
		const struct tix_step *s = tix_step_get(ix, i);
		int64_t kns;
		const struct tix_group *tk = top_kernel(ix, i, &kns);
		double pct = tk && kns ? 100.0 * (double)tk->total_ns / (double)kns : 0;
		const char *tname = tk ? tix_str(ix, tk->name) : "";
		if (json) {
			printf("%s\n  {\"index\": %u, \"name\": ", i ? "," : "", i);
			json_str(stdout, tix_str(ix, s->name), tix_str_len(ix, s->name));
			printf(", \"start_ns\": %" PRId64 ", \"offset_ns\": %" PRId64 ", \"wall_ns\": %" PRId64
			       ", \"gpu_busy_ns\": %" PRId64 ", \"gpu_ns\": %" PRId64 ", \"kernel_ns\": %" PRId64
			       ", \"kernels\": %u, \"gpu_events\": %u, \"top_kernel\": ",
			       s->start_ns, s->start_ns - si.first_ns, s->dur_ns, s->gpu_busy_ns, s->gpu_ns, kns,
			       s->kernels, s->gpu_events);
			if (tk)
				json_str(stdout, tname, strlen(tname));
			else
				printf("null");
			printf(", \"top_ns\": %" PRId64 ", \"top_pct\": %.3f}", tk ? tk->total_ns : 0, pct);
		} else if (csv) {
			printf("%u,", i);
			csv_str(stdout, tix_str(ix, s->name));
			printf(",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%u,%u,",
			       s->start_ns, s->start_ns - si.first_ns, s->dur_ns, s->gpu_busy_ns, s->gpu_ns, kns,
			       s->kernels, s->gpu_events);
			csv_str(stdout, tname);
			printf(",%" PRId64 ",%.3f\n", tk ? tk->total_ns : 0, pct);
		} else {
			char st[32], wall[32], busy[32], name[120];
			tix_fmt_dur(st, sizeof(st), s->start_ns - si.first_ns);
			tix_fmt_dur(wall, sizeof(wall), s->dur_ns);
			tix_fmt_dur(busy, sizeof(busy), s->gpu_busy_ns);
			tix_short_name(tname, strlen(tname), name, sizeof(name));
			printf("%5u  %-24.24s  %10s  %10s  %10s  %7u  %5.1f%%  %s\n", i, tix_str(ix, s->name), st,
			       wall, busy, s->kernels, pct, name);
		}
	}
	if (json)
		printf("\n]}\n");
}

static void summary_ops(struct tix_index *ix, const struct args *a)
{
	uint32_t no = tix_op_count(ix);
	long top = a->top >= 0 ? a->top : (!strcmp(a->format, "text") ? 25 : (long)no);
	uint32_t n = no < (uint64_t)top ? no : (uint32_t)top;
	int64_t total = tix_total_gpu_ns(ix);
	int json = !strcmp(a->format, "json"), csv = !strcmp(a->format, "csv");
	if (json)
		printf("{\"total_gpu_ns\": %" PRId64 ", \"ops\": [", total);
	else if (csv)
		printf("gpu_pct,gpu_ns,gpu_events,calls,cpu_ns,name\n");
	else
		printf("%6s  %10s  %10s  %8s  %10s  %s\n", "GPU %", "GPU time", "GPU events", "Calls",
		       "CPU time", "Op");
	for (uint32_t i = 0; i < n; i++) {
		const struct tix_op *o = tix_op_get(ix, i);
		double pct = total ? 100.0 * (double)o->gpu_ns / (double)total : 0;
		if (json) {
			printf("%s\n  {\"name\": ", i ? "," : "");
			json_str(stdout, tix_str(ix, o->name), tix_str_len(ix, o->name));
			printf(", \"gpu_ns\": %" PRId64 ", \"gpu_events\": %u, \"calls\": %u, \"cpu_ns\": %" PRId64
			       ", \"gpu_pct\": %.3f}", o->gpu_ns, o->gpu_events, o->calls, o->cpu_ns, pct);
		} else if (csv) {
			printf("%.3f,%" PRId64 ",%u,%u,%" PRId64 ",", pct, o->gpu_ns, o->gpu_events, o->calls,
			       o->cpu_ns);
			csv_str(stdout, tix_str(ix, o->name));
			putchar('\n');
		} else {
			char g[32], c[32];
			tix_fmt_dur(g, sizeof(g), o->gpu_ns);
			tix_fmt_dur(c, sizeof(c), o->cpu_ns);
			printf("%5.1f%%  %10s  %10u  %8u  %10s  %s\n", pct, g, o->gpu_events, o->calls, c,
			       tix_str(ix, o->name));
		}
	}
	if (json)
		printf("\n]}\n");
	else if (!csv && n < no)
		printf("(%u more; --top N shows more)\n", no - n);
}

int cmd_summary(int argc, char **argv)
{
	struct args a;
	if (args_parse(argc, argv, &a, ARG_BY | ARG_STEP | ARG_TOP | ARG_FORMAT | ARG_CSV) != 0)
		return EXIT_USAGE;
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

int cmd_info(int argc, char **argv)
{
	struct args a;
	if (args_parse(argc, argv, &a, ARG_FORMAT) != 0)
		return EXIT_USAGE;
	if (a.help) {
		puts("usage: tix info FILE.tix|TRACE");
		return EXIT_OK;
	}
	struct tix_index *ix;
	if (args_open(&a, &ix) != 0)
		return a.exit_status;
	struct tix_summary_info si;
	struct tix_source_info src;
	tix_index_summary(ix, &si);
	tix_index_source(ix, &src);
	char span[32];
	tix_fmt_dur(span, sizeof(span), si.last_ns - si.first_ns);
	char pb[600];
	printf("index:    %s (%.1f MB, format 1)\n", tix_printable(a.trace, pb, sizeof(pb)), si.file_size / 1e6);
	printf("source:   %s (%.1f MB)\n", tix_printable(src.path, pb, sizeof(pb)), src.size / 1e6);
	printf("events:   %u on %u tracks, spanning %s\n", si.events, si.tracks, span);
	printf("kinds:   ");
	for (int k = 0; k < TIX_KIND_COUNT; k++)
		if (si.kind_counts[k])
			printf(" %s %u", tix_kind_label((enum tix_kind)k), si.kind_counts[k]);
	printf("\nsteps:    %u (%s)\n", si.steps, si.step_rule);
	printf("groups:   %u GPU names; %u CPU op names; %u strings\n", si.groups, si.ops, si.strings);
	printf("unlinked: %u GPU events without a launch call\n", si.gpu_without_launch);
	if (si.base_time_ns)
		printf("base:     %" PRId64 " ns since the epoch\n", si.base_time_ns);
	for (uint32_t i = 0; i < tix_meta_count(ix); i++) {
		const char *k, *v;
		tix_meta_get(ix, i, &k, &v);
		printf("meta:     %s: %.60s%s\n", k, v, strlen(v) > 60 ? "..." : "");
	}
	if (si.warnings[0])
		printf("warnings: %s\n", si.warnings);
	tix_index_close(ix);
	return EXIT_OK;
}

int cmd_index(int argc, char **argv)
{
	struct args a;
	if (args_parse(argc, argv, &a, ARG_OUT) != 0)
		return EXIT_USAGE;
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

int cmd_export(int argc, char **argv)
{
	struct args a;
	if (args_parse(argc, argv, &a, ARG_STEP | ARG_KERNEL | ARG_RANGE | ARG_OUT) != 0)
		return EXIT_USAGE;
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
