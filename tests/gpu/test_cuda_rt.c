/* test_cuda_rt.c: the CUDA runtime (runtime/cuda.c) on a machine without
 * a CUDA driver: every call fails cleanly, with PT_ERR_DEVICE and a
 * message that says why and what to use instead, never a crash; what
 * needs no device (a launch the device would refuse, a buffer without a
 * device copy to download) is decided without one.  Skipped (77) where
 * a driver is present: bench/gpu/ runs the device paths there. */
#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_runtime.h"
#include "run_suite.h"

#define NO_DRIVER "no CUDA driver on this machine (libcuda.so.1 could not be loaded); --backend cuda-emu runs the " \
	"same kernels on the CPU"

static void expect_device_error(int code)
{
	ck_assert_int_eq(code, PT_ERR_DEVICE);
	ck_assert_str_eq(pt_rt_error_detail(), NO_DRIVER);
}

START_TEST(no_driver_every_call_fails_clearly)
{
	pt_buffer b = { 0 };
	int64_t ext[2] = { 3, 5 };
	ck_assert_int_eq(pt_buffer_alloc(&b, PT_F32, 2, ext), PT_OK);
	ck_assert_ptr_null(pt_cuda_device_name());
	for (int role = PT_BIND_INPUT; role <= PT_BIND_OUTPUT_PARTIAL; role++) {
		ck_assert_uint_eq(pt_cuda_bind(&b, role), 0);
		expect_device_error(pt_rt_take_error());
	}
	pt_cuda_unbind(&b, 1, 0);   /* nothing bound: nothing to do */
	ck_assert_int_eq(pt_rt_take_error(), 0);
	ck_assert_uint_eq(pt_cuda_alloc(1024), 0);
	expect_device_error(pt_rt_take_error());
	pt_cuda_free(0);
	ck_assert_int_eq(pt_cuda_memset(0x1000, 0, 16), PT_ERR_DEVICE);
	expect_device_error(pt_rt_take_error());
	void *mod = NULL;
	ck_assert_int_eq(pt_cuda_finish(&mod), PT_ERR_DEVICE);
	expect_device_error(pt_rt_take_error());
	expect_device_error(pt_cuda_buffer_upload(&b));
	ck_assert_uint_eq(b.device, 0);
	expect_device_error(pt_cuda_sync());
	/* no device copy: nothing to download, nothing to release */
	ck_assert_int_eq(pt_cuda_buffer_download(&b), PT_OK);
	pt_cuda_buffer_release(&b);
	pt_cuda_release();
	ck_assert_int_eq(pt_cuda_buffer_upload(NULL), PT_ERR_NULL);
	pt_buffer_free(&b);
}
END_TEST

START_TEST(launches_are_checked_before_the_device)
{
	void *mod = NULL, *fn = NULL, *params[1] = { NULL };
	/* no PTX (no NVPTX target, or no libdevice) */
	ck_assert_int_eq(pt_cuda_launch("", &mod, "k_gpu0", &fn, 4, 32, 8, 0, params), PT_ERR_DEVICE);
	ck_assert_int_eq(pt_rt_take_error(), PT_ERR_DEVICE);
	ck_assert_ptr_nonnull(strstr(pt_rt_error_detail(), "kernel k_gpu0: no PTX was generated"));
	/* a block the device refuses (CUDA_ERROR_INVALID_VALUE there) */
	ck_assert_int_eq(pt_cuda_launch(".version 8.0", &mod, "k_gpu1", &fn, 4, 64, 32, 0, params), PT_ERR_DEVICE);
	ck_assert_int_eq(pt_rt_take_error(), PT_ERR_DEVICE);
	ck_assert_ptr_nonnull(strstr(pt_rt_error_detail(), "4 blocks of 64 x 32 threads: over the device's limits"));
	ck_assert_int_eq(pt_cuda_launch(".version 8.0", &mod, "k_gpu2", &fn, (int64_t)1 << 31, 32, 8, 0, params),
		PT_ERR_DEVICE);
	ck_assert_int_eq(pt_rt_take_error(), PT_ERR_DEVICE);
	/* no blocks: nothing to launch, no device needed */
	ck_assert_int_eq(pt_cuda_launch(".version 8.0", &mod, "k_gpu3", &fn, 0, 32, 8, 0, params), 0);
	ck_assert_int_eq(pt_rt_take_error(), 0);
	/* a launch that needs the device */
	ck_assert_int_eq(pt_cuda_launch(".version 8.0", &mod, "k_gpu4", &fn, 4, 32, 8, 0, params), PT_ERR_DEVICE);
	expect_device_error(pt_rt_take_error());
	ck_assert_ptr_null(mod);
}
END_TEST

int main(void)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (lib) {
		printf("a CUDA driver is present: its paths are bench/gpu/'s to run\n");
		return 77;
	}
	Suite *s = suite_create("cuda_rt");
	TCase *tc = tcase_create("no_driver");
	tcase_add_test(tc, no_driver_every_call_fails_clearly);
	tcase_add_test(tc, launches_are_checked_before_the_device);
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
