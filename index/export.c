/* Export of a selection as Chrome-trace JSON (JSON Object Format), as
 * Perfetto, chrome://tracing and tix itself read it.  docs/CLI.md describes
 * what is written; the short of it: the selected events with their original
 * args, their launch calls and CPU parent chains, ac2g flows from launch to
 * GPU event, process/thread names, and the trace's own top-level keys. */
#include "index/index.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void set_bit(uint8_t *bits, uint32_t i) { bits[i >> 3] |= (uint8_t)(1u << (i & 7)); }
static int has_bit(const uint8_t *bits, uint32_t i) { return bits[i >> 3] & (1u << (i & 7)); }

static void put_ts(FILE *f, int64_t ns)
{
	/* microseconds with nanosecond digits, as recent Kineto writes them;
	 * the magnitude in unsigned arithmetic, so INT64_MIN prints too */
	uint64_t u = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	if (ns < 0)
		putc('-', f);
	fprintf(f, "%llu.%03llu", (unsigned long long)(u / 1000), (unsigned long long)(u % 1000));
}

static void put_id(FILE *f, const struct tix_index *ix, int64_t num, uint32_t str)
{
	if (str != TIX_NONE)
		tix_json_str(f, tix_str(ix, str), tix_str_len(ix, str));
	else
		fprintf(f, "%lld", (long long)num);
}

static void put_pid_tid(FILE *f, const struct tix_index *ix, const struct tix_track *t)
{
	fputs("\"pid\": ", f);
	put_id(f, ix, t->pid, t->pid_str);
	fputs(", \"tid\": ", f);
	put_id(f, ix, t->tid, t->tid_str);
}

static void put_event(FILE *f, const struct tix_index *ix, const struct tix_event *e)
{
	const struct tix_track *t = tix_track_get(ix, e->track);
	int instant = e->kind == TIX_KIND_INSTANT;
	int counter = e->kind == TIX_KIND_COUNTER;
	fprintf(f, "  {\"ph\": \"%s\", \"cat\": ", instant ? "i" : counter ? "C" : "X");
	if (e->cat != TIX_NONE)
		tix_json_str(f, tix_str(ix, e->cat), tix_str_len(ix, e->cat));
	else
		fprintf(f, "\"%s\"", tix_kind_cat(e->kind));
	fputs(", \"name\": ", f);
	tix_json_str(f, tix_str(ix, e->name), tix_str_len(ix, e->name));
	fputs(", ", f);
	put_pid_tid(f, ix, t);
	fputs(", \"ts\": ", f);
	put_ts(f, e->start_ns);
	if (!instant && !counter) {
		fputs(", \"dur\": ", f);
		put_ts(f, e->dur_ns);
	}
	/* args: the original ones, plus the correlation that ties a launch
	 * call to its GPU work (renumbered: row of the launch + 1). */
	uint32_t corr = TIX_NONE;
	if (tix_kind_is_gpu(e->kind) && e->launch != TIX_NONE)
		corr = e->launch + 1;
	else if (tix_kind_is_launch(e->kind))
		corr = e->row + 1;
	else if (tix_kind_is_gpu_work(e->kind) && (e->flags & TIX_ROW_BEFORE_TRACE))
		corr = 0; /* below every launch call's (row + 1): read back, it is before the trace again */
	const char *args = e->args != TIX_NONE ? tix_str(ix, e->args) : "{}";
	const char *body = strchr(args, '{');
	body = body ? body + 1 : "}";
	while (*body == ' ' || *body == '\n' || *body == '\t' || *body == '\r')
		body++;
	fputs(", \"args\": {", f);
	if (corr != TIX_NONE)
		fprintf(f, "\"correlation\": %u%s", corr, *body == '}' ? "" : ", ");
	fputs(body, f);
	fputs("}", f);
}

