/*
 * Fuzz target fuzz_json_big: the fuzzer's bytes as events inside a plain
 * trace of 64 to 200 MB, so that the code only large inputs reach runs:
 * the production window (1 MB, TIX_PARSE_WINDOW unset), the two-thread
 * split (64 MB and up, split_min left at its default), guessed cuts near
 * the end of the mapping.  fuzz_json's inputs all fit in one window and in
 * the padding page after the file, which is how issue 9's item 1 (a cut
 * guessed past the end of the mapping) went unseen.
 *
 * Input: a 4-byte header, then the events text E (what goes between the
 * brackets of traceEvents; any bytes).
 *   byte 0   layout = b0 & 3, size class = (b0 >> 2) & 3
 *   byte 1-2 where, 0..65535: the position of E inside its layout
 *   byte 3   with byte 1's low bits, the file size modulo 4096
 * The file (size S: 64, 64, 100 or 196 MB by size class, plus 0..4095
 * bytes) is a sparse file in the scratch folder.  PAD is a top-level key
 * whose string value is a hole of zero bytes: scanned with memchr and
 * dropped by the harness's sink (storing 200 MB of zeros in every index
 * would only measure memcpy).  FILL is instant events of about 64 KB each,
 * most of it a key tix does not read (so that MBs of events cost a
 * simdjson pass, not 100,000s of events under ASan), and no GPU work, so
 * exports stay small:
 *   0 end      {"tixFuzzPad": "PAD", "traceEvents": [E]}   ending at S
 *   1 middle   the same, starting near S * where / 65536, zeros after
 *   2 window   {"tixFuzzPad": "PAD", "traceEvents": [FILL, E, FILL]}: E
 *              starts up to half a window before the end of the first,
 *              where the cut is guessed
 *   3 split    the same with 16 MB of FILL and more, E near where the
 *              split's cut is guessed (the middle plus one window)
 * After each input the bytes it wrote are zeroed again, so the file's
 * pages stay in the page cache from one input to the next.
 *
 * Checked after each input, as in fuzz_json: no crash or sanitizer report,
 * no leak, no file left behind, no descriptor leaked, every error message
 * one line naming the file; and here also: a byte offset in a message lies
 * inside the file, and an index that was built opens.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz/fuzz_common.h"
#include "index/build/builder.h"
#include "index/index.h"
#include "parse/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MB ((size_t)1 << 20)
#define WIN (1 * MB) /* parse/reader.h's WINDOW */
#define PAD_KEY "tixFuzzPad"

static int fd = -1;
static char path[8192];
static size_t file_size;
/* The ranges the last input wrote, zeroed before the next. */
static struct {
	size_t at, len;
} written[8];
static int nwritten;
static char *fill;      /* FILL text, generated once */
static size_t fill_len;

static void die(const char *what)
{
	fprintf(stderr, "tix fuzz: %s\n", what);
	abort();
}

static void put(size_t at, const void *p, size_t n)
{
	if (!n)
		return;
	if (at + n > file_size || nwritten == 8)
		die("json_big: a piece outside the file");
	for (size_t done = 0; done < n;) {
		ssize_t w = pwrite(fd, (const char *)p + done, n - done, (off_t)(at + done));
		if (w <= 0)
			die("json_big: cannot write the input file");
		done += (size_t)w;
	}
	written[nwritten].at = at;
	written[nwritten++].len = n;
}

static void put_str(size_t at, const char *s)
{
	put(at, s, strlen(s));
}

static void zero_written(void)
{
	static char zeros[1 << 16];
	for (int i = 0; i < nwritten; i++)
		for (size_t done = 0; done < written[i].len;) {
			size_t n = written[i].len - done < sizeof(zeros) ? written[i].len - done : sizeof(zeros);
			if (pwrite(fd, zeros, n, (off_t)(written[i].at + done)) != (ssize_t)n)
				die("json_big: cannot zero the input file");
			done += n;
		}
	nwritten = 0;
}

