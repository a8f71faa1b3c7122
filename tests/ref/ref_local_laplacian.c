/*
 * ref_local_laplacian.c - plain-C reference of PolyMage's local Laplacian
 * filter (apps/local_laplacian/polymage_laplacian.py in the PolyMage
 * benchmarks), written from that specification with simple loops.  See
 * ref_local_laplacian.h for the layouts.
 *
 * Float expressions are written in the specification's order with float
 * literals, so every intermediate is a 32-bit float; floating-point
 * contraction must stay off (GCC does that with -std=c11).
 */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#include "ref_local_laplacian.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NLEV 8                      /* pyramid levels */
#define NK 8                        /* intensity levels */
#define LUT_MAX ((NK - 1) * 256)    /* the LUT covers -LUT_MAX .. LUT_MAX */

static float *fzalloc(size_t n)
{
	float *p = calloc(n ? n : 1, sizeof(float));
	if (!p) {
		fprintf(stderr, "ref_local_laplacian: out of memory\n");
		abort();
	}
	return p;
}

/* Every resampling stage is nonzero only at 2 <= x <= h-3, 2 <= y <= w-3
 * of its own [h][w] box (the interior of its level). */
static int interior(int x, int y, int h, int w)
{
	return x >= 2 && x <= h - 3 && y >= 2 && y <= w - 3;
}

/* d[hd][w] from s[..][w]: [1 3 3 1]/8 over rows 2x-3 .. 2x. */
static void down_x(const float *s, int w, float *d, int hd)
{
	for (int x = 0; x < hd; x++)
		for (int y = 0; y < w; y++)
			d[x * w + y] = !interior(x, y, hd, w) ? 0.0f :
				(s[(2 * x - 3) * w + y] + 3.0f * s[(2 * x - 2) * w + y]
				 + 3.0f * s[(2 * x - 1) * w + y] + s[2 * x * w + y]) * 0.125f;
}

/* d[h][wd] from s[h][ws]: [1 3 3 1]/8 over columns 2y-3 .. 2y. */
static void down_y(const float *s, int h, int ws, float *d, int wd)
{
	for (int x = 0; x < h; x++)
		for (int y = 0; y < wd; y++)
			d[x * wd + y] = !interior(x, y, h, wd) ? 0.0f :
				(s[x * ws + 2 * y - 3] + 3.0f * s[x * ws + 2 * y - 2]
				 + 3.0f * s[x * ws + 2 * y - 1] + s[x * ws + 2 * y]) * 0.125f;
}

/* d[hd][w] from the coarser s[..][w]: even rows x take 1/4 of row x/2 and
 * 3/4 of row x/2+1, odd rows 1/4 of row x/2+2 and 3/4 of row x/2+1. */
static void up_x(const float *s, int w, float *d, int hd)
{
	for (int x = 0; x < hd; x++)
		for (int y = 0; y < w; y++) {
			int far = x % 2 == 0 ? x / 2 : x / 2 + 2;
			d[x * w + y] = !interior(x, y, hd, w) ? 0.0f :
				0.25f * s[far * w + y] + 0.75f * s[(x / 2 + 1) * w + y];
		}
}

/* The same along columns: d[h][wd] from s[h][ws]. */
static void up_y(const float *s, int h, int ws, float *d, int wd)
{
	for (int x = 0; x < h; x++)
		for (int y = 0; y < wd; y++) {
			int far = y % 2 == 0 ? y / 2 : y / 2 + 2;
			d[x * wd + y] = !interior(x, y, h, wd) ? 0.0f :
				0.25f * s[x * ws + far] + 0.75f * s[x * ws + y / 2 + 1];
		}
}

/* d[n] from the gray level g[n] and the NK planes lap[NK][n]: lev = 7*g
 * splits into the plane li (clamped to 0 .. NK-2) and the weight lev-li. */
static void blend(const float *g, const float *lap, size_t n, float *d)
{
	for (size_t i = 0; i < n; i++) {
		float lev = g[i] * (float)(NK - 1);
		int li = (int)lev;
		li = li < 0 ? 0 : li > NK - 2 ? NK - 2 : li;
		float lf = lev - (float)li;
		d[i] = lap[li * n + i] * (1.0f - lf) + lap[(li + 1) * n + i] * lf;
	}
}

