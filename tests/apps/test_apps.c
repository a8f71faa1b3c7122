/* test_apps.c: the interpreter against the independent plain-C references
 * (tests/ref) for the apps in apps/, at several sizes including odd ones,
 * and the harris pipeline built with the builder API against the file.
 *
 * Tolerances: integer apps (blur, sobel's gradients, histogram) must be
 * exact.  Float apps are computed by both sides in f32 with the same
 * operation order, so they agree exactly in practice; the assertion allows
 * a relative error of 1e-5 of the output's largest magnitude so that a
 * different but correct rounding of a literal (1.0/12 rounded once or
 * twice) cannot fail the test. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polytile.h"
#include "ref_apps.h"

#include "run_suite.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

typedef struct run {
	pt_ctx *ctx;
	pt_pipeline *p;
	pt_interp *in;
	pt_buffer input;
} run;

/* Parses apps/NAME.pipe and binds an input of the given type and extents. */
static void start(run *r, const char *app, const char *image, pt_type t, int ndim, const int64_t *ext)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s.pipe", APPS_DIR, app);
	r->ctx = pt_ctx_new();
	r->p = pt_parse_file(r->ctx, path);
	ck_assert_msg(r->p != NULL, "%s", pt_ctx_diagnostics(r->ctx));
	r->in = pt_interp_new(r->ctx, r->p);
	ck_assert_int_eq(pt_buffer_alloc(&r->input, t, ndim, ext), PT_OK);
	ck_assert_int_eq(pt_interp_set_input(r->in, image, &r->input), 0);
}

static void finish(run *r)
{
	pt_interp_free(r->in);
	pt_buffer_free(&r->input);
	pt_ctx_free(r->ctx);
}

static void run_ok(run *r)
{
	ck_assert_msg(pt_interp_run(r->in) == 0, "%s", pt_ctx_diagnostics(r->ctx));
}

/* Max |a - b| over n floats, and max |b|. */
static void compare_f32(const float *a, const float *b, size_t n, double *maxdiff, double *maxmag)
{
	*maxdiff = 0;
	*maxmag = 0;
	for (size_t i = 0; i < n; i++) {
		double d = fabs((double)a[i] - (double)b[i]);
		*maxdiff = d > *maxdiff ? d : *maxdiff;
		*maxmag = fabs(b[i]) > *maxmag ? fabs(b[i]) : *maxmag;
	}
}

static void check_harris(int R, int C, uint32_t seed)
{
	run r;
	int64_t ext[2] = {R + 2, C + 2};
	start(&r, "harris", "I", PT_F32, 2, ext);
	ref_fill_f32(r.input.data, (size_t)(R + 2) * (C + 2), seed);
	run_ok(&r);
	const uint8_t *def;
	int64_t origin[2];
	const pt_buffer *out = pt_interp_result(r.in, "harris", &def, origin);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(origin[0], 0);
	ck_assert_int_eq(out->extent[0], R + 2);
	ck_assert_int_eq(out->extent[1], C + 2);
	float *ref = calloc((size_t)(R + 2) * (C + 2), sizeof(float));
	ref_harris(R, C, r.input.data, ref);
	const float *got = out->data;
	double maxdiff = 0, maxmag = 0;
	int ndef = 0;
	for (int x = 0; x < R + 2; x++)
		for (int y = 0; y < C + 2; y++) {
			int i = x * (C + 2) + y;
			bool inside = x >= 2 && x <= R - 1 && y >= 2 && y <= C - 1;
			ck_assert_msg(!def[i] == !inside, "harris(%d, %d): defined %d, expected %d", x, y, def[i], inside);
			if (inside) {
				ndef++;
				double d = fabs((double)got[i] - ref[i]);
				maxdiff = d > maxdiff ? d : maxdiff;
				maxmag = fabs(ref[i]) > maxmag ? fabs(ref[i]) : maxmag;
			}
		}
	ck_assert_int_eq(ndef, (R - 2) * (C - 2));
	ck_assert_msg(maxdiff <= 1e-5 * maxmag, "harris %dx%d: max diff %g of %g", R, C, maxdiff, maxmag);
	free(ref);
	finish(&r);
}

START_TEST(harris_sizes)
{
	check_harris(9, 7, 1);
	check_harris(32, 17, 2);
	check_harris(3, 3, 3);
}
END_TEST

static void check_unsharp(int R, int C, uint32_t seed)
{
	run r;
	int64_t ext[3] = {3, R + 4, C + 4};
	start(&r, "unsharp_mask", "img", PT_F32, 3, ext);
	ref_fill_f32(r.input.data, (size_t)3 * (R + 4) * (C + 4), seed);
	ck_assert_int_eq(pt_interp_set_param(r.in, "threshold", 0.001), 0);
	ck_assert_int_eq(pt_interp_set_param(r.in, "weight", 3), 0);
	run_ok(&r);
	const uint8_t *def;
	int64_t origin[3];
	const pt_buffer *out = pt_interp_result(r.in, "mask", &def, origin);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(origin[1], 2);
	ck_assert_int_eq(origin[2], 2);
	ck_assert_int_eq(out->extent[1], R);
	ck_assert_int_eq(out->extent[2], C);
	size_t n = (size_t)3 * R * C;
	float *ref = calloc(n, sizeof(float));
	ref_unsharp_mask(R, C, 0.001f, 3.0f, r.input.data, ref);
	for (size_t i = 0; i < n; i++)
		ck_assert(def[i]);
	double maxdiff, maxmag;
	compare_f32(out->data, ref, n, &maxdiff, &maxmag);
	ck_assert_msg(maxdiff <= 1e-5 * maxmag, "unsharp %dx%d: max diff %g of %g", R, C, maxdiff, maxmag);
	free(ref);
	finish(&r);
}

