/* grouped.c: polytile's grouped schedule (-O1: groups, overlapped tiles,
 * scratchpads; default tiles and threshold, no tuning) against its naive
 * schedule (-O0), every app at the paper sizes (the params' estimates),
 * in one run.
 *
 * For each app both are compiled in-process (JIT) from the same checked
 * pipeline, run once on the same generated inputs, and their outputs
 * compared byte for byte (the naive schedule is itself checked against
 * the interpreter by the test suite); a mismatch ends the run with exit
 * status 1.  Then, per thread count, each runs once more as a warm-up and
 * N times, alternating, and the medians and minimums are printed as a
 * markdown table with the ratio naive / grouped (> 1: grouped faster).
 *
 * Usage: bench_grouped [--runs N] [--threads LIST] [--app NAME]... [--apps DIR]
 * bench/run-grouped.sh builds it (release) and runs it. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "polytile.h"

static const char *const all_apps[] = { "harris", "unsharp_mask", "blur", "sobel", "histogram",
	"bilateral_grid", "camera_pipe", "pyramid_blend", "interpolate", "local_laplacian", "heat3d" };
enum { NAPPS = sizeof(all_apps) / sizeof(all_apps[0]), MAXT = 8 };

typedef struct job {
	const pt_pipeline *p;
	int64_t *ip;
	double *fp;
	int nin, nout;
	pt_buffer *in, *out[2];
	const pt_buffer **inp;
	pt_buffer **outp[2];
} job;

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Deterministic inputs: floats in [0, 1), integers in 0 .. 255. */
static void fill(pt_buffer *b, uint32_t seed)
{
	int64_t n = pt_buffer_count(b), idx[PT_MAX_DIMS];
	uint32_t s = seed * 2654435761u + 1u;
	for (int64_t k = 0; k < n; k++) {
		s = s * 1664525u + 1013904223u;
		int64_t r = k;
		for (int d = b->ndim - 1; d >= 0; d--) {
			idx[d] = r % b->extent[d];
			r /= b->extent[d];
		}
		double v = b->type == PT_F32 || b->type == PT_F64 ? (double)(s >> 8) / 16777216.0 : (double)(s >> 24);
		pt_buffer_set(b, idx, v);
	}
}

static int setup(job *j, const pt_pipeline *p)
{
	memset(j, 0, sizeof(*j));
	j->p = p;
	int np = pt_pipeline_param_count(p);
	j->ip = calloc((size_t)np + 1, sizeof(int64_t));
	j->fp = calloc((size_t)np + 1, sizeof(double));
	for (int q = 0; q < np; q++) {
		double v = 0;
		pt_pipeline_param_estimate(p, q, &v);
		j->ip[q] = (int64_t)v;
		j->fp[q] = v;
	}
	j->nin = pt_pipeline_image_count(p);
	j->nout = pt_pipeline_output_count(p);
	j->in = calloc((size_t)j->nin + 1, sizeof(pt_buffer));
	j->inp = calloc((size_t)j->nin + 1, sizeof(pt_buffer *));
	for (int i = 0; i < j->nin; i++) {
		int64_t ext[PT_MAX_DIMS];
		if (pt_pipeline_image_extents(p, i, j->fp, ext) < 0 ||
			pt_buffer_alloc(&j->in[i], pt_pipeline_image_type(p, i), pt_pipeline_image_ndim(p, i), ext) != PT_OK)
			return -1;
		fill(&j->in[i], (uint32_t)i + 7u);
		j->inp[i] = &j->in[i];
	}
	for (int v = 0; v < 2; v++) {
		j->out[v] = calloc((size_t)j->nout + 1, sizeof(pt_buffer));
		j->outp[v] = calloc((size_t)j->nout + 1, sizeof(pt_buffer *));
		for (int i = 0; i < j->nout; i++) {
			int64_t lo[PT_MAX_DIMS], ext[PT_MAX_DIMS];
			int nd = pt_pipeline_output_box(p, i, j->ip, lo, ext);
			int si = pt_pipeline_stage_index(p, pt_pipeline_output_name(p, i));
			if (nd < 0 || pt_buffer_alloc(&j->out[v][i], pt_pipeline_stage_type(p, si), nd, ext) != PT_OK)
				return -1;
			j->outp[v][i] = &j->out[v][i];
		}
	}
	return 0;
}

static void release(job *j)
{
	for (int i = 0; i < j->nin; i++)
		pt_buffer_free(&j->in[i]);
	for (int v = 0; v < 2; v++) {
		for (int i = 0; i < j->nout; i++)
			pt_buffer_free(&j->out[v][i]);
		free(j->out[v]);
		free(j->outp[v]);
	}
	free(j->in);
	free(j->inp);
	free(j->ip);
	free(j->fp);
}

