/* test_grouping.c: alignment and scaling of groups (grouping/align.c)
 * and the shape of their overlapped tiles (grouping/slopes.c), on the
 * thesis's examples (chapter 3), harris, unsharp mask, blur and
 * pyramids, with slopes and relative overlaps computed by hand. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ctx.h>
#include <isl/set.h>

#include "polytile.h"
#include "ir.h"
#include "inline.h"
#include "align.h"
#include "slopes.h"

#include "run_suite.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

static pt_ctx *ctx;
static isl_ctx *ictx;
static pt_pipeline *pipe_, *inlined;
static pt_group_align ga;
static pt_group_slopes gs;
static const char *why;

static void setup(void)
{
	ctx = pt_ctx_new();
	ictx = isl_ctx_alloc();
	pipe_ = inlined = NULL;
	memset(&ga, 0, sizeof(ga));
	memset(&gs, 0, sizeof(gs));
	why = NULL;
}

static void teardown(void)
{
	pt_group_slopes_clear(&gs);
	pt_group_align_clear(&ga);
	pt_pipeline_free(inlined);
	isl_ctx_free(ictx);
	pt_ctx_free(ctx);
}

static pt_pipeline *parse(const char *src)
{
	pipe_ = pt_parse_string(ctx, "t.pipe", src);
	ck_assert_msg(pipe_ != NULL, "%s", pt_ctx_diagnostics(ctx));
	return pipe_;
}

static pt_pipeline *parse_app(const char *name, bool inline_it)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s.pipe", APPS_DIR, name);
	pipe_ = pt_parse_file(ctx, path);
	ck_assert_msg(pipe_ != NULL, "%s", pt_ctx_diagnostics(ctx));
	if (inline_it) {
		inlined = pt_poly_inline(ictx, pipe_, PT_INLINE_ALL, NULL);
		ck_assert_ptr_nonnull(inlined);
		return inlined;
	}
	return pipe_;
}

/* Aligns the named stages (a space-separated list, "*" for all of p)
 * into ga and, when aligned, gs (both cleared first); returns pt_group_align_compute's result. */
static int align(const pt_pipeline *p, const char *names)
{
	const pt_stage *st[64];
	int n = 0;
	pt_group_slopes_clear(&gs);
	pt_group_align_clear(&ga);
	if (!strcmp(names, "*")) {
		for (int i = 0; i < p->nstages; i++)
			st[n++] = p->stages[i];
	} else {
		char buf[512];
		snprintf(buf, sizeof(buf), "%s", names);
		for (char *t = strtok(buf, " "); t; t = strtok(NULL, " ")) {
			const pt_stage *s = pt_pipeline_find_stage(p, t);
			ck_assert_msg(s != NULL, "no stage %s", t);
			st[n++] = s;
		}
	}
	int r = pt_group_align_compute(ictx, p, st, n, NULL, &ga, &why);
	if (r == 0)
		ck_assert_int_eq(pt_group_slopes_compute(&ga, &gs), 0);
	return r;
}

static void expect_aligned(const pt_pipeline *p, const char *names)
{
	int r = align(p, names);
	ck_assert_msg(r == 0, "not aligned: %s", why ? why : "?");
}

static void expect_refused(const pt_pipeline *p, const char *names, const char *reason)
{
	ck_assert_int_eq(align(p, names), -1);
	ck_assert_ptr_nonnull(why);
	ck_assert_msg(strstr(why, reason) != NULL, "reason '%s' lacks '%s'", why, reason);
}

static int idx(const pt_pipeline *p, const char *name)
{
	int k = pt_group_align_find(&ga, pt_pipeline_find_stage(p, name));
	ck_assert_msg(k >= 0, "%s not in the group", name);
	return k;
}

/* Stage name's group dims and scales, as "g:s g:s ...". */
static void expect_stage(const pt_pipeline *p, const char *name, const char *want)
{
	const pt_stage_align *sa = &ga.st[idx(p, name)];
	char buf[256] = "";
	for (int i = 0; i < sa->ndim; i++) {
		ck_assert_int_eq(sa->offset[i], 0);
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%d:%lld", i ? " " : "",
			sa->gdim[i], (long long)sa->scale[i]);
	}
	ck_assert_msg(!strcmp(buf, want), "%s: %s, expected %s", name, buf, want);
}

