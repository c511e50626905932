/* The op-shapes phase (docs/FINDINGS.md, sections 3 and 4): the op model
 * summed over each op's instances (OP_MODELS, one per op), and the
 * op-shape groups, overall and per step, with their kernel groups
 * (OP_SHAPES, STEP_OP_SHAPES, OP_SHAPE_GROUPS).
 *
 * A CPU op instance is *modelled* when its name has a class in the op
 * model (index/perf_model.c) and it has Input Dims; its model is computed
 * once per distinct (name, op info).  Each GPU work event is attributed to
 * the innermost modelled instance above its launch call (its leaf), and its
 * duration is added to every modelled instance above it (their GPU time,
 * which the op model divides by).  The walk up goes from one modelled
 * instance to the next through a memo of each row's nearest modelled
 * ancestor-or-self, so an event costs the modelled ops above it, not the
 * depth of its stack. */
#include "index/index.h"
#include "index/grow.h"

#include <stdlib.h>
#include <string.h>

#include "index/build/phases.h"

#define UNKNOWN 0xFEFEFEFEu /* the memo's "not computed yet" (memset to 0xfe) */

/* An op-shape group is of an op name, its Input Dims, Input type and
 * Concrete Inputs (string ids): op infos that differ only in their
 * strides are one group. */
struct shape_key {
	uint32_t name, dims, types, concrete;
};

/* One distinct (name, op info) of a modelled op. */
struct shape_acc {
	struct tix_op_cost cost;
	int valid;                 /* its class's figures are all known */
	uint32_t calls, calls_in_steps, gpu_events, example_row;
	uint32_t op_info;          /* the first instance's (its strides stand for all) */
	int64_t gpu_ns;
};

/* A modelled op instance the walk met. */
struct inst {
	uint32_t row, shape;
	int64_t ns;                /* GPU time beneath it */
	uint8_t leaf;              /* counted as a leaf already */
	uint8_t pad[7];
};

struct pair_key {              /* (shape, kernel group) and (shape, step) */
	uint32_t shape, other;
};

struct pair_acc {
	int64_t gpu_ns;
	uint32_t count, calls;
};

struct state {
	struct linker *L;
	struct tix_rows v;
	uint8_t *name_class;       /* string id -> 1 + enum tix_op_class, 0 unknown */
	struct dedup shapes;       /* struct shape_key */
	struct shape_acc *acc;
	uint32_t acc_cap;
	struct dedup groups, steps; /* struct pair_key: (shape, group), (shape, step) */
	struct pair_acc *gacc, *sacc;
	uint32_t gcap, scap;
	/* per row, written when the walk first meets the row (UNKNOWN until
	 * then), so that rows no GPU work is beneath cost nothing: the
	 * modelled instance (insts) that is its nearest modelled
	 * ancestor-or-self, TIX_NONE when it has none */
	uint32_t *nma;
	/* per row: its nearest ancestor-or-self that may be modelled (a
	 * candidate: shape_row's tests but the cost's), TIX_NONE when it has
	 * none, CAND_WALK when the pass in row order could not tell (a link to
	 * a later row) and the walk must look; see nearest_modelled */
	uint32_t *cand;
	struct inst *insts;        /* the modelled instances met, in the order met */
	uint32_t ninsts, insts_cap;
	/* per detail: the shape of rows of that detail and name (most details
	 * belong to one op name), so a row costs no hashing */
	uint32_t *detail_name, *detail_shape;
	/* the texts of Input Dims, type, Concrete Inputs by their JSON value:
	 * the same value written with other white space is one text */
	struct intern canon;       /* canonical texts (not written) */
	uint32_t *canon_of;        /* string id -> canon id + 1, 0 unknown */
	struct linker_buf b_nma, b_cand;
};

#define CAND_WALK 0xFFFFFFFEu

static enum tix_op_class class_of_name(struct state *st, uint32_t name)
{
	uint8_t *c = &st->name_class[name];
	if (!*c)
		*c = (uint8_t)(1 + tix_op_class_of(intern_str(&st->L->b->c.strings, name)));
	return (enum tix_op_class)(*c - 1);
}

