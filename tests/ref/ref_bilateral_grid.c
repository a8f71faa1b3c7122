/* ref_bilateral_grid.c: the bilateral grid written as plain loops from
 * PolyMage's benchmark (see ref_bilateral_grid.h for array layouts).
 * Every float operation is a separate single-precision operation in the
 * pipeline's order (sums left to right, lerp(a, b, w) = a + w * (b - a));
 * built as ISO C (-std=c11), GCC does not fuse a*b + c into an FMA. */
#include "ref_bilateral_grid.h"

#include <stdlib.h>

#define NZ 15 /* grid bins 0 .. 14 */
#define BZ 11 /* blurred bins 2 .. 12 */

int ref_bg_cells(int n)
{
	return (n + 55) / 8 - 1;
}

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static float lerp(float a, float b, float w)
{
	return a + w * (b - a);
}

void ref_bilateral_grid(int R, int C, const float *I, float *grid_out, float *blury_out, float *out)
{
	const int W = C + 56;                 /* row length of I */
	const int GX = ref_bg_cells(R), GY = ref_bg_cells(C);
	/* grid, blurz: cells 1 .. GX x 1 .. GY, stored from cell 1 */
	float *grid = calloc((size_t)2 * GX * GY * NZ, sizeof(float));
	float *blurz = calloc((size_t)2 * GX * GY * BZ, sizeof(float));
	/* blurx: 3 .. GX-2 x 1 .. GY; blury: 3 .. GX-2 x 3 .. GY-2 */
	float *blurx = calloc((size_t)2 * (GX - 4) * GY * BZ, sizeof(float));
	float *blury = calloc((size_t)2 * (GX - 4) * (GY - 4) * BZ, sizeof(float));
#define G(c, x, y, k) grid[(((size_t)(c) * GX + (x) - 1) * GY + (y) - 1) * NZ + (k)]
#define BZ_(c, x, y, z) blurz[(((size_t)(c) * GX + (x) - 1) * GY + (y) - 1) * BZ + (z) - 2]
#define BX(c, x, y, z) blurx[(((size_t)(c) * (GX - 4) + (x) - 3) * GY + (y) - 1) * BZ + (z) - 2]
#define BY(c, x, y, z) blury[(((size_t)(c) * (GX - 4) + (x) - 3) * (GY - 4) + (y) - 3) * BZ + (z) - 2]

	/* Grid: cell (gx, gy) gathers pixels 8gx-4 .. 8gx+4 x 8gy-4 .. 8gy+4
	 * (9 x 9, shared with the neighbours) into bin 2 + (int)(10v + 0.5). */
	for (int gx = 1; gx <= GX; gx++)
		for (int gy = 1; gy <= GY; gy++)
			for (int rx = 0; rx <= 8; rx++)
				for (int ry = 0; ry <= 8; ry++) {
					float v = I[(size_t)(8 * gx - 4 + rx) * W + (8 * gy - 4 + ry)];
					float t = v * 10.0f;
					t = t + 0.5f;
					int k = clampi(2 + (int)t, 0, NZ - 1);
					G(0, gx, gy, k) += v;
					G(1, gx, gy, k) += 1.0f;
				}

	/* 1-4-6-4-1 along z, then x, then y (unnormalised). */
	for (int c = 0; c < 2; c++)
		for (int x = 1; x <= GX; x++)
			for (int y = 1; y <= GY; y++)
				for (int z = 2; z <= 12; z++)
					BZ_(c, x, y, z) = G(c, x, y, z - 2) + 4.0f * G(c, x, y, z - 1)
						+ 6.0f * G(c, x, y, z) + 4.0f * G(c, x, y, z + 1) + G(c, x, y, z + 2);
	for (int c = 0; c < 2; c++)
		for (int x = 3; x <= GX - 2; x++)
			for (int y = 1; y <= GY; y++)
				for (int z = 2; z <= 12; z++)
					BX(c, x, y, z) = BZ_(c, x - 2, y, z) + 4.0f * BZ_(c, x - 1, y, z)
						+ 6.0f * BZ_(c, x, y, z) + 4.0f * BZ_(c, x + 1, y, z) + BZ_(c, x + 2, y, z);
	for (int c = 0; c < 2; c++)
		for (int x = 3; x <= GX - 2; x++)
			for (int y = 3; y <= GY - 2; y++)
				for (int z = 2; z <= 12; z++)
					BY(c, x, y, z) = BX(c, x, y - 2, z) + 4.0f * BX(c, x, y - 1, z)
						+ 6.0f * BX(c, x, y, z) + 4.0f * BX(c, x, y + 1, z) + BX(c, x, y + 2, z);

	/* Slice: trilinear sample at (x/8, y/8, 10v), per channel; then the
	 * normalised value (the input where the count is not positive). */
	for (int x = 24; x <= R + 23; x++)
		for (int y = 24; y <= C + 23; y++) {
			float v = I[(size_t)x * W + y];
			float zv = v * 10.0f;
			int zi = (int)zv;
			float zf = zv - (float)zi;
			float xf = (float)(x % 8) / 8.0f;
			float yf = (float)(y % 8) / 8.0f;
			int xi = x / 8, yi = y / 8;
			/* bin 13 (v = 1, weight zf = 0) is read as 12 */
			int z0 = clampi(2 + zi, 2, 12), z1 = clampi(3 + zi, 2, 12);
			float s[2];
			for (int c = 0; c < 2; c++) {
				float l00 = lerp(BY(c, xi, yi, z0), BY(c, xi + 1, yi, z0), xf);
				float l10 = lerp(BY(c, xi, yi + 1, z0), BY(c, xi + 1, yi + 1, z0), xf);
				float l01 = lerp(BY(c, xi, yi, z1), BY(c, xi + 1, yi, z1), xf);
				float l11 = lerp(BY(c, xi, yi + 1, z1), BY(c, xi + 1, yi + 1, z1), xf);
				s[c] = lerp(lerp(l00, l10, yf), lerp(l01, l11, yf), zf);
			}
			out[(size_t)(x - 24) * C + (y - 24)] = s[1] > 0.0f ? s[0] / s[1] : v;
		}

	size_t ng = (size_t)2 * GX * GY * NZ, nb = (size_t)2 * (GX - 4) * (GY - 4) * BZ;
	if (grid_out)
		for (size_t i = 0; i < ng; i++)
			grid_out[i] = grid[i];
	if (blury_out)
		for (size_t i = 0; i < nb; i++)
			blury_out[i] = blury[i];
#undef G
#undef BZ_
#undef BX
#undef BY
	free(grid);
	free(blurz);
	free(blurx);
	free(blury);
}
