/*
 * ref_selftest.c - self-test of the reference pipelines in ref_apps.c.
 *
 * Each reference is run on tiny inputs whose outputs were worked out by
 * hand (constant images, a single bright pixel, ramps), then on random
 * inputs at odd and minimal sizes with exactly-sized heap buffers so that
 * the sanitizers catch any out-of-bounds access, checking a few properties
 * that must hold.  Prints "N passed, N failed"; exits nonzero on failure.
 */
#include "ref_apps.h"
#include "ref_argmin.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int n_pass;
static int n_fail;

/* Record one check. */
static void check(int ok, const char *what, int line)
{
	if (ok) {
		n_pass++;
	} else {
		n_fail++;
		printf("FAIL (line %d): %s\n", line, what);
	}
}

#define CHECK(cond) check((cond), #cond, __LINE__)

/* |a - b| <= tol */
static int near(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

/* Calloc that exits on failure. */
static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz);

	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return p;
}

/* Harris on hand-checkable inputs. */
static void test_harris_hand(void)
{
	enum { R = 5, C = 5, W = C + 2, N = (R + 2) * (C + 2) };
	float I[N], out[N];
	int i, x, y, ok;

	/* constant image: all gradients vanish, response is 0 */
	for (i = 0; i < N; i++) {
		I[i] = 0.75f;
		out[i] = -7.0f;
	}
	ref_harris(R, C, I, out);
	ok = 1;
	for (x = 2; x <= R - 1; x++)
		for (y = 2; y <= C - 1; y++)
			ok = ok && out[x * W + y] == 0.0f;
	CHECK(ok);

	/* only x in 2..R-1, y in 2..C-1 written */
	ok = 1;
	for (x = 0; x < R + 2; x++)
		for (y = 0; y < C + 2; y++)
			if (x < 2 || x > R - 1 || y < 2 || y > C - 1)
				ok = ok && out[x * W + y] == -7.0f;
	CHECK(ok);

	/*
	 * single bright pixel I[3][3] = 1:
	 * centre (3,3): Sxx = Syy = 12/144, Sxy = 0
	 *   -> (144 - 0.04*576) / 20736 = 120.96/20736
	 * corner (2,2): Sxx = Syy = 5/144, Sxy = 1/144
	 *   -> (25 - 1 - 0.04*100) / 20736 = 20/20736
	 * (2,4) mirrors (2,2) with Sxy = -1/144 -> same value.
	 */
	for (i = 0; i < N; i++) {
		I[i] = 0.0f;
		out[i] = -7.0f;
	}
	I[3 * W + 3] = 1.0f;
	ref_harris(R, C, I, out);
	CHECK(near(out[3 * W + 3], 120.96 / 20736.0, 1e-7));
	CHECK(near(out[2 * W + 2], 20.0 / 20736.0, 1e-7));
	CHECK(near(out[2 * W + 4], 20.0 / 20736.0, 1e-7));
	CHECK(near(out[4 * W + 4], 20.0 / 20736.0, 1e-7));

	/*
	 * ramp I[x][y] = x: Ix = 8/12 = 2/3, Iy = 0 everywhere, so
	 * Sxx = 9 * 4/9 = 4, Syy = Sxy = 0, out = -0.04 * 16 = -0.64
	 */
	for (x = 0; x < R + 2; x++)
		for (y = 0; y < W; y++)
			I[x * W + y] = (float)x;
	ref_harris(R, C, I, out);
	CHECK(near(out[2 * W + 2], -0.64, 1e-5));
	CHECK(near(out[4 * W + 3], -0.64, 1e-5));
}

