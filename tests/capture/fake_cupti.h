/*
 * tests/capture/fake_cupti.h: what the two halves of the stand-in libcupti
 * share (fake_cupti.c: the CUPTI API libtixcap.so calls, its buffers and
 * callbacks; fake_program.c: the program it plays).  Owner: cupti_capture.
 */
#ifndef TIX_TESTS_FAKE_CUPTI_H
#define TIX_TESTS_FAKE_CUPTI_H

#define CAPTURE_TEST_CUPTI
#define CAPTURE_TEST_NO_JOURNAL
#include "tests/capture/capture_test.h"

extern struct tixfake_stats tixfake_stats;

/* What the program may do to CUPTI's state (fake_cupti.c). */
extern CUpti_CallbackFunc fake_cb;          /* the subscriber's callback, or NULL */
extern uint8_t fake_kind_on[64];
extern int fake_tsc_clock;                  /* Kineto's clock */
int fake_cb_on(CUpti_CallbackDomain dom, uint32_t cbid);
int fake_nvtx_on(void);
int fake_records_on(CUpti_CallbackDomain dom, uint32_t cbid);
int64_t fake_now(void);
/* Calls the subscriber's NVTX callback as CUPTI does, counting the enable
 * calls made from inside it (there must be none). */
void fake_nvtx_callback(CUpti_CallbackId cbid, const void *params);
/* One record into the buffer of the calling thread (API calls, NVTX,
 * devices, names) or into the GPU's (kernels, copies), as CUPTI keeps
 * them apart; `end` is when a GPU record is complete (0: now). */
void fake_emit(const void *rec, size_t size);
void fake_emit_gpu(const void *rec, size_t size, int64_t end);
void fake_count_dropped(void);
/* Kineto's takeover: its own buffer callbacks from now on. */
void fake_kineto_callbacks(void);

#endif /* TIX_TESTS_FAKE_CUPTI_H */
