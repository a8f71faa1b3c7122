/* tile_facts.h: a tiled group's figures at the estimates, for the tile
 * models of the CPU (tile_model.c) and the GPU (gpu_model.c). */
#ifndef PT_GROUPING_TILE_FACTS_H
#define PT_GROUPING_TILE_FACTS_H

#include <stdbool.h>
#include <stdint.h>

#include "tile.h"

/* Group dim gd's extent at ip (group coordinates): the widest live-out
 * along it. */
int64_t pt_tile_dim_extent(const pt_group *g, int gd, const int64_t *ip);
/* Per stage of g: whether it gets a scratchpad (an inner stage that its
 * fused loop nest does not keep in a scalar, as the statements pass will
 * decide: pt_group_predicted_nests).  A new array, NULL when out of
 * memory (then every inner stage counts). */
bool *pt_tile_scratch_stages(const pt_group *g, const int64_t *ip);
/* One tile's scratchpad bytes at g's current sizes (what codegen
 * allocates per thread); scratch NULL: every inner stage. */
double pt_tile_footprint(const pt_group *g, const int64_t *ip, const bool *scratch);

#endif
