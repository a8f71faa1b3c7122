/* parallel.c: the parallel-for that generated code calls, on the OpenMP
 * runtime.  Loops are split into one contiguous block per thread (the
 * naive schedule's iterations cost the same), which keeps each thread's
 * rows together in cache. */
#define _DEFAULT_SOURCE     /* MAP_ANONYMOUS, madvise */
#include <omp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Intermediate buffers.  They are not zeroed: the generated code writes
 * every point it later reads (reading a point no case defines is an error
 * the interpreter reports).  Large ones are anonymous mappings aligned to
 * 2 MiB and advised as huge pages (512x fewer page faults); freed ones are
 * kept in a small cache for the next call, the way malloc keeps small
 * blocks, so that a pipeline run again and again (video, tuning) does not
 * pay the kernel's page zeroing each time.  The cache keeps the blocks
 * freed last: a freed block that does not fit evicts the oldest, so a
 * process that ran other pipelines before still keeps the one it runs
 * now (keeping the old ones instead cost heat3d's folded 1 GiB buffer
 * its page faults on every call, 1.5 s against 0.9).  A header before
 * the returned pointer says how to free it. */
#define RT_HUGE ((size_t)2 << 20)
#define RT_HEADER 64
#define RT_CACHE 32
#define RT_CACHE_BYTES ((size_t)2 << 30)

typedef struct rt_header {
	void *base;
	size_t len;     /* 0: from malloc */
	size_t usable;  /* bytes from the returned pointer */
} rt_header;

static struct {
	char *p[RT_CACHE];
	size_t bytes;
	int n;
} cache;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

/* Removes block i from the cache (kept oldest first); cache_lock held. */
static char *cache_take(int i)
{
	char *p = cache.p[i];
	cache.bytes -= ((rt_header *)(p - RT_HEADER))->len;
	memmove(&cache.p[i], &cache.p[i + 1], (size_t)(cache.n - i - 1) * sizeof(cache.p[0]));
	cache.n--;
	return p;
}

/* The smallest cached mapping with room for n bytes, or NULL. */
static char *from_cache(size_t n)
{
	pthread_mutex_lock(&cache_lock);
	int best = -1;
	for (int i = 0; i < cache.n; i++) {
		size_t u = ((rt_header *)(cache.p[i] - RT_HEADER))->usable;
		if (u >= n && u <= 2 * n + RT_HUGE &&
		    (best < 0 || u < ((rt_header *)(cache.p[best] - RT_HEADER))->usable))
			best = i;
	}
	char *p = best >= 0 ? cache_take(best) : NULL;
	pthread_mutex_unlock(&cache_lock);
	return p;
}

void *pt_rt_alloc(int64_t bytes)
{
	if (bytes < 0 || (uint64_t)bytes > SIZE_MAX / 4)
		return NULL;
	size_t n = (size_t)bytes;
	if (n < RT_HUGE) {
		char *p = malloc(n + RT_HEADER);
		if (!p)
			return NULL;
		((rt_header *)p)->base = p;
		((rt_header *)p)->len = 0;
		((rt_header *)p)->usable = n;
		return p + RT_HEADER;
	}
	char *p = from_cache(n);
	if (p)
		return p;
	size_t len = n + 2 * RT_HUGE;
	char *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		return NULL;
	uintptr_t a = ((uintptr_t)base + RT_HEADER + RT_HUGE - 1) & ~(uintptr_t)(RT_HUGE - 1);
	p = (char *)a;
#ifdef MADV_HUGEPAGE
	madvise(p, (n + RT_HUGE - 1) & ~(RT_HUGE - 1), MADV_HUGEPAGE);
#endif
	rt_header *h = (rt_header *)(p - RT_HEADER);
	h->base = base;
	h->len = len;
	h->usable = len - (size_t)(p - base);
	return p;
}

void pt_rt_free(void *ptr)
{
	if (!ptr)
		return;
	char *p = ptr;
	rt_header *h = (rt_header *)(p - RT_HEADER);
	if (!h->len) {
		free(h->base);
		return;
	}
	if (h->len > RT_CACHE_BYTES) {
		munmap(h->base, h->len);
		return;
	}
	/* evict the oldest until p fits; unmapped outside the lock */
	char *old[RT_CACHE];
	int nold = 0;
	pthread_mutex_lock(&cache_lock);
	while (cache.n == RT_CACHE || cache.bytes + h->len > RT_CACHE_BYTES)
		old[nold++] = cache_take(0);
	cache.p[cache.n++] = p;
	cache.bytes += h->len;
	pthread_mutex_unlock(&cache_lock);
	for (int i = 0; i < nold; i++) {
		rt_header *o = (rt_header *)(old[i] - RT_HEADER);
		munmap(o->base, o->len);
	}
}

void pt_rt_release_cache(void)
{
	pthread_mutex_lock(&cache_lock);
	for (int i = 0; i < cache.n; i++) {
		rt_header *h = (rt_header *)(cache.p[i] - RT_HEADER);
		munmap(h->base, h->len);
	}
	cache.n = 0;
	cache.bytes = 0;
	pthread_mutex_unlock(&cache_lock);
}

/* Scratchpads: per-thread buffers for the stages a tiled group keeps
 * inside its tiles.  Each thread keeps one block per slot and grows it
 * when a larger one is asked for, so the tiles a thread runs (and later
 * calls) reuse the same memory, which stays in that core's cache. */
#define RT_SLOTS PT_RT_SCRATCH_SLOTS

static _Thread_local struct {
	void *p[RT_SLOTS];
	size_t cap[RT_SLOTS];
} scratch;

void *pt_rt_scratch(int32_t slot, int64_t bytes)
{
	if (slot < 0 || slot >= RT_SLOTS || bytes < 0)
		return NULL;
	size_t n = bytes > 0 ? (size_t)bytes : 1;
	if (scratch.cap[slot] >= n)
		return scratch.p[slot];
	free(scratch.p[slot]);
	n = (n + 63) & ~(size_t)63;
	scratch.p[slot] = aligned_alloc(64, n);
	scratch.cap[slot] = scratch.p[slot] ? n : 0;
	if (!scratch.p[slot]) {
		/* inside a tile nothing can be returned to the caller: say what
		 * ran out rather than fault on a null pointer */
		fprintf(stderr, "polytile: out of memory for a scratchpad of %lld bytes; "
			"use smaller tiles (--tile)\n", (long long)bytes);
		abort();
	}
	return scratch.p[slot];
}

void pt_rt_release_scratch(void)
{
	for (int i = 0; i < RT_SLOTS; i++) {
		free(scratch.p[i]);
		scratch.p[i] = NULL;
		scratch.cap[i] = 0;
	}
}
