/* The op model (docs/FINDINGS.md, section 3): the FLOPs and bytes of one CPU
 * op instance from its Input Dims, Input type and Concrete Inputs, by op
 * class.  The formulas are TraceLens's (AMD-AGI/TraceLens,
 * PerfModel/perf_model.py) except where FINDINGS.md says otherwise; this
 * file is their only definition, used by the build (op-shape groups, the op
 * totals) and by the reader (a launch's detail).
 *
 * Known limits: a tensor of more than TIX_MODEL_MAX_RANK dimensions, an op
 * of more than TIX_MODEL_MAX_INPUTS inputs (the rest ignored), nested lists
 * (a TensorList input) and symbolic dimensions are "does not parse": the op
 * is not modelled, never modelled wrong. */
#include "index/index.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- dtypes ---- */

/* Profiler dtype spellings (c10 ScalarType names as Kineto writes them),
 * their size and the peak a GEMM of them is measured against. */
static const struct {
	const char *name;
	int size;
	enum tix_peak peak;
} dtypes[] = {
	{"float", 4, TIX_PEAK_FP32},
	{"double", 8, TIX_PEAK_NONE},
	{"c10::Half", 2, TIX_PEAK_FP16},
	{"c10::BFloat16", 2, TIX_PEAK_BF16},
	{"c10::Float8_e4m3fn", 1, TIX_PEAK_FP8},
	{"c10::Float8_e4m3fnuz", 1, TIX_PEAK_FP8},
	{"c10::Float8_e5m2", 1, TIX_PEAK_FP8},
	{"c10::Float8_e5m2fnuz", 1, TIX_PEAK_FP8},
	{"c10::Float8_e8m0fnu", 1, TIX_PEAK_NONE},   /* scales, not GEMM operands */
	{"c10::Float4_e2m1fn_x2", 1, TIX_PEAK_FP4},  /* a packed pair */
	{"long int", 8, TIX_PEAK_NONE},
	{"long", 8, TIX_PEAK_NONE},
	{"int64_t", 8, TIX_PEAK_NONE},
	{"int", 4, TIX_PEAK_NONE},
	{"unsigned int", 4, TIX_PEAK_NONE},
	{"unsigned long", 8, TIX_PEAK_NONE},
	{"unsigned short", 2, TIX_PEAK_NONE},
	{"short int", 2, TIX_PEAK_NONE},
	{"short", 2, TIX_PEAK_NONE},
	{"signed char", 1, TIX_PEAK_INT8},
	{"unsigned char", 1, TIX_PEAK_INT8},
	{"int8_t", 1, TIX_PEAK_INT8},
	{"uint8_t", 1, TIX_PEAK_INT8},
	{"char", 1, TIX_PEAK_NONE},
	{"bool", 1, TIX_PEAK_NONE},
	{"c10::complex<float>", 8, TIX_PEAK_NONE},
	{"c10::complex<double>", 16, TIX_PEAK_NONE},
	{"c10::complex<c10::Half>", 4, TIX_PEAK_NONE},
	{"c10::qint8", 1, TIX_PEAK_INT8},
	{"c10::quint8", 1, TIX_PEAK_INT8},
	{"c10::qint32", 4, TIX_PEAK_NONE},
	/* older profilers wrote them without the namespace */
	{"Half", 2, TIX_PEAK_FP16},
	{"BFloat16", 2, TIX_PEAK_BF16},
	{"Float8_e4m3fn", 1, TIX_PEAK_FP8},
	{"Float8_e5m2", 1, TIX_PEAK_FP8},
};

static int dtype_find(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
		if (strlen(dtypes[i].name) == len && memcmp(dtypes[i].name, name, len) == 0)
			return (int)i;
	return -1;
}

/* ---- parsing the inputs ---- */

static const char *skip_ws(const char *p)
{
	while (*p && isspace((unsigned char)*p))
		p++;
	return p;
}

