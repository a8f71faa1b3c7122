/* version.c: innermost loops versioned on their statements' cases.  A
 * stage whose case conditions use its innermost variable chooses its case
 * at run time, at every point (statements.c keeps such a stage in one
 * statement): in a pyramid, `inner -> .. | else -> 0` around each level.
 * A branch per point keeps LLVM from vectorizing the loop well (it masks
 * every load, strided ones become gathers).  But when the first case's
 * condition is a conjunction of affine comparisons, it holds at every
 * point of a loop once it holds at the loop's first and last points (an
 * affine function is monotone along the loop, and so is one floor of
 * one), so the loop runs in two versions: one where those statements take their first
 * case unconditionally, chosen when the test holds (the interior rows and
 * tiles), and the general one.  Where the first case is not such a
 * conjunction, a case whose points form one convex polyhedron is
 * (statements.c's vregion: heat3d's interior, under `t == 0 || border ->
 * .. | else -> ..`); its constraints are what is tested at the ends. */
#include <stdlib.h>
#include <string.h>

#include <isl/constraint.h>
#include <isl/id.h>

#include "cg.h"

typedef struct found {
	const pt_cg *cg;
	isl_ast_node **users;
	int n, cap;
} found;

static isl_bool note_user(__isl_keep isl_ast_node *node, void *user)
{
	found *f = user;
	if (isl_ast_node_get_type(node) != isl_ast_node_user)
		return isl_bool_true;
	if (!cg_version_candidate(f->cg, cg_user_stmt(f->cg, node)))
		return isl_bool_true;
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 8;
		f->users = realloc(f->users, sizeof(*f->users) * (size_t)f->cap);
	}
	f->users[f->n++] = isl_ast_node_copy(node);
	return isl_bool_true;
}

static void found_clear(found *f)
{
	for (int i = 0; i < f->n; i++)
		isl_ast_node_free(f->users[i]);
	free(f->users);
	f->users = NULL;
	f->n = f->cap = 0;
}

/* Whether e is built of +, -, * and leaves only (an affine function). */
static bool plain_affine(__isl_keep isl_ast_expr *e)
{
	if (isl_ast_expr_get_type(e) != isl_ast_expr_op)
		return true;
	enum isl_ast_expr_op_type t = isl_ast_expr_op_get_type(e);
	if (t != isl_ast_expr_op_add && t != isl_ast_expr_op_sub && t != isl_ast_expr_op_mul && t != isl_ast_expr_op_minus)
		return false;
	bool ok = true;
	for (int i = 0; i < isl_ast_expr_op_get_n_arg(e) && ok; i++) {
		isl_ast_expr *a = isl_ast_expr_op_get_arg(e, i);
		ok = plain_affine(a);
		isl_ast_expr_free(a);
	}
	return ok;
}

/* Whether loop iterator it moves only the innermost point coordinate of
 * user node u, affinely: then each of its conditions is a monotone
 * function of the iterator (outer coordinates stay fixed in the loop). */
static bool moves_innermost_only(const pt_cg *cg, __isl_keep isl_ast_node *u, const char *it)
{
	const pt_stmt *st = cg_user_stmt(cg, u);
	isl_ast_expr *call = isl_ast_node_user_get_expr(u);
	int n = isl_ast_expr_op_get_n_arg(call), last = st->ntile + st->nvars;
	bool ok = true;
	for (int i = 1; i < n && ok; i++) {
		isl_ast_expr *a = isl_ast_expr_op_get_arg(call, i);
		if (cg_ast_expr_mentions(a, it))
			ok = i == last && plain_affine(a);
		isl_ast_expr_free(a);
	}
	isl_ast_expr_free(call);
	return ok;
}

/* A constraint's affine value (params, then the point) at point. */
static LLVMValueRef constraint_value(pt_cg *cg, __isl_keep isl_constraint *c, LLVMValueRef *point)
{
	isl_val *v = isl_constraint_get_constant_val(c);
	LLVMValueRef sum = cg_i64(cg, isl_val_get_num_si(v));
	isl_val_free(v);
	for (int t = 0; t < 2; t++) {
		enum isl_dim_type ty = t ? isl_dim_set : isl_dim_param;
		isl_size n = isl_constraint_dim(c, ty);
		for (int i = 0; i < n; i++) {
			isl_val *a = isl_constraint_get_coefficient_val(c, ty, i);
			long ai = isl_val_get_num_si(a);
			isl_val_free(a);
			if (!ai)
				continue;
			LLVMValueRef x = t ? point[i] : cg_convert(cg, cg->param[i], cg->p->params[i].type, PT_I64);
			sum = LLVMBuildAdd(cg->b, sum, LLVMBuildMul(cg->b, x, cg_i64(cg, ai), ""), "");
		}
	}
	return sum;
}

