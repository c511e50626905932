/* The parents phase: each CPU-side row's ancestors by containment
 * (rules.h), its link to the innermost, and the chain table for the rows
 * whose links would not walk to exactly their ancestors.
 *
 * One pass per track in row order keeps the container-kind rows that may
 * still contain a later row ("open"), each with its own ancestor list; a
 * row's ancestors are the open rows that contain it.  Walking links from
 * its innermost ancestor p gives p, then p's ancestors (exactly: where p's
 * links would not, p is in the chain table), so the row needs a chain
 * exactly when its other ancestors are not p's list.  Comparing with the
 * list kept for p costs what the walk would, without reading rows; and in
 * a stack (a row inside every open row, p pushed when all the rows below it
 * were its ancestors, none closed since) it is known without comparing:
 * such rows cost the same at any depth.
 *
 * The rows are split in two runs, one per core, at a row that may be inside
 * a track (most of a trace's CPU rows are often its main thread's): the
 * second run starts with the open rows the first would have had there
 * (seed_open).  Its chains go into spills of its own and are appended after
 * the first's (the chain table is by row, and the second run's rows all
 * come after the first's).  The calling thread also runs the launches
 * phase, which writes only GPU rows' links and reads none of what this
 * phase writes. */
#include "index/index.h"
#include "index/grow.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "index/build/phases.h"
#include "index/rules.h"

/* The open rows of a track, in row order, as parallel arrays (the scan
 * over them is the phase's inner loop).  end and reach are start + dur
 * and start + dur + the slack, saturated at INT64_MAX; rows whose own
 * times are near the int64 limits take rules.h's exact test instead.
 * min_end and min_reach are their minima over the rows up to each one, so
 * that a row inside all the open rows (the common case: a stack) is seen
 * to be without a scan.  A row pushed when all the rows below it were its
 * ancestors is all_below; while it stays where it was pushed (no row below
 * it has closed), its ancestors are exactly the rows below it. */
struct open_rows {
	int64_t *start, *dur, *end, *reach, *min_end, *min_reach;
	uint32_t *row;
	uint32_t *anc_at, *nanc; /* its ancestors, outermost first, in the arena */
	uint32_t *pushed_at;     /* its place when it was pushed */
	uint8_t *all_below;
	uint32_t n, cap;
};

/* The lists kept: of rows with at most LIST_DEPTH ancestors, while the
 * arena holds at most ARENA_MAX entries (16 MB).  A row nested deeper, or
 * past that, is unlisted: a row whose innermost ancestor is unlisted is
 * checked by walking the links, as the reader will.  So memory follows
 * neither the trace nor its depth (a 20,000-deep nesting kept 0.8 GB of
 * lists before). */
#define LIST_DEPTH 256
#define ARENA_MAX (1u << 22)
#define UNLISTED UINT32_MAX

/* The working memory of one run: bounded, see above. */
struct parents_mem {
	struct open_rows open;
	uint32_t *anc;
	uint32_t anc_cap;
	uint32_t *arena; /* the listed open rows' ancestor lists, in open order */
	uint32_t arena_n, arena_cap;
	uint32_t *walk;  /* a walk of links, for the unlisted */
	uint32_t walk_cap;
	uint32_t seeded_for; /* the open rows are seed_open's for a run from this row (0: none) */
};

/* Room for n more arena entries: the lists of rows no longer open are
 * dropped first when that frees enough, or when the arena is at its
 * limit (the live lists are in arena order, so they slide down in place).
 * 0, 1 when the arena is full (the row goes unlisted), -1: no memory. */
static int arena_room(struct parents_mem *m, uint32_t n)
{
	if (m->arena_n + n <= m->arena_cap)
		return 0;
	struct open_rows *o = &m->open;
	uint32_t live = 0;
	for (uint32_t k = 0; k < o->n; k++)
		live += o->anc_at[k] != UNLISTED ? o->nanc[k] : 0;
	if ((uint64_t)live + n <= m->arena_cap / 2 || (uint64_t)m->arena_n + n > ARENA_MAX) {
		uint32_t at = 0;
		for (uint32_t k = 0; k < o->n; k++) {
			if (o->anc_at[k] == UNLISTED)
				continue;
			memmove(m->arena + at, m->arena + o->anc_at[k], (size_t)o->nanc[k] * sizeof(*m->arena));
			o->anc_at[k] = at;
			at += o->nanc[k];
		}
		m->arena_n = at;
		if ((uint64_t)at + n <= m->arena_cap)
			return 0;
	}
	if ((uint64_t)m->arena_n + n > ARENA_MAX)
		return 1; /* full: the row goes unlisted */
	return tix_grow32(&m->arena, &m->arena_cap, m->arena_n + n, sizeof(*m->arena), 64);
}

