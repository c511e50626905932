/*
 * The straggler of a rank set as a finding (docs/FINDINGS.md, section 6,
 * rule f): the rank the others wait for in their collectives (the Ranks
 * view's straggler, tix_rank_straggler), and what they wait, the skew, per
 * step: what balancing that rank's work would give back to every other.
 */
#include "index/findings.h"
#include "index/view/view_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

__attribute__((format(printf, 3, 4))) static void put(char *out, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out, cap, fmt, ap);
	va_end(ap);
}

int tix_rank_straggler_finding(const struct tix_rank_set *rs, struct tix_finding *f)
{
	uint32_t nsteps = tix_rank_steps(rs), with = 0, steps = 0;
	int32_t who = tix_rank_straggler(rs, 0, nsteps, &steps, &with);
	memset(f, 0, sizeof(*f));
	f->rule = TIX_RULE_STRAGGLER;
	f->shape = f->group = f->op = f->row = f->step = TIX_NONE;
	if (who < 0 || !with)
		return 0;
	/* the skew and the wall time, per step, over the steps with a straggler */
	double skew = 0, wall = 0, spread = 0;
	uint32_t nwall = 0;
	for (uint32_t s = 0; s < nsteps; s++) {
		const struct tix_rank_step *st = tix_rank_step_get(rs, s);
		if (!st || st->straggler < 0)
			continue;
		skew += (double)st->skew_ns;
		spread += st->compute_spread_ns > 0 ? (double)st->compute_spread_ns : 0;
		for (uint32_t i = 0; i < tix_rank_count(rs); i++) {
			const struct tix_rank_fig *c = tix_rank_cell(rs, s, i);
			if (c) {
				wall += (double)c->wall_ns;
				nwall++;
			}
		}
	}
	skew /= with;
	spread /= with;
	wall = nwall ? wall / nwall : 0;
	if (wall <= 0 || skew < TIX_FIND_MIN_SHARE * wall)
		return 0;
	char a[48], b[48], c[48];
	tix_fmt_dur((int64_t)skew, a, sizeof a);
	tix_fmt_dur((int64_t)spread, b, sizeof b);
	tix_fmt_dur((int64_t)wall, c, sizeof c);
	f->gpu_ns = f->saving_ns = (int64_t)skew;
	f->share = skew / wall;
	f->share_of_wall = 1;
	put(f->title, sizeof f->title,
	    "rank %d is the straggler of %u of %u steps: the other ranks wait %s a step for it in their "
	    "collectives", who, steps, with, a);
	put(f->basis, sizeof f->basis,
	    "the skew, the most minus the least time a rank spent in collectives, %s a step (its compute "
	    "ran %s longer than the fastest rank's): balancing its work gives it back, of a %s step",
	    a, b, c);
	f->ev[f->nev++] = (struct tix_evidence){"straggler_rank", (double)who, "", ""};
	f->ev[f->nev++] = (struct tix_evidence){"straggler_steps", (double)steps, "", ""};
	f->ev[f->nev++] = (struct tix_evidence){"steps_with_a_straggler", (double)with, "", ""};
	f->ev[f->nev++] = (struct tix_evidence){"skew_ns", skew, "ns", ""};
	f->ev[f->nev++] = (struct tix_evidence){"compute_spread_ns", spread, "ns", ""};
	f->ev[f->nev++] = (struct tix_evidence){"wall_ns", wall, "ns", ""};
	return 1;
}
