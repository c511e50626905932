/* The ranks model (index/view/view.h, "ranks: several traces of one run"):
 * each trace's per-step figures, copied out of its index, then the set:
 * which trace is which rank, steps aligned by number, skew and straggler.
 * The definitions are in the header and in docs/CLI.md. */
#include "index/view/view_int.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- distributedInfo: two integers of a JSON object, without a DOM ---- */

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/* Past the JSON string at p (which is '"'), or NULL. */
static const char *skip_string(const char *p)
{
	for (p++; *p; p++) {
		if (*p == '\\' && p[1])
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

/* Past the JSON value at p, or NULL when it does not end. */
static const char *skip_value(const char *p)
{
	int depth = 0;
	do {
		p = skip_ws(p);
		if (!*p)
			return NULL;
		if (*p == '"') {
			if (!(p = skip_string(p)))
				return NULL;
		} else if (*p == '{' || *p == '[') {
			depth++, p++;
		} else if (*p == '}' || *p == ']') {
			depth--, p++;
		} else if (*p == ',' || *p == ':') {
			p++;
		} else {
			while (*p && !strchr(",:{}[]\" \t\r\n", *p))
				p++;
		}
	} while (depth > 0);
	return p;
}

/* An integer value: a JSON number without fraction, or a string of digits. */
static int int_value(const char *p, int64_t *out)
{
	int quoted = *p == '"';
	p += quoted;
	char *end;
	if (!(isdigit((unsigned char)*p) || (*p == '-' && isdigit((unsigned char)p[1]))))
		return -1;
	long long v = strtoll(p, &end, 10);
	if (quoted ? *end != '"' : (*end == '.' || *end == 'e' || *end == 'E'))
		return -1;
	*out = v;
	return 0;
}

/* "rank" and "world_size" of the top level of the object text json. */
static void read_dist_info(const char *json, struct tix_rank_trace *t)
{
	const char *p = skip_ws(json);
	if (*p != '{')
		return;
	p++;
	for (;;) {
		p = skip_ws(p);
		if (*p != '"')
			return;
		const char *k = p + 1, *ke = skip_string(p);
		if (!ke)
			return;
		size_t klen = (size_t)(ke - 1 - k);
		p = skip_ws(ke);
		if (*p != ':')
			return;
		p = skip_ws(p + 1);
		int64_t v;
		if (klen == 4 && !memcmp(k, "rank", 4) && int_value(p, &v) == 0 && v >= 0 && v <= INT32_MAX) {
			t->has_info = 1;
			t->info_rank = v;
		} else if (klen == 10 && !memcmp(k, "world_size", 10) && int_value(p, &v) == 0 && v > 0) {
			t->info_world = v;
		}
		if (!(p = skip_value(p)))
			return;
		p = skip_ws(p);
		if (*p != ',')
			return;
		p++;
	}
}

/* ---- one trace ---- */

void tix_rank_trace_free(struct tix_rank_trace *t)
{
	if (!t)
		return;
	for (uint32_t s = 0; s < t->nsteps; s++)
		free(t->steps[s].name);
	free(t->steps);
	free(t->step_rule);
	free(t->path);
	free(t);
}

struct tix_rank_trace *tix_rank_trace_new(const struct tix_index *ix, const char *path,
                                          struct tix_error *err)
{
	struct tix_rank_trace *t = calloc(1, sizeof(*t));
	struct tix_summary_info si;
	tix_index_summary(ix, &si);
	if (!t || !(t->path = strdup(path)) || !(t->step_rule = strdup(si.step_rule)))
		goto oom;
	t->info_world = -1;
	for (uint32_t i = 0; i < tix_meta_count(ix); i++) {
		const char *key, *json;
		tix_meta_get(ix, i, &key, &json);
		if (!strcmp(key, "distributedInfo"))
			read_dist_info(json, t);
	}
	/* the step table alone: the builder kept each step's compute and
	 * communication unions (struct tix_step), so 64 ranks open in the time
	 * it takes to read 64 step tables */
	t->nsteps = tix_step_count(ix);
	if (t->nsteps && !(t->steps = calloc(t->nsteps, sizeof(*t->steps))))
		goto oom;
	for (uint32_t s = 0; s < t->nsteps; s++) {
		const struct tix_step *st = tix_step_get(ix, s);
		struct tix_rank_fig *f = &t->steps[s];
		if (!(f->name = strdup(tix_str(ix, st->name))))
			goto oom;
		f->wall_ns = st->dur_ns;
		f->gpu_busy_ns = st->gpu_busy_ns;
		f->gpu_events = st->gpu_events;
		f->comm_kernels = st->comm_kernels;
		f->compute_ns = st->compute_busy_ns;
		f->comm_ns = st->comm_busy_ns;
		f->overlap_ns = f->compute_ns + f->comm_ns - f->gpu_busy_ns;
		if (f->overlap_ns < 0)
			f->overlap_ns = 0;
	}
	return t;
oom:
	tix_rank_trace_free(t);
	tix_error_oom(err, path);
	return NULL;
}

/* ---- the set ---- */

struct tix_rank_set {
	struct tix_rank_trace **t; /* in rank order */
	int32_t *rank;
	uint32_t n, nsteps;
	enum tix_rank_rule rule;
	int key;                   /* TIX_RANK_NAME: which of NAME_KEYS */
	char rule_text[64];
	char (*label)[24];         /* per rank: "rank 5", "TP-5" */
	int64_t world;
	struct tix_rank_step *steps;
	int64_t *wait;             /* nsteps x n */
};

/* The number after key in a file's base name: "TP-3", "rank_3", "rank3"
 * ("rank" and the key are not the tail of a longer word), else -1. */
static long name_number(const char *path, const char *key)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t kl = strlen(key);
	for (const char *p = base; *p; p++) {
		if (strncasecmp(p, key, kl) || (p > base && isalnum((unsigned char)p[-1])))
			continue;
		const char *d = p + kl;
		if (*d == '-' || *d == '_')
			d++;
		if (!isdigit((unsigned char)*d))
			continue;
		long v = 0;
		while (isdigit((unsigned char)*d) && v < 100000000)
			v = v * 10 + (*d++ - '0');
		return v;
	}
	return -1;
}

static const char *const NAME_KEYS[] = {"rank", "TP", "DP", "PP", "EP", NULL};

struct order {
	int32_t rank;
	uint32_t given;
};

static int cmp_order(const void *x, const void *y)
{
	const struct order *a = x, *b = y;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return a->given < b->given ? -1 : a->given > b->given;
}

/* Ranks of the n traces by rule into r; 0, or -1 when the rule does not
 * give every trace one. */
static int ranks_by(struct tix_rank_trace **t, uint32_t n, enum tix_rank_rule rule, int key,
                    int32_t *r)
{
	for (uint32_t i = 0; i < n; i++) {
		if (rule == TIX_RANK_INFO) {
			if (!t[i]->has_info)
				return -1;
			r[i] = (int32_t)t[i]->info_rank;
		} else if (rule == TIX_RANK_NAME) {
			long v = name_number(t[i]->path, NAME_KEYS[key]);
			if (v < 0)
				return -1;
			r[i] = (int32_t)v;
		} else {
			r[i] = (int32_t)i;
		}
	}
	return 0;
}

/* The first pair of traces with the same rank, or -1. */
static int find_dup(const int32_t *r, uint32_t n, uint32_t *a, uint32_t *b)
{
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = i + 1; j < n; j++)
			if (r[i] == r[j]) {
				*a = i, *b = j;
				return 0;
			}
	return -1;
}

