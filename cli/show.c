/* tix show: single launches with their grid, launch call and the CPU ops
 * above them, as the TUI's launch detail shows them. */
#include "cli/cli.h"

#include <inttypes.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"

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

/* The CPU chain above a launch call, outermost first. */
static uint32_t parent_chain(struct tix_index *ix, uint32_t launch, uint32_t *out, uint32_t cap)
{
	uint32_t n = 0;
	struct tix_event e;
	tix_event_get(ix, launch, &e);
	for (uint32_t p = e.parent; p != TIX_NONE && n < cap; p = e.parent) {
		tix_event_get(ix, p, &e);
		out[n++] = p;
	}
	for (uint32_t i = 0; i < n / 2; i++) {
		uint32_t t = out[i];
		out[i] = out[n - 1 - i];
		out[n - 1 - i] = t;
	}
	return n;
}

static void json_raw_or_str(FILE *f, const char *s)
{
	size_t n = strlen(s);
	if (n >= 2 && ((s[0] == '[' && s[n - 1] == ']') || (s[0] == '"' && s[n - 1] == '"')))
		fputs(s, f);
	else
		json_str(f, s, n);
}

static void show_one(struct tix_index *ix, uint32_t row, int idx, int json, int64_t t0)
{
	struct tix_event e;
	tix_event_get(ix, row, &e);
	const struct tix_kernel_info *ki = tix_kernel_info_get(ix, e.kernel_info);
	uint32_t step = tix_event_step(ix, row);
	const struct tix_step *st = tix_step_get(ix, step);
	const struct tix_track *tr = tix_track_get(ix, e.track);
	uint32_t chain[64], nchain = 0;
	struct tix_event l;
	if (e.launch != TIX_NONE) {
		tix_event_get(ix, e.launch, &l);
		nchain = parent_chain(ix, e.launch, chain, 64);
	}
	const char *why = e.launch != TIX_NONE ? NULL
	                  : (e.flags & TIX_ROW_GRAPH_REPLAY) ? "CUDA graph replay: no launch call recorded"
	                                                      : "no launch call found (lost correlation or flow)";
	if (json) {
		printf("%s\n  {\"row\": %u, \"step\": ", idx ? "," : "", row);
		if (st) {
			printf("%u, \"step_name\": ", step);
			json_str(stdout, tix_str(ix, st->name), tix_str_len(ix, st->name));
		} else {
			printf("null, \"step_name\": null");
		}
		printf(", \"start_ns\": %" PRId64 ", \"offset_ns\": %" PRId64 ", \"dur_ns\": %" PRId64
		       ", \"kind\": \"%s\", \"name\": ",
		       e.start_ns, e.start_ns - t0, e.dur_ns, tix_kind_label(e.kind));
		json_str(stdout, tix_str(ix, e.name), tix_str_len(ix, e.name));
		if (ki) {
			printf(", \"grid\": [%d, %d, %d], \"block\": [%d, %d, %d], \"registers\": %d"
			       ", \"shared_mem\": %d, \"device\": %d, \"stream\": %d, \"bytes\": %" PRId64,
			       ki->grid[0], ki->grid[1], ki->grid[2], ki->block[0], ki->block[1], ki->block[2],
			       ki->registers, ki->shared_mem, ki->device, tr->stream, ki->bytes);
		}
		printf(", \"graph_replay\": %s, \"launch\": ", (e.flags & TIX_ROW_GRAPH_REPLAY) ? "true" : "false");
		if (e.launch != TIX_NONE) {
			const struct tix_track *lt = tix_track_get(ix, l.track);
			printf("{\"name\": ");
			json_str(stdout, tix_str(ix, l.name), tix_str_len(ix, l.name));
			printf(", \"pid\": %" PRId64 ", \"tid\": %" PRId64 ", \"start_ns\": %" PRId64
			       ", \"dur_ns\": %" PRId64 ", \"delay_ns\": %" PRId64 "}",
			       lt->pid, lt->tid, l.start_ns, l.dur_ns, e.start_ns - l.start_ns);
		} else {
			printf("null, \"no_launch\": ");
			json_str(stdout, why, strlen(why));
		}
		printf(", \"parents\": [");
		for (uint32_t i = 0; i < nchain; i++) {
			struct tix_event p;
			tix_event_get(ix, chain[i], &p);
			const struct tix_op_info *oi = tix_op_info_get(ix, p.op_info);
			printf("%s{\"name\": ", i ? ", " : "");
			json_str(stdout, tix_str(ix, p.name), tix_str_len(ix, p.name));
			printf(", \"kind\": \"%s\"", tix_kind_label(p.kind));
			if (oi) {
				const char *keys[4] = {"input_dims", "input_types", "input_strides", "concrete_inputs"};
				uint32_t vals[4] = {oi->dims, oi->types, oi->strides, oi->concrete};
				for (int k = 0; k < 4; k++) {
					if (vals[k] == TIX_NONE)
						continue;
					printf(", \"%s\": ", keys[k]);
					json_raw_or_str(stdout, tix_str(ix, vals[k]));
				}
			}
			printf("}");
		}
		printf("]}");
		return;
	}
	char dur[32], off[32], name[200];
	tix_fmt_dur(dur, sizeof(dur), e.dur_ns);
	tix_fmt_dur(off, sizeof(off), e.start_ns - t0);
	tix_short_name(tix_str(ix, e.name), tix_str_len(ix, e.name), name, sizeof(name));
	printf("#%d  step %s%s  at +%s  %s  %s\n", idx + 1, st ? tix_str(ix, st->name) : "-",
	       "", off, dur, name);
	if (ki && e.kind == TIX_KIND_KERNEL)
		printf("    grid [%d,%d,%d]  block [%d,%d,%d]  registers %d  shared %d B  stream %d  device %d\n",
		       ki->grid[0], ki->grid[1], ki->grid[2], ki->block[0], ki->block[1], ki->block[2],
		       ki->registers, ki->shared_mem, tr->stream, ki->device);
	else if (ki)
		printf("    %" PRId64 " bytes  stream %d  device %d\n", ki->bytes, tr->stream, ki->device);
	if (e.launch == TIX_NONE) {
		printf("    %s\n", why);
		return;
	}
	const struct tix_track *lt = tix_track_get(ix, l.track);
	char ld[32], delay[32];
	tix_fmt_dur(ld, sizeof(ld), l.dur_ns);
	tix_fmt_dur(delay, sizeof(delay), e.start_ns - l.start_ns);
	printf("    launched by %s on thread %" PRId64 " (%s), %s before the kernel started%s\n",
	       tix_str(ix, l.name), lt->tid, ld, delay,
	       (e.flags & TIX_ROW_GRAPH_REPLAY) ? " [graph replay]" : "");
	for (uint32_t i = 0; i < nchain; i++) {
		struct tix_event p;
		tix_event_get(ix, chain[i], &p);
		const struct tix_op_info *oi = tix_op_info_get(ix, p.op_info);
		printf("    %*s%s", (int)(2 * i), "", tix_str(ix, p.name));
		if (oi && oi->dims != TIX_NONE)
			printf("  Input Dims %s", tix_str(ix, oi->dims));
		if (oi && oi->types != TIX_NONE)
			printf("  Input type %s", tix_str(ix, oi->types));
		putchar('\n');
	}
}

