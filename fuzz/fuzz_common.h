/*
 * What the tix fuzz targets share: a private scratch folder, writing the
 * input to a file there, running every reader query over an opened index,
 * and the invariants every target checks after each input (no file left
 * behind, no descriptor leaked, error messages of one line naming the file).
 * A broken invariant calls abort(), which libFuzzer reports as a crash.
 */
#ifndef TIX_FUZZ_COMMON_H
#define TIX_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "index/index.h"

/* The scratch folder of this process (created once, under $TMPDIR or
 * /dev/shm); the same pointer every call. */
const char *fuzz_dir(void);

/* Writes data to fuzz_dir()/name and returns the path (static buffer,
 * overwritten by the next call). Aborts when the write fails. */
const char *fuzz_write(const char *name, const uint8_t *data, size_t size);

/* Runs every query of index/index.h over everything ix returns, then
 * tix_index_check_all, and when that finds nothing tix_export_json with
 * several selections into fuzz_dir() (the exported file is removed again).
 * Reads every returned string to its NUL, so ASan sees any reference the
 * checks let through.  Returns 0, or 1 when a query or the whole check
 * met damage (its message checked: one line naming the file). */
int fuzz_exercise(struct tix_index *ix);

/* Sets the header's file_size to n, recomputes the block sums and section
 * checksums (of the sections whose offset and size lie inside the buffer)
 * and the header checksum, so that mutated .tix bytes get past the
 * checksums to the structural checks.  Does nothing when the buffer is too
 * short for its header and section table. */
void fuzz_fix_checksums(uint8_t *b, size_t n);

/* abort()s unless msg is one non-empty line that names path. */
void fuzz_check_message(const char *what, const char *msg, const char *path);

/* Notes the open file descriptors, at the start of each input. */
void fuzz_begin(void);

/* abort()s when fuzz_dir() holds anything but the given names (NULL
 * terminated), or when a descriptor opened since fuzz_begin() still points
 * into fuzz_dir(). */
void fuzz_check_clean(const char *const *keep);

#endif /* TIX_FUZZ_COMMON_H */
