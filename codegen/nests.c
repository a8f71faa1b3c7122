/* nests.c: the loop nests of a tile, each a function of its own.
 *
 * A tiled group's kernel runs, in each tile, one loop nest per stage (or
 * fused run of stages).  Kept in one function, LLVM's loop strength
 * reduction sees every address of every nest as a use of the tile loops'
 * induction variables, and its cost grows faster than the function:
 * pyramid_blend's collapse kernels (8 stages) spent 45% of their
 * optimization in it, against 24% for the naive schedule's one-stage
 * kernels.  A nest in a function of its own costs LLVM what the naive
 * kernel of its stage does, and the pieces the module is cut into for
 * LLVM's threads (split.c) balance at the grain of a nest.  A call per
 * nest per tile costs nothing measurable next to a tile's work.
 *
 * The nest's function takes the closure of what it reads (closure.c);
 * a stage kept in a scalar (scratch.c) lives in one fused nest, so its
 * alloca moves into that nest's function, where LLVM keeps it in a
 * register.  A nest's share of the work is its own (work.c): it may be
 * cold where its kernel is not. */
#include <stdio.h>
#include <stdlib.h>

#include "cg.h"

/* Whether node is worth a function: a loop (a user node alone is one
 * statement). */
static bool is_nest(__isl_keep isl_ast_node *node)
{
	return isl_ast_node_get_type(node) == isl_ast_node_for;
}

static void nest(pt_cg *cg, const pt_group *g, __isl_keep isl_ast_node *node)
{
	/* the scalars stay out of the closure (see above) */
	LLVMValueRef *scalar = calloc((size_t)g->nstages, sizeof(*scalar));
	for (int i = 0; i < g->nstages; i++) {
		cg_array *a = &cg->stage[g->stages[i]->id];
		if (a->scalar) {
			scalar[i] = a->ptr;
			a->ptr = NULL;
		}
	}
	cg_closure c;
	cg_closure_capture(cg, &c, node);
	cg_closure_drop_constants(&c);
	LLVMValueRef *args = malloc(sizeof(*args) * (size_t)(c.n + 1));
	for (int i = 0; i < c.n; i++)
		args[i] = *c.slot[i];
	LLVMValueRef outer = cg->fn;
	LLVMBasicBlockRef resume = LLVMGetInsertBlock(cg->b);
	char name[64];
	snprintf(name, sizeof(name), "%s.nest%d", cg->fname, cg->nfuncs++);
	LLVMValueRef f = cg_closure_function(cg, &c, name, NULL, 0);
	/* split.c keeps a function with its callees unless they are noinline */
	unsigned noinline = LLVMGetEnumAttributeKindForName("noinline", 8);
	LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(cg->llc, noinline, 0));
	cg_stream_mark_nest(cg, f);
	for (int i = 0; i < g->nstages; i++)
		if (scalar[i])
			cg->stage[g->stages[i]->id].ptr = cg_entry_alloca(cg, cg_type(cg, g->stages[i]->type));
	int streams = cg->streams;
	cg_ast(cg, node);
	cg->nest_streams = cg->nest_streams || cg->streams > streams;
	cg_work_note(cg, node, NULL, f);
	LLVMBuildRetVoid(cg->b);
	cg_closure_restore(cg, &c);
	for (int i = 0; i < g->nstages; i++)
		if (scalar[i])
			cg->stage[g->stages[i]->id].ptr = scalar[i];
	cg->fn = outer;
	LLVMPositionBuilderAtEnd(cg->b, resume);
	LLVMBuildCall2(cg->b, LLVMGlobalGetValueType(f), f, args, (unsigned)c.n, "");
	cg_closure_free(&c);
	free(args);
	free(scalar);
}

void cg_tile_nests(pt_cg *cg, const pt_group *g, __isl_keep isl_ast_node *body)
{
	isl_ast_node_list *l = isl_ast_node_get_type(body) == isl_ast_node_block ?
		isl_ast_node_block_get_children(body) : NULL;
	isl_size n = l ? isl_ast_node_list_n_ast_node(l) : 0;
	int loops = 0;
	for (int i = 0; i < n; i++) {
		isl_ast_node *c = isl_ast_node_list_get_at(l, i);
		loops += is_nest(c);
		isl_ast_node_free(c);
	}
	/* one nest: the kernel is that nest already; outside a kernel (a
	 * tile loop isl left out, of one iteration) there is no kernel to
	 * fence the nests' streamed stores and take the rest of the work */
	if (loops < 2 || cg->parallel_depth == 0 || g->tsteps) {
		isl_ast_node_list_free(l);
		cg_ast(cg, body);
		return;
	}
	for (int i = 0; i < n; i++) {
		isl_ast_node *c = isl_ast_node_list_get_at(l, i);
		if (is_nest(c))
			nest(cg, g, c);
		else
			cg_ast(cg, c);
		isl_ast_node_free(c);
	}
	isl_ast_node_list_free(l);
}
