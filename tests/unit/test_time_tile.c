/* test_time_tile.c: time tiling (grouping/time_tile.c, poly/tile.c):
 * which time-iterated stages it takes and why not the others, the
 * slopes, the model's depth and sizes, the trapezoid tiles, and what
 * explain says. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/set.h>

#include "polytile.h"
#include "ctx.h"
#include "isl_expr.h"
#include "run_suite.h"
#include "time_tile.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

static pt_ctx *ctx;

static void setup(void)
{
	ctx = pt_ctx_new();
}

static void teardown(void)
{
	pt_ctx_free(ctx);
}

/* A 2-D diffusion `h` over T + 1 steps whose update is upd (reading h
 * at t-1), read by `o` at index `at` of its step. */
static char *heat_src_first(const char *upd, const char *at, const char *lo, const char *first)
{
	static char buf[2048];
	snprintf(buf, sizeof(buf),
		"pipeline h\n"
		"param N : int = 4000\n"
		"param T : int = 20\n"
		"image I : float [N, N]\n"
		"func h(t : %s .. T, x : 0 .. N - 1, y : 0 .. N - 1) : float\n"
		"  | %s || x < 2 || x > N - 3 || y < 2 || y > N - 3 -> I(x, y)\n"
		"  | else -> %s\n"
		"func o(x : 0 .. N - 1, y : 0 .. N - 1) : float = h(%s, x, y)\n"
		"output o\n", lo, first, upd, at);
	return buf;
}

static char *heat_src(const char *upd, const char *at, const char *lo)
{
	char first[64];
	snprintf(first, sizeof(first), "t == %s", lo);
	return heat_src_first(upd, at, lo, first);
}

static const char *unfit(const char *src, int64_t *slope)
{
	pt_pipeline *p = pt_parse_string(ctx, "h.pipe", src);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	return pt_time_tile_unfit(ctx->isl, p, pt_pipeline_find_stage(p, "h"), slope);
}

START_TEST(which_stages)
{
	int64_t slope[PT_MAX_DIMS];
	const char *ok = unfit(heat_src("h(t - 1, x, y) + 0.1 * (h(t - 1, x - 2, y) + h(t - 1, x, y + 1))", "T", "0"), slope);
	ck_assert_msg(ok == NULL, "%s", ok);
	ck_assert_int_eq(slope[0], 0);
	ck_assert_int_eq(slope[1], 2);
	ck_assert_int_eq(slope[2], 1);
	/* the last step written as another expression of the params */
	ck_assert_ptr_null(unfit(heat_src("h(t - 1, x + 1, y - 1)", "T + 0", "0"), slope));
	static const struct { const char *upd, *at, *lo, *why; } bad[] = {
		{ "h(t - 1, x - 1, y + 1) + h(t - 1, x / 2, y)", "T", "0",
			"a self-read not at a constant offset along some dimension" },
		{ "h(t - 1, x - 1, y + 1)", "T / 2", "0", "read by another stage at a step other than its last" },
		{ "h(t - 1, x - 1, y + 1)", "clamp(x, 0, T)", "0", "read by another stage at a step other than its last" },
		{ "h(t - 1, x - 1, y + 1)", "T", "N - 4000", "its first dimension (the step) does not start at a constant" },
		/* y free in the self-read: a recurrence, grouped on its own terms */
		{ "h(t - 1, x - 1, y)", "T", "0", "not time-iterated" },
	};
	const char *why = unfit(heat_src_first("h(t - 2, x - 1, y + 1)", "T", "0", "t < 2"), slope);
	ck_assert_msg(why && !strcmp(why, "a self-read not at the step before (t - 1)"), "%s", why ? why : "(taken)");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *why = unfit(heat_src(bad[i].upd, bad[i].at, bad[i].lo), slope);
		ck_assert_msg(why && !strcmp(why, bad[i].why), "%s: %s", bad[i].upd, why ? why : "(taken)");
	}
}
END_TEST

/* An untiled group of stage h of p. */
static pt_group *group_of(const pt_pipeline *p, pt_group *g)
{
	memset(g, 0, sizeof(*g));
	g->nstages = 1;
	g->stages = calloc(1, sizeof(*g->stages));
	g->stages[0] = pt_pipeline_find_stage(p, "h");
	g->liveout = calloc(1, sizeof(bool));
	g->liveout[0] = true;
	g->ext = calloc(1, sizeof(*g->ext));
	g->gdim = calloc(1, sizeof(*g->gdim));
	g->scale = calloc(1, sizeof(*g->scale));
	g->ndim = g->stages[0]->ndim;
	for (int d = 0; d < PT_MAX_DIMS; d++) {
		g->gdim[0][d] = d;
		g->scale[0][d] = 1;
	}
	return g;
}

