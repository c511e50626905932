/*
 * The .tix file layout, version 4.  Private to index/: builder.c writes it,
 * reader.c checks and maps it.  docs/FORMAT.md is the long form.
 *
 *   offset 0                                                        64
 *   +--------+---------+---------+--------+--------+-------+--------+
 *   | "TIXINDEX" | version | min_reader | hdr_size | endian | nsect | ...
 *   +--------+---------+---------+--------+--------+-------+--------+
 *   | section table: nsect x struct tix_section_disk (32 bytes each) |
 *   +---------------------------------------------------------------+
 *   | sections, each 64-byte aligned, in any order                  |
 *   +---------------------------------------------------------------+
 *
 * Every multi-byte number is little-endian (the endian field holds
 * 0x01020304 as the writer saw it; a reader on another byte order refuses
 * the file).  Each section has an id, an element size, an offset and a size
 * in bytes, and a checksum.  The header carries a checksum of itself and the
 * section table.
 *
 * Checksums go by blocks, so that a reader can check a part of a section
 * when it first reads it instead of the whole file at open:
 *
 *   section S, records of E bytes:  | block 0 | block 1 | ... | block n-1 |
 *                                     2^tix_block_shift(E) records each
 *                                     (at most 64 KiB), the last shorter
 *   BLOCK_SUMS: tix_hash64 of each block, section after section in the
 *               order of the section table (BLOCK_SUMS itself left out)
 *   S's checksum in the table:  tix_hash64 of its n block sums (8 n bytes)
 *   BLOCK_SUMS's own checksum:  tix_hash64 of its bytes
 *
 * A reader accepts a file when version >= its min supported and
 * min_reader <= its own version: a later writer may add sections (unknown
 * ids are skipped) but bumps min_reader when it changes a layout below.
 * Strings are referred to by id: STRING_OFFSETS holds n+1 offsets into
 * STRING_DATA, each string NUL-terminated.  "none" is 0xFFFFFFFF
 * (TIX_NONE) in every u32 reference.
 */
#ifndef TIX_INDEX_FORMAT_H
#define TIX_INDEX_FORMAT_H

#include <stdint.h>

#include "index/index.h"

#define TIX_MAGIC "TIXINDEX"
/* 2: parents by containment (CHAINS), "before the trace", name forms,
 * graph attribution; a version-1 index is rebuilt, never misread.
 * 3: each step's compute and communication time (STEPS records of 80 B).
 * 4: checksums by blocks (BLOCK_SUMS), so that opening costs the same at
 * any size; the rows of each name (NAMES, NAME_ROWS), so that a search by
 * name reads only the rows that match; an index of version 3 is rebuilt.
 * 5: what findings read (docs/FINDINGS.md): each step's breakdown and idle
 * causes (BREAKDOWNS, STREAM_IDLE, SYNCS), the op-shape groups (OP_SHAPES,
 * STEP_OP_SHAPES, OP_SHAPE_GROUPS) and the op model per op (OP_MODELS); and
 * labels that tell kernels apart by the template arguments in which they
 * differ, however deep, and short Tensile names.  An index of version 4 is
 * rebuilt. */
#define TIX_FORMAT_VERSION TIX_INDEX_VERSION
#define TIX_MIN_READER_VERSION 5u
#define TIX_ENDIAN_MARK 0x01020304u
#define TIX_SECTION_ALIGN 64u

struct tix_header_disk {         /* 64 bytes */
	char magic[8];
	uint32_t version;
	uint32_t min_reader_version;
	uint32_t header_size;
	uint32_t endian;
	uint32_t section_count;
	uint32_t flags;
	uint64_t section_table_offset;
	uint64_t file_size;
	uint64_t checksum;       /* of this header (checksum field zeroed) + table */
	uint8_t reserved[8];
};

struct tix_section_disk {        /* 32 bytes */
	uint32_t id;
	uint32_t elem_size;
	uint64_t offset;
	uint64_t size;
	uint64_t checksum;
};

