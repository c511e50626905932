/* tix: the entry point.  `tix TRACE...` opens the TUI; the other verbs are
 * its headless twins (docs/CLI.md). */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tui/tui.h"

static const char usage[] =
	"usage: tix TRACE...                  open the TUI (.json, .json.gz, .tix)\n"
	"       tix index TRACE [-o OUT.tix]  build the index only\n"
	"       tix summary TRACE [--by kernel|step|op] [--step N] [--top N] [--format text|csv|json]\n"
	"       tix summary TRACE... --by rank [--jobs N] [--step N] [--format text|json]\n"
	"       tix show TRACE --kernel REGEX [--step N] [--limit N] [--format text|json]\n"
	"       tix export TRACE [--step N] [--kernel REGEX] [--range T0:T1] -o OUT.json\n"
	"       tix capture [-o OUT] [--delay S] [--duration S] [--nvtx RANGE] -- CMD [ARGS...]\n"
	"       tix info FILE.tix\n"
	"       tix diff BASE NEW [--by kernel|op|step|shape] [--step N] [--top N] [--format text|csv|json]\n"
	"common options: --step-marker REGEX, --graph-capture CAPTURE, --no-cache, --help,\n"
	"                --help-keys, --version\n"
	"exit status: 0 success, 1 usage error, 2 bad input, 3 environment (disk full, permission)\n";

static int open_tui(int argc, char **argv)
{
	struct open_opts o = {0};
	const char *paths[64];
	int n = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-cache")) {
			o.no_cache = 1;
		} else if (!strcmp(argv[i], "--step-marker") && i + 1 < argc) {
			o.step_marker = argv[++i];
		} else if (!strcmp(argv[i], "--graph-capture") && i + 1 < argc) {
			struct tix_error err;
			if (cli_add_graph_capture(&o, argv[++i], &err) != 0) {
				fprintf(stderr, "tix: --graph-capture: %s\n", err.msg);
				cli_open_opts_done(&o);
				return EXIT_USAGE;
			}
		} else if (argv[i][0] == '-' && argv[i][1]) {
			char pb[120];
			fprintf(stderr, "tix: unknown option '%s' (tix --help lists them)\n",
			        tix_printable(argv[i], pb, sizeof(pb)));
			cli_open_opts_done(&o);
			return EXIT_USAGE;
		} else if (n < 64) {
			paths[n++] = argv[i];
		} else {
			fprintf(stderr, "tix: at most 64 traces at once\n");
			return EXIT_USAGE;
		}
	}
	if (n == 0) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
		char pb[300];
		fprintf(stderr, "tix: the explorer needs a terminal; for text output use "
		                "`tix summary %s`\n", tix_printable(paths[0], pb, sizeof(pb)));
		return EXIT_USAGE;
	}
	o.progress = isatty(STDERR_FILENO);
	struct tui_trace traces[64];
	int rc = EXIT_OK;
	int opened = 0;
	for (int i = 0; i < n; i++) {
		struct tix_error err;
		int built;
		traces[i].path = paths[i];
		if (cli_open_trace(paths[i], &o, &traces[i].ix, &built, &err) != 0) {
			fprintf(stderr, "tix: %s\n", err.msg);
			rc = cli_exit_status(&err);
			break;
		}
		opened++;
	}
	if (rc == EXIT_OK)
		rc = tui_run(traces, n);
	for (int i = 0; i < opened; i++)
		tix_index_close(traces[i].ix);
	cli_open_opts_done(&o);
	return rc;
}

/* The command within two edits of word (insert, delete, change, or swap
 * two neighbours: "sumary", "shwo"), or NULL. */
static const char *nearest_command(const char *word)
{
	static const char *const cmds[] = {"index", "summary", "show", "export", "diff", "capture",
	                                   "info", "help", NULL};
	const char *best = NULL;
	int best_d = 3;
	size_t n = strlen(word);
	if (n > 32)
		return NULL;
	for (int c = 0; cmds[c]; c++) {
		size_t m = strlen(cmds[c]);
		int d[34][34];
		for (size_t i = 0; i <= n; i++)
			d[i][0] = (int)i;
		for (size_t j = 0; j <= m; j++)
			d[0][j] = (int)j;
		for (size_t i = 1; i <= n; i++) {
			for (size_t j = 1; j <= m; j++) {
				int cost = word[i - 1] != cmds[c][j - 1];
				int v = d[i - 1][j] + 1;
				if (d[i][j - 1] + 1 < v)
					v = d[i][j - 1] + 1;
				if (d[i - 1][j - 1] + cost < v)
					v = d[i - 1][j - 1] + cost;
				if (i > 1 && j > 1 && word[i - 1] == cmds[c][j - 2] && word[i - 2] == cmds[c][j - 1] &&
				    d[i - 2][j - 2] + 1 < v)
					v = d[i - 2][j - 2] + 1;
				d[i][j] = v;
			}
		}
		if (d[n][m] < best_d) {
			best_d = d[n][m];
			best = cmds[c];
		}
	}
	return best;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	const char *verb = argv[1];
	if (!strcmp(verb, "--help") || !strcmp(verb, "-h") || !strcmp(verb, "help")) {
		fputs(usage, stdout);
		return EXIT_OK;
	}
	if (!strcmp(verb, "--help-keys")) { /* the TUI's keys, as docs/TUI.md lists them */
		tui_print_keys(stdout);
		return EXIT_OK;
	}
	if (!strcmp(verb, "--version")) {
		printf("tix %s\n", TIX_VERSION);
		return EXIT_OK;
	}
	if (!strcmp(verb, "index"))
		return cmd_index(argc - 1, argv + 1);
	if (!strcmp(verb, "summary"))
		return cli_wants_ranks(argc - 1, argv + 1) ? cmd_summary_ranks(argc - 1, argv + 1)
		                                          : cmd_summary(argc - 1, argv + 1);
	if (!strcmp(verb, "show"))
		return cmd_show(argc - 1, argv + 1);
	if (!strcmp(verb, "export"))
		return cmd_export(argc - 1, argv + 1);
	if (!strcmp(verb, "diff"))
		return cmd_diff(argc - 1, argv + 1);
	if (!strcmp(verb, "info"))
		return cmd_info(argc - 1, argv + 1);
	if (!strcmp(verb, "capture"))
		return cmd_capture(argc - 1, argv + 1, argv[0]);
	/* A word that names no file is a command tix does not know (a typo),
	 * not a trace: traces have a name with a dot or a slash in it, or exist. */
	struct stat st;
	if (!strpbrk(verb, "./") && verb[0] != '-' && stat(verb, &st) != 0) {
		char pb[120];
		const char *near = nearest_command(verb);
		if (near)
			fprintf(stderr, "tix: unknown command '%s': did you mean '%s'?\n",
			        tix_printable(verb, pb, sizeof(pb)), near);
		else
			fprintf(stderr, "tix: unknown command '%s' (commands: index, summary, show, export, "
			                "diff, capture, info; or a trace file, which does not exist by that name)\n",
			        tix_printable(verb, pb, sizeof(pb)));
		return EXIT_USAGE;
	}
	return open_tui(argc, argv);
}