static int select_rows(const struct tix_index *ix, const struct tix_export_sel *sel,
                       uint8_t *bits, struct tix_error *err)
{
	uint32_t n = tix_event_count(ix);
	int any_filter = sel->has_step || sel->name_regex || sel->has_range || sel->rows;
	if (!any_filter) {
		memset(bits, 0xff, ((size_t)n + 7) / 8);
		return 0;
	}
	if (sel->rows) {
		for (size_t i = 0; i < sel->nrows; i++)
			if (sel->rows[i] < n)
				set_bit(bits, sel->rows[i]);
		return 0;
	}
	if (sel->has_step || sel->name_regex) {
		regex_t re;
		if (sel->name_regex && regcomp(&re, sel->name_regex, REG_EXTENDED | REG_NOSUB) != 0)
		{
			char pb[200];
			return tix_error_set(err, "invalid regular expression '%s'",
			                     tix_printable(sel->name_regex, pb, sizeof(pb)));
		}
		const struct tix_group *gs;
		uint32_t ng;
		if (sel->has_step) {
			if (sel->step >= tix_step_count(ix)) {
				if (sel->name_regex)
					regfree(&re);
				return tix_error_set(err, "no step %u (the trace has %u)", sel->step,
				                     tix_step_count(ix));
			}
			gs = tix_step_groups(ix, sel->step, &ng);
		} else {
			gs = tix_group_get(ix, 0);
			ng = tix_group_count(ix);
		}
		for (uint32_t g = 0; g < ng; g++) {
			if (sel->name_regex && !tix_name_matches(ix, gs[g].name, &re))
				continue;
			const uint32_t *m = tix_members(ix, gs[g].members_first, gs[g].members_count);
			for (uint32_t k = 0; m && k < gs[g].members_count; k++) {
				if (sel->has_range) {
					struct tix_event e;
					tix_event_get(ix, m[k], &e);
					if (e.start_ns + e.dur_ns <= sel->t0_ns || e.start_ns >= sel->t1_ns)
						continue;
				}
				set_bit(bits, m[k]);
			}
		}
		if (sel->name_regex)
			regfree(&re);
		return 0;
	}
	/* A time range alone: every event that overlaps it. */
	for (uint32_t t = 0; t < tix_track_count(ix); t++) {
		const struct tix_track *tr = tix_track_get(ix, t);
		for (uint32_t i = tr->first_row; i < tr->first_row + tr->row_count; i++) {
			struct tix_event e;
			tix_event_get(ix, i, &e);
			if (e.start_ns >= sel->t1_ns)
				break;
			if (e.start_ns + e.dur_ns > sel->t0_ns || e.start_ns >= sel->t0_ns)
				set_bit(bits, i);
		}
	}
	return 0;
}

/* Adds the launch call and the CPU events containing it (its ancestors,
 * rules.h) for every selected event: what contains a launch in time, and
 * nothing that had ended before it (no phantom previous step). */
static int close_over_parents(const struct tix_index *ix, uint8_t *bits)
{
	uint32_t n = tix_event_count(ix), cap = 256;
	uint32_t *anc = malloc(cap * sizeof(*anc));
	if (!anc)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		if (!has_bit(bits, i))
			continue;
		struct tix_event e;
		tix_event_get(ix, i, &e);
		uint32_t from = i;
		if (tix_kind_is_gpu(e.kind)) {
			if (e.launch == TIX_NONE)
				continue;
			from = e.launch;
			set_bit(bits, from);
		}
		uint32_t k = tix_event_ancestors(ix, from, anc, cap);
		if (k > cap) {
			uint32_t *p = realloc(anc, (size_t)k * sizeof(*p));
			if (!p) {
				free(anc);
				return -1;
			}
			anc = p;
			cap = k;
			tix_event_ancestors(ix, from, anc, cap);
		}
		for (uint32_t a = 0; a < k; a++)
			set_bit(bits, anc[a]);
	}
	free(anc);
	return 0;
}

