/* rfactor_tuple.c: tuple reductions (frontend/tuple.c) factored in the
 * form of rfactor.h.  The partial is the tuple's stage with a part
 * dimension in front, reading its own slots; the merge folds the parts
 * into each point with the tuple's operator op(A, B), one general update
 * per component (old components copied first, as tuple.c does).
 *
 * The operator is known for the built-in kinds: componentwise +, *, min
 * and max; argmin and argmax, the lexicographic min (max in the first
 * component, then min in the indices) of the tuple, associative and
 * commutative as the min of a total order, its identity the order's top
 * (+inf or the type's largest value, each index at its largest).  A
 * general update h(t) = (E0, ...) gives op_j from E_j: its accumulator
 * reads become A, and its largest sub-expressions that read no
 * accumulator, literals aside, become B in order of first appearance
 * (one per component); assoc.h proves it (polynomials). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "rfactor_priv.h"
#include "values.h"

#define typed pt_rf_typed
#define lit pt_rf_lit
#define var pt_rf_var
#define bin pt_rf_bin

static pt_expr *operand(bool b, int k, int type, pt_loc loc)
{
	pt_expr *e = typed(pt_expr_new(PT_E_VAR, loc), type);
	if (e)
		e->index = b ? PT_TUP_B(k) : PT_TUP_A(k);
	return e;
}

#define PT_TUP_FLAG (-400)

/* argmin/argmax: whether B comes first in the order (lex_flag), and
 * op_j = select(flag, B_j, A_j) (lex_op). */
static pt_expr *lex_flag(const pt_stage *s, pt_loc loc)
{
	pt_expr *c = NULL;
	for (int k = s->ntuple - 1; k >= 0; k--) {
		int t = s->tuple_type[k];
		int lt = k == 0 && s->tuple_kind == PT_TUPLE_ARGMAX ? PT_OP_GT : PT_OP_LT;
		pt_expr *less = bin(lt, operand(true, k, t, loc), operand(false, k, t, loc), PT_BOOL, loc);
		if (!c) {
			c = less;
			continue;
		}
		pt_expr *eq = bin(PT_OP_EQ, operand(true, k, t, loc), operand(false, k, t, loc), PT_BOOL, loc);
		c = bin(PT_OP_OR, less, bin(PT_OP_AND, eq, c, PT_BOOL, loc), PT_BOOL, loc);
	}
	return c;
}

static pt_expr *lex_op(const pt_stage *s, int j, pt_loc loc)
{
	int t = s->tuple_type[j];
	pt_expr *f = typed(pt_expr_new(PT_E_VAR, loc), PT_BOOL);
	if (f)
		f->index = PT_TUP_FLAG;
	return pt_expr_with_args(typed(pt_expr_new(PT_E_SELECT, loc), t), 3, f, operand(true, j, t, loc),
		operand(false, j, t, loc));
}

/* ---- general updates: op_j from the typed E_j ---- */

typedef struct derive {
	const pt_stage *s;
	const pt_expr *val[PT_MAX_TUPLE];
	int nval;
	const char *bad;
} derive;

static bool reads_self(const pt_stage *s, const pt_expr *e)
{
	if (e->kind == PT_E_CALL && e->stage == s)
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (reads_self(s, e->args[i]))
			return true;
	return false;
}

static bool closed(const pt_expr *e)
{
	if (e->kind == PT_E_CALL || e->kind == PT_E_VAR || e->kind == PT_E_PARAM || e->kind == PT_E_NAME)
		return false;
	for (int i = 0; i < e->nargs; i++)
		if (!closed(e->args[i]))
			return false;
	return true;
}

/* The component an accumulator read k(s(t, slot)) reads, or -1. */
static int acc_component(const derive *dv, const pt_expr *e)
{
	const pt_stage *s = dv->s;
	if (e->kind != PT_E_CAST || e->args[0]->kind != PT_E_CALL || e->args[0]->stage != s)
		return -1;
	const pt_expr *slot = e->args[0]->args[s->ndim - 1];
	if (slot->kind != PT_E_INT)
		return -1;
	int k = (int)(slot->ival < s->ntuple ? slot->ival : slot->ival - s->ntuple);
	return k >= 0 && k < s->ntuple && e->type == s->tuple_type[k] ? k : -1;
}

