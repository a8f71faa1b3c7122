/* values.c: arithmetic with the language's semantics (docs/language.md,
 * "Values").  No operation here has undefined behaviour in C. */
#include <float.h>
#include <math.h>

#include "typecheck.h"
#include "values.h"

/* IEEE round-to-nearest-even to single precision.  Out-of-range values
 * are handled here because converting them in C is undefined: up to
 * FLT_MAX plus half an ulp (0x1.ffffffp+127, a tie that rounds to the
 * even neighbour 2^128) the result is FLT_MAX, from there on infinity,
 * as float arithmetic in hardware (and in compiled code) gives. */
double pt_round_f32(double x)
{
	const double mid = 0x1.ffffffp+127;
	if (x >= mid && x < INFINITY)
		return INFINITY;
	if (x <= -mid && x > -INFINITY)
		return -INFINITY;
	if (x > FLT_MAX && x < mid)
		return FLT_MAX;
	if (x < -FLT_MAX && x > -mid)
		return -FLT_MAX;
	return (double)(float)x;
}

/* Wraps an integer to the width and signedness of t. */
static int64_t wrap(int t, int64_t v)
{
	uint64_t u = (uint64_t)v;
	switch (t) {
	case PT_BOOL: return v != 0;
	case PT_U8: return (int64_t)(uint8_t)u;
	case PT_U16: return (int64_t)(uint16_t)u;
	case PT_U32: return (int64_t)(uint32_t)u;
	case PT_I8: return (int64_t)(int8_t)(uint8_t)u;
	case PT_I16: return (int64_t)(int16_t)(uint16_t)u;
	case PT_I32: return (int64_t)(int32_t)(uint32_t)u;
	default: return v;
	}
}

pt_val pt_val_convert(pt_val v, int from, int to)
{
	if (from == to)
		return v;
	bool ff = pt_type_is_float(from), tf = pt_type_is_float(to);
	pt_val r;
	if (!ff && !tf) {
		r.i = wrap(to, v.i);
	} else if (!ff && tf) {
		r.f = to == PT_F32 ? pt_round_f32((double)v.i) : (double)v.i;
	} else if (ff && tf) {
		r.f = to == PT_F32 ? pt_round_f32(v.f) : v.f;
	} else if (to == PT_BOOL) {
		r.i = v.f != 0;
	} else {
		int64_t lo, hi;
		pt_type_range(to, &lo, &hi);
		double f = trunc(v.f);
		if (f != f)
			r.i = 0;
		else if (f <= (double)lo)
			r.i = lo;
		else if (f >= (double)hi)
			r.i = hi;
		else
			r.i = (int64_t)f;
	}
	return r;
}

static double fmodfloor(double a, double b)
{
	return a - b * floor(a / b);
}

/* One case per operator, no default: -Wswitch names this function when
 * an operator is added. */
pt_val pt_val_binary(int op, int t, pt_val x, pt_val y)
{
	bool f = pt_type_is_float(t);
	double a = x.f, b = y.f;
	int64_t i = x.i, j = y.i;
	uint64_t ua = (uint64_t)i, ub = (uint64_t)j;
	pt_val r = {0};
	switch ((pt_binop)op) {
	case PT_OP_LT: r.i = f ? a < b : i < j; return r;
	case PT_OP_LE: r.i = f ? a <= b : i <= j; return r;
	case PT_OP_GT: r.i = f ? a > b : i > j; return r;
	case PT_OP_GE: r.i = f ? a >= b : i >= j; return r;
	case PT_OP_EQ: r.i = f ? a == b : i == j; return r;
	case PT_OP_NE: r.i = f ? a != b : i != j; return r;
	case PT_OP_AND: r.i = i && j; return r;
	case PT_OP_OR: r.i = i || j; return r;
	case PT_OP_ADD: if (f) r.f = a + b; else r.i = (int64_t)(ua + ub); break;
	case PT_OP_SUB: if (f) r.f = a - b; else r.i = (int64_t)(ua - ub); break;
	case PT_OP_MUL: if (f) r.f = a * b; else r.i = (int64_t)(ua * ub); break;
	case PT_OP_DIV: if (f) r.f = a / b; else r.i = pt_floordiv(i, j); break;
	case PT_OP_MOD: if (f) r.f = fmodfloor(a, b); else r.i = pt_floormod(i, j); break;
	case PT_OP_BAND: r.i = i & j; break;
	case PT_OP_BOR: r.i = i | j; break;
	case PT_OP_BXOR: r.i = i ^ j; break;
	case PT_OP_SHL:
		r.i = (j < 0 || j >= pt_type_bits(t)) ? 0 : (int64_t)(ua << j);
		break;
	case PT_OP_SHR:
		r.i = (j < 0 || j >= pt_type_bits(t)) ? (i < 0 ? -1 : 0) : i >> j;
		break;
	case PT_OP_BINCOUNT:
		break;
	}
	if (!f)
		r.i = wrap(t, r.i);
	else if (t == PT_F32)
		r.f = pt_round_f32(r.f);
	return r;
}

pt_val pt_val_unary(int op, int t, pt_val x)
{
	pt_val r;
	if (pt_type_is_float(t)) {
		r.f = op == PT_OP_NEG ? -x.f : x.f;
		return r;
	}
	if (op == PT_OP_NEG)
		r.i = wrap(t, (int64_t)(0 - (uint64_t)x.i));
	else if (op == PT_OP_BNOT)
		r.i = wrap(t, ~x.i);
	else
		r.i = !x.i;
	return r;
}

