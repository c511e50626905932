/*
 * cupti_capture/tixj_dump.c: `tixj-dump [--rows N] JOURNAL...`: what a
 * capture journal holds, as text (journal_dump.c).  Owner: cupti_capture.
 * Exit status: 0, 1 on a usage error, 2 when a journal is unreadable or
 * damaged (its whole prefix is still printed).
 */
#include "cupti_capture/capture.h"

#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	unsigned rows = 3;
	int i = 1, rc = 0;
	if (i + 1 < argc && !strcmp(argv[i], "--rows")) {
		rows = (unsigned)strtoul(argv[i + 1], NULL, 10);
		i += 2;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: tixj-dump [--rows N] JOURNAL.tixj...\n");
		return 1;
	}
	for (; i < argc; i++) {
		struct tix_error err = {0};
		int r = tixcap_journal_dump(argv[i], stdout, rows, &err);
		if (r < 0)
			fprintf(stderr, "tixj-dump: %s\n", err.msg);
		if (r != 0)
			rc = 2;
	}
	return rc;
}
