/* test_cli.c: the `polytile` command end to end: exit statuses, param
 * inference from inputs, exact .npy round trips against the plain-C
 * reference, PNG output, graph output, and located errors. */
#define _XOPEN_SOURCE 700
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pt_io.h"
#include "ref_apps.h"

#include "run_suite.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

#include "cli_run.h"
#include "machine_env.h"

static void make_dir(void)
{
	make_dir_named("pt_cli");
}

/* polytile with args, from the test's working directory. */
static int run(const char *args)
{
	return run_polytile(args, false);
}

/* run(args) with the MPI model's figures (the file `polytile calibrate`
 * writes, $PT_MPI_MODEL) given as text, in dir's mpi-model. */
static int run_with_model(const char *dir, const char *figures, const char *args)
{
	char model[600];
	snprintf(model, sizeof(model), "%s/mpi-model", dir);
	write_file("mpi-model", figures);
	setenv("PT_MPI_MODEL", model, 1);
	int rc = run(args);
	unsetenv("PT_MPI_MODEL");
	return rc;
}

START_TEST(exit_statuses)
{
	make_dir();
	ck_assert_int_eq(run("--help"), 0);
	ck_assert_int_eq(run("check --help"), 0);
	ck_assert_int_eq(run("run --help"), 0);
	ck_assert_int_eq(run("graph --help"), 0);
	ck_assert_int_eq(run(""), 2);
	ck_assert_int_eq(run("frobnicate"), 2);
	ck_assert_int_eq(run("check"), 2);
	ck_assert_int_eq(run("run " APPS_DIR "/harris.pipe --bogus"), 2);
	ck_assert_int_eq(run("run " APPS_DIR "/harris.pipe --param R"), 2);
	ck_assert_int_eq(run("run " APPS_DIR "/blur.pipe --out out=x.txt"), 2);
	ck_assert_ptr_nonnull(strstr(slurp("err"), "--out x.txt: name the file .png or .npy"));
	ck_assert_int_eq(run("run " APPS_DIR "/blur.pipe --param Q=3"), 1);
	ck_assert_ptr_nonnull(strstr(slurp("err"), "--param Q=3"));
	ck_assert_ptr_nonnull(strstr(slurp("err"), "no param named 'Q'"));
	ck_assert_int_eq(run("check /nonexistent/file.pipe"), 1);
	ck_assert_ptr_nonnull(strstr(slurp("err"), "cannot open '/nonexistent/file.pipe'"));
	ck_assert_int_eq(run("check " APPS_DIR "/harris.pipe"), 0);
	ck_assert_ptr_nonnull(strstr(slurp("out"), "\n11 stages\n"));
	remove_dir();
}
END_TEST

