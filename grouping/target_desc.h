/* target_desc.h: what the grouping's merge tests and the tile model know
 * of the target, asked through the functions below so that a GPU's
 * description can plug in beside the CPU's (issue 42, item 4).
 *
 * The CPU case is pt_machine (driver/machine_facts.c fills it; codegen
 * reads it as it is); the GPU case is pt_target_desc_gpu's, for the
 * CUDA backends (driver/passes.c). */
#ifndef PT_GROUPING_TARGET_DESC_H
#define PT_GROUPING_TARGET_DESC_H

#include <stdint.h>

#include "pt_runtime.h"
#include "tile_model.h"

typedef enum pt_target_kind { PT_TARGET_KIND_CPU, PT_TARGET_KIND_GPU } pt_target_kind;

typedef struct pt_target_desc {
	pt_target_kind kind;
	pt_machine cpu;                     /* PT_TARGET_KIND_CPU */
	struct {
		int64_t shared_per_block;   /* shared memory bytes a block may use */
		int max_threads_per_block;
		int sms;                    /* streaming multiprocessors */
		int vector_bytes;           /* a warp's access of 32 lanes: 128 */
		/* what bounds the blocks a multiprocessor runs at once, and the
		 * rates the tile model (gpu_tile.c) weighs */
		int64_t shared_per_sm;
		int threads_per_sm, blocks_per_sm, regs_per_sm;
		double bandwidth;           /* device memory, bytes/s */
		int64_t l2_bytes;           /* the L2 cache */
		double l2_bandwidth;        /* its bytes/s */
		double points_per_s;        /* stage points one multiprocessor computes a second */
		const char *source;         /* where the figures came from */
	} gpu;                              /* PT_TARGET_KIND_GPU */
} pt_target_desc;

/* m as a CPU description in *buf; NULL when m is NULL (no tile model). */
static inline const pt_target_desc *pt_target_desc_cpu(const pt_machine *m, pt_target_desc *buf)
{
	if (!m)
		return NULL;
	*buf = (pt_target_desc){ .kind = PT_TARGET_KIND_CPU, .cpu = *m };
	return buf;
}

/* The GPU the CUDA target plans for (and its emulation, whose launches
 * are checked against the same limits): an H100 (sm_90), 132 SMs, a
 * block's shared memory without opting in to more (48 KiB, what a
 * launch gets by default), 1,024 threads per block; per SM 228 KiB of
 * shared memory, 2,048 threads, 32 blocks, 64 Ki registers; 3.35 TB/s;
 * 50 MiB of L2 at about twice that (7 TB/s, a microbenchmark's figure,
 * not the data sheet's).  $PT_GPU changes any of them (gpu_tile.c:
 * pt_target_desc_gpu_env). */
static inline const pt_target_desc *pt_target_desc_gpu(pt_target_desc *buf)
{
	*buf = (pt_target_desc){ .kind = PT_TARGET_KIND_GPU,
		.gpu = { .shared_per_block = PT_GPU_SHARED_BYTES, .max_threads_per_block = 1024, .sms = 132,
			.vector_bytes = 128, .shared_per_sm = 228 << 10, .threads_per_sm = 2048, .blocks_per_sm = 32,
			.regs_per_sm = 65536, .bandwidth = 3.35e12, .l2_bytes = 50 << 20, .l2_bandwidth = 7e12,
			.points_per_s = 2.0e10, .source = "an H100's figures" } };
	return buf;
}

/* The memory a tile's scratchpads are best kept in whole: L1 per core;
 * a block's shared memory. */
static inline int64_t pt_target_near_bytes(const pt_target_desc *t)
{
	return t->kind == PT_TARGET_KIND_GPU ? t->gpu.shared_per_block : t->cpu.l1;
}

/* The memory a tile's scratchpads must fit: L2 per core; a block's
 * shared memory. */
static inline int64_t pt_target_tile_bytes(const pt_target_desc *t)
{
	return t->kind == PT_TARGET_KIND_GPU ? t->gpu.shared_per_block : t->cpu.l2;
}

/* How many tiles run at once: threads; SMs. */
static inline int pt_target_workers(const pt_target_desc *t)
{
	int n = t->kind == PT_TARGET_KIND_GPU ? t->gpu.sms : t->cpu.threads;
	return n > 0 ? n : 1;
}

/* The widest access one instruction makes: a vector register; a warp's. */
static inline int pt_target_vector_bytes(const pt_target_desc *t)
{
	return t->kind == PT_TARGET_KIND_GPU ? t->gpu.vector_bytes : t->cpu.vector_bytes;
}

#endif