/* The canonical id of string `id` (TIX_NONE stays): its JSON text without
 * white space outside strings.  TIX_NONE - 1 on out of memory. */
static uint32_t canon_id(struct state *st, uint32_t id)
{
	if (id == TIX_NONE)
		return TIX_NONE;
	if (st->canon_of[id])
		return st->canon_of[id] - 1;
	const char *t = intern_str(&st->L->b->c.strings, id);
	size_t n = intern_len(&st->L->b->c.strings, id), k = 0;
	char small[512] = "", *buf = n < sizeof small ? small : malloc(n + 1);
	if (!buf)
		return TIX_NONE - 1;
	int in_str = 0;
	for (size_t i = 0; i < n; i++) {
		char c = t[i];
		if (in_str) {
			buf[k++] = c;
			if (c == '\\' && i + 1 < n)
				buf[k++] = t[++i];
			else if (c == '"')
				in_str = 0;
		} else if (c != ' ' && c != '\n' && c != '\t' && c != '\r') {
			buf[k++] = c;
			in_str = c == '"';
		}
	}
	uint32_t c = intern_add(&st->canon, buf, k);
	if (buf != small)
		free(buf);
	if (c == TIX_NONE)
		return TIX_NONE - 1;
	st->canon_of[id] = c + 1;
	return c;
}

/* Whether row passes shape_row's tests but the cost's: a CPU op (not a
 * step marker) of a named class, with Input Dims.  shape_row gives every
 * other row TIX_NONE, and is a function of the row's name and detail. */
static int candidate(struct state *st, uint32_t row)
{
	struct linker *L = st->L;
	const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, row);
	if (r->kind != TIX_KIND_CPU_OP || r->detail == TIX_NONE || (r->flags & TIX_ROW_STEP_MARKER))
		return 0;
	const struct tix_detail_disk *d = &((const struct tix_detail_disk *)L->b->c.details.recs)[r->detail];
	if (d->op_info == TIX_NONE || class_of_name(st, r->name) == TIX_OPC_NONE)
		return 0;
	return ((const struct tix_op_info *)L->b->c.opinfos.recs)[d->op_info].dims != TIX_NONE;
}

/* The shape of a CPU op row, TIX_NONE when not modelled; -1 on OOM. */
static int shape_row(struct state *st, uint32_t row, uint32_t *out)
{
	struct linker *L = st->L;
	const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, row);
	*out = TIX_NONE;
	if (r->kind != TIX_KIND_CPU_OP || r->detail == TIX_NONE || (r->flags & TIX_ROW_STEP_MARKER))
		return 0;
	if (st->detail_name[r->detail] == r->name) {
		*out = st->detail_shape[r->detail];
		return 0;
	}
	const struct tix_detail_disk *d = &((const struct tix_detail_disk *)L->b->c.details.recs)[r->detail];
	if (d->op_info == TIX_NONE || class_of_name(st, r->name) == TIX_OPC_NONE)
		goto memo;
	const struct tix_op_info *oi = &((const struct tix_op_info *)L->b->c.opinfos.recs)[d->op_info];
	if (oi->dims == TIX_NONE)
		goto memo;
	struct shape_key k = {r->name, canon_id(st, oi->dims), canon_id(st, oi->types),
	                      canon_id(st, oi->concrete)};
	if (k.dims == TIX_NONE - 1 || k.types == TIX_NONE - 1 || k.concrete == TIX_NONE - 1)
		return -1;
	uint32_t before = st->shapes.n, id = dedup_add(&st->shapes, &k);
	if (id == TIX_NONE || tix_grow32_zeroed(&st->acc, &st->acc_cap, id, sizeof(*st->acc), 256))
		return -1;
	if (st->shapes.n > before) {
		const struct intern *s = &L->b->c.strings;
		struct shape_acc *a = &st->acc[id];
		int rc = tix_op_cost(intern_str(s, r->name), intern_str(s, oi->dims),
		                     oi->types != TIX_NONE ? intern_str(s, oi->types) : NULL,
		                     oi->concrete != TIX_NONE ? intern_str(s, oi->concrete) : NULL, &a->cost);
		/* modelled: the formula fits its inputs and gives a figure */
		a->valid = rc == 0 && (a->cost.flops >= 0 || a->cost.bytes >= 0);
		a->example_row = TIX_NONE;
		a->op_info = d->op_info;
	}
	if (!st->acc[id].valid)
		id = TIX_NONE; /* its GPU work goes to the modelled op above it, if any */
	*out = id;
