/* The reader: maps a .tix read-only, checks every section, offset and
 * reference once at open, then answers queries by pointer arithmetic. */
#include "index/index.h"

#include <errno.h>
#include <regex.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index/format.h"
#include "index/rules.h"

struct tix_index {
	const unsigned char *map;
	size_t size;
	const struct tix_meta_disk *meta;
	const uint64_t *str_off;
	const char *str_data;
	uint32_t nstr;
	const struct tix_track *tracks;
	uint32_t ntracks;
	const struct tix_row_disk *rows;
	uint32_t nrows;
	const struct tix_detail_disk *details;
	uint32_t ndetails;
	const struct tix_kernel_info *kinfos;
	uint32_t nkinfos;
	const struct tix_op_info *opinfos;
	uint32_t nopinfos;
	const struct tix_long_dur_disk *long_durs;
	uint32_t nlong;
	const struct tix_step *steps;
	uint32_t nsteps;
	const struct tix_group *groups;
	uint32_t ngroups;
	const struct tix_group *step_groups;
	uint32_t nstep_groups;
	const uint32_t *members;
	uint32_t nmembers;
	const struct tix_op *ops;
	uint32_t nops;
	const struct tix_op_group *op_groups;
	uint32_t nop_groups;
	const uint32_t *top_meta;
	uint32_t ntop_meta;
	const struct tix_chain_disk *chains;
	uint32_t nchains;
	const uint32_t *chain_rows;
	uint32_t nchain_rows;
	const struct tix_name_form_disk *name_forms;
	uint32_t nname_forms;
	const struct tix_capture_chain_disk *cap_chains;
	uint32_t ncap_chains;
	const struct tix_capture_frame *cap_frames;
	uint32_t ncap_frames;
	struct tix_rows view;      /* the rows as rules.h sees them */
	uint32_t version;          /* the file's format version */
	uint32_t nsteps_real;      /* steps less "before the trace" */
};

#define BAD(...) (tix_error_set(err, __VA_ARGS__), -1)

static int check_str(const struct tix_index *ix, uint32_t id, int none_ok)
{
	return id < ix->nstr || (none_ok && id == TIX_NONE);
}

static int check_ref(uint32_t id, uint32_t n)
{
	return id < n || id == TIX_NONE;
}

