/* test_greedy.c: the greedy grouping (grouping/greedy.c): which stages
 * it fuses, the widening of each stage, the tiled dims and sizes, and
 * the reason of every refused merge. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polytile.h"
#include "ctx.h"
#include "greedy.h"
#include "gpu_model.h"
#include "target_desc.h"
#include "run_suite.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

static pt_ctx *ctx;
static char *text, *log_;

/* Groups src (no inlining) under opt; text and log_ hold the results. */
/* m (a pt_machine *) as the CPU's target description. */
#define TARGET(m) pt_target_desc_cpu((m), &(pt_target_desc){ .kind = PT_TARGET_KIND_CPU })

static pt_tiling *group_src_for(const char *src, const pt_options *opt, const pt_target_desc *td)
{
	pt_pipeline *p = pt_parse_string(ctx, "t.pipe", src);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	free(text);
	free(log_);
	pt_tiling *t = pt_group_greedy(ctx->isl, p, opt, td, NULL, &log_);
	ck_assert_ptr_nonnull(t);
	text = pt_tiling_str(t);
	return t;
}

static pt_tiling *group_src_on(const char *src, const pt_options *opt, const pt_machine *m)
{
	return group_src_for(src, opt, TARGET(m));
}

/* Groups src for the GPU (the CUDA target's device description). */
static pt_tiling *group_src_gpu(const char *src, const pt_options *opt)
{
	pt_target_desc td;
	return group_src_for(src, opt, pt_target_desc_gpu(&td));
}

/* Two small stages (a 1/16 of big's points) beside a big one. */
static const char *const little =
	"pipeline s\n"
	"param R : int = 2048\n"
	"param C : int = 2048\n"
	"image I : float [R, C]\n"
	"func big(x : 0 .. R-1, y : 0 .. C-1) : float = I(x, y) * 2\n"
	"func a(x : 0 .. R/16-1, y : 0 .. C/16-1) : float = I(16*x, 16*y) + 1\n"
	"func b(x : 1 .. R/16-2, y : 0 .. C/16-1) : float = a(x-1, y) + a(x+1, y)\n"
	"output big\noutput b\n";

/* Groups src at the grouping's fixed sizes only (no tile model). */
static pt_tiling *group_src(const char *src, const pt_options *opt)
{
	return group_src_on(src, opt, NULL);
}

static void setup(void)
{
	ctx = pt_ctx_new();
	text = log_ = NULL;
}

static void teardown(void)
{
	free(text);
	free(log_);
	pt_ctx_free(ctx);
}

static const char *const chain =
	"pipeline c\n"
	"param R : int = 1000\n"
	"param C : int = 2000\n"
	"image I : float [R+4, C+4]\n"
	"func a(x : 0 .. R+3, y : 0 .. C+3) : float = I(x, y) * 2\n"
	"func b(x : 1 .. R+2, y : 0 .. C+3) : float = a(x-1, y) + a(x+1, y)\n"
	"func c(x : 2 .. R+1, y : 1 .. C+2) : float = b(x-1, y-1) + b(x+1, y+1)\n"
	"output c\n";

START_TEST(stencil_chain_fused_with_widening)
{
	pt_options o = { .ntile = 2, .tile = { 16, 64 }, .overlap = 0.4 };
	pt_tiling *t = group_src(chain, &o);
	ck_assert_int_eq(t->ngroups, 1);
	/* c reads b at +-1 in both dims; b reads a at +-1 in x: a is widened
	 * by 2 in x and 1 in y, b by 1 in both */
	ck_assert_msg(!strcmp(text, "group 0: a b c*\n  tiles: 16 (x) x 64 (y)\n"
		"  a widened by [2, 2] [1, 1]\n  b widened by [1, 1] [1, 1]\n"), "%s", text);
	/* the largest group first: a into b, then the pair into c */
	ck_assert_msg(strstr(log_, "merged: [a] into [b] (overlap 0.125)\nmerged: [a b] into [c] (overlap 0.289)\n"), "%s", log_);
	pt_tiling_free(t);
}
END_TEST

