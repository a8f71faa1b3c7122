/* tables.c: table literals, `table w(u : -2 .. 2) : int = [1, 4, 6, 4, 1]`
 * (docs/language.md, section 18).  A read at constant indices is the
 * entry itself, a literal of the table's type, so filter weights cost
 * nothing and fold into the expression that uses them; a read at a
 * computed index makes the table a stage (once, when the parse ends),
 * whose value is a balanced tree of selects over its entries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "parser_priv.h"
#include "values.h"

/* The most entries a table holds. */
#define MAX_TABLE 4096

struct pt_table {
	char *name;
	pt_loc loc;
	int type;
	int ndim;
	char *vars[PT_MAX_DIMS];
	int64_t lo[PT_MAX_DIMS], n[PT_MAX_DIMS];
	pt_val *v;              /* row-major, converted to type */
	int count;
	bool needed, made;      /* read at a computed index; its stage made */
};

static void table_free(struct pt_table *t)
{
	if (!t)
		return;
	free(t->name);
	for (int i = 0; i < t->ndim; i++)
		free(t->vars[i]);
	free(t->v);
	free(t);
}

void pt_table_free_all(pt_parser *ps)
{
	for (int i = 0; i < ps->ntables; i++)
		table_free(ps->tables[i]);
	free(ps->tables);
	ps->tables = NULL;
	ps->ntables = 0;
}

static struct pt_table *table_lookup(pt_parser *ps, const char *name)
{
	for (int i = 0; i < ps->ntables; i++)
		if (!strcmp(ps->tables[i]->name, name))
			return ps->tables[i];
	return NULL;
}

/* dims = "(" NAME (":" const ".." const)? ("," ...)* ")"; a dimension
 * without bounds is 0 .. n-1 (n from the entries: lo[d] = 0, n[d] = -1). */
static bool table_dims(pt_parser *ps, struct pt_table *t)
{
	if (!pt_ps_expect(ps, PT_T_LPAREN, "write table w(u : -1 .. 1) : float = [1, 2, 1]"))
		return false;
	do {
		char name[MAX_NAME];
		pt_loc loc;
		if (!pt_ps_expect_ident(ps, name, sizeof(name), "a variable name", &loc))
			return false;
		if (t->ndim == PT_MAX_DIMS) {
			pt_ps_error(ps, loc, "use fewer dimensions", "a table has at most %d dimensions", PT_MAX_DIMS);
			return false;
		}
		int d = t->ndim;
		if (!(t->vars[d] = pt_mem_strdup(name)))
			return !(ps->failed = true);
		t->ndim++;
		t->lo[d] = 0;
		t->n[d] = -1;
		if (pt_ps_accept(ps, PT_T_COLON)) {
			bool is_int;
			int64_t hi;
			double f;
			pt_loc rl = pt_ps_peek(ps)->loc;
			if (!pt_ps_parse_const(ps, true, &is_int, &t->lo[d], &f) ||
			    !pt_ps_expect(ps, PT_T_DOTDOT, "a table's bounds are constants: u : -1 .. 1") ||
			    !pt_ps_parse_const(ps, true, &is_int, &hi, &f))
				return false;
			if (hi < t->lo[d] || hi - t->lo[d] >= MAX_TABLE) {
				pt_ps_error(ps, pt_ps_span(rl, pt_ps_prev_loc(ps)), "give 1 to 4096 entries per dimension",
					"table dimension '%s' has %lld entries", name, (long long)(hi - t->lo[d] + 1));
				return false;
			}
			t->n[d] = hi - t->lo[d] + 1;
		}
	} while (pt_ps_accept(ps, PT_T_COMMA));
	return pt_ps_expect(ps, PT_T_RPAREN, "close the variable list with ')'");
}

/* entries = "[" (entries | const) ("," ...)* "]" for dimension d, each
 * entry converted to the table's type as a stage stores its value. */
