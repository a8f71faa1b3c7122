/* test_inline.c: inlining of point-wise producers (poly/inline.c).
 *
 * Every app in apps/ is run by the interpreter before and after inlining
 * on the same inputs at two sizes (one odd): every output must agree bit
 * for bit at every defined point, with the same defined points.  The
 * number of stages each app loses is fixed here.  Small pipelines pin
 * down which stages are inlined and which are not. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ctx.h>

#include "polytile.h"
#include "ir.h"
#include "inline.h"

#include "run_suite.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

/* ---- small pipelines ---- */

static pt_ctx *ctx;
static isl_ctx *ictx;
static pt_pipeline *orig, *inl;
static int ninl;

static void setup(void)
{
	ctx = pt_ctx_new();
	ictx = isl_ctx_alloc();
	orig = inl = NULL;
	ninl = -1;
}

static void teardown(void)
{
	pt_pipeline_free(inl);
	inl = NULL;
	isl_ctx_free(ictx);
	pt_ctx_free(ctx);
}

/* Parses src and inlines it into inl. */
static void inline_src(const char *src)
{
	orig = pt_parse_string(ctx, "t.pipe", src);
	ck_assert_msg(orig != NULL, "%s", pt_ctx_diagnostics(ctx));
	inl = pt_poly_inline(ictx, orig, PT_INLINE_ALL, &ninl);
	ck_assert_ptr_nonnull(inl);
}

static bool has(const pt_pipeline *p, const char *name)
{
	return pt_pipeline_find_stage(p, name) != NULL;
}

static bool mentions(const pt_expr *e, pt_expr_kind kind)
{
	if (!e)
		return false;
	if (e->kind == kind)
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (mentions(e->args[i], kind))
			return true;
	return false;
}

/* Every node has a type, every call points into p, ids are indices, and
 * callees come before callers. */
static void check_expr(const pt_pipeline *p, const pt_stage *s, const pt_expr *e)
{
	if (!e)
		return;
	ck_assert_int_ne(e->type, PT_NO_TYPE);
	ck_assert_int_ne(e->kind, PT_E_NAME);
	if (e->kind == PT_E_CALL && e->stage) {
		ck_assert_int_lt(e->stage->id, p->nstages);
		ck_assert_ptr_eq(p->stages[e->stage->id], e->stage);
		ck_assert_msg(e->stage->id < s->id || e->stage == s, "%s reads %s, a later stage", s->name, e->stage->name);
	}
	if (e->kind == PT_E_CALL && e->image) {
		ck_assert_int_lt(e->image->id, p->nimages);
		ck_assert_ptr_eq(p->images[e->image->id], e->image);
	}
	for (int i = 0; i < e->nargs; i++)
		check_expr(p, s, e->args[i]);
}

static void check_ir(const pt_pipeline *p)
{
	ck_assert(p->checked);
	ck_assert_ptr_null(p->owner);
	for (int i = 0; i < p->nstages; i++) {
		const pt_stage *s = p->stages[i];
		ck_assert_int_eq(s->id, i);
		for (int c = 0; c < s->ncases; c++) {
			check_expr(p, s, s->cases[c].cond);
			check_expr(p, s, s->cases[c].value);
			for (int d = 0; s->cases[c].target && d < s->ndim; d++)
				check_expr(p, s, s->cases[c].target[d]);
		}
		check_expr(p, s, s->init);
	}
}

/* Runs p with param R and a 1-D f32 input I of R + pad points filled
 * with 0.25 * i - 3; returns output out's buffer copied, and its mask. */
static float *run_1d(const pt_pipeline *p, int R, int pad, const char *out, uint8_t **mask, int64_t *n)
{
	pt_interp *it = pt_interp_new(ctx, p);
	ck_assert_int_eq(pt_interp_set_param(it, "R", R), 0);
	pt_buffer b = {0};
	int64_t ext = R + pad;
	ck_assert_int_eq(pt_buffer_alloc(&b, PT_F32, 1, &ext), PT_OK);
	for (int64_t i = 0; i < ext; i++)
		((float *)b.data)[i] = 0.25f * (float)i - 3.0f;
	ck_assert_int_eq(pt_interp_set_input(it, "I", &b), 0);
	ck_assert_msg(pt_interp_run(it) == 0, "%s", pt_ctx_diagnostics(ctx));
	const uint8_t *def;
	const pt_buffer *o = pt_interp_result(it, out, &def, NULL);
	ck_assert_ptr_nonnull(o);
	*n = pt_buffer_count(o);
	float *v = malloc(sizeof(float) * (size_t)*n);
	*mask = malloc((size_t)*n);
	memcpy(v, o->data, sizeof(float) * (size_t)*n);
	memcpy(*mask, def, (size_t)*n);
	pt_interp_free(it);
	pt_buffer_free(&b);
	return v;
}

