/* tix diff BASE NEW: what changed between two traces of the same workload
 * (a fix, a config change), by kernel, CPU op, step or (op, Input Dims).
 *
 * Rows of the two sides are matched by their name (the full name of GPU
 * work, with its kind; an op's name; a step's position; an op's name with
 * its Input Dims), merged, and sorted by the absolute change of their time.
 * When the traces have different numbers of steps, times are compared per
 * step (each side's total divided by its step count) and the header says
 * so: a 30-step profile and a 20-step profile of the same server are then
 * comparable. */
#include "cli/cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"

/* One named quantity on both sides. */
struct drow {
	const char *name;          /* points into one of the indexes */
	const char *label;         /* its short, distinct label there (GPU work), or NULL */
	const char *kind;          /* "kernel", "memcpy", "cpu_op", "step", ... */
	const char *dims;          /* --by shape: the op's Input Dims, else NULL */
	int64_t total[2];          /* ns; -1: absent on that side */
	uint32_t count[2];         /* instances / calls / kernels */
	const struct tix_kernel_info *info[2]; /* most common launch shape, NULL */
	int64_t wall[2], busy[2];  /* --by step */
};

struct side {
	const char *path;
	struct tix_index *ix;
	uint32_t nsteps;
	int64_t wall, busy, kernel_ns;  /* summed over the real steps */
};

struct table {
	struct drow *rows;
	size_t n, cap;
};

static struct drow *table_add(struct table *t)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct drow *r = realloc(t->rows, cap * sizeof(*r));
		if (!r)
			return NULL;
		t->rows = r;
		t->cap = cap;
	}
	struct drow *r = &t->rows[t->n++];
	memset(r, 0, sizeof(*r));
	r->total[0] = r->total[1] = -1;
	return r;
}

static int cmp_key(const struct drow *a, const struct drow *b)
{
	int c = strcmp(a->name, b->name);
	if (c)
		return c;
	c = strcmp(a->kind, b->kind);
	if (c)
		return c;
	return strcmp(a->dims ? a->dims : "", b->dims ? b->dims : "");
}

static int cmp_key_q(const void *a, const void *b)
{
	return cmp_key(a, b);
}

/* Merges the rows of side 0 (a[0..na)) and side 1 (b[0..nb)), each sorted
 * by key and holding only its own side, into out. */
static int merge_sides(struct table *a, struct table *b, struct table *out)
{
	qsort(a->rows, a->n, sizeof(*a->rows), cmp_key_q);
	qsort(b->rows, b->n, sizeof(*b->rows), cmp_key_q);
	size_t i = 0, j = 0;
	while (i < a->n || j < b->n) {
		int c = i >= a->n ? 1 : j >= b->n ? -1 : cmp_key(&a->rows[i], &b->rows[j]);
		struct drow *r = table_add(out);
		if (!r)
			return -1;
		if (c <= 0) {
			*r = a->rows[i++];
			if (c == 0) {
				const struct drow *y = &b->rows[j++];
				r->total[1] = y->total[1];
				r->count[1] = y->count[1];
				r->info[1] = y->info[1];
				r->wall[1] = y->wall[1];
				r->busy[1] = y->busy[1];
			}
		} else {
			*r = b->rows[j++];
		}
	}
	return 0;
}

static double per_step(const struct side *s, int64_t v)
{
	return s->nsteps ? (double)v / s->nsteps : (double)v;
}

struct sort_ctx {
	const struct side *s;
	int normalise;
};

/* The change a row is ranked by: of its total, or of its per-step time. */
static double delta_of(const struct drow *r, const struct side *s, int normalise)
{
	double a = r->total[0] < 0 ? 0 : (normalise ? per_step(&s[0], r->total[0]) : (double)r->total[0]);
	double b = r->total[1] < 0 ? 0 : (normalise ? per_step(&s[1], r->total[1]) : (double)r->total[1]);
	return b - a;
}

