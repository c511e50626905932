/*
 * cupti_capture/journal_graph.c: the exact graph join of the journal
 * reader.  Owner: cupti_capture.
 *
 * A kernel replayed from a CUDA graph carries the id of the instantiated
 * node that ran it.  The journal's GRAPH_NODES rows say where that id came
 * from: CLONED rows map an instantiated node to the node it was copied from
 * (possibly through several copies), and the CREATED row at the end of that
 * chain holds what was true on the capturing thread when the node was made
 * (the NVTX ranges open, the API call in progress).  One hash table of node
 * ids, built once, and a memo per row make the join linear in kernels plus
 * nodes; SGLang captures tens of thousands of nodes per rank.
 *
 * When several rows name the same node id, a CLONED row wins over a
 * CREATED one (CUDA may report the instantiated copy as created too), and a
 * later row over an earlier one.
 *
 * A node updated after instantiation (GRAPH_EVENTS rows: one node's
 * parameters set, or the whole executable graph updated from another graph)
 * runs what the update put there: a replay launched after the first update
 * anywhere on its chain is not joined to the capture (it would be called
 * exact and be wrong), and is counted.  "After" is by correlation id (the
 * launch call's against the update call's, in serial order: ids wrap), by
 * time when either is unknown.
 */
#include "cupti_capture/journal_read_int.h"

#include <stdlib.h>
#include <string.h>

#define MAX_HOPS 16 /* clone of a clone ...: deeper means a damaged journal */

struct capture {
	struct tix_capture_in in;
	struct tix_frame_in *frames;
	int state;                  /* 0 not built, 1 built, -1 nothing known */
};

/* The first update of a node (or of the earliest on a chain). */
struct update {
	int64_t ts;                 /* 0: none */
	uint32_t correlation;       /* 0: unknown */
};

struct graph_join {
	uint32_t *slot;             /* node id -> row index + 1, open addressing */
	size_t nslot;
	int32_t *origin;            /* row -> its CREATED row; -1 none; -2 not yet known */
	struct capture *cap;        /* per row; used for CREATED rows */
	struct update *own, *chain; /* per row: its own first update; the first on its chain */
	uint8_t *chain_known;
	uint64_t unknown, updated;
};

static size_t hash_id(uint64_t id, size_t mask)
{
	id ^= id >> 33; /* the finaliser of MurmurHash3: node ids are dense small numbers */
	id *= 0xff51afd7ed558ccdull;
	id ^= id >> 33;
	return (size_t)id & mask;
}

static size_t find_slot(const struct graph_join *g, const struct rd *r, uint64_t id)
{
	size_t mask = g->nslot - 1, i = hash_id(id, mask);
	while (g->slot[i] && r->gn[g->slot[i] - 1].node_id != id)
		i = (i + 1) & mask;
	return i;
}

static int index_updates(struct rd *r);

int tixjr_graph_index(struct rd *r)
{
	struct graph_join *g = calloc(1, sizeof *g);
	if (!g)
		return -1;
	r->graph = g;
	if (!r->ngn)
		return 0;
	g->nslot = 16;
	while (g->nslot < 2 * r->ngn)
		g->nslot *= 2;
	g->slot = calloc(g->nslot, sizeof *g->slot);
	g->origin = malloc(r->ngn * sizeof *g->origin);
	g->cap = calloc(r->ngn, sizeof *g->cap);
	if (!g->slot || !g->origin || !g->cap)
		return -1;
	for (size_t i = 0; i < r->ngn; i++) {
		g->origin[i] = -2;
		size_t s = find_slot(g, r, r->gn[i].node_id);
		if (g->slot[s] && r->gn[g->slot[s] - 1].how == TIXJ_G_CLONED &&
		    r->gn[i].how != TIXJ_G_CLONED)
			continue;
		g->slot[s] = (uint32_t)i + 1;
	}
	return r->nge ? index_updates(r) : 0;
}

static int32_t lookup(const struct graph_join *g, const struct rd *r, uint64_t id)
{
	if (!g->nslot)
		return -1;
	size_t s = find_slot(g, r, id);
	return g->slot[s] ? (int32_t)g->slot[s] - 1 : -1;
}

/* a before b in serial-number order (RFC 1982, 32 bits) */
static int serial_lt(uint32_t a, uint32_t b) { return (int32_t)(a - b) < 0; }

/* x happened before y: by correlation id when both have one, else by time */
static int update_before(struct update x, struct update y)
{
	if (x.correlation && y.correlation)
		return serial_lt(x.correlation, y.correlation);
	return x.ts < y.ts;
}

