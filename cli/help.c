/* The one definition of tix's command line as its users read it: every
 * command's usage, options and examples, in one table.  `tix help`,
 * `tix COMMAND --help` and the completion scripts (cli/completion.c) are
 * printed from it; docs/CLI.md and docs/tix.1 are checked against it
 * (tests/core/e2e_help.py), so none of them can drift from the others. */
#include "cli/cli.h"

#include <string.h>

/* The options most commands share (docs/CLI.md, first section). */
#define OPT_STEP_MARKER                                                                         \
	{"--step-marker", NULL, "REGEX", CLI_V_NONE, 1,                                          \
	 "steps are the CPU events whose name matches REGEX (POSIX ERE; default: the built-in rules)"}
#define OPT_GRAPH_CAPTURE                                                                       \
	{"--graph-capture", NULL, "CAPTURE", CLI_V_TRACE, 1,                                     \
	 "the trace, or folder of traces, taken while the CUDA graphs were captured (repeatable)"}
#define OPT_NO_CACHE                                                                            \
	{"--no-cache", NULL, NULL, CLI_V_NONE, 1, "build a private index, use it, leave nothing behind"}
#define OPT_STRICT                                                                              \
	{"--strict", NULL, NULL, CLI_V_NONE, 1,                                                  \
	 "a malformed event is an error (exit 2), not skipped with a warning"}
#define OPT_MAX_TEMP                                                                            \
	{"--max-temp", NULL, "SIZE", CLI_V_NONE, 1,                                              \
	 "building an index may take at most SIZE of disk (500M, 4G, 2GiB; default: the free space "  \
	 "less 5%, at most 1 GB, kept for others)"}
#define OPT_HELP {"--help", "-h", NULL, CLI_V_NONE, 1, "this help"}
/* The device's peaks, for the findings (tix findings, the TUI's Findings view). */
#define OPT_PEAK_BW                                                                             \
	{"--peak-bw", NULL, "B/S", CLI_V_NONE, 0,                                                \
	 "the device's memory bandwidth in bytes/s (4.8e12, 4.8T), for a device tix does not know"}
#define OPT_PEAK_FLOPS                                                                          \
	{"--peak-flops", NULL, "F", CLI_V_NONE, 0,                                               \
	 "the device's dense FLOP/s, one for every dtype (989T) or per dtype (bf16=989T,fp8=1979T)"}
#define OPT_END {NULL, NULL, NULL, CLI_V_NONE, 0, NULL}

static const struct cli_opt tui_opts[] = {
	{"--diff", NULL, NULL, CLI_V_NONE, 0,
	 "with two traces BASE NEW: open on the compare view (what tix diff prints)"},
	{"--timeunit", NULL, "ns|us|ms|s", CLI_V_WORDS, 0,
	 "every duration in this unit, named in the column headers (default: each in its own; u cycles)"},
	{"--help-keys", NULL, NULL, CLI_V_NONE, 0, "print the TUI's keys and exit"},
	{"--version", NULL, NULL, CLI_V_NONE, 0, "print tix's version and exit"},
	OPT_PEAK_BW, OPT_PEAK_FLOPS,
	OPT_STEP_MARKER, OPT_GRAPH_CAPTURE, OPT_NO_CACHE, OPT_STRICT, OPT_MAX_TEMP, OPT_HELP, OPT_END,
};

static const struct cli_opt index_opts[] = {
	{"-o", "--output", "OUT.tix", CLI_V_FILE, 0,
	 "write the index to OUT.tix instead of beside the trace (or in the cache)"},
	OPT_STEP_MARKER, OPT_GRAPH_CAPTURE, OPT_STRICT, OPT_MAX_TEMP, OPT_HELP, OPT_END,
};

