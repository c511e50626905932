/* Ordering the collected events: tracks sorted (CPU threads, GPU streams,
 * the rest), rows scattered by track straight into the output file's ROWS
 * section, each track sorted by time. */
#include "index/index.h"
#include "index/grow.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "index/build/phases.h"

/* ---- ordering ---- */

static int track_class(const struct tix_builder *b, const struct btrack *t)
{
	if (t->gpu_count * 2 > t->count)
		return TIX_TRACK_GPU;
	if (t->key.pid_str != TIX_NONE)
		return TIX_TRACK_OTHER;
	return TIX_TRACK_CPU;
}

static int cmp_track(const void *a, const void *b, void *ctx)
{
	const struct tix_builder *sb = ctx;
	const struct btrack *x = &sb->c.tracks[*(const uint32_t *)a];
	const struct btrack *y = &sb->c.tracks[*(const uint32_t *)b];
	int cx = track_class(sb, x), cy = track_class(sb, y);
	if (cx != cy)
		return cx - cy;
	if (x->key.pid != y->key.pid)
		return x->key.pid < y->key.pid ? -1 : 1;
	if (x->key.pid_str != y->key.pid_str)
		return x->key.pid_str < y->key.pid_str ? -1 : 1;
	if (x->key.tid != y->key.tid)
		return x->key.tid < y->key.tid ? -1 : 1;
	return x->key.tid_str < y->key.tid_str ? -1 : (x->key.tid_str > y->key.tid_str);
}

static int same_pid(const struct btrack_key *a, const struct btrack_key *b)
{
	return a->pid == b->pid && a->pid_str == b->pid_str;
}

/* Final tracks: CPU threads, then GPU streams, then the rest, each by pid
 * and tid.  Fills L->tracks and returns old id -> new id. */
static uint32_t *order_tracks(struct linker *L, struct tix_error *err)
{
	struct tix_builder *b = L->b;
	uint32_t n = b->c.ntracks;
	uint32_t *order = malloc((n + 1) * sizeof(*order));
	uint32_t *remap = malloc((n + 1) * sizeof(*remap));
	L->tracks = calloc(n + 1, sizeof(*L->tracks));
	L->gpu_spans = malloc((n + 1) * sizeof(*L->gpu_spans));
	if (!order || !remap || !L->tracks || !L->gpu_spans) {
		free(order);
		free(remap);
		tix_error_oom(err, NULL);
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), cmp_track, b);
	uint32_t first = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct btrack *bt = &b->c.tracks[order[i]];
		struct tix_track *t = &L->tracks[i];
		remap[order[i]] = i;
		t->pid = bt->key.pid;
		t->tid = bt->key.tid;
		t->pid_str = bt->key.pid_str;
		t->tid_str = bt->key.tid_str;
		t->kind = (uint8_t)track_class(b, bt);
		t->device = t->kind == TIX_TRACK_GPU ? (bt->device >= 0 ? bt->device : (int32_t)bt->key.pid) : -1;
		t->stream = t->kind == TIX_TRACK_GPU ? (bt->stream >= 0 ? bt->stream : (int32_t)bt->key.tid) : -1;
		t->first_row = first;
		t->row_count = bt->count;
		if (bt->gpu_count && bt->count) { /* GPU streams are next to each other: mostly one span */
			struct linker_span *last = L->ngpu_spans ? &L->gpu_spans[L->ngpu_spans - 1] : NULL;
			if (last && last->first + last->count == first)
				last->count += bt->count;
			else
				L->gpu_spans[L->ngpu_spans++] = (struct linker_span){first, bt->count};
		}
		t->name = t->process_name = TIX_NONE;
		first += bt->count;
		/* Metadata events name threads and processes. */
		for (size_t m = 0; m < b->c.nmetas; m++) {
			const struct bmeta *mt = &b->c.metas[m];
			if (!same_pid(&mt->key, &bt->key))
				continue;
			const char *v = intern_str(&b->c.strings, mt->value);
			switch (mt->kind) {
			case TIX_META_PROCESS_NAME:
				t->process_name = mt->value;
				break;
			case TIX_META_PROCESS_SORT:
				if (t->sort_index == 0)
					t->sort_index = (int32_t)strtol(v, NULL, 10);
				break;
			case TIX_META_THREAD_NAME:
				if (mt->key.tid == bt->key.tid && mt->key.tid_str == bt->key.tid_str)
					t->name = mt->value;
				break;
			case TIX_META_THREAD_SORT:
				if (mt->key.tid == bt->key.tid && mt->key.tid_str == bt->key.tid_str)
					t->sort_index = (int32_t)strtol(v, NULL, 10);
				break;
			}
		}
		if (t->name == TIX_NONE) {
			char buf[64];
			if (t->kind == TIX_TRACK_GPU)
				snprintf(buf, sizeof(buf), "stream %d", (int)t->stream);
			else if (t->tid_str != TIX_NONE)
				snprintf(buf, sizeof(buf), "%.60s", intern_str(&b->c.strings, t->tid_str));
			else
				snprintf(buf, sizeof(buf), "thread %lld", (long long)t->tid);
			t->name = intern_add(&b->c.strings, buf, strlen(buf));
		}
	}
	free(order);
	L->ntracks = n;
	return remap;
}

