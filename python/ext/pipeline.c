/* pipeline.c: the Pipeline type: a pipeline loaded from a file or text
 * with its ctx, what it declares, params and input shapes checked or
 * inferred as `polytile run` does (pt_infer_params, pt_check_inputs),
 * and the listings (check, explain, graph) and AOT files. */
#include "ext.h"

static void pipeline_dealloc(PtPipeline *self)
{
	pt_ctx_free(self->ctx);         /* frees p too */
	Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Loads the pipeline when the object is made (tp_new, not tp_init): no
 * Pipeline exists without one. */
static PyObject *pipeline_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"path", "source", "name", NULL};
	const char *path = NULL, *source = NULL, *name = "<string>";
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|zzs", kwlist, &path, &source, &name))
		return NULL;
	if (!path == !source) {
		PyErr_SetString(PyExc_TypeError, "give a path or a source, one of them");
		return NULL;
	}
	PtPipeline *self = (PtPipeline *)type->tp_alloc(type, 0);
	if (!self)
		return NULL;
	self->ctx = pt_ctx_new();
	if (!self->ctx) {
		Py_DECREF(self);
		return PyErr_NoMemory();
	}
	self->p = path ? pt_parse_file(self->ctx, path) : pt_parse_string(self->ctx, name, source);
	if (!self->p) {
		pt_py_raise_ctx(self->ctx, "ParseError", "the pipeline does not load");
		Py_DECREF(self);
		return NULL;
	}
	pt_ctx_clear_diagnostics(self->ctx);
	return (PyObject *)self;
}

static PyObject *int_tuple(const int64_t *v, int n)
{
	PyObject *t = PyTuple_New(n);
	for (int d = 0; t && d < n; d++)
		PyTuple_SET_ITEM(t, d, PyLong_FromLongLong((long long)v[d]));
	return t;
}

/* {"name", "params": [(name, type, estimate|None)], "images": [(name,
 * type, ndim, (const extent|None, ...))], "stages": [(name, type, ndim,
 * is_output)], "outputs": [name]}; types as pt_type numbers. */
static PyObject *pipeline_info(PtPipeline *self, PyObject *unused)
{
	const pt_pipeline *p = self->p;
	PyObject *params = PyList_New(0), *images = PyList_New(0), *stages = PyList_New(0),
		*outputs = PyList_New(0), *r = NULL;
	for (int q = 0; params && q < pt_pipeline_param_count(p); q++) {
		double est;
		PyObject *e = pt_pipeline_param_estimate(p, q, &est) ? PyFloat_FromDouble(est) : Py_NewRef(Py_None);
		PyObject *it = Py_BuildValue("(siN)", pt_pipeline_param_name(p, q), (int)pt_pipeline_param_type(p, q), e);
		if (!it || PyList_Append(params, it))
			Py_CLEAR(params);
		Py_XDECREF(it);
	}
	for (int i = 0; images && i < pt_pipeline_image_count(p); i++) {
		int nd = pt_pipeline_image_ndim(p, i);
		PyObject *ext = PyTuple_New(nd);
		for (int d = 0; ext && d < nd; d++) {
			int64_t v;
			PyTuple_SET_ITEM(ext, d, pt_pipeline_image_extent_const(p, i, d, &v) ?
				PyLong_FromLongLong((long long)v) : Py_NewRef(Py_None));
		}
		PyObject *it = ext ? Py_BuildValue("(siiN)", pt_pipeline_image_name(p, i),
			(int)pt_pipeline_image_type(p, i), nd, ext) : NULL;
		if (!it || PyList_Append(images, it))
			Py_CLEAR(images);
		Py_XDECREF(it);
	}
	for (int s = 0; stages && s < pt_pipeline_stage_count(p); s++) {
		PyObject *it = Py_BuildValue("(siiO)", pt_pipeline_stage_name(p, s), (int)pt_pipeline_stage_type(p, s),
			pt_pipeline_stage_ndim(p, s), pt_pipeline_stage_is_output(p, s) ? Py_True : Py_False);
		if (!it || PyList_Append(stages, it))
			Py_CLEAR(stages);
		Py_XDECREF(it);
	}
	for (int o = 0; outputs && o < pt_pipeline_output_count(p); o++) {
		PyObject *it = PyUnicode_FromString(pt_pipeline_output_name(p, o));
		if (!it || PyList_Append(outputs, it))
			Py_CLEAR(outputs);
		Py_XDECREF(it);
	}
	if (params && images && stages && outputs)
		r = Py_BuildValue("{s:s,s:O,s:O,s:O,s:O}", "name", pt_pipeline_name(p), "params", params,
			"images", images, "stages", stages, "outputs", outputs);
	Py_XDECREF(params);
	Py_XDECREF(images);
	Py_XDECREF(stages);
	Py_XDECREF(outputs);
	return r;
}

