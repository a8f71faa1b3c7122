/* tile.h: groups of stages run in overlapped tiles (PolyMage 3.4, 3.6).
 *
 * A group is a set of stages fused into one loop nest over tiles, in a
 * common space of ndim group dims: stage s's point x sits at the group
 * point g with g[gdim[s][i]] = scale[s][i] * x[i] (grouping/align.h;
 * group dims a stage does not take are 0 for it).  Its live-outs (stages
 * read after the group, or outputs) partition their points into tiles:
 * along tile dim k, tile T covers the group coordinates
 *     torig[k] + tsize[k] * T .. torig[k] + tsize[k] * T + tsize[k] - 1
 * of group dim tdim[k], shifted by torig[k]: the grid starts at the
 * first point of a live-out when that is a constant, so that a tile's
 * rows start where the buffer's do (aligned vectors, codegen/stream.c).
 * Every other stage of the group is computed in
 * each tile over that range widened by ext[s][tdim[k]][0] below and
 * ext[s][tdim[k]][1] above (what its consumers in the tile read),
 * intersected with its domain; neighbouring tiles recompute the overlap,
 * so tiles need nothing from each other and run in parallel.  Those
 * stages live in per-thread scratchpads of the widened tile's size;
 * live-outs in full buffers.  A group of one stage with ntile 0 runs as
 * in the naive schedule. */
#ifndef PT_POLY_TILE_H
#define PT_POLY_TILE_H

#include <stdbool.h>
#include <stdint.h>

#include <isl/ctx.h>
#include <isl/set.h>

#include "ir.h"

typedef struct pt_group {
	int nstages;
	const pt_stage **stages;        /* in topological order */
	bool *liveout;                  /* per stage of the group */
	int ndim;                       /* group dims */
	int (*gdim)[PT_MAX_DIMS];       /* per stage: the group dim of each stage dim */
	int64_t (*scale)[PT_MAX_DIMS];  /* per stage: group coordinate / stage coordinate */
	int ntile;                      /* tiled dims (0: untiled) */
	int tdim[PT_MAX_DIMS];          /* the group dim of each tile dim */
	int64_t tsize[PT_MAX_DIMS];     /* tile size of each tile dim, in group coordinates */
	int64_t torig[PT_MAX_DIMS];     /* group coordinate where tile 0 of each tile dim starts */
	int64_t (*ext)[PT_MAX_DIMS][2]; /* per stage, per group dim: widening below, above */
	/* time tiling (grouping/time_tile.h): > 0, a group of one
	 * time-iterated stage whose tile dim 0 is its dim 0 (the step) in
	 * blocks of tsteps steps, and whose tiles along the other tile dims
	 * are trapezoids: at step t they are widened on both sides by
	 * tslope[gd] * (e - t), e the block's last step, so that its last
	 * step is exactly the tile; ext holds the widest widening, at the
	 * block's first step.  0: none. */
	int tsteps;
	int64_t tslope[PT_MAX_DIMS];    /* per group dim */
	/* a GPU block's threads along tile dims 1 and 0 (x across a warp,
	 * y), chosen with the tiles by the GPU tile model
	 * (grouping/gpu_tile.h) or given (--gpu-block, block[G]: then
	 * gpu_block_given, and the model chooses only the tiles); 0: the
	 * code generator's default */
	int gpu_block[2];
	bool gpu_block_given;
} pt_group;

typedef struct pt_tiling {
	int ngroups;
	pt_group *groups;               /* in an order that respects the DAG */
	int *group_of;                  /* per stage id: its group */
	int *index_in_group;            /* per stage id: its index in the group */
} pt_tiling;

void pt_tiling_free(pt_tiling *t);
/* Frees g's per-stage arrays (not g). */
void pt_group_clear(pt_group *g);

/* The group of s, and whether s lives in scratchpads (a non-live-out of
 * a tiled group). */
const pt_group *pt_tiling_group(const pt_tiling *t, const pt_stage *s);
bool pt_tiling_is_scratch(const pt_tiling *t, const pt_stage *s);
/* Whether stage s lives in a time-tiled group (g->tsteps > 0): in a
 * full buffer at the steps that end a block, in a per-tile scratchpad
 * of two steps in between. */
