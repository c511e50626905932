/* tix dump: what a .tix holds, section by section, record by record, in a
 * text form that stays the same for the same file (tests diff it; people
 * read it instead of a hex editor).  docs/CLI.md shows the form.
 *
 * Every record is read through the reader: the whole file is checked first
 * (tix_index_check_all, the checks every query makes), the blocks of
 * sections this reader does not know against their block sums, so a
 * damaged file gives the reader's one line and nothing is printed.
 *
 * Each section of format.h's TIX_SECTIONS has a field list below, named
 * fields_NAME: a section added there without one does not compile, and a
 * list that does not cover its record byte for byte is refused at run time
 * (fields_cover), so a struct that grows cannot be dumped wrong silently.
 * The lists live here, not beside the structs in format.h and index.h: the
 * readers of those headers have no use for them. */
#include "index/index.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "index/reader_int.h"

/* The tables below are laid out by hand, a row per line of meaning. */
/* clang-format off */
enum ftype {
	F_U8, F_U16, F_U32, F_I32, F_U64, F_I64,
	F_X32, F_X64,  /* hexadecimal: marks, hashes, checksums */
	F_F32, F_F64,
	F_STR,         /* u32 string id, followed by the string; TIX_NONE: none */
	F_REF,         /* u32 record or row number; TIX_NONE: none */
	F_KIND,        /* u8 enum tix_kind, by its label */
	F_MATCH,       /* u8 enum tix_capture_match, by its label */
	F_FLAGS,       /* u8 bits, hexadecimal */
	F_CHARS,       /* bytes of text (the magic) */
	F_PAD,         /* padding and reserved bytes: shown only when not zero */
};

static const unsigned char width[] = {
	[F_U8] = 1, [F_U16] = 2, [F_U32] = 4, [F_I32] = 4, [F_U64] = 8, [F_I64] = 8,
	[F_X32] = 4, [F_X64] = 8, [F_F32] = 4, [F_F64] = 8, [F_STR] = 4, [F_REF] = 4,
	[F_KIND] = 1, [F_MATCH] = 1, [F_FLAGS] = 1, [F_CHARS] = 1, [F_PAD] = 1,
};

struct field {
	const char *name;
	unsigned short off, size; /* bytes; size / width[type] values (an array when > 1) */
	unsigned char type;
};

#define F(S, m, t) {#m, offsetof(S, m), sizeof(((S *)0)->m), t}
#define AT(name, off, size, t) {name, off, size, t}

static const struct field fields_header[] = {
	F(struct tix_header_disk, magic, F_CHARS),
	F(struct tix_header_disk, version, F_U32),
	F(struct tix_header_disk, min_reader_version, F_U32),
	F(struct tix_header_disk, header_size, F_U32),
	F(struct tix_header_disk, endian, F_X32),
	F(struct tix_header_disk, section_count, F_U32),
	F(struct tix_header_disk, flags, F_X32),
	F(struct tix_header_disk, section_table_offset, F_U64),
	F(struct tix_header_disk, file_size, F_U64),
	F(struct tix_header_disk, checksum, F_X64),
	F(struct tix_header_disk, reserved, F_PAD),
};

static const struct field fields_table[] = {
	F(struct tix_section_disk, id, F_U32),
	F(struct tix_section_disk, elem_size, F_U32),
	F(struct tix_section_disk, offset, F_U64),
	F(struct tix_section_disk, size, F_U64),
	F(struct tix_section_disk, checksum, F_X64),
};

#define M(m, t) F(struct tix_meta_disk, m, t)
static const struct field fields_META[] = {
	M(source_size, F_U64), M(source_mtime_ns, F_I64), M(source_hash, F_X64),
	M(base_time_ns, F_I64), M(first_ns, F_I64), M(last_ns, F_I64), M(total_gpu_ns, F_I64),
	M(source_path, F_STR), M(step_marker, F_STR), M(warnings, F_STR), M(step_rule, F_STR),
	M(gpu_without_launch, F_U32), M(kind_counts, F_U32), M(before_trace_step, F_REF),
	M(gpu_before_trace, F_U32), M(corr_collisions, F_U32), M(replayed, F_U32),
	M(replayed_by_match, F_U32), M(capture_sources, F_STR), M(source_dev, F_U64),
	M(source_ino, F_U64), M(source_ctime_ns, F_I64), M(reserved, F_PAD),
};
#undef M

