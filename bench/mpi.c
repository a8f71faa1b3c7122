/* mpi.c: one app's run time on this MPI job's ranks (bench/mpi.sh runs
 * it under mpirun for each layout and strategy, interleaved).
 *
 * Every rank parses (and so checks) the app and builds the same inputs at the paper
 * sizes (a pt_workload at the params' estimates).  Each rank compiles
 * -O0 for the CPU (the reference) and the timed build: -O1 for the CPU
 * (--backend cpu) or for MPI (--backend mpi, --strategy S); rank 0
 * compiles first and the others take its objects from the compile
 * cache.  The timed build runs once, and rank 0 compares its outputs,
 * whole there, with the reference's byte for byte (a mismatch: exit
 * status 1).  Then it runs a warm-up and N more times, each after every
 * rank has agreed (pt_mpi_agree: they start together), and rank 0 prints
 * one line: `APP BACKEND STRATEGY RANKS THREADS median_ms min_ms`.
 *
 * With --local (MPI), the timed build is planned for outputs that stay
 * distributed (pt_options.mpi_local_outputs) and runs through the local-part ABI
 * (pt_program_run_local): each rank's parts of the inputs copied from
 * the whole ones once, nothing gathered; every rank compares the output
 * points it computes (PT_PART_OWN) with the reference's, which every
 * rank has whole.
 *
 * --model FILE: the auto strategy's figures from FILE (what `polytile
 * calibrate` wrote), else the defaults.
 *
 * Usage: bench_mpi --app NAME [--apps DIR] [--backend cpu|mpi]
 *                  [--strategy auto|communicate|recompute|replicate]
 *                  [--threads N] [--runs N] [--local] [--model FILE] */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polytile.h"
#include "pt_runtime.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

typedef struct args {
	const char *app, *dir, *backend, *strategy, *model;
	int threads, runs;
	int steps;              /* --steps: opt.mpi_steps (0: auto, -1: all) */
	bool local;
} args;

static int usage(void)
{
	fprintf(stderr, "usage: bench_mpi --app NAME [--apps DIR] [--backend cpu|mpi] "
		"[--strategy auto|communicate|recompute|replicate] [--threads N] [--runs N] [--local] [--model FILE]\n"
		"       [--steps auto|all|N]\n");
	return 2;
}

static int parse_args(int argc, char **argv, args *a)
{
	*a = (args){ .dir = "apps", .backend = "mpi", .strategy = "auto", .threads = 1, .runs = 10 };
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--local")) {
			a->local = true;
			continue;
		}
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			return -1;
		if (!strcmp(argv[i], "--app"))
			a->app = v;
		else if (!strcmp(argv[i], "--apps"))
			a->dir = v;
		else if (!strcmp(argv[i], "--backend"))
			a->backend = v;
		else if (!strcmp(argv[i], "--strategy"))
			a->strategy = v;
		else if (!strcmp(argv[i], "--threads"))
			a->threads = atoi(v);
		else if (!strcmp(argv[i], "--runs"))
			a->runs = atoi(v);
		else if (!strcmp(argv[i], "--model"))
			a->model = v;
		else if (!strcmp(argv[i], "--steps"))
			a->steps = !strcmp(v, "all") ? -1 : !strcmp(v, "auto") ? 0 : atoi(v);
		else
			return -1;
		i++;
	}
	bool cpu = !strcmp(a->backend, "cpu");
	if (!a->app || (!cpu && strcmp(a->backend, "mpi")) || a->threads < 1 || a->runs < 1 || (cpu && a->local) ||
		a->steps < -1)
		return -1;
	return 0;
}

static int strategy_of(const char *s)
{
	static const char *const names[] = { "auto", "communicate", "recompute", "replicate" };
	static const pt_mpi_strategy v[] = { PT_MPI_AUTO, PT_MPI_COMMUNICATE, PT_MPI_RECOMPUTE, PT_MPI_REPLICATE };
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i]))
			return (int)v[i];
	return -1;
}

/* Compiles on rank 0 first, then on the others (from the cache). */
static pt_program *compile_in_turn(pt_ctx *ctx, const pt_pipeline *p, const pt_options *o)
{
	pt_program *prog = NULL;
	int who;
	for (int turn = 0; turn < 2; turn++) {
		if ((pt_mpi_rank() == 0) == (turn == 0))
			prog = pt_compile(ctx, p, o);
		pt_mpi_agree(0, &who);
	}
	return prog;
}

/* Calls f(part row, whole row, bytes) for each row of box lo .. hi
 * (inclusive, whole's coordinates, whole's element 0 at wlo) in part
 * (element 0 at plo); false as soon as f does. */