static const pt_machine machine = { 32 << 10, 1 << 20, 32 << 20, 2, 64, "test" };

START_TEST(plan)
{
	pt_pipeline *p = pt_parse_string(ctx, "h.pipe", heat_src("h(t - 1, x, y) + 0.1 * (h(t - 1, x - 2, y) + "
		"h(t - 1, x + 1, y) + h(t - 1, x, y - 1) + h(t - 1, x, y + 1))", "T", "0"));
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	int64_t slope[PT_MAX_DIMS], ip[2] = { 4000, 20 };
	ck_assert_ptr_null(pt_time_tile_unfit(ctx->isl, p, pt_pipeline_find_stage(p, "h"), slope));
	pt_group g;
	pt_strbuf b = {0};
	/* given: blocks of 3, tiles 16 x 64 */
	pt_options o = { .time_tile = 3, .ntile = 2, .tile = { 16, 64 } };
	ck_assert(pt_time_tile_plan(group_of(p, &g), ip, &machine, &o, slope, &b));
	ck_assert_int_eq(g.tsteps, 3);
	ck_assert_int_eq(g.ntile, 3);
	ck_assert_int_eq(g.tsize[0], 3);
	ck_assert_int_eq(g.tsize[1], 16);
	ck_assert_int_eq(g.tsize[2], 64);
	ck_assert_int_eq(g.tslope[1], 2);
	ck_assert_int_eq(g.ext[0][1][0], 4);    /* 2 per step, 2 steps before the last */
	ck_assert_int_eq(g.ext[0][2][1], 2);
	pt_group_clear(&g);
	/* step by step asked */
	o = (pt_options){ .time_tile = 1 };
	ck_assert(!pt_time_tile_plan(group_of(p, &g), ip, &machine, &o, slope, &b));
	ck_assert_int_eq(g.tsteps, 0);
	pt_group_clear(&g);
	/* the model: a grid of 64 MB a step, memory-bound: blocks of
	 * several steps, the scratchpad within a thread's share of L3 */
	o = (pt_options){0};
	ck_assert(pt_time_tile_plan(group_of(p, &g), ip, &machine, &o, slope, &b));
	ck_assert_int_ge(g.tsteps, 2);
	ck_assert_int_le(g.tsteps, PT_TIME_TILE_MAX_STEPS);
	double scratch = 2 * 4;
	for (int d = 1; d < 3; d++)
		scratch *= (double)(g.tsize[d] + 2 * g.ext[0][d][0]);
	ck_assert_msg(scratch <= machine.l3 / 2, "scratchpad %g", scratch);
	pt_group_clear(&g);
	/* a grid whose two steps stay in L3: memory is not the bound */
	int64_t small[2] = { 500, 20 };
	ck_assert(!pt_time_tile_plan(group_of(p, &g), small, &machine, &o, slope, &b));
	pt_group_clear(&g);
	/* one step: nothing to block */
	int64_t one[2] = { 4000, 0 };
	ck_assert(!pt_time_tile_plan(group_of(p, &g), one, &machine, &o, slope, &b));
	pt_group_clear(&g);
	char *text = pt_sb_take(&b);
	ck_assert_msg(strstr(text, "h: step by step (--time-tile 1)") && strstr(text, ", --time-tile\n") &&
		strstr(text, "taken\n") && strstr(text, "not taken\n") && strstr(text, "fewer than 2 steps"), "%s", text);
	free(text);
}
END_TEST

/* The trapezoids of blocks of 3 steps in tiles of 4 along x, slope 2,
 * at N = 20, T = 7: at step t of block B, the tile X holds
 * 4X - 2 (e - t) .. 4X + 3 + 2 (e - t), e = min(3B + 2, 7). */
