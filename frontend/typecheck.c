/* typecheck.c: name resolution, type checking, and the static rules of the
 * language (affine domains, self-reference order, no cycles), ending with
 * a topological order of the stages.  Accesses staying inside their
 * callees, data-dependent indices included, are poly/bounds.c's. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "expr_limits.h"
#include "typecheck.h"

typedef struct checker {
	pt_diag *d;
	pt_pipeline *p;
	pt_stage *s;            /* stage whose expressions are checked, or NULL */
	bool in_domain;         /* bounds and extents: params and literals only */
	bool ok;
	int operand[2];         /* a general update's PT_UPD_ACC and PT_UPD_VAL types */
	/* s's self-reads so far, per dimension: the sign of the first one
	 * leading there (-1 earlier: f(x-1); +1 later: f(x+1)), where it is,
	 * and whether every one reads the variable itself there */
	int dir[PT_MAX_DIMS];
	pt_loc dir_at[PT_MAX_DIMS];
	bool fixed[PT_MAX_DIMS];
} checker;

static void fail(checker *ck) { ck->ok = false; }

/* Appends to buf the known name closest to name, if close enough. */
static const char *closest(const char *name, const char *const *cands, int n)
{
	const char *best = NULL;
	int bd = 1000;
	for (int i = 0; i < n; i++) {
		int dd = pt_edit_distance(name, cands[i]);
		if (dd < bd) {
			bd = dd;
			best = cands[i];
		}
	}
	int lim = (int)strlen(name) / 2;
	if (lim < 1)
		lim = 1;
	if (lim > 3)
		lim = 3;
	return bd <= lim ? best : NULL;
}

/* Collects the names visible in expressions of ck->s (calls or values). */
static int visible_names(checker *ck, bool calls, const char **out, int max)
{
	int n = 0;
	if (calls) {
		for (int i = 0; i < ck->p->nstages && n < max; i++)
			out[n++] = ck->p->stages[i]->name;
		for (int i = 0; i < ck->p->nimages && n < max; i++)
			out[n++] = ck->p->images[i]->name;
		for (int i = 0; i < PT_IN_COUNT && n < max; i++)
			out[n++] = pt_intrin_name(i);
		return n;
	}
	for (int i = 0; i < ck->p->nparams && n < max; i++)
		out[n++] = ck->p->params[i].name;
	if (ck->s && !ck->in_domain)
		for (int i = 0; i < ck->s->ndim + ck->s->nrdim && n < max; i++)
			out[n++] = ck->s->vars[i];
	return n;
}

static void unknown_name(checker *ck, pt_expr *e, bool call)
{
	const char *cands[4096];
	int n = visible_names(ck, call, cands, 4096);
	const char *c = closest(e->name, cands, n);
	char hint[512];
	if (c)
		snprintf(hint, sizeof(hint), "did you mean '%s'?", c);
	else if (call)
		snprintf(hint, sizeof(hint), "declare it with func, reduce or image");
	else if (ck->in_domain)
		snprintf(hint, sizeof(hint), "bounds may use only int params, constants and literals");
	else
		snprintf(hint, sizeof(hint), "declare it with param, const or cond, or as a variable of this stage");
	bool known_elsewhere = !call && (pt_pipeline_find_stage(ck->p, e->name) ||
		pt_pipeline_find_image(ck->p, e->name));
	if (known_elsewhere)
		pt_error_at(ck->d, e->loc, "call it with its indices, like f(x, y)",
			"'%s' is a stage or image, not a value", e->name);
	else
		pt_error_at(ck->d, e->loc, hint, "unknown %s '%s'", call ? "function or image" : "name", e->name);
	fail(ck);
}

/* The C-like usual arithmetic conversion of two numeric types. */
int pt_promote(int a, int b)
{
	if (a == PT_F64 || b == PT_F64)
		return PT_F64;
	if (a == PT_F32 || b == PT_F32)
		return PT_F32;
	if (a == PT_BOOL || pt_type_bits(a) < 32)
		a = PT_I32;
	if (b == PT_BOOL || pt_type_bits(b) < 32)
		b = PT_I32;
	if (a == b)
		return a;
	bool sa = pt_type_is_signed(a), sb = pt_type_is_signed(b);
	if (sa == sb)
		return pt_type_bits(a) >= pt_type_bits(b) ? a : b;
	int u = sa ? b : a, s = sa ? a : b;
	return pt_type_bits(u) >= pt_type_bits(s) ? u : s;
}

