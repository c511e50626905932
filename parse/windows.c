/*
 * Windows over the traceEvents array, and the top-level object around it.
 * See parse.c for the design; this file cuts windows (a cheap guess at an
 * event boundary, checked by simdjson), falls back on a careful byte
 * scanner that knows strings and nesting, and walks the top-level keys.
 */
#include "parse/reader.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

size_t parse_skip_ws(const char *b, size_t p, size_t n)
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

enum scan parse_scan_value(const char *b, size_t p, size_t n, size_t *end, size_t *bad_at)
{
	uint8_t stack[MAX_NESTING / 8] = {0}; /* one bit a level: 1 for '{' */
	int depth = 0;
	p = parse_skip_ws(b, p, n);
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
			size_t len = tix_utf8_len(p, (size_t)(end - p));
			if (len) {
				p += len;
			} else {
				*p++ = '?';
			}
		}
	}
}

/* simdjson is about to be given len bytes (reader.h, shim_len). */
static void note_shim_len(struct reader *r, size_t len)
{
	if (len <= r->shim_len)
		return;
	if (r->shim_len > r->window / 2) /* (a first event alone costs nothing to free) */
		r->shim_grew++;
	r->shim_len = len;
}

/* One event b[s..e) on its own; the slow path.  0; -1 when the sink
 * failed (r->err set); -2 when simdjson refused the event (parse_bad). */
static int parse_one(struct reader *r, char *b, size_t s, size_t e)
{
	struct shim_fail f;
	note_shim_len(r, e - s);
	int rc = shim_parse_one(r->shim, b + s, e - s, on_event, r, &f);
	if (rc == -1) {
		sanitize(b + s, e - s);
		rc = shim_parse_one(r->shim, b + s, e - s, on_event, r, &f);
		if (rc == -1 && f.code == SHIM_DEPTH_ERROR) {
			r->conv.skipped++; /* should simdjson refuse valid JSON as too deep */
			return 0;
		}
		if (rc == -1) {
			parse_bad(r, "byte %llu%s: invalid JSON in the event at byte %llu: %s",
			          (unsigned long long)(r->base + s + f.at), r->gzip ? " (of the inflated JSON)" : "",
			          (unsigned long long)(r->base + s), f.msg);
			return -2;
		}
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
	struct shim_fail f;
	uint64_t count = r->conv.events;
	r->last_start = NULL;
	note_shim_len(r, e - s + 2);
	int rc = shim_parse_events(r->shim, open, e - s + 2, on_event, r, &f);
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
		if (ls >= s && ls < e && parse_scan_value(b, ls, e, &end, &bad) == SCAN_OK) {
			end = parse_skip_ws(b, end, e + 1);
			*resume = end < e + 1 && b[end] == ',' ? end + 1 : end;
		} else {
			return shim_error(r, (size_t)(open - b) + f.at, f.msg, s);
		}
	}
	return 1;
}

/* The event at b[q] (a '{'): SCAN_OK with *e past it, SCAN_BAD or
 * SCAN_DEEP (parse_bad said why), or SCAN_MORE when it does not end in the
 * data.  One that runs on for more than r->reach (SCAN_REACH) while an
 * event starts inside it is malformed (a stray quote turned its strings
 * inside out): it is not scanned to the end of the file, as each such event
 * would be. */
static enum scan scan_event(struct reader *r, const char *b, size_t q, size_t n, int eof, size_t *e)
{
	size_t bad = q, lim = n - q > r->reach ? q + r->reach : n;
	enum scan s = parse_scan_value(b, q, lim, e, &bad);
	uint64_t passed;
	size_t next = 0;
	if (s == SCAN_MORE && lim < n) {
		next = parse_next_event(r, b, q + 1, lim, 0, &passed);
		if (!next)
			s = parse_scan_value(b, q, n, e, &bad); /* a long event, whole */
	} else if (s == SCAN_MORE && (eof || n - q > r->reach)) {
		/* at the end of the data, or a gzip buffer that would grow for ever */
		next = parse_next_event(r, b, q + 1, n, eof, &passed);
	}
	const char *where = r->gzip ? " (of the inflated JSON)" : "";
	if (next)
		parse_bad(r, "the event at byte %llu%s does not end before the next one at byte %llu",
		          (unsigned long long)(r->base + q), where, (unsigned long long)(r->base + next));
	else if (s == SCAN_DEEP)
		parse_bad(r, "byte %llu%s: the event at byte %llu nests deeper than %d levels",
		          (unsigned long long)(r->base + bad), where, (unsigned long long)(r->base + q), MAX_NESTING);
	else if (s == SCAN_BAD)
		parse_bad(r, "byte %llu%s: unbalanced '%c' in the event at byte %llu", (unsigned long long)(r->base + bad),
		          where, b[bad], (unsigned long long)(r->base + q));
	else if (s == SCAN_MORE && eof)
		parse_bad(r, "the event at byte %llu%s does not end", (unsigned long long)(r->base + q), where);
	return next ? SCAN_BAD : s;
}

