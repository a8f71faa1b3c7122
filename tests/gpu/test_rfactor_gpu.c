/* test_rfactor_gpu.c: reductions factored for the CUDA backends
 * (poly/rfactor.c, PT_RF_GPU): which are factored and why not the others
 * (the CPU's rules of which may be reordered, integer word sums, mins
 * and maxes left to the GPU's atomics), the emulation (--backend
 * cuda-emu) against the interpreter with and without --reassociate, and
 * the launch shape of a dry run: the partial's parts are blocks. */
#include <stdlib.h>

/* reassociated float reductions of <= 262144 terms: within 1e-5 of the
 * largest magnitude, as test_rfactor's; 0 (exact) without */
static double float_tol;
#define FLOAT_TOL float_tol
#include "compiled.h"
#include "pt_runtime.h"
#include "rfactor.h"
#include "run_suite.h"

#ifndef PIPES_DIR
#define PIPES_DIR "tests/codegen/pipes"
#endif
#ifndef GPU_DIR
#define GPU_DIR "tests/gpu"
#endif

static pt_ctx *ctx;
static pt_pipeline *q;
static char *log_text;
static int nf;

static void setup(void)
{
	ctx = pt_ctx_new();
	q = NULL;
	log_text = NULL;
	nf = -1;
}

static void teardown(void)
{
	pt_pipeline_free(q);
	free(log_text);
	pt_ctx_free(ctx);
}

static const pt_pipeline *parse_file(const char *path)
{
	const pt_pipeline *p = pt_parse_file(ctx, path);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	return p;
}

/* Factors p for the GPU at its params' estimates. */
static void factor_gpu(const pt_pipeline *p, bool reassociate)
{
	int64_t ip[16] = {0};
	for (int i = 0; i < p->nparams; i++)
		ip[i] = (int64_t)p->params[i].estimate;
	pt_pipeline_free(q);
	free(log_text);
	q = pt_poly_rfactor_for(p, ip, reassociate, PT_RF_GPU, &log_text, &nf);
	ck_assert_ptr_nonnull(q);
	ck_assert_ptr_nonnull(log_text);
}

static bool says(const char *line)
{
	return strstr(log_text, line) != NULL;
}

/* factored.pipe at 2048 x 2048: the i32/i64 sums stay atomics, the
 * other exact ones get 2048 parts (the rows: sqrt(2048^2)) and a merge
 * over them; floats only reassociated. */
START_TEST(gpu_decisions)
{
	const pt_pipeline *p = parse_file(PIPES_DIR "/factored.pipe");
	factor_gpu(p, false);
	ck_assert_msg(says("reduction hist: not factored: the GPU updates it atomically"), "%s", log_text);
	ck_assert_msg(says("reduction line: not factored: the GPU updates it atomically"), "%s", log_text);
	ck_assert_msg(says("reduction wrap: factored into 2048 parts along x (a GPU thread each)"), "%s", log_text);
	ck_assert_msg(says("reduction prod: factored into 2048 parts"), "%s", log_text);
	ck_assert_msg(says("reduction any: factored into 2048 parts"), "%s", log_text);
	ck_assert_msg(says("reduction fsum: not factored: a float sum or product changes with the order"), "%s", log_text);
	ck_assert_int_eq(nf, 6);        /* wrap, prod, lo, hi, any, all */
	/* the merge: a reduction over (k_m, part), parallel along k_m */
	const pt_stage *m = pt_pipeline_find_stage(q, "prod"), *t = pt_pipeline_find_stage(q, "prod_part");
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(m->red, PT_RED_UPDATE);
	ck_assert_int_eq(m->nrdim, m->ndim + 1);
	ck_assert_int_eq(t->dom[0].hi->ival, 2047);
	factor_gpu(p, true);
	ck_assert_int_eq(nf, 8);
	ck_assert_msg(says("reduction fsum: factored into 2048 parts along x (a GPU thread each), 1048576 reduction "
		"points per result point at the estimates, reassociated (--reassociate)"), "%s", log_text);
	/* the 4-D argmin of 64^4: 64 parts along a, the most one dimension has */
	factor_gpu(parse_file(APPS_DIR "/argmin.pipe"), false);
	ck_assert_msg(says("reduction am: factored into 64 parts along a"), "%s", log_text);
	/* the tuples' and general updates' rules are the CPU's */
	factor_gpu(parse_file(PIPES_DIR "/tuples.pipe"), false);
	ck_assert_msg(says("reduction am4: factored into"), "%s", log_text);
	ck_assert_msg(says("reduction fam: not factored: an argmin/argmax with float components"), "%s", log_text);
	factor_gpu(parse_file(PIPES_DIR "/general.pipe"), false);
	ck_assert_msg(says("reduction paper: factored into 2048 parts"), "%s", log_text);
	ck_assert_msg(says("reduction lin: not factored"), "%s", log_text);
}
END_TEST

/* Not worth it, or parallel already: each with its reason. */
START_TEST(gpu_kept_serial)
{
	const pt_pipeline *r = pt_parse_string(ctx, "r.pipe",
		"pipeline r\nparam R : int = 100\nparam S : int = 4096\nimage I : u8 [S, S]\nimage J : u8 [R, R]\n"
		"image K : u8 [64, S]\n"
		"reduce small(k : 0 .. 0) : u8 over (x : 0 .. R-1, y : 0 .. R-1)\n  | small(0) max= J(x, y)\n"
		"reduce rowmax(r : 0 .. S-1) : u8 over (i : 0 .. S-1, y : 0 .. S-1)\n  | rowmax(i) max= I(i, y)\n"
		"reduce wide(k : 0 .. S-1) : u16 over (x : 0 .. S-1, y : 0 .. 63)\n  | wide(x % S) += K(y, x)\n"
		"output small, rowmax, wide\n");
	ck_assert_msg(r != NULL, "%s", pt_ctx_diagnostics(ctx));
	factor_gpu(r, true);
	ck_assert_int_eq(nf, 0);
	ck_assert_msg(says("reduction small: not factored: its reduction domain is small"), "%s", log_text);
	ck_assert_msg(says("reduction rowmax: not factored: its outer reduction loop is parallel already"), "%s",
		log_text);
	ck_assert_msg(says("reduction wide: not factored: its reduction domain is not large against its result"), "%s",
		log_text);
}
END_TEST

