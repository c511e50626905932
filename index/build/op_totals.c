/* CPU ops ranked by the GPU time launched beneath them (OPS, OP_GROUPS) and
 * each CPU row's count of GPU work beneath it (ROWS.gpu_beneath), on both
 * cores: the aggregate phase's second half (aggregate.c runs the first).
 *
 * A GPU event counts once for every distinct op name among the ancestors
 * of its launch call (rules.h, "ops"), and once in the gpu_beneath of every
 * ancestor.  The op totals walk each event's ancestors; the events are
 * shared between two threads by kernel group, each with its own totals and
 * (op, group) pairs, summed and appended in group order afterwards, which
 * is the order one thread would have found them in.  gpu_beneath needs no
 * walk (count_beneath, on the second thread before its share), so the
 * walks only read rows. */
#include "index/index.h"
#include "index/grow.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "index/build/phases.h"

struct op_acc {
	uint32_t name, calls, gpu_events, pad;
	int64_t cpu_ns, gpu_ns;
};

struct opg_key {
	uint32_t op, group;
};

struct pair_acc {
	int64_t gpu_ns;
	uint32_t count, pad;
};

static int cmp_op(const void *a, const void *b, void *ctx)
{
	const struct op_acc *base = ctx;
	const struct op_acc *x = &base[*(const uint32_t *)a];
	const struct op_acc *y = &base[*(const uint32_t *)b];
	if (x->gpu_ns != y->gpu_ns)
		return x->gpu_ns > y->gpu_ns ? -1 : 1;
	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns > y->cpu_ns ? -1 : 1;
	return x->name < y->name ? -1 : (x->name > y->name);
}

/* ---- the ops and their CPU time ---- */

struct op_list {
	uint32_t *op_of_name; /* string id -> op, TIX_NONE */
	struct op_acc *acc;
	uint32_t n, cap;
	/* per row, by the same pass: its nearest ancestor-or-self that is an op
	 * or has its ancestors listed (TIX_NONE: none; STOP_WALK: a link to a
	 * later row, which parents never makes: walk from the row itself).  The
	 * rows between are neither: the names memo passes them (names_of_row). */
	uint32_t *stop;
	int rc;
};

#define STOP_WALK 0xFFFFFFFEu

static int list_ops(struct linker *L, struct op_list *ol)
{
	uint32_t nstr = L->b->c.strings.n;
	ol->op_of_name = malloc((nstr + 1) * sizeof(*ol->op_of_name));
	if (!ol->op_of_name)
		return -1;
	memset(ol->op_of_name, 0xff, (nstr + 1) * sizeof(*ol->op_of_name));
	uint32_t *stop = ol->stop;
	for (uint32_t i = 0; i < L->nrows; i++) {
		const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
		int op = tix_rule_is_op(r->kind, r->flags);
		stop[i] = op || (r->flags & TIX_ROW_CHAIN) ? i
		          : r->link == TIX_NONE          ? TIX_NONE
		          : r->link < i                  ? stop[r->link]
		                                         : STOP_WALK;
		if (!op)
			continue;
		uint32_t o = ol->op_of_name[r->name];
		if (o == TIX_NONE) {
			if (tix_grow32(&ol->acc, &ol->cap, (size_t)ol->n + 1, sizeof(*ol->acc), 256) != 0)
				return -1;
			o = ol->op_of_name[r->name] = ol->n++;
			memset(&ol->acc[o], 0, sizeof(ol->acc[o]));
			ol->acc[o].name = r->name;
		}
		ol->acc[o].calls++;
		ol->acc[o].cpu_ns = tix_sat_add(ol->acc[o].cpu_ns, row_dur(L, i));
	}
	return 0;
}

static void *run_list_ops(void *arg)
{
	void **a = arg;
	struct op_list *ol = a[1];
	ol->rc = list_ops(a[0], ol);
	return NULL;
}

/* ---- gpu_beneath ----
 * Each row hands what is beneath it, plus the GPU events its launches
 * started, to its ancestors: to its link, which hands it on, or, when the
 * chain table lists its ancestors, to each of them directly (and no
 * further).  Links and chains point to earlier rows, so one pass from the
 * last row adds it all up.  pass[i]: what row i hands on; below[i]: its
 * gpu_beneath. */
