/* closure.c: the values code sees (params, array pointers and strides,
 * loop iterators), captured so that a loop can move into a function of
 * its own: the parallel worker, and the kernel whose pointer arguments
 * are noalias so that LLVM may vectorize without run-time alias checks. */
#include <stdlib.h>

#include <isl/id.h>

#include "cg.h"

static void push_ptr(cg_closure *c, LLVMValueRef *slot, LLVMTypeRef t, bool noalias)
{
	c->slot = realloc(c->slot, sizeof(*c->slot) * (size_t)(c->n + 1));
	c->type = realloc(c->type, sizeof(*c->type) * (size_t)(c->n + 1));
	c->saved = realloc(c->saved, sizeof(*c->saved) * (size_t)(c->n + 1));
	c->noalias = realloc(c->noalias, sizeof(*c->noalias) * (size_t)(c->n + 1));
	c->slot[c->n] = slot;
	c->type[c->n] = t;
	c->saved[c->n] = *slot;
	c->noalias[c->n] = noalias;
	c->n++;
}

static void push(cg_closure *c, LLVMValueRef *slot, LLVMTypeRef t)
{
	push_ptr(c, slot, t, false);
}

static void arrays(pt_cg *cg, cg_closure *c, cg_array *a, int n, const bool *used)
{
	for (int i = 0; i < n; i++) {
		if (!a[i].ptr || (used && !used[i]))
			continue;
		push_ptr(c, &a[i].ptr, cg->ptr, !a[i].shared);
		if (a[i].mask)
			push_ptr(c, &a[i].mask, cg->ptr, true);
		for (int d = 0; d < a[i].ndim - 1; d++)
			push(c, &a[i].stride[d], cg->i64);
		for (int d = 0; d < a[i].ndim; d++)
			if (a[i].origin[d])
				push(c, &a[i].origin[d], cg->i64);
	}
}

struct uses {
	const pt_cg *cg;
	bool *stages, *images;
};

/* Marks the array a CALL node reads. */
static void call_uses(const pt_expr *e, void *user)
{
	struct uses *u = user;
	if (e->kind != PT_E_CALL)
		return;
	if (e->stage)
		u->stages[e->stage->id] = true;
	if (e->image)
		u->images[e->image->id] = true;
}

static isl_bool node_uses(__isl_keep isl_ast_node *node, void *user)
{
	struct uses *u = user;
	if (isl_ast_node_get_type(node) != isl_ast_node_user)
		return isl_bool_true;
	const pt_stage *s = cg_user_stmt(u->cg, node)->stage;
	u->stages[s->id] = true;
	if (u->cg->stage[s->id].plane_out)
		u->stages[u->cg->stage[s->id].plane_out->id] = true;
	pt_expr_walk(s->init, call_uses, u);
	for (int k = 0; k < s->ncases; k++) {
		pt_expr_walk(s->cases[k].cond, call_uses, u);
		pt_expr_walk(s->cases[k].value, call_uses, u);
		for (int d = 0; s->cases[k].target && d < s->ndim; d++)
			pt_expr_walk(s->cases[k].target[d], call_uses, u);
	}
	return isl_bool_true;
}

void cg_closure_capture(pt_cg *cg, cg_closure *c, __isl_keep isl_ast_node *node)
{
	c->n = 0;
	c->slot = NULL;
	c->type = NULL;
	c->saved = NULL;
	c->noalias = NULL;
	for (int q = 0; q < cg->p->nparams; q++)
		push(c, &cg->param[q], cg_type(cg, cg->p->params[q].type));
	if (cg->narrow_ok)
		push(c, &cg->narrow_ok, cg->i1);
	/* only the arrays the outlined code reads or writes travel */
	struct uses u = { cg, NULL, NULL };
	if (node) {
		u.stages = calloc((size_t)cg->p->nstages + 1, sizeof(bool));
		u.images = calloc((size_t)cg->p->nimages + 1, sizeof(bool));
		isl_ast_node_foreach_descendant_top_down(node, &node_uses, &u);
	}
	arrays(cg, c, cg->stage, cg->p->nstages, u.stages);
	arrays(cg, c, cg->image, cg->p->nimages, u.images);
	free(u.stages);
	free(u.images);
	for (int i = 0; i < cg->niters; i++)
		push(c, &cg->iter[i].v, cg->i64);
}

void cg_closure_drop_constants(cg_closure *c)
{
	int n = 0;
	for (int i = 0; i < c->n; i++)
		if (!LLVMIsConstant(c->saved[i])) {
			c->slot[n] = c->slot[i];
			c->type[n] = c->type[i];
			c->saved[n] = c->saved[i];
			c->noalias[n] = c->noalias[i];
			n++;
		}
	c->n = n;
}

void cg_closure_restore(pt_cg *cg, cg_closure *c)
{
	for (int i = 0; i < c->n; i++)
		*c->slot[i] = c->saved[i];
}

void cg_closure_free(cg_closure *c)
{
	free(c->slot);
	free(c->type);
	free(c->saved);
	free(c->noalias);
	c->slot = NULL;
	c->type = NULL;
	c->saved = NULL;
	c->noalias = NULL;
	c->n = 0;
}

LLVMValueRef cg_closure_function(pt_cg *cg, cg_closure *c, const char *name,
	LLVMTypeRef *extra, int nextra)
{
	int n = c->n + nextra;
	LLVMTypeRef *pt = malloc(sizeof(*pt) * (size_t)(n + 1));
	for (int i = 0; i < c->n; i++)
		pt[i] = c->type[i];
	for (int i = 0; i < nextra; i++)
		pt[c->n + i] = extra[i];
	LLVMTypeRef fty = LLVMFunctionType(cg->vd, pt, (unsigned)n, 0);
	LLVMValueRef f = LLVMAddFunction(cg->mod, name, fty);
	LLVMSetLinkage(f, LLVMInternalLinkage);
	unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
	for (int i = 0; i < c->n; i++) {
		if (c->noalias[i])
			LLVMAddAttributeAtIndex(f, (unsigned)i + 1, LLVMCreateEnumAttribute(cg->llc, noalias, 0));
		*c->slot[i] = LLVMGetParam(f, (unsigned)i);
	}
	free(pt);
	cg->fn = f;
	LLVMPositionBuilderAtEnd(cg->b, LLVMAppendBasicBlockInContext(cg->llc, f, "entry"));
	return f;
}

LLVMValueRef cg_closure_pack(pt_cg *cg, cg_closure *c, LLVMTypeRef *sty)
{
	*sty = LLVMStructTypeInContext(cg->llc, c->type, (unsigned)c->n, 0);
	LLVMValueRef a = cg_entry_alloca(cg, *sty);
	for (int i = 0; i < c->n; i++) {
		LLVMValueRef p = LLVMBuildStructGEP2(cg->b, *sty, a, (unsigned)i, "");
		LLVMBuildStore(cg->b, *c->slot[i], p);
	}
	return a;
}

void cg_closure_unpack(pt_cg *cg, cg_closure *c, LLVMTypeRef sty, LLVMValueRef ctx)
{
	for (int i = 0; i < c->n; i++) {
		LLVMValueRef p = LLVMBuildStructGEP2(cg->b, sty, ctx, (unsigned)i, "");
		*c->slot[i] = LLVMBuildLoad2(cg->b, c->type[i], p, "");
	}
}
