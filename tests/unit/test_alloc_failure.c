/* test_alloc_failure.c: every allocation of the front end that fails
 * ends a load in a clean error (issue 36): the test makes the nth
 * allocation of a run fail, for every n the run makes (alloc.h's
 * pt_mem_fail_at), and checks that the load returns NULL or -1 with
 * "out of memory" in the diagnostics, and that the ctx is still usable;
 * a leak or a use of freed memory on one of these paths is what an
 * AddressSanitizer build of this test reports. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "polytile.h"

#include "run_suite.h"

/* Allocations the last load or build made. */
static long made;

/* Most of the language: params, images, var, cond, let, const, a loop
 * stamping out a family, an alias, stencils, cases with else, select,
 * ?:, n-ary min, clamp, casts, a reduction with an init and an update. */
static const char *const source =
	"pipeline rich\n"
	"param R : int = 16\n"
	"param C : int = 12\n"
	"image I : float [R + 2, C + 2]\n"
	"image H : u8 [R, C]\n"
	"var x : 1 .. R\n"
	"var y : 1 .. C\n"
	"const K = 3\n"
	"cond inner = x >= 2 && x <= R - 1 && y >= 2 && y <= C - 1\n"
	"let w = 0.25 * (x + y)\n"
	"func blur(x, y) : float\n"
	"  | inner -> stencil(I(x, y), 1.0 / 9, [[1, 1, 1], [1, 1, 1], [1, 1, 1]])\n"
	"  | else -> I(x, y)\n"
	"for l in 1 .. K {\n"
	"  func G[l](x, y) : float = select(x > l, blur(x, y) * l, min(w, blur(x, y), float(l)))\n"
	"}\n"
	"alias last = G[3]\n"
	"func mix(x, y) : float = x % 2 == 0 ? clamp(last(x, y), 0.0, 1.0) : -G[1](x, y) + float(int(w))\n"
	"reduce hist(b : 0 .. 255) : int over (r : 0 .. R-1, c : 0 .. C-1) init 0\n"
	"  | hist(H(r, c)) += 1\n"
	"output mix\n"
	"output hist\n";

/* Loads source with the nth allocation failing (n = 0: none); returns
 * the pipeline's stage count, or -1 after checking the failure was
 * reported as one. */
static int load(long n, bool sticky)
{
	pt_ctx *ctx = pt_ctx_new();
	ck_assert_ptr_nonnull(ctx);
	pt_mem_fail_at(n, sticky);
	pt_pipeline *p = pt_parse_string(ctx, "rich.pipe", source);
	made = pt_mem_fail_at(0, false);
	int stages = p ? pt_pipeline_stage_count(p) : -1;
	if (!p) {
		const char *d = pt_ctx_diagnostics(ctx);
		ck_assert_msg(n > 0, "the pipeline does not load: %s", d);
		/* sticky: nothing more could be recorded, not even this */
		if (!sticky)
			ck_assert_msg(strstr(d, "out of memory"), "allocation %ld failed, and: %s", n, d);
		/* the ctx goes on working */
		pt_ctx_clear_diagnostics(ctx);
		ck_assert_ptr_nonnull(pt_parse_string(ctx, "again.pipe", source));
	}
	pt_ctx_free(ctx);
	return stages;
}

/* The allocations a whole load makes. */
static long allocations(void)
{
	ck_assert_int_gt(load(0, false), 0);
	return made;
}

START_TEST(each_allocation_of_a_load)
{
	long total = allocations();
	ck_assert_int_gt(total, 100);
	/* a failure reached by a load ends it (a later one is not reached) */
	for (long n = 1; n <= total; n++)
		ck_assert_int_eq(load(n, false), -1);
	ck_assert_int_gt(load(total + 1, false), 0);
}
END_TEST

START_TEST(every_allocation_after_one)
{
	long total = allocations();
	for (long n = 1; n <= total; n += 29)
		ck_assert_int_eq(load(n, true), -1);
}
END_TEST

/* The builder: a pipeline made call by call, the nth allocation
 * failing; some call fails with "out of memory" and pt_build_end gives
 * NULL, or (n past the run) everything succeeds. */
