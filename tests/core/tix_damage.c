/*
 * Damaged .tix files (white-box: knows index/format.h).
 *
 *   tix_damage GOOD.tix OUTDIR [ROUNDS]
 *
 * 1. Writes damaged copies of GOOD.tix into OUTDIR, one per line of
 *    OUTDIR/cases.txt as "file<TAB>expect<TAB>what", expect being
 *    "error" (the reader must refuse it: at open, or when the damaged block
 *    is first read, and tix_index_check_all must find it) or "any"
 *    (checksums were fixed up, so the reader may accept it, but nothing may
 *    crash):
 *    truncations at several offsets, a flipped byte in the header and in
 *    each section, a future min_reader_version, another byte order, offsets
 *    and sizes pointing outside the file, a misaligned or duplicated
 *    section, a missing section, and per section a flipped byte with its
 *    checksums recomputed.
 * 2. In process: ROUNDS (default 3000) random mutations of one section with
 *    all checksums recomputed; each is opened with tix_index_open and, when
 *    it opens, every query is run over everything it returns (under ASan
 *    this finds any read the checks let through), the damage handler
 *    jumping back here when a query meets damage.
 * Exits 1 when a file of kind "error" passes every check, or an error
 * message is empty, is not one line or does not name the file.
 */
#include <setjmp.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "index/format.h"
#include "index/index.h"

static unsigned char *good;
static size_t good_size;
static const char *outdir;
static FILE *cases;
static int failures;

static unsigned char *load(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *p = malloc((size_t)sz + 1);
	if (p && fread(p, 1, (size_t)sz, f) != (size_t)sz) {
		free(p);
		p = NULL;
	}
	fclose(f);
	*n = (size_t)sz;
	return p;
}

static struct tix_header_disk *hdr(unsigned char *b)
{
	return (struct tix_header_disk *)b;
}

static struct tix_section_disk *sect(unsigned char *b, uint32_t i)
{
	return (struct tix_section_disk *)(b + sizeof(struct tix_header_disk) + i * sizeof(struct tix_section_disk));
}

static void fix_header(unsigned char *b)
{
	struct tix_header_disk *h = hdr(b);
	size_t n = sizeof(*h) + (size_t)h->section_count * sizeof(struct tix_section_disk);
	h->checksum = 0;
	h->checksum = tix_hash64(b, n, 0);
}

/* every block sum and checksum, after a change inside a section */
static void fix_sums(unsigned char *b)
{
	tix_format_resum(b, good_size);
}

/* A query that meets damage jumps back to exercise_lazy(). */
static jmp_buf damage_jmp;
static char damage_msg[sizeof(((struct tix_error *)0)->msg)];

static void on_damage(const struct tix_index *ix, void *ctx, const char *msg)
{
	(void)ix;
	(void)ctx;
	snprintf(damage_msg, sizeof(damage_msg), "%s", msg);
	longjmp(damage_jmp, 1);
}