/* The original and the inlined pipeline agree on output out. */
static void same_1d(int R, int pad, const char *out)
{
	uint8_t *m1, *m2;
	int64_t n1, n2;
	float *a = run_1d(orig, R, pad, out, &m1, &n1);
	float *b = run_1d(inl, R, pad, out, &m2, &n2);
	ck_assert_int_eq(n1, n2);
	for (int64_t i = 0; i < n1; i++) {
		ck_assert_int_eq(m1[i], m2[i]);
		if (m1[i])
			ck_assert_msg(!memcmp(&a[i], &b[i], sizeof(float)), "%s[%lld]: %.9g != %.9g",
				out, (long long)i, a[i], b[i]);
	}
	free(a);
	free(b);
	free(m1);
	free(m2);
}

START_TEST(pointwise_total_inlined)
{
	inline_src(
		"pipeline t\n"
		"param R : int = 10\n"
		"image I : float [R]\n"
		"func f(x : 0 .. R-1) : float = I(x) * 2.0 + 1.0\n"
		"func g(x : 1 .. R-2) : float = f(x-1) + f(x) + f(x+1)\n"
		"output g\n");
	ck_assert_int_eq(ninl, 1);
	ck_assert(!has(inl, "f"));
	ck_assert(has(inl, "g"));
	ck_assert_int_eq(inl->nstages, 1);
	ck_assert(has(orig, "f"));           /* the input is untouched */
	ck_assert_int_eq(orig->nstages, 2);
	check_ir(inl);
	same_1d(7, 0, "g");
	same_1d(12, 0, "g");
}
END_TEST

/* A selection (a plane of a stage of higher rank) is inlined like a
 * copy; a transposition, a diagonal or a selection with arithmetic is
 * not. */
START_TEST(selection_inlined)
{
	inline_src(
		"pipeline t\n"
		"param R : int = 10\n"
		"image I : float [R]\n"
		"func p(c : 0 .. 1, x : 0 .. R-1) : float = I(x) * float(c + 1)\n"
		"func s(x : 0 .. R-1) : float = p(1, x)\n"
		"func g(x : 1 .. R-2) : float = s(x-1) + s(x+1) + p(0, x)\n"
		"output g\n");
	ck_assert_int_eq(ninl, 1);
	ck_assert(!has(inl, "s"));
	ck_assert(has(inl, "p") && has(inl, "g"));
	check_ir(inl);
	same_1d(7, 0, "g");
	same_1d(12, 0, "g");
}
END_TEST

START_TEST(non_selections_not_inlined)
{
	inline_src(
		"pipeline t\n"
		"param R : int = 10\n"
		"image I : float [R, R]\n"
		"func q(x : 0 .. R-1, y : 0 .. R-1) : float = I(x, y) * 2.0\n"
		"func tr(x : 0 .. R-1, y : 0 .. R-1) : float = q(y, x)\n"
		"func dg(x : 0 .. R-1) : float = q(x, x)\n"
		"func sa(x : 0 .. R-1) : float = q(0, x) + 1.0\n"
		"func g(x : 1 .. R-2, y : 1 .. R-2) : float = tr(x-1, y) + tr(x+1, y) + dg(x-1) + dg(x+1) + sa(y-1) + sa(y+1)\n"
		"output g\n");
	ck_assert_int_eq(ninl, 1);            /* q, point-wise */
	ck_assert(!has(inl, "q"));
	ck_assert(has(inl, "tr") && has(inl, "dg") && has(inl, "sa"));
	check_ir(inl);
}
END_TEST

START_TEST(stencil_not_inlined)
{
	inline_src(
		"pipeline t\n"
		"param R : int = 10\n"
		"image I : float [R+2]\n"
		"func f(x : 1 .. R) : float = I(x-1) + I(x) + I(x+1)\n"
		"func g(x : 1 .. R) : float = f(x) * 0.5\n"
		"output g\n");
	ck_assert_int_eq(ninl, 0);
	ck_assert(has(inl, "f") && has(inl, "g"));
	check_ir(inl);
}
END_TEST

START_TEST(output_not_inlined)
{
	inline_src(
		"pipeline t\n"
		"param R : int = 10\n"
		"image I : float [R]\n"
		"func f(x : 0 .. R-1) : float = I(x) * 2.0\n"
		"func g(x : 0 .. R-1) : float = f(x) + 1.0\n"
		"output f, g\n");
	ck_assert_int_eq(ninl, 0);
	ck_assert(has(inl, "f") && has(inl, "g"));
}
END_TEST

START_TEST(reduction_not_inlined)
{
	inline_src(
		"pipeline t\n"
		"param R : int = 10\n"
		"image I : float [R]\n"
		"reduce s(i : 0 .. 0) : float over (x : 0 .. R-1)\n"
		"  | s(0) += I(x)\n"
		"func g(i : 0 .. 0) : float = s(i) * 0.5\n"
		"output g\n");
	ck_assert_int_eq(ninl, 0);
	ck_assert(has(inl, "s"));
}
END_TEST

