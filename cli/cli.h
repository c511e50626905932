/*
 * The tix command line: subcommands over the index's queries.  Private to
 * cli/; the program's own door is its usage text and docs/CLI.md.
 */
#ifndef TIX_CLI_H
#define TIX_CLI_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "index/index.h"

/* Exit statuses (docs/CLI.md): 1 the command line is wrong, 2 a file it
 * names is missing, not a trace or damaged, 3 the system refused (disk
 * full, permission, memory, no place left for the index). */
enum { EXIT_OK = 0, EXIT_USAGE = 1, EXIT_BAD_INPUT = 2, EXIT_ENV = 3 };

/* The exit status for a failure of class err->cls. */
int cli_exit_status(const struct tix_error *err);

struct open_opts {
	const char *step_marker; /* NULL: defaults */
	int no_cache;            /* build into a temporary index, never reuse one */
	int progress;            /* draw a progress bar on stderr while building */
	const char *out;         /* explicit index path (tix index -o) or NULL */
	int force;               /* rebuild even when a valid index exists */
	int check_all;           /* check every block of the index at open, not when
	                          * first read (tix info); a cached one that fails is rebuilt */
	char *opened;            /* if not NULL: receives the path of the index used */
	size_t opened_cap;
	int *where;              /* if not NULL: receives where that index is (enum index_place) */
	/* --graph-capture: the capture traces of a CUDA-graph replay trace
	 * (cli_add_graph_capture expands folders), and how the index records
	 * them ("; "-joined real paths), which is part of what makes an index
	 * current.  Owned; cli_open_opts_done frees them. */
	char **captures;
	int ncaptures;
	char *capture_sources;
	int as_capture;          /* this trace is opened as another's --graph-capture */
	int strict;              /* --strict: a malformed event is an error */
	uint64_t max_temp;       /* --max-temp: the disk a build may use (0: the default) */
};

/* Where the index of a trace lives (docs/CLI.md, "Where the index lives"). */
enum index_place {
	PLACE_GIVEN,     /* a .tix named on the command line, or tix index -o */
	PLACE_BESIDE,    /* REAL.tix beside the trace's real file */
	PLACE_CACHE,     /* $XDG_CACHE_HOME/tix (~/.cache/tix) */
	PLACE_PRIVATE,   /* --no-cache: built for this command, deleted */
};
const char *cli_place_label(enum index_place p);

/* ---- where an index lives, and whom to trust (cli/cache.c) ---- */
/* The cache folder: $XDG_CACHE_HOME/tix ($XDG_CACHE_HOME absolute), else
 * $HOME/.cache/tix, else $TMPDIR/tix-UID (/tmp/tix-UID), made 0700 when
 * missing.  0, or -1: not usable, why[] saying why when it exists but is not
 * safe (another user's, writable by others), empty when it cannot be made. */
int cli_cache_dir(char *out, size_t cap, char *why, size_t whycap);
/* Where the index of a trace may live, in the order tried: beside the real
 * file (a symlink and its target share it) when that folder is writable,
 * the name fits and nothing but an index is in the way, or when an index is
 * there already in a folder the user cannot write (*beside_ro: to read, if
 * cli_index_trust allows, never to build); then the cache, keyed by the
 * real path (*cache_at: its number, -1 when the cache is not usable, why[]
 * as for cli_cache_dir).  Returns how many places (0-2). */
int cli_index_places(const char *trace, char places[][PATH_MAX], int *cache_at, int *beside_ro, char *why,
                     size_t whycap);
enum index_trust {
	TRUST_OK,      /* the user's or root's, nobody else can write it */
	TRUST_FOREIGN, /* another user's: never used, never replaced */
	TRUST_LOOSE,   /* the user's, but others can write it: rebuilt */
};
enum index_trust cli_index_trust(const struct tix_index *ix);
/* A folder made for one command (mkdtemp in $TMPDIR or /tmp, 0700). */
int cli_private_dir(char *out, size_t cap);

/* Adds the capture traces at path to o: the file, or each .json / .json.gz
 * in the folder, in name order.  0, or -1 with err set. */
int cli_add_graph_capture(struct open_opts *o, const char *path, struct tix_error *err);
void cli_open_opts_done(struct open_opts *o);

/* Opens the index of a trace (.json, .json.gz, a capture journal, or a
 * .tix), building or reusing it as docs/CLI.md says: beside the real file,
 * else (folder not writable, name too long, something else in the way, or
 * a build there that the system refused) in the cache.  On success *ix is
 * open and *built says whether it was (re)built now.  On failure returns -1
 * with err set; the exit status is then cli_exit_status(err). */
int cli_open_trace(const char *path, const struct open_opts *o, struct tix_index **ix,
                   int *built, struct tix_error *err);
/* What cli_open_trace checks first: path is there and a regular file.
 * 0, or -1 with err set (exit status cli_exit_status(err)). */
