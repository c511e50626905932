/* Prints the keymap as docs/TUI.md lists it (tui_print_keys), for the docs
 * test; `tix --help-keys` prints the same when the CLI offers it. */
#include <stdio.h>

#include "tui/tui.h"

int main(void)
{
	tui_print_keys(stdout);
	return 0;
}
