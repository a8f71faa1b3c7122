/* gpu_reduce.c: privatized reductions in a GPU launch whose statements
 * are all atomic updates (gpu.c): a reduction stage small enough (a
 * histogram's bins) gets a copy in the block's shared memory, set to the
 * reduction's identity by the block's threads, updated there with
 * shared-memory atomics, and merged into the stage in device memory with
 * one atomic per bin and block at the end.  Histogram of 6400 x 6400:
 * 41 million contended updates of 256 words in device memory become
 * shared-memory ones, and 256 per block in device memory. */
#include "gpu.h"

#include <isl/id.h>

/* A privatized stage: at most this many bytes of shared memory. */
#define PRIVATE_BYTES (16 * 1024)

typedef struct scan {
	const pt_cg *cg;
	cg_gpu_private *pv;
	/* none privatized: a mark node (tiles, whose scratchpads share the
	 * block's memory), or more stages than CG_GPU_PRIVATE_MAX */
	bool refuse;
} scan;

static isl_bool note(__isl_keep isl_ast_node *node, void *user)
{
	scan *sc = user;
	if (isl_ast_node_get_type(node) == isl_ast_node_mark)
		sc->refuse = true;
	if (isl_ast_node_get_type(node) != isl_ast_node_user)
		return isl_bool_true;
	const pt_stmt *st = cg_user_stmt(sc->cg, node);
	cg_gpu_private *pv = sc->pv;
	int i = 0;
	while (i < pv->n && pv->stage[i] != st->stage)
		i++;
	if (i == pv->n && pv->n < CG_GPU_PRIVATE_MAX)
		pv->stage[pv->n++] = st->stage;
	else if (i == pv->n)
		sc->refuse = true;
	return isl_bool_true;
}

/* The stage's points when it is 1-D with constant bounds and small, its
 * buffer a plain one; else 0. */
static int64_t points(pt_cg *cg, const pt_stage *s)
{
	const cg_array *a = &cg->stage[s->id];
	if (s->ndim != 1 || a->fold || a->group || a->scalar || a->mask)
		return 0;
	LLVMValueRef lo = cg_param_expr(cg, s->dom[0].lo), hi = cg_param_expr(cg, s->dom[0].hi);
	if (!LLVMIsAConstantInt(lo) || !LLVMIsAConstantInt(hi))
		return 0;
	int64_t n = LLVMConstIntGetSExtValue(hi) - LLVMConstIntGetSExtValue(lo) + 1;
	return n > 0 && n * (int64_t)pt_type_size((pt_type)s->type) <= PRIVATE_BYTES ? n : 0;
}

/* for (i = tid; i < n; i += nthreads) what(i): the block's threads over
 * n elements; returns i's value in the body through *at (the builder
 * left in the body) and the exit block. */
static LLVMBasicBlockRef strided_begin(pt_cg *cg, LLVMValueRef tid, int64_t n, LLVMValueRef *at,
	LLVMBasicBlockRef *latch)
{
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(cg->b), head = cg_block(cg, "priv.head");
	LLVMBasicBlockRef body = cg_block(cg, "priv.body"), done = cg_block(cg, "priv.done");
	*latch = cg_block(cg, "priv.latch");
	LLVMBuildBr(cg->b, head);
	LLVMPositionBuilderAtEnd(cg->b, head);
	LLVMValueRef i = LLVMBuildPhi(cg->b, cg->i64, "priv.i");
	LLVMAddIncoming(i, &tid, &pre, 1);
	LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntSLT, i, cg_i64(cg, n), ""), body, done);
	LLVMPositionBuilderAtEnd(cg->b, body);
	*at = i;
	return done;
}

static void strided_end(pt_cg *cg, LLVMValueRef i, int64_t nthreads, LLVMBasicBlockRef latch, LLVMBasicBlockRef done)
{
	LLVMBuildBr(cg->b, latch);
	LLVMPositionBuilderAtEnd(cg->b, latch);
	LLVMValueRef next = LLVMBuildNSWAdd(cg->b, i, cg_i64(cg, nthreads), "");
	LLVMBasicBlockRef from = LLVMGetInsertBlock(cg->b);
	LLVMAddIncoming(i, &next, &from, 1);
	LLVMBuildBr(cg->b, LLVMGetInstructionParent(i));
	LLVMPositionBuilderAtEnd(cg->b, done);
}

bool cg_gpu_private_begin(pt_cg *cg, __isl_keep isl_ast_node *node, LLVMValueRef tid, int64_t nthreads,
	cg_gpu_private *pv)
{
	pv->n = 0;
	scan sc = { .cg = cg, .pv = pv };
	isl_ast_node_foreach_descendant_top_down(node, &note, &sc);
	if (sc.refuse || !cg->target->scratch)
		pv->n = 0;
	for (int k = 0; k < pv->n; k++)
		if (!(pv->count[k] = points(cg, pv->stage[k])))
			pv->n = 0;
	for (int k = 0; k < pv->n; k++) {
		const pt_stage *s = pv->stage[k];
		LLVMTypeRef t = cg_type(cg, s->type);
		int64_t bytes = pv->count[k] * (int64_t)pt_type_size((pt_type)s->type);
		cg_array *a = &cg->stage[s->id];
		pv->global[k] = a->ptr;
		a->ptr = cg->target->scratch(cg, PT_RT_SCRATCH_SLOTS - 1 - k, cg_i64(cg, bytes), bytes);
		LLVMValueRef i, idx;
		LLVMBasicBlockRef latch, done = strided_begin(cg, tid, pv->count[k], &i, &latch);
		idx = i;
		LLVMBuildStore(cg->b, cg_reduce_identity(cg, s), LLVMBuildInBoundsGEP2(cg->b, t, a->ptr, &idx, 1, ""));
		strided_end(cg, i, nthreads, latch, done);
	}
	return pv->n > 0;
}

void cg_gpu_private_end(pt_cg *cg, LLVMValueRef tid, int64_t nthreads, cg_gpu_private *pv)
{
	for (int k = 0; k < pv->n; k++) {
		const pt_stage *s = pv->stage[k];
		LLVMTypeRef t = cg_type(cg, s->type);
		cg_array *a = &cg->stage[s->id];
		LLVMValueRef i, idx;
		LLVMBasicBlockRef latch, done = strided_begin(cg, tid, pv->count[k], &i, &latch);
		idx = i;
		LLVMValueRef v = LLVMBuildLoad2(cg->b, t, LLVMBuildInBoundsGEP2(cg->b, t, a->ptr, &idx, 1, ""), "");
		/* bins this block left at the identity are not merged */
		LLVMBasicBlockRef merge = cg_block(cg, "priv.merge");
		LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntNE, v, cg_reduce_identity(cg, s), ""), merge, latch);
		LLVMPositionBuilderAtEnd(cg->b, merge);
		LLVMBuildAtomicRMW(cg->b, cg_atomic_op(s), LLVMBuildInBoundsGEP2(cg->b, t, pv->global[k], &idx, 1, ""), v,
			LLVMAtomicOrderingMonotonic, 0);
		strided_end(cg, i, nthreads, latch, done);
		a->ptr = pv->global[k];
	}
}
