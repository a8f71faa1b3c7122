/* parallel.c: the parallel-for that generated code calls, on the OpenMP
 * runtime.  Loops are split into one contiguous block per thread (the
 * naive schedule's iterations cost the same), which keeps each thread's
 * rows together in cache. */
#define _DEFAULT_SOURCE     /* MAP_ANONYMOUS, madvise */
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "pt_runtime.h"

void pt_set_num_threads(int n)
{
	if (n > 0)
		omp_set_num_threads(n);
}

int pt_get_num_threads(void)
{
	return omp_get_max_threads();
}

void pt_parallel_for(int64_t n, void (*body)(void *ctx, int64_t lo, int64_t hi), void *ctx)
{
	if (n <= 0)
		return;
	int nt = omp_get_max_threads();
	if (nt <= 1 || n == 1 || omp_in_parallel()) {
		body(ctx, 0, n);
		return;
	}
	if ((int64_t)nt > n)
		nt = (int)n;
#pragma omp parallel num_threads(nt)
	{
		int64_t t = omp_get_thread_num(), k = omp_get_num_threads();
		int64_t lo = n / k * t + (t < n % k ? t : n % k);
		int64_t hi = lo + n / k + (t < n % k ? 1 : 0);
		if (lo < hi)
			body(ctx, lo, hi);
	}
}

/* Intermediate buffers.  Large ones are fresh anonymous mappings aligned to
 * 2 MiB and advised as huge pages: zero without a memset (the kernel
 * zeroes pages at first touch, inside the parallel loops) and with 512x
 * fewer page faults.  A header before the returned pointer says how to
 * free it. */
#define RT_HUGE ((size_t)2 << 20)
#define RT_HEADER 64

typedef struct rt_header {
	void *base;
	size_t len;     /* 0: from calloc */
} rt_header;

void *pt_rt_alloc(int64_t bytes)
{
	if (bytes < 0 || (uint64_t)bytes > SIZE_MAX / 4)
		return NULL;
	size_t n = (size_t)bytes;
	if (n < RT_HUGE) {
		char *p = calloc(1, n + RT_HEADER);
		if (!p)
			return NULL;
		((rt_header *)p)->base = p;
		((rt_header *)p)->len = 0;
		return p + RT_HEADER;
	}
	size_t len = n + 2 * RT_HUGE;
	char *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		return NULL;
	uintptr_t a = ((uintptr_t)base + RT_HEADER + RT_HUGE - 1) & ~(uintptr_t)(RT_HUGE - 1);
	char *p = (char *)a;
#ifdef MADV_HUGEPAGE
	madvise(p, (n + RT_HUGE - 1) & ~(RT_HUGE - 1), MADV_HUGEPAGE);
#endif
	rt_header *h = (rt_header *)(p - RT_HEADER);
	h->base = base;
	h->len = len;
	return p;
}

void pt_rt_free(void *p)
{
	if (!p)
		return;
	rt_header *h = (rt_header *)((char *)p - RT_HEADER);
	if (h->len)
		munmap(h->base, h->len);
	else
		free(h->base);
}
