/*
 * cupti_capture/journal_read.c: turns a capture journal (.tixj) into events
 * for a tix_sink (the index builder).  Owner: cupti_capture.
 *
 * Known limits, on purpose:
 * - Salvage keeps the prefix: reading stops at the first chunk that is torn,
 *   fails a checksum or breaks the sequence; nothing after it is trusted.
 * - Two passes over the mapped file: the first collects strings, NVTX
 *   markers, graph nodes and metadata (they are small), the second streams
 *   kernels, copies and API calls straight to the sink.
 * - NVTX START/END pairs are matched by CUPTI's marker id; a START without
 *   END (killed process, closed window) ends at the journal's last
 *   timestamp and says "unclosed" in its args.
 * - graph_node_id is 64-bit in CUPTI and 32-bit in tix_launch_in: the low
 *   32 bits go there, the full id goes into the args.
 * - A graph-replayed kernel is joined to the node that captured it by node
 *   id (journal_graph.c), so its capture-time parents are exact (sent as
 *   ev.captured, match exact); they come from the graph-node rows, not from
 *   the NVTX markers, so a capture window that opened after the graphs were
 *   built keeps them.
 */
#include "cupti_capture/capture.h"
#include "index/grow.h"
#include "cupti_capture/journal.h"
#include "cupti_capture/journal_read_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PUSH(arr, n, cap, val)                                                    \
	do {                                                                      \
		if (tix_grow(&(arr), &(cap), (n) + 1, sizeof *(arr), 64) != 0)   \
			return -1;                                                \
		(arr)[(n)++] = (val);                                             \
	} while (0)

static int add_strings(struct rd *r, const uint8_t *q, size_t len)
{
	size_t off = 0;
	while (len - off >= 8) {
		uint32_t id, n;
		memcpy(&id, q + off, 4);
		memcpy(&n, q + off + 4, 4);
		if (n > len - off - 8 || id >= (1u << 26))
			break; /* padding at the end of the chunk, or nonsense */
		if (id >= r->capstr) {
			/* doubling: ids come one by one, and a capture of SGLang's
			 * graphs interns tens of thousands of frame strings */
			size_t nn = r->capstr ? r->capstr : 256;
			while (nn <= id)
				nn *= 2;
			struct str *s = realloc(r->str, nn * sizeof *s);
			if (!s)
				return -1;
			r->str = s;
			memset(r->str + r->capstr, 0, (nn - r->capstr) * sizeof *s);
			r->capstr = nn;
		}
		if (id >= r->nstr)
			r->nstr = (size_t)id + 1;
		r->str[id].p = (const char *)q + off + 8;
		r->str[id].len = n;
		off += 8 + (((size_t)n + 3) & ~(size_t)3);
	}
	return 0;
}