static bool build(long n)
{
	pt_ctx *ctx = pt_ctx_new();
	ck_assert_ptr_nonnull(ctx);
	pt_mem_fail_at(n, false);
	const char *vars[] = { "x", "y" }, *lo[] = { "0", "0" }, *hi[] = { "R - 1", "C - 1" };
	const char *ext[] = { "R", "C" }, *rv[] = { "r" }, *rlo[] = { "0" }, *rhi[] = { "R - 1" };
	const char *tgt[] = { "0", "0" };
	int bad = 0;
	pt_pipeline *p = pt_build_begin(ctx, "built");
	if (p) {
		bad |= pt_build_param(p, "R", PT_I32, true, 8);
		bad |= pt_build_param(p, "C", PT_I32, true, 8);
		bad |= pt_build_const(p, "K", 2, true);
		bad |= pt_build_image(p, "I", PT_F32, 2, ext);
		bad |= pt_build_cond(p, "edge", "x == 0 || y == 0");
		bad |= pt_build_func(p, "f", PT_F32, 2, vars, lo, hi);
		bad |= pt_build_case(p, "edge", "I(x, y)");
		bad |= pt_build_case(p, "!edge", "max(I(x, y), I(x - 1, y - 1), float(K))");
		bad |= pt_build_reduce(p, "s", PT_F32, 2, vars, lo, hi, 1, rv, rlo, rhi, "sum", NULL);
		bad |= pt_build_update(p, NULL, tgt, "f(r, 0)");
		bad |= pt_build_output(p, "f");
		bad |= pt_build_output(p, "s");
		p = pt_build_end(p);
	}
	made = pt_mem_fail_at(0, false);
	if (!p) {
		ck_assert_msg(n > 0, "the pipeline does not build: %s", pt_ctx_diagnostics(ctx));
		ck_assert_msg(strstr(pt_ctx_diagnostics(ctx), "out of memory"),
			"allocation %ld failed, and: %s", n, pt_ctx_diagnostics(ctx));
	} else {
		ck_assert_int_eq(bad, 0);
	}
	pt_ctx_free(ctx);
	return p != NULL;
}

START_TEST(each_allocation_of_the_builder)
{
	ck_assert(build(0));
	long total = made;
	ck_assert_int_gt(total, 50);
	for (long n = 1; n <= total; n++)
		ck_assert_msg(!build(n), "allocation %ld failed unnoticed", n);
}
END_TEST

/* After a load: the interpreter's run and the views, the nth allocation
 * failing: each ends in its result or in "out of memory". */
static bool use(pt_ctx *ctx, pt_pipeline *p, long n)
{
	bool ok = true;
	pt_buffer img, hst;
	int64_t ei[2] = { 18, 14 }, eh[2] = { 16, 12 };
	ck_assert_int_eq(pt_buffer_alloc(&img, PT_F32, 2, ei), PT_OK);
	ck_assert_int_eq(pt_buffer_alloc(&hst, PT_U8, 2, eh), PT_OK);
	pt_ctx_clear_diagnostics(ctx);
	pt_mem_fail_at(n, false);
	pt_interp *in = pt_interp_new(ctx, p);
	if (in) {
		ck_assert_int_eq(pt_interp_set_param(in, "R", 16), 0);
		ck_assert_int_eq(pt_interp_set_input(in, "I", &img), 0);
		ck_assert_int_eq(pt_interp_set_input(in, "H", &hst), 0);
		ok = pt_interp_run(in) == 0;
		pt_interp_free(in);
	} else {
		ok = false;
	}
	char *d = pt_pipeline_describe(p), *g = pt_pipeline_dot(p);
	made = pt_mem_fail_at(0, false);
	ok = ok && d && g;
	free(d);
	free(g);
	pt_buffer_free(&img);
	pt_buffer_free(&hst);
	if (!ok)
		ck_assert_msg(strstr(pt_ctx_diagnostics(ctx), "out of memory"), "allocation %ld failed, and: %s",
			n, pt_ctx_diagnostics(ctx));
	return ok;
}

START_TEST(each_allocation_of_a_run)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_string(ctx, "rich.pipe", source);
	ck_assert_ptr_nonnull(p);
	ck_assert(use(ctx, p, 0));
	long total = made;
	ck_assert_int_gt(total, 10);
	for (long n = 1; n <= total; n++)
		ck_assert_msg(!use(ctx, p, n), "allocation %ld failed unnoticed", n);
	pt_ctx_free(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("alloc_failure");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, each_allocation_of_a_load);
	tcase_add_test(tc, every_allocation_after_one);
	tcase_add_test(tc, each_allocation_of_the_builder);
	tcase_add_test(tc, each_allocation_of_a_run);
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
