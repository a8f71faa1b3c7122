/* templates.c: stage templates (docs/language.md, section 18).
 *
 * A template keeps its body's tokens; each use reads them again, as a
 * `for` loop reads its body, with the parameters bound: a const as a
 * constant, a param or let as a named expression, a stage parameter by
 * renaming (a name of the body that is a stage parameter means the
 * argument; one the body declares with `func`, `reduce` or `table` is
 * local to the use and named "PREFIX.name", PREFIX being the use's first
 * stage argument).  The copied tokens' locations point at the use
 * (pt_inst), so every error found in the body, by any later pass too,
 * names both the body's text and the use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "parser_priv.h"

typedef enum tparam_kind { TP_FUNC, TP_CONST, TP_PARAM, TP_LET } tparam_kind;

static const char *const kind_names[] = {"func", "const", "param", "let"};

typedef struct tparam {
	char *name;
	tparam_kind kind;
	pt_loc loc;
} tparam;

struct pt_template {
	char *name;
	pt_loc loc;
	tparam *params;
	int nparams;
	char **locals;          /* names the body declares stages under */
	int nlocals;
	bool *declares;         /* per parameter: the body declares that stage */
	pt_token *body;         /* the body's tokens, then an EOF at its '}' */
	int nbody;
};

/* An argument, read before any is bound (the caller's names stay in view). */
typedef struct targ {
	char *stage;            /* func: the stage or image name */
	bool is_int;            /* const: its value */
	int64_t iv;
	double fv;
	pt_expr *expr;          /* param, let: the expression */
} targ;

/* One use being read. */
struct pt_use {
	struct pt_template *t;
	targ *arg;              /* one per parameter */
	char prefix[MAX_NAME];  /* of the use's local stages */
	struct pt_use *outer;
};

static void template_free(struct pt_template *t)
{
	if (!t)
		return;
	free(t->name);
	for (int i = 0; i < t->nparams; i++)
		free(t->params[i].name);
	free(t->params);
	for (int i = 0; i < t->nlocals; i++)
		free(t->locals[i]);
	free(t->locals);
	free(t->declares);
	free(t->body);
	free(t);
}

void pt_tmpl_free_all(pt_parser *ps)
{
	for (int i = 0; i < ps->ntemplates; i++)
		template_free(ps->templates[i]);
	free(ps->templates);
	ps->templates = NULL;
	ps->ntemplates = 0;
}

static struct pt_template *lookup(pt_parser *ps, const char *name)
{
	for (int i = 0; i < ps->ntemplates; i++)
		if (!strcmp(ps->templates[i]->name, name))
			return ps->templates[i];
	return NULL;
}

static int param_index(const struct pt_template *t, const char *name)
{
	for (int i = 0; i < t->nparams; i++)
		if (!strcmp(t->params[i].name, name))
			return i;
	return -1;
}

static bool add_name(char ***v, int *n, const char *name)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp((*v)[i], name))
			return true;
	char **nv = pt_mem_realloc(*v, sizeof(char *) * (size_t)(*n + 1));
	if (!nv)
		return false;
	*v = nv;
	return ((*v)[*n] = pt_mem_strdup(name)) && ++*n;
}

/* tparam = ("func" | "const" | "param" | "let") NAME */
static bool parse_tparam(pt_parser *ps, struct pt_template *t)
{
	int kind = -1;
	for (int k = 0; k < 4; k++)
		if (pt_ps_at_kw(ps, kind_names[k]))
			kind = k;
	if (kind < 0) {
		pt_ps_syntax_error(ps, "a template parameter is `func f` (a stage or image), `const n`, "
			"`param p` or `let e` (an expression)", "'func', 'const', 'param' or 'let'");
		return false;
	}
	pt_ps_next(ps);
	char name[MAX_NAME];
	pt_loc loc;
	if (!pt_ps_expect_ident(ps, name, sizeof(name), "a parameter name", &loc))
		return false;
	int prev = param_index(t, name);
	if (prev >= 0) {
		pt_ps_error(ps, loc, "give each parameter its own name",
			"template '%s' has two parameters named '%s'", t->name, name);
		return false;
	}
	tparam *v = pt_mem_realloc(t->params, sizeof(*v) * (size_t)(t->nparams + 1));
	if (!v)
		return !(ps->failed = true);
	t->params = v;
	if (!(v[t->nparams].name = pt_mem_strdup(name)))
		return !(ps->failed = true);
	v[t->nparams].kind = (tparam_kind)kind;
	v[t->nparams].loc = loc;
	t->nparams++;
	return true;
}

