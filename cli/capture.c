/* `tix capture`: the launcher is cupti_capture's; the CLI lends it the door
 * every trace goes through (cli_open_trace), so a capture's journal is
 * indexed exactly as `tix JOURNAL` would index it, and the index lands where
 * `tix JOURNAL` looks for it (JOURNAL.tix beside it, or the cache). */
#include "cli/cli.h"

#include <stdio.h>

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

int cmd_capture(int argc, char **argv, const char *exe)
{
	return tixcap_main(argc, argv, exe, ingest_journal);
}
