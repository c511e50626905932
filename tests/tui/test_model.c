/* The TUI's pieces without curses: the formatting it prints with, shapes and
 * bandwidth, the keymap's consistency, short names. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/index.h"
#include "index/view/view.h"
#include "tui/keys.h"
#include "tui/clip.h"
#include "tui/table.h"

static int failures;

#define EXPECT_STR(got, want)                                                             \
	do {                                                                                  \
		const char *g_ = (got), *w_ = (want);                                             \
		if (strcmp(g_, w_) != 0) {                                                        \
			fprintf(stderr, "%s:%d: got \"%s\", want \"%s\"\n", __FILE__, __LINE__, g_, w_); \
			failures++;                                                                   \
		}                                                                                 \
	} while (0)
#define EXPECT(cond)                                                                      \
	do {                                                                                  \
		if (!(cond)) {                                                                    \
			fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond);            \
			failures++;                                                                   \
		}                                                                                 \
	} while (0)

/* The formatting family the TUI prints with (index/index.h, view.h). */
static void test_format(void)
{
	char b[64];
	EXPECT_STR(tix_fmt_dur_unit(950, TIX_TU_AUTO, b, sizeof b), "950 ns");
	EXPECT_STR(tix_fmt_dur_unit(828100, TIX_TU_AUTO, b, sizeof b), "828.1 us");
	EXPECT_STR(tix_fmt_dur_unit(64600000, TIX_TU_AUTO, b, sizeof b), "64.60 ms");
	EXPECT_STR(tix_fmt_dur_unit(1234000000, TIX_TU_AUTO, b, sizeof b), "1.234 s");
	EXPECT_STR(tix_fmt_dur_unit(-1, TIX_TU_AUTO, b, sizeof b), "-");
	EXPECT_STR(tix_fmt_dur(-1500, b, sizeof b), "-1.5 us"); /* a difference keeps its sign */
	EXPECT_STR(tix_fmt_count(0, b, sizeof b), "0");
	EXPECT_STR(tix_fmt_count(999, b, sizeof b), "999");
	EXPECT_STR(tix_fmt_count(1000, b, sizeof b), "1,000");
	EXPECT_STR(tix_fmt_count(285437952, b, sizeof b), "285,437,952");
	EXPECT_STR(tix_fmt_scaled(12, "B", b, sizeof b), "12 B");
	EXPECT_STR(tix_fmt_scaled(856313856, "B", b, sizeof b), "856.3 MB");
	EXPECT_STR(tix_fmt_pct(646, 932, b, sizeof b), "69.3");
	EXPECT_STR(tix_fmt_pct(1, 0, b, sizeof b), "-");
	int32_t g[3] = {557496, 1, 1}, z[3] = {0, 0, 0};
	EXPECT_STR(tix_fmt_dim3(g, b, sizeof b), "[557496, 1, 1]");
	EXPECT_STR(tix_fmt_dim3(z, b, sizeof b), "-");
}

static void test_traffic(void)
{
	char b[512];
	/* the FP8 KV-cache cast of DESIGN.md, as index/traffic.c fills it */
	struct tix_traffic t = {.bytes = 856313856, .bandwidth_Bps = 856313856 / 828e-6,
	                        .peak_Bps = -1, .basis = "aten::copy_", .elements = 285437952,
	                        .tensors = 2, .elem_sizes = {2, 1}};
	EXPECT_STR(tix_traffic_text(&t, 828000, b, sizeof b),
	           "285,437,952 elements x (2 + 1) bytes = 856.3 MB in 828.0 us = 1.03 TB/s");
	/* on an H200 it says how much of the peak that is */
	struct tix_device d;
	tix_device_match("NVIDIA H200", 132, 150e9, &d);
	t.peak_Bps = d.peak_Bps;
	EXPECT(fabs(t.peak_Bps - 4.8e12) < 1e3);
	EXPECT_STR(tix_traffic_text(&t, 828000, b, sizeof b),
	           "285,437,952 elements x (2 + 1) bytes = 856.3 MB in 828.0 us = 1.03 TB/s (21.5% of peak)");
	/* above the peak: no rate, and why */
	t.over_peak = 1;
	t.bandwidth_Bps = -1;
	t.device = "NVIDIA H200";
	EXPECT(strstr(tix_traffic_text(&t, 1000, b, sizeof b), "above the NVIDIA H200 peak of 4.80 TB/s") != NULL);
	tix_device_match("NVIDIA A100-SXM4-80GB", 108, 85e9, &d);
	EXPECT(fabs(d.peak_Bps - 2.039e12) < 1e3);
	tix_device_match("NVIDIA A100-SXM4-40GB", 108, 42e9, &d);
	EXPECT(fabs(d.peak_Bps - 1.555e12) < 1e3);
	tix_device_match("Quadro", 0, 0, &d);
	EXPECT(d.peak_Bps < 0 && !d.known);
	struct tix_traffic none = {.bytes = -1};
	EXPECT(strncmp(tix_traffic_text(&none, 1000, b, sizeof b), "n/a", 3) == 0);
}

/* Every key maps back to its request: no key is bound twice. */
#define KEYS_OF(name, hint, rank, desc, ...) static const int k_##name[] = {__VA_ARGS__, 0};
TUI_REQUESTS(KEYS_OF)
#undef KEYS_OF

