/* The graph phase: what captured each kernel replayed from a CUDA graph.
 *
 * A replay trace shows one graph launch (cudaGraphLaunch, hipGraphLaunch)
 * and then hundreds of kernels with no launch call, no op, no shape.  The
 * profile of the same server while it captured its graphs has, between
 * StreamBeginCapture and StreamEndCapture on one thread, the launch calls
 * that became the graph's nodes, each under the CPU ops that made it, with
 * their Input Dims; nothing runs during capture.  The kernels of a replay
 * are those launches in order, so the names of a replay, matched to the
 * names of a window (graph_match.h), say which launch each kernel was, and
 * so which ops and shapes it stands for.
 *
 * Run after the steps (a replay's batch size is in its step's name) and
 * before the aggregates.  Writes only details: the replay's own times and
 * links are never changed. */
#include "index/build/phases.h"
#include "index/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/build/graph_match.h"

struct window_build {
	uint32_t *names;      /* replay-index string ids, TIX_NONE unnamed */
	uint32_t *chains;     /* capture chain per launch */
	uint32_t n, cap;
	int64_t batch;
};

struct replay_item {
	uint32_t launch, row;
	int64_t start;
};

static int cmp_replay_item(const void *a, const void *b)
{
	const struct replay_item *x = a, *y = b;
	if (x->launch != y->launch)
		return x->launch < y->launch ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->row < y->row ? -1 : (x->row > y->row);
}

/* The number after `key` in name ("bs=32" -> 32), or -1. */
static int64_t number_after(const char *name, const char *key, int at_start)
{
	const char *p = at_start ? (strncmp(name, key, strlen(key)) ? NULL : name) : strstr(name, key);
	if (!p)
		return -1;
	p += strlen(key);
	if (*p < '0' || *p > '9')
		return -1;
	return strtoll(p, NULL, 10);
}

/* The value of "kernel" in an args JSON text (ROCm's launch calls name the
 * kernel they launch), interned in S; TIX_NONE when absent. */
static uint32_t kernel_arg(struct intern *S, const char *args, int *oom)
{
	const char *k = args ? strstr(args, "\"kernel\"") : NULL;
	if (!k)
		return TIX_NONE;
	k += 8;
	while (*k == ' ' || *k == ':' || *k == '\n' || *k == '\t' || *k == '\r')
		k++;
	if (*k != '"')
		return TIX_NONE;
	k++;
	size_t cap = 256, n = 0;
	char *buf = malloc(cap);
	if (!buf) {
		*oom = 1;
		return TIX_NONE;
	}
	for (; *k && *k != '"'; k++) {
		if (*k == '\\' && k[1])
			k++; /* \" and \\ : kernel names carry no other escapes */
		if (tix_grow(&buf, &cap, n + 2, 1, 256) != 0) {
			free(buf);
			*oom = 1;
			return TIX_NONE;
		}
		buf[n++] = *k;
	}
	uint32_t id = intern_add(S, buf, n);
	free(buf);
	if (id == TIX_NONE)
		*oom = 1;
	return id;
}

/* The capture-time chain of a launch: its ancestors that are ops or
 * annotations, outermost first, stored once in the capture store. */
static uint32_t chain_of_launch(struct tix_builder *b, const struct tix_index *cix, uint32_t row,
                                const char *source)
{
	uint32_t anc[512];
	uint32_t n = tix_event_ancestors(cix, row, anc, 512);
	n = n < 512 ? n : 512;
	struct tix_frame_in frames[512];
	uint32_t nf = 0;
	for (uint32_t i = n; i-- > 0;) {
		struct tix_event p;
		tix_event_get(cix, anc[i], &p);
		if (!tix_kind_is_op(p.kind))
			continue;
		struct tix_frame_in *f = &frames[nf++];
		memset(f, 0, sizeof(*f));
		f->name = (struct tix_str){tix_str(cix, p.name), tix_str_len(cix, p.name)};
		f->kind = p.kind;
		const struct tix_op_info *oi = tix_op_info_get(cix, p.op_info);
		if (oi && oi->dims != TIX_NONE)
			f->dims = (struct tix_str){tix_str(cix, oi->dims), tix_str_len(cix, oi->dims)};
		if (oi && oi->types != TIX_NONE)
			f->types = (struct tix_str){tix_str(cix, oi->types), tix_str_len(cix, oi->types)};
	}
	struct tix_capture_in in = {frames, nf, TIX_MATCH_NONE, {source, strlen(source)}};
	return capture_store_add(&b->c.captures, &b->c.strings, &in);
}

