/* Display names: demangled C++ kernel names run to kilobytes of template
 * arguments; the short form keeps what tells kernels apart at a glance. */
#include <ctype.h>
#include "index/index.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct out {
	char *p;
	size_t cap, len; /* len counts every byte wanted, even past cap */
	size_t spaces;   /* trailing spaces put so far */
};

static void put(struct out *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++, o->len++) {
		if (o->len + 1 < o->cap)
			o->p[o->len] = s[i];
		o->spaces = s[i] == ' ' ? o->spaces + 1 : 0;
	}
}

/* "operator" followed by its symbol at name[i] ("operator()", "operator<<"):
 * returns the index past the symbol, or i when it is not an operator name. */
static size_t skip_operator(const char *name, size_t len, size_t i)
{
	if (len - i <= 8 || memcmp(name + i, "operator", 8) != 0 ||
	    (i > 0 && (name[i - 1] == '_' || (name[i - 1] >= 'a' && name[i - 1] <= 'z'))))
		return i;
	size_t j = i + 8;
	if (j + 1 < len && name[j] == '(' && name[j + 1] == ')')
		return j + 2;
	while (j < len && j < i + 11 && strchr("<>=!+-*/%&|^~[],", name[j]))
		j++;
	return j;
}

/* Index just past the bracket closing the '<' or '(' at name[i].  Angle
 * brackets nest only outside parentheses, so the "(8)>(0)" of an
 * enable_if condition closes nothing, and "operator<" is a name. */
static size_t skip_group(const char *name, size_t len, size_t i)
{
	int ang = 0, par = 0;
	for (; i < len; i++) {
		size_t j = skip_operator(name, len, i);
		if (j != i) {
			i = j - 1;
			continue;
		}
		char c = name[i];
		if (c == '(') {
			par++;
		} else if (c == ')') {
			if (--par < 0)
				return len;
			if (par == 0 && ang == 0)
				return i + 1;
		} else if (par == 0 && c == '<') {
			ang++;
		} else if (par == 0 && c == '>') {
			if (--ang == 0)
				return i + 1;
		}
	}
	return len;
}

/* A C++ signature: "void ", "::", a template, or an identifier directly
 * followed by a parameter list that ends the name ("f(int*, long)"), unlike
 * "Memcpy HtoD (Pinned -> Device)". */
static int looks_cpp(const char *name, size_t len)
{
	if (len >= 5 && memcmp(name, "void ", 5) == 0)
		return 1;
	for (size_t i = 0; i + 1 < len; i++)
		if ((name[i] == ':' && name[i + 1] == ':') || name[i] == '<')
			return 1;
	const char *paren = memchr(name, '(', len);
	if (paren && paren > name && name[len - 1] == ')') {
		char c = paren[-1];
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
	}
	return 0;
}

/* Where the qualified name starts and ends: past a return type ("void ",
 * "std::enable_if<...>::type "), before the parameter list. */
static void name_span(const char *name, size_t len, size_t *from, size_t *to)
{
	size_t start = 0, params = len;
	for (size_t i = 0; i < len;) {
		size_t j = skip_operator(name, len, i);
		if (j != i) {
			i = j;
			continue;
		}
		if (name[i] == '<' || name[i] == '(') {
			static const char anon[] = "(anonymous namespace)";
			j = skip_group(name, len, i);
			if (name[i] == '(' && j >= len &&
			    !(len - i >= sizeof(anon) - 1 && memcmp(name + i, anon, sizeof(anon) - 1) == 0)) {
				params = i; /* the parameter list ends the name */
				break;
			}
			i = j;
		} else {
			if (name[i] == ' ' && i + 1 < len)
				start = i + 1;
			i++;
		}
	}
	if (start >= params) /* a space only before the parameters: no return type */
		start = 0;
	*from = start;
	*to = params;
}

/* The shortener.  keep_arg < 0: every template argument list is "<...>".
 * keep_arg = k: the first list shows its k-th top-level argument (itself
 * shortened), "<..., 256, ...>", which tells apart kernels that differ only
 * there. */
