/*
 * cupti_capture/journal_dump.c: a journal as text, chunk by chunk, for
 * `tixj-dump` (tests/gpu/run_gpu_checks.sh runs it after every capture:
 * what CUPTI gave, before the index builder sees it).  Owner: cupti_capture.
 */
#include "cupti_capture/journal_read_int.h"
#include "index/grow.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const type_name[TIXJ_TYPE_COUNT] = {
	[TIXJ_HEADER] = "header", [TIXJ_STRINGS] = "strings", [TIXJ_KERNELS] = "kernels",
	[TIXJ_COPIES] = "copies", [TIXJ_APIS] = "apis", [TIXJ_MARKERS] = "markers",
	[TIXJ_THREADS] = "threads", [TIXJ_DEVICES] = "devices", [TIXJ_CLOCKS] = "clocks",
	[TIXJ_DROPS] = "drops", [TIXJ_WINDOWS] = "windows", [TIXJ_NOTE] = "notes",
	[TIXJ_END] = "end", [TIXJ_GRAPH_NODES] = "graph_nodes", [TIXJ_GRAPH_EVENTS] = "graph_events",
	[TIXJ_BUFFERS] = "buffers",
};

/* s as a quoted string; its NULs (between graph-node frames, between
 * command-line arguments) written as nul. */
