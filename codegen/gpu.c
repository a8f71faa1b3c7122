/* gpu.c: the GPU mapping of a schedule, shared by the CUDA target and
 * its emulation on the CPU (gpu_emu.c), which differ only in where a
 * kernel's code goes and how it is launched (gpu.h).
 *
 * Every outermost piece of the schedule (loop nest, tile, statement) is
 * one launch: all of it runs on the device.  Inside a launch,
 *   blocks   the outermost run of perfectly nested parallel loops (a
 *            tiled kernel's tile band, down to its "tile" mark; an
 *            untiled nest's loops but the innermost) is the grid: one
 *            block per iteration, the block index decoded into the
 *            loops' iterators; a launch of one parallel loop (a lookup
 *            table) spreads it over blocks of 256 lanes;
 *   threads  the two innermost schedule dims over which every loop of
 *            the launch is parallel with unit step are the block's x and
 *            y (a tiled kernel's block as the GPU tile model chose it
 *            with the tiles, else 32 x 8; 256 threads along one): a loop over one runs, in each thread, the iterations
 *            congruent to the thread's index (ast.c), so that the
 *            innermost dim is spread across a warp (coalesced accesses)
 *            and a point is always computed by the same thread; a
 *            statement outside such loops runs in thread 0 along them;
 *   tiles    the scratchpads are the block's shared memory; a barrier
 *            starts each tile (a block may run several) and separates
 *            its loop nests, so that a nest reads what every thread of
 *            the block wrote before it.
 * A serial loop (a reduction, a time step) is one thread's: the block
 * is a single thread when no dim is parallel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/id.h>
#include <isl/val.h>

#include "gpu.h"
#include "stream_plan.h"

/* What one launch maps. */
typedef struct gpu_plan {
	bool atomic;                        /* every statement an atomic update */
	int nchain;
	isl_ast_node *chain[CG_MAX_ITERS];  /* block loops, outermost first */
	int nthread;
	int thread_dim[2];
	int64_t block[2];
	/* > 1: a launch with no thread loops (each block's work serial: a
	 * scan, a factored reduction's part) spreads its last block loop's
	 * iterations over this many threads of a block too, so that a block
	 * is a warp, not one thread */
	int64_t lanes;
	bool spread;                        /* the chain is one innermost loop (plan_chain) */
} gpu_plan;

static isl_bool for_is(const gpu_plan *pl, __isl_keep isl_ast_node *node, bool parallel_unit, int64_t *inc)
{
	if (isl_ast_node_get_type(node) != isl_ast_node_for)
		return isl_bool_false;
	isl_ast_expr *e = isl_ast_node_for_get_inc(node);
	isl_val *v = isl_ast_expr_get_val(e);
	*inc = v ? isl_val_get_num_si(v) : 0;
	isl_val_free(v);
	isl_ast_expr_free(e);
	bool par = pl->atomic || (pt_target_marks(node) & PT_MARK_PARALLEL);
	return parallel_unit ? (par && *inc == 1) : par;
}

/* Whether a for node's bounds name an iterator of the chain so far. */
static bool bounds_name_chain(const gpu_plan *pl, __isl_keep isl_ast_node *node)
{
	isl_ast_expr *init = isl_ast_node_for_get_init(node), *cond = isl_ast_node_for_get_cond(node);
	bool named = false;
	for (int i = 0; i < pl->nchain && !named; i++) {
		isl_ast_expr *it = isl_ast_node_for_get_iterator(pl->chain[i]);
		isl_id *id = isl_ast_expr_get_id(it);
		named = cg_ast_expr_mentions(init, isl_id_get_name(id)) || cg_ast_expr_mentions(cond, isl_id_get_name(id));
		isl_id_free(id);
		isl_ast_expr_free(it);
	}
	isl_ast_expr_free(init);
	isl_ast_expr_free(cond);
	return named;
}

/* The block loops: from node down, parallel loops that are not the
 * innermost and whose bounds the loops above leave fixed. */
