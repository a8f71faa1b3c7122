/* gpu_model.h: the GPU device model's figures for a group as the CUDA
 * target maps it (gpu_model.c), for the tile sizes and for fusion. */
#ifndef PT_GROUPING_GPU_MODEL_H
#define PT_GROUPING_GPU_MODEL_H

#include "diag.h"
#include "gpu_tile.h"
#include "ir.h"
#include "tile.h"

/* For a GPU m and a group g tiled along two dims (or along one, its
 * innermost dim whole across the lanes): chooses its tiles and block
 * (g->tsize, g->gpu_block) by the device model, its figures on text
 * (may be NULL) and its predicted time into *time (may be NULL); 0.
 * -1, g unchanged, when no tile's scratchpads fit a block; 1 for any
 * other target or group (not modelled). */
int pt_gpu_model_choose(pt_group *g, const int64_t *ip, const pt_target_desc *m, pt_strbuf *text, double *time);

/* The predicted time (s) of g's kernels at its tiles and block (0 x 0:
 * 32 x 8), launches not included; -1 when not modelled (a tiled group
 * of other than two tiled dims, time tiles, a reduction). */
double pt_gpu_model_time(const pt_group *g, const int64_t *ip, const pt_target_desc *m);

/* The predicted time (s) of stage s run alone as an untiled kernel; -1
 * for a reduction (not modelled). */
double pt_gpu_model_stage_time(const pt_stage *s, const int64_t *ip, const pt_target_desc *m);
/* The sum of st[0..n)'s, each its own untiled kernel; -1 if any is. */
double pt_gpu_model_stages_time(const pt_stage *const *st, int n, const int64_t *ip, const pt_target_desc *m);

#endif