/* Skips one JSON value (balanced brackets, strings); returns where it ends. */
static const char *skip_value(const char *p)
{
	int depth = 0, in_str = 0;
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

/* The list items of a JSON array text: calls item(i, start) for each, up
 * to max; returns how many there were (max at most). */
static int list_items(const char *text, int max, void (*item)(void *, int, const char *), void *ctx)
{
	const char *p = skip_ws(text ? text : "");
	if (*p != '[')
		return 0;
	p = skip_ws(p + 1);
	int n = 0;
	while (*p && *p != ']' && n < max) {
		item(ctx, n++, p);
		p = skip_ws(skip_value(p));
		if (*p == ',')
			p = skip_ws(p + 1);
	}
	return n;
}

static void dims_item(void *ctx, int i, const char *p)
{
	struct tix_op_inputs *in = ctx;
	in->rank[i] = -1;
	if (*p != '[')
		return;
	const char *q = skip_ws(p + 1);
	int rank = 0;
	while (*q && *q != ']') {
		char *end;
		long long v = strtoll(q, &end, 10);
		if (end == q || rank >= TIX_MODEL_MAX_RANK || v < 0)
			return;
		in->dims[i][rank++] = v;
		q = skip_ws(end);
		if (*q == ',')
			q = skip_ws(q + 1);
		else if (*q != ']')
			return;
	}
	if (*q == ']')
		in->rank[i] = rank;
}

/* The Input type tags Kineto writes for arguments that are no tensor. */
static int non_tensor_tag(const char *s, size_t n)
{
	static const char *const tags[] = {"", "Scalar", "ScalarType", "ScalarList", "TensorList",
	                                   "GenericList", "Int", "Double", "Bool", "None", "String",
	                                   "Device"};
	for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++)
		if (strlen(tags[i]) == n && !memcmp(tags[i], s, n))
			return 1;
	return 0;
}

static void types_item(void *ctx, int i, const char *p)
{
	struct tix_op_inputs *in = ctx;
	if (*p != '"')
		return;
	const char *s = p + 1, *e = s;
	while (*e && *e != '"')
		e++;
	int d = dtype_find(s, (size_t)(e - s));
	in->size[i] = d >= 0 ? dtypes[d].size : 0;
	in->peak[i] = d >= 0 ? dtypes[d].peak : TIX_PEAK_NONE;
	in->scalar[i] = non_tensor_tag(s, (size_t)(e - s));
}

static void concrete_item(void *ctx, int i, const char *p)
{
	struct tix_op_inputs *in = ctx;
	in->concrete[i] = p;
}

int tix_op_inputs_parse(const char *dims, const char *types, const char *concrete,
                        struct tix_op_inputs *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < TIX_MODEL_MAX_INPUTS; i++) {
		out->rank[i] = -1;
		out->peak[i] = TIX_PEAK_NONE;
	}
	out->n = list_items(dims, TIX_MODEL_MAX_INPUTS, dims_item, out);
	list_items(types, TIX_MODEL_MAX_INPUTS, types_item, out);
	list_items(concrete, TIX_MODEL_MAX_INPUTS, concrete_item, out);
	return out->n > 0 ? 0 : -1;
}

/* ---- helpers over the parsed inputs ---- */

/* Input i is a tensor: a list of dims, not a Scalar; a 0-d tensor ([]
 * with a tensor dtype: one element) too, but not the [] of an argument
 * that is no tensor (a ScalarType, a list of ints: typed "" or Scalar). */
static int is_tensor(const struct tix_op_inputs *in, int i)
{
	return i < in->n && !in->scalar[i] && (in->rank[i] > 0 || (in->rank[i] == 0 && in->size[i] > 0));
}

static double prod(const struct tix_op_inputs *in, int i)
{
	double p = 1;
	for (int d = 0; d < in->rank[i]; d++)
		p *= (double)in->dims[i][d];
	return p;
}

static int bpe(const struct tix_op_inputs *in, int i)
{
	return in->size[i];
}

static enum tix_peak peak_of(const struct tix_op_inputs *in, int i)
{
	return in->peak[i];
}

/* The text of concrete input i without its quotes into buf ("" if none). */
static const char *concrete_str(const struct tix_op_inputs *in, int i, char *buf, size_t cap)
{
	buf[0] = 0;
	const char *p = i < TIX_MODEL_MAX_INPUTS ? in->concrete[i] : NULL;
	if (!p || *p != '"')
		return buf;
	size_t n = 0;
	for (p++; *p && *p != '"' && n + 1 < cap; p++)
		buf[n++] = *p;
	buf[n] = 0;
	return buf;
}

