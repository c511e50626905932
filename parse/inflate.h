/*
 * A gzip stream inflated piece by piece into the caller's buffer, with
 * Intel ISA-L when tix was built with it (about 3x zlib's speed here: zlib
 * spends a quarter of its time on the CRC) and zlib otherwise.  Members
 * written one after another (`cat a.gz b.gz`) are read as one stream by
 * both.  Private to parse/.
 */
#ifndef TIX_PARSE_INFLATE_H
#define TIX_PARSE_INFLATE_H

#include <stddef.h>
#include <stdint.h>

struct gz_stream;

/* A stream over the compressed bytes in[0, size), which stay mapped.
 * zlib non-zero chooses zlib in a build with ISA-L (tix_parse_opts's
 * inflate_zlib: the tests read the same files both ways).  NULL when out
 * of memory. */
struct gz_stream *gz_open(const unsigned char *in, size_t size, int zlib);
void gz_close(struct gz_stream *g);

enum gz_status { GZ_OK, GZ_END, GZ_CUT, GZ_BAD };

/* Inflates up to cap bytes into out and sets *got.  GZ_OK: more may
 * follow; GZ_END: the last member ended with the input; GZ_CUT: the input
 * ended inside a member (a stream cut short; what came out is valid);
 * GZ_BAD: corrupt data (gz_error() says what).  A call may return GZ_OK
 * with *got == 0 only when cap is 0. */
enum gz_status gz_read(struct gz_stream *g, char *out, size_t cap, size_t *got);
/* Compressed bytes taken so far. */
uint64_t gz_consumed(const struct gz_stream *g);
const char *gz_error(const struct gz_stream *g);
/* "isa-l" or "zlib". */
const char *gz_engine(const struct gz_stream *g);

#endif /* TIX_PARSE_INFLATE_H */
