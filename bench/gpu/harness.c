/* harness.c: the GPU bench, run on the machine with the GPU (bench/gpu/
 * README.md).  It reads the manifest bench_gpu_prepare wrote and, for
 * each app:
 *   check cases  runs polytile's CUDA builds (the default schedule and
 *                -O0) with host buffers on the inputs given and compares
 *                every output with the interpreter's, exactly, at the
 *                points it defines (the others must keep the caller's
 *                zeros);
 *   bench case   generates the inputs, runs the CPU target's build (the
 *                reference here), then the CUDA builds and Halide's GPU
 *                versions where linked, each compared with it first; then
 *                times, median of --runs, the end-to-end call (host
 *                buffers in and out) and the call with the data resident
 *                on the device (kernel time: inputs uploaded before,
 *                outputs left there), against the memory floor (inputs
 *                and outputs once at the device's measured copy
 *                bandwidth).
 * A mismatch is printed as WRONG and that variant is not timed; the exit
 * status is 1 if any.  Usage: gpubench DIR [--runs N] [--apps a,b] */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pt_io.h"
#include "fill.h"
#include "pt_runtime.h"
#include "harness.h"

#define MAXIO 8

typedef struct gcase {
	char app[64], label[64];
	int check;
	int np;
	int64_t ip[64];
	double fp[64];
	int nin, nout;
	pt_buffer in[MAXIO], out[MAXIO], ref[MAXIO], def[MAXIO];
	char in_file[MAXIO][300], ref_file[MAXIO][300], def_file[MAXIO][300];
} gcase;

static int failures;

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static pt_type type_named(const char *s)
{
	for (int t = 0; t < PT_NTYPES; t++)
		if (!strcmp(pt_type_name((pt_type)t), s))
			return (pt_type)t;
	fprintf(stderr, "gpubench: unknown type %s\n", s);
	exit(2);
}

static void alloc_or_die(pt_buffer *b, pt_type t, int nd, const int64_t *ext)
{
	if (pt_buffer_alloc(b, t, nd, ext)) {
		fprintf(stderr, "gpubench: out of memory\n");
		exit(2);
	}
}

static void read_npy(const char *dir, const char *file, pt_buffer *b)
{
	char path[900], err[300];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (pt_npy_read(path, b, err, sizeof(err))) {
		fprintf(stderr, "gpubench: %s: %s\n", path, err);
		exit(2);
	}
}

/* Reads one case of the manifest (0 at its end). */
static int read_case(FILE *m, const char *dir, gcase *c)
{
	char line[2048], kind[16];
	memset(c, 0, sizeof(*c));
	if (!fgets(line, sizeof(line), m))
		return 0;
	if (sscanf(line, "case %63s %63s %15s", c->app, c->label, kind) != 3) {
		fprintf(stderr, "gpubench: bad manifest line: %s", line);
		exit(2);
	}
	c->check = !strcmp(kind, "check");
	while (fgets(line, sizeof(line), m) && strncmp(line, "end", 3)) {
		char tag[8], a[64], f1[300] = "-", f2[300] = "-";
		int n = 0;
		if (sscanf(line, "%7s %63s %n", tag, a, &n) < 2)
			continue;
		if (!strcmp(tag, "param")) {
			char k;
			double v;
			sscanf(line + n, "%c %lf", &k, &v);
			c->ip[c->np] = (int64_t)v;
			c->fp[c->np++] = v;
			continue;
		}
		int nd = atoi(line + n), off = 0;
		int64_t ext[PT_MAX_DIMS];
		const char *rest = line + n;
		sscanf(rest, "%*d%n", &off);
		rest += off;
		for (int d = 0; d < nd; d++) {
			long long e;
			sscanf(rest, "%lld%n", &e, &off);
			ext[d] = e;
			rest += off;
		}
		sscanf(rest, "%299s %299s", f1, f2);
		pt_type t = type_named(a);
		if (!strcmp(tag, "in")) {
			int i = c->nin++;
			snprintf(c->in_file[i], sizeof(c->in_file[i]), "%s", f1);
			if (strcmp(f1, "-"))
				read_npy(dir, f1, &c->in[i]);
			else {
				alloc_or_die(&c->in[i], t, nd, ext);
				gpu_bench_fill(&c->in[i], 7u + (uint32_t)i);
			}
		} else {
			int o = c->nout++;
			alloc_or_die(&c->out[o], t, nd, ext);
			if (strcmp(f1, "-")) {
				read_npy(dir, f1, &c->ref[o]);
				read_npy(dir, f2, &c->def[o]);
			}
		}
	}
	return 1;
}

