/* Shared by the tix fuzz targets: see fuzz_common.h. */
#include "fuzz/fuzz_common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "index/format.h"

static char dir[4096];

static void die(const char *what)
{
	fprintf(stderr, "tix fuzz: %s\n", what);
	abort();
}

static void remove_dir(void)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	char p[8192];
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
			unlink(p);
		}
	closedir(d);
	rmdir(dir);
}

const char *fuzz_dir(void)
{
	if (dir[0])
		return dir;
	const char *base = getenv("TMPDIR");
	if (!base || !*base)
		base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(dir, sizeof(dir), "%s/tix-fuzz-XXXXXX", base);
	if (!mkdtemp(dir))
		die("cannot create the scratch folder");
	atexit(remove_dir);
	return dir;
}

const char *fuzz_write(const char *name, const uint8_t *data, size_t size)
{
	static char path[8192];
	snprintf(path, sizeof(path), "%s/%s", fuzz_dir(), name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die("cannot write the input file");
	for (size_t done = 0; done < size;) {
		ssize_t w = write(fd, data + done, size - done);
		if (w <= 0)
			die("cannot write the input file");
		done += (size_t)w;
	}
	close(fd);
	return path;
}

void fuzz_check_message(const char *what, const char *msg, const char *path)
{
	if (!msg[0] || strchr(msg, '\n') || (path && !strstr(msg, path))) {
		fprintf(stderr, "tix fuzz: %s: bad error message \"%s\" (must be one line%s%s)\n", what,
		        msg, path ? " naming " : "", path ? path : "");
		abort();
	}
}

static unsigned char fds_at_start[1024];

void fuzz_begin(void)
{
	memset(fds_at_start, 0, sizeof(fds_at_start));
	for (int fd = 0; fd < 1024; fd++)
		fds_at_start[fd] = fcntl(fd, F_GETFD) != -1;
}

void fuzz_check_clean(const char *const *keep)
{
	/* a descriptor opened since fuzz_begin() that still points into the
	 * scratch folder (a file tix made there, deleted or not) was leaked;
	 * descriptors of libFuzzer's own threads point elsewhere */
	for (int fd = 0; fd < 1024; fd++) {
		if (fds_at_start[fd] || fcntl(fd, F_GETFD) == -1)
			continue;
		char link[64], target[8192];
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		ssize_t n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strncmp(target, fuzz_dir(), strlen(fuzz_dir())) == 0) {
			fprintf(stderr, "tix fuzz: file descriptor %d leaked: %s\n", fd, target);
			abort();
		}
	}
	DIR *d = opendir(fuzz_dir());
	if (!d)
		die("cannot list the scratch folder");
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		int kept = 0;
		for (const char *const *k = keep; k && *k; k++)
			kept |= !strcmp(*k, e->d_name);
		if (!kept) {
			fprintf(stderr, "tix fuzz: file left behind: %s/%s\n", dir, e->d_name);
			abort();
		}
	}
	closedir(d);
}

static volatile uint64_t sink;

static void read_str(const struct tix_index *ix, uint32_t id)
{
	const char *s = tix_str(ix, id);
	size_t n = strlen(s);
	/* a string may hold a NUL of its own (from a damaged file, or JSON
	 * "\u0000"): strlen may be shorter, never longer */
	if (id != TIX_NONE && n > tix_str_len(ix, id))
		die("strlen runs past tix_str_len");
	sink += n;
	char shortn[64];
	sink += tix_short_name(s, n, shortn, sizeof(shortn));
}

static void read_group(const struct tix_index *ix, const struct tix_group *g)
{
	read_str(ix, g->name);
	sink += strlen(tix_kind_label((enum tix_kind)g->kind));
	const uint32_t *m = tix_members(ix, g->members_first, g->members_count);
	for (uint32_t k = 0; m && k < g->members_count; k++) {
		struct tix_event e;
		tix_event_get(ix, m[k], &e);
		sink += (uint64_t)e.start_ns + tix_event_step(ix, m[k]);
	}
	const struct tix_kernel_info *ki = tix_kernel_info_get(ix, g->common_info);
	if (ki)
		sink += (uint64_t)ki->grid[0] + (uint64_t)ki->bytes;
	sink += tix_group_get(ix, g->group)->instances;
	char d[32];
	tix_fmt_dur(g->total_ns, d, sizeof(d));
	tix_fmt_dur(g->med_ns, d, sizeof(d));
	sink += g->stddev_ns > 0; /* a damaged file may hold NaN here */
}

