/* The gzip path of parse.c: a .json.gz inflated (ISA-L or zlib, inflate.h)
 * through one reused window, and on large inputs split between two threads
 * (the second inflates from the start and takes over at a cut; see "two
 * threads over one gzip stream").  Private to parse/. */
#include "parse/parse.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "parse/inflate.h"
#include "parse/reader.h"

/* ---- gzip input ----
 * The text is inflated into one reused buffer: buf[0] is a spare byte (for
 * the '[' patch of a window that starts at buf[1]), buf[1, len) the text
 * from the reader's base on, shim_padding() zeros after it. */
struct gz_text {
	struct gz_stream *g;
	char *buf;
	size_t len, cap, pad;
	uint64_t inflated;
	int eof, zcut;
};

static int gz_text_init(struct gz_text *t, struct reader *r, const unsigned char *in, size_t size)
{
	memset(t, 0, sizeof(*t));
	t->pad = shim_padding();
	t->cap = 2 * (size_t)r->window + 4096;
	t->buf = malloc(t->cap + t->pad);
	t->g = gz_open(in, size, r->inflate_zlib);
	if (!t->buf || !t->g)
		return tix_error_oom(r->err, r->path);
	t->len = 1;
	t->buf[0] = ' ';
	return 0;
}

static void gz_text_done(struct gz_text *t)
{
	gz_close(t->g);
	free(t->buf);
}

/* Fills the buffer (up to limit bytes, at most its capacity). */
static int gz_fill(struct gz_text *t, struct reader *r, size_t limit)
{
	if (limit > t->cap)
		limit = t->cap;
	if (!t->eof && t->len < limit) {
		size_t got;
		enum gz_status st = gz_read(t->g, t->buf + t->len, limit - t->len, &got);
		t->len += got;
		t->inflated += got;
		if (st == GZ_BAD)
			return tix_error_set(r->err, "%s: corrupt gzip data near compressed byte %llu: %s",
			                     r->path, (unsigned long long)gz_consumed(t->g), gz_error(t->g));
		t->eof = st != GZ_OK;
		t->zcut = st == GZ_CUT;
	}
	memset(t->buf + t->len, 0, t->pad);
	return 0;
}

/* Drops the text before buf[1 + used], keeping the byte before it. */
static int gz_keep_tail(struct gz_text *t, struct reader *r, size_t used)
{
	memmove(t->buf, t->buf + used, t->len - used);
	r->base += used;
	t->len -= used;
	if (t->len >= t->cap - 4096) { /* one value larger than the window: grow */
		size_t ncap = t->cap * 2;
		char *nb = realloc(t->buf, ncap + t->pad);
		if (!nb)
			return tix_error_oom(r->err, r->path);
		t->buf = nb;
		t->cap = ncap;
	}
	return 0;
}

/* After the trace's JSON ended at buf[1 + used]: anything but blanks after
 * it (a second trace in the same member, or in a member after it) is
 * warned about, as for plain JSON.  Reads on only until a byte that is not
 * blank, never a whole second trace. */
static int gz_trailing(struct reader *r, struct gz_text *t, size_t used)
{
	for (;;) {
		const char *b = t->buf + 1;
		size_t n = t->len - 1;
		if (parse_skip_ws(b, used, n) < n)
			return event_conv_warn(&r->conv, "ignored trailing bytes after the trace's JSON", r->err);
		if (t->eof)
			return 0;
		t->len = 1; /* only blanks so far: the buffer is free */
		r->base += n;
		used = 0;
		if (gz_fill(t, r, t->cap) != 0)
			return -1;
	}
}

/* Parses the rest of the stream from buf[1 + from]; returns early (0)
 * once *cancel is set, when the work is to be thrown away. */
static int gz_parse_rest(struct reader *r, struct gz_text *t, size_t from, const struct tix_parse_opts *opts,
                         size_t size, _Atomic int *cancel)
{
	for (;;) {
		if (cancel && atomic_load(cancel))
			return 0;
		if (gz_fill(t, r, t->cap) != 0)
			return -1;
		size_t used = parse_consume(r, t->buf + 1, from, t->len - 1, t->eof, opts, size);
		if (used == (size_t)-1)
			return -1;
		if (opts && opts->progress && !r->is_second)
			opts->progress(opts->progress_ctx, gz_consumed(t->g), size);
		if (r->state == TOP_DONE)
			return gz_trailing(r, t, used);
		if (t->eof)
			return 0;
		if (gz_keep_tail(t, r, used) != 0)
			return -1;
		from = 0;
	}
}

