/* test_templates.c: Check suite for stage templates, parameterized lets,
 * windowed sum/min/max and table literals (docs/language.md, section
 * 18): each program runs on the reference interpreter and
 * its values are compared with values worked out by hand (or with the
 * same pipeline written out without the construct); each error is
 * checked for its message and for the file:line:col of both the use and
 * the definition. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polytile.h"

#include "run_suite.h"
#include "fixture.h"

#define EXT(...) ((const int64_t[]){__VA_ARGS__})

static pt_pipeline *load(const char *text)
{
	pt_pipeline *p = pt_parse_string(ctx, "t.pipe", text);
	ck_assert_msg(p != NULL, "pipeline did not parse:\n%s", pt_ctx_diagnostics(ctx));
	pt_interp_free(in);
	in = pt_interp_new(ctx, p);
	ck_assert_ptr_nonnull(in);
	return p;
}

/* Binds a 1-d image of n values 1, 2, ..., n and runs. */
static void run_on_ramp(const char *image, int n)
{
	ck_assert_int_lt(nbufs, MAX_BUFS);
	pt_buffer *b = &bufs[nbufs++];
	ck_assert_int_eq(pt_buffer_alloc(b, PT_F32, 1, EXT(n)), PT_OK);
	for (int64_t i = 0; i < n; i++)
		pt_buffer_set(b, &i, (double)(i + 1));
	ck_assert_int_eq(pt_interp_set_input(in, image, b), 0);
	ck_assert_msg(pt_interp_run(in) == 0, "run failed:\n%s", pt_ctx_diagnostics(ctx));
}

/* Value of a 1-d stage at x (its domain starts at origin). */
static double at(const char *stage, int64_t x)
{
	const uint8_t *def;
	int64_t origin[PT_MAX_DIMS];
	const pt_buffer *b = pt_interp_result(in, stage, &def, origin);
	ck_assert_msg(b != NULL, "no result for '%s'", stage);
	int64_t i = x - origin[0];
	ck_assert(i >= 0 && i < b->extent[0] && def[i]);
	return pt_buffer_get(b, &i);
}

static bool has_stage(const pt_pipeline *p, const char *name)
{
	for (int i = 0; i < pt_pipeline_stage_count(p); i++)
		if (!strcmp(pt_pipeline_stage_name(p, i), name))
			return true;
	return false;
}

/* text fails to load with an error at line:col saying phrase, and a note
 * at nline:ncol saying nphrase (nline 0: no note asked for). */
static void expect_error(const char *text, int line, int col, const char *phrase, int nline, int ncol,
	const char *nphrase)
{
	pt_pipeline *p = pt_parse_string(ctx, "t.pipe", text);
	const char *d = pt_ctx_diagnostics(ctx);
	ck_assert_msg(p == NULL, "pipeline loaded but should not have:\n%s", text);
	char want[512];
	snprintf(want, sizeof(want), "t.pipe:%d:%d: error: ", line, col);
	const char *m = strstr(d, want);
	ck_assert_msg(m != NULL, "no error at %d:%d; diagnostics:\n%s", line, col, d);
	const char *eol = strchr(m, '\n');
	ck_assert_msg(eol && strstr(m, phrase) && strstr(m, phrase) < eol, "'%s' not in the error:\n%s", phrase, d);
	if (!nline)
		return;
	snprintf(want, sizeof(want), "t.pipe:%d:%d: note: %s", nline, ncol, nphrase);
	ck_assert_msg(strstr(d, want) != NULL, "no note '%s'; diagnostics:\n%s", want, d);
}

/* ---- templates ---- */

static const char *blur_text =
	"pipeline t\n"
	"param R : int = 4\n"
	"image I : float [R]\n"
	"template twice(func out, func src, const k) {\n"
	"  func tmp(x : 0 .. R-1) : float = src(x) * 2.0\n"
	"  func out(x : 0 .. R-1) : float = tmp(x) + float(k)\n"
	"}\n"
	"twice(B1, I, 1)\n"
	"twice(B2, B1, 10)\n"
	"output B2\n";

