/* test_poly.c: the isl-based checks of poly/ (cases that provably overlap). */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "polytile.h"

#include "run_suite.h"

static const char *diag_of(const char *src, pt_pipeline **out)
{
	static char buf[8192];
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_string(ctx, "t.pipe", src);
	*out = p;
	snprintf(buf, sizeof(buf), "%s", pt_ctx_diagnostics(ctx));
	pt_ctx_free(ctx);
	return buf;
}

START_TEST(overlap_reported_with_point)
{
	pt_pipeline *p;
	const char *d = diag_of(
		"pipeline ov\n"
		"param R : int = 100\n"
		"image I : float [R]\n"
		"func f(x : 0 .. R-1) : float\n"
		"  | x <= 1 -> I(x)\n"
		"  | x >= R-2 -> I(x) * 2\n"
		"output f\n", &p);
	ck_assert_ptr_null(p);
	ck_assert_ptr_nonnull(strstr(d, "t.pipe:6:5: error: cases 1 and 2 of 'f' overlap: both hold at x = "));
	ck_assert_ptr_nonnull(strstr(d, " when R = "));
	ck_assert_ptr_nonnull(strstr(d, "hint: make the conditions exclusive"));
}
END_TEST

START_TEST(overlap_in_two_dimensions_with_steps)
{
	pt_pipeline *p;
	const char *d = diag_of(
		"pipeline ov\n"
		"param R : int = 100\n"
		"func f(x : 0 .. R step 2, y : 0 .. 9) : int\n"
		"  | x == 2 * (x / 2) && y < 5 -> 1\n"
		"  | y >= 4 -> 2\n"
		"output f\n", &p);
	ck_assert_ptr_null(p);
	ck_assert_ptr_nonnull(strstr(d, "t.pipe:5:5: error: cases 1 and 2 of 'f' overlap: both hold at x = "));
	ck_assert_ptr_nonnull(strstr(d, "y = 4"));
}
END_TEST

START_TEST(exclusive_cases_accepted)
{
	pt_pipeline *p;
	const char *d = diag_of(
		"pipeline ok\n"
		"param R : int = 100\n"
		"image I : float [R]\n"
		"func f(x : 0 .. R-1) : float\n"
		"  | x <= 1 -> I(x)\n"
		"  | x >= R-2 && x >= 2 -> I(x) * 2\n"
		"  | else -> 0.0\n"
		"func g(x : 0 .. R-1) : float\n"
		"  | x % 2 == 0 -> 1.0\n"
		"  | x % 2 == 1 -> 2.0\n"
		"output f, g\n", &p);
	ck_assert_msg(p != NULL, "%s", d);
}
END_TEST

START_TEST(data_conditions_left_to_run_time)
{
	pt_pipeline *p;
	const char *d = diag_of(
		"pipeline dyn\n"
		"param R : int = 10\n"
		"image I : float [R]\n"
		"func f(x : 0 .. R-1) : float\n"
		"  | I(x) > 0.5 -> 1.0\n"
		"  | I(x) > 0.25 -> 2.0\n"
		"output f\n", &p);
	ck_assert_msg(p != NULL, "%s", d);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("poly");
	TCase *tc = tcase_create("case_overlap");
	tcase_add_test(tc, overlap_reported_with_point);
	tcase_add_test(tc, overlap_in_two_dimensions_with_steps);
	tcase_add_test(tc, exclusive_cases_accepted);
	tcase_add_test(tc, data_conditions_left_to_run_time);
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
