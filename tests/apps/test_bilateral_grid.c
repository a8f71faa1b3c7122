/* test_bilateral_grid.c: apps/bilateral_grid.pipe run by the reference
 * interpreter against the independent plain-C reference
 * (tests/ref/ref_bilateral_grid.c), at an odd and an even size.
 *
 * Compared: the grid (the reduction), blury (the last blur) and the
 * output filtered, each over its whole box, with every point defined.
 *
 * Tolerances.  The grid's count channel holds integers below 2^24, exact
 * in float whatever the order: compared exactly, like every bin index.
 * Everything else is float, and both sides evaluate the same single-
 * precision operations in the same order (the reduction in the same
 * lexicographic order), so the results should be bit-identical; the
 * tolerance only admits a compiler that fuses a*b + c into an FMA in
 * either build (C allows that contraction outside ISO mode), which
 * changes a result by at most an ulp or so per fused operation.  Such
 * errors stay relative to the magnitudes involved, so:
 *   - grid sums and blury: |got - ref| <= 1e-5 * max|ref| of the stage
 *     (blury reaches ~81*16^3 = 3e5; an ulp there is 0.03, 1e-7 of it,
 *     and a few dozen rounded operations stay far below 1e-5);
 *   - filtered: values are weighted averages of inputs in [0, 1], so
 *     |got - ref| <= 1e-5 absolute (~80 ulps at 1.0).
 * A wrong tap, weight, index or sampling offset changes values by orders
 * of magnitude more (a 1/16 weight error in blury, a bin off by one moves
 * a pixel by ~0.1 in filtered), so these bounds still catch it.  The test
 * reports the largest differences it saw. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polytile.h"
#include "ref_apps.h"
#include "ref_bilateral_grid.h"

#include "run_suite.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

/* Max |a - b| over n floats, and max |b|. */
static void diff_f32(const float *a, const float *b, size_t n, double *maxdiff, double *maxmag)
{
	*maxdiff = 0;
	*maxmag = 0;
	for (size_t i = 0; i < n; i++) {
		double d = fabs((double)a[i] - (double)b[i]);
		*maxdiff = d > *maxdiff ? d : *maxdiff;
		*maxmag = fabs(b[i]) > *maxmag ? fabs(b[i]) : *maxmag;
	}
}

/* The interpreter's buffer of a stage, checked for its box and that every
 * point is defined. */
static const float *stage(pt_interp *in, const char *name, int ndim, const int64_t *lo, const int64_t *ext)
{
	const uint8_t *def;
	int64_t origin[4];
	const pt_buffer *b = pt_interp_result(in, name, &def, origin);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(b->type, PT_F32);
	ck_assert_int_eq(b->ndim, ndim);
	size_t n = 1;
	for (int d = 0; d < ndim; d++) {
		ck_assert_int_eq(origin[d], lo[d]);
		ck_assert_int_eq(b->extent[d], ext[d]);
		n *= (size_t)ext[d];
	}
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(def[i], "%s: element %zu undefined", name, i);
	return b->data;
}

static void check_bilateral_grid(int R, int C, uint32_t seed)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_file(ctx, APPS_DIR "/bilateral_grid.pipe");
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	ck_assert_int_eq(pt_pipeline_stage_count(p), 6);

	pt_buffer in;
	int64_t iext[2] = {R + 56, C + 56};
	ck_assert_int_eq(pt_buffer_alloc(&in, PT_F32, 2, iext), PT_OK);
	size_t nin = (size_t)(R + 56) * (C + 56);
	float *I = in.data;
	ref_fill_f32(I, nin, seed);
	/* ref_fill_f32 stays in [0, 1): add exact 1s (the top bin, whose upper
	 * neighbour is clamped) and 0s (the bottom bin). */
	for (size_t i = 0; i < nin; i += 13)
		I[i] = 1.0f;
	for (size_t i = 5; i < nin; i += 17)
		I[i] = 0.0f;

	pt_interp *it = pt_interp_new(ctx, p);
	ck_assert_int_eq(pt_interp_set_input(it, "I", &in), 0);
	ck_assert_msg(pt_interp_run(it) == 0, "%s", pt_ctx_diagnostics(ctx));
	double v;
	ck_assert_int_eq(pt_interp_get_param(it, "R", &v), 0);
	ck_assert(v == R);
	ck_assert_int_eq(pt_interp_get_param(it, "C", &v), 0);
	ck_assert(v == C);

	int GX = ref_bg_cells(R), GY = ref_bg_cells(C);
	size_t ng = (size_t)2 * GX * GY * 15, nb = (size_t)2 * (GX - 4) * (GY - 4) * 11;
	size_t nout = (size_t)R * C;
	float *rgrid = malloc(ng * sizeof(float));
	float *rblury = malloc(nb * sizeof(float));
	float *rout = malloc(nout * sizeof(float));
	ref_bilateral_grid(R, C, I, rgrid, rblury, rout);

	int64_t glo[4] = {0, 1, 1, 0}, gext[4] = {2, GX, GY, 15};
	int64_t blo[4] = {0, 3, 3, 2}, bext[4] = {2, GX - 4, GY - 4, 11};
	int64_t olo[2] = {24, 24}, oext[2] = {R, C};
	const float *grid = stage(it, "grid", 4, glo, gext);
	const float *blury = stage(it, "blury", 4, blo, bext);
	const float *out = stage(it, "filtered", 2, olo, oext);

	/* grid: counts exact (their total is (9*GX) * (9*GY) pixels), sums
	 * within tolerance */
	size_t half = ng / 2;
	double total = 0;
	for (size_t i = 0; i < half; i++) {
		ck_assert_msg(grid[half + i] == rgrid[half + i], "grid count %dx%d at %zu: %g != %g",
			R, C, i, grid[half + i], rgrid[half + i]);
		total += grid[half + i];
	}
	ck_assert(total == 81.0 * GX * GY);
	double dg, mg, db, mb, dout, mout;
	diff_f32(grid, rgrid, half, &dg, &mg);
	ck_assert_msg(dg <= 1e-5 * mg, "grid sums %dx%d: max diff %g of %g", R, C, dg, mg);
	diff_f32(blury, rblury, nb, &db, &mb);
	ck_assert_msg(db <= 1e-5 * mb, "blury %dx%d: max diff %g of %g", R, C, db, mb);
	diff_f32(out, rout, nout, &dout, &mout);
	ck_assert_msg(dout <= 1e-5, "filtered %dx%d: max diff %g", R, C, dout);
	ck_assert(mout > 0.5 && mout <= 1.0);
	printf("bilateral_grid %dx%d: max diff grid %g (of %g), blury %g (of %g), filtered %g\n",
		R, C, dg, mg, db, mb, dout);

	free(rgrid);
	free(rblury);
	free(rout);
	pt_interp_free(it);
	pt_buffer_free(&in);
	pt_ctx_free(ctx);
}

START_TEST(bilateral_grid_odd)
{
	check_bilateral_grid(37, 29, 21);
}
END_TEST

START_TEST(bilateral_grid_even)
{
	check_bilateral_grid(64, 48, 22);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bilateral_grid");
	TCase *tc = tcase_create("interp_vs_reference");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, bilateral_grid_odd);
	tcase_add_test(tc, bilateral_grid_even);
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
