/*
 * Reading a Chrome-trace / Kineto JSON trace into a tix_sink.
 *
 * How: the file is mapped privately (copy-on-write) with readable zero pages
 * after its end, so simdjson's padding is always there.  The traceEvents
 * array is cut into windows of about WINDOW bytes.  A window's end is a
 * guess: the last "}" "," "{" before the limit, found with memrchr.  The two
 * bytes around the window are patched to '[' and ']' (each patch copies one
 * page), simdjson On-Demand walks the window as one array, and the bytes
 * are restored.  A guess that landed inside a string or a nested array makes
 * that parse fail; the window is then walked by a careful byte scanner that
 * knows strings and nesting, one event at a time, which also gives exact
 * byte offsets for errors.  Gzip input is inflated (parse/inflate.c) into
 * one reused buffer and goes through the same windows; a large one is
 * parsed by two threads too (see "two threads over one gzip stream").
 * Memory: one window buffer per gzip thread, simdjson's buffers for one
 * window per thread, whatever the file size.
 *
 * Known limits:
 * - Invalid UTF-8 inside an event is replaced, byte for byte, by '?', and
 *   raw control characters inside strings by ' ' (the event is kept).
 * - Events with no usable "ph" or "ts" (missing, wrong type, out of the
 *   int64 nanosecond range) are skipped and counted in a warning.
 * - Async ("b"/"e"/"n"), sample, object and mark events are skipped.
 * - "B"/"E" pairs are matched per thread, innermost first; a "B" with no
 *   "E", an "E" before its "B" and a negative "dur" give an event whose end
 *   is unknown (zero duration, flagged; a step marker lasts until the next).
 * - A top-level value before traceEvents must fit in the gzip window
 *   buffer, which grows to hold it.
 */
#include "parse/parse.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "parse/inflate.h"
#include "parse/reader.h"

/* Maps the file with zero pages after it: simdjson may read up to its
 * padding past any window, including the last. */
static char *map_padded(int fd, size_t size, size_t *maplen)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = ((size + (size_t)page - 1) / (size_t)page + 1) * (size_t)page;
	char *area = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return NULL;
	if (size && mmap(area, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
		munmap(area, len);
		return NULL;
	}
	madvise(area, size, MADV_SEQUENTIAL);
	*maplen = len;
	return area;
}

static int finish(struct reader *r, int eof_state_ok, struct tix_parse_result *res)
{
	if (!eof_state_ok) {
		if (r->state == TOP_START) {
			tix_error_set(r->err, "%s: empty file: no JSON in it", r->path);
			return -1;
		}
		if (r->state == TOP_KEY && r->conv.events == 0) {
			tix_error_set(r->err, "%s: byte %llu: the file ends before any \"traceEvents\" array",
			              r->path, (unsigned long long)r->base);
			return -1;
		}
		if (r->state == TOP_EVENTS) {
			r->truncated = 1;
			char msg[256];
			snprintf(msg, sizeof(msg),
			         "trace truncated (it ends inside an event, or before traceEvents closes): "
			         "indexed the %llu whole events before byte %llu",
			         (unsigned long long)r->conv.events, (unsigned long long)r->salvaged_to);
			if (event_conv_warn(&r->conv, msg, r->err) != 0)
				return -1;
		}
	}
	if (event_conv_finish(&r->conv, r->err) != 0)
		return -1;
	if (res) {
		res->events = r->conv.events;
		res->truncated = r->truncated;
		res->salvaged_to = r->salvaged_to;
	}
	return 0;
}

/* ---- a mapped file that shrinks under us ----
 * Reading a page of a mapping past the file's (new) end raises SIGBUS.  While
 * a thread parses a mapped trace, SIGBUS in that mapping jumps back to its
 * parse, which then fails with one line instead of killing tix.  A SIGBUS
 * elsewhere (a spill file's mapping) is not the trace's fault: not caught. */
