/* test_codegen_apps.c: every app in apps/ compiled for the CPU (JIT)
 * against the reference interpreter: two sizes each (one odd), 1 and 2
 * threads, with and without inlining.  Tolerances in compiled.h. */
#include "compiled.h"
#include "run_suite.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

typedef struct app_case {
	const char *app;
	const char *names[2];
	double size[2][2];
} app_case;

static const app_case apps[] = {
	{ "blur", { "R", "C" }, { { 21, 17 }, { 32, 40 } } },
	{ "sobel", { "R", "C" }, { { 21, 17 }, { 33, 64 } } },
	{ "harris", { "R", "C" }, { { 21, 17 }, { 40, 35 } } },
	{ "histogram", { "R", "C" }, { { 21, 17 }, { 64, 31 } } },
	{ "unsharp_mask", { "R", "C" }, { { 21, 17 }, { 36, 40 } } },
	{ "bilateral_grid", { "R", "C" }, { { 67, 45 }, { 40, 64 } } },
	{ "camera_pipe", { "R", "C" }, { { 64, 96 }, { 38, 50 } } },
	{ "heat3d", { "N", "T" }, { { 9, 3 }, { 6, 2 } } },
	{ "interpolate", { "R", "C" }, { { 129, 67 }, { 64, 96 } } },
	{ "local_laplacian", { "R", "C" }, { { 67, 45 }, { 32, 40 } } },
	{ "pyramid_blend", { "R", "C" }, { { 128, 96 }, { 96, 64 } } },
};

START_TEST(app_compiled_equals_interpreter)
{
	const app_case *a = &apps[_i];
	char path[512];
	snprintf(path, sizeof(path), "%s/%s.pipe", APPS_DIR, a->app);
	cmp_file(path, 2, a->names, a->size, 1);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("codegen_apps");
	TCase *tc = tcase_create("apps");
	tcase_set_timeout(tc, 600);
	tcase_add_loop_test(tc, app_compiled_equals_interpreter, 0, (int)(sizeof(apps) / sizeof(apps[0])));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pt_test_run_suite(suite());
}