/* Runs every query over everything it returns. */
static void exercise(struct tix_index *ix, const char *dir)
{
	volatile uint64_t sink = 0;
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
	uint32_t nt = tix_track_count(ix);
	for (uint32_t t = 0; t < nt; t++) {
		const struct tix_track *tr = tix_track_get(ix, t);
		sink += strlen(tix_str(ix, tr->name)) + strlen(tix_str(ix, tr->process_name)) +
		        strlen(tix_str(ix, tr->pid_str)) + strlen(tix_str(ix, tr->tid_str));
		sink += tix_track_lower_bound(ix, t, 0) + tix_track_lower_bound(ix, t, INT64_MAX) +
		        tix_track_lower_bound(ix, t, INT64_MIN);
	}
	uint32_t ne = tix_event_count(ix);
	for (uint32_t r = 0; r < ne; r++) {
		struct tix_event e;
		tix_event_get(ix, r, &e);
		sink += strlen(tix_str(ix, e.name)) + strlen(tix_str(ix, e.cat)) + strlen(tix_str(ix, e.args));
		sink += (uint64_t)e.dur_ns + tix_event_step(ix, r);
		const struct tix_kernel_info *ki = tix_kernel_info_get(ix, e.kernel_info);
		if (ki)
			sink += (uint64_t)ki->grid[0];
		const struct tix_op_info *oi = tix_op_info_get(ix, e.op_info);
		if (oi)
			sink += strlen(tix_str(ix, oi->dims)) + strlen(tix_str(ix, oi->types)) +
			        strlen(tix_str(ix, oi->strides)) + strlen(tix_str(ix, oi->concrete));
		if (e.launch != TIX_NONE) {
			struct tix_event l;
			tix_event_get(ix, e.launch, &l);
			sink += l.track;
		}
		/* parent chains may loop in a damaged file: walk a bounded number */
		uint32_t p = e.parent;
		for (int k = 0; k < 64 && p != TIX_NONE; k++) {
			struct tix_event pe;
			tix_event_get(ix, p, &pe);
			p = pe.parent;
		}
		sink += strlen(tix_kind_label(e.kind)) + tix_track_get(ix, e.track)->kind;
	}
	for (uint32_t s = 0; s < tix_step_count(ix); s++) {
		const struct tix_step *st = tix_step_get(ix, s);
		sink += strlen(tix_str(ix, st->name));
		if (st->top_group != TIX_NONE)
			sink += tix_group_get(ix, st->top_group)->instances;
		uint32_t n;
		const struct tix_group *g = tix_step_groups(ix, s, &n);
		for (uint32_t i = 0; i < n; i++) {
			const uint32_t *m = tix_members(ix, g[i].members_first, g[i].members_count);
			for (uint32_t k = 0; m && k < g[i].members_count; k++) {
				struct tix_event e;
				tix_event_get(ix, m[k], &e);
				sink += (uint64_t)e.start_ns;
			}
			sink += strlen(tix_str(ix, g[i].name));
			const struct tix_kernel_info *ki = tix_kernel_info_get(ix, g[i].common_info);
			if (ki)
				sink += (uint64_t)ki->block[0];
			sink += tix_group_get(ix, g[i].group)->instances;
		}
	}
	for (uint32_t i = 0; i < tix_group_count(ix); i++) {
		const struct tix_group *g = tix_group_get(ix, i);
		const uint32_t *m = tix_members(ix, g->members_first, g->members_count);
		for (uint32_t k = 0; m && k < g->members_count; k++) {
			struct tix_event e;
			tix_event_get(ix, m[k], &e);
			sink += (uint64_t)e.dur_ns;
		}
		const struct tix_kernel_info *ki = tix_kernel_info_get(ix, g->common_info);
		if (ki)
			sink += (uint64_t)ki->grid[2];
		sink += strlen(tix_str(ix, g->name));
	}
	for (uint32_t i = 0; i < tix_op_count(ix); i++) {
		const struct tix_op *o = tix_op_get(ix, i);
		uint32_t n;
		const struct tix_op_group *og = tix_op_groups(ix, i, &n);
		for (uint32_t k = 0; og && k < n; k++)
			sink += tix_group_get(ix, og[k].group)->instances;
		sink += strlen(tix_str(ix, o->name));
	}
	sink += (uint64_t)tix_total_gpu_ns(ix);
	if (dir) {
		char out[4096];
		struct tix_error err;
		snprintf(out, sizeof(out), "%s/exercise-export.json", dir);
		struct tix_export_sel sel = {0};
		tix_export_json(ix, &sel, out, &err);
		sel.has_step = 1;
		sel.step = 0;
		sel.name_regex = ".";
		tix_export_json(ix, &sel, out, &err);
		unlink(out);
	}
	(void)sink;
}

static int message_ok(const char *msg, const char *path)
{
	return msg[0] && strstr(msg, path) && !strchr(msg, '\n');
}

/* Opens path and runs every query, a damaged block reported through the
 * handler: -1 refused at open, 1 damage met by a query, 0 no damage met;
 * *msg the message.  Bad messages count as failures. */
