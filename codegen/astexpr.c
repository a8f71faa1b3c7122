/* astexpr.c: what isl's AST names, bound to values: its index
 * expressions in i64, the iterators of enclosing loops, and the
 * statement instance a user node runs (its tile and point).  Below the
 * AST walk (ast.c), which it never calls. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ast_build.h>
#include <isl/id.h>
#include <isl/val.h>

#include "target.h"

bool cg_ast_expr_mentions(__isl_keep isl_ast_expr *e, const char *name)
{
	if (isl_ast_expr_get_type(e) == isl_ast_expr_id) {
		isl_id *id = isl_ast_expr_get_id(e);
		bool same = !strcmp(isl_id_get_name(id), name);
		isl_id_free(id);
		return same;
	}
	if (isl_ast_expr_get_type(e) != isl_ast_expr_op)
		return false;
	bool any = false;
	for (int i = 0; i < isl_ast_expr_op_get_n_arg(e) && !any; i++) {
		isl_ast_expr *a = isl_ast_expr_op_get_arg(e, i);
		any = cg_ast_expr_mentions(a, name);
		isl_ast_expr_free(a);
	}
	return any;
}

/* The innermost bound iterator named name, or NULL. */
static const cg_iter *find_iter(const pt_cg *cg, const char *name)
{
	for (int i = cg->niters - 1; i >= 0; i--)
		if (!strcmp(cg->iter[i].name, name))
			return &cg->iter[i];
	return NULL;
}

static LLVMValueRef lookup(pt_cg *cg, const char *name)
{
	const cg_iter *it = find_iter(cg, name);
	if (it)
		return it->v;
	int q = pt_pipeline_find_param(cg->p, name);
	LLVMValueRef v = q < 0 && cg->target->name_value ? cg->target->name_value(cg, name) : NULL;
	if (v)
		return v;
	assert(q >= 0 && "unknown name in isl's AST");
	return cg_convert(cg, cg->param[q], cg->p->params[q].type, PT_I64);
}

static LLVMValueRef arg(pt_cg *cg, __isl_keep isl_ast_expr *e, int i)
{
	isl_ast_expr *a = isl_ast_expr_op_get_arg(e, i);
	LLVMValueRef v = cg_ast_expr(cg, a);
	isl_ast_expr_free(a);
	return v;
}

static LLVMValueRef floor_div(pt_cg *cg, LLVMValueRef x, LLVMValueRef y)
{
	/* y > 0 in isl's output: (x - (x < 0 ? y - 1 : 0)) / y */
	LLVMBuilderRef b = cg->b;
	LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, x, cg_i64(cg, 0), "");
	LLVMValueRef adj = LLVMBuildSelect(b, neg, LLVMBuildSub(b, y, cg_i64(cg, 1), ""), cg_i64(cg, 0), "");
	return LLVMBuildSDiv(b, LLVMBuildSub(b, x, adj, ""), y, "");
}

/* v as an i1: a comparison, or an integer tested against 0. */
static LLVMValueRef truth(pt_cg *cg, LLVMValueRef v)
{
	return LLVMTypeOf(v) == cg->i1 ? v : LLVMBuildICmp(cg->b, LLVMIntNE, v, LLVMConstInt(LLVMTypeOf(v), 0, 0), "");
}

static LLVMValueRef op_expr(pt_cg *cg, __isl_keep isl_ast_expr *e)
{
	LLVMBuilderRef b = cg->b;
	enum isl_ast_expr_op_type t = isl_ast_expr_op_get_type(e);
	int n = isl_ast_expr_op_get_n_arg(e);
	switch (t) {
	case isl_ast_expr_op_max:
	case isl_ast_expr_op_min: {
		LLVMValueRef r = arg(cg, e, 0);
		for (int i = 1; i < n; i++) {
			LLVMValueRef x[] = { r, arg(cg, e, i) };
			r = cg_call_intrinsic(cg, t == isl_ast_expr_op_max ? "llvm.smax" : "llvm.smin", cg->i64, x, 2);
		}
		return r;
	}
	case isl_ast_expr_op_minus:
		return LLVMBuildNSWNeg(b, arg(cg, e, 0), "");
	case isl_ast_expr_op_cond:
	case isl_ast_expr_op_select: {
		LLVMValueRef c = arg(cg, e, 0), x = arg(cg, e, 1), y = arg(cg, e, 2);
		return LLVMBuildSelect(b, c, x, y, "");
	}
	default:
		break;
	}
	LLVMValueRef x = arg(cg, e, 0), y = arg(cg, e, 1);
	if (t == isl_ast_expr_op_and || t == isl_ast_expr_op_and_then || t == isl_ast_expr_op_or ||
		t == isl_ast_expr_op_or_else) {
		/* isl writes a condition that always holds as the integer 1 */
		x = truth(cg, x);
		y = truth(cg, y);
	}
	switch (t) {
	case isl_ast_expr_op_and:
	case isl_ast_expr_op_and_then: return LLVMBuildAnd(b, x, y, "");
	case isl_ast_expr_op_or:
	case isl_ast_expr_op_or_else: return LLVMBuildOr(b, x, y, "");
	case isl_ast_expr_op_add: return LLVMBuildNSWAdd(b, x, y, "");
	case isl_ast_expr_op_sub: return LLVMBuildNSWSub(b, x, y, "");
	case isl_ast_expr_op_mul: return LLVMBuildNSWMul(b, x, y, "");
	case isl_ast_expr_op_div:
	case isl_ast_expr_op_pdiv_q: return LLVMBuildSDiv(b, x, y, "");
	case isl_ast_expr_op_fdiv_q: return floor_div(cg, x, y);
	case isl_ast_expr_op_pdiv_r:
	case isl_ast_expr_op_zdiv_r: return LLVMBuildSRem(b, x, y, "");
	case isl_ast_expr_op_eq: return LLVMBuildICmp(b, LLVMIntEQ, x, y, "");
	case isl_ast_expr_op_le: return LLVMBuildICmp(b, LLVMIntSLE, x, y, "");
	case isl_ast_expr_op_lt: return LLVMBuildICmp(b, LLVMIntSLT, x, y, "");
	case isl_ast_expr_op_ge: return LLVMBuildICmp(b, LLVMIntSGE, x, y, "");
	case isl_ast_expr_op_gt: return LLVMBuildICmp(b, LLVMIntSGT, x, y, "");
	default:
		assert(!"isl AST operation not supported");
		return NULL;
	}
}