START_TEST(self_reading_not_inlined)
{
	inline_src(
		"pipeline t\n"
		"param R : int = 10\n"
		"image I : float [R]\n"
		"func f(x : 0 .. R-1) : float\n"
		"  | x == 0 -> I(x)\n"
		"  | else -> f(x-1) + I(x)\n"
		"func g(x : 0 .. R-1) : float = f(x) * 2.0\n"
		"output g\n");
	ck_assert_int_eq(ninl, 0);
	ck_assert(has(inl, "f"));
}
END_TEST

START_TEST(table_not_inlined)
{
	/* a stage that reads nothing is a table, not a point-wise stage */
	inline_src(
		"pipeline t\n"
		"param R : int = 10\n"
		"image I : float [R]\n"
		"func lut(v : 0 .. 15) : float = float(v) * 0.5\n"
		"func g(x : 0 .. R-1) : float = lut(clamp(int(I(x)), 0, 15))\n"
		"output g\n");
	ck_assert_int_eq(ninl, 0);
	ck_assert(has(inl, "lut"));
}
END_TEST

START_TEST(step_not_inlined)
{
	inline_src(
		"pipeline t\n"
		"param R : int = 10\n"
		"image I : float [R]\n"
		"func f(x : 0 .. R-1 step 2) : float = I(x) * 2.0\n"
		"func g(x : 0 .. R/2 - 1) : float = f(2*x)\n"
		"output g\n");
	ck_assert_int_eq(ninl, 0);
	ck_assert(has(inl, "f"));
}
END_TEST

START_TEST(else_inlined_as_select)
{
	inline_src(
		"pipeline t\n"
		"param R : int = 10\n"
		"image I : float [R]\n"
		"func f(x : 0 .. R-1) : float\n"
		"  | x < 3 -> I(x)\n"
		"  | x >= 3 && x > R-3 -> -I(x)\n"
		"  | else -> I(x) * 3.0\n"
		"func g(x : 0 .. R-1) : double = double(f(x)) + 0.5\n"
		"output g\n");
	ck_assert_int_eq(ninl, 1);
	ck_assert(!has(inl, "f"));
	check_ir(inl);
	ck_assert(mentions(pt_pipeline_find_stage(inl, "g")->cases[0].value, PT_E_SELECT));
	pt_interp *it;
	/* an f64 output: compared as raw bytes */
	for (int R = 5; R <= 8; R += 3) {
		const pt_pipeline *ps[2] = {orig, inl};
		double *vals[2];
		for (int k = 0; k < 2; k++) {
			it = pt_interp_new(ctx, ps[k]);
			ck_assert_int_eq(pt_interp_set_param(it, "R", R), 0);
			pt_buffer b = {0};
			int64_t ext = R;
			ck_assert_int_eq(pt_buffer_alloc(&b, PT_F32, 1, &ext), PT_OK);
			for (int i = 0; i < R; i++)
				((float *)b.data)[i] = 0.3f * (float)i - 1.0f;
			ck_assert_int_eq(pt_interp_set_input(it, "I", &b), 0);
			ck_assert_msg(pt_interp_run(it) == 0, "%s", pt_ctx_diagnostics(ctx));
			const pt_buffer *o = pt_interp_result(it, "g", NULL, NULL);
			vals[k] = malloc(sizeof(double) * (size_t)R);
			memcpy(vals[k], o->data, sizeof(double) * (size_t)R);
			pt_interp_free(it);
			pt_buffer_free(&b);
		}
		ck_assert(!memcmp(vals[0], vals[1], sizeof(double) * (size_t)R));
		free(vals[0]);
		free(vals[1]);
	}
}
END_TEST

START_TEST(guarded_case_inlined_when_provable)
{
	/* g reads f only inside f's case: case value substituted, no select */
	inline_src(
		"pipeline t\n"
		"param R : int = 10\n"
		"image I : float [R]\n"
		"func f(x : 0 .. R-1) : float | x >= 1 && x <= R-2 -> I(x) * I(x)\n"
		"func g(x : 0 .. R-1) : float | x >= 2 && x <= R-3 -> f(x-1) + f(x+1)\n"
		"output g\n");
	ck_assert_int_eq(ninl, 1);
	ck_assert(!has(inl, "f"));
	check_ir(inl);
	ck_assert(!mentions(pt_pipeline_find_stage(inl, "g")->cases[0].value, PT_E_SELECT));
	same_1d(7, 0, "g");
	same_1d(10, 0, "g");
}
END_TEST

START_TEST(guarded_case_kept_when_read_outside)
{
	/* g may read f(1) where f's case does not hold: with affine cases
	 * that is a static error (docs/language.md §10), so such a pipeline
	 * never reaches the inliner */
	pt_ctx *c = pt_ctx_new();
	ck_assert_ptr_null(pt_parse_string(c, "t.pipe",
		"pipeline t\n"
		"param R : int = 10\n"
		"image I : float [R]\n"
		"func f(x : 0 .. R-1) : float | x >= 2 && x <= R-2 -> I(x) * I(x)\n"
		"func g(x : 0 .. R-1) : float | x >= 2 && x <= R-3 -> f(x-1) + f(x+1)\n"
		"output g\n"));
	ck_assert_ptr_nonnull(strstr(pt_ctx_diagnostics(c), "no case of 'f' defines"));
	pt_ctx_free(c);
}
END_TEST