static const struct field fields_STRING_OFFSETS[] = {AT("offset", 0, 8, F_U64)};
/* listed by string, not by byte (dump_strings) */
static const struct field fields_STRING_DATA[] = {AT("byte", 0, 1, F_U8)};

#define T(m, t) F(struct tix_track, m, t)
static const struct field fields_TRACKS[] = {
	T(pid, F_I64), T(tid, F_I64), T(pid_str, F_STR), T(tid_str, F_STR), T(name, F_STR),
	T(process_name, F_STR), T(first_row, F_U32), T(row_count, F_U32), T(device, F_I32),
	T(stream, F_I32), T(sort_index, F_I32), T(kind, F_U8), T(pad, F_PAD),
};
#undef T

#define R(m, t) F(struct tix_row_disk, m, t)
static const struct field fields_ROWS[] = {
	R(start_ns, F_I64), R(dur_ns, F_U32), R(name, F_STR), R(track, F_U32), R(detail, F_REF),
	R(link, F_REF), R(kind, F_KIND), R(flags, F_FLAGS), R(gpu_beneath, F_U16),
};
#undef R

#define D(m, t) F(struct tix_detail_disk, m, t)
static const struct field fields_DETAILS[] = {
	D(cat, F_STR), D(args, F_STR), D(kernel_info, F_REF), D(op_info, F_REF), D(capture, F_REF),
	D(capture_match, F_MATCH), D(pad, F_PAD),
};
#undef D

#define K(m, t) F(struct tix_kernel_info, m, t)
static const struct field fields_KERNEL_INFO[] = {
	K(grid, F_I32), K(block, F_I32), K(registers, F_I32), K(shared_mem, F_I32),
	K(dynamic_shared, F_I32), K(blocks_per_sm, F_F32), K(warps_per_sm, F_F32),
	K(occupancy, F_F32), K(device, F_I32), K(context, F_I32), K(stream, F_I32),
	K(graph_id, F_U32), K(bytes, F_I64),
};
#undef K

#define O(m, t) F(struct tix_op_info, m, t)
static const struct field fields_OP_INFO[] = {
	O(dims, F_STR), O(types, F_STR), O(strides, F_STR), O(concrete, F_STR),
};
#undef O

static const struct field fields_LONG_DUR[] = {
	F(struct tix_long_dur_disk, row, F_REF),
	F(struct tix_long_dur_disk, pad, F_PAD),
	F(struct tix_long_dur_disk, dur_ns, F_I64),
};

#define S(m, t) F(struct tix_step, m, t)
static const struct field fields_STEPS[] = {
	S(name, F_STR), S(marker_row, F_REF), S(start_ns, F_I64), S(dur_ns, F_I64),
	S(gpu_busy_ns, F_I64), S(gpu_ns, F_I64), S(kernels, F_U32), S(gpu_events, F_U32),
	S(groups_first, F_U32), S(groups_count, F_U32), S(top_group, F_REF),
	S(comm_kernels, F_U32), S(compute_busy_ns, F_I64), S(comm_busy_ns, F_I64),
};
#undef S

#define G(m, t) F(struct tix_group, m, t)
static const struct field fields_GROUPS[] = {
	G(name, F_STR), G(kind, F_KIND), G(pad, F_PAD), G(instances, F_U32), G(common_info, F_REF),
	G(total_ns, F_I64), G(min_ns, F_I64), G(max_ns, F_I64), G(med_ns, F_I64),
	G(stddev_ns, F_F64), G(members_first, F_U32), G(members_count, F_U32), G(group, F_REF),
	G(step, F_REF),
};
#undef G
#define fields_STEP_GROUPS fields_GROUPS

/* lists of rows */
static const struct field fields_MEMBERS[] = {AT("row", 0, 4, F_REF)};
#define fields_CHAIN_ROWS fields_MEMBERS
#define fields_NAME_ROWS fields_MEMBERS