static int window_push(struct window_build *w, uint32_t name, uint32_t chain)
{
	if (w->n == w->cap) {
		uint32_t cap = (uint32_t)tix_grow_cap(w->cap, (size_t)w->n + 1, 256, UINT32_MAX); /* both */
		if (!cap)
			return -1;
		uint32_t *a = realloc(w->names, cap * sizeof(*a));
		if (!a)
			return -1;
		w->names = a;
		uint32_t *c = realloc(w->chains, cap * sizeof(*c));
		if (!c)
			return -1;
		w->chains = c;
		w->cap = cap;
	}
	w->names[w->n] = name;
	w->chains[w->n++] = chain;
	return 0;
}

/* Every capture window of one capture trace, appended to *ws. */
static int collect_windows(struct tix_builder *b, const struct tix_index *cix, const char *source,
                           struct window_build **ws, uint32_t *nw, uint32_t *wcap)
{
	struct intern *S = &b->c.strings;
	for (uint32_t t = 0; t < tix_track_count(cix); t++) {
		const struct tix_track *tr = tix_track_get(cix, t);
		uint32_t end = tr->first_row + tr->row_count;
		for (uint32_t i = tr->first_row; i < end; i++) {
			struct tix_event e;
			tix_event_get(cix, i, &e);
			if (!tix_kind_is_launch(e.kind) || !strstr(tix_str(cix, e.name), "StreamBeginCapture"))
				continue;
			uint32_t close = TIX_NONE;
			for (uint32_t j = i + 1; j < end && close == TIX_NONE; j++) {
				struct tix_event x;
				tix_event_get(cix, j, &x);
				if (tix_kind_is_launch(x.kind) && strstr(tix_str(cix, x.name), "StreamEndCapture"))
					close = j;
			}
			if (close == TIX_NONE)
				continue; /* a capture the trace does not see end */
			struct tix_event ce;
			tix_event_get(cix, close, &ce);
			if (tix_grow32(ws, wcap, (size_t)*nw + 1, sizeof(**ws), 16) != 0)
				return -1;
			struct window_build *w = &(*ws)[(*nw)++];
			memset(w, 0, sizeof(*w));
			w->batch = -1;
			/* The batch size it was captured for: SGLang and vLLM wrap
			 * each capture in capture_N_... */
			uint32_t anc[256];
			uint32_t na = tix_event_ancestors(cix, i, anc, 256);
			for (uint32_t k = 0; k < na && k < 256 && w->batch < 0; k++) {
				struct tix_event p;
				tix_event_get(cix, anc[k], &p);
				if (p.kind == TIX_KIND_USER_ANNOTATION)
					w->batch = number_after(tix_str(cix, p.name), "capture_", 1);
			}
			for (uint32_t j = i + 1; j < close; j++) {
				struct tix_event l;
				tix_event_get(cix, j, &l);
				if (!tix_kind_is_launch(l.kind) || l.start_ns > ce.start_ns ||
				    !strstr(tix_str(cix, l.name), "LaunchKernel"))
					continue;
				int oom = 0;
				uint32_t name = kernel_arg(S, l.args != TIX_NONE ? tix_str(cix, l.args) : NULL, &oom);
				uint32_t chain = oom ? TIX_NONE : chain_of_launch(b, cix, j, source);
				if (oom || chain == TIX_NONE || window_push(w, name, chain) != 0)
					return -1;
			}
			i = close;
		}
	}
	return 0;
}

