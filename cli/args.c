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
		{"strict", no_argument, 0, 'T'},
		{"max-temp", required_argument, 0, 'M'},
		{"graph-capture", required_argument, 0, 'g'},
		{"sort", required_argument, 0, 'S'},
		{"timeunit", required_argument, 0, 'u'},
		{"peak-bw", required_argument, 0, 'B'},
		{"peak-flops", required_argument, 0, 'F'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	static const struct {
		int opt;
		unsigned flag;
	} flags[] = {{'b', ARG_BY}, {'s', ARG_STEP}, {'t', ARG_TOP}, {'f', ARG_FORMAT},
	             {'k', ARG_KERNEL}, {'l', ARG_LIMIT}, {'r', ARG_RANGE}, {'o', ARG_OUT},
	             {'S', ARG_SORT}, {'u', ARG_TIMEUNIT}, {'B', ARG_PEAK}, {'F', ARG_PEAK}};
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
			    (strcmp(a->format, "csv") || !(allowed & ARG_CSV))) {
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