#define P(m, t) F(struct tix_op, m, t)
static const struct field fields_OPS[] = {
	P(name, F_STR), P(calls, F_U32), P(cpu_ns, F_I64), P(gpu_ns, F_I64), P(gpu_events, F_U32),
	P(groups_first, F_U32), P(groups_count, F_U32), P(pad, F_PAD),
};
#undef P

static const struct field fields_OP_GROUPS[] = {
	F(struct tix_op_group, group, F_REF),
	F(struct tix_op_group, count, F_U32),
	F(struct tix_op_group, gpu_ns, F_I64),
};

/* the trace's top-level keys: (key, JSON value) string pairs */
static const struct field fields_TOP_META[] = {AT("key", 0, 4, F_STR), AT("json", 4, 4, F_STR)};

static const struct field fields_CHAINS[] = {
	F(struct tix_chain_disk, row, F_REF),
	F(struct tix_chain_disk, first, F_U32),
	F(struct tix_chain_disk, count, F_U32),
	F(struct tix_chain_disk, pad, F_PAD),
};

static const struct field fields_NAME_FORMS[] = {
	F(struct tix_name_form_disk, raw, F_STR),
	F(struct tix_name_form_disk, full, F_STR),
	F(struct tix_name_form_disk, shortened, F_STR),
	F(struct tix_name_form_disk, pad, F_PAD),
};

static const struct field fields_CAPTURE_CHAINS[] = {
	F(struct tix_capture_chain_disk, first, F_U32),
	F(struct tix_capture_chain_disk, count, F_U32),
	F(struct tix_capture_chain_disk, source, F_STR),
	F(struct tix_capture_chain_disk, pad, F_PAD),
};

static const struct field fields_CAPTURE_FRAMES[] = {
	F(struct tix_capture_frame, name, F_STR),
	F(struct tix_capture_frame, dims, F_STR),
	F(struct tix_capture_frame, types, F_STR),
	F(struct tix_capture_frame, kind, F_KIND),
	F(struct tix_capture_frame, pad, F_PAD),
};

/* the block sums; dump_section adds the section and block each is of */
static const struct field fields_BLOCK_SUMS[] = {AT("sum", 0, 8, F_X64)};

static const struct field fields_NAMES[] = {
	F(struct tix_names_disk, name, F_STR),
	F(struct tix_names_disk, first, F_U32),
	F(struct tix_names_disk, count, F_U32),
	F(struct tix_names_disk, pad, F_PAD),
};

/* Format 5's sections: what findings read (docs/FORMAT.md, 25-31). */
#define B(m, t) F(struct tix_breakdown, m, t)
static const struct field fields_BREAKDOWNS[] = {
	B(span_start, F_I64), B(span_end, F_I64), B(busy_ns, F_I64), B(compute_ns, F_I64),
	B(comm_ns, F_I64), B(memory_ns, F_I64), B(idle_ns, F_I64), B(overlap_ns, F_I64),
	B(idle_host_ns, F_I64), B(idle_kernel_ns, F_I64), B(idle_other_ns, F_I64),
	B(idle_sync_ns, F_I64), B(launch_bound_idle_ns, F_I64), B(gpu_ns, F_I64),
	B(pageable_ns, F_I64), B(sync_cpu_ns, F_I64), B(gpu_events, F_U32), B(gaps, F_U32),
	B(launch_bound_kernels, F_U32), B(pageable_copies, F_U32), B(sync_calls, F_U32),
	B(streams_first, F_U32), B(streams_count, F_U32), B(syncs_first, F_U32),
	B(syncs_count, F_U32), B(shapes_first, F_U32), B(shapes_count, F_U32), B(pad, F_PAD),
};
#undef B

#define I(m, t) F(struct tix_stream_idle, m, t)
static const struct field fields_STREAM_IDLE[] = {
	I(track, F_REF), I(step, F_REF), I(gaps, F_U32), I(longest_gap_row, F_REF),
	I(host_wait_ns, F_I64), I(kernel_wait_ns, F_I64), I(other_ns, F_I64),
	I(longest_gap_ns, F_I64), I(launch_bound_idle_ns, F_I64),
};
#undef I