/* Adds to t's locals the plain names given, in the body's use of
 * template u at token k (on u's name), for the stage parameters u's body
 * declares: those stages are the body's own too. */
static bool nested_locals(struct pt_template *t, const struct pt_template *u, int k)
{
	int arg = 0, level = 0;
	bool start = true;
	for (int i = k + 2; i < t->nbody - 1 && arg < u->nparams; i++) {
		const pt_token *a = &t->body[i];
		if (start && level == 0 && u->declares[arg] && a->kind == PT_T_IDENT && !pt_ps_is_keyword(a)) {
			char name[MAX_NAME];
			pt_ps_tok_text(a, name, sizeof(name));
			if (param_index(t, name) < 0 && !add_name(&t->locals, &t->nlocals, name))
				return false;
		}
		start = false;
		if (a->kind == PT_T_LPAREN || a->kind == PT_T_LBRACK)
			level++;
		else if ((a->kind == PT_T_RPAREN || a->kind == PT_T_RBRACK) && level-- == 0)
			break;
		else if (a->kind == PT_T_COMMA && level == 0) {
			arg++;
			start = true;
		}
	}
	return true;
}

/* Keeps the body's tokens (between the braces; the cursor on '{') and
 * the names it declares stages under. */
static bool keep_body(pt_parser *ps, struct pt_template *t)
{
	int open = ps->pos;
	if (!pt_ps_skip_block(ps))
		return false;
	int close = ps->pos - 1;
	t->nbody = close - open;        /* the tokens inside, then an EOF */
	t->declares = pt_mem_calloc((size_t)t->nparams + 1, sizeof(bool));
	if (!t->declares || !(t->body = pt_mem_calloc((size_t)t->nbody, sizeof(pt_token))))
		return !(ps->failed = true);
	memcpy(t->body, &ps->toks[open + 1], sizeof(pt_token) * (size_t)(t->nbody - 1));
	t->body[t->nbody - 1] = ps->toks[close];
	t->body[t->nbody - 1].kind = PT_T_EOF;
	for (int i = 0; i + 1 < t->nbody - 1; i++) {
		const pt_token *k = &t->body[i], *n = &t->body[i + 1];
		if (k->kind != PT_T_IDENT || n->kind != PT_T_IDENT || pt_ps_is_keyword(n) ||
		    !(pt_tok_is(k, "func") || pt_tok_is(k, "reduce") || pt_tok_is(k, "table")))
			continue;
		char name[MAX_NAME];
		pt_ps_tok_text(n, name, sizeof(name));
		int p = param_index(t, name);
		if (p >= 0)
			t->declares[p] = true;
		else if (!add_name(&t->locals, &t->nlocals, name))
			return !(ps->failed = true);
	}
	for (int i = 0; i + 1 < t->nbody - 1; i++) {
		char name[MAX_NAME];
		pt_ps_tok_text(&t->body[i], name, sizeof(name));
		const struct pt_template *u = t->body[i].kind == PT_T_IDENT ? lookup(ps, name) : NULL;
		if (u && t->body[i + 1].kind == PT_T_LPAREN && !nested_locals(t, u, i))
			return !(ps->failed = true);
	}
	return true;
}

bool pt_tmpl_define(pt_parser *ps)
{
	pt_loc kw = pt_ps_prev_loc(ps);
	if (ps->use || ps->depth > 1) {
		pt_ps_error(ps, kw, "define templates at the top level of the file",
			"a template cannot be defined inside a block or another template");
		return false;
	}
	char name[MAX_NAME];
	pt_loc loc;
	if (!pt_ps_expect_ident(ps, name, sizeof(name), "a template name", &loc))
		return false;
	struct pt_template *old = lookup(ps, name);
	if (old) {
		pt_ps_error(ps, loc, "rename one of them", "template '%s' is already defined", name);
		pt_note_at(ps->d, old->loc, "'%s' was defined here", name);
		return false;
	}
	struct pt_template *t = pt_mem_calloc(1, sizeof(*t));
	if (!t || !(t->name = pt_mem_strdup(name))) {
		free(t);
		return !(ps->failed = true);
	}
	t->loc = loc;
	bool ok = pt_ps_expect(ps, PT_T_LPAREN, "write template NAME(func out, func in, const k) { ... }");
	if (ok && !pt_ps_accept(ps, PT_T_RPAREN)) {
		do
			ok = parse_tparam(ps, t);
		while (ok && pt_ps_accept(ps, PT_T_COMMA));
		ok = ok && pt_ps_expect(ps, PT_T_RPAREN, "close the parameter list with ')'");
	}
	if (ok && !pt_ps_at(ps, PT_T_LBRACE)) {
		pt_ps_syntax_error(ps, "the body is a block: template NAME(...) { decls }", "'{'");
		ok = false;
	}
	ok = ok && keep_body(ps, t);
	struct pt_template **v = ok ? pt_mem_realloc(ps->templates, sizeof(*v) * (size_t)(ps->ntemplates + 1)) : NULL;
	if (!v) {
		template_free(t);
		return ok ? !(ps->failed = true) : false;
	}
	ps->templates = v;
	v[ps->ntemplates++] = t;
	return true;
}

