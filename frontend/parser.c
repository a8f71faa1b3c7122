/* parser.c: recursive descent over tokens, building IR directly.
 *
 * Compile-time loops re-read the tokens of their body once per value of
 * the loop variable, so families of stages come out as ordinary stages.
 * Every function that builds an expression returns an owned tree or NULL
 * after reporting; on the first syntax error parsing stops. */
#include <assert.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "expr_limits.h"
#include "parser.h"
#include "parser_priv.h"
#include "update.h"
#include "values.h"

#define MAX_BLOCK_DEPTH 200     /* nesting of `for`/`if` blocks */
#define MAX_EXPANSION 100000    /* loop iterations in one file */

static const pt_ps_ops ops;

pt_parser *pt_parser_new(pt_diag *d, pt_pipeline *p)
{
	pt_parser *ps = pt_mem_calloc(1, sizeof(*ps));
	if (!ps)
		return NULL;
	ps->ops = &ops;
	ps->d = d;
	ps->p = p;
	return ps;
}

pt_parser *pt_parser_free(pt_parser *ps)
{
	if (!ps)
		return NULL;
	for (int i = 0; i < ps->nconsts; i++)
		free(ps->consts[i].name);
	free(ps->consts);
	pt_tmpl_pop_scope(ps, 0, ps->nvars);
	free(ps->conds);
	for (int i = 0; i < ps->nvars; i++) {
		free(ps->vars[i].name);
		pt_expr_free(ps->vars[i].iv.lo);
		pt_expr_free(ps->vars[i].iv.hi);
	}
	free(ps->vars);
	for (int i = 0; i < ps->naliases; i++) {
		free(ps->alias_from[i]);
		free(ps->alias_to[i]);
	}
	free(ps->alias_from);
	free(ps->alias_to);
	pt_tmpl_free_all(ps);
	pt_table_free_all(ps);
	free(ps);
	return NULL;
}

/* ---- token helpers ---- */

static pt_token *peek(pt_parser *ps) { return &ps->toks[ps->pos]; }
static pt_token *peek2(pt_parser *ps)
{
	return &ps->toks[ps->pos + 1 < ps->ntoks ? ps->pos + 1 : ps->pos];
}

static pt_token *next(pt_parser *ps)
{
	pt_token *t = &ps->toks[ps->pos];
	if (t->kind != PT_T_EOF)
		ps->pos++;
	return t;
}

static bool at(pt_parser *ps, pt_tok_kind k) { return peek(ps)->kind == k; }

static bool at_kw(pt_parser *ps, const char *kw)
{
	return at(ps, PT_T_IDENT) && pt_tok_is(peek(ps), kw);
}

static bool accept(pt_parser *ps, pt_tok_kind k)
{
	if (!at(ps, k))
		return false;
	next(ps);
	return true;
}

/* Reports a syntax error at the current token and stops the parse. */
static void syntax_error(pt_parser *ps, const char *hint, const char *what)
{
	if (ps->failed)
		return;
	pt_token *t = peek(ps);
	if (t->kind == PT_T_EOF)
		pt_error_at(ps->d, t->loc, hint, "expected %s, found the end of the %s", what,
			ps->use ? "template's body" : "file");
	else
		pt_error_at(ps->d, t->loc, hint, "expected %s, found '%.*s'", what,
			t->len > 40 ? 40 : t->len, t->start);
	ps->failed = true;
}

/* Records the failure of an ir.c constructor (which reported it). */
static bool ok(pt_parser *ps, bool success)
{
	if (!success)
		ps->failed = true;
	return success;
}

/* Refuses, at the operator that makes it so, a tree deeper than the
 * limit: no later pass may meet one (expr_limits.h). */
static bool depth_ok(pt_parser *ps, int depth, pt_loc loc)
{
	if (depth <= PT_MAX_EXPR_DEPTH)
		return true;
	if (!ps->failed)
		pt_error_at(ps->d, loc, "split it into stages or `let`s of smaller expressions",
			"expression too deep: more than %d nested operations", PT_MAX_EXPR_DEPTH);
	ps->failed = true;
	return false;
}

/* Enters one more level of the parser's recursion into an expression
 * (parentheses, unary operators, arguments, conditionals' middles):
 * bounded by the same limit and message as the tree's depth, since each
 * level costs stack here and in every later pass; the caller decrements
 * xdepth after a success. */
static bool nest_ok(pt_parser *ps, pt_loc loc)
{
	if (depth_ok(ps, ps->xdepth + 1, loc)) {
		ps->xdepth++;
		return true;
	}
	return false;
}

/* Counts n nodes that a `let` or a stencil is about to add to the
 * expression being read, refusing them (at loc) past the limit before
 * they are built: `let`s that use the one before twice double at each
 * line. */
static bool nodes_ok(pt_parser *ps, long n, pt_loc loc)
{
	ps->nodes += n;
	if (ps->nodes <= PT_MAX_EXPR_NODES)
		return true;
	if (!ps->failed)
		pt_error_at(ps->d, loc, "split it into stages of smaller expressions",
			"expression too large: more than %d nodes once `let`s are substituted and stencils expanded",
			PT_MAX_EXPR_NODES);
	ps->failed = true;
	return false;
}

/* Counts n nodes into every tree the parser builds (loops re-read their
 * bodies, so the file's length does not bound it). */
static bool total_ok(pt_parser *ps, long n, pt_loc loc)
{
	ps->total_nodes += n;
	if (ps->total_nodes <= PT_MAX_TOTAL_NODES)
		return true;
	if (!ps->failed)
		pt_error_at(ps->d, loc, "make fewer or smaller stages (loops stamp out a copy of their body each time)",
			"pipeline too large: its expressions have more than %d nodes in all", PT_MAX_TOTAL_NODES);
	ps->failed = true;
	return false;
}

static bool expect(pt_parser *ps, pt_tok_kind k, const char *hint)
{
	if (accept(ps, k))
		return true;
	syntax_error(ps, hint, pt_tok_kind_name(k));
	return false;
}

/* Reads a plain identifier that is not a keyword into buf. */
static bool expect_ident(pt_parser *ps, char *buf, size_t n, const char *what, pt_loc *loc)
{
	if (!at(ps, PT_T_IDENT) || pt_ps_is_keyword(peek(ps))) {
		char w[80];
		snprintf(w, sizeof(w), "%s", what);
		syntax_error(ps, at(ps, PT_T_IDENT) ? "this word is reserved; choose another name" :
			"a name starts with a letter or '_'", w);
		return false;
	}
	pt_token *t = next(ps);
	if (loc)
		*loc = t->loc;
	pt_ps_tok_text(t, buf, n);
	return true;
}

static pt_loc prev_loc(pt_parser *ps)
{
	return ps->toks[ps->pos > 0 ? ps->pos - 1 : 0].loc;
}

/* ---- constants ---- */

static named_value *find_const(pt_parser *ps, const char *name)
{
	for (int i = ps->nconsts - 1; i >= 0; i--)
		if (!strcmp(ps->consts[i].name, name))
			return &ps->consts[i];
	return NULL;
}

