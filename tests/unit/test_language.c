/* test_language.c: Check suite proving that each construct of the .pipe
 * language parses, checks and means what docs/language.md says.
 *
 * Every test parses a small pipeline with pt_parse_string, runs the
 * reference interpreter on a small hand-made input and compares the
 * results with values worked out by hand (written as literals in the
 * test).  Where a value is a libm result (sin, exp, ...) the expectation
 * is the same libm function applied in the same precision (f32 for float,
 * f64 for double), since that is the language's definition.
 * Comparisons are exact: the interpreter defines the semantics. */
#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polytile.h"

#include "run_suite.h"

/* Marks a point that must be undefined in expect_all(). */
#define UNDEF NAN

#include "fixture.h"

/* ---- fixture and helpers ---- */


/* Parses text (failing the test with the diagnostics if it does not
 * check) and makes a fresh interpreter for it. */
static pt_pipeline *load(const char *text)
{
	pt_pipeline *p = pt_parse_string(ctx, "test.pipe", text);
	ck_assert_msg(p != NULL, "pipeline did not parse:\n%s", pt_ctx_diagnostics(ctx));
	ck_assert_str_eq(pt_ctx_diagnostics(ctx), "");
	pt_interp_free(in);
	in = pt_interp_new(ctx, p);
	ck_assert_ptr_nonnull(in);
	return p;
}

static void set_param(const char *name, double v)
{
	ck_assert_msg(pt_interp_set_param(in, name, v) == 0, "set_param %s: %s", name,
		pt_ctx_diagnostics(ctx));
}

static double get_param(const char *name)
{
	double v = -12345;
	ck_assert_msg(pt_interp_get_param(in, name, &v) == 0, "param %s has no value", name);
	return v;
}

/* The multi-index of element i of a dense row-major buffer. */
static void unravel(const pt_buffer *b, int64_t i, int64_t *idx)
{
	for (int d = b->ndim - 1; d >= 0; d--) {
		idx[d] = b->extent[d] ? i % b->extent[d] : 0;
		i = b->extent[d] ? i / b->extent[d] : 0;
	}
}

/* Allocates a buffer (freed by the fixture) holding vals row-major. */
static pt_buffer *new_buffer(pt_type t, int ndim, const int64_t *ext, const double *vals)
{
	ck_assert_int_lt(nbufs, MAX_BUFS);
	pt_buffer *b = &bufs[nbufs++];
	ck_assert_int_eq(pt_buffer_alloc(b, t, ndim, ext), PT_OK);
	int64_t n = pt_buffer_count(b);
	for (int64_t i = 0; vals && i < n; i++) {
		int64_t idx[PT_MAX_DIMS];
		unravel(b, i, idx);
		pt_buffer_set(b, idx, vals[i]);
	}
	return b;
}

/* Binds image name to a new buffer with the values vals. */
static pt_buffer *input(const char *name, pt_type t, int ndim, const int64_t *ext, const double *vals)
{
	pt_buffer *b = new_buffer(t, ndim, ext, vals);
	ck_assert_msg(pt_interp_set_input(in, name, b) == 0, "set_input %s: %s", name,
		pt_ctx_diagnostics(ctx));
	return b;
}

#define EXT(...) ((const int64_t[]){__VA_ARGS__})
#define VALS(...) ((const double[]){__VA_ARGS__})

static void run_ok(void)
{
	ck_assert_msg(pt_interp_run(in) == 0, "run failed:\n%s", pt_ctx_diagnostics(ctx));
}

static const pt_buffer *result(const char *stage, const uint8_t **def, int64_t *origin)
{
	const pt_buffer *b = pt_interp_result(in, stage, def, origin);
	ck_assert_msg(b != NULL, "no result for stage '%s'", stage);
	return b;
}

/* Looks up the element of stage at a point in domain coordinates (n of
 * them as long long varargs); *defined tells whether a case defined it. */
static double lookup(const char *stage, int n, va_list ap, bool *defined)
{
	const uint8_t *def;
	int64_t origin[PT_MAX_DIMS], idx[PT_MAX_DIMS], off = 0;
	const pt_buffer *b = result(stage, &def, origin);
	ck_assert_int_eq(b->ndim, n);
	for (int d = 0; d < n; d++) {
		long long v = va_arg(ap, long long);
		idx[d] = v - origin[d];
		ck_assert_msg(idx[d] >= 0 && idx[d] < b->extent[d],
			"%s: index %lld of dimension %d is outside the buffer", stage, v, d + 1);
		off += idx[d] * b->stride[d];
	}
	*defined = def[off] != 0;
	return pt_buffer_get(b, idx);
}

/* The value of a defined point of stage; AT("f", 2, x, y). */
static double at_point(const char *stage, int n, ...)
{
	va_list ap;
	va_start(ap, n);
	bool def;
	double v = lookup(stage, n, ap, &def);
	va_end(ap);
	ck_assert_msg(def, "%s is not defined at the point asked for", stage);
	return v;
}
#define AT(stage, ...) at_point(stage, (int)(sizeof((long long[]){__VA_ARGS__}) / sizeof(long long)), \
	CAT_LL(__VA_ARGS__))

static bool defined_point(const char *stage, int n, ...)
{
	va_list ap;
	va_start(ap, n);
	bool def;
	lookup(stage, n, ap, &def);
	va_end(ap);
	return def;
}

/* Passes up to 4 indices as long long. */
#define LL1(a) (long long)(a)
#define LL2(a, b) (long long)(a), (long long)(b)
#define LL3(a, b, c) (long long)(a), (long long)(b), (long long)(c)
#define GET_LL(_1, _2, _3, NAME, ...) NAME
#define CAT_LL(...) GET_LL(__VA_ARGS__, LL3, LL2, LL1, 0)(__VA_ARGS__)
#define DEFINED(stage, ...) defined_point(stage, \
	(int)(sizeof((long long[]){__VA_ARGS__}) / sizeof(long long)), CAT_LL(__VA_ARGS__))

/* Compares the whole buffer of stage (row-major over its domain's box)
 * with exp; UNDEF entries must be undefined points. */
static void expect_all(const char *stage, int64_t n, const double *exp)
{
	const uint8_t *def;
	int64_t origin[PT_MAX_DIMS];
	const pt_buffer *b = result(stage, &def, origin);
	ck_assert_msg(pt_buffer_count(b) == n, "%s has %lld points, expected %lld", stage,
		(long long)pt_buffer_count(b), (long long)n);
	for (int64_t i = 0; i < n; i++) {
		int64_t idx[PT_MAX_DIMS];
		unravel(b, i, idx);
		if (isnan(exp[i])) {
			ck_assert_msg(!def[i], "%s: element %lld should be undefined", stage, (long long)i);
			continue;
		}
		ck_assert_msg(def[i], "%s: element %lld is undefined, expected %.17g", stage, (long long)i, exp[i]);
		double v = pt_buffer_get(b, idx);
		ck_assert_msg(v == exp[i], "%s: element %lld is %.17g, expected %.17g", stage,
			(long long)i, v, exp[i]);
	}
}
#define EXPECT(stage, ...) expect_all(stage, (int64_t)(sizeof(VALS(__VA_ARGS__)) / sizeof(double)), \
	VALS(__VA_ARGS__))

static void expect_origin(const char *stage, int n, const int64_t *lo, const int64_t *ext)
{
	int64_t origin[PT_MAX_DIMS];
	const pt_buffer *b = result(stage, NULL, origin);
	ck_assert_int_eq(b->ndim, n);
	for (int d = 0; d < n; d++) {
		ck_assert_msg(origin[d] == lo[d], "%s: origin[%d] = %lld, expected %lld", stage, d,
			(long long)origin[d], (long long)lo[d]);
		ck_assert_msg(b->extent[d] == ext[d], "%s: extent[%d] = %lld, expected %lld", stage, d,
			(long long)b->extent[d], (long long)ext[d]);
	}
}

/* Raw integer element i of a buffer, without going through double. */
static int64_t raw_int(const pt_buffer *b, int64_t i)
{
	switch (b->type) {
	case PT_U8: return ((const uint8_t *)b->data)[i];
	case PT_U16: return ((const uint16_t *)b->data)[i];
	case PT_U32: return ((const uint32_t *)b->data)[i];
	case PT_I8: return ((const int8_t *)b->data)[i];
	case PT_I16: return ((const int16_t *)b->data)[i];
	case PT_I32: return ((const int32_t *)b->data)[i];
	case PT_I64: return ((const int64_t *)b->data)[i];
	default: ck_abort_msg("raw_int on a float buffer"); return 0;
	}
}

static void set_raw_int(pt_buffer *b, int64_t i, int64_t v)
{
	switch (b->type) {
	case PT_U8: ((uint8_t *)b->data)[i] = (uint8_t)v; break;
	case PT_U16: ((uint16_t *)b->data)[i] = (uint16_t)v; break;
	case PT_U32: ((uint32_t *)b->data)[i] = (uint32_t)v; break;
	case PT_I8: ((int8_t *)b->data)[i] = (int8_t)v; break;
	case PT_I16: ((int16_t *)b->data)[i] = (int16_t)v; break;
	case PT_I32: ((int32_t *)b->data)[i] = (int32_t)v; break;
	case PT_I64: ((int64_t *)b->data)[i] = v; break;
	default: ck_abort_msg("set_raw_int on a float buffer");
	}
}