struct pt_template *pt_tmpl_find(pt_parser *ps, const pt_token *t)
{
	if (t->kind != PT_T_IDENT || pt_ps_is_keyword(t))
		return NULL;
	char name[MAX_NAME];
	pt_ps_tok_text(t, name, sizeof(name));
	struct pt_template *tm = lookup(ps, name);
	if (tm || ps->toks[ps->pos + 1 < ps->ntoks ? ps->pos + 1 : ps->pos].kind != PT_T_LPAREN)
		return tm;
	/* NAME( where a declaration starts: a template that does not exist */
	const char *best = NULL;
	int bd = 3;
	for (int i = 0; i < ps->ntemplates; i++) {
		int dist = pt_edit_distance(name, ps->templates[i]->name);
		if (dist < bd) {
			bd = dist;
			best = ps->templates[i]->name;
		}
	}
	char hint[MAX_NAME + 80];
	if (best)
		snprintf(hint, sizeof(hint), "did you mean '%s'?", best);
	else
		snprintf(hint, sizeof(hint), "define it first: template %s(...) { ... }", name);
	pt_ps_error(ps, t->loc, hint, "no template named '%s'", name);
	return NULL;
}

/* Reports an argument that does not fit its parameter. */
static bool bad_arg(pt_parser *ps, const struct pt_template *t, int i, pt_loc at, const char *hint,
	const char *what)
{
	pt_ps_error(ps, at, hint, "argument %d of template '%s' (%s %s) must be %s", i + 1, t->name,
		kind_names[t->params[i].kind], t->params[i].name, what);
	pt_note_at(ps->d, t->params[i].loc, "'%s' is declared here", t->params[i].name);
	return false;
}

/* A stage argument: a stage or image name, family index included. */
static bool stage_arg(pt_parser *ps, const struct pt_template *t, int i, struct pt_use *u)
{
	pt_token *k = pt_ps_peek(ps);
	pt_loc at = k->loc;
	const char *hint = "give the name of a stage or image, like G or G[l-1]";
	if (k->kind != PT_T_IDENT || pt_ps_is_keyword(k))
		return bad_arg(ps, t, i, at, hint, "a stage or image name");
	char name[MAX_NAME];
	pt_ps_tok_text(k, name, sizeof(name));
	pt_ps_next(ps);
	size_t base = strlen(name);
	if (!pt_ps_family_suffix(ps, name, sizeof(name)))
		return false;
	at = pt_ps_span(at, pt_ps_prev_loc(ps));
	if (!pt_ps_at(ps, PT_T_COMMA) && !pt_ps_at(ps, PT_T_RPAREN))
		return bad_arg(ps, t, i, pt_ps_span(at, pt_ps_peek(ps)->loc), hint, "a stage or image name");
	char b[MAX_NAME], out[MAX_NAME];
	snprintf(b, sizeof(b), "%.*s", (int)base, name);
	if (ps->use)
		pt_tmpl_resolve_name(ps, b, name + base, out, sizeof(out));
	else
		snprintf(out, sizeof(out), "%s", name);
	if (pt_ps_find_const(ps, out) || pt_ps_find_cond(ps, out) ||
	    pt_pipeline_find_param(ps->p, out) >= 0) {
		char what[MAX_NAME + 64];
		snprintf(what, sizeof(what), "a stage or image name, and '%s' is a %s", out,
			pt_ps_find_const(ps, out) ? "constant" : pt_ps_find_cond(ps, out) ? "cond or let" : "param");
		return bad_arg(ps, t, i, at, hint, what);
	}
	return (u->arg[i].stage = pt_mem_strdup(out)) || !(ps->failed = true);
}