/* Pass 1: validate the chain of chunks and collect the small tables. */
int tixjr_scan(struct rd *r)
{
	size_t off = 0;
	struct tixj_chunk_hdr h;
	while (off < r->n) {
		if (!tixj_chunk_check(r->p, r->n, off, r->chunks, &h)) {
			r->damaged = 1;
			break;
		}
		const uint8_t *q = r->p + off + TIXJ_CHUNK_HDR;
		uint32_t len = h.payload_len;
		if (r->chunks == 0) {
			if (h.type != TIXJ_HEADER || len < sizeof r->hdr)
				break;
			memcpy(&r->hdr, q, sizeof r->hdr);
			r->hdr.host[sizeof r->hdr.host - 1] = 0;
			r->cmdline = (const char *)q + sizeof r->hdr;
			r->cmdline_len = len - sizeof r->hdr;
			while (r->cmdline_len && r->cmdline[r->cmdline_len - 1] == 0)
				r->cmdline_len--;
		}
		if (h.t_max > r->t_last && h.type != TIXJ_HEADER)
			r->t_last = h.t_max;
		uint32_t rs = h.type < TIXJ_TYPE_COUNT ? tixj_row_size[h.type] : 0;
		if (rs && h.version != TIXJ_VERSION) {
			r->old_version_chunks++;
		} else if (h.type == TIXJ_STRINGS) {
			if (add_strings(r, q, len) != 0)
				return -1;
		} else if (h.type == TIXJ_NOTE) {
			for (size_t o = 0; len - o >= 4;) {
				uint32_t n;
				memcpy(&n, q + o, 4);
				if (n == 0 || n > len - o - 4)
					break;
				if (r->notes.len)
					tixjr_sb_add(&r->notes, "; ", 2);
				tixjr_sb_add(&r->notes, (const char *)q + o + 4, n);
				o += (4 + n + 7) & ~(size_t)7;
			}
		} else if (rs) {
			for (size_t o = 0; o + rs <= len; o += rs) {
				const uint8_t *row = q + o;
				switch (h.type) {
				case TIXJ_MARKERS: {
					struct tixj_marker m;
					memcpy(&m, row, sizeof m);
					PUSH(r->mk, r->nmk, r->capmk, m);
					break;
				}
				case TIXJ_GRAPH_NODES: {
					struct tixj_graph_node g;
					memcpy(&g, row, sizeof g);
					PUSH(r->gn, r->ngn, r->capgn, g);
					break;
				}
				case TIXJ_GRAPH_EVENTS: {
					struct tixj_graph_event e;
					memcpy(&e, row, sizeof e);
					PUSH(r->ge, r->nge, r->capge, e);
					break;
				}
				case TIXJ_THREADS: {
					struct tixj_thread t;
					memcpy(&t, row, sizeof t);
					PUSH(r->th, r->nth, r->capth, t);
					break;
				}
				case TIXJ_DEVICES: {
					struct tixj_device d;
					memcpy(&d, row, sizeof d);
					PUSH(r->dev, r->ndev, r->capdev, d);
					break;
				}
				case TIXJ_WINDOWS: {
					struct tixj_window w;
					memcpy(&w, row, sizeof w);
					PUSH(r->win, r->nwin, r->capwin, w);
					break;
				}
				case TIXJ_DROPS:
				case TIXJ_END:
					memcpy(&r->drops, row, sizeof r->drops); /* cumulative */
					r->have_end |= h.type == TIXJ_END;
					break;
				default:
					break;
				}
			}
		}
		off += TIXJ_CHUNK_HDR + len;
		r->chunks++;
		r->good_end = off;
	}
	return 0;
}

static const char *mem_kind(unsigned k)
{
	static const char *names[] = {"Unknown", "Pageable", "Pinned", "Device", "Array",
	                              "Managed", "Device Static", "Managed Static"};
	return k < sizeof names / sizeof *names ? names[k] : "Unknown";
}