/* FILL: 24 MB of instant events, each followed by a comma. */
static void make_fill(void)
{
	size_t cap = 24 * MB + (1 << 17), n = 0;
	fill = malloc(cap);
	if (!fill)
		die("json_big: out of memory");
	for (unsigned i = 0; n < 24 * MB; i++) {
		n += (size_t)snprintf(fill + n, cap - n,
		                      "{\"ph\":\"i\",\"name\":\"f%u\",\"ts\":%u,\"pid\":1,\"tid\":%u,\"zz\":\"",
		                      i % 13, i, i % 3);
		size_t pad = 65000 + i % 7;
		memset(fill + n, 'a' + (int)(i % 26), pad);
		n += pad;
		memcpy(fill + n, "\"},", 3);
		n += 3;
	}
	fill_len = n;
}

/* The first whole events of FILL up to about n bytes, without the comma
 * after the last; returns the length. */
static size_t fill_prefix(size_t n)
{
	if (n > fill_len)
		n = fill_len;
	while (n > 0 && fill[n - 1] != ',')
		n--;
	return n ? n - 1 : 0;
}

/* The harness's sink: the builder's, without the PAD key's value. */
struct wrap {
	struct tix_sink inner;
};

static int w_event(void *c, const struct tix_event_in *e, struct tix_error *err)
{
	struct wrap *w = c;
	return w->inner.event(w->inner.ctx, e, err);
}
static int w_flow(void *c, const struct tix_flow_in *f, struct tix_error *err)
{
	struct wrap *w = c;
	return w->inner.flow(w->inner.ctx, f, err);
}
static int w_track_meta(void *c, const struct tix_id *pid, const struct tix_id *tid, enum tix_meta_key k,
                        const char *v, size_t len, struct tix_error *err)
{
	struct wrap *w = c;
	return w->inner.track_meta(w->inner.ctx, pid, tid, k, v, len, err);
}
static int w_meta(void *c, struct tix_str key, struct tix_str json, struct tix_error *err)
{
	struct wrap *w = c;
	if (key.len == strlen(PAD_KEY) && !memcmp(key.ptr, PAD_KEY, key.len))
		return 0;
	return w->inner.meta(w->inner.ctx, key, json, err);
}
static void w_base_time(void *c, int64_t ns)
{
	struct wrap *w = c;
	w->inner.base_time(w->inner.ctx, ns);
}
static int w_warn(void *c, const char *msg, struct tix_error *err)
{
	struct wrap *w = c;
	return w->inner.warn(w->inner.ctx, msg, err);
}
static void w_discard(void *c)
{
	struct wrap *w = c;
	if (w->inner.discard)
		w->inner.discard(w->inner.ctx);
}

static void w_idle(void *c, const int *stop)
{
	struct wrap *w = c;
	if (w->inner.idle)
		w->inner.idle(w->inner.ctx, stop);
}

static void wrap_sink(struct wrap *w, struct tix_sink *s)
{
	*s = (struct tix_sink){w, w_event, w_flow, w_track_meta, w_meta, w_base_time, w_warn, w_discard, w_idle};
}