START_TEST(guarded_case_data_dependent_read_kept)
{
	/* an index isl cannot follow, and f is not total */
	inline_src(
		"pipeline t\n"
		"param R : int = 10\n"
		"image I : float [R]\n"
		"image J : int [R]\n"
		"func f(x : 0 .. R-1) : float | x >= 1 -> I(x) * 2.0\n"
		"func g(x : 0 .. R-1) : float = f(clamp(J(x), 1, R-1))\n"
		"output g\n");
	ck_assert_int_eq(ninl, 0);
	ck_assert(has(inl, "f"));
}
END_TEST

START_TEST(guard_of_select_narrows_the_reads)
{
	/* the select's affine condition keeps the read of f(x-1) inside f's case */
	inline_src(
		"pipeline t\n"
		"param R : int = 10\n"
		"image I : float [R]\n"
		"func f(x : 0 .. R-1) : float | x >= 1 -> I(x) + 1.0\n"
		"func g(x : 0 .. R-1) : float = x >= 2 ? f(x-1) : I(x)\n"
		"output g\n");
	ck_assert_int_eq(ninl, 1);
	check_ir(inl);
	same_1d(7, 0, "g");
	same_1d(4, 0, "g");
}
END_TEST

START_TEST(chain_collapses)
{
	inline_src(
		"pipeline t\n"
		"param R : int = 10\n"
		"image I : float [R]\n"
		"func f(x : 0 .. R-1) : int = int(I(x) * 8.0)\n"
		"func g(x : 0 .. R-1) : u8 = f(x) * 3 + 7\n"
		"func h(x : 0 .. R-1) : float = float(g(x)) - I(x)\n"
		"func out(x : 1 .. R-2) : float = h(x-1) + h(x+1) * 0.5\n"
		"output out\n");
	ck_assert_int_eq(ninl, 3);
	ck_assert_int_eq(inl->nstages, 1);
	ck_assert(has(inl, "out"));
	check_ir(inl);
	/* the u8 store of g wraps: kept as a conversion */
	ck_assert(mentions(inl->stages[0]->cases[0].value, PT_E_CAST));
	same_1d(9, 0, "out");
	same_1d(40, 0, "out");
}
END_TEST

START_TEST(index_of_another_type_converted)
{
	/* f's variable becomes the u8 argument converted to int */
	inline_src(
		"pipeline t\n"
		"param R : int = 10\n"
		"image I : float [R]\n"
		"image K : u8 [R]\n"
		"func f(x : 0 .. R-1) : float = I(x) + float(x)\n"
		"func g(x : 0 .. R-1) : float = f(clamp(K(x), 0, R-1))\n"
		"output g\n");
	ck_assert_int_eq(ninl, 1);
	check_ir(inl);
}
END_TEST

START_TEST(reduction_consumer_inlined)
{
	inline_src(
		"pipeline t\n"
		"param R : int = 10\n"
		"image I : float [R]\n"
		"func f(x : 0 .. R-1) : float | x >= 1 -> I(x) * 2.0\n"
		"reduce s(i : 0 .. 0) : float over (x : 1 .. R-1)\n"
		"  | s(0) += f(x)\n"
		"output s\n");
	ck_assert_int_eq(ninl, 1);
	check_ir(inl);
	same_1d(7, 0, "s");
	same_1d(10, 0, "s");
}
END_TEST

START_TEST(reduction_cases_all_apply)
{
	/* both updates apply at x >= 4: the second reads f in both of f's
	 * cases, so it needs the select chain, not case 1 alone */
	inline_src(
		"pipeline t\n"
		"param R : int = 10\n"
		"image I : float [R]\n"
		"func f(x : 0 .. R-1) : float\n"
		"  | x <= 3 -> I(x)\n"
		"  | else -> -I(x) * 2.0\n"
		"reduce s(i : 0 .. 0) : float over (x : 0 .. R-1)\n"
		"  | x >= 4 -> s(0) += I(x)\n"
		"  | s(0) += f(x)\n"
		"output s\n");
	ck_assert_int_eq(ninl, 1);
	check_ir(inl);
	ck_assert(mentions(inl->stages[0]->cases[1].value, PT_E_SELECT));
	same_1d(7, 0, "s");
	same_1d(10, 0, "s");
}
END_TEST

START_TEST(function_cases_exclusive)
{
	/* in a function the second case holds only where the first does not:
	 * g reads f only at x <= 3, inside f's first case */
	inline_src(
		"pipeline t\n"
		"param R : int = 10\n"
		"image I : float [R]\n"
		"func f(x : 0 .. R-1) : float | x <= 3 -> I(x) + 1.0\n"
		"func g(x : 0 .. R-1) : float\n"
		"  | x >= 4 -> I(x)\n"
		"  | else -> f(x)\n"
		"output g\n");
	ck_assert_int_eq(ninl, 1);
	check_ir(inl);
	same_1d(7, 0, "g");
	same_1d(3, 0, "g");
}
END_TEST

