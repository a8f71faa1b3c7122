/* buffer.c: allocation and element access for pt_buffer. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pt_runtime.h"

static const size_t type_sizes[PT_NTYPES] = { 1, 2, 4, 1, 2, 4, 8, 4, 8 };
static const char *const type_names[PT_NTYPES] = {
	"u8", "u16", "u32", "i8", "i16", "i32", "i64", "f32", "f64"
};

size_t pt_type_size(pt_type t)
{
	return (unsigned)t < PT_NTYPES ? type_sizes[t] : 0;
}

const char *pt_type_name(pt_type t)
{
	return (unsigned)t < PT_NTYPES ? type_names[t] : "?";
}

int64_t pt_buffer_count(const pt_buffer *b)
{
	int64_t n = 1;
	for (int i = 0; i < b->ndim; i++)
		n *= b->extent[i];
	return n;
}

int pt_buffer_alloc(pt_buffer *b, pt_type t, int ndim, const int64_t *extent)
{
	memset(b, 0, sizeof(*b));
	if (ndim < 0 || ndim > PT_MAX_DIMS || (unsigned)t >= PT_NTYPES)
		return PT_ERR_NDIM;
	b->type = t;
	b->ndim = ndim;
	int64_t n = 1;
	for (int i = ndim - 1; i >= 0; i--) {
		if (extent[i] < 0)
			return PT_ERR_EXTENT;
		b->extent[i] = extent[i];
		b->stride[i] = n;
		/* an empty dimension still gets a stride; the product must fit */
		if (__builtin_mul_overflow(n, extent[i] ? extent[i] : 1, &n) ||
		    n > (int64_t)(SIZE_MAX / 16)) {
			b->ndim = 0;
			return PT_ERR_NOMEM;
		}
	}
	/* aligned to a cache line, as compiled code expects of the buffers
	 * it streams (codegen/stream.c); zeroed, as calloc would */
	size_t bytes = ((size_t)n * pt_type_size(t) + 63) / 64 * 64;
	b->data = aligned_alloc(64, bytes ? bytes : 64);
	if (b->data)
		memset(b->data, 0, bytes);
	return b->data ? PT_OK : PT_ERR_NOMEM;
}

void pt_buffer_free(pt_buffer *b)
{
	if (!b)
		return;
	free(b->data);
	memset(b, 0, sizeof(*b));
}

static int64_t offset_of(const pt_buffer *b, const int64_t *idx)
{
	int64_t off = 0;
	for (int i = 0; i < b->ndim; i++)
		off += idx[i] * b->stride[i];
	return off;
}

double pt_buffer_get(const pt_buffer *b, const int64_t *idx)
{
	int64_t o = offset_of(b, idx);
	switch (b->type) {
	case PT_U8: return ((const uint8_t *)b->data)[o];
	case PT_U16: return ((const uint16_t *)b->data)[o];
	case PT_U32: return ((const uint32_t *)b->data)[o];
	case PT_I8: return ((const int8_t *)b->data)[o];
	case PT_I16: return ((const int16_t *)b->data)[o];
	case PT_I32: return ((const int32_t *)b->data)[o];
	case PT_I64: return (double)((const int64_t *)b->data)[o];
	case PT_F32: return ((const float *)b->data)[o];
	case PT_F64: return ((const double *)b->data)[o];
	default: return 0;
	}
}

/* Converts v to an integer in [lo, hi] the way a C cast would for an
 * in-range value (truncating toward zero), but without undefined
 * behaviour: NaN gives 0 and out-of-range values saturate. lo and hi
 * must be exact in double; hi_excl is hi + 1. */
static double clamp_int(double v, double lo, double hi, double hi_excl)
{
	if (isnan(v))
		return 0;
	if (v <= lo)
		return lo;
	if (v >= hi_excl)
		return hi;
	return v;
}

/* clamp_int for int64, whose maximum 2^63 - 1 is not exact in double:
 * 2^63 and above saturate, everything below converts exactly. */
static int64_t i64_from_double(double v)
{
	if (isnan(v))
		return 0;
	if (v >= 9223372036854775808.0)
		return INT64_MAX;
	if (v <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)v;
}

/* Rounds v to float as IEEE 754 round-to-nearest does (too large
 * magnitudes give infinities) without relying on Annex F, since C
 * leaves converting an out-of-range double undefined. Doubles from
 * FLT_MAX up to FLT_MAX + half an ulp (2^103) round to FLT_MAX. */
