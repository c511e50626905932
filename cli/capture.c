/* `tix capture`: the launcher is cupti_capture's; the CLI lends it the door
 * every trace goes through (cli_open_trace), so a capture's journal is
 * indexed exactly as `tix JOURNAL` would index it, and the index lands where
 * `tix JOURNAL` looks for it (JOURNAL.tix beside it, or the cache). */
#include "cli/cli.h"

#include <stdio.h>
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

/* 1 when --help (or -h) is one of capture's own options: before "--" and
 * before CMD, the first word that is neither an option nor an option's
 * value (read from the same table as the help). */
static int wants_help(int argc, char **argv)
{
	const struct cli_cmd *c = cli_command("capture");
	for (int i = 1; i < argc && strcmp(argv[i], "--") && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return 1;
		for (const struct cli_opt *o = c->opts; o->name; o++)
			if (o->arg && (!strcmp(argv[i], o->name) || (o->alias && !strcmp(argv[i], o->alias))))
				i++; /* its value */
	}
	return 0;
}

int cmd_capture(int argc, char **argv, const char *exe)
{
	if (wants_help(argc, argv))
		return cli_help(stdout, "capture");
	return tixcap_main(argc, argv, exe, ingest_journal);
}
