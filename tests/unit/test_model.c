/* test_model.c: the polyhedral model (poly/model.c): flow dependences
 * from isl, and loops marked parallel from them in the space of the
 * schedule actually compiled.  Hand-written tiled, fused, skewed and
 * interchanged schedules go in through the schedule hook
 * (pt_compile_with); each is checked for its parallel marks (in the
 * "ast" dump) and compiled against the interpreter. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/schedule.h>
#include <isl/union_set.h>

#include "polytile.h"
#include "compiled.h"
#include "passes.h"

#include "run_suite.h"

/* A producer and a 3-point stencil consumer along x. */
static const char *const blur_src =
	"pipeline b\n"
	"param R : int = 64\n"
	"param C : int = 64\n"
	"image I : float [R+2, C]\n"
	"func f(x : 0 .. R+1, y : 0 .. C-1) : float = I(x, y) * 2\n"
	"func g(x : 0 .. R-1, y : 0 .. C-1) : float = f(x, y) + f(x+1, y) * 3 + f(x+2, y)\n"
	"output g\n";

/* A time-iterated 1-D stencil: f(t) reads f(t-1) at x-1 and x+1. */
static const char *const heat_src =
	"pipeline h\n"
	"param N : int = 64\n"
	"param T : int = 8\n"
	"image I : float [N+2]\n"
	"func f(t : 0 .. T, x : 0 .. N+1) : float\n"
	"  | t == 0 || x == 0 || x == N+1 -> I(x)\n"
	"  | else -> f(t-1, x-1) * 0.25 + f(t-1, x) * 0.5 + f(t-1, x+1) * 0.25\n"
	"output f\n";

/* A schedule given as isl YAML with %s for the model's domain. */
static __isl_give isl_schedule *from_text(const pt_model *m, const pt_options *opt, void *user)
{
	(void)opt;
	char *dom = isl_union_set_to_str(m->domain);
	size_t n = strlen(user) + strlen(dom) + 1;
	char *text = malloc(n);
	snprintf(text, n, user, dom);
	isl_schedule *s = isl_schedule_read_from_str(isl_union_set_get_ctx(m->domain), text);
	free(text);
	free(dom);
	return s;
}

static void keep_ast(const char *pass, const char *text, void *user)
{
	if (!strcmp(pass, "ast"))
		snprintf(user, 4096, "%s", text);
	if (getenv("PT_TEST_VERBOSE"))
		fprintf(stderr, "---- %s ----\n%s", pass, text);
}

/* Compiles src (no inlining: the statements are S0_0, S1_0, ...) under
 * the schedule (NULL: the naive one), returns its AST text in ast, and
 * compares the compiled program with the interpreter at two sizes. */
static void compile_and_compare(const char *src, const char *yaml, char *ast,
	const char *const *names, const double sizes[2][2])
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_string(ctx, "t.pipe", src);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	pt_options opt = { .no_inline = true, .opt_level = PT_OPT_NAIVE, .dump = "ast", .dump_fn = keep_ast,
		.dump_user = ast };
	pt_program *prog = pt_compile_with(ctx, p, &opt, yaml ? from_text : NULL, (void *)yaml);
	ck_assert_msg(prog != NULL, "%s", pt_ctx_diagnostics(ctx));
	for (int sz = 0; sz < 2; sz++) {
		cmp_run r;
		cmp_start(&r, ctx, p, 2, names, sizes[sz], 7u + (uint32_t)sz);
		for (int threads = 1; threads <= 2; threads++)
			cmp_check(&r, prog, threads, yaml ? yaml : "naive");
		cmp_finish(&r);
	}
	pt_program_free(prog);
	pt_ctx_free(ctx);
}

static int count(const char *s, const char *what)
{
	int n = 0;
	for (const char *t = s; (t = strstr(t, what)); t += strlen(what))
		n++;
	return n;
}

/* The line after the mark: the loop it marks. */
static void assert_marked(const char *ast, const char *mark, const char *loop)
{
	char want[256];
	snprintf(want, sizeof(want), "%s\n", mark);
	const char *m = strstr(ast, want);
	ck_assert_msg(m != NULL, "no '%s' in\n%s", mark, ast);
	const char *next = m + strlen(want);
	while (*next == ' ')
		next++;
	ck_assert_msg(!strncmp(next, loop, strlen(loop)), "'%s' marks '%.40s', not '%s' in\n%s", mark, next, loop, ast);
}

static const char *const rc_names[] = { "R", "C" };
static const double rc_sizes[2][2] = { { 37, 45 }, { 5, 3 } };