static float f32_from_double(double v)
{
	const double edge = (double)FLT_MAX + 0x1p103;
	if (v >= edge)
		return INFINITY;
	if (v <= -edge)
		return -INFINITY;
	if (v > FLT_MAX)
		return FLT_MAX;
	if (v < -FLT_MAX)
		return -FLT_MAX;
	return (float)v;
}

/* Stores v into an element, converting with clamp_int for integer types
 * (so every cast below sees an in-range value) and f32_from_double. */
void pt_buffer_set(pt_buffer *b, const int64_t *idx, double v)
{
	int64_t o = offset_of(b, idx);
	switch (b->type) {
	case PT_U8:
		((uint8_t *)b->data)[o] =
			(uint8_t)clamp_int(v, 0, 255.0, 256.0);
		break;
	case PT_U16:
		((uint16_t *)b->data)[o] =
			(uint16_t)clamp_int(v, 0, 65535.0, 65536.0);
		break;
	case PT_U32:
		((uint32_t *)b->data)[o] = (uint32_t)clamp_int(v, 0,
				4294967295.0, 4294967296.0);
		break;
	case PT_I8:
		((int8_t *)b->data)[o] =
			(int8_t)clamp_int(v, -128.0, 127.0, 128.0);
		break;
	case PT_I16:
		((int16_t *)b->data)[o] =
			(int16_t)clamp_int(v, -32768.0, 32767.0, 32768.0);
		break;
	case PT_I32:
		((int32_t *)b->data)[o] = (int32_t)clamp_int(v,
				-2147483648.0, 2147483647.0, 2147483648.0);
		break;
	case PT_I64:
		((int64_t *)b->data)[o] = i64_from_double(v);
		break;
	case PT_F32: ((float *)b->data)[o] = f32_from_double(v); break;
	case PT_F64: ((double *)b->data)[o] = v; break;
	default: break;
	}
}

const char *pt_error_name(int code)
{
	switch (code) {
	case PT_OK: return "ok";
	case PT_ERR_NULL: return "a buffer or its data is NULL";
	case PT_ERR_TYPE: return "a buffer's element type differs from the declared one";
	case PT_ERR_NDIM: return "a buffer's number of dimensions differs";
	case PT_ERR_EXTENT: return "a buffer's extent differs from the expected one";
	case PT_ERR_NOMEM: return "out of memory";
	case PT_ERR_IO: return "file could not be read or written";
	case PT_ERR_FORMAT: return "file content is malformed or unsupported";
	case PT_ERR_PARAM: return "a parameter value is out of range";
	case PT_ERR_STRIDE: return "a buffer's last dimension is not contiguous";
	case PT_ERR_READ: return "a read or reduction target outside its image or stage (an index the compiler could not check)";
	case PT_ERR_CASES: return "two cases of a stage hold at one point";
	case PT_ERR_UNDEFINED: return "a read of a point that no case of the stage defines";
	case PT_ERR_ALIGN: return "a buffer's data is not aligned to its element's size";
	case PT_ERR_DEVICE: return "the device refused or failed (no CUDA driver or GPU, a launch over the device's limits, a kernel that faulted, PTX the driver refused, a buffer whose newer copy is in device memory this target cannot use)";
	default: return "unknown error";
	}
}

void pt_copy_box(void *dst, const int64_t *dorigin, const int64_t *dstride, const void *src, const int64_t *sorigin,
	const int64_t *sstride, int ndim, int esize, const int64_t *box)
{
	int64_t x[PT_MAX_DIMS];
	for (int d = 0; d < ndim; d++) {
		if (box[2 * d] > box[2 * d + 1])
			return;
		x[d] = box[2 * d];
	}
	size_t row = ndim ? (size_t)(box[2 * ndim - 1] - box[2 * ndim - 2] + 1) * (size_t)esize : (size_t)esize;
	for (;;) {
		int64_t od = 0, os = 0;
		for (int d = 0; d < ndim; d++) {
			od += (x[d] - dorigin[d]) * dstride[d];
			os += (x[d] - sorigin[d]) * sstride[d];
		}
		memcpy((char *)dst + od * esize, (const char *)src + os * esize, row);
		int d = ndim - 2;
		while (d >= 0 && x[d] == box[2 * d + 1]) {
			x[d] = box[2 * d];
			d--;
		}
		if (d < 0)
			return;
		x[d]++;
	}
}