memo:
	st->detail_name[r->detail] = r->name;
	st->detail_shape[r->detail] = *out;
	return 0;
}

/* The parent of row as the rules walk it: its link, or for a row whose
 * ancestors are listed, the first of the list. */
static uint32_t parent_of(const struct state *st, uint32_t row)
{
	const uint32_t *list;
	uint32_t count;
	if ((st->v.rows[row].flags & TIX_ROW_CHAIN) && tix_rule_listed(&st->v, row, &list, &count))
		return count ? list[0] : TIX_NONE;
	return st->v.rows[row].link;
}

/* Row r met for the first time: its instance when it is modelled (*id),
 * else TIX_NONE.  0, or -1 when out of memory. */
static int visit(struct state *st, uint32_t r, uint32_t *id)
{
	uint32_t shape;
	*id = TIX_NONE;
	if (shape_row(st, r, &shape) != 0)
		return -1;
	if (shape == TIX_NONE)
		return 0;
	if (tix_grow32_zeroed(&st->insts, &st->insts_cap, st->ninsts, sizeof(*st->insts), 256))
		return -1;
	st->insts[st->ninsts] = (struct inst){.row = r, .shape = shape};
	*id = st->ninsts++;
	return 0;
}

/* The candidates of every row, in one pass in row order: a row's parent
 * comes before it (parents and chains point to earlier rows), so its
 * nearest candidate is known when the row is reached. */
static void find_candidates(struct state *st)
{
	for (uint32_t i = 0; i < st->v.nrows; i++) {
		uint32_t p;
		if (candidate(st, i))
			st->cand[i] = i;
		else if ((p = parent_of(st, i)) == TIX_NONE)
			st->cand[i] = TIX_NONE;
		else
			st->cand[i] = p < i ? st->cand[p] : CAND_WALK;
	}
}

/* The nearest candidate at or above row (TIX_NONE: none). */
static uint32_t candidate_at_or_above(struct state *st, uint32_t r)
{
	while (r != TIX_NONE && st->cand[r] == CAND_WALK) {
		if (candidate(st, r))
			return r;
		r = parent_of(st, r);
	}
	return r == TIX_NONE ? TIX_NONE : st->cand[r];
}

/* The nearest modelled ancestor-or-self of row, as an instance, through
 * the memo: candidates met for the first time are visited on the way up.
 * The walk goes from candidate to candidate (find_candidates): the rows
 * between them are never modelled, so skipping them visits the same
 * candidates in the same order as a walk through every row did (and the
 * instances, their shapes and their sums are the same), without reading
 * the python frames and other rows between (each a cache miss: 17 ms of
 * the story trace's op-shapes).  *oom set when out of memory. */
static uint32_t nearest_modelled(struct state *st, uint32_t row, int *oom)
{
	uint32_t path[64], n = 0, r = candidate_at_or_above(st, row), found = TIX_NONE;
	while (r != TIX_NONE) {
		if (st->nma[r] != UNKNOWN) {
			found = st->nma[r];
			break;
		}
		uint32_t id;
		if (visit(st, r, &id) != 0) {
			*oom = 1;
			return TIX_NONE;
		}
		if (id != TIX_NONE) {
			found = st->nma[r] = id;
			break;
		}
		if (n == 64) { /* a deep stack: the rest in a call of its own */
			found = nearest_modelled(st, r, oom);
			break;
		}
		path[n++] = r;
		r = parent_of(st, r);
		r = r == TIX_NONE ? TIX_NONE : candidate_at_or_above(st, r);
	}
	for (uint32_t i = 0; i < n; i++)
		st->nma[path[i]] = found;
	return found;
}

