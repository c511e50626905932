/* The builder's stores: spill arrays (mapped temporary files that hold
 * what grows with the trace), interned strings and deduplicated records
 * (what grows only with distinct values).  Declared in builder_int.h. */
#include "index/index.h"
#include "index/grow.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "index/build/builder_int.h"

#define TEMP_MARGIN_MAX 1000000000ull /* 1 GB */

/* ---- spill arrays ---- */

void temp_budget_init(struct temp_budget *tb, const char *dir, uint64_t max, int no_fallocate)
{
	atomic_init(&tb->used, 0);
	tb->no_fallocate = no_fallocate;
	tb->limit = UINT64_MAX;
	tb->margin = 0;
	tb->given = 0;
	tb->on = 1;
	tb->dir = dir;
	struct statvfs v;
	if (statvfs(dir, &v) == 0 && v.f_frsize) {
		uint64_t avail = (uint64_t)v.f_bavail * v.f_frsize, size = (uint64_t)v.f_blocks * v.f_frsize;
		/* kept free for the others on the host: 5% of the file system, at most 1 GB */
		tb->margin = size / 20 < TEMP_MARGIN_MAX ? size / 20 : TEMP_MARGIN_MAX;
		tb->limit = avail > tb->margin ? avail - tb->margin : 0;
	}
	if (max) { /* the user's bound, whatever the free space says */
		tb->limit = max;
		tb->given = 1;
	}
}

static const char *mb(uint64_t bytes, char *buf, size_t cap)
{
	snprintf(buf, cap, bytes >= 1000000000 ? "%.3g GB" : "%.3g MB", bytes >= 1000000000 ? bytes / 1e9 : bytes / 1e6);
	return buf;
}

/* The growth from here to `to` against tb's bound: 0, or -1 (err set). */
static int budget_take(struct temp_budget *tb, uint64_t grow, const char *label, struct tix_error *err)
{
	if (!tb || !tb->on || !grow)
		return 0;
	uint64_t now = atomic_fetch_add(&tb->used, grow) + grow;
	if (now <= tb->limit)
		return 0;
	atomic_fetch_sub(&tb->used, grow);
	char need[32], bound[32], keep[32];
	mb(now, need, sizeof need);
	mb(tb->limit, bound, sizeof bound);
	if (tb->given)
		return tix_error_env(err, "%s: the build would take more than %s of disk in %s, past --max-temp (%s): "
		                     "stopped there", label, need, tb->dir, bound);
	return tix_error_env(err, "%s: the build would take more than %s of disk in %s, past its free space less %s "
	                     "kept for others (%s): stopped before the disk fills (--max-temp SIZE bounds it lower, -o "
	                     "puts the index elsewhere)", label, need, tb->dir, mb(tb->margin, keep, sizeof keep), bound);
}

