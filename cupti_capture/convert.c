/*
 * cupti_capture/convert.c: CUPTI activity records -> journal rows, kept or
 * dropped by the capture windows (windows.c).  Owner: cupti_capture.  Runs
 * on libtixcap.so's writer thread (and in tests); never on application threads.
 *
 * Struct choice: CUDA 13.0 writes CUpti_ActivityKernel10 for kernels; 13.1+
 * appends fields (Kernel11, 12) to the same prefix, so reading the Kernel10
 * prefix of what a newer libcupti hands us stays right.  The offsets we rely
 * on are pinned below (../shared/CUPTI.md 2.1).
 */
#include "cupti_capture/convert.h"

#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CMake builds cupti_capture only with a CUDA 13 CUPTI (cupti_gate.cmake). */
#if CUPTI_API_VERSION < 130000
#error "cupti_capture needs the CUDA 13 CUPTI (cupti_version.h CUPTI_API_VERSION >= 130000)"
#endif
typedef CUpti_ActivityKernel10 tixcap_kernel_rec; /* cupti_activity.h, CUDA 13.0 */
_Static_assert(sizeof(CUpti_ActivityKernel10) == 216, "Kernel10 size");
_Static_assert(offsetof(tixcap_kernel_rec, registersPerThread) == 6, "regs");
_Static_assert(offsetof(tixcap_kernel_rec, start) == 16, "start");
_Static_assert(offsetof(tixcap_kernel_rec, deviceId) == 40, "device");
_Static_assert(offsetof(tixcap_kernel_rec, gridX) == 52, "grid");
_Static_assert(offsetof(tixcap_kernel_rec, blockX) == 64, "block");
_Static_assert(offsetof(tixcap_kernel_rec, correlationId) == 92, "correlation");
_Static_assert(offsetof(tixcap_kernel_rec, name) == 104, "name");
_Static_assert(offsetof(tixcap_kernel_rec, graphNodeId) == 144, "graph node");
_Static_assert(offsetof(tixcap_kernel_rec, graphId) == 156, "graph");
_Static_assert(sizeof(CUpti_ActivityAPI) == 40, "API record");
_Static_assert(sizeof(CUpti_ActivityMarker2) == 56, "Marker2");
_Static_assert(sizeof(CUpti_ActivityMemcpy6) == 96, "Memcpy6");
_Static_assert(sizeof(CUpti_ActivityMemset4) == 88, "Memset4");

int tixcap_layouts_known(uint32_t loaded)
{
	/* Kernel10 is the oldest 13.x layout and later ones append fields, so
	 * any 13.x up to the headers we were built with lays out the prefix we
	 * read.  A newer minor may move fields (13.3 has Kernel12) and a wrong
	 * offset read as the name pointer would crash the traced program. */
	return loaded / 10000 == CUPTI_API_VERSION / 10000 && loaded / 100 <= CUPTI_API_VERSION / 100;
}

/* ---- pending NVTX starts (windowed mode only) ---- */

#define PEND_MAX 4096
struct pend_row { struct tixj_marker m; int emitted; };
struct tixcap_pending { struct pend_row r[PEND_MAX]; size_t n; uint64_t overflow; };

static struct pend_row *pend_find(struct tixcap_pending *p, uint32_t id)
{
	for (size_t i = p->n; i-- > 0;) /* recent first: stacks pop what they pushed */
		if (p->r[i].m.id == id)
			return &p->r[i];
	return NULL;
}

static void pend_remove(struct tixcap_pending *p, struct pend_row *row)
{
	*row = p->r[--p->n];
}

int tixcap_conv_init(struct tixcap_conv *c, struct tixj_writer *w, struct tixcap_windows *win)
{
	memset(c, 0, sizeof *c);
	c->w = w;
	c->win = win;
	c->local = calloc(TIXCAP_MAX_WINDOWS, sizeof *c->local);
	c->pend = calloc(1, sizeof *c->pend);
	if (!c->local || !c->pend) {
		tixcap_conv_done(c);
		return -1;
	}
	return 0;
}

void tixcap_conv_done(struct tixcap_conv *c)
{
	free(c->local);
	free(c->pend);
	c->local = NULL;
	c->pend = NULL;
}

static int windowed(const struct tixcap_conv *c) { return c->win && c->win->windowed; }

static int in_window(const struct tixcap_conv *c, int64_t ts)
{
	if (!windowed(c))
		return 1;
	for (size_t i = c->nwin; i-- > 0;)
		if (c->local[i].open <= ts && ts < c->local[i].close)
			return 1;
	return 0;
}