static bool is_num(int t) { return pt_type_is_int(t) || pt_type_is_float(t); }

/* A float literal next to an f64 operand is read at double precision. */
static void widen_literal(pt_expr *lit, int other)
{
	if (lit->kind == PT_E_FLOAT && other == PT_F64)
		lit->type = PT_F64;
}

static void type_error(checker *ck, pt_expr *at, const char *hint, const char *fmt, const char *a)
{
	pt_error_at(ck->d, at->loc, hint, fmt, a);
	fail(ck);
}

static void check_expr(checker *ck, pt_expr *e);

/* Binds a CALL to its stage or image and checks its arguments. */
static void check_call(checker *ck, pt_expr *e)
{
	if (ck->in_domain) {
		pt_error_at(ck->d, e->loc, "domain bounds and extents use params and constants only",
			"a bound cannot read '%s'", e->name);
		fail(ck);
		return;
	}
	e->stage = pt_pipeline_find_stage(ck->p, e->name);
	e->image = e->stage ? NULL : pt_pipeline_find_image(ck->p, e->name);
	if (!e->stage && !e->image) {
		unknown_name(ck, e, true);
		return;
	}
	int ndim = e->stage ? e->stage->ndim : e->image->ndim;
	e->type = e->stage ? e->stage->type : e->image->type;
	if (e->nargs != ndim) {
		pt_error_at(ck->d, e->loc, "give one index per dimension",
			"'%s' has %d dimension%s but is called with %d argument%s", e->name,
			ndim, ndim == 1 ? "" : "s", e->nargs, e->nargs == 1 ? "" : "s");
		fail(ck);
	}
	for (int i = 0; i < e->nargs; i++) {
		check_expr(ck, e->args[i]);
		int t = e->args[i]->type;
		if (t != PT_NO_TYPE && !pt_type_is_int(t))
			type_error(ck, e->args[i], "convert it: int(floor(v)), or compare to get a condition",
				"an index must be an integer, not %s", pt_ir_type_name(t));
	}
}

static void check_binary(checker *ck, pt_expr *e)
{
	pt_expr *a = e->args[0], *b = e->args[1];
	int ta = a->type, tb = b->type, op = e->op;
	if (ta == PT_NO_TYPE || tb == PT_NO_TYPE)
		return;
	if (op == PT_OP_AND || op == PT_OP_OR) {
		if (ta != PT_BOOL || tb != PT_BOOL)
			type_error(ck, ta != PT_BOOL ? a : b, "compare it, like v != 0",
				"operands of '%s' must be conditions", pt_binop_name(op));
		e->type = PT_BOOL;
		return;
	}
	if ((op == PT_OP_EQ || op == PT_OP_NE) && ta == PT_BOOL && tb == PT_BOOL) {
		e->type = PT_BOOL;
		return;
	}
	if (!is_num(ta) || !is_num(tb)) {
		type_error(ck, !is_num(ta) ? a : b, "turn a condition into a number with select(c, 1, 0)",
			"operand of '%s' is a condition, not a number", pt_binop_name(op));
		return;
	}
	widen_literal(a, tb);
	widen_literal(b, ta);
	ta = a->type;
	tb = b->type;
	bool bitwise = op == PT_OP_BAND || op == PT_OP_BOR || op == PT_OP_BXOR ||
		op == PT_OP_SHL || op == PT_OP_SHR;
	if (bitwise && (!pt_type_is_int(ta) || !pt_type_is_int(tb))) {
		type_error(ck, !pt_type_is_int(ta) ? a : b, "convert to an integer type first",
			"'%s' needs integer operands", pt_binop_name(op));
		return;
	}
	if (op >= PT_OP_LT && op <= PT_OP_NE) {
		e->type = PT_BOOL;
		return;
	}
	if (op == PT_OP_SHL || op == PT_OP_SHR)
		e->type = pt_promote(ta, ta);
	else
		e->type = pt_promote(ta, tb);
}