/* The dependence box of consumer c on producer p in group dim k. */
static void expect_box(const pt_pipeline *p, const char *c, const char *pr, int k, int64_t lo, int64_t hi)
{
	int n = ga.nstages, x = idx(p, c) * n + idx(p, pr);
	ck_assert_msg(ga.box[x].reads && ga.deps[x], "%s does not read %s", c, pr);
	ck_assert_msg(ga.box[x].lo[k] == lo && ga.box[x].hi[k] == hi, "%s <- %s dim %d: %lld .. %lld", c, pr, k,
		(long long)ga.box[x].lo[k], (long long)ga.box[x].hi[k]);
}

static void expect_slopes(int k, int64_t lnum, int64_t lden, int64_t rnum, int64_t rden, int64_t o)
{
	const pt_dim_slopes *d = &gs.dim[k];
	ck_assert_msg(d->lnum == lnum && d->lden == lden && d->rnum == rnum && d->rden == rden,
		"dim %d: slopes %lld/%lld %lld/%lld", k, (long long)d->lnum, (long long)d->lden,
		(long long)d->rnum, (long long)d->rden);
	ck_assert_int_eq(d->overlap, o);
}

/* Stage name's level, need and ext in group dim k. */
static void expect_ext(const pt_pipeline *p, const char *name, int k, int level,
	int64_t need_l, int64_t need_r, int64_t ext_l, int64_t ext_r)
{
	const pt_stage_ext *e = &gs.st[idx(p, name)];
	ck_assert_msg(e->level == level && e->need_l[k] == need_l && e->need_r[k] == need_r &&
		e->ext_l[k] == ext_l && e->ext_r[k] == ext_r,
		"%s dim %d: level %d need %lld %lld ext %lld %lld", name, k, e->level,
		(long long)e->need_l[k], (long long)e->need_r[k], (long long)e->ext_l[k], (long long)e->ext_r[k]);
}

static void expect_ratio(double got, double want)
{
	ck_assert_msg(got > want - 1e-12 && got < want + 1e-12, "relative overlap %.12f, expected %.12f", got, want);
}

/* ---- the thesis's examples (section 3.3) ---- */

START_TEST(gray_channel_first)
{
	/* I(c, x, y) -> (c, x, y); gray(x, y) -> (x, y): figure 3.4's text */
	pt_pipeline *p = parse(
		"pipeline gray\n"
		"param R : int = 100\n"
		"param C : int = 100\n"
		"image img : float [3, R, C]\n"
		"func I(c : 0 .. 2, x : 0 .. R-1, y : 0 .. C-1) : float = img(c, x, y) * 2.0\n"
		"func gray(x : 0 .. R-1, y : 0 .. C-1) : float =\n"
		"  0.299 * I(2, x, y) + 0.587 * I(1, x, y) + 0.114 * I(0, x, y)\n"
		"output gray\n");
	expect_aligned(p, "I gray");
	ck_assert_int_eq(ga.ndim, 3);
	expect_stage(p, "I", "0:1 1:1 2:1");
	expect_stage(p, "gray", "1:1 2:1");
	/* gray sits at c = 0 and reads channels 0 .. 2 */
	expect_box(p, "gray", "I", 0, -2, 0);
	expect_box(p, "gray", "I", 1, 0, 0);
	expect_box(p, "gray", "I", 2, 0, 0);
	ck_assert_int_eq(gs.height, 1);
	expect_ext(p, "I", 0, 0, 0, 2, 0, 2);
	/* tiles of 32 in x and y; c (extent 3) is one tile */
	int64_t tile[3] = {32, 32, 32};
	expect_ratio(pt_group_relative_overlap(p, &ga, &gs, tile, NULL), 0.0);
}
END_TEST

static const char *pyramid_1d =
	"pipeline pyr\n"
	"param Q : int = 16\n"
	"image I : float [4*Q]\n"
	"func f(x : 0 .. 4*Q - 1) : float = I(x) * 2.0\n"
	"func d1(x : 0 .. 2*Q - 1) : float = f(2*x) + f(2*x + 1)\n"
	"func d2(x : 0 .. Q - 1) : float = d1(2*x) + d1(2*x + 1)\n"
	"func u1(x : 0 .. 2*Q - 1) : float = d2(x/2) + d1(x)\n"
	"func u2(x : 0 .. 4*Q - 1) : float = u1(x/2) + f(x)\n"
	"output u2\n";