static _Thread_local sigjmp_buf *bus_jump;
static _Thread_local const char *bus_map; /* the trace's mapping */
static _Thread_local size_t bus_len;

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	uintptr_t at = si ? (uintptr_t)si->si_addr : 0, lo = (uintptr_t)bus_map;
	if (bus_jump && at >= lo && at - lo < bus_len)
		siglongjmp(*bus_jump, 1);
	signal(sig, SIG_DFL); /* not ours: die as we would have */
	raise(sig);
}

static void catch_sigbus(struct sigaction *old)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, old);
}

static int shrank(struct reader *r)
{
	return tix_error_set(r->err, "%s: the file shrank or became unreadable while it was read", r->path);
}

/* ---- two threads over one mapped file ----
 * The events are cut in two near the middle, at a guessed boundary.  The
 * first thread parses up to it and so verifies it (a successful parse of
 * whole events that started at a true boundary ends at a true boundary);
 * the second parses from it to the end of the file into its own sink.
 * When the guess was wrong, the second thread's work is discarded and the
 * first goes on alone. */

#define SPLIT_MIN (64u << 20) /* default: below this one thread is as fast */

struct second_half {
	struct reader r;
	char *b;
	size_t start, size;
	size_t used;
	struct tix_error err;
	const struct tix_parse_opts *opts;
	struct timespec done_at;
};

static void *run_second(void *arg)
{
	struct second_half *h = arg;
	struct reader *r = &h->r;
	size_t p = h->start;
	sigjmp_buf jb;
	if (sigsetjmp(jb, 1)) {
		bus_jump = NULL;
		shrank(r);
		h->used = (size_t)-1;
		return NULL;
	}
	bus_jump = &jb;
	bus_map = h->b;
	bus_len = h->size;
	/* Its first event is parsed on its own, so that it never patches the
	 * bytes at the cut, which the first thread patches. */
	int closed = 0, failed = 0;
	enum scan s = parse_walk_events(r, h->b, &p, h->size, p + 1, 1, &closed, &failed);
	if (s == SCAN_BAD) {
		bus_jump = NULL;
		h->used = (size_t)-1;
		return NULL;
	}
	if (closed) {
		r->state = r->array_format ? TOP_DONE : TOP_AFTER_EVENTS;
		r->expect_comma = 1;
	}
	h->used = s == SCAN_MORE && p >= h->size ? p : parse_consume(r, h->b, p, h->size, 1, h->opts, h->size);
	bus_jump = NULL;
	clock_gettime(CLOCK_MONOTONIC, &h->done_at);
	return NULL;
}

static int reader_init(struct reader *r, const char *path, const struct tix_sink *sink,
                       struct tix_error *err)
{
	r->path = path;
	r->err = err;
	r->window = WINDOW;
	const char *w = getenv("TIX_PARSE_WINDOW"); /* tests use small windows */
	if (w && atol(w) >= 256)
		r->window = (size_t)atol(w);
	r->shim = shim_new();
	if (!r->shim || event_conv_init(&r->conv, path, sink) != 0)
		return -1;
	return 0;
}

static void reader_done(struct reader *r)
{
	event_conv_done(&r->conv);
	shim_free(r->shim);
	r->shim = NULL;
}

/* Where to cut b[q, size) so that both threads get the same work.  Work
 * follows events more than bytes (Kineto writes the many small CPU events
 * first and the GPU records, with their long names, last: cut at the byte
 * middle, the first half took 0.55 s and the second 0.34 s), so the density
 * of events is sampled at a few places and the cut put where the estimated
 * cost, events x EVENT_COST + bytes, is half. */
#define SPLIT_SAMPLES 32
#define SAMPLE_BYTES (32u << 10)
#define EVENT_COST 700 /* an event costs about as much as this many bytes */

