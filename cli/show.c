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

/* The CPU events containing a launch call (index/rules.h), outermost
 * first.  *out is malloc'd; returns how many. */
static uint32_t parent_chain(struct tix_index *ix, uint32_t launch, uint32_t **out)
{
	long n = tix_event_ancestors_all(ix, launch, out);
	if (n < 0)
		return 0;
	uint32_t *a = *out;
	for (long i = 0; i < n / 2; i++) {
		uint32_t t = a[i];
		a[i] = a[n - 1 - i];
		a[n - 1 - i] = t;
	}
	return (uint32_t)n;
}

/* A profiler value that is JSON already ("[[495552, 1, 576], []]") is
 * written as such, else as a string; the ends trimmed first (a pretty-
 * printed args object leaves a newline after its last value). */
static void json_raw_or_str(FILE *f, const char *s)
{
	while (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == '\t'))
		n--;
	if (n >= 2 && ((s[0] == '[' && s[n - 1] == ']') || (s[0] == '"' && s[n - 1] == '"')))
		fwrite(s, 1, n, f);
	else
		json_str(f, s, n);
}

static void json_int_or_null(const char *key, int64_t v)
{
	if (v < 0)
		printf(", \"%s\": null", key);
	else
		printf(", \"%s\": %" PRId64, key, v);
}

static void json_num_or_null(const char *key, double v)
{
	if (v < 0)
		printf(", \"%s\": null", key);
	else
		printf(", \"%s\": %.1f", key, v);
}

/* A thread or process id as the trace gave it: a number, or a string
 * ("25738", "Spans"). */
static void json_id(struct tix_index *ix, int64_t num, uint32_t str)
{
	if (str != TIX_NONE)
		json_str(stdout, tix_str(ix, str), tix_str_len(ix, str));
	else
		printf("%" PRId64, num);
}

static void json_op_info(struct tix_index *ix, uint32_t op_info)
{
	const struct tix_op_info *oi = tix_op_info_get(ix, op_info);
	if (!oi)
		return;
	const char *keys[4] = {"input_dims", "input_types", "input_strides", "concrete_inputs"};
	uint32_t vals[4] = {oi->dims, oi->types, oi->strides, oi->concrete};
	for (int k = 0; k < 4; k++) {
		if (vals[k] == TIX_NONE)
			continue;
		printf(", \"%s\": ", keys[k]);
		json_raw_or_str(stdout, tix_str(ix, vals[k]));
	}
}

static void json_dims(const char *key, const int32_t d[3])
{
	if (tix_dim3_known(d))
		printf(", \"%s\": [%d, %d, %d]", key, d[0], d[1], d[2]);
	else
		printf(", \"%s\": null", key);
}

