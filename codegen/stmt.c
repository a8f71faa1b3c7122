/* stmt.c: the body of one statement instance: a case's value stored into
 * the stage's buffer, a reduction's initial value, or one update. */
#include <stdio.h>

#include "cg.h"
#include "values.h"

static void bind_point(pt_cg *cg, const pt_stmt *st, LLVMValueRef *point)
{
	cg->stmt = st;
	for (int d = 0; d < st->nvars; d++) {
		cg->var64[st->var0 + d] = point[d];
		cg->var32[st->var0 + d] = LLVMBuildTrunc(cg->b, point[d], cg->i32, "");
	}
	cg->split_k64 = cg->split_k32 = NULL;
	if (st->split > 1) {
		LLVMValueRef y = point[st->nvars - 1];
		cg->split_k64 = LLVMBuildExactSDiv(cg->b, LLVMBuildNSWSub(cg->b, y, cg_i64(cg, st->part), ""),
			cg_i64(cg, st->split), "");
		cg->split_k32 = LLVMBuildTrunc(cg->b, cg->split_k64, cg->i32, "");
	}
}

/* The address of s's point idx when s writes a plane in its output's
 * buffer (entry.c plane_in_place): base and strides chosen by the plane
 * test, all invariant in the innermost loop, so that its stores stay
 * consecutive. */
static LLVMValueRef plane_address(pt_cg *cg, const cg_array *a, const pt_stage *s, LLVMValueRef *idx)
{
	const cg_array *oa = &cg->stage[a->plane_out->id];
	LLVMBuilderRef b = cg->b;
	LLVMValueRef c = cg_index(cg, a->plane_out->cases[0].value->args[0]);
	LLVMValueRef at = LLVMBuildICmp(b, LLVMIntEQ, idx[0], c, "");
	LLVMValueRef i0 = LLVMBuildNSWSub(b, idx[0], cg_param_expr(cg, s->dom[0].lo), "");
	if (a->fold)
		i0 = cg_fold_index(cg, a, i0);
	LLVMValueRef plane = LLVMBuildInBoundsGEP2(b, cg_type(cg, a->type), a->ptr, (LLVMValueRef[]){
		LLVMBuildNSWMul(b, i0, a->stride[0], "") }, 1, "");
	LLVMValueRef base = LLVMBuildSelect(b, at, oa->ptr, plane, "");
	LLVMValueRef off = cg_i64(cg, 0);
	for (int d = 1; d < s->ndim; d++) {
		LLVMValueRef i = LLVMBuildNSWSub(b, idx[d], cg_param_expr(cg, s->dom[d].lo), "");
		if (d < s->ndim - 1)
			i = LLVMBuildNSWMul(b, i, LLVMBuildSelect(b, at, oa->stride[d - 1], a->stride[d], ""), "");
		off = LLVMBuildNSWAdd(b, off, i, "");
	}
	return LLVMBuildInBoundsGEP2(b, cg_type(cg, a->type), base, &off, 1, "");
}

static void store(pt_cg *cg, const pt_stage *s, LLVMValueRef *idx, LLVMValueRef v)
{
	/* a time tile's phase writes its scratchpad or the full buffer */
	const cg_array *a = cg->tt_write ? cg->tt_write : &cg->stage[s->id];
	LLVMValueRef addr = a->plane_out ? plane_address(cg, a, s, idx) : cg_address(cg, a, s, idx);
	LLVMValueRef st = LLVMBuildStore(cg->b, v, addr);
	/* a stage writing a plane of a streamed output in place streams all
	 * its planes: each is as large as that output, past the caches
	 * before the next step reads it */
	const pt_stage *po = a->plane_out;
	if (a->stream || (po && cg->stage[po->id].stream))
		cg_stream_store(cg, st);
}

/* Case k was taken: a later case whose overlap with it isl could not
 * decide (a condition reads data) must not hold as well. */
