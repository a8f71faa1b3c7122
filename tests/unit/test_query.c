/* test_query.c: the public queries of polytile.h (params, images and
 * stages by index and name) and running a pipeline's params and inputs
 * outside the interpreter (pt_param_check, pt_infer_params,
 * pt_check_input, pt_check_inputs), with only the public headers; and
 * the CPU target's allocation hooks in the IR it emits. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "polytile.h"

#include "run_suite.h"

static pt_ctx *ctx;
static pt_pipeline *p;

static const char *const text =
	"pipeline q\n"
	"param R : int\n"
	"param C : int = 6\n"
	"param k : float = 0.1\n"
	"image I : u8 [R + 2, C]\n"
	"image P : f32 [3, R, 4]\n"
	"func f(x : 0 .. R - 1, y : 0 .. C - 1) : f32 = float(I(x + 1, y)) * k\n"
	"func g(c : 0 .. 2, x : 0 .. R - 1, y : 1 .. 3) : f32 = P(c, x, y) + f(x, 0)\n"
	"output g\n";

static void setup(void)
{
	ctx = pt_ctx_new();
	p = pt_parse_string(ctx, "q.pipe", text);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
}

static void teardown(void)
{
	pt_ctx_free(ctx);
}

START_TEST(params_by_index_and_name)
{
	double v;
	ck_assert_int_eq(pt_pipeline_param_count(p), 3);
	ck_assert_str_eq(pt_pipeline_param_name(p, 1), "C");
	ck_assert_int_eq(pt_pipeline_param_index(p, "k"), 2);
	ck_assert_int_eq(pt_pipeline_param_index(p, "K"), -1);
	ck_assert_int_eq(pt_pipeline_param_type(p, 0), PT_I32);
	ck_assert_int_eq(pt_pipeline_param_type(p, 2), PT_F32);
	ck_assert(!pt_pipeline_param_estimate(p, 0, &v));
	ck_assert(pt_pipeline_param_estimate(p, 1, &v));
	ck_assert(v == 6);
	ck_assert_ptr_null(pt_pipeline_param_name(p, 3));
	ck_assert_int_eq(pt_pipeline_param_type(p, -1), PT_NTYPES);
}
END_TEST

START_TEST(images_by_index_and_name)
{
	int64_t v, ext[PT_MAX_DIMS];
	ck_assert_int_eq(pt_pipeline_image_count(p), 2);
	ck_assert_int_eq(pt_pipeline_image_index(p, "P"), 1);
	ck_assert_int_eq(pt_pipeline_image_index(p, "f"), -1);
	ck_assert_str_eq(pt_pipeline_image_name(p, 0), "I");
	ck_assert_int_eq(pt_pipeline_image_type(p, 0), PT_U8);
	ck_assert_int_eq(pt_pipeline_image_ndim(p, 1), 3);
	ck_assert(pt_pipeline_image_extent_const(p, 1, 0, &v));
	ck_assert_int_eq(v, 3);
	ck_assert(!pt_pipeline_image_extent_const(p, 1, 1, &v));
	ck_assert(!pt_pipeline_image_extent_const(p, 1, 3, &v));
	double values[] = {5, 7, 0.5};
	ck_assert_int_eq(pt_pipeline_image_extents(p, 0, values, ext), 0);
	ck_assert_int_eq(ext[0], 7);
	ck_assert_int_eq(ext[1], 7);
	ck_assert_int_eq(pt_pipeline_image_extents(p, 2, values, ext), -1);
}
END_TEST

START_TEST(stages_by_index_and_name)
{
	int64_t lo, hi;
	int g = pt_pipeline_stage_index(p, "g");
	ck_assert_int_ge(g, 0);
	ck_assert_int_eq(pt_pipeline_stage_index(p, "h"), -1);
	ck_assert_str_eq(pt_pipeline_stage_name(p, g), "g");
	ck_assert_int_eq(pt_pipeline_stage_type(p, g), PT_F32);
	ck_assert_int_eq(pt_pipeline_stage_ndim(p, g), 3);
	ck_assert(pt_pipeline_stage_is_output(p, g));
	ck_assert(!pt_pipeline_stage_is_output(p, pt_pipeline_stage_index(p, "f")));
	ck_assert(pt_pipeline_stage_bounds_const(p, g, 2, &lo, &hi));
	ck_assert_int_eq(lo, 1);
	ck_assert_int_eq(hi, 3);
	ck_assert(!pt_pipeline_stage_bounds_const(p, g, 1, &lo, &hi));
	ck_assert_ptr_null(pt_pipeline_stage_name(p, 9));
}
END_TEST

START_TEST(param_values_are_checked)
{
	double v;
	ck_assert_int_eq(pt_param_check(ctx, p, "R", 12, &v), 0);
	ck_assert(v == 12);
	ck_assert_int_eq(pt_param_check(ctx, p, "k", 0.1, &v), 0);
	ck_assert(v == (double)0.1f);
	ck_assert_int_eq(pt_param_check(ctx, p, "R", 2.5, &v), -1);
	ck_assert_ptr_nonnull(strstr(pt_ctx_diagnostics(ctx), "param 'R' is i32 and cannot be 2.5"));
	ck_assert_int_eq(pt_param_check(ctx, p, "Q", 1, &v), -1);
	ck_assert_ptr_nonnull(strstr(pt_ctx_diagnostics(ctx), "no param named 'Q'"));
}
END_TEST

/* R from I's first extent (R + 2), C given, k from its estimate. */
START_TEST(params_inferred_from_inputs)
{
	pt_buffer in;
	ck_assert_int_eq(pt_buffer_alloc(&in, PT_U8, 2, (const int64_t[]){9, 4}), PT_OK);
	const pt_buffer *inputs[2] = { &in, NULL };
	double values[3] = { 0, 4, 0 };
	bool known[3] = { false, true, false };
	ck_assert_int_eq(pt_infer_params(ctx, p, inputs, values, known), 0);
	ck_assert(values[0] == 7 && values[1] == 4 && values[2] == (double)0.1f);
	ck_assert(known[0] && known[1] && known[2]);
	/* nothing to infer R from: a located message */
	double none[3] = {0};
	bool unknown[3] = {false};
	const pt_buffer *no_inputs[2] = { NULL, NULL };
	ck_assert_int_eq(pt_infer_params(ctx, p, no_inputs, none, unknown), -1);
	ck_assert_ptr_nonnull(strstr(pt_ctx_diagnostics(ctx), "q.pipe:2:7: error: param 'R' has no value"));
	pt_buffer_free(&in);
}
END_TEST