static int cmp_delta(const void *x, const void *y, void *ctx)
{
	const struct sort_ctx *c = ctx;
	double a = delta_of(x, c->s, c->normalise), b = delta_of(y, c->s, c->normalise);
	a = a < 0 ? -a : a;
	b = b < 0 ? -b : b;
	if (a != b)
		return a > b ? -1 : 1;
	return cmp_key(x, y);
}

/* ---- what each --by compares ---- */

static int rows_kernels(struct side *s, int k, const struct args *a, struct table *t)
{
	struct tix_index *ix = s->ix;
	uint32_t ng;
	const struct tix_group *gs;
	if (a->has_step) {
		gs = tix_step_groups(ix, (uint32_t)a->step, &ng);
	} else {
		gs = tix_group_get(ix, 0);
		ng = tix_group_count(ix);
	}
	for (uint32_t g = 0; g < ng; g++) {
		struct drow *r = table_add(t);
		if (!r)
			return -1;
		r->name = tix_str(ix, tix_name_full(ix, gs[g].name));
		uint32_t sh = tix_name_short(ix, gs[g].name);
		r->label = sh != TIX_NONE ? tix_str(ix, sh) : NULL;
		r->kind = tix_kind_label((enum tix_kind)gs[g].kind);
		r->total[k] = gs[g].total_ns;
		r->count[k] = gs[g].instances;
		r->info[k] = gs[g].kind == TIX_KIND_KERNEL ? tix_kernel_info_get(ix, gs[g].common_info) : NULL;
	}
	return 0;
}

static int rows_ops(struct side *s, int k, struct table *t)
{
	struct tix_index *ix = s->ix;
	for (uint32_t i = 0; i < tix_op_count(ix); i++) {
		const struct tix_op *o = tix_op_get(ix, i);
		struct drow *r = table_add(t);
		if (!r)
			return -1;
		r->name = tix_str(ix, o->name);
		r->kind = "op";
		r->total[k] = o->gpu_ns;
		r->count[k] = o->calls;
	}
	return 0;
}

static int rows_steps(struct side *s, int k, struct table *t, char names[][16], uint32_t max)
{
	struct tix_index *ix = s->ix;
	for (uint32_t i = 0; i < s->nsteps && i < max; i++) {
		const struct tix_step *st = tix_step_get(ix, i);
		struct drow *r = table_add(t);
		if (!r)
			return -1;
		snprintf(names[i], 16, "%010u", i); /* matched by position */
		r->name = names[i];
		r->kind = "step";
		r->total[k] = st->gpu_ns;
		r->count[k] = st->kernels;
		r->wall[k] = st->dur_ns;
		r->busy[k] = st->gpu_busy_ns;
	}
	return 0;
}

/* (op, Input Dims): calls of each op instance with those shapes, and the GPU
 * time launched beneath them (each GPU event once per distinct pair among
 * the ancestors of its launch call, as --by op counts). */
struct shape_acc {
	uint32_t name, dims;
	uint32_t calls;
	int64_t gpu_ns;
};

static int cmp_shape(const void *x, const void *y)
{
	const struct shape_acc *a = x, *b = y;
	if (a->name != b->name)
		return a->name < b->name ? -1 : 1;
	return a->dims < b->dims ? -1 : (a->dims > b->dims);
}

