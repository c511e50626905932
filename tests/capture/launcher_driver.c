/*
 * tests/capture/launcher_driver.c: runs tixcap_main as `tix capture` would,
 * but with no ingest door, so the launcher's own part (options,
 * environment, status, signals, waiting) is tested without the rest of the
 * CLI; test_launcher.sh runs the real `tix capture` for the indexing.
 * Owner: cupti_capture.  Usage: launcher_driver capture [OPTIONS] -- CMD...
 */
#include "cupti_capture/capture.h"

int main(int argc, char **argv)
{
	return tixcap_main(argc - 1, argv + 1, argv[0], NULL);
}