static void export(const struct tix_index *ix, const struct tix_export_sel *sel)
{
	char out[8192];
	struct tix_error err = {0};
	snprintf(out, sizeof(out), "%s/export.json", fuzz_dir());
	long n = tix_export_json(ix, sel, out, &err);
	if (n < 0)
		fuzz_check_message("tix_export_json", err.msg, NULL);
	unlink(out);
}

/* A query that meets damage jumps back to fuzz_exercise(). */
static jmp_buf damage_jmp;
static char damage_msg[sizeof(((struct tix_error *)0)->msg)];

static void on_damage(const struct tix_index *ix, void *ctx, const char *msg)
{
	(void)ix;
	(void)ctx;
	snprintf(damage_msg, sizeof(damage_msg), "%s", msg);
	longjmp(damage_jmp, 1);
}

/* Every query but export (which may not be left by a jump: its file). */
static void queries(const struct tix_index *ix)
{
	struct tix_summary_info si;
	struct tix_source_info src;
	tix_index_summary(ix, &si);
	tix_index_source(ix, &src);
	sink += strlen(si.warnings) + strlen(si.step_rule) + strlen(src.path) + strlen(src.step_marker);
	for (uint32_t i = 0; i < tix_meta_count(ix); i++) {
		const char *k, *v;
		tix_meta_get(ix, i, &k, &v);
		sink += strlen(k) + strlen(v);
	}
	for (uint32_t i = 0; i < si.strings && i < 100000; i++)
		read_str(ix, i);
	read_str(ix, TIX_NONE);

	uint32_t nt = tix_track_count(ix);
	for (uint32_t t = 0; t < nt; t++) {
		const struct tix_track *tr = tix_track_get(ix, t);
		read_str(ix, tr->name);
		read_str(ix, tr->process_name);
		read_str(ix, tr->pid_str);
		read_str(ix, tr->tid_str);
		int64_t probe[] = {INT64_MIN, -1, 0, 1, INT64_MAX, si.first_ns, si.last_ns,
		                   si.first_ns / 2 + si.last_ns / 2};
		for (size_t k = 0; k < sizeof(probe) / sizeof(probe[0]); k++) {
			uint32_t r = tix_track_lower_bound(ix, t, probe[k]);
			if (r < tr->first_row || r > tr->first_row + tr->row_count)
				die("tix_track_lower_bound outside its track");
			sink += r;
		}
	}
	uint32_t ne = tix_event_count(ix);
	for (uint32_t r = 0; r < ne; r++) {
		struct tix_event e;
		tix_event_get(ix, r, &e);
		read_str(ix, e.name);
		read_str(ix, e.cat);
		read_str(ix, e.args);
		sink += (uint64_t)e.dur_ns + tix_event_step(ix, r) + e.flags;
		const struct tix_kernel_info *ki = tix_kernel_info_get(ix, e.kernel_info);
		if (ki)
			sink += (uint64_t)ki->block[2] + ki->graph_id;
		const struct tix_op_info *oi = tix_op_info_get(ix, e.op_info);
		if (oi) {
			read_str(ix, oi->dims);
			read_str(ix, oi->types);
			read_str(ix, oi->strides);
			read_str(ix, oi->concrete);
		}
		if (e.launch != TIX_NONE) {
			struct tix_event l;
			tix_event_get(ix, e.launch, &l);
			sink += l.track;
		}
		/* a damaged file may make parents loop: walk a bounded number */
		uint32_t p = e.parent;
		for (int k = 0; k < 64 && p != TIX_NONE; k++) {
			struct tix_event pe;
			tix_event_get(ix, p, &pe);
			p = pe.parent;
		}
		sink += strlen(tix_kind_label(e.kind)) + strlen(tix_kind_cat(e.kind)) +
		        tix_kind_is_gpu(e.kind) + tix_kind_is_gpu_work(e.kind);
		sink += tix_track_get(ix, e.track)->kind;
	}
	uint32_t nsteps = tix_step_count(ix);
	for (uint32_t s = 0; s < nsteps; s++) {
		const struct tix_step *st = tix_step_get(ix, s);
		read_str(ix, st->name);
		if (st->marker_row != TIX_NONE) {
			struct tix_event e;
			tix_event_get(ix, st->marker_row, &e);
			sink += (uint64_t)e.start_ns;
		}
		if (st->top_group != TIX_NONE)
			sink += tix_group_get(ix, st->top_group)->instances;
		uint32_t n = 0;
		const struct tix_group *g = tix_step_groups(ix, s, &n);
		for (uint32_t i = 0; g && i < n; i++)
			read_group(ix, &g[i]);
	}
	for (uint32_t i = 0; i < tix_group_count(ix); i++)
		read_group(ix, tix_group_get(ix, i));
	for (uint32_t i = 0; i < tix_op_count(ix); i++) {
		const struct tix_op *o = tix_op_get(ix, i);
		read_str(ix, o->name);
		uint32_t n = 0;
		const struct tix_op_group *og = tix_op_groups(ix, i, &n);
		for (uint32_t k = 0; og && k < n; k++)
			sink += tix_group_get(ix, og[k].group)->instances + (uint64_t)og[k].gpu_ns;
	}
	sink += (uint64_t)tix_total_gpu_ns(ix);
}