/* Every reference inside the sections, so queries never check again. */
static int validate(struct tix_index *ix, const char *path, struct tix_error *err)
{
	if (ix->nstr == 0 && ix->str_off[0] != 0)
		return BAD("%s: damaged index (string table)", path);
	uint64_t data_len = ix->str_off[ix->nstr];
	for (uint32_t i = 0; i < ix->nstr; i++) {
		uint64_t a = ix->str_off[i], b = ix->str_off[i + 1];
		if (a >= b || b > data_len || ix->str_data[b - 1] != '\0')
			return BAD("%s: damaged index (string %u)", path, i);
	}
	if (ix->str_off[0] != 0)
		return BAD("%s: damaged index (string table)", path);
	const struct tix_meta_disk *m = ix->meta;
	if (!check_str(ix, m->source_path, 0) || !check_str(ix, m->step_marker, 0) ||
	    !check_str(ix, m->warnings, 0) || !check_str(ix, m->step_rule, 0))
		return BAD("%s: damaged index (meta)", path);
	uint64_t rows_seen = 0;
	for (uint32_t t = 0; t < ix->ntracks; t++) {
		const struct tix_track *tr = &ix->tracks[t];
		if (!check_str(ix, tr->pid_str, 1) || !check_str(ix, tr->tid_str, 1) ||
		    !check_str(ix, tr->name, 1) || !check_str(ix, tr->process_name, 1) ||
		    tr->first_row != rows_seen || (uint64_t)tr->first_row + tr->row_count > ix->nrows)
			return BAD("%s: damaged index (track %u)", path, t);
		rows_seen += tr->row_count;
	}
	if (rows_seen != ix->nrows)
		return BAD("%s: damaged index (tracks do not cover the events)", path);
	/* the kinds' CPU-ness looked up in a table: this loop runs over every
	 * row at each open */
	unsigned char cpu_kind[TIX_KIND_COUNT];
	for (int k = 0; k < TIX_KIND_COUNT; k++)
		cpu_kind[k] = !tix_kind_is_gpu((enum tix_kind)k);
	for (uint32_t t = 0; t < ix->ntracks; t++) {
		const struct tix_track *tr = &ix->tracks[t];
		for (uint32_t i = tr->first_row; i < tr->first_row + tr->row_count; i++) {
			const struct tix_row_disk *r = &ix->rows[i];
			/* A CPU row's parent precedes it on its track, so walking
			 * parents always ends. */
			int cpu = r->kind < TIX_KIND_COUNT && cpu_kind[r->kind];
			if (r->track != t || !check_str(ix, r->name, 0) ||
			    !check_ref(r->detail, ix->ndetails) || !check_ref(r->link, ix->nrows) ||
			    r->kind >= TIX_KIND_COUNT ||
			    (cpu && r->link != TIX_NONE && (r->link >= i || ix->rows[r->link].track != t)) ||
			    (i > tr->first_row && r->start_ns < ix->rows[i - 1].start_ns))
				return BAD("%s: damaged index (event %u)", path, i);
		}
	}
	for (uint32_t i = 0; i < ix->ndetails; i++) {
		const struct tix_detail_disk *d = &ix->details[i];
		if (!check_str(ix, d->cat, 1) || !check_str(ix, d->args, 1) ||
		    !check_ref(d->kernel_info, ix->nkinfos) || !check_ref(d->op_info, ix->nopinfos) ||
		    !check_ref(d->capture, ix->ncap_chains) || d->capture_match >= TIX_MATCH_COUNT)
			return BAD("%s: damaged index (detail %u)", path, i);
	}
	for (uint32_t i = 0; i < ix->nopinfos; i++) {
		const struct tix_op_info *o = &ix->opinfos[i];
		if (!check_str(ix, o->dims, 1) || !check_str(ix, o->types, 1) ||
		    !check_str(ix, o->strides, 1) || !check_str(ix, o->concrete, 1))
			return BAD("%s: damaged index (op info %u)", path, i);
	}
	for (uint32_t i = 0; i < ix->nlong; i++)
		if (ix->long_durs[i].row >= ix->nrows || ix->long_durs[i].dur_ns < 0 ||
		    (i && ix->long_durs[i].row <= ix->long_durs[i - 1].row))
			return BAD("%s: damaged index (long duration %u)", path, i);
	for (uint32_t i = 0; i < ix->nsteps; i++) {
		const struct tix_step *s = &ix->steps[i];
		if (!check_str(ix, s->name, 0) || !check_ref(s->marker_row, ix->nrows) ||
		    !check_ref(s->top_group, ix->ngroups) ||
		    (uint64_t)s->groups_first + s->groups_count > ix->nstep_groups ||
		    (i && i < ix->nsteps_real && s->start_ns < ix->steps[i - 1].start_ns))
			return BAD("%s: damaged index (step %u)", path, i);
	}
	const struct tix_group *gs[2] = {ix->groups, ix->step_groups};
	uint32_t ns[2] = {ix->ngroups, ix->nstep_groups};
	for (int k = 0; k < 2; k++) {
		for (uint32_t i = 0; i < ns[k]; i++) {
			const struct tix_group *g = &gs[k][i];
			if (!check_str(ix, g->name, 0) || g->kind >= TIX_KIND_COUNT ||
			    !check_ref(g->common_info, ix->nkinfos) || g->group >= ix->ngroups ||
			    !check_ref(g->step, ix->nsteps) || (k == 1 && g->step == TIX_NONE) ||
			    g->instances != g->members_count || g->instances == 0 ||
			    (uint64_t)g->members_first + g->members_count > ix->nmembers)
				return BAD("%s: damaged index (group %u)", path, i);
		}
	}
	for (uint32_t i = 0; i < ix->nmembers; i++)
		if (ix->members[i] >= ix->nrows)
			return BAD("%s: damaged index (member %u)", path, i);
	for (uint32_t i = 0; i < ix->nops; i++) {
		const struct tix_op *o = &ix->ops[i];
		if (!check_str(ix, o->name, 0) ||
		    (uint64_t)o->groups_first + o->groups_count > ix->nop_groups)
			return BAD("%s: damaged index (op %u)", path, i);
	}
	for (uint32_t i = 0; i < ix->nop_groups; i++)
		if (ix->op_groups[i].group >= ix->ngroups)
			return BAD("%s: damaged index (op group %u)", path, i);
	for (uint32_t i = 0; i < 2 * ix->ntop_meta; i++)
		if (!check_str(ix, ix->top_meta[i], 0))
			return BAD("%s: damaged index (trace metadata)", path);
	for (uint32_t i = 0; i < ix->nchains; i++) {
		const struct tix_chain_disk *c = &ix->chains[i];
		if (c->row >= ix->nrows || (i && c->row <= ix->chains[i - 1].row) ||
		    (uint64_t)c->first + c->count > ix->nchain_rows)
			return BAD("%s: damaged index (chain %u)", path, i);
		for (uint32_t k = 0; k < c->count; k++) {
			uint32_t a = ix->chain_rows[c->first + k];
			if (a >= c->row || ix->rows[a].track != ix->rows[c->row].track)
				return BAD("%s: damaged index (chain %u)", path, i);
		}
	}
	for (uint32_t i = 0; i < ix->nname_forms; i++) {
		const struct tix_name_form_disk *f = &ix->name_forms[i];
		if (!check_str(ix, f->raw, 0) || !check_str(ix, f->full, 0) ||
		    !check_str(ix, f->shortened, 0) || (i && f->raw <= ix->name_forms[i - 1].raw))
			return BAD("%s: damaged index (name form %u)", path, i);
	}
	for (uint32_t i = 0; i < ix->ncap_chains; i++) {
		const struct tix_capture_chain_disk *c = &ix->cap_chains[i];
		if (!check_str(ix, c->source, 0) || (uint64_t)c->first + c->count > ix->ncap_frames)
			return BAD("%s: damaged index (capture chain %u)", path, i);
	}
	for (uint32_t i = 0; i < ix->ncap_frames; i++) {
		const struct tix_capture_frame *f = &ix->cap_frames[i];
		if (!check_str(ix, f->name, 0) || !check_str(ix, f->dims, 1) ||
		    !check_str(ix, f->types, 1) || f->kind >= TIX_KIND_COUNT)
			return BAD("%s: damaged index (capture frame %u)", path, i);
	}
	if (!check_str(ix, m->capture_sources, 0))
		return BAD("%s: damaged index (meta)", path);
	return 0;
}