static bool parse_entries(pt_parser *ps, struct pt_table *t, int d)
{
	pt_loc open = pt_ps_peek(ps)->loc;
	if (!pt_ps_expect(ps, PT_T_LBRACK, "a table's entries are bracketed: [1, 2, 1] or [[1, 2], [3, 4]]"))
		return false;
	int64_t k = 0;
	do {
		if (d + 1 < t->ndim) {
			if (!parse_entries(ps, t, d + 1))
				return false;
		} else {
			bool is_int;
			int64_t iv;
			double fv;
			if (pt_ps_at(ps, PT_T_LBRACK)) {
				pt_ps_syntax_error(ps, "nest the brackets as deep as the table has dimensions",
					"an entry");
				return false;
			}
			if (!pt_ps_parse_const(ps, false, &is_int, &iv, &fv))
				return false;
			if (t->count == MAX_TABLE) {
				pt_ps_error(ps, open, "a table is small; read bigger data from an image",
					"table '%s' has more than %d entries", t->name, MAX_TABLE);
				return false;
			}
			pt_val v = is_int ? (pt_val){.i = iv} : (pt_val){.f = fv};
			t->v[t->count++] = pt_val_convert(v, is_int ? PT_I64 : PT_F64, t->type);
		}
		k++;
	} while (pt_ps_accept(ps, PT_T_COMMA));
	if (!pt_ps_expect(ps, PT_T_RBRACK, "close the entries with ']'"))
		return false;
	if (t->n[d] < 0)
		t->n[d] = k;
	if (t->n[d] != k) {
		pt_ps_error(ps, pt_ps_span(open, pt_ps_prev_loc(ps)),
			"give one entry per point of the table's domain",
			"table '%s' has %lld entries along '%s', not %lld", t->name, (long long)t->n[d],
			t->vars[d], (long long)k);
		return false;
	}
	return true;
}

bool pt_table_define(pt_parser *ps)
{
	char name[MAX_NAME];
	pt_loc loc;
	if (!pt_ps_expect_ident(ps, name, sizeof(name), "a table name", &loc))
		return false;
	if (ps->use) {
		char out[MAX_NAME];
		pt_tmpl_resolve_name(ps, name, "", out, sizeof(out));
		snprintf(name, sizeof(name), "%s", out);
	}
	struct pt_table *old = table_lookup(ps, name);
	if (old) {
		pt_ps_error(ps, loc, "rename one of them", "'%s' is already defined", name);
		pt_note_at(ps->d, old->loc, "'%s' was defined here", name);
		return false;
	}
	if (!pt_pipeline_check_name(ps->d, ps->p, name, loc))
		return !(ps->failed = true);
	struct pt_table *t = pt_mem_calloc(1, sizeof(*t));
	if (!t || !(t->name = pt_mem_strdup(name)) || !(t->v = pt_mem_calloc(MAX_TABLE, sizeof(pt_val)))) {
		table_free(t);
		return !(ps->failed = true);
	}
	t->loc = loc;
	bool ok = table_dims(ps, t) && pt_ps_expect(ps, PT_T_COLON, "give the type: table w(u) : float = [...]");
	if (ok) {
		char ty[MAX_NAME];
		pt_ps_tok_text(pt_ps_peek(ps), ty, sizeof(ty));
		t->type = pt_ps_at(ps, PT_T_IDENT) ? pt_type_lookup(ty) : -1;
		if (t->type < 0 || t->type == PT_BOOL) {
			pt_ps_error(ps, pt_ps_peek(ps)->loc, "types are u8 u16 u32 i8 i16 i32 i64 f32 f64 (or int, float, ...)",
				"expected a table's element type");
			ok = false;
		} else {
			pt_ps_next(ps);
		}
	}
	ok = ok && pt_ps_expect(ps, PT_T_ASSIGN, "write table w(u) : float = [1, 2, 1]") &&
		parse_entries(ps, t, 0);
	struct pt_table **v = ok ? pt_mem_realloc(ps->tables, sizeof(*v) * (size_t)(ps->ntables + 1)) : NULL;
	if (!v) {
		table_free(t);
		return ok ? !(ps->failed = true) : false;
	}
	ps->tables = v;
	v[ps->ntables++] = t;
	return true;
}

/* Entry k of t as a literal of t's type: an integer literal (converted
 * unless the type is i32) or a float literal typed f32 or f64 (the
 * checker keeps a literal the parser typed f64). */
static pt_expr *entry(const struct pt_table *t, int64_t k, pt_loc loc)
{
	pt_val v = t->v[k];
	if (pt_type_is_float(t->type)) {
		pt_expr *e = pt_expr_float(v.f, loc);
		if (e)
			e->type = t->type;
		return e;
	}
	pt_expr *e = pt_expr_int(v.i, loc);
	if (t->type == PT_I32 || !e)
		return e;
	pt_expr *c = pt_expr_new(PT_E_CAST, loc);
	if (c)
		c->type = t->type;
	return pt_expr_with_args(c, 1, e, NULL, NULL);
}

