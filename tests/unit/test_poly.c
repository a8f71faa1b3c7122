/* test_poly.c: the isl-based checks of poly/ (cases that provably overlap). */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include <isl/ctx.h>
#include <stdlib.h>

#include "polytile.h"
#include "ir.h"
#include "naive_schedule.h"

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

/* The naive schedule as isl's AST: stages in topological order, each
 * over its domain (steps kept), reductions as an init then an update. */
START_TEST(naive_schedule_ast)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_string(ctx, "t.pipe",
		"pipeline n\n"
		"param R : int = 8\n"
		"image I : u8 [R, R]\n"
		"func a(x : 0 .. R-1, y : 0 .. R-1) : int = I(x, y) + 1\n"
		"func b(x : 0 .. R-1 step 2) : int = a(x, 0)\n"
		"reduce h(v : 0 .. 255) : int over (x : 0 .. R-1, y : 0 .. R-1)\n"
		"  | h(I(x, y)) += b(x - x % 2)\n"
		"output h\n");
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	isl_ctx *ictx = isl_ctx_alloc();
	char *c = pt_poly_naive_ast_c(ictx, p);
	ck_assert_ptr_nonnull(c);
	/* a, then b with its step, then h's init and update, in that order */
	const char *sa = strstr(c, "S0(c1, c2);"), *sb = strstr(c, "S1(c1);");
	const char *si = strstr(c, "I2(c1);"), *su = strstr(c, "U2(c1, c2);");
	ck_assert_msg(sa && sb && si && su, "%s", c);
	ck_assert(sa < sb && sb < si && si < su);
	ck_assert_msg(strstr(c, "for (int c1 = 0; c1 < R; c1 += 2)") != NULL, "%s", c);
	ck_assert_msg(strstr(c, "for (int c1 = 0; c1 <= 255; c1 += 1)") != NULL, "%s", c);
	free(c);
	isl_ctx_free(ictx);
	pt_ctx_free(ctx);
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
	tcase_add_test(tc, naive_schedule_ast);
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
