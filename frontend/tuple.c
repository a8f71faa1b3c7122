/* tuple.c: tuple-valued reductions (docs/language.md §12), read and
 * desugared as the text is parsed.
 *
 *   reduce am(k : 0 .. 0) : (float, int, int) over (x, y) init (inf, 0, 0)
 *     | am(0) argmin= (I(x, y), x, y)
 *
 * becomes one reduction `am` over (k, tuple_slot) of a type that holds
 * every component exactly (the components' type when they agree, else
 * f64 or i64), and one plain function per component, am_0 .. am_2, that
 * reads its slot back in its own type.  Every update becomes one general
 * update per component, h(t, j) = E_j, where E_j reads the accumulator's
 * components as h(t, k) converted to their types; E_j is computed in
 * component j's type and stored converted to the stage's (both exact).
 * The components of one point change together: where E_j reads a
 * component k < j, which this point's update of k has already changed,
 * it reads a copy of k saved first in a slot past the components.  So
 * everything after the parser sees ordinary stages; the stage keeps
 * ntuple, its types and its kind for factoring (poly/rfactor_tuple.c). */
#include <stdio.h>
#include <stdlib.h>

#include "alloc.h"
#include "parser_priv.h"
#include "values.h"

/* ---- small builders (untyped, as parsed; CASTs carry their type) ---- */

static pt_expr *call_of(const char *name, pt_loc loc)
{
	pt_expr *e = pt_expr_new(PT_E_CALL, loc);
	if (e && !(e->name = pt_mem_strdup(name)))
		e = pt_expr_free(e);
	return e;
}

static pt_expr *cast_to(int type, pt_expr *a, pt_loc loc)
{
	pt_expr *c = pt_expr_new(PT_E_CAST, loc);
	if (c)
		c->type = type;
	return pt_expr_with_args(c, 1, a, NULL, NULL);
}

static pt_expr *select_of(pt_expr *c, pt_expr *a, pt_expr *b, pt_loc loc)
{
	return pt_expr_with_args(pt_expr_new(PT_E_SELECT, loc), 3, c, a, b);
}

static pt_expr *minmax_of(int in, pt_expr *a, pt_expr *b, pt_loc loc)
{
	pt_expr *e = pt_expr_new(PT_E_INTRIN, loc);
	if (e)
		e->op = in;
	return pt_expr_with_args(e, 2, a, b, NULL);
}

/* The type that holds every value of each of t[0..n) exactly. */
static int common_type(const int *t, int n)
{
	bool same = true, flt = false, wide = false;
	for (int i = 0; i < n; i++) {
		same = same && t[i] == t[0];
		flt = flt || pt_type_is_float(t[i]);
		wide = wide || (pt_type_is_int(t[i]) && pt_type_bits(t[i]) > 32);
	}
	if (same)
		return t[0];
	if (flt)
		return wide ? -1 : PT_F64;
	return PT_I64;
}

/* ---- the type: "(" type ("," type)+ ")" ---- */

bool pt_tuple_types(pt_parser *ps, pt_stage *s)
{
	pt_loc l = pt_ps_peek(ps)->loc;
	pt_ps_next(ps);
	int n = 0;
	do {
		pt_token *t = pt_ps_peek(ps);
		char name[MAX_NAME];
		pt_ps_tok_text(t, name, sizeof name);
		int ty = t->kind == PT_T_IDENT ? pt_type_lookup(name) : -1;
		if (ty < 0 || ty == PT_BOOL) {
			pt_ps_error(ps, t->loc, "types are u8 u16 u32 i8 i16 i32 i64 f32 f64 (or int, float, ...)",
				"'%s' is not a type", name);
			return false;
		}
		if (n == PT_MAX_TUPLE) {
			pt_ps_error(ps, t->loc, "split it into several reductions",
				"a tuple has at most %d components", PT_MAX_TUPLE);
			return false;
		}
		s->tuple_type[n++] = ty;
		pt_ps_next(ps);
	} while (pt_ps_accept(ps, PT_T_COMMA));
	if (!pt_ps_expect(ps, PT_T_RPAREN, "close the tuple type with ')'"))
		return false;
	l = pt_ps_span(l, pt_ps_prev_loc(ps));
	if (n < 2) {
		pt_ps_error(ps, l, "write the type alone: reduce h(b) : int over (...)",
			"a tuple has at least 2 components");
		return false;
	}
	if (strchr(s->name, '[')) {
		pt_ps_error(ps, s->loc, "give it a plain name", "a tuple reduction cannot be a family member ('%s')",
			s->name);
		return false;
	}
	int ct = common_type(s->tuple_type, n);
	if (ct < 0) {
		pt_ps_error(ps, l, "use i32 or narrower for the integer components, or split the reduction",
			"a tuple cannot mix i64 and float components (no one type holds both exactly)");
		return false;
	}
	s->ntuple = n;
	if (!pt_stage_set_type(ps->d, s, ct, l)) {
		ps->failed = true;
		return false;
	}
	/* the slot dimension, after the result's (its extent set at the end) */
	pt_interval iv = {pt_expr_int(0, l), pt_expr_int(0, l), 1};
	if (!pt_stage_add_var(ps->d, s, PT_TUPLE_SLOT, iv, false, l)) {
		ps->failed = true;
		return false;
	}
	return true;
}

