/* tile_facts.c: a tiled group's figures at the estimates that the tile
 * models of the CPU (tile_model.c) and of the GPU (gpu_model.c) both
 * ask (tile_facts.h). */
#include <stdlib.h>

#include "tile_facts.h"

/* The extent of group dim gd at ip: the widest live-out along it. */
int64_t pt_tile_dim_extent(const pt_group *g, int gd, const int64_t *ip)
{
	int64_t e = 0;
	for (int pass = 0; pass < 2 && e == 0; pass++)
		for (int s = 0; s < g->nstages; s++) {
			if (pass == 0 && !g->liveout[s])
				continue;
			const pt_stage *st = g->stages[s];
			for (int d = 0; d < st->ndim; d++) {
				int64_t lo, hi;
				if (g->gdim[s][d] == gd && pt_interval_eval(&st->dom[d], ip, &lo, &hi) && hi >= lo &&
					g->scale[s][d] * (hi - lo + 1) > e)
					e = g->scale[s][d] * (hi - lo + 1);
			}
		}
	return e > 0 ? e : 1;
}

/* Per stage of g: whether it gets a scratchpad (an inner stage that its
 * fused loop nest does not keep in a scalar, as the statements pass will
 * decide: pt_group_predicted_nests).  Returns a new array, NULL when out
 * of memory (then every inner stage counts). */
bool *pt_tile_scratch_stages(const pt_group *g, const int64_t *ip)
{
	int nid = 0;
	for (int s = 0; s < g->nstages; s++)
		nid = g->stages[s]->id + 1 > nid ? g->stages[s]->id + 1 : nid;
	int *nest = malloc(sizeof(int) * (size_t)nid);
	bool *scratch = malloc(sizeof(bool) * (size_t)g->nstages);
	if (!nest || !scratch) {
		free(nest);
		free(scratch);
		return NULL;
	}
	pt_group_predicted_nests(g, ip, nest);
	for (int s = 0; s < g->nstages; s++)
		scratch[s] = !g->liveout[s] && !pt_group_stage_is_scalar(g, s, nest);
	free(nest);
	return scratch;
}

/* One tile's scratchpad bytes at g's current sizes (what codegen
 * allocates per thread). */
double pt_tile_footprint(const pt_group *g, const int64_t *ip, const bool *scratch)
{
	double total = 0;
	for (int s = 0; s < g->nstages; s++)
		if (scratch ? scratch[s] : !g->liveout[s])
			total += pt_group_scratch_bytes(g, s, ip);
	return total;
}
