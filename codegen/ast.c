/* ast.c: isl's AST to LLVM IR: loops, guards, blocks and statement
 * instances; isl's index expressions in i64. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include <isl/id.h>
#include <isl/val.h>

#include "cg.h"
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
	isl_ast_expr *call = isl_ast_node_user_get_expr(node);
	isl_ast_expr *f = isl_ast_expr_op_get_arg(call, 0);
	isl_id *id = isl_ast_expr_get_id(f);
	const pt_stmt *st = pt_model_stmt(cg->model, id);
	isl_id_free(id);
	isl_ast_expr_free(f);
	isl_ast_expr_free(call);
	return st;
}

/* Binds a user node's tile coordinates and fills its point. */
static const pt_stmt *user_point(pt_cg *cg, __isl_keep isl_ast_node *node, LLVMValueRef *point)
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

/* From the tile's first statement instance. */
bool cg_bind_tile(pt_cg *cg, const pt_kernel *k, __isl_keep isl_ast_node *body)
{
	const pt_group *g = k->group;
	isl_ast_node *u = NULL;
	isl_ast_node_foreach_descendant_top_down(body, first_user, &u);
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

static void user(pt_cg *cg, __isl_keep isl_ast_node *node)
{
	LLVMValueRef point[2 * PT_MAX_DIMS];
	const pt_stmt *st = user_point(cg, node, point);
	cg_stmt(cg, st, point);
}

LLVMValueRef cg_user_cond(pt_cg *cg, __isl_keep isl_ast_node *node, int k)
{
	LLVMValueRef point[2 * PT_MAX_DIMS];
	const pt_stmt *st = user_point(cg, node, point);
	return cg_stmt_cond(cg, st, point, k);
}

static void guard(pt_cg *cg, __isl_keep isl_ast_node *node)
{
	isl_ast_expr *c = isl_ast_node_if_get_cond(node);
	LLVMValueRef cv = cg_ast_expr(cg, c);
	isl_ast_expr_free(c);
	LLVMBasicBlockRef bt = cg_block(cg, "if.then"), be = cg_block(cg, "if.else"), bj = cg_block(cg, "if.end");
	LLVMBuildCondBr(cg->b, cv, bt, be);
	LLVMPositionBuilderAtEnd(cg->b, bt);
	isl_ast_node *t = isl_ast_node_if_get_then_node(node);
	cg_ast(cg, t);
	isl_ast_node_free(t);
	LLVMBuildBr(cg->b, bj);
	LLVMPositionBuilderAtEnd(cg->b, be);
	if (isl_ast_node_if_has_else_node(node) == isl_bool_true) {
		isl_ast_node *el = isl_ast_node_if_get_else_node(node);
		cg_ast(cg, el);
		isl_ast_node_free(el);
	}
	LLVMBuildBr(cg->b, bj);
	LLVMPositionBuilderAtEnd(cg->b, bj);
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

void cg_for_body(pt_cg *cg, __isl_keep isl_ast_node *node, LLVMValueRef i)
{
	cg_bind_iter(cg, node, i);
	isl_ast_node *body = isl_ast_node_for_get_body(node);
	cg_ast(cg, body);
	isl_ast_node_free(body);
	cg_unbind_iter(cg);
}

/* Whether a subtree holds a loop (the innermost loops get vectorized). */
static isl_bool find_for(__isl_keep isl_ast_node *node, void *user)
{
	if (isl_ast_node_get_type(node) == isl_ast_node_for) {
		*(bool *)user = true;
		return isl_bool_false;
	}
	return isl_bool_true;
}

bool cg_for_innermost(__isl_keep isl_ast_node *node)
{
	bool found = false;
	isl_ast_node *body = isl_ast_node_for_get_body(node);
	isl_ast_node_foreach_descendant_top_down(body, &find_for, &found);
	isl_ast_node_free(body);
	return !found;
}

static bool is_var(const pt_expr *e, const void *data)
{
	return e->kind == PT_E_VAR && e->index == *(const int *)data;
}

/* A division or remainder of VAR data (an int dim index) in e. */
static bool divides_var(const pt_expr *e, const void *data)
{
	int v = *(const int *)data;
	return e->kind == PT_E_BINARY && (e->op == PT_OP_DIV || e->op == PT_OP_MOD) &&
		(pt_expr_any(e->args[0], is_var, &v) || pt_expr_any(e->args[1], is_var, &v));
}

/* A read whose last index divides VAR data. */
static bool gathers(const pt_expr *e, const void *data)
{
	return e->kind == PT_E_CALL && e->nargs > 0 && pt_expr_any(e->args[e->nargs - 1], divides_var, data);
}

typedef struct gather_find {
	const pt_cg *cg;
	bool found;
} gather_find;

static isl_bool find_gather(__isl_keep isl_ast_node *node, void *user)
{
	gather_find *g = user;
	if (isl_ast_node_get_type(node) != isl_ast_node_user)
		return isl_bool_true;
	const pt_stmt *st = cg_user_stmt(g->cg, node);
	const pt_stage *s = st ? st->stage : NULL;
	if (!s || st->kind != PT_STMT_FUNC || s->ndim == 0 || st->split > 1)
		return isl_bool_true;   /* a split statement's y / d is its loop's k */
	int last = s->ndim - 1;
	for (int k = 0; k < s->ncases && !g->found; k++)
		g->found = pt_expr_any(s->cases[k].value, gathers, &last) ||
			pt_expr_any(s->cases[k].cond, gathers, &last);
	return g->found ? isl_bool_false : isl_bool_true;
}

cg_vectorize cg_for_vectorize(const pt_cg *cg, __isl_keep isl_ast_node *node, bool parallel, int64_t inc)
{
	if (!parallel || inc != 1 || !cg_for_innermost(node))
		return CG_VEC_DEFAULT;
	gather_find g = { cg, false };
	isl_ast_node *body = isl_ast_node_for_get_body(node);
	isl_ast_node_foreach_descendant_top_down(body, &find_gather, &g);
	isl_ast_node_free(body);
	return g.found ? CG_VEC_OFF : CG_VEC_FORCE;
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

void cg_for_step(pt_cg *cg, LLVMValueRef k, void *data)
{
	cg_for_data *fd = data;
	LLVMValueRef i = LLVMBuildNSWAdd(cg->b, fd->init, LLVMBuildNSWMul(cg->b, k, cg_i64(cg, fd->inc), ""), "");
	cg_for_body(cg, fd->node, i);
}

/* Number of iterations of init, init+inc, .. <= last (0 if none). */
LLVMValueRef cg_trip_count(pt_cg *cg, LLVMValueRef init, LLVMValueRef last, int64_t inc)
{
	LLVMValueRef span = LLVMBuildNSWSub(cg->b, last, init, "");
	LLVMValueRef n = LLVMBuildNSWAdd(cg->b, LLVMBuildSDiv(cg->b, span, cg_i64(cg, inc), ""), cg_i64(cg, 1), "");
	LLVMValueRef none = LLVMBuildICmp(cg->b, LLVMIntSLT, last, init, "");
	return LLVMBuildSelect(cg->b, none, cg_i64(cg, 0), n, "");
}

void cg_counted_loop(pt_cg *cg, LLVMValueRef lo, LLVMValueRef hi, cg_vectorize vectorize,
	void (*body)(pt_cg *cg, LLVMValueRef k, void *data), void *data)
{
	LLVMBuilderRef b = cg->b;
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
	LLVMBasicBlockRef head = cg_block(cg, "loop"), exit = cg_block(cg, "loop.end");
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, lo, hi, ""), head, exit);
	LLVMPositionBuilderAtEnd(b, head);
	LLVMValueRef k = LLVMBuildPhi(b, cg->i64, "k");
	body(cg, k, data);
	LLVMValueRef next = LLVMBuildNSWAdd(b, k, cg_i64(cg, 1), "");
	LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
	LLVMValueRef br = LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, next, hi, ""), head, exit);
	if (vectorize != CG_VEC_DEFAULT)
		cg_loop_vectorize(cg, br, vectorize == CG_VEC_FORCE);
	LLVMValueRef vals[] = { lo, next };
	LLVMBasicBlockRef bbs[] = { pre, latch };
	LLVMAddIncoming(k, vals, bbs, 2);
	LLVMPositionBuilderAtEnd(b, exit);
}