START_TEST(pyramid_down_and_up)
{
	pt_pipeline *p = parse(pyramid_1d);
	expect_aligned(p, "*");
	ck_assert_int_eq(ga.ndim, 1);
	/* group coordinate = scale * x: downsampled stages scale 2 and 4 */
	expect_stage(p, "f", "0:1");
	expect_stage(p, "d1", "0:2");
	expect_stage(p, "d2", "0:4");
	expect_stage(p, "u1", "0:2");
	expect_stage(p, "u2", "0:1");
	expect_box(p, "d1", "f", 0, -1, 0);     /* 2x - {2x, 2x+1} */
	expect_box(p, "d2", "d1", 0, -2, 0);    /* 4x - 2{2x, 2x+1} */
	expect_box(p, "u1", "d2", 0, 0, 2);     /* 2x - 4 floor(x/2) */
	expect_box(p, "u1", "d1", 0, 0, 0);
	expect_box(p, "u2", "u1", 0, 0, 1);     /* x - 2 floor(x/2) */
	expect_box(p, "u2", "f", 0, 0, 0);
	/* levels 0 .. 4; needs from the top: u1 (1, 0), d2 (3, 0),
	 * d1 (3, 2), f (3, 3); slopes max(1/1, 3/2, 3/3, 3/4) = 3/2 and
	 * max(0, 0, 2/3, 3/4) = 3/4, rounded to 2 and 1: o = 4 * 3 */
	ck_assert_int_eq(gs.height, 4);
	expect_ext(p, "u2", 0, 4, 0, 0, 0, 0);
	expect_ext(p, "u1", 0, 3, 1, 0, 2, 1);
	expect_ext(p, "d2", 0, 2, 3, 0, 4, 2);
	expect_ext(p, "d1", 0, 1, 3, 2, 6, 3);
	expect_ext(p, "f", 0, 0, 3, 3, 8, 4);
	expect_slopes(0, 3, 2, 3, 4, 12);
	/* tile 64 of the 64-point line at R's estimate: one tile, no
	 * overlap; at Q = 1024 (4096 points): 76/64 - 1 */
	int64_t tile[1] = {64}, big[1] = {1024};
	expect_ratio(pt_group_relative_overlap(p, &ga, &gs, tile, NULL), 0.0);
	expect_ratio(pt_group_relative_overlap(p, &ga, &gs, tile, big), 12.0 / 64.0);
	int64_t lo, hi;
	ck_assert(pt_group_extent(p, &ga, 0, big, &lo, &hi));
	ck_assert_int_eq(lo, 0);
	ck_assert_int_eq(hi, 4095);
}
END_TEST

START_TEST(upsample_alone_normalized)
{
	/* g read as g(x/2): g gets 2, u gets 1 (gcd 1) */
	pt_pipeline *p = parse(pyramid_1d);
	expect_aligned(p, "d2 u1");
	expect_stage(p, "d2", "0:2");
	expect_stage(p, "u1", "0:1");
	expect_box(p, "u1", "d2", 0, 0, 1);
}
END_TEST

START_TEST(pyramid_2d_pair)
{
	pt_pipeline *p = parse(
		"pipeline pyr2\n"
		"param R : int = 32\n"
		"param C : int = 32\n"
		"image I : float [2*R, 2*C]\n"
		"func f(x : 0 .. 2*R - 1, y : 0 .. 2*C - 1) : float = I(x, y)\n"
		"func down(x : 0 .. R - 1, y : 0 .. C - 1) : float = f(2*x, 2*y) + f(2*x + 1, 2*y + 1)\n"
		"func up(x : 0 .. 2*R - 1, y : 0 .. 2*C - 1) : float = down(x/2, y/2)\n"
		"output up\n");
	expect_aligned(p, "down up");
	expect_stage(p, "down", "0:2 1:2");
	expect_stage(p, "up", "0:1 1:1");
	expect_aligned(p, "f down up");
	expect_stage(p, "f", "0:1 1:1");
	expect_stage(p, "down", "0:2 1:2");
	expect_stage(p, "up", "0:1 1:1");
	expect_box(p, "down", "f", 1, -1, 0);
	expect_box(p, "up", "down", 1, 0, 1);
}
END_TEST

