/*
 * The clipboard's text: what y and Y copy and the OSC 52 sequence that
 * carries it (copy.c uses them).  No curses and nothing but index/text.c
 * beneath, so tests/tui/test_model.c and the fuzzer fuzz_text call them
 * directly.  Private to tui/.
 */
#ifndef TIX_TUI_CLIP_H
#define TIX_TUI_CLIP_H

#include <stddef.h>

/* The OSC 52 sequence that asks the terminal to put s on the clipboard
 * (base64 of s inside ESC ] 52 ; c ; ... BEL).  NULL when cap is too small. */
char *osc52(const char *s, char *out, size_t cap);
/* What y and Y copy: appends cell to *text (a malloc'd string, NULL at
 * first), after a tab when *text holds a cell already.  The cell is made
 * safe as text output makes it (tix_printable: controls, C1, the bidi
 * overrides and bytes that are not UTF-8 as \xNN), so the tabs between
 * cells are the only control bytes the clipboard gets.  0, or -1 when out
 * of memory (*text as it was). */
int copy_text_add(char **text, const char *cell);
/* Characters (UTF-8 code points) in s: what "copied N chars" counts. */
size_t text_chars(const char *s);


#endif /* TIX_TUI_CLIP_H */