static size_t shorten(const char *name, size_t len, int keep_arg, char *out, size_t cap)
{
	struct out o = {out, cap, 0, 0};
	if (!looks_cpp(name, len)) {
		put(&o, name, len);
	} else {
		size_t i, end;
		int first_group = 1;
		name_span(name, len, &i, &end);
		while (i < end) {
			char c = name[i];
			size_t j = skip_operator(name, end, i);
			if (j != i) {
				put(&o, name + i, j - i);
				i = j;
			} else if (c == '<') {
				j = skip_group(name, end, i);
				if (keep_arg >= 0 && first_group) {
					/* the k-th argument: split at top-level commas */
					size_t a = i + 1, stop = j > i + 1 ? j - 1 : j;
					int k = 0, nargs = 0;
					size_t arg_from = 0, arg_to = 0;
					for (size_t q = a; q <= stop; q++) {
						if (q == stop || name[q] == ',') {
							if (k == keep_arg) {
								arg_from = a;
								arg_to = q;
							}
							k++;
							a = q + 1;
						} else if (name[q] == '<' || name[q] == '(') {
							q = skip_group(name, stop, q) - 1;
						}
					}
					nargs = k;
					while (arg_from < arg_to && name[arg_from] == ' ')
						arg_from++;
					put(&o, "<", 1);
					if (keep_arg > 0)
						put(&o, "..., ", 5);
					if (keep_arg < nargs) {
						char sub[256];
						size_t n = shorten(name + arg_from, arg_to - arg_from, -1, sub, sizeof(sub));
						put(&o, sub, n < sizeof(sub) ? n : sizeof(sub) - 1);
					}
					if (keep_arg + 1 < nargs)
						put(&o, ", ...", 5);
					put(&o, ">", 1);
				} else {
					put(&o, "<...>", 5);
				}
				first_group = 0;
				i = j;
			} else if (c == '(') {
				static const char anon[] = "(anonymous namespace)";
				if (end - i >= sizeof(anon) - 1 && memcmp(name + i, anon, sizeof(anon) - 1) == 0) {
					put(&o, anon, sizeof(anon) - 1);
					i += sizeof(anon) - 1;
					continue;
				}
				put(&o, "(...)", 5);
				i = skip_group(name, end, i);
			} else {
				put(&o, &c, 1);
				i++;
			}
		}
		o.len -= o.spaces; /* whatever the cap, the same answer */
	}
	if (cap)
		out[o.len < cap ? o.len : cap - 1] = '\0';
	return o.len;
}

size_t tix_short_name(const char *name, size_t len, char *out, size_t cap)
{
	return shorten(name, len, -1, out, cap);
}

size_t tix_short_name_arg(const char *name, size_t len, int keep_arg, char *out, size_t cap)
{
	return shorten(name, len, keep_arg < 0 ? 0 : keep_arg, out, cap);
}

void tix_fmt_dur(char *buf, size_t cap, int64_t ns)
{
	double v = (double)ns;
	double a = v < 0 ? -v : v;
	if (a < 1e3)
		snprintf(buf, cap, "%" PRId64 " ns", ns);
	else if (a < 1e6) /* 828.1 us: the TUI's and the CLI's one rounding */
		snprintf(buf, cap, "%.1f us", v / 1e3);
	else if (a < 1e9)
		snprintf(buf, cap, "%.2f ms", v / 1e6);
	else
		snprintf(buf, cap, "%.3f s", v / 1e9);
}


size_t tix_utf8_len(const unsigned char *p, size_t avail)
{
	unsigned char c = p[0];
	size_t len = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
	             : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
	if (!len || len > avail)
		return 0;
	for (size_t k = 1; k < len; k++)
		if ((p[k] & 0xC0) != 0x80)
			return 0;
	if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xF0 && p[1] < 0x90))
		return 0; /* overlong */
	if ((c == 0xED && p[1] >= 0xA0) || (c == 0xF4 && p[1] >= 0x90))
		return 0; /* a surrogate, or past U+10FFFF */
	return len;
}

const char *tix_printable(const char *s, char *buf, size_t cap)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0, avail = strlen(s);
	if (!cap)
		return buf;
	while (*p) {
		int escape;
		size_t len = tix_text_char(p, avail, &escape);
		char piece[13];
		if (escape) { /* index/text.c says what and why */
			for (size_t k = 0; k < len; k++)
				snprintf(piece + 4 * k, sizeof(piece) - 4 * k, "\\x%02x", p[k]);
		} else {
			memcpy(piece, p, len);
		}
		size_t out = escape ? 4 * len : len;
		if (n + out + 4 > cap) {
			if (cap >= 4)
				memcpy(buf + (n < cap - 4 ? n : cap - 4), "...", 4);
			else
				buf[0] = '\0';
			return buf;
		}
		memcpy(buf + n, piece, out);
		n += out;
		p += len;
		avail -= len;
	}
	buf[n] = '\0';
	return buf;
}

int tix_name_is_comm(const char *name)
{
	static const char *const words[] = {
		"nccl", "rccl", "msccl", "nvshmem", "deep_ep", "allreduce", "all_reduce", "allgather",
		"all_gather", "reducescatter", "reduce_scatter", "alltoall", "all_to_all",
		"cross_device_reduce", NULL,
	};
	/* lowered once, then searched with strstr: C++ kernel names run to kilobytes */
	char small[1024], *low = small;
	size_t n = strlen(name);
	if (n >= sizeof(small) && !(low = malloc(n + 1)))
		return 0;
	for (size_t i = 0; i <= n; i++)
		low[i] = (char)tolower((unsigned char)name[i]);
	int hit = 0;
	for (int w = 0; words[w] && !hit; w++)
		hit = strstr(low, words[w]) != NULL;
	if (low != small)
		free(low);
	return hit;
}
