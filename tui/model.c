#include "tui/model.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/index.h"
#include "index/view/view.h"

char *fmt_dur(int64_t ns, char *out, size_t cap)
{
	return tix_fmt_dur_unit(ns, TIX_TU_AUTO, out, cap); /* "-" when unknown (< 0) */
}

/* One definition of each, shared with the CLI (index/traffic.c). */
char *fmt_count(uint64_t n, char *out, size_t cap)
{
	return tix_fmt_count(n, out, cap);
}

char *fmt_bytes(double bytes, char *out, size_t cap)
{
	return tix_fmt_scaled(bytes, "B", out, cap);
}

char *fmt_rate(double bytes_per_s, char *out, size_t cap)
{
	return tix_fmt_scaled(bytes_per_s, "B/s", out, cap);
}

char *fmt_pct(int64_t part, int64_t whole, char *out, size_t cap)
{
	return tix_fmt_pct(part, whole, out, cap);
}

char *fmt_id(int32_t v, char *out, size_t cap)
{
	if (v < 0)
		snprintf(out, cap, "-");
	else
		snprintf(out, cap, "%d", v);
	return out;
}

char *fmt_dim3(const int32_t v[3], char *out, size_t cap)
{
	if (v[0] <= 0 && v[1] <= 0 && v[2] <= 0)
		snprintf(out, cap, "-");
	else
		snprintf(out, cap, "[%d, %d, %d]", v[0], v[1], v[2]);
	return out;
}

char *fmt_dim3_compact(const int32_t v[3], char *out, size_t cap)
{
	if (v[0] <= 0 && v[1] <= 0 && v[2] <= 0)
		snprintf(out, cap, "-");
	else
		snprintf(out, cap, "[%d,%d,%d]", v[0], v[1], v[2]);
	return out;
}

char *regex_escape(const char *s, char *out, size_t cap)
{
	size_t j = 0;
	if (cap == 0)
		return out;
	for (; *s && j + 2 < cap; s++) {
		if (strchr(".[]()*+?{}|^$\\", *s))
			out[j++] = '\\';
		out[j++] = *s;
	}
	out[j] = 0;
	return out;
}