START_TEST(threshold_refuses_a_merge)
{
	/* tiles of 8 x 8: a into b widens a by 1 + 1 in x, (8+2)8/64 - 1 =
	 * 0.25; adding c widens a by 4 and 2, (8+4)(8+2)/64 - 1 = 0.875 */
	pt_options o = { .ntile = 2, .tile = { 8, 8 }, .overlap = 0.5 };
	pt_tiling *t = group_src(chain, &o);
	ck_assert_int_eq(t->ngroups, 2);
	ck_assert_msg(strstr(log_, "merged: [a] into [b] (overlap 0.250)\nrefused: [a b] into [c]: overlap 0.875 over the threshold 0.500"), "%s", log_);
	pt_tiling_free(t);
}
END_TEST

START_TEST(refusal_reasons)
{
	/* a transposed read aligns and a downsampling one scales, so a, t and
	 * d fuse; a reduction and a time-iterated stage stay alone */
	pt_tiling *t = group_src(
		"pipeline r\n"
		"param R : int = 1000\n"
		"param T : int = 10\n"
		"image I : u8 [R, R]\n"
		"func a(x : 0 .. R-1, y : 0 .. R-1) : int = I(x, y)\n"
		"func t(x : 0 .. R-1, y : 0 .. R-1) : int = a(y, x)\n"
		"func d(x : 0 .. R/2-1, y : 0 .. R-1) : int = t(2*x, y)\n"
		"reduce h(b : 0 .. 255) : int over (x : 0 .. R/2-1, y : 0 .. R-1)\n"
		"  | h(clamp(d(x, y), 0, 255)) += 1\n"
		"func s(k : 0 .. T, x : 0 .. R-1) : int\n"
		"  | k == 0 -> h(x % 256)\n"
		"  | else -> s(k-1, x) + 1\n"
		"output s\n", NULL);
	ck_assert_int_eq(t->ngroups, 3);
	ck_assert_msg(strstr(text, "group 0: a t d*\n"), "%s", text);
	ck_assert_msg(strstr(log_, "refused: [a t d] into [h]: 'h' is a reduction"), "%s", log_);
	ck_assert_msg(strstr(log_, "refused: [h] into [s]: 'h' is a reduction"), "%s", log_);
	pt_tiling_free(t);
	/* both orders of one producer: no alignment */
	t = group_src(
		"pipeline n\n"
		"param R : int = 1000\n"
		"image I : float [R, R]\n"
		"func g(x : 0 .. R-1, y : 0 .. R-1) : float = I(x, y) * 2\n"
		"func f(x : 0 .. R-1, y : 0 .. R-1) : float = g(x, y) + g(y, x)\n"
		"output f\n", NULL);
	ck_assert_int_eq(t->ngroups, 2);
	ck_assert_msg(strstr(log_, "refused: [g] into [f]: two dimensions of one stage fall in one group dimension"), "%s", log_);
	pt_tiling_free(t);
}
END_TEST

START_TEST(live_out_read_with_overlap_not_fused)
{
	/* b is an output and c reads it at +-1: b's tiles would have to be
	 * widened, which a live-out's are not */
	pt_tiling *t = group_src(
		"pipeline l\n"
		"param R : int = 1000\n"
		"image I : float [R+2]\n"
		"func b(x : 0 .. R+1) : float = I(x) * 2\n"
		"func c(x : 1 .. R) : float = b(x-1) + b(x+1)\n"
		"output b, c\n", NULL);
	ck_assert_int_eq(t->ngroups, 2);
	ck_assert_msg(strstr(log_, "live-out 'b' is read at other points inside the group"), "%s", log_);
	pt_tiling_free(t);
}
END_TEST

START_TEST(small_dims_untiled)
{
	/* the colour dim (3) runs whole in every tile; x and y are tiled */
	pt_tiling *t = group_src(
		"pipeline u\n"
		"param R : int = 1000\n"
		"param C : int = 1000\n"
		"image I : float [3, R+2, C]\n"
		"func b(c : 0 .. 2, x : 1 .. R, y : 0 .. C-1) : float = I(c, x-1, y) + I(c, x+1, y)\n"
		"func o(c : 0 .. 2, x : 2 .. R-1, y : 0 .. C-1) : float = b(c, x-1, y) + b(c, x+1, y)\n"
		"output o\n", NULL);
	ck_assert_int_eq(t->ngroups, 1);
	ck_assert_msg(!strcmp(text, "group 0: b o*\n  tiles: 32 (x) x 256 (y)\n  b widened by [1, 1] [0, 0]\n"), "%s", text);
	pt_tiling_free(t);
}
END_TEST


