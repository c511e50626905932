/*
 * Unit tests of the small pure functions of the core: parse_us_to_ns
 * (parse/events.h), tix_short_name, tix_fmt_dur, tix_hash64 (stable: the
 * .tix checksums and the cache key depend on it), the kind table,
 * tix_printable with the error messages built on it, the JSON and CSV
 * string writers, and the random temporary names.
 *
 *   test_basics [SRC_DIR BIN_DIR]   (both ignored)
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "index/index.h"
#include "parse/events.h"
#include "parse/json_shim.h"
#include "tests/check.h"

static struct tix_error E;

/* ---- parse_us_to_ns ---- */

static void us(const char *s, int want_rc, int64_t want)
{
	int64_t got = 12345;
	int rc = parse_us_to_ns(s, strlen(s), &got);
	if (want_rc == 0)
		CHECK(rc == 0 && got == want, "parse_us_to_ns(\"%s\") = %" PRId64 " (rc %d, got %" PRId64 ")",
		      s, want, rc, got);
	else
		CHECK(rc == -1, "parse_us_to_ns(\"%s\") is rejected (rc %d, got %" PRId64 ")", s, rc, got);
}

/* Numbers as Kineto writes them, on both sides of the fast path's bounds
 * (1-19 integer digits, leading zeros, 0-5 fractional digits), each
 * followed in its buffer by more digits that n leaves out, and again with
 * its last byte the last of a page before one that cannot be read.  The
 * expected value comes from the digits alone: the integer part times 1000,
 * the first three fractional digits, plus one when the fourth is 5 or more
 * (half up), or a rejection past INT64_MAX. */
static void us_random(void)
{
	unsigned seed = 12345;
	int before = failures, tries = 200000;
	long page = sysconf(_SC_PAGESIZE);
	char *area = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *edge = NULL;
	if (area != MAP_FAILED && mprotect(area + page, (size_t)page, PROT_NONE) == 0)
		edge = area + page;
	CHECK(edge != NULL, "a page with no readable page after it");
	for (int t = 0; t < tries; t++) {
		char buf[64];
		seed = seed * 1103515245u + 12345u;
		int nint = 1 + (int)(seed >> 8) % 19, nfrac = (int)(seed >> 16) % 6, dot = (seed >> 24) % 4 != 0;
		size_t n = 0;
		unsigned __int128 ip = 0;
		for (int i = 0; i < nint; i++) {
			seed = seed * 1103515245u + 12345u;
			int d = i == 0 && (seed >> 20) % 3 ? 0 : (int)(seed >> 16) % 10;
			buf[n++] = (char)('0' + d);
			ip = ip * 10 + (unsigned)d;
		}
		int f[5] = {0};
		if (dot) {
			buf[n++] = '.';
			for (int i = 0; i < nfrac; i++) {
				seed = seed * 1103515245u + 12345u;
				f[i] = (int)(seed >> 16) % 10;
				buf[n++] = (char)('0' + f[i]);
			}
		}
		memcpy(buf + n, "987654321987654321", 19); /* past n: not the number's */
		unsigned __int128 want = ip * 1000 + (unsigned)(f[0] * 100 + f[1] * 10 + f[2]) + (f[3] >= 5);
		int64_t got = -7;
		int rc = parse_us_to_ns(buf, n, &got);
		if (edge) {
			int64_t at_edge = -7;
			memcpy(edge - n, buf, n);
			EXPECT(parse_us_to_ns(edge - n, n, &at_edge) == rc && at_edge == got,
			       "parse_us_to_ns(\"%.*s\") reads no byte past n", (int)n, buf);
		}
		int ok = want > (unsigned __int128)INT64_MAX ? rc == -1 : rc == 0 && (unsigned __int128)got == want;
		EXPECT(ok, "parse_us_to_ns(\"%.*s\") = %s%" PRId64 " (rc %d, got %" PRId64 ")", (int)n, buf,
		       want > (unsigned __int128)INT64_MAX ? "rejected, not " : "", (int64_t)want, rc, got);
	}
	if (area != MAP_FAILED)
		munmap(area, 2 * (size_t)page);
	CHECK(failures == before, "%d random numbers of 1-19 integer and 0-5 fractional digits: each as its digits say, "
	      "none read past its length", tries);
}