static int rows_shapes(struct side *s, int k, struct table *t)
{
	struct tix_index *ix = s->ix;
	struct shape_acc *acc = NULL;
	size_t n = 0, cap = 0;
	int rc = -1;
	/* every op instance with shapes */
	for (uint32_t row = 0; row < tix_event_count(ix); row++) {
		struct tix_event e;
		tix_event_get(ix, row, &e);
		if (e.kind != TIX_KIND_CPU_OP || e.op_info == TIX_NONE)
			continue;
		const struct tix_op_info *oi = tix_op_info_get(ix, e.op_info);
		if (oi->dims == TIX_NONE)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			struct shape_acc *p = realloc(acc, cap * sizeof(*p));
			if (!p)
				goto out;
			acc = p;
		}
		acc[n++] = (struct shape_acc){e.name, oi->dims, 1, 0};
	}
	qsort(acc, n, sizeof(*acc), cmp_shape);
	size_t m = 0; /* fold equal pairs */
	for (size_t i = 0; i < n; i++) {
		if (m && acc[m - 1].name == acc[i].name && acc[m - 1].dims == acc[i].dims)
			acc[m - 1].calls++;
		else
			acc[m++] = acc[i];
	}
	/* GPU time beneath them */
	uint32_t anc[512];
	for (uint32_t g = 0; g < tix_group_count(ix); g++) {
		const struct tix_group *G = tix_group_get(ix, g);
		const uint32_t *mem = tix_members(ix, G->members_first, G->members_count);
		for (uint32_t q = 0; mem && q < G->members_count; q++) {
			struct tix_event e;
			tix_event_get(ix, mem[q], &e);
			if (e.launch == TIX_NONE)
				continue;
			uint32_t na = tix_event_ancestors(ix, e.launch, anc, 512);
			na = na < 512 ? na : 512;
			for (uint32_t x = 0; x < na; x++) {
				struct tix_event p;
				tix_event_get(ix, anc[x], &p);
				if (p.kind != TIX_KIND_CPU_OP || p.op_info == TIX_NONE)
					continue;
				const struct tix_op_info *oi = tix_op_info_get(ix, p.op_info);
				if (oi->dims == TIX_NONE)
					continue;
				int seen = 0; /* once per distinct pair above this launch */
				for (uint32_t y = 0; y < x && !seen; y++) {
					struct tix_event o;
					tix_event_get(ix, anc[y], &o);
					const struct tix_op_info *oo = tix_op_info_get(ix, o.op_info);
					seen = o.kind == TIX_KIND_CPU_OP && oo && o.name == p.name && oo->dims == oi->dims;
				}
				if (seen)
					continue;
				struct shape_acc key = {p.name, oi->dims, 0, 0};
				struct shape_acc *hit = bsearch(&key, acc, m, sizeof(*acc), cmp_shape);
				if (hit)
					hit->gpu_ns += e.dur_ns;
			}
		}
	}
	for (size_t i = 0; i < m; i++) {
		struct drow *r = table_add(t);
		if (!r)
			goto out;
		r->name = tix_str(ix, acc[i].name);
		r->dims = tix_str(ix, acc[i].dims);
		r->kind = "op";
		r->total[k] = acc[i].gpu_ns;
		r->count[k] = acc[i].calls;
	}
	rc = 0;
out:
	free(acc);
	return rc;
}

/* ---- printing ---- */

static void fmt_or_dash(char *buf, size_t cap, int64_t ns)
{
	if (ns < 0)
		snprintf(buf, cap, "-");
	else
		tix_fmt_dur(buf, cap, ns);
}

static void json_dim(const char *key, const struct tix_kernel_info *ki, int block)
{
	const int32_t *d = ki ? (block ? ki->block : ki->grid) : NULL;
	if (d && tix_dim3_known(d))
		printf(", \"%s\": [%d, %d, %d]", key, d[0], d[1], d[2]);
	else
		printf(", \"%s\": null", key);
}

static void text_dim(char *buf, size_t cap, const struct tix_kernel_info *ki, int block)
{
	const int32_t *d = ki ? (block ? ki->block : ki->grid) : NULL;
	if (d && tix_dim3_known(d))
		snprintf(buf, cap, "[%d,%d,%d]", d[0], d[1], d[2]);
	else
		snprintf(buf, cap, "-");
}

static int same_dim(const struct tix_kernel_info *a, const struct tix_kernel_info *b)
{
	return a && b && !memcmp(a->grid, b->grid, sizeof(a->grid)) &&
	       !memcmp(a->block, b->block, sizeof(a->block));
}

