/* `tix dump FILE.tix [--section S]`: what an index holds, as text
 * (index/dump.c writes it).  It reads the file named and nothing else: no
 * trace is opened and no index built, so what it prints is that file. */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

static int usage_error(const char *what, const char *word)
{
	char pb[200];
	fprintf(stderr, "tix dump: %s", what);
	if (word)
		fprintf(stderr, " '%s'", tix_printable(word, pb, sizeof pb));
	fputs(" (tix dump --help lists the options)\n", stderr);
	return EXIT_USAGE;
}

int cmd_dump(int argc, char **argv)
{
	const char *path = NULL, *section = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h"))
			return cli_help(stdout, "dump") == 0 ? EXIT_OK : EXIT_USAGE;
		if (!strcmp(a, "--section")) {
			if (i + 1 >= argc)
				return usage_error(
					"--section needs a value (a section's name or id)", NULL);
			section = argv[++i];
		} else if (!strncmp(a, "--section=", 10)) {
			section = a + 10;
		} else if (a[0] == '-' && a[1]) {
			return usage_error("unknown option", a);
		} else if (path) {
			return usage_error("unexpected argument", a);
		} else {
			path = a;
		}
	}
	if (!path)
		return usage_error("no index given: tix dump FILE.tix [--section S]", NULL);
	if (section && !*section)
		return usage_error("--section needs a value (a section's name or id)", NULL);
	struct tix_index *ix;
	struct tix_error err;
	if (tix_index_open(path, &ix, &err) != 0) {
		fprintf(stderr, "tix: %s\n", err.msg);
		return cli_exit_status(&err);
	}
	int rc = tix_index_dump(ix, section, stdout, &err);
	tix_index_close(ix);
	if (rc != 0)
		fprintf(stderr, "tix: %s\n", err.msg);
	return rc == 0 ? EXIT_OK : rc > 0 ? EXIT_USAGE : cli_exit_status(&err);
}