START_TEST(template_stages_named_by_arguments)
{
	pt_pipeline *p = load(blur_text);
	ck_assert_int_eq(pt_pipeline_stage_count(p), 4);
	ck_assert(has_stage(p, "B1.tmp") && has_stage(p, "B1") && has_stage(p, "B2.tmp") && has_stage(p, "B2"));
	run_on_ramp("I", 4);
	/* B1 = 2 I + 1, B2 = 2 B1 + 10 = 4 I + 12 */
	for (int x = 0; x < 4; x++) {
		ck_assert_double_eq(at("B1", x), 2.0 * (x + 1) + 1);
		ck_assert_double_eq(at("B2", x), 4.0 * (x + 1) + 12);
	}
}
END_TEST

START_TEST(template_family_arguments_merge_indices)
{
	pt_pipeline *p = load(
		"pipeline t\n"
		"param R : int = 4\n"
		"image I : float [R]\n"
		"alias G[1, 0] = I\n"
		"template grow(func g, const l) {\n"
		"  func g[l](x : 0 .. R-1) : float = g[l-1](x) + float(l)\n"
		"}\n"
		"for l in 1 .. 3 { grow(G[1], l) }\n"
		"output G[1,3]\n");
	ck_assert_int_eq(pt_pipeline_stage_count(p), 3);
	ck_assert(has_stage(p, "G[1,1]") && has_stage(p, "G[1,2]") && has_stage(p, "G[1,3]"));
	run_on_ramp("I", 4);
	for (int x = 0; x < 4; x++)
		ck_assert_double_eq(at("G[1,3]", x), x + 1 + 1 + 2 + 3);
}
END_TEST

START_TEST(template_param_and_let_arguments)
{
	load(
		"pipeline t\n"
		"param R : int = 4\n"
		"param S : int = 4\n"
		"image I : float [R]\n"
		"template shift(func out, func src, param n, let off) {\n"
		"  func out(x : 0 .. n-1) : float = src(x) + off\n"
		"}\n"
		"shift(A, I, R, 0.5 * 4.0)\n"
		"output A\n");
	run_on_ramp("I", 4);
	for (int x = 0; x < 4; x++)
		ck_assert_double_eq(at("A", x), x + 1 + 2.0);
}
END_TEST

/* A body's var, cond and const stay in its use; names it does not
 * declare are those of the use's text. */
START_TEST(template_body_scope_is_the_use)
{
	load(
		"pipeline t\n"
		"param R : int = 4\n"
		"image I : float [R]\n"
		"var x : 0 .. R-1\n"
		"let v = 100.0\n"
		"template t(func out, func src) {\n"
		"  var x : 0 .. R-2\n"
		"  let v = 1.0\n"
		"  const K = 7\n"
		"  func out(x) : float = src(x) + v + w + float(K)\n"
		"}\n"
		"let w = 1000.0\n"
		"t(A, I)\n"
		"const K = 3\n"
		"func B(x) : float = I(x) + v + float(K)\n"
		"output A, B\n");
	run_on_ramp("I", 4);
	ck_assert_double_eq(at("A", 1), 2 + 1 + 1000 + 7);
	ck_assert_double_eq(at("B", 3), 4 + 100 + 3);      /* x : 0 .. R-1 again */
}
END_TEST

START_TEST(template_use_inside_template)
{
	pt_pipeline *p = load(
		"pipeline t\n"
		"param R : int = 4\n"
		"image I : float [R]\n"
		"template inc(func out, func src) {\n"
		"  func out(x : 0 .. R-1) : float = src(x) + 1.0\n"
		"}\n"
		"template inc2(func out, func src) {\n"
		"  inc(mid, src)\n"
		"  func mid2(x : 0 .. R-1) : float = mid(x) * 3.0\n"
		"  inc(out, mid2)\n"
		"}\n"
		"inc2(A, I)\n"
		"output A\n");
	ck_assert(has_stage(p, "A.mid") && has_stage(p, "A.mid2") && has_stage(p, "A"));
	run_on_ramp("I", 4);
	ck_assert_double_eq(at("A", 0), (1 + 1) * 3 + 1);
}
END_TEST

