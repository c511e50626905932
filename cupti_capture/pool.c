/*
 * cupti_capture/pool.c: lock-free activity buffer pool and the completion
 * queue.  Owner: cupti_capture.  See pool.h for why.
 */
#include "cupti_capture/pool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

int tixcap_pool_init(struct tixcap_pool *p, size_t nbuf, size_t bufsize, size_t prefault)
{
	memset(p, 0, sizeof *p);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	bufsize = (bufsize + page - 1) / page * page;
	if (nbuf == 0 || nbuf > 1u << 20 || bufsize == 0) {
		errno = EINVAL;
		return -1;
	}
	p->next = calloc(nbuf, sizeof *p->next);
	if (!p->next)
		return -1;
	/* MAP_NORESERVE: buffers beyond the prefaulted ones cost nothing until
	 * CUPTI first fills them. */
	void *m = mmap(NULL, nbuf * bufsize, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED) {
		free(p->next);
		p->next = NULL;
		return -1;
	}
	p->base = m;
	p->nbuf = nbuf;
	p->bufsize = bufsize;
	if (prefault > nbuf)
		prefault = nbuf;
	/* Touch one byte per page: fresh anonymous pages read as zero. */
	for (size_t off = 0; off < prefault * bufsize; off += page)
		((volatile uint8_t *)p->base)[off] = 0;
	/* Stack order: buffer 0 on top, so the prefaulted ones go out first. */
	for (size_t i = 0; i < nbuf; i++)
		atomic_store_explicit(&p->next[i], i + 1 < nbuf ? (uint32_t)(i + 2) : 0,
		                      memory_order_relaxed);
	atomic_store(&p->head, 1);
	return 0;
}

uint8_t *tixcap_pool_get(struct tixcap_pool *p)
{
	uint64_t h = atomic_load_explicit(&p->head, memory_order_acquire);
	for (;;) {
		uint32_t top = (uint32_t)h;
		if (top == 0) {
			atomic_fetch_add_explicit(&p->refused, 1, memory_order_relaxed);
			return NULL;
		}
		uint32_t below = atomic_load_explicit(&p->next[top - 1], memory_order_relaxed);
		uint64_t nh = ((h >> 32) + 1) << 32 | below;
		if (atomic_compare_exchange_weak_explicit(&p->head, &h, nh, memory_order_acq_rel,
		                                          memory_order_acquire)) {
			atomic_fetch_add_explicit(&p->in_use, 1, memory_order_relaxed);
			return p->base + (size_t)(top - 1) * p->bufsize;
		}
	}
}

int tixcap_pool_owns(const struct tixcap_pool *p, const uint8_t *buf)
{
	if (!p->base || buf < p->base || buf >= p->base + p->nbuf * p->bufsize)
		return 0;
	return (size_t)(buf - p->base) % p->bufsize == 0;
}

void tixcap_pool_put(struct tixcap_pool *p, uint8_t *buf)
{
	if (!tixcap_pool_owns(p, buf))
		return;
	/* We set CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, so zeroing is
	 * ours, here on the writer thread instead of on the app thread: the
	 * whole buffer, as the attribute asks (cupti_activity.h, CUDA 13.0),
	 * not only its valid bytes, since CUPTI may have written past them
	 * (records begun and not completed when the buffer was handed back). */
	memset(buf, 0, p->bufsize);
	uint32_t idx = (uint32_t)((size_t)(buf - p->base) / p->bufsize);
	uint64_t h = atomic_load_explicit(&p->head, memory_order_acquire);
	for (;;) {
		atomic_store_explicit(&p->next[idx], (uint32_t)h, memory_order_relaxed);
		uint64_t nh = ((h >> 32) + 1) << 32 | (idx + 1);
		if (atomic_compare_exchange_weak_explicit(&p->head, &h, nh, memory_order_acq_rel,
		                                          memory_order_acquire))
			break;
	}
	atomic_fetch_sub_explicit(&p->in_use, 1, memory_order_relaxed);
}

void tixcap_pool_done(struct tixcap_pool *p)
{
	if (p->base)
		munmap(p->base, p->nbuf * p->bufsize);
	free(p->next);
	memset(p, 0, sizeof *p);
}

int tixcap_queue_init(struct tixcap_queue *q, size_t cap)
{
	memset(q, 0, sizeof *q);
	q->ring = calloc(cap ? cap : 1, sizeof *q->ring);
	if (!q->ring)
		return -1;
	q->cap = cap ? cap : 1;
	pthread_mutex_init(&q->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&q->cv, &ca);
	pthread_condattr_destroy(&ca);
	return 0;
}

int tixcap_queue_push(struct tixcap_queue *q, const struct tixcap_done *d)
{
	int rc = -1;
	pthread_mutex_lock(&q->mu);
	if (!q->closed && q->count < q->cap) {
		q->ring[(q->head + q->count) % q->cap] = *d;
		q->count++;
		rc = 0;
		pthread_cond_signal(&q->cv);
	}
	pthread_mutex_unlock(&q->mu);
	return rc;
}

int tixcap_queue_pop(struct tixcap_queue *q, struct tixcap_done *out, int timeout_ms)
{
	struct timespec dl;
	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_sec += timeout_ms / 1000;
	dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	int rc = 0;
	pthread_mutex_lock(&q->mu);
	if (q->count == 0 && !q->closed)
		pthread_cond_timedwait(&q->cv, &q->mu, &dl); /* one wait: kicks end it */
	if (q->count) {
		*out = q->ring[q->head];
		q->head = (q->head + 1) % q->cap;
		q->count--;
		rc = 1;
	} else if (q->closed) {
		rc = -1;
	}
	pthread_mutex_unlock(&q->mu);
	return rc;
}

void tixcap_queue_kick(struct tixcap_queue *q)
{
	pthread_mutex_lock(&q->mu);
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

void tixcap_queue_close(struct tixcap_queue *q)
{
	pthread_mutex_lock(&q->mu);
	q->closed = 1;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

void tixcap_queue_done(struct tixcap_queue *q)
{
	free(q->ring);
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
	memset(q, 0, sizeof *q);
}
