/* fake_cuda.c: a stand-in for the CUDA driver (built as libcuda.so.1
 * in the test directory), so that the CUDA runtime's host side
 * (runtime/cuda.c) runs on machines without a GPU: device memory is host
 * memory (a device address is the host address), copies are memcpy,
 * kernels run nothing but are checked against the device's limits and
 * recorded, and the test sets what the driver answers through
 * fake_cuda_state() (test_cuda_fake.c).  Only the entry points the
 * runtime loads are here. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_cuda.h"

static fake_cuda fake = { .ndevices = 1, .mem_limit = (size_t)1 << 40 };

fake_cuda *fake_cuda_state(void)
{
	return &fake;
}

typedef unsigned long long dptr;

int cuInit(unsigned flags)
{
	(void)flags;
	return 0;
}

int cuDeviceGetCount(int *n)
{
	*n = fake.ndevices;
	return 0;
}

int cuDeviceGet(int *dev, int i)
{
	*dev = i;
	return i < fake.ndevices ? 0 : 101;   /* CUDA_ERROR_INVALID_DEVICE */
}

int cuDeviceGetName(char *name, int len, int dev)
{
	(void)dev;
	snprintf(name, (size_t)len, "Fake GPU");
	return 0;
}

int cuDevicePrimaryCtxRetain(void **ctx, int dev)
{
	static int one;
	(void)dev;
	*ctx = &one;
	return 0;
}

int cuCtxSetCurrent(void *ctx)
{
	(void)ctx;
	return 0;
}

int cuCtxSynchronize(void)
{
	fake.syncs++;
	return fake.sync_error;
}

typedef struct fake_fn {
	char name[128];
	int max_shared;
} fake_fn;

int cuModuleLoadDataEx(void **mod, const void *image, unsigned n, int *opt, void **val)
{
	fake.modules_loaded++;
	snprintf(fake.last_image, sizeof(fake.last_image), "%s", (const char *)image);
	if (strstr(image, "REFUSE"))
		return 209;               /* CUDA_ERROR_NO_BINARY_FOR_GPU */
	if (strstr(image, "FAIL")) {
		for (unsigned i = 0; i < n; i++)
			if (opt[i] == 5)      /* CU_JIT_ERROR_LOG_BUFFER */
				snprintf(val[i], 64, "fake: bad ptx");
		return 218;           /* CUDA_ERROR_INVALID_PTX */
	}
	*mod = &fake;
	return 0;
}

int cuModuleGetFunction(void **fn, void *mod, const char *name)
{
	static fake_fn fns[256];    /* the module owns its functions: never freed */
	static int nfns;
	(void)mod;
	if (nfns == 256)
		return 500;
	fake_fn *f = &fns[nfns++];
	snprintf(f->name, sizeof(f->name), "%s", name);
	*fn = f;
	return 0;
}

int cuModuleGetGlobal_v2(dptr *p, size_t *n, void *mod, const char *name)
{
	(void)mod;
	if (strcmp(name, "pt_error"))
		return 500;           /* CUDA_ERROR_NOT_FOUND */
	*p = (dptr)(uintptr_t)&fake.pt_error;
	*n = 4;
	return 0;
}

int cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
	unsigned shared, void *stream, void **params, void **extra)
{
	(void)extra;
	fake_fn *f = fn;
	if (stream) {
		/* a streamed run's chunk: its first block is the last param */
		int n = 0;
		while (params[n + 1])
			n++;
		if (fake.stream_launches < 16)
			fake.first_blocks[fake.stream_launches] = *(long long *)params[n];
		fake.stream_launches++;
		fake.launches_before_stream = fake.launches;
		fake.syncs_before_stream = fake.syncs;
	}
	if (bx * by * bz > 1024 || gy != 1 || gz != 1 || (shared > 48 * 1024 && (int)shared > f->max_shared))
		return 1;             /* CUDA_ERROR_INVALID_VALUE */
	fake.launches++;
	fake.last_blocks = gx;
	fake.last_threads = bx * by;
	fake.last_shared = shared;
	snprintf(fake.last_kernel, sizeof(fake.last_kernel), "%s", f->name);
	return fake.launch_error;
}

int cuFuncSetAttribute(void *fn, int attr, int value)
{
	fake_fn *f = fn;
	if (attr != 8 || value > 227 * 1024)   /* MAX_DYNAMIC_SHARED_SIZE_BYTES */
		return 1;
	f->max_shared = value;
	fake.attributes_set++;
	return 0;
}

