/*
 * cupti_capture/journal.h: the capture journal (.tixj), internal to
 * cupti_capture/ and its tests.  Owner: cupti_capture.
 *
 * Why a journal and not a .tix: the profiled process may die at any moment
 * (SIGKILL from a server's parent, os._exit).  So it only ever appends
 * self-checking chunks, one write(2) per flush, and `tix capture` / `tix
 * index` turn the journal into a .tix afterwards.  A reader keeps every whole
 * chunk before the first torn or damaged one.
 *
 * File layout (little-endian, as written by x86_64 / aarch64 hosts):
 *
 *   chunk 0 (type HEADER) | chunk 1 | chunk 2 | ...
 *
 *   chunk:  +0  u32 magic         "TIXJ" (bytes 54 49 58 4a)
 *           +4  u16 type          enum tixj_type
 *           +6  u16 version       TIXJ_VERSION (format of this chunk's rows)
 *           +8  u32 payload_len   bytes after the 40-byte chunk header, % 8 == 0
 *           +12 u32 seq           0, 1, 2, ... with no gap
 *           +16 i64 t_min         smallest timestamp in the payload (0: none)
 *           +24 i64 t_max         largest timestamp in the payload
 *           +32 u32 payload_crc   CRC-32C of the payload
 *           +36 u32 header_crc    CRC-32C of bytes +0..+35
 *           +40 payload           rows of one fixed size per type, except
 *                                 HEADER (struct + command line), STRINGS
 *                                 and NOTE (variable records, see below)
 *
 * Row types are the tixj_* structs below; their sizes are fixed by
 * _Static_asserts.  Strings are interned by the writer: a STRINGS chunk
 * holds records {u32 id, u32 len, bytes, pad to 4}, ids counting up from 0,
 * and always precedes the rows that use its ids.  Timestamps are CUPTI's
 * (CLOCK_REALTIME ns on Linux).  Kernel names are journaled mangled, and
 * the reader passes them on so: the index builder demangles them (name_forms.c).
 *
 * Evolution: a reader skips whole chunks of types it does not know, so new
 * record types need no version bump; a changed row layout bumps
 * TIXJ_VERSION, and a reader skips row chunks of versions it does not know
 * (saying so) rather than misread them.
 */
#ifndef TIX_CAPTURE_JOURNAL_H
#define TIX_CAPTURE_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#define TIXJ_MAGIC 0x4a584954u /* "TIXJ" read as a little-endian u32 */
#define TIXJ_VERSION 1
#define TIXJ_CHUNK_HDR 40
#define TIXJ_MAX_PAYLOAD (64u << 20) /* larger lengths mean damage */
#define TIXJ_NONE UINT32_MAX         /* "no string" */

enum tixj_type {
	TIXJ_HEADER = 1,  /* struct tixj_header + command line bytes */
	TIXJ_STRINGS = 2, /* {u32 id, u32 len, bytes, pad4} records */
	TIXJ_KERNELS = 3, /* struct tixj_kernel */
	TIXJ_COPIES = 4,  /* struct tixj_copy: memcpy, memset */
	TIXJ_APIS = 5,    /* struct tixj_api: runtime and driver calls */
	TIXJ_MARKERS = 6, /* struct tixj_marker: NVTX */
	TIXJ_THREADS = 7, /* struct tixj_thread: NVTX thread names */
	TIXJ_DEVICES = 8, /* struct tixj_device */
	/* 9: graph nodes of the first layout, without their capture context;
	 * never written on a GPU, now skipped as an unknown type */
	TIXJ_CLOCKS = 10, /* struct tixj_clock: one per write, so the journal says when it was last written */
	TIXJ_DROPS = 11,  /* struct tixj_drops: cumulative counters */
	TIXJ_WINDOWS = 12, /* struct tixj_window: capture window edges */
	TIXJ_NOTE = 13,   /* text: a warning for `tix info` */
	TIXJ_END = 14,    /* struct tixj_drops: the process closed the journal */
	TIXJ_GRAPH_NODES = 15, /* struct tixj_graph_node */
	TIXJ_GRAPH_EVENTS = 16, /* struct tixj_graph_event: executable graphs made and updated */
	TIXJ_BUFFERS = 17, /* struct tixj_buffer: what each CUPTI activity buffer held */
	TIXJ_TYPE_COUNT
};

