/* ref_pyramid_blend.c: plain-C reference of apps/pyramid_blend.pipe; see
 * ref_pyramid_blend.h for the layouts and the definition.  Written from
 * PolyMage's polymage_blending.py with plain loops; every array is
 * zero-filled (calloc) and only its interior is then computed, which
 * gives the zero ring. */
#include "ref_pyramid_blend.h"

#include <stdlib.h>
#include <string.h>

#define LEVELS 4

/* An array of np planes of h x w floats. */
typedef struct {
	int np, h, w;
	float *a;
} arr;

static arr make(int np, int h, int w)
{
	arr r = {np, h, w, calloc((size_t)np * h * w, sizeof(float))};
	if (!r.a)
		abort();
	return r;
}

static float *at(const arr *r, int p, int x, int y)
{
	return &r->a[((size_t)p * r->h + x) * r->w + y];
}

/* Rows of f filtered 1-4-6-4-1 / 16 and halved: rows 2..Rl+1 of the
 * result, at the columns 2..f.w-3. */
static arr down_rows(const arr *f, int Rl)
{
	arr d = make(f->np, Rl + 4, f->w);
	for (int p = 0; p < f->np; p++)
		for (int x = 2; x <= Rl + 1; x++)
			for (int y = 2; y <= f->w - 3; y++)
				*at(&d, p, x, y) = (*at(f, p, 2*x - 4, y) + 4.0f * *at(f, p, 2*x - 3, y)
					+ 6.0f * *at(f, p, 2*x - 2, y) + 4.0f * *at(f, p, 2*x - 1, y)
					+ *at(f, p, 2*x, y)) * 0.0625f;
	return d;
}

/* Columns of f filtered and halved: columns 2..Cl+1, rows 2..f.h-3. */
static arr down_cols(const arr *f, int Cl)
{
	arr d = make(f->np, f->h, Cl + 4);
	for (int p = 0; p < f->np; p++)
		for (int x = 2; x <= f->h - 3; x++)
			for (int y = 2; y <= Cl + 1; y++)
				*at(&d, p, x, y) = (*at(f, p, x, 2*y - 4) + 4.0f * *at(f, p, x, 2*y - 3)
					+ 6.0f * *at(f, p, x, 2*y - 2) + 4.0f * *at(f, p, x, 2*y - 1)
					+ *at(f, p, x, 2*y)) * 0.0625f;
	return d;
}

/* Rows of the coarser f doubled: rows 2..Rl+1 of the result, at the
 * columns 2..f.w-3. */
static arr up_rows(const arr *f, int Rl)
{
	arr u = make(f->np, Rl + 4, f->w);
	for (int p = 0; p < f->np; p++)
		for (int x = 2; x <= Rl + 1; x++)
			for (int y = 2; y <= f->w - 3; y++) {
				float v;
				if (x % 2 == 0)
					v = (*at(f, p, x/2, y) + 6.0f * *at(f, p, x/2 + 1, y)
						+ *at(f, p, x/2 + 2, y)) * 0.125f;
				else
					v = (4.0f * *at(f, p, (x - 1)/2 + 1, y)
						+ 4.0f * *at(f, p, (x + 1)/2 + 1, y)) * 0.125f;
				*at(&u, p, x, y) = v;
			}
	return u;
}

/* Columns of f doubled: columns 2..Cl+1, rows 2..f.h-3. */
static arr up_cols(const arr *f, int Cl)
{
	arr u = make(f->np, f->h, Cl + 4);
	for (int p = 0; p < f->np; p++)
		for (int x = 2; x <= f->h - 3; x++)
			for (int y = 2; y <= Cl + 1; y++) {
				float v;
				if (y % 2 == 0)
					v = (*at(f, p, x, y/2) + 6.0f * *at(f, p, x, y/2 + 1)
						+ *at(f, p, x, y/2 + 2)) * 0.125f;
				else
					v = (4.0f * *at(f, p, x, (y - 1)/2 + 1)
						+ 4.0f * *at(f, p, x, (y + 1)/2 + 1)) * 0.125f;
				*at(&u, p, x, y) = v;
			}
	return u;
}

