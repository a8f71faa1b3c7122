/* test_checked_ir.c: the form the type checker hands to every later pass
 * (docs/architecture.md, "The checked IR"): each operation's operands
 * already have its type (conversions are explicit CAST nodes at the
 * location of what they convert), clamp and n-ary min/max are binary
 * min/max trees, and messages still print what was written.  Also the one
 * interval analysis, frontend/range.c, on bounds that are plain integers. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polytile.h"
#include "ir.h"
#include "range.h"

#include "run_suite.h"

static pt_ctx *ctx;

static void setup(void) { ctx = pt_ctx_new(); }
static void teardown(void) { pt_ctx_free(ctx); }

static pt_pipeline *load(const char *src)
{
	pt_pipeline *p = pt_parse_string(ctx, "t.pipe", src);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	return p;
}

static const pt_expr *value_of(const pt_pipeline *p, const char *stage, int c)
{
	const pt_stage *s = pt_pipeline_find_stage(p, stage);
	ck_assert_ptr_nonnull(s);
	return s->cases[c].value;
}

/* Asserts the checked form at every node of e; counts implicit casts. */
static void assert_form(const pt_expr *e, int *casts)
{
	for (int i = 0; i < e->nargs; i++)
		assert_form(e->args[i], casts);
	ck_assert_int_ne(e->type, PT_NO_TYPE);
	switch (e->kind) {
	case PT_E_UNARY:
		ck_assert_int_eq(e->args[0]->type, e->op == PT_OP_NOT ? PT_BOOL : e->type);
		break;
	case PT_E_BINARY:
		if (e->op >= PT_OP_LT && e->op <= PT_OP_OR)
			ck_assert_int_eq(e->args[0]->type, e->args[1]->type);
		else if (e->op == PT_OP_SHL || e->op == PT_OP_SHR)
			ck_assert(e->args[0]->type == e->type && e->args[1]->type == PT_I64);
		else
			ck_assert(e->args[0]->type == e->type && e->args[1]->type == e->type);
		break;
	case PT_E_SELECT:
		ck_assert(e->args[1]->type == e->type && e->args[2]->type == e->type);
		break;
	case PT_E_INTRIN:
		ck_assert_int_ne(e->op, PT_IN_CLAMP);
		if (e->op == PT_IN_MIN || e->op == PT_IN_MAX)
			ck_assert_int_eq(e->nargs, 2);
		for (int i = 0; i < e->nargs; i++)
			ck_assert_int_eq(e->args[i]->type, e->type);
		break;
	case PT_E_CAST:
		if (e->written == PT_IMPLICIT_CAST) {
			(*casts)++;
			/* at the location of what it converts, for messages */
			ck_assert(e->loc.line == e->args[0]->loc.line && e->loc.col == e->args[0]->loc.col &&
				e->loc.len == e->args[0]->loc.len);
		}
		break;
	case PT_E_INT: case PT_E_FLOAT: case PT_E_PARAM: case PT_E_VAR: case PT_E_CALL:
		break;
	case PT_E_NAME: case PT_E_COUNT:
		ck_abort_msg("unresolved node after checking");
	}
}

static const char *printed(const pt_pipeline *p, const char *stage, const pt_expr *e)
{
	static char buf[512];
	pt_strbuf sb = {0};
	pt_expr_print(e, pt_pipeline_find_stage(p, stage), p, &sb);
	snprintf(buf, sizeof(buf), "%s", sb.s);
	pt_sb_free(&sb);
	return buf;
}

static const char *src =
	"pipeline low\n"
	"param R : int = 8\n"
	"param D : double = 0.5\n"
	"param L : long = 3\n"
	"image I : u8 [R]\n"
	"image U : u32 [R]\n"
	"func f(x : 0 .. R-1) : double = D + x\n"
	"func g(x : 0 .. R-1) : int = clamp(I(x), 3, 200) + min(x, 5, R - 1, L) + (I(x) << L)\n"
	"func h(x : 0 .. R-1) : float = select(U(x) > -1, max(I(x), 1.5, x), sqrt(x) * -I(x))\n"
	"func k(x : 0 .. R + L - 1) : long = x + L\n"
	"output f, g, h, k\n";

