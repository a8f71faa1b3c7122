/* test_storage.c: the storage plan (poly/storage.c): which time-iterated
 * stages are folded and by how much, which full buffers share memory, and
 * compiled code with that plan against the interpreter (naive and grouped
 * schedules, 1 and 2 threads, at time steps of both parities); and the
 * inner stages of a tile kept in scalars (codegen/scratch.c). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polytile.h"
#include "compiled.h"
#include "passes.h"

#include <isl/aff.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/val.h>

#include "run_suite.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

/* The plan of src under options o, as the "storage" pass prints it. */
static char *plan_text_opts(const char *src, const pt_options *opts)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_string(ctx, "t.pipe", src);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	pt_options o = *opts;
	pt_unit u;
	pt_unit_init(&u, ctx, &o);
	u.input = p;
	ck_assert_msg(pt_passes_run(&u, "inline", "storage") == 0, "%s", pt_ctx_diagnostics(ctx));
	char *t = pt_storage_str(u.storage, u.p);
	pt_unit_clear(&u);
	pt_ctx_free(ctx);
	return t;
}

/* The plan of src under opt_level. */
static char *plan_text(const char *src, pt_opt_level level)
{
	pt_options o = { .opt_level = level };
	return plan_text_opts(src, &o);
}

/* Compiles src at both levels and compares with the interpreter at each
 * of the n values of param name (other params at their estimates). */
static void compare(const char *src, const char *name, const double *values, int n)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_string(ctx, "t.pipe", src);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	for (int level = 0; level < 2; level++) {
		pt_options o = { .opt_level = level ? PT_OPT_NAIVE : PT_OPT_GROUPED };
		pt_program *prog = pt_compile(ctx, p, &o);
		ck_assert_msg(prog != NULL, "%s", pt_ctx_diagnostics(ctx));
		for (int i = 0; i < n; i++) {
			cmp_run r;
			cmp_start(&r, ctx, p, 1, &name, &values[i], 11u + (uint32_t)i);
			for (int threads = 1; threads <= 2; threads++) {
				char label[128];
				snprintf(label, sizeof(label), "%s=%g, -O%d, %d threads", name, values[i], level ? 0 : 1, threads);
				cmp_check(&r, prog, threads, label);
			}
			cmp_finish(&r);
		}
		pt_program_free(prog);
	}
	pt_ctx_free(ctx);
}

/* f reads itself one step back: two steps kept; last reads step T only. */
static const char *const heat_src =
	"pipeline h\n"
	"param N : int = 64\n"
	"param T : int = 50\n"
	"image I : float [N+2]\n"
	"func f(t : 0 .. T, x : 0 .. N+1) : float\n"
	"  | t == 0 || x == 0 || x == N+1 -> I(x)\n"
	"  | else -> f(t-1, x-1) * 0.25 + f(t-1, x) * 0.5 + f(t-1, x+1) * 0.25\n"
	"func last(x : 0 .. N+1) : float = f(T, x) * 2.0\n"
	"output last\n";

START_TEST(heat_folded_by_two)
{
	for (int level = 0; level < 2; level++) {
		char *t = plan_text(heat_src, level ? PT_OPT_NAIVE : PT_OPT_GROUPED);
		ck_assert_msg(strstr(t, "f: slot 0, parts 0..1, 0.5 KB, dimension 0 kept modulo 2\n"), "%s", t);
		ck_assert_msg(strstr(t, "full buffers: 1 slot, 0.5 KB at the estimates (one buffer per stage: 13.5 KB)"), "%s", t);
		free(t);
	}
	const double T[] = { 0, 1, 2, 5, 8 };
	compare(heat_src, "T", T, 5);
}
END_TEST

/* src with its first from replaced by to, into out (n bytes). */
static void substitute(char *out, size_t n, const char *src, const char *from, const char *to)
{
	const char *at = strstr(src, from);
	ck_assert_msg(at != NULL, "%s", from);
	snprintf(out, n, "%.*s%s%s", (int)(at - src), src, to, at + strlen(from));
}

/* heat_src's output copying f's last step as it is: f writes that plane
 * in the output's buffer (storage.h), at every T, 0 included (the base
 * case's plane).  Not for a plane f itself reads (step 0), an output
 * over a smaller box, or a conversion. */
