/*
 * ref_camera_pipe.c - plain-C reference for apps/camera_pipe.pipe.
 *
 * One loop nest per stage, each stage stored over its whole domain (a box
 * in input coordinates, see ref_camera_pipe.h).  The deinterleaved planes
 * are read straight from the hot-pixel-suppressed image, and the
 * interleaving picks the right plane per pixel; those stages only copy
 * values, so this changes no arithmetic.  Float expressions use float
 * literals in the pipeline's order; floating-point contraction must stay
 * off (GCC does so in ISO C mode; for Clang it is switched off here).
 */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#include "ref_camera_pipe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* An int16 stage over the inclusive box x0..x1 x y0..y1, row-major. */
typedef struct plane {
	int x0, x1, y0, y1;
	int16_t *v;
} plane;

static void plane_init(plane *p, int x0, int x1, int y0, int y1)
{
	p->x0 = x0;
	p->x1 = x1;
	p->y0 = y0;
	p->y1 = y1;
	p->v = calloc((size_t)(x1 - x0 + 1) * (size_t)(y1 - y0 + 1), sizeof(int16_t));
	if (!p->v) {
		fprintf(stderr, "ref_camera_pipe: out of memory\n");
		abort();
	}
}

/* The element at (x, y); a point outside the box is a bug in the reference. */
static int16_t *at(const plane *p, int x, int y)
{
	if (x < p->x0 || x > p->x1 || y < p->y0 || y > p->y1) {
		fprintf(stderr, "ref_camera_pipe: (%d, %d) outside %d..%d x %d..%d\n",
			x, y, p->x0, p->x1, p->y0, p->y1);
		abort();
	}
	return &p->v[(size_t)(x - p->x0) * (size_t)(p->y1 - p->y0 + 1) + (size_t)(y - p->y0)];
}

static int32_t get(const plane *p, int x, int y)
{
	return *at(p, x, y);
}

/* Stores into a short: two's-complement wrap. */
static int16_t wrap16(int64_t v)
{
	int32_t low = (int32_t)(v & 0xFFFF);
	return (int16_t)(low >= 0x8000 ? low - 0x10000 : low);
}

/* An int32 result: two's-complement wrap. */
static int32_t wrap32(int64_t v)
{
	int64_t low = v & 0xFFFFFFFFLL;
	return (int32_t)(low >= 0x80000000LL ? low - 0x100000000LL : low);
}

/* Integer division rounding toward minus infinity (b > 0). */
static int32_t floordiv(int32_t a, int32_t b)
{
	int32_t q = a / b;
	return (a % b != 0 && a < 0) ? q - 1 : q;
}

static int32_t absdiff(int32_t a, int32_t b)
{
	return a > b ? a - b : b - a;
}

static int32_t min2(int32_t a, int32_t b) { return a < b ? a : b; }
static int32_t max2(int32_t a, int32_t b) { return a > b ? a : b; }

static const float m3200[3][4] = {
	{1.6697f, -0.2693f, -0.4004f, -42.4346f},
	{-0.3576f, 1.0615f, 1.5949f, -37.1158f},
	{-0.2175f, -1.8751f, 6.9640f, -26.6970f},
};
static const float m7000[3][4] = {
	{2.2997f, -0.4478f, 0.1706f, -39.0923f},
	{-0.3826f, 1.5906f, -0.2080f, -25.4311f},
	{-0.0888f, -0.7344f, 2.2832f, -20.0826f},
};

/* curve(v): v/1024 clamped to [0, 1], gamma, contrast S-curve, to uint8. */
static uint8_t curve_value(int v, float gamma, float contrast)
{
	float xf = fmaxf(0.0f, fminf(1.0f, (float)v / 1024.0f));
	float g = powf(xf, 1.0f / gamma);
	float b = 2.0f - powf(2.0f, contrast / 100.0f);
	float a = 2.0f - 2.0f * b;
	float z;

	if (g > 0.5f)
		z = 1.0f - (a * (1.0f - g) * (1.0f - g) + b * (1.0f - g));
	else
		z = a * g * g + b * g;
	return (uint8_t)fminf(fmaxf(z * 256.0f, 0.0f), 255.0f);
}

/* Step 3b over 6..hx0 x 8..hy0 (planes by value: they share their
 * samples with the caller's). */
