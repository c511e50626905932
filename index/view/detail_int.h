/* Inside the detail of one event (detail.c, the items people read;
 * detail_data.c, the values only JSON carries): the item makers. */
#ifndef TIX_VIEW_DETAIL_INT_H
#define TIX_VIEW_DETAIL_INT_H

#include "index/view/view_int.h"

struct dctx {
	struct tix_index *ix;
	uint32_t row;
	int full_names;
	enum tix_timeunit unit;
	int64_t first_ns;
};

/* A new item, or NULL when memory ran out (d->oom is set then).  value is
 * copied; NULL makes a DATA item (JSON only). */
struct tix_detail_item *detail_add(struct tix_detail *d, int indent, const char *label, const char *value,
                                   enum tix_detail_role role);

/* The raw value of an item, under its JSON key (it may be NULL). */
void raw_int(struct tix_detail_item *it, const char *key, int64_t v);  /* v < 0: null */
void raw_ns(struct tix_detail_item *it, const char *key, int64_t v);   /* a time: any sign */
void raw_num(struct tix_detail_item *it, const char *key, double v, int decimals); /* v < 0: null */
void raw_bool(struct tix_detail_item *it, const char *key, int v);
void raw_str(struct tix_detail_item *it, const char *key, const char *s); /* NULL: null */
void raw_json(struct tix_detail_item *it, const char *key, const char *s); /* NULL: null */
void raw_dim3(struct tix_detail_item *it, const char *key, const int32_t v[3]); /* unknown: null */
void raw_open(struct tix_detail_item *it, const char *key, enum tix_detail_raw kind);

/* DATA items: a value for JSON only. */
void data_int(struct tix_detail *d, const char *key, int64_t v);
void data_ns(struct tix_detail *d, const char *key, int64_t v);
void data_str(struct tix_detail *d, const char *key, const char *s);
void data_open(struct tix_detail *d, const char *key, enum tix_detail_raw kind);
void data_end(struct tix_detail *d);

/* An id as the trace gave it: a string, or a number (a pid, a tid). */
void data_id(struct tix_detail *d, const char *key, const struct tix_index *ix, int64_t num, uint32_t str);

/* detail_data.c: what only JSON carries. */
/* "traffic": {bytes, bandwidth_Bps, peak_Bps, basis, over_peak}, under the
 * item it (the "bytes moved" line), or as a DATA item when it is NULL. */
void data_traffic(struct tix_detail *d, struct tix_detail_item *it, const struct tix_traffic *t);
/* "parents": every CPU event containing the launch call, outermost first,
 * with its times and the profiler's shapes. */
void data_parents(const struct dctx *a, struct tix_detail *d, uint32_t launch);

#endif
