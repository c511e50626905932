/*
 * Unit tests of the op model (index/perf_model.c) and the device table
 * (index/peaks.c), against figures worked out by hand from
 * docs/FINDINGS.md sections 3, 5 and 10: one case per formula and per
 * reading the page calls out (bias, packed FP4, causal masks aligned top
 * left and bottom right, transposed convolution, out= operands, 0-d
 * tensors, reduced dims, unknown dtypes), the matching of the device names
 * the corpus holds, and the --peak-bw / --peak-flops overrides.
 *
 *   test_model
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "index/index.h"

#include "tests/check.h"

static void cost(const char *op, const char *dims, const char *types, const char *concrete,
                 enum tix_op_class cls, double flops, double bytes)
{
	struct tix_op_cost c;
	tix_op_cost(op, dims, types, concrete, &c);
	EXPECT(c.cls == cls && c.flops == flops && c.bytes == bytes,
	       "%s %s %s: class %s flops %.0f bytes %.0f, expected %s %.0f %.0f", op, dims, types,
	       tix_op_class_name(c.cls), c.flops, c.bytes, tix_op_class_name(cls), flops, bytes);
}

static void gemms(void)
{
	/* the GLM-5 decode GEMM: 2MNK, (MK + KN + MN) x 2 bytes */
	cost("aten::mm", "[[1, 2048], [2048, 7168]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]", NULL,
	     TIX_OPC_GEMM, 2.0 * 1 * 7168 * 2048, (2048.0 + 2048 * 7168 + 7168) * 2);
	/* addmm: + MN FLOPs and + N bias elements */
	cost("aten::addmm", "[[16], [4, 8], [8, 16], [], []]", "[\"float\", \"float\", \"float\", \"Scalar\", \"Scalar\"]",
	     NULL, TIX_OPC_GEMM, 2.0 * 4 * 16 * 8 + 4 * 16, (32.0 + 128 + 64 + 16) * 4);
	cost("aten::bmm", "[[3, 4, 8], [3, 8, 16]]", "[\"c10::Half\", \"c10::Half\"]", NULL, TIX_OPC_GEMM,
	     3 * 2.0 * 4 * 16 * 8, 3 * (32.0 + 128 + 64) * 2);
	/* linear with a bias is addmm; x's leading dims are M */
	cost("aten::linear", "[[2, 3, 8], [16, 8], [16]]", "[\"float\", \"float\", \"float\"]", NULL, TIX_OPC_GEMM,
	     2.0 * 6 * 16 * 8 + 6 * 16, (48.0 + 128 + 96 + 16) * 4);
	/* FP8 _scaled_mm writes 2-byte outputs */
	cost("aten::_scaled_mm", "[[64, 128], [128, 256], [], [], [], []]",
	     "[\"c10::Float8_e4m3fn\", \"c10::Float8_e4m3fn\", \"float\", \"float\", \"\", \"\"]", NULL,
	     TIX_OPC_GEMM, 2.0 * 64 * 256 * 128, 64.0 * 128 + 128 * 256 + 64 * 256 * 2);
	/* packed FP4: K is twice the stored dimension */
	cost("aten::mm", "[[4, 8], [8, 16]]", "[\"c10::Float4_e2m1fn_x2\", \"c10::Float4_e2m1fn_x2\"]", NULL,
	     TIX_OPC_GEMM, 2.0 * 4 * 16 * 16, (32.0 + 128 + 64) * 1);
	/* matmul broadcasts the batch */
	cost("aten::matmul", "[[5, 4, 8], [8, 16]]", "[\"float\", \"float\"]", NULL, TIX_OPC_GEMM,
	     5 * 2.0 * 4 * 16 * 8, 5 * (32.0 + 128 + 64) * 4);
	/* shapes that do not multiply: not modelled */
	cost("aten::mm", "[[4, 8], [9, 16]]", "[\"float\", \"float\"]", NULL, TIX_OPC_GEMM, -1, -1);
	/* an unknown dtype: FLOPs known, bytes not */
	cost("aten::mm", "[[4, 8], [8, 16]]", "[\"c10::Weird\", \"c10::Weird\"]", NULL, TIX_OPC_GEMM,
	     2.0 * 4 * 16 * 8, -1);
}