long tix_export_json(const struct tix_index *ix, const struct tix_export_sel *sel,
                     const char *out_path, struct tix_error *err)
{
	uint32_t n = tix_event_count(ix);
	uint8_t *bits = calloc(((size_t)n + 7) / 8 + 1, 1);
	if (!bits)
		return tix_error_oom(err, NULL);
	if (select_rows(ix, sel, bits, err) != 0) {
		free(bits);
		return -1;
	}
	if (close_over_parents(ix, bits) != 0) {
		free(bits);
		return tix_error_oom(err, NULL);
	}

	/* index.h's output door: never over the index or the trace it came
	 * from, no more readable than the index, written through a FIFO or
	 * /dev/stdout, atomically into a file */
	struct tix_file_info self;
	tix_index_file(ix, &self);
	struct tix_source_info src;
	tix_index_source(ix, &src);
	struct tix_file_id inputs[2] = {{self.dev, self.ino}, {src.dev, src.ino}};
	struct tix_out_opts oo = {.follow = 1, .stream = 1, .from_mode = self.mode, .inputs = inputs,
	                          .ninputs = src.ino ? 2 : 1};
	struct tix_outfile out;
	if (tix_outfile_open(&out, out_path, &oo, err) != 0) {
		free(bits);
		return -1;
	}
	int fd = dup(out.fd); /* the stream's own: out.fd stays open to name the file at commit */
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		tix_error_errno(err, errno, "%s: cannot write", out_path);
		if (fd >= 0)
			close(fd);
		tix_outfile_abort(&out);
		free(bits);
		return -1;
	}
	char *buf = malloc(1 << 16); /* the stream's buffer: freed after fclose */
	if (buf)
		setvbuf(f, buf, _IOFBF, 1 << 16);

	fputs("{\n  \"schemaVersion\": 1,\n", f);
	for (uint32_t i = 0; i < tix_meta_count(ix); i++) {
		const char *k, *v;
		tix_meta_get(ix, i, &k, &v);
		if (!strcmp(k, "schemaVersion") || !strcmp(k, "baseTimeNanoseconds") ||
		    !strcmp(k, "displayTimeUnit"))
			continue;
		fputs("  ", f);
		tix_json_str(f, k, strlen(k));
		fputs(": ", f);
		/* the trace's own JSON, kept as it was: one value, or (a damaged or
		 * planted index) its text as a string, so the file stays JSON */
		if (tix_json_valid(v, strlen(v)))
			fputs(v, f);
		else
			tix_json_str(f, v, strlen(v));
		fputs(",\n", f);
	}
	struct tix_summary_info si;
	tix_index_summary(ix, &si);
	fputs("  \"traceEvents\": [\n", f);
	long written = 0;
	int first = 1;
	/* Names of the processes and threads that appear. */
	uint8_t *seen_pid = calloc(tix_track_count(ix) + 1, 1);
	for (uint32_t t = 0; t < tix_track_count(ix); t++) {
		const struct tix_track *tr = tix_track_get(ix, t);
		int used = 0;
		for (uint32_t i = tr->first_row; i < tr->first_row + tr->row_count && !used; i++)
			used = has_bit(bits, i);
		if (!used)
			continue;
		if (seen_pid && !seen_pid[t]) { /* once per process */
			for (uint32_t u = t; u < tix_track_count(ix); u++) {
				const struct tix_track *o = tix_track_get(ix, u);
				if (o->pid == tr->pid && o->pid_str == tr->pid_str)
					seen_pid[u] = 1;
			}
			fprintf(f, "%s  {\"name\": \"process_name\", \"ph\": \"M\", ", first ? "" : ",\n");
			put_pid_tid(f, ix, tr);
			fputs(", \"args\": {\"name\": ", f);
			if (tr->process_name != TIX_NONE) {
				tix_json_str(f, tix_str(ix, tr->process_name), tix_str_len(ix, tr->process_name));
			} else { /* the trace named none: what the track is */
				char nm[64];
				if (tr->kind == TIX_TRACK_GPU)
					snprintf(nm, sizeof nm, "GPU %d", tr->device);
				else if (tr->pid_str != TIX_NONE) /* "Spans", "Traces": a name already */
					snprintf(nm, sizeof nm, "%s", tix_str(ix, tr->pid_str));
				else
					snprintf(nm, sizeof nm, "process %lld", (long long)tr->pid);
				tix_json_str(f, nm, strlen(nm));
			}
			fputs("}}", f);
			first = 0;
			written++;
		}
		fprintf(f, "%s  {\"name\": \"thread_name\", \"ph\": \"M\", ", first ? "" : ",\n");
		put_pid_tid(f, ix, tr);
		fputs(", \"args\": {\"name\": ", f);
		tix_json_str(f, tix_str(ix, tr->name), tix_str_len(ix, tr->name));
		fputs("}}", f);
		first = 0;
		written++;
	}
	free(seen_pid);
	for (uint32_t i = 0; i < n; i++) {
		if (!has_bit(bits, i))
			continue;
		struct tix_event e;
		tix_event_get(ix, i, &e);
		if (!first)
			fputs(",\n", f);
		first = 0;
		put_event(f, ix, &e);
		written++;
		if (tix_kind_is_gpu_work(e.kind) && e.launch != TIX_NONE) {
			struct tix_event l;
			tix_event_get(ix, e.launch, &l);
			fputs(",\n  {\"ph\": \"s\", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"id\": ", f);
			fprintf(f, "%u, ", e.launch + 1);
			put_pid_tid(f, ix, tix_track_get(ix, l.track));
			fputs(", \"ts\": ", f);
			put_ts(f, l.start_ns);
			fputs("},\n  {\"ph\": \"f\", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"id\": ", f);
			fprintf(f, "%u, ", e.launch + 1);
			put_pid_tid(f, ix, tix_track_get(ix, e.track));
			fputs(", \"ts\": ", f);
			put_ts(f, e.start_ns);
			fputs(", \"bp\": \"e\"}", f);
			written += 2; /* the flow's start and end are traceEvents too */
		}
	}
	fputs("\n  ],\n  \"displayTimeUnit\": \"ms\"", f);
	if (si.base_time_ns)
		fprintf(f, ",\n  \"baseTimeNanoseconds\": %lld", (long long)si.base_time_ns);
	fputs("\n}\n", f);
	free(bits);
	int bad = ferror(f);
	int closed = fclose(f), e = errno;
	free(buf);
	if (closed != 0 || bad) {
		tix_error_sys(err, e, "%s: cannot write", out_path);
		tix_outfile_abort(&out);
		return -1;
	}
	if (tix_outfile_commit(&out, err) != 0)
		return -1;
	return written;
}