struct beneath {
	struct linker_buf bp, bb; /* under pass and below */
	uint32_t *pass, *below;
};

/* Its buffers, taken on the thread that owns the spill pool. */
static int beneath_prepare(struct linker *L, struct beneath *bn, struct tix_error *err)
{
	memset(bn, 0, sizeof(*bn));
	bn->pass = linker_buf(L, &bn->bp, L->nrows, sizeof(uint32_t), err);
	bn->below = bn->pass ? linker_buf(L, &bn->bb, L->nrows, sizeof(uint32_t), err) : NULL;
	return bn->below ? 0 : -1;
}

static void count_beneath(struct linker *L, struct beneath *bn)
{
	uint32_t *pass = bn->pass, *below = bn->below;
	memset(pass, 0, (size_t)L->nrows * sizeof(*pass));
	memset(below, 0, (size_t)L->nrows * sizeof(*below));
	for (uint32_t sp = 0, i = linker_gpu_row(L, &sp, 0); i != TIX_NONE; i = linker_gpu_row(L, &sp, i + 1)) {
		const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
		if (tix_kind_is_gpu_work(r->kind) && r->link != TIX_NONE)
			pass[r->link]++;
	}
	const struct tix_chain_disk *chains = (const struct tix_chain_disk *)L->chains.base;
	const uint32_t *chain_rows = (const uint32_t *)L->chain_rows.base;
	size_t c = L->chains.n;
	for (uint32_t i = L->nrows; i-- > 0;) {
		struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, i);
		if (tix_kind_is_gpu(r->kind))
			continue;
		r->gpu_beneath = below[i] < UINT16_MAX ? (uint16_t)below[i] : UINT16_MAX;
		if (!pass[i])
			continue;
		while (c > 0 && chains[c - 1].row > i)
			c--;
		if ((r->flags & TIX_ROW_CHAIN) && c > 0 && chains[c - 1].row == i) {
			const uint32_t *a = chain_rows + chains[c - 1].first;
			for (uint32_t k = 0; k < chains[c - 1].count; k++)
				below[a[k]] += pass[i];
		} else if (r->link != TIX_NONE) {
			pass[r->link] += pass[i];
			below[r->link] += pass[i];
		}
	}
}

static void beneath_done(struct linker *L, struct beneath *bn)
{
	linker_buf_done(L, &bn->bp);
	linker_buf_done(L, &bn->bb);
}

/* ---- the op names a launch counts for, remembered ----
 * rules.h says which: the distinct op names among the launch call's
 * ancestors, innermost first (tix_rule_ancestors, then tix_rule_op_names).
 * Walking every ancestor of every launch read ~15 rows an event on the
 * story trace (python frames, modules, the step), 6% of a one-thread
 * build.  Those lists are kept here instead, as linked nodes (a name, then
 * the rest of the list), each node once (a dedup), and the list of names
 * of a row and its ancestors, M(row), remembered for the rows seen last in
 * a direct-mapped cache: the frames above a launch are shared by many
 * events, so a walk mostly stops at the launch's op.  With N(row) the names
 * of row's ancestors alone:
 *   N(row) = the names of row's chain list, when the chain table has one
 *            (rules.h, tix_rule_listed), else M(row's link), else none;
 *   M(row) = N(row), or, for an op, its name first and N(row) without it.
 * A row that is neither an op nor listed has M(row) = M(its link), so the
 * walk up goes from one that is to the next (list_ops's stops), never
 * reading the rows between.
 * That is tix_rule_op_names' list, name for name, in its order, built from
 * the same rules.h pieces (tix_rule_listed, tix_rule_is_op): the index is
 * the same (scripts/same_index.sh), and tests/ref's recount of the op
 * totals, which shares no code with either, checks both. */
#define NAMES_CACHE (1u << 16)

struct name_node {
	uint32_t name, rest; /* rest: the next node, TIX_NONE at the end */
};

struct names_memo {
	const struct tix_rows *v;
	const uint32_t *stop;    /* struct op_list's */
	struct dedup nodes;      /* struct name_node */
	uint32_t *key, *val;     /* NAMES_CACHE rows (TIX_NONE: empty) and their M */
	uint32_t *stack, *scratch;
	uint32_t stack_cap, scratch_cap;
	int oom;
};

