/* tix: the entry point.  `tix TRACE...` opens the TUI; the other verbs are
 * its headless twins (docs/CLI.md). */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index/view/view.h"
#include "tui/tui.h"

#include <dirent.h>
#include <signal.h>

/* Reading a page of an index that another program truncated raises SIGBUS:
 * one line and exit 2, as for any damaged index, not a crash.  (The
 * parser guards its own mappings; the TUI restores the terminal first.)
 * Two threads reading the index (tix diff's sides) may both fault: the
 * first writes the line and exits, the other waits for it. */
static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	static int ending;
	if (si && tix_index_any_maps(si->si_addr)) {
		if (__atomic_exchange_n(&ending, 1, __ATOMIC_SEQ_CST))
			for (;;)
				pause();
		static const char msg[] = "tix: an index file changed while tix read it (truncated, rewritten, or "
		                          "its disk full): run the command again\n";
		ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
		(void)w;
		_exit(2);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void guard_sigbus(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && !strcmp(s + n - m, suf);
}

int cli_folder_traces(const char *dir, char **paths, int *n, int max)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	char *names[4096];
	int k = 0;
	struct dirent *e;
	while ((e = readdir(d)) && k < 4096) {
		const char *nm = e->d_name;
		if (nm[0] != '.' && (ends_with(nm, ".json") || ends_with(nm, ".json.gz") || ends_with(nm, ".tixj") ||
		                     ends_with(nm, ".tix")))
			names[k++] = strdup(nm);
	}
	closedir(d);
	/* cppcheck-suppress uninitvar ; with k == 0 qsort reads none of names */
	qsort(names, (size_t)k, sizeof *names, by_name);
	size_t dl = strlen(dir);
	while (dl > 1 && dir[dl - 1] == '/') /* "tp8/" and "tp8" name the same files */
		dl--;
	int added = 0;
	for (int i = 0; i < k; i++) {
		if (!names[i])
			continue;
		int skip = 0;
		if (ends_with(names[i], ".tix")) /* the index of a trace listed too */
			for (int j = 0; j < k && !skip; j++)
				skip = j != i && names[j] && strlen(names[j]) + 4 == strlen(names[i]) &&
				       !strncmp(names[j], names[i], strlen(names[j]));
		size_t len = dl + strlen(names[i]) + 2;
		char *path = skip || *n >= max ? NULL : malloc(len);
		if (path) {
			snprintf(path, len, "%.*s%s%s", (int)dl, dir, dir[dl - 1] == '/' ? "" : "/", names[i]);
			paths[(*n)++] = path;
			added++;
		}
	}
	/* freed only now: a .tix is compared with the names before it */
	for (int i = 0; i < k; i++)
		free(names[i]);
	return added;
}

static int open_tui_paths(int argc, char **argv, char **owned, int *nowned);

/* tix TRACE...: the folders' paths it made are freed on every way out. */
static int open_tui(int argc, char **argv)
{
	char *owned[64];
	int nowned = 0;
	int rc = open_tui_paths(argc, argv, owned, &nowned);
	for (int i = 0; i < nowned; i++)
		free(owned[i]);
	return rc;
}

