/* ext.h: the polytile._polytile extension module, over include/polytile.h.
 *
 * The module is thin: the Python package (python/polytile/) checks and
 * converts arguments with numpy and raises the friendly errors; this
 * module turns Python buffers into pt_buffers, calls the library and
 * reports its diagnostics as the package's exceptions.  One file per
 * concern: pipeline.c (loading, inspection, params), program.c (compiled
 * code, run with the GIL released), interp.c (the reference
 * interpreter), buffers.c (the buffer protocol), options.c (pt_options
 * from the package's normalized tuple). */
#ifndef PT_PY_EXT_H
#define PT_PY_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "polytile.h"

/* A loaded pipeline: its ctx (diagnostics, isl) owns p.  The ctx is not
 * thread-safe: the package holds a lock around every call that uses it
 * (all but Program.run). */
typedef struct {
	PyObject_HEAD
	pt_ctx *ctx;
	pt_pipeline *p;
} PtPipeline;

extern PyTypeObject PtPipeline_Type;
extern PyTypeObject PtProgram_Type;

/* Raises polytile.errors.KIND (a subclass of polytile.Error) with text;
 * returns NULL. */
PyObject *pt_py_raise(const char *kind, const char *text);
/* Raises KIND with the ctx's diagnostics (cleared), or fallback when
 * there are none; returns NULL. */
PyObject *pt_py_raise_ctx(pt_ctx *ctx, const char *kind, const char *fallback);

/* A Python buffer held as a pt_buffer (released by pt_py_buffer_release). */
typedef struct {
	Py_buffer view;
	bool held;
	pt_buffer buf;
} pt_py_buffer;

/* Gets obj's buffer (writable if asked) as a pt_buffer; what names the
 * argument in messages.  0, or -1 with an exception set. */
int pt_py_buffer_get(PyObject *obj, bool writable, const char *what, pt_py_buffer *b);
void pt_py_buffer_release(pt_py_buffer *b);
/* The pt_type of a struct-module format ("f", "<u2" is not one: "H"). */
int pt_py_format_type(const char *format, Py_ssize_t itemsize, pt_type *t);

/* pt_options from the package's tuple (options.c documents it; its
 * strings are borrowed from the tuple, which must outlive opt); 0, or -1
 * with an exception set.  pt_py_options_free frees what it allocated. */
int pt_py_options(PyObject *tuple, pt_options *opt);
void pt_py_options_free(pt_options *opt);

/* A call's arrays sized by the pipeline (on the heap, not the stack: a
 * pipeline may declare thousands of params or images): per param its
 * value, whether known and its integer value; per image a pt_buffer,
 * a pointer and a Python buffer; per output a Python buffer and a
 * pointer.  Zeroed; 0, or -1 with MemoryError set. */
typedef struct {
	double *values;
	bool *known;
	int64_t *ip;
	pt_buffer *bufs;
	const pt_buffer **ptrs;
	pt_py_buffer *bi, *bo;
	pt_buffer **pi, **po;
} pt_py_arrays;
int pt_py_arrays_init(pt_py_arrays *a, int np, int ni, int no);
void pt_py_arrays_free(pt_py_arrays *a);

/* Reads a sequence of nparams floats into values; 0 or -1 (exception). */
int pt_py_values(PyObject *seq, int nparams, double *values);

/* The interpreter: Pipeline.interpret (interp.c). */
PyObject *pt_py_interpret(PtPipeline *self, PyObject *args);
/* Pipeline.compile (program.c). */
PyObject *pt_py_compile(PtPipeline *self, PyObject *args);

#endif