START_TEST(growth_is_bounded)
{
	/* each stage reads the previous one twice: inlining all 30 would make
	 * 2^30 nodes; inlining stops at a bounded size and stays exact */
	inline_src(
		"pipeline t\n"
		"param R : int = 10\n"
		"image I : float [R]\n"
		"func f[0](x : 0 .. R-1) : float = I(x) * 0.5\n"
		"for l in 1 .. 30 {\n"
		"  func f[l](x : 0 .. R-1) : float = f[l-1](x) * 0.5 + f[l-1](x) * 0.25\n"
		"}\n"
		"func out(x : 0 .. R-1) : float = f[30](x)\n"
		"output out\n");
	ck_assert_int_gt(ninl, 5);
	ck_assert_int_lt(ninl, 31);
	check_ir(inl);
	same_1d(5, 0, "out");
}
END_TEST

START_TEST(uncalled_stage_kept)
{
	inline_src(
		"pipeline t\n"
		"param R : int = 10\n"
		"image I : float [R]\n"
		"func f(x : 0 .. R-1) : float = I(x) * 2.0\n"
		"func g(x : 0 .. R-1) : float = I(x) + 1.0\n"
		"output g\n");
	ck_assert_int_eq(ninl, 0);
	ck_assert(has(inl, "f"));
}
END_TEST

/* ---- the apps ---- */

typedef struct app {
	const char *name;
	const char *p1, *p2;    /* int params set per size */
	int sizes[2][2];
	int ninlined;
} app;

/* Inlined stages per app: harris loses Ixx, Iyy, Ixy, det and trace (as
 * in PolyMage); unsharp_mask sharpen; camera_pipe matrix and the four
 * selections g_gr, r_r, b_b, g_gb of deinterleaved; local_laplacian
 * L[0..6] and outG[0..6]; pyramid_blend Lap[1..2, 0..2] and Col[1..2].
 * The rest have no point-wise stage that is not an output (interpolate's
 * down[0] reads alpha(x, y), a lower rank). */
static const app apps[] = {
	{"harris", "R", "C", {{9, 7}, {16, 12}}, 5},
	{"unsharp_mask", "R", "C", {{7, 9}, {12, 10}}, 1},
	{"blur", "R", "C", {{7, 5}, {10, 12}}, 0},
	{"sobel", "R", "C", {{7, 5}, {10, 12}}, 0},
	{"histogram", "R", "C", {{7, 5}, {10, 12}}, 0},
	{"heat3d", "N", "T", {{5, 3}, {6, 2}}, 0},
	{"camera_pipe", "R", "C", {{37, 53}, {40, 64}}, 5},
	{"bilateral_grid", "R", "C", {{37, 29}, {24, 16}}, 0},
	{"interpolate", "R", "C", {{37, 53}, {20, 16}}, 0},
	{"local_laplacian", "R", "C", {{37, 29}, {24, 16}}, 14},
	{"pyramid_blend", "R", "C", {{37, 29}, {16, 24}}, 8},
};

static uint32_t next_rand(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s;
}

/* Deterministic contents: floats in [0, 1), integers over the type's
 * range (u16 as 10-bit raw data, as a camera gives). */
static void fill(pt_buffer *b, uint32_t seed)
{
	int64_t n = pt_buffer_count(b);
	for (int64_t i = 0; i < n; i++) {
		uint32_t r = next_rand(&seed) >> 8;
		switch (b->type) {
		case PT_F32: ((float *)b->data)[i] = (float)r / 16777216.0f; break;
		case PT_F64: ((double *)b->data)[i] = (double)r / 16777216.0; break;
		case PT_U8: ((uint8_t *)b->data)[i] = (uint8_t)r; break;
		case PT_U16: ((uint16_t *)b->data)[i] = (uint16_t)(r & 1023); break;
		case PT_I32: ((int32_t *)b->data)[i] = (int32_t)(r & 0xffff) - 0x8000; break;
		default: ck_abort_msg("no filler for type %d", b->type);
		}
	}
}

/* Interprets p with the given int params and inputs. */
static pt_interp *run_app(pt_ctx *c, const pt_pipeline *p, const app *a, const int *sz, pt_buffer *ins)
{
	pt_interp *it = pt_interp_new(c, p);
	ck_assert_int_eq(pt_interp_set_param(it, a->p1, sz[0]), 0);
	ck_assert_int_eq(pt_interp_set_param(it, a->p2, sz[1]), 0);
	for (int i = 0; i < p->nimages; i++)
		ck_assert_int_eq(pt_interp_set_input(it, p->images[i]->name, &ins[i]), 0);
	ck_assert_msg(pt_interp_run(it) == 0, "%s: %s", a->name, pt_ctx_diagnostics(c));
	return it;
}

