/* test_tile_model.c: the tile model (grouping/tile_model.c): the sizes
 * PPL's MIP solver picks respect the program's constraints on several
 * made-up machines (tiles of 1024 points or more, redundant work at most 0.5, a smaller L2 gives smaller tiles, more threads more
 * tiles, the innermost a multiple of the vector width), a group too
 * small for the constraints, and a failed solve keeping the fixed sizes;
 * the FPU's rounding left to nearest; PT_MACHINE's parsing and explain's
 * text. */
#include <check.h>
#include <fenv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "polytile.h"
#include "ctx.h"
#include "greedy.h"
#include "machine_facts.h"
#include "run_suite.h"
#include "tile_model.h"
#include "gpu_tile.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

static pt_ctx *ctx;
static pt_pipeline *pipe_;
static pt_tiling *tiling;
static int64_t ip[8];
static pt_strbuf text;

/* A two-stencil chain (two scratchpads, widened in both dims) at R x C
 * (the estimates) of element type ty. */
static const char *const src_fmt =
	"pipeline t\n"
	"param R : int = %d\n"
	"param C : int = %d\n"
	"image I : %s [R+4, C+4]\n"
	"func a(x : 0 .. R+3, y : 0 .. C+3) : %s = I(x, y) * 2\n"
	"func b(x : 1 .. R+2, y : 1 .. C+2) : %s = a(x-1, y) + a(x+1, y) + a(x, y-1) + a(x, y+1)\n"
	"func c(x : 2 .. R+1, y : 2 .. C+1) : %s = b(x-1, y) + b(x+1, y) + b(x, y-1) + b(x, y+1)\n"
	"output c\n";

/* The one group, tiled in two dims, of the pipeline src. */
static pt_group *the_group(const char *src)
{
	pipe_ = pt_parse_string(ctx, "t.pipe", src);
	ck_assert_msg(pipe_ != NULL, "%s", pt_ctx_diagnostics(ctx));
	pt_options o = {0};
	tiling = pt_group_greedy(ctx->isl, pipe_, &o, NULL, NULL, NULL);
	ck_assert_ptr_nonnull(tiling);
	ck_assert_int_eq(tiling->ngroups, 1);
	pt_group_estimates(pipe_, &o, ip);
	ck_assert_int_eq(tiling->groups[0].ntile, 2);
	return &tiling->groups[0];
}

/* The one tiled group of the pipeline at R x C of type ty. */
static pt_group *group_of(int R, int C, const char *ty)
{
	char src[2048];
	snprintf(src, sizeof(src), src_fmt, R, C, ty, ty, ty, ty);
	return the_group(src);
}

/* m (a pt_machine *) as the CPU's target description. */
#define TARGET(m) pt_target_desc_cpu((m), &(pt_target_desc){ .kind = PT_TARGET_KIND_CPU })

static pt_machine machine(int64_t l2, int threads, int vector)
{
	pt_machine m = { .l1 = 32 << 10, .l2 = l2, .l3 = 32 << 20, .threads = threads, .vector_bytes = vector };
	strcpy(m.source, "test");
	return m;
}

/* One tile's scratchpad bytes at g's sizes. */
static double footprint(const pt_group *g)
{
	double n = 0;
	for (int s = 0; s < g->nstages; s++) {
		if (g->liveout[s])
			continue;
		double b = (double)pt_type_size((pt_type)g->stages[s]->type);
		for (int d = 0; d < g->stages[s]->ndim; d++)
			b *= (double)pt_group_scratch_extent(g, s, d);
		n += b;
	}
	return n;
}

static int64_t tiles_along_0(const pt_group *g, int64_t extent)
{
	return (extent + g->tsize[0] - 1) / g->tsize[0];
}

