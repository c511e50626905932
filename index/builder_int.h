/*
 * Builder internals shared by builder.c (collecting events) and link.c
 * (sorting, linking, aggregating, writing).  Private to index/.
 *
 * Memory: everything whose size grows with the number of events lives in
 * "spill" arrays, mappings of unlinked temporary files beside the output.
 * They sit in the page cache, not in anonymous memory, so a 5 GB trace
 * indexes within the same bounded anonymous footprint as a small one.  Only
 * tables keyed by distinct values (strings, tracks, launch shapes) live in
 * the heap.
 */
#ifndef TIX_INDEX_BUILDER_INT_H
#define TIX_INDEX_BUILDER_INT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "index/builder.h"
#include "index/format.h"
#include "index/index.h"
#include "index/rules.h"

/* The disk a build may take: its spills and the index itself, counted as
 * they are reserved (file_reserve), against a bound set when the build
 * starts: the free space of the index's file system less a margin kept for
 * others (5% of it, at most 1 GB), or tix_build_opts.max_temp (--max-temp)
 * instead.  A reservation past it fails with a message that says so,
 * before the disk fills.  Shared by both parse threads. */
struct temp_budget {
	_Atomic uint64_t used;     /* bytes reserved now */
	uint64_t limit;            /* UINT64_MAX: none (the free space unknown, no --max-temp) */
	uint64_t margin;           /* what the default bound leaves free (for the message) */
	int given;                 /* limit is --max-temp's */
	int on;                    /* set by temp_budget_init (a zeroed one bounds nothing) */
	const char *dir;           /* where, for the message */
};
/* Sets the bound of a build whose files go into dir (statvfs), or max
 * (0: none given). */
void temp_budget_init(struct temp_budget *tb, const char *dir, uint64_t max);

/* A growable array backed by an unlinked temporary file. */
struct spill {
	const char *label;  /* the index being built, for messages */
	struct temp_budget *budget; /* counts its blocks (NULL: not counted) */
	int fd;
	unsigned char *base;
	size_t elem;        /* element size */
	size_t n;           /* elements used */
	size_t cap;         /* elements mapped */
};

/* A spill in dir (an unlinked file); label names the index in messages;
 * its blocks count against tb (may be NULL). */
int spill_init(struct spill *s, const char *dir, const char *label, size_t elem, struct temp_budget *tb,
               struct tix_error *err);
/* Returns a pointer to n fresh elements at the end (zeroed on first use of
 * the file's pages) or NULL with err set. */
void *spill_push(struct spill *s, size_t n, struct tix_error *err);
/* Sets the size to exactly n elements (growing if needed). */
int spill_resize(struct spill *s, size_t n, struct tix_error *err);
void spill_done(struct spill *s);
/* Grows fd from `from` to `to` bytes with real blocks (fallocate; where the
 * file system has none, a byte written in each new block), the growth
 * counted against tb (may be NULL).  0, or -1 with err set: past tb's bound
 * (a message that says so), or "WHAT: strerror" (ENOSPC on a full disk),
 * WHAT formatted from fmt.  TIX_NO_FALLOCATE=1 takes the fallback
 * everywhere (tests). */
int file_reserve(struct temp_budget *tb, int fd, size_t from, size_t to, struct tix_error *err, const char *fmt,
                 ...) __attribute__((format(printf, 6, 7)));
/* Re-types a spill for elements of another size, emptied.  Its pages stay
 * mapped and touched, which is the point: fresh pages cost ~0.3 GB/s here. */
void spill_retype(struct spill *s, size_t elem);
#define SPILL_AT(s, type, i) (((type *)(s)->base)[i])

/* Interned byte strings: id -> bytes, bytes -> id. */
struct intern {
	char *data;          /* all strings, each NUL-terminated */
	size_t data_len, data_cap;
	uint64_t *offsets;   /* id -> offset in data; offsets[n] = data_len */
	uint32_t n, cap;
	uint32_t *slots;     /* open addressing: id + 1, 0 = empty */
	uint64_t *slot_hash;
	uint32_t nslots;
	/* Recently seen strings by a cheap key (length and end bytes): most
	 * events repeat names seen a moment ago, and a memcmp beats hashing. */
	uint32_t recent[1024]; /* id + 1, 0 = empty */
};

