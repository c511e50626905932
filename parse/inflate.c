/* Gzip streams, with ISA-L or zlib (see inflate.h). */
#include "parse/inflate.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#ifdef TIX_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

/* Both engines count input in 32 bits: the mapped file is handed over in
 * pieces of at most this. */
#define FEED_MAX 0xffffffffu
/* The most text one call of ISA-L writes.  It adds a call's output to the
 * CRC after inflating it; in pieces of 256 KB that is still in the core's
 * cache.  On the 479 MB story trace ISA-L took 154 ms in 1 MB calls and
 * 138 ms in 256 KB ones, min of 8 (docs/PERFORMANCE.md, round 12).  zlib
 * gets the whole buffer: it copies the last 32 KB of each call's output
 * into its window, and 256 KB calls made its index 3% slower. */
#define ISAL_CALL_OUT_MAX (256u << 10)

struct gz_stream {
	const unsigned char *in;
	size_t size, fed;       /* in[0, fed) has been handed to the engine */
	int isal;
	const char *msg;
	z_stream z;
#ifdef TIX_HAVE_ISAL
	struct inflate_state *s;
#endif
};

static uint32_t next_piece(struct gz_stream *g)
{
	size_t n = g->size - g->fed > FEED_MAX ? FEED_MAX : g->size - g->fed;
	g->fed += n;
	return (uint32_t)n;
}

struct gz_stream *gz_open(const unsigned char *in, size_t size, int zlib)
{
	struct gz_stream *g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->in = in;
	g->size = size;
	(void)zlib; /* without ISA-L, zlib is all there is */
#ifdef TIX_HAVE_ISAL
	if (!zlib) {
		g->s = malloc(sizeof(*g->s));
		if (!g->s) {
			free(g);
			return NULL;
		}
		isal_inflate_init(g->s);
		g->s->crc_flag = ISAL_GZIP;
		g->s->next_in = (uint8_t *)in;
		g->s->avail_in = next_piece(g);
		g->isal = 1;
		return g;
	}
#endif
	if (inflateInit2(&g->z, 16 + MAX_WBITS) != Z_OK) {
		free(g);
		return NULL;
	}
	g->z.next_in = (unsigned char *)in;
	g->z.avail_in = next_piece(g);
	return g;
}

void gz_close(struct gz_stream *g)
{
	if (!g)
		return;
#ifdef TIX_HAVE_ISAL
	if (g->isal)
		free(g->s);
	else
#endif
		inflateEnd(&g->z);
	free(g);
}

static enum gz_status read_zlib(struct gz_stream *g, char *out, size_t cap, size_t *got)
{
	z_stream *z = &g->z;
	size_t done = 0;
	while (done < cap) {
		size_t room = cap - done > FEED_MAX ? FEED_MAX : cap - done;
		z->next_out = (unsigned char *)out + done;
		z->avail_out = (uInt)room;
		int zr = inflate(z, Z_NO_FLUSH);
		size_t n = room - z->avail_out;
		done += n;
		if (z->avail_in == 0 && g->fed < g->size)
			z->avail_in = next_piece(g);
		if (zr == Z_STREAM_END) {
			if (z->avail_in == 0)
				break;
			/* another member follows */
			if (inflateReset(z) != Z_OK) {
				g->msg = "cannot restart for the next member";
				*got = done;
				return GZ_BAD;
			}
			continue;
		}
		if (zr == Z_DATA_ERROR || zr == Z_MEM_ERROR || zr == Z_NEED_DICT || zr == Z_STREAM_ERROR) {
			g->msg = z->msg ? z->msg : "bad data";
			*got = done;
			return GZ_BAD;
		}
		if (zr == Z_BUF_ERROR && n == 0 && z->avail_in == 0) {
			*got = done;
			return GZ_CUT;
		}
	}
	*got = done;
	return done < cap ? GZ_END : GZ_OK;
}

#ifdef TIX_HAVE_ISAL
static const char *isal_msg(int rc)
{
	switch (rc) {
	case ISAL_INVALID_BLOCK: return "invalid block";
	case ISAL_INVALID_SYMBOL: return "invalid code";
	case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
	case ISAL_INVALID_WRAPPER: return "incorrect header check";
	case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
	case ISAL_INCORRECT_CHECKSUM: return "incorrect data check";
	default: return "bad data";
	}
}

static enum gz_status read_isal(struct gz_stream *g, char *out, size_t cap, size_t *got)
{
	struct inflate_state *s = g->s;
	size_t done = 0;
	while (done < cap) {
		size_t room = cap - done > ISAL_CALL_OUT_MAX ? ISAL_CALL_OUT_MAX : cap - done;
		s->next_out = (uint8_t *)out + done;
		s->avail_out = (uint32_t)room;
		int rc = isal_inflate(s);
		size_t n = room - s->avail_out;
		done += n;
		if (rc < 0) {
			g->msg = isal_msg(rc);
			*got = done;
			return GZ_BAD;
		}
		if (s->avail_in == 0 && g->fed < g->size)
			s->avail_in = next_piece(g);
		if (s->block_state == ISAL_BLOCK_FINISH) {
			if (s->avail_in == 0)
				break;
			/* another member follows: a reset forgets the input */
			uint8_t *next = s->next_in;
			uint32_t avail = s->avail_in;
			isal_inflate_reset(s);
			s->crc_flag = ISAL_GZIP;
			s->next_in = next;
			s->avail_in = avail;
			continue;
		}
		if (n == 0 && s->avail_in == 0) {
			*got = done;
			return GZ_CUT;
		}
	}
	*got = done;
	return done < cap ? GZ_END : GZ_OK;
}
#endif

enum gz_status gz_read(struct gz_stream *g, char *out, size_t cap, size_t *got)
{
#ifdef TIX_HAVE_ISAL
	if (g->isal)
		return read_isal(g, out, cap, got);
#endif
	return read_zlib(g, out, cap, got);
}

uint64_t gz_consumed(const struct gz_stream *g)
{
#ifdef TIX_HAVE_ISAL
	if (g->isal) {
		/* ISA-L reads ahead into a bit buffer */
		uint64_t at = (uint64_t)(g->s->next_in - g->in), ahead = (uint64_t)g->s->read_in_length / 8;
		return at > ahead ? at - ahead : 0;
	}
#endif
	return (uint64_t)(g->z.next_in - g->in);
}

const char *gz_error(const struct gz_stream *g)
{
	return g->msg ? g->msg : "bad data";
}

const char *gz_engine(const struct gz_stream *g)
{
	return g->isal ? "isa-l" : "zlib";
}
