/* test_ir.c: the IR's generic traversals (pt_expr_equal, pt_expr_walk,
 * pt_expr_map, pt_expr_size) and its validating constructors, which leave
 * the pipeline as it was when they refuse a declaration. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "polytile.h"

#include "run_suite.h"

static pt_loc at(int line)
{
	pt_loc l = { NULL, line, 1, 1, NULL };
	return l;
}

static pt_expr *var(int i)
{
	pt_expr *e = pt_expr_new(PT_E_VAR, at(1));
	e->index = i;
	return e;
}

static pt_expr *call(const char *name, pt_expr *a, pt_expr *b)
{
	pt_expr *e = pt_expr_new(PT_E_CALL, at(1));
	e->name = strdup(name);
	pt_expr_push_arg(e, a);
	pt_expr_push_arg(e, b);
	return e;
}

/* f(x + 1, y * 2.5) */
static pt_expr *sample(void)
{
	return call("f", pt_expr_binary(PT_OP_ADD, var(0), pt_expr_int(1, at(1)), at(1)),
		pt_expr_binary(PT_OP_MUL, var(1), pt_expr_float(2.5, at(1)), at(1)));
}

START_TEST(equal_is_structural)
{
	pt_expr *a = sample(), *b = sample(), *c = pt_expr_copy(a);
	ck_assert(pt_expr_equal(a, a));
	ck_assert(pt_expr_equal(a, b));
	ck_assert(pt_expr_equal(a, c));
	/* locations do not count */
	c->args[0]->loc = at(7);
	ck_assert(pt_expr_equal(a, c));
	ck_assert(pt_expr_equal(NULL, NULL));
	ck_assert(!pt_expr_equal(a, NULL));
	ck_assert(!pt_expr_equal(NULL, a));
	pt_expr_free(a);
	pt_expr_free(b);
	pt_expr_free(c);
}
END_TEST

/* Each change of one field makes the trees differ. */
START_TEST(equal_sees_every_field)
{
	pt_expr *a = sample();
	for (int k = 0; k < 7; k++) {
		pt_expr *b = sample();
		switch (k) {
		case 0: b->args[0]->op = PT_OP_SUB; break;
		case 1: b->args[0]->args[1]->ival = 2; break;
		case 2: b->args[1]->args[1]->fval = 2.25; break;
		case 3: b->args[0]->args[0]->index = 1; break;
		case 4: free(b->name); b->name = strdup("g"); break;
		case 5: b->args[1]->type = PT_F32; break;
		case 6: pt_expr_push_arg(b, pt_expr_int(0, at(1))); break;
		}
		ck_assert_msg(!pt_expr_equal(a, b), "change %d not seen", k);
		pt_expr_free(b);
	}
	/* floats bit for bit: 0.0 and -0.0 differ */
	pt_expr *z = pt_expr_float(0.0, at(1)), *mz = pt_expr_float(-0.0, at(1));
	ck_assert(!pt_expr_equal(z, mz));
	pt_expr_free(z);
	pt_expr_free(mz);
	pt_expr_free(a);
}
END_TEST

static void record_kind(const pt_expr *e, void *user)
{
	char *s = user;
	size_t n = strlen(s);
	s[n] = "ifnpvcubsxm"[e->kind];
	s[n + 1] = 0;
}

START_TEST(walk_visits_parents_first)
{
	pt_expr *a = sample();
	char kinds[32] = "";
	pt_expr_walk(a, record_kind, kinds);
	/* call, (add, var, int), (mul, var, float) */
	ck_assert_str_eq(kinds, "cbvibvf");
	ck_assert_int_eq(pt_expr_size(a), 7);
	kinds[0] = 0;
	pt_expr_walk(NULL, record_kind, kinds);
	ck_assert_str_eq(kinds, "");
	ck_assert_int_eq(pt_expr_size(NULL), 0);
	pt_expr_free(a);
}
END_TEST

/* Replaces variable 0 by 10 * var 1, and adds 1 to integer literals. */
static pt_expr *rewrite(pt_expr *e, void *user)
{
	(*(int *)user)++;
	if (e->kind == PT_E_VAR && e->index == 0) {
		pt_expr_free(e);
		return pt_expr_binary(PT_OP_MUL, pt_expr_int(10, at(1)), var(1), at(1));
	}
	if (e->kind == PT_E_INT)
		e->ival++;
	return e;
}

START_TEST(map_rebuilds_bottom_up)
{
	pt_expr *a = sample();
	int calls = 0;
	a = pt_expr_map(a, rewrite, &calls);
	ck_assert_int_eq(calls, 7);
	/* f(10 * y + 2, y * 2.5): the new tree's literal 10 is not mapped */
	pt_expr *want = call("f",
		pt_expr_binary(PT_OP_ADD, pt_expr_binary(PT_OP_MUL, pt_expr_int(10, at(1)), var(1), at(1)),
			pt_expr_int(2, at(1)), at(1)),
		pt_expr_binary(PT_OP_MUL, var(1), pt_expr_float(2.5, at(1)), at(1)));
	ck_assert(pt_expr_equal(a, want));
	ck_assert_ptr_null(pt_expr_map(NULL, rewrite, &calls));
	pt_expr_free(want);
	pt_expr_free(a);
}
END_TEST