/* Level l of the Gaussian pyramid from level l-1. */
static arr down(const arr *f, int Rl, int Cl)
{
	arr dx = down_rows(f, Rl);
	arr g = down_cols(&dx, Cl);
	free(dx.a);
	return g;
}

/* Level l from level l+1. */
static arr up(const arr *f, int Rl, int Cl)
{
	arr ux = up_rows(f, Rl);
	arr uy = up_cols(&ux, Cl);
	free(ux.a);
	return uy;
}

void ref_pyramid_blend(int R, int C, const float *img1, const float *img2,
		const float *mask, float *out)
{
	int Rl[LEVELS], Cl[LEVELS];
	for (int l = 0; l < LEVELS; l++) {
		Rl[l] = R / (1 << l);
		Cl[l] = C / (1 << l);
	}
	size_t n0 = (size_t)(R + 4) * (C + 4);

	/* 1. Gaussian pyramids; level 0 is a copy of the input. */
	arr g1[LEVELS], g2[LEVELS], m[LEVELS];
	g1[0] = make(3, R + 4, C + 4);
	g2[0] = make(3, R + 4, C + 4);
	m[0] = make(1, R + 4, C + 4);
	memcpy(g1[0].a, img1, 3 * n0 * sizeof(float));
	memcpy(g2[0].a, img2, 3 * n0 * sizeof(float));
	memcpy(m[0].a, mask, n0 * sizeof(float));
	for (int l = 1; l < LEVELS; l++) {
		g1[l] = down(&g1[l - 1], Rl[l], Cl[l]);
		g2[l] = down(&g2[l - 1], Rl[l], Cl[l]);
		m[l] = down(&m[l - 1], Rl[l], Cl[l]);
	}

	/* 2-3. Laplacian pyramids and the blend, level by level. */
	arr res[LEVELS];
	for (int l = 0; l < LEVELS; l++) {
		arr lap1 = make(3, Rl[l] + 4, Cl[l] + 4), lap2 = make(3, Rl[l] + 4, Cl[l] + 4);
		if (l < LEVELS - 1) {
			arr u1 = up(&g1[l + 1], Rl[l], Cl[l]), u2 = up(&g2[l + 1], Rl[l], Cl[l]);
			for (size_t i = 0; i < (size_t)3 * lap1.h * lap1.w; i++) {
				lap1.a[i] = g1[l].a[i] - u1.a[i];
				lap2.a[i] = g2[l].a[i] - u2.a[i];
			}
			free(u1.a);
			free(u2.a);
		} else {
			memcpy(lap1.a, g1[l].a, (size_t)3 * lap1.h * lap1.w * sizeof(float));
			memcpy(lap2.a, g2[l].a, (size_t)3 * lap2.h * lap2.w * sizeof(float));
		}
		res[l] = make(3, Rl[l] + 4, Cl[l] + 4);
		for (int p = 0; p < 3; p++)
			for (int x = 0; x < Rl[l] + 4; x++)
				for (int y = 0; y < Cl[l] + 4; y++) {
					float mv = *at(&m[l], 0, x, y);
					*at(&res[l], p, x, y) = *at(&lap1, p, x, y) * mv
						+ *at(&lap2, p, x, y) * (1.0f - mv);
				}
		free(lap1.a);
		free(lap2.a);
	}

	/* 4. Collapse from the coarsest level. */
	arr col = res[LEVELS - 1];
	for (int l = LEVELS - 2; l >= 0; l--) {
		arr u = up(&col, Rl[l], Cl[l]);
		for (size_t i = 0; i < (size_t)3 * u.h * u.w; i++)
			u.a[i] = u.a[i] + res[l].a[i];
		free(col.a);
		free(res[l].a);
		col = u;
	}
	memcpy(out, col.a, 3 * n0 * sizeof(float));
	free(col.a);
	for (int l = 0; l < LEVELS; l++) {
		free(g1[l].a);
		free(g2[l].a);
		free(m[l].a);
	}
}