static void chroma(int hx0, int hy0, plane g_gr, plane r_r, plane b_b, plane g_gb,
		plane g_r, plane g_b, plane r_gr, plane b_gr, plane r_gb, plane b_gb,
		plane r_b, plane b_r)
{
	int x, y;

	for (x = 6; x <= hx0; x++)
		for (y = 8; y <= hy0; y++) {
			int32_t p, pd, n, nd;

			*at(&r_gr, x, y) = wrap16(get(&g_gr, x, y)
				- floordiv(get(&g_r, x, y) + get(&g_r, x, y - 1), 2)
				+ floordiv(get(&r_r, x, y - 1) + get(&r_r, x, y), 2));
			*at(&b_gr, x, y) = wrap16(get(&g_gr, x, y)
				- floordiv(get(&g_b, x, y) + get(&g_b, x - 1, y), 2)
				+ floordiv(get(&b_b, x, y) + get(&b_b, x - 1, y), 2));
			*at(&r_gb, x, y) = wrap16(get(&g_gb, x, y)
				- floordiv(get(&g_r, x, y) + get(&g_r, x + 1, y), 2)
				+ floordiv(get(&r_r, x, y) + get(&r_r, x + 1, y), 2));
			*at(&b_gb, x, y) = wrap16(get(&g_gb, x, y)
				- floordiv(get(&g_b, x, y) + get(&g_b, x, y + 1), 2)
				+ floordiv(get(&b_b, x, y) + get(&b_b, x, y + 1), 2));

			/* red at blue: positive diagonal (x+1, y-1), negative (x+1, y) */
			p = get(&g_b, x, y)
				- floordiv(get(&g_r, x, y) + get(&g_r, x + 1, y - 1), 2)
				+ floordiv(get(&r_r, x, y) + get(&r_r, x + 1, y - 1), 2);
			pd = absdiff(get(&r_r, x, y), get(&r_r, x + 1, y - 1));
			n = get(&g_b, x, y)
				- floordiv(get(&g_r, x, y - 1) + get(&g_r, x + 1, y), 2)
				+ floordiv(get(&r_r, x, y - 1) + get(&r_r, x + 1, y), 2);
			nd = absdiff(get(&r_r, x, y - 1), get(&r_r, x + 1, y));
			*at(&r_b, x, y) = wrap16(pd < nd ? p : n);

			/* blue at red: positive diagonal (x-1, y+1), negative (x-1, y) */
			p = get(&g_r, x, y)
				- floordiv(get(&g_b, x, y) + get(&g_b, x - 1, y + 1), 2)
				+ floordiv(get(&b_b, x, y) + get(&b_b, x - 1, y + 1), 2);
			pd = absdiff(get(&b_b, x, y), get(&b_b, x - 1, y + 1));
			n = get(&g_r, x, y)
				- floordiv(get(&g_b, x, y + 1) + get(&g_b, x - 1, y), 2)
				+ floordiv(get(&b_b, x, y + 1) + get(&b_b, x - 1, y), 2);
			nd = absdiff(get(&b_b, x, y + 1), get(&b_b, x - 1, y));
			*at(&b_r, x, y) = wrap16(pd < nd ? p : n);
		}
}