/* The careful walk of events from b[*p], at most up to limit: every event
 * is scanned for its end and parsed alone.  Stops after the array's ']'
 * (sets *closed), at limit, or where the data ends.  A malformed event is
 * skipped (resync.c) unless strict. */
enum scan parse_walk_events(struct reader *r, char *b, size_t *p, size_t n, size_t limit,
                             int eof, int *closed, int *failed)
{
	size_t q = *p;
	*failed = 0;
	while (q < limit) {
		q = parse_skip_ws(b, q, n);
		if (q >= n)
			return SCAN_MORE;
		if (b[q] == ']') {
			*closed = 1;
			*p = q + 1;
			return SCAN_OK;
		}
		size_t e = q, next;
		enum scan s = SCAN_BAD;
		int rc = 0;
		if (b[q] != '{') {
			char sb[16];
			parse_bad(r, "byte %llu%s: expected '{' to start an event, found %s", (unsigned long long)(r->base + q),
			          r->gzip ? " (of the inflated JSON)" : "", show_byte(b[q], sb));
		} else if ((s = scan_event(r, b, q, n, eof, &e)) == SCAN_OK) {
			rc = parse_one(r, b, q, e);
			if (rc == -1) { /* the sink's error */
				*failed = 1;
				return SCAN_BAD;
			}
		}
		if (s == SCAN_MORE && !eof) {
			*p = q;
			return SCAN_MORE;
		}
		size_t after = e;
		if (s == SCAN_OK && rc == 0) {
			r->salvaged_to = r->base + e;
			after = parse_skip_ws(b, e, n);
			if (after >= n) {
				*p = e;
				return SCAN_MORE;
			}
			if (b[after] == ',') {
				q = after + 1;
				*p = q;
				continue;
			}
			if (b[after] == ']') {
				*closed = 1;
				*p = after + 1;
				return SCAN_OK;
			}
			char sb[16];
			parse_bad(r, "byte %llu%s: expected ',' or ']' after an event, found %s",
			          (unsigned long long)(r->base + after), r->gzip ? " (of the inflated JSON)" : "",
			          show_byte(b[after], sb));
		}
		/* malformed: the event at q, or what follows a good one */
		size_t from = s == SCAN_OK && rc == 0 ? after : q;
		int rs = parse_resync(r, b, from, n, eof, &next);
		if (rs < 0) {
			*failed = 1;
			return SCAN_BAD;
		}
		if (rs == 0) { /* no event after it here: more data, or the trace was cut */
			*p = from;
			return SCAN_MORE;
		}
		q = next; /* an event's '{', or the ']' that closes the array */
		*p = q;
	}
	*p = q;
	return SCAN_OK;
}

/* A cheap guess at an event boundary before b[limit]: a ',' between a '}'
 * and a '{'.  Returns the ',' position or 0. */
size_t parse_guess_cut(const char *b, size_t from, size_t limit)
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

/* parse_run patches the byte after a window's last event in the file's
 * private mapping (and the next window's first patch lands on the same
 * page).  Left alone, the first access to that page is parse_guess_cut's
 * read, which maps the file's page read-only; the patch then copies it,
 * and the copy replaces a mapping the other parse thread may hold in its
 * TLB, so the kernel flushes it there by an interprocessor interrupt:
 * about 50 us a window on a 2-vCPU guest, 2-3% of a two-thread index
 * (docs/PERFORMANCE.md, "Round 11").  The page taken for writing before
 * it is read is copied on its first fault, and no mapping is flushed.  The
 * gzip path's buffer is anonymous memory, written already. */
