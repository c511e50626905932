/*
 * Fuzz target: the text tix writes for others to read (issue 19, item 8):
 * the CSV cell writer (tix_csv_str), the JSON string writer (tix_json_str),
 * tix_printable, and what y / Y copy (tui/clip.c: copy_text_add, osc52).
 *
 * The input is split at byte 0x1f into cells (at most 8).  For each cell:
 * - CSV: one quoted field, no control byte, C1, bidi override or invalid
 *   UTF-8 in it, every inner '"' doubled, never starting a formula ('=',
 *   '+', '-', '@', tab, CR) unless after the leading "'", and the field
 *   read back (quotes undoubled, \xNN undone) is the cell again;
 * - JSON: the string decoded (\", \\, \uXXXX) is the cell, a byte that is
 *   not UTF-8 read as U+FFFD, and no raw unsafe character in the output;
 * - tix_printable with a small and a large buffer: safe text, the small a
 *   prefix of the large (or cut with "...").
 * The cells joined as Y joins them: the only control bytes are the tabs
 * between cells, and the OSC 52 payload decodes (base64) to that text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/index.h"
#include "tui/clip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FAIL(...)                                                 \
	do {                                                      \
		fprintf(stderr, "tix fuzz: " __VA_ARGS__);        \
		fputc('\n', stderr);                              \
		abort();                                          \
	} while (0)

/* abort()s when s[0..n) holds a character that must not reach a terminal
 * (index/text.c), but the bytes in allowed (a tab between cells). */
static void check_safe(const char *what, const char *s, size_t n, const char *allowed)
{
	for (size_t i = 0; i < n;) {
		int unsafe;
		size_t len = tix_text_char((const unsigned char *)s + i, n - i, &unsafe);
		if (unsafe && !(len == 1 && allowed && strchr(allowed, s[i]) && s[i]))
			FAIL("%s: an unsafe character (byte 0x%02x) at %zu of %zu", what, (unsigned char)s[i], i, n);
		i += len;
	}
}

static char *write_to_string(void (*fn)(FILE *, const char *, size_t), const char *s, size_t n, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		abort();
	fn(f, s, n);
	fclose(f);
	return buf;
}

static void csv_of(FILE *f, const char *s, size_t n)
{
	(void)n;
	tix_csv_str(f, s);
}

