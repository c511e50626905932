/* The reader: maps a .tix read-only, checks at open what every other check
 * needs and the rest a block at a time when a query first reads it
 * (reader_int.h, check.c), and answers queries by pointer arithmetic. */
#include "index/index.h"

#include <errno.h>
#include <regex.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index/reader_int.h"

#define BAD(...) (tix_error_set(err, __VA_ARGS__), -1)

/* rules.h reads the mapping through the same checks as the queries */
static void view_need(const struct tix_rows *v, unsigned sec, uint32_t first, uint32_t n)
{
	need((const struct tix_index *)(const void *)((const char *)v - offsetof(struct tix_index, view)),
	     sec, first, n);
}

/* Where each known section is read from. */
static void section_targets(struct tix_index *ix, const void **ptr[TIX_SEC_MAX + 1],
                            uint32_t *count[TIX_SEC_MAX + 1], uint32_t *dummy)
{
	static const void *unused;
	for (int id = 0; id <= TIX_SEC_MAX; id++) {
		ptr[id] = NULL;
		count[id] = dummy;
	}
#define AT(id, p, c)                          \
	do {                                  \
		ptr[id] = (const void **)(p); \
		count[id] = (c);              \
	} while (0)
	AT(TIX_SEC_META, &ix->meta, dummy);
	AT(TIX_SEC_STRING_OFFSETS, &ix->str_off, &ix->nstr);
	AT(TIX_SEC_STRING_DATA, &ix->str_data, dummy);
	AT(TIX_SEC_TRACKS, &ix->tracks, &ix->ntracks);
	AT(TIX_SEC_ROWS, &ix->rows, &ix->nrows);
	AT(TIX_SEC_DETAILS, &ix->details, &ix->ndetails);
	AT(TIX_SEC_KERNEL_INFO, &ix->kinfos, &ix->nkinfos);
	AT(TIX_SEC_OP_INFO, &ix->opinfos, &ix->nopinfos);
	AT(TIX_SEC_LONG_DUR, &ix->long_durs, &ix->nlong);
	AT(TIX_SEC_STEPS, &ix->steps, &ix->nsteps);
	AT(TIX_SEC_GROUPS, &ix->groups, &ix->ngroups);
	AT(TIX_SEC_STEP_GROUPS, &ix->step_groups, &ix->nstep_groups);
	AT(TIX_SEC_MEMBERS, &ix->members, &ix->nmembers);
	AT(TIX_SEC_OPS, &ix->ops, &ix->nops);
	AT(TIX_SEC_OP_GROUPS, &ix->op_groups, &ix->nop_groups);
	AT(TIX_SEC_TOP_META, &ix->top_meta, &ix->ntop_meta);
	AT(TIX_SEC_CHAINS, &ix->chains, &ix->nchains);
	AT(TIX_SEC_CHAIN_ROWS, &ix->chain_rows, &ix->nchain_rows);
	AT(TIX_SEC_NAME_FORMS, &ix->name_forms, &ix->nname_forms);
	AT(TIX_SEC_CAPTURE_CHAINS, &ix->cap_chains, &ix->ncap_chains);
	AT(TIX_SEC_CAPTURE_FRAMES, &ix->cap_frames, &ix->ncap_frames);
	AT(TIX_SEC_NAMES, &ix->names, &ix->nnames);
	AT(TIX_SEC_NAME_ROWS, &ix->name_rows, &ix->nname_rows);
	AT(TIX_SEC_BREAKDOWNS, &ix->breakdowns, &ix->nbreakdowns);
	AT(TIX_SEC_STREAM_IDLE, &ix->stream_idle, &ix->nstream_idle);
	AT(TIX_SEC_SYNCS, &ix->syncs, &ix->nsyncs);
	AT(TIX_SEC_OP_SHAPES, &ix->op_shapes, &ix->nop_shapes);
	AT(TIX_SEC_STEP_OP_SHAPES, &ix->step_op_shapes, &ix->nstep_op_shapes);
	AT(TIX_SEC_OP_SHAPE_GROUPS, &ix->op_shape_groups, &ix->nop_shape_groups);
	AT(TIX_SEC_OP_MODELS, &ix->op_models, &ix->nop_models);
	AT(TIX_SEC_BLOCK_SUMS, &unused, dummy);
#undef AT
}