START_TEST(template_error_in_body_names_the_use)
{
	expect_error(
		"pipeline t\n"
		"param R : int = 4\n"
		"image I : float [R]\n"
		"template t(func out, func src) {\n"
		"  func out(x : 0 .. R-1) : float = src(x - 1)\n"
		"}\n"
		"t(A, I)\n"
		"output A\n", 5, 36, "reads I(x - 1) outside image 'I'", 7, 1, "in this use of template 't'");
}
END_TEST

START_TEST(template_recursion_refused)
{
	expect_error(
		"pipeline t\n"
		"image I : float [4]\n"
		"template a(func out) {\n"
		"  b(out)\n"
		"}\n"
		"template b(func out) {\n"
		"  a(out)\n"
		"}\n"
		"a(A)\n", 7, 3, "template 'a' uses itself: a -> b -> a", 3, 10, "'a' is defined here");
}
END_TEST

static const char *two_args =
	"pipeline t\n"
	"param R : int = 4\n"
	"image I : float [R]\n"
	"const K = 2\n"
	"template t(func out, const k) {\n"
	"  func out(x : 0 .. R-1) : float = I(x) * float(k)\n"
	"}\n";

/* Appends a line to two_args and expects the error. */
static void expect_use_error(const char *use, int col, const char *phrase, int ncol, const char *nphrase)
{
	char text[1024];
	snprintf(text, sizeof(text), "%s%s\n", two_args, use);
	expect_error(text, 8, col, phrase, 5, ncol, nphrase);
}

START_TEST(template_argument_errors)
{
	expect_use_error("t(A)", 1, "template 't' takes 2 arguments, not 1 (missing: k)", 10, "'t' is defined here");
}
END_TEST

START_TEST(template_too_many_arguments)
{
	expect_use_error("t(A, 1, 2)", 9, "template 't' takes 2 arguments", 10, "'t' is defined here");
}
END_TEST

START_TEST(template_stage_argument_not_a_name)
{
	expect_use_error("t(2, 1)", 3, "argument 1 of template 't' (func out) must be a stage or image name",
		17, "'out' is declared here");
}
END_TEST

START_TEST(template_stage_argument_is_a_constant)
{
	expect_use_error("t(K, 1)", 3, "and 'K' is a constant", 17, "'out' is declared here");
}
END_TEST

START_TEST(template_const_argument_not_constant)
{
	expect_use_error("t(A, R)", 6, "must be a compile-time constant", 28, "'k' is a const parameter of template 't'");
}
END_TEST

START_TEST(template_param_argument_not_a_param)
{
	expect_error(
		"pipeline t\n"
		"image I : float [4]\n"
		"template t(func out, param n) {\n"
		"  func out(x : 0 .. n) : float = I(x)\n"
		"}\n"
		"t(A, 3)\n", 6, 6, "argument 2 of template 't' (param n) must be a param's name", 3, 28,
		"'n' is declared here");
}
END_TEST

START_TEST(template_unknown_suggests)
{
	char text[1024];
	snprintf(text, sizeof(text), "%stt(A, 1)\n", two_args);
	expect_error(text, 8, 1, "no template named 'tt'", 0, 0, NULL);
	ck_assert(strstr(pt_ctx_diagnostics(ctx), "did you mean 't'?"));
}
END_TEST

START_TEST(template_defined_twice)
{
	expect_error(
		"pipeline t\n"
		"template t(func a) { }\n"
		"template t(func b) { }\n", 3, 10, "template 't' is already defined", 2, 10, "'t' was defined here");
}
END_TEST

