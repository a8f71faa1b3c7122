/* scratch.c: the scratchpads of a tiled group (poly/tile.h).  A stage
 * that lives only inside the group's tiles gets, in each tile, a buffer
 * of the widened tile's size from the target, laid out like a full
 * buffer (the last dim unit-stride); its element 0 is the widened tile's
 * first point, so indices are moved by that origin.  A stage whose
 * readers all run in its own fused nest (statements.c) and read it at
 * their own point needs no buffer: one scalar, which LLVM keeps in a
 * register (harris's Ix, Iy and box sums). */
#include <stdlib.h>

#include "cg.h"
#include "target.h"

/* Extent of scratchpad a in stage dim d: the stage's points in the
 * widened tile along a tiled dim, the domain box along any other. */
static LLVMValueRef extent(pt_cg *cg, const pt_stage *s, const pt_group *g, int si, int d)
{
	int64_t n = pt_group_scratch_extent(g, si, d);
	return n >= 0 ? cg_i64(cg, n) : cg_box_extent(cg, s, d);
}

/* ---- stages kept in a scalar ---- */

typedef struct nests {
	const pt_cg *cg;
	int *nest;              /* per stage id: the block of user nodes it is in, or -1 */
	int n;
} nests;

/* Numbers each block whose children are all user nodes (the body of a
 * fused nest, poly/statements.c) and notes its stages. */
static isl_bool note_block(__isl_keep isl_ast_node *node, void *user)
{
	nests *ns = user;
	if (isl_ast_node_get_type(node) != isl_ast_node_block)
		return isl_bool_true;
	isl_ast_node_list *l = isl_ast_node_block_get_children(node);
	isl_size n = isl_ast_node_list_n_ast_node(l);
	bool users = n > 1;
	for (int i = 0; i < n && users; i++) {
		isl_ast_node *c = isl_ast_node_list_get_at(l, i);
		users = isl_ast_node_get_type(c) == isl_ast_node_user;
		isl_ast_node_free(c);
	}
	for (int i = 0; i < n && users; i++) {
		isl_ast_node *c = isl_ast_node_list_get_at(l, i);
		ns->nest[cg_user_stmt(ns->cg, c)->stage->id] = ns->n;
		isl_ast_node_free(c);
	}
	ns->n += users;
	isl_ast_node_list_free(l);
	return isl_bool_true;
}

void cg_scratch_begin(pt_cg *cg, const pt_group *g, __isl_keep isl_ast_node *tile)
{
	nests ns = { cg, malloc(sizeof(int) * (size_t)(cg->p->nstages + 1)), 0 };
	for (int i = 0; i < cg->p->nstages; i++)
		ns.nest[i] = -1;
	isl_ast_node_foreach_descendant_top_down(tile, note_block, &ns);
	for (int i = 0; i < g->nstages; i++) {
		const pt_stage *s = g->stages[i];
		if (g->liveout[i])
			continue;
		cg_array *a = &cg->stage[s->id];
		a->ndim = s->ndim;
		a->type = s->type;
		a->group = g;
		a->si = i;
		a->scalar = pt_group_stage_is_scalar(g, i, ns.nest);
		if (a->scalar) {
			a->ptr = cg_entry_alloca(cg, cg_type(cg, s->type));
			continue;
		}
		LLVMValueRef count = cg_i64(cg, 1);
		for (int d = s->ndim - 1; d >= 0; d--) {
			if (d < s->ndim - 1)
				a->stride[d] = count;
			count = LLVMBuildMul(cg->b, count, extent(cg, s, g, i, d), "");
		}
		LLVMValueRef bytes = LLVMBuildMul(cg->b, count, cg_i64(cg, (int64_t)pt_type_size((pt_type)s->type)), "");
		a->ptr = cg->target->scratch(cg, i, bytes);
	}
	free(ns.nest);
}

/* The scratchpads' values belong to the function that bound them (the
 * tile loop's worker): nothing outside may capture them. */
void cg_scratch_end(pt_cg *cg, const pt_group *g)
{
	for (int i = 0; i < g->nstages; i++)
		if (!g->liveout[i]) {
			cg->stage[g->stages[i]->id].ptr = NULL;
			cg->stage[g->stages[i]->id].scalar = false;
		}
}

/* floor(a / b) for b > 0. */
static LLVMValueRef floor_div(pt_cg *cg, LLVMValueRef a, int64_t b)
{
	if (b == 1)
		return a;
	LLVMValueRef q = LLVMBuildSDiv(cg->b, a, cg_i64(cg, b), "");
	LLVMValueRef neg = LLVMBuildICmp(cg->b, LLVMIntSLT, LLVMBuildSRem(cg->b, a, cg_i64(cg, b), ""), cg_i64(cg, 0), "");
	return LLVMBuildSub(cg->b, q, LLVMBuildZExt(cg->b, neg, cg->i64, ""), "");
}

LLVMValueRef cg_scratch_origin(pt_cg *cg, const cg_array *a, int d)
{
	const pt_group *g = a->group;
	const pt_stage *s = g->stages[a->si];
	int k = pt_group_tile_of_dim(g, a->si, d);
	if (k < 0)
		return cg_param_expr(cg, s->dom[d].lo);
	/* the widened tile's first group coordinate, in the stage's */
	LLVMValueRef t = LLVMBuildNSWMul(cg->b, cg->tile[k], cg_i64(cg, g->tsize[k]), "");
	t = LLVMBuildNSWAdd(cg->b, t, cg_i64(cg, g->torig[k] - g->ext[a->si][g->tdim[k]][0]), "");
	return floor_div(cg, t, g->scale[a->si][d]);
}
