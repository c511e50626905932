/*
 * cupti_capture/windows.c: the capture windows and the calls made inside
 * them (windows.h).  Owner: cupti_capture.
 */
#include "cupti_capture/windows.h"

#include <string.h>

void tixcap_windows_init(struct tixcap_windows *w, int windowed)
{
	memset(w, 0, sizeof *w);
	pthread_mutex_init(&w->mu, NULL);
	w->windowed = windowed;
}

void tixcap_windows_open(struct tixcap_windows *w, int64_t ts)
{
	pthread_mutex_lock(&w->mu);
	if (w->n && w->w[w->n - 1].close == INT64_MAX) {
		/* already open */
	} else if (w->n == TIXCAP_MAX_WINDOWS) {
		w->w[w->n - 1].close = INT64_MAX; /* merge into the last */
	} else {
		w->w[w->n].open = ts;
		w->w[w->n].close = INT64_MAX;
		w->n++;
	}
	atomic_store(&w->open_at, (uint32_t)w->n);
	atomic_fetch_add(&w->version, 1);
	pthread_mutex_unlock(&w->mu);
}

void tixcap_windows_close(struct tixcap_windows *w, int64_t ts)
{
	pthread_mutex_lock(&w->mu);
	if (w->n && w->w[w->n - 1].close == INT64_MAX) {
		w->w[w->n - 1].close = ts < w->w[w->n - 1].open ? w->w[w->n - 1].open : ts;
		atomic_store(&w->open_at, 0);
		atomic_fetch_add(&w->version, 1);
	}
	pthread_mutex_unlock(&w->mu);
}

int tixcap_windows_is_open(struct tixcap_windows *w)
{
	pthread_mutex_lock(&w->mu);
	int open = !w->windowed || (w->n && w->w[w->n - 1].close == INT64_MAX);
	pthread_mutex_unlock(&w->mu);
	return open;
}

size_t tixcap_windows_count(struct tixcap_windows *w)
{
	pthread_mutex_lock(&w->mu);
	size_t n = w->n;
	pthread_mutex_unlock(&w->mu);
	return n;
}

/* a before b in serial-number order (RFC 1982, 32 bits) */
static int serial_lt(uint32_t a, uint32_t b) { return (int32_t)(a - b) < 0; }

void tixcap_windows_note_call(struct tixcap_windows *w, uint32_t corr)
{
	uint32_t at = atomic_load(&w->open_at);
	if (!at || !corr)
		return; /* 0 is no id: it cannot be kept for */
	_Atomic uint64_t *slot = &w->calls[at - 1];
	uint64_t v = atomic_load(slot), nv;
	do {
		uint32_t lo = (uint32_t)v, hi = (uint32_t)(v >> 32);
		if (!v) {
			lo = hi = corr;
		} else {
			if (serial_lt(corr, lo))
				lo = corr;
			if (serial_lt(hi, corr))
				hi = corr;
		}
		nv = (uint64_t)lo | (uint64_t)hi << 32;
		if (nv == v)
			return;
	} while (!atomic_compare_exchange_weak(slot, &v, nv));
}

int tixcap_windows_has_call(struct tixcap_windows *w, size_t i, uint32_t corr)
{
	uint64_t v = i < TIXCAP_MAX_WINDOWS ? atomic_load(&w->calls[i]) : 0;
	uint32_t lo = (uint32_t)v, hi = (uint32_t)(v >> 32);
	return v && corr && (uint32_t)(corr - lo) <= (uint32_t)(hi - lo);
}
