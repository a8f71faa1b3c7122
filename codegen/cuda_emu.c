/* cuda_emu.c: the CUDA target's mapping (gpu.c) run on the CPU by the
 * runtime's emulator (runtime/gpu_emu.c), `--backend cuda-emu`: the same
 * grid, blocks, thread loops, shared-memory scratchpads and barriers as
 * on a GPU, in host code, so that tests on machines without one catch a
 * wrong mapping (a missing barrier, two threads on one point) as a
 * mismatch with the interpreter.  A kernel is called once per thread:
 *   worker(ctx, block, tx, ty) unpacks the closure and calls
 *   kernel(closure values..., block, tx, ty)
 * and a launch is pt_gpu_emu_launch(blocks, bdx, bdy, barriers, worker,
 * &closure), barriers the number the kernel has.
 * Buffers stay in host memory, but in a run whose copies stream
 * (copy_plan.c), where each gets an emulated device copy filled with a
 * pattern that only the plan's chunks copy into and out of. */
#include <stdio.h>
#include <stdlib.h>

#include "gpu.h"

static void emu_kernel_begin(pt_cg *cg, cg_closure *c, const char *name, cg_gpu_kernel *k)
{
	k->ctx = cg_closure_pack(cg, c, &k->sty);
	k->resume = LLVMGetInsertBlock(cg->b);
	char wname[80];
	snprintf(wname, sizeof(wname), "%s.worker", name);
	LLVMTypeRef wp[] = { cg->ptr, cg->i64, cg->i32, cg->i32 };
	k->worker = LLVMAddFunction(cg->mod, wname, LLVMFunctionType(cg->vd, wp, 4, 0));
	LLVMSetLinkage(k->worker, LLVMInternalLinkage);
	cg->fn = k->worker;
	LLVMPositionBuilderAtEnd(cg->b, LLVMAppendBasicBlockInContext(cg->llc, k->worker, "entry"));
	cg_closure_unpack(cg, c, k->sty, LLVMGetParam(k->worker, 0));
	int n = c->n;
	LLVMValueRef *args = malloc(sizeof(*args) * (size_t)(n + 3));
	for (int i = 0; i < n; i++)
		args[i] = *c->slot[i];
	for (int i = 0; i < 3; i++)
		args[n + i] = LLVMGetParam(k->worker, (unsigned)i + 1);
	LLVMBasicBlockRef wblock = LLVMGetInsertBlock(cg->b);
	LLVMTypeRef extra[] = { cg->i64, cg->i32, cg->i32 };
	k->fn = cg_closure_function(cg, c, name, extra, 3);
	LLVMBasicBlockRef kblock = LLVMGetInsertBlock(cg->b);
	LLVMPositionBuilderAtEnd(cg->b, wblock);
	LLVMBuildCall2(cg->b, LLVMGlobalGetValueType(k->fn), k->fn, args, (unsigned)n + 3, "");
	LLVMBuildRetVoid(cg->b);
	free(args);
	LLVMPositionBuilderAtEnd(cg->b, kblock);
	cg->fn = k->fn;
	k->block = LLVMGetParam(k->fn, (unsigned)c->n);
	k->tx = LLVMGetParam(k->fn, (unsigned)c->n + 1);
	k->ty = LLVMGetParam(k->fn, (unsigned)c->n + 2);
}

static void emu_launch(pt_cg *cg, cg_gpu_kernel *k, LLVMValueRef blocks, const int64_t *bd)
{
	LLVMTypeRef p[] = { cg->i64, cg->i32, cg->i32, cg->i32, cg->ptr, cg->ptr };
	LLVMValueRef args[] = { blocks, LLVMConstInt(cg->i32, (unsigned long long)bd[0], 0),
		LLVMConstInt(cg->i32, (unsigned long long)bd[1], 0), LLVMConstInt(cg->i32, (unsigned)k->barriers, 0),
		k->worker, k->ctx };
	k->id = k->worker;
	cg_call(cg, "pt_gpu_emu_launch", cg->i32, p, args, 6);
}

/* A call LLVM must not move across control flow that differs between
 * threads (convergent), and that may read and write any memory. */
static void emu_barrier(pt_cg *cg)
{
	LLVMValueRef f = LLVMGetNamedFunction(cg->mod, "pt_gpu_barrier");
	if (!f) {
		f = LLVMAddFunction(cg->mod, "pt_gpu_barrier", LLVMFunctionType(cg->vd, NULL, 0, 0));
		unsigned conv = LLVMGetEnumAttributeKindForName("convergent", 10);
		LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(cg->llc, conv, 0));
	}
	LLVMBuildCall2(cg->b, LLVMGlobalGetValueType(f), f, NULL, 0, "");
}

static const cg_gpu_flavour emu = {
	.kernel_begin = emu_kernel_begin,
	.launch = emu_launch,
	.barrier = emu_barrier,
};

static void emu_parallel_for(pt_cg *cg, __isl_keep isl_ast_node *node)
{
	cg_gpu_launch(cg, node, &emu);
}

static void emu_tile(pt_cg *cg, const pt_kernel *k, __isl_keep isl_ast_node *body)
{
	cg_gpu_tile(cg, k, body, &emu);
}

/* A scratchpad: the block's shared memory. */
static LLVMValueRef emu_scratch(pt_cg *cg, int slot, LLVMValueRef bytes, int64_t most)
{
	(void)most;
	LLVMTypeRef p[] = { cg->i32, cg->i64 };
	LLVMValueRef args[] = { LLVMConstInt(cg->i32, (unsigned)slot, 0), bytes };
	return cg_call(cg, "pt_gpu_shared", cg->ptr, p, args, 2);
}

static LLVMValueRef emu_bind(pt_cg *cg, LLVMValueRef buf, int role, LLVMValueRef box)
{
	(void)role, (void)box;
	LLVMTypeRef p[] = { cg->ptr };
	return LLVMBuildIntToPtr(cg->b, cg_call(cg, "pt_gpu_emu_bind_streamed", cg->i64, p, &buf, 1), cg->ptr, "");
}

static void emu_unbind(pt_cg *cg, LLVMValueRef buf, bool output, LLVMValueRef dev, LLVMValueRef box)
{
	(void)output, (void)box;
	LLVMTypeRef p[] = { cg->ptr, cg->i64 };
	LLVMValueRef args[] = { buf, LLVMBuildPtrToInt(cg->b, dev, cg->i64, "") };
	cg_call(cg, "pt_gpu_emu_unbind_streamed", cg->vd, p, args, 2);
}

static void emu_stream(pt_cg *cg, LLVMValueRef plan)
{
	LLVMTypeRef p[] = { cg->ptr };
	cg_call(cg, "pt_gpu_emu_stream", cg->vd, p, &plan, 1);
}

const pt_target pt_target_cuda_emu = {
	.name = "cuda-emu",
	.placement = PT_PLACE_HOST,
	.launch_all = true,
	.alloc = cg_cpu_alloc,
	.free = cg_cpu_free,
	.bind = emu_bind,
	.unbind = emu_unbind,
	.stream = emu_stream,
	.bind_streamed_only = true,
	.scratch = emu_scratch,
	.parallel_for = emu_parallel_for,
	.tile = emu_tile,
	.barrier = emu_barrier,
	.fail = cg_cpu_fail,
};
