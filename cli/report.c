/* summary, info, index and export: the headless twins of the TUI views. */
#include "cli/cli.h"

#include <inttypes.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/rows.h"

/* The text and JSON faces of a view: rows in the order asked, the hint
 * about rows left out on stderr (not into pipes). */
static int print_view(const struct tix_view *v, const struct args *a, long default_top,
                      int with_pinned, const char *json_key)
{
	uint32_t *order, n;
	long top = a->top >= 0 ? a->top : default_top;
	if (rows_order(v, "summary", a->sort, top, &order, &n) != 0)
		return EXIT_USAGE;
	uint32_t all = tix_view_rows(v) - tix_view_pinned(v);
	struct tix_view_fmt fmt = {0, a->timeunit ? (enum tix_timeunit)tix_timeunit_parse(a->timeunit) : TIX_TU_AUTO};
	if (!strcmp(a->format, "json")) {
		printf(", \"%s\": ", json_key);
		rows_json(stdout, v, order, n);
		printf("}\n");
	} else if (!strcmp(a->format, "csv")) {
		rows_csv(stdout, v, order, n);
	} else {
		rows_text(stdout, v, order, n, with_pinned, &fmt);
		if (n < all)
			fprintf(stderr, "(%u more; --top N shows more, --top 0 all)\n", all - n);
	}
	free(order);
	return EXIT_OK;
}

static int summary_kernels(struct tix_index *ix, const struct args *a)
{
	struct tix_view_scope sc = tix_view_scope_all();
	if (a->has_step)
		sc.step = (uint32_t)a->step;
	struct tix_error err;
	struct tix_view *v = tix_view_new(ix, TIX_VIEW_KERNELS, &sc, &err);
	if (!v) {
		fprintf(stderr, "tix: %s\n", err.msg);
		return cli_exit_status(&err);
	}
	int json = !strcmp(a->format, "json");
	int64_t total = a->has_step ? tix_step_get(ix, (uint32_t)a->step)->gpu_ns : tix_total_gpu_ns(ix);
	if (json) {
		printf("{\"trace\": ");
		json_str(stdout, a->trace, strlen(a->trace));
		if (a->has_step)
			printf(", \"step\": %ld", a->step);
		else
			printf(", \"step\": null");
		printf(", \"total_gpu_ns\": %" PRId64, total);
	} else if (a->has_step && strcmp(a->format, "csv")) {
		const struct tix_step *s = tix_step_get(ix, (uint32_t)a->step);
		char wall[32], pb[600];
		tix_fmt_dur(s->dur_ns, wall, sizeof(wall));
		printf("step %ld: %s, wall %s\n", a->step, tix_printable(tix_str(ix, s->name), pb, sizeof pb), wall);
	}
	int rc = print_view(v, a, json || !strcmp(a->format, "csv") ? 0 : 25, 0, "kernels");
	tix_view_free(v);
	return rc;
}

static int summary_steps(struct tix_index *ix, const struct args *a)
{
	struct tix_summary_info si;
	tix_index_summary(ix, &si);
	struct tix_error err;
	struct tix_view *v = tix_view_new(ix, TIX_VIEW_STEPS, NULL, &err);
	if (!v) {
		fprintf(stderr, "tix: %s\n", err.msg);
		return cli_exit_status(&err);
	}
	int json = !strcmp(a->format, "json");
	/* the rows after the totals: [before the trace], then the steps */
	uint32_t before = tix_step_before_trace(ix);
	if (json) {
		printf("{\"trace\": ");
		json_str(stdout, a->trace, strlen(a->trace));
		printf(", \"step_rule\": ");
		json_str(stdout, si.step_rule, strlen(si.step_rule));
		printf(", \"before_trace\": ");
		if (before != TIX_NONE)
			rows_json_row(stdout, v, 1);
		else
			printf("null");
		/* the JSON's steps are the real ones; before_trace has its key */
		struct args b = *a;
		uint32_t *order, n;
		if (rows_order(v, "summary", b.sort, b.top, &order, &n) != 0) {
			tix_view_free(v);
			return EXIT_USAGE;
		}
		uint32_t k = 0;
		for (uint32_t i = 0; i < n; i++)
			if (before == TIX_NONE || order[i] != 1)
				order[k++] = order[i];
		printf(", \"steps\": ");
		rows_json(stdout, v, order, k);
		printf("}\n");
		free(order);
		tix_view_free(v);
		return EXIT_OK;
	}
	if (strcmp(a->format, "csv")) { /* an index's strings are the trace's, or a stranger's */
		char pb[300];
		printf("steps found by: %s\n", tix_printable(si.step_rule, pb, sizeof pb));
	}
	int rc = print_view(v, a, 0, 1, "steps");
	tix_view_free(v);
	return rc;
}