static size_t balanced_middle(const char *b, size_t q, size_t size)
{
	size_t span = size - q, step = span / SPLIT_SAMPLES;
	double w[SPLIT_SAMPLES], total = 0;
	if (step < SAMPLE_BYTES)
		return q + span / 2;
	for (int i = 0; i < SPLIT_SAMPLES; i++) {
		const char *s = b + q + (size_t)i * step, *end = s + SAMPLE_BYTES;
		size_t events = 0;
		for (const char *f = s; (f = memmem(f, (size_t)(end - f), "\"ph\"", 4)); f += 4)
			events++;
		w[i] = (double)events * EVENT_COST + SAMPLE_BYTES; /* for its step bytes */
		total += w[i];
	}
	double acc = 0;
	for (int i = 0; i < SPLIT_SAMPLES; i++) {
		if (acc + w[i] >= total / 2) {
			double frac = w[i] > 0 ? (total / 2 - acc) / w[i] : 0.5;
			return q + (size_t)i * step + (size_t)(frac * (double)step);
		}
		acc += w[i];
	}
	return q + span / 2;
}

/* Tries the split; returns 1 when it did the whole file (then *used and
 * the reader's state are final), 0 when the caller should go on alone from
 * *p, -1 on an error. */
static int parse_split(struct reader *r, char *b, size_t *p, size_t size,
                       const struct tix_parse_opts *opts, size_t *used)
{
	size_t q = parse_skip_ws(b, *p, size);
	/* The events need not fill the file (a large "otherData" before them,
	 * a run of blanks): split only when they span two windows or more, so
	 * that the guessed cut and the window after it lie inside the mapping. */
	if (size - q < 2 * (size_t)r->window)
		return 0;
	size_t mid = balanced_middle(b, q, size);
	if (mid + r->window > size)
		mid = q + (size - q) / 2;
	size_t cut = parse_guess_cut(b, mid, mid + r->window);
	if (!cut)
		return 0;
	size_t end_a = cut;
	while (b[end_a - 1] != '}')
		end_a--;

	struct second_half *h = calloc(1, sizeof(*h));
	struct shared_progress share = {0, cut + 1};
	if (!h)
		return 0;
	if (reader_init(&h->r, r->path, opts->extra_sink, &h->err) != 0) {
		reader_done(&h->r);
		free(h);
		return 0;
	}
	h->r.state = TOP_EVENTS;
	h->r.array_format = r->array_format;
	h->r.is_second = 1;
	h->r.share = &share;
	h->r.conv.keep_orphan_ends = 1;
	h->b = b;
	h->start = cut + 1;
	h->size = size;
	h->opts = opts;
	pthread_t th;
	if (pthread_create(&th, NULL, run_second, h) != 0) {
		reader_done(&h->r);
		free(h);
		return 0;
	}
	r->share = &share;

	/* The first half, as if the file ended at the cut. */
	size_t pa = q;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	enum scan s = parse_take_events(r, b, &pa, end_a, 1, opts, size);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_join(th, NULL);
	if (getenv("TIX_TIMING")) /* is the cut in the middle of the work? */
		fprintf(stderr, "tix: timing: first half %.3f s, second half %.3f s\n",
		        (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
		        (h->done_at.tv_sec - t0.tv_sec) + (h->done_at.tv_nsec - t0.tv_nsec) / 1e9);
	r->share = NULL;
	int rc;
	if (s == SCAN_BAD) {
		rc = -1;
	} else if (s == SCAN_MORE && pa == end_a && !r->truncated) {
		/* The cut was a true boundary: the halves join. */
		if (h->used == (size_t)-1) {
			*r->err = h->err;
			rc = -1;
		} else if (event_conv_adopt(&r->conv, &h->r.conv, r->err) != 0) {
			rc = -1;
		} else {
			r->state = h->r.state;
			r->salvaged_to = h->r.salvaged_to;
			*used = h->used;
			rc = 1;
		}
	} else {
		/* A wrong guess (or the array closed before the cut): go on
		 * alone from where the first half stopped. */
		if (opts->extra_sink->discard)
			opts->extra_sink->discard(opts->extra_sink->ctx);
		*p = s == SCAN_OK ? pa : pa;
		if (s == SCAN_OK) { /* the array closed inside the first half */
			r->state = r->array_format ? TOP_DONE : TOP_AFTER_EVENTS;
			r->expect_comma = 1;
		}
		rc = 0;
	}
	reader_done(&h->r);
	free(h);
	return rc;
}

/* The parse of a mapped file, inside parse_mapped()'s SIGBUS guard. */
__attribute__((noinline)) /* its locals must not live in the frame that sigsetjmp saved */
static int parse_mapped_in(struct reader *r, char *b, size_t size, const struct tix_parse_opts *opts,
                           struct tix_parse_result *res)
{
	size_t used, p = 0;
	int done = 0;
	uint64_t split_min = opts && opts->split_min ? opts->split_min : SPLIT_MIN;
	if (opts && opts->extra_sink && size >= split_min) {
		/* The top-level keys before traceEvents, then the split. */
		r->stop_at_events = 1;
		p = parse_consume(r, b, 0, size, 1, opts, size);
		r->stop_at_events = 0;
		if (p != (size_t)-1 && r->state == TOP_EVENTS) {
			int sr = parse_split(r, b, &p, size, opts, &used);
			if (sr < 0)
				p = (size_t)-1;
			done = sr > 0;
		}
	}
	if (p == (size_t)-1)
		used = (size_t)-1;
	else if (!done)
		used = parse_consume(r, b, p, size, 1, opts, size);
	if (used == (size_t)-1)
		return -1;
	if (opts && opts->progress)
		opts->progress(opts->progress_ctx, size, size);
	if (res)
		res->input_bytes = size;
	int rc = finish(r, r->state == TOP_DONE, res);
	if (rc == 0 && r->state == TOP_DONE) {
		size_t rest = parse_skip_ws(b, used, size);
		if (rest < size && b[rest] != '\0')
			rc = event_conv_warn(&r->conv, "ignored trailing bytes after the trace's JSON", r->err);
	}
	return rc;
}

static int parse_mapped(struct reader *r, int fd, size_t size, const struct tix_parse_opts *opts,
                        struct tix_parse_result *res)
{
	size_t maplen;
	char *b = map_padded(fd, size, &maplen);
	if (!b)
		return tix_error_env(r->err, "%s: cannot map the file: %s", r->path, strerror(errno));
	struct sigaction old_bus;
	catch_sigbus(&old_bus);
	sigjmp_buf jb;
	int rc;
	if (sigsetjmp(jb, 1)) {
		rc = shrank(r);
	} else {
		bus_jump = &jb;
		bus_map = b;
		bus_len = maplen;
		rc = parse_mapped_in(r, b, size, opts, res);
	}
	bus_jump = NULL;
	sigaction(SIGBUS, &old_bus, NULL);
	munmap(b, maplen);
	return rc;
}

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
	t->g = gz_open(in, size);
	if (!t->buf || !t->g)
		return tix_error_env(r->err, "%s: out of memory", r->path);
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
			return tix_error_env(r->err, "%s: out of memory", r->path);
		t->buf = nb;
		t->cap = ncap;
	}
	return 0;
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
		if (t->eof || r->state == TOP_DONE)
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
	if (reader_init(&h->r, r->path, opts->extra_sink, &h->err) != 0 ||
	    gz_text_init(&h->t, &h->r, in, size) != 0) {
		gz_text_done(&h->t);
		reader_done(&h->r);
		free(h);
		return NULL;
	}
	h->r.gzip = 1;
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
		reader_done(&h->r);
		free(h);
		return NULL;
	}
	return h;
}

