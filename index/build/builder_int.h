/*
 * The collecting half of the builder (builder.c, store.c, capture.c): the
 * stores every part of the build uses (spills, interned strings,
 * deduplicated records) and what a producer's events become before the
 * finish.  The finish (finish.c and its phases) reads these through
 * struct linker (linker.h).  Private to index/build/.
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

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "index/build/builder.h"
#include "index/format.h"
#include "index/index.h"

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
	int no_fallocate;          /* tix_build_opts's: file_reserve writes zeros */
	const char *dir;           /* where, for the message */
};
/* Sets the bound of a build whose files go into dir (statvfs), or max
 * (0: none given). */
void temp_budget_init(struct temp_budget *tb, const char *dir, uint64_t max, int no_fallocate);

/* A growable array backed by an unlinked temporary file. */
struct spill {
	const char *label;  /* the index being built, for messages */
	struct temp_budget *budget; /* counts its blocks (NULL: not counted) */
	int fd;
	unsigned char *base;
	size_t elem;        /* element size */
	size_t n;           /* elements used */
	size_t cap;         /* elements mapped */
	/* Staged (spill_stage_init): elements [staged, n) wait in stage, the
	 * ones before are in the file, nothing is mapped until spill_seal. */
	unsigned char *stage;
	size_t staged;
};

/* A spill in dir (an unlinked file); label names the index in messages;
 * its blocks count against tb (may be NULL). */
int spill_init(struct spill *s, const char *dir, const char *label, size_t elem, struct temp_budget *tb,
               struct tix_error *err);
/* A spill that is only appended to, one element a push, until it is
 * sealed: the pushes fill a small buffer (SPILL_STAGE bytes, reused) that
 * is written to the file with pwrite() when full.  A page written whole
 * that way is never zeroed first, as a mapped page of a new block is (the
 * kernel fills it before the first store): 381 MB of rows in 0.14-0.18 s,
 * against 0.20-0.66 s mapped (docs/PERFORMANCE.md, "Round 8").  A staged
 * element is not zeroed: the caller writes every byte of it.  Elements are
 * read only after spill_seal, which writes the rest and maps the file: a
 * sealed spill is an ordinary one. */
#define SPILL_STAGE (256u << 10)
int spill_stage_init(struct spill *s, const char *dir, const char *label, size_t elem, struct temp_budget *tb,
                     struct tix_error *err);
int spill_seal(struct spill *s, struct tix_error *err);
/* Returns a pointer to n fresh elements at the end (zeroed on first use of
 * the file's pages; staged: n is 1, the element is not zeroed, and the
 * pointer holds until the next push) or NULL with err set. */
void *spill_push(struct spill *s, size_t n, struct tix_error *err);
/* Sets the size to exactly n elements (growing if needed). */
int spill_resize(struct spill *s, size_t n, struct tix_error *err);
void spill_done(struct spill *s);
/* Spills freed on a thread of their own: closing an unlinked file frees its
 * page cache and blocks (~18 ms for the 25 MB of a collector's rows), work
 * the build need not wait for.  spill_reap takes the n spills (emptied
 * where they were) and frees them beside the caller, or at once when no
 * thread starts; spill_reap_join waits for them (a zeroed reaper: none). */
#define REAP_MAX 16
struct spill_reaper {
	struct spill spills[REAP_MAX];
	int n;
	int running;         /* th was started, not yet joined */
	pthread_t th;
};
void spill_reap(struct spill_reaper *r, struct spill *s, int n);
void spill_reap_join(struct spill_reaper *r);
/* Grows fd from `from` to `to` bytes with real blocks (fallocate; where the
 * file system has none, a byte written in each new block), the growth
 * counted against tb (may be NULL).  0, or -1 with err set: past tb's bound
 * (a message that says so), or "WHAT: strerror" (ENOSPC on a full disk),
 * WHAT formatted from fmt.  TIX_NO_FALLOCATE=1 takes the fallback
 * everywhere (tests). */