static pt_expr *derived(derive *dv, const pt_expr *e)
{
	int k = acc_component(dv, e);
	if (k >= 0)
		return operand(false, k, e->type, e->loc);
	/* a conversion of a value to another type than the components' (one
	 * type, prove_general) belongs to the operator, as the checker's u8
	 * to int in u8 arithmetic: the value is what it converts */
	bool cast_of_value = e->kind == PT_E_CAST && e->type != dv->s->tuple_type[0] && !closed(e) &&
		!reads_self(dv->s, e);
	if (!reads_self(dv->s, e) && !cast_of_value) {
		if (closed(e))
			return pt_expr_copy(e);
		int i = 0;
		while (i < dv->nval && !pt_expr_equal(dv->val[i], e))
			i++;
		if (i == dv->nval) {
			if (dv->nval == dv->s->ntuple) {
				dv->bad = "its update combines its accumulator with more values than it has components";
				return NULL;
			}
			dv->val[dv->nval++] = e;
		}
		if (e->type != dv->s->tuple_type[i]) {
			dv->bad = "its update's value for a component is not of that component's type";
			return NULL;
		}
		return operand(true, i, e->type, e->loc);
	}
	if (e->kind == PT_E_CALL && !cast_of_value) {
		dv->bad = "its update reads itself other than at its target";
		return NULL;
	}
	pt_expr *c = pt_expr_copy(e);
	if (!c)
		return NULL;
	for (int i = 0; i < c->nargs; i++) {
		pt_expr_free(c->args[i]);
		if (!(c->args[i] = derived(dv, e->args[i]))) {
			for (int j = i + 1; j < c->nargs; j++)
				c->args[j] = pt_expr_free(c->args[j]);
			return pt_expr_free(c);
		}
	}
	return c;
}

/* Case c's component (slot < n), or -1 for a copy. */
static int case_component(const pt_stage *s, int c)
{
	const pt_expr *slot = s->cases[c].target[s->ndim - 1];
	return slot->kind == PT_E_INT && slot->ival < s->ntuple ? (int)slot->ival : -1;
}

/* E_j of compute case c: its value without the two conversions tuple.c
 * put around it (to the component's type, then the stage's). */
static const pt_expr *case_expr(const pt_stage *s, int c)
{
	const pt_expr *v = s->cases[c].value;
	for (int i = 0; i < 2 && v->kind == PT_E_CAST; i++)
		v = v->args[0];
	return v;
}

static const char *derive_ops(const pt_stage *s, pt_rf_tuple *tp)
{
	int n = s->ntuple, first = 1;
	derive dv = {.s = s};
	pt_expr *cur[PT_MAX_TUPLE] = {0};
	const char *why = NULL;
	for (int c = 0; c < s->ncases && !why; c++) {
		int j = case_component(s, c);
		if (j < 0)
			continue;
		if (!(cur[j] = derived(&dv, case_expr(s, c))))
			why = dv.bad ? dv.bad : "out of memory";
		if (why || j < n - 1)
			continue;
		if (dv.nval < n)
			why = "its update combines its accumulator with fewer values than it has components (a literal "
				"belongs to the operator: write componentwise sums with +=)";
		for (int k = 0; k < n && !why; k++)
			if (!first && !pt_expr_equal(cur[k], tp->op[k]))
				why = "its updates combine with different operators";
		for (int k = 0; k < n; k++) {
			if (first)
				tp->op[k] = cur[k];
			else
				pt_expr_free(cur[k]);
			cur[k] = NULL;
		}
		first = 0;
		dv.nval = 0;
	}
	for (int k = 0; k < n; k++)
		pt_expr_free(cur[k]);
	return why;
}

/* ---- the operator and its proof ---- */

static bool reads_a(const pt_expr *e, int k)
{
	if (e->kind == PT_E_VAR && e->index == PT_TUP_A(k))
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (reads_a(e->args[i], k))
			return true;
	return false;
}

/* Whether op_j reads A_k for some j > k (the merge copies k first). */
static bool needs_copy(const pt_rf_tuple *tp, int n, int k)
{
	for (int j = k + 1; j < n; j++)
		if (reads_a(tp->op[j], k))
			return true;
	return false;
}

static const char *prove_general(const pt_stage *s, bool reassociate, pt_rf_tuple *tp)
{
	for (int k = 1; k < s->ntuple; k++)
		if (s->tuple_type[k] != s->tuple_type[0])
			return "its components differ in type (a general tuple update is proved only on one type)";
	if (pt_type_is_float(s->tuple_type[0]) && !reassociate)
		return "a float general update changes with the order (--reassociate allows it)";
	const char *why = derive_ops(s, tp);
	if (why)
		return why;
	pt_assoc_tuple a;
	if (!pt_assoc_prove_tuple(tp->op, s->ntuple, s->tuple_type[0], &a)) {
		snprintf(tp->why, sizeof tp->why, "%s", a.why);
		return tp->why;
	}
	memcpy(tp->identity, a.identity, sizeof a.identity);
	char id[160] = "";
	for (int k = 0; k < s->ntuple; k++) {
		size_t l = strlen(id);
		if (pt_type_is_float(s->tuple_type[k]))
			snprintf(id + l, sizeof id - l, "%s%g", k ? ", " : "", a.identity[k].f);
		else
			snprintf(id + l, sizeof id - l, "%s%lld", k ? ", " : "", (long long)a.identity[k].i);
	}
	snprintf(tp->how, sizeof tp->how, "its operator proved associative and commutative (as a polynomial "
		"tuple), identity (%s)", id);
	return NULL;
}

