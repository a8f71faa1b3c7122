/* prepare.c: the part of the GPU bench that needs the compiler, run on
 * this machine (bench/gpu/build.sh): for every app, the cases the device
 * harness (harness.c) runs, written to DIR/manifest:
 *   - check cases at small odd sizes (the test suite's two and, where
 *     the app allows, 5 x 3): their inputs and the interpreter's outputs
 *     (with a mask of the defined points) as .npy files in DIR;
 *   - one bench case at the size the .pipe estimates (the paper's), whose
 *     inputs the harness generates and whose reference is the CPU
 *     target's output on the device machine.
 * Manifest lines, one case after another:
 *   case APP LABEL check|bench
 *   param NAME i|f VALUE          (declaration order)
 *   in TYPE NDIM E0 .. FILE|-     (image order; '-': generated, seed 7+i)
 *   out TYPE NDIM E0 .. FILE|- MASKFILE|-
 *   end
 * Usage: bench_gpu_prepare APPS_DIR OUT_DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polytile.h"
#include "pt_io.h"
#include "fill.h"

typedef struct app_sizes {
	const char *app;
	const char *names[2];       /* the second NULL: one param */
	double check[3][2];
	int nchecks;
} app_sizes;

static const app_sizes apps[] = {
	{ "harris", { "R", "C" }, { { 21, 17 }, { 259, 187 }, { 5, 3 } }, 3 },
	{ "unsharp_mask", { "R", "C" }, { { 21, 17 }, { 259, 187 }, { 5, 3 } }, 3 },
	{ "blur", { "R", "C" }, { { 70, 45 }, { 301, 217 }, { 5, 3 } }, 3 },
	{ "sobel", { "R", "C" }, { { 33, 64 }, { 301, 217 }, { 5, 3 } }, 3 },
	{ "histogram", { "R", "C" }, { { 21, 17 }, { 301, 203 }, { 5, 3 } }, 3 },
	{ "local_laplacian", { "R", "C" }, { { 67, 45 }, { 256, 192 } }, 2 },
	{ "camera_pipe", { "R", "C" }, { { 64, 96 }, { 240, 316 } }, 2 },
	{ "bilateral_grid", { "R", "C" }, { { 67, 45 }, { 259, 195 } }, 2 },
	{ "pyramid_blend", { "R", "C" }, { { 128, 96 }, { 256, 192 } }, 2 },
	{ "interpolate", { "R", "C" }, { { 129, 67 }, { 256, 192 } }, 2 },
	{ "heat3d", { "N", "T" }, { { 9, 3 }, { 62, 4 } }, 2 },
	{ "argmin", { "N", NULL }, { { 5, 0 }, { 9, 0 } }, 2 },
	{ "iir_blur", { "R", "C" }, { { 21, 17 }, { 67, 45 }, { 5, 3 } }, 3 },
};

static void die(pt_ctx *ctx, const char *what)
{
	fprintf(stderr, "bench_gpu_prepare: %s: %s\n", what, ctx ? pt_ctx_diagnostics(ctx) : "");
	exit(1);
}

static void write_npy(const char *path, const pt_buffer *b)
{
	char err[300];
	if (pt_npy_write(path, b, err, sizeof(err)) != PT_OK) {
		fprintf(stderr, "bench_gpu_prepare: %s: %s\n", path, err);
		exit(1);
	}
}

static void print_shape(FILE *m, const char *tag, pt_type t, int ndim, const int64_t *ext)
{
	fprintf(m, "%s %s %d", tag, pt_type_name(t), ndim);
	for (int d = 0; d < ndim; d++)
		fprintf(m, " %lld", (long long)ext[d]);
}

