/* The traffic model (issue 8, rule R6 of docs/FORMAT.md "Rules"): how many
 * bytes a GPU event moved, and at what rate, only where the trace says so.
 *
 * A memcpy/memset carries its size.  A kernel's traffic is known from its
 * op's shapes only when the op's tensors are what the kernel reads and
 * writes: the innermost CPU op above its launch call is aten::copy_ (dst
 * and src: one read, one write) and launched this one kernel and nothing
 * else.  Anything else -- an op whose inputs include a whole KV cache, an
 * op that launched ten kernels -- gets no figure: the shapes cannot be
 * divided among them.  A rate above the device's peak memory bandwidth is
 * not printed either: it proves the shapes are not this kernel's traffic. */
#include "index/index.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHAPE_MAX_TENSORS 16
#define SHAPE_MAX_RANK 8

/* One op's inputs, parsed from its Input Dims and Input type texts. */
struct shape_in {
	int n;                               /* inputs seen (up to SHAPE_MAX_TENSORS) */
	int rank[SHAPE_MAX_TENSORS];         /* -1: not a plain list of ints */
	int64_t dims[SHAPE_MAX_TENSORS][SHAPE_MAX_RANK];
	int elem[SHAPE_MAX_TENSORS];         /* dtype size, 0 unknown */
};

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

static int dtype_size(const char *name, size_t len)
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

static int shape_parse(const char *dims, const char *types, struct shape_in *out)
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


/* Peak memory bandwidth by device name, first match wins (vendor data
 * sheets: NVIDIA V100 SXM2 900 GB/s, A100 40GB 1,555 GB/s, A100 80GB
 * 2,039 GB/s, H100 SXM 3.35 TB/s, H200 4.8 TB/s, B200 8 TB/s, RTX PRO 6000
 * Blackwell 1,792 GB/s; AMD Instinct MI300X 5.3 TB/s). */
static const struct {
	const char *has, *and_has;
	double peak_Bps;
} peaks[] = {
	/* GH200 comes with HBM3 (4 TB/s) or HBM3e (4.9 TB/s) and its name does
	 * not say which: unknown rather than a guess (and not "H200"). */
	{"GH200", NULL, -1},
	{"H200", NULL, 4.8e12},      {"H100", NULL, 3.35e12},    {"B200", NULL, 8.0e12},
	{"MI300X", NULL, 5.3e12},    {"RTX PRO 6000", NULL, 1.79e12},
	{"A100", "80GB", 2.0e12},    {"A100", NULL, 1.55e12},    {"V100", NULL, 0.9e12},
};

double tix_device_peak_Bps(const char *device_name)
{
	if (!device_name)
		return -1;
	for (size_t i = 0; i < sizeof(peaks) / sizeof(peaks[0]); i++)
		if (strstr(device_name, peaks[i].has) &&
		    (!peaks[i].and_has || strstr(device_name, peaks[i].and_has)))
			return peaks[i].peak_Bps;
	return -1;
}

/* The "name" of device `device` in the trace's deviceProperties (by "id",
 * else the first entry), copied into buf; NULL when the trace has none. */
static const char *device_name(const struct tix_index *ix, int device, char *buf, size_t cap)
{
	const char *json = NULL;
	for (uint32_t i = 0; i < tix_meta_count(ix); i++) {
		const char *k, *v;
		tix_meta_get(ix, i, &k, &v);
		if (!strcmp(k, "deviceProperties"))
			json = v;
	}
	if (!json)
		return NULL;
	const char *first = NULL, *found = NULL;
	/* Each entry is a flat object: {"id": 0, "name": "NVIDIA H100 ...", ...}. */
	for (const char *o = strchr(json, '{'); o; o = strchr(o + 1, '{')) {
		const char *end = strchr(o, '}');
		if (!end)
			break;
		const char *n = strstr(o, "\"name\"");
		if (!n || n > end)
			continue;
		n = strchr(n + 6, '"');
		if (!n || n > end)
			continue;
		if (!first)
			first = n;
		const char *id = strstr(o, "\"id\"");
		if (id && id < end) {
			const char *c = strchr(id + 4, ':');
			if (c && c < end && atoi(c + 1) == device)
				found = n;
		}
	}
	const char *n = found ? found : first;
	if (!n)
		return NULL;
	size_t j = 0;
	for (n++; *n && *n != '"' && j + 1 < cap; n++)
		buf[j++] = *n;
	buf[j] = 0;
	return buf;
}

