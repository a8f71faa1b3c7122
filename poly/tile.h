/* tile.h: groups of stages run in overlapped tiles (PolyMage 3.4, 3.6).
 *
 * A group is a set of stages fused into one loop nest over tiles.  Its
 * live-outs (stages read after the group, or outputs) partition their
 * domains into tiles: along tile dim k, tile T covers
 *     tsize[k] * T .. tsize[k] * T + tsize[k] - 1
 * of stage dim tdim[k].  Every other stage of the group is computed in
 * each tile over that range widened by ext[s][d][0] below and ext[s][d][1]
 * above (what its consumers in the tile read), intersected with its
 * domain; neighbouring tiles recompute the overlap, so tiles need nothing
 * from each other and run in parallel.  Those stages live in per-thread
 * scratchpads of the widened tile's size; live-outs in full buffers.
 *
 * Alignment is the identity here: every stage of a tiled group has the
 * group's dimensions, in the same order.  A group of one stage with
 * ntile 0 runs as in the naive schedule. */
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
	int ntile;                      /* tiled dims (0: untiled) */
	int tdim[PT_MAX_DIMS];          /* the stage dim of each tile dim */
	int64_t tsize[PT_MAX_DIMS];     /* tile size of each tile dim */
	int64_t (*ext)[PT_MAX_DIMS][2]; /* per stage, per stage dim: widening below, above */
} pt_group;

typedef struct pt_tiling {
	int ngroups;
	pt_group *groups;               /* in an order that respects the DAG */
	int *group_of;                  /* per stage id: its group */
	int *index_in_group;            /* per stage id: its index in the group */
} pt_tiling;

void pt_tiling_free(pt_tiling *t);

/* The group of s, and whether s lives in scratchpads (a non-live-out of
 * a tiled group). */
const pt_group *pt_tiling_group(const pt_tiling *t, const pt_stage *s);
bool pt_tiling_is_scratch(const pt_tiling *t, const pt_stage *s);
/* The tile dim that stage dim d of a stage in g is tiled by, or -1. */
int pt_group_tile_of_dim(const pt_group *g, int d);

/* The instances of stage g->stages[si] in tiles: dom (a statement's
 * domain, its point dims) with g->ntile tile coordinates put in front,
 * each point in every tile whose widened range holds it, tiles limited
 * to those holding live-out points. */
__isl_give isl_set *pt_tile_domain(isl_ctx *ctx, const pt_pipeline *p, const pt_group *g, int si,
	__isl_take isl_set *dom);

#endif