/* tix_export_json with several selections. */
static void exports(const struct tix_index *ix)
{
	struct tix_summary_info si;
	tix_index_summary(ix, &si);
	uint32_t nsteps = tix_step_count(ix), ne = tix_event_count(ix);
	/* export: everything, a step, a name, a time range, explicit rows */
	struct tix_export_sel sel = {0};
	export(ix, &sel);
	if (nsteps) {
		sel.has_step = 1;
		sel.step = nsteps - 1;
		export(ix, &sel);
		sel.step = nsteps; /* no such step: an error, not a crash */
		export(ix, &sel);
		sel.has_step = 0;
	}
	if (tix_group_count(ix)) {
		/* a kernel name as a regex (may be no valid ERE); control
		 * characters become '.', since a user's regex has none (B5) */
		char re[256];
		snprintf(re, sizeof(re), "%s", tix_str(ix, tix_group_get(ix, 0)->name));
		for (char *c = re; *c; c++)
			if ((unsigned char)*c < 0x20)
				*c = '.';
		sel.name_regex = re;
		export(ix, &sel);
		sel.name_regex = NULL;
	}
	sel.has_range = 1;
	sel.t0_ns = si.first_ns;
	sel.t1_ns = si.first_ns / 2 + si.last_ns / 2;
	export(ix, &sel);
	sel.has_range = 0;
	if (ne) {
		uint32_t rows[3] = {0, ne / 2, ne - 1};
		sel.rows = rows;
		sel.nrows = 3;
		export(ix, &sel);
	}
}

int fuzz_exercise(struct tix_index *ix)
{
	struct tix_error err = {0};
	tix_index_on_damage(ix, on_damage, NULL);
	if (setjmp(damage_jmp) != 0) {
		fuzz_check_message("a query", damage_msg, tix_index_path(ix));
		tix_index_on_damage(ix, NULL, NULL);
		return 1;
	}
	queries(ix);
	if (tix_index_check_all(ix, &err) != 0) {
		fuzz_check_message("tix_index_check_all", err.msg, tix_index_path(ix));
		tix_index_on_damage(ix, NULL, NULL);
		return 1;
	}
	exports(ix); /* every block checked: no query can meet damage now */
	tix_index_on_damage(ix, NULL, NULL);
	return 0;
}

void fuzz_fix_checksums(uint8_t *b, size_t n)
{
	if (n < sizeof(struct tix_header_disk))
		return;
	struct tix_header_disk h;
	memcpy(&h, b, sizeof(h));
	h.file_size = n; /* so inserted or removed bytes get past that check too */
	memcpy(b, &h, sizeof(h));
	tix_format_resum(b, n); /* the block sums, section checksums and header checksum */
}