/* ---- component reads: h(t).j ---- */

/* Whether the token at the cursor is ".j" (an integer after a dot, which
 * the lexer reads as a number): its j into *j. */
static bool at_component(pt_parser *ps, int *j)
{
	pt_token *t = pt_ps_peek(ps);
	if (t->kind != PT_T_FLOAT || t->len < 2 || t->start[0] != '.' || t->len > 4)
		return false;
	int v = 0;
	for (int i = 1; i < t->len; i++) {
		if (t->start[i] < '0' || t->start[i] > '9')
			return false;
		v = v * 10 + (t->start[i] - '0');
	}
	*j = v;
	return true;
}

pt_expr *pt_tuple_read(pt_parser *ps, pt_expr *call)
{
	int j;
	pt_stage *s = pt_pipeline_find_stage(ps->p, call->name);
	bool tuple = s && s->ntuple > 0;
	if (!at_component(ps, &j)) {
		if (tuple && ps->tuple_target != s) {
			pt_ps_error(ps, call->loc, "read one component, as h(...).0",
				"'%s' is a tuple of %d components: read one as %s(...).0 .. %s(...).%d", s->name, s->ntuple,
				s->name, s->name, s->ntuple - 1);
			return pt_expr_free(call);
		}
		return call;
	}
	pt_token *t = pt_ps_next(ps);
	pt_loc l = pt_ps_span(call->loc, t->loc);
	if (!tuple) {
		pt_ps_error(ps, l, "components are read from tuple reductions, as am(0).1",
			"'%s' is not a tuple: it has no component .%d", call->name, j);
		return pt_expr_free(call);
	}
	if (j >= s->ntuple) {
		pt_ps_error(ps, l, "components are numbered from 0", "'%s' has %d components (.0 .. .%d), not .%d",
			s->name, s->ntuple, s->ntuple - 1, j);
		return pt_expr_free(call);
	}
	char name[MAX_NAME + 16];
	pt_tuple_component_name(s->name, j, name, sizeof name);
	char *n = pt_mem_strdup(name);
	if (!n)
		return pt_expr_free(call);
	free(call->name);
	call->name = n;
	call->loc = l;
	return call;
}

/* ---- updates ---- */

typedef struct tupd {
	pt_parser *ps;
	pt_stage *s;
	int n;                  /* components */
	pt_expr **target;       /* the update's target as written (s->ndim - 1 indices) */
	int nt;
	bool copy[PT_MAX_TUPLE];        /* component k is read after this point's update of it */
	bool failed;
} tupd;

/* Whether e reads s or one of its components (a component's name is
 * s's, '_', its number). */
static int component_of(const pt_stage *s, const pt_expr *e)
{
	if (e->kind != PT_E_CALL || !e->name)
		return -2;
	if (!strcmp(e->name, s->name))
		return -1;
	size_t l = strlen(s->name);
	if (strncmp(e->name, s->name, l) || e->name[l] != '_')
		return -2;
	char *end;
	long k = strtol(e->name + l + 1, &end, 10);
	return *end || end == e->name + l + 1 || k < 0 || k >= s->ntuple ? -2 : (int)k;
}

static bool reads_tuple(const pt_stage *s, const pt_expr *e)
{
	if (component_of(s, e) >= -1)
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (reads_tuple(s, e->args[i]))
			return true;
	return false;
}

/* The accumulator's component k as E_j reads it: s(t, slot) in k's type,
 * the slot a copy where j comes after k. */