/* harris with a float32 .npy input: R and C inferred, .npy output exact. */
START_TEST(harris_npy_exact)
{
	make_dir();
	const int R = 37, C = 23;
	pt_buffer in;
	int64_t ext[2] = {R + 2, C + 2};
	ck_assert_int_eq(pt_buffer_alloc(&in, PT_F32, 2, ext), PT_OK);
	ref_fill_f32(in.data, (size_t)(R + 2) * (C + 2), 5);
	char path[600], args[2048], err[256];
	snprintf(path, sizeof(path), "%s/in.npy", dir);
	ck_assert_int_eq(pt_npy_write(path, &in, err, sizeof(err)), PT_OK);
	snprintf(args, sizeof(args), "run %s/harris.pipe --in I=%s/in.npy --out harris=%s/h.npy", APPS_DIR, dir, dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_ptr_nonnull(strstr(slurp("out"), "R=37 C=23"));
	pt_buffer out;
	snprintf(path, sizeof(path), "%s/h.npy", dir);
	ck_assert_int_eq(pt_npy_read(path, &out, err, sizeof(err)), PT_OK);
	ck_assert_int_eq(out.type, PT_F32);
	ck_assert_int_eq(out.extent[0], R + 2);
	ck_assert_int_eq(out.extent[1], C + 2);
	float *ref = calloc((size_t)(R + 2) * (C + 2), sizeof(float));
	ref_harris(R, C, in.data, ref);
	const float *got = out.data;
	for (int i = 0; i < (R + 2) * (C + 2); i++)
		ck_assert_msg(got[i] == ref[i], "element %d: %.9g != %.9g", i, got[i], ref[i]);
	free(ref);
	pt_buffer_free(&in);
	pt_buffer_free(&out);
	remove_dir();
}
END_TEST

/* A wrong-size input with R given is an error naming the expected extents. */
START_TEST(extent_mismatch)
{
	make_dir();
	pt_buffer in;
	int64_t ext[2] = {10, 12};
	ck_assert_int_eq(pt_buffer_alloc(&in, PT_U8, 2, ext), PT_OK);
	char path[600], args[2048], err[256];
	snprintf(path, sizeof(path), "%s/in.npy", dir);
	ck_assert_int_eq(pt_npy_write(path, &in, err, sizeof(err)), PT_OK);
	snprintf(args, sizeof(args), "run %s/sobel.pipe --param R=5 --in I=%s --out mag=%s/m.npy", APPS_DIR, path, dir);
	ck_assert_int_eq(run(args), 1);
	const char *e = slurp("err");
	ck_assert_ptr_nonnull(strstr(e, "sobel.pipe:7:7: error: input 'I' is 10 x 12 but the pipeline expects 7 x 12"));
	snprintf(path, sizeof(path), "%s/m.npy", dir);
	struct stat st;
	ck_assert_int_ne(stat(path, &st), 0);
	pt_buffer_free(&in);
	remove_dir();
}
END_TEST

/* Two files byte for byte equal. */
static bool same_file(const char *a, const char *b)
{
	char cmd[1400];
	snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s'", a, b);
	return system(cmd) == 0;
}

/* `compile`: object and documented header, --emit=c with the parallel
 * loops marked, --emit=llvm, --time, and the errors of its options. */
START_TEST(compile_command)
{
	make_dir();
	char args[2048], path[600];
	struct stat st;
	snprintf(args, sizeof(args), "compile %s/blur.pipe -o %s/blur --time", APPS_DIR, dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	snprintf(path, sizeof(path), "%s/blur.o", dir);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_gt(st.st_size, 0);
	const char *e = slurp("err");
	ck_assert_ptr_nonnull(strstr(e, "polytile: optimize"));
	ck_assert_ptr_nonnull(strstr(e, "polytile: total"));
	const char *h = slurp("blur.h");
	ck_assert_ptr_nonnull(strstr(h, "int blur(int32_t R, int32_t C, const pt_buffer *I, pt_buffer *out);"));
	ck_assert_ptr_nonnull(strstr(h, "I            input, u16, extents [R + 2, C + 2]"));
	ck_assert_ptr_nonnull(strstr(h, "out          output, u16, extents [R - 1 + 1, C - 1 + 1]"));
	ck_assert_ptr_nonnull(strstr(h, "PT_ERR_EXTENT"));
	ck_assert_ptr_nonnull(strstr(h, "int blur_argv(const int64_t *iparams"));

	snprintf(args, sizeof(args), "compile %s/heat3d.pipe --emit=c --time-tile 1", APPS_DIR);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	/* step by step: the time loop of the iterated stage is serial, its
	 * x loop parallel */
	ck_assert_ptr_nonnull(strstr(slurp("out"),
		"  for (int c0 = 0; c0 <= T; c0 += 1)\n    #pragma omp parallel for\n    for (int c1 = 0; c1 <= N + 1; c1 += 1)"));
	/* time tiled (the default at 512^3): blocks of 4 steps in a serial
	 * loop, their tiles in parallel, each tile's first step widened by
	 * 3 per side */
	snprintf(args, sizeof(args), "compile %s/heat3d.pipe --emit=c --time-tile 4 --tile 16x32x64", APPS_DIR);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_msg(strstr(slurp("out"), "  for (int c0 = 0; c0 <= floord(T - 1, 4); c0 += 1)\n    #pragma omp parallel for\n"
		"    for (int c1 = 0; c1 <= (N + 1) / 16; c1 += 1)") && strstr(slurp("out"), "max(max(0, 16 * c1 - 3), ") &&
		strstr(slurp("out"), "S1_f(") && strstr(slurp("out"), "S1_l("), "%s", slurp("out"));
	snprintf(args, sizeof(args), "compile %s/heat3d.pipe --time-tile 0 -o %s/h", APPS_DIR, dir);
	ck_assert_int_eq(run(args), 2);
	ck_assert_ptr_nonnull(strstr(slurp("err"), "--time-tile 0: choose auto or a number of steps from 1 to 64"));
	snprintf(args, sizeof(args), "compile %s/histogram.pipe --emit=c", APPS_DIR);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	/* the histogram factored (poly/rfactor.h): its 16 parts' loop
	 * parallel, each part's blocks of 20 rows inside it; no serial loop
	 * over rows */
	ck_assert_ptr_nonnull(strstr(slurp("out"), "  #pragma omp parallel for\n"
		"  for (int c0 = 0; c0 <= min(15, (R - 1) / 20); c0 += 1)\n"
		"    for (int c1 = 0; c1 <= (R - 20 * c0 - 1) / 320; c1 += 1)\n"
		"      for (int c2 = 0; c2 <= min(19, R - 20 * c0 - 320 * c1 - 1); c2 += 1)\n"
		"        for (int c3 = 0; c3 < C; c3 += 1)\n"
		"          U0_0(c0, c1, c2, c3);"));
	ck_assert_ptr_null(strstr(slurp("out"), "  for (int c0 = 0; c0 < R; c0 += 1)\n    for (int c1 = 0; c1 < C; c1 += 1)\n      U0_0(c0, c1);"));

	/* --separate-tiles: harris's full tiles apart, their row loops a
	 * tile's width with no min or max; without it, none such */
	for (int sep = 0; sep < 2; sep++) {
		snprintf(args, sizeof(args), "compile %s/harris.pipe --emit=c%s", APPS_DIR,
			sep ? " --separate-tiles" : "");
		ck_assert_msg(run(args) == 0, "%s", slurp("err"));
		const char *full = "for (int c3 = 128 * c1 - 1; c3 <= 128 * c1 + 128; c3 += 1)";
		ck_assert_msg(sep ? strstr(slurp("out"), full) != NULL : strstr(slurp("out"), full) == NULL,
			"harris%s: a full tile's loop %s", sep ? " --separate-tiles" : "", sep ? "missing" : "found");
	}

	snprintf(args, sizeof(args), "compile %s/blur.pipe --emit=llvm -o %s/blur", APPS_DIR, dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	const char *ll = slurp("blur.ll");
	ck_assert_ptr_nonnull(strstr(ll, " i32 @blur(i32 %0, i32 %1, ptr"));
	ck_assert_ptr_nonnull(strstr(ll, "@pt_parallel_for("));
	/* the stencil's innermost loops are vectorized ... */
	ck_assert_ptr_nonnull(strstr(ll, "\"llvm.loop.isvectorized\""));
	ck_assert_ptr_null(strstr(ll, "\"llvm.loop.vectorize.enable\", i1 false"));
	/* ... but a loop reading f(3y/2) along its innermost dim stays scalar
	 * (a gather per lane was 1.5x slower on pyramid_blend) ... */
	snprintf(path, sizeof(path), "%s/gather.pipe", dir);
	FILE *g = fopen(path, "w");
	ck_assert_ptr_nonnull(g);
	fputs("pipeline gather\nparam N : int = 64\nimage I : float [N, 2*N]\n"
		"func f(x : 0 .. N-1, y : 0 .. N-1) : float = I(x, (3*y)/2) * 2\noutput f\n", g);
	fclose(g);
	snprintf(args, sizeof(args), "compile %s --emit=llvm -o %s/gather", path, dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_ptr_nonnull(strstr(slurp("gather.ll"), "\"llvm.loop.vectorize.enable\", i1 false"));
	/* ... while pyramid_blend's up-sampling f(y/2 + 1) is split by the
	 * parity of y: one loop over y/2 running both parts, vectorized */
	snprintf(args, sizeof(args), "compile %s/pyramid_blend.pipe --emit=c", APPS_DIR);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	const char *pc = slurp("out");
	ck_assert_ptr_nonnull(strstr(pc, "S19p1(c0, c1, c2, c3, 2 * c4 + 1);"));
	ck_assert_ptr_nonnull(strstr(pc, "S19p0(c0, c1, c2, c3, 2 * c4);"));
	snprintf(args, sizeof(args), "compile %s/pyramid_blend.pipe --emit=llvm -o %s/pyr", APPS_DIR, dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	snprintf(args, sizeof(args), "grep -q '\"llvm.loop.vectorize.enable\", i1 false' %s/pyr.ll", dir);
	ck_assert_int_ne(system(args), 0);   /* the IR is over slurp's 1 MB */

	/* --target: an AArch64 object (ELF e_machine 183), a clear error for
	 * a triple LLVM does not know */
	snprintf(args, sizeof(args), "compile %s/blur.pipe -o %s/arm --target aarch64-linux-gnu:generic", APPS_DIR, dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	snprintf(path, sizeof(path), "%s/arm.o", dir);
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	unsigned char elf[20];
	ck_assert_int_eq(fread(elf, 1, 20, f), 20);
	fclose(f);
	ck_assert_int_eq(elf[18] | elf[19] << 8, 183);
	snprintf(args, sizeof(args), "compile %s/blur.pipe -o %s/x --target nonsense-cpu-none", APPS_DIR, dir);
	ck_assert_int_eq(run(args), 1);
	ck_assert_ptr_nonnull(strstr(slurp("err"), "error: target nonsense-cpu-none: No available targets"));

	snprintf(args, sizeof(args), "compile %s/blur.pipe -o %s/9blur", APPS_DIR, dir);
	ck_assert_int_eq(run(args), 2);   /* a usage error, like every bad -o name */
	ck_assert_ptr_nonnull(strstr(slurp("err"), "the function would be named '9blur', which is not a C identifier"));
	snprintf(args, sizeof(args), "compile %s/blur.pipe", APPS_DIR);
	ck_assert_int_eq(run(args), 2);
	ck_assert_ptr_nonnull(strstr(slurp("err"), "missing -o NAME"));
	snprintf(args, sizeof(args), "compile %s/blur.pipe -o %s/b --threads 2", APPS_DIR, dir);
	ck_assert_int_eq(run(args), 2);
	ck_assert_ptr_nonnull(strstr(slurp("err"), "--threads is for `run`"));
	snprintf(args, sizeof(args), "compile %s/blur.pipe -o %s/b --emit=asm", APPS_DIR, dir);
	ck_assert_int_eq(run(args), 2);
	snprintf(args, sizeof(args), "compile %s/blur.pipe -o %s/no/such/dir/b", APPS_DIR, dir);
	ck_assert_int_eq(run(args), 1);
	remove_dir();
}
END_TEST

/* run: the compiled backend (default) equals the interpreter, with 1
 * and 2 threads and without inlining; only outputs can be written. */
/* The header's argument names are C names: a stage G[1, 0] is G_1_0,
 * a param named like a C keyword or the function gets a '_', and two
 * names that would collide stay distinct; the header compiles. */
START_TEST(header_names_compile)
{
	make_dir();
	char path[600], args[2048];
	snprintf(path, sizeof(path), "%s/names.pipe", dir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("pipeline names\nparam register : int = 8\nparam G_1_0 : int = 8\n"
		"image names : float [register]\n"
		"for i in 0 .. 1 { func G[i, 0](x : 0 .. register - 1) : float = names(x) + i + G_1_0 }\n"
		"output G[1, 0]\noutput G[0, 0]\n", f);
	fclose(f);
	snprintf(args, sizeof(args), "compile %s -o %s/names", path, dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	const char *h = slurp("names.h");
	ck_assert_msg(strstr(h, "int names(int32_t register_, int32_t G_1_0, const pt_buffer *names_, "
		"pt_buffer *G_0_0, pt_buffer *G_1_0_);"), "%s", h);
	snprintf(args, sizeof(args), "cc -std=c11 -Wall -Werror -fsyntax-only -I %s/../include -x c %s/names.h", APPS_DIR, dir);
	ck_assert_msg(system(args) == 0, "%s does not compile", path);
	remove_dir();
}
END_TEST

START_TEST(run_backends_agree)
{
	make_dir();
	char args[2048], a[600], b[600];
	snprintf(a, sizeof(a), "%s/i.npy", dir);
	snprintf(args, sizeof(args), "run %s/harris.pipe --param R=29 --param C=31 --backend interp --out harris=%s", APPS_DIR, a);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	const char *variants[] = { "--threads 1", "--threads 2", "--no-inline --threads 2", "--backend cpu",
		"--backend cuda-emu" };
	for (int i = 0; i < 5; i++) {
		snprintf(b, sizeof(b), "%s/c%d.npy", dir, i);
		snprintf(args, sizeof(args), "run %s/harris.pipe --param R=29 --param C=31 %s --out harris=%s",
			APPS_DIR, variants[i], b);
		ck_assert_msg(run(args) == 0, "%s", slurp("err"));
		ck_assert_ptr_nonnull(strstr(slurp("out"), i < 4 ? "compiled for the cpu" : "compiled for the GPU, emulated"));
		ck_assert_msg(same_file(a, b), "harris with %s differs from the interpreter", variants[i]);
	}
	snprintf(args, sizeof(args), "run %s/harris.pipe --param R=29 --param C=31 --out Ix=%s", APPS_DIR, b);
	ck_assert_int_eq(run(args), 1);
	ck_assert_ptr_nonnull(strstr(slurp("err"), "'Ix' is not an output"));
	snprintf(args, sizeof(args), "run %s/harris.pipe --backend gpu", APPS_DIR);
	ck_assert_int_eq(run(args), 2);
	ck_assert_ptr_nonnull(strstr(slurp("err"), "--backend gpu: choose cpu, interp, cuda, cuda-emu or mpi"));
	snprintf(args, sizeof(args), "run %s/blur.pipe --param R=8 --param C=8 --target aarch64-linux-gnu", APPS_DIR);
	ck_assert_int_eq(run(args), 1);
	ck_assert_ptr_nonnull(strstr(slurp("err"), "code for aarch64 cannot run on this"));
	snprintf(args, sizeof(args), "run %s/harris.pipe --threads 0", APPS_DIR);
	ck_assert_int_eq(run(args), 2);
	remove_dir();
}
END_TEST

/* --dump: the named passes in order, compiling stopped after the last one
 * when there is no -o, checks' dumps from `check`; --time names each
 * pass; options the build cannot honour are refused by name. */
START_TEST(dumps_and_options)
{
	make_dir();
	char args[2048];
	snprintf(args, sizeof(args), "compile %s/blur.pipe -O0 --dump=statements,ast", APPS_DIR);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	const char *out = slurp("out");
	const char *st = strstr(out, "---- statements ----\nS0_0: func of bx, case 1\n");
	const char *ast = strstr(out, "---- ast ----\n");
	ck_assert_msg(st && ast && st < ast && !strstr(out, "---- llvm-ir"), "%s", out);
	ck_assert_ptr_nonnull(strstr(ast, "#pragma omp parallel for\n  for (int c0 = 0; c0 <= R + 1; c0 += 1)"));
	/* the default is the grouped schedule: tile loops, the tile mark */
	snprintf(args, sizeof(args), "compile %s/blur.pipe --dump=ast", APPS_DIR);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_msg(strstr(slurp("out"), "for (int c0 = 0; c0 <= (R - 1) / 8; c0 += 1)") &&
		strstr(slurp("out"), "    // tile\n"), "%s", slurp("out"));
	snprintf(args, sizeof(args), "check %s/blur.pipe --dump=bounds --time", APPS_DIR);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_ptr_nonnull(strstr(slurp("out"), "  read [R, C] -> { [x, y] -> bx[2 + x, y] : "));
	ck_assert_ptr_nonnull(strstr(slurp("err"), "polytile: bounds "));
	snprintf(args, sizeof(args), "compile %s/blur.pipe --time -o %s/b", APPS_DIR, dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	const char *names[] = {"parse", "typecheck", "admissible", "cases", "bounds", "inline",
		"statements", "group", "tiles", "dependences", "schedule", "storage", "ast", "llvm-ir", "optimize", "object", "total"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char want[64];
		snprintf(want, sizeof(want), "polytile: %s ", names[i]);
		ck_assert_msg(strstr(slurp("err"), want) != NULL, "no time for %s", names[i]);
	}
	snprintf(args, sizeof(args), "compile %s/blur.pipe --dump=ast,nope", APPS_DIR);
	ck_assert_int_eq(run(args), 1);
	ck_assert_ptr_nonnull(strstr(slurp("err"), "--dump=ast,nope: no pass named 'nope'; the passes are parse,"));
	/* the CUDA target compiles (its PTX embedded) and, on a machine
	 * without a CUDA driver, running it is a clear error, not a crash */
	snprintf(args, sizeof(args), "compile %s/blur.pipe --backend cuda -o %s/b", APPS_DIR, dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	snprintf(args, sizeof(args), "run %s/blur.pipe --backend cuda --param R=20 --param C=20 --out out=%s/b.npy", APPS_DIR,
		dir);
	ck_assert_int_eq(run(args), 1);
	ck_assert_msg(strstr(slurp("err"), "no CUDA driver on this machine") || strstr(slurp("err"), "found no usable GPU"),
		"%s", slurp("err"));
	snprintf(args, sizeof(args), "compile %s/blur.pipe --emit=ptx -o %s/b", APPS_DIR, dir);
	ck_assert_int_eq(run(args), 1);
	ck_assert_ptr_nonnull(strstr(slurp("err"), "PTX comes from --backend cuda"));
#ifdef PT_HAVE_MPI
	/* one process without mpirun is one rank (MPI's singleton); the
	 * ranks' tests are tests/mpi */
	snprintf(args, sizeof(args), "run %s/blur.pipe --backend mpi --param R=20 --param C=20 --out out=%s/m.npy", APPS_DIR,
		dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_ptr_nonnull(strstr(slurp("out"), "compiled for MPI ranks in"));
	ck_assert_ptr_nonnull(strstr(slurp("out"), " on 1 rank;"));
	/* the model's projection: blur's two stages in 4 even parts, no
	 * exchange (its one kernel reads the input's part); local
	 * Laplacian recomputed computes more than an even share */
	snprintf(args, sizeof(args), "explain %s/blur.pipe --backend mpi --ranks 4 --mpi-strategy communicate", APPS_DIR);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_msg(strstr(slurp("out"), "  on 4 ranks, the model's projection (5 us a message, 2 GB/s, 2 ns a point in tiles, "
		"7 untiled):\n"
		"    points: 6.145e+07 in all, 1.536e+07 on the busiest rank (0.0% beyond an even share") &&
		strstr(slurp("out"), "    predicted run 30.7 ms, efficiency 100% (with rank 0's gather of the outputs, "
		"46080000 B: 53.8 ms, 57%)\n"), "%s", slurp("out"));
	/* the model's figures from the file `calibrate` writes ($PT_MPI_MODEL);
	 * a value that is not a positive number keeps its default */
	snprintf(args, sizeof(args), "explain %s/blur.pipe --backend mpi --ranks 2", APPS_DIR);
	ck_assert_msg(run_with_model(dir, "latency 0.001\nbandwidth -3\npoint_time 1e-12\nstream_point_time 3e-12\n",
		args) == 0, "%s", slurp("err"));
	ck_assert_msg(strstr(slurp("out"), "the model's projection (1e+03 us a message, 2 GB/s, 0.001 ns a point in tiles, "
		"0.003 untiled)"), "%s",
		slurp("out"));
	/* figures like this machine's (computing a point cheaper than
	 * moving it): blur replicated to save the gather, but split when
	 * its output stays distributed (--mpi-outputs local) */
	static const char *const here = "latency 6e-7\nbandwidth 4.88e9\npoint_time 1.37e-10\nstream_point_time 4.5e-10\n";
	snprintf(args, sizeof(args), "explain %s/blur.pipe --backend mpi --ranks 2", APPS_DIR);
	ck_assert_msg(run_with_model(dir, here, args) == 0, "%s", slurp("err"));
	ck_assert_msg(strstr(slurp("out"), "  kernel 0 (bx out): replicated (could split along tile coordinate 0)\n"),
		"%s", slurp("out"));
	/* local Laplacian: its choices per kernel recompute the levels, and
	 * each widening makes its producers' wider (a plan projected 22.7
	 * ms against 19.6 for exchanging every split kernel): auto keeps the
	 * plan that exchanges, and says so per kernel */
	snprintf(args, sizeof(args), "explain %s/local_laplacian.pipe --backend mpi --ranks 2", APPS_DIR);
	ck_assert_msg(run_with_model(dir, here, args) == 0, "%s", slurp("err"));
	ck_assert_msg(strstr(slurp("out"), "  auto on 2 ranks, the plans' projected runs (with the outputs' gather): per "
		"kernel ") && strstr(slurp("out"), "; kept communicate\n") && strstr(slurp("out"), "  kernel 2 (G[0]): "
		"split along x\n    for its readers: exchanged (auto, as --mpi-strategy communicate)\n"), "%s", slurp("out"));
	snprintf(args, sizeof(args), "explain %s/blur.pipe --backend mpi --ranks 2 --mpi-outputs local", APPS_DIR);
	ck_assert_msg(run_with_model(dir, here, args) == 0, "%s", slurp("err"));
	ck_assert_msg(strstr(slurp("out"), "  kernel 0 (bx out): split along tile coordinate 0\n"), "%s", slurp("out"));
	snprintf(args, sizeof(args), "run %s/blur.pipe --backend mpi --mpi-outputs local", APPS_DIR);
	ck_assert_int_eq(run(args), 2);
	ck_assert_ptr_nonnull(strstr(slurp("err"), "--mpi-outputs local: run gathers the outputs on rank 0"));
	snprintf(args, sizeof(args), "compile %s/blur.pipe --backend mpi --mpi-outputs scattered -o %s/x", APPS_DIR, dir);
	ck_assert_int_eq(run(args), 2);
	snprintf(args, sizeof(args), "compile %s/blur.pipe --backend mpi --mpi-grid diagonal -o %s/x", APPS_DIR, dir);
	ck_assert_int_eq(run(args), 2);
	ck_assert_ptr_nonnull(strstr(slurp("err"), "--mpi-grid diagonal: choose auto, slabs or grid"));
	/* on a grid of ranks: blur's tiles split along both coordinates */
	snprintf(args, sizeof(args), "explain %s/blur.pipe --backend mpi --ranks 4 --mpi-strategy communicate "
		"--mpi-grid grid", APPS_DIR);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_msg(strstr(slurp("out"), "  kernel 0 (bx out): split along tile coordinates 0 and 1 (a grid of ranks)\n"),
		"%s", slurp("out"));
	/* heat3d's steps: a ghost zone 2 steps deep, exchanged every 2 steps
	 * (--mpi-steps); by the model, every step at the default figures
	 * (a 512 x 512 plane computed again costs more than a message), and
	 * none on 32 x 32 planes with messages of 2 ms */
	snprintf(args, sizeof(args), "explain %s/heat3d.pipe --backend mpi --ranks 3 --mpi-steps 2", APPS_DIR);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_msg(strstr(slurp("out"), "    between its steps: the ghost zone of heat exchanged every 2 steps, 2 steps "
		"deep (2 below, 2 above a step), the steps between recomputing it (--mpi-steps 2)\n"), "%s", slurp("out"));
	snprintf(args, sizeof(args), "explain %s/heat3d.pipe --backend mpi --ranks 4", APPS_DIR);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_msg(strstr(slurp("out"), "    between its steps: the ghost zone of heat at the step before exchanged every "
		"step (by the model: "), "%s", slurp("out"));
	snprintf(args, sizeof(args), "explain %s/heat3d.pipe --backend mpi --ranks 4 --param N=30 --param T=8", APPS_DIR);
	ck_assert_msg(run_with_model(dir, "latency 2e-3\n", args) == 0, "%s", slurp("err"));
	ck_assert_msg(strstr(slurp("out"), "    between its steps: nothing exchanged, each rank's part widened by what the "
		"later steps read, from the first ("), "%s", slurp("out"));
	snprintf(args, sizeof(args), "explain %s/heat3d.pipe --backend mpi --mpi-steps 0", APPS_DIR);
	ck_assert_int_eq(run(args), 2);
	ck_assert_ptr_nonnull(strstr(slurp("err"), "--mpi-steps 0: choose auto, all or a number of steps from 1"));
	snprintf(args, sizeof(args), "explain %s/local_laplacian.pipe --backend mpi --ranks 4 --mpi-strategy recompute "
		"--param R=320 --param C=192", APPS_DIR);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_msg(strstr(slurp("out"), "on the busiest rank (") && !strstr(slurp("out"), "(0.0% beyond") &&
		strstr(slurp("out"), "    exchanges: 0 (0 B) in 0 messages"), "%s", slurp("out"));
	snprintf(args, sizeof(args), "run %s/blur.pipe --backend mpi --mpi-strategy share", APPS_DIR);
	ck_assert_int_eq(run(args), 2);
	ck_assert_ptr_nonnull(strstr(slurp("err"), "--mpi-strategy share: choose auto, communicate, recompute or replicate"));
#else
	snprintf(args, sizeof(args), "run %s/blur.pipe --backend mpi", APPS_DIR);
	ck_assert_int_eq(run(args), 1);
	ck_assert_ptr_nonnull(strstr(slurp("err"), "--backend mpi: this build of polytile has no mpi backend"));
#endif
	snprintf(args, sizeof(args), "compile %s/blur.pipe -O1 --tile 16x64 --dump=group", APPS_DIR);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_ptr_nonnull(strstr(slurp("out"), "group 0: bx out*\n  tiles: 16 (x) x 64 (y)\n  bx widened by [0, 2] [0, 0]\n"));
	snprintf(args, sizeof(args), "compile %s/blur.pipe --optimize fast -o %s/b", APPS_DIR, dir);
	ck_assert_int_eq(run(args), 2);
	ck_assert_ptr_nonnull(strstr(slurp("err"), "--optimize fast: choose naive or grouped"));
	snprintf(args, sizeof(args), "graph %s/harris.pipe --optimize grouped -o %s/g.dot", APPS_DIR, dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_ptr_nonnull(strstr(slurp("g.dot"), "  subgraph cluster_0 {\n    label=\"group 0: 8 (x) x 128 (y) tiles\";\n"));
	snprintf(args, sizeof(args), "explain %s/harris.pipe --param R=6400 --param C=6400", APPS_DIR);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_ptr_nonnull(strstr(slurp("out"), "intermediate storage: naive 819.7 MB; grouped 0.0 KB in 0 full buffers (each reused once its last reader has run) + 15.6 KB"));
	/* the stages codegen keeps in a scalar take no scratchpad */
	ck_assert_ptr_nonnull(strstr(slurp("out"), "  Ix: widened [1, 1] [1, 1], a scalar in its fused loop nest\n"));
	ck_assert_ptr_nonnull(strstr(slurp("out"), "  Ixx: widened [1, 1] [1, 1], scratchpad 5.2 KB\n"));
	ck_assert_ptr_nonnull(strstr(slurp("out"), "  scratchpads of a tile: 15.6 KB\n"));
	snprintf(args, sizeof(args), "explain %s/harris.pipe --param Q=3", APPS_DIR);
	ck_assert_int_eq(run(args), 2);
	snprintf(args, sizeof(args), "explain %s/harris.pipe -O0", APPS_DIR);
	ck_assert_int_eq(run(args), 2);
	ck_assert_ptr_nonnull(strstr(slurp("err"), "-O0: explain describes -O1's groups"));
	/* the tile model's program (the suite's PT_MACHINE), --tile fixed, a bad PT_MACHINE */
	snprintf(args, sizeof(args), "explain %s/blur.pipe", APPS_DIR);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_msg(strstr(slurp("out"), "tile model (no --tile): machine: L1d 32 KiB, L2 1024 KiB per core, L3 32768 KiB shared, "
		"2 threads, vectors of 64 bytes (caches: PT_MACHINE;") && strstr(slurp("out"), "  solution: t_x = "), "%s", slurp("out"));
	snprintf(args, sizeof(args), "explain %s/blur.pipe --tile fixed", APPS_DIR);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_msg(strstr(slurp("out"), "tile sizes: the grouping's fixed ones (--tile fixed)\n") &&
		strstr(slurp("out"), "  tile: 32 along x"), "%s", slurp("out"));
	/* the CUDA target's kernels, as its compiled code launches them (a
	 * dry run): blur's 6400 x 4800 in the device model's 32 x 512 tiles
	 * and its block of 32 x 16 threads, which the kernel launches, and
	 * the model's prediction; given tiles, 32 x 8 threads; the
	 * histogram's counts privatized in 1 KiB of shared memory per block */
	snprintf(args, sizeof(args), "explain %s/blur.pipe --backend cuda", APPS_DIR);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_msg(strstr(slurp("out"), "  GPU (132 SMs, 3.35 TB/s, 228 KiB of shared memory per SM; an H100's figures): "
		"t_x = 32, t_y = 512: 32 x 512 tiles (2000 of them) in blocks of 32 x 16 threads (x along the cols), scratchpads "
		"34.0 KiB, 4 blocks per multiprocessor") &&
		strstr(slurp("out"), "  kernel gpu0 (k0): 2000 blocks of 32 x 16 threads, 34.8 KB of shared memory; 4 blocks per "
		"multiprocessor (occupancy 100%)\n") &&
		strstr(slurp("out"), "    k0 (bx, out): reads 69.9 MB (its tiles' footprints; 61.5 MB distinct), writes 61.4 MB; the "
		"model: 0.0496 ms\n") &&
		strstr(slurp("out"), "the device model (an H100's figures) predicts 0.053 ms for the kernels, 1 launch at 3 us "
		"included\n") &&
		strstr(slurp("out"), "copies from and to host buffers: streamed (one tiled kernel): its tile rows in up to 8 chunks"),
		"%s", slurp("out"));
	snprintf(args, sizeof(args), "explain %s/blur.pipe --backend cuda --tile 128x64", APPS_DIR);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_msg(strstr(slurp("out"), "  kernel gpu0 (k0): 3750 blocks of 32 x 8 threads, 16.6 KB of shared memory; "
		"8 blocks per multiprocessor (occupancy 100%)\n") &&
		strstr(slurp("out"), "    k0 (bx, out): reads 64.3 MB (its tiles' footprints; 61.5 MB distinct), writes 61.4 MB; the "
		"model: 0.0520 ms\n"),
		"%s", slurp("out"));
	/* a block given: the model chooses the tiles for it; a
	 * configuration's block[G] overrides --gpu-block for group G */
	snprintf(args, sizeof(args), "explain %s/blur.pipe --backend cuda --gpu-block 7x3", APPS_DIR);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_msg(strstr(slurp("out"), "in blocks of 7 x 3 threads (x along the cols; given)") &&
		strstr(slurp("out"), "  kernel gpu0 (k0): 15200 blocks of 7 x 3 threads,"), "%s", slurp("out"));
	write_file("block.cfg", "block[out] = 16x4\n");
	snprintf(args, sizeof(args), "explain %s/blur.pipe --backend cuda --tile 128x64 --gpu-block 64x16 --config "
		"%s/block.cfg", APPS_DIR, dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_msg(strstr(slurp("out"), "  kernel gpu0 (k0): 3750 blocks of 16 x 4 threads,"), "%s", slurp("out"));
	snprintf(args, sizeof(args), "explain %s/blur.pipe --backend cuda --gpu-block 64x32", APPS_DIR);
	ck_assert_int_eq(run(args), 2);
	ck_assert_msg(strstr(slurp("err"), "--gpu-block 64x32: give threads like 32x8 (x along the innermost tiled dim, "
		"then y; at most 1024 in all), or default"), "%s", slurp("err"));
	snprintf(args, sizeof(args), "explain %s/histogram.pipe --backend cuda", APPS_DIR);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_msg(strstr(slurp("out"), "  kernel gpu0 (k0): 1 block of 256 x 1 threads, no shared memory;") &&
		strstr(slurp("out"), "  kernel gpu1 (k0): 6400 blocks of 256 x 1 threads, 1.0 KB of shared memory;") &&
		strstr(slurp("out"), "    k0 (hist): reads 41.0 MB, writes 1.0 KB\n") &&
		strstr(slurp("out"), "for the kernels, 2 launches at 3 us included; not modelled (reductions, groups tiled along "
		"three dims or more): k0\n") &&
		strstr(slurp("out"), "device memory of a call (inputs, outputs and intermediate stages): 41.0 MB\n") &&
		strstr(slurp("out"), "copies from and to host buffers: whole, before and after the kernels\n"),
		"%s", slurp("out"));
	char *saved = set_machine("l2=lots");
	snprintf(args, sizeof(args), "explain %s/blur.pipe", APPS_DIR);
	ck_assert_int_eq(run(args), 1);
	ck_assert_msg(strstr(slurp("err"), "PT_MACHINE=l2=lots: bad item 'l2=lots'"), "%s", slurp("err"));
	restore_machine(saved);
	snprintf(args, sizeof(args), "compile %s/blur.pipe --tile 32x0 -o %s/b", APPS_DIR, dir);
	ck_assert_int_eq(run(args), 2);
	snprintf(args, sizeof(args), "compile %s/blur.pipe --overlap=1.5 -o %s/b", APPS_DIR, dir);
	ck_assert_int_eq(run(args), 2);
	snprintf(args, sizeof(args), "compile %s/blur.pipe -O0 --tile=32x256 --overlap 0.4 -o %s/b", APPS_DIR, dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	remove_dir();
}
END_TEST

/* Generated inputs, PNG output, histogram from a PNG, and a graph. */
START_TEST(png_and_graph)
{
	make_dir();
	char args[2048], path[600], err[256];
	snprintf(args, sizeof(args), "run %s/blur.pipe --param R=30 --param C=20 --out out=%s/b.png", APPS_DIR, dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	pt_buffer png;
	snprintf(path, sizeof(path), "%s/b.png", dir);
	ck_assert_int_eq(pt_png_read(path, &png, err, sizeof(err)), PT_OK);
	ck_assert_int_eq(png.type, PT_U16);
	ck_assert_int_eq(png.extent[0], 30);
	ck_assert_int_eq(png.extent[1], 20);
	pt_buffer_free(&png);
	/* a gray PNG into the u8 histogram: counts sum to the pixel count */
	pt_buffer g;
	int64_t ext[2] = {9, 14};
	ck_assert_int_eq(pt_buffer_alloc(&g, PT_U8, 2, ext), PT_OK);
	ref_fill_u8(g.data, 9 * 14, 3);
	snprintf(path, sizeof(path), "%s/g.png", dir);
	ck_assert_int_eq(pt_png_write(path, &g, err, sizeof(err)), PT_OK);
	snprintf(args, sizeof(args), "run %s/histogram.pipe --in I=%s --out hist=%s/h.npy", APPS_DIR, path, dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	pt_buffer h;
	snprintf(path, sizeof(path), "%s/h.npy", dir);
	ck_assert_int_eq(pt_npy_read(path, &h, err, sizeof(err)), PT_OK);
	int32_t ref[256];
	ref_histogram(9, 14, g.data, ref);
	ck_assert_int_eq(memcmp(h.data, ref, sizeof(ref)), 0);
	pt_buffer_free(&h);
	pt_buffer_free(&g);
	if (access("/usr/bin/dot", X_OK) == 0) {
		snprintf(args, sizeof(args), "graph %s/unsharp_mask.pipe -o %s/g.svg", APPS_DIR, dir);
		ck_assert_msg(run(args) == 0, "%s", slurp("err"));
		ck_assert_ptr_nonnull(strstr(slurp("g.svg"), "<svg"));
		ck_assert_ptr_nonnull(strstr(slurp("g.svg"), "blurx"));
	}
	snprintf(args, sizeof(args), "graph %s/unsharp_mask.pipe -o %s/g.dot", APPS_DIR, dir);
	ck_assert_int_eq(run(args), 0);
	ck_assert_ptr_nonnull(strstr(slurp("g.dot"), "\"blurx\" -> \"blury\""));
	remove_dir();
}
END_TEST

/* A syntax error: exit 1 with file:line:col and a caret; the existing
 * output file is left alone. */
START_TEST(located_error_keeps_outputs)
{
	make_dir();
	char path[600], args[2048];
	snprintf(path, sizeof(path), "%s/bad.pipe", dir);
	FILE *f = fopen(path, "w");
	fputs("pipeline bad\nparam R : int = 4\nfunc f(x : 0 .. R) : int = x +\noutput f\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/keep.npy", dir);
	f = fopen(path, "w");
	fputs("precious", f);
	fclose(f);
	snprintf(args, sizeof(args), "run %s/bad.pipe --out f=%s", dir, path);
	ck_assert_int_eq(run(args), 1);
	const char *e = slurp("err");
	ck_assert_ptr_nonnull(strstr(e, "bad.pipe:4:1: error: expected an expression, found 'output'"));
	ck_assert_ptr_nonnull(strstr(e, "\n  ^"));
	ck_assert_str_eq(slurp("keep.npy"), "precious");
	remove_dir();
}
END_TEST

/* Options are not limited in number (the command used to stop at 64 of
 * a kind): the last --param of a name wins, and the interpreter's and the
 * compiled code's inference agree. */
START_TEST(many_options)
{
	make_dir();
	char args[8192];
	int n = snprintf(args, sizeof(args), "run %s/blur.pipe", APPS_DIR);
	for (int i = 0; i < 100; i++)
		n += snprintf(args + n, sizeof(args) - (size_t)n, " --param R=%d", 10 + i % 7);
	snprintf(args + n, sizeof(args) - (size_t)n, " --param C=9 --out out=%s/a.npy --backend interp", dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_ptr_nonnull(strstr(slurp("out"), "params: R=11 C=9"));
	args[n] = 0;
	snprintf(args + n, sizeof(args) - (size_t)n, " --param C=9 --out out=%s/b.npy", dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_ptr_nonnull(strstr(slurp("out"), "params: R=11 C=9"));
	char a[600], b[600];
	snprintf(a, sizeof(a), "%s/a.npy", dir);
	snprintf(b, sizeof(b), "%s/b.npy", dir);
	ck_assert(same_file(a, b));
	remove_dir();
}
END_TEST

/* Compiles apps/APP.pipe with flags into dir/tT/APP.o on t compile
 * threads (sep: " " or "=" before the number), timed; its stderr. */
static const char *compile_on_threads(const char *app, const char *flags, int t, const char *sep)
{
	char args[2048];
	snprintf(args, sizeof(args), "mkdir -p %s/t%d", dir, t);
	ck_assert_int_eq(system(args), 0);
	snprintf(args, sizeof(args), "compile %s/%s.pipe%s -o %s/t%d/%s --time --compile-threads%s%d",
		APPS_DIR, app, flags, dir, t, app, sep, t);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	return slurp("err");
}

/* dir/t1/APP.o and dir/t2/APP.o are the same bytes. */
static void same_objects(const char *app)
{
	char args[2048];
	snprintf(args, sizeof(args), "cmp -s %s/t1/%s.o %s/t2/%s.o", dir, app, dir, app);
	ck_assert_msg(system(args) == 0, "the objects of 1 and 2 compile threads differ");
}

/* LLVM in pieces on threads (--compile-threads): the object's bytes do
 * not depend on the number; bad numbers are refused. */
START_TEST(compile_threads)
{
	make_dir();
	char args[2048];
	for (int t = 1; t <= 2; t++) {
		const char *e = compile_on_threads("camera_pipe", "", t, t == 1 ? " " : "=");
		ck_assert_ptr_nonnull(strstr(e, "polytile: LLVM on 8 pieces"));
		ck_assert_ptr_nonnull(strstr(e, t == 1 ? ", 1 thread\n" : ", 2 threads\n"));
	}
	same_objects("camera_pipe");
	snprintf(args, sizeof(args), "compile %s/camera_pipe.pipe -o %s/t1/camera_pipe --compile-threads 0", APPS_DIR, dir);
	ck_assert_int_eq(run(args), 2);
	ck_assert_ptr_nonnull(strstr(slurp("err"), "--compile-threads 0: give a number of threads from 1 to 4096"));
	snprintf(args, sizeof(args), "run %s/blur.pipe --compile-threads x --param R=8 --param C=8", APPS_DIR);
	ck_assert_int_eq(run(args), 2);
	ck_assert_ptr_nonnull(strstr(slurp("err"), "--compile-threads x: give a number"));
	remove_dir();
}
END_TEST

/* A small module in pieces too: harris's -O1 kernel (two nests, no
 * other loops) is cut for two threads, with the same object bytes as
 * on one; blur's few hundred instructions stay whole. */
START_TEST(small_modules_in_pieces)
{
	make_dir();
	char args[2048];
	for (int t = 1; t <= 2; t++) {
		const char *e = compile_on_threads("harris", " -O1", t, " "), *c = strstr(e, "polytile: LLVM on ");
		ck_assert_msg(c && atoi(c + strlen("polytile: LLVM on ")) >= 2, "%s", e);
	}
	same_objects("harris");
	snprintf(args, sizeof(args), "compile %s/blur.pipe -O1 -o %s/t1/blur --time", APPS_DIR, dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_msg(!strstr(slurp("err"), "LLVM on"), "%s", slurp("err"));
	remove_dir();
}
END_TEST

/* The attribute group that marks a function cold in LLVM IR text, or
 * -1: "attributes #N = { ... "polytile-cold" ... }". */
static int cold_group(const char *ll)
{
	for (const char *a = strstr(ll, "\nattributes #"); a; a = strstr(a + 1, "\nattributes #")) {
		const char *end = strchr(a + 1, '\n');
		const char *c = strstr(a, "\"polytile-cold\"");
		if (c && (!end || c < end))
			return atoi(a + 13);
	}
	return -1;
}

/* Whether the definition of fn in ll carries attribute group g. */
static bool defined_with(const char *ll, const char *fn, int g)
{
	char head[128], tail[32];
	snprintf(head, sizeof(head), "define internal void @%s(", fn);
	snprintf(tail, sizeof(tail), " #%d ", g);
	const char *d = strstr(ll, head);
	ck_assert_msg(d != NULL, "no definition of %s", fn);
	const char *end = strchr(d, '\n'), *t = strstr(d, tail);
	return t && t < end;
}

/* The whole of dir/name, however large (slurp keeps 1 MB), malloc'd. */
static char *slurp_all(const char *name)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	size_t got = fread(buf, 1, (size_t)n, f);
	buf[got] = 0;
	fclose(f);
	return buf;
}

/* Whether attribute group n of ll holds "polytile-cold". */
static bool group_is_cold(const char *ll, int n)
{
	char head[48];
	snprintf(head, sizeof(head), "\nattributes #%d = {", n);
	const char *a = strstr(ll, head), *end = a ? strchr(a + 1, '\n') : NULL;
	const char *c = a ? strstr(a, "\"polytile-cold\"") : NULL;
	return c && (!end || c < end);
}

/* The definitions in ll of functions named prefix..., counted by
 * whether their attribute group marks them cold. */
static void count_nests(const char *ll, const char *prefix, int *cold, int *hot)
{
	*cold = *hot = 0;
	for (const char *d = strstr(ll, prefix); d; d = strstr(d + 1, prefix)) {
		const char *bol = d, *eol = strchr(d, '\n');
		while (bol > ll && bol[-1] != '\n')
			bol--;
		if (strncmp(bol, "define ", 7) || !eol)
			continue;
		const char *h = eol;
		while (h > d && *h != '#')
			h--;
		if (*h == '#' && group_is_cold(ll, atoi(h + 1)))
			(*cold)++;
		else
			(*hot)++;
	}
}

/* Cold loops (codegen/work.c): the parallel loops of the smallest shares
 * of the work at the estimates, together at most 5%, are marked cold and
 * compiled without strength reduction, in pieces of their own; without
 * estimates nothing is cold. */
/* A tile prefetches the image lines of the next one (codegen/prefetch.c):
 * harris's tiles read I at translated points; the naive schedule has no
 * tiles; interpolate's tiled groups read only stages (its images are
 * read by its untiled first level), and heat3d has no tiled group.  An
 * image read by several stages of a group at boxes that differ by
 * constants is prefetched once, as one box: harris's Ix and Iy, and
 * unsharp_mask's blurx and mask, read one image each (one prefetch in
 * the IR before optimization); pyramid_blend's last group reads three. */
START_TEST(tile_prefetch)
{
	make_dir();
	char args[2048];
	const struct { const char *app, *level; bool want; } cases[] = {
		{ "harris", "-O1", true }, { "harris", "-O0", false }, { "unsharp_mask", "-O1", true },
		{ "interpolate", "-O1", false }, { "heat3d", "-O1", false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(args, sizeof(args), "compile %s --emit=llvm %s/%s.pipe -o %s/pf", cases[i].level, APPS_DIR,
			cases[i].app, dir);
		ck_assert_msg(run(args) == 0, "%s", slurp("err"));
		char *ll = slurp_all("pf.ll");
		ck_assert_msg((strstr(ll, "call void @llvm.prefetch") != NULL) == cases[i].want, "%s %s: prefetch %s",
			cases[i].app, cases[i].level, cases[i].want ? "missing" : "unexpected");
		free(ll);
	}
	const struct { const char *app; int calls; } boxes[] = {
		{ "harris", 1 }, { "unsharp_mask", 1 }, { "pyramid_blend", 3 },
	};
	for (size_t i = 0; i < sizeof(boxes) / sizeof(boxes[0]); i++) {
		snprintf(args, sizeof(args), "compile --dump=llvm-ir %s/%s.pipe", APPS_DIR, boxes[i].app);
		ck_assert_msg(run(args) == 0, "%s", slurp("err"));
		char *ir = slurp_all("out");
		int calls = 0;
		for (const char *c = strstr(ir, "call void @llvm.prefetch"); c; c = strstr(c + 1, "call void @llvm.prefetch"))
			calls++;
		ck_assert_msg(calls == boxes[i].calls, "%s: %d prefetch loops, want %d", boxes[i].app, calls, boxes[i].calls);
		free(ir);
	}
	remove_dir();
}
END_TEST

/* The vectorizers' width follows the vectors the tile model plans for
 * (the suite's PT_MACHINE: 64 bytes; LLVM's own preference is 256 bits
 * on many AVX-512 CPUs), at -O0 and -O1, and PT_MACHINE's vector item. */
START_TEST(vector_width)
{
	make_dir();
	char args[2048];
	char *saved = set_machine(NULL);
	const char *machine[2] = { "l1=32K,l2=1M,l3=32M,threads=2,vector=64", "l1=32K,l2=1M,l3=32M,threads=2,vector=32" };
	const char *want[2] = { "\"prefer-vector-width\"=\"512\"", "\"prefer-vector-width\"=\"256\"" };
	for (int m = 0; m < 2; m++)
		for (int level = 0; level <= 1; level++) {
			setenv("PT_MACHINE", machine[m], 1);
			snprintf(args, sizeof(args), "compile -O%d --emit=llvm %s/blur.pipe -o %s/vw", level, APPS_DIR, dir);
			ck_assert_msg(run(args) == 0, "%s", slurp("err"));
			const char *ll = slurp("vw.ll");
			ck_assert_msg(strstr(ll, want[m]) && !strstr(ll, want[1 - m]), "-O%d, %s: no %s", level, machine[m], want[m]);
		}
	/* a bad PT_MACHINE fails -O0 too: its vector width is used */
	setenv("PT_MACHINE", "vector=wide", 1);
	snprintf(args, sizeof(args), "compile -O0 %s/blur.pipe -o %s/vw", APPS_DIR, dir);
	ck_assert_int_eq(run(args), 1);
	ck_assert_msg(strstr(slurp("err"), "PT_MACHINE=vector=wide"), "%s", slurp("err"));
	restore_machine(saved);
	remove_dir();
}
END_TEST

START_TEST(cold_loops)
{
	make_dir();
	char path[600], args[2048];
	const char *pipe =
		"pipeline coldhot\nparam R : int%s\nparam C : int%s\nimage I : float [R, C]\n"
		"func big(x : 0 .. R-1, y : 0 .. C-1) : float = I(x, y) * 2.0 + 1.0\n"
		"func small(x : 0 .. R/8-1, y : 0 .. C/8-1) : float = big(8*x, 8*y) - I(8*x, 8*y)\n"
		"output big\noutput small\n";
	for (int est = 1; est >= 0; est--) {
		snprintf(path, sizeof(path), "%s/coldhot.pipe", dir);
		FILE *f = fopen(path, "w");
		fprintf(f, pipe, est ? " = 1024" : "", est ? " = 1024" : "");
		fclose(f);
		/* -O0: big's loop, then small's, 1/65 of the work */
		snprintf(args, sizeof(args), "compile -O0 --emit=llvm %s/coldhot.pipe -o %s/coldhot", dir, dir);
		ck_assert_msg(run(args) == 0, "%s", slurp("err"));
		const char *ll = slurp("coldhot.ll");
		int g = cold_group(ll);
		if (est) {
			ck_assert_int_ge(g, 0);
			ck_assert(defined_with(ll, "coldhot.worker1", g));
			ck_assert(!defined_with(ll, "coldhot.worker0", g));
		} else {
			ck_assert_int_eq(g, -1);
		}
	}
	/* harris's two nests do all its work: hot (the kernel calling them
	 * does none, and may be cold); pyramid_blend's small loops go in a
	 * piece of their own (compile_threads: the object does not depend
	 * on it) */
	snprintf(args, sizeof(args), "compile --emit=llvm %s/harris.pipe -o %s/harris", APPS_DIR, dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	int cold, hot;
	count_nests(slurp("harris.ll"), "@harris.nest", &cold, &hot);
	ck_assert_int_eq(cold, 0);
	ck_assert_int_eq(hot, 2);
	snprintf(args, sizeof(args), "compile %s/pyramid_blend.pipe -o %s/pyramid_blend --time --compile-threads 2", APPS_DIR, dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	const char *e = slurp("err"), *c = strstr(e, "polytile: LLVM on 8 pieces (");
	ck_assert_msg(c && atoi(c + 28) >= 1 && strstr(c, " of cold loops), 2 threads\n"), "%s", e);
	/* a tile's nests (codegen/nests.c) have shares of their own: some of
	 * pyramid_blend's are cold, others hot */
	snprintf(args, sizeof(args), "compile --emit=llvm %s/pyramid_blend.pipe -o %s/pb", APPS_DIR, dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	char *pb = slurp_all("pb.ll");
	count_nests(pb, "@pb.nest", &cold, &hot);
	free(pb);
	ck_assert_int_gt(cold, 0);
	ck_assert_int_gt(hot, 0);
	remove_dir();
}
END_TEST

/* An output past the shared cache that no stage reads is streamed at
 * -O1 (storage dump; non-temporal vector stores and a fence in the
 * optimized IR); not at -O0, not when it fits the cache at the
 * estimates, not when another stage reads it. */
START_TEST(streamed_outputs)
{
	make_dir();
	char path[600], args[2048];
	const char *pipe =
		"pipeline st\nparam R : int = %d\nparam C : int = %d\nimage I : float [R, C]\n"
		"func a(x : 0 .. R-1, y : 0 .. C-1) : float = I(x, y) * 2.0 + 1.0\n"
		"func b(x : 0 .. R-1, y : 0 .. C-1) : float = a(x, y) + 1.0\n"
		"output a\noutput b\n";
	const int est[2] = { 4096, 512 };
	for (int k = 0; k < 2; k++) {
		snprintf(path, sizeof(path), "%s/st.pipe", dir);
		FILE *f = fopen(path, "w");
		fprintf(f, pipe, est[k], est[k]);
		fclose(f);
		snprintf(args, sizeof(args), "compile -O1 --emit=llvm --dump storage %s -o %s/st", path, dir);
		ck_assert_msg(run(args) == 0, "%s", slurp("err"));
		char *out = strdup(slurp("out"));
		const char *ll = slurp("st.ll");
		/* 64 MiB past the tests' 32 MiB cache (PT_MACHINE); 1 MiB is not */
		ck_assert_msg(!strstr(out, "a: streamed"), "%s", out);
		ck_assert_msg(!strstr(out, "b: streamed") == (k == 1), "%s", out);
		ck_assert(!strstr(ll, "!nontemporal") == (k == 1));
		ck_assert(!strstr(ll, "fence seq_cst") == (k == 1));
		free(out);
	}
	snprintf(args, sizeof(args), "compile -O1 --dump storage %s/unsharp_mask.pipe -o %s/us", APPS_DIR, dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_msg(strstr(slurp("out"), "mask: streamed (non-temporal stores)\n"), "%s", slurp("out"));
	snprintf(args, sizeof(args), "compile -O0 --emit=llvm --dump storage %s/unsharp_mask.pipe -o %s/us", APPS_DIR, dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_msg(!strstr(slurp("out"), "streamed"), "%s", slurp("out"));
	ck_assert(strstr(slurp("us.ll"), "define") && !strstr(slurp("us.ll"), "!nontemporal"));
	remove_dir();
}
END_TEST

/* The body of the first definition in ll whose name contains key after
 * from (a copy; NULL: none); *next is where the search may go on. */
static char *function_with(const char *ll, const char *key, const char **next)
{
	for (const char *d = strstr(ll, "\ndefine "); d; d = strstr(d + 1, "\ndefine ")) {
		const char *eol = strchr(d + 1, '\n'), *k = strstr(d, key);
		if (!k || !eol || k > eol)
			continue;
		const char *end = strstr(d, "\n}\n");
		*next = end ? end : d + 1;
		return end ? strndup(d, (size_t)(end - d)) : NULL;
	}
	return NULL;
}

/* A tile of several loop nests (harris's: gradients and products, then
 * box sums and response) calls each in a function of its own
 * (codegen/nests.c), noinline; its streamed output's stores are fenced
 * once in the kernel, after its tiles, and never per tile in a nest. */
START_TEST(tile_nests)
{
	make_dir();
	char args[2048];
	snprintf(args, sizeof(args), "compile --emit=llvm %s/harris.pipe -o %s/harris", APPS_DIR, dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	const char *ll = slurp("harris.ll"), *at = ll;
	int nests = 0, streaming = 0;
	char *f;
	while ((f = function_with(at, "@harris.nest", &at))) {
		nests++;
		streaming += strstr(f, "!nontemporal") != NULL;
		ck_assert_msg(!strstr(f, "fence"), "a nest fences its stores:\n%s", f);
		free(f);
	}
	ck_assert_int_eq(nests, 2);
	ck_assert_int_eq(streaming, 1);
	f = function_with(ll, "@harris.worker", &at);
	ck_assert_ptr_nonnull(f);
	ck_assert_msg(strstr(f, "fence seq_cst") && strstr(f, "@harris.nest"), "%s", f);
	free(f);
	ck_assert_ptr_nonnull(strstr(ll, "noinline"));
	/* -O0 has no tiles, hence no nests */
	snprintf(args, sizeof(args), "compile -O0 --emit=llvm %s/harris.pipe -o %s/harris", APPS_DIR, dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert(!strstr(slurp("harris.ll"), ".nest"));
	remove_dir();
}
END_TEST

/* --reassociate: a float sum is factored only when asked, then equal to
 * the interpreter within n * FLT_EPSILON of its magnitude (n terms); by default kept serial
 * and identical byte for byte; explain says which and why. */
START_TEST(reassociate)
{
	make_dir();
	write_file("fs.pipe", "pipeline fs\nparam R : int = 2048\nparam C : int = 2048\nimage I : u8 [R, C]\n"
		"reduce s(k : 0 .. 3) : float over (x : 0 .. R-1, y : 0 .. C-1)\n  | s(I(x, y) % 4) += float(I(x, y)) * 0.1\n"
		"output s\n");
	char args[2048];
	const char *mode[3] = {"--backend interp", "", "--reassociate"};
	pt_buffer out[3];
	for (int k = 0; k < 3; k++) {
		snprintf(args, sizeof(args), "run %s/fs.pipe --param R=301 --param C=203 --dump=rfactor %s --out s=%s/s%d.npy",
			dir, mode[k], dir, k);
		ck_assert_msg(run(args) == 0, "%s", slurp("err"));
		if (k)
			ck_assert_ptr_nonnull(strstr(slurp("out"), k == 1 ? "reduction s: not factored: a float sum" :
				"reduction s: factored into 16 parts along x"));
		char path[700], err[200];
		snprintf(path, sizeof(path), "%s/s%d.npy", dir, k);
		ck_assert_msg(pt_npy_read(path, &out[k], err, sizeof(err)) == 0, "%s", err);
	}
	const float *i = out[0].data, *d = out[1].data, *r = out[2].data;
	for (int k = 0; k < 4; k++) {
		ck_assert_msg(memcmp(&i[k], &d[k], sizeof(float)) == 0, "default s(%d): %a, interpreter %a", k, d[k], i[k]);
		/* f32 sums of n ~ 15,000 positive terms each, in another
		 * order: each may be off by n * FLT_EPSILON of its magnitude
		 * (the usual bound for recursive summation); 1.1e-4 seen */
		ck_assert_msg(fabsf(r[k] - i[k]) <= 15400 * FLT_EPSILON * fabsf(i[k]), "reassociated s(%d): %g, interpreter %g", k,
			r[k], i[k]);
	}
	for (int k = 0; k < 3; k++)
		pt_buffer_free(&out[k]);
	snprintf(args, sizeof(args), "explain %s/fs.pipe --reassociate", dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_ptr_nonnull(strstr(slurp("out"), "reassociated (--reassociate); partials s_part, merged in s"));
	remove_dir();
}
END_TEST

/* explain on general updates: the paper's x + y + 7xy factored with its
 * proof and identity, 2 * h + v kept serial with a counterexample. */
/* Whether dir/name holds the bytes of needle. */
static bool file_has(const char *name, const char *needle)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	static char buf[1 << 22];
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (!memcmp(buf + i, needle, k))
			return true;
	return false;
}

/* `compile --backend cuda` puts the kernels' cubin for sm_90 beside their
 * PTX (driver/cubin.c): ptxas from $PT_PTXAS (here a script standing in
 * for it), none with PT_PTXAS=none, and ptxas refusing the PTX is an
 * error that leaves the object written before in place; the toolkit's
 * own ptxas, where there is one, makes a real cubin. */
START_TEST(cuda_object_cubin)
{
	make_dir();
	char args[1200], ptxas[600];
	snprintf(ptxas, sizeof(ptxas), "%s/ptxas", dir);
	write_file("ptxas", "#!/bin/sh\n# the cubin file follows -o\nwhile [ \"$1\" != -o ]; do shift; done\n"
		"printf FAKECUBIN > \"$2\"\n");
	ck_assert_int_eq(chmod(ptxas, 0755), 0);
	setenv("PT_PTXAS", ptxas, 1);
	snprintf(args, sizeof(args), "compile %s/blur.pipe --backend cuda --dump=cubin -o %s/b", APPS_DIR, dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_msg(strstr(slurp("out"), "cubin for sm_90: 9 bytes, from "), "%s", slurp("out"));
	ck_assert(file_has("b.o", "FAKECUBIN"));
	ck_assert(file_has("b.o", ".target sm_90"));
	/* ptxas refuses: an error with its words, b.o as it was */
	write_file("ptxas", "#!/bin/sh\necho 'ptxas fatal: Unresolved extern function' >&2\nexit 3\n");
	snprintf(args, sizeof(args), "compile %s/blur.pipe --backend cuda -O0 -o %s/b", APPS_DIR, dir);
	ck_assert_int_eq(run(args), 1);
	ck_assert_msg(strstr(slurp("err"), "refused the kernels' PTX (set PT_PTXAS=none to leave the cubin out): "
		"ptxas fatal: Unresolved extern function"), "%s", slurp("err"));
	ck_assert(file_has("b.o", "FAKECUBIN"));
	setenv("PT_PTXAS", "none", 1);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert(!file_has("b.o", "FAKECUBIN"));
	/* a run in process never assembles */
	snprintf(args, sizeof(args), "run %s/blur.pipe --backend cuda-emu --dump=cubin --param R=9 --param C=9 --out out=%s/o.npy",
		APPS_DIR, dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	ck_assert_msg(strstr(slurp("out"), "no cubin: not the cuda backend"), "%s", slurp("out"));
	unsetenv("PT_PTXAS");
	if (access("/usr/local/cuda/bin/ptxas", X_OK) == 0) {
		snprintf(args, sizeof(args), "compile %s/harris.pipe --backend cuda --dump=cubin -o %s/h", APPS_DIR, dir);
		ck_assert_msg(run(args) == 0, "%s", slurp("err"));
		ck_assert_msg(strstr(slurp("out"), "from /usr/local/cuda/bin/ptxas"), "%s", slurp("out"));
		/* an sm_90 ELF: its per-kernel attribute sections */
		ck_assert(file_has("h.o", ".nv.info.h_gpu0_k0"));
	}
	remove_dir();
}
END_TEST

START_TEST(explain_general_updates)
{
	make_dir();
	write_file("g.pipe", "pipeline g\nparam R : int = 2048\nimage I : u8 [R, R]\n"
		"reduce p(k : 0 .. 3) : int over (x : 0 .. R-1, y : 0 .. R-1) init 0\n"
		"  | p(I(x, y) % 4) = p(I(x, y) % 4) + I(y, x) + 7 * p(I(x, y) % 4) * I(y, x)\n"
		"reduce l(k : 0 .. 3) : int over (x : 0 .. R-1, y : 0 .. R-1) init 0\n"
		"  | l(I(x, y) % 4) = 2 * l(I(x, y) % 4) + I(y, x)\n"
		"output p, l\n");
	char args[2048];
	snprintf(args, sizeof(args), "explain %s/g.pipe", dir);
	ck_assert_msg(run(args) == 0, "%s", slurp("err"));
	const char *out = slurp("out");
	ck_assert_msg(strstr(out, "reduction p: factored into 16 parts along x") &&
		strstr(out, "its operator proved associative and commutative (as a polynomial), identity 0"), "%s", out);
	ck_assert_msg(strstr(out, "reduction l: not factored: its operator is not associative: op(op("), "%s", out);
	remove_dir();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("polytile");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, exit_statuses);
	tcase_add_test(tc, harris_npy_exact);
	tcase_add_test(tc, extent_mismatch);
	tcase_add_test(tc, compile_command);
	tcase_add_test(tc, header_names_compile);
	tcase_add_test(tc, run_backends_agree);
	tcase_add_test(tc, dumps_and_options);
	tcase_add_test(tc, png_and_graph);
	tcase_add_test(tc, located_error_keeps_outputs);
	tcase_add_test(tc, many_options);
	tcase_add_test(tc, compile_threads);
	tcase_add_test(tc, small_modules_in_pieces);
	tcase_add_test(tc, tile_prefetch);
	tcase_add_test(tc, vector_width);
	tcase_add_test(tc, cold_loops);
	tcase_add_test(tc, streamed_outputs);
	tcase_add_test(tc, tile_nests);
	tcase_add_test(tc, reassociate);
	tcase_add_test(tc, explain_general_updates);
	tcase_add_test(tc, cuda_object_cubin);
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