/* Row size of each fixed-size type, 0 for variable payloads. */
extern const uint32_t tixj_row_size[TIXJ_TYPE_COUNT];

struct tixj_chunk_hdr {
	uint32_t magic;
	uint16_t type, version;
	uint32_t payload_len, seq;
	int64_t t_min, t_max;
	uint32_t payload_crc, header_crc;
};

struct tixj_header {            /* 112 bytes, then the command line */
	uint32_t version;
	uint32_t pid;
	int64_t start_ns;           /* cuptiGetTimestamp() at init */
	int64_t realtime_ns, monotonic_ns; /* the same instant on two clocks */
	uint32_t cupti_version;     /* cuptiGetVersion() of the loaded libcupti */
	uint32_t cupti_build;       /* CUPTI_API_VERSION the library was built with */
	uint32_t flush_ms;
	uint32_t flags;             /* TIXJ_HDR_* */
	char host[64];              /* NUL-terminated */
};
/* Command line: NUL-separated arguments, as in /proc/self/cmdline. */

enum { TIXJ_HDR_WINDOWED = 1 }; /* capture windows were requested */

enum { TIXJ_K_NO_TIMESTAMP = 1, TIXJ_K_DEVICE_LAUNCHED = 2 };
struct tixj_kernel {            /* 88 bytes */
	int64_t start, end;
	uint64_t graph_node_id;
	uint32_t name, correlation;
	uint32_t device, context, stream, graph_id;
	int32_t grid[3], block[3];
	int32_t static_smem, dynamic_smem;
	uint16_t registers, flags;
	uint32_t channel;
};

enum { TIXJ_COPY_MEMCPY = 1, TIXJ_COPY_MEMSET = 2, TIXJ_COPY_P2P = 3 };
struct tixj_copy {              /* 64 bytes */
	int64_t start, end;
	uint64_t bytes, graph_node_id;
	uint32_t correlation, device, context, stream;
	uint32_t graph_id;
	uint8_t op;                 /* TIXJ_COPY_* */
	uint8_t copy_kind;          /* CUpti_ActivityMemcpyKind */
	uint8_t src_kind, dst_kind; /* CUpti_ActivityMemoryKind; memset: dst = memory kind */
	uint32_t value;             /* memset value; p2p: source device */
	uint32_t pad;
};

enum { TIXJ_API_RUNTIME = 1, TIXJ_API_DRIVER = 2 };
struct tixj_api {               /* 40 bytes */
	int64_t start, end;
	uint32_t name;              /* string id of e.g. "cudaLaunchKernel_v7000" */
	uint32_t cbid, tid, correlation;
	uint32_t ret;               /* CUresult / cudaError_t */
	uint8_t domain;             /* TIXJ_API_* */
	uint8_t pad[3];
};

enum { TIXJ_M_INSTANT = 1, TIXJ_M_START = 2, TIXJ_M_END = 4 };
struct tixj_marker {            /* 32 bytes */
	int64_t ts;
	uint32_t id, flags;         /* flags: TIXJ_M_* */
	uint32_t tid;
	uint32_t name, domain;      /* string ids, TIXJ_NONE when absent */
	uint32_t pad;
};

struct tixj_thread {            /* 8 bytes */
	uint32_t tid, name;
};

struct tixj_device {            /* 56 bytes */
	uint32_t id, name;
	uint32_t cc_major, cc_minor;
	uint32_t sm_count, pad;
	uint64_t global_mem;
	uint8_t uuid[16];
	uint64_t mem_bandwidth;
};

/* A CUDA graph node, from the resource callbacks.  CREATED: made while a
 * stream was captured (inside the launch call being captured) or by a
 * cudaGraphAdd*Node call, with what was true on that thread at that moment:
 * the NVTX push/pop ranges open and the API call in progress.  CLONED:
 * instantiation copied orig_node_id into node_id, the id that the kernel
 * records of a replay carry.  So a replayed kernel finds its capture by
 * node id, exactly, with no guess by time or position. */