static pt_expr *acc_read(tupd *u, int k, int j, pt_loc loc)
{
	int slot = k < j ? u->n + k : k;
	u->copy[k] = u->copy[k] || k < j;
	pt_expr *c = call_of(u->s->name, loc);
	for (int i = 0; c && i < u->nt; i++)
		if (!pt_expr_push_arg(c, pt_expr_copy(u->target[i])))
			c = NULL;
	if (c && !pt_expr_push_arg(c, pt_expr_int(slot, loc)))
		c = NULL;
	return cast_to(u->s->tuple_type[k], c, loc);
}

static pt_expr *rewrite(pt_expr *e, void *user);

/* E_j with every read of a component at the target replaced by acc_read. */
static pt_expr *rewrite_for(tupd *u, pt_expr *e, int j)
{
	struct { tupd *u; int j; } ctx = {u, j};
	return e ? pt_expr_map(e, rewrite, &ctx) : NULL;
}

static pt_expr *rewrite(pt_expr *e, void *user)
{
	struct { tupd *u; int j; } *ctx = user;
	tupd *u = ctx->u;
	int k = component_of(u->s, e);
	if (k < -1 || u->failed)
		return e;
	const char *name = u->s->name;
	if (k == -1) {
		pt_ps_error(u->ps, e->loc, "read one component, as h(t).0", "the update of '%s' reads the whole tuple "
			"%s(...); read one of its %d components", name, name, u->s->ntuple);
		u->failed = true;
		return e;
	}
	bool at = e->nargs == u->nt;
	for (int i = 0; at && i < u->nt; i++)
		at = pt_expr_equal(e->args[i], u->target[i]);
	if (!at) {
		pt_ps_error(u->ps, e->loc, "an update reads its reduction only at its target, as h(t).0",
			"the update of '%s' reads component %d at another point than its target", name, k);
		u->failed = true;
		return e;
	}
	pt_loc loc = e->loc;
	pt_expr_free(e);
	return acc_read(u, k, ctx->j, loc);
}

/* The operators of tuple updates. */
static pt_tuple_kind parse_op(pt_parser *ps, pt_redop *red)
{
	pt_token *t = pt_ps_peek(ps);
	pt_tuple_kind k = PT_TUPLE_NONE;
	*red = PT_RED_NONE;
	if (t->kind == PT_T_PLUSEQ || t->kind == PT_T_STAREQ) {
		k = PT_TUPLE_EACH;
		*red = t->kind == PT_T_PLUSEQ ? PT_RED_SUM : PT_RED_PROD;
	} else if (t->kind == PT_T_IDENT) {
		char w[16];
		pt_ps_tok_text(t, w, sizeof w);
		bool eq = ps->toks[ps->pos + 1].kind == PT_T_ASSIGN;
		if (eq && (!strcmp(w, "min") || !strcmp(w, "max"))) {
			k = PT_TUPLE_EACH;
			*red = w[1] == 'i' ? PT_RED_MIN : PT_RED_MAX;
		} else if (eq && (!strcmp(w, "argmin") || !strcmp(w, "argmax"))) {
			k = w[4] == 'i' ? PT_TUPLE_ARGMIN : PT_TUPLE_ARGMAX;
		}
		if (k != PT_TUPLE_NONE)
			pt_ps_next(ps);
	} else if (t->kind == PT_T_ASSIGN) {
		k = PT_TUPLE_GENERAL;
	}
	if (k == PT_TUPLE_NONE) {
		pt_ps_syntax_error(ps, "tuples update with += *= min= max= argmin= argmax=, or h(t) = (E0, E1, ...)",
			"a tuple reduction operator");
		return k;
	}
	pt_ps_next(ps);
	return k;
}

/* "(" expr ("," expr)* ")" with exactly n expressions into v. */
static bool parse_values(pt_parser *ps, const pt_stage *s, pt_expr **v, const char *what)
{
	pt_loc l = pt_ps_peek(ps)->loc;
	int n = 0;
	if (!pt_ps_expect(ps, PT_T_LPAREN, "a tuple update gives one value per component: h(t) += (a, b)"))
		return false;
	bool ok = true;
	do {
		pt_expr *e = pt_ps_parse_expr(ps);
		if (!e)
			ok = false;
		else if (n < s->ntuple)
			v[n] = e;
		else
			pt_expr_free(e);
		n++;
	} while (ok && pt_ps_accept(ps, PT_T_COMMA));
	ok = ok && pt_ps_expect(ps, PT_T_RPAREN, "close the tuple with ')'");
	if (ok && n != s->ntuple) {
		pt_ps_error(ps, pt_ps_span(l, pt_ps_prev_loc(ps)), "give one value per component",
			"'%s' has %d components but %s gives %d value%s", s->name, s->ntuple, what, n, n == 1 ? "" : "s");
		ok = false;
	}
	for (int i = 0; !ok && i < n && i < s->ntuple; i++)
		v[i] = pt_expr_free(v[i]);
	return ok;
}