static void free_case(gcase *c)
{
	for (int i = 0; i < c->nin; i++)
		pt_buffer_free(&c->in[i]);
	for (int o = 0; o < c->nout; o++) {
		pt_buffer_free(&c->out[o]);
		pt_buffer_free(&c->ref[o]);
		pt_buffer_free(&c->def[o]);
	}
}

static void zero(pt_buffer *b)
{
	memset(b->data, 0, (size_t)pt_buffer_count(b) * pt_type_size(b->type));
}

/* The indices of b's element i in row-major order. */
static void unravel(const pt_buffer *b, int64_t i, int64_t *idx)
{
	for (int d = b->ndim - 1; d >= 0; d--) {
		idx[d] = i % b->extent[d];
		i /= b->extent[d];
	}
}

/* got against want at the points mask defines (mask NULL: all), the
 * others against 0, in one pass: the points beyond tol (returned), the
 * points that differ at all (*differ), the largest difference (*maxd). */
static int64_t compare(const pt_buffer *got, const pt_buffer *want, const pt_buffer *mask, double tol, double *maxd,
	int64_t *differ)
{
	int64_t n = pt_buffer_count(got), bad = 0;
	*maxd = 0;
	*differ = 0;
	for (int64_t i = 0; i < n; i++) {
		int64_t idx[PT_MAX_DIMS];
		unravel(got, i, idx);
		double g = pt_buffer_get(got, idx);
		double w = mask && !((uint8_t *)mask->data)[i] ? 0 : pt_buffer_get(want, idx);
		if (isnan(g) && isnan(w))
			continue;
		double dd = fabs(g - w);
		if (dd > *maxd || isnan(dd))
			*maxd = isnan(dd) ? INFINITY : dd;
		*differ += !(dd == 0);
		bad += !(dd <= tol);
	}
	return bad;
}

/* The largest |element| of b. */
static double largest(const pt_buffer *b)
{
	double big = 0;
	int64_t n = pt_buffer_count(b);
	for (int64_t i = 0; i < n; i++) {
		int64_t idx[PT_MAX_DIMS];
		unravel(b, i, idx);
		double v = fabs(pt_buffer_get(b, idx));
		big = v > big ? v : big;
	}
	return big;
}

static const app_fns *fns_of(const char *app)
{
	for (int i = 0; i < gpu_nfns; i++)
		if (!strcmp(gpu_fns[i].app, app))
			return &gpu_fns[i];
	return NULL;
}

static int call(argv_fn f, gcase *c)
{
	const pt_buffer *in[MAXIO];
	pt_buffer *out[MAXIO];
	for (int i = 0; i < c->nin; i++)
		in[i] = &c->in[i];
	for (int o = 0; o < c->nout; o++)
		out[o] = &c->out[o];
	return f(c->ip, c->fp, in, out);
}

/* How closely polytile's CUDA output must match the interpreter's or
 * the CPU target's: exactly, but where the pipeline evaluates a
 * transcendental function (exp, pow): libdevice's results differ from
 * glibc's libm by an ulp or two, which can move an integer output that
 * rounds them by 1 (docs/cuda.md): |diff| <= 1 at no more than 0.1% of
 * the points. */
static void pt_tol(const char *app, double *abs, double *frac)
{
	bool transcendental = !strcmp(app, "local_laplacian") || !strcmp(app, "camera_pipe");
	*abs = transcendental ? 1 : 0;
	*frac = transcendental ? 1e-3 : 0;
}

static void run_check(gcase *c, const app_fns *f)
{
	const char *names[] = { "default", "-O0" };
	argv_fn fn[] = { f->cuda, f->cuda_naive };
	for (int v = 0; v < 2; v++) {
		for (int o = 0; o < c->nout; o++)
			zero(&c->out[o]);
		int r = call(fn[v], c);
		int64_t bad = 0, exact = 0, allowed = 0, dif;
		double maxd = 0, md, abs, frac;
		pt_tol(c->app, &abs, &frac);
		for (int o = 0; o < c->nout && !r; o++) {
			bad += compare(&c->out[o], &c->ref[o], &c->def[o], abs, &md, &dif);
			exact += dif;
			allowed += (int64_t)(frac * (double)pt_buffer_count(&c->out[o]));
			maxd = md > maxd ? md : maxd;
		}
		int ok = !r && !bad && exact <= allowed;
		failures += !ok;
		printf("check %-16s %-10s cuda %-8s %s", c->app, c->label, names[v], ok ? "ok" : "WRONG");
		if (r)
			printf(" (%s: %s)", pt_error_name(r), pt_rt_error_detail());
		else if (exact)
			printf(" (%lld points differ, max |diff| %g)", (long long)exact, maxd);
		printf("\n");
	}
}

