/*
 * tests/capture/test_crc.c: the journal's CRC-32C tables are built on first
 * use; threads that all begin with a CRC wait for one build and get the
 * right answer (CRC-32C's check value of "123456789").  Under TSan
 * (capture_crc_tsan) a flag read plainly beside the tables is a report.
 * Owner: cupti_capture.
 */
#include "tests/capture/capture_test.h"

#include <pthread.h>

#include "cupti_capture/journal.h"

#define THREADS 8

static pthread_barrier_t start;

static void *first_use(void *out)
{
	pthread_barrier_wait(&start);
	*(uint32_t *)out = tixj_crc32c(0, "123456789", 9);
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	uint32_t crc[THREADS] = {0};
	pthread_barrier_init(&start, NULL, THREADS);
	for (int i = 0; i < THREADS; i++)
		CHECK(pthread_create(&t[i], NULL, first_use, &crc[i]) == 0);
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		CHECK_EQ_INT(crc[i], 0xE3069283u);
	}
	pthread_barrier_destroy(&start);
	printf("test_crc: %d threads, %d failures\n", THREADS, t_failures);
	return t_failures ? 1 : 0;
}