/* The sections' checksums.  Checking them is most of an open's time on a
 * large index (a 415 MB one: ~45%), and validate() reads nothing it has not
 * bounds-checked, so they are summed on a second thread while validate()
 * runs; the thread takes the largest sections, up to about half the bytes.
 * A bad checksum is still the error reported whenever the one-pass order
 * (each section's bounds, then its checksum, then everything else) would
 * have reported it first. */
struct sum_job {
	const unsigned char *p;
	uint64_t size, want;
	uint32_t id;
	int second;  /* summed by the second thread (set before it starts) */
	int state;   /* 0 not summed, 1 good, 2 bad; written by its summer only */
};

struct sums {
	struct sum_job *sec;
	uint32_t n;
	pthread_t th;
	int threaded;
};

#define SUM_THREAD_MIN (8u << 20) /* below this one thread is as fast */

static void sum_some(struct sums *s, int second)
{
	for (uint32_t i = 0; i < s->n; i++)
		if (s->sec[i].second == second && s->sec[i].state == 0)
			s->sec[i].state = tix_hash64(s->sec[i].p, s->sec[i].size, 0) == s->sec[i].want ? 1 : 2;
}

static void *sum_thread(void *arg)
{
	sum_some(arg, 1);
	return NULL;
}

/* Gives the second thread its share and sums the rest here. */
static void sums_run(struct sums *s)
{
	uint64_t total = 0, given = 0;
	for (uint32_t i = 0; i < s->n; i++)
		total += s->sec[i].size;
	if (total >= SUM_THREAD_MIN) {
		for (;;) { /* the largest first */
			uint32_t best = s->n;
			for (uint32_t i = 0; i < s->n; i++)
				if (!s->sec[i].second && (best == s->n || s->sec[i].size > s->sec[best].size))
					best = i;
			if (best == s->n || given + s->sec[best].size > total / 2 + total / 8)
				break;
			s->sec[best].second = 1;
			given += s->sec[best].size;
		}
		s->threaded = given > 0 && pthread_create(&s->th, NULL, sum_thread, s) == 0;
		if (!s->threaded)
			for (uint32_t i = 0; i < s->n; i++)
				s->sec[i].second = 0;
	}
	sum_some(s, 0);
}

