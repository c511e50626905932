/* Aggregates computed once at index time, so that no query walks events:
 * kernel groups overall and per step (instances, total, min, max, median,
 * standard deviation, most common launch shape) and step totals (GPU busy
 * time as a union of intervals).  op_totals.c then ranks the CPU ops by the
 * GPU time launched beneath them. */
#include "index/index.h"
#include "index/grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "index/build/phases.h"
#include "index/merge.h"

struct member {               /* 32 bytes */
	uint32_t group;
	uint32_t step;
	int64_t start_ns;
	int64_t dur_ns;
	uint32_t row;
	uint32_t kinfo;
};

struct group_key {
	uint32_t name;
	uint32_t kind;
};

static int cmp_member(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->row < y->row ? -1 : (x->row > y->row);
}


static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : (x > y);
}

/* Scratch arrays reused across groups (linker_buf: one group may hold
 * every GPU event of the trace). */
struct scratch {
	int64_t *durs;
	uint32_t *infos;
	struct linker *L;
	struct linker_buf bd, bi; /* under durs and infos */
};

static int scratch_fit(struct scratch *s, size_t n, struct tix_error *err)
{
	s->durs = linker_buf(s->L, &s->bd, n, sizeof(int64_t), err);
	s->infos = s->durs ? linker_buf(s->L, &s->bi, n, sizeof(uint32_t), err) : NULL;
	return s->infos ? 0 : -1;
}