/* image_extents(i, values): image i's shape under the params. */
static PyObject *pipeline_image_extents(PtPipeline *self, PyObject *args)
{
	int i;
	PyObject *vals;
	if (!PyArg_ParseTuple(args, "iO", &i, &vals))
		return NULL;
	int np = pt_pipeline_param_count(self->p), nd = pt_pipeline_image_ndim(self->p, i);
	int64_t ext[PT_MAX_DIMS];
	pt_py_arrays a;
	PyObject *r = NULL;
	if (nd < 0)
		return PyErr_Format(PyExc_IndexError, "no image %d", i);
	if (pt_py_arrays_init(&a, np, 0, 0))
		return NULL;
	if (!pt_py_values(vals, np, a.values)) {
		if (pt_pipeline_image_extents(self->p, i, a.values, ext))
			pt_py_raise_ctx(self->ctx, "ParamError", "the image's extents cannot be evaluated at these params");
		else
			r = int_tuple(ext, nd);
	}
	pt_py_arrays_free(&a);
	return r;
}

/* stage_box(i, values): (lo, extent) of stage i's box at the params. */
static PyObject *pipeline_stage_box(PtPipeline *self, PyObject *args)
{
	int s;
	PyObject *vals;
	if (!PyArg_ParseTuple(args, "iO", &s, &vals))
		return NULL;
	int np = pt_pipeline_param_count(self->p), nd = -1;
	int64_t lo[PT_MAX_DIMS], ext[PT_MAX_DIMS];
	pt_py_arrays a;
	if (s < 0 || s >= pt_pipeline_stage_count(self->p))
		return PyErr_Format(PyExc_IndexError, "no stage %d", s);
	if (pt_py_arrays_init(&a, np, 0, 0))
		return NULL;
	if (pt_py_values(vals, np, a.values)) {
		pt_py_arrays_free(&a);
		return NULL;
	}
	for (int q = 0; q < np; q++) {
		pt_type t = pt_pipeline_param_type(self->p, q);
		/* floats (possibly NaN) are not converted: unused here */
		a.ip[q] = t == PT_I32 || t == PT_I64 ? (int64_t)a.values[q] : 0;
	}
	nd = pt_pipeline_stage_box(self->p, s, a.ip, lo, ext);
	pt_py_arrays_free(&a);
	if (nd < 0)
		return pt_py_raise("ParamError", "the stage's box cannot be evaluated at these params");
	return Py_BuildValue("(NN)", int_tuple(lo, nd), int_tuple(ext, nd));
}

/* check_param(name, value): the value the param takes (pt_param_check). */
static PyObject *pipeline_check_param(PtPipeline *self, PyObject *args)
{
	const char *name;
	double v, out;
	if (!PyArg_ParseTuple(args, "sd", &name, &v))
		return NULL;
	if (pt_param_check(self->ctx, self->p, name, v, &out))
		return pt_py_raise_ctx(self->ctx, "ParamError", "bad param value");
	return PyFloat_FromDouble(out);
}

/* specs: per image, None or (type number, shape): pt_buffers without
 * data, for the checks that look only at types and extents. */