START_TEST(operands_have_the_operations_type)
{
	pt_pipeline *p = load(src);
	const char *names[] = {"f", "g", "h", "k"};
	int casts = 0;
	for (int i = 0; i < 4; i++)
		assert_form(value_of(p, names[i], 0), &casts);
	ck_assert_int_ge(casts, 8);
	/* D + x: x converted to f64 by an explicit node */
	const pt_expr *f = value_of(p, "f", 0);
	ck_assert_int_eq(f->args[1]->kind, PT_E_CAST);
	ck_assert_int_eq(f->args[1]->type, PT_F64);
	ck_assert_int_eq(f->args[1]->args[0]->kind, PT_E_VAR);
	/* u32 > -1 compares in u32; the literal cannot keep its value: a cast */
	const pt_expr *cmp = value_of(p, "h", 0)->args[0];
	ck_assert_int_eq(cmp->args[0]->type, PT_U32);
	ck_assert_int_eq(cmp->args[1]->kind, PT_E_CAST);
	/* a literal that keeps its value is retyped instead: 1 in x + L stays a literal */
	const pt_stage *k = pt_pipeline_find_stage(p, "k");
	ck_assert_int_eq(k->dom[0].hi->args[1]->kind, PT_E_INT);
	ck_assert_int_eq(k->dom[0].hi->args[1]->type, PT_I64);
}
END_TEST

START_TEST(clamp_and_nary_min_max_are_binary_trees)
{
	pt_pipeline *p = load(src);
	const pt_expr *g = value_of(p, "g", 0);      /* (clamp + min4) + shift */
	const pt_expr *cl = g->args[0]->args[0];    /* converted to i64 for + min(..., L) */
	ck_assert(cl->kind == PT_E_CAST && cl->written == PT_IMPLICIT_CAST && cl->type == PT_I64);
	cl = cl->args[0];
	ck_assert_int_eq(cl->kind, PT_E_INTRIN);
	ck_assert_int_eq(cl->op, PT_IN_MIN);
	ck_assert_int_eq(cl->args[0]->op, PT_IN_MAX);
	ck_assert_int_eq(cl->args[0]->args[1]->ival, 3);
	ck_assert_int_eq(cl->args[1]->ival, 200);
	const pt_expr *m = g->args[0]->args[1];       /* min(min(min(x, 5), R - 1), L) */
	ck_assert_int_eq(m->op, PT_IN_MIN);
	ck_assert_int_eq(m->type, PT_I64);
	ck_assert_int_eq(m->args[0]->op, PT_IN_MIN);
	ck_assert_int_eq(m->args[0]->args[0]->op, PT_IN_MIN);
	ck_assert_int_eq(m->args[1]->kind, PT_E_PARAM);
	/* printed as written, implicit conversions left out */
	ck_assert_str_eq(printed(p, "g", g),
		"clamp(I(x), 3, 200) + min(x, 5, R - 1, L) + (I(x) << L)");
	ck_assert_str_eq(printed(p, "h", value_of(p, "h", 0)),
		"select(U(x) > -1, max(I(x), 1.5, x), sqrt(x) * -I(x))");
	ck_assert_str_eq(printed(p, "f", value_of(p, "f", 0)), "D + x");
}
END_TEST

/* ---- the interval analysis on integer bounds ---- */

typedef struct ibound { int64_t v; } ibound;
typedef struct iuser { int64_t var_lo, var_hi; } iuser;

