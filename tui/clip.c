#include "tui/clip.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/index.h"

char *osc52(const char *s, char *out, size_t cap)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = strlen(s), need = 7 + (n + 2) / 3 * 4 + 2;
	if (cap < need)
		return NULL;
	size_t o = (size_t)snprintf(out, cap, "\033]52;c;");
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned char)s[i] << 16;
		if (i + 1 < n)
			v |= (unsigned char)s[i + 1] << 8;
		if (i + 2 < n)
			v |= (unsigned char)s[i + 2];
		out[o++] = b64[v >> 18 & 63];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? b64[v & 63] : '=';
	}
	out[o++] = '\a';
	out[o] = 0;
	return out;
}

int copy_text_add(char **text, const char *cell)
{
	size_t have = *text ? strlen(*text) : 0, n = strlen(cell);
	size_t cap = 4 * n + 8; /* an escape is four bytes a byte, "..." never needed */
	char *t = realloc(*text, have + 1 + cap);
	if (!t)
		return -1;
	if (*text)
		t[have++] = '\t';
	tix_printable(cell, t + have, cap);
	*text = t;
	return 0;
}

size_t text_chars(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}