/* Chooses g's sizes for m and checks the program's constraints. */
static void choose_and_check(pt_group *g, const pt_machine *m, int64_t extent0, int lanes)
{
	pt_sb_free(&text);
	ck_assert_int_eq(pt_tile_model_choose(pipe_, g, ip, 0.4, TARGET(m), &text), 0);
	const char *t = text.s ? text.s : "";
	ck_assert_msg(strstr(t, "solution:"), "%s", t);
	ck_assert_msg(!strstr(t, "infeasible"), "%s", t);
	ck_assert_msg(g->tsize[1] % lanes == 0, "innermost %lld not a multiple of %d", (long long)g->tsize[1], lanes);
	ck_assert_msg(footprint(g) <= 0.5 * (double)m->l2, "%g bytes over half of L2 %lld: %s", footprint(g),
		(long long)m->l2, t);
	ck_assert_msg(tiles_along_0(g, extent0) >= 2 * m->threads, "%s", t);
	ck_assert_msg(g->tsize[0] * g->tsize[1] >= 1024, "%s", t);
	double ovl = 1;
	for (int k = 0; k < 2; k++) {
		int64_t o = 0;
		for (int s = 0; s < g->nstages; s++)
			if (g->ext[s][g->tdim[k]][0] + g->ext[s][g->tdim[k]][1] > o)
				o = g->ext[s][g->tdim[k]][0] + g->ext[s][g->tdim[k]][1];
		ck_assert_int_gt(o, 0);
		ovl *= (double)(g->tsize[k] + o) / (double)g->tsize[k];
	}
	ck_assert_msg(ovl - 1 <= 0.5, "overlap %g: %s", ovl - 1, t);
	for (int k = 0; k < 2; k++)
		ck_assert(g->tsize[k] >= PT_TILE_MODEL_MIN && g->tsize[k] <= PT_TILE_MODEL_MAX);
}

static void setup(void)
{
	ctx = pt_ctx_new();
	pipe_ = NULL;
	tiling = NULL;
	memset(&text, 0, sizeof(text));
	pt_tile_model_fail_for_test(false);
}

static void teardown(void)
{
	pt_tiling_free(tiling);
	pt_sb_free(&text);
	pt_ctx_free(ctx);
	pt_tile_model_fail_for_test(false);
}

START_TEST(constraints_hold_on_several_machines)
{
	static const int64_t l2s[] = { 128 << 10, 256 << 10, 1 << 20, 2 << 20 };
	static const int threads[] = { 1, 2, 8, 64 };
	static const int vectors[] = { 16, 32, 64 };
	pt_group *g = group_of(4000, 3000, "float");
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			for (int v = 0; v < 3; v++) {
				pt_machine m = machine(l2s[i], threads[j], vectors[v]);
				choose_and_check(g, &m, 4000, vectors[v] / 4);
			}
}
END_TEST

/* PPL sets the FPU to round upward; compiled pipelines run in the same
 * process must still round to nearest. */
START_TEST(rounding_mode_kept)
{
	pt_group *g = group_of(4000, 3000, "float");
	pt_machine m = machine(1 << 20, 2, 32);
	ck_assert_int_eq(fegetround(), FE_TONEAREST);
	choose_and_check(g, &m, 4000, 8);
	ck_assert_int_eq(fegetround(), FE_TONEAREST);
	volatile float a = 1.0f, b = 3.0f;
	ck_assert(a / b == 0.333333343f);   /* round to nearest; upward gives 0.333333373 */
}
END_TEST

/* Issue 42: the model asks the target through functions: the CPU's
 * description answers from pt_machine, a GPU's from its own fields (the
 * fits-L1 test then asks a block's shared memory), the same group. */
START_TEST(model_asks_the_target_description)
{
	pt_group *g = group_of(4000, 3000, "float");
	pt_machine m = machine(1 << 20, 2, 32);
	pt_target_desc cpu, gpu = { .kind = PT_TARGET_KIND_GPU,
		.gpu = { .shared_per_block = 1 << 30, .max_threads_per_block = 1024, .sms = 132, .vector_bytes = 128 } };
	const pt_target_desc *c = pt_target_desc_cpu(&m, &cpu);
	ck_assert_ptr_null(pt_target_desc_cpu(NULL, &cpu));
	ck_assert_int_eq(pt_target_near_bytes(c), 32 << 10);
	ck_assert_int_eq(pt_target_tile_bytes(c), 1 << 20);
	ck_assert_int_eq(pt_target_workers(c), 2);
	ck_assert_int_eq(pt_target_vector_bytes(c), 32);
	ck_assert_int_eq(pt_target_workers(&gpu), 132);
	ck_assert_int_eq(pt_target_vector_bytes(&gpu), 128);
	g->tsize[0] = 512;
	g->tsize[1] = 512;
	double cb, gb;
	ck_assert(!pt_tile_model_fits_l1(g, ip, c, &cb));
	ck_assert(pt_tile_model_fits_l1(g, ip, &gpu, &gb));
	ck_assert(cb == gb);
	/* one scratchpad-slot count for the grouping and the runtime */
	ck_assert_int_eq(PT_RT_SCRATCH_SLOTS, 64);
}
END_TEST

/* blur's group (6400 x 4800 u16, bx's scratchpad (rows + 2) x cols) as
 * the GPU model sees it. */
