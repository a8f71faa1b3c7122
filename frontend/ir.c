/* ir.c: construction, naming, printing and affine analysis of the IR. */
#include <assert.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "ir.h"

#define NAME_(n, s, ...) s,
static const char *const kind_names[] = { PT_EXPR_KINDS(NAME_) };
static const char *const unop_names[] = { PT_UNOPS(NAME_) };
static const char *const binop_names[] = { PT_BINOPS(NAME_) };
static const char *const intrin_names[] = { PT_INTRINSICS(NAME_) };
static const char *const redop_names[] = { PT_REDOPS(NAME_) };
#undef NAME_
#define ARITY_(n, s, a) a,
static const int intrin_arity[] = { PT_INTRINSICS(ARITY_) };
#undef ARITY_
#define TOK_(n, s, t) t,
static const char *const redop_tokens[] = { PT_REDOPS(TOK_) };
#undef TOK_

const char *pt_expr_kind_name(pt_expr_kind k) { return kind_names[k]; }
const char *pt_unop_name(int op) { return unop_names[op]; }
const char *pt_binop_name(int op) { return binop_names[op]; }
const char *pt_intrin_name(int in) { return intrin_names[in]; }
int pt_intrin_arity(int in) { return intrin_arity[in]; }
const char *pt_redop_name(int r) { return redop_names[r]; }
const char *pt_redop_token(int r) { return redop_tokens[r]; }

int pt_intrin_lookup(const char *name)
{
	for (int i = 0; i < PT_IN_COUNT; i++)
		if (!strcmp(name, intrin_names[i]))
			return i;
	return -1;
}

const char *pt_ir_type_name(int t)
{
	if (t == PT_BOOL)
		return "bool";
	if (t < 0 || t > PT_BOOL)
		return "?";
	return pt_type_name((pt_type)t);
}

int pt_type_lookup(const char *name)
{
	static const struct { const char *n; int t; } tab[] = {
		{"u8", PT_U8}, {"u16", PT_U16}, {"u32", PT_U32}, {"i8", PT_I8},
		{"i16", PT_I16}, {"i32", PT_I32}, {"i64", PT_I64}, {"f32", PT_F32},
		{"f64", PT_F64}, {"uchar", PT_U8}, {"ushort", PT_U16},
		{"uint", PT_U32}, {"char", PT_I8}, {"short", PT_I16},
		{"int", PT_I32}, {"long", PT_I64}, {"float", PT_F32},
		{"double", PT_F64}, {"bool", PT_BOOL},
	};
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(name, tab[i].n))
			return tab[i].t;
	return -1;
}

bool pt_type_is_float(int t) { return t == PT_F32 || t == PT_F64; }
bool pt_type_is_int(int t) { return t >= PT_U8 && t <= PT_I64; }
bool pt_type_is_signed(int t) { return t >= PT_I8 && t <= PT_F64; }

int pt_type_bits(int t)
{
	if (t == PT_BOOL)
		return 1;
	return (int)pt_type_size((pt_type)t) * 8;
}

void pt_type_range(int t, int64_t *lo, int64_t *hi)
{
	switch (t) {
	case PT_BOOL: *lo = 0; *hi = 1; break;
	case PT_U8: *lo = 0; *hi = UINT8_MAX; break;
	case PT_U16: *lo = 0; *hi = UINT16_MAX; break;
	case PT_U32: *lo = 0; *hi = UINT32_MAX; break;
	case PT_I8: *lo = INT8_MIN; *hi = INT8_MAX; break;
	case PT_I16: *lo = INT16_MIN; *hi = INT16_MAX; break;
	case PT_I32: *lo = INT32_MIN; *hi = INT32_MAX; break;
	default: *lo = INT64_MIN; *hi = INT64_MAX; break;
	}
}

bool pt_interval_eval(const pt_interval *iv, const int64_t *params, int64_t *lo, int64_t *hi)
{
	if (!pt_expr_eval_params(iv->lo, params, lo) || !pt_expr_eval_params(iv->hi, params, hi))
		return false;
	if (*hi >= *lo)
		*hi = *lo + (*hi - *lo) / iv->step * iv->step;
	return true;
}

double pt_stage_points(const struct pt_stage *s, const int64_t *params)
{
	double n = 1;
	for (int d = 0; d < s->ndim; d++) {
		int64_t lo, hi;
		n *= pt_interval_eval(&s->dom[d], params, &lo, &hi) && hi >= lo ? (double)(hi - lo + 1) : 1;
	}
	return n;
}