static int open_room(struct open_rows *o)
{
	if (o->n < o->cap)
		return 0;
	uint32_t c = (uint32_t)tix_grow_cap(o->cap, (size_t)o->n + 1, 64, UINT32_MAX); /* one for all */
	if (!c)
		return -1;
	int64_t **w64[] = {&o->start, &o->dur, &o->end, &o->reach, &o->min_end, &o->min_reach};
	uint32_t **w32[] = {&o->row, &o->anc_at, &o->nanc, &o->pushed_at};
	for (size_t k = 0; k < sizeof(w64) / sizeof(w64[0]); k++) {
		void *p = realloc(*w64[k], (size_t)c * sizeof(int64_t));
		if (!p)
			return -1;
		*w64[k] = p;
	}
	for (size_t k = 0; k < sizeof(w32) / sizeof(w32[0]); k++) {
		void *p = realloc(*w32[k], (size_t)c * sizeof(uint32_t));
		if (!p)
			return -1;
		*w32[k] = p;
	}
	void *p = realloc(o->all_below, c);
	if (!p)
		return -1;
	o->all_below = p;
	o->cap = c;
	return 0;
}

static int64_t sat_add(int64_t a, int64_t b)
{
	int64_t s;
	return __builtin_add_overflow(a, b, &s) ? (b > 0 ? INT64_MAX : INT64_MIN) : s;
}

static void set_minima(struct open_rows *o, uint32_t k)
{
	o->min_end[k] = k && o->min_end[k - 1] < o->end[k] ? o->min_end[k - 1] : o->end[k];
	o->min_reach[k] = k && o->min_reach[k - 1] < o->reach[k] ? o->min_reach[k - 1] : o->reach[k];
}

/* The open rows that rs, rd may be inside: drops the ones closed before rs
 * (keeping the order), lists those that contain it into anc (outermost
 * first) and returns how many; *inner is the innermost's place in open. */
static uint32_t scan_open(struct open_rows *o, int64_t rs, int64_t rd, uint32_t *anc, uint32_t *inner)
{
	uint32_t w = 0, nanc = 0;
	int64_t re;
	int exact = rd < 0 || rs == INT64_MAX || __builtin_add_overflow(rs, rd, &re);
	uint32_t moved = o->n; /* the first place whose row changed */
	for (uint32_t k = 0; k < o->n; k++) {
		int closed, contains;
		if (!exact) { /* open rows start at or before rs: see rules.h */
			closed = rs > o->start[k] && rs >= o->end[k];
			contains = !closed && re <= o->reach[k];
		} else {
			closed = tix_rule_closed_before(o->start[k], o->dur[k], rs);
			contains = tix_rule_contains(o->start[k], o->dur[k], rs, rd);
		}
		if (closed) {
			moved = w < moved ? w : moved;
			continue;
		}
		if (w != k) {
			o->start[w] = o->start[k], o->dur[w] = o->dur[k];
			o->end[w] = o->end[k], o->reach[w] = o->reach[k];
			o->row[w] = o->row[k], o->anc_at[w] = o->anc_at[k], o->nanc[w] = o->nanc[k];
			o->pushed_at[w] = o->pushed_at[k], o->all_below[w] = o->all_below[k];
		}
		if (contains) {
			anc[nanc++] = o->row[w];
			*inner = w;
		}
		w++;
	}
	o->n = w;
	for (uint32_t k = moved; k < w; k++)
		set_minima(o, k);
	return nanc;
}

/* Pushes row i (start rs, duration rd, ancestors m->anc[0..nanc)
 * outermost first) as open, listed when the limits allow. */
static int push_open(struct parents_mem *m, uint32_t i, int64_t rs, int64_t rd, uint32_t nanc)
{
	struct open_rows *o = &m->open;
	int room = nanc > LIST_DEPTH ? 1 : arena_room(m, nanc);
	if (open_room(o) != 0 || room < 0)
		return -1;
	uint32_t k = o->n++;
	o->start[k] = rs, o->dur[k] = rd;
	o->end[k] = sat_add(rs, rd);
	o->reach[k] = sat_add(o->end[k], TIX_PARENT_SLACK_NS);
	o->row[k] = i, o->nanc[k] = nanc;
	o->pushed_at[k] = k;
	o->all_below[k] = nanc == k;
	set_minima(o, k);
	o->anc_at[k] = room ? UNLISTED : m->arena_n;
	if (!room && nanc) { /* the arena is NULL until a row has ancestors */
		memcpy(m->arena + m->arena_n, m->anc, (size_t)nanc * sizeof(*m->anc));
		m->arena_n += nanc;
	}
	return 0;
}

