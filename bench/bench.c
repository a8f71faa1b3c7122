/* bench.c: polytile's compiled code against hand-written naive
 * parallel C (bench/naive/) on harris, unsharp mask and blur, and, for
 * harris only, against a hand-fused and tiled C version too (issue 10).
 *
 * For each thread count: both versions' outputs are first checked against
 * the plain-C references of tests/ref (exact for u16, |diff| <= 1e-5 *
 * max|ref| for f32, over the output's defined points); a mismatch ends the
 * run with exit status 1. Then each version runs once as a warm-up and
 * N times, alternating, and the median and minimum wall times are printed
 * as a markdown table with the ratio naive C / polytile (> 1: polytile is
 * faster), and for harris fused C / polytile.
 *
 * The polytile functions come from `polytile compile apps/APP.pipe`
 * (their ABI is declared below). Built with -DSELFTEST, the polytile
 * column runs the naive C functions instead, to test the harness without
 * the compiler. bench/run.sh builds and runs everything; bench/README.md
 * explains the table.
 *
 * Usage: bench [--quick] [--runs N] [--threads LIST] [--app NAME]... */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "pt_runtime.h"
#include "naive/naive.h"
#include "ref_apps.h"

/* The ABI of `polytile compile`: int params, then float params, in
 * declaration order; one const pt_buffer * per image; one pt_buffer * per
 * output, allocated by the caller with the output stage's domain box. */
int harris(int32_t R, int32_t C, const pt_buffer *I, pt_buffer *harris);
int unsharp_mask(int32_t R, int32_t C, float threshold, float weight,
		const pt_buffer *img, pt_buffer *mask);
int blur(int32_t R, int32_t C, const pt_buffer *I, pt_buffer *out);

#ifdef PT_GENERATED_HEADERS
/* the generated headers, so that the compiler checks the prototypes above */
#include "harris.h"
#include "unsharp_mask.h"
#include "blur.h"
#endif

#ifdef SELFTEST
#define PT_HARRIS naive_harris
#define PT_UNSHARP naive_unsharp_mask
#define PT_BLUR naive_blur
#else
#define PT_HARRIS harris
#define PT_UNSHARP unsharp_mask
#define PT_BLUR blur
#endif

/* FUSED: the hand-fused C (naive/harris_fused.c), harris only; an app
 * without it has call[FUSED] NULL */
enum { NAIVE, POLY, FUSED, NVER };
static const char *const version_name[NVER] = { "naive C", "polytile", "fused C" };

typedef struct app app;
struct app {
	const char *name;
	int32_t R, C;
	float threshold, weight;	/* unsharp_mask only */
	pt_buffer in;
	pt_buffer out[NVER];
	void *ref;			/* reference output, ref_apps.h layout */
	int (*call[NVER])(const app *a, pt_buffer *out);	/* NULL: no such version */
	/* compares out with ref; returns the number of mismatches and
	 * describes the worst one in msg */
	long (*check)(const app *a, const pt_buffer *out, char *msg, size_t n);
	char size[64];
};

static void die(const char *what)
{
	fprintf(stderr, "bench: %s\n", what);
	exit(2);
}

static void alloc_or_die(pt_buffer *b, pt_type t, int ndim, const int64_t *ext)
{
	if (pt_buffer_alloc(b, t, ndim, ext) != PT_OK)
		die("out of memory");
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p)
		die("out of memory");
	return p;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* Compares a float region of out (element (i, j) of plane p at
 * out[p*s0 + (i0+i)*s1 + j0+j], 2-d buffers with p = 0 only) with the
 * dense reference ref (row stride rw, plane stride rp) over np planes of
 * nr x nc elements starting at (i0, j0) in both. */