/* Median ms of runs calls of f on c. */
static double time_calls(argv_fn f, gcase *c, int runs)
{
	double t[256];
	call(f, c);   /* warm-up: modules loaded, pool filled */
	for (int k = 0; k < runs; k++) {
		double t0 = now_ms();
		call(f, c);
		t[k] = now_ms() - t0;
	}
	return median(t, runs);
}

/* Median ms with the inputs and outputs resident on the device. */
static double time_resident(argv_fn f, gcase *c, int runs)
{
	for (int i = 0; i < c->nin; i++)
		if (pt_cuda_buffer_upload(&c->in[i]))
			return -1;
	for (int o = 0; o < c->nout; o++)
		if (pt_cuda_buffer_upload(&c->out[o]))
			return -1;
	double ms = time_calls(f, c, runs);
	for (int o = 0; o < c->nout; o++)
		pt_cuda_buffer_download(&c->out[o]);
	for (int i = 0; i < c->nin; i++)
		pt_cuda_buffer_release(&c->in[i]);
	for (int o = 0; o < c->nout; o++)
		pt_cuda_buffer_release(&c->out[o]);
	return ms;
}

static double bytes_of(const gcase *c)
{
	double b = 0;
	for (int i = 0; i < c->nin; i++)
		b += (double)pt_buffer_count(&c->in[i]) * (double)pt_type_size(c->in[i].type);
	for (int o = 0; o < c->nout; o++)
		b += (double)pt_buffer_count(&c->out[o]) * (double)pt_type_size(c->out[o].type);
	return b;
}

typedef struct row {
	char app[64], label[64];
	double pt_kernel, pt_e2e, naive_kernel, hl[2][2], floor_ms, cpu_ms;
} row;

/* Copies c's outputs into fresh buffers (the CPU reference). */
static void keep_outputs(gcase *c, pt_buffer *keep)
{
	for (int o = 0; o < c->nout; o++) {
		alloc_or_die(&keep[o], c->out[o].type, c->out[o].ndim, c->out[o].extent);
		memcpy(keep[o].data, c->out[o].data, (size_t)pt_buffer_count(&c->out[o]) * pt_type_size(c->out[o].type));
	}
}

/* Whether c's outputs equal keep: |diff| <= rel * max|keep| + abs at
 * all but bad_frac of the points; prints a line. */
static int verify(gcase *c, pt_buffer *keep, const char *who, int r, double rel, double abs, double bad_frac)
{
	int64_t bad = 0, allowed = 0, differ = 0, dif;
	double maxd = 0, md;
	for (int o = 0; o < c->nout && !r; o++) {
		double big = rel > 0 ? largest(&keep[o]) : 0;
		bad += compare(&c->out[o], &keep[o], NULL, rel * big + abs, &md, &dif);
		differ += dif;
		allowed += (int64_t)(bad_frac * (double)pt_buffer_count(&keep[o]));
		maxd = md > maxd ? md : maxd;
	}
	int ok = !r && bad <= allowed;
	printf("check %-16s %-10s %-20s %s", c->app, c->label, who, ok ? "ok" : "WRONG");
	if (r)
		printf(" (error %d: %s)", r, r < 0 ? pt_rt_error_detail() : "");
	else
		printf(" (max |diff| %g; %lld points differ, %lld beyond the tolerance)", maxd, (long long)differ,
			(long long)bad);
	printf("\n");
	failures += !ok;
	return ok;
}

