/* harris_fused.c: apps/harris.pipe fused and tiled by hand (issue 10), the
 * C a careful programmer would write for the grouped schedule.
 *
 * The output region `border` (2..R-1 x 2..C-1) is cut into tiles of 32
 * rows x 256 columns, spread over the threads by one
 * `#pragma omp parallel for` (static schedule). Per tile, two passes:
 *
 * 1. over the tile widened by one point on each side (at most 34 x 258,
 *    inside `inner`): Ix and Iy are computed in registers and only their
 *    products Ixx, Iyy, Ixy are stored, in the thread's scratchpads
 *    (Ix and Iy themselves are never read again, so storing them would
 *    only add traffic);
 * 2. over the tile: the three 3x3 box sums, det, trace and the response,
 *    in one loop, written straight into the output.
 *
 * Points of the output outside `border` are not written, as in the naive
 * C and in polytile's code (the pipeline leaves them undefined).
 *
 * Every value is computed with the same operations in the same order as
 * naive/harris.c (stencil terms in the parser's order, then times the
 * scale; box sums left to right in row-major order), so with -std=c11 (no
 * contraction) the output is bit for bit the naive C's. */
#include <stdlib.h>

#include "naive.h"

enum {
	TILE_R = 32,			/* output rows per tile */
	TILE_C = 256,			/* output columns per tile */
	SP_R = TILE_R + 2,		/* scratchpad rows: the tile widened by 1 */
	/* scratchpad row stride: 258 columns rounded up to 64 bytes, so
	 * every row starts 64-byte aligned */
	SP_W = (TILE_C + 2 + 15) / 16 * 16,
};

/* The thread's scratchpads, products Ixx, Iyy, Ixy of the widened tile
 * (3 x 34 x 272 floats, 111 KiB, fits in L2). Fixed size, so static
 * thread-local storage: allocated once per thread for the thread's life,
 * no malloc per call or per tile, and its pages are touched by the first
 * call only (page faults are expensive on the benchmark's VM). libgomp
 * keeps its worker threads between parallel regions, so they stay warm. */
static _Thread_local _Alignas(64) float scratch[3][SP_R][SP_W];

/* Pass 1: products of the gradients at rows x0-1..x0+th, columns
 * y0-1..y0+tw, into the scratchpads (row r, column j is (x0-1+r, y0-1+j)). */
static void products(const float *in, int64_t sI, int64_t x0, int64_t y0,
		int64_t th, int64_t tw, float (*restrict pxx)[SP_W],
		float (*restrict pyy)[SP_W], float (*restrict pxy)[SP_W])
{
	for (int64_t r = 0; r < th + 2; r++) {
		int64_t x = x0 - 1 + r;
		/* column j of these rows is y-1 for the point y = y0-1+j */
		const float *restrict a = in + (x - 1) * sI + (y0 - 2);
		const float *restrict b = in + x * sI + (y0 - 2);
		const float *restrict c = in + (x + 1) * sI + (y0 - 2);
		float *restrict oxx = pxx[r], *restrict oyy = pyy[r];
		float *restrict oxy = pxy[r];
		for (int64_t j = 0; j < tw + 2; j++) {
			float ix = (-a[j] + a[j + 2] + -2.0f * b[j]
					+ 2.0f * b[j + 2] + -c[j] + c[j + 2])
				* (1.0f / 12);
			float iy = (-a[j] + -2.0f * a[j + 1] + -a[j + 2]
					+ c[j] + 2.0f * c[j + 1] + c[j + 2])
				* (1.0f / 12);
			oxx[j] = ix * ix;
			oyy[j] = iy * iy;
			oxy[j] = ix * iy;
		}
	}
}

/* 3x3 sum of ones at column j of rows u, v, w, in the parser's order */
#define BOX3(u, v, w, j) \
	((u)[j] + (u)[(j) + 1] + (u)[(j) + 2] + (v)[j] + (v)[(j) + 1] \
	 + (v)[(j) + 2] + (w)[j] + (w)[(j) + 1] + (w)[(j) + 2])

/* Pass 2: the response at the th x tw points of the tile, from the
 * scratchpads; out points at (x0, y0). */
static void response(const float (*restrict pxx)[SP_W],
		const float (*restrict pyy)[SP_W],
		const float (*restrict pxy)[SP_W], int64_t th, int64_t tw,
		float *restrict out, int64_t sO)
{
	for (int64_t i = 0; i < th; i++) {
		const float *restrict u = pxx[i], *restrict v = pxx[i + 1];
		const float *restrict w = pxx[i + 2];
		const float *restrict p = pyy[i], *restrict q = pyy[i + 1];
		const float *restrict s = pyy[i + 2];
		const float *restrict e = pxy[i], *restrict f = pxy[i + 1];
		const float *restrict g = pxy[i + 2];
		float *restrict o = out + i * sO;
		for (int64_t j = 0; j < tw; j++) {
			float sxx = BOX3(u, v, w, j);
			float syy = BOX3(p, q, s, j);
			float sxy = BOX3(e, f, g, j);
			float det = sxx * syy - sxy * sxy;
			float trace = sxx + syy;
			o[j] = det - 0.04f * trace * trace;
		}
	}
}
#undef BOX3

int fused_harris(int32_t R, int32_t C, const pt_buffer *I, pt_buffer *harris)
{
	if (R < 1 || C < 1)
		return PT_ERR_PARAM;
	const int64_t ext[2] = { (int64_t)R + 2, (int64_t)C + 2 };
	int err = naive_check_buffer(I, PT_F32, 2, ext);
	if (!err)
		err = naive_check_buffer(harris, PT_F32, 2, ext);
	if (err)
		return err;

	/* border: rows 2..R-1, columns 2..C-1 (empty below 3 x 3) */
	const int64_t nr = (int64_t)R - 2, nc = (int64_t)C - 2;
	if (nr < 1 || nc < 1)
		return PT_OK;
	const int64_t tr = (nr + TILE_R - 1) / TILE_R;
	const int64_t tc = (nc + TILE_C - 1) / TILE_C;
	const int64_t sI = I->stride[0], sO = harris->stride[0];
	const float *in = I->data;
	float *out = harris->data;

	/* one flat loop over the tiles (row-major), so that the static
	 * schedule gives each thread one contiguous band of tiles */
#pragma omp parallel for schedule(static)
	for (int64_t t = 0; t < tr * tc; t++) {
		const int64_t x0 = 2 + t / tc * TILE_R, y0 = 2 + t % tc * TILE_C;
		/* partial tiles at the bottom and right edges */
		const int64_t th = nr + 2 - x0 < TILE_R ? nr + 2 - x0 : TILE_R;
		const int64_t tw = nc + 2 - y0 < TILE_C ? nc + 2 - y0 : TILE_C;
		products(in, sI, x0, y0, th, tw, scratch[0], scratch[1], scratch[2]);
		response((const float (*)[SP_W])scratch[0],
				(const float (*)[SP_W])scratch[1],
				(const float (*)[SP_W])scratch[2], th, tw,
				out + x0 * sO + y0, sO);
	}
	return PT_OK;
}