static void attention(void)
{
	const char *qkv = "[[2, 8, 128, 64], [2, 8, 128, 64], [2, 8, 128, 64]]";
	const char *bf = "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\"]";
	double bytes = (2.0 * 8 * 128 * 64 + 2.0 * 8 * 128 * 128 + 2.0 * 8 * 128 * 64) * 2;
	/* not causal: every (query, key) pair */
	cost("aten::_scaled_dot_product_flash_attention", qkv, bf, "[\"\", \"\", \"\", \"0.\", \"False\"]",
	     TIX_OPC_ATTENTION, 2.0 * 2 * 8 * 128 * 128 * 128, bytes);
	/* causal, square: N(N+1)/2 pairs */
	cost("aten::_scaled_dot_product_flash_attention", qkv, bf, "[\"\", \"\", \"\", \"0.\", \"True\"]",
	     TIX_OPC_ATTENTION, 2.0 * 2 * 8 * (128.0 * 129 / 2) * 128, bytes);
	/* no Concrete Inputs: the mask is not known */
	cost("aten::_scaled_dot_product_flash_attention", qkv, bf, NULL, TIX_OPC_ATTENTION, -1, -1);
	/* decode, one query over 1000 keys, causal: PyTorch's mask (top left)
	 * keeps 1 pair, flash-attn's (bottom right) all 1000 */
	const char *dq = "[[1, 8, 1, 64], [1, 8, 1000, 64], [1, 8, 1000, 64]]";
	double db = (8.0 * 64 + 8.0 * 1000 * 128 + 8.0 * 64) * 2;
	cost("aten::scaled_dot_product_attention", dq, bf, "[\"\", \"\", \"\", \"\", \"0.\", \"True\"]",
	     TIX_OPC_ATTENTION, 2.0 * 8 * 1 * 128, db);
	const char *dn = "[[1, 1, 8, 64], [1, 1000, 8, 64], [1, 1000, 8, 64]]";
	cost("flash_attn::_flash_attn_forward", dn, bf, "[\"\", \"\", \"\", \"0.\", \"0.125\", \"True\"]",
	     TIX_OPC_ATTENTION, 2.0 * 8 * 1000 * 128, db);
}

static void convolution(void)
{
	/* ResNet's first layer: 7x7 stride 2 padding 3, 224 -> 112 */
	cost("aten::convolution", "[[10, 3, 224, 224], [64, 3, 7, 7], [], [], [], [], [], [], []]",
	     "[\"float\", \"float\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\"]",
	     "[\"\", \"\", \"\", \"[2, 2]\", \"[3, 3]\", \"[1, 1]\", \"False\", \"[0, 0]\", \"1\"]", TIX_OPC_CONV,
	     2.0 * (3 * 7 * 7) * (10.0 * 64 * 112 * 112), (10.0 * 3 * 224 * 224 + 64 * 3 * 49 + 10.0 * 64 * 112 * 112) * 4);
	/* conv2d: stride, padding, dilation, groups at 3-6 */
	cost("aten::conv2d", "[[1, 8, 16, 16], [8, 8, 3, 3], [], [], [], [], []]",
	     "[\"float\", \"float\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Int\"]",
	     "[\"\", \"\", \"\", \"[1, 1]\", \"[1, 1]\", \"[1, 1]\", \"1\"]", TIX_OPC_CONV,
	     2.0 * 72 * (8.0 * 16 * 16), (8.0 * 256 + 576 + 8.0 * 256) * 4);
	/* transposed: 2 x prod(w[1:]) x prod(x); out (8-1)*2 - 0 + 1*(2-1) + 0 + 1 = 16 */
	cost("aten::convolution", "[[1, 4, 8, 8], [4, 2, 2, 2], [], [], [], [], [], [], []]",
	     "[\"float\", \"float\", \"\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\"]",
	     "[\"\", \"\", \"\", \"[2, 2]\", \"[0, 0]\", \"[1, 1]\", \"True\", \"[0, 0]\", \"1\"]", TIX_OPC_CONV,
	     2.0 * (2 * 2 * 2) * (4.0 * 64), (256.0 + 32 + 2.0 * 16 * 16) * 4);
}

