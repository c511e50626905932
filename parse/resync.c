/*
 * After a malformed event: where the next one begins.  One bad byte must
 * cost one event, not the rest of the trace (issue 19, item 4).
 *
 * A stray quote turns every string after it inside out, so the careful
 * scanner (windows.c) cannot be trusted past a bad event: the next event is
 * looked for without it, as a '{' after a '}' and a ',' (memchr for the
 * commas), and taken only when it checks out: its value scans whole within
 * one window, holds a "ph" key, and is followed by ',' or ']'.  Everything
 * from the bad event up to there is skipped; the events skipped are counted
 * as the bad one and every candidate that did not check out.  With no event
 * after it, the ']' that closes traceEvents is looked for instead (the
 * first one after which the rest of the top-level object parses), so that
 * the keys after the events (baseTimeNanoseconds) are kept; with neither,
 * the trace ends inside an event: the caller salvages it as a cut.
 *
 * The skips are counted in the reader and said in one warning that the
 * index keeps (parse_finish); --strict (tix_parse_opts.strict) makes the
 * first one an error instead, the message the warning names.
 * Private to parse/ (reader.h).
 */
#include "parse/reader.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int blank(char c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

void parse_bad(struct reader *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof r->reason, fmt, ap);
	va_end(ap);
	for (char *s = r->reason; (s = strstr(s, "; "));) /* warnings are "; "-joined */
		s[0] = ',';
	tix_error_set(r->err, "%s: %s", r->path, r->reason);
}

/* Whether b[c] ('{') starts an event (the header's rule), and where it ends. */
static int event_at(struct reader *r, const char *b, size_t c, size_t n, int eof)
{
	size_t lim = n - c > r->reach ? c + r->reach : n, end, bad;
	if (parse_scan_value(b, c, lim, &end, &bad) != SCAN_OK || !memmem(b + c, end - c, "\"ph\"", 4))
		return 0;
	size_t after = parse_skip_ws(b, end, n);
	return after >= n ? eof || lim == n : b[after] == ',' || b[after] == ']';
}

size_t parse_next_event(struct reader *r, const char *b, size_t from, size_t n, int eof, uint64_t *passed)
{
	*passed = 0;
	for (size_t k = from; k < n;) {
		const char *comma = memchr(b + k, ',', n - k);
		if (!comma)
			return 0;
		size_t at = (size_t)(comma - b), l = at, c = at + 1;
		while (l > from && blank(b[l - 1]))
			l--;
		while (c < n && blank(b[c]))
			c++;
		k = at + 1;
		if (!(l > from && b[l - 1] == '}' && c < n && b[c] == '{'))
			continue;
		if (event_at(r, b, c, n, eof))
			return c;
		++*passed; /* an event start that is no event: one more skipped */
	}
	return 0;
}

/* Blanks (or the zero padding after a mapped file) from b[p] to n. */
static int rest_blank(const char *b, size_t p, size_t n, size_t *work)
{
	for (size_t from = p; p < n; p++)
		if (!blank(b[p]) && b[p] != '\0') {
			*work -= p - from < *work ? p - from : *work;
			return 0;
		}
	return 1;
}

/* Whether what follows a ']' at b[p] is the end of the trace: nothing (the
 * array format), or the rest of the top-level object, key by key.  What it
 * reads is taken from *work; it fails when that runs out. */
static int tail_ok(const struct reader *r, const char *b, size_t p, size_t n, size_t *work)
{
	size_t q = parse_skip_ws(b, p, n), end, bad;
	if (r->array_format)
		return rest_blank(b, q, n, work);
	for (;;) {
		if (q >= n || q - p >= *work)
			return 0;
		if (b[q] == '}') {
			*work -= q - p;
			return rest_blank(b, q + 1, n, work);
		}
		if (b[q] != ',')
			break;
		q = parse_skip_ws(b, q + 1, n);
		if (q >= n || b[q] != '"' || parse_scan_value(b, q, n, &end, &bad) != SCAN_OK)
			break;
		q = parse_skip_ws(b, end, n);
		if (q >= n || b[q] != ':')
			break;
		if (parse_scan_value(b, q + 1, n, &end, &bad) != SCAN_OK)
			break;
		q = parse_skip_ws(b, end, n);
	}
	*work -= q - p < *work ? q - p : *work;
	return 0;
}

/* The first ']' in b[from, n) after which the trace ends (tail_ok), or 0.
 * The ']'s inside the bad event are tried first and each fails where the
 * object around it goes on; the work is bounded by a few times the data,
 * past which the trace is taken as cut (the caller salvages it). */
static size_t array_end(const struct reader *r, const char *b, size_t from, size_t n)
{
	size_t work = 4 * (n - from) + (1u << 20);
	for (size_t p = from; p < n && work > 0;) {
		const char *close = memchr(b + p, ']', n - p);
		if (!close)
			return 0;
		p = (size_t)(close - b);
		if (tail_ok(r, b, p + 1, n, &work))
			return p;
		p++;
		work = work > 0 ? work - 1 : 0;
	}
	return 0;
}

int parse_resync(struct reader *r, const char *b, size_t q, size_t n, int eof, size_t *next)
{
	if (r->strict)
		return -1; /* r->err has it */
	uint64_t passed;
	size_t c = parse_next_event(r, b, q + 1, n, eof, &passed);
	if (!c && eof && !r->at_cut)
		c = array_end(r, b, q + 1, n);
	if (!c)
		return 0;
	if (!r->bad_events) {
		r->first_bad_at = r->base + q;
		snprintf(r->first_bad, sizeof r->first_bad, "%s", r->reason);
	}
	r->bad_events += 1 + passed;
	r->bad_places++;
	*next = c;
	return 1;
}

int parse_warn_malformed(struct reader *r)
{
	if (!r->bad_events)
		return 0;
	char msg[sizeof r->first_bad + 200], places[48] = "";
	if (r->bad_places > 1)
		snprintf(places, sizeof places, " in %llu places", (unsigned long long)r->bad_places);
	snprintf(msg, sizeof msg,
	         "%llu " TIX_PARSE_MALFORMED "%s skipped%s, the events after kept (--strict refuses them): the first at "
	         "byte %llu%s: %s",
	         (unsigned long long)r->bad_events, r->bad_events == 1 ? "" : "s", places,
	         (unsigned long long)r->first_bad_at, r->gzip ? " (of the inflated JSON)" : "", r->first_bad);
	return event_conv_warn(&r->conv, msg, r->err);
}

void parse_adopt_malformed(struct reader *r, const struct reader *second)
{
	if (!second->bad_events)
		return;
	if (!r->bad_events) { /* the second half's are later in the file */
		r->first_bad_at = second->first_bad_at;
		snprintf(r->first_bad, sizeof r->first_bad, "%s", second->first_bad);
	}
	r->bad_events += second->bad_events;
	r->bad_places += second->bad_places;
}