/* Tiles of 16 along y (no dependence crosses them), f and g fused along x
 * with g shifted by 2 (it reads f up to x+2), then a sequence: the tile
 * loop and both y loops are parallel, the fused x loop is not. */
static const char *const fused_tiled =
	"domain: \"%s\"\n"
	"child:\n"
	"  schedule: \"[R, C] -> [{ S0_0[x, y] -> [(floor(y/16))]; S1_0[x, y] -> [(floor(y/16))] }]\"\n"
	"  child:\n"
	"    schedule: \"[R, C] -> [{ S0_0[x, y] -> [(x)]; S1_0[x, y] -> [(x + 2)] }]\"\n"
	"    child:\n"
	"      sequence:\n"
	"      - filter: \"[R, C] -> { S0_0[x, y] }\"\n"
	"        child:\n"
	"          schedule: \"[R, C] -> [{ S0_0[x, y] -> [(y)] }]\"\n"
	"      - filter: \"[R, C] -> { S1_0[x, y] }\"\n"
	"        child:\n"
	"          schedule: \"[R, C] -> [{ S1_0[x, y] -> [(y)] }]\"\n";

START_TEST(tiled_fused_schedule)
{
	char ast[4096] = "";
	compile_and_compare(blur_src, fused_tiled, ast, rc_names, rc_sizes);
	/* one outer parallel loop (the tile loop), the two y loops inside */
	ck_assert_int_eq(count(ast, "#pragma omp parallel for"), 1);
	ck_assert_int_eq(count(ast, "// parallel"), 2);
	assert_marked(ast, "#pragma omp parallel for", "for (int c0 = 0; c0 <= (C - 1) / 16; c0 += 1)");
	ck_assert_msg(strstr(ast, "// parallel\n") > strstr(ast, "for (int c1"), "the x loop is marked:\n%s", ast);
}
END_TEST

/* Tiles of 16 along x, the stencil's dimension, with the same shifted
 * fusion: g(x) in tile (x+2)/16 reads f(x) from an earlier tile, so the
 * tile loop carries a dependence and must stay serial; y stays parallel. */
static const char *const tiled_across =
	"domain: \"%s\"\n"
	"child:\n"
	"  schedule: \"[R, C] -> [{ S0_0[x, y] -> [(floor(x/16))]; S1_0[x, y] -> [(floor((x + 2)/16))] }]\"\n"
	"  child:\n"
	"    schedule: \"[R, C] -> [{ S0_0[x, y] -> [(x)]; S1_0[x, y] -> [(x + 2)] }]\"\n"
	"    child:\n"
	"      sequence:\n"
	"      - filter: \"[R, C] -> { S0_0[x, y] }\"\n"
	"        child:\n"
	"          schedule: \"[R, C] -> [{ S0_0[x, y] -> [(y)] }]\"\n"
	"      - filter: \"[R, C] -> { S1_0[x, y] }\"\n"
	"        child:\n"
	"          schedule: \"[R, C] -> [{ S1_0[x, y] -> [(y)] }]\"\n";

START_TEST(tile_loop_carrying_a_dependence)
{
	char ast[4096] = "";
	compile_and_compare(blur_src, tiled_across, ast, rc_names, rc_sizes);
	ck_assert_msg(strstr(ast, "for (int c0") < strstr(ast, "#pragma omp parallel for"),
		"the tile loop is marked parallel:\n%s", ast);
	ck_assert_msg(!strstr(ast, "// parallel\n  for (int c1") && !strstr(ast, "parallel for\n  for (int c1"),
		"the x loop is marked parallel:\n%s", ast);
	/* the y loops: the outermost parallel loops */
	ck_assert_int_eq(count(ast, "#pragma omp parallel for"), 2);
}
END_TEST

static const char *const nt_names[] = { "N", "T" };
static const double nt_sizes[2][2] = { { 29, 6 }, { 3, 1 } };

START_TEST(naive_heat)
{
	char ast[4096] = "";
	compile_and_compare(heat_src, NULL, ast, nt_names, nt_sizes);
	/* t carries the stencil's dependence, x does not */
	ck_assert_int_eq(count(ast, "#pragma omp parallel for"), 1);
	assert_marked(ast, "#pragma omp parallel for", "for (int c1");
}
END_TEST

/* Skewed (t, t + x): distances (1, 0), (1, 1), (1, 2): t serial, the
 * skewed inner loop parallel. */
static const char *const skewed =
	"domain: \"%s\"\n"
	"child:\n"
	"  schedule: \"[N, T] -> [{ S0[t, x] -> [(t)] }, { S0[t, x] -> [(t + x)] }]\"\n";