/* Cached pair ids: consecutive events of one kernel group and step are
 * mostly of one shape. */
struct pair_cache {
	uint32_t shape, other, id;
};

static int pair_add(struct dedup *d, struct pair_acc **acc, uint32_t *cap, struct pair_cache *c,
                    uint32_t shape, uint32_t other, int64_t dur, uint32_t calls)
{
	uint32_t id = c->id;
	if (c->shape != shape || c->other != other || id == TIX_NONE) {
		struct pair_key k = {shape, other};
		id = dedup_add(d, &k);
		if (id == TIX_NONE || tix_grow32_zeroed(acc, cap, id, sizeof(**acc), 256))
			return -1;
		*c = (struct pair_cache){shape, other, id};
	}
	(*acc)[id].gpu_ns = tix_sat_add((*acc)[id].gpu_ns, dur);
	(*acc)[id].count++;
	(*acc)[id].calls += calls;
	return 0;
}

/* The GPU work events rows[0..n) of kernel group g, launched in step
 * (TIX_NONE: in none): each one's leaf, and its time on every modelled
 * instance above it. */
static int attribute_run(struct state *st, uint32_t g, uint32_t step, const uint32_t *rows, uint32_t n)
{
	struct linker *L = st->L;
	struct pair_cache gc = {0, 0, TIX_NONE}, sc = {0, 0, TIX_NONE};
	int oom = 0;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t row = rows[k];
		const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, row);
		if (r->link == TIX_NONE)
			continue;
		uint32_t leaf = nearest_modelled(st, parent_of(st, r->link), &oom);
		if (leaf == TIX_NONE) {
			if (oom)
				return -1;
			continue;
		}
		int64_t dur = row_dur(L, row);
		struct inst *in = &st->insts[leaf];
		uint32_t shape = in->shape;
		struct shape_acc *a = &st->acc[shape];
		a->gpu_events++;
		a->gpu_ns = tix_sat_add(a->gpu_ns, dur);
		uint32_t new_call = !in->leaf;
		if (new_call) {
			in->leaf = 1;
			a->calls++;
			uint32_t call_step = tix_rule_step_of(&st->v, in->row);
			a->calls_in_steps += call_step != TIX_NONE && call_step != L->before_trace_step;
			if (a->example_row == TIX_NONE || in->row < a->example_row)
				a->example_row = in->row;
		}
		if (pair_add(&st->groups, &st->gacc, &st->gcap, &gc, shape, g, dur, 0) != 0 ||
		    (step != TIX_NONE &&
		     pair_add(&st->steps, &st->sacc, &st->scap, &sc, shape, step, dur, new_call) != 0))
			return -1;
		for (uint32_t p = leaf; p != TIX_NONE;) {
			st->insts[p].ns = tix_sat_add(st->insts[p].ns, dur);
			uint32_t up = parent_of(st, st->insts[p].row);
			p = up == TIX_NONE ? TIX_NONE : nearest_modelled(st, up, &oom);
		}
		if (oom)
			return -1;
	}
	return 0;
}

/* Every GPU work event, by step group (which knows its step: no search),
 * then those of each group in no step (the end of its members). */
