/* isl_expr.c: conversion of IR trees to isl_pw_aff and isl_set. */
#include <isl/ctx.h>
#include <isl/local_space.h>
#include <isl/val.h>

#include "isl_expr.h"

__isl_give isl_space *pt_poly_stage_space(isl_ctx *ctx, const pt_pipeline *p,
	const pt_stage *s, int nvars)
{
	isl_space *sp = isl_space_set_alloc(ctx, p->nparams, nvars);
	for (int i = 0; i < p->nparams; i++)
		sp = isl_space_set_dim_name(sp, isl_dim_param, i, p->params[i].name);
	for (int i = 0; s && i < nvars; i++)
		sp = isl_space_set_dim_name(sp, isl_dim_set, i, s->vars[i]);
	return sp;
}

static __isl_give isl_pw_aff *constant(__isl_keep isl_space *space, int64_t v)
{
	isl_ctx *ctx = isl_space_get_ctx(space);
	return isl_pw_aff_val_on_domain(isl_set_universe(isl_space_copy(space)),
		isl_val_int_from_si(ctx, (long)v));
}

static __isl_give isl_pw_aff *var(__isl_keep isl_space *space, enum isl_dim_type t, int i)
{
	return isl_pw_aff_var_on_domain(isl_local_space_from_space(isl_space_copy(space)), t, (unsigned)i);
}

/* Both operands converted, or NULL (freeing what was made). */
static bool both(__isl_keep isl_space *space, const pt_expr *e, isl_pw_aff **a, isl_pw_aff **b)
{
	*a = pt_poly_pw_aff(space, e->args[0]);
	*b = *a ? pt_poly_pw_aff(space, e->args[1]) : NULL;
	if (*a && *b)
		return true;
	isl_pw_aff_free(*a);
	return false;
}

/* a op b for the binary operators isl represents (affine forms, floor
 * division and modulo by a positive literal); NULL otherwise. */
static __isl_give isl_pw_aff *binary(__isl_keep isl_space *space, const pt_expr *e)
{
	isl_pw_aff *a, *b;
	if (!both(space, e, &a, &b))
		return NULL;
	switch ((pt_binop)e->op) {
	case PT_OP_ADD: return isl_pw_aff_add(a, b);
	case PT_OP_SUB: return isl_pw_aff_sub(a, b);
	case PT_OP_MUL:
		if (isl_pw_aff_is_cst(a) == isl_bool_true || isl_pw_aff_is_cst(b) == isl_bool_true)
			return isl_pw_aff_mul(a, b);
		break;
	case PT_OP_DIV: case PT_OP_MOD:
		if (e->args[1]->kind == PT_E_INT && e->args[1]->ival > 0) {
			isl_pw_aff_free(b);
			isl_val *d = isl_val_int_from_si(isl_space_get_ctx(space), (long)e->args[1]->ival);
			if (e->op == PT_OP_MOD)
				return isl_pw_aff_mod_val(a, d);
			return isl_pw_aff_floor(isl_pw_aff_scale_down_val(a, d));
		}
		break;
	case PT_OP_LT: case PT_OP_LE: case PT_OP_GT: case PT_OP_GE: case PT_OP_EQ: case PT_OP_NE:
	case PT_OP_AND: case PT_OP_OR: case PT_OP_BAND: case PT_OP_BOR: case PT_OP_BXOR:
	case PT_OP_SHL: case PT_OP_SHR: case PT_OP_BINCOUNT:
		break;
	}
	isl_pw_aff_free(a);
	isl_pw_aff_free(b);
	return NULL;
}

__isl_give isl_pw_aff *pt_poly_pw_aff(__isl_keep isl_space *space, const pt_expr *e)
{
	isl_pw_aff *a, *b;
	if (!pt_type_is_int(e->type))
		return NULL;
	switch (e->kind) {
	case PT_E_INT:
		return constant(space, e->ival);
	case PT_E_PARAM:
		return var(space, isl_dim_param, e->index);
	case PT_E_VAR:
		if (e->index >= (int)isl_space_dim(space, isl_dim_set))
			return NULL;
		return var(space, isl_dim_set, e->index);
	case PT_E_UNARY:
		if (e->op != PT_OP_NEG || !(a = pt_poly_pw_aff(space, e->args[0])))
			return NULL;
		return isl_pw_aff_neg(a);
	case PT_E_BINARY:
		return binary(space, e);
	case PT_E_CAST:
		/* a widening conversion keeps the value; others may wrap */
		return pt_cast_keeps_value(e) ? pt_poly_pw_aff(space, e->args[0]) : NULL;
	case PT_E_INTRIN:
		/* binary once checked; clamp is min(max(v, lo), hi) */
		if ((e->op != PT_IN_MIN && e->op != PT_IN_MAX) || !both(space, e, &a, &b))
			return NULL;
		return e->op == PT_IN_MIN ? isl_pw_aff_min(a, b) : isl_pw_aff_max(a, b);
	case PT_E_FLOAT: case PT_E_NAME: case PT_E_CALL: case PT_E_SELECT: case PT_E_COUNT:
		return NULL;
	}
	return NULL;
}