static void check_intrin(checker *ck, pt_expr *e)
{
	int t = PT_NO_TYPE;
	for (int i = 0; i < e->nargs; i++) {
		int ti = e->args[i]->type;
		if (ti == PT_NO_TYPE)
			return;
		if (!is_num(ti)) {
			type_error(ck, e->args[i], "turn a condition into a number with select(c, 1, 0)",
				"argument of %s is a condition, not a number", pt_intrin_name(e->op));
			return;
		}
	}
	for (int i = 0; i < e->nargs; i++)
		for (int j = 0; j < e->nargs; j++)
			if (i != j)
				widen_literal(e->args[i], e->args[j]->type);
	for (int i = 0; i < e->nargs; i++)
		t = i ? pt_promote(t, e->args[i]->type) : e->args[i]->type;
	switch ((pt_intrin)e->op) {
	case PT_IN_MIN: case PT_IN_MAX: case PT_IN_CLAMP: case PT_IN_ABS:
		e->type = pt_promote(t, t);
		break;
	case PT_IN_FLOOR: case PT_IN_CEIL: case PT_IN_ROUND:
		e->type = pt_type_is_float(t) ? t : pt_promote(t, t);
		break;
	case PT_IN_SQRT: case PT_IN_EXP: case PT_IN_LOG: case PT_IN_POW: case PT_IN_SIN:
	case PT_IN_COS: case PT_IN_TAN: case PT_IN_ATAN2: case PT_IN_TANH:
		/* transcendental: float unless given doubles */
		e->type = t == PT_F64 ? PT_F64 : PT_F32;
		break;
	case PT_IN_COUNT:
		break;
	}
}

static void check_name(checker *ck, pt_expr *e)
{
	if (ck->s && !ck->in_domain)
		for (int i = 0; i < ck->s->ndim + ck->s->nrdim; i++)
			if (!strcmp(ck->s->vars[i], e->name)) {
				if (ck->s->red && i < ck->s->ndim) {
					pt_error_at(ck->d, e->loc, "index updates with the reduction variables (the names after `over`)",
						"'%s' names a dimension of the result of '%s' and has no value in an update",
						e->name, ck->s->name);
					fail(ck);
					return;
				}
				e->kind = PT_E_VAR;
				e->index = i;
				e->type = PT_I32;
				return;
			}
	int pi = pt_pipeline_find_param(ck->p, e->name);
	if (pi >= 0) {
		e->kind = PT_E_PARAM;
		e->index = pi;
		e->type = ck->p->params[pi].type;
		if (ck->in_domain && !pt_type_is_int(e->type)) {
			pt_error_at(ck->d, e->loc, "declare it `param N : int`, or keep float params in values",
				"float param '%s' cannot appear in a domain bound or extent", e->name);
			fail(ck);
		}
		return;
	}
	unknown_name(ck, e, false);
}

/* A node of kind k and type t at loc, with room for n arguments (and
 * none yet), or NULL when out of memory: the lowering makes every node
 * before it moves a subtree, so that a failure leaves the tree whole. */
static pt_expr *blank(pt_expr_kind k, int t, pt_loc loc, int n)
{
	pt_expr *e = pt_expr_new(k, loc);
	if (e && !(e->args = pt_mem_alloc(sizeof(*e->args) * (size_t)n)))
		e = pt_expr_free(e);
	if (e)
		e->type = t;
	return e;
}

/* e converted to t: an integer literal that keeps its value is retyped,
 * anything else gets a CAST at e's location (printed as e). */
static pt_expr *convert(pt_expr *e, int t)
{
	if (e->type == t)
		return e;
	if (e->kind == PT_E_INT && pt_type_is_int(t)) {
		int64_t lo, hi;
		pt_type_range(t, &lo, &hi);
		if (e->ival >= lo && e->ival <= hi) {
			e->type = t;
			return e;
		}
	}
	pt_expr *c = blank(PT_E_CAST, t, e->loc, 1);
	if (!c)
		return e;       /* out of memory: e stays, the check fails (alloc.h) */
	c->written = PT_IMPLICIT_CAST;
	c->args[c->nargs++] = e;
	return c;
}

/* A binary min or max of type t at loc with a and b. */
static pt_expr *minmax_node(pt_expr *m, int op, pt_expr *a, pt_expr *b, pt_written w)
{
	m->op = op;
	m->written = w;
	m->args[m->nargs++] = a;
	m->args[m->nargs++] = b;
	return m;
}

/* clamp(v, lo, hi) becomes min(max(v, lo), hi), min(a, b, c) becomes
 * min(min(a, b), c): later passes see binary min and max only. */
