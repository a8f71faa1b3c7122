/* range.c: interval arithmetic over the caller's bounds (range.h). */
#include "range.h"

typedef struct rctx {
	const pt_range_ops *ops;
	void *user;
} rctx;

static pt_range of(const rctx *c, const pt_expr *e);

static pt_range type_range(const rctx *c, int t)
{
	if (!pt_type_is_int(t))
		return (pt_range){NULL, NULL};
	return (pt_range){c->ops->type_bound(t, false, c->user), c->ops->type_bound(t, true, c->user)};
}

static pt_range point(const rctx *c, void *v)
{
	return (pt_range){v, v ? c->ops->copy(v, c->user) : NULL};
}

static void drop(const rctx *c, pt_range r)
{
	if (r.lo)
		c->ops->free(r.lo, c->user);
	if (r.hi)
		c->ops->free(r.hi, c->user);
}

static bool lit(const pt_expr *e, int64_t min)
{
	return e->kind == PT_E_INT && e->ival >= min;
}

/* Whether lo <= r <= hi provably, for constants lo and hi. */
static bool within(const rctx *c, pt_range r, int64_t lo, int64_t hi)
{
	if (!c->ops->le || !r.lo || !r.hi)
		return false;
	void *l = c->ops->constant(lo, c->user), *h = c->ops->constant(hi, c->user);
	bool in = c->ops->le(l, r.lo, c->user) && c->ops->le(r.hi, h, c->user);
	c->ops->free(l, c->user);
	c->ops->free(h, c->user);
	return in;
}

/* A conversion: exact when it keeps every value of e's operand (widening,
 * or an operand provably in range, or an integer a float holds exactly),
 * otherwise the target type's range. */
static pt_range cast(const rctx *c, const pt_expr *e)
{
	const pt_expr *a = e->args[0];
	if (pt_cast_keeps_value(e))
		return of(c, a);
	if (!c->ops->le)
		return type_range(c, e->type);
	pt_range r = of(c, a);
	int64_t lo, hi;
	if (pt_type_is_int(e->type))
		pt_type_range(e->type, &lo, &hi);
	else if (pt_type_is_int(a->type))
		hi = (int64_t)1 << (e->type == PT_F32 ? 24 : 53), lo = -hi;
	else
		return r;               /* float to float: the integers it came from */
	if (within(c, r, lo, hi))
		return r;
	drop(c, r);
	return type_range(c, e->type);
}

static pt_range binary(const rctx *c, const pt_expr *e)
{
	const rctx *k = c;
	const pt_expr *a = e->args[0], *b = e->args[1];
	pt_range x, y, r;
	switch ((pt_binop)e->op) {
	case PT_OP_ADD: case PT_OP_SUB: {
		bool sub = e->op == PT_OP_SUB;
		x = of(c, a);
		y = of(c, b);
		r.lo = k->ops->add(x.lo, sub ? y.hi : y.lo, sub, k->user);
		r.hi = k->ops->add(x.hi, sub ? y.lo : y.hi, sub, k->user);
		return r;
	}
	case PT_OP_MUL: {
		/* scaling by a literal scales both ends (and swaps them if negative) */
		if (a->kind != PT_E_INT && b->kind != PT_E_INT)
			break;
		int64_t f = a->kind == PT_E_INT ? a->ival : b->ival;
		if (f < -(1 << 20) || f > (1 << 20))
			break;
		x = of(c, a->kind == PT_E_INT ? b : a);
		r.lo = k->ops->scale(f >= 0 ? x.lo : x.hi, f, k->user);
		r.hi = k->ops->scale(f >= 0 ? x.hi : x.lo, f, k->user);
		return r;
	}
	case PT_OP_DIV:
		if (!lit(b, 1))
			break;
		x = of(c, a);
		return (pt_range){k->ops->floordiv(x.lo, b->ival, k->user), k->ops->floordiv(x.hi, b->ival, k->user)};
	case PT_OP_MOD:
		if (!lit(b, 1))
			break;
		return (pt_range){k->ops->constant(0, k->user), k->ops->constant(b->ival - 1, k->user)};
	case PT_OP_BAND:
		if (!lit(a, 0) && !lit(b, 0))
			break;
		return (pt_range){k->ops->constant(0, k->user),
			k->ops->constant(lit(b, 0) ? b->ival : a->ival, k->user)};
	case PT_OP_LT: case PT_OP_LE: case PT_OP_GT: case PT_OP_GE: case PT_OP_EQ: case PT_OP_NE:
	case PT_OP_AND: case PT_OP_OR: case PT_OP_BOR: case PT_OP_BXOR: case PT_OP_SHL: case PT_OP_SHR:
	case PT_OP_BINCOUNT:
		break;
	}
	return type_range(c, e->type);
}

static pt_range of(const rctx *c, const pt_expr *e)
{
	void *v;
	pt_range x, y;
	if (!pt_expr_has_call(e) && (v = c->ops->exact(e, c->user)))
		return point(c, v);
	switch (e->kind) {
	case PT_E_INT:
		return point(c, c->ops->constant(e->ival, c->user));
	case PT_E_VAR:
		return (pt_range){c->ops->var(e->index, false, c->user), c->ops->var(e->index, true, c->user)};
	case PT_E_UNARY:
		if (e->op != PT_OP_NEG)
			break;
		x = of(c, e->args[0]);
		return (pt_range){c->ops->scale(x.hi, -1, c->user), c->ops->scale(x.lo, -1, c->user)};
	case PT_E_BINARY:
		return binary(c, e);
	case PT_E_SELECT:
		x = of(c, e->args[1]);
		y = of(c, e->args[2]);
		return (pt_range){c->ops->minmax(x.lo, y.lo, true, true, c->user),
			c->ops->minmax(x.hi, y.hi, false, true, c->user)};
	case PT_E_CAST:
		return cast(c, e);
	case PT_E_INTRIN: {
		if (e->op != PT_IN_MIN && e->op != PT_IN_MAX)
			break;
		/* min: the lower of the lows (both needed), any high bounds it */
		bool min = e->op == PT_IN_MIN;
		x = of(c, e->args[0]);
		y = of(c, e->args[1]);
		return (pt_range){c->ops->minmax(x.lo, y.lo, min, min, c->user),
			c->ops->minmax(x.hi, y.hi, min, !min, c->user)};
	}
	case PT_E_FLOAT: case PT_E_NAME: case PT_E_PARAM: case PT_E_CALL: case PT_E_COUNT:
		break;
	}
	return type_range(c, e->type);
}

pt_range pt_range_of(const pt_expr *e, const pt_range_ops *ops, void *user)
{
	rctx c = {ops, user};
	return of(&c, e);
}