static int concrete_true(const struct tix_op_inputs *in, int i)
{
	char b[16];
	return strcmp(concrete_str(in, i, b, sizeof b), "True") == 0;
}

/* Concrete input i as a list of integers ("[1, 1]" or "1"): how many into
 * v (up to cap), -1 when it is not one. */
static int concrete_ints(const struct tix_op_inputs *in, int i, int64_t *v, int cap)
{
	char b[128];
	const char *p = skip_ws(concrete_str(in, i, b, sizeof b));
	int bracket = *p == '[', n = 0;
	if (bracket)
		p = skip_ws(p + 1);
	if (!*p)
		return -1;
	while (*p && *p != ']') {
		char *end;
		long long x = strtoll(p, &end, 10);
		if (end == p || n >= cap)
			return -1;
		v[n++] = x;
		p = skip_ws(end);
		if (*p == ',')
			p = skip_ws(p + 1);
	}
	return n;
}

static void set(struct tix_op_cost *c, double flops, double bytes, enum tix_peak peak)
{
	c->flops = flops;
	c->bytes = bytes;
	c->peak = peak;
}

#define FORMULA(c, ...) snprintf((c)->formula, sizeof((c)->formula), __VA_ARGS__)

/* ---- GEMMs ---- */

/* A [.., M, K] x B [.., K, N] from inputs a and b (rank 2, or rank 3 with
 * batch when batched); 0 when the shapes say so. */
static int mnk(const struct tix_op_inputs *in, int a, int b, int batched, double *B, double *M,
               double *N, double *K)
{
	int r = batched ? 3 : 2;
	if (!is_tensor(in, a) || !is_tensor(in, b) || in->rank[a] != r || in->rank[b] != r)
		return -1;
	const int64_t *x = in->dims[a], *y = in->dims[b];
	*B = batched ? (double)x[0] : 1;
	*M = (double)x[r - 2];
	*K = (double)x[r - 1];
	*N = (double)y[r - 1];
	if ((double)y[r - 2] != *K || (batched && y[0] != x[0]))
		return -1;
	return 0;
}

/* Packed FP4 holds two values a byte: the reduction runs over twice the
 * stored K. */
static double k_real(const struct tix_op_inputs *in, int a, double K)
{
	return peak_of(in, a) == TIX_PEAK_FP4 ? 2 * K : K;
}