/* A reduction with cell variables joins its consumers' group as its
 * source (grouping/align.h): tiled only along its cell dims (the bin dim
 * k, 64 long, is no cell: untiled), on the CPU only, and never after a
 * stage of its group that it reads. */
static const char *const cells =
	"pipeline b\n"
	"param R : int = 1000\n"
	"image I : u8 [R, R]\n"
	"func f(x : 0 .. R-1, y : 0 .. R-1) : int = I(x, y) / 4\n"
	"reduce h(i : 0 .. R/4-1, j : 0 .. R/4-1, k : 0 .. 63) : int\n"
	"    over (bi : 0 .. R/4-1, bj : 0 .. R/4-1, u : 0 .. 3, v : 0 .. 3)\n"
	"  | h(bi, bj, clamp(f(4*bi + u, 4*bj + v), 0, 63)) += 1\n"
	"func s(i : 1 .. R/4-2, j : 0 .. R/4-1, k : 0 .. 63) : int = h(i-1, j, k) + h(i+1, j, k)\n"
	"output s\n";

START_TEST(reductions_fused_as_sources)
{
	pt_options o = { .no_inline = true, .ntile = 2, .tile = { 8, 32 }, .overlap = 0.5 };
	pt_tiling *t = group_src(cells, &o);
	ck_assert_int_eq(t->ngroups, 2);
	ck_assert_msg(strstr(text, "group 1: h s*\n  tiles: 8 (i) x 32 (j)\n  h widened by [1, 1] [0, 0]\n"), "%s", text);
	ck_assert_msg(strstr(log_, "refused: [f] into [h s]: a reduction joins a group only as a source"), "%s", log_);
	pt_tiling_free(t);
	/* explain says what each tile runs of it */
	pt_pipeline *p = pt_parse_string(ctx, "b.pipe", cells);
	ck_assert_ptr_nonnull(p);
	char *e = pt_explain(ctx, p, &o);
	ck_assert_msg(e && strstr(e, "  h: a reduction, each tile running the updates of its points (cell bi along i, "
		"bj along j)\n"), "%s", e ? e : pt_ctx_diagnostics(ctx));
	free(e);
	/* a recurrence down the columns joins its reader, tiled along the
	 * rows only (the columns carry it) */
	p = pt_parse_string(ctx, "r.pipe",
		"pipeline r\nparam R : int = 1000\nimage I : float [R, R]\n"
		"func c(x : 0 .. R-1, y : 0 .. R-1) : float\n  | y == 0 -> I(x, 0)\n  | else -> c(x, y-1) * 0.5 + I(x, y)\n"
		"func o(x : 1 .. R-2, y : 0 .. R-1) : float = c(x-1, y) + c(x+1, y)\noutput o\n");
	ck_assert_ptr_nonnull(p);
	e = pt_explain(ctx, p, &o);
	ck_assert_msg(e && strstr(e, "group 0: c o*\n") && strstr(e, "tile: 8 along x (overlap 2, 0.250 of the tile)\n") &&
		strstr(e, "  c: a recurrence, run whole in each tile, x innermost in strips of 8 (across the recurrence along y)\n"),
		"%s", e ? e : pt_ctx_diagnostics(ctx));
	free(e);
	o.backend = PT_BACKEND_CUDA_EMU;
	t = group_src(cells, &o);
	ck_assert_int_eq(t->ngroups, 3);
	ck_assert_msg(strstr(log_, "refused: [h] into [s]: 'h' is a reduction (grouped on the CPU target only)"), "%s", log_);
	pt_tiling_free(t);
}
END_TEST

/* a -> b -> c, each reading its producer at x +- 1, over K planes: a
 * is widened by 2 + 2 rows, b by 1 + 1. */
static char *planes_chain(int planes)
{
	static char src[600];
	snprintf(src, sizeof(src),
		"pipeline p\n"
		"param R : int = 2000\n"
		"param C : int = 2000\n"
		"image I : float [%d, R+4, C]\n"
		"func a(k : 0 .. %d, x : 0 .. R+3, y : 0 .. C-1) : float = I(k, x, y) * 2\n"
		"func b(k : 0 .. %d, x : 1 .. R+2, y : 0 .. C-1) : float = a(k, x-1, y) + a(k, x+1, y)\n"
		"func c(k : 0 .. %d, x : 2 .. R+1, y : 0 .. C-1) : float = b(k, x-1, y) + b(k, x+1, y)\n"
		"output c\n", planes, planes - 1, planes - 1, planes - 1);
	return src;
}