static void test_us_to_ns(void)
{
	us("0", 0, 0);
	us("1", 0, 1000);
	us("1712195495519689", 0, 1712195495519689000LL);
	us("1712195495519689.0", 0, 1712195495519689000LL);
	us("1712195495519689.123", 0, 1712195495519689123LL);
	us("1712195495519689.1234", 0, 1712195495519689123LL);
	us("1712195495519689.1235", 0, 1712195495519689124LL); /* half up */
	us("123.4565", 0, 123457);
	us("123.4564999", 0, 123456);
	us("0.0005", 0, 1);
	us("0.0004", 0, 0);
	us("0.000000001", 0, 0);
	us(".5", 0, 500);
	us("5.", 0, 5000);
	us("5.2e3", 0, 5200000);
	us("5.2E3", 0, 5200000);
	us("1e-3", 0, 1);
	us("15e-4", 0, 2);       /* 1.5 ns -> 2 */
	us("1e+2", 0, 100000);
	us("-1.5", 0, -1500);
	us("-0.0005", 0, -1);    /* ties away from zero, like Decimal ROUND_HALF_UP */
	us("+7", 0, 7000);
	us("000000000000000000000000000000000000000000000012", 0, 12000);
	us("0.00000000000000000000000000000000000000000000000000000001", 0, 0);
	us("9223372036854775.807", 0, INT64_MAX);
	us("9223372036854775.8075", -1, 0); /* rounds past INT64_MAX */
	us("9223372036854775.808", -1, 0);
	us("9223372036854776", -1, 0);
	us("1e30", -1, 0);
	us("1e99999999999", -1, 0);
	us("1e-99999999999", 0, 0);
	us("100000000000000000000000000000000000000000000000000000", -1, 0);
	us("", -1, 0);
	us("-", -1, 0);
	us(".", -1, 0);
	us("abc", -1, 0);
	us("NaN", -1, 0);
	us("inf", -1, 0);
	us("1e", -1, 0);
	us("1e+", -1, 0);
	us("0x10", -1, 0);
	us("1.2.3", -1, 0);
	us("12abc", -1, 0);
	/* the length bounds the text: never read past it */
	int64_t v = 0;
	CHECK(parse_us_to_ns("12345", 2, &v) == 0 && v == 12000, "parse_us_to_ns stops at n (got %" PRId64 ")", v);
	us_random();
}

/* ---- names, durations, hash, kinds ---- */

static void short_name(const char *in, const char *want)
{
	char out[256];
	size_t n = tix_short_name(in, strlen(in), out, sizeof(out));
	CHECK(strcmp(out, want) == 0 && n == strlen(want), "tix_short_name(\"%.60s\") = \"%s\" (got \"%s\", %zu)", in,
	      want, out, n);
}

