/*
 * What the graph_match tests share: one call of gm_match and its result.
 */
#ifndef TIX_TESTS_GRAPH_MATCH_RUN_H
#define TIX_TESTS_GRAPH_MATCH_RUN_H

#include <stdio.h>

#include "index/build/graph_match.h"

#define MAXN 4096

/* One call's result. */
struct res {
	int rc;
	uint32_t window;
	uint32_t pos[MAXN];
	uint8_t match[MAXN];
};

static inline void run(struct gm_scratch *s, const struct gm_window *w, uint32_t nw,
                const struct gm_replay *r, struct res *out)
{
	struct tix_error err = {0};
	out->rc = gm_match(w, nw, r, &out->window, out->pos, out->match, s, &err);
	if (out->rc != 0)
		printf("      (gm_match: %s)\n", err.msg);
}

static inline void run_fresh(const struct gm_window *w, uint32_t nw, const struct gm_replay *r,
                      struct res *out)
{
	struct gm_scratch s;
	gm_scratch_init(&s, 0);
	run(&s, w, nw, r, out);
	gm_scratch_done(&s);
}

static inline uint32_t count(const struct res *x, uint32_t n, enum tix_capture_match m)
{
	uint32_t c = 0;
	for (uint32_t i = 0; i < n; i++)
		c += x->match[i] == m;
	return c;
}

#endif