int cmd_show(int argc, char **argv)
{
	struct args a;
	if (args_parse(argc, argv, &a, ARG_STEP | ARG_KERNEL | ARG_LIMIT | ARG_FORMAT) != 0)
		return EXIT_USAGE;
	if (a.help) {
		puts("usage: tix show TRACE --kernel REGEX [--step N] [--limit N] [--format text|json]");
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
		if (regexec(&re, tix_str(ix, gs[g].name), 0, NULL, 0) == 0)
			total += gs[g].members_count;
	uint32_t *rows = malloc((total + 1) * sizeof(*rows));
	size_t n = 0;
	for (uint32_t g = 0; rows && g < ng; g++) {
		if (regexec(&re, tix_str(ix, gs[g].name), 0, NULL, 0) != 0)
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
	if (json)
		printf("{\"matched\": %zu, \"launches\": [", n);
	else if (n == 0)
		{
		char pb[200];
		printf("no GPU event matches '%s'\n", tix_printable(a.kernel, pb, sizeof(pb)));
	}
	for (size_t i = 0; i < shown; i++)
		show_one(ix, rows[i], (int)i, json, si.first_ns);
	if (json)
		printf("\n]}\n");
	else if (shown < n)
		printf("(%zu of %zu shown; --limit N shows more, 0 for all)\n", shown, n);
	free(rows);
	tix_index_close(ix);
	return EXIT_OK;
}
