/*
 * The TUI's model helpers: number formatting, shapes and dtypes, bytes moved
 * and bandwidth.  No curses here, so tests/tui/test_model.c calls them
 * directly.  Every function writes at most cap bytes (NUL included) and
 * returns out.
 */
#ifndef TIX_TUI_MODEL_H
#define TIX_TUI_MODEL_H

#include <stddef.h>
#include <stdint.h>

/* 950 ns, 828.1 us, 64.60 ms, 1.234 s; "-" for negative values. */
char *fmt_dur(int64_t ns, char *out, size_t cap);
/* 285,437,952 */
char *fmt_count(uint64_t n, char *out, size_t cap);
/* 856.3 MB, 4.0 kB, 12 B (decimal units, as bandwidths are quoted). */
char *fmt_bytes(double bytes, char *out, size_t cap);
/* 1.03 TB/s */
char *fmt_rate(double bytes_per_s, char *out, size_t cap);
/* "69.4" (percent with one decimal); "-" when whole is 0. */
char *fmt_pct(int64_t part, int64_t whole, char *out, size_t cap);
/* [557496, 1, 1] or "-" when all zero. */
/* An id that may be unknown (-1): "-" then. */
char *fmt_id(int32_t v, char *out, size_t cap);
char *fmt_dim3(const int32_t v[3], char *out, size_t cap);
/* [557496,1,1] (tables) */
char *fmt_dim3_compact(const int32_t v[3], char *out, size_t cap);

/* Escapes s for a POSIX ERE that matches it literally. */
char *regex_escape(const char *s, char *out, size_t cap);

#endif /* TIX_TUI_MODEL_H */