static double blur_scratch(void *user, int64_t rows, int64_t cols)
{
	(void)user;
	return (double)((rows + 2) * cols * 2);
}

static void blur_shape(void *user, pt_gpu_tile_case *c)
{
	c->scratch = blur_scratch(user, c->rows, c->cols);
}

static double blur_time(const pt_target_desc *dev, int64_t rows, int64_t cols)
{
	pt_gpu_tile_case c = { .rows = rows, .cols = cols, .extent = { 6400, 4800 }, .overlap = { 2, 0 },
		.in_bytes = 2, .out_bytes = 2, .stages = 2 };
	c.scratch = blur_scratch(NULL, rows, cols);
	return pt_gpu_tile_time(dev, &c, NULL);
}

/* The device model (gpu_tile.c) orders the tiles measured on an H200 as
 * they ran (blur: 0.073 ms at 32 x 256, 0.076 at 16 x 256 and 64 x 128,
 * 0.123 at 8 x 128); a tile's scratchpads past a block's shared memory
 * fit nowhere, and past an SM's share they cost occupancy; $PT_GPU
 * changes the device. */
START_TEST(gpu_model_orders_measured_tiles)
{
	pt_target_desc dev;
	pt_target_desc_gpu(&dev);
	double best = blur_time(&dev, 32, 256);
	ck_assert_double_gt(blur_time(&dev, 8, 128) / best, 1.3);
	ck_assert_double_lt(blur_time(&dev, 16, 256) / best, 1.25);
	ck_assert_double_lt(blur_time(&dev, 64, 128) / best, 1.25);
	ck_assert_double_lt(blur_time(&dev, 16, 256), blur_time(&dev, 8, 128));
	/* the model's choice is no slower than any measured tile */
	pt_gpu_tile_case c = { .extent = { 6400, 4800 }, .overlap = { 2, 0 }, .in_bytes = 2, .out_bytes = 2, .stages = 2 };
	pt_strbuf text = { 0 };
	ck_assert_int_eq(pt_gpu_tile_choose(&dev, &c, blur_shape, NULL, &text), 0);
	ck_assert_double_le(pt_gpu_tile_time(&dev, &c, NULL), best);
	ck_assert_ptr_nonnull(strstr(text.s, " predicted (memory "));
	pt_sb_free(&text);
	/* occupancy: 32 KiB of scratchpads leave 6 blocks of an SM's 228 KiB;
	 * over a block's 48 KiB, none */
	pt_gpu_tile_cost k;
	c.rows = 64;
	c.cols = 256;
	c.bx = c.by = 0;   /* 32 x 8 */
	c.scratch = 32 << 10;
	pt_gpu_tile_time(&dev, &c, &k);
	ck_assert_int_eq(k.blocks_per_sm, 6);
	ck_assert_double_eq_tol(k.occupancy, 0.75, 1e-9);
	c.scratch = 49 << 10;
	ck_assert(pt_gpu_tile_time(&dev, &c, &k) == HUGE_VAL);
	ck_assert_int_eq(k.blocks_per_sm, 0);
	/* a device with a tenth of the bandwidth: ten times the memory time */
	char err[300];
	setenv("PT_GPU", "bw=335,sms=132", 1);
	pt_target_desc slow;
	pt_target_desc_gpu(&slow);
	ck_assert_int_eq(pt_target_desc_gpu_env(&slow, err, sizeof(err)), 0);
	pt_gpu_tile_cost a, b;
	c.scratch = 17 << 10;
	pt_gpu_tile_time(&dev, &c, &a);
	pt_gpu_tile_time(&slow, &c, &b);
	ck_assert_double_eq_tol(b.memory / a.memory, 10, 1e-9);
	/* the overlap's rows read again come from L2 (7 TB/s) while the
	 * resident tiles read under half of it; from device memory past
	 * that (an L2 of 64 KiB) */
	pt_gpu_tile_case o = { .rows = 8, .cols = 256, .extent = { 6400, 5120 }, .overlap = { 8, 0 }, .in_bytes = 4,
		.out_bytes = 4, .stages = 1 };
	pt_gpu_tile_cost hit, miss;
	pt_gpu_tile_time(&dev, &o, &hit);
	pt_target_desc small = dev;
	small.gpu.l2_bytes = 64 << 10;
	pt_gpu_tile_time(&small, &o, &miss);
	double area = 6400.0 * 5120.0, once = 4 * area, all = 2 * once;   /* 16 rows read for 8 */
	ck_assert_double_eq_tol(miss.memory, (all + once) / 3.35e12, 1e-12);
	ck_assert_double_eq_tol(hit.memory, 2 * once / 3.35e12 + (all - once) / 7e12, 1e-12);
	setenv("PT_GPU", "l2=64K,l2bw=3500", 1);
	ck_assert_int_eq(pt_target_desc_gpu_env(&slow, err, sizeof(err)), 0);
	ck_assert_int_eq(slow.gpu.l2_bytes, 64 << 10);
	ck_assert_double_eq_tol(slow.gpu.l2_bandwidth, 3.5e12, 1);
	setenv("PT_GPU", "sms=132,warp=64", 1);
	ck_assert_int_eq(pt_target_desc_gpu_env(&slow, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "PT_GPU=sms=132,warp=64: bad item 'warp=64'"));
	unsetenv("PT_GPU");
}
END_TEST