/* Where ROWS goes in the output file: placed there directly (the file's
 * own pages), so the largest section is never built and copied. */

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

/* ---- ROWS made ready while the first producer parses ----
 * A fresh page of ROWS costs the kernel's work to give it (and, through a
 * mapping, to zero it first: a profile at 4 GB had 79% of the scatter in
 * the page-fault path, 63% in its memset, before the largest tracks were
 * written with pwrite, below), and placing comes after the parse, on the
 * build's path.  The second producer's thread, when done with its half
 * before the first (the cut moves toward balance, so at scale it seldom
 * is: "warmed 0.00 of N MB"), faults those pages in meanwhile: both
 * collectors' row counts so far are a lower bound of the index's rows, so
 * every page it touches is one of ROWS's, or one that write() overwrites
 * or the final ftruncate cuts; the content of the index does not change.
 * It works in steps of WARM_STEP and stops at the first thread's *stop
 * (the first thread joins it next); place adopts the mapping, grown if it
 * must be. */
#define WARM_STEP (2u << 20)

static int warm_grow(struct tix_builder *b, size_t need)
{
	size_t len = 2 * need;
	void *p = b->warm.base ? mremap(b->warm.base, b->warm.len, len, MREMAP_MAYMOVE)
	                       : mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, b->out_fd, ROWS_OFFSET);
	if (p == MAP_FAILED)
		return -1;
	b->warm.base = p;
	b->warm.len = len;
	return 0;
}

static void fault_in(unsigned char *p, size_t len, size_t page)
{
	if (madvise(p, len, MADV_POPULATE_WRITE) != 0) /* before 5.14: a write a page */
		for (size_t off = 0; off < len; off += page)
			((volatile unsigned char *)p)[off] = 0;
}

void builder_warm_rows(struct tix_builder *b, const int *stop)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	const size_t row = sizeof(struct tix_row_disk);
	size_t theirs = b->extra->rows.n; /* this thread's own collector: final */
	struct tix_error ignored;
	struct spill *corr = &b->warm.corr;
	if (spill_init(corr, b->dir, b->out_path, sizeof(int64_t), &b->budget, &ignored) != 0)
		return;
	b->warm.has_corr = 1;
	while (!__atomic_load_n(stop, __ATOMIC_ACQUIRE)) {
		size_t rows = atomic_load_explicit(&b->c.rows_seen, memory_order_relaxed) + theirs;
		size_t want = rows * row / page * page;
		if (want > b->warm.bytes + WARM_STEP)
			want = b->warm.bytes + WARM_STEP;
		if (want <= b->warm.bytes) { /* the first thread has not added a page of rows yet */
			nanosleep(&(struct timespec){0, 200000}, NULL);
			continue;
		}
		if ((want > b->warm.len && warm_grow(b, want) != 0) ||
		    file_reserve(&b->budget, b->out_fd, 0, ROWS_OFFSET + want, &ignored, "warm") != 0)
			return; /* place maps and reserves as it would have, and says why it cannot */
		fault_in(b->warm.base + b->warm.bytes, want - b->warm.bytes, page);
		b->warm.bytes = want;
		/* the correlation ids of the same rows (a quarter of the bytes) */
		size_t had = corr->n, ids = want / row;
		if (spill_resize(corr, ids, &ignored) != 0)
			return;
		size_t from = had * sizeof(int64_t) / page * page;
		fault_in(corr->base + from, ids * sizeof(int64_t) - from, page);
	}
}

