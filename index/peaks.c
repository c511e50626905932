/* Device peaks (docs/FINDINGS.md, sections 5 and 10): one table of memory
 * bandwidth and dense tensor FLOP/s per dtype, each row with the document
 * its figures come from, and the matching of a trace's deviceProperties
 * against it.  A device that no row matches has no peak: tix never invents
 * one.  Where a vendor lists only figures "with sparsity" (H100, H200,
 * B200, GB200) the dense figure is half of it, as the vendor's own
 * architecture documents give it. */
#include "index/index.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const peak_names[TIX_PEAK_COUNT] = {
	[TIX_PEAK_FP32] = "fp32", [TIX_PEAK_TF32] = "tf32", [TIX_PEAK_FP16] = "fp16",
	[TIX_PEAK_BF16] = "bf16", [TIX_PEAK_FP8] = "fp8",   [TIX_PEAK_FP4] = "fp4",
	[TIX_PEAK_INT8] = "int8",
};

const char *tix_peak_name(enum tix_peak p)
{
	return p < TIX_PEAK_COUNT ? peak_names[p] : NULL;
}

int tix_peak_parse(const char *s)
{
	for (int p = 0; p < TIX_PEAK_COUNT; p++)
		if (!strcmp(s, peak_names[p]))
			return p;
	return -1;
}

/* The documents (docs/FINDINGS.md, section 10 lists them with their URLs). */
enum source {
	SRC_V100, SRC_A100, SRC_H100, SRC_GH200, SRC_H200, SRC_DGX_B200, SRC_GB200, SRC_L40S,
	SRC_RTX_BLACKWELL, SRC_RTX_PRO_6000, SRC_MI200, SRC_MI300X, SRC_MI325X, SRC_COUNT
};
static const char *const sources[SRC_COUNT] = {
	[SRC_V100] = "NVIDIA Tesla V100 GPU Accelerator datasheet",
	[SRC_A100] = "NVIDIA A100 Tensor Core GPU datasheet",
	[SRC_H100] = "NVIDIA H100 Tensor Core GPU datasheet (sparse figures halved)",
	[SRC_GH200] = "NVIDIA GH200 Grace Hopper Superchip datasheet",
	[SRC_H200] = "NVIDIA H200 Tensor Core GPU datasheet (sparse figures halved)",
	[SRC_DGX_B200] = "NVIDIA DGX B200 datasheet, per GPU (sparse figures halved)",
	[SRC_GB200] = "NVIDIA GB200 NVL72 specifications, per GPU (sparse figures halved)",
	[SRC_L40S] = "NVIDIA L40S datasheet",
	[SRC_RTX_BLACKWELL] = "NVIDIA RTX Blackwell GPU Architecture whitepaper, appendix A",
	[SRC_RTX_PRO_6000] = "NVIDIA RTX PRO 6000 Blackwell datasheet (per-dtype figures from its FP4 "
	                     "AI TOPS, halved per precision step)",
	[SRC_MI200] = "AMD Instinct MI250X / MI250 specifications, per GCD",
	[SRC_MI300X] = "AMD Instinct MI300X data sheet",
	[SRC_MI325X] = "AMD Instinct MI325X datasheet",
};

#define GB 1e9
#define T 1e12
#define NA -1 /* not supported by the hardware */

/* First match wins: every `has` in the name, `not` absent from it, the SM
 * (CU) count when sms is given, the memory within [mem_lo, mem_hi) GB when
 * given.  Figures: TB/s and TFLOP/s. */
