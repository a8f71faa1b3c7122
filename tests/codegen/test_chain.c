/* test_chain.c: issue 13's generated chains (bench/gen_chain.py, 100
 * stages: point-wise stages alternating with 3-tap stencils, clamped
 * reads, and the --bounded variant whose domains shrink) compiled -O0
 * and -O1 against the interpreter, tolerance zero, 1 and 2 threads, at
 * sizes that are not multiples of the tiles.  The speed of compiling
 * long chains is measured in bench/chain.sh, not here. */
#include <stdlib.h>

#include "compiled.h"
#include "run_suite.h"

typedef struct chain_case {
	const char *path;
	double size[2];             /* R, C */
} chain_case;

static const chain_case chains[] = {
	{ CHAIN_PIPE, { 67, 301 } },
	{ BOUNDED_PIPE, { 97, 283 } },  /* 25 stencils along each dim: R, C > 50 */
};

START_TEST(chain_equals_interpreter)
{
	const chain_case *c = &chains[_i];
	static const char *const names[] = { "R", "C" };
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_file(ctx, c->path);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	ck_assert_int_eq(pt_pipeline_stage_count(p), 100);
	cmp_run r;
	cmp_start(&r, ctx, p, 2, names, c->size, 13u);
	for (int level = 0; level < 2; level++) {
		pt_options o = { .opt_level = level ? PT_OPT_GROUPED : PT_OPT_NAIVE };
		pt_program *prog = pt_compile(ctx, p, &o);
		ck_assert_msg(prog != NULL, "%s: %s", c->path, pt_ctx_diagnostics(ctx));
		for (int threads = 1; threads <= 2; threads++) {
			char label[600];
			snprintf(label, sizeof(label), "%s -O%d, size %g x %g, %d thread%s", c->path, level,
				c->size[0], c->size[1], threads, threads > 1 ? "s" : "");
			cmp_check(&r, prog, threads, label);
		}
		pt_program_free(prog);
	}
	cmp_finish(&r);
	pt_ctx_free(ctx);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("chain");
	TCase *tc = tcase_create("chains");
	tcase_set_timeout(tc, 600);
	tcase_add_loop_test(tc, chain_equals_interpreter, 0, (int)(sizeof(chains) / sizeof(chains[0])));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pt_test_run_suite(suite());
}