static void gz_split_end(struct gz_second *h, int cancel)
{
	if (cancel)
		atomic_store(&h->sp->cancel, 1);
	if (!h->joined)
		pthread_join(h->th, NULL);
	pthread_mutex_destroy(&h->sp->mu);
	pthread_cond_destroy(&h->sp->cv);
	gz_text_done(&h->t);
	reader_done(&h->r);
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
	enum scan s = parse_take_events(r, b, &q, end_a, 1, opts, size);
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
	pthread_join(h->th, NULL);
	h->joined = 1;
	if (getenv("TIX_TIMING")) /* GZ_SPLIT_AT balances these */
		fprintf(stderr, "tix: timing: gzip: first half done at %.3f s, second half at %.3f s (process clock)\n",
		        t1.tv_sec + t1.tv_nsec / 1e9, h->done_at.tv_sec + h->done_at.tv_nsec / 1e9);
	if (h->failed) {
		*r->err = h->err;
		return -1;
	}
	if (event_conv_adopt(&r->conv, &h->r.conv, r->err) != 0)
		return -1;
	r->state = h->r.state;
	r->salvaged_to = h->r.salvaged_to;
	t->inflated = h->t.inflated;
	t->zcut = h->t.zcut;
	return 1;
}

static int parse_gzip(struct reader *r, int fd, size_t size, const struct tix_parse_opts *opts,
                      struct tix_parse_result *res)
{
	unsigned char *in = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
	if (size && in == MAP_FAILED)
		return tix_error_env(r->err, "%s: cannot map the file: %s", r->path, strerror(errno));
	if (in)
		madvise(in, size, MADV_SEQUENTIAL);
	struct gz_text t;
	struct gz_split sp;
	memset(&sp, 0, sizeof(sp));
	struct gz_second *h = NULL;
	int rc = -1, joined = 0;
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
		if (t.eof || r->state == TOP_DONE)
			break;
		if (gz_keep_tail(&t, r, used) != 0)
			goto out;
	}
	if (h && !joined) { /* alone from here: the second thread's work goes */
		gz_split_end(h, 1);
		h = NULL;
		if (opts->extra_sink->discard)
			opts->extra_sink->discard(opts->extra_sink->ctx);
	}
	if (!joined && !(t.eof || r->state == TOP_DONE) && gz_parse_rest(r, &t, from, opts, size, NULL) != 0)
		goto out;
	if (res)
		res->input_bytes = t.inflated;
	if (t.zcut) {
		char msg[160];
		/* a cut stream took all of its input */
		snprintf(msg, sizeof(msg), "gzip stream cut short after %llu compressed bytes",
		         (unsigned long long)size);
		if (event_conv_warn(&r->conv, msg, r->err) != 0)
			goto out;
	}
	rc = finish(r, r->state == TOP_DONE, res);