START_TEST(pyramid_blend_row_then_column)
{
	/* Dx filters G[1,0] along x around 2x - 2 (at full y), G[1,1]
	 * filters Dx along y at 2y - 4 .. 2y (the 2-point ring: level l's y
	 * is level l-1's 2y - 2): G's y is scaled by 2 */
	pt_pipeline *p = parse_app("pyramid_blend", false);
	expect_aligned(p, "Dx[1,1] G[1,1]");
	ck_assert_int_eq(ga.ndim, 3);
	expect_stage(p, "Dx[1,1]", "0:1 1:1 2:1");
	expect_stage(p, "G[1,1]", "0:1 1:1 2:2");
	expect_box(p, "G[1,1]", "Dx[1,1]", 2, 0, 4);
	expect_box(p, "G[1,1]", "Dx[1,1]", 1, 0, 0);
}
END_TEST

/* ---- refused groups ---- */

START_TEST(transposed_twice_refused)
{
	pt_pipeline *p = parse(
		"pipeline t\n"
		"param R : int = 10\n"
		"image I : float [R, R]\n"
		"func g(x : 0 .. R-1, y : 0 .. R-1) : float = I(x, y)\n"
		"func f(x : 0 .. R-1, y : 0 .. R-1) : float = g(x, y) + g(y, x)\n"
		"output f\n");
	expect_refused(p, "g f", "two dimensions of one stage");
	ck_assert_int_ge(ga.bad_consumer, 0);
}
END_TEST

START_TEST(transposed_once_aligned)
{
	pt_pipeline *p = parse(
		"pipeline t\n"
		"param R : int = 10\n"
		"param C : int = 20\n"
		"image I : float [R, C]\n"
		"func g(x : 0 .. R-1, y : 0 .. C-1) : float = I(x, y)\n"
		"func f(x : 0 .. C-1, y : 0 .. R-1) : float = g(y, x)\n"
		"output f\n");
	expect_aligned(p, "g f");
	/* the live-out keeps its order */
	expect_stage(p, "f", "0:1 1:1");
	expect_stage(p, "g", "1:1 0:1");
	expect_box(p, "f", "g", 0, 0, 0);
}
END_TEST

START_TEST(two_rates_refused)
{
	pt_pipeline *p = parse(
		"pipeline t\n"
		"param R : int = 64\n"
		"image I : float [R]\n"
		"func g(x : 0 .. R-1) : float = I(x)\n"
		"func f(x : 0 .. R-1) : float = g(x/2) + g(x/4)\n"
		"output f\n");
	expect_refused(p, "g f", "no common scaling");
	ck_assert_int_eq(ga.bad_consumer, 1);
	ck_assert_int_eq(ga.bad_producer, 0);
}
END_TEST

START_TEST(data_dependent_reads)
{
	pt_pipeline *p = parse(
		"pipeline t\n"
		"param R : int = 64\n"
		"image I : u8 [R]\n"
		"func lut(v : 0 .. 255) : float = 1.0 * v\n"
		"func f(x : 0 .. R-1) : float = lut(I(x))\n"
		"func g(x : 0 .. R-1, z : 0 .. 15) : float = 1.0 * (x + z)\n"
		"func h(x : 0 .. R-1) : float = g(x, I(x) / 16)\n"
		"output f, h\n");
	/* f(x) reads lut anywhere in 0 .. 255 whatever x: unbounded */
	expect_refused(p, "lut f", "data-dependent read");
	/* h(x) reads g(x, 0 .. 15): bounded, z a group dim of its own */
	expect_aligned(p, "g h");
	ck_assert_int_eq(ga.ndim, 2);
	expect_stage(p, "h", "0:1");
	expect_stage(p, "g", "0:1 1:1");
	expect_box(p, "h", "g", 0, 0, 0);
	expect_box(p, "h", "g", 1, -15, 0);
}
END_TEST