/* Component k's accumulator as written, h_k(t), for the built operators. */
static pt_expr *acc_call(tupd *u, int k, pt_loc loc)
{
	char name[MAX_NAME + 16];
	pt_tuple_component_name(u->s->name, k, name, sizeof name);
	pt_expr *c = call_of(name, loc);
	for (int i = 0; c && i < u->nt; i++)
		if (!pt_expr_push_arg(c, pt_expr_copy(u->target[i])))
			c = NULL;
	return c;
}

/* V < A in the order argmin (argmax) keeps: the first component less
 * (greater), then each index less, lexicographically. */
static pt_expr *lex_better(tupd *u, pt_tuple_kind kind, pt_expr *const *v, pt_loc loc)
{
	pt_expr *c = NULL;
	for (int k = u->n - 1; k >= 0; k--) {
		int lt = k == 0 && kind == PT_TUPLE_ARGMAX ? PT_OP_GT : PT_OP_LT;
		pt_expr *less = pt_expr_binary(lt, pt_expr_copy(v[k]), acc_call(u, k, loc), loc);
		if (!c) {
			c = less;
			continue;
		}
		pt_expr *eq = pt_expr_binary(PT_OP_EQ, pt_expr_copy(v[k]), acc_call(u, k, loc), loc);
		c = pt_expr_binary(PT_OP_OR, less, pt_expr_binary(PT_OP_AND, eq, c, loc), loc);
	}
	return c;
}

/* E_0 .. E_{n-1} of an update of kind (values v taken, converted to the
 * components' types for the built operators). */
static bool build_exprs(tupd *u, pt_tuple_kind kind, pt_redop red, pt_expr **v, pt_expr **E, pt_expr **flag,
	pt_loc loc)
{
	if (kind == PT_TUPLE_GENERAL) {
		for (int j = 0; j < u->n; j++) {
			E[j] = v[j];
			v[j] = NULL;
		}
		return true;
	}
	for (int j = 0; j < u->n; j++)
		v[j] = cast_to(u->s->tuple_type[j], v[j], v[j] ? v[j]->loc : loc);
	/* argmin/argmax: whether the value comes first is computed once, into
	 * the flag slot (add_cases), which each E_j = select(flag, V_j, A_j)
	 * reads: no component needs a copy */
	pt_expr *better = kind == PT_TUPLE_EACH ? NULL : lex_better(u, kind, v, loc);
	bool ok = kind == PT_TUPLE_EACH || better;
	*flag = better;
	for (int j = 0; j < u->n; j++) {
		pt_expr *a = acc_call(u, j, loc);
		if (kind != PT_TUPLE_EACH)
			E[j] = select_of(pt_expr_int(0, loc), pt_expr_copy(v[j]), a, loc);
		else if (red == PT_RED_SUM || red == PT_RED_PROD)
			E[j] = pt_expr_binary(red == PT_RED_SUM ? PT_OP_ADD : PT_OP_MUL, a, pt_expr_copy(v[j]), loc);
		else
			E[j] = minmax_of(red == PT_RED_MIN ? PT_IN_MIN : PT_IN_MAX, a, pt_expr_copy(v[j]), loc);
		ok = ok && E[j];
	}
	for (int j = 0; j < u->n; j++)
		v[j] = pt_expr_free(v[j]);
	return ok;
}