int file_reserve(struct temp_budget *tb, int fd, size_t from, size_t to, struct tix_error *err, const char *fmt, ...)
{
	/* Blocks for real, not a sparse hole: a full disk is then an error
	 * here, not a SIGBUS when a mapped page is first written. */
	if (to <= from)
		return 0;
	char what[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	struct stat st;
	if (fstat(fd, &st) != 0)
		return tix_error_sys(err, errno, "%s", what);
	size_t have = (size_t)st.st_size > from ? (size_t)st.st_size : from;
	if (budget_take(tb, to > have ? to - have : 0, what, err) != 0)
		return -1;
	int no_fallocate = tb && tb->no_fallocate; /* tests take the fallback on any file system */
	if (!no_fallocate && fallocate(fd, 0, (off_t)from, (off_t)(to - from)) == 0)
		return 0;
	if (!no_fallocate && errno != EOPNOTSUPP && errno != ENOSYS)
		return tix_error_sys(err, errno, "%s", what);
	/* No fallocate (ext2, some network file systems): a byte written in
	 * every block past the end allocates it, so a full disk is ENOSPC
	 * here too (what glibc's posix_fallocate does there). */
	size_t blk = st.st_blksize > 0 ? (size_t)st.st_blksize : 4096;
	size_t start = (size_t)st.st_size > from ? (size_t)st.st_size : from;
	for (size_t off = start; off < to; off = (off / blk + 1) * blk)
		if (pwrite(fd, "", 1, (off_t)off) != 1)
			return tix_error_sys(err, errno, "%s", what);
	if (ftruncate(fd, (off_t)to) != 0)
		return tix_error_sys(err, errno, "%s", what);
	return 0;
}

int spill_init(struct spill *s, const char *dir, const char *label, size_t elem, struct temp_budget *tb,
               struct tix_error *err)
{
	memset(s, 0, sizeof(*s));
	s->elem = elem;
	s->label = label;
	s->budget = tb;
	s->fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (s->fd < 0) {
		/* O_TMPFILE is not supported everywhere (some network file
		 * systems): fall back on a named file unlinked at once. */
		char path[4096];
		snprintf(path, sizeof(path), "%s/.tix-spill-XXXXXX", dir);
		s->fd = mkostemp(path, O_CLOEXEC);
		if (s->fd < 0)
			return tix_error_sys(err, errno, "%s: cannot create a temporary file in %s", label, dir);
		unlink(path);
	}
	return 0;
}

static int spill_reserve(struct spill *s, size_t need, struct tix_error *err)
{
	if (need <= s->cap)
		return 0;
	size_t cap = s->cap ? s->cap : (1u << 20) / s->elem;
	while (cap < need)
		cap *= 2;
	size_t bytes = cap * s->elem;
	if (file_reserve(s->budget, s->fd, s->cap * s->elem, bytes, err, "%s: cannot grow a temporary file to %zu MB",
	                 s->label, (bytes + (1 << 20) - 1) >> 20) != 0)
		return -1;
	void *p;
	if (s->base)
		p = mremap(s->base, s->cap * s->elem, bytes, MREMAP_MAYMOVE);
	else
		p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
	if (p == MAP_FAILED)
		return tix_error_sys(err, errno, "%s: cannot map a temporary file", s->label);
	s->base = p;
	s->cap = cap;
	return 0;
}

int spill_stage_init(struct spill *s, const char *dir, const char *label, size_t elem, struct temp_budget *tb,
                     struct tix_error *err)
{
	if (spill_init(s, dir, label, elem, tb, err) != 0)
		return -1;
	s->stage = malloc(SPILL_STAGE);
	if (!s->stage)
		return tix_error_oom(err, label);
	return 0;
}

int file_pwrite(int fd, const void *buf, size_t len, uint64_t off)
{
	for (size_t done = 0; done < len;) {
		ssize_t w = pwrite(fd, (const char *)buf + done, len - done, (off_t)(off + done));
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : ENOSPC;
		done += (size_t)w;
	}
	return 0;
}

/* The staged elements written to the file, after the ones before them.
 * pwrite() allocates the blocks, so a full disk is ENOSPC here, as
 * file_reserve makes it for a mapped spill. */
static int stage_flush(struct spill *s, struct tix_error *err)
{
	size_t bytes = (s->n - s->staged) * s->elem, off = s->staged * s->elem;
	if (budget_take(s->budget, bytes, s->label, err) != 0)
		return -1;
	int e = file_pwrite(s->fd, s->stage, bytes, off);
	if (e)
		return tix_error_sys(err, e, "%s: cannot grow a temporary file to %zu MB", s->label,
		                     (off + bytes + (1 << 20) - 1) >> 20);
	s->staged = s->n;
	return 0;
}

int spill_seal(struct spill *s, struct tix_error *err)
{
	if (!s->stage)
		return 0;
	if (stage_flush(s, err) != 0)
		return -1;
	free(s->stage);
	s->stage = NULL;
	if (s->n == 0)
		return 0;
	void *p = mmap(NULL, s->n * s->elem, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
	if (p == MAP_FAILED)
		return tix_error_sys(err, errno, "%s: cannot map a temporary file", s->label);
	s->base = p;
	s->cap = s->n; /* the file's size: growing it again reserves from there */
	return 0;
}

void *spill_push(struct spill *s, size_t n, struct tix_error *err)
{
	if (s->stage && n != 1 && spill_seal(s, err) != 0)
		return NULL;
	if (s->stage) {
		if ((s->n - s->staged + 1) * s->elem > SPILL_STAGE && stage_flush(s, err) != 0)
			return NULL;
		return s->stage + (s->n++ - s->staged) * s->elem;
	}
	if (spill_reserve(s, s->n + n, err) != 0)
		return NULL;
	void *p = s->base + s->n * s->elem;
	s->n += n;
	return p;
}

int spill_resize(struct spill *s, size_t n, struct tix_error *err)
{
	if (spill_reserve(s, n ? n : 1, err) != 0)
		return -1;
	s->n = n;
	return 0;
}

void spill_retype(struct spill *s, size_t elem)
{
	size_t bytes = s->cap * s->elem;
	s->elem = elem;
	s->cap = bytes / elem;
	s->n = 0;
}

void spill_done(struct spill *s)
{
	if (s->budget && s->fd > 0) { /* its blocks go back with it */
		struct stat st;
		if (fstat(s->fd, &st) == 0)
			atomic_fetch_sub(&s->budget->used, (uint64_t)st.st_size);
	}
	if (s->base)
		munmap(s->base, s->cap * s->elem);
	if (s->fd > 0)
		close(s->fd);
	free(s->stage);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}

static void *reap_all(void *arg)
{
	struct spill_reaper *r = arg;
	for (int i = 0; i < r->n; i++)
		spill_done(&r->spills[i]);
	r->n = 0;
	return NULL;
}

void spill_reap(struct spill_reaper *r, struct spill *s, int n)
{
	spill_reap_join(r);
	for (int i = 0; i < n; i++) {
		if (r->n < REAP_MAX && s[i].base)
			r->spills[r->n++] = s[i];
		else
			spill_done(&s[i]);
		memset(&s[i], 0, sizeof(s[i]));
		s[i].fd = -1;
	}
	/* Signals go to the threads that asked (curses' SIGWINCH, ^C), as
	 * for the index checker (check.c): this one only frees. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r->running = r->n && pthread_create(&r->th, NULL, reap_all, r) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!r->running)
		reap_all(r);
}

void spill_reap_join(struct spill_reaper *r)
{
	if (r->running)
		pthread_join(r->th, NULL);
	r->running = 0;
}

/* ---- interned strings ---- */

int intern_init(struct intern *t)
{
	memset(t, 0, sizeof(*t));
	t->nslots = 1024;
	t->slots = calloc(t->nslots, sizeof(*t->slots));
	t->slot_hash = calloc(t->nslots, sizeof(*t->slot_hash));
	t->cap = 256;
	t->offsets = malloc((t->cap + 1) * sizeof(*t->offsets));
	t->data_cap = 1 << 16;
	t->data = malloc(t->data_cap);
	if (!t->slots || !t->slot_hash || !t->offsets || !t->data)
		return -1;
	t->offsets[0] = 0;
	return 0;
}

void intern_done(struct intern *t)
{
	free(t->data);
	free(t->offsets);
	free(t->slots);
	free(t->slot_hash);
	memset(t, 0, sizeof(*t));
}

static int intern_grow_slots(struct intern *t)
{
	uint32_t nslots = t->nslots * 2;
	uint32_t *slots = calloc(nslots, sizeof(*slots));
	uint64_t *hashes = calloc(nslots, sizeof(*hashes));
	if (!slots || !hashes) {
		free(slots);
		free(hashes);
		return -1;
	}
	for (uint32_t i = 0; i < t->nslots; i++) {
		if (!t->slots[i])
			continue;
		uint32_t j = (uint32_t)t->slot_hash[i] & (nslots - 1);
		while (slots[j])
			j = (j + 1) & (nslots - 1);
		slots[j] = t->slots[i];
		hashes[j] = t->slot_hash[i];
	}
	free(t->slots);
	free(t->slot_hash);
	t->slots = slots;
	t->slot_hash = hashes;
	t->nslots = nslots;
	return 0;
}

/* Long strings (C++ kernel names run to kilobytes) are hashed by samples:
 * their length, both ends and 16 slices between.  A collision only costs a
 * memcmp that fails early. */
static uint32_t intern_add_hashed(struct intern *t, const char *p, size_t len);

static uint64_t intern_hash(const char *p, size_t len)
{
	if (len <= 512)
		return tix_hash64(p, len, 0);
	char sample[128 + 128 + 16 * 16];
	memcpy(sample, p, 128);
	memcpy(sample + 128, p + len - 128, 128);
	size_t step = (len - 256) / 17;
	for (int i = 0; i < 16; i++)
		memcpy(sample + 256 + 16 * i, p + 128 + step * (size_t)(i + 1), 16);
	return tix_hash64(sample, sizeof(sample), len);
}

static uint32_t recent_slot(const char *p, size_t len)
{
	uint64_t a = 0, b = 0;
	memcpy(&a, p, len < 8 ? len : 8);
	if (len > 8)
		memcpy(&b, p + len - 8, 8);
	uint64_t k = (a ^ (b * 0x9E3779B97F4A7C15ULL) ^ len) * 0xC2B2AE3D27D4EB4FULL;
	return (uint32_t)(k >> (64 - INTERN_RECENT_BITS));
}

uint32_t intern_add(struct intern *t, const char *p, size_t len)
{
	uint32_t rs = recent_slot(p, len);
	uint32_t r = t->recent[rs];
	if (r && intern_len(t, r - 1) == len && memcmp(intern_str(t, r - 1), p, len) == 0)
		return r - 1;
	uint32_t id = intern_add_hashed(t, p, len);
	if (id != TIX_NONE)
		t->recent[rs] = id + 1;
	return id;
}

static uint32_t intern_add_hashed(struct intern *t, const char *p, size_t len)
{
	uint64_t h = intern_hash(p, len);
	uint32_t mask = t->nslots - 1;
	uint32_t j = (uint32_t)h & mask;
	for (; t->slots[j]; j = (j + 1) & mask) {
		if (t->slot_hash[j] != h)
			continue;
		uint32_t id = t->slots[j] - 1;
		if (intern_len(t, id) == len && memcmp(intern_str(t, id), p, len) == 0)
			return id;
	}
	if (t->n >= UINT32_MAX - 2)
		return TIX_NONE;
	if (tix_grow(&t->data, &t->data_cap, t->data_len + len + 1, 1, 1) != 0)
		return TIX_NONE;
	if (t->n + 1 >= t->cap) {
		uint64_t *o = realloc(t->offsets, (size_t)(t->cap * 2 + 1) * sizeof(*o));
		if (!o)
			return TIX_NONE;
		t->offsets = o;
		t->cap *= 2;
	}
	uint32_t id = t->n++;
	memcpy(t->data + t->data_len, p, len);
	t->data[t->data_len + len] = '\0';
	t->data_len += len + 1;
	t->offsets[t->n] = t->data_len;
	t->slots[j] = id + 1;
	t->slot_hash[j] = h;
	if ((uint64_t)t->n * 2 > t->nslots && intern_grow_slots(t) != 0)
		return TIX_NONE;
	return id;
}

/* ---- deduplicated records ---- */

int dedup_init(struct dedup *d, size_t elem)
{
	memset(d, 0, sizeof(*d));
	d->elem = elem;
	d->nslots = 256;
	d->slots = calloc(d->nslots, sizeof(*d->slots));
	d->cap = 64;
	d->recs = malloc(d->cap * elem);
	return d->slots && d->recs ? 0 : -1;
}

void dedup_done(struct dedup *d)
{
	free(d->recs);
	free(d->slots);
	memset(d, 0, sizeof(*d));
}

static uint32_t dedup_slot(const struct dedup *d, uint32_t *slots, uint32_t nslots,
                           const void *rec)
{
	uint32_t mask = nslots - 1;
	uint32_t j = (uint32_t)tix_hash64(rec, d->elem, 1) & mask;
	while (slots[j] && memcmp(d->recs + (size_t)(slots[j] - 1) * d->elem, rec, d->elem) != 0)
		j = (j + 1) & mask;
	return j;
}

uint32_t dedup_add(struct dedup *d, const void *rec)
{
	uint32_t j = dedup_slot(d, d->slots, d->nslots, rec);
	if (d->slots[j])
		return d->slots[j] - 1;
	if (tix_grow32(&d->recs, &d->cap, (size_t)d->n + 2, d->elem, 1) != 0) /* one spare */
		return TIX_NONE;
	uint32_t id = d->n++;
	memcpy(d->recs + (size_t)id * d->elem, rec, d->elem);
	d->slots[j] = id + 1;
	if ((uint64_t)d->n * 2 > d->nslots) {
		uint32_t nslots = d->nslots * 2;
		uint32_t *slots = calloc(nslots, sizeof(*slots));
		if (!slots)
			return TIX_NONE;
		for (uint32_t i = 0; i < d->n; i++)
			slots[dedup_slot(d, slots, nslots, d->recs + (size_t)i * d->elem)] = i + 1;
		free(d->slots);
		d->slots = slots;
		d->nslots = nslots;
	}
	return id;
}

