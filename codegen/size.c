/* size.c: sizes computed by generated code (extents, element counts,
 * bytes, strides) in i64 with every overflow noted.  A size that wrapped
 * would let a small allocation be written past (issue 12), so the entry
 * function returns an error code instead of using it. */
#include <stdio.h>

#include "cg.h"

/* a op b for op "sadd", "ssub" or "smul"; an overflow is or-ed into *ovf. */
LLVMValueRef cg_checked(pt_cg *cg, const char *op, LLVMValueRef a, LLVMValueRef b, LLVMValueRef *ovf)
{
	char name[40];
	snprintf(name, sizeof(name), "llvm.%s.with.overflow", op);
	LLVMValueRef args[] = { a, b };
	LLVMValueRef r = cg_call_intrinsic(cg, name, cg->i64, args, 2);
	LLVMValueRef bad = LLVMBuildExtractValue(cg->b, r, 1, "");
	*ovf = *ovf ? LLVMBuildOr(cg->b, *ovf, bad, "") : bad;
	return LLVMBuildExtractValue(cg->b, r, 0, "");
}

/* floor(r / div) for div > 0 (cannot overflow). */
static LLVMValueRef floor_div(pt_cg *cg, LLVMValueRef r, int64_t div)
{
	if (div == 1)
		return r;
	LLVMBuilderRef b = cg->b;
	LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, r, cg_i64(cg, 0), "");
	LLVMValueRef adj = LLVMBuildSelect(b, neg, cg_i64(cg, div - 1), cg_i64(cg, 0), "");
	return LLVMBuildSDiv(b, LLVMBuildSub(b, r, adj, ""), cg_i64(cg, div), "");
}

LLVMValueRef cg_checked_param_expr(pt_cg *cg, const pt_expr *e, LLVMValueRef *ovf)
{
	pt_affine a = {0};
	if (!pt_expr_affine(e, cg->p->nparams, 0, &a)) {
		pt_affine_clear(&a);
		return cg_expr_as(cg, e, PT_I64);
	}
	LLVMValueRef r = cg_i64(cg, a.cst);
	for (int q = 0; q < a.nparams; q++)
		if (a.pcoef[q]) {
			LLVMValueRef v = cg_convert(cg, cg->param[q], cg->p->params[q].type, PT_I64);
			r = cg_checked(cg, "sadd", r, cg_checked(cg, "smul", v, cg_i64(cg, a.pcoef[q]), ovf), ovf);
		}
	r = floor_div(cg, r, a.div);
	pt_affine_clear(&a);
	return r;
}

LLVMValueRef cg_checked_box_extent(pt_cg *cg, const pt_stage *s, int d, LLVMValueRef *ovf)
{
	LLVMValueRef lo = cg_checked_param_expr(cg, s->dom[d].lo, ovf);
	LLVMValueRef hi = cg_checked_param_expr(cg, s->dom[d].hi, ovf);
	LLVMValueRef span = cg_checked(cg, "ssub", hi, lo, ovf);
	int64_t step = s->dom[d].step;
	if (step > 1)   /* (span / step) * step <= |span|: no overflow */
		span = LLVMBuildMul(cg->b, LLVMBuildSDiv(cg->b, span, cg_i64(cg, step), ""), cg_i64(cg, step), "");
	return cg_checked(cg, "sadd", span, cg_i64(cg, 1), ovf);
}

LLVMValueRef cg_checked_bytes(pt_cg *cg, int ndim, LLVMValueRef *ext, int type, LLVMValueRef *stride, LLVMValueRef *ovf)
{
	LLVMValueRef count = cg_i64(cg, 1);
	for (int d = ndim - 1; d >= 0; d--) {
		if (stride && d < ndim - 1)
			stride[d] = count;
		count = cg_checked(cg, "smul", count, ext[d], ovf);
	}
	return cg_checked(cg, "smul", count, cg_i64(cg, (int64_t)pt_type_size((pt_type)type)), ovf);
}

LLVMValueRef cg_box_extent(pt_cg *cg, const pt_stage *s, int d)
{
	LLVMBuilderRef b = cg->b;
	LLVMValueRef lo = cg_param_expr(cg, s->dom[d].lo), hi = cg_param_expr(cg, s->dom[d].hi);
	LLVMValueRef span = LLVMBuildSub(b, hi, lo, "");
	int64_t step = s->dom[d].step;
	if (step > 1)
		span = LLVMBuildMul(b, LLVMBuildSDiv(b, span, cg_i64(cg, step), ""), cg_i64(cg, step), "");
	return LLVMBuildAdd(b, span, cg_i64(cg, 1), "");
}
