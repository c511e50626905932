/* The view layer's number formatting: one definition for both faces. */
#include "index/view/view.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int tix_timeunit_parse(const char *s)
{
	static const char *const names[] = {[TIX_TU_NS] = "ns", [TIX_TU_US] = "us", [TIX_TU_MS] = "ms",
	                                    [TIX_TU_S] = "s"};
	for (int u = TIX_TU_NS; u <= TIX_TU_S; u++)
		if (s && !strcmp(s, names[u]))
			return u;
	return -1;
}

char *tix_fmt_dur_unit(int64_t ns, enum tix_timeunit unit, char *out, size_t cap)
{
	if (ns < 0)
		snprintf(out, cap, "-");
	else if (unit == TIX_TU_NS)
		snprintf(out, cap, "%" PRId64, ns);
	else if (unit == TIX_TU_US) /* one unit for the column, the header names it; */
		snprintf(out, cap, "%.3f", (double)ns / 1e3); /* to the nanosecond in any */
	else if (unit == TIX_TU_MS)
		snprintf(out, cap, "%.6f", (double)ns / 1e6);
	else if (unit == TIX_TU_S)
		snprintf(out, cap, "%.9f", (double)ns / 1e9);
	else
		tix_fmt_dur(ns, out, cap);
	return out;
}

const char *tix_col_title(const struct tix_col *c, const struct tix_view_fmt *f, char *buf, size_t cap)
{
	static const char *const unit[] = {"", "ns", "us", "ms", "s"};
	int dur = c->unit == TIX_UNIT_DUR || c->unit == TIX_UNIT_TIME || c->unit == TIX_UNIT_DDUR;
	if (!f || f->timeunit == TIX_TU_AUTO || !dur)
		return c->title;
	snprintf(buf, cap, "%s (%s)", c->title, unit[f->timeunit]);
	return buf;
}

char *tix_fmt_pct(int64_t part, int64_t whole, char *out, size_t cap)
{
	if (whole <= 0 || part < 0)
		snprintf(out, cap, "-");
	else
		snprintf(out, cap, "%.1f", 100.0 * (double)part / (double)whole);
	return out;
}

char *tix_fmt_dim3(const int32_t v[3], char *out, size_t cap)
{
	if (!tix_dim3_known(v))
		snprintf(out, cap, "-");
	else
		snprintf(out, cap, "[%d, %d, %d]", v[0], v[1], v[2]);
	return out;
}