static void test_short_name(void)
{
	short_name("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL");
	short_name("Memcpy HtoD (Pageable -> Device)", "Memcpy HtoD (Pageable -> Device)");
	short_name("void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda("
	           "at::TensorIteratorBase&)::{lambda()#3}, std::array<char*, 2ul>, 4>(int, "
	           "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}, "
	           "std::array<char*, 2ul>)",
	           "at::native::unrolled_elementwise_kernel<...>");
	short_name("void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, 4>(int, float)",
	           "at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<...>");
	short_name("cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<a, b> >(cutlass::Params)",
	           "cutlass::device_kernel<...>");
	short_name("", "");
	/* a return type with brackets and a ">" inside parentheses (vLLM on B200) */
	short_name("std::enable_if<(((8)>(0)))&&vllm::_typeConvert<c10::BFloat16>::exists, void>::type "
	           "vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, long, float, int)",
	           "vllm::fused_add_rms_norm_kernel<...>");
	short_name("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<long>, "
	           "std::array<char*, 1ul> >(int, at::native::FillFunctor<long>, std::array<char*, 1ul>)",
	           "at::native::vectorized_elementwise_kernel<...>");
	short_name("void f<((4)>(3))>(int)", "f<...>");
	{
		char o[128];
		const char *k = "void aiter::add_rmsnorm_quant_kernel<__hip_bfloat16, __hip_bfloat16, 256, 16, "
		                "false>(float*, int)";
		tix_short_name_arg(k, strlen(k), 2, o, sizeof(o));
		CHECK(strcmp(o, "aiter::add_rmsnorm_quant_kernel<..., 256, ...>") == 0,
		      "tix_short_name_arg keeps the third argument: \"%s\"", o);
		tix_short_name_arg(k, strlen(k), 0, o, sizeof(o));
		CHECK(strcmp(o, "aiter::add_rmsnorm_quant_kernel<__hip_bfloat16, ...>") == 0,
		      "tix_short_name_arg keeps the first argument: \"%s\"", o);
		tix_short_name_arg(k, strlen(k), 4, o, sizeof(o));
		CHECK(strcmp(o, "aiter::add_rmsnorm_quant_kernel<..., false>") == 0,
		      "tix_short_name_arg keeps the last argument: \"%s\"", o);
	}
	/* unbalanced brackets must not run past the end */
	char out[64];
	const char *bad = "void f<<<<<<<<(((((";
	size_t n = tix_short_name(bad, strlen(bad), out, sizeof(out));
	CHECK(n < 64 && strlen(out) == n, "tix_short_name on unbalanced brackets: \"%s\"", out);
	/* a small buffer truncates, NUL-terminates, and reports the full length */
	char small[8];
	memset(small, 'X', sizeof(small));
	n = tix_short_name("ncclDevKernel_AllReduce", 23, small, sizeof(small));
	CHECK(n == 23 && strcmp(small, "ncclDev") == 0, "tix_short_name into 8 bytes: \"%s\" wants %zu", small, n);
	char one[1] = {'X'};
	n = tix_short_name("abc", 3, one, 1);
	CHECK(n == 3 && one[0] == '\0', "tix_short_name into 1 byte writes only the NUL");
	n = tix_short_name("abc", 3, NULL, 0);
	CHECK(n == 3, "tix_short_name with cap 0 only measures (%zu)", n);
	/* length, not NUL, bounds the input */
	char buf[32];
	tix_short_name("kernelXYZ", 6, buf, sizeof(buf));
	CHECK(strcmp(buf, "kernel") == 0, "tix_short_name honours len (\"%s\")", buf);
}

static void fmt(int64_t ns, const char *want)
{
	char buf[32];
	tix_fmt_dur(ns, buf, sizeof(buf));
	CHECK(strcmp(buf, want) == 0, "tix_fmt_dur(%" PRId64 ") = \"%s\" (got \"%s\")", ns, want, buf);
}

static void test_fmt_dur(void)
{
	fmt(0, "0 ns");
	fmt(812, "812 ns");
	fmt(999, "999 ns");
	fmt(1000, "1.0 us");
	fmt(828510, "828.5 us");
	fmt(64610000, "64.61 ms");
	fmt(1937000000, "1.937 s");
	fmt(5000000000LL, "5.000 s");
	fmt(-1500, "-1.5 us");
	char tiny[4];
	tix_fmt_dur(123456789, tiny, sizeof(tiny));
	CHECK(strlen(tiny) == 3, "tix_fmt_dur truncates to its buffer (\"%s\")", tiny);
	char big[64];
	tix_fmt_dur(INT64_MAX, big, sizeof(big));
	CHECK(strlen(big) > 0 && strstr(big, " s"), "tix_fmt_dur(INT64_MAX) = \"%s\"", big);
	tix_fmt_dur(INT64_MIN, big, sizeof(big));
	CHECK(strlen(big) > 0, "tix_fmt_dur(INT64_MIN) = \"%s\"", big);
}

