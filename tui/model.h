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
char *fmt_dim3(const int32_t v[3], char *out, size_t cap);
/* [557496,1,1] (tables) */
char *fmt_dim3_compact(const int32_t v[3], char *out, size_t cap);

/* Size in bytes of one element of a profiler dtype name ("c10::BFloat16",
 * "float", "c10::Float8_e4m3fn", "long int"); 0 when unknown or not a
 * tensor ("Scalar", ""). */
int dtype_size(const char *name, size_t len);

#define SHAPE_MAX_TENSORS 16
#define SHAPE_MAX_RANK 8

/* One op's inputs, parsed from its Input Dims and Input type texts. */
struct shape_in {
	int n;                               /* inputs seen (up to SHAPE_MAX_TENSORS) */
	int rank[SHAPE_MAX_TENSORS];         /* -1: not a plain list of ints */
	int64_t dims[SHAPE_MAX_TENSORS][SHAPE_MAX_RANK];
	int elem[SHAPE_MAX_TENSORS];         /* dtype size, 0 unknown */
};

/* Parses dims ("[[495552, 1, 576], [495552, 1, 576], []]") and types
 * ("[\"c10::BFloat16\", \"c10::Float8_e4m3fn\", \"Scalar\"]").  Returns 0,
 * or -1 when dims is not a JSON list. */
int shape_parse(const char *dims, const char *types, struct shape_in *out);

/* Bytes an op's tensor inputs occupy: the sum over inputs with a shape and
 * a known dtype of elements x element size.  For a copy this is what is
 * read plus what is written.  Returns 0 when nothing could be counted. */
struct traffic {
	double bytes;
	int64_t elements;      /* elements per tensor when all counted tensors agree, else -1 */
	int tensors;           /* tensors counted */
	int elem_sizes[SHAPE_MAX_TENSORS];
};
int traffic_from_shape(const struct shape_in *s, struct traffic *out);

/* "285,437,952 elements x (2 + 1) bytes = 856.3 MB in 828.1 us = 1.03 TB/s";
 * dur_ns <= 0 leaves out the time and rate.  Returns out. */
char *fmt_traffic(const struct traffic *t, int64_t dur_ns, char *out, size_t cap);

/* Escapes s for a POSIX ERE that matches it literally. */
char *regex_escape(const char *s, char *out, size_t cap);

#endif /* TIX_TUI_MODEL_H */