static void plan_chain(gpu_plan *pl, __isl_keep isl_ast_node *node)
{
	int64_t inc;
	isl_ast_node *n = isl_ast_node_copy(node);
	while (for_is(pl, n, false, &inc) == isl_bool_true && !cg_for_innermost(n) && !bounds_name_chain(pl, n) &&
		pl->nchain < CG_MAX_ITERS) {
		pl->chain[pl->nchain++] = isl_ast_node_copy(n);
		isl_ast_node *body = isl_ast_node_for_get_body(n);
		isl_ast_node_free(n);
		n = body;
	}
	/* a launch that is one parallel loop (a lookup table's) would be
	 * one block whose threads step over all of it: its iterations go
	 * to blocks of lanes instead (plan_lanes) */
	if (pl->nchain == 0 && !pl->atomic && for_is(pl, n, false, &inc) == isl_bool_true) {
		pl->chain[pl->nchain++] = isl_ast_node_copy(n);
		pl->spread = true;
	}
	isl_ast_node_free(n);
}

typedef struct dims_seen {
	bool seen[CG_MAX_ITERS], ok[CG_MAX_ITERS];
	const gpu_plan *pl;
} dims_seen;

static bool in_chain(const gpu_plan *pl, __isl_keep isl_ast_node *node)
{
	for (int i = 0; i < pl->nchain; i++)
		if (pl->chain[i] == node)
			return true;
	return false;
}

static isl_bool note_dim(__isl_keep isl_ast_node *node, void *user)
{
	dims_seen *ds = user;
	int64_t inc;
	if (isl_ast_node_get_type(node) != isl_ast_node_for || in_chain(ds->pl, node))
		return isl_bool_true;
	int d = cg_for_dim(node);
	if (d < 0 || d >= CG_MAX_ITERS)
		return isl_bool_true;
	if (!ds->seen[d])
		ds->ok[d] = true;
	ds->seen[d] = true;
	ds->ok[d] = ds->ok[d] && for_is(ds->pl, node, true, &inc) == isl_bool_true;
	return isl_bool_true;
}

/* The thread dims: the two innermost schedule dims every loop over
 * which, below the block loops, is parallel with unit step. */
static void plan_threads(gpu_plan *pl, __isl_keep isl_ast_node *node)
{
	dims_seen ds = { .pl = pl };
	isl_ast_node_foreach_descendant_top_down(node, &note_dim, &ds);
	pl->nthread = 0;
	for (int d = CG_MAX_ITERS - 1; d >= 0 && pl->nthread < 2; d--)
		if (ds.seen[d] && ds.ok[d])
			pl->thread_dim[pl->nthread++] = d;
	pl->block[0] = pl->nthread == 0 ? 1 : pl->nthread == 1 ? 256 : 32;
	pl->block[1] = pl->nthread == 2 ? 8 : 1;
}

static isl_bool note_mark(__isl_keep isl_ast_node *node, void *user)
{
	bool *marked = user;
	*marked = *marked || isl_ast_node_get_type(node) == isl_ast_node_mark;
	return *marked ? isl_bool_false : isl_bool_true;
}

/* A warp's lanes along the last block loop where the launch has block
 * loops but no thread loops and no tiles (so no barrier: a lane past the
 * loop's end skips the body) and is not of atomic updates. */
static void plan_lanes(gpu_plan *pl, __isl_keep isl_ast_node *node)
{
	bool marked = false;
	isl_ast_node_foreach_descendant_top_down(node, &note_mark, &marked);
	if (pl->nthread == 0 && pl->nchain > 0 && !pl->atomic && !marked) {
		pl->lanes = pl->spread ? 256 : 32;
		pl->block[0] = pl->lanes;
	}
}

static void plan_free(gpu_plan *pl)
{
	for (int i = 0; i < pl->nchain; i++)
		isl_ast_node_free(pl->chain[i]);
}

/* The blocks along chain loop i of n iterations: n, or for the laned
 * last loop, n / lanes rounded up. */
static LLVMValueRef blocks_along(pt_cg *cg, const gpu_plan *pl, int i, LLVMValueRef n)
{
	if (i != pl->nchain - 1 || pl->lanes <= 1)
		return n;
	return LLVMBuildSDiv(cg->b, LLVMBuildAdd(cg->b, n, cg_i64(cg, pl->lanes - 1), ""), cg_i64(cg, pl->lanes), "");
}