static void test_hash(void)
{
	/* XXH64 reference values: the format's checksums and cache keys must
	 * not change between versions. */
	static const struct {
		const char *s;
		uint64_t seed, want;
	} v[] = {
		{"", 0, 0xef46db3751d8e999ULL},
		{"a", 0, 0xd24ec4f1a98c6e5bULL},
		{"abc", 0, 0x44bc2cf5ad770999ULL},
		{"The quick brown fox jumps over the lazy dog", 0, 0x0b242d361fda71bcULL},
		{"", 42, 0x98b1582b0977e704ULL},
		{"0123456789abcdef0123456789abcdefXYZ", 42, 0x05f4001354091db1ULL},
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		uint64_t h = tix_hash64(v[i].s, strlen(v[i].s), v[i].seed);
		CHECK(h == v[i].want, "tix_hash64(\"%.20s\", seed %" PRIu64 ") = %016" PRIx64 " (got %016" PRIx64 ")",
		      v[i].s, v[i].seed, v[i].want, h);
	}
	/* any alignment, every length: same bytes, same hash */
	unsigned char buf[200], copy[208];
	for (int i = 0; i < 200; i++)
		buf[i] = (unsigned char)(i * 37 + 11);
	int same = 1, differ = 1;
	for (size_t len = 0; len <= 100; len++) {
		uint64_t h = tix_hash64(buf, len, 7);
		for (size_t off = 1; off < 8; off++) {
			memcpy(copy + off, buf, len);
			if (tix_hash64(copy + off, len, 7) != h)
				same = 0;
		}
		if (len && tix_hash64(buf, len, 7) == tix_hash64(buf, len - 1, 7))
			differ = 0;
	}
	CHECK(same, "tix_hash64 does not depend on alignment");
	CHECK(differ, "tix_hash64 differs for each prefix length");
	unsigned char b2[64];
	memcpy(b2, buf, 64);
	b2[40] ^= 1;
	CHECK(tix_hash64(buf, 64, 0) != tix_hash64(b2, 64, 0), "tix_hash64 sees a flipped bit");
	CHECK(tix_hash64(buf, 64, 0) != tix_hash64(buf, 64, 1), "tix_hash64 depends on the seed");
}

