/* ref_pyramid_blend.h: plain-C reference of apps/pyramid_blend.pipe,
 * PolyMage's pyramid blending (polymage_blending.py) with L = 4 levels.
 *
 * Layouts (dense, row-major, last index contiguous, as in ref_apps.h):
 *   img1, img2: float [3][R+4][C+4]   two images, planes first
 *   mask:       float [R+4][C+4]      1 keeps img1, 0 keeps img2
 *   out:        float [3][R+4][C+4]   the collapsed blend, every element
 *                                      written (the 2-pixel ring too)
 *
 * Level l (0..3) of every pyramid is an array [R_l+4][C_l+4] (times 3
 * planes for images) with R_l = R / 2^l, C_l = C / 2^l (C division, R and
 * C >= 0).  Its filters compute only the interior rows 2..R_l+1 and
 * columns 2..C_l+1; the 2-wide ring around it is 0.  Level 0 of the
 * Gaussian pyramids is the input, ring included.  The stages, with f32
 * arithmetic evaluated left to right exactly as written:
 *
 *   Dx_l[x][y] = (f[2x-4][y] + 4*f[2x-3][y] + 6*f[2x-2][y] + 4*f[2x-1][y]
 *                 + f[2x][y]) * 0.0625      f = level l-1, 1 <= l <= 3,
 *                 rows 2..R_l+1, columns 2..C_{l-1}+1 (array [R_l+4][C_{l-1}+4])
 *   G_l[x][y]  = the same along y on Dx_l (columns 2..C_l+1)
 *   Ux_l[x][y] = x even: (f[x/2][y] + 6*f[x/2+1][y] + f[x/2+2][y]) * 0.125
 *                x odd:  (4*f[(x-1)/2+1][y] + 4*f[(x+1)/2+1][y]) * 0.125
 *                f = level l+1, 0 <= l <= 2, rows 2..R_l+1,
 *                columns 2..C_{l+1}+1 (array [R_l+4][C_{l+1}+4])
 *   Uy_l[x][y] = the same along y on Ux_l (columns 2..C_l+1)
 *   Lap_l      = G_l - Uy_l(G_{l+1})   for l < 3, everywhere
 *   Res_l      = Lap1_l * M_l + Lap2_l * (1 - M_l), everywhere
 *                (Lap_3 = G_3)
 *   Col_3      = Res_3;  Col_l = Uy_l(Col_{l+1}) + Res_l;  out = Col_0
 *
 * R and C should be multiples of 8 for the levels to line up; any R, C
 * >= 0 gives a well-defined result. */
#ifndef REF_PYRAMID_BLEND_H
#define REF_PYRAMID_BLEND_H

void ref_pyramid_blend(int R, int C, const float *img1, const float *img2,
		const float *mask, float *out);

#endif