/* One general update of s at (target, slot) to value (taken): s(t, slot) = value. */
static bool add_one(tupd *u, const pt_expr *cond, int slot, pt_expr *value, pt_loc tloc, pt_loc opl, pt_loc loc)
{
	pt_stage *s = u->s;
	pt_expr **target = pt_mem_calloc((size_t)s->ndim, sizeof *target);
	pt_expr *op = pt_expr_new(PT_E_VAR, loc);
	pt_expr *c = cond ? pt_expr_copy(cond) : NULL;
	bool ok = target && op && (op->name = pt_mem_strdup("value")) && (!cond || c);
	for (int i = 0; ok && i < u->nt; i++)
		ok = (target[i] = pt_expr_copy(u->target[i])) != NULL;
	if (ok)
		ok = (target[u->nt] = pt_expr_int(slot, tloc)) != NULL;
	if (!ok) {
		for (int i = 0; target && i < s->ndim; i++)
			pt_expr_free(target[i]);
		free(target);
		pt_expr_free(op), pt_expr_free(c), pt_expr_free(value);
		return !(u->ps->failed = true);
	}
	op->index = PT_UPD_VAL;
	if (!pt_stage_add_general(u->ps->d, s, c, target, s->ndim, tloc, opl, value, op, loc))
		return !(u->ps->failed = true);
	return true;
}

/* The cases of one update (E taken): the copies its E_j read, then one
 * per component. */
/* s(t, slot) as stored (s's type). */
static pt_expr *raw_read(tupd *u, int slot, pt_loc loc)
{
	pt_expr *r = call_of(u->s->name, loc);
	for (int i = 0; r && i < u->nt; i++)
		if (!pt_expr_push_arg(r, pt_expr_copy(u->target[i])))
			r = NULL;
	if (r && !pt_expr_push_arg(r, pt_expr_int(slot, loc)))
		r = NULL;
	return r;
}

/* The flag case of argmin/argmax (flag taken): s(t, n) = select(flag, 1, 0);
 * each val[j] = select(_, V_j, A_j) then tests s(t, n) != 0. */
static bool add_flag(tupd *u, const pt_expr *cond, pt_expr *flag, pt_expr **val, pt_loc tloc, pt_loc opl,
	pt_loc loc)
{
	pt_stage *s = u->s;
	pt_expr *f = rewrite_for(u, flag, 0);
	bool ok = f && !u->failed && add_one(u, cond, u->n,
		cast_to(s->type, select_of(f, pt_expr_int(1, loc), pt_expr_int(0, loc), loc), loc), tloc, opl, loc);
	if (!ok && f && u->failed)
		pt_expr_free(f);
	for (int j = 0; ok && j < u->n; j++) {
		pt_expr *t = pt_expr_binary(PT_OP_NE, raw_read(u, u->n, loc), pt_expr_int(0, loc), loc);
		ok = t != NULL;
		if (ok) {
			pt_expr_free(val[j]->args[0]);
			val[j]->args[0] = t;
		}
	}
	return ok;
}

static bool add_cases(tupd *u, const pt_expr *cond, pt_expr **E, pt_expr *flag, pt_loc tloc, pt_loc opl,
	pt_loc loc)
{
	pt_stage *s = u->s;
	pt_expr *val[PT_MAX_TUPLE];
	bool ok = true;
	for (int j = 0; j < u->n; j++) {
		val[j] = rewrite_for(u, E[j], j);
		ok = ok && val[j];
	}
	ok = ok && !u->failed;
	if (flag && ok)
		ok = add_flag(u, cond, flag, val, tloc, opl, loc);
	else
		pt_expr_free(flag);
	for (int k = 0; ok && k < u->n; k++) {
		if (!u->copy[k])
			continue;
		pt_expr *r = call_of(s->name, loc);
		for (int i = 0; r && i < u->nt; i++)
			if (!pt_expr_push_arg(r, pt_expr_copy(u->target[i])))
				r = NULL;
		if (r && !pt_expr_push_arg(r, pt_expr_int(k, loc)))
			r = NULL;
		ok = r && add_one(u, cond, u->n + k, r, tloc, opl, loc);
	}
	for (int j = 0; j < u->n; j++) {
		pt_expr *v = val[j];
		val[j] = NULL;
		if (ok)
			ok = add_one(u, cond, j, cast_to(s->type, cast_to(s->tuple_type[j], v, loc), loc), tloc, opl, loc);
		else
			pt_expr_free(v);
	}
	if (!ok)
		u->ps->failed = true;
	return ok;
}