static double run(job *j, pt_program *prog, int v)
{
	double t = now_ms();
	int rc = pt_program_run(prog, j->ip, j->fp, j->inp, j->outp[v]);
	t = now_ms() - t;
	if (rc) {
		fprintf(stderr, "bench_grouped: %s: run failed: %s\n", pt_pipeline_name(j->p), pt_error_name(rc));
		exit(1);
	}
	return t;
}

/* Both versions' outputs, byte for byte. */
static void check(job *j)
{
	for (int i = 0; i < j->nout; i++) {
		size_t n = (size_t)pt_buffer_count(&j->out[0][i]) * pt_type_size(j->out[0][i].type);
		if (memcmp(j->out[0][i].data, j->out[1][i].data, n)) {
			fprintf(stderr, "bench_grouped: %s: output %s differs between -O0 and -O1\n",
				pt_pipeline_name(j->p), pt_pipeline_output_name(j->p, i));
			exit(1);
		}
	}
}

static void bench_app(const char *dir, const char *app, int runs, const int *threads, int nthr)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s.pipe", dir, app);
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_file(ctx, path);
	job j;
	pt_program *prog[2] = { NULL, NULL };
	for (int v = 0; p && v < 2; v++) {
		pt_options o = { .opt_level = v ? PT_OPT_GROUPED : PT_OPT_NAIVE };
		prog[v] = pt_compile(ctx, p, &o);
	}
	if (!p || !prog[0] || !prog[1] || setup(&j, p)) {
		fprintf(stderr, "bench_grouped: %s: %s\n", path, pt_ctx_diagnostics(ctx));
		exit(1);
	}
	double *t[2] = { calloc((size_t)runs, sizeof(double)), calloc((size_t)runs, sizeof(double)) };
	for (int ti = 0; ti < nthr; ti++) {
		pt_set_num_threads(threads[ti]);
		/* every output zeroed, so a version that skips a point is caught */
		for (int v = 0; v < 2; v++)
			for (int i = 0; i < j.nout; i++)
				memset(j.out[v][i].data, 0, (size_t)pt_buffer_count(&j.out[v][i]) * pt_type_size(j.out[v][i].type));
		for (int v = 0; v < 2; v++)
			run(&j, prog[v], v);
		check(&j);
		for (int r = 0; r < runs; r++)
			for (int v = 0; v < 2; v++)
				t[v][r] = run(&j, prog[v], v);
		for (int v = 0; v < 2; v++)
			qsort(t[v], (size_t)runs, sizeof(double), cmp_double);
		double m0 = t[0][runs / 2], m1 = t[1][runs / 2];
		printf("| %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", app, threads[ti],
			m0, t[0][0], m1, t[1][0], m0 / m1, t[0][0] / t[1][0]);
		fflush(stdout);
	}
	free(t[0]);
	free(t[1]);
	release(&j);
	pt_program_free(prog[0]);
	pt_program_free(prog[1]);
	pt_ctx_free(ctx);
}

int main(int argc, char **argv)
{
	int runs = 10, threads[MAXT] = { 1, 2 }, nthr = 2, nonly = 0;
	const char *only[NAPPS], *dir = "apps";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--runs") && i + 1 < argc && (runs = atoi(argv[++i])) >= 1) {
		} else if (!strcmp(argv[i], "--app") && i + 1 < argc && nonly < NAPPS) {
			only[nonly++] = argv[++i];
		} else if (!strcmp(argv[i], "--apps") && i + 1 < argc) {
			dir = argv[++i];
		} else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			nthr = 0;
			for (char *s = argv[++i]; *s && nthr < MAXT; s += *s == ',')
				threads[nthr++] = (int)strtol(s, &s, 10);
		} else {
			fprintf(stderr, "usage: bench_grouped [--runs N] [--threads LIST] [--app NAME]... [--apps DIR]\n");
			return 2;
		}
	}
	printf("| app | threads | naive median (ms) | naive min (ms) | grouped median (ms) | grouped min (ms) "
		"| naive / grouped (medians) | (mins) |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
	for (int a = 0; a < NAPPS; a++) {
		bool on = !nonly;
		for (int k = 0; k < nonly; k++)
			on |= !strcmp(only[k], all_apps[a]);
		if (on)
			bench_app(dir, all_apps[a], runs, threads, nthr);
	}
	printf("\n%d timed runs per version after one warm-up, alternating; outputs of -O0 and -O1 "
		"identical byte for byte before timing.\n", runs);
	return 0;
}
