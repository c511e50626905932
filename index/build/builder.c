/* The builder's collecting half: it takes events in any order, interns
 * their strings, deduplicates what they share, and appends one 40-byte
 * record per event to a spill file.  finish.c does the rest. */
#include "index/index.h"
#include "index/grow.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index/build/builder_int.h"

/* ---- collectors ---- */

static int collector_init(struct collector *c, const char *dir, struct temp_budget *tb, const char *source_path,
                          const char *out_path, struct tix_error *err)
{
	memset(c, 0, sizeof(*c));
	c->rows.fd = c->flows.fd = -1;
	c->dir = dir;
	c->budget = tb;
	c->source_path = source_path;
	c->out_path = out_path;
	c->last_track = TIX_NONE;
	if (intern_init(&c->strings) || dedup_init(&c->details, sizeof(struct tix_detail_disk)) ||
	    dedup_init(&c->kinfos, sizeof(struct tix_kernel_info)) ||
	    dedup_init(&c->opinfos, sizeof(struct tix_op_info)))
		return tix_error_oom(err, source_path);
	c->track_nslots = 64;
	c->track_slots = calloc(c->track_nslots, sizeof(*c->track_slots));
	c->memo = calloc(DETAIL_MEMO_SIZE, sizeof(*c->memo));
	if (!c->track_slots || !c->memo)
		return tix_error_oom(err, source_path);
	for (int i = 0; i < DETAIL_MEMO_SIZE; i++)
		c->memo[i].name = TIX_NONE;
	if (spill_stage_init(&c->rows, dir, out_path, sizeof(struct brow), tb, err) ||
	    spill_stage_init(&c->flows, dir, out_path, sizeof(struct bflow), tb, err))
		return -1;
	return 0;
}

static void collector_done(struct collector *c)
{
	spill_done(&c->rows);
	spill_done(&c->flows);
	intern_done(&c->strings);
	dedup_done(&c->details);
	dedup_done(&c->kinfos);
	dedup_done(&c->opinfos);
	capture_store_done(&c->captures);
	free(c->tracks);
	free(c->track_slots);
	free(c->metas);
	free(c->top_meta);
	free(c->warnings);
	free(c->memo);
	memset(c, 0, sizeof(*c));
	c->rows.fd = c->flows.fd = -1;
}

static uint32_t str_id(struct collector *c, struct tix_str s)
{
	return intern_add(&c->strings, s.ptr ? s.ptr : "", s.ptr ? s.len : 0);
}

static int key_of(struct collector *c, const struct tix_id *pid, const struct tix_id *tid,
                  struct btrack_key *k)
{
	memset(k, 0, sizeof(*k));
	k->pid_str = k->tid_str = TIX_NONE;
	if (pid->str.ptr) {
		if ((k->pid_str = str_id(c, pid->str)) == TIX_NONE)
			return -1;
	} else {
		k->pid = pid->num;
	}
	if (tid) {
		if (tid->str.ptr) {
			if ((k->tid_str = str_id(c, tid->str)) == TIX_NONE)
				return -1;
		} else {
			k->tid = tid->num;
		}
	}
	return 0;
}

static uint32_t track_slot(const struct collector *c, const uint32_t *slots, uint32_t nslots,
                           const struct btrack_key *k)
{
	uint32_t mask = nslots - 1;
	uint32_t j = (uint32_t)tix_hash64(k, sizeof(*k), 2) & mask;
	while (slots[j] && memcmp(&c->tracks[slots[j] - 1].key, k, sizeof(*k)) != 0)
		j = (j + 1) & mask;
	return j;
}

