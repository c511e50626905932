/*
 * Fuzz target: tix_short_name (index/names.c) and parse_us_to_ns
 * (parse/events.c) on arbitrary bytes.
 *
 * tix_short_name: never reads past name[len] (the input is copied to an
 * exact-size heap buffer, so ASan sees one byte too far), never writes past
 * cap, always NUL-terminates, returns the same length whatever cap, and a
 * short buffer holds a prefix of what a large one holds.
 * parse_us_to_ns: never reads past s[n]; on a plain decimal (digits,
 * optionally '.' and digits) whose value fits, it returns 0 and the exact
 * value in ns rounded half up, checked against a 128-bit reference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/index.h"
#include "parse/events.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_short_name(const char *name, size_t n)
{
	size_t big = 2 * n + 64;
	char *full = malloc(big);
	if (!full)
		abort();
	size_t want = tix_short_name(name, n, full, big);
	/* names may hold NUL bytes: compare lengths and bytes, not strlen */
	if (want >= big || full[want] != '\0') {
		fprintf(stderr, "tix fuzz: tix_short_name: returned %zu, no NUL there\n", want);
		abort();
	}
	static const size_t caps[] = {0, 1, 2, 5, 16, 61};
	for (size_t k = 0; k < sizeof(caps) / sizeof(caps[0]); k++) {
		size_t cap = caps[k];
		char *o = malloc(cap ? cap : 1);
		if (!o)
			abort();
		size_t got = tix_short_name(name, n, cap ? o : NULL, cap);
		size_t keep = want < cap ? want : (cap ? cap - 1 : 0);
		if (got != want || (cap && (o[keep] != '\0' || memcmp(o, full, keep) != 0))) {
			fprintf(stderr, "tix fuzz: tix_short_name with cap %zu: returned %zu (%zu with a "
			        "large buffer), wrote \"%s\", expected the first %zu bytes of \"%s\"\n",
			        cap, got, want, cap ? o : "", keep, full);
			abort();
		}
		free(o);
	}
	free(full);
}

/* The reference for plain decimals: 0 and *ns, or -1 when it does not fit. */
static int ref_us_to_ns(const char *s, size_t n, __int128 *ns)
{
	size_t i = 0;
	__int128 v = 0;
	while (i < n && s[i] >= '0' && s[i] <= '9') {
		v = v * 10 + (s[i++] - '0');
		if (v > ((__int128)1 << 80))
			return -1;
	}
	v *= 1000;
	if (i < n && s[i] == '.') {
		i++;
		__int128 scale = 100;
		int round = 0;
		for (; i < n; i++, scale /= 10) {
			int d = s[i] - '0';
			if (scale)
				v += d * scale;
			else if (scale == 0 && !round)
				round = d >= 5 ? 1 : -1; /* the first digit past ns decides */
		}
		if (round > 0)
			v++;
	}
	*ns = v;
	return v <= INT64_MAX ? 0 : -1;
}

static int plain_decimal(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	if (i == 0 || (s[0] == '0' && i > 1)) /* JSON numbers: no leading zeros */
		return 0;
	if (i == n)
		return 1;
	if (s[i] != '.' || i + 1 == n)
		return 0;
	for (i++; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

static void check_us_to_ns(const char *s, size_t n)
{
	int64_t got = 0;
	int rc = parse_us_to_ns(s, n, &got);
	__int128 want;
	if (plain_decimal(s, n) && n <= 40 && ref_us_to_ns(s, n, &want) == 0) {
		if (rc != 0 || got != (int64_t)want) {
			fprintf(stderr, "tix fuzz: parse_us_to_ns(\"%.*s\") = %d, %lld; expected %lld ns\n",
			        (int)n, s, rc, (long long)got, (long long)(int64_t)want);
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an exact-size copy: a read at [size] is a heap overflow ASan reports */
	char *s = malloc(size ? size : 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	check_short_name(s, size);
	check_us_to_ns(s, size);
	/* the timestamp texts the parser passes are short: try the prefixes too */
	for (size_t k = 1; k < size && k <= 24; k += 7)
		check_us_to_ns(s, k);
	free(s);
	return 0;
}