static const struct cli_opt summary_opts[] = {
	{"--by", NULL, "kernel|step|op|rank", CLI_V_WORDS, 0,
	 "a row per GPU kernel (default), step, CPU op, or trace of a multi-rank run"},
	{"--step", NULL, "N", CLI_V_NONE, 0, "only step N (the Step column of --by step); with --by kernel, op or rank"},
	{"--top", NULL, "N", CLI_V_NONE, 0,
	 "the N largest by the sort (text: 25 by default; csv/json and 0: all)"},
	{"--sort", NULL, "COL", CLI_V_SORT, 0,
	 "sort by column COL, a key of the CSV header (default: the view's own ranking)"},
	{"--timeunit", NULL, "ns|us|ms|s", CLI_V_WORDS, 0,
	 "every duration in text in this unit, named in the header (default: each in its own)"},
	{"--format", NULL, "text|csv|json", CLI_V_WORDS, 0,
	 "aligned text (default), CSV with one header line, or JSON (--by rank: text or json)"},
	{"--peak-bw", NULL, "B/S", CLI_V_NONE, 0,
	 "with --by op: the device's memory bandwidth for the roofline columns (4.8e12, 4.8T)"},
	{"--peak-flops", NULL, "F", CLI_V_NONE, 0,
	 "with --by op: the device's dense FLOP/s, one for every dtype (989T) or per dtype (bf16=989T)"},
	{"--jobs", NULL, "N", CLI_V_NONE, 0,
	 "with --by rank: index at most N traces at once (default: the CPUs)"},
	{"--rank-from", NULL, "info|name|order", CLI_V_WORDS, 0,
	 "with --by rank: ranks from distributedInfo, the file names (TP-N, rank-N) or the order given "
	 "(default: the first that gives every trace one)"},
	OPT_STEP_MARKER, OPT_GRAPH_CAPTURE, OPT_NO_CACHE, OPT_STRICT, OPT_MAX_TEMP, OPT_HELP, OPT_END,
};

static const struct cli_opt show_opts[] = {
	{"--kernel", NULL, "REGEX", CLI_V_NONE, 0,
	 "required: the GPU work whose name (as given, or demangled) matches REGEX (POSIX ERE)"},
	{"--step", NULL, "N", CLI_V_NONE, 0, "only the launches of step N"},
	{"--limit", NULL, "N", CLI_V_NONE, 0, "at most N launches, in time order (default 20; 0: all)"},
	{"--timeunit", NULL, "ns|us|ms|s", CLI_V_WORDS, 0,
	 "every duration in text in this unit, named in the header (default: each in its own)"},
	{"--format", NULL, "text|csv|json", CLI_V_WORDS, 0, "text (default), CSV or JSON"},
	OPT_STEP_MARKER, OPT_GRAPH_CAPTURE, OPT_NO_CACHE, OPT_STRICT, OPT_MAX_TEMP, OPT_HELP, OPT_END,
};

static const struct cli_opt export_opts[] = {
	{"-o", "--output", "OUT.json", CLI_V_FILE, 0, "required: the Chrome-trace JSON file to write"},
	{"--step", NULL, "N", CLI_V_NONE, 0, "the GPU work of step N"},
	{"--kernel", NULL, "REGEX", CLI_V_NONE, 0, "the GPU work whose name matches REGEX (POSIX ERE)"},
	{"--range", NULL, "T0:T1", CLI_V_NONE, 0,
	 "the GPU work overlapping T0..T1 from the trace start (ms, or suffixed ns, us, s)"},
	OPT_STEP_MARKER, OPT_GRAPH_CAPTURE, OPT_NO_CACHE, OPT_STRICT, OPT_MAX_TEMP, OPT_HELP, OPT_END,
};

static const struct cli_opt diff_opts[] = {
	{"--by", NULL, "kernel|op|step|shape|findings", CLI_V_WORDS, 0,
	 "match GPU work by name (default), CPU ops by name, steps by position, ops by Input Dims, or "
	 "the base's findings with what NEW saved of each"},
	{"--step", NULL, "N", CLI_V_NONE, 0, "compare step N of both traces (with --by kernel or findings)"},
	{"--top", NULL, "N", CLI_V_NONE, 0,
	 "the N rows that changed most, or the N largest by --sort (text: 25 by default; csv/json and 0: all)"},
	{"--sort", NULL, "COL", CLI_V_NONE, 0,
	 "sort by column COL, a key of the CSV header (default: the change of time; steps in order)"},
	{"--timeunit", NULL, "ns|us|ms|s", CLI_V_WORDS, 0,
	 "every duration in text in this unit, named in the header (default: each in its own)"},
	{"--format", NULL, "text|csv|json", CLI_V_WORDS, 0, "text (default), CSV or JSON"},
	OPT_STEP_MARKER, OPT_NO_CACHE, OPT_STRICT, OPT_MAX_TEMP, OPT_HELP, OPT_END,
};

