/* ast.c: the AST walk: isl's AST to LLVM IR, its loops, guards, blocks,
 * marks and statement instances.  The top of codegen's core: it calls
 * down (astexpr.c, version.c, scratch.c, stmt.c) and into the target's
 * hooks, and nothing below calls it back (a target's hook may: it is
 * above the core). */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include <isl/id.h>
#include <isl/val.h>

#include "cg.h"
#include "target.h"

/* Inside a GPU kernel, a statement no loop over thread dim k encloses
 * runs in the block's threads whose index along k is 0, once. */
static LLVMValueRef thread_guard(pt_cg *cg)
{
	LLVMValueRef all = NULL;
	for (int k = 0; k < cg->nthread_dims; k++) {
		if (cg->thread_bound[k])
			continue;
		LLVMValueRef z = LLVMBuildICmp(cg->b, LLVMIntEQ, cg->thread_id[k], cg_i64(cg, 0), "");
		all = all ? LLVMBuildAnd(cg->b, all, z, "") : z;
	}
	return all;
}

static void user(pt_cg *cg, __isl_keep isl_ast_node *node)
{
	LLVMValueRef only = thread_guard(cg);
	LLVMBasicBlockRef join = NULL;
	if (only) {
		LLVMBasicBlockRef run = cg_block(cg, "thread.run");
		join = cg_block(cg, "thread.end");
		LLVMBuildCondBr(cg->b, only, run, join);
		LLVMPositionBuilderAtEnd(cg->b, run);
	}
	LLVMValueRef point[2 * PT_MAX_DIMS];
	const pt_stmt *st = cg_user_point(cg, node, point);
	cg_stmt(cg, st, point);
	if (join) {
		LLVMBuildBr(cg->b, join);
		LLVMPositionBuilderAtEnd(cg->b, join);
	}
}

int cg_for_dim(__isl_keep isl_ast_node *node)
{
	isl_ast_expr *it = isl_ast_node_for_get_iterator(node);
	isl_id *id = isl_ast_expr_get_id(it);
	const char *name = id ? isl_id_get_name(id) : NULL;
	int d = -1;
	if (name && name[0] == 'c' && name[1] >= '0' && name[1] <= '9')
		d = atoi(name + 1);
	isl_id_free(id);
	isl_ast_expr_free(it);
	return d;
}

/* The thread dim (index into cg->thread_dim) a for node is spread over,
 * or -1: inside a GPU kernel, a parallel unit-step loop over one. */
static int thread_loop_of(pt_cg *cg, __isl_keep isl_ast_node *node, bool parallel)
{
	if (!cg->nthread_dims || !parallel)
		return -1;
	int d = cg_for_dim(node);
	for (int k = 0; k < cg->nthread_dims; k++)
		if (cg->thread_dim[k] == d)
			return k;
	return -1;
}

/* Euclid's a mod n (n > 0). */
static LLVMValueRef emod(pt_cg *cg, LLVMValueRef a, LLVMValueRef n)
{
	LLVMValueRef r = LLVMBuildSRem(cg->b, a, n, "");
	LLVMValueRef neg = LLVMBuildICmp(cg->b, LLVMIntSLT, r, cg_i64(cg, 0), "");
	return LLVMBuildSelect(cg->b, neg, LLVMBuildNSWAdd(cg->b, r, n, ""), r, "");
}

/* A loop over thread dim k: each thread runs the iterations whose value
 * is its index modulo the block's extent, the same point to the same
 * thread in every loop over the dim (a fused nest's scalars and
 * own-point reads stay in one thread). */
static void thread_loop(pt_cg *cg, __isl_keep isl_ast_node *node, int k)
{
	cg_for_data fd = { .node = node };
	LLVMValueRef last;
	cg_loop_bounds(cg, node, &fd.init, &last, &fd.inc);
	LLVMValueRef n = cg_i64(cg, cg->thread_n[k]);
	LLVMValueRef first = LLVMBuildNSWAdd(cg->b, fd.init,
		emod(cg, LLVMBuildNSWSub(cg->b, cg->thread_id[k], fd.init, ""), n), "");
	LLVMValueRef span = LLVMBuildNSWSub(cg->b, last, first, "");
	LLVMValueRef count = LLVMBuildNSWAdd(cg->b, LLVMBuildSDiv(cg->b, span, n, ""), cg_i64(cg, 1), "");
	LLVMValueRef none = LLVMBuildICmp(cg->b, LLVMIntSLT, span, cg_i64(cg, 0), "");
	count = LLVMBuildSelect(cg->b, none, cg_i64(cg, 0), count, "");
	fd.init = first;
	fd.inc = cg->thread_n[k];
	cg->thread_bound[k]++;
	cg_counted_loop(cg, cg_i64(cg, 0), count, CG_VEC_DEFAULT, cg_for_step, &fd);
	cg->thread_bound[k]--;
}