/* The latest entry of that name: a template's body may shadow a name. */
static named_expr *find_named(named_expr *v, int n, const char *name)
{
	for (int i = n - 1; i >= 0; i--)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

/* The stage or image an aliased name stands for (aliases are resolved when
 * declared, so one lookup suffices); name itself if it is no alias. */
static const char *dealias(pt_parser *ps, const char *name)
{
	for (int i = 0; i < ps->naliases; i++)
		if (!strcmp(ps->alias_from[i], name))
			return ps->alias_to[i];
	return name;
}

/* False (and the parse failed) when out of memory. */
static bool push_const(pt_parser *ps, const char *name, bool is_int, int64_t iv,
	double fv, pt_loc loc)
{
	named_value *v = pt_mem_realloc(ps->consts, sizeof(*v) * (size_t)(ps->nconsts + 1));
	char *n = v ? pt_mem_strdup(name) : NULL;
	if (v)
		ps->consts = v;
	if (!n)
		return !(ps->failed = true);
	named_value *c = &ps->consts[ps->nconsts++];
	c->name = n;
	c->is_int = is_int;
	c->ival = iv;
	c->fval = fv;
	c->loc = loc;
	return true;
}

/* Drops constants down to n: a loop body's constants and its loop
 * variable live for one iteration. */
static void pop_consts(pt_parser *ps, int n)
{
	while (ps->nconsts > n)
		free(ps->consts[--ps->nconsts].name);
}

bool pt_parser_define_const(pt_parser *ps, const char *name, double v, bool is_int)
{
	pt_loc none = {0};
	return push_const(ps, name, is_int, (int64_t)v, v, none);
}

/* Sets the expression of a named condition (taking expr), with the
 * size its substitutions will add. */
static bool set_cond(pt_parser *ps, named_expr *c, pt_expr *expr)
{
	pt_expr_free(c->expr);
	c->expr = expr;
	if (!pt_expr_measure(expr, &c->depth, &c->nodes)) {
		ps->failed = true;      /* out of memory: reported by the entry point */
		return false;
	}
	return true;
}

bool pt_parser_define_cond(pt_parser *ps, const char *name, pt_expr *expr)
{
	named_expr *v = expr ? pt_mem_realloc(ps->conds, sizeof(*v) * (size_t)(ps->nconds + 1)) : NULL;
	char *n = v ? pt_mem_strdup(name) : NULL;
	if (v)
		ps->conds = v;
	if (!n) {
		pt_expr_free(expr);
		return !(ps->failed = true);
	}
	memset(&ps->conds[ps->nconds], 0, sizeof(named_expr));
	ps->conds[ps->nconds].name = n;
	ps->nconds++;
	return set_cond(ps, &ps->conds[ps->nconds - 1], expr);
}

bool pt_parser_define_var(pt_parser *ps, const char *name, pt_interval iv)
{
	named_expr *v = pt_mem_realloc(ps->vars, sizeof(*v) * (size_t)(ps->nvars + 1));
	char *n = v ? pt_mem_strdup(name) : NULL;
	if (v)
		ps->vars = v;
	if (!n) {
		pt_expr_free(iv.lo);
		pt_expr_free(iv.hi);
		return !(ps->failed = true);
	}
	memset(&ps->vars[ps->nvars], 0, sizeof(named_expr));
	ps->vars[ps->nvars].name = n;
	ps->vars[ps->nvars].iv = iv;
	ps->nvars++;
	return true;
}

const pt_interval *pt_parser_var_interval(pt_parser *ps, const char *name)
{
	named_expr *v = find_named(ps->vars, ps->nvars, name);
	return v ? &v->iv : NULL;
}

/* A compile-time value: an i64 or an f64 (docs/language.md, §14). */
typedef struct cval {
	int t;                  /* PT_I64 or PT_F64 */
	pt_val v;
} cval;

static bool const_value(const pt_expr *e, cval *out);

/* x and y in their common type: f64 if either is. */
static int cval_common(cval *x, cval *y)
{
	int t = x->t == PT_F64 || y->t == PT_F64 ? PT_F64 : PT_I64;
	x->v = pt_val_convert(x->v, x->t, t);
	y->v = pt_val_convert(y->v, y->t, t);
	x->t = y->t = t;
	return t;
}

static bool cval_true(cval x)
{
	return x.t == PT_F64 ? x.v.f != 0 : x.v.i != 0;
}

/* Binary operators with values.c's semantics on i64/f64, so that a
 * constant has the value run time gives the same operation on i64/f64. */
static bool const_binary(const pt_expr *e, cval *out)
{
	cval x, y;
	if (!const_value(e->args[0], &x) || !const_value(e->args[1], &y))
		return false;
	int op = e->op;
	switch ((pt_binop)op) {
	case PT_OP_AND: case PT_OP_OR:
		out->t = PT_I64;
		out->v.i = op == PT_OP_AND ? cval_true(x) && cval_true(y) : cval_true(x) || cval_true(y);
		return true;
	case PT_OP_SHL: case PT_OP_SHR:
		/* the count is an i64, as the checker converts it */
		if (x.t != PT_I64 || y.t != PT_I64)
			return false;
		out->t = PT_I64;
		out->v = pt_val_binary(op, PT_I64, x.v, y.v);
		return true;
	case PT_OP_BAND: case PT_OP_BOR: case PT_OP_BXOR:
		if (x.t != PT_I64 || y.t != PT_I64)
			return false;
		break;
	case PT_OP_LT: case PT_OP_LE: case PT_OP_GT: case PT_OP_GE: case PT_OP_EQ: case PT_OP_NE:
		out->v = pt_val_binary(op, cval_common(&x, &y), x.v, y.v);
		out->t = PT_I64;
		return true;
	case PT_OP_ADD: case PT_OP_SUB: case PT_OP_MUL: case PT_OP_DIV: case PT_OP_MOD:
		break;
	case PT_OP_BINCOUNT:
		return false;
	}
	out->t = cval_common(&x, &y);
	out->v = pt_val_binary(op, out->t, x.v, y.v);
	return true;
}

/* Intrinsics on i64/f64: min/max/clamp and abs keep the type, floor,
 * ceil and round of an integer are that integer, the others are f64. */
static bool const_intrin(const pt_expr *e, cval *out)
{
	cval v[3];
	if (e->nargs < 1 || e->nargs > 3)
		return false;
	for (int i = 0; i < e->nargs; i++)
		if (!const_value(e->args[i], &v[i]))
			return false;
	int t = v[0].t;
	for (int i = 1; i < e->nargs; i++)
		t = cval_common(&v[0], &v[i]);
	for (int i = 1; i < e->nargs; i++)
		v[i].v = pt_val_convert(v[i].v, v[i].t, t);
	switch ((pt_intrin)e->op) {
	case PT_IN_MIN: case PT_IN_MAX:
		out->v = v[0].v;
		for (int i = 1; i < e->nargs; i++)
			out->v = pt_val_minmax(t, out->v, v[i].v, e->op == PT_IN_MIN);
		out->t = t;
		return true;
	case PT_IN_CLAMP:
		if (e->nargs != 3)
			return false;
		out->v = pt_val_minmax(t, pt_val_minmax(t, v[0].v, v[1].v, false), v[2].v, true);
		out->t = t;
		return true;
	case PT_IN_ABS: case PT_IN_FLOOR: case PT_IN_CEIL: case PT_IN_ROUND:
		break;
	case PT_IN_SQRT: case PT_IN_EXP: case PT_IN_LOG: case PT_IN_POW: case PT_IN_SIN:
	case PT_IN_COS: case PT_IN_TAN: case PT_IN_ATAN2: case PT_IN_TANH:
		t = PT_F64;
		for (int i = 0; i < e->nargs; i++)
			v[i].v = pt_val_convert(v[i].v, v[0].t, PT_F64);
		break;
	case PT_IN_COUNT:
		return false;
	}
	if (e->nargs != pt_intrin_arity(e->op))
		return false;
	out->t = t;
	out->v = pt_val_math(e->op, t, v[0].v, e->nargs > 1 ? v[1].v : v[0].v);
	return true;
}

/* Evaluates a literal-only tree at parse time.  Returns false (without a
 * report) when e is not constant. */
static bool const_value(const pt_expr *e, cval *out)
{
	cval x;
	switch (e->kind) {
	case PT_E_INT:
		*out = (cval){PT_I64, {.i = e->ival}};
		return true;
	case PT_E_FLOAT:
		*out = (cval){PT_F64, {.f = e->fval}};
		return true;
	case PT_E_UNARY:
		if (!const_value(e->args[0], &x))
			return false;
		if (e->op == PT_OP_NOT) {
			*out = (cval){PT_I64, {.i = !cval_true(x)}};
			return true;
		}
		if (e->op == PT_OP_BNOT && x.t != PT_I64)
			return false;
		*out = (cval){x.t, pt_val_unary(e->op, x.t, x.v)};
		return true;
	case PT_E_BINARY:
		return const_binary(e, out);
	case PT_E_INTRIN:
		return const_intrin(e, out);
	case PT_E_CAST:
		/* converted to the named type as at run time, then held as i64/f64 */
		if (!const_value(e->args[0], &x) || e->type == PT_NO_TYPE || e->type == PT_BOOL)
			return false;
		out->v = pt_val_convert(x.v, x.t, e->type);
		out->t = pt_type_is_float(e->type) ? PT_F64 : PT_I64;
		out->v = pt_val_convert(out->v, e->type, out->t);
		return true;
	case PT_E_NAME: case PT_E_PARAM: case PT_E_VAR: case PT_E_CALL: case PT_E_SELECT:
	case PT_E_COUNT:
		return false;
	}
	return false;
}

static bool const_eval(const pt_expr *e, bool *is_int, int64_t *iv, double *fv)
{
	cval c;
	if (!const_value(e, &c))
		return false;
	*is_int = c.t == PT_I64;
	*iv = *is_int ? c.v.i : 0;
	*fv = *is_int ? (double)c.v.i : c.v.f;
	return true;
}

/* A literal node for a constant value. */
static pt_expr *const_node(bool is_int, int64_t iv, double fv, pt_loc loc)
{
	return is_int ? pt_expr_int(iv, loc) : pt_expr_float(fv, loc);
}

/* Parses and evaluates a compile-time constant expression. */
static pt_expr *parse_expr(pt_parser *ps);

static bool parse_const(pt_parser *ps, bool want_int, bool *is_int, int64_t *iv, double *fv)
{
	pt_loc loc = peek(ps)->loc;
	pt_expr *e = parse_expr(ps);
	if (!e)
		return false;
	loc = pt_ps_span(loc, prev_loc(ps));
	bool ok = const_eval(e, is_int, iv, fv);
	pt_expr_free(e);
	if (!ok) {
		pt_error_at(ps->d, loc, "use literals, `const` names and loop variables here",
			"this must be a compile-time constant");
		ps->failed = true;
		return false;
	}
	if (want_int && !*is_int) {
		pt_error_at(ps->d, loc, "write an integer", "this must be an integer constant");
		ps->failed = true;
		return false;
	}
	return true;
}

/* ---- expressions ---- */

/* Folds an integer operation on two literals when it cannot wrap in the
 * literals' 32-bit type, so that `R / (1 << l)` is affine after loops are
 * expanded; everything else is left for the type checker.  Not inlined:
 * its locals would grow parse_binary's frame, which every level of
 * parentheses repeats on the stack. */
__attribute__((noinline))
static pt_expr *make_binary(int op, pt_expr *a, pt_expr *b, pt_loc loc)
{
	if (!a || !b)           /* out of memory */
		return pt_expr_binary(op, a, b, loc);
	/* e / 1 is e (exactly, for every type): `R / (1 << 0)` prints as R */
	if (op == PT_OP_DIV && b->kind == PT_E_INT && b->ival == 1) {
		pt_expr_free(b);
		return a;
	}
	if (a->kind == PT_E_INT && b->kind == PT_E_INT) {
		pt_expr tmp = {0};
		tmp.kind = PT_E_BINARY;
		tmp.op = op;
		pt_expr *args[2] = {a, b};
		tmp.args = args;
		tmp.nargs = 2;
		bool is_int;
		int64_t v;
		double f;
		bool arith = op <= PT_OP_MOD || op >= PT_OP_BAND;
		if (arith && const_eval(&tmp, &is_int, &v, &f) && v >= INT32_MIN && v <= INT32_MAX &&
		    a->ival >= INT32_MIN && a->ival <= INT32_MAX && b->ival >= INT32_MIN &&
		    b->ival <= INT32_MAX && !(op == PT_OP_SHL && (b->ival < 0 || b->ival > 30))) {
			pt_loc l = a->loc;
			pt_expr_free(a);
			pt_expr_free(b);
			return pt_expr_int(v, pt_ps_span(l, loc));
		}
	}
	return pt_expr_binary(op, a, b, loc);
}

static pt_expr *parse_ternary(pt_parser *ps);

/* args = expr ("," expr)* ; the opening '(' is already read.  Leaves
 * the depth of the deepest argument in edepth. */
static bool parse_args(pt_parser *ps, pt_expr *call)
{
	int deepest = 0;
	if (accept(ps, PT_T_RPAREN)) {
		ps->edepth = 0;
		return true;
	}
	do {
		pt_expr *a = parse_expr(ps);
		if (!a)
			return false;
		if (ps->edepth > deepest)
			deepest = ps->edepth;
		if (!pt_expr_push_arg(call, a))
			return !(ps->failed = true);
	} while (accept(ps, PT_T_COMMA));
	ps->edepth = deepest;
	return expect(ps, PT_T_RPAREN, "close the argument list with ')'");
}

/* Reads the "[e, e]" suffix of a family name and appends "[v,v]" to name. */
static bool parse_family_suffix(pt_parser *ps, char *name, size_t n)
{
	if (!accept(ps, PT_T_LBRACK))
		return true;
	size_t l = strlen(name);
	snprintf(name + l, n - l, "[");
	do {
		bool is_int;
		int64_t v;
		double f;
		if (!parse_const(ps, true, &is_int, &v, &f))
			return false;
		l = strlen(name);
		snprintf(name + l, n - l, "%s%lld", name[l - 1] == '[' ? "" : ",", (long long)v);
	} while (accept(ps, PT_T_COMMA));
	l = strlen(name);
	snprintf(name + l, n - l, "]");
	return expect(ps, PT_T_RBRACK, "close the family index with ']'");
}

/* matrix = "[" (matrix | expr) ("," ...)* "]"; collects weights row-major,
 * checking that the shape is rectangular. */
typedef struct matrix {
	int ndim;
	int shape[4];
	int count;
	pt_expr **w;
} matrix;

static bool parse_matrix(pt_parser *ps, matrix *m, int level)
{
	pt_loc open = peek(ps)->loc;
	if (!expect(ps, PT_T_LBRACK, "a stencil's weights are a bracketed matrix like [[1, 2], [3, 4]]"))
		return false;
	if (level >= 4) {
		pt_error_at(ps->d, open, "stencils have at most 4 dimensions", "stencil matrix nested too deeply");
		ps->failed = true;
		return false;
	}
	int n = 0;
	bool nested = at(ps, PT_T_LBRACK);
	if (level == 0)
		m->ndim = 0;
	do {
		if (nested) {
			if (!parse_matrix(ps, m, level + 1))
				return false;
		} else {
			pt_expr *w = parse_expr(ps);
			if (!w)
				return false;
			bool is_int;
			int64_t iv;
			double fv;
			if (!const_eval(w, &is_int, &iv, &fv)) {
				pt_error_at(ps->d, w->loc, "stencil weights must be numbers or constants",
					"stencil weight is not a compile-time constant");
				pt_expr_free(w);
				ps->failed = true;
				return false;
			}
			pt_loc l = w->loc;
			pt_expr_free(w);
			pt_expr **v = pt_mem_realloc(m->w, sizeof(*v) * (size_t)(m->count + 1));
			if (v)
				m->w = v;
			pt_expr *c = v ? const_node(is_int, iv, fv, l) : NULL;
			if (!c)
				return !(ps->failed = true);
			m->w[m->count++] = c;
			if (m->ndim < level + 1)
				m->ndim = level + 1;
		}
		n++;
	} while (accept(ps, PT_T_COMMA));
	if (!expect(ps, PT_T_RBRACK, "close the matrix row with ']'"))
		return false;
	if (m->shape[level] == 0)
		m->shape[level] = n;
	else if (m->shape[level] != n) {
		pt_error_at(ps->d, pt_ps_span(open, prev_loc(ps)), "every row of a stencil matrix needs the same length",
			"stencil matrix row has %d entries, expected %d", n, m->shape[level]);
		ps->failed = true;
		return false;
	}
	return true;
}

/* Adds a constant offset to an index expression. */
static pt_expr *offset_index(pt_expr *e, int64_t off, pt_loc loc)
{
	if (off == 0)
		return e;
	if (off > 0)
		return make_binary(PT_OP_ADD, e, pt_expr_int(off, loc), loc);
	return make_binary(PT_OP_SUB, e, pt_expr_int(-off, loc), loc);
}

/* stencil = "stencil" "(" call "," expr "," matrix ")"
 * Expands to scale * (sum of w * call(args + offsets)); the matrix's k
 * dimensions apply to the call's last k arguments, centred at n/2. */
__attribute__((noinline))      /* its locals stay out of primary's frame */
static pt_expr *parse_stencil(pt_parser *ps, pt_loc loc)
{
	pt_expr *call = NULL, *scale = NULL, *sum = NULL;
	matrix m = {0};
	if (!expect(ps, PT_T_LPAREN, "write stencil(f(x, y), scale, [[...]])"))
		goto error;
	call = parse_expr(ps);
	if (!call)
		goto error;
	if (call->kind != PT_E_CALL) {
		pt_error_at(ps->d, call->loc, "write the centre access, like stencil(f(x, y), 1, [[...]])",
			"the first argument of stencil must be a call of a stage or image");
		ps->failed = true;
		goto error;
	}
	if (!expect(ps, PT_T_COMMA, "write stencil(f(x, y), scale, [[...]])"))
		goto error;
	scale = parse_expr(ps);
	if (!scale || !expect(ps, PT_T_COMMA, "write stencil(f(x, y), scale, [[...]])"))
		goto error;
	if (!parse_matrix(ps, &m, 0) || !expect(ps, PT_T_RPAREN, "close stencil( with ')'"))
		goto error;
	loc = pt_ps_span(loc, prev_loc(ps));
	if (m.ndim > call->nargs) {
		pt_error_at(ps->d, loc, "use a matrix with at most as many dimensions as the call has arguments",
			"stencil matrix has %d dimensions but %s takes %d arguments",
			m.ndim, call->name, call->nargs);
		ps->failed = true;
		goto error;
	}
	int depth;
	long size;
	if (!pt_expr_measure(call, &depth, &size))
		goto error;
	for (int i = 0; i < m.count; i++) {
		pt_expr *w = m.w[i];
		if ((w->kind == PT_E_INT && w->ival == 0) || (w->kind == PT_E_FLOAT && w->fval == 0))
			continue;
		/* a term: the call, an offset on each argument, a weight, a '+' */
		if (!nodes_ok(ps, size + 2L * call->nargs + 3, loc))
			goto error;
		pt_expr *c = pt_expr_copy(call);
		int rem = i;
		for (int d = m.ndim - 1; c && d >= 0; d--) {
			int k = rem % m.shape[d];
			rem /= m.shape[d];
			int a = call->nargs - m.ndim + d;
			if (!(c->args[a] = offset_index(c->args[a], k - m.shape[d] / 2, loc)))
				c = pt_expr_free(c);
		}
		pt_expr *term = (w->kind == PT_E_INT && w->ival == 1) ? c :
			pt_expr_binary(PT_OP_MUL, pt_expr_copy(w), c, loc);
		if (!term || !(sum = sum ? pt_expr_binary(PT_OP_ADD, sum, term, loc) : term))
			goto error;     /* out of memory */
	}
	if (!sum)
		sum = pt_expr_int(0, loc);
	if (!(scale->kind == PT_E_INT && scale->ival == 1))
		sum = pt_expr_binary(PT_OP_MUL, sum, scale, loc);
	else
		pt_expr_free(scale);
	scale = NULL;
	if (!sum)
		goto error;
	for (int i = 0; i < m.count; i++)
		pt_expr_free(m.w[i]);
	free(m.w);
	pt_expr_free(call);
	if (!pt_expr_measure(sum, &depth, &size) || !depth_ok(ps, depth, loc))
		return pt_expr_free(sum);
	ps->edepth = depth;
	return sum;
error:
	for (int i = 0; i < m.count; i++)
		pt_expr_free(m.w[i]);
	free(m.w);
	pt_expr_free(call);
	pt_expr_free(scale);
	pt_expr_free(sum);
	ps->failed = true;      /* an error reported, or out of memory */
	return NULL;
}

/* Whether intrinsic call e has as many arguments as its function takes;
 * reports it if not.  Not inlined: its buffer would be in primary's
 * frame, which every level of nesting repeats. */
__attribute__((noinline))
static bool arity_ok(pt_parser *ps, const pt_expr *e)
{
	int ar = pt_intrin_arity(e->op);
	if ((ar >= 0 && e->nargs == ar) || (ar < 0 && e->nargs >= 2))
		return true;
	const char *name = pt_intrin_name(e->op);
	char hint[MAX_NAME + 48];
	snprintf(hint, sizeof(hint), "give %s %s %d argument%s", name, ar >= 0 ? "exactly" : "at least",
		ar >= 0 ? ar : 2, ar == 1 ? "" : "s");
	if (ar >= 0)
		pt_error_at(ps->d, e->loc, hint, "%s takes %d argument%s, not %d",
			name, ar, ar == 1 ? "" : "s", e->nargs);
	else
		pt_error_at(ps->d, e->loc, hint, "%s takes 2 or more arguments, not %d",
			name, e->nargs);
	ps->failed = true;
	return false;
}

/* Reads a family index after the name in name (n bytes) and, inside a
 * template's use, puts in what the name means there (templates.c).  Not
 * inlined: its buffers stay out of read_head's frame, which nested uses
 * of parameterized lets repeat. */
__attribute__((noinline))
static bool resolve_name(pt_parser *ps, char *name, size_t n)
{
	size_t base = strlen(name);
	if (!parse_family_suffix(ps, name, n))
		return false;
	if (!ps->use)
		return true;
	char b[MAX_NAME], out[MAX_NAME];
	snprintf(b, sizeof(b), "%.*s", (int)base, name);
	pt_tmpl_resolve_name(ps, b, name + base, out, sizeof(out));
	snprintf(name, n, "%s", out);
	return true;
}

/* What the name that starts a primary begins. */
typedef enum head_kind {
	HEAD_ERROR, HEAD_DONE, HEAD_STENCIL, HEAD_CAST, HEAD_SELECT, HEAD_CALL, HEAD_WINDOW
} head_kind;

/* Reads the name that starts a primary (t, a family's index included)
 * and resolves what needs no recursion: a constant, a named condition or
 * a plain name (its tree in *out: HEAD_DONE), or the start of a call
 * (its node in *out, '(' read: HEAD_CALL); for a conversion, *ty is the
 * type.  Not inlined: its name buffer stays out of primary's frame,
 * which every level of nesting repeats. */
__attribute__((noinline))
static head_kind read_head(pt_parser *ps, const pt_token *t, pt_expr **out, int *ty)
{
	char name[MAX_NAME];
	pt_ps_tok_text(t, name, sizeof(name));
	next(ps);
	*out = NULL;
	if (!strcmp(name, "stencil"))
		return HEAD_STENCIL;
	*ty = pt_type_lookup(name);
	if (*ty >= 0 && *ty != PT_BOOL)
		return HEAD_CAST;
	if (!strcmp(name, "select"))
		return HEAD_SELECT;
	if ((!strcmp(name, "sum") || !strcmp(name, "min") || !strcmp(name, "max")) && pt_window_at(ps))
		return HEAD_WINDOW;
	for (int i = 0; i < ps->nlet_params; i++)
		if (!strcmp(name, ps->let_params[i]) && !at(ps, PT_T_LBRACK)) {
			ps->edepth = 1;
			pt_expr *e = pt_expr_new(PT_E_NAME, t->loc);
			if (e && !(e->name = pt_mem_strdup(name)))
				e = pt_expr_free(e);
			return (*out = e) ? HEAD_DONE : HEAD_ERROR;
		}
	if (!resolve_name(ps, name, sizeof(name)))
		return HEAD_ERROR;
	named_expr *cd = find_named(ps->conds, ps->nconds, name);
	if (cd && cd->nparams > 0) {
		pt_loc l = pt_ps_span(t->loc, prev_loc(ps));
		if (!at(ps, PT_T_LPAREN)) {
			pt_error_at(ps->d, l, "give its arguments: name(a, b)", "'%s' takes %d argument%s",
				name, cd->nparams, cd->nparams == 1 ? "" : "s");
			pt_note_at(ps->d, cd->loc, "'%s' is defined here", name);
			ps->failed = true;
			return HEAD_ERROR;
		}
		next(ps);
		return (*out = pt_let_apply(ps, cd, l)) ? HEAD_DONE : HEAD_ERROR;
	}
	if (!at(ps, PT_T_LPAREN)) {
		ps->edepth = 1;
		named_value *c = find_const(ps, name);
		if (c)
			return (*out = const_node(c->is_int, c->ival, c->fval, t->loc)) ? HEAD_DONE : HEAD_ERROR;
		if (cd) {
			if (!nodes_ok(ps, cd->nodes, t->loc))
				return HEAD_ERROR;
			ps->edepth = cd->depth;
			return (*out = pt_expr_copy(cd->expr)) ? HEAD_DONE : HEAD_ERROR;
		}
		pt_expr *e = pt_expr_new(PT_E_NAME, pt_ps_span(t->loc, prev_loc(ps)));
		if (e && !(e->name = pt_mem_strdup(name)))
			e = pt_expr_free(e);
		return (*out = e) ? HEAD_DONE : HEAD_ERROR;
	}
	next(ps);
	int in = pt_intrin_lookup(name);
	pt_expr *e = pt_expr_new(in >= 0 ? PT_E_INTRIN : PT_E_CALL, t->loc);
	if (e && in >= 0)
		e->op = in;
	else if (e && !(e->name = pt_mem_strdup(dealias(ps, name))))
		e = pt_expr_free(e);
	return (*out = e) ? HEAD_CALL : HEAD_ERROR;
}

/* primary = INT | FLOAT | "(" expr ")" | type "(" expr ")"
 *         | "select" "(" expr "," expr "," expr ")" | stencil
 *         | IDENT family? ("(" args ")")? */
static pt_expr *primary(pt_parser *ps)
{
	pt_token *t = peek(ps);
	ps->edepth = 1;
	if (t->kind == PT_T_INT) {
		next(ps);
		return pt_expr_int(t->ival, t->loc);
	}
	if (t->kind == PT_T_FLOAT) {
		next(ps);
		return pt_expr_float(t->fval, t->loc);
	}
	if (accept(ps, PT_T_LPAREN)) {
		pt_expr *e = parse_expr(ps);
		if (e && !expect(ps, PT_T_RPAREN, "close the parenthesis"))
			e = pt_expr_free(e);
		return e;
	}
	if (t->kind != PT_T_IDENT || (pt_ps_is_keyword(t) && !pt_tok_is(t, "select") &&
			!pt_tok_is(t, "stencil"))) {
		syntax_error(ps, "an expression starts with a number, a name, '(' or a unary operator",
			"an expression");
		return NULL;
	}
	pt_expr *e;
	int ty;
	switch (read_head(ps, t, &e, &ty)) {
	case HEAD_ERROR:
		return NULL;
	case HEAD_DONE:
		return e;
	case HEAD_STENCIL:
		return parse_stencil(ps, t->loc);
	case HEAD_WINDOW: {
		char op[8];
		pt_ps_tok_text(t, op, sizeof(op));
		next(ps);       /* '(' */
		return pt_window_parse(ps, op, t->loc);
	}
	case HEAD_CAST: {
		if (!expect(ps, PT_T_LPAREN, "a type name converts a value: write float(e)"))
			return NULL;
		pt_expr *a = parse_expr(ps);
		if (!a)
			return NULL;
		if (!expect(ps, PT_T_RPAREN, "close the conversion with ')'") ||
		    !depth_ok(ps, ++ps->edepth, t->loc))
			return pt_expr_free(a);
		pt_expr *c = pt_expr_new(PT_E_CAST, pt_ps_span(t->loc, prev_loc(ps)));
		if (c)
			c->type = ty;
		return pt_expr_with_args(c, 1, a, NULL, NULL);
	}
	case HEAD_SELECT: {
		pt_expr *s = pt_expr_new(PT_E_SELECT, t->loc);
		if (!s || !expect(ps, PT_T_LPAREN, "write select(cond, a, b)") || !parse_args(ps, s))
			return pt_expr_free(s);
		s->loc = pt_ps_span(t->loc, prev_loc(ps));
		if (s->nargs != 3) {
			pt_error_at(ps->d, s->loc, "write select(cond, a, b)",
				"select takes 3 arguments, not %d", s->nargs);
			ps->failed = true;
			return pt_expr_free(s);
		}
		return depth_ok(ps, ++ps->edepth, t->loc) ? s : pt_expr_free(s);
	}
	case HEAD_CALL:
		break;
	}
	int in = e->kind == PT_E_INTRIN ? e->op : -1;
	if (!parse_args(ps, e))
		return pt_expr_free(e);
	e->loc = pt_ps_span(t->loc, prev_loc(ps));
	/* an n-ary min or max becomes n - 1 nested binary ones */
	ps->edepth += (in == PT_IN_MIN || in == PT_IN_MAX) && e->nargs > 2 ? e->nargs - 1 : 1;
	if (!depth_ok(ps, ps->edepth, t->loc))
		return pt_expr_free(e);
	if (in >= 0 && !arity_ok(ps, e))
		return pt_expr_free(e);
	if (in < 0 && !(e = pt_tuple_read(ps, e)))
		return NULL;
	return in < 0 ? pt_table_read(ps, e) : e;
}

/* A NULL from primary is an error it reported or an allocation that
 * failed (alloc.h): either way the parse stops. */
static pt_expr *parse_primary(pt_parser *ps)
{
	pt_expr *e = primary(ps);
	if (!e)
		ps->failed = true;
	return e;
}

/* unary = ("-" | "+" | "!" | "~") unary | primary */
static pt_expr *parse_unary(pt_parser *ps)
{
	pt_token *t = peek(ps);
	int op = -1;
	if (t->kind == PT_T_MINUS)
		op = PT_OP_NEG;
	else if (t->kind == PT_T_NOT)
		op = PT_OP_NOT;
	else if (t->kind == PT_T_TILDE)
		op = PT_OP_BNOT;
	else if (t->kind != PT_T_PLUS)
		return parse_primary(ps);
	if (!nest_ok(ps, t->loc))
		return NULL;
	next(ps);
	pt_expr *a = parse_unary(ps);
	ps->xdepth--;
	if (!a || op < 0)
		return a;
	/* a negated literal stays a literal, of depth 1 */
	if (op == PT_OP_NEG && a->kind == PT_E_INT) {
		a->ival = (int64_t)(0 - (uint64_t)a->ival);
		a->loc = pt_ps_span(t->loc, a->loc);
		return a;
	}
	if (op == PT_OP_NEG && a->kind == PT_E_FLOAT) {
		a->fval = -a->fval;
		a->loc = pt_ps_span(t->loc, a->loc);
		return a;
	}
	if (!depth_ok(ps, ++ps->edepth, t->loc))
		return pt_expr_free(a);
	pt_expr *u = pt_expr_unary(op, a, pt_ps_span(t->loc, a->loc));
	if (!u)
		ps->failed = true;      /* out of memory */
	return u;
}

/* Binary levels from loosest to tightest, each left-associative. */
static const struct { pt_tok_kind tok; int op; int level; } binops[] = {
	{PT_T_OROR, PT_OP_OR, 0}, {PT_T_ANDAND, PT_OP_AND, 1},
	{PT_T_BAR, PT_OP_BOR, 2}, {PT_T_CARET, PT_OP_BXOR, 3}, {PT_T_AMP, PT_OP_BAND, 4},
	{PT_T_EQ, PT_OP_EQ, 5}, {PT_T_NE, PT_OP_NE, 5},
	{PT_T_LT, PT_OP_LT, 6}, {PT_T_LE, PT_OP_LE, 6}, {PT_T_GT, PT_OP_GT, 6}, {PT_T_GE, PT_OP_GE, 6},
	{PT_T_SHL, PT_OP_SHL, 7}, {PT_T_SHR, PT_OP_SHR, 7},
	{PT_T_PLUS, PT_OP_ADD, 8}, {PT_T_MINUS, PT_OP_SUB, 8},
	{PT_T_STAR, PT_OP_MUL, 9}, {PT_T_SLASH, PT_OP_DIV, 9}, {PT_T_PERCENT, PT_OP_MOD, 9},
};

/* The operator of the current token if its level is at least min (its
 * level in *level), or -1.  A '|' that starts a line begins the next
 * case of a definition, not an operator. */
static int binop_at(pt_parser *ps, int min, int *level)
{
	pt_token *t = peek(ps);
	if (t->kind == PT_T_BAR && t->bol)
		return -1;
	for (size_t i = 0; i < sizeof(binops) / sizeof(binops[0]); i++)
		if (binops[i].tok == t->kind && binops[i].level >= min) {
			*level = binops[i].level;
			return binops[i].op;
		}
	return -1;
}

/* binary = unary (op binary)*, by precedence climbing: the operand of
 * an operator is read at the next tighter level, so operators of one
 * level associate to the left.  A chain is read in a loop, so its length
 * costs no stack; it makes a tree as deep as it is long, refused past
 * the limit at the operator that crosses it.  An operand with no
 * operator costs one frame here (not one per level): parentheses nest
 * 1000 deep in a fraction of the stack. */
static pt_expr *parse_binary(pt_parser *ps, int min)
{
	pt_expr *a = parse_unary(ps);
	int op, level, depth = ps->edepth;
	while (a && (op = binop_at(ps, min, &level)) >= 0) {
		pt_loc opl = next(ps)->loc;
		pt_expr *b = parse_binary(ps, level + 1);
		if (!b)
			return pt_expr_free(a);
		depth = 1 + (depth > ps->edepth ? depth : ps->edepth);
		a = make_binary(op, a, b, pt_ps_span(a->loc, b->loc));
		if (!a) {
			ps->failed = true;      /* out of memory */
			return NULL;
		}
		if (a->kind == PT_E_INT)
			depth = 1;
		if (!depth_ok(ps, depth, opl))
			return pt_expr_free(a);
	}
	ps->edepth = depth;
	return a;
}

/* One "c ? a :" of a chain of conditionals, waiting for its else. */
typedef struct pending_select {
	pt_expr *c, *a;
	int depth;              /* the deeper of c and a */
} pending_select;

/* Builds the chain's selects from the right around e (its last else, of
 * depth ps->edepth); frees what it cannot use when e is NULL. */
static pt_expr *close_selects(pt_parser *ps, pending_select *v, int n, pt_expr *e)
{
	int depth = ps->edepth;
	while (n-- > 0) {
		if (!e) {
			pt_expr_free(v[n].c);
			pt_expr_free(v[n].a);
			continue;
		}
		pt_expr *s = pt_expr_new(PT_E_SELECT, pt_ps_span(v[n].c->loc, e->loc));
		if (!(e = pt_expr_with_args(s, 3, v[n].c, v[n].a, e)))
			ps->failed = true;      /* out of memory */
		depth = 1 + (depth > v[n].depth ? depth : v[n].depth);
	}
	free(v);
	ps->edepth = depth;
	return e;
}

/* ternary = binary ("?" expr ":" ternary)?
 * Right-associative: a chain c1 ? a1 : c2 ? a2 : e is read in a loop
 * and built from the right, so its length costs no stack; each '?'
 * nests one level deeper, refused past the limit. */
static pt_expr *parse_ternary(pt_parser *ps)
{
	pending_select *v = NULL;
	int n = 0, cap = 0;
	pt_expr *e;
	for (;;) {
		e = parse_binary(ps, 0);
		if (!e || !at(ps, PT_T_QUESTION))
			break;
		if (!depth_ok(ps, n + 2, peek(ps)->loc)) {
			e = pt_expr_free(e);
			break;
		}
		next(ps);
		int dc = ps->edepth;
		pt_expr *a = parse_expr(ps);
		if (!a || !expect(ps, PT_T_COLON, "a conditional is written c ? a : b")) {
			pt_expr_free(a);
			e = pt_expr_free(e);
			break;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			pending_select *nv = pt_mem_realloc(v, sizeof(*v) * (size_t)cap);
			if (!nv) {
				pt_expr_free(a);
				e = pt_expr_free(e);
				ps->failed = true;
				break;
			}
			v = nv;
		}
		v[n++] = (pending_select){e, a, dc > ps->edepth ? dc : ps->edepth};
	}
	e = close_selects(ps, v, n, e);
	return !e || depth_ok(ps, ps->edepth, e->loc) ? e : pt_expr_free(e);
}

/* The last word on a whole expression, as built: its depth was checked
 * as it grew, and its nodes count towards the pipeline's. */
static pt_expr *check_tree(pt_parser *ps, pt_expr *e)
{
	int depth;
	long nodes;
	if (!pt_expr_measure(e, &depth, &nodes)) {
		ps->failed = true;      /* out of memory: the entry point says so */
		return pt_expr_free(e);
	}
	if (!depth_ok(ps, depth, e->loc) || !total_ok(ps, nodes, e->loc))
		return pt_expr_free(e);
	if (nodes > PT_MAX_EXPR_NODES) {
		ps->nodes = 0;
		nodes_ok(ps, nodes, e->loc);
		return pt_expr_free(e);
	}
	return e;
}

static pt_expr *parse_expr(pt_parser *ps)
{
	if (ps->failed)
		return NULL;
	if (!nest_ok(ps, peek(ps)->loc))
		return NULL;
	bool top = ps->enest++ == 0;
	if (top)
		ps->nodes = 0;
	pt_expr *e = parse_ternary(ps);
	ps->enest--;
	ps->xdepth--;
	if (e && top)
		e = check_tree(ps, e);
	return e;
}

/* ---- declarations ---- */

/* type = one of the type names */
static int parse_type(pt_parser *ps)
{
	char name[MAX_NAME];
	pt_token *t = peek(ps);
	if (t->kind != PT_T_IDENT) {
		syntax_error(ps, "types are u8 u16 u32 i8 i16 i32 i64 f32 f64 (or int, float, ...)", "a type");
		return -1;
	}
	pt_ps_tok_text(t, name, sizeof(name));
	int ty = pt_type_lookup(name);
	if (ty < 0 || ty == PT_BOOL) {
		pt_error_at(ps->d, t->loc, "types are u8 u16 u32 i8 i16 i32 i64 f32 f64 (or int, float, ...)",
			"unknown type '%s'", name);
		ps->failed = true;
		return -1;
	}
	next(ps);
	return ty;
}

/* interval = expr ".." expr ("step" INT)? */
static bool parse_interval(pt_parser *ps, pt_interval *iv)
{
	memset(iv, 0, sizeof(*iv));
	iv->step = 1;
	iv->lo = parse_expr(ps);
	if (!iv->lo)
		return false;
	if (!expect(ps, PT_T_DOTDOT, "an interval is written lo .. hi (both inclusive)"))
		goto error;
	iv->hi = parse_expr(ps);
	if (!iv->hi)
		goto error;
	if (at_kw(ps, "step")) {
		next(ps);
		pt_loc l = peek(ps)->loc;
		bool is_int;
		int64_t v;
		double f;
		if (!parse_const(ps, true, &is_int, &v, &f))
			goto error;
		if (v < 1) {
			pt_error_at(ps->d, l, "use a step of 1 or more", "interval step must be positive");
			ps->failed = true;
			goto error;
		}
		iv->step = v;
	}
	return true;
error:
	iv->lo = pt_expr_free(iv->lo);
	iv->hi = pt_expr_free(iv->hi);
	return false;
}

/* name = IDENT ("[" const ("," const)* "]")? */
static bool parse_decl_name(pt_parser *ps, char *name, size_t n, pt_loc *loc, const char *what)
{
	if (!expect_ident(ps, name, n, what, loc))
		return false;
	if (!resolve_name(ps, name, n))
		return false;
	*loc = pt_ps_span(*loc, prev_loc(ps));
	return true;
}

/* Reports a second definition of a name (an alias here, or what ir.c
 * refuses). */
static bool check_fresh(pt_parser *ps, const char *name, pt_loc loc)
{
	if (dealias(ps, name) != name) {
		pt_error_at(ps->d, loc, "rename one of them", "'%s' is already an alias", name);
		ps->failed = true;
		return false;
	}
	return ok(ps, pt_pipeline_check_name(ps->d, ps->p, name, loc));
}

/* param = "param" IDENT ":" type ("=" const)? */
static bool parse_param(pt_parser *ps)
{
	char name[MAX_NAME];
	pt_loc loc;
	if (!expect_ident(ps, name, sizeof(name), "a parameter name", &loc) || !check_fresh(ps, name, loc))
		return false;
	if (!expect(ps, PT_T_COLON, "write param N : int"))
		return false;
	pt_loc tl = peek(ps)->loc;
	int ty = parse_type(ps);
	if (ty < 0)
		return false;
	int idx = pt_pipeline_declare_param(ps->d, ps->p, name, ty, loc, tl);
	if (!ok(ps, idx >= 0))
		return false;
	if (accept(ps, PT_T_ASSIGN)) {
		bool is_int;
		int64_t v;
		double f;
		if (!parse_const(ps, false, &is_int, &v, &f))
			return false;
		ps->p->params[idx].has_estimate = true;
		ps->p->params[idx].estimate = is_int ? (double)v : f;
	}
	return true;
}

/* image = "image" IDENT ":" type "[" expr ("," expr)* "]" */
static bool parse_image(pt_parser *ps)
{
	char name[MAX_NAME];
	pt_loc loc;
	if (!parse_decl_name(ps, name, sizeof(name), &loc, "an image name") || !check_fresh(ps, name, loc))
		return false;
	if (!expect(ps, PT_T_COLON, "write image I : float [R, C]"))
		return false;
	int ty = parse_type(ps);
	if (ty < 0 || !expect(ps, PT_T_LBRACK, "give the extents: image I : float [R, C]"))
		return false;
	pt_image *im = pt_pipeline_declare_image(ps->d, ps->p, name, ty, loc);
	if (!ok(ps, im != NULL))
		return false;
	do {
		pt_loc l = peek(ps)->loc;
		pt_expr *e = parse_expr(ps);
		if (!e || !ok(ps, pt_image_add_extent(ps->d, im, e, l)))
			return false;
	} while (accept(ps, PT_T_COMMA));
	return expect(ps, PT_T_RBRACK, "close the extents with ']'");
}

/* var = "var" IDENT ":" interval */
static bool parse_var(pt_parser *ps)
{
	char name[MAX_NAME];
	pt_loc loc;
	if (!expect_ident(ps, name, sizeof(name), "a variable name", &loc))
		return false;
	if (!expect(ps, PT_T_COLON, "write var x : 0 .. R-1"))
		return false;
	pt_interval iv;
	if (!parse_interval(ps, &iv))
		return false;
	named_expr *old = find_named(ps->vars, ps->nvars, name);
	if (old && pt_tmpl_may_replace(ps, true, (int)(old - ps->vars))) {
		pt_expr_free(old->iv.lo);
		pt_expr_free(old->iv.hi);
		old->iv = iv;
		return true;
	}
	return pt_parser_define_var(ps, name, iv);
}

/* cond = ("cond" | "let") IDENT ("(" params ")")? "=" expr
 * A named expression, substituted where its name is used: `cond` for
 * conditions, `let` for values (the two are the same construct). */
static bool parse_cond(pt_parser *ps)
{
	char name[MAX_NAME];
	pt_loc loc;
	if (!expect_ident(ps, name, sizeof(name), "a condition name", &loc))
		return false;
	if (at(ps, PT_T_LPAREN))
		return pt_let_define(ps, name, loc);
	if (!expect(ps, PT_T_ASSIGN, "write cond name = expression"))
		return false;
	pt_expr *e = parse_expr(ps);
	if (!e)
		return false;
	named_expr *old = find_named(ps->conds, ps->nconds, name);
	if (old && old->nparams == 0 && pt_tmpl_may_replace(ps, false, (int)(old - ps->conds)))
		return set_cond(ps, old, e);
	return pt_parser_define_cond(ps, name, e);
}

/* const = "const" IDENT "=" const */
static bool parse_const_decl(pt_parser *ps)
{
	char name[MAX_NAME];
	pt_loc loc;
	if (!expect_ident(ps, name, sizeof(name), "a constant name", &loc) ||
	    !expect(ps, PT_T_ASSIGN, "write const name = value"))
		return false;
	bool is_int;
	int64_t v;
	double f;
	named_value *old = find_const(ps, name);
	if (old) {
		pt_error_at(ps->d, loc, "constants cannot change; choose another name",
			"constant '%s' is already defined", name);
		if (old->loc.src)
			pt_note_at(ps->d, old->loc, "'%s' was defined here", name);
		ps->failed = true;
		return false;
	}
	if (!parse_const(ps, false, &is_int, &v, &f))
		return false;
	if (!push_const(ps, name, is_int, v, f, loc))
		return false;
	return true;
}

/* dims = "(" dim ("," dim)* ")"; dim = IDENT (":" interval)?
 * Appends names and intervals to the stage's variable lists. */
static bool parse_dims(pt_parser *ps, pt_stage *s, bool reduction)
{
	if (!expect(ps, PT_T_LPAREN, reduction ? "write over (x : 0 .. R-1, ...)" :
			"write the variables: func f(x, y) : float"))
		return false;
	do {
		char name[MAX_NAME];
		pt_loc loc;
		if (!expect_ident(ps, name, sizeof(name), "a variable name", &loc))
			return false;
		if (find_const(ps, name)) {
			pt_error_at(ps->d, loc, "rename the variable or the constant",
				"'%s' is a constant here and cannot name a variable", name);
			ps->failed = true;
			return false;
		}
		if (!ok(ps, pt_stage_check_var(ps->d, s, name, loc)))
			return false;
		pt_interval iv;
		if (accept(ps, PT_T_COLON)) {
			if (!parse_interval(ps, &iv))
				return false;
		} else {
			const pt_interval *g = pt_parser_var_interval(ps, name);
			if (!g) {
				pt_error_at(ps->d, loc, "declare it with `var x : lo .. hi` or write `x : lo .. hi` here",
					"variable '%s' has no interval", name);
				ps->failed = true;
				return false;
			}
			iv.lo = pt_expr_copy(g->lo);
			iv.hi = pt_expr_copy(g->hi);
			iv.step = g->step;
			if (!iv.lo || !iv.hi) {         /* out of memory */
				pt_expr_free(iv.lo);
				pt_expr_free(iv.hi);
				return !(ps->failed = true);
			}
		}
		if (!ok(ps, pt_stage_add_var(ps->d, s, name, iv, reduction, loc)))
			return false;
	} while (accept(ps, PT_T_COMMA));
	return expect(ps, PT_T_RPAREN, "close the variable list with ')'");
}

/* The negation of the disjunction of all case conditions so far, for
 * an `else` case, into *out (NULL: no condition); false when out of
 * memory. */
static bool else_cond(pt_stage *s, pt_loc loc, pt_expr **out)
{
	pt_expr *any = NULL;
	*out = NULL;
	for (int i = 0; i < s->ncases; i++) {
		if (!s->cases[i].cond)
			continue;
		pt_expr *c = pt_expr_copy(s->cases[i].cond);
		if (!(any = any ? pt_expr_binary(PT_OP_OR, any, c, loc) : c))
			return false;
	}
	return !any || (*out = pt_expr_unary(PT_OP_NOT, any, loc));
}

/* func = "func" name dims ":" type ("=" expr | case+)
 * case = "|" (expr | "else") "->" expr */
static bool parse_func(pt_parser *ps)
{
	char name[MAX_NAME];
	pt_loc loc;
	if (!parse_decl_name(ps, name, sizeof(name), &loc, "a function name") || !check_fresh(ps, name, loc))
		return false;
	pt_stage *s = pt_pipeline_declare_stage(ps->d, ps->p, name, loc);
	if (!ok(ps, s != NULL))
		return false;
	if (!parse_dims(ps, s, false) || !expect(ps, PT_T_COLON, "give the type: func f(x) : float"))
		return false;
	pt_loc tl = peek(ps)->loc;
	int ty = parse_type(ps);
	if (ty < 0 || !ok(ps, pt_stage_set_type(ps->d, s, ty, tl)))
		return false;
	if (accept(ps, PT_T_ASSIGN)) {
		pt_loc l = peek(ps)->loc;
		pt_expr *e = parse_expr(ps);
		if (!e)
			return false;
		return ok(ps, pt_stage_add_case(ps->d, s, NULL, e, pt_ps_span(l, prev_loc(ps))));
	}
	if (!at(ps, PT_T_BAR)) {
		syntax_error(ps, "define it with '= expr' or with cases '| cond -> expr'", "'=' or '|'");
		return false;
	}
	while (accept(ps, PT_T_BAR)) {
		pt_loc l = peek(ps)->loc;
		pt_expr *c;
		if (at_kw(ps, "else")) {
			next(ps);
			if (!else_cond(s, l, &c))
				return !(ps->failed = true);
		} else if (!(c = parse_expr(ps))) {
			return false;
		}
		if (!expect(ps, PT_T_ARROW, "a case is written | condition -> value")) {
			pt_expr_free(c);
			return false;
		}
		pt_expr *v = parse_expr(ps);
		if (!v) {
			pt_expr_free(c);
			return false;
		}
		if (!ok(ps, pt_stage_add_case(ps->d, s, c, v, pt_ps_span(l, prev_loc(ps)))))
			return false;
	}
	return true;
}

static void free_target(pt_expr *cond, pt_expr **target, int n)
{
	pt_expr_free(cond);
	for (int i = 0; i < n; i++)
		pt_expr_free(target[i]);
	free(target);
}

/* Maps a reduction operator token at the cursor to a pt_redop. */
static int parse_redop(pt_parser *ps)
{
	pt_token *t = peek(ps);
	int r = -1;
	if (t->kind == PT_T_PLUSEQ)
		r = PT_RED_SUM;
	else if (t->kind == PT_T_STAREQ)
		r = PT_RED_PROD;
	else if (t->kind == PT_T_ANDEQ)
		r = PT_RED_AND;
	else if (t->kind == PT_T_OREQ)
		r = PT_RED_OR;
	else if (t->kind == PT_T_IDENT && (pt_tok_is(t, "min") || pt_tok_is(t, "max")) &&
		 peek2(ps)->kind == PT_T_ASSIGN) {
		r = pt_tok_is(t, "min") ? PT_RED_MIN : PT_RED_MAX;
		next(ps);
	} else if (t->kind == PT_T_ASSIGN) {
		r = PT_RED_UPDATE;
	}
	if (r < 0) {
		syntax_error(ps, "reductions update with += *= min= max= &&= ||=, or h(t) = expression of h(t)",
			"a reduction operator");
		return -1;
	}
	next(ps);
	return r;
}

/* reduce = "reduce" name dims ":" type "over" dims ("init" expr)? rcase+
 * rcase  = "|" (expr "->")? name "(" args ")" redop expr
 * redop  = "+=" | "*=" | "min=" | "max=" | "&&=" | "||=" | "=" (general: update.h) */
static bool parse_reduce(pt_parser *ps)
{
	char name[MAX_NAME];
	pt_loc loc;
	if (!parse_decl_name(ps, name, sizeof(name), &loc, "a reduction name") || !check_fresh(ps, name, loc))
		return false;
	pt_stage *s = pt_pipeline_declare_stage(ps->d, ps->p, name, loc);
	if (!ok(ps, s != NULL))
		return false;
	if (!parse_dims(ps, s, false) || !expect(ps, PT_T_COLON, "give the type: reduce h(b) : int over (...)"))
		return false;
	pt_loc tl = peek(ps)->loc;
	if (at(ps, PT_T_LPAREN)) {      /* a tuple (tuple.c) */
		if (!pt_tuple_types(ps, s))
			return false;
	} else {
		int ty = parse_type(ps);
		if (ty < 0 || !ok(ps, pt_stage_set_type(ps->d, s, ty, tl)))
			return false;
	}
	if (!at_kw(ps, "over")) {
		syntax_error(ps, "write reduce h(b : 0 .. 255) : int over (x : 0 .. R-1)", "'over'");
		return false;
	}
	next(ps);
	if (!parse_dims(ps, s, true))
		return false;
	if (s->ntuple)
		return pt_tuple_reduce(ps, s);
	if (at_kw(ps, "init")) {
		next(ps);
		if (!(s->init = parse_expr(ps)))
			return false;
	}
	if (!at(ps, PT_T_BAR)) {
		syntax_error(ps, "give updates: | h(I(x, y)) += 1", "'|'");
		return false;
	}
	s->red = PT_RED_NONE;
	while (accept(ps, PT_T_BAR)) {
		pt_loc l = peek(ps)->loc;
		pt_expr *c = NULL, *t = parse_expr(ps);
		if (!t)
			return false;
		if (accept(ps, PT_T_ARROW)) {
			c = t;
			if (!(t = parse_expr(ps))) {
				pt_expr_free(c);
				return false;
			}
		}
		if (t->kind != PT_E_CALL || strcmp(t->name, s->name)) {
			pt_error_at(ps->d, t->loc, "an update names the reduction: | h(index) += value",
				"update must assign to '%s'", s->name);
			ps->failed = true;
			pt_expr_free(c);
			pt_expr_free(t);
			return false;
		}
		pt_loc opl = peek(ps)->loc;
		int r = parse_redop(ps);
		pt_expr *v = r >= 0 ? parse_expr(ps) : NULL;
		if (!v) {
			pt_expr_free(c);
			pt_expr_free(t);
			return false;
		}
		pt_expr **target = t->args;
		int ntarget = t->nargs;
		pt_loc tloc = t->loc;
		t->args = NULL;
		t->nargs = 0;
		pt_expr_free(t);
		bool added;
		if (r == PT_RED_UPDATE) {
			pt_expr *val, *op;
			added = pt_update_split(ps->d, s, target, ntarget, v, &val, &op);
			if (added)
				added = pt_stage_add_general(ps->d, s, c, target, ntarget, tloc, opl, val, op, pt_ps_span(l, prev_loc(ps)));
			else
				free_target(c, target, ntarget);
		} else {
			added = pt_stage_add_update(ps->d, s, c, target, ntarget, tloc, r, opl, v, pt_ps_span(l, prev_loc(ps)));
		}
		if (!ok(ps, added))
			return false;
	}
	return true;
}

/* output = "output" name ("," name)* */
static bool parse_output(pt_parser *ps)
{
	do {
		char name[MAX_NAME];
		pt_loc loc;
		if (!parse_decl_name(ps, name, sizeof(name), &loc, "a stage name"))
			return false;
		const char *real = dealias(ps, name);
		if (pt_pipeline_find_image(ps->p, real) && !pt_pipeline_find_stage(ps->p, real)) {
			/* an image is read, not computed: nothing to output */
			if (strcmp(real, name))
				pt_error_at(ps->d, loc, "output a stage that reads it, such as `func out(x, y) = I(x, y)`",
					"'%s' is an alias of image '%s', not a stage; only stages can be outputs", name, real);
			else
				pt_error_at(ps->d, loc, "output a stage that reads it, such as `func out(x, y) = I(x, y)`",
					"'%s' is an image, not a stage; only stages can be outputs", name);
			ps->failed = true;
			return false;
		}
		if (!ok(ps, pt_pipeline_set_output(ps->d, ps->p, real, loc)))
			return false;
	} while (accept(ps, PT_T_COMMA));
	return true;
}

/* alias = "alias" name "=" name
 * A second name for a stage or image, for calls and `output` (so that a
 * family member can be an existing stage: alias G[0] = I). */
static bool parse_alias(pt_parser *ps)
{
	char from[MAX_NAME], to[MAX_NAME];
	pt_loc floc, tloc;
	if (!parse_decl_name(ps, from, sizeof(from), &floc, "an alias name") || !check_fresh(ps, from, floc))
		return false;
	if (dealias(ps, from) != from) {
		pt_error_at(ps->d, floc, "choose another name", "'%s' is already an alias", from);
		ps->failed = true;
		return false;
	}
	if (!expect(ps, PT_T_ASSIGN, "write alias NEW = EXISTING") ||
	    !parse_decl_name(ps, to, sizeof(to), &tloc, "a stage or image name"))
		return false;
	const char *target = dealias(ps, to);
	if (!pt_pipeline_find_stage(ps->p, target) && !pt_pipeline_find_image(ps->p, target)) {
		pt_error_at(ps->d, tloc, "declare the stage or image before its alias",
			"no stage or image named '%s'", to);
		ps->failed = true;
		return false;
	}
	char **f = pt_mem_realloc(ps->alias_from, sizeof(char *) * (size_t)(ps->naliases + 1));
	if (f)
		ps->alias_from = f;
	char **t = f ? pt_mem_realloc(ps->alias_to, sizeof(char *) * (size_t)(ps->naliases + 1)) : NULL;
	if (t)
		ps->alias_to = t;
	char *nf = t ? pt_mem_strdup(from) : NULL, *nt = nf ? pt_mem_strdup(target) : NULL;
	if (!nt) {              /* out of memory */
		free(nf);
		return !(ps->failed = true);
	}
	ps->alias_from[ps->naliases] = nf;
	ps->alias_to[ps->naliases] = nt;
	ps->naliases++;
	return true;
}

static bool parse_decl(pt_parser *ps);

/* Parses declarations until '}' (inside a block) or EOF. */
static bool parse_block_body(pt_parser *ps, bool braced)
{
	while (!ps->failed && !at(ps, PT_T_EOF) && !(braced && at(ps, PT_T_RBRACE)))
		if (!parse_decl(ps))
			return false;
	if (braced)
		return expect(ps, PT_T_RBRACE, "close the block with '}'");
	return !ps->failed;
}

/* Skips a balanced { ... } block without reading it (a loop that runs zero
 * times or an untaken if branch); the cursor is on '{'. */
static bool skip_block(pt_parser *ps)
{
	pt_loc open = peek(ps)->loc;
	if (!expect(ps, PT_T_LBRACE, "a block starts with '{'"))
		return false;
	int level = 1;
	while (level > 0) {
		pt_token *t = next(ps);
		if (t->kind == PT_T_EOF) {
			pt_error_at(ps->d, open, "close it with '}'", "block is never closed");
			ps->failed = true;
			return false;
		}
		level += t->kind == PT_T_LBRACE ? 1 : t->kind == PT_T_RBRACE ? -1 : 0;
	}
	return true;
}

/* for = "for" IDENT "in" const ".." const "{" decl* "}" */
static bool parse_for(pt_parser *ps)
{
	char name[MAX_NAME];
	pt_loc loc;
	bool is_int;
	int64_t lo, hi;
	double f;
	if (!expect_ident(ps, name, sizeof(name), "a loop variable", &loc))
		return false;
	if (!at_kw(ps, "in")) {
		syntax_error(ps, "write for l in 1 .. 4 { ... }", "'in'");
		return false;
	}
	next(ps);
	if (!parse_const(ps, true, &is_int, &lo, &f) ||
	    !expect(ps, PT_T_DOTDOT, "write for l in 1 .. 4 { ... }") ||
	    !parse_const(ps, true, &is_int, &hi, &f))
		return false;
	if (!at(ps, PT_T_LBRACE)) {
		syntax_error(ps, "the loop body is a block: for l in 1 .. 4 { ... }", "'{'");
		return false;
	}
	int body = ps->pos;
	if (!skip_block(ps))
		return false;
	int after = ps->pos;
	if (hi >= lo && hi - lo >= MAX_EXPANSION - ps->expansions) {
		pt_error_at(ps->d, loc, "loops stamp out stages; keep them to a few thousand iterations",
			"loop over '%s' runs too many times", name);
		ps->failed = true;
		return false;
	}
	for (int64_t v = lo; v <= hi; v++) {
		ps->expansions++;
		ps->pos = body + 1;
		int mark = ps->nconsts;
		bool ok = push_const(ps, name, true, v, (double)v, loc) && parse_block_body(ps, true);
		pop_consts(ps, mark);
		if (!ok)
			return false;
	}
	ps->pos = after;
	return true;
}

/* if = "if" const "{" decl* "}" ("else" (if | "{" decl* "}"))? */
static bool parse_if(pt_parser *ps)
{
	bool is_int;
	int64_t v;
	double f;
	if (!parse_const(ps, false, &is_int, &v, &f))
		return false;
	bool taken = is_int ? v != 0 : f != 0;
	if (!at(ps, PT_T_LBRACE)) {
		syntax_error(ps, "write if cond { ... } else { ... }", "'{'");
		return false;
	}
	if (taken) {
		next(ps);
		if (!parse_block_body(ps, true))
			return false;
	} else if (!skip_block(ps)) {
		return false;
	}
	if (!at_kw(ps, "else"))
		return true;
	next(ps);
	if (at_kw(ps, "if")) {
		next(ps);
		if (taken) {
			/* skip the condition and every block of the chain */
			while (!at(ps, PT_T_LBRACE) && !at(ps, PT_T_EOF))
				next(ps);
			if (!skip_block(ps))
				return false;
			while (at_kw(ps, "else")) {
				next(ps);
				while (!at(ps, PT_T_LBRACE) && !at(ps, PT_T_EOF))
					next(ps);
				if (!skip_block(ps))
					return false;
			}
			return true;
		}
		return parse_if(ps);
	}
	if (!at(ps, PT_T_LBRACE)) {
		syntax_error(ps, "write if cond { ... } else { ... }", "'{'");
		return false;
	}
	if (taken)
		return skip_block(ps);
	next(ps);
	return parse_block_body(ps, true);
}

/* decl = param | image | var | cond | let | const | alias | func | reduce | output | for | if
 *      | template | table | use (of a template) */
static bool parse_decl(pt_parser *ps)
{
	static const struct { const char *kw; bool (*fn)(pt_parser *); } decls[] = {
		{"param", parse_param}, {"image", parse_image}, {"var", parse_var},
		{"cond", parse_cond}, {"let", parse_cond}, {"const", parse_const_decl}, {"func", parse_func},
		{"reduce", parse_reduce}, {"output", parse_output}, {"for", parse_for},
		{"if", parse_if}, {"alias", parse_alias}, {"template", pt_tmpl_define},
		{"table", pt_table_define},
	};
	if (++ps->depth > MAX_BLOCK_DEPTH) {
		pt_error_at(ps->d, peek(ps)->loc, "flatten the nesting", "blocks nested too deeply");
		ps->failed = true;
		return false;
	}
	bool ok = false, found = false;
	for (size_t i = 0; i < sizeof(decls) / sizeof(decls[0]); i++)
		if (at_kw(ps, decls[i].kw)) {
			next(ps);
			found = true;
			ok = decls[i].fn(ps);
			break;
		}
	struct pt_template *tm = found ? NULL : pt_tmpl_find(ps, peek(ps));
	if (tm) {
		found = true;
		ok = pt_tmpl_use(ps, tm);
	}
	if (!found)
		syntax_error(ps, "declarations start with param, image, var, cond, let, const, func, reduce, table, "
			"output, for, if, template or the name of a template", "a declaration");
	ps->depth--;
	return ok && !ps->failed;
}

/* Lexes src into the parser's token array. */
static bool load(pt_parser *ps, const pt_source *src)
{
	ps->toks = NULL;
	ps->pos = 0;
	ps->failed = false;
	ps->depth = 0;
	ps->xdepth = 0;
	return pt_lex(ps->d, src, &ps->toks, &ps->ntoks);
}

static void unload(pt_parser *ps)
{
	free(ps->toks);
	ps->toks = NULL;
	ps->ntoks = 0;
}

/* file = "pipeline" IDENT decl* */
bool pt_parser_parse_file(pt_parser *ps, const pt_source *src)
{
	long failures = pt_mem_failures();
	if (!ps || !load(ps, src))
		return false;
	bool ok = false;
	if (!at_kw(ps, "pipeline")) {
		syntax_error(ps, "a file starts with `pipeline NAME`", "'pipeline'");
	} else {
		next(ps);
		char name[MAX_NAME];
		pt_loc loc;
		if (expect_ident(ps, name, sizeof(name), "the pipeline's name", &loc)) {
			char *n = pt_mem_strdup(name);
			if (n) {
				free(ps->p->name);
				ps->p->name = n;
			} else {
				ps->failed = true;      /* out of memory */
			}
			ps->p->loc = loc;
			ok = parse_block_body(ps, false) && pt_table_finish(ps);
		}
	}
	unload(ps);
	/* an allocation that failed fails the parse (alloc.h) */
	return ok && !ps->failed && pt_mem_failures() == failures;
}

bool pt_parser_parse_decls(pt_parser *ps, const pt_source *src)
{
	long failures = pt_mem_failures();
	if (!ps || !load(ps, src))
		return false;
	bool ok = parse_block_body(ps, false) && pt_table_finish(ps);
	unload(ps);
	return ok && pt_mem_failures() == failures;
}

pt_expr *pt_parser_parse_expr(pt_parser *ps, const pt_source *src)
{
	long failures = pt_mem_failures();
	if (!ps || !load(ps, src))
		return NULL;
	pt_expr *e = parse_expr(ps);
	if (e && !at(ps, PT_T_EOF)) {
		syntax_error(ps, "remove the extra text", "the end of the expression");
		e = pt_expr_free(e);
	}
	unload(ps);
	if (pt_mem_failures() != failures)
		e = pt_expr_free(e);
	return e;
}

/* ---- for the parser's other files (parser_priv.h) ---- */

static void verror(pt_parser *ps, pt_loc loc, const char *hint, const char *fmt, va_list ap)
{
	char msg[1024];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (!ps->failed)
		pt_error_at(ps->d, loc, hint, "%s", msg);
	ps->failed = true;
}

static named_expr *find_cond(pt_parser *ps, const char *name)
{
	return find_named(ps->conds, ps->nconds, name);
}

static bool expand_ok(pt_parser *ps, int64_t n, pt_loc loc)
{
	if (n < MAX_EXPANSION - ps->expansions) {
		ps->expansions += n;
		return true;
	}
	pt_ps_error(ps, loc, "loops, windows and templates stamp out copies; keep them to a few thousand",
		"too many copies: loops, windows and template uses expand to more than %d", MAX_EXPANSION);
	return false;
}

static const pt_ps_ops ops = {
	.peek = peek, .next = next, .at = at, .at_kw = at_kw, .accept = accept, .expect = expect,
	.syntax_error = syntax_error, .verror = verror, .expect_ident = expect_ident,
	.family_suffix = parse_family_suffix, .prev_loc = prev_loc, .parse_expr = parse_expr,
	.parse_const = parse_const, .const_eval = const_eval, .parse_block_body = parse_block_body,
	.skip_block = skip_block, .push_const = push_const, .pop_consts = pop_consts, .find_const = find_const,
	.find_cond = find_cond, .define_cond = pt_parser_define_cond, .expand_ok = expand_ok, .nodes_ok = nodes_ok, .depth_ok = depth_ok,
};