static int attribute(struct state *st, struct tix_error *err)
{
	struct linker *L = st->L;
	const uint32_t *members = (const uint32_t *)L->members.base;
	uint32_t *covered = calloc((size_t)L->ngroups + 1, sizeof(*covered)); /* end of its step runs */
	if (!covered)
		return tix_error_oom(err, NULL);
	for (uint32_t g = 0; g < L->ngroups; g++)
		covered[g] = L->groups[g].members_first;
	int rc = 0;
	for (uint32_t i = 0; i < L->nstep_groups && rc == 0; i++) {
		const struct tix_group *S = &L->step_groups[i];
		rc = attribute_run(st, S->group, S->step, members + S->members_first, S->members_count);
		uint32_t end = S->members_first + S->members_count;
		covered[S->group] = end > covered[S->group] ? end : covered[S->group];
	}
	for (uint32_t g = 0; g < L->ngroups && rc == 0; g++) {
		const struct tix_group *G = &L->groups[g];
		uint32_t end = G->members_first + G->members_count;
		rc = attribute_run(st, g, TIX_NONE, members + covered[g], end - covered[g]);
	}
	free(covered);
	return rc == 0 ? 0 : tix_error_oom(err, NULL);
}

/* OP_MODELS: each op's modelled instances with GPU work beneath them. */
static int op_models(struct state *st, struct tix_error *err)
{
	struct linker *L = st->L;
	uint32_t nstr = L->b->c.strings.n;
	uint32_t *op_of_name = malloc(((size_t)nstr + 1) * sizeof(*op_of_name));
	L->op_models = calloc((size_t)L->nops + 1, sizeof(*L->op_models));
	if (!op_of_name || !L->op_models) {
		free(op_of_name);
		return tix_error_oom(err, NULL);
	}
	memset(op_of_name, 0xff, ((size_t)nstr + 1) * sizeof(*op_of_name));
	for (uint32_t i = 0; i < L->nops; i++) {
		op_of_name[L->ops[i].name] = i;
		struct tix_op_model *m = &L->op_models[i];
		m->flops = m->bytes = -1;
		m->cls = (uint8_t)class_of_name(st, L->ops[i].name);
		m->peak = TIX_PEAK_NONE;
	}
	for (uint32_t i = 0; i < st->ninsts; i++) {
		const struct inst *in = &st->insts[i];
		const struct tix_row_disk *r = &SPILL_AT(&L->rows, struct tix_row_disk, in->row);
		if (in->ns <= 0)
			continue;
		const struct shape_acc *a = &st->acc[in->shape];
		uint32_t op = op_of_name[r->name];
		if (op == TIX_NONE)
			continue;
		struct tix_op_model *m = &L->op_models[op];
		if (m->calls == 0) {
			m->flops = m->bytes = 0;
			m->peak = (uint8_t)a->cost.peak;
		} else if (m->peak != a->cost.peak) {
			m->mixed = 1;
		}
		/* a sum is unknown when one of its terms is */
		m->flops = m->flops >= 0 && a->cost.flops >= 0 ? m->flops + a->cost.flops : -1;
		m->bytes = m->bytes >= 0 && a->cost.bytes >= 0 ? m->bytes + a->cost.bytes : -1;
		m->gpu_ns = tix_sat_add(m->gpu_ns, in->ns);
		m->calls++;
	}
	for (uint32_t i = 0; i < L->nops; i++)
		if (L->op_models[i].mixed)
			L->op_models[i].peak = TIX_PEAK_NONE;
	free(op_of_name);
	return 0;
}

/* ---- the records ---- */

/* Larger GPU time first; ties by op name, Input Dims, Input type, Concrete
 * Inputs as text, so the order follows the trace, not the build. */
static int cmp_shape_rank(const void *x, const void *y, void *ctx)
{
	const struct state *st = ctx;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	const struct shape_acc *p = &st->acc[a], *q = &st->acc[b];
	if (p->gpu_ns != q->gpu_ns)
		return p->gpu_ns > q->gpu_ns ? -1 : 1;
	const uint32_t *ka = &((const struct shape_key *)st->shapes.recs)[a].name;
	const uint32_t *kb = &((const struct shape_key *)st->shapes.recs)[b].name;
	for (int i = 0; i < 4; i++) { /* the name a string, the rest canonical texts */
		const struct intern *s = i ? &st->canon : &st->L->b->c.strings;
		if (ka[i] == kb[i])
			continue;
		if (ka[i] == TIX_NONE || kb[i] == TIX_NONE)
			return ka[i] == TIX_NONE ? -1 : 1;
		int c = strcmp(intern_str(s, ka[i]), intern_str(s, kb[i]));
		if (c)
			return c;
	}
	return 0;
}