static void overlap_check(pt_cg *cg, const pt_stage *s, int k)
{
	const pt_case *c = &s->cases[k];
	if (!c->cond)
		return;   /* an `else` or a plain `=`: nothing after it */
	bool k_decided = cg_cond_decided(cg, c->cond);
	for (int j = k + 1; j < s->ncases; j++) {
		const pt_expr *cj = s->cases[j].cond;
		if (!cj || (k_decided && cg_cond_decided(cg, cj)))
			continue;
		char what[300];
		snprintf(what, sizeof(what), "cases %d and %d of '%s' both hold at (@)", k + 1, j + 1, s->name);
		cg_fail_at_run_time(cg, cg_expr_as(cg, cj, PT_BOOL), PT_ERR_CASES, what);
	}
}

/* First case whose condition holds, chosen at run time. */
static void func_run_time(pt_cg *cg, const pt_stage *s, LLVMValueRef *point)
{
	LLVMBasicBlockRef done = cg_block(cg, "case.done");
	for (int k = 0; k < s->ncases; k++) {
		const pt_case *c = &s->cases[k];
		LLVMBasicBlockRef take = cg_block(cg, "case.take"), next = NULL;
		if (c->cond) {
			next = cg_block(cg, "case.next");
			LLVMBuildCondBr(cg->b, cg_expr_as(cg, c->cond, PT_BOOL), take, next);
		} else {
			LLVMBuildBr(cg->b, take);
		}
		LLVMPositionBuilderAtEnd(cg->b, take);
		store(cg, s, point, cg_expr_as(cg, c->value, s->type));
		if (cg->stage[s->id].mask)   /* this point is defined */
			LLVMBuildStore(cg->b, LLVMConstInt(cg->i8, 1, 0), cg_mask_address(cg, s, point));
		overlap_check(cg, s, k);
		LLVMBuildBr(cg->b, done);
		if (!next) {
			LLVMPositionBuilderAtEnd(cg->b, done);
			return;
		}
		LLVMPositionBuilderAtEnd(cg->b, next);
	}
	LLVMBuildBr(cg->b, done);
	LLVMPositionBuilderAtEnd(cg->b, done);
}

LLVMValueRef cg_reduce_identity(pt_cg *cg, const pt_stage *s)
{
	pt_val v = pt_val_identity(s->red, s->type);
	if (pt_type_is_float(s->type))
		return LLVMConstReal(cg_type(cg, s->type), v.f);
	return LLVMConstInt(cg_type(cg, s->type), (unsigned long long)v.i, 1);
}

/* acc op= v, as pt_val_reduce, or as case c's general update. */
static LLVMValueRef reduce(pt_cg *cg, const pt_stage *s, const pt_case *c, LLVMValueRef acc, LLVMValueRef v, int vt)
{
	int t = s->type;
	LLVMBuilderRef b = cg->b;
	if (c->update) {
		cg->operand[0] = acc;
		cg->operand[1] = v;
		return cg_expr(cg, c->update);
	}
	if (s->red == PT_RED_AND || s->red == PT_RED_OR) {
		LLVMValueRef x = cg_convert(cg, acc, t, PT_BOOL), y = cg_convert(cg, v, vt, PT_BOOL);
		LLVMValueRef r = s->red == PT_RED_AND ? LLVMBuildAnd(b, x, y, "") : LLVMBuildOr(b, x, y, "");
		return cg_convert(cg, r, PT_BOOL, t);
	}
	LLVMValueRef x = cg_convert(cg, v, vt, t);
	bool f = pt_type_is_float(t);
	switch (s->red) {
	case PT_RED_SUM: return f ? LLVMBuildFAdd(b, acc, x, "") : LLVMBuildAdd(b, acc, x, "");
	case PT_RED_PROD: return f ? LLVMBuildFMul(b, acc, x, "") : LLVMBuildMul(b, acc, x, "");
	default: return cg_minmax(cg, t, acc, x, s->red == PT_RED_MIN);
	}
}

/* Iteration j's slot in row d of a strip's array (rows of CG_STRIP
 * elements of type elt: phase 1's stores are consecutive, a vector's). */
static LLVMValueRef strip_slot(pt_cg *cg, LLVMValueRef arr, LLVMTypeRef elt, int d)
{
	LLVMValueRef i = LLVMBuildNSWAdd(cg->b, cg->strip_j, cg_i64(cg, (int64_t)d * CG_STRIP), "");
	return LLVMBuildGEP2(cg->b, elt, arr, &i, 1, "");
}