void ref_camera_pipe(int R, int C, float colour_temp, float gamma,
		float contrast, const uint16_t *img, uint8_t *out,
		int16_t *demosaiced, int16_t *corrected, int32_t *matrix,
		uint8_t *curve)
{
	const int W = C + 64;	/* row stride of img */
	const int hx2 = (R + 12) / 2 + 2, hy2 = (C + 16) / 2 + 2;
	const int hx1 = (R + 12) / 2 + 1, hy1 = (C + 16) / 2 + 1;
	const int hx0 = (R + 12) / 2, hy0 = (C + 16) / 2;
	plane den, g_gr, r_r, b_b, g_gb, g_r, g_b;
	plane r_gr, b_gr, r_gb, b_gb, r_b, b_r;
	int32_t m[3][4];
	uint8_t *lut;
	int x, y, c, k;

#define IMG(x, y) ((int32_t)img[(size_t)(x) * (size_t)W + (size_t)(y)])

	/* 1. Hot-pixel suppression over 8..R+17 x 12..C+21. */
	plane_init(&den, 8, R + 17, 12, C + 21);
	for (x = den.x0; x <= den.x1; x++)
		for (y = den.y0; y <= den.y1; y++) {
			int32_t n = IMG(x - 2, y), s = IMG(x + 2, y);
			int32_t w = IMG(x, y - 2), e = IMG(x, y + 2);
			int32_t lo = min2(min2(min2(n, s), w), e);
			int32_t hi = max2(max2(max2(n, s), w), e);
			*at(&den, x, y) = wrap16(min2(max2(IMG(x, y), lo), hi));
		}

	/* 2. The four Bayer phases over 4..(R+12)/2+2 x 6..(C+16)/2+2. */
	plane_init(&g_gr, 4, hx2, 6, hy2);
	plane_init(&r_r, 4, hx2, 6, hy2);
	plane_init(&b_b, 4, hx2, 6, hy2);
	plane_init(&g_gb, 4, hx2, 6, hy2);
	for (x = 4; x <= hx2; x++)
		for (y = 6; y <= hy2; y++) {
			*at(&g_gr, x, y) = *at(&den, 2 * x, 2 * y);
			*at(&r_r, x, y) = *at(&den, 2 * x, 2 * y + 1);
			*at(&b_b, x, y) = *at(&den, 2 * x + 1, 2 * y);
			*at(&g_gb, x, y) = *at(&den, 2 * x + 1, 2 * y + 1);
		}

	/* 3a. Green at red and blue sites over 5..hx1 x 7..hy1: the average
	 * along the axis whose difference is smaller (vertical on ties). */
	plane_init(&g_r, 5, hx1, 7, hy1);
	plane_init(&g_b, 5, hx1, 7, hy1);
	for (x = 5; x <= hx1; x++)
		for (y = 7; y <= hy1; y++) {
			int32_t gv, gvd, gh, ghd;

			gv = floordiv(get(&g_gb, x - 1, y) + get(&g_gb, x, y), 2);
			gvd = absdiff(get(&g_gb, x - 1, y), get(&g_gb, x, y));
			gh = floordiv(get(&g_gr, x, y + 1) + get(&g_gr, x, y), 2);
			ghd = absdiff(get(&g_gr, x, y + 1), get(&g_gr, x, y));
			*at(&g_r, x, y) = wrap16(ghd < gvd ? gh : gv);

			gv = floordiv(get(&g_gr, x + 1, y) + get(&g_gr, x, y), 2);
			gvd = absdiff(get(&g_gr, x + 1, y), get(&g_gr, x, y));
			gh = floordiv(get(&g_gb, x, y - 1) + get(&g_gb, x, y), 2);
			ghd = absdiff(get(&g_gb, x, y - 1), get(&g_gb, x, y));
			*at(&g_b, x, y) = wrap16(ghd < gvd ? gh : gv);
		}

	/* 3b. Red and blue at green sites, red at blue, blue at red, over
	 * 6..hx0 x 8..hy0.  Each is "known green - average green + average
	 * red/blue" (evaluated left to right in int32). */
	plane_init(&r_gr, 6, hx0, 8, hy0);
	plane_init(&b_gr, 6, hx0, 8, hy0);
	plane_init(&r_gb, 6, hx0, 8, hy0);
	plane_init(&b_gb, 6, hx0, 8, hy0);
	plane_init(&r_b, 6, hx0, 8, hy0);
	plane_init(&b_r, 6, hx0, 8, hy0);
	chroma(hx0, hy0, g_gr, r_r, b_b, g_gb, g_r, g_b, r_gr, b_gr, r_gb, b_gb, r_b, b_r);

	/* 5. Colour matrix: interpolated by inverse temperature, Q8.8. */
	{
		float alpha = (1.0f / colour_temp - (float)(1.0 / 3200))
			/ (float)(1.0 / 7000 - 1.0 / 3200);
		for (c = 0; c < 3; c++)
			for (k = 0; k < 4; k++)
				m[c][k] = (int32_t)((m3200[c][k] * alpha
					+ m7000[c][k] * (1.0f - alpha)) * 256.0f);
	}
	if (matrix)
		for (c = 0; c < 3; c++)
			for (k = 0; k < 4; k++)
				matrix[c * 4 + k] = m[c][k];

	/* 6. The curve LUT over every short. */
	lut = malloc(65536);
	if (!lut) {
		fprintf(stderr, "ref_camera_pipe: out of memory\n");
		abort();
	}
	for (int v = -32768; v <= 32767; v++)
		lut[v + 32768] = curve_value(v, gamma, contrast);
	if (curve)
		for (int i = 0; i < 65536; i++)
			curve[i] = lut[i];

	/* 4-6 per output pixel over 12..R+11 x 16..C+15: interleave (the plane
	 * by row and column parity, at (x/2, y/2)), correct, apply the curve. */
	for (x = 12; x <= R + 11; x++)
		for (y = 16; y <= C + 15; y++) {
			int hx = x / 2, hy = y / 2, ev = y % 2 == 0;
			int32_t rgb[3];

			if (x % 2 == 0) {
				rgb[0] = get(ev ? &r_gr : &r_r, hx, hy);
				rgb[1] = get(ev ? &g_gr : &g_r, hx, hy);
				rgb[2] = get(ev ? &b_gr : &b_r, hx, hy);
			} else {
				rgb[0] = get(ev ? &r_b : &r_gb, hx, hy);
				rgb[1] = get(ev ? &g_b : &g_gb, hx, hy);
				rgb[2] = get(ev ? &b_b : &b_gb, hx, hy);
			}
			for (c = 0; c < 3; c++) {
				size_t o = ((size_t)c * (size_t)R + (size_t)(x - 12)) * (size_t)C
					+ (size_t)(y - 16);
				int32_t sum = wrap32((int64_t)m[c][3] + (int64_t)m[c][0] * rgb[0]
					+ (int64_t)m[c][1] * rgb[1] + (int64_t)m[c][2] * rgb[2]);
				int16_t cv = wrap16(floordiv(sum, 256));

				if (demosaiced)
					demosaiced[o] = (int16_t)rgb[c];
				if (corrected)
					corrected[o] = cv;
				out[o] = lut[cv + 32768];
			}
		}
#undef IMG

	free(lut);
	free(den.v);
	free(g_gr.v);
	free(r_r.v);
	free(b_b.v);
	free(g_gb.v);
	free(g_r.v);
	free(g_b.v);
	free(r_gr.v);
	free(b_gr.v);
	free(r_gb.v);
	free(b_gb.v);
	free(r_b.v);
	free(b_r.v);
}