START_TEST(boundaries_refused)
{
	pt_pipeline *p = parse(
		"pipeline t\n"
		"param R : int = 64\n"
		"param T : int = 4\n"
		"image I : u8 [R]\n"
		"reduce hist(b : 0 .. 255) : int over (x : 0 .. R-1)\n"
		"  | hist(I(x)) += 1\n"
		"func cdf(b : 0 .. 255) : int = hist(b) * 2\n"
		"func heat(t : 0 .. T, x : 0 .. R-1) : float\n"
		"  | t == 0 || x == 0 || x == R-1 -> 1.0 * I(x)\n"
		"  | else -> heat(t-1, x-1) + heat(t-1, x+1)\n"
		"func last(x : 0 .. R-1) : float = heat(T, x)\n"
		"func shifted(x : 0 .. R-1) : float = last(R-1-x)\n"
		"func far(x : 0 .. R-1) : float = cdf(0) + last(x/2) + last(x/2 + R/2)\n"
		"output cdf, shifted, far\n");
	expect_refused(p, "hist cdf", "reduction");
	expect_refused(p, "heat last", "reads itself");
	expect_refused(p, "last shifted", "reversed");
	expect_refused(p, "last far", "not bounded by constants");
	expect_refused(p, "far last", "topological order");
	/* one plain stage: its identity */
	expect_aligned(p, "last");
	expect_stage(p, "last", "0:1");
}
END_TEST

/* ---- the apps ---- */

START_TEST(harris_inlined)
{
	/* Ix, Iy; Sxx, Syy, Sxy (3x3 sums of products); harris: levels 0 1 2 */
	pt_pipeline *p = parse_app("harris", true);
	ck_assert_int_eq(p->nstages, 6);
	expect_aligned(p, "*");
	ck_assert_int_eq(ga.ndim, 2);
	const char *names[] = {"Ix", "Iy", "Sxx", "Syy", "Sxy", "harris"};
	for (int i = 0; i < 6; i++)
		expect_stage(p, names[i], "0:1 1:1");
	for (int k = 0; k < 2; k++) {
		expect_box(p, "Sxx", "Ix", k, -1, 1);
		expect_box(p, "Sxy", "Iy", k, -1, 1);
		expect_box(p, "harris", "Syy", k, 0, 0);
		/* need 1 at level 0 over height 2: slope 1/2, rounded to 1, and
		 * o = 2 * (1 + 1): figure 3.11, Ix over 32Tx .. 32Tx+35 for
		 * harris over 32Tx+2 .. 32Tx+33 */
		expect_slopes(k, 1, 2, 1, 2, 4);
		expect_ext(p, "Ix", k, 0, 1, 1, 2, 2);
		expect_ext(p, "Sxx", k, 1, 0, 0, 1, 1);
		expect_ext(p, "harris", k, 2, 0, 0, 0, 0);
	}
	ck_assert_int_eq(gs.height, 2);
	int64_t t32[2] = {32, 256};
	expect_ratio(pt_group_relative_overlap(p, &ga, &gs, t32, NULL), 36.0 / 32 * 260.0 / 256 - 1);
	int64_t t8[2] = {8, 8};
	expect_ratio(pt_group_relative_overlap(p, &ga, &gs, t8, NULL), 12.0 / 8 * 12.0 / 8 - 1);
}
END_TEST

START_TEST(harris_not_inlined)
{
	pt_pipeline *p = parse_app("harris", false);
	ck_assert_int_eq(p->nstages, 11);
	expect_aligned(p, "*");
	ck_assert_int_eq(ga.ndim, 2);
	expect_stage(p, "Ixx", "0:1 1:1");
	expect_box(p, "Sxx", "Ixx", 0, -1, 1);
	expect_box(p, "Ixy", "Iy", 1, 0, 0);
	/* levels: Ix 0, Ixx 1, Sxx 2, det 3, harris 4; Ixx and Ix need 1:
	 * slope max(1/3, 1/4) = 1/3, rounded to 1; o = 4 * 2 */
	ck_assert_int_eq(gs.height, 4);
	expect_slopes(0, 1, 3, 1, 3, 8);
	expect_ext(p, "Ix", 0, 0, 1, 1, 4, 4);
	expect_ext(p, "Ixx", 0, 1, 1, 1, 3, 3);
	expect_ext(p, "Sxx", 1, 2, 0, 0, 2, 2);
	expect_ext(p, "det", 1, 3, 0, 0, 1, 1);
}
END_TEST

