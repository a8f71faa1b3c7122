/* hl_gpu.h: the C ABI of the Halide 14 CUDA versions of polytile's
 * benchmark apps (bench/gpu/halide: gen.cpp compiles them ahead of time,
 * wrap.cpp implements this, build.sh makes libhl_gpu.a).
 *
 * Each call takes polytile's arguments (apps/APP.pipe: int params, float
 * params, the images, the outputs; pt_buffers row-major, last dimension
 * contiguous) and a variant, one of hl_gpu_variants(app): "hand" (a hand
 * GPU schedule in the style of Halide's apps/) or "li2018" (Halide's
 * Li2018 auto-scheduler).  An output is written where the polytile
 * pipeline defines it (harris: rows and columns 2 .. R-1 / 2 .. C-1;
 * camera_pipe, bilateral_grid and heat3d's `once` start at the point
 * the pipeline's domain does).
 * pt_buffer.device/flags are ignored: Halide keeps its own device copies
 * (in its own CUDA context), one set per app and variant, reused while a
 * call passes the same buffers (same data, type, extents, strides).
 *
 * Not thread-safe.  Errors return Halide's (negative) error codes; the
 * message is also written to stderr and kept for hl_gpu_last_error. */
#ifndef HL_GPU_H
#define HL_GPU_H

#include <stdint.h>

#include "pt_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* mode: HL_E2E (0): host buffers in and out: inputs copied to the device
 * (host_dirty), run, output copied back to host, device memory kept cached
 * between calls for the same buffers; HL_RESIDENT (1): the first call
 * copies inputs in, later calls reuse the device copies, output left on
 * the device, device synchronized before return (for kernel time);
 * HL_RELEASE (2): frees all device state of that app/variant.  Returns 0
 * or Halide's error code. */
enum { HL_E2E = 0, HL_RESIDENT = 1, HL_RELEASE = 2 };

int hl_gpu_harris(const char *variant, int mode, int32_t R, int32_t C, const pt_buffer *I, pt_buffer *out);
int hl_gpu_unsharp_mask(const char *variant, int mode, int32_t R, int32_t C, float threshold, float weight,
	const pt_buffer *img, pt_buffer *mask);
int hl_gpu_blur(const char *variant, int mode, int32_t R, int32_t C, const pt_buffer *I, pt_buffer *out);
int hl_gpu_sobel(const char *variant, int mode, int32_t R, int32_t C, const pt_buffer *I, pt_buffer *mag);
int hl_gpu_local_laplacian(const char *variant, int mode, int32_t R, int32_t C, float alpha, float beta,
	const pt_buffer *I, pt_buffer *out);
int hl_gpu_histogram(const char *variant, int mode, int32_t R, int32_t C, const pt_buffer *I, pt_buffer *hist);
int hl_gpu_camera_pipe(const char *variant, int mode, int32_t R, int32_t C, float colour_temp, float gamma,
	float contrast, const pt_buffer *img, pt_buffer *process);
int hl_gpu_pyramid_blend(const char *variant, int mode, int32_t R, int32_t C, const pt_buffer *img1,
	const pt_buffer *img2, const pt_buffer *mask, pt_buffer *out);
int hl_gpu_bilateral_grid(const char *variant, int mode, int32_t R, int32_t C, const pt_buffer *I,
	pt_buffer *filtered);
int hl_gpu_interpolate(const char *variant, int mode, int32_t R, int32_t C, const pt_buffer *rgb,
	const pt_buffer *alpha, pt_buffer *out);
/* Halide has no loop over Funcs: heat3d's versions have one Func a step,
 * for T = HL_GPU_HEAT3D_T; another T is refused (an error code). */
#define HL_GPU_HEAT3D_T 4
int hl_gpu_heat3d(const char *variant, int mode, int32_t N, int32_t T, float k, const pt_buffer *U,
	pt_buffer *once, pt_buffer *last);
/* am: the five outputs am_0 (u8 [1]) .. am_4 (i32 [1]) */
int hl_gpu_argmin(const char *variant, int mode, int32_t N, const pt_buffer *V, pt_buffer am[5]);
int hl_gpu_iir_blur(const char *variant, int mode, int32_t R, int32_t C, float a, const pt_buffer *I,
	pt_buffer *out);

/* which variants were built for app ("hand", "li2018"), NULL-terminated
 * (empty for an unknown app) */
const char *const *hl_gpu_variants(const char *app);

/* the last error's message ("" if none yet) */
const char *hl_gpu_last_error(void);

#ifdef __cplusplus
}
#endif

#endif
