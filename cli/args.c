/* What the subcommands share: option parsing and opening the trace
 * (cli/args.h), and the JSON and CSV string writers of every report. */
#include "cli/args.h"

#include <getopt.h>
#include <stdint.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The reports' JSON and CSV strings: index/text.c's, the rule every face
 * shares. */
void json_str(FILE *f, const char *s, size_t n)
{
	tix_json_str(f, s, n);
}

void csv_str(FILE *f, const char *s)
{
	tix_csv_str(f, s);
}

int cli_parse_count(const char *s, unsigned long long max, long *out)
{
	unsigned long long v = 0;
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		unsigned d = (unsigned)(*s - '0');
		if (v > (max - d) / 10)
			return -1; /* past max: checked before it can wrap */
		v = v * 10 + d;
	}
	if (v > (unsigned long long)LONG_MAX)
		return -1;
	*out = (long)v;
	return 0;
}

int cli_parse_size(const char *s, uint64_t *out)
{
	static const struct {
		const char *unit;
		uint64_t mul;
	} units[] = {{"", 1}, {"k", 1000}, {"K", 1000}, {"M", 1000000}, {"G", 1000000000}, {"T", 1000000000000ull},
	             {"KiB", 1ull << 10}, {"MiB", 1ull << 20}, {"GiB", 1ull << 30}, {"TiB", 1ull << 40},
	             {"B", 1}, {"kB", 1000}, {"KB", 1000}, {"MB", 1000000}, {"GB", 1000000000}, {"TB", 1000000000000ull}};
	size_t digits = strspn(s, "0123456789");
	if (!digits || digits > 15)
		return -1;
	uint64_t v = strtoull(s, NULL, 10);
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (!strcmp(s + digits, units[i].unit)) {
			if (!v || v > UINT64_MAX / units[i].mul)
				return -1;
			*out = v * units[i].mul;
			return 0;
		}
	return -1;
}

/* What args_parse does with each option, by name.  Which options a command
 * takes, and whether each takes a value, is said once, by its rows in
 * cli/help.c (the help, the completions and the man page's source): the
 * getopt table is built from them. */
/* clang-format off */
static const struct args_key handlers[] = {
	{"--by", 'b'}, {"--step", 's'}, {"--top", 't'}, {"--format", 'f'}, {"--kernel", 'k'},
	{"--limit", 'l'}, {"--range", 'r'}, {"-o", 'o'}, {"--step-marker", 'm'}, {"--no-cache", 'n'},
	{"--strict", 'T'}, {"--max-temp", 'M'}, {"--graph-capture", 'g'}, {"--sort", 'S'},
	{"--timeunit", 'u'}, {"--peak-bw", 'B'}, {"--peak-flops", 'F'}, {"--help", 'h'},
};
/* clang-format on */

static int key_of(const struct args_key *keys, size_t nkeys, const char *name)
{
	for (size_t i = 0; i < nkeys; i++)
		if (!strcmp(keys[i].name, name))
			return keys[i].key;
	return 0;
}

/* Whether row o is spelt word ("--by", "-o"; word may go on with "=value"). */
static int row_is(const struct cli_opt *o, const char *word)
{
	size_t n = strcspn(word, "=");
	const char *names[2] = {o->name, o->alias};
	for (int k = 0; k < 2; k++)
		if (names[k] && strlen(names[k]) == n && !strncmp(names[k], word, n))
			return 1;
	return 0;
}

/* Adds row o's spellings with key to the table, once each; its short one
 * (getopt returns its letter, which must be the key) only when shorts. */
static void add_row(const struct cli_opt *o, int key, struct option *lo, size_t *n, char *shorts,
                    size_t *ns, size_t scap)
{
	const char *names[2] = {o->name, o->alias};
	for (int k = 0; k < 2; k++) {
		const char *w = names[k];
		if (w && w[0] == '-' && w[1] == '-') {
			size_t i = 0;
			while (i < *n && strcmp(lo[i].name, w + 2))
				i++;
			if (i == *n && *n + 1 < ARGS_MAX_OPTS)
				lo[(*n)++] = (struct option){
					w + 2, o->arg ? required_argument : no_argument, 0, key};
		} else if (shorts && w && w[0] == '-' && w[1] && !w[2] &&
		           !memchr(shorts, w[1], *ns) && *ns + 3 < scap) {
			shorts[(*ns)++] = w[1];
			if (o->arg)
				shorts[(*ns)++] = ':';
		}
	}
}

void args_options(const struct cli_cmd *cmd, const struct args_key *keys, size_t nkeys, int other,
                  struct option lo[ARGS_MAX_OPTS], char *shorts, size_t scap)
{
	size_t n = 0, ns = 0;
	for (const struct cli_opt *o = cmd ? cmd->opts : NULL; o && o->name; o++) {
		int key = key_of(keys, nkeys, o->name);
		add_row(o, key ? key : other, lo, &n, shorts, &ns, scap);
	}
	/* every other command's options too, as other: each is refused by its
	 * name (never taken for an abbreviation of one of cmd's: --step is
	 * not index's --step-marker) */
	int nc;
	const struct cli_cmd *all = cli_commands(&nc);
	for (int c = 0; c < nc; c++)
		for (const struct cli_opt *o = &all[c] == cmd ? NULL : all[c].opts; o && o->name;
		     o++)
			add_row(o, other, lo, &n, NULL, &ns, scap);
	lo[n] = (struct option){0, 0, 0, 0};
	shorts[ns] = '\0';
}