static uint32_t track_of(struct collector *c, const struct btrack_key *k)
{
	if (c->last_track != TIX_NONE && memcmp(&c->last_key, k, sizeof(*k)) == 0)
		return c->last_track;
	uint32_t j = track_slot(c, c->track_slots, c->track_nslots, k);
	uint32_t t;
	if (c->track_slots[j]) {
		t = c->track_slots[j] - 1;
	} else {
		if (c->ntracks >= (1u << 24))
			return TIX_NONE;
		if (tix_grow32(&c->tracks, &c->tracks_cap, (size_t)c->ntracks + 1, sizeof(*c->tracks), 64) != 0)
			return TIX_NONE;
		t = c->ntracks++;
		memset(&c->tracks[t], 0, sizeof(c->tracks[t]));
		c->tracks[t].key = *k;
		c->tracks[t].device = c->tracks[t].stream = -1;
		c->track_slots[j] = t + 1;
		if (c->ntracks * 2 > c->track_nslots) {
			uint32_t nslots = c->track_nslots * 2;
			uint32_t *slots = calloc(nslots, sizeof(*slots));
			if (!slots)
				return TIX_NONE;
			for (uint32_t i = 0; i < c->ntracks; i++)
				slots[track_slot(c, slots, nslots, &c->tracks[i].key)] = i + 1;
			free(c->track_slots);
			c->track_slots = slots;
			c->track_nslots = nslots;
		}
	}
	c->last_track = t;
	c->last_key = *k;
	return t;
}

static int same_str(const struct collector *c, uint32_t id, struct tix_str s)
{
	if (id == TIX_NONE)
		return s.len == 0;
	return intern_len(&c->strings, id) == s.len && memcmp(intern_str(&c->strings, id), s.ptr, s.len) == 0;
}

static int memo_matches(const struct collector *c, const struct detail_memo *m, uint32_t name,
                        uint32_t cat, const struct tix_event_in *ev)
{
	if (m->name != name || m->cat != cat || m->kind != (int)ev->kind ||
	    m->has_launch != (ev->launch != NULL) || m->has_op != (ev->op != NULL))
		return 0;
	if (ev->launch && memcmp(&m->launch, ev->launch, sizeof(m->launch)) != 0)
		return 0;
	if (ev->op && !(same_str(c, m->op[0], ev->op->dims) && same_str(c, m->op[1], ev->op->types) &&
	                same_str(c, m->op[2], ev->op->strides) && same_str(c, m->op[3], ev->op->concrete)))
		return 0;
	return same_str(c, m->args, ev->args);
}

static void memo_keep(struct collector *c, struct detail_memo *m, uint32_t name,
                      const struct tix_detail_disk *d, uint32_t detail, const struct tix_event_in *ev)
{
	m->name = name;
	m->cat = d->cat;
	m->args = d->args;
	m->detail = detail;
	m->kind = (int)ev->kind;
	m->has_launch = ev->launch != NULL;
	m->has_op = ev->op != NULL;
	if (ev->launch)
		m->launch = *ev->launch;
	for (int i = 0; i < 4; i++)
		m->op[i] = TIX_NONE;
	if (ev->op) {
		const struct tix_op_info *oi = (const struct tix_op_info *)c->opinfos.recs + d->op_info;
		m->op[0] = oi->dims;
		m->op[1] = oi->types;
		m->op[2] = oi->strides;
		m->op[3] = oi->concrete;
	}
}