static void mark(struct update *u, const struct tixj_graph_event *e)
{
	struct update v = {e->ts ? e->ts : 1, e->correlation};
	if (!u->ts || update_before(v, *u))
		*u = v;
}

struct made { uint32_t exec_id, correlation; };

static int cmp_exec(const void *a, const void *b)
{
	const struct made *x = a, *y = b;
	return x->exec_id < y->exec_id ? -1 : x->exec_id > y->exec_id;
}

struct exec_update { uint32_t made_by; const struct tixj_graph_event *e; };

static int cmp_made_by(const void *a, const void *b)
{
	const struct exec_update *x = a, *y = b;
	return x->made_by < y->made_by ? -1 : x->made_by > y->made_by;
}

/* The instantiation calls that made each updated executable graph, with
 * the update: xu[0..return), sorted by the call. */
static size_t exec_updates(const struct rd *r, struct made *made, struct exec_update *xu)
{
	size_t nmade = 0, nxu = 0;
	for (size_t i = 0; i < r->nge; i++)
		if (r->ge[i].what == TIXJ_GE_EXEC_MADE && r->ge[i].exec_id && r->ge[i].correlation)
			made[nmade++] = (struct made){r->ge[i].exec_id, r->ge[i].correlation};
	qsort(made, nmade, sizeof *made, cmp_exec);
	for (size_t i = 0; nmade && i < r->nge; i++) {
		const struct tixj_graph_event *e = &r->ge[i];
		struct made key = {e->exec_id, 0};
		const struct made *m = e->what == TIXJ_GE_EXEC_UPDATED
		                               ? bsearch(&key, made, nmade, sizeof *made, cmp_exec)
		                               : NULL;
		if (m)
			xu[nxu++] = (struct exec_update){m->correlation, e};
	}
	qsort(xu, nxu, sizeof *xu, cmp_made_by);
	return nxu;
}

/* Each row's own first update: NODE_UPDATED names the node; EXEC_UPDATED
 * the executable graph, whose copies are the CLONED rows made by the call
 * that made it (EXEC_MADE). */
static int index_updates(struct rd *r)
{
	struct graph_join *g = r->graph;
	g->own = calloc(r->ngn, sizeof *g->own);
	g->chain = calloc(r->ngn, sizeof *g->chain);
	g->chain_known = calloc(r->ngn, 1);
	struct made *made = calloc(r->nge, sizeof *made);
	struct exec_update *xu = calloc(r->nge, sizeof *xu);
	if (!g->own || !g->chain || !g->chain_known || !made || !xu) {
		free(made);
		free(xu);
		return -1;
	}
	for (size_t i = 0; i < r->nge; i++) {
		int32_t row = r->ge[i].what == TIXJ_GE_NODE_UPDATED ? lookup(g, r, r->ge[i].node_id) : -1;
		if (row >= 0)
			mark(&g->own[row], &r->ge[i]);
	}
	size_t nxu = exec_updates(r, made, xu);
	for (size_t i = 0; nxu && i < r->ngn; i++) {
		if (r->gn[i].how != TIXJ_G_CLONED || !r->gn[i].correlation)
			continue;
		struct exec_update key = {r->gn[i].correlation, NULL};
		const struct exec_update *hit = bsearch(&key, xu, nxu, sizeof *xu, cmp_made_by);
		while (hit && hit > xu && hit[-1].made_by == key.made_by)
			hit--;
		for (; hit && hit < xu + nxu && hit->made_by == key.made_by; hit++)
			mark(&g->own[i], hit->e);
	}
	free(made);
	free(xu);
	return 0;
}

/* The CREATED row a node id goes back to, or -1. */
static int32_t origin_of(struct rd *r, uint64_t id)
{
	struct graph_join *g = r->graph;
	int32_t path[MAX_HOPS], n = 0, at = lookup(g, r, id), found = -1;
	while (at >= 0 && n < MAX_HOPS) {
		if (g->origin[at] != -2) {
			found = g->origin[at];
			break;
		}
		path[n++] = at;
		if (r->gn[at].how == TIXJ_G_CREATED) {
			found = at;
			break;
		}
		if (r->gn[at].how != TIXJ_G_CLONED)
			break;
		at = lookup(g, r, r->gn[at].orig_node_id);
	}
	for (int32_t i = 0; i < n; i++) /* every row on the way learns the answer */
		g->origin[path[i]] = found;
	return found;
}

