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
		/* the op model's copy_: dst and src, each in its own dtype */
		struct tix_op_inputs in;
		struct tix_op_cost cost;
		if (tix_op_inputs_parse(tix_str(ix, oi->dims), tix_str(ix, oi->types), NULL, &in) != 0 ||
		    tix_op_cost_of("aten::copy_", &in, &cost) != 0 || cost.bytes < 0)
			return 0;
		int64_t k = 1;
		for (int d = 0; d < in.rank[0]; d++)
			k *= in.dims[0][d];
		out->elements = k;
		for (int i = 0; i < 2; i++)
			out->elem_sizes[i] = in.size[i];
		out->tensors = 2;
		out->bytes = (int64_t)cost.bytes;
		out->basis = "aten::copy_";
	}
	struct tix_device dev;
	tix_index_device(ix, ki ? ki->device : -1, &dev);
	out->peak_Bps = dev.peak_Bps;
	if (dev.name[0]) {
		snprintf(out->device_buf, sizeof(out->device_buf), "%s", dev.name);
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
	tix_fmt_dur(dur_ns, a, sizeof a);
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
			tix_fmt_dur(dur_ns + 1000, a, sizeof a);
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
