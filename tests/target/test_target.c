/* test_target.c: a test-only target (codegen/target.h) that records what
 * the core hands its hooks (kernels at their tiles, allocations with
 * their placement, exchanges with their regions) and emits what the CPU
 * target does, so that every app still compiles to valid code.  The
 * records are checked against the optimizer: harris's one kernel has
 * the tile plus its widening as its block and the scratchpads `explain`
 * lists; the regions a kernel is given equal footprints computed by
 * hand with isl. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/map.h>
#include <isl/set.h>

#include "polytile.h"
#include "passes.h"
#include "target.h"
#include "greedy.h"

#include "run_suite.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

#define MAX_REC 64

static struct {
	int ntiles, tile_kernel[MAX_REC];           /* tile hook: distinct kernels */
	int nexchanges, exchange_kernel[MAX_REC];
	const pt_kernel *exchanged[MAX_REC];
	int nallocs;
	pt_placement alloc_place[MAX_REC];
	int nscratch, scratch_slot[MAX_REC];
	long long scratch_bytes[MAX_REC];           /* -1: not a constant */
	int nfails;
} rec;

static void rec_tile(pt_cg *cg, const pt_kernel *k, __isl_keep isl_ast_node *body)
{
	bool seen = false;
	for (int i = 0; i < rec.ntiles; i++)
		seen |= rec.tile_kernel[i] == k->index;
	if (!seen && rec.ntiles < MAX_REC)
		rec.tile_kernel[rec.ntiles++] = k->index;
	pt_target_cpu.tile(cg, k, body);
}

static void rec_exchange(pt_cg *cg, const pt_kernel *k)
{
	(void)cg;
	if (rec.nexchanges < MAX_REC) {
		rec.exchanged[rec.nexchanges] = k;
		rec.exchange_kernel[rec.nexchanges++] = k->index;
	}
}

static LLVMValueRef rec_alloc(pt_cg *cg, LLVMValueRef bytes, pt_placement place)
{
	if (rec.nallocs < MAX_REC)
		rec.alloc_place[rec.nallocs++] = place;
	return pt_target_cpu.alloc(cg, bytes, place);
}

static LLVMValueRef rec_scratch(pt_cg *cg, int slot, LLVMValueRef bytes, int64_t most)
{
	if (rec.nscratch < MAX_REC) {
		rec.scratch_slot[rec.nscratch] = slot;
		rec.scratch_bytes[rec.nscratch++] = LLVMIsAConstantInt(bytes) ? LLVMConstIntGetSExtValue(bytes) : -1;
	}
	return pt_target_cpu.scratch(cg, slot, bytes, most);
}

static void rec_fail(pt_cg *cg, LLVMValueRef bad, int code, const char *what, const LLVMValueRef *point, int n)
{
	rec.nfails++;
	(pt_target_cpu.fail)(cg, bad, code, what, point, n);   /* parenthesized: Check defines fail() */
}

static pt_target record_target(void)
{
	pt_target t = pt_target_cpu;
	t.name = "record";
	t.placement = PT_PLACE_DEVICE;   /* what a device target asks: recorded, not acted on */
	t.tile = rec_tile;
	t.exchange = rec_exchange;
	t.alloc = rec_alloc;
	t.scratch = rec_scratch;
	t.fail = rec_fail;
	return t;
}

/* Compiles p's file through "optimize" on the recording target; the
 * unit stays open for the caller's checks (pt_unit_clear after). */
static pt_pipeline *compile_recorded(pt_ctx *ctx, pt_unit *u, pt_options *o, const pt_target *t, const char *path,
	const char *src)
{
	pt_pipeline *p = src ? pt_parse_string(ctx, "t.pipe", src) : pt_parse_file(ctx, path);
	ck_assert_msg(p != NULL, "%s: %s", path, pt_ctx_diagnostics(ctx));
	memset(&rec, 0, sizeof(rec));
	pt_unit_init(u, ctx, o);
	u->input = p;
	u->target = t;
	u->fname = "rec";
	u->llc = LLVMContextCreate();
	ck_assert_msg(pt_passes_run(u, "inline", "optimize") == 0, "%s: %s", path, pt_ctx_diagnostics(ctx));
	return p;
}

static void close_unit(pt_unit *u)
{
	LLVMContextRef llc = u->llc;
	pt_unit_clear(u);
	LLVMContextDispose(llc);
}

static const char *const apps[] = { "harris", "unsharp_mask", "blur", "sobel", "histogram", "bilateral_grid",
	"camera_pipe", "pyramid_blend", "interpolate", "local_laplacian", "heat3d" };

/* Every app, both schedules: the hooks see each tiled kernel's tiles,
 * one exchange per kernel at most, every full buffer at the target's
 * placement, and scratchpads only in tiled kernels. */
