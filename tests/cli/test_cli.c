/* test_cli.c: the `polytile` command end to end: exit statuses, param
 * inference from inputs, exact .npy round trips against the plain-C
 * reference, PNG output, graph output, and located errors. */
#define _XOPEN_SOURCE 700
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "image_io.h"
#include "ref_apps.h"

#include "run_suite.h"

#ifndef POLYTILE
#define POLYTILE "polytile"
#endif
#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

static char dir[512];

static void make_dir(void)
{
	const char *t = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/pt_cli_XXXXXX", t && *t ? t : P_tmpdir);
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Runs polytile with args (a shell fragment), stderr and stdout into
 * dir/err and dir/out; returns the exit status. */
static int run(const char *args)
{
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), "'%s' %s >'%s/out' 2>'%s/err' </dev/null", POLYTILE, args, dir, dir);
	int st = system(cmd);
	ck_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static char *slurp(const char *name)
{
	static char buf[65536];
	char path[600];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
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

int main(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("polytile");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, exit_statuses);
	tcase_add_test(tc, harris_npy_exact);
	tcase_add_test(tc, extent_mismatch);
	tcase_add_test(tc, png_and_graph);
	tcase_add_test(tc, located_error_keeps_outputs);
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