void builder_warm_done(struct tix_builder *b)
{
	if (b->warm.base)
		munmap(b->warm.base, b->warm.len);
	b->warm.base = NULL;
	if (b->warm.has_corr)
		spill_done(&b->warm.corr);
	b->warm.has_corr = 0;
}

/* The output's ROWS mapped for bytes: the warmed mapping, cut or grown to
 * fit, else a new one. */
static void *map_rows_bytes(struct tix_builder *b, size_t bytes)
{
	if (!b->warm.base)
		return mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, b->out_fd, ROWS_OFFSET);
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t keep = (bytes + page - 1) / page * page;
	void *p = b->warm.base;
	if (b->warm.len > keep)
		munmap(b->warm.base + keep, b->warm.len - keep);
	else if (b->warm.len < keep)
		p = mremap(b->warm.base, b->warm.len, keep, MREMAP_MAYMOVE);
	if (p == MAP_FAILED) /* the warmed mapping stays whole: builder_warm_done unmaps it */
		return p;
	b->warm.base = NULL;
	return p;
}

static int map_out_rows(struct linker *L, uint32_t n, struct tix_error *err)
{
	struct tix_builder *b = L->b;
	if (n == 0)
		return linker_spill(L, &L->rows, sizeof(struct tix_row_disk), 0, err);
	size_t bytes = (size_t)n * sizeof(struct tix_row_disk);
	if (file_reserve(&b->budget, b->out_fd, 0, ROWS_OFFSET + bytes, err, "%s: cannot grow the index to %zu MB",
	                 b->out_path, bytes >> 20) != 0)
		return -1;
	if (b->opts.timing)
		fprintf(stderr, "tix: timing: ROWS warmed beside the parse: %.2f of %.2f MB\n", b->warm.bytes / 1048576.0,
		        bytes / 1048576.0);
	void *p = map_rows_bytes(b, bytes);
	if (p == MAP_FAILED)
		return tix_error_sys(err, errno, "%s: cannot map the index", b->out_path);
	memset(&L->rows, 0, sizeof(L->rows));
	L->rows.fd = -1; /* the mapping is not a spill file of ours */
	L->rows.base = p;
	L->rows.elem = sizeof(struct tix_row_disk);
	L->rows.n = L->rows.cap = n;
	L->out_rows_mapped = 1;
	return 0;
}

struct mover {
	struct tix_row_disk *rows;
	int64_t *corr;
};

/* A track's rows in time order: by start, parents before children. */
static int starts_before(int64_t x_start, uint32_t x_dur, int64_t y_start, uint32_t y_dur)
{
	if (x_start != y_start)
		return x_start < y_start;
	return x_dur > y_dur;
}

static int row_before(const struct tix_row_disk *x, const struct tix_row_disk *y)
{
	return starts_before(x->start_ns, x->dur_ns, y->start_ns, y->dur_ns);
}

struct displaced {
	struct tix_row_disk row;
	int64_t corr;
	uint32_t from;
	uint32_t pad;
};

static int cmp_displaced(const void *a, const void *b)
{
	const struct displaced *x = a, *y = b;
	if (row_before(&x->row, &y->row))
		return -1;
	if (row_before(&y->row, &x->row))
		return 1;
	return x->from < y->from ? -1 : (x->from > y->from);
}

/* Sorts rows [f, f+n) by time, rows [f, f+i) being in order already and
 * row f+i not after them (i >= n: all in order).  Traces come nearly sorted
 * (a few events written late), so the rows that break the order are lifted
 * out into tmp (a spill: they may be most of the rows), sorted, and merged
 * back in place: O(n + d log d) for d of them. */