START_TEST(every_app_records)
{
	pt_target t = record_target();
	for (int level = 0; level < 2; level++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/%s.pipe", APPS_DIR, apps[_i]);
		pt_ctx *ctx = pt_ctx_new();
		pt_options o = { .opt_level = level ? PT_OPT_GROUPED : PT_OPT_NAIVE };
		pt_unit u;
		compile_recorded(ctx, &u, &o, &t, path, NULL);
		int tiled = 0;
		for (int i = 0; i < u.kernels->n; i++)
			tiled += u.kernels->k[i].ngrid > 0;
		ck_assert_msg(rec.ntiles == tiled, "%s -O%d: tiles of %d kernels, %d tiled", apps[_i], level,
			rec.ntiles, tiled);
		ck_assert_msg(level == 1 || tiled == 0, "%s: -O0 tiled", apps[_i]);
		ck_assert_int_ge(rec.nexchanges, 1);
		for (int i = 0; i < rec.nexchanges; i++)
			for (int j = 0; j < i; j++)
				ck_assert_msg(rec.exchange_kernel[i] != rec.exchange_kernel[j], "%s: kernel %d exchanged twice",
					apps[_i], rec.exchange_kernel[i]);
		for (int i = 0; i < rec.nallocs; i++)
			ck_assert_int_eq(rec.alloc_place[i], PT_PLACE_DEVICE);
		for (int i = 0; i < u.p->nstages; i++)
			ck_assert_int_eq(u.storage->place[i], pt_tiling_is_scratch(u.tiling, u.p->stages[i]) ?
				PT_PLACE_SCRATCH : PT_PLACE_DEVICE);
		ck_assert_msg(tiled > 0 || rec.nscratch == 0, "%s: scratchpads outside tiles", apps[_i]);
		close_unit(&u);
		pt_ctx_free(ctx);
	}
}
END_TEST

/* harris at --tile 32x64: one kernel over 32 x 64 tiles; the output's
 * block is the tile, its producers' the tile widened by what their
 * readers reach; the scratchpads the target is asked for are explain's
 * (the same stages, each of the kernel's extents; their bytes, clipped
 * to the domain at run time, are no constant: test_parallel.c's
 * huge_tiles_* run them). */
START_TEST(harris_one_kernel)
{
	pt_target t = record_target();
	pt_ctx *ctx = pt_ctx_new();
	pt_options o = { .opt_level = PT_OPT_GROUPED, .ntile = 2, .tile = { 32, 64 } };
	pt_unit u;
	const pt_pipeline *p = compile_recorded(ctx, &u, &o, &t, APPS_DIR "/harris.pipe", NULL);
	ck_assert_int_eq(u.kernels->n, 1);
	const pt_kernel *k = &u.kernels->k[0];
	ck_assert_int_eq(k->ngrid, 2);
	ck_assert_int_eq(rec.ntiles, 1);
	ck_assert_ptr_nonnull(k->ast);
	/* the stages' blocks: harris the tile; Sxx.. read Ixx.. at +-1, Ix.. at
	 * the same point as Ixx.. */
	for (int i = 0; i < k->nstages; i++) {
		const char *n = k->stages[i]->name;
		int64_t w = !strcmp(n, "harris") || n[0] == 'S' ? 0 : 2;
		ck_assert_msg(k->block[i][0] == 32 + w && k->block[i][1] == 64 + w, "%s: block [%lld, %lld]", n,
			(long long)k->block[i][0], (long long)k->block[i][1]);
	}
	/* explain's scratchpads */
	char *ex = pt_explain(ctx, p, &o);
	ck_assert_ptr_nonnull(ex);
	int buffers = 0;
	for (int j = 0; j < k->nscratch; j++) {
		const pt_kernel_scratch *s = &k->scratch[j];
		char line[200];
		snprintf(line, sizeof(line), "  %s: widened", s->stage->name);
		ck_assert_msg(strstr(ex, line), "explain does not list %s", s->stage->name);
		snprintf(line, sizeof(line), "  %s: widened [1, 1] [1, 1], %s", s->stage->name,
			s->scalar ? "a scalar" : "scratchpad");
		ck_assert_msg(strstr(ex, line) || strstr(ex, "[0, 0]"), "explain: %s not as the kernel says", s->stage->name);
		if (s->scalar)
			continue;
		for (int d = 0; d < s->stage->ndim; d++)   /* the widened tile: 34 x 66 */
			ck_assert_int_eq(s->extent[d], pt_group_scratch_extent(k->group, s->si, d));
		ck_assert_int_eq(s->extent[0] * s->extent[1], 34 * 66);
		buffers++;
		bool asked = false;
		for (int r = 0; r < rec.nscratch; r++)
			if (rec.scratch_slot[r] == s->si)
				asked = rec.scratch_bytes[r] == -1;
		ck_assert_msg(asked, "%s: scratchpad not asked for at its size", s->stage->name);
	}
	ck_assert_int_eq(buffers, 3);   /* Ixx, Iyy, Ixy: read at +-1 by the box sums */
	ck_assert_int_eq(rec.nscratch, buffers);
	free(ex);
	/* the exchange gives this kernel, which reads I; per tile, an
	 * interior tile (2, 3) at R = C = 1000 reads rows 32 * 2 - 2 ..
	 * 32 * 2 + 33 and columns 64 * 3 - 2 .. 64 * 3 + 65 of I (the tile
	 * widened by 1 for the box sums and 1 more for the gradients) */
	ck_assert_int_eq(rec.nexchanges, 1);
	ck_assert_ptr_eq(rec.exchanged[0], k);
	ck_assert_int_eq(k->ninputs, 1);
	ck_assert_str_eq(k->inputs[0].array, "I");
	isl_set *want = isl_set_read_from_str(u.ctx->isl,
		"[R, C] -> { I[i, j] : R = 1000 and C = 1000 and 62 <= i <= 97 and 190 <= j <= 257 }");
	isl_set *tile = isl_set_read_from_str(u.ctx->isl, "[R, C] -> { tile[2, 3] : R = 1000 and C = 1000 }");
	isl_set *got = isl_set_apply(tile, isl_map_copy(k->inputs[0].per_tile));
	bool eq = isl_set_is_equal(got, want) == isl_bool_true;
	char *gs = isl_set_to_str(got);
	isl_set_free(got);
	isl_set_free(want);
	ck_assert_msg(eq, "harris's footprint of I in tile (2, 3): %s", gs);
	free(gs);
	close_unit(&u);
	pt_ctx_free(ctx);
}
END_TEST

