/* unsharp_mask.c: apps/unsharp_mask.pipe as hand-written naive parallel C
 * (naive.h).
 *
 * Four stages in pipeline order, each in its own buffer covering its
 * domain box:
 *   blurx   [3][R][C+4]  c 0..2, x 2..R+1, y 0..C+3
 *   blury   [3][R][C]    c 0..2, x 2..R+1, y 2..C+1
 *   sharpen [3][R][C]    same domain
 *   mask    [3][R][C]    same domain (the caller's output buffer)
 * The outermost loop of every stage is the channel c. */
#include <math.h>
#include <stdlib.h>

#include "naive.h"

int naive_unsharp_mask(int32_t R, int32_t C, float threshold, float weight,
		const pt_buffer *img, pt_buffer *mask)
{
	if (R < 1 || C < 1)
		return PT_ERR_PARAM;
	const int64_t ext_in[3] = { 3, (int64_t)R + 4, (int64_t)C + 4 };
	const int64_t ext_out[3] = { 3, R, C };
	int err = naive_check_buffer(img, PT_F32, 3, ext_in);
	if (!err)
		err = naive_check_buffer(mask, PT_F32, 3, ext_out);
	if (err)
		return err;

	const int64_t ic = img->stride[0], ix = img->stride[1];
	const int64_t mc = mask->stride[0], mx = mask->stride[1];
	const float *in = img->data;
	float *out = mask->data;
	/* intermediates: row stride Wb / W, plane stride Pb / P */
	const int64_t Wb = (int64_t)C + 4, Pb = (int64_t)R * Wb;
	const int64_t W = C, P = (int64_t)R * W;
	float *restrict blurx = malloc((size_t)(3 * Pb) * sizeof(float));
	float *restrict blury = malloc((size_t)(3 * P) * sizeof(float));
	float *restrict sharpen = malloc((size_t)(3 * P) * sizeof(float));
	if (!blurx || !blury || !sharpen) {
		free(blurx);
		free(blury);
		free(sharpen);
		return PT_ERR_NOMEM;
	}

	/* blurx(c, x, y) for x in 2..R+1, y in 0..C+3, at [c][x-2][y] */
#pragma omp parallel for
	for (int64_t c = 0; c <= 2; c++)
		for (int64_t x = 2; x <= (int64_t)R + 1; x++) {
			const float *restrict p = in + c * ic + x * ix;
			float *restrict o = blurx + c * Pb + (x - 2) * Wb;
			for (int64_t y = 0; y <= (int64_t)C + 3; y++)
				o[y] = (p[y - 2 * ix] + p[y - ix] * 4.0f + p[y] * 6.0f
						+ p[y + ix] * 4.0f + p[y + 2 * ix]) * 0.0625f;
		}

	/* blury(c, x, y) for x in 2..R+1, y in 2..C+1, at [c][x-2][y-2] */
#pragma omp parallel for
	for (int64_t c = 0; c <= 2; c++)
		for (int64_t x = 2; x <= (int64_t)R + 1; x++) {
			const float *restrict b = blurx + c * Pb + (x - 2) * Wb;
			float *restrict o = blury + c * P + (x - 2) * W;
			for (int64_t y = 2; y <= (int64_t)C + 1; y++)
				o[y - 2] = (b[y - 2] + b[y - 1] * 4.0f + b[y] * 6.0f
						+ b[y + 1] * 4.0f + b[y + 2]) * 0.0625f;
		}

	/* sharpen = img * (1 + weight) - blury * weight */
#pragma omp parallel for
	for (int64_t c = 0; c <= 2; c++)
		for (int64_t x = 2; x <= (int64_t)R + 1; x++) {
			const float *restrict p = in + c * ic + x * ix;
			const float *restrict b = blury + c * P + (x - 2) * W;
			float *restrict o = sharpen + c * P + (x - 2) * W;
			for (int64_t y = 2; y <= (int64_t)C + 1; y++)
				o[y - 2] = p[y] * (1 + weight) - b[y - 2] * weight;
		}

	/* mask = select(abs(img - blury) < threshold, img, sharpen) */
#pragma omp parallel for
	for (int64_t c = 0; c <= 2; c++)
		for (int64_t x = 2; x <= (int64_t)R + 1; x++) {
			const float *restrict p = in + c * ic + x * ix;
			const float *restrict b = blury + c * P + (x - 2) * W;
			const float *restrict s = sharpen + c * P + (x - 2) * W;
			float *restrict o = out + c * mc + (x - 2) * mx;
			for (int64_t y = 2; y <= (int64_t)C + 1; y++)
				o[y - 2] = fabsf(p[y] - b[y - 2]) < threshold
					? p[y] : s[y - 2];
		}

	free(blurx);
	free(blury);
	free(sharpen);
	return PT_OK;
}