START_TEST(skewed_heat)
{
	char ast[4096] = "";
	compile_and_compare(heat_src, skewed, ast, nt_names, nt_sizes);
	ck_assert_int_eq(count(ast, "#pragma omp parallel for"), 1);
	assert_marked(ast, "#pragma omp parallel for", "for (int c1");
}
END_TEST

/* Skewed and interchanged, a wavefront (t + x, t): distances (0, 1),
 * (1, 1), (2, 1): both loops carry a dependence, none is parallel. */
static const char *const wavefront =
	"domain: \"%s\"\n"
	"child:\n"
	"  schedule: \"[N, T] -> [{ S0[t, x] -> [(t + x)] }, { S0[t, x] -> [(t)] }]\"\n";

START_TEST(wavefront_heat)
{
	char ast[4096] = "";
	compile_and_compare(heat_src, wavefront, ast, nt_names, nt_sizes);
	ck_assert_int_eq(count(ast, "parallel"), 0);
}
END_TEST

/* A schedule of the options' (the naive one, but not known to be). */
static __isl_give isl_schedule *naive_in_disguise(const pt_model *m, const pt_options *opt, void *user)
{
	return pt_schedule_naive(m, opt, user);
}

/* Dependences: the stencil reads, and a reduction's updates among
 * themselves (its write is a read-modify-write).  Under a schedule of
 * the options all of them; under the built-in ones only those inside a
 * loop nest (one stage here), which no loop between nests can carry. */
START_TEST(flow_dependences)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_string(ctx, "t.pipe", blur_src);
	ck_assert_ptr_nonnull(p);
	pt_unit u;
	pt_options o = { .no_inline = true, .opt_level = PT_OPT_NAIVE };
	for (int own = 0; own < 2; own++) {
		pt_unit_init(&u, ctx, NULL);
		u.input = p;
		u.opt = &o;
		if (!own)
			u.schedule_fn = naive_in_disguise;
		ck_assert_int_eq(pt_passes_run(&u, "inline", "dependences"), 0);
		char *d = pt_model_deps_str(u.model);
		bool cross = strstr(d, "S0_0[i0, i1] -> S1_0[x, y = i1] : ") && strstr(d, "x >= -2 + i0");
		ck_assert_msg(own ? !strstr(d, "S1_0") : cross, "%s", d);
		free(d);
		pt_unit_clear(&u);
	}
	/* -O1 fuses the two stages into one tiled group, whose nest carries
	 * nothing by construction: no dependence is computed, and its loops
	 * are all parallel */
	pt_options g = { .no_inline = true, .opt_level = PT_OPT_GROUPED, .ntile = 2, .tile = { 8, 16 }, .overlap = 0.5 };
	pt_unit_init(&u, ctx, NULL);
	u.input = p;
	u.opt = &g;
	ck_assert_int_eq(pt_passes_run(&u, "inline", "ast"), 0);
	ck_assert_int_eq(u.tiling->ngroups, 1);
	ck_assert_int_gt(u.tiling->groups[0].ntile, 0);
	char *gd = pt_model_deps_str(u.model);
	ck_assert_msg(!strstr(gd, "S0_0") && !strstr(gd, "S1_0"), "%s", gd);
	free(gd);
	pt_unit_clear(&u);
	p = pt_parse_string(ctx, "r.pipe",
		"pipeline r\nparam R : int = 10\nimage I : u8 [R]\n"
		"reduce h(b : 0 .. 255) : int over (x : 0 .. R-1)\n  | h(I(x)) += 1\n"
		"reduce s(b : 0 .. R-1) : int over (x : 0 .. R-1)\n  | s(x) += I(x)\noutput h, s\n");
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	pt_unit_init(&u, ctx, NULL);
	u.input = p;
	ck_assert_int_eq(pt_passes_run(&u, "inline", "dependences"), 0);
	char *d = pt_model_deps_str(u.model);
	/* h: init before every update, updates of one bin in order; s: each
	 * point updated once, so no update -> update dependence */
	ck_assert_msg(strstr(d, "I0[") && strstr(d, "U0_0[x] -> U0_0[x'] : x >= 0 and x < x' < R") && strstr(d, "I1["), "%s", d);
	ck_assert_msg(!strstr(d, "{ U1_0["), "%s", d);
	free(d);
	pt_unit_clear(&u);
	pt_ctx_free(ctx);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("model");
	TCase *tc = tcase_create("parallel");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, tiled_fused_schedule);
	tcase_add_test(tc, tile_loop_carrying_a_dependence);
	tcase_add_test(tc, naive_heat);
	tcase_add_test(tc, skewed_heat);
	tcase_add_test(tc, wavefront_heat);
	tcase_add_test(tc, flow_dependences);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pt_test_run_suite(suite());
}
