/* program.c: the Program type, a pipeline compiled in-process (LLJIT),
 * and its runs: the GIL is released while the compiled code runs, so
 * that several Python threads run pipelines at once. */
#include "ext.h"

typedef struct {
	PyObject_HEAD
	PyObject *pipeline;     /* the PtPipeline it came from (kept alive) */
	pt_program *prog;
	int nparams, nimages, nouts;
} PtProgram;

static void program_dealloc(PtProgram *self)
{
	pt_program_free(self->prog);
	Py_XDECREF(self->pipeline);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Pipeline.compile(options): compiles with the GIL released (the
 * package holds the pipeline's lock: the ctx is not thread-safe). */
PyObject *pt_py_compile(PtPipeline *self, PyObject *args)
{
	PyObject *opts;
	pt_options o;
	pt_program *prog;
	if (!PyArg_ParseTuple(args, "O", &opts) || pt_py_options(opts, &o))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	prog = pt_compile(self->ctx, self->p, &o);
	Py_END_ALLOW_THREADS
	pt_py_options_free(&o);
	if (!prog)
		return pt_py_raise_ctx(self->ctx, "CompileError", "compiling failed");
	pt_ctx_clear_diagnostics(self->ctx);
	PtProgram *r = PyObject_New(PtProgram, &PtProgram_Type);
	if (!r) {
		pt_program_free(prog);
		return NULL;
	}
	r->prog = prog;
	r->pipeline = Py_NewRef((PyObject *)self);
	r->nparams = pt_pipeline_param_count(self->p);
	r->nimages = pt_pipeline_image_count(self->p);
	r->nouts = pt_pipeline_output_count(self->p);
	return (PyObject *)r;
}

/* Gets n buffers of the sequence seq into b (ptrs[i] = &b[i].buf);
 * what names them in messages ("input", "output").  0 or -1; on -1 the
 * ones got are released. */
static int get_buffers(PyObject *seq, int n, bool writable, const char *what, pt_py_buffer *b,
	pt_buffer **ptrs)
{
	PyObject *fast = PySequence_Fast(seq, "buffers must be a sequence");
	if (!fast)
		return -1;
	if (PySequence_Fast_GET_SIZE(fast) != n) {
		PyErr_Format(PyExc_ValueError, "expected %d %s buffers", n, what);
		Py_DECREF(fast);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char name[64];
		snprintf(name, sizeof(name), "%s %d", what, i);
		if (pt_py_buffer_get(PySequence_Fast_GET_ITEM(fast, i), writable, name, &b[i])) {
			while (i-- > 0)
				pt_py_buffer_release(&b[i]);
			Py_DECREF(fast);
			return -1;
		}
		ptrs[i] = &b[i].buf;
	}
	Py_DECREF(fast);
	return 0;
}

/* run(values, inputs, outputs): values per param (ints integral, checked
 * by the package), inputs in image order, outputs (writable, allocated
 * at their boxes) in output order.  A run-time check failure raises
 * RunError with the code's name and what failed. */
static PyObject *program_run(PtProgram *self, PyObject *args)
{
	PyObject *vals, *ins, *outs;
	if (!PyArg_ParseTuple(args, "OOO", &vals, &ins, &outs))
		return NULL;
	int np = self->nparams, ni = self->nimages, no = self->nouts;
	pt_py_arrays a;
	if (pt_py_arrays_init(&a, np, ni, no))
		return NULL;
	if (pt_py_values(vals, np, a.values) || get_buffers(ins, ni, false, "input", a.bi, a.pi)) {
		pt_py_arrays_free(&a);
		return NULL;
	}
	for (int q = 0; q < np; q++)   /* floats (possibly NaN) are unused as ints */
		a.ip[q] = a.values[q] >= -9.2e18 && a.values[q] <= 9.2e18 ? (int64_t)a.values[q] : 0;
	if (get_buffers(outs, no, true, "output", a.bo, a.po)) {
		for (int i = 0; i < ni; i++)
			pt_py_buffer_release(&a.bi[i]);
		pt_py_arrays_free(&a);
		return NULL;
	}
	int e;
	char detail[1024] = "";
	Py_BEGIN_ALLOW_THREADS
	e = pt_program_run(self->prog, a.ip, a.values, (const pt_buffer *const *)a.pi, a.po);
	if (e)   /* per thread: read before another run on this thread */
		snprintf(detail, sizeof(detail), "%s", pt_rt_error_detail());
	Py_END_ALLOW_THREADS
	for (int i = 0; i < ni; i++)
		pt_py_buffer_release(&a.bi[i]);
	for (int i = 0; i < no; i++)
		pt_py_buffer_release(&a.bo[i]);
	pt_py_arrays_free(&a);
	if (!e)
		Py_RETURN_NONE;
	char msg[1200];
	snprintf(msg, sizeof(msg), "polytile: error: the compiled pipeline failed: %s%s%s", pt_error_name(e),
		*detail ? ": " : "", detail);
	return pt_py_raise("RunError", msg);
}

static PyMethodDef program_methods[] = {
	{"run", (PyCFunction)program_run, METH_VARARGS, "run(values, inputs, outputs)"},
	{NULL, NULL, 0, NULL}
};

PyTypeObject PtProgram_Type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "polytile._polytile.Program",
	.tp_basicsize = sizeof(PtProgram),
	.tp_dealloc = (destructor)program_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A compiled pipeline (Pipeline.compile).",
	.tp_methods = program_methods,
};