static void window_end_for_writing(const struct reader *r, char *b, size_t at)
{
#ifdef MADV_POPULATE_WRITE
	if (r->gzip)
		return;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t p = (uintptr_t)(b + at) & ~(uintptr_t)(page - 1);
	madvise((void *)p, page, MADV_POPULATE_WRITE); /* a hint: on failure the patch copies the page as before */
#else
	(void)r, (void)b, (void)at;
#endif
}

/* How far past q a window may end: the window size, or less where that
 * fits the buffers simdjson already holds (r->shim_len, set by a window
 * longer than half of one), so that it never frees and grows them. */
static size_t window_room(const struct reader *r)
{
	size_t fits = r->shim_len > 2 ? r->shim_len - 2 : 0;
	return fits > r->window / 2 + 1 && fits < r->window ? fits : r->window;
}

/* Events from b[*p] on.  Returns SCAN_OK when the array closed (then *p is
 * past its ']'), SCAN_MORE when more data is needed (or, at eof, the trace
 * was cut), SCAN_BAD on an error. */
enum scan parse_take_events(struct reader *r, char *b, size_t *p, size_t n, int eof,
                             const struct tix_parse_opts *opts, uint64_t total)
{
	for (;;) {
		size_t q = parse_skip_ws(b, *p, n);
		if (q < n && b[q] == ']') {
			*p = q + 1;
			return SCAN_OK;
		}
		size_t room = window_room(r);
		/* At the end, what is past the room is cut off first, so that the
		 * last window fits it too. */
		if (n - q > r->window + r->window / 4 || (eof && n - q > room && room < r->window)) {
			window_end_for_writing(r, b, q + room - 1);
			size_t cut = parse_guess_cut(b, q + r->window / 2, q + room);
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
						atomic_store(&r->share->second_done, *p - atomic_load(&r->share->first_start));
					else if (r->share)
						atomic_store_explicit(&r->share->first_at, *p, memory_order_relaxed);
					continue;
				}
				q = resume;
			}
			int closed = 0, failed = 0;
			*p = q;
			enum scan s = parse_walk_events(r, b, p, n, q + r->window, eof, &closed, &failed);
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
		size_t tail_cut = parse_guess_cut(b, q, n);
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
			e = parse_skip_ws(b, e, n);
			if (e >= n || b[e] == ']') {
				closed = e < n;
				break;
			}
			if (b[e] != '{')
				break;
			size_t ve, bad;
			if (parse_scan_value(b, e, n, &ve, &bad) != SCAN_OK)
				break;
			last_end = ve;
			e = parse_skip_ws(b, ve, n);
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
				q = parse_skip_ws(b, last_end, n);
				if (q < n && b[q] == ',')
					q++;
			} else {
				q = resume;
			}
		}
		int failed = 0;
		closed = 0;
		*p = q;
		enum scan s = parse_walk_events(r, b, p, n, n, eof, &closed, &failed);
		if (s == SCAN_OK && !closed)
			s = SCAN_MORE;
		return s;
	}
}

/* Top-level structure: {"key": value, ..., "traceEvents": [...], ...} or a
 * bare [...].  Consumes what it can of b[0..n) and returns the offset of
 * the first byte not consumed, or (size_t)-1 on error. */
size_t parse_consume(struct reader *r, char *b, size_t start, size_t n, int eof,
                      const struct tix_parse_opts *opts, uint64_t total)
{
	size_t p = start;
	for (;;) {
		p = parse_skip_ws(b, p, n);
		if (r->state == TOP_START && p + 3 <= n && (unsigned char)b[p] == 0xEF &&
		    (unsigned char)b[p + 1] == 0xBB && (unsigned char)b[p + 2] == 0xBF)
			p = parse_skip_ws(b, p + 3, n); /* UTF-8 byte order mark */
		if (r->state == TOP_DONE)
			return n;
		if (r->state == TOP_EVENTS) {
			if (r->stop_at_events)
				return p;
			enum scan s = parse_take_events(r, b, &p, n, eof, opts, total);
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
		vstart = parse_skip_ws(b, kend, n);
		if (vstart >= n)
			return p;
		if (b[vstart] != ':') {
			tix_error_set(r->err, "%s: byte %llu%s: expected ':' after a key", r->path,
			              (unsigned long long)(r->base + vstart), where);
			return (size_t)-1;
		}
		vstart = parse_skip_ws(b, vstart + 1, n);
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
		enum scan s = parse_scan_value(b, vstart, n, &vend, &bad);
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
