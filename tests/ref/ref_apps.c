/*
 * ref_apps.c - plain-C reference implementations of the test pipelines.
 *
 * Straightforward loops written from the specifications in ref_apps.h.
 * Float expressions are written exactly in the order the specification
 * gives them, with float literals, so that every intermediate is a 32-bit
 * float.  Floating-point contraction (fused multiply-add) must stay off for
 * these results to be exact: GCC does that in ISO C mode (-std=c11); for
 * Clang it is switched off here.
 */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#include "ref_apps.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* malloc that aborts on failure: a reference must never silently skip work. */
static void *ref_xmalloc(size_t nelem, size_t elsize)
{
	void *p;

	if (nelem == 0)
		nelem = 1;
	if (nelem > SIZE_MAX / elsize) {
		fprintf(stderr, "ref_apps: allocation size overflow\n");
		abort();
	}
	p = malloc(nelem * elsize);
	if (!p) {
		fprintf(stderr, "ref_apps: out of memory\n");
		abort();
	}
	return p;
}

/*
 * Harris corner detection.  I and out are [R+2][C+2]; the row stride of
 * every array here, temporaries included, is W = C+2.
 */
void ref_harris(int R, int C, const float *I, float *out)
{
	const float k = (float)(1.0 / 12.0);
	size_t r, c, W, n, x, y;
	float *Ix, *Iy, *Ixx, *Iyy, *Ixy;

	if (R < 3 || C < 3)
		return;		/* output domain 2..R-1 x 2..C-1 is empty */
	r = (size_t)R;
	c = (size_t)C;
	W = c + 2;
	n = (r + 2) * W;

	Ix = ref_xmalloc(n, sizeof(float));
	Iy = ref_xmalloc(n, sizeof(float));
	Ixx = ref_xmalloc(n, sizeof(float));
	Iyy = ref_xmalloc(n, sizeof(float));
	Ixy = ref_xmalloc(n, sizeof(float));

	/*
	 * Ix, Iy for x in 1..R, y in 1..C.  The weighted terms are added in
	 * stencil order: row x-1, then x, then x+1; within a row column y-1,
	 * then y, then y+1 (zero-weight terms omitted).  The float sum is then
	 * multiplied by (float)(1.0/12).
	 */
	for (x = 1; x <= r; x++) {
		for (y = 1; y <= c; y++) {
			float sx, sy;

			sx = -I[(x - 1) * W + (y - 1)]
				- 2.0f * I[(x - 1) * W + y]
				- I[(x - 1) * W + (y + 1)]
				+ I[(x + 1) * W + (y - 1)]
				+ 2.0f * I[(x + 1) * W + y]
				+ I[(x + 1) * W + (y + 1)];
			sy = -I[(x - 1) * W + (y - 1)]
				+ I[(x - 1) * W + (y + 1)]
				- 2.0f * I[x * W + (y - 1)]
				+ 2.0f * I[x * W + (y + 1)]
				- I[(x + 1) * W + (y - 1)]
				+ I[(x + 1) * W + (y + 1)];
			Ix[x * W + y] = k * sx;
			Iy[x * W + y] = k * sy;
		}
	}

	/* Products for x in 1..R, y in 1..C */
	for (x = 1; x <= r; x++) {
		for (y = 1; y <= c; y++) {
			float ix = Ix[x * W + y];
			float iy = Iy[x * W + y];

			Ixx[x * W + y] = ix * ix;
			Iyy[x * W + y] = iy * iy;
			Ixy[x * W + y] = ix * iy;
		}
	}

	/* 3x3 sums and the response for x in 2..R-1, y in 2..C-1 */
	for (x = 2; x <= r - 1; x++) {
		for (y = 2; y <= c - 1; y++) {
			float sxx, syy, sxy, det, trace;
			size_t dx, dy;

			sxx = 0.0f;
			syy = 0.0f;
			sxy = 0.0f;
			/* dx, dy run over -1..1, stored here as 0..2 */
			for (dx = 0; dx < 3; dx++) {
				for (dy = 0; dy < 3; dy++) {
					size_t p = (x + dx - 1) * W + (y + dy - 1);

					sxx = sxx + Ixx[p];
					syy = syy + Iyy[p];
					sxy = sxy + Ixy[p];
				}
			}
			det = sxx * syy - sxy * sxy;
			trace = sxx + syy;
			out[x * W + y] = det - 0.04f * trace * trace;
		}
	}

	free(Ix);
	free(Iy);
	free(Ixx);
	free(Iyy);
	free(Ixy);
}

/*
 * Unsharp mask.  img is [3][R+4][C+4], out is [3][R][C].  blurx is kept in
 * a temporary [R][C+4] per channel, indexed by (x-2, y).
 */
