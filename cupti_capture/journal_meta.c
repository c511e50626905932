/*
 * cupti_capture/journal_meta.c: the journal reader's text side: metadata
 * (tixCapture, deviceProperties), track names and warnings for the sink,
 * and the small text helpers they use.  Owner: cupti_capture.
 */
#include "cupti_capture/journal_read_int.h"
#include "index/grow.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tixjr_sb_add(struct sb *b, const char *s, size_t n)
{
	if (tix_grow(&b->p, &b->cap, b->len + n + 1, 1, 256) != 0)
		return; /* text is cosmetic: keep what fits */
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

void tixjr_sb_printf(struct sb *b, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n > 0)
		tixjr_sb_add(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* A JSON string literal: index/text.c's, the one rule for JSON text. */
void tixjr_sb_json(struct sb *b, const char *s, size_t n)
{
	size_t need = tix_json_buf(NULL, 0, s, n);
	if (tix_grow(&b->p, &b->cap, b->len + need + 1, 1, 256) != 0)
		return; /* text is cosmetic: keep what fits */
	tix_json_buf(b->p + b->len, need + 1, s, n);
	b->len += need;
}

struct str tixjr_str(const struct rd *r, uint32_t id)
{
	if (id < r->nstr && r->str[id].p)
		return r->str[id];
	return (struct str){"", 0};
}

/* "cudaLaunchKernel_v7000" -> "cudaLaunchKernel", as Kineto names calls;
 * "__cudaLaunchKernel_v13000" (runtime cbid 505: what nvcc 13 compiles a
 * <<<...>>> launch into) -> "cudaLaunchKernel", the launch the source
 * wrote, so a capture reads the same whichever nvcc built the program. */
struct tix_str tixjr_api_name(struct str s)
{
	size_t n = s.len, i = n;
	while (i > 0 && s.p[i - 1] >= '0' && s.p[i - 1] <= '9')
		i--;
	if (i < n && i >= 2 && s.p[i - 1] == 'v' && s.p[i - 2] == '_')
		n = i - 2;
	const char *p = s.p;
	if (n > 6 && p[0] == '_' && p[1] == '_' && !memcmp(p + 2, "cuda", 4)) {
		p += 2;
		n -= 2;
	}
	return (struct tix_str){p, n};
}

int64_t tixjr_rel(const struct rd *r, uint64_t t) { return (int64_t)t - r->base; }

struct tix_id tixjr_id(int64_t v)
{
	struct tix_id id = {v, {NULL, 0}};
	return id;
}

int tixjr_emit_meta(struct rd *r)
{
	const struct tix_sink *k = r->sink;
	struct sb j = {0};
	tixjr_sb_printf(&j, "{\"pid\":%u,\"host\":", r->hdr.pid);
	tixjr_sb_json(&j, r->hdr.host, strlen(r->hdr.host));
	tixjr_sb_add(&j, ",\"cmdline\":", 11);
	char *cmd = malloc(r->cmdline_len + 1);
	if (cmd) {
		for (size_t i = 0; i < r->cmdline_len; i++)
			cmd[i] = r->cmdline[i] ? r->cmdline[i] : ' ';
		tixjr_sb_json(&j, cmd, r->cmdline_len);
	}
	tixjr_sb_printf(&j, ",\"cupti_version\":%u,\"cupti_build\":%u,\"flush_ms\":%u,"
	              "\"start_ns\":%" PRId64 ",\"cupti_dropped\":%" PRIu64
	              ",\"buffers_refused\":%" PRIu64 ",\"closed\":%s,\"windows\":[",
	          r->hdr.cupti_version, r->hdr.cupti_build, r->hdr.flush_ms, r->hdr.start_ns,
	          r->drops.cupti_dropped, r->drops.buffers_refused,
	          r->have_end ? "true" : "false");
	for (size_t i = 0; i < r->nwin; i++)
		tixjr_sb_printf(&j, "%s[%" PRId64 ",%u]", i ? "," : "", tixjr_rel(r, (uint64_t)r->win[i].ts),
		          r->win[i].open);
	tixjr_sb_add(&j, "]}", 2);
	int rc = k->meta(k->ctx, (struct tix_str){"tixCapture", 10}, (struct tix_str){j.p, j.len},
	                 r->err);
	j.len = 0;
	if (rc == 0 && r->ndev) {
		tixjr_sb_add(&j, "[", 1);
		for (size_t i = 0; i < r->ndev; i++) {
			const struct tixj_device *d = &r->dev[i];
			struct str s = tixjr_str(r, d->name);
			tixjr_sb_printf(&j, "%s{\"id\":%u,\"name\":", i ? "," : "", d->id);
			tixjr_sb_json(&j, s.p, s.len);
			tixjr_sb_printf(&j, ",\"computeMajor\":%u,\"computeMinor\":%u,\"numSms\":%u,"
			              "\"totalGlobalMem\":%" PRIu64 "}",
			          d->cc_major, d->cc_minor, d->sm_count, d->global_mem);
		}
		tixjr_sb_add(&j, "]", 1);
		rc = k->meta(k->ctx, (struct tix_str){"deviceProperties", 16},
		             (struct tix_str){j.p, j.len}, r->err);
	}
	/* Track names: the process, its NVTX-named threads, GPUs and streams. */
	struct tix_id pid = tixjr_id(r->hdr.pid), none = tixjr_id(0);
	if (rc == 0 && cmd && r->cmdline_len) {
		size_t n = r->cmdline_len > 120 ? 120 : r->cmdline_len;
		rc = k->track_meta(k->ctx, &pid, &none, TIX_META_PROCESS_NAME, cmd, n, r->err);
	}
	free(cmd);
	for (size_t i = 0; rc == 0 && i < r->nth; i++) {
		struct tix_id tid = tixjr_id(r->th[i].tid);
		struct str s = tixjr_str(r, r->th[i].name);
		rc = k->track_meta(k->ctx, &pid, &tid, TIX_META_THREAD_NAME, s.p, s.len, r->err);
	}
	for (size_t i = 0; rc == 0 && i < r->nstreams; i++) {
		struct tix_id dev = tixjr_id(r->streams[i].device), tid = tixjr_id(r->streams[i].stream);
		char buf[160];
		int n = snprintf(buf, sizeof buf, "stream %u", r->streams[i].stream);
		rc = k->track_meta(k->ctx, &dev, &tid, TIX_META_THREAD_NAME, buf, (size_t)n, r->err);
		struct str ds = {"", 0};
		for (size_t d = 0; d < r->ndev; d++)
			if (r->dev[d].id == r->streams[i].device)
				ds = tixjr_str(r, r->dev[d].name);
		n = ds.len ? snprintf(buf, sizeof buf, "GPU %u: %.*s", r->streams[i].device,
		                      (int)(ds.len > 100 ? 100 : ds.len), ds.p)
		           : snprintf(buf, sizeof buf, "GPU %u", r->streams[i].device);
		if (rc == 0)
			rc = k->track_meta(k->ctx, &dev, &none, TIX_META_PROCESS_NAME, buf, (size_t)n,
			                   r->err);
	}
	free(j.p);
	return rc;
}

static int warn(struct rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int warn(struct rd *r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return r->sink->warn ? r->sink->warn(r->sink->ctx, msg, r->err) : 0;
}

int tixjr_emit_warnings(struct rd *r)
{
	int rc = 0;
	if (r->damaged)
		rc |= warn(r, "%s: journal torn or damaged at byte %zu of %zu; kept the %u whole "
		              "chunks before it (was the process killed?)",
		           r->path, r->good_end, r->n, r->chunks);
	else if (!r->have_end)
		rc |= warn(r, "%s: journal was not closed (process killed or left through "
		              "_exit); everything flushed before is kept",
		           r->path);
	if (r->drops.cupti_dropped || r->drops.buffers_refused)
		rc |= warn(r, "%s: CUPTI dropped %" PRIu64 " records; %" PRIu64
		              " buffer requests were refused (pool exhausted)",
		           r->path, r->drops.cupti_dropped, r->drops.buffers_refused);
	if (r->drops.no_timestamp)
		rc |= warn(r, "%s: %" PRIu64 " GPU records had no timestamp (device buffer full)",
		           r->path, r->drops.no_timestamp);
	if (r->unclosed)
		rc |= warn(r, "%s: %" PRIu64 " NVTX ranges were never closed in the journal",
		           r->path, r->unclosed);
	if (tixjr_graph_unknown(r))
		rc |= warn(r, "%s: %" PRIu64 " GPU records replayed from CUDA graphs have no "
		              "graph-node record (graphs built before the capture started?): "
		              "what captured them is unknown",
		           r->path, tixjr_graph_unknown(r));
	if (tixjr_graph_updated(r))
		rc |= warn(r, "%s: %" PRIu64 " GPU records replayed from CUDA graph nodes that were "
		              "updated after their capture (cudaGraphExecUpdate or "
		              "cudaGraphExec*NodeSetParams): what captured them is not known",
		           r->path, tixjr_graph_updated(r));
	if (r->old_version_chunks)
		rc |= warn(r, "%s: skipped %u chunks of another journal version", r->path,
		           r->old_version_chunks);
	if (r->notes.len)
		rc |= warn(r, "%s: %s", r->path, r->notes.p);
	return rc ? -1 : 0;
}