static int names_memo_init(struct names_memo *m, const struct tix_rows *v, const uint32_t *stop)
{
	memset(m, 0, sizeof(*m));
	m->v = v;
	m->stop = stop;
	m->key = malloc(NAMES_CACHE * sizeof(*m->key));
	m->val = malloc(NAMES_CACHE * sizeof(*m->val));
	if (dedup_init(&m->nodes, sizeof(struct name_node)) != 0 || !m->key || !m->val)
		return -1;
	memset(m->key, 0xff, NAMES_CACHE * sizeof(*m->key));
	return 0;
}

static void names_memo_done(struct names_memo *m)
{
	dedup_done(&m->nodes);
	free(m->key);
	free(m->val);
	free(m->stack);
	free(m->scratch);
}

static const struct name_node *node_at(const struct names_memo *m, uint32_t id)
{
	return (const struct name_node *)(m->nodes.recs + (size_t)id * sizeof(struct name_node));
}

static uint32_t node_add(struct names_memo *m, uint32_t name, uint32_t rest)
{
	struct name_node k = {name, rest};
	uint32_t id = dedup_add(&m->nodes, &k);
	if (id == TIX_NONE)
		m->oom = 1;
	return id;
}

/* The list name, then rest without name. */
static uint32_t names_push(struct names_memo *m, uint32_t name, uint32_t rest)
{
	uint32_t n = 0, at = rest;
	for (; at != TIX_NONE && node_at(m, at)->name != name; at = node_at(m, at)->rest)
		n++;
	if (at == TIX_NONE) /* not in rest: most often */
		return node_add(m, name, rest);
	/* rest's names before it, then the ones after it */
	uint32_t tail = node_at(m, at)->rest;
	if (n && tix_grow32(&m->scratch, &m->scratch_cap, n, sizeof(*m->scratch), 64) != 0) {
		m->oom = 1;
		return TIX_NONE;
	}
	uint32_t k = 0;
	for (at = rest; k < n; at = node_at(m, at)->rest)
		m->scratch[k++] = node_at(m, at)->name;
	while (k > 0 && !m->oom)
		tail = node_add(m, m->scratch[--k], tail);
	return m->oom ? TIX_NONE : node_add(m, name, tail);
}

/* The op names of an explicit list of ancestors, innermost first. */
static uint32_t names_of_list(struct names_memo *m, const uint32_t *anc, uint32_t count)
{
	uint32_t list = TIX_NONE;
	for (uint32_t i = count; i-- > 0 && !m->oom;) {
		const struct tix_row_disk *r = &m->v->rows[anc[i]];
		if (tix_rule_is_op(r->kind, r->flags))
			list = names_push(m, r->name, list);
	}
	return list;
}

/* The nearest row at or above row whose M may differ from its link's:
 * an op, or one whose ancestors are listed (TIX_NONE: M(row) is none).
 * The rows between have M(row) = N(row) = M(link): passing them reads
 * none of their rows (python frames, modules: each a cache miss, 4% of a
 * one-thread index on the story trace). */
static uint32_t names_stop(const struct names_memo *m, uint32_t row)
{
	uint32_t s = m->stop[row];
	return s == STOP_WALK ? row : s;
}

/* M(row): the op names of row and its ancestors (TIX_NONE: none). */
static uint32_t names_of_row(struct names_memo *m, uint32_t row)
{
	const struct tix_rows *v = m->v;
	const uint32_t *list;
	uint32_t count, k = 0, cur = TIX_NONE;
	/* Up to a row whose M is remembered, or to one whose N is known (a
	 * chain list, or no link): the rows passed, whose M is wanted, wait on
	 * the stack.  Either way cur is then N of the top of the stack. */
	for (uint32_t p = names_stop(m, row); p != TIX_NONE;) {
		uint32_t h = p & (NAMES_CACHE - 1);
		if (m->key[h] == p) {
			cur = m->val[h];
			break;
		}
		if (tix_grow32(&m->stack, &m->stack_cap, (size_t)k + 1, sizeof(*m->stack), 64) != 0) {
			m->oom = 1;
			return TIX_NONE;
		}
		m->stack[k++] = p;
		if (tix_rule_listed(v, p, &list, &count)) {
			cur = names_of_list(m, list, count);
			break;
		}
		if (v->rows[p].link == TIX_NONE)
			break;
		p = names_stop(m, v->rows[p].link);
	}
	/* down again: each row's M is N of the row below it */
	while (k > 0 && !m->oom) {
		uint32_t x = m->stack[--k];
		const struct tix_row_disk *r = &v->rows[x];
		if (tix_rule_is_op(r->kind, r->flags))
			cur = names_push(m, r->name, cur);
		m->key[x & (NAMES_CACHE - 1)] = x;
		m->val[x & (NAMES_CACHE - 1)] = cur;
	}
	return m->oom ? TIX_NONE : cur;
}

