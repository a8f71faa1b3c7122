/* expr_limits.c: measuring expressions against the limits of expr_limits.h.
 *
 * The measure walks with its own stack on the heap: it is what stands
 * between a hostile tree and the recursive passes, so it must not
 * recurse itself. */
#include <stdio.h>
#include <stdlib.h>

#include "alloc.h"
#include "expr_limits.h"

typedef struct frame {
	const pt_expr *e;
	int depth;              /* of e's node, the root being 1 */
} frame;

/* Levels an n-ary min/max stands for once the checker has made it
 * binary (min(a, b, c) is min(min(a, b), c)). */
static int levels(const pt_expr *e)
{
	if (e->kind == PT_E_INTRIN && (e->op == PT_IN_MIN || e->op == PT_IN_MAX) && e->nargs > 2)
		return e->nargs - 1;
	return 1;
}

bool pt_expr_measure(const pt_expr *e, int *depth, long *nodes)
{
	*depth = 0;
	*nodes = 0;
	if (!e)
		return true;
	size_t n = 0, cap = 64;
	frame *st = pt_mem_alloc(cap * sizeof(*st));
	if (!st)
		return false;
	st[n++] = (frame){e, levels(e)};
	while (n > 0) {
		frame f = st[--n];
		++*nodes;
		if (f.depth > *depth)
			*depth = f.depth;
		if (*depth > PT_MAX_EXPR_DEPTH || *nodes > PT_MAX_EXPR_NODES)
			break;
		if (n + (size_t)f.e->nargs > cap) {
			size_t c = (n + (size_t)f.e->nargs) * 2;
			frame *v = pt_mem_realloc(st, c * sizeof(*st));
			if (!v) {
				free(st);
				return false;
			}
			st = v;
			cap = c;
		}
		for (int i = 0; i < f.e->nargs; i++)
			st[n++] = (frame){f.e->args[i], f.depth + levels(f.e->args[i])};
	}
	free(st);
	return true;
}

bool pt_expr_check_limits(pt_diag *d, const pt_expr *e, const char *what)
{
	int depth;
	long nodes;
	if (!pt_expr_measure(e, &depth, &nodes)) {
		pt_error_at(d, e->loc, NULL, "out of memory measuring %s", what);
		return false;
	}
	if (depth > PT_MAX_EXPR_DEPTH) {
		pt_error_at(d, e->loc, "split it into stages or `let`s of smaller expressions",
			"expression too deep: more than %d nested operations in %s", PT_MAX_EXPR_DEPTH, what);
		return false;
	}
	if (nodes > PT_MAX_EXPR_NODES) {
		pt_error_at(d, e->loc, "split it into stages of smaller expressions",
			"expression too large: %s has more than %d nodes", what, PT_MAX_EXPR_NODES);
		return false;
	}
	return true;
}

/* The trees of one stage: domain bounds, cases and updates, init. */
static bool stage_limits(pt_diag *d, const pt_stage *s)
{
	char what[320];
	snprintf(what, sizeof(what), "a bound of '%s'", s->name);
	for (int k = 0; k < s->ndim + s->nrdim; k++) {
		const pt_interval *iv = k < s->ndim ? &s->dom[k] : &s->rdom[k - s->ndim];
		if (!pt_expr_check_limits(d, iv->lo, what) || !pt_expr_check_limits(d, iv->hi, what))
			return false;
	}
	snprintf(what, sizeof(what), "a case of '%s'", s->name);
	for (int c = 0; c < s->ncases; c++) {
		const pt_case *k = &s->cases[c];
		if (!pt_expr_check_limits(d, k->cond, what) || !pt_expr_check_limits(d, k->value, what))
			return false;
		for (int i = 0; k->target && i < s->ndim; i++)
			if (!pt_expr_check_limits(d, k->target[i], what))
				return false;
	}
	snprintf(what, sizeof(what), "the initial value of '%s'", s->name);
	return pt_expr_check_limits(d, s->init, what);
}

bool pt_pipeline_check_limits(pt_diag *d, const pt_pipeline *p)
{
	char what[320];
	for (int i = 0; i < p->nimages; i++) {
		snprintf(what, sizeof(what), "an extent of image '%s'", p->images[i]->name);
		for (int k = 0; k < p->images[i]->ndim; k++)
			if (!pt_expr_check_limits(d, p->images[i]->extent[k], what))
				return false;
	}
	for (int i = 0; i < p->nstages; i++)
		if (!stage_limits(d, p->stages[i]))
			return false;
	return true;
}