static void lower_intrin(pt_expr *e)
{
	if (e->op == PT_IN_CLAMP && e->nargs == 3) {
		pt_expr *mx = blank(PT_E_INTRIN, e->type, e->loc, 2);
		if (!mx)
			return;         /* out of memory: the check fails */
		minmax_node(mx, PT_IN_MAX, e->args[0], e->args[1], PT_AS_WRITTEN);
		e->op = PT_IN_MIN;
		e->written = PT_FROM_CLAMP;
		e->args[0] = mx;
		e->args[1] = e->args[2];
		e->nargs = 2;
	} else if ((e->op == PT_IN_MIN || e->op == PT_IN_MAX) && e->nargs > 2) {
		int n = e->nargs - 2;
		pt_expr **m = pt_mem_calloc((size_t)n, sizeof(*m));
		for (int i = 0; m && i < n; i++)
			if (!(m[i] = blank(PT_E_INTRIN, e->type, e->loc, 2))) {
				while (i-- > 0)
					pt_expr_free(m[i]);
				free(m);
				m = NULL;
			}
		if (!m)
			return;         /* out of memory: the check fails */
		pt_expr *r = e->args[0];
		for (int i = 1; i + 1 < e->nargs; i++)
			r = minmax_node(m[i - 1], e->op, r, e->args[i], PT_FROM_NARY);
		free(m);
		e->args[0] = r;
		e->args[1] = e->args[e->nargs - 1];
		e->nargs = 2;
	}
}

/* Gives the operands of a typed node the type its operation computes in
 * (a shift count: i64), so that no later pass re-derives promotion. */
static void lower(pt_expr *e)
{
	switch (e->kind) {
	case PT_E_UNARY:
		if (e->op != PT_OP_NOT)
			e->args[0] = convert(e->args[0], e->type);
		return;
	case PT_E_BINARY: {
		pt_expr *a = e->args[0], *b = e->args[1];
		int op = e->op, t = e->type;
		if (op == PT_OP_AND || op == PT_OP_OR)
			return;
		if (op >= PT_OP_LT && op <= PT_OP_NE) {
			if (a->type == PT_BOOL && b->type == PT_BOOL)
				return;
			t = pt_promote(a->type, b->type);
		}
		e->args[0] = convert(a, t);
		e->args[1] = convert(b, op == PT_OP_SHL || op == PT_OP_SHR ? PT_I64 : t);
		return;
	}
	case PT_E_SELECT:
		e->args[1] = convert(e->args[1], e->type);
		e->args[2] = convert(e->args[2], e->type);
		return;
	case PT_E_INTRIN:
		for (int i = 0; i < e->nargs; i++)
			e->args[i] = convert(e->args[i], e->type);
		lower_intrin(e);
		return;
	case PT_E_INT: case PT_E_FLOAT: case PT_E_NAME: case PT_E_PARAM: case PT_E_VAR:
	case PT_E_CALL: case PT_E_CAST: case PT_E_COUNT:
		return;
	}
}

/* Resolves names in e and computes its type, bottom-up; typed nodes are
 * lowered (lower()). */
