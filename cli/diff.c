/* tix diff BASE NEW: what changed between two traces of the same workload
 * (a fix, a config change), by kernel, CPU op, step or (op, Input Dims):
 * the rows of a compare view (index/view/view.h, "two traces side by
 * side"), which the TUI's compare view draws too. */
#include "cli/cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/rows.h"

static void header(const char *const paths[2], const struct tix_view *cv, const struct tix_compare_totals *t,
                   int json)
{
	const double *w = t->per_step_wall_ns, *b = t->per_step_gpu_busy_ns, *kn = t->per_step_kernel_ns;
	if (json) {
		printf("\"steps_base\": %u, \"steps_new\": %u, \"per_step_normalised\": %s, "
		       "\"per_step\": {\"wall_ns_base\": %.0f, \"wall_ns_new\": %.0f, "
		       "\"gpu_busy_ns_base\": %.0f, \"gpu_busy_ns_new\": %.0f, "
		       "\"kernel_ns_base\": %.0f, \"kernel_ns_new\": %.0f}",
		       t->steps[0], t->steps[1], t->normalised ? "true" : "false", w[0], w[1], b[0], b[1], kn[0],
		       kn[1]);
		return;
	}
	char x[6][32], pb[2][600];
	const double *v[3] = {w, b, kn};
	for (int i = 0; i < 3; i++) {
		tix_fmt_dur((int64_t)v[i][0], x[2 * i], 32);
		tix_fmt_dur((int64_t)v[i][1], x[2 * i + 1], 32);
	}
	printf("base %s (%u step%s)  ->  new %s (%u step%s)\n", tix_printable(paths[0], pb[0], sizeof pb[0]),
	       t->steps[0], t->steps[0] == 1 ? "" : "s", tix_printable(paths[1], pb[1], sizeof pb[1]), t->steps[1],
	       t->steps[1] == 1 ? "" : "s");
	printf("per step: wall %s -> %s (%+.1f%%), GPU busy %s -> %s (%+.1f%%), kernel time %s -> %s (%+.1f%%)\n",
	       x[0], x[1], w[0] > 0 ? 100.0 * (w[1] - w[0]) / w[0] : 0.0, x[2], x[3],
	       b[0] > 0 ? 100.0 * (b[1] - b[0]) / b[0] : 0.0, x[4], x[5],
	       kn[0] > 0 ? 100.0 * (kn[1] - kn[0]) / kn[0] : 0.0);
	char note[256];
	if (*tix_compare_note(cv, note, sizeof note))
		printf("%s\n", note);
}

/* After the rows: the base's findings and what the new trace saved of
 * each (docs/FINDINGS.md, section 8), as `--by findings` prints them.
 * JSON: a "findings" key of the open object.  0, or -1 (said on stderr). */
static int findings_section(struct tix_index *ix[2], const struct tix_compare_scope *sc, int json,
                            const struct tix_view_fmt *fmt)
{
	struct tix_error err;
	struct tix_view *fv = tix_view_compare(ix[0], ix[1], TIX_VIEW_CMP_FINDINGS, sc, &err);
	if (!fv) {
		fprintf(stderr, "tix diff: findings: %s\n", err.msg);
		return -1;
	}
	uint32_t n = tix_view_rows(fv);
	uint32_t *order = malloc(((size_t)n + 1) * sizeof *order);
	if (!order) {
		tix_view_free(fv);
		fprintf(stderr, "tix diff: out of memory\n");
		return -1;
	}
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	if (json) {
		printf(", \"findings\": ");
		rows_json(stdout, fv, order, n);
	} else if (n) {
		printf("\nthe base's findings, and what the new trace saved of each (per step):\n");
		rows_text(stdout, fv, order, n, 0, fmt);
	}
	free(order);
	tix_view_free(fv);
	return 0;
}