static int sort_track(struct linker *L, struct mover *m, uint32_t f, uint32_t n, uint32_t i, struct spill *tmp,
                      struct tix_error *err)
{
	if (n < 2 || i >= n)
		return 0;
	struct tix_row_disk *rows = m->rows + f;
	int64_t *corr = m->corr + f;
	if (tmp->fd < 0 && linker_spill(L, tmp, sizeof(struct displaced), n - i, err) != 0) /* at most */
		return -1;
	tmp->n = 0;
	/* Compact the rows that keep the order; lift out the others. */
	size_t d = 0;
	uint32_t w = i;
	for (; i < n; i++) {
		if (row_before(&rows[i], &rows[w - 1])) {
			struct displaced *t = spill_push(tmp, 1, err);
			if (!t)
				return -1;
			*t = (struct displaced){rows[i], corr[i], f + i, 0};
			d++;
		} else {
			rows[w] = rows[i];
			corr[w] = corr[i];
			w++;
		}
	}
	struct displaced *dp = (struct displaced *)tmp->base;
	if (linker_sort(L, dp, d, sizeof(*dp), cmp_displaced, err) != 0)
		return -1;
	/* Merge from the back into the room the lifted rows left. */
	int64_t a = (int64_t)w - 1, k = (int64_t)n - 1, j = (int64_t)d - 1;
	while (j >= 0) {
		if (a >= 0 && row_before(&dp[j].row, &rows[a])) {
			rows[k] = rows[a];
			corr[k] = corr[a];
			a--;
		} else {
			rows[k] = dp[j].row;
			corr[k] = dp[j].corr;
			j--;
		}
		k--;
	}
	return 0;
}

/* Scatters the collected rows into track order (straight into the output
 * file), then sorts each track by time. */
/* The rows of a collector's largest tracks go out through a buffer per
 * track, written with pwrite() when full: a page of ROWS (or of the
 * correlation ids) written whole that way is never zeroed first, as a
 * mapped page of a new block is by the kernel before the first store;
 * that zeroing was most of placing (at 8 GB, 7.9% of all of a build's
 * samples; docs/PERFORMANCE.md, "Round 8").  A track's rows are
 * consecutive, so each buffer fills a run of whole pages but for its two
 * ends.  The other tracks' rows, and every row when the buffers cannot be
 * had, are stored through the mappings as before: the index is the same. */
#define STAGE_BYTES (2u << 20)  /* of rows and ids, per collector */
#define STAGE_MIN_ROWS 256u     /* a track gets a buffer of at least this many rows ... */
#define STAGE_MAX_ROWS 2048u    /* ... and at most this many */
#define STAGE_ROW (sizeof(struct tix_row_disk) + sizeof(int64_t))

struct stage_track {
	uint32_t first; /* the final row its buffer starts at */
	uint32_t n;     /* rows in the buffer */
};

/* One collector's rows scattered into their places.  The two collectors
 * of a two-thread parse are scattered at once, one thread each: within a
 * track, the first collector's rows come first, then the second's. */
struct scatter {
	const struct collector *src;
	const uint32_t *sm, *dm, *tm; /* the second collector's number maps, or NULL */
	const uint32_t *remap;
	uint32_t *cursor;             /* next row of each final track */
	struct tix_row_disk *rows;
	int64_t *corr;
	uint32_t tag;                 /* 0 or 1<<31: whose long durations */
	int64_t *longs;               /* long durations, in the order met */
	uint32_t nlong, long_cap;
	int64_t first_ns, last_ns;
	int failed;                   /* 1: out of memory; 2: a write failed, errno in write_errno */
	int write_errno;
	/* the buffers (stage_plan): slot_of a final track, or TIX_NONE */
	uint32_t *slot_of;
	struct stage_track *slots;
	struct tix_row_disk *stage_rows; /* slot k's at k * stage_rows_per */
	int64_t *stage_corr;
	uint32_t nslots, stage_rows_per;
	int rows_fd, corr_fd;
	uint64_t rows_off;            /* of final row 0 in rows_fd */
	/* each final track's order, as its rows go out (sort_track then
	 * starts at the first row out of order, not with a scan of them all) */
	struct track_order *order;
	uint32_t ntracks;
};

struct track_order {
	uint32_t from;             /* the job's first row of the track; TIX_NONE: none */
	uint32_t first_bad;        /* its first row before the one ahead of it; TIX_NONE: none */
	uint32_t head_dur, tail_dur; /* its first and last rows' start and duration */
	int64_t head_start, tail_start;
};

/* The pages of p[0, len) mapped writable, the ones at its ends whole.
 * Unlike fault_in, no fallback writes a byte a page where the call fails
 * (before Linux 5.14): these pages hold rows, and the phases' own stores
 * fault them in as before. */
static void populate(void *p, size_t len)
{
	const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)p & ~(page - 1), hi = ((uintptr_t)p + len + page - 1) & ~(page - 1);
	madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
}

static int cmp_count_desc(const void *a, const void *b, void *ctx)
{
	const uint32_t *count = ctx, x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return count[x] != count[y] ? (count[x] < count[y] ? 1 : -1) : (x > y) - (x < y);
}

