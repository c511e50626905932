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
 * byte offsets for errors.  Gzip input is inflated into one reused buffer
 * and goes through the same windows.  Memory: one window buffer for gzip,
 * simdjson's buffers for one window, whatever the file size.
 *
 * Known limits:
 * - Invalid UTF-8 inside an event is replaced, byte for byte, by '?', and
 *   raw control characters inside strings by ' ' (the event is kept).
 * - Events with no usable "ph" or "ts" (missing, wrong type, out of the
 *   int64 nanosecond range) are skipped and counted in a warning.
 * - Async ("b"/"e"/"n"), sample, object and mark events are skipped.
 * - "B"/"E" pairs are matched per thread, innermost first; a "B" with no
 *   "E" becomes an event of zero duration.
 * - A top-level value before traceEvents must fit in the gzip window
 *   buffer, which grows to hold it.
 */
#include "parse/parse.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "parse/events.h"
#include "parse/json_shim.h"

#define WINDOW (8u << 20)

enum top_state { TOP_START, TOP_KEY, TOP_EVENTS, TOP_AFTER_EVENTS, TOP_DONE };

struct reader {
	const char *path;
	int gzip;
	struct shim_parser *shim;
	struct event_conv conv;
	struct tix_error *err;
	enum top_state state;
	int array_format;
	int expect_comma;      /* in the top-level object */
	uint64_t base;         /* offset in the JSON text of buf[0] */
	uint64_t salvaged_to;
	int truncated;
	size_t window;
	const char *last_start; /* of the last event taken */
	int is_second;          /* the second thread of a split parse */
	int stop_at_events;     /* consume() returns where the events begin */
	struct shared_progress *share;
};

enum scan { SCAN_OK, SCAN_MORE, SCAN_BAD, SCAN_DEEP };

#define MAX_NESTING 4096 /* the careful scanner's limit (simdjson's is 1024) */

/* Progress of the second thread, read by the first when it reports. */
struct shared_progress {
	_Atomic uint64_t second_done; /* bytes the second thread has taken */
	uint64_t first_start;
};

static void report(struct reader *r, const struct tix_parse_opts *opts, uint64_t pos,
                   uint64_t total)
{
	if (!opts || !opts->progress || r->gzip || r->is_second)
		return;
	uint64_t done = pos;
	if (r->share)
		done = pos + atomic_load(&r->share->second_done);
	opts->progress(opts->progress_ctx, done > total ? total : done, total);
}

static size_t skip_ws(const char *b, size_t p, size_t n)
{
	while (p < n && (b[p] == ' ' || b[p] == '\n' || b[p] == '\r' || b[p] == '\t'))
		p++;
	return p;
}

/* b[p] is '"': sets *end past the closing quote. */
static enum scan scan_string(const char *b, size_t p, size_t n, size_t *end)
{
	for (p++; p < n;) {
		const char *q = memchr(b + p, '"', n - p);
		if (!q)
			return SCAN_MORE;
		size_t k = (size_t)(q - b), bs = 0;
		while (k - bs > p && b[k - bs - 1] == '\\')
			bs++;
		if (bs % 2 == 0) {
			*end = k + 1;
			return SCAN_OK;
		}
		p = k + 1;
	}
	return SCAN_MORE;
}

/* Any JSON value from b[p]: sets *end past it.  Checks nesting and strings,
 * not the grammar of numbers and literals (simdjson does that). */
static enum scan scan_value(const char *b, size_t p, size_t n, size_t *end, size_t *bad_at)
{
	uint8_t stack[MAX_NESTING / 8]; /* one bit a level: 1 for '{' */
	int depth = 0;
	p = skip_ws(b, p, n);
	if (p >= n)
		return SCAN_MORE;
	for (;;) {
		if (p >= n)
			return SCAN_MORE;
		char c = b[p];
		if (c == '"') {
			enum scan s = scan_string(b, p, n, &p);
			if (s != SCAN_OK)
				return s;
		} else if (c == '{' || c == '[') {
			if (depth == MAX_NESTING) {
				*bad_at = p;
				return SCAN_DEEP;
			}
			if (c == '{')
				stack[depth / 8] |= (uint8_t)(1u << (depth % 8));
			else
				stack[depth / 8] &= (uint8_t)~(1u << (depth % 8));
			depth++;
			p++;
		} else if (c == '}' || c == ']') {
			int is_obj = depth > 0 && (stack[(depth - 1) / 8] >> ((depth - 1) % 8)) & 1;
			if (depth == 0 || is_obj != (c == '}')) {
				*bad_at = p;
				return SCAN_BAD;
			}
			depth--;
			p++;
		} else {
			p++;
			if (depth == 0) { /* a scalar: runs to a delimiter */
				while (p < n && !strchr(",}] \t\r\n", b[p]))
					p++;
				if (p >= n)
					return SCAN_MORE;
			}
		}
		if (depth == 0) {
			*end = p;
			return SCAN_OK;
		}
	}
}

