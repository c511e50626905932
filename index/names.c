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

/* ---- ROCm Tensile GEMMs: Cijk_Alik_Bljk_SB_..._MT64x16x32_MI16x16x1_... ----
 * One name is some 60 tokens and 400-600 characters, of which users read
 * the layout (Cijk, A, B), the type, the macro tile (MT) and the matrix
 * instruction (MI); the rest shows only where two kernels differ. */

#define TENSILE_TOKENS 128

static int is_tensile(const char *s, size_t len)
{
	if (len < 80 || len < 5 || memcmp(s, "Cijk_", 5) != 0 || memchr(s, '<', len) || memchr(s, '(', len))
		return 0;
	int u = 0;
	for (size_t i = 0; i < len; i++)
		u += s[i] == '_';
	return u >= 12;
}

/* Its tokens (split at '_'): their starts and ends; how many. */
static int tensile_tokens(const char *s, size_t len, size_t *from, size_t *to)
{
	int n = 0;
	for (size_t i = 0, a = 0; i <= len && n < TENSILE_TOKENS; i++)
		if (i == len || s[i] == '_') {
			from[n] = a;
			to[n++] = i;
			a = i + 1;
		}
	return n;
}

/* A token that leads ("WG64") rather than continues one ("4" of WG64_4_1). */
static int tensile_key(const char *s, size_t f, size_t t)
{
	return t > f && !(s[f] >= '0' && s[f] <= '9');
}

/* The short form showing the first four tokens, MT and MI, and the tokens
 * (with the numbers that continue them) whose indices are set in show. */
static size_t tensile_short(const char *s, size_t len, const unsigned char *show, char *out, size_t cap)
{
	size_t f[TENSILE_TOKENS], t[TENSILE_TOKENS];
	int n = tensile_tokens(s, len, f, t), dots = 0;
	unsigned char on[TENSILE_TOKENS] = {0};
	for (int i = 0; i < n; i++) {
		int lead = i < 4 || (t[i] - f[i] > 2 && (!memcmp(s + f[i], "MT", 2) || !memcmp(s + f[i], "MI", 2)) &&
		                     s[f[i] + 2] >= '0' && s[f[i] + 2] <= '9');
		if (lead || (show && show[i])) {
			int a = i, b = i;
			while (a > 0 && !tensile_key(s, f[a], t[a]))
				a--;
			while (b + 1 < n && !tensile_key(s, f[b + 1], t[b + 1]))
				b++;
			for (int k = a; k <= b; k++)
				on[k] = 1;
		}
	}
	struct out o = {out, cap, 0, 0};
	for (int i = 0; i < n; i++) {
		if (!on[i]) {
			if (!dots)
				put(&o, i ? "_..." : "...", i ? 4 : 3);
			dots = 1;
			continue;
		}
		if (i)
			put(&o, "_", 1);
		put(&o, s + f[i], t[i] - f[i]);
		dots = 0;
	}
	if (cap)
		out[o.len < cap ? o.len : cap - 1] = '\0';
	return o.len;
}

/* Labels of a run of Tensile names: the tokens where pairs differ shown. */
static int tensile_apart(const char *const *names, const size_t *lens, uint32_t n, char **labels)
{
	unsigned char show[TENSILE_TOKENS] = {0};
	for (int round = 0; round < 8; round++) {
		for (uint32_t k = 0; k < n; k++) {
			char small[512];
			size_t m = tensile_short(names[k], lens[k], show, small, sizeof small);
			free(labels[k]);
			if (!(labels[k] = malloc(m + 1)))
				return -1;
			tensile_short(names[k], lens[k], show, labels[k], m + 1);
		}
		int a = -1, b = -1;
		for (uint32_t x = 0; x < n && a < 0; x++)
			for (uint32_t y = x + 1; y < n && a < 0; y++)
				if (!strcmp(labels[x], labels[y]))
					a = (int)x, b = (int)y;
		if (a < 0)
			return 0;
		size_t fa[TENSILE_TOKENS], ta[TENSILE_TOKENS], fb[TENSILE_TOKENS], tb[TENSILE_TOKENS];
		int na = tensile_tokens(names[a], lens[a], fa, ta), nb = tensile_tokens(names[b], lens[b], fb, tb), j = 0;
		while (j < na && j < nb && ta[j] - fa[j] == tb[j] - fb[j] &&
		       !memcmp(names[a] + fa[j], names[b] + fb[j], ta[j] - fa[j]))
			j++;
		if (j >= TENSILE_TOKENS || show[j])
			return 0; /* no help: numbered */
		show[j] = 1;
	}
	return 0;
}

/* The shortener.  keep_arg < 0: every template argument list is "<...>".
 * keep_arg = k: the first list shows its k-th top-level argument (itself
 * shortened), "<..., 256, ...>", which tells apart kernels that differ only
 * there. */