static int open_tui_paths(int argc, char **argv, char **owned, int *nowned)
{
	struct open_opts o = {0};
	struct tui_opts to = {0, 0, NULL, NULL};
	const char *paths[64];
	int n = 0, compare = 0, timeunit = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--diff")) { /* tix --diff BASE NEW: the compare view */
			compare = 1;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			cli_open_opts_done(&o);
			return cli_help(stdout, "tui");
		} else if (!strcmp(argv[i], "--help-keys")) { /* the TUI's keys, as docs/TUI.md lists them */
			cli_open_opts_done(&o);
			tui_print_keys(stdout);
			return EXIT_OK;
		} else if (!strcmp(argv[i], "--version")) {
			cli_open_opts_done(&o);
			printf("tix %s\n", TIX_VERSION);
			return EXIT_OK;
		} else if (!strcmp(argv[i], "--no-cache")) {
			o.no_cache = 1;
		} else if (!strcmp(argv[i], "--strict")) {
			o.strict = 1;
		} else if (!strcmp(argv[i], "--max-temp") && i + 1 < argc) {
			if (cli_parse_size(argv[++i], &o.max_temp) != 0) {
				fprintf(stderr, "tix: --max-temp takes a size: 500M, 4G, 2GiB\n");
				cli_open_opts_done(&o);
				return EXIT_USAGE;
			}
		} else if (!strcmp(argv[i], "--timeunit") && i + 1 < argc) {
			if ((timeunit = tix_timeunit_parse(argv[++i])) < 0) {
				fprintf(stderr, "tix: --timeunit takes ns, us, ms or s\n");
				cli_open_opts_done(&o);
				return EXIT_USAGE;
			}
		} else if (!strcmp(argv[i], "--step-marker") && i + 1 < argc) {
			o.step_marker = argv[++i];
		} else if ((!strcmp(argv[i], "--peak-bw") || !strcmp(argv[i], "--peak-flops")) && i + 1 < argc) {
			/* checked now, as tix findings does: a bad figure is a usage error, not a view's message */
			int bw = !strcmp(argv[i], "--peak-bw");
			struct tix_device d;
			const char *why;
			memset(&d, 0, sizeof d);
			if (tix_device_override(&d, bw ? argv[i + 1] : NULL, bw ? NULL : argv[i + 1], &why) != 0) {
				fprintf(stderr, "tix: %s\n", why);
				cli_open_opts_done(&o);
				return EXIT_USAGE;
			}
			*(bw ? &to.peak_bw : &to.peak_flops) = argv[++i];
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
			struct stat st;
			if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
				int before = *nowned;
				int added = cli_folder_traces(argv[i], owned, nowned, 64);
				for (int k = before; k < *nowned && n < 64; k++)
					paths[n++] = owned[k];
				if (added <= 0) {
					char pb[300];
					fprintf(stderr, "tix: %s: no traces in this folder (.json, .json.gz, .tix, .tixj)\n",
					        tix_printable(argv[i], pb, sizeof(pb)));
					cli_open_opts_done(&o);
					return EXIT_BAD_INPUT;
				}
			} else {
				paths[n++] = argv[i];
			}
		} else {
			fprintf(stderr, "tix: at most 64 traces at once\n");
			cli_open_opts_done(&o);
			return EXIT_USAGE;
		}
	}
	if (n == 0) {
		cli_help(stderr, NULL);
		cli_open_opts_done(&o);
		return EXIT_USAGE;
	}
	if (compare && n != 2) {
		fprintf(stderr, "tix: --diff takes two traces: tix --diff BASE NEW\n");
		cli_open_opts_done(&o);
		return EXIT_USAGE;
	}
	/* a file that is not there is said first: a terminal would not help */
	for (int i = 0; i < n; i++) {
		struct tix_error err;
		if (cli_check_trace(paths[i], &err) != 0) {
			fprintf(stderr, "tix: %s\n", err.msg);
			cli_open_opts_done(&o);
			return cli_exit_status(&err);
		}
	}
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
		char pb[300];
		fprintf(stderr, "tix: the explorer needs a terminal; for text output use "
		                "`tix summary %s`\n", tix_printable(paths[0], pb, sizeof(pb)));
		cli_open_opts_done(&o);
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
	to.compare = compare;
	to.timeunit = timeunit;
	if (rc == EXIT_OK)
		rc = tui_run(traces, n, &to);
	for (int i = 0; i < opened; i++)
		tix_index_close(traces[i].ix);
	cli_open_opts_done(&o);
	return rc;
}

int main(int argc, char **argv)
{
	guard_sigbus();
	if (argc < 2) {
		cli_help(stderr, NULL);
		return EXIT_USAGE;
	}
	const char *verb = argv[1];
	if (!strcmp(verb, "--help") || !strcmp(verb, "-h")) {
		cli_help(stdout, NULL);
		return EXIT_OK;
	}
	if (!strcmp(verb, "help"))
		return cmd_help(argc - 1, argv + 1);
	if (!strcmp(verb, "completion"))
		return cmd_completion(argc - 1, argv + 1);
	if (!strcmp(verb, "index"))
		return cmd_index(argc - 1, argv + 1);
	if (!strcmp(verb, "dump"))
		return cmd_dump(argc - 1, argv + 1);
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
	if (!strcmp(verb, "findings"))
		return cmd_findings(argc - 1, argv + 1);
	if (!strcmp(verb, "capture"))
		return cmd_capture(argc - 1, argv + 1, argv[0]);
	/* A word that names no file is a command tix does not know (a typo),
	 * not a trace: traces have a name with a dot or a slash in it, or exist. */
	struct stat st;
	if (!strpbrk(verb, "./") && verb[0] != '-' && stat(verb, &st) != 0) {
		cli_unknown_command("tix", verb);
		return EXIT_USAGE;
	}
	return open_tui(argc, argv);
}