/* Section ids: name, element size (0: bytes).  The reader requires all. */
#define TIX_SECTIONS(X)                                               \
	X(META, 1, sizeof(struct tix_meta_disk))                      \
	X(STRING_OFFSETS, 2, sizeof(uint64_t))                        \
	X(STRING_DATA, 3, 1)                                          \
	X(TRACKS, 4, sizeof(struct tix_track))                        \
	X(ROWS, 5, sizeof(struct tix_row_disk))                       \
	X(DETAILS, 6, sizeof(struct tix_detail_disk))                 \
	X(KERNEL_INFO, 7, sizeof(struct tix_kernel_info))             \
	X(OP_INFO, 8, sizeof(struct tix_op_info))                     \
	X(LONG_DUR, 9, sizeof(struct tix_long_dur_disk))              \
	X(STEPS, 10, sizeof(struct tix_step))                         \
	X(GROUPS, 11, sizeof(struct tix_group))                       \
	X(STEP_GROUPS, 12, sizeof(struct tix_group))                  \
	X(MEMBERS, 13, sizeof(uint32_t))                              \
	X(OPS, 14, sizeof(struct tix_op))                             \
	X(OP_GROUPS, 15, sizeof(struct tix_op_group))                 \
	X(TOP_META, 16, 2 * sizeof(uint32_t))                         \
	X(CHAINS, 17, sizeof(struct tix_chain_disk))                  \
	X(CHAIN_ROWS, 18, sizeof(uint32_t))                           \
	X(NAME_FORMS, 19, sizeof(struct tix_name_form_disk))          \
	X(CAPTURE_CHAINS, 20, sizeof(struct tix_capture_chain_disk))  \
	X(CAPTURE_FRAMES, 21, sizeof(struct tix_capture_frame))      \
	X(BLOCK_SUMS, 22, sizeof(uint64_t))                           \
	X(NAMES, 23, sizeof(struct tix_names_disk))                   \
	X(NAME_ROWS, 24, sizeof(uint32_t))                            \
	X(BREAKDOWNS, 25, sizeof(struct tix_breakdown))               \
	X(STREAM_IDLE, 26, sizeof(struct tix_stream_idle))            \
	X(SYNCS, 27, sizeof(struct tix_sync))                         \
	X(OP_SHAPES, 28, sizeof(struct tix_op_shape))                 \
	X(STEP_OP_SHAPES, 29, sizeof(struct tix_op_shape))            \
	X(OP_SHAPE_GROUPS, 30, sizeof(struct tix_op_group))           \
	X(OP_MODELS, 31, sizeof(struct tix_op_model))

/* One event.  Rows are sorted by track, then start, then longer first (so
 * a parent precedes the children that start with it). */
struct tix_row_disk {            /* 32 bytes */
	int64_t start_ns;
	uint32_t dur_ns;         /* UINT32_MAX: see LONG_DUR */
	uint32_t name;           /* string */
	uint32_t track;
	uint32_t detail;         /* DETAILS record or TIX_NONE */
	uint32_t link;           /* GPU work: launch row; others: parent row */
	uint8_t kind;            /* enum tix_kind */
	uint8_t flags;           /* enum tix_row_flag */
	uint16_t gpu_beneath;    /* CPU ops and annotations: GPU work launched beneath
	                          * this instance (saturates at 65535) */
};

/* A row whose ancestors are not those reached by walking links (an event
 * that starts inside another and outlives it): its ancestors listed,
 * innermost first, in CHAIN_ROWS[first .. first+count).  Sorted by row. */
struct tix_chain_disk {          /* 16 bytes */
	uint32_t row;
	uint32_t first, count;
	uint32_t pad;
};

/* How a GPU work name is shown: demangled in full, and a short label that
 * no other GPU work name of the trace shares.  Sorted by raw. */
struct tix_name_form_disk {      /* 16 bytes */
	uint32_t raw;            /* the name as the trace gave it (strings) */
	uint32_t full;           /* demangled, or raw */
	uint32_t shortened;      /* short and distinct */
	uint32_t pad;
};

/* What captured a replayed kernel: frames[first .. first+count) of
 * CAPTURE_FRAMES, outermost first, seen in the capture named source. */
struct tix_capture_chain_disk {  /* 16 bytes */
	uint32_t first, count;
	uint32_t source;         /* string */
	uint32_t pad;
};


/* The rows of one event name: NAME_ROWS[first .. first+count), in row
 * order.  One record per distinct name of ROWS, sorted by name. */
struct tix_names_disk {          /* 16 bytes */
	uint32_t name;           /* string */
	uint32_t first, count;
	uint32_t pad;
};

/* What rows share: deduplicated, so the ~80 distinct launches of a decode
 * step cost one record each, not one per step. */
struct tix_detail_disk {         /* 24 bytes */
	uint32_t cat;            /* original category string */
	uint32_t args;           /* args JSON text without per-instance ids */
	uint32_t kernel_info;    /* KERNEL_INFO record or TIX_NONE */
	uint32_t op_info;        /* OP_INFO record or TIX_NONE */
	uint32_t capture;        /* CAPTURE_CHAINS record or TIX_NONE */
	uint8_t capture_match;   /* enum tix_capture_match */
	uint8_t pad[3];
};

struct tix_long_dur_disk {       /* 16 bytes, sorted by row */
	uint32_t row;
	uint32_t pad;
	int64_t dur_ns;
};