static void test_kinds(void)
{
	CHECK(strcmp(tix_kind_label(TIX_KIND_KERNEL), "kernel") == 0, "kind label kernel");
	CHECK(strcmp(tix_kind_cat(TIX_KIND_RUNTIME), "cuda_runtime") == 0, "kind cat cuda_runtime");
	CHECK(strcmp(tix_kind_label((enum tix_kind)99), "?") == 0, "kind label out of range is \"?\"");
	CHECK(tix_kind_is_gpu_work(TIX_KIND_KERNEL) && tix_kind_is_gpu_work(TIX_KIND_MEMCPY) &&
	      tix_kind_is_gpu_work(TIX_KIND_MEMSET) && !tix_kind_is_gpu_work(TIX_KIND_SYNC) &&
	      !tix_kind_is_gpu_work(TIX_KIND_GPU_ANNOTATION) && !tix_kind_is_gpu_work(TIX_KIND_RUNTIME),
	      "GPU work is kernels, memcpy, memset");
	CHECK(tix_kind_is_gpu(TIX_KIND_SYNC) && !tix_kind_is_gpu(TIX_KIND_CPU_OP), "tix_kind_is_gpu");
	CHECK(tix_kind_is_launch(TIX_KIND_RUNTIME) && tix_kind_is_launch(TIX_KIND_DRIVER) &&
	      !tix_kind_is_launch(TIX_KIND_KERNEL) && !tix_kind_is_launch(TIX_KIND_CPU_OP) &&
	      !tix_kind_is_launch(99), "launch calls are runtime and driver calls");
	CHECK(tix_kind_is_marker(TIX_KIND_CPU_OP) && tix_kind_is_marker(TIX_KIND_USER_ANNOTATION) &&
	      tix_kind_is_marker(TIX_KIND_PYTHON) && tix_kind_is_marker(TIX_KIND_OTHER) &&
	      !tix_kind_is_marker(TIX_KIND_RUNTIME) && !tix_kind_is_marker(TIX_KIND_GPU_ANNOTATION) &&
	      !tix_kind_is_marker(TIX_KIND_INSTANT), "step markers: CPU ops, annotations, python, other");
	CHECK(tix_kind_is_op(TIX_KIND_CPU_OP) && tix_kind_is_op(TIX_KIND_USER_ANNOTATION) &&
	      !tix_kind_is_op(TIX_KIND_PYTHON) && !tix_kind_is_op(TIX_KIND_OTHER) && !tix_kind_is_op(99),
	      "ops: CPU ops and annotations");
	/* Every spelling a trace may give for "cat", in any case; Kineto's own
	 * first, which is also the cat written on export (the fast path reads
	 * the cat column). */
	static const struct {
		const char *cat;
		enum tix_kind want;
	} cats[] = {
		{"cpu_op", TIX_KIND_CPU_OP}, {"Operator", TIX_KIND_CPU_OP}, {"CPU_OP", TIX_KIND_CPU_OP},
		{"user_annotation", TIX_KIND_USER_ANNOTATION}, {"python_function", TIX_KIND_PYTHON},
		{"cuda_runtime", TIX_KIND_RUNTIME}, {"Runtime", TIX_KIND_RUNTIME},
		{"hip_runtime", TIX_KIND_RUNTIME}, {"_RUNTIME", TIX_KIND_RUNTIME},
		{"cuda_driver", TIX_KIND_DRIVER}, {"Driver", TIX_KIND_DRIVER}, {"Kernel", TIX_KIND_KERNEL},
		{"gpu_memcpy", TIX_KIND_MEMCPY}, {"memcpy", TIX_KIND_MEMCPY}, {"GPU_MEMSET", TIX_KIND_MEMSET},
		{"memset", TIX_KIND_MEMSET}, {"cuda_sync", TIX_KIND_SYNC},
		{"gpu_user_annotation", TIX_KIND_GPU_ANNOTATION},
		/* no kind by its cat: given by "ph", or the producer's call */
		{"instant", TIX_KIND_COUNT}, {"counter", TIX_KIND_COUNT}, {"other", TIX_KIND_COUNT},
		{"", TIX_KIND_COUNT}, {"runtime_x", TIX_KIND_COUNT}, {"kernels", TIX_KIND_COUNT},
		{"cpu_o", TIX_KIND_COUNT}, {"ac2g", TIX_KIND_COUNT},
	};
	int bad = 0;
	for (size_t i = 0; i < sizeof(cats) / sizeof(cats[0]); i++) {
		enum tix_kind k = tix_kind_of_cat(cats[i].cat, strlen(cats[i].cat));
		if (k != cats[i].want) {
			printf("      cat \"%s\": kind %d, want %d\n", cats[i].cat, (int)k, (int)cats[i].want);
			bad++;
		}
	}
	CHECK(!bad, "tix_kind_of_cat: every spelling of the table, in any case; none for the rest");
	for (int k = 0; k < TIX_KIND_COUNT; k++) {
		const char *c = tix_kind_cat((enum tix_kind)k);
		enum tix_kind got = tix_kind_of_cat(c, strlen(c));
		if ((got != (enum tix_kind)k && got != TIX_KIND_COUNT) ||
		    got != tix_kind_of_spelling(c, strlen(c))) /* the fast path is the column's */
			bad++;
		struct tix_str s = tix_kind_cat_str((enum tix_kind)k);
		bad += s.len != strlen(c) || s.ptr != c;
	}
	CHECK(!bad, "a kind's cat reads back as that kind (or none) by its spellings, and tix_kind_cat_str is it");
	/* "cpu_op1" is no spelling, even though it starts like one */
	CHECK(tix_kind_of_cat("cpu_op1", 6) == TIX_KIND_CPU_OP && tix_kind_of_cat("cpu_op1", 7) == TIX_KIND_COUNT,
	      "tix_kind_of_cat reads len bytes, not to a NUL");
}

/* tix_printable: control bytes, C1 controls and invalid UTF-8 escaped,
 * valid UTF-8 kept, the result cut to fit. */