static void check_expr(checker *ck, pt_expr *e)
{
	if (e->kind == PT_E_CALL) {
		check_call(ck, e);
		return;
	}
	/* a conversion names its type; an f64 literal was read so (tables.c) */
	if (e->kind != PT_E_CAST && !(e->kind == PT_E_FLOAT && e->type == PT_F64))
		e->type = PT_NO_TYPE;
	if (e->kind != PT_E_CALL)
		for (int i = 0; i < e->nargs; i++)
			check_expr(ck, e->args[i]);
	for (int i = 0; i < e->nargs; i++)
		if (e->args[i]->type == PT_NO_TYPE)
			return;
	switch (e->kind) {
	case PT_E_INT:
		e->type = (e->ival >= INT32_MIN && e->ival <= INT32_MAX) ? PT_I32 : PT_I64;
		break;
	case PT_E_FLOAT:
		/* f32 unless read as f64 (an f64 table's entry, a widened literal) */
		e->type = e->type == PT_F64 ? PT_F64 : PT_F32;
		break;
	case PT_E_NAME:
		check_name(ck, e);
		break;
	case PT_E_PARAM:
		e->type = ck->p->params[e->index].type;
		break;
	case PT_E_VAR:
		e->type = e->index == PT_UPD_ACC ? ck->operand[0] : e->index == PT_UPD_VAL ? ck->operand[1] : PT_I32;
		break;
	case PT_E_UNARY: {
		int t = e->args[0]->type;
		if (e->op == PT_OP_NOT) {
			if (t != PT_BOOL)
				type_error(ck, e->args[0], "compare it, like v != 0", "operand of '!' must be a condition%s", "");
			e->type = PT_BOOL;
		} else if (!is_num(t)) {
			type_error(ck, e->args[0], "turn a condition into a number with select(c, 1, 0)",
				"operand of '%s' is a condition, not a number", pt_unop_name(e->op));
		} else if (e->op == PT_OP_BNOT && !pt_type_is_int(t)) {
			type_error(ck, e->args[0], "convert to an integer type first", "'~' needs an integer operand%s", "");
		} else {
			e->type = pt_type_is_float(t) ? t : pt_promote(t, t);
		}
		break;
	}
	case PT_E_BINARY:
		check_binary(ck, e);
		break;
	case PT_E_SELECT: {
		pt_expr *c = e->args[0], *a = e->args[1], *b = e->args[2];
		if (c->type != PT_BOOL) {
			type_error(ck, c, "compare it, like v != 0", "the condition of select must be a condition%s", "");
			break;
		}
		if (a->type == PT_BOOL && b->type == PT_BOOL) {
			e->type = PT_BOOL;
		} else if (!is_num(a->type) || !is_num(b->type)) {
			type_error(ck, !is_num(a->type) ? a : b, "both branches must be numbers or both conditions",
				"select mixes a condition and a number%s", "");
		} else {
			widen_literal(a, b->type);
			widen_literal(b, a->type);
			e->type = pt_promote(a->type, b->type);
		}
		break;
	}
	case PT_E_CAST:
		if (e->args[0]->type == PT_NO_TYPE)
			e->type = PT_NO_TYPE;
		break;
	case PT_E_INTRIN:
		check_intrin(ck, e);
		break;
	case PT_E_CALL: case PT_E_COUNT:
		break;
	}
	if (e->type != PT_NO_TYPE)
		lower(e);
}

/* Checks a domain bound or extent: int, params only, affine. */
static void check_bound(checker *ck, pt_expr *e, const char *what)
{
	bool was = ck->in_domain;
	ck->in_domain = true;
	bool before = ck->ok;
	ck->ok = true;
	check_expr(ck, e);
	if (ck->ok) {
		pt_affine a = {0};
		long failures = pt_mem_failures();
		if (!pt_type_is_int(e->type)) {
			pt_error_at(ck->d, e->loc, "use int params and integer constants",
				"%s must be an integer, not %s", what, pt_ir_type_name(e->type));
			fail(ck);
		} else if (!pt_expr_affine(e, ck->p->nparams, 0, &a) && pt_mem_failures() == failures) {
			/* (out of memory it is not known: the entry point says so) */
			pt_error_at(ck->d, e->loc,
				"use sums of int params times constants, divided by a positive constant (like R/2 + 1)",
				"%s is not affine", what);
			fail(ck);
		}
		pt_affine_clear(&a);
	}
	ck->ok = ck->ok && before;
	ck->in_domain = was;
}

/* Where a self-call of s reads, against the point computing it: its
 * first *lead indices are the variables themselves and index *lead is
 * var + *step (*step != 0, a constant), like f(t-1, x, y) or f(x+1);
 * false for any other form.  fixed[d]: index d is exactly var d. */
static bool self_call_lead(const pt_stage *s, const pt_expr *call, int *lead, int64_t *step, bool *fixed)
{
	*lead = -1;
	for (int d = 0; d < s->ndim; d++)
		fixed[d] = false;
	for (int d = 0; d < call->nargs && d < s->ndim; d++) {
		pt_affine a = {0};
		bool ok = pt_expr_affine(call->args[d], 0, s->ndim + s->nrdim, &a);
		int64_t cst = a.cst;
		bool only_d = ok && a.div == 1;
		for (int v = 0; only_d && v < s->ndim + s->nrdim; v++)
			if (a.vcoef[v] != (v == d ? 1 : 0))
				only_d = false;
		for (int q = 0; only_d && q < a.nparams; q++)
			if (a.pcoef[q])
				only_d = false;
		pt_affine_clear(&a);
		fixed[d] = only_d && cst == 0;
		if (*lead < 0 && !fixed[d]) {
			if (!only_d)
				return false;
			*lead = d;
			*step = cst;
		}
	}
	return *lead >= 0;
}