static const struct cli_opt findings_opts[] = {
	{"--step", NULL, "N", CLI_V_NONE, 0, "the findings of step N (default: the real steps, averaged)"},
	{"--top", NULL, "N", CLI_V_NONE, 0, "the N largest savings (text: 10 by default; json and 0: all)"},
	{"--format", NULL, "text|json", CLI_V_WORDS, 0, "text (default) or JSON"},
	OPT_PEAK_BW, OPT_PEAK_FLOPS,
	OPT_STEP_MARKER, OPT_GRAPH_CAPTURE, OPT_NO_CACHE, OPT_STRICT, OPT_MAX_TEMP, OPT_HELP, OPT_END,
};

static const struct cli_opt info_opts[] = {
	OPT_STEP_MARKER, OPT_GRAPH_CAPTURE, OPT_NO_CACHE, OPT_STRICT, OPT_MAX_TEMP, OPT_HELP, OPT_END,
};

static const struct cli_opt dump_opts[] = {
	{"--section", NULL, "S", CLI_V_NONE, 0,
	 "only section S: its name (ROWS, STEPS, ...; any case) or its id (5, or one a later tix wrote)"},
	OPT_HELP, OPT_END,
};

static const struct cli_opt capture_opts[] = {
	{"-o", "--output", "OUT", CLI_V_DIR, 0,
	 "the folder for journals and indexes (default tix-capture-DATE-TIME)"},
	{"--delay", NULL, "S", CLI_V_NONE, 0, "start capturing S seconds after CUDA starts"},
	{"--duration", NULL, "S", CLI_V_NONE, 0, "stop capturing S seconds after the window opened"},
	{"--nvtx", NULL, "RANGE", CLI_V_NONE, 0,
	 "capture inside the NVTX push/pop ranges named RANGE (RANGE*: a prefix)"},
	{"--cuda-profiler-api", NULL, NULL, CLI_V_NONE, 0,
	 "capture between cudaProfilerStart and cudaProfilerStop"},
	{"--flush-ms", NULL, "N", CLI_V_NONE, 0, "how often the journal is flushed, in ms (default 250)"},
	{"--wait", NULL, "S", CLI_V_NONE, 0,
	 "once CMD exits, wait at most S seconds for the processes it left running (default 30; inf: "
	 "until they end)"},
	OPT_STEP_MARKER, OPT_HELP, OPT_END,
};

static const struct cli_opt completion_opts[] = {OPT_HELP, OPT_END};
static const struct cli_opt help_opts[] = {OPT_HELP, OPT_END};