static const struct tix_capture_in *build(struct rd *r, int32_t ci)
{
	struct capture *c = &r->graph->cap[ci];
	if (c->state)
		return c->state > 0 ? &c->in : NULL;
	c->state = -1;
	const struct tixj_graph_node *n = &r->gn[ci];
	struct str fr = n->frames == TIXJ_NONE ? (struct str){"", 0} : tixjr_str(r, n->frames);
	size_t nf = 0;
	for (uint32_t i = 0; i < fr.len; i++)
		nf += fr.p[i] == 0 || i + 1 == fr.len; /* a missing last NUL still ends a name */
	int cut = (n->flags & TIXJ_G_FRAMES_CUT) != 0;
	int api = n->api != TIXJ_NONE && tixjr_str(r, n->api).len > 0;
	size_t total = nf + (size_t)cut + (size_t)api;
	if (total == 0)
		return NULL;
	c->frames = calloc(total, sizeof *c->frames);
	if (!c->frames)
		return NULL;
	size_t k = 0;
	for (uint32_t i = 0, start = 0; i < fr.len; i++) {
		if (fr.p[i] != 0 && i + 1 != fr.len)
			continue;
		size_t end = fr.p[i] == 0 ? i : i + 1;
		c->frames[k++] = (struct tix_frame_in){.name = {fr.p + start, end - start},
		                                       .kind = TIX_KIND_USER_ANNOTATION};
		start = i + 1;
	}
	if (cut) /* the deepest ranges did not fit the capture's record */
		c->frames[k++] = (struct tix_frame_in){.name = {"...", 3}, .kind = TIX_KIND_USER_ANNOTATION};
	if (api)
		c->frames[k++] = (struct tix_frame_in){
			.name = tixjr_api_name(tixjr_str(r, n->api)),
			.kind = n->domain == TIXJ_API_DRIVER ? TIX_KIND_DRIVER : TIX_KIND_RUNTIME};
	c->in = (struct tix_capture_in){.frames = c->frames, .nframes = (uint32_t)k,
	                                .match = TIX_MATCH_EXACT,
	                                .source = {r->path, strlen(r->path)}};
	c->state = 1;
	return &c->in;
}

/* The first update anywhere on the chain from node id's row to its
 * capture; ts 0: none. */
static struct update chain_update(struct rd *r, uint64_t id)
{
	struct graph_join *g = r->graph;
	struct update none = {0, 0};
	if (!g->own)
		return none;
	int32_t path[MAX_HOPS], n = 0, at = lookup(g, r, id);
	struct update first = none;
	while (at >= 0 && n < MAX_HOPS) {
		if (g->chain_known[at]) {
			first = g->chain[at];
			break;
		}
		path[n++] = at;
		if (r->gn[at].how != TIXJ_G_CLONED)
			break;
		at = lookup(g, r, r->gn[at].orig_node_id);
	}
	/* each row on the way learns the first update from it on */
	for (int32_t i = n; i-- > 0;) {
		struct update own = g->own[path[i]];
		if (own.ts && (!first.ts || update_before(own, first)))
			first = own;
		g->chain[path[i]] = first;
		g->chain_known[path[i]] = 1;
	}
	return first;
}

const struct tix_capture_in *tixjr_graph_capture(struct rd *r, uint64_t node_id,
                                                 uint32_t correlation, int64_t start, struct sb *a)
{
	/* the full 64-bit id: the index keeps only its low 32 bits */
	tixjr_sb_printf(a, "\"graph node\":%llu", (unsigned long long)node_id);
	if (!r->graph)
		return NULL;
	struct update u = chain_update(r, node_id), launch = {start, correlation};
	if (u.ts && update_before(u, launch)) {
		r->graph->updated++;
		tixjr_sb_printf(a, ",\"graph node updated\":true");
		return NULL;
	}
	int32_t ci = origin_of(r, node_id);
	if (ci < 0)
		r->graph->unknown++;
	return ci >= 0 ? build(r, ci) : NULL;
}

uint64_t tixjr_graph_unknown(const struct rd *r) { return r->graph ? r->graph->unknown : 0; }
uint64_t tixjr_graph_updated(const struct rd *r) { return r->graph ? r->graph->updated : 0; }

void tixjr_graph_done(struct rd *r)
{
	struct graph_join *g = r->graph;
	if (!g)
		return;
	for (size_t i = 0; g->cap && i < r->ngn; i++)
		free(g->cap[i].frames);
	free(g->cap);
	free(g->slot);
	free(g->origin);
	free(g->own);
	free(g->chain);
	free(g->chain_known);
	free(g);
	r->graph = NULL;
}
