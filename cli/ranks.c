/* summary --by rank: several traces of one run, one per rank, side by side
 * (docs/CLI.md, "summary --by rank").  The figures come from the ranks
 * model (index/view/view.h); this file opens the traces, indexing the ones
 * that need it in parallel (--jobs), and prints the model as text or JSON.
 *
 * Parallel indexing forks one process per trace (at most --jobs at once):
 * the builder is not thread-safe (its SIGBUS guard and the identity check
 * of cli/open.c are per process).  A child opens (reuses or builds) the
 * index as cli_open_trace() does, with its stderr in a temporary file and
 * its result (the index's path, or the error) in another; the parent then
 * replays each child's messages in the order the traces were given, so
 * --jobs 4 says what --jobs 1 says, in the same order. */
#include "cli/args.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <regex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/rows.h"
#include "index/view/view.h"

int cli_wants_ranks(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--"))
			break;
		if ((!strcmp(a, "--by") || !strcmp(a, "-by")) && i + 1 < argc && !strcmp(argv[i + 1], "rank"))
			return 1;
		if (!strcmp(a, "--by=rank") || !strcmp(a, "-by=rank"))
			return 1;
	}
	return 0;
}

struct ropts {
	const char **paths;      /* the traces, folders expanded */
	int n;
	char **owned;            /* the paths made from folders (freed at the end) */
	int nowned;
	long jobs;               /* 0: the CPUs */
	long step;
	int has_step, json, csv;
	enum tix_rank_rule rule;
	struct tix_view_fmt fmt;
	struct open_opts open;
};

static int usage_error(const char *fmt, const char *arg)
{
	char pb[120];
	fputs("tix summary: ", stderr);
	fprintf(stderr, fmt, arg ? tix_printable(arg, pb, sizeof(pb)) : "");
	fputc('\n', stderr);
	return -1;
}

#define MAX_RANKS 4096

/* The traces named, each folder as the traces in it (tix DIR does the same). */
static int expand(int argc, char **argv, struct ropts *r)
{
	r->paths = calloc(MAX_RANKS, sizeof(*r->paths));
	r->owned = calloc(MAX_RANKS, sizeof(*r->owned));
	if (!r->paths || !r->owned) {
		struct tix_error err = {{0}, TIX_ERR_ENV, 0};
		tix_error_oom(&err, NULL);
		fprintf(stderr, "tix: %s\n", err.msg);
		return cli_exit_status(&err);
	}
	for (int i = 0; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
			if (r->n == MAX_RANKS)
				return usage_error("at most 4096 traces at once%s", NULL);
			r->paths[r->n++] = argv[i];
			continue;
		}
		int before = r->nowned;
		if (cli_folder_traces(argv[i], r->owned, &r->nowned, MAX_RANKS) <= 0) {
			char pb[300];
			fprintf(stderr, "tix: %s: no traces in this folder (.json, .json.gz, .tix, .tixj)\n",
			        tix_printable(argv[i], pb, sizeof(pb)));
			return -2; /* bad input, as tix DIR says it */
		}
		for (int k = before; k < r->nowned && r->n < MAX_RANKS; k++)
			r->paths[r->n++] = r->owned[k];
	}
	return 0;
}

static void ropts_done(struct ropts *r)
{
	for (int i = 0; i < r->nowned; i++)
		free(r->owned[i]);
	free(r->owned);
	free(r->paths);
	cli_open_opts_done(&r->open);
}