static long check_f32(const pt_buffer *out, int plane_dim, const float *ref,
		int64_t rp, int64_t rw, int64_t np, int64_t i0, int64_t nr,
		int64_t j0, int64_t nc, char *msg, size_t n)
{
	const float *o = out->data;
	int64_t s0 = plane_dim ? out->stride[0] : 0;
	int64_t s1 = out->stride[plane_dim], s2 = out->stride[plane_dim + 1];
	double maxref = 0, worst = -1;
	long bad = 0;
	int64_t wp = 0, wi = 0, wj = 0;

	for (int64_t p = 0; p < np; p++)
		for (int64_t i = i0; i < i0 + nr; i++)
			for (int64_t j = j0; j < j0 + nc; j++)
				maxref = fmax(maxref, fabs(ref[p * rp + i * rw + j]));
	double tol = 1e-5 * maxref;
	for (int64_t p = 0; p < np; p++)
		for (int64_t i = i0; i < i0 + nr; i++)
			for (int64_t j = j0; j < j0 + nc; j++) {
				double r = ref[p * rp + i * rw + j];
				double v = o[p * s0 + i * s1 + j * s2];
				double d = fabs(v - r);
				if (!(d <= tol)) {	/* NaN counts as a mismatch */
					bad++;
					if (!(d <= worst)) {
						worst = d;
						wp = p, wi = i, wj = j;
					}
				}
			}
	if (bad) {
		double r = ref[wp * rp + wi * rw + wj];
		double v = o[wp * s0 + wi * s1 + wj * s2];
		if (plane_dim)
			snprintf(msg, n, "%ld mismatches; worst at (%lld, %lld, %lld): "
					"%.9g, reference %.9g (tolerance %.3g)", bad,
					(long long)wp, (long long)wi, (long long)wj, v, r, tol);
		else
			snprintf(msg, n, "%ld mismatches; worst at (%lld, %lld): "
					"%.9g, reference %.9g (tolerance %.3g)", bad,
					(long long)wi, (long long)wj, v, r, tol);
	} else {
		snprintf(msg, n, "max |ref| %.6g, tolerance %.3g", maxref, tol);
	}
	return bad;
}

/* ---- harris: I f32 [R+2][C+2] -> harris f32 [R+2][C+2], defined on
 * 2..R-1 x 2..C-1 (the reference writes the same region of the same
 * layout) */

static int harris_naive(const app *a, pt_buffer *out)
{
	return naive_harris(a->R, a->C, &a->in, out);
}

static int harris_poly(const app *a, pt_buffer *out)
{
	return PT_HARRIS(a->R, a->C, &a->in, out);
}

static int harris_fused(const app *a, pt_buffer *out)
{
	return fused_harris(a->R, a->C, &a->in, out);
}

static long harris_check(const app *a, const pt_buffer *out, char *msg, size_t n)
{
	int64_t W = (int64_t)a->C + 2;
	return check_f32(out, 0, a->ref, 0, W, 1, 2, a->R - 2, 2, a->C - 2, msg, n);
}

static void harris_setup(app *a, int32_t R, int32_t C)
{
	int64_t ext[2] = { (int64_t)R + 2, (int64_t)C + 2 };

	a->name = "harris";
	a->R = R, a->C = C;
	snprintf(a->size, sizeof a->size, "%d x %d", R, C);
	alloc_or_die(&a->in, PT_F32, 2, ext);
	ref_fill_f32(a->in.data, (size_t)(ext[0] * ext[1]), 1);
	for (int v = 0; v < NVER; v++)
		alloc_or_die(&a->out[v], PT_F32, 2, ext);
	a->ref = xcalloc((size_t)(ext[0] * ext[1]), sizeof(float));
	ref_harris(R, C, a->in.data, a->ref);
	a->call[NAIVE] = harris_naive;
	a->call[POLY] = harris_poly;
	a->call[FUSED] = harris_fused;
	a->check = harris_check;
}

/* ---- unsharp_mask: img f32 [3][R+4][C+4] -> mask f32 [3][R][C] */

