/* test_interpolate.c: apps/interpolate.pipe (PolyMage's multi-scale
 * interpolation, 10 levels) against the plain-C reference.
 *
 * Sizes: the pipeline is valid for any R, C >= 1, but its coarsest level
 * has R/512 x C/512 computed points, so every one of the 10 levels is
 * exercised only when R, C >= 512.  The tests use 512 x 512 (every level
 * halves exactly; the coarsest is 1 x 1), 515 x 777 (odd, so levels are
 * floored at many steps: 515 -> 257 -> 128 ..., 777 -> 388 -> 194 -> 97
 * -> 48 -> 24 -> 12 -> 6 -> 3 -> 1) and 37 x 53 (coarse levels empty: only
 * their zero ring is read).
 *
 * Tolerance: both sides evaluate the same f32 operations (products, sums,
 * the exact constants 0.25, 2 and 1, divisions) in the same order with
 * round-to-nearest, so the results are expected to be bit-identical; the
 * test counts and prints the values that differ at all.  The assertion
 * still allows a relative error of 1e-6 (about 8 ulp) plus 1e-7 absolute
 * (values are about 0..1 before the final division by alpha, so this is
 * far below any visible or algorithmic error): a single differently
 * rounded operation upstream reaches the output through at most ~40
 * averaging steps, which do not amplify relative error, and one division;
 * any mistake in the algorithm (a wrong offset, weight or level) is
 * orders of magnitude larger. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "polytile.h"
#include "ref_apps.h"
#include "ref_interpolate.h"

#include "run_suite.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

static void check_interpolate(int R, int C, uint32_t seed)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_file(ctx, APPS_DIR "/interpolate.pipe");
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	ck_assert_int_eq(pt_pipeline_stage_count(p), 38);

	pt_buffer in;
	int64_t ext[3] = {4, R + 2, C + 2};
	ck_assert_int_eq(pt_buffer_alloc(&in, PT_F32, 3, ext), PT_OK);
	size_t count_in = (size_t)4 * (size_t)(R + 2) * (size_t)(C + 2);
	ref_fill_f32(in.data, count_in, seed);

	pt_interp *it = pt_interp_new(ctx, p);
	/* the pipeline takes the first three planes and the fourth as two
	 * images: views into the same buffer */
	pt_buffer rgb = in, alpha = in;
	rgb.extent[0] = 3;
	alpha.data = (float *)in.data + (size_t)3 * (size_t)(R + 2) * (size_t)(C + 2);
	alpha.ndim = 2;
	alpha.extent[0] = R + 2;
	alpha.extent[1] = C + 2;
	alpha.stride[0] = C + 2;
	alpha.stride[1] = 1;
	ck_assert_int_eq(pt_interp_set_input(it, "rgb", &rgb), 0);
	ck_assert_int_eq(pt_interp_set_input(it, "alpha", &alpha), 0);
	ck_assert_int_eq(pt_interp_infer_params(it), 0);
	double r, c;
	ck_assert_int_eq(pt_interp_get_param(it, "R", &r), 0);
	ck_assert_int_eq(pt_interp_get_param(it, "C", &c), 0);
	ck_assert_int_eq((int)r, R);
	ck_assert_int_eq((int)c, C);
	ck_assert_msg(pt_interp_run(it) == 0, "%s", pt_ctx_diagnostics(ctx));

	size_t count_out = (size_t)3 * (size_t)R * (size_t)C;
	float *want = malloc(count_out * sizeof(float));
	ck_assert_ptr_nonnull(want);
	ref_interpolate(R, C, in.data, want);

	const uint8_t *def;
	int64_t origin[3];
	const pt_buffer *o = pt_interp_result(it, "interpolate", &def, origin);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(o->ndim, 3);
	ck_assert_int_eq(o->extent[0], 3);
	ck_assert_int_eq(o->extent[1], R);
	ck_assert_int_eq(o->extent[2], C);
	for (int d = 0; d < 3; d++)
		ck_assert_int_eq(origin[d], 0);
	const float *got = o->data;
	size_t differ = 0;
	double maxrel = 0;
	for (size_t i = 0; i < count_out; i++) {
		ck_assert_msg(def[i], "interpolate[%zu] undefined", i);
		float g = got[i], w = want[i];
		ck_assert_msg(isfinite(w), "reference interpolate[%zu] = %g", i, w);
		if (g != w) {
			differ++;
			double rel = fabs((double)g - w) / fabs((double)w);
			if (rel > maxrel)
				maxrel = rel;
		}
		ck_assert_msg(fabsf(g - w) <= 1e-6f * fabsf(w) + 1e-7f,
			"interpolate(%zu, %zu, %zu) at R=%d C=%d: %.9g != %.9g",
			i / ((size_t)R * (size_t)C), i / (size_t)C % (size_t)R, i % (size_t)C, R, C, g, w);
	}
	printf("interpolate %d x %d: %zu values, %zu differ from the reference (max relative %g)\n",
		R, C, count_out, differ, maxrel);

	free(want);
	pt_interp_free(it);
	pt_buffer_free(&in);
	pt_ctx_free(ctx);
}

START_TEST(interpolate_512x512)
{
	check_interpolate(512, 512, 31);
}
END_TEST

START_TEST(interpolate_515x777)
{
	check_interpolate(515, 777, 32);
}
END_TEST

START_TEST(interpolate_37x53)
{
	check_interpolate(37, 53, 33);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("interpolate");
	TCase *tc = tcase_create("interp_vs_reference");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, interpolate_512x512);
	tcase_add_test(tc, interpolate_515x777);
	tcase_add_test(tc, interpolate_37x53);
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
