/* randpipe.c: the random differential test (tests/fuzz/README.md,
 * "Random pipelines").  Each seed's pipeline (gen_pipe.c) must pass the
 * checks, and every configuration of the table below must compute what
 * the interpreter computes, at every defined point of every output,
 * exactly, at three sizes: the smallest admissible params, odd ones near
 * the estimates, and two to three times the estimates.
 *
 *   randpipe [--first SEED] [--count N] [--print SEED]
 *
 * One Check test per seed, forked: Check's line for a failure, a crash or
 * a hang names the seed as the loop iteration.  A mismatch names the seed,
 * the configuration, the sizes and the commands that rerun it and print
 * its pipeline; where $RANDPIPE_KEEP names a directory, a failing seed's
 * pipeline is left there as randpipe-SEED.pipe. */
#include <time.h>

#include "compiled.h"
#include "gen_pipe.h"
#include "run_suite.h"


/* A configuration: compiler options and the threads it runs with.  tile[]
 * lists sizes for the outer dimensions; a pipeline of more dimensions
 * repeats the last one, one of fewer takes the first ones. */
typedef struct config {
	const char *name;
	bool no_inline;
	int threads;
	pt_opt_level opt_level;
	int ntile, tile[2];
	double overlap;
	bool quick;             /* one of the three meson test runs */
	bool separate;          /* full tiles apart (--separate-tiles) */
	/* compiled for a machine with a 1 KiB L3 (STREAM_MACHINE), so that
	 * every output written in whole lines is streamed (non-temporal
	 * stores where aligned, poly/storage.h), and run with outputs 0, 4
	 * and 32 bytes past a line at the three sizes */
	bool stream;
	pt_backend backend;     /* cuda-emu: the GPU mapping, emulated */
	/* planned for int params this many times their estimates (0: the
	 * estimates), so that reductions are large enough to be factored
	 * (poly/rfactor.h) while they run at the small sizes */
	double plan_scale;
	int time_tile;          /* --time-tile (0: the model's) */
	int block[2];           /* --gpu-block (0: the model's, or 32 x 8 with tiles given) */
} config;

static const config configs[] = {
	{ "-O0, inlined, 1 thread", false, 1, PT_OPT_NAIVE, 0, { 0 }, 0, true, false, false, PT_BACKEND_CPU, 0, 0, { 0 } },
	{ "-O0, not inlined, 2 threads", true, 2, PT_OPT_NAIVE, 0, { 0 }, 0, false, false, false, PT_BACKEND_CPU, 0, 0, { 0 } },
	{ "-O0, inlined, 2 threads", false, 2, PT_OPT_NAIVE, 0, { 0 }, 0, false, false, false, PT_BACKEND_CPU, 0, 0, { 0 } },
	/* the fixed tiles planned for 8x the estimates (8 .. 48 per dim),
	 * time-iterated stages in blocks of 3 and 2 steps (time tiled):
	 * the grouping tiles only dims of 64 points or more there, and the
	 * tiles then cut the small sizes run into several */
	{ "-O1, tiles 8x16, overlap 0.2, separate tiles, planned for 8x the estimates, 2 threads", false, 2,
		PT_OPT_GROUPED, 2, { 8, 16 }, 0.2, true, true, false, PT_BACKEND_CPU, 8, 3, { 0 } },
	{ "-O1, tiles 32x32, overlap 0.4, planned for 8x the estimates, 1 thread", false, 1, PT_OPT_GROUPED, 2,
		{ 32, 32 }, 0.4, false, false, false, PT_BACKEND_CPU, 8, 2, { 0 } },
	{ "-O1, tiles 64x256, overlap 0.5, not inlined, outputs streamed, planned for 8x the estimates, 2 threads",
		true, 2, PT_OPT_GROUPED, 2, { 64, 256 }, 0.5, true, false, true, PT_BACKEND_CPU, 8, 0, { 0 } },
	/* what a user gets: the tile model's sizes (and its say in the
	 * merges) for the machine of MACHINE below */
	{ "-O1, the defaults (the tile model), 2 threads", false, 2, PT_OPT_GROUPED, 0, { 0 }, 0, true, false, false, PT_BACKEND_CPU, 0, 0, { 0 } },
	/* the CUDA target's mapping, its kernels run by the emulator */
	{ "cuda-emu, -O0, inlined", false, 1, PT_OPT_NAIVE, 0, { 0 }, 0, false, false, false, PT_BACKEND_CUDA_EMU, 0, 0, { 0 } },
	/* a block wider than the tile (idle lanes) and of odd rows */
	{ "cuda-emu, -O1, tiles 8x16, blocks of 24x5, overlap 0.2, planned for 8x the estimates", false, 1, PT_OPT_GROUPED,
		2, { 8, 16 }, 0.2, true, false, false, PT_BACKEND_CUDA_EMU, 8, 0, { 24, 5 } },
	{ "cuda-emu, -O1, the defaults, not inlined", true, 1, PT_OPT_GROUPED, 0, { 0 }, 0, true, false, false,
		PT_BACKEND_CUDA_EMU, 0, 0, { 0 } },
	/* reductions factored: planned for 1000x the estimates */
	{ "-O1, the defaults, planned for 1000x the estimates (reductions factored), 2 threads", false, 2,
		PT_OPT_GROUPED, 0, { 0 }, 0, false, false, false, PT_BACKEND_CPU, 1000, 0, { 0 } },
};
/* The machine the tile model plans for, unless $PT_MACHINE names one:
 * fixed, so that a seed's groups and tiles, and a rerun, do not depend
 * on the machine it runs on. */
