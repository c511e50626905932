/*
 * cupti_capture/journal.c: journal chunks, CRC-32C and the journal writer.
 * Owner: cupti_capture.  Layout: see journal.h.  The writer runs on the
 * injection library's writer thread only, so it needs no locks; it must not
 * depend on CUPTI so that tests and the reader can share it.
 */
#include "cupti_capture/journal.h"
#include "index/grow.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Static_assert(sizeof(struct tixj_chunk_hdr) == TIXJ_CHUNK_HDR, "chunk header");
_Static_assert(sizeof(struct tixj_header) == 112, "header");
_Static_assert(sizeof(struct tixj_kernel) == 88, "kernel row");
_Static_assert(sizeof(struct tixj_copy) == 64, "copy row");
_Static_assert(sizeof(struct tixj_api) == 40, "api row");
_Static_assert(sizeof(struct tixj_marker) == 32, "marker row");
_Static_assert(sizeof(struct tixj_thread) == 8, "thread row");
_Static_assert(sizeof(struct tixj_device) == 56, "device row");
_Static_assert(sizeof(struct tixj_graph_node) == 56, "graph node row");
_Static_assert(sizeof(struct tixj_clock) == 24, "clock row");
_Static_assert(sizeof(struct tixj_drops) == 32, "drops row");
_Static_assert(sizeof(struct tixj_window) == 16, "window row");
_Static_assert(sizeof(struct tixj_graph_event) == 32, "graph event row");
_Static_assert(sizeof(struct tixj_buffer) == 56, "buffer row");

const uint32_t tixj_row_size[TIXJ_TYPE_COUNT] = {
	[TIXJ_KERNELS] = sizeof(struct tixj_kernel),
	[TIXJ_COPIES] = sizeof(struct tixj_copy),
	[TIXJ_APIS] = sizeof(struct tixj_api),
	[TIXJ_MARKERS] = sizeof(struct tixj_marker),
	[TIXJ_THREADS] = sizeof(struct tixj_thread),
	[TIXJ_DEVICES] = sizeof(struct tixj_device),
	[TIXJ_GRAPH_NODES] = sizeof(struct tixj_graph_node),
	[TIXJ_CLOCKS] = sizeof(struct tixj_clock),
	[TIXJ_DROPS] = sizeof(struct tixj_drops),
	[TIXJ_WINDOWS] = sizeof(struct tixj_window),
	[TIXJ_END] = sizeof(struct tixj_drops),
	[TIXJ_GRAPH_EVENTS] = sizeof(struct tixj_graph_event),
	[TIXJ_BUFFERS] = sizeof(struct tixj_buffer),
};

/* ---- CRC-32C: reflected polynomial 0x82F63B78, slicing by 8 ---- */

static uint32_t crc_tab[8][256];

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
		crc_tab[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_tab[t][i] = (crc_tab[t - 1][i] >> 8) ^ crc_tab[0][crc_tab[t - 1][i] & 0xff];
}

