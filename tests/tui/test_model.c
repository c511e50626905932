/* The TUI's model without curses: formatting, shapes and bandwidth, the
 * keymap's consistency, short names. */
#include <stdio.h>
#include <string.h>

#include "index/index.h"
#include "tui/keys.h"
#include "tui/model.h"

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

static void test_format(void)
{
	char b[64];
	EXPECT_STR(fmt_dur(950, b, sizeof b), "950 ns");
	EXPECT_STR(fmt_dur(828100, b, sizeof b), "828.1 us");
	EXPECT_STR(fmt_dur(64600000, b, sizeof b), "64.60 ms");
	EXPECT_STR(fmt_dur(1234000000, b, sizeof b), "1.234 s");
	EXPECT_STR(fmt_dur(-1, b, sizeof b), "-");
	EXPECT_STR(fmt_count(0, b, sizeof b), "0");
	EXPECT_STR(fmt_count(999, b, sizeof b), "999");
	EXPECT_STR(fmt_count(1000, b, sizeof b), "1,000");
	EXPECT_STR(fmt_count(285437952, b, sizeof b), "285,437,952");
	EXPECT_STR(fmt_bytes(12, b, sizeof b), "12 B");
	EXPECT_STR(fmt_bytes(856313856, b, sizeof b), "856.3 MB");
	EXPECT_STR(fmt_pct(646, 932, b, sizeof b), "69.3");
	EXPECT_STR(fmt_pct(1, 0, b, sizeof b), "-");
	int32_t g[3] = {557496, 1, 1}, z[3] = {0, 0, 0};
	EXPECT_STR(fmt_dim3(g, b, sizeof b), "[557496, 1, 1]");
	EXPECT_STR(fmt_dim3_compact(g, b, sizeof b), "[557496,1,1]");
	EXPECT_STR(fmt_dim3(z, b, sizeof b), "-");
	EXPECT_STR(regex_escape("a(b)[c].*", b, sizeof b), "a\\(b\\)\\[c\\]\\.\\*");
}

static void test_traffic(void)
{
	char b[256];
	struct shape_in s;
	struct traffic t;
	/* the FP8 KV-cache cast of DESIGN.md */
	EXPECT(shape_parse("[[495552, 1, 576], [495552, 1, 576], []]",
	                   "[\"c10::BFloat16\", \"c10::Float8_e4m3fn\", \"Scalar\"]", &s) == 0);
	EXPECT(s.n == 3 && s.rank[0] == 3 && s.rank[2] == 0);
	EXPECT(traffic_from_shape(&s, &t) == 1);
	EXPECT(t.elements == 285437952 && t.tensors == 2);
	EXPECT(t.bytes == 856313856.0);
	EXPECT_STR(fmt_traffic(&t, 828000, b, sizeof b),
	           "285,437,952 elements x (2 + 1) bytes = 856.3 MB in 828.0 us = 1.03 TB/s");
	/* the types list may stop before the dims do */
	EXPECT(shape_parse("[[495552,1,576],[495552,1,576],[]]",
	                   "[\"c10::BFloat16\", \"c10::Float8_e4m3fn\"]", &s) == 0);
	EXPECT(traffic_from_shape(&s, &t) == 1 && t.bytes == 856313856.0);
	/* tensors of different sizes: a sum, no per-tensor count */
	EXPECT(shape_parse("[[4, 8], [8]]", "[\"float\", \"c10::Half\"]", &s) == 0);
	EXPECT(traffic_from_shape(&s, &t) == 1 && t.elements == -1 && t.bytes == 4 * 8 * 4 + 8 * 2);
	EXPECT_STR(fmt_traffic(&t, 0, b, sizeof b), "2 tensors = 144 B");
	/* nested lists (TensorList) and unknown types are skipped, not guessed */
	EXPECT(shape_parse("[[[1, 2], [3]], [5]]", "[\"TensorList\", \"Scalar\"]", &s) == 0);
	EXPECT(traffic_from_shape(&s, &t) == 0);
	EXPECT(shape_parse("[[339738624], []]", "[\"unsigned char\", \"Scalar\"]", &s) == 0);
	EXPECT(traffic_from_shape(&s, &t) == 1);
	EXPECT_STR(fmt_traffic(&t, 0, b, sizeof b), "339,738,624 elements x 1 byte = 339.7 MB");
	EXPECT(shape_parse("[[1], []]", "[\"int\", \"Scalar\"]", &s) == 0);
	EXPECT(traffic_from_shape(&s, &t) == 1);
	EXPECT_STR(fmt_traffic(&t, 0, b, sizeof b), "1 element x 4 bytes = 4 B");
	EXPECT(shape_parse("", "", &s) == -1);
	EXPECT(shape_parse("[", "[", &s) == 0);
	EXPECT(dtype_size("c10::Float8_e4m3fn", 18) == 1);
	EXPECT(dtype_size("long int", 8) == 8);
	EXPECT(dtype_size("Scalar", 6) == 0);
}

/* Every key maps back to its request: no key is bound twice. */
#define KEYS_OF(name, hint, desc, ...) static const int k_##name[] = {__VA_ARGS__, 0};
TUI_REQUESTS(KEYS_OF)
#undef KEYS_OF

static void test_keys(void)
{
#define CHECK_KEYS(name, hint, desc, ...)                                                 \
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
	EXPECT_STR(keys_label(REQ_ENTER), "Enter l Right");
	EXPECT_STR(keys_label(REQ_BACK), "Backspace h Left Esc");
	EXPECT(keys_lookup('q') == REQ_QUIT);
	EXPECT(keys_lookup('x') == REQ_NONE);
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
	if (failures)
		fprintf(stderr, "test_model: %d failure(s)\n", failures);
	else
		printf("test_model: ok\n");
	return failures ? 1 : 0;
}