/* The rule of self-reads (docs/language.md §13): each reads a point
 * some constant step away along its leading variable; a reduction only
 * an earlier one, a plain stage either way, but all the reads leading
 * along one variable the same way, which fixes the order it runs in.
 * False (reported) if e breaks it. */
static bool check_self_call(checker *ck, const pt_expr *e)
{
	pt_stage *s = ck->s;
	int lead;
	int64_t step = 0;
	bool fixed[PT_MAX_DIMS];
	if (!self_call_lead(s, e, &lead, &step, fixed) || (s->red != PT_RED_NONE && step > 0)) {
		pt_error_at(ck->d, e->loc,
			s->red != PT_RED_NONE ? "a reduction may read itself only at an earlier step of a leading variable, like f(t-1, x, y)" :
			"read the point a constant step away along the first variable that differs, like f(t-1, x, y) or f(x+1, y)",
			"'%s' reads itself at a point that is not provably computed earlier", e->name);
		fail(ck);
		return false;
	}
	int sign = step < 0 ? -1 : 1;
	if (ck->dir[lead] && ck->dir[lead] != sign) {
		const pt_loc *o = &ck->dir_at[lead];
		pt_error_at(ck->d, e->loc, "split the stage in two, one pass each way (like a forward and a backward filter)",
			"'%s' reads itself both before and after along '%s' (here and at %d:%d): no order computes both first",
			s->name, s->vars[lead], o->line, o->col);
		fail(ck);
		return false;
	}
	if (!ck->dir[lead]) {
		ck->dir[lead] = sign;
		ck->dir_at[lead] = e->loc;
	}
	for (int d = 0; d < s->ndim; d++)
		ck->fixed[d] = ck->fixed[d] && fixed[d];
	return true;
}

/* Walks e after typing for the per-call rules. */
static void check_calls(checker *ck, const pt_expr *e)
{
	for (int i = 0; i < e->nargs; i++)
		check_calls(ck, e->args[i]);
	if (e->kind != PT_E_CALL || (!e->stage && !e->image))
		return;
	/* a tuple's own reads are of its slots at the target (tuple.c) */
	if (e->stage == ck->s && !ck->s->ntuple && !check_self_call(ck, e))
		return;
}

/* Checks a value expression and converts it to the stage's type. */
static void check_value(checker *ck, pt_expr *v, bool cond)
{
	bool before = ck->ok;
	ck->ok = true;
	check_expr(ck, v);
	if (ck->ok && v->type != PT_NO_TYPE) {
		if (cond && v->type != PT_BOOL) {
			pt_error_at(ck->d, v->loc, "compare it, like v != 0",
				"a case condition must be a condition, not %s", pt_ir_type_name(v->type));
			fail(ck);
		} else if (!cond && v->type == PT_BOOL && ck->s->red != PT_RED_AND && ck->s->red != PT_RED_OR &&
			ck->s->red != PT_RED_UPDATE) {
			pt_error_at(ck->d, v->loc, "write select(c, 1, 0) to store a condition as a number",
				"'%s' has type %s but this value is a condition", ck->s->name, pt_ir_type_name(ck->s->type));
			fail(ck);
		} else {
			check_calls(ck, v);
		}
	}
	ck->ok = ck->ok && before;
}

/* Checks the target indices of a reduction update: integers (that they
 * stay inside the domain is the bounds check's, poly/bounds.c). */
static void check_target(checker *ck, pt_stage *s, pt_case *k)
{
	bool before = ck->ok;
	ck->ok = true;
	for (int d = 0; d < s->ndim; d++) {
		check_expr(ck, k->target[d]);
		if (ck->ok && !pt_type_is_int(k->target[d]->type))
			type_error(ck, k->target[d], "convert it: int(floor(v))",
				"a reduction index must be an integer, not %s", pt_ir_type_name(k->target[d]->type));
	}
	for (int d = 0; d < s->ndim && ck->ok; d++)
		check_calls(ck, k->target[d]);
	ck->ok = ck->ok && before;
}

