/*
 * cupti_capture/convert.h: CUPTI activity buffers -> journal rows, kept or
 * dropped by the capture windows (windows.h).  Internal to
 * cupti_capture/ (libtixcap.so's writer thread) and its tests.  Owner:
 * cupti_capture.  Needs the CUPTI headers; the tests feed it fabricated
 * buffers through the real cuptiActivityGetNextRecord.
 */
#ifndef TIX_CAPTURE_CONVERT_H
#define TIX_CAPTURE_CONVERT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "cupti_capture/journal.h"
#include "cupti_capture/windows.h"

/* 1 when the record layouts of a libcupti of API version `loaded`
 * (cuptiGetVersion) are the ones this build reads. */
int tixcap_layouts_known(uint32_t loaded);

struct tixcap_pending;          /* NVTX starts seen outside windows */

struct tixcap_conv {
	struct tixj_writer *w;
	struct tixcap_windows *win;
	/* The writer thread's copy of the windows' edges (their calls are read
	 * from win itself: they change with every call). */
	uint32_t seen_version;
	size_t nwin, win_journaled_open, win_journaled_close;
	struct { int64_t open, close; } *local;
	uint32_t api_name[2][1024]; /* string id + 1 by domain, cbid; 0 unknown */
	struct tixcap_pending *pend;
	struct tixj_drops drops;
	/* CUPTI's clock is CLOCK_REALTIME ns unless another client registers
	 * its own (Kineto's raw TSC ticks): a record stamped before t_floor is
	 * on another clock.  The first one sets foreign_ts and conversion
	 * stops, so no row on a clock we cannot place reaches the journal.
	 * t_floor 0: no check. */
	int64_t t_floor;
	int64_t foreign_ts;
	uint64_t kernels_seen;      /* kernel records read, kept or not */
	struct tixj_buffer last;    /* what the last buffer converted held (its
	                             * valid bytes, records and their span) */
};

int tixcap_conv_init(struct tixcap_conv *c, struct tixj_writer *w, struct tixcap_windows *win);
void tixcap_conv_done(struct tixcap_conv *c);
/* Converts the records of one completed buffer into staged journal rows
 * (call tixj_flush after).  Returns the number of rows staged. */
size_t tixcap_conv_buffer(struct tixcap_conv *c, uint8_t *buf, size_t valid);
/* String id of an API call's CUPTI name ("cudaLaunchKernel_v7000") by
 * domain (0 runtime, 1 driver) and cbid: the one place calls are named. */
uint32_t tixcap_conv_api_name(struct tixcap_conv *c, int driver, uint32_t cbid);
/* Brings window edges into the journal and releases NVTX starts that a new
 * window now encloses.  Called before each buffer and on each flush. */
void tixcap_conv_sync_windows(struct tixcap_conv *c);

#endif /* TIX_CAPTURE_CONVERT_H */
