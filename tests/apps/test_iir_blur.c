/* test_iir_blur.c: apps/iir_blur.pipe against the plain-C reference at
 * sizes with one row, one column and odd extents.  Both evaluate the same
 * f32 operations in the same order; the assertion allows 1e-6 relative
 * error so that a contracted multiply-add cannot fail it. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "polytile.h"
#include "ref_apps.h"
#include "ref_iir_blur.h"

#include "run_suite.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

static void check_iir(int R, int C, double a, uint32_t seed)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_file(ctx, APPS_DIR "/iir_blur.pipe");
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	size_t count = (size_t)3 * (size_t)R * (size_t)C;
	pt_buffer in;
	int64_t ext[3] = { 3, R, C };
	ck_assert_int_eq(pt_buffer_alloc(&in, PT_F32, 3, ext), PT_OK);
	ref_fill_f32(in.data, count, seed);
	pt_interp *it = pt_interp_new(ctx, p);
	ck_assert_int_eq(pt_interp_set_input(it, "I", &in), 0);
	ck_assert_int_eq(pt_interp_set_param(it, "a", a), 0);
	ck_assert_msg(pt_interp_run(it) == 0, "%s", pt_ctx_diagnostics(ctx));
	float *ref = malloc(count * sizeof(float));
	ref_iir_blur(R, C, (float)a, in.data, ref);
	const uint8_t *def;
	int64_t origin[3];
	const pt_buffer *o = pt_interp_result(it, "out", &def, origin);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(o->extent[1], R);
	ck_assert_int_eq(o->extent[2], C);
	const float *got = o->data;
	for (size_t i = 0; i < count; i++) {
		ck_assert(def[i]);
		ck_assert_msg(fabsf(got[i] - ref[i]) <= 1e-6f * fabsf(ref[i]) + 1e-7f,
			"%dx%d out[%zu]: %g != %g", R, C, i, got[i], ref[i]);
	}
	free(ref);
	pt_interp_free(it);
	pt_buffer_free(&in);
	pt_ctx_free(ctx);
}

START_TEST(iir_sizes)
{
	check_iir(13, 9, 0.1, 31);
	check_iir(1, 6, 0.25, 32);
	check_iir(7, 1, 0.5, 33);
	check_iir(40, 33, 0.1, 34);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("iir_blur");
	TCase *tc = tcase_create("interp_vs_reference");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, iir_sizes);
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