/* In the kernel: the block loops' iterators from the block index, which
 * runs over their iterations' product, the innermost fastest (with
 * lanes, the last one's iterations lane by lane: block * lanes + tx);
 * returns whether this thread's iteration exists (an i1). */
static LLVMValueRef bind_blocks(pt_cg *cg, const gpu_plan *pl, LLVMValueRef block, LLVMValueRef tx, LLVMValueRef *init,
	LLVMValueRef *n)
{
	LLVMValueRef it[CG_MAX_ITERS], exists = LLVMConstInt(cg->i1, 1, 0);
	for (int i = pl->nchain - 1; i >= 0; i--) {
		int64_t inc = 1;   /* for_is sets it: the chain is of for loops */
		for_is(pl, pl->chain[i], false, &inc);
		bool laned = i == pl->nchain - 1 && pl->lanes > 1;
		LLVMValueRef nb = blocks_along(cg, pl, i, n[i]);
		LLVMValueRef k = LLVMBuildSRem(cg->b, block, nb, "");
		block = LLVMBuildSDiv(cg->b, block, nb, "");
		if (laned) {
			k = LLVMBuildAdd(cg->b, LLVMBuildMul(cg->b, k, cg_i64(cg, pl->lanes), ""),
				LLVMBuildZExt(cg->b, tx, cg->i64, ""), "");
			exists = LLVMBuildICmp(cg->b, LLVMIntSLT, k, n[i], "");
		}
		it[i] = LLVMBuildNSWAdd(cg->b, init[i], LLVMBuildNSWMul(cg->b, k, cg_i64(cg, inc), ""), "");
	}
	for (int i = 0; i < pl->nchain; i++)
		cg_bind_iter(cg, pl->chain[i], it[i]);
	return exists;
}

/* The kernel's body in the function being built, whose block and thread
 * indices are given: the block loops' iterators bound from the block,
 * what they enclose emitted with its loops spread over the threads. */
static void kernel_body(pt_cg *cg, const gpu_plan *pl, __isl_keep isl_ast_node *node, LLVMValueRef block,
	LLVMValueRef tx, LLVMValueRef ty, int first_pseudo)
{
	LLVMValueRef init[CG_MAX_ITERS], n[CG_MAX_ITERS];
	for (int i = 0; i < pl->nchain; i++) {
		init[i] = cg->iter[first_pseudo + 2 * i].v;
		n[i] = cg->iter[first_pseudo + 2 * i + 1].v;
	}
	LLVMValueRef exists = bind_blocks(cg, pl, block, tx, init, n);
	LLVMBasicBlockRef done = NULL;
	if (pl->lanes > 1) {
		/* the last block's lanes past the loop's end do nothing (no
		 * barrier follows: a laned launch has none) */
		LLVMBasicBlockRef on = cg_block(cg, "lane.on");
		done = cg_block(cg, "lane.done");
		LLVMBuildCondBr(cg->b, exists, on, done);
		LLVMPositionBuilderAtEnd(cg->b, on);
	}
	cg->nthread_dims = pl->nthread;
	LLVMValueRef tid[] = { tx, ty };
	for (int k = 0; k < pl->nthread; k++) {
		cg->thread_dim[k] = pl->thread_dim[k];
		cg->thread_id[k] = LLVMBuildSExt(cg->b, tid[k], cg->i64, "");
		cg->thread_n[k] = pl->block[k];
		cg->thread_bound[k] = 0;
	}
	if (pl->nchain) {
		isl_ast_node *body = isl_ast_node_for_get_body(pl->chain[pl->nchain - 1]);
		cg_ast(cg, body);
		isl_ast_node_free(body);
	} else {
		cg_ast(cg, node);
	}
	cg->nthread_dims = 0;
	if (done) {
		LLVMBuildBr(cg->b, done);
		LLVMPositionBuilderAtEnd(cg->b, done);
	}
	for (int i = 0; i < pl->nchain; i++)
		cg_unbind_iter(cg);
}

/* On the host: the block loops' first values and trip counts, bound as
 * pseudo-iterators (so that the kernel's closure carries them); returns
 * the number of blocks. */