static const struct cli_cmd commands[] = {
	{"tui", "open the explorer (the TUI) on one or more traces",
	 {"tix TRACE...|DIR [--timeunit ns|us|ms|s] [--step-marker REGEX] [--graph-capture CAPTURE] [--no-cache] "
	  "[--peak-bw B/S] [--peak-flops F]",
	  "tix --diff BASE NEW", "tix --help-keys | --version | --help"},
	 "Opens the TUI on each TRACE (.json, .json.gz, .tix, or a capture journal .tixj), or on "
	 "the traces in DIR, building or reusing each index. Traces that name their ranks "
	 "(distributedInfo.rank, TP-N file names) open side by side on the Ranks view; --diff "
	 "opens two on the compare view. --peak-bw and --peak-flops give the device's peaks to the "
	 "Findings view (key 7), as to tix findings. `tix --help-keys` lists the keys; `?` shows them "
	 "in the TUI.",
	 tui_opts, CLI_V_TRACE, NULL,
	 {"tix trace.json.gz", "tix sglang_profiles/", "tix --diff before.json.gz after.json.gz"}},
	{"index", "build the index (always rebuilds)",
	 {"tix index TRACE [-o OUT.tix] [--step-marker REGEX] [--graph-capture CAPTURE]"},
	 "Builds the index of TRACE (beside it, else in the cache) even when a current one exists, "
	 "and says where it went.",
	 index_opts, CLI_V_TRACE, NULL,
	 {"tix index trace.json.gz", "tix index trace.json.gz -o /tmp/trace.tix"}},
	{"summary", "GPU time by kernel, step, CPU op or rank",
	 {"tix summary TRACE [--by kernel|step|op] [--step N] [--top N] [--sort COL] "
	  "[--timeunit ns|us|ms|s] [--format text|csv|json] [--peak-bw B/S] [--peak-flops F]",
	  "tix summary TRACE...|DIR --by rank [--jobs N] [--step N] [--rank-from info|name|order] "
	  "[--timeunit ns|us|ms|s] [--format text|csv|json]"},
	 "Prints the rows of the TUI's views: GPU work ranked by total time (nsys stats' columns), "
	 "the steps, the CPU ops by the GPU time launched beneath them, or one row per rank.",
	 summary_opts, CLI_V_TRACE, NULL,
	 {"tix summary trace.json.gz --top 10", "tix summary trace.json.gz --by step --format csv > steps.csv",
	  "tix summary trace.json.gz --by op --step 3 --timeunit ms",
	  "tix summary rank*.json.gz --by rank --jobs 4"}},
	{"show", "each launch of a kernel: its shapes and CPU parents",
	 {"tix show TRACE --kernel REGEX [--step N] [--limit N] [--timeunit ns|us|ms|s] "
	  "[--format text|csv|json]"},
	 "Lists each launch of the GPU work matching REGEX, in time order: its step, time, grid, "
	 "block, bytes moved, launch call, and the CPU chain containing it with its Input Dims.",
	 show_opts, CLI_V_TRACE, NULL,
	 {"tix show trace.json.gz --kernel gemm --limit 5",
	  "tix show trace.json.gz --kernel 'elementwise|copy' --step 2 --format json"}},
	{"export", "a slice of the trace as Chrome-trace JSON",
	 {"tix export TRACE [--step N] [--kernel REGEX] [--range T0:T1] -o OUT.json"},
	 "Writes the selected GPU work, its launch calls and the CPU events containing them as "
	 "Chrome-trace JSON that Perfetto, chrome://tracing and tix open.",
	 export_opts, CLI_V_TRACE, NULL,
	 {"tix export trace.json.gz --step 3 -o step3.json",
	  "tix export trace.json.gz --kernel gemm --range 100:250 -o gemm.json"}},
	{"diff", "compare two traces of the same workload",
	 {"tix diff BASE NEW [--by kernel|op|step|shape] [--step N] [--top N] [--sort COL] "
	  "[--timeunit ns|us|ms|s] [--format text|csv|json]"},
	 "Compares BASE and NEW: rows matched by name (steps by position), on both sides, added "
	 "or removed, sorted by the change of their time; a header gives the per-step totals.",
	 diff_opts, CLI_V_TRACE, NULL,
	 {"tix diff before.json.gz after.json.gz --top 5",
	  "tix diff before.json.gz after.json.gz --by shape --format csv"}},
	{"findings", "why a step is slow, ranked by what a fix could save",
	 {"tix findings TRACE [--step N] [--top N] [--format text|json] [--peak-bw B/S] [--peak-flops F]"},
	 "Prints where a step's GPU time goes (compute, exposed communication, memory, idle by "
	 "cause), how far each op is from the device's roofline, and the findings ranked by the "
	 "time a fix could save, each with the formula of its estimate (docs/FINDINGS.md).",
	 findings_opts, CLI_V_TRACE, NULL,
	 {"tix findings trace.json.gz", "tix findings trace.json.gz --step 3 --format json",
	  "tix findings trace.json.gz --peak-bw 3.35T --peak-flops bf16=989T"}},
	{"info", "what an index holds, and its warnings",
	 {"tix info FILE.tix|TRACE"},
	 "Prints an index's size and format, its source trace, event counts, steps and their rule, "
	 "graph replays, the trace's top-level keys and the build's warnings.",
	 info_opts, CLI_V_TRACE, NULL,
	 {"tix info trace.json.gz.tix", "tix info trace.json.gz"}},
	{"dump", "an index's sections, record by record, as text",
	 {"tix dump FILE.tix [--section S]"},
	 "Prints what FILE.tix holds: its header and section table, then each section's records, "
	 "every field by name, string ids followed by the string (docs/FORMAT.md says what each "
	 "means). A section of a later format is shown in hex; a damaged file gets one line, exit 2.",
	 dump_opts, CLI_V_FILE, NULL,
	 {"tix dump trace.json.gz.tix | less", "tix dump trace.json.gz.tix --section STEPS"}},
	{"capture", "record a CUDA program with CUPTI",
	 {"tix capture [-o OUT] [--delay S] [--duration S] [--nvtx RANGE] [--cuda-profiler-api] "
	  "[--flush-ms N] [--wait S] [--step-marker REGEX] -- CMD [ARGS...]"},
	 "Runs CMD; every CUDA process it starts writes OUT/tix.HOST.PID.T.tixj, indexed when CMD "
	 "ends. Exits with CMD's status; 2 when capture is unavailable (docs/CAPTURE.md).",
	 capture_opts, CLI_V_COMMAND, NULL,
	 {"tix capture -o run1 -- python serve.py",
	  "tix capture --nvtx 'step[DECODE*' --duration 10 -- python bench.py"}},
	{"completion", "print the bash or zsh completion script",
	 {"tix completion bash|zsh"},
	 "Prints the completion script for the shell (an install puts both in place).",
	 completion_opts, CLI_V_WORDS, "bash|zsh",
	 {"source <(tix completion bash)", "tix completion zsh > ~/.zfunc/_tix"}},
	{"help", "a command's usage, options and examples",
	 {"tix help [COMMAND]"},
	 "Prints the help of COMMAND (tui for `tix TRACE...`), or the overview; the same as "
	 "`tix COMMAND --help`. man tix has it all.",
	 help_opts, CLI_V_CMDNAME, NULL,
	 {"tix help summary", "tix help tui"}},
};

