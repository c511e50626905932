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
 * parsed by two threads too (gzip.c: "two threads over one gzip stream").
 * Memory: one window buffer per gzip thread, simdjson's buffers for one
 * window per thread, whatever the file size.  Those are sized by the first
 * window and never grown: later windows are cut to fit them (windows.c,
 * window_room), as growing frees them and first-touches bigger ones.
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
#include <math.h>
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

int parse_finish(struct reader *r, int eof_state_ok, struct tix_parse_result *res)
{
	if (parse_warn_malformed(r) != 0)
		return -1;
	/* a gzip stream cut short: where, in both counts, and what came of it */
	char cut[160] = "";
	if (r->gz_cut_at)
		snprintf(cut, sizeof cut, "gzip stream cut short after %llu compressed bytes (%llu bytes of JSON inflated)",
		         (unsigned long long)r->gz_cut_at, (unsigned long long)r->gz_inflated);
	if (!eof_state_ok) {
		if (r->state == TOP_START) {
			if (cut[0])
				return tix_error_set(r->err, "%s: %s, before any JSON", r->path, cut);
			tix_error_set(r->err, "%s: empty file: no JSON in it", r->path);
			return -1;
		}
		if (r->state == TOP_KEY && r->conv.events == 0) {
			if (cut[0])
				return tix_error_set(r->err, "%s: %s, before any \"traceEvents\" array", r->path, cut);
			tix_error_set(r->err, "%s: byte %llu: the file ends before any \"traceEvents\" array", r->path,
			              (unsigned long long)r->base);
			return -1;
		}
		if (r->state == TOP_EVENTS) {
			r->truncated = 1;
			char msg[400];
			snprintf(msg, sizeof(msg),
			         "%s%strace truncated (it ends inside an event, or before traceEvents closes): "
			         "indexed the %llu whole events before byte %llu%s",
			         cut, cut[0] ? ": " : "", (unsigned long long)r->conv.events,
			         (unsigned long long)r->salvaged_to, r->gzip ? " (of the inflated JSON)" : "");
			if (event_conv_warn(&r->conv, msg, r->err) != 0)
				return -1;
			cut[0] = 0; /* said */
		}
	}
	if (cut[0]) { /* the JSON ended whole before the cut: nothing of it lost */
		char msg[300];
		snprintf(msg, sizeof msg, "%s, after the trace's JSON ended: its checksum missing, every event kept", cut);
		if (event_conv_warn(&r->conv, msg, r->err) != 0)
			return -1;
	}
	if (event_conv_finish(&r->conv, r->err) != 0)
		return -1;
	if (res) {
		res->events = r->conv.events;
		res->truncated = r->truncated;
		res->salvaged_to = r->salvaged_to;
		res->malformed = r->bad_events;
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
 * first goes on alone.
 *
 * The cut moved once: the cut is put where the sampled cost is half
 * (balanced_middle), but what an event costs varies with its kind and its
 * args more than a sample can say (the generator's traces: the first half
 * took 1.4x the second's time at 2-8 GB), and the thread done first idles.
 * So on a large share (RECUT_MIN windows or more) the second thread first
 * parses a probe (a 32nd of its share, or more until the first thread has
 * done 16 windows meanwhile) and times both threads over it, after a few
 * windows of start-up.  When one would end later than the other by more
 * than RECUT_SLACK, it moves the cut RECUT_SHARE of the way to where both
 * would end at once (the bytes that change hands costing what they cost
 * the thread whose share they were in), throws the probe's events away
 * (the sink's discard, as after a wrong guess) and starts again at the new
 * cut.  The first thread parses in segments of SEGMENT_WINDOWS windows and
 * between two takes a cut that moved: one earlier ends its half there, one
 * later it goes on to from the old cut.  It says before each segment how
 * far that one goes, and the cut moves earlier only past that, under one
 * mutex, so neither thread ever parses the other's events.  Once only; the
 * index is the same whatever the cut (scripts/same_index.sh, rel_recut). */
#define RECUT_MIN 512
#define RECUT_SLACK 0.05
#define RECUT_SHARE 0.75
#define SEGMENT_WINDOWS 8

enum cut_state { CUT_OPEN, CUT_KEPT, CUT_MOVED };

struct second_half {
	struct reader r;
	char *b;
	size_t start, size;
	size_t used;
	struct tix_error err;
	const struct tix_parse_opts *opts;
	struct timespec done_at;
	int stop; /* set by the first thread when its half is done: the sink's idle() returns */
	size_t q0, end_a;          /* the first thread's events: from q0 to end_a, at the start */
	struct shared_progress progress, *share; /* share: &progress, for both readers */
	const struct reader *first; /* its settings, for a restart */
	pthread_mutex_t mu;        /* the cut, between the threads: */
	enum cut_state state;
	size_t committed;          /* the first thread parses up to here before it looks again */
	size_t new_cut;            /* CUT_MOVED: the ',' the second half now starts after */
};

static double since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The second thread's reader, as the first's settings make it; 0 or -1. */
static int second_reader(struct second_half *h)
{
	struct reader *r = &h->r;
	if (parse_reader_init(r, h->first->path, 0, h->opts->extra_sink, h->opts, &h->err) != 0)
		return -1;
	r->state = TOP_EVENTS;
	r->array_format = h->first->array_format;
	r->strict = h->first->strict;
	r->is_second = 1;
	r->share = h->share;
	r->conv.keep_orphan_ends = 1;
	return 0;
}

/* A cut at the first event boundary from byte c, or 0 where none may be:
 * too near the end, or later than the old cut but inside the probe (xb:
 * where the probe ended), which the new start must skip. */
static size_t cut_near(const struct second_half *h, size_t c, size_t xb)
{
	size_t w = h->r.window;
	if (c + 2 * w > h->size || (c > h->start && c < xb + w))
		return 0;
	return parse_guess_cut(h->b, c, c + w);
}

/* After the probe: the first thread went from ya to yb and this one from
 * xa to xb in dt seconds.  Where the cut should be for both to end at
 * once, or 0 to keep it. */
static size_t recut_at(const struct second_half *h, uint64_t ya, uint64_t yb, size_t xa, size_t xb, double dt)
{
	if (dt <= 0 || ya == 0 || yb <= ya || xb <= xa || yb >= h->end_a)
		return 0;
	double r1 = (double)(yb - ya) / dt, r2 = (double)(xb - xa) / dt; /* bytes a second */
	double left1 = (double)(h->end_a - yb) / r1, left2 = (double)(h->size - xb) / r2;
	if (fabs(left1 - left2) <= RECUT_SLACK * (left1 + left2) / 2)
		return 0;
	/* The bytes that change hands cost what they cost the thread whose
	 * share they were in; the second thread starts again at c:
	 *   earlier: (c - yb) / r1 = (cut - c) / r1 + (size - cut) / r2
	 *   later:   (cut - yb) / r1 + (c - cut) / r2 = (size - c) / r2 */
	double cut = (double)(h->start - 1), y = (double)yb, size = (double)h->size;
	double at = left1 > left2 ? (y + cut + r1 * (size - cut) / r2) / 2 : (size + cut - r2 * (cut - y) / r1) / 2;
	/* Three quarters of the way: the rates come from a 32nd of the share,
	 * and a cut moved too far costs as much as one not moved */
	at = cut + RECUT_SHARE * (at - cut);
	if (at <= y)
		return 0;
	return cut_near(h, (size_t)at, xb);
}

/* Moves the cut to c unless the first thread may be past it, or has closed
 * it; 1 when it moved. */
static int move_cut(struct second_half *h, size_t c)
{
	pthread_mutex_lock(&h->mu);
	int ok = h->state == CUT_OPEN && (c > h->start || c > h->committed + 2 * (size_t)h->r.window);
	if (ok) {
		h->state = CUT_MOVED;
		h->new_cut = c;
	}
	pthread_mutex_unlock(&h->mu);
	return ok;
}

/* The second half's events from b[*p] (just past the cut's ','): its first
 * event on its own, so that it never patches the bytes at the cut, which
 * the first thread patches.  -1 on an error, 1 when the array closed
 * there, else 0. */
static int second_start(struct second_half *h, size_t *p)
{
	struct reader *r = &h->r;
	int closed = 0, failed = 0;
	if (parse_walk_events(r, h->b, p, h->size, *p + 1, 1, &closed, &failed) == SCAN_BAD)
		return -1;
	if (closed) {
		r->state = r->array_format ? TOP_DONE : TOP_AFTER_EVENTS;
		r->expect_comma = 1;
	}
	return closed;
}

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
	int st = second_start(h, &p);
	size_t w = r->window, share = h->size - h->start;
	size_t recut_min = h->opts->recut_min ? h->opts->recut_min : RECUT_MIN;
	if (st == 0 && share >= recut_min * w) {
		/* a few windows of start-up (simdjson's buffers, the first
		 * pages of the spills), then the probe, timed */
		size_t q = p;
		uint64_t ya = 0;
		for (int k = 0; k < 8 && q != (size_t)-1 && !ya; k++) { /* until the first has a window done */
			q = parse_consume(r, h->b, q, h->size - q > 4 * w ? q + 4 * w : h->size, 0, h->opts, h->size);
			ya = atomic_load_explicit(&h->share->first_at, memory_order_relaxed);
		}
		size_t xa = q;
		struct timespec ta;
		clock_gettime(CLOCK_MONOTONIC, &ta);
		/* a 32nd of the share, and 16 windows of the first thread's (its
		 * progress is known a window at a time); an 8th at most */
		uint64_t yb = ya;
		while (q != (size_t)-1 && r->state == TOP_EVENTS && q - xa < share / 8 &&
		       (q - xa < share / 32 || yb < ya + 16 * (uint64_t)w)) {
			size_t was = q; /* an event longer than the step: no progress, no probe */
			q = parse_consume(r, h->b, q, h->size - q > 4 * w ? q + 4 * w : h->size, 0, h->opts, h->size);
			yb = atomic_load_explicit(&h->share->first_at, memory_order_relaxed);
			if (q == was)
				break;
		}
		double dt = since(&ta);
		if (q == (size_t)-1)
			st = -1;
		else
			p = q;
		/* the tests' TIX_RECUT_TO puts the cut where they say, whatever
		 * the threads' speeds (a loaded machine blurs them) */
		size_t cut = st != 0 || r->state != TOP_EVENTS ? 0
		             : h->opts->recut_to > 0 ? cut_near(h, (size_t)(h->opts->recut_to * (double)h->size), q)
		                                     : recut_at(h, ya, yb, xa, q, dt);
		if (cut && move_cut(h, cut)) {
			if (h->opts->extra_sink->discard)
				h->opts->extra_sink->discard(h->opts->extra_sink->ctx);
			parse_reader_done(r);
			st = second_reader(h);
			atomic_store(&h->share->second_done, 0);
			atomic_store(&h->share->first_start, cut + 1);
			p = cut + 1;
			if (st == 0)
				st = second_start(h, &p);
		}
	}
	if (st < 0) {
		bus_jump = NULL;
		h->used = (size_t)-1;
		return NULL;
	}
	h->used = p >= h->size ? p : parse_consume(r, h->b, p, h->size, 1, h->opts, h->size);
	bus_jump = NULL;
	clock_gettime(CLOCK_MONOTONIC, &h->done_at);
	/* simdjson's buffers (~46 MB) are freed here, while the first thread
	 * still parses, not after the join on the build's path */
	shim_free(r->shim);
	r->shim = NULL;
	if (h->used != (size_t)-1 && h->opts->extra_sink->idle)
		h->opts->extra_sink->idle(h->opts->extra_sink->ctx, &h->stop);
	return NULL;
}

int parse_reader_init(struct reader *r, const char *path, int gzip, const struct tix_sink *sink,
                      const struct tix_parse_opts *opts, struct tix_error *err)
{
	r->path = path;
	r->err = err;
	r->gzip = gzip;
	r->window = opts && opts->window >= 256 ? opts->window /* tests use small windows */
	          : gzip                        ? GZIP_WINDOW
	                                        : WINDOW;
	r->reach = opts && opts->window >= 256 ? opts->window : SCAN_REACH;
	r->timing = opts && opts->timing;
	r->inflate_zlib = opts && opts->inflate_zlib;
	r->shim = shim_new();
	if (!r->shim || event_conv_init(&r->conv, path, sink) != 0)
		return -1;
	return 0;
}

void parse_reader_done(struct reader *r)
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
	if (!h)
		return 0;
	h->b = b;
	h->start = cut + 1;
	h->size = size;
	h->opts = opts;
	h->share = &h->progress;
	atomic_store(&h->progress.first_start, cut + 1);
	h->first = r;
	h->q0 = q;
	h->end_a = end_a;
	pthread_mutex_init(&h->mu, NULL);
	pthread_t th;
	if (second_reader(h) != 0 || pthread_create(&th, NULL, run_second, h) != 0) {
		parse_reader_done(&h->r);
		pthread_mutex_destroy(&h->mu);
		free(h);
		return 0;
	}
	r->share = h->share;

	/* The first half, as if the file ended at the cut. */
	size_t pa = q;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r->at_cut = 1; /* the data ends at the cut, the trace does not */
	size_t old_cut = cut, seg = (size_t)SEGMENT_WINDOWS * r->window;
	enum scan s;
	for (;;) { /* a segment at a time, taking a cut that moved between two */
		pthread_mutex_lock(&h->mu);
		if (h->state == CUT_MOVED && cut == old_cut) {
			if (h->new_cut > cut) /* later: on from the old cut, when there */
				pa = pa == end_a ? cut + 1 : pa;
			cut = h->new_cut;
			end_a = cut;
			while (b[end_a - 1] != '}')
				end_a--;
		}
		size_t upto = end_a - pa > seg + 2 * (size_t)r->window ? pa + seg : end_a;
		h->committed = upto;
		pthread_mutex_unlock(&h->mu);
		size_t was = pa;
		s = parse_take_events(r, b, &pa, upto, upto == end_a, opts, size);
		if (s != SCAN_MORE || r->truncated || (upto == end_a && pa != end_a))
			break; /* an error, or a wrong guess: the join says */
		if (upto < end_a) {
			if (pa == was) /* an event longer than the segment: the rest at once */
				seg = end_a - pa;
			continue;
		}
		pthread_mutex_lock(&h->mu); /* at the end: closed, unless it moved later meanwhile */
		int later = h->state == CUT_MOVED && cut == old_cut;
		if (h->state == CUT_OPEN)
			h->state = CUT_KEPT;
		pthread_mutex_unlock(&h->mu);
		if (!later)
			break;
	}
	r->at_cut = 0;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	__atomic_store_n(&h->stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	if (r->timing) /* is the cut in the middle of the work? */
		fprintf(stderr, "tix: timing: first half %.3f s, second half %.3f s\n",
		        (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
		        (h->done_at.tv_sec - t0.tv_sec) + (h->done_at.tv_nsec - t0.tv_nsec) / 1e9);
	if (r->timing && cut != old_cut)
		fprintf(stderr, "tix: timing: the cut moved from %.1f%% to %.1f%% of the events' bytes\n",
		        100.0 * (double)(old_cut - q) / (double)(size - q), 100.0 * (double)(cut - q) / (double)(size - q));
	if (r->timing) /* each growth frees simdjson's buffers and touches new ones */
		fprintf(stderr, "tix: timing: simdjson's buffers grew %u times (first half), %u (second half)\n",
		        r->shim_grew, h->r.shim_grew);
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
			parse_adopt_malformed(r, &h->r);
			r->state = h->r.state;
			if (h->r.salvaged_to) /* the second half took a whole event */
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
	parse_reader_done(&h->r);
	pthread_mutex_destroy(&h->mu);
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
	int rc = parse_finish(r, r->state == TOP_DONE, res);
	if (rc == 0 && r->state == TOP_DONE) {
		size_t rest = parse_skip_ws(b, used, size);
		if (rest < size && b[rest] != '\0')
			rc = event_conv_warn(&r->conv, "ignored trailing bytes after the trace's JSON", r->err);
	}
	return rc;
}

/* The trace's mapping and the parser, released beside the caller:
 * dropping the page table of a 480 MB file and freeing simdjson's touched
 * buffers take ~35 ms that the build need not wait for.  At once when no
 * thread starts.  The finish's faults go on meanwhile, but its own mmap,
 * munmap and mremap take the map's lock for writing, and one munmap holds
 * it for reading while it zaps the whole file: the first of them (the
 * collectors' staging buffers freed, their spills mapped) waited 10-12 ms.
 * So the pages are dropped UNMAP_STEP at a time first (MADV_DONTNEED, the
 * lock taken for each step), and the munmap after has no page left to zap
 * (docs/PERFORMANCE.md, "Round 11"). */
struct unmapping {
	void *p;
	size_t len;
	struct shim_parser *shim;
};

#define UNMAP_STEP (8u << 20)

static void *unmap_area(void *arg)
{
	struct unmapping *u = arg;
	for (size_t off = 0; off < u->len; off += UNMAP_STEP)
		madvise((char *)u->p + off, u->len - off < UNMAP_STEP ? u->len - off : UNMAP_STEP, MADV_DONTNEED);
	munmap(u->p, u->len);
	shim_free(u->shim);
	free(u);
	return NULL;
}

static void release_soon(void *p, size_t len, struct shim_parser *shim)
{
	struct unmapping *u = malloc(sizeof(*u));
	pthread_attr_t at;
	int started = 0;
	if (u && pthread_attr_init(&at) == 0) {
		*u = (struct unmapping){p, len, shim};
		pthread_t th;
		sigset_t all, old; /* signals stay with the threads that parse (it only frees) */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		started = pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED) == 0 &&
		          pthread_create(&th, &at, unmap_area, u) == 0;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		pthread_attr_destroy(&at);
	}
	if (!started) {
		free(u);
		munmap(p, len);
		shim_free(shim);
	}
}

static int parse_mapped(struct reader *r, int fd, size_t size, const struct tix_parse_opts *opts,
                        struct tix_parse_result *res)
{
	size_t maplen;
	char *b = map_padded(fd, size, &maplen);
	if (!b)
		return tix_error_errno(r->err, errno, "%s: cannot map the file", r->path);
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
	release_soon(b, maplen, r->shim);
	r->shim = NULL;
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
	if (parse_reader_init(&r, path, magic[0] == 0x1f && magic[1] == 0x8b, sink, opts, err) != 0) {
		parse_reader_done(&r);
		close(fd);
		return tix_error_oom(err, path);
	}
	r.strict = opts && opts->strict;
	int rc = r.gzip ? parse_gzip(&r, fd, size, opts, result) : parse_mapped(&r, fd, size, opts, result);
	parse_reader_done(&r);
	close(fd);
	return rc;
}
