/* test_camera_pipe.c: apps/camera_pipe.pipe in the interpreter against the
 * plain-C reference tests/ref/ref_camera_pipe.c.
 *
 * Sizes: the pipeline takes any R, C >= 1 (R x C is the output; the input
 * is R+48 x C+64, and the Bayer phase is fixed by input coordinates, so
 * neither size needs to be even).  We test 40 x 64 and the odd 37 x 53.
 * Inputs come from ref_fill_u16: once as realistic 10-bit raw data (the
 * fill shifted right by 6, like bayer_small.png's 0..1053), once full
 * 16-bit, where shorts wrap negative and exercise wrapping and floor
 * division on negative values.
 *
 * Tolerance: none.  Every stage of the pipeline has an integer type
 * (short, int, uchar), so red/green/blue, the colour matrix, corrected,
 * the curve LUT and the output are compared exactly.  The float work
 * (the matrix interpolation and the curve) is the same sequence of IEEE
 * single-precision operations on both sides, with the same libm powf, and
 * only its truncation to an integer is compared; an operation-order or
 * literal-rounding mismatch shows up as an off-by-one here, which is the
 * point of testing it exactly. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polytile.h"
#include "ref_apps.h"
#include "ref_camera_pipe.h"

#include "run_suite.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

typedef struct params {
	float colour_temp, gamma, contrast;
} params;

static const params paper = {3700.0f, 2.0f, 50.0f};	/* PolyMage's Makefile */

/* A stage's result after the run, with its origin; every point defined. */
static const pt_buffer *result(pt_interp *in, pt_ctx *ctx, const char *stage,
		int ndim, int64_t *origin)
{
	const uint8_t *def;
	const pt_buffer *b = pt_interp_result(in, stage, &def, origin);
	ck_assert_msg(b != NULL, "no result for %s: %s", stage, pt_ctx_diagnostics(ctx));
	ck_assert_int_eq(b->ndim, ndim);
	int64_t n = pt_buffer_count(b);
	for (int64_t i = 0; i < n; i++)
		ck_assert_msg(def[i], "%s: element %lld undefined", stage, (long long)i);
	return b;
}

/* Compares a 2-D int16 stage red/green/blue over 12..R+11 x 16..C+15 with
 * plane c of the reference's [3][R][C] array. */
static void compare_channel(pt_interp *in, pt_ctx *ctx, const char *stage,
		const int16_t *ref, int c, int R, int C)
{
	int64_t origin[2];
	const pt_buffer *b = result(in, ctx, stage, 2, origin);
	ck_assert_int_eq(b->type, PT_I16);
	ck_assert_int_eq(origin[0], 12);
	ck_assert_int_eq(origin[1], 16);
	ck_assert_int_eq(b->extent[0], R);
	ck_assert_int_eq(b->extent[1], C);
	const int16_t *got = b->data;
	for (int x = 0; x < R; x++)
		for (int y = 0; y < C; y++) {
			int16_t want = ref[((size_t)c * R + x) * C + y];
			int16_t have = got[x * b->stride[0] + y * b->stride[1]];
			ck_assert_msg(have == want, "%s(%d, %d) at %dx%d: %d != %d",
				stage, x + 12, y + 16, R, C, have, want);
		}
}

/* Compares a [3][R][C] stage (corrected or process) with the reference. */
#define COMPARE_3D(stage, ctype, ptype, ref)                                              \
	do {                                                                                  \
		int64_t origin[3];                                                            \
		const pt_buffer *b = result(in, ctx, stage, 3, origin);                       \
		ck_assert_int_eq(b->type, ptype);                                             \
		ck_assert_int_eq(origin[0], 0);                                               \
		ck_assert_int_eq(origin[1], 12);                                              \
		ck_assert_int_eq(origin[2], 16);                                              \
		ck_assert_int_eq(b->extent[0], 3);                                            \
		ck_assert_int_eq(b->extent[1], R);                                            \
		ck_assert_int_eq(b->extent[2], C);                                            \
		const ctype *got = b->data;                                                   \
		for (int c = 0; c < 3; c++)                                                   \
			for (int x = 0; x < R; x++)                                           \
				for (int y = 0; y < C; y++) {                                 \
					int want = (ref)[((size_t)c * R + x) * C + y];        \
					int have = got[c * b->stride[0] + x * b->stride[1]    \
						+ y * b->stride[2]];                          \
					ck_assert_msg(have == want,                           \
						"%s(%d, %d, %d) at %dx%d: %d != %d", stage,   \
						c, x + 12, y + 16, R, C, have, want);         \
				}                                                     \
	} while (0)

/* Runs the pipeline on an R+48 x C+64 input filled by ref_fill_u16(seed)
 * shifted right by `shift`, and compares every checked stage. */
