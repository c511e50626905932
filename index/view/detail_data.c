/*
 * The detail's item makers, and the values only JSON carries: the raw
 * numbers behind a "bytes moved" line, and the parents of a launch call with
 * their times and shapes (docs/CLI.md, "JSON: show --format json").
 */
#include "index/view/detail_int.h"
#include "index/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tix_detail_item *detail_add(struct tix_detail *d, int indent, const char *label, const char *value,
                                   enum tix_detail_role role)
{
	if (d->oom)
		return NULL;
	if (tix_grow32(&d->items, &d->cap, (size_t)d->n + 1, sizeof *d->items, 64) != 0) {
		d->oom = 1;
		return NULL;
	}
	char *v = strdup(value ? value : "");
	if (!v) {
		d->oom = 1;
		return NULL;
	}
	struct tix_detail_item *it = &d->items[d->n++];
	memset(it, 0, sizeof *it);
	it->indent = indent;
	snprintf(it->label, sizeof it->label, "%s", label ? label : "");
	it->value = v;
	it->role = value ? role : TIX_DETAIL_DATA;
	return it;
}

void raw_int(struct tix_detail_item *it, const char *key, int64_t v)
{
	if (!it)
		return;
	it->key = key;
	it->raw = v < 0 ? TIX_RAW_NULL : TIX_RAW_INT;
	it->i = v;
}

void raw_ns(struct tix_detail_item *it, const char *key, int64_t v)
{
	if (!it)
		return;
	it->key = key;
	it->raw = TIX_RAW_INT;
	it->i = v;
}

void raw_num(struct tix_detail_item *it, const char *key, double v, int decimals)
{
	if (!it)
		return;
	it->key = key;
	it->raw = v < 0 ? TIX_RAW_NULL : TIX_RAW_NUM;
	it->d = v;
	it->i = decimals;
}

void raw_bool(struct tix_detail_item *it, const char *key, int v)
{
	if (!it)
		return;
	it->key = key;
	it->raw = TIX_RAW_BOOL;
	it->i = v != 0;
}

static void raw_text(struct tix_detail_item *it, const char *key, const char *s, enum tix_detail_raw kind)
{
	if (!it)
		return;
	it->key = key;
	it->raw = s ? kind : TIX_RAW_NULL;
	if (s && !(it->s = strdup(s)))
		it->raw = TIX_RAW_NULL; /* memory ran out: the value is not known here */
}

void raw_str(struct tix_detail_item *it, const char *key, const char *s)
{
	raw_text(it, key, s, TIX_RAW_STR);
}

void raw_json(struct tix_detail_item *it, const char *key, const char *s)
{
	raw_text(it, key, s, TIX_RAW_JSON);
}

void raw_dim3(struct tix_detail_item *it, const char *key, const int32_t v[3])
{
	if (!it)
		return;
	it->key = key;
	it->raw = v && tix_dim3_known(v) ? TIX_RAW_DIM3 : TIX_RAW_NULL;
	if (it->raw == TIX_RAW_DIM3)
		memcpy(it->dim, v, sizeof it->dim);
}

void raw_open(struct tix_detail_item *it, const char *key, enum tix_detail_raw kind)
{
	if (!it)
		return;
	it->key = key;
	it->raw = kind;
}

void data_int(struct tix_detail *d, const char *key, int64_t v)
{
	raw_int(detail_add(d, 0, NULL, NULL, TIX_DETAIL_DATA), key, v);
}

void data_ns(struct tix_detail *d, const char *key, int64_t v)
{
	raw_ns(detail_add(d, 0, NULL, NULL, TIX_DETAIL_DATA), key, v);
}

void data_str(struct tix_detail *d, const char *key, const char *s)
{
	raw_str(detail_add(d, 0, NULL, NULL, TIX_DETAIL_DATA), key, s);
}

void data_open(struct tix_detail *d, const char *key, enum tix_detail_raw kind)
{
	raw_open(detail_add(d, 0, NULL, NULL, TIX_DETAIL_DATA), key, kind);
}

void data_end(struct tix_detail *d)
{
	raw_open(detail_add(d, 0, NULL, NULL, TIX_DETAIL_DATA), NULL, TIX_RAW_END);
}

void data_id(struct tix_detail *d, const char *key, const struct tix_index *ix, int64_t num, uint32_t str)
{
	if (str != TIX_NONE)
		data_str(d, key, tix_str(ix, str));
	else
		data_int(d, key, num);
}

void data_traffic(struct tix_detail *d, struct tix_detail_item *it, const struct tix_traffic *t)
{
	if (!it)
		it = detail_add(d, 0, NULL, NULL, TIX_DETAIL_DATA);
	raw_open(it, "traffic", TIX_RAW_OBJECT);
	data_int(d, "bytes", t->bytes);
	raw_num(detail_add(d, 0, NULL, NULL, TIX_DETAIL_DATA), "bandwidth_Bps", t->bandwidth_Bps, 1);
	raw_num(detail_add(d, 0, NULL, NULL, TIX_DETAIL_DATA), "peak_Bps", t->peak_Bps, 1);
	data_str(d, "basis", t->basis);
	raw_bool(detail_add(d, 0, NULL, NULL, TIX_DETAIL_DATA), "over_peak", t->over_peak);
	data_end(d);
}

void data_parents(const struct dctx *a, struct tix_detail *d, uint32_t launch)
{
	uint32_t *rows = NULL;
	long n = launch == TIX_NONE ? 0 : tix_event_ancestors_all(a->ix, launch, &rows);
	if (n < 0) {
		d->oom = 1;
		return;
	}
	data_open(d, "parents", TIX_RAW_ARRAY);
	for (long k = n - 1; k >= 0; k--) { /* outermost first */
		struct tix_event e;
		tix_event_get(a->ix, rows[k], &e);
		data_open(d, NULL, TIX_RAW_OBJECT);
		data_str(d, "name", tix_str(a->ix, e.name));
		data_str(d, "kind", tix_kind_label(e.kind));
		data_ns(d, "start_ns", e.start_ns);
		data_ns(d, "dur_ns", e.dur_ns);
		const struct tix_op_info *oi = e.op_info != TIX_NONE ? tix_op_info_get(a->ix, e.op_info) : NULL;
		static const char *const keys[4] = {"input_dims", "input_types", "input_strides", "concrete_inputs"};
		uint32_t vals[4] = {TIX_NONE, TIX_NONE, TIX_NONE, TIX_NONE};
		if (oi)
			vals[0] = oi->dims, vals[1] = oi->types, vals[2] = oi->strides, vals[3] = oi->concrete;
		for (int i = 0; i < 4; i++) /* present when the profiler recorded them */
			if (vals[i] != TIX_NONE)
				raw_json(detail_add(d, 0, NULL, NULL, TIX_DETAIL_DATA), keys[i], tix_str(a->ix, vals[i]));
		data_end(d);
	}
	data_end(d);
	free(rows);
}