START_TEST(plane_written_in_place)
{
	char plane_src[1024];
	substitute(plane_src, sizeof(plane_src), heat_src, "f(T, x) * 2.0\n", "f(T, x)\n");
	for (int level = 0; level < 2; level++) {
		char *t = plan_text(plane_src, level ? PT_OPT_NAIVE : PT_OPT_GROUPED);
		ck_assert_msg(strstr(t, "kept modulo 2, the plane last reads written in its buffer\n"), "%s", t);
		free(t);
	}
	const double T[] = { 0, 1, 2, 5 };
	compare(plane_src, "T", T, 4);
	const char *const others[][2] = {
		{ "f(T, x)\n", "f(0, x)\n" },
		{ "func last(x : 0 .. N+1) : float = f(T, x)", "func last(x : 1 .. N) : float = f(T, x)" },
		{ "func last(x : 0 .. N+1) : float = f(T, x)", "func last(x : 0 .. N+1) : double = double(f(T, x))" },
	};
	for (int i = 0; i < 3; i++) {
		char src[1024];
		substitute(src, sizeof(src), plane_src, others[i][0], others[i][1]);
		char *t = plan_text(src, PT_OPT_NAIVE);
		ck_assert_msg(!strstr(t, "written in its buffer"), "%s\n%s", src, t);
		free(t);
		compare(src, "T", T + 1, 2);
	}
}
END_TEST

/* Reads two steps back (the leapfrog scheme), and a consumer reading the
 * last two steps: three kept. */
static const char *const leapfrog_src =
	"pipeline l\n"
	"param N : int = 32\n"
	"param T : int = 20\n"
	"image I : float [N+2]\n"
	"func f(t : 0 .. T, x : 0 .. N+1) : float\n"
	"  | t <= 1 || x == 0 || x == N+1 -> I(x) + float(t)\n"
	"  | else -> f(t-2, x) + 0.1 * (f(t-1, x-1) - 2.0 * f(t-1, x) + f(t-1, x+1))\n"
	"func out(x : 0 .. N+1) : float\n"
	"  | T >= 1 -> f(T, x) - f(T-1, x)\n"
	"  | else -> f(T, x)\n"
	"output out\n";

START_TEST(leapfrog_folded_by_three)
{
	char *t = plan_text(leapfrog_src, PT_OPT_NAIVE);
	ck_assert_msg(strstr(t, "kept modulo 3\n"), "%s", t);
	free(t);
	const double T[] = { 0, 1, 2, 3, 7, 20 };
	compare(leapfrog_src, "T", T, 6);
}
END_TEST

/* A consumer that reads the first step too: every step stays. */
START_TEST(early_step_read_not_folded)
{
	const char *src =
		"pipeline e\n"
		"param N : int = 32\n"
		"param T : int = 20\n"
		"image I : float [N+2]\n"
		"func f(t : 0 .. T, x : 0 .. N+1) : float\n"
		"  | t == 0 || x == 0 || x == N+1 -> I(x)\n"
		"  | else -> f(t-1, x) * 0.5 + f(t-1, x+1) * 0.5\n"
		"func out(x : 0 .. N+1) : float = f(T, x) - f(0, x)\n"
		"output out\n";
	char *t = plan_text(src, PT_OPT_NAIVE);
	ck_assert_msg(!strstr(t, "kept modulo"), "%s", t);
	free(t);
	const double T[] = { 0, 3 };
	compare(src, "T", T, 2);
}
END_TEST

/* A chain under the naive schedule: a's buffer is free once b has run,
 * so c takes its slot; d, the output, has none.  Also grouped. */
START_TEST(chain_reuses_slots)
{
	const char *src =
		"pipeline c\n"
		"param N : int = 1000\n"
		"image I : float [N+7]\n"
		"func a(x : 0 .. N+5) : float = I(x) + I(x+1)\n"
		"func b(x : 0 .. N+3) : float = a(x) + a(x+2)\n"
		"func c(x : 0 .. N+1) : float = b(x) * b(x+2)\n"
		"func d(x : 0 .. N-1) : float = c(x) - c(x+2)\n"
		"output d\n";
	char *t = plan_text(src, PT_OPT_NAIVE);
	ck_assert_msg(strstr(t, "a: slot 0, parts 0..1,") && strstr(t, "b: slot 1, parts 1..2,") &&
		strstr(t, "c: slot 0, parts 2..3,") && strstr(t, "full buffers: 2 slots,"), "%s", t);
	free(t);
	const double N[] = { 1, 7, 1000 };
	compare(src, "N", N, 3);
}
END_TEST