static const char *status_of(const struct drow *r)
{
	return r->total[0] < 0 ? "added" : r->total[1] < 0 ? "removed" : "both";
}

static void header(const struct side *s, int normalise, int json)
{
	double w[2], b[2], kn[2];
	for (int k = 0; k < 2; k++) {
		w[k] = per_step(&s[k], s[k].wall);
		b[k] = per_step(&s[k], s[k].busy);
		kn[k] = per_step(&s[k], s[k].kernel_ns);
	}
	if (json) {
		printf("\"steps_base\": %u, \"steps_new\": %u, \"per_step_normalised\": %s, "
		       "\"per_step\": {\"wall_ns_base\": %.0f, \"wall_ns_new\": %.0f, "
		       "\"gpu_busy_ns_base\": %.0f, \"gpu_busy_ns_new\": %.0f, "
		       "\"kernel_ns_base\": %.0f, \"kernel_ns_new\": %.0f}",
		       s[0].nsteps, s[1].nsteps, normalise ? "true" : "false", w[0], w[1], b[0], b[1], kn[0],
		       kn[1]);
		return;
	}
	char x[6][32];
	tix_fmt_dur(x[0], 32, (int64_t)w[0]);
	tix_fmt_dur(x[1], 32, (int64_t)w[1]);
	tix_fmt_dur(x[2], 32, (int64_t)b[0]);
	tix_fmt_dur(x[3], 32, (int64_t)b[1]);
	tix_fmt_dur(x[4], 32, (int64_t)kn[0]);
	tix_fmt_dur(x[5], 32, (int64_t)kn[1]);
	printf("base %s (%u steps)  ->  new %s (%u steps)\n", s[0].path, s[0].nsteps, s[1].path,
	       s[1].nsteps);
	printf("per step: wall %s -> %s (%+.1f%%), GPU busy %s -> %s (%+.1f%%), kernel time %s -> %s (%+.1f%%)\n",
	       x[0], x[1], w[0] > 0 ? 100.0 * (w[1] - w[0]) / w[0] : 0.0, x[2], x[3],
	       b[0] > 0 ? 100.0 * (b[1] - b[0]) / b[0] : 0.0, x[4], x[5],
	       kn[0] > 0 ? 100.0 * (kn[1] - kn[0]) / kn[0] : 0.0);
	if (normalise)
		printf("the traces have different numbers of steps: times below are per step\n");
}