/* Unsharp mask on hand-checkable inputs. */
static void test_unsharp_hand(void)
{
	enum { R = 5, C = 5, Wi = C + 4, P = (R + 4) * (C + 4) };
	float img[3 * P], out[3 * R * C];
	int i, ok;

	/*
	 * constant 0.5: blur is 0.5 exactly, |img - blury| = 0;
	 * threshold 0 selects sharpen = 0.5*4 - 0.5*3 = 0.5
	 */
	for (i = 0; i < 3 * P; i++)
		img[i] = 0.5f;
	ref_unsharp_mask(R, C, 0.0f, 3.0f, img, out);
	ok = 1;
	for (i = 0; i < 3 * R * C; i++)
		ok = ok && out[i] == 0.5f;
	CHECK(ok);

	/*
	 * single pixel img[1][4][4] = 16, weight 1, threshold 0.1:
	 *   blury(4,4) = 16*6*6/256 = 2.25 -> sharpen = 32 - 2.25 = 29.75
	 *   blury(4,5) = 16*6*4/256 = 1.5  -> sharpen = -1.5
	 *   blury(5,6) = 16*4*1/256 = 0.25 -> sharpen = -0.25
	 *   blury(6,6) = 16*1*1/256 = 0.0625 < 0.1 -> img = 0
	 * mask(c,x,y) is at out[c][x-2][y-2]; channels 0 and 2 stay 0.
	 */
	for (i = 0; i < 3 * P; i++)
		img[i] = 0.0f;
	img[1 * P + 4 * Wi + 4] = 16.0f;
	ref_unsharp_mask(R, C, 0.1f, 1.0f, img, out);
	CHECK(out[1 * R * C + 2 * C + 2] == 29.75f);
	CHECK(out[1 * R * C + 2 * C + 3] == -1.5f);
	CHECK(out[1 * R * C + 3 * C + 4] == -0.25f);
	CHECK(out[1 * R * C + 4 * C + 4] == 0.0f);
	ok = 1;
	for (i = 0; i < R * C; i++)
		ok = ok && out[i] == 0.0f && out[2 * R * C + i] == 0.0f;
	CHECK(ok);
}

/* Box blur on hand-checkable inputs. */
static void test_blur_hand(void)
{
	enum { R = 4, C = 4, W = C + 2, N = (R + 2) * (C + 2) };
	uint16_t I[N], out[R * C];
	int i, ok;

	/* constant 65535 stays 65535 (no 16-bit overflow in the sums) */
	for (i = 0; i < N; i++)
		I[i] = 65535;
	ref_blur(R, C, I, out);
	ok = 1;
	for (i = 0; i < R * C; i++)
		ok = ok && out[i] == 65535;
	CHECK(ok);

	/*
	 * single pixel I[2][2] = 900: bx(2,y) = 300 for y in 0..2, 0 at y = 3;
	 * out(x,y) = 100 for x, y in 0..2, else 0
	 */
	for (i = 0; i < N; i++)
		I[i] = 0;
	I[2 * W + 2] = 900;
	ref_blur(R, C, I, out);
	CHECK(out[0 * C + 0] == 100);
	CHECK(out[2 * C + 2] == 100);
	CHECK(out[1 * C + 2] == 100);
	CHECK(out[3 * C + 0] == 0);
	CHECK(out[0 * C + 3] == 0);
	CHECK(out[3 * C + 3] == 0);

	/* truncation in each pass: 10 -> bx = 3 -> out = 1 */
	I[2 * W + 2] = 10;
	ref_blur(R, C, I, out);
	CHECK(out[1 * C + 1] == 1);

	/*
	 * all 1 except row 0 = 0: bx row 0 = 0, other rows 1;
	 * out(0,y) = (0+1+1)/3 = 0, out(1,y) = 1
	 */
	for (i = 0; i < N; i++)
		I[i] = i < W ? 0 : 1;
	ref_blur(R, C, I, out);
	CHECK(out[0 * C + 0] == 0 && out[0 * C + 3] == 0);
	CHECK(out[1 * C + 0] == 1 && out[3 * C + 3] == 1);
}