/* A param argument: the name of a pipeline parameter. */
static bool param_arg(pt_parser *ps, const struct pt_template *t, int i, pt_loc at, targ *a)
{
	if (!(a->expr = pt_ps_parse_expr(ps)))
		return false;
	if (a->expr->kind == PT_E_NAME && pt_pipeline_find_param(ps->p, a->expr->name) >= 0)
		return true;
	return bad_arg(ps, t, i, pt_ps_span(at, pt_ps_prev_loc(ps)),
		"give a param's name, or make it `let` to pass an expression", "a param's name");
}

/* Reads argument i into u->arg[i]. */
static bool read_arg(pt_parser *ps, const struct pt_template *t, int i, struct pt_use *u)
{
	targ *a = &u->arg[i];
	pt_loc at = pt_ps_peek(ps)->loc;
	switch (t->params[i].kind) {
	case TP_FUNC:
		return stage_arg(ps, t, i, u);
	case TP_CONST: {
		if (pt_ps_parse_const(ps, false, &a->is_int, &a->iv, &a->fv))
			return true;
		pt_note_at(ps->d, t->params[i].loc, "'%s' is a const parameter of template '%s'",
			t->params[i].name, t->name);
		return false;
	}
	case TP_PARAM:
		return param_arg(ps, t, i, at, a);
	case TP_LET:
		return (a->expr = pt_ps_parse_expr(ps)) != NULL;
	}
	return false;
}

/* Binds the parameters other than stages as constants and conds. */
static bool bind_args(pt_parser *ps, const struct pt_template *t, struct pt_use *u)
{
	for (int i = 0; i < t->nparams; i++) {
		targ *a = &u->arg[i];
		const tparam *p = &t->params[i];
		if (p->kind == TP_CONST && !pt_ps_push_const(ps, p->name, a->is_int, a->iv, a->fv, p->loc))
			return false;
		if (a->expr && !pt_ps_define_cond(ps, p->name, a->expr)) {
			a->expr = NULL;         /* taken */
			return false;
		}
		a->expr = NULL;
	}
	return true;
}

/* Refuses a use inside a use of the same template (at loc). */
static bool not_recursive(pt_parser *ps, const struct pt_template *t, pt_loc loc)
{
	const struct pt_use *u = ps->use;
	while (u && u->t != t)
		u = u->outer;
	if (!u)
		return true;
	char chain[1024] = "";
	for (const struct pt_use *v = ps->use; v; v = v->outer) {
		char part[1024];
		snprintf(part, sizeof(part), "%s -> %s", v->t->name, chain[0] ? chain : t->name);
		snprintf(chain, sizeof(chain), "%s", part);
		if (v == u)
			break;
	}
	pt_ps_error(ps, loc, "a template cannot use itself, directly or through others; repeat with `for`",
		"template '%s' uses itself: %s", t->name, chain);
	pt_note_at(ps->d, t->loc, "'%s' is defined here", t->name);
	return false;
}

/* Reads the arguments "(" args ")" of a use of t, binding them. */
static bool read_args(pt_parser *ps, const struct pt_template *t, struct pt_use *u, pt_loc name)
{
	if (!pt_ps_expect(ps, PT_T_LPAREN, "a use is NAME(arguments)"))
		return false;
	int n = 0;
	if (!pt_ps_at(ps, PT_T_RPAREN)) {
		do {
			if (n == t->nparams) {
				pt_ps_error(ps, pt_ps_peek(ps)->loc, "remove the extra arguments",
					"template '%s' takes %d argument%s", t->name, t->nparams, t->nparams == 1 ? "" : "s");
				pt_note_at(ps->d, t->loc, "'%s' is defined here", t->name);
				return false;
			}
			if (!read_arg(ps, t, n++, u))
				return false;
		} while (pt_ps_accept(ps, PT_T_COMMA));
	}
	if (!pt_ps_expect(ps, PT_T_RPAREN, "close the arguments with ')'"))
		return false;
	if (n < t->nparams) {
		pt_ps_error(ps, pt_ps_span(name, pt_ps_prev_loc(ps)), "give one argument per parameter",
			"template '%s' takes %d argument%s, not %d (missing: %s)", t->name, t->nparams,
			t->nparams == 1 ? "" : "s", n, t->params[n].name);
		pt_note_at(ps->d, t->loc, "'%s' is defined here", t->name);
		return false;
	}
	return true;
}