static int read_specs(PtPipeline *self, PyObject *specs, pt_buffer *bufs, const pt_buffer **ptrs)
{
	int ni = pt_pipeline_image_count(self->p);
	PyObject *fast = PySequence_Fast(specs, "input specs must be a sequence");
	if (!fast)
		return -1;
	if (PySequence_Fast_GET_SIZE(fast) != ni) {
		PyErr_Format(PyExc_ValueError, "expected %d input specs", ni);
		Py_DECREF(fast);
		return -1;
	}
	for (int i = 0; i < ni; i++) {
		PyObject *it = PySequence_Fast_GET_ITEM(fast, i), *shape;
		int type;
		ptrs[i] = NULL;
		if (it == Py_None)
			continue;
		if (!PyArg_ParseTuple(it, "iO", &type, &shape)) {
			Py_DECREF(fast);
			return -1;
		}
		Py_ssize_t nd = PySequence_Size(shape);
		if (nd < 1 || nd > PT_MAX_DIMS) {
			PyErr_Format(PyExc_ValueError, "input %d: 1 to %d dimensions", i, PT_MAX_DIMS);
			Py_DECREF(fast);
			return -1;
		}
		memset(&bufs[i], 0, sizeof(bufs[i]));
		bufs[i].type = (pt_type)type;
		bufs[i].ndim = (int)nd;
		for (Py_ssize_t d = 0; d < nd; d++) {
			PyObject *e = PySequence_GetItem(shape, d);
			bufs[i].extent[d] = e ? PyLong_AsLongLong(e) : -1;
			Py_XDECREF(e);
		}
		if (PyErr_Occurred()) {
			Py_DECREF(fast);
			return -1;
		}
		ptrs[i] = &bufs[i];
	}
	Py_DECREF(fast);
	return 0;
}

/* infer(given, specs): every param's value: given[q] (None: unknown,
 * else already checked), then inferred from the inputs' extents, then
 * the estimates; then each input is checked against the params. */
static PyObject *pipeline_infer(PtPipeline *self, PyObject *args)
{
	PyObject *given, *specs, *r = NULL;
	if (!PyArg_ParseTuple(args, "OO", &given, &specs))
		return NULL;
	int np = pt_pipeline_param_count(self->p), ni = pt_pipeline_image_count(self->p);
	pt_py_arrays a;
	if (PySequence_Size(given) != np)
		return PyErr_Format(PyExc_ValueError, "expected %d params", np);
	if (pt_py_arrays_init(&a, np, ni, 0))
		return NULL;
	for (int q = 0; q < np; q++) {
		PyObject *v = PySequence_GetItem(given, q);
		a.known[q] = v && v != Py_None;
		a.values[q] = a.known[q] ? PyFloat_AsDouble(v) : 0;
		Py_XDECREF(v);
	}
	if (PyErr_Occurred() || read_specs(self, specs, a.bufs, a.ptrs))
		goto out;
	for (int i = 0; i < ni; i++)
		if (a.ptrs[i] && pt_check_input(self->ctx, self->p, i, a.ptrs[i])) {
			pt_py_raise_ctx(self->ctx, "InputError", "an input does not fit its image");
			goto out;
		}
	if (pt_infer_params(self->ctx, self->p, a.ptrs, a.values, a.known)) {
		pt_py_raise_ctx(self->ctx, "ParamError", "a param has no value");
		goto out;
	}
	if (pt_check_inputs(self->ctx, self->p, a.ptrs, a.values)) {
		pt_py_raise_ctx(self->ctx, "InputError", "an input has the wrong extents");
		goto out;
	}
	r = PyList_New(np);
	for (int q = 0; r && q < np; q++)
		PyList_SET_ITEM(r, q, PyFloat_FromDouble(a.values[q]));
out:
	pt_py_arrays_free(&a);
	return r;
}

static PyObject *owned_text(PtPipeline *self, char *text, const char *kind)
{
	if (!text)
		return pt_py_raise_ctx(self->ctx, kind, "failed (out of memory?)");
	PyObject *r = PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "backslashreplace");
	free(text);
	pt_ctx_clear_diagnostics(self->ctx);
	return r;
}

static PyObject *pipeline_describe(PtPipeline *self, PyObject *unused)
{
	return owned_text(self, pt_pipeline_describe(self->p), "Error");
}

/* dot(grouped, options): the stage graph, or -O1's groups as clusters. */
static PyObject *pipeline_dot(PtPipeline *self, PyObject *args)
{
	int grouped;
	PyObject *opts;
	pt_options o;
	if (!PyArg_ParseTuple(args, "pO", &grouped, &opts))
		return NULL;
	if (!grouped)
		return owned_text(self, pt_pipeline_dot(self->p), "Error");
	if (pt_py_options(opts, &o))
		return NULL;
	char *text;
	Py_BEGIN_ALLOW_THREADS
	text = pt_pipeline_dot_grouped(self->ctx, self->p, &o);
	Py_END_ALLOW_THREADS
	pt_py_options_free(&o);
	return owned_text(self, text, "CompileError");
}

static PyObject *pipeline_explain(PtPipeline *self, PyObject *opts)
{
	pt_options o;
	char *text;
	if (pt_py_options(opts, &o))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	text = pt_explain(self->ctx, self->p, &o);
	Py_END_ALLOW_THREADS
	pt_py_options_free(&o);
	return owned_text(self, text, "CompileError");
}

