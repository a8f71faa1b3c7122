/* slopes.h: the shape of an overlapped tile for an aligned group
 * (PolyMage thesis, section 3.4, Algorithm 1 and equation 3.2) and the
 * relative overlap that the greedy grouping compares with its threshold
 * (section 3.5, Algorithm 2's estimateRelativeOverlap).
 *
 * Levels.  A stage's level is the longest path to it from the stages
 * of the group that read no other stage of the group (level 0); the
 * group's height H is the largest level; a live-out (a stage that no
 * other stage of the group reads) is put at level H, so that its tile
 * is exactly the tile.
 *
 * Per group dim k, all in group coordinates (align.h):
 *   need_l(s), need_r(s): how far left and right of the live-outs' tile
 *     stage s must be computed, from the dependence boxes (a->box):
 *     0 for a live-out, otherwise the largest over its consumers c of
 *     need_l(c) + hi_k(c, s) and need_r(c) - lo_k(c, s), and at least 0
 *     (as the thesis, a region always covers the tile);
 *   the tight slopes: W_l(h) is the largest need_l at level h, and the
 *     left slope is the largest W_l(h) / (H - h) over h < H (likewise on
 *     the right).  This is Algorithm 1 (cumulated widths checked level by
 *     level from the top) computed on the exact per-stage widths: the
 *     same slopes on chains and layered groups, tighter where the widest
 *     reads of consecutive levels lie on different paths, and right for
 *     reads that skip levels;
 *   left, right: the slopes rounded up to integers (PolyMage's overlap_tile);
 *   overlap: o = H * (left + right), equation 3.2's o;
 *   ext_l(s) = left * (H - level(s)), ext_r(s) = right * (H - level(s)):
 *     the region the tile of equation 3.2 gives stage s beyond the live-
 *     outs' tile, ext >= need.
 * With the live-outs' tile at [L, L + tau - 1] in dim k (L = tau * T +
 * left * H in equation 3.2's terms), stage s is computed on
 * [L - ext_l(s), L + tau - 1 + ext_r(s)] (or, tighter, with need), in
 * group coordinates; its own points there are those with
 * scale * x + offset in that range.  Harris (inlined, figure 3.11): the
 * slopes are 1/2, rounded to 1, o = 4, and Ix's region is the tile
 * widened by ext = 2 on each side (need = 1). */
#ifndef PT_GROUPING_SLOPES_H
#define PT_GROUPING_SLOPES_H

#include <stdbool.h>
#include <stdint.h>

#include "align.h"

typedef struct pt_dim_slopes {
	int64_t lnum, lden;     /* tight left slope lnum/lden >= 0 (lden >= 1) */
	int64_t rnum, rden;     /* tight right slope */
	int64_t left, right;    /* rounded up */
	int64_t overlap;        /* height * (left + right) */
} pt_dim_slopes;

typedef struct pt_stage_ext {
	int level;
	bool live_out;          /* read by no other stage of the group */
	int64_t need_l[PT_MAX_DIMS], need_r[PT_MAX_DIMS];
	int64_t ext_l[PT_MAX_DIMS], ext_r[PT_MAX_DIMS];
} pt_stage_ext;

typedef struct pt_group_slopes {
	int ndim, nstages;
	int height;             /* H */
	pt_dim_slopes dim[PT_MAX_DIMS];
	pt_stage_ext *st;       /* nstages, in the order of a->st */
} pt_group_slopes;

/* Levels, widths and slopes of every group dim of a.  Returns 0, or -1
 * when out of memory.  Free with pt_group_slopes_clear. */
int pt_group_slopes_compute(const pt_group_align *a, pt_group_slopes *s);
void pt_group_slopes_clear(pt_group_slopes *s);

/* Equation 3.2's o for one dim at a given height: height * (left + right). */
int64_t pt_group_overlap(const pt_dim_slopes *d, int height);

/* The group coordinates that the stages placed in group dim k span for
 * the given param values (by index in p->params; NULL: the estimates):
 * *lo .. *hi.  False when a bound needs a param without a value, or
 * when no stage is placed in k. */
bool pt_group_extent(const pt_pipeline *p, const pt_group_align *a, int k, const int64_t *params,
	int64_t *lo, int64_t *hi);

/* estimateRelativeOverlap: the volume that overlapped tiles add to their
 * tiles, relative to the tiles:
 *     prod over tiled dims k of (tile[k] + o_k) / tile[k]   - 1.
 * tile[k] is the tile size of group dim k in group coordinates; a dim is
 * tiled when tile[k] > 0 and its extent (pt_group_extent with params) is
 * unknown or larger than tile[k]; other dims are one tile and add no
 * overlap.  Harris inlined with tiles 32 x 256: 36/32 * 260/256 - 1. */
double pt_group_relative_overlap(const pt_pipeline *p, const pt_group_align *a,
	const pt_group_slopes *s, const int64_t *tile, const int64_t *params);

#endif