/* One update: "|" (cond "->")? h(t) op "(" v0 "," v1 ... ")". */
static bool parse_update(pt_parser *ps, pt_stage *s, pt_tuple_kind *kind, pt_redop *red, int *nslots)
{
	pt_loc l = pt_ps_peek(ps)->loc;
	ps->tuple_target = s;
	pt_expr *c = NULL, *t = pt_ps_parse_expr(ps);
	if (t && pt_ps_accept(ps, PT_T_ARROW)) {
		c = t;
		t = pt_ps_parse_expr(ps);
	}
	ps->tuple_target = NULL;
	bool ok = t != NULL;
	if (ok && (t->kind != PT_E_CALL || strcmp(t->name, s->name))) {
		pt_ps_error(ps, t->loc, "an update names the reduction: | h(index) argmin= (v, x)",
			"update must assign to '%s'", s->name);
		ok = false;
	} else if (ok && t->nargs != s->ndim - 1) {
		pt_ps_error(ps, t->loc, "give one index per dimension of the result",
			"'%s' has %d dimension%s but the update gives %d indices", s->name, s->ndim - 1,
			s->ndim == 2 ? "" : "s", t->nargs);
		ok = false;
	} else if (ok && c && reads_tuple(s, c)) {
		pt_ps_error(ps, c->loc, "test the values, not the accumulator",
			"the condition of an update of '%s' reads it", s->name);
		ok = false;
	}
	pt_loc opl = pt_ps_peek(ps)->loc;
	pt_redop r = PT_RED_NONE;
	pt_tuple_kind k = ok ? parse_op(ps, &r) : PT_TUPLE_NONE;
	ok = ok && k != PT_TUPLE_NONE;
	if (ok && *kind != PT_TUPLE_NONE && (k != *kind || r != *red)) {
		pt_ps_error(ps, opl, "use one operator for every update of a tuple reduction",
			"'%s' already reduces with another operator", s->name);
		ok = false;
	}
	*kind = k;
	*red = r;
	pt_expr *v[PT_MAX_TUPLE] = {0}, *E[PT_MAX_TUPLE] = {0}, *flag = NULL;
	ps->tuple_target = k == PT_TUPLE_GENERAL ? s : NULL;
	ok = ok && parse_values(ps, s, v, "the update");
	ps->tuple_target = NULL;
	for (int j = 0; ok && k != PT_TUPLE_GENERAL && j < s->ntuple; j++)
		if (reads_tuple(s, v[j])) {
			pt_ps_error(ps, v[j]->loc, "combine with the accumulator in a general update, h(t) = (E0, E1, ...)",
				"the values of this update of '%s' may not read it", s->name);
			ok = false;
		}
	tupd u = {.ps = ps, .s = s, .n = s->ntuple, .target = t ? t->args : NULL, .nt = t ? t->nargs : 0};
	if (ok && build_exprs(&u, k, r, v, E, &flag, opl)) {
		ok = add_cases(&u, c, E, flag, t->loc, opl, pt_ps_span(l, pt_ps_prev_loc(ps)));
		if (flag && *nslots < s->ntuple + 1)
			*nslots = s->ntuple + 1;
	} else {
		for (int j = 0; j < PT_MAX_TUPLE; j++)
			pt_expr_free(E[j]);
		pt_expr_free(flag);
		ok = false;
	}
	for (int j = 0; j < PT_MAX_TUPLE; j++)
		pt_expr_free(v[j]);
	for (int j = 0; j < s->ntuple; j++)
		if (u.copy[j] && *nslots < s->ntuple + j + 1)
			*nslots = s->ntuple + j + 1;
	pt_expr_free(c);
	pt_expr_free(t);
	if (!ok)
		ps->failed = true;
	return ok;
}

/* Component k's start without `init`: its operator's identity; for
 * argmin/argmax the value's, and each index at its type's largest (no
 * point yet: any point's index is smaller). */
static pt_expr *default_init(const pt_stage *s, int k, pt_loc loc)
{
	int t = s->tuple_type[k];
	int op = s->tuple_kind == PT_TUPLE_EACH ? (int)s->tuple_red :
		s->tuple_kind == PT_TUPLE_ARGMAX && k == 0 ? PT_RED_MAX : PT_RED_MIN;
	pt_val v = pt_val_identity(op, t);
	return cast_to(t, pt_type_is_float(t) ? pt_expr_float(v.f, loc) : pt_expr_int(v.i, loc), loc);
}

static pt_expr *slot_var(const pt_stage *s, pt_loc loc)
{
	pt_expr *v = pt_expr_new(PT_E_VAR, loc);
	if (v) {
		v->index = s->ndim - 1;
		if (!(v->name = pt_mem_strdup(PT_TUPLE_SLOT)))
			v = pt_expr_free(v);
	}
	return v;
}