void tix_rank_set_free(struct tix_rank_set *rs)
{
	if (!rs)
		return;
	for (uint32_t i = 0; i < rs->n; i++)
		tix_rank_trace_free(rs->t[i]);
	free(rs->t);
	free(rs->rank);
	free(rs->steps);
	free(rs->wait);
	free(rs->label);
	free(rs);
}

static void set_rule_text(struct tix_rank_set *rs, int key)
{
	if (rs->rule == TIX_RANK_INFO)
		snprintf(rs->rule_text, sizeof(rs->rule_text), "distributedInfo.rank");
	else if (rs->rule == TIX_RANK_NAME)
		snprintf(rs->rule_text, sizeof(rs->rule_text), "file name (%s-N)", NAME_KEYS[key]);
	else
		snprintf(rs->rule_text, sizeof(rs->rule_text), "order given");
}

/* Which rule and name key give the ranks; fills r.  -1 with err set for
 * duplicate ranks. */
static int assign(struct tix_rank_trace **t, uint32_t n, enum tix_rank_rule want, int32_t *r,
                  enum tix_rank_rule *rule, int *key, struct tix_error *err)
{
	uint32_t a, b;
	int dup_key = -1;
	*key = 0;
	if (want == TIX_RANK_INFO || (want == TIX_RANK_AUTO && ranks_by(t, n, TIX_RANK_INFO, 0, r) == 0)) {
		*rule = TIX_RANK_INFO;
		if (ranks_by(t, n, TIX_RANK_INFO, 0, r) != 0) {
			for (a = 0; t[a]->has_info; a++)
				;
			return tix_error_set(err, "%s: no distributedInfo.rank in the trace (--rank-from name or order)",
			                     t[a]->path);
		}
		if (find_dup(r, n, &a, &b) == 0)
			goto dup;
		return 0;
	}
	if (want == TIX_RANK_NAME || want == TIX_RANK_AUTO) {
		for (int k = 0; NAME_KEYS[k]; k++) {
			if (ranks_by(t, n, TIX_RANK_NAME, k, r) != 0)
				continue;
			if (find_dup(r, n, &a, &b) != 0) {
				*rule = TIX_RANK_NAME;
				*key = k;
				return 0;
			}
			if (dup_key < 0)
				dup_key = k;
		}
		if (dup_key >= 0) { /* names that say rank, but say one twice */
			*rule = TIX_RANK_NAME;
			*key = dup_key;
			ranks_by(t, n, TIX_RANK_NAME, dup_key, r);
			find_dup(r, n, &a, &b);
			goto dup;
		}
		if (want == TIX_RANK_NAME)
			return tix_error_set(err, "the file names do not all carry a rank (rank-N, TP-N, DP-N, PP-N, EP-N)");
	}
	*rule = TIX_RANK_ORDER;
	ranks_by(t, n, TIX_RANK_ORDER, 0, r);
	return 0;
dup:;
	char why[64];
	if (*rule == TIX_RANK_INFO)
		snprintf(why, sizeof(why), "distributedInfo.rank");
	else
		snprintf(why, sizeof(why), "the file names' %s-N", NAME_KEYS[*key]);
	return tix_error_set(err,
	                     "%s and %s are both rank %" PRId32 " (by %s): give one run's traces, one per rank "
	                     "(--rank-from order numbers them as given)",
	                     t[a]->path, t[b]->path, r[a], why);
}