int tix_event_traffic(const struct tix_index *ix, uint32_t row, struct tix_traffic *out)
{
	memset(out, 0, sizeof(*out));
	out->bytes = -1;
	out->bandwidth_Bps = out->peak_Bps = -1;
	out->elements = -1;
	struct tix_event e;
	tix_event_get(ix, row, &e);
	out->kind = e.kind;
	if (!tix_kind_is_gpu_work(e.kind))
		return 0;
	const struct tix_kernel_info *ki = tix_kernel_info_get(ix, e.kernel_info);
	if (e.kind != TIX_KIND_KERNEL) {
		if (!ki || ki->bytes < 0)
			return 0;
		out->bytes = ki->bytes;
		out->basis = "bytes";
	} else {
		if (e.launch == TIX_NONE)
			return 0;
		uint32_t anc[256];
		uint32_t n = tix_event_ancestors(ix, e.launch, anc, 256);
		n = n < 256 ? n : 256;
		uint32_t op = TIX_NONE;
		for (uint32_t i = 0; i < n && op == TIX_NONE; i++) {
			struct tix_event p;
			tix_event_get(ix, anc[i], &p);
			if (p.kind == TIX_KIND_CPU_OP)
				op = anc[i];
		}
		if (op == TIX_NONE)
			return 0;
		struct tix_event p;
		tix_event_get(ix, op, &p);
		const struct tix_op_info *oi = tix_op_info_get(ix, p.op_info);
		if (strcmp(tix_str(ix, p.name), "aten::copy_") != 0 || !oi || oi->dims == TIX_NONE ||
		    oi->types == TIX_NONE || tix_event_gpu_beneath(ix, op) != 1)
			return 0;
		struct shape_in s;
		if (shape_parse(tix_str(ix, oi->dims), tix_str(ix, oi->types), &s) != 0 || s.n < 2)
			return 0;
		double bytes = 0;
		for (int i = 0; i < 2; i++) {
			if (s.rank[i] < 0 || s.elem[i] == 0)
				return 0;
			int64_t k = 1;
			for (int d = 0; d < s.rank[i]; d++)
				k *= s.dims[i][d] < 0 ? 0 : s.dims[i][d];
			bytes += (double)k * s.elem[i];
			out->elem_sizes[i] = s.elem[i];
			if (i == 0)
				out->elements = k;
			else if (out->elements != k)
				out->elements = -1;
		}
		out->tensors = 2;
		out->bytes = (int64_t)bytes;
		out->basis = "aten::copy_";
	}
	char nb[sizeof(out->device_buf)];
	out->device = device_name(ix, ki ? ki->device : 0, nb, sizeof(nb)) ? nb : NULL;
	out->peak_Bps = tix_device_peak_Bps(out->device);
	if (out->device) {
		memcpy(out->device_buf, nb, sizeof(nb));
		out->device = out->device_buf;
	}
	if (e.dur_ns > 0) {
		double bw = (double)out->bytes * 1e9 / (double)e.dur_ns;
		if (out->peak_Bps > 0 && bw > out->peak_Bps)
			out->over_peak = 1;
		else
			out->bandwidth_Bps = bw;
	}
	return 1;
}

char *tix_fmt_count(uint64_t n, char *out, size_t cap)
{
	char digits[32], tmp[48];
	int len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)n), j = 0;
	for (int i = 0; i < len; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			tmp[j++] = ',';
		tmp[j++] = digits[i];
	}
	tmp[j] = 0;
	snprintf(out, cap, "%s", tmp);
	return out;
}