enum { NCOMMANDS = sizeof(commands) / sizeof(commands[0]) };

const struct cli_cmd *cli_commands(int *n)
{
	*n = NCOMMANDS;
	return commands;
}

const struct cli_cmd *cli_command(const char *name)
{
	for (int i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

int cli_opt_takes_value(const char *cmd, const char *opt)
{
	const struct cli_cmd *c = cli_command(cmd);
	for (const struct cli_opt *o = c ? c->opts : NULL; o && o->name; o++)
		if (!strcmp(opt, o->name) || (o->alias && !strcmp(opt, o->alias)))
			return o->arg != NULL;
	return 0;
}

enum { WIDTH = 80, OPT_COL = 30 };

/* Writes text from column col (the cursor is there), breaking at spaces
 * outside brackets before WIDTH; continued lines start at column indent. */
static void wrap(FILE *f, const char *text, int col, int indent)
{
	const char *p = text;
	int start = 1;
	while (*p) {
		const char *e = p; /* the next word: to a space outside [ ] */
		int depth = 0;
		while (*e && (depth || *e != ' ' || (e - p == 2 && !strncmp(p, "--", 2)))) {
			depth += *e == '[' ? 1 : *e == ']' && depth ? -1 : 0;
			e++; /* "-- CMD" stays together */
		}
		int len = (int)(e - p);
		if (!start && col + 1 + len > WIDTH) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (!start) {
			putc(' ', f);
			col++;
		}
		fwrite(p, 1, (size_t)len, f);
		col += len;
		start = 0;
		while (*e == ' ')
			e++;
		p = e;
	}
	putc('\n', f);
}

/* "usage: tix summary TRACE [--by ...]", continued under TRACE. */
static void usage_line(FILE *f, const char *prefix, const char *usage)
{
	const char *sp = strchr(usage, ' ');
	const char *sp2 = sp ? strchr(sp + 1, ' ') : NULL;
	/* under the word after the command's name ("tix summary TRACE") */
	int indent = (int)strlen(prefix) + 1;
	if (sp2 && sp[1] != '-')
		indent += (int)(sp2 - usage) + 1;
	else if (sp)
		indent += (int)(sp - usage) + 1;
	fprintf(f, "%s ", prefix);
	wrap(f, usage, (int)strlen(prefix) + 1, indent);
}

/* The option's left column: "-o, --output OUT.json", "--by kernel|step". */
static void opt_label(const struct cli_opt *o, char *out, size_t cap)
{
	snprintf(out, cap, "%s%s%s%s%s", o->name, o->alias ? ", " : "", o->alias ? o->alias : "",
	         o->arg ? " " : "", o->arg ? o->arg : "");
}

static void print_opts(FILE *f, const struct cli_opt *opts, int common, const char *heading)
{
	int any = 0;
	for (const struct cli_opt *o = opts; o->name; o++) {
		if (o->common != common)
			continue;
		if (!any++)
			fprintf(f, "\n%s\n", heading);
		char label[80];
		opt_label(o, label, sizeof(label));
		int n = fprintf(f, "  %s", label);
		if (n > OPT_COL - 2)
			fprintf(f, "\n%*s", OPT_COL, "");
		else
			fprintf(f, "%*s", OPT_COL - n, "");
		wrap(f, o->text, OPT_COL, OPT_COL);
	}
}

static void overview(FILE *f)
{
	for (int i = 0; i < NCOMMANDS; i++)
		for (int u = 0; u < 3 && commands[i].usage[u]; u++)
			usage_line(f, i || u ? "      " : "usage:", commands[i].usage[u]);
	fputs("\ncommands:\n", f);
	for (int i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-12s  %s\n", i ? commands[i].name : "TRACE...", commands[i].brief);
	print_opts(f, tui_opts, 1, "common options (each command's help says which apply):");
	fputs("\nexit status: 0 success, 1 usage error, 2 bad input, 3 environment (disk full,\n"
	      "permission).  `tix help COMMAND` or `tix COMMAND --help`: its options and\n"
	      "examples.  `man tix`: all of it.\n",
	      f);
}

int cli_help(FILE *f, const char *name)
{
	if (!name) {
		overview(f);
		return 0;
	}
	const struct cli_cmd *c = cli_command(name);
	if (!c)
		return -1;
	for (int u = 0; u < 3 && c->usage[u]; u++)
		usage_line(f, u ? "      " : "usage:", c->usage[u]);
	putc('\n', f);
	wrap(f, c->about, 0, 0);
	print_opts(f, c->opts, 0, "options:");
	print_opts(f, c->opts, 1, "common options:");
	fputs("\nexamples:\n", f);
	for (int e = 0; e < 4 && c->examples[e]; e++)
		fprintf(f, "  %s\n", c->examples[e]);
	return 0;
}

/* The command within two edits of word (insert, delete, change, or swap
 * two neighbours: "sumary", "shwo"), or NULL. */
const char *cli_nearest_command(const char *word)
{
	const char *best = NULL;
	int best_d = 3;
	size_t n = strlen(word);
	if (n > 32)
		return NULL;
	for (int c = 1; c < NCOMMANDS; c++) { /* 0 is the TUI: not a word */
		const char *cmd = commands[c].name;
		size_t m = strlen(cmd);
		int d[34][34];
		if (m > 32)
			continue;
		for (size_t i = 0; i <= n; i++)
			d[i][0] = (int)i;
		for (size_t j = 0; j <= m; j++)
			d[0][j] = (int)j;
		for (size_t i = 1; i <= n; i++) {
			for (size_t j = 1; j <= m; j++) {
				int cost = word[i - 1] != cmd[j - 1];
				int v = d[i - 1][j] + 1;
				if (d[i][j - 1] + 1 < v)
					v = d[i][j - 1] + 1;
				if (d[i - 1][j - 1] + cost < v)
					v = d[i - 1][j - 1] + cost;
				if (i > 1 && j > 1 && word[i - 1] == cmd[j - 2] && word[i - 2] == cmd[j - 1] &&
				    d[i - 2][j - 2] + 1 < v)
					v = d[i - 2][j - 2] + 1;
				d[i][j] = v;
			}
		}
		if (d[n][m] < best_d) {
			best_d = d[n][m];
			best = cmd;
		}
	}
	return best;
}

/* The commands as a list for messages: "index, summary, ..., help". */
static void command_list(FILE *f)
{
	for (int c = 1; c < NCOMMANDS; c++)
		fprintf(f, "%s%s", c > 1 ? ", " : "", commands[c].name);
}

void cli_unknown_command(const char *prog, const char *word)
{
	char pb[120];
	const char *near = cli_nearest_command(word);
	tix_printable(word, pb, sizeof(pb));
	if (near) {
		fprintf(stderr, "%s: unknown command '%s': did you mean '%s'?\n", prog, pb, near);
		return;
	}
	fprintf(stderr, "%s: unknown command '%s' (commands: ", prog, pb);
	command_list(stderr);
	fputs(!strcmp(prog, "tix") ? "; or a trace file, which does not exist by that name)\n" : ")\n",
	      stderr);
}

int cmd_help(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : NULL;
	if (name && (!strcmp(name, "--help") || !strcmp(name, "-h")))
		name = "help";
	if (argc > 2) {
		fprintf(stderr, "tix help: one command at a time (tix help COMMAND)\n");
		return EXIT_USAGE;
	}
	if (cli_help(stdout, name) != 0) {
		cli_unknown_command("tix help", name);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}