/* Sobel on hand-checkable inputs. */
static void test_sobel_hand(void)
{
	enum { R = 3, C = 3, W = C + 2, N = (R + 2) * (C + 2) };
	uint8_t I[N];
	float out[R * C];
	int i, x, y, ok;

	/* constant image -> 0 */
	for (i = 0; i < N; i++)
		I[i] = 200;
	ref_sobel(R, C, I, out);
	ok = 1;
	for (i = 0; i < R * C; i++)
		ok = ok && out[i] == 0.0f;
	CHECK(ok);

	/*
	 * single pixel I[2][2] = 10; mag(x,y) sits at out[x-1][y-1]:
	 *   (2,2): gx = gy = 0 -> 0
	 *   (1,1): gx = gy = 10 -> sqrt(200)
	 *   (3,3): gx = gy = -10 -> sqrt(200)
	 *   (2,1): gx = 20, gy = 0 -> 20
	 *   (1,2): gx = 0, gy = 20 -> 20
	 */
	for (i = 0; i < N; i++)
		I[i] = 0;
	I[2 * W + 2] = 10;
	ref_sobel(R, C, I, out);
	CHECK(out[1 * C + 1] == 0.0f);
	CHECK(out[0 * C + 0] == sqrtf(200.0f));
	CHECK(out[2 * C + 2] == sqrtf(200.0f));
	CHECK(out[1 * C + 0] == 20.0f);
	CHECK(out[0 * C + 1] == 20.0f);

	/* ramp I[x][y] = 10*y: gx = (1+2+1) * 20 = 80, gy = 0 */
	for (x = 0; x < R + 2; x++)
		for (y = 0; y < W; y++)
			I[x * W + y] = (uint8_t)(10 * y);
	ref_sobel(R, C, I, out);
	ok = 1;
	for (i = 0; i < R * C; i++)
		ok = ok && out[i] == 80.0f;
	CHECK(ok);

	/* extreme: left column 255, rest 0 at (x,1): gx = -1020, gy = 0 */
	for (i = 0; i < N; i++)
		I[i] = 0;
	for (x = 0; x < R + 2; x++)
		I[x * W + 0] = 255;
	ref_sobel(R, C, I, out);
	CHECK(out[1 * C + 0] == 1020.0f);
	CHECK(out[1 * C + 1] == 0.0f);
}

/* Histogram on a hand-checkable input. */
static void test_histogram_hand(void)
{
	enum { R = 3, C = 5 };
	uint8_t I[R * C];
	int32_t hist[256];
	int i, ok;

	/* values i % 4 over 15 pixels: 0,1,2 appear 4 times, 3 three times */
	for (i = 0; i < R * C; i++)
		I[i] = (uint8_t)(i % 4);
	I[R * C - 1] = 255;	/* last was 14 % 4 = 2 -> now 255 */
	for (i = 0; i < 256; i++)
		hist[i] = 12345;
	ref_histogram(R, C, I, hist);
	CHECK(hist[0] == 4);
	CHECK(hist[1] == 4);
	CHECK(hist[2] == 3);
	CHECK(hist[3] == 3);
	CHECK(hist[255] == 1);
	ok = 1;
	for (i = 4; i < 255; i++)
		ok = ok && hist[i] == 0;
	CHECK(ok);
}

/* Generators: hand-computed first values and cross-consistency. */
/* Argmin on hand-checkable inputs: the least value, ties to the first
 * point in lexicographic order (a, b, c, d). */
static void test_argmin_hand(void)
{
	enum { N = 3, NN = N * N * N * N };
	uint8_t V[NN], val = 0;
	int32_t idx[4] = { -1, -1, -1, -1 };
	int i;

	/* constant: the first point */
	for (i = 0; i < NN; i++)
		V[i] = 7;
	ref_argmin(N, V, &val, idx);
	CHECK(val == 7 && idx[0] == 0 && idx[1] == 0 && idx[2] == 0 && idx[3] == 0);
	/* the minimum 2 at (1, 0, 2, 1) and (2, 0, 0, 0), 3 earlier */
	V[((1 * N + 0) * N + 2) * N + 1] = 2;
	V[((2 * N + 0) * N + 0) * N + 0] = 2;
	V[((0 * N + 1) * N + 1) * N + 1] = 3;
	ref_argmin(N, V, &val, idx);
	CHECK(val == 2 && idx[0] == 1 && idx[1] == 0 && idx[2] == 2 && idx[3] == 1);
	/* the last point alone */
	V[NN - 1] = 0;
	ref_argmin(N, V, &val, idx);
	CHECK(val == 0 && idx[0] == 2 && idx[1] == 2 && idx[2] == 2 && idx[3] == 2);
	/* one point */
	ref_argmin(1, V + 5, &val, idx);
	CHECK(val == 7 && idx[0] == 0 && idx[3] == 0);
}