/* Inside harris's tiles: the gradients and box sums are read only in
 * their own fused nest at their own point, so they are scalars; only
 * the products, read by the 3x3 box sums, get scratchpads. */
START_TEST(harris_scalars)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_file(ctx, APPS_DIR "/harris.pipe");
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	pt_options o = { .ntile = 2, .tile = { 32, 256 } };   /* not the tile model's: sizes below */
	char *ir = pt_emit_llvm(ctx, p, &o, "h");
	ck_assert_msg(ir != NULL, "%s", pt_ctx_diagnostics(ctx));
	/* distinct scratchpads (LLVM may unswitch the tile loop, on the
	 * prefetch's empty rows, into two copies that each ask for them) */
	bool seen[64] = {0};
	int distinct = 0;
	for (const char *c = ir; (c = strstr(c, "call ptr @pt_rt_scratch(i32 ")); c++) {
		int id = atoi(c + strlen("call ptr @pt_rt_scratch(i32 "));
		ck_assert(id >= 0 && id < 64);
		distinct += !seen[id];
		seen[id] = true;
	}
	ck_assert_int_eq(distinct, 3);
	/* Ixx: min(34, its domain's rows) x 258 floats, computed at run time
	 * (codegen/scratch.c: the rows clipped to the domain) from rows of
	 * 258 * 4 bytes */
	ck_assert_ptr_nonnull(strstr(ir, "@pt_rt_scratch(i32 2, i64 %"));
	ck_assert_ptr_nonnull(strstr(ir, "i64 1032"));
	free(ir);
	pt_ctx_free(ctx);
	const char *names[] = { "R", "C" };
	const double sizes[][2] = { { 3, 4 }, { 31, 257 }, { 100, 300 } };
	ctx = pt_ctx_new();
	p = pt_parse_file(ctx, APPS_DIR "/harris.pipe");
	pt_program *prog = pt_compile(ctx, p, &o);
	ck_assert_msg(prog != NULL, "%s", pt_ctx_diagnostics(ctx));
	for (int i = 0; i < 3; i++) {
		cmp_run r;
		cmp_start(&r, ctx, p, 2, names, sizes[i], 5u + (uint32_t)i);
		for (int threads = 1; threads <= 2; threads++)
			cmp_check(&r, prog, threads, "harris, scalars");
		cmp_finish(&r);
	}
	pt_program_free(prog);
	pt_ctx_free(ctx);
}
END_TEST

/* Streamed outputs (pt_storage_mark_streams), for a 32 MiB L3: only at
 * -O1, only outputs no stage reads, not reductions, at least L3 at the
 * estimates, written in whole lines (the innermost tile 64 bytes or
 * more). */
START_TEST(streamed_outputs)
{
	setenv("PT_MACHINE", "l1=32K,l2=1M,l3=32M,threads=2,vector=64", 1);
	const char *src =
		"pipeline s\n"
		"param R : int = 4096\nparam C : int = 4096\n"
		"image I : float [R, C]\n"
		"func a(x : 0 .. R-1, y : 0 .. C-1) : float = I(x, y) * 2.0\n"
		"func b(x : 0 .. R-1, y : 0 .. C-1) : float = a(x, y) + 1.0\n"
		"func small(x : 0 .. 63, y : 0 .. 63) : float = I(x / 64, y / 64)\n"
		"reduce h(x : 0 .. R-1, y : 0 .. C-1) : float over (r : 0 .. R-1, s : 0 .. C-1)\n"
		"  | h(r, s) += I(r, s)\n"
		"output a\noutput b\noutput small\noutput h\n";
	char *t = plan_text(src, PT_OPT_GROUPED);
	ck_assert_msg(strstr(t, "\nb: streamed (non-temporal stores)\n") && !strstr(t, "a: streamed") &&
		!strstr(t, "small: streamed") && !strstr(t, "h: streamed"), "%s", t);
	free(t);
	t = plan_text(src, PT_OPT_NAIVE);
	ck_assert_msg(!strstr(t, "streamed"), "%s", t);
	free(t);
	/* rows of 8 floats (32 bytes) are not whole lines; of 16 they are */
	pt_options o = { .opt_level = PT_OPT_GROUPED, .ntile = 2, .tile = { 32, 8 } };
	t = plan_text_opts(src, &o);
	ck_assert_msg(!strstr(t, "streamed"), "%s", t);
	free(t);
	o.tile[1] = 16;
	t = plan_text_opts(src, &o);
	ck_assert_msg(strstr(t, "\nb: streamed (non-temporal stores)\n"), "%s", t);
	free(t);
}
END_TEST

