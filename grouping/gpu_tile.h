/* gpu_tile.h: a GPU's tiles for a 2-D tiled group from a model of the
 * device (gpu_tile.c). */
#ifndef PT_GROUPING_GPU_TILE_H
#define PT_GROUPING_GPU_TILE_H

#include <stddef.h>

#include "diag.h"
#include "target_desc.h"

/* One stage of a tiled group in a tile: its points along tile dims 0
 * and 1 (the tile, widened, at its scale) and the points of its other
 * dims (each thread's serial loop over them). */
typedef struct pt_gpu_tile_stage {
	int64_t points[2];
	double inner;
	double weight;                /* a point's work in typical points (>= 1) */
} pt_gpu_tile_stage;

/* A group tiled along two dims, at the estimates. */
typedef struct pt_gpu_tile_case {
	int64_t rows, cols;           /* the tile, along tile dims 0 and 1 */
	/* > 0: the cols are this (a group tiled along one dim: its lanes'
	 * dim whole), only the rows chosen */
	int64_t fixed_cols;
	int64_t extent[2];            /* the group's extents along them */
	int64_t overlap[2];           /* its widening along them (both sides) */
	double scratch;               /* a tile's scratchpad bytes */
	double in_bytes, out_bytes;   /* bytes read (inputs) and written (live-outs) per point */
	int stages;                   /* stages computed per point (without st) */
	/* per stage (nst > 0): its points in a tile, at rows x cols, which
	 * the lanes step over instead of stages x the widened tile */
	int nst;
	pt_gpu_tile_stage *st;
	/* the block: threads along the cols (a warp's lanes) and the rows;
	 * 0: 32 x 8.  fixed_block: given, not chosen */
	int bx, by;
	bool fixed_block;
} pt_gpu_tile_case;

typedef struct pt_gpu_tile_cost {
	int blocks_per_sm;            /* 0: the scratchpads fit no block */
	double tiles, occupancy, tail;
	double memory, compute, time; /* seconds */
} pt_gpu_tile_cost;

/* The predicted time (s) of c on dev, its parts in *out (if given);
 * HUGE_VAL when no block holds its scratchpads. */
double pt_gpu_tile_time(const pt_target_desc *dev, const pt_gpu_tile_case *c, pt_gpu_tile_cost *out);
/* The candidate tile and block of least predicted time into c->rows,
 * c->cols, c->bx, c->by (shape(user, c) sets c->scratch, a tile's
 * scratchpad bytes, and c->st at c->rows x c->cols), its figures on
 * text; -1 when none fits. */
int pt_gpu_tile_choose(const pt_target_desc *dev, pt_gpu_tile_case *c, void (*shape)(void *, pt_gpu_tile_case *),
	void *user, pt_strbuf *text);
/* An untiled kernel: blocks of 256 threads along its innermost loop
 * (inner iterations), one block per iteration of its other loops. */
typedef struct pt_gpu_untiled_case {
	double blocks;
	int64_t inner;
	double bytes;                 /* read and written, in all */
	double weight;                /* a point's work in typical points (>= 1) */
} pt_gpu_untiled_case;
/* Its predicted time (s). */
double pt_gpu_untiled_time(const pt_target_desc *dev, const pt_gpu_untiled_case *c);
/* A launch's cost (s) beyond its kernel's time: the host's call and the
 * device's start, which a fused kernel saves. */
#define PT_GPU_LAUNCH_COST 3e-6
/* dev's GPU figures changed by $PT_GPU's items; -1 with err on a bad one. */
int pt_target_desc_gpu_env(pt_target_desc *dev, char *err, size_t n);

#endif
