/* gpu.h: the GPU mapping (gpu.c) and what its two users, the CUDA
 * target and its emulation (cuda_emu.c), each provide: where a kernel's
 * code goes, how it is launched, a block's barrier and its shared
 * memory. */
#ifndef PT_CODEGEN_GPU_H
#define PT_CODEGEN_GPU_H

#include "target.h"
#include "pt_runtime.h"

/* One kernel being built. */
typedef struct cg_gpu_kernel {
	LLVMValueRef fn;            /* the kernel: closure values, then block, tx, ty */
	LLVMValueRef block, tx, ty; /* its block index (i64), thread indices (i32) */
	LLVMBasicBlockRef resume;   /* where the host's code goes on */
	int barriers;               /* barriers emitted in it */
	int nparams;                /* the closure values it takes */
	/* the flavour's own: the closure packed on the host; the emulation's
	 * worker; CUDA's array of pointers to the closure's values */
	LLVMValueRef ctx, worker, params;
	LLVMTypeRef sty;
	/* set by launch: what names the launch to the runtime (a streamed
	 * run's pt_gpu_stream.launch) */
	LLVMValueRef id;
} cg_gpu_kernel;

typedef struct cg_gpu_flavour {
	/* On the host, before the launch: starts k->fn (with
	 * cg_closure_function, which binds the closure to its params) and
	 * leaves the builder in it; sets k->resume to the host's block. */
	void (*kernel_begin)(pt_cg *cg, cg_closure *c, const char *name, cg_gpu_kernel *k);
	/* Back on the host: launches blocks (an i64) of bd[0] x bd[1]
	 * threads of the finished kernel. */
	void (*launch)(pt_cg *cg, cg_gpu_kernel *k, LLVMValueRef blocks, const int64_t *bd);
	/* In a kernel: every thread of the block waits for the others. */
	void (*barrier)(pt_cg *cg);
} cg_gpu_flavour;

/* Reduction stages privatized in a launch of atomic updates
 * (gpu_reduce.c): each one's copy in the block's shared memory. */
#define CG_GPU_PRIVATE_MAX 4
typedef struct cg_gpu_private {
	int n;
	const pt_stage *stage[CG_GPU_PRIVATE_MAX];
	int64_t count[CG_GPU_PRIVATE_MAX];
	LLVMValueRef global[CG_GPU_PRIVATE_MAX];   /* the stage's array in device memory */
} cg_gpu_private;

/* In the kernel of a launch of atomic updates (node), at its start:
 * when every stage it updates is a 1-D one with constant bounds of at
 * most 16 KiB and the launch has no tiles, gives each a copy in shared
 * memory set to the reduction's identity by the block's threads (tid:
 * a thread's linear index, of nthreads) and points the stage's array at
 * it; false (nothing emitted) otherwise.  The caller puts a barrier
 * after it, and one before cg_gpu_private_end, which merges each copy
 * into the stage with an atomic per element. */
bool cg_gpu_private_begin(pt_cg *cg, __isl_keep isl_ast_node *node, LLVMValueRef tid, int64_t nthreads,
	cg_gpu_private *pv);
void cg_gpu_private_end(pt_cg *cg, LLVMValueRef tid, int64_t nthreads, cg_gpu_private *pv);

/* The target's parallel_for (every outermost piece of the schedule, with
 * launch_all) and tile hooks over a flavour. */
void cg_gpu_launch(pt_cg *cg, __isl_keep isl_ast_node *node, const cg_gpu_flavour *fl);
void cg_gpu_tile(pt_cg *cg, const pt_kernel *k, __isl_keep isl_ast_node *body, const cg_gpu_flavour *fl);

#endif
