/* gpu_tile.h: a GPU's tiles for a 2-D tiled group from a model of the
 * device (gpu_tile.c). */
#ifndef PT_GROUPING_GPU_TILE_H
#define PT_GROUPING_GPU_TILE_H

#include <stddef.h>

#include "diag.h"
#include "target_desc.h"

/* A group tiled along two dims, at the estimates. */
typedef struct pt_gpu_tile_case {
	int64_t rows, cols;           /* the tile, along tile dims 0 and 1 */
	int64_t extent[2];            /* the group's extents along them */
	int64_t overlap[2];           /* its widening along them (both sides) */
	double scratch;               /* a tile's scratchpad bytes */
	double in_bytes, out_bytes;   /* bytes read (inputs) and written (live-outs) per point */
	int stages;                   /* stages computed per point */
	/* the block: threads along the cols (a warp's lanes) and the rows;
	 * 0: 32 x 8 */
	int bx, by;
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
 * c->cols, c->bx, c->by (a tile's scratchpad bytes from scratch(user,
 * rows, cols)), its figures on text; -1 when none fits. */
int pt_gpu_tile_choose(const pt_target_desc *dev, pt_gpu_tile_case *c, double (*scratch)(void *, int64_t, int64_t),
	void *user, pt_strbuf *text);
/* dev's GPU figures changed by $PT_GPU's items; -1 with err on a bad one. */
int pt_target_desc_gpu_env(pt_target_desc *dev, char *err, size_t n);

#endif