pt_val pt_val_minmax(int t, pt_val x, pt_val y, int want_min)
{
	if (pt_type_is_float(t)) {
		/* NaN operands give the other operand, like fmin/fmax */
		pt_val r = {.f = want_min ? fmin(x.f, y.f) : fmax(x.f, y.f)};
		return r;
	}
	bool less = x.i < y.i;
	return (want_min ? less : !less) ? x : y;
}

pt_val pt_val_math(int in, int t, pt_val x, pt_val y)
{
	pt_val r = x;
	bool i = !pt_type_is_float(t), s = t == PT_F32;
	float a = (float)x.f, b = (float)y.f;
	switch ((pt_intrin)in) {
	case PT_IN_ABS:
		if (i)
			r.i = wrap(t, x.i < 0 ? (int64_t)(0 - (uint64_t)x.i) : x.i);
		else
			r.f = fabs(x.f);
		break;
	/* of an integer: that integer */
	case PT_IN_FLOOR: if (!i) r.f = floor(x.f); break;
	case PT_IN_CEIL: if (!i) r.f = ceil(x.f); break;
	case PT_IN_ROUND: if (!i) r.f = nearbyint(x.f); break;
	/* the checker gives these a float type */
	case PT_IN_SQRT: r.f = s ? sqrtf(a) : sqrt(x.f); break;
	case PT_IN_EXP: r.f = s ? expf(a) : exp(x.f); break;
	case PT_IN_LOG: r.f = s ? logf(a) : log(x.f); break;
	case PT_IN_POW: r.f = s ? powf(a, b) : pow(x.f, y.f); break;
	case PT_IN_SIN: r.f = s ? sinf(a) : sin(x.f); break;
	case PT_IN_COS: r.f = s ? cosf(a) : cos(x.f); break;
	case PT_IN_TAN: r.f = s ? tanf(a) : tan(x.f); break;
	case PT_IN_TANH: r.f = s ? tanhf(a) : tanh(x.f); break;
	case PT_IN_ATAN2: r.f = s ? atan2f(a, b) : atan2(x.f, y.f); break;
	/* min and max are pt_val_minmax; clamp is lowered by the checker */
	case PT_IN_MIN: case PT_IN_MAX: case PT_IN_CLAMP: case PT_IN_COUNT:
		break;
	}
	return r;
}

pt_val pt_val_identity(int op, int t)
{
	pt_val r = {0};
	bool f = pt_type_is_float(t);
	int64_t lo, hi;
	pt_type_range(t, &lo, &hi);
	switch (op) {
	case PT_RED_PROD: case PT_RED_AND:
		if (f) r.f = 1; else r.i = 1;
		break;
	case PT_RED_MIN:
		if (f) r.f = INFINITY; else r.i = hi;
		break;
	case PT_RED_MAX:
		if (f) r.f = -INFINITY; else r.i = lo;
		break;
	default:
		break;
	}
	return r;
}

pt_val pt_val_reduce(int op, int t, pt_val acc, pt_val v, int vt)
{
	if (op == PT_RED_AND || op == PT_RED_OR) {
		bool a = pt_type_is_float(t) ? acc.f != 0 : acc.i != 0;
		bool b = pt_type_is_float(vt) ? v.f != 0 : v.i != 0;
		bool r = op == PT_RED_AND ? (a && b) : (a || b);
		return pt_val_convert((pt_val){.i = r}, PT_BOOL, t);
	}
	pt_val x = pt_val_convert(v, vt, t);
	switch (op) {
	case PT_RED_SUM: return pt_val_binary(PT_OP_ADD, t, acc, x);
	case PT_RED_PROD: return pt_val_binary(PT_OP_MUL, t, acc, x);
	case PT_RED_MIN: return pt_val_minmax(t, acc, x, 1);
	default: return pt_val_minmax(t, acc, x, 0);
	}
}

pt_val pt_val_load(const void *data, pt_type t, int64_t o)
{
	pt_val r;
	switch (t) {
	case PT_U8: r.i = ((const uint8_t *)data)[o]; break;
	case PT_U16: r.i = ((const uint16_t *)data)[o]; break;
	case PT_U32: r.i = ((const uint32_t *)data)[o]; break;
	case PT_I8: r.i = ((const int8_t *)data)[o]; break;
	case PT_I16: r.i = ((const int16_t *)data)[o]; break;
	case PT_I32: r.i = ((const int32_t *)data)[o]; break;
	case PT_I64: r.i = ((const int64_t *)data)[o]; break;
	case PT_F32: r.f = ((const float *)data)[o]; break;
	case PT_F64: r.f = ((const double *)data)[o]; break;
	default: r.i = 0; break;
	}
	return r;
}

void pt_val_store(void *data, pt_type t, int64_t o, pt_val v)
{
	switch (t) {
	case PT_U8: ((uint8_t *)data)[o] = (uint8_t)v.i; break;
	case PT_U16: ((uint16_t *)data)[o] = (uint16_t)v.i; break;
	case PT_U32: ((uint32_t *)data)[o] = (uint32_t)v.i; break;
	case PT_I8: ((int8_t *)data)[o] = (int8_t)v.i; break;
	case PT_I16: ((int16_t *)data)[o] = (int16_t)v.i; break;
	case PT_I32: ((int32_t *)data)[o] = (int32_t)v.i; break;
	case PT_I64: ((int64_t *)data)[o] = v.i; break;
	case PT_F32: ((float *)data)[o] = (float)v.f; break;
	case PT_F64: ((double *)data)[o] = v.f; break;
	default: break;
	}
}