/* A byte as a message shows it: 'x', or byte 0x1b when not printable. */
static const char *show_byte(char c, char buf[16])
{
	unsigned char u = (unsigned char)c;
	if (u >= 0x20 && u < 0x7f && u != '\'')
		snprintf(buf, 16, "'%c'", c);
	else
		snprintf(buf, 16, "byte 0x%02x", u);
	return buf;
}

static int shim_error(struct reader *r, size_t at, const char *msg, uint64_t event_at)
{
	return tix_error_set(r->err, "%s: byte %llu%s: invalid JSON in the event at byte %llu: %s",
	                     r->path, (unsigned long long)(r->base + at),
	                     r->gzip ? " (of the inflated JSON)" : "",
	                     (unsigned long long)(r->base + event_at), msg);
}

static int on_event(void *ctx, const struct shim_event *ev)
{
	struct reader *r = ctx;
	r->last_start = ev->start;
	return event_conv_take(&r->conv, ev, r->err) == 0 ? 0 : 2;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The code unit of a "\uXXXX" escape at p (p[0] == '\\'), or -1. */
static int u_escape(const unsigned char *p, const unsigned char *end)
{
	if (end - p < 6 || p[0] != '\\' || p[1] != 'u')
		return -1;
	int v = 0;
	for (int k = 2; k < 6; k++) {
		int h = hexval((char)p[k]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

/* Makes an event that simdjson refused acceptable, in place and byte for
 * byte (so offsets stay true): invalid UTF-8 -> '?', raw control
 * characters inside strings -> ' ', lone UTF-16 surrogate escapes ->
 * "\uFFFD". */
static void sanitize(char *b, size_t n)
{
	unsigned char *p = (unsigned char *)b, *end = p + n;
	int in_string = 0;
	while (p < end) {
		unsigned char c = *p;
		if (c == '"') {
			in_string = !in_string;
			p++;
		} else if (in_string && c == '\\') {
			int u = u_escape(p, end);
			if (u >= 0xD800 && u <= 0xDBFF) {
				int lo = u_escape(p + 6, end);
				if (lo >= 0xDC00 && lo <= 0xDFFF) {
					p += 12; /* a proper pair */
					continue;
				}
			}
			if (u >= 0xD800 && u <= 0xDFFF) {
				memcpy(p, "\\uFFFD", 6);
				p += 6;
			} else {
				p += p + 1 < end ? 2 : 1; /* the escaped byte is not a quote */
			}
		} else if (c < 0x20) {
			if (in_string)
				*p = ' ';
			p++;
		} else if (c < 0x80) {
			p++;
		} else {
			int len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
			int ok = len && end - p >= len;
			for (int k = 1; ok && k < len; k++)
				ok = (p[k] & 0xC0) == 0x80;
			if (ok && len == 3 && c == 0xE0 && p[1] < 0xA0)
				ok = 0; /* overlong */
			if (ok && len == 3 && c == 0xED && p[1] >= 0xA0)
				ok = 0; /* surrogate */
			if (ok && len == 4 && ((c == 0xF0 && p[1] < 0x90) || (c == 0xF4 && p[1] >= 0x90)))
				ok = 0;
			if (ok) {
				p += len;
			} else {
				*p++ = '?';
			}
		}
	}
}

/* One event b[s..e) on its own; the slow path. */
static int parse_one(struct reader *r, char *b, size_t s, size_t e)
{
	size_t at;
	const char *msg;
	int rc = shim_parse_one(r->shim, b + s, e - s, on_event, r, &at, &msg);
	if (rc == -1) {
		sanitize(b + s, e - s);
		rc = shim_parse_one(r->shim, b + s, e - s, on_event, r, &at, &msg);
		if (rc == -1 && strstr(msg, "too deep")) {
			r->conv.skipped++; /* valid JSON nested past simdjson's 1024 levels */
			return 0;
		}
		if (rc == -1)
			return shim_error(r, s + at, msg, s);
	}
	return rc ? -1 : 0;
}

/* Parses the whole events b[s..e) (e just past a '}') as one array.  The
 * bytes at s-1 and e are patched and restored.  Returns 0 when all were
 * taken, -1 on a sink error, 1 when simdjson failed: then *resume is where
 * the events not yet taken begin (for the careful walk). */
static int parse_run(struct reader *r, char *b, size_t s, size_t e, size_t *resume)
{
	/* The byte before the first event; on the gzip path s may be 0 (the
	 * buffer keeps a spare byte before b), so step back from b + s. */
	char *open = (b + s) - 1;
	char before = *open, after = b[e];
	*open = '[';
	b[e] = ']';
	size_t at;
	const char *msg;
	uint64_t count = r->conv.events;
	r->last_start = NULL;
	int rc = shim_parse_events(r->shim, open, e - s + 2, on_event, r, &at, &msg);
	*open = before;
	b[e] = after;
	if (rc == 0)
		return 0;
	if (rc != -1)
		return -1; /* the sink failed; err is set */
	*resume = s;
	if (r->conv.events != count && r->last_start) {
		/* Events before the failure were taken: go on after the last. */
		size_t ls = (size_t)(r->last_start - b), end, bad;
		if (ls >= s && ls < e && scan_value(b, ls, e, &end, &bad) == SCAN_OK) {
			end = skip_ws(b, end, e + 1);
			*resume = end < e + 1 && b[end] == ',' ? end + 1 : end;
		} else {
			return shim_error(r, (size_t)(open - b) + at, msg, s);
		}
	}
	return 1;
}

/* The careful walk of events from b[*p], at most up to limit: every event
 * is scanned for its end and parsed alone.  Stops after the array's ']'
 * (sets *closed), at limit, or where the data ends. */
static enum scan walk_events(struct reader *r, char *b, size_t *p, size_t n, size_t limit,
                             int eof, int *closed, int *failed)
{
	size_t q = *p;
	*failed = 0;
	while (q < limit) {
		q = skip_ws(b, q, n);
		if (q >= n)
			return SCAN_MORE;
		if (b[q] == ']') {
			*closed = 1;
			*p = q + 1;
			return SCAN_OK;
		}
		if (b[q] != '{') {
			char sb[16];
			tix_error_set(r->err, "%s: byte %llu%s: expected '{' to start an event, found %s",
			              r->path, (unsigned long long)(r->base + q),
			              r->gzip ? " (of the inflated JSON)" : "", show_byte(b[q], sb));
			*failed = 1;
			return SCAN_BAD;
		}
		size_t e, bad;
		enum scan s = scan_value(b, q, n, &e, &bad);
		if (s == SCAN_MORE) {
			*p = q;
			return SCAN_MORE;
		}
		if (s == SCAN_BAD || s == SCAN_DEEP) {
			if (s == SCAN_DEEP)
				tix_error_set(r->err, "%s: byte %llu%s: the event at byte %llu nests deeper than %d levels",
				              r->path, (unsigned long long)(r->base + bad),
				              r->gzip ? " (of the inflated JSON)" : "",
				              (unsigned long long)(r->base + q), MAX_NESTING);
			else
				tix_error_set(r->err, "%s: byte %llu%s: unbalanced '%c' in the event at byte %llu",
				              r->path, (unsigned long long)(r->base + bad),
				              r->gzip ? " (of the inflated JSON)" : "", b[bad],
				              (unsigned long long)(r->base + q));
			*failed = 1;
			return SCAN_BAD;
		}
		if (parse_one(r, b, q, e) != 0) {
			*failed = 1;
			return SCAN_BAD;
		}
		r->salvaged_to = r->base + e;
		size_t after = skip_ws(b, e, n);
		if (after >= n) {
			*p = e;
			return SCAN_MORE;
		}
		if (b[after] == ',') {
			q = after + 1;
		} else if (b[after] == ']') {
			*closed = 1;
			*p = after + 1;
			return SCAN_OK;
		} else {
			char sb[16];
			tix_error_set(r->err, "%s: byte %llu%s: expected ',' or ']' after an event, found %s",
			              r->path, (unsigned long long)(r->base + after),
			              r->gzip ? " (of the inflated JSON)" : "", show_byte(b[after], sb));
			*failed = 1;
			return SCAN_BAD;
		}
		*p = q;
	}
	(void)eof;
	*p = q;
	return SCAN_OK;
}

/* A cheap guess at an event boundary before b[limit]: a ',' between a '}'
 * and a '{'.  Returns the ',' position or 0. */
static size_t guess_cut(const char *b, size_t from, size_t limit)
{
	size_t hi = limit;
	while (hi > from) {
		const char *c = memrchr(b + from, ',', hi - from);
		if (!c)
			return 0;
		size_t k = (size_t)(c - b);
		size_t l = k, rr = k + 1;
		while (l > from && (b[l - 1] == ' ' || b[l - 1] == '\n' || b[l - 1] == '\r' || b[l - 1] == '\t'))
			l--;
		while (rr < limit && (b[rr] == ' ' || b[rr] == '\n' || b[rr] == '\r' || b[rr] == '\t'))
			rr++;
		if (l > from && b[l - 1] == '}' && rr < limit && b[rr] == '{')
			return k;
		hi = k;
	}
	return 0;
}

/* Events from b[*p] on.  Returns SCAN_OK when the array closed (then *p is
 * past its ']'), SCAN_MORE when more data is needed (or, at eof, the trace
 * was cut), SCAN_BAD on an error. */
static enum scan take_events(struct reader *r, char *b, size_t *p, size_t n, int eof,
                             const struct tix_parse_opts *opts, uint64_t total)
{
	for (;;) {
		size_t q = skip_ws(b, *p, n);
		if (q < n && b[q] == ']') {
			*p = q + 1;
			return SCAN_OK;
		}
		if (n - q > r->window + r->window / 4) {
			size_t cut = guess_cut(b, q + r->window / 2, q + r->window);
			if (cut) {
				size_t end = cut; /* just past the '}' */
				while (b[end - 1] != '}')
					end--;
				size_t resume;
				int rc = parse_run(r, b, q, end, &resume);
				if (rc < 0)
					return SCAN_BAD;
				if (rc == 0) {
					r->salvaged_to = r->base + end;
					*p = cut + 1;
					report(r, opts, r->base + *p, total);
					if (r->is_second && r->share)
						atomic_store(&r->share->second_done, *p - r->share->first_start);
					continue;
				}
				q = resume;
			}
			int closed = 0, failed = 0;
			*p = q;
			enum scan s = walk_events(r, b, p, n, q + r->window, eof, &closed, &failed);
			if (s != SCAN_OK || closed)
				return s;
			continue;
		}
		if (!eof) {
			*p = q;
			return SCAN_MORE;
		}
		/* The last window: most of it goes through the fast path up to
		 * its last guessed boundary; the careful scan then only has the
		 * last event and the array's end to find. */
		size_t tail_cut = guess_cut(b, q, n);
		if (tail_cut) {
			size_t end = tail_cut, resume;
			while (b[end - 1] != '}')
				end--;
			int rc = parse_run(r, b, q, end, &resume);
			if (rc < 0)
				return SCAN_BAD;
			if (rc == 0) {
				r->salvaged_to = r->base + end;
				q = tail_cut + 1;
			} else {
				q = resume;
			}
		}
		size_t e = q, last_end = 0;
		int closed = 0;
		for (;;) {
			e = skip_ws(b, e, n);
			if (e >= n || b[e] == ']') {
				closed = e < n;
				break;
			}
			if (b[e] != '{')
				break;
			size_t ve, bad;
			if (scan_value(b, e, n, &ve, &bad) != SCAN_OK)
				break;
			last_end = ve;
			e = skip_ws(b, ve, n);
			if (e < n && b[e] == ',')
				e++;
			else
				break;
		}
		if (last_end) {
			size_t resume;
			int rc = parse_run(r, b, q, last_end, &resume);
			if (rc < 0)
				return SCAN_BAD;
			if (rc == 0) {
				r->salvaged_to = r->base + last_end;
				q = skip_ws(b, last_end, n);
				if (q < n && b[q] == ',')
					q++;
			} else {
				q = resume;
			}
		}
		int failed = 0;
		closed = 0;
		*p = q;
		enum scan s = walk_events(r, b, p, n, n, eof, &closed, &failed);
		if (s == SCAN_OK && !closed)
			s = SCAN_MORE;
		return s;
	}
}

/* Top-level structure: {"key": value, ..., "traceEvents": [...], ...} or a
 * bare [...].  Consumes what it can of b[0..n) and returns the offset of
 * the first byte not consumed, or (size_t)-1 on error. */
static size_t consume(struct reader *r, char *b, size_t start, size_t n, int eof,
                      const struct tix_parse_opts *opts, uint64_t total)
{
	size_t p = start;
	for (;;) {
		p = skip_ws(b, p, n);
		if (r->state == TOP_START && p + 3 <= n && (unsigned char)b[p] == 0xEF &&
		    (unsigned char)b[p + 1] == 0xBB && (unsigned char)b[p + 2] == 0xBF)
			p = skip_ws(b, p + 3, n); /* UTF-8 byte order mark */
		if (r->state == TOP_DONE)
			return n;
		if (r->state == TOP_EVENTS) {
			if (r->stop_at_events)
				return p;
			enum scan s = take_events(r, b, &p, n, eof, opts, total);
			if (s == SCAN_BAD)
				return (size_t)-1;
			if (s == SCAN_MORE)
				return p;
			r->state = r->array_format ? TOP_DONE : TOP_AFTER_EVENTS;
			r->expect_comma = 1;
			continue;
		}
		if (p >= n)
			return p;
		char c = b[p];
		const char *where = r->gzip ? " (of the inflated JSON)" : "";
		unsigned long long at = (unsigned long long)(r->base + p);
		if (r->state == TOP_START) {
			if (c == '[') {
				r->array_format = 1;
				r->state = TOP_EVENTS;
				p++;
				continue;
			}
			if (c == '{') {
				r->state = TOP_KEY;
				r->expect_comma = 0;
				p++;
				continue;
			}
			char sb[16];
			tix_error_set(r->err, "%s: byte %llu%s: expected '{' or '[' to start a Chrome trace, found %s",
			              r->path, at, where, show_byte(c, sb));
			return (size_t)-1;
		}
		/* TOP_KEY or TOP_AFTER_EVENTS: inside the top-level object */
		if (c == '}') {
			if (r->state == TOP_KEY) {
				tix_error_set(r->err, "%s: no \"traceEvents\" array in this JSON object", r->path);
				return (size_t)-1;
			}
			r->state = TOP_DONE;
			return p + 1;
		}
		if (r->expect_comma) {
			if (c != ',') {
				char sb[16];
				tix_error_set(r->err, "%s: byte %llu%s: expected ',' or '}' in the top-level object, found %s",
				              r->path, at, where, show_byte(c, sb));
				return (size_t)-1;
			}
			r->expect_comma = 0;
			p++;
			continue;
		}
		if (c != '"') {
			char sb[16];
			tix_error_set(r->err, "%s: byte %llu%s: expected a key in the top-level object, found %s",
			              r->path, at, where, show_byte(c, sb));
			return (size_t)-1;
		}
		size_t kend, vstart, vend, bad;
		if (scan_string(b, p, n, &kend) != SCAN_OK)
			return p;
		vstart = skip_ws(b, kend, n);
		if (vstart >= n)
			return p;
		if (b[vstart] != ':') {
			tix_error_set(r->err, "%s: byte %llu%s: expected ':' after a key", r->path,
			              (unsigned long long)(r->base + vstart), where);
			return (size_t)-1;
		}
		vstart = skip_ws(b, vstart + 1, n);
		if (vstart >= n)
			return p;
		struct tix_str key = {b + p + 1, kend - p - 2};
		if (key.len == 11 && memcmp(key.ptr, "traceEvents", 11) == 0) {
			if (b[vstart] != '[') {
				tix_error_set(r->err, "%s: byte %llu%s: \"traceEvents\" is not an array",
				              r->path, (unsigned long long)(r->base + vstart), where);
				return (size_t)-1;
			}
			r->state = TOP_EVENTS;
			p = vstart + 1;
			continue;
		}
		enum scan s = scan_value(b, vstart, n, &vend, &bad);
		if (s == SCAN_MORE)
			return p;
		if (s == SCAN_BAD || s == SCAN_DEEP) {
			tix_error_set(r->err, "%s: byte %llu%s: %s in the value of a top-level key", r->path,
			              (unsigned long long)(r->base + bad), where,
			              s == SCAN_DEEP ? "nesting too deep" : "unbalanced brackets");
			return (size_t)-1;
		}
		struct tix_str val = {b + vstart, vend - vstart};
		if (event_conv_top_key(&r->conv, key, val, r->err) != 0)
			return (size_t)-1;
		r->expect_comma = 1;
		p = vend;
	}
}

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
 * a thread parses a mapped trace, SIGBUS jumps back to its parse, which then
 * fails with one line instead of killing tix. */
static _Thread_local sigjmp_buf *bus_jump;

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
	(void)si;
	(void)ctx;
	if (bus_jump)
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

#define SPLIT_MIN (64u << 20) /* below this one thread is as fast */

struct second_half {
	struct reader r;
	char *b;
	size_t start, size;
	size_t used;
	struct tix_error err;
	const struct tix_parse_opts *opts;
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
	/* Its first event is parsed on its own, so that it never patches the
	 * bytes at the cut, which the first thread patches. */
	int closed = 0, failed = 0;
	enum scan s = walk_events(r, h->b, &p, h->size, p + 1, 1, &closed, &failed);
	if (s == SCAN_BAD) {
		bus_jump = NULL;
		h->used = (size_t)-1;
		return NULL;
	}
	if (closed) {
		r->state = r->array_format ? TOP_DONE : TOP_AFTER_EVENTS;
		r->expect_comma = 1;
	}
	h->used = s == SCAN_MORE && p >= h->size ? p : consume(r, h->b, p, h->size, 1, h->opts, h->size);
	bus_jump = NULL;
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

/* Tries the split; returns 1 when it did the whole file (then *used and
 * the reader's state are final), 0 when the caller should go on alone from
 * *p, -1 on an error. */
static int parse_split(struct reader *r, char *b, size_t *p, size_t size,
                       const struct tix_parse_opts *opts, size_t *used)
{
	size_t q = skip_ws(b, *p, size);
	size_t mid = q + (size - q) / 2;
	size_t cut = guess_cut(b, mid, mid + r->window);
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
	enum scan s = take_events(r, b, &pa, end_a, 1, opts, size);
	pthread_join(th, NULL);
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
	if (opts && opts->extra_sink && size >= SPLIT_MIN) {
		/* The top-level keys before traceEvents, then the split. */
		r->stop_at_events = 1;
		p = consume(r, b, 0, size, 1, opts, size);
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
		used = consume(r, b, p, size, 1, opts, size);
	if (used == (size_t)-1)
		return -1;
	if (opts && opts->progress)
		opts->progress(opts->progress_ctx, size, size);
	if (res)
		res->input_bytes = size;
	int rc = finish(r, r->state == TOP_DONE, res);
	if (rc == 0 && r->state == TOP_DONE) {
		size_t rest = skip_ws(b, used, size);
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
		return tix_error_set(r->err, "%s: cannot map the file: %s", r->path, strerror(errno));
	struct sigaction old_bus;
	catch_sigbus(&old_bus);
	sigjmp_buf jb;
	int rc;
	if (sigsetjmp(jb, 1)) {
		rc = shrank(r);
	} else {
		bus_jump = &jb;
		rc = parse_mapped_in(r, b, size, opts, res);
	}
	bus_jump = NULL;
	sigaction(SIGBUS, &old_bus, NULL);
	munmap(b, maplen);
	return rc;
}

static int parse_gzip(struct reader *r, int fd, size_t size, const struct tix_parse_opts *opts,
                      struct tix_parse_result *res)
{
	unsigned char *in = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
	if (size && in == MAP_FAILED)
		return tix_error_set(r->err, "%s: cannot map the file: %s", r->path, strerror(errno));
	if (in)
		madvise(in, size, MADV_SEQUENTIAL);
	size_t pad = shim_padding();
	size_t cap = 2 * (size_t)r->window + 4096;
	char *buf = malloc(cap + pad);
	z_stream z;
	memset(&z, 0, sizeof(z));
	int rc = -1;
	if (!buf || inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		tix_error_set(r->err, "%s: out of memory", r->path);
		goto out;
	}
	z.next_in = in;
	z.avail_in = (uInt)(size > UINT32_MAX ? UINT32_MAX : size);
	size_t fed = z.avail_in;
	size_t len = 1; /* buf[0] is spare, for the '[' patch of the first window */
	buf[0] = ' ';
	uint64_t inflated = 0;
	int eof = 0, zcut = 0;
	for (;;) {
		/* fill */
		while (!eof && len < cap) {
			z.next_out = (unsigned char *)buf + len;
			z.avail_out = (uInt)(cap - len);
			int zr = inflate(&z, Z_NO_FLUSH);
			size_t got = (cap - len) - z.avail_out;
			len += got;
			inflated += got;
			if (z.avail_in == 0 && fed < size) {
				size_t more = size - fed > UINT32_MAX ? UINT32_MAX : size - fed;
				z.avail_in = (uInt)more;
				fed += more;
			}
			if (zr == Z_STREAM_END) {
				if (z.avail_in == 0) {
					eof = 1;
				} else if (inflateReset(&z) != Z_OK) { /* concatenated members */
					eof = 1;
				}
			} else if (zr == Z_DATA_ERROR || zr == Z_MEM_ERROR || zr == Z_NEED_DICT) {
				tix_error_set(r->err, "%s: corrupt gzip data near compressed byte %llu: %s",
				              r->path, (unsigned long long)z.total_in, z.msg ? z.msg : "bad data");
				goto out;
			} else if (zr == Z_BUF_ERROR && got == 0 && z.avail_in == 0) {
				eof = 1; /* the compressed stream is cut short */
				zcut = 1;
			}
		}
		memset(buf + len, 0, pad);
		size_t used = consume(r, buf + 1, 0, len - 1, eof, opts, size);
		if (used == (size_t)-1)
			goto out;
		used += 1;
		if (opts && opts->progress)
			opts->progress(opts->progress_ctx, (uint64_t)z.total_in, size);
		if (eof || r->state == TOP_DONE)
			break;
		/* keep the unconsumed tail and the byte before it */
		size_t keep_from = used - 1;
		memmove(buf, buf + keep_from, len - keep_from);
		r->base += keep_from;
		len -= keep_from;
		if (len >= cap - 4096) { /* one value larger than the window: grow */
			size_t ncap = cap * 2;
			char *nb = realloc(buf, ncap + pad);
			if (!nb) {
				tix_error_set(r->err, "%s: out of memory", r->path);
				goto out;
			}
			buf = nb;
			cap = ncap;
		}
	}
	if (res)
		res->input_bytes = inflated;
	if (zcut) {
		char msg[160];
		snprintf(msg, sizeof(msg), "gzip stream cut short after %llu compressed bytes",
		         (unsigned long long)z.total_in);
		if (event_conv_warn(&r->conv, msg, r->err) != 0)
			goto out;
	}
	rc = finish(r, r->state == TOP_DONE, res);
out:
	inflateEnd(&z);
	free(buf);
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
		return tix_error_set(err, "%s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return tix_error_set(err, "%s: %s", path, strerror(errno));
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
		return tix_error_set(err, "%s: %s", path, strerror(errno));
	}
	if (reader_init(&r, path, sink, err) != 0) {
		reader_done(&r);
		close(fd);
		return tix_error_set(err, "%s: out of memory", path);
	}
	r.gzip = magic[0] == 0x1f && magic[1] == 0x8b;
	int rc = r.gzip ? parse_gzip(&r, fd, size, opts, result) : parse_mapped(&r, fd, size, opts, result);
	reader_done(&r);
	close(fd);
	return rc;
}