/* With the tile model's machine, a merge whose scratchpads exceed L1's
 * share at the model's smallest tile (8 x 128) must be within the
 * threshold at 8 rows too; one whose scratchpads fit is judged at the
 * fixed sizes only. */
START_TEST(model_judges_l2_groups_at_8_rows)
{
	pt_machine m = { .l1 = 32 << 10, .l2 = 1 << 20, .l3 = 32 << 20, .threads = 2, .vector_bytes = 64 };
	/* one plane: a and b at 8 x 128 take 12 + 10 rows of 128 floats,
	 * 11 KiB, within 16 KiB: fused although the overlap at 8 rows is
	 * (8 + 4) / 8 - 1 = 0.5 */
	pt_tiling *t = group_src_on(planes_chain(1), NULL, &m);
	ck_assert_msg(!strcmp(text, "group 0: a b c*\n  tiles: 32 (x) x 256 (y)\n"
		"  a widened by [2, 2] [0, 0]\n  b widened by [1, 1] [0, 0]\n"), "%s", text);
	pt_tiling_free(t);
	/* eight planes: 8 x 10 rows of a alone take 40 KiB; at 32 x 256 a
	 * into b is 0.062, at 8 x 256 0.25 */
	t = group_src_on(planes_chain(8), NULL, &m);
	ck_assert_int_eq(t->ngroups, 3);
	ck_assert_msg(strstr(log_, "refused: [a] into [b]: overlap 0.250 at 8x256 over the threshold 0.200, "
		"and scratchpads of 40.0 KiB at the tile model's smallest tile, beyond L1"), "%s", log_);
	pt_tiling_free(t);
	/* without the model (--tile given, or --fixed-tiles) the fixed sizes
	 * decide alone */
	t = group_src(planes_chain(8), NULL);
	ck_assert_int_eq(t->ngroups, 1);
	pt_tiling_free(t);
	/* a threshold that 8 rows meet: fused with the model too */
	pt_options o = { .overlap = 0.6 };
	t = group_src_on(planes_chain(8), &o, &m);
	ck_assert_int_eq(t->ngroups, 1);
	pt_tiling_free(t);
}
END_TEST

/* group_src_on of src with every "16" in it replaced by by (two
 * characters): the same pipeline downsampled by another factor. */
static pt_tiling *group_downsampled_on(const char *src, const char *by, const pt_machine *m)
{
	char buf[1000];
	ck_assert_uint_lt(strlen(src), sizeof(buf));
	snprintf(buf, sizeof(buf), "%s", src);
	for (char *q; (q = strstr(buf, "16"));)
		memcpy(q, by, 2);
	return group_src_on(buf, NULL, m);
}

/* With the tile model on, a merge of under 1/16 of the largest stage's
 * points at the estimates is refused before any alignment (too little
 * work to pay for the compile time); the fixed sizes fuse it. */
START_TEST(model_refuses_little_work)
{
	pt_machine m = { .l1 = 32 << 10, .l2 = 1 << 20, .l3 = 32 << 20, .threads = 2, .vector_bytes = 64 };
	const char *src = little;
	pt_tiling *t = group_src_on(src, NULL, &m);
	ck_assert_int_eq(t->ngroups, 3);
	/* a: 128 x 128, b: 126 x 128; big 2048 x 2048 */
	ck_assert_msg(strstr(log_, "refused: [a] into [b]: too little work to fuse: 32512 points at the "
		"estimates, under 1/16 of the largest stage's 4194304\n"), "%s", log_);
	pt_tiling_free(t);
	t = group_src(src, NULL);
	ck_assert_int_eq(t->ngroups, 2);
	ck_assert_msg(strstr(text, "a b*"), "%s", text);
	pt_tiling_free(t);
	/* downsampled by 8, a and b together have 1/32 of big's points: too
	 * little still */
	t = group_downsampled_on(src, " 8", &m);
	ck_assert_int_eq(t->ngroups, 3);
	ck_assert_msg(strstr(log_, "refused: [a] into [b]: too little work to fuse: 130560 points"), "%s", log_);
	pt_tiling_free(t);
	/* downsampled by 4, a and b have 1/8 of big's points and fuse */
	t = group_downsampled_on(src, " 4", &m);
	ck_assert_int_eq(t->ngroups, 2);
	ck_assert_msg(strstr(text, "a b*"), "%s", text);
	pt_tiling_free(t);
}
END_TEST

