/* test_grouped_apps.c: every app compiled with the grouping optimizer
 * (-O1: overlapped tiles, scratchpads) against the interpreter, with
 * tolerance zero (compiled.h), 1 and 2 threads, at two sizes per app that
 * are not multiples of the tiles (and mostly smaller than one tile of
 * the larger sizes).  meson test runs a sample of three configurations
 * (tile sizes from {8, 16, ..., 512} per dim, thresholds {0.2, 0.4, 0.5})
 * per app, the last two of them with full tiles generated apart
 * (--separate-tiles, as every other one of the sweep); PT_SWEEP=1 runs
 * all of them (tests/README in docs/architecture.md:
 *   PT_SWEEP=1 build-test/tests/test_grouped_apps). */
#include <stdlib.h>

#include "compiled.h"
#include "run_suite.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

#include "apps_table.h"

static const int tiles[] = { 8, 16, 32, 64, 128, 256, 512 };
static const double thresholds[] = { 0.2, 0.4, 0.5 };
enum { NT = sizeof(tiles) / sizeof(tiles[0]), NTH = sizeof(thresholds) / sizeof(thresholds[0]) };
enum { NCONF = NT * NT * NTH };

/* Configuration k of the sweep: outer tile, inner tile, threshold. */
static pt_options config(int k)
{
	pt_options o = { .opt_level = PT_OPT_GROUPED, .ntile = 2 };
	o.tile[0] = tiles[k / (NT * NTH)];
	o.tile[1] = tiles[k / NTH % NT];
	o.overlap = thresholds[k % NTH];
	return o;
}

/* Whether configuration i of n generates full tiles apart: every other
 * one, and the last two of the three of a sample. */
static bool separates(int i, int n)
{
	return i % 2 == 1 || (n == 3 && i == 2);
}

/* Compiles the app once per configuration, then compares each program at
 * both sizes, the interpreter run once per size. */
static void check_app(const app_case *a, const int *confs, int n)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s.pipe", APPS_DIR, a->app);
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_file(ctx, path);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	pt_program **prog = calloc((size_t)n, sizeof(*prog));
	for (int i = 0; i < n; i++) {
		pt_options o = config(confs[i]);
		/* LLVM on 1 or 2 threads (the object is the same; both are run) */
		o.compile_threads = 1 + i % 2;
		o.separate_tiles = separates(i, n);
		prog[i] = pt_compile(ctx, p, &o);
		ck_assert_msg(prog[i] != NULL, "%s: %s", path, pt_ctx_diagnostics(ctx));
	}
	for (int sz = 0; sz < 2; sz++) {
		cmp_run r;
		cmp_start(&r, ctx, p, 2, a->names, a->size[sz], 31u + (uint32_t)sz);
		for (int i = 0; i < n; i++)
			for (int threads = 1; threads <= 2; threads++) {
				pt_options o = config(confs[i]);
				char label[1100];
				snprintf(label, sizeof(label), "%s -O1 --tile %dx%d --overlap %g%s, size %g x %g, %d thread%s",
					path, o.tile[0], o.tile[1], o.overlap, separates(i, n) ? " --separate-tiles" : "",
					a->size[sz][0], a->size[sz][1],
					threads, threads > 1 ? "s" : "");
				cmp_check(&r, prog[i], threads, label);
			}
		cmp_finish(&r);
	}
	for (int i = 0; i < n; i++)
		pt_program_free(prog[i]);
	free(prog);
	pt_ctx_free(ctx);
}

/* A sample of three configurations per app, different for each app; the
 * smallest tiles are always among them (many tiles, many borders). */
START_TEST(app_grouped_equals_interpreter)
{
	const app_case *a = &apps[_i];
	if (getenv("PT_SWEEP")) {
		int all[NCONF];
		for (int k = 0; k < NCONF; k++)
			all[k] = k;
		check_app(a, all, NCONF);
		return;
	}
	int confs[3] = { 0, (_i * 37 + 11) % NCONF, (_i * 53 + 97) % NCONF };
	check_app(a, confs, 3);
}
END_TEST

/* Outputs past the caches are streamed (non-temporal stores where a
 * vector's address is aligned to its size, plain ones elsewhere): the
 * paper-size apps at their estimates' tiles, into buffers that start
 * aligned and 4, 16 and 32 bytes past, at row lengths that keep rows
 * aligned (256) and that do not (odd ones). */
