/* test_local_laplacian.c: apps/local_laplacian.pipe run by the interpreter
 * against the plain-C reference (tests/ref/ref_local_laplacian.c).
 *
 * Sizes: every R, C >= 0 is valid for PolyMage's formulation (levels are
 * R/2^l + 4 by floor division, with a zero border); the 8-level pyramid
 * has interior points at every level only when R, C >= 128.  We test
 * 128 x 128 (every level halves exactly, 1 x 1 interior at level 7) and
 * 135 x 161 (odd at every level: 135, 67, 33, 16, 8, 4, 2, 1 rows).
 * The input is ref_fill_u16 noise with a few saturated (white) pixels, so
 * that the top LUT entry (gray >= 1) is exercised too.
 *
 * Tolerances: both sides compute in f32 with the same operations in the
 * same order (and the same expf), so they agree bit for bit in practice;
 * the test prints the differences it sees.  The assertions allow, for the
 * float gray result outG[0], 1e-5 of its largest magnitude: one rounding
 * of a literal done differently (1.0/7 rounded once or twice) perturbs the
 * level-0 values by an ulp (~1e-7), and the pyramids can only carry that
 * through filters of gain <= 1, eight Laplacian differences (gain <= 2
 * each) and the eight-level collapse, i.e. to a few 1e-6.  For the u16
 * output they allow 1: a perturbation that small can still move v*65535
 * across an integer before truncation. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "polytile.h"
#include "ref_apps.h"
#include "ref_local_laplacian.h"

#include "run_suite.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

static void check_size(int R, int C, uint32_t seed)
{
	const float alpha = (float)(1.0 / 7), beta = 1.0f;
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_file(ctx, APPS_DIR "/local_laplacian.pipe");
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	ck_assert_int_eq(pt_pipeline_stage_count(p), 82);
	pt_interp *in = pt_interp_new(ctx, p);

	int H = R + 4, W = C + 4;
	size_t plane = (size_t)H * W;
	pt_buffer img;
	int64_t ext[3] = {3, H, W};
	ck_assert_int_eq(pt_buffer_alloc(&img, PT_U16, 3, ext), PT_OK);
	uint16_t *I = img.data;
	ref_fill_u16(I, 3 * plane, seed);
	for (size_t i = 0; i < plane; i += 97)       /* saturated pixels */
		I[i] = I[plane + i] = I[2 * plane + i] = 65535;

	ck_assert_int_eq(pt_interp_set_param(in, "R", R), 0);
	ck_assert_int_eq(pt_interp_set_param(in, "C", C), 0);
	ck_assert_int_eq(pt_interp_set_param(in, "alpha", alpha), 0);
	ck_assert_int_eq(pt_interp_set_param(in, "beta", beta), 0);
	ck_assert_int_eq(pt_interp_set_input(in, "I", &img), 0);
	ck_assert_msg(pt_interp_run(in) == 0, "%s", pt_ctx_diagnostics(ctx));

	uint16_t *ref = malloc((size_t)3 * R * C * sizeof(uint16_t));
	float *refg = malloc(plane * sizeof(float));
	ck_assert(ref && refg);
	ref_local_laplacian(R, C, alpha, beta, I, ref, refg);

	/* the gray result outG[0]: 0..R+3 x 0..C+3, defined everywhere */
	const uint8_t *def;
	int64_t origin[3];
	const pt_buffer *g = pt_interp_result(in, "outG[0]", &def, origin);
	ck_assert_ptr_nonnull(g);
	ck_assert_int_eq(g->type, PT_F32);
	ck_assert_int_eq(origin[0], 0);
	ck_assert_int_eq(g->extent[0], H);
	ck_assert_int_eq(g->extent[1], W);
	const float *gv = g->data;
	double maxdiff = 0, maxmag = 0;
	for (size_t i = 0; i < plane; i++) {
		ck_assert(def[i]);
		double d = fabs((double)gv[i] - refg[i]);
		maxdiff = d > maxdiff ? d : maxdiff;
		maxmag = fabs(refg[i]) > maxmag ? fabs(refg[i]) : maxmag;
	}
	ck_assert_msg(maxdiff <= 1e-5 * maxmag, "outG[0] %dx%d: max diff %g of %g", R, C, maxdiff, maxmag);

	/* the colour output: 0..2 x 0..R-1 x 0..C-1 u16 */
	const pt_buffer *o = pt_interp_result(in, "out", &def, origin);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(o->type, PT_U16);
	ck_assert_int_eq(o->extent[0], 3);
	ck_assert_int_eq(o->extent[1], R);
	ck_assert_int_eq(o->extent[2], C);
	const uint16_t *ov = o->data;
	int maxu = 0;
	size_t nout = (size_t)3 * R * C, nsame = 0;
	for (size_t i = 0; i < nout; i++) {
		ck_assert(def[i]);
		int d = abs((int)ov[i] - (int)ref[i]);
		ck_assert_msg(d <= 1, "out %dx%d at %zu: %u != %u", R, C, i, ov[i], ref[i]);
		maxu = d > maxu ? d : maxu;
		nsame += d == 0;
	}
	printf("local_laplacian %dx%d: outG[0] max diff %g (max |value| %g); out max diff %d, %zu of %zu equal\n",
	       R, C, maxdiff, maxmag, maxu, nsame, nout);

	free(ref);
	free(refg);
	pt_buffer_free(&img);
	pt_interp_free(in);
	pt_ctx_free(ctx);
}

START_TEST(square_128)
{
	check_size(128, 128, 21);
}
END_TEST

START_TEST(odd_135x161)
{
	check_size(135, 161, 22);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("local_laplacian");
	TCase *tc = tcase_create("interp_vs_reference");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, square_128);
	tcase_add_test(tc, odd_135x161);
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
