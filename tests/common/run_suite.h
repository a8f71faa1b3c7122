/* run_suite.h: the one way test programs run a Check suite: all tests,
 * normal output, exit status 1 if any failed. */
#ifndef PT_TEST_RUN_SUITE_H
#define PT_TEST_RUN_SUITE_H

#include <check.h>

static inline int pt_test_run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0;
}

#endif