enum { TIXJ_G_CREATED = 1, TIXJ_G_CLONED = 2 };
enum { TIXJ_G_FRAMES_CUT = 1 }; /* more ranges were open than `frames` holds */
struct tixj_graph_node {        /* 56 bytes */
	uint64_t node_id, orig_node_id; /* orig: the node a clone came from */
	int64_t ts;                 /* when the callback ran */
	uint32_t graph_id, tid;
	uint32_t how, node_type;    /* TIXJ_G_*, CUgraphNodeType */
	uint32_t frames;            /* string id: the open NVTX range names, outermost
	                             * first, each ending in a NUL; TIXJ_NONE: none */
	uint32_t api;               /* string id of the call's CUPTI name
	                             * ("__cudaLaunchKernel_v13000"); TIXJ_NONE unknown */
	uint32_t correlation;       /* that call's correlation id; 0 unknown */
	uint16_t cbid;
	uint8_t domain;             /* TIXJ_API_* of the call; 0 unknown */
	uint8_t flags;              /* TIXJ_G_FRAMES_CUT */
};

/* What happened to executable graphs after their nodes were journaled,
 * from the API callbacks (and the resource callbacks GRAPH_NODE_UPDATED /
 * _SET_PARAMS, cupti_callbacks.h, CUDA 13.0).  A replay after an update
 * runs what the update put there, not what the capture recorded, so the
 * reader does not call its capture exact.  Order is by correlation id:
 * the update call's against the replaying launch's. */
enum {
	TIXJ_GE_EXEC_MADE = 1,      /* exec_id was instantiated by the call `correlation`
	                             * (its CLONED rows carry that correlation) */
	TIXJ_GE_EXEC_UPDATED = 2,   /* every node of exec_id (cudaGraphExecUpdate) */
	TIXJ_GE_NODE_UPDATED = 3,   /* node_id's parameters (cudaGraphExec*NodeSetParams) */
};
struct tixj_graph_event {       /* 32 bytes */
	int64_t ts;                 /* when the callback ran */
	uint64_t node_id;           /* NODE_UPDATED; 0 otherwise */
	uint32_t exec_id;           /* cuptiGetGraphExecId; 0 unknown */
	uint32_t correlation;       /* the call's (MADE: the instantiation's); 0 unknown */
	uint32_t what;              /* TIXJ_GE_* */
	uint32_t pad;
};

/* One CUPTI activity buffer as the writer received it: which records it
 * held and the span of their timestamps.  How CUPTI fills buffers (do
 * kernel records share them with the calling thread's API and NVTX
 * records?) sets what a kill can lose; these rows measure it. */
struct tixj_buffer {            /* 56 bytes */
	int64_t first_ts, last_ts;  /* smallest and largest record timestamp in it; 0: none */
	int64_t done_ts;            /* when the writer thread took it (CUPTI time) */
	uint64_t context;           /* the CUcontext CUPTI gave with it (0: the global queue) */
	uint32_t valid, stream;     /* its valid bytes; the stream CUPTI gave with it */
	uint32_t kernels, apis;     /* records: kernels; runtime and driver calls */
	uint32_t markers, other;    /* NVTX markers; the rest (copies, devices, names, ...) */
};

struct tixj_clock {             /* 24 bytes */
	int64_t cupti_ns, realtime_ns, monotonic_ns;
};

struct tixj_drops {             /* 32 bytes, counters since start */
	uint64_t cupti_dropped;     /* sum of cuptiActivityGetNumDroppedRecords readings
	                             * (each says "since the last call") */
	uint64_t buffers_refused;   /* pool exhausted: CUPTI got no buffer */
	uint64_t no_timestamp;      /* GPU records with start == end == 0 */
	uint64_t skipped;           /* records of kinds the converter ignores */
};

