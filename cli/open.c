/* Finding, validating, building and opening the index of a trace. */
#include "cli/cli.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cupti_capture/capture.h"
#include "index/build/builder.h"
#include "parse/parse.h"

#define HEAD_TAIL 65536

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* What says that a trace is the one its index was built from: size,
 * mtime, a hash of its first and last 64 KiB (a trace rewritten in place
 * with the same size), and device, inode and ctime (a file of the same size
 * moved over it with its mtime put back: another inode, a new ctime). */
struct source_id {
	uint64_t size, hash, dev, ino;
	int64_t mtime_ns, ctime_ns;
	uint32_t mode; /* not part of the identity: the index's mode follows it */
};

static int source_identity(const char *path, struct source_id *id)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return -1;
	}
	id->size = (uint64_t)st.st_size;
	id->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	id->ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
	id->dev = (uint64_t)st.st_dev;
	id->ino = (uint64_t)st.st_ino;
	id->mode = (uint32_t)st.st_mode;
	static unsigned char buf[2 * HEAD_TAIL];
	ssize_t a = S_ISREG(st.st_mode) ? pread(fd, buf, HEAD_TAIL, 0) : 0;
	ssize_t b = 0;
	if (S_ISREG(st.st_mode) && st.st_size > HEAD_TAIL)
		b = pread(fd, buf + (a > 0 ? a : 0), HEAD_TAIL,
		          st.st_size > 2 * HEAD_TAIL ? st.st_size - HEAD_TAIL : HEAD_TAIL);
	close(fd);
	size_t n = (size_t)(a > 0 ? a : 0) + (size_t)(b > 0 ? b : 0);
	id->hash = tix_hash64(buf, n, (uint64_t)st.st_size);
	return 0;
}

static int same_source(const struct tix_source_info *si, const struct source_id *id)
{
	return si->size == id->size && si->mtime_ns == id->mtime_ns && si->hash == id->hash &&
	       si->dev == id->dev && si->ino == id->ino && si->ctime_ns == id->ctime_ns;
}

int cli_exit_status(const struct tix_error *err)
{
	return err->cls == TIX_ERR_ENV ? EXIT_ENV : err->cls == TIX_ERR_USAGE ? EXIT_USAGE : EXIT_BAD_INPUT;
}

struct progress {
	int on;
	double last;
	const char *path;
};

static double tv_diff(const struct timeval *a, const struct timeval *b)
{
	return (double)(a->tv_sec - b->tv_sec) + (double)(a->tv_usec - b->tv_usec) / 1e6;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void draw_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct progress *p = ctx;
	double t = now_s();
	if (!p->on || (t - p->last < 0.1 && done < total))
		return;
	p->last = t;
	int width = 30, fill = total ? (int)(width * (double)done / (double)total) : 0;
	if (fill > width)
		fill = width;
	char pb[120];
	/* MB as everywhere in tix: 10^6 bytes (485,115,167 bytes are 485 MB) */
	fprintf(stderr, "\rindexing %s [%.*s%*s] %3d%% %.0f/%.0f MB", tix_printable(p->path, pb, sizeof(pb)), fill,
	        "##############################", width - fill, "",
	        total ? (int)(100.0 * (double)done / (double)total) : 0, (double)done / 1e6, (double)total / 1e6);
	fflush(stderr);
}

static int is_tix(const char *path)
{
	char magic[8];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, magic, 8);
	close(fd);
	return n == 8 && memcmp(magic, "TIXINDEX", 8) == 0;
}

static int is_journal(const char *path)
{
	unsigned char head[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, head, sizeof(head));
	close(fd);
	return n > 0 && tixcap_is_journal(head, (size_t)n);
}

static int build_with(const char *trace, const char *out, const struct open_opts *o,
                      const struct tix_build_opts *bo, struct tix_error *err);
static void warn_on_open(const char *path, struct tix_index *ix, int as_capture);

