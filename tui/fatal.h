/*
 * The TUI's fatal-signal path.  Private to tui/.
 *
 * While the screen is up, a crash (SIGSEGV, SIGBUS, SIGABRT, SIGFPE,
 * SIGILL) first gives the terminal back (endwin, and the terminal modes
 * saved before curses started), then dies of the same signal, so the shell
 * is never left in raw mode.  A SIGBUS whose address lies in the mapping of
 * one of the open indexes is not tix's bug but the file changing under it
 * (another program truncated or rewrote it, or a file system without
 * fallocate ran out of room): one line naming the file, exit status 2.  So
 * is damage that a query meets in an index (its damage handler, index.h).
 * When two threads fault at once (the index's background checker reads it
 * too), the first one in ends the process and the other waits for it.
 *
 *   fatal_begin(traces, n);   // before newterm(); remembers the terminal modes
 *   ...the event loop...
 *   fatal_end();              // after endwin(); the previous handlers again
 */
#ifndef TIX_TUI_FATAL_H
#define TIX_TUI_FATAL_H

#include "tui/tui.h"

/* Installs the handlers.  The traces stay the caller's and must outlive
 * fatal_end().  Returns 0, or -1 when out of memory (then nothing is
 * installed and the TUI runs without it). */
int fatal_begin(const struct tui_trace *traces, int ntraces);
void fatal_end(void);

#endif /* TIX_TUI_FATAL_H */
