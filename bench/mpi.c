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
 * Usage: bench_mpi --app NAME [--apps DIR] [--backend cpu|mpi]
 *                  [--strategy auto|communicate|recompute|replicate]
 *                  [--threads N] [--runs N] */
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
	const char *app, *dir, *backend, *strategy;
	int threads, runs;
} args;

static int usage(void)
{
	fprintf(stderr, "usage: bench_mpi --app NAME [--apps DIR] [--backend cpu|mpi] "
		"[--strategy auto|communicate|recompute|replicate] [--threads N] [--runs N]\n");
	return 2;
}

static int parse_args(int argc, char **argv, args *a)
{
	*a = (args){ .dir = "apps", .backend = "mpi", .strategy = "auto", .threads = 1, .runs = 10 };
	for (int i = 1; i < argc; i++) {
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
		else
			return -1;
		i++;
	}
	bool cpu = !strcmp(a->backend, "cpu");
	if (!a->app || (!cpu && strcmp(a->backend, "mpi")) || a->threads < 1 || a->runs < 1)
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

static int bench(const args *a, pt_ctx *ctx, const pt_pipeline *p)
{
	bool mpi = !strcmp(a->backend, "mpi");
	pt_options ref = { .opt_level = PT_OPT_NAIVE, .threads = a->threads, .cache = true };
	pt_options opt = { .opt_level = PT_OPT_GROUPED, .threads = a->threads, .cache = true };
	if (mpi) {
		opt.backend = PT_BACKEND_MPI;
		opt.mpi_strategy = (pt_mpi_strategy)strategy_of(a->strategy);
		opt.mpi_ranks = pt_mpi_size();
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
	if (pt_workload_run(w, r, 0, NULL) || pt_workload_run(w, t, 1, NULL)) {
		fprintf(stderr, "%s: a run failed\n", a->app);
		goto out;
	}
	bool wrong = pt_mpi_rank() == 0 && pt_workload_compare(w, &off) >= 0;
	if (wrong)
		fprintf(stderr, "%s: WRONG: output differs from -O0 at byte %zu\n", a->app, off);
	if (pt_mpi_agree(wrong ? PT_ERR_PARAM : 0, &who))
		goto out;
	double *ms = calloc((size_t)a->runs, sizeof(*ms));
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
	qsort(ms, (size_t)a->runs, sizeof(*ms), cmp_double);
	if (pt_mpi_rank() == 0)
		printf("%s %s %s %d %d %.2f %.2f\n", a->app, a->backend, mpi ? a->strategy : "-", pt_mpi_size(),
			a->threads, ms[a->runs / 2], ms[0]);
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
