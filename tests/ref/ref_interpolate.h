/* ref_interpolate.h: plain-C reference of apps/interpolate.pipe, PolyMage's
 * multi-scale interpolation (polymage_interpolate.py) with L = 10 levels.
 *
 * Layouts (dense, row-major, last index contiguous, as in ref_apps.h):
 *   img: float [4][R+2][C+2]   RGBA planes (channel first), 1-point ring
 *   out: float [3][R][C]       out[c][x][y] = interp_0[c][x+1][y+1]
 *                                             / interp_0[3][x+1][y+1]
 *
 * Level l (0..9) is an array [4][R_l+2][C_l+2] with R_l = R / 2^l,
 * C_l = C / 2^l (C division, R, C >= 1).  Its filters compute only rows
 * 1..R_l and columns 1..C_l; the 1-wide ring around them is 0.  With f32
 * arithmetic evaluated left to right exactly as written:
 *
 *   down_0[c][x][y]  = img[c][x][y] * img[3][x][y]      (every point,
 *                      ring included; channel 3 becomes alpha^2)
 *   downx_l[c][x][y] = (f[c][2x-2][y] + f[c][2x-1][y]*2 + f[c][2x][y])
 *                      * 0.25   f = down_{l-1}, 1 <= l <= 9, rows 1..R_l,
 *                      columns 1..C_{l-1} (array [4][R_l+2][C_{l-1}+2])
 *   down_l[c][x][y]  = the same along y on downx_l (columns 1..C_l)
 *   interp_9         = down_9
 *   upx_l[c][x][y]   = (f[c][(x+1)/2][y] + f[c][(x+2)/2][y]) / 2
 *                      f = interp_{l+1}, 0 <= l <= 8, rows 1..R_l,
 *                      columns 1..C_{l+1} (array [4][R_l+2][C_{l+1}+2])
 *   interp_l[c][x][y] = down_l[c][x][y] + (1 - down_l[3][x][y])
 *                      * ((u[c][x][(y+1)/2] + u[c][x][(y+2)/2]) / 2)
 *                      u = upx_l, rows 1..R_l, columns 1..C_l
 *
 * Every level is non-empty when R, C >= 512; smaller sizes give empty
 * coarse levels (only their zero ring), which is still well defined. */
#ifndef REF_INTERPOLATE_H
#define REF_INTERPOLATE_H

void ref_interpolate(int R, int C, const float *img, float *out);

#endif