static LLVMValueRef grid(pt_cg *cg, const gpu_plan *pl)
{
	LLVMValueRef blocks = cg_i64(cg, 1);
	for (int i = 0; i < pl->nchain; i++) {
		LLVMValueRef init, last;
		int64_t inc;
		cg_loop_bounds(cg, pl->chain[i], &init, &last, &inc);
		LLVMValueRef n = cg_trip_count(cg, init, last, inc);
		LLVMValueRef neg = LLVMBuildICmp(cg->b, LLVMIntSLT, n, cg_i64(cg, 0), "");
		n = LLVMBuildSelect(cg->b, neg, cg_i64(cg, 0), n, "");
		cg_push_iter(cg, "\001gpu.init", init);
		cg_push_iter(cg, "\001gpu.n", n);
		blocks = LLVMBuildMul(cg->b, blocks, blocks_along(cg, pl, i, n), "");
	}
	return blocks;
}

static void barrier(pt_cg *cg, const cg_gpu_flavour *fl);

typedef struct atomic_scan {
	const pt_cg *cg;
	bool all, any;
} atomic_scan;

static isl_bool note_atomic(__isl_keep isl_ast_node *node, void *user)
{
	atomic_scan *as = user;
	if (isl_ast_node_get_type(node) != isl_ast_node_user)
		return isl_bool_true;
	const pt_stmt *st = cg_user_stmt(as->cg, node);
	as->any = true;
	as->all = as->all && st && cg_stmt_atomic(st);
	return isl_bool_true;
}

/* Whether every statement under node is an update the device may do
 * atomically in any order (histogram's counts): then every loop of the
 * launch is parallel (a reduction's GPU form). */
static bool atomic_launch(const pt_cg *cg, __isl_keep isl_ast_node *node)
{
	atomic_scan as = { .cg = cg, .all = true };
	isl_ast_node_foreach_descendant_top_down(node, &note_atomic, &as);
	return as.any && as.all;
}

typedef struct first_kernel {
	const pt_cg *cg;
	int k;
} first_kernel;

static isl_bool note_kernel(__isl_keep isl_ast_node *node, void *user)
{
	first_kernel *fk = user;
	if (fk->k >= 0)
		return isl_bool_false;
	const pt_stmt *st = isl_ast_node_get_type(node) == isl_ast_node_user ? cg_user_stmt(fk->cg, node) : NULL;
	if (st && fk->cg->kernels)
		fk->k = fk->cg->kernels->of_stage[st->stage->id];
	return isl_bool_true;
}

/* The kernel description (pt_kernels) whose code the launch of node
 * runs, by its first statement (-1: none), named in the launch's name
 * for `explain --backend cuda`. */
static int launch_kernel(const pt_cg *cg, __isl_keep isl_ast_node *node)
{
	first_kernel fk = { cg, -1 };
	isl_ast_node_foreach_descendant_top_down(node, &note_kernel, &fk);
	return fk.k;
}

/* A tiled kernel's block as the GPU tile model chose it with its tiles
 * (pt_group.gpu_block), where the launch has two thread dims. */
static void plan_block(gpu_plan *pl, const pt_cg *cg, int kd)
{
	const pt_group *g = kd >= 0 && cg->kernels ? cg->kernels->k[kd].group : NULL;
	if (pl->nthread == 2 && g && g->gpu_block[0] > 0 && g->gpu_block[1] > 0) {
		pl->block[0] = g->gpu_block[0];
		pl->block[1] = g->gpu_block[1];
	}
}