START_TEST(apps_agree)
{
	const app *a = &apps[_i];
	char path[512];
	snprintf(path, sizeof(path), "%s/%s.pipe", APPS_DIR, a->name);
	pt_pipeline *p = pt_parse_file(ctx, path);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	int n = -1;
	inl = pt_poly_inline(ictx, p, PT_INLINE_ALL, &n);
	ck_assert_msg(n == a->ninlined, "%s: %d stages inlined, expected %d", a->name, n, a->ninlined);
	ck_assert_int_eq(inl->nstages, p->nstages - n);
	check_ir(inl);
	for (int z = 0; z < 2; z++) {
		const int *sz = a->sizes[z];
		pt_interp *probe = pt_interp_new(ctx, p);
		ck_assert_int_eq(pt_interp_set_param(probe, a->p1, sz[0]), 0);
		ck_assert_int_eq(pt_interp_set_param(probe, a->p2, sz[1]), 0);
		pt_buffer ins[8] = {{0}};
		ck_assert_int_le(p->nimages, 8);
		for (int i = 0; i < p->nimages; i++) {
			int64_t ext[PT_MAX_DIMS];
			ck_assert_int_eq(pt_interp_image_extents(probe, p->images[i]->name, ext), 0);
			ck_assert_int_eq(pt_buffer_alloc(&ins[i], (pt_type)p->images[i]->type, p->images[i]->ndim, ext), PT_OK);
			fill(&ins[i], 1000u * (uint32_t)z + (uint32_t)i + 1);
		}
		pt_interp_free(probe);
		pt_interp *r1 = run_app(ctx, p, a, sz, ins);
		pt_interp *r2 = run_app(ctx, inl, a, sz, ins);
		int nout = 0;
		for (int s = 0; s < p->nstages; s++) {
			if (!p->stages[s]->is_output)
				continue;
			nout++;
			const char *name = p->stages[s]->name;
			const uint8_t *d1, *d2;
			int64_t o1[PT_MAX_DIMS], o2[PT_MAX_DIMS];
			const pt_buffer *b1 = pt_interp_result(r1, name, &d1, o1);
			const pt_buffer *b2 = pt_interp_result(r2, name, &d2, o2);
			ck_assert_ptr_nonnull(b1);
			ck_assert_ptr_nonnull(b2);
			ck_assert_int_eq(b1->ndim, b2->ndim);
			for (int d = 0; d < b1->ndim; d++) {
				ck_assert_int_eq(b1->extent[d], b2->extent[d]);
				ck_assert_int_eq(o1[d], o2[d]);
			}
			int64_t cnt = pt_buffer_count(b1), ndef = 0;
			size_t es = pt_type_size(b1->type);
			for (int64_t i = 0; i < cnt; i++) {
				ck_assert_msg(d1[i] == d2[i], "%s %s: point %lld defined %d vs %d",
					a->name, name, (long long)i, d1[i], d2[i]);
				if (!d1[i])
					continue;
				ndef++;
				ck_assert_msg(!memcmp((const char *)b1->data + (size_t)i * es,
					(const char *)b2->data + (size_t)i * es, es),
					"%s %s at %dx%d: element %lld differs", a->name, name, sz[0], sz[1], (long long)i);
			}
			ck_assert_msg(ndef > 0, "%s %s: no defined point", a->name, name);
		}
		ck_assert_int_gt(nout, 0);
		pt_interp_free(r1);
		pt_interp_free(r2);
		for (int i = 0; i < p->nimages; i++)
			pt_buffer_free(&ins[i]);
	}
}
END_TEST

START_TEST(harris_keeps_six_stages)
{
	pt_pipeline *p = pt_parse_file(ctx, APPS_DIR "/harris.pipe");
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	inl = pt_poly_inline(ictx, p, PT_INLINE_ALL, &ninl);
	ck_assert_int_eq(p->nstages, 11);
	ck_assert_int_eq(ninl, 5);
	ck_assert_int_eq(inl->nstages, 6);
	const char *kept[] = {"Ix", "Iy", "Sxx", "Syy", "Sxy", "harris"};
	for (int i = 0; i < 6; i++)
		ck_assert_msg(has(inl, kept[i]), "%s inlined", kept[i]);
	/* Ixx is read inside `inner` only: its case, no select */
	ck_assert(!mentions(pt_pipeline_find_stage(inl, "Sxx")->cases[0].value, PT_E_SELECT));
}
END_TEST

/* The grouped schedule's rule: harris's products, each read at nine points
 * by a box sum, stay stages (in a scratchpad the product is computed once
 * per point, not nine times); det and trace, read at one point, and a
 * cast read at a few points are still substituted. */
