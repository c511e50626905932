/* The findings' figures of one op-shape group or one op (docs/FINDINGS.md):
 * its calls and GPU time per step, its cost from the op models, and where
 * it stands against the device's roofline.  The rules in findings.c and
 * the views (tix_shape_figures, tix_op_roofline) read these. */
#include "index/findings.h"
#include "index/findings_int.h"

#include <string.h>

/* Calls and GPU time per step of overall shape `shape`. */
void findings_shape_per_step(const struct tix_index *ix, uint32_t shape, uint32_t step, double *calls,
                             int64_t *gpu_ns)
{
	*calls = 0;
	*gpu_ns = 0;
	uint32_t first = step, n = 1, steps = 0;
	if (step == TIX_NONE) {
		first = 0;
		n = tix_step_count(ix);
	}
	double c = 0;
	int64_t t = 0;
	for (uint32_t s = first; s < first + n; s++) {
		uint32_t count;
		const struct tix_op_shape *os = tix_step_op_shapes(ix, s, &count);
		steps++;
		for (uint32_t i = 0; i < count; i++)
			if (os[i].shape == shape) {
				c += os[i].calls;
				t = tix_sat_add(t, os[i].gpu_ns);
			}
	}
	if (steps) {
		*calls = c / steps;
		*gpu_ns = t / steps;
	}
}

void findings_shape_cost(const struct tix_index *ix, const struct tix_op_shape *o, struct tix_op_cost *c)
{
	const struct tix_op_info *oi = tix_op_info_get(ix, o->op_info);
	tix_op_cost(tix_str(ix, o->name), oi && oi->dims != TIX_NONE ? tix_str(ix, oi->dims) : NULL,
	            oi && oi->types != TIX_NONE ? tix_str(ix, oi->types) : NULL,
	            oi && oi->concrete != TIX_NONE ? tix_str(ix, oi->concrete) : NULL, c);
}

/* The roofline of work of `flops` and `bytes` that took gpu_ns, on d. */
static void roofline(const struct tix_device *d, enum tix_op_class cls, enum tix_peak peak, double flops,
                     double bytes, double gpu_ns, double *fps, double *bps, double *roof_ns,
                     double *fraction, const char **bound, enum tix_peak *as)
{
	*fps = flops >= 0 && gpu_ns > 0 ? flops * 1e9 / gpu_ns : -1;
	*bps = bytes >= 0 && gpu_ns > 0 ? bytes * 1e9 / gpu_ns : -1;
	*roof_ns = *fraction = -1;
	*bound = NULL;
	*as = peak;
	double tb = bytes >= 0 && d->peak_Bps > 0 ? bytes * 1e9 / d->peak_Bps : -1;
	double tf = -1;
	if (tix_op_class_is_compute(cls)) {
		double pf = flops >= 0 ? tix_device_peak_flops(d, peak, *fps, as) : -1;
		tf = pf > 0 ? flops * 1e9 / pf : -1;
		if (tf < 0 || tb < 0)
			return; /* a roofline needs both roofs */
	} else if (tb < 0) {
		return;
	}
	*roof_ns = tf > tb ? tf : tb;
	*bound = tf > tb ? "compute" : "memory";
	if (gpu_ns > 0 && *roof_ns <= gpu_ns)
		*fraction = *roof_ns / gpu_ns;
}

void tix_shape_figures(const struct tix_index *ix, const struct tix_device *d, uint32_t shape,
                       uint32_t step, struct tix_shape_figures *f)
{
	memset(f, 0, sizeof(*f));
	f->bytes_per_s = f->flops_per_s = f->roofline_ns = f->peak_fraction = -1;
	const struct tix_op_shape *o = tix_op_shape_get(ix, shape);
	if (!o) {
		f->cost.flops = f->cost.bytes = -1;
		return;
	}
	findings_shape_per_step(ix, shape, step, &f->calls, &f->gpu_ns);
	findings_shape_cost(ix, o, &f->cost);
	double fl = f->cost.flops >= 0 ? f->cost.flops * f->calls : -1;
	double by = f->cost.bytes >= 0 ? f->cost.bytes * f->calls : -1;
	roofline(d, f->cost.cls, f->cost.peak, fl, by, (double)f->gpu_ns, &f->flops_per_s, &f->bytes_per_s,
	         &f->roofline_ns, &f->peak_fraction, &f->bound, &f->peak_as);
}

void tix_op_roofline(const struct tix_index *ix, const struct tix_device *d, uint32_t op,
                     struct tix_op_roofline *r)
{
	memset(r, 0, sizeof(*r));
	r->flops = r->bytes = r->flops_per_s = r->bytes_per_s = r->peak_fraction = -1;
	const struct tix_op_model *m = tix_op_model_get(ix, op);
	if (!m || m->cls == TIX_OPC_NONE) {
		r->why_not = "no model for this op";
		return;
	}
	if (m->calls == 0) {
		r->why_not = "no instance with Input Dims and GPU work beneath it";
		return;
	}
	r->modelled = 1;
	r->flops = m->flops;
	r->bytes = m->bytes;
	r->gpu_ns = m->gpu_ns;
	r->calls = m->calls;
	double roof;
	enum tix_peak as;
	roofline(d, (enum tix_op_class)m->cls, (enum tix_peak)m->peak, m->flops, m->bytes, (double)m->gpu_ns,
	         &r->flops_per_s, &r->bytes_per_s, &roof, &r->peak_fraction, &r->bound, &as);
	if (m->mixed && tix_op_class_is_compute((enum tix_op_class)m->cls)) {
		r->peak_fraction = -1;
		r->bound = NULL;
		r->why_not = "its instances have different dtypes: see its shapes";
	} else if (r->peak_fraction < 0) {
		r->why_not = d->known ? "above the roofline: the shapes are not what its kernels moved"
		                      : "the device's peaks are not known";
		if (d->known && roof < 0)
			r->why_not = "no peak for its dtype on this device";
	}
}