void cg_if(pt_cg *cg, __isl_keep isl_ast_node *node, void (*branch)(pt_cg *cg, __isl_keep isl_ast_node *n, void *data),
	void *data)
{
	isl_ast_expr *c = isl_ast_node_if_get_cond(node);
	LLVMValueRef cv = cg_ast_expr(cg, c);
	isl_ast_expr_free(c);
	LLVMBasicBlockRef bt = cg_block(cg, "if.then"), be = cg_block(cg, "if.else"), bj = cg_block(cg, "if.end");
	LLVMBuildCondBr(cg->b, cv, bt, be);
	LLVMPositionBuilderAtEnd(cg->b, bt);
	isl_ast_node *t = isl_ast_node_if_get_then_node(node);
	branch(cg, t, data);
	isl_ast_node_free(t);
	LLVMBuildBr(cg->b, bj);
	LLVMPositionBuilderAtEnd(cg->b, be);
	if (isl_ast_node_if_has_else_node(node) == isl_bool_true) {
		isl_ast_node *el = isl_ast_node_if_get_else_node(node);
		branch(cg, el, data);
		isl_ast_node_free(el);
	}
	LLVMBuildBr(cg->b, bj);
	LLVMPositionBuilderAtEnd(cg->b, bj);
}

static void ast_branch(pt_cg *cg, __isl_keep isl_ast_node *node, void *data)
{
	(void)data;
	cg_ast(cg, node);
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

/* An update statement whose target reads data. */
static isl_bool find_scatter(__isl_keep isl_ast_node *node, void *user)
{
	gather_find *g = user;
	if (isl_ast_node_get_type(node) != isl_ast_node_user)
		return isl_bool_true;
	const pt_stmt *st = cg_user_stmt(g->cg, node);
	if (!st || st->kind != PT_STMT_UPDATE)
		return isl_bool_true;
	const pt_stage *s = st->stage;
	for (int k = 0; k < s->ncases && !g->found; k++)
		if ((st->ncase < 0 || st->ncase == k) && s->cases[k].target)
			for (int d = 0; d < s->ndim && !g->found; d++)
				g->found = pt_expr_has_call(s->cases[k].target[d]);
	return g->found ? isl_bool_false : isl_bool_true;
}

static bool scatters(const pt_cg *cg, __isl_keep isl_ast_node *node)
{
	gather_find g = { cg, false };
	isl_ast_node *body = isl_ast_node_for_get_body(node);
	isl_ast_node_foreach_descendant_top_down(body, &find_scatter, &g);
	isl_ast_node_free(body);
	return g.found;
}

/* The operations of e outside the indices of its reads (address
 * arithmetic, which the scatter's loop does anyway). */
static int data_ops(const pt_expr *e)
{
	if (!e || e->kind == PT_E_CALL)
		return 0;
	int n = e->kind == PT_E_UNARY || e->kind == PT_E_BINARY || e->kind == PT_E_SELECT || e->kind == PT_E_INTRIN;
	for (int i = 0; i < e->nargs; i++)
		n += data_ops(e->args[i]);
	return n;
}

/* The operations of update st's case besides its reads' indices, or -1
 * when a strip cannot take it: it is not one case taken wherever it
 * runs, or it reads a stage some update of the body writes (phase 1
 * reads before phase 2 writes). */
static int strip_ops(const pt_stmt *st, const pt_stmt *const *body, int n)
{
	if (!st || st->kind != PT_STMT_UPDATE || st->ncase < 0 || st->cond_at_run_time)
		return -1;
	const pt_stage *s = st->stage;
	const pt_case *c = &s->cases[st->ncase];
	for (int k = 0; k < n; k++) {
		bool own = true;
		if (pt_expr_reads_stage(c->value, body[k]->stage, &own))
			return -1;
		for (int d = 0; d < s->ndim; d++)
			if (pt_expr_reads_stage(c->target[d], body[k]->stage, &own))
				return -1;
	}
	int ops = data_ops(c->value);
	for (int d = 0; d < s->ndim; d++)
		ops += data_ops(c->target[d]);
	return ops;
}

/* Whether the scatter loop node runs in strips: its body is one update
 * or a block of up to CG_STRIP_STMTS (bilateral grid's sum and count),
 * each taken wherever it runs and reading no stage they write, whose
 * targets and values take 4 operations or more besides their reads'
 * indices (a histogram's h(I(x, y)) += 1, a load, ran 2x slower with
 * its indices kept in memory). */
static bool in_strips(const pt_cg *cg, __isl_keep isl_ast_node *node)
{
	if (!cg->target->strip_scatters)
		return false;
	const pt_stmt *body[CG_STRIP_STMTS];
	int n = 0;
	bool ok = true;
	isl_ast_node *b = isl_ast_node_for_get_body(node);
	if (isl_ast_node_get_type(b) == isl_ast_node_user) {
		body[n++] = cg_user_stmt(cg, b);
	} else if (isl_ast_node_get_type(b) == isl_ast_node_block) {
		isl_ast_node_list *list = isl_ast_node_block_get_children(b);
		int m = (int)isl_ast_node_list_n_ast_node(list);
		ok = m >= 1 && m <= CG_STRIP_STMTS;
		for (int k = 0; ok && k < m; k++) {
			isl_ast_node *child = isl_ast_node_list_get_ast_node(list, k);
			ok = isl_ast_node_get_type(child) == isl_ast_node_user;
			if (ok)
				body[n++] = cg_user_stmt(cg, child);
			isl_ast_node_free(child);
		}
		isl_ast_node_list_free(list);
	} else {
		ok = false;
	}
	isl_ast_node_free(b);
	for (int k = 0; ok && k < n; k++)
		ok = body[k] != NULL;
	int ops = 0;
	for (int k = 0; ok && k < n; k++) {
		int o = strip_ops(body[k], body, n);
		ok = o >= 0;
		ops += o;
	}
	return ok && ops >= 4;
}

cg_vectorize cg_for_vectorize(const pt_cg *cg, __isl_keep isl_ast_node *node, bool parallel, int64_t inc)
{
	if (inc != 1 || !cg_for_innermost(node))
		return CG_VEC_DEFAULT;
	if (!parallel && scatters(cg, node))
		return in_strips(cg, node) ? CG_VEC_STRIPS : CG_VEC_UNROLL;
	if (!parallel)
		return CG_VEC_DEFAULT;
	gather_find g = { cg, false };
	isl_ast_node *body = isl_ast_node_for_get_body(node);
	isl_ast_node_foreach_descendant_top_down(body, &find_gather, &g);
	isl_ast_node_free(body);
	return g.found ? CG_VEC_OFF : CG_VEC_FORCE;
}

void cg_for_step(pt_cg *cg, LLVMValueRef k, void *data)
{
	cg_for_data *fd = data;
	LLVMValueRef i = LLVMBuildNSWAdd(cg->b, fd->init, LLVMBuildNSWMul(cg->b, k, cg_i64(cg, fd->inc), ""), "");
	cg_for_body(cg, fd->node, i);
}

/* Iteration j of the iterations outside [lo, lo + skip): j below lo,
 * else j + skip. */
typedef struct outside_range {
	cg_for_data *fd;
	LLVMValueRef lo, skip;
} outside_range;

static void outside_step(pt_cg *cg, LLVMValueRef j, void *data)
{
	outside_range *o = data;
	LLVMValueRef below = LLVMBuildICmp(cg->b, LLVMIntSLT, j, o->lo, "");
	cg_for_step(cg, LLVMBuildSelect(cg->b, below, j, LLVMBuildAdd(cg->b, j, o->skip, ""), ""), o->fd);
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

/* The kernel whose statements node runs (its first user node's). */
static const pt_kernel *kernel_of(pt_cg *cg, __isl_keep isl_ast_node *node)
{
	isl_ast_node *u = cg_first_user(node);
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

static isl_bool exchange_user(__isl_keep isl_ast_node *node, void *user)
{
	if (isl_ast_node_get_type(node) == isl_ast_node_user)
		exchange(user, node);
	return isl_bool_true;
}

static bool names_part(__isl_keep isl_ast_expr *e)
{
	if (isl_ast_expr_get_type(e) == isl_ast_expr_id) {
		isl_id *id = isl_ast_expr_get_id(e);
		bool part = !strncmp(isl_id_get_name(id), "mpi.", 4);
		isl_id_free(id);
		return part;
	}
	bool any = false;
	for (int i = 0; isl_ast_expr_get_type(e) == isl_ast_expr_op && i < isl_ast_expr_op_get_n_arg(e) && !any; i++) {
		isl_ast_expr *a = isl_ast_expr_op_get_arg(e, i);
		any = names_part(a);
		isl_ast_expr_free(a);
	}
	return any;
}

/* Outside every loop, before a node that is not a loop (whose first
 * nest triggers it, loop()): the exchanges of the kernels it runs, in
 * order.  An if whose condition names a rank's part (a rank whose part
 * is empty skips it) gets them before it, since every rank must make
 * them; another if, the same on every rank, is entered. */
static void exchange_before(pt_cg *cg, __isl_keep isl_ast_node *node)
{
	enum isl_ast_node_type t = isl_ast_node_get_type(node);
	if (!cg->target->exchange || cg->loop_depth > 0 || t == isl_ast_node_block || t == isl_ast_node_for)
		return;
	if (t == isl_ast_node_if) {
		isl_ast_expr *c = isl_ast_node_if_get_cond(node);
		bool part = names_part(c);
		isl_ast_expr_free(c);
		if (!part)
			return;
	}
	isl_ast_node_foreach_descendant_top_down(node, &exchange_user, cg);
}

/* Code the target runs as one launch (a parallel loop on the CPU's
 * threads; on a GPU, every outermost loop, tile and statement). */
static void launch(pt_cg *cg, __isl_keep isl_ast_node *node)
{
	cg->parallel_depth++;
	cg->target->parallel_for(cg, node);
	cg->parallel_depth--;
}

static isl_bool find_parallel(__isl_keep isl_ast_node *node, void *user)
{
	if (isl_ast_node_get_type(node) == isl_ast_node_for && (pt_target_marks(node) & PT_MARK_PARALLEL)) {
		*(bool *)user = true;
		return isl_bool_false;
	}
	return isl_bool_true;
}

static bool has_parallel_loop(__isl_keep isl_ast_node *node)
{
	bool found = false;
	isl_ast_node_foreach_descendant_top_down(node, &find_parallel, &found);
	return found;
}

typedef struct thread_find {
	const pt_cg *cg;
	bool found;
} thread_find;

static isl_bool find_thread_loop(__isl_keep isl_ast_node *node, void *user)
{
	thread_find *tf = user;
	if (isl_ast_node_get_type(node) != isl_ast_node_for)
		return isl_bool_true;
	int d = cg_for_dim(node);
	for (int k = 0; k < tf->cg->nthread_dims; k++)
		tf->found = tf->found || tf->cg->thread_dim[k] == d;
	return tf->found ? isl_bool_false : isl_bool_true;
}

/* Inside a GPU kernel, a loop every thread runs alike (no thread loop
 * encloses it) around loops spread over the threads: an iteration may
 * read what other threads wrote in the one before. */
static bool uniform_around_threads(pt_cg *cg, __isl_keep isl_ast_node *node)
{
	for (int k = 0; k < cg->nthread_dims; k++)
		if (cg->thread_bound[k])
			return false;
	thread_find tf = { cg, false };
	isl_ast_node *body = isl_ast_node_for_get_body(node);
	isl_ast_node_foreach_descendant_top_down(body, &find_thread_loop, &tf);
	isl_ast_node_free(body);
	return tf.found;
}

static void barrier_step(pt_cg *cg, LLVMValueRef k, void *data)
{
	cg_for_step(cg, k, data);
	cg->barriers++;
	cg->target->barrier(cg);
}

/* Such a loop, the block's threads meeting after each iteration. */
static void serial_with_barriers(pt_cg *cg, __isl_keep isl_ast_node *node)
{
	cg_for_data fd = { .node = node };
	LLVMValueRef last;
	cg_loop_bounds(cg, node, &fd.init, &last, &fd.inc);
	LLVMValueRef n = cg_trip_count(cg, fd.init, last, fd.inc);
	cg_counted_loop(cg, cg_i64(cg, 0), n, CG_VEC_OFF, barrier_step, &fd);
}

static bool fd_inc_is_one(__isl_keep isl_ast_node *node)
{
	isl_ast_expr *inc = isl_ast_node_for_get_inc(node);
	isl_val *v = isl_ast_expr_get_val(inc);
	bool one = v && isl_val_is_one(v);
	isl_val_free(v);
	isl_ast_expr_free(inc);
	return one;
}

static void loop_in(pt_cg *cg, __isl_keep isl_ast_node *node);

/* An innermost loop (inc > 0, its last iterator value end) in versions
 * on its statements' cases (version.c): three parts around a region's
 * iterations, or two whole versions, or one general loop. */
static void innermost_versions(pt_cg *cg, cg_for_data *fd, LLVMValueRef n, LLVMValueRef end, cg_vectorize vec,
	bool parallel)
{
	isl_ast_node *node = fd->node;
	LLVMValueRef test = NULL, lo, hi;
	if (cg_version_range(cg, node, fd->init, fd->inc, n, &lo, &hi)) {
		/* the middle iterations [lo, hi) in the version (version.c); a
		 * parallel loop runs the others after them in one general loop
		 * (one copy of the general body: compile time), another in
		 * order, [0, lo) before and [hi, n) after */
		if (!parallel)
			cg_counted_loop(cg, cg_i64(cg, 0), lo, vec, cg_for_step, fd);
		cg->version_forced = true;
		cg_counted_loop(cg, lo, hi, vec, cg_for_step, fd);
		cg->version_forced = false;
		if (!parallel) {
			cg_counted_loop(cg, hi, n, vec, cg_for_step, fd);
			return;
		}
		outside_range od = { fd, lo, LLVMBuildSub(cg->b, hi, lo, "") };
		LLVMValueRef rest = LLVMBuildSub(cg->b, n, od.skip, "");
		cg_counted_loop(cg, cg_i64(cg, 0), rest, CG_VEC_DEFAULT, outside_step, &od);
		return;
	}
	test = cg_version_test(cg, node, fd->init, end);
	if (!test) {
		cg_counted_loop(cg, cg_i64(cg, 0), n, vec, cg_for_step, fd);
		return;
	}
	/* the loop in two versions (version.c) */
	LLVMBasicBlockRef fast = cg_block(cg, "cases.first"), general = cg_block(cg, "cases.any"),
		join = cg_block(cg, "cases.end");
	LLVMBuildCondBr(cg->b, test, fast, general);
	LLVMPositionBuilderAtEnd(cg->b, fast);
	cg->version_forced = true;
	cg_counted_loop(cg, cg_i64(cg, 0), n, vec, cg_for_step, fd);
	cg->version_forced = false;
	LLVMBuildBr(cg->b, join);
	LLVMPositionBuilderAtEnd(cg->b, general);
	cg_counted_loop(cg, cg_i64(cg, 0), n, vec, cg_for_step, fd);
	LLVMBuildBr(cg->b, join);
	LLVMPositionBuilderAtEnd(cg->b, join);
}

/* Whether a statement under node reads an array at an index computed
 * from data, and none writes a buffer that shares its memory. */
static bool data_index(const pt_expr *e, const void *data)
{
	(void)data;
	if (e->kind != PT_E_CALL || (!e->stage && !e->image))
		return false;
	for (int d = 0; d < e->nargs; d++)
		if (pt_expr_has_call(e->args[d]))
			return true;
	return false;
}

typedef struct data_reads {
	const pt_cg *cg;
	bool found, shared;
} data_reads;

static isl_bool note_data_reads(__isl_keep isl_ast_node *node, void *user)
{
	data_reads *r = user;
	if (isl_ast_node_get_type(node) != isl_ast_node_user)
		return isl_bool_true;
	const pt_stage *s = cg_user_stmt(r->cg, node)->stage;
	if (r->cg->stage[s->id].shared) {
		/* its stores may alias the gathers' arrays: LLVM keeps the loop
		 * scalar, where 64-bit offsets fold into addressing better
		 * (bilateral grid's naive slicing ran 1.3x slower in 32) */
		r->shared = true;
		return isl_bool_false;
	}
	for (int k = 0; k < s->ncases && !r->found; k++)
		r->found = pt_expr_any(s->cases[k].cond, data_index, NULL) || pt_expr_any(s->cases[k].value, data_index, NULL);
	return r->found ? isl_bool_false : isl_bool_true;
}

static bool reads_at_data(const pt_cg *cg, __isl_keep isl_ast_node *node)
{
	data_reads r = { cg, false, false };
	isl_ast_node_foreach_descendant_top_down(node, &note_data_reads, &r);
	return r.found && !r.shared;
}

/* The loop: an innermost one in versions on its statements' cases, or
 * any other as it is. */
static void innermost_or_not(pt_cg *cg, cg_for_data *fd, LLVMValueRef n, cg_vectorize vec, bool parallel)
{
	if (fd->inc > 0 && cg_for_innermost(fd->node)) {
		LLVMValueRef end = LLVMBuildNSWAdd(cg->b, fd->init, LLVMBuildNSWMul(cg->b,
			LLVMBuildNSWSub(cg->b, n, cg_i64(cg, 1), ""), cg_i64(cg, fd->inc), ""), "");
		LLVMValueRef whole = cg_version_whole_first(cg, fd->node, fd->init, end);
		if (whole) {
			/* the whole loop in the first case where a disjunct of it
			 * holds at both ends (version.c), else as below */
			LLVMBasicBlockRef first = cg_block(cg, "cases.whole"), rest = cg_block(cg, "cases.split"),
				join = cg_block(cg, "cases.done");
			LLVMBuildCondBr(cg->b, whole, first, rest);
			LLVMPositionBuilderAtEnd(cg->b, first);
			cg->version_forced = cg->version_first = true;
			cg_counted_loop(cg, cg_i64(cg, 0), n, vec, cg_for_step, fd);
			cg->version_forced = cg->version_first = false;
			LLVMBuildBr(cg->b, join);
			LLVMPositionBuilderAtEnd(cg->b, rest);
			innermost_versions(cg, fd, n, end, vec, parallel);
			LLVMBuildBr(cg->b, join);
			LLVMPositionBuilderAtEnd(cg->b, join);
			return;
		}
		innermost_versions(cg, fd, n, end, vec, parallel);
		return;
	}
	cg_counted_loop(cg, cg_i64(cg, 0), n, vec, cg_for_step, fd);
}

typedef struct loop_version {
	cg_for_data *fd;
	LLVMValueRef n;
	cg_vectorize vec;
	bool parallel;
} loop_version;

static void innermost_version(pt_cg *cg, void *data)
{
	loop_version *lv = data;
	innermost_or_not(cg, lv->fd, lv->n, lv->vec, lv->parallel);
}

static void loop(pt_cg *cg, __isl_keep isl_ast_node *node)
{
	cg->loop_depth++;
	loop_in(cg, node);
	cg->loop_depth--;
}

static void loop_in(pt_cg *cg, __isl_keep isl_ast_node *node)
{
	unsigned marks = pt_target_marks(node);
	bool parallel = marks & PT_MARK_PARALLEL;
	if ((marks & PT_MARK_EXCHANGE) && cg->target->exchange)
		exchange(cg, node);
	/* a serial loop around parallel ones (time steps) stays on the host
	 * of a GPU, which launches the parallel ones in each iteration */
	if ((parallel || (cg->target->launch_all && !has_parallel_loop(node))) && cg->parallel_depth == 0 &&
		cg->target->parallel_for) {
		launch(cg, node);
		return;
	}
	int k = thread_loop_of(cg, node, parallel || cg->atomic_updates);
	if (k >= 0 && fd_inc_is_one(node)) {
		thread_loop(cg, node, k);
		return;
	}
	if (cg->nthread_dims && cg->target->barrier && uniform_around_threads(cg, node)) {
		serial_with_barriers(cg, node);
		return;
	}
	cg_for_data fd = { .node = node };
	LLVMValueRef last;
	cg_loop_bounds(cg, node, &fd.init, &last, &fd.inc);
	LLVMValueRef n = cg_trip_count(cg, fd.init, last, fd.inc);
	/* forcing vectorization also lets LLVM reorder float reductions, so
	 * only loops without a carried dependence (the parallel ones) ask */
	cg_vectorize vec = cg_for_vectorize(cg, node, parallel, fd.inc);
	loop_version lv = { &fd, n, vec, parallel };
	/* offsets of data-dependent reads in 32 bits where every array is
	 * below 2 GiB (expr.c), else in 64 */
	if (cg_for_innermost(node) && reads_at_data(cg, node))
		cg_narrow_versions(cg, innermost_version, &lv);
	else
		innermost_version(cg, &lv);
}

typedef struct kernel_only {
	pt_cg *cg;
	int k;
	bool only;
} kernel_only;

static isl_bool user_of(__isl_keep isl_ast_node *node, void *user)
{
	kernel_only *ko = user;
	if (isl_ast_node_get_type(node) != isl_ast_node_user)
		return isl_bool_true;
	const pt_stmt *st = cg_user_stmt(ko->cg, node);
	ko->only = ko->only && st && ko->cg->kernels->of_stage[st->stage->id] == ko->k;
	return ko->only ? isl_bool_true : isl_bool_false;
}

/* The stepped kernel (target.h) all of whose statements node runs,
 * outside any loop, or -1. */
static int stepped_of(pt_cg *cg, __isl_keep isl_ast_node *node)
{
	if (!cg->target->stepped || cg->loop_depth > 0 || cg->in_steps || cg->parallel_depth > 0)
		return -1;
	const pt_kernel *k = kernel_of(cg, node);
	if (!k || !cg->target->stepped(cg, k->index))
		return -1;
	kernel_only ko = { cg, k->index, true };
	isl_ast_node_foreach_descendant_top_down(node, &user_of, &ko);
	return ko.only ? k->index : -1;
}

typedef struct steps_data {
	int k;
	isl_ast_node **nodes;
	int n;
} steps_data;

static void step_body(pt_cg *cg, LLVMValueRef t, void *data)
{
	steps_data *sd = data;
	cg->target->step(cg, sd->k, t);
	for (int i = 0; i < sd->n; i++)
		cg_ast(cg, sd->nodes[i]);
}

/* nodes, the code of one step of stepped kernel k, in a loop over its
 * steps (every rank runs them all: each step's exchange is collective);
 * what the kernel reads of other kernels is exchanged once, before. */
static void steps(pt_cg *cg, int k, isl_ast_node **nodes, int n)
{
	exchange(cg, nodes[0]);
	LLVMValueRef first, last;
	cg->target->step_range(cg, k, &first, &last);
	steps_data sd = { k, nodes, n };
	cg->in_steps = true;
	cg_counted_loop(cg, first, LLVMBuildNSWAdd(cg->b, last, cg_i64(cg, 1), ""), CG_VEC_OFF, step_body, &sd);
	cg->in_steps = false;
}

/* A block's children in order, each run of them that is one stepped
 * kernel's code in one loop over its steps. */
static void block(pt_cg *cg, __isl_keep isl_ast_node *node)
{
	isl_ast_node_list *l = isl_ast_node_block_get_children(node);
	isl_size n = isl_ast_node_list_n_ast_node(l);
	isl_ast_node **c = calloc((size_t)n + 1, sizeof(*c));
	for (int i = 0; i < n; i++)
		c[i] = isl_ast_node_list_get_ast_node(l, i);
	for (int i = 0; i < n;) {
		int k = stepped_of(cg, c[i]), j = i + 1;
		while (k >= 0 && j < n && stepped_of(cg, c[j]) == k)
			j++;
		if (k >= 0)
			steps(cg, k, c + i, j - i);
		else
			cg_ast(cg, c[i]);
		i = j;
	}
	for (int i = 0; i < n; i++)
		isl_ast_node_free(c[i]);
	free(c);
	isl_ast_node_list_free(l);
}

void cg_ast(pt_cg *cg, __isl_keep isl_ast_node *node)
{
	int sk = isl_ast_node_get_type(node) == isl_ast_node_block ? -1 : stepped_of(cg, node);
	if (sk >= 0) {
		steps(cg, sk, &node, 1);
		return;
	}
	exchange_before(cg, node);
	switch (isl_ast_node_get_type(node)) {
	case isl_ast_node_for:
		loop(cg, node);
		break;
	case isl_ast_node_if:
		cg_if(cg, node, ast_branch, NULL);
		break;
	case isl_ast_node_block:
		block(cg, node);
		break;
	case isl_ast_node_mark: {
		if (cg->target->launch_all && cg->parallel_depth == 0) {
			launch(cg, node);
			break;
		}
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
		if (cg->target->launch_all && cg->parallel_depth == 0)
			launch(cg, node);
		else
			user(cg, node);
		break;
	default:
		break;
	}
}