static int summary_ops(struct tix_index *ix, const struct args *a)
{
	struct tix_view_scope sc = tix_view_scope_all();
	if (a->has_step)
		sc.step = (uint32_t)a->step;
	/* the roofline columns' peaks: the device's, or --peak-bw / --peak-flops */
	struct tix_device dev;
	const char *why;
	tix_index_device(ix, -1, &dev);
	if (tix_device_override(&dev, a->peak_bw, a->peak_flops, &why) != 0) {
		fprintf(stderr, "tix summary: %s\n", why);
		return EXIT_USAGE;
	}
	sc.device = &dev;
	struct tix_error err;
	struct tix_view *v = tix_view_new(ix, TIX_VIEW_OPS, &sc, &err);
	if (!v) {
		fprintf(stderr, "tix: %s\n", err.msg);
		return cli_exit_status(&err);
	}
	int json = !strcmp(a->format, "json");
	if (json) {
		int64_t total = a->has_step ? tix_step_get(ix, (uint32_t)a->step)->gpu_ns : tix_total_gpu_ns(ix);
		printf("{\"total_gpu_ns\": %" PRId64 ", \"step\": ", total);
		if (a->has_step)
			printf("%ld", a->step);
		else
			printf("null");
	}
	int rc = print_view(v, a, json || !strcmp(a->format, "csv") ? 0 : 25, 0, "ops");
	tix_view_free(v);
	return rc;
}

static int cmd_summary_run(struct args *ap)
{
	struct args a = *ap;
	if (a.help) {
		cli_help(stdout, "summary");
		return EXIT_OK;
	}
	if (a.has_step && !strcmp(a.by, "step")) {
		fprintf(stderr, "tix summary: --step goes with --by kernel or --by op\n");
		return EXIT_USAGE;
	}
	enum tix_view_kind kind = !strcmp(a.by, "step") ? TIX_VIEW_STEPS : !strcmp(a.by, "op") ? TIX_VIEW_OPS : TIX_VIEW_KERNELS;
	if (rows_sort_col(kind, "summary", a.sort) < -1) /* before the trace is opened */
		return EXIT_USAGE;
	struct tix_index *ix;
	if (args_open(&a, &ix) != 0)
		return a.exit_status;
	int rc;
	if (kind == TIX_VIEW_STEPS)
		rc = summary_steps(ix, &a);
	else if (kind == TIX_VIEW_OPS)
		rc = summary_ops(ix, &a);
	else
		rc = summary_kernels(ix, &a);
	tix_index_close(ix);
	return rc;
}

int cmd_summary(int argc, char **argv)
{
	struct args a;
	int rc = args_parse(argc, argv, &a) != 0
	             ? EXIT_USAGE
	             : cmd_summary_run(&a);
	cli_open_opts_done(&a.open);
	return rc;
}

static int cmd_info_run(struct args *ap)
{
	struct args a = *ap;
	if (a.help) {
		cli_help(stdout, "info");
		return EXIT_OK;
	}
	char path[4096];
	int where = PLACE_GIVEN;
	a.open.opened = path;
	a.open.opened_cap = sizeof(path);
	a.open.where = &where;
	struct tix_index *ix;
	a.open.check_all = 1; /* tix info checks every byte of the index */
	if (args_open(&a, &ix) != 0)
		return a.exit_status;
	struct tix_summary_info si;
	struct tix_source_info src;
	tix_index_summary(ix, &si);
	tix_index_source(ix, &src);
	char span[32];
	tix_fmt_dur(si.last_ns - si.first_ns, span, sizeof(span));
	char pb[600], size[32];
	printf("index:    %s (%s; %s, format %u)\n", tix_printable(path, pb, sizeof(pb)),
	       cli_place_label((enum index_place)where), tix_fmt_scaled((double)si.file_size, "B", size, sizeof size),
	       si.format_version);
	printf("source:   %s (%s)\n", tix_printable(src.path, pb, sizeof(pb)),
	       tix_fmt_scaled((double)src.size, "B", size, sizeof size));
	printf("events:   %u on %u tracks, spanning %s\n", si.events, si.tracks, span);
	printf("kinds:   ");
	for (int k = 0; k < TIX_KIND_COUNT; k++)
		if (si.kind_counts[k])
			printf(" %s %u", tix_kind_label((enum tix_kind)k), si.kind_counts[k]);
	printf("\nsteps:    %u (%s)\n", si.steps, tix_printable(si.step_rule, pb, sizeof(pb)));
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
		       tix_printable(si.capture_sources, pb, sizeof(pb)));
	}
	if (si.base_time_ns)
		printf("base:     %" PRId64 " ns since the epoch\n", si.base_time_ns);
	for (uint32_t i = 0; i < tix_meta_count(ix); i++) {
		const char *k, *v;
		tix_meta_get(ix, i, &k, &v);
		char one[4096], kb[300], vb[300]; /* one line a key: a pretty-printed value has newlines */
		tix_fold_ws(v, one, sizeof one);
		size_t cut = 60; /* characters, not bytes: never inside a UTF-8 sequence */
		while (cut < strlen(one) && ((unsigned char)one[cut] & 0xC0) == 0x80)
			cut++;
		int more = strlen(one) > cut;
		one[more ? cut : strlen(one)] = 0;
		printf("meta:     %s: %s%s\n", tix_printable(k, kb, sizeof kb), tix_printable(one, vb, sizeof vb),
		       more ? "..." : "");
	}
	for (const char *w = si.warnings; *w;) { /* one line each */
		const char *e = strstr(w, "; ");
		size_t n = e ? (size_t)(e - w) : strlen(w);
		char one[1024], wb[1200];
		snprintf(one, sizeof one, "%.*s", (int)n, w);
		printf("warning:  %s\n", tix_printable(one, wb, sizeof wb));
		w += n + (e ? 2 : 0);
	}
	tix_index_close(ix);
	return EXIT_OK;
}