static const struct row {
	const char *model;
	const char *has, *has2, *not;
	int sms;
	double mem_lo, mem_hi;
	double bw, fp32, tf32, fp16, bf16, fp8, fp4, int8;
	enum source src;
} rows[] = {
	{"GB200", "GB200", NULL, NULL, 0, 0, 0, 8.0, 80, 1250, 2500, 2500, 5000, 10000, 5000, SRC_GB200},
	/* GH200 comes with 96 GB of HBM3 (4 TB/s) or 144 GB of HBM3e (4.9 TB/s):
	 * the memory size tells them apart. */
	{"GH200 96GB", "GH200", NULL, NULL, 0, 1, 120, 4.0, 67, 494, 990, 990, 1979, NA, 1979, SRC_GH200},
	{"GH200 144GB", "GH200", NULL, NULL, 0, 120, 1e9, 4.9, 67, 494, 990, 990, 1979, NA, 1979, SRC_GH200},
	{"H200 NVL", "H200", "NVL", NULL, 0, 0, 0, 4.8, 60, 417.5, 835.5, 835.5, 1670.5, NA, 1670.5, SRC_H200},
	{"H200 SXM", "H200", NULL, NULL, 0, 0, 0, 4.8, 67, 494.5, 989.5, 989.5, 1979, NA, 1979, SRC_H200},
	{"H100 NVL", "H100", "NVL", NULL, 0, 0, 0, 3.9, 60, 417.5, 835.5, 835.5, 1670.5, NA, 1670.5, SRC_H100},
	{"H100 PCIe", "H100", "PCIe", NULL, 0, 0, 0, 2.0, 51, 378, 756.5, 756.5, 1513, NA, 1513, SRC_H100},
	{"H100 SXM5", "H100", NULL, NULL, 0, 0, 0, 3.35, 67, 494.5, 989.5, 989.5, 1979, NA, 1979, SRC_H100},
	{"B200", "B200", NULL, NULL, 0, 0, 0, 8.0, 75, 1125, 2250, 2250, 4500, 9000, 4500, SRC_DGX_B200},
	{"L40S", "L40S", NULL, NULL, 0, 0, 0, 0.864, 91.6, 183, 362.05, 362.05, 733, NA, 733, SRC_L40S},
	/* GeForce: 16-bit tensor math with FP32 accumulate (what PyTorch
	 * uses) runs at half the FP16-accumulate rate. */
	{"RTX 5090", "RTX 5090", NULL, NULL, 0, 0, 0, 1.792, 104.8, 104.8, 209.5, 209.5, 419, 1676, 838,
	 SRC_RTX_BLACKWELL},
	/* The Max-Q (300 W) part's figures are not published per dtype: no peak
	 * rather than a guess (a row with no figures stops the match here). */
	{"RTX PRO 6000 Blackwell Max-Q", "RTX PRO 6000", "Max-Q", NULL, 0, 0, 0, -1, -1, -1, -1, -1, -1, -1,
	 -1, SRC_RTX_PRO_6000},
	{"RTX PRO 6000 Blackwell", "RTX PRO 6000", NULL, NULL, 0, 0, 0, 1.792, 125, 252, 504, 504, 1008,
	 2015, 1008, SRC_RTX_PRO_6000},
	/* A100: the same compute; bandwidth by memory and form factor
	 * ("A100-PG509-200" is Meta's 40 GB SXM4 board). */
	{"A100 80GB PCIe", "A100", "PCIe", NULL, 0, 60, 1e9, 1.935, 19.5, 156, 312, 312, NA, NA, 624, SRC_A100},
	{"A100 80GB SXM4", "A100", NULL, NULL, 0, 60, 1e9, 2.039, 19.5, 156, 312, 312, NA, NA, 624, SRC_A100},
	{"A100 40GB", "A100", NULL, NULL, 0, 0, 0, 1.555, 19.5, 156, 312, 312, NA, NA, 624, SRC_A100},
	{"V100S PCIe", "V100S", NULL, NULL, 0, 0, 0, 1.134, 16.4, NA, 130, NA, NA, NA, NA, SRC_V100},
	{"V100 PCIe", "V100", "PCIE", NULL, 0, 0, 0, 0.9, 14, NA, 112, NA, NA, NA, NA, SRC_V100},
	{"V100 SXM2", "V100", NULL, NULL, 0, 0, 0, 0.9, 15.7, NA, 125, NA, NA, NA, NA, SRC_V100},
	{"MI325X", "MI325X", NULL, NULL, 0, 0, 0, 6.0, 163.4, 653.7, 1307.4, 1307.4, 2614.9, NA, 2614.9,
	 SRC_MI325X},
	{"MI300X", "MI300X", NULL, NULL, 0, 0, 0, 5.3, 163.4, 653.7, 1307.4, 1307.4, 2614.9, NA, 2614.9,
	 SRC_MI300X},
	/* Some ROCm versions write an empty name: 304 CUs and ~192 GiB is an
	 * MI300X (an MI325X has 256 GB). */
	{"MI300X", "", NULL, NULL, 304, 180, 220, 5.3, 163.4, 653.7, 1307.4, 1307.4, 2614.9, NA, 2614.9,
	 SRC_MI300X},
	/* MI250X / MI250: each GCD is a device of its own in a trace (half
	 * the package's figures); "AMD Instinct MI250X/MI250" names both, and
	 * older ROCm wrote "AMD Radeon Graphics": the CUs tell them apart. */
	{"MI250X (one GCD)", "MI250", NULL, NULL, 110, 0, 0, 1.6384, 23.95, NA, 191.5, 191.5, NA, NA, 191.5,
	 SRC_MI200},
	{"MI250 (one GCD)", "MI250", NULL, NULL, 104, 0, 0, 1.6384, 22.65, NA, 181.05, 181.05, NA, NA, 181.05,
	 SRC_MI200},
	{"MI250X (one GCD)", "AMD Radeon Graphics", NULL, NULL, 110, 60, 70, 1.6384, 23.95, NA, 191.5,
	 191.5, NA, NA, 191.5, SRC_MI200},
	{"MI250 (one GCD)", "AMD Radeon Graphics", NULL, NULL, 104, 60, 70, 1.6384, 22.65, NA, 181.05,
	 181.05, NA, NA, 181.05, SRC_MI200},
};