START_TEST(unsharp_sizes)
{
	check_unsharp(5, 7, 4);
	check_unsharp(16, 11, 5);
}
END_TEST

static void check_blur(int R, int C, uint32_t seed)
{
	run r;
	int64_t ext[2] = {R + 2, C + 2};
	start(&r, "blur", "I", PT_U16, 2, ext);
	ref_fill_u16(r.input.data, (size_t)(R + 2) * (C + 2), seed);
	run_ok(&r);
	const uint8_t *def;
	const pt_buffer *out = pt_interp_result(r.in, "out", &def, NULL);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(out->extent[0], R);
	ck_assert_int_eq(out->extent[1], C);
	uint16_t *ref = calloc((size_t)R * C, sizeof(uint16_t));
	ref_blur(R, C, r.input.data, ref);
	const uint16_t *got = out->data;
	for (int i = 0; i < R * C; i++) {
		ck_assert(def[i]);
		ck_assert_msg(got[i] == ref[i], "blur %dx%d at %d: %u != %u", R, C, i, got[i], ref[i]);
	}
	free(ref);
	finish(&r);
}

START_TEST(blur_sizes)
{
	check_blur(7, 5, 6);
	check_blur(20, 13, 7);
}
END_TEST

static void check_sobel(int R, int C, uint32_t seed)
{
	run r;
	int64_t ext[2] = {R + 2, C + 2};
	start(&r, "sobel", "I", PT_U8, 2, ext);
	ref_fill_u8(r.input.data, (size_t)(R + 2) * (C + 2), seed);
	run_ok(&r);
	const uint8_t *def;
	int64_t origin[2];
	const pt_buffer *out = pt_interp_result(r.in, "mag", &def, origin);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(origin[0], 1);
	ck_assert_int_eq(out->extent[0], R);
	ck_assert_int_eq(out->extent[1], C);
	float *ref = calloc((size_t)R * C, sizeof(float));
	ref_sobel(R, C, r.input.data, ref);
	const float *got = out->data;
	for (int i = 0; i < R * C; i++)
		ck_assert_msg(def[i] && got[i] == ref[i], "sobel %dx%d at %d: %g != %g", R, C, i, got[i], ref[i]);
	free(ref);
	finish(&r);
}

START_TEST(sobel_sizes)
{
	check_sobel(9, 5, 8);
	check_sobel(24, 31, 9);
}
END_TEST

static void check_histogram(int R, int C, uint32_t seed)
{
	run r;
	int64_t ext[2] = {R, C};
	start(&r, "histogram", "I", PT_U8, 2, ext);
	ref_fill_u8(r.input.data, (size_t)R * C, seed);
	run_ok(&r);
	const pt_buffer *out = pt_interp_result(r.in, "hist", NULL, NULL);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(out->type, PT_I32);
	ck_assert_int_eq(out->extent[0], 256);
	int32_t ref[256];
	ref_histogram(R, C, r.input.data, ref);
	const int32_t *got = out->data;
	for (int b = 0; b < 256; b++)
		ck_assert_msg(got[b] == ref[b], "histogram %dx%d bin %d: %d != %d", R, C, b, got[b], ref[b]);
	finish(&r);
}

START_TEST(histogram_sizes)
{
	check_histogram(13, 7, 10);
	check_histogram(64, 33, 11);
}
END_TEST