__isl_give isl_set *pt_poly_cond_set(__isl_keep isl_space *space, const pt_expr *e)
{
	isl_pw_aff *a, *b;
	isl_set *x, *y;
	if (e->type != PT_BOOL)
		return NULL;
	if (e->kind == PT_E_UNARY && e->op == PT_OP_NOT) {
		x = pt_poly_cond_set(space, e->args[0]);
		return x ? isl_set_complement(x) : NULL;
	}
	if (e->kind != PT_E_BINARY)
		return NULL;
	if (e->op == PT_OP_AND || e->op == PT_OP_OR) {
		x = pt_poly_cond_set(space, e->args[0]);
		y = x ? pt_poly_cond_set(space, e->args[1]) : NULL;
		if (!y) {
			isl_set_free(x);
			return NULL;
		}
		return e->op == PT_OP_AND ? isl_set_intersect(x, y) : isl_set_union(x, y);
	}
	if (e->op < PT_OP_LT || e->op > PT_OP_NE || !both(space, e, &a, &b))
		return NULL;
	switch ((pt_binop)e->op) {
	case PT_OP_LT: return isl_pw_aff_lt_set(a, b);
	case PT_OP_LE: return isl_pw_aff_le_set(a, b);
	case PT_OP_GT: return isl_pw_aff_gt_set(a, b);
	case PT_OP_GE: return isl_pw_aff_ge_set(a, b);
	case PT_OP_EQ: return isl_pw_aff_eq_set(a, b);
	case PT_OP_NE: return isl_pw_aff_ne_set(a, b);
	case PT_OP_ADD: case PT_OP_SUB: case PT_OP_MUL: case PT_OP_DIV: case PT_OP_MOD:
	case PT_OP_AND: case PT_OP_OR: case PT_OP_BAND: case PT_OP_BOR: case PT_OP_BXOR:
	case PT_OP_SHL: case PT_OP_SHR: case PT_OP_BINCOUNT:
		break;
	}
	isl_pw_aff_free(a);
	isl_pw_aff_free(b);
	return NULL;
}

__isl_give isl_set *pt_poly_domain_set(__isl_keep isl_space *space, const pt_stage *s)
{
	isl_set *dom = isl_set_universe(isl_space_copy(space));
	for (int d = 0; d < s->ndim && dom; d++) {
		isl_pw_aff *v = var(space, isl_dim_set, d);
		isl_pw_aff *lo = pt_poly_pw_aff(space, s->dom[d].lo);
		isl_pw_aff *hi = pt_poly_pw_aff(space, s->dom[d].hi);
		if (!lo || !hi) {
			isl_pw_aff_free(v);
			isl_pw_aff_free(lo);
			isl_pw_aff_free(hi);
			return isl_set_free(dom);
		}
		isl_set *c = isl_set_intersect(isl_pw_aff_ge_set(isl_pw_aff_copy(v), isl_pw_aff_copy(lo)),
			isl_pw_aff_le_set(isl_pw_aff_copy(v), hi));
		if (s->dom[d].step > 1) {
			isl_val *st = isl_val_int_from_si(isl_space_get_ctx(space), (long)s->dom[d].step);
			isl_pw_aff *off = isl_pw_aff_mod_val(isl_pw_aff_sub(isl_pw_aff_copy(v), lo), st);
			c = isl_set_intersect(c, isl_pw_aff_eq_set(off, constant(space, 0)));
		} else {
			isl_pw_aff_free(lo);
		}
		isl_pw_aff_free(v);
		dom = isl_set_intersect(dom, c);
	}
	return dom;
}

/* Adds lo <= hi (or 1 <= e for extents) as a constraint on the params. */
static __isl_give isl_set *require_le(__isl_take isl_set *ctx_set, __isl_keep isl_space *space,
	const pt_expr *lo, const pt_expr *hi, int64_t lo_cst)
{
	isl_pw_aff *a = lo ? pt_poly_pw_aff(space, lo) : constant(space, lo_cst);
	isl_pw_aff *b = a ? pt_poly_pw_aff(space, hi) : NULL;
	if (!b) {
		isl_pw_aff_free(a);
		return ctx_set;
	}
	return isl_set_intersect(ctx_set, isl_pw_aff_le_set(a, b));
}