/* Skew, straggler and waits of step s. */
static void step_figures(struct tix_rank_set *rs, uint32_t s)
{
	struct tix_rank_step *st = &rs->steps[s];
	*st = (struct tix_rank_step){0, -1, -1, -1, -1, 0};
	const struct tix_rank_fig *lo = NULL, *hi = NULL, *cmax = NULL, *cmin = NULL;
	int32_t lo_rank = -1, cmax_rank = -1;
	uint32_t kernels = 0;
	for (uint32_t i = 0; i < rs->n; i++) {
		rs->wait[(size_t)s * rs->n + i] = -1;
		const struct tix_rank_fig *f = tix_rank_cell(rs, s, i);
		if (!f)
			continue;
		if (st->ranks && f->comm_kernels != kernels)
			st->comm_mismatch = 1;
		kernels = kernels > f->comm_kernels ? kernels : f->comm_kernels;
		st->ranks++;
		/* ranks come in rank order: strict comparisons keep the lowest on ties */
		if (!lo || f->comm_ns < lo->comm_ns)
			lo = f, lo_rank = rs->rank[i];
		if (!hi || f->comm_ns > hi->comm_ns)
			hi = f;
		if (!cmax || f->compute_ns > cmax->compute_ns)
			cmax = f, cmax_rank = rs->rank[i];
		if (!cmin || f->compute_ns < cmin->compute_ns)
			cmin = f;
	}
	if (st->ranks < 2)
		return;
	st->slowest_compute = cmax_rank;
	st->compute_spread_ns = cmax->compute_ns - cmin->compute_ns;
	if (!kernels) /* no collective: nobody waited for anybody */
		return;
	st->skew_ns = hi->comm_ns - lo->comm_ns;
	st->straggler = st->skew_ns > 0 ? lo_rank : -1; /* nobody waited: nobody straggled */
	for (uint32_t i = 0; i < rs->n; i++) {
		const struct tix_rank_fig *f = tix_rank_cell(rs, s, i);
		if (f)
			rs->wait[(size_t)s * rs->n + i] = f->comm_ns - lo->comm_ns;
	}
}