START_TEST(trapezoid)
{
	pt_pipeline *p = pt_parse_string(ctx, "h.pipe",
		"pipeline h\nparam N : int = 20\nparam T : int = 7\nimage I : float [N]\n"
		"func h(t : 0 .. T, x : 0 .. N - 1) : float\n  | t == 0 || x < 2 || x > N - 3 -> I(x)\n"
		"  | else -> h(t - 1, x - 2) + h(t - 1, x + 1)\n"
		"func o(x : 0 .. N - 1) : float = h(T, x)\noutput o\n");
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	int64_t slope[PT_MAX_DIMS], ip[2] = { 20, 7 };
	ck_assert_ptr_null(pt_time_tile_unfit(ctx->isl, p, pt_pipeline_find_stage(p, "h"), slope));
	pt_group g;
	pt_options o = { .time_tile = 3, .ntile = 1, .tile = { 4 } };
	ck_assert(pt_time_tile_plan(group_of(p, &g), ip, NULL, &o, slope, NULL));
	isl_space *sp = pt_poly_stage_space(ctx->isl, p, g.stages[0], 2);
	isl_set *dom = isl_set_set_tuple_name(pt_poly_domain_set(sp, g.stages[0]), "h");
	isl_space_free(sp);
	isl_set *ranges[2] = { pt_tile_range(ctx->isl, p, &g, 0), pt_tile_range(ctx->isl, p, &g, 1) };
	isl_set *tiled = pt_tile_domain(&g, 0, false, ranges, dom);
	/* the phases: first steps 0, 3, 6; last 2, 5 and 7 (the domain's) */
	isl_set *first = isl_set_intersect(pt_time_tile_first(&g, isl_set_get_space(tiled)), isl_set_copy(tiled));
	isl_set *last = isl_set_intersect(pt_time_tile_last(&g, isl_set_get_space(tiled)), isl_set_copy(tiled));
	isl_set *sets[3] = { tiled, first, last };
	for (int i = 0; i < 3; i++) {
		sets[i] = isl_set_fix_si(isl_set_fix_si(sets[i], isl_dim_param, 0, 20), isl_dim_param, 1, 7);
		sets[i] = isl_set_reset_tuple_id(isl_set_project_out(sets[i], isl_dim_param, 0, 2));
	}
	isl_set *want = isl_set_read_from_str(ctx->isl,
		"{ [B, X, t, x] : 0 <= t <= 7 and 0 <= x <= 19 and 3B <= t <= 3B + 2 and 0 <= X <= 4 and "
		"4X - 2 * (3B + 2 - t) <= x <= 4X + 3 + 2 * (3B + 2 - t) and 4X - 2 * (7 - t) <= x <= 4X + 3 + 2 * (7 - t) }");
	ck_assert_msg(isl_set_is_equal(sets[0], want) == isl_bool_true, "%s", isl_set_to_str(sets[0]));
	static const char *const steps[2] = { "{ [t] : t = 0 or t = 3 or t = 6 }", "{ [t] : t = 2 or t = 5 or t = 7 }" };
	for (int i = 1; i < 3; i++) {
		isl_set *t = isl_set_project_out(isl_set_project_out(sets[i], isl_dim_set, 0, 2), isl_dim_set, 1, 1);
		isl_set *w = isl_set_read_from_str(ctx->isl, steps[i - 1]);
		ck_assert_msg(isl_set_is_equal(t, w) == isl_bool_true, "%s", isl_set_to_str(t));
		isl_set_free(t);
		isl_set_free(w);
	}
	isl_set_free(sets[0]);
	isl_set_free(want);
	isl_set_free(ranges[0]);
	isl_set_free(ranges[1]);
	pt_group_clear(&g);
}
END_TEST

static char *explain_heat3d(int T, int K)
{
	pt_pipeline *p = pt_parse_file(ctx, APPS_DIR "/heat3d.pipe");
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	double est[3] = { 510, T, 0.125 };
	pt_options o = { .estimates = est, .time_tile = K };
	char *e = pt_explain(ctx, p, &o);
	ck_assert_msg(e != NULL, "%s", pt_ctx_diagnostics(ctx));
	return e;
}

START_TEST(explain)
{
	char *e = explain_heat3d(16, 0);
	ck_assert_msg(strstr(e, "time tiling: heat: step by step") && strstr(e, "heat: time tiled, blocks of") &&
		strstr(e, "heat: dimension 0 kept modulo 2 by blocks of"), "%s", e);
	free(e);
	e = explain_heat3d(16, 1);
	ck_assert_msg(strstr(e, "heat: step by step (--time-tile 1)") && !strstr(e, "time tiled") &&
		strstr(e, "heat: dimension 0 kept modulo 2 (storage folding)"), "%s", e);
	free(e);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("time_tile");
	TCase *tc = tcase_create("time_tile");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, which_stages);
	tcase_add_test(tc, plan);
	tcase_add_test(tc, trapezoid);
	tcase_add_test(tc, explain);
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