/* The section table: every section inside the file, each known one once
 * with its record size, BLOCK_SUMS holding a sum for every block, and each
 * section's checksum that of its sums.  0, or -1 with err set. */
static int read_table(struct tix_index *ix, const struct tix_header_disk *h, struct tix_error *err)
{
	const char *path = ix->path;
	const void **ptr[TIX_SEC_MAX + 1];
	uint32_t *count[TIX_SEC_MAX + 1], dummy;
	section_targets(ix, ptr, count, &dummy);
	for (int id = 1; id <= TIX_SEC_MAX; id++) /* every section of format.h is read */
		if (tix_section_elem[id] && !ptr[id])
			return BAD("%s: internal: section %d has no reader", path, id);
	struct tix_section_disk tab[TIX_SEC_MAX + 1];
	uint64_t first_sum[TIX_SEC_MAX + 1], nsums = 0;
	int seen[TIX_SEC_MAX + 1] = {0};
	for (uint32_t i = 0; i < h->section_count; i++) {
		struct tix_section_disk s;
		memcpy(&s, ix->map + sizeof(*h) + i * sizeof(s), sizeof(s));
		int known = s.id > 0 && s.id <= TIX_SEC_MAX && ptr[s.id];
		if (s.elem_size == 0 || s.elem_size > TIX_BLOCK_BYTES || s.offset % 8 ||
		    s.offset > ix->size || s.size > ix->size - s.offset || s.size % s.elem_size ||
		    s.size / s.elem_size > UINT32_MAX - 1 ||
		    (known && (seen[s.id] || s.elem_size != tix_section_elem[s.id])))
			return BAD("%s: damaged index (section %u)", path, s.id);
		if (s.id == TIX_SEC_BLOCK_SUMS) {
			tab[s.id] = s;
			seen[s.id] = 1;
			continue;
		}
		uint64_t nb = tix_block_count(s.size, s.elem_size);
		if (known) {
			tab[s.id] = s;
			seen[s.id] = 1;
			first_sum[s.id] = nsums;
			*ptr[s.id] = ix->map + s.offset;
			*count[s.id] = (uint32_t)(s.size / s.elem_size);
			if (s.id == TIX_SEC_META && s.size != sizeof(struct tix_meta_disk))
				return BAD("%s: damaged index (meta size)", path);
		}
		nsums += nb; /* a section from a later version has its sums too */
	}
	for (int id = 1; id <= TIX_SEC_MAX; id++)
		if (!seen[id])
			return BAD("%s: damaged index (section %d missing)", path, id);
	const struct tix_section_disk *bs = &tab[TIX_SEC_BLOCK_SUMS];
	if (bs->size != nsums * 8)
		return BAD("%s: damaged index (section %u)", path, (unsigned)TIX_SEC_BLOCK_SUMS);
	if (tix_hash64(ix->map + bs->offset, bs->size, 0) != bs->checksum)
		return BAD("%s: damaged index (checksum of section %u)", path, (unsigned)TIX_SEC_BLOCK_SUMS);
	const uint64_t *sums = (const uint64_t *)(const void *)(ix->map + bs->offset);
	uint64_t nblocks = 0;
	for (int id = 1; id <= TIX_SEC_MAX; id++) {
		if (id == TIX_SEC_BLOCK_SUMS)
			continue;
		struct part *p = &ix->part[id];
		p->base = ix->map + tab[id].offset;
		p->elem = tab[id].elem_size;
		p->nrec = tab[id].size / p->elem;
		p->shift = tix_block_shift(p->elem);
		p->nblocks = tix_block_count(tab[id].size, p->elem);
		p->sums = sums + first_sum[id];
		if (tix_hash64(p->nblocks ? (const void *)p->sums : "", p->nblocks * 8, 0) != tab[id].checksum)
			return BAD("%s: damaged index (checksum of section %d)", path, id);
		nblocks += p->nblocks;
	}
	ix->states = calloc(nblocks + 1, 1);
	if (!ix->states)
		return tix_error_oom(err, path);
	for (int id = 1, at = 0; id <= TIX_SEC_MAX; id++) {
		ix->part[id].state = ix->states + at;
		at += (int)ix->part[id].nblocks;
	}
	ix->str_bytes = tab[TIX_SEC_STRING_DATA].size;
	return 0;
}

