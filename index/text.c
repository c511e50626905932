/*
 * What of a string may leave tix as it is: the one rule (tix_text_char)
 * behind every face that writes trace-controlled text: messages and text
 * output (tix_printable, names.c), JSON strings (tix_json_str), CSV cells
 * (tix_csv_str), the TUI's screen and clipboard.  Declared in sink.h.
 *
 * Unsafe, whatever the face: C0 controls and DEL (a terminal obeys them:
 * ESC starts the sequences that set the title or the clipboard), C1
 * controls U+0080-U+009F (CSI and OSC in one code point, which some
 * terminals obey too), the bidi embeddings, overrides and isolates
 * U+202A-U+202E and U+2066-U+2069 (they reorder what a reader sees: the
 * "Trojan Source" characters) and bytes that are not valid UTF-8.  Valid
 * UTF-8 text otherwise passes as it is, as less shows it.
 */
#include "index/index.h"

#include <stdio.h>
#include <string.h>

size_t tix_text_char(const unsigned char *p, size_t avail, int *unsafe)
{
	size_t len = tix_utf8_len(p, avail);
	if (len == 0) {
		*unsafe = 1;
		return 1;
	}
	uint32_t cp = len == 1 ? p[0] : len == 2 ? (uint32_t)(p[0] & 0x1F) << 6 | (p[1] & 0x3F)
	              : len == 3 ? (uint32_t)(p[0] & 0x0F) << 12 | (uint32_t)(p[1] & 0x3F) << 6 | (p[2] & 0x3F)
	                         : 0x10000; /* four bytes: nothing unsafe up there */
	*unsafe = cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0) || (cp >= 0x202A && cp <= 0x202E) ||
	          (cp >= 0x2066 && cp <= 0x2069);
	return len;
}

/* The one JSON string writer, to wherever put sends its pieces. */
typedef void (*json_put_fn)(void *ctx, const char *p, size_t n);

static void json_str_to(json_put_fn put, void *ctx, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	put(ctx, "\"", 1);
	for (size_t i = 0; i < n;) {
		int unsafe;
		size_t len = tix_text_char(p + i, n - i, &unsafe), from = i;
		while (!unsafe && p[i] != '"' && p[i] != '\\') { /* a run that passes as it is */
			i += len;
			if (i >= n)
				break;
			len = tix_text_char(p + i, n - i, &unsafe);
		}
		if (i > from)
			put(ctx, s + from, i - from);
		if (i >= n)
			break;
		char e[8];
		if (p[i] == '"' || p[i] == '\\') {
			e[0] = '\\', e[1] = (char)p[i];
			put(ctx, e, 2);
		} else if (len == 1 && p[i] >= 0x80) {
			put(ctx, "\\ufffd", 6); /* not UTF-8: JSON text must be */
		} else {
			unsigned cp = len == 1 ? p[i] : len == 2 ? (unsigned)(p[i] & 0x1F) << 6 | (p[i + 1] & 0x3F)
			              : (unsigned)(p[i] & 0x0F) << 12 | (unsigned)(p[i + 1] & 0x3F) << 6 | (p[i + 2] & 0x3F);
			/* the same string, no raw control in it */
			snprintf(e, sizeof e, "\\u%04x", cp);
			put(ctx, e, 6);
		}
		i += len;
	}
	put(ctx, "\"", 1);
}

static void put_file(void *ctx, const char *p, size_t n)
{
	fwrite(p, 1, n, ctx);
}

void tix_json_str(FILE *f, const char *s, size_t n)
{
	json_str_to(put_file, f, s, n);
}

struct json_buf {
	char *out;
	size_t cap, len;
};

static void put_buf(void *ctx, const char *p, size_t n)
{
	struct json_buf *b = ctx;
	if (b->len < b->cap) {
		size_t room = b->cap - b->len;
		memcpy(b->out + b->len, p, n < room ? n : room);
	}
	b->len += n;
}

size_t tix_json_buf(char *out, size_t cap, const char *s, size_t n)
{
	struct json_buf b = {out, cap ? cap - 1 : 0, 0};
	json_str_to(put_buf, &b, s, n);
	if (cap)
		out[b.len < b.cap ? b.len : b.cap] = '\0';
	return b.len;
}

/* A cell a spreadsheet would run as a formula begins with one of these
 * (OWASP's list): such a cell gets a leading "'", which spreadsheets show as
 * text and do not print. */
static int formula_start(unsigned char c)
{
	return c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r';
}

