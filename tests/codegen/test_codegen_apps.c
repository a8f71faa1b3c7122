/* test_codegen_apps.c: every app in apps/ compiled for the CPU (JIT)
 * against the reference interpreter: two sizes each (one odd), 1 and 2
 * threads, with and without inlining.  Tolerances in compiled.h. */
#include "compiled.h"
#include "run_suite.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

#include "apps_table.h"

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
	tcase_add_loop_test(tc, app_compiled_equals_interpreter, 0, NAPPS);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pt_test_run_suite(suite());
}