static int exercise_lazy(const char *path, const char *dir, char *msg, size_t cap)
{
	struct tix_index *volatile ix = NULL;
	struct tix_error err = {0};
	struct tix_index *opened;
	if (tix_index_open(path, &opened, &err) != 0) {
		snprintf(msg, cap, "%s", err.msg);
		return -1;
	}
	ix = opened;
	tix_index_on_damage(ix, on_damage, NULL);
	int rc = 0;
	if (setjmp(damage_jmp) == 0) {
		exercise(ix, NULL);
		/* export only where nothing can be damaged: a jump out of it
		 * would leave its file open */
		if (dir && tix_index_check_all(ix, &err) == 0)
			exercise(ix, dir);
	} else {
		snprintf(msg, cap, "%s", damage_msg);
		rc = 1;
	}
	tix_index_close(ix);
	return rc;
}

/* Writes b as OUTDIR/name and records the case. */
static void emit(const unsigned char *b, size_t n, const char *name, const char *expect, const char *what)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", outdir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(b, 1, n, f) != n) {
		fprintf(stderr, "tix_damage: cannot write %s: %s\n", path, strerror(errno));
		exit(2);
	}
	fclose(f);
	fprintf(cases, "%s\t%s\t%s\n", name, expect, what);
	/* the library itself must agree: refused at open, or opened and the
	 * damage found by tix_index_check_all, and by the queries that read it */
	char msg[sizeof(damage_msg)] = "";
	int rc = exercise_lazy(path, NULL, msg, sizeof msg);
	if (rc != 0 && !message_ok(msg, path)) {
		printf("FAIL  %s (%s): bad message \"%s\"\n", name, what, msg);
		failures++;
		return;
	}
	if (rc == -1) {
		printf("ok    %s (%s): \"%s\"\n", name, what, msg + strlen(path));
		return;
	}
	struct tix_index *ix;
	struct tix_error err = {0};
	int whole = -1;
	if (tix_index_open(path, &ix, &err) == 0) {
		whole = tix_index_check_all(ix, &err);
		tix_index_close(ix);
	}
	if (whole != 0 && !message_ok(err.msg, path)) {
		printf("FAIL  %s (%s): bad message from the whole check \"%s\"\n", name, what, err.msg);
		failures++;
	} else if (!strcmp(expect, "error") && whole == 0) {
		printf("FAIL  %s (%s): opened and passed every check, expected damage\n", name, what);
		failures++;
	} else if (rc == 1) {
		printf("ok    %s (%s): a query found \"%s\"\n", name, what, msg + strlen(path));
	} else {
		printf("ok    %s (%s): queries ran%s\n", name, what, whole ? "; the whole check found damage" : "");
	}
}