int file_reserve(struct temp_budget *tb, int fd, size_t from, size_t to, struct tix_error *err, const char *fmt,
                 ...) __attribute__((format(printf, 6, 7)));
/* Writes len bytes at off, on through short writes and EINTR: 0, or the
 * errno that stopped it (ENOSPC for a write that wrote nothing). */
int file_pwrite(int fd, const void *buf, size_t len, uint64_t off);
/* Re-types a spill for elements of another size, emptied.  Its pages stay
 * mapped and touched, which is the point: fresh pages cost ~0.3 GB/s here. */
void spill_retype(struct spill *s, size_t elem);
#define SPILL_AT(s, type, i) (((type *)(s)->base)[i])

/* Interned byte strings: id -> bytes, bytes -> id. */
#define INTERN_RECENT_BITS 13
struct intern {
	char *data;          /* all strings, each NUL-terminated */
	size_t data_len, data_cap;
	uint64_t *offsets;   /* id -> offset in data; offsets[n] = data_len */
	uint32_t n, cap;
	uint32_t *slots;     /* open addressing: id + 1, 0 = empty */
	uint64_t *slot_hash;
	uint32_t nslots;
	/* Recently seen strings by a cheap key (length and end bytes): most
	 * events repeat names seen a moment ago, and a memcmp beats hashing.
	 * 8192 slots (32 KB): on the story trace 98% of the 2.85M lookups hit,
	 * against 81% with 1024 (issue 23, round 9). */
	uint32_t recent[1u << INTERN_RECENT_BITS]; /* id + 1, 0 = empty */
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
	_Atomic size_t rows_seen;  /* rows.n, for the other producer's thread (builder_warm_rows) */
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
	struct tix_builder *owner; /* the second producer's: for its sink's idle() */
};

/* ROWS's first pages and the correlation ids', made ready on the second
 * producer's idle thread (builder_warm_rows); place adopts both. */
struct rows_warm {
	unsigned char *base; /* a MAP_SHARED mapping of the output from ROWS_OFFSET, or NULL */
	size_t len;          /* its length */
	size_t bytes;        /* of it, the bytes already faulted in (whole pages of rows) */
	struct spill corr;   /* place's int64 per row, its first corr.n faulted in; fd -1: none */
	int has_corr;
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
	/* the finish's spills, freed while the index is written ([0]: before
	 * write, finish.c) and committed ([1]: linker_done) */
	struct spill_reaper reapers[2];
	int64_t base_time_ns;
	/* After the merge: extra's dictionaries are folded into c, and these
	 * map extra's string, detail and track numbers to c's.  Its rows and
	 * flows stay where they are; the linker reads them through the maps. */
	uint32_t *xmap_str, *xmap_detail, *xmap_track;
	struct rows_warm warm;
};

/* The end of collecting, for the finish (finish.c), in this order:
 *   builder_merge       folds the second producer's dictionaries into the
 *                       primary collector (the xmap_* maps), says what
 *                       the ingest boundary changed, settles the base time;
 *   builder_merge_flows appends the second producer's flows to c's,
 *                       renumbered (only the by-flow phase needs them);
 *   builder_commit      names the finished index, closes it and renames it
 *                       into place.
 * Each returns 0, or -1 with err set. */
int builder_merge(struct tix_builder *b, struct tix_error *err);
int builder_merge_flows(struct tix_builder *b, struct tix_error *err);
int builder_commit(struct tix_builder *b, struct tix_error *err);

/* While the first producer still parses (the second producer's sink's
 * idle(), until *stop): the output's ROWS pages for the rows known so far
 * (both collectors' counts: a lower bound of the index's rows) are mapped
 * and faulted in, which is most of place's cost (the kernel zeroing each
 * fresh page) taken off the build's path (place.c).  builder_warm_done
 * unmaps what place did not adopt. */
void builder_warm_rows(struct tix_builder *b, const int *stop);
void builder_warm_done(struct tix_builder *b);

#endif /* TIX_INDEX_BUILDER_INT_H */
