/* Small shared pieces of the index module: errors, the kind table, hashing. */
#include "index/index.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static int error_vset(struct tix_error *err, enum tix_error_class cls, int errnum, const char *fmt,
                      va_list ap)
{
	if (!err)
		return -1;
	char raw[sizeof(err->msg)];
	int n = vsnprintf(raw, sizeof(raw), fmt, ap);
	if (errnum && n >= 0 && (size_t)n < sizeof(raw))
		snprintf(raw + n, sizeof(raw) - (size_t)n, ": %s", strerror(errnum));
	tix_printable(raw, err->msg, sizeof(err->msg));
	err->cls = cls;
	err->code = errnum;
	return -1;
}

int tix_error_set(struct tix_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_vset(err, TIX_ERR_INPUT, 0, fmt, ap);
	va_end(ap);
	return -1;
}

int tix_error_usage(struct tix_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_vset(err, TIX_ERR_USAGE, 0, fmt, ap);
	va_end(ap);
	return -1;
}

int tix_error_env(struct tix_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_vset(err, TIX_ERR_ENV, 0, fmt, ap);
	va_end(ap);
	return -1;
}

int tix_error_errno(struct tix_error *err, int errnum, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_vset(err, tix_errno_class(errnum), errnum, fmt, ap);
	va_end(ap);
	return -1;
}

int tix_error_sys(struct tix_error *err, int errnum, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_vset(err, TIX_ERR_ENV, errnum, fmt, ap);
	va_end(ap);
	return -1;
}

int tix_error_oom(struct tix_error *err, const char *path)
{
	if (path)
		tix_error_env(err, "%s: out of memory", path);
	else
		tix_error_env(err, "out of memory");
	if (err)
		err->code = ENOMEM;
	return -1;
}

enum tix_error_class tix_errno_class(int e)
{
	switch (e) {
	case ENOENT:
	case ENOTDIR:
	case EISDIR:
	case ELOOP:
	case ENXIO:
	case ENODEV:
	case EINVAL:
		return TIX_ERR_INPUT;
	default:
		return TIX_ERR_ENV;
	}
}

static const struct {
	const char *label, *cat, *spellings;
} kinds[TIX_KIND_COUNT] = {
#define TIX_KIND_ROW(e, label, cat, spellings, gpu, work, launch, marker, op) {label, cat, spellings},
	TIX_KINDS(TIX_KIND_ROW)
#undef TIX_KIND_ROW
};

const char *tix_kind_label(enum tix_kind k)
{
	return (unsigned)k < TIX_KIND_COUNT ? kinds[k].label : "?";
}

const char *tix_kind_cat(enum tix_kind k)
{
	return (unsigned)k < TIX_KIND_COUNT ? kinds[k].cat : "other";
}

const char *tix_capture_match_label(enum tix_capture_match m)
{
	static const char *const labels[TIX_MATCH_COUNT] = {
#define TIX_MATCH_LABEL(e, label) label,
		TIX_CAPTURE_MATCHES(TIX_MATCH_LABEL)
#undef TIX_MATCH_LABEL
	};
	return (unsigned)m < TIX_MATCH_COUNT ? labels[m] : "?";
}

/* Whether s[0..len) is the spelling p[0..n) ("*x": ends in x), in any case. */
static int spelled(const char *s, size_t len, const char *p, size_t n)
{
	if (n && p[0] == '*')
		return len >= n - 1 && strncasecmp(s + len - (n - 1), p + 1, n - 1) == 0;
	return len == n && strncasecmp(s, p, n) == 0;
}

enum tix_kind tix_kind_of_spelling(const char *s, size_t len)
{
	for (int k = 0; k < TIX_KIND_COUNT; k++) {
		for (const char *p = kinds[k].spellings; *p;) {
			size_t n = strcspn(p, "|");
			if (spelled(s, len, p, n))
				return (enum tix_kind)k;
			p += n + (p[n] == '|');
		}
	}
	return TIX_KIND_COUNT;
}

/* A 64-bit hash in the style of xxHash64: four lanes of multiply-rotate over
 * 32-byte stripes, then an avalanche.  Not cryptographic; it detects damage
 * on disk and keys hash tables. */
#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL
#define P4 0x85EBCA77C2B2AE63ULL
#define P5 0x27D4EB2F165667C5ULL

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t read64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline uint64_t lane(uint64_t acc, uint64_t v)
{
	acc += v * P2;
	acc = rotl64(acc, 31);
	return acc * P1;
}

uint64_t tix_hash64(const void *data, size_t len, uint64_t seed)
{
	const unsigned char *p = data;
	const unsigned char *end = p + len;
	uint64_t h;

	if (len >= 32) {
		uint64_t a = seed + P1 + P2, b = seed + P2, c = seed, d = seed - P1;
		do {
			a = lane(a, read64(p));
			b = lane(b, read64(p + 8));
			c = lane(c, read64(p + 16));
			d = lane(d, read64(p + 24));
			p += 32;
		} while (p + 32 <= end);
		h = rotl64(a, 1) + rotl64(b, 7) + rotl64(c, 12) + rotl64(d, 18);
		h = (h ^ lane(0, a)) * P1 + P4;
		h = (h ^ lane(0, b)) * P1 + P4;
		h = (h ^ lane(0, c)) * P1 + P4;
		h = (h ^ lane(0, d)) * P1 + P4;
	} else {
		h = seed + P5;
	}
	h += (uint64_t)len;
	for (; p + 8 <= end; p += 8)
		h = rotl64(h ^ lane(0, read64(p)), 27) * P1 + P4;
	if (p + 4 <= end) {
		uint32_t v;
		memcpy(&v, p, 4);
		h = rotl64(h ^ ((uint64_t)v * P1), 23) * P2 + P3;
		p += 4;
	}
	for (; p < end; p++)
		h = rotl64(h ^ (*p * P5), 11) * P1;
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	h ^= h >> 32;
	return h;
}

const char *tix_fold_ws(const char *s, char *buf, size_t cap)
{
	size_t j = 0;
	int space = 0, in_str = 0;
	if (!cap)
		return buf;
	for (; *s && j + 1 < cap; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			space = j > 0;
			continue;
		}
		/* outside strings, no blank inside brackets: a pretty-printed
		 * [\n  [\n 888,\n 2880\n ]\n] reads [[888, 2880]], as Kineto
		 * writes it on one line */
		char last = j ? buf[j - 1] : 0;
		int tight = !in_str && (last == '[' || last == '{' || c == ']' || c == '}' || c == ',' || c == ':');
		if (space && !tight && j + 2 < cap)
			buf[j++] = ' ';
		space = 0;
		if (c == '"' && (j == 0 || buf[j - 1] != '\\'))
			in_str = !in_str;
		buf[j++] = (char)c;
	}
	buf[j] = 0;
	return buf;
}