const char *pt_rf_tuple_why(const pt_stage *s, bool reassociate, pt_rf_tuple *tp)
{
	memset(tp, 0, sizeof *tp);
	int n = s->ntuple;
	bool flt = pt_type_is_float(s->type);
	pt_loc loc = s->loc;
	const char *why = NULL;
	if (s->tuple_kind == PT_TUPLE_GENERAL) {
		why = prove_general(s, reassociate, tp);
	} else if (flt && !reassociate) {
		why = s->tuple_kind == PT_TUPLE_EACH ?
			"a componentwise float reduction changes with the order (--reassociate allows it)" :
			"an argmin/argmax with float components may change with the order (NaN, -0.0; --reassociate allows it)";
	} else {
		bool each = s->tuple_kind == PT_TUPLE_EACH;
		for (int j = 0; j < n; j++) {
			int t = s->tuple_type[j];
			int op = each ? (int)s->tuple_red : s->tuple_kind == PT_TUPLE_ARGMAX && j == 0 ? PT_RED_MAX : PT_RED_MIN;
			tp->identity[j] = pt_val_identity(op, t);
			tp->op[j] = each ? pt_rf_combine(s->tuple_red, operand(false, j, t, loc), operand(true, j, t, loc), t, loc) :
				lex_op(s, j, loc);
			if (!tp->op[j])
				why = "out of memory";
		}
		if (!each && !(tp->flag = lex_flag(s, loc)))
			why = "out of memory";
		snprintf(tp->how, sizeof tp->how, each ? "componentwise %s" : "%s (lexicographic on the tuple: ties go to "
			"the least index, the first point visited)", each ? pt_redop_name(s->tuple_red) :
			s->tuple_kind == PT_TUPLE_ARGMIN ? "argmin" : "argmax");
	}
	const pt_expr *hi = s->dom[s->ndim - 1].hi;
	for (int k = 0; !why && k < n; k++)
		if (needs_copy(tp, n, k) && (hi->kind != PT_E_INT || n + k > hi->ival))
			why = "its merge would need a slot its updates do not";
	if (!why && tp->flag && (hi->kind != PT_E_INT || n > hi->ival))
		why = "its merge would need a slot its updates do not";
	if (!why && 2 * s->ndim > PT_MAX_DIMS)
		why = "its merge would have more than 8 dimensions";
	if (why)
		pt_rf_tuple_clear(tp);
	return why;
}

void pt_rf_tuple_clear(pt_rf_tuple *tp)
{
	tp->flag = pt_expr_free(tp->flag);
	for (int k = 0; k < PT_MAX_TUPLE; k++)
		tp->op[k] = pt_expr_free(tp->op[k]);
}

/* ---- the partial and the merge ---- */

typedef struct retarget {
	const pt_stage *s;
	pt_stage *t;
	int q;                  /* t's part variable */
} retarget;

/* A read of s's own slots becomes the same read of t's, in part q. */
static pt_expr *to_partial(pt_expr *e, void *user)
{
	const retarget *r = user;
	if (e->kind != PT_E_CALL || e->stage != r->s)
		return e;
	char *name = pt_mem_strdup(r->t->name);
	pt_expr *q = var(r->q, e->loc);
	pt_expr **args = pt_mem_calloc((size_t)e->nargs + 1, sizeof *args);
	if (!name || !q || !args) {
		free(name), pt_expr_free(q), free(args);
		return pt_expr_free(e);
	}
	args[0] = q;
	memcpy(args + 1, e->args, sizeof *args * (size_t)e->nargs);
	free(e->args);
	e->args = args;
	e->nargs++;
	free(e->name);
	e->name = name;
	e->stage = r->t;
	return e;
}

static pt_expr *literal(pt_val v, int from, int to, pt_loc loc)
{
	pt_val x = pt_val_convert(v, from, to);
	return typed(pt_type_is_float(to) ? pt_expr_float(x.f, loc) : pt_expr_int(x.i, loc), to);
}