static void show_json(struct tix_index *ix, uint32_t row, int idx, int64_t t0)
{
	struct tix_event e, l;
	tix_event_get(ix, row, &e);
	const struct tix_kernel_info *ki = tix_kernel_info_get(ix, e.kernel_info);
	uint32_t step = tix_event_step(ix, row);
	const struct tix_step *st = tix_step_get(ix, step);
	const struct tix_track *tr = tix_track_get(ix, e.track);
	uint32_t *chain = NULL, nchain = 0;
	if (e.launch != TIX_NONE) {
		tix_event_get(ix, e.launch, &l);
		nchain = parent_chain(ix, e.launch, &chain);
	}
	printf("%s\n  {\"row\": %u, \"step\": ", idx ? "," : "", row);
	if (st && step == tix_step_before_trace(ix))
		printf("null, \"before_trace\": true, \"step_name\": null");
	else if (st) {
		printf("%u, \"step_name\": ", step);
		json_str(stdout, tix_str(ix, st->name), tix_str_len(ix, st->name));
	} else {
		printf("null, \"step_name\": null");
	}
	printf(", \"start_ns\": %" PRId64 ", \"offset_ns\": %" PRId64 ", \"dur_ns\": %" PRId64
	       ", \"kind\": \"%s\", ",
	       e.start_ns, e.start_ns - t0, e.dur_ns, tix_kind_label(e.kind));
	uint32_t full = tix_name_full(ix, e.name), sh = tix_name_short(ix, e.name);
	printf("\"name\": ");
	json_str(stdout, tix_str(ix, full), tix_str_len(ix, full));
	if (sh != TIX_NONE) {
		printf(", \"short_name\": ");
		json_str(stdout, tix_str(ix, sh), tix_str_len(ix, sh));
	}
	if (full != e.name) {
		printf(", \"mangled_name\": ");
		json_str(stdout, tix_str(ix, e.name), tix_str_len(ix, e.name));
	}
	static const int32_t none3[3] = {0, 0, 0};
	json_dims("grid", ki ? ki->grid : none3);
	json_dims("block", ki ? ki->block : none3);
	json_int_or_null("registers", ki ? ki->registers : -1);
	json_int_or_null("shared_mem", ki ? ki->shared_mem : -1);
	json_int_or_null("device", ki ? ki->device : (tr->device >= 0 ? tr->device : -1));
	json_int_or_null("stream", tr->stream);
	json_int_or_null("bytes", ki ? ki->bytes : -1);
	printf(", \"graph_id\": ");
	if (ki && ki->graph_id)
		printf("%u", ki->graph_id);
	else
		printf("null");
	int replay = (e.flags & TIX_ROW_GRAPH_REPLAY) != 0;
	printf(", \"graph_replay\": %s", replay ? "true" : "false");

	struct tix_traffic tf;
	tix_event_traffic(ix, row, &tf);
	printf(", \"traffic\": {\"bytes\": ");
	if (tf.bytes >= 0)
		printf("%" PRId64, tf.bytes);
	else
		printf("null");
	json_num_or_null("bandwidth_Bps", tf.bandwidth_Bps);
	json_num_or_null("peak_Bps", tf.peak_Bps);
	printf(", \"basis\": ");
	if (tf.basis)
		json_str(stdout, tf.basis, strlen(tf.basis));
	else
		printf("null");
	printf(", \"over_peak\": %s}", tf.over_peak ? "true" : "false");

	struct tix_capture_view cv;
	enum tix_capture_match m = tix_event_capture(ix, row, &cv);
	if (!replay) {
		printf(", \"capture_match\": null, \"captured_under\": null, \"capture_source\": null");
	} else {
		printf(", \"capture_match\": \"%s\", \"captured_under\": ", tix_capture_match_label(m));
		if (cv.nframes) {
			printf("[");
			for (uint32_t i = 0; i < cv.nframes; i++) {
				const struct tix_capture_frame *f = &cv.frames[i];
				printf("%s{\"name\": ", i ? ", " : "");
				json_str(stdout, tix_str(ix, f->name), tix_str_len(ix, f->name));
				printf(", \"kind\": \"%s\"", tix_kind_label((enum tix_kind)f->kind));
				if (f->dims != TIX_NONE) {
					printf(", \"input_dims\": ");
					json_raw_or_str(stdout, tix_str(ix, f->dims));
				}
				if (f->types != TIX_NONE) {
					printf(", \"input_types\": ");
					json_raw_or_str(stdout, tix_str(ix, f->types));
				}
				printf("}");
			}
			printf("], \"capture_source\": ");
			json_str(stdout, tix_str(ix, cv.source), tix_str_len(ix, cv.source));
		} else {
			printf("null, \"capture_source\": null");
		}
	}

	printf(", \"launch\": ");
	if (e.launch != TIX_NONE) {
		const struct tix_track *lt = tix_track_get(ix, l.track);
		printf("{\"name\": ");
		json_str(stdout, tix_str(ix, l.name), tix_str_len(ix, l.name));
		printf(", \"pid\": ");
		json_id(ix, lt->pid, lt->pid_str);
		printf(", \"tid\": ");
		json_id(ix, lt->tid, lt->tid_str);
		printf(", \"start_ns\": %" PRId64 ", \"dur_ns\": %" PRId64 ", \"delay_ns\": %" PRId64 "}",
		       l.start_ns, l.dur_ns, e.start_ns - l.start_ns);
	} else {
		const char *why = replay ? "CUDA graph replay: no launch call recorded"
		                  : (e.flags & TIX_ROW_BEFORE_TRACE) ? "launched before the trace's CPU window"
		                                                     : "no launch call found (lost correlation or flow)";
		printf("null, \"no_launch\": ");
		json_str(stdout, why, strlen(why));
	}
	printf(", \"parents\": [");
	for (uint32_t i = 0; i < nchain; i++) {
		struct tix_event p;
		tix_event_get(ix, chain[i], &p);
		printf("%s{\"name\": ", i ? ", " : "");
		json_str(stdout, tix_str(ix, p.name), tix_str_len(ix, p.name));
		printf(", \"kind\": \"%s\", \"start_ns\": %" PRId64 ", \"dur_ns\": %" PRId64,
		       tix_kind_label(p.kind), p.start_ns, p.dur_ns);
		json_op_info(ix, p.op_info);
		printf("}");
	}
	printf("]}");
	free(chain);
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
	struct tix_summary_info si;
	tix_index_summary(ix, &si);
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
			show_json(ix, rows[i], (int)i, si.first_ns);
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
	int rc = args_parse(argc, argv, &a, ARG_STEP | ARG_KERNEL | ARG_LIMIT | ARG_FORMAT | ARG_CSV | ARG_TIMEUNIT) != 0
	                 ? EXIT_USAGE
	                 : cmd_show_run(&a);
	cli_open_opts_done(&a.open);
	return rc;
}