static size_t shorten(const char *name, size_t len, int keep_arg, char *out, size_t cap)
{
	struct out o = {out, cap, 0, 0};
	if (!looks_cpp(name, len) && is_tensile(name, len)) {
		return tensile_short(name, len, NULL, out, cap);
	} else if (!looks_cpp(name, len)) {
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

/* ---- labels that tell names apart ----
 * Two kernels whose short labels are equal differ somewhere inside their
 * template arguments, often deep: cutlass::device_kernel<GemmUniversal<...,
 * CollectiveMma<MainloopSm100...BlockScaled<5, ...>, ...>, ...>> vs <4, ...>.
 * A path is the argument indices from the name's first template list down
 * to the first argument in which two names differ; a label shows the
 * arguments on its paths, the rest as "...". */

#define PATH_DEPTH 8
#define MAX_PATHS 4
#define MAX_ARGS 64

struct path {
	int n;
	int idx[PATH_DEPTH];
};

/* The top-level arguments of the list whose '<' is at s[open] (ending at
 * s[close - 1] == '>'), as spans, blanks trimmed; how many (at most max). */
static int split_args(const char *s, size_t open, size_t close, size_t *from, size_t *to, int max)
{
	int k = 0;
	size_t a = open + 1, stop = close > open + 1 ? close - 1 : close;
	for (size_t q = a; q <= stop && k < max; q++) {
		if (q == stop || s[q] == ',') {
			size_t f = a, t = q;
			while (f < t && s[f] == ' ')
				f++;
			while (t > f && s[t - 1] == ' ')
				t--;
			if (f < t || q != stop || k > 0) {
				from[k] = f;
				to[k++] = t;
			}
			a = q + 1;
		} else if (s[q] == '<' || s[q] == '(') {
			q = skip_group(s, stop, q) - 1;
		}
	}
	return k;
}

/* The first '<' of s[f, t) outside operator names, before any '(': 0
 * when there is none. */
static size_t first_angle(const char *s, size_t f, size_t t)
{
	for (size_t i = f; i < t; i++) {
		size_t j = skip_operator(s, t, i);
		if (j != i) {
			i = j - 1;
			continue;
		}
		if (s[i] == '(')
			return 0;
		if (s[i] == '<')
			return i;
	}
	return 0;
}

/* The '<' of arg [f, t) when the argument is HEAD<...> and nothing after
 * it, else 0. */
static size_t arg_group(const char *s, size_t f, size_t t)
{
	size_t i = first_angle(s, f, t);
	return i > f && skip_group(s, t, i) == t ? i : 0;
}

/* The first template list of a name: its '<' and past its '>', or 0. */
static size_t first_list(const char *s, size_t len, size_t *close)
{
	size_t f, t;
	name_span(s, len, &f, &t);
	size_t i = first_angle(s, f, t);
	if (i)
		*close = skip_group(s, t, i);
	return i;
}

/* Where the lists at a[ao..ac) and b[bo..bc) first differ, appended to p;
 * 0, or -1 when they do not differ. */
static int first_diff(const char *a, size_t ao, size_t ac, const char *b, size_t bo, size_t bc, struct path *p)
{
	size_t af[MAX_ARGS], at[MAX_ARGS], bf[MAX_ARGS], bt[MAX_ARGS];
	int na = split_args(a, ao, ac, af, at, MAX_ARGS), nb = split_args(b, bo, bc, bf, bt, MAX_ARGS);
	for (int i = 0; i < na || i < nb; i++) {
		if (i < na && i < nb && at[i] - af[i] == bt[i] - bf[i] && !memcmp(a + af[i], b + bf[i], at[i] - af[i]))
			continue;
		if (p->n == PATH_DEPTH)
			return -1;
		p->idx[p->n++] = i;
		if (i >= na || i >= nb)
			return 0; /* one has an argument more */
		size_t ga = arg_group(a, af[i], at[i]), gb = arg_group(b, bf[i], bt[i]);
		/* the same template, other arguments: the difference is further in */
		if (ga && gb && ga - af[i] == gb - bf[i] && !memcmp(a + af[i], b + bf[i], ga - af[i]) &&
		    first_diff(a, ga, at[i], b, gb, bt[i], p) == 0)
			return 0;
		return 0;
	}
	return -1;
}

/* The last component of a qualified head: "GemmUniversal" of
 * cutlass::gemm::kernel::GemmUniversal. */
static void put_head(struct out *o, const char *s, size_t f, size_t t)
{
	for (size_t i = t; i > f + 1; i--)
		if (s[i - 1] == ':' && s[i - 2] == ':') {
			f = i;
			break;
		}
	put(o, s + f, t - f);
}

/* The list at s[open..close) showing only the arguments on paths (at this
 * depth), the others as "...". */
static void put_list(struct out *o, const char *s, size_t open, size_t close, const struct path *paths,
                     int npaths, int depth)
{
	size_t f[MAX_ARGS], t[MAX_ARGS];
	int n = split_args(s, open, close, f, t, MAX_ARGS), dots = 0;
	put(o, "<", 1);
	for (int i = 0; i < n; i++) {
		int on = 0, leaf = 0;
		for (int k = 0; k < npaths; k++)
			if (paths[k].n > depth && paths[k].idx[depth] == i) {
				on = 1;
				leaf |= paths[k].n == depth + 1;
			}
		if (!on && dots)
			continue;
		if (i > 0)
			put(o, ", ", 2);
		dots = !on;
		size_t g = on ? arg_group(s, f[i], t[i]) : 0;
		if (!on) {
			put(o, "...", 3);
		} else if (leaf || !g) { /* the argument that differs, shortened */
			char sub[256];
			size_t m = shorten(s + f[i], t[i] - f[i], -1, sub, sizeof sub);
			const char *v = sub;
			if (m < sizeof sub && !strncmp(v, "const::", 7)) /* "operator()() const::{lambda...}" */
				v += 7, m -= 7;
			put(o, v, m < sizeof sub ? m : sizeof sub - 1);
		} else {
			put_head(o, s, f[i], g);
			put_list(o, s, g, t[i], paths, npaths, depth + 1);
		}
	}
	put(o, ">", 1);
}

/* The label of name with the arguments on paths shown (malloc'd). */
static char *label_with(const char *name, size_t len, const struct path *paths, int npaths)
{
	size_t close, open = first_list(name, len, &close);
	char small[512];
	size_t n = shorten(name, len, -1, small, sizeof small);
	if (!open || !npaths)
		return strdup(n < sizeof small ? small : name);
	struct out o = {NULL, 0, 0, 0};
	char *buf = NULL;
	for (int pass = 0; pass < 2; pass++) { /* the length, then the text */
		o = (struct out){buf, buf ? o.len + 1 : 0, 0, 0};
		size_t f, t;
		name_span(name, len, &f, &t);
		put(&o, name + f, open - f);
		put_list(&o, name, open, close, paths, npaths, 0);
		/* what follows the first list, shortened: "::Params", "<...>" */
		char rest[256];
		size_t m = shorten(name + close, t > close ? t - close : 0, -1, rest, sizeof rest);
		put(&o, rest, m < sizeof rest ? m : sizeof rest - 1);
		if (!pass && !(buf = malloc(o.len + 1)))
			return NULL;
	}
	buf[o.len] = 0;
	return buf;
}

/* Whether the path where names a and b first differ, added to paths as
 * paths[np], tells them apart. */
static int path_apart(const char *const *names, const size_t *lens, uint32_t a, uint32_t b, struct path *paths,
                      int np)
{
	size_t ca, cb, oa = first_list(names[a], lens[a], &ca), ob = first_list(names[b], lens[b], &cb);
	struct path p = {0, {0}};
	if (!oa || !ob || first_diff(names[a], oa, ca, names[b], ob, cb, &p) != 0)
		return 0; /* they differ outside the first list */
	for (int k = 0; k < np; k++)
		if (paths[k].n == p.n && !memcmp(paths[k].idx, p.idx, sizeof(int) * (size_t)p.n))
			return 0;
	paths[np] = p;
	char *la = label_with(names[a], lens[a], paths, np + 1), *lb = label_with(names[b], lens[b], paths, np + 1);
	int apart = la && lb && strcmp(la, lb) != 0;
	free(la);
	free(lb);
	return apart;
}

int tix_labels_apart(const char *const *names, const size_t *lens, uint32_t n, char **labels)
{
	int tensile = n > 0;
	for (uint32_t k = 0; k < n; k++)
		tensile &= is_tensile(names[k], lens[k]);
	if (tensile)
		return tensile_apart(names, lens, n, labels);
	struct path paths[MAX_PATHS];
	int np = 0;
	for (;;) {
		for (uint32_t k = 0; k < n; k++) {
			free(labels[k]);
			if (!(labels[k] = label_with(names[k], lens[k], paths, np)))
				return -1;
		}
		if (np == MAX_PATHS)
			return 0;
		/* the first pair still alike that a path tells apart */
		int found = 0;
		for (uint32_t a = 0; a < n && !found; a++)
			for (uint32_t b = a + 1; b < n && !found; b++)
				if (!strcmp(labels[a], labels[b]) && path_apart(names, lens, a, b, paths, np))
					found = 1;
		if (!found) /* alike where the short form does not show (a lambda's parameters): numbered */
			return 0;
		np++;
	}
}

char *tix_fmt_dur(int64_t ns, char *out, size_t cap)
{
	double v = (double)ns;
	double a = v < 0 ? -v : v;
	if (a < 1e3)
		snprintf(out, cap, "%" PRId64 " ns", ns);
	else if (a < 1e6) /* 828.1 us: the TUI's and the CLI's one rounding */
		snprintf(out, cap, "%.1f us", v / 1e3);
	else if (a < 1e9)
		snprintf(out, cap, "%.2f ms", v / 1e6);
	else
		snprintf(out, cap, "%.3f s", v / 1e9);
	return out;
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