/* N(row): the op names of row's ancestors (TIX_NONE: none). */
static uint32_t names_above(struct names_memo *m, uint32_t row)
{
	const uint32_t *list;
	uint32_t count;
	if (tix_rule_listed(m->v, row, &list, &count))
		return names_of_list(m, list, count);
	uint32_t up = m->v->rows[row].link;
	return up == TIX_NONE ? TIX_NONE : names_of_row(m, up);
}

/* ---- the GPU time beneath each op ---- */

/* One thread's share: the events of groups [g0, g1). */
struct op_walk {
	struct linker *L;
	struct beneath *beneath; /* counted first, when given */
	const struct op_list *ol;
	uint32_t g0, g1;
	int64_t *gpu_ns;     /* by op */
	uint32_t *gpu_events;
	struct dedup pairs;  /* struct opg_key, in the order found */
	struct pair_acc *pacc;
	uint32_t pcap;
	int rc;
};

#define WALK_AHEAD 8 /* events */

/* The launch row of the m-th member (TIX_NONE: none). */
static uint32_t launch_of(const struct linker *L, uint32_t m)
{
	return SPILL_AT(&L->rows, struct tix_row_disk, SPILL_AT(&L->members, uint32_t, m)).link;
}

static int walk_groups(struct op_walk *w)
{
	struct linker *L = w->L;
	const uint32_t *op_of_name = w->ol->op_of_name;
	uint32_t nacc = w->ol->n;
	/* Members come group by group: an op's last (group, pair) saves the
	 * pair lookup for all but the first of a group's events. */
	uint32_t *last_group = malloc((nacc + 1) * sizeof(*last_group));
	uint32_t *last_pair = malloc((nacc + 1) * sizeof(*last_pair));
	w->gpu_ns = calloc(nacc + 1, sizeof(*w->gpu_ns));
	w->gpu_events = calloc(nacc + 1, sizeof(*w->gpu_events));
	struct tix_rows rv;
	linker_rows_view(L, &rv);
	struct names_memo memo;
	int rc = -1;
	if (names_memo_init(&memo, &rv, w->ol->stop) != 0 || !last_group || !last_pair || !w->gpu_ns || !w->gpu_events)
		goto out;
	memset(last_group, 0xff, (nacc + 1) * sizeof(*last_group));
	for (uint32_t g = w->g0; g < w->g1; g++) {
		const struct tix_group *G = &L->groups[g];
		for (uint32_t k = 0; k < G->members_count; k++) {
			uint32_t row = SPILL_AT(&L->members, uint32_t, G->members_first + k);
			const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, row);
			/* The launch rows of a group's events lie far apart, and so
			 * do the rows of their ops: most of this walk's time was
			 * the wait for the two.  So the launch row of the event
			 * 2 * WALK_AHEAD on is asked for now, and the op row of the
			 * event WALK_AHEAD on, whose launch row has come by then. */
			if (k + 2 * WALK_AHEAD < G->members_count) {
				uint32_t launch = launch_of(L, G->members_first + k + 2 * WALK_AHEAD);
				if (launch != TIX_NONE)
					__builtin_prefetch(&SPILL_AT(&L->rows, struct tix_row_disk, launch));
			}
			if (k + WALK_AHEAD < G->members_count) {
				uint32_t launch = launch_of(L, G->members_first + k + WALK_AHEAD);
				uint32_t op = launch != TIX_NONE ? SPILL_AT(&L->rows, struct tix_row_disk, launch).link : TIX_NONE;
				if (op != TIX_NONE)
					__builtin_prefetch(&SPILL_AT(&L->rows, struct tix_row_disk, op));
			}
			if (r->link == TIX_NONE)
				continue;
			int64_t dur = row_dur(L, row);
			/* the op names the event counts for */
			uint32_t node = names_above(&memo, r->link);
			if (memo.oom)
				goto out;
			for (; node != TIX_NONE; node = node_at(&memo, node)->rest) {
				uint32_t o = op_of_name[node_at(&memo, node)->name];
				if (o == TIX_NONE) /* list_ops met every op row: cannot be */
					continue;
				w->gpu_ns[o] = tix_sat_add(w->gpu_ns[o], dur);
				w->gpu_events[o]++;
				uint32_t pi;
				if (last_group[o] == g) {
					pi = last_pair[o];
				} else {
					struct opg_key key = {o, g};
					if ((pi = dedup_add(&w->pairs, &key)) == TIX_NONE)
						goto out;
					last_group[o] = g;
					last_pair[o] = pi;
				}
				if (tix_grow32_zeroed(&w->pacc, &w->pcap, pi, sizeof(*w->pacc), 256) != 0)
					goto out;
				w->pacc[pi].gpu_ns = tix_sat_add(w->pacc[pi].gpu_ns, dur);
				w->pacc[pi].count++;
			}
		}
	}
	rc = 0;