int intern_init(struct intern *t);
void intern_done(struct intern *t);
/* Returns the id of bytes [p, p+len), adding them if new; TIX_NONE on OOM. */
uint32_t intern_add(struct intern *t, const char *p, size_t len);
static inline const char *intern_str(const struct intern *t, uint32_t id)
{
	return t->data + t->offsets[id];
}
static inline size_t intern_len(const struct intern *t, uint32_t id)
{
	return (size_t)(t->offsets[id + 1] - t->offsets[id] - 1);
}

/* Deduplicated fixed-size records: record bytes -> id. */
struct dedup {
	unsigned char *recs;
	size_t elem;
	uint32_t n, cap;
	uint32_t *slots;     /* id + 1, 0 = empty */
	uint32_t nslots;
};

int dedup_init(struct dedup *d, size_t elem);
void dedup_done(struct dedup *d);
uint32_t dedup_add(struct dedup *d, const void *rec);

/* Capture chains (capture.c): deduplicated, referred to by details. */
struct capture_store {
	struct tix_capture_frame *frames;
	uint32_t nframes, frames_cap;
	struct tix_capture_chain_disk *chains;
	uint32_t nchains, chains_cap;
	uint32_t *slots;           /* chain id + 1, 0 = empty */
	uint32_t nslots;
};
/* The id of the chain in, added if new (its strings interned in strings);
 * TIX_NONE on out of memory. */
uint32_t capture_store_add(struct capture_store *s, struct intern *strings,
                           const struct tix_capture_in *in);
void capture_store_done(struct capture_store *s);

/* A collected event before sorting. */
struct brow {                 /* 40 bytes */
	int64_t start_ns;
	int64_t dur_ns;
	int64_t corr;         /* -1 none */
	uint32_t name;
	uint32_t track;
	uint32_t detail;
	uint8_t kind;
	uint8_t flags;
	uint16_t pad;
};

struct bflow {                /* 32 bytes */
	int64_t ts_ns;
	uint64_t id;
	uint32_t track;
	uint8_t is_start, is_ac2g;
	uint8_t pad[10];
};

struct btrack_key {
	int64_t pid, tid;
	uint32_t pid_str, tid_str;  /* TIX_NONE when numeric */
};

struct btrack {
	struct btrack_key key;
	uint32_t count;
	uint32_t gpu_count;   /* GPU-side events on it */
	int32_t device, stream;
};

struct bmeta {                /* M events, applied at finish */
	struct btrack_key key;  /* tid ignored for process keys */
	int kind;               /* enum tix_meta_key */
	uint32_t value;         /* string */
};

/* The detail of the last event of a name: most events repeat their
 * predecessor's args exactly (the same launch, layer after layer), and a
 * memcmp is much cheaper than hashing the args, the op inputs and the
 * launch shape again. */
struct detail_memo {
	uint32_t name, cat, args, detail;
	uint32_t op[4];           /* op input strings, TIX_NONE when absent */
	int kind;
	int has_launch, has_op;
	struct tix_launch_in launch;
};
#define DETAIL_MEMO_SIZE 4096

/* What one producer thread collects: its own strings, records, tracks and
 * rows, merged into the builder's primary collector at finish. */
struct collector {
	const char *source_path;   /* for messages */
	const char *dir;           /* for spill files */
	struct temp_budget *budget; /* ... which count against it */
	const char *out_path;      /* the index, for messages */
	struct intern strings;
	struct dedup details;      /* struct tix_detail_disk */
	struct dedup kinfos;       /* struct tix_kernel_info */
	struct dedup opinfos;      /* struct tix_op_info */

