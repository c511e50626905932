/*
 * cupti_capture/windows.h: the capture windows (--delay, --duration,
 * --nvtx, --cuda-profiler-api) and which calls were made inside them.
 * Internal to cupti_capture/ (libtixcap.so) and its tests.  Owner:
 * cupti_capture.
 *
 * Edges are set by whoever sees them (the flush thread's timer, the NVTX
 * and cuProfilerStart/Stop callbacks: any thread) and read by the writer
 * thread; they are rare, so a mutex, and the writer polls `version`
 * without it.  Calls are noted inside every followed CUDA call, so that
 * path takes no lock: each window keeps the range of correlation ids of
 * the API calls made while it was open.  A kernel launched inside a window
 * is then kept even when the GPU runs it after the window closed, whatever
 * order CUPTI hands back the buffers of the kernel and of its launch call
 * (they are different buffers: API records are written on the calling
 * thread, kernel records later, from the device).
 */
#ifndef TIX_CAPTURE_WINDOWS_H
#define TIX_CAPTURE_WINDOWS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define TIXCAP_MAX_WINDOWS 4096
/* A kernel of a window's call that starts later than this after the window
 * closed is not taken as the window's: its correlation id (CUPTI's u32,
 * which wraps after 2^32 calls: ~70 min at a million calls a second) must
 * be a later call's.  No launch queue holds a kernel back for ten minutes. */
#define TIXCAP_WINDOW_LAG_NS (600 * 1000000000LL)

struct tixcap_windows {
	pthread_mutex_t mu;
	_Atomic uint32_t version;
	int windowed;               /* 0: capture everything, always */
	size_t n;
	struct { int64_t open, close; } w[TIXCAP_MAX_WINDOWS]; /* close INT64_MAX: open */
	/* Per window, the correlation ids of the calls made while it was open,
	 * as lo | hi << 32 in serial-number order (RFC 1982: ids wrap), so
	 * hi - lo (mod 2^32) is the range; 0: no call yet. */
	_Atomic uint64_t calls[TIXCAP_MAX_WINDOWS];
	_Atomic uint32_t open_at;   /* index + 1 of the open window; 0: none */
};

void tixcap_windows_init(struct tixcap_windows *w, int windowed);
/* Open or close at ts; no-ops when already in that state.  When the table
 * is full, the last window is reopened instead (merged). */
void tixcap_windows_open(struct tixcap_windows *w, int64_t ts);
void tixcap_windows_close(struct tixcap_windows *w, int64_t ts);
int tixcap_windows_is_open(struct tixcap_windows *w);
/* Windows ever opened (0 when not windowed). */
size_t tixcap_windows_count(struct tixcap_windows *w);
/* An API call with correlation id corr (CUpti_CallbackData.correlationId,
 * which equals its activity record's and its kernels': cupti_callbacks.h,
 * CUDA 13.0) is being made: it belongs to the window open now, if any.
 * Lock-free and wait-free but for a CAS retry; any thread. */
void tixcap_windows_note_call(struct tixcap_windows *w, uint32_t corr);
/* 1 when corr is one of the calls window i noted (i < its count). */
int tixcap_windows_has_call(struct tixcap_windows *w, size_t i, uint32_t corr);

#endif /* TIX_CAPTURE_WINDOWS_H */
