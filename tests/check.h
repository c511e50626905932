/*
 * The checks of the C unit tests: CHECK prints every check, ok or FAIL;
 * EXPECT (for loops) prints only failures, the first 20.  Each test is one
 * program of one file, so the counters are that file's.
 */
#ifndef TIX_TESTS_CHECK_H
#define TIX_TESTS_CHECK_H

#include <stdio.h>

static int failures, checks;

#define CHECK(cond, ...)                                                  \
	do {                                                              \
		checks++;                                                 \
		if (cond) {                                               \
			printf("ok    ");                                 \
		} else {                                                  \
			failures++;                                       \
			printf("FAIL  %s:%d: ", __FILE__, __LINE__);      \
		}                                                         \
		printf(__VA_ARGS__);                                      \
		putchar('\n');                                            \
	} while (0)

#define EXPECT(cond, ...)                                                 \
	do {                                                              \
		checks++;                                                 \
		if (!(cond)) {                                            \
			if (failures++ < 20) {                            \
				printf("FAIL  %s:%d: ", __FILE__, __LINE__); \
				printf(__VA_ARGS__);                      \
				putchar('\n');                            \
			}                                                 \
		}                                                         \
	} while (0)

/* The last line of a test's output, and its exit status. */
static inline int checks_done(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, checks, failures);
	return failures ? 1 : 0;
}

#endif