/* path under cuda-emu, -O0 and -O1, against the interpreter at sizes
 * (R, C): reassociated within FLOAT_TOL, else exact. */
static void emulated(const char *path, const double sizes[2][2], bool reassociate)
{
	static const char *const names[2] = {"R", "C"};
	const pt_options opts[2] = {
		{ .opt_level = PT_OPT_NAIVE, .backend = PT_BACKEND_CUDA_EMU, .compile_threads = 1,
			.reassociate = reassociate },
		{ .opt_level = PT_OPT_GROUPED, .backend = PT_BACKEND_CUDA_EMU, .overlap = 0.2, .compile_threads = 1,
			.reassociate = reassociate },
	};
	float_tol = reassociate ? 1e-5 : 0;
	cmp_file_opts(path, 2, names, sizes, 1, opts, 2);
}

/* tests/gpu/rfactor.pipe's 512 parts: fewer rows than parts, one round
 * of 512 rows plus an odd rest (the split's second block). */
START_TEST(emulated_reassociated)
{
	static const double sizes[2][2] = {{37, 5}, {1029, 3}};
	emulated(GPU_DIR "/rfactor.pipe", sizes, true);
}
END_TEST

START_TEST(emulated_exact)
{
	static const double sizes[2][2] = {{37, 5}, {1029, 3}};
	emulated(GPU_DIR "/rfactor.pipe", sizes, false);
}
END_TEST

/* factored.pipe, general.pipe, tuples.pipe (2048 parts): the exact
 * operators bit for bit, below one part each and past 2048 rows. */
START_TEST(emulated_pipes)
{
	static const char *const files[] = {"factored.pipe", "general.pipe", "tuples.pipe"};
	static const double sizes[2][2] = {{9, 7}, {2053, 2}};
	char path[512];
	snprintf(path, sizeof path, "%s/%s", PIPES_DIR, files[_i]);
	emulated(path, sizes, false);
}
END_TEST

/* The launches of rfactor.pipe at R x C in a dry run: how many run
 * `parts` parts as blocks of a warp, a part a thread (the partials:
 * codegen/gpu.c's lanes along the parts' loop). */
static int part_launches(bool reassociate, int64_t parts)
{
	pt_pipeline *p = pt_parse_file(ctx, GPU_DIR "/rfactor.pipe");
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	pt_options o = { .backend = PT_BACKEND_CUDA, .reassociate = reassociate };
	pt_program *prog = pt_compile(ctx, p, &o);
	ck_assert_msg(prog != NULL, "%s", pt_ctx_diagnostics(ctx));
	static const char *const names[2] = {"R", "C"};
	static const double at[2] = {1029, 3};
	cmp_run r;
	cmp_start(&r, ctx, p, 2, names, at, 5);
	int nout = pt_pipeline_output_count(p);
	pt_buffer outs[MAX_IO], *outp[MAX_IO];
	const pt_buffer *inp[MAX_IO];
	for (int i = 0; i < p->nimages; i++)
		inp[i] = &r.inputs[i];
	for (int i = 0; i < nout; i++) {
		int64_t lo[PT_MAX_DIMS], ext[PT_MAX_DIMS];
		const pt_stage *s = pt_pipeline_find_stage(p, pt_pipeline_output_name(p, i));
		ck_assert_int_eq(pt_pipeline_output_box(p, i, r.ip, lo, ext), s->ndim);
		ck_assert_int_eq(pt_buffer_alloc(&outs[i], (pt_type)s->type, s->ndim, ext), PT_OK);
		outp[i] = &outs[i];
	}
	pt_cuda_dry_run(1);
	ck_assert_int_eq(pt_program_run(prog, r.ip, r.fp, inp, outp), 0);
	const pt_cuda_launch_info *li;
	double bytes;
	int n = pt_cuda_dry_launches(&li, &bytes), found = 0;
	for (int i = 0; i < n; i++)
		found += li[i].blocks == parts / 32 && li[i].bdx == 32 && li[i].bdy == 1;
	pt_cuda_dry_run(0);
	for (int i = 0; i < nout; i++)
		pt_buffer_free(&outs[i]);
	cmp_finish(&r);
	pt_program_free(prog);
	return found;
}

/* Reassociated, the five factored reductions' 512 partials run on 16
 * blocks of 32 threads each; without, the two exact ones only. */
START_TEST(partials_on_many_blocks)
{
	ck_assert_int_eq(part_launches(true, 512), 5);
	ck_assert_int_eq(part_launches(false, 512), 2);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rfactor_gpu");
	TCase *tc = tcase_create("rfactor_gpu");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, gpu_decisions);
	tcase_add_test(tc, gpu_kept_serial);
	tcase_add_test(tc, emulated_reassociated);
	tcase_add_test(tc, emulated_exact);
	tcase_add_loop_test(tc, emulated_pipes, 0, 3);
	tcase_add_test(tc, partials_on_many_blocks);
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