static int collect_event(struct collector *c, const struct tix_event_in *ev, struct tix_error *err)
{
	struct btrack_key k;
	if ((unsigned)ev->kind >= TIX_KIND_COUNT)
		return tix_error_set(err, "internal: event kind %d out of range", (int)ev->kind);
	if (ev->start_ns < TIX_TIME_MIN || ev->start_ns > TIX_TIME_MAX) {
		c->out_of_range++;
		return 0;
	}
	if (key_of(c, &ev->pid, &ev->tid, &k) != 0)
		goto oom;
	uint32_t t = track_of(c, &k);
	if (t == TIX_NONE)
		return tix_error_env(err, "%s: too many tracks (over 16M threads and streams)",
		                     c->source_path);

	uint32_t name = str_id(c, ev->name);
	if (name == TIX_NONE)
		goto oom;
	struct tix_detail_disk d;
	memset(&d, 0, sizeof(d)); /* the padding too: details are compared bytewise */
	d.cat = d.args = d.kernel_info = d.op_info = d.capture = TIX_NONE;
	if (ev->cat.len && (d.cat = str_id(c, ev->cat)) == TIX_NONE)
		goto oom;
	if (ev->launch) {
		struct btrack *tr = &c->tracks[t];
		if (ev->launch->device >= 0)
			tr->device = ev->launch->device;
		if (ev->launch->stream >= 0)
			tr->stream = ev->launch->stream;
	}
	uint32_t detail;
	struct detail_memo *mo = &c->memo[name % DETAIL_MEMO_SIZE];
	if (!ev->captured && memo_matches(c, mo, name, d.cat, ev)) {
		detail = mo->detail;
	} else {
		if (ev->args.len && (d.args = str_id(c, ev->args)) == TIX_NONE)
			goto oom;
		if (ev->launch) {
			struct tix_kernel_info ki;
			const struct tix_launch_in *l = ev->launch;
			memset(&ki, 0, sizeof(ki));
			memcpy(ki.grid, l->grid, sizeof(ki.grid));
			memcpy(ki.block, l->block, sizeof(ki.block));
			ki.registers = l->registers;
			ki.shared_mem = l->shared_mem;
			ki.dynamic_shared = l->dynamic_shared;
			ki.blocks_per_sm = l->blocks_per_sm;
			ki.warps_per_sm = l->warps_per_sm;
			ki.occupancy = l->occupancy;
			ki.device = l->device;
			ki.context = l->context;
			ki.stream = l->stream;
			ki.graph_id = l->graph_id;
			ki.bytes = l->bytes;
			if ((d.kernel_info = dedup_add(&c->kinfos, &ki)) == TIX_NONE)
				goto oom;
		}
		if (ev->op) {
			struct tix_op_info oi;
			const struct tix_str *f[4] = {&ev->op->dims, &ev->op->types, &ev->op->strides,
			                              &ev->op->concrete};
			/* cppcheck-suppress uninitvar ; their addresses, each written below */
			uint32_t *o[4] = {&oi.dims, &oi.types, &oi.strides, &oi.concrete};
			for (int i = 0; i < 4; i++) {
				*o[i] = TIX_NONE;
				if (f[i]->len && (*o[i] = str_id(c, *f[i])) == TIX_NONE)
					goto oom;
			}
			if ((d.op_info = dedup_add(&c->opinfos, &oi)) == TIX_NONE)
				goto oom;
		}
		if (ev->captured) {
			if ((d.capture = capture_store_add(&c->captures, &c->strings, ev->captured)) ==
			    TIX_NONE)
				goto oom;
			d.capture_match = (uint8_t)ev->captured->match;
		}
		detail = TIX_NONE;
		if ((d.cat != TIX_NONE || d.args != TIX_NONE || d.kernel_info != TIX_NONE ||
		     d.op_info != TIX_NONE || d.capture != TIX_NONE) &&
		    (detail = dedup_add(&c->details, &d)) == TIX_NONE)
			goto oom;
		if (!ev->captured)
			memo_keep(c, mo, name, &d, detail, ev);
	}

	if (c->rows.n >= UINT32_MAX / 2)
		return tix_error_env(err, "%s: too many events (over 2 billion)", c->source_path);
	struct brow *r = spill_push(&c->rows, 1, err);
	if (!r)
		return -1;
	atomic_store_explicit(&c->rows_seen, c->rows.n, memory_order_relaxed);
	r->start_ns = ev->start_ns;
	r->dur_ns = ev->dur_ns;
	r->flags = 0;
	if (ev->dur_ns < 0) {
		r->dur_ns = 0;
		r->flags |= TIX_ROW_OPEN_END;
		c->open_ends++;
	} else if (ev->dur_ns > TIX_TIME_MAX - ev->start_ns) {
		r->dur_ns = TIX_TIME_MAX - ev->start_ns;
		c->cut_at_range++;
	}
	r->corr = ev->correlation;
	r->name = name;
	r->track = t;
	r->detail = detail;
	r->kind = (uint8_t)ev->kind;
	r->pad = 0; /* every byte written: a staged element is not zeroed */
	if (ev->launch && ev->launch->graph_id)
		r->flags |= TIX_ROW_GRAPH_REPLAY;
	c->tracks[t].count++;
	if (tix_kind_is_gpu(ev->kind))
		c->tracks[t].gpu_count++;
	c->kind_counts[ev->kind]++;
	return 0;
oom:
	return tix_error_oom(err, c->source_path);
}

