/* test_codegen_semantics.c: the language's value semantics, control
 * flow and reductions compiled for the CPU against the interpreter
 * (the pipelines in tests/codegen/pipes on random inputs, 1 and 2 threads, with
 * and without inlining, naive and grouped), and the ABI's checks of buffers and params. */
#include "compiled.h"
#include "run_suite.h"

#ifndef PIPES_DIR
#define PIPES_DIR "tests/codegen/pipes"
#endif

typedef struct pipe_case {
	const char *file;
	const char *names[2];
	double size[2][2];
	int nparams;
} pipe_case;

static const pipe_case pipes[] = {
	{ "ints", { "N" }, { { 37 }, { 64 } }, 1 },
	{ "floats", { "N" }, { { 37 }, { 64 } }, 1 },
	{ "convert", { "N" }, { { 37 }, { 64 } }, 1 },
	{ "control", { "N" }, { { 23 }, { 40 } }, 1 },
	{ "reductions", { "R", "C" }, { { 9, 67 }, { 16, 40 } }, 2 },
	/* factored at its estimates (2048 x 2048), run smaller: parts empty,
	 * partial and full */
	{ "factored", { "R", "C" }, { { 9, 67 }, { 70, 45 } }, 2 },
	/* general updates (factored where proved) at the same sizes */
	{ "general", { "R", "C" }, { { 9, 67 }, { 70, 45 } }, 2 },
	/* tuple reductions (argmin, complex products, mean and variance) */
	{ "tuples", { "R", "C" }, { { 9, 67 }, { 70, 45 } }, 2 },
	{ "shapes", { "N" }, { { 12 }, { 27 } }, 1 },
	{ "parity", { "N" }, { { 13 }, { 40 } }, 1 },
	{ "cases", { "N" }, { { 13 }, { 40 } }, 1 },
	{ "dead", { "N" }, { { 5 }, { 83 } }, 1 },
	{ "tables", { "N" }, { { 29 }, { 300 } }, 1 },
	{ "minmax", { "N" }, { { 29 }, { 300 } }, 1 },
	/* clamps ordered by the admissible params: tight (C - 5 = 4, one bin) */
	{ "ranges", { "R", "C" }, { { 3, 9 }, { 41, 30 } }, 2 },
	/* recurrences both ways, far from the estimates: one row or column
	 * (every point a first or last one), two, odd; the -O1 strips
	 * (256 wide) one partial, and a full one and a partial one */
	{ "recur", { "R", "C" }, { { 1, 2 }, { 2, 1 } }, 2 },
	{ "recur", { "R", "C" }, { { 7, 67 }, { 5, 301 } }, 2 },
	{ "box", { "R", "C" }, { { 1, 5 }, { 9, 40 } }, 2 },
	{ "box", { "R", "C" }, { { 40, 2 }, { 6, 517 } }, 2 },
	/* 3-D recurrences in strips: one point, then strips of 64 rows and
	 * 256 columns each one full and one partial */
	{ "strips", { "R", "C" }, { { 1, 1 }, { 70, 300 } }, 2 },
	/* reductions grouped with their consumers: blocks cut by the edge,
	 * few blocks, tiles of blocks partial and full */
	{ "cells", { "R", "C" }, { { 12, 13 }, { 75, 141 } }, 2 },
	/* time-iterated stages: no step but the first, one, a few */
	{ "steps", { "R", "T" }, { { 9, 0 }, { 37, 1 } }, 2 },
	{ "steps", { "R", "T" }, { { 50, 7 }, { 3, 13 } }, 2 },
};

/* The time-iterated stages of steps.pipe time tiled (grouping/
 * time_tile.h): blocks of 1 (step by step), 2, 3 and 5 steps, in
 * tiles smaller than a block's widening, cut by the edges, and larger
 * than the grid; every step count from 0 to 11, grids from 3 rows. */
START_TEST(time_tiled_equals_interpreter)
{
	static const struct { int K, t0, t1; } v[] = { { 1, 8, 16 }, { 2, 4, 4 }, { 3, 8, 16 }, { 5, 64, 256 } };
	char path[512];
	snprintf(path, sizeof(path), "%s/steps.pipe", PIPES_DIR);
	const char *names[2] = { "R", "T" };
	for (int T = _i * 3; T < _i * 3 + 3; T++) {
		double size[2][2] = { { 3 + 7 * T, T }, { 40 - 2 * T, T } };
		pt_options opts[4];
		for (int k = 0; k < 4; k++)
			opts[k] = (pt_options){ .opt_level = PT_OPT_GROUPED, .ntile = 2, .tile = { v[k].t0, v[k].t1 },
				.time_tile = v[k].K, .compile_threads = 1 };
		cmp_file_opts(path, 2, names, size, 1, opts, 4);
	}
}
END_TEST

START_TEST(pipe_compiled_equals_interpreter)
{
	const pipe_case *c = &pipes[_i];
	char path[512];
	snprintf(path, sizeof(path), "%s/%s.pipe", PIPES_DIR, c->file);
	cmp_file(path, c->nparams, c->names, c->size, 3);
}
END_TEST

/* The same pipelines with the grouping optimizer: small tiles and a low
 * threshold (full tiles generated apart), then large ones (most groups
 * then fit in one tile). */