void tix_csv_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	putc('"', f);
	if (n && formula_start(p[0]))
		putc('\'', f);
	for (size_t i = 0; i < n;) {
		int unsafe;
		size_t len = tix_text_char(p + i, n - i, &unsafe);
		if (unsafe) { /* as text output shows it */
			for (size_t k = 0; k < len; k++)
				fprintf(f, "\\x%02x", p[i + k]);
		} else {
			if (p[i] == '"')
				putc('"', f);
			fwrite(p + i, 1, len, f);
		}
		i += len;
	}
	putc('"', f);
}

/* ---- one JSON value, checked (RFC 8259), for text tix passes on as JSON ---- */

struct jv {
	const unsigned char *p, *end;
	int depth;
};

static void jv_ws(struct jv *v)
{
	while (v->p < v->end && (*v->p == ' ' || *v->p == '\t' || *v->p == '\n' || *v->p == '\r'))
		v->p++;
}

static int jv_lit(struct jv *v, const char *lit)
{
	size_t n = strlen(lit);
	if ((size_t)(v->end - v->p) < n || memcmp(v->p, lit, n) != 0)
		return -1;
	v->p += n;
	return 0;
}

static int jv_digits(struct jv *v)
{
	const unsigned char *s = v->p;
	while (v->p < v->end && *v->p >= '0' && *v->p <= '9')
		v->p++;
	return v->p > s ? 0 : -1;
}

static int jv_number(struct jv *v)
{
	if (v->p < v->end && *v->p == '-')
		v->p++;
	if (v->p < v->end && *v->p == '0')
		v->p++;
	else if (jv_digits(v) != 0)
		return -1;
	if (v->p < v->end && *v->p == '.') {
		v->p++;
		if (jv_digits(v) != 0)
			return -1;
	}
	if (v->p < v->end && (*v->p == 'e' || *v->p == 'E')) {
		v->p++;
		if (v->p < v->end && (*v->p == '+' || *v->p == '-'))
			v->p++;
		if (jv_digits(v) != 0)
			return -1;
	}
	return 0;
}

static int jv_string(struct jv *v)
{
	v->p++; /* the opening quote */
	while (v->p < v->end) {
		unsigned char c = *v->p;
		if (c == '"') {
			v->p++;
			return 0;
		}
		if (c < 0x20)
			return -1; /* a raw control: JSON strings hold none */
		if (c == '\\') {
			if (v->end - v->p < 2)
				return -1;
			unsigned char e = v->p[1];
			if (e == 'u') {
				if (v->end - v->p < 6)
					return -1;
				for (int i = 2; i < 6; i++) {
					unsigned char h = v->p[i];
					if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') ||
					      (h >= 'A' && h <= 'F')))
						return -1;
				}
				v->p += 6;
			} else if (strchr("\"\\/bfnrt", e) && e) {
				v->p += 2;
			} else {
				return -1;
			}
			continue;
		}
		size_t len = tix_utf8_len(v->p, (size_t)(v->end - v->p));
		if (!len)
			return -1;
		v->p += len;
	}
	return -1;
}

static int jv_value(struct jv *v);

/* An array or an object: open, close and whether members are key: value. */
static int jv_container(struct jv *v, unsigned char close, int keyed)
{
	if (++v->depth > TIX_JSON_MAX_DEPTH)
		return -1;
	v->p++;
	jv_ws(v);
	if (v->p < v->end && *v->p == close) {
		v->p++;
		v->depth--;
		return 0;
	}
	for (;;) {
		if (keyed) {
			if (v->p >= v->end || *v->p != '"' || jv_string(v) != 0)
				return -1;
			jv_ws(v);
			if (v->p >= v->end || *v->p != ':')
				return -1;
			v->p++;
			jv_ws(v);
		}
		if (jv_value(v) != 0)
			return -1;
		jv_ws(v);
		if (v->p < v->end && *v->p == ',') {
			v->p++;
			jv_ws(v);
			continue;
		}
		if (v->p < v->end && *v->p == close) {
			v->p++;
			v->depth--;
			return 0;
		}
		return -1;
	}
}

static int jv_value(struct jv *v)
{
	if (v->p >= v->end)
		return -1;
	switch (*v->p) {
	case '"': return jv_string(v);
	case '{': return jv_container(v, '}', 1);
	case '[': return jv_container(v, ']', 0);
	case 't': return jv_lit(v, "true");
	case 'f': return jv_lit(v, "false");
	case 'n': return jv_lit(v, "null");
	default: return jv_number(v);
	}
}

int tix_json_valid(const char *s, size_t n)
{
	struct jv v = {(const unsigned char *)s, (const unsigned char *)s + n, 0};
	jv_ws(&v);
	if (jv_value(&v) != 0)
		return 0;
	jv_ws(&v);
	return v.p == v.end;
}