#define Y(m, t) F(struct tix_sync, m, t)
static const struct field fields_SYNCS[] = {
	Y(step, F_REF), Y(call, F_STR), Y(op, F_STR), Y(count, F_U32), Y(cpu_ns, F_I64),
	Y(idle_ns, F_I64), Y(example_row, F_REF), Y(pad, F_PAD),
};
#undef Y

#define H(m, t) F(struct tix_op_shape, m, t)
static const struct field fields_OP_SHAPES[] = {
	H(name, F_STR), H(op_info, F_REF), H(step, F_REF), H(shape, F_REF), H(calls, F_U32),
	H(calls_in_steps, F_U32), H(gpu_events, F_U32), H(example_row, F_REF), H(gpu_ns, F_I64),
	H(groups_first, F_REF), H(groups_count, F_U32), H(cls, F_U8), H(pad, F_PAD),
};
#undef H
#define fields_STEP_OP_SHAPES fields_OP_SHAPES
#define fields_OP_SHAPE_GROUPS fields_OP_GROUPS

#define L(m, t) F(struct tix_op_model, m, t)
static const struct field fields_OP_MODELS[] = {
	L(flops, F_F64), L(bytes, F_F64), L(gpu_ns, F_I64), L(calls, F_U32), L(cls, F_U8),
	L(peak, F_U8), L(mixed, F_U8), L(pad, F_PAD),
};
#undef L

/* clang-format on */

struct fields {
	const char *name;
	const struct field *f;
	unsigned n;
};

/* One row per section of format.h, by id. */
static const struct fields sections[TIX_SEC_MAX + 1] = {
#define DUMP_SECTION(name, id, size) \
	[id] = {#name, fields_##name, sizeof(fields_##name) / sizeof(fields_##name[0])},
	TIX_SECTIONS(DUMP_SECTION)
#undef DUMP_SECTION
};

/* 0 when every list covers its record exactly, field after field. */
static int fields_cover(const struct field *f, unsigned n, size_t size, const char *what,
                        struct tix_error *err)
{
	size_t at = 0;
	for (unsigned i = 0; i < n; i++) {
		if (f[i].off != at || f[i].size == 0 || f[i].size % width[f[i].type])
			return tix_error_set(err,
			                     "internal: tix dump's fields of %s: %s at byte %u, "
			                     "expected %zu",
			                     what, f[i].name, f[i].off, at);
		at += f[i].size;
	}
	if (at != size)
		return tix_error_set(err,
		                     "internal: tix dump's fields of %s cover %zu of its %zu bytes",
		                     what, at, size);
	return 0;
}

static int all_fields_cover(struct tix_error *err)
{
	if (fields_cover(fields_header, sizeof(fields_header) / sizeof(fields_header[0]),
	                 sizeof(struct tix_header_disk), "the header", err) != 0 ||
	    fields_cover(fields_table, sizeof(fields_table) / sizeof(fields_table[0]),
	                 sizeof(struct tix_section_disk), "the section table", err) != 0)
		return -1;
	for (unsigned id = 1; id <= TIX_SEC_MAX; id++)
		if (sections[id].name &&
		    fields_cover(sections[id].f, sections[id].n, tix_section_elem[id],
		                 sections[id].name, err) != 0)
			return -1;
	return 0;
}

/* How much of a string a record shows after its id: its first bytes, then
 * `...` after the closing quote when there is more (STRING_DATA shows it
 * whole).  Kernel names and args run to kilobytes and repeat. */
#define SHOWN 64

/* s[0..n) in double quotes: printable text as it is, '"' and '\' after a
 * backslash, the rest as tix_printable() writes it (\xNN).  At most about
 * cap bytes of s, cut between characters and then followed by "...". */
static void put_quoted(FILE *out, const char *s, size_t n, size_t cap)
{
	const unsigned char *p = (const unsigned char *)s;
	putc('"', out);
	size_t i = 0;
	while (i < n && i < cap) {
		unsigned char c = p[i];
		if (c >= 0x20 && c < 0x7f) {
			if (c == '"' || c == '\\')
				putc('\\', out);
			putc(c, out);
			i++;
			continue;
		}
		if (c == 0) { /* tix_printable stops there */
			fputs("\\x00", out);
			i++;
			continue;
		}
		size_t len = tix_utf8_len(p + i, n - i);
		char piece[5] = {0}, shown[24];
		memcpy(piece, p + i, len ? len : 1);
		fputs(tix_printable(piece, shown, sizeof shown), out);
		i += len ? len : 1;
	}
	fputs(i < n ? "\"..." : "\"", out);
}

static void put_value(const struct tix_index *ix, FILE *out, enum ftype t, const unsigned char *p)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;
	float f32;
	double f64;
	switch (t) {
	case F_U8:
	case F_FLAGS:
	case F_KIND:
	case F_MATCH:
	case F_CHARS:
	case F_PAD:
		memcpy(&u8, p, 1);
		if (t == F_KIND && u8 < TIX_KIND_COUNT)
			fputs(tix_kind_label((enum tix_kind)u8), out);
		else if (t == F_MATCH && u8 < TIX_MATCH_COUNT)
			fputs(tix_capture_match_label((enum tix_capture_match)u8), out);
		else
			fprintf(out, t == F_FLAGS || t == F_PAD ? "0x%02x" : "%u", u8);
		break;
	case F_U16:
		memcpy(&u16, p, 2);
		fprintf(out, "%u", u16);
		break;
	case F_U32:
	case F_I32:
	case F_X32:
	case F_STR:
	case F_REF:
		memcpy(&u32, p, 4);
		if ((t == F_STR || t == F_REF) && u32 == TIX_NONE) {
			fputs("none", out);
		} else if (t == F_I32) {
			fprintf(out, "%" PRId32, (int32_t)u32);
		} else if (t == F_X32) {
			fprintf(out, "0x%08" PRIx32, u32);
		} else {
			fprintf(out, "%" PRIu32, u32);
			if (t == F_STR) {
				putc(' ', out);
				put_quoted(out, tix_str(ix, u32), tix_str_len(ix, u32), SHOWN);
			}
		}
		break;
	case F_U64:
	case F_I64:
	case F_X64:
		memcpy(&u64, p, 8);
		if (t == F_I64)
			fprintf(out, "%" PRId64, (int64_t)u64);
		else
			fprintf(out, t == F_X64 ? "0x%016" PRIx64 : "%" PRIu64, u64);
		break;
	case F_F32:
		memcpy(&f32, p, 4);
		fprintf(out, "%.9g", (double)f32);
		break;
	case F_F64:
		memcpy(&f64, p, 8);
		fprintf(out, "%.17g", f64);
		break;
	}
}