static int add_capture_file(struct open_opts *o, const char *path, struct tix_error *err)
{
	char real[PATH_MAX];
	if (!realpath(path, real))
		return tix_error_errno(err, errno, "%s", path);
	char **c = realloc(o->captures, (size_t)(o->ncaptures + 1) * sizeof(*c));
	if (!c)
		return tix_error_oom(err, NULL);
	o->captures = c;
	if (!(c[o->ncaptures] = strdup(real)))
		return tix_error_oom(err, NULL);
	o->ncaptures++;
	size_t old = o->capture_sources ? strlen(o->capture_sources) : 0;
	char *srcs = realloc(o->capture_sources, old + strlen(real) + 3);
	if (!srcs)
		return tix_error_oom(err, NULL);
	if (old)
		memcpy(srcs + old, "; ", 2), old += 2;
	strcpy(srcs + old, real);
	o->capture_sources = srcs;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int cli_add_graph_capture(struct open_opts *o, const char *path, struct tix_error *err)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return tix_error_errno(err, errno, "%s", path);
	if (!S_ISDIR(st.st_mode))
		return add_capture_file(o, path, err);
	/* A folder of capture traces, as TraceLens's capture_traces/. */
	DIR *d = opendir(path);
	if (!d)
		return tix_error_errno(err, errno, "%s", path);
	char **names = NULL;
	size_t n = 0;
	struct dirent *de;
	int rc = 0;
	while ((de = readdir(d)) && rc == 0) {
		if (!ends_with(de->d_name, ".json") && !ends_with(de->d_name, ".json.gz"))
			continue;
		char **p = realloc(names, (n + 1) * sizeof(*p));
		if (!p || asprintf(&p[n], "%s/%s", path, de->d_name) < 0) {
			names = p ? p : names;
			rc = tix_error_oom(err, NULL);
			break;
		}
		names = p;
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = add_capture_file(o, names[i], err);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (rc == 0 && n == 0)
		return tix_error_set(err, "%s: no .json or .json.gz capture trace in this folder", path);
	return rc;
}

void cli_open_opts_done(struct open_opts *o)
{
	for (int i = 0; i < o->ncaptures; i++)
		free(o->captures[i]);
	free(o->captures);
	free(o->capture_sources);
	o->captures = NULL;
	o->capture_sources = NULL;
	o->ncaptures = 0;
}

static int build(const char *trace, const char *out, const struct open_opts *o,
                 const struct source_id *id, struct tix_error *err)
{
	struct tix_build_opts bo = {
		.source_path = trace,
		.source_size = id->size,
		.source_mtime_ns = id->mtime_ns,
		.source_hash = id->hash,
		.source_dev = id->dev,
		.source_ino = id->ino,
		.source_ctime_ns = id->ctime_ns,
		.source_mode = id->mode,
		.out_given = o->out != NULL, /* -o: the user's path */
		.max_temp = o->max_temp,
		.step_marker = o->step_marker,
		.capture_sources = o->capture_sources,
	};
	/* The capture traces are indexed (or their indexes reused) first, and
	 * stay open while the replay's index is built. */
	struct tix_index *cix[64];
	const char *cnames[64];
	int nc = 0;
	if (o->ncaptures > 64)
		return tix_error_set(err, "at most 64 capture traces");
	struct open_opts co = {.no_cache = o->no_cache, .progress = o->progress, .as_capture = 1,
	                       .strict = o->strict, .max_temp = o->max_temp};
	for (; nc < o->ncaptures; nc++) {
		int built;
		if (cli_open_trace(o->captures[nc], &co, &cix[nc], &built, err) != 0) {
			while (nc > 0)
				tix_index_close(cix[--nc]);
			return -1;
		}
		const char *slash = strrchr(o->captures[nc], '/');
		cnames[nc] = slash ? slash + 1 : o->captures[nc];
	}
	bo.captures = (const struct tix_index *const *)cix;
	bo.capture_names = cnames;
	bo.ncaptures = (uint32_t)nc;
	int rc = build_with(trace, out, o, &bo, err);
	while (nc > 0)
		tix_index_close(cix[--nc]);
	return rc;
}

/* The knobs of tests and bench/, read from the environment here and only
 * here: parse/ and index/ get them in their options (docs/PERFORMANCE.md,
 * docs/RELIABILITY.md say what each is for). */
struct knobs {
	int one_thread;      /* TIX_THREADS=1: parse and finish on one thread */
	uint32_t split_rows; /* TIX_SPLIT_ROWS=N: the finish split from N rows (0: 65536) */
	uint64_t split_min;  /* TIX_SPLIT_MIN=N: traces from N bytes parsed by two threads */
	size_t parse_window; /* TIX_PARSE_WINDOW=N: parse windows of N bytes (tests: small) */
	int timing;          /* TIX_TIMING: where a build spends its time, on stderr */
	int no_fallocate;    /* TIX_NO_FALLOCATE: the path of file systems without fallocate */
	int inflate_zlib;    /* TIX_INFLATE=zlib: zlib where ISA-L is built in */
	const char *fail_phase; /* TIX_FAIL_PHASE=NAME: that phase of the finish fails (rel_phases) */
	double recut_to;     /* TIX_RECUT_TO=F: the parse's cut moved to F of the bytes (rel_recut) */
};

static void read_knobs(struct knobs *k)
{
	const char *threads = getenv("TIX_THREADS"), *split_rows = getenv("TIX_SPLIT_ROWS");
	const char *split_min = getenv("TIX_SPLIT_MIN"), *window = getenv("TIX_PARSE_WINDOW");
	const char *inflate = getenv("TIX_INFLATE");
	memset(k, 0, sizeof *k);
	k->one_thread = threads && atoi(threads) == 1;
	if (split_rows && atol(split_rows) > 0)
		k->split_rows = (uint32_t)atol(split_rows);
	if (split_min && atoll(split_min) > 0)
		k->split_min = (uint64_t)atoll(split_min);
	if (window && atol(window) >= 256)
		k->parse_window = (size_t)atol(window);
	k->timing = getenv("TIX_TIMING") != NULL;
	k->no_fallocate = getenv("TIX_NO_FALLOCATE") != NULL;
	k->inflate_zlib = inflate && strcmp(inflate, "zlib") == 0;
	k->fail_phase = getenv("TIX_FAIL_PHASE");
	const char *recut_to = getenv("TIX_RECUT_TO");
	double f = recut_to ? atof(recut_to) : 0;
	k->recut_to = f > 0 && f < 1 ? f : 0;
}

static int build_with(const char *trace, const char *out, const struct open_opts *o,
                      const struct tix_build_opts *bop, struct tix_error *err)
{
	struct tix_build_opts bo = *bop;
	struct knobs k;
	read_knobs(&k);
	if (k.one_thread)
		bo.split_rows = UINT32_MAX;
	else if (k.split_rows)
		bo.split_rows = k.split_rows;
	bo.timing = k.timing;
	bo.no_fallocate = k.no_fallocate;
	bo.fail_phase = k.fail_phase;
	struct tix_builder *b = tix_builder_new(out, &bo, err);
	if (!b)
		return -1;
	struct tix_sink sink;
	tix_builder_sink(b, &sink);
	struct progress pr = {o->progress, 0, trace};
	double t0 = now_s();
	struct rusage u0, u1, u2;
	getrusage(RUSAGE_SELF, &u0);
	int rc;
	if (is_journal(trace)) {
		struct tixcap_journal_result jr;
		rc = tixcap_journal_read(trace, &sink, &jr, err);
	} else {
		struct tix_sink extra;
		struct tix_parse_opts po = {.progress = draw_progress,
		                            .progress_ctx = &pr,
		                            .split_min = k.split_min,
		                            .strict = o->strict,
		                            .window = k.parse_window,
		                            .timing = k.timing,
		                            .inflate_zlib = k.inflate_zlib,
		                            .recut_to = k.recut_to};
		if (!k.one_thread && tix_builder_sink_extra(b, &extra, err) == 0)
			po.extra_sink = &extra; /* two threads on large traces */
		struct tix_parse_result res;
		rc = tix_parse_trace(trace, &sink, &po, &res, err);
	}
	if (pr.on)
		fputs("\r\033[K", stderr);
	if (rc != 0) {
		tix_builder_abort(b);
		return -1;
	}
	double t1 = now_s();
	getrusage(RUSAGE_SELF, &u1);
	rc = tix_builder_finish(b, err);
	getrusage(RUSAGE_SELF, &u2);
	/* Where a build spends its time, for bench/: wall, then the process's
	 * CPU in user code and in the kernel (the kernel's share is mostly
	 * first touches of fresh pages, which depend on the machine; docs/
	 * PERFORMANCE.md, "Round 8"). */
	if (k.timing)
		fprintf(stderr,
		        "tix: timing: parse %.3f s, link+aggregate+write %.3f s; CPU user+sys: parse %.3f+%.3f s, "
		        "finish %.3f+%.3f s\n",
		        t1 - t0, now_s() - t1, tv_diff(&u1.ru_utime, &u0.ru_utime), tv_diff(&u1.ru_stime, &u0.ru_stime),
		        tv_diff(&u2.ru_utime, &u1.ru_utime), tv_diff(&u2.ru_stime, &u1.ru_stime));
	return rc;
}

/* A cached index found damaged while a command reads it: the command
 * cannot go on (queries do not fail), but the index is removed, so that the
 * next run builds it again. */
static void drop_damaged(const struct tix_index *ix, void *ctx, const char *msg)
{
	(void)ctx;
	fflush(stdout);
	int gone = unlink(tix_index_path(ix)) == 0;
	fprintf(stderr, "tix: %s%s\n", msg,
	        gone ? " (the cached index is removed: the next run builds it again)" : "");
	exit(EXIT_BAD_INPUT);
}

/* A valid index at out built from this very source, with the same step
 * marker and capture traces: reused as it is.  Damage seen at open (or by
 * o->check_all) makes it rebuilt; damage a query meets later, drop_damaged. */
static int reuse(const char *out, const struct open_opts *o, const struct source_id *id,
                 struct tix_index **ix, uint32_t *foreign_uid)
{
	struct tix_index *old;
	struct tix_error ignored;
	if (tix_index_open(out, &old, &ignored) != 0)
		return -1;
	enum index_trust trust = cli_index_trust(old);
	if (trust != TRUST_OK) { /* cli/cache.c: planted, or open to others */
		struct tix_file_info f;
		tix_index_file(old, &f);
		*foreign_uid = f.uid;
		tix_index_close(old);
		return trust == TRUST_FOREIGN ? -2 : -1;
	}
	if (o->check_all && tix_index_check_all(old, &ignored) != 0) {
		tix_index_close(old);
		return -1;
	}
	tix_index_on_damage(old, drop_damaged, NULL);
	struct tix_source_info si;
	tix_index_source(old, &si);
	const char *want = o->step_marker ? o->step_marker : "";
	struct tix_summary_info sum;
	tix_index_summary(old, &sum);
	if (o->strict && strstr(sum.warnings, TIX_PARSE_MALFORMED)) {
		tix_index_close(old); /* built without --strict: built again, which says what is wrong */
		return -1;
	}
	/* an index an older tix wrote is read as it is when given, but rebuilt
	 * from its trace: its labels and figures follow older rules */
	if (sum.format_version == TIX_INDEX_VERSION && same_source(&si, id) && strcmp(si.step_marker, want) == 0 &&
	    strcmp(si.capture_sources, o->capture_sources ? o->capture_sources : "") == 0) {
		*ix = old;
		return 0;
	}
	tix_index_close(old);
	return -1;
}

/* What the build noticed (a salvaged tail, skipped events, GPU work before
 * the trace...), said every time the index opens, one line each: an index
 * reused from the cache must not hide what the first run said.  A trace
 * opened as the capture of another gets no advice to give it a capture of
 * its own: its replays are said as what they are. */
static void warn_on_open(const char *path, struct tix_index *ix, int as_capture)
{
	struct tix_summary_info si;
	tix_index_summary(ix, &si);
	char pb[512];
	tix_printable(path, pb, sizeof(pb));
	for (const char *w = si.warnings; *w;) {
		const char *e = strstr(w, "; ");
		size_t n = e ? (size_t)(e - w) : strlen(w);
		/* the index's words: a stranger's, maybe, so made printable */
		char one[1024], wb[1200];
		const char *advice = strstr(w, ": give the profile of the graph capture");
		int capture = as_capture && advice && advice < w + n;
		snprintf(one, sizeof one, "%.*s", capture ? (int)(advice - w) : (int)n, w);
		tix_printable(one, wb, sizeof wb);
		if (capture)
			fprintf(stderr, "tix: %s: warning: %s in this capture trace itself: they are not attributed "
			        "(it is given as the capture of another trace)\n", pb, wb);
		else
			fprintf(stderr, "tix: %s: warning: %s\n", pb, wb);
		w += n + (e ? 2 : 0);
	}
}

/* One line on stderr, once a process: what tix decided about a place it
 * does not trust (cli/cache.c), so that a reader knows why it rebuilt. */
__attribute__((format(printf, 1, 2))) static void note_once(const char *fmt, ...)
{
	static int said;
	if (said++)
		return;
	char raw[1024], pb[1100];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	fprintf(stderr, "tix: %s\n", tix_printable(raw, pb, sizeof pb));
}

static const char *cache_dir_shown(void)
{
	static char dir[PATH_MAX];
	char why[160];
	cli_cache_dir(dir, sizeof dir, why, sizeof why); /* its path, usable or not */
	return dir;
}

/* Where an index for this command alone goes: the cache when it is usable
 * (on disk, where the spills have room), else a folder made for it (priv,
 * removed by drop_private).  A name nobody can guess either way. */
static int private_place(const struct open_opts *o, char *place, char *priv, struct tix_error *err)
{
	char dir[PATH_MAX - 64], why[160], rnd[13];
	if (tix_random_name(rnd, 12) != 0)
		return tix_error_sys(err, errno, "no random bytes for a temporary name");
	rnd[12] = 0;
	if (!o->no_cache || cli_cache_dir(dir, sizeof dir, why, sizeof why) != 0) {
		if (cli_private_dir(priv, PATH_MAX - 64) != 0)
			return tix_error_sys(err, errno,
			                     "cannot make a private folder for the index");
		snprintf(dir, sizeof dir, "%s", priv);
	}
	snprintf(place, PATH_MAX, "%s/nocache-%ld-%s.tix", dir, (long)getpid(), rnd);
	return 0;
}

static void drop_private(const char *place, char *priv)
{
	unlink(place);
	if (priv[0])
		rmdir(priv);
	priv[0] = 0;
}

int cli_check_trace(const char *path, struct tix_error *err)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return tix_error_errno(err, errno, "%s", path);
	if (S_ISDIR(st.st_mode))
		return tix_error_set(err, "%s: is a directory, not a trace", path);
	if (!S_ISREG(st.st_mode)) /* a FIFO would block; a pipe has no place for an index */
		return tix_error_set(err, "%s: not a regular file (a pipe or device): save the trace to a file first",
		                     path);
	return 0;
}