static int open_mapped(struct tix_index *ix, struct tix_error *err)
{
	const char *path = ix->path;
	struct tix_header_disk h;
	memcpy(&h, ix->map, sizeof(h));
	if (memcmp(h.magic, TIX_MAGIC, 8) != 0)
		return BAD("%s: not a tix index (bad magic)", path);
	if (h.endian != TIX_ENDIAN_MARK)
		return BAD("%s: index written on a machine of another byte order", path);
	if (h.version < TIX_MIN_READER_VERSION)
		return BAD("%s: index format version %u is older than this tix reads (%u): "
		           "it is rebuilt from its trace",
		           path, h.version, TIX_MIN_READER_VERSION);
	if (h.min_reader_version > TIX_FORMAT_VERSION)
		return BAD("%s: index format version %u needs a newer tix (this one reads %u)", path,
		           h.version, TIX_FORMAT_VERSION);
	if (h.header_size != sizeof(h) || h.section_table_offset != sizeof(h) ||
	    h.section_count == 0 || h.section_count > 1024 ||
	    h.section_table_offset + (uint64_t)h.section_count * sizeof(struct tix_section_disk) > ix->size)
		return BAD("%s: damaged index (header)", path);
	if (h.file_size != ix->size)
		return BAD("%s: damaged index (%zu bytes, its header says %llu: truncated?)", path,
		           ix->size, (unsigned long long)h.file_size);
	size_t tbytes = (size_t)h.section_count * sizeof(struct tix_section_disk);
	unsigned char *hb = malloc(sizeof(h) + tbytes);
	if (!hb)
		return tix_error_oom(err, path);
	memcpy(hb, ix->map, sizeof(h) + tbytes);
	((struct tix_header_disk *)(void *)hb)->checksum = 0;
	uint64_t sum = tix_hash64(hb, sizeof(h) + tbytes, 0);
	free(hb);
	if (sum != h.checksum)
		return BAD("%s: damaged index (header checksum)", path);
	if (read_table(ix, &h, err) != 0)
		return -1;
	if (ix->nstr == 0)
		return BAD("%s: damaged index (string table size)", path);
	ix->nstr -= 1; /* n+1 offsets */
	if (check_at_open(ix, err) != 0)
		return -1;
	uint32_t bt = ix->meta->before_trace_step;
	if (bt != TIX_NONE && (ix->nsteps == 0 || bt != ix->nsteps - 1))
		return BAD("%s: damaged index (before-the-trace step)", path);
	ix->nsteps_real = ix->nsteps - (bt != TIX_NONE);
	/* one breakdown a step and one for the trace; one model an op */
	if (ix->nbreakdowns != ix->nsteps + 1 || ix->nop_models != ix->nops)
		return BAD("%s: damaged index (breakdowns or op models)", path);
	ix->version = h.version;
	ix->view = (struct tix_rows){
		.rows = ix->rows, .nrows = ix->nrows, .long_durs = ix->long_durs, .nlong = ix->nlong,
		.chains = ix->chains, .nchains = ix->nchains, .chain_rows = ix->chain_rows,
		.nchain_rows = ix->nchain_rows, .steps = ix->steps, .nsteps = ix->nsteps_real,
		.before_trace_step = bt, .need = view_need,
		.rows_state = ix->part[TIX_SEC_ROWS].state, .rows_shift = ix->part[TIX_SEC_ROWS].shift};
	_Static_assert(BLOCK_GOOD == TIX_ROWS_GOOD, "rules.h reads the ROWS blocks' states");
	return 0;
}

/* Every mapping the process holds open, for a SIGBUS handler to tell a
 * truncated index from a crash (tix_index_any_maps): a fixed table of
 * atomics, as a handler may read it at any moment. */
#define MAPS_MAX 256
static struct {
	uintptr_t base, len;
} maps[MAPS_MAX];

static void maps_add(const void *base, size_t len)
{
	for (int i = 0; i < MAPS_MAX; i++) {
		uintptr_t none = 0;
		if (__atomic_compare_exchange_n(&maps[i].base, &none, (uintptr_t)base, 0, __ATOMIC_SEQ_CST,
		                                __ATOMIC_SEQ_CST)) {
			__atomic_store_n(&maps[i].len, (uintptr_t)len, __ATOMIC_SEQ_CST);
			return;
		}
	}
}