static int parse(int argc, char **argv, struct ropts *r)
{
	/* summary's rows (cli/help.c) that a rank set takes; the others are
	 * refused by name ('X') */
	/* clang-format off */
	static const struct args_key keys[] = {
		{"--by", 'b'}, {"--jobs", 'j'}, {"--step", 's'}, {"--format", 'f'}, {"--rank-from", 'R'},
		{"--timeunit", 'u'}, {"--step-marker", 'm'}, {"--no-cache", 'n'}, {"--strict", 'T'},
		{"--max-temp", 'M'}, {"--help", 'h'},
	};
	/* clang-format on */
	struct option longopts[ARGS_MAX_OPTS];
	char shorts[16];
	args_options(cli_command("summary"), keys, sizeof keys / sizeof keys[0], 'X', longopts,
	             shorts, sizeof shorts);
	memset(r, 0, sizeof(*r));
	r->rule = TIX_RANK_AUTO;
	optind = 1;
	opterr = 0;
	int c, li = -1;
	while ((c = getopt_long_only(argc, argv, shorts, longopts, &li)) != -1) {
		const char *name = li >= 0 ? longopts[li].name : "";
		li = -1;
		switch (c) {
		case 'b':
			if (strcmp(optarg, "rank"))
				return usage_error("--by rank takes several traces; --by %s takes one", optarg);
			break;
		case 'j':
			if (cli_parse_count(optarg, LONG_MAX, &r->jobs) != 0 || r->jobs < 1)
				return usage_error("--jobs takes a number of processes, 1 or more%s", NULL);
			break;
		case 's':
			if (cli_parse_count(optarg, CLI_STEP_MAX, &r->step) != 0)
				return usage_error("--step takes a step number (see summary --by step)%s", NULL);
			r->has_step = 1;
			break;
		case 'f':
			r->json = !strcmp(optarg, "json");
			r->csv = !strcmp(optarg, "csv");
			if (!r->json && !r->csv && strcmp(optarg, "text"))
				return usage_error("--format takes text, csv or json, not '%s'", optarg);
			break;
		case 'R':
			if (!strcmp(optarg, "info"))
				r->rule = TIX_RANK_INFO;
			else if (!strcmp(optarg, "name"))
				r->rule = TIX_RANK_NAME;
			else if (!strcmp(optarg, "order"))
				r->rule = TIX_RANK_ORDER;
			else
				return usage_error("--rank-from takes info, name or order, not '%s'", optarg);
			break;
		case 'u': {
			int u = tix_timeunit_parse(optarg);
			if (u < 0)
				return usage_error("--timeunit takes ns, us, ms or s%s", NULL);
			r->fmt.timeunit = (enum tix_timeunit)u;
			break;
		}
		case 'm':
			r->open.step_marker = optarg;
			break;
		case 'n':
			r->open.no_cache = 1;
			break;
		case 'T':
			r->open.strict = 1;
			break;
		case 'M':
			if (cli_parse_size(optarg, &r->open.max_temp) != 0)
				return usage_error("--max-temp takes a size: 500M, 4G, 2GiB%s", NULL);
			break;
		case 'h':
			return 1;
		case 'X':
			return usage_error("option '--%s' does not apply to --by rank", name);
		default: {
			const char *bad = argv[optind - 1];
			return usage_error("unknown or incomplete option '%s'", bad);
		}
		}
	}
	if (optind >= argc)
		return usage_error("which traces? (one file per rank)%s", NULL);
	int ex = expand(argc - optind, argv + optind, r);
	if (ex != 0)
		return ex;
	if (r->open.step_marker) {
		regex_t re;
		if (regcomp(&re, r->open.step_marker, REG_EXTENDED | REG_NOSUB) != 0)
			return usage_error("invalid --step-marker regex '%s'", r->open.step_marker);
		regfree(&re);
	}
	r->open.progress = isatty(STDERR_FILENO);
	return 0;
}

/* ---- opening the traces ---- */

struct child_result {
	int ok;
	int cls;                 /* enum tix_error_class */
	char msg[sizeof(((struct tix_error *)0)->msg)];
	char opened[PATH_MAX];
};

struct job {
	pid_t pid;
	FILE *err;               /* the child's stderr */
	FILE *res;               /* its struct child_result */
	char tmp[PATH_MAX];      /* --no-cache: where it builds ("" otherwise) */
	int status;              /* waitpid's */
	int forked;
};

static int is_tix_name(const char *p)
{
	size_t n = strlen(p);
	return n >= 4 && !strcmp(p + n - 4, ".tix");
}

static void run_child(const char *path, const struct ropts *r, struct job *j)
{
	struct open_opts o = r->open;
	struct child_result res = {0};
	o.progress = 0;
	o.opened = res.opened;
	o.opened_cap = sizeof(res.opened);
	if (j->tmp[0]) { /* build where the parent reads it, then removes it */
		o.no_cache = 0;
		o.force = 1;
		o.out = j->tmp;
	}
	dup2(fileno(j->err), STDERR_FILENO);
	struct tix_index *ix;
	struct tix_error err;
	int built;
	if (cli_open_trace(path, &o, &ix, &built, &err) == 0) {
		res.ok = 1;
		tix_index_close(ix);
	} else {
		res.cls = err.cls;
		memcpy(res.msg, err.msg, sizeof(res.msg));
	}
	fflush(stderr);
	_exit(fwrite(&res, sizeof(res), 1, j->res) == 1 && fflush(j->res) == 0 ? 0 : 1);
}

