/* parser_priv.h: the parser's state and the helpers that its other
 * files (templates.c, lets.c, tables.c, windows.c) share with parser.c,
 * through parser.c's table of them.  Private to the parser. */
#ifndef PT_PARSER_PRIV_H
#define PT_PARSER_PRIV_H

#include <stdarg.h>
#include <string.h>

#include "parser.h"

#define MAX_NAME 256

typedef struct named_value {
	char *name;
	bool is_int;
	int64_t ival;
	double fval;
	pt_loc loc;
} named_value;

typedef struct named_expr {
	char *name;
	pt_expr *expr;          /* cond: the condition; var: unused */
	int depth;              /* cond: expr's depth and nodes (expr_limits.h) */
	long nodes;
	pt_interval iv;         /* var: its interval */
	int nparams;            /* a parameterized let: its parameters' names */
	char **params;
	pt_loc loc;             /* where it was defined (parameterized lets) */
} named_expr;

struct pt_parser {
	const struct pt_ps_ops *ops;    /* parser.c's helpers, for the other files */
	pt_diag *d;
	pt_pipeline *p;
	pt_token *toks;
	int ntoks, pos;
	bool failed;
	int depth;              /* blocks being read (parse_decl calls) */
	int xdepth;             /* parse_expr and unary-operator calls under way */
	long expansions;
	/* expression limits (expr_limits.h): each function that returns a tree
	 * leaves its depth in edepth; nodes counts what `let`s and stencils
	 * add to the expression being read (enest: parse_expr calls under
	 * way), total_nodes every tree built so far */
	int edepth;
	int enest;
	long nodes;
	long total_nodes;
	named_value *consts;    /* a stack: loop variables are pushed and popped */
	int nconsts;
	named_expr *conds;
	int nconds;
	named_expr *vars;
	int nvars;
	/* inside a template's use, conds and vars below these indices belong
	 * to the outer text: the body's shadow them, and go at its end */
	int cond_base, var_base;
	char **alias_from, **alias_to;  /* `alias` names: calls of from mean to */
	int naliases;
	struct pt_template **templates; /* templates.c */
	int ntemplates;
	struct pt_use *use;             /* the innermost template use being read */
	struct pt_table **tables;       /* tables.c */
	int ntables;
	const char **let_params;        /* a parameterized let's body being read: */
	int nlet_params;                /* these names stay names */
	const pt_stage *tuple_target;   /* a tuple update being read: its reduction may be named bare */
};

/* ---- parser.c's helpers ----
 * The parser's other files reach parser.c only through this table,
 * which parser.c fills: a template's body is read by parser.c's
 * declarations, which read templates, and through the table that
 * mutual recursion is no circle between files (tests/layers). */
typedef struct pt_ps_ops {
	pt_token *(*peek)(pt_parser *ps);
	pt_token *(*next)(pt_parser *ps);
	bool (*at)(pt_parser *ps, pt_tok_kind k);
	bool (*at_kw)(pt_parser *ps, const char *kw);
	bool (*accept)(pt_parser *ps, pt_tok_kind k);
	bool (*expect)(pt_parser *ps, pt_tok_kind k, const char *hint);
	void (*syntax_error)(pt_parser *ps, const char *hint, const char *what);
	void (*verror)(pt_parser *ps, pt_loc loc, const char *hint, const char *fmt, va_list ap);
	bool (*expect_ident)(pt_parser *ps, char *buf, size_t n, const char *what, pt_loc *loc);
	bool (*family_suffix)(pt_parser *ps, char *name, size_t n);
	pt_loc (*prev_loc)(pt_parser *ps);
	pt_expr *(*parse_expr)(pt_parser *ps);
	bool (*parse_const)(pt_parser *ps, bool want_int, bool *is_int, int64_t *iv, double *fv);
	bool (*const_eval)(const pt_expr *e, bool *is_int, int64_t *iv, double *fv);
	bool (*parse_block_body)(pt_parser *ps, bool braced);
	bool (*skip_block)(pt_parser *ps);
	bool (*push_const)(pt_parser *ps, const char *name, bool is_int, int64_t iv, double fv, pt_loc loc);
	void (*pop_consts)(pt_parser *ps, int n);
	named_value *(*find_const)(pt_parser *ps, const char *name);
	named_expr *(*find_cond)(pt_parser *ps, const char *name);
	bool (*define_cond)(pt_parser *ps, const char *name, pt_expr *expr);
	bool (*expand_ok)(pt_parser *ps, int64_t n, pt_loc loc);
	bool (*nodes_ok)(pt_parser *ps, long n, pt_loc loc);
	bool (*depth_ok)(pt_parser *ps, int depth, pt_loc loc);
} pt_ps_ops;

