/* cpu.c: the CPU target.  One host module, which declares the runtime
 * calls it makes; intermediate stages from pt_rt_alloc / pt_rt_free; a
 * parallel loop becomes
 *   pt_parallel_for(n, worker, &closure)
 * where worker(ctx, lo, hi) unpacks the closure and calls a kernel that
 * runs iterations lo .. hi-1 with noalias array arguments; a short
 * constant outer loop is collapsed with the loop inside it.  Memory is
 * shared, so there is nothing to exchange between stages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/id.h>
#include <isl/val.h>

#include "target.h"

/* A constant loop bound, or false. */
static bool constant(__isl_take isl_ast_expr *e, long *v)
{
	bool is = isl_ast_expr_get_type(e) == isl_ast_expr_int;
	if (is) {
		isl_val *x = isl_ast_expr_get_val(e);
		*v = isl_val_get_num_si(x);
		isl_val_free(x);
	}
	isl_ast_expr_free(e);
	return is;
}

/* A parallel loop of a few iterations (three colour planes, say) gives
 * two threads 2 + 1 of the work.  When its body is one loop whose bounds
 * do not depend on it, that is parallel too (a factored reduction's
 * parts hold serial loops over their blocks) and not the innermost
 * (which stays vectorized), the two run as one flat parallel loop:
 * returns that inner loop, or NULL. */
static __isl_give isl_ast_node *collapsible(__isl_keep isl_ast_node *node)
{
	long lo, hi;
	isl_ast_expr *cond = isl_ast_node_for_get_cond(node);
	isl_ast_expr *ub = isl_ast_expr_op_get_arg(cond, 1);
	isl_ast_expr_free(cond);
	/* both evaluated: constant() takes its expression */
	bool lo_known = constant(isl_ast_node_for_get_init(node), &lo);
	bool hi_known = constant(ub, &hi);
	if (!lo_known || !hi_known || hi - lo > 16)
		return NULL;
	isl_ast_node *inner = isl_ast_node_for_get_body(node);
	if (isl_ast_node_get_type(inner) != isl_ast_node_for || cg_for_innermost(inner) ||
		!(pt_target_marks(inner) & PT_MARK_PARALLEL)) {
		isl_ast_node_free(inner);
		return NULL;
	}
	isl_ast_expr *it = isl_ast_node_for_get_iterator(node);
	isl_id *id = isl_ast_expr_get_id(it);
	isl_ast_expr *a = isl_ast_node_for_get_init(inner), *b = isl_ast_node_for_get_cond(inner);
	const char *name = isl_id_get_name(id);
	bool dep = cg_ast_expr_mentions(a, name) || cg_ast_expr_mentions(b, name);
	isl_ast_expr_free(a);
	isl_ast_expr_free(b);
	isl_id_free(id);
	isl_ast_expr_free(it);
	if (dep)
		inner = isl_ast_node_free(inner);
	return inner;
}

/* Flat iteration k of a collapsed pair: (k / n2, k % n2). */
typedef struct flat_data {
	isl_ast_node *outer, *inner;
	LLVMValueRef init1, init2, n2;
	int64_t inc1, inc2;
} flat_data;

static void flat_step(pt_cg *cg, LLVMValueRef k, void *data)
{
	flat_data *fd = data;
	LLVMBuilderRef b = cg->b;
	LLVMValueRef q = LLVMBuildSDiv(b, k, fd->n2, ""), r = LLVMBuildSRem(b, k, fd->n2, "");
	LLVMValueRef i1 = LLVMBuildNSWAdd(b, fd->init1, LLVMBuildNSWMul(b, q, cg_i64(cg, fd->inc1), ""), "");
	LLVMValueRef i2 = LLVMBuildNSWAdd(b, fd->init2, LLVMBuildNSWMul(b, r, cg_i64(cg, fd->inc2), ""), "");
	cg_bind_iter(cg, fd->outer, i1);
	cg_for_body(cg, fd->inner, i2);
	cg_unbind_iter(cg);
}