/* ---- two threads over one gzip stream ----
 * A deflate stream can only be read from its start, so the second thread
 * inflates it from the start too and throws the text away (ISA-L does that
 * at ~3 GB/s, several times the parse's speed) until GZ_SPLIT_AT of the
 * compressed bytes are behind it, guesses an event boundary there (as on a
 * mapped file) and parses from it to the end into the extra sink.  The
 * first thread parses from the start up to that boundary, and so verifies
 * it; the halves then join as on a mapped file, "E" events matched across
 * the cut by event_conv_adopt().  A wrong guess: the second thread's work
 * is thrown away and the first goes on alone.  Memory: one window buffer
 * per thread.
 * Why not one inflating thread that hands windows to two parsers: on two
 * cores it competes with them for the same cores, and its windows must be
 * kept until a parser is done with them; inflating twice costs the second
 * thread ~0.1 s of its 0.4 s on the 485 MB trace and needs no handing
 * over. */
#define GZ_SPLIT_AT 0.62 /* the second thread also inflates the first part */

enum gz_cut_state { GZC_SEARCHING, GZC_FOUND, GZC_NONE };

struct gz_split {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	enum gz_cut_state state;
	uint64_t passed; /* searching: the text before this offset holds no cut */
	uint64_t cut;    /* found: the offset of the ',' the second half starts after */
	_Atomic int cancel;
};

struct gz_second {
	struct reader r;
	struct gz_split *sp;
	const unsigned char *in;
	size_t size;
	const struct tix_parse_opts *opts;
	struct tix_error err;
	int failed;       /* after the cut: r.err says why */
	struct gz_text t;
	pthread_t th;
	int joined;       /* th is done and joined */
	struct timespec done_at;
	int stop;         /* set by the first thread before it joins: the sink's idle() returns */
};

static void gz_publish(struct gz_split *sp, enum gz_cut_state st, uint64_t passed, uint64_t cut)
{
	pthread_mutex_lock(&sp->mu);
	sp->state = st;
	sp->passed = passed;
	sp->cut = cut;
	pthread_cond_broadcast(&sp->cv);
	pthread_mutex_unlock(&sp->mu);
}

static void *run_gz_second(void *arg)
{
	struct gz_second *h = arg;
	struct reader *r = &h->r;
	struct gz_text *t = &h->t;
	struct gz_split *sp = h->sp;
	uint64_t at = 0;      /* offset of buf[1] in the text */
	int seen_start = 0;
	size_t chunk = r->window < (1u << 20) ? r->window : (1u << 20);
	uint64_t split_at = (uint64_t)((double)h->size * GZ_SPLIT_AT);
	/* inflate and throw away up to the split point, then look for a cut */
	for (;;) {
		if (atomic_load(&sp->cancel) || gz_fill(t, r, 1 + chunk) != 0 ||
		    (t->eof && t->len <= 1)) {
			gz_publish(sp, GZC_NONE, 0, 0);
			return NULL;
		}
		size_t n = t->len - 1;
		char *b = t->buf + 1;
		if (!seen_start) { /* the first byte says which format: where the array ends */
			size_t q = parse_skip_ws(b, 0, n);
			if (q + 3 <= n && (unsigned char)b[q] == 0xEF && (unsigned char)b[q + 1] == 0xBB &&
			    (unsigned char)b[q + 2] == 0xBF)
				q = parse_skip_ws(b, q + 3, n);
			if (q < n) {
				r->array_format = b[q] == '[';
				seen_start = 1;
			}
		}
		size_t cut = seen_start && gz_consumed(t->g) >= split_at ? parse_guess_cut(b, 0, n) : 0;
		if (cut) {
			/* buf[0] becomes the ',' and the second half starts at buf[1] */
			memmove(t->buf, b + cut, n - cut);
			t->len = n - cut;
			r->base = at + cut + 1;
			gz_publish(sp, GZC_FOUND, 0, at + cut);
			break;
		}
		if (t->eof) {
			gz_publish(sp, GZC_NONE, 0, 0);
			return NULL;
		}
		/* a cut across two chunks is missed: the next chunk has others */
		at += n;
		t->len = 1;
		gz_publish(sp, GZC_SEARCHING, at, 0);
	}
	r->state = TOP_EVENTS;
	if (gz_parse_rest(r, t, 0, h->opts, h->size, &sp->cancel) != 0)
		h->failed = 1;
	clock_gettime(CLOCK_MONOTONIC, &h->done_at);
	if (!h->failed && !atomic_load(&sp->cancel) && h->opts->extra_sink->idle)
		h->opts->extra_sink->idle(h->opts->extra_sink->ctx, &h->stop);
	return NULL;
}