#define MACHINE "l1=32K,l2=1M,l3=32M,threads=2,vector=64"
#define STREAM_MACHINE "l1=32K,l2=1M,l3=1K,threads=2,vector=64"
#define NCONFIGS ((int)(sizeof(configs) / sizeof(configs[0])))
#define NSIZES 3

static const char *argv0 = "randpipe";
static bool quick; /* --quick: only the configurations marked quick */
static bool gpu_only; /* --gpu: only the CUDA emulator's */

/* The seed the forked test runs and how to rerun it, for messages. */
static unsigned long long cur_seed;
static char cur_rerun[1400];

static pt_options options_of(const config *c, int ndims)
{
	pt_options o = { .no_inline = c->no_inline, .opt_level = c->opt_level, .overlap = c->overlap,
		.separate_tiles = c->separate, .backend = c->backend, .time_tile = c->time_tile,
		.gpu_block = { c->block[0], c->block[1] } };
	if (c->ntile) {
		o.ntile = ndims;
		for (int d = 0; d < ndims; d++)
			o.tile[d] = c->tile[d < c->ntile ? d : c->ntile - 1];
	}
	return o;
}

static bool same_program(const config *a, const config *b)
{
	return a->no_inline == b->no_inline && a->opt_level == b->opt_level && a->ntile == b->ntile &&
		!memcmp(a->tile, b->tile, sizeof(a->tile)) && a->overlap == b->overlap && a->separate == b->separate &&
		a->stream == b->stream && a->backend == b->backend && a->plan_scale == b->plan_scale &&
		a->time_tile == b->time_tile && a->block[0] == b->block[0] && a->block[1] == b->block[1];
}

/* The pipeline written to $RANDPIPE_KEEP before it runs, removed when it
 * passed: a failed check, a crash or a hang ends the forked test at once
 * (Check's _exit), so this is what is left to rerun.  path is "" when
 * $RANDPIPE_KEEP is not set. */
