/* module.c: the polytile._polytile module, and raising the package's
 * exceptions (polytile/errors.py) from C. */
/* dladdr: Python.h defines _GNU_SOURCE */
#include "ext.h"

#include <dlfcn.h>

PyObject *pt_py_raise(const char *kind, const char *text)
{
	PyObject *mod = PyImport_ImportModule("polytile.errors");
	PyObject *cls = mod ? PyObject_GetAttrString(mod, kind) : NULL;
	Py_XDECREF(mod);
	if (!cls)               /* the ImportError or AttributeError stays set */
		return NULL;
	PyObject *msg = PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "backslashreplace");
	if (msg)
		PyErr_SetObject(cls, msg);
	Py_XDECREF(msg);
	Py_DECREF(cls);
	return NULL;
}

PyObject *pt_py_raise_ctx(pt_ctx *ctx, const char *kind, const char *fallback)
{
	const char *d = pt_ctx_diagnostics(ctx);
	PyObject *r = pt_py_raise(kind, d && *d ? d : fallback);
	pt_ctx_clear_diagnostics(ctx);
	return r;
}

int pt_py_values(PyObject *seq, int nparams, double *values)
{
	PyObject *fast = PySequence_Fast(seq, "param values must be a sequence");
	if (!fast)
		return -1;
	if (PySequence_Fast_GET_SIZE(fast) != nparams) {
		PyErr_Format(PyExc_ValueError, "expected %d param values, got %zd", nparams,
			PySequence_Fast_GET_SIZE(fast));
		Py_DECREF(fast);
		return -1;
	}
	for (int q = 0; q < nparams; q++) {
		values[q] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fast, q));
		if (values[q] == -1.0 && PyErr_Occurred()) {
			Py_DECREF(fast);
			return -1;
		}
	}
	Py_DECREF(fast);
	return 0;
}

int pt_py_arrays_init(pt_py_arrays *a, int np, int ni, int no)
{
	size_t p = (size_t)(np > 0 ? np : 0) + 1, i = (size_t)(ni > 0 ? ni : 0) + 1, o = (size_t)(no > 0 ? no : 0) + 1;
	memset(a, 0, sizeof(*a));
	a->values = PyMem_Calloc(p, sizeof(*a->values));
	a->known = PyMem_Calloc(p, sizeof(*a->known));
	a->ip = PyMem_Calloc(p, sizeof(*a->ip));
	a->bufs = PyMem_Calloc(i, sizeof(*a->bufs));
	a->ptrs = PyMem_Calloc(i, sizeof(*a->ptrs));
	a->bi = PyMem_Calloc(i, sizeof(*a->bi));
	a->pi = PyMem_Calloc(i, sizeof(*a->pi));
	a->bo = PyMem_Calloc(o, sizeof(*a->bo));
	a->po = PyMem_Calloc(o, sizeof(*a->po));
	if (a->values && a->known && a->ip && a->bufs && a->ptrs && a->bi && a->pi && a->bo && a->po)
		return 0;
	pt_py_arrays_free(a);
	PyErr_NoMemory();
	return -1;
}

void pt_py_arrays_free(pt_py_arrays *a)
{
	PyMem_Free(a->values);
	PyMem_Free(a->known);
	PyMem_Free(a->ip);
	PyMem_Free(a->bufs);
	PyMem_Free((void *)a->ptrs);
	PyMem_Free(a->bi);
	PyMem_Free(a->pi);
	PyMem_Free(a->bo);
	PyMem_Free(a->po);
	memset(a, 0, sizeof(*a));
}

static PyObject *type_size(PyObject *mod, PyObject *arg)
{
	long t = PyLong_AsLong(arg);
	if (t == -1 && PyErr_Occurred())
		return NULL;
	if (t < 0 || t >= PT_NTYPES)
		return PyErr_Format(PyExc_ValueError, "no element type %ld", t);
	return PyLong_FromSize_t(pt_type_size((pt_type)t));
}

static PyObject *function_name_reserved(PyObject *mod, PyObject *arg)
{
	const char *name = PyUnicode_AsUTF8(arg);
	if (!name)
		return NULL;
	const char *why = pt_function_name_reserved(name);
	if (!why)
		Py_RETURN_NONE;
	return PyUnicode_FromString(why);
}

static PyMethodDef module_methods[] = {
	{"type_size", type_size, METH_O, "Bytes of one element of type number t (pt_type order)."},
	{"function_name_reserved", function_name_reserved, METH_O,
		"Why a name cannot name a compiled function, or None."},
	{NULL, NULL, 0, NULL}
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT, "_polytile",
	"The C extension under the polytile package (include/polytile.h).", -1, module_methods,
	NULL, NULL, NULL, NULL
};

/* Compiled code finds the runtime (pt_parallel_for, pt_rt_alloc, ...)
 * among the process's global symbols (LLJIT's process search), as in
 * the polytile command; Python loads an extension and the libraries it
 * needs with RTLD_LOCAL, so libpolytile_rt is made global here. */
static int runtime_global(void)
{
	Dl_info info;
	if (!dladdr((void *)&pt_buffer_alloc, &info) || !info.dli_fname) {
		PyErr_SetString(PyExc_ImportError, "polytile: the runtime library is not found (dladdr)");
		return -1;
	}
	if (!dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL)) {
		const char *why = dlerror();
		PyErr_Format(PyExc_ImportError, "polytile: cannot make %s's symbols global: %s", info.dli_fname,
			why ? why : "dlopen failed");
		return -1;
	}
	return 0;
}

PyMODINIT_FUNC PyInit__polytile(void)
{
	if (runtime_global())
		return NULL;
	if (PyType_Ready(&PtPipeline_Type) < 0 || PyType_Ready(&PtProgram_Type) < 0)
		return NULL;
	PyObject *m = PyModule_Create(&module_def);
	if (!m)
		return NULL;
	Py_INCREF(&PtPipeline_Type);
	Py_INCREF(&PtProgram_Type);
	if (PyModule_AddObject(m, "Pipeline", (PyObject *)&PtPipeline_Type) < 0 ||
	    PyModule_AddObject(m, "Program", (PyObject *)&PtProgram_Type) < 0 ||
	    PyModule_AddIntConstant(m, "MAX_DIMS", PT_MAX_DIMS) < 0 ||
	    PyModule_AddIntConstant(m, "MAX_TILE_DIMS", PT_MAX_TILE_DIMS) < 0 ||
	    PyModule_AddIntConstant(m, "MAX_THREADS", PT_MAX_THREADS) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
