/* scratch.c: the scratchpads of tiled groups (pt_rt_scratch), per
 * thread: the stages a tiled group keeps inside its tiles.  Each thread
 * keeps one block per slot and grows it when a larger one is asked for,
 * so the tiles a thread runs (and later calls) reuse the same memory,
 * which stays in that core's cache. */
#include <stdint.h>
#include <stdlib.h>

#include "pt_runtime.h"

#define RT_SLOTS PT_RT_SCRATCH_SLOTS   /* the grouping's limit too (greedy.c) */

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
	scratch.p[slot] = NULL;
	scratch.cap[slot] = 0;
	/* inside a tile no code can be returned: the pipeline function
	 * returns the recorded one and the generated code skips the tile.
	 * More than this process may use is refused before malloc, which
	 * overcommit would let succeed until the pages are touched. */
	if ((uint64_t)bytes > SIZE_MAX / 2 || bytes > pt_memory_available(NULL)) {
		pt_rt_fail(PT_ERR_NOMEM);
		return NULL;
	}
	n = (n + 63) & ~(size_t)63;
	scratch.p[slot] = aligned_alloc(64, n);
	if (!scratch.p[slot]) {
		pt_rt_fail(PT_ERR_NOMEM);
		return NULL;
	}
	scratch.cap[slot] = n;
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