out:
	if (h)
		gz_split_end(h, 1);
	gz_text_done(&t);
	if (in)
		munmap(in, size);
	return rc;
}

int tix_parse_trace(const char *path, const struct tix_sink *sink,
                    const struct tix_parse_opts *opts, struct tix_parse_result *result,
                    struct tix_error *err)
{
	struct reader r;
	memset(&r, 0, sizeof(r));
	if (result)
		memset(result, 0, sizeof(*result));

	/* O_NONBLOCK: opening a FIFO must not wait for a writer */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return tix_error_errno(err, errno, "%s", path);
	struct stat st;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return tix_error_errno(err, errno, "%s", path);
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return tix_error_set(err, "%s: is a directory, not a trace", path);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return tix_error_set(err, "%s: not a regular file (a pipe or device): save the trace to a file first", path);
	}
	size_t size = (size_t)st.st_size;
	unsigned char magic[2] = {0, 0};
	if (size >= 2 && pread(fd, magic, 2, 0) != 2) {
		close(fd);
		return tix_error_errno(err, errno, "%s", path);
	}
	if (reader_init(&r, path, sink, err) != 0) {
		reader_done(&r);
		close(fd);
		return tix_error_env(err, "%s: out of memory", path);
	}
	r.gzip = magic[0] == 0x1f && magic[1] == 0x8b;
	int rc = r.gzip ? parse_gzip(&r, fd, size, opts, result) : parse_mapped(&r, fd, size, opts, result);
	reader_done(&r);
	close(fd);
	return rc;
}
