/* Option parsing shared by the subcommands.  Private to cli/. */
#ifndef TIX_CLI_ARGS_H
#define TIX_CLI_ARGS_H

#include "cli/cli.h"

enum {
	ARG_BY = 1 << 0, ARG_STEP = 1 << 1, ARG_TOP = 1 << 2, ARG_FORMAT = 1 << 3,
	ARG_KERNEL = 1 << 4, ARG_LIMIT = 1 << 5, ARG_RANGE = 1 << 6, ARG_OUT = 1 << 7,
	ARG_CSV = 1 << 8, /* --format csv allowed */
	ARG_SORT = 1 << 9, ARG_TIMEUNIT = 1 << 10,
	ARG_PEAK = 1 << 11, /* --peak-bw, --peak-flops */
};

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

/* Parses argv (argv[0] is the subcommand) allowing the ARG_ options given;
 * prints one line and returns -1 on a usage error. */
int args_parse(int argc, char **argv, struct args *a, unsigned allowed);
/* Opens a->trace; prints the error, sets a->exit_status and returns -1 on
 * failure. */
int args_open(struct args *a, struct tix_index **ix);

#endif