START_TEST(template_inside_block_refused)
{
	expect_error(
		"pipeline t\n"
		"for l in 0 .. 1 {\n"
		"  template t(func a) { }\n"
		"}\n", 3, 3, "a template cannot be defined inside a block", 0, 0, NULL);
}
END_TEST

START_TEST(template_local_names_collide)
{
	/* the locals of both uses are I.tmp: the first stage argument names them */
	expect_error(
		"pipeline t\n"
		"image I : float [4]\n"
		"template t(func src, func out) {\n"
		"  func tmp(x : 0 .. 3) : float = src(x)\n"
		"  func out(x : 0 .. 3) : float = tmp(x)\n"
		"}\n"
		"t(I, A)\n"
		"t(I, B)\n", 4, 8, "'I.tmp' is already defined", 8, 1, "in this use of template 't'");
}
END_TEST

START_TEST(template_bad_parameter_kind)
{
	expect_error(
		"pipeline t\n"
		"template t(stage a) { }\n", 2, 12, "expected 'func', 'const', 'param' or 'let'", 0, 0, NULL);
}
END_TEST

/* ---- parameterized lets ---- */

START_TEST(let_with_parameters_mirrors)
{
	load(
		"pipeline t\n"
		"param R : int = 4\n"
		"image I : float [R]\n"
		"let mirror(i, n) = select(i < 0, -i, select(i >= n, 2*n - 2 - i, i))\n"
		"func l(x : 0 .. R-1) : float = I(mirror(x - 1, R))\n"
		"func r(x : 0 .. R-1) : float = I(mirror(x + 1, R))\n"
		"output l, r\n");
	run_on_ramp("I", 4);
	/* I = 1 2 3 4: l reads 1 0 1 2 (+1), r reads 1 2 3 2 (+1) */
	const double lv[] = {2, 1, 2, 3}, rv[] = {2, 3, 4, 3};
	for (int x = 0; x < 4; x++) {
		ck_assert_double_eq(at("l", x), lv[x]);
		ck_assert_double_eq(at("r", x), rv[x]);
	}
}
END_TEST

/* Arguments go in once: b - a with the arguments swapped, and a
 * parameter hides a constant of its name. */
START_TEST(let_arguments_not_substituted_again)
{
	load(
		"pipeline t\n"
		"image I : float [4]\n"
		"const a = 100\n"
		"let d(a, b) = a - b\n"
		"func f(x : 0 .. 3, y : 0 .. 1) : int = d(y, x)\n"
		"func g(x : 0 .. 3) : float = I(x) + float(d(1, x))\n"
		"output f, g\n");
	run_on_ramp("I", 4);
	ck_assert_double_eq(at("g", 3), 4 + (1 - 3));
}
END_TEST

START_TEST(let_arity_errors)
{
	const char *t =
		"pipeline t\n"
		"image I : float [4]\n"
		"let d(a, b) = a - b\n"
		"func f(x : 0 .. 3) : int = d(x)\n";
	expect_error(t, 4, 28, "'d' takes 2 arguments, not 1", 3, 5, "'d' is defined here");
}
END_TEST

START_TEST(let_used_without_arguments)
{
	const char *t =
		"pipeline t\n"
		"image I : float [4]\n"
		"let d(a, b) = a - b\n"
		"func f(x : 0 .. 3) : int = d + 1\n";
	expect_error(t, 4, 28, "'d' takes 2 arguments", 3, 5, "'d' is defined here");
}
END_TEST

START_TEST(let_duplicate_parameter)
{
	expect_error("pipeline t\nlet d(a, a) = a\n", 2, 10, "'d' has two parameters named 'a'", 0, 0, NULL);
}
END_TEST

/* ---- windows ---- */