/* Most rows that may be open when a run starts inside a track: more, and
 * the run does not start there (seeding is quadratic in them). */
#define SEED_MAX 4096

/* A run that starts at row c inside a track (rows first..c are another
 * run's) begins with the open rows the sequential pass would have there,
 * each with its ancestor list.  Those are the container rows before c that
 * are not closed before c's start, and their ancestors are among the rows
 * that end no earlier than the slack before it (a container of an open
 * row ends at most the slack before that row's end, which is past c's
 * start, or starts with it): those rows, in row order, each with the
 * earlier ones that contain it.  The ones that are not open are dropped by
 * the next row's scan; lists are only read for the open ones, which are
 * complete.  0; 1 when there are over SEED_MAX of them or one is
 * unlisted (the run cannot start there); -1: no memory. */
static int seed_open(struct linker *L, uint32_t first, uint32_t c, struct parents_mem *m)
{
	struct open_rows *o = &m->open;
	int64_t cs = SPILL_AT(&L->rows, struct tix_row_disk, c).start_ns;
	for (uint32_t j = first; j < c; j++) {
		const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, j);
		if (!tix_rule_is_container_kind(r->kind))
			continue;
		int64_t js = r->start_ns, jd = row_dur(L, j);
		if ((__int128)js + jd + TIX_PARENT_SLACK_NS < (__int128)cs && js != cs)
			continue;
		if (o->n >= SEED_MAX)
			return 1;
		if (tix_grow32(&m->anc, &m->anc_cap, o->n + 1, sizeof(*m->anc), 64) != 0)
			return -1;
		uint32_t nanc = 0;
		for (uint32_t k = 0; k < o->n; k++)
			if (tix_rule_contains(o->start[k], o->dur[k], js, jd))
				m->anc[nanc++] = o->row[k];
		if (push_open(m, j, js, jd, nanc) != 0)
			return -1;
		if (o->anc_at[o->n - 1] == UNLISTED) /* the run could not walk up from it */
			return 1;
	}
	m->seeded_for = c;
	return 0;
}

/* Whether walking links from row i (its link just set) gives its
 * ancestors anc[0..nanc), outermost first: the check for a row whose
 * innermost ancestor is unlisted.  The walk reads this run's own rows and
 * chains, so it is only made where the run started at the track's start. */
static int walk_gives(struct linker *L, uint32_t i, uint32_t nanc, const struct spill *chains,
                      const struct spill *chain_rows, struct parents_mem *m)
{
	struct tix_rows v;
	linker_rows_view(L, &v);
	v.chains = (const struct tix_chain_disk *)chains->base;
	v.nchains = (uint32_t)chains->n;
	v.chain_rows = (const uint32_t *)chain_rows->base;
	v.nchain_rows = (uint32_t)chain_rows->n;
	if (tix_grow32(&m->walk, &m->walk_cap, nanc, sizeof(*m->walk), 64) != 0)
		return -1;
	if (tix_rule_ancestors(&v, i, m->walk, nanc) != nanc)
		return 0;
	for (uint32_t k = 0; k < nanc; k++)
		if (m->walk[k] != m->anc[nanc - 1 - k])
			return 0;
	return 1;
}

/* m->anc from the open rows, where the stack's fast path left it empty:
 * the row's ancestors are then all of them. */
static void fill_anc(struct parents_mem *m, uint32_t nanc, int *filled)
{
	if (!*filled && nanc)
		memcpy(m->anc, m->open.row, (size_t)nanc * sizeof(*m->anc));
	*filled = 1;
}

/* Parents of the CPU rows in [r0, r1), a run of rows that may start or end
 * inside a track; their chains are appended to chains and chain_rows
 * (`first` counts in chain_rows).  0; 1 when the run started inside a track
 * nested too deep to check there (the phase is then done on one thread);
 * -1 with err set. */