/* floor(a / b) for b > 0. */
static LLVMValueRef floor_div(pt_cg *cg, LLVMValueRef a, LLVMValueRef b)
{
	LLVMValueRef q = LLVMBuildSDiv(cg->b, a, b, ""), r = LLVMBuildSRem(cg->b, a, b, "");
	LLVMValueRef neg = LLVMBuildICmp(cg->b, LLVMIntSLT, r, cg_i64(cg, 0), "");
	return LLVMBuildSub(cg->b, q, LLVMBuildZExt(cg->b, neg, cg->i64, ""), "");
}

static LLVMValueRef smax(pt_cg *cg, LLVMValueRef a, LLVMValueRef b)
{
	return LLVMBuildSelect(cg->b, LLVMBuildICmp(cg->b, LLVMIntSGT, a, b, ""), a, b, "");
}

static LLVMValueRef smin(pt_cg *cg, LLVMValueRef a, LLVMValueRef b)
{
	return LLVMBuildSelect(cg->b, LLVMBuildICmp(cg->b, LLVMIntSLT, a, b, ""), a, b, "");
}

/* Narrowing a loop's iterations [lo, hi) (k = 0 .. n-1, the iterator
 * init + k * inc) to those where user node u's point satisfies each
 * constraint of its region. */
typedef struct range_eval {
	pt_cg *cg;
	isl_ast_node *loop, *u;
	LLVMValueRef init, next, n, lo, hi;
} range_eval;

/* A constraint's value is s0 + k d along the loop (the point moves
 * affinely with the iterator), so where it holds is an interval of k:
 * k >= ceil(-s0 / d) for d > 0, k <= floor(s0 / -d) for d < 0, all or
 * none for d = 0; an equality with d != 0 holds at one point at most,
 * which is left to the general loop. */
static isl_stat narrow(__isl_take isl_constraint *c, void *user)
{
	range_eval *r = user;
	pt_cg *cg = r->cg;
	LLVMValueRef point[2 * PT_MAX_DIMS], v[2], at[] = { r->init, r->next };
	for (int e = 0; e < 2; e++) {
		cg_bind_iter(cg, r->loop, at[e]);
		cg_user_point(cg, r->u, point);
		v[e] = constraint_value(cg, c, point);
		cg_unbind_iter(cg);
	}
	bool eq = isl_constraint_is_equality(c) == isl_bool_true;
	isl_constraint_free(c);
	LLVMBuilderRef b = cg->b;
	LLVMValueRef zero = cg_i64(cg, 0), one = cg_i64(cg, 1);
	LLVMValueRef s0 = v[0], d = LLVMBuildSub(b, v[1], v[0], "");
	LLVMValueRef flat = LLVMBuildICmp(b, LLVMIntEQ, d, zero, "");
	LLVMValueRef lo, hi;
	if (eq) {
		LLVMValueRef always = LLVMBuildAnd(b, flat, LLVMBuildICmp(b, LLVMIntEQ, s0, zero, ""), "");
		lo = LLVMBuildSelect(b, always, zero, r->n, "");
		hi = r->n;
	} else {
		LLVMValueRef up = LLVMBuildICmp(b, LLVMIntSGT, d, zero, "");
		LLVMValueRef down = LLVMBuildICmp(b, LLVMIntSLT, d, zero, "");
		LLVMValueRef ad = LLVMBuildSelect(b, flat, one, LLVMBuildSelect(b, up, d, LLVMBuildNeg(b, d, ""), ""), "");
		/* d > 0: ceil(-s0 / d) = -floor(s0 / d) */
		LLVMValueRef from = LLVMBuildNeg(b, floor_div(cg, s0, ad), "");
		LLVMValueRef never = LLVMBuildAnd(b, flat, LLVMBuildICmp(b, LLVMIntSLT, s0, zero, ""), "");
		lo = LLVMBuildSelect(b, up, from, LLVMBuildSelect(b, never, r->n, zero, ""), "");
		hi = LLVMBuildSelect(b, down, LLVMBuildAdd(b, floor_div(cg, s0, ad), one, ""), r->n, "");
	}
	r->lo = smax(cg, r->lo, lo);
	r->hi = smin(cg, r->hi, hi);
	return isl_stat_ok;
}

/* Whether user node u's point lies in region (statements.c's vregion). */
static LLVMValueRef region_holds(pt_cg *cg, __isl_keep isl_ast_node *u, __isl_keep isl_basic_set *region)
{
	LLVMValueRef point[2 * PT_MAX_DIMS];
	cg_user_point(cg, u, point);
	isl_constraint_list *cl = isl_basic_set_get_constraint_list(region);
	isl_size nc = isl_constraint_list_n_constraint(cl);
	LLVMValueRef all = LLVMConstInt(cg->i1, 1, 0);
	for (int i = 0; i < nc; i++) {
		isl_constraint *c = isl_constraint_list_get_constraint(cl, i);
		bool eq = isl_constraint_is_equality(c) == isl_bool_true;
		LLVMValueRef h = LLVMBuildICmp(cg->b, eq ? LLVMIntEQ : LLVMIntSGE, constraint_value(cg, c, point),
			cg_i64(cg, 0), "");
		isl_constraint_free(c);
		all = LLVMBuildAnd(cg->b, all, h, "");
	}
	isl_constraint_list_free(cl);
	return all;
}

