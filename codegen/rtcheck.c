/* rtcheck.c: the checks compiled code makes while its schedule runs, for
 * what the compiler could not prove: a read or reduction target whose
 * index isl cannot represent (x * x, x & 3, conversions; the bounds
 * check proved the others, data-dependent ones included),
 * and cases whose exclusiveness isl could not decide (conditions that
 * read data).  A failed check records its code with pt_rt_fail, which
 * the entry function returns, and goes on with a safe index. */
#include <stdio.h>

#include <isl/set.h>

#include "cg.h"
#include "isl_expr.h"
#include "target.h"

/* The statement's evaluation space (its variables, params by name). */
static __isl_give isl_space *eval_space(pt_cg *cg)
{
	const pt_stage *s = cg->stmt ? cg->stmt->stage : NULL;
	isl_ctx *ctx = isl_set_get_ctx(cg->model->context);
	return pt_poly_stage_space(ctx, cg->p, s, s ? s->ndim + s->nrdim : 0);
}

bool cg_index_proven(pt_cg *cg, const pt_expr *e)
{
	if (pt_expr_has_call(e))
		return true;   /* data-dependent: in range by the bounds check */
	isl_space *sp = eval_space(cg);
	isl_pw_aff *pa = pt_poly_pw_aff(sp, e);
	bool exact = pa != NULL;
	isl_pw_aff_free(pa);
	isl_space_free(sp);
	return exact;
}

bool cg_cond_decided(pt_cg *cg, const pt_expr *cond)
{
	if (!cond)
		return true;
	if (pt_expr_has_call(cond))
		return false;
	isl_space *sp = eval_space(cg);
	isl_set *set = pt_poly_cond_set(sp, cond);
	bool affine = set != NULL;
	isl_set_free(set);
	isl_space_free(sp);
	return affine;
}

void cg_fail_at_run_time(pt_cg *cg, LLVMValueRef bad, int code, const char *what)
{
	if (!cg->target->fail)
		return;
	/* the statement's own point: var64 below var0 may hold another
	 * statement's values, from another function */
	const pt_stmt *st = cg->stmt;
	int first = st ? st->var0 : 0, n = st ? st->nvars : 0;
	cg->target->fail(cg, bad, code, what, cg->var64 + first, n);
}

bool cg_stage_needs_mask(pt_cg *cg, const pt_stage *s)
{
	return !s->red && !s->is_output && pt_poly_stage_undecided(isl_set_get_ctx(cg->model->context), cg->p, s);
}

/* Whether s's cases define every point of its domain box: one of them
 * has no condition (an `else`, or a single definition).  A device target
 * then need not copy an output in before the run to keep the points no
 * case defines as the caller left them. */
bool cg_stage_defines_all(const pt_stage *s)
{
	if (s->red)
		return false;
	for (int k = 0; k < s->ncases; k++)
		if (!s->cases[k].cond)
			return true;
	return false;
}