static int model_gemm(const char *op, const struct tix_op_inputs *in, struct tix_op_cost *c)
{
	double B, M, N, K;
	int e = 0;
	if (!strcmp(op, "aten::mm") || !strcmp(op, "aten::bmm")) {
		int batched = op[6] == 'b';
		if (mnk(in, 0, 1, batched, &B, &M, &N, &K))
			return -1;
		double kr = k_real(in, 0, K);
		e = bpe(in, 0);
		set(c, B * 2 * M * N * kr, e ? B * (M * K + K * N + M * N) * e : -1, peak_of(in, 0));
		if (batched)
			FORMULA(c, "b*2*M*N*K = %.0f*2*%.0f*%.0f*%.0f", B, M, N, kr);
		else
			FORMULA(c, "2*M*N*K = 2*%.0f*%.0f*%.0f", M, N, kr);
		return 0;
	}
	if (!strcmp(op, "aten::addmm") || !strcmp(op, "aten::baddbmm")) {
		int batched = op[6] == 'b';
		if (mnk(in, 1, 2, batched, &B, &M, &N, &K))
			return -1;
		double kr = k_real(in, 1, K);
		e = bpe(in, 1);
		set(c, B * (2 * M * N * kr + M * N), e ? B * (M * K + K * N + M * N + N) * e : -1,
		    peak_of(in, 1));
		if (batched)
			FORMULA(c, "b*(2*M*N*K + M*N) = %.0f*(2*%.0f*%.0f*%.0f + %.0f*%.0f)", B, M, N, kr, M, N);
		else
			FORMULA(c, "2*M*N*K + M*N = 2*%.0f*%.0f*%.0f + %.0f*%.0f", M, N, kr, M, N);
		return 0;
	}
	if (!strcmp(op, "aten::_scaled_mm")) {
		if (mnk(in, 0, 1, 0, &B, &M, &N, &K))
			return -1;
		double kr = k_real(in, 0, K);
		e = bpe(in, 0);
		int out = e == 1 ? 2 : e;
		set(c, 2 * M * N * kr, e ? (M * K + K * N) * e + M * N * out : -1, peak_of(in, 0));
		FORMULA(c, "2*M*N*K = 2*%.0f*%.0f*%.0f", M, N, kr);
		return 0;
	}
	if (!strcmp(op, "aten::linear")) {
		/* x [..., K], weight [N, K], bias [N] or absent */
		if (!is_tensor(in, 0) || !is_tensor(in, 1) || in->rank[1] != 2)
			return -1;
		K = (double)in->dims[0][in->rank[0] - 1];
		N = (double)in->dims[1][0];
		if ((double)in->dims[1][1] != K || K <= 0)
			return -1;
		M = prod(in, 0) / K;
		int bias = is_tensor(in, 2);
		double kr = k_real(in, 0, K);
		e = bpe(in, 0);
		set(c, 2 * M * N * kr + (bias ? M * N : 0), e ? (M * K + K * N + M * N + (bias ? N : 0)) * e : -1,
		    peak_of(in, 0));
		FORMULA(c, "2*M*N*K%s = 2*%.0f*%.0f*%.0f%s", bias ? " + M*N" : "", M, N, kr, bias ? " + M*N" : "");
		return 0;
	}
	if (!strcmp(op, "aten::matmul")) {
		if (!is_tensor(in, 0) || !is_tensor(in, 1))
			return -1;
		int ra = in->rank[0], rb = in->rank[1];
		const int64_t *x = in->dims[0], *y = in->dims[1];
		M = ra >= 2 ? (double)x[ra - 2] : 1;
		K = (double)x[ra - 1];
		N = rb >= 2 ? (double)y[rb - 1] : 1;
		double kb = rb >= 2 ? (double)y[rb - 2] : (double)y[0];
		if (kb != K)
			return -1;
		/* the batch: the broadcast of the dimensions before the last two */
		B = 1;
		int ba = ra > 2 ? ra - 2 : 0, bb = rb > 2 ? rb - 2 : 0, nb = ba > bb ? ba : bb;
		for (int d = 0; d < nb; d++) {
			int64_t da = d < nb - ba ? 1 : x[d - (nb - ba)], db = d < nb - bb ? 1 : y[d - (nb - bb)];
			if (da != db && da != 1 && db != 1)
				return -1;
			B *= (double)(da > db ? da : db);
		}
		double kr = k_real(in, 0, K);
		e = bpe(in, 0);
		set(c, B * 2 * M * N * kr, e ? B * (M * K + K * N + M * N) * e : -1, peak_of(in, 0));
		FORMULA(c, "b*2*M*N*K = %.0f*2*%.0f*%.0f*%.0f", B, M, N, kr);
		return 0;
	}
	return 1; /* not a GEMM */
}

/* ---- attention ---- */

/* Query-key pairs a causal mask keeps: PyTorch's is_causal is aligned to
 * the top left (query i sees keys 0..i), flash-attn's to the bottom right
 * (query i sees keys 0..i + nk - nq).  The sum over queries i < nq of
 * clamp(i + 1 + shift, 0, nk), in closed form: none before a, i + 1 +
 * shift in [a, b), all nk from b on. */
static double causal_pairs(double nq, double nk, int bottom_right)
{
	double s = bottom_right ? nk - nq : 0;
	double a = -s > 0 ? -s : 0;
	a = a < nq ? a : nq;
	double b = nk - 1 - s < nq ? nk - 1 - s : nq;
	b = b > a ? b : a;
	return (b - a) * (a + b - 1) / 2 + (b - a) * (1 + s) + (nq - b) * nk;
}

