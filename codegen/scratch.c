/* scratch.c: the scratchpads of a tiled kernel (poly/kernel.h).  A stage
 * that lives only inside the group's tiles gets, in each tile, a buffer
 * of the kernel's size for it from the target, laid out like a full
 * buffer (the last dim unit-stride); its element 0 is the widened tile's
 * first point, so indices are moved by that origin.  A stage whose
 * readers all run in its own fused nest (statements.c) and read it at
 * their own point needs no buffer: one scalar, which LLVM keeps in a
 * register (harris's Ix, Iy and box sums). */
#include "cg.h"
#include "target.h"

/* Extent of a scratchpad in stage dim d: the kernel's (the stage's
 * points in the widened tile along a tiled dim), the domain box along
 * any other. */
static LLVMValueRef extent(pt_cg *cg, const pt_stage *s, const pt_kernel_scratch *ks, int d)
{
	int64_t n = ks->extent[d];
	return n >= 0 ? cg_i64(cg, n) : cg_box_extent(cg, s, d);
}

LLVMBasicBlockRef cg_scratch_begin(pt_cg *cg, const pt_kernel *k)
{
	const pt_group *g = k->group;
	LLVMValueRef none = NULL;   /* some scratchpad is NULL */
	for (int j = 0; j < k->nscratch; j++) {
		const pt_kernel_scratch *ks = &k->scratch[j];
		const pt_stage *s = ks->stage;
		int i = ks->si;
		cg_array *a = &cg->stage[s->id];
		a->ndim = s->ndim;
		a->type = s->type;
		a->group = g;
		a->si = i;
		a->scalar = ks->scalar;
		if (a->scalar) {
			a->ptr = cg_entry_alloca(cg, cg_type(cg, s->type));
			continue;
		}
		LLVMValueRef count = cg_i64(cg, 1);
		for (int d = s->ndim - 1; d >= 0; d--) {
			if (d < s->ndim - 1)
				a->stride[d] = count;
			count = LLVMBuildMul(cg->b, count, extent(cg, s, ks, d), "");
		}
		LLVMValueRef bytes = LLVMBuildMul(cg->b, count, cg_i64(cg, (int64_t)pt_type_size((pt_type)s->type)), "");
		if (!cg->target->scratch) {
			a->ptr = LLVMConstPointerNull(cg->ptr);
			continue;
		}
		a->ptr = cg->target->scratch(cg, i, bytes);
		LLVMValueRef null = LLVMBuildIsNull(cg->b, a->ptr, "");
		none = none ? LLVMBuildOr(cg->b, none, null, "") : null;
	}
	if (!none)
		return NULL;
	/* a scratchpad the runtime could not allocate: it recorded
	 * PT_ERR_NOMEM, which the pipeline function returns; the tile is
	 * skipped */
	LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(cg->b));
	LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(cg->llc, fn, "tile.run");
	LLVMBasicBlockRef skip = LLVMAppendBasicBlockInContext(cg->llc, fn, "tile.skip");
	LLVMBuildCondBr(cg->b, none, skip, run);
	LLVMPositionBuilderAtEnd(cg->b, run);
	return skip;
}

/* The scratchpads' values belong to the function that bound them (the
 * tile loop's worker): nothing outside may capture them. */
void cg_scratch_end(pt_cg *cg, const pt_kernel *k, LLVMBasicBlockRef skip)
{
	if (skip) {
		LLVMMoveBasicBlockAfter(skip, LLVMGetInsertBlock(cg->b));
		LLVMBuildBr(cg->b, skip);
		LLVMPositionBuilderAtEnd(cg->b, skip);
	}
	for (int j = 0; j < k->nscratch; j++) {
		cg->stage[k->scratch[j].stage->id].ptr = NULL;
		cg->stage[k->scratch[j].stage->id].scalar = false;
	}
}