static void stage_done(struct scatter *j)
{
	free(j->slot_of);
	free(j->slots);
	free(j->stage_rows);
	free(j->stage_corr);
	j->slot_of = NULL;
	j->slots = NULL;
	j->stage_rows = NULL;
	j->stage_corr = NULL;
	j->nslots = 0;
}

/* Gives buffers to j's tracks of at least 2 * STAGE_MIN_ROWS rows, the
 * largest first, within STAGE_BYTES.  Without memory for them it plans
 * none, and every row goes through the mappings. */
static void stage_plan(struct scatter *j, uint32_t ntracks)
{
	uint32_t *count = calloc(ntracks + 1, sizeof(*count)), *order = malloc((ntracks + 1) * sizeof(*order));
	uint32_t n = 0;
	if (!count || !order)
		goto out;
	for (uint32_t i = 0; i < j->src->ntracks; i++)
		count[j->remap[j->tm ? j->tm[i] : i]] += j->src->tracks[i].count;
	for (uint32_t t = 0; t < ntracks; t++)
		if (count[t] >= 2 * STAGE_MIN_ROWS)
			order[n++] = t;
	if (n == 0)
		goto out;
	uint32_t most = STAGE_BYTES / (STAGE_MIN_ROWS * STAGE_ROW);
	if (n > most) {
		qsort_r(order, n, sizeof(*order), cmp_count_desc, count);
		n = most;
	}
	uint32_t per = STAGE_BYTES / (n * STAGE_ROW);
	j->stage_rows_per = per < STAGE_MAX_ROWS ? per : STAGE_MAX_ROWS;
	j->slot_of = malloc((ntracks + 1) * sizeof(*j->slot_of));
	j->slots = calloc(n, sizeof(*j->slots));
	j->stage_rows = malloc((size_t)n * j->stage_rows_per * sizeof(*j->stage_rows));
	j->stage_corr = malloc((size_t)n * j->stage_rows_per * sizeof(*j->stage_corr));
	if (!j->slot_of || !j->slots || !j->stage_rows || !j->stage_corr)
		goto out;
	memset(j->slot_of, 0xff, (ntracks + 1) * sizeof(*j->slot_of));
	for (uint32_t k = 0; k < n; k++)
		j->slot_of[order[k]] = k;
	j->nslots = n;
out:
	if (!j->nslots)
		stage_done(j);
	free(count);
	free(order);
}

/* Writes slot k's rows and ids to their places; 0 or an errno. */
static int track_flush(struct scatter *j, uint32_t k)
{
	struct stage_track *st = &j->slots[k];
	size_t at = (size_t)k * j->stage_rows_per;
	int e = 0;
	if (st->n) {
		e = file_pwrite(j->rows_fd, j->stage_rows + at, st->n * sizeof(*j->stage_rows),
		               j->rows_off + (uint64_t)st->first * sizeof(*j->stage_rows));
		if (!e)
			e = file_pwrite(j->corr_fd, j->stage_corr + at, st->n * sizeof(*j->stage_corr),
			               (uint64_t)st->first * sizeof(*j->stage_corr));
	}
	st->n = 0;
	return e;
}

/* The pages of this job's rows and ids, written with pwrite, mapped for
 * the phases after in a call per track (madvise): on the job's own thread,
 * so that each core maps its share.  A page shared with the other job's
 * rows may be mapped before that job writes it: it is the same page. */
static void populate_own(struct scatter *j)
{
	for (uint32_t t = 0; t < j->ntracks; t++) {
		const struct track_order *o = &j->order[t];
		if (o->from == TIX_NONE)
			continue;
		uint32_t end = j->cursor[t];
		populate(j->rows + o->from, (size_t)(end - o->from) * sizeof(*j->rows));
		populate(j->corr + o->from, (size_t)(end - o->from) * sizeof(*j->corr));
	}
}

