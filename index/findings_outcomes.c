/* After a fix: what NEW saved of each of BASE's findings (tix diff's
 * findings section, the compare view's findings), each outcome measured
 * the way its rule measured the finding (docs/FINDINGS.md, section 8). */
#include "index/findings.h"
#include "index/findings_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/rules.h"

/* Whether two JSON texts are the same value written alike but for white
 * space outside strings (NULL is no text). */
static int json_same(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	int in_str = 0; /* both texts are at the same place of the same value */
	for (;;) {
		if (!in_str) {
			while (*a == ' ' || *a == '\n' || *a == '\t' || *a == '\r')
				a++;
			while (*b == ' ' || *b == '\n' || *b == '\t' || *b == '\r')
				b++;
		}
		if (*a != *b)
			return 0;
		if (!*a)
			return 1;
		if (in_str && *a == '\\') { /* an escape: its next character too */
			a++, b++;
			if (*a != *b || !*a)
				return 0;
		} else if (*a == '"') {
			in_str = !in_str;
		}
		a++, b++;
	}
}

static const char *info_text(const struct tix_index *ix, const struct tix_op_shape *o, int which)
{
	const struct tix_op_info *oi = tix_op_info_get(ix, o->op_info);
	uint32_t id = !oi ? TIX_NONE : which == 0 ? oi->dims : which == 1 ? oi->types : oi->concrete;
	return id == TIX_NONE ? NULL : tix_str(ix, id);
}

/* NEW's per-step GPU time of BASE's op-shape group `shape`: the group of
 * the same op, Input Dims, type and Concrete Inputs when NEW has it, else
 * every group of the same op and Input type whose largest kernel has the
 * same name (a fix usually changes the shape: that is the fix). */
static int64_t shape_outcome(const struct tix_index *base, uint32_t shape, const struct tix_index *nw,
                             uint32_t step, char *how, size_t cap)
{
	const struct tix_op_shape *b = tix_op_shape_get(base, shape);
	if (!b)
		return -1;
	const char *name = tix_str(base, b->name);
	uint32_t gc;
	const struct tix_op_group *bg = tix_op_shape_groups(base, shape, &gc);
	const char *kernel = gc ? tix_str(base, tix_group_get(base, bg[0].group)->name) : NULL;
	int64_t exact = -1, alike = 0;
	uint32_t nalike = 0;
	for (uint32_t i = 0; i < tix_op_shape_count(nw); i++) {
		const struct tix_op_shape *o = tix_op_shape_get(nw, i);
		if (strcmp(tix_str(nw, o->name), name) || !json_same(info_text(nw, o, 1), info_text(base, b, 1)))
			continue;
		double calls;
		int64_t ns;
		findings_shape_per_step(nw, i, step, &calls, &ns);
		if (json_same(info_text(nw, o, 0), info_text(base, b, 0)) &&
		    json_same(info_text(nw, o, 2), info_text(base, b, 2))) {
			exact = ns;
			break;
		}
		uint32_t ngc;
		const struct tix_op_group *ng = tix_op_shape_groups(nw, i, &ngc);
		if (kernel && ngc && strcmp(tix_str(nw, tix_group_get(nw, ng[0].group)->name), kernel))
			continue;
		alike = tix_sat_add(alike, ns);
		nalike++;
	}
	if (exact >= 0) {
		findings_put_text(how, cap, "the same op and shape");
		return exact;
	}
	if (nalike) {
		findings_put_text(how, cap, "%s of the same dtypes and kernel, its shape changed (%u shape%s in NEW)", name,
		         nalike, nalike == 1 ? "" : "s");
		return alike;
	}
	findings_put_text(how, cap, "NEW has no %s of these dtypes and kernel", name);
	return 0; /* gone: all of it saved */
}

void tix_findings_outcomes(const struct tix_index *base, const struct tix_findings *fb,
                           const struct tix_index *nw, const struct tix_findings_opts *o,
                           struct tix_finding_outcome *out)
{
	struct tix_step_basis nb;
	struct tix_breakdown nbd;
	findings_step_basis(nw, o->step, &nb, &nbd);
	for (uint32_t i = 0; i < fb->n; i++) {
		const struct tix_finding *f = &fb->items[i];
		struct tix_finding_outcome *r = &out[i];
		memset(r, 0, sizeof(*r));
		r->base_ns = f->gpu_ns;
		r->new_ns = -1;
		switch (f->rule) {
		case TIX_RULE_MEMORY_BOUND:
		case TIX_RULE_REPEATED_COPY:
		case TIX_RULE_COMPUTE_LOW:
			r->new_ns = shape_outcome(base, f->shape, nw, o->step, r->matched, sizeof r->matched);
			break;
		case TIX_RULE_IDLE_HOST:
			r->new_ns = nbd.idle_host_ns;
			findings_put_text(r->matched, sizeof r->matched, "host-wait idle");
			break;
		case TIX_RULE_IDLE_KERNEL:
			r->new_ns = nbd.idle_kernel_ns;
			findings_put_text(r->matched, sizeof r->matched, "kernel-wait idle");
			break;
		case TIX_RULE_LAUNCH_BOUND:
			r->new_ns = nbd.launch_bound_idle_ns;
			findings_put_text(r->matched, sizeof r->matched, "idle in launch-bound stretches");
			break;
		case TIX_RULE_SYNC:
			r->new_ns = nbd.idle_sync_ns;
			findings_put_text(r->matched, sizeof r->matched, "sync-covered idle");
			break;
		case TIX_RULE_EXPOSED_COMM:
			r->new_ns = nbd.comm_ns;
			findings_put_text(r->matched, sizeof r->matched, "exposed communication");
			break;
		case TIX_RULE_CPU_BOUND:
			r->new_ns = nb.wall_ns > nb.busy_ns ? nb.wall_ns - nb.busy_ns : 0;
			findings_put_text(r->matched, sizeof r->matched, "wall time minus GPU busy time");
			break;
		default:
			findings_put_text(r->matched, sizeof r->matched, "not compared (a rank set's finding)");
			break;
		}
		if (r->new_ns >= 0)
			r->saved_ns = r->base_ns - r->new_ns;
	}
}
