/* ref_interpolate.c: see ref_interpolate.h.  Written from PolyMage's
 * specification with plain loops; shares no code with the compiler. */
#include "ref_interpolate.h"

#include <stdlib.h>

#define LEVELS 10

/* A [4][rows][cols] float array, zero-initialised. */
typedef struct {
	int rows, cols;
	float *a;
} plane4;

static plane4 make(int rows, int cols)
{
	plane4 p = {rows, cols, calloc((size_t)4 * (size_t)rows * (size_t)cols, sizeof(float))};
	if (!p.a)
		abort();
	return p;
}

static float *at(const plane4 *p, int c, int x, int y)
{
	return &p->a[((size_t)c * (size_t)p->rows + (size_t)x) * (size_t)p->cols + (size_t)y];
}

void ref_interpolate(int R, int C, const float *img, float *out)
{
	int Rl[LEVELS], Cl[LEVELS];
	for (int l = 0; l < LEVELS; l++) {
		Rl[l] = R >> l;
		Cl[l] = C >> l;
	}
	plane4 down[LEVELS], interp[LEVELS];

	/* down_0: premultiplied by alpha, every point including the ring. */
	down[0] = make(R + 2, C + 2);
	for (int c = 0; c < 4; c++)
		for (int x = 0; x < R + 2; x++)
			for (int y = 0; y < C + 2; y++) {
				size_t p = (size_t)x * (size_t)(C + 2) + (size_t)y;
				size_t plane = (size_t)(R + 2) * (size_t)(C + 2);
				*at(&down[0], c, x, y) = img[(size_t)c * plane + p] * img[3 * plane + p];
			}

	/* Downsampling: [1 2 1] / 4 along x, then along y. */
	for (int l = 1; l < LEVELS; l++) {
		const plane4 *f = &down[l - 1];
		plane4 dx = make(Rl[l] + 2, Cl[l - 1] + 2);
		for (int c = 0; c < 4; c++)
			for (int x = 1; x <= Rl[l]; x++)
				for (int y = 1; y <= Cl[l - 1]; y++)
					*at(&dx, c, x, y) = (*at(f, c, 2 * x - 2, y) + *at(f, c, 2 * x - 1, y) * 2.0f
						+ *at(f, c, 2 * x, y)) * 0.25f;
		down[l] = make(Rl[l] + 2, Cl[l] + 2);
		for (int c = 0; c < 4; c++)
			for (int x = 1; x <= Rl[l]; x++)
				for (int y = 1; y <= Cl[l]; y++)
					*at(&down[l], c, x, y) = (*at(&dx, c, x, 2 * y - 2) + *at(&dx, c, x, 2 * y - 1) * 2.0f
						+ *at(&dx, c, x, 2 * y)) * 0.25f;
		free(dx.a);
	}

	/* Upsampling and compositing, from the coarsest level down. */
	interp[LEVELS - 1] = down[LEVELS - 1];
	for (int l = LEVELS - 2; l >= 0; l--) {
		const plane4 *f = &interp[l + 1];
		plane4 ux = make(Rl[l] + 2, Cl[l + 1] + 2);
		for (int c = 0; c < 4; c++)
			for (int x = 1; x <= Rl[l]; x++)
				for (int y = 1; y <= Cl[l + 1]; y++)
					*at(&ux, c, x, y) = (*at(f, c, (x + 1) / 2, y) + *at(f, c, (x + 2) / 2, y)) / 2.0f;
		interp[l] = make(Rl[l] + 2, Cl[l] + 2);
		for (int c = 0; c < 4; c++)
			for (int x = 1; x <= Rl[l]; x++)
				for (int y = 1; y <= Cl[l]; y++) {
					float up = (*at(&ux, c, x, (y + 1) / 2) + *at(&ux, c, x, (y + 2) / 2)) / 2.0f;
					*at(&interp[l], c, x, y) = *at(&down[l], c, x, y)
						+ (1.0f - *at(&down[l], 3, x, y)) * up;
				}
		free(ux.a);
	}

	/* Normalisation by alpha. */
	for (int c = 0; c < 3; c++)
		for (int x = 0; x < R; x++)
			for (int y = 0; y < C; y++)
				out[((size_t)c * (size_t)R + (size_t)x) * (size_t)C + (size_t)y] =
					*at(&interp[0], c, x + 1, y + 1) / *at(&interp[0], 3, x + 1, y + 1);

	for (int l = 0; l < LEVELS; l++) {
		free(down[l].a);
		if (l < LEVELS - 1)
			free(interp[l].a);
	}
}