/* The type a strip keeps indices in: 32 bits in the loop's version
 * where every array is below 2 GiB (cg->narrow), as offsets from the
 * domain's first point (then below 2^31), else 64. */
static LLVMTypeRef strip_index_type(const pt_cg *cg)
{
	return cg->narrow ? cg->i32 : cg->i64;
}

/* Phase 1 of a strip (types.c) keeps index d of s's target for phase 2,
 * which loads it back; u: the update's place in the loop's body. */
static void strip_store_index(pt_cg *cg, int u, const pt_stage *s, int d, LLVMValueRef k)
{
	LLVMTypeRef it = strip_index_type(cg);
	if (cg->narrow)
		k = LLVMBuildTrunc(cg->b, LLVMBuildSub(cg->b, k, cg_param_expr(cg, s->dom[d].lo), ""), it, "");
	LLVMBuildStore(cg->b, k, strip_slot(cg, cg->strip_idx[u], it, d));
}

static LLVMValueRef strip_load_index(pt_cg *cg, int u, const pt_stage *s, int d)
{
	LLVMTypeRef it = strip_index_type(cg);
	LLVMValueRef k = LLVMBuildLoad2(cg->b, it, strip_slot(cg, cg->strip_idx[u], it, d), "");
	if (cg->narrow)
		k = LLVMBuildNSWAdd(cg->b, LLVMBuildSExt(cg->b, k, cg->i64, ""), cg_param_expr(cg, s->dom[d].lo), "");
	return k;
}

/* An update in a strip's phase 1 or 2 (types.c): what reads data (the
 * target's data-dependent indices, the value if it reads any) phase 1
 * computes and keeps in arrays allocated on the function's entry, and
 * phase 2 loads; the rest phase 2 computes.  False outside phase 2: the
 * update is done, or to be done here. */
static bool strip_phase(pt_cg *cg, const pt_stage *s, const pt_case *c, LLVMValueRef *idx, LLVMValueRef *v)
{
	pt_expr target = { .kind = PT_E_CALL, .stage = (pt_stage *)s, .nargs = s->ndim, .args = c->target };
	int phase = cg->strip_phase, u = phase ? cg->strip_k++ : 0;
	for (int d = 0; d < s->ndim; d++) {
		bool kept = phase && pt_expr_has_call(c->target[d]);
		if (phase == 2 && kept)
			idx[d] = strip_load_index(cg, u, s, d);
		else if (phase != 1 || kept)
			idx[d] = cg_checked_index(cg, &target, d, cg_index(cg, c->target[d]));
	}
	bool kept = phase && pt_expr_has_call(c->value);
	if (phase == 2 && kept)
		*v = LLVMBuildLoad2(cg->b, cg->strip_vt[u], strip_slot(cg, cg->strip_val[u], cg->strip_vt[u], 0), "");
	else if (phase != 1 || kept)
		*v = cg_expr(cg, c->value);
	if (phase != 1)
		return false;
	if (!cg->strip_idx[u]) {
		cg->strip_vt[u] = cg_type(cg, c->value->type);
		cg->strip_idx[u] = cg_entry_alloca(cg, LLVMArrayType(strip_index_type(cg), (unsigned)(CG_STRIP * s->ndim)));
		cg->strip_val[u] = cg_entry_alloca(cg, LLVMArrayType(cg->strip_vt[u], CG_STRIP));
	}
	for (int d = 0; d < s->ndim; d++)
		if (pt_expr_has_call(c->target[d]))
			strip_store_index(cg, u, s, d, idx[d]);
	if (kept)
		LLVMBuildStore(cg->b, *v, strip_slot(cg, cg->strip_val[u], cg->strip_vt[u], 0));
	return true;
}

