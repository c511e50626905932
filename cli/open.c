/* Finding, validating, building and opening the index of a trace. */
#include "cli/cli.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cupti_capture/capture.h"
#include "index/builder.h"
#include "parse/parse.h"

#define HEAD_TAIL 65536

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Size, mtime and a hash of the first and last 64 KiB: cheap, and catches a
 * trace rewritten in place with the same size. */
static int source_identity(const char *path, uint64_t *size, int64_t *mtime, uint64_t *hash)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return -1;
	}
	*size = (uint64_t)st.st_size;
	*mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	static unsigned char buf[2 * HEAD_TAIL];
	ssize_t a = S_ISREG(st.st_mode) ? pread(fd, buf, HEAD_TAIL, 0) : 0;
	ssize_t b = 0;
	if (S_ISREG(st.st_mode) && st.st_size > HEAD_TAIL)
		b = pread(fd, buf + (a > 0 ? a : 0), HEAD_TAIL,
		          st.st_size > 2 * HEAD_TAIL ? st.st_size - HEAD_TAIL : HEAD_TAIL);
	close(fd);
	size_t n = (size_t)(a > 0 ? a : 0) + (size_t)(b > 0 ? b : 0);
	*hash = tix_hash64(buf, n, (uint64_t)st.st_size);
	return 0;
}

static int dir_writable(const char *file)
{
	char *copy = strdup(file);
	if (!copy)
		return 0;
	char *slash = strrchr(copy, '/');
	const char *dir = ".";
	if (slash) {
		*slash = '\0';
		dir = slash == copy ? "/" : copy;
	}
	int ok = access(dir, W_OK | X_OK) == 0;
	free(copy);
	return ok;
}

static int cache_dir(char *out, size_t cap)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	if (xdg && *xdg)
		snprintf(out, cap, "%s/tix", xdg);
	else if (home && *home)
		snprintf(out, cap, "%s/.cache/tix", home);
	else
		snprintf(out, cap, "/tmp/tix-%ld", (long)getuid());
	char parent[PATH_MAX];
	snprintf(parent, sizeof(parent), "%s", out);
	char *slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = '\0';
		mkdir(parent, 0755);
	}
	if (mkdir(out, 0755) != 0 && errno != EEXIST)
		return -1;
	return 0;
}

int cli_index_path(const char *trace, char *out, size_t cap)
{
	if (dir_writable(trace)) {
		snprintf(out, cap, "%s.tix", trace);
		return 0;
	}
	char dir[PATH_MAX];
	if (cache_dir(dir, sizeof(dir)) != 0)
		return -1;
	char abs[PATH_MAX];
	if (!realpath(trace, abs))
		snprintf(abs, sizeof(abs), "%s", trace);
	const char *base = strrchr(trace, '/');
	base = base ? base + 1 : trace;
	snprintf(out, cap, "%s/%016llx-%s.tix", dir,
	         (unsigned long long)tix_hash64(abs, strlen(abs), 0), base);
	return 0;
}

struct progress {
	int on;
	double last;
	const char *path;
};

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
	fprintf(stderr, "\rindexing %s [%.*s%*s] %3d%% %llu/%llu MB", p->path, fill,
	        "##############################", width - fill, "",
	        total ? (int)(100.0 * (double)done / (double)total) : 0,
	        (unsigned long long)(done >> 20), (unsigned long long)(total >> 20));
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
static void warn_on_open(const char *path, struct tix_index *ix);

