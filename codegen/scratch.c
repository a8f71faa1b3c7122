/* scratch.c: the scratchpads of a tiled kernel (poly/kernel.h).  A stage
 * that lives only inside the group's tiles gets, in each tile, a buffer
 * of the kernel's size for it from the target, laid out like a full
 * buffer (the last dim unit-stride); its element 0 is the widened tile's
 * first point clipped to the domain, so indices are moved by that
 * origin.  A stage whose
 * readers all run in its own fused nest (statements.c) and read it at
 * their own point needs no buffer: one scalar, which LLVM keeps in a
 * register (harris's Ix, Iy and box sums). */
#include <stdint.h>

#include "cg.h"
#include "target.h"

/* Extent of a scratchpad in stage dim d: along a tiled dim, the
 * stage's points in the widened tile (the kernel's size), along a
 * clipped one (every tiled dim but the last: pt_group_scratch_clipped)
 * no more than the domain's span, so that a tile far larger than the image (a
 * tuner's candidate, a user's --tile) asks for the image's points, not
 * the tile's; the origin is clipped to the domain's first point
 * (cg_scratch_origin), which keeps every index of the tile's points in
 * [0, min(tile, span)).  The domain box along any other dim. */
static LLVMValueRef extent(pt_cg *cg, const pt_group *g, const pt_stage *s, const pt_kernel_scratch *ks, int d)
{
	int64_t n = ks->extent[d];
	if (n < 0)
		return cg_box_extent(cg, s, d);
	if (!pt_group_scratch_clipped(g, ks->si, d))
		return cg_i64(cg, n);
	LLVMValueRef span = LLVMBuildNSWAdd(cg->b, LLVMBuildNSWSub(cg->b, cg_param_expr(cg, s->dom[d].hi),
		cg_param_expr(cg, s->dom[d].lo), ""), cg_i64(cg, 1), "");
	LLVMValueRef args[] = { cg_i64(cg, n), span };
	LLVMValueRef e = cg_call_intrinsic(cg, "llvm.smin", cg->i64, args, 2);
	LLVMValueRef one[] = { e, cg_i64(cg, 1) };   /* an empty domain runs no point */
	return cg_call_intrinsic(cg, "llvm.smax", cg->i64, one, 2);
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
		if (g->tsteps) {
			/* time tiling: the full buffer kept aside for the
			 * phases that read or write it (stmt.c), two steps
			 * here */
			cg->tt_full_buf = *a;
			cg->tt_full = &cg->tt_full_buf;
			*a = (cg_array){ .fold = 2 };
		}
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
		int64_t most = (int64_t)pt_type_size((pt_type)s->type);
		for (int d = s->ndim - 1; d >= 0; d--) {
			if (d < s->ndim - 1)
				a->stride[d] = count;
			LLVMValueRef e = extent(cg, g, s, ks, d);
			count = LLVMBuildMul(cg->b, count, e, "");
			/* clipping only shrinks the kernel's size */
			int64_t n = ks->extent[d] >= 0 ? ks->extent[d] : LLVMIsAConstantInt(e) ? LLVMConstIntGetSExtValue(e) : -1;
			most = most < 0 || n < 0 || n > INT64_MAX / 2 / most ? -1 : most * n;
		}
		LLVMValueRef bytes = LLVMBuildMul(cg->b, count, cg_i64(cg, (int64_t)pt_type_size((pt_type)s->type)), "");
		if (!cg->target->scratch) {
			a->ptr = LLVMConstPointerNull(cg->ptr);
			continue;
		}
		a->ptr = cg->target->scratch(cg, i, bytes, most);
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
		if (k->group->tsteps) {
			cg->stage[k->scratch[j].stage->id] = cg->tt_full_buf;
			cg->tt_full = NULL;
		}
	}
}