static int cmp_step_shape(const void *x, const void *y)
{
	const struct tix_op_shape *a = x, *b = y;
	if (a->step != b->step)
		return a->step < b->step ? -1 : 1;
	if (a->gpu_ns != b->gpu_ns)
		return a->gpu_ns > b->gpu_ns ? -1 : 1;
	return a->shape < b->shape ? -1 : (a->shape > b->shape);
}

struct shape_group {            /* a (shape, kernel group) pair being ordered */
	uint32_t shape, group, count;
	int64_t gpu_ns;
	const char *name;          /* the group's name: ties go by it */
};

static int cmp_shape_group(const void *x, const void *y)
{
	const struct shape_group *a = x, *b = y;
	if (a->shape != b->shape)
		return a->shape < b->shape ? -1 : 1;
	if (a->gpu_ns != b->gpu_ns)
		return a->gpu_ns > b->gpu_ns ? -1 : 1;
	int c = strcmp(a->name, b->name);
	return c ? c : (a->group < b->group ? -1 : (a->group > b->group));
}

static int write_records(struct state *st, struct tix_error *err)
{
	struct linker *L = st->L;
	uint32_t n = 0, ns = st->shapes.n;
	uint32_t *order = malloc(((size_t)ns + 1) * sizeof(*order));
	uint32_t *rank = malloc(((size_t)ns + 1) * sizeof(*rank));
	if (!order || !rank)
		goto oom;
	for (uint32_t i = 0; i < ns; i++)
		if (st->acc[i].gpu_events)
			order[n++] = i;
	qsort_r(order, n, sizeof(*order), cmp_shape_rank, st);
	memset(rank, 0xff, ((size_t)ns + 1) * sizeof(*rank));
	const struct shape_key *keys = (const struct shape_key *)st->shapes.recs;
	L->op_shapes = calloc((size_t)n + 1, sizeof(*L->op_shapes));
	if (!L->op_shapes)
		goto oom;
	L->nop_shapes = n;
	for (uint32_t i = 0; i < n; i++) {
		const struct shape_acc *a = &st->acc[order[i]];
		rank[order[i]] = i;
		L->op_shapes[i] = (struct tix_op_shape){
			.name = keys[order[i]].name, .op_info = a->op_info, .step = TIX_NONE,
			.shape = i, .calls = a->calls, .calls_in_steps = a->calls_in_steps,
			.gpu_events = a->gpu_events, .example_row = a->example_row, .gpu_ns = a->gpu_ns,
			.cls = (uint8_t)a->cost.cls};
	}
	/* per step */
	const struct pair_key *sk = (const struct pair_key *)st->steps.recs;
	L->step_op_shapes = calloc((size_t)st->steps.n + 1, sizeof(*L->step_op_shapes));
	if (!L->step_op_shapes)
		goto oom;
	L->nstep_op_shapes = st->steps.n;
	for (uint32_t i = 0; i < st->steps.n; i++) {
		const struct shape_acc *a = &st->acc[sk[i].shape];
		const struct tix_op_shape *o = &L->op_shapes[rank[sk[i].shape]];
		L->step_op_shapes[i] = (struct tix_op_shape){
			.name = o->name, .op_info = o->op_info, .step = sk[i].other, .shape = o->shape,
			.calls = st->sacc[i].calls, .gpu_events = st->sacc[i].count,
			.example_row = a->example_row, .gpu_ns = st->sacc[i].gpu_ns, .cls = o->cls,
			.groups_first = TIX_NONE};
	}
	qsort(L->step_op_shapes, L->nstep_op_shapes, sizeof(*L->step_op_shapes), cmp_step_shape);
	for (uint32_t i = 0; i < L->nstep_op_shapes;) {
		uint32_t s = L->step_op_shapes[i].step, j = i;
		while (j < L->nstep_op_shapes && L->step_op_shapes[j].step == s)
			j++;
		if (s < L->nsteps) {
			L->breakdowns[s].shapes_first = i;
			L->breakdowns[s].shapes_count = j - i;
		}
		i = j;
	}
	/* kernel groups of each shape, by shape rank then time */
	const struct pair_key *gk = (const struct pair_key *)st->groups.recs;
	uint32_t np = st->groups.n;
	struct shape_group *sg = malloc(((size_t)np + 1) * sizeof(*sg));
	L->op_shape_groups = calloc((size_t)np + 1, sizeof(*L->op_shape_groups));
	if (!sg || !L->op_shape_groups) {
		free(sg);
		goto oom;
	}
	for (uint32_t i = 0; i < np; i++)
		sg[i] = (struct shape_group){rank[gk[i].shape], gk[i].other, st->gacc[i].count,
		                             st->gacc[i].gpu_ns,
		                             intern_str(&L->b->c.strings, L->groups[gk[i].other].name)};
	qsort(sg, np, sizeof(*sg), cmp_shape_group);
	L->nop_shape_groups = np;
	for (uint32_t i = 0; i < np; i++) {
		L->op_shape_groups[i] = (struct tix_op_group){sg[i].group, sg[i].count, sg[i].gpu_ns};
		struct tix_op_shape *o = &L->op_shapes[sg[i].shape];
		if (o->groups_count == 0)
			o->groups_first = i;
		o->groups_count++;
	}
	free(sg);
	free(order);
	free(rank);
	return 0;
oom:
	free(order);
	free(rank);
	return tix_error_oom(err, NULL);
}