/* component j = T_j(s(x.., j)) over s's result dimensions. */
static bool declare_component(pt_parser *ps, const pt_stage *s, int j)
{
	char name[MAX_NAME + 16];
	pt_tuple_component_name(s->name, j, name, sizeof name);
	pt_loc loc = s->loc;
	pt_stage *c = pt_pipeline_declare_stage(ps->d, ps->p, name, loc);
	if (!c)
		return !(ps->failed = true);
	for (int d = 0; d < s->ndim - 1; d++) {
		pt_interval iv = {pt_expr_copy(s->dom[d].lo), pt_expr_copy(s->dom[d].hi), s->dom[d].step};
		if (!iv.lo || !iv.hi || !pt_stage_add_var(ps->d, c, s->vars[d], iv, false, loc))
			return !(ps->failed = true);
	}
	pt_expr *r = call_of(s->name, loc);
	for (int d = 0; r && d < s->ndim - 1; d++) {
		pt_expr *v = pt_expr_new(PT_E_NAME, loc);
		if (v && !(v->name = pt_mem_strdup(s->vars[d])))
			v = pt_expr_free(v);
		if (!pt_expr_push_arg(r, v))
			r = NULL;
	}
	if (r && !pt_expr_push_arg(r, pt_expr_int(j, loc)))
		r = NULL;
	pt_expr *value = cast_to(s->tuple_type[j], r, loc);
	if (!pt_stage_set_type(ps->d, c, s->tuple_type[j], loc) || !value ||
	    !pt_stage_add_case(ps->d, c, NULL, value, loc))
		return !(ps->failed = true);
	return true;
}

/* The slot extent, the initial value select(slot == 0, I0, ...) and the
 * component functions (init taken). */
static bool finish(pt_parser *ps, pt_stage *s, pt_expr **init, bool has_init, int nslots)
{
	int n = s->ntuple;
	pt_loc loc = s->loc;
	pt_interval *iv = &s->dom[s->ndim - 1];
	pt_expr_free(iv->hi);
	iv->hi = pt_expr_int(nslots - 1, loc);
	if (!has_init && s->tuple_kind == PT_TUPLE_GENERAL) {
		pt_ps_error(ps, loc, "give its initial value: init (0, 0)",
			"tuple reduction '%s' has general updates and needs `init`", s->name);
		return false;
	}
	pt_expr *e = NULL;
	for (int k = n - 1; k >= 0; k--) {
		pt_expr *i = has_init ? cast_to(s->tuple_type[k], init[k], init[k] ? init[k]->loc : loc) :
			default_init(s, k, loc);
		init[k] = NULL;
		i = cast_to(s->type, i, loc);
		if (!e) {
			e = i;
			continue;
		}
		pt_expr *is = pt_expr_binary(PT_OP_EQ, slot_var(s, loc), pt_expr_int(k, loc), loc);
		e = select_of(is, i, e, loc);
	}
	if (!iv->hi || !(s->init = e))
		return !(ps->failed = true);
	for (int j = 0; j < n; j++)
		if (!declare_component(ps, s, j))
			return false;
	return true;
}

bool pt_tuple_reduce(pt_parser *ps, pt_stage *s)
{
	pt_expr *init[PT_MAX_TUPLE] = {0};
	bool has_init = false, ok = true;
	if (pt_ps_at_kw(ps, "init")) {
		pt_ps_next(ps);
		has_init = ok = parse_values(ps, s, init, "its initial value");
	}
	if (ok && !pt_ps_at(ps, PT_T_BAR)) {
		pt_ps_syntax_error(ps, "give updates: | h(0) argmin= (I(x), x)", "'|'");
		ok = false;
	}
	pt_tuple_kind kind = PT_TUPLE_NONE;
	pt_redop red = PT_RED_NONE;
	int nslots = s->ntuple;
	while (ok && pt_ps_accept(ps, PT_T_BAR))
		ok = parse_update(ps, s, &kind, &red, &nslots);
	s->tuple_kind = kind;
	s->tuple_red = red;
	ok = ok && finish(ps, s, init, has_init, nslots);
	for (int k = 0; k < PT_MAX_TUPLE; k++)
		pt_expr_free(init[k]);
	if (!ok)
		ps->failed = true;
	return ok;
}