START_TEST(inputs_are_checked)
{
	pt_buffer i8, good, small;
	ck_assert_int_eq(pt_buffer_alloc(&i8, PT_I8, 2, (const int64_t[]){9, 4}), PT_OK);
	ck_assert_int_eq(pt_buffer_alloc(&good, PT_U8, 2, (const int64_t[]){9, 4}), PT_OK);
	ck_assert_int_eq(pt_buffer_alloc(&small, PT_F32, 3, (const int64_t[]){3, 7, 3}), PT_OK);
	ck_assert_int_eq(pt_check_input(ctx, p, 0, &good), 0);
	ck_assert_int_eq(pt_check_input(ctx, p, 0, &i8), -1);
	ck_assert_ptr_nonnull(strstr(pt_ctx_diagnostics(ctx),
		"input 'I' is i8 with 2 dimensions but the pipeline declares u8 with 2"));
	pt_ctx_clear_diagnostics(ctx);
	double values[3] = { 7, 4, 0.5 };
	const pt_buffer *inputs[2] = { &good, NULL };
	ck_assert_int_eq(pt_check_inputs(ctx, p, inputs, values), -1);
	ck_assert_ptr_nonnull(strstr(pt_ctx_diagnostics(ctx), "image 'P' has no input"));
	pt_ctx_clear_diagnostics(ctx);
	inputs[1] = &small;
	ck_assert_int_eq(pt_check_inputs(ctx, p, inputs, values), -1);
	ck_assert_ptr_nonnull(strstr(pt_ctx_diagnostics(ctx),
		"q.pipe:6:7: error: input 'P' is 3 x 7 x 3 but the pipeline expects 3 x 7 x 4 (3, R, 4 with R=7 C=4)"));
	pt_buffer_free(&small);
	ck_assert_int_eq(pt_buffer_alloc(&small, PT_F32, 3, (const int64_t[]){3, 7, 4}), PT_OK);
	ck_assert_int_eq(pt_check_inputs(ctx, p, inputs, values), 0);
	pt_buffer_free(&i8);
	pt_buffer_free(&good);
	pt_buffer_free(&small);
}
END_TEST

/* The CPU target's hooks as seen in its LLVM IR: intermediate stages of
 * the naive schedule come from the runtime's allocator, declared noalias;
 * a unit that allocates nothing declares no allocator. */
START_TEST(cpu_target_hooks)
{
	pt_options keep = { .no_inline = true, .opt_level = PT_OPT_NAIVE };
	char *ir = pt_emit_llvm(ctx, p, &keep, "q");
	ck_assert_msg(ir != NULL, "%s", pt_ctx_diagnostics(ctx));
	ck_assert_ptr_nonnull(strstr(ir, "declare noalias ptr @pt_rt_alloc(i64)"));
	ck_assert_ptr_nonnull(strstr(ir, "call void @pt_rt_free("));
	free(ir);
	pt_pipeline *one = pt_parse_string(ctx, "one.pipe",
		"pipeline one\nparam R : int = 4\nfunc o(x : 0 .. R - 1) : int = x\noutput o\n");
	ck_assert_ptr_nonnull(one);
	ir = pt_emit_llvm(ctx, one, &keep, "one");
	ck_assert_ptr_nonnull(ir);
	ck_assert_ptr_null(strstr(ir, "pt_rt_alloc"));
	free(ir);
}
END_TEST

static Suite *query_suite(void)
{
	Suite *s = suite_create("query");
	TCase *tc = tcase_create("pipeline");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, params_by_index_and_name);
	tcase_add_test(tc, images_by_index_and_name);
	tcase_add_test(tc, stages_by_index_and_name);
	suite_add_tcase(s, tc);
	tc = tcase_create("running");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, param_values_are_checked);
	tcase_add_test(tc, params_inferred_from_inputs);
	tcase_add_test(tc, inputs_are_checked);
	suite_add_tcase(s, tc);
	tc = tcase_create("codegen");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, cpu_target_hooks);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pt_test_run_suite(query_suite());
}