pt_expr *pt_table_read(pt_parser *ps, pt_expr *call)
{
	struct pt_table *t = call ? table_lookup(ps, call->name) : NULL;
	if (!t)
		return call;
	if (call->nargs != t->ndim) {
		pt_ps_error(ps, call->loc, "give one index per dimension of the table",
			"table '%s' has %d dimension%s, not %d", t->name, t->ndim, t->ndim == 1 ? "" : "s", call->nargs);
		pt_note_at(ps->d, t->loc, "'%s' is defined here", t->name);
		return pt_expr_free(call);
	}
	int64_t k = 0;
	for (int d = 0; d < t->ndim; d++) {
		bool is_int;
		int64_t iv;
		double fv;
		if (!pt_ps_const_eval(ps, call->args[d], &is_int, &iv, &fv) || !is_int) {
			t->needed = true;       /* a computed index: the table is a stage */
			return call;
		}
		if (iv < t->lo[d] || iv - t->lo[d] >= t->n[d]) {
			pt_ps_error(ps, call->args[d]->loc, "read the table inside its bounds",
				"index %d of table '%s' is %lld, outside %lld .. %lld", d + 1, t->name, (long long)iv,
				(long long)t->lo[d], (long long)(t->lo[d] + t->n[d] - 1));
			pt_note_at(ps->d, t->loc, "'%s' is defined here", t->name);
			return pt_expr_free(call);
		}
		k = k * t->n[d] + (iv - t->lo[d]);
	}
	pt_loc loc = call->loc;
	pt_expr_free(call);
	pt_expr *e = entry(t, k, loc);
	if (!e)
		ps->failed = true;
	ps->edepth = e && e->kind == PT_E_CAST ? 2 : 1;
	return e;
}

/* The value of t over entries [a, b] of dimension d (base: the flat
 * index of the first entry of this row): selects splitting the range in
 * halves, so its depth grows as the log of the size. */
static pt_expr *tree(const struct pt_table *t, int d, int64_t a, int64_t b, int64_t base)
{
	if (a == b) {
		int64_t k = base + a;
		if (d + 1 == t->ndim)
			return entry(t, k, t->loc);
		return tree(t, d + 1, 0, t->n[d + 1] - 1, k * t->n[d + 1]);
	}
	int64_t mid = a + (b - a) / 2;
	pt_expr *v = pt_expr_new(PT_E_NAME, t->loc);
	if (v && !(v->name = pt_mem_strdup(t->vars[d])))
		v = pt_expr_free(v);
	pt_expr *c = pt_expr_binary(PT_OP_LE, v, pt_expr_int(t->lo[d] + mid, t->loc), t->loc);
	pt_expr *s = pt_expr_new(PT_E_SELECT, t->loc);
	return pt_expr_with_args(s, 3, c, tree(t, d, a, mid, base), tree(t, d, mid + 1, b, base));
}

/* Declares t as a stage over its bounds. */
static bool make_stage(pt_parser *ps, struct pt_table *t)
{
	pt_stage *s = pt_pipeline_declare_stage(ps->d, ps->p, t->name, t->loc);
	if (!s)
		return false;
	for (int d = 0; d < t->ndim; d++) {
		pt_interval iv = {pt_expr_int(t->lo[d], t->loc), pt_expr_int(t->lo[d] + t->n[d] - 1, t->loc), 1};
		if (!iv.lo || !iv.hi) {
			pt_expr_free(iv.lo);
			pt_expr_free(iv.hi);
			return false;
		}
		if (!pt_stage_add_var(ps->d, s, t->vars[d], iv, false, t->loc))
			return false;
	}
	pt_expr *v = tree(t, 0, 0, t->n[0] - 1, 0);
	return v && pt_stage_set_type(ps->d, s, t->type, t->loc) &&
		pt_stage_add_case(ps->d, s, NULL, v, t->loc);
}

bool pt_table_finish(pt_parser *ps)
{
	for (int i = 0; i < ps->ntables; i++) {
		struct pt_table *t = ps->tables[i];
		if (!t->needed || t->made)
			continue;
		t->made = true;
		if (!make_stage(ps, t))
			return !(ps->failed = true);
	}
	return !ps->failed;
}
