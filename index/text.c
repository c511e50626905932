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

void tix_json_str(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	putc('"', f);
	for (size_t i = 0; i < n;) {
		int unsafe;
		size_t len = tix_text_char(p + i, n - i, &unsafe);
		if (p[i] == '"' || p[i] == '\\') {
			putc('\\', f);
			putc(p[i], f);
		} else if (!unsafe) {
			fwrite(p + i, 1, len, f);
		} else if (len == 1 && p[i] >= 0x80) {
			fputs("\\ufffd", f); /* not UTF-8: JSON text must be */
		} else {
			unsigned cp = len == 1 ? p[i] : len == 2 ? (unsigned)(p[i] & 0x1F) << 6 | (p[i + 1] & 0x3F)
			              : (unsigned)(p[i] & 0x0F) << 12 | (unsigned)(p[i + 1] & 0x3F) << 6 | (p[i + 2] & 0x3F);
			fprintf(f, "\\u%04x", cp); /* the same string, no raw control in it */
		}
		i += len;
	}
	putc('"', f);
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