static void run_bench(gcase *c, const app_fns *f, int runs, row *rw, double bw)
{
	memset(rw, 0, sizeof(*rw));
	snprintf(rw->app, sizeof(rw->app), "%s", c->app);
	snprintf(rw->label, sizeof(rw->label), "%s", c->label);
	rw->floor_ms = bytes_of(c) / bw * 1e3;
	pt_buffer keep[MAXIO];
	for (int o = 0; o < c->nout; o++)
		zero(&c->out[o]);
	double t0 = now_ms();
	int r = call(f->cpu, c);
	rw->cpu_ms = now_ms() - t0;
	if (r) {
		printf("bench %s: the CPU reference failed: %s\n", c->app, pt_rt_error_detail());
		failures++;
		return;
	}
	keep_outputs(c, keep);
	argv_fn fn[] = { f->cuda, f->cuda_naive };
	double *kernel[] = { &rw->pt_kernel, &rw->naive_kernel };
	for (int v = 0; v < 2; v++) {
		for (int o = 0; o < c->nout; o++)
			zero(&c->out[o]);
		*kernel[v] = -1;
		double abs, frac;
		pt_tol(c->app, &abs, &frac);
		if (!verify(c, keep, v ? "cuda -O0" : "cuda default", call(fn[v], c), 0, abs, frac))
			continue;
		if (!v)
			rw->pt_e2e = time_calls(fn[v], c, runs);
		*kernel[v] = time_resident(fn[v], c, runs);
		verify(c, keep, v ? "cuda -O0 resident" : "cuda resident", *kernel[v] < 0, 0, abs, frac);
	}
	for (int h = 0; h < 2; h++) {
		rw->hl[h][0] = rw->hl[h][1] = -2;   /* not built */
		const char *variant = h ? "li2018" : "hand";
		if (!halide_has(c->app, variant))
			continue;
		for (int o = 0; o < c->nout; o++)
			zero(&c->out[o]);
		rw->hl[h][0] = rw->hl[h][1] = -1;
		char who[40];
		snprintf(who, sizeof(who), "Halide %s", variant);
		double rel, abs, frac;
		halide_tol(c->app, &rel, &abs, &frac);
		if (!verify(c, keep, who, halide_call(c->app, variant, 0, c->ip, c->fp, c->in, c->out), rel, abs, frac))
			continue;
		double t[256];
		for (int mode = 0; mode < 2; mode++) {
			halide_call(c->app, variant, mode, c->ip, c->fp, c->in, c->out);
			for (int k = 0; k < runs; k++) {
				double s = now_ms();
				halide_call(c->app, variant, mode, c->ip, c->fp, c->in, c->out);
				t[k] = now_ms() - s;
			}
			rw->hl[h][mode == 0 ? 1 : 0] = median(t, runs);
		}
		halide_call(c->app, variant, 2, c->ip, c->fp, c->in, c->out);
	}
	for (int o = 0; o < c->nout; o++)
		pt_buffer_free(&keep[o]);
}

static void cell(double ms)
{
	if (ms == -2)
		printf(" | -");
	else if (ms < 0)
		printf(" | fails");
	else
		printf(" | %.3f", ms);
}

static void print_table(const row *rows, int n, double bw)
{
	printf("\nKernel time (data resident on the device) and end to end (host buffers in and out), median ms; "
		"floor: inputs and outputs once at %.0f GB/s\n\n", bw / 1e9);
	printf("| app | size | polytile kernel | polytile %s kernel | Halide hand kernel | Li2018 kernel | floor | "
		"floor / polytile | polytile e2e | Halide hand e2e | Li2018 e2e | CPU reference, one call (%d threads) |\n",
		getenv("GPUBENCH_ALT") ? getenv("GPUBENCH_ALT") : "-O0", pt_get_num_threads());
	printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (int i = 0; i < n; i++) {
		const row *r = &rows[i];
		printf("| %s | %s", r->app, r->label);
		cell(r->pt_kernel);
		cell(r->naive_kernel);
		cell(r->hl[0][0]);
		cell(r->hl[1][0]);
		cell(r->floor_ms);
		printf(r->pt_kernel > 0 ? " | %.0f%%" : " | -", 100 * r->floor_ms / r->pt_kernel);
		cell(r->pt_e2e);
		cell(r->hl[0][1]);
		cell(r->hl[1][1]);
		cell(r->cpu_ms);
		printf(" |\n");
	}
}

/* Device-to-device copy bandwidth (bytes read and written per second),
 * through the driver directly: the floor's ceiling. */
