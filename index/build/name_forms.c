/* The names phase: how each GPU work name is shown.  Mangled names
 * (_Z..., as ROCm's CK and aiter kernels come) are demangled once here;
 * then every name gets a short label, and labels that two different names
 * would share are made distinct: first by showing the template arguments in
 * which they differ, however deep ("<..., 256, ...>",
 * "device_kernel<GemmUniversal<..., CollectiveMma<Mainloop...<5, ...>, ...>,
 * ...>>", tix_labels_apart), then, if that is not enough, by numbering them
 * ("#2").  The TUI and the CLI show these labels,
 * so no two kernels ever read the same. */
#include "index/build/phases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libstdc++'s demangler (the C++ ABI's), declared here as tix_index is C. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* The demangled name (malloc'd), or NULL.  libstdc++ 12 does not know
 * DF16b (std::bfloat16_t, C++23), which ROCm's aiter and CK kernels use: it
 * is demangled as Dn (decltype(nullptr)) instead -- a builtin type too, so
 * never a substitution candidate and every back-reference stays valid --
 * and the spelling put back.  Only when the name has no Dn of its own. */
static char *demangle(const char *mangled)
{
	int status = -1;
	char *d = __cxa_demangle(mangled, NULL, NULL, &status);
	if (d && status == 0)
		return d;
	free(d);
	if (!strstr(mangled, "DF16b") || strstr(mangled, "Dn"))
		return NULL;
	size_t len = strlen(mangled);
	char *m = malloc(len + 1), *w = m;
	if (!m)
		return NULL;
	for (const char *p = mangled; *p;) {
		if (strncmp(p, "DF16b", 5) == 0) {
			memcpy(w, "Dn", 2);
			w += 2;
			p += 5;
		} else {
			*w++ = *p++;
		}
	}
	*w = 0;
	d = __cxa_demangle(m, NULL, NULL, &status);
	free(m);
	if (!d || status != 0) {
		free(d);
		return NULL;
	}
	static const char from[] = "decltype(nullptr)", to[] = "std::bfloat16_t";
	char *out = malloc(strlen(d) + 1); /* "to" is shorter than "from" */
	if (out) {
		char *o = out;
		for (const char *p = d;;) {
			const char *q = strstr(p, from);
			size_t k = q ? (size_t)(q - p) : strlen(p);
			memcpy(o, p, k);
			o += k;
			if (!q)
				break;
			memcpy(o, to, sizeof(to) - 1);
			o += sizeof(to) - 1;
			p = q + sizeof(from) - 1;
		}
		*o = 0;
	}
	free(d);
	return out;
}

struct form {
	uint32_t raw, full, shortened;
	uint32_t label_len;
	char *label;        /* malloc'd, while labels are being decided */
};

static int cmp_label(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	const struct form *x = a, *y = b;
	int c = strcmp(x->label, y->label);
	return c ? c : (x->raw < y->raw ? -1 : x->raw > y->raw);
}

static int cmp_raw(const void *a, const void *b)
{
	const struct tix_name_form_disk *x = a, *y = b;
	return x->raw < y->raw ? -1 : x->raw > y->raw;
}

static char *label_of(const char *name, size_t len, int keep_arg)
{
	char small[512];
	size_t n = keep_arg < 0 ? tix_short_name(name, len, small, sizeof(small))
	                        : tix_short_name_arg(name, len, keep_arg, small, sizeof(small));
	char *l = malloc(n + 1);
	if (!l)
		return NULL;
	if (n < sizeof(small))
		memcpy(l, small, n + 1);
	else if (keep_arg < 0)
		tix_short_name(name, len, l, n + 1);
	else
		tix_short_name_arg(name, len, keep_arg, l, n + 1);
	return l;
}