static void print_rows(const struct table *t, const struct side *s, const struct args *a, int normalise,
                       uint32_t n)
{
	int json = !strcmp(a->format, "json"), csv = !strcmp(a->format, "csv");
	int by_step = !strcmp(a->by, "step"), by_kernel = !strcmp(a->by, "kernel");
	if (csv)
		printf("status,kind,name,dims,instances_base,instances_new,instances_delta,total_ns_base,"
		       "total_ns_new,total_ns_delta,per_step_ns_base,per_step_ns_new,ratio,grid_base,grid_new,"
		       "block_base,block_new\n");
	else if (!json)
		printf("%-8s %9s %9s %7s  %10s %10s %11s %7s  %s\n", "", "Base", "New", "Δ", "Base time",
		       "New time", "Δ time", "Ratio", by_step ? "Step" : "Name");
	for (uint32_t i = 0; i < n; i++) {
		const struct drow *r = &t->rows[i];
		double ps[2];
		for (int k = 0; k < 2; k++)
			ps[k] = r->total[k] < 0 ? -1 : per_step(&s[k], r->total[k]);
		int64_t tb = r->total[0] < 0 ? 0 : r->total[0], tn = r->total[1] < 0 ? 0 : r->total[1];
		double ratio = r->total[0] > 0 && r->total[1] >= 0 ? (double)r->total[1] / (double)r->total[0] : -1;
		if (normalise && ratio >= 0 && ps[0] > 0)
			ratio = ps[1] / ps[0];
		const char *name = by_step ? NULL : r->name;
		char stepname[16];
		if (by_step)
			snprintf(stepname, sizeof(stepname), "%u", (unsigned)strtoul(r->name, NULL, 10));
		if (json) {
			printf("%s\n  {\"status\": \"%s\", \"kind\": \"%s\", ", i ? "," : "", status_of(r), r->kind);
			if (by_step)
				printf("\"step\": %s", stepname);
			else {
				printf("\"name\": ");
				json_str(stdout, name, strlen(name));
			}
			if (r->dims) {
				printf(", \"input_dims\": ");
				json_str(stdout, r->dims, strlen(r->dims));
			}
			printf(", \"instances_base\": %u, \"instances_new\": %u, \"instances_delta\": %lld",
			       r->count[0], r->count[1], (long long)r->count[1] - (long long)r->count[0]);
			printf(", \"total_ns_base\": %" PRId64 ", \"total_ns_new\": %" PRId64
			       ", \"total_ns_delta\": %" PRId64, tb, tn, tn - tb);
			printf(", \"per_step_ns_base\": %.1f, \"per_step_ns_new\": %.1f", ps[0] < 0 ? 0 : ps[0],
			       ps[1] < 0 ? 0 : ps[1]);
			if (ratio >= 0)
				printf(", \"ratio\": %.6f", ratio);
			else
				printf(", \"ratio\": null");
			if (by_kernel) {
				json_dim("grid_base", r->info[0], 0);
				json_dim("grid_new", r->info[1], 0);
				json_dim("block_base", r->info[0], 1);
				json_dim("block_new", r->info[1], 1);
			}
			if (by_step)
				printf(", \"wall_ns_base\": %" PRId64 ", \"wall_ns_new\": %" PRId64
				       ", \"gpu_busy_ns_base\": %" PRId64 ", \"gpu_busy_ns_new\": %" PRId64,
				       r->wall[0], r->wall[1], r->busy[0], r->busy[1]);
			printf("}");
			continue;
		}
		char gb[48], gn[48], bb[48], bn[48];
		text_dim(gb, sizeof(gb), r->info[0], 0);
		text_dim(gn, sizeof(gn), r->info[1], 0);
		text_dim(bb, sizeof(bb), r->info[0], 1);
		text_dim(bn, sizeof(bn), r->info[1], 1);
		if (csv) {
			printf("%s,%s,", status_of(r), r->kind);
			csv_str(stdout, by_step ? stepname : name);
			putchar(',');
			csv_str(stdout, r->dims ? r->dims : "");
			printf(",%u,%u,%lld,%" PRId64 ",%" PRId64 ",%" PRId64 ",%.1f,%.1f,", r->count[0], r->count[1],
			       (long long)r->count[1] - (long long)r->count[0], tb, tn, tn - tb,
			       ps[0] < 0 ? 0 : ps[0], ps[1] < 0 ? 0 : ps[1]);
			if (ratio >= 0)
				printf("%.6f", ratio);
			printf(",\"%s\",\"%s\",\"%s\",\"%s\"\n", gb, gn, bb, bn);
			continue;
		}
		char t0[32], t1[32], d[32], rt[16], nb[512];
		double shown0 = normalise ? ps[0] : (double)r->total[0];
		double shown1 = normalise ? ps[1] : (double)r->total[1];
		fmt_or_dash(t0, sizeof(t0), r->total[0] < 0 ? -1 : (int64_t)shown0);
		fmt_or_dash(t1, sizeof(t1), r->total[1] < 0 ? -1 : (int64_t)shown1);
		double dd = (shown1 < 0 ? 0 : shown1) - (shown0 < 0 ? 0 : shown0);
		tix_fmt_dur(d, sizeof(d), (int64_t)(dd < 0 ? -dd : dd));
		char dsigned[40];
		snprintf(dsigned, sizeof(dsigned), "%s%s", dd < 0 ? "-" : "+", d);
		if (ratio >= 0)
			snprintf(rt, sizeof(rt), "%.2fx", ratio);
		else
			snprintf(rt, sizeof(rt), "-");
		const char *label = name;
		if (!by_step && r->label) {
			label = r->label;
		} else if (!by_step) {
			tix_short_name(name, strlen(name), nb, sizeof(nb));
			label = nb;
		}
		printf("%-8s %9u %9u %+7lld  %10s %10s %11s %7s  %s%s%s%s\n", status_of(r), r->count[0],
		       r->count[1], (long long)r->count[1] - (long long)r->count[0], t0, t1, dsigned, rt,
		       by_step ? stepname : label, r->dims ? "  " : "", r->dims ? r->dims : "",
		       r->kind[0] && strcmp(r->kind, "kernel") && strcmp(r->kind, "op") && strcmp(r->kind, "step")
		               ? " [copy]" : "");
		if (by_kernel && !same_dim(r->info[0], r->info[1]) && (r->info[0] || r->info[1]))
			printf("%-8s grid %s -> %s, block %s -> %s\n", "", gb, gn, bb, bn);
	}
}