/* On a GPU the device model decides fusion: a kernel costs its launch,
 * so two small stages fuse where the CPU's test finds too little work
 * to pay for the compile; a costly producer read with a wide overlap
 * stays apart (its redundant work past the traffic fusion saves); a
 * threshold given (--overlap) brings the CPU's tests back. */
START_TEST(gpu_model_decides_fusion)
{
	pt_tiling *t = group_src_gpu(little, NULL);
	ck_assert_int_eq(t->ngroups, 2);
	ck_assert_msg(strstr(text, "a b*"), "%s", text);
	ck_assert_msg(strstr(log_, "merged: [a] into [b]: the GPU model predicts "), "%s", log_);
	pt_tiling_free(t);
	pt_options o = { .overlap = 0.2 };
	t = group_src_gpu(little, &o);
	ck_assert_int_eq(t->ngroups, 3);
	ck_assert_msg(strstr(log_, "refused: [a] into [b]: too little work to fuse"), "%s", log_);
	pt_tiling_free(t);
	/* so does a configuration's threshold for the group of b */
	pt_group_options e = { .group = "b", .overlap = 0.2, .overlap_set = true };
	pt_options oe = { .groups = &e, .ngroups = 1 };
	t = group_src_gpu(little, &oe);
	ck_assert_int_eq(t->ngroups, 3);
	ck_assert_msg(strstr(log_, "refused: [a] into [b]: too little work to fuse"), "%s", log_);
	pt_tiling_free(t);
	/* p: about 300 expression nodes a point, read 20 points away on
	 * each side along both dims */
	char costly[3000];
	int n = snprintf(costly, sizeof(costly), "pipeline w\nparam R : int = 4096\nparam C : int = 4096\n"
		"image I : float [R, C]\nfunc p(x : 0 .. R-1, y : 0 .. C-1) : float = I(x, y)");
	for (int i = 0; i < 60; i++)
		n += snprintf(costly + n, sizeof(costly) - (size_t)n, " * (I(x, y) + %d.5)", i);
	snprintf(costly + n, sizeof(costly) - (size_t)n, "\nfunc c(x : 20 .. R-21, y : 20 .. C-21) : float = "
		"p(x-20, y-20) + p(x+20, y+20) + p(x-20, y+20) + p(x+20, y-20)\noutput c\n");
	t = group_src_gpu(costly, NULL);
	ck_assert_int_eq(t->ngroups, 2);
	ck_assert_msg(strstr(log_, "refused: [p] into [c]: the GPU model predicts "), "%s", log_);
	pt_tiling_free(t);
	/* a group tiled along one dim (the other under 64 points) is
	 * modelled too: its innermost dim whole across the lanes */
	t = group_src_gpu("pipeline n\nparam R : int = 4096\nimage I : float [R, 48]\n"
		"func a(x : 0 .. R-1, y : 0 .. 47) : float = I(x, y) * 2\n"
		"func b(x : 1 .. R-2, y : 0 .. 47) : float = a(x-1, y) + a(x+1, y)\noutput b\n", NULL);
	ck_assert_int_eq(t->ngroups, 1);
	ck_assert_int_eq(t->groups[0].ntile, 1);
	ck_assert_msg(strstr(log_, "merged: [a] into [b]: the GPU model predicts "), "%s", log_);
	/* the time the choice reports is its tile's, the 48 columns whole
	 * (not a tile of 32 of them) */
	pt_target_desc td;
	int64_t ip[1] = { 4096 };
	double chosen = 0;
	ck_assert_int_eq(pt_gpu_model_choose(&t->groups[0], ip, pt_target_desc_gpu(&td), NULL, &chosen), 0);
	ck_assert_double_eq_tol(chosen, pt_gpu_model_time(&t->groups[0], ip, &td), 1e-12);
	pt_tiling_free(t);
	/* the same with a cheap p: fused */
	t = group_src_gpu("pipeline w\nparam R : int = 4096\nparam C : int = 4096\nimage I : float [R, C]\n"
		"func p(x : 0 .. R-1, y : 0 .. C-1) : float = I(x, y) * 2\n"
		"func c(x : 20 .. R-21, y : 20 .. C-21) : float = p(x-20, y-20) + p(x+20, y+20) + p(x-20, y+20) + "
		"p(x+20, y-20)\noutput c\n", NULL);
	ck_assert_int_eq(t->ngroups, 1);
	pt_tiling_free(t);
}
END_TEST

