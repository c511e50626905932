/*
 * tests/capture/launcher_driver.c: runs tixcap_main as `tix capture` would,
 * so the launcher is tested without the rest of the CLI.  Owner:
 * cupti_capture.  Usage: launcher_driver capture [OPTIONS] -- CMD...
 */
#include "cupti_capture/capture.h"

int main(int argc, char **argv)
{
	return tixcap_main(argc - 1, argv + 1, argv[0]);
}
