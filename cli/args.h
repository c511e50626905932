/* Option parsing shared by the subcommands.  Private to cli/. */
#ifndef TIX_CLI_ARGS_H
#define TIX_CLI_ARGS_H

#include "cli/cli.h"

#include <getopt.h>

struct args {
	const char *trace;
	const char *by, *format, *kernel, *range, *out;
	const char *sort;        /* --sort COL: a column key of the view (NULL: its rank) */
	const char *timeunit;    /* --timeunit ns|us|ms|s (NULL: each value in its own unit) */
	const char *peak_bw, *peak_flops; /* --peak-bw B/s, --peak-flops F (the device's peaks) */
	long step, top, limit;
	int has_step, help;
	int exit_status;         /* after args_open() failed: what to exit with */
	struct open_opts open;
};

/* Parses argv (argv[0] is the subcommand): the options its rows in
 * cli/help.c list, and no other; prints one line and returns -1 on a usage
 * error. */
int args_parse(int argc, char **argv, struct args *a);
/* The getopt_long table of cmd's option rows (cli/help.c), so that an
 * option is declared once: each row gets the key keys gives its name, or
 * other; the other commands' options are there too, as other (a parser
 * refuses them by name).  Long spellings go in lo (ended by a zero row),
 * short ones ("-o", "-h") in shorts. */
#define ARGS_MAX_OPTS 96
struct args_key {
	const char *name; /* as the row spells it: "--by", "-o" */
	int key;          /* what getopt returns for it */
};
void args_options(const struct cli_cmd *cmd, const struct args_key *keys, size_t nkeys, int other,
                  struct option lo[ARGS_MAX_OPTS], char *shorts, size_t scap);
/* Opens a->trace; prints the error, sets a->exit_status and returns -1 on
 * failure. */
int args_open(struct args *a, struct tix_index **ix);

#endif
