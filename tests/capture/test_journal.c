/*
 * tests/capture/test_journal.c: journals cut at every byte offset and with
 * every byte flipped salvage exactly their whole-chunk prefix and never
 * crash; random damage never crashes.  Build with ASan where possible.
 * Owner: cupti_capture.  Usage: test_journal SRCDIR BINDIR.
 */
#define CAPTURE_TEST_CUPTI
#include "tests/capture/capture_test.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cupti_capture/capture.h"
#include "cupti_capture/convert.h"
#include "cupti_capture/journal.h"

static uint8_t *slurp(const char *path, size_t *n)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0)
		return NULL;
	uint8_t *p = malloc((size_t)st.st_size + 1);
	*n = (size_t)read(fd, p, (size_t)st.st_size);
	close(fd);
	return p;
}

/* A journal of several flushes: story steps, notes, drops, END. */
static uint8_t *make_journal(const char *bindir, size_t *n)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/journal.%d", bindir, (int)getpid());
	mkdir(dir, 0755);
	struct tixj_header h = {.pid = STORY_PID, .start_ns = STORY_T0, .flush_ms = 250};
	snprintf(h.host, sizeof h.host, "testhost");
	struct tixj_writer w;
	CHECK(tixj_writer_init(&w, dir, &h, "prog\0arg", 8) == 0);
	struct tixcap_conv c;
	CHECK(tixcap_conv_init(&c, &w, NULL) == 0);
	struct fab f = {0};
	fab_story(&f);
	for (int i = 0; i < 4; i++) {
		tixcap_conv_buffer(&c, f.p, f.len);
		if (i == 2)
			tixj_note(&w, "a note for tix info");
		struct tixj_drops d = {.cupti_dropped = (uint64_t)i};
		tixj_add(&w, TIXJ_DROPS, &d, 0, 0);
		CHECK(tixj_flush(&w) == 0);
	}
	char path[4096];
	snprintf(path, sizeof path, "%s", w.path);
	tixj_writer_close(&w, &c.drops);
	tixcap_conv_done(&c);
	free(f.p);
	uint8_t *p = slurp(path, n);
	unlink(path);
	rmdir(dir);
	return p;
}

struct outcome { int rc; uint64_t records, salvaged_to; int truncated; };

static struct outcome read_prefix(const uint8_t *p, size_t n)
{
	struct rec_sink r;
	struct tix_sink s;
	rec_init(&r, &s);
	struct tixcap_journal_result res;
	struct tix_error err = {0};
	/* a private copy, so reads past n are caught by ASan */
	uint8_t *copy = malloc(n ? n : 1);
	memcpy(copy, p, n);
	struct outcome o;
	o.rc = tixcap_journal_read_mem(copy, n, "cut.tixj", &s, &res, &err);
	o.records = res.records;
	o.salvaged_to = res.salvaged_to;
	o.truncated = res.truncated;
	if (o.rc == 0)
		CHECK(r.n == res.records);
	if (o.rc == 0 && o.truncated && !strstr(r.warnings, "torn or damaged at byte"))
		CHECK(!"salvage warning names the byte offset");
	free(copy);
	rec_free(&r);
	return o;
}

int main(int argc, char **argv)
{
	const char *bindir = argc > 2 ? argv[2] : ".";
	size_t n = 0;
	uint8_t *p = make_journal(bindir, &n);
	CHECK(p && n > 1000);
	if (!p)
		return 1;
	CHECK(tixcap_is_journal(p, n));

	/* chunk boundaries */
	size_t bounds[256], nb = 0, off = 0;
	struct tixj_chunk_hdr h;
	bounds[nb++] = 0;
	while (off < n && tixj_chunk_check(p, n, off, (uint32_t)(nb - 1), &h) && nb < 256) {
		off += TIXJ_CHUNK_HDR + h.payload_len;
		bounds[nb++] = off;
	}
	CHECK_EQ_INT(off, n); /* the writer's output is whole */
	CHECK(nb > 8);
	uint64_t ref[256] = {0}; /* ref[0] is read when the chunk count check failed */
	for (size_t b = 1; b < nb; b++) {
		struct outcome o = read_prefix(p, bounds[b]);
		CHECK_EQ_INT(o.rc, 0);
		CHECK_EQ_INT(o.salvaged_to, bounds[b]);
		CHECK(!o.truncated);
		ref[b] = o.records;
	}
	CHECK(ref[nb - 1] > 0);

	/* every cut: the whole chunks before it, nothing else */
	size_t b = 0;
	for (size_t k = 0; k <= n; k++) {
		while (b + 1 < nb && bounds[b + 1] <= k)
			b++;
		struct outcome o = read_prefix(p, k);
		if (b == 0) {
			CHECK_EQ_INT(o.rc, -1);
			continue;
		}
		CHECK_EQ_INT(o.rc, 0);
		CHECK_EQ_INT(o.salvaged_to, bounds[b]);
		CHECK_EQ_INT(o.truncated, k != bounds[b]);
		CHECK_EQ_INT(o.records, ref[b]);
	}

	/* every byte flipped: the chunks before the damaged one */
	uint8_t *q = malloc(n);
	memcpy(q, p, n);
	b = 0;
	for (size_t j = 0; j < n; j++) {
		while (b + 1 < nb && bounds[b + 1] <= j)
			b++;
		q[j] ^= 0x5a;
		struct outcome o = read_prefix(q, n);
		q[j] = p[j];
		if (b == 0) {
			CHECK_EQ_INT(o.rc, -1);
			continue;
		}
		CHECK_EQ_INT(o.rc, 0);
		CHECK_EQ_INT(o.salvaged_to, bounds[b]);
		CHECK(o.truncated);
		CHECK_EQ_INT(o.records, ref[b]);
	}

	/* random damage: several flips, random cuts, garbage tails */
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	for (int it = 0; it < 3000; it++) {
		memcpy(q, p, n);
		int flips = 1 + (int)(seed % 6);
		for (int k = 0; k < flips; k++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			q[(seed >> 33) % n] = (uint8_t)(seed >> 13);
		}
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		size_t cut = (size_t)((seed >> 33) % (n + 1));
		struct outcome o = read_prefix(q, cut);
		CHECK(o.rc == 0 || o.rc == -1);
		CHECK(o.salvaged_to <= cut);
	}
	/* a valid journal followed by garbage: all of the journal is kept */
	uint8_t *g = malloc(n + 100);
	memcpy(g, p, n);
	memset(g + n, 0x41, 100);
	struct outcome o = read_prefix(g, n + 100);
	CHECK_EQ_INT(o.rc, 0);
	CHECK_EQ_INT(o.salvaged_to, n);
	CHECK_EQ_INT(o.records, ref[nb - 1]);
	free(g);
	free(q);
	free(p);
	if (t_failures)
		fprintf(stderr, "test_journal: %d failures\n", t_failures);
	else
		printf("test_journal: ok (%zu bytes, %zu chunks, every cut and flip)\n", n, nb - 1);
	return t_failures ? 1 : 0;
}