/* The window is the sum written out, term for term. */
START_TEST(window_sum_equals_written_out)
{
	load(
		"pipeline t\n"
		"param R : int = 8\n"
		"image I : float [R]\n"
		"table w(u : -1 .. 1) : int = [1, 2, 1]\n"
		"func a(x : 1 .. R-2) : float = sum(u : -1 .. 1, w(u) * I(x + u))\n"
		"func b(x : 1 .. R-2) : float = 1 * I(x - 1) + 2 * I(x) + 1 * I(x + 1)\n"
		"func d(x : 1 .. R-2, y : 1 .. R-2) : float = sum(u : -1 .. 1, sum(v : 0 .. 1, I(x + u) * float(v)))\n"
		"output a, b, d\n");
	run_on_ramp("I", 8);
	for (int x = 1; x <= 6; x++) {
		ck_assert_double_eq(at("a", x), at("b", x));
		ck_assert_double_eq(at("a", x), 4.0 * (x + 1));
	}
}
END_TEST

START_TEST(window_max_and_min)
{
	load(
		"pipeline t\n"
		"param R : int = 6\n"
		"image I : float [R]\n"
		"func hi(x : 2 .. R-3) : float = max(u : -2 .. 2, I(x + u) * float(1 - 2 * (u % 2)))\n"
		"func lo(x : 1 .. R-2) : float = min(u : -1 .. 1, I(x + u))\n"
		"func one(x : 0 .. R-1) : float = max(u : 0 .. 0, I(x))\n"
		"func none(x : 0 .. R-1) : int = sum(u : 1 .. 0, x)\n"
		"output hi, lo, one, none\n");
	run_on_ramp("I", 6);
	/* at x = 2: I(0..4) = 1..5 weighted +1 -1 +1 -1 +1 (u = -2 .. 2): max(1, -2, 3, -4, 5) */
	ck_assert_double_eq(at("hi", 2), 5);
	ck_assert_double_eq(at("lo", 3), 3);
	ck_assert_double_eq(at("one", 5), 6);
	ck_assert_double_eq(at("none", 5), 0);
}
END_TEST

START_TEST(window_empty_max_refused)
{
	expect_error("pipeline t\nfunc f(x : 0 .. 3) : int = max(u : 2 .. 1, x)\noutput f\n", 2, 36,
		"the window of max is empty (2 .. 1)", 0, 0, NULL);
}
END_TEST

START_TEST(window_too_big_refused)
{
	expect_error("pipeline t\nfunc f(x : 0 .. 3) : int = sum(u : 0 .. 5000, x)\noutput f\n", 2, 36,
		"window of 5001 values: at most 1024", 0, 0, NULL);
}
END_TEST

START_TEST(window_bound_not_constant)
{
	expect_error("pipeline t\nparam R : int\nfunc f(x : 0 .. 3) : int = sum(u : 0 .. R, x)\noutput f\n", 3, 41,
		"this must be a compile-time constant", 0, 0, NULL);
}
END_TEST

/* ---- tables ---- */

START_TEST(table_constant_reads_are_no_stage)
{
	pt_pipeline *p = load(
		"pipeline t\n"
		"image I : float [4]\n"
		"table w(i, j) : float = [[0.5, 1.5], [2.5, 3.5]]\n"
		"table b(i) : u8 = [300, 7]\n"
		"table d(i) : double = [0.1]\n"
		"func f(x : 0 .. 3) : float = I(x) + w(1, 0)\n"
		"func g(x : 0 .. 3) : int = b(0)\n"
		"func h(x : 0 .. 3) : double = d(0)\n"
		"output f, g, h\n");
	ck_assert_int_eq(pt_pipeline_stage_count(p), 3);
	run_on_ramp("I", 4);
	ck_assert_double_eq(at("f", 0), 1 + 2.5);
	ck_assert_double_eq(at("g", 0), 44);        /* 300 stored in a u8 */
	ck_assert_double_eq(at("h", 0), 0.1);       /* the double 0.1, not 0.1f */
}
END_TEST