static int overlaps(const struct tixcap_conv *c, int64_t s, int64_t e)
{
	for (size_t i = c->nwin; i-- > 0;)
		if (c->local[i].open <= e && s < c->local[i].close)
			return 1;
	return 0;
}

/* GPU work: kept when it starts in a window, or was launched by a call
 * made in one (and starts within TIXCAP_WINDOW_LAG_NS of its close: a
 * later match is a wrapped correlation id). */
static int keep_gpu(const struct tixcap_conv *c, int64_t start, uint32_t corr)
{
	if (!windowed(c) || (start && in_window(c, start)))
		return 1;
	for (size_t i = c->nwin; corr && i-- > 0;) {
		int64_t close = c->local[i].close;
		if (start && close != INT64_MAX && start - close > TIXCAP_WINDOW_LAG_NS)
			continue;
		if (tixcap_windows_has_call(c->win, i, corr))
			return 1;
	}
	return 0;
}

static void put_marker(struct tixcap_conv *c, const struct tixj_marker *m)
{
	tixj_add(c->w, TIXJ_MARKERS, m, m->ts, m->ts);
}

void tixcap_conv_sync_windows(struct tixcap_conv *c)
{
	if (!windowed(c))
		return;
	uint32_t v = atomic_load(&c->win->version);
	if (v == c->seen_version)
		return;
	pthread_mutex_lock(&c->win->mu);
	size_t old = c->nwin;
	for (size_t i = 0; i < c->win->n; i++) {
		c->local[i].open = c->win->w[i].open;
		c->local[i].close = c->win->w[i].close;
	}
	c->nwin = c->win->n;
	c->seen_version = v;
	pthread_mutex_unlock(&c->win->mu);
	/* Journal the edges not written yet. */
	for (size_t i = c->win_journaled_open; i < c->nwin; i++) {
		struct tixj_window e = {c->local[i].open, 1, 0};
		tixj_add(c->w, TIXJ_WINDOWS, &e, e.ts, e.ts);
		c->win_journaled_open = i + 1;
	}
	for (size_t i = c->win_journaled_close; i < c->nwin; i++) {
		if (c->local[i].close == INT64_MAX)
			break;
		struct tixj_window e = {c->local[i].close, 0, 0};
		tixj_add(c->w, TIXJ_WINDOWS, &e, e.ts, e.ts);
		c->win_journaled_close = i + 1;
	}
	/* A new window: ranges still open around it are its parents. */
	if (c->nwin > old) {
		for (size_t i = 0; i < c->pend->n; i++) {
			if (!c->pend->r[i].emitted) {
				put_marker(c, &c->pend->r[i].m);
				c->pend->r[i].emitted = 1;
			}
		}
	}
}

static void marker(struct tixcap_conv *c, const struct tixj_marker *m)
{
	if (!windowed(c)) {
		put_marker(c, m);
		return;
	}
	struct tixcap_pending *p = c->pend;
	int keep = in_window(c, m->ts);
	if (m->flags & TIXJ_M_START) {
		if (keep)
			put_marker(c, m);
		if (p->n < PEND_MAX)
			p->r[p->n++] = (struct pend_row){*m, keep};
		else
			p->overflow++;
	} else if (m->flags & TIXJ_M_END) {
		struct pend_row *row = pend_find(p, m->id);
		if (row) {
			if (!row->emitted && (keep || overlaps(c, row->m.ts, m->ts))) {
				put_marker(c, &row->m);
				row->emitted = 1;
			}
			if (row->emitted)
				put_marker(c, m);
			pend_remove(p, row);
		} else if (keep) {
			put_marker(c, m);
		}
	} else if (keep) {
		put_marker(c, m);
	}
}

uint32_t tixcap_conv_api_name(struct tixcap_conv *c, int driver, uint32_t cbid)
{
	uint32_t *slot = cbid < 1024 ? &c->api_name[driver][cbid] : NULL;
	if (slot && *slot)
		return *slot - 1;
	const char *name = NULL;
	char tmp[48];
	CUpti_CallbackDomain dom = driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
	if (cuptiGetCallbackName(dom, cbid, &name) != CUPTI_SUCCESS || !name) {
		snprintf(tmp, sizeof tmp, "%s_cbid_%u", driver ? "driver" : "runtime", cbid);
		name = tmp;
	}
	uint32_t id = tixj_intern(c->w, name, strlen(name));
	if (slot && id != TIXJ_NONE)
		*slot = id + 1;
	return id;
}

static uint32_t intern_c(struct tixcap_conv *c, const char *s)
{
	return s ? tixj_intern(c->w, s, strlen(s)) : TIXJ_NONE;
}