static const char *copy_kind(unsigned k)
{
	static const char *names[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
	                              "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
	return k < sizeof names / sizeof *names ? names[k] : "Unknown";
}

/* ---- sink calls ---- */

static int emit(struct rd *r, struct tix_event_in *ev)
{
	r->records++;
	return r->sink->event(r->sink->ctx, ev, r->err);
}

static int note_stream(struct rd *r, uint32_t device, uint32_t stream)
{
	for (size_t i = r->nstreams; i-- > 0;)
		if (r->streams[i].device == device && r->streams[i].stream == stream)
			return 0;
	struct stream_key k = {device, stream};
	PUSH(r->streams, r->nstreams, r->capstreams, k);
	return 0;
}

static int emit_kernel(struct rd *r, const struct tixj_kernel *k)
{
	struct tix_launch_in L = {
		.grid = {k->grid[0], k->grid[1], k->grid[2]},
		.block = {k->block[0], k->block[1], k->block[2]},
		.registers = k->registers,
		.shared_mem = k->static_smem + k->dynamic_smem,
		.dynamic_shared = k->dynamic_smem,
		.blocks_per_sm = -1, .warps_per_sm = -1, .occupancy = -1,
		.device = (int32_t)k->device, .context = (int32_t)k->context,
		.stream = (int32_t)k->stream, .bytes = -1,
		.graph_id = k->graph_id, .graph_node_id = (uint32_t)k->graph_node_id,
	};
	struct sb a = {0};
	tixjr_sb_add(&a, "{", 1);
	const struct tix_capture_in *cap = NULL;
	if (k->graph_id || k->graph_node_id)
		cap = tixjr_graph_capture(r, k->graph_node_id, k->correlation, (int64_t)k->start, &a);
	if (k->flags & TIXJ_K_NO_TIMESTAMP)
		tixjr_sb_printf(&a, "%s\"no timestamp\":true", a.len > 1 ? "," : "");
	if (k->flags & TIXJ_K_DEVICE_LAUNCHED)
		tixjr_sb_printf(&a, "%s\"device launched\":true", a.len > 1 ? "," : "");
	tixjr_sb_add(&a, "}", 1);
	/* The name as CUPTI gave it, mangled: the index's names phase
	 * (name_forms.c) demangles every GPU work name, a capture's as a
	 * Kineto trace's, and keeps the mangled one beside it. */
	struct str name = tixjr_str(r, k->name);
	int64_t start = k->flags & TIXJ_K_NO_TIMESTAMP ? 0 : tixjr_rel(r, k->start);
	struct tix_event_in ev = {
		.kind = TIX_KIND_KERNEL,
		.pid = tixjr_id(k->device), .tid = tixjr_id(k->stream),
		.start_ns = start,
		.dur_ns = k->end > k->start ? k->end - k->start : 0,
		.name = {name.p, name.len}, .cat = tix_kind_cat_str(TIX_KIND_KERNEL),
		.args = {a.p, a.len > 2 ? a.len : 0},
		.correlation = k->correlation ? (int64_t)k->correlation : -1,
		.launch = &L,
		.captured = cap,
	};
	int rc = note_stream(r, k->device, k->stream) == 0 ? emit(r, &ev) : -1;
	free(a.p);
	return rc;
}

static int emit_copy(struct rd *r, const struct tixj_copy *c)
{
	struct tix_launch_in L = {
		.registers = -1, .shared_mem = -1, .dynamic_shared = -1,
		.blocks_per_sm = -1, .warps_per_sm = -1, .occupancy = -1,
		.device = (int32_t)c->device, .context = (int32_t)c->context,
		.stream = (int32_t)c->stream, .bytes = (int64_t)c->bytes,
		.graph_id = c->graph_id, .graph_node_id = (uint32_t)c->graph_node_id,
	};
	char name[96];
	if (c->op == TIXJ_COPY_MEMSET)
		snprintf(name, sizeof name, "Memset (%s)", mem_kind(c->dst_kind));
	else if (c->op == TIXJ_COPY_P2P)
		snprintf(name, sizeof name, "Memcpy PtoP (%s -> %s)", mem_kind(c->src_kind),
		         mem_kind(c->dst_kind));
	else
		snprintf(name, sizeof name, "Memcpy %s (%s -> %s)", copy_kind(c->copy_kind),
		         mem_kind(c->src_kind), mem_kind(c->dst_kind));
	struct sb a = {0};
	tixjr_sb_add(&a, "{", 1);
	const struct tix_capture_in *cap = NULL;
	if (c->graph_id || c->graph_node_id)
		cap = tixjr_graph_capture(r, c->graph_node_id, c->correlation, (int64_t)c->start, &a);
	if (c->op == TIXJ_COPY_MEMSET)
		tixjr_sb_printf(&a, "%s\"value\":%u", a.len > 1 ? "," : "", c->value);
	if (c->op == TIXJ_COPY_P2P)
		tixjr_sb_printf(&a, "%s\"src device\":%u", a.len > 1 ? "," : "", c->value);
	tixjr_sb_add(&a, "}", 1);
	struct tix_event_in ev = {
		.kind = c->op == TIXJ_COPY_MEMSET ? TIX_KIND_MEMSET : TIX_KIND_MEMCPY,
		.pid = tixjr_id(c->device), .tid = tixjr_id(c->stream),
		.start_ns = tixjr_rel(r, c->start),
		.dur_ns = c->end > c->start ? c->end - c->start : 0,
		.name = {name, strlen(name)},
		.cat = tix_kind_cat_str(c->op == TIXJ_COPY_MEMSET ? TIX_KIND_MEMSET : TIX_KIND_MEMCPY),
		.args = {a.p, a.len > 2 ? a.len : 0},
		.correlation = c->correlation ? (int64_t)c->correlation : -1,
		.launch = &L,
		.captured = cap,
	};
	int rc = note_stream(r, c->device, c->stream) == 0 ? emit(r, &ev) : -1;
	free(a.p);
	return rc;
}

static int emit_api(struct rd *r, const struct tixj_api *a)
{
	struct str s = tixjr_str(r, a->name);
	char args[64];
	int n = a->ret ? snprintf(args, sizeof args, "{\"cbid\":%u,\"return\":%u}", a->cbid, a->ret)
	               : snprintf(args, sizeof args, "{\"cbid\":%u}", a->cbid);
	int drv = a->domain == TIXJ_API_DRIVER;
	struct tix_event_in ev = {
		.kind = drv ? TIX_KIND_DRIVER : TIX_KIND_RUNTIME,
		.pid = tixjr_id(r->hdr.pid), .tid = tixjr_id(a->tid),
		.start_ns = tixjr_rel(r, a->start),
		.dur_ns = a->end > a->start ? a->end - a->start : 0,
		.name = tixjr_api_name(s),
		.cat = tix_kind_cat_str(drv ? TIX_KIND_DRIVER : TIX_KIND_RUNTIME),
		.args = {args, (size_t)n},
		.correlation = a->correlation ? (int64_t)a->correlation : -1,
	};
	return emit(r, &ev);
}

/* Pass 2: stream the GPU work and the API calls. */
static int stream_rows(struct rd *r)
{
	size_t off = 0;
	struct tixj_chunk_hdr h;
	while (off < r->good_end) {
		memcpy(&h, r->p + off, sizeof h);
		const uint8_t *q = r->p + off + TIXJ_CHUNK_HDR;
		uint32_t rs = h.type < TIXJ_TYPE_COUNT ? tixj_row_size[h.type] : 0;
		if (rs && h.version == TIXJ_VERSION) {
			for (size_t o = 0; o + rs <= h.payload_len; o += rs) {
				int rc = 0;
				if (h.type == TIXJ_KERNELS) {
					struct tixj_kernel k;
					memcpy(&k, q + o, sizeof k);
					rc = emit_kernel(r, &k);
				} else if (h.type == TIXJ_COPIES) {
					struct tixj_copy c;
					memcpy(&c, q + o, sizeof c);
					rc = emit_copy(r, &c);
				} else if (h.type == TIXJ_APIS) {
					struct tixj_api a;
					memcpy(&a, q + o, sizeof a);
					rc = emit_api(r, &a);
				}
				if (rc != 0)
					return -1;
			}
		}
		off += TIXJ_CHUNK_HDR + h.payload_len;
	}
	return 0;
}

static int cmp_marker_id(const void *a, const void *b)
{
	const struct tixj_marker *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	/* Then by time, whatever order the buffers came in, so a u32 id that
	 * wrapped on a long run still pairs each START with the next END;
	 * START first at equal times. */
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->flags & TIXJ_M_END) - (y->flags & TIXJ_M_END);
}

