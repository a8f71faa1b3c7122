/*
 * ref_local_laplacian.h - plain-C reference of apps/local_laplacian.pipe,
 * PolyMage's local Laplacian filter (8 intensity levels, 8 pyramid levels).
 *
 * Layouts (dense, row-major, last index contiguous):
 *   I:    uint16 [3][R+4][C+4]   RGB input, channels first, with a 2-point
 *                                border (read like any other point);
 *   out:  uint16 [3][R][C]       out[c][x][y] = the result at input point
 *                                (c, x+2, y+2);
 *   gray: float [R+4][C+4]       optional (NULL to skip): the collapsed
 *                                gray result, the pipeline's stage outG[0].
 *
 * Level l (0..7) of every pyramid is [R/2^l + 4][C/2^l + 4] (floor
 * division): the down- and upsampled stages are 0 outside rows
 * 2..R/2^l+1 and columns 2..(their own width)-2, as in PolyMage.  All
 * arithmetic is 32-bit float in the specification's order; the only
 * library call is expf.  Any R, C >= 0 is valid; for R, C < 128 the top
 * levels have no interior points and are all zero.
 */
#ifndef REF_LOCAL_LAPLACIAN_H
#define REF_LOCAL_LAPLACIAN_H

#include <stdint.h>

void ref_local_laplacian(int R, int C, float alpha, float beta,
		const uint16_t *I, uint16_t *out, float *gray);

#endif