void cg_gpu_launch(pt_cg *cg, __isl_keep isl_ast_node *node, const cg_gpu_flavour *fl)
{
	gpu_plan pl = { .atomic = atomic_launch(cg, node) };
	int kd = launch_kernel(cg, node);
	plan_chain(&pl, node);
	plan_threads(&pl, node);
	plan_block(&pl, cg, kd);
	plan_lanes(&pl, node);
	int first_pseudo = cg->niters;
	LLVMValueRef blocks = grid(cg, &pl);
	cg_closure c;
	cg_closure_capture(cg, &c, node);
	/* the block's threads share what these point to: nothing is noalias */
	for (int i = 0; i < c.n; i++)
		c.noalias[i] = false;
	char name[200];
	/* PTX names take no dots */
	if (kd >= 0)
		snprintf(name, sizeof(name), "%s_gpu%d_k%d", cg->fname, cg->nfuncs++, kd);
	else
		snprintf(name, sizeof(name), "%s_gpu%d", cg->fname, cg->nfuncs++);
	LLVMValueRef outer_fn = cg->fn;
	cg_gpu_kernel k = { 0 };
	fl->kernel_begin(cg, &c, name, &k);
	int before = cg->barriers;
	cg->atomic_updates = pl.atomic;
	/* privatized reductions: the block's copies in shared memory */
	cg_gpu_private pv = { 0 };
	int64_t nthreads = pl.block[0] * pl.block[1];
	LLVMValueRef tid = LLVMBuildAdd(cg->b, LLVMBuildZExt(cg->b, k.tx, cg->i64, ""),
		LLVMBuildMul(cg->b, LLVMBuildZExt(cg->b, k.ty, cg->i64, ""), cg_i64(cg, pl.block[0]), ""), "");
	bool priv = pl.atomic && cg_gpu_private_begin(cg, node, tid, nthreads, &pv);
	if (priv)
		barrier(cg, fl);
	kernel_body(cg, &pl, node, k.block, k.tx, k.ty, first_pseudo);
	if (priv) {
		barrier(cg, fl);
		cg_gpu_private_end(cg, tid, nthreads, &pv);
	}
	cg->atomic_updates = false;
	k.barriers = cg->barriers - before;
	LLVMBuildRetVoid(cg->b);
	cg_closure_restore(cg, &c);
	cg->fn = outer_fn;
	LLVMPositionBuilderAtEnd(cg->b, k.resume);
	int64_t bd[] = { pl.block[0], pl.block[1] };
	fl->launch(cg, &k, blocks, bd);
	if (kd >= 0 && cg->kernels->stream && kd == cg->kernels->stream->kernel)
		cg->stream_launch = k.id;
	cg_closure_free(&c);
	for (int i = 0; i < 2 * pl.nchain; i++)
		cg_unbind_iter(cg);
	plan_free(&pl);
}

static void barrier(pt_cg *cg, const cg_gpu_flavour *fl)
{
	cg->barriers++;
	fl->barrier(cg);
}

/* The nests of a tile, a barrier between two: the later may read what
 * any thread wrote in the earlier.  Guards around nests are uniform in a
 * block (tile coordinates and params), so a barrier inside one is
 * reached by every thread or by none. */
static void nests(pt_cg *cg, const cg_gpu_flavour *fl, __isl_keep isl_ast_node *node);

static void nests_branch(pt_cg *cg, __isl_keep isl_ast_node *node, void *data)
{
	nests(cg, data, node);
}

static void nests(pt_cg *cg, const cg_gpu_flavour *fl, __isl_keep isl_ast_node *node)
{
	enum isl_ast_node_type t = isl_ast_node_get_type(node);
	if (t == isl_ast_node_block) {
		isl_ast_node_list *l = isl_ast_node_block_get_children(node);
		isl_size n = isl_ast_node_list_n_ast_node(l);
		for (int i = 0; i < n; i++) {
			isl_ast_node *c = isl_ast_node_list_get_at(l, i);
			if (i > 0)
				barrier(cg, fl);
			nests(cg, fl, c);
			isl_ast_node_free(c);
		}
		isl_ast_node_list_free(l);
		return;
	}
	if (t != isl_ast_node_if) {
		cg_ast(cg, node);
		return;
	}
	cg_if(cg, node, nests_branch, (void *)fl);
}

void cg_gpu_tile(pt_cg *cg, const pt_kernel *k, __isl_keep isl_ast_node *body, const cg_gpu_flavour *fl)
{
	cg_bind_tile(cg, k, body);
	/* the block's previous tile, if any, is done with shared memory */
	barrier(cg, fl);
	LLVMBasicBlockRef skip = cg_scratch_begin(cg, k);
	nests(cg, fl, body);
	cg_scratch_end(cg, k, skip);
}