static void quoted(FILE *out, struct str s, const char *nul)
{
	fputc('"', out);
	for (uint32_t i = 0; i < s.len; i++) {
		unsigned char c = (unsigned char)s.p[i];
		if (c == 0)
			fputs(nul, out);
		else if (c < 0x20 || c == '"' || c == '\\' || c >= 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void row(struct rd *r, FILE *out, int type, const uint8_t *q, uint64_t n)
{
	switch (type) {
	case TIXJ_KERNELS: {
		struct tixj_kernel k;
		memcpy(&k, q, sizeof k);
		fprintf(out, "  kernel #%" PRIu64 ": start %" PRId64 " dur %" PRId64 " corr %u grid [%d,%d,%d] "
		        "block [%d,%d,%d] regs %u smem %d+%d device %u stream %u graph %u node %" PRIu64
		        " flags %u name ", n, k.start, k.end - k.start, k.correlation, k.grid[0], k.grid[1],
		        k.grid[2], k.block[0], k.block[1], k.block[2], k.registers, k.static_smem,
		        k.dynamic_smem, k.device, k.stream, k.graph_id, k.graph_node_id, k.flags);
		quoted(out, tixjr_str(r, k.name), "");
		break;
	}
	case TIXJ_COPIES: {
		struct tixj_copy c;
		memcpy(&c, q, sizeof c);
		fprintf(out, "  copy #%" PRIu64 ": op %u kind %u start %" PRId64 " dur %" PRId64
		        " bytes %" PRIu64 " corr %u stream %u graph %u node %" PRIu64, n, c.op, c.copy_kind,
		        c.start, c.end - c.start, c.bytes, c.correlation, c.stream, c.graph_id,
		        c.graph_node_id);
		break;
	}
	case TIXJ_APIS: {
		struct tixj_api a;
		memcpy(&a, q, sizeof a);
		fprintf(out, "  api #%" PRIu64 ": %s cbid %u corr %u tid %u start %" PRId64 " dur %" PRId64
		        " ret %u name ", n, a.domain == TIXJ_API_DRIVER ? "driver" : "runtime", a.cbid,
		        a.correlation, a.tid, a.start, a.end - a.start, a.ret);
		quoted(out, tixjr_str(r, a.name), "");
		break;
	}
	case TIXJ_MARKERS: {
		struct tixj_marker m;
		memcpy(&m, q, sizeof m);
		fprintf(out, "  marker #%" PRIu64 ": %s id %u tid %u ts %" PRId64 " name ", n,
		        m.flags & TIXJ_M_START ? "start" : m.flags & TIXJ_M_END ? "end" : "instant", m.id,
		        m.tid, m.ts);
		quoted(out, tixjr_str(r, m.name), "");
		break;
	}
	case TIXJ_GRAPH_NODES: {
		struct tixj_graph_node g;
		memcpy(&g, q, sizeof g);
		fprintf(out, "  graph_node #%" PRIu64 ": %s node %" PRIu64 " from %" PRIu64 " graph %u tid %u "
		        "type %u corr %u cbid %u api ", n, g.how == TIXJ_G_CLONED ? "cloned" : "created",
		        g.node_id, g.orig_node_id, g.graph_id, g.tid, g.node_type, g.correlation, g.cbid);
		quoted(out, g.api == TIXJ_NONE ? (struct str){"", 0} : tixjr_str(r, g.api), "");
		fputs(" frames ", out);
		struct str f = g.frames == TIXJ_NONE ? (struct str){"", 0} : tixjr_str(r, g.frames);
		if (f.len && f.p[f.len - 1] == 0)
			f.len--; /* the last frame's NUL */
		quoted(out, f, " > ");
		if (g.flags & TIXJ_G_FRAMES_CUT)
			fputs(" (cut)", out);
		break;
	}
	case TIXJ_GRAPH_EVENTS: {
		struct tixj_graph_event e;
		memcpy(&e, q, sizeof e);
		static const char *what[] = {"?", "exec made", "exec updated", "node updated"};
		fprintf(out, "  graph_event #%" PRIu64 ": %s exec %u node %" PRIu64 " corr %u ts %" PRId64,
		        n, what[e.what < 4 ? e.what : 0], e.exec_id, e.node_id, e.correlation, e.ts);
		break;
	}
	case TIXJ_BUFFERS: {
		struct tixj_buffer b;
		memcpy(&b, q, sizeof b);
		fprintf(out, "  buffer #%" PRIu64 ": %u bytes kernels %u apis %u markers %u other %u "
		        "span %" PRId64 " ns stream %u", n, b.valid, b.kernels, b.apis, b.markers, b.other,
		        b.first_ts ? b.last_ts - b.first_ts : 0, b.stream);
		break;
	}
	case TIXJ_CLOCKS: {
		struct tixj_clock c;
		memcpy(&c, q, sizeof c);
		fprintf(out, "  clock #%" PRIu64 ": cupti %" PRId64 " realtime %" PRId64 " monotonic %" PRId64,
		        n, c.cupti_ns, c.realtime_ns, c.monotonic_ns);
		break;
	}
	case TIXJ_WINDOWS: {
		struct tixj_window w;
		memcpy(&w, q, sizeof w);
		fprintf(out, "  window #%" PRIu64 ": %s at %" PRId64, n, w.open ? "open" : "close", w.ts);
		break;
	}
	case TIXJ_DROPS:
	case TIXJ_END: {
		struct tixj_drops d;
		memcpy(&d, q, sizeof d);
		fprintf(out, "  %s #%" PRIu64 ": cupti dropped %" PRIu64 " refused %" PRIu64
		        " no timestamp %" PRIu64 " skipped %" PRIu64, type == TIXJ_END ? "end" : "drops", n,
		        d.cupti_dropped, d.buffers_refused, d.no_timestamp, d.skipped);
		break;
	}
	default:
		fprintf(out, "  %s #%" PRIu64, type_name[type] ? type_name[type] : "?", n);
		break;
	}
	fputc('\n', out);
}

/* How CUPTI filled the buffers (BUFFERS rows): how many held kernels,
 * whether those shared them with API and NVTX records, and the span of
 * their records, which bounds what a kill loses (tests/gpu/check_kill.py
 * reads this line). */
struct buffer_summary {
	uint64_t n, with_kernels, mixed, spans_n;
	int64_t span_max, *spans;
	size_t cap;
};

static void summarise_buffer(struct buffer_summary *bs, const struct tixj_buffer *b)
{
	bs->n++;
	if (!b->kernels)
		return;
	bs->with_kernels++;
	bs->mixed += b->apis || b->markers;
	int64_t span = b->first_ts ? b->last_ts - b->first_ts : 0;
	if (span > bs->span_max)
		bs->span_max = span;
	if (tix_grow(&bs->spans, &bs->cap, bs->spans_n + 1, sizeof *bs->spans, 64) != 0)
		return;
	bs->spans[bs->spans_n++] = span;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static void print_buffers(FILE *out, struct buffer_summary *bs)
{
	if (bs->spans_n)
		qsort(bs->spans, bs->spans_n, sizeof *bs->spans, cmp_i64);
	fprintf(out, "buffers: %" PRIu64 ", with kernels %" PRIu64 " (with API or NVTX records "
	        "too: %" PRIu64 "), kernel buffer span max %" PRId64 " ns median %" PRId64 " ns\n",
	        bs->n, bs->with_kernels, bs->mixed, bs->span_max,
	        bs->spans_n ? bs->spans[bs->spans_n / 2] : 0);
	free(bs->spans);
}

static int dump(struct rd *r, FILE *out, unsigned rows)
{
	if (tixjr_scan(r) != 0)
		return tix_error_oom(r->err, r->path);
	if (r->chunks == 0)
		return tix_error_set(r->err, "%s: not a tix capture journal, or its header is damaged",
		                     r->path);
	fprintf(out, "journal %s: %zu bytes, %u whole chunks, %s\n", r->path, r->n, r->chunks,
	        r->damaged ? "DAMAGED" : r->have_end ? "closed" : "not closed");
	if (r->damaged)
		fprintf(out, "damaged at byte %zu: the %u chunks before it are whole\n", r->good_end,
		        r->chunks);
	fprintf(out, "header: pid %u host %s cupti %u (built with %u) flush %u ms%s start %" PRId64 "\n",
	        r->hdr.pid, r->hdr.host, r->hdr.cupti_version, r->hdr.cupti_build, r->hdr.flush_ms,
	        r->hdr.flags & TIXJ_HDR_WINDOWED ? " windowed" : "", r->hdr.start_ns);
	fprintf(out, "command: ");
	quoted(out, (struct str){r->cmdline, (uint32_t)r->cmdline_len}, " ");
	fputc('\n', out);
	uint64_t count[TIXJ_TYPE_COUNT] = {0}, chunks[TIXJ_TYPE_COUNT] = {0};
	int64_t last_write = 0;
	struct buffer_summary bs = {0};
	size_t off = 0;
	struct tixj_chunk_hdr h;
	while (off < r->good_end) {
		memcpy(&h, r->p + off, sizeof h);
		const uint8_t *q = r->p + off + TIXJ_CHUNK_HDR;
		uint32_t rs = h.type < TIXJ_TYPE_COUNT ? tixj_row_size[h.type] : 0;
		if (h.type < TIXJ_TYPE_COUNT)
			chunks[h.type]++;
		if (rs && h.version == TIXJ_VERSION) {
			for (size_t o = 0; o + rs <= h.payload_len; o += rs) {
				if (count[h.type] < rows)
					row(r, out, h.type, q + o, count[h.type]);
				if (h.type == TIXJ_CLOCKS) {
					struct tixj_clock c;
					memcpy(&c, q + o, sizeof c);
					last_write = c.realtime_ns;
				} else if (h.type == TIXJ_BUFFERS) {
					struct tixj_buffer b;
					memcpy(&b, q + o, sizeof b);
					summarise_buffer(&bs, &b);
				}
				count[h.type]++;
			}
		}
		off += TIXJ_CHUNK_HDR + h.payload_len;
	}
	fputs("rows:", out);
	for (int t = 0; t < TIXJ_TYPE_COUNT; t++)
		if (type_name[t] && t != TIXJ_HEADER && t != TIXJ_STRINGS && (count[t] || chunks[t]))
			fprintf(out, " %s %" PRIu64, type_name[t], tixj_row_size[t] ? count[t] : chunks[t]);
	fprintf(out, "\nstrings: %zu\n", r->nstr);
	fprintf(out, "last write: realtime %" PRId64 "\n", last_write);
	print_buffers(out, &bs);
	fprintf(out, "drops: cupti %" PRIu64 " refused %" PRIu64 " no timestamp %" PRIu64
	        " skipped %" PRIu64 "\n", r->drops.cupti_dropped, r->drops.buffers_refused,
	        r->drops.no_timestamp, r->drops.skipped);
	if (r->notes.len)
		fprintf(out, "notes: %s\n", r->notes.p);
	return r->damaged ? 1 : 0;
}

int tixcap_journal_dump(const char *path, FILE *out, unsigned rows, struct tix_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tix_error_errno(err, errno, "%s: cannot open", path);
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_size == 0) {
		close(fd);
		return tix_error_set(err, "%s: empty or unreadable journal", path);
	}
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return tix_error_errno(err, errno, "%s: cannot map", path);
	struct rd r = {.p = m, .n = (size_t)st.st_size, .path = path, .err = err};
	int rc = dump(&r, out, rows);
	tixjr_done(&r);
	munmap(m, (size_t)st.st_size);
	return rc;
}