/* Waits for the second thread, sums what nobody summed yet, and fails with
 * the first bad checksum in table order (err NULL: only waits). */
static int sums_check(struct sums *s, const char *path, struct tix_error *err)
{
	if (s->threaded) {
		pthread_join(s->th, NULL);
		s->threaded = 0;
	}
	if (!err)
		return 0;
	for (uint32_t i = 0; i < s->n; i++)
		s->sec[i].second = 0;
	sum_some(s, 0);
	for (uint32_t i = 0; i < s->n; i++)
		if (s->sec[i].state == 2)
			return BAD("%s: damaged index (checksum of section %u)", path, s->sec[i].id);
	return 0;
}

int tix_index_open(const char *path, struct tix_index **out, struct tix_error *err)
{
	*out = NULL;
	struct sums sums = {0};
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
		return tix_error_env(err, "%s: cannot map: %s", path, strerror(errno));
	struct tix_index *ix = calloc(1, sizeof(*ix));
	if (!ix) {
		munmap(map, (size_t)st.st_size);
		return BAD("%s: out of memory", path);
	}
	ix->map = map;
	ix->size = (size_t)st.st_size;

	struct tix_header_disk h;
	memcpy(&h, map, sizeof(h));
	if (memcmp(h.magic, TIX_MAGIC, 8) != 0)
		goto bad_magic;
	if (h.endian != TIX_ENDIAN_MARK) {
		tix_error_set(err, "%s: index written on a machine of another byte order", path);
		goto fail;
	}
	if (h.version < TIX_MIN_READER_VERSION) {
		tix_error_set(err, "%s: index format version %u is older than this tix reads (%u): "
		              "it is rebuilt from its trace",
		              path, h.version, TIX_MIN_READER_VERSION);
		goto fail;
	}
	if (h.min_reader_version > TIX_FORMAT_VERSION) {
		tix_error_set(err, "%s: index format version %u needs a newer tix (this one reads %u)",
		              path, h.version, TIX_FORMAT_VERSION);
		goto fail;
	}
	if (h.header_size != sizeof(h) || h.section_table_offset != sizeof(h) ||
	    h.section_count == 0 || h.section_count > 1024 ||
	    h.section_table_offset + (uint64_t)h.section_count * sizeof(struct tix_section_disk) >
	        ix->size) {
		tix_error_set(err, "%s: damaged index (header)", path);
		goto fail;
	}
	if (h.file_size != ix->size) {
		tix_error_set(err, "%s: damaged index (%zu bytes, its header says %llu: truncated?)",
		              path, ix->size, (unsigned long long)h.file_size);
		goto fail;
	}
	size_t tbytes = (size_t)h.section_count * sizeof(struct tix_section_disk);
	unsigned char *hb = malloc(sizeof(h) + tbytes);
	if (!hb) {
		tix_error_env(err, "%s: out of memory", path);
		goto fail;
	}
	memcpy(hb, map, sizeof(h) + tbytes);
	((struct tix_header_disk *)hb)->checksum = 0;
	uint64_t sum = tix_hash64(hb, sizeof(h) + tbytes, 0);
	free(hb);
	if (sum != h.checksum) {
		tix_error_set(err, "%s: damaged index (header checksum)", path);
		goto fail;
	}

	struct {
		const void **ptr;
		uint32_t *count;
		uint32_t elem;
		int seen;
	} want[TIX_SEC_MAX + 1];
	memset(want, 0, sizeof(want));
	const void **ptrs[TIX_SEC_MAX + 1] = {0};
	uint32_t dummy;
#define WANT(id, p, c, e)                     \
	do {                                  \
		_Static_assert((e) > 0, "record size"); \
		want[id].ptr = (const void **)(p); \
		want[id].count = (c);         \
		want[id].elem = tix_section_elem[id]; \
	} while (0)
	WANT(TIX_SEC_META, &ix->meta, &dummy, sizeof(struct tix_meta_disk));
	WANT(TIX_SEC_STRING_OFFSETS, &ix->str_off, &ix->nstr, 8);
	WANT(TIX_SEC_STRING_DATA, &ix->str_data, &dummy, 1);
	WANT(TIX_SEC_TRACKS, &ix->tracks, &ix->ntracks, sizeof(struct tix_track));
	WANT(TIX_SEC_ROWS, &ix->rows, &ix->nrows, sizeof(struct tix_row_disk));
	WANT(TIX_SEC_DETAILS, &ix->details, &ix->ndetails, sizeof(struct tix_detail_disk));
	WANT(TIX_SEC_KERNEL_INFO, &ix->kinfos, &ix->nkinfos, sizeof(struct tix_kernel_info));
	WANT(TIX_SEC_OP_INFO, &ix->opinfos, &ix->nopinfos, sizeof(struct tix_op_info));
	WANT(TIX_SEC_LONG_DUR, &ix->long_durs, &ix->nlong, sizeof(struct tix_long_dur_disk));
	WANT(TIX_SEC_STEPS, &ix->steps, &ix->nsteps, sizeof(struct tix_step));
	WANT(TIX_SEC_GROUPS, &ix->groups, &ix->ngroups, sizeof(struct tix_group));
	WANT(TIX_SEC_STEP_GROUPS, &ix->step_groups, &ix->nstep_groups, sizeof(struct tix_group));
	WANT(TIX_SEC_MEMBERS, &ix->members, &ix->nmembers, 4);
	WANT(TIX_SEC_OPS, &ix->ops, &ix->nops, sizeof(struct tix_op));
	WANT(TIX_SEC_OP_GROUPS, &ix->op_groups, &ix->nop_groups, sizeof(struct tix_op_group));
	WANT(TIX_SEC_TOP_META, &ix->top_meta, &ix->ntop_meta, 8);
	WANT(TIX_SEC_CHAINS, &ix->chains, &ix->nchains, sizeof(struct tix_chain_disk));
	WANT(TIX_SEC_CHAIN_ROWS, &ix->chain_rows, &ix->nchain_rows, 4);
	WANT(TIX_SEC_NAME_FORMS, &ix->name_forms, &ix->nname_forms, sizeof(struct tix_name_form_disk));
	WANT(TIX_SEC_CAPTURE_CHAINS, &ix->cap_chains, &ix->ncap_chains,
	     sizeof(struct tix_capture_chain_disk));
	WANT(TIX_SEC_CAPTURE_FRAMES, &ix->cap_frames, &ix->ncap_frames,
	     sizeof(struct tix_capture_frame));
	(void)ptrs;
	for (int id = 1; id <= TIX_SEC_MAX; id++) /* every section of format.h is wanted */
		if (tix_section_elem[id] && !want[id].ptr) {
			tix_error_set(err, "%s: internal: section %d has no reader", path, id);
			goto fail;
		}
	uint64_t str_data_size = 0;
	sums.sec = calloc(h.section_count, sizeof(*sums.sec));
	if (!sums.sec) {
		tix_error_set(err, "%s: out of memory", path);
		goto fail;
	}
	for (uint32_t i = 0; i < h.section_count; i++) {
		struct tix_section_disk s;
		memcpy(&s, (const unsigned char *)map + sizeof(h) + i * sizeof(s), sizeof(s));
		if (s.id == 0 || s.id > TIX_SEC_MAX || !want[s.id].ptr)
			continue; /* a section from a later version */
		if (want[s.id].seen || s.elem_size != want[s.id].elem || s.offset % 8 ||
		    s.offset > ix->size || s.size > ix->size - s.offset || s.size % s.elem_size ||
		    s.size / s.elem_size > UINT32_MAX - 1) {
			tix_error_set(err, "%s: damaged index (section %u)", path, s.id);
			goto fail_sums;
		}
		sums.sec[sums.n++] = (struct sum_job){(const unsigned char *)map + s.offset, s.size,
		                                      s.checksum, s.id, 0, 0};
		want[s.id].seen = 1;
		*want[s.id].ptr = (const unsigned char *)map + s.offset;
		*want[s.id].count = (uint32_t)(s.size / s.elem_size);
		if (s.id == TIX_SEC_META && s.size != sizeof(struct tix_meta_disk)) {
			tix_error_set(err, "%s: damaged index (meta size)", path);
			goto fail_sums;
		}
		if (s.id == TIX_SEC_STRING_DATA)
			str_data_size = s.size;
	}
	sums_run(&sums);
	for (int id = 1; id <= TIX_SEC_MAX; id++) {
		if (want[id].ptr && !want[id].seen) {
			tix_error_set(err, "%s: damaged index (section %d missing)", path, id);
			goto fail_sums;
		}
	}
	if (ix->nstr == 0 || ix->str_off[ix->nstr - 1] != str_data_size) {
		tix_error_set(err, "%s: damaged index (string table size)", path);
		goto fail_sums;
	}
	ix->nstr -= 1; /* n+1 offsets */
	uint32_t bt = ix->meta->before_trace_step;
	if (bt != TIX_NONE && (ix->nsteps == 0 || bt != ix->nsteps - 1)) {
		tix_error_set(err, "%s: damaged index (before-the-trace step)", path);
		goto fail_sums;
	}
	ix->nsteps_real = ix->nsteps - (bt != TIX_NONE);
	ix->version = h.version;
	ix->view = (struct tix_rows){
		.rows = ix->rows, .nrows = ix->nrows, .long_durs = ix->long_durs, .nlong = ix->nlong,
		.chains = ix->chains, .nchains = ix->nchains, .chain_rows = ix->chain_rows,
		.nchain_rows = ix->nchain_rows, .steps = ix->steps, .nsteps = ix->nsteps_real,
		.before_trace_step = bt};
	if (validate(ix, path, err) != 0)
		goto fail_sums;
	if (sums_check(&sums, path, err) != 0)
		goto fail;
	free(sums.sec);
	*out = ix;
	return 0;
bad_magic:
	tix_error_set(err, "%s: not a tix index (bad magic)", path);
	goto fail;
fail_sums: { /* a bad checksum before it is said first */
	struct tix_error first;
	if (sums_check(&sums, path, &first) != 0)
		*err = first;
}
fail:
	sums_check(&sums, path, NULL);
	free(sums.sec);
	munmap((void *)ix->map, ix->size);
	free(ix);
	return -1;
}

