/* harris.c: apps/harris.pipe as hand-written naive parallel C (naive.h).
 *
 * Eleven stages, each in its own [R+2][C+2] f32 buffer (every stage's
 * domain is 0..R+1 x 0..C+1), each computed over its case region only:
 * `inner` (1..R x 1..C) for Ix, Iy, Ixx, Iyy, Ixy; `border` (2..R-1 x
 * 2..C-1) for Sxx, Syy, Sxy, det, trace, harris. The last one is the
 * caller's output buffer. Stencils are expanded as the parser does:
 * nonzero terms in row-major order of the matrix, left to right, then
 * times the scale. */
#include <stdlib.h>

#include "naive.h"

int naive_harris(int32_t R, int32_t C, const pt_buffer *I, pt_buffer *harris)
{
	if (R < 1 || C < 1)
		return PT_ERR_PARAM;
	const int64_t ext[2] = { (int64_t)R + 2, (int64_t)C + 2 };
	int err = naive_check_buffer(I, PT_F32, 2, ext);
	if (!err)
		err = naive_check_buffer(harris, PT_F32, 2, ext);
	if (err)
		return err;

	const int64_t W = ext[1];			/* row stride of intermediates */
	const size_t n = (size_t)(ext[0] * ext[1]);
	const int64_t sI = I->stride[0], sO = harris->stride[0];
	const float *in = I->data;
	float *out = harris->data;
	enum { IX, IY, IXX, IYY, IXY, SXX, SYY, SXY, DET, TRACE, NBUF };
	float *buf[NBUF] = { 0 };
	for (int b = 0; b < NBUF; b++) {
		buf[b] = malloc(n * sizeof(float));
		if (!buf[b]) {
			for (int k = 0; k < b; k++)
				free(buf[k]);
			return PT_ERR_NOMEM;
		}
	}
	float *restrict Ix = buf[IX], *restrict Iy = buf[IY];
	float *restrict Ixx = buf[IXX], *restrict Iyy = buf[IYY];
	float *restrict Ixy = buf[IXY];
	float *restrict Sxx = buf[SXX], *restrict Syy = buf[SYY];
	float *restrict Sxy = buf[SXY];
	float *restrict det = buf[DET], *restrict trace = buf[TRACE];

	/* inner: x in 1..R, y in 1..C */
#pragma omp parallel for
	for (int64_t x = 1; x <= R; x++) {
		const float *restrict a = in + (x - 1) * sI;
		const float *restrict b = in + x * sI;
		const float *restrict c = in + (x + 1) * sI;
		for (int64_t y = 1; y <= C; y++)
			Ix[x * W + y] = (-a[y - 1] + a[y + 1] + -2.0f * b[y - 1]
					+ 2.0f * b[y + 1] + -c[y - 1] + c[y + 1])
				* (1.0f / 12);
	}
#pragma omp parallel for
	for (int64_t x = 1; x <= R; x++) {
		const float *restrict a = in + (x - 1) * sI;
		const float *restrict c = in + (x + 1) * sI;
		for (int64_t y = 1; y <= C; y++)
			Iy[x * W + y] = (-a[y - 1] + -2.0f * a[y] + -a[y + 1]
					+ c[y - 1] + 2.0f * c[y] + c[y + 1])
				* (1.0f / 12);
	}
#pragma omp parallel for
	for (int64_t x = 1; x <= R; x++)
		for (int64_t y = 1; y <= C; y++)
			Ixx[x * W + y] = Ix[x * W + y] * Ix[x * W + y];
#pragma omp parallel for
	for (int64_t x = 1; x <= R; x++)
		for (int64_t y = 1; y <= C; y++)
			Iyy[x * W + y] = Iy[x * W + y] * Iy[x * W + y];
#pragma omp parallel for
	for (int64_t x = 1; x <= R; x++)
		for (int64_t y = 1; y <= C; y++)
			Ixy[x * W + y] = Ix[x * W + y] * Iy[x * W + y];

	/* border: x in 2..R-1, y in 2..C-1 (3x3 sums of ones, scale 1) */
#define BOX3(S, x, y) \
	(S[((x) - 1) * W + (y) - 1] + S[((x) - 1) * W + (y)] + S[((x) - 1) * W + (y) + 1] \
	 + S[(x) * W + (y) - 1] + S[(x) * W + (y)] + S[(x) * W + (y) + 1] \
	 + S[((x) + 1) * W + (y) - 1] + S[((x) + 1) * W + (y)] + S[((x) + 1) * W + (y) + 1])
#pragma omp parallel for
	for (int64_t x = 2; x <= (int64_t)R - 1; x++)
		for (int64_t y = 2; y <= (int64_t)C - 1; y++)
			Sxx[x * W + y] = BOX3(Ixx, x, y);
#pragma omp parallel for
	for (int64_t x = 2; x <= (int64_t)R - 1; x++)
		for (int64_t y = 2; y <= (int64_t)C - 1; y++)
			Syy[x * W + y] = BOX3(Iyy, x, y);
#pragma omp parallel for
	for (int64_t x = 2; x <= (int64_t)R - 1; x++)
		for (int64_t y = 2; y <= (int64_t)C - 1; y++)
			Sxy[x * W + y] = BOX3(Ixy, x, y);
#undef BOX3
#pragma omp parallel for
	for (int64_t x = 2; x <= (int64_t)R - 1; x++)
		for (int64_t y = 2; y <= (int64_t)C - 1; y++)
			det[x * W + y] = Sxx[x * W + y] * Syy[x * W + y]
				- Sxy[x * W + y] * Sxy[x * W + y];
#pragma omp parallel for
	for (int64_t x = 2; x <= (int64_t)R - 1; x++)
		for (int64_t y = 2; y <= (int64_t)C - 1; y++)
			trace[x * W + y] = Sxx[x * W + y] + Syy[x * W + y];
#pragma omp parallel for
	for (int64_t x = 2; x <= (int64_t)R - 1; x++) {
		float *restrict o = out + x * sO;
		for (int64_t y = 2; y <= (int64_t)C - 1; y++)
			o[y] = det[x * W + y]
				- 0.04f * trace[x * W + y] * trace[x * W + y];
	}

	for (int b = 0; b < NBUF; b++)
		free(buf[b]);
	return PT_OK;
}