/* The box an output's cases define (pt_kernels.defined_lo/hi, from
 * poly/defined_box.c) in "lo0 hi0 lo1 hi1" at R = 20, C = 30, or "none". */
static void defined_box_text(const char *src, char *out, size_t n)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_string(ctx, "t.pipe", src);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	pt_options o = { .opt_level = PT_OPT_GROUPED };
	pt_unit u;
	pt_unit_init(&u, ctx, &o);
	u.input = p;
	ck_assert_msg(pt_passes_run(&u, "inline", "kernels") == 0, "%s", pt_ctx_diagnostics(ctx));
	const pt_stage *s = u.p->stages[u.p->nstages - 1];
	snprintf(out, n, "none");
	isl_pw_aff **lo = u.kernels->defined_lo[s->id], **hi = u.kernels->defined_hi[s->id];
	for (int d = 0; lo[0] && d < s->ndim; d++) {
		isl_set *at = isl_set_read_from_str(isl_pw_aff_get_ctx(lo[d]), "[R, C] -> { : R = 20 and C = 30 }");
		isl_point *pt = isl_set_sample_point(at);
		isl_val *a = isl_pw_aff_eval(isl_pw_aff_copy(lo[d]), isl_point_copy(pt));
		isl_val *b = isl_pw_aff_eval(isl_pw_aff_copy(hi[d]), pt);
		size_t k = d ? strlen(out) : 0;
		snprintf(out + k, n - k, "%s%ld %ld", d ? " " : "", isl_val_get_num_si(a), isl_val_get_num_si(b));
		isl_val_free(a);
		isl_val_free(b);
	}
	pt_unit_clear(&u);
	pt_ctx_free(ctx);
}

/* An output whose cases define a box of its points (harris's interior,
 * two cases side by side) has that box; an L, a checkerboard, or an
 * output defined everywhere has none. */
START_TEST(defined_boxes)
{
	const char *head = "pipeline t\nparam R : int = 64\nparam C : int = 64\nimage I : float [R, C]\n"
		"var x : 0 .. R - 1\nvar y : 0 .. C - 1\n";
	const char *cases[][2] = {
		{ "func f(x, y) : float\n  | x >= 2 && x <= R - 3 && y >= 1 && y <= C - 2 -> I(x, y)\noutput f\n", "2 17 1 28" },
		{ "func f(x, y) : float\n  | x < 5 && y >= 2 -> I(x, y)\n  | x >= 5 && y >= 2 -> 1.0\noutput f\n", "0 19 2 29" },
		{ "func f(x, y) : float\n  | x < 3 || y < 3 -> I(x, y)\noutput f\n", "none" },
		{ "func f(x, y) : float\n  | (x + y) % 2 == 0 -> I(x, y)\noutput f\n", "none" },
		{ "func f(x, y) : float\n  | x % 2 == 0 -> I(x, y)\noutput f\n", "none" },
		{ "func f(x, y) : float = I(x, y)\noutput f\n", "none" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char src[1000], got[200];
		snprintf(src, sizeof(src), "%s%s", head, cases[i][0]);
		defined_box_text(src, got, sizeof(got));
		ck_assert_msg(!strcmp(got, cases[i][1]), "case %zu: %s, not %s", i, got, cases[i][1]);
	}
	char got[200];
	FILE *f = fopen(APPS_DIR "/harris.pipe", "r");
	ck_assert_ptr_nonnull(f);
	static char src[1 << 16];
	src[fread(src, 1, sizeof(src) - 1, f)] = 0;
	fclose(f);
	defined_box_text(src, got, sizeof(got));
	ck_assert_str_eq(got, "2 19 2 29");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("storage");
	TCase *tc = tcase_create("plan");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, heat_folded_by_two);
	tcase_add_test(tc, plane_written_in_place);
	tcase_add_test(tc, leapfrog_folded_by_three);
	tcase_add_test(tc, early_step_read_not_folded);
	tcase_add_test(tc, chain_reuses_slots);
	tcase_add_test(tc, harris_scalars);
	tcase_add_test(tc, streamed_outputs);
	tcase_add_test(tc, defined_boxes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pt_test_run_suite(suite());
}
