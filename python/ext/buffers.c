/* buffers.c: Python objects with the buffer protocol (numpy arrays) as
 * pt_buffers, without copying: the pt_buffer points at the object's
 * memory with its strides. */
#include "ext.h"

/* Native-order formats only: numpy gives "<f" on little-endian machines
 * for explicit byte orders, which is native there too. */
int pt_py_format_type(const char *format, Py_ssize_t itemsize, pt_type *t)
{
	const char *f = format ? format : "B";
	if (*f == '@' || *f == '=' || (*f == '<' && PY_LITTLE_ENDIAN) || (*f == '>' && !PY_LITTLE_ENDIAN))
		f++;
	if (!f[0] || f[1])
		return -1;
	bool sgn = false;
	switch (f[0]) {
	case 'f': *t = PT_F32; return itemsize == 4 ? 0 : -1;
	case 'd': *t = PT_F64; return itemsize == 8 ? 0 : -1;
	case 'b': case 'h': case 'i': case 'l': case 'q': case 'n':
		sgn = true;
		break;
	case 'B': case 'H': case 'I': case 'L': case 'Q': case 'N':
		break;
	default:
		return -1;
	}
	switch (itemsize) {
	case 1: *t = sgn ? PT_I8 : PT_U8; return 0;
	case 2: *t = sgn ? PT_I16 : PT_U16; return 0;
	case 4: *t = sgn ? PT_I32 : PT_U32; return 0;
	case 8: *t = PT_I64; return sgn ? 0 : -1;   /* the language has no u64 */
	default: return -1;
	}
}

int pt_py_buffer_get(PyObject *obj, bool writable, const char *what, pt_py_buffer *b)
{
	memset(b, 0, sizeof(*b));
	int flags = PyBUF_STRIDES | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
	if (PyObject_GetBuffer(obj, &b->view, flags) < 0)
		return -1;
	b->held = true;
	const Py_buffer *v = &b->view;
	if (pt_py_format_type(v->format, v->itemsize, &b->buf.type)) {
		PyErr_Format(PyExc_TypeError, "%s: element format '%s' (%zd bytes) is none of the language's types",
			what, v->format ? v->format : "B", v->itemsize);
		pt_py_buffer_release(b);
		return -1;
	}
	if (v->ndim < 1 || v->ndim > PT_MAX_DIMS) {
		PyErr_Format(PyExc_ValueError, "%s: %d dimensions; polytile buffers have 1 to %d", what, v->ndim,
			PT_MAX_DIMS);
		pt_py_buffer_release(b);
		return -1;
	}
	b->buf.data = v->buf;
	b->buf.ndim = v->ndim;
	for (int d = 0; d < v->ndim; d++) {
		b->buf.extent[d] = v->shape[d];
		if (v->strides[d] % v->itemsize) {
			PyErr_Format(PyExc_ValueError, "%s: stride %zd of dimension %d is not a multiple of the element size",
				what, v->strides[d], d);
			pt_py_buffer_release(b);
			return -1;
		}
		b->buf.stride[d] = v->strides[d] / v->itemsize;
	}
	return 0;
}

void pt_py_buffer_release(pt_py_buffer *b)
{
	if (b->held)
		PyBuffer_Release(&b->view);
	b->held = false;
}