/* Int params range over their type. */
static __isl_give isl_set *param_ranges(__isl_keep isl_space *psp, const pt_pipeline *p)
{
	isl_set *set = isl_set_universe(isl_space_copy(psp));
	isl_ctx *ctx = isl_set_get_ctx(set);
	for (int q = 0; q < p->nparams; q++) {
		if (!pt_type_is_int(p->params[q].type))
			continue;
		int64_t lo, hi;
		pt_type_range(p->params[q].type, &lo, &hi);
		/* the _val forms: isl_set_lower_bound_si(INT_MIN) gives an empty set */
		set = isl_set_lower_bound_val(set, isl_dim_param, (unsigned)q, isl_val_int_from_si(ctx, (long)lo));
		set = isl_set_upper_bound_val(set, isl_dim_param, (unsigned)q, isl_val_int_from_si(ctx, (long)hi));
	}
	return set;
}

/* Extents >= 1 and non-empty domains, on top of set. */
static __isl_give isl_set *nonempty(__isl_take isl_set *ctx_set, __isl_keep isl_space *space,
	const pt_pipeline *p)
{
	isl_space *psp = isl_space_params(isl_space_copy(space));
	for (int i = 0; i < p->nimages; i++)
		for (int d = 0; d < p->images[i]->ndim; d++)
			ctx_set = require_le(ctx_set, psp, NULL, p->images[i]->extent[d], 1);
	for (int i = 0; i < p->nstages; i++)
		for (int d = 0; d < p->stages[i]->ndim; d++)
			ctx_set = require_le(ctx_set, psp, p->stages[i]->dom[d].lo, p->stages[i]->dom[d].hi, 0);
	isl_space_free(psp);
	return ctx_set;
}

__isl_give isl_set *pt_poly_admissible(__isl_keep isl_space *space, const pt_pipeline *p)
{
	isl_space *psp = isl_space_params(isl_space_copy(space));
	isl_set *set = nonempty(param_ranges(psp, p), space, p);
	isl_space_free(psp);
	return set;
}

__isl_give isl_set *pt_poly_nonempty(__isl_keep isl_space *space, const pt_pipeline *p)
{
	return nonempty(isl_set_universe(isl_space_params(isl_space_copy(space))), space, p);
}

/* Whether {params : lo <= hi} (lo NULL: 1 <= hi) is empty. */
static bool never_le(__isl_keep isl_space *psp, const pt_pipeline *p, const pt_expr *lo, const pt_expr *hi)
{
	isl_set *set = require_le(param_ranges(psp, p), psp, lo, hi, 1);
	bool empty = isl_set_is_empty(set) == isl_bool_true;
	isl_set_free(set);
	return empty;
}

bool pt_poly_check_admissible(isl_ctx *ctx, pt_diag *d, const pt_pipeline *p)
{
	isl_space *psp = isl_space_params(pt_poly_stage_space(ctx, p, NULL, 0));
	bool ok = true;
	for (int i = 0; i < p->nimages && ok; i++)
		for (int k = 0; k < p->images[i]->ndim && ok; k++)
			if (never_le(psp, p, NULL, p->images[i]->extent[k])) {
				pt_error_at(d, p->images[i]->extent[k]->loc, "give the image at least one element",
					"image '%s' has no element for any value of the params: its extent in dimension %d is below 1",
					p->images[i]->name, k + 1);
				ok = false;
			}
	for (int i = 0; i < p->nstages && ok; i++)
		for (int k = 0; k < p->stages[i]->ndim && ok; k++)
			if (never_le(psp, p, p->stages[i]->dom[k].lo, p->stages[i]->dom[k].hi)) {
				pt_error_at(d, p->stages[i]->dom[k].lo->loc, "an interval lo .. hi needs lo <= hi for some params",
					"stage '%s' has no point for any value of the params: its interval in dimension %d is empty",
					p->stages[i]->name, k + 1);
				ok = false;
			}
	if (ok) {
		isl_space *sp = pt_poly_stage_space(ctx, p, NULL, 0);
		isl_set *adm = pt_poly_admissible(sp, p);
		isl_space_free(sp);
		if (isl_set_is_empty(adm) == isl_bool_true) {
			pt_error_at(d, p->loc, "check the bounds and extents together",
				"no value of the params gives every image an element and every stage a point");
			ok = false;
		}
		isl_set_free(adm);
	}
	isl_space_free(psp);
	return ok;
}

bool pt_poly_stage_undecided(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s)
{
	isl_space *sp = pt_poly_stage_space(ctx, p, s, s->ndim);
	bool undecided = false, has_else = false;
	for (int k = 0; k < s->ncases; k++) {
		const pt_expr *c = s->cases[k].cond;
		if (!c) {
			has_else = true;
			continue;
		}
		isl_set *set = pt_expr_has_call(c) ? NULL : pt_poly_cond_set(sp, c);
		undecided |= !set;
		isl_set_free(set);
	}
	isl_space_free(sp);
	return undecided && !has_else;
}