static bool rows(pt_buffer *part, const int64_t *plo, pt_buffer *whole, const int64_t *wlo, const int64_t *lo,
	const int64_t *hi, bool (*f)(char *, char *, size_t))
{
	int n = whole->ndim;
	size_t es = pt_type_size(whole->type);
	if (lo[0] > hi[0])
		return true;
	int64_t x[PT_MAX_DIMS];
	for (int d = 0; d < n; d++)
		x[d] = lo[d];
	for (;;) {
		int64_t op = 0, ow = 0;
		for (int d = 0; d < n; d++) {
			op += (x[d] - plo[d]) * part->stride[d];
			ow += (x[d] - wlo[d]) * whole->stride[d];
		}
		if (!f((char *)part->data + op * (int64_t)es, (char *)whole->data + ow * (int64_t)es,
			(size_t)(hi[n - 1] - lo[n - 1] + 1) * es))
			return false;
		int d = n - 2;
		while (d >= 0 && x[d] == hi[d])
			x[d] = lo[d], d--;
		if (d < 0)
			return true;
		x[d]++;
	}
}

static bool copy_in(char *part, char *whole, size_t n)
{
	memcpy(part, whole, n);
	return true;
}

static bool same(char *part, char *whole, size_t n)
{
	return !memcmp(part, whole, n);
}

/* The local-part buffers of every array on this rank (inputs filled from
 * the workload's), in[] and out[] pointing at them, lo[] their first
 * points; false when a part or a buffer is missing. */
static bool local_buffers(pt_program *t, pt_workload *w, pt_buffer *loc, int64_t (*lo)[PT_MAX_DIMS],
	const pt_buffer **in, pt_buffer **out)
{
	int nin, nout, r = pt_mpi_rank(), R = pt_mpi_size();
	const int64_t *ip;
	const double *fp;
	const pt_buffer *win = pt_workload_inputs(w, &nin, &ip, &fp);
	pt_buffer *wout = pt_workload_outputs(w, 0, &nout);
	for (int a = 0; a < nin + nout; a++) {
		pt_buffer *whole = a < nin ? (pt_buffer *)&win[a] : &wout[a - nin];
		int64_t hi[PT_MAX_DIMS], ext[PT_MAX_DIMS], zero[PT_MAX_DIMS] = {0};
		if (pt_program_part(t, ip, fp, r, R, a, lo[a], hi) != whole->ndim)
			return false;
		for (int d = 0; d < whole->ndim; d++)
			ext[d] = lo[a][0] > hi[0] ? 0 : hi[d] - lo[a][d] + 1;
		if (pt_buffer_alloc(&loc[a], whole->type, whole->ndim, ext) != PT_OK)
			return false;
		if (a < nin) {
			in[a] = &loc[a];
			rows(&loc[a], lo[a], whole, zero, lo[a], hi, copy_in);
		} else {
			out[a - nin] = &loc[a];
		}
	}
	return true;
}

/* Whether this rank's own points of every output equal the reference's
 * (slot 0 of w, whole on every rank). */
static bool local_right(pt_program *t, pt_workload *w, const pt_pipeline *p, pt_buffer *loc,
	int64_t (*lo)[PT_MAX_DIMS])
{
	int nin, nout;
	const int64_t *ip;
	const double *fp;
	pt_workload_inputs(w, &nin, &ip, &fp);
	pt_buffer *ref = pt_workload_outputs(w, 0, &nout);
	bool ok = true;
	for (int i = 0; i < nout && ok; i++) {
		int64_t olo[PT_MAX_DIMS], ohi[PT_MAX_DIMS], wlo[PT_MAX_DIMS], wext[PT_MAX_DIMS];
		pt_pipeline_output_box(p, i, ip, wlo, wext);
		ok = pt_program_part(t, ip, fp, pt_mpi_rank(), pt_mpi_size(), nin + i + PT_PART_OWN, olo, ohi) == ref[i].ndim &&
			rows(&loc[nin + i], lo[nin + i], &ref[i], wlo, olo, ohi, same);
	}
	return ok;
}

/* Times the local-part ABI (--local): runs + 1 calls, the first checked
 * and untimed; ms[] the others'. */