/* Pairs NVTX START/END by id into r->rg; instants are emitted here. */
static int pair_markers(struct rd *r)
{
	if (r->nmk)
		qsort(r->mk, r->nmk, sizeof *r->mk, cmp_marker_id);
	r->rg = calloc(r->nmk + 1, sizeof *r->rg);
	if (!r->rg)
		return -1;
	for (size_t i = 0; i < r->nmk; i++) {
		const struct tixj_marker *m = &r->mk[i];
		if (m->flags & TIXJ_M_INSTANT) {
			struct str s = tixjr_str(r, m->name);
			struct tix_event_in ev = {
				.kind = TIX_KIND_INSTANT,
				.pid = tixjr_id(r->hdr.pid), .tid = tixjr_id(m->tid),
				.start_ns = tixjr_rel(r, (uint64_t)m->ts),
				.name = {s.p, s.len}, .cat = {"nvtx", 4}, .correlation = -1,
			};
			if (emit(r, &ev) != 0)
				return -1;
			continue;
		}
		if (!(m->flags & TIXJ_M_START))
			continue; /* an END whose START was not captured */
		struct range g = {m->ts, r->t_last, m->tid, m->name, m->domain, 1};
		if (i + 1 < r->nmk && r->mk[i + 1].id == m->id && (r->mk[i + 1].flags & TIXJ_M_END)) {
			g.e = r->mk[i + 1].ts;
			g.unclosed = 0;
			i++;
		}
		if (g.e < g.s)
			g.e = g.s;
		r->unclosed += g.unclosed;
		r->rg[r->nrg++] = g;
	}
	return 0;
}