static void test_keys(void)
{
#define CHECK_KEYS(name, hint, rank, desc, ...)                                                 \
	for (const int *k = k_##name; *k; k++) {                                              \
		char kn[32];                                                                      \
		if (keys_lookup(*k) != REQ_##name) {                                              \
			fprintf(stderr, "key %s is bound to two requests\n", keys_name(*k, kn, sizeof kn)); \
			failures++;                                                                   \
		}                                                                                 \
	}                                                                                     \
	EXPECT(strlen(keys_desc(REQ_##name)) > 0);                                            \
	EXPECT(strlen(keys_label(REQ_##name)) > 0);
	TUI_REQUESTS(CHECK_KEYS)
#undef CHECK_KEYS
	EXPECT_STR(keys_label(REQ_ENTER), "Enter l");
	EXPECT_STR(keys_label(REQ_BACK), "Backspace h Esc");
	EXPECT_STR(keys_label(REQ_HELP), "? F1");
	EXPECT_STR(keys_label(REQ_QUIT), "q F10");
	/* the hint line drops hints by rank: each hinted request has its own rank,
	 * and a rank without a hint would never be shown */
	for (int r = 1; r < REQ_COUNT; r++) {
		EXPECT((keys_hint((enum req)r) != NULL) ==
		       (keys_hint_rank((enum req)r) > 0 || r == REQ_HELP || r == REQ_QUIT));
		for (int q = 1; q < r; q++)
			EXPECT(keys_hint_rank((enum req)r) == 0 ||
			       keys_hint_rank((enum req)r) != keys_hint_rank((enum req)q));
	}
	EXPECT(keys_lookup('q') == REQ_QUIT);
	EXPECT(keys_lookup('x') == REQ_NONE);
}

/* OSC 52: the RFC 4648 vectors, inside the escape sequence */
static void test_osc52(void)
{
	char b[64];
	EXPECT_STR(osc52("", b, sizeof b), "\033]52;c;\a");
	EXPECT_STR(osc52("f", b, sizeof b), "\033]52;c;Zg==\a");
	EXPECT_STR(osc52("fo", b, sizeof b), "\033]52;c;Zm8=\a");
	EXPECT_STR(osc52("foobar", b, sizeof b), "\033]52;c;Zm9vYmFy\a");
	EXPECT(osc52("foobar", b, 12) == NULL);
}

/* What y / Y copy: each cell made safe as text output is (ESC, C1, the
 * bidi overrides, bytes not UTF-8 as \xNN), cells joined by tabs, valid
 * UTF-8 kept; an empty first cell still gets its tab. */
static void test_copy_text(void)
{
	char *t = NULL;
	EXPECT(copy_text_add(&t, "k\033]0;title\a\xc2\x9b\xe2\x80\xae\xff-\xc2\xb5s") == 0);
	EXPECT_STR(t, "k\\x1b]0;title\\x07\\xc2\\x9b\\xe2\\x80\\xae\\xff-\xc2\xb5s");
	EXPECT(copy_text_add(&t, "a\tb") == 0);
	EXPECT(strcmp(strchr(t, '\t'), "\ta\\x09b") == 0);
	EXPECT(text_chars("\xc2\xb5s\t") == 3);
	free(t);
	t = NULL;
	EXPECT(copy_text_add(&t, "") == 0 && copy_text_add(&t, "x") == 0);
	EXPECT_STR(t, "\tx");
	free(t);
}

/* name_fit: never cut silently; the name before its template arguments
 * stays whole when it fits; what fits is returned as is. */
static void test_name_fit(void)
{
	struct app a;
	memset(&a, 0, sizeof a);
	a.utf8 = 0; /* ASCII: the ellipsis is ~ and every character one column */
	char b[256];
	EXPECT_STR(name_fit(&a, "at::native::f<int>", 40, b, sizeof b), "at::native::f<int>");
	EXPECT_STR(name_fit(&a, "at::native::f<int>", 8, b, sizeof b), "f<int>");
	const char *s = name_fit(&a, "unrolled_elementwise_kernel<at::native::x, 4>", 30, b, sizeof b);
	EXPECT(strlen(s) == 30);
	EXPECT(strncmp(s, "unrolled_elementwise_kernel<", 28) == 0);
	EXPECT(strchr(s, '~') != NULL);
	EXPECT(s[29] == '>');
	/* no template: head and tail, so ProfilerStep#1010 and #1014 differ */
	EXPECT_STR(name_fit(&a, "ProfilerStep#1010", 16, b, sizeof b), "ProfilerSt~#1010");
	EXPECT_STR(name_fit(&a, "ProfilerStep#1014", 16, b, sizeof b), "ProfilerSt~#1014");
}

static void test_short_name(void)
{
	static const char name[] =
		"void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda"
		"(at::TensorIteratorBase&)::{lambda()#3}, std::array<char*, 2ul>, 4>(int, float)";
	char out[256];
	tix_short_name(name, sizeof name - 1, out, sizeof out);
	EXPECT(strstr(out, "unrolled_elementwise_kernel") != NULL);
	EXPECT(strlen(out) < 60);
	EXPECT(strncmp(out, "void ", 5) != 0);
}

int main(void)
{
	test_format();
	test_traffic();
	test_keys();
	test_short_name();
	test_osc52();
	test_copy_text();
	test_name_fit();
	if (failures)
		fprintf(stderr, "test_model: %d failure(s)\n", failures);
	else
		printf("test_model: ok\n");
	return failures ? 1 : 0;
}