/* Indexes (or checks the indexes of) the traces that are not .tix files,
 * up to jobs at once.  0, or -1 when the system refused (message printed). */
static int index_parallel(const struct ropts *r, struct job *jobs, long njobs, const char *tmpdir)
{
	int running = 0, next = 0, forked = 0, done = 0;
	int bar = r->open.progress, total = 0; /* stderr is a terminal: say how far the children are */
	for (int i = 0; i < r->n; i++)
		total += !is_tix_name(r->paths[i]);
	fflush(stdout);
	fflush(stderr);
	while (next < r->n || running > 0) {
		while (running < njobs && next < r->n) {
			struct job *j = &jobs[next];
			const char *path = r->paths[next++];
			if (is_tix_name(path))
				continue;
			if (tmpdir)
				snprintf(j->tmp, sizeof(j->tmp), "%s/%d.tix", tmpdir, next - 1);
			if (!(j->err = tmpfile()) || !(j->res = tmpfile())) {
				struct tix_error err;
				tix_error_sys(&err, errno, "a temporary file");
				fprintf(stderr, "tix: %s\n", err.msg);
				return -1;
			}
			j->pid = fork();
			if (j->pid < 0) {
				struct tix_error err;
				tix_error_sys(&err, errno, "fork");
				fprintf(stderr, "tix: %s\n", err.msg);
				return -1;
			}
			if (j->pid == 0)
				run_child(path, r, j);
			j->forked = 1;
			running++;
			forked++;
		}
		if (bar && forked)
			fprintf(stderr, "\rindexing %d traces, %ld at once: %d done", total, njobs, done);
		if (running == 0)
			break;
		int st;
		pid_t pid = waitpid(-1, &st, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < r->n; i++)
			if (jobs[i].forked && jobs[i].pid == pid)
				jobs[i].status = st, running--, done++;
	}
	if (bar && forked)
		fputs("\r\033[K", stderr);
	return 0;
}

/* The child's messages, as it wrote them. */
static void replay(FILE *f)
{
	char buf[4096];
	size_t n;
	rewind(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stderr);
}

/* Opens trace i (after its child, if it had one) and takes its figures.
 * Returns 0, or the exit status of its failure (message printed). */
static int take(const struct ropts *r, int i, struct job *j, struct tix_rank_trace **out)
{
	const char *path = r->paths[i];
	struct tix_index *ix = NULL;
	struct tix_error err = {{0}, TIX_ERR_INPUT, 0};
	char pb[300];
	*out = NULL;
	if (!j || !j->forked) {
		int built;
		if (cli_open_trace(path, &r->open, &ix, &built, &err) != 0) {
			fprintf(stderr, "tix: %s\n", err.msg);
			return cli_exit_status(&err);
		}
	} else {
		struct child_result res = {0};
		replay(j->err);
		rewind(j->res);
		if (!WIFEXITED(j->status) || fread(&res, sizeof(res), 1, j->res) != 1) {
			if (WIFSIGNALED(j->status))
				fprintf(stderr, "tix: %s: indexing died of signal %d%s\n", tix_printable(path, pb, sizeof(pb)),
				        WTERMSIG(j->status), WTERMSIG(j->status) == SIGKILL ? " (out of memory?)" : "");
			else
				fprintf(stderr, "tix: %s: indexing failed with no message\n", tix_printable(path, pb, sizeof(pb)));
			return WIFSIGNALED(j->status) && WTERMSIG(j->status) == SIGKILL ? EXIT_ENV : EXIT_BAD_INPUT;
		}
		res.msg[sizeof(res.msg) - 1] = res.opened[sizeof(res.opened) - 1] = '\0';
		if (!res.ok) {
			err.cls = (enum tix_error_class)res.cls;
			fprintf(stderr, "tix: %s\n", res.msg);
			return cli_exit_status(&err);
		}
		if (tix_index_open(res.opened, &ix, &err) != 0) {
			fprintf(stderr, "tix: %s\n", err.msg);
			return cli_exit_status(&err);
		}
		if (j->tmp[0])
			unlink(j->tmp); /* the mapping stays valid */
	}
	*out = tix_rank_trace_new(ix, path, &err);
	tix_index_close(ix);
	if (!*out) {
		fprintf(stderr, "tix: %s\n", err.msg);
		return EXIT_ENV;
	}
	return 0;
}