/* Starts the second thread when the trace is large enough; NULL if not. */
static struct gz_second *gz_split_start(struct reader *r, const unsigned char *in, size_t size,
                                        const struct tix_parse_opts *opts, struct gz_split *sp)
{
	if (!opts || !opts->extra_sink)
		return NULL;
	uint64_t split_min = opts->split_min ? opts->split_min : SPLIT_MIN;
	/* The text's size: the last member's trailer has it modulo 2^32 (it
	 * wraps above 4 GB, when the compressed size alone is enough). */
	uint64_t isize = size >= 18 ? (uint64_t)in[size - 4] | (uint64_t)in[size - 3] << 8 |
	                                  (uint64_t)in[size - 2] << 16 | (uint64_t)in[size - 1] << 24
	                            : 0;
	if (isize < split_min && size < split_min / 4)
		return NULL;
	struct gz_second *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	if (parse_reader_init(&h->r, r->path, 1, opts->extra_sink, opts, &h->err) != 0 ||
	    gz_text_init(&h->t, &h->r, in, size) != 0) {
		gz_text_done(&h->t);
		parse_reader_done(&h->r);
		free(h);
		return NULL;
	}
	h->r.strict = r->strict;
	h->r.is_second = 1;
	h->r.conv.keep_orphan_ends = 1;
	h->sp = sp;
	h->in = in;
	h->size = size;
	h->opts = opts;
	pthread_mutex_init(&sp->mu, NULL);
	pthread_cond_init(&sp->cv, NULL);
	sp->state = GZC_SEARCHING;
	if (pthread_create(&h->th, NULL, run_gz_second, h) != 0) {
		pthread_mutex_destroy(&sp->mu);
		pthread_cond_destroy(&sp->cv);
		gz_text_done(&h->t);
		parse_reader_done(&h->r);
		free(h);
		return NULL;
	}
	return h;
}

static void gz_split_end(struct gz_second *h, int cancel)
{
	if (cancel)
		atomic_store(&h->sp->cancel, 1);
	__atomic_store_n(&h->stop, 1, __ATOMIC_RELEASE);
	if (!h->joined)
		pthread_join(h->th, NULL);
	pthread_mutex_destroy(&h->sp->mu);
	pthread_cond_destroy(&h->sp->cv);
	gz_text_done(&h->t);
	parse_reader_done(&h->r);
	free(h);
}

/* The first thread's buffer holds the cut at b[rel]: parses up to it.
 * Returns 1 when the halves joined (the reader's state is final), 0 to go
 * on alone from *from, -1 on an error. */
