/* ref_heat3d.c: the 7-point heat stencil written as plain loops, with two
 * time buffers swapped after each step. */
#include <stdlib.h>
#include <string.h>

#include "ref_heat3d.h"

/* One step from a to b over the interior; the border of b is copied. */
static void step(int N, float k, const float *a, float *b)
{
	size_t n = (size_t)N + 2;
	memcpy(b, a, n * n * n * sizeof(float));
	for (size_t x = 1; x <= (size_t)N; x++)
		for (size_t y = 1; y <= (size_t)N; y++)
			for (size_t z = 1; z <= (size_t)N; z++) {
				size_t i = (x * n + y) * n + z;
				float c = a[i];
				b[i] = c + k * (a[i - n * n] + a[i + n * n] + a[i - n] + a[i + n]
					+ a[i - 1] + a[i + 1] - 6.0f * c);
			}
}

void ref_heat3d(int N, int T, float k, const float *U, float *once, float *last)
{
	size_t n = (size_t)N + 2, bytes = n * n * n * sizeof(float);
	step(N, k, U, once);
	float *a = malloc(bytes), *b = malloc(bytes);
	if (!a || !b)
		abort();
	memcpy(a, U, bytes);
	for (int t = 1; t <= T; t++) {
		step(N, k, a, b);
		float *s = a;
		a = b;
		b = s;
	}
	memcpy(last, a, bytes);
	free(a);
	free(b);
}