static void maps_remove(const void *base)
{
	for (int i = 0; i < MAPS_MAX; i++)
		if (__atomic_load_n(&maps[i].base, __ATOMIC_SEQ_CST) == (uintptr_t)base) {
			__atomic_store_n(&maps[i].len, 0, __ATOMIC_SEQ_CST);
			__atomic_store_n(&maps[i].base, 0, __ATOMIC_SEQ_CST);
			return;
		}
}

int tix_index_any_maps(const void *addr)
{
	uintptr_t p = (uintptr_t)addr;
	for (int i = 0; i < MAPS_MAX; i++) {
		uintptr_t b = __atomic_load_n(&maps[i].base, __ATOMIC_SEQ_CST);
		uintptr_t n = __atomic_load_n(&maps[i].len, __ATOMIC_SEQ_CST);
		if (b && p >= b && p - b < n)
			return 1;
	}
	return 0;
}

static void index_free(struct tix_index *ix)
{
	check_stop(ix);
	maps_remove(ix->map);
	munmap((void *)ix->map, ix->size);
	free(ix->states);
	free(ix->path);
	free(ix);
}

int tix_index_open(const char *path, struct tix_index **out, struct tix_error *err)
{
	*out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO must not block */
	if (fd < 0)
		return tix_error_errno(err, errno, "%s", path);
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return BAD("%s: not a regular file", path);
	}
	if ((uint64_t)st.st_size < sizeof(struct tix_header_disk)) {
		close(fd);
		return BAD("%s: not a tix index (%lld bytes, shorter than its header)", path,
		           (long long)st.st_size);
	}
	void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return tix_error_errno(err, errno, "%s: cannot map", path);
	struct tix_index *ix = calloc(1, sizeof(*ix));
	char *copy = strdup(path);
	if (!ix || !copy) {
		free(ix);
		free(copy);
		munmap(map, (size_t)st.st_size);
		return tix_error_oom(err, path);
	}
	ix->map = map;
	ix->size = (size_t)st.st_size;
	ix->path = copy;
	ix->file = (struct tix_file_info){(uint64_t)st.st_dev, (uint64_t)st.st_ino, (uint32_t)st.st_uid,
	                                  (uint32_t)st.st_mode};
	maps_add(map, ix->size);
	if (open_mapped(ix, err) != 0) {
		index_free(ix);
		return -1;
	}
	*out = ix;
	return 0;
}

void tix_index_close(struct tix_index *ix)
{
	if (ix)
		index_free(ix);
}

const char *tix_index_path(const struct tix_index *ix) { return ix->path; }

void tix_index_file(const struct tix_index *ix, struct tix_file_info *out) { *out = ix->file; }

void tix_index_on_damage(struct tix_index *ix, tix_damage_fn fn, void *ctx)
{
	ix->on_damage = fn;
	ix->damage_ctx = ctx;
}

int tix_index_maps(const struct tix_index *ix, const void *addr)
{
	uintptr_t p = (uintptr_t)addr, m = (uintptr_t)ix->map;
	return p >= m && p - m < ix->size;
}

const char *tix_str(const struct tix_index *ix, uint32_t id)
{
	if (id >= ix->nstr)
		return "";
	need(ix, TIX_SEC_STRING_OFFSETS, id, 2);
	uint64_t a = ix->str_off[id];
	need(ix, TIX_SEC_STRING_DATA, a, ix->str_off[id + 1] - a);
	return ix->str_data + a;
}

uint32_t tix_str_len(const struct tix_index *ix, uint32_t id)
{
	if (id >= ix->nstr)
		return 0;
	need(ix, TIX_SEC_STRING_OFFSETS, id, 2);
	return (uint32_t)(ix->str_off[id + 1] - ix->str_off[id] - 1);
}

