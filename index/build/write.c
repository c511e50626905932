/* Writing the sections of a .tix (format.h) after the rows, which
 * place.c put in place already, and the header and section table last. */
#include "index/index.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "index/build/phases.h"

/* ---- checksums ---- */

/* The sums of a section's blocks (format.h) into out, tix_block_count of
 * them; returns the section's checksum, the hash of those sums. */
static uint64_t block_sums(const unsigned char *p, uint64_t size, uint32_t elem, uint64_t *out)
{
	uint64_t per = (uint64_t)elem << tix_block_shift(elem), n = tix_block_count(size, elem);
	for (uint64_t i = 0; i < n; i++)
		out[i] = tix_hash64(p + i * per, size - i * per < per ? size - i * per : per, 0);
	return tix_hash64(n ? (const void *)out : "", n * 8, 0);
}

void tix_format_resum(unsigned char *b, size_t n)
{
	struct tix_header_disk h;
	if (n < sizeof(h))
		return;
	memcpy(&h, b, sizeof(h));
	if (h.section_count > 1024 || sizeof(h) + (uint64_t)h.section_count * sizeof(struct tix_section_disk) > n)
		return;
	struct tix_section_disk *tab = malloc(h.section_count * sizeof(*tab) + 1);
	if (!tab)
		return;
	memcpy(tab, b + sizeof(h), h.section_count * sizeof(*tab));
	uint32_t sums_at = h.section_count; /* BLOCK_SUMS, if it lies inside b */
	for (uint32_t i = 0; i < h.section_count; i++)
		if (tab[i].id == TIX_SEC_BLOCK_SUMS && tab[i].offset <= n && tab[i].size <= n - tab[i].offset &&
		    tab[i].offset % 8 == 0 && sums_at == h.section_count)
			sums_at = i;
	uint64_t room = sums_at < h.section_count ? tab[sums_at].size / 8 : 0, used = 0;
	for (uint32_t i = 0; i < h.section_count; i++) {
		struct tix_section_disk *s = &tab[i];
		if (i == sums_at || s->offset > n || s->size > n - s->offset || s->elem_size == 0 ||
		    s->elem_size > TIX_BLOCK_BYTES)
			continue;
		uint64_t nb = tix_block_count(s->size, s->elem_size);
		uint64_t *sums = malloc(nb * 8 + 8);
		if (!sums)
			break;
		s->checksum = block_sums(b + s->offset, s->size, s->elem_size, sums);
		for (uint64_t k = 0; k < nb && used < room; k++, used++)
			memcpy(b + tab[sums_at].offset + used * 8, &sums[k], 8);
		free(sums);
	}
	if (sums_at < h.section_count)
		tab[sums_at].checksum = tix_hash64(b + tab[sums_at].offset, tab[sums_at].size, 0);
	memcpy(b + sizeof(h), tab, h.section_count * sizeof(*tab));
	free(tab);
	h.checksum = 0;
	memcpy(b, &h, sizeof(h));
	h.checksum = tix_hash64(b, sizeof(h) + h.section_count * sizeof(struct tix_section_disk), 0);
	memcpy(b, &h, sizeof(h));
}

int linker_sum_rows(struct linker *L, struct tix_error *err)
{
	const uint32_t elem = sizeof(struct tix_row_disk);
	uint64_t size = (uint64_t)L->nrows * elem;
	L->rows_sums = malloc(tix_block_count(size, elem) * 8 + 8);
	if (!L->rows_sums)
		return tix_error_oom(err, NULL);
	L->rows_checksum = block_sums(L->rows.base, size, elem, L->rows_sums);
	return 0;
}

/* ---- writing ---- */

struct out_section {
	uint32_t id, elem;
	const void *data;
	uint64_t size;
};

static int write_all(int fd, const void *p, size_t n, uint64_t off, const char *path,
                     struct tix_error *err)
{
	int e = file_pwrite(fd, p, n, off);
	return e ? tix_error_sys(err, e, "%s: cannot write the index", path) : 0;
}