uint32_t tixj_crc32c(uint32_t crc, const void *data, size_t len)
{
	/* The tables are built once, by whichever thread comes first; the
	 * others wait for it.  (A flag stored with release but read plainly let
	 * a thread see it set before the tables it guards, and two threads
	 * could write the tables at once.) */
	static pthread_once_t built = PTHREAD_ONCE_INIT;
	pthread_once(&built, crc_init);
	const uint8_t *p = data;
	crc = ~crc;
	while (len >= 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		v ^= crc;
		crc = crc_tab[7][v & 0xff] ^ crc_tab[6][(v >> 8) & 0xff] ^
		      crc_tab[5][(v >> 16) & 0xff] ^ crc_tab[4][(v >> 24) & 0xff] ^
		      crc_tab[3][(v >> 32) & 0xff] ^ crc_tab[2][(v >> 40) & 0xff] ^
		      crc_tab[1][(v >> 48) & 0xff] ^ crc_tab[0][v >> 56];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ crc_tab[0][(crc ^ *p++) & 0xff];
	return ~crc;
}

void tixj_chunk_header(struct tixj_chunk_hdr *h, enum tixj_type type, uint32_t seq,
                       const void *payload, uint32_t len, int64_t t_min, int64_t t_max)
{
	memset(h, 0, sizeof *h);
	h->magic = TIXJ_MAGIC;
	h->type = (uint16_t)type;
	h->version = TIXJ_VERSION;
	h->payload_len = len;
	h->seq = seq;
	h->t_min = t_min;
	h->t_max = t_max;
	h->payload_crc = tixj_crc32c(0, payload, len);
	h->header_crc = tixj_crc32c(0, h, offsetof(struct tixj_chunk_hdr, header_crc));
}

int tixj_chunk_check(const uint8_t *p, size_t n, size_t off, uint32_t want_seq,
                     struct tixj_chunk_hdr *h)
{
	if (off > n || n - off < TIXJ_CHUNK_HDR)
		return 0;
	memcpy(h, p + off, sizeof *h);
	if (h->magic != TIXJ_MAGIC ||
	    h->header_crc != tixj_crc32c(0, h, offsetof(struct tixj_chunk_hdr, header_crc)))
		return 0;
	if (h->seq != want_seq || h->payload_len > TIXJ_MAX_PAYLOAD || (h->payload_len & 7))
		return 0;
	if (n - off - TIXJ_CHUNK_HDR < h->payload_len)
		return 0;
	return h->payload_crc == tixj_crc32c(0, p + off + TIXJ_CHUNK_HDR, h->payload_len);
}

/* ---- writer ---- */

static int buf_reserve(struct tixj_buf *b, size_t more)
{
	if (b->len + more <= b->cap)
		return 0;
	return tix_grow(&b->p, &b->cap, b->len + more, 1, 4096);
}

static int buf_put(struct tixj_buf *b, const void *data, size_t len)
{
	if (buf_reserve(b, len) != 0)
		return -1;
	memcpy(b->p + b->len, data, len);
	b->len += len;
	return 0;
}

static void widen(struct tixj_buf *b, int64_t t0, int64_t t1)
{
	if (t0 > 0 && (b->t_min == 0 || t0 < b->t_min))
		b->t_min = t0;
	if (t1 > b->t_max)
		b->t_max = t1;
}

int tixj_writer_init(struct tixj_writer *w, const char *dir, const struct tixj_header *hdr,
                     const char *cmdline, size_t cmdline_len)
{
	memset(w, 0, sizeof *w);
	w->fd = -1;
	snprintf(w->dir, sizeof w->dir, "%s", dir && *dir ? dir : ".");
	w->hdr = *hdr;
	w->hdr.version = TIXJ_VERSION;
	if (cmdline_len > 4096)
		cmdline_len = 4096; /* enough to recognise the program */
	w->cmdline = malloc(cmdline_len + 1);
	if (!w->cmdline)
		return -1;
	memcpy(w->cmdline, cmdline, cmdline_len);
	w->cmdline[cmdline_len] = 0;
	w->cmdline_len = cmdline_len;
	w->nslots = 1024;
	w->slots = calloc(w->nslots, sizeof *w->slots);
	return w->slots ? 0 : -1;
}

static uint64_t fnv1a(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
	return h | 1; /* 0 marks an empty slot */
}

static int grow_slots(struct tixj_writer *w)
{
	size_t n = w->nslots * 2;
	__typeof__(w->slots) s = calloc(n, sizeof *s);
	if (!s)
		return -1;
	for (size_t i = 0; i < w->nslots; i++) {
		if (!w->slots[i].hash)
			continue;
		size_t j = w->slots[i].hash & (n - 1);
		while (s[j].hash)
			j = (j + 1) & (n - 1);
		s[j] = w->slots[i];
	}
	free(w->slots);
	w->slots = s;
	w->nslots = n;
	return 0;
}

uint32_t tixj_intern(struct tixj_writer *w, const char *s, size_t len)
{
	if (!s)
		return TIXJ_NONE;
	if (len > (1u << 20))
		len = 1u << 20; /* a megabyte of name is damage, not a name */
	if ((w->nstrings + 1) * 2 > w->nslots && grow_slots(w) != 0)
		return TIXJ_NONE;
	uint64_t h = fnv1a(s, len);
	size_t j = h & (w->nslots - 1);
	for (; w->slots[j].hash; j = (j + 1) & (w->nslots - 1)) {
		if (w->slots[j].hash == h && w->slots[j].len == len &&
		    memcmp(w->arena.p + w->slots[j].off, s, len) == 0)
			return w->slots[j].id;
	}
	uint32_t id = (uint32_t)w->nstrings;
	size_t off = w->arena.len;
	struct tixj_buf *st = &w->stage[TIXJ_STRINGS];
	uint32_t rec[2] = {id, (uint32_t)len};
	size_t padded = (len + 3) & ~(size_t)3;
	static const uint8_t zero[4];
	if (buf_put(&w->arena, s, len) != 0 || buf_reserve(st, 8 + padded) != 0)
		return TIXJ_NONE;
	buf_put(st, rec, 8);
	buf_put(st, s, len);
	buf_put(st, zero, padded - len);
	w->slots[j].hash = h;
	w->slots[j].id = id;
	w->slots[j].len = (uint32_t)len;
	w->slots[j].off = off;
	w->nstrings++;
	return id;
}

int tixj_add(struct tixj_writer *w, enum tixj_type type, const void *row, int64_t ts0,
             int64_t ts1)
{
	if (type <= 0 || type >= TIXJ_TYPE_COUNT || !tixj_row_size[type])
		return -1;
	struct tixj_buf *b = &w->stage[type];
	if (buf_put(b, row, tixj_row_size[type]) != 0)
		return -1;
	widen(b, ts0, ts1);
	return 0;
}

int tixj_note(struct tixj_writer *w, const char *text)
{
	struct tixj_buf *b = &w->stage[TIXJ_NOTE];
	size_t len = strlen(text);
	uint32_t n = (uint32_t)len;
	size_t padded = (4 + len + 7) & ~(size_t)7;
	if (buf_reserve(b, padded) != 0)
		return -1;
	memset(b->p + b->len, 0, padded);
	memcpy(b->p + b->len, &n, 4);
	memcpy(b->p + b->len + 4, text, len);
	b->len += padded;
	return 0;
}

/* The rows that are the capture itself; the others describe it and are
 * written only beside some of these (tixj_flush). */
static const uint8_t recorded[TIXJ_TYPE_COUNT] = {
	[TIXJ_KERNELS] = 1, [TIXJ_COPIES] = 1, [TIXJ_APIS] = 1, [TIXJ_MARKERS] = 1,
};

int tixj_will_write(const struct tixj_writer *w)
{
	if (w->failed || tixj_staged_rows(w) == 0)
		return 0;
	if (w->fd >= 0)
		return 1;
	for (int t = 0; t < TIXJ_TYPE_COUNT; t++)
		if (recorded[t] && w->stage[t].len)
			return 1;
	return 0;
}

size_t tixj_staged_rows(const struct tixj_writer *w)
{
	size_t n = w->stage[TIXJ_NOTE].len ? 1 : 0;
	for (int t = 0; t < TIXJ_TYPE_COUNT; t++)
		if (tixj_row_size[t])
			n += w->stage[t].len / tixj_row_size[t];
	return n;
}

/* Appends one chunk of the staged bytes b to w->out. */
static int emit(struct tixj_writer *w, enum tixj_type type, struct tixj_buf *b)
{
	static const uint8_t zero[8];
	size_t pad = (8 - (b->len & 7)) & 7;
	if (buf_put(b, zero, pad) != 0 || buf_reserve(&w->out, TIXJ_CHUNK_HDR + b->len) != 0)
		return -1;
	struct tixj_chunk_hdr h;
	tixj_chunk_header(&h, type, w->seq++, b->p, (uint32_t)b->len, b->t_min, b->t_max);
	buf_put(&w->out, &h, sizeof h);
	buf_put(&w->out, b->p, b->len);
	b->len = 0;
	b->t_min = b->t_max = 0;
	return 0;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static void drop_staged(struct tixj_writer *w)
{
	for (int t = 0; t < TIXJ_TYPE_COUNT; t++)
		w->stage[t].len = 0;
	w->out.len = 0;
}

static int open_journal(struct tixj_writer *w)
{
	char host[64];
	snprintf(host, sizeof host, "%s", w->hdr.host[0] ? w->hdr.host : "host");
	for (char *c = host; *c; c++)
		if (*c == '/' || *c == ' ')
			*c = '_';
	snprintf(w->path, sizeof w->path, "%s/tix.%s.%u.%lld.tixj", w->dir, host,
	         (unsigned)w->hdr.pid, (long long)w->hdr.start_ns);
	w->fd = open(w->path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		fprintf(stderr, "tixcap: pid %u: cannot create %s: %s; capture off\n",
		        (unsigned)w->hdr.pid, w->path, strerror(errno));
		return -1;
	}
	/* The header chunk goes first, through the same staging as rows. */
	struct tixj_buf hb = {0};
	if (buf_put(&hb, &w->hdr, sizeof w->hdr) != 0 ||
	    buf_put(&hb, w->cmdline, w->cmdline_len) != 0 || emit(w, TIXJ_HEADER, &hb) != 0) {
		free(hb.p);
		return -1;
	}
	free(hb.p);
	return 0;
}

int tixj_flush(struct tixj_writer *w)
{
	if (w->failed) {
		drop_staged(w);
		return -1;
	}
	if (!tixj_will_write(w))
		return 0; /* strings and context rows wait for recorded rows */
	if (w->fd < 0 && open_journal(w) != 0)
		goto fail;
	if (w->stage[TIXJ_STRINGS].len && emit(w, TIXJ_STRINGS, &w->stage[TIXJ_STRINGS]) != 0)
		goto fail;
	for (int t = TIXJ_STRINGS + 1; t < TIXJ_TYPE_COUNT; t++)
		if (t != TIXJ_END && w->stage[t].len && emit(w, (enum tixj_type)t, &w->stage[t]) != 0)
			goto fail;
	if (write_all(w->fd, w->out.p, w->out.len) != 0) {
		fprintf(stderr, "tixcap: pid %u: writing %s: %s; capture off\n",
		        (unsigned)w->hdr.pid, w->path, strerror(errno));
		goto fail;
	}
	w->bytes_written += w->out.len;
	w->out.len = 0;
	return 0;
fail:
	w->failed = 1;
	drop_staged(w);
	return -1;
}

void tixj_writer_close(struct tixj_writer *w, const struct tixj_drops *final)
{
	tixj_flush(w);
	if (w->fd >= 0 && !w->failed) {
		struct tixj_drops d = {0};
		if (final)
			d = *final;
		struct tixj_buf *b = &w->stage[TIXJ_END];
		if (buf_put(b, &d, sizeof d) == 0 && emit(w, TIXJ_END, b) == 0)
			write_all(w->fd, w->out.p, w->out.len);
	}
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	for (int t = 0; t < TIXJ_TYPE_COUNT; t++)
		free(w->stage[t].p);
	free(w->out.p);
	free(w->arena.p);
	free(w->slots);
	free(w->cmdline);
	w->slots = NULL;
	w->cmdline = NULL;
	memset(w->stage, 0, sizeof w->stage);
	memset(&w->out, 0, sizeof w->out);
	memset(&w->arena, 0, sizeof w->arena);
}