static int worse(int a, int b)
{
	return a == EXIT_ENV || b == EXIT_ENV ? EXIT_ENV : a ? a : b;
}

/* ---- printing: the ranks view's rows (index/view), as the TUI draws them ---- */

static void json_i64(int64_t v)
{
	if (v < 0)
		printf("null");
	else
		printf("%" PRId64, v);
}

/* The set and its steps around the rows: each rank's trace and the steps
 * it has (each a row of the view, null where the rank lacks the step),
 * each step's skew and straggler, the straggler overall. */
static void print_json(const struct tix_rank_set *rs, const struct tix_view *v, uint32_t first,
                       uint32_t count, int has_step)
{
	uint32_t n = tix_rank_count(rs), last = first + count;
	printf("{\"rank_rule\": \"%s\", \"rank_rule_text\": \"%s\", \"world_size\": ", tix_rank_rule_key(rs),
	       tix_rank_rule_text(rs));
	json_i64(tix_rank_world(rs));
	printf(", \"step\": ");
	if (has_step)
		printf("%" PRIu32, first);
	else
		printf("null");
	printf(", \"steps_aligned\": %" PRIu32 ", \"ranks\": [", tix_rank_steps(rs));
	for (uint32_t i = 0; i < n; i++) {
		const struct tix_rank_trace *t = tix_rank_trace_at(rs, i);
		const char *label = tix_rank_label(rs, tix_rank_number(rs, i));
		printf("%s\n  {\"rank\": %" PRId32 ", \"label\": ", i ? "," : "", tix_rank_number(rs, i));
		json_str(stdout, label, strlen(label));
		printf(", \"trace\": ");
		json_str(stdout, t->path, strlen(t->path));
		printf(", \"world_size\": ");
		json_i64(t->info_world);
		printf(", \"step_rule\": ");
		json_str(stdout, t->step_rule, strlen(t->step_rule));
		printf(", \"steps_found\": %" PRIu32 ", \"straggler_steps\": %" PRIu32 ", \"steps\": [", t->nsteps,
		       tix_rank_straggler_steps(rs, i, first, count));
		for (uint32_t s = first; s < last; s++) {
			printf("%s\n    ", s > first ? "," : "");
			if (tix_rank_cell(rs, s, i))
				rows_json_row(stdout, v, s * n + i);
			else
				printf("null");
		}
		printf("]}");
	}
	printf("\n], \"steps\": [");
	for (uint32_t s = first; s < last; s++) {
		const struct tix_rank_step *st = tix_rank_step_get(rs, s);
		printf("%s\n  {\"index\": %" PRIu32 ", \"ranks\": %" PRIu32 ", \"skew_ns\": ", s > first ? "," : "", s,
		       st->ranks);
		json_i64(st->skew_ns);
		printf(", \"straggler\": ");
		json_i64(st->straggler);
		printf(", \"slowest_compute\": ");
		json_i64(st->slowest_compute);
		printf(", \"compute_spread_ns\": ");
		json_i64(st->compute_spread_ns);
		printf(", \"comm_mismatch\": %s}", st->comm_mismatch ? "true" : "false");
	}
	uint32_t most, of;
	int32_t who = tix_rank_straggler(rs, first, count, &most, &of);
	printf("\n], \"straggler\": {\"rank\": ");
	json_i64(who);
	printf(", \"steps\": %" PRIu32 ", \"of\": %" PRIu32 ", \"counts\": [", most, of);
	/* by steps, most first, then by rank */
	int any = 0;
	for (uint32_t k = most; k > 0; k--)
		for (uint32_t i = 0; i < n; i++)
			if (tix_rank_straggler_steps(rs, i, first, count) == k) {
				printf("%s{\"rank\": %" PRId32 ", \"steps\": %" PRIu32 "}", any ? ", " : "",
				       tix_rank_number(rs, i), k);
				any = 1;
			}
	printf("]}}\n");
}

