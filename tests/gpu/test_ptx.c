/* test_ptx.c: the CUDA target's kernels (codegen/cuda.c) are PTX that
 * the CUDA toolkit's assembler accepts for sm_90: every app, naive and
 * grouped, with the tile model's tiles and with small ones; every math
 * function at f32 and f64 (libdevice linked in); reductions factored
 * into per-block partials and a merge; 200 random pipelines.
 * ptxas is $PTXAS, else /usr/local/cuda/bin/ptxas, else the one on
 * PATH; without one the test is skipped (exit 77) with a message. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen_pipe.h"
#include "polytile.h"
#include "run_suite.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif
#ifndef GPU_DIR
#define GPU_DIR "tests/gpu"
#endif

#include "apps_table.h"

static char ptxas[512];

static bool find_ptxas(void)
{
	const char *env = getenv("PTXAS");
	if (env && *env) {
		snprintf(ptxas, sizeof(ptxas), "%s", env);
		return access(ptxas, X_OK) == 0;
	}
	snprintf(ptxas, sizeof(ptxas), "/usr/local/cuda/bin/ptxas");
	if (access(ptxas, X_OK) == 0)
		return true;
	snprintf(ptxas, sizeof(ptxas), "ptxas");
	return system("command -v ptxas >/dev/null 2>&1") == 0;
}

/* ptx through ptxas -arch=sm_90; fails the test with its messages. */
static void assemble(const char *ptx, const char *label)
{
	/* in the working directory (the build's, under meson) */
	char dir[] = "pt_ptx_XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char src[600], err[600], cmd[2048];
	snprintf(src, sizeof(src), "%s/k.ptx", dir);
	snprintf(err, sizeof(err), "%s/err", dir);
	FILE *f = fopen(src, "w");
	ck_assert_ptr_nonnull(f);
	fputs(ptx, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "'%s' -arch=sm_90 '%s' -o /dev/null 2>'%s'", ptxas, src, err);
	int rc = system(cmd);
	char msg[2000] = "";
	f = fopen(err, "r");
	if (f) {
		size_t n = fread(msg, 1, sizeof(msg) - 1, f);
		msg[n] = 0;
		fclose(f);
	}
	remove(src);
	remove(err);
	rmdir(dir);
	ck_assert_msg(rc == 0, "%s: ptxas refused the PTX:\n%s", label, msg);
}

static void check_pipeline(pt_ctx *ctx, const pt_pipeline *p, pt_options o, const char *label)
{
	o.backend = PT_BACKEND_CUDA;
	char *ptx = pt_emit_ptx(ctx, p, &o, NULL);
	ck_assert_msg(ptx != NULL, "%s: %s", label, pt_ctx_diagnostics(ctx));
	ck_assert_ptr_nonnull(strstr(ptx, ".target sm_90"));
	ck_assert_ptr_nonnull(strstr(ptx, ".entry"));
	assemble(ptx, label);
	free(ptx);
}

static void check_file(const char *path, bool all_confs)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_file(ctx, path);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	pt_options confs[] = {
		{ .opt_level = PT_OPT_NAIVE },
		{ .opt_level = PT_OPT_GROUPED },
		{ .opt_level = PT_OPT_GROUPED, .ntile = 2, .tile = { 8, 16 }, .no_inline = true },
	};
	for (int c = 0; c < (all_confs ? 3 : 1); c++) {
		char label[700];
		snprintf(label, sizeof(label), "%s --backend cuda, configuration %d", path, c);
		check_pipeline(ctx, p, confs[c], label);
	}
	pt_ctx_free(ctx);
}

START_TEST(apps_assemble)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s.pipe", APPS_DIR, apps[_i].app);
	check_file(path, true);
}
END_TEST

START_TEST(math_functions_assemble)
{
	check_file(GPU_DIR "/math.pipe", true);
	/* the kernels call libdevice's functions, linked in */
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_file(ctx, GPU_DIR "/math.pipe");
	pt_options o = { .backend = PT_BACKEND_CUDA };
	setenv("PT_LIBDEVICE", "/nonexistent/libdevice.10.bc", 1);
	char *ptx = pt_emit_ptx(ctx, p, &o, NULL);
	unsetenv("PT_LIBDEVICE");
	ck_assert_ptr_null(ptx);
	ck_assert_ptr_nonnull(strstr(pt_ctx_diagnostics(ctx), "libdevice"));
	pt_ctx_free(ctx);
}
END_TEST

/* Reductions factored for the GPU (rfactor.pipe, reassociated: float
 * partials and merges over the parts too), naive and grouped. */
START_TEST(factored_reductions_assemble)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_file(ctx, GPU_DIR "/rfactor.pipe");
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	for (int c = 0; c < 2; c++) {
		pt_options o = { .opt_level = c ? PT_OPT_GROUPED : PT_OPT_NAIVE, .reassociate = true };
		check_pipeline(ctx, p, o, c ? "rfactor.pipe --reassociate -O1" : "rfactor.pipe --reassociate -O0");
	}
	pt_ctx_free(ctx);
}
END_TEST

START_TEST(random_pipelines_assemble)
{
	gen_pipe g;
	gen_pipe_make((uint64_t)_i, &g);
	pt_ctx *ctx = pt_ctx_new();
	char name[64];
	snprintf(name, sizeof(name), "randpipe-%d.pipe", _i);
	pt_pipeline *p = pt_parse_string(ctx, name, g.text);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	pt_options o = { .opt_level = _i % 2 ? PT_OPT_NAIVE : PT_OPT_GROUPED };
	if (_i % 4 == 2) {
		o.ntile = g.ndims;
		for (int d = 0; d < g.ndims; d++)
			o.tile[d] = 8;
	}
	char label[128];
	snprintf(label, sizeof(label), "random pipeline %d (randpipe --print %d)", _i, _i);
	check_pipeline(ctx, p, o, label);
	pt_ctx_free(ctx);
	gen_pipe_free(&g);
}
END_TEST

int main(void)
{
	if (!find_ptxas()) {
		printf("test_ptx: no ptxas (CUDA toolkit at /usr/local/cuda, or $PTXAS): skipped\n");
		return 77;
	}
	Suite *s = suite_create("ptx");
	TCase *tc = tcase_create("ptxas");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, apps_assemble, 0, NAPPS);
	tcase_add_test(tc, math_functions_assemble);
	tcase_add_test(tc, factored_reductions_assemble);
	tcase_add_loop_test(tc, random_pipelines_assemble, 0, 200);
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