static int model_attention(const char *op, const struct tix_op_inputs *in, struct tix_op_cost *c)
{
	int causal_at = -1, bnhd = 0, bottom_right = 0;
	if (!strcmp(op, "aten::scaled_dot_product_attention"))
		causal_at = 5;
	else if (!strcmp(op, "aten::_scaled_dot_product_flash_attention"))
		causal_at = 4;
	else if (!strcmp(op, "aten::_scaled_dot_product_efficient_attention") ||
	         !strcmp(op, "aten::_scaled_dot_product_cudnn_attention"))
		causal_at = 6;
	else if (!strcmp(op, "aten::_flash_attention_forward"))
		causal_at = 8, bnhd = 1;
	else if (!strcmp(op, "flash_attn::_flash_attn_forward"))
		causal_at = 5, bnhd = 1, bottom_right = 1;
	else
		return 1;
	if (!is_tensor(in, 0) || !is_tensor(in, 1) || !is_tensor(in, 2) || in->rank[0] != 4 ||
	    in->rank[1] != 4 || in->rank[2] != 4)
		return -1; /* varlen (packed) layouts are not modelled */
	const int64_t *q = in->dims[0], *k = in->dims[1], *v = in->dims[2];
	int h = bnhd ? 2 : 1, n = bnhd ? 1 : 2;
	double B = (double)q[0], H = (double)q[h], Hkv = (double)k[h], nq = (double)q[n],
	       nk = (double)k[n], d = (double)q[3], dv = (double)v[3];
	if (k[0] != q[0] || v[n] != k[n] || k[3] != q[3] || Hkv <= 0)
		return -1;
	/* without its is_causal the pairs are not known: not modelled */
	char cb[16];
	if (!in->concrete[causal_at] || !concrete_str(in, causal_at, cb, sizeof cb)[0])
		return -1;
	int causal = concrete_true(in, causal_at);
	double pairs = causal ? causal_pairs(nq, nk, bottom_right) : nq * nk;
	int e = bpe(in, 0);
	set(c, 2 * B * H * pairs * (d + dv),
	    e ? (B * H * nq * d + B * Hkv * nk * (d + dv) + B * H * nq * dv) * e : -1, peak_of(in, 0));
	if (causal)
		FORMULA(c, "2*B*H*P*(d+dv), P = %s causal pairs of %.0fx%.0f = %.0f: 2*%.0f*%.0f*%.0f*(%.0f+%.0f)",
		        bottom_right ? "bottom-right" : "top-left", nq, nk, pairs, B, H, pairs, d, dv);
	else
		FORMULA(c, "2*B*H*Nq*Nkv*(d+dv) = 2*%.0f*%.0f*%.0f*%.0f*(%.0f+%.0f)", B, H, nq, nk, d, dv);
	return 0;
}

/* ---- convolution ---- */