static int hex(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static void check_csv(const char *cell)
{
	size_t n;
	char *out = write_to_string(csv_of, cell, strlen(cell), &n);
	if (n < 2 || out[0] != '"' || out[n - 1] != '"')
		FAIL("csv: not one quoted field: %s", out);
	check_safe("csv", out, n, NULL);
	size_t i = 1;
	if (strchr("=+-@\t\r", cell[0]) && cell[0]) {
		if (out[1] != '\'')
			FAIL("csv: a cell starting with 0x%02x has no leading quote: %s", (unsigned char)cell[0], out);
		i = 2;
	} else if (n > 2 && strchr("=+-@", out[1])) {
		FAIL("csv: a formula start: %s", out);
	}
	/* read it back: "" -> ", \xNN -> the byte */
	char *back = malloc(n + 1);
	size_t k = 0;
	for (; i < n - 1; i++) {
		if (out[i] == '"') {
			if (out[i + 1] != '"')
				FAIL("csv: a lone quote inside the field at %zu: %s", i, out);
			back[k++] = '"';
			i++;
		} else if (out[i] == '\\' && out[i + 1] == 'x' && hex(out[i + 2]) >= 0 && hex(out[i + 3]) >= 0) {
			back[k++] = (char)(hex(out[i + 2]) * 16 + hex(out[i + 3]));
			i += 3;
		} else {
			back[k++] = out[i];
		}
	}
	back[k] = 0;
	/* a backslash of the cell's own followed by "xNN" reads back as a byte:
	 * compare only when the cell has no backslash */
	if (!strchr(cell, '\\') && strcmp(back, cell) != 0)
		FAIL("csv: read back differs: %s -> %s", cell, back);
	free(back);
	free(out);
}

/* The UTF-8 bytes of code point cp into out; its length. */
static size_t utf8(unsigned cp, char *out)
{
	if (cp < 0x80)
		return out[0] = (char)cp, 1;
	if (cp < 0x800)
		return out[0] = (char)(0xC0 | cp >> 6), out[1] = (char)(0x80 | (cp & 0x3F)), 2;
	out[0] = (char)(0xE0 | cp >> 12), out[1] = (char)(0x80 | ((cp >> 6) & 0x3F)), out[2] = (char)(0x80 | (cp & 0x3F));
	return 3;
}

static void check_json(const char *cell, size_t n)
{
	size_t len;
	char *out = write_to_string(tix_json_str, cell, n, &len);
	check_safe("json", out, len, NULL);
	if (len < 2 || out[0] != '"' || out[len - 1] != '"')
		FAIL("json: not a string literal: %s", out);
	char *got = malloc(3 * len + 1), *want = malloc(3 * n + 1);
	size_t g = 0, w = 0;
	for (size_t i = 1; i < len - 1; i++) {
		if (out[i] == '"')
			FAIL("json: a raw quote inside the string: %s", out);
		if (out[i] != '\\') {
			got[g++] = out[i];
			continue;
		}
		char e = out[++i];
		if (e == '"' || e == '\\') {
			got[g++] = e;
		} else if (e == 'u' && i + 4 < len) {
			unsigned cp = 0;
			for (int k = 1; k <= 4; k++) {
				if (hex(out[i + k]) < 0)
					FAIL("json: a bad \\u escape: %s", out);
				cp = cp * 16 + (unsigned)hex(out[i + k]);
			}
			i += 4;
			g += utf8(cp, got + g);
		} else {
			FAIL("json: an escape tix does not write: \\%c", e);
		}
	}
	for (size_t i = 0; i < n;) {
		size_t l = tix_utf8_len((const unsigned char *)cell + i, n - i);
		if (l == 0) {
			memcpy(want + w, "\xEF\xBF\xBD", 3);
			w += 3;
			i++;
		} else {
			memcpy(want + w, cell + i, l);
			w += l;
			i += l;
		}
	}
	if (g != w || memcmp(got, want, g) != 0)
		FAIL("json: decoded string differs from the input (%zu vs %zu bytes)", g, w);
	free(got);
	free(want);
	free(out);
}

static void check_printable(const char *cell)
{
	size_t n = strlen(cell);
	char *big = malloc(4 * n + 8), small[24];
	tix_printable(cell, big, 4 * n + 8);
	tix_printable(cell, small, sizeof small);
	check_safe("printable", big, strlen(big), NULL);
	check_safe("printable (cut)", small, strlen(small), NULL);
	size_t s = strlen(small);
	if (strcmp(small, big) != 0 && !(s >= 3 && !strcmp(small + s - 3, "...") && !strncmp(small, big, s - 3)))
		FAIL("printable: the cut is not a prefix: %s / %s", small, big);
	free(big);
}

static unsigned char unb64(char c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26 : c >= '0' && c <= '9' ? c - '0' + 52
	       : c == '+' ? 62 : 63;
}

static void check_copy(char **cells, int ncells)
{
	char *text = NULL;
	for (int i = 0; i < ncells; i++)
		if (copy_text_add(&text, cells[i]) != 0)
			abort();
	if (!text)
		return; /* no cells: nothing was copied */
	size_t n = strlen(text), tabs = 0;
	for (size_t i = 0; i < n; i++)
		tabs += text[i] == '\t';
	if (tabs != (size_t)(ncells - 1))
		FAIL("copy: %zu tabs for %d cells", tabs, ncells);
	check_safe("copy", text, n, "\t");
	size_t cap = 7 + (n + 2) / 3 * 4 + 2;
	char *seq = malloc(cap);
	if (!osc52(text, seq, cap))
		FAIL("osc52: refused a buffer of the size it asks");
	size_t sl = strlen(seq);
	if (strncmp(seq, "\033]52;c;", 7) || seq[sl - 1] != '\a')
		FAIL("osc52: not an OSC 52 sequence");
	check_safe("osc52 payload", seq + 7, sl - 8, NULL);
	char *back = malloc(n + 4);
	size_t b = 0;
	for (size_t i = 7; i + 4 <= sl - 1; i += 4) {
		unsigned v = (unsigned)unb64(seq[i]) << 18 | (unsigned)unb64(seq[i + 1]) << 12 |
		             (unsigned)unb64(seq[i + 2]) << 6 | unb64(seq[i + 3]);
		back[b++] = (char)(v >> 16);
		if (seq[i + 2] != '=')
			back[b++] = (char)(v >> 8);
		if (seq[i + 3] != '=')
			back[b++] = (char)v;
	}
	if (b != n || memcmp(back, text, n) != 0)
		FAIL("osc52: the payload does not decode to the copied text");
	free(back);
	free(seq);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1);
	memcpy(copy, data, size);
	copy[size] = 0;
	char *cells[8];
	size_t lens[8];
	int ncells = 0;
	for (char *s = copy; ncells < 8;) {
		char *sep = memchr(s, 0x1f, (size_t)(copy + size - s));
		cells[ncells] = s;
		lens[ncells] = sep ? (size_t)(sep - s) : (size_t)(copy + size - s);
		if (sep)
			*sep = 0;
		ncells++;
		if (!sep)
			break;
		s = sep + 1;
	}
	for (int i = 0; i < ncells; i++) {
		check_json(cells[i], lens[i]); /* with its NUL bytes, as an index's name may be cut */
		check_csv(cells[i]);
		check_printable(cells[i]);
	}
	check_copy(cells, ncells);
	free(copy);
	return 0;
}