static int conv_kernel(struct tixcap_conv *c, const tixcap_kernel_rec *k)
{
	struct tixj_kernel r = {
		.start = (int64_t)k->start, .end = (int64_t)k->end,
		.graph_node_id = k->graphNodeId,
		.correlation = k->correlationId,
		.device = k->deviceId, .context = k->contextId, .stream = k->streamId,
		.graph_id = k->graphId,
		.grid = {k->gridX, k->gridY, k->gridZ},
		.block = {k->blockX, k->blockY, k->blockZ},
		.static_smem = k->staticSharedMemory, .dynamic_smem = k->dynamicSharedMemory,
		.registers = k->registersPerThread,
		.channel = k->channelID,
	};
	if (k->start == 0 && k->end == 0) {
		r.flags |= TIXJ_K_NO_TIMESTAMP;
		c->drops.no_timestamp++;
	}
	if (k->isDeviceLaunched)
		r.flags |= TIXJ_K_DEVICE_LAUNCHED;
	if (!keep_gpu(c, r.start, r.correlation))
		return 0;
	r.name = intern_c(c, k->name);
	return tixj_add(c->w, TIXJ_KERNELS, &r, r.start, r.end) == 0;
}

static int conv_copy(struct tixcap_conv *c, struct tixj_copy *r)
{
	if (r->start == 0 && r->end == 0)
		c->drops.no_timestamp++;
	if (!keep_gpu(c, r->start, r->correlation))
		return 0;
	return tixj_add(c->w, TIXJ_COPIES, r, r->start, r->end) == 0;
}

/* The timestamp a record is placed by (0 for those without one). */
static int64_t record_ts(const CUpti_Activity *rec)
{
	switch (rec->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		return (int64_t)((const tixcap_kernel_rec *)rec)->start;
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		return (int64_t)((const CUpti_ActivityMemcpy6 *)rec)->start;
	case CUPTI_ACTIVITY_KIND_MEMCPY2:
		return (int64_t)((const CUpti_ActivityMemcpyPtoP4 *)rec)->start;
	case CUPTI_ACTIVITY_KIND_MEMSET:
		return (int64_t)((const CUpti_ActivityMemset4 *)rec)->start;
	case CUPTI_ACTIVITY_KIND_RUNTIME:
	case CUPTI_ACTIVITY_KIND_DRIVER:
		return (int64_t)((const CUpti_ActivityAPI *)rec)->start;
	case CUPTI_ACTIVITY_KIND_MARKER:
		return (int64_t)((const CUpti_ActivityMarker2 *)rec)->timestamp;
	default:
		return 0;
	}
}

/* Counts rec in c->last, the buffer's summary. */
static void count_record(struct tixcap_conv *c, const CUpti_Activity *rec, int64_t ts)
{
	struct tixj_buffer *b = &c->last;
	int64_t end = ts;
	switch (rec->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		b->kernels++;
		end = (int64_t)((const tixcap_kernel_rec *)rec)->end;
		break;
	case CUPTI_ACTIVITY_KIND_RUNTIME:
	case CUPTI_ACTIVITY_KIND_DRIVER:
		b->apis++;
		end = (int64_t)((const CUpti_ActivityAPI *)rec)->end;
		break;
	case CUPTI_ACTIVITY_KIND_MARKER:
		b->markers++;
		break;
	default:
		b->other++;
		break;
	}
	if (ts && (!b->first_ts || ts < b->first_ts))
		b->first_ts = ts;
	if (end > b->last_ts)
		b->last_ts = end;
}