/* " name=value" for each field of the record at rec; arrays as [a,b,c]. */
static void put_fields(const struct tix_index *ix, FILE *out, const struct field *f, unsigned n,
                       const unsigned char *rec)
{
	for (unsigned i = 0; i < n; i++) {
		const unsigned char *p = rec + f[i].off;
		unsigned w = width[f[i].type], count = f[i].size / w;
		if (f[i].type == F_CHARS) {
			fprintf(out, " %s=", f[i].name);
			put_quoted(out, (const char *)p, strnlen((const char *)p, f[i].size),
			           f[i].size);
			continue;
		}
		if (f[i].type == F_PAD) { /* the writer zeroes them: shown when it did not */
			unsigned k = 0;
			while (k < f[i].size && p[k] == 0)
				k++;
			if (k == f[i].size)
				continue;
		}
		fprintf(out, " %s=%s", f[i].name, count > 1 ? "[" : "");
		for (unsigned k = 0; k < count; k++) {
			if (k)
				putc(',', out);
			put_value(ix, out, (enum ftype)f[i].type, p + (size_t)k * w);
		}
		if (count > 1)
			putc(']', out);
	}
}

/* The file's section table, with what the dump adds to each entry. */
struct entry {
	struct tix_section_disk s;
	const char *name; /* format.h's, NULL for an id this tix does not know */
	uint64_t nrec, nblocks;
	uint64_t first_sum; /* its first block's place in BLOCK_SUMS */
};

struct dump {
	const struct tix_index *ix;
	FILE *out;
	struct tix_header_disk h;
	struct entry *e;      /* h.section_count of them, in the file's order */
	const uint64_t *sums; /* BLOCK_SUMS */
	uint64_t nsums;
};