out:
	names_memo_done(&memo);
	free(last_group);
	free(last_pair);
	return rc;
}

static void *run_walk(void *arg)
{
	struct op_walk *w = arg;
	if (w->beneath)
		count_beneath(w->L, w->beneath);
	w->rc = walk_groups(w);
	return NULL;
}

static void walk_done(struct op_walk *w)
{
	free(w->gpu_ns);
	free(w->gpu_events);
	free(w->pacc);
	dedup_done(&w->pairs);
}

/* The first group of the second thread's share, which also counts
 * gpu_beneath: that pass costs about what the walks of nrows / 32 events
 * do (the story trace: 28 ms against 32 ms for 31k of its 69k events). */
static uint32_t split_group(const struct linker *L)
{
	uint64_t total = 0, acc = 0;
	for (uint32_t g = 0; g < L->ngroups; g++)
		total += L->groups[g].members_count;
	uint64_t first = (total + L->nrows / 32) / 2;
	for (uint32_t g = 0; g < L->ngroups; g++) {
		if (acc >= first)
			return g;
		acc += L->groups[g].members_count;
	}
	return L->ngroups;
}

/* The ops from the totals: ranked, each with its groups by GPU time. */
static int rank_ops(struct linker *L, struct op_acc *acc, uint32_t nacc, const struct opg_key *pk,
                    const struct pair_acc *pacc, uint32_t np)
{
	uint32_t *order = malloc((nacc + 1) * sizeof(*order));
	uint32_t *rank = malloc((nacc + 1) * sizeof(*rank));
	L->ops = calloc(nacc + 1, sizeof(*L->ops));
	L->op_groups = calloc(np + 1, sizeof(*L->op_groups));
	if (!order || !rank || !L->ops || !L->op_groups) {
		free(order);
		free(rank);
		return -1;
	}
	for (uint32_t i = 0; i < nacc; i++)
		order[i] = i;
	qsort_r(order, nacc, sizeof(*order), cmp_op, acc);
	for (uint32_t i = 0; i < nacc; i++)
		rank[order[i]] = i;
	/* Op groups, bucketed by op rank and sorted by GPU time within. */
	for (uint32_t i = 0; i < np; i++)
		L->ops[rank[pk[i].op]].groups_count++;
	uint32_t pos = 0;
	for (uint32_t i = 0; i < nacc; i++) {
		const struct op_acc *a = &acc[order[i]];
		struct tix_op *o = &L->ops[i];
		o->name = a->name;
		o->calls = a->calls;
		o->cpu_ns = a->cpu_ns;
		o->gpu_ns = a->gpu_ns;
		o->gpu_events = a->gpu_events;
		o->groups_first = pos;
		pos += o->groups_count;
		o->groups_count = 0;
	}
	for (uint32_t i = 0; i < np; i++) {
		struct tix_op *o = &L->ops[rank[pk[i].op]];
		struct tix_op_group *og = &L->op_groups[o->groups_first + o->groups_count++];
		og->group = pk[i].group;
		og->count = pacc[i].count;
		og->gpu_ns = pacc[i].gpu_ns;
	}
	for (uint32_t i = 0; i < nacc; i++) {
		struct tix_op_group *og = &L->op_groups[L->ops[i].groups_first];
		uint32_t n = L->ops[i].groups_count;
		for (uint32_t x = 1; x < n; x++) { /* few groups per op: insertion sort */
			struct tix_op_group v = og[x];
			uint32_t y = x;
			while (y > 0 && og[y - 1].gpu_ns < v.gpu_ns) {
				og[y] = og[y - 1];
				y--;
			}
			og[y] = v;
		}
	}
	L->nops = nacc;
	L->nop_groups = np;
	free(order);
	free(rank);
	return 0;
}

