/*
 * Fuzz target: bytes -> a .tix file -> tix_index_open -> when it opens,
 * every query and tix_export_json over what it returns (fuzz_common.c).
 *
 * Built twice:
 *   fuzz_tix         the bytes as they are: the checksums stop nearly every
 *                    mutation, which tests the header and checksum checks.
 *   fuzz_tix_fixsum  (FUZZ_FIXSUM) the header's file_size and every
 *                    checksum are recomputed first, so the mutations reach
 *                    the structural checks of reader.c and the queries.
 *
 * Checked after each input: no crash or sanitizer report, no leak, no
 * descriptor leaked, a refusal is one line naming the file.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz_common.h"
#include "index/index.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keep[] = {"in.tix", NULL};
	fuzz_begin();
#ifdef FUZZ_FIXSUM
	uint8_t *b = malloc(size ? size : 1);
	if (!b)
		abort();
	memcpy(b, data, size);
	fuzz_fix_checksums(b, size);
	const char *path = fuzz_write("in.tix", b, size);
	free(b);
#else
	const char *path = fuzz_write("in.tix", data, size);
#endif
	struct tix_index *ix = NULL;
	struct tix_error err = {0};
	if (tix_index_open(path, &ix, &err) == 0) {
		fuzz_exercise(ix);
		tix_index_close(ix);
	} else {
		fuzz_check_message("tix_index_open", err.msg, path);
	}
	fuzz_check_clean(keep);
	return 0;
}
