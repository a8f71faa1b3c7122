/* ref_iir_blur.c: the IIR blur as Halide's app computes it, in place in
 * one buffer: down each column then back up, then along each row and
 * back, each pass (1 - a) * previous + a * current. */
#include <stddef.h>
#include <string.h>

#include "ref_iir_blur.h"

/* The two passes over n values at p, p + s, ..., p + (n - 1) s. */
static void passes(float *p, ptrdiff_t s, int n, float a)
{
	for (int i = 1; i < n; i++)
		p[i * s] = (1 - a) * p[(i - 1) * s] + a * p[i * s];
	for (int i = n - 2; i >= 0; i--)
		p[i * s] = (1 - a) * p[(i + 1) * s] + a * p[i * s];
}

void ref_iir_blur(int R, int C, float a, const float *I, float *out)
{
	memcpy(out, I, (size_t)3 * (size_t)R * (size_t)C * sizeof(float));
	for (int c = 0; c < 3; c++) {
		float *plane = out + (size_t)c * (size_t)R * (size_t)C;
		for (int y = 0; y < C; y++)
			passes(plane + y, C, R, a);
		for (int x = 0; x < R; x++)
			passes(plane + (size_t)x * (size_t)C, 1, C, a);
	}
}