/* Counts a general update's value operands, and those converted at
 * once to the type *user[0] (user[1], user[2]). */
static void count_val(const pt_expr *e, void *user)
{
	int *n = user;
	if (e->kind == PT_E_VAR && e->index == PT_UPD_VAL)
		n[1]++;
	if (e->kind == PT_E_CAST && e->type == n[0] && e->args[0]->kind == PT_E_VAR && e->args[0]->index == PT_UPD_VAL)
		n[2]++;
}

/* CAST(t, value) becomes the value, of type t. */
static pt_expr *drop_val_cast(pt_expr *e, void *user)
{
	if (e->kind != PT_E_CAST || e->type != *(int *)user || e->args[0]->kind != PT_E_VAR ||
		e->args[0]->index != PT_UPD_VAL)
		return e;
	pt_expr *v = e->args[0];
	e->nargs = 0;
	pt_expr_free(e);
	v->type = *(int *)user;
	return v;
}

/* Types a general update's operator with its operands' types and
 * converts it to the reduction's type (value already checked). */
static void check_update(checker *ck, pt_stage *s, pt_case *k)
{
	bool before = ck->ok;
	ck->ok = true;
	/* a literal value is widened as it would be in h(t) + 0.1 */
	widen_literal(k->value, s->type);
	ck->operand[0] = s->type;
	ck->operand[1] = k->value->type;
	check_expr(ck, k->update);
	if (ck->ok && k->update->type == PT_BOOL) {
		pt_error_at(ck->d, k->loc, "write select(c, 1, 0) to store a condition as a number",
			"'%s' has type %s but its update gives a condition", s->name, pt_ir_type_name(s->type));
		fail(ck);
	} else if (ck->ok && k->update->type != PT_NO_TYPE) {
		k->update = convert(k->update, s->type);
		/* a value the operator converts to the reduction's type at once
		 * is converted before it (the same values): the operator then
		 * combines two values of that type (poly/rfactor.c) */
		int n[3] = {s->type, 0, 0};
		pt_expr_walk(k->update, count_val, n);
		if (n[1] > 0 && n[1] == n[2] && k->value->type != s->type) {
			k->update = pt_expr_map(k->update, drop_val_cast, &s->type);
			k->value = convert(k->value, s->type);
		}
	}
	ck->ok = ck->ok && before;
}

static void check_stage(checker *ck, pt_stage *s)
{
	ck->s = s;
	for (int d = 0; d < PT_MAX_DIMS; d++) {
		ck->dir[d] = 0;
		ck->fixed[d] = true;
	}
	char what[300];
	for (int i = 0; i < s->ndim + s->nrdim; i++) {
		pt_interval *iv = i < s->ndim ? &s->dom[i] : &s->rdom[i - s->ndim];
		snprintf(what, sizeof(what), "the lower bound of '%s' in '%s'", s->vars[i], s->name);
		check_bound(ck, iv->lo, what);
		snprintf(what, sizeof(what), "the upper bound of '%s' in '%s'", s->vars[i], s->name);
		check_bound(ck, iv->hi, what);
	}
	for (int c = 0; c < s->ncases; c++) {
		pt_case *k = &s->cases[c];
		if (k->cond)
			check_value(ck, k->cond, true);
		check_value(ck, k->value, false);
		if (k->target)
			check_target(ck, s, k);
		if (k->update && k->value->type != PT_NO_TYPE)
			check_update(ck, s, k);
	}
	if (s->red == PT_RED_UPDATE && !s->init) {
		pt_error_at(ck->d, s->loc, "give its initial value: reduce h(..) : int over (..) init 0",
			"reduction '%s' has general updates and needs `init`", s->name);
		fail(ck);
	}
	if (s->init) {
		bool before = ck->ok;
		ck->ok = true;
		check_expr(ck, s->init);
		/* a tuple's initial value is a select on its slot (tuple.c) */
		if (ck->ok && (pt_expr_has_call(s->init) || (!s->ntuple && !pt_expr_is_param_only(s->init)))) {
			pt_error_at(ck->d, s->init->loc, "use a constant or params", "the initial value of '%s' must not depend on the point", s->name);
			fail(ck);
		}
		ck->ok = ck->ok && before;
	}
	for (int d = 0; d < s->ndim && d < PT_MAX_DIMS; d++) {
		s->backward[d] = ck->dir[d] > 0;
		s->self_fixed[d] = ck->fixed[d];
	}
	ck->s = NULL;
}