static void big_scratch(void *user, pt_gpu_tile_case *c)
{
	(void)user;
	c->scratch = 40 << 10;
}

/* The block (gpu_tile.c): the lanes a widened tile leaves idle cost as
 * busy ones; where scratchpads allow few blocks per multiprocessor, the
 * model takes larger blocks to keep its threads busy. */
START_TEST(gpu_model_chooses_blocks)
{
	pt_target_desc dev;
	pt_target_desc_gpu(&dev);
	pt_gpu_tile_case c = { .rows = 64, .cols = 32, .extent = { 6400, 6400 }, .in_bytes = 4, .out_bytes = 4,
		.stages = 4, .bx = 32, .by = 8 };
	pt_gpu_tile_cost flat, wide;
	pt_gpu_tile_time(&dev, &c, &flat);
	c.overlap[1] = 2;   /* 34 columns: two steps of 32 lanes */
	pt_gpu_tile_time(&dev, &c, &wide);
	ck_assert_double_eq_tol(wide.compute / flat.compute, 2, 1e-9);
	/* 40 KiB of scratchpads on a device of 100 KiB of shared memory per
	 * multiprocessor: two blocks on each, so 32 x 8 threads fill a
	 * quarter of it; the model's block fills at least half */
	dev.gpu.shared_per_sm = 100 << 10;
	pt_gpu_tile_case b = { .extent = { 6400, 6400 }, .overlap = { 2, 2 }, .in_bytes = 4, .out_bytes = 4, .stages = 4 };
	pt_strbuf text = { 0 };
	ck_assert_int_eq(pt_gpu_tile_choose(&dev, &b, big_scratch, NULL, &text), 0);
	pt_gpu_tile_cost k;
	pt_gpu_tile_time(&dev, &b, &k);
	ck_assert_int_eq(k.blocks_per_sm, 2);
	ck_assert_int_ge(b.bx * b.by, 512);
	ck_assert_int_le(b.bx * b.by, 1024);
	ck_assert_int_eq(b.bx % 32, 0);
	ck_assert_double_ge(k.occupancy, 0.5);
	char want[64];
	snprintf(want, sizeof(want), "in blocks of %d x %d threads", b.bx, b.by);
	ck_assert_ptr_nonnull(strstr(text.s, want));
	pt_sb_free(&text);
}
END_TEST

/* Per stage (gpu_tile.c with st): a stage at half the scale steps the
 * lanes of the same block as a full one when its half tile still needs
 * every step (idle lanes cost as busy ones), and a point twice the
 * work costs twice; an untiled kernel's block of 256 lanes costs as
 * much over 15 iterations of its innermost loop as over 256. */
START_TEST(gpu_model_counts_each_stage_s_lanes)
{
	pt_target_desc dev;
	pt_target_desc_gpu(&dev);
	pt_gpu_tile_stage st[2] = { { .points = { 8, 64 }, .inner = 1, .weight = 1 },
		{ .points = { 8, 64 }, .inner = 1, .weight = 1 } };
	pt_gpu_tile_case c = { .rows = 8, .cols = 64, .extent = { 4096, 4096 }, .in_bytes = 4, .out_bytes = 4,
		.bx = 32, .by = 8, .nst = 2, .st = st };
	pt_gpu_tile_cost full, half, heavy;
	pt_gpu_tile_time(&dev, &c, &full);
	st[1].points[0] = 4;   /* half the rows: still one step of 8 */
	st[1].points[1] = 32;  /* half the cols: one step of 32 instead of two */
	pt_gpu_tile_time(&dev, &c, &half);
	ck_assert_double_eq_tol(half.compute / full.compute, 0.75, 1e-9);
	st[1].weight = 3;
	pt_gpu_tile_time(&dev, &c, &heavy);
	ck_assert_double_eq_tol(heavy.compute / full.compute, 1.25, 1e-9);
	pt_gpu_untiled_case a = { .blocks = 100000, .inner = 15, .bytes = 1e6, .weight = 1 }, b = a;
	b.inner = 256;
	ck_assert_double_eq_tol(pt_gpu_untiled_time(&dev, &a), pt_gpu_untiled_time(&dev, &b), 1e-12);
	b.blocks = 100;   /* the same points in fewer, fuller blocks: fewer waves */
	ck_assert_double_lt(pt_gpu_untiled_time(&dev, &b), pt_gpu_untiled_time(&dev, &a) / 10);
}
END_TEST