LLVMValueRef cg_ast_expr(pt_cg *cg, __isl_keep isl_ast_expr *e)
{
	switch (isl_ast_expr_get_type(e)) {
	case isl_ast_expr_int: {
		isl_val *v = isl_ast_expr_get_val(e);
		LLVMValueRef r = cg_i64(cg, isl_val_get_num_si(v));
		isl_val_free(v);
		return r;
	}
	case isl_ast_expr_id: {
		isl_id *id = isl_ast_expr_get_id(e);
		LLVMValueRef r = lookup(cg, isl_id_get_name(id));
		isl_id_free(id);
		return r;
	}
	default:
		return op_expr(cg, e);
	}
}

const pt_stmt *cg_user_stmt(const pt_cg *cg, __isl_keep isl_ast_node *node)
{
	return pt_model_stmt_of_node(cg->model, node);
}

/* Binds a user node's tile coordinates and fills its point. */
const pt_stmt *cg_user_point(pt_cg *cg, __isl_keep isl_ast_node *node, LLVMValueRef *point)
{
	const pt_stmt *st = cg_user_stmt(cg, node);
	isl_ast_expr *call = isl_ast_node_user_get_expr(node);
	for (int k = 0; k < st->ntile; k++)
		cg->tile[k] = arg(cg, call, k + 1);
	for (int d = 0; d < st->nvars; d++)
		point[d] = arg(cg, call, st->ntile + d + 1);
	isl_ast_expr_free(call);
	return st;
}

/* Whether every name in e is bound here (an enclosing loop's iterator
 * or a param). */
static bool bound_now(pt_cg *cg, __isl_keep isl_ast_expr *e)
{
	if (isl_ast_expr_get_type(e) == isl_ast_expr_id) {
		isl_id *id = isl_ast_expr_get_id(e);
		const char *name = isl_id_get_name(id);
		bool found = find_iter(cg, name) || pt_pipeline_find_param(cg->p, name) >= 0;
		isl_id_free(id);
		return found;
	}
	if (isl_ast_expr_get_type(e) != isl_ast_expr_op)
		return true;
	bool ok = true;
	for (int i = 0; i < isl_ast_expr_op_get_n_arg(e) && ok; i++) {
		isl_ast_expr *a = isl_ast_expr_op_get_arg(e, i);
		ok = bound_now(cg, a);
		isl_ast_expr_free(a);
	}
	return ok;
}

static isl_bool first_user(__isl_keep isl_ast_node *node, void *user)
{
	isl_ast_node **found = user;
	if (*found)
		return isl_bool_false;
	if (isl_ast_node_get_type(node) != isl_ast_node_user)
		return isl_bool_true;
	*found = isl_ast_node_copy(node);
	return isl_bool_false;
}

__isl_give isl_ast_node *cg_first_user(__isl_keep isl_ast_node *node)
{
	isl_ast_node *u = NULL;
	isl_ast_node_foreach_descendant_top_down(node, first_user, &u);
	return u;
}

