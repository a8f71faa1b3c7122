/* cpu.c: the CPU target.  A parallel loop becomes
 *   pt_parallel_for(n, worker, &closure)
 * where worker(ctx, lo, hi) unpacks the closure and calls a kernel that
 * runs iterations lo .. hi-1 with noalias array arguments. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target.h"

static void cpu_parallel_for(pt_cg *cg, __isl_keep isl_ast_node *node)
{
	LLVMValueRef init, last;
	int64_t inc;
	cg_loop_bounds(cg, node, &init, &last, &inc);
	LLVMValueRef n = cg_trip_count(cg, init, last, inc);

	/* the loop's start travels in the closure as a pseudo-iterator */
	cg->iter[cg->niters].name = strdup("\001init");
	cg->iter[cg->niters++].v = init;
	cg_closure c;
	cg_closure_capture(cg, &c, node);
	LLVMValueRef outer_fn = cg->fn;
	LLVMTypeRef sty;
	LLVMValueRef ctx = cg_closure_pack(cg, &c, &sty);
	LLVMBasicBlockRef resume = LLVMGetInsertBlock(cg->b);

	char name[64];
	int id = cg->nfuncs++;
	snprintf(name, sizeof(name), "%s.worker%d", cg->fname, id);
	LLVMTypeRef wp[] = { cg->ptr, cg->i64, cg->i64 };
	LLVMTypeRef wty = LLVMFunctionType(cg->vd, wp, 3, 0);
	LLVMValueRef worker = LLVMAddFunction(cg->mod, name, wty);
	LLVMSetLinkage(worker, LLVMInternalLinkage);
	cg->fn = worker;
	LLVMPositionBuilderAtEnd(cg->b, LLVMAppendBasicBlockInContext(cg->llc, worker, "entry"));
	cg_closure_unpack(cg, &c, sty, LLVMGetParam(worker, 0));
	LLVMValueRef *args = malloc(sizeof(*args) * (size_t)(c.n + 2));
	for (int i = 0; i < c.n; i++)
		args[i] = *c.slot[i];
	args[c.n] = LLVMGetParam(worker, 1);
	args[c.n + 1] = LLVMGetParam(worker, 2);
	LLVMBasicBlockRef wblock = LLVMGetInsertBlock(cg->b);

	snprintf(name, sizeof(name), "%s.kernel%d", cg->fname, id);
	LLVMTypeRef extra[] = { cg->i64, cg->i64 };
	LLVMValueRef kernel = cg_closure_function(cg, &c, name, extra, 2);
	cg_for_data kd = { node, cg->iter[cg->niters - 1].v, inc };
	unsigned np = (unsigned)c.n;
	cg_counted_loop(cg, LLVMGetParam(kernel, np), LLVMGetParam(kernel, np + 1),
		inc == 1 && cg_for_innermost(node), cg_for_step, &kd);
	LLVMBuildRetVoid(cg->b);

	LLVMPositionBuilderAtEnd(cg->b, wblock);
	LLVMBuildCall2(cg->b, LLVMGlobalGetValueType(kernel), kernel, args, (unsigned)c.n + 2, "");
	LLVMBuildRetVoid(cg->b);
	free(args);

	cg_closure_restore(cg, &c);
	cg_closure_free(&c);
	free(cg->iter[--cg->niters].name);
	cg->fn = outer_fn;
	LLVMPositionBuilderAtEnd(cg->b, resume);
	LLVMTypeRef pp[] = { cg->i64, cg->ptr, cg->ptr };
	LLVMValueRef pargs[] = { n, worker, ctx };
	cg_call(cg, "pt_parallel_for", cg->vd, pp, pargs, 3);
}

const pt_target pt_target_cpu = {
	.name = "cpu",
	.parallel_for = cpu_parallel_for,
};
