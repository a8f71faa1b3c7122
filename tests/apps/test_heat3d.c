/* test_heat3d.c: apps/heat3d.pipe (one step and the time-iterated
 * variant) against the plain-C reference at two sizes, one odd.  Both
 * sides evaluate the same f32 operations in the same order, so the results
 * must be identical; the assertion still allows 1e-6 relative error so a
 * correct but differently rounded literal cannot fail it. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "polytile.h"
#include "ref_apps.h"
#include "ref_heat3d.h"

#include "run_suite.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

static void check_heat(int N, int T, uint32_t seed)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_file(ctx, APPS_DIR "/heat3d.pipe");
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	size_t n = (size_t)N + 2, count = n * n * n;
	pt_buffer in;
	int64_t ext[3] = {N + 2, N + 2, N + 2};
	ck_assert_int_eq(pt_buffer_alloc(&in, PT_F32, 3, ext), PT_OK);
	ref_fill_f32(in.data, count, seed);
	pt_interp *it = pt_interp_new(ctx, p);
	ck_assert_int_eq(pt_interp_set_input(it, "U", &in), 0);
	ck_assert_int_eq(pt_interp_set_param(it, "T", T), 0);
	ck_assert_msg(pt_interp_run(it) == 0, "%s", pt_ctx_diagnostics(ctx));
	float *once = calloc(count, sizeof(float)), *last = calloc(count, sizeof(float));
	ref_heat3d(N, T, 0.125f, in.data, once, last);
	const uint8_t *def;
	int64_t origin[3];
	const pt_buffer *o = pt_interp_result(it, "once", &def, origin);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(origin[0], 1);
	ck_assert_int_eq(o->extent[0], N);
	const float *got = o->data;
	for (int x = 1; x <= N; x++)
		for (int y = 1; y <= N; y++)
			for (int z = 1; z <= N; z++) {
				float r = once[((size_t)x * n + (size_t)y) * n + (size_t)z];
				float g = got[(((size_t)x - 1) * (size_t)N + (size_t)y - 1) * (size_t)N + (size_t)z - 1];
				ck_assert_msg(fabsf(g - r) <= 1e-6f * fabsf(r) + 1e-7f, "once(%d,%d,%d): %g != %g", x, y, z, g, r);
			}
	const pt_buffer *l = pt_interp_result(it, "last", &def, origin);
	ck_assert_ptr_nonnull(l);
	got = l->data;
	for (size_t i = 0; i < count; i++) {
		ck_assert(def[i]);
		ck_assert_msg(fabsf(got[i] - last[i]) <= 1e-6f * fabsf(last[i]) + 1e-7f,
			"last[%zu]: %g != %g", i, got[i], last[i]);
	}
	free(once);
	free(last);
	pt_interp_free(it);
	pt_buffer_free(&in);
	pt_ctx_free(ctx);
}

START_TEST(heat_sizes)
{
	check_heat(5, 3, 21);
	check_heat(12, 4, 22);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("heat3d");
	TCase *tc = tcase_create("interp_vs_reference");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, heat_sizes);
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