static void *scatter_rows(void *arg)
{
	struct scatter *j = arg;
	size_t cnt = j->src->rows.n;
	for (size_t i = 0; i < cnt; i++) {
		const struct brow *s = &SPILL_AT(&j->src->rows, struct brow, i);
		uint32_t track = j->remap[j->tm ? j->tm[s->track] : s->track];
		uint32_t pos = j->cursor[track]++;
		struct tix_row_disk *r = &j->rows[pos];
		int64_t *corr = &j->corr[pos];
		uint32_t k = j->slot_of ? j->slot_of[track] : TIX_NONE;
		if (k != TIX_NONE) {
			struct stage_track *st = &j->slots[k];
			if (st->n == j->stage_rows_per && (j->write_errno = track_flush(j, k)) != 0) {
				j->failed = 2;
				return NULL;
			}
			if (st->n == 0)
				st->first = pos;
			size_t at = (size_t)k * j->stage_rows_per + st->n++;
			r = &j->stage_rows[at];
			corr = &j->stage_corr[at];
		}
		r->start_ns = s->start_ns;
		r->name = j->sm ? j->sm[s->name] : s->name;
		r->track = track;
		r->detail = j->dm && s->detail != TIX_NONE ? j->dm[s->detail] : s->detail;
		r->link = TIX_NONE;
		r->kind = s->kind;
		r->flags = s->flags;
		r->gpu_beneath = 0;
		if (s->dur_ns >= UINT32_MAX) {
			if (tix_grow32(&j->longs, &j->long_cap, (size_t)j->nlong + 1, sizeof(*j->longs), 64) != 0) {
				j->failed = 1;
				return NULL;
			}
			/* The link field is free until linking: it carries the
			 * duration's index (and whose) while rows move. */
			r->link = j->tag | j->nlong;
			j->longs[j->nlong++] = s->dur_ns;
			r->dur_ns = UINT32_MAX;
			r->flags |= TIX_ROW_LONG_DUR;
		} else {
			r->dur_ns = (uint32_t)s->dur_ns;
		}
		/* only launch calls and GPU rows are linked by it (linker.h) */
		*corr = tix_kind_is_launch(s->kind) || tix_kind_is_gpu(s->kind) ? s->corr : -1;
		struct track_order *o = &j->order[track];
		if (o->from == TIX_NONE) {
			o->from = pos;
			o->head_start = r->start_ns;
			o->head_dur = r->dur_ns;
		} else if (o->first_bad == TIX_NONE && starts_before(r->start_ns, r->dur_ns, o->tail_start, o->tail_dur)) {
			o->first_bad = pos;
		}
		o->tail_start = r->start_ns;
		o->tail_dur = r->dur_ns;
		if (s->start_ns < j->first_ns)
			j->first_ns = s->start_ns;
		if (s->start_ns + s->dur_ns > j->last_ns)
			j->last_ns = s->start_ns + s->dur_ns;
	}
	for (uint32_t k = 0; k < j->nslots; k++)
		if ((j->write_errno = track_flush(j, k)) != 0) {
			j->failed = 2;
			return NULL;
		}
	if (j->nslots)
		populate_own(j);
	return NULL;
}