int linker_graph(struct linker *L, struct tix_error *err)
{
	struct tix_builder *b = L->b;
	const struct tix_detail_disk *det = (const struct tix_detail_disk *)b->c.details.recs;
	uint32_t replayed = 0;
	for (uint32_t sp = 0, i = linker_gpu_row(L, &sp, 0); i != TIX_NONE; i = linker_gpu_row(L, &sp, i + 1)) {
		const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
		replayed += tix_kind_is_gpu_work(r->kind) && (r->flags & TIX_ROW_GRAPH_REPLAY);
	}
	L->replayed = replayed;
	int rc = -1;
	struct window_build *ws = NULL;
	uint32_t nw = 0, wcap = 0;
	struct replay_item *items = NULL;
	struct gm_window *gw = NULL;
	uint32_t *names = NULL, *pos = NULL;
	uint8_t *match = NULL;
	struct gm_scratch sc;
	gm_scratch_init(&sc, 0);

	if (b->opts.ncaptures && replayed) {
		for (uint32_t c = 0; c < b->opts.ncaptures; c++)
			if (collect_windows(b, b->opts.captures[c], b->opts.capture_names[c], &ws, &nw, &wcap) != 0)
				goto oom;
		gw = calloc(nw + 1, sizeof(*gw));
		items = malloc((size_t)replayed * sizeof(*items));
		names = malloc((size_t)replayed * sizeof(*names));
		pos = malloc((size_t)replayed * sizeof(*pos));
		match = malloc((size_t)replayed);
		if (!gw || !items || !names || !pos || !match)
			goto oom;
		for (uint32_t w = 0; w < nw; w++)
			gw[w] = (struct gm_window){ws[w].names, ws[w].n, ws[w].batch};
		uint32_t ni = 0;
		for (uint32_t sp = 0, i = linker_gpu_row(L, &sp, 0); i != TIX_NONE; i = linker_gpu_row(L, &sp, i + 1)) {
			const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
			if (tix_kind_is_gpu_work(r->kind) && (r->flags & TIX_ROW_GRAPH_REPLAY) &&
			    r->link != TIX_NONE)
				items[ni++] = (struct replay_item){r->link, i, r->start_ns};
		}
		qsort(items, ni, sizeof(*items), cmp_replay_item);
		struct tix_rows v;
		linker_rows_view(L, &v);
		for (uint32_t i = 0; i < ni;) {
			uint32_t j = i;
			while (j < ni && items[j].launch == items[i].launch)
				j++;
			for (uint32_t k = i; k < j; k++)
				names[k - i] = SPILL_AT(&L->rows, struct tix_row_disk, items[k].row).name;
			int64_t batch = -1;
			uint32_t s = tix_rule_step_of(&v, items[i].launch);
			if (s != TIX_NONE && L->steps[s].marker_row != TIX_NONE) {
				const char *sn = intern_str(&b->c.strings, L->steps[s].name);
				batch = number_after(sn, "bs=", 0);
				if (batch < 0)
					batch = number_after(sn, "execute_", 1);
			}
			struct gm_replay rp = {names, j - i, batch};
			uint32_t win;
			if (gm_match(gw, nw, &rp, &win, pos, match, &sc, err) != 0)
				goto out;
			for (uint32_t k = i; k < j; k++) {
				struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, items[k].row);
				struct tix_detail_disk d;
				if (r->detail != TIX_NONE) {
					d = det[r->detail];
				} else {
					memset(&d, 0, sizeof(d));
					d.cat = d.args = d.kernel_info = d.op_info = TIX_NONE;
				}
				uint32_t p = pos[k - i];
				d.capture = win != TIX_NONE && p != TIX_NONE ? ws[win].chains[p] : TIX_NONE;
				d.capture_match = d.capture != TIX_NONE || match[k - i] == TIX_MATCH_AMBIGUOUS
				                          ? match[k - i] : TIX_MATCH_NONE;
				uint32_t nd = dedup_add(&b->c.details, &d);
				if (nd == TIX_NONE)
					goto oom;
				det = (const struct tix_detail_disk *)b->c.details.recs; /* it may grow */
				r->detail = nd;
			}
			i = j;
		}
	}
	/* How every replayed kernel came to be attributed, or not. */
	memset(L->replayed_by_match, 0, sizeof(L->replayed_by_match));
	for (uint32_t sp = 0, i = linker_gpu_row(L, &sp, 0); i != TIX_NONE; i = linker_gpu_row(L, &sp, i + 1)) {
		const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
		if (!tix_kind_is_gpu_work(r->kind) || !(r->flags & TIX_ROW_GRAPH_REPLAY))
			continue;
		uint8_t m = r->detail != TIX_NONE ? det[r->detail].capture_match : TIX_MATCH_NONE;
		L->replayed_by_match[m < TIX_MATCH_COUNT ? m : TIX_MATCH_NONE]++;
	}
	if (b->opts.capture_sources && !(L->capture_sources = strdup(b->opts.capture_sources)))
		goto oom;
	uint32_t unattributed = L->replayed_by_match[TIX_MATCH_NONE] + L->replayed_by_match[TIX_MATCH_AMBIGUOUS];
	if (replayed && unattributed) {
		char msg[400];
		if (b->opts.ncaptures || L->replayed_by_match[TIX_MATCH_NONE] < replayed)
			snprintf(msg, sizeof(msg),
			         "%u of %u kernels replayed from CUDA graphs are not attributed to a "
			         "captured launch%s", unattributed, replayed,
			         L->replayed_by_match[TIX_MATCH_AMBIGUOUS] ? " (some ambiguous)" : "");
		else
			snprintf(msg, sizeof(msg),
			         "%u kernels were replayed from CUDA graphs: give the profile of the graph "
			         "capture with --graph-capture to see the ops and shapes behind them", replayed);
		if (linker_warn(L, msg, err) != 0)
			goto out;
	}
	rc = 0;
	goto out;
oom:
	rc = tix_error_oom(err, b->out_path);
out:
	for (uint32_t w = 0; w < nw; w++) {
		free(ws[w].names);
		free(ws[w].chains);
	}
	free(ws);
	free(gw);
	free(items);
	free(names);
	free(pos);
	free(match);
	gm_scratch_done(&sc);
	return rc;
}