/* One case: params from names = size (others their estimates). */
static void one_case(FILE *m, pt_ctx *ctx, const pt_pipeline *p, const app_sizes *a, const double *size,
	const char *label, bool check, const char *dir)
{
	pt_interp *in = pt_interp_new(ctx, p);
	if (!in)
		die(ctx, a->app);
	for (int i = 0; i < 2 && a->names[i]; i++)
		if (pt_interp_set_param(in, a->names[i], size[i]))
			die(ctx, a->app);
	if (pt_interp_infer_params(in))
		die(ctx, a->app);
	fprintf(m, "case %s %s %s\n", a->app, label, check ? "check" : "bench");
	int np = pt_pipeline_param_count(p);
	int64_t ip[64] = { 0 };
	for (int q = 0; q < np && q < 64; q++) {
		double v = 0;
		pt_interp_get_param(in, pt_pipeline_param_name(p, q), &v);
		pt_type t = pt_pipeline_param_type(p, q);
		bool is_int = t == PT_I32 || t == PT_I64;
		ip[q] = (int64_t)v;
		fprintf(m, "param %s %c %.17g\n", pt_pipeline_param_name(p, q), is_int ? 'i' : 'f', v);
	}
	int ni = pt_pipeline_image_count(p);
	pt_buffer *img = calloc((size_t)ni + 1, sizeof(*img));
	for (int i = 0; i < ni; i++) {
		const char *name = pt_pipeline_image_name(p, i);
		int64_t ext[PT_MAX_DIMS];
		pt_interp_image_extents(in, name, ext);
		print_shape(m, "in", pt_pipeline_image_type(p, i), pt_pipeline_image_ndim(p, i), ext);
		if (!check) {
			fprintf(m, " -\n");
			continue;
		}
		if (pt_buffer_alloc(&img[i], pt_pipeline_image_type(p, i), pt_pipeline_image_ndim(p, i), ext))
			die(NULL, "out of memory");
		gpu_bench_fill(&img[i], 7u + (uint32_t)i);
		pt_interp_set_input(in, name, &img[i]);
		char path[600];
		snprintf(path, sizeof(path), "%s-%s-in%d.npy", a->app, label, i);
		fprintf(m, " %s\n", path);
		char full[1200];
		snprintf(full, sizeof(full), "%s/%s", dir, path);
		write_npy(full, &img[i]);
	}
	if (check && pt_interp_run(in))
		die(ctx, a->app);
	for (int o = 0; o < pt_pipeline_output_count(p); o++) {
		const char *name = pt_pipeline_output_name(p, o);
		int64_t lo[PT_MAX_DIMS], ext[PT_MAX_DIMS];
		int nd = pt_pipeline_output_box(p, o, ip, lo, ext);
		print_shape(m, "out", pt_pipeline_stage_type(p, pt_pipeline_stage_index(p, name)), nd, ext);
		if (!check) {
			fprintf(m, " - -\n");
			continue;
		}
		const uint8_t *defined = NULL;
		int64_t origin[PT_MAX_DIMS];
		const pt_buffer *r = pt_interp_result(in, name, &defined, origin);
		if (!r)
			die(ctx, name);
		pt_buffer mask = { 0 };
		if (pt_buffer_alloc(&mask, PT_U8, r->ndim, r->extent))
			die(NULL, "out of memory");
		memcpy(mask.data, defined, (size_t)pt_buffer_count(r));
		char path[600], mpath[600], full[1200];
		snprintf(path, sizeof(path), "%s-%s-out%d.npy", a->app, label, o);
		snprintf(mpath, sizeof(mpath), "%s-%s-def%d.npy", a->app, label, o);
		fprintf(m, " %s %s\n", path, mpath);
		snprintf(full, sizeof(full), "%s/%s", dir, path);
		write_npy(full, r);
		snprintf(full, sizeof(full), "%s/%s", dir, mpath);
		write_npy(full, &mask);
		pt_buffer_free(&mask);
	}
	fprintf(m, "end\n");
	for (int i = 0; i < ni; i++)
		pt_buffer_free(&img[i]);
	free(img);
	pt_interp_free(in);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: bench_gpu_prepare APPS_DIR OUT_DIR\n");
		return 2;
	}
	char path[1200];
	snprintf(path, sizeof(path), "%s/manifest", argv[2]);
	FILE *m = fopen(path, "w");
	if (!m) {
		perror(path);
		return 1;
	}
	for (size_t k = 0; k < sizeof(apps) / sizeof(apps[0]); k++) {
		const app_sizes *a = &apps[k];
		pt_ctx *ctx = pt_ctx_new();
		snprintf(path, sizeof(path), "%s/%s.pipe", argv[1], a->app);
		pt_pipeline *p = pt_parse_file(ctx, path);
		if (!p)
			die(ctx, path);
		for (int c = 0; c < a->nchecks; c++) {
			char label[64];
			if (a->names[1])
				snprintf(label, sizeof(label), "%gx%g", a->check[c][0], a->check[c][1]);
			else
				snprintf(label, sizeof(label), "%g", a->check[c][0]);
			one_case(m, ctx, p, a, a->check[c], label, true, argv[2]);
		}
		double est[2] = { 0, 0 };
		for (int i = 0; i < 2 && a->names[i]; i++)
			pt_pipeline_param_estimate(p, pt_pipeline_param_index(p, a->names[i]), &est[i]);
		char label[64];
		if (a->names[1])
			snprintf(label, sizeof(label), "%gx%g", est[0], est[1]);
		else
			snprintf(label, sizeof(label), "%g", est[0]);
		one_case(m, ctx, p, a, est, label, false, argv[2]);
		pt_ctx_free(ctx);
	}
	return fclose(m) ? 1 : 0;
}