static int unsharp_naive(const app *a, pt_buffer *out)
{
	return naive_unsharp_mask(a->R, a->C, a->threshold, a->weight, &a->in, out);
}

static int unsharp_poly(const app *a, pt_buffer *out)
{
	return PT_UNSHARP(a->R, a->C, a->threshold, a->weight, &a->in, out);
}

static long unsharp_check(const app *a, const pt_buffer *out, char *msg, size_t n)
{
	int64_t R = a->R, C = a->C;
	return check_f32(out, 1, a->ref, R * C, C, 3, 0, R, 0, C, msg, n);
}

static void unsharp_setup(app *a, int32_t R, int32_t C)
{
	int64_t ext_in[3] = { 3, (int64_t)R + 4, (int64_t)C + 4 };
	int64_t ext_out[3] = { 3, R, C };

	a->name = "unsharp_mask";
	a->R = R, a->C = C;
	/* the .pipe defaults */
	a->threshold = 0.001f;
	a->weight = 3.0f;
	snprintf(a->size, sizeof a->size, "%d x %d x 3", R, C);
	alloc_or_die(&a->in, PT_F32, 3, ext_in);
	ref_fill_f32(a->in.data, (size_t)(ext_in[0] * ext_in[1] * ext_in[2]), 2);
	for (int v = 0; v < FUSED; v++)
		alloc_or_die(&a->out[v], PT_F32, 3, ext_out);
	a->ref = xcalloc((size_t)(3 * (int64_t)R * C), sizeof(float));
	ref_unsharp_mask(R, C, a->threshold, a->weight, a->in.data, a->ref);
	a->call[NAIVE] = unsharp_naive;
	a->call[POLY] = unsharp_poly;
	a->check = unsharp_check;
}

/* ---- blur: I u16 [R+2][C+2] -> out u16 [R][C], exact */

static int blur_naive(const app *a, pt_buffer *out)
{
	return naive_blur(a->R, a->C, &a->in, out);
}

static int blur_poly(const app *a, pt_buffer *out)
{
	return PT_BLUR(a->R, a->C, &a->in, out);
}

static long blur_check(const app *a, const pt_buffer *out, char *msg, size_t n)
{
	const uint16_t *o = out->data, *ref = a->ref;
	long bad = 0;
	int64_t fi = -1, fj = -1;

	for (int64_t i = 0; i < a->R; i++)
		for (int64_t j = 0; j < a->C; j++)
			if (o[i * out->stride[0] + j * out->stride[1]] != ref[i * a->C + j]) {
				if (!bad)
					fi = i, fj = j;
				bad++;
			}
	if (bad)
		snprintf(msg, n, "%ld mismatches; first at (%lld, %lld): %u, reference %u",
				bad, (long long)fi, (long long)fj,
				o[fi * out->stride[0] + fj * out->stride[1]],
				ref[fi * a->C + fj]);
	else
		snprintf(msg, n, "exact");
	return bad;
}

static void blur_setup(app *a, int32_t R, int32_t C)
{
	int64_t ext_in[2] = { (int64_t)R + 2, (int64_t)C + 2 };
	int64_t ext_out[2] = { R, C };

	a->name = "blur";
	a->R = R, a->C = C;
	snprintf(a->size, sizeof a->size, "%d x %d", R, C);
	alloc_or_die(&a->in, PT_U16, 2, ext_in);
	ref_fill_u16(a->in.data, (size_t)(ext_in[0] * ext_in[1]), 3);
	for (int v = 0; v < FUSED; v++)
		alloc_or_die(&a->out[v], PT_U16, 2, ext_out);
	a->ref = xcalloc((size_t)((int64_t)R * C), sizeof(uint16_t));
	ref_blur(R, C, a->in.data, a->ref);
	a->call[NAIVE] = blur_naive;
	a->call[POLY] = blur_poly;
	a->check = blur_check;
}

static void app_free(app *a)
{
	pt_buffer_free(&a->in);
	for (int v = 0; v < NVER; v++)
		pt_buffer_free(&a->out[v]);
	free(a->ref);
}