static int time_local(const args *a, pt_program *t, pt_workload *w, const pt_pipeline *p, double *ms)
{
	pt_buffer loc[64] = {{0}};
	int64_t lo[64][PT_MAX_DIMS];
	const pt_buffer *in[32];
	pt_buffer *out[32];
	int who, rc = 1, nin, nout;
	const int64_t *ip;
	const double *fp;
	pt_workload_inputs(w, &nin, &ip, &fp);
	pt_workload_outputs(w, 0, &nout);
	bool ok = nin + nout <= 32 && local_buffers(t, w, loc, lo, in, out);
	if (pt_mpi_agree(ok ? 0 : PT_ERR_NOMEM, &who))
		fprintf(stderr, "%s: rank %d has no local parts\n", a->app, who);
	else if (pt_program_run_local(t, ip, fp, in, out))
		fprintf(stderr, "%s: a local run failed\n", a->app);
	else if (pt_mpi_agree(local_right(t, w, p, loc, lo) ? 0 : PT_ERR_PARAM, &who))
		fprintf(stderr, "%s: WRONG: rank %d's own points differ from -O0\n", a->app, who);
	else
		rc = 0;
	for (int i = -1; i < a->runs && !rc; i++) {
		pt_mpi_agree(0, &who);
		double t0 = pt_mpi_wtime();
		if (pt_program_run_local(t, ip, fp, in, out)) {
			fprintf(stderr, "%s: a timed run failed\n", a->app);
			rc = 1;
		} else if (i >= 0) {
			ms[i] = (pt_mpi_wtime() - t0) * 1e3;
		}
	}
	for (int i = 0; i < 64; i++)
		pt_buffer_free(&loc[i]);
	return rc;
}

static int bench(const args *a, pt_ctx *ctx, const pt_pipeline *p)
{
	bool mpi = !strcmp(a->backend, "mpi");
	pt_options ref = { .opt_level = PT_OPT_NAIVE, .threads = a->threads, .cache = true };
	pt_options opt = { .opt_level = PT_OPT_GROUPED, .threads = a->threads, .cache = true };
	if (mpi) {
		opt.backend = PT_BACKEND_MPI;
		opt.mpi_strategy = (pt_mpi_strategy)strategy_of(a->strategy);
		opt.mpi_ranks = pt_mpi_size();
		opt.mpi_local_outputs = a->local;   /* --local: the outputs stay distributed */
		opt.mpi_steps = a->steps;
		if (a->model && pt_mpi_model_read(a->model, &opt) != 4) {
			fprintf(stderr, "%s: --model %s: not a file `polytile calibrate` wrote\n", a->app, a->model);
			return 1;
		}
	}
	pt_workload *w = pt_workload_new(ctx, p, NULL);
	pt_program *r = w ? compile_in_turn(ctx, p, &ref) : NULL;
	pt_program *t = r ? compile_in_turn(ctx, p, &opt) : NULL;
	int who, rc = 1;
	if (pt_mpi_agree(t ? 0 : PT_ERR_PARAM, &who)) {
		fprintf(stderr, "%s: rank %d could not set up or compile: %s\n", a->app, who, pt_ctx_diagnostics(ctx));
		goto out;
	}
	size_t off;
	double *ms = calloc((size_t)a->runs, sizeof(*ms));
	if (a->local) {
		if (pt_workload_run(w, r, 0, NULL) || time_local(a, t, w, p, ms)) {
			free(ms);
			goto out;
		}
		goto report;
	}
	if (pt_workload_run(w, r, 0, NULL) || pt_workload_run(w, t, 1, NULL)) {
		free(ms);
		fprintf(stderr, "%s: a run failed\n", a->app);
		goto out;
	}
	bool wrong = pt_mpi_rank() == 0 && pt_workload_compare(w, &off) >= 0;
	if (wrong)
		fprintf(stderr, "%s: WRONG: output differs from -O0 at byte %zu\n", a->app, off);
	if (pt_mpi_agree(wrong ? PT_ERR_PARAM : 0, &who)) {
		free(ms);
		goto out;
	}
	for (int i = -1; i < a->runs; i++) {
		double m = 0;
		pt_mpi_agree(0, &who);
		if (pt_workload_run(w, t, 1, &m)) {
			fprintf(stderr, "%s: a timed run failed\n", a->app);
			free(ms);
			goto out;
		}
		if (i >= 0)
			ms[i] = m;
	}
report:
	qsort(ms, (size_t)a->runs, sizeof(*ms), cmp_double);
	char label[64];
	snprintf(label, sizeof(label), "%s", !mpi ? "-" : a->local ? "local" : a->strategy);
	if (mpi && a->steps)   /* --steps N: "communicate:steps2" */
		snprintf(label, sizeof(label), "%s:steps%d", a->strategy, a->steps);
	if (pt_mpi_rank() == 0)
		printf("%s %s %s %d %d %.2f %.2f\n", a->app, a->backend, label, pt_mpi_size(), a->threads, ms[a->runs / 2],
			ms[0]);
	free(ms);
	rc = 0;
out:
	pt_program_free(t);
	pt_program_free(r);
	pt_workload_free(w);
	return rc;
}

int main(int argc, char **argv)
{
	args a;
	if (parse_args(argc, argv, &a) || strategy_of(a.strategy) < 0)
		return usage();
	pt_mpi_init();
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s.pipe", a.dir, a.app);
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_file(ctx, path);
	int rc = 1;
	if (!p)
		fprintf(stderr, "%s", pt_ctx_diagnostics(ctx));
	else
		rc = bench(&a, ctx, p);
	pt_ctx_free(ctx);
	pt_mpi_finalize();
	return rc;
}