void ref_local_laplacian(int R, int C, float alpha, float beta,
		const uint16_t *I, uint16_t *out, float *gray)
{
	int H[NLEV], W[NLEV];
	size_t N[NLEV];
	float *inG[NLEV], *G[NLEV], *L[NLEV], *outG[NLEV];
	float lut[2 * LUT_MAX + 1];
	const float step = (float)(1.0 / (NK - 1));

	for (int l = 0; l < NLEV; l++) {
		H[l] = R / (1 << l) + 4;
		W[l] = C / (1 << l) + 4;
		N[l] = (size_t)H[l] * W[l];
		inG[l] = fzalloc(N[l]);
		G[l] = fzalloc(NK * N[l]);
		L[l] = fzalloc(NK * N[l]);
		outG[l] = fzalloc(N[l]);
	}
	size_t plane = N[0];

	/* gray, over the whole input box */
	for (size_t i = 0; i < plane; i++)
		inG[0][i] = (0.299f * I[i] + 0.587f * I[plane + i] + 0.114f * I[2 * plane + i]) / 65535.0f;

	/* remapping LUT: lut[r + LUT_MAX] for r in -LUT_MAX .. LUT_MAX */
	for (int r = -LUT_MAX; r <= LUT_MAX; r++) {
		float fx = (float)r / 256.0f;
		lut[r + LUT_MAX] = alpha * fx * expf(-fx * fx / 2.0f);
	}

	/* level 0 of the processed pyramids, one plane per intensity level */
	for (int k = 0; k < NK; k++)
		for (size_t i = 0; i < plane; i++) {
			int idx = (int)(inG[0][i] * (float)LUT_MAX);
			idx = idx < 0 ? 0 : idx > LUT_MAX ? LUT_MAX : idx;
			G[0][k * plane + i] = beta * (inG[0][i] - k * step) + k * step
				+ lut[idx - 256 * k + LUT_MAX];
		}

	/* Gaussian pyramids: x pass into tmp [H[l]][W[l-1]], then y pass */
	for (int l = 1; l < NLEV; l++) {
		float *tmp = fzalloc((size_t)H[l] * W[l - 1]);
		down_x(inG[l - 1], W[l - 1], tmp, H[l]);
		down_y(tmp, H[l], W[l - 1], inG[l], W[l]);
		for (int k = 0; k < NK; k++) {
			down_x(G[l - 1] + k * N[l - 1], W[l - 1], tmp, H[l]);
			down_y(tmp, H[l], W[l - 1], G[l] + k * N[l], W[l]);
		}
		free(tmp);
	}

	/* Laplacian pyramids: G[l] minus G[l+1] upsampled; the top is G[7] */
	for (int l = 0; l < NLEV - 1; l++) {
		float *tmp = fzalloc((size_t)H[l] * W[l + 1]);
		float *up = fzalloc(N[l]);
		for (int k = 0; k < NK; k++) {
			up_x(G[l + 1] + k * N[l + 1], W[l + 1], tmp, H[l]);
			up_y(tmp, H[l], W[l + 1], up, W[l]);
			for (size_t i = 0; i < N[l]; i++)
				L[l][k * N[l] + i] = G[l][k * N[l] + i] - up[i];
		}
		free(tmp);
		free(up);
	}

	/* output pyramid, collapsed from the top: outG[l] = up(outG[l+1]) + outL[l] */
	blend(inG[NLEV - 1], G[NLEV - 1], N[NLEV - 1], outG[NLEV - 1]);
	for (int l = NLEV - 2; l >= 0; l--) {
		float *outL = fzalloc(N[l]);
		float *tmp = fzalloc((size_t)H[l] * W[l + 1]);
		float *up = fzalloc(N[l]);
		blend(inG[l], L[l], N[l], outL);
		up_x(outG[l + 1], W[l + 1], tmp, H[l]);
		up_y(tmp, H[l], W[l + 1], up, W[l]);
		for (size_t i = 0; i < N[l]; i++)
			outG[l][i] = up[i] + outL[i];
		free(outL);
		free(tmp);
		free(up);
	}

	/* colour: out = clamp(outG0 * (I/65535 + eps) / (gray + eps), 0, 1) * 65535 */
	for (int c = 0; c < 3; c++)
		for (int x = 0; x < R; x++)
			for (int y = 0; y < C; y++) {
				size_t i = (size_t)(x + 2) * W[0] + (y + 2);
				float v = outG[0][i] * (I[c * plane + i] / 65535.0f + 0.01f) / (inG[0][i] + 0.01f);
				v = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
				out[((size_t)c * R + x) * C + y] = (uint16_t)(v * 65535.0f);
			}
	if (gray)
		for (size_t i = 0; i < plane; i++)
			gray[i] = outG[0][i];

	for (int l = 0; l < NLEV; l++) {
		free(inG[l]);
		free(G[l]);
		free(L[l]);
		free(outG[l]);
	}
}