/* Builds harris through the builder API, the expressions as strings. */
static pt_pipeline *build_harris(pt_ctx *ctx)
{
	pt_pipeline *p = pt_build_begin(ctx, "harris");
	const char *ext[2] = {"R+2", "C+2"};
	const char *vars[2] = {"x", "y"}, *lo[2] = {"0", "0"}, *hi[2] = {"R+1", "C+1"};
	ck_assert_int_eq(pt_build_param(p, "R", PT_I32, true, 6400), 0);
	ck_assert_int_eq(pt_build_param(p, "C", PT_I32, true, 6400), 0);
	ck_assert_int_eq(pt_build_image(p, "I", PT_F32, 2, ext), 0);
	ck_assert_int_eq(pt_build_cond(p, "inner", "x >= 1 && x <= R && y >= 1 && y <= C"), 0);
	ck_assert_int_eq(pt_build_cond(p, "border", "x >= 2 && x <= R-1 && y >= 2 && y <= C-1"), 0);
	static const struct { const char *name, *cond, *value; } stages[] = {
		{"Ix", "inner", "stencil(I(x, y), 1.0/12, [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]])"},
		{"Iy", "inner", "stencil(I(x, y), 1.0/12, [[-1, -2, -1], [0, 0, 0], [1, 2, 1]])"},
		{"Ixx", "inner", "Ix(x, y) * Ix(x, y)"},
		{"Iyy", "inner", "Iy(x, y) * Iy(x, y)"},
		{"Ixy", "inner", "Ix(x, y) * Iy(x, y)"},
		{"Sxx", "border", "stencil(Ixx(x, y), 1, [[1, 1, 1], [1, 1, 1], [1, 1, 1]])"},
		{"Syy", "border", "stencil(Iyy(x, y), 1, [[1, 1, 1], [1, 1, 1], [1, 1, 1]])"},
		{"Sxy", "border", "stencil(Ixy(x, y), 1, [[1, 1, 1], [1, 1, 1], [1, 1, 1]])"},
		{"det", "border", "Sxx(x, y) * Syy(x, y) - Sxy(x, y) * Sxy(x, y)"},
		{"trace", "border", "Sxx(x, y) + Syy(x, y)"},
		{"harris", "border", "det(x, y) - 0.04 * trace(x, y) * trace(x, y)"},
	};
	for (size_t i = 0; i < sizeof(stages) / sizeof(stages[0]); i++) {
		ck_assert_int_eq(pt_build_func(p, stages[i].name, PT_F32, 2, vars, lo, hi), 0);
		ck_assert_int_eq(pt_build_case(p, stages[i].cond, stages[i].value), 0);
	}
	ck_assert_int_eq(pt_build_output(p, "harris"), 0);
	pt_pipeline *done = pt_build_end(p);
	ck_assert_msg(done != NULL, "%s", pt_ctx_diagnostics(ctx));
	return done;
}

/* Runs harris (file or built) at R x C on a seeded input; returns a copy
 * of the output and its defined mask. */
static float *run_harris(pt_ctx *ctx, pt_pipeline *p, int R, int C, uint8_t **mask)
{
	pt_buffer in;
	int64_t ext[2] = {R + 2, C + 2};
	ck_assert_int_eq(pt_buffer_alloc(&in, PT_F32, 2, ext), PT_OK);
	ref_fill_f32(in.data, (size_t)(R + 2) * (C + 2), 77);
	pt_interp *it = pt_interp_new(ctx, p);
	ck_assert_int_eq(pt_interp_set_input(it, "I", &in), 0);
	ck_assert_msg(pt_interp_run(it) == 0, "%s", pt_ctx_diagnostics(ctx));
	const uint8_t *def;
	const pt_buffer *out = pt_interp_result(it, "harris", &def, NULL);
	size_t n = (size_t)(R + 2) * (C + 2);
	float *copy = malloc(n * sizeof(float));
	*mask = malloc(n);
	memcpy(copy, out->data, n * sizeof(float));
	memcpy(*mask, def, n);
	pt_interp_free(it);
	pt_buffer_free(&in);
	return copy;
}

START_TEST(builder_harris_matches_file)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *built = build_harris(ctx);
	pt_pipeline *file = pt_parse_file(ctx, APPS_DIR "/harris.pipe");
	ck_assert_msg(file != NULL, "%s", pt_ctx_diagnostics(ctx));
	ck_assert_int_eq(pt_pipeline_stage_count(built), 11);
	ck_assert_int_eq(pt_pipeline_stage_count(file), 11);
	uint8_t *ma, *mb;
	float *a = run_harris(ctx, built, 21, 14, &ma);
	float *b = run_harris(ctx, file, 21, 14, &mb);
	size_t n = (size_t)23 * 16;
	ck_assert_int_eq(memcmp(ma, mb, n), 0);
	ck_assert_int_eq(memcmp(a, b, n * sizeof(float)), 0);
	/* the same listing, stage for stage */
	char *da = pt_pipeline_describe(built), *db = pt_pipeline_describe(file);
	ck_assert_str_eq(da, db);
	free(da);
	free(db);
	free(a);
	free(b);
	free(ma);
	free(mb);
	pt_ctx_free(ctx);
}
END_TEST

START_TEST(builder_reports_bad_expression)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_build_begin(ctx, "bad");
	const char *vars[1] = {"x"}, *lo[1] = {"0"}, *hi[1] = {"9"};
	ck_assert_int_eq(pt_build_func(p, "f", PT_F32, 1, vars, lo, hi), 0);
	ck_assert_int_ne(pt_build_case(p, NULL, "x + * 2"), 0);
	ck_assert_ptr_null(pt_build_end(p));
	ck_assert_ptr_nonnull(strstr(pt_ctx_diagnostics(ctx), "<builder f case 1>:1:5: error:"));
	pt_ctx_free(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("apps");
	TCase *tc = tcase_create("interp_vs_reference");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, harris_sizes);
	tcase_add_test(tc, unsharp_sizes);
	tcase_add_test(tc, blur_sizes);
	tcase_add_test(tc, sobel_sizes);
	tcase_add_test(tc, histogram_sizes);
	tcase_add_test(tc, builder_harris_matches_file);
	tcase_add_test(tc, builder_reports_bad_expression);
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
