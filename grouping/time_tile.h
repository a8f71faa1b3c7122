/* time_tile.h: time tiling of a time-iterated stage (issue 40, item 6).
 *
 * A stage f(t, x..) whose every self-read is f(t - 1, x + c..) (heat3d's
 * `heat`) runs today step by step: each step streams the whole grid
 * from memory and back.  Time tiling runs the steps in blocks of K: in
 * block B (steps t0 = o + K B .. e = min(t0 + K - 1, last step)) the
 * grid is cut into tiles that run in parallel, each computing all K
 * steps of its part.  Step t - 1 must hold every point that step t's
 * points read, so a tile is a trapezoid: at step t it is widened by
 * r_d (e - t) on both sides of dim d, r_d the largest |c_d|, and at its
 * last step it is exactly the tile (neighbouring tiles recompute the
 * overlap, as overlapped tiles do across stages).  The steps in between
 * live in a per-tile scratchpad of two steps; the full buffer keeps only
 * the block ends, folded by block: element t at ((t - o) / K) mod 2, so
 * that a block's tiles read one plane (the previous block's end, at
 * their first step) while they write the other (at their last step).
 * Memory traffic per step falls by about K, at the cost of the
 * recomputed overlap: the model below weighs the two.
 *
 * Where it applies: the CPU target at -O1; f a plain function whose
 * dim 0 starts at a constant, with unit steps, affine case conditions
 * (no run-time masks), every self-read at t - 1 and constant offsets
 * along the other dims (none backward), and every other stage reading
 * f only at its last step (what the block-folded buffer keeps).
 *
 * The model.  Per point and step, a tile costs its recomputation, R
 * (the trapezoids' points over the tiles') times a row overhead (1 +
 * lanes / the innermost tile size), plus its memory traffic, (W_in / V
 * + 2) B / K bytes (step t0 - 1 read over the widest widening W_in, the
 * block end written with its lines read first) times
 * PT_TIME_TILE_BYTE_COST per thread sharing the memory; step by step
 * costs 1 + 3 B of that (nothing when a step's grid stays in L3).  It
 * picks K (2 .. 16, at most the steps) and the tile sizes (8 .. 512,
 * powers of two, or the whole dim) with the two-step scratchpad within
 * a thread's share of L3 and at least 2 tiles per thread along the
 * outermost dim, and time tiles only when that beats step by step by
 * 5%.  docs/architecture.md, "Time tiling". */
#ifndef PT_GROUPING_TIME_TILE_H
#define PT_GROUPING_TIME_TILE_H

#include <stdint.h>

#include "polytile.h"
#include "diag.h"
#include "ir.h"
#include "tile.h"
#include "tile_model.h"

/* What one byte from memory costs a thread, in points of a stencil's
 * step, per thread sharing the memory (calibrated on heat3d:
 * docs/performance.md, "Time tiling"). */
#define PT_TIME_TILE_BYTE_COST 0.08
/* The deepest block the model considers. */
#define PT_TIME_TILE_MAX_STEPS 16

/* Why stage s of checked p cannot be time tiled, or NULL; slope[d] then
 * holds r_d (0 for dim 0). */
const char *pt_time_tile_unfit(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s, int64_t *slope);

/* Makes g, an untiled group of one stage that pt_time_tile_unfit
 * accepts, time tiled when opt and the model say so (opt->time_tile:
 * 1 never, K >= 2 in blocks of K, 0 the model's K); tile sizes from
 * opt->tile (outermost first, over dims 1..) when given, else the
 * model's at the estimates ip for machine m (NULL: fallback caches).
 * Appends its reasoning to text (may be NULL).  Whether g is now time
 * tiled. */
bool pt_time_tile_plan(pt_group *g, const int64_t *ip, const pt_machine *m,
	const pt_options *opt, const int64_t *slope, pt_strbuf *text);

#endif