static int known(uint32_t id)
{
	return id <= TIX_SEC_MAX && sections[id].name;
}

/* Reads the table (the reader checked its bounds at open) and checks the
 * blocks of the sections it does not know against their sums, as it checks
 * the others'. */
static int read_entries(struct dump *d, struct tix_error *err)
{
	const struct tix_index *ix = d->ix;
	memcpy(&d->h, ix->map, sizeof(d->h));
	d->e = calloc(d->h.section_count, sizeof(*d->e));
	if (!d->e)
		return tix_error_oom(err, ix->path);
	uint64_t at = 0;
	for (uint32_t i = 0; i < d->h.section_count; i++) {
		struct entry *e = &d->e[i];
		memcpy(&e->s, ix->map + d->h.section_table_offset + (uint64_t)i * sizeof(e->s),
		       sizeof(e->s));
		e->name = known(e->s.id) ? sections[e->s.id].name : NULL;
		e->nrec = e->s.size / e->s.elem_size;
		if (e->s.id == TIX_SEC_BLOCK_SUMS) {
			d->sums = (const uint64_t *)(const void *)(ix->map + e->s.offset);
			d->nsums = e->nrec;
			continue;
		}
		e->nblocks = tix_block_count(e->s.size, e->s.elem_size);
		e->first_sum = at;
		at += e->nblocks;
	}
	for (uint32_t i = 0; i < d->h.section_count; i++) {
		const struct entry *e = &d->e[i];
		if (e->name)
			continue;
		uint64_t per = (uint64_t)e->s.elem_size << tix_block_shift(e->s.elem_size);
		for (uint64_t b = 0; b < e->nblocks; b++) {
			uint64_t lo = b * per, n = e->s.size - lo < per ? e->s.size - lo : per;
			if (tix_hash64(ix->map + e->s.offset + lo, (size_t)n, 0) !=
			    d->sums[e->first_sum + b])
				return tix_error_set(
					err,
					"%s: damaged index (checksum of section %u, block %llu)",
					ix->path, e->s.id, (unsigned long long)b);
		}
	}
	return 0;
}

/* "ROWS", or "UNKNOWN_40" for an id this tix does not know. */
static const char *entry_name(const struct entry *e, char *buf, size_t cap)
{
	if (e->name)
		return e->name;
	snprintf(buf, cap, "UNKNOWN_%u", e->s.id);
	return buf;
}

/* BLOCK_SUMS[i]'s section and block: the sums follow the table's order. */
static void put_sum_owner(const struct dump *d, uint64_t i)
{
	for (uint32_t k = 0; k < d->h.section_count; k++) {
		const struct entry *e = &d->e[k];
		if (e->s.id != TIX_SEC_BLOCK_SUMS && i >= e->first_sum &&
		    i - e->first_sum < e->nblocks) {
			char nb[32];
			fprintf(d->out, " section=%s block=%" PRIu64, entry_name(e, nb, sizeof nb),
			        i - e->first_sum);
			return;
		}
	}
}

static void dump_strings(const struct dump *d)
{
	const struct tix_index *ix = d->ix;
	for (uint32_t id = 0; id < ix->nstr; id++) {
		uint32_t len = tix_str_len(ix, id);
		const char *s = tix_str(ix, id);
		fprintf(d->out, "STRING_DATA[%" PRIu32 "] offset=%td length=%" PRIu32 " ", id,
		        s - ix->str_data, len);
		put_quoted(d->out, s, len, len);
		putc('\n', d->out);
	}
}