/* From the tile's first statement instance. */
bool cg_bind_tile(pt_cg *cg, const pt_kernel *k, __isl_keep isl_ast_node *body)
{
	const pt_group *g = k->group;
	isl_ast_node *u = cg_first_user(body);
	if (!u)
		return false;
	const pt_stmt *st = cg_user_stmt(cg, u);
	isl_ast_expr *call = isl_ast_node_user_get_expr(u);
	bool ok = st->ntile == g->ntile;
	for (int k = 0; ok && k < st->ntile; k++) {
		isl_ast_expr *a = isl_ast_expr_op_get_arg(call, k + 1);
		ok = bound_now(cg, a);
		isl_ast_expr_free(a);
	}
	for (int k = 0; ok && k < st->ntile; k++)
		cg->tile[k] = arg(cg, call, k + 1);
	isl_ast_expr_free(call);
	isl_ast_node_free(u);
	return ok;
}

LLVMValueRef cg_user_cond(pt_cg *cg, __isl_keep isl_ast_node *node, int k)
{
	LLVMValueRef point[2 * PT_MAX_DIMS];
	const pt_stmt *st = cg_user_point(cg, node, point);
	return cg_stmt_cond(cg, st, point, k);
}

void cg_push_iter(pt_cg *cg, const char *name, LLVMValueRef v)
{
	assert(cg->niters < CG_MAX_ITERS);
	cg->iter[cg->niters].name = strdup(name);
	cg->iter[cg->niters++].v = v;
}

void cg_bind_iter(pt_cg *cg, __isl_keep isl_ast_node *node, LLVMValueRef i)
{
	isl_ast_expr *it = isl_ast_node_for_get_iterator(node);
	isl_id *id = isl_ast_expr_get_id(it);
	cg_push_iter(cg, isl_id_get_name(id), i);
	isl_id_free(id);
	isl_ast_expr_free(it);
}

void cg_unbind_iter(pt_cg *cg)
{
	free(cg->iter[--cg->niters].name);
}

void cg_loop_bounds(pt_cg *cg, __isl_keep isl_ast_node *node, LLVMValueRef *init,
	LLVMValueRef *last, int64_t *inc)
{
	isl_ast_expr *e = isl_ast_node_for_get_init(node);
	*init = cg_ast_expr(cg, e);
	isl_ast_expr_free(e);
	isl_ast_expr *ie = isl_ast_node_for_get_inc(node);
	isl_val *v = isl_ast_expr_get_val(ie);
	*inc = isl_val_get_num_si(v);
	isl_val_free(v);
	isl_ast_expr_free(ie);
	/* isl writes the condition as `iterator <= E` or `iterator < E` */
	isl_ast_expr *c = isl_ast_node_for_get_cond(node);
	enum isl_ast_expr_op_type t = isl_ast_expr_op_get_type(c);
	assert(t == isl_ast_expr_op_le || t == isl_ast_expr_op_lt);
	*last = arg(cg, c, 1);
	if (t == isl_ast_expr_op_lt)
		*last = LLVMBuildSub(cg->b, *last, cg_i64(cg, 1), "");
	isl_ast_expr_free(c);
}

/* Number of iterations of init, init+inc, .. <= last (0 if none). */
LLVMValueRef cg_trip_count(pt_cg *cg, LLVMValueRef init, LLVMValueRef last, int64_t inc)
{
	LLVMValueRef span = LLVMBuildNSWSub(cg->b, last, init, "");
	LLVMValueRef n = LLVMBuildNSWAdd(cg->b, LLVMBuildSDiv(cg->b, span, cg_i64(cg, inc), ""), cg_i64(cg, 1), "");
	LLVMValueRef none = LLVMBuildICmp(cg->b, LLVMIntSLT, last, init, "");
	return LLVMBuildSelect(cg->b, none, cg_i64(cg, 0), n, "");
}

LLVMValueRef cg_pw_value(pt_cg *cg, __isl_keep isl_pw_aff *pa, LLVMValueRef *defined)
{
	isl_set *dom = isl_pw_aff_domain(isl_pw_aff_copy(pa));
	if (isl_set_is_empty(dom) != isl_bool_false) {
		/* nowhere defined (isl builds no expression for it) */
		isl_set_free(dom);
		if (defined)
			*defined = LLVMConstInt(cg->i1, 0, 0);
		return cg_i64(cg, 0);
	}
	isl_ast_build *b = isl_ast_build_from_context(isl_set_universe(isl_set_get_space(dom)));
	if (defined) {
		isl_ast_expr *c = isl_ast_build_expr_from_set(b, isl_set_copy(dom));
		*defined = cg_ast_expr(cg, c);
		/* a set that always holds is the integer 1 */
		if (LLVMTypeOf(*defined) != cg->i1)
			*defined = LLVMBuildICmp(cg->b, LLVMIntNE, *defined, cg_i64(cg, 0), "");
		isl_ast_expr_free(c);
	}
	isl_ast_build_free(b);
	b = isl_ast_build_from_context(dom);
	isl_ast_expr *e = isl_ast_build_expr_from_pw_aff(b, isl_pw_aff_copy(pa));
	LLVMValueRef v = cg_ast_expr(cg, e);
	isl_ast_expr_free(e);
	isl_ast_build_free(b);
	return v;
}