/* What the rows mean, under them: the straggler overall and the steps
 * whose figures need a word. */
static void print_footer(const struct tix_rank_set *rs, uint32_t first, uint32_t count)
{
	uint32_t n = tix_rank_count(rs), not_compute = 0, mismatch = 0;
	for (uint32_t s = first; s < first + count; s++) {
		const struct tix_rank_step *st = tix_rank_step_get(rs, s);
		not_compute += st->straggler >= 0 && st->slowest_compute != st->straggler;
		mismatch += st->comm_mismatch;
	}
	uint32_t most, of;
	int32_t who = tix_rank_straggler(rs, first, count, &most, &of);
	if (who < 0) {
		printf("straggler: none (%s)\n", n < 2 ? "one rank" : "no communication kernels in these steps");
	} else {
		printf("straggler: %s in %" PRIu32 " of %" PRIu32 " step%s", tix_rank_label(rs, who), most, of,
		       of == 1 ? "" : "s");
		const char *sep = " (";
		for (uint32_t k = most; k > 0; k--)
			for (uint32_t i = 0; i < n; i++) {
				uint32_t c = tix_rank_straggler_steps(rs, i, first, count);
				if (c == k && tix_rank_number(rs, i) != who) {
					printf("%s%s: %" PRIu32, sep, tix_rank_label(rs, tix_rank_number(rs, i)), c);
					sep = ", ";
				}
			}
		printf("%s; * marks each step's straggler: the rank the others wait for in the collectives\n",
		       sep[0] == ',' ? ")" : "");
	}
	if (not_compute)
		printf("in %" PRIu32 " step%s the straggler is not the rank with the most compute: it was late for "
		       "another reason (CPU launches, an idle GPU)\n", not_compute, not_compute == 1 ? "" : "s");
	if (mismatch)
		printf("in %" PRIu32 " step%s the ranks ran different numbers of communication kernels: their comm "
		       "times do not compare\n", mismatch, mismatch == 1 ? "" : "s");
}

/* The rows of steps first .. first+count-1, as text (the TUI's Ranks
 * view's columns and cells), CSV or JSON. */
static int print_rows(const struct tix_rank_set *rs, const struct ropts *r, uint32_t first, uint32_t count)
{
	struct tix_error err;
	struct tix_view *v = tix_view_ranks(rs, &err);
	uint32_t n = tix_rank_count(rs), m = count * n;
	uint32_t *order = v ? malloc(((size_t)m + 1) * sizeof *order) : NULL;
	if (!order) {
		if (v)
			tix_error_oom(&err, NULL);
		fprintf(stderr, "tix: %s\n", err.msg);
		tix_view_free(v);
		return cli_exit_status(&err);
	}
	for (uint32_t k = 0; k < m; k++)
		order[k] = first * n + k;
	if (r->json) {
		print_json(rs, v, first, count, r->has_step);
	} else if (r->csv) {
		rows_csv(stdout, v, order, m);
	} else {
		char world[48] = "";
		if (tix_rank_world(rs) > 0)
			snprintf(world, sizeof(world), ", world size %" PRId64, tix_rank_world(rs));
		printf("%" PRIu32 " rank%s, told by %s%s; %" PRIu32 " step%s aligned by number\n", n,
		       n == 1 ? "" : "s", tix_rank_rule_text(rs), world, tix_rank_steps(rs),
		       tix_rank_steps(rs) == 1 ? "" : "s");
		rows_text(stdout, v, order, m, 0, &r->fmt);
		print_footer(rs, first, count);
	}
	free(order);
	tix_view_free(v);
	return EXIT_OK;
}

/* ---- the command ---- */