	struct btrack *tracks;
	uint32_t ntracks, tracks_cap;
	uint32_t *track_slots;
	uint32_t track_nslots;
	uint32_t last_track;       /* one-entry cache: events come in runs */
	struct btrack_key last_key;

	struct bmeta *metas;
	size_t nmetas, metas_cap;
	uint32_t *top_meta;        /* pairs of string ids */
	size_t ntop_meta, top_meta_cap;

	struct spill rows;         /* struct brow */
	struct spill flows;        /* struct bflow */
	struct detail_memo *memo;  /* DETAIL_MEMO_SIZE entries, by name */

	struct capture_store captures; /* the primary collector's only */
	char *warnings;
	size_t warnings_len;
	/* events outside TIX_TIME_MIN..MAX: skipped (start) or cut (end);
	 * events with an unknown end (a negative duration) */
	uint64_t out_of_range, cut_at_range, open_ends;
	uint32_t kind_counts[16];
	int has_base_time;
	int64_t base_time_ns;
};

struct tix_builder {
	char *out_path;
	char *dir;                 /* the index's folder: the spills go there */
	struct tix_outfile out;    /* the index file (index/outfile.c) */
	struct temp_budget budget; /* the disk it may take */
	int opened;                /* out is open, not yet committed */
	int out_fd;                /* out.fd */
	struct tix_build_opts opts;
	char *source_path, *step_marker;
	struct collector c;        /* the primary one; tix_builder_add_* feed it */
	struct collector *extra;   /* a second producer's, see tix_builder_sink_extra */
	int64_t base_time_ns;
	/* After the merge: extra's dictionaries are folded into c, and these
	 * map extra's string, detail and track numbers to c's.  Its rows and
	 * flows stay where they are; the linker reads them through the maps. */
	uint32_t *xmap_str, *xmap_detail, *xmap_track;
};

/* Appends the extra collector's flows to c's, renumbered (builder.c). */
int builder_merge_flows(struct tix_builder *b, struct tix_error *err);

/* State of finishing, shared by link.c (sort, link, steps, write) and
 * aggregate.c (groups, step totals, ops). */
struct linker {
	struct tix_builder *b;
	uint32_t nrows, ntracks;
	struct spill rows;          /* struct tix_row_disk, final order */
	struct spill corr;          /* int64 correlation per final row */
	struct tix_track *tracks;   /* final order */
	struct tix_long_dur_disk *long_durs;
	uint32_t nlong, long_cap;

	struct spill chains;        /* struct tix_chain_disk, by row (parents phase) */
	struct spill chain_rows;    /* uint32 */

	struct tix_step *steps;     /* the real steps by start, then "before the trace" */
	uint32_t nsteps;            /* including "before the trace" */
	uint32_t before_trace_step; /* its id (nsteps - 1), TIX_NONE (steps phase) */
	uint32_t gpu_before_trace;
	uint32_t corr_collisions;   /* launches phase */
	uint32_t unlinked_by_corr;  /* GPU events the correlation ids did not link */
	char *warnings;             /* what the phases noticed, "; "-joined (linker_warn) */
	uint32_t replayed;          /* graph phase */
	uint32_t replayed_by_match[8];
	char *capture_sources;
	struct tix_name_form_disk *name_forms; /* names phase, by raw */
	uint32_t nname_forms;
	struct spill names;         /* struct tix_names_disk, by name (name-rows phase) */
	struct spill name_rows;     /* uint32 rows, by name, then row */
	const char *step_rule;

	struct tix_group *groups;       /* overall, sorted by total */
	uint32_t ngroups;
	struct tix_group *step_groups;  /* sorted by step, then total */
	uint32_t nstep_groups;
	struct spill members;           /* uint32 rows */
	struct tix_op *ops;
	uint32_t nops;
	struct tix_op_group *op_groups;
	uint32_t nop_groups;
	int64_t total_gpu_ns;
	uint32_t gpu_without_launch;
	int64_t first_ns, last_ns;
	struct spill pool[8];           /* released spills, reused before new ones */
	int npool;
	int out_rows_mapped;            /* L->rows maps the output file itself */
	const uint32_t *track_remap;    /* collector track -> final track */
};