struct tix_rank_set *tix_rank_set_new(struct tix_rank_trace **traces, uint32_t n,
                                      enum tix_rank_rule want, struct tix_error *err)
{
	struct tix_rank_set *rs = calloc(1, sizeof(*rs));
	int32_t *r = calloc(n ? n : 1, sizeof(*r));
	struct order *o = calloc(n ? n : 1, sizeof(*o));
	if (!rs || !r || !o || !(rs->t = calloc(n ? n : 1, sizeof(*rs->t))) ||
	    !(rs->rank = calloc(n ? n : 1, sizeof(*rs->rank)))) {
		for (uint32_t i = 0; i < n; i++)
			tix_rank_trace_free(traces[i]);
		if (rs)
			free(rs->t), free(rs->rank), free(rs);
		free(r);
		free(o);
		tix_error_oom(err, NULL);
		return NULL;
	}
	int key;
	if (assign(traces, n, want, r, &rs->rule, &key, err) != 0) {
		for (uint32_t i = 0; i < n; i++)
			tix_rank_trace_free(traces[i]);
		free(rs->t), free(rs->rank), free(rs);
		free(r);
		free(o);
		return NULL;
	}
	set_rule_text(rs, key);
	for (uint32_t i = 0; i < n; i++)
		o[i] = (struct order){r[i], i};
	qsort(o, n, sizeof(*o), cmp_order);
	rs->n = n;
	rs->world = -1;
	for (uint32_t i = 0; i < n; i++) {
		rs->t[i] = traces[o[i].given];
		rs->rank[i] = o[i].rank;
		if (rs->t[i]->nsteps > rs->nsteps)
			rs->nsteps = rs->t[i]->nsteps;
		int64_t w = rs->t[i]->info_world;
		rs->world = i == 0 ? w : (rs->world == w ? w : -1);
	}
	free(r);
	free(o);
	size_t cells = (size_t)rs->nsteps * n;
	rs->steps = calloc(rs->nsteps ? rs->nsteps : 1, sizeof(*rs->steps));
	rs->wait = calloc(cells ? cells : 1, sizeof(*rs->wait));
	rs->label = calloc(n ? n : 1, sizeof(*rs->label));
	if (!rs->steps || !rs->wait || !rs->label) {
		tix_rank_set_free(rs);
		tix_error_oom(err, NULL);
		return NULL;
	}
	rs->key = key;
	for (uint32_t i = 0; i < n; i++) /* TP-5 where the names told TP, else rank 5 */
		if (rs->rule == TIX_RANK_NAME && key > 0)
			snprintf(rs->label[i], sizeof(rs->label[i]), "%s-%" PRId32, NAME_KEYS[key], rs->rank[i]);
		else
			snprintf(rs->label[i], sizeof(rs->label[i]), "rank %" PRId32, rs->rank[i]);
	for (uint32_t s = 0; s < rs->nsteps; s++)
		step_figures(rs, s);
	return rs;
}

enum tix_rank_rule tix_rank_set_rule(const struct tix_rank_set *rs)
{
	return rs->rule;
}

const char *tix_rank_rule_text(const struct tix_rank_set *rs)
{
	return rs->rule_text;
}

const char *tix_rank_rule_key(const struct tix_rank_set *rs)
{
	return rs->rule == TIX_RANK_INFO ? "distributedInfo" : rs->rule == TIX_RANK_NAME ? "name" : "order";
}

int64_t tix_rank_world(const struct tix_rank_set *rs)
{
	return rs->world;
}

uint32_t tix_rank_count(const struct tix_rank_set *rs)
{
	return rs->n;
}

int32_t tix_rank_number(const struct tix_rank_set *rs, uint32_t i)
{
	return i < rs->n ? rs->rank[i] : -1;
}

const struct tix_rank_trace *tix_rank_trace_at(const struct tix_rank_set *rs, uint32_t i)
{
	return i < rs->n ? rs->t[i] : NULL;
}

uint32_t tix_rank_steps(const struct tix_rank_set *rs)
{
	return rs->nsteps;
}

const struct tix_rank_fig *tix_rank_cell(const struct tix_rank_set *rs, uint32_t s, uint32_t i)
{
	if (i >= rs->n || s >= rs->t[i]->nsteps)
		return NULL;
	return &rs->t[i]->steps[s];
}

int64_t tix_rank_wait(const struct tix_rank_set *rs, uint32_t s, uint32_t i)
{
	if (i >= rs->n || s >= rs->nsteps)
		return -1;
	return rs->wait[(size_t)s * rs->n + i];
}

