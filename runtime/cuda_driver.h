/* cuda_driver.h: what the CUDA runtime's files (cuda.c, cuda_stream.c)
 * share: the driver API's types and entry points, declared here so that
 * no CUDA header is needed to build, loaded by cuda.c at first use. */
#ifndef PT_RUNTIME_CUDA_DRIVER_H
#define PT_RUNTIME_CUDA_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#define PT_HIDDEN __attribute__((visibility("hidden")))

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef unsigned long long CUdeviceptr;

/* cuMemcpy2D's description of a copy (cuda.h's CUDA_MEMCPY2D_v2) */
enum { CU_MEMORYTYPE_HOST = 1, CU_MEMORYTYPE_DEVICE = 2, CU_STREAM_NON_BLOCKING = 1 };
typedef struct CUDA_MEMCPY2D {
	size_t srcXInBytes, srcY;
	int srcMemoryType;
	const void *srcHost;
	CUdeviceptr srcDevice;
	void *srcArray;
	size_t srcPitch;
	size_t dstXInBytes, dstY;
	int dstMemoryType;
	void *dstHost;
	CUdeviceptr dstDevice;
	void *dstArray;
	size_t dstPitch;
	size_t WidthInBytes, Height;
} CUDA_MEMCPY2D;

enum { CU_OUT_OF_MEMORY = 2, CU_NO_DEVICE = 100, CU_JIT_ERROR_LOG_BUFFER = 5,
	CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6, CU_FUNC_MAX_DYNAMIC_SHARED = 8 };

struct driver {
	CUresult (*Init)(unsigned);
	CUresult (*DeviceGetCount)(int *);
	CUresult (*DeviceGet)(CUdevice *, int);
	CUresult (*DeviceGetName)(char *, int, CUdevice);
	CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
	CUresult (*CtxSetCurrent)(CUcontext);
	CUresult (*CtxSynchronize)(void);
	CUresult (*ModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
	CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
	CUresult (*ModuleGetGlobal)(CUdeviceptr *, size_t *, CUmodule, const char *);
	CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
		CUstream, void **, void **);
	CUresult (*MemAlloc)(CUdeviceptr *, size_t);
	CUresult (*MemFree)(CUdeviceptr);
	CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
	CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
	CUresult (*MemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
	CUresult (*MemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
	CUresult (*MemsetD8)(CUdeviceptr, unsigned char, size_t);
	CUresult (*MemHostAlloc)(void **, size_t, unsigned);
	CUresult (*EventCreate)(CUevent *, unsigned);
	CUresult (*EventRecord)(CUevent, CUstream);
	CUresult (*EventSynchronize)(CUevent);
	CUresult (*GetErrorName)(CUresult, const char **);
	CUresult (*FuncSetAttribute)(CUfunction, int, int);
	CUresult (*GetErrorString)(CUresult, const char **);
	CUresult (*StreamCreate)(CUstream *, unsigned);
	CUresult (*StreamWaitEvent)(CUstream, CUevent, unsigned);
	CUresult (*Memcpy2DAsync)(const CUDA_MEMCPY2D *, CUstream);
	CUresult (*MemFreeHost)(void *);
};

extern PT_HIDDEN struct driver pt_cuda_drv;
#define D pt_cuda_drv

/* PT_CUDA_PROFILE (cuda_profile.c): a launch of kernel on the default
 * stream bracketed (begin's result to end; NULL: not profiled), and the
 * finished launches' times added up, after a synchronization. */
PT_HIDDEN void *pt_cuda_profile_begin(const char *kernel);
PT_HIDDEN void pt_cuda_profile_end(void *launch);
PT_HIDDEN void pt_cuda_profile_collect(void);

/* 0 once the device is ready for the calling thread, else the error
 * (recorded). */
PT_HIDDEN int32_t pt_cuda_ready(void);
/* Records code with "what: the driver's name and text for r". */
PT_HIDDEN int32_t pt_cuda_fail(int32_t code, const char *what, CUresult r);
/* memcpy of n bytes on the pool's threads and this one. */
PT_HIDDEN void pt_cuda_host_copy(void *dst, const void *src, size_t n);
/* Whether a dry run is on (nothing reaches the driver). */
PT_HIDDEN int pt_cuda_is_dry(void);
/* For a launch of kernel (cuda_launch.c): the checks of its shape, then
 * its module loaded into *mod and its function into *fn: 0 to launch
 * it, 1 when there is nothing to launch (no blocks; a dry run, which
 * records it), else the error code (negative, recorded). */
PT_HIDDEN int32_t pt_cuda_function(const char *ptx, void **mod, const char *kernel, void **fn, int64_t blocks,
	int32_t bdx, int32_t bdy, int32_t shared);
/* A dry run's call streams its copies in chunks (pt_cuda_dry_streamed). */
PT_HIDDEN void pt_cuda_dry_note_stream(int chunks);

#endif
