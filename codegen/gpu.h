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

/* The target's parallel_for (every outermost piece of the schedule, with
 * launch_all) and tile hooks over a flavour. */
void cg_gpu_launch(pt_cg *cg, __isl_keep isl_ast_node *node, const cg_gpu_flavour *fl);
void cg_gpu_tile(pt_cg *cg, const pt_kernel *k, __isl_keep isl_ast_node *body, const cg_gpu_flavour *fl);

#endif
