/* A view's rows on stdout: text, CSV, JSON (cli/rows.h). */
#include "cli/rows.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

struct sort_ctx {
	const struct tix_view *v;
	int col;
};

static int sort_rows(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *sc = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	int c = tix_view_cmp(sc->v, a, b, sc->col);
	return c ? c : (a > b) - (a < b); /* ties keep the view's order */
}

int rows_sort_col(enum tix_view_kind kind, const char *cmd, const char *sort)
{
	if (!sort)
		return -1;
	int col = tix_view_col_by_key(kind, sort);
	if (col >= 0)
		return col;
	int nc;
	const struct tix_col *cols = tix_view_cols(kind, &nc);
	fprintf(stderr, "tix %s: --sort takes one of:", cmd);
	for (int i = 0; i < nc; i++)
		if (cols[i].key)
			fprintf(stderr, " %s", cols[i].key);
	fputc('\n', stderr);
	return -2;
}

int rows_order(const struct tix_view *v, const char *cmd, const char *sort, long top,
               uint32_t **order, uint32_t *n)
{
	int col = rows_sort_col(tix_view_kind(v), cmd, sort);
	if (col < -1)
		return -1;
	if (sort) /* the view's own table: a compare's per-step variant has other columns */
		col = tix_view_col(v, sort);
	else if (top > 0)
		col = tix_view_rank(v);
	uint32_t first = tix_view_pinned(v), rows = tix_view_rows(v);
	uint32_t m = rows > first ? rows - first : 0;
	*order = malloc(((size_t)m + 1) * sizeof **order);
	if (!*order) {
		fprintf(stderr, "tix %s: out of memory\n", cmd);
		return -1;
	}
	for (uint32_t i = 0; i < m; i++)
		(*order)[i] = first + i;
	if (col >= 0) {
		struct sort_ctx sc = {v, col};
		qsort_r(*order, m, sizeof **order, sort_rows, &sc);
	}
	*n = top > 0 && (uint64_t)top < m ? (uint32_t)top : m;
	return 0;
}

static int shown(const struct tix_col *c)
{
	return !(c->flags & (TIX_COL_DATA | TIX_COL_BAR));
}

static int text_width(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += (*s & 0xc0) != 0x80;
	return n;
}


static void cell_out(FILE *f, const char *s, int w, int right, int last)
{
	int pad = w - text_width(s);
	if (right)
		fprintf(f, "%*s%s", pad > 0 ? pad : 0, "", s);
	else if (last)
		fputs(s, f);
	else
		fprintf(f, "%s%*s", s, pad > 0 ? pad : 0, "");
}

void rows_text(FILE *f, const struct tix_view *v, const uint32_t *order, uint32_t n,
               int with_pinned, const struct tix_view_fmt *fmt)
{
	int nc;
	const struct tix_col *cols = tix_view_columns(v, &nc);
	uint32_t pinned = with_pinned ? tix_view_pinned(v) : 0;
	int w[64] = {0}, last = -1;
	char buf[1024], tb[64];
	if (nc > 64)
		nc = 64;
	for (int c = 0; c < nc; c++) {
		if (!shown(&cols[c]))
			continue;
		last = c;
		w[c] = text_width(tix_col_title(&cols[c], fmt, tb, sizeof tb));
		for (uint32_t i = 0; i < pinned + n; i++) {
			uint32_t row = i < pinned ? i : order[i - pinned];
			char pb[1200]; /* measured as printed: an escape is four columns */
			int tw = text_width(tix_printable(tix_view_text(v, row, c, fmt, buf, sizeof buf), pb, sizeof pb));
			if (tw > w[c])
				w[c] = tw;
		}
	}
	for (int c = 0, first = 1; c < nc; c++) {
		if (!shown(&cols[c]))
			continue;
		fputs(first ? "" : "  ", f);
		first = 0;
		cell_out(f, tix_col_title(&cols[c], fmt, tb, sizeof tb), w[c], cols[c].flags & TIX_COL_RIGHT, c == last);
	}
	fputc('\n', f);
	for (uint32_t i = 0; i < pinned + n; i++) {
		uint32_t row = i < pinned ? i : order[i - pinned];
		for (int c = 0, first = 1; c < nc; c++) {
			if (!shown(&cols[c]))
				continue;
			fputs(first ? "" : "  ", f);
			first = 0;
			/* names can hold anything the trace did: printable, one line */
			char pb[1200];
			const char *s = tix_printable(tix_view_text(v, row, c, fmt, buf, sizeof buf), pb, sizeof pb);
			cell_out(f, s, w[c], cols[c].flags & TIX_COL_RIGHT, c == last);
		}
		fputc('\n', f);
	}
}