/* abort()s when msg names a byte offset outside the file. */
static void check_offsets(const char *msg)
{
	for (const char *p = msg; (p = strstr(p, "byte ")); p += 5) {
		char *end;
		unsigned long long at = strtoull(p + 5, &end, 10);
		if (end != p + 5 && at > file_size) {
			fprintf(stderr, "tix fuzz: json_big: offset %llu past the end (%zu) in \"%s\"\n", at,
			        file_size, msg);
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keep[] = {"big.json", NULL};
	if (size < 4)
		return 0;
	if (fd < 0) {
		snprintf(path, sizeof(path), "%s/big.json", fuzz_dir());
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			die("json_big: cannot create the input file");
		make_fill();
	}
	fuzz_begin();
	unsigned layout = data[0] & 3, sclass = (data[0] >> 2) & 3;
	size_t where = (size_t)data[1] | (size_t)data[2] << 8;
	static const size_t base[4] = {64 * MB, 64 * MB, 100 * MB, 196 * MB};
	size_t want = base[sclass] + ((size_t)data[3] << 4 | (data[1] & 15));
	const uint8_t *ev = data + 4;
	size_t n = size - 4 < 4 * MB ? size - 4 : 4 * MB; /* a reproducer may be larger than -max_len */

	zero_written();
	if (want != file_size) {
		if (ftruncate(fd, (off_t)want) != 0)
			die("json_big: cannot size the input file");
		file_size = want;
	}
	static const char head[] = "{\"" PAD_KEY "\": \"";
	static const char open_events[] = "\", \"traceEvents\": [";
	static const char close_events[] = "]}";
	size_t around = strlen(open_events) + strlen(close_events); /* the bytes around E */
	put_str(0, head);
	size_t at; /* where open_events goes */
	switch (layout) {
	case 0: /* E and "]}" end the file */
		at = file_size - around - n;
		break;
	case 1:
		at = 32 + (file_size - around - n - 64) * where / 65536;
		break;
	default: {
		/* FILL, then E at q + lead, then FILL to about q + span */
		size_t lead, span;
		if (layout == 2) {
			lead = WIN - (WIN / 2) * where / 65536; /* [q + WIN / 2, q + WIN] */
			span = lead + n + WIN / 2;
		} else {
			lead = 2 * WIN + MB - (MB * where / 65536); /* about mid + WIN */
			span = 2 * WIN + 2 * MB + n;
		}
		size_t a = fill_prefix(lead), b = fill_prefix(span - a - n);
		at = file_size - around - (a + 1 + n + 1 + b) - 8;
		size_t q = at + strlen(open_events);
		put_str(at, open_events);
		put(q, fill, a);
		put(q + a, ",", 1);
		put(q + a + 1, ev, n);
		put(q + a + 1 + n, ",", 1);
		put(q + a + 2 + n, fill, b);
		put_str(q + a + 2 + n + b, close_events);
		goto written;
	}
	}
	put_str(at, open_events);
	put(at + strlen(open_events), ev, n);
	put_str(at + strlen(open_events) + n, close_events);
written:;
	char out[8192];
	snprintf(out, sizeof(out), "%s/out.tix", fuzz_dir());
	struct tix_error err = {0};
	struct tix_build_opts bo = {.source_path = path, .source_size = file_size};
	struct tix_builder *b = tix_builder_new(out, &bo, &err);
	if (!b) {
		fprintf(stderr, "tix fuzz: tix_builder_new: %s\n", err.msg);
		abort();
	}
	struct tix_sink inner, inner_extra, sink, extra;
	struct wrap w, wx;
	tix_builder_sink(b, &inner);
	w.inner = inner;
	wrap_sink(&w, &sink);
	struct tix_parse_opts po = {0};
	if (tix_builder_sink_extra(b, &inner_extra, &err) == 0) {
		wx.inner = inner_extra;
		wrap_sink(&wx, &extra);
		po.extra_sink = &extra;
	}
	struct tix_parse_result res;
	if (tix_parse_trace(path, &sink, &po, &res, &err) != 0) {
		fuzz_check_message("tix_parse_trace", err.msg, path);
		check_offsets(err.msg);
		tix_builder_abort(b);
	} else if (tix_builder_finish(b, &err) != 0) {
		fuzz_check_message("tix_builder_finish", err.msg, NULL);
	} else {
		struct tix_index *ix = NULL;
		if (tix_index_open(out, &ix, &err) != 0) {
			fprintf(stderr, "tix fuzz: the index just built does not open: %s\n", err.msg);
			abort();
		}
		struct tix_summary_info si;
		tix_index_summary(ix, &si);
		check_offsets(si.warnings);
		if (fuzz_exercise(ix) != 0) {
			fprintf(stderr, "tix fuzz: the index just built is damaged\n");
			abort();
		}
		tix_index_close(ix);
		unlink(out);
	}
	fuzz_check_clean(keep);
	return 0;
}