size_t tixcap_conv_buffer(struct tixcap_conv *c, uint8_t *buf, size_t valid)
{
	size_t rows = 0;
	CUpti_Activity *rec = NULL;
	tixcap_conv_sync_windows(c);
	memset(&c->last, 0, sizeof c->last);
	c->last.valid = (uint32_t)valid;
	if (!buf || !valid || c->foreign_ts)
		return 0;
	while (cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS) {
		int64_t ts = record_ts(rec);
		if (c->t_floor && ts && ts < c->t_floor) {
			c->foreign_ts = ts;
			break;
		}
		count_record(c, rec, ts);
		switch (rec->kind) {
		case CUPTI_ACTIVITY_KIND_KERNEL:
		case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
			c->kernels_seen++;
			rows += conv_kernel(c, (const tixcap_kernel_rec *)rec);
			break;
		case CUPTI_ACTIVITY_KIND_MEMCPY: {
			const CUpti_ActivityMemcpy6 *m = (const void *)rec;
			struct tixj_copy r = {
				.start = (int64_t)m->start, .end = (int64_t)m->end, .bytes = m->bytes,
				.graph_node_id = m->graphNodeId, .correlation = m->correlationId,
				.device = m->deviceId, .context = m->contextId, .stream = m->streamId,
				.graph_id = m->graphId, .op = TIXJ_COPY_MEMCPY,
				.copy_kind = m->copyKind, .src_kind = m->srcKind, .dst_kind = m->dstKind,
			};
			rows += conv_copy(c, &r);
			break;
		}
		case CUPTI_ACTIVITY_KIND_MEMCPY2: {
			const CUpti_ActivityMemcpyPtoP4 *m = (const void *)rec;
			struct tixj_copy r = {
				.start = (int64_t)m->start, .end = (int64_t)m->end, .bytes = m->bytes,
				.graph_node_id = m->graphNodeId, .correlation = m->correlationId,
				.device = m->deviceId, .context = m->contextId, .stream = m->streamId,
				.graph_id = m->graphId, .op = TIXJ_COPY_P2P,
				.copy_kind = m->copyKind, .src_kind = m->srcKind, .dst_kind = m->dstKind,
				.value = m->srcDeviceId,
			};
			rows += conv_copy(c, &r);
			break;
		}
		case CUPTI_ACTIVITY_KIND_MEMSET: {
			const CUpti_ActivityMemset4 *m = (const void *)rec;
			struct tixj_copy r = {
				.start = (int64_t)m->start, .end = (int64_t)m->end, .bytes = m->bytes,
				.graph_node_id = m->graphNodeId, .correlation = m->correlationId,
				.device = m->deviceId, .context = m->contextId, .stream = m->streamId,
				.graph_id = m->graphId, .op = TIXJ_COPY_MEMSET,
				.dst_kind = (uint8_t)m->memoryKind, .value = m->value,
			};
			rows += conv_copy(c, &r);
			break;
		}
		case CUPTI_ACTIVITY_KIND_RUNTIME:
		case CUPTI_ACTIVITY_KIND_DRIVER: {
			const CUpti_ActivityAPI *a = (const void *)rec;
			int drv = rec->kind == CUPTI_ACTIVITY_KIND_DRIVER;
			if (!in_window(c, (int64_t)a->start))
				break;
			struct tixj_api r = {
				.start = (int64_t)a->start, .end = (int64_t)a->end,
				.name = tixcap_conv_api_name(c, drv, a->cbid), .cbid = a->cbid,
				.tid = a->threadId, .correlation = a->correlationId,
				.ret = a->returnValue,
				.domain = drv ? TIXJ_API_DRIVER : TIXJ_API_RUNTIME,
			};
			rows += tixj_add(c->w, TIXJ_APIS, &r, r.start, r.end) == 0;
			break;
		}
		case CUPTI_ACTIVITY_KIND_MARKER: {
			const CUpti_ActivityMarker2 *m = (const void *)rec;
			struct tixj_marker r = {
				.ts = (int64_t)m->timestamp, .id = m->id,
				.tid = m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? m->objectId.pt.threadId : 0,
				.name = TIXJ_NONE, .domain = TIXJ_NONE,
			};
			if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START)
				r.flags = TIXJ_M_START;
			else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END)
				r.flags = TIXJ_M_END;
			else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS)
				r.flags = TIXJ_M_INSTANT;
			else {
				c->drops.skipped++; /* sync-object markers: not ranges */
				break;
			}
			if (r.flags != TIXJ_M_END) {
				r.name = intern_c(c, m->name);
				r.domain = intern_c(c, m->domain);
			}
			marker(c, &r);
			rows++;
			break;
		}
		case CUPTI_ACTIVITY_KIND_NAME: {
			const CUpti_ActivityName *n = (const void *)rec;
			if (n->objectKind != CUPTI_ACTIVITY_OBJECT_THREAD || !n->name)
				break;
			struct tixj_thread r = {n->objectId.pt.threadId, intern_c(c, n->name)};
			rows += tixj_add(c->w, TIXJ_THREADS, &r, 0, 0) == 0;
			break;
		}
		case CUPTI_ACTIVITY_KIND_DEVICE: {
			const CUpti_ActivityDevice5 *d = (const void *)rec;
			struct tixj_device r = {
				.id = d->id, .name = intern_c(c, d->name),
				.cc_major = d->computeCapabilityMajor, .cc_minor = d->computeCapabilityMinor,
				.sm_count = d->numMultiprocessors, .global_mem = d->globalMemorySize,
				.mem_bandwidth = d->globalMemoryBandwidth,
			};
			memcpy(r.uuid, &d->uuid, sizeof r.uuid);
			rows += tixj_add(c->w, TIXJ_DEVICES, &r, 0, 0) == 0;
			break;
		}
		default:
			c->drops.skipped++;
			break;
		}
	}
	return rows;
}