static int model_conv(const char *op, const struct tix_op_inputs *in, struct tix_op_cost *c)
{
	/* convolution(input, weight, bias, stride, padding, dilation, transposed,
	 * output_padding, groups); _convolution adds flags after them;
	 * conv1d/2d/3d(input, weight, bias, stride, padding, dilation, groups) */
	int full = !strcmp(op, "aten::convolution") || !strcmp(op, "aten::_convolution");
	int nd = !strcmp(op, "aten::conv1d") || !strcmp(op, "aten::conv2d") || !strcmp(op, "aten::conv3d");
	/* cudnn_convolution(self, weight, padding, stride, dilation, groups, ...) */
	int cudnn = !strcmp(op, "aten::cudnn_convolution");
	if (!full && !nd && !cudnn)
		return 1;
	int at_stride = 3, at_pad = cudnn ? 2 : 4, at_dil = cudnn ? 4 : 5;
	int at_groups = full ? 8 : cudnn ? 5 : 6;
	if (!is_tensor(in, 0) || !is_tensor(in, 1) || in->rank[0] != in->rank[1] || in->rank[0] < 3 ||
	    in->rank[0] > 5)
		return -1;
	int sp = in->rank[0] - 2;
	int64_t stride[3], pad[3], dil[3], outpad[3] = {0, 0, 0};
	/* a single number stands for every spatial dimension */
#define SPATIAL(idx, arr)                                            \
	do {                                                         \
		int got = concrete_ints(in, idx, arr, 3);            \
		if (got == 1)                                        \
			for (int s_ = 1; s_ < sp; s_++)              \
				arr[s_] = arr[0];                    \
		else if (got != sp)                                  \
			return -1;                                   \
	} while (0)
	SPATIAL(at_stride, stride);
	SPATIAL(at_pad, pad);
	SPATIAL(at_dil, dil);
	int transposed = full && concrete_true(in, 6);
	if (transposed)
		SPATIAL(7, outpad);
#undef SPATIAL
	const int64_t *x = in->dims[0], *w = in->dims[1];
	int64_t groups[1];
	if (concrete_ints(in, at_groups, groups, 1) != 1 || groups[0] <= 0)
		return -1;
	double out = (double)x[0] * (double)(transposed ? w[1] * groups[0] : w[0]);
	for (int s = 0; s < sp; s++) {
		int64_t i = x[2 + s], k = w[2 + s], o;
		if (stride[s] <= 0)
			return -1;
		if (transposed)
			o = (i - 1) * stride[s] - 2 * pad[s] + dil[s] * (k - 1) + outpad[s] + 1;
		else
			o = (i + 2 * pad[s] - dil[s] * (k - 1) - 1) / stride[s] + 1;
		if (o <= 0)
			return -1;
		out *= (double)o;
	}
	double wk = prod(in, 1) / (double)w[0]; /* prod(w[1:]) */
	int e = bpe(in, 0);
	double flops = 2 * wk * (transposed ? prod(in, 0) : out);
	set(c, flops, e ? (prod(in, 0) + prod(in, 1) + out) * e : -1, peak_of(in, 0));
	FORMULA(c, "2*prod(w[1:])*prod(%s) = 2*%.0f*%.0f", transposed ? "x" : "out", wk,
	        transposed ? prod(in, 0) : out);
	return 0;
}

/* ---- memory-bound ops ---- */

static int name_in(const char *op, const char *const *names)
{
	for (; *names; names++)
		if (!strcmp(op, *names))
			return 1;
	return 0;
}

static const char *const unary_ops[] = {
	"aten::silu", "aten::silu_", "aten::gelu", "aten::gelu_", "aten::relu", "aten::relu_",
	"aten::sigmoid", "aten::sigmoid_", "aten::tanh", "aten::tanh_", "aten::exp", "aten::exp_",
	"aten::neg", "aten::neg_", "aten::rsqrt", "aten::rsqrt_", "aten::sqrt", "aten::sqrt_",
	"aten::pow", "aten::pow_", "aten::clamp", "aten::clamp_", "aten::clamp_min",
	"aten::clamp_min_", "aten::clamp_max", "aten::clamp_max_", "aten::abs", "aten::abs_",
	"aten::reciprocal", "aten::reciprocal_", NULL};
static const char *const binary_ops[] = {
	"aten::add", "aten::add_", "aten::sub", "aten::sub_", "aten::mul", "aten::mul_",
	"aten::div", "aten::div_", "aten::where", "aten::maximum", "aten::minimum", NULL};
static const char *const reduce_ops[] = {
	"aten::sum", "aten::mean", "aten::amax", "aten::amin", "aten::max", "aten::min",
	"aten::norm", "aten::linalg_vector_norm", "aten::std", "aten::var", "aten::logsumexp", NULL};
static const char *const softmax_ops[] = {
	"aten::softmax", "aten::_softmax", "aten::log_softmax", "aten::_log_softmax", NULL};
static const char *const norm_ops[] = {
	"aten::layer_norm", "aten::native_layer_norm", "aten::rms_norm", "aten::_fused_rms_norm",
	"aten::group_norm", "aten::native_group_norm", "aten::batch_norm", "aten::native_batch_norm",
	NULL};

/* The broadcast of the shapes of the tensors among inputs 0 .. arity-1
 * (an out= tensor after them is not an operand): its element count, or -1. */