/* ---- element types ---- */

/* Every type name and alias: an image of that type is read, copied to a
 * stage of that type, and incremented with the type's wrap-around. */
static const struct {
	const char *name;
	pt_type t;
	int64_t lo, hi;
} int_types[] = {
	{"u8", PT_U8, 0, 255}, {"uchar", PT_U8, 0, 255},
	{"u16", PT_U16, 0, 65535}, {"ushort", PT_U16, 0, 65535},
	{"u32", PT_U32, 0, 4294967295LL}, {"uint", PT_U32, 0, 4294967295LL},
	{"i8", PT_I8, -128, 127}, {"char", PT_I8, -128, 127},
	{"i16", PT_I16, -32768, 32767}, {"short", PT_I16, -32768, 32767},
	{"i32", PT_I32, INT32_MIN, INT32_MAX}, {"int", PT_I32, INT32_MIN, INT32_MAX},
	{"i64", PT_I64, INT64_MIN, INT64_MAX}, {"long", PT_I64, INT64_MIN, INT64_MAX},
};

START_TEST(int_type_and_alias)
{
	const char *tn = int_types[_i].name;
	char text[512];
	snprintf(text, sizeof(text),
		"pipeline types\n"
		"image I : %s [3]\n"
		"func f(i : 0 .. 2) : %s = I(i)\n"
		"func g(i : 0 .. 2) : %s = I(i) + 1\n"
		"func h(i : 0 .. 2) : %s = I(i) - 1\n"
		"output f, g, h\n", tn, tn, tn, tn);
	load(text);
	pt_buffer *b = new_buffer(int_types[_i].t, 1, EXT(3), NULL);
	int64_t lo = int_types[_i].lo, hi = int_types[_i].hi;
	set_raw_int(b, 0, lo);
	set_raw_int(b, 1, 7);
	set_raw_int(b, 2, hi);
	ck_assert_int_eq(pt_interp_set_input(in, "I", b), 0);
	run_ok();
	const pt_buffer *f = result("f", NULL, NULL), *g = result("g", NULL, NULL), *h = result("h", NULL, NULL);
	ck_assert_int_eq(f->type, int_types[_i].t);
	ck_assert_int_eq(g->type, int_types[_i].t);
	ck_assert_int_eq(h->type, int_types[_i].t);
	/* f copies */
	ck_assert(raw_int(f, 0) == lo && raw_int(f, 1) == 7 && raw_int(f, 2) == hi);
	/* g = I + 1: hi + 1 wraps to lo */
	ck_assert(raw_int(g, 0) == lo + 1 && raw_int(g, 1) == 8);
	ck_assert_msg(raw_int(g, 2) == lo, "%s: max + 1 gave %lld", tn, (long long)raw_int(g, 2));
	/* h = I - 1: lo - 1 wraps to hi */
	ck_assert_msg(raw_int(h, 0) == hi, "%s: min - 1 gave %lld", tn, (long long)raw_int(h, 0));
	ck_assert(raw_int(h, 1) == 6 && raw_int(h, 2) == hi - 1);
}
END_TEST

static const struct {
	const char *name;
	pt_type t;
} float_types[] = {
	{"f32", PT_F32}, {"float", PT_F32}, {"f64", PT_F64}, {"double", PT_F64},
};

START_TEST(float_type_and_alias)
{
	const char *tn = float_types[_i].name;
	bool single = float_types[_i].t == PT_F32;
	char text[512];
	snprintf(text, sizeof(text),
		"pipeline types\n"
		"image I : %s [3]\n"
		"func f(i : 0 .. 2) : %s = I(i)\n"
		"func g(i : 0 .. 2) : %s = I(i) + 1\n"
		"func t(i : 0 .. 2) : %s = I(i) / 3\n"
		"output f, g, t\n", tn, tn, tn, tn);
	load(text);
	double big = single ? 3.0e38 : 1.0e300;
	if (single)
		big = (float)big;
	input("I", float_types[_i].t, 1, EXT(3), VALS(-1.5, 0.25, big));
	run_ok();
	ck_assert_int_eq(result("f", NULL, NULL)->type, float_types[_i].t);
	ck_assert_int_eq(result("g", NULL, NULL)->type, float_types[_i].t);
	EXPECT("f", -1.5, 0.25, big);
	EXPECT("g", -0.5, 1.25, big);          /* 1 is absorbed by the big value */
	if (single)
		EXPECT("t", -0.5, (double)(0.25f / 3.0f), (double)((float)big / 3.0f));
	else
		EXPECT("t", -0.5, 0.25 / 3.0, big / 3.0);
}
END_TEST

START_TEST(bool_is_not_a_value_type)
{
	pt_pipeline *p = pt_parse_string(ctx, "t.pipe",
		"pipeline t\nfunc f(x : 0 .. 1) : bool = x > 0\noutput f\n");
	ck_assert_ptr_null(p);
	ck_assert_ptr_nonnull(strstr(pt_ctx_diagnostics(ctx), "unknown type 'bool'"));
}
END_TEST

START_TEST(stage_types_wrap_on_store)
{
	load("pipeline wrap\n"
		"image A : u8 [2]\n"
		"func s_u8(i : 0 .. 1) : u8 = A(i) + 200\n"
		"func s_u16(i : 0 .. 1) : u16 = A(i) * 1311\n"
		"func s_u32(i : 0 .. 1) : u32 = A(i) - 51\n"
		"func s_i8(i : 0 .. 1) : i8 = A(i) * 3\n"
		"func s_i16(i : 0 .. 1) : i16 = A(i) * 700\n"
		"func s_i32(i : 0 .. 1) : i32 = A(i) * 50000000\n"
		"func s_i64(i : 0 .. 1) : i64 = long(A(i)) * 50000000\n"
		"func s_f32(i : 0 .. 1) : f32 = A(i) / 3.0\n"
		"func s_f64(i : 0 .. 1) : f64 = double(A(i)) / 3\n"
		"output s_u8, s_u16, s_u32, s_i8, s_i16, s_i32, s_i64, s_f32, s_f64\n");
	input("A", PT_U8, 1, EXT(2), VALS(50, 60));
	run_ok();
	EXPECT("s_u8", 250, 4);                         /* 260 - 256 */
	EXPECT("s_u16", 14, 13124);                     /* 65550, 78660 mod 65536 */
	EXPECT("s_u32", 4294967295.0, 9);               /* -1 mod 2^32 */
	EXPECT("s_i8", -106, -76);                      /* 150, 180 - 256 */
	EXPECT("s_i16", -30536, -23536);                /* 35000, 42000 - 65536 */
	EXPECT("s_i32", -1794967296, -1294967296);      /* 2.5e9, 3e9 - 2^32 */
	EXPECT("s_i64", 2500000000.0, 3000000000.0);
	EXPECT("s_f32", (double)(50.0f / 3.0f), 20.0);
	EXPECT("s_f64", 50.0 / 3.0, 20.0);
}
END_TEST

/* ---- params ---- */

START_TEST(params_with_and_without_estimates)
{
	load("pipeline params\n"
		"param N : int = 4\n"
		"param M : long\n"
		"param g : float = 0.5\n"
		"param h : double\n"
		"param E : int = 2 * 3 + 1\n"
		"param k : float = -1.5\n"
		"func f(x : 0 .. N-1) : double = g * x + h * M\n"
		"func e(x : 0 .. 0) : float = E * k\n"
		"output f, e\n");
	set_param("M", 3);
	set_param("h", 0.25);
	ck_assert_int_eq(pt_interp_set_param(in, "N", 2.5), -1);      /* ints must be integral */
	ck_assert_int_eq(pt_interp_set_param(in, "nope", 1), -1);
	pt_ctx_clear_diagnostics(ctx);
	run_ok();
	ck_assert(get_param("N") == 4);
	ck_assert(get_param("g") == 0.5);
	ck_assert(get_param("E") == 7);
	ck_assert(get_param("M") == 3);
	EXPECT("f", 0.75, 1.25, 1.75, 2.25);
	EXPECT("e", -10.5);
}
END_TEST

START_TEST(params_set_override_estimates)
{
	load("pipeline params\n"
		"param N : int = 4\n"
		"param g : float = 0.5\n"
		"param d : double = 0.5\n"
		"func f(x : 0 .. N-1) : double = g * x\n"
		"func e(x : 0 .. 0) : double = d\n"
		"output f, e\n");
	set_param("N", 2);
	set_param("g", 0.1);            /* a float param is rounded to f32 */
	set_param("d", 0.1);            /* a double param is not */
	run_ok();
	ck_assert(get_param("g") == (double)0.1f);
	EXPECT("f", 0.0, (double)0.1f);
	EXPECT("e", 0.1);
}
END_TEST