/* group_summary(options): {"ngroups", "overlap", "scratch_bytes",
 * "key", "tiled": [(group name, (tile, ...))]} (pt_group_summarize). */
static PyObject *pipeline_group_summary(PtPipeline *self, PyObject *opts)
{
	pt_options o;
	pt_group_summary g;
	int rc;
	if (pt_py_options(opts, &o))
		return NULL;
	memset(&g, 0, sizeof(g));
	Py_BEGIN_ALLOW_THREADS
	rc = pt_group_summarize(self->ctx, self->p, &o, &g);
	Py_END_ALLOW_THREADS
	pt_py_options_free(&o);
	if (rc)
		return pt_py_raise_ctx(self->ctx, "CompileError", "grouping failed");
	PyObject *tiled = PyList_New(0);
	for (int k = 0; tiled && k < g.ntiled_groups; k++) {
		const pt_group_options *t = &g.tiled_groups[k];
		int64_t tile[PT_MAX_TILE_DIMS];
		for (int d = 0; d < t->ntile; d++)
			tile[d] = t->tile[d];
		PyObject *it = Py_BuildValue("(sN)", t->group ? t->group : "", int_tuple(tile, t->ntile));
		if (!it || PyList_Append(tiled, it))
			Py_CLEAR(tiled);
		Py_XDECREF(it);
	}
	PyObject *r = tiled ? Py_BuildValue("{s:i,s:d,s:d,s:s,s:N}", "ngroups", g.ngroups, "overlap", g.overlap,
		"scratch_bytes", g.scratch_bytes, "key", g.key ? g.key : "", "tiled", tiled) : NULL;
	pt_group_summary_clear(&g);
	pt_ctx_clear_diagnostics(self->ctx);
	return r;
}

/* compile_files(base, options): base.o and base.h (the AOT function). */
static PyObject *pipeline_compile_files(PtPipeline *self, PyObject *args)
{
	const char *base;
	PyObject *opts;
	pt_options o;
	int rc;
	if (!PyArg_ParseTuple(args, "sO", &base, &opts) || pt_py_options(opts, &o))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	rc = pt_compile_files(self->ctx, self->p, &o, base);
	Py_END_ALLOW_THREADS
	pt_py_options_free(&o);
	if (rc)
		return pt_py_raise_ctx(self->ctx, "CompileError", "compiling failed");
	pt_ctx_clear_diagnostics(self->ctx);
	Py_RETURN_NONE;
}

static PyMethodDef pipeline_methods[] = {
	{"info", (PyCFunction)pipeline_info, METH_NOARGS, "What the pipeline declares (a dict)."},
	{"image_extents", (PyCFunction)pipeline_image_extents, METH_VARARGS, "image_extents(i, values)"},
	{"stage_box", (PyCFunction)pipeline_stage_box, METH_VARARGS, "stage_box(i, values) -> (lo, extent)"},
	{"check_param", (PyCFunction)pipeline_check_param, METH_VARARGS, "check_param(name, value)"},
	{"infer", (PyCFunction)pipeline_infer, METH_VARARGS, "infer(given, specs) -> values"},
	{"describe", (PyCFunction)pipeline_describe, METH_NOARGS, "The `polytile check` listing."},
	{"dot", (PyCFunction)pipeline_dot, METH_VARARGS, "dot(grouped, options) -> Graphviz text"},
	{"explain", (PyCFunction)pipeline_explain, METH_O, "explain(options) -> text"},
	{"group_summary", (PyCFunction)pipeline_group_summary, METH_O, "group_summary(options) -> dict"},
	{"compile_files", (PyCFunction)pipeline_compile_files, METH_VARARGS, "compile_files(base, options)"},
	{"compile", (PyCFunction)pt_py_compile, METH_VARARGS, "compile(options) -> Program"},
	{"interpret", (PyCFunction)pt_py_interpret, METH_VARARGS, "interpret(values, inputs, outputs)"},
	{NULL, NULL, 0, NULL}
};

PyTypeObject PtPipeline_Type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "polytile._polytile.Pipeline",
	.tp_basicsize = sizeof(PtPipeline),
	.tp_dealloc = (destructor)pipeline_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A loaded pipeline (use polytile.Pipeline).",
	.tp_methods = pipeline_methods,
	.tp_new = pipeline_new,
};