static double broadcast_elems(const struct tix_op_inputs *in, int arity)
{
	int64_t shape[TIX_MODEL_MAX_RANK];
	int rank = 0, tensors = 0;
	for (int i = 0; i < in->n && i < arity; i++) {
		if (!is_tensor(in, i))
			continue;
		tensors++;
		int r = in->rank[i];
		if (r > rank) { /* right-align the shorter shape */
			int64_t s2[TIX_MODEL_MAX_RANK];
			for (int d = 0; d < r; d++)
				s2[d] = d < r - rank ? 1 : shape[d - (r - rank)];
			memcpy(shape, s2, sizeof(int64_t) * (size_t)r);
			rank = r;
		}
		for (int d = 0; d < r; d++) {
			int64_t a = shape[rank - r + d], b = in->dims[i][d];
			if (a != b && a != 1 && b != 1)
				return -1;
			shape[rank - r + d] = a > b ? a : b;
		}
	}
	double n = 1; /* 0-d tensors only: one element */
	for (int d = 0; d < rank; d++)
		n *= (double)shape[d];
	return tensors ? n : -1;
}

/* Σ prod·bpe of the tensor inputs first .. end-1; -1 when a dtype is unknown. */
static double input_bytes(const struct tix_op_inputs *in, int first, int end, int *max_bpe)
{
	double b = 0;
	*max_bpe = 0;
	for (int i = first; i < in->n && i < end; i++) {
		if (!is_tensor(in, i))
			continue;
		int e = bpe(in, i);
		if (!e)
			return -1;
		b += prod(in, i) * e;
		*max_bpe = e > *max_bpe ? e : *max_bpe;
	}
	return b;
}

static int model_memory(const char *op, const struct tix_op_inputs *in, struct tix_op_cost *c)
{
	int e0 = is_tensor(in, 0) ? bpe(in, 0) : 0;
	double n0 = is_tensor(in, 0) ? prod(in, 0) : -1;
	if (!strcmp(op, "aten::copy_")) {
		/* copy_(self, src): reads src, writes self, each in its own dtype */
		c->cls = TIX_OPC_COPY;
		if (!is_tensor(in, 0) || !is_tensor(in, 1))
			return -1;
		int e1 = bpe(in, 1);
		set(c, -1, e0 && e1 ? n0 * (e0 + e1) : -1, TIX_PEAK_NONE);
		FORMULA(c, "elements x (dst + src bytes) = %.0f x (%d + %d)", n0, e0, e1);
		return 0;
	}
	if (!strcmp(op, "aten::clone") || !strcmp(op, "aten::contiguous")) {
		c->cls = TIX_OPC_COPY;
		if (!is_tensor(in, 0))
			return -1;
		set(c, -1, e0 ? 2 * n0 * e0 : -1, TIX_PEAK_NONE);
		FORMULA(c, "elements x (read + write bytes) = %.0f x (%d + %d)", n0, e0, e0);
		return 0;
	}
	if (name_in(op, unary_ops) || name_in(op, binary_ops)) {
		c->cls = TIX_OPC_ELEMENTWISE;
		int maxe, arity = name_in(op, unary_ops) ? 1 : !strcmp(op, "aten::where") ? 3 : 2;
		double nout = broadcast_elems(in, arity), rd = input_bytes(in, 0, arity, &maxe);
		if (nout < 0)
			return -1;
		set(c, nout, rd >= 0 ? rd + nout * maxe : -1, TIX_PEAK_NONE);
		FORMULA(c, "inputs read + %.0f elements x %d bytes written", nout, maxe);
		return 0;
	}
	if (name_in(op, softmax_ops) || name_in(op, reduce_ops)) {
		c->cls = TIX_OPC_REDUCTION;
		if (!is_tensor(in, 0))
			return -1;
		/* max(a, b) and min(a, b) of two tensors are elementwise, not modelled */
		if ((!strcmp(op, "aten::max") || !strcmp(op, "aten::min")) && is_tensor(in, 1))
			return -1;
		double nout = 1;
		if (name_in(op, softmax_ops)) {
			nout = n0;
		} else {
			int64_t dims[TIX_MODEL_MAX_RANK];
			/* the dim argument: norm(self, p, dim, ...), linalg_vector_norm(self,
			 * ord, dim, ...); the others (self, dim, ...) */
			int at = !strcmp(op, "aten::norm") || !strcmp(op, "aten::linalg_vector_norm") ? 2 : 1;
			int nd = concrete_ints(in, at, dims, TIX_MODEL_MAX_RANK);
			if (nd > 0) { /* the input without the reduced dims */
				nout = n0;
				for (int k = 0; k < nd; k++) {
					int64_t d = dims[k] < 0 ? dims[k] + in->rank[0] : dims[k];
					if (d < 0 || d >= in->rank[0] || in->dims[0][d] == 0)
						return -1;
					nout /= (double)in->dims[0][d];
				}
			}
		}
		set(c, n0, e0 ? (n0 + nout) * e0 : -1, TIX_PEAK_NONE);
		FORMULA(c, "(%.0f read + %.0f written) elements x %d bytes", n0, nout, e0);
		return 0;
	}
	if (name_in(op, norm_ops)) {
		c->cls = TIX_OPC_NORM;
		if (!is_tensor(in, 0))
			return -1;
		int maxe;
		double w = input_bytes(in, 1, in->n, &maxe);
		set(c, 5 * n0, e0 && w >= 0 ? 2 * n0 * e0 + w : -1, TIX_PEAK_NONE);
		FORMULA(c, "2 x %.0f elements x %d bytes + %.0f bytes of weights", n0, e0, w);
		return 0;
	}
	return 1;
}

