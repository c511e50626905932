/*
 * An index as a later tix could write it (white-box: knows index/format.h).
 *
 *   tix_future GOOD.tix OUT.tix BAD.tix
 *
 * OUT.tix is GOOD.tix with one more section, of id 40 (no id this tix
 * knows): 3 records of 12 bytes holding 0x00, 0x01, ... 0x23, its block sum
 * in BLOCK_SUMS and every checksum fixed, as a writer that added a section
 * without bumping min_reader_version would leave it.  The reader must open
 * it (unknown ids are skipped) and tix dump show the section in hex.
 * BAD.tix is OUT.tix with one byte of that section flipped and the sums
 * left as they were: only a reader that checks the blocks of sections it
 * does not know (tix dump) can tell.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/format.h"

enum { FUTURE_ID = 40, FUTURE_ELEM = 12, FUTURE_RECS = 3 };

static unsigned char *load(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	unsigned char *p = NULL;
	if (fseek(f, 0, SEEK_END) == 0) {
		long sz = ftell(f);
		if (sz > 0 && fseek(f, 0, SEEK_SET) == 0 && (p = malloc((size_t)sz)) &&
		    fread(p, 1, (size_t)sz, f) != (size_t)sz) {
			free(p);
			p = NULL;
		}
		*n = sz > 0 ? (size_t)sz : 0;
	}
	fclose(f);
	return p;
}

static int save(const char *path, const unsigned char *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(b, 1, n, f) == n;
	if (f && fclose(f) != 0)
		ok = 0;
	return ok ? 0 : -1;
}

static size_t align(size_t v)
{
	return (v + TIX_SECTION_ALIGN - 1) / TIX_SECTION_ALIGN * TIX_SECTION_ALIGN;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: tix_future GOOD.tix OUT.tix BAD.tix\n");
		return 2;
	}
	size_t n;
	unsigned char *good = load(argv[1], &n);
	if (!good || n < sizeof(struct tix_header_disk)) {
		fprintf(stderr, "tix_future: cannot read %s\n", argv[1]);
		return 2;
	}
	struct tix_header_disk h;
	memcpy(&h, good, sizeof h);
	size_t tab = sizeof h,
	       old_end = tab + (size_t)h.section_count * sizeof(struct tix_section_disk);
	/* the sections move down by a multiple of the alignment, so that one
	 * more table entry fits; the new section and a longer BLOCK_SUMS go
	 * after the end (the old BLOCK_SUMS bytes stay, unreferenced) */
	size_t shift = align(old_end + sizeof(struct tix_section_disk)) - align(old_end);
	size_t body = n - old_end, at_new = align(n + shift), data = FUTURE_ELEM * FUTURE_RECS;
	struct tix_section_disk *secs = calloc(h.section_count + 1u, sizeof(*secs));
	size_t sums_at = 0, sums_size = 0;
	if (!secs)
		return 2;
	memcpy(secs, good + tab, old_end - tab);
	for (uint32_t i = 0; i < h.section_count; i++) {
		if (secs[i].offset >= old_end)
			secs[i].offset += shift;
		if (secs[i].id == TIX_SEC_BLOCK_SUMS) {
			sums_at = i;
			sums_size = (size_t)secs[i].size;
		}
	}
	size_t at_sums = align(at_new + data), total = at_sums + sums_size + 8;
	unsigned char *b = calloc(total, 1);
	if (!b)
		return 2;
	memcpy(b + old_end + shift, good + old_end, body);
	memcpy(b + at_sums, b + secs[sums_at].offset, sums_size); /* resum rewrites them */
	secs[sums_at].offset = at_sums;
	secs[sums_at].size = sums_size + 8; /* one block: 3 records of 12 bytes */
	secs[h.section_count] = (struct tix_section_disk){
		.id = FUTURE_ID, .elem_size = FUTURE_ELEM, .offset = at_new, .size = data};
	for (size_t k = 0; k < data; k++)
		b[at_new + k] = (unsigned char)k;
	h.section_count++;
	h.file_size = total;
	memcpy(b, &h, sizeof h);
	memcpy(b + tab, secs, h.section_count * sizeof(*secs));
	tix_format_resum(b, total);
	int rc = save(argv[2], b, total);
	b[at_new + 13] ^= 0x40; /* record 1, byte 1 */
	if (rc == 0)
		rc = save(argv[3], b, total);
	if (rc != 0)
		fprintf(stderr, "tix_future: cannot write %s or %s\n", argv[2], argv[3]);
	free(b);
	free(secs);
	free(good);
	return rc ? 2 : 0;
}