/* The row of a command's that word names: cmd's own, or (any) another's. */
static const struct cli_opt *row_named(const struct cli_cmd *cmd, const char *word, int others)
{
	int n;
	const struct cli_cmd *all = cli_commands(&n);
	for (int c = 0; c < n; c++) {
		if ((&all[c] == cmd) == !!others)
			continue;
		for (const struct cli_opt *o = all[c].opts; o && o->name; o++)
			if (row_is(o, word))
				return o;
	}
	return NULL;
}

int args_parse(int argc, char **argv, struct args *a)
{
	const struct cli_cmd *cmd = cli_command(argv[0]);
	struct option longopts[ARGS_MAX_OPTS];
	char shorts[16];
	args_options(cmd, handlers, sizeof handlers / sizeof handlers[0], 'X', longopts, shorts,
	             sizeof shorts);
	const struct cli_opt *format = row_named(cmd, "--format", 0);
	int csv = format && format->arg && strstr(format->arg, "csv");
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
	while ((c = getopt_long_only(argc, argv, shorts, longopts, &li)) != -1) {
		char name[40]; /* the option itself: argv[optind - 1] may be its value */
		if (li >= 0)
			snprintf(name, sizeof(name), "--%s", longopts[li].name);
		else
			snprintf(name, sizeof(name), "-%c", c);
		li = -1;
		switch (c) {
		case 'b':
			a->by = optarg;
			if (strcmp(a->by, "kernel") && strcmp(a->by, "step") && strcmp(a->by, "op") &&
			    (strcmp(argv[0], "diff") || (strcmp(a->by, "shape") && strcmp(a->by, "findings")))) {
				fprintf(stderr, "tix %s: --by takes kernel, step or op%s\n", argv[0],
				        strcmp(argv[0], "diff") ? "" : ", shape or findings");
				return -1;
			}
			break;
		case 's':
			if (cli_parse_count(optarg, CLI_STEP_MAX, &a->step) != 0) {
				fprintf(stderr, "tix %s: --step takes a step number (see summary --by step)\n", argv[0]);
				return -1;
			}
			a->has_step = 1;
			break;
		case 't':
		case 'l': {
			long v;
			if (cli_parse_count(optarg, LONG_MAX, &v) != 0) {
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
			    (strcmp(a->format, "csv") || !csv)) {
				char pb[120];
				fprintf(stderr, "tix %s: unknown --format '%s'\n", argv[0], tix_printable(optarg, pb, sizeof(pb)));
				return -1;
			}
			break;
		case 'S':
			a->sort = optarg; /* checked against the view's columns once it is known */
			break;
		case 'u':
			if (strcmp(optarg, "ns") && strcmp(optarg, "us") && strcmp(optarg, "ms") && strcmp(optarg, "s")) {
				fprintf(stderr, "tix %s: --timeunit takes ns, us, ms or s\n", argv[0]);
				return -1;
			}
			a->timeunit = optarg;
			break;
		case 'k':
			a->kernel = optarg;
			break;
		case 'B':
		case 'F': {
			struct tix_device d;
			const char *why;
			memset(&d, 0, sizeof(d));
			if (tix_device_override(&d, c == 'B' ? optarg : NULL, c == 'F' ? optarg : NULL, &why) != 0) {
				fprintf(stderr, "tix %s: %s\n", argv[0], why);
				return -1;
			}
			*(c == 'B' ? &a->peak_bw : &a->peak_flops) = optarg;
			break;
		}
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
		case 'T':
			a->open.strict = 1;
			break;
		case 'M':
			if (cli_parse_size(optarg, &a->open.max_temp) != 0) {
				fprintf(stderr, "tix %s: --max-temp takes a size: 500M, 4G, 2GiB\n", argv[0]);
				return -1;
			}
			break;
		case 'g': {
			struct tix_error e;
			if (cli_add_graph_capture(&a->open, optarg, &e) != 0) {
				fprintf(stderr, "tix %s: --graph-capture: %s\n", argv[0], e.msg);
				return -1;
			}
			break;
		}
		case 'h':
			a->help = 1;
			return 0;
		case 'X': /* in another command's help, or (--jobs) summary --by rank's */
			fprintf(stderr, "tix %s: option '%s' does not apply here\n", argv[0], name);
			return -1;
		default: /* getopt has stepped past the element it refused */
			char pb[120];
			const char *bad = argv[optind - 1];
			const struct cli_opt *other = row_named(cmd, bad, 1);
			if (other && !row_named(cmd, bad, 0)) { /* an option of another command */
				/* as given: a name another command has */
				fprintf(stderr, "tix %s: option '%.*s' does not apply here\n",
				        argv[0], (int)strcspn(bad, "="), bad);
				return -1;
			}
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
		fprintf(stderr, "tix %s: unexpected argument '%s'%s\n", argv[0],
		        tix_printable(argv[optind + 1], pb, sizeof(pb)),
		        strcmp(argv[0], "summary") ? "" : " (the traces of one run: --by rank)");
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

