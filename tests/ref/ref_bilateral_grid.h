/* ref_bilateral_grid.h: plain-C reference of apps/bilateral_grid.pipe
 * (PolyMage's bilateral grid: spatial sigma 8, range sigma 0.1).
 *
 * Sizes: R x C is the image; GX = (R+55)/8 - 1 and GY = (C+55)/8 - 1 are
 * the last grid cells (cells run 1 .. GX, 1 .. GY).  Arrays are dense,
 * row-major, last index contiguous; each covers the box of its stage's
 * domain with the box's low corner at element 0 (the interpreter's
 * buffer layout, so buffers compare element for element):
 *
 *   I:     float [R+56][C+56]      the padded input, I[x][y] for x in
 *                                  0 .. R+55, y in 0 .. C+55; values are
 *                                  expected in [0, 1]
 *   grid:  float [2][GX][GY][15]   grid(c, gx, gy, k) at
 *                                  [c][gx-1][gy-1][k], gx in 1 .. GX,
 *                                  gy in 1 .. GY, k in 0 .. 14
 *   blury: float [2][GX-4][GY-4][11]  blury(c, x, y, z) at
 *                                  [c][x-3][y-3][z-2], x in 3 .. GX-2,
 *                                  y in 3 .. GY-2, z in 2 .. 12
 *   out:   float [R][C]            filtered(x, y) at [x-24][y-24], x in
 *                                  24 .. R+23, y in 24 .. C+23
 *
 * grid and blury may be NULL (not returned).  Needs R, C >= 1. */
#ifndef REF_BILATERAL_GRID_H
#define REF_BILATERAL_GRID_H

/* The last grid cell along a dimension of n pixels: (n+55)/8 - 1. */
int ref_bg_cells(int n);

void ref_bilateral_grid(int R, int C, const float *I, float *grid, float *blury, float *out);

#endif
