/* lets.c: parameterized lets, `let mirror(i, n) = ...` (docs/language.md,
 * section 18).  The body is read once, its parameters left as names;
 * each use copies it with the arguments put in for those names, in one
 * pass, so an argument is never substituted into again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "expr_limits.h"
#include "parser_priv.h"

#define MAX_LET_PARAMS 16

bool pt_let_define(pt_parser *ps, const char *name, pt_loc loc)
{
	char *params[MAX_LET_PARAMS];
	int n = 0;
	bool ok = pt_ps_expect(ps, PT_T_LPAREN, "write let name(a, b) = expression");
	while (ok) {
		char p[MAX_NAME];
		pt_loc pl;
		if (!(ok = pt_ps_expect_ident(ps, p, sizeof(p), "a parameter name", &pl)))
			break;
		for (int i = 0; i < n && ok; i++)
			if (!strcmp(params[i], p)) {
				pt_ps_error(ps, pl, "give each parameter its own name",
					"'%s' has two parameters named '%s'", name, p);
				ok = false;
			}
		if (ok && n == MAX_LET_PARAMS) {
			pt_ps_error(ps, pl, "use fewer parameters", "a let takes at most %d parameters",
				MAX_LET_PARAMS);
			ok = false;
		}
		if (ok && !(params[n++] = pt_mem_strdup(p))) {
			n--;
			ok = !(ps->failed = true);
		}
		if (!ok || !pt_ps_accept(ps, PT_T_COMMA))
			break;
	}
	ok = ok && pt_ps_expect(ps, PT_T_RPAREN, "close the parameters with ')'") &&
		pt_ps_expect(ps, PT_T_ASSIGN, "write let name(a, b) = expression");
	pt_expr *e = NULL;
	if (ok) {
		const char **saved = ps->let_params;
		int nsaved = ps->nlet_params;
		ps->let_params = (const char **)params;
		ps->nlet_params = n;
		e = pt_ps_parse_expr(ps);
		ps->let_params = saved;
		ps->nlet_params = nsaved;
	}
	char **v = e ? pt_mem_calloc((size_t)n, sizeof(char *)) : NULL;
	if (!v || !pt_ps_define_cond(ps, name, e)) {
		if (e && !v)
			pt_expr_free(e);
		for (int i = 0; i < n; i++)
			free(params[i]);
		free(v);
		return e ? !(ps->failed = true) : false;
	}
	named_expr *c = &ps->conds[ps->nconds - 1];
	memcpy(v, params, sizeof(char *) * (size_t)n);
	c->params = v;
	c->nparams = n;
	c->loc = loc;
	return true;
}

typedef struct subst {
	const named_expr *c;
	pt_expr **args;
} subst;

/* A name of the body that is a parameter becomes its argument. */
static pt_expr *put_arg(pt_expr *e, void *user)
{
	const subst *s = user;
	if (e->kind != PT_E_NAME)
		return e;
	for (int i = 0; i < s->c->nparams; i++)
		if (!strcmp(e->name, s->c->params[i])) {
			pt_expr *a = pt_expr_copy(s->args[i]);
			if (!a)
				return e;       /* out of memory: counted, the parse fails */
			pt_expr_free(e);
			return a;
		}
	return e;
}

/* Reads "args )" of a use (at most the let's parameters plus one, to say
 * there are too many); their number in *n. */
static bool let_args(pt_parser *ps, const named_expr *c, pt_expr **args, int *n, pt_loc loc)
{
	*n = 0;
	if (!pt_ps_accept(ps, PT_T_RPAREN)) {
		do {
			if (*n > c->nparams)
				break;
			if (!(args[(*n)++] = pt_ps_parse_expr(ps)))
				return false;
		} while (pt_ps_accept(ps, PT_T_COMMA));
		if (*n <= c->nparams && !pt_ps_expect(ps, PT_T_RPAREN, "close the arguments with ')'"))
			return false;
	}
	if (*n == c->nparams)
		return true;
	pt_ps_error(ps, pt_ps_span(loc, pt_ps_prev_loc(ps)), "give one argument per parameter",
		"'%s' takes %d argument%s, not %s%d", c->name, c->nparams, c->nparams == 1 ? "" : "s",
		*n > c->nparams ? "more than " : "", *n > c->nparams ? c->nparams : *n);
	pt_note_at(ps->d, c->loc, "'%s' is defined here", c->name);
	return false;
}

pt_expr *pt_let_apply(pt_parser *ps, named_expr *c, pt_loc loc)
{
	pt_expr *args[MAX_LET_PARAMS + 1] = {0};
	int n = 0;
	pt_expr *e = NULL;
	if (let_args(ps, c, args, &n, loc)) {
		subst s = {c, args};
		e = pt_expr_map(pt_expr_copy(c->expr), put_arg, &s);
	}
	for (int i = 0; i < n; i++)
		pt_expr_free(args[i]);
	int depth;
	long nodes;
	if (!e || !pt_expr_measure(e, &depth, &nodes)) {
		ps->failed = true;
		return pt_expr_free(e);
	}
	if (!pt_ps_depth_ok(ps, depth, loc) || !pt_ps_nodes_ok(ps, nodes, loc))
		return pt_expr_free(e);
	ps->edepth = depth;
	return e;
}