START_TEST(params_inferred_from_inputs)
{
	load("pipeline infer\n"
		"param R : int\n"
		"param C : int\n"
		"image I : u8 [R+2, 2*C]\n"
		"func f(x : 0 .. R-1) : int = I(x+1, 2*C-1)\n"
		"output f\n");
	input("I", PT_U8, 2, EXT(5, 8), VALS(
		0, 1, 2, 3, 4, 5, 6, 7,
		10, 11, 12, 13, 14, 15, 16, 17,
		20, 21, 22, 23, 24, 25, 26, 27,
		30, 31, 32, 33, 34, 35, 36, 37,
		40, 41, 42, 43, 44, 45, 46, 47));
	ck_assert_int_eq(pt_interp_infer_params(in), 0);
	ck_assert(get_param("R") == 3);
	ck_assert(get_param("C") == 4);
	int64_t ext[2];
	ck_assert_int_eq(pt_interp_image_extents(in, "I", ext), 0);
	ck_assert(ext[0] == 5 && ext[1] == 8);
	run_ok();
	EXPECT("f", 17, 27, 37);
}
END_TEST

/* ---- images ---- */

START_TEST(images_of_one_to_three_dims)
{
	load("pipeline dims\n"
		"param R : int\n"
		"param C : int\n"
		"image A : i32 [R]\n"
		"image B : i32 [R+1, 2*C]\n"
		"image V : i32 [3, R-1, C/2+1]\n"
		"func f(x : 0 .. R-1) : int = A(x) + B(x+1, 2*C-1) + V(2, R-2, C/2)\n"
		"func v(c : 0 .. 2, x : 0 .. R-2, y : 0 .. C/2) : int = V(c, x, y) * 2\n"
		"output f, v\n");
	double b[4 * 8], v[3 * 2 * 3];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 8; j++)
			b[i * 8 + j] = 100 * i + j;
	for (int c = 0; c < 3; c++)
		for (int x = 0; x < 2; x++)
			for (int y = 0; y < 3; y++)
				v[(c * 2 + x) * 3 + y] = 1000 * c + 10 * x + y;
	input("A", PT_I32, 1, EXT(3), VALS(1, 2, 3));
	input("B", PT_I32, 2, EXT(4, 8), b);
	input("V", PT_I32, 3, EXT(3, 2, 3), v);
	run_ok();               /* R from A, then C from B (2*C = 8) */
	ck_assert(get_param("R") == 3 && get_param("C") == 4);
	int64_t ext[3];
	ck_assert_int_eq(pt_interp_image_extents(in, "V", ext), 0);
	ck_assert(ext[0] == 3 && ext[1] == 2 && ext[2] == 3);
	/* A(x) + B(x+1, 7) + V(2, 1, 2) */
	EXPECT("f", 1 + 107 + 2012, 2 + 207 + 2012, 3 + 307 + 2012);
	expect_origin("v", 3, EXT(0, 0, 0), EXT(3, 2, 3));
	ck_assert(AT("v", 2, 1, 2) == 4024);
	ck_assert(AT("v", 1, 0, 1) == 2002);
	ck_assert(AT("v", 0, 1, 0) == 20);
}
END_TEST

/* ---- domains ---- */

START_TEST(domains_affine_floor_division_and_steps)
{
	load("pipeline dom\n"
		"param R : int\n"
		"var y : -1 .. R-2 step 2\n"
		"func f(x : 1 .. R/2, y) : int = 100*x + y\n"
		"func g(z : -R/2 .. (R+1)/2) : int = z\n"
		"func h(w : (2*R)/3 .. R/2 + 4) : int = w\n"
		"func s(t : 0 .. R step 3) : int = t * t\n"
		"output f, g, h, s\n");
	set_param("R", 7);
	run_ok();
	/* x in 1 .. 3; y in -1 .. 5 step 2 (the box is -1 .. 5, odd y only) */
	expect_origin("f", 2, EXT(1, -1), EXT(3, 7));
	EXPECT("f",
		99, UNDEF, 101, UNDEF, 103, UNDEF, 105,
		199, UNDEF, 201, UNDEF, 203, UNDEF, 205,
		299, UNDEF, 301, UNDEF, 303, UNDEF, 305);
	/* -7/2 floors to -4; 8/2 = 4 */
	expect_origin("g", 1, EXT(-4), EXT(9));
	EXPECT("g", -4, -3, -2, -1, 0, 1, 2, 3, 4);
	/* 14/3 = 4 .. 3 + 4 = 7 */
	expect_origin("h", 1, EXT(4), EXT(4));
	EXPECT("h", 4, 5, 6, 7);
	/* 0 .. 7 step 3: 0, 3, 6; the box stops at the last point */
	expect_origin("s", 1, EXT(0), EXT(7));
	EXPECT("s", 0, UNDEF, UNDEF, 9, UNDEF, UNDEF, 36);
}
END_TEST

START_TEST(domain_with_var_declarations)
{
	load("pipeline vars\n"
		"param N : int = 3\n"
		"var i : 0 .. N\n"
		"var j : 1 .. 2\n"
		"func f(i, j) : int = 10 * i + j\n"
		"var i : 5 .. 6\n"                  /* a later var replaces the interval */
		"func g(i) : int = i\n"
		"func k(i : 0 .. 1, j) : int = f(min(i, N), j) + g(i + 5)\n"
		"output f, g, k\n");
	run_ok();
	expect_origin("f", 2, EXT(0, 1), EXT(4, 2));
	EXPECT("f", 1, 2, 11, 12, 21, 22, 31, 32);
	expect_origin("g", 1, EXT(5), EXT(2));
	EXPECT("g", 5, 6);
	EXPECT("k", 6, 7, 17, 18);
}
END_TEST

/* ---- piecewise definitions ---- */

START_TEST(cases_conditions_and_else)
{
	load("pipeline cases\n"
		"var x : 0 .. 7\n"
		"cond low = x < 2\n"
		"func f(x) : int\n"
		"  | low -> 10\n"
		"  | x >= 6 -> 20 + x\n"
		"  | else -> 30\n"
		"func g(x) : int\n"
		"  | x % 2 == 0 -> x / 2\n"
		"func h(x) : int | x == 3 -> 1\n"
		"  | else -> 0\n"
		"func k(x) : int | else -> 5\n"
		"func m(x) : int = x | 8\n"             /* '|' inside a line is bitwise or */
		"output f, g, h, k, m\n");
	run_ok();
	EXPECT("f", 10, 10, 30, 30, 30, 30, 26, 27);
	EXPECT("g", 0, UNDEF, 1, UNDEF, 2, UNDEF, 3, UNDEF);
	EXPECT("h", 0, 0, 0, 1, 0, 0, 0, 0);
	EXPECT("k", 5, 5, 5, 5, 5, 5, 5, 5);
	EXPECT("m", 8, 9, 10, 11, 12, 13, 14, 15);
}
END_TEST

START_TEST(expressions_span_lines)
{
	load("pipeline lines\n"
		"func f(x : 0 .. 2) : int =\n"
		"  x * 100\n"
		"  + (x\n"
		"     - 1)\n"
		"  * 2\n"
		"output f\n");
	run_ok();
	EXPECT("f", -2, 100, 202);
}
END_TEST

/* ---- stencil sugar ---- */

START_TEST(stencil_expansion)
{
	load("pipeline st\n"
		"image I : int [3, 4]\n"
		"func s(x : 1 .. 1, y : 1 .. 2) : int = stencil(I(x, y), 2, [[1, 2, 3], [4, 5, 6], [7, 8, 9]])\n"
		"func d(x : 0 .. 2, y : 1 .. 3) : int = stencil(I(x, y), 1, [1, -1])\n"
		"func v(x : 1 .. 1, y : 0 .. 3) : float = stencil(I(x, y), 0.5, [[1], [0], [3]])\n"
		"const W = 2\n"
		"func c(x : 1 .. 1, y : 1 .. 1) : int = stencil(I(x, y), 1, [[0, W, 0], [W, -4 * W, W], [0, W, 0]])\n"
		"output s, d, v, c\n");
	input("I", PT_I32, 2, EXT(3, 4), VALS(
		1, 2, 4, 8,
		16, 32, 64, 128,
		256, 512, 1024, 2048));
	run_ok();
	/* 2 * (1*1 + 2*2 + 3*4 + 4*16 + 5*32 + 6*64 + 7*256 + 8*512 + 9*1024) */
	EXPECT("s", 31458, 62916);
	/* an even-sized matrix is centred at n/2: I(x, y-1) - I(x, y) */
	EXPECT("d", -1, -2, -4, -16, -32, -64, -256, -512, -1024);
	/* (I(x-1, y) + 3*I(x+1, y)) * 0.5; the zero weight is dropped */
	EXPECT("v", 384.5, 769, 1538, 3076);
	/* 2*(2 + 16 + 64 + 512) - 8*32 */
	EXPECT("c", 932);
}
END_TEST