int cli_open_trace(const char *path, const struct open_opts *o, struct tix_index **ix,
                   int *built, struct tix_error *err)
{
	*built = 0;
	if (cli_check_trace(path, err) != 0)
		return -1;
	if (o->where)
		*o->where = PLACE_GIVEN;
	if (is_tix(path) || ends_with(path, ".tix")) {
		if (o->opened)
			snprintf(o->opened, o->opened_cap, "%s", path);
		if (tix_index_open(path, ix, err) != 0)
			return -1;
		if (o->check_all && tix_index_check_all(*ix, err) != 0) {
			tix_index_close(*ix);
			*ix = NULL;
			return -1;
		}
		warn_on_open(path, *ix, o->as_capture);
		return 0;
	}

	struct source_id id;
	if (source_identity(path, &id) != 0)
		return tix_error_errno(err, errno, "%s", path);

	char places[2][PATH_MAX], why[160] = "", priv[PATH_MAX] = "";
	int nplaces = 0, cache_at = -1, beside_ro = 0, use[2] = {1, 1};
	if (o->out) {
		snprintf(places[0], PATH_MAX, "%s", o->out);
		nplaces = 1;
	} else if (!o->no_cache) {
		nplaces = cli_index_places(path, places, &cache_at, &beside_ro, why, sizeof why);
	}
	int at = -1;
	uint32_t foreign = 0;
	if (!o->no_cache && !o->force)
		for (int i = 0; i < nplaces && at < 0; i++) {
			int r = reuse(places[i], o, &id, ix, &foreign);
			if (r == 0)
				at = i;
			else if (r == -2 && !o->out)
				use[i] = 0; /* another user's index: not used, not replaced */
		}
	int alone = o->no_cache && !o->out; /* an index for this command alone, removed once open */
	if (at < 0) {
		int note_foreign = !use[0];
		if (beside_ro)
			use[0] = 0; /* read if it was good, but the folder is not the user's to write */
		int mine = 0, refused = why[0] != 0 || note_foreign; /* the user's places left to build in */
		for (int i = 0; i < nplaces; i++)
			mine += use[i];
		/* no place of the user's because tix refused one (another user's
		 * index, a cache others can write): for this command alone; no
		 * place at all (no folder, no cache) is an error, below */
		alone |= !o->out && mine == 0 && refused;
		if (note_foreign)
			note_once("%s: not used: it belongs to uid %u (not to you, nor root); tix builds its own %s",
			          places[0], (unsigned)foreign, alone ? "for this command alone" : "in the cache");
		if (alone && !o->no_cache && why[0])
			note_once("%s: not used as the index cache: %s; the index is built for this command alone",
			          cache_dir_shown(), why);
		if (alone) {
			if (private_place(o, places[0], priv, err) != 0)
				return -1;
			nplaces = 1;
			use[0] = 1;
		}
		/* Beside the trace first; when the system refuses there (a full
		 * folder, something in the way), in the cache. */
		struct tix_error first = {0};
		int tried = 0;
		for (int i = 0; i < nplaces && at < 0; i++) {
			if (!use[i])
				continue;
			if (build(path, places[i], o, &id, err) == 0) {
				at = i;
			} else if (err->cls != TIX_ERR_ENV || tried++) {
				if (tried > 1) {
					/* both in one line that fits err->msg: the first place's
					 * message is cut (marked "...") rather than the cache's,
					 * which says where the second try went; long paths made
					 * the cut fall inside it */
					const char *sep = "; and in the cache: ";
					size_t room = sizeof(err->msg) - 1, n1 = strlen(first.msg), n2 = strlen(err->msg);
					size_t keep1 = n1 + strlen(sep) + n2 <= room ? n1
					               : room > strlen(sep) + n2 + 3 + room / 4 ? room - strlen(sep) - n2 - 3
					                                                        : room / 4;
					char both[2 * sizeof(err->msg) + 32];
					snprintf(both, sizeof(both), "%.*s%s%s%s", (int)keep1, first.msg, keep1 < n1 ? "..." : "",
					         sep, err->msg);
					tix_error_env(err, "%s", both);
				}
				if (alone)
					drop_private(places[0], priv);
				return -1;
			} else {
				first = *err;
			}
		}
		if (at < 0) {
			if (alone)
				drop_private(places[0], priv);
			return tried ? -1 : tix_error_env(err, "%s: no writable place for its index (folder and cache)", path);
		}
		*built = 1;
		int rc = tix_index_open(places[at], ix, err);
		if (alone)
			drop_private(places[at], priv); /* the mapping stays valid */
		if (rc != 0)
			return -1;
	}
	warn_on_open(path, *ix, o->as_capture);
	if (o->opened)
		snprintf(o->opened, o->opened_cap, "%s", places[at]);
	if (o->where && !o->out)
		*o->where = alone ? PLACE_PRIVATE : at == cache_at ? PLACE_CACHE : PLACE_BESIDE;
	return 0;
}

const char *cli_place_label(enum index_place p)
{
	switch (p) {
	case PLACE_GIVEN: return "as given";
	case PLACE_BESIDE: return "beside the trace";
	case PLACE_CACHE: return "in the cache";
	case PLACE_PRIVATE: return "private to this command, deleted after it";
	}
	return "?";
}