static int collect_flow(struct collector *c, const struct tix_flow_in *fl, struct tix_error *err)
{
	if (!fl->is_ac2g)
		return 0; /* only launch flows link anything tix shows */
	if (fl->ts_ns < TIX_TIME_MIN || fl->ts_ns > TIX_TIME_MAX)
		return 0;
	struct btrack_key k;
	if (key_of(c, &fl->pid, &fl->tid, &k) != 0)
		return tix_error_oom(err, c->source_path);
	uint32_t t = track_of(c, &k);
	if (t == TIX_NONE)
		return tix_error_env(err, "%s: too many tracks", c->source_path);
	struct bflow *f = spill_push(&c->flows, 1, err);
	if (!f)
		return -1;
	memset(f, 0, sizeof(*f));
	f->ts_ns = fl->ts_ns;
	f->id = fl->id;
	f->track = t;
	f->is_start = (uint8_t)(fl->is_start != 0);
	f->is_ac2g = 1;
	return 0;
}

static int push_meta(struct collector *c, const struct bmeta *m)
{
	if (tix_grow(&c->metas, &c->metas_cap, (size_t)c->nmetas + 1, sizeof(*c->metas), 64) != 0)
		return -1;
	c->metas[c->nmetas++] = *m;
	return 0;
}

static int collect_track_meta(struct collector *c, const struct tix_id *pid, const struct tix_id *tid,
                              enum tix_meta_key key, const char *value, size_t len,
                              struct tix_error *err)
{
	struct bmeta m;
	int process = key == TIX_META_PROCESS_NAME || key == TIX_META_PROCESS_SORT;
	if (key_of(c, pid, process ? NULL : tid, &m.key) != 0)
		goto oom;
	m.kind = key;
	m.value = intern_add(&c->strings, value, len);
	if (m.value == TIX_NONE || push_meta(c, &m) != 0)
		goto oom;
	return 0;
oom:
	return tix_error_oom(err, c->source_path);
}

static int push_top_meta(struct collector *c, uint32_t k, uint32_t v)
{
	/* pairs: an element is a key and a value */
	if (tix_grow(&c->top_meta, &c->top_meta_cap, c->ntop_meta + 1, 2 * sizeof(*c->top_meta), 16) != 0)
		return -1;
	c->top_meta[2 * c->ntop_meta] = k;
	c->top_meta[2 * c->ntop_meta + 1] = v;
	c->ntop_meta++;
	return 0;
}

static int collect_meta(struct collector *c, struct tix_str key, struct tix_str json,
                        struct tix_error *err)
{
	uint32_t k = str_id(c, key), v = str_id(c, json);
	if (k == TIX_NONE || v == TIX_NONE || push_top_meta(c, k, v) != 0)
		return tix_error_oom(err, c->source_path);
	return 0;
}

static int collect_warn(struct collector *c, const char *msg, size_t n, struct tix_error *err)
{
	char *w = realloc(c->warnings, c->warnings_len + n + 3);
	if (!w)
		return tix_error_oom(err, c->source_path);
	if (c->warnings_len) {
		memcpy(w + c->warnings_len, "; ", 2);
		c->warnings_len += 2;
	}
	memcpy(w + c->warnings_len, msg, n);
	c->warnings_len += n;
	w[c->warnings_len] = '\0';
	c->warnings = w;
	return 0;
}

/* Folds collector x's dictionaries into c: its strings and records are
 * re-interned, its tracks matched by key; *smap_out, *dmap_out and
 * *tmap_out receive x's string, detail and track numbers in c.  x's rows
 * and flows are not copied (fresh pages cost ~0.3 GB/s here): the linker
 * reads them through the maps.  Costs a pass over x's distinct values. */