static void memory_ops(void)
{
	/* the KV cache cast: n x (2 + 1) bytes */
	cost("aten::copy_", "[[495552, 1, 576], [495552, 1, 576], []]",
	     "[\"c10::BFloat16\", \"c10::Float8_e4m3fn\", \"Scalar\"]", NULL, TIX_OPC_COPY, -1, 285437952.0 * 3);
	/* binary with a Scalar: the scalar moves nothing; out= is no operand */
	cost("aten::add", "[[4, 6], [4, 6], []]", "[\"float\", \"float\", \"Scalar\"]", NULL, TIX_OPC_ELEMENTWISE,
	     24, 24.0 * 4 * 3);
	cost("aten::div", "[[4, 6], [6], [4, 6]]", "[\"c10::Half\", \"c10::Half\", \"c10::Half\"]", NULL,
	     TIX_OPC_ELEMENTWISE, 24, (24.0 + 6 + 24) * 2);
	/* broadcast of 0-d tensors: one element */
	cost("aten::add_", "[[], [], []]", "[\"long int\", \"long int\", \"Scalar\"]", NULL, TIX_OPC_ELEMENTWISE,
	     1, 3 * 8);
	/* in-place unary forms are modelled as their op */
	cost("aten::sigmoid_", "[[10]]", "[\"float\"]", NULL, TIX_OPC_ELEMENTWISE, 10, 80);
	/* reductions: the dims of their dim argument go (norm's is at 2) */
	cost("aten::sum", "[[4, 6], [], [], []]", "[\"float\", \"ScalarList\", \"Scalar\", \"\"]",
	     "[\"\", \"[1]\", \"False\", \"\"]", TIX_OPC_REDUCTION, 24, (24.0 + 4) * 4);
	cost("aten::norm", "[[4, 6], [], [], []]", "[\"float\", \"Scalar\", \"ScalarList\", \"Scalar\"]",
	     "[\"\", \"2\", \"[0]\", \"False\"]", TIX_OPC_REDUCTION, 24, (24.0 + 6) * 4);
	cost("aten::mean", "[[4, 6]]", "[\"float\"]", NULL, TIX_OPC_REDUCTION, 24, (24.0 + 1) * 4);
	/* max of two tensors is no reduction */
	cost("aten::max", "[[4], [4]]", "[\"float\", \"float\"]", NULL, TIX_OPC_REDUCTION, -1, -1);
	cost("aten::layer_norm", "[[4, 6], [], [6], [6], [], []]",
	     "[\"float\", \"\", \"float\", \"float\", \"Scalar\", \"Scalar\"]", NULL, TIX_OPC_NORM, 120,
	     2 * 24.0 * 4 + 12 * 4);
	cost("sgl_kernel::fwd", "[[1, 2]]", "[\"float\"]", NULL, TIX_OPC_NONE, -1, -1);
}

static void device(const char *name, int sms, double mem_gb, const char *model, double bw_tbs, double bf16_tf)
{
	struct tix_device d;
	tix_device_match(name, sms, mem_gb * 1e9, &d);
	int ok = model ? d.known && d.model && !strcmp(d.model, model) && fabs(d.peak_Bps - bw_tbs * 1e12) < 1e3 &&
	                     (bf16_tf < 0 ? d.peak_flops[TIX_PEAK_BF16] < 0
	                                  : fabs(d.peak_flops[TIX_PEAK_BF16] - bf16_tf * 1e12) < 1e3)
	               : !d.known && d.peak_Bps < 0;
	EXPECT(ok, "device %s (%d SMs, %.0f GB): %s %.3g B/s, expected %s", name, sms, mem_gb,
	       d.model ? d.model : "none", d.peak_Bps, model ? model : "none");
}