/* Reads t's body once more, as the use u at loc. */
static bool read_body(pt_parser *ps, struct pt_template *t, struct pt_use *u, pt_loc loc)
{
	const pt_inst *inst = pt_diag_add_inst(ps->d, t->name, loc);
	pt_token *toks = inst ? pt_mem_calloc((size_t)t->nbody, sizeof(pt_token)) : NULL;
	if (!toks)
		return !(ps->failed = true);
	memcpy(toks, t->body, sizeof(pt_token) * (size_t)t->nbody);
	for (int i = 0; i < t->nbody; i++)
		toks[i].loc.inst = inst;
	pt_token *saved = ps->toks;
	int ntoks = ps->ntoks, pos = ps->pos;
	struct pt_use *outer = ps->use;
	ps->toks = toks;
	ps->ntoks = t->nbody;
	ps->pos = 0;
	ps->use = u;
	bool ok = pt_ps_parse_block_body(ps, false);
	ps->toks = saved;
	ps->ntoks = ntoks;
	ps->pos = pos;
	ps->use = outer;
	free(toks);
	return ok;
}

bool pt_tmpl_use(pt_parser *ps, struct pt_template *t)
{
	pt_loc name = pt_ps_next(ps)->loc;
	if (!not_recursive(ps, t, name) || !pt_ps_expand_ok(ps, 1, name))
		return false;
	struct pt_use u = {.t = t, .outer = ps->use};
	if (!(u.arg = pt_mem_calloc((size_t)t->nparams + 1, sizeof(targ))))
		return !(ps->failed = true);
	int consts = ps->nconsts, conds = ps->nconds, vars = ps->nvars;
	int cond_base = ps->cond_base, var_base = ps->var_base;
	bool ok = read_args(ps, t, &u, name) && bind_args(ps, t, &u);
	pt_loc loc = pt_ps_span(name, pt_ps_prev_loc(ps));
	if (ok) {
		snprintf(u.prefix, sizeof(u.prefix), "%s", t->name);
		for (int i = 0; i < t->nparams; i++)
			if (u.arg[i].stage) {
				snprintf(u.prefix, sizeof(u.prefix), "%s", u.arg[i].stage);
				break;
			}
		ps->cond_base = ps->nconds;
		ps->var_base = ps->nvars;
		ok = read_body(ps, t, &u, loc);
	}
	pt_ps_pop_consts(ps, consts);
	pt_tmpl_pop_scope(ps, conds, vars);
	ps->cond_base = cond_base;
	ps->var_base = var_base;
	for (int i = 0; i < t->nparams; i++) {
		free(u.arg[i].stage);
		pt_expr_free(u.arg[i].expr);
	}
	free(u.arg);
	return ok && !ps->failed;
}

void pt_tmpl_resolve_name(pt_parser *ps, const char *base, const char *suffix, char *out, size_t n)
{
	const struct pt_use *u = ps->use;
	int i = param_index(u->t, base);
	if (i >= 0 && u->arg[i].stage) {
		const char *a = u->arg[i].stage;
		size_t l = strlen(a);
		if (suffix[0] && l > 0 && a[l - 1] == ']')
			snprintf(out, n, "%.*s,%s", (int)(l - 1), a, suffix + 1);   /* G[1] + [2]: G[1,2] */
		else
			snprintf(out, n, "%s%s", a, suffix);
		return;
	}
	for (int k = 0; k < u->t->nlocals; k++)
		if (!strcmp(u->t->locals[k], base)) {
			snprintf(out, n, "%s.%s%s", u->prefix, base, suffix);
			return;
		}
	snprintf(out, n, "%s%s", base, suffix);
}

bool pt_tmpl_may_replace(const pt_parser *ps, bool var, int i)
{
	return i >= (var ? ps->var_base : ps->cond_base);
}

void pt_tmpl_pop_scope(pt_parser *ps, int nconds, int nvars)
{
	while (ps->nconds > nconds) {
		named_expr *c = &ps->conds[--ps->nconds];
		free(c->name);
		pt_expr_free(c->expr);
		for (int i = 0; i < c->nparams; i++)
			free(c->params[i]);
		free(c->params);
	}
	while (ps->nvars > nvars) {
		named_expr *v = &ps->vars[--ps->nvars];
		free(v->name);
		pt_expr_free(v->iv.lo);
		pt_expr_free(v->iv.hi);
	}
}