static void keep_pipeline(const char *text, char *path, size_t size)
{
	const char *keep = getenv("RANDPIPE_KEEP");
	path[0] = '\0';
	if (!keep)
		return;
	snprintf(path, size, "%s/randpipe-%llu.pipe", keep, cur_seed);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* Param values of size s: the smallest admissible, odd near the
 * estimate, 2 or 3 times the estimate. */
static void size_of(const gen_pipe *gp, unsigned long long seed, int s, double *v)
{
	for (int d = 0; d < gp->ndims; d++) {
		int e = gp->estimate[d];
		int x = s == 0 ? gp->min[d] : s == 1 ? (e | 1) : e * (2 + (int)((seed + (unsigned)d) % 2)) + (int)(seed % 3 == 0);
		v[d] = x < gp->min[d] ? gp->min[d] : x;
	}
}

/* Whether configuration c runs under --quick and --gpu. */
static bool runs(int c)
{
	return (!quick || configs[c].quick) && (!gpu_only || configs[c].backend == PT_BACKEND_CUDA_EMU);
}

/* Compiles p for every configuration pt_compile accepts: configurations
 * that differ only in threads share a program (threads are set at run). */
static void compile_all(pt_ctx *ctx, const pt_pipeline *p, int ndims, pt_program **progs)
{
	for (int c = 0; c < NCONFIGS; c++) {
		progs[c] = NULL;
		if (!runs(c))
			continue;
		for (int e = 0; e < c && !progs[c]; e++)
			if (progs[e] && same_program(&configs[c], &configs[e]))
				progs[c] = progs[e];
		if (progs[c])
			continue;
		pt_options o = options_of(&configs[c], ndims);
		double est[64];
		if (configs[c].plan_scale > 0 && p->nparams <= 64) {
			for (int q = 0; q < p->nparams; q++)
				est[q] = (p->params[q].has_estimate ? p->params[q].estimate : 1024) * configs[c].plan_scale;
			o.estimates = est;
		}
		pt_ctx_clear_diagnostics(ctx);
		char *machine = strdup(getenv("PT_MACHINE") ? getenv("PT_MACHINE") : MACHINE);
		if (configs[c].stream)
			setenv("PT_MACHINE", STREAM_MACHINE, 1);
		progs[c] = pt_compile(ctx, p, &o);
		setenv("PT_MACHINE", machine, 1);
		free(machine);
		ck_assert_msg(progs[c] != NULL, "seed %llu, %s: pt_compile failed (%s):\n%s", cur_seed, configs[c].name,
			cur_rerun, pt_ctx_diagnostics(ctx));
	}
}

static void free_all(pt_program **progs)
{
	for (int c = 0; c < NCONFIGS; c++) {
		bool shared = false;
		for (int e = c + 1; e < NCONFIGS; e++)
			shared = shared || progs[e] == progs[c];
		if (!shared)
			pt_program_free(progs[c]);
	}
}

START_TEST(random_pipeline)
{
	gen_pipe gp;
	cur_seed = (unsigned long long)_i;
	gen_pipe_make(cur_seed, &gp);
	char kept[1024];
	keep_pipeline(gp.text, kept, sizeof(kept));
	snprintf(cur_rerun, sizeof(cur_rerun), "rerun: %s --first %llu --count 1; the pipeline: %s%s%s --print %llu",
		argv0, cur_seed, kept, kept[0] ? ", or " : "", argv0, cur_seed);
	pt_ctx *ctx = pt_ctx_new();
	char name[64];
	snprintf(name, sizeof(name), "randpipe-%llu.pipe", cur_seed);
	pt_pipeline *p = pt_parse_string(ctx, name, gp.text);
	ck_assert_msg(p != NULL, "seed %llu: the generator made a pipeline the checks reject (%s):\n%s", cur_seed,
		cur_rerun, pt_ctx_diagnostics(ctx));
	pt_program *progs[NCONFIGS];
	compile_all(ctx, p, gp.ndims, progs);
	for (int s = 0; s < NSIZES; s++) {
		double v[GEN_MAX_DIMS];
		size_of(&gp, cur_seed, s, v);
		char sz[64] = "";
		for (int d = 0; d < gp.ndims; d++)
			snprintf(sz + strlen(sz), sizeof(sz) - strlen(sz), "%s%s=%g", d ? " " : "", gp.param[d], v[d]);
		cmp_run r;
		cmp_start(&r, ctx, p, gp.ndims, gp.param, v, (uint32_t)cur_seed * 7u + (uint32_t)s);
		for (int c = 0; c < NCONFIGS; c++) {
			if (!progs[c])
				continue;
			char label[2000];
			static const int offsets[NSIZES] = { 0, 4, 32 };
			cmp_out_offset = configs[c].stream ? offsets[s] : 0;
			snprintf(label, sizeof(label), "seed %llu, %s at %s, outputs %d bytes past a line (%s)", cur_seed,
				configs[c].name, sz, cmp_out_offset, cur_rerun);
			cmp_check(&r, progs[c], configs[c].threads, label);
			cmp_out_offset = 0;
		}
		cmp_finish(&r);
	}
	free_all(progs);
	pt_ctx_free(ctx);
	gen_pipe_free(&gp);
	if (kept[0])
		remove(kept);
}
END_TEST


/* One line on what the seeds' pipelines contain. */
static void print_coverage(long first, long count)
{
	int kinds[GEN_NKINDS] = { 0 }, dims[GEN_MAX_DIMS + 1] = { 0 }, stages = 0, exact = 0, clamped = 0;
	for (long s = first; s < first + count; s++) {
		gen_pipe gp;
		gen_pipe_make((uint64_t)s, &gp);
		for (int k = 0; k < GEN_NKINDS; k++)
			kinds[k] += gp.kinds[k];
		dims[gp.ndims]++;
		stages += gp.nstages;
		exact += gp.exact;
		clamped += gp.clamped;
		gen_pipe_free(&gp);
	}
	printf("randpipe: seeds %ld..%ld: %d stages (1-D %d, 2-D %d, 3-D %d pipelines);", first, first + count - 1,
		stages, dims[1], dims[2], dims[3]);
	for (int k = 0; k < GEN_NKINDS; k++)
		printf(" %s %d%s", gen_kind_name[k], kinds[k], k + 1 < GEN_NKINDS ? "," : ";");
	printf(" reads: %d affine, %d clamped\n", exact, clamped);
}

static long arg_long(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v < 0) {
		fprintf(stderr, "randpipe: '%s' is not a count or seed\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long first = 0, count = 200;
	argv0 = argv[0];
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--first") && i + 1 < argc) {
			first = arg_long(argv[++i]);
		} else if (!strcmp(argv[i], "--quick")) {
			quick = true;
		} else if (!strcmp(argv[i], "--gpu")) {
			gpu_only = true;
		} else if (!strcmp(argv[i], "--count") && i + 1 < argc) {
			count = arg_long(argv[++i]);
		} else if (!strcmp(argv[i], "--print") && i + 1 < argc) {
			gen_pipe gp;
			gen_pipe_make((uint64_t)arg_long(argv[++i]), &gp);
			fputs(gp.text, stdout);
			gen_pipe_free(&gp);
			return 0;
		} else {
			fprintf(stderr, "usage: %s [--first SEED] [--count N] [--quick] [--gpu] [--print SEED]\n", argv0);
			return 2;
		}
	}
	setenv("PT_MACHINE", MACHINE, 0);
	print_coverage(first, count);
	int nrun = 0;
	for (int c = 0; c < NCONFIGS; c++)
		nrun += runs(c);
	printf("randpipe: %d configurations\n", nrun);
	fflush(stdout);

	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	Suite *s = suite_create("randpipe");
	TCase *tc = tcase_create("random");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, random_pipeline, (int)first, (int)(first + count));
	suite_add_tcase(s, tc);
	int rc = pt_test_run_suite(s);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("randpipe: %ld pipelines x %d configurations x %d sizes in %.1f s\n", count, nrun, NSIZES,
		(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
	return rc;
}