int cuMemAlloc_v2(dptr *p, size_t n)
{
	if (n > fake.mem_limit)
		return 2;             /* CUDA_ERROR_OUT_OF_MEMORY */
	void *m = malloc(n);
	if (!m)
		return 2;
	fake.allocs++;
	fake.live++;
	*p = (dptr)(uintptr_t)m;
	return 0;
}

int cuMemFree_v2(dptr p)
{
	free((void *)(uintptr_t)p);
	fake.live--;
	return 0;
}

int cuMemcpyHtoD_v2(dptr dst, const void *src, size_t n)
{
	memcpy((void *)(uintptr_t)dst, src, n);
	fake.bytes_in += n;
	return 0;
}

int cuMemcpyDtoH_v2(void *dst, dptr src, size_t n)
{
	memcpy(dst, (const void *)(uintptr_t)src, n);
	fake.bytes_out += n;
	return 0;
}

int cuMemcpyHtoDAsync_v2(dptr dst, const void *src, size_t n, void *stream)
{
	(void)stream;
	fake.staged_chunks++;
	return cuMemcpyHtoD_v2(dst, src, n);
}

int cuMemcpyDtoHAsync_v2(void *dst, dptr src, size_t n, void *stream)
{
	(void)stream;
	fake.staged_chunks++;
	return cuMemcpyDtoH_v2(dst, src, n);
}

int cuMemsetD8_v2(dptr p, unsigned char v, size_t n)
{
	memset((void *)(uintptr_t)p, v, n);
	return 0;
}

int cuMemHostAlloc(void **p, size_t n, unsigned flags)
{
	(void)flags;
	*p = malloc(n);
	return *p ? 0 : 2;
}

int cuMemFreeHost(void *p)
{
	free(p);
	return 0;
}

int cuStreamCreate(void **s, unsigned flags)
{
	static int st[3];
	static int next;
	(void)flags;
	*s = &st[next++ % 3];
	return 0;
}

int cuStreamWaitEvent(void *s, void *e, unsigned flags)
{
	(void)s, (void)e, (void)flags;
	return 0;
}

/* cuda.h's CUDA_MEMCPY2D_v2 (host memory is device memory here) */
typedef struct copy2d {
	size_t srcXInBytes, srcY;
	int srcMemoryType;
	const void *srcHost;
	dptr srcDevice;
	void *srcArray;
	size_t srcPitch;
	size_t dstXInBytes, dstY;
	int dstMemoryType;
	void *dstHost;
	dptr dstDevice;
	void *dstArray;
	size_t dstPitch;
	size_t WidthInBytes, Height;
} copy2d;

int cuMemcpy2DAsync_v2(const copy2d *m, void *stream)
{
	(void)stream;
	const char *src = m->srcMemoryType == 1 ? m->srcHost : (const char *)(uintptr_t)m->srcDevice;
	char *dst = m->dstMemoryType == 1 ? m->dstHost : (char *)(uintptr_t)m->dstDevice;
	if (m->WidthInBytes > m->srcPitch || m->WidthInBytes > m->dstPitch)
		return 1;
	for (size_t y = 0; y < m->Height; y++)
		memcpy(dst + y * m->dstPitch, src + y * m->srcPitch, m->WidthInBytes);
	fake.copies_2d++;
	if (m->dstMemoryType == 2)
		fake.bytes_2d_in += m->WidthInBytes * m->Height;
	else
		fake.bytes_2d_out += m->WidthInBytes * m->Height;
	return 0;
}

int cuEventCreate(void **e, unsigned flags)
{
	static int ev;
	(void)flags;
	*e = &ev;
	return 0;
}

int cuEventRecord(void *e, void *stream)
{
	(void)e;
	(void)stream;
	return 0;
}

int cuEventSynchronize(void *e)
{
	(void)e;
	return 0;
}

/* PT_CUDA_PROFILE's timer: a quarter of a millisecond a launch */
int cuEventElapsedTime_v2(float *ms, void *start, void *end)
{
	(void)start;
	(void)end;
	*ms = 0.25f;
	return 0;
}

int cuGetErrorName(int r, const char **name)
{
	*name = r == 2 ? "CUDA_ERROR_OUT_OF_MEMORY" : r == 1 ? "CUDA_ERROR_INVALID_VALUE" : r == 218 ?
		"CUDA_ERROR_INVALID_PTX" : r == 700 ? "CUDA_ERROR_ILLEGAL_ADDRESS" : "CUDA_ERROR_UNKNOWN";
	return 0;
}

int cuGetErrorString(int r, const char **text)
{
	*text = r == 2 ? "out of memory" : "fake error";
	return 0;
}