static void *mk(int64_t v) { ibound *b = malloc(sizeof(*b)); b->v = v; return b; }
static void *i_exact(const pt_expr *e, void *u) { (void)u; return e->kind == PT_E_INT ? mk(e->ival) : NULL; }
static void *i_var(int index, bool hi, void *u) { (void)index; iuser *x = u; return mk(hi ? x->var_hi : x->var_lo); }
static void *i_type(int t, bool hi, void *u)
{
	(void)u;
	int64_t lo, up;
	pt_type_range(t, &lo, &up);
	return pt_type_bits(t) <= 16 ? mk(hi ? up : lo) : NULL;
}
static void *i_const(int64_t v, void *u) { (void)u; return mk(v); }
static void *i_copy(const void *a, void *u) { (void)u; return mk(((const ibound *)a)->v); }
static void *i_add(void *a, void *b, bool sub, void *u)
{
	(void)u;
	if (!a || !b) { free(a); free(b); return NULL; }
	((ibound *)a)->v += sub ? -((ibound *)b)->v : ((ibound *)b)->v;
	free(b);
	return a;
}
static void *i_scale(void *a, int64_t k, void *u) { (void)u; if (a) ((ibound *)a)->v *= k; return a; }
static void *i_div(void *a, int64_t k, void *u) { (void)u; if (a) ((ibound *)a)->v = pt_floordiv(((ibound *)a)->v, k); return a; }
static void *i_minmax(void *a, void *b, bool min, bool need_both, void *u)
{
	(void)u;
	if (!a || !b) {
		if (need_both) { free(a); free(b); return NULL; }
		return a ? a : b;
	}
	int64_t x = ((ibound *)a)->v, y = ((ibound *)b)->v;
	((ibound *)a)->v = min ? (x < y ? x : y) : (x > y ? x : y);
	free(b);
	return a;
}
static bool i_le(const void *a, const void *b, void *u) { (void)u; return ((const ibound *)a)->v <= ((const ibound *)b)->v; }
static void i_free(void *a, void *u) { (void)u; free(a); }

static const pt_range_ops iops = {
	i_exact, i_var, i_type, i_const, i_copy, i_add, i_scale, i_div, i_minmax, i_le, i_free
};

/* The range of stage's first value, x in 0 .. 9; lo/hi INT64_MIN/MAX for unbounded. */
static void range_of(const pt_pipeline *p, const char *stage, int c, int64_t *lo, int64_t *hi)
{
	iuser u = {0, 9};
	pt_range r = pt_range_of(value_of(p, stage, c), &iops, &u);
	*lo = r.lo ? ((ibound *)r.lo)->v : INT64_MIN;
	*hi = r.hi ? ((ibound *)r.hi)->v : INT64_MAX;
	free(r.lo);
	free(r.hi);
}

START_TEST(one_interval_analysis)
{
	pt_pipeline *p = load(
		"pipeline rg\n"
		"image I : u8 [10]\n"
		"image J : int [10]\n"
		"func a(x : 0 .. 9) : int = clamp(J(x), 2, 7) + 2 * x\n"
		"func b(x : 0 .. 9) : int = -I(x) / 4 + J(x) % 5\n"
		"func c(x : 0 .. 9) : int = select(J(x) > 0, I(x) & 15, x - 20)\n"
		"func d(x : 0 .. 9) : int = min(J(x), 3) + max(I(x), J(x))\n"
		"func e(x : 0 .. 9) : int = int(u8(J(x))) + int(i8(I(x)))\n"
		"output a, b, c, d, e\n");
	int64_t lo, hi;
	range_of(p, "a", 0, &lo, &hi);
	ck_assert(lo == 2 && hi == 25);
	range_of(p, "b", 0, &lo, &hi);          /* -255/4 floor .. 0, plus 0 .. 4 */
	ck_assert(lo == -64 && hi == 4);
	range_of(p, "c", 0, &lo, &hi);
	ck_assert(lo == -20 && hi == 15);
	range_of(p, "d", 0, &lo, &hi);          /* min: high end 3; max: low end 0; the rest unbounded */
	ck_assert(lo == INT64_MIN && hi == INT64_MAX);
	range_of(p, "e", 0, &lo, &hi);          /* u8 of anything: 0 .. 255; i8 of 0 .. 255 wraps: -128 .. 127 */
	ck_assert(lo == -128 && hi == 382);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("checked_ir");
	TCase *tc = tcase_create("form");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, operands_have_the_operations_type);
	tcase_add_test(tc, clamp_and_nary_min_max_are_binary_trees);
	tcase_add_test(tc, one_interval_analysis);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pt_test_run_suite(suite());
}