static void update(pt_cg *cg, const pt_stmt *st)
{
	const pt_stage *s = st->stage;
	const pt_case *c = &s->cases[st->ncase];
	LLVMBasicBlockRef done = NULL;
	if (st->cond_at_run_time) {
		LLVMBasicBlockRef take = cg_block(cg, "upd.take");
		done = cg_block(cg, "upd.done");
		LLVMBuildCondBr(cg->b, cg_expr_as(cg, c->cond, PT_BOOL), take, done);
		LLVMPositionBuilderAtEnd(cg->b, take);
	}
	LLVMValueRef idx[PT_MAX_DIMS], v;
	if (strip_phase(cg, s, c, idx, &v))
		return;
	LLVMValueRef addr = cg_address(cg, &cg->stage[s->id], s, idx);
	if (cg->atomic_updates) {
		LLVMBuildAtomicRMW(cg->b, cg_atomic_op(s), addr, cg_convert(cg, v, c->value->type, s->type),
			LLVMAtomicOrderingMonotonic, 0);
	} else {
		LLVMValueRef acc = LLVMBuildLoad2(cg->b, cg_type(cg, s->type), addr, "");
		LLVMBuildStore(cg->b, reduce(cg, s, c, acc, v, c->value->type), addr);
	}
	if (done) {
		LLVMBuildBr(cg->b, done);
		LLVMPositionBuilderAtEnd(cg->b, done);
	}
}

/* Case k taken where the loop's version says it holds (version.c). */
static void func_forced(pt_cg *cg, const pt_stage *s, LLVMValueRef *point, int k)
{
	store(cg, s, point, cg_expr_as(cg, s->cases[k].value, s->type));
	if (cg->stage[s->id].mask)
		LLVMBuildStore(cg->b, LLVMConstInt(cg->i8, 1, 0), cg_mask_address(cg, s, point));
	overlap_check(cg, s, k);
}

LLVMValueRef cg_stmt_cond(pt_cg *cg, const pt_stmt *st, LLVMValueRef *point, int k)
{
	bind_point(cg, st, point);
	LLVMValueRef c = cg_expr_as(cg, st->stage->cases[k].cond, PT_BOOL);
	cg->stmt = NULL;
	return c;
}

void cg_stmt(pt_cg *cg, const pt_stmt *st, LLVMValueRef *point)
{
	const pt_stage *s = st->stage;
	isl_basic_set *region;
	if (st->kind == PT_STMT_FUNC && cg->stage[s->id].plane_skip)
		return;   /* its values were stored by the stage it copies */
	bind_point(cg, st, point);
	/* a phase of a time tile (statements.h tphase): its first step
	 * reads the step before from the full buffer, its last writes there */
	bool tt = st->tphase && cg->tt_full;
	if (tt) {
		cg->tt_scratch = cg->stage[s->id];
		if (st->tphase & PT_TPHASE_FIRST)
			cg->stage[s->id] = *cg->tt_full;
		cg->tt_write = st->tphase & PT_TPHASE_LAST ? cg->tt_full : &cg->tt_scratch;
	}
	switch (st->kind) {
	case PT_STMT_FUNC:
		if (st->ncase < 0 && cg->version_forced && cg_version_candidate(cg, st))
			func_forced(cg, s, point, cg->version_first ? 0 : cg_version_case(cg, st, &region));
		else if (st->ncase < 0)
			func_run_time(cg, s, point);
		else
			store(cg, s, point, cg_expr_as(cg, s->cases[st->ncase].value, s->type));
		break;
	case PT_STMT_INIT:
		store(cg, s, point, s->init ? cg_expr_as(cg, s->init, s->type) : cg_reduce_identity(cg, s));
		break;
	case PT_STMT_UPDATE:
		update(cg, st);
		break;
	}
	if (tt) {
		cg->stage[s->id] = cg->tt_scratch;
		cg->tt_write = NULL;
	}
	cg->stmt = NULL;
}

LLVMAtomicRMWBinOp cg_atomic_op(const pt_stage *s)
{
	bool sig = s->type != PT_U32;
	return s->red == PT_RED_SUM ? LLVMAtomicRMWBinOpAdd : s->red == PT_RED_MIN ?
		(sig ? LLVMAtomicRMWBinOpMin : LLVMAtomicRMWBinOpUMin) : (sig ? LLVMAtomicRMWBinOpMax : LLVMAtomicRMWBinOpUMax);
}