static int place_rows(struct linker *L, const uint32_t *remap, struct tix_error *err)
{
	struct tix_builder *b = L->b;
	uint32_t n = L->nrows;
	struct spill tmp;
	memset(&tmp, 0, sizeof(tmp));
	tmp.fd = -1;
	int rc = -1;
	struct scatter job[2];
	memset(job, 0, sizeof(job));
	uint32_t *cursor = malloc(2 * (L->ntracks + 1) * sizeof(*cursor));
	struct track_order *order = malloc(2 * (L->ntracks + 1) * sizeof(*order));
	if (!cursor || !order) {
		free(cursor);
		free(order);
		return tix_error_oom(err, NULL);
	}
	for (uint32_t t = 0; t < 2 * (L->ntracks + 1); t++)
		order[t] = (struct track_order){.from = TIX_NONE, .first_bad = TIX_NONE};
	if (map_out_rows(L, n, err))
		goto out;
	if (b->warm.has_corr) { /* made ready beside the parse */
		L->corr = b->warm.corr;
		b->warm.has_corr = 0;
	} else if (linker_spill(L, &L->corr, sizeof(int64_t), n, err)) {
		goto out;
	}
	if (spill_resize(&L->corr, n, err))
		goto out;
	struct tix_row_disk *rows = (struct tix_row_disk *)L->rows.base;
	int64_t *corr = (int64_t *)L->corr.base;
	uint32_t *cur1 = cursor + L->ntracks + 1;
	for (uint32_t t = 0; t < L->ntracks; t++)
		cursor[t] = cur1[t] = L->tracks[t].first_row;
	if (b->extra) { /* the second collector's rows follow the first's in each track */
		for (uint32_t t = 0; t < L->ntracks; t++)
			cur1[t] = L->tracks[t].first_row + L->tracks[t].row_count;
		for (uint32_t i = 0; i < b->extra->ntracks; i++)
			cur1[remap[b->xmap_track[i]]] -= b->extra->tracks[i].count;
	}
	for (int k = 0; k < 2; k++) {
		job[k].remap = remap;
		job[k].rows = rows;
		job[k].corr = corr;
		job[k].first_ns = INT64_MAX;
		job[k].last_ns = INT64_MIN;
		job[k].rows_fd = b->out_fd;
		job[k].rows_off = ROWS_OFFSET;
		job[k].corr_fd = L->corr.fd;
		job[k].order = order + k * (L->ntracks + 1);
		job[k].ntracks = L->ntracks;
	}
	job[0].src = &b->c;
	job[0].cursor = cursor;
	if (L->out_rows_mapped)
		stage_plan(&job[0], L->ntracks);
	pthread_t th;
	int threaded = 0;
	if (b->extra) {
		job[1].src = b->extra;
		job[1].sm = b->xmap_str;
		job[1].dm = b->xmap_detail;
		job[1].tm = b->xmap_track;
		job[1].cursor = cur1;
		job[1].tag = 1u << 31;
		if (L->out_rows_mapped)
			stage_plan(&job[1], L->ntracks);
		threaded = pthread_create(&th, NULL, scatter_rows, &job[1]) == 0;
		if (!threaded)
			scatter_rows(&job[1]);
	}
	scatter_rows(&job[0]);
	if (threaded)
		pthread_join(th, NULL);
	for (int k = 0; k < 2; k++)
		if (job[k].failed == 2) {
			rc = tix_error_sys(err, job[k].write_errno, "%s: cannot write the index", b->out_path);
			goto out;
		}
	if (job[0].failed || job[1].failed)
		goto oom;
	L->first_ns = n ? (job[0].first_ns < job[1].first_ns ? job[0].first_ns : job[1].first_ns) : 0;
	L->last_ns = n ? (job[0].last_ns > job[1].last_ns ? job[0].last_ns : job[1].last_ns) : 0;
	if (b->extra)
		linker_release(L, &b->extra->rows);
	linker_release(L, &b->c.rows); /* its pages serve the next arrays */

	struct mover m = {rows, corr};
	for (uint32_t t = 0; t < L->ntracks; t++) {
		const struct track_order *o0 = &job[0].order[t], *o1 = &job[1].order[t];
		uint32_t bad = o0->first_bad; /* the first row out of order: the first job's, */
		if (bad == TIX_NONE && o0->from != TIX_NONE && o1->from != TIX_NONE &&
		    starts_before(o1->head_start, o1->head_dur, o0->tail_start, o0->tail_dur))
			bad = o1->from; /* where the second's begin, */
		if (bad == TIX_NONE)
			bad = o1->first_bad; /* or the second's */
		uint32_t f = L->tracks[t].first_row, cnt = L->tracks[t].row_count;
		if (sort_track(L, &m, f, cnt, bad == TIX_NONE ? cnt : bad - f, &tmp, err) != 0)
			goto out;
	}
	uint32_t nlong = job[0].nlong + job[1].nlong;
	if (nlong) {
		L->long_durs = malloc(nlong * sizeof(*L->long_durs));
		if (!L->long_durs)
			goto oom;
		for (uint32_t i = 0; i < n; i++) {
			struct tix_row_disk *r = &rows[i];
			if (!(r->flags & TIX_ROW_LONG_DUR))
				continue;
			const struct scatter *j = &job[r->link >> 31];
			L->long_durs[L->nlong++] = (struct tix_long_dur_disk){i, 0, j->longs[r->link & 0x7fffffffu]};
			r->link = TIX_NONE;
		}
	}
	rc = 0;
	goto out;
oom:
	rc = tix_error_oom(err, NULL);
out:
	free(cursor);
	free(order);
	free(job[0].longs);
	free(job[1].longs);
	stage_done(&job[0]);
	stage_done(&job[1]);
	linker_release(L, &tmp);
	return rc;
}

int linker_place(struct linker *L, struct tix_error *err)
{
	L->track_remap = order_tracks(L, err);
	if (!L->track_remap)
		return -1;
	return place_rows(L, L->track_remap, err);
}