static int collector_merge(struct collector *c, struct collector *x, uint32_t **smap_out,
                           uint32_t **dmap_out, uint32_t **tmap_out, struct tix_error *err)
{
	/* Capture chains come from one producer thread (the journal reader). */
	if (x->captures.nchains)
		return tix_error_set(err, "%s: internal: capture chains given to the second sink",
		                     c->source_path);
	uint32_t *smap = malloc(((size_t)x->strings.n + 1) * sizeof(*smap));
	uint32_t *dmap = malloc(((size_t)x->details.n + 1) * sizeof(*dmap));
	uint32_t *kmap = malloc(((size_t)x->kinfos.n + 1) * sizeof(*kmap));
	uint32_t *omap = malloc(((size_t)x->opinfos.n + 1) * sizeof(*omap));
	uint32_t *tmap = malloc(((size_t)x->ntracks + 1) * sizeof(*tmap));
	int rc = -1;
	if (!smap || !dmap || !kmap || !omap || !tmap)
		goto oom;
#define S(id) ((id) == TIX_NONE ? TIX_NONE : smap[id])
	for (uint32_t i = 0; i < x->strings.n; i++)
		if ((smap[i] = intern_add(&c->strings, intern_str(&x->strings, i),
		                          intern_len(&x->strings, i))) == TIX_NONE)
			goto oom;
	for (uint32_t i = 0; i < x->kinfos.n; i++)
		if ((kmap[i] = dedup_add(&c->kinfos, x->kinfos.recs + (size_t)i * x->kinfos.elem)) == TIX_NONE)
			goto oom;
	for (uint32_t i = 0; i < x->opinfos.n; i++) {
		struct tix_op_info o = ((struct tix_op_info *)x->opinfos.recs)[i];
		o.dims = S(o.dims);
		o.types = S(o.types);
		o.strides = S(o.strides);
		o.concrete = S(o.concrete);
		if ((omap[i] = dedup_add(&c->opinfos, &o)) == TIX_NONE)
			goto oom;
	}
	for (uint32_t i = 0; i < x->details.n; i++) {
		struct tix_detail_disk d = ((struct tix_detail_disk *)x->details.recs)[i];
		d.cat = S(d.cat);
		d.args = S(d.args);
		d.kernel_info = d.kernel_info == TIX_NONE ? TIX_NONE : kmap[d.kernel_info];
		d.op_info = d.op_info == TIX_NONE ? TIX_NONE : omap[d.op_info];
		if ((dmap[i] = dedup_add(&c->details, &d)) == TIX_NONE)
			goto oom;
	}
	for (uint32_t i = 0; i < x->ntracks; i++) {
		struct btrack_key k = x->tracks[i].key;
		k.pid_str = S(k.pid_str);
		k.tid_str = S(k.tid_str);
		uint32_t t = track_of(c, &k);
		if (t == TIX_NONE)
			goto oom;
		struct btrack *ct = &c->tracks[t], *xt = &x->tracks[i];
		ct->count += xt->count;
		ct->gpu_count += xt->gpu_count;
		if (xt->device >= 0)
			ct->device = xt->device;
		if (xt->stream >= 0)
			ct->stream = xt->stream;
		tmap[i] = t;
	}
	for (size_t i = 0; i < x->nmetas; i++) {
		struct bmeta m = x->metas[i];
		m.key.pid_str = S(m.key.pid_str);
		m.key.tid_str = S(m.key.tid_str);
		m.value = S(m.value);
		if (push_meta(c, &m) != 0)
			goto oom;
	}
	for (size_t i = 0; i < x->ntop_meta; i++)
		if (push_top_meta(c, S(x->top_meta[2 * i]), S(x->top_meta[2 * i + 1])) != 0)
			goto oom;
#undef S
	for (int k = 0; k < 16; k++)
		c->kind_counts[k] += x->kind_counts[k];
	c->out_of_range += x->out_of_range;
	c->cut_at_range += x->cut_at_range;
	c->open_ends += x->open_ends;
	if (x->warnings_len && collect_warn(c, x->warnings, x->warnings_len, err) != 0)
		goto out;
	if (x->has_base_time && !c->has_base_time) {
		c->has_base_time = 1;
		c->base_time_ns = x->base_time_ns;
	}
	*smap_out = smap;
	*dmap_out = dmap;
	*tmap_out = tmap;
	smap = dmap = tmap = NULL;
	rc = 0;
	goto out;
oom:
	tix_error_oom(err, c->source_path);
out:
	free(smap);
	free(dmap);
	free(kmap);
	free(omap);
	free(tmap);
	return rc;
}

int builder_merge_flows(struct tix_builder *b, struct tix_error *err)
{
	struct collector *x = b->extra;
	if (!x || !x->flows.n)
		return 0;
	struct bflow *dst = spill_push(&b->c.flows, x->flows.n, err);
	if (!dst)
		return -1;
	for (size_t i = 0; i < x->flows.n; i++) {
		struct bflow f = SPILL_AT(&x->flows, struct bflow, i);
		f.track = b->xmap_track[f.track];
		dst[i] = f;
	}
	x->flows.n = 0;
	return 0;
}

/* ---- the builder ---- */