int cmd_info(int argc, char **argv)
{
	struct args a;
	int rc = args_parse(argc, argv, &a) != 0 ? EXIT_USAGE : cmd_info_run(&a);
	cli_open_opts_done(&a.open);
	return rc;
}

/* -o checked before anything is read or written (index.h's output door):
 * not the trace itself, not a directory, a socket or a device an index
 * cannot be.  0, or the exit status after one line on stderr. */
static int check_output(const char *cmd, const struct args *a, int stream)
{
	struct stat st;
	struct tix_file_id in = {0, 0};
	if (stat(a->trace, &st) == 0)
		in = (struct tix_file_id){(uint64_t)st.st_dev, (uint64_t)st.st_ino};
	struct tix_out_opts oo = {.follow = 1, .stream = stream, .index = !stream, .inputs = &in,
	                          .ninputs = in.ino ? 1 : 0};
	struct tix_error err;
	if (tix_outfile_check(a->out, &oo, &err) == 0)
		return 0;
	fprintf(stderr, "tix %s: -o %s\n", cmd, err.msg);
	return cli_exit_status(&err);
}

/* Whether path is where stdout goes (-o /dev/stdout, or the file stdout was
 * redirected to): the report line goes to stderr then, not into the data. */
static int is_stdout(const char *path)
{
	struct stat a, b;
	return fstat(STDOUT_FILENO, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static int cmd_index_run(struct args *ap)
{
	struct args a = *ap;
	if (a.help) {
		cli_help(stdout, "index");
		return EXIT_OK;
	}
	char path[4096];
	int bad_out = a.out ? check_output("index", &a, 0) : 0;
	if (bad_out)
		return bad_out;
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
	char pb[600], size[32];
	printf("indexed %u events, %u steps into %s (%s) in %.2f s\n", si.events, si.steps,
	       tix_printable(path, pb, sizeof(pb)), tix_fmt_scaled((double)si.file_size, "B", size, sizeof size),
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	tix_index_close(ix);
	return EXIT_OK;
}

int cmd_index(int argc, char **argv)
{
	struct args a;
	int rc = args_parse(argc, argv, &a) != 0 ? EXIT_USAGE : cmd_index_run(&a);
	cli_open_opts_done(&a.open);
	return rc;
}

/* "12.5", "300us", "2s" -> ns; a bare number is milliseconds.  Values
 * beyond the time range tix keeps (TIX_TIME_MAX ns, about 146 years either
 * way), infinities and NaN are refused: converting them to int64 is
 * undefined. */
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
	double ns = v * mul;
	if (!(ns >= -(double)TIX_TIME_MAX && ns <= (double)TIX_TIME_MAX)) /* NaN fails both */
		return -1;
	*out = (int64_t)ns;
	return 0;
}

static int cmd_export_run(struct args *ap)
{
	struct args a = *ap;
	if (a.help) {
		cli_help(stdout, "export");
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
			fprintf(stderr, "tix export: --range takes T0:T1 with T0 < T1 (ms, or with ns/us/s), "
			                "within 146 years of the trace's start\n");
			return EXIT_USAGE;
		}
	}
	int bad_out = check_output("export", &a, 1);
	if (bad_out)
		return bad_out;
	int to_stdout = is_stdout(a.out); /* before: the export replaces what is at a.out */
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
	char count[32];
	fprintf(to_stdout ? stderr : stdout, "wrote %s traceEvents to %s\n", tix_fmt_count((uint64_t)n, count, sizeof count),
	        tix_printable(a.out, pb, sizeof(pb)));
	return EXIT_OK;
}

int cmd_export(int argc, char **argv)
{
	struct args a;
	int rc = args_parse(argc, argv, &a) != 0 ? EXIT_USAGE : cmd_export_run(&a);
	cli_open_opts_done(&a.open);
	return rc;
}
