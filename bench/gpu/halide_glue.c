/* halide_glue.c: the harness's calls of Halide 14's GPU versions
 * (bench/gpu/halide/, hl_gpu.h), with each app's params taken from the
 * pipeline's ABI order; without HAVE_HL_GPU (no Halide in the bundle)
 * there are none. */
#include <string.h>

#include "harness.h"

#ifdef HAVE_HL_GPU
#include "hl_gpu.h"
#endif

int halide_has(const char *app, const char *variant)
{
#ifdef HAVE_HL_GPU
	const char *const *v = hl_gpu_variants(app);
	for (; v && *v; v++)
		if (!strcmp(*v, variant))
			return 1;
#else
	(void)app;
	(void)variant;
#endif
	return 0;
}

int halide_call(const char *app, const char *variant, int mode, const int64_t *ip, const double *fp, pt_buffer *in,
	pt_buffer *out)
{
#ifdef HAVE_HL_GPU
	int R = (int)ip[0], C = (int)ip[1];
	if (!strcmp(app, "harris"))
		return hl_gpu_harris(variant, mode, R, C, &in[0], &out[0]);
	if (!strcmp(app, "unsharp_mask"))
		return hl_gpu_unsharp_mask(variant, mode, R, C, (float)fp[2], (float)fp[3], &in[0], &out[0]);
	if (!strcmp(app, "blur"))
		return hl_gpu_blur(variant, mode, R, C, &in[0], &out[0]);
	if (!strcmp(app, "sobel"))
		return hl_gpu_sobel(variant, mode, R, C, &in[0], &out[0]);
	if (!strcmp(app, "local_laplacian"))
		return hl_gpu_local_laplacian(variant, mode, R, C, (float)fp[2], (float)fp[3], &in[0], &out[0]);
	if (!strcmp(app, "histogram"))
		return hl_gpu_histogram(variant, mode, R, C, &in[0], &out[0]);
	if (!strcmp(app, "camera_pipe"))
		return hl_gpu_camera_pipe(variant, mode, R, C, (float)fp[2], (float)fp[3], (float)fp[4], &in[0], &out[0]);
	if (!strcmp(app, "pyramid_blend"))
		return hl_gpu_pyramid_blend(variant, mode, R, C, &in[0], &in[1], &in[2], &out[0]);
	if (!strcmp(app, "bilateral_grid"))
		return hl_gpu_bilateral_grid(variant, mode, R, C, &in[0], &out[0]);
	if (!strcmp(app, "interpolate"))
		return hl_gpu_interpolate(variant, mode, R, C, &in[0], &in[1], &out[0]);
	if (!strcmp(app, "heat3d"))	/* N, T, k */
		return hl_gpu_heat3d(variant, mode, (int)ip[0], (int)ip[1], (float)fp[2], &in[0], &out[0], &out[1]);
	if (!strcmp(app, "argmin"))	/* N; the outputs am_0 .. am_4 */
		return hl_gpu_argmin(variant, mode, (int)ip[0], &in[0], out);
	if (!strcmp(app, "iir_blur"))
		return hl_gpu_iir_blur(variant, mode, R, C, (float)fp[2], &in[0], &out[0]);
#else
	(void)app;
	(void)variant;
	(void)mode;
	(void)ip;
	(void)fp;
	(void)in;
	(void)out;
#endif
	return -1;
}

/* bench/halide's tolerances for the same algorithms on the CPU
 * (histogram and argmin: exact). */
void halide_tol(const char *app, double *rel, double *abs, double *bad_frac)
{
	static const char *const rel5[] = { "harris", "unsharp_mask", "pyramid_blend", "bilateral_grid", "heat3d",
		"iir_blur" };
	*rel = *abs = *bad_frac = 0;
	for (size_t i = 0; i < sizeof rel5 / sizeof *rel5; i++)
		if (!strcmp(app, rel5[i]))
			*rel = 1e-5;
	if (!strcmp(app, "sobel"))
		*rel = 1e-6;
	else if (!strcmp(app, "interpolate"))	/* divisions by the interpolated alpha */
		*rel = 1e-4;
	else if (!strcmp(app, "camera_pipe"))	/* the curve's pow: a LUT entry 1 apart */
		*abs = 1;
	else if (!strcmp(app, "local_laplacian")) {
		*abs = 1;
		*bad_frac = 1e-4;
	}
}
