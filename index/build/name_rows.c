/* The name-rows phase: the rows of each distinct event name (NAMES and
 * NAME_ROWS, format.h), so that a search by name reads the names once and
 * then only the rows that match, not every row of the trace.  A counting
 * sort by name id: one pass counts, one scatters; each name's rows come out
 * in row order (by track, then start).  Everything that follows the number
 * of rows or of strings lives in spills. */
#include "index/build/phases.h"

#include <string.h>

int linker_name_rows(struct linker *L, struct tix_error *err)
{
	const struct tix_row_disk *rows = (const struct tix_row_disk *)L->rows.base;
	uint32_t nstr = L->row_names; /* not strings.n: phases beside this one add strings */
	struct linker_buf cb = {0};
	uint32_t *at = linker_buf(L, &cb, (size_t)nstr + 1, sizeof(uint32_t), err);
	if (!at)
		return -1;
	memset(at, 0, ((size_t)nstr + 1) * sizeof(uint32_t));
	for (uint32_t i = 0; i < L->nrows; i++)
		at[rows[i].name < nstr ? rows[i].name : nstr]++; /* every name is one of the parse's */
	uint32_t nnames = 0;
	for (uint32_t s = 0; s < nstr; s++)
		nnames += at[s] != 0;
	int rc = -1;
	if (linker_spill(L, &L->names, sizeof(struct tix_names_disk), nnames, err) != 0 ||
	    spill_resize(&L->names, nnames, err) != 0 ||
	    linker_spill(L, &L->name_rows, sizeof(uint32_t), L->nrows, err) != 0 ||
	    spill_resize(&L->name_rows, L->nrows, err) != 0)
		goto out;
	/* counts become where each name's rows start */
	uint32_t first = 0, k = 0;
	for (uint32_t s = 0; s < nstr; s++) {
		if (!at[s])
			continue;
		SPILL_AT(&L->names, struct tix_names_disk, k++) =
			(struct tix_names_disk){.name = s, .first = first, .count = at[s]};
		uint32_t n = at[s];
		at[s] = first;
		first += n;
	}
	uint32_t *out = (uint32_t *)(void *)L->name_rows.base;
	for (uint32_t i = 0; i < L->nrows; i++)
		if (rows[i].name < nstr)
			out[at[rows[i].name]++] = i;
	L->name_rows.n = first;
	rc = 0;
out:
	linker_buf_done(L, &cb);
	return rc;
}