void tix_index_source(const struct tix_index *ix, struct tix_source_info *out)
{
	out->size = ix->meta->source_size;
	out->mtime_ns = ix->meta->source_mtime_ns;
	out->hash = ix->meta->source_hash;
	out->dev = ix->meta->source_dev;
	out->ino = ix->meta->source_ino;
	out->ctime_ns = ix->meta->source_ctime_ns;
	out->path = tix_str(ix, ix->meta->source_path);
	out->step_marker = tix_str(ix, ix->meta->step_marker);
	out->capture_sources = tix_str(ix, ix->meta->capture_sources);
}

void tix_index_summary(const struct tix_index *ix, struct tix_summary_info *out)
{
	memset(out, 0, sizeof(*out));
	out->events = ix->nrows;
	out->tracks = ix->ntracks;
	out->strings = ix->nstr;
	out->steps = ix->nsteps_real;
	out->gpu_before_trace = ix->meta->gpu_before_trace;
	out->format_version = ix->version;
	out->corr_collisions = ix->meta->corr_collisions;
	out->replayed = ix->meta->replayed;
	for (int k = 0; k < TIX_MATCH_COUNT; k++)
		out->replayed_by_match[k] = ix->meta->replayed_by_match[k];
	out->capture_sources = tix_str(ix, ix->meta->capture_sources);
	out->groups = ix->ngroups;
	out->ops = ix->nops;
	for (int k = 0; k < TIX_KIND_COUNT; k++)
		out->kind_counts[k] = ix->meta->kind_counts[k];
	out->gpu_without_launch = ix->meta->gpu_without_launch;
	out->base_time_ns = ix->meta->base_time_ns;
	out->first_ns = ix->meta->first_ns;
	out->last_ns = ix->meta->last_ns;
	out->file_size = ix->size;
	out->warnings = tix_str(ix, ix->meta->warnings);
	out->step_rule = tix_str(ix, ix->meta->step_rule);
}

uint32_t tix_meta_count(const struct tix_index *ix) { return ix->ntop_meta; }

void tix_meta_get(const struct tix_index *ix, uint32_t i, const char **key, const char **json)
{
	if (i < ix->ntop_meta)
		need1(ix, TIX_SEC_TOP_META, i);
	*key = i < ix->ntop_meta ? tix_str(ix, ix->top_meta[2 * i]) : "";
	*json = i < ix->ntop_meta ? tix_str(ix, ix->top_meta[2 * i + 1]) : "";
}

uint32_t tix_track_count(const struct tix_index *ix) { return ix->ntracks; }

const struct tix_track *tix_track_get(const struct tix_index *ix, uint32_t t)
{
	return t < ix->ntracks ? &ix->tracks[t] : NULL;
}