__isl_give isl_id *pt_target_mark(isl_ctx *ctx, bool parallel, int depth)
{
	uintptr_t marks = (parallel ? PT_MARK_PARALLEL : 0) | (depth == 0 ? PT_MARK_EXCHANGE : 0);
	return isl_id_alloc(ctx, parallel ? "parallel" : "serial", (void *)marks);
}

unsigned pt_target_marks(__isl_keep isl_ast_node *node)
{
	isl_id *ann = isl_ast_node_get_annotation(node);
	unsigned marks = ann ? (unsigned)(uintptr_t)isl_id_get_user(ann) : 0;
	isl_id_free(ann);
	return marks;
}

LLVMModuleRef cg_add_module(pt_cg *cg, const char *name, const char *role)
{
	cg_module *v = realloc(cg->modules, sizeof(*v) * (size_t)(cg->nmodules + 1));
	assert(v);
	cg->modules = v;
	v[cg->nmodules].mod = LLVMModuleCreateWithNameInContext(name, cg->llc);
	v[cg->nmodules].role = role;
	if (cg->nmodules == 0)
		cg->mod = v[0].mod;
	return v[cg->nmodules++].mod;
}

/* The kernel whose statements node runs (its first user node's). */
static const pt_kernel *kernel_of(pt_cg *cg, __isl_keep isl_ast_node *node)
{
	isl_ast_node *u = NULL;
	isl_ast_node_foreach_descendant_top_down(node, first_user, &u);
	if (!u)
		return NULL;
	const pt_stmt *st = cg_user_stmt(cg, u);
	isl_ast_node_free(u);
	return st && cg->kernels ? &cg->kernels->k[cg->kernels->of_stage[st->stage->id]] : NULL;
}