/* Depth-first topological sort; reports the first cycle found. */
typedef struct topo {
	checker *ck;
	int *state;             /* 0 new, 1 on stack, 2 done */
	pt_stage **order;
	int n;
	pt_stage **stack;
	int depth;
} topo;

static bool visit(topo *t, pt_stage *s);

static bool visit_expr(topo *t, pt_stage *s, const pt_expr *e)
{
	for (int i = 0; i < e->nargs; i++)
		if (!visit_expr(t, s, e->args[i]))
			return false;
	if (e->kind == PT_E_CALL && e->stage && e->stage != s)
		return visit(t, e->stage);
	return true;
}

static bool visit(topo *t, pt_stage *s)
{
	if (t->state[s->id] == 2)
		return true;
	if (t->state[s->id] == 1) {
		pt_strbuf m = {0};
		int start = t->depth - 1;
		while (start > 0 && t->stack[start] != s)
			start--;
		for (int i = start; i < t->depth; i++)
			pt_sb_printf(&m, "%s -> ", t->stack[i]->name);
		pt_sb_printf(&m, "%s", s->name);
		pt_error_at(t->ck->d, s->loc, "a pipeline is a DAG: break the cycle, or use a time dimension (f(t-1, ...))",
			"stages depend on each other in a cycle: %s", m.s);
		pt_sb_free(&m);
		t->ck->ok = false;
		return false;
	}
	t->state[s->id] = 1;
	t->stack[t->depth++] = s;
	for (int c = 0; c < s->ncases; c++) {
		pt_case *k = &s->cases[c];
		if ((k->cond && !visit_expr(t, s, k->cond)) || !visit_expr(t, s, k->value))
			return false;
		for (int d = 0; k->target && d < s->ndim; d++)
			if (!visit_expr(t, s, k->target[d]))
				return false;
	}
	t->depth--;
	t->state[s->id] = 2;
	t->order[t->n++] = s;
	return true;
}

static bool toposort(checker *ck)
{
	pt_pipeline *p = ck->p;
	topo t = {ck, pt_mem_calloc((size_t)p->nstages + 1, sizeof(int)),
		pt_mem_calloc((size_t)p->nstages + 1, sizeof(pt_stage *)), 0,
		pt_mem_calloc((size_t)p->nstages + 1, sizeof(pt_stage *)), 0};
	bool ok = t.state && t.order && t.stack;
	for (int i = 0; i < p->nstages && ok; i++)
		ok = visit(&t, p->stages[i]);
	if (ok) {
		memcpy(p->stages, t.order, sizeof(pt_stage *) * (size_t)p->nstages);
		for (int i = 0; i < p->nstages; i++)
			p->stages[i]->id = i;
	}
	free(t.state);
	free(t.order);
	free(t.stack);
	return ok;
}

bool pt_check_pipeline(pt_diag *d, pt_pipeline *p)
{
	long failures = pt_mem_failures();
	checker ck = { .d = d, .p = p, .s = NULL, .in_domain = false, .ok = true, .operand = { PT_NO_TYPE, PT_NO_TYPE } };
	char what[300];
	/* before any recursion: the builder's trees, and those a file makes
	 * that the parser did not build itself (`| else` joins every case) */
	if (!pt_pipeline_check_limits(d, p))
		return false;
	for (int i = 0; i < p->nimages; i++)
		for (int k = 0; k < p->images[i]->ndim; k++) {
			snprintf(what, sizeof(what), "extent %d of image '%s'", k + 1, p->images[i]->name);
			check_bound(&ck, p->images[i]->extent[k], what);
		}
	for (int i = 0; i < p->nstages; i++)
		check_stage(&ck, p->stages[i]);
	bool any_output = false;
	for (int i = 0; i < p->nstages; i++)
		any_output = any_output || p->stages[i]->is_output;
	if (ck.ok && !any_output) {
		pt_loc at = p->loc;
		pt_error_at(d, at, "mark the results with `output name`", "pipeline '%s' has no output", p->name);
		ck.ok = false;
	}
	if (ck.ok)
		ck.ok = toposort(&ck);
	/* an allocation that failed fails the check (alloc.h) */
	p->checked = ck.ok && pt_mem_failures() == failures;
	return p->checked;
}