const struct tix_rank_step *tix_rank_step_get(const struct tix_rank_set *rs, uint32_t s)
{
	return s < rs->nsteps ? &rs->steps[s] : NULL;
}

uint32_t tix_rank_straggler_steps(const struct tix_rank_set *rs, uint32_t i, uint32_t first,
                                  uint32_t count)
{
	uint32_t k = 0;
	for (uint32_t s = first; i < rs->n && s < rs->nsteps && s - first < count; s++)
		k += rs->steps[s].straggler >= 0 && rs->steps[s].straggler == rs->rank[i];
	return k;
}

int32_t tix_rank_straggler(const struct tix_rank_set *rs, uint32_t first, uint32_t count,
                           uint32_t *steps, uint32_t *of)
{
	int32_t best = -1;
	uint32_t most = 0, with = 0;
	for (uint32_t s = first; s < rs->nsteps && s - first < count; s++)
		with += rs->steps[s].straggler >= 0;
	for (uint32_t i = 0; i < rs->n; i++) {
		uint32_t k = tix_rank_straggler_steps(rs, i, first, count);
		if (k > most) /* strict: the lowest rank on ties */
			most = k, best = rs->rank[i];
	}
	if (steps)
		*steps = most;
	if (of)
		*of = with;
	return best;
}

/* ---- rows and columns ---- */

static const struct tix_col rank_cols[TIX_RANK_COL_COUNT] = {
	[TIX_RANK_COL_STEP] = {.title = "Step", .width = 4, .flags = TIX_COL_RIGHT | TIX_COL_ASC, .prio = 0,
	                       .key = "index", .unit = TIX_UNIT_INT},
	/* the number, or the file name's key with it (TP-5) */
	[TIX_RANK_COL_RANK] = {.title = "Rank", .width = 4, .flags = TIX_COL_RIGHT | TIX_COL_ASC | TIX_COL_FIT,
	                       .prio = 0, .key = "rank", .unit = TIX_UNIT_INT},
	[TIX_RANK_COL_STRAGGLER] = {.title = "", .width = 1, .flags = 0, .prio = 0,
	                            .key = "straggler", .unit = TIX_UNIT_BOOL},
	[TIX_RANK_COL_WALL] = {.title = "Wall", .width = 10, .flags = TIX_COL_RIGHT, .prio = 2,
	                       .key = "wall_ns", .unit = TIX_UNIT_DUR},
	[TIX_RANK_COL_BUSY] = {.title = "GPU busy", .width = 10, .flags = TIX_COL_RIGHT, .prio = 2,
	                       .key = "gpu_busy_ns", .unit = TIX_UNIT_DUR},
	[TIX_RANK_COL_COMPUTE] = {.title = "Compute", .width = 10, .flags = TIX_COL_RIGHT, .prio = 0,
	                          .key = "compute_ns", .unit = TIX_UNIT_DUR},
	[TIX_RANK_COL_COMM] = {.title = "Comm", .width = 10, .flags = TIX_COL_RIGHT, .prio = 0,
	                       .key = "comm_ns", .unit = TIX_UNIT_DUR},
	[TIX_RANK_COL_WAIT] = {.title = "Wait", .width = 10, .flags = TIX_COL_RIGHT, .prio = 1,
	                       .key = "wait_ns", .unit = TIX_UNIT_DUR},
	[TIX_RANK_COL_SKEW] = {.title = "Skew", .width = 10, .flags = TIX_COL_RIGHT, .prio = 1,
	                       .key = "skew_ns", .unit = TIX_UNIT_DUR},
	/* the trace's file name, without its folder; CSV and JSON: the path as given */
	[TIX_RANK_COL_FILE] = {.title = "File", .width = 12, .flags = TIX_COL_FLEX | TIX_COL_ASC, .prio = 3,
	                       .key = "file", .unit = TIX_UNIT_TEXT},
	[TIX_RANK_COL_NAME] = {.title = "Step name", .flags = TIX_COL_DATA, .key = "name", .unit = TIX_UNIT_TEXT},
	[TIX_RANK_COL_OVERLAP] = {.title = "Overlap", .flags = TIX_COL_DATA, .key = "overlap_ns",
	                          .unit = TIX_UNIT_DUR},
	[TIX_RANK_COL_GPU_EVENTS] = {.title = "GPU events", .flags = TIX_COL_DATA, .key = "gpu_events",
	                             .unit = TIX_UNIT_COUNT},
	[TIX_RANK_COL_COMM_KERNELS] = {.title = "Comm kernels", .flags = TIX_COL_DATA, .key = "comm_kernels",
	                               .unit = TIX_UNIT_COUNT},
	[TIX_RANK_COL_TRACE] = {.title = "Trace", .flags = TIX_COL_DATA, .key = "trace", .unit = TIX_UNIT_TEXT},
};