bool cg_stmt_atomic(const pt_stmt *st)
{
	const pt_stage *s = st->stage;
	bool word = s->type == PT_I32 || s->type == PT_U32 || s->type == PT_I64;
	if (st->kind != PT_STMT_UPDATE || !word || (s->red != PT_RED_SUM && s->red != PT_RED_MIN && s->red != PT_RED_MAX))
		return false;
	/* an update that reads the stage depends on the order of updates */
	for (int k = 0; k < s->ncases; k++) {
		bool own;
		const pt_case *c = &s->cases[k];
		if (pt_expr_reads_stage(c->value, s, &own) || pt_expr_reads_stage(c->cond, s, &own))
			return false;
		for (int d = 0; d < s->ndim; d++)
			if (pt_expr_reads_stage(c->target[d], s, &own))
				return false;
	}
	return true;
}

/* A conjunction of comparisons of affine int expressions (no reads), at
 * most one side of each a floor division: floor(a / d) - b with b affine
 * is one floor again, hence monotone, where floor(y / 2) - floor(y / 3)
 * is not (0, 0, 1, 0 for y = 0 .. 3). */
static bool convex_affine(const pt_cg *cg, const pt_stage *s, const pt_expr *e)
{
	if (!e || e->kind != PT_E_BINARY)
		return false;
	if (e->op == PT_OP_AND)
		return convex_affine(cg, s, e->args[0]) && convex_affine(cg, s, e->args[1]);
	if (e->op != PT_OP_LT && e->op != PT_OP_LE && e->op != PT_OP_GT && e->op != PT_OP_GE && e->op != PT_OP_EQ)
		return false;
	int floors = 0;
	for (int i = 0; i < 2; i++) {
		pt_affine a = {0};
		bool ok = !pt_expr_has_call(e->args[i]) && !pt_type_is_float(e->args[i]->type) &&
			pt_expr_affine(e->args[i], cg->p->nparams, s->ndim, &a);
		floors += ok && a.div > 1;
		pt_affine_clear(&a);
		if (!ok)
			return false;
	}
	return floors <= 1;
}

int cg_version_case(const pt_cg *cg, const pt_stmt *st, isl_basic_set **region)
{
	const pt_stage *s = st ? st->stage : NULL;
	*region = NULL;
	if (!s || st->kind != PT_STMT_FUNC || st->ncase >= 0 || s->ncases < 2)
		return -1;
	if (convex_affine(cg, s, s->cases[0].cond))
		return 0;
	*region = st->vregion;
	return st->vregion ? st->vcase : -1;
}

/* Collects into out the disjuncts of e (an || tree) that are
 * conjunctions of affine comparisons; false if some disjunct is not. */
static bool convex_disjuncts(const pt_cg *cg, const pt_stage *s, const pt_expr *e, const pt_expr **out, int *n,
	int max)
{
	if (e && e->kind == PT_E_BINARY && e->op == PT_OP_OR)
		return convex_disjuncts(cg, s, e->args[0], out, n, max) && convex_disjuncts(cg, s, e->args[1], out, n, max);
	if (*n == max || !convex_affine(cg, s, e))
		return false;
	out[(*n)++] = e;
	return true;
}

int cg_version_first_disjuncts(const pt_cg *cg, const pt_stmt *st, const pt_expr **out, int max)
{
	isl_basic_set *region;
	int n = 0;
	if (cg_version_case(cg, st, &region) < 0 || !region)
		return 0;
	return convex_disjuncts(cg, st->stage, st->stage->cases[0].cond, out, &n, max) ? n : 0;
}

LLVMValueRef cg_stmt_expr_cond(pt_cg *cg, const pt_stmt *st, LLVMValueRef *point, const pt_expr *e)
{
	bind_point(cg, st, point);
	LLVMValueRef c = cg_expr_as(cg, e, PT_BOOL);
	cg->stmt = NULL;
	return c;
}

bool cg_version_candidate(const pt_cg *cg, const pt_stmt *st)
{
	isl_basic_set *region;
	return cg_version_case(cg, st, &region) >= 0;
}
