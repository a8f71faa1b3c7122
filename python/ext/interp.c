/* interp.c: Pipeline.interpret, the reference interpreter (what every
 * pipeline means) on Python buffers; its outputs copied into the
 * package's arrays, points no case defines left as they are (zero). */
#include "ext.h"

/* Copies src's defined points into dst (same type and extents). */
static void copy_defined(const pt_buffer *src, const uint8_t *def, pt_buffer *dst)
{
	size_t es = pt_type_size(src->type);
	int64_t n = pt_buffer_count(src), idx[PT_MAX_DIMS] = {0};
	for (int64_t k = 0; k < n; k++) {
		int64_t so = 0, doff = 0, rest = k;
		for (int d = src->ndim - 1; d >= 0; d--) {
			idx[d] = rest % src->extent[d];
			rest /= src->extent[d];
			so += idx[d] * src->stride[d];
			doff += idx[d] * dst->stride[d];
		}
		if (!def || def[k])   /* def is dense, in row-major order */
			memcpy((char *)dst->data + doff * (int64_t)es, (const char *)src->data + so * (int64_t)es, es);
	}
}

/* Binds params and inputs, runs, copies the outputs; 0, or -1 with an
 * exception set.  The GIL is released while the interpreter runs. */
static int interp_body(PtPipeline *self, pt_interp *in, const double *values, pt_py_buffer *bi,
	pt_py_buffer *bo)
{
	const pt_pipeline *p = self->p;
	int rc;
	for (int q = 0; q < pt_pipeline_param_count(p); q++)
		if (pt_interp_set_param(in, pt_pipeline_param_name(p, q), values[q])) {
			pt_py_raise_ctx(self->ctx, "ParamError", "bad param");
			return -1;
		}
	for (int i = 0; i < pt_pipeline_image_count(p); i++)
		if (pt_interp_set_input(in, pt_pipeline_image_name(p, i), &bi[i].buf)) {
			pt_py_raise_ctx(self->ctx, "InputError", "bad input");
			return -1;
		}
	Py_BEGIN_ALLOW_THREADS
	rc = pt_interp_run(in);
	Py_END_ALLOW_THREADS
	if (rc) {
		pt_py_raise_ctx(self->ctx, "RunError", "the interpreter failed");
		return -1;
	}
	for (int o = 0; o < pt_pipeline_output_count(p); o++) {
		const char *name = pt_pipeline_output_name(p, o);
		const uint8_t *def = NULL;
		int64_t origin[PT_MAX_DIMS];
		const pt_buffer *r = pt_interp_result(in, name, &def, origin);
		bool same = r && r->type == bo[o].buf.type && r->ndim == bo[o].buf.ndim;
		for (int d = 0; same && d < r->ndim; d++)
			same = r->extent[d] == bo[o].buf.extent[d];
		if (!same) {
			PyErr_Format(PyExc_RuntimeError, "output '%s': the interpreter's box differs from the output's", name);
			return -1;
		}
		copy_defined(r, def, &bo[o].buf);
	}
	return 0;
}

/* interpret(values, inputs, outputs): as Program.run, by the interpreter. */
PyObject *pt_py_interpret(PtPipeline *self, PyObject *args)
{
	PyObject *vals, *ins, *outs;
	if (!PyArg_ParseTuple(args, "OOO", &vals, &ins, &outs))
		return NULL;
	int np = pt_pipeline_param_count(self->p), ni = pt_pipeline_image_count(self->p),
		no = pt_pipeline_output_count(self->p);
	int got_in = 0, got_out = 0, rc = -1;
	pt_py_arrays a;
	if (PySequence_Size(ins) != ni || PySequence_Size(outs) != no)
		return PyErr_Format(PyExc_ValueError, "expected %d inputs and %d outputs", ni, no);
	if (pt_py_arrays_init(&a, np, ni, no))
		return NULL;
	if (pt_py_values(vals, np, a.values))
		goto out;
	for (; got_in < ni; got_in++) {
		PyObject *it = PySequence_GetItem(ins, got_in);
		int e = it ? pt_py_buffer_get(it, false, "input", &a.bi[got_in]) : -1;
		Py_XDECREF(it);
		if (e)
			goto out;
	}
	for (; got_out < no; got_out++) {
		PyObject *it = PySequence_GetItem(outs, got_out);
		int e = it ? pt_py_buffer_get(it, true, "output", &a.bo[got_out]) : -1;
		Py_XDECREF(it);
		if (e)
			goto out;
	}
	pt_interp *in = pt_interp_new(self->ctx, self->p);
	if (!in) {
		pt_py_raise_ctx(self->ctx, "Error", "out of memory");
		goto out;
	}
	rc = interp_body(self, in, a.values, a.bi, a.bo);
	pt_interp_free(in);
	pt_ctx_clear_diagnostics(self->ctx);
out:
	while (got_in-- > 0)
		pt_py_buffer_release(&a.bi[got_in]);
	while (got_out-- > 0)
		pt_py_buffer_release(&a.bo[got_out]);
	pt_py_arrays_free(&a);
	if (rc)
		return NULL;
	Py_RETURN_NONE;
}