void tix_index_close(struct tix_index *ix)
{
	if (!ix)
		return;
	munmap((void *)ix->map, ix->size);
	free(ix);
}

int tix_index_maps(const struct tix_index *ix, const void *addr)
{
	uintptr_t p = (uintptr_t)addr, m = (uintptr_t)ix->map;
	return p >= m && p - m < ix->size;
}

const char *tix_str(const struct tix_index *ix, uint32_t id)
{
	return id < ix->nstr ? ix->str_data + ix->str_off[id] : "";
}

uint32_t tix_str_len(const struct tix_index *ix, uint32_t id)
{
	return id < ix->nstr ? (uint32_t)(ix->str_off[id + 1] - ix->str_off[id] - 1) : 0;
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
	const struct tix_row_disk *r = &ix->rows[row];
	if (r->kind != TIX_KIND_CPU_OP || r->detail == TIX_NONE)
		return TIX_NONE;
	uint32_t op = ix->details[r->detail].op_info;
	if (op != TIX_NONE)
		*name = r->name;
	return op;
}

uint32_t tix_event_launch(const struct tix_index *ix, uint32_t row, int64_t *dur_ns)
{
	if (row >= ix->nrows || !tix_kind_is_gpu((enum tix_kind)ix->rows[row].kind) ||
	    ix->rows[row].link == TIX_NONE)
		return TIX_NONE;
	*dur_ns = dur_of(ix, row);
	return ix->rows[row].link;
}