/* A count per step: whole, or with three decimals. */
static void fcount_out(FILE *f, double d)
{
	if (d == (double)(int64_t)d)
		fprintf(f, "%" PRId64, (int64_t)d);
	else
		fprintf(f, "%.3f", d);
}

static void dim3_text(FILE *f, const int32_t d[3], const char *sep)
{
	fprintf(f, "[%d%s%d%s%d]", d[0], sep, d[1], sep, d[2]);
}

void rows_csv(FILE *f, const struct tix_view *v, const uint32_t *order, uint32_t n)
{
	int nc;
	const struct tix_col *cols = tix_view_columns(v, &nc);
	int first = 1;
	for (int c = 0; c < nc; c++)
		if (cols[c].key) {
			fprintf(f, "%s%s", first ? "" : ",", cols[c].key);
			first = 0;
		}
	fputc('\n', f);
	for (uint32_t i = 0; i < n; i++) {
		first = 1;
		for (int c = 0; c < nc; c++) {
			if (!cols[c].key)
				continue;
			fputs(first ? "" : ",", f);
			first = 0;
			struct tix_cell cell;
			tix_view_cell(v, order[i], c, &cell);
			if (!cell.known)
				continue; /* unknown: an empty field */
			switch (cols[c].unit) {
			case TIX_UNIT_TEXT: csv_str(f, cell.s ? cell.s : ""); break;
			case TIX_UNIT_NAME: {
				char buf[4];
				struct tix_view_fmt full = {1, TIX_TU_AUTO};
				csv_str(f, tix_view_text(v, order[i], c, &full, buf, sizeof buf));
				break;
			}
			case TIX_UNIT_PCT: fprintf(f, "%.3f", cell.d); break;
			case TIX_UNIT_RATIO: fprintf(f, "%.6f", cell.d); break;
			case TIX_UNIT_FCOUNT:
			case TIX_UNIT_FDELTA: fcount_out(f, cell.d); break;
			case TIX_UNIT_FLOPS:
			case TIX_UNIT_FLOP_RATE:
			case TIX_UNIT_BYTE_RATE:
			case TIX_UNIT_FRACTION: fprintf(f, "%.17g", cell.d); break;
			case TIX_UNIT_DIM3:
				fputc('"', f); /* "[557496,1,1]" holds commas */
				dim3_text(f, cell.dim, ",");
				fputc('"', f);
				break;
			case TIX_UNIT_BAR: break;
			default: fprintf(f, "%" PRId64, cell.i); break;
			}
		}
		fputc('\n', f);
	}
}

/* "name" (demangled in full), "short_name" when the index has a short
 * label, "mangled_name" when the trace's name was mangled. */
static void json_name(FILE *f, const struct tix_index *ix, const char *key, uint32_t name)
{
	uint32_t full = tix_name_full(ix, name), sh = tix_name_short(ix, name);
	fprintf(f, "\"%s\": ", key);
	json_str(f, tix_str(ix, full), tix_str_len(ix, full));
	if (sh != TIX_NONE) {
		fprintf(f, ", \"short_%s\": ", key);
		json_str(f, tix_str(ix, sh), tix_str_len(ix, sh));
	}
	if (full != name) {
		fprintf(f, ", \"mangled_%s\": ", key);
		json_str(f, tix_str(ix, name), tix_str_len(ix, name));
	}
}

