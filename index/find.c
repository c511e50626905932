/* Queries over many rows that the TUI asks with a key: the events of the
 * names that match (from NAMES / NAME_ROWS, never a pass over all rows), and
 * the GPU work beneath an op (each ancestor walked once for all of them). */
#include "index/index.h"

#include <stdlib.h>
#include <string.h>

#include "index/merge.h"
#include "index/reader_int.h"

/* ---- events by name ---- */

/* A stretch of one name's rows on one track: in time order. */
struct run {
	uint32_t at, end;  /* positions in NAME_ROWS */
};

struct head {
	int64_t start;
	uint32_t row, run;
};

static int head_less(const struct head *a, const struct head *b)
{
	return a->start != b->start ? a->start < b->start : a->row < b->row;
}

TIX_HEAP_DOWN(heap_down, struct head, head_less)

static struct head head_of(const struct tix_index *ix, const struct run *r, uint32_t run)
{
	uint32_t row = ix->name_rows[r->at];
	need1(ix, TIX_SEC_ROWS, row);
	return (struct head){ix->rows[row].start_ns, row, run};
}

/* Appends the runs of names[i]'s rows (one per track they lie on). */
static int add_runs(const struct tix_index *ix, const struct tix_names_disk *nm, struct run **runs,
                    uint32_t *n, uint32_t *cap)
{
	need(ix, TIX_SEC_NAME_ROWS, nm->first, nm->count);
	const uint32_t *list = ix->name_rows + nm->first;
	for (uint32_t p = 0; p < nm->count;) {
		const struct tix_track *tr = &ix->tracks[track_of(ix, list[p])];
		uint32_t end = tr->first_row + tr->row_count, lo = p + 1, hi = nm->count;
		while (lo < hi) { /* the first of its rows past the track */
			uint32_t mid = lo + (hi - lo) / 2;
			if (list[mid] < end)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (*n == *cap) {
			uint32_t nc = *cap ? 2 * *cap : 64;
			struct run *nr = realloc(*runs, nc * sizeof(*nr));
			if (!nr)
				return -1;
			*runs = nr;
			*cap = nc;
		}
		(*runs)[(*n)++] = (struct run){nm->first + p, nm->first + lo};
		p = lo;
	}
	return 0;
}

long tix_find_by_name(const struct tix_index *ix, int (*match)(void *ctx, uint32_t name), void *ctx,
                      uint32_t cap, uint32_t **out)
{
	*out = NULL;
	struct run *runs = NULL;
	uint32_t nruns = 0, runs_cap = 0;
	uint64_t total = 0;
	for (uint32_t i = 0; i < ix->nnames; i++) {
		need1(ix, TIX_SEC_NAMES, i);
		const struct tix_names_disk *nm = &ix->names[i];
		if (!match(ctx, nm->name))
			continue;
		total += nm->count;
		if (add_runs(ix, nm, &runs, &nruns, &runs_cap) != 0) {
			free(runs);
			return -1;
		}
	}
	uint32_t want = total < cap ? (uint32_t)total : cap, got = 0;
	uint32_t *rows = want ? malloc((size_t)want * sizeof(*rows)) : NULL;
	struct head *h = nruns ? malloc((size_t)nruns * sizeof(*h)) : NULL;
	if ((want && !rows) || (nruns && !h)) {
		free(rows);
		free(h);
		free(runs);
		return -1;
	}
	/* the runs merged by start (then row): a heap of their heads */
	uint32_t nh = want ? nruns : 0;
	for (uint32_t r = 0; r < nh; r++)
		h[r] = head_of(ix, &runs[r], r);
	for (uint32_t i = nh / 2; i-- > 0;)
		heap_down(h, nh, i);
	while (got < want && nh) {
		rows[got++] = h[0].row;
		struct run *r = &runs[h[0].run];
		if (++r->at < r->end)
			h[0] = head_of(ix, r, h[0].run);
		else
			h[0] = h[--nh];
		heap_down(h, nh, 0);
	}
	free(h);
	free(runs);
	*out = rows;
	return (long)total;
}

/* ---- GPU work beneath an op ---- */

/* Rows whose answer is known: does an ancestor of the row carry the name?
 * Open addressing, key row + 1 (0 empty). */
struct memo {
	uint32_t *key;
	uint8_t *val;
	uint32_t cap, n;  /* cap a power of two */
};

static uint32_t memo_slot(const struct memo *m, uint32_t row)
{
	uint32_t i = (row * 2654435761u) & (m->cap - 1);
	while (m->key[i] && m->key[i] != row + 1)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int memo_get(const struct memo *m, uint32_t row)
{
	uint32_t i = memo_slot(m, row);
	return m->key[i] ? m->val[i] : -1;
}

static int memo_put(struct memo *m, uint32_t row, uint8_t v)
{
	if (2 * (m->n + 1) > m->cap) {
		struct memo g = {calloc(2 * m->cap, sizeof(uint32_t)), malloc(2 * m->cap), 2 * m->cap, 0};
		if (!g.key || !g.val) {
			free(g.key);
			free(g.val);
			return -1;
		}
		for (uint32_t i = 0; i < m->cap; i++)
			if (m->key[i]) {
				uint32_t j = memo_slot(&g, m->key[i] - 1);
				g.key[j] = m->key[i];
				g.val[j] = m->val[i];
				g.n++;
			}
		free(m->key);
		free(m->val);
		*m = g;
	}
	uint32_t i = memo_slot(m, row);
	if (!m->key[i])
		m->n++;
	m->key[i] = row + 1;
	m->val[i] = v;
	return 0;
}

/* Whether an ancestor of row (rules.h: its listed chain, or its link and
 * the link's ancestors) is named name; -1 when out of memory.  Every row
 * the walk passes above the first learns the answer, so the next walk
 * through it stops (the first, a launch call, has no other walk through
 * it: asking the memo would cost a miss, filling it would grow it). */
static int above(const struct tix_index *ix, struct memo *m, uint32_t **path, uint32_t *path_cap,
                 uint32_t row, uint32_t name)
{
	uint32_t depth = 0;
	int res;
	for (uint32_t cur = row;;) {
		int known = cur == row ? -1 : memo_get(m, cur);
		if (known >= 0) {
			res = known;
			break;
		}
		const uint32_t *list;
		uint32_t count;
		if (tix_rule_listed(&ix->view, cur, &list, &count)) {
			res = 0;
			for (uint32_t i = 0; i < count && !res; i++) {
				need1(ix, TIX_SEC_ROWS, list[i]);
				res = ix->rows[list[i]].name == name;
			}
		} else {
			uint32_t p = ix->rows[cur].link;
			if (p != TIX_NONE) {
				need1(ix, TIX_SEC_ROWS, p);
				if (ix->rows[p].name != name) {
					/* cur's answer is p's: walk on */
					if (depth == *path_cap) {
						uint32_t nc = *path_cap ? 2 * *path_cap : 64;
						uint32_t *np = realloc(*path, nc * sizeof(*np));
						if (!np)
							return -1;
						*path = np;
						*path_cap = nc;
					}
					(*path)[depth++] = cur;
					cur = p;
					continue;
				}
			}
			res = p != TIX_NONE;
		}
		if (cur != row && memo_put(m, cur, (uint8_t)res) != 0)
			return -1;
		break;
	}
	for (uint32_t i = 1; i < depth; i++)
		if (memo_put(m, (*path)[i], (uint8_t)res) != 0)
			return -1;
	return res;
}

long tix_group_beneath_op(const struct tix_index *ix, const struct tix_group *g, uint32_t op,
                          uint32_t *out)
{
	uint32_t n = g->members_count, ng;
	const uint32_t *m = tix_members(ix, g->members_first, n);
	if (!m || op >= ix->nops)
		return 0;
	const struct tix_op_group *og = tix_op_groups(ix, op, &ng);
	for (uint32_t k = 0; k < ng; k++) {
		if (og[k].group != g->group)
			continue;
		/* the op's count of the kernel's events is all of them: then so
		 * are the members of any of its steps */
		if (og[k].count == tix_group_get(ix, g->group)->instances) {
			memcpy(out, m, (size_t)n * sizeof(*out));
			return n;
		}
		return tix_rows_beneath(ix, m, n, tix_op_get(ix, op)->name, out);
	}
	return 0; /* the op launched none of the kernel's events */
}

long tix_rows_beneath(const struct tix_index *ix, const uint32_t *rows, uint32_t n, uint32_t name,
                      uint32_t *out)
{
	struct memo m = {calloc(1024, sizeof(uint32_t)), malloc(1024), 1024, 0};
	uint32_t *path = NULL, path_cap = 0;
	long k = 0;
	if (!m.key || !m.val)
		k = -1;
	for (uint32_t i = 0; i < n && k >= 0; i++) {
		uint32_t r = rows[i];
		if (r >= ix->nrows)
			continue;
		need1(ix, TIX_SEC_ROWS, r);
		/* GPU work: beneath its launch call; a CPU row: beneath itself */
		uint32_t from = tix_kind_is_gpu((enum tix_kind)ix->rows[r].kind) ? ix->rows[r].link : r;
		if (from == TIX_NONE)
			continue;
		int b = above(ix, &m, &path, &path_cap, from, name);
		if (b < 0)
			k = -1;
		else if (b)
			out[k++] = r;
	}
	free(m.key);
	free(m.val);
	free(path);
	return k;
}