static void test_printable(void)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{"plain", "plain"},
		{"a\nb", "a\\x0ab"},
		{"\x1b[2J", "\\x1b[2J"},
		{"csi\xc2\x9b", "csi\\xc2\\x9b"},
		{"\xc2\xa0nbsp", "\xc2\xa0nbsp"},
		{"caf\xc3\xa9", "caf\xc3\xa9"},
		{"lat\xe9n", "lat\\xe9n"},
		{"\xed\xa0\x80", "\\xed\\xa0\\x80"},
		{"\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80"},
		{"cut\xe2\x82", "cut\\xe2\\x82"},
		{"rlo\xe2\x80\xaegnp", "rlo\\xe2\\x80\\xaegnp"},     /* U+202E */
		{"iso\xe2\x81\xa6x\xe2\x81\xa9", "iso\\xe2\\x81\\xa6x\\xe2\\x81\\xa9"}, /* U+2066, U+2069 */
		{"zwj\xe2\x80\x8d", "zwj\xe2\x80\x8d"},              /* U+200D is not a bidi control */
		{"del\x7f", "del\\x7f"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[64];
		tix_printable(cases[i].in, buf, sizeof(buf));
		CHECK(strcmp(buf, cases[i].want) == 0, "tix_printable case %zu: \"%s\" (want \"%s\")", i, buf,
		      cases[i].want);
	}
	char small[8];
	tix_printable("0123456789", small, sizeof(small));
	CHECK(strcmp(small, "0123...") == 0, "tix_printable cuts to fit: \"%s\"", small);
	tix_error_set(&E, "%s: bad", "new\nline\x1b");
	CHECK(strcmp(E.msg, "new\\x0aline\\x1b: bad") == 0 && E.cls == TIX_ERR_INPUT,
	      "tix_error_set makes its message printable: \"%s\"", E.msg);
	tix_error_errno(&E, 28, "%s", "out.tix");
	CHECK(strstr(E.msg, "out.tix: ") == E.msg && E.cls == TIX_ERR_ENV, "ENOSPC is the environment: \"%s\"",
	      E.msg);
	tix_error_errno(&E, 2, "%s", "t.json");
	CHECK(E.cls == TIX_ERR_INPUT, "ENOENT is bad input");
}

/* The JSON and CSV strings of every face (index/text.c). */
static void test_json_csv(void)
{
	static const struct {
		const char *in, *json, *csv;
	} cases[] = {
		{"plain", "\"plain\"", "\"plain\""},
		{"q\"b\\", "\"q\\\"b\\\\\"", "\"q\"\"b\\\""},
		{"\x1b]0;t\a", "\"\\u001b]0;t\\u0007\"", "\"\\x1b]0;t\\x07\""},
		{"c1\xc2\x9b", "\"c1\\u009b\"", "\"c1\\xc2\\x9b\""},
		{"\xe2\x80\xae", "\"\\u202e\"", "\"\\xe2\\x80\\xae\""},
		{"bad\xff", "\"bad\\ufffd\"", "\"bad\\xff\""},
		{"\xc2\xb5s", "\"\xc2\xb5s\"", "\"\xc2\xb5s\""},
		{"=1+2", "\"=1+2\"", "\"'=1+2\""},
		{"+x", "\"+x\"", "\"'+x\""},
		{"-x", "\"-x\"", "\"'-x\""},
		{"@x", "\"@x\"", "\"'@x\""},
		{"\tx", "\"\\u0009x\"", "\"'\\x09x\""},
		{"\rx", "\"\\u000dx\"", "\"'\\x0dx\""},
		{"a=b", "\"a=b\"", "\"a=b\""},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		tix_json_str(f, cases[i].in, strlen(cases[i].in));
		fclose(f);
		CHECK(strcmp(buf, cases[i].json) == 0, "tix_json_str case %zu: %s (want %s)", i, buf, cases[i].json);
		free(buf);
		char jb[64], cut[5];
		size_t n = tix_json_buf(jb, sizeof jb, cases[i].in, strlen(cases[i].in));
		size_t m = tix_json_buf(cut, sizeof cut, cases[i].in, strlen(cases[i].in));
		CHECK(n == strlen(cases[i].json) && strcmp(jb, cases[i].json) == 0 && m == n &&
		              strncmp(cut, cases[i].json, 4) == 0 && cut[4] == 0 &&
		              tix_json_buf(NULL, 0, cases[i].in, strlen(cases[i].in)) == n,
		      "tix_json_buf case %zu: the same literal, its length, cut to its buffer (%s)", i, jb);
		f = open_memstream(&buf, &len);
		tix_csv_str(f, cases[i].in);
		fclose(f);
		CHECK(strcmp(buf, cases[i].csv) == 0, "tix_csv_str case %zu: %s (want %s)", i, buf, cases[i].csv);
		free(buf);
	}
}

/* Temporary names come from getrandom: two processes forked from one (whose
 * unseeded rand() would agree) get different names. */
