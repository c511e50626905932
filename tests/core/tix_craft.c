/*
 * A crafted .tix, as a hostile neighbour would write one (white-box: the
 * checksums of index/format.h are recomputed, so the reader accepts it).
 *
 *   tix_craft IN.tix OUT.tix FIND REPLACE [FIND REPLACE ...]
 *
 * Every occurrence of the bytes FIND is replaced by REPLACE, of the same
 * length; both may hold \xNN escapes (\x1b for ESC).  The strings of an
 * index are stored as they are, so this rewrites a step rule, a warning or
 * a name in place.  Exits 1 when a FIND is not found or the lengths differ.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/format.h"

static size_t unescape(const char *s, char *out)
{
	size_t n = 0;
	while (*s) {
		unsigned v;
		if (s[0] == '\\' && s[1] == 'x' && sscanf(s + 2, "%2x", &v) == 1) {
			out[n++] = (char)v;
			s += 4;
		} else {
			out[n++] = *s++;
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	if (argc < 5 || argc % 2 == 0) {
		fprintf(stderr, "usage: tix_craft IN.tix OUT.tix FIND REPLACE [FIND REPLACE ...]\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f)
		return perror(argv[1]), 1;
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *b = malloc((size_t)size + 1);
	size_t got = b ? fread(b, 1, (size_t)size, f) : 0;
	fclose(f);
	if (!b || got != (size_t)size)
		return fprintf(stderr, "%s: cannot read\n", argv[1]), 1;
	for (int i = 3; i + 1 < argc; i += 2) {
		char *find = malloc(strlen(argv[i]) + 1), *rep = malloc(strlen(argv[i + 1]) + 1);
		size_t fn = unescape(argv[i], find), rn = unescape(argv[i + 1], rep);
		if (fn != rn || fn == 0)
			return fprintf(stderr, "'%s' and its replacement differ in length\n", argv[i]), 1;
		int hits = 0;
		for (long k = 0; k + (long)fn <= size; k++)
			if (memcmp(b + k, find, fn) == 0) {
				memcpy(b + k, rep, rn);
				hits++;
			}
		if (!hits)
			return fprintf(stderr, "'%s' is not in %s\n", argv[i], argv[1]), 1;
		free(find);
		free(rep);
	}
	tix_format_resum(b, (size_t)size);
	f = fopen(argv[2], "wb");
	if (!f || fwrite(b, 1, (size_t)size, f) != (size_t)size || fclose(f) != 0)
		return perror(argv[2]), 1;
	free(b);
	return 0;
}
