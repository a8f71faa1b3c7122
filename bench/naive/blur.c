/* blur.c: apps/blur.pipe as hand-written naive parallel C (naive.h).
 *
 * Two stages in pipeline order, each in its own u16 buffer covering its
 * domain box: bx [R+2][C] (x 0..R+1, y 0..C-1), then out [R][C] (the
 * caller's output buffer). Sums are i32 (u16 promoted); the division by 3
 * is the language's floor division, the same as C's on these non-negative
 * sums; the quotient is stored back as u16. */
#include <stdlib.h>

#include "naive.h"

int naive_blur(int32_t R, int32_t C, const pt_buffer *I, pt_buffer *out)
{
	if (R < 1 || C < 1)
		return PT_ERR_PARAM;
	const int64_t ext_in[2] = { (int64_t)R + 2, (int64_t)C + 2 };
	const int64_t ext_out[2] = { R, C };
	int err = naive_check_buffer(I, PT_U16, 2, ext_in);
	if (!err)
		err = naive_check_buffer(out, PT_U16, 2, ext_out);
	if (err)
		return err;

	const int64_t sI = I->stride[0], sO = out->stride[0];
	const uint16_t *in = I->data;
	uint16_t *o = out->data;
	const int64_t W = C;
	uint16_t *restrict bx = malloc((size_t)(((int64_t)R + 2) * W) * sizeof(uint16_t));
	if (!bx)
		return PT_ERR_NOMEM;

	/* bx(x, y) = (I(x, y) + I(x, y+1) + I(x, y+2)) / 3 */
#pragma omp parallel for
	for (int64_t x = 0; x <= (int64_t)R + 1; x++) {
		const uint16_t *restrict p = in + x * sI;
		uint16_t *restrict b = bx + x * W;
		for (int64_t y = 0; y <= (int64_t)C - 1; y++)
			b[y] = (uint16_t)(((int32_t)p[y] + p[y + 1] + p[y + 2]) / 3);
	}

	/* out(x, y) = (bx(x, y) + bx(x+1, y) + bx(x+2, y)) / 3 */
#pragma omp parallel for
	for (int64_t x = 0; x <= (int64_t)R - 1; x++) {
		const uint16_t *restrict b0 = bx + x * W;
		const uint16_t *restrict b1 = bx + (x + 1) * W;
		const uint16_t *restrict b2 = bx + (x + 2) * W;
		uint16_t *restrict q = o + x * sO;
		for (int64_t y = 0; y <= (int64_t)C - 1; y++)
			q[y] = (uint16_t)(((int32_t)b0[y] + b1[y] + b2[y]) / 3);
	}

	free(bx);
	return PT_OK;
}