/* A GPU block given (--gpu-block, a configuration's block[G]) goes to
 * the tiled groups, an entry's to its group alone; the device model
 * then chooses only the tiles, in that block.  The C API refuses a
 * block over 1,024 threads. */
START_TEST(gpu_block_given)
{
	static const char *const two =
		"pipeline two\nparam R : int = 2048\nparam C : int = 2048\nimage I : float [R, C]\n"
		"func a(x : 0 .. R-1, y : 0 .. C-1) : float = I(x, y) * 2\n"
		"func b(x : 1 .. R-2, y : 0 .. C-1) : float = a(x-1, y) + a(x+1, y)\n"
		"func c(x : 0 .. R-1, y : 0 .. C-1) : float = I(x, y) + 1\n"
		"func d(x : 1 .. R-2, y : 0 .. C-1) : float = c(x-1, y) * c(x+1, y)\noutput b\noutput d\n";
	pt_group_options e = { .group = "d", .gpu_block = { 16, 4 } };
	pt_options o = { .backend = PT_BACKEND_CUDA_EMU, .gpu_block = { 64, 2 }, .groups = &e, .ngroups = 1 };
	pt_tiling *t = group_src_gpu(two, &o);
	ck_assert_int_eq(t->ngroups, 2);
	pt_target_desc td;
	int64_t ip[2] = { 2048, 2048 };
	for (int i = 0; i < 2; i++) {
		pt_group *g = &t->groups[i];
		bool is_d = !strcmp(g->stages[g->nstages - 1]->name, "d");
		ck_assert_int_eq(g->ntile, 2);
		ck_assert(g->gpu_block_given);
		ck_assert_int_eq(g->gpu_block[0], is_d ? 16 : 64);
		ck_assert_int_eq(g->gpu_block[1], is_d ? 4 : 2);
		pt_strbuf why = { 0 };
		ck_assert_int_eq(pt_gpu_model_choose(g, ip, pt_target_desc_gpu(&td), &why, NULL), 0);
		ck_assert_int_eq(g->gpu_block[0], is_d ? 16 : 64);
		ck_assert_int_eq(g->gpu_block[1], is_d ? 4 : 2);
		ck_assert_msg(strstr(why.s, is_d ? "in blocks of 16 x 4 threads (x along the cols; given)" :
			"in blocks of 64 x 2 threads (x along the cols; given)"), "%s", why.s);
		pt_sb_free(&why);
	}
	pt_tiling_free(t);
	/* the CPU gets no block */
	o.backend = PT_BACKEND_CPU;
	t = group_src_gpu(two, &o);
	ck_assert(!t->groups[0].gpu_block_given && t->groups[0].gpu_block[0] == 0);
	pt_tiling_free(t);
	pt_pipeline *p = pt_parse_string(ctx, "two.pipe", two);
	ck_assert_ptr_nonnull(p);
	pt_options big = { .backend = PT_BACKEND_CUDA_EMU, .gpu_block = { 2048, 1 } };
	ck_assert_ptr_null(pt_compile(ctx, p, &big));
	ck_assert_msg(strstr(pt_ctx_diagnostics(ctx), "--gpu-block 2048 x 1: not a GPU block"), "%s",
		pt_ctx_diagnostics(ctx));
	e.gpu_block[0] = 0;   /* 0 x 4 */
	pt_options half = { .backend = PT_BACKEND_CUDA_EMU, .groups = &e, .ngroups = 1 };
	ck_assert_ptr_null(pt_compile(ctx, p, &half));
	ck_assert_msg(strstr(pt_ctx_diagnostics(ctx), "group option 0: invalid per-group options"), "%s",
		pt_ctx_diagnostics(ctx));
}
END_TEST