/* The k-th smallest of a[0..n) (0-based), reordering a: quickselect. */
static int64_t select_kth(int64_t *a, uint32_t n, uint32_t k)
{
	uint32_t lo = 0, hi = n - 1;
	while (lo < hi) {
		int64_t pivot = a[lo + (hi - lo) / 2];
		uint32_t i = lo, j = hi;
		while (i <= j) {
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i <= j) {
				int64_t t = a[i];
				a[i] = a[j];
				a[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return a[k];
	}
	return a[k];
}

/* Fills the statistics of g from members m[0..n). */
static int group_stats(struct tix_group *g, const struct member *m, uint32_t n, struct scratch *s,
                       struct tix_error *err)
{
	if (scratch_fit(s, n, err) != 0)
		return -1;
	int64_t total = 0, mn = INT64_MAX, mx = INT64_MIN;
	int same_info = 1;
	for (uint32_t i = 0; i < n; i++) {
		int64_t d = m[i].dur_ns;
		s->durs[i] = d;
		s->infos[i] = m[i].kinfo;
		same_info &= m[i].kinfo == m[0].kinfo;
		total = tix_sat_add(total, d);
		mn = d < mn ? d : mn;
		mx = d > mx ? d : mx;
	}
	g->instances = n;
	g->total_ns = total;
	g->min_ns = mn;
	g->max_ns = mx;
	double mean = (double)total / n, sq = 0;
	for (uint32_t i = 0; i < n; i++) {
		double d = (double)s->durs[i] - mean;
		sq += d * d;
	}
	g->stddev_ns = sqrt(sq / n);
	/* The median: the middle value, or the mean of the two middle ones
	 * rounded down; quickselect, not a sort. */
	int64_t hi = select_kth(s->durs, n, n / 2);
	if (n % 2 == 0) {
		int64_t lo = s->durs[0]; /* the largest of the lower half */
		for (uint32_t i = 1; i < n / 2; i++)
			lo = s->durs[i] > lo ? s->durs[i] : lo;
		g->med_ns = lo + (hi - lo) / 2;
	} else {
		g->med_ns = hi;
	}
	/* Most common launch shape (grid, block, registers...). */
	if (same_info) {
		g->common_info = m[0].kinfo;
		return 0;
	}
	if (linker_sort(s->L, s->infos, n, sizeof(*s->infos), cmp_u32, err) != 0)
		return -1;
	uint32_t best = s->infos[0], best_n = 0;
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i;
		while (j < n && s->infos[j] == s->infos[i])
			j++;
		if (j - i > best_n) {
			best_n = j - i;
			best = s->infos[i];
		}
		i = j;
	}
	g->common_info = best;
	return 0;
}

struct rank_key {
	int64_t total;
	uint32_t count, g;
};

/* Larger total first; ties by more instances, then first seen. */
static int cmp_rank_key(const void *a, const void *b)
{
	const struct rank_key *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->g < y->g ? -1 : (x->g > y->g);
}

static int cmp_step_group(const void *a, const void *b)
{
	const struct tix_group *x = a, *y = b;
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	return x->group < y->group ? -1 : (x->group > y->group);
}

/* A step's GPU busy time is counted in three unions of intervals: all its
 * GPU work, its communication kernels, and the rest. */
enum busy_class { BUSY_ALL, BUSY_COMPUTE, BUSY_COMM };

/* A step group's members not yet counted, in w->sorted. */
struct run_cursor {
	size_t at, end;
	int64_t start; /* the start of the member at `at` */
};

static int run_before(const struct run_cursor *a, const struct run_cursor *b)
{
	return a->start < b->start;
}

TIX_HEAP_DOWN(heap_down, struct run_cursor, run_before)

/* What the four jobs of linker_aggregate_groups hand on to each other;
 * group_work_done frees whatever is left, whichever job stopped. */
struct group_work {
	struct dedup keys;       /* struct group_key -> group number, in the order found */
	struct spill mem;        /* struct member in row order (collect_members) */
	int64_t *totals;         /* by group number */
	uint32_t *counts;
	uint32_t cap;            /* of totals and counts */
	uint32_t *order, *rank;  /* rank -> group number, group number -> rank (rank_groups) */
	struct spill sorted;     /* struct member by rank; each rank's own by step and time */
	uint32_t *first;         /* by rank: its first member in sorted; first[ngroups]: all */
	struct scratch sc;       /* group_stats' buffers */
};

static int group_work_init(struct linker *L, struct group_work *w, struct tix_error *err)
{
	memset(w, 0, sizeof(*w));
	w->mem.fd = w->sorted.fd = -1;
	w->sc.L = L;
	if (dedup_init(&w->keys, sizeof(struct group_key)) != 0)
		return tix_error_oom(err, NULL);
	return 0;
}

static void group_work_done(struct linker *L, struct group_work *w)
{
	spill_done(&w->mem);
	spill_done(&w->sorted);
	dedup_done(&w->keys);
	free(w->totals);
	free(w->counts);
	free(w->rank);
	free(w->order);
	free(w->first);
	linker_buf_done(L, &w->sc.bd);
	linker_buf_done(L, &w->sc.bi);
}

/* Job 1: every GPU work row becomes a member of the group of its name and
 * kind, with its step; each group's total time and count. */
static int collect_members(struct linker *L, struct group_work *w, struct tix_error *err)
{
	const struct tix_detail_disk *details = (const struct tix_detail_disk *)L->b->c.details.recs;
	if (linker_spill(L, &w->mem, sizeof(struct member), linker_gpu_span_rows(L), err))
		return -1;
	for (uint32_t sp = 0, i = linker_gpu_row(L, &sp, 0); i != TIX_NONE; i = linker_gpu_row(L, &sp, i + 1)) {
		const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
		if (!tix_kind_is_gpu_work(r->kind))
			continue;
		struct group_key k = {r->name, r->kind};
		uint32_t g = dedup_add(&w->keys, &k);
		if (g == TIX_NONE)
			return tix_error_oom(err, NULL);
		if (g >= w->cap) {
			uint32_t ncap = (uint32_t)tix_grow_cap(w->cap, (size_t)g + 1, 256, UINT32_MAX); /* both */
			if (!ncap)
				return tix_error_oom(err, NULL);
			int64_t *t = realloc(w->totals, ncap * sizeof(*t));
			if (t)
				w->totals = t;
			uint32_t *c = t ? realloc(w->counts, ncap * sizeof(*c)) : NULL;
			if (!c)
				return tix_error_oom(err, NULL);
			w->counts = c;
			memset(w->totals + w->cap, 0, (ncap - w->cap) * sizeof(*w->totals));
			memset(w->counts + w->cap, 0, (ncap - w->cap) * sizeof(*w->counts));
			w->cap = ncap;
		}
		struct member *m = spill_push(&w->mem, 1, err);
		if (!m)
			return -1;
		m->group = g;
		m->step = linker_step_of(L, i);
		m->start_ns = r->start_ns;
		m->dur_ns = row_dur(L, i);
		m->row = i;
		m->kinfo = r->detail != TIX_NONE ? details[r->detail].kernel_info : TIX_NONE;
		w->totals[g] = tix_sat_add(w->totals[g], m->dur_ns);
		w->counts[g]++;
	}
	return 0;
}

/* Job 2: the groups ranked by total time, and the members moved into rank
 * order (a counting sort: each rank's members keep their row order). */
static int rank_groups(struct linker *L, struct group_work *w, struct tix_error *err)
{
	uint32_t ng = w->keys.n;
	struct rank_key *kv = NULL;
	uint32_t *cur = NULL;
	int rc = -1;
	w->order = malloc((ng + 1) * sizeof(*w->order));
	w->rank = malloc((ng + 1) * sizeof(*w->rank));
	kv = w->order && w->rank ? malloc((ng + 1) * sizeof(*kv)) : NULL;
	if (!kv)
		goto oom;
	for (uint32_t g = 0; g < ng; g++)
		kv[g] = (struct rank_key){w->totals[g], w->counts[g], g};
	qsort(kv, ng, sizeof(*kv), cmp_rank_key);
	for (uint32_t g = 0; g < ng; g++)
		w->order[g] = kv[g].g;
	free(kv);
	kv = NULL;
	for (uint32_t i = 0; i < ng; i++)
		w->rank[w->order[i]] = i;

	size_t nm = w->mem.n;
	if (linker_spill(L, &w->sorted, sizeof(struct member), nm, err) || spill_resize(&w->sorted, nm, err))
		goto out;
	w->first = calloc(ng + 1, sizeof(*w->first));
	cur = w->first ? malloc((ng + 1) * sizeof(*cur)) : NULL;
	if (!cur)
		goto oom;
	for (uint32_t g = 0; g < ng; g++)
		w->first[w->rank[g] + 1] = w->counts[g];
	for (uint32_t i = 0; i < ng; i++)
		w->first[i + 1] += w->first[i];
	memcpy(cur, w->first, (ng + 1) * sizeof(*cur));
	for (size_t i = 0; i < nm; i++) {
		struct member m = SPILL_AT(&w->mem, struct member, i);
		m.group = w->rank[m.group];
		SPILL_AT(&w->sorted, struct member, cur[m.group]++) = m;
	}
	linker_release(L, &w->mem);
	rc = 0;
	goto out;
oom:
	rc = tix_error_oom(err, NULL);
out:
	free(kv);
	free(cur);
	return rc;
}

/* Appends the step group of G's members seg[0..n), all of one step and
 * at first in MEMBERS, with its statistics; *cap: L->step_groups' room. */
static int add_step_group(struct linker *L, struct group_work *w, uint32_t *cap,
                          const struct tix_group *G, const struct member *seg, uint32_t first,
                          uint32_t n, struct tix_error *err)
{
	if (tix_grow32(&L->step_groups, cap, (size_t)L->nstep_groups + 1, sizeof(*L->step_groups), 256) != 0)
		return tix_error_oom(err, NULL);
	struct tix_group *S = &L->step_groups[L->nstep_groups++];
	memset(S, 0, sizeof(*S));
	S->name = G->name;
	S->kind = G->kind;
	S->members_first = first;
	S->members_count = n;
	S->group = G->group;
	S->step = seg[0].step;
	return group_stats(S, seg, n, &w->sc, err);
}

/* Job 3: each group's statistics over all its members and over those of
 * each step (L->groups, L->step_groups), and MEMBERS, the rows of each
 * group by step and time. */
static int fill_groups(struct linker *L, struct group_work *w, struct tix_error *err)
{
	uint32_t ng = w->keys.n, sg_cap = 0;
	const struct group_key *gk = (const struct group_key *)w->keys.recs;
	L->groups = calloc(ng + 1, sizeof(*L->groups));
	if (!L->groups)
		return tix_error_oom(err, NULL);
	if (linker_spill(L, &L->members, sizeof(uint32_t), w->sorted.n, err) ||
	    spill_resize(&L->members, w->sorted.n, err))
		return -1;
	L->ngroups = ng;
	L->nstep_groups = 0;
	for (uint32_t g = 0; g < ng; g++) {
		struct member *seg = &SPILL_AT(&w->sorted, struct member, w->first[g]);
		uint32_t n = w->first[g + 1] - w->first[g];
		uint32_t k = 1;
		while (k < n && cmp_member(&seg[k - 1], &seg[k]) <= 0)
			k++;
		/* one stream's members come in order already */
		if (k < n && linker_sort(L, seg, n, sizeof(*seg), cmp_member, err) != 0)
			return -1;
		struct tix_group *G = &L->groups[g];
		G->name = gk[w->order[g]].name;
		G->kind = (uint8_t)gk[w->order[g]].kind;
		G->members_first = w->first[g];
		G->members_count = n;
		G->group = g;
		G->step = TIX_NONE;
		if (group_stats(G, seg, n, &w->sc, err) != 0)
			return -1;
		L->total_gpu_ns = tix_sat_add(L->total_gpu_ns, G->total_ns);
		for (uint32_t i = 0; i < n; i++)
			SPILL_AT(&L->members, uint32_t, w->first[g] + i) = seg[i].row;
		/* The same members, cut by step. */
		for (uint32_t i = 0; i < n;) {
			uint32_t j = i;
			while (j < n && seg[j].step == seg[i].step)
				j++;
			if (seg[i].step != TIX_NONE &&
			    add_step_group(L, w, &sg_cap, G, seg + i, w->first[g] + i, j - i, err) != 0)
				return -1;
			i = j;
		}
	}
	if (L->nstep_groups)
		qsort(L->step_groups, L->nstep_groups, sizeof(*L->step_groups), cmp_step_group);
	return 0;
}

/* Job 4: each step's totals: its groups, kernels, GPU events and GPU time
 * (from its step groups), and its GPU busy time as the union of its GPU
 * work intervals (PDL and several streams overlap, so a sum would
 * overcount), with the unions of its communication kernels and of its
 * other GPU work, for ranks. */
static int step_totals(struct linker *L, struct group_work *w, struct tix_error *err)
{
	uint32_t nsg = L->nstep_groups;
	for (uint32_t i = 0; i < nsg;) {
		uint32_t s = L->step_groups[i].step, j = i;
		struct tix_step *st = &L->steps[s];
		st->groups_first = i;
		st->top_group = L->step_groups[i].group;
		for (; j < nsg && L->step_groups[j].step == s; j++) {
			const struct tix_group *S = &L->step_groups[j];
			if (S->kind == TIX_KIND_KERNEL)
				st->kernels += S->instances;
			st->gpu_events += S->instances;
			st->gpu_ns = tix_sat_add(st->gpu_ns, S->total_ns);
		}
		st->groups_count = j - i;
		i = j;
	}
	for (uint32_t s = 0; s < L->nsteps; s++)
		if (L->steps[s].groups_count == 0)
			L->steps[s].groups_first = 0;

	int rc = -1;
	struct run_cursor *heap = NULL;
	uint32_t most = 0; /* groups in a step, at most */
	for (uint32_t s = 0; s < L->nsteps; s++)
		most = L->steps[s].groups_count > most ? L->steps[s].groups_count : most;
	uint8_t *comm = calloc((size_t)L->ngroups + 1, 1);
	heap = comm ? malloc(((size_t)most + 1) * sizeof(*heap)) : NULL;
	if (!heap) {
		rc = tix_error_oom(err, NULL);
		goto out;
	}
	for (uint32_t g = 0; g < L->ngroups; g++)
		comm[g] = L->groups[g].kind == TIX_KIND_KERNEL &&
		          tix_name_is_comm(intern_str(&L->b->c.strings, L->groups[g].name));
	/* Each step's members come as one run a step group, each run in order
	 * of start (fill_groups sorted them): merged by a heap of the runs,
	 * they reach the unions in order of start, with no array of intervals
	 * and no sort (a sort of all of them merged ~2 runs a group and step,
	 * log2 of which grows with the trace). */
	for (uint32_t s = 0; s < L->nsteps; s++) {
		struct tix_step *st = &L->steps[s];
		uint32_t n = 0;
		for (uint32_t j = st->groups_first; j < st->groups_first + st->groups_count; j++) {
			const struct tix_group *S = &L->step_groups[j];
			if (!S->members_count)
				continue;
			heap[n].at = S->members_first;
			heap[n].end = (size_t)S->members_first + S->members_count;
			heap[n].start = SPILL_AT(&w->sorted, struct member, heap[n].at).start_ns;
			n++;
		}
		for (uint32_t i = n / 2; i-- > 0;)
			heap_down(heap, n, i);
		struct tix_union u[3];
		memset(u, 0, sizeof(u));
		while (n) {
			const struct member *m = &SPILL_AT(&w->sorted, struct member, heap[0].at);
			int c = m->group < L->ngroups && comm[m->group];
			tix_union_add(&u[BUSY_ALL], m->start_ns, m->start_ns + m->dur_ns);
			tix_union_add(&u[c ? BUSY_COMM : BUSY_COMPUTE], m->start_ns, m->start_ns + m->dur_ns);
			st->comm_kernels += (uint32_t)c;
			if (++heap[0].at < heap[0].end)
				heap[0].start = m[1].start_ns;
			else
				heap[0] = heap[--n];
			heap_down(heap, n, 0);
		}
		for (int k = 0; k < 3; k++) {
			if (!u[k].open)
				continue;
			int64_t busy = tix_union_total(&u[k]);
			if (k == BUSY_ALL)
				st->gpu_busy_ns = busy;
			else if (k == BUSY_COMM)
				st->comm_busy_ns = busy;
			else
				st->compute_busy_ns = busy;
		}
	}
	linker_release(L, &w->sorted); /* its pages serve the next phases */
	rc = 0;
out:
	free(comm);
	free(heap);
	return rc;
}

/* Kernel groups, their members and the step totals, in four jobs. */
int linker_aggregate_groups(struct linker *L, struct tix_error *err)
{
	struct group_work w;
	int rc = -1;
	if (group_work_init(L, &w, err) == 0 && collect_members(L, &w, err) == 0 &&
	    rank_groups(L, &w, err) == 0 && fill_groups(L, &w, err) == 0 && step_totals(L, &w, err) == 0)
		rc = 0;
	group_work_done(L, &w);
	return rc;
}