static void test_fill(void)
{
	enum { N = 1000 };
	float f[N];
	uint8_t b[N];
	uint16_t h[N];
	int i, ok;

	/* seed 0: state 1 -> 0x00042021 after one step */
	ref_fill_f32(f, 1, 0);
	ref_fill_u8(b, 1, 0);
	ref_fill_u16(h, 1, 0);
	CHECK(f[0] == 1056.0f / 16777216.0f);
	CHECK(b[0] == 0);
	CHECK(h[0] == 4);

	/* seed 1: state 0x9E3779B2 -> 0x51212772, 0xCC24EF35, 0x698E9D54 */
	ref_fill_u8(b, 3, 1);
	ref_fill_u16(h, 3, 1);
	CHECK(b[0] == 81 && b[1] == 204 && b[2] == 105);
	CHECK(h[0] == 20769 && h[1] == 52260 && h[2] == 27022);
	ref_fill_f32(f, 1, 1);
	CHECK(f[0] == 5316903.0f / 16777216.0f);

	/* seed 4050964655 would start at 0; it starts at 0x9E3779B9 instead */
	ref_fill_u8(b, 1, 4050964655u);
	CHECK(b[0] == 81);

	/* same seed -> same stream across the three element types */
	ref_fill_f32(f, N, 42);
	ref_fill_u8(b, N, 42);
	ref_fill_u16(h, N, 42);
	ok = 1;
	for (i = 0; i < N; i++) {
		uint32_t top24 = (uint32_t)(f[i] * 16777216.0f);

		ok = ok && f[i] >= 0.0f && f[i] < 1.0f;
		ok = ok && (top24 >> 16) == b[i] && (top24 >> 8) == h[i];
		ok = ok && (h[i] >> 8) == b[i];
	}
	CHECK(ok);
}

/*
 * Random inputs at a given size, exact-sized buffers.  Properties:
 *  harris: border untouched; transposing the input transposes the output
 *          (up to float rounding, as the sum order differs);
 *  unsharp: huge threshold or zero weight reproduces the image;
 *  blur:    output within the input's range;
 *  sobel:   transposing the input transposes the output exactly;
 *  histogram: bins sum to R*C and match a direct count of one value.
 */