/* harris fuses into one group, as in the thesis. */
START_TEST(harris_one_group)
{
	pt_pipeline *p = pt_parse_file(ctx, APPS_DIR "/harris.pipe");
	ck_assert_ptr_nonnull(p);
	pt_options o = {0};
	char *e = pt_explain(ctx, p, &o);
	ck_assert_msg(e && strstr(e, "group 0: Ix Iy Ixx Iyy Ixy Sxx Syy Sxy harris*\n"), "%s", e ? e : pt_ctx_diagnostics(ctx));
	ck_assert_msg(strstr(e, "intermediate storage: naive 819.7 MB; grouped 0.0 KB in 0 full buffers (each reused once its last reader has run) + 15.6 KB"), "%s", e);
	free(e);
}
END_TEST

/* With the tile model on, a candidate refused in the first pass for its
 * overlap at the fixed sizes or at 8 rows is asked again after it, at
 * the tile the model picks for the merged group: camera_pipe's whole
 * demosaic fuses with its inputs (0.215 at 32 rows, 0.119 at 64), and
 * local_laplacian's finest two levels fuse as whole groups (Ux[1] with
 * U[1], not left over a full buffer between them).  With --tile the
 * fixed sizes alone decide: no second pass. */
START_TEST(second_pass_judges_at_the_model_tile)
{
	setenv("PT_MACHINE", "l1=32K,l2=1M,l3=32M,threads=2,vector=64", 1);
	pt_pipeline *p = pt_parse_file(ctx, APPS_DIR "/camera_pipe.pipe");
	ck_assert_ptr_nonnull(p);
	pt_options o = {0};
	char *e = pt_explain(ctx, p, &o);
	ck_assert_msg(e && strstr(e, ": denoised deinterleaved g_r g_b r_gr b_gr r_gb b_gb r_b b_r redX1 redX2 "
		"greenX1 greenX2 blueX1 blueX2 corrected process*\n"), "%s", e ? e : pt_ctx_diagnostics(ctx));
	ck_assert_msg(strstr(e, "merged in the second pass: [denoised deinterleaved] into [g_r g_b r_gr b_gr r_gb "
		"b_gb r_b b_r redX1 redX2 greenX1 greenX2 blueX1 blueX2 corrected process]: overlap 0.119 "
		"at the tile model's 64x256 for the merged group (first refused: overlap 0.215 over the threshold "
		"0.200)\n"), "%s", e);
	free(e);
	pt_options fixed = { .ntile = 2, .tile = { 32, 256 } };
	e = pt_explain(ctx, p, &fixed);
	ck_assert_msg(e && !strstr(e, "second pass") && strstr(e, "\nrefused: [denoised deinterleaved] into ["), "%s", e);
	free(e);
	p = pt_parse_file(ctx, APPS_DIR "/local_laplacian.pipe");
	ck_assert_ptr_nonnull(p);
	e = pt_explain(ctx, p, &o);
	ck_assert_msg(e && strstr(e, ": outUx[1] outU[1] Ux[1] U[1] outL[1] outG[1] outUx[0] outU[0] out*\n"), "%s",
		e ? e : pt_ctx_diagnostics(ctx));
	ck_assert_msg(!strstr(e, ": Ux[1]  (untiled)"), "%s", e);
	free(e);
	unsetenv("PT_MACHINE");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("greedy");
	TCase *tc = tcase_create("greedy");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, stencil_chain_fused_with_widening);
	tcase_add_test(tc, threshold_refuses_a_merge);
	tcase_add_test(tc, refusal_reasons);
	tcase_add_test(tc, live_out_read_with_overlap_not_fused);
	tcase_add_test(tc, small_dims_untiled);
	tcase_add_test(tc, reductions_fused_as_sources);
	tcase_add_test(tc, harris_one_group);
	tcase_add_test(tc, model_judges_l2_groups_at_8_rows);
	tcase_add_test(tc, model_refuses_little_work);
	tcase_add_test(tc, second_pass_judges_at_the_model_tile);
	tcase_add_test(tc, gpu_model_decides_fusion);
	tcase_add_test(tc, gpu_block_given);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pt_test_run_suite(suite());
}