void ref_unsharp_mask(int R, int C, float threshold, float weight,
		const float *img, float *out)
{
	size_t r, c, Wi, planei, Wb, ch, x, y;
	float *bx;

	if (R < 1 || C < 1)
		return;
	r = (size_t)R;
	c = (size_t)C;
	Wi = c + 4;			/* row stride of img */
	planei = (r + 4) * Wi;		/* channel stride of img */
	Wb = c + 4;			/* row stride of blurx */
	bx = ref_xmalloc(r * Wb, sizeof(float));

	for (ch = 0; ch < 3; ch++) {
		const float *im = img + ch * planei;
		float *o = out + ch * r * c;

		/* blurx for x in 2..R+1, y in 0..C+3 */
		for (x = 2; x <= r + 1; x++) {
			for (y = 0; y <= c + 3; y++) {
				bx[(x - 2) * Wb + y] =
					(im[(x - 2) * Wi + y]
					 + im[(x - 1) * Wi + y] * 4.0f
					 + im[x * Wi + y] * 6.0f
					 + im[(x + 1) * Wi + y] * 4.0f
					 + im[(x + 2) * Wi + y]) * 0.0625f;
			}
		}

		/* blury, sharpen and mask for x in 2..R+1, y in 2..C+1 */
		for (x = 2; x <= r + 1; x++) {
			for (y = 2; y <= c + 1; y++) {
				const float *b = bx + (x - 2) * Wb;
				float v = im[x * Wi + y];
				float blury, sharpen, m;

				blury = (b[y - 2]
					 + b[y - 1] * 4.0f
					 + b[y] * 6.0f
					 + b[y + 1] * 4.0f
					 + b[y + 2]) * 0.0625f;
				sharpen = v * (1.0f + weight) - blury * weight;
				m = fabsf(v - blury) < threshold ? v : sharpen;
				o[(x - 2) * c + (y - 2)] = m;
			}
		}
	}

	free(bx);
}

/*
 * Separable box blur on uint16.  I is [R+2][C+2], out is [R][C]; the
 * horizontal pass bx is a temporary [R+2][C].
 */
void ref_blur(int R, int C, const uint16_t *I, uint16_t *out)
{
	size_t r, c, WI, x, y;
	uint16_t *bx;

	if (R < 1 || C < 1)
		return;
	r = (size_t)R;
	c = (size_t)C;
	WI = c + 2;
	bx = ref_xmalloc((r + 2) * c, sizeof(uint16_t));

	/* bx for x in 0..R+1, y in 0..C-1 */
	for (x = 0; x <= r + 1; x++) {
		for (y = 0; y <= c - 1; y++) {
			int32_t s = (int32_t)I[x * WI + y]
				+ (int32_t)I[x * WI + y + 1]
				+ (int32_t)I[x * WI + y + 2];

			bx[x * c + y] = (uint16_t)(s / 3);
		}
	}

	/* out for x in 0..R-1, y in 0..C-1 */
	for (x = 0; x <= r - 1; x++) {
		for (y = 0; y <= c - 1; y++) {
			int32_t s = (int32_t)bx[x * c + y]
				+ (int32_t)bx[(x + 1) * c + y]
				+ (int32_t)bx[(x + 2) * c + y];

			out[x * c + y] = (uint16_t)(s / 3);
		}
	}

	free(bx);
}

/* Sobel edge magnitude.  I is [R+2][C+2] of uint8, out is [R][C] float. */
void ref_sobel(int R, int C, const uint8_t *I, float *out)
{
	size_t r, c, W, x, y;

	if (R < 1 || C < 1)
		return;
	r = (size_t)R;
	c = (size_t)C;
	W = c + 2;

	for (x = 1; x <= r; x++) {
		for (y = 1; y <= c; y++) {
			int32_t tl = I[(x - 1) * W + (y - 1)];
			int32_t tc = I[(x - 1) * W + y];
			int32_t tr = I[(x - 1) * W + (y + 1)];
			int32_t ml = I[x * W + (y - 1)];
			int32_t mr = I[x * W + (y + 1)];
			int32_t bl = I[(x + 1) * W + (y - 1)];
			int32_t bc = I[(x + 1) * W + y];
			int32_t br = I[(x + 1) * W + (y + 1)];
			int32_t gx, gy;

			gx = -tl - 2 * ml - bl + tr + 2 * mr + br;
			gy = -tl - 2 * tc - tr + bl + 2 * bc + br;
			out[(x - 1) * c + (y - 1)] =
				sqrtf((float)(gx * gx + gy * gy));
		}
	}
}

/* 256-bin histogram of a [R][C] uint8 image. */
void ref_histogram(int R, int C, const uint8_t *I, int32_t *hist)
{
	size_t n, i;
	int b;

	for (b = 0; b < 256; b++)
		hist[b] = 0;
	if (R < 1 || C < 1)
		return;
	n = (size_t)R * (size_t)C;
	for (i = 0; i < n; i++)
		hist[I[i]] = hist[I[i]] + 1;
}

/* Initial xorshift state for a seed; never 0 (see ref_apps.h). */
static uint32_t ref_seed_state(uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1u;

	if (x == 0)
		x = 0x9E3779B9u;
	return x;
}

/* One step of the 32-bit xorshift PRNG (13, 17, 5). */
static uint32_t ref_xorshift32(uint32_t x)
{
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

/* Floats in [0,1) with 24 random bits each. */
void ref_fill_f32(float *a, size_t n, uint32_t seed)
{
	uint32_t x = ref_seed_state(seed);
	size_t i;

	for (i = 0; i < n; i++) {
		x = ref_xorshift32(x);
		a[i] = (float)(x >> 8) * (1.0f / 16777216.0f);
	}
}

/* Bytes from the top 8 bits of each PRNG state. */
void ref_fill_u8(uint8_t *a, size_t n, uint32_t seed)
{
	uint32_t x = ref_seed_state(seed);
	size_t i;

	for (i = 0; i < n; i++) {
		x = ref_xorshift32(x);
		a[i] = (uint8_t)(x >> 24);
	}
}

/* 16-bit values from the top 16 bits of each PRNG state. */
void ref_fill_u16(uint16_t *a, size_t n, uint32_t seed)
{
	uint32_t x = ref_seed_state(seed);
	size_t i;

	for (i = 0; i < n; i++) {
		x = ref_xorshift32(x);
		a[i] = (uint16_t)(x >> 16);
	}
}
