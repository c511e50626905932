/* Kineto's dialect of the Chrome trace format, event by event. */
#include "parse/events.h"
#include "index/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct open_begin {
	struct tix_event_in ev;
	char *strs;           /* pid, tid, name, cat, args copies */
};

struct orphan_end {
	struct tix_id pid, tid;
	char *strs;           /* pid and tid strings */
	int64_t end_ns;
};

/* Room for one more element in a growable array (*arr, *cap). */
int event_conv_init(struct event_conv *c, const char *path, const struct tix_sink *sink)
{
	memset(c, 0, sizeof(*c));
	c->path = path;
	c->sink = sink;
	return 0;
}

void event_conv_done(struct event_conv *c)
{
	for (size_t i = 0; i < c->nopen; i++)
		free(c->open[i].strs);
	free(c->open);
	for (size_t i = 0; i < c->norphans; i++)
		free(c->orphans[i].strs);
	free(c->orphans);
	memset(c, 0, sizeof(*c));
}

int parse_us_to_ns(const char *s, size_t n, int64_t *out)
{
	/* The common case, "1712195495519689.123" or "828": up to 15 integer
	 * digits and 3 fractional ones, no sign or exponent. */
	if (n && n <= 19) {
		uint64_t v = 0;
		size_t i = 0, frac = 0;
		while (i < n && (unsigned)(s[i] - '0') <= 9)
			v = v * 10 + (unsigned)(s[i++] - '0');
		if (i && i <= 15) {
			if (i < n && s[i] == '.') {
				i++;
				while (i < n && frac < 3 && (unsigned)(s[i] - '0') <= 9) {
					v = v * 10 + (unsigned)(s[i++] - '0');
					frac++;
				}
			}
			if (i == n && (frac || s[n - 1] != '.')) {
				for (; frac < 3; frac++)
					v *= 10;
				*out = (int64_t)v;
				return 0;
			}
		}
	}
	size_t i = 0;
	int neg = 0;
	while (i < n && s[i] == ' ')
		i++;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	/* digits of the mantissa, with the position of the decimal point */
	char dig[40];
	int nd = 0, point = -1, seen = 0;
	for (; i < n; i++) {
		char ch = s[i];
		if (ch >= '0' && ch <= '9') {
			seen = 1;
			if (nd == 0 && ch == '0' && point < 0)
				continue; /* leading zeros */
			if (nd < (int)sizeof(dig))
				dig[nd++] = ch;
			else if (point < 0)
				return -1; /* far too large */
		} else if (ch == '.' && point < 0) {
			point = nd;
		} else {
			break;
		}
	}
	if (!seen)
		return -1;
	if (point < 0)
		point = nd;
	long exp = 0;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		int eneg = 0;
		if (i < n && (s[i] == '-' || s[i] == '+'))
			eneg = s[i++] == '-';
		if (i >= n || s[i] < '0' || s[i] > '9')
			return -1;
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			if (exp < 100000)
				exp = exp * 10 + (s[i] - '0');
		exp = eneg ? -exp : exp;
	}
	while (i < n && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t'))
		i++;
	if (i != n)
		return -1;
	/* value = 0.dig * 10^(point + exp); ns = value * 1000 */
	long int_digits = point + exp + 3;
	if (int_digits > 19)
		return -1;
	unsigned long long v = 0;
	for (long k = 0; k < int_digits; k++) {
		int d = k < nd && k >= 0 ? dig[k] - '0' : 0;
		if (v > (9223372036854775807ULL - (unsigned)d) / 10)
			return -1;
		v = v * 10 + (unsigned)d;
	}
	long next = int_digits; /* first digit after the nanosecond point */
	if (next >= 0 && next < nd && dig[next] >= '5')
		v++;
	else if (next < 0 && nd > 0)
		v = 0;
	if (v > 9223372036854775807ULL)
		return -1;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

static int eq(struct shim_str s, const char *lit)
{
	size_t n = strlen(lit);
	return s.ptr && s.len == n && strncasecmp(s.ptr, lit, n) == 0;
}

/* Kineto has spelled its categories several ways over the years: the
 * spellings column of TIX_KINDS (index/sink.h) knows them all. */
static enum tix_kind kind_of(const struct shim_event *ev)
{
	struct shim_str c = ev->cat;
	if (c.ptr) {
		enum tix_kind k = tix_kind_of_cat(c.ptr, c.len);
		if (k != TIX_KIND_COUNT)
			return k;
	}
	/* The legacy autograd exporter: bare array, "pid": "CPU functions". */
	if (!c.ptr && ev->pid.str.ptr && eq(ev->pid.str, "CPU functions"))
		return TIX_KIND_CPU_OP;
	return TIX_KIND_OTHER;
}

static struct tix_str ts(struct shim_str s)
{
	return (struct tix_str){s.ptr, s.ptr ? s.len : 0};
}

static void to_id(const struct shim_id *in, struct tix_id *out)
{
	out->num = in->num;
	out->str = (struct tix_str){in->str.ptr, in->str.ptr ? in->str.len : 0};
}

static int emit(struct event_conv *c, struct tix_event_in *e, struct tix_error *err)
{
	return c->sink->event(c->sink->ctx, e, err);
}

static int take_meta(struct event_conv *c, const struct shim_event *ev, struct tix_error *err)
{
	struct tix_id pid, tid;
	to_id(&ev->pid, &pid);
	to_id(&ev->tid, &tid);
	struct shim_str v;
	enum tix_meta_key key;
	if (eq(ev->name, "process_name")) {
		key = TIX_META_PROCESS_NAME;
		v = ev->meta_name;
	} else if (eq(ev->name, "thread_name")) {
		key = TIX_META_THREAD_NAME;
		v = ev->meta_name;
	} else if (eq(ev->name, "process_sort_index")) {
		key = TIX_META_PROCESS_SORT;
		v = ev->meta_sort;
	} else if (eq(ev->name, "thread_sort_index")) {
		key = TIX_META_THREAD_SORT;
		v = ev->meta_sort;
	} else {
		return 0; /* process_labels and friends */
	}
	if (!v.ptr)
		return 0;
	return c->sink->track_meta(c->sink->ctx, &pid, &tid, key, v.ptr, v.len, err);
}

static int same_track(const struct tix_event_in *a, const struct tix_id *pid, const struct tix_id *tid)
{
	if ((a->pid.str.ptr != NULL) != (pid->str.ptr != NULL) ||
	    (a->tid.str.ptr != NULL) != (tid->str.ptr != NULL))
		return 0;
	if (a->pid.str.ptr ? (a->pid.str.len != pid->str.len || memcmp(a->pid.str.ptr, pid->str.ptr, pid->str.len))
	                   : a->pid.num != pid->num)
		return 0;
	if (a->tid.str.ptr ? (a->tid.str.len != tid->str.len || memcmp(a->tid.str.ptr, tid->str.ptr, tid->str.len))
	                   : a->tid.num != tid->num)
		return 0;
	return 1;
}

/* "B": keep a copy until its "E". */
static int push_begin(struct event_conv *c, const struct tix_event_in *e, struct tix_error *err)
{
	if (tix_grow(&c->open, &c->open_cap, c->nopen + 1, sizeof(*c->open), 16) != 0)
		return tix_error_oom(err, c->path);
	struct tix_str parts[5] = {e->pid.str, e->tid.str, e->name, e->cat, e->args};
	size_t total = 0;
	for (int i = 0; i < 5; i++)
		total += parts[i].len + 1;
	char *buf = malloc(total), *w = buf;
	if (!buf)
		return tix_error_oom(err, c->path);
	struct open_begin *ob = &c->open[c->nopen++];
	ob->ev = *e;
	ob->ev.launch = NULL;
	ob->ev.op = NULL;
	ob->strs = buf;
	struct tix_str *dst[5] = {&ob->ev.pid.str, &ob->ev.tid.str, &ob->ev.name, &ob->ev.cat, &ob->ev.args};
	for (int i = 0; i < 5; i++) {
		if (!parts[i].ptr) {
			*dst[i] = (struct tix_str){NULL, 0};
			continue;
		}
		memcpy(w, parts[i].ptr, parts[i].len);
		*dst[i] = (struct tix_str){w, parts[i].len};
		w += parts[i].len + 1;
	}
	return 0;
}

static int pop_end(struct event_conv *c, const struct tix_id *pid, const struct tix_id *tid,
                   int64_t end_ns, struct tix_error *err)
{
	for (size_t i = c->nopen; i-- > 0;) {
		if (!same_track(&c->open[i].ev, pid, tid))
			continue;
		struct open_begin ob = c->open[i];
		memmove(&c->open[i], &c->open[i + 1], (c->nopen - i - 1) * sizeof(ob));
		c->nopen--;
		/* an "E" before its "B" is an end gone wrong: unknown (-1); a span
		 * past INT64_MAX is cut to it (the builder cuts it to its range) */
		ob.ev.dur_ns = end_ns < ob.ev.start_ns ? -1
		               : (uint64_t)end_ns - (uint64_t)ob.ev.start_ns > (uint64_t)INT64_MAX
		                       ? INT64_MAX
		                       : (int64_t)((uint64_t)end_ns - (uint64_t)ob.ev.start_ns);
		int rc = emit(c, &ob.ev, err);
		free(ob.strs);
		return rc;
	}
	if (c->keep_orphan_ends) { /* its "B" may be in the other half */
		if (tix_grow(&c->orphans, &c->orphans_cap, c->norphans + 1, sizeof(*c->orphans), 16) != 0)
			return tix_error_oom(err, c->path);
		size_t pl = pid->str.ptr ? pid->str.len : 0, tl = tid->str.ptr ? tid->str.len : 0;
		char *buf = malloc(pl + tl + 2);
		if (!buf)
			return tix_error_oom(err, c->path);
		struct orphan_end *o = &c->orphans[c->norphans++];
		o->pid = *pid;
		o->tid = *tid;
		o->strs = buf;
		o->end_ns = end_ns;
		if (pid->str.ptr) {
			memcpy(buf, pid->str.ptr, pl);
			o->pid.str.ptr = buf;
		}
		if (tid->str.ptr) {
			memcpy(buf + pl + 1, tid->str.ptr, tl);
			o->tid.str.ptr = buf + pl + 1;
		}
		return 0;
	}
	c->skipped++; /* an "E" with no "B" */
	return 0;
}

int event_conv_adopt(struct event_conv *c, struct event_conv *second, struct tix_error *err)
{
	for (size_t i = 0; i < second->norphans; i++) {
		struct orphan_end *o = &second->orphans[i];
		if (pop_end(c, &o->pid, &o->tid, o->end_ns, err) != 0)
			return -1;
	}
	/* Room for all first: a hand-over cut short would leave the events
	 * taken so far owned by both halves (freed twice). */
	if (tix_grow(&c->open, &c->open_cap, c->nopen + second->nopen, sizeof(*c->open), 16) != 0)
		return tix_error_oom(err, c->path);
	for (size_t i = 0; i < second->nopen; i++)
		c->open[c->nopen++] = second->open[i]; /* takes its copies */
	second->nopen = 0;
	c->events += second->events;
	c->skipped += second->skipped;
	c->unsupported += second->unsupported;
	return 0;
}

int event_conv_take(struct event_conv *c, const struct shim_event *ev, struct tix_error *err)
{
	c->events++;
	if (!ev->ph.ptr || ev->ph.len == 0) {
		c->skipped++;
		return 0;
	}
	char ph = ev->ph.ptr[0];
	if (ph == 'M')
		return take_meta(c, ev, err);
	int64_t t = 0;
	if (!ev->ts.ptr || parse_us_to_ns(ev->ts.ptr, ev->ts.len, &t) != 0) {
		c->skipped++;
		return 0;
	}
	struct tix_id pid, tid;
	to_id(&ev->pid, &pid);
	to_id(&ev->tid, &tid);
	if (ph == 's' || ph == 'f' || ph == 't') {
		if (ph == 't' || !ev->has_id)
			return 0;
		struct tix_flow_in fl = {pid, tid, t, ev->id, ph == 's', eq(ev->cat, "ac2g")};
		return c->sink->flow(c->sink->ctx, &fl, err);
	}
	if (ph == 'E')
		return pop_end(c, &pid, &tid, t, err);

	/* Every field set one by one, not a memset first: gcc 12 clears a
	 * struct this size with `rep stosq`, whose start-up cost was half of
	 * this function's time (~2% of a one-thread index; issue 23). */
	struct tix_event_in e;
	e.kind = TIX_KIND_OTHER;
	e.pid = pid;
	e.tid = tid;
	e.start_ns = t;
	e.dur_ns = 0;
	e.launch = NULL;
	e.op = NULL;
	e.captured = NULL;
	e.name = ts(ev->name);
	if (!e.name.ptr)
		e.name = (struct tix_str){"", 0};
	e.cat = ts(ev->cat);
	e.args = ts(ev->args);
	e.correlation = ev->correlation;
	switch (ph) {
	case 'X': {
		int64_t d = 0; /* negative: the end is unknown (see tix_event_in) */
		if (ev->dur.ptr && parse_us_to_ns(ev->dur.ptr, ev->dur.len, &d) != 0)
			d = 0;
		e.dur_ns = d;
		e.kind = kind_of(ev);
		break;
	}
	case 'B':
		e.kind = kind_of(ev);
		break;
	case 'i':
	case 'I':
	case 'R':
		e.kind = TIX_KIND_INSTANT;
		break;
	case 'C':
		e.kind = TIX_KIND_COUNTER;
		break;
	default:
		c->unsupported++;
		return 0;
	}
	struct tix_launch_in l;
	if (tix_kind_is_gpu_work(e.kind) || (ev->has_launch && tix_kind_is_gpu(e.kind))) {
		memset(&l, 0, sizeof(l));
		memcpy(l.grid, ev->grid, sizeof(l.grid));
		memcpy(l.block, ev->block, sizeof(l.block));
		l.registers = ev->registers;
		l.shared_mem = ev->shared_mem;
		l.dynamic_shared = -1;
		l.blocks_per_sm = ev->blocks_per_sm;
		l.warps_per_sm = ev->warps_per_sm;
		l.occupancy = ev->occupancy;
		l.device = ev->device;
		l.context = ev->context;
		l.stream = ev->stream;
		l.bytes = ev->bytes;
		l.graph_id = ev->graph_id;
		l.graph_node_id = ev->graph_node_id;
		e.launch = &l;
	}
	struct tix_op_in op;
	if (ev->dims.ptr || ev->types.ptr || ev->strides.ptr || ev->concrete.ptr) {
		op.dims = ts(ev->dims);
		op.types = ts(ev->types);
		op.strides = ts(ev->strides);
		op.concrete = ts(ev->concrete);
		e.op = &op;
	}
	if (ph == 'B')
		return push_begin(c, &e, err);
	return emit(c, &e, err);
}

int event_conv_top_key(struct event_conv *c, struct tix_str key, struct tix_str json,
                       struct tix_error *err)
{
	if (key.len == 19 && memcmp(key.ptr, "baseTimeNanoseconds", 19) == 0) {
		char buf[32];
		size_t n = json.len < sizeof(buf) - 1 ? json.len : sizeof(buf) - 1;
		memcpy(buf, json.ptr, n);
		buf[n] = '\0';
		char *end;
		long long v = strtoll(buf, &end, 10);
		if (end != buf)
			c->sink->base_time(c->sink->ctx, v);
	}
	return c->sink->meta(c->sink->ctx, key, json, err);
}

int event_conv_warn(struct event_conv *c, const char *msg, struct tix_error *err)
{
	return c->sink->warn(c->sink->ctx, msg, err);
}

int event_conv_finish(struct event_conv *c, struct tix_error *err)
{
	/* A "B" whose "E" never came: the profiler stopped inside it, its end
	 * is unknown (the builder counts these in its warning). */
	for (size_t i = 0; i < c->nopen; i++) {
		c->open[i].ev.dur_ns = -1;
		if (emit(c, &c->open[i].ev, err) != 0)
			return -1;
		free(c->open[i].strs);
	}
	c->nopen = 0;
	char msg[200];
	if (c->skipped) {
		snprintf(msg, sizeof(msg),
		         "%llu events skipped: no usable \"ph\" or \"ts\", or an \"E\" without its \"B\"",
		         (unsigned long long)c->skipped);
		if (event_conv_warn(c, msg, err) != 0)
			return -1;
	}
	return 0;
}