START_TEST(smaller_l2_smaller_tiles)
{
	/* 8 x 128 (two float scratchpads of 12 x 132: 12.4 KiB) fits half of
	 * any usual L2; one of 16 KiB (L1 4 KiB) needs smaller tiles */
	pt_group *g = group_of(4000, 3000, "float");
	pt_machine big = machine(2 << 20, 2, 32), small = machine(16 << 10, 2, 32);
	small.l1 = 4 << 10;
	choose_and_check(g, &big, 4000, 8);
	double area_big = (double)(g->tsize[0] * g->tsize[1]);
	/* the smallest tile gives way (volume dropped) before the footprint */
	pt_sb_free(&text);
	ck_assert_int_eq(pt_tile_model_choose(pipe_, g, ip, 0.4, TARGET(&small), &text), 0);
	ck_assert_msg(footprint(g) <= 0.5 * (double)small.l2, "%g bytes: %s", footprint(g), text.s);
	double area_small = (double)(g->tsize[0] * g->tsize[1]);
	ck_assert_msg(area_small < area_big, "%g !< %g", area_small, area_big);
}
END_TEST

START_TEST(more_threads_more_tiles)
{
	/* 400 rows: 2 threads get tiles of 16 rows (8 would pass the
	 * overlap bound: 4 rows of overlap), 25 of them; 16 threads need 32
	 * tiles, so the overlap bound gives way first (dropped, and said) */
	pt_group *g = group_of(400, 3000, "float");
	pt_machine two = machine(1 << 20, 2, 32), many = machine(1 << 20, 16, 32);
	choose_and_check(g, &two, 400, 8);
	int64_t n2 = tiles_along_0(g, 400);
	pt_sb_free(&text);
	ck_assert_int_eq(pt_tile_model_choose(pipe_, g, ip, 0.4, TARGET(&many), &text), 0);
	ck_assert_msg(strstr(text.s, "infeasible: dropped overlap"), "%s", text.s);
	int64_t nmany = tiles_along_0(g, 400);
	ck_assert_msg(nmany > n2 && nmany >= 32, "%lld tiles for 16 threads, %lld for 2", (long long)nmany, (long long)n2);
}
END_TEST

START_TEST(innermost_multiple_of_vector)
{
	/* u8 with 64-byte vectors: 64 lanes, so the innermost is 64 .. 512 */
	pt_group *g = group_of(4000, 3000, "u8");
	pt_machine m = machine(1 << 20, 2, 64);
	choose_and_check(g, &m, 4000, 64);
	ck_assert_msg(strstr(text.s, "y64..y512"), "%s", text.s);
}
END_TEST

START_TEST(degenerate_group)
{
	/* 64 x 70 points (the smallest the grouping tiles) on 16 threads:
	 * 32 tiles of 8 rows cannot be had with the overlap bound, which is
	 * dropped; the result still is a valid pair of candidates */
	pt_group *g = group_of(60, 66, "float");
	pt_machine m = machine(1 << 20, 16, 64);
	pt_sb_free(&text);
	ck_assert_int_eq(pt_tile_model_choose(pipe_, g, ip, 0.4, TARGET(&m), &text), 0);
	ck_assert_msg(strstr(text.s, "infeasible: dropped"), "%s", text.s);
	ck_assert_msg(strstr(text.s, "solution:"), "%s", text.s);
	ck_assert(g->tsize[0] >= 8 && g->tsize[0] <= 64);
	ck_assert(g->tsize[1] == 16 || g->tsize[1] == 32 || g->tsize[1] == 64 || g->tsize[1] == 128);
}
END_TEST