int linker_aggregate(struct linker *L, struct tix_error *err)
{
	int two = linker_two_threads(L);
	/* The ops and their CPU time beside the kernel groups. */
	struct op_list ol = {0};
	struct linker_buf stop_buf = {0};
	if (!(ol.stop = linker_buf(L, &stop_buf, L->nrows, sizeof(uint32_t), err)))
		return -1;
	void *la[2] = {L, &ol};
	pthread_t th;
	int threaded = two && pthread_create(&th, NULL, run_list_ops, la) == 0;
	int rc = linker_aggregate_groups(L, err);
	if (threaded)
		pthread_join(th, NULL);
	else if (rc == 0)
		ol.rc = list_ops(L, &ol);
	if (rc != 0 || ol.rc != 0) {
		free(ol.op_of_name);
		free(ol.acc);
		linker_buf_done(L, &stop_buf);
		return rc != 0 ? rc : tix_error_oom(err, NULL);
	}

	/* The GPU time beneath them, the groups' events in two shares; the
	 * second thread also counts gpu_beneath. */
	struct beneath bn;
	struct op_walk w[2] = {{.L = L, .ol = &ol}, {.L = L, .ol = &ol, .beneath = &bn}};
	int nw = two ? 2 : 1;
	w[0].g1 = w[1].g0 = nw == 2 ? split_group(L) : L->ngroups;
	w[1].g1 = L->ngroups;
	rc = beneath_prepare(L, &bn, err);
	for (int k = 0; k < nw; k++)
		if (dedup_init(&w[k].pairs, sizeof(struct opg_key)) != 0 && rc == 0)
			rc = tix_error_oom(err, NULL);
	threaded = rc == 0 && nw == 2 && pthread_create(&th, NULL, run_walk, &w[1]) == 0;
	if (rc == 0 && !threaded)
		count_beneath(L, &bn);
	if (rc == 0) {
		w[0].rc = walk_groups(&w[0]);
		if (nw == 2 && !threaded)
			w[1].rc = walk_groups(&w[1]);
	}
	if (threaded)
		pthread_join(th, NULL);
	beneath_done(L, &bn);

	/* The shares summed, their pairs in group order. */
	struct opg_key *pk = NULL;
	struct pair_acc *pacc = NULL;
	uint32_t np = 0;
	if (rc == 0 && (w[0].rc || (nw == 2 && w[1].rc)))
		rc = tix_error_oom(err, NULL);
	if (rc == 0) {
		uint32_t n = w[0].pairs.n + (nw == 2 ? w[1].pairs.n : 0);
		pk = malloc((n + 1) * sizeof(*pk));
		pacc = malloc((n + 1) * sizeof(*pacc));
		if (!pk || !pacc)
			rc = tix_error_oom(err, NULL);
		for (int k = 0; rc == 0 && k < nw; k++) {
			if (w[k].pairs.n) {
				memcpy(pk + np, w[k].pairs.recs, w[k].pairs.n * sizeof(*pk));
				memcpy(pacc + np, w[k].pacc, w[k].pairs.n * sizeof(*pacc));
			}
			np += w[k].pairs.n;
			for (uint32_t o = 0; o < ol.n; o++) {
				ol.acc[o].gpu_ns = tix_sat_add(ol.acc[o].gpu_ns, w[k].gpu_ns[o]);
				ol.acc[o].gpu_events += w[k].gpu_events[o];
			}
		}
	}
	if (rc == 0 && rank_ops(L, ol.acc, ol.n, pk, pacc, np) != 0)
		rc = tix_error_oom(err, NULL);
	for (int k = 0; k < nw; k++)
		walk_done(&w[k]);
	free(pk);
	free(pacc);
	free(ol.op_of_name);
	free(ol.acc);
	linker_buf_done(L, &stop_buf);
	return rc;
}