static void check_camera(int R, int C, uint32_t seed, int shift, params p)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/camera_pipe.pipe", APPS_DIR);
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *pl = pt_parse_file(ctx, path);
	ck_assert_msg(pl != NULL, "%s", pt_ctx_diagnostics(ctx));
	pt_interp *in = pt_interp_new(ctx, pl);
	ck_assert_ptr_nonnull(in);

	int64_t ext[2] = {R + 48, C + 64};
	size_t nin = (size_t)ext[0] * (size_t)ext[1];
	pt_buffer img;
	ck_assert_int_eq(pt_buffer_alloc(&img, PT_U16, 2, ext), PT_OK);
	uint16_t *raw = img.data;
	ref_fill_u16(raw, nin, seed);
	for (size_t i = 0; i < nin; i++)
		raw[i] = (uint16_t)(raw[i] >> shift);
	ck_assert_int_eq(pt_interp_set_input(in, "img", &img), 0);
	ck_assert_int_eq(pt_interp_set_param(in, "colour_temp", p.colour_temp), 0);
	ck_assert_int_eq(pt_interp_set_param(in, "gamma", p.gamma), 0);
	ck_assert_int_eq(pt_interp_set_param(in, "contrast", p.contrast), 0);
	ck_assert_msg(pt_interp_infer_params(in) == 0, "%s", pt_ctx_diagnostics(ctx));
	double v;
	ck_assert_int_eq(pt_interp_get_param(in, "R", &v), 0);
	ck_assert_int_eq((int)v, R);
	ck_assert_int_eq(pt_interp_get_param(in, "C", &v), 0);
	ck_assert_int_eq((int)v, C);
	ck_assert_msg(pt_interp_run(in) == 0, "%s", pt_ctx_diagnostics(ctx));

	size_t n = (size_t)3 * R * C;
	uint8_t *out = malloc(n);
	int16_t *rgb = malloc(n * sizeof(int16_t));
	int16_t *cor = malloc(n * sizeof(int16_t));
	uint8_t *lut = malloc(65536);
	int32_t mat[12];
	ck_assert(out && rgb && cor && lut);
	ref_camera_pipe(R, C, p.colour_temp, p.gamma, p.contrast, raw, out, rgb, cor, mat, lut);

	/* The two small tables first: a mismatch there explains the rest. */
	int64_t origin[3];
	const pt_buffer *b = result(in, ctx, "matrix", 2, origin);
	ck_assert_int_eq(b->type, PT_I32);
	for (int c = 0; c < 3; c++)
		for (int k = 0; k < 4; k++) {
			int32_t have = ((const int32_t *)b->data)[c * b->stride[0] + k * b->stride[1]];
			ck_assert_msg(have == mat[c * 4 + k], "matrix(%d, %d): %d != %d",
				c, k, have, mat[c * 4 + k]);
		}
	b = result(in, ctx, "curve", 1, origin);
	ck_assert_int_eq(b->type, PT_U8);
	ck_assert_int_eq(origin[0], -32768);
	ck_assert_int_eq(b->extent[0], 65536);
	for (int i = 0; i < 65536; i++)
		ck_assert_msg(((const uint8_t *)b->data)[i * b->stride[0]] == lut[i],
			"curve(%d): %d != %d", i - 32768,
			((const uint8_t *)b->data)[i * b->stride[0]], lut[i]);

	compare_channel(in, ctx, "red", rgb, 0, R, C);
	compare_channel(in, ctx, "green", rgb, 1, R, C);
	compare_channel(in, ctx, "blue", rgb, 2, R, C);
	COMPARE_3D("corrected", int16_t, PT_I16, cor);
	COMPARE_3D("process", uint8_t, PT_U8, out);

	free(out);
	free(rgb);
	free(cor);
	free(lut);
	pt_buffer_free(&img);
	pt_interp_free(in);
	pt_ctx_free(ctx);
}

START_TEST(raw10_even)
{
	check_camera(40, 64, 11, 6, paper);
}
END_TEST

START_TEST(raw10_odd)
{
	check_camera(37, 53, 12, 6, paper);
}
END_TEST

START_TEST(full16_even)
{
	check_camera(40, 64, 13, 0, paper);
}
END_TEST

START_TEST(full16_odd)
{
	check_camera(37, 53, 14, 0, paper);
}
END_TEST

/* Other parameter values reach the matrix and the curve. */
START_TEST(other_params)
{
	params p = {6500.0f, 1.8f, 70.0f};
	check_camera(37, 53, 15, 6, p);
}
END_TEST

/* A 1 x 1 output still needs every margin. */
START_TEST(smallest)
{
	check_camera(1, 1, 16, 6, paper);
}
END_TEST

static Suite *camera_suite(void)
{
	Suite *s = suite_create("camera_pipe");
	TCase *tc = tcase_create("interp_vs_ref");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, raw10_even);
	tcase_add_test(tc, raw10_odd);
	tcase_add_test(tc, full16_even);
	tcase_add_test(tc, full16_odd);
	tcase_add_test(tc, other_params);
	tcase_add_test(tc, smallest);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pt_test_run_suite(camera_suite());
}