static inline pt_token *pt_ps_peek(pt_parser *ps) { return ps->ops->peek(ps); }
static inline pt_token *pt_ps_next(pt_parser *ps) { return ps->ops->next(ps); }
static inline bool pt_ps_at(pt_parser *ps, pt_tok_kind k) { return ps->ops->at(ps, k); }
static inline bool pt_ps_at_kw(pt_parser *ps, const char *kw) { return ps->ops->at_kw(ps, kw); }
static inline bool pt_ps_accept(pt_parser *ps, pt_tok_kind k) { return ps->ops->accept(ps, k); }
static inline bool pt_ps_expect(pt_parser *ps, pt_tok_kind k, const char *hint)
{
	return ps->ops->expect(ps, k, hint);
}
static inline void pt_ps_syntax_error(pt_parser *ps, const char *hint, const char *what)
{
	ps->ops->syntax_error(ps, hint, what);
}
/* Reports an error at loc (and fails the parse). */
static inline void pt_ps_error(pt_parser *ps, pt_loc loc, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static inline void pt_ps_error(pt_parser *ps, pt_loc loc, const char *hint, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ps->ops->verror(ps, loc, hint, fmt, ap);
	va_end(ap);
}
static inline bool pt_ps_expect_ident(pt_parser *ps, char *buf, size_t n, const char *what, pt_loc *loc)
{
	return ps->ops->expect_ident(ps, buf, n, what, loc);
}
static inline bool pt_ps_family_suffix(pt_parser *ps, char *name, size_t n)
{
	return ps->ops->family_suffix(ps, name, n);
}
/* a widened to the end of b when both are on one line. */
static inline pt_loc pt_ps_span(pt_loc a, pt_loc b)
{
	if (a.src == b.src && a.line == b.line && b.col >= a.col)
		a.len = b.col + b.len - a.col;
	return a;
}
static inline pt_loc pt_ps_prev_loc(pt_parser *ps) { return ps->ops->prev_loc(ps); }
static inline pt_expr *pt_ps_parse_expr(pt_parser *ps) { return ps->ops->parse_expr(ps); }
static inline bool pt_ps_parse_const(pt_parser *ps, bool want_int, bool *is_int, int64_t *iv, double *fv)
{
	return ps->ops->parse_const(ps, want_int, is_int, iv, fv);
}
static inline bool pt_ps_const_eval(const pt_parser *ps, const pt_expr *e, bool *is_int, int64_t *iv, double *fv)
{
	return ps->ops->const_eval(e, is_int, iv, fv);
}
static inline bool pt_ps_parse_block_body(pt_parser *ps, bool braced)
{
	return ps->ops->parse_block_body(ps, braced);
}
static inline bool pt_ps_skip_block(pt_parser *ps) { return ps->ops->skip_block(ps); }
static inline bool pt_ps_push_const(pt_parser *ps, const char *name, bool is_int, int64_t iv, double fv,
	pt_loc loc)
{
	return ps->ops->push_const(ps, name, is_int, iv, fv, loc);
}
static inline void pt_ps_pop_consts(pt_parser *ps, int n) { ps->ops->pop_consts(ps, n); }
static inline named_value *pt_ps_find_const(pt_parser *ps, const char *name)
{
	return ps->ops->find_const(ps, name);
}
static inline named_expr *pt_ps_find_cond(pt_parser *ps, const char *name)
{
	return ps->ops->find_cond(ps, name);
}
/* pt_parser_define_cond (parser.h). */
static inline bool pt_ps_define_cond(pt_parser *ps, const char *name, pt_expr *expr)
{
	return ps->ops->define_cond(ps, name, expr);
}
/* Whether n more loop iterations or template uses fit the file's budget
 * (reported at loc if not). */
static inline bool pt_ps_expand_ok(pt_parser *ps, int64_t n, pt_loc loc) { return ps->ops->expand_ok(ps, n, loc); }
/* Counts n nodes into the expression being read (refused past the limit). */
static inline bool pt_ps_nodes_ok(pt_parser *ps, long n, pt_loc loc) { return ps->ops->nodes_ok(ps, n, loc); }
static inline bool pt_ps_depth_ok(pt_parser *ps, int depth, pt_loc loc)
{
	return ps->ops->depth_ok(ps, depth, loc);
}
/* t's text into buf (cut to n - 1 bytes). */
static inline void pt_ps_tok_text(const pt_token *t, char *buf, size_t n)
{
	size_t l = (size_t)t->len < n - 1 ? (size_t)t->len : n - 1;
	memcpy(buf, t->start, l);
	buf[l] = 0;
}
static inline bool pt_ps_is_keyword(const pt_token *t) { return pt_name_is_keyword(t->start, (size_t)t->len); }

/* ---- templates.c ---- */
/* template = "template" NAME "(" tparam ("," tparam)* ")" "{" decl* "}" */
bool pt_tmpl_define(pt_parser *ps);
/* The template named by the token at the cursor, or NULL. */
struct pt_template *pt_tmpl_find(pt_parser *ps, const pt_token *t);
/* use = NAME "(" args ")": reads the template's body again with its
 * parameters bound; the cursor is on NAME. */
bool pt_tmpl_use(pt_parser *ps, struct pt_template *t);
/* The name a declaration or call inside a use means: base (as written,
 * no family index) replaced by a stage argument or made local to the
 * use, with the family index suffix ("[1,2]" or "") merged in; into out. */
void pt_tmpl_resolve_name(pt_parser *ps, const char *base, const char *suffix, char *out, size_t n);
/* Shadowing rule of a use: whether an existing cond or var entry at
 * index i may be replaced (false: append a new one). */
bool pt_tmpl_may_replace(const pt_parser *ps, bool var, int i);
/* Drops conds and vars a use's body declared, down to the given counts. */
void pt_tmpl_pop_scope(pt_parser *ps, int nconds, int nvars);
void pt_tmpl_free_all(pt_parser *ps);

/* ---- lets.c: parameterized lets ---- */
/* let = "let" NAME "(" NAME ("," NAME)* ")" "=" expr; the cursor is on '('. */
bool pt_let_define(pt_parser *ps, const char *name, pt_loc loc);
/* A use name(args) of parameterized let c; '(' is read.  The body with
 * the arguments put in for the parameters. */
pt_expr *pt_let_apply(pt_parser *ps, named_expr *c, pt_loc loc);

/* ---- tables.c ---- */
/* table = "table" NAME dims ":" type "=" matrix */
bool pt_table_define(pt_parser *ps);
/* A read of a table: its entry (a literal of the table's type) when every
 * index is constant, else the call, and the table becomes a stage.
 * Takes call; NULL after an error. */
pt_expr *pt_table_read(pt_parser *ps, pt_expr *call);
/* Makes the stages of the tables read at computed indices. */
bool pt_table_finish(pt_parser *ps);
void pt_table_free_all(pt_parser *ps);

/* ---- windows.c ---- */
/* Whether the cursor, just after "sum(" "min(" or "max(", is on "NAME :". */
bool pt_window_at(pt_parser *ps);
/* window = ("sum" | "min" | "max") "(" NAME ":" const ".." const "," expr ")",
 * unrolled: the expression once per value; '(' is read, the cursor on NAME. */
pt_expr *pt_window_parse(pt_parser *ps, const char *op, pt_loc loc);

/* ---- tuple.c ---- */
/* A tuple reduction's type "(" type ("," type)+ ")" at the cursor, for
 * s (its result dimensions read): its components, its type, and the slot
 * dimension appended to its result's. */
bool pt_tuple_types(pt_parser *ps, pt_stage *s);
/* The rest of a tuple reduction after its reduction dimensions:
 * ("init" "(" expr ("," expr)* ")")? update+, desugared (tuple.c). */
bool pt_tuple_reduce(pt_parser *ps, pt_stage *s);
/* A call just read (taken): with a component ".j" after it, a read of
 * component j (a call of its function); a tuple named without one is an
 * error.  NULL after an error. */
pt_expr *pt_tuple_read(pt_parser *ps, pt_expr *call);

#endif
