/*
 * cupti_capture/pool.h: the activity buffer pool and the completion queue
 * of libtixcap.so, internal to cupti_capture/ and its tests.  Owner:
 * cupti_capture.
 *
 * Why: CUPTI asks for buffers on application threads (per-thread activity
 * buffers are on by default), so the request path must not malloc, fault
 * in pages or wait: tixcap_pool_get pops a preallocated buffer from a
 * lock-free stack, or returns NULL (CUPTI then drops records, and we count
 * the refusal).  Completed buffers go through a small queue to the writer
 * thread, which converts them and gives them back zeroed (whole).
 *
 * Plain functions with no CUPTI in them, so tests can hammer them from
 * several threads.
 */
#ifndef TIX_CAPTURE_POOL_H
#define TIX_CAPTURE_POOL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct tixcap_pool {
	uint8_t *base;              /* nbuf * bufsize bytes, one mapping */
	size_t nbuf, bufsize;
	_Atomic uint64_t head;      /* (ABA tag << 32) | (index + 1); 0 index = empty */
	_Atomic uint32_t *next;     /* next[i]: index + 1 below buffer i */
	_Atomic uint64_t refused;   /* tixcap_pool_get calls that found none */
	_Atomic uint64_t in_use;
};

/* Maps nbuf buffers of bufsize bytes (rounded up to pages), faults in and
 * zeroes the first prefault of them.  Returns 0, or -1 with errno set. */
int tixcap_pool_init(struct tixcap_pool *p, size_t nbuf, size_t bufsize, size_t prefault);
/* A zeroed buffer of p->bufsize bytes, or NULL when all are in use.
 * Async-signal-safe and lock-free. */
uint8_t *tixcap_pool_get(struct tixcap_pool *p);
/* 1 when buf is one of p's buffers (CUPTI hands back only ours, but a
 * stray pointer must not corrupt the stack). */
int tixcap_pool_owns(const struct tixcap_pool *p, const uint8_t *buf);
/* Zeroes the whole of buf and returns it to the pool. */
void tixcap_pool_put(struct tixcap_pool *p, uint8_t *buf);
void tixcap_pool_done(struct tixcap_pool *p);

/* Completed buffers waiting for the writer: a ring as long as the pool, so
 * a push never waits for room. */
struct tixcap_done {
	uint8_t *buf;
	size_t valid;
	void *ctx;                  /* the CUcontext and stream CUPTI gave with the */
	uint32_t stream;            /* buffer: whose dropped-record count to read */
};
struct tixcap_queue {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct tixcap_done *ring;
	size_t cap, head, count;
	int closed;
};
int tixcap_queue_init(struct tixcap_queue *q, size_t cap);
/* Returns 0, or -1 when the queue is full (cannot happen with pool
 * buffers) or closed. */
int tixcap_queue_push(struct tixcap_queue *q, const struct tixcap_done *d);
/* Waits up to timeout_ms for a buffer.  Returns 1 with *out filled, 0 on
 * timeout, -1 when closed and empty. */
int tixcap_queue_pop(struct tixcap_queue *q, struct tixcap_done *out, int timeout_ms);
/* Wakes a waiting pop without a buffer (e.g. to flush the journal now). */
void tixcap_queue_kick(struct tixcap_queue *q);
void tixcap_queue_close(struct tixcap_queue *q);
void tixcap_queue_done(struct tixcap_queue *q);

#endif /* TIX_CAPTURE_POOL_H */