static int gz_join(struct reader *r, struct gz_text *t, size_t rel, size_t *from,
                   const struct tix_parse_opts *opts, size_t size, struct gz_second *h)
{
	char *b = t->buf + 1;
	size_t end_a = rel;
	while (end_a > 0 && b[end_a - 1] != '}')
		end_a--;
	if (end_a == 0)
		return 0; /* the event before the cut is not in the buffer */
	r->stop_at_events = 1;
	size_t q = parse_consume(r, b, *from, end_a, 0, opts, size);
	r->stop_at_events = 0;
	if (q == (size_t)-1)
		return -1;
	*from = q;
	if (r->state != TOP_EVENTS)
		return 0; /* the cut is before traceEvents */
	r->at_cut = 1; /* the text ends at the cut, the trace does not */
	enum scan s = parse_take_events(r, b, &q, end_a, 1, opts, size);
	r->at_cut = 0;
	*from = q;
	if (s == SCAN_BAD)
		return -1;
	if (s == SCAN_OK) { /* the array closed before the cut */
		r->state = r->array_format ? TOP_DONE : TOP_AFTER_EVENTS;
		r->expect_comma = 1;
		return 0;
	}
	if (q != end_a || r->truncated)
		return 0; /* a wrong guess */
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	__atomic_store_n(&h->stop, 1, __ATOMIC_RELEASE);
	pthread_join(h->th, NULL);
	h->joined = 1;
	if (r->timing) /* GZ_SPLIT_AT balances these */
		fprintf(stderr, "tix: timing: gzip: first half done at %.3f s, second half at %.3f s (process clock)\n",
		        t1.tv_sec + t1.tv_nsec / 1e9, h->done_at.tv_sec + h->done_at.tv_nsec / 1e9);
	if (h->failed) {
		*r->err = h->err;
		return -1;
	}
	if (event_conv_adopt(&r->conv, &h->r.conv, r->err) != 0)
		return -1;
	parse_adopt_malformed(r, &h->r);
	r->state = h->r.state;
	if (h->r.salvaged_to) /* the second half took a whole event */
		r->salvaged_to = h->r.salvaged_to;
	t->inflated = h->t.inflated;
	t->zcut = h->t.zcut;
	return 1;
}

int parse_gzip(struct reader *r, int fd, size_t size, const struct tix_parse_opts *opts,
                      struct tix_parse_result *res)
{
	unsigned char *in = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
	if (size && in == MAP_FAILED)
		return tix_error_errno(r->err, errno, "%s: cannot map the file", r->path);
	if (in)
		madvise(in, size, MADV_SEQUENTIAL);
	struct gz_text t;
	struct gz_split sp;
	memset(&sp, 0, sizeof(sp));
	struct gz_second *h = NULL;
	int rc = -1, joined = 0, parsed_all = 0;
	if (gz_text_init(&t, r, in, size) != 0)
		goto out;
	h = gz_split_start(r, in, size, opts, &sp);
	size_t from = 0;
	/* With a second thread: parse what is before its cut, then join. */
	while (h) {
		if (gz_fill(&t, r, t.cap) != 0)
			goto out;
		size_t n = t.len - 1;
		pthread_mutex_lock(&sp.mu);
		while (sp.state == GZC_SEARCHING && sp.passed < r->base + n)
			pthread_cond_wait(&sp.cv, &sp.mu);
		enum gz_cut_state st = sp.state;
		uint64_t cut = sp.cut;
		pthread_mutex_unlock(&sp.mu);
		if (st == GZC_NONE)
			break;
		if (st == GZC_FOUND && cut < r->base + n) {
			if (cut < r->base)
				break; /* cannot happen: the cut is never before our text */
			int jr = gz_join(r, &t, (size_t)(cut - r->base), &from, opts, size, h);
			if (jr < 0)
				goto out;
			joined = jr;
			break;
		}
		size_t used = parse_consume(r, t.buf + 1, from, n, t.eof, opts, size);
		if (used == (size_t)-1)
			goto out;
		from = 0;
		if (opts && opts->progress)
			opts->progress(opts->progress_ctx, gz_consumed(t.g), size);
		if (r->state == TOP_DONE && gz_trailing(r, &t, used) != 0)
			goto out;
		if (t.eof || r->state == TOP_DONE) {
			parsed_all = 1;
			break;
		}
		if (gz_keep_tail(&t, r, used) != 0)
			goto out;
	}
	if (h && !joined) { /* alone from here: the second thread's work goes */
		gz_split_end(h, 1);
		h = NULL;
		if (opts->extra_sink->discard)
			opts->extra_sink->discard(opts->extra_sink->ctx);
	}
	/* the text not parsed yet (all of it, when the second thread found no
	 * cut before the stream ended) */
	if (!joined && !parsed_all && r->state != TOP_DONE && gz_parse_rest(r, &t, from, opts, size, NULL) != 0)
		goto out;
	if (res)
		res->input_bytes = t.inflated;
	if (t.zcut) { /* a cut stream took all of its input: parse_finish says where, and what was kept */
		r->gz_cut_at = size;
		r->gz_inflated = t.inflated;
	}
	rc = parse_finish(r, r->state == TOP_DONE, res);
out:
	if (h)
		gz_split_end(h, 1);
	gz_text_done(&t);
	if (in)
		munmap(in, size);
	return rc;
}

