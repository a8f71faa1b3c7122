/* test_pyramid_blend.c: apps/pyramid_blend.pipe against the plain-C
 * reference (tests/ref/ref_pyramid_blend.c).
 *
 * Sizes: the pyramid has 4 levels, so R and C should be multiples of
 * 2^3 = 8 for its levels to line up; the suite runs 64 x 64 and 40 x 104
 * (odd-sized coarse levels: 5 x 13 interior points at level 3), plus
 * 37 x 29, which is not a multiple of 8: the levels no longer line up but
 * the result is still well defined and both sides must agree on it.
 *
 * Tolerance: both sides evaluate the same f32 operations in the same order
 * (filter taps summed left to right, then scaled), so they agree exactly
 * in practice.  The assertion allows 1e-5 times max(1, max |ref|): a
 * correct evaluation that rounds differently (an FMA contraction of
 * a*b + c in the reference, say) changes each of the ~40 dependent f32
 * operations from an input to an output point by at most half an ulp
 * (6e-8 relative) of values below ~2, far under 1e-5, while any real
 * error (a wrong tap, weight, index or level) changes values in [0, 1] by
 * far more. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "polytile.h"
#include "ref_apps.h"
#include "ref_pyramid_blend.h"

#include "run_suite.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

typedef struct run {
	pt_ctx *ctx;
	pt_pipeline *p;
	pt_interp *in;
	pt_buffer img1, img2, mask;
} run;

/* Parses the app and binds seeded inputs of the size R x C needs.  With
 * same_images, the second image is a copy of the first. */
static void start(run *r, int R, int C, uint32_t seed, int same_images)
{
	int64_t e3[3] = {3, R + 4, C + 4}, e2[2] = {R + 4, C + 4};
	size_t n = (size_t)(R + 4) * (C + 4);
	r->ctx = pt_ctx_new();
	r->p = pt_parse_file(r->ctx, APPS_DIR "/pyramid_blend.pipe");
	ck_assert_msg(r->p != NULL, "%s", pt_ctx_diagnostics(r->ctx));
	ck_assert_int_eq(pt_buffer_alloc(&r->img1, PT_F32, 3, e3), PT_OK);
	ck_assert_int_eq(pt_buffer_alloc(&r->img2, PT_F32, 3, e3), PT_OK);
	ck_assert_int_eq(pt_buffer_alloc(&r->mask, PT_F32, 2, e2), PT_OK);
	ref_fill_f32(r->img1.data, 3 * n, seed);
	ref_fill_f32(r->img2.data, 3 * n, same_images ? seed : seed + 1);
	ref_fill_f32(r->mask.data, n, seed + 2);
	r->in = pt_interp_new(r->ctx, r->p);
	ck_assert_int_eq(pt_interp_set_input(r->in, "img1", &r->img1), 0);
	ck_assert_int_eq(pt_interp_set_input(r->in, "img2", &r->img2), 0);
	ck_assert_int_eq(pt_interp_set_input(r->in, "mask", &r->mask), 0);
	ck_assert_int_eq(pt_interp_set_param(r->in, "R", R), 0);
	ck_assert_int_eq(pt_interp_set_param(r->in, "C", C), 0);
	ck_assert_msg(pt_interp_run(r->in) == 0, "%s", pt_ctx_diagnostics(r->ctx));
}

static void finish(run *r)
{
	pt_interp_free(r->in);
	pt_buffer_free(&r->img1);
	pt_buffer_free(&r->img2);
	pt_buffer_free(&r->mask);
	pt_ctx_free(r->ctx);
}

/* The output Col[0]: its box must be 0..2 x 0..R+3 x 0..C+3, every point
 * defined. */
static const float *output(run *r, int R, int C)
{
	const uint8_t *def;
	int64_t origin[3];
	const pt_buffer *o = pt_interp_result(r->in, "Col[0]", &def, origin);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(o->ndim, 3);
	ck_assert_int_eq(o->type, PT_F32);
	int64_t ext[3] = {3, R + 4, C + 4};
	for (int d = 0; d < 3; d++) {
		ck_assert_int_eq(origin[d], 0);
		ck_assert_int_eq(o->extent[d], ext[d]);
	}
	size_t n = (size_t)3 * (R + 4) * (C + 4);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(def[i], "Col[0] undefined at element %zu", i);
	return o->data;
}

static void check_size(int R, int C, uint32_t seed)
{
	run r;
	start(&r, R, C, seed, 0);
	const float *got = output(&r, R, C);
	size_t n = (size_t)3 * (R + 4) * (C + 4);
	float *want = malloc(n * sizeof(float));
	ck_assert_ptr_nonnull(want);
	ref_pyramid_blend(R, C, r.img1.data, r.img2.data, r.mask.data, want);
	double maxdiff = 0, maxmag = 0;
	size_t worst = 0;
	for (size_t i = 0; i < n; i++) {
		double d = fabs((double)got[i] - (double)want[i]);
		if (d > maxdiff) {
			maxdiff = d;
			worst = i;
		}
		maxmag = fmax(maxmag, fabs((double)want[i]));
	}
	double tol = 1e-5 * fmax(1.0, maxmag);
	ck_assert_msg(maxdiff <= tol,
		"R=%d C=%d: max |interp - ref| = %g at element %zu (plane %zu, row %zu, col %zu), tolerance %g",
		R, C, maxdiff, worst, worst / ((size_t)(R + 4) * (C + 4)),
		worst / (size_t)(C + 4) % (size_t)(R + 4), worst % (size_t)(C + 4), tol);
	printf("pyramid_blend %dx%d: max |interp - ref| = %g (max |ref| = %g)\n", R, C, maxdiff, maxmag);
	free(want);
	finish(&r);
}

START_TEST(stage_count)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_file(ctx, APPS_DIR "/pyramid_blend.pipe");
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	/* as polymage_blending.py: 18 downsampling, 18 Laplacian, 4 blend,
	 * 9 collapse stages */
	ck_assert_int_eq(pt_pipeline_stage_count(p), 49);
	pt_ctx_free(ctx);
}
END_TEST

START_TEST(square_64)
{
	check_size(64, 64, 5);
}
END_TEST

START_TEST(odd_coarse_40x104)
{
	check_size(40, 104, 6);
}
END_TEST

START_TEST(unaligned_37x29)
{
	check_size(37, 29, 7);
}
END_TEST

/* Blending an image with itself gives it back: the Laplacian pyramid
 * telescopes whatever the mask (up to f32 rounding), ring included. */
START_TEST(self_blend_is_identity)
{
	int R = 48, C = 56;
	run r;
	start(&r, R, C, 9, 1);
	const float *got = output(&r, R, C);
	const float *img = r.img1.data;
	double maxdiff = 0;
	for (size_t i = 0; i < (size_t)3 * (R + 4) * (C + 4); i++)
		maxdiff = fmax(maxdiff, fabs((double)got[i] - (double)img[i]));
	ck_assert_msg(maxdiff <= 1e-5, "self blend differs from the image by %g", maxdiff);
	finish(&r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pyramid_blend");
	TCase *tc = tcase_create("interp_vs_reference");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, stage_count);
	tcase_add_test(tc, square_64);
	tcase_add_test(tc, odd_coarse_40x104);
	tcase_add_test(tc, unaligned_37x29);
	tcase_add_test(tc, self_blend_is_identity);
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
