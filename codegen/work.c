/* work.c: the share of a pipeline's work that a parallel loop does, at
 * the params' estimates (cg.h).  The loops with the smallest shares,
 * together at most COLD_SHARE of the work, are cold: LLVM's loop
 * strength reduction, a third of its time on object code, and O3 over
 * O2 are spent on the others only (machine.c, split.c), so at most that
 * share of the work runs without them (7% and 10-15% slower on harris
 * and heat3d, the most either was seen to cost: bench/results.md). */
#include <stdlib.h>

#include <isl/id.h>

#include "cg.h"
#include "machine.h"

#define COLD_SHARE 0.05

struct cg_work {
	LLVMValueRef worker, kernel;
	double pts;                 /* at the estimates; -1: not known */
	int order;                  /* noted order */
};

/* Points of statement st at the params' values v: its stage's box (an
 * update: the reduction's box), divided among the parts of a split
 * stage; -1 when a bound cannot be evaluated. */
static double stmt_points(const pt_stmt *st, const int64_t *v)
{
	const pt_stage *s = st->stage;
	bool upd = st->kind == PT_STMT_UPDATE;
	int n = upd ? s->nrdim : s->ndim;
	const pt_interval *iv = upd ? s->rdom : s->dom;
	double pts = 1;
	for (int d = 0; d < n; d++) {
		int64_t lo, hi;
		if (!pt_interval_eval(&iv[d], v, &lo, &hi))
			return -1;
		pts *= hi < lo ? 0 : (double)((hi - lo) / iv[d].step + 1);
	}
	return pts / (st->split > 1 ? st->split : 1);
}

/* The params' estimates into v; false when one has none. */
static bool estimates(const pt_pipeline *p, int64_t *v)
{
	for (int i = 0; i < p->nparams; i++) {
		if (!p->params[i].has_estimate)
			return false;
		v[i] = (int64_t)p->params[i].estimate;
	}
	return true;
}

typedef struct {
	const pt_cg *cg;
	const int64_t *v;
	bool *seen;                 /* per statement of the model */
	double pts;
	bool unknown;
} under;

static isl_bool add_user(__isl_keep isl_ast_node *node, void *user)
{
	under *u = user;
	if (isl_ast_node_get_type(node) != isl_ast_node_user)
		return isl_bool_true;
	const pt_stmt *st = cg_user_stmt(u->cg, node);
	int i = st ? (int)(st - u->cg->model->stmts->s) : -1;
	if (i < 0 || i >= u->cg->model->stmts->n) {
		u->unknown = true;
		return isl_bool_false;
	}
	if (!u->seen[i]) {
		u->seen[i] = true;
		double n = stmt_points(st, u->v);
		u->unknown = u->unknown || n < 0;
		u->pts += n;
	}
	return isl_bool_false;
}

/* The points the statements under node run at the estimates v, or -1
 * when one is not known. */
static double points_under(const pt_cg *cg, __isl_keep isl_ast_node *node, const int64_t *v)
{
	bool *seen = calloc((size_t)cg->model->stmts->n + 1, sizeof(bool));
	under u = { .cg = cg, .v = v, .seen = seen };
	bool ok = seen && isl_ast_node_foreach_descendant_top_down(node, &add_user, &u) >= 0 && !u.unknown;
	free(seen);
	return ok ? u.pts : -1;
}

void cg_work_note(pt_cg *cg, __isl_keep isl_ast_node *node, LLVMValueRef worker, LLVMValueRef kernel)
{
	const pt_pipeline *p = cg->p;
	int64_t *v = calloc((size_t)p->nparams + 1, sizeof(int64_t));
	double pts = v && estimates(p, v) ? points_under(cg, node, v) : -1;
	free(v);
	/* a tile's nests (nests.c) are noted on their own while the kernel
	 * calling them is built: the kernel's share is the rest */
	bool known = pts >= 0 && cg->nest_points >= 0;
	if (!worker) {
		cg->nest_points = known ? cg->nest_points + pts : -1;
	} else {
		pts = known ? pts - cg->nest_points : -1;
		cg->nest_points = 0;
	}
	cg_work *w = realloc(cg->work, sizeof(*w) * (size_t)(cg->nwork + 1));
	if (!w)
		return;     /* the loop stays hot */
	cg->work = w;
	w[cg->nwork] = (cg_work){ worker, kernel, pts, cg->nwork };
	cg->nwork++;
}

/* Smallest first; equal ones in the order noted, so that the objects
 * do not depend on qsort's choices. */
static int by_points(const void *a, const void *b)
{
	const cg_work *x = a, *y = b;
	if (x->pts != y->pts)
		return x->pts < y->pts ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/* The points of every statement at the estimates v, or -1. */
static double total_points(const pt_cg *cg, const int64_t *v)
{
	const pt_stmts *sts = cg->model->stmts;
	double total = 0;
	for (int i = 0; i < sts->n; i++) {
		double n = stmt_points(&sts->s[i], v);
		if (n < 0)
			return -1;
		total += n;
	}
	return total;
}

void cg_work_mark_cold(pt_cg *cg)
{
	const pt_pipeline *p = cg->p;
	int64_t *v = calloc((size_t)p->nparams + 1, sizeof(int64_t));
	double total = v && estimates(p, v) ? total_points(cg, v) : -1;
	bool known = total > 0;
	for (int i = 0; i < cg->nwork; i++)
		known = known && cg->work[i].pts >= 0;
	if (known && cg->nwork > 0) {
		qsort(cg->work, (size_t)cg->nwork, sizeof(*cg->work), by_points);
		double sum = 0;
		for (int i = 0; i < cg->nwork && (sum += cg->work[i].pts) <= COLD_SHARE * total; i++) {
			if (cg->work[i].worker)
				pt_machine_mark_cold(cg->work[i].worker);
			pt_machine_mark_cold(cg->work[i].kernel);
		}
	}
	free(v);
	free(cg->work);
	cg->work = NULL;
	cg->nwork = 0;
}