char *tix_fmt_scaled(double v, const char *unit, char *out, size_t cap)
{
	static const char *prefix[] = {"", "k", "M", "G", "T", "P", "E"};
	int p = 0;
	while (fabs(v) >= 1000 && p < 6) {
		v /= 1000;
		p++;
	}
	if (p == 0)
		snprintf(out, cap, "%.0f %s", v, unit);
	else if (fabs(v) >= 100)
		snprintf(out, cap, "%.1f %s%s", v, prefix[p], unit);
	else
		snprintf(out, cap, "%.2f %s%s", v, prefix[p], unit);
	return out;
}

char *tix_traffic_text(const struct tix_traffic *t, int64_t dur_ns, char *out, size_t cap)
{
	char a[48], b[48], c[48];
	int n;
	int own = t->kind == TIX_KIND_MEMCPY || t->kind == TIX_KIND_MEMSET; /* sized by the trace, not by shapes */
	if (t->bytes < 0) {
		snprintf(out, cap, "%s", own ? "n/a (the trace gives no size for it)"
		                             : "n/a (the op's shapes do not describe this kernel's traffic)");
		return out;
	}
	if (t->tensors && t->elements >= 0)
		n = snprintf(out, cap, "%s element%s x (%d + %d) bytes = %s", tix_fmt_count((uint64_t)t->elements, a, sizeof a),
		             t->elements == 1 ? "" : "s", t->elem_sizes[0], t->elem_sizes[1],
		             tix_fmt_scaled((double)t->bytes, "B", b, sizeof b));
	else
		n = snprintf(out, cap, "%s", tix_fmt_scaled((double)t->bytes, "B", b, sizeof b));
	if (n < 0 || (size_t)n >= cap || dur_ns <= 0)
		return out;
	tix_fmt_dur(a, sizeof a, dur_ns);
	double bw = (double)t->bytes * 1e9 / (double)dur_ns;
	if (t->over_peak && own && bw <= 1.05 * t->peak_Bps) {
		/* a copy or memset streaming at the memory's own speed: the peak
		 * in the table is the spec's round figure */
		snprintf(out + n, cap - n, " in %s = %s (%.1f%% of peak: as fast as the memory goes; the peak is the "
		         "spec's round figure)", a, tix_fmt_scaled(bw, "B/s", c, sizeof c), 100.0 * bw / t->peak_Bps);
	} else if (t->over_peak && own) {
		/* its own size, so the time is what is short: a trace of whole
		 * microseconds (2021 Kineto) writes 4.99 us as 4 us */
		double up = (double)t->bytes * 1e9 / (double)(dur_ns + 1000);
		n += snprintf(out + n, cap - n, " in %s: above the %s peak of %s", a, t->device ? t->device : "device's",
		              tix_fmt_scaled(t->peak_Bps, "B/s", c, sizeof c));
		if (n >= 0 && (size_t)n < cap && dur_ns % 1000 == 0 && up <= t->peak_Bps) {
			tix_fmt_dur(a, sizeof a, dur_ns + 1000);
			snprintf(out + n, cap - n, ", which the trace's whole microseconds explain (in %s: %s)", a,
			         tix_fmt_scaled(up, "B/s", c, sizeof c));
		} else if (n >= 0 && (size_t)n < cap) {
			snprintf(out + n, cap - n, ": the trace's duration is shorter than the %s took",
			         t->kind == TIX_KIND_MEMSET ? "memset" : "copy");
		}
	} else if (t->over_peak)
		snprintf(out + n, cap - n, " in %s: above the %s peak of %s, so the shapes cannot all be this kernel's traffic",
		         a, t->device ? t->device : "device's", tix_fmt_scaled(t->peak_Bps, "B/s", c, sizeof c));
	else if (t->bandwidth_Bps >= 0)
	{
		n += snprintf(out + n, cap - n, " in %s = %s", a,
		              tix_fmt_scaled(t->bandwidth_Bps, "B/s", c, sizeof c));
		if (t->peak_Bps > 0 && n >= 0 && (size_t)n < cap)
			snprintf(out + n, cap - n, " (%.1f%% of peak)", 100.0 * t->bandwidth_Bps / t->peak_Bps);
	}
	return out;
}
