/*
 * The TUI's fatal-signal path (tui/fatal.c) when several threads fault at
 * once, as the index's background checker and the TUI's own reads do when
 * the index is truncated under both: each of THREADS threads, released
 * together, reads a row of an index that was cut to its first page after
 * it was opened.  Every one of them takes a SIGBUS in the index's mapping;
 * the process must end with exit status 2 and the one line naming the
 * file, never die of the second thread's SIGBUS (it did, as "Bus error",
 * while the handler was reset on its first delivery).
 *
 *   tui_fatal_threads INDEX THREADS
 *
 * INDEX is cut (the driver, fatal_threads.sh, passes a fresh copy).  Exit
 * 1 when no thread faulted, which is the test's failure too.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "index/index.h"
#include "tui/fatal.h"

struct reader {
	struct tix_index *ix;
	pthread_barrier_t *go;
	uint32_t row;
};

static void *read_row(void *arg)
{
	struct reader *r = arg;
	struct tix_event ev;
	pthread_barrier_wait(r->go);
	tix_event_get(r->ix, r->row, &ev);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3 || atoi(argv[2]) < 1 || atoi(argv[2]) > 64) {
		fprintf(stderr, "usage: %s INDEX THREADS (1-64)\n", argv[0]);
		return 1;
	}
	int n = atoi(argv[2]);
	struct tix_index *ix;
	struct tix_error err;
	if (tix_index_open(argv[1], &ix, &err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	uint32_t rows = tix_event_count(ix);
	struct tui_trace trace = {argv[1], ix};
	if (rows < (uint32_t)n || fatal_begin(&trace, 1) != 0) {
		fprintf(stderr, "tui_fatal_threads: %u rows for %d threads, or no memory\n", rows, n);
		return 1;
	}
	if (truncate(argv[1], 4096) != 0) {
		perror(argv[1]);
		return 1;
	}
	pthread_barrier_t go;
	pthread_barrier_init(&go, NULL, (unsigned)n);
	pthread_t th[64];
	struct reader rd[64];
	for (int i = 0; i < n; i++) {
		/* rows of blocks apart, each thread its own first read */
		rd[i] = (struct reader){ix, &go, (uint32_t)((uint64_t)rows * i / n)};
		if (pthread_create(&th[i], NULL, read_row, &rd[i]) != 0) {
			fprintf(stderr, "tui_fatal_threads: no thread\n");
			return 1;
		}
	}
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	fprintf(stderr, "tui_fatal_threads: no thread faulted on the cut index\n");
	return 1;
}
