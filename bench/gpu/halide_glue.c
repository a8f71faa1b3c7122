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

/* bench/halide's tolerances for the same algorithms on the CPU. */
void halide_tol(const char *app, double *rel, double *abs, double *bad_frac)
{
	*rel = *abs = *bad_frac = 0;
	if (!strcmp(app, "harris") || !strcmp(app, "unsharp_mask"))
		*rel = 1e-5;
	else if (!strcmp(app, "sobel"))
		*rel = 1e-6;
	else if (!strcmp(app, "local_laplacian")) {
		*abs = 1;
		*bad_frac = 1e-4;
	}
}
