/* Ordering the collected events: tracks sorted (CPU threads, GPU streams,
 * the rest), rows scattered by track straight into the output file's ROWS
 * section, each track sorted by time. */
#include "index/index.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "index/builder_int.h"

/* ---- ordering ---- */

static int track_class(const struct tix_builder *b, const struct btrack *t)
{
	if (t->gpu_count * 2 > t->count)
		return TIX_TRACK_GPU;
	if (t->key.pid_str != TIX_NONE)
		return TIX_TRACK_OTHER;
	return TIX_TRACK_CPU;
}

static const struct tix_builder *sort_builder; /* qsort has no context argument */

static int cmp_track(const void *a, const void *b)
{
	const struct btrack *x = &sort_builder->c.tracks[*(const uint32_t *)a];
	const struct btrack *y = &sort_builder->c.tracks[*(const uint32_t *)b];
	int cx = track_class(sort_builder, x), cy = track_class(sort_builder, y);
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
uint32_t *linker_order_tracks(struct linker *L, struct tix_error *err)
{
	struct tix_builder *b = L->b;
	uint32_t n = b->c.ntracks;
	uint32_t *order = malloc((n + 1) * sizeof(*order));
	uint32_t *remap = malloc((n + 1) * sizeof(*remap));
	L->tracks = calloc(n + 1, sizeof(*L->tracks));
	if (!order || !remap || !L->tracks) {
		free(order);
		free(remap);
		tix_error_set(err, "out of memory");
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	sort_builder = b;
	qsort(order, n, sizeof(*order), cmp_track);
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

static int map_out_rows(struct linker *L, uint32_t n, struct tix_error *err)
{
	struct tix_builder *b = L->b;
	if (n == 0)
		return linker_spill(L, &L->rows, sizeof(struct tix_row_disk), err);
	size_t bytes = (size_t)n * sizeof(struct tix_row_disk);
	if (file_reserve(b->out_fd, 0, ROWS_OFFSET + bytes) != 0)
		return tix_error_set(err, "%s: cannot grow the index to %zu MB: %s", b->out_path,
		                     bytes >> 20, strerror(errno));
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, b->out_fd, ROWS_OFFSET);
	if (p == MAP_FAILED)
		return tix_error_set(err, "%s: cannot map the index: %s", b->out_path, strerror(errno));
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

static int row_before(const struct tix_row_disk *x, const struct tix_row_disk *y)
{
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns;
	return x->dur_ns > y->dur_ns; /* parents before children */
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

/* Sorts rows [f, f+n) by time.  Traces come nearly sorted (a few events
 * written late), so the rows that break the order are lifted out, sorted,
 * and merged back in place: O(n + d log d) for d of them. */
static int sort_track(struct mover *m, uint32_t f, uint32_t n, struct displaced **tmp,
                      size_t *tmp_cap)
{
	if (n < 2)
		return 0;
	struct tix_row_disk *rows = m->rows + f;
	int64_t *corr = m->corr + f;
	uint32_t i = 1;
	while (i < n && !row_before(&rows[i], &rows[i - 1]))
		i++;
	if (i >= n)
		return 0;
	/* Compact the rows that keep the order; lift out the others. */
	size_t d = 0;
	uint32_t w = i;
	for (; i < n; i++) {
		if (row_before(&rows[i], &rows[w - 1])) {
			if (d == *tmp_cap) {
				size_t cap = *tmp_cap ? *tmp_cap * 2 : 1024;
				struct displaced *t = realloc(*tmp, cap * sizeof(*t));
				if (!t)
					return -1;
				*tmp = t;
				*tmp_cap = cap;
			}
			(*tmp)[d++] = (struct displaced){rows[i], corr[i], f + i, 0};
		} else {
			rows[w] = rows[i];
			corr[w] = corr[i];
			w++;
		}
	}
	struct displaced *dp = *tmp;
	qsort(dp, d, sizeof(*dp), cmp_displaced);
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
int linker_place_rows(struct linker *L, const uint32_t *remap, struct tix_error *err)
{
	struct tix_builder *b = L->b;
	uint32_t n = L->nrows;
	int64_t *longs = NULL; /* long durations, in the order met */
	uint32_t nlong = 0, long_cap = 0;
	struct displaced *tmp = NULL;
	size_t tmp_cap = 0;
	int rc = -1;
	uint32_t *cursor = malloc((L->ntracks + 1) * sizeof(*cursor));
	if (!cursor)
		return tix_error_set(err, "out of memory");
	if (map_out_rows(L, n, err) || linker_spill(L, &L->corr, sizeof(int64_t), err) ||
	    spill_resize(&L->corr, n, err))
		goto out;
	for (uint32_t t = 0; t < L->ntracks; t++)
		cursor[t] = L->tracks[t].first_row;
	L->first_ns = n ? INT64_MAX : 0;
	L->last_ns = n ? INT64_MIN : 0;
	struct tix_row_disk *rows = (struct tix_row_disk *)L->rows.base;
	int64_t *corr = (int64_t *)L->corr.base;
	/* The primary collector's rows, then the second thread's, renumbered. */
	struct collector *src[2] = {&b->c, b->extra};
	for (int k = 0; k < 2 && src[k]; k++) {
		const uint32_t *sm = k ? b->xmap_str : NULL, *dm = k ? b->xmap_detail : NULL;
		const uint32_t *tm = k ? b->xmap_track : NULL;
		size_t cnt = src[k]->rows.n;
		for (size_t i = 0; i < cnt; i++) {
			const struct brow *s = &SPILL_AT(&src[k]->rows, struct brow, i);
			uint32_t track = remap[tm ? tm[s->track] : s->track];
			uint32_t pos = cursor[track]++;
			struct tix_row_disk *r = &rows[pos];
			r->start_ns = s->start_ns;
			r->name = sm ? sm[s->name] : s->name;
			r->track = track;
			r->detail = dm && s->detail != TIX_NONE ? dm[s->detail] : s->detail;
			r->link = TIX_NONE;
			r->kind = s->kind;
			r->flags = s->flags;
			r->reserved = 0;
			if (s->dur_ns >= UINT32_MAX) {
				if (nlong == long_cap) {
					long_cap = long_cap ? long_cap * 2 : 64;
					void *p = realloc(longs, long_cap * sizeof(*longs));
					if (!p)
						goto oom;
					longs = p;
				}
				/* The link field is free until linking: it carries the
				 * duration's index while rows move. */
				r->link = nlong;
				longs[nlong++] = s->dur_ns;
				r->dur_ns = UINT32_MAX;
				r->flags |= TIX_ROW_LONG_DUR;
			} else {
				r->dur_ns = (uint32_t)s->dur_ns;
			}
			corr[pos] = s->corr;
			if (s->start_ns < L->first_ns)
				L->first_ns = s->start_ns;
			if (s->start_ns + s->dur_ns > L->last_ns)
				L->last_ns = s->start_ns + s->dur_ns;
		}
	}
	if (b->extra)
		linker_release(L, &b->extra->rows);
	linker_release(L, &b->c.rows); /* its pages serve the next arrays */

	struct mover m = {rows, corr};
	for (uint32_t t = 0; t < L->ntracks; t++)
		if (sort_track(&m, L->tracks[t].first_row, L->tracks[t].row_count, &tmp, &tmp_cap) != 0)
			goto oom;
	if (nlong) {
		L->long_durs = malloc(nlong * sizeof(*L->long_durs));
		if (!L->long_durs)
			goto oom;
		for (uint32_t i = 0; i < n; i++) {
			struct tix_row_disk *r = &rows[i];
			if (!(r->flags & TIX_ROW_LONG_DUR))
				continue;
			L->long_durs[L->nlong++] = (struct tix_long_dur_disk){i, 0, longs[r->link]};
			r->link = TIX_NONE;
		}
		L->long_cap = nlong;
	}
	rc = 0;
	goto out;
oom:
	rc = tix_error_set(err, "out of memory");
out:
	free(cursor);
	free(longs);
	free(tmp);
	return rc;
}