START_TEST(table_computed_reads_make_a_stage)
{
	pt_pipeline *p = load(
		"pipeline t\n"
		"image I : float [4]\n"
		"table lut(v : 1 .. 5) : int = [10, 20, 30, 40, 50]\n"
		"func f(x : 0 .. 3) : int = lut(x + 1) + lut(5)\n"
		"output f\n");
	ck_assert_int_eq(pt_pipeline_stage_count(p), 2);
	ck_assert(has_stage(p, "lut"));
	run_on_ramp("I", 4);
	for (int x = 0; x < 4; x++)
		ck_assert_double_eq(at("f", x), 10.0 * (x + 1) + 50);
}
END_TEST

START_TEST(table_index_outside)
{
	expect_error("pipeline t\ntable w(u : -1 .. 1) : int = [1, 2, 1]\nfunc f(x : 0 .. 3) : int = w(2)\n", 3, 30,
		"index 1 of table 'w' is 2, outside -1 .. 1", 2, 7, "'w' is defined here");
}
END_TEST

START_TEST(table_shape_mismatch)
{
	expect_error("pipeline t\ntable w(u : -1 .. 1) : int = [1, 2]\n", 2, 30,
		"table 'w' has 3 entries along 'u', not 2", 0, 0, NULL);
}
END_TEST

START_TEST(table_wrong_arity)
{
	expect_error("pipeline t\ntable w(u) : int = [1, 2]\nfunc f(x : 0 .. 3) : int = w(0, 1)\n", 3, 28,
		"table 'w' has 1 dimension, not 2", 2, 7, "'w' is defined here");
}
END_TEST

START_TEST(table_entry_not_constant)
{
	expect_error("pipeline t\nparam R : int\ntable w(u) : int = [1, R]\n", 3, 24,
		"this must be a compile-time constant", 0, 0, NULL);
}
END_TEST

static Suite *templates_suite(void)
{
	Suite *s = suite_create("templates");
	TCase *tc = tcase_create("templates");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, template_stages_named_by_arguments);
	tcase_add_test(tc, template_family_arguments_merge_indices);
	tcase_add_test(tc, template_param_and_let_arguments);
	tcase_add_test(tc, template_body_scope_is_the_use);
	tcase_add_test(tc, template_use_inside_template);
	tcase_add_test(tc, template_error_in_body_names_the_use);
	tcase_add_test(tc, template_recursion_refused);
	tcase_add_test(tc, template_argument_errors);
	tcase_add_test(tc, template_too_many_arguments);
	tcase_add_test(tc, template_stage_argument_not_a_name);
	tcase_add_test(tc, template_stage_argument_is_a_constant);
	tcase_add_test(tc, template_const_argument_not_constant);
	tcase_add_test(tc, template_param_argument_not_a_param);
	tcase_add_test(tc, template_unknown_suggests);
	tcase_add_test(tc, template_defined_twice);
	tcase_add_test(tc, template_inside_block_refused);
	tcase_add_test(tc, template_local_names_collide);
	tcase_add_test(tc, template_bad_parameter_kind);
	suite_add_tcase(s, tc);
	tc = tcase_create("lets");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, let_with_parameters_mirrors);
	tcase_add_test(tc, let_arguments_not_substituted_again);
	tcase_add_test(tc, let_arity_errors);
	tcase_add_test(tc, let_used_without_arguments);
	tcase_add_test(tc, let_duplicate_parameter);
	suite_add_tcase(s, tc);
	tc = tcase_create("windows");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, window_sum_equals_written_out);
	tcase_add_test(tc, window_max_and_min);
	tcase_add_test(tc, window_empty_max_refused);
	tcase_add_test(tc, window_too_big_refused);
	tcase_add_test(tc, window_bound_not_constant);
	suite_add_tcase(s, tc);
	tc = tcase_create("tables");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, table_constant_reads_are_no_stage);
	tcase_add_test(tc, table_computed_reads_make_a_stage);
	tcase_add_test(tc, table_index_outside);
	tcase_add_test(tc, table_shape_mismatch);
	tcase_add_test(tc, table_wrong_arity);
	tcase_add_test(tc, table_entry_not_constant);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pt_test_run_suite(templates_suite());
}