START_TEST(unsharp_mask)
{
	/* blurx(c,x,y), blury reads it at y-2 .. y+2, sharpen and mask point-wise */
	pt_pipeline *p = parse_app("unsharp_mask", false);
	expect_aligned(p, "*");
	ck_assert_int_eq(ga.ndim, 3);
	expect_stage(p, "blurx", "0:1 1:1 2:1");
	expect_stage(p, "mask", "0:1 1:1 2:1");
	expect_box(p, "blury", "blurx", 2, -2, 2);
	expect_box(p, "blury", "blurx", 1, 0, 0);
	expect_box(p, "mask", "blury", 2, 0, 0);
	/* mask reads blury directly (skipping sharpen's level): levels 0 .. 3,
	 * blurx needs 2 at level 0: slope 2/3, rounded to 1, o = 6 */
	ck_assert_int_eq(gs.height, 3);
	expect_ext(p, "blury", 2, 1, 0, 0, 2, 2);
	expect_ext(p, "blurx", 2, 0, 2, 2, 3, 3);
	expect_slopes(2, 2, 3, 2, 3, 6);
	expect_slopes(1, 0, 1, 0, 1, 0);
	/* c (3 planes) is one tile, x adds nothing, y adds 6 to 256 */
	int64_t tile[3] = {32, 32, 256};
	expect_ratio(pt_group_relative_overlap(p, &ga, &gs, tile, NULL), 6.0 / 256);
}
END_TEST

START_TEST(blur)
{
	pt_pipeline *p = parse_app("blur", false);
	expect_aligned(p, "*");
	expect_stage(p, "bx", "0:1 1:1");
	expect_box(p, "out", "bx", 0, -2, 0);
	expect_box(p, "out", "bx", 1, 0, 0);
	/* out reads bx(x .. x+2): bx extends 2 to the right, o = 2 */
	expect_ext(p, "bx", 0, 0, 0, 2, 0, 2);
	expect_slopes(0, 0, 1, 2, 1, 2);
	int64_t tile[2] = {32, 32};
	expect_ratio(pt_group_relative_overlap(p, &ga, &gs, tile, NULL), 34.0 / 32 - 1);
}
END_TEST

START_TEST(isl_map_of_a_stage)
{
	pt_pipeline *p = parse(pyramid_1d);
	expect_aligned(p, "*");
	isl_multi_aff *ma = pt_group_align_map(ictx, p, &ga, idx(p, "d2"));
	ck_assert_ptr_nonnull(ma);
	char *s = isl_multi_aff_to_str(ma);
	ck_assert_msg(strstr(s, "d2[x] -> [(4x)]") != NULL, "%s", s);
	free(s);
	isl_multi_aff_free(ma);
	ck_assert_ptr_null(pt_group_align_map(ictx, p, &ga, 99));
}
END_TEST

static Suite *grouping_suite(void)
{
	Suite *s = suite_create("grouping");
	TCase *t = tcase_create("align");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 60);
	tcase_add_test(t, gray_channel_first);
	tcase_add_test(t, pyramid_down_and_up);
	tcase_add_test(t, upsample_alone_normalized);
	tcase_add_test(t, pyramid_2d_pair);
	tcase_add_test(t, pyramid_blend_row_then_column);
	tcase_add_test(t, transposed_twice_refused);
	tcase_add_test(t, transposed_once_aligned);
	tcase_add_test(t, two_rates_refused);
	tcase_add_test(t, data_dependent_reads);
	tcase_add_test(t, boundaries_refused);
	tcase_add_test(t, isl_map_of_a_stage);
	suite_add_tcase(s, t);
	TCase *a = tcase_create("apps");
	tcase_add_checked_fixture(a, setup, teardown);
	tcase_set_timeout(a, 120);
	tcase_add_test(a, harris_inlined);
	tcase_add_test(a, harris_not_inlined);
	tcase_add_test(a, unsharp_mask);
	tcase_add_test(a, blur);
	suite_add_tcase(s, a);
	return s;
}

int main(void)
{
	return pt_test_run_suite(grouping_suite());
}