START_TEST(ppl_failure_keeps_fixed_sizes)
{
	pt_group *g = group_of(4000, 3000, "float");
	ck_assert_int_eq(g->tsize[0], 32);
	ck_assert_int_eq(g->tsize[1], 256);
	pt_machine m = machine(128 << 10, 2, 32);
	pt_tile_model_fail_for_test(true);
	ck_assert_int_eq(pt_tile_model_choose(pipe_, g, ip, 0.4, TARGET(&m), &text), -1);
	ck_assert_msg(strstr(text.s, "failed: the fixed default sizes kept"), "%s", text.s);
	ck_assert_int_eq(g->tsize[0], 32);
	ck_assert_int_eq(g->tsize[1], 256);
}
END_TEST

/* A group with a stage at half resolution along x: rows are free up to
 * 32 of the coarse stage's (64 of the group's), then priced like a
 * full-resolution group's, so that a large L2 does not make the tile as
 * tall as the footprint allows (camera_pipe ran 1.06-1.12x slower at 256
 * rows than at 64). */
START_TEST(scaled_rows_priced_past_32_coarse_rows)
{
	pt_group *g = the_group(
		"pipeline t\n"
		"param R : int = 2048\n"
		"param C : int = 2048\n"
		"image I : short [R+8, C+8]\n"
		"func d(x : 0 .. R/2+3, y : 0 .. C+7) : short = (I(2*x, y) + I(2*x+1, y)) / 2\n"
		"func e(x : 1 .. R/2+2, y : 1 .. C+6) : short = d(x-1, y) + d(x+1, y) + d(x, y-1) + d(x, y+1)\n"
		"func o(x : 2 .. R+1, y : 2 .. C+5) : short = e(x/2, y) + e(x/2, y-1)\n"
		"output o\n");
	/* no L1 to win, and an L2 that would hold 512 rows */
	int64_t l2[] = { 1 << 20, 8 << 20, 32 << 20 };
	for (int i = 0; i < 3; i++) {
		pt_machine m = machine(l2[i], 2, 64);
		m.l1 = 1 << 10;
		pt_sb_free(&text);
		ck_assert_int_eq(pt_tile_model_choose(pipe_, g, ip, 0.4, TARGET(&m), &text), 0);
		ck_assert_msg(strstr(text.s, "ln(max(1, t_k / (32 s_k)))"), "%s", text.s);
		ck_assert_msg(g->tsize[0] == 64, "%lld rows: %s", (long long)g->tsize[0], text.s);
	}
}
END_TEST

/* A VM's 480 MiB L3 over 2 vCPUs is planned as 24 MiB; a real part's
 * share, or an unreadable list, is kept. */
START_TEST(l3_share_per_cpu)
{
	ck_assert_int_eq(pt_machine_l3_share(480ll << 20, "0-1"), 24ll << 20);
	ck_assert_int_eq(pt_machine_l3_share(480ll << 20, "0,2-3"), 36ll << 20);
	ck_assert_int_eq(pt_machine_l3_share(32ll << 20, "0-7"), 32ll << 20);
	ck_assert_int_eq(pt_machine_l3_share(105ll << 20, "0-55"), 105ll << 20);
	ck_assert_int_eq(pt_machine_l3_share(480ll << 20, "0"), 12ll << 20);
	static const char *const bad[] = { "", "x", "3-1", "0-", "0;1", "-1" };
	for (int i = 0; i < 6; i++)
		ck_assert_msg(pt_machine_l3_share(480ll << 20, bad[i]) == 480ll << 20, "'%s'", bad[i]);
	ck_assert_int_eq(pt_machine_l3_share(480ll << 20, NULL), 480ll << 20);
}
END_TEST

START_TEST(pt_machine_override)
{
	pt_machine m;
	char *err = NULL;
	setenv("PT_MACHINE", "l1=48K,l2=2M,l3=64M,threads=3,vector=32", 1);
	ck_assert_int_eq(pt_machine_facts(NULL, &m, &err), 0);
	ck_assert_int_eq(m.l1, 48 << 10);
	ck_assert_int_eq(m.l2, 2 << 20);
	ck_assert_int_eq(m.l3, 64 << 20);
	ck_assert_int_eq(m.threads, 3);
	ck_assert_int_eq(m.vector_bytes, 32);
	ck_assert_msg(strstr(m.source, "caches: PT_MACHINE;"), "%s", m.source);
	setenv("PT_MACHINE", "l2=512K", 1);
	pt_options o = { .threads = 5 };
	ck_assert_int_eq(pt_machine_facts(&o, &m, &err), 0);
	ck_assert_int_eq(m.l2, 512 << 10);
	ck_assert_int_eq(m.threads, 5);
	static const char *const bad[] = { "l2=", "l2=1X", "cache=1M", "vector=48", "threads=0", "l1=32K;l2=1M" };
	for (int i = 0; i < 6; i++) {
		setenv("PT_MACHINE", bad[i], 1);
		ck_assert_msg(pt_machine_facts(NULL, &m, &err) == -1, "%s accepted", bad[i]);
		ck_assert_msg(err && strstr(err, "PT_MACHINE="), "%s", err ? err : "(no message)");
		free(err);
		err = NULL;
	}
	unsetenv("PT_MACHINE");
}
END_TEST