static void dump_section(const struct dump *d, const struct entry *e)
{
	const struct tix_index *ix = d->ix;
	FILE *out = d->out;
	char nb[32];
	const char *name = entry_name(e, nb, sizeof nb);
	const unsigned char *base = ix->map + e->s.offset;
	if (e->s.id == TIX_SEC_STRING_DATA) { /* by string: the bytes are their text */
		fprintf(out,
		        "\nsection %s id=%u elem_size=%u bytes=%" PRIu64 " strings=%" PRIu32 "\n",
		        name, e->s.id, e->s.elem_size, e->nrec, ix->nstr);
		dump_strings(d);
		return;
	}
	fprintf(out, "\nsection %s id=%u elem_size=%u records=%" PRIu64 "\n", name, e->s.id,
	        e->s.elem_size, e->nrec);
	for (uint64_t i = 0; i < e->nrec; i++) {
		const unsigned char *rec = base + i * e->s.elem_size;
		fprintf(out, "%s[%" PRIu64 "]", name, i);
		if (!e->name) { /* a later version's section: its bytes */
			fputs(" bytes=", out);
			for (uint32_t k = 0; k < e->s.elem_size; k++)
				fprintf(out, "%02x", rec[k]);
		} else {
			if (e->s.id != TIX_SEC_BLOCK_SUMS) /* checked whole at open */
				need1(ix, e->s.id, i);
			put_fields(ix, out, sections[e->s.id].f, sections[e->s.id].n, rec);
			if (e->s.id == TIX_SEC_BLOCK_SUMS)
				put_sum_owner(d, i);
		}
		putc('\n', out);
	}
}

static void dump_head(const struct dump *d)
{
	FILE *out = d->out;
	fputs("header", out);
	put_fields(d->ix, out, fields_header, sizeof(fields_header) / sizeof(fields_header[0]),
	           d->ix->map);
	putc('\n', out);
	for (uint32_t i = 0; i < d->h.section_count; i++) {
		const struct entry *e = &d->e[i];
		char nb[32];
		fprintf(out, "table[%" PRIu32 "] name=%s", i, entry_name(e, nb, sizeof nb));
		put_fields(d->ix, out, fields_table, sizeof(fields_table) / sizeof(fields_table[0]),
		           (const unsigned char *)&e->s);
		fprintf(out, " records=%" PRIu64 " blocks=%" PRIu64 "\n", e->nrec,
		        e->s.id == TIX_SEC_BLOCK_SUMS ? 0 : e->nblocks);
	}
}

/* The entry section names (a name of format.h in any case, UNKNOWN_N, or
 * an id), or -1. */
static long find_entry(const struct dump *d, const char *section)
{
	char *end;
	errno = 0;
	unsigned long id = strtoul(section, &end, 10);
	int by_id = section[0] >= '0' && section[0] <= '9' && !*end && !errno;
	for (uint32_t i = 0; i < d->h.section_count; i++) {
		char nb[32];
		if (by_id ? d->e[i].s.id == id
		          : !strcasecmp(entry_name(&d->e[i], nb, sizeof nb), section))
			return i;
	}
	return -1;
}

static int no_such_section(const struct dump *d, const char *section, struct tix_error *err)
{
	char list[400];
	size_t n = 0;
	list[0] = '\0';
	for (uint32_t i = 0; i < d->h.section_count && n < sizeof list; i++) {
		char nb[32];
		int k = snprintf(list + n, sizeof list - n, "%s%s", i ? " " : "",
		                 entry_name(&d->e[i], nb, sizeof nb));
		n += k > 0 ? (size_t)k : 0;
	}
	tix_error_set(err, "%s: no section '%s' (it has: %s; or give an id)", d->ix->path, section,
	              list);
	return 1;
}

int tix_index_dump(const struct tix_index *ix, const char *section, FILE *out,
                   struct tix_error *err)
{
	struct dump d = {.ix = ix, .out = out};
	if (all_fields_cover(err) != 0 || tix_index_check_all(ix, err) != 0 ||
	    read_entries(&d, err) != 0) {
		free(d.e);
		return -1;
	}
	long only = section ? find_entry(&d, section) : -1;
	if (section && only < 0) {
		int rc = no_such_section(&d, section, err);
		free(d.e);
		return rc;
	}
	if (!section) {
		fputs("file ", out);
		put_quoted(out, ix->path, strlen(ix->path), SIZE_MAX);
		putc('\n', out);
		dump_head(&d);
	}
	for (uint32_t i = 0; i < d.h.section_count; i++)
		if (only < 0 || (long)i == only)
			dump_section(&d, &d.e[i]);
	free(d.e);
	if (fflush(out) != 0 || ferror(out))
		return tix_error_errno(err, errno ? errno : EIO, "%s: writing its dump", ix->path);
	return 0;
}
