/* block_cache.c: the memory of intermediate stages (pt_rt_alloc). */
#define _DEFAULT_SOURCE     /* MAP_ANONYMOUS, madvise */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pt_runtime.h"

/* Intermediate buffers.  They are not zeroed: the generated code writes
 * every point it later reads (reading a point no case defines is an error
 * the interpreter reports).  Blocks of 64 KiB or more are anonymous
 * mappings, those of 2 MiB or more aligned to 2 MiB and advised as huge
 * pages (512x fewer page faults); freed ones are kept in a small cache for
 * the next call, the way malloc keeps small blocks, so that a pipeline
 * run again and again (video, tuning) does not pay the kernel's page
 * zeroing each time.  From 64 KiB, not 2 MiB: malloc's heap grew and was
 * trimmed by 4 MB on every run of local Laplacian on 2 MPI ranks (its
 * pack buffers and coarse levels), 960 page faults a run, and the run
 * took 74 ms instead of 56.  The cache keeps the blocks
 * freed last: a freed block that does not fit evicts the oldest, so a
 * process that ran other pipelines before still keeps the one it runs
 * now (keeping the old ones instead cost heat3d's folded 1 GiB buffer
 * its page faults on every call, 1.5 s against 0.9).  A header before
 * the returned pointer says how to free it. */
#define RT_HUGE ((size_t)2 << 20)
#define RT_MAPPED ((size_t)64 << 10)
#define RT_HEADER 64
#define RT_CACHE 256
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
		if (u >= n && u <= 2 * n + (n >= RT_HUGE ? RT_HUGE : 0) &&
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
	if (n < RT_MAPPED) {
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
	bool huge = n >= RT_HUGE;
	size_t len = huge ? n + 2 * RT_HUGE : n + RT_HEADER;
	char *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		return NULL;
	p = base + RT_HEADER;   /* 64-byte aligned: base is page aligned */
	if (huge) {
		p = (char *)(((uintptr_t)base + RT_HEADER + RT_HUGE - 1) & ~(uintptr_t)(RT_HUGE - 1));
#ifdef MADV_HUGEPAGE
		madvise(p, (n + RT_HUGE - 1) & ~(RT_HUGE - 1), MADV_HUGEPAGE);
#endif
	}
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