static unsigned char *copy(void)
{
	unsigned char *b = malloc(good_size);
	memcpy(b, good, good_size);
	return b;
}

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: tix_damage GOOD.tix OUTDIR [ROUNDS]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	outdir = argv[2];
	long rounds = argc > 3 ? strtol(argv[3], NULL, 10) : 3000;
	good = load(argv[1], &good_size);
	if (!good || good_size < sizeof(struct tix_header_disk)) {
		fprintf(stderr, "tix_damage: cannot read %s\n", argv[1]);
		return 2;
	}
	char cp[4096];
	snprintf(cp, sizeof(cp), "%s/cases.txt", outdir);
	cases = fopen(cp, "w");
	if (!cases) {
		fprintf(stderr, "tix_damage: cannot write %s\n", cp);
		return 2;
	}
	struct tix_header_disk *gh = hdr(good);
	uint32_t nsec = gh->section_count;
	char name[256], what[256];

	/* truncations */
	size_t cuts[] = {0, 1, 7, 8, 12, 63, 64, 64 + 16, 64 + 32 * (size_t)nsec - 1, 64 + 32 * (size_t)nsec,
	                 good_size / 3, good_size / 2, good_size - 64, good_size - 1};
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		if (cuts[i] >= good_size)
			continue;
		snprintf(name, sizeof(name), "trunc-%zu.tix", cuts[i]);
		snprintf(what, sizeof(what), "truncated to %zu bytes", cuts[i]);
		emit(good, cuts[i], name, "error", what);
	}
	/* header fields */
	unsigned char *b = copy();
	memcpy(b, "TIXINDEY", 8);
	emit(b, good_size, "bad-magic.tix", "error", "bad magic");
	free(b);
	b = copy();
	hdr(b)->reserved[3] ^= 0x40;
	emit(b, good_size, "flip-header.tix", "error", "flipped byte in the header (checksum not fixed)");
	free(b);
	b = copy();
	hdr(b)->min_reader_version = TIX_FORMAT_VERSION + 1;
	hdr(b)->version = TIX_FORMAT_VERSION + 1;
	fix_header(b);
	emit(b, good_size, "future-version.tix", "error", "min_reader_version one above ours (checksum fixed)");
	free(b);
	b = copy();
	hdr(b)->version = 1;
	hdr(b)->min_reader_version = 1;
	fix_header(b);
	emit(b, good_size, "old-version.tix", "error", "version 1, older than the reader supports (checksum fixed)");
	free(b);
	b = copy();
	hdr(b)->min_reader_version = 0xFFFFFFFFu;
	fix_header(b);
	emit(b, good_size, "future-version-max.tix", "error", "min_reader_version 2^32-1 (checksum fixed)");
	free(b);
	b = copy();
	hdr(b)->endian = 0x04030201u;
	fix_header(b);
	emit(b, good_size, "other-endian.tix", "error", "byte-swapped endian mark");
	free(b);
	b = copy();
	hdr(b)->section_count = 0x7FFFFFFF; /* checksum left as is: it would cover 64 GB */
	emit(b, good_size, "huge-section-count.tix", "error", "section_count 2^31-1");
	free(b);
	b = copy();
	hdr(b)->file_size = good_size * 2;
	fix_header(b);
	emit(b, good_size, "file-size-lies.tix", "error", "header file_size twice the real size");
	free(b);
	b = copy();
	hdr(b)->section_table_offset = good_size + 4096;
	fix_header(b);
	emit(b, good_size, "table-outside.tix", "error", "section table offset past the end");
	free(b);
	/* a file longer than its header says */
	b = malloc(good_size + 100);
	memcpy(b, good, good_size);
	memset(b + good_size, 0, 100);
	emit(b, good_size + 100, "appended.tix", "error", "100 bytes appended");
	free(b);

	for (uint32_t i = 0; i < nsec; i++) {
		struct tix_section_disk *gs = sect(good, i);
		uint32_t id = gs->id;
		/* a flipped byte, checksums as they were */
		if (gs->size > 0) {
			b = copy();
			b[gs->offset + gs->size / 2] ^= 0x10;
			snprintf(name, sizeof(name), "flip-sec%u.tix", id);
			snprintf(what, sizeof(what), "flipped byte in section %u", id);
			emit(b, good_size, name, "error", what);
			free(b);
		}
		/* offset outside the file */
		b = copy();
		sect(b, i)->offset = good_size + 64;
		fix_header(b);
		snprintf(name, sizeof(name), "offset-outside-sec%u.tix", id);
		snprintf(what, sizeof(what), "section %u offset past the end", id);
		emit(b, good_size, name, "error", what);
		free(b);
		/* size running past the end, and wrapping around */
		b = copy();
		sect(b, i)->size = good_size;
		fix_header(b);
		snprintf(name, sizeof(name), "size-outside-sec%u.tix", id);
		snprintf(what, sizeof(what), "section %u size past the end", id);
		emit(b, good_size, name, "error", what);
		free(b);
		b = copy();
		sect(b, i)->size = UINT64_MAX - sect(b, i)->offset + 1 + 64;
		fix_header(b);
		snprintf(name, sizeof(name), "size-wrap-sec%u.tix", id);
		snprintf(what, sizeof(what), "section %u offset + size wraps around", id);
		emit(b, good_size, name, "error", what);
		free(b);
		/* misaligned */
		b = copy();
		sect(b, i)->offset += 4;
		fix_header(b);
		snprintf(name, sizeof(name), "misaligned-sec%u.tix", id);
		snprintf(what, sizeof(what), "section %u offset misaligned", id);
		emit(b, good_size, name, "error", what);
		free(b);
		/* wrong element size */
		b = copy();
		sect(b, i)->elem_size += 8;
		fix_header(b);
		snprintf(name, sizeof(name), "elemsize-sec%u.tix", id);
		snprintf(what, sizeof(what), "section %u element size changed", id);
		emit(b, good_size, name, "error", what);
		free(b);
		/* missing: its id becomes an unknown one */
		b = copy();
		sect(b, i)->id = 999;
		fix_header(b);
		snprintf(name, sizeof(name), "missing-sec%u.tix", id);
		snprintf(what, sizeof(what), "section %u missing", id);
		emit(b, good_size, name, "error", what);
		free(b);
		/* duplicated: another entry claims the same id */
		if (nsec > 1) {
			b = copy();
			uint32_t j = (i + 1) % nsec;
			*sect(b, j) = *sect(b, i);
			fix_header(b);
			snprintf(name, sizeof(name), "duplicate-sec%u.tix", id);
			snprintf(what, sizeof(what), "section %u listed twice", id);
			emit(b, good_size, name, "error", what);
			free(b);
		}
		/* a flipped byte with the checksums fixed up: may open, must not crash */
		for (int k = 0; k < 3 && gs->size > 0; k++) {
			b = copy();
			uint64_t at = gs->offset + (k == 0 ? 0 : k == 1 ? gs->size / 2 : gs->size - 1);
			b[at] ^= k == 2 ? 0xFF : 0x80;
			fix_sums(b);
			snprintf(name, sizeof(name), "resum-sec%u-%d.tix", id, k);
			snprintf(what, sizeof(what), "section %u byte %" PRIu64 " changed, checksums fixed", id, at - gs->offset);
			emit(b, good_size, name, "any", what);
			free(b);
		}
	}
	fclose(cases);

	/* many random mutations with fixed checksums, in process */
	long opened = 0, refused = 0, found = 0;
	for (long r = 0; r < rounds; r++) {
		b = copy();
		uint32_t i = (uint32_t)(rnd() % nsec);
		struct tix_section_disk *s = sect(b, i);
		if (s->size == 0) {
			free(b);
			continue;
		}
		int nflip = 1 + (int)(rnd() % 4);
		for (int k = 0; k < nflip; k++) {
			uint64_t at = s->offset + rnd() % s->size;
			switch (rnd() % 4) {
			case 0: b[at] ^= (unsigned char)(1u << (rnd() % 8)); break;
			case 1: b[at] = 0xFF; break;
			case 2: b[at] = 0; break;
			default: b[at] = (unsigned char)rnd(); break;
			}
		}
		fix_sums(b);
		char path[4096];
		snprintf(path, sizeof(path), "%s/fuzz.tix", outdir);
		FILE *f = fopen(path, "wb");
		if (!f || fwrite(b, 1, good_size, f) != good_size) {
			fprintf(stderr, "tix_damage: cannot write %s\n", path);
			return 2;
		}
		fclose(f);
		char msg[sizeof(damage_msg)] = "";
		int rc = exercise_lazy(path, r % 50 == 0 ? outdir : NULL, msg, sizeof msg);
		if (rc != 0 && !message_ok(msg, path)) {
			printf("FAIL  random mutation %ld: bad message \"%s\"\n", r, msg);
			failures++;
		}
		if (rc == -1)
			refused++;
		else if (rc == 1)
			found++;
		else
			opened++;
		free(b);
	}
	printf("ok    %ld random mutations with fixed checksums: %ld refused at open, %ld found by a query, "
	       "%ld opened and queried\n", rounds, refused, found, opened);
	printf("tix_damage: %d failures\n", failures);
	free(good);
	return failures ? 1 : 0;
}