static int add_capture_file(struct open_opts *o, const char *path, struct tix_error *err)
{
	char real[PATH_MAX], pb[512];
	if (!realpath(path, real))
		return tix_error_set(err, "%s: %s", tix_printable(path, pb, sizeof(pb)), strerror(errno));
	char **c = realloc(o->captures, (size_t)(o->ncaptures + 1) * sizeof(*c));
	if (!c)
		return tix_error_set(err, "out of memory");
	o->captures = c;
	if (!(c[o->ncaptures] = strdup(real)))
		return tix_error_set(err, "out of memory");
	o->ncaptures++;
	size_t old = o->capture_sources ? strlen(o->capture_sources) : 0;
	char *srcs = realloc(o->capture_sources, old + strlen(real) + 3);
	if (!srcs)
		return tix_error_set(err, "out of memory");
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
	char pb[512];
	if (stat(path, &st) != 0)
		return tix_error_set(err, "%s: %s", tix_printable(path, pb, sizeof(pb)), strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return add_capture_file(o, path, err);
	/* A folder of capture traces, as TraceLens's capture_traces/. */
	DIR *d = opendir(path);
	if (!d)
		return tix_error_set(err, "%s: %s", tix_printable(path, pb, sizeof(pb)), strerror(errno));
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
			rc = tix_error_set(err, "out of memory");
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
		return tix_error_set(err, "%s: no .json or .json.gz capture trace in this folder",
		                     tix_printable(path, pb, sizeof(pb)));
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

static int build(const char *trace, const char *out, const struct open_opts *o, uint64_t size,
                 int64_t mtime, uint64_t hash, struct tix_error *err)
{
	struct tix_build_opts bo = {
		.source_path = trace,
		.source_size = size,
		.source_mtime_ns = mtime,
		.source_hash = hash,
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
	struct open_opts co = {.no_cache = o->no_cache, .progress = o->progress};
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

static int build_with(const char *trace, const char *out, const struct open_opts *o,
                      const struct tix_build_opts *bop, struct tix_error *err)
{
	struct tix_build_opts bo = *bop;
	struct tix_builder *b = tix_builder_new(out, &bo, err);
	if (!b)
		return -1;
	struct tix_sink sink;
	tix_builder_sink(b, &sink);
	struct progress pr = {o->progress, 0, trace};
	double t0 = now_s();
	int rc;
	if (is_journal(trace)) {
		struct tixcap_journal_result jr;
		rc = tixcap_journal_read(trace, &sink, &jr, err);
	} else {
		struct tix_sink extra;
		struct tix_parse_opts po = {draw_progress, &pr, NULL, 0};
		const char *threads = getenv("TIX_THREADS"); /* 1: one parser thread */
		if (!(threads && atoi(threads) == 1) && tix_builder_sink_extra(b, &extra, err) == 0)
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
	rc = tix_builder_finish(b, err);
	if (getenv("TIX_TIMING")) /* where a build spends its time, for bench/ */
		fprintf(stderr, "tix: timing: parse %.3f s, link+aggregate+write %.3f s\n", t1 - t0,
		        now_s() - t1);
	return rc;
}

/* What the build noticed (a salvaged tail, skipped events, GPU work before
 * the trace...), said every time the index opens, one line each: an index
 * reused from the cache must not hide what the first run said. */
static void warn_on_open(const char *path, struct tix_index *ix)
{
	struct tix_summary_info si;
	tix_index_summary(ix, &si);
	char pb[512];
	tix_printable(path, pb, sizeof(pb));
	for (const char *w = si.warnings; *w;) {
		const char *e = strstr(w, "; ");
		size_t n = e ? (size_t)(e - w) : strlen(w);
		fprintf(stderr, "tix: %s: warning: %.*s\n", pb, (int)n, w);
		w += n + (e ? 2 : 0);
	}
}

int cli_open_trace(const char *path, const struct open_opts *o, struct tix_index **ix,
                   int *built, struct tix_error *err)
{
	*built = 0;
	struct stat st;
	if (stat(path, &st) != 0)
		return tix_error_set(err, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return tix_error_set(err, "%s: is a directory, not a trace", path);
	if (!S_ISREG(st.st_mode)) /* a FIFO would block; a pipe has no place for an index */
		return tix_error_set(err, "%s: not a regular file (a pipe or device): save the trace to a file first",
		                     path);
	if (is_tix(path) || ends_with(path, ".tix")) {
		if (tix_index_open(path, ix, err) != 0)
			return -1;
		warn_on_open(path, *ix);
		return 0;
	}

	uint64_t size = 0, hash = 0;
	int64_t mtime = 0;
	if (source_identity(path, &size, &mtime, &hash) != 0)
		return tix_error_set(err, "%s: %s", path, strerror(errno));

	char out[PATH_MAX];
	if (o->out)
		snprintf(out, sizeof(out), "%s", o->out);
	else if (o->no_cache) {
		char dir[PATH_MAX - 64];
		if (cache_dir(dir, sizeof(dir)) != 0)
			snprintf(dir, sizeof(dir), "/tmp");
		snprintf(out, sizeof(out), "%s/nocache-%ld-%d.tix", dir, (long)getpid(), rand() & 0xffff);
	} else if (cli_index_path(path, out, sizeof(out)) != 0) {
		return tix_error_set(err, "%s: no writable place for its index (folder and cache)", path);
	}

	if (!o->no_cache && !o->force) {
		struct tix_index *old;
		struct tix_error ignored;
		if (tix_index_open(out, &old, &ignored) == 0) {
			struct tix_source_info si;
			tix_index_source(old, &si);
			const char *want = o->step_marker ? o->step_marker : "";
			if (si.size == size && si.mtime_ns == mtime && si.hash == hash &&
			    strcmp(si.step_marker, want) == 0 &&
			    strcmp(si.capture_sources, o->capture_sources ? o->capture_sources : "") == 0) {
				*ix = old;
				warn_on_open(path, old);
				return 0;
			}
			tix_index_close(old);
		}
	}
	if (build(path, out, o, size, mtime, hash, err) != 0)
		return -1;
	*built = 1;
	int rc = tix_index_open(out, ix, err);
	if (rc == 0)
		warn_on_open(path, *ix);
	if (o->no_cache)
		unlink(out); /* the mapping stays valid */
	return rc;
}