START_TEST(explain_shows_the_program)
{
	setenv("PT_MACHINE", "l1=32K,l2=1M,l3=32M,threads=2,vector=64", 1);
	pt_pipeline *p = pt_parse_file(ctx, APPS_DIR "/blur.pipe");
	ck_assert_ptr_nonnull(p);
	pt_options o = {0};
	char *e = pt_explain(ctx, p, &o);
	ck_assert_msg(e != NULL, "%s", pt_ctx_diagnostics(ctx));
	ck_assert_msg(strstr(e, "tile model (no --tile): machine: L1d 32 KiB, L2 1024 KiB per core, L3 32768 KiB shared, "
		"2 threads, vectors of 64 bytes (caches: PT_MACHINE;"), "%s", e);
	ck_assert_msg(strstr(e, "minimize") && strstr(e, "footprint:") && strstr(e, "tiles:") && strstr(e, "solution:"), "%s", e);
	free(e);
	/* --tile bypasses the model */
	o.ntile = 2;
	o.tile[0] = 32;
	o.tile[1] = 256;
	e = pt_explain(ctx, p, &o);
	ck_assert_msg(e && strstr(e, "tile sizes: given") && !strstr(e, "minimize") && strstr(e, "32 along x"), "%s", e);
	free(e);
	unsetenv("PT_MACHINE");
}
END_TEST

/* The model counts the scratchpads the statements pass will give a tile
 * (pt_group_predicted_nests, before statements exist); explain counts
 * those the real fused nests give.  Per tiled group of every app, the
 * model's "scratchpads X KiB" equals explain's "scratchpads of a tile",
 * up to their one-decimal rounding (0.05 KiB + 0.05 KB). */
START_TEST(predicted_scratchpads_are_codegen_s)
{
	static const char *const names[] = { "blur", "sobel", "harris", "unsharp_mask", "bilateral_grid",
		"camera_pipe", "interpolate", "local_laplacian", "pyramid_blend" };
	setenv("PT_MACHINE", "l1=32K,l2=1M,l3=32M,threads=2,vector=64", 1);
	for (int a = 0; a < 9; a++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/%s.pipe", APPS_DIR, names[a]);
		pt_pipeline *p = pt_parse_file(ctx, path);
		ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
		pt_options o = {0};
		char *e = pt_explain(ctx, p, &o);
		ck_assert_msg(e != NULL, "%s", pt_ctx_diagnostics(ctx));
		double model[64], real[64];
		int nm = 0, nr = 0;
		for (const char *c = e; (c = strstr(c, "  solution:")) && nm < 64; c++) {
			const char *k = strstr(c, "scratchpads ");
			ck_assert_msg(k && sscanf(k, "scratchpads %lf KiB", &model[nm]) == 1, "%s", e);
			model[nm++] *= 1024;
		}
		for (const char *c = e; (c = strstr(c, "scratchpads of a tile: ")) && nr < 64; c++) {
			char unit[8];
			ck_assert_msg(sscanf(c, "scratchpads of a tile: %lf %7s", &real[nr], unit) == 2, "%s", e);
			real[nr++] *= !strcmp(unit, "MB") ? 1e6 : !strcmp(unit, "KB") ? 1e3 : 1;
		}
		ck_assert_msg(nm > 0 && nm == nr, "%s: %d programs, %d tiled groups", names[a], nm, nr);
		for (int g = 0; g < nm; g++)
			ck_assert_msg(fabs(model[g] - real[g]) <= 0.051 * 1024 + 0.051 * 1000, "%s, tiled group %d: model %.0f bytes, codegen %.0f",
				names[a], g, model[g], real[g]);
		free(e);
	}
	unsetenv("PT_MACHINE");
}
END_TEST

/* pt_tile_model_predict (enumeration) gives the sizes PPL's solve
 * gives: on the chain across machines, sizes and types, the relaxed
 * cases included (a tiny group, many threads, a small L2), and on
 * every tiled group of every app; it needs no PPL (a failed solve
 * leaves it be). */