START_TEST(pipe_grouped_equals_interpreter)
{
	const pipe_case *c = &pipes[_i];
	char path[512];
	snprintf(path, sizeof(path), "%s/%s.pipe", PIPES_DIR, c->file);
	const pt_options opts[2] = {
		{ .opt_level = PT_OPT_GROUPED, .ntile = 2, .tile = { 8, 16 }, .overlap = 0.2, .compile_threads = 1,
			.separate_tiles = true },
		{ .opt_level = PT_OPT_GROUPED, .ntile = 2, .tile = { 64, 256 }, .overlap = 0.5, .no_inline = true,
			.compile_threads = 2 },
	};
	cmp_file_opts(path, c->nparams, c->names, c->size, 1, opts, 2);
}
END_TEST

/* ---- the ABI's checks: an error code and nothing written ---- */

static const char *blur_src =
	"pipeline b\n"
	"param R : int = 8\n"
	"image I : u16 [R+2]\n"
	"func o(x : 1 .. R) : u16 = (I(x-1) + I(x) + I(x+1)) / 3\n"
	"output o\n";

static pt_ctx *actx;
static pt_program *aprog;
static pt_buffer ain, aout;

static void abi_setup(void)
{
	actx = pt_ctx_new();
	pt_pipeline *p = pt_parse_string(actx, "b.pipe", blur_src);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(actx));
	pt_options opt = {0};
	aprog = pt_compile(actx, p, &opt);
	ck_assert_msg(aprog != NULL, "%s", pt_ctx_diagnostics(actx));
	int64_t e = 10, eo = 8;
	ck_assert_int_eq(pt_buffer_alloc(&ain, PT_U16, 1, &e), PT_OK);
	ck_assert_int_eq(pt_buffer_alloc(&aout, PT_U16, 1, &eo), PT_OK);
	for (int i = 0; i < 10; i++)
		((uint16_t *)ain.data)[i] = (uint16_t)(i * 3);
	for (int i = 0; i < 8; i++)
		((uint16_t *)aout.data)[i] = 7777;
}

static void abi_teardown(void)
{
	pt_program_free(aprog);
	pt_buffer_free(&ain);
	pt_buffer_free(&aout);
	pt_ctx_free(actx);
}

static int run_abi(int64_t R)
{
	int64_t ip[1] = { R };
	double fp[1] = { 0 };
	const pt_buffer *in[1] = { &ain };
	pt_buffer *out[1] = { &aout };
	return pt_program_run(aprog, ip, fp, in, out);
}

static void assert_untouched(void)
{
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(((uint16_t *)aout.data)[i], 7777);
}

START_TEST(abi_runs_when_buffers_match)
{
	ck_assert_int_eq(run_abi(8), 0);
	for (int x = 1; x <= 8; x++)
		ck_assert_int_eq(((uint16_t *)aout.data)[x - 1], (3 * (x - 1) + 3 * x + 3 * (x + 1)) / 3);
}
END_TEST

START_TEST(abi_rejects_wrong_extent)
{
	ck_assert_int_eq(run_abi(7), PT_ERR_EXTENT);
	assert_untouched();
}
END_TEST

START_TEST(abi_rejects_wrong_type)
{
	ain.type = PT_I16;
	ck_assert_int_eq(run_abi(8), PT_ERR_TYPE);
	ain.type = PT_U16;
	aout.ndim = 2;
	ck_assert_int_eq(run_abi(8), PT_ERR_NDIM);
	aout.ndim = 1;
	assert_untouched();
}
END_TEST

START_TEST(abi_rejects_null_and_strides)
{
	void *d = ain.data;
	ain.data = NULL;
	ck_assert_int_eq(run_abi(8), PT_ERR_NULL);
	ain.data = d;
	aout.stride[0] = 2;
	ck_assert_int_eq(run_abi(8), PT_ERR_STRIDE);
	aout.stride[0] = 1;
	assert_untouched();
}
END_TEST

START_TEST(abi_rejects_params_that_empty_a_stage)
{
	/* R = 0 leaves o empty and I with extent 2 */
	int64_t e = 2, eo = 0;
	pt_buffer_free(&ain);
	ck_assert_int_eq(pt_buffer_alloc(&ain, PT_U16, 1, &e), PT_OK);
	pt_buffer o2;
	ck_assert_int_eq(pt_buffer_alloc(&o2, PT_U16, 1, &eo), PT_OK);
	int64_t ip[1] = { 0 };
	double fp[1] = { 0 };
	const pt_buffer *in[1] = { &ain };
	pt_buffer *out[1] = { &o2 };
	ck_assert_int_eq(pt_program_run(aprog, ip, fp, in, out), PT_ERR_PARAM);
	pt_buffer_free(&o2);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("codegen_semantics");
	TCase *tc = tcase_create("pipes");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, pipe_compiled_equals_interpreter, 0, (int)(sizeof(pipes) / sizeof(pipes[0])));
	tcase_add_loop_test(tc, pipe_grouped_equals_interpreter, 0, (int)(sizeof(pipes) / sizeof(pipes[0])));
	tcase_add_loop_test(tc, time_tiled_equals_interpreter, 0, 4);
	suite_add_tcase(s, tc);
	tc = tcase_create("abi");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, abi_setup, abi_teardown);
	tcase_add_test(tc, abi_runs_when_buffers_match);
	tcase_add_test(tc, abi_rejects_wrong_extent);
	tcase_add_test(tc, abi_rejects_wrong_type);
	tcase_add_test(tc, abi_rejects_null_and_strides);
	tcase_add_test(tc, abi_rejects_params_that_empty_a_stage);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pt_test_run_suite(suite());
}