bool pt_tiling_is_time_tiled(const pt_tiling *t, const pt_stage *s);
/* The tile dim that dim d of stage si of g is tiled by, or -1. */
int pt_group_tile_of_dim(const pt_group *g, int si, int d);
/* A name for group dim gd: a live-out's variable placed there. */
const char *pt_group_dim_name(const pt_group *g, int gd);
/* The points of stage si's dim d in one tile's scratchpad when d is
 * tiled (w group coordinates hold at most (w - 1) / scale + 1 of its
 * points; one more as the origin is rounded down, unless scale is 1),
 * else -1. */
int64_t pt_group_scratch_extent(const pt_group *g, int si, int d);
/* Whether compiled code clips stage si's scratchpad to the domain in
 * dim d (codegen/scratch.c): a tiled dim that sets no row stride, so
 * every tiled dim but the last (unit-stride) one of a stage with two or
 * more.  Rows keep a constant length, which the innermost loops' address
 * arithmetic needs (harris was 3-8% slower with runtime row strides);
 * the rows, planes, ... of a tile larger than the image are the image's. */
bool pt_group_scratch_clipped(const pt_group *g, int si, int d);
/* Bytes of one tile's scratchpad of stage si of g under the int params
 * ip, as compiled code asks for it (codegen/scratch.c): the whole domain
 * box along untiled dims (0 if it is empty), the widened tile's extent
 * along tiled ones, but no more than the domain's span (at least 1)
 * along a clipped one. */
double pt_group_scratch_bytes(const pt_group *g, int si, const int64_t *ip);
/* Whether inner stage si of g needs one scalar instead of a scratchpad:
 * it is in a fused nest (nest, per stage id: the nest's index or -1) and
 * every stage that reads it is in the same nest and reads it only at its
 * own point, so each value is read in the iteration that wrote it. */
bool pt_group_stage_is_scalar(const pt_group *g, int si, const int *nest);
/* The fused loop nests the statements pass will build for tiled group g,
 * predicted from the group alone (before statements exist, for the tile
 * model): nest, per stage id of g's stages, a nest's index or -1, as
 * pt_poly_stmts_fused_nests gives.  Stages fuse when they are one-case
 * functions that do not read themselves (a recurrence keeps its own
 * loop order), in a run of consecutive stages over the same points (same
 * dims, scales, widening and domain at ip), each reading the run only at
 * its own point (pt_stage_reads_at_own_point, the statements pass's
 * rule too). */
void pt_group_predicted_nests(const pt_group *g, const int64_t *ip, int *nest);
/* A time-tiled group's phase sets on the tiled instance space sp (the
 * tile coordinates, then the stage's point): first, the instances at
 * the first step of their block (they read the step before from the
 * full buffer); last, those at its last step, the block's or the
 * domain's (they write the full buffer). */
__isl_give isl_set *pt_time_tile_first(const pt_group *g, __isl_take isl_space *sp);
__isl_give isl_set *pt_time_tile_last(const pt_group *g, __isl_take isl_space *sp);

/* The tiles along tile dim k of g: every T whose range holds a live-out
 * point (a set of one dim over the params). */
__isl_give isl_set *pt_tile_range(isl_ctx *ctx, const pt_pipeline *p, const pt_group *g, int k);
/* The instances of stage g->stages[si] in tiles: dom (a statement's
 * domain, its point dims) with g->ntile tile coordinates put in front,
 * each point in every tile whose widened range holds it, tiles limited
 * to ranges[k] (pt_tile_range) along tile dim k.  With update, dom is a
 * reduction's update domain (its reduction points), placed by the cell
 * variable of each tiled dim (pt_reduction_cell_var); NULL if a tiled
 * dim has none. */
__isl_give isl_set *pt_tile_domain(const pt_group *g, int si, bool update, __isl_keep isl_set *const *ranges,
	__isl_take isl_set *dom);

#endif