int cli_check_trace(const char *path, struct tix_error *err);

/* tix DIR, tix summary DIR --by rank: the traces in the folder (the ranks
 * of one run, say), in name order: .json, .json.gz and capture journals,
 * and a .tix only where its trace is not there too; "DIR/NAME" with one
 * slash between them.  Appends to paths[*n .. max-1], each malloc'd (the
 * caller frees them).  The number added, or -1 when dir cannot be read. */
int cli_folder_traces(const char *dir, char **paths, int *n, int max);

/* A count or an index typed on the command line: decimal digits only, at
 * most max (no sign, no spaces, no 0x, no exponent).  0 with *out set, or
 * -1 (too large, or not a number): the caller names the option. */
int cli_parse_count(const char *s, unsigned long long max, long *out);
/* A size typed on the command line: digits, then k, M, G, T (10^3 ..) or
 * KiB, MiB, GiB, TiB (2^10 ..), or none for bytes; 0 is refused.  0, or -1. */
int cli_parse_size(const char *s, uint64_t *out);
/* The largest step number: step numbers are uint32 and TIX_NONE (2^32 - 1)
 * means "every step". */
#define CLI_STEP_MAX (UINT32_MAX - 1ull)

/* Formatting shared by the reports. */
void json_str(FILE *f, const char *s, size_t n);      /* a JSON string literal */
void csv_str(FILE *f, const char *s);

/* ---- the command line as users read it (cli/help.c) ----
 * One table: `tix help`, `tix COMMAND --help` and the completion scripts
 * (cli/completion.c) are printed from it, and the tests hold docs/CLI.md
 * and docs/tix.1 to it. */

/* What completes an option's value, or a command's operands. */
enum cli_value {
	CLI_V_NONE,     /* something the user types (a number, a regex) */
	CLI_V_WORDS,    /* one of the words of arg, split at '|' */
	CLI_V_TRACE,    /* a trace: *.json, *.json.gz, *.tix, *.tixj, or a folder */
	CLI_V_FILE,     /* any file */
	CLI_V_DIR,      /* a folder */
	CLI_V_COMMAND,  /* a program to run, then its arguments (capture) */
	CLI_V_CMDNAME,  /* one of tix's commands (tix help) */
	CLI_V_SORT,     /* a column key of the view that --by chose (summary --sort) */
};

struct cli_opt {
	const char *name;      /* "--by", "-o" */
	const char *alias;     /* "--output", "-h", or NULL */
	const char *arg;       /* "kernel|step|op", "N"; NULL: the option takes no value */
	enum cli_value value;  /* what completes the value */
	int common;            /* one of the options the commands share */
	const char *text;      /* its explanation: one line */
};

struct cli_cmd {
	const char *name;           /* "summary"; "tui" for `tix TRACE...` */
	const char *brief;          /* the overview's line */
	const char *usage[3];       /* the usage lines, NULL after the last */
	const char *about;          /* a sentence or two */
	const struct cli_opt *opts; /* ends at name NULL */
	enum cli_value operand;     /* what the arguments that are not options are */
	const char *words;          /* operand CLI_V_WORDS: them, '|'-separated */
	const char *examples[4];    /* NULL after the last */
};

/* The table (constant, static storage): n commands, the TUI first. */
const struct cli_cmd *cli_commands(int *n);
/* The command called name, or NULL. */
const struct cli_cmd *cli_command(const char *name);
/* Whether option opt ("--step") takes a value in command cmd, as its help's
 * row says: for the commands that pick their traces out of argv (diff,
 * findings) before args_parse, whose table the same rows build. */
int cli_opt_takes_value(const char *cmd, const char *opt);
/* Writes the help of command name to f (NULL: the overview).  0, or -1
 * when no command has that name (nothing written). */
int cli_help(FILE *f, const char *name);
/* The command within two edits of word (a typo), or NULL. */
const char *cli_nearest_command(const char *word);
/* One line on stderr: "PROG: unknown command 'WORD'", with "did you mean"
 * when one is near, else the list of commands. */
void cli_unknown_command(const char *prog, const char *word);

/* Subcommands: argc/argv start at the subcommand's name. */
int cmd_summary(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_findings(int argc, char **argv);                    /* cli/findings.c */
int cmd_index(int argc, char **argv);
int cmd_capture(int argc, char **argv, const char *exe); /* cli/capture.c */
int cmd_dump(int argc, char **argv);                      /* cli/dump.c */
/* summary --by rank (cli/ranks.c): several traces of one run.  main()
 * routes `summary` there when cli_wants_ranks(): argv has --by rank. */
int cli_wants_ranks(int argc, char **argv);
int cmd_summary_ranks(int argc, char **argv);
int cmd_help(int argc, char **argv);                      /* cli/help.c */
int cmd_completion(int argc, char **argv);                /* cli/completion.c */

#endif /* TIX_CLI_H */
