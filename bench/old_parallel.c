/* old_parallel.c: the runtime's parallel-for before issue 42 (a1ae711:
 * OpenMP, one static block per thread), kept for bench/threads.sh only.
 * Built as a shared object and preloaded (LD_PRELOAD), it replaces the
 * thread pool's pt_parallel_for and the thread count in the same
 * bench_compare binary, so that old and new runtimes time the same
 * generated code in one run. */
#include <omp.h>
#include <stdint.h>

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

int pt_start_threads(void)
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