/* select(slot == 0, e_0, select(slot == 1, e_1, ...)) in s's type. */
static pt_expr *start(const pt_stage *s, const pt_val *e, int slot, pt_loc loc)
{
	pt_expr *r = NULL;
	for (int k = s->ntuple - 1; k >= 0; k--) {
		pt_expr *v = literal(e[k], s->tuple_type[k], s->type, loc);
		if (!r) {
			r = v;
			continue;
		}
		pt_expr *is = bin(PT_OP_EQ, var(slot, loc), lit(k, loc), PT_BOOL, loc);
		r = pt_expr_with_args(typed(pt_expr_new(PT_E_SELECT, loc), s->type), 3, is, v, r);
	}
	return r;
}

static bool make_partial(const pt_stage *s, pt_stage *t, const pt_rf_tuple *tp)
{
	retarget r = {.s = s, .t = t, .q = s->ndim + 1};
	for (int c = 0; c < t->ncases; c++)
		if (!(t->cases[c].value = pt_expr_map(t->cases[c].value, to_partial, &r)))
			return false;
	t->ntuple = s->ntuple;
	memcpy(t->tuple_type, s->tuple_type, sizeof s->tuple_type);
	t->tuple_kind = s->tuple_kind;
	t->tuple_red = s->tuple_red;
	pt_expr_free(t->init);
	return (t->init = start(s, tp->identity, s->ndim, s->loc)) != NULL;
}

/* Reads of the merge: its own slot (at the point of its reduction
 * variables) or part p's component k of t. */
static pt_expr *slot_read(const pt_stage *s, const pt_stage *from, int slot, bool part, pt_loc loc)
{
	int nd = s->ndim, nr = nd - 1;
	pt_expr *c = typed(pt_expr_new(PT_E_CALL, loc), s->type);
	if (!c || !(c->name = pt_mem_strdup(from->name)))
		return pt_expr_free(c);
	c->stage = (pt_stage *)from;
	bool ok = !part || pt_expr_push_arg(c, var(nd + nr, loc));
	for (int i = 0; ok && i < nr; i++)
		ok = pt_expr_push_arg(c, var(nd + i, loc));
	return ok && pt_expr_push_arg(c, lit(slot, loc)) ? c : pt_expr_free(c);
}

static pt_expr *conv(int type, pt_expr *a, pt_loc loc)
{
	return pt_expr_with_args(typed(pt_expr_new(PT_E_CAST, loc), type), 1, a, NULL, NULL);
}

typedef struct inst {
	const pt_stage *s, *t;
	int j;
	pt_loc loc;
} inst;

static pt_expr *instantiate(pt_expr *e, void *user)
{
	const inst *in = user;
	int n = in->s->ntuple;
	if (e->kind == PT_E_VAR && e->index == PT_TUP_FLAG) {        /* s(x_m.., n) != 0 */
		pt_loc loc = in->loc;
		pt_expr_free(e);
		int t = in->s->type;
		pt_expr *zero = typed(pt_type_is_float(t) ? pt_expr_float(0, loc) : pt_expr_int(0, loc), t);
		return bin(PT_OP_NE, slot_read(in->s, in->s, n, false, loc), zero, PT_BOOL, loc);
	}
	if (e->kind != PT_E_VAR || e->index > PT_TUP_A(0) || e->index <= PT_TUP_B(n))
		return e;
	bool b = e->index <= PT_TUP_B(0);
	int k = b ? PT_TUP_B(0) - e->index : PT_TUP_A(0) - e->index;
	pt_expr_free(e);
	pt_expr *r = b ? slot_read(in->s, in->t, k, true, in->loc) :
		slot_read(in->s, in->s, k < in->j ? n + k : k, false, in->loc);
	return conv(in->s->tuple_type[k], r, in->loc);
}

/* One case of the merge: s(x_m.., slot) = value. */
static bool merge_case(pt_case *c, const pt_stage *s, int slot, pt_expr *value)
{
	int nd = s->ndim;
	pt_loc loc = s->loc;
	*c = (pt_case){.value = value, .loc = loc};
	c->target = pt_mem_calloc((size_t)nd, sizeof *c->target);
	c->update = typed(pt_expr_new(PT_E_VAR, loc), s->type);
	if (!c->target || !c->update || !value)
		return false;
	c->update->index = PT_UPD_VAL;
	for (int i = 0; i < nd - 1; i++)
		if (!(c->target[i] = var(nd + i, loc)))
			return false;
	return (c->target[nd - 1] = lit(slot, loc)) != NULL;
}