static int parents_of_rows(struct linker *L, uint32_t r0, uint32_t r1, struct spill *chains,
                           struct spill *chain_rows, struct parents_mem *m, struct tix_error *err)
{
	struct open_rows *o = &m->open;
	for (uint32_t t = 0; t < L->ntracks; t++) {
		uint32_t first = L->tracks[t].first_row, end = first + L->tracks[t].row_count;
		if (end <= r0 || first >= r1)
			continue;
		uint32_t i = first > r0 ? first : r0;
		int seeded = i > first, sr = 0;
		if (!seeded || m->seeded_for != i) { /* split_row may have seeded it */
			o->n = 0;
			m->arena_n = 0;
			sr = seeded ? seed_open(L, first, i, m) : 0;
		}
		m->seeded_for = 0;
		if (sr != 0)
			return sr < 0 ? tix_error_oom(err, NULL) : 1;
		for (end = end < r1 ? end : r1; i < end; i++) {
			struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
			if (tix_kind_is_gpu((enum tix_kind)r->kind))
				continue;
			int64_t rs = r->start_ns, rd = row_dur(L, i), re;
			if (tix_grow32(&m->anc, &m->anc_cap, o->n + 1, sizeof(*m->anc), 64) != 0)
				return tix_error_oom(err, NULL);
			/* A stack first: the rows closed at its top go; when no other
			 * is closed and all contain this one, they are its ancestors
			 * (m->anc is then filled only where it is read). */
			int plain = rd >= 0 && rs != INT64_MAX && !__builtin_add_overflow(rs, rd, &re);
			while (plain && o->n && rs > o->start[o->n - 1] && rs >= o->end[o->n - 1])
				o->n--;
			uint32_t inner = 0, nanc;
			int filled = 0;
			if (plain && (!o->n || (rs < o->min_end[o->n - 1] && re <= o->min_reach[o->n - 1]))) {
				nanc = o->n;
				inner = nanc ? nanc - 1 : 0;
			} else {
				nanc = scan_open(o, rs, rd, m->anc, &inner);
				filled = 1;
			}
			r->link = nanc ? o->row[inner] : TIX_NONE;
			/* The walk from the innermost gives it, then its list. */
			int same = 1;
			if (nanc >= 1 && o->all_below[inner] && o->pushed_at[inner] == inner) {
				/* its list is the rows below it: ours, when all contain us */
				same = nanc - 1 == inner;
			} else if (nanc >= 1 && o->anc_at[inner] != UNLISTED) {
				fill_anc(m, nanc, &filled);
				same = o->nanc[inner] == nanc - 1 &&
				       (nanc == 1 || memcmp(m->arena + o->anc_at[inner], m->anc,
				                            (size_t)(nanc - 1) * sizeof(*m->anc)) == 0);
			} else if (nanc >= 1) {
				fill_anc(m, nanc, &filled);
				if (seeded) /* the walk would reach the other run's rows */
					return 1;
				if ((same = walk_gives(L, i, nanc, chains, chain_rows, m)) < 0)
					return tix_error_oom(err, NULL);
			}
			if (!same) {
				fill_anc(m, nanc, &filled);
				struct tix_chain_disk *c = spill_push(chains, 1, err);
				if (!c)
					return -1;
				c->row = i;
				c->first = (uint32_t)chain_rows->n;
				c->count = nanc;
				c->pad = 0;
				uint32_t *dst = spill_push(chain_rows, nanc, err);
				if (!dst)
					return -1;
				for (uint32_t k = 0; k < nanc; k++) /* innermost first */
					dst[k] = m->anc[nanc - 1 - k];
				r->flags |= TIX_ROW_CHAIN;
			}
			if (tix_rule_is_container_kind(r->kind)) {
				if (nanc <= LIST_DEPTH)
					fill_anc(m, nanc, &filled);
				if (push_open(m, i, rs, rd, nanc) != 0)
					return tix_error_oom(err, NULL);
			}
		}
	}
	return 0;
}

static void mem_done(struct parents_mem *m)
{
	free(m->open.start);
	free(m->open.dur);
	free(m->open.end);
	free(m->open.reach);
	free(m->open.min_end);
	free(m->open.min_reach);
	free(m->open.pushed_at);
	free(m->open.all_below);
	free(m->open.row);
	free(m->open.anc_at);
	free(m->open.nanc);
	free(m->anc);
	free(m->arena);
	free(m->walk);
}

/* The second run, on a thread of its own. */
struct second_run {
	struct linker *L;
	uint32_t r0;
	struct parents_mem m; /* seeded by split_row when r0 is inside a track */
	struct spill chains, chain_rows;
	int rc;
	struct tix_error err;
};