uint32_t tix_track_lower_bound(const struct tix_index *ix, uint32_t t, int64_t t_ns)
{
	if (t >= ix->ntracks)
		return 0;
	uint32_t lo = ix->tracks[t].first_row, hi = lo + ix->tracks[t].row_count;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		need1(ix, TIX_SEC_ROWS, mid);
		if (ix->rows[mid].start_ns < t_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint32_t tix_event_count(const struct tix_index *ix) { return ix->nrows; }

static int64_t dur_of(const struct tix_index *ix, uint32_t row)
{
	return tix_rule_dur(&ix->view, row);
}

void tix_event_get(const struct tix_index *ix, uint32_t row, struct tix_event *out)
{
	memset(out, 0, sizeof(*out));
	out->row = row;
	out->launch = out->parent = out->kernel_info = out->op_info = TIX_NONE;
	out->name = out->cat = out->args = TIX_NONE;
	if (row >= ix->nrows)
		return;
	need1(ix, TIX_SEC_ROWS, row);
	const struct tix_row_disk *r = &ix->rows[row];
	out->kind = (enum tix_kind)r->kind;
	out->flags = r->flags;
	out->track = r->track;
	out->start_ns = r->start_ns;
	out->dur_ns = dur_of(ix, row);
	out->name = r->name;
	if (tix_kind_is_gpu(out->kind))
		out->launch = r->link;
	else
		out->parent = r->link;
	if (r->detail != TIX_NONE) {
		need1(ix, TIX_SEC_DETAILS, r->detail);
		const struct tix_detail_disk *d = &ix->details[r->detail];
		out->cat = d->cat;
		out->args = d->args;
		out->kernel_info = d->kernel_info;
		out->op_info = d->op_info;
	}
}

uint32_t tix_event_op_info(const struct tix_index *ix, uint32_t row, uint32_t *name)
{
	if (row >= ix->nrows)
		return TIX_NONE;
	need1(ix, TIX_SEC_ROWS, row);
	const struct tix_row_disk *r = &ix->rows[row];
	if (r->kind != TIX_KIND_CPU_OP || r->detail == TIX_NONE)
		return TIX_NONE;
	need1(ix, TIX_SEC_DETAILS, r->detail);
	uint32_t op = ix->details[r->detail].op_info;
	if (op != TIX_NONE)
		*name = r->name;
	return op;
}

uint32_t tix_event_launch(const struct tix_index *ix, uint32_t row, int64_t *dur_ns)
{
	if (row >= ix->nrows)
		return TIX_NONE;
	need1(ix, TIX_SEC_ROWS, row);
	if (!tix_kind_is_gpu((enum tix_kind)ix->rows[row].kind) || ix->rows[row].link == TIX_NONE)
		return TIX_NONE;
	*dur_ns = dur_of(ix, row);
	return ix->rows[row].link;
}

uint32_t tix_event_ops_in(const struct tix_index *ix, uint32_t first, uint32_t n, uint32_t *rows,
                          uint32_t *ops, uint32_t *names)
{
	uint32_t k = 0, end = first < ix->nrows ? (n < ix->nrows - first ? first + n : ix->nrows) : first;
	need(ix, TIX_SEC_ROWS, first, end - first);
	for (uint32_t row = first; row < end; row++) {
		const struct tix_row_disk *r = &ix->rows[row];
		if (r->kind != TIX_KIND_CPU_OP || r->detail == TIX_NONE)
			continue;
		need1(ix, TIX_SEC_DETAILS, r->detail);
		uint32_t op = ix->details[r->detail].op_info;
		if (op == TIX_NONE)
			continue;
		rows[k] = row;
		ops[k] = op;
		names[k++] = r->name;
	}
	return k;
}

uint32_t tix_event_step(const struct tix_index *ix, uint32_t row)
{
	if (row >= ix->nrows || ix->nsteps == 0)
		return TIX_NONE;
	return tix_rule_step_of(&ix->view, row);
}

uint32_t tix_event_ancestors(const struct tix_index *ix, uint32_t row, uint32_t *out, uint32_t cap)
{
	if (row >= ix->nrows)
		return 0;
	need1(ix, TIX_SEC_ROWS, row);
	if (tix_kind_is_gpu((enum tix_kind)ix->rows[row].kind))
		return 0;
	return tix_rule_ancestors(&ix->view, row, out, cap);
}

uint32_t tix_event_ancestor_of_kind(const struct tix_index *ix, uint32_t row, enum tix_kind kind,
                                    uint32_t max)
{
	if (row >= ix->nrows)
		return TIX_NONE;
	need1(ix, TIX_SEC_ROWS, row);
	if (tix_kind_is_gpu((enum tix_kind)ix->rows[row].kind))
		return TIX_NONE;
	return tix_rule_ancestor_of_kind(&ix->view, row, (uint8_t)kind, max);
}

long tix_event_ancestors_all(const struct tix_index *ix, uint32_t row, uint32_t **out)
{
	uint32_t cap = 64;
	*out = malloc(cap * sizeof(**out));
	if (!*out)
		return -1;
	uint32_t n = tix_event_ancestors(ix, row, *out, cap);
	if (n > cap) { /* deeper than most: ask again with room for all */
		uint32_t *p = realloc(*out, (size_t)n * sizeof(*p));
		if (!p) {
			free(*out);
			*out = NULL;
			return -1;
		}
		*out = p;
		tix_event_ancestors(ix, row, *out, n);
	}
	return n;
}

long tix_event_op_names(const struct tix_index *ix, uint32_t row, uint32_t **out)
{
	*out = NULL;
	if (row >= ix->nrows)
		return 0;
	need1(ix, TIX_SEC_ROWS, row);
	const struct tix_row_disk *r = &ix->rows[row];
	if (!tix_kind_is_gpu(r->kind) || r->link == TIX_NONE)
		return 0;
	long n = tix_event_ancestors_all(ix, r->link, out);
	if (n <= 0) {
		free(*out);
		*out = NULL;
		return n;
	}
	return tix_rule_op_names(&ix->view, *out, (uint32_t)n, *out);
}

uint32_t tix_event_gpu_beneath(const struct tix_index *ix, uint32_t row)
{
	if (row >= ix->nrows)
		return 0;
	need1(ix, TIX_SEC_ROWS, row);
	return ix->rows[row].gpu_beneath;
}

enum tix_capture_match tix_event_capture(const struct tix_index *ix, uint32_t row,
                                         struct tix_capture_view *out)
{
	memset(out, 0, sizeof(*out));
	out->source = TIX_NONE;
	if (row >= ix->nrows)
		return TIX_MATCH_NONE;
	need1(ix, TIX_SEC_ROWS, row);
	if (ix->rows[row].detail == TIX_NONE)
		return TIX_MATCH_NONE;
	need1(ix, TIX_SEC_DETAILS, ix->rows[row].detail);
	const struct tix_detail_disk *d = &ix->details[ix->rows[row].detail];
	if (d->capture == TIX_NONE)
		return (enum tix_capture_match)d->capture_match;
	need1(ix, TIX_SEC_CAPTURE_CHAINS, d->capture);
	const struct tix_capture_chain_disk *c = &ix->cap_chains[d->capture];
	need(ix, TIX_SEC_CAPTURE_FRAMES, c->first, c->count);
	out->nframes = c->count;
	out->source = c->source;
	out->frames = ix->cap_frames + c->first;
	return (enum tix_capture_match)d->capture_match;
}

static const struct tix_name_form_disk *name_form(const struct tix_index *ix, uint32_t name)
{
	uint32_t lo = 0, hi = ix->nname_forms;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		need1(ix, TIX_SEC_NAME_FORMS, mid);
		if (ix->name_forms[mid].raw < name)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ix->nname_forms)
		need1(ix, TIX_SEC_NAME_FORMS, lo);
	return lo < ix->nname_forms && ix->name_forms[lo].raw == name ? &ix->name_forms[lo] : NULL;
}

uint32_t tix_name_full(const struct tix_index *ix, uint32_t name)
{
	const struct tix_name_form_disk *f = name_form(ix, name);
	return f ? f->full : name;
}

int tix_name_matches(const struct tix_index *ix, uint32_t name, const void *regex)
{
	const regex_t *re = regex;
	if (regexec(re, tix_str(ix, name), 0, NULL, 0) == 0)
		return 1;
	uint32_t full = tix_name_full(ix, name);
	return full != name && regexec(re, tix_str(ix, full), 0, NULL, 0) == 0;
}

uint32_t tix_name_short(const struct tix_index *ix, uint32_t name)
{
	const struct tix_name_form_disk *f = name_form(ix, name);
	return f ? f->shortened : TIX_NONE;
}

const struct tix_kernel_info *tix_kernel_info_get(const struct tix_index *ix, uint32_t id)
{
	if (id >= ix->nkinfos)
		return NULL;
	need1(ix, TIX_SEC_KERNEL_INFO, id);
	return &ix->kinfos[id];
}

const struct tix_op_info *tix_op_info_get(const struct tix_index *ix, uint32_t id)
{
	if (id >= ix->nopinfos)
		return NULL;
	need1(ix, TIX_SEC_OP_INFO, id);
	return &ix->opinfos[id];
}

uint32_t tix_step_count(const struct tix_index *ix) { return ix->nsteps_real; }

uint32_t tix_step_before_trace(const struct tix_index *ix) { return ix->meta->before_trace_step; }

const struct tix_step *tix_step_get(const struct tix_index *ix, uint32_t s)
{
	if (s >= ix->nsteps)
		return NULL;
	need1(ix, TIX_SEC_STEPS, s);
	return &ix->steps[s];
}

uint32_t tix_group_count(const struct tix_index *ix) { return ix->ngroups; }

const struct tix_group *tix_group_get(const struct tix_index *ix, uint32_t g)
{
	if (g >= ix->ngroups)
		return NULL;
	need1(ix, TIX_SEC_GROUPS, g);
	return &ix->groups[g];
}

const struct tix_group *tix_step_groups(const struct tix_index *ix, uint32_t s, uint32_t *count)
{
	if (s >= ix->nsteps) {
		*count = 0;
		return ix->step_groups;
	}
	need1(ix, TIX_SEC_STEPS, s);
	*count = ix->steps[s].groups_count;
	need(ix, TIX_SEC_STEP_GROUPS, ix->steps[s].groups_first, *count);
	return ix->step_groups + ix->steps[s].groups_first;
}

const uint32_t *tix_members(const struct tix_index *ix, uint32_t first, uint32_t count)
{
	if ((uint64_t)first + count > ix->nmembers)
		return NULL;
	need(ix, TIX_SEC_MEMBERS, first, count);
	return ix->members + first;
}

int64_t tix_total_gpu_ns(const struct tix_index *ix) { return ix->meta->total_gpu_ns; }

uint32_t tix_op_count(const struct tix_index *ix) { return ix->nops; }

const struct tix_op *tix_op_get(const struct tix_index *ix, uint32_t i)
{
	if (i >= ix->nops)
		return NULL;
	need1(ix, TIX_SEC_OPS, i);
	return &ix->ops[i];
}

const struct tix_op_group *tix_op_groups(const struct tix_index *ix, uint32_t op, uint32_t *count)
{
	if (op >= ix->nops) {
		*count = 0;
		return ix->op_groups;
	}
	need1(ix, TIX_SEC_OPS, op);
	*count = ix->ops[op].groups_count;
	need(ix, TIX_SEC_OP_GROUPS, ix->ops[op].groups_first, *count);
	return ix->op_groups + ix->ops[op].groups_first;
}

/* ---- what findings read ---- */

const struct tix_breakdown *tix_breakdown_get(const struct tix_index *ix, uint32_t s)
{
	uint32_t i = s == TIX_NONE ? ix->nsteps : s;
	if (i >= ix->nbreakdowns)
		return NULL;
	need1(ix, TIX_SEC_BREAKDOWNS, i);
	return &ix->breakdowns[i];
}

const struct tix_stream_idle *tix_stream_idle(const struct tix_index *ix, uint32_t first, uint32_t count)
{
	if ((uint64_t)first + count > ix->nstream_idle)
		return NULL;
	need(ix, TIX_SEC_STREAM_IDLE, first, count);
	return ix->stream_idle + first;
}

const struct tix_sync *tix_syncs(const struct tix_index *ix, uint32_t first, uint32_t count)
{
	if ((uint64_t)first + count > ix->nsyncs)
		return NULL;
	need(ix, TIX_SEC_SYNCS, first, count);
	return ix->syncs + first;
}

uint32_t tix_op_shape_count(const struct tix_index *ix)
{
	return ix->nop_shapes;
}

const struct tix_op_shape *tix_op_shape_get(const struct tix_index *ix, uint32_t i)
{
	if (i >= ix->nop_shapes)
		return NULL;
	need1(ix, TIX_SEC_OP_SHAPES, i);
	return &ix->op_shapes[i];
}

const struct tix_op_shape *tix_step_op_shapes(const struct tix_index *ix, uint32_t s, uint32_t *count)
{
	const struct tix_breakdown *b = s == TIX_NONE ? NULL : tix_breakdown_get(ix, s);
	*count = 0;
	if (!b || b->shapes_count == 0)
		return ix->step_op_shapes;
	*count = b->shapes_count;
	need(ix, TIX_SEC_STEP_OP_SHAPES, b->shapes_first, *count);
	return ix->step_op_shapes + b->shapes_first;
}

const struct tix_op_group *tix_op_shape_groups(const struct tix_index *ix, uint32_t shape, uint32_t *count)
{
	const struct tix_op_shape *o = tix_op_shape_get(ix, shape);
	*count = 0;
	if (!o || o->groups_count == 0)
		return ix->op_shape_groups;
	*count = o->groups_count;
	need(ix, TIX_SEC_OP_SHAPE_GROUPS, o->groups_first, *count);
	return ix->op_shape_groups + o->groups_first;
}

const struct tix_op_model *tix_op_model_get(const struct tix_index *ix, uint32_t op)
{
	if (op >= ix->nop_models)
		return NULL;
	need1(ix, TIX_SEC_OP_MODELS, op);
	return &ix->op_models[op];
}