struct tixj_window {            /* 16 bytes */
	int64_t ts;
	uint32_t open;              /* 1 opens, 0 closes */
	uint32_t pad;
};

/* ---- CRC-32C (Castagnoli), software, also used by the tests ---- */
uint32_t tixj_crc32c(uint32_t crc, const void *data, size_t len);

/* Encodes a chunk header for a payload (fills crcs). */
void tixj_chunk_header(struct tixj_chunk_hdr *h, enum tixj_type type, uint32_t seq,
                       const void *payload, uint32_t len, int64_t t_min, int64_t t_max);

/* Checks the chunk at p[off..n).  Returns 1 and fills *h when it is whole
 * and both checksums match and its seq is want_seq; 0 otherwise. */
int tixj_chunk_check(const uint8_t *p, size_t n, size_t off, uint32_t want_seq,
                     struct tixj_chunk_hdr *h);

/* ---- writer: used by libtixcap.so's writer thread and by tests ---- */

struct tixj_buf {
	uint8_t *p;
	size_t len, cap;
	int64_t t_min, t_max;
};

struct tixj_writer {
	char path[4096];            /* set when the file is opened */
	char dir[3072];
	int fd;                     /* -1 until the first flush with rows */
	int failed;                 /* open/write failed: drop everything */
	uint32_t seq;
	struct tixj_header hdr;
	char *cmdline;              /* NUL-separated, owned */
	size_t cmdline_len;
	struct tixj_buf stage[TIXJ_TYPE_COUNT];
	struct tixj_buf out;        /* one flush = one write(2) */
	/* interned strings: open addressing on (hash, id) */
	struct { uint64_t hash; uint32_t id, len; size_t off; } *slots;
	size_t nslots, nstrings;
	struct tixj_buf arena;      /* copies of interned strings */
	uint64_t bytes_written;
};

/* dir: where the journal goes.  Nothing is created until tixj_flush has
 * rows to write.  Returns 0, or -1 when out of memory. */
int tixj_writer_init(struct tixj_writer *w, const char *dir, const struct tixj_header *hdr,
                     const char *cmdline, size_t cmdline_len);
/* String id for bytes s[0..len) (copied); TIXJ_NONE for s == NULL. */
uint32_t tixj_intern(struct tixj_writer *w, const char *s, size_t len);
/* Stages one row of a fixed-size type; t_min/t_max widen the chunk's range.
 * Returns 0 or -1 (out of memory: the row is lost). */
int tixj_add(struct tixj_writer *w, enum tixj_type type, const void *row, int64_t ts0,
             int64_t ts1);
/* Stages a NOTE (text). */
int tixj_note(struct tixj_writer *w, const char *text);
/* Rows staged, strings excluded. */
size_t tixj_staged_rows(const struct tixj_writer *w);
/* 1 when tixj_flush would write now: the journal is open and rows are
 * staged, or rows of a recorded kind (kernels, copies, API calls, NVTX
 * markers) are staged, which opens it. */
int tixj_will_write(const struct tixj_writer *w);
/* Writes staged chunks (STRINGS first) in one write(2).  The journal is
 * created by the first flush that has recorded rows: context rows alone
 * (devices, thread names, graph nodes, clocks, drops, windows, notes) wait
 * for them, so a process whose capture window never opened writes no file.
 * Returns 0, or -1 when writing failed (the writer then drops everything;
 * w->failed says so; one line went to stderr). */
int tixj_flush(struct tixj_writer *w);
/* Writes an END chunk (only if the journal exists), closes, frees. */
void tixj_writer_close(struct tixj_writer *w, const struct tixj_drops *final);

/* ---- reader (journal_read.c) ---- */
struct tix_sink;
struct tix_error;
struct tixcap_journal_result;
/* tixcap_journal_read on bytes in memory (path only names them in
 * messages); what the tests use to cut and damage journals cheaply. */
int tixcap_journal_read_mem(const void *data, size_t n, const char *path,
                            const struct tix_sink *sink, struct tixcap_journal_result *res,
                            struct tix_error *err);

#endif /* TIX_CAPTURE_JOURNAL_H */
