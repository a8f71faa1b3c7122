/* test_argmin.c: apps/argmin.pipe against the plain-C reference, in the
 * interpreter and compiled (factored into 16 parts: planned for N = 64),
 * on random u8 volumes and on ones of values 0 .. 3, where the least
 * value appears many times and the tie rule (the first point in
 * lexicographic order) decides the indices. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "polytile.h"
#include "ref_apps.h"
#include "ref_argmin.h"

#include "run_suite.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

/* am_0 .. am_4 of one run against the reference's. */
static void expect(const char *how, int N, const pt_buffer *const *got, uint8_t val, const int32_t *idx)
{
	ck_assert_msg(*(const uint8_t *)got[0]->data == val, "%s, N=%d: value %d != %d", how, N,
		*(const uint8_t *)got[0]->data, val);
	for (int k = 0; k < 4; k++)
		ck_assert_msg(*(const int32_t *)got[k + 1]->data == idx[k], "%s, N=%d: index %d is %d, not %d", how, N, k,
			*(const int32_t *)got[k + 1]->data, idx[k]);
}

static void check_argmin(pt_ctx *ctx, const pt_pipeline *p, pt_program *prog, int N, int mask, uint32_t seed)
{
	pt_buffer in;
	int64_t ext[4] = { N, N, N, N };
	ck_assert_int_eq(pt_buffer_alloc(&in, PT_U8, 4, ext), PT_OK);
	size_t count = (size_t)N * (size_t)N * (size_t)N * (size_t)N;
	ref_fill_u8(in.data, count, seed);
	for (size_t i = 0; i < count; i++)
		((uint8_t *)in.data)[i] = (uint8_t)(((uint8_t *)in.data)[i] & mask);
	uint8_t val;
	int32_t idx[4];
	ref_argmin(N, in.data, &val, idx);

	pt_interp *it = pt_interp_new(ctx, p);
	ck_assert_int_eq(pt_interp_set_input(it, "V", &in), 0);
	ck_assert_int_eq(pt_interp_set_param(it, "N", N), 0);
	ck_assert_msg(pt_interp_run(it) == 0, "%s", pt_ctx_diagnostics(ctx));
	const pt_buffer *ires[5];
	for (int k = 0; k < 5; k++) {
		char name[8];
		snprintf(name, sizeof(name), "am_%d", k);
		const uint8_t *def;
		int64_t origin[1];
		ires[k] = pt_interp_result(it, name, &def, origin);
		ck_assert_ptr_nonnull(ires[k]);
		ck_assert(def[0]);
	}
	expect("interpreter", N, ires, val, idx);
	pt_interp_free(it);

	pt_buffer out[5];
	pt_buffer *outs[5];
	int64_t one = 1;
	for (int k = 0; k < 5; k++) {
		ck_assert_int_eq(pt_buffer_alloc(&out[k], k ? PT_I32 : PT_U8, 1, &one), PT_OK);
		outs[k] = &out[k];
	}
	const pt_buffer *ins[1] = { &in };
	int64_t ip[1] = { N };
	ck_assert_int_eq(pt_program_run(prog, ip, NULL, ins, outs), 0);
	expect("compiled", N, (const pt_buffer *const *)outs, val, idx);
	for (int k = 0; k < 5; k++)
		pt_buffer_free(&out[k]);
	pt_buffer_free(&in);
}

START_TEST(argmin_sizes)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_file(ctx, APPS_DIR "/argmin.pipe");
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	pt_program *prog = pt_compile(ctx, p, NULL);
	ck_assert_msg(prog != NULL, "%s", pt_ctx_diagnostics(ctx));
	static const int sizes[] = { 1, 2, 5, 16, 21 };
	for (int s = 0; s < 5; s++) {
		check_argmin(ctx, p, prog, sizes[s], 255, 40u + (uint32_t)s);
		check_argmin(ctx, p, prog, sizes[s], 3, 50u + (uint32_t)s);
	}
	pt_program_free(prog);
	pt_ctx_free(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("argmin");
	TCase *tc = tcase_create("interp_and_compiled_vs_reference");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, argmin_sizes);
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