static void test_random(int R, int C)
{
	size_t r = (size_t)R, c = (size_t)C, x, y, i, ch;
	size_t nh = (r + 2) * (c + 2);
	size_t nu = 3 * (r + 4) * (c + 4);
	float *hi = xcalloc(nh, sizeof(float));
	float *hit = xcalloc(nh, sizeof(float));
	float *ho = xcalloc(nh, sizeof(float));
	float *hot = xcalloc(nh, sizeof(float));
	float *ui = xcalloc(nu, sizeof(float));
	float *uo = xcalloc(3 * r * c, sizeof(float));
	uint16_t *bi = xcalloc(nh, sizeof(uint16_t));
	uint16_t *bo = xcalloc(r * c, sizeof(uint16_t));
	uint8_t *si = xcalloc(nh, sizeof(uint8_t));
	uint8_t *sit = xcalloc(nh, sizeof(uint8_t));
	float *so = xcalloc(r * c, sizeof(float));
	float *sot = xcalloc(r * c, sizeof(float));
	uint8_t *gi = xcalloc(r * c, sizeof(uint8_t));
	int32_t hist[256];
	int ok, sum, b;
	uint16_t lo, hi16;

	/* harris */
	ref_fill_f32(hi, nh, 7);
	for (x = 0; x < r + 2; x++)
		for (y = 0; y < c + 2; y++)
			hit[y * (r + 2) + x] = hi[x * (c + 2) + y];
	for (i = 0; i < nh; i++) {
		ho[i] = -7.0f;
		hot[i] = -7.0f;
	}
	ref_harris(R, C, hi, ho);
	ref_harris(C, R, hit, hot);
	ok = 1;
	for (x = 0; x < r + 2; x++) {
		for (y = 0; y < c + 2; y++) {
			float v = ho[x * (c + 2) + y];
			float vt = hot[y * (r + 2) + x];

			if (x < 2 || x + 1 > r || y < 2 || y + 1 > c)
				ok = ok && v == -7.0f && vt == -7.0f;
			else
				ok = ok && v != -7.0f && isfinite(v)
					&& near(v, vt, 1e-5);
		}
	}
	CHECK(ok);

	/* unsharp mask */
	ref_fill_f32(ui, nu, 8);
	ref_unsharp_mask(R, C, 2.0f, 0.7f, ui, uo);
	ok = 1;
	for (ch = 0; ch < 3; ch++)
		for (x = 0; x < r; x++)
			for (y = 0; y < c; y++)
				ok = ok && uo[(ch * r + x) * c + y] ==
					ui[(ch * (r + 4) + x + 2) * (c + 4) + y + 2];
	CHECK(ok);
	ref_unsharp_mask(R, C, 0.0f, 0.0f, ui, uo);
	ok = 1;
	for (ch = 0; ch < 3; ch++)
		for (x = 0; x < r; x++)
			for (y = 0; y < c; y++)
				ok = ok && uo[(ch * r + x) * c + y] ==
					ui[(ch * (r + 4) + x + 2) * (c + 4) + y + 2];
	CHECK(ok);
	ref_unsharp_mask(R, C, 0.05f, 1.5f, ui, uo);
	ok = 1;
	for (i = 0; i < 3 * r * c; i++)
		ok = ok && isfinite(uo[i]) && uo[i] > -2.0f && uo[i] < 3.0f;
	CHECK(ok);

	/* blur */
	ref_fill_u16(bi, nh, 9);
	lo = 65535;
	hi16 = 0;
	for (i = 0; i < nh; i++) {
		if (bi[i] < lo)
			lo = bi[i];
		if (bi[i] > hi16)
			hi16 = bi[i];
	}
	ref_blur(R, C, bi, bo);
	ok = 1;
	for (i = 0; i < r * c; i++)
		ok = ok && bo[i] >= lo && bo[i] <= hi16;
	CHECK(ok);

	/* sobel */
	ref_fill_u8(si, nh, 10);
	for (x = 0; x < r + 2; x++)
		for (y = 0; y < c + 2; y++)
			sit[y * (r + 2) + x] = si[x * (c + 2) + y];
	ref_sobel(R, C, si, so);
	ref_sobel(C, R, sit, sot);
	ok = 1;
	for (x = 0; x < r; x++)
		for (y = 0; y < c; y++)
			ok = ok && so[x * c + y] == sot[y * r + x]
				&& so[x * c + y] >= 0.0f
				&& so[x * c + y] <= 1443.0f;
	CHECK(ok);

	/* histogram */
	ref_fill_u8(gi, r * c, 11);
	ref_histogram(R, C, gi, hist);
	sum = 0;
	for (b = 0; b < 256; b++)
		sum += hist[b];
	CHECK(sum == R * C);
	sum = 0;
	for (i = 0; i < r * c; i++)
		sum += gi[i] == gi[0];
	CHECK(hist[gi[0]] == sum);

	free(hi);
	free(hit);
	free(ho);
	free(hot);
	free(ui);
	free(uo);
	free(bi);
	free(bo);
	free(si);
	free(sit);
	free(so);
	free(sot);
	free(gi);
}

/* Sizes whose domains are empty must write nothing. */
static void test_empty(void)
{
	float hi[4 * 5], ho[4 * 5];
	int i, ok;

	/* harris R = 2, C = 3: output domain 2..1 is empty */
	ref_fill_f32(hi, 4 * 5, 3);
	for (i = 0; i < 4 * 5; i++)
		ho[i] = -7.0f;
	ref_harris(2, 3, hi, ho);
	ok = 1;
	for (i = 0; i < 4 * 5; i++)
		ok = ok && ho[i] == -7.0f;
	CHECK(ok);
}

int main(void)
{
	test_harris_hand();
	test_unsharp_hand();
	test_blur_hand();
	test_sobel_hand();
	test_histogram_hand();
	test_argmin_hand();
	test_fill();
	test_random(7, 5);
	test_random(3, 3);	/* harris minimum (one output point) */
	test_random(1, 1);	/* minimum for unsharp, blur, sobel, histogram */
	test_random(3, 4);
	test_random(4, 3);
	test_random(16, 9);
	test_empty();
	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail != 0;
}