static int row_matches(const struct row *r, const char *name, int sms, double mem_bytes)
{
	if (r->has[0] == 0 ? name[0] != 0 : !strstr(name, r->has))
		return 0;
	if ((r->has2 && !strstr(name, r->has2)) || (r->not && strstr(name, r->not)))
		return 0;
	if (r->sms && sms != r->sms)
		return 0;
	if (r->mem_hi > 0 && (mem_bytes <= 0 || mem_bytes < r->mem_lo * GB || mem_bytes >= r->mem_hi * GB))
		return 0;
	return 1;
}

void tix_device_match(const char *name, int sms, double mem_bytes, struct tix_device *d)
{
	d->known = 0;
	d->model = d->source = NULL;
	d->peak_Bps = -1;
	for (int p = 0; p < TIX_PEAK_COUNT; p++)
		d->peak_flops[p] = -1;
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const struct row *r = &rows[i];
		if (!row_matches(r, name ? name : "", sms, mem_bytes))
			continue;
		if (r->bw < 0)
			return; /* known not to be known */
		d->known = 1;
		d->model = r->model;
		d->source = sources[r->src];
		d->peak_Bps = r->bw * T;
		double f[TIX_PEAK_COUNT] = {
			[TIX_PEAK_FP32] = r->fp32, [TIX_PEAK_TF32] = r->tf32, [TIX_PEAK_FP16] = r->fp16,
			[TIX_PEAK_BF16] = r->bf16, [TIX_PEAK_FP8] = r->fp8,   [TIX_PEAK_FP4] = r->fp4,
			[TIX_PEAK_INT8] = r->int8};
		for (int p = 0; p < TIX_PEAK_COUNT; p++)
			d->peak_flops[p] = f[p] > 0 ? f[p] * T : -1;
		return;
	}
}

double tix_device_peak_flops(const struct tix_device *d, enum tix_peak p, double r, enum tix_peak *as)
{
	if (as)
		*as = p;
	if (p >= TIX_PEAK_COUNT || d->peak_flops[p] <= 0)
		return -1;
	if (p == TIX_PEAK_FP32 && r > d->peak_flops[p] && d->peak_flops[TIX_PEAK_TF32] > 0) {
		if (as)
			*as = TIX_PEAK_TF32;
		return d->peak_flops[TIX_PEAK_TF32];
	}
	return d->peak_flops[p];
}

/* ---- the trace's deviceProperties ---- */

/* The number after "key": in the flat object [o, end), or def. */
static double field_num(const char *o, const char *end, const char *key, double def)
{
	size_t kl = strlen(key);
	for (const char *k = o; (k = strstr(k, key)) && k < end; k += kl) {
		if (k[-1] != '"' || k[kl] != '"')
			continue;
		const char *c = k + kl + 1;
		while (c < end && (*c == ' ' || *c == ':'))
			c++;
		char *e;
		double v = strtod(c, &e);
		return e > c && e <= end ? v : def;
	}
	return def;
}

/* The "name" string of the flat object [o, end) into buf (printable). */
static void field_name(const char *o, const char *end, char *buf, size_t cap)
{
	buf[0] = 0;
	const char *n = strstr(o, "\"name\"");
	if (!n || n > end)
		return;
	n = strchr(n + 6, '"');
	if (!n || n > end)
		return;
	size_t j = 0;
	for (n++; n < end && *n && *n != '"' && j + 1 < cap; n++)
		buf[j++] = isprint((unsigned char)*n) ? *n : '?';
	buf[j] = 0;
}

/* The device with the most GPU work: the device of the GPU tracks' rows. */
static int busiest_device(const struct tix_index *ix)
{
	uint32_t nt = tix_track_count(ix);
	int best = -1;
	uint64_t best_n = 0;
	for (uint32_t t = 0; t < nt; t++) {
		const struct tix_track *tr = tix_track_get(ix, t);
		if (tr->kind != TIX_TRACK_GPU || tr->device < 0)
			continue;
		uint64_t n = 0; /* this device's rows, over all its streams */
		for (uint32_t u = 0; u < nt; u++) {
			const struct tix_track *tu = tix_track_get(ix, u);
			if (tu->kind == TIX_TRACK_GPU && tu->device == tr->device)
				n += tu->row_count;
		}
		if (n > best_n || (n == best_n && tr->device < best)) {
			best_n = n;
			best = tr->device;
		}
	}
	return best;
}