int linker_op_shapes(struct linker *L, struct tix_error *err)
{
	struct state st;
	memset(&st, 0, sizeof(st));
	st.L = L;
	linker_rows_view(L, &st.v);
	int rc = -1;
	st.name_class = calloc((size_t)L->b->c.strings.n + 1, 1);
	if (!st.name_class || dedup_init(&st.shapes, sizeof(struct shape_key)) != 0 ||
	    dedup_init(&st.groups, sizeof(struct pair_key)) != 0 ||
	    dedup_init(&st.steps, sizeof(struct pair_key)) != 0) {
		tix_error_oom(err, NULL);
		goto out;
	}
	st.nma = linker_buf(L, &st.b_nma, L->nrows, sizeof(uint32_t), err);
	st.cand = st.nma ? linker_buf(L, &st.b_cand, L->nrows, sizeof(uint32_t), err) : NULL;
	if (!st.cand)
		goto out;
	size_t nd = L->b->c.details.n;
	st.detail_name = malloc((nd + 1) * sizeof(uint32_t));
	st.detail_shape = malloc((nd + 1) * sizeof(uint32_t));
	if (!st.detail_name || !st.detail_shape) {
		tix_error_oom(err, NULL);
		goto out;
	}
	memset(st.detail_name, 0xff, (nd + 1) * sizeof(uint32_t));
	st.canon_of = calloc((size_t)L->b->c.strings.n + 1, sizeof(uint32_t));
	if (!st.canon_of || intern_init(&st.canon) != 0) {
		tix_error_oom(err, NULL);
		goto out;
	}
	memset(st.nma, 0xfe, (size_t)L->nrows * sizeof(uint32_t));
	find_candidates(&st);
	if (attribute(&st, err) != 0 || op_models(&st, err) != 0 || write_records(&st, err) != 0)
		goto out;
	rc = 0;
out:
	free(st.name_class);
	free(st.insts);
	free(st.detail_name);
	free(st.detail_shape);
	free(st.canon_of);
	intern_done(&st.canon);
	free(st.acc);
	free(st.gacc);
	free(st.sacc);
	dedup_done(&st.shapes);
	dedup_done(&st.groups);
	dedup_done(&st.steps);
	linker_buf_done(L, &st.b_nma);
	linker_buf_done(L, &st.b_cand);
	return rc;
}