/* ---- timing */

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

static double median(double *t, int n)
{
	qsort(t, (size_t)n, sizeof *t, cmp_double);
	return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

static long minor_faults(void)
{
	struct rusage ru;
	return getrusage(RUSAGE_SELF, &ru) ? 0 : ru.ru_minflt;
}

/* page faults of the last run_once call (all threads) */
static long last_faults;

/* Runs version v once into its output buffer; exits on an error code. */
static double run_once(const app *a, int v, pt_buffer *out)
{
	long f0 = minor_faults();
	double t0 = now_ms();
	int err = a->call[v](a, out);
	double t = now_ms() - t0;
	last_faults = minor_faults() - f0;
	if (err) {
		fprintf(stderr, "bench: %s (%s) returned %d\n", a->name,
				version_name[v], err);
		exit(1);
	}
	return t;
}

typedef struct row {
	const char *name;
	char size[64];
	int threads;
	int has[NVER];			/* the app has this version */
	double med[NVER], min[NVER];
} row;

static void print_machine(void)
{
	char line[512], model[256] = "unknown";
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (f) {
		while (fgets(line, sizeof line, f)) {
			char *colon = strchr(line, ':');
			if (!strncmp(line, "model name", 10) && colon) {
				snprintf(model, sizeof model, "%s", colon + 2);
				model[strcspn(model, "\n")] = 0;
				break;
			}
		}
		fclose(f);
	}
	printf("- CPU: %s (%d logical CPUs online, omp_get_num_procs() = %d)\n",
			model, (int)sysconf(_SC_NPROCESSORS_ONLN), omp_get_num_procs());
#ifdef __VERSION__
	printf("- compiler of the hand-written C and of this harness: gcc %s\n", __VERSION__);
#endif
}

/* /proc/loadavg's first three fields (other work on the machine skews
 * the medians; the mins are the robust figure then) */
static const char *loadavg(void)
{
	static char buf[4][64];
	static int k;
	char *s = buf[k++ % 4];
	FILE *f = fopen("/proc/loadavg", "r");

	snprintf(s, 64, "unknown");
	if (f) {
		double a, b, c;
		if (fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3)
			snprintf(s, 64, "%.2f %.2f %.2f", a, b, c);
		fclose(f);
	}
	return s;
}

static const char *usage =
	"usage: bench [--quick] [--runs N] [--threads LIST] [--app NAME]...\n"
	"  --quick         smaller sizes, 3 runs (to try it out)\n"
	"  --runs N        timed runs per version (default 11; 3 with --quick)\n"
	"  --threads LIST  comma-separated thread counts (default 1,2)\n"
	"  --app NAME      only this app (harris, unsharp_mask, blur); repeatable\n"
	"  --verbose       print every run's time (to stderr)\n";

/* Checks every version of a on nthreads threads against tests/ref, then
 * times runs of each, alternating, into row w; -1 on a mismatch. */
static int measure(app *a, int nthreads, int runs, int verbose, double **t, row *w)
{
	/* check every output first, from zeroed buffers */
	for (int v = 0; v < NVER; v++) {
		if (!a->call[v])
			continue;
		char msg[256];
		pt_buffer *out = &a->out[v];
		memset(out->data, 0, (size_t)pt_buffer_count(out)
				* pt_type_size(out->type));
		run_once(a, v, out);
		long bad = a->check(a, out, msg, sizeof msg);
		fprintf(stderr, "check %-12s %-8s %d thread%s: %s: %s\n",
				a->name, version_name[v], nthreads,
				nthreads == 1 ? " " : "s",
				bad ? "MISMATCH" : "ok", msg);
		if (bad) {
			fprintf(stderr, "bench: %s (%s, %d threads) "
					"differs from tests/ref\n", a->name,
					version_name[v], nthreads);
			return -1;
		}
	}

	/* warm-up, then alternate the versions */
	for (int v = 0; v < NVER; v++)
		if (a->call[v])
			run_once(a, v, &a->out[v]);
	long faults[NVER] = { 0 };
	for (int r = 0; r < runs; r++)
		for (int v = 0; v < NVER; v++) {
			if (!a->call[v])
				continue;
			t[v][r] = run_once(a, v, &a->out[v]);
			faults[v] += last_faults;
			if (verbose)
				fprintf(stderr, "run   %-12s %d thread%s: "
						"%-8s %.2f ms, %ld page faults\n",
						a->name, nthreads,
						nthreads == 1 ? " " : "s",
						version_name[v], t[v][r], last_faults);
		}

	w->name = a->name;
	snprintf(w->size, sizeof w->size, "%s", a->size);
	w->threads = nthreads;
	for (int v = 0; v < NVER; v++) {
		w->has[v] = a->call[v] != NULL;
		if (!w->has[v])
			continue;
		w->med[v] = median(t[v], runs);
		w->min[v] = t[v][0];	/* sorted by median() */
	}
	fprintf(stderr, "time  %-12s %d thread%s: naive C %.1f ms, "
			"polytile %.1f ms", a->name,
			nthreads, nthreads == 1 ? " " : "s",
			w->med[NAIVE], w->med[POLY]);
	if (w->has[FUSED])
		fprintf(stderr, ", fused C %.1f ms", w->med[FUSED]);
	fprintf(stderr, " (medians); page faults per run: naive C %ld, "
			"polytile %ld", faults[NAIVE] / runs, faults[POLY] / runs);
	if (w->has[FUSED])
		fprintf(stderr, ", fused C %ld", faults[FUSED] / runs);
	fputc('\n', stderr);
	return 0;
}

/* The table of ratios and the machine it was measured on. The fused C
 * columns appear when a row has that version (harris); other apps' rows
 * show "-" there. */
static void print_table(const row *rows, int nrows, int runs, const char *load0)
{
	int fused = 0;
	for (int r = 0; r < nrows; r++)
		fused |= rows[r].has[FUSED];

	printf("| app | size | threads | naive C median (ms) | naive C min (ms) "
			"| polytile median (ms) | polytile min (ms) "
			"| naive C / polytile (medians) | (mins) |");
	if (fused)
		printf(" fused C median (ms) | fused C min (ms) "
				"| fused C / polytile (medians) | (mins) |");
	printf("\n|---|---|---:|---:|---:|---:|---:|---:|---:|%s\n",
			fused ? "---:|---:|---:|---:|" : "");
	int within_med = 1, within_min = 1, fast_med = 1, fast_min = 1;
	for (int r = 0; r < nrows; r++) {
		const row *w = &rows[r];
		double rmed = w->med[NAIVE] / w->med[POLY];
		double rmin = w->min[NAIVE] / w->min[POLY];
		/* polytile's time at most 1.1 x naive C's */
		within_med &= rmed >= 1 / 1.1;
		within_min &= rmin >= 1 / 1.1;
		printf("| %s | %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |",
				w->name, w->size, w->threads, w->med[NAIVE], w->min[NAIVE],
				w->med[POLY], w->min[POLY], rmed, rmin);
		if (w->has[FUSED]) {
			double fmed = w->med[FUSED] / w->med[POLY];
			double fmin = w->min[FUSED] / w->min[POLY];
			/* issue 10: polytile as fast as the fused C or faster */
			fast_med &= fmed >= 1;
			fast_min &= fmin >= 1;
			printf(" %.2f | %.2f | %.2f | %.2f |", w->med[FUSED],
					w->min[FUSED], fmed, fmin);
		} else if (fused) {
			printf(" - | - | - | - |");
		}
		putchar('\n');
	}
	printf("\n%d timed runs per version after one warm-up each, the "
			"versions alternating; ratio > 1: polytile faster.\n", runs);
	printf("polytile within 10%% of naive C or faster on every row: "
			"%s (medians), %s (mins)\n", within_med ? "yes" : "no",
			within_min ? "yes" : "no");
	if (fused)
		printf("polytile as fast as the fused C or faster on every harris "
				"row: %s (medians), %s (mins)\n", fast_med ? "yes" : "no",
				fast_min ? "yes" : "no");
	putchar('\n');
	print_machine();
	printf("- load average before / after: %s / %s\n", load0, loadavg());

}

int main(int argc, char **argv)
{
	int quick = 0, verbose = 0, runs = -1, nthr = 0, threads[16];
	const char *only[3];
	int nonly = 0;
	const char *tlist = "1,2";

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			quick = 1;
		} else if (!strcmp(argv[i], "--verbose")) {
			verbose = 1;
		} else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
			runs = atoi(argv[++i]);
			if (runs < 1)
				die("--runs needs a positive number");
		} else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			tlist = argv[++i];
		} else if (!strcmp(argv[i], "--app") && i + 1 < argc && nonly < 3) {
			only[nonly++] = argv[++i];
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage, stdout);
			return 0;
		} else {
			fputs(usage, stderr);
			return 2;
		}
	}
	if (runs < 0)
		runs = quick ? 3 : 11;
	for (const char *p = tlist; *p && nthr < 16;) {
		char *end;
		long t = strtol(p, &end, 10);
		if (end == p || t < 1 || t > 1024 || (*end && *end != ','))
			die("--threads wants a list such as 1,2");
		threads[nthr++] = (int)t;
		p = *end ? end + 1 : end;
	}
	if (!nthr)
		die("--threads wants a list such as 1,2");

	/* the paper sizes (../shared/BENCHMARKS.md, the .pipe defaults); the
	 * quick sizes are odd on purpose, so vector loops have tails */
	struct { const char *name; void (*setup)(app *, int32_t, int32_t);
		int32_t R, C, qR, qC; } apps[] = {
		{ "harris", harris_setup, 6400, 6400, 1001, 803 },
		{ "unsharp_mask", unsharp_setup, 2048, 2048, 509, 387 },
		{ "blur", blur_setup, 6400, 4800, 1003, 717 },
	};
	int napps = (int)(sizeof apps / sizeof apps[0]);
	for (int k = 0; k < nonly; k++) {
		int found = 0;
		for (int i = 0; i < napps; i++)
			found |= !strcmp(only[k], apps[i].name);
		if (!found)
			die("--app: unknown app (harris, unsharp_mask, blur)");
	}

	const char *load0 = loadavg();
	row *rows = xcalloc((size_t)(napps * nthr), sizeof *rows);
	int nrows = 0;
	double *t[NVER];
	for (int v = 0; v < NVER; v++)
		t[v] = xcalloc((size_t)runs, sizeof(double));

#ifdef SELFTEST
	printf("SELFTEST build: the polytile column runs the naive C functions.\n\n");
#endif
	for (int i = 0; i < napps; i++) {
		int on = !nonly;
		for (int k = 0; k < nonly; k++)
			on |= !strcmp(only[k], apps[i].name);
		if (!on)
			continue;

		app a;
		memset(&a, 0, sizeof a);
		apps[i].setup(&a, quick ? apps[i].qR : apps[i].R,
				quick ? apps[i].qC : apps[i].C);
		for (int ti = 0; ti < nthr; ti++) {
			omp_set_num_threads(threads[ti]);   /* the naive C */
			pt_set_num_threads(threads[ti]);    /* polytile (its own pool) */

			if (measure(&a, threads[ti], runs, verbose, t, &rows[nrows]))
				return 1;
			rows[nrows++].name = apps[i].name;
		}
		app_free(&a);
	}

	print_table(rows, nrows, runs, load0);
	for (int v = 0; v < NVER; v++)
		free(t[v]);
	free(rows);
	return 0;
}
