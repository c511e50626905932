/*
 * The tix command line: subcommands over the index's queries.  Private to
 * cli/; the program's own door is its usage text and docs/CLI.md.
 */
#ifndef TIX_CLI_H
#define TIX_CLI_H

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
	/* --graph-capture: the capture traces of a CUDA-graph replay trace
	 * (cli_add_graph_capture expands folders), and how the index records
	 * them ("; "-joined real paths), which is part of what makes an index
	 * current.  Owned; cli_open_opts_done frees them. */
	char **captures;
	int ncaptures;
	char *capture_sources;
};

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

/* Formatting shared by the reports. */
void json_str(FILE *f, const char *s, size_t n);      /* a JSON string literal */
void csv_str(FILE *f, const char *s);

/* Subcommands: argc/argv start at the subcommand's name. */
int cmd_summary(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_index(int argc, char **argv);
int cmd_capture(int argc, char **argv, const char *exe); /* cli/capture.c */

#endif /* TIX_CLI_H */