/* Two kernels (a reduction starts a group of its own): the second is
 * given, for f, exactly the elements it reads, computed by hand. */
static const char two_groups[] =
	"pipeline two\n"
	"param N : int = 4096\n"
	"image I : f32 [N]\n"
	"func f(x : 1 .. N-2) : f32 = I(x-1) + I(x+1)\n"
	"reduce s(i : 0 .. 0) : f32 over (x : 1 .. N-2)\n"
	"  | s(0) += f(x)\n"
	"func g(x : 3 .. N-4) : f32 = f(x-2) + f(x+2) + s(0)\n"
	"output g\n";

START_TEST(two_kernels_exchange_footprints)
{
	pt_target t = record_target();
	for (int level = 0; level < 2; level++) {
		pt_ctx *ctx = pt_ctx_new();
		pt_options o = { .opt_level = level ? PT_OPT_GROUPED : PT_OPT_NAIVE };
		pt_unit u;
		compile_recorded(ctx, &u, &o, &t, "two", two_groups);
		ck_assert_int_ge(u.kernels->n, 2);
		const pt_kernel *kg = &u.kernels->k[u.kernels->of_stage[pt_pipeline_find_stage(u.p, "g")->id]];
		ck_assert_msg(u.kernels->of_stage[pt_pipeline_find_stage(u.p, "f")->id] != kg->index,
			"-O%d: f and g in one kernel", level);
		bool given = false;
		for (int i = 0; i < rec.nexchanges; i++)
			given |= rec.exchanged[i] == kg;
		ck_assert_msg(given, "g's kernel not exchanged");
		const pt_kernel_input *fin = NULL;
		for (int i = 0; i < kg->ninputs; i++)
			if (!strcmp(kg->inputs[i].array, "f"))
				fin = &kg->inputs[i];
		ck_assert_ptr_nonnull(fin);
		/* g reads f at x - 2 and x + 2 for x in 3 .. N - 4: 1 .. N - 6 and
		 * 5 .. N - 2 */
		isl_set *want = isl_set_read_from_str(u.ctx->isl,
			"[N] -> { f[i] : (1 <= i <= N - 6) or (5 <= i <= N - 2) }");
		want = isl_set_intersect_params(want, isl_set_copy(u.model->context));
		isl_set *got = isl_set_intersect_params(isl_set_copy(fin->footprint), isl_set_copy(u.model->context));
		bool eq = isl_set_is_equal(got, want) == isl_bool_true;
		char *gs = isl_set_to_str(got);
		isl_set_free(got);
		isl_set_free(want);
		ck_assert_msg(eq, "-O%d: g's footprint of f: %s", level, gs);
		free(gs);
		close_unit(&u);
		pt_ctx_free(ctx);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("target");
	TCase *tc = tcase_create("record");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, every_app_records, 0, (int)(sizeof(apps) / sizeof(apps[0])));
	tcase_add_test(tc, harris_one_kernel);
	tcase_add_test(tc, two_kernels_exchange_footprints);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pt_test_run_suite(suite());
}
