/*
 * tests/capture/test_pool.c: the activity buffer pool and completion queue
 * hammered the way CUPTI calls them: several application threads request
 * buffers and complete them concurrently, one writer thread drains.  Checks
 * that no buffer is ever handed out twice, that buffers come back zeroed
 * (whole, not only the bytes CUPTI reported),
 * that exhaustion is refused and counted, and that nothing leaks.  Built
 * with -fsanitize=address (or thread) when the compiler has it.
 * Owner: cupti_capture.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_capture/pool.h"

#define NBUF 8
#define BUFSZ 8192
#define PRODUCERS 6
#define ROUNDS 20000

static struct tixcap_pool pool;
static struct tixcap_queue queue;
static _Atomic int owner[NBUF];
static _Atomic long produced, consumed, failures, refused_seen;
static _Atomic int producers_left = PRODUCERS;

static int idx(const uint8_t *b) { return (int)((b - pool.base) / (long)pool.bufsize); }

static void *producer(void *arg)
{
	int me = (int)(long)arg + 1;
	for (int i = 0; i < ROUNDS; i++) {
		uint8_t *b = tixcap_pool_get(&pool);
		if (!b) {
			refused_seen++;
			sched_yield();
			continue;
		}
		int expect = 0;
		if (!tixcap_pool_owns(&pool, b) || !atomic_compare_exchange_strong(&owner[idx(b)], &expect, me)) {
			fprintf(stderr, "buffer %p handed out twice (owner %d)\n", (void *)b, expect);
			failures++;
			continue;
		}
		/* CUPTI relies on zeroed buffers (ZEROED_OUT_ACTIVITY_BUFFER),
		 * past what it reported valid too (the tail written below) */
		for (size_t k = 0; k < 1024; k++)
			if (b[k]) {
				failures++;
				break;
			}
		size_t used = 64 + (size_t)(i % 400);
		memset(b, me, used + 128); /* 128 bytes begun, not completed */
		memcpy(b, &i, sizeof i);
		produced++;
		if (tixcap_queue_push(&queue, &(struct tixcap_done){b, used, NULL, 0}) != 0) {
			fprintf(stderr, "queue refused a pool buffer\n");
			failures++;
		}
	}
	producers_left--;
	return NULL;
}

static void *consumer(void *arg)
{
	struct tixcap_done d;
	for (;;) {
		int rc = tixcap_queue_pop(&queue, &d, 5);
		if (rc < 0)
			break;
		if (rc == 0) {
			if (producers_left == 0 && atomic_load(&produced) == atomic_load(&consumed))
				break;
			continue;
		}
		int who = owner[idx(d.buf)];
		for (size_t k = sizeof(int); k < d.valid; k++)
			if (d.buf[k] != (uint8_t)who) {
				fprintf(stderr, "buffer overwritten while queued\n");
				failures++;
				break;
			}
		owner[idx(d.buf)] = 0;
		tixcap_pool_put(&pool, d.buf);
		consumed++;
	}
	return NULL;
}

int main(void)
{
	if (tixcap_pool_init(&pool, NBUF, BUFSZ, 2) != 0 || tixcap_queue_init(&queue, NBUF) != 0) {
		perror("pool");
		return 1;
	}
	/* a buffer comes back zeroed whole, not only the bytes CUPTI said it
	 * filled (it may have written past them) */
	uint8_t *b = tixcap_pool_get(&pool);
	memset(b, 0xab, pool.bufsize);
	tixcap_pool_put(&pool, b);
	if (tixcap_pool_get(&pool) != b) {
		fprintf(stderr, "the pool is not a stack\n");
		failures++;
	}
	for (size_t k = 0; k < pool.bufsize; k++)
		if (b[k]) {
			fprintf(stderr, "byte %zu of a buffer given back is not zero\n", k);
			failures++;
			break;
		}
	tixcap_pool_put(&pool, b);
	/* a pointer that is not ours is refused, not pushed onto the stack */
	uint8_t stray[16];
	if (tixcap_pool_owns(&pool, stray) || tixcap_pool_owns(&pool, pool.base + 1))
		failures++;
	pthread_t p[PRODUCERS], c;
	pthread_create(&c, NULL, consumer, NULL);
	for (long i = 0; i < PRODUCERS; i++)
		pthread_create(&p[i], NULL, producer, (void *)i);
	for (int i = 0; i < PRODUCERS; i++)
		pthread_join(p[i], NULL);
	pthread_join(c, NULL);

	/* everything came back: the pool hands out exactly NBUF again */
	uint8_t *all[NBUF + 1];
	int got = 0;
	while (got <= NBUF && (all[got] = tixcap_pool_get(&pool)))
		got++;
	if (got != NBUF || atomic_load(&pool.in_use) != NBUF) {
		fprintf(stderr, "pool holds %d buffers after the run, want %d\n", got, NBUF);
		failures++;
	}
	for (int i = 0; i < got; i++)
		tixcap_pool_put(&pool, all[i]);
	if ((long)atomic_load(&pool.refused) < refused_seen) {
		fprintf(stderr, "refusals not counted\n");
		failures++;
	}
	tixcap_queue_close(&queue);
	struct tixcap_done d;
	if (tixcap_queue_pop(&queue, &d, 1) != -1 || tixcap_queue_push(&queue, &(struct tixcap_done){pool.base, 1, NULL, 0}) != -1)
		failures++;
	tixcap_queue_done(&queue);
	tixcap_pool_done(&pool);
	if (produced != consumed)
		failures++;
	printf("test_pool: %ld buffers through %d slots, %ld refusals, %ld failures\n",
	       (long)produced, NBUF, (long)refused_seen, (long)failures);
	return failures ? 1 : 0;
}