int64_t pt_floordiv(int64_t a, int64_t b)
{
	if (b == 0)
		return 0;
	if (b == -1)
		return (int64_t)(0 - (uint64_t)a);
	int64_t q = a / b;
	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

int64_t pt_floormod(int64_t a, int64_t b)
{
	if (b == 0 || b == -1)
		return 0;
	int64_t r = a % b;
	if (r != 0 && ((r < 0) != (b < 0)))
		r += b;
	return r;
}

pt_expr *pt_expr_new(pt_expr_kind kind, pt_loc loc)
{
	pt_expr *e = pt_mem_calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->kind = kind;
	e->loc = loc;
	e->type = PT_NO_TYPE;
	e->index = -1;
	return e;
}

pt_expr *pt_expr_int(int64_t v, pt_loc loc)
{
	pt_expr *e = pt_expr_new(PT_E_INT, loc);
	if (e)
		e->ival = v;
	return e;
}

pt_expr *pt_expr_float(double v, pt_loc loc)
{
	pt_expr *e = pt_expr_new(PT_E_FLOAT, loc);
	if (e)
		e->fval = v;
	return e;
}

/* The array grows to the next power of two when nargs reaches one, so
 * that 10^5 arguments cost no more than linear time (one realloc per
 * push was quadratic where realloc copies: 49 s under ASan).  Whoever
 * lowers nargs keeps a capacity above it, so the rule still holds. */
bool pt_expr_push_arg(pt_expr *e, pt_expr *arg)
{
	if (!e || !arg) {
		pt_expr_free(arg);
		return false;
	}
	int n = e->nargs;
	if ((n & (n - 1)) == 0) {
		pt_expr **v = pt_mem_realloc(e->args, sizeof(*v) * (size_t)(n ? 2 * n : 1));
		if (!v) {
			pt_expr_free(arg);
			return false;
		}
		e->args = v;
	}
	e->args[e->nargs++] = arg;
	return true;
}

pt_expr *pt_expr_with_args(pt_expr *e, int n, pt_expr *a, pt_expr *b, pt_expr *c)
{
	pt_expr *v[3] = { a, b, c };
	bool ok = e != NULL;
	for (int i = 0; i < 3; i++)
		if (ok && i < n)
			ok = pt_expr_push_arg(e, v[i]);
		else
			pt_expr_free(v[i]);
	return ok ? e : pt_expr_free(e);
}

pt_expr *pt_expr_binary(int op, pt_expr *a, pt_expr *b, pt_loc loc)
{
	pt_expr *e = pt_expr_new(PT_E_BINARY, loc);
	if (e)
		e->op = op;
	return pt_expr_with_args(e, 2, a, b, NULL);
}

pt_expr *pt_expr_unary(int op, pt_expr *a, pt_loc loc)
{
	pt_expr *e = pt_expr_new(PT_E_UNARY, loc);
	if (e)
		e->op = op;
	return pt_expr_with_args(e, 1, a, NULL, NULL);
}

pt_expr *pt_expr_copy(const pt_expr *e)
{
	if (!e)
		return NULL;
	pt_expr *c = pt_mem_alloc(sizeof(*c));
	if (!c)
		return NULL;
	*c = *e;
	c->args = NULL;
	c->nargs = 0;
	c->name = pt_mem_strdup(e->name);
	if (e->name && !c->name)
		return pt_expr_free(c);
	for (int i = 0; i < e->nargs; i++)
		if (!pt_expr_push_arg(c, pt_expr_copy(e->args[i])))
			return pt_expr_free(c);
	return c;
}

pt_expr *pt_expr_free(pt_expr *e)
{
	if (!e)
		return NULL;
	for (int i = 0; i < e->nargs; i++)
		pt_expr_free(e->args[i]);
	free(e->args);
	free(e->name);
	free(e);
	return NULL;
}

pt_pipeline *pt_pipeline_new(const char *name)
{
	pt_pipeline *p = pt_mem_calloc(1, sizeof(*p));
	if (p && !(p->name = pt_mem_strdup(name ? name : "pipeline")))
		p = pt_pipeline_free(p);
	return p;
}

pt_stage *pt_stage_new(const char *name, pt_loc loc)
{
	pt_stage *s = pt_mem_calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	if (!(s->name = pt_mem_strdup(name)))
		return pt_stage_free(s);
	s->loc = loc;
	s->type = PT_NO_TYPE;
	return s;
}

pt_stage *pt_stage_free(pt_stage *s)
{
	if (!s)
		return NULL;
	for (int i = 0; i < s->ndim + s->nrdim; i++)
		free(s->vars ? s->vars[i] : NULL);
	free(s->vars);
	/* dom and rdom may be missing from a copy cut short (out of memory) */
	for (int i = 0; s->dom && i < s->ndim; i++) {
		pt_expr_free(s->dom[i].lo);
		pt_expr_free(s->dom[i].hi);
	}
	for (int i = 0; s->rdom && i < s->nrdim; i++) {
		pt_expr_free(s->rdom[i].lo);
		pt_expr_free(s->rdom[i].hi);
	}
	free(s->dom);
	free(s->rdom);
	for (int i = 0; i < s->ncases; i++) {
		pt_expr_free(s->cases[i].cond);
		pt_expr_free(s->cases[i].value);
		pt_expr_free(s->cases[i].update);
		if (s->cases[i].target)
			for (int d = 0; d < s->ndim; d++)
				pt_expr_free(s->cases[i].target[d]);
		free(s->cases[i].target);
	}
	free(s->cases);
	pt_expr_free(s->init);
	free(s->name);
	free(s);
	return NULL;
}

static void image_free(pt_image *im)
{
	for (int d = 0; d < im->ndim; d++)
		pt_expr_free(im->extent[d]);
	free(im->extent);
	free(im->name);
	free(im);
}

pt_pipeline *pt_pipeline_free(pt_pipeline *p)
{
	if (!p)
		return NULL;
	for (int i = 0; i < p->nparams; i++)
		free(p->params[i].name);
	free(p->params);
	for (int i = 0; i < p->nimages; i++)
		image_free(p->images[i]);
	free(p->images);
	for (int i = 0; i < p->nstages; i++)
		pt_stage_free(p->stages[i]);
	free(p->stages);
	free(p->name);
	free(p);
	return NULL;
}

static pt_expr **copy_exprs(pt_expr *const *v, int n)
{
	if (!v)
		return NULL;
	pt_expr **c = pt_mem_calloc((size_t)n + 1, sizeof(*c));
	for (int i = 0; c && i < n; i++)
		if (v[i] && !(c[i] = pt_expr_copy(v[i]))) {
			while (i-- > 0)
				pt_expr_free(c[i]);
			free(c);
			return NULL;
		}
	return c;
}

/* A copy of v[0 .. n-1] into *out (NULL stays NULL); false when out of
 * memory, *out then holding what was copied (freed with its owner). */
static bool copy_intervals(pt_interval **out, const pt_interval *v, int n)
{
	*out = NULL;
	if (!v)
		return true;
	pt_interval *c = pt_mem_calloc((size_t)n + 1, sizeof(*c));
	if (!(*out = c))
		return false;
	for (int i = 0; i < n; i++) {
		c[i].step = v[i].step;
		if ((v[i].lo && !(c[i].lo = pt_expr_copy(v[i].lo))) || (v[i].hi && !(c[i].hi = pt_expr_copy(v[i].hi))))
			return false;
	}
	return true;
}

/* The variable names and cases of s into c (whose own are NULL). */
static bool copy_vars_cases(pt_stage *c, const pt_stage *s)
{
	if (s->vars) {
		if (!(c->vars = pt_mem_calloc((size_t)(s->ndim + s->nrdim) + 1, sizeof(char *))))
			return false;
		for (int i = 0; i < s->ndim + s->nrdim; i++)
			if (s->vars[i] && !(c->vars[i] = pt_mem_strdup(s->vars[i])))
				return false;
	}
	if (!(c->cases = pt_mem_calloc((size_t)s->ncases + 1, sizeof(pt_case))))
		return false;
	for (int i = 0; i < s->ncases; i++) {
		const pt_case *k = &s->cases[i];
		pt_case *t = &c->cases[i];
		*t = *k;
		t->cond = t->value = t->update = NULL;
		t->target = NULL;
		c->ncases = i + 1;
		if ((k->cond && !(t->cond = pt_expr_copy(k->cond))) || !(t->value = pt_expr_copy(k->value)) ||
		    (k->target && !(t->target = copy_exprs(k->target, s->ndim))) ||
		    (k->update && !(t->update = pt_expr_copy(k->update))))
			return false;
	}
	return true;
}

/* A deep copy of s; NULL when out of memory. */
static pt_stage *stage_copy(const pt_stage *s)
{
	pt_stage *c = pt_mem_alloc(sizeof(*c));
	if (!c)
		return NULL;
	*c = *s;
	/* nothing of s's is owned by c until copied */
	c->name = NULL;
	c->vars = NULL;
	c->dom = c->rdom = NULL;
	c->cases = NULL;
	c->ncases = 0;
	c->init = NULL;
	bool ok = (c->name = pt_mem_strdup(s->name)) && copy_vars_cases(c, s) &&
		copy_intervals(&c->dom, s->dom, s->ndim) && copy_intervals(&c->rdom, s->rdom, s->nrdim) &&
		(!s->init || (c->init = pt_expr_copy(s->init)));
	return ok ? c : pt_stage_free(c);
}

/* The stages and images of p and of its copy q, for remap_call. */
typedef struct remap {
	const pt_pipeline *p;
	pt_pipeline *q;
} remap;

/* Points a CALL node from p's stage or image to q's. */
static pt_expr *remap_call(pt_expr *e, void *user)
{
	const remap *r = user;
	if (e->kind != PT_E_CALL)
		return e;
	for (int i = 0; e->stage && i < r->p->nstages; i++)
		if (r->p->stages[i] == e->stage) {
			e->stage = r->q->stages[i];
			break;
		}
	for (int i = 0; e->image && i < r->p->nimages; i++)
		if (r->p->images[i] == e->image) {
			e->image = r->q->images[i];
			break;
		}
	return e;
}

static void remap_calls(pt_expr *e, const pt_pipeline *p, pt_pipeline *q)
{
	remap r = { p, q };
	pt_expr_map(e, remap_call, &r);
}

pt_pipeline *pt_pipeline_copy(const pt_pipeline *p)
{
	pt_pipeline *q = pt_pipeline_new(p->name);
	if (!q)
		return NULL;
	q->loc = p->loc;
	q->checked = p->checked;
	for (int i = 0; i < p->nparams; i++) {
		if (pt_pipeline_add_param(q, p->params[i].name, p->params[i].type, p->params[i].loc) < 0)
			return pt_pipeline_free(q);
		q->params[i].has_estimate = p->params[i].has_estimate;
		q->params[i].estimate = p->params[i].estimate;
	}
	for (int i = 0; i < p->nimages; i++) {
		pt_image *im = pt_mem_alloc(sizeof(*im));
		if (!im)
			return pt_pipeline_free(q);
		*im = *p->images[i];
		im->name = pt_mem_strdup(im->name);
		im->extent = copy_exprs(p->images[i]->extent, im->ndim);
		if (!im->name || (p->images[i]->extent && !im->extent) || !pt_pipeline_add_image(q, im)) {
			im->ndim = im->extent ? im->ndim : 0;
			image_free(im);
			return pt_pipeline_free(q);
		}
		im->id = p->images[i]->id;
	}
	for (int i = 0; i < p->nstages; i++) {
		pt_stage *s = stage_copy(p->stages[i]);
		if (!s || !pt_pipeline_add_stage(q, s)) {
			pt_stage_free(s);
			return pt_pipeline_free(q);
		}
		s->id = p->stages[i]->id;
	}
	for (int i = 0; i < q->nimages; i++)
		for (int d = 0; d < q->images[i]->ndim; d++)
			remap_calls(q->images[i]->extent[d], p, q);
	for (int i = 0; i < q->nstages; i++) {
		pt_stage *s = q->stages[i];
		for (int d = 0; d < s->ndim; d++) {
			remap_calls(s->dom[d].lo, p, q);
			remap_calls(s->dom[d].hi, p, q);
		}
		for (int d = 0; d < s->nrdim; d++) {
			remap_calls(s->rdom[d].lo, p, q);
			remap_calls(s->rdom[d].hi, p, q);
		}
		for (int c = 0; c < s->ncases; c++) {
			remap_calls(s->cases[c].cond, p, q);
			remap_calls(s->cases[c].value, p, q);
			for (int d = 0; s->cases[c].target && d < s->ndim; d++)
				remap_calls(s->cases[c].target[d], p, q);
		}
		remap_calls(s->init, p, q);
	}
	return q;
}

pt_stage *pt_pipeline_find_stage(const pt_pipeline *p, const char *name)
{
	for (int i = 0; i < p->nstages; i++)
		if (!strcmp(p->stages[i]->name, name))
			return p->stages[i];
	return NULL;
}

pt_image *pt_pipeline_find_image(const pt_pipeline *p, const char *name)
{
	for (int i = 0; i < p->nimages; i++)
		if (!strcmp(p->images[i]->name, name))
			return p->images[i];
	return NULL;
}

int pt_pipeline_find_param(const pt_pipeline *p, const char *name)
{
	for (int i = 0; i < p->nparams; i++)
		if (!strcmp(p->params[i].name, name))
			return i;
	return -1;
}

bool pt_pipeline_add_stage(pt_pipeline *p, pt_stage *s)
{
	pt_stage **v = pt_mem_realloc(p->stages, sizeof(*v) * (size_t)(p->nstages + 1));
	if (!v)
		return false;
	p->stages = v;
	s->id = p->nstages;
	p->stages[p->nstages++] = s;
	return true;
}

bool pt_pipeline_add_image(pt_pipeline *p, pt_image *im)
{
	pt_image **v = pt_mem_realloc(p->images, sizeof(*v) * (size_t)(p->nimages + 1));
	if (!v)
		return false;
	p->images = v;
	im->id = p->nimages;
	p->images[p->nimages++] = im;
	return true;
}

int pt_pipeline_add_param(pt_pipeline *p, const char *name, int type, pt_loc loc)
{
	pt_param *v = pt_mem_realloc(p->params, sizeof(*v) * (size_t)(p->nparams + 1));
	if (!v)
		return -1;
	p->params = v;
	pt_param *q = &p->params[p->nparams];
	memset(q, 0, sizeof(*q));
	if (!(q->name = pt_mem_strdup(name)))
		return -1;
	q->type = type;
	q->loc = loc;
	return p->nparams++;
}

/* Binding strength of a binary operator, for printing with few parens. */
static int binop_prec(int op)
{
	switch (op) {
	case PT_OP_OR: return 1;
	case PT_OP_AND: return 2;
	case PT_OP_BOR: return 3;
	case PT_OP_BXOR: return 4;
	case PT_OP_BAND: return 5;
	case PT_OP_EQ: case PT_OP_NE: return 6;
	case PT_OP_LT: case PT_OP_LE: case PT_OP_GT: case PT_OP_GE: return 7;
	case PT_OP_SHL: case PT_OP_SHR: return 8;
	case PT_OP_ADD: case PT_OP_SUB: return 9;
	default: return 10;
	}
}

static void print_prec(const pt_expr *e, const pt_stage *s, const pt_pipeline *p,
	pt_strbuf *out, int prec);

/* The arguments of a call or intrinsic; a lowered n-ary min/max flat. */
static void print_args(const pt_expr *e, const pt_stage *s, const pt_pipeline *p, pt_strbuf *out)
{
	for (int i = 0; i < e->nargs; i++) {
		const pt_expr *a = e->args[i];
		if (i)
			pt_sb_printf(out, ", ");
		if (i == 0 && e->kind == PT_E_INTRIN && a->kind == PT_E_INTRIN &&
		    a->op == e->op && a->written == PT_FROM_NARY)
			print_args(a, s, p, out);
		else
			print_prec(a, s, p, out, 0);
	}
}

static void print_prec(const pt_expr *e, const pt_stage *s, const pt_pipeline *p,
	pt_strbuf *out, int prec)
{
	switch (e->kind) {
	case PT_E_INT:
		pt_sb_printf(out, "%lld", (long long)e->ival);
		break;
	case PT_E_FLOAT: {
		pt_sb_printf(out, "%.9g", e->fval);
		if (e->fval == floor(e->fval) && fabs(e->fval) < 1e15)
			pt_sb_printf(out, ".0");
		break;
	}
	case PT_E_NAME:
		pt_sb_printf(out, "%s", e->name);
		break;
	case PT_E_PARAM:
		pt_sb_printf(out, "%s", p && e->index >= 0 ? p->params[e->index].name : e->name);
		break;
	case PT_E_VAR:
		pt_sb_printf(out, "%s", s && e->index >= 0 ? s->vars[e->index] : e->name);
		break;
	case PT_E_INTRIN:
		if (e->written == PT_FROM_CLAMP) {
			const pt_expr *mx = e->args[0];
			pt_sb_printf(out, "clamp(");
			print_prec(mx->args[0], s, p, out, 0);
			pt_sb_printf(out, ", ");
			print_prec(mx->args[1], s, p, out, 0);
			pt_sb_printf(out, ", ");
			print_prec(e->args[1], s, p, out, 0);
			pt_sb_printf(out, ")");
			break;
		}
		pt_sb_printf(out, "%s(", pt_intrin_name(e->op));
		print_args(e, s, p, out);
		pt_sb_printf(out, ")");
		break;
	case PT_E_CALL:
		pt_sb_printf(out, "%s(", e->name);
		print_args(e, s, p, out);
		pt_sb_printf(out, ")");
		break;
	case PT_E_UNARY:
		pt_sb_printf(out, "%s", pt_unop_name(e->op));
		print_prec(e->args[0], s, p, out, 11);
		break;
	case PT_E_BINARY: {
		int q = binop_prec(e->op);
		if (q < prec)
			pt_sb_printf(out, "(");
		print_prec(e->args[0], s, p, out, q);
		pt_sb_printf(out, " %s ", pt_binop_name(e->op));
		print_prec(e->args[1], s, p, out, q + 1);
		if (q < prec)
			pt_sb_printf(out, ")");
		break;
	}
	case PT_E_SELECT:
		pt_sb_printf(out, "select(");
		for (int i = 0; i < 3; i++) {
			if (i)
				pt_sb_printf(out, ", ");
			print_prec(e->args[i], s, p, out, 0);
		}
		pt_sb_printf(out, ")");
		break;
	case PT_E_CAST:
		if (e->written == PT_IMPLICIT_CAST) {
			print_prec(e->args[0], s, p, out, prec);
			break;
		}
		pt_sb_printf(out, "%s(", pt_ir_type_name(e->type));
		print_prec(e->args[0], s, p, out, 0);
		pt_sb_printf(out, ")");
		break;
	case PT_E_COUNT:
		pt_sb_printf(out, "?");
	}
}

void pt_expr_print(const pt_expr *e, const pt_stage *s, const pt_pipeline *p, pt_strbuf *out)
{
	print_prec(e, s, p, out, 0);
}

void pt_affine_clear(pt_affine *a)
{
	free(a->pcoef);
	free(a->vcoef);
	memset(a, 0, sizeof(*a));
}

/* False when out of memory (a then holds no arrays). */
static bool affine_init(pt_affine *a, int np, int nv)
{
	a->nparams = np;
	a->nvars = nv;
	a->pcoef = pt_mem_calloc((size_t)np + 1, sizeof(int64_t));
	a->vcoef = pt_mem_calloc((size_t)nv + 1, sizeof(int64_t));
	a->cst = 0;
	a->div = 1;
	if (a->pcoef && a->vcoef)
		return true;
	pt_affine_clear(a);
	return false;
}

static bool affine_is_const(const pt_affine *a)
{
	for (int i = 0; i < a->nparams; i++)
		if (a->pcoef[i])
			return false;
	for (int i = 0; i < a->nvars; i++)
		if (a->vcoef[i])
			return false;
	return true;
}

/* Multiplies by k; an overflow saturates so that affine_sane rejects it. */
static int64_t mul_sat(int64_t a, int64_t k)
{
	int64_t r;
	return __builtin_mul_overflow(a, k, &r) ? INT64_MAX : r;
}

static void affine_scale(pt_affine *a, int64_t k)
{
	for (int i = 0; i < a->nparams; i++)
		a->pcoef[i] = mul_sat(a->pcoef[i], k);
	for (int i = 0; i < a->nvars; i++)
		a->vcoef[i] = mul_sat(a->vcoef[i], k);
	a->cst = mul_sat(a->cst, k);
}

/* Bounds on coefficients keep the arithmetic far from overflow. */
static bool affine_sane(const pt_affine *a)
{
	const int64_t lim = (int64_t)1 << 40;
	for (int i = 0; i < a->nparams; i++)
		if (a->pcoef[i] > lim || a->pcoef[i] < -lim)
			return false;
	for (int i = 0; i < a->nvars; i++)
		if (a->vcoef[i] > lim || a->vcoef[i] < -lim)
			return false;
	return a->cst <= lim && a->cst >= -lim && a->div <= lim;
}

bool pt_cast_keeps_value(const pt_expr *e)
{
	if (e->kind != PT_E_CAST || !pt_type_is_int(e->type) || !pt_type_is_int(e->args[0]->type))
		return false;
	int64_t flo, fhi, tlo, thi;
	pt_type_range(e->args[0]->type, &flo, &fhi);
	pt_type_range(e->type, &tlo, &thi);
	return flo >= tlo && fhi <= thi;
}

bool pt_expr_affine(const pt_expr *e, int np, int nv, pt_affine *out)
{
	if (pt_cast_keeps_value(e))
		return pt_expr_affine(e->args[0], np, nv, out);
	if (!affine_init(out, np, nv))
		return false;   /* the caller's entry point reports it (alloc.h) */
	switch (e->kind) {
	case PT_E_INT:
		out->cst = e->ival;
		return affine_sane(out);
	case PT_E_PARAM:
		if (e->index < 0 || e->index >= np)
			return false;
		out->pcoef[e->index] = 1;
		return true;
	case PT_E_VAR:
		if (e->index < 0 || e->index >= nv)
			return false;
		out->vcoef[e->index] = 1;
		return true;
	case PT_E_UNARY:
		pt_affine_clear(out);
		if (e->op != PT_OP_NEG || !pt_expr_affine(e->args[0], np, nv, out))
			return false;
		if (out->div != 1)
			return false;
		affine_scale(out, -1);
		return true;
	case PT_E_BINARY:
		break;
	case PT_E_FLOAT: case PT_E_NAME: case PT_E_CALL: case PT_E_SELECT: case PT_E_CAST:
	case PT_E_INTRIN: case PT_E_COUNT:
		return false;
	}
	pt_affine a = {0}, b = {0};
	bool ok = pt_expr_affine(e->args[0], np, nv, &a) &&
		pt_expr_affine(e->args[1], np, nv, &b);
	/* floor(x/d) + y == floor((x + d*y)/d) for integer y, and
	 * floor(floor(x/d)/k) == floor(x/(d*k)): a divided operand may be the
	 * left one of '+', '-' and '/', or either one of '+' (R/2 + 1). */
	if (ok && e->op == PT_OP_ADD && a.div == 1 && b.div != 1) {
		pt_affine t = a;
		a = b;
		b = t;
	}
	ok = ok && (a.div == 1 || e->op == PT_OP_ADD || e->op == PT_OP_SUB || e->op == PT_OP_DIV);
	if (ok) {
		switch ((pt_binop)e->op) {
		case PT_OP_ADD: case PT_OP_SUB:
			ok = b.div == 1;
			if (!ok)
				break;
			affine_scale(&b, a.div);
			ok = affine_sane(&b);
			if (!ok)
				break;
			out->div = a.div;
			for (int i = 0; i < np; i++)
				out->pcoef[i] = a.pcoef[i] + (e->op == PT_OP_ADD ? b.pcoef[i] : -b.pcoef[i]);
			for (int i = 0; i < nv; i++)
				out->vcoef[i] = a.vcoef[i] + (e->op == PT_OP_ADD ? b.vcoef[i] : -b.vcoef[i]);
			out->cst = a.cst + (e->op == PT_OP_ADD ? b.cst : -b.cst);
			break;
		case PT_OP_MUL:
			ok = a.div == 1 && b.div == 1 && (affine_is_const(&a) || affine_is_const(&b));
			if (!ok)
				break;
			if (affine_is_const(&a)) {
				int64_t k = a.cst;
				pt_affine_clear(out);
				*out = b;
				memset(&b, 0, sizeof(b));
				affine_scale(out, k);
			} else {
				int64_t k = b.cst;
				pt_affine_clear(out);
				*out = a;
				memset(&a, 0, sizeof(a));
				affine_scale(out, k);
			}
			break;
		case PT_OP_DIV:
			ok = b.div == 1 && affine_is_const(&b) && b.cst > 0;
			if (!ok)
				break;
			pt_affine_clear(out);
			*out = a;
			memset(&a, 0, sizeof(a));
			out->div = mul_sat(out->div, b.cst);
			break;
		case PT_OP_MOD: case PT_OP_LT: case PT_OP_LE: case PT_OP_GT: case PT_OP_GE:
		case PT_OP_EQ: case PT_OP_NE: case PT_OP_AND: case PT_OP_OR: case PT_OP_BAND:
		case PT_OP_BOR: case PT_OP_BXOR: case PT_OP_SHL: case PT_OP_SHR: case PT_OP_BINCOUNT:
			ok = false;
		}
	}
	pt_affine_clear(&a);
	pt_affine_clear(&b);
	return ok && affine_sane(out);
}

static bool not_param(const pt_expr *e, const void *data)
{
	(void)data;
	return e->kind == PT_E_VAR || e->kind == PT_E_CALL || e->kind == PT_E_NAME;
}

bool pt_expr_is_param_only(const pt_expr *e)
{
	return !pt_expr_any(e, not_param, NULL);
}

bool pt_expr_any(const pt_expr *e, bool (*pred)(const pt_expr *e, const void *data), const void *data)
{
	if (!e)
		return false;
	if (pred(e, data))
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (pt_expr_any(e->args[i], pred, data))
			return true;
	return false;
}

static bool is_call(const pt_expr *e, const void *data)
{
	(void)data;
	return e->kind == PT_E_CALL;
}

bool pt_expr_has_call(const pt_expr *e)
{
	return pt_expr_any(e, is_call, NULL);
}

bool pt_expr_reads_stage(const pt_expr *e, const pt_stage *s, bool *own)
{
	if (!e)
		return false;
	bool any = false;
	if (e->kind == PT_E_CALL && e->stage == s) {
		any = true;
		for (int d = 0; d < e->nargs; d++)
			*own &= e->args[d]->kind == PT_E_VAR && e->args[d]->index == d;
	}
	for (int i = 0; i < e->nargs; i++)
		any |= pt_expr_reads_stage(e->args[i], s, own);
	return any;
}

bool pt_expr_eval_params(const pt_expr *e, const int64_t *params, int64_t *out)
{
	int64_t a, b;
	if (pt_cast_keeps_value(e))
		return pt_expr_eval_params(e->args[0], params, out);
	switch (e->kind) {
	case PT_E_INT: *out = e->ival; return true;
	case PT_E_PARAM: *out = params[e->index]; return true;
	case PT_E_UNARY:
		if (e->op != PT_OP_NEG || !pt_expr_eval_params(e->args[0], params, &a))
			return false;
		*out = (int64_t)(0 - (uint64_t)a);
		return true;
	case PT_E_BINARY:
		if (!pt_expr_eval_params(e->args[0], params, &a) ||
		    !pt_expr_eval_params(e->args[1], params, &b))
			return false;
		switch ((pt_binop)e->op) {
		case PT_OP_ADD: *out = (int64_t)((uint64_t)a + (uint64_t)b); return true;
		case PT_OP_SUB: *out = (int64_t)((uint64_t)a - (uint64_t)b); return true;
		case PT_OP_MUL: *out = (int64_t)((uint64_t)a * (uint64_t)b); return true;
		case PT_OP_DIV: *out = pt_floordiv(a, b); return true;
		case PT_OP_MOD: *out = pt_floormod(a, b); return true;
		case PT_OP_LT: case PT_OP_LE: case PT_OP_GT: case PT_OP_GE: case PT_OP_EQ: case PT_OP_NE:
		case PT_OP_AND: case PT_OP_OR: case PT_OP_BAND: case PT_OP_BOR: case PT_OP_BXOR:
		case PT_OP_SHL: case PT_OP_SHR: case PT_OP_BINCOUNT:
			return false;
		}
		return false;
	case PT_E_INTRIN:
		/* binary once checked */
		if ((e->op != PT_IN_MIN && e->op != PT_IN_MAX) || e->nargs != 2 ||
		    !pt_expr_eval_params(e->args[0], params, &a) || !pt_expr_eval_params(e->args[1], params, &b))
			return false;
		*out = (e->op == PT_IN_MIN ? b < a : b > a) ? b : a;
		return true;
	case PT_E_FLOAT: case PT_E_NAME: case PT_E_VAR: case PT_E_CALL: case PT_E_SELECT:
	case PT_E_CAST: case PT_E_COUNT:
		return false;
	}
	return false;
}

/* ---- declarations with validation ---- */

static const char *const keywords[] = {
	"pipeline", "param", "image", "var", "cond", "let", "const", "alias", "func", "reduce",
	"output", "for", "in", "if", "else", "step", "over", "init", "select",
	"stencil", "template", "table",
};

bool pt_name_is_keyword(const char *s, size_t len)
{
	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (strlen(keywords[i]) == len && !strncmp(s, keywords[i], len))
			return true;
	return false;
}

static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* One part of a name: an identifier, maybe a family member; the rest
 * of the name after it, or NULL if it is none. */
static const char *name_part(const char *name)
{
	if (!is_alpha(name[0]))
		return NULL;
	size_t n = 1;
	while (is_alpha(name[n]) || is_digit(name[n]))
		n++;
	if (pt_name_is_keyword(name, n))
		return NULL;
	const char *s = name + n;
	if (*s != '[')
		return s;
	/* a family member: "[" int ("," int)* "]" */
	s++;
	do {
		s += *s == '-';
		if (!is_digit(*s))
			return NULL;
		while (is_digit(*s))
			s++;
	} while (*s == ',' && s++);
	return *s == ']' ? s + 1 : NULL;
}

/* A name is parts joined by '.': "G", "G[1,2]", and "G[1].tmp" for a
 * template's local stage (templates.c). */
bool pt_name_is_valid(const char *name)
{
	if (!name)
		return false;
	const char *s = name_part(name);
	while (s && *s == '.')
		s = name_part(s + 1);
	return s && !*s;
}

bool pt_pipeline_check_name(pt_diag *d, const pt_pipeline *p, const char *name, pt_loc loc)
{
	if (!pt_name_is_valid(name)) {
		pt_error_at(d, loc, "a name starts with a letter or '_', has letters, digits and '_', and is not a keyword",
			"'%s' is not a valid name", name ? name : "(null)");
		return false;
	}
	pt_stage *s = pt_pipeline_find_stage(p, name);
	pt_image *im = pt_pipeline_find_image(p, name);
	int pi = pt_pipeline_find_param(p, name);
	if (!s && !im && pi < 0)
		return true;
	pt_loc prev = s ? s->loc : im ? im->loc : p->params[pi].loc;
	pt_error_at(d, loc, "rename one of them", "'%s' is already defined", name);
	if (prev.src)
		pt_note_at(d, prev, "'%s' was defined here", name);
	return false;
}

int pt_pipeline_declare_param(pt_diag *d, pt_pipeline *p, const char *name, int type,
	pt_loc loc, pt_loc type_loc)
{
	if (!pt_pipeline_check_name(d, p, name, loc))
		return -1;
	if (type != PT_I32 && type != PT_I64 && type != PT_F32 && type != PT_F64) {
		pt_error_at(d, type_loc, "use int, long, float or double", "parameters are i32, i64, f32 or f64");
		return -1;
	}
	return pt_pipeline_add_param(p, name, type, loc);
}

/* Whether t is an element type (not bool). */
static bool check_elem_type(pt_diag *d, int t, pt_loc loc, const char *name)
{
	if (t >= 0 && t < PT_NTYPES)
		return true;
	pt_error_at(d, loc, "types are u8 u16 u32 i8 i16 i32 i64 f32 f64",
		"'%s' has no valid element type", name);
	return false;
}

pt_image *pt_pipeline_declare_image(pt_diag *d, pt_pipeline *p, const char *name, int type, pt_loc loc)
{
	if (!pt_pipeline_check_name(d, p, name, loc) || !check_elem_type(d, type, loc, name))
		return NULL;
	pt_image *im = pt_mem_calloc(1, sizeof(*im));
	if (!im)
		return NULL;
	im->name = pt_mem_strdup(name);
	im->type = type;
	im->loc = loc;
	if (!im->name || !pt_pipeline_add_image(p, im)) {
		image_free(im);
		return NULL;
	}
	return im;
}

bool pt_image_add_extent(pt_diag *d, pt_image *im, pt_expr *e, pt_loc loc)
{
	if (im->ndim == PT_MAX_DIMS) {
		pt_error_at(d, loc, "split the image, or fold dimensions together",
			"images have at most %d dimensions", PT_MAX_DIMS);
		pt_expr_free(e);
		return false;
	}
	pt_expr **v = e ? pt_mem_realloc(im->extent, sizeof(*v) * (size_t)(im->ndim + 1)) : NULL;
	if (!v) {
		pt_expr_free(e);
		return false;
	}
	im->extent = v;
	im->extent[im->ndim++] = e;
	return true;
}

bool pt_image_check_shape(pt_diag *d, const pt_image *im, pt_loc loc)
{
	if (im->ndim >= 1)
		return true;
	pt_error_at(d, loc, "give 1 to 8 extents", "image '%s' has no extents", im->name);
	return false;
}

pt_stage *pt_pipeline_declare_stage(pt_diag *d, pt_pipeline *p, const char *name, pt_loc loc)
{
	if (!pt_pipeline_check_name(d, p, name, loc))
		return NULL;
	if (p->nstages >= PT_MAX_STAGES) {
		pt_error_at(d, loc, "a pipeline has at most 10000 stages; check the bounds of your loops",
			"too many stages");
		return NULL;
	}
	pt_stage *s = pt_stage_new(name, loc);
	if (s && !pt_pipeline_add_stage(p, s))
		s = pt_stage_free(s);
	return s;
}

bool pt_stage_set_type(pt_diag *d, pt_stage *s, int type, pt_loc loc)
{
	if (!check_elem_type(d, type, loc, s->name))
		return false;
	s->type = type;
	return true;
}

static bool drop_interval(pt_interval iv)
{
	pt_expr_free(iv.lo);
	pt_expr_free(iv.hi);
	return false;
}

bool pt_stage_check_var(pt_diag *d, const pt_stage *s, const char *name, pt_loc loc)
{
	if (!pt_name_is_valid(name)) {
		pt_error_at(d, loc, "a name starts with a letter or '_', has letters, digits and '_', and is not a keyword",
			"'%s' is not a valid variable name", name ? name : "(null)");
		return false;
	}
	for (int i = 0; i < s->ndim + s->nrdim; i++)
		if (!strcmp(s->vars[i], name)) {
			pt_error_at(d, loc, "give each dimension its own name",
				"variable '%s' appears twice in '%s'", name, s->name);
			return false;
		}
	if (s->ndim + s->nrdim >= PT_MAX_DIMS) {
		pt_error_at(d, loc, "fold dimensions together", "stages have at most %d dimensions", PT_MAX_DIMS);
		return false;
	}
	return true;
}

bool pt_stage_add_var(pt_diag *d, pt_stage *s, const char *name, pt_interval iv, bool reduction, pt_loc loc)
{
	assert(reduction || s->nrdim == 0);
	if (!pt_stage_check_var(d, s, name, loc))
		return drop_interval(iv);
	int *n = reduction ? &s->nrdim : &s->ndim;
	pt_interval **dom = reduction ? &s->rdom : &s->dom;
	/* each array grows before either count does, so that a failure
	 * leaves s as it was (bigger arrays) */
	pt_interval *nd = pt_mem_realloc(*dom, sizeof(**dom) * (size_t)(*n + 1));
	if (nd)
		*dom = nd;
	char **nv = nd ? pt_mem_realloc(s->vars, sizeof(char *) * (size_t)(s->ndim + s->nrdim + 1)) : NULL;
	if (nv)
		s->vars = nv;
	char *v = nv ? pt_mem_strdup(name) : NULL;
	if (!v)
		return drop_interval(iv);
	s->vars[s->ndim + s->nrdim] = v;
	(*dom)[(*n)++] = iv;
	return true;
}

bool pt_stage_check_shape(pt_diag *d, const pt_stage *s, bool reduction, pt_loc loc)
{
	if (s->ndim < 1) {
		pt_error_at(d, loc, "give it at least one variable", "'%s' has no variables", s->name);
		return false;
	}
	if (reduction && s->nrdim < 1) {
		pt_error_at(d, loc, "give it at least one reduction variable: over (x : 0 .. R-1)",
			"reduction '%s' has no reduction variables", s->name);
		return false;
	}
	return true;
}

static void free_update(pt_expr *cond, pt_expr **target, int ntarget, pt_expr *value)
{
	pt_expr_free(cond);
	pt_expr_free(value);
	for (int i = 0; target && i < ntarget; i++)
		pt_expr_free(target[i]);
	free(target);
}

/* Adds a case or update (taken); false, all freed, when out of memory. */
static bool push_case(pt_stage *s, pt_expr *cond, pt_expr *value, pt_expr **target, pt_loc loc)
{
	pt_case *v = pt_mem_realloc(s->cases, sizeof(*v) * (size_t)(s->ncases + 1));
	if (!v) {
		free_update(cond, target, target ? s->ndim : 0, value);
		return false;
	}
	s->cases = v;
	s->cases[s->ncases] = (pt_case){ .cond = cond, .value = value, .target = target, .loc = loc };
	s->ncases++;
	return true;
}

bool pt_stage_add_case(pt_diag *d, pt_stage *s, pt_expr *cond, pt_expr *value, pt_loc loc)
{
	if (!value) {           /* out of memory making it */
		pt_expr_free(cond);
		return false;
	}
	if (s->nrdim > 0 || s->red != PT_RED_NONE) {
		pt_error_at(d, loc, "a reduction changes its points with updates: | h(index) += value",
			"'%s' is a reduction and has no cases", s->name);
		pt_expr_free(cond);
		pt_expr_free(value);
		return false;
	}
	return push_case(s, cond, value, NULL, loc);
}

/* pt_stage_add_update's work; update: the general update's operator
 * (taken), NULL for the others. */
static bool add_update(pt_diag *d, pt_stage *s, pt_expr *cond, pt_expr **target, int ntarget,
	pt_loc target_loc, int op, pt_loc op_loc, pt_expr *value, pt_expr *update, pt_loc loc)
{
	bool ok = false;
	if (!value)             /* out of memory making it */
		;
	else if (s->nrdim < 1)
		pt_error_at(d, target_loc, "a function is defined by cases: | cond -> value",
			"'%s' is not a reduction and has no updates", s->name);
	else if (ntarget != s->ndim)
		pt_error_at(d, target_loc, "give one index per dimension of the result",
			"'%s' has %d dimension%s but the update gives %d indices",
			s->name, s->ndim, s->ndim == 1 ? "" : "s", ntarget);
	else if (op <= PT_RED_NONE || op >= PT_RED_COUNT)
		pt_error_at(d, op_loc, "use sum, prod, min, max, and or or", "reduction '%s' has an unknown operator", s->name);
	else if (op == PT_RED_UPDATE && !update)
		pt_error_at(d, op_loc, "write a general update as h(t) = expression", "reduction '%s' has an unknown operator",
			s->name);
	else if (s->red != PT_RED_NONE && op != (int)s->red)
		pt_error_at(d, op_loc, s->red == PT_RED_UPDATE ?
			"use one operator for every update of a reduction, or write every update as h(t) = expression" :
			"use one operator for every update of a reduction",
			"'%s' already reduces with %s", s->name, pt_redop_token(s->red));
	else
		ok = true;
	if (!ok || !push_case(s, cond, value, target, loc)) {
		if (!ok)
			free_update(cond, target, ntarget, value);
		pt_expr_free(update);
		return false;
	}
	s->red = op;
	s->cases[s->ncases - 1].update = update;
	return true;
}

bool pt_stage_add_update(pt_diag *d, pt_stage *s, pt_expr *cond, pt_expr **target, int ntarget,
	pt_loc target_loc, int op, pt_loc op_loc, pt_expr *value, pt_loc loc)
{
	return add_update(d, s, cond, target, ntarget, target_loc, op, op_loc, value, NULL, loc);
}

bool pt_stage_add_general(pt_diag *d, pt_stage *s, pt_expr *cond, pt_expr **target, int ntarget,
	pt_loc target_loc, pt_loc op_loc, pt_expr *value, pt_expr *update, pt_loc loc)
{
	return add_update(d, s, cond, target, ntarget, target_loc, PT_RED_UPDATE, op_loc, value, update, loc);
}

/* The closest stage name to name, within a small edit distance, or NULL. */
static const char *closest_stage(const pt_pipeline *p, const char *name)
{
	const char *best = NULL;
	int bd = 1000, lim = (int)strlen(name) / 2;
	lim = lim < 1 ? 1 : lim > 3 ? 3 : lim;
	for (int i = 0; i < p->nstages; i++) {
		int dd = pt_edit_distance(name, p->stages[i]->name);
		if (dd < bd) {
			bd = dd;
			best = p->stages[i]->name;
		}
	}
	return bd <= lim ? best : NULL;
}

void pt_tuple_component_name(const char *name, int j, char *buf, size_t n)
{
	snprintf(buf, n, "%s_%d", name, j);
}

bool pt_pipeline_set_output(pt_diag *d, pt_pipeline *p, const char *name, pt_loc loc)
{
	pt_stage *s = name ? pt_pipeline_find_stage(p, name) : NULL;
	for (int j = 0; s && j < s->ntuple; j++) {
		char c[300];
		pt_tuple_component_name(s->name, j, c, sizeof c);
		pt_stage *k = pt_pipeline_find_stage(p, c);
		if (k)
			k->is_output = true;
	}
	if (s && s->ntuple)
		return true;
	if (s) {
		s->is_output = true;
		return true;
	}
	const char *best = name ? closest_stage(p, name) : NULL;
	pt_strbuf hint = {0};
	if (best)
		pt_sb_printf(&hint, "did you mean '%s'?", best);
	else
		pt_sb_printf(&hint, "outputs must be declared with func or reduce before `output`");
	pt_error_at(d, loc, hint.s, "no stage named '%s'", name ? name : "(null)");
	pt_sb_free(&hint);
	return false;
}

/* ---- generic traversal ---- */

bool pt_expr_equal(const pt_expr *a, const pt_expr *b)
{
	if (!a || !b)
		return a == b;
	if (a->kind != b->kind || a->type != b->type || a->op != b->op || a->ival != b->ival ||
	    memcmp(&a->fval, &b->fval, sizeof(a->fval)) || a->index != b->index ||
	    a->stage != b->stage || a->image != b->image || a->nargs != b->nargs)
		return false;
	if ((a->name || b->name) && (!a->name || !b->name || strcmp(a->name, b->name)))
		return false;
	for (int i = 0; i < a->nargs; i++)
		if (!pt_expr_equal(a->args[i], b->args[i]))
			return false;
	return true;
}

void pt_expr_walk(const pt_expr *e, void (*fn)(const pt_expr *e, void *user), void *user)
{
	if (!e)
		return;
	fn(e, user);
	for (int i = 0; i < e->nargs; i++)
		pt_expr_walk(e->args[i], fn, user);
}

pt_expr *pt_expr_map(pt_expr *e, pt_expr *(*fn)(pt_expr *e, void *user), void *user)
{
	if (!e)
		return NULL;
	for (int i = 0; i < e->nargs; i++)
		e->args[i] = pt_expr_map(e->args[i], fn, user);
	return fn(e, user);
}

static void count_node(const pt_expr *e, void *user)
{
	(void)e;
	(*(long *)user)++;
}

long pt_expr_size(const pt_expr *e)
{
	long n = 0;
	pt_expr_walk(e, count_node, &n);
	return n;
}

bool pt_case_is_else(const pt_stage *f, int k)
{
	const pt_expr *e = f->cases[k].cond, *any = NULL;
	if (!e || e->kind != PT_E_UNARY || e->op != PT_OP_NOT)
		return false;
	any = e->args[0];
	int i = k - 1;
	while (i >= 0 && !f->cases[i].cond)
		i--;
	for (; i >= 0; i--) {
		const pt_expr *c = f->cases[i].cond;
		if (!c)
			continue;
		int j = i - 1;
		while (j >= 0 && !f->cases[j].cond)
			j--;
		if (j < 0)
			return pt_expr_equal(any, c);
		if (any->kind != PT_E_BINARY || any->op != PT_OP_OR || !pt_expr_equal(any->args[1], c))
			return false;
		any = any->args[0];
	}
	return false;
}

static bool calls_stage(const pt_expr *e, const void *s)
{
	return e->kind == PT_E_CALL && e->stage == s;
}

bool pt_stage_reads_at_own_point(const pt_stage *t, const pt_stage *const *run, int nrun)
{
	bool own = true;
	for (int k = 0; k < t->ncases; k++)
		for (int r = 0; r < nrun; r++) {
			pt_expr_reads_stage(t->cases[k].cond, run[r], &own);
			pt_expr_reads_stage(t->cases[k].value, run[r], &own);
		}
	return own;
}

bool pt_stage_reads(const pt_stage *c, const pt_stage *s)
{
	for (int k = 0; k < c->ncases; k++) {
		if (pt_expr_any(c->cases[k].cond, calls_stage, s) || pt_expr_any(c->cases[k].value, calls_stage, s))
			return true;
		for (int d = 0; c->cases[k].target && d < c->ndim; d++)
			if (pt_expr_any(c->cases[k].target[d], calls_stage, s))
				return true;
	}
	return pt_expr_any(c->init, calls_stage, s);
}

int pt_reduction_cell_var(const pt_stage *s, int d)
{
	if (!s || s->red == PT_RED_NONE || d < 0 || d >= s->ndim || s->ncases < 1)
		return -1;
	int var = -1;
	for (int k = 0; k < s->ncases; k++) {
		const pt_expr *t = s->cases[k].target ? s->cases[k].target[d] : NULL;
		while (t && t->kind == PT_E_CAST && pt_cast_keeps_value(t))
			t = t->args[0];
		if (!t || t->kind != PT_E_VAR || t->index < s->ndim || t->index >= s->ndim + s->nrdim ||
			(var >= 0 && t->index - s->ndim != var))
			return -1;
		var = t->index - s->ndim;
	}
	/* a second dim at the same variable is not a cell of its own */
	for (int e = 0; e < d; e++)
		if (pt_reduction_cell_var(s, e) == var)
			return -1;
	return var;
}
