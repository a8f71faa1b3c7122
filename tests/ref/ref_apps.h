/*
 * ref_apps.h - plain-C reference implementations of the test pipelines.
 *
 * These are written directly from the pipeline specifications, with simple
 * loops and no code shared with the compiler, so that tests can compare the
 * compiler's interpreter against them.
 *
 * Layout conventions for every function below:
 *   - arrays are dense, row-major, C order; the LAST index is contiguous;
 *   - an array written A[n0][n1] is stored as A[i*n1 + j], and
 *     A[n0][n1][n2] as A[(i*n1 + j)*n2 + k];
 *   - "x in a..b" is inclusive of b;
 *   - all float arithmetic is 32-bit float, evaluated left to right.
 * Sizes R and C are the pipeline parameters; a size for which a domain is
 * empty simply produces no output for that domain.
 */
#ifndef POLYTILE_REF_APPS_H
#define POLYTILE_REF_APPS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Harris corner detection (PolyMage's).
 *   I:   float [R+2][C+2]  (input, read for x in 0..R+1, y in 0..C+1)
 *   out: float [R+2][C+2]  (only x in 2..R-1, y in 2..C-1 is written;
 *                            every other element is left untouched)
 * Ix, Iy are 3x3 Sobel-like stencils scaled by 1/12 over x in 1..R,
 * y in 1..C; Sxx, Syy, Sxy are 3x3 box sums of Ix*Ix, Iy*Iy, Ix*Iy;
 * out = det - 0.04f*trace*trace with det = Sxx*Syy - Sxy*Sxy and
 * trace = Sxx + Syy.  Output is non-empty when R >= 3 and C >= 3.
 */
void ref_harris(int R, int C, const float *I, float *out);

/*
 * Unsharp mask (PolyMage's).
 *   img: float [3][R+4][C+4]  (input)
 *   out: float [3][R][C]      out[c][x-2][y-2] = mask(c, x, y)
 *                              for c in 0..2, x in 2..R+1, y in 2..C+1
 * blurx is a vertical 1-4-6-4-1 blur (times 0.0625f) over y in 0..C+3,
 * blury the horizontal one applied to blurx; sharpen = img*(1+weight) -
 * blury*weight; mask = fabsf(img - blury) < threshold ? img : sharpen.
 * Output is non-empty when R >= 1 and C >= 1.
 */
void ref_unsharp_mask(int R, int C, float threshold, float weight,
		const float *img, float *out);

/*
 * Separable 3x3 box blur on uint16.
 *   I:   uint16 [R+2][C+2]  (input)
 *   out: uint16 [R][C]
 * bx(x,y) = (I[x][y] + I[x][y+1] + I[x][y+2]) / 3  for x in 0..R+1,
 *           y in 0..C-1 (int32 sum, truncating division);
 * out[x][y] = (bx(x,y) + bx(x+1,y) + bx(x+2,y)) / 3  for x in 0..R-1,
 *           y in 0..C-1.  Output is non-empty when R >= 1 and C >= 1.
 */
void ref_blur(int R, int C, const uint16_t *I, uint16_t *out);

/*
 * Sobel edge magnitude.
 *   I:   uint8 [R+2][C+2]  (input)
 *   out: float [R][C]      out[x-1][y-1] = mag(x, y) for x in 1..R,
 *                          y in 1..C
 * gx, gy are the int32 Sobel responses (gx: right column minus left
 * column, gy: bottom row minus top row, weights 1-2-1);
 * mag = sqrtf((float)(gx*gx + gy*gy)).  Non-empty when R, C >= 1.
 */
void ref_sobel(int R, int C, const uint8_t *I, float *out);

/*
 * 256-bin histogram.
 *   I:    uint8 [R][C]  (input)
 *   hist: int32 [256]   hist[b] = number of pixels equal to b
 *                       (all 256 bins are written, starting from zero).
 */
void ref_histogram(int R, int C, const uint8_t *I, int32_t *hist);

/*
 * Deterministic input generators.  All three use the same 32-bit xorshift
 * PRNG: the state starts at seed*2654435761u + 1 (if that is 0, which
 * happens for exactly one seed, the state starts at 0x9E3779B9u instead, so
 * it is never 0).  For each element, in order a[0], a[1], ..., the state is
 * first advanced by
 *     x ^= x << 13;  x ^= x >> 17;  x ^= x << 5;
 * and the element is then derived from the new state:
 *   ref_fill_f32: (float)(x >> 8) * (1.0f/16777216.0f), in [0, 1)
 *   ref_fill_u8:  x >> 24
 *   ref_fill_u16: x >> 16
 * So the same seed gives matching sequences across the three functions.
 */
void ref_fill_f32(float *a, size_t n, uint32_t seed);
void ref_fill_u8(uint8_t *a, size_t n, uint32_t seed);
void ref_fill_u16(uint16_t *a, size_t n, uint32_t seed);

#endif /* POLYTILE_REF_APPS_H */