static int emit_ranges(struct rd *r)
{
	for (size_t i = 0; i < r->nrg; i++) {
		const struct range *g = &r->rg[i];
		struct str s = tixjr_str(r, g->name), d = tixjr_str(r, g->domain);
		struct sb a = {0};
		tixjr_sb_add(&a, "{", 1);
		if (d.len) {
			tixjr_sb_add(&a, "\"domain\":", 9);
			tixjr_sb_json(&a, d.p, d.len);
		}
		if (g->unclosed)
			tixjr_sb_printf(&a, "%s\"unclosed\":true", a.len > 1 ? "," : "");
		tixjr_sb_add(&a, "}", 1);
		struct tix_event_in ev = {
			.kind = TIX_KIND_USER_ANNOTATION,
			.pid = tixjr_id(r->hdr.pid), .tid = tixjr_id(g->tid),
			.start_ns = tixjr_rel(r, (uint64_t)g->s), .dur_ns = g->e - g->s,
			.name = {s.p, s.len}, .cat = {"nvtx", 4},
			.args = {a.p, a.len > 2 ? a.len : 0}, .correlation = -1,
		};
		int rc = emit(r, &ev);
		free(a.p);
		if (rc != 0)
			return -1;
	}
	return 0;
}

void tixjr_done(struct rd *r)
{
	tixjr_graph_done(r);
	free(r->str);
	free(r->mk);
	free(r->gn);
	free(r->ge);
	free(r->th);
	free(r->dev);
	free(r->win);
	free(r->streams);
	free(r->rg);
	free(r->notes.p);
}

int tixcap_journal_read_mem(const void *data, size_t n, const char *path,
                            const struct tix_sink *sink, struct tixcap_journal_result *res,
                            struct tix_error *err)
{
	struct rd r = {.p = data, .n = n, .path = path ? path : "journal", .sink = sink, .err = err};
	struct tixcap_journal_result dummy;
	if (!res)
		res = &dummy;
	memset(res, 0, sizeof *res);
	int rc = -1;
	if (tixjr_scan(&r) != 0) {
		tix_error_oom(err, r.path);
		goto out;
	}
	if (r.chunks == 0) {
		if (tixcap_is_journal(data, n))
			tix_error_set(err, "%s: journal header damaged or torn at byte 0", r.path);
		else
			tix_error_set(err, "%s: not a tix capture journal", r.path);
		goto out;
	}
	/* Epoch ns in the journal; rows are made relative to a whole second so
	 * they stay readable, and the offset is kept as the base time. */
	r.base = r.hdr.start_ns - r.hdr.start_ns % 1000000000;
	if (r.t_last < r.hdr.start_ns)
		r.t_last = r.hdr.start_ns;
	if (sink->base_time)
		sink->base_time(sink->ctx, r.base);
	if (pair_markers(&r) != 0 || tixjr_graph_index(&r) != 0) {
		tix_error_oom(err, r.path);
		goto out;
	}
	if (stream_rows(&r) != 0 || emit_ranges(&r) != 0 || tixjr_emit_meta(&r) != 0 ||
	    tixjr_emit_warnings(&r) != 0)
		goto out; /* err set by the sink */
	rc = 0;
out:
	res->records = r.records;
	res->truncated = r.damaged;
	res->salvaged_to = r.good_end;
	tixjr_done(&r);
	return rc;
}

int tixcap_is_journal(const void *head, size_t n)
{
	const uint8_t *p = head;
	uint32_t magic;
	uint16_t type;
	if (n < 8)
		return 0;
	memcpy(&magic, p, 4);
	memcpy(&type, p + 4, 2);
	return magic == TIXJ_MAGIC && type == TIXJ_HEADER;
}

int tixcap_journal_read(const char *path, const struct tix_sink *sink,
                        struct tixcap_journal_result *res, struct tix_error *err)
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
	int rc = tixcap_journal_read_mem(m, (size_t)st.st_size, path, sink, res, err);
	munmap(m, (size_t)st.st_size);
	return rc;
}