static void *run_second(void *arg)
{
	struct second_run *s = arg;
	s->rc = parents_of_rows(s->L, s->r0, s->L->nrows, &s->chains, &s->chain_rows, &s->m, &s->err);
	return NULL;
}

/* Where the second run starts: at the row that splits the CPU tracks'
 * rows in two, less the first run's estimated share of `alongside` (the
 * launches phase: a GPU event costs it about a quarter of what a CPU row
 * costs this phase).  A start inside a track where too many rows are open
 * to seed moves to the track's start; otherwise m is left seeded for it. */
static uint32_t split_row(struct linker *L, struct parents_mem *m)
{
	uint64_t cpu = 0, gpu = 0;
	for (uint32_t t = 0; t < L->ntracks; t++)
		*(L->tracks[t].kind == TIX_TRACK_GPU ? &gpu : &cpu) += L->tracks[t].row_count;
	uint64_t want = (cpu + gpu / 4) / 2, acc = 0;
	want = want > gpu / 4 ? want - gpu / 4 : 0;
	for (uint32_t t = 0; t < L->ntracks; t++) {
		const struct tix_track *T = &L->tracks[t];
		if (T->kind == TIX_TRACK_GPU)
			continue;
		if (acc + T->row_count > want) {
			uint32_t c = T->first_row + (uint32_t)(want - acc);
			if (c == T->first_row || seed_open(L, T->first_row, c, m) == 0)
				return c; /* m is the second run's, seeded */
			m->seeded_for = 0;
			return T->first_row;
		}
		acc += T->row_count;
	}
	return L->nrows;
}

int linker_parents(struct linker *L, int (*alongside)(struct linker *, struct tix_error *),
                   struct tix_error *err)
{
	if (linker_spill(L, &L->chains, sizeof(struct tix_chain_disk), 0, err) ||
	    linker_spill(L, &L->chain_rows, sizeof(uint32_t), 0, err))
		return -1;
	struct second_run s = {.L = L, .r0 = L->nrows};
	s.chains.fd = s.chain_rows.fd = -1;
	pthread_t th;
	int threaded = 0;
	if (linker_two_threads(L) && (s.r0 = split_row(L, &s.m)) < L->nrows &&
	    linker_spill(L, &s.chains, sizeof(struct tix_chain_disk), 0, err) == 0 &&
	    linker_spill(L, &s.chain_rows, sizeof(uint32_t), 0, err) == 0)
		threaded = pthread_create(&th, NULL, run_second, &s) == 0;
	struct parents_mem m = {0};
	int rc = parents_of_rows(L, 0, threaded ? s.r0 : L->nrows, &L->chains, &L->chain_rows, &m, err);
	mem_done(&m);
	if (rc == 0)
		rc = alongside(L, err);
	if (threaded) {
		pthread_join(th, NULL);
		if (rc == 0 && s.rc < 0) {
			*err = s.err;
			rc = -1;
		}
		if (rc == 0 && s.rc == 1) {
			/* Nested too deep where the second run started: the whole
			 * phase again, on this thread (the launches stay linked). */
			L->chains.n = L->chain_rows.n = 0;
			for (uint32_t i = 0; i < L->nrows; i++)
				SPILL_AT(&L->rows, struct tix_row_disk, i).flags &= (uint8_t)~TIX_ROW_CHAIN;
			struct parents_mem m1 = {0};
			rc = parents_of_rows(L, 0, L->nrows, &L->chains, &L->chain_rows, &m1, err);
			mem_done(&m1);
			s.chains.n = 0;
		}
		/* The second run's chains after the first's. */
		uint32_t base = (uint32_t)L->chain_rows.n;
		if (rc == 0 && s.chains.n) {
			struct tix_chain_disk *c = spill_push(&L->chains, s.chains.n, err);
			uint32_t *cr = c ? spill_push(&L->chain_rows, s.chain_rows.n, err) : NULL;
			if (!cr)
				rc = -1;
			else {
				memcpy(c, s.chains.base, s.chains.n * sizeof(*c));
				for (size_t k = 0; k < s.chains.n; k++)
					c[k].first += base;
				memcpy(cr, s.chain_rows.base, s.chain_rows.n * sizeof(*cr));
			}
		}
	}
	mem_done(&s.m);
	linker_release(L, &s.chains);
	linker_release(L, &s.chain_rows);
	return rc;
}
