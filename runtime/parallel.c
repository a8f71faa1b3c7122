/* parallel.c: the parallel-for that generated code calls, on the OpenMP
 * runtime.  Loops are split into one contiguous block per thread (the
 * naive schedule's iterations cost the same), which keeps each thread's
 * rows together in cache. */
#include <omp.h>
#include <stdlib.h>

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

void *pt_rt_alloc(int64_t bytes)
{
	if (bytes < 0 || (uint64_t)bytes > SIZE_MAX / 2)
		return NULL;
	return calloc(1, bytes ? (size_t)bytes : 1);
}

void pt_rt_free(void *p)
{
	free(p);
}