static double copy_bandwidth(void)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW);
	if (!lib || !pt_cuda_device_name())
		return 0;
	int (*alloc)(unsigned long long *, size_t) = (int (*)(unsigned long long *, size_t))dlsym(lib, "cuMemAlloc_v2");
	int (*dtod)(unsigned long long, unsigned long long, size_t) =
		(int (*)(unsigned long long, unsigned long long, size_t))dlsym(lib, "cuMemcpyDtoD_v2");
	int (*sync)(void) = (int (*)(void))dlsym(lib, "cuCtxSynchronize");
	int (*freep)(unsigned long long) = (int (*)(unsigned long long))dlsym(lib, "cuMemFree_v2");
	/* the runtime's context current on this thread */
	pt_buffer probe = { 0 };
	int64_t one = 1;
	pt_buffer_alloc(&probe, PT_U8, 1, &one);
	pt_cuda_buffer_upload(&probe);
	pt_cuda_buffer_release(&probe);
	pt_buffer_free(&probe);
	size_t n = (size_t)1 << 30;
	unsigned long long a, b;
	if (alloc(&a, n) || alloc(&b, n))
		return 0;
	dtod(b, a, n);
	sync();
	double t[10];
	for (int k = 0; k < 10; k++) {
		double s = now_ms();
		dtod(b, a, n);
		sync();
		t[k] = now_ms() - s;
	}
	freep(a);
	freep(b);
	return 2.0 * (double)n / (median(t, 10) / 1e3);
}

/* Host-to-device and back through the runtime's copies, GB/s. */
static void host_copies(void)
{
	pt_buffer b = { 0 };
	int64_t n = (int64_t)512 << 20;
	alloc_or_die(&b, PT_U8, 1, &n);
	memset(b.data, 1, (size_t)n);
	double up[5], down[5];
	for (int k = 0; k < 5; k++) {
		double s = now_ms();
		pt_cuda_buffer_upload(&b);
		up[k] = now_ms() - s;
		b.flags = PT_BUF_DEVICE_DIRTY;
		s = now_ms();
		pt_cuda_buffer_download(&b);
		down[k] = now_ms() - s;
	}
	pt_cuda_buffer_release(&b);
	pt_buffer_free(&b);
	printf("host copies through the runtime (%s): to the device %.1f GB/s, back %.1f GB/s (512 MiB, median of 5)\n",
		getenv("PT_CUDA_COPY") ? getenv("PT_CUDA_COPY") : "staged", n / (median(up, 5) / 1e3) / 1e9,
		n / (median(down, 5) / 1e3) / 1e9);
}

static int wanted(const char *apps, const char *app)
{
	if (!apps)
		return 1;
	size_t n = strlen(app);
	for (const char *s = apps; (s = strstr(s, app)); s += n)
		if ((s == apps || s[-1] == ',') && (s[n] == ',' || !s[n]))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".", *apps = NULL;
	int runs = 20;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--apps") && i + 1 < argc)
			apps = argv[++i];
	}
	runs = runs < 1 ? 1 : runs > 256 ? 256 : runs;
	/* line by line: what a crash leaves unprinted is lost when piped */
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *gpu = pt_cuda_device_name();
	if (!gpu && !getenv("GPUBENCH_NO_GPU")) {
		pt_buffer b = { 0 };
		int64_t one = 1;
		pt_buffer_alloc(&b, PT_U8, 1, &one);
		int r = pt_cuda_buffer_upload(&b);
		printf("gpubench: no GPU: %s: %s\n", pt_error_name(r), pt_rt_error_detail());
		return 1;
	}
	double bw = copy_bandwidth();
	if (!gpu)
		bw = 1e12;   /* GPUBENCH_NO_GPU: the harness tried with emulated kernels */
	printf("GPU: %s; device-to-device copy %.0f GB/s; CPU threads %d\n", gpu ? gpu : "none", bw / 1e9,
		pt_get_num_threads());
	if (gpu)
		host_copies();
	char path[900];
	snprintf(path, sizeof(path), "%s/manifest", dir);
	FILE *m = fopen(path, "r");
	if (!m) {
		perror(path);
		return 2;
	}
	row rows[64];
	int nrows = 0;
	gcase *c = malloc(sizeof(*c));
	while (read_case(m, dir, c)) {
		const app_fns *f = fns_of(c->app);
		if (f && wanted(apps, c->app)) {
			if (c->check)
				run_check(c, f);
			else if (nrows < 64)
				run_bench(c, f, runs, &rows[nrows++], bw);
			fflush(stdout);
		}
		free_case(c);
	}
	fclose(m);
	free(c);
	print_table(rows, nrows, bw);
	printf("\n%s\n", failures ? "SOME OUTPUTS ARE WRONG" : "every output verified");
	return failures ? 1 : 0;
}
