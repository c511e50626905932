/*
 * tui: the ncurses explorer over one or more open .tix indexes.  Reads only
 * index/ queries, never JSON.  This header is the module's only door.
 */
#ifndef TIX_TUI_H
#define TIX_TUI_H

#include <stdio.h>

struct tix_index;

struct tui_trace {
	const char *path;        /* what the user named (shown in the breadcrumb) */
	struct tix_index *ix;    /* open index; the caller keeps ownership */
};

/* How the TUI starts. */
struct tui_opts {
	int compare;             /* tix --diff BASE NEW: on the compare view of the first two */
	int timeunit;            /* --timeunit: index/view's enum tix_timeunit (0: each its own) */
};

/* Runs the TUI over ntraces traces (the ranks of one run, say) until the user
 * quits; with o->compare, it opens on the compare view of the first trace
 * against the second.  Returns the process exit status: 0 after a normal
 * quit; 1 with one line on stderr when stdin/stdout is not a terminal
 * (pointing to `tix summary`).  Restores the terminal on every path out. */
int tui_run(const struct tui_trace *traces, int ntraces, const struct tui_opts *o);

/* Writes the keymap as Markdown table rows, one per request:
 *   | `j` `Down` | move down one row (timeline: next lane) |
 * for `tix --help-keys`; docs/TUI.md must list every row (tests/tui checks). */
void tui_print_keys(FILE *out);

#endif /* TIX_TUI_H */