static void devices(void)
{
	/* the names of the corpus and the generator */
	device("NVIDIA B200", 148, 191.5, "B200", 8.0, 2250);
	device("NVIDIA GH200 480GB", 132, 101.5, "GH200 96GB", 4.0, 990);
	device("NVIDIA A100-PG509-200", 108, 42.3, "A100 40GB", 1.555, 312);
	device("NVIDIA A100 80GB PCIe", 108, 85.1, "A100 80GB PCIe", 1.935, 312);
	device("NVIDIA A100-SXM4-80GB", 108, 85.1, "A100 80GB SXM4", 2.039, 312);
	device("Tesla V100-SXM2-32GB", 80, 34.1, "V100 SXM2", 0.9, -1);
	device("NVIDIA H100 80GB HBM3", 132, 85.0, "H100 SXM5", 3.35, 989.5);
	device("NVIDIA H100 PCIe", 114, 85.0, "H100 PCIe", 2.0, 756.5);
	device("NVIDIA H200", 132, 150.0, "H200 SXM", 4.8, 989.5);
	device("NVIDIA GB200", 0, 189.0, "GB200", 8.0, 2500);
	device("AMD Instinct MI300X", 304, 206.1, "MI300X", 5.3, 1307.4);
	device("", 304, 206.1, "MI300X", 5.3, 1307.4);             /* ROCm's empty name */
	device("", 120, 206.1, NULL, 0, 0);                      /* not that */
	device("AMD Radeon Graphics", 104, 68.7, "MI250 (one GCD)", 1.6384, 181.05);
	device("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", 188, 102, NULL, 0, 0);
	device("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", 188, 102, "RTX PRO 6000 Blackwell", 1.792, 504);
	device("ARTEMIS", 0, 0, NULL, 0, 0);
	device("Quadro RTX 8000", 72, 48, NULL, 0, 0);
}

static void overrides(void)
{
	struct tix_device d;
	const char *why;
	tix_device_match("ARTEMIS", 0, 0, &d);
	CHECK(tix_device_override(&d, "3.35T", "bf16=989T,fp8=1979e12", &why) == 0 && d.known &&
	          fabs(d.peak_Bps - 3.35e12) < 1 && fabs(d.peak_flops[TIX_PEAK_BF16] - 989e12) < 1 &&
	          fabs(d.peak_flops[TIX_PEAK_FP8] - 1979e12) < 1 && d.peak_flops[TIX_PEAK_FP32] < 0,
	      "--peak-bw 3.35T --peak-flops bf16=989T,fp8=1979e12");
	CHECK(tix_device_override(&d, NULL, "500 TFLOPs", &why) != 0, "--peak-flops '500 TFLOPs' is refused: %s",
	      why ? why : "");
	CHECK(tix_device_override(&d, NULL, "500T", &why) == 0 && fabs(d.peak_flops[TIX_PEAK_FP32] - 500e12) < 1,
	      "--peak-flops 500T sets every dtype");
	CHECK(tix_device_override(&d, "-1", NULL, &why) != 0 && tix_device_override(&d, "abc", NULL, &why) != 0,
	      "--peak-bw wants a positive number");
	CHECK(tix_device_override(&d, NULL, "bf17=1T", &why) != 0, "--peak-flops names a dtype tix knows");
	/* a fast FP32 GEMM ran on TF32 */
	tix_device_match("NVIDIA A100-SXM4-80GB", 108, 85e9, &d);
	enum tix_peak as;
	double p = tix_device_peak_flops(&d, TIX_PEAK_FP32, 60e12, &as);
	CHECK(as == TIX_PEAK_TF32 && fabs(p - 156e12) < 1, "FP32 at 60 TFLOP/s on an A100 is measured against TF32");
	p = tix_device_peak_flops(&d, TIX_PEAK_FP32, 10e12, &as);
	CHECK(as == TIX_PEAK_FP32 && fabs(p - 19.5e12) < 1, "FP32 at 10 TFLOP/s against FP32");
}

int main(void)
{
	gemms();
	attention();
	convolution();
	memory_ops();
	devices();
	overrides();
	return checks_done("test_model");
}
