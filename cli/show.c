/* tix show: single launches with their grid, launch call and the CPU ops
 * above them, as the TUI's launch detail shows them. */
#include "cli/cli.h"

#include <inttypes.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/rows.h"

static int cmp_row_start(const void *a, const void *b, void *ctx)
{
	struct tix_index *ix = ctx;
	struct tix_event x, y;
	tix_event_get(ix, *(const uint32_t *)a, &x);
	tix_event_get(ix, *(const uint32_t *)b, &y);
	if (x.start_ns != y.start_ns)
		return x.start_ns < y.start_ns ? -1 : 1;
	return x.row < y.row ? -1 : (x.row > y.row);
}

/* One launch in JSON: the Detail view's items (index/view/detail.c), each
 * under its key with its raw value. */
static int show_json(struct tix_index *ix, uint32_t row, int idx)
{
	struct tix_detail d;
	int rc = tix_detail_build(ix, row, NULL, &d);
	printf("%s\n  ", idx ? "," : "");
	detail_json(stdout, &d);
	tix_detail_done(&d);
	if (rc != 0)
		fprintf(stderr, "tix show: out of memory: launch %d cut short\n", idx);
	return rc;
}

/* One launch in text: the TUI's Detail view (index/view/detail.c), its
 * items as they are (the terminal wraps), sections without blank lines. */
static int show_text(struct tix_index *ix, uint32_t row, int idx, enum tix_timeunit tu)
{
	struct tix_detail d;
	struct tix_view_fmt f = {0, tu};
	int rc = tix_detail_build(ix, row, &f, &d);
	char pb[4096];
	for (uint32_t i = 0; i < d.n; i++) {
		const struct tix_detail_item *it = &d.items[i];
		if (it->role == TIX_DETAIL_DATA) /* for JSON only */
			continue;
		const char *v = tix_printable(it->value, pb, sizeof pb);
		if (i == 0)
			printf("%s#%d  %s\n", idx ? "\n" : "", idx, v); /* from 0, as the Launches view and CSV */
		else if (it->role == TIX_DETAIL_HEAD)
			printf("  %s\n", v);
		else if (it->label[0])
			printf("  %*s%-18s%s\n", it->indent, "", it->label, v);
		else
			printf("  %*s%s\n", it->indent, "", v);
	}
	tix_detail_done(&d);
	if (rc != 0)
		fprintf(stderr, "tix show: out of memory: launch %d cut short\n", idx + 1);
	return rc;
}

static int cmd_show_run(struct args *ap)
{
	struct args a = *ap;
	if (a.help) {
		cli_help(stdout, "show");
		return EXIT_OK;
	}
	if (!a.kernel) {
		fprintf(stderr, "tix show: --kernel REGEX is required\n");
		return EXIT_USAGE;
	}
	regex_t re;
	if (regcomp(&re, a.kernel, REG_EXTENDED | REG_NOSUB) != 0) {
		char pb[200];
		fprintf(stderr, "tix show: invalid --kernel regex '%s'\n", tix_printable(a.kernel, pb, sizeof(pb)));
		return EXIT_USAGE;
	}
	struct tix_index *ix;
	if (args_open(&a, &ix) != 0) {
		regfree(&re);
		return a.exit_status;
	}
	const struct tix_group *gs;
	uint32_t ng;
	if (a.has_step) {
		gs = tix_step_groups(ix, (uint32_t)a.step, &ng);
	} else {
		gs = tix_group_get(ix, 0);
		ng = tix_group_count(ix);
	}
	size_t total = 0;
	for (uint32_t g = 0; g < ng; g++)
		if (tix_name_matches(ix, gs[g].name, &re))
			total += gs[g].members_count;
	uint32_t *rows = malloc((total + 1) * sizeof(*rows));
	size_t n = 0;
	for (uint32_t g = 0; rows && g < ng; g++) {
		if (!tix_name_matches(ix, gs[g].name, &re))
			continue;
		const uint32_t *m = tix_members(ix, gs[g].members_first, gs[g].members_count);
		for (uint32_t k = 0; m && k < gs[g].members_count; k++)
			rows[n++] = m[k];
	}
	regfree(&re);
	qsort_r(rows, n, sizeof(*rows), cmp_row_start, ix);
	size_t shown = a.limit && (size_t)a.limit < n ? (size_t)a.limit : n;
	int json = !strcmp(a.format, "json");
	if (!strcmp(a.format, "csv")) { /* the Launches view's rows: what the TUI lists */
		struct tix_view_scope sc = tix_view_scope_all();
		sc.rows = rows;
		sc.nrows = (uint32_t)shown;
		if (a.has_step) /* Start from the step's start, as the TUI's Launches of a step */
			sc.step = (uint32_t)a.step;
		struct tix_error err;
		struct tix_view *v = rows ? tix_view_new(ix, TIX_VIEW_LAUNCHES, &sc, &err) : NULL;
		uint32_t *order, no;
		int rc = EXIT_OK;
		if (!v) {
			fprintf(stderr, "tix: %s\n", rows ? err.msg : "out of memory");
			rc = EXIT_ENV;
		} else if (rows_order(v, "show", NULL, 0, &order, &no) != 0) {
			rc = EXIT_ENV;
		} else {
			rows_csv(stdout, v, order, no);
			free(order);
		}
		if (shown < n)
			fprintf(stderr, "(%zu of %zu shown; --limit N shows more, 0 for all)\n", shown, n);
		tix_view_free(v);
		free(rows);
		tix_index_close(ix);
		return rc;
	}
	if (json)
		printf("{\"matched\": %zu, \"launches\": [", n);
	else if (n == 0)
		{
		char pb[200];
		printf("no GPU event matches '%s'\n", tix_printable(a.kernel, pb, sizeof(pb)));
	}
	for (size_t i = 0; i < shown; i++) {
		if (json)
			show_json(ix, rows[i], (int)i);
		else
			show_text(ix, rows[i], (int)i,
			          a.timeunit ? (enum tix_timeunit)tix_timeunit_parse(a.timeunit) : TIX_TU_AUTO);
	}
	if (json)
		printf("\n]}\n");
	else if (shown < n)
		fprintf(stderr, "(%zu of %zu shown; --limit N shows more, 0 for all)\n", shown, n);
	free(rows);
	tix_index_close(ix);
	return EXIT_OK;
}

int cmd_show(int argc, char **argv)
{
	struct args a;
	int rc = args_parse(argc, argv, &a) != 0
	                 ? EXIT_USAGE
	                 : cmd_show_run(&a);
	cli_open_opts_done(&a.open);
	return rc;
}