struct tix_builder *tix_builder_new(const char *out_path, const struct tix_build_opts *opts,
                                    struct tix_error *err)
{
	struct tix_builder *b = calloc(1, sizeof(*b));
	if (!b) {
		tix_error_oom(err, out_path);
		return NULL;
	}
	b->out_fd = -1;
	b->c.rows.fd = b->c.flows.fd = -1;
	if (opts)
		b->opts = *opts;
	b->out_path = strdup(out_path);
	b->source_path = strdup(opts && opts->source_path ? opts->source_path : "");
	b->step_marker = strdup(opts && opts->step_marker ? opts->step_marker : "");
	b->base_time_ns = opts ? opts->base_time_ns : 0;
	if (!b->out_path || !b->source_path || !b->step_marker) {
		tix_error_oom(err, out_path);
		tix_builder_abort(b);
		return NULL;
	}
	/* The index file through index/outfile.c: an unnamed temporary in the
	 * folder, named and renamed at the end; never over the trace itself. */
	struct tix_file_id source = {b->opts.source_dev, b->opts.source_ino};
	struct tix_out_opts oo = {.follow = b->opts.out_given, .index = 1, .from_mode = b->opts.source_mode,
	                          .inputs = &source, .ninputs = b->opts.source_ino ? 1 : 0};
	if (tix_outfile_open(&b->out, out_path, &oo, err) != 0) {
		tix_builder_abort(b);
		return NULL;
	}
	b->opened = 1;
	b->out_fd = b->out.fd;
	if (!(b->dir = strdup(b->out.dir))) {
		tix_error_oom(err, out_path);
		tix_builder_abort(b);
		return NULL;
	}
	temp_budget_init(&b->budget, b->dir, b->opts.max_temp, b->opts.no_fallocate);
	if (collector_init(&b->c, b->dir, &b->budget, b->source_path, b->out_path, err) != 0) {
		tix_builder_abort(b);
		return NULL;
	}
	return b;
}

void tix_builder_abort(struct tix_builder *b)
{
	if (!b)
		return;
	for (int i = 0; i < 2; i++)
		spill_reap_join(&b->reapers[i]);
	builder_warm_done(b);
	if (b->opened)
		tix_outfile_abort(&b->out);
	collector_done(&b->c);
	if (b->extra) {
		collector_done(b->extra);
		free(b->extra);
	}
	free(b->xmap_str);
	free(b->xmap_detail);
	free(b->xmap_track);
	free(b->out_path);
	free(b->dir);
	free(b->source_path);
	free(b->step_marker);
	free(b);
}

int tix_builder_add_event(struct tix_builder *b, const struct tix_event_in *ev,
                          struct tix_error *err)
{
	return collect_event(&b->c, ev, err);
}

int tix_builder_add_flow(struct tix_builder *b, const struct tix_flow_in *fl,
                         struct tix_error *err)
{
	return collect_flow(&b->c, fl, err);
}

int tix_builder_set_track_meta(struct tix_builder *b, const struct tix_id *pid,
                               const struct tix_id *tid, enum tix_meta_key key,
                               const char *value, size_t len, struct tix_error *err)
{
	return collect_track_meta(&b->c, pid, tid, key, value, len, err);
}

int tix_builder_set_meta(struct tix_builder *b, struct tix_str key, struct tix_str json,
                         struct tix_error *err)
{
	return collect_meta(&b->c, key, json, err);
}

void tix_builder_set_base_time(struct tix_builder *b, int64_t base_ns)
{
	b->c.has_base_time = 1;
	b->c.base_time_ns = base_ns;
}

int tix_builder_warn(struct tix_builder *b, const char *msg, struct tix_error *err)
{
	return collect_warn(&b->c, msg, strlen(msg), err);
}