static void free_cases(pt_case *cs, int n, int nd)
{
	for (int c = 0; c < n; c++) {
		pt_expr_free(cs[c].value);
		pt_expr_free(cs[c].update);
		for (int k = 0; cs[c].target && k < nd; k++)
			pt_expr_free(cs[c].target[k]);
		free(cs[c].target);
	}
	free(cs);
}

/* The merge's cases: copies of the components a later op_j reads, then
 * one per component. */
static pt_case *merge_cases(const pt_stage *s, const pt_stage *t, const pt_rf_tuple *tp, int *ncases)
{
	int n = s->ntuple, m = 0;
	pt_case *cs = pt_mem_calloc(2 * (size_t)n + 1, sizeof *cs);
	bool ok = cs != NULL;
	if (ok && tp->flag) {   /* s(x_m.., n) = select(B first, 1, 0) */
		inst in = {.s = s, .t = t, .j = 0, .loc = s->loc};
		pt_expr *f = pt_expr_map(pt_expr_copy(tp->flag), instantiate, &in);
		pt_expr *v = pt_expr_with_args(typed(pt_expr_new(PT_E_SELECT, s->loc), s->type), 3, f,
			conv(s->type, lit(1, s->loc), s->loc), conv(s->type, lit(0, s->loc), s->loc));
		ok = merge_case(&cs[m++], s, n, v);
	}
	for (int k = 0; ok && k < n; k++)
		if (needs_copy(tp, n, k))
			ok = merge_case(&cs[m++], s, n + k, slot_read(s, s, k, false, s->loc));
	for (int j = 0; ok && j < n; j++) {
		inst in = {.s = s, .t = t, .j = j, .loc = s->loc};
		pt_expr *v = pt_expr_map(pt_expr_copy(tp->op[j]), instantiate, &in);
		ok = merge_case(&cs[m++], s, j, conv(s->type, conv(s->tuple_type[j], v, s->loc), s->loc));
	}
	if (!ok) {
		if (cs)
			free_cases(cs, m, s->ndim);
		return NULL;
	}
	*ncases = m;
	return cs;
}

/* s becomes reduce s(D, slot) over (D_m, part) | s(D_m, j) = op_j(s(D_m), t(part, D_m)). */
static bool become_merge(pt_stage *s, const pt_stage *t, const pt_rf_tuple *tp)
{
	int nd = s->ndim, nr = nd - 1, nc = 0;
	pt_loc loc = s->loc;
	char **vars = pt_mem_calloc((size_t)(nd + nr + 1), sizeof *vars);
	pt_interval *rdom = pt_mem_calloc((size_t)nr + 1, sizeof *rdom);
	bool ok = vars && rdom;
	for (int i = 0; ok && i < nd; i++)
		ok = (vars[i] = pt_mem_strdup(s->vars[i])) != NULL;
	for (int i = 0; ok && i < nr; i++) {
		char buf[80];
		snprintf(buf, sizeof buf, "%.60s_m", s->vars[i]);
		rdom[i] = (pt_interval){pt_expr_copy(s->dom[i].lo), pt_expr_copy(s->dom[i].hi), s->dom[i].step};
		ok = (vars[nd + i] = pt_rf_fresh_var(s, vars, nd + i, buf)) && rdom[i].lo && rdom[i].hi;
	}
	if (ok) {
		rdom[nr] = (pt_interval){lit(0, loc), lit(tp->parts - 1, loc), 1};
		ok = (vars[nd + nr] = pt_rf_fresh_var(s, vars, nd + nr, "part")) && rdom[nr].lo && rdom[nr].hi;
	}
	pt_case *cs = NULL;
	if (ok) {
		/* the merge's variables are in place before its reads index them */
		pt_rf_drop_updates(s);
		free(s->cases);
		s->cases = NULL;
		for (int i = 0; i < nd; i++)
			free(s->vars[i]);
		free(s->vars);
		s->vars = vars;
		s->rdom = rdom;
		s->nrdim = nr + 1;
		vars = NULL;
		rdom = NULL;
		ok = (cs = merge_cases(s, t, tp, &nc)) != NULL;
	}
	for (int i = 0; vars && i < nd + nr + 1; i++)
		free(vars[i]);
	for (int i = 0; rdom && i <= nr; i++) {
		pt_expr_free(rdom[i].lo);
		pt_expr_free(rdom[i].hi);
	}
	free(vars);
	free(rdom);
	s->cases = cs;
	s->ncases = cs ? nc : 0;
	return ok;
}

bool pt_rf_tuple_factor(pt_stage *s, pt_stage *t, const pt_rf_tuple *tp)
{
	return make_partial(s, t, tp) && become_merge(s, t, tp);
}
