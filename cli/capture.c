/* `tix capture`: its options are read here, from the rows of cli/help.c's
 * table (so the parser, the help, the man page checks and the completions
 * name the same options); the launcher is cupti_capture's (tixcap_run).
 * The CLI lends it the door every trace goes through (cli_open_trace), so a
 * capture's journal is indexed exactly as `tix JOURNAL` would index it, and
 * the index lands where `tix JOURNAL` looks for it (JOURNAL.tix beside it,
 * or the cache). */
#include "cli/cli.h"

#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_capture/capture.h"

static int ingest_journal(const char *journal, const char *step_marker, char *out, size_t cap,
                          struct tix_error *err)
{
	/* out receives where cli_open_trace put the index (beside, or the cache) */
	struct open_opts o = {.step_marker = step_marker, .opened = out, .opened_cap = cap};
	struct tix_index *ix;
	int built;
	if (cli_open_trace(journal, &o, &ix, &built, err) != 0)
		return -1;
	tix_index_close(ix);
	return 0;
}

/* The row of capture's table spelled `word` ("--delay", or its alias); for
 * "--name=value", the row of "--name", with *inline_value set. */
static const struct cli_opt *find_opt(const struct cli_cmd *c, const char *word,
                                      const char **inline_value)
{
	const char *eq = strncmp(word, "--", 2) == 0 ? strchr(word, '=') : NULL;
	size_t n = eq ? (size_t)(eq - word) : strlen(word);
	*inline_value = eq ? eq + 1 : NULL;
	for (const struct cli_opt *o = c->opts; o->name; o++)
		if ((strlen(o->name) == n && !strncmp(o->name, word, n)) ||
		    (o->alias && strlen(o->alias) == n && !strncmp(o->alias, word, n)))
			return o;
	return NULL;
}

/* v as a number in [lo, hi] (hi may be INFINITY: "inf" is then accepted). */
static int number(const char *opt, const char *v, double lo, double hi, const char *what,
                  double *out)
{
	char *end, pb[200];
	errno = 0;
	double d = strtod(v, &end);
	if (errno || end == v || *end || isnan(d) || d < lo || d > hi) {
		fprintf(stderr, "tix capture: %s wants %s, got '%s'\n", opt, what,
		        tix_printable(v, pb, sizeof pb));
		return -1;
	}
	*out = d;
	return 0;
}

/* Sets what option o (a row of capture's table) asks for.  0, or -1 after
 * one line on stderr. */
static int set_opt(struct tixcap_opts *to, const struct cli_opt *o, const char *v, int *help)
{
	const char *n = o->name;
	char pb[200];
	if (!strcmp(n, "--help")) {
		*help = 1;
	} else if (!strcmp(n, "-o")) {
		to->out = v;
	} else if (!strcmp(n, "--delay")) {
		return number(n, v, 0, 1e9, "seconds (a number >= 0)", &to->delay_s);
	} else if (!strcmp(n, "--duration")) {
		return number(n, v, 0, 1e9, "seconds (a number >= 0)", &to->duration_s);
	} else if (!strcmp(n, "--flush-ms")) {
		return number(n, v, 10, 60000, "milliseconds (a number from 10 to 60000)", &to->flush_ms);
	} else if (!strcmp(n, "--wait")) {
		return number(n, v, 0, INFINITY, "seconds (a number >= 0, or inf)", &to->wait_s);
	} else if (!strcmp(n, "--nvtx")) {
		if (!*v) {
			fprintf(stderr, "tix capture: --nvtx wants the name of an NVTX range\n");
			return -1;
		}
		to->nvtx = v;
	} else if (!strcmp(n, "--cuda-profiler-api")) {
		to->profiler_api = 1;
	} else if (!strcmp(n, "--step-marker")) {
		/* checked now, not after an hour of capture */
		regex_t re;
		if (regcomp(&re, v, REG_EXTENDED | REG_NOSUB) != 0) {
			fprintf(stderr, "tix capture: invalid --step-marker regex '%s'\n",
			        tix_printable(v, pb, sizeof pb));
			return -1;
		}
		regfree(&re);
		to->step_marker = v;
	} else {
		/* a row of the table this parser does not know: a bug, said plainly */
		fprintf(stderr, "tix capture: option %s is in the help but not handled\n", n);
		return -1;
	}
	return 0;
}

/* Reads capture's options, up to "--" or the first word that is not one
 * (CMD).  Returns the index of CMD in argv (argc if none), or -1 after one
 * line on stderr. */
static int parse(int argc, char **argv, struct tixcap_opts *to, int *help)
{
	const struct cli_cmd *c = cli_command("capture");
	char pb[200];
	int i;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--"))
			return i + 1;
		if (a[0] != '-' || !a[1])
			break; /* CMD without "--" */
		const char *v;
		const struct cli_opt *o = find_opt(c, a, &v);
		if (!o) {
			fprintf(stderr, "tix capture: unknown option '%s' (tix capture --help lists them)\n",
			        tix_printable(a, pb, sizeof pb));
			return -1;
		}
		if (!o->arg && v) {
			fprintf(stderr, "tix capture: %s takes no value\n", o->name);
			return -1;
		}
		if (o->arg && !v) {
			if (i + 1 >= argc) {
				fprintf(stderr, "tix capture: %s needs a value (%s)\n", o->name, o->arg);
				return -1;
			}
			v = argv[++i];
		}
		if (set_opt(to, o, v, help) != 0)
			return -1;
		if (*help)
			return argc;
	}
	return i;
}

int cmd_capture(int argc, char **argv, const char *exe)
{
	struct tixcap_opts o = {.flush_ms = TIXCAP_FLUSH_MS_DEFAULT, .wait_s = TIXCAP_WAIT_S_DEFAULT};
	int help = 0, at = parse(argc, argv, &o, &help);
	if (at < 0)
		return EXIT_USAGE;
	if (help)
		return cli_help(stdout, "capture") == 0 ? EXIT_OK : EXIT_USAGE;
	if (at >= argc) {
		fprintf(stderr, "tix capture: no command to run (tix capture [OPTIONS] -- CMD [ARGS...])\n");
		return EXIT_USAGE;
	}
	o.cmd = argv + at;
	return tixcap_run(&o, exe, ingest_journal);
}
