/* windows.c: sums, minima and maxima over a small constant window,
 * `sum(u : -3 .. 3, w(u) * I(x + u, y))` (docs/language.md, section 18).
 * The parser reads the expression once per value of the window's
 * variable, bound as a constant as a `for` loop binds its variable, so
 * the result is an ordinary point-wise expression: (t0 + t1) + t2 ...
 * for a sum, one n-ary min or max, and it fuses like any other. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "expr_limits.h"
#include "parser_priv.h"

/* The most terms one window unrolls to (a bigger one is a reduction). */
#define MAX_WINDOW 1024

bool pt_window_at(pt_parser *ps)
{
	if (ps->pos + 2 >= ps->ntoks || ps->toks[ps->pos].kind != PT_T_LPAREN)
		return false;
	const pt_token *n = &ps->toks[ps->pos + 1];
	return n->kind == PT_T_IDENT && !pt_ps_is_keyword(n) && ps->toks[ps->pos + 2].kind == PT_T_COLON;
}

/* Adds term t to the window's result so far: a sum left to right, a
 * min or max as one n-ary intrinsic. */
static pt_expr *combine(pt_expr *acc, pt_expr *t, int in, pt_loc loc)
{
	if (in < 0)
		return acc ? pt_expr_binary(PT_OP_ADD, acc, t, loc) : t;
	if (!acc) {
		acc = pt_expr_new(PT_E_INTRIN, loc);
		if (acc)
			acc->op = in;
	}
	return pt_expr_push_arg(acc, t) ? acc : pt_expr_free(acc);
}

/* A min or max of one term is the term. */
static pt_expr *single(pt_expr *e, int in)
{
	if (in < 0 || e->nargs != 1)
		return e;
	pt_expr *t = e->args[0];
	e->nargs = 0;
	pt_expr_free(e);
	return t;
}

pt_expr *pt_window_parse(pt_parser *ps, const char *op, pt_loc loc)
{
	char var[MAX_NAME];
	pt_loc vl;
	bool is_int;
	int64_t lo, hi;
	double f;
	int in = !strcmp(op, "sum") ? -1 : pt_intrin_lookup(op);
	if (!pt_ps_expect_ident(ps, var, sizeof(var), "the window's variable", &vl) ||
	    !pt_ps_expect(ps, PT_T_COLON, "write sum(u : -1 .. 1, expression)"))
		return NULL;
	pt_loc rl = pt_ps_peek(ps)->loc;
	if (!pt_ps_parse_const(ps, true, &is_int, &lo, &f) ||
	    !pt_ps_expect(ps, PT_T_DOTDOT, "write sum(u : -1 .. 1, expression)") ||
	    !pt_ps_parse_const(ps, true, &is_int, &hi, &f))
		return NULL;
	rl = pt_ps_span(rl, pt_ps_prev_loc(ps));
	if (hi < lo && in >= 0) {
		pt_ps_error(ps, rl, "give a window with at least one value", "the window of %s is empty (%lld .. %lld)",
			op, (long long)lo, (long long)hi);
		return NULL;
	}
	if (hi >= lo && hi - lo >= MAX_WINDOW) {
		pt_ps_error(ps, rl, "a window is unrolled; over a bigger one write a `reduce`",
			"window of %lld values: at most %d", (long long)(hi - lo + 1), MAX_WINDOW);
		return NULL;
	}
	if (!pt_ps_expect(ps, PT_T_COMMA, "write sum(u : -1 .. 1, expression)") ||
	    !pt_ps_expand_ok(ps, hi >= lo ? hi - lo + 1 : 1, rl))
		return NULL;
	int body = ps->pos;
	pt_expr *acc = NULL;
	/* an empty sum is 0, its expression read once for its syntax */
	for (int64_t v = lo; v <= (hi >= lo ? hi : lo); v++) {
		ps->pos = body;
		int mark = ps->nconsts;
		pt_expr *t = pt_ps_push_const(ps, var, true, v, (double)v, vl) ? pt_ps_parse_expr(ps) : NULL;
		pt_ps_pop_consts(ps, mark);
		if (!t)
			return pt_expr_free(acc);
		if (hi < lo) {
			pt_expr_free(t);
			t = pt_expr_int(0, loc);
		}
		if (!(acc = combine(acc, t, in, loc))) {
			ps->failed = true;
			return NULL;
		}
	}
	if (!pt_ps_expect(ps, PT_T_RPAREN, "close the window with ')'"))
		return pt_expr_free(acc);
	acc = single(acc, in);
	int depth;
	long nodes;
	if (!pt_expr_measure(acc, &depth, &nodes)) {
		ps->failed = true;
		return pt_expr_free(acc);
	}
	if (acc->kind == PT_E_INTRIN && acc->nargs > 2)
		depth += acc->nargs - 2;        /* n-ary min/max: nested when lowered */
	if (!pt_ps_depth_ok(ps, depth, loc))
		return pt_expr_free(acc);
	ps->edepth = depth;
	return acc;
}
