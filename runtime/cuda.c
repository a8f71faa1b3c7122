/* cuda.c: the CUDA runtime's side of the CUDA target, loaded at run
 * time: libcuda.so.1 (the driver) is opened with dlopen at the first
 * launch, so that polytile builds, links and runs on machines without a
 * GPU or a driver, where a launch fails with PT_ERR_DEVICE and says
 * why.  What is built so far: the driver's presence and the kernels'
 * PTX (embedded by codegen/cuda.c); device memory, copies and the
 * launches themselves come next (issue 37), and until then a launch on a
 * machine with a driver says that instead. */
#include <dlfcn.h>
#include <stdio.h>

#include "pt_runtime.h"

/* The driver's library, or NULL with why set. */
static void *driver(const char **why)
{
	static void *lib;
	static int tried;
	if (!tried) {
		tried = 1;
		lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	}
	if (!lib)
		*why = "no CUDA driver on this machine (libcuda.so.1 could not be loaded); --backend cuda-emu runs the same "
		       "kernels on the CPU";
	return lib;
}

int32_t pt_cuda_launch(const char *ptx, const char *kernel, int64_t blocks, int32_t bdx, int32_t bdy, void **params,
	int32_t nparams)
{
	(void)params;
	(void)nparams;
	(void)blocks;
	const char *why = NULL;
	char msg[400];
	if (!ptx || !ptx[0]) {
		snprintf(msg, sizeof(msg), "kernel %s: no PTX was generated (no NVPTX target in this LLVM, or no libdevice "
			"for its math functions)", kernel);
		pt_rt_fail_at(PT_ERR_DEVICE, msg, 0, NULL);
		return PT_ERR_DEVICE;
	}
	if ((int64_t)bdx * bdy > 1024) {
		snprintf(msg, sizeof(msg), "kernel %s: a block of %d x %d threads is over the device's 1024", kernel, bdx, bdy);
		pt_rt_fail_at(PT_ERR_DEVICE, msg, 0, NULL);
		return PT_ERR_DEVICE;
	}
	if (!driver(&why)) {
		pt_rt_fail_at(PT_ERR_DEVICE, why, 0, NULL);
		return PT_ERR_DEVICE;
	}
	snprintf(msg, sizeof(msg), "kernel %s: the CUDA runtime (device memory, copies, launches) is not built yet; "
		"--backend cuda-emu runs the same kernels on the CPU", kernel);
	pt_rt_fail_at(PT_ERR_DEVICE, msg, 0, NULL);
	return PT_ERR_DEVICE;
}