void cg_cpu_parallel_for(pt_cg *cg, __isl_keep isl_ast_node *node)
{
	LLVMValueRef init, last;
	int64_t inc;
	cg_loop_bounds(cg, node, &init, &last, &inc);
	LLVMValueRef n = cg_trip_count(cg, init, last, inc);
	flat_data fd = { .outer = node, .inner = collapsible(node), .inc1 = inc };
	int pushed = 1;
	/* the loops' starts travel in the closure as pseudo-iterators */
	cg_push_iter(cg, "\001init", init);
	if (fd.inner) {
		LLVMValueRef init2, last2;
		cg_loop_bounds(cg, fd.inner, &init2, &last2, &fd.inc2);
		LLVMValueRef n2 = cg_trip_count(cg, init2, last2, fd.inc2);
		n = LLVMBuildMul(cg->b, n, n2, "");
		cg_push_iter(cg, "\001init2", init2);
		cg_push_iter(cg, "\001n2", n2);
		pushed = 3;
	}
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
	cg->nest_streams = false;
	unsigned np = (unsigned)c.n;
	if (fd.inner) {
		fd.init1 = cg->iter[cg->niters - 3].v;
		fd.init2 = cg->iter[cg->niters - 2].v;
		fd.n2 = cg->iter[cg->niters - 1].v;
		cg_counted_loop(cg, LLVMGetParam(kernel, np), LLVMGetParam(kernel, np + 1), CG_VEC_DEFAULT, flat_step, &fd);
	} else {
		cg_for_data kd = { node, cg->iter[cg->niters - 1].v, inc };
		cg_counted_loop(cg, LLVMGetParam(kernel, np), LLVMGetParam(kernel, np + 1),
			cg_for_vectorize(cg, node, true, inc), cg_for_step, &kd);
	}
	/* the tiles' nests stream their stores: they are visible before
	 * the threads join (stream.c) */
	if (cg->nest_streams)
		cg_stream_fence(cg);
	cg->nest_streams = false;
	LLVMBuildRetVoid(cg->b);
	cg_work_note(cg, node, worker, kernel);

	LLVMPositionBuilderAtEnd(cg->b, wblock);
	LLVMBuildCall2(cg->b, LLVMGlobalGetValueType(kernel), kernel, args, (unsigned)c.n + 2, "");
	LLVMBuildRetVoid(cg->b);
	free(args);

	cg_closure_restore(cg, &c);
	cg_closure_free(&c);
	while (pushed--)
		cg_unbind_iter(cg);
	isl_ast_node_free(fd.inner);
	cg->fn = outer_fn;
	LLVMPositionBuilderAtEnd(cg->b, resume);
	LLVMTypeRef pp[] = { cg->i64, cg->ptr, cg->ptr };
	LLVMValueRef pargs[] = { n, worker, ctx };
	cg_call(cg, "pt_parallel_for", cg->vd, pp, pargs, 3);
}

/* The runtime functions of libpolytile_rt the CPU code calls. */
static const char *const runtime_calls[] = { "pt_rt_alloc", "pt_rt_free", "pt_parallel_for", "pt_rt_scratch",
	"pt_rt_fail_at" };
enum { NCALLS = sizeof(runtime_calls) / sizeof(runtime_calls[0]) };

/* The host module, with the runtime calls declared: they do not unwind,
 * and pt_rt_alloc's memory aliases nothing else. */
void cg_cpu_module_begin(pt_cg *cg)
{
	cg_add_module(cg, cg->fname, "host");
	LLVMTypeRef alloc_p[] = { cg->i64 }, free_p[] = { cg->ptr }, par_p[] = { cg->i64, cg->ptr, cg->ptr };
	LLVMTypeRef scratch_p[] = { cg->i32, cg->i64 }, fail_p[] = { cg->i32, cg->ptr, cg->i32, cg->ptr };
	LLVMTypeRef types[] = {
		LLVMFunctionType(cg->ptr, alloc_p, 1, 0),
		LLVMFunctionType(cg->vd, free_p, 1, 0),
		LLVMFunctionType(cg->vd, par_p, 3, 0),
		LLVMFunctionType(cg->ptr, scratch_p, 2, 0),
		LLVMFunctionType(cg->vd, fail_p, 4, 0),
	};
	unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
	unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
	for (int i = 0; i < NCALLS; i++) {
		LLVMValueRef f = LLVMAddFunction(cg->mod, runtime_calls[i], types[i]);
		LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(cg->llc, nounwind, 0));
		if (i == 0 || i == 3)   /* pt_rt_alloc, pt_rt_scratch: distinct blocks */
			LLVMAddAttributeAtIndex(f, LLVMAttributeReturnIndex, LLVMCreateEnumAttribute(cg->llc, noalias, 0));
	}
}

/* Drops the runtime declarations nothing calls (a pipeline without
 * intermediate stages or parallel loops), so that the object file
 * references only what it uses. */