START_TEST(cheap_rule_keeps_products_read_at_many_points)
{
	pt_pipeline *p = pt_parse_file(ctx, APPS_DIR "/harris.pipe");
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	inl = pt_poly_inline(ictx, p, PT_INLINE_CHEAP, &ninl);
	ck_assert_int_eq(ninl, 2);
	const char *kept[] = {"Ix", "Iy", "Ixx", "Iyy", "Ixy", "Sxx", "Syy", "Sxy", "harris"};
	for (int i = 0; i < 9; i++)
		ck_assert_msg(has(inl, kept[i]), "%s inlined", kept[i]);
	ck_assert(!has(inl, "det") && !has(inl, "trace"));
	check_ir(inl);
	pt_pipeline_free(inl);
	inl = NULL;
	inline_src("pipeline t\nparam N : int = 8\nimage I : u8 [N]\n"
		"func f(x : 0 .. N-1) : float = float(I(x))\n"
		"func g(x : 1 .. N-2) : float = f(x-1) + f(x) + f(x+1) + f(x-1) * f(x+1)\n"
		"func h(x : 0 .. N-1) : float = f(x) * 2.0 + 1.0\n"
		"func k(x : 1 .. N-2) : float = h(x-1) + h(x) + h(x+1)\n"
		"output g\noutput k\n");
	pt_pipeline_free(inl);
	inl = pt_poly_inline(ictx, orig, PT_INLINE_CHEAP, &ninl);
	/* f: a cast (c = 0, r = 1) read at 3 + 1 distinct points (g reads
	 * f(x-1) twice): 3 * 1 <= 5, substituted; h: c = 2 (after f is
	 * substituted, r = 1) read at 3 points: 2 * 3 > 4, kept */
	ck_assert(!has(inl, "f") && has(inl, "h"));
	ck_assert_int_eq(ninl, 1);
	pt_pipeline_free(inl);
	inl = pt_poly_inline(ictx, orig, PT_INLINE_ALL, &ninl);
	ck_assert(!has(inl, "f") && !has(inl, "h"));
}
END_TEST

/* src, of which the naive rule inlines nothing and the grouped one
 * (PT_INLINE_CHEAP) only the stage named `only`: inl is the latter. */
static void cheap_inlines_only(const char *src, const char *only)
{
	inline_src(src);
	ck_assert_int_eq(ninl, 0);
	pt_pipeline_free(inl);
	inl = pt_poly_inline(ictx, orig, PT_INLINE_CHEAP, &ninl);
	ck_assert_ptr_nonnull(inl);
	ck_assert_int_eq(ninl, 1);
	ck_assert(!has(inl, only));
	check_ir(inl);
}

/* The grouped schedule's rule also substitutes a row selection (a choice
 * among calls by a condition on the outer variables, each call reading
 * the innermost variable as is), as camera_pipe's red; a choice on the
 * innermost variable (cl), a call that moves the innermost variable (sh)
 * or a condition that reads data (dd) is kept; the naive rule keeps all
 * of them. */
START_TEST(row_selections_inlined_by_cheap_rule)
{
	const char *src =
		"pipeline t\n"
		"param R : int = 10\n"
		"image I : float [R]\n"
		"func a(x : 0 .. R-1, y : 0 .. R-1) : float = I(x) + float(y)\n"
		"func b(x : 0 .. R-1, y : 0 .. R-1) : float = I(x) * float(y)\n"
		"var x : 0 .. 2*R-1\n"
		"var y : 0 .. R-1\n"
		"func r(x, y) : float = x % 2 == 0 ? a(x/2, y) : x % 4 == 1 ? b(x/2, y) : a(R - 1 - x/2, y)\n"
		"func cl(x : 0 .. R-1, y : 0 .. 2*R-1) : float = y % 2 == 0 ? a(x, y/2) : b(x, y/2)\n"
		"func sh(x, y : 1 .. R-1) : float = x % 2 == 0 ? a(x/2, y-1) : b(x/2, y)\n"
		"func dd(x, y) : float = I(0) > 0.0 ? a(x/2, y) : b(x/2, y)\n"
		"func g(x, y : 1 .. R-1) : float = r(x, y) * 2.0 + r(x, y) + cl(x/2, y) + sh(x, y) + dd(x, y)\n"
		"output g\n";
	cheap_inlines_only(src, "r");
	ck_assert(has(inl, "cl") && has(inl, "sh") && has(inl, "dd") && has(inl, "a") && has(inl, "b"));
	check_ir(inl);
	same_1d(10, 0, "g");
	same_1d(7, 0, "g");
}
END_TEST

/* The grouped schedule's rule substitutes a stencil whose planes its one
 * consumer reads at its own point by two or more calls (bilateral grid's
 * interpolated): nothing is recomputed and the planes share their index
 * arithmetic.  A stencil read by one call (one), read by two consumers
 * (two), read off the consumer's point (off) or read by a reduction
 * (red) is kept; the naive rule keeps all of them. */