/* What the ingest boundary (collect_event) changed, said once. */
static int warn_times(struct collector *c, struct tix_error *err)
{
	char msg[300];
	if (c->out_of_range) {
		snprintf(msg, sizeof(msg), "%llu events skipped: they start more than 146 years from the "
		         "trace's zero (outside the int64 nanosecond range tix keeps)",
		         (unsigned long long)c->out_of_range);
		if (collect_warn(c, msg, strlen(msg), err) != 0)
			return -1;
	}
	if (c->cut_at_range) {
		snprintf(msg, sizeof(msg), "%llu events cut short where the time range ends (%lld ns)",
		         (unsigned long long)c->cut_at_range, (long long)TIX_TIME_MAX);
		if (collect_warn(c, msg, strlen(msg), err) != 0)
			return -1;
	}
	if (c->open_ends) {
		snprintf(msg, sizeof(msg), "%llu events have no known end (a negative duration, a \"B\" with no "
		         "\"E\"): kept with zero duration; a step marker among them lasts until the next step",
		         (unsigned long long)c->open_ends);
		if (collect_warn(c, msg, strlen(msg), err) != 0)
			return -1;
	}
	return 0;
}

int builder_merge(struct tix_builder *b, struct tix_error *err)
{
	/* the collectors' rows and flows are read from here on */
	struct collector *c[2] = {&b->c, b->extra};
	for (int k = 0; k < 2; k++)
		if (c[k] && (spill_seal(&c[k]->rows, err) != 0 || spill_seal(&c[k]->flows, err) != 0))
			return -1;
	int rc = 0;
	if (b->extra)
		rc = collector_merge(&b->c, b->extra, &b->xmap_str, &b->xmap_detail, &b->xmap_track, err);
	if (rc == 0)
		rc = warn_times(&b->c, err);
	if (b->c.has_base_time)
		b->base_time_ns = b->c.base_time_ns;
	return rc;
}

int builder_commit(struct tix_builder *b, struct tix_error *err)
{
	b->opened = 0; /* the door closes, names and renames it (or removes it) */
	int rc = tix_outfile_commit(&b->out, err);
	b->out_fd = -1;
	return rc;
}

/* ---- the sink view ---- */

static int sink_event(void *ctx, const struct tix_event_in *ev, struct tix_error *err)
{
	return collect_event(ctx, ev, err);
}
static int sink_flow(void *ctx, const struct tix_flow_in *fl, struct tix_error *err)
{
	return collect_flow(ctx, fl, err);
}
static int sink_track_meta(void *ctx, const struct tix_id *pid, const struct tix_id *tid,
                           enum tix_meta_key key, const char *value, size_t len,
                           struct tix_error *err)
{
	return collect_track_meta(ctx, pid, tid, key, value, len, err);
}
static int sink_meta(void *ctx, struct tix_str key, struct tix_str json, struct tix_error *err)
{
	return collect_meta(ctx, key, json, err);
}
static void sink_base_time(void *ctx, int64_t base_ns)
{
	struct collector *c = ctx;
	c->has_base_time = 1;
	c->base_time_ns = base_ns;
}
static int sink_warn(void *ctx, const char *msg, struct tix_error *err)
{
	return collect_warn(ctx, msg, strlen(msg), err);
}
static void sink_discard(void *ctx)
{
	struct collector *c = ctx;
	const char *dir = c->dir, *path = c->source_path, *out = c->out_path;
	struct temp_budget *tb = c->budget;
	struct tix_error ignored;
	collector_done(c);
	collector_init(c, dir, tb, path, out, &ignored);
}

static void sink_idle(void *ctx, const int *stop)
{
	struct collector *c = ctx;
	if (c->owner)
		builder_warm_rows(c->owner, stop);
}

static void fill_sink(struct collector *c, struct tix_sink *sink)
{
	sink->ctx = c;
	sink->event = sink_event;
	sink->flow = sink_flow;
	sink->track_meta = sink_track_meta;
	sink->meta = sink_meta;
	sink->base_time = sink_base_time;
	sink->warn = sink_warn;
	sink->discard = sink_discard;
}

void tix_builder_sink(struct tix_builder *b, struct tix_sink *sink)
{
	fill_sink(&b->c, sink);
}

int tix_builder_sink_extra(struct tix_builder *b, struct tix_sink *sink, struct tix_error *err)
{
	if (!b->extra) {
		b->extra = malloc(sizeof(*b->extra));
		if (!b->extra)
			return tix_error_oom(err, b->source_path);
		if (collector_init(b->extra, b->dir, &b->budget, b->source_path, b->out_path, err) != 0) {
			collector_done(b->extra);
			free(b->extra);
			b->extra = NULL;
			return -1;
		}
	}
	fill_sink(b->extra, sink);
	b->extra->owner = b;
	sink->idle = sink_idle;
	return 0;
}