int linker_name_forms(struct linker *L, struct tix_error *err)
{
	struct intern *S = &L->b->c.strings;
	uint32_t n = L->ngroups, nf = 0;
	struct form *f = calloc(n + 1, sizeof(*f));
	uint8_t *seen = calloc(S->n / 8 + 1, 1);
	if (!f || !seen) {
		free(f);
		free(seen);
		return tix_error_oom(err, NULL);
	}
	int rc = -1;
	for (uint32_t g = 0; g < n; g++) {
		uint32_t raw = L->groups[g].name;
		if (seen[raw / 8] & (1u << (raw % 8)))
			continue; /* a memcpy and a kernel may share a name: one form */
		seen[raw / 8] |= (uint8_t)(1u << (raw % 8));
		struct form *x = &f[nf++];
		x->raw = x->full = raw;
		const char *s = intern_str(S, raw);
		if (s[0] == '_' && s[1] == 'Z') {
			char *d = demangle(s);
			if (d)
				x->full = intern_add(S, d, strlen(d));
			free(d);
			if (x->full == TIX_NONE)
				goto oom;
		}
		const char *full = intern_str(S, x->full);
		if (!(x->label = label_of(full, intern_len(S, x->full), -1)))
			goto oom;
	}
	/* Runs of equal labels: try each template argument position in turn
	 * until the run's labels are all different; number what is left. */
	qsort_r(f, nf, sizeof(*f), cmp_label, NULL);
	for (uint32_t i = 0; i < nf;) {
		uint32_t j = i + 1;
		while (j < nf && strcmp(f[j].label, f[i].label) == 0)
			j++;
		if (j - i > 1) {
			/* the template arguments in which they differ, however deep */
			const char **names = calloc(j - i, sizeof(*names));
			size_t *lens = calloc(j - i, sizeof(*lens));
			char **try = calloc(j - i, sizeof(*try));
			int ok = names && lens && try;
			for (uint32_t k = i; ok && k < j; k++) {
				names[k - i] = intern_str(S, f[k].full);
				lens[k - i] = intern_len(S, f[k].full);
			}
			ok = ok && tix_labels_apart(names, lens, j - i, try) == 0;
			for (uint32_t k = i; ok && k < j; k++) {
				free(f[k].label);
				f[k].label = try[k - i];
				try[k - i] = NULL;
			}
			for (uint32_t k = 0; try && k < j - i; k++)
				free(try[k]);
			free(try);
			free(names);
			free(lens);
			if (!ok)
				goto oom;
			/* Still equal (they differ outside the first argument list):
			 * number the run, in the order of the raw names' ids (first
			 * seen first). */
			uint32_t *nth = calloc(j - i, sizeof(*nth));
			if (!nth)
				goto oom;
			for (uint32_t k = i; k < j; k++) { /* its place among the labels still alike, 0: alone */
				uint32_t before = 0, alike = 0;
				for (uint32_t m = i; m < j; m++)
					if (m != k && strcmp(f[m].label, f[k].label) == 0)
						alike++, before += m < k;
				nth[k - i] = alike ? before + 1 : 0;
			}
			for (uint32_t k = i; k < j; k++) {
				if (!nth[k - i])
					continue;
				size_t ln = strlen(f[k].label);
				char *l = malloc(ln + 16);
				if (!l) {
					free(nth);
					goto oom;
				}
				snprintf(l, ln + 16, "%s #%u", f[k].label, nth[k - i]);
				free(f[k].label);
				f[k].label = l;
			}
			free(nth);
		}
		i = j;
	}
	L->name_forms = calloc(nf + 1, sizeof(*L->name_forms));
	if (!L->name_forms)
		goto oom;
	for (uint32_t k = 0; k < nf; k++) {
		struct tix_name_form_disk *d = &L->name_forms[k];
		d->raw = f[k].raw;
		d->full = f[k].full;
		d->shortened = intern_add(S, f[k].label, strlen(f[k].label));
		if (d->shortened == TIX_NONE)
			goto oom;
	}
	L->nname_forms = nf;
	qsort(L->name_forms, nf, sizeof(*L->name_forms), cmp_raw);
	rc = 0;
	goto out;
oom:
	rc = tix_error_oom(err, NULL);
out:
	for (uint32_t k = 0; k < nf; k++)
		free(f[k].label);
	free(f);
	free(seen);
	return rc;
}