START_TEST(planes_read_once_inlined_by_cheap_rule)
{
	const char *src =
		"pipeline t\n"
		"param R : int = 10\n"
		"image I : float [R]\n"
		"var x : 1 .. R-2\n"
		"func f(c : 0 .. 1, x) : float = c == 0 ? I(x-1) + I(x+1) : I(x-1) * I(x+1)\n"
		"func one(c : 0 .. 1, x) : float = I(x-1) - I(x+1)\n"
		"func two(c : 0 .. 1, x) : float = I(x-1) + 2.0 * I(x+1)\n"
		"func off(c : 0 .. 1, x) : float = I(x+1) - 3.0 * I(x-1)\n"
		"func pl(c : 0 .. 1, x) : float = I(x+1) - 5.0 * I(x-1)\n"
		"func g(x) : float = f(1, x) > 0.0 ? f(0, x) / f(1, x) : I(x)\n"
		"func h(x) : float = one(0, x) + two(0, x) + two(1, x)\n"
		"func k(x : 2 .. R-3) : float = two(0, x) + two(1, x) + off(0, x) + off(1, x - 1)\n"
		"reduce s(x : 0 .. 0) : float over (r : 1 .. R-2)\n"
		"  | s(0) += pl(0, r) * pl(1, r)\n"
		"output g\noutput h\noutput k\noutput s\n";
	cheap_inlines_only(src, "f");
	ck_assert(has(inl, "one") && has(inl, "two") && has(inl, "off") && has(inl, "pl"));
	check_ir(inl);
	for (int R = 7; R <= 10; R += 3) {
		same_1d(R, 0, "g");
		same_1d(R, 0, "h");
		same_1d(R, 0, "k");
	}
}
END_TEST

/* The grouped schedule's rule substitutes a stage read once by a
 * scatter (a reduction updating data-dependent points, reading it at
 * its reduction point): a histogram of a filtered image computes the
 * filter in its loop (in strips, codegen/types.c) rather than storing
 * it in full.  Read by a reduction at affine points (g) or by two
 * consumers (k), a stage is kept. */
START_TEST(read_once_by_scatter_inlined_by_cheap_rule)
{
	const char *src =
		"pipeline t\n"
		"param R : int = 10\n"
		"image I : float [R]\n"
		"var x : 1 .. R-2\n"
		"func f(x) : float = I(x-1) + I(x+1)\n"
		"func g(x) : float = I(x-1) * I(x+1)\n"
		"func k(x) : float = I(x-1) - I(x+1)\n"
		"func u(x) : float = k(x) * 2.0\n"
		"reduce h(b : 0 .. 7) : int over (r : 1 .. R-2)\n"
		"  | h(clamp(int(f(r) * 2.0), 0, 7)) += 1\n"
		"reduce s(b : 0 .. 0) : float over (r : 1 .. R-2)\n"
		"  | s(0) += g(r)\n"
		"reduce h2(b : 0 .. 7) : int over (r : 1 .. R-2)\n"
		"  | h2(clamp(int(k(r)), 0, 7)) += 1\n"
		"output h, s, h2, u\n";
	cheap_inlines_only(src, "f");
	ck_assert(has(inl, "g") && has(inl, "k"));
	check_ir(inl);
	for (int R = 3; R <= 13; R += 5) {
		same_1d(R, 0, "h");
		same_1d(R, 0, "s");
		same_1d(R, 0, "h2");
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("inline");
	TCase *tc = tcase_create("rules");
	tcase_set_timeout(tc, 120);   /* growth_is_bounded takes seconds under ASan */
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, pointwise_total_inlined);
	tcase_add_test(tc, stencil_not_inlined);
	tcase_add_test(tc, selection_inlined);
	tcase_add_test(tc, row_selections_inlined_by_cheap_rule);
	tcase_add_test(tc, planes_read_once_inlined_by_cheap_rule);
	tcase_add_test(tc, read_once_by_scatter_inlined_by_cheap_rule);
	tcase_add_test(tc, non_selections_not_inlined);
	tcase_add_test(tc, output_not_inlined);
	tcase_add_test(tc, reduction_not_inlined);
	tcase_add_test(tc, self_reading_not_inlined);
	tcase_add_test(tc, table_not_inlined);
	tcase_add_test(tc, step_not_inlined);
	tcase_add_test(tc, else_inlined_as_select);
	tcase_add_test(tc, guarded_case_inlined_when_provable);
	tcase_add_test(tc, guarded_case_kept_when_read_outside);
	tcase_add_test(tc, guarded_case_data_dependent_read_kept);
	tcase_add_test(tc, guard_of_select_narrows_the_reads);
	tcase_add_test(tc, chain_collapses);
	tcase_add_test(tc, index_of_another_type_converted);
	tcase_add_test(tc, reduction_consumer_inlined);
	tcase_add_test(tc, reduction_cases_all_apply);
	tcase_add_test(tc, function_cases_exclusive);
	tcase_add_test(tc, growth_is_bounded);
	tcase_add_test(tc, uncalled_stage_kept);
	tcase_add_test(tc, cheap_rule_keeps_products_read_at_many_points);
	suite_add_tcase(s, tc);
	TCase *ta = tcase_create("apps");
	tcase_add_checked_fixture(ta, setup, teardown);
	tcase_set_timeout(ta, 300);
	tcase_add_loop_test(ta, apps_agree, 0, (int)(sizeof(apps) / sizeof(apps[0])));
	tcase_add_test(ta, harris_keeps_six_stages);
	suite_add_tcase(s, ta);
	return s;
}

int main(void)
{
	return pt_test_run_suite(suite());
}