void tix_index_device(const struct tix_index *ix, int device, struct tix_device *d)
{
	memset(d, 0, sizeof(*d));
	d->id = -1;
	tix_device_match(NULL, 0, 0, d);
	d->known = 0;
	d->peak_Bps = -1;
	const char *json = NULL;
	for (uint32_t i = 0; i < tix_meta_count(ix); i++) {
		const char *k, *v;
		tix_meta_get(ix, i, &k, &v);
		if (!strcmp(k, "deviceProperties"))
			json = v;
	}
	if (!json)
		return;
	int want = device >= 0 ? device : busiest_device(ix);
	/* Each entry is a flat object: {"id": 0, "name": "NVIDIA H100 ...", ...}:
	 * the one of the busiest device, else the first. */
	const char *pick = NULL, *pick_end = NULL;
	for (const char *o = strchr(json, '{'); o; o = strchr(o + 1, '{')) {
		const char *end = strchr(o, '}');
		if (!end)
			break;
		if (!pick) {
			pick = o;
			pick_end = end;
		}
		if (want >= 0 && field_num(o, end, "id", -1) == want) {
			pick = o;
			pick_end = end;
			break;
		}
	}
	if (!pick)
		return;
	d->id = (int)field_num(pick, pick_end, "id", -1);
	field_name(pick, pick_end, d->name, sizeof d->name);
	d->sms = (int)field_num(pick, pick_end, "numSms", 0);
	d->mem_bytes = field_num(pick, pick_end, "totalGlobalMem", 0);
	tix_device_match(d->name, d->sms, d->mem_bytes, d);
}

/* "989e12", "989T", "989 TFLOPs", "4.8e12" -> a number, -1 when not one. */
static double parse_rate(const char *s, const char **end)
{
	char *e;
	double v = strtod(s, &e);
	if (e == s || !(v > 0) || !isfinite(v))
		return -1;
	static const struct {
		char c;
		double f;
	} si[] = {{'k', 1e3}, {'K', 1e3}, {'M', 1e6}, {'G', 1e9}, {'T', 1e12}, {'P', 1e15}};
	for (size_t i = 0; i < sizeof si / sizeof si[0]; i++)
		if (*e == si[i].c) {
			v *= si[i].f;
			e++;
			break;
		}
	while (isalpha((unsigned char)*e) || *e == '/')
		e++;
	*end = e;
	return isfinite(v) ? v : -1;
}

int tix_device_override(struct tix_device *d, const char *bw, const char *spec, const char **why)
{
	const char *p, *e;
	*why = NULL;
	if (bw) {
		double v = parse_rate(bw, &e);
		if (v < 0 || *e) {
			*why = "--peak-bw wants bytes per second: \"4.8e12\", \"4.8T\"";
			return -1;
		}
		d->peak_Bps = v;
		d->overridden = d->known = 1;
	}
	if (!spec)
		return 0;
	p = spec;
	if (isdigit((unsigned char)*p) || *p == '.') { /* one figure for every dtype */
		double v = parse_rate(p, &e);
		if (v < 0 || *e) {
			*why = "--peak-flops wants a number (\"989e12\", \"989T\") or dtype=number pairs";
			return -1;
		}
		for (int k = 0; k < TIX_PEAK_COUNT; k++)
			d->peak_flops[k] = v;
		d->overridden = d->known = 1;
		return 0;
	}
	while (*p) {
		char name[8];
		size_t n = strcspn(p, "=");
		if (n == 0 || n >= sizeof name || p[n] != '=') {
			*why = "--peak-flops pairs are dtype=number: fp32, tf32, fp16, bf16, fp8, fp4, int8";
			return -1;
		}
		memcpy(name, p, n);
		name[n] = 0;
		int k = tix_peak_parse(name);
		double v = parse_rate(p + n + 1, &e);
		if (k < 0 || v < 0 || (*e && *e != ',')) {
			*why = "--peak-flops pairs are dtype=number: fp32, tf32, fp16, bf16, fp8, fp4, int8";
			return -1;
		}
		d->peak_flops[k] = v;
		d->overridden = d->known = 1;
		p = *e ? e + 1 : e;
	}
	return 0;
}