const struct tix_col *tix_rank_cols(int *ncols)
{
	*ncols = TIX_RANK_COL_COUNT;
	return rank_cols;
}

uint32_t tix_rank_rows(const struct tix_rank_set *rs)
{
	return rs->nsteps * rs->n;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

const char *tix_rank_label(const struct tix_rank_set *rs, int32_t rank)
{
	for (uint32_t i = 0; i < rs->n; i++)
		if (rs->rank[i] == rank)
			return rs->label[i];
	return "-";
}

void tix_rank_row_cell(const struct tix_rank_set *rs, uint32_t row, int col, struct tix_cell *out)
{
	memset(out, 0, sizeof(*out));
	if (!rs->n || row >= tix_rank_rows(rs) || col < 0 || col >= TIX_RANK_COL_COUNT)
		return;
	uint32_t s = row / rs->n, i = row % rs->n;
	const struct tix_rank_fig *f = tix_rank_cell(rs, s, i);
	const struct tix_rank_step *st = &rs->steps[s];
	int64_t v = -1;
	switch ((enum tix_rank_col)col) {
	case TIX_RANK_COL_STEP: v = s; break;
	case TIX_RANK_COL_RANK:
		v = rs->rank[i];
		if (rs->rule == TIX_RANK_NAME && rs->key > 0) /* TP-5: the key the names say */
			out->s = rs->label[i];
		break;
	case TIX_RANK_COL_STRAGGLER:
		v = st->straggler >= 0 && st->straggler == rs->rank[i];
		out->s = v ? "*" : "";
		break;
	case TIX_RANK_COL_FILE:
	case TIX_RANK_COL_TRACE:
	case TIX_RANK_COL_NAME: {
		const char *t = col == TIX_RANK_COL_NAME ? (f ? f->name : NULL)
		                : col == TIX_RANK_COL_FILE ? base_name(rs->t[i]->path) : rs->t[i]->path;
		out->known = t != NULL;
		out->s = t;
		return;
	}
	case TIX_RANK_COL_WALL: v = f ? f->wall_ns : -1; break;
	case TIX_RANK_COL_BUSY: v = f ? f->gpu_busy_ns : -1; break;
	case TIX_RANK_COL_COMPUTE: v = f ? f->compute_ns : -1; break;
	case TIX_RANK_COL_COMM: v = f ? f->comm_ns : -1; break;
	case TIX_RANK_COL_OVERLAP: v = f ? f->overlap_ns : -1; break;
	case TIX_RANK_COL_GPU_EVENTS: v = f ? (int64_t)f->gpu_events : -1; break;
	case TIX_RANK_COL_COMM_KERNELS: v = f ? (int64_t)f->comm_kernels : -1; break;
	case TIX_RANK_COL_WAIT: v = tix_rank_wait(rs, s, i); break;
	case TIX_RANK_COL_SKEW: v = st->skew_ns; break;
	case TIX_RANK_COL_COUNT: break;
	}
	out->known = v >= 0;
	out->i = v;
}

/* ---- the rows as a view (TIX_VIEW_RANKS) ---- */

static int ranks_view_open(struct tix_view *v, struct tix_error *err)
{
	v->nrows = tix_rank_rows(v->arg);
	return 0;
}

static void ranks_view_cell(const struct tix_view *v, uint32_t row, int col, struct tix_cell *out)
{
	tix_rank_row_cell(v->arg, row, col, out);
}

static void ranks_view_ref(const struct tix_view *v, uint32_t row, struct tix_view_ref *out)
{
	const struct tix_rank_set *rs = v->arg;
	out->step = rs->n ? row / rs->n : TIX_NONE;
}

const struct view_kind_ops view_ranks_kind = {
	.cols = rank_cols,
	.ncols = TIX_RANK_COL_COUNT,
	.rank_col = TIX_RANK_COL_WAIT,
	.open = ranks_view_open,
	.cell = ranks_view_cell,
	.ref = ranks_view_ref,
};
