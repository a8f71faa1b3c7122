/* cli.h: what the commands of `polytile` (main.c, tune.c) share:
 * common.c, and tune.c's command. */
#ifndef PT_CLI_CLI_H
#define PT_CLI_CLI_H

#include <stdbool.h>

#include "polytile.h"

#define EXIT_USER 1
#define EXIT_USAGE 2

/* Prints "polytile: " fmt (with arg) and usage on stderr; EXIT_USAGE. */
int pt_cli_usage_error(const char *usage, const char *fmt, const char *arg);
/* Parses and checks path under opt (its dumps and times cover the
 * checks too), printing diagnostics; NULL on error. */
pt_pipeline *pt_cli_load(pt_ctx *ctx, const char *path, const pt_options *opt);
/* The same, leaving the diagnostics in ctx (printed by the caller). */
pt_pipeline *pt_cli_parse(pt_ctx *ctx, const char *path, const pt_options *opt);
/* Each param's estimate (1024 for an int param without one), declaration
 * order; caller frees. */
double *pt_cli_estimates(const pt_pipeline *p);
/* --param NAME=VALUE (a) into est[] (declaration order); 0, EXIT_USAGE
 * or EXIT_USER (a value the param's type refuses). */
int pt_cli_param(pt_ctx *ctx, const pt_pipeline *p, const char *a, double *est, const char *usage);
/* Writes text (n bytes) to path atomically; 0, or -1 after a message. */
int pt_cli_write_text(const char *path, const char *text);
int pt_cli_write_bytes(const char *path, const char *text, size_t n);

int pt_cli_tune(int argc, char **argv);

/* `run --backend mpi` (mpi.c): MPI started (0) or a message (-1); ended;
 * whether this is rank 0, and the ranks; every rank's agreement that
 * none failed step ("reading its inputs"): 0, or -1 on every rank, rank
 * 0 naming the one that failed. */
int pt_cli_mpi_begin(void);
void pt_cli_mpi_end(void);
bool pt_cli_mpi_root(void);
int pt_cli_mpi_size(void);
int pt_cli_mpi_agree(int failed, const char *step);
/* Whether this rank speaks for the last agreement's failure: rank 0, or
 * the rank that failed when rank 0 did not (so that a message every
 * rank has, such as a parse error, is printed once). */
bool pt_cli_mpi_speaks(void);
/* After a run, every rank: the bytes each rank sent and received in it,
 * printed by rank 0 when print. */
void pt_cli_mpi_bytes(bool print);
/* The auto strategy's costs from the file `polytile calibrate` wrote,
 * where there is one (calibrate.c); the command itself. */
void pt_cli_mpi_costs(pt_options *o);
int pt_cli_calibrate(int argc, char **argv);
/* mpi_run.c: rank 0's shapes of the images given (given[i]) to every
 * rank, whose bufs[i] (img[i] pointing at it) get no data; and the run
 * itself on every rank: img[i] whole on rank 0 where given, a shape
 * elsewhere; generated[i]: made by each rank for its part; npy[i] (not
 * NULL): a .npy file each rank reads its part of; the outputs
 * whole on rank 0 in outs[] (element 0 at origin[i]).  The run's time
 * (with the gather) in seconds, the bytes rank 0 scattered in
 * scattered; 0, -1 after a step failed (said), or the run's error. */
void pt_cli_mpi_shapes(pt_buffer *bufs, const pt_buffer **img, const bool *given, int n);
int pt_cli_mpi_run(pt_program *t, const pt_pipeline *p, const int64_t *ip, const double *fp, const pt_buffer **img,
	const bool *generated, const char *const *npy, pt_buffer *outs, int64_t (*origin)[PT_MAX_DIMS], double *seconds,
	int64_t *scattered);

#endif