/* Whether the finish shares its work between two threads: from
 * opts.split_rows rows (default 65536). */
int linker_two_threads(const struct linker *L);
/* The parents phase (parents.c): links and chains by containment, on two
 * threads; the calling thread also runs `alongside` (the launches phase),
 * which must not write CPU rows.  0, or -1 with err set. */
int linker_parents(struct linker *L, int (*alongside)(struct linker *, struct tix_error *),
                   struct tix_error *err);
/* A spill for elements of elem bytes: a released one when there is one
 * (the largest), else a new file. */
int linker_spill(struct linker *L, struct spill *s, size_t elem, struct tix_error *err);
/* Adds a warning the index keeps and repeats on every open. */
int linker_warn(struct linker *L, const char *msg, struct tix_error *err);
/* Gives s back to the pool (or frees it when the pool is full). */
void linker_release(struct linker *L, struct spill *s);
/* A work buffer whose size may follow the number of events: in the heap
 * while it is small (no file, no system call), in a spill above 1 MB (no
 * anonymous memory).  linker_buf returns room for n elements of elem
 * bytes (the contents of an earlier call are not kept) or NULL with err
 * set; linker_buf_done frees it.  Zero-initialise before first use. */
struct linker_buf {
	void *heap;
	size_t heap_bytes;
	struct spill sp;
	int has_spill;
};
void *linker_buf(struct linker *L, struct linker_buf *b, size_t n, size_t elem, struct tix_error *err);
void linker_buf_done(struct linker *L, struct linker_buf *b);
/* Sorts base[0..n) by cmp, stably and in place, with its buffer from
 * linker_buf: use it, not qsort, for arrays that grow with the trace
 * (sort.c).  0, or -1 with err set. */
int linker_sort(struct linker *L, void *base, size_t n, size_t size,
                int (*cmp)(const void *, const void *), struct tix_error *err);

/* The rows as rules.h sees them (pointers into the spills: valid until
 * one of them grows). */
void linker_rows_view(const struct linker *L, struct tix_rows *v);

static inline int64_t row_dur(const struct linker *L, uint32_t row)
{
	struct tix_rows v = {.rows = (const struct tix_row_disk *)L->rows.base,
	                     .nrows = L->nrows, .long_durs = L->long_durs, .nlong = L->nlong};
	return tix_rule_dur(&v, row);
}

/* Where ROWS starts in the output file: the header and section table fit
 * before it, and the rows are mapped there directly (a page boundary). */
#define ROWS_OFFSET 4096u

/* place.c: final track order (returns old -> new track number, malloc'd)
 * and rows in track and time order, in the output file. */
uint32_t *linker_order_tracks(struct linker *L, struct tix_error *err);
int linker_place_rows(struct linker *L, const uint32_t *remap, struct tix_error *err);
/* write.c: every section, then the header. */
int linker_write(struct linker *L, struct tix_error *err);

/* Step of a row (rules.h), TIX_NONE. */
uint32_t linker_step_of(const struct linker *L, uint32_t row);
/* aggregate.c */
int linker_aggregate(struct linker *L, struct tix_error *err);
/* Its first half (aggregate.c): kernel groups, members, step totals. */
int linker_aggregate_groups(struct linker *L, struct tix_error *err);
/* graph.c: replayed kernels attributed to their capture-time launches. */
int linker_graph(struct linker *L, struct tix_error *err);
/* name_forms.c: demangled and distinct short names of the GPU work groups. */
int linker_name_forms(struct linker *L, struct tix_error *err);
/* name_rows.c: the rows of each event name (NAMES, NAME_ROWS). */
int linker_name_rows(struct linker *L, struct tix_error *err);

/* link.c: everything after the last event. */
int builder_link_and_write(struct tix_builder *b, struct tix_error *err);

#endif /* TIX_INDEX_BUILDER_INT_H */