void rows_json_row(FILE *f, const struct tix_view *v, uint32_t row)
{
	int nc;
	const struct tix_col *cols = tix_view_columns(v, &nc);
	int first = 1;
	fputc('{', f);
	for (int c = 0; c < nc; c++) {
		if (!cols[c].key)
			continue;
		fputs(first ? "" : ", ", f);
		first = 0;
		struct tix_cell cell;
		tix_view_cell(v, row, c, &cell);
		if (cell.known && cols[c].unit == TIX_UNIT_NAME && cell.s) { /* a name as given */
			fprintf(f, "\"%s\": ", cols[c].key);
			json_str(f, cell.s, strlen(cell.s));
			continue;
		}
		if (cell.known && cols[c].unit == TIX_UNIT_NAME) {
			json_name(f, cell.ix ? cell.ix : tix_view_index(v), cols[c].key, (uint32_t)cell.i);
			continue;
		}
		fprintf(f, "\"%s\": ", cols[c].key);
		if (!cell.known) {
			fputs("null", f);
			continue;
		}
		switch (cols[c].unit) {
		case TIX_UNIT_TEXT: json_str(f, cell.s ? cell.s : "", cell.s ? strlen(cell.s) : 0); break;
		case TIX_UNIT_PCT: fprintf(f, "%.3f", cell.d); break;
		case TIX_UNIT_RATIO: fprintf(f, "%.6f", cell.d); break;
		case TIX_UNIT_FCOUNT:
		case TIX_UNIT_FDELTA: fcount_out(f, cell.d); break;
		case TIX_UNIT_FLOPS:
		case TIX_UNIT_FLOP_RATE:
		case TIX_UNIT_BYTE_RATE:
		case TIX_UNIT_FRACTION: fprintf(f, "%.17g", cell.d); break;
		case TIX_UNIT_DIM3: dim3_text(f, cell.dim, ", "); break;
		case TIX_UNIT_BOOL: fputs(cell.i ? "true" : "false", f); break;
		default: fprintf(f, "%" PRId64, cell.i); break;
		}
	}
	fputc('}', f);
}

void rows_json(FILE *f, const struct tix_view *v, const uint32_t *order, uint32_t n)
{
	fputc('[', f);
	for (uint32_t i = 0; i < n; i++) {
		fputs(i ? ",\n  " : "\n  ", f);
		rows_json_row(f, v, order[i]);
	}
	fputs("\n]", f);
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

void detail_json(FILE *f, const struct tix_detail *d)
{
	enum { MAX_DEPTH = 16 };
	int array[MAX_DEPTH] = {0}, first[MAX_DEPTH] = {1}, depth = 0;
	fputc('{', f);
	for (uint32_t k = 0; k < d->n; k++) {
		const struct tix_detail_item *it = &d->items[k];
		if (it->raw == TIX_RAW_NONE || (!array[depth] && !it->key && it->raw != TIX_RAW_END))
			continue;
		if (it->raw == TIX_RAW_END) {
			if (depth > 0)
				fputc(array[depth--] ? ']' : '}', f);
			continue;
		}
		fputs(first[depth] ? "" : ", ", f);
		first[depth] = 0;
		if (!array[depth])
			fprintf(f, "\"%s\": ", it->key);
		switch (it->raw) {
		case TIX_RAW_NULL: fputs("null", f); break;
		case TIX_RAW_INT: fprintf(f, "%" PRId64, it->i); break;
		case TIX_RAW_NUM: fprintf(f, "%.*f", (int)it->i, it->d); break;
		case TIX_RAW_BOOL: fputs(it->i ? "true" : "false", f); break;
		case TIX_RAW_STR: json_str(f, it->s, strlen(it->s)); break;
		case TIX_RAW_JSON: json_raw_or_str(f, it->s); break;
		case TIX_RAW_DIM3: dim3_text(f, it->dim, ", "); break;
		case TIX_RAW_OBJECT:
		case TIX_RAW_ARRAY:
			if (depth + 1 >= MAX_DEPTH) { /* never made this deep; stay valid JSON */
				fputs("null", f);
				break;
			}
			fputc(it->raw == TIX_RAW_ARRAY ? '[' : '{', f);
			array[++depth] = it->raw == TIX_RAW_ARRAY;
			first[depth] = 1;
			break;
		default: break;
		}
	}
	while (depth > 0)
		fputc(array[depth--] ? ']' : '}', f);
	fputc('}', f);
}