static int open_side(struct tix_index **ix, const char *path, struct args *a)
{
	struct tix_error err;
	int built;
	if (cli_open_trace(path, &a->open, ix, &built, &err) != 0) {
		fprintf(stderr, "tix: %s\n", err.msg);
		a->exit_status = cli_exit_status(&err);
		return -1;
	}
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	/* tix diff BASE NEW [options]: the two traces are the first two
	 * arguments that are neither options nor an option's value. */
	char *v[130];
	int n = 0, np = 0;
	const char *paths[2] = {NULL, NULL};
	if (argc > 126) {
		fprintf(stderr, "tix diff: too many arguments\n");
		return EXIT_USAGE;
	}
	v[n++] = argv[0];
	for (int i = 1; i < argc; i++) {
		if (cli_opt_takes_value("diff", argv[i]) && i + 1 < argc) {
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
	if (args_parse(n, v, &a) != 0) {
		cli_open_opts_done(&a.open);
		return EXIT_USAGE;
	}
	if (a.help) {
		cli_help(stdout, "diff");
		cli_open_opts_done(&a.open);
		return EXIT_OK;
	}
	if (a.has_step && strcmp(a.by, "kernel") && strcmp(a.by, "findings")) {
		fprintf(stderr, "tix diff: --step goes with --by kernel or findings\n");
		cli_open_opts_done(&a.open);
		return EXIT_USAGE;
	}
	struct tix_index *ix[2] = {NULL, NULL};
	struct tix_view *cv = NULL;
	int rc = EXIT_BAD_INPUT;
	if (open_side(&ix[0], paths[0], &a) != 0 || open_side(&ix[1], paths[1], &a) != 0) {
		rc = a.exit_status;
		goto out;
	}
	enum tix_view_kind kind = !strcmp(a.by, "op")         ? TIX_VIEW_CMP_OPS
	                          : !strcmp(a.by, "step")     ? TIX_VIEW_CMP_STEPS
	                          : !strcmp(a.by, "shape")    ? TIX_VIEW_CMP_SHAPES
	                          : !strcmp(a.by, "findings") ? TIX_VIEW_CMP_FINDINGS
	                                                      : TIX_VIEW_CMP_KERNELS;
	struct tix_compare_scope sc = {a.has_step ? (uint32_t)a.step : TIX_NONE, {TIX_NONE, TIX_NONE}};
	struct tix_error err;
	if (!(cv = tix_view_compare(ix[0], ix[1], kind, &sc, &err))) {
		fprintf(stderr, "tix: %s\n", err.msg);
		rc = cli_exit_status(&err);
		goto out;
	}
	struct tix_compare_totals t;
	tix_compare_totals(cv, &t);
	uint32_t *order, nr;
	int json = !strcmp(a.format, "json"), csv = !strcmp(a.format, "csv");
	/* the rows come ranked by the change (steps in order); --top N ranks */
	if (rows_order(cv, "diff", a.sort, a.top, &order, &nr) != 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (a.top < 0 && !json && !csv && nr > 25)
		nr = 25;
	rc = EXIT_OK;
	uint32_t all = tix_view_rows(cv);
	if (json) {
		printf("{\"base\": ");
		json_str(stdout, paths[0], strlen(paths[0]));
		printf(", \"new\": ");
		json_str(stdout, paths[1], strlen(paths[1]));
		printf(", \"by\": \"%s\", \"step\": ", a.by);
		if (a.has_step)
			printf("%ld, ", a.step);
		else
			printf("null, ");
		header(paths, cv, &t, 1);
		printf(", \"rows\": ");
		rows_json(stdout, cv, order, nr);
		if (kind != TIX_VIEW_CMP_FINDINGS && findings_section(ix, &sc, 1, NULL) != 0)
			rc = EXIT_ENV;
		printf("}\n");
	} else if (csv) {
		rows_csv(stdout, cv, order, nr);
	} else {
		struct tix_view_fmt fmt = {0, a.timeunit ? (enum tix_timeunit)tix_timeunit_parse(a.timeunit) : TIX_TU_AUTO};
		header(paths, cv, &t, 0);
		if (kind == TIX_VIEW_CMP_FINDINGS)
			printf("the base's findings, and what the new trace saved of each (per step):\n");
		rows_text(stdout, cv, order, nr, 0, &fmt);
		if (nr < all)
			fprintf(stderr, "(%u more; --top N shows more, --top 0 all)\n", all - nr);
		if (kind != TIX_VIEW_CMP_FINDINGS && findings_section(ix, &sc, 0, &fmt) != 0)
			rc = EXIT_ENV;
	}
	free(order);
out:
	tix_view_free(cv);
	for (int k = 0; k < 2; k++)
		if (ix[k])
			tix_index_close(ix[k]);
	cli_open_opts_done(&a.open);
	return rc;
}