void cg_cpu_module_finish(pt_cg *cg)
{
	cg_work_mark_cold(cg);
	for (int i = 0; i < NCALLS; i++) {
		LLVMValueRef f = LLVMGetNamedFunction(cg->mod, runtime_calls[i]);
		if (f && !LLVMGetFirstUse(f))
			LLVMDeleteFunction(f);
	}
}

/* Host memory, wherever the plan put it (the CPU has no other). */
LLVMValueRef cg_cpu_alloc(pt_cg *cg, LLVMValueRef bytes, pt_placement place)
{
	(void)place;
	LLVMTypeRef p[] = { cg->i64 };
	return cg_call(cg, "pt_rt_alloc", cg->ptr, p, &bytes, 1);
}

void cg_cpu_free(pt_cg *cg, LLVMValueRef ptr)
{
	LLVMTypeRef p[] = { cg->ptr };
	cg_call(cg, "pt_rt_free", cg->vd, p, &ptr, 1);
}

/* A thread's scratchpad: reused by every tile the thread runs. */
LLVMValueRef cg_cpu_scratch(pt_cg *cg, int slot, LLVMValueRef bytes, int64_t most)
{
	(void)most;
	LLVMTypeRef p[] = { cg->i32, cg->i64 };
	LLVMValueRef args[] = { LLVMConstInt(cg->i32, (unsigned)slot, 0), bytes };
	return cg_call(cg, "pt_rt_scratch", cg->ptr, p, args, 2);
}

/* A tile: the next tile's image lines prefetched to L2 while this one
 * runs (when its coordinates are known at its start), then its nests,
 * each in a function of its own (nests.c). */
void cg_cpu_tile(pt_cg *cg, const pt_kernel *k, __isl_keep isl_ast_node *body)
{
	if (cg_bind_tile(cg, k, body) && !k->group->tsteps)
		cg_prefetch_next_tile(cg, k->group);
	LLVMBasicBlockRef skip = cg_scratch_begin(cg, k);
	cg_tile_nests(cg, k->group, body);
	cg_scratch_end(cg, k, skip);
}

/* A failed check: pt_rt_fail_at with the statement's point, which the
 * pipeline function returns once every thread is done. */
void cg_cpu_fail(pt_cg *cg, LLVMValueRef bad, int code, const char *what, const LLVMValueRef *pt, int n)
{
	LLVMBasicBlockRef fail = cg_block(cg, "rt.fail"), ok = cg_block(cg, "rt.ok");
	LLVMBuildCondBr(cg->b, bad, fail, ok);
	LLVMPositionBuilderAtEnd(cg->b, fail);
	LLVMValueRef point = cg_entry_alloca(cg, LLVMArrayType(cg->i64, (unsigned)(n > 0 ? n : 1)));
	for (int d = 0; d < n; d++) {
		LLVMValueRef idx[] = { cg_i64(cg, 0), cg_i64(cg, d) };
		LLVMValueRef v = pt[d] ? pt[d] : cg_i64(cg, 0);
		LLVMBuildStore(cg->b, v, LLVMBuildInBoundsGEP2(cg->b, LLVMArrayType(cg->i64, (unsigned)n), point, idx, 2, ""));
	}
	LLVMValueRef args[] = { LLVMConstInt(cg->i32, (unsigned long long)(int64_t)code, 1),
		LLVMBuildGlobalStringPtr(cg->b, what, "rt.what"), LLVMConstInt(cg->i32, (unsigned)n, 0), point };
	LLVMTypeRef p[] = { cg->i32, cg->ptr, cg->i32, cg->ptr };
	cg_call(cg, "pt_rt_fail_at", cg->vd, p, args, 4);
	LLVMBuildBr(cg->b, ok);
	LLVMPositionBuilderAtEnd(cg->b, ok);
}

const pt_target pt_target_cpu = {
	.name = "cpu",
	.placement = PT_PLACE_HOST,
	.wide_table_loads = true,
	.narrow_gathers = true,
	.stream_stores = true,
	.strip_scatters = true,
	.split_objects = true,
	.module_begin = cg_cpu_module_begin,
	.module_finish = cg_cpu_module_finish,
	.alloc = cg_cpu_alloc,
	.free = cg_cpu_free,
	.scratch = cg_cpu_scratch,
	.exchange = NULL,       /* one shared memory */
	.parallel_for = cg_cpu_parallel_for,
	.tile = cg_cpu_tile,
	.math = NULL,           /* LLVM's intrinsics and libm */
	.fail = cg_cpu_fail,
};