static void same_choice(const pt_group *g0, const pt_machine *m, double theta, const char *what)
{
	pt_group a = *g0, b = *g0;
	int ra = pt_tile_model_choose(pipe_, &a, ip, theta, TARGET(m), NULL);
	int rb = pt_tile_model_predict(&b, ip, theta, TARGET(m));
	ck_assert_int_eq(ra, rb);
	for (int k = 0; k < g0->ntile; k++)
		ck_assert_msg(a.tsize[k] == b.tsize[k], "%s, l2 %lld, %d threads, %d-byte vectors: dim %d: PPL %lld, "
			"enumeration %lld", what, (long long)m->l2, m->threads, m->vector_bytes, k, (long long)a.tsize[k],
			(long long)b.tsize[k]);
}

START_TEST(predict_agrees_with_ppl)
{
	static const int64_t l2s[] = { 16 << 10, 256 << 10, 1 << 20 };
	static const int threads[] = { 1, 2, 16 };
	static const int vectors[] = { 16, 64 };
	static const struct { int R, C; const char *ty; } sizes[] = {
		{ 4000, 3000, "float" }, { 400, 3000, "float" }, { 60, 66, "float" }, { 4000, 3000, "u8" },
		{ 2000, 700, "double" } };
	for (int z = 0; z < 5; z++) {
		pt_tiling_free(tiling);
		pt_group *g = group_of(sizes[z].R, sizes[z].C, sizes[z].ty);
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 3; j++)
				for (int v = 0; v < 2; v++) {
					pt_machine m = machine(l2s[i], threads[j], vectors[v]);
					same_choice(g, &m, v ? 0.2 : 0.6, sizes[z].ty);
				}
	}
	pt_tiling_free(tiling);
	tiling = NULL;
	static const char *const names[] = { "blur", "sobel", "harris", "unsharp_mask", "bilateral_grid",
		"camera_pipe", "interpolate", "local_laplacian", "pyramid_blend" };
	pt_machine m = machine(1 << 20, 2, 64);
	int ntiled = 0;
	for (int a = 0; a < 9; a++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/%s.pipe", APPS_DIR, names[a]);
		pipe_ = pt_parse_file(ctx, path);
		ck_assert_msg(pipe_ != NULL, "%s", pt_ctx_diagnostics(ctx));
		pt_options o = {0};
		pt_group_estimates(pipe_, &o, ip);
		pt_tiling *t = pt_group_greedy(ctx->isl, pipe_, &o, TARGET(&m), NULL, NULL);
		ck_assert_ptr_nonnull(t);
		for (int g = 0; g < t->ngroups; g++)
			if (t->groups[g].ntile > 0) {
				same_choice(&t->groups[g], &m, 0.2, names[a]);
				ntiled++;
			}
		pt_tiling_free(t);
	}
	ck_assert_int_ge(ntiled, 20);
	/* PPL failing does not touch the enumeration */
	pt_group *g = group_of(4000, 3000, "float");
	pt_tile_model_fail_for_test(true);
	ck_assert_int_eq(pt_tile_model_predict(g, ip, 0.2, TARGET(&m)), 0);
	ck_assert(g->tsize[0] != 32 || g->tsize[1] != 256);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tile_model");
	TCase *tc = tcase_create("tile_model");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, constraints_hold_on_several_machines);
	tcase_add_test(tc, rounding_mode_kept);
	tcase_add_test(tc, smaller_l2_smaller_tiles);
	tcase_add_test(tc, model_asks_the_target_description);
	tcase_add_test(tc, more_threads_more_tiles);
	tcase_add_test(tc, innermost_multiple_of_vector);
	tcase_add_test(tc, degenerate_group);
	tcase_add_test(tc, ppl_failure_keeps_fixed_sizes);
	tcase_add_test(tc, pt_machine_override);
	tcase_add_test(tc, l3_share_per_cpu);
	tcase_add_test(tc, scaled_rows_priced_past_32_coarse_rows);
	tcase_add_test(tc, explain_shows_the_program);
	tcase_add_test(tc, predicted_scratchpads_are_codegen_s);
	tcase_add_test(tc, predict_agrees_with_ppl);
	tcase_add_test(tc, gpu_model_orders_measured_tiles);
	tcase_add_test(tc, gpu_model_chooses_blocks);
	tcase_add_test(tc, gpu_model_counts_each_stage_s_lanes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pt_test_run_suite(suite());
}