struct tix_meta_disk {           /* 256 bytes */
	uint64_t source_size;
	int64_t source_mtime_ns;
	uint64_t source_hash;
	int64_t base_time_ns;
	int64_t first_ns, last_ns;
	int64_t total_gpu_ns;
	uint32_t source_path;    /* strings */
	uint32_t step_marker;
	uint32_t warnings;
	uint32_t step_rule;
	uint32_t gpu_without_launch;
	uint32_t kind_counts[16];
	uint32_t before_trace_step;  /* step id of "before the trace" (the last), TIX_NONE */
	uint32_t gpu_before_trace;   /* GPU work in it */
	uint32_t corr_collisions;    /* correlation ids carried by several launch calls */
	uint32_t replayed;           /* GPU work replayed from a graph */
	uint32_t replayed_by_match[8]; /* ... by enum tix_capture_match */
	uint32_t capture_sources;    /* string: the capture traces, "; "-joined, or "" */
	/* The source's st_dev, st_ino and st_ctime: a file of the same size
	 * moved over it, its mtime put back, is another inode, and its ctime
	 * changed (utimes sets it).  Zero in an index from a writer before
	 * them: such an index is rebuilt once. */
	uint64_t source_dev;
	uint64_t source_ino;
	int64_t source_ctime_ns;
	uint32_t reserved[10];
};

enum tix_section_id {
#define TIX_SECTION_ENUM(name, id, size) TIX_SEC_##name = id,
	TIX_SECTIONS(TIX_SECTION_ENUM)
#undef TIX_SECTION_ENUM
	TIX_SEC_MAX = 31
};

/* How many sections a file has, and each one's record size, from the one
 * list above: the writer and the reader both take their tables from here. */
enum {
#define TIX_SECTION_ONE(name, id, size) +1
	TIX_SECTION_COUNT = 0 TIX_SECTIONS(TIX_SECTION_ONE)
#undef TIX_SECTION_ONE
};
static const uint32_t tix_section_elem[TIX_SEC_MAX + 1] = {
#define TIX_SECTION_ELEM(name, id, size) [id] = (uint32_t)(size),
	TIX_SECTIONS(TIX_SECTION_ELEM)
#undef TIX_SECTION_ELEM
};

/* ---- blocks ----
 * A block is at most TIX_BLOCK_BYTES: a power of two of records, so that a
 * record's block is a shift away. */
#define TIX_BLOCK_BYTES 65536u

static inline unsigned tix_block_shift(uint32_t elem)
{
	unsigned s = 0;
	if (elem == 0 || elem > TIX_BLOCK_BYTES) /* no such section (the reader refuses it) */
		return 0;
	while ((2ull << s) * elem <= TIX_BLOCK_BYTES)
		s++;
	return s;
}

/* Blocks of a section of size bytes in records of elem bytes. */
static inline uint64_t tix_block_count(uint64_t size, uint32_t elem)
{
	if (elem == 0)
		return 0;
	uint64_t per = ((uint64_t)elem) << tix_block_shift(elem);
	return size / per + (size % per != 0);
}

/* Recomputes, in a whole .tix held in b[0..n), every block sum, every
 * section checksum and the header's checksum, as the writer would, for
 * the sections that lie inside b (white-box tools: tests/core/tix_damage.c,
 * fuzz/).  Leaves the header's file_size alone.  Nothing when the header or
 * table does not fit. */
void tix_format_resum(unsigned char *b, size_t n);

_Static_assert(sizeof(struct tix_header_disk) == 64, "header layout");
_Static_assert(sizeof(struct tix_section_disk) == 32, "section layout");
_Static_assert(sizeof(struct tix_row_disk) == 32, "row layout");
_Static_assert(sizeof(struct tix_detail_disk) == 24, "detail layout");
_Static_assert(sizeof(struct tix_meta_disk) == 256, "meta layout");
_Static_assert(sizeof(struct tix_chain_disk) == 16, "chain layout");
_Static_assert(sizeof(struct tix_name_form_disk) == 16, "name form layout");
_Static_assert(sizeof(struct tix_capture_chain_disk) == 16, "capture chain layout");
_Static_assert(sizeof(struct tix_capture_frame) == 16, "capture frame layout");
_Static_assert(sizeof(struct tix_names_disk) == 16, "names layout");
_Static_assert(TIX_MATCH_COUNT <= 8, "replayed_by_match holds 8 matches");
_Static_assert(sizeof(struct tix_track) == 56, "track layout");
_Static_assert(sizeof(struct tix_kernel_info) == 72, "kernel info layout");
_Static_assert(sizeof(struct tix_op_info) == 16, "op info layout");
_Static_assert(sizeof(struct tix_step) == 80, "step layout");
_Static_assert(sizeof(struct tix_group) == 72, "group layout");
_Static_assert(sizeof(struct tix_op) == 48, "op layout");
_Static_assert(sizeof(struct tix_op_group) == 16, "op group layout");
_Static_assert(sizeof(struct tix_breakdown) == 176, "breakdown layout");
_Static_assert(sizeof(struct tix_stream_idle) == 56, "stream idle layout");
_Static_assert(sizeof(struct tix_sync) == 40, "sync layout");
_Static_assert(sizeof(struct tix_op_shape) == 56, "op shape layout");
_Static_assert(sizeof(struct tix_op_model) == 40, "op model layout");
_Static_assert(TIX_KIND_COUNT <= 16, "kind_counts holds 16 kinds");

#endif /* TIX_INDEX_FORMAT_H */