static int open_side(struct side *s, const char *path, struct args *a)
{
	struct tix_error err;
	int built;
	s->path = path;
	if (cli_open_trace(path, &a->open, &s->ix, &built, &err) != 0) {
		fprintf(stderr, "tix: %s\n", err.msg);
		a->exit_status = cli_exit_status(&err);
		return -1;
	}
	s->nsteps = tix_step_count(s->ix);
	for (uint32_t i = 0; i < s->nsteps; i++) {
		const struct tix_step *st = tix_step_get(s->ix, i);
		s->wall = tix_sat_add(s->wall, st->dur_ns);
		s->busy = tix_sat_add(s->busy, st->gpu_busy_ns);
		uint32_t ng;
		const struct tix_group *gs = tix_step_groups(s->ix, i, &ng);
		for (uint32_t g = 0; g < ng; g++)
			if (gs[g].kind == TIX_KIND_KERNEL)
				s->kernel_ns = tix_sat_add(s->kernel_ns, gs[g].total_ns);
	}
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	/* tix diff BASE NEW [options]: the two traces are the first two
	 * arguments that are neither options nor an option's value. */
	static const char *const with_value[] = {"--by", "--step", "--top", "--format",
	                                         "--step-marker", "--graph-capture", NULL};
	char *v[130];
	int n = 0, np = 0;
	const char *paths[2] = {NULL, NULL};
	if (argc > 126) {
		fprintf(stderr, "tix diff: too many arguments\n");
		return EXIT_USAGE;
	}
	v[n++] = argv[0];
	for (int i = 1; i < argc; i++) {
		int takes = 0;
		for (int k = 0; with_value[k]; k++)
			takes |= !strcmp(argv[i], with_value[k]);
		if (takes && i + 1 < argc) {
			v[n++] = argv[i++];
			v[n++] = argv[i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			v[n++] = argv[i];
		} else if (np < 2) {
			paths[np++] = argv[i];
		} else {
			v[n++] = argv[i]; /* args_parse says "unexpected argument" */
		}
	}
	int help = 0;
	for (int i = 1; i < n; i++)
		help |= !strcmp(v[i], "--help") || !strcmp(v[i], "-h");
	if (np != 2 && !help) {
		fprintf(stderr, "tix diff: which two traces? (tix diff BASE NEW)\n");
		return EXIT_USAGE;
	}
	if (np == 2) /* args_parse wants one trace: give it the base */
		v[n++] = (char *)paths[0];
	v[n] = NULL;
	struct args a;
	if (args_parse(n, v, &a, ARG_BY | ARG_STEP | ARG_TOP | ARG_FORMAT | ARG_CSV) != 0) {
		cli_open_opts_done(&a.open);
		return EXIT_USAGE;
	}
	if (a.help) {
		cli_help(stdout, "diff");
		cli_open_opts_done(&a.open);
		return EXIT_OK;
	}
	if (a.has_step && strcmp(a.by, "kernel")) {
		fprintf(stderr, "tix diff: --step goes with --by kernel\n");
		cli_open_opts_done(&a.open);
		return EXIT_USAGE;
	}
	struct side s[2];
	memset(s, 0, sizeof(s));
	int rc = EXIT_BAD_INPUT;
	struct table t[2] = {{0}}, all = {0};
	char (*names[2])[16] = {NULL, NULL};
	if (open_side(&s[0], paths[0], &a) != 0 || open_side(&s[1], paths[1], &a) != 0) {
		rc = a.exit_status;
		goto out;
	}
	if (a.has_step && ((uint32_t)a.step >= s[0].nsteps || (uint32_t)a.step >= s[1].nsteps)) {
		fprintf(stderr, "tix: no step %ld in both traces (they have %u and %u)\n", a.step, s[0].nsteps,
		        s[1].nsteps);
		goto out;
	}
	int normalise = !a.has_step && s[0].nsteps != s[1].nsteps;
	rc = EXIT_OK;
	for (int k = 0; k < 2; k++) {
		int r;
		if (!strcmp(a.by, "op")) {
			r = rows_ops(&s[k], k, &t[k]);
		} else if (!strcmp(a.by, "step")) {
			names[k] = calloc(s[k].nsteps + 1, 16);
			r = names[k] ? rows_steps(&s[k], k, &t[k], names[k], s[k].nsteps) : -1;
		} else if (!strcmp(a.by, "shape")) {
			r = rows_shapes(&s[k], k, &t[k]);
		} else {
			r = rows_kernels(&s[k], k, &a, &t[k]);
		}
		if (r != 0) {
			fprintf(stderr, "tix diff: out of memory\n");
			rc = EXIT_ENV; /* out of memory */
			goto out;
		}
	}
	if (merge_sides(&t[0], &t[1], &all) != 0) {
		fprintf(stderr, "tix diff: out of memory\n");
		rc = EXIT_ENV; /* out of memory */
		goto out;
	}
	struct sort_ctx sc = {s, normalise};
	if (strcmp(a.by, "step")) /* steps stay in order */
		qsort_r(all.rows, all.n, sizeof(*all.rows), cmp_delta, &sc);
	long top = a.top >= 0 ? a.top : (!strcmp(a.format, "text") ? 25 : (long)all.n);
	uint32_t shown = all.n < (size_t)top ? (uint32_t)all.n : (uint32_t)top;
	if (!strcmp(a.format, "json")) {
		printf("{\"base\": ");
		json_str(stdout, paths[0], strlen(paths[0]));
		printf(", \"new\": ");
		json_str(stdout, paths[1], strlen(paths[1]));
		printf(", \"by\": \"%s\", \"step\": ", a.by);
		if (a.has_step)
			printf("%ld, ", a.step);
		else
			printf("null, ");
		header(s, normalise, 1);
		printf(", \"rows\": [");
		print_rows(&all, s, &a, normalise, shown);
		printf("\n]}\n");
	} else {
		if (strcmp(a.format, "csv"))
			header(s, normalise, 0);
		print_rows(&all, s, &a, normalise, shown);
		if (shown < all.n && strcmp(a.format, "csv"))
			fprintf(stderr, "(%zu more; --top N shows more)\n", all.n - shown);
	}
out:
	for (int k = 0; k < 2; k++) {
		free(t[k].rows);
		free(names[k]);
		if (s[k].ix)
			tix_index_close(s[k].ix);
	}
	free(all.rows);
	cli_open_opts_done(&a.open);
	return rc;
}