/* Before a kernel's first loop nest: what it reads of arrays written
 * elsewhere, given to the target once. */
static void exchange(pt_cg *cg, __isl_keep isl_ast_node *node)
{
	const pt_kernel *k = kernel_of(cg, node);
	if (!k || cg->exchanged[k->index])
		return;
	cg->exchanged[k->index] = true;
	cg->target->exchange(cg, k);
}

static void loop(pt_cg *cg, __isl_keep isl_ast_node *node)
{
	unsigned marks = pt_target_marks(node);
	bool parallel = marks & PT_MARK_PARALLEL;
	if ((marks & PT_MARK_EXCHANGE) && cg->target->exchange)
		exchange(cg, node);
	if (parallel && cg->parallel_depth == 0 && cg->target->parallel_for) {
		cg->parallel_depth++;
		cg->target->parallel_for(cg, node);
		cg->parallel_depth--;
		return;
	}
	cg_for_data fd = { .node = node };
	LLVMValueRef last;
	cg_loop_bounds(cg, node, &fd.init, &last, &fd.inc);
	LLVMValueRef n = cg_trip_count(cg, fd.init, last, fd.inc);
	/* forcing vectorization also lets LLVM reorder float reductions, so
	 * only loops without a carried dependence (the parallel ones) ask */
	cg_vectorize vec = cg_for_vectorize(cg, node, parallel, fd.inc);
	LLVMValueRef test = NULL;
	if (fd.inc > 0 && cg_for_innermost(node)) {
		LLVMValueRef end = LLVMBuildNSWAdd(cg->b, fd.init, LLVMBuildNSWMul(cg->b,
			LLVMBuildNSWSub(cg->b, n, cg_i64(cg, 1), ""), cg_i64(cg, fd.inc), ""), "");
		test = cg_version_test(cg, node, fd.init, end);
	}
	if (!test) {
		cg_counted_loop(cg, cg_i64(cg, 0), n, vec, cg_for_step, &fd);
		return;
	}
	/* the loop in two versions (version.c) */
	LLVMBasicBlockRef fast = cg_block(cg, "cases.first"), general = cg_block(cg, "cases.any"),
		join = cg_block(cg, "cases.end");
	LLVMBuildCondBr(cg->b, test, fast, general);
	LLVMPositionBuilderAtEnd(cg->b, fast);
	cg->first_case_forced = true;
	cg_counted_loop(cg, cg_i64(cg, 0), n, vec, cg_for_step, &fd);
	cg->first_case_forced = false;
	LLVMBuildBr(cg->b, join);
	LLVMPositionBuilderAtEnd(cg->b, general);
	cg_counted_loop(cg, cg_i64(cg, 0), n, vec, cg_for_step, &fd);
	LLVMBuildBr(cg->b, join);
	LLVMPositionBuilderAtEnd(cg->b, join);
}

void cg_ast(pt_cg *cg, __isl_keep isl_ast_node *node)
{
	switch (isl_ast_node_get_type(node)) {
	case isl_ast_node_for:
		loop(cg, node);
		break;
	case isl_ast_node_if:
		guard(cg, node);
		break;
	case isl_ast_node_block: {
		isl_ast_node_list *l = isl_ast_node_block_get_children(node);
		isl_size n = isl_ast_node_list_n_ast_node(l);
		for (int i = 0; i < n; i++) {
			isl_ast_node *c = isl_ast_node_list_get_ast_node(l, i);
			cg_ast(cg, c);
			isl_ast_node_free(c);
		}
		isl_ast_node_list_free(l);
		break;
	}
	case isl_ast_node_mark: {
		/* "tile": the body of one tile of a group (poly/tile.h) */
		isl_id *id = isl_ast_node_mark_get_id(node);
		const pt_group *g = !strcmp(isl_id_get_name(id), "tile") ? isl_id_get_user(id) : NULL;
		isl_id_free(id);
		isl_ast_node *c = isl_ast_node_mark_get_node(node);
		const pt_kernel *k = g ? pt_kernels_of_group(cg->kernels, g) : NULL;
		if (k && cg->target->tile) {
			cg->target->tile(cg, k, c);
		} else if (k) {
			cg_bind_tile(cg, k, c);
			LLVMBasicBlockRef skip = cg_scratch_begin(cg, k);
			cg_ast(cg, c);
			cg_scratch_end(cg, k, skip);
		} else {
			cg_ast(cg, c);
		}
		isl_ast_node_free(c);
		break;
	}
	case isl_ast_node_user:
		user(cg, node);
		break;
	default:
		break;
	}
}