int linker_write(struct linker *L, struct tix_error *err)
{
	struct tix_builder *b = L->b;
	struct tix_meta_disk meta;
	memset(&meta, 0, sizeof(meta));
	meta.source_size = b->opts.source_size;
	meta.source_mtime_ns = b->opts.source_mtime_ns;
	meta.source_hash = b->opts.source_hash;
	meta.source_dev = b->opts.source_dev;
	meta.source_ino = b->opts.source_ino;
	meta.source_ctime_ns = b->opts.source_ctime_ns;
	meta.base_time_ns = b->base_time_ns;
	meta.first_ns = L->first_ns;
	meta.last_ns = L->last_ns;
	meta.total_gpu_ns = L->total_gpu_ns;
	meta.source_path = intern_add(&b->c.strings, b->source_path, strlen(b->source_path));
	meta.step_marker = intern_add(&b->c.strings, b->step_marker, strlen(b->step_marker));
	/* What the producer said (a salvaged tail...), then what the phases
	 * noticed. */
	{
		const char *pw = b->c.warnings ? b->c.warnings : "";
		size_t pl = b->c.warnings ? b->c.warnings_len : 0, ll = L->warnings ? strlen(L->warnings) : 0;
		char *all = malloc(pl + ll + 3);
		if (!all)
			return tix_error_oom(err, NULL);
		memcpy(all, pw, pl);
		size_t n = pl;
		if (pl && ll)
			memcpy(all + n, "; ", 2), n += 2;
		if (ll)
			memcpy(all + n, L->warnings, ll), n += ll;
		all[n] = 0;
		meta.warnings = intern_add(&b->c.strings, all, n);
		free(all);
	}
	meta.step_rule = intern_add(&b->c.strings, L->step_rule, strlen(L->step_rule));
	meta.gpu_without_launch = L->gpu_without_launch;
	memcpy(meta.kind_counts, b->c.kind_counts, sizeof(meta.kind_counts));
	meta.before_trace_step = L->before_trace_step;
	meta.gpu_before_trace = L->gpu_before_trace;
	meta.corr_collisions = L->corr_collisions;
	meta.replayed = L->replayed;
	memcpy(meta.replayed_by_match, L->replayed_by_match, sizeof(meta.replayed_by_match));
	const char *srcs = L->capture_sources ? L->capture_sources : "";
	meta.capture_sources = intern_add(&b->c.strings, srcs, strlen(srcs));
	if (meta.source_path == TIX_NONE || meta.step_marker == TIX_NONE ||
	    meta.warnings == TIX_NONE || meta.step_rule == TIX_NONE ||
	    meta.capture_sources == TIX_NONE)
		return tix_error_oom(err, NULL);

	struct out_section secs[] = {
		{TIX_SEC_META, sizeof(meta), &meta, sizeof(meta)},
		{TIX_SEC_STRING_OFFSETS, 8, b->c.strings.offsets, (uint64_t)(b->c.strings.n + 1) * 8},
		{TIX_SEC_STRING_DATA, 1, b->c.strings.data, b->c.strings.data_len},
		{TIX_SEC_TRACKS, sizeof(struct tix_track), L->tracks,
		 (uint64_t)L->ntracks * sizeof(struct tix_track)},
		{TIX_SEC_ROWS, sizeof(struct tix_row_disk), L->rows.base,
		 (uint64_t)L->nrows * sizeof(struct tix_row_disk)},
		{TIX_SEC_DETAILS, sizeof(struct tix_detail_disk), b->c.details.recs,
		 (uint64_t)b->c.details.n * sizeof(struct tix_detail_disk)},
		{TIX_SEC_KERNEL_INFO, sizeof(struct tix_kernel_info), b->c.kinfos.recs,
		 (uint64_t)b->c.kinfos.n * sizeof(struct tix_kernel_info)},
		{TIX_SEC_OP_INFO, sizeof(struct tix_op_info), b->c.opinfos.recs,
		 (uint64_t)b->c.opinfos.n * sizeof(struct tix_op_info)},
		{TIX_SEC_LONG_DUR, sizeof(struct tix_long_dur_disk), L->long_durs,
		 (uint64_t)L->nlong * sizeof(struct tix_long_dur_disk)},
		{TIX_SEC_STEPS, sizeof(struct tix_step), L->steps,
		 (uint64_t)L->nsteps * sizeof(struct tix_step)},
		{TIX_SEC_GROUPS, sizeof(struct tix_group), L->groups,
		 (uint64_t)L->ngroups * sizeof(struct tix_group)},
		{TIX_SEC_STEP_GROUPS, sizeof(struct tix_group), L->step_groups,
		 (uint64_t)L->nstep_groups * sizeof(struct tix_group)},
		{TIX_SEC_MEMBERS, 4, L->members.base, (uint64_t)L->members.n * 4},
		{TIX_SEC_OPS, sizeof(struct tix_op), L->ops, (uint64_t)L->nops * sizeof(struct tix_op)},
		{TIX_SEC_OP_GROUPS, sizeof(struct tix_op_group), L->op_groups,
		 (uint64_t)L->nop_groups * sizeof(struct tix_op_group)},
		{TIX_SEC_TOP_META, 8, b->c.top_meta, (uint64_t)b->c.ntop_meta * 8},
		{TIX_SEC_CHAINS, sizeof(struct tix_chain_disk), L->chains.base,
		 (uint64_t)L->chains.n * sizeof(struct tix_chain_disk)},
		{TIX_SEC_CHAIN_ROWS, 4, L->chain_rows.base, (uint64_t)L->chain_rows.n * 4},
		{TIX_SEC_NAME_FORMS, sizeof(struct tix_name_form_disk), L->name_forms,
		 (uint64_t)L->nname_forms * sizeof(struct tix_name_form_disk)},
		{TIX_SEC_CAPTURE_CHAINS, sizeof(struct tix_capture_chain_disk), b->c.captures.chains,
		 (uint64_t)b->c.captures.nchains * sizeof(struct tix_capture_chain_disk)},
		{TIX_SEC_CAPTURE_FRAMES, sizeof(struct tix_capture_frame), b->c.captures.frames,
		 (uint64_t)b->c.captures.nframes * sizeof(struct tix_capture_frame)},
		{TIX_SEC_NAMES, sizeof(struct tix_names_disk), L->names.base,
		 (uint64_t)L->names.n * sizeof(struct tix_names_disk)},
		{TIX_SEC_NAME_ROWS, 4, L->name_rows.base, (uint64_t)L->name_rows.n * 4},
		{TIX_SEC_BREAKDOWNS, sizeof(struct tix_breakdown), L->breakdowns,
		 ((uint64_t)L->nsteps + 1) * sizeof(struct tix_breakdown)},
		{TIX_SEC_STREAM_IDLE, sizeof(struct tix_stream_idle), L->stream_idle,
		 (uint64_t)L->nstream_idle * sizeof(struct tix_stream_idle)},
		{TIX_SEC_SYNCS, sizeof(struct tix_sync), L->syncs, (uint64_t)L->nsyncs * sizeof(struct tix_sync)},
		{TIX_SEC_OP_SHAPES, sizeof(struct tix_op_shape), L->op_shapes,
		 (uint64_t)L->nop_shapes * sizeof(struct tix_op_shape)},
		{TIX_SEC_STEP_OP_SHAPES, sizeof(struct tix_op_shape), L->step_op_shapes,
		 (uint64_t)L->nstep_op_shapes * sizeof(struct tix_op_shape)},
		{TIX_SEC_OP_SHAPE_GROUPS, sizeof(struct tix_op_group), L->op_shape_groups,
		 (uint64_t)L->nop_shape_groups * sizeof(struct tix_op_group)},
		{TIX_SEC_OP_MODELS, sizeof(struct tix_op_model), L->op_models,
		 (uint64_t)L->nops * sizeof(struct tix_op_model)},
		{TIX_SEC_BLOCK_SUMS, 8, NULL, 0}, /* last: the sums of all the others */
	};
	enum { NSEC = sizeof(secs) / sizeof(secs[0]) };
	uint64_t nsums = 0;
	for (int i = 0; i < NSEC - 1; i++)
		nsums += tix_block_count(secs[i].size, secs[i].elem);
	uint64_t *sums = malloc(nsums * 8 + 8);
	if (!sums)
		return tix_error_oom(err, NULL);
	secs[NSEC - 1].data = sums;
	secs[NSEC - 1].size = nsums * 8;
	_Static_assert((int)NSEC == (int)TIX_SECTION_COUNT, "every section of format.h is written");
	struct tix_section_disk table[NSEC];
	_Static_assert(sizeof(struct tix_header_disk) + sizeof(table) <= ROWS_OFFSET,
	               "header and table fit before the rows");
	uint64_t off = sizeof(struct tix_header_disk) + sizeof(table), done = 0;
	if (L->out_rows_mapped) /* ROWS is in place already; the rest follows it */
		off = ROWS_OFFSET + (uint64_t)L->nrows * sizeof(struct tix_row_disk);
	/* The blocks of the whole file are reserved before the sections are
	 * written: ext4 writes out a new file's delayed blocks when it is
	 * renamed over an old one (auto_da_alloc), which took 0.05-0.1 s of a
	 * 45 MB index rebuilt in place; reserved blocks are not delayed. */
	uint64_t end = off;
	for (int i = 0; i < NSEC; i++)
		if (!(secs[i].id == TIX_SEC_ROWS && L->out_rows_mapped))
			end = ((end + TIX_SECTION_ALIGN - 1) & ~(uint64_t)(TIX_SECTION_ALIGN - 1)) + secs[i].size;
	if (file_reserve(&b->budget, b->out_fd, 0, end, err, "%s: cannot write the index", b->out_path) != 0) {
		free(sums);
		return -1;
	}
	for (int i = 0; i < NSEC; i++) {
		int in_place = secs[i].id == TIX_SEC_ROWS && L->out_rows_mapped;
		uint64_t at = in_place ? ROWS_OFFSET
		                       : (off + TIX_SECTION_ALIGN - 1) & ~(uint64_t)(TIX_SECTION_ALIGN - 1);
		table[i].id = secs[i].id;
		table[i].elem_size = tix_section_elem[secs[i].id];
		if (secs[i].elem != tix_section_elem[secs[i].id]) {
			free(sums);
			return tix_error_set(err, "internal: section %u written with records of %u bytes",
			                     secs[i].id, secs[i].elem);
		}
		table[i].offset = at;
		table[i].size = secs[i].size;
		if (secs[i].id == TIX_SEC_BLOCK_SUMS) {
			table[i].checksum = tix_hash64(sums, nsums * 8, 0);
		} else {
			uint64_t nb = tix_block_count(secs[i].size, secs[i].elem);
			if (secs[i].id == TIX_SEC_ROWS && L->rows_sums) { /* row-sums did it */
				memcpy(sums + done, L->rows_sums, nb * 8);
				table[i].checksum = L->rows_checksum;
			} else {
				table[i].checksum = block_sums(secs[i].data, secs[i].size, secs[i].elem, sums + done);
			}
			done += nb;
		}
		if (in_place)
			continue;
		if (secs[i].size &&
		    write_all(b->out_fd, secs[i].data, secs[i].size, at, b->out_path, err) != 0) {
			free(sums);
			return -1;
		}
		off = at + secs[i].size;
	}
	free(sums);
	struct tix_header_disk h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, TIX_MAGIC, 8);
	h.version = TIX_FORMAT_VERSION;
	h.min_reader_version = TIX_MIN_READER_VERSION;
	h.header_size = sizeof(h);
	h.endian = TIX_ENDIAN_MARK;
	h.section_count = NSEC;
	h.section_table_offset = sizeof(h);
	h.file_size = off;
	unsigned char hb[sizeof(h) + sizeof(table)];
	memcpy(hb, &h, sizeof(h));
	memcpy(hb + sizeof(h), table, sizeof(table));
	h.checksum = tix_hash64(hb, sizeof(hb), 0);
	memcpy(hb, &h, sizeof(h));
	if (write_all(b->out_fd, hb, sizeof(hb), 0, b->out_path, err) != 0)
		return -1;
	if (ftruncate(b->out_fd, (off_t)off) != 0)
		return tix_error_sys(err, errno, "%s", b->out_path);
	return 0;
}

