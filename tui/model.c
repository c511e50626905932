#include "tui/model.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *fmt_dur(int64_t ns, char *out, size_t cap)
{
	if (ns < 0)
		snprintf(out, cap, "-");
	else if (ns < 1000)
		snprintf(out, cap, "%lld ns", (long long)ns);
	else if (ns < 1000000)
		snprintf(out, cap, "%.1f us", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(out, cap, "%.2f ms", ns / 1e6);
	else
		snprintf(out, cap, "%.3f s", ns / 1e9);
	return out;
}

char *fmt_count(uint64_t n, char *out, size_t cap)
{
	char digits[32];
	int len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)n);
	char tmp[48];
	int j = 0;
	for (int i = 0; i < len; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			tmp[j++] = ',';
		tmp[j++] = digits[i];
	}
	tmp[j] = 0;
	snprintf(out, cap, "%s", tmp);
	return out;
}

static char *fmt_scaled(double v, const char *unit, char *out, size_t cap)
{
	static const char *prefix[] = {"", "k", "M", "G", "T", "P"};
	int p = 0;
	while (v >= 1000 && p < 5) {
		v /= 1000;
		p++;
	}
	if (p == 0)
		snprintf(out, cap, "%.0f %s", v, unit);
	else if (v >= 100)
		snprintf(out, cap, "%.1f %s%s", v, prefix[p], unit);
	else
		snprintf(out, cap, "%.2f %s%s", v, prefix[p], unit);
	return out;
}

char *fmt_bytes(double bytes, char *out, size_t cap)
{
	return fmt_scaled(bytes, "B", out, cap);
}

char *fmt_rate(double bytes_per_s, char *out, size_t cap)
{
	return fmt_scaled(bytes_per_s, "B/s", out, cap);
}

char *fmt_pct(int64_t part, int64_t whole, char *out, size_t cap)
{
	if (whole <= 0)
		snprintf(out, cap, "-");
	else
		snprintf(out, cap, "%.1f", 100.0 * (double)part / (double)whole);
	return out;
}

char *fmt_dim3(const int32_t v[3], char *out, size_t cap)
{
	if (v[0] <= 0 && v[1] <= 0 && v[2] <= 0)
		snprintf(out, cap, "-");
	else
		snprintf(out, cap, "[%d, %d, %d]", v[0], v[1], v[2]);
	return out;
}

char *fmt_dim3_compact(const int32_t v[3], char *out, size_t cap)
{
	if (v[0] <= 0 && v[1] <= 0 && v[2] <= 0)
		snprintf(out, cap, "-");
	else
		snprintf(out, cap, "[%d,%d,%d]", v[0], v[1], v[2]);
	return out;
}

/* Profiler dtype spellings (c10 ScalarType names as Kineto writes them). */
static const struct {
	const char *name;
	int size;
} dtypes[] = {
	{"float", 4}, {"double", 8}, {"c10::Half", 2}, {"c10::BFloat16", 2},
	{"long int", 8}, {"long", 8}, {"int64_t", 8}, {"int", 4}, {"short int", 2},
	{"short", 2}, {"bool", 1}, {"unsigned char", 1}, {"signed char", 1},
	{"char", 1}, {"c10::complex<float>", 8}, {"c10::complex<double>", 16},
	{"c10::complex<c10::Half>", 4}, {"c10::qint8", 1}, {"c10::quint8", 1},
	{"c10::qint32", 4}, {"c10::quint4x2", 1}, {"c10::Float8_e4m3fn", 1},
	{"c10::Float8_e5m2", 1}, {"c10::Float8_e4m3fnuz", 1}, {"c10::Float8_e5m2fnuz", 1},
	{"c10::Float8_e8m0fnu", 1}, {"c10::Float4_e2m1fn_x2", 1}, {"unsigned int", 4},
	{"unsigned short", 2}, {"unsigned long", 8}, {"uint8_t", 1}, {"int8_t", 1},
	{"Half", 2}, {"BFloat16", 2}, {"Float8_e4m3fn", 1}, {"Float8_e5m2", 1},
};

int dtype_size(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
		if (strlen(dtypes[i].name) == len && memcmp(dtypes[i].name, name, len) == 0)
			return dtypes[i].size;
	return 0;
}

static const char *skip_ws(const char *p)
{
	while (*p && isspace((unsigned char)*p))
		p++;
	return p;
}