static void test_random_name(void)
{
	char a[13] = "";
	int ok = tix_random_name(a, 12) == 0;
	for (int i = 0; i < 12 && ok; i++)
		ok = (a[i] >= 'a' && a[i] <= 'z') || (a[i] >= 'A' && a[i] <= 'Z') || (a[i] >= '0' && a[i] <= '9');
	CHECK(ok, "tix_random_name: 12 letters and digits (%s)", a);
	char kids[2][13] = {"", ""};
	for (int k = 0; k < 2; k++) {
		int fd[2];
		if (pipe(fd) != 0)
			break;
		pid_t pid = fork();
		if (pid == 0) {
			char n[12];
			_exit(tix_random_name(n, 12) != 0 || write(fd[1], n, 12) != 12);
		}
		close(fd[1]);
		if (read(fd[0], kids[k], 12) != 12)
			kids[k][0] = 0;
		close(fd[0]);
		waitpid(pid, NULL, 0);
	}
	CHECK(kids[0][0] && kids[1][0] && strcmp(kids[0], kids[1]) != 0,
	      "two forked processes draw different names (%s, %s)", kids[0], kids[1]);
}

/* ---- the shim's failures: simdjson's code, not its English ---- */

static int no_event(void *ctx, const struct shim_event *ev)
{
	(void)ctx, (void)ev;
	return 0;
}

/* A refusal carries simdjson's code; parse/windows.c decides on it (the
 * code for nesting too deep, SHIM_DEPTH_ERROR, is checked against
 * simdjson's enum when the shim compiles), never on the message. */
static void test_shim_codes(void)
{
	const char *json = "{\"ph\":\"X\" \"ts\":1}"; /* a comma missing */
	struct shim_parser *p = shim_new();
	size_t n = strlen(json);
	char *buf = calloc(n + shim_padding(), 1);
	memcpy(buf, json, n);
	struct shim_fail f = {0, 0, NULL};
	int rc = p && buf ? shim_parse_one(p, buf, n, no_event, NULL, &f) : 0;
	CHECK(rc == -1 && f.code != 0 && f.code != SHIM_DEPTH_ERROR && f.msg && f.msg[0] && f.at <= n,
	      "shim: a comma missing: simdjson's code %d at byte %zu (%s)", f.code, f.at,
	      f.msg ? f.msg : "-");
	free(buf);
	shim_free(p);
}

/* ---- tix_json_valid: exactly one JSON value ---- */

static void test_json_valid(void)
{
	static const char *good[] = {"1", " -0.5e+3 ", "\"a\\u00e9\\n\"", "\"\xc3\xa9\"", "[]", "{}",
	                             "{\"a\": [1, true, false, null, {\"b\": \"c\"}]}", "\t[ 1 , 2 ]\n"};
	static const char *bad[] = {"", " ", "01", "1.", "-", "1e", "tru", "\"a", "\"\x1b\"", "\"\xff\"",
	                            "\"\\x\"", "\"\\u12g4\"", "[1,]", "{\"a\"}", "{\"a\":1,}", "{1:2}", "1 2",
	                            "1}], \"x\": [", "[", "]"};
	for (size_t i = 0; i < sizeof good / sizeof *good; i++)
		CHECK(tix_json_valid(good[i], strlen(good[i])), "tix_json_valid(%s)", good[i]);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		CHECK(!tix_json_valid(bad[i], strlen(bad[i])), "!tix_json_valid(bad #%zu)", i);
	char deep[2 * TIX_JSON_MAX_DEPTH + 4];
	memset(deep, '[', TIX_JSON_MAX_DEPTH);
	memset(deep + TIX_JSON_MAX_DEPTH, ']', TIX_JSON_MAX_DEPTH);
	CHECK(tix_json_valid(deep, 2 * TIX_JSON_MAX_DEPTH), "%d deep: valid", TIX_JSON_MAX_DEPTH);
	memmove(deep + 1, deep, 2 * TIX_JSON_MAX_DEPTH);
	deep[0] = '[';
	deep[2 * TIX_JSON_MAX_DEPTH + 1] = ']';
	CHECK(!tix_json_valid(deep, 2 * TIX_JSON_MAX_DEPTH + 2), "one deeper: not");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_json_valid();
	test_shim_codes();
	test_us_to_ns();
	test_short_name();
	test_fmt_dur();
	test_hash();
	test_kinds();
	test_printable();
	test_json_csv();
	test_random_name();
	return checks_done("test_basics");
}