/* ---- the door ---- */

static const char *const class_names[TIX_OPC_COUNT] = {
	[TIX_OPC_NONE] = "none",           [TIX_OPC_GEMM] = "gemm",
	[TIX_OPC_ATTENTION] = "attention", [TIX_OPC_CONV] = "convolution",
	[TIX_OPC_COPY] = "copy",           [TIX_OPC_ELEMENTWISE] = "elementwise",
	[TIX_OPC_REDUCTION] = "reduction", [TIX_OPC_NORM] = "norm",
};

const char *tix_op_class_name(enum tix_op_class c)
{
	return c < TIX_OPC_COUNT ? class_names[c] : "none";
}

int tix_op_class_is_compute(enum tix_op_class c)
{
	return c == TIX_OPC_GEMM || c == TIX_OPC_ATTENTION || c == TIX_OPC_CONV;
}

enum tix_op_class tix_op_class_of(const char *op)
{
	struct tix_op_inputs none;
	struct tix_op_cost c;
	memset(&none, 0, sizeof(none));
	for (int i = 0; i < TIX_MODEL_MAX_INPUTS; i++) {
		none.rank[i] = -1;
		none.peak[i] = TIX_PEAK_NONE;
	}
	tix_op_cost_of(op, &none, &c);
	return c.cls;
}

int tix_op_cost_of(const char *op, const struct tix_op_inputs *in, struct tix_op_cost *c)
{
	memset(c, 0, sizeof(*c));
	c->flops = c->bytes = -1;
	c->peak = TIX_PEAK_NONE;
	int rc;
	c->cls = TIX_OPC_GEMM;
	if ((rc = model_gemm(op, in, c)) <= 0)
		goto done;
	c->cls = TIX_OPC_ATTENTION;
	if ((rc = model_attention(op, in, c)) <= 0)
		goto done;
	c->cls = TIX_OPC_CONV;
	if ((rc = model_conv(op, in, c)) <= 0)
		goto done;
	c->cls = TIX_OPC_NONE; /* model_memory sets its class */
	if ((rc = model_memory(op, in, c)) <= 0)
		goto done;
	c->cls = TIX_OPC_NONE;
	c->why_not = "no model for this op";
	return -1;
done:
	if (rc < 0) {
		c->flops = c->bytes = -1;
		c->formula[0] = 0;
		c->why_not = "its Input Dims / Input type do not fit the model";
		return -1;
	}
	if (c->flops < 0 && c->bytes < 0)
		c->why_not = "an input's dtype is not known";
	return 0;
}

int tix_op_cost(const char *op, const char *dims, const char *types, const char *concrete,
                struct tix_op_cost *c)
{
	struct tix_op_inputs in;
	if (tix_op_inputs_parse(dims, types, concrete, &in) != 0) {
		tix_op_cost_of(op, &in, c);
		if (c->cls != TIX_OPC_NONE) {
			c->flops = c->bytes = -1;
			c->formula[0] = 0;
			c->why_not = dims ? "its Input Dims do not parse" : "no Input Dims (record_shapes off?)";
		}
		return -1;
	}
	return tix_op_cost_of(op, &in, c);
}