/* The candidates under for node, if its iterator moves only their
 * innermost coordinates (f->n = 0 otherwise). */
static void candidates(pt_cg *cg, __isl_keep isl_ast_node *node, found *f)
{
	isl_ast_node *body = isl_ast_node_for_get_body(node);
	isl_ast_node_foreach_descendant_top_down(body, &note_user, f);
	isl_ast_node_free(body);
	isl_ast_expr *itx = isl_ast_node_for_get_iterator(node);
	isl_id *itid = isl_ast_expr_get_id(itx);
	bool ok = true;
	for (int i = 0; i < f->n && ok; i++)
		ok = moves_innermost_only(cg, f->users[i], isl_id_get_name(itid));
	isl_id_free(itid);
	isl_ast_expr_free(itx);
	if (!ok)
		found_clear(f);
}

bool cg_version_range(pt_cg *cg, __isl_keep isl_ast_node *node, LLVMValueRef init, int64_t inc, LLVMValueRef n,
	LLVMValueRef *lo, LLVMValueRef *hi)
{
	found f = { cg, NULL, 0, 0 };
	candidates(cg, node, &f);
	bool ok = f.n > 0;
	for (int i = 0; i < f.n && ok; i++) {
		isl_basic_set *region;
		cg_version_case(cg, cg_user_stmt(cg, f.users[i]), &region);
		ok = region != NULL;
	}
	range_eval r = { cg, node, NULL, init, LLVMBuildAdd(cg->b, init, cg_i64(cg, inc), ""), n, cg_i64(cg, 0), n };
	for (int i = 0; i < f.n && ok; i++) {
		isl_basic_set *region;
		cg_version_case(cg, cg_user_stmt(cg, f.users[i]), &region);
		r.u = f.users[i];
		isl_basic_set_foreach_constraint(region, &narrow, &r);
	}
	found_clear(&f);
	/* [0, lo) general, [lo, hi) the case, [hi, n) general, in order */
	*lo = smin(cg, r.lo, n);
	*hi = smax(cg, r.hi, *lo);
	return ok;
}

LLVMValueRef cg_version_test(pt_cg *cg, __isl_keep isl_ast_node *node, LLVMValueRef first, LLVMValueRef last)
{
	found f = { cg, NULL, 0, 0 };
	candidates(cg, node, &f);
	LLVMValueRef all = NULL;
	LLVMValueRef ends[] = { first, last };
	for (int i = 0; i < f.n; i++) {
		isl_basic_set *region;
		cg_version_case(cg, cg_user_stmt(cg, f.users[i]), &region);
		for (int e = 0; e < 2; e++) {
			cg_bind_iter(cg, node, ends[e]);
			LLVMValueRef c = region ? region_holds(cg, f.users[i], region) : cg_user_cond(cg, f.users[i], 0);
			cg_unbind_iter(cg);
			all = all ? LLVMBuildAnd(cg->b, all, c, "") : c;
		}
	}
	found_clear(&f);
	return all;
}

LLVMValueRef cg_version_whole_first(pt_cg *cg, __isl_keep isl_ast_node *node, LLVMValueRef first, LLVMValueRef last)
{
	found f = { cg, NULL, 0, 0 };
	candidates(cg, node, &f);
	LLVMValueRef all = NULL, ends[] = { first, last };
	bool ok = f.n > 0;
	for (int i = 0; i < f.n && ok; i++) {
		const pt_stmt *st = cg_user_stmt(cg, f.users[i]);
		const pt_expr *dj[16];
		int nd = cg_version_first_disjuncts(cg, st, dj, 16);
		ok = nd > 0;
		LLVMValueRef any = NULL;
		for (int d = 0; d < nd; d++) {
			LLVMValueRef both = NULL, point[2 * PT_MAX_DIMS];
			for (int e = 0; e < 2; e++) {
				cg_bind_iter(cg, node, ends[e]);
				cg_user_point(cg, f.users[i], point);
				LLVMValueRef c = cg_stmt_expr_cond(cg, st, point, dj[d]);
				cg_unbind_iter(cg);
				both = both ? LLVMBuildAnd(cg->b, both, c, "") : c;
			}
			any = any ? LLVMBuildOr(cg->b, any, both, "") : both;
		}
		if (ok)
			all = all ? LLVMBuildAnd(cg->b, all, any, "") : any;
	}
	found_clear(&f);
	return ok ? all : NULL;
}
