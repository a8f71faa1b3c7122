/* test_cuda_emu.c: the CUDA target's mapping (codegen/gpu.c), its
 * kernels run by the emulator (runtime/gpu_emu.c: each thread of a block
 * a coroutine, barriers real, threads in reversed and shuffled order
 * between them), against the interpreter with tolerance zero
 * (compiled.h): every app, naive and grouped, with the tile model's
 * tiles and blocks, small tiles in an odd block of fewer threads than a
 * tile has points and large ones in a block of 1,024 (the most a block
 * may have), at the apps' two odd test sizes and,
 * where an app allows, at one smaller than a block.  Every launch is
 * checked against the device's limits by the emulator (threads per
 * block, blocks, shared memory per block), which fails the run. */
#include <stdlib.h>

#include "compiled.h"
#include "run_suite.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

#include "apps_table.h"

typedef struct emu_conf {
	const char *name;
	pt_opt_level opt;
	int t0, t1;                 /* 0: the tile model's */
	bool no_inline;
	int bx, by;                 /* --gpu-block (0: the model's, or 32 x 8 with given tiles) */
} emu_conf;

static const emu_conf confs[] = {
	{ "-O0", PT_OPT_NAIVE, 0, 0, false, 0, 0 },
	{ "-O1", PT_OPT_GROUPED, 0, 0, false, 0, 0 },
	{ "-O1 --tile 8x16 --no-inline --gpu-block 7x3", PT_OPT_GROUPED, 8, 16, true, 7, 3 },
	{ "-O1 --tile 64x256 --gpu-block 128x8", PT_OPT_GROUPED, 64, 256, false, 128, 8 },
};
enum { NCONFS = sizeof(confs) / sizeof(confs[0]) };

/* Apps that run at 5 x 3 (no pyramid levels or Bayer quads to fit). */
static bool tiny_ok(const char *app)
{
	static const char *const ok[] = { "blur", "sobel", "harris", "histogram", "unsharp_mask" };
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strcmp(ok[i], app))
			return true;
	return false;
}

START_TEST(app_emulated_equals_interpreter)
{
	const app_case *a = &apps[_i];
	char path[512];
	snprintf(path, sizeof(path), "%s/%s.pipe", APPS_DIR, a->app);
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_file(ctx, path);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	pt_program *prog[NCONFS];
	for (int c = 0; c < NCONFS; c++) {
		pt_options o = { .opt_level = confs[c].opt, .backend = PT_BACKEND_CUDA_EMU, .no_inline = confs[c].no_inline,
			.gpu_block = { confs[c].bx, confs[c].by } };
		if (confs[c].t0) {
			o.ntile = 2;
			o.tile[0] = confs[c].t0;
			o.tile[1] = confs[c].t1;
		}
		prog[c] = pt_compile(ctx, p, &o);
		ck_assert_msg(prog[c] != NULL, "%s %s: %s", path, confs[c].name, pt_ctx_diagnostics(ctx));
	}
	double sizes[3][2] = { { a->size[0][0], a->size[0][1] }, { a->size[1][0], a->size[1][1] }, { 5, 3 } };
	int nsizes = tiny_ok(a->app) ? 3 : 2;
	for (int sz = 0; sz < nsizes; sz++) {
		cmp_run r;
		cmp_start(&r, ctx, p, 2, a->names, sizes[sz], 41u + (uint32_t)sz);
		for (int c = 0; c < NCONFS; c++) {
			char label[700];
			snprintf(label, sizeof(label), "%s --backend cuda-emu %s, size %g x %g", path, confs[c].name,
				sizes[sz][0], sizes[sz][1]);
			cmp_check(&r, prog[c], 1, label);
		}
		cmp_finish(&r);
	}
	for (int c = 0; c < NCONFS; c++)
		pt_program_free(prog[c]);
	pt_ctx_free(ctx);
}
END_TEST

/* Streamed copies (docs/cuda.md): the runs of one tiled kernel (blur,
 * sobel, harris, unsharp mask), and camera pipe's, whose lookup tables
 * come before its one fused kernel (under the device model's fusion),
 * go in chunks of their tile rows, each chunk's boxes copied into and
 * out of the emulated device copies (a pattern elsewhere), and still
 * equal the interpreter; a run whose first and last kernels read images
 * (local Laplacian) does not stream. */
START_TEST(one_kernel_runs_stream_in_chunks)
{
	static const char *const streamed[] = { "blur", "sobel", "harris", "unsharp_mask", "camera_pipe",
		"local_laplacian" };
	const char *app = streamed[_i];
	bool defaults = !strcmp(app, "camera_pipe");
	const app_case *a = NULL;
	for (int i = 0; i < NAPPS; i++)
		if (!strcmp(apps[i].app, app))
			a = &apps[i];
	char path[512];
	snprintf(path, sizeof(path), "%s/%s.pipe", APPS_DIR, app);
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_file(ctx, path);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	pt_options o = { .opt_level = PT_OPT_GROUPED, .backend = PT_BACKEND_CUDA_EMU, .ntile = 2, .tile = { 8, 16 },
		.overlap = 0.6 };
	if (defaults)
		o = (pt_options){ .opt_level = PT_OPT_GROUPED, .backend = PT_BACKEND_CUDA_EMU };
	pt_program *prog = pt_compile(ctx, p, &o);
	ck_assert_msg(prog != NULL, "%s: %s", path, pt_ctx_diagnostics(ctx));
	/* camera pipe's tiles are 32 rows or more: a third size of several */
	double sizes[3][2] = { { a->size[0][0], a->size[0][1] }, { a->size[1][0], a->size[1][1] }, { 198, 262 } };
	for (int sz = 0; sz < (defaults ? 3 : 2); sz++) {
		int64_t before = pt_gpu_emu_chunks_run();
		cmp_run r;
		cmp_start(&r, ctx, p, 2, a->names, sizes[sz], 7u + (uint32_t)sz);
		char label[700];
		snprintf(label, sizeof(label), "%s --backend cuda-emu%s, streamed, size %g x %g", path,
			defaults ? "" : " --tile 8x16 --overlap 0.6", sizes[sz][0], sizes[sz][1]);
		cmp_check(&r, prog, 1, label);
		cmp_finish(&r);
		int64_t chunks = pt_gpu_emu_chunks_run() - before;
		if (_i < 5)
			ck_assert_msg(chunks >= (defaults && sz < 2 ? 1 : 2), "%s: %lld chunks", label, (long long)chunks);
		else
			ck_assert_msg(chunks == 0, "%s: %lld chunks", label, (long long)chunks);
	}
	pt_program_free(prog);
	pt_ctx_free(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cuda_emu");
	TCase *tc = tcase_create("apps");
	tcase_set_timeout(tc, 600);
	tcase_add_loop_test(tc, app_emulated_equals_interpreter, 0, NAPPS);
	tcase_add_loop_test(tc, one_kernel_runs_stream_in_chunks, 0, 6);
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