/* Skips one JSON value (balanced brackets, strings); returns where it ends. */
static const char *skip_value(const char *p)
{
	int depth = 0;
	int in_str = 0;
	for (; *p; p++) {
		if (in_str) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				in_str = 0;
			continue;
		}
		if (*p == '"')
			in_str = 1;
		else if (*p == '[' || *p == '{')
			depth++;
		else if (*p == ']' || *p == '}') {
			if (depth == 0)
				return p;
			if (--depth == 0)
				return p + 1;
		} else if (*p == ',' && depth == 0)
			return p;
	}
	return p;
}

int shape_parse(const char *dims, const char *types, struct shape_in *out)
{
	memset(out, 0, sizeof *out);
	const char *p = skip_ws(dims ? dims : "");
	if (*p != '[')
		return -1;
	p = skip_ws(p + 1);
	while (*p && *p != ']' && out->n < SHAPE_MAX_TENSORS) {
		int i = out->n++;
		out->rank[i] = -1;
		if (*p == '[') {
			const char *q = skip_ws(p + 1);
			int rank = 0, ok = 1;
			while (*q && *q != ']') {
				char *end;
				long long v = strtoll(q, &end, 10);
				if (end == q || rank >= SHAPE_MAX_RANK) {
					ok = 0;
					break;
				}
				out->dims[i][rank++] = v;
				q = skip_ws(end);
				if (*q == ',')
					q = skip_ws(q + 1);
			}
			if (ok && *q == ']')
				out->rank[i] = rank;
		}
		p = skip_ws(skip_value(p));
		if (*p == ',')
			p = skip_ws(p + 1);
	}
	/* types: a list of strings, one per input */
	p = skip_ws(types ? types : "");
	if (*p == '[') {
		p = skip_ws(p + 1);
		for (int i = 0; *p && *p != ']' && i < SHAPE_MAX_TENSORS; i++) {
			if (*p == '"') {
				const char *s = p + 1, *e = s;
				while (*e && *e != '"')
					e++;
				out->elem[i] = dtype_size(s, (size_t)(e - s));
			}
			p = skip_ws(skip_value(p));
			if (*p == ',')
				p = skip_ws(p + 1);
		}
	}
	return 0;
}

int traffic_from_shape(const struct shape_in *s, struct traffic *out)
{
	memset(out, 0, sizeof *out);
	out->elements = -2; /* unset */
	for (int i = 0; i < s->n; i++) {
		if (s->rank[i] <= 0 || s->elem[i] == 0)
			continue;
		int64_t n = 1;
		for (int d = 0; d < s->rank[i]; d++)
			n *= s->dims[i][d] < 0 ? 0 : s->dims[i][d];
		out->bytes += (double)n * s->elem[i];
		out->elem_sizes[out->tensors++] = s->elem[i];
		if (out->elements == -2)
			out->elements = n;
		else if (out->elements != n)
			out->elements = -1;
	}
	if (out->tensors == 0) {
		out->elements = -1;
		return 0;
	}
	return 1;
}

char *fmt_traffic(const struct traffic *t, int64_t dur_ns, char *out, size_t cap)
{
	char a[48], b[48], c[48];
	int n = 0;
	out[0] = 0;
	if (t->elements >= 0) {
		n = snprintf(out, cap, "%s element%s x %s", fmt_count((uint64_t)t->elements, a, sizeof a),
		             t->elements == 1 ? "" : "s", t->tensors > 1 ? "(" : "");
		for (int i = 0; i < t->tensors && n >= 0 && (size_t)n < cap; i++)
			n += snprintf(out + n, cap - n, "%s%d", i ? " + " : "", t->elem_sizes[i]);
		if (n >= 0 && (size_t)n < cap)
			n += snprintf(out + n, cap - n, "%s byte%s = %s", t->tensors > 1 ? ")" : "",
			              t->tensors > 1 || t->elem_sizes[0] != 1 ? "s" : "",
			              fmt_bytes(t->bytes, b, sizeof b));
	} else {
		n = snprintf(out, cap, "%d tensors = %s", t->tensors, fmt_bytes(t->bytes, b, sizeof b));
	}
	if (dur_ns > 0 && n >= 0 && (size_t)n < cap)
		snprintf(out + n, cap - n, " in %s = %s", fmt_dur(dur_ns, a, sizeof a),
		         fmt_rate(t->bytes * 1e9 / (double)dur_ns, c, sizeof c));
	return out;
}

char *regex_escape(const char *s, char *out, size_t cap)
{
	size_t j = 0;
	if (cap == 0)
		return out;
	for (; *s && j + 2 < cap; s++) {
		if (strchr(".[]()*+?{}|^$\\", *s))
			out[j++] = '\\';
		out[j++] = *s;
	}
	out[j] = 0;
	return out;
}
