/*
 * Fuzz target: Chrome-trace JSON -> parse/ -> index builder -> .tix ->
 * tix_index_open -> every query and tix_export_json (fuzz_common.c).
 *
 * Built twice:
 *   fuzz_json     the input is the JSON text, written as is.
 *   fuzz_json_gz  (FUZZ_GZIP) the first byte picks what happens to the
 *                 JSON text that follows it after zlib gzip-compresses it:
 *                 mode % 4 = 0 whole, 1 cut short, 2 one byte changed,
 *                 3 two gzip members, the second holding a copy of the
 *                 second half; mode / 4 says where.
 *
 * Small parse windows (tix_parse_opts.window, 256 B to 1.3 KB, chosen from the
 * input size) make the window cutting and the careful scanner run on small
 * inputs, and split_min = 2 KB makes plain inputs over 2 KB take the
 * two-thread parse into two sinks too, its cut moved when the threads'
 * speeds say so (recut_min = 4 windows); odd-sized inputs take the
 * two-thread finish (split_rows = 2).
 *
 * Checked after each input: no crash or sanitizer report, no leak, no file
 * left in the scratch folder, no descriptor leaked, every error message one
 * line naming the file; a build that succeeds gives an index that opens.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "fuzz/fuzz_common.h"
#include "index/index.h"
#include "index/build/builder.h"
#include "parse/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifdef FUZZ_GZIP
/* gzip of in[0..n) appended to *out (grown with realloc). */
static void gzip_append(const uint8_t *in, size_t n, uint8_t **out, size_t *len)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	size_t cap = deflateBound(&z, n) + 64;
	uint8_t *b = realloc(*out, *len + cap);
	if (!b)
		abort();
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	z.next_out = b + *len;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		abort();
	*len += cap - z.avail_out;
	*out = b;
	deflateEnd(&z);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keep[] = {"in.json", NULL};
	const char *path;
	fuzz_begin();
#ifdef FUZZ_GZIP
	if (size < 1)
		return 0;
	unsigned mode = data[0];
	data++, size--;
	uint8_t *gz = NULL;
	size_t gzlen = 0;
	gzip_append(data, size, &gz, &gzlen);
	size_t where = (size_t)(mode >> 2) * gzlen / 64;
	switch (mode & 3) {
	case 1:
		gzlen = where;
		break;
	case 2:
		if (where < gzlen)
			gz[where] ^= (uint8_t)(1u << (mode & 7));
		break;
	case 3:
		gzip_append(data + size / 2, size - size / 2, &gz, &gzlen);
		break;
	}
	path = fuzz_write("in.json", gz, gzlen);
	free(gz);
#else
	path = fuzz_write("in.json", data, size);
#endif

	char out[8192];
	snprintf(out, sizeof(out), "%s/out.tix", fuzz_dir());
	struct tix_error err = {0};
	/* Half the inputs finish on two threads (cut inside a track), half on
	 * one: both give the same index, and both are what the fuzzer sees. */
	struct tix_build_opts bo = {.source_path = path, .source_size = size,
	                            .split_rows = size % 2 ? 2 : UINT32_MAX};
	struct tix_builder *b = tix_builder_new(out, &bo, &err);
	if (!b) {
		fprintf(stderr, "tix fuzz: tix_builder_new: %s\n", err.msg);
		abort();
	}
	struct tix_sink sink, extra;
	tix_builder_sink(b, &sink);
	struct tix_parse_opts po = {0};
	po.split_min = 2048;
	po.window = 256 + (size * 7) % 1100;
	po.recut_min = 4; /* the second thread's probe and a moved cut on small inputs too */
	if (tix_builder_sink_extra(b, &extra, &err) == 0)
		po.extra_sink = &extra;
	struct tix_parse_result res;
	if (tix_parse_trace(path, &sink, &po, &res, &err) != 0) {
		fuzz_check_message("tix_parse_trace", err.msg, path);
		tix_builder_abort(b);
	} else if (tix_builder_finish(b, &err) != 0) {
		fuzz_check_message("tix_builder_finish", err.msg, NULL);
	} else {
		struct tix_index *ix = NULL;
		if (tix_index_open(out, &ix, &err) != 0) {
			fprintf(stderr, "tix fuzz: the index just built does not open: %s\n", err.msg);
			abort();
		}
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
