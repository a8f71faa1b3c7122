/* linkcheck.c: libhl_gpu.a links into a C program (static libstdc++) and,
 * without a GPU, fails cleanly: lists the variants built, then calls
 * every variant of every app on small zeroed buffers of the app's shapes
 * and prints what Halide returns, then its release. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hl_gpu.h"

/* A zeroed dense buffer of type t, n dimensions of the extents that
 * follow (int64_t), row-major; leaked: this is a check. */
static pt_buffer *P(pt_type t, int n, ...)
{
	static const size_t size[] = { [PT_U8] = 1, [PT_U16] = 2, [PT_I32] = 4, [PT_F32] = 4 };
	pt_buffer *b = calloc(1, sizeof *b);
	va_list ap;
	va_start(ap, n);
	for (int k = 0; k < n; k++)
		b->extent[k] = va_arg(ap, int64_t);
	va_end(ap);
	int64_t s = 1;
	for (int k = n - 1; k >= 0; k--) {
		b->stride[k] = s;
		s *= b->extent[k];
	}
	b->data = calloc((size_t)s, size[t]);
	if (!b->data) {
		fprintf(stderr, "linkcheck: out of memory\n");
		exit(1);
	}
	b->type = t;
	b->ndim = n;
	return b;
}

static const int64_t R = 509, C = 387;

/* One call of app's variant v in mode on buffers of its shapes. */
static int call(const char *app, const char *v, int mode)
{
	if (!strcmp(app, "harris"))
		return hl_gpu_harris(v, mode, R, C, P(PT_F32, 2, R + 2, C + 2), P(PT_F32, 2, R + 2, C + 2));
	if (!strcmp(app, "unsharp_mask"))
		return hl_gpu_unsharp_mask(v, mode, R, C, 0.001f, 3, P(PT_F32, 3, 3L, R + 4, C + 4), P(PT_F32, 3, 3L, R, C));
	if (!strcmp(app, "blur"))
		return hl_gpu_blur(v, mode, R, C, P(PT_U16, 2, R + 2, C + 2), P(PT_U16, 2, R, C));
	if (!strcmp(app, "sobel"))
		return hl_gpu_sobel(v, mode, R, C, P(PT_U8, 2, R + 2, C + 2), P(PT_F32, 2, R, C));
	if (!strcmp(app, "local_laplacian"))
		return hl_gpu_local_laplacian(v, mode, R, C, 1.0f / 7, 1, P(PT_U16, 3, 3L, R + 4, C + 4), P(PT_U16, 3, 3L, R, C));
	if (!strcmp(app, "histogram"))
		return hl_gpu_histogram(v, mode, R, C, P(PT_U8, 2, R, C), P(PT_I32, 1, 256L));
	if (!strcmp(app, "camera_pipe"))
		return hl_gpu_camera_pipe(v, mode, R, C, 3700, 2, 50, P(PT_U16, 2, R + 48, C + 64), P(PT_U8, 3, 3L, R, C));
	if (!strcmp(app, "pyramid_blend"))
		return hl_gpu_pyramid_blend(v, mode, R, C, P(PT_F32, 3, 3L, R + 4, C + 4), P(PT_F32, 3, 3L, R + 4, C + 4),
			P(PT_F32, 2, R + 4, C + 4), P(PT_F32, 3, 3L, R + 4, C + 4));
	if (!strcmp(app, "bilateral_grid"))
		return hl_gpu_bilateral_grid(v, mode, R, C, P(PT_F32, 2, R + 56, C + 56), P(PT_F32, 2, R, C));
	if (!strcmp(app, "interpolate"))
		return hl_gpu_interpolate(v, mode, R, C, P(PT_F32, 3, 3L, R + 2, C + 2), P(PT_F32, 2, R + 2, C + 2),
			P(PT_F32, 3, 3L, R, C));
	if (!strcmp(app, "heat3d"))
		return hl_gpu_heat3d(v, mode, 62, HL_GPU_HEAT3D_T, 0.125f, P(PT_F32, 3, 64L, 64L, 64L),
			P(PT_F32, 3, 62L, 62L, 62L), P(PT_F32, 3, 64L, 64L, 64L));
	if (!strcmp(app, "argmin")) {
		pt_buffer am[5];
		am[0] = *P(PT_U8, 1, 1L);
		for (int k = 1; k < 5; k++)
			am[k] = *P(PT_I32, 1, 1L);
		return hl_gpu_argmin(v, mode, 32, P(PT_U8, 4, 32L, 32L, 32L, 32L), am);
	}
	return hl_gpu_iir_blur(v, mode, R, C, 0.1f, P(PT_F32, 3, 3L, R, C), P(PT_F32, 3, 3L, R, C));
}

int main(void)
{
	static const char *const apps[] = { "harris", "unsharp_mask", "blur", "sobel", "local_laplacian", "histogram",
		"camera_pipe", "pyramid_blend", "bilateral_grid", "interpolate", "heat3d", "argmin", "iir_blur", "nope" };
	const size_t napps = sizeof apps / sizeof *apps;
	for (size_t i = 0; i < napps; i++) {
		printf("%s:", apps[i]);
		for (const char *const *v = hl_gpu_variants(apps[i]); *v; v++)
			printf(" %s", *v);
		printf("\n");
	}
	int bad = 0;
	for (size_t i = 0; i + 1 < napps; i++)
		for (const char *const *v = hl_gpu_variants(apps[i]); *v; v++) {
			int r = call(apps[i], *v, HL_E2E);
			printf("hl_gpu_%s(%s, E2E) = %d: %s\n", apps[i], *v, r, hl_gpu_last_error());
			int q = call(apps[i], *v, HL_RELEASE);
			printf("hl_gpu_%s(%s, RELEASE) = %d\n", apps[i], *v, q);
			bad += q != 0;
		}
	/* Misuses are refused before Halide runs. */
	int r = hl_gpu_harris("hand", HL_E2E, R + 1, C, P(PT_F32, 2, R + 2, C + 2), P(PT_F32, 2, R + 2, C + 2));
	printf("hl_gpu_harris(hand, E2E, wrong R) = %d: %s\n", r, hl_gpu_last_error());
	r = hl_gpu_heat3d("hand", HL_E2E, 62, 3, 0.125f, P(PT_F32, 3, 64L, 64L, 64L), P(PT_F32, 3, 62L, 62L, 62L),
		P(PT_F32, 3, 64L, 64L, 64L));
	printf("hl_gpu_heat3d(hand, E2E, T = 3) = %d: %s\n", r, hl_gpu_last_error());
	return bad != 0;
}