START_TEST(streamed_outputs_any_alignment)
{
	static const char *const names[] = { "unsharp_mask", "harris", "blur" };
	static const double sizes[][2] = { { 256, 256 }, { 123, 301 } };
	static const int offsets[] = { 0, 4, 16, 32 };
	/* a 32 MiB L3, under each app's output at its estimates: streamed
	 * (tests/cli/test_cli.c checks that the dump says so) */
	setenv("PT_MACHINE", "l1=32K,l2=1M,l3=32M,threads=2,vector=64", 1);
	char path[512];
	snprintf(path, sizeof(path), "%s/%s.pipe", APPS_DIR, names[_i]);
	const app_case *a = NULL;
	for (int k = 0; k < NAPPS; k++)
		if (!strcmp(apps[k].app, names[_i]))
			a = &apps[k];
	ck_assert_ptr_nonnull(a);
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_file(ctx, path);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	pt_options o = { .opt_level = PT_OPT_GROUPED };
	pt_program *prog = pt_compile(ctx, p, &o);
	ck_assert_msg(prog != NULL, "%s: %s", path, pt_ctx_diagnostics(ctx));
	for (int sz = 0; sz < 2; sz++) {
		cmp_run r;
		cmp_start(&r, ctx, p, 2, a->names, sizes[sz], 7u + (uint32_t)sz);
		for (int k = 0; k < 4; k++)
			for (int threads = 1; threads <= 2; threads++) {
				char label[700];
				snprintf(label, sizeof(label), "%s -O1, size %g x %g, outputs %d bytes past a line, %d threads",
					path, sizes[sz][0], sizes[sz][1], offsets[k], threads);
				cmp_out_offset = offsets[k];
				cmp_check(&r, prog, threads, label);
			}
		cmp_out_offset = 0;
		cmp_finish(&r);
	}
	pt_program_free(prog);
	pt_ctx_free(ctx);
}
END_TEST

/* Issue 42: per-group tiles and thresholds.  pyramid_blend's tiled
 * groups (named as `explain` names them) each get tiles of their own,
 * one by its index and one a threshold of 0; explain shows them, and
 * the program equals the interpreter at sizes far from the estimates. */
START_TEST(pyramid_per_group_tiles_equal_interpreter)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/pyramid_blend.pipe", APPS_DIR);
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_file(ctx, path);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	pt_options o = { .opt_level = PT_OPT_GROUPED };
	char *e = pt_explain(ctx, p, &o);
	ck_assert_msg(e != NULL, "%s", pt_ctx_diagnostics(ctx));
	static char names[16][64];
	pt_group_options g[17];
	int n = 0;
	for (const char *c = e; n < 16 && (c = strstr(c, "\n  name: ")); c++) {
		sscanf(c, "\n  name: %63s", names[n]);
		g[n] = (pt_group_options){ .group = names[n], .ntile = 2 };
		g[n].tile[0] = 8 << (n % 3);
		g[n].tile[1] = 16 << (n % 4);
		n++;
	}
	free(e);
	ck_assert_msg(n >= 3, "pyramid_blend has %d tiled groups", n);
	g[0].overlap_set = true;      /* no redundant work in this group */
	g[1] = (pt_group_options){ .index = 1, .ntile = 2, .tile = { 24, 40 } };
	g[n] = (pt_group_options){ .group = names[2], .overlap = 0.45, .overlap_set = true };
	o.groups = g;
	o.ngroups = n + 1;
	e = pt_explain(ctx, p, &o);
	ck_assert_msg(e != NULL, "%s", pt_ctx_diagnostics(ctx));
	char want[200];
	snprintf(want, sizeof(want), "name: %s\n  tile: %d along", names[n - 1], g[n - 1].tile[0]);
	ck_assert_msg(strstr(e, want), "no '%s' in %s", want, e);
	ck_assert_msg(strstr(e, "tile: 24 along"), "group 1's tiles by index not in %s", e);
	free(e);
	pt_program *prog = pt_compile(ctx, p, &o);
	ck_assert_msg(prog != NULL, "%s", pt_ctx_diagnostics(ctx));
	static const char *const pn[] = { "R", "C" };
	static const double sizes[][2] = { { 128, 96 }, { 96, 64 }, { 203, 77 } };
	for (int sz = 0; sz < 3; sz++) {
		cmp_run r;
		cmp_start(&r, ctx, p, 2, pn, sizes[sz], 5u + (uint32_t)sz);
		for (int threads = 1; threads <= 2; threads++) {
			char label[800];
			snprintf(label, sizeof(label), "%s with per-group tiles, size %g x %g, %d threads", path,
				sizes[sz][0], sizes[sz][1], threads);
			cmp_check(&r, prog, threads, label);
		}
		cmp_finish(&r);
	}
	pt_program_free(prog);
	pt_ctx_free(ctx);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("grouped_apps");
	TCase *tc = tcase_create("apps");
	tcase_set_timeout(tc, getenv("PT_SWEEP") ? 36000 : 600);
	tcase_add_loop_test(tc, app_grouped_equals_interpreter, 0, NAPPS);
	tcase_add_loop_test(tc, streamed_outputs_any_alignment, 0, 3);
	suite_add_tcase(s, tc);
	TCase *pg = tcase_create("per_group");
	tcase_set_timeout(pg, 600);
	tcase_add_test(pg, pyramid_per_group_tiles_equal_interpreter);
	suite_add_tcase(s, pg);
	return s;
}

int main(void)
{
	return pt_test_run_suite(suite());
}
