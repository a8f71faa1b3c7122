/* calibrate.c: `mpirun -np 2 polytile calibrate`: measures what the MPI
 * target's auto strategy weighs (poly/dist_model.c) and keeps it in a
 * file that `run`, `compile` and `explain --backend mpi` read
 * (pt_cli_mpi_costs): the latency of a message and the bandwidth between
 * two ranks (a ping-pong), and the time of one stage point on a rank in
 * a tiled kernel and in an untiled one (bundled pipelines compiled for
 * the CPU with the rank's threads). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "cli.h"
#include "pt_runtime.h"

static const char *const usage_calibrate =
	"usage: mpirun -np 2 polytile calibrate [-o FILE] [--threads N]\n"
	"\n"
	"Measures the latency and bandwidth of messages between ranks 0 and 1\n"
	"(a ping-pong) and the seconds per stage point on one rank of a blur\n"
	"in tiles and of an untiled 3-D stencil, and writes them to FILE\n"
	"(default: $PT_MPI_MODEL, else mpi-model in the compile cache's\n"
	"folder), where run, compile and explain with --backend mpi read them\n"
	"for --mpi-strategy auto (docs/distributed.md).\n";

/* The model file: $PT_MPI_MODEL, else the cache folder's mpi-model
 * (caller frees; NULL: none). */
static char *model_path(void)
{
	const char *env = getenv("PT_MPI_MODEL");
	if (env && *env)
		return strdup(env);
	char *dir = pt_cache_dir();
	if (!dir)
		return NULL;
	size_t n = strlen(dir) + 16;
	char *path = malloc(n);
	if (path)
		snprintf(path, n, "%s/mpi-model", dir);
	free(dir);
	return path;
}

void pt_cli_mpi_costs(pt_options *o)
{
	char *path = model_path();
	if (path)
		pt_mpi_model_read(path, o);
	free(path);
}

#ifdef PT_HAVE_MPI
/* Two stages fused in tiles with a scratchpad, as the tiled groups of
 * most pipelines run. */
static const char *const blur_text =
	"pipeline calibrate\n"
	"param R : int = 2048\nparam C : int = 2048\nimage I : float [R+2, C+2]\n"
	"func bx(x : 0 .. R+1, y : 0 .. C-1) : float = (I(x, y) + I(x, y+1) + I(x, y+2)) / 3.0\n"
	"func out(x : 0 .. R-1, y : 0 .. C-1) : float = (bx(x, y) + bx(x+1, y) + bx(x+2, y)) / 3.0\n"
	"output out\n";
/* One stencil stage over whole arrays, untiled (-O0), as a kernel of one
 * untiled stage runs (heat3d's steps, local Laplacian's levels): read
 * and written through memory, 3-D so that its neighbours' planes miss
 * the caches as a 3-D grid's do. */
static const char *const stream_text =
	"pipeline calibrate_stream\n"
	"param R : int = 320\nparam C : int = 320\nimage I : float [R+2, C+2, C+2]\n"
	"func out(x : 0 .. R-1, y : 0 .. C-1, z : 0 .. C-1) : float = I(x+1, y+1, z+1) + 0.125 * (I(x, y+1, z+1)\n"
	"  + I(x+2, y+1, z+1) + I(x+1, y, z+1) + I(x+1, y+2, z+1) + I(x+1, y+1, z) + I(x+1, y+1, z+2))\n"
	"output out\n";

/* Seconds per stage point of pipeline text (2 params R, C; one image,
 * one output of nd dims: R x C (x C), the image 2 wider along each), the
 * best of 20 runs after one, on this rank (a blur's run is about 1 ms:
 * the best of 5 moved 2x from one calibration to the next); -1 if it
 * could not run. */
static double point_time(const char *text, int nd, int64_t R, int64_t C, int64_t points, int threads,
	pt_opt_level level)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_string(ctx, "calibrate", text);
	pt_options o = { .threads = threads, .opt_level = level };
	pt_program *prog = p ? pt_compile(ctx, p, &o) : NULL;
	int64_t ip[2] = { R, C }, ein[3] = { R + 2, C + 2, C + 2 }, eout[3] = { R, C, C };
	pt_buffer in = {0}, out = {0};
	double best = -1;
	if (prog && !pt_buffer_alloc(&in, PT_F32, nd, ein) && !pt_buffer_alloc(&out, PT_F32, nd, eout)) {
		const pt_buffer *ins[] = { &in };
		pt_buffer *outs[] = { &out };
		for (int i = 0; i < 21; i++) {
			double t0 = pt_mpi_wtime();
			if (pt_program_run(prog, ip, NULL, ins, outs))
				break;
			double t = pt_mpi_wtime() - t0;
			if (i > 0 && (best < 0 || t < best))
				best = t;
		}
	}
	pt_buffer_free(&in);
	pt_buffer_free(&out);
	pt_program_free(prog);
	pt_ctx_free(ctx);
	return best < 0 ? -1 : best / (double)points;
}

int pt_cli_calibrate(int argc, char **argv)
{
	const char *out = NULL;
	int threads = 0;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_calibrate, stdout);
			return 0;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			threads = atoi(argv[++i]);
		} else {
			return pt_cli_usage_error(usage_calibrate, "unknown argument '%s'", argv[i]);
		}
	}
	if (pt_cli_mpi_begin())
		return EXIT_USER;
	int rc = EXIT_USER;
	if (pt_cli_mpi_size() < 2) {
		fprintf(stderr, "polytile: calibrate: run it on 2 ranks (mpirun -np 2 polytile calibrate)\n");
	} else {
		double lat = pt_mpi_pingpong(8, 2000);
		/* 64 MiB, beyond the caches, as an output gathered to rank 0 is:
		 * 8 MiB messages, warm in L3, gave 4.6 GB/s on the 2-core test
		 * machine, where harris's 82 MB gather took 100 ms */
		double big = pt_mpi_pingpong(1 << 26, 5);
		double bw = big > lat ? (double)(1 << 26) / (big - lat) : -1;
		double pt = point_time(blur_text, 2, 2048, 2048, 2050 * 2048 + 2048 * 2048, threads, PT_OPT_GROUPED);
		double st = point_time(stream_text, 3, 320, 320, 320 * 320 * 320, threads, PT_OPT_NAIVE);
		int failed = lat <= 0 || bw <= 0 || pt <= 0 || st <= 0;
		if (!pt_cli_mpi_agree(failed, "to measure") && pt_cli_mpi_root()) {
			char *path = out ? strdup(out) : model_path();
			char text[256];
			snprintf(text, sizeof(text), "latency %.4g\nbandwidth %.4g\npoint_time %.4g\nstream_point_time %.4g\n",
				lat, bw, pt, st);
			if (path && !pt_cli_write_text(path, text)) {
				printf("latency %.3g s, bandwidth %.3g GB/s, %.3g ns per stage point in tiles, %.3g ns untiled: "
					"wrote %s\n", lat, bw / 1e9, pt * 1e9, st * 1e9, path);
				rc = 0;
			} else if (!path) {
				fprintf(stderr, "polytile: calibrate: no place for the model: give -o FILE\n");
			}
			free(path);
		} else if (!failed) {
			rc = 0;
		}
	}
	pt_cli_mpi_end();
	return rc;
}
#else
int pt_cli_calibrate(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "polytile: calibrate: this build of polytile has no mpi backend (build with meson configure "
		"-Dmpi=enabled)\n");
	return EXIT_USER;
}
#endif