/* ---- select and ?: ---- */

START_TEST(select_and_conditional)
{
	load("pipeline sel\n"
		"image A : int [5]\n"
		"func s(x : 0 .. 4) : int = select(A(x) > 2, A(x), -A(x))\n"
		"func t(x : 0 .. 4) : int = A(x) < 0 ? 1 : A(x) < 5 ? 2 : 3\n"
		"func u(x : 0 .. 4) : float = x > 2 ? 0.5 : x\n"
		"func w(x : 0 .. 4) : int | select(x > 1, x < 4, x == 0) -> 1\n"
		"  | else -> 0\n"
		"func w2(x : 0 .. 4) : int | (x > 1 ? x < 4 : x == 0) -> 1\n"
		"  | else -> 0\n"
		"func lazy(x : 0 .. 4) : int = x > 0 ? A(x - 1) : 100\n"
		"func sc(x : 0 .. 4) : int | x > 0 && A(x - 1) > 0 -> 1\n"
		"  | x == 0 || A(x - 1) <= 0 -> 0\n"
		"output s, t, u, w, w2, lazy, sc\n");
	input("A", PT_I32, 1, EXT(5), VALS(-2, 0, 3, 7, 10));
	run_ok();
	EXPECT("s", 2, 0, 3, 7, 10);
	EXPECT("t", 1, 2, 2, 3, 3);            /* ?: is right-associative */
	EXPECT("u", 0, 1, 2, 0.5, 0.5);        /* int and float branches give float */
	EXPECT("w", 1, 0, 1, 1, 0);
	EXPECT("w2", 1, 0, 1, 1, 0);
	/* only the branch taken is evaluated, so A(-1) is never read */
	EXPECT("lazy", 100, -2, 0, 3, 7);
	/* && and || do not evaluate their right side when the left decides */
	EXPECT("sc", 0, 0, 0, 1, 1);
}
END_TEST

START_TEST(case_bar_must_start_a_line)
{
	/* A case may start on the header's line; the next '|' must begin a
	 * line to start another case. */
	load("pipeline one\n"
		"func f(x : 0 .. 2) : int | x == 0 -> 7\n"
		"  | x != 0 -> x | 4\n"
		"output f\n");
	run_ok();
	EXPECT("f", 7, 5, 6);
}
END_TEST

/* ---- casts ---- */

START_TEST(casts_truncate_saturate_and_wrap)
{
	load("pipeline casts\n"
		"param v : float = 0\n"
		"image L : i32 [1]\n"
		"func c(i : 0 .. 15) : int\n"
		"  | i == 0 -> int(2.7)\n"
		"  | i == 1 -> int(-2.7)\n"
		"  | i == 2 -> int(u8(300.0))\n"
		"  | i == 3 -> int(u8(-5.5))\n"
		"  | i == 4 -> int(i8(-200.0))\n"
		"  | i == 5 -> int(u8(300))\n"
		"  | i == 6 -> int(i8(200))\n"
		"  | i == 7 -> int(u16(-1))\n"
		"  | i == 8 -> int(sqrt(v - 1.0))\n"
		"  | i == 9 -> int(2.0e10)\n"
		"  | i == 10 -> int(long(2.0e10))\n"
		"  | i == 11 -> int(float(16777217))\n"
		"  | i == 12 -> int(i16(40000.0))\n"
		"  | i == 13 -> 2.75 * 2\n"
		"  | i == 14 -> -2.75 * 2\n"
		"  | i == 15 -> int(short(L(0)))\n"
		"func u(i : 0 .. 1) : u8\n"
		"  | i == 0 -> 1000.5\n"
		"  | i == 1 -> -3.0\n"
		"func big(i : 0 .. 0) : long = long(float(3000000000))\n"
		"output c, u, big\n");
	input("L", PT_I32, 1, EXT(1), VALS(98765));
	run_ok();
	EXPECT("c",
		2, -2,
		255, 0, -128,                  /* float to int saturates */
		44, -56, 65535,                /* int to int wraps */
		0,                             /* NaN gives 0 */
		2147483647,                    /* 2e10 saturates to i32 */
		-1474836480,                   /* 20000000000 - 5 * 2^32 */
		16777216,                      /* f32 has 24 bits */
		32767,
		5, -5,                         /* 5.5 and -5.5 truncate when stored */
		-32307);                       /* 98765 - 2 * 65536 */
	EXPECT("u", 255, 0);                   /* a float value stored to u8 saturates */
	EXPECT("big", 3000000000.0);
}
END_TEST

/* ---- intrinsics ---- */

START_TEST(integer_intrinsics)
{
	load("pipeline ii\n"
		"image B : u8 [1]\n"
		"func r(i : 0 .. 11) : int\n"
		"  | i == 0 -> min(5, -3)\n"
		"  | i == 1 -> max(5, -3, 9)\n"
		"  | i == 2 -> clamp(17, 0, 10)\n"
		"  | i == 3 -> clamp(-4, 0, 10) + clamp(i, 0, 10)\n"
		"  | i == 4 -> abs(-7)\n"
		"  | i == 5 -> abs(B(0) - 250)\n"
		"  | i == 6 -> floor(7)\n"
		"  | i == 7 -> ceil(-7)\n"
		"  | i == 8 -> round(5) + min(i, 4)\n"
		"  | i == 9 -> abs(-2147483647 - 1)\n"
		"  | i == 10 -> min(3, 1, 2, 0, 4)\n"
		"  | i == 11 -> max(B(0), 199)\n"
		"output r\n");
	input("B", PT_U8, 1, EXT(1), VALS(200));
	run_ok();
	EXPECT("r", -3, 9, 10, 3, 7, 50, 7, -7, 9,
		-2147483648.0,         /* abs of the least i32 wraps */
		0, 200);
}
END_TEST

START_TEST(float_intrinsics)
{
	load("pipeline fi\n"
		"param a : float = 0.5\n"
		"func r(i : 0 .. 20) : float\n"
		"  | i == 0 -> min(3, 1.5)\n"
		"  | i == 1 -> max(-1.0, 2, 0.5)\n"
		"  | i == 2 -> clamp(2.5, 0, 1)\n"
		"  | i == 3 -> abs(-2.25)\n"
		"  | i == 4 -> sqrt(2.0)\n"
		"  | i == 5 -> exp(1.0)\n"
		"  | i == 6 -> log(10.0)\n"
		"  | i == 7 -> pow(2.0, 10)\n"
		"  | i == 8 -> pow(2.0, 0.5)\n"
		"  | i == 9 -> floor(-2.5)\n"
		"  | i == 10 -> ceil(-2.5)\n"
		"  | i == 11 -> round(2.5)\n"
		"  | i == 12 -> round(3.5) + round(-0.5)\n"
		"  | i == 13 -> sin(a)\n"
		"  | i == 14 -> cos(a)\n"
		"  | i == 15 -> tan(a)\n"
		"  | i == 16 -> atan2(1.0, -1.0)\n"
		"  | i == 17 -> tanh(a)\n"
		"  | i == 18 -> sqrt(16)\n"
		"  | i == 19 -> min(0.0 / 0.0, 1.0)\n"
		"  | i == 20 -> round(-2.6)\n"
		"output r\n");
	run_ok();
	EXPECT("r",
		1.5, 2.0, 1.0, 2.25,
		(double)sqrtf(2.0f), (double)expf(1.0f), (double)logf(10.0f),
		1024.0, (double)powf(2.0f, 0.5f),
		-3.0, -2.0,
		2.0,                   /* round: ties to even */
		4.0,                   /* round(3.5) + round(-0.5) = 4 + -0 */
		(double)sinf(0.5f), (double)cosf(0.5f), (double)tanf(0.5f),
		(double)atan2f(1.0f, -1.0f), (double)tanhf(0.5f),
		4.0,                   /* an int argument is converted to float */
		1.0,                   /* min ignores a NaN operand */
		-3.0);
}
END_TEST

START_TEST(double_intrinsics)
{
	load("pipeline di\n"
		"param d : double = 0.5\n"
		"func r(i : 0 .. 5) : double\n"
		"  | i == 0 -> sin(d)\n"
		"  | i == 1 -> sqrt(d)\n"
		"  | i == 2 -> pow(d, 3)\n"
		"  | i == 3 -> exp(d) + 0.1\n"
		"  | i == 4 -> atan2(d, 1)\n"
		"  | i == 5 -> log(d) * cos(d) + tanh(d) - tan(d)\n"
		"output r\n");
	run_ok();
	EXPECT("r", sin(0.5), sqrt(0.5), 0.125,
		exp(0.5) + 0.1,        /* the literal is read as a double next to a double */
		atan2(0.5, 1.0),
		log(0.5) * cos(0.5) + tanh(0.5) - tan(0.5));
}
END_TEST