uint32_t tix_event_ops_in(const struct tix_index *ix, uint32_t first, uint32_t n, uint32_t *rows,
                          uint32_t *ops, uint32_t *names)
{
	uint32_t k = 0, end = first < ix->nrows ? (n < ix->nrows - first ? first + n : ix->nrows) : first;
	for (uint32_t row = first; row < end; row++) {
		const struct tix_row_disk *r = &ix->rows[row];
		if (r->kind != TIX_KIND_CPU_OP || r->detail == TIX_NONE)
			continue;
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
	if (row >= ix->nrows || tix_kind_is_gpu((enum tix_kind)ix->rows[row].kind))
		return 0;
	return tix_rule_ancestors(&ix->view, row, out, cap);
}

uint32_t tix_event_ancestor_of_kind(const struct tix_index *ix, uint32_t row, enum tix_kind kind,
                                    uint32_t max)
{
	if (row >= ix->nrows || tix_kind_is_gpu((enum tix_kind)ix->rows[row].kind))
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

uint32_t tix_event_gpu_beneath(const struct tix_index *ix, uint32_t row)
{
	return row < ix->nrows ? ix->rows[row].gpu_beneath : 0;
}

enum tix_capture_match tix_event_capture(const struct tix_index *ix, uint32_t row,
                                         struct tix_capture_view *out)
{
	memset(out, 0, sizeof(*out));
	out->source = TIX_NONE;
	if (row >= ix->nrows || ix->rows[row].detail == TIX_NONE)
		return TIX_MATCH_NONE;
	const struct tix_detail_disk *d = &ix->details[ix->rows[row].detail];
	if (d->capture == TIX_NONE)
		return (enum tix_capture_match)d->capture_match;
	const struct tix_capture_chain_disk *c = &ix->cap_chains[d->capture];
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
		if (ix->name_forms[mid].raw < name)
			lo = mid + 1;
		else
			hi = mid;
	}
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
	return id < ix->nkinfos ? &ix->kinfos[id] : NULL;
}

const struct tix_op_info *tix_op_info_get(const struct tix_index *ix, uint32_t id)
{
	return id < ix->nopinfos ? &ix->opinfos[id] : NULL;
}

uint32_t tix_step_count(const struct tix_index *ix) { return ix->nsteps_real; }

uint32_t tix_step_before_trace(const struct tix_index *ix) { return ix->meta->before_trace_step; }

const struct tix_step *tix_step_get(const struct tix_index *ix, uint32_t s)
{
	return s < ix->nsteps ? &ix->steps[s] : NULL;
}

uint32_t tix_group_count(const struct tix_index *ix) { return ix->ngroups; }

const struct tix_group *tix_group_get(const struct tix_index *ix, uint32_t g)
{
	return g < ix->ngroups ? &ix->groups[g] : NULL;
}

const struct tix_group *tix_step_groups(const struct tix_index *ix, uint32_t s, uint32_t *count)
{
	if (s >= ix->nsteps) {
		*count = 0;
		return ix->step_groups;
	}
	*count = ix->steps[s].groups_count;
	return ix->step_groups + ix->steps[s].groups_first;
}

const uint32_t *tix_members(const struct tix_index *ix, uint32_t first, uint32_t count)
{
	if ((uint64_t)first + count > ix->nmembers)
		return NULL;
	return ix->members + first;
}

int64_t tix_total_gpu_ns(const struct tix_index *ix) { return ix->meta->total_gpu_ns; }

uint32_t tix_op_count(const struct tix_index *ix) { return ix->nops; }

const struct tix_op *tix_op_get(const struct tix_index *ix, uint32_t i)
{
	return i < ix->nops ? &ix->ops[i] : NULL;
}

const struct tix_op_group *tix_op_groups(const struct tix_index *ix, uint32_t op, uint32_t *count)
{
	if (op >= ix->nops) {
		*count = 0;
		return ix->op_groups;
	}
	*count = ix->ops[op].groups_count;
	return ix->op_groups + ix->ops[op].groups_first;
}