static void world_warnings(const struct tix_rank_set *rs)
{
	uint32_t n = tix_rank_count(rs);
	if (tix_rank_set_rule(rs) != TIX_RANK_INFO)
		return;
	char pa[300], pb[300];
	for (uint32_t i = 1; i < n; i++) {
		const struct tix_rank_trace *a = tix_rank_trace_at(rs, 0), *b = tix_rank_trace_at(rs, i);
		if (a->info_world != b->info_world) {
			fprintf(stderr, "tix: warning: distributedInfo.world_size differs: %" PRId64 " in %s, %" PRId64
			        " in %s: are they one run?\n", a->info_world, tix_printable(a->path, pa, sizeof(pa)),
			        b->info_world, tix_printable(b->path, pb, sizeof(pb)));
			return;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct tix_rank_trace *t = tix_rank_trace_at(rs, i);
		if (t->info_world > 0 && tix_rank_number(rs, i) >= t->info_world) {
			fprintf(stderr, "tix: warning: %s: rank %" PRId32 " is not below its world_size %" PRId64 "\n",
			        tix_printable(t->path, pa, sizeof(pa)), tix_rank_number(rs, i), t->info_world);
			return;
		}
	}
}

static int summary_ranks(struct ropts *rp);

int cmd_summary_ranks(int argc, char **argv)
{
	struct ropts r;
	int p = parse(argc, argv, &r);
	int rc = p > 0 ? EXIT_OK : p == -2 ? EXIT_BAD_INPUT : p < 0 ? EXIT_USAGE : summary_ranks(&r);
	if (p > 0) /* the one help of summary (cli/help.c) */
		cli_help(stdout, "summary");
	ropts_done(&r);
	return rc;
}

static int summary_ranks(struct ropts *rp)
{
	struct ropts r = *rp; /* the paths and options, freed by the caller */
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	long njobs = r.jobs ? r.jobs : (ncpu > 0 ? ncpu : 1);
	if (njobs > r.n)
		njobs = r.n;
	struct job *jobs = calloc((size_t)r.n, sizeof(*jobs));
	struct tix_rank_trace **traces = calloc((size_t)r.n, sizeof(*traces));
	char tmpdir[PATH_MAX] = "";
	int rc = EXIT_OK;
	if (!jobs || !traces) {
		fprintf(stderr, "tix: out of memory\n");
		free(jobs);
		free(traces);
		return EXIT_ENV;
	}
	if (njobs > 1) {
		if (r.open.no_cache) { /* the children's private indexes, removed once read */
			const char *t = getenv("TMPDIR");
			snprintf(tmpdir, sizeof(tmpdir), "%s/tix-ranks-XXXXXX", t && *t ? t : "/tmp");
			if (!mkdtemp(tmpdir)) {
				struct tix_error err;
				tix_error_sys(&err, errno, "%s", tmpdir);
				fprintf(stderr, "tix: %s\n", err.msg);
				rc = EXIT_ENV;
			}
		}
		if (rc == EXIT_OK && index_parallel(&r, jobs, njobs, tmpdir[0] ? tmpdir : NULL) != 0)
			rc = EXIT_ENV;
	}
	/* One at a time, in the order given: open, take the figures, close. */
	for (int i = 0; i < r.n && rc != EXIT_ENV; i++)
		rc = worse(rc, take(&r, i, njobs > 1 ? &jobs[i] : NULL, &traces[i]));
	for (int i = 0; i < r.n; i++) {
		if (jobs[i].err)
			fclose(jobs[i].err);
		if (jobs[i].res)
			fclose(jobs[i].res);
		if (jobs[i].tmp[0])
			unlink(jobs[i].tmp);
	}
	if (tmpdir[0])
		rmdir(tmpdir);
	free(jobs);
	if (rc != EXIT_OK) {
		for (int i = 0; i < r.n; i++)
			tix_rank_trace_free(traces[i]);
		free(traces);
		return rc;
	}
	struct tix_error err;
	struct tix_rank_set *rs = tix_rank_set_new(traces, (uint32_t)r.n, r.rule, &err);
	free(traces);
	if (!rs) {
		fprintf(stderr, "tix summary: %s\n", err.msg);
		return err.cls == TIX_ERR_ENV ? EXIT_ENV : EXIT_USAGE;
	}
	uint32_t first = 0, count = tix_rank_steps(rs);
	if (r.has_step) {
		if ((uint64_t)r.step >= tix_rank_steps(rs)) {
			fprintf(stderr, "tix: no step %ld (the ranks have at most %" PRIu32 "; see tix summary --by step)\n",
			        r.step, tix_rank_steps(rs));
			tix_rank_set_free(rs);
			return EXIT_BAD_INPUT;
		}
		first = (uint32_t)r.step;
		count = 1;
	}
	world_warnings(rs);
	int out = print_rows(rs, &r, first, count);
	tix_rank_set_free(rs);
	return out;
}
