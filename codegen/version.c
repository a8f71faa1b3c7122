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
 * tiles), and the general one. */
#include <stdlib.h>
#include <string.h>

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

LLVMValueRef cg_version_test(pt_cg *cg, __isl_keep isl_ast_node *node, LLVMValueRef first, LLVMValueRef last)
{
	found f = { cg, NULL, 0, 0 };
	isl_ast_node *body = isl_ast_node_for_get_body(node);
	isl_ast_node_foreach_descendant_top_down(body, &note_user, &f);
	isl_ast_node_free(body);
	isl_ast_expr *itx = isl_ast_node_for_get_iterator(node);
	isl_id *itid = isl_ast_expr_get_id(itx);
	bool ok = true;
	for (int i = 0; i < f.n && ok; i++)
		ok = moves_innermost_only(cg, f.users[i], isl_id_get_name(itid));
	isl_id_free(itid);
	isl_ast_expr_free(itx);
	LLVMValueRef all = NULL;
	LLVMValueRef ends[] = { first, last };
	for (int i = 0; i < f.n; i++) {
		for (int e = 0; e < 2 && ok; e++) {
			cg_bind_iter(cg, node, ends[e]);
			LLVMValueRef c = cg_user_cond(cg, f.users[i], 0);
			cg_unbind_iter(cg);
			all = all ? LLVMBuildAnd(cg->b, all, c, "") : c;
		}
		isl_ast_node_free(f.users[i]);
	}
	free(f.users);
	return all;
}
