/* naive.h: hand-written naive parallel C versions of three apps, with the
 * signatures of the functions `polytile compile` generates (so the bench
 * harness can call either).
 *
 * "Naive" is polytile's naive schedule (PolyMage's base+vec) written by
 * hand: every stage over its full domain, or its case region, into its own
 * full-size buffer; stages one after another in the pipeline's order; the
 * outermost loop of each stage `#pragma omp parallel for`; the inner loop
 * plain, left to gcc to vectorize. Each stage's buffer covers its domain
 * box (extent hi-lo+1 per dimension, element 0 at the lower bound),
 * row-major, with the element type of the .pipe file; intermediates are
 * malloc'ed and freed in every call. Arithmetic is the .pipe's: f32 with
 * every operation rounded (compile with -std=c11 or -ffp-contract=off so
 * gcc does not fuse multiply-adds), u16 promoted to i32.
 *
 * Inputs and outputs may have any outer strides; the last dimension must
 * be contiguous (stride 1). Returns 0 or a negative pt_error code. */
#ifndef BENCH_NAIVE_H
#define BENCH_NAIVE_H

#include <stdint.h>

#include "pt_runtime.h"

/* apps/harris.pipe: I f32 [R+2][C+2], harris f32 [R+2][C+2] (domain
 * 0..R+1 x 0..C+1; only the case region 2..R-1 x 2..C-1 is written). */
int naive_harris(int32_t R, int32_t C, const pt_buffer *I, pt_buffer *harris);

/* The same, fused and tiled by hand (harris_fused.c, issue 10): tiles of
 * 32 x 256 output points, per-thread scratchpads; same checks, same
 * points written, bit for bit the same values as naive_harris. */
int fused_harris(int32_t R, int32_t C, const pt_buffer *I, pt_buffer *harris);

/* apps/unsharp_mask.pipe: img f32 [3][R+4][C+4], mask f32 [3][R][C]
 * (domain 0..2 x 2..R+1 x 2..C+1). */
int naive_unsharp_mask(int32_t R, int32_t C, float threshold, float weight,
		const pt_buffer *img, pt_buffer *mask);

/* apps/blur.pipe: I u16 [R+2][C+2], out u16 [R][C]. */
int naive_blur(int32_t R, int32_t C, const pt_buffer *I, pt_buffer *out);

/* Checks one argument buffer: non-NULL data, type, ndim, extents, last
 * stride 1. Returns 0 or the pt_error code. */
static inline int naive_check_buffer(const pt_buffer *b, pt_type t, int ndim,
		const int64_t *extent)
{
	if (!b || !b->data)
		return PT_ERR_NULL;
	if (b->type != t)
		return PT_ERR_TYPE;
	if (b->ndim != ndim)
		return PT_ERR_NDIM;
	for (int i = 0; i < ndim; i++)
		if (b->extent[i] != extent[i])
			return PT_ERR_EXTENT;
	if (b->stride[ndim - 1] != 1)
		return PT_ERR_EXTENT;
	return PT_OK;
}

#endif
