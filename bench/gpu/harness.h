/* harness.h: what the GPU bench's harness (harness.c) links with: the
 * polytile functions of every app (a table build.sh generates from the
 * objects it compiles) and Halide's GPU versions (halide_glue.c). */
#ifndef BENCH_GPU_HARNESS_H
#define BENCH_GPU_HARNESS_H

#include "pt_runtime.h"

/* The _argv entry of a compiled pipeline (its header). */
typedef int (*argv_fn)(const int64_t *ip, const double *fp, const pt_buffer *const *in, pt_buffer *const *out);

typedef struct app_fns {
	const char *app;
	argv_fn cuda, cuda_naive, cpu;   /* --backend cuda; the same -O0; the CPU target */
} app_fns;

extern const app_fns gpu_fns[];
extern const int gpu_nfns;

/* Halide 14's GPU version variant ("hand", "li2018") of app, when this
 * bundle has it; halide_call runs it (mode 0: host buffers in and out;
 * 1: data resident on the device, synchronized; 2: its device memory
 * freed) with the params of the pipeline's ABI (declaration order),
 * returning 0 or Halide's error; halide_tol: how closely it must match
 * polytile's output (floats: |d| <= rel * max|ref| + abs, at all but
 * bad_frac of the points). */
int halide_has(const char *app, const char *variant);
int halide_call(const char *app, const char *variant, int mode, const int64_t *ip, const double *fp, pt_buffer *in,
	pt_buffer *out);
void halide_tol(const char *app, double *rel, double *abs, double *bad_frac);

#endif