/* A refused declaration leaves the pipeline as it was and reports once. */
START_TEST(constructors_refuse_cleanly)
{
	pt_diag d;
	pt_diag_init(&d);
	pt_pipeline *p = pt_pipeline_new("t");
	ck_assert_int_eq(pt_pipeline_declare_param(&d, p, "R", PT_I32, at(1), at(1)), 0);
	ck_assert_int_eq(pt_pipeline_declare_param(&d, p, "R", PT_I32, at(2), at(2)), -1);
	ck_assert_ptr_null(pt_pipeline_declare_stage(&d, p, "R", at(3)));
	ck_assert_ptr_null(pt_pipeline_declare_image(&d, p, "R", PT_U8, at(4)));
	ck_assert_int_eq(p->nparams, 1);
	ck_assert_int_eq(p->nstages + p->nimages, 0);
	ck_assert_int_eq(d.nerrors, 3);
	pt_stage *s = pt_pipeline_declare_stage(&d, p, "G[1,-2]", at(5));
	ck_assert_ptr_nonnull(s);
	pt_interval iv = { pt_expr_int(0, at(6)), pt_expr_int(3, at(6)), 1 };
	ck_assert(pt_stage_add_var(&d, s, "x", iv, false, at(6)));
	pt_interval again = { pt_expr_int(0, at(7)), pt_expr_int(3, at(7)), 1 };
	ck_assert(!pt_stage_add_var(&d, s, "x", again, false, at(7)));
	ck_assert_int_eq(s->ndim, 1);
	ck_assert(pt_stage_add_case(&d, s, NULL, pt_expr_int(1, at(8)), at(8)));
	pt_expr **target = calloc(1, sizeof(*target));
	target[0] = pt_expr_int(0, at(9));
	ck_assert(!pt_stage_add_update(&d, s, NULL, target, 1, at(9), PT_RED_SUM, at(9),
		pt_expr_int(1, at(9)), at(9)));
	ck_assert_int_eq(s->ncases, 1);
	ck_assert(pt_pipeline_set_output(&d, p, "G[1,-2]", at(10)));
	ck_assert(s->is_output);
	ck_assert(!pt_name_is_valid("G[1,]"));
	ck_assert(!pt_name_is_valid("in"));
	ck_assert(pt_name_is_valid("_in2"));
	ck_assert_int_eq(d.nerrors, 5);
	pt_pipeline_free(p);
	pt_diag_clear(&d);
}
END_TEST

/* An `else` is recognized (the checks skip isl for it); the same
 * condition written out is too, and a different one is not. */
START_TEST(else_case_recognized)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_string(ctx, "e.pipe",
		"pipeline e\nparam N : int = 10\nimage I : float [N]\n"
		"func a(x : 0 .. N-1) : float\n  | x < 2 -> 1.0\n  | x > 5 -> 2.0\n  | else -> I(x)\n"
		"func b(x : 0 .. N-1) : float\n  | x < 2 -> 1.0\n  | !(x < 2) -> a(x)\n"
		"func c(x : 0 .. N-1) : float\n  | x < 2 -> 1.0\n  | !(x < 3) -> b(x)\n  | else -> 0.0\n"
		"func d(x : 0 .. N-1) : float\n  | !(x < 2) -> c(x)\n  | else -> 0.0\n"
		"output d\n");
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	const pt_stage *a = pt_pipeline_find_stage(p, "a"), *b = pt_pipeline_find_stage(p, "b");
	const pt_stage *c = pt_pipeline_find_stage(p, "c"), *d = pt_pipeline_find_stage(p, "d");
	ck_assert(!pt_case_is_else(a, 0) && !pt_case_is_else(a, 1) && pt_case_is_else(a, 2));
	ck_assert(!pt_case_is_else(b, 0) && pt_case_is_else(b, 1));
	ck_assert(!pt_case_is_else(c, 1) && pt_case_is_else(c, 2));
	ck_assert(!pt_case_is_else(d, 0) && pt_case_is_else(d, 1));
	pt_ctx_free(ctx);
}
END_TEST

static Suite *ir_suite(void)
{
	Suite *s = suite_create("ir");
	TCase *tc = tcase_create("traversal");
	tcase_add_test(tc, equal_is_structural);
	tcase_add_test(tc, equal_sees_every_field);
	tcase_add_test(tc, walk_visits_parents_first);
	tcase_add_test(tc, map_rebuilds_bottom_up);
	tcase_add_test(tc, else_case_recognized);
	suite_add_tcase(s, tc);
	tc = tcase_create("constructors");
	tcase_add_test(tc, constructors_refuse_cleanly);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pt_test_run_suite(ir_suite());
}