START_TEST(round_agrees_at_compile_time)
{
	/* const and if evaluate at compile time; they must round like the
	 * interpreter (ties to even). */
	load("pipeline rc\n"
		"const A = round(2.5)\n"
		"const B = round(-3.5)\n"
		"const F = floor(7) + ceil(1) + round(1)\n"     /* of ints: ints, usable in bounds */
		"func h(i : 0 .. F) : int = i\n"
		"func f(i : 0 .. 1) : float | i == 0 -> A\n"
		"  | i == 1 -> round(2.5)\n"
		"func g(i : 0 .. 1) : float | i == 0 -> B\n"
		"  | i == 1 -> round(-3.5)\n"
		"output f, g, h\n");
	run_ok();
	EXPECT("f", 2, 2);
	EXPECT("g", -4, -4);
	EXPECT("h", 0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
}
END_TEST

/* Constants are evaluated with values.c on i64/f64: each case pairs a
 * constant with the same operation at run time on i64/f64 (issue 9: const
 * K = 1 << 63 was 0, int(1e20) was rejected, u8(300) was 300, a NaN
 * first argument of min won). */
START_TEST(constants_follow_runtime_semantics_on_i64_f64)
{
	load("pipeline cs\n"
		"image Z : long [1]\n"
		"image F : double [1]\n"
		"const K = 1 << 63\n"
		"const S = 1 << 64\n"
		"const T = -8 >> 70\n"
		"const W = 9223372036854775807 + 1\n"
		"const D = 7 / 0 + 7 % 0\n"
		"const C = int(1e20)\n"
		"const U = u8(300)\n"
		"const L = long(-1e30)\n"
		"const A = abs(-9223372036854775807 - 1)\n"
		"func k(i : 0 .. 8) : long | i == 0 -> K\n"
		"  | i == 1 -> S\n"
		"  | i == 2 -> T\n"
		"  | i == 3 -> W\n"
		"  | i == 4 -> D\n"
		"  | i == 5 -> C\n"
		"  | i == 6 -> U\n"
		"  | i == 7 -> L\n"
		"  | i == 8 -> A\n"
		"func r(i : 0 .. 8) : long | i == 0 -> i64(1) << 63\n"
		"  | i == 1 -> i64(1) << 64\n"
		"  | i == 2 -> i64(-8) >> 70\n"
		"  | i == 3 -> 9223372036854775807 + Z(0) + 1\n"
		"  | i == 4 -> i64(7) / Z(0) + i64(7) % Z(0)\n"
		"  | i == 5 -> int(double(1e20))\n"
		"  | i == 6 -> u8(300)\n"
		"  | i == 7 -> long(F(0) - 1e30)\n"
		"  | i == 8 -> abs(-9223372036854775807 - 1 + Z(0))\n"
		"const N = min(0.0 / 0.0, 2.0) + max(0.0 / 0.0, 3.0)\n"
		"const M = -7.0 % 2.5\n"
		"const Q = sqrt(2)\n"
		"const P = 7.0 % 0.0\n"
		"func f(i : 0 .. 3) : double | i == 0 -> double(N)\n"
		"  | i == 1 -> double(M)\n"
		"  | i == 2 -> Q + F(0)\n"
		"  | i == 3 -> double(P)\n"
		"output k, r, f\n");
	input("Z", PT_I64, 1, EXT(1), VALS(0));
	input("F", PT_F64, 1, EXT(1), VALS(0));
	run_ok();
	EXPECT("k", -9223372036854775808.0, 0, -1, -9223372036854775808.0, 0, 2147483647, 44,
		-9223372036854775808.0, -9223372036854775808.0);
	EXPECT("r", -9223372036854775808.0, 0, -1, -9223372036854775808.0, 0, 2147483647, 44,
		-9223372036854775808.0, -9223372036854775808.0);
	ck_assert(at_point("f", 1, 0) == 5.0);        /* fmin/fmax ignore the NaN */
	ck_assert(at_point("f", 1, 1) == 0.5);
	ck_assert(at_point("f", 1, 2) == sqrt(2.0));   /* f64, the literal widened next to F */
	ck_assert(isnan(at_point("f", 1, 3)));
}
END_TEST

/* ---- promotion and literals ---- */

START_TEST(integer_promotion)
{
	load("pipeline promo\n"
		"image A : u8 [2]\n"
		"image U : u32 [1]\n"
		"image S : i8 [1]\n"
		"func p(i : 0 .. 0) : int = A(0) + A(1)\n"
		"func q(i : 0 .. 0) : int = A(1) - A(0)\n"
		"func w(i : 0 .. 0) : u8 = A(0) + A(1)\n"
		"func m(i : 0 .. 0) : int = A(0) * A(0) * A(0)\n"
		"func n(i : 0 .. 0) : int = -A(1)\n"
		"func cpl(i : 0 .. 0) : int = ~A(0)\n"
		"func ss(i : 0 .. 0) : int = S(0) * S(0)\n"
		"func us(i : 0 .. 0) : long = U(0) - 6\n"
		"func ul(i : 0 .. 0) : long = long(U(0)) - 6\n"
		"func uc(i : 0 .. 0) : int | U(0) - 6 > 0 -> 1\n"
		"  | else -> 0\n"
		"func wrap(i : 0 .. 0) : long = 2147483647 + i + 1\n"
		"func lit(i : 0 .. 0) : long = 3000000000 + i + 1\n"
		"func idiv(i : 0 .. 0) : double = A(1) / 8\n"
		"func fdiv(i : 0 .. 0) : double = A(1) / 8.0\n"
		"output p, q, w, m, n, cpl, ss, us, ul, uc, wrap, lit, idiv, fdiv\n");
	input("A", PT_U8, 1, EXT(2), VALS(200, 100));
	input("U", PT_U32, 1, EXT(1), VALS(5));
	input("S", PT_I8, 1, EXT(1), VALS(-100));
	run_ok();
	EXPECT("p", 300);                      /* u8 + u8 is int: no wrap */
	EXPECT("q", -100);
	EXPECT("w", 44);                       /* stored to u8: wraps */
	EXPECT("m", 8000000);
	EXPECT("n", -100);
	EXPECT("cpl", -201);
	EXPECT("ss", 10000);
	EXPECT("us", 4294967295.0);            /* u32 - int is u32 */
	EXPECT("ul", -1);
	EXPECT("uc", 1);
	EXPECT("wrap", -2147483648.0);         /* int + int stays int and wraps */
	EXPECT("lit", 3000000001.0);           /* a literal beyond int is long */
	EXPECT("idiv", 12);
	EXPECT("fdiv", 12.5);
}
END_TEST

START_TEST(float_literal_rules)
{
	load("pipeline flit\n"
		"image D : f64 [1]\n"
		"image F : f32 [1]\n"
		"func a(i : 0 .. 0) : double = 0.1\n"                  /* a float literal is f32 */
		"func b(i : 0 .. 0) : double = D(0) + 0.1\n"           /* but f64 next to an f64 */
		"func c(i : 0 .. 0) : double = 16777216.0 + 1.0\n"     /* f32 arithmetic rounds */
		"func d(i : 0 .. 0) : double = D(0) * 0 + 16777216.0 + 1.0\n"
		"func e(i : 0 .. 0) : double = F(0) + 0.1\n"
		"func f(i : 0 .. 0) : double = F(0) + D(0)\n"
		"func g(i : 0 .. 0) : double = 1e3 + 2.5e-1 + .5\n"
		"func h(i : 0 .. 0) : double = 1.0 / 0.0\n"
		"output a, b, c, d, e, f, g, h\n");
	input("D", PT_F64, 1, EXT(1), VALS(0.25));
	input("F", PT_F32, 1, EXT(1), VALS(0.25));
	run_ok();
	EXPECT("a", (double)0.1f);
	EXPECT("b", 0.25 + 0.1);
	EXPECT("c", 16777216.0);
	EXPECT("d", 16777217.0);
	EXPECT("e", (double)(0.25f + 0.1f));
	EXPECT("f", 0.5);
	EXPECT("g", 1000.75);
	EXPECT("h", INFINITY);
}
END_TEST

START_TEST(bitwise_shifts_and_precedence)
{
	load("pipeline bits\n"
		"image A : int [6]\n"
		"func b(i : 0 .. 13) : long\n"
		"  | i == 0 -> A(0) & A(1) ^ A(2) | A(3)\n"
		"  | i == 1 -> 1 << A(4)\n"
		"  | i == 2 -> A(5) >> 2\n"
		"  | i == 3 -> A(5) >> 40\n"
		"  | i == 4 -> 1 << (A(4) + 9)\n"
		"  | i == 5 -> long(1) << 40\n"
		"  | i == 6 -> A(0) << -1\n"
		"  | i == 7 -> A(1) + A(0) * 2\n"
		"  | i == 8 -> A(0) << 1 + 1\n"
		"  | i == 9 -> A(0) - A(1) - 1\n"
		"  | i == 10 -> select(A(0) == 6 && A(1) != 3 || A(2) > 4, 1, 0)\n"
		"  | i == 11 -> select(!(A(0) > 3), 1, 0)\n"
		"  | i == 12 -> 2 + 3 * 4 - 10 / 3 % 2\n"
		"  | i == 13 -> -A(0) * -A(1)\n"
		"output b\n");
	input("A", PT_I32, 1, EXT(6), VALS(6, 3, 5, 8, 31, -16));
	run_ok();
	EXPECT("b",
		15,                    /* ((6 & 3) ^ 5) | 8 */
		-2147483648.0,         /* 1 << 31 in int */
		-4,                    /* arithmetic shift */
		-1,                    /* a shift past the width fills with the sign */
		0,
		1099511627776.0,
		0,                     /* negative shift counts give 0 */
		15, 24, 2, 1, 0,
		13,                    /* 2 + 12 - ((10 / 3) % 2) */
		18);
}
END_TEST

/* ---- floor division and modulo ---- */

START_TEST(floor_division_and_modulo)
{
	load("pipeline dm\n"
		"image M : int [1]\n"
		"func q(x : -7 .. 7) : int = x / 2\n"
		"func r(x : -7 .. 7) : int = x % 3\n"
		"func qn(x : -7 .. 7) : int = x / -2\n"
		"func rn(x : -7 .. 7) : int = x % -3\n"
		"func z(x : -2 .. 2) : int = x / (x - x) + 10 * (x % (x - x))\n"
		"func fm(x : -2 .. 2) : float = (x - 0.5) % 2.0\n"
		"func mn(i : 0 .. 1) : int | i == 0 -> M(0) / -1\n"
		"  | i == 1 -> M(0) % -1\n"
		"const K = -7 / 2\n"
		"const J = -7 % 3\n"
		"func k(i : 0 .. 1) : int | i == 0 -> K\n"
		"  | i == 1 -> J\n"
		"output q, r, qn, rn, z, fm, mn, k\n");
	input("M", PT_I32, 1, EXT(1), VALS(-2147483648.0));
	run_ok();
	EXPECT("q", -4, -3, -3, -2, -2, -1, -1, 0, 0, 1, 1, 2, 2, 3, 3);
	EXPECT("r", 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1);
	EXPECT("qn", 3, 3, 2, 2, 1, 1, 0, 0, -1, -1, -2, -2, -3, -3, -4);
	EXPECT("rn", -1, 0, -2, -1, 0, -2, -1, 0, -2, -1, 0, -2, -1, 0, -2);
	EXPECT("z", 0, 0, 0, 0, 0);            /* x / 0 = 0 and x % 0 = 0 */
	EXPECT("fm", 1.5, 0.5, 1.5, 0.5, 1.5);
	EXPECT("mn", -2147483648.0, 0);        /* INT_MIN / -1 wraps */
	EXPECT("k", -4, 2);                    /* the same at compile time */
}
END_TEST

/* ---- accesses ---- */

START_TEST(affine_floor_divided_clamped_and_data_dependent_accesses)
{
	load("pipeline acc\n"
		"image A : int [4]\n"
		"image I : u8 [3]\n"
		"image L : u8 [256]\n"
		"func aff(x : 0 .. 1, y : 0 .. 1) : int = A(2*x + y) + A(3 - x)\n"
		"func up(x : 0 .. 7) : int = A(x / 2)\n"
		"func down(x : 0 .. 1) : int = A(2*x + 1)\n"
		"func cl(x : -2 .. 5) : int = A(clamp(x, 0, 3))\n"
		"func lut(x : 0 .. 2) : int = L(I(x))\n"
		"func sq(v : 0 .. 255) : int = v * v\n"
		"func lut2(x : 0 .. 2) : int = sq(I(x))\n"
		"func md(x : 0 .. 2) : int = A(I(x) % 4)\n"
		"func an(x : 0 .. 2) : int = A(I(x) & 3)\n"
		"func mi(x : 0 .. 2) : int = A(min(I(x), 3))\n"
		"func cd(x : 0 .. 2) : int = A(clamp(I(x) - 250, 0, 3))\n"
		"output aff, up, down, cl, lut, lut2, md, an, mi, cd\n");
	input("A", PT_I32, 1, EXT(4), VALS(10, 20, 30, 40));
	input("I", PT_U8, 1, EXT(3), VALS(0, 255, 7));
	double l[256];
	for (int v = 0; v < 256; v++)
		l[v] = 255 - v;
	input("L", PT_U8, 1, EXT(256), l);
	run_ok();
	EXPECT("aff", 50, 60, 60, 70);
	EXPECT("up", 10, 10, 20, 20, 30, 30, 40, 40);
	EXPECT("down", 20, 40);
	EXPECT("cl", 10, 10, 10, 20, 30, 40, 40, 40);
	EXPECT("lut", 255, 0, 248);
	EXPECT("lut2", 0, 65025, 49);
	EXPECT("md", 10, 40, 40);
	EXPECT("an", 10, 40, 40);
	EXPECT("mi", 10, 40, 40);
	EXPECT("cd", 10, 40, 10);
}
END_TEST

/* ---- reductions ---- */

START_TEST(reductions_every_operator)
{
	load("pipeline red\n"
		"image I : u8 [6]\n"
		"image F : float [4]\n"
		"reduce hist(b : 0 .. 3) : int over (x : 0 .. 5) init 10\n"
		"  | hist(I(x) % 4) += 1\n"
		"reduce total(i : 0 .. 0) : int over (x : 0 .. 5)\n"
		"  | total(0) += I(x)\n"
		"reduce fsum(i : 0 .. 0) : float over (x : 0 .. 3)\n"
		"  | fsum(0) += F(x)\n"
		"reduce prod(i : 0 .. 1) : long over (x : 0 .. 5)\n"
		"  | prod(x % 2) *= I(x) + 1\n"
		"reduce mn(i : 0 .. 0) : float over (x : 0 .. 3)\n"
		"  | mn(0) min= F(x)\n"
		"reduce mx(i : 0 .. 0) : float over (x : 0 .. 3)\n"
		"  | mx(0) max= F(x)\n"
		"reduce imn(i : 0 .. 0) : int over (x : 0 .. 5) init 2\n"
		"  | imn(0) min= I(x)\n"
		"reduce all(i : 0 .. 2) : u8 over (x : 0 .. 3)\n"
		"  | all(0) &&= F(x) > 0.0\n"
		"  | all(1) &&= F(x) > -2.0\n"
		"  | all(2) &&= I(x)\n"
		"reduce any(i : 0 .. 1) : int over (x : 0 .. 3)\n"
		"  | any(0) ||= F(x) > 3.0\n"
		"  | any(1) ||= F(x) > 5.0\n"
		"reduce cs(i : 0 .. 0) : int over (x : 0 .. 5) init -100\n"
		"  | I(x) > 1 -> cs(0) += I(x)\n"
		"output hist, total, fsum, prod, mn, mx, imn, all, any, cs\n");
	input("I", PT_U8, 1, EXT(6), VALS(3, 1, 3, 0, 3, 1));
	input("F", PT_F32, 1, EXT(4), VALS(2.5, -1.0, 4.0, 0.5));
	run_ok();
	EXPECT("hist", 11, 12, 10, 13);        /* data-dependent target, init 10 */
	EXPECT("total", 11);
	EXPECT("fsum", 6.0);
	EXPECT("prod", 64, 4);                 /* 4*4*4 and 2*1*2 */
	EXPECT("mn", -1.0);
	EXPECT("mx", 4.0);
	EXPECT("imn", 0);                      /* init counts as an operand */
	EXPECT("all", 0, 1, 0);                /* I(3) = 0 is false */
	EXPECT("any", 1, 0);
	EXPECT("cs", -91);                     /* -100 + 3 + 3 + 3 */
}
END_TEST

START_TEST(reductions_over_empty_domains_give_identities)
{
	load("pipeline empty\n"
		"param Z : int = 0\n"
		"reduce s(i : 0 .. 0) : int over (x : 0 .. Z - 1) | s(0) += 1\n"
		"reduce p(i : 0 .. 0) : int over (x : 0 .. Z - 1) | p(0) *= 2\n"
		"reduce mn(i : 0 .. 0) : int over (x : 0 .. Z - 1) | mn(0) min= x\n"
		"reduce mx(i : 0 .. 0) : int over (x : 0 .. Z - 1) | mx(0) max= x\n"
		"reduce mn8(i : 0 .. 0) : u8 over (x : 0 .. Z - 1) | mn8(0) min= x\n"
		"reduce mx8(i : 0 .. 0) : i8 over (x : 0 .. Z - 1) | mx8(0) max= x\n"
		"reduce fmn(i : 0 .. 0) : float over (x : 0 .. Z - 1) | fmn(0) min= 1.0\n"
		"reduce fmx(i : 0 .. 0) : double over (x : 0 .. Z - 1) | fmx(0) max= 1.0\n"
		"reduce a(i : 0 .. 0) : int over (x : 0 .. Z - 1) | a(0) &&= x > 0\n"
		"reduce o(i : 0 .. 0) : int over (x : 0 .. Z - 1) | o(0) ||= x > 0\n"
		"reduce si(i : 0 .. 0) : int over (x : 0 .. Z - 1) init 42\n"
		"  | si(0) += 1\n"
		"output s, p, mn, mx, mn8, mx8, fmn, fmx, a, o, si\n");
	run_ok();
	EXPECT("s", 0);
	EXPECT("p", 1);
	EXPECT("mn", 2147483647);
	EXPECT("mx", -2147483648.0);
	EXPECT("mn8", 255);
	EXPECT("mx8", -128);
	EXPECT("fmn", INFINITY);
	EXPECT("fmx", -INFINITY);
	EXPECT("a", 1);
	EXPECT("o", 0);
	EXPECT("si", 42);
}
END_TEST

START_TEST(reduction_with_two_dims_and_params_in_init)
{
	load("pipeline r2\n"
		"param B : int = 5\n"
		"image M : int [2, 3]\n"
		"reduce colsum(c : 0 .. 2) : int over (r : 0 .. 1, k : 0 .. 2) init B * 2\n"
		"  | colsum(k) += M(r, k)\n"
		"reduce grid(a : 0 .. 1, b : 0 .. 2) : int over (r : 0 .. 1, k : 0 .. 2)\n"
		"  | grid(1 - r, 2 - k) += M(r, k) * 10\n"
		"reduce steps(s : 0 .. 4 step 2) : int over (k : 0 .. 2)\n"
		"  | steps(2 * k) += k + 1\n"
		"output colsum, grid, steps\n");
	input("M", PT_I32, 2, EXT(2, 3), VALS(1, 2, 3, 4, 5, 6));
	run_ok();
	EXPECT("colsum", 15, 17, 19);
	EXPECT("grid", 60, 50, 40, 30, 20, 10);
	EXPECT("steps", 1, UNDEF, 2, UNDEF, 3);
}
END_TEST

/* ---- time-iterated stages ---- */

START_TEST(time_iterated_stage)
{
	load("pipeline iter\n"
		"image A : int [4]\n"
		"func f(t : 0 .. 4, x : 0 .. 3) : int\n"
		"  | t == 0 -> A(x)\n"
		"  | t >= 1 -> f(t-1, x) + f(t-1, clamp(x+1, 0, 3))\n"
		"func ps(x : 0 .. 3) : int\n"
		"  | x == 0 -> A(0)\n"
		"  | x > 0 -> ps(x - 1) + A(x)\n"
		"func fib(n : 0 .. 10) : long\n"
		"  | n < 2 -> n\n"
		"  | else -> fib(n - 1) + fib(n - 2)\n"
		"output f, ps, fib\n");
	input("A", PT_I32, 1, EXT(4), VALS(1, 2, 3, 4));
	run_ok();
	EXPECT("f",
		1, 2, 3, 4,
		3, 5, 7, 8,
		8, 12, 15, 16,
		20, 27, 31, 32,
		47, 58, 63, 64);
	EXPECT("ps", 1, 3, 6, 10);
	EXPECT("fib", 0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55);
}
END_TEST

/* ---- const, for, if ---- */

START_TEST(const_for_families_and_if)
{
	pt_pipeline *p = load("pipeline pyr\n"
		"param R : int = 8\n"
		"image I : float [R]\n"
		"const L = 3\n"
		"const HALF = 0.25 * 2\n"
		"func G[0](x : 0 .. R-1) : float = I(x)\n"
		"for l in 1 .. L {\n"
		"  func G[l](x : 0 .. R/(1<<l) - 1) : float = (G[l-1](2*x) + G[l-1](2*x+1)) * HALF\n"
		"}\n"
		"if L > 2 {\n"
		"  func top(x : 0 .. 0) : float = G[L](x)\n"
		"} else {\n"
		"  func top(x : 0 .. 0) : float = 0.0\n"
		"}\n"
		"const MODE = 2\n"
		"if MODE == 1 { func pick(x : 0 .. 0) : int = 1 }\n"
		"else if MODE == 2 { func pick(x : 0 .. 0) : int = 2 }\n"
		"else { func pick(x : 0 .. 0) : int = 3 }\n"
		"if 0 { func never(x : 0 .. 0) : int = undefined_name(x) }\n"
		"for i in 0 .. 1 { for j in 0 .. 1 { func T[i, j](x : 0 .. 0) : int = 10 * i + j } }\n"
		"for e in 1 .. 0 { func empty(x : 0 .. 0) : int = 0 }\n"
		"output G[1], G[2], G[3], top, pick, T[1, 0]\n");
	ck_assert_int_eq(pt_pipeline_stage_count(p), 10);
	input("I", PT_F32, 1, EXT(8), VALS(1, 2, 3, 4, 5, 6, 7, 8));
	run_ok();
	EXPECT("G[0]", 1, 2, 3, 4, 5, 6, 7, 8);
	EXPECT("G[1]", 1.5, 3.5, 5.5, 7.5);
	EXPECT("G[2]", 2.5, 6.5);
	EXPECT("G[3]", 4.5);
	EXPECT("top", 4.5);
	EXPECT("pick", 2);
	EXPECT("T[0,0]", 0);
	EXPECT("T[0,1]", 1);
	EXPECT("T[1,0]", 10);
	EXPECT("T[1,1]", 11);
	ck_assert_ptr_null(pt_interp_result(in, "never", NULL, NULL));
	ck_assert_ptr_null(pt_interp_result(in, "empty", NULL, NULL));
}
END_TEST

/* ---- outputs, comments ---- */

START_TEST(several_outputs)
{
	pt_pipeline *p = load("pipeline outs\n"
		"func a(x : 0 .. 1) : int = x + 1\n"
		"func b(x : 0 .. 1) : int = a(x) * 2\n"
		"func c(x : 0 .. 1) : int = b(x) + a(x)\n"
		"output a, b\n"
		"output c\n");
	ck_assert_str_eq(pt_pipeline_name(p), "outs");
	ck_assert_int_eq(pt_pipeline_stage_count(p), 3);
	run_ok();
	EXPECT("a", 1, 2);
	EXPECT("b", 2, 4);
	EXPECT("c", 3, 6);
	char *d = pt_pipeline_describe(p);
	ck_assert_ptr_nonnull(d);
	ck_assert_ptr_nonnull(strstr(d, "3 stages"));
	free(d);
}
END_TEST

/* alias: an image as level 0 of a family, and a second name for output */
START_TEST(alias_names_an_existing_stage_or_image)
{
	pt_pipeline *p = load("pipeline al\n"
		"param R : int = 8\n"
		"image I : int [R]\n"
		"alias G[0] = I\n"
		"for l in 1 .. 2 {\n"
		"  func G[l](x : 0 .. R / (1 << l) - 1) : int = G[l-1](2*x) + G[l-1](2*x + 1)\n"
		"}\n"
		"alias top = G[2]\n"
		"func twice(x : 0 .. 1) : int = top(min(x, R / 4 - 1)) * 2\n"
		"output top, twice\n");
	ck_assert_int_eq(pt_pipeline_stage_count(p), 3);
	input("I", PT_I32, 1, EXT(8), VALS(1, 2, 3, 4, 5, 6, 7, 8));
	run_ok();
	EXPECT("G[1]", 3, 7, 11, 15);
	EXPECT("G[2]", 10, 26);
	EXPECT("twice", 20, 52);
	char *d = pt_pipeline_describe(p);
	ck_assert_ptr_nonnull(strstr(d, "reads [G[1]] output"));
	free(d);
}
END_TEST

START_TEST(comments_everywhere)
{
	load("# a comment before the header\n"
		"pipeline c   # after the header\n"
		"\n"
		"   # indented, between declarations\n"
		"param N : int = 3#no space before it\n"
		"func f(x : 0 .. N-1) : int   # after a header\n"
		"  # a whole line between cases\n"
		"  | x == 0 -> 1   # after a case\n"
		"  # and another # with a second hash\n"
		"  | else -> x#tight\n"
		"output f # the end, with no newline");
	run_ok();
	EXPECT("f", 1, 1, 2);
}
END_TEST

START_TEST(crlf_line_endings)
{
	load("pipeline c\r\n"
		"func f(x : 0 .. 2) : int\r\n"
		"  | x == 0 -> 5\r\n"
		"  | else -> x\r\n"
		"output f\r\n");
	run_ok();
	EXPECT("f", 5, 1, 2);
}
END_TEST

/* ---- the builder API ---- */

static const char *const builder_text =
	"pipeline blt\n"
	"param R : int = 4\n"
	"param k : float = 0.5\n"
	"image I : u8 [R + 2]\n"
	"const W = 2\n"
	"cond inner = x >= 1 && x <= R\n"
	"func sm(x : 0 .. R + 1) : float\n"
	"  | inner -> (I(x - 1) + W * I(x) + I(x + 1)) * k\n"
	"  | !inner -> float(I(x))\n"
	"func odd(x : 0 .. R + 1) : int | x % 2 == 1 -> x * 3\n"
	"reduce h(b : 0 .. 255) : int over (r : 0 .. R + 1) init 0\n"
	"  | h(I(r)) += 1\n"
	"reduce tot(i : 0 .. 0) : float over (r : 0 .. R + 1)\n"
	"  | I(r) > 2 -> tot(0) += sm(r)\n"
	"output sm, odd, h, tot\n";

static pt_pipeline *build_same(void)
{
	const char *x[] = {"x"}, *zero[] = {"0"}, *hi[] = {"R + 1"};
	const char *b[] = {"b"}, *b_hi[] = {"255"}, *r[] = {"r"}, *i[] = {"i"};
	pt_pipeline *p = pt_build_begin(ctx, "blt");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(pt_build_param(p, "R", PT_I32, true, 4), 0);
	ck_assert_int_eq(pt_build_param(p, "k", PT_F32, true, 0.5), 0);
	ck_assert_int_eq(pt_build_image(p, "I", PT_U8, 1, (const char *const[]){"R + 2"}), 0);
	ck_assert_int_eq(pt_build_const(p, "W", 2, true), 0);
	ck_assert_int_eq(pt_build_cond(p, "inner", "x >= 1 && x <= R"), 0);
	ck_assert_int_eq(pt_build_func(p, "sm", PT_F32, 1, x, zero, hi), 0);
	ck_assert_int_eq(pt_build_case(p, "inner", "(I(x - 1) + W * I(x) + I(x + 1)) * k"), 0);
	ck_assert_int_eq(pt_build_case(p, "!inner", "float(I(x))"), 0);
	ck_assert_int_eq(pt_build_func(p, "odd", PT_I32, 1, x, zero, hi), 0);
	ck_assert_int_eq(pt_build_case(p, "x % 2 == 1", "x * 3"), 0);
	ck_assert_int_eq(pt_build_reduce(p, "h", PT_I32, 1, b, zero, b_hi, 1, r, zero, hi, "sum", "0"), 0);
	ck_assert_int_eq(pt_build_update(p, NULL, (const char *const[]){"I(r)"}, "1"), 0);
	ck_assert_int_eq(pt_build_reduce(p, "tot", PT_F32, 1, i, zero, zero, 1, r, zero, hi, "sum", NULL), 0);
	ck_assert_int_eq(pt_build_update(p, "I(r) > 2", zero, "sm(r)"), 0);
	ck_assert_int_eq(pt_build_output(p, "sm"), 0);
	ck_assert_int_eq(pt_build_output(p, "odd"), 0);
	ck_assert_int_eq(pt_build_output(p, "h"), 0);
	ck_assert_int_eq(pt_build_output(p, "tot"), 0);
	pt_pipeline *done = pt_build_end(p);
	ck_assert_msg(done != NULL, "builder pipeline did not check:\n%s", pt_ctx_diagnostics(ctx));
	return done;
}

/* Runs p on the builder test's input; returns its interpreter. */
static pt_interp *run_builder_pipeline(pt_pipeline *p, const pt_buffer *input_buf)
{
	pt_interp *it = pt_interp_new(ctx, p);
	ck_assert_int_eq(pt_interp_set_input(it, "I", input_buf), 0);
	ck_assert_msg(pt_interp_run(it) == 0, "%s", pt_ctx_diagnostics(ctx));
	return it;
}

START_TEST(builder_matches_text)
{
	pt_pipeline *pt = pt_parse_string(ctx, "blt.pipe", builder_text);
	ck_assert_msg(pt != NULL, "%s", pt_ctx_diagnostics(ctx));
	pt_pipeline *pb = build_same();
	ck_assert_str_eq(pt_pipeline_name(pb), "blt");
	ck_assert_int_eq(pt_pipeline_stage_count(pb), pt_pipeline_stage_count(pt));
	char *dt = pt_pipeline_describe(pt), *db = pt_pipeline_describe(pb);
	ck_assert_str_eq(db, dt);
	free(dt);
	free(db);

	pt_buffer *ib = new_buffer(PT_U8, 1, EXT(6), VALS(5, 1, 9, 2, 7, 3));
	pt_interp *it = run_builder_pipeline(pt, ib);
	pt_interp *ibld = run_builder_pipeline(pb, ib);
	static const char *const stages[] = {"sm", "odd", "h", "tot"};
	for (int s = 0; s < 4; s++) {
		const uint8_t *dta, *dbu;
		int64_t ot[PT_MAX_DIMS], ob[PT_MAX_DIMS];
		const pt_buffer *a = pt_interp_result(it, stages[s], &dta, ot);
		const pt_buffer *b = pt_interp_result(ibld, stages[s], &dbu, ob);
		ck_assert_ptr_nonnull(a);
		ck_assert_ptr_nonnull(b);
		ck_assert_int_eq(a->type, b->type);
		ck_assert_int_eq(a->ndim, b->ndim);
		ck_assert_int_eq(ot[0], ob[0]);
		ck_assert_int_eq(a->extent[0], b->extent[0]);
		for (int64_t k = 0; k < a->extent[0]; k++) {
			ck_assert_msg(dta[k] == dbu[k], "%s[%lld]: defined differs", stages[s], (long long)k);
			ck_assert_msg(pt_buffer_get(a, &k) == pt_buffer_get(b, &k), "%s[%lld]: %g vs %g",
				stages[s], (long long)k, pt_buffer_get(a, &k), pt_buffer_get(b, &k));
		}
	}
	/* and both are right: */
	pt_interp *keep = in;
	in = ibld;
	EXPECT("sm", 5, 8, 10.5, 10, 9.5, 3);
	EXPECT("odd", UNDEF, 3, UNDEF, 9, UNDEF, 15);
	EXPECT("tot", 28);                     /* 5 + 10.5 + 9.5 + 3 */
	ck_assert(AT("h", 9) == 1 && AT("h", 0) == 0 && AT("h", 2) == 1);
	ck_assert(DEFINED("h", 255));
	in = keep;
	pt_interp_free(it);
	pt_interp_free(ibld);
}
END_TEST

static Suite *language_suite(void)
{
	Suite *s = suite_create("language");
	TCase *tc;
#define TC(name, ...) do { \
		tc = tcase_create(name); \
		tcase_add_checked_fixture(tc, setup, teardown); \
		__VA_ARGS__ \
		suite_add_tcase(s, tc); \
	} while (0)
	TC("types",
		tcase_add_loop_test(tc, int_type_and_alias, 0, (int)(sizeof(int_types) / sizeof(int_types[0])));
		tcase_add_loop_test(tc, float_type_and_alias, 0, (int)(sizeof(float_types) / sizeof(float_types[0])));
		tcase_add_test(tc, bool_is_not_a_value_type);
		tcase_add_test(tc, stage_types_wrap_on_store););
	TC("params",
		tcase_add_test(tc, params_with_and_without_estimates);
		tcase_add_test(tc, params_set_override_estimates);
		tcase_add_test(tc, params_inferred_from_inputs););
	TC("images", tcase_add_test(tc, images_of_one_to_three_dims););
	TC("domains",
		tcase_add_test(tc, domains_affine_floor_division_and_steps);
		tcase_add_test(tc, domain_with_var_declarations););
	TC("cases",
		tcase_add_test(tc, cases_conditions_and_else);
		tcase_add_test(tc, expressions_span_lines);
		tcase_add_test(tc, case_bar_must_start_a_line););
	TC("stencil", tcase_add_test(tc, stencil_expansion););
	TC("select", tcase_add_test(tc, select_and_conditional););
	TC("casts", tcase_add_test(tc, casts_truncate_saturate_and_wrap););
	TC("intrinsics",
		tcase_add_test(tc, integer_intrinsics);
		tcase_add_test(tc, float_intrinsics);
		tcase_add_test(tc, double_intrinsics);
		tcase_add_test(tc, round_agrees_at_compile_time);
		tcase_add_test(tc, constants_follow_runtime_semantics_on_i64_f64););
	TC("promotion",
		tcase_add_test(tc, integer_promotion);
		tcase_add_test(tc, float_literal_rules);
		tcase_add_test(tc, bitwise_shifts_and_precedence););
	TC("divmod", tcase_add_test(tc, floor_division_and_modulo););
	TC("accesses", tcase_add_test(tc, affine_floor_divided_clamped_and_data_dependent_accesses););
	TC("reductions",
		tcase_add_test(tc, reductions_every_operator);
		tcase_add_test(tc, reductions_over_empty_domains_give_identities);
		tcase_add_test(tc, reduction_with_two_dims_and_params_in_init););
	TC("time", tcase_add_test(tc, time_iterated_stage););
	TC("families", tcase_add_test(tc, const_for_families_and_if););
	TC("outputs", tcase_add_test(tc, several_outputs););
	TC("comments",
		tcase_add_test(tc, alias_names_an_existing_stage_or_image);
		tcase_add_test(tc, comments_everywhere);
		tcase_add_test(tc, crlf_line_endings););
	TC("builder", tcase_add_test(tc, builder_matches_text););
#undef TC
	return s;
}

int main(void)
{
	return pt_test_run_suite(language_suite());
}
