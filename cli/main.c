/* main.c: the `polytile` command: check, run, compile, graph, explain
 * (tune in tune.c).  It uses only the public API (polytile.h,
 * pt_runtime.h) and its own cli.h and convert.h.
 * Exit status: 0 success, 1 user error (bad pipeline, bad input file),
 * 2 usage error (bad command line). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "polytile.h"
#include "pt_runtime.h"
#include "pt_io.h"
#include "cli.h"
#include "convert.h"

static const char *const usage_main =
	"usage: polytile <command> [options]\n"
	"\n"
	"commands:\n"
	"  check FILE            validate a pipeline and list its stages\n"
	"  run FILE [options]    run a pipeline on inputs and write outputs\n"
	"  compile FILE -o NAME  compile to NAME.o and NAME.h (a C function NAME)\n"
	"  graph FILE -o OUT     draw the stage graph (OUT.svg, .png or .dot)\n"
	"  explain FILE          the optimizer's groups, tiles and storage\n"
	"  tune FILE             try the optimizer's tiles and thresholds, keep the best\n"
	"  calibrate             (under mpirun -np 2) measure messages and compute for\n"
	"                        the MPI target's model\n"
	"\n"
	"`polytile <command> --help` describes each command.\n";

static const char *const usage_check =
	"usage: polytile check FILE [--dump=PASS,..] [--time]\n"
	"\n"
	"Parses and checks FILE, prints each stage with its domain, type and\n"
	"producers, and a last line `N stages`.  Exit 0 if valid, 1 if not.\n"
	"\n"
	"  --dump=PASS[,PASS]   print what the checking passes produced instead\n"
	"                       (parse typecheck admissible cases bounds, or all)\n"
	"  --time               print the time of each pass\n";

static const char *const usage_run =
	"usage: polytile run FILE [options]\n"
	"\n"
	"  --param NAME=VALUE   set a param (repeatable); params not given are\n"
	"                       inferred from input extents, else their estimate\n"
	"  --in IMAGE=FILE      input from .png (8/16-bit gray, RGB, RGBA) or .npy\n"
	"                       (repeatable); images not given get a generated pattern\n"
	"  --out STAGE=FILE     write a stage to .png or .npy (repeatable); default:\n"
	"                       every output to STAGE.png in the current directory\n"
	"                       (STAGE.npy where a PNG cannot hold it)\n"
	"  --normalize          map PNG output values from their min..max\n"
	"  --backend B          compiled code run in-process (cpu, the default), the\n"
	"                       reference interpreter (interp), the CUDA target on\n"
	"                       an NVIDIA GPU (cuda), or its kernels emulated on the\n"
	"                       CPU (cuda-emu, for tests), or on every rank of an\n"
	"                       Open MPI job (mpi, under mpirun: docs/distributed.md)\n"
	"  --mpi-strategy S     how mpi ranks get what they read of each other's\n"
	"                       parts: auto (a model's choice, the default),\n"
	"                       communicate, recompute or replicate\n"
	"  --mpi-grid G         auto (the default), slabs or grid (see compile)\n"
	"  --mpi-steps K        auto (the default), all or N (see compile)\n"
	"  --threads N          threads of parallel loops (default: OMP_NUM_THREADS,\n"
	"                       else every core)\n"
	"  --compile-threads N  threads of LLVM's optimizer and code generator\n"
	"                       (default: one per core; same code whatever N)\n"
	"  --no-inline          keep point-wise stages as stages of their own\n"
	"  --target T           compile for TRIPLE[:CPU[:FEATURES]] (default: this CPU)\n"
	"  --dump=PASS[,PASS]   print what each compiler pass produced (see compile)\n"
	"  -O0 | -O1, --tile AxB, --overlap F, --config FILE, --separate-tiles,\n"
	"  --gpu-block XxY      the optimizer's options (see compile)\n"
	"  --reassociate        float reductions may be factored (see compile)\n"
	"  --time-tile K        steps per time tile (see compile)\n"
	"  --no-cache           compile without the compile cache (which keeps the\n"
	"                       objects of earlier runs in $PT_CACHE_DIR, else\n"
	"                       $XDG_CACHE_HOME/polytile, else ~/.cache/polytile)\n"
	"  --time               print the time of each compiler pass\n"
	"  --quiet              print nothing but errors\n"
	"\n"
	"Conversions are described in docs/cli.md.\n";

static const char *const usage_compile =
	"usage: polytile compile FILE -o NAME [options]\n"
	"\n"
	"Compiles FILE with the grouped schedule (stages fused into groups run\n"
	"in overlapped tiles in parallel, inner stages in scratchpads), or with\n"
	"-O0 the naive one (every stage over its domain, outer loops parallel,\n"
	"inner loops vectorized), to NAME.o and NAME.h: a C\n"
	"function NAME (NAME's file name must be a C identifier) that checks its\n"
	"buffers and runs the pipeline; link it with the runtime\n"
	"(pkg-config --libs polytile_rt).  The header documents each argument.\n"
	"\n"
	"  --emit=llvm          write the optimized LLVM IR to NAME.ll instead\n"
	"  --emit=ptx           with --backend cuda: write its kernels' PTX to NAME.ptx\n"
	"  --emit=c             print isl's AST of the schedule as C (for reading)\n"
	"  --dump=PASS[,PASS]   print what each pass produced (or all); without -o\n"
	"                       compiling stops after the last pass named.  Passes:\n"
	"                       parse typecheck admissible cases bounds inline\n"
	"                       statements group tiles dependences schedule storage\n"
	"                       ast llvm-ir optimize\n"
	"  --no-inline          keep point-wise stages as stages of their own\n"
	"  --target T           TRIPLE[:CPU[:FEATURES]] (default: this CPU)\n"
	"  --backend B          cpu (default); cuda (an NVIDIA GPU: the object embeds\n"
	"                       the kernels' PTX and loads the driver when called);\n"
	"                       cuda-emu (its kernels emulated on the CPU); mpi in\n"
	"                       builds with it\n"
	"  --mpi-strategy S     auto (default), communicate, recompute or replicate\n"
	"  --mpi-grid G         auto (under --mpi-strategy auto the model's choice,\n"
	"                       else slabs), slabs (each kernel split along one\n"
	"                       coordinate) or grid (along two where it can, on a\n"
	"                       grid of ranks)\n"
	"  --mpi-steps K        a time-iterated stage split between its steps\n"
	"                       exchanges its ghost zone every N steps, N deep;\n"
	"                       all: never (each rank recomputes from the first\n"
	"                       step); auto (default): communicate every step,\n"
	"                       recompute all, auto the model's choice\n"
	"  --mpi-outputs O      what auto plans for: outputs gathered on rank 0 by\n"
	"                       NAME (default), or local: kept distributed by the\n"
	"                       caller of NAME_local, so no gather to weigh\n"
	"  -O0 | -O1            naive schedule | the grouping optimizer (default)\n"
	"                       (also --optimize naive|grouped)\n"
	"  --tile AxB[x..]      tile sizes for the optimizer (default: the tile model's\n"
	"                       choice for this machine; fixed: 256, 32, 8)\n"
	"  --overlap F          the optimizer's overlap threshold, in [0, 1)\n"
	"  --gpu-block XxY      with --backend cuda: each tiled kernel's block of\n"
	"                       threads, X along the innermost tiled dim (default:\n"
	"                       the device model's choice, made with the tiles)\n"
	"  --config FILE        tile, overlap and block from a file (polytile tune -o)\n"
	"  --separate-tiles     generate full tiles apart from the partial ones at\n"
	"                       the borders (constant trip counts; longer compiles)\n"
	"  --reassociate        float reductions may be factored into partial results\n"
	"                       (parallel; their order of operations changes)\n"
	"  --time-tile K        a time-iterated stage in blocks of K steps, each in\n"
	"                       trapezoid tiles (1: step by step; default auto: the\n"
	"                       time tile model's choice)\n"
	"  --compile-threads N  threads of LLVM's optimizer and code generator\n"
	"                       (default: one per core; the object is the same)\n"
	"  --time               print the time of each pass\n";

static const char *const usage_graph =
	"usage: polytile graph FILE -o OUT [-O0 | [--tile AxB..] [--overlap F]]\n"
	"\n"
	"Writes the stage DAG: OUT.dot as Graphviz source, OUT.svg or OUT.png\n"
	"drawn with Graphviz's `dot`: the stages the default (-O1) compiles\n"
	"(after inlining), each group run in overlapped tiles drawn as a\n"
	"cluster; with -O0, every stage as written.\n";

static bool is_help(const char *a)
{
	return !strcmp(a, "--help") || !strcmp(a, "-h");
}

static int cmd_check(int argc, char **argv)
{
	const char *file = NULL;
	pt_options opt = {0};
	for (int i = 0; i < argc; i++) {
		if (is_help(argv[i])) {
			fputs(usage_check, stdout);
			return 0;
		}
		if (!strncmp(argv[i], "--dump=", 7)) {
			opt.dump = argv[i] + 7;
			continue;
		}
		if (!strcmp(argv[i], "--time")) {
			opt.time = true;
			continue;
		}
		if (argv[i][0] == '-' && argv[i][1])
			return pt_cli_usage_error(usage_check, "unknown option '%s'", argv[i]);
		if (file)
			return pt_cli_usage_error(usage_check, "unexpected argument '%s'", argv[i]);
		file = argv[i];
	}
	if (!file)
		return pt_cli_usage_error(usage_check, "missing FILE%s", "");
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_cli_load(ctx, file, &opt);
	int rc = p ? 0 : EXIT_USER;
	if (p && !opt.dump) {
		char *d = pt_pipeline_describe(p);
		if (!d)         /* out of memory, said in the ctx */
			rc = EXIT_USER;
		fputs(d ? d : pt_ctx_diagnostics(ctx), d ? stdout : stderr);
		free(d);
	}
	pt_ctx_free(ctx);
	return rc;
}

static const char *const usage_explain =
	"usage: polytile explain FILE [--param NAME=VALUE]... [--tile AxB..] [--overlap F]\n"
	"                        [--config FILE] [--no-inline] [--backend B] [--ranks N]\n"
	"                        [--gpu-block XxY]\n"
	"\n"
	"Prints what the optimizer (-O1) does with FILE at the params' estimates\n"
	"(or the --param values): without --tile, the machine the tile model\n"
	"plans for (caches, threads, vector width, and where each came from;\n"
	"PT_MACHINE=l1=32K,l2=1M,l3=32M,threads=2,vector=64 fixes any of them)\n"
	"and each tiled group's integer program and its solution; each group\n"
	"with its stages (* marks live-outs,\n"
	"kept in full buffers), tile size, overlap and its fraction of the tile\n"
	"per tiled dimension, each other stage's widening and scratchpad bytes,\n"
	"the merges refused and why, and the intermediate storage of the naive\n"
	"schedule against the grouped one.  --backend cuda adds each kernel's\n"
	"launch; --backend mpi how each kernel is shared among ranks and the\n"
	"bytes each rank sends and receives per run, the bytes of intermediate\n"
	"arrays each holds and the model's projection (points per rank,\n"
	"exchanges, predicted time and efficiency) on --ranks N ranks (default\n"
	"2, 3 and 4; the auto strategy's plan is for N ranks, 4 without it),\n"
	"--mpi-strategy auto|communicate|recompute|replicate, --mpi-grid\n"
	"auto|slabs|grid, --mpi-steps auto|all|N, --mpi-outputs gathered|local (see compile).\n";

static int parse_compiler_opt(int argc, char **argv, int *i, pt_options *o, const char *usage);

static int cmd_explain(int argc, char **argv)
{
	const char *file = NULL;
	pt_options opt = { .opt_level = PT_OPT_GROUPED };
	int nparams = 0, r;
	const char **params = calloc((size_t)argc + 1, sizeof(char *));
	for (int i = 0; i < argc; i++) {
		if (is_help(argv[i])) {
			fputs(usage_explain, stdout);
			free(params);
			return 0;
		}
		if (!strcmp(argv[i], "--param") && i + 1 < argc) {
			params[nparams++] = argv[++i];
		} else if (!strcmp(argv[i], "--ranks")) {
			char *end = NULL;
			long n = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
			if (!end || *end || n < 1 || n > 65536) {
				free(params);
				return pt_cli_usage_error(usage_explain, "--ranks %s: give a number of ranks from 1 to 65536",
					i + 1 < argc ? argv[i + 1] : "(nothing)");
			}
			opt.mpi_ranks = (int)n;
			i++;
		} else if ((r = parse_compiler_opt(argc, argv, &i, &opt, usage_explain))) {
			if (r != 1) {
				free(params);
				return r;
			}
		} else if ((argv[i][0] == '-' && argv[i][1]) || file) {
			free(params);
			return pt_cli_usage_error(usage_explain, "unexpected argument '%s'", argv[i]);
		} else {
			file = argv[i];
		}
	}
	if (!file) {
		free(params);
		return pt_cli_usage_error(usage_explain, "missing FILE%s", "");
	}
	if (opt.opt_level == PT_OPT_NAIVE) {
		free(params);
		return pt_cli_usage_error(usage_explain, "-O0: explain describes -O1's groups, tiles, storage and "
			"kernels; -O0 has none (every stage over its whole domain, in order)%s", "");
	}
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_cli_load(ctx, file, NULL);
	int rc = p ? 0 : EXIT_USER;
	double *est = p ? pt_cli_estimates(p) : NULL;
	for (int i = 0; p && !rc && i < nparams; i++)
		rc = pt_cli_param(ctx, p, params[i], est, usage_explain);
	if (p && !rc) {
		opt.estimates = est;
		if (opt.backend == PT_BACKEND_MPI)
			pt_cli_mpi_costs(&opt);
		char *text = pt_explain(ctx, p, &opt);
		if (text)
			fputs(text, stdout);
		else
			rc = EXIT_USER;
		free(text);
		fputs(pt_ctx_diagnostics(ctx), stderr);
	}
	free(est);
	free(params);
	pt_ctx_free(ctx);
	return rc;
}

/* Runs `dot -T<fmt> src` with its stdout into *out (*n bytes); dot's
 * status, or -1. */
static int run_dot(const char *fmt, const char *src, char **out, size_t *n)
{
	int pfd[2];
	if (pipe(pfd))
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		char t[16];
		snprintf(t, sizeof(t), "-T%s", fmt);
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		execlp("dot", "dot", t, src, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	size_t cap = 1 << 16;
	*out = malloc(cap);
	*n = 0;
	ssize_t k;
	while (*out && (k = read(pfd[0], *out + *n, cap - *n)) > 0)
		if ((*n += (size_t)k) == cap)
			*out = realloc(*out, cap *= 2);
	close(pfd[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return !*out ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Draws dot source with Graphviz into out: the source goes to a private
 * temporary file (mkstemp), the picture from dot's stdout to out,
 * atomically; dot never opens a path it could be tricked into. */
static int render_dot(const char *fmt, const char *dot, const char *out)
{
	const char *td = getenv("TMPDIR");
	size_t len = strlen(td && *td ? td : "/tmp") + 20;
	char *src = malloc(len), *pic = NULL;
	snprintf(src, len, "%s/pt-dot-XXXXXX", td && *td ? td : "/tmp");
	int fd = mkstemp(src), r = -1;
	size_t n = strlen(dot), got = 0;
	if (fd < 0 || write(fd, dot, n) != (ssize_t)n) {
		fprintf(stderr, "polytile: cannot write a temporary file for dot (%s): %s\n", src, strerror(errno));
	} else {
		close(fd);
		fd = -1;
		int st = run_dot(fmt, src, &pic, &got);
		if (st != 0)
			fprintf(stderr, "polytile: graphviz `dot` failed (status %d); is the graphviz package installed?\n", st);
		else
			r = pt_cli_write_bytes(out, pic, got);
	}
	if (fd >= 0)
		close(fd);
	remove(src);
	free(src);
	free(pic);
	return r;
}

static int cmd_graph(int argc, char **argv)
{
	const char *file = NULL, *out = NULL;
	pt_options opt = {0};
	int r;
	for (int i = 0; i < argc; i++) {
		if (is_help(argv[i])) {
			fputs(usage_graph, stdout);
			return 0;
		}
		if (!strcmp(argv[i], "-o")) {
			if (i + 1 >= argc)
				return pt_cli_usage_error(usage_graph, "-o needs a file name%s", "");
			out = argv[++i];
		} else if ((r = parse_compiler_opt(argc, argv, &i, &opt, usage_graph))) {
			if (r != 1)
				return r;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return pt_cli_usage_error(usage_graph, "unknown option '%s'", argv[i]);
		} else if (file) {
			return pt_cli_usage_error(usage_graph, "unexpected argument '%s'", argv[i]);
		} else {
			file = argv[i];
		}
	}
	if (!file || !out)
		return pt_cli_usage_error(usage_graph, "%s", !file ? "missing FILE" : "missing -o OUT");
	const char *fmt = pt_cli_has_suffix(out, ".svg") ? "svg" : pt_cli_has_suffix(out, ".png") ? "png" :
		pt_cli_has_suffix(out, ".dot") ? "dot" : NULL;
	if (!fmt)
		return pt_cli_usage_error(usage_graph, "-o %s: name the output .svg, .png or .dot", out);
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_cli_load(ctx, file, NULL);
	int rc = EXIT_USER;
	char *dot = !p ? NULL : opt.opt_level == PT_OPT_GROUPED ? pt_pipeline_dot_grouped(ctx, p, &opt) : pt_pipeline_dot(p);
	if (!dot)
		fputs(pt_ctx_diagnostics(ctx), stderr);
	if (dot) {
		int w = !strcmp(fmt, "dot") ? pt_cli_write_text(out, dot) : render_dot(fmt, dot, out);
		rc = w ? EXIT_USER : 0;
		free(dot);
		if (rc == 0)
			printf("wrote %s (%d stage%s)\n", out, pt_pipeline_stage_count(p),
				pt_pipeline_stage_count(p) == 1 ? "" : "s");
	}
	pt_ctx_free(ctx);
	return rc;
}

typedef struct binding {
	char *name;
	char *value;
} binding;

/* A growable list of NAME=VALUE options. */
typedef struct bindings {
	binding *v;
	int n;
} bindings;

/* Splits "NAME=VALUE" onto the end of list; false if there is no '=' or
 * either side is empty. */
static bool push_binding(bindings *list, const char *arg)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg || !eq[1])
		return false;
	binding *v = realloc(list->v, sizeof(*v) * (size_t)(list->n + 1));
	if (!v)
		return false;
	list->v = v;
	v[list->n].name = strndup(arg, (size_t)(eq - arg));
	v[list->n].value = strdup(eq + 1);
	list->n++;
	return true;
}

static void free_bindings(bindings *list)
{
	for (int i = 0; i < list->n; i++)
		free(list->v[i].name), free(list->v[i].value);
	free(list->v);
}

typedef struct run_opts {
	const char *file;
	bindings params, ins, outs;
	bool normalize, quiet, interp;
	pt_options copt;
} run_opts;

/* v's index in names (NULL-terminated), or -1. */
static int name_index(const char *v, const char *const *names)
{
	for (int k = 0; names[k]; k++)
		if (!strcmp(v, names[k]))
			return k;
	return -1;
}

/* Compiler options of a value given as --opt V or --opt=V. */
static int compiler_value_opt(const char *a, const char *v, pt_options *o, const char *usage)
{
	char *end;
	if (!strcmp(a, "--target")) {
		o->target = v;
	} else if (!strcmp(a, "--dump")) {
		o->dump = v;
	} else if (!strcmp(a, "--tile") && !strcmp(v, "fixed")) {
		o->ntile = 0;   /* the grouping's fixed sizes, not the tile model's */
		o->fixed_tiles = true;
	} else if (!strcmp(a, "--tile")) {
		o->fixed_tiles = false;
		if (!strcmp(v, "default") || pt_options_set(o, "tile", v, NULL, 0))
			return pt_cli_usage_error(usage, "--tile %s: give sizes like 32x256 (at most 8, each 1 to 1048576), "
				"or fixed", v);
	} else if (!strcmp(a, "--overlap")) {
		if (!strcmp(v, "default") || pt_options_set(o, "overlap", v, NULL, 0))
			return pt_cli_usage_error(usage, "--overlap %s: give a fraction in [0, 1), like 0.4", v);
	} else if (!strcmp(a, "--gpu-block")) {
		if (pt_options_set(o, "block", v, NULL, 0))
			return pt_cli_usage_error(usage, "--gpu-block %s: give threads like 32x8 (x along the innermost tiled "
				"dim, then y; at most 1024 in all), or default", v);
	} else if (!strcmp(a, "--config")) {
		char err[1024];
		if (pt_options_read_config(o, v, err, sizeof(err)))
			return pt_cli_usage_error(usage, "--config: %s", err);
		/* its per-group entries live until the command ends with the
		 * process; kept reachable for leak checkers */
		static void *volatile config_kept;
		config_kept = o->config_mem;
		(void)config_kept;
	} else if (!strcmp(a, "--optimize")) {
		if (strcmp(v, "naive") && strcmp(v, "grouped"))
			return pt_cli_usage_error(usage, "--optimize %s: choose naive or grouped", v);
		o->opt_level = !strcmp(v, "naive") ? PT_OPT_NAIVE : PT_OPT_GROUPED;
	} else if (!strcmp(a, "--mpi-outputs")) {
		if (strcmp(v, "gathered") && strcmp(v, "local"))
			return pt_cli_usage_error(usage, "--mpi-outputs %s: choose gathered or local", v);
		o->mpi_local_outputs = !strcmp(v, "local");
	} else if (!strcmp(a, "--mpi-grid")) {
		static const char *const names[] = { "auto", "slabs", "grid", NULL };
		int k = name_index(v, names);
		if (k < 0)
			return pt_cli_usage_error(usage, "--mpi-grid %s: choose auto, slabs or grid", v);
		o->mpi_grid = (pt_mpi_grid)k;
	} else if (!strcmp(a, "--time-tile")) {
		long n = !strcmp(v, "auto") ? 0 : strtol(v, &end, 10);
		if (strcmp(v, "auto") && (*end || end == v || n < 1 || n > 64))
			return pt_cli_usage_error(usage, "--time-tile %s: choose auto or a number of steps from 1 to 64", v);
		o->time_tile = (int)n;
	} else if (!strcmp(a, "--mpi-steps")) {
		long n = !strcmp(v, "auto") ? 0 : !strcmp(v, "all") ? -1 : strtol(v, &end, 10);
		if (strcmp(v, "auto") && strcmp(v, "all") && (*end || end == v || n < 1 || n > 1000000))
			return pt_cli_usage_error(usage, "--mpi-steps %s: choose auto, all or a number of steps from 1", v);
		o->mpi_steps = (int)n;
	} else if (!strcmp(a, "--mpi-strategy")) {
		static const char *const names[] = { "auto", "communicate", "recompute", "replicate", NULL };
		int k = name_index(v, names);
		if (k < 0)
			return pt_cli_usage_error(usage, "--mpi-strategy %s: choose auto, communicate, recompute or replicate", v);
		o->mpi_strategy = (pt_mpi_strategy)k;
	} else if (!strcmp(a, "--backend")) {
		if (!strcmp(v, "cpu") || !strcmp(v, "cuda") || !strcmp(v, "mpi") || !strcmp(v, "cuda-emu"))
			o->backend = !strcmp(v, "cpu") ? PT_BACKEND_CPU : !strcmp(v, "cuda") ? PT_BACKEND_CUDA :
				!strcmp(v, "mpi") ? PT_BACKEND_MPI : PT_BACKEND_CUDA_EMU;
		else
			return pt_cli_usage_error(usage, "--backend %s: choose cpu, cuda, cuda-emu or mpi", v);
	} else {
		long n = strtol(v, &end, 10);
		bool compiler = !strcmp(a, "--compile-threads");
		if (*end || end == v || n < 1 || n > 4096)
			return pt_cli_usage_error(usage, compiler ? "--compile-threads %s: give a number of threads from 1 to 4096" :
				"--threads %s: give a number of threads from 1 to 4096", v);
		*(compiler ? &o->compile_threads : &o->threads) = (int)n;
	}
	return 1;
}

/* Compiler options shared by run and compile; 1 if a was one (and its
 * value consumed), 0 if not, or EXIT_USAGE. */
static int parse_compiler_opt(int argc, char **argv, int *i, pt_options *o, const char *usage)
{
	static const char *const valued[] = {"--threads", "--target", "--dump", "--tile", "--overlap", "--backend",
		"--optimize", "--config", "--compile-threads", "--gpu-block", "--mpi-strategy", "--mpi-outputs", "--mpi-grid",
		"--mpi-steps", "--time-tile"};
	const char *a = argv[*i];
	if (!strcmp(a, "--no-inline")) {
		o->no_inline = true;
		return 1;
	}
	if (!strcmp(a, "--separate-tiles")) {
		o->separate_tiles = true;
		return 1;
	}
	if (!strcmp(a, "--reassociate")) {
		o->reassociate = true;
		return 1;
	}
	if (!strcmp(a, "--time")) {
		o->time = true;
		return 1;
	}
	if (!strcmp(a, "-O0") || !strcmp(a, "-O1")) {
		o->opt_level = a[2] == '0' ? PT_OPT_NAIVE : PT_OPT_GROUPED;
		return 1;
	}
	for (size_t k = 0; k < sizeof(valued) / sizeof(valued[0]); k++) {
		size_t n = strlen(valued[k]);
		if (strncmp(a, valued[k], n) || (a[n] && a[n] != '='))
			continue;
		if (a[n] == '=')
			return compiler_value_opt(valued[k], a + n + 1, o, usage);
		if (*i + 1 >= argc)
			return pt_cli_usage_error(usage, "%s needs a value", a);
		return compiler_value_opt(valued[k], argv[++*i], o, usage);
	}
	return 0;
}

static void free_opts(run_opts *o)
{
	free_bindings(&o->params);
	free_bindings(&o->ins);
	free_bindings(&o->outs);
}

/* The options of `run` that are not the compiler's; 1 if a was one (and
 * its value consumed), 0 if not, -1 for --help, or EXIT_USAGE. */
static int parse_run_opt(int argc, char **argv, int *i, run_opts *o)
{
	const char *a = argv[*i];
	bindings *list = NULL;
	if (is_help(a)) {
		fputs(usage_run, stdout);
		return -1;
	}
	if (!strcmp(a, "--normalize") || !strcmp(a, "--quiet")) {
		*(a[2] == 'n' ? &o->normalize : &o->quiet) = true;
		return 1;
	}
	if (!strcmp(a, "--no-cache")) {
		o->copt.cache = false;
		return 1;
	}
	if (!strcmp(a, "--backend")) {
		if (*i + 1 >= argc)
			return pt_cli_usage_error(usage_run, "--backend needs a value%s", "");
		const char *v = argv[++*i];
		o->interp = !strcmp(v, "interp");
		if (o->interp)
			return 1;
		if (strcmp(v, "cpu") && strcmp(v, "cuda") && strcmp(v, "mpi") && strcmp(v, "cuda-emu"))
			return pt_cli_usage_error(usage_run, "--backend %s: choose cpu, interp, cuda, cuda-emu or mpi", v);
		return compiler_value_opt("--backend", v, &o->copt, usage_run);
	}
	if (!strcmp(a, "--param"))
		list = &o->params;
	else if (!strcmp(a, "--in"))
		list = &o->ins;
	else if (!strcmp(a, "--out"))
		list = &o->outs;
	else
		return 0;
	if (*i + 1 >= argc)
		return pt_cli_usage_error(usage_run, "%s needs NAME=VALUE", a);
	if (!push_binding(list, argv[++*i]))
		return pt_cli_usage_error(usage_run, "expected NAME=VALUE after %s", a);
	return 1;
}

static int parse_run_args(int argc, char **argv, run_opts *o)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		int r = parse_run_opt(argc, argv, &i, o);
		if (r == 0)
			r = parse_compiler_opt(argc, argv, &i, &o->copt, usage_run);
		if (r == 1)
			continue;
		if (r)
			return r;
		if (a[0] == '-' && a[1])
			return pt_cli_usage_error(usage_run, "unknown option '%s'", a);
		if (o->file)
			return pt_cli_usage_error(usage_run, "unexpected argument '%s'", a);
		o->file = a;
	}
	if (!o->file)
		return pt_cli_usage_error(usage_run, "missing FILE%s", "");
	for (int i = 0; i < o->outs.n; i++)
		if (!pt_cli_has_suffix(o->outs.v[i].value, ".png") && !pt_cli_has_suffix(o->outs.v[i].value, ".npy"))
			return pt_cli_usage_error(usage_run, "--out %s: name the file .png or .npy", o->outs.v[i].value);
	return 0;
}

/* Which dimension of a 3-D image holds PNG channels: 0 or 2 when that
 * extent is a literal 1..4, else -1. */
static int channel_dim(const pt_pipeline *p, int im, int *channels)
{
	int64_t v;
	if (pt_pipeline_image_ndim(p, im) != 3)
		return -1;
	for (int d = 0; d <= 2; d += 2)
		if (pt_pipeline_image_extent_const(p, im, d, &v) && v >= 1 && v <= 4) {
			*channels = (int)v;
			return d;
		}
	return -1;
}

/* The same for a 3-D stage: the dimension whose bounds are literals
 * spanning 1 to 4 values. */
static int stage_channel_dim(const pt_pipeline *p, int s)
{
	int64_t lo, hi;
	if (pt_pipeline_stage_ndim(p, s) != 3)
		return -1;
	for (int d = 0; d <= 2; d += 2)
		if (pt_pipeline_stage_bounds_const(p, s, d, &lo, &hi) && hi - lo >= 0 && hi - lo <= 3)
			return d;
	return -1;
}

/* Reads the file of --in b for image im into buf, converted to its
 * type; shape_only: a .npy file's shape alone (its type the image's:
 * each MPI rank reads and converts its part, mpi_run.c). */
static int load_input(const pt_pipeline *p, int im, const binding *b, pt_buffer *buf, bool shape_only)
{
	char err[8192] = "";
	int r, nch = 0;
	pt_type t = pt_pipeline_image_type(p, im);
	if (pt_cli_has_suffix(b->value, ".png")) {
		int cd = channel_dim(p, im, &nch);
		r = pt_cli_load_png(b->value, t, pt_pipeline_image_ndim(p, im), cd, nch, buf, err, sizeof(err));
	} else if (pt_cli_has_suffix(b->value, ".npy") && shape_only) {
		r = pt_npy_read_shape(b->value, buf, err, sizeof(err));
		buf->type = t;
	} else if (pt_cli_has_suffix(b->value, ".npy")) {
		r = pt_cli_load_npy(b->value, t, buf, err, sizeof(err));
	} else {
		fprintf(stderr, "polytile: --in %s=%s: inputs are .png or .npy files\n", b->name, b->value);
		return -1;
	}
	if (r) {
		fprintf(stderr, "polytile: --in %s: %s\n", b->name, err);
		return -1;
	}
	return 0;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One `polytile run`: the params (declaration order), the inputs (per
 * image; given[i] when bound) and, compiled, the outputs (ABI order). */
typedef struct run {
	pt_ctx *ctx;
	const pt_pipeline *p;
	const run_opts *o;
	int nparams, nimages, nouts;
	double *values;
	bool *known;
	pt_buffer *bufs;
	const pt_buffer **img;
	pt_buffer *outs;
	int64_t (*origin)[PT_MAX_DIMS];
	pt_interp *in;
	double seconds;
	bool mpi;           /* one rank of --backend mpi */
	/* under mpi: images bound by --in (read by rank 0 alone, a .npy
	 * file's header only: each rank reads its part, npy[i] the file)
	 * and those generated (by each rank for its part); rank 0's bytes
	 * scattered */
	bool *given, *generated;
	const char **npy;
	int64_t scattered;
} run;

static void run_init(run *r, pt_ctx *ctx, const pt_pipeline *p, const run_opts *o)
{
	memset(r, 0, sizeof(*r));
	r->ctx = ctx;
	r->p = p;
	r->o = o;
	r->nparams = pt_pipeline_param_count(p);
	r->nimages = pt_pipeline_image_count(p);
	r->nouts = pt_pipeline_output_count(p);
	r->mpi = !o->interp && o->copt.backend == PT_BACKEND_MPI;
	r->values = calloc((size_t)r->nparams + 1, sizeof(*r->values));
	r->known = calloc((size_t)r->nparams + 1, sizeof(*r->known));
	r->bufs = calloc((size_t)r->nimages + 1, sizeof(*r->bufs));
	r->img = calloc((size_t)r->nimages + 1, sizeof(*r->img));
	r->outs = calloc((size_t)r->nouts + 1, sizeof(*r->outs));
	r->origin = calloc((size_t)r->nouts + 1, sizeof(*r->origin));
	r->given = calloc((size_t)r->nimages + 1, sizeof(bool));
	r->generated = calloc((size_t)r->nimages + 1, sizeof(bool));
	r->npy = calloc((size_t)r->nimages + 1, sizeof(*r->npy));
	if (!r->values || !r->known || !r->bufs || !r->img || !r->outs || !r->origin || !r->given || !r->generated ||
		!r->npy) {
		fprintf(stderr, "polytile: out of memory\n");
		exit(EXIT_USER);
	}
}

static void run_free(run *r)
{
	pt_interp_free(r->in);
	for (int i = 0; i < r->nimages; i++)
		pt_buffer_free(&r->bufs[i]);
	for (int i = 0; i < r->nouts; i++)
		pt_buffer_free(&r->outs[i]);
	free(r->values);
	free(r->known);
	free(r->bufs);
	free(r->img);
	free(r->outs);
	free(r->origin);
	free(r->given);
	free(r->generated);
	free(r->npy);
}

/* Whether param q is an int (its value in run.values is an integer). */
static bool is_int_param(const pt_pipeline *p, int q)
{
	pt_type t = pt_pipeline_param_type(p, q);
	return t == PT_I32 || t == PT_I64;
}

/* The --param values, checked against their params' types. */
static int set_params(run *r)
{
	const bindings *b = &r->o->params;
	for (int i = 0; i < b->n; i++) {
		char *end;
		double v = strtod(b->v[i].value, &end);
		if (*end || end == b->v[i].value) {
			fprintf(stderr, "polytile: --param %s=%s: not a number\n", b->v[i].name, b->v[i].value);
			return -1;
		}
		int q = pt_pipeline_param_index(r->p, b->v[i].name);
		if (pt_param_check(r->ctx, r->p, b->v[i].name, v, q >= 0 ? &r->values[q] : &v)) {
			fprintf(stderr, "polytile: --param %s=%s:\n", b->v[i].name, b->v[i].value);
			return -1;
		}
		r->known[q] = true;
	}
	return 0;
}

/* The --in files, each checked against its image's type and rank. */
static int load_inputs(run *r)
{
	const bindings *b = &r->o->ins;
	for (int k = 0; k < b->n; k++) {
		int i = pt_pipeline_image_index(r->p, b->v[k].name);
		if (i < 0) {
			fprintf(stderr, "polytile: --in %s: pipeline '%s' has no image named '%s'\n",
				b->v[k].name, pt_pipeline_name(r->p), b->v[k].name);
			return -1;
		}
		pt_buffer_free(&r->bufs[i]);
		r->img[i] = NULL;
		if (load_input(r->p, i, &b->v[k], &r->bufs[i], r->mpi))
			return -1;
		if (pt_check_input(r->ctx, r->p, i, &r->bufs[i])) {
			fprintf(stderr, "polytile: --in %s=%s: the file does not fit the image\n", b->v[k].name, b->v[k].value);
			return -1;
		}
		r->img[i] = &r->bufs[i];
	}
	return 0;
}

/* A test pattern for each image without --in, at the extents the params
 * give. */
static int generate_inputs(run *r)
{
	for (int i = 0; i < r->nimages; i++) {
		const char *name = pt_pipeline_image_name(r->p, i);
		int ndim = pt_pipeline_image_ndim(r->p, i);
		pt_type t = pt_pipeline_image_type(r->p, i);
		int64_t ext[PT_MAX_DIMS];
		double total = 1;
		if (r->img[i])
			continue;
		if (pt_pipeline_image_extents(r->p, i, r->values, ext))
			return -1;
		for (int d = 0; d < ndim; d++)
			total *= (double)ext[d];
		if (total > 4e9) {
			fprintf(stderr, "polytile: image '%s' would have %.3g elements; set smaller params (--param)\n",
				name, total);
			return -1;
		}
		for (int d = 0; d < ndim; d++)
			if (ext[d] < 0 || ext[d] > (1 << 20)) {
				fprintf(stderr, "polytile: image '%s' would have extent %lld; set the params (--param)\n",
					name, (long long)ext[d]);
				return -1;
			}
		if (r->mpi) {
			/* each rank makes its part when it runs (mpi_run.c) */
			pt_buffer *b = &r->bufs[i];
			memset(b, 0, sizeof(*b));
			b->type = t;
			b->ndim = ndim;
			memcpy(b->extent, ext, sizeof(int64_t) * (size_t)ndim);
			r->generated[i] = true;
		} else if (pt_cli_generate(t, ndim, ext, &r->bufs[i])) {
			fprintf(stderr, "polytile: out of memory generating '%s'\n", name);
			return -1;
		}
		r->img[i] = &r->bufs[i];
		if (!r->o->quiet) {
			printf("input %s: generated pattern", name);
			for (int d = 0; d < ndim; d++)
				printf("%s%lld", d ? " x " : " ", (long long)ext[d]);
			printf(" %s\n", pt_type_name(t));
		}
	}
	return 0;
}

/* The memory guard: what the run will allocate at these params (the
 * images to generate, every stage's buffer: the interpreter keeps them
 * all with a byte per point saying whether it is defined; for compiled
 * code the intermediate stages are an upper bound, inlining and tiling
 * keep fewer) against pt_memory_available, before allocating any. */
static int check_memory(const run *r)
{
	bool *given = calloc((size_t)r->nimages + 1, sizeof(bool));
	for (int i = 0; given && i < r->nimages; i++)
		given[i] = r->img[i] != NULL;
	/* shared with `tune` (pt_pipeline_run_bytes); an extent that cannot
	 * be evaluated is reported by generate_inputs */
	double need = given ? pt_pipeline_run_bytes(r->p, r->values, given, r->o->interp ? 1 : 0) : -1;
	free(given);
	if (need < 0)
		return 0;
	char why[256];
	if (pt_memory_check(need, why, sizeof(why)) == PT_OK)
		return 0;
	fprintf(stderr, "polytile: this run %s (its generated inputs, outputs and intermediate stages at these params); "
		"set smaller params or give smaller inputs\n", why);
	return -1;
}

/* The --in files, for messages about what they gave. */
static void print_inputs(const run *r)
{
	const bindings *b = &r->o->ins;
	for (int k = 0; k < b->n; k++)
		fprintf(stderr, "%s--in %s=%s", k ? ", " : " (from ", b->v[k].name, b->v[k].value);
	fprintf(stderr, "%s", b->n ? ")" : "");
}

/* Compiled code needs every image extent and stage at least 1 point (it
 * would return PT_ERR_PARAM): say which stage the params empty. */
static int check_nonempty(const run *r)
{
	int64_t *ip = calloc((size_t)r->nparams + 1, sizeof(*ip));
	for (int q = 0; q < r->nparams; q++)
		ip[q] = is_int_param(r->p, q) ? (int64_t)r->values[q] : 0;
	int bad = -1, dim = 0;
	for (int s = 0; bad < 0 && s < pt_pipeline_stage_count(r->p); s++) {
		int64_t lo[PT_MAX_DIMS], ext[PT_MAX_DIMS];
		int nd = pt_pipeline_stage_box(r->p, s, ip, lo, ext);
		for (int d = 0; d < nd && bad < 0; d++)
			if (ext[d] < 1) {
				bad = s;
				dim = d;
			}
	}
	free(ip);
	if (bad < 0)
		return 0;
	fprintf(stderr, "polytile: stage '%s' has no point in dimension %d with params",
		pt_pipeline_stage_name(r->p, bad), dim + 1);
	for (int q = 0; q < r->nparams; q++)
		if (is_int_param(r->p, q))
			fprintf(stderr, " %s=%lld", pt_pipeline_param_name(r->p, q), (long long)r->values[q]);
	print_inputs(r);
	fprintf(stderr, "; compiled code needs every stage non-empty (--backend interp runs it)\n");
	return -1;
}

/* Every --out names a stage; compiled code keeps only outputs. */
static int check_outs(const run *r)
{
	const bindings *b = &r->o->outs;
	const char *pn = pt_pipeline_name(r->p);
	for (int i = 0; i < b->n; i++)
		if (pt_pipeline_stage_index(r->p, b->v[i].name) < 0) {
			fprintf(stderr, "polytile: --out %s: pipeline '%s' has no stage named '%s'\n",
				b->v[i].name, pn, b->v[i].name);
			return -1;
		}
	for (int i = 0; !r->o->interp && i < b->n; i++)
		if (!pt_pipeline_stage_is_output(r->p, pt_pipeline_stage_index(r->p, b->v[i].name))) {
			fprintf(stderr, "polytile: --out %s: '%s' is not an output; compiled code keeps only outputs "
				"(write it with --backend interp, or declare `output %s`)\n",
				b->v[i].name, b->v[i].name, b->v[i].name);
			return -1;
		}
	return 0;
}

/* Evaluates the pipeline with the reference interpreter. */
static int run_interp(run *r)
{
	r->in = pt_interp_new(r->ctx, r->p);
	if (!r->in)             /* out of memory, said in the ctx */
		return -1;
	for (int q = 0; q < r->nparams; q++)
		if (pt_interp_set_param(r->in, pt_pipeline_param_name(r->p, q), r->values[q]))
			return -1;
	for (int i = 0; i < r->nimages; i++)
		if (pt_interp_set_input(r->in, pt_pipeline_image_name(r->p, i), r->img[i]))
			return -1;
	double t0 = now();
	if (pt_interp_run(r->in))
		return -1;
	r->seconds = now() - t0;
	return 0;
}

/* Allocates each output at its box under int params ip. */
static int alloc_outputs(run *r, const int64_t *ip)
{
	for (int i = 0; i < r->nouts; i++) {
		const char *name = pt_pipeline_output_name(r->p, i);
		int s = pt_pipeline_stage_index(r->p, name), ndim = pt_pipeline_stage_ndim(r->p, s);
		int64_t ext[PT_MAX_DIMS];
		double total = 1;
		pt_pipeline_output_box(r->p, i, ip, r->origin[i], ext);
		for (int d = 0; d < ndim; d++)
			total *= (double)(ext[d] > 0 ? ext[d] : 0);
		if (total > 4e9 || pt_buffer_alloc(&r->outs[i], pt_pipeline_stage_type(r->p, s), ndim, ext)) {
			fprintf(stderr, "polytile: output '%s' (%.3g points) does not fit in memory; set smaller params\n",
				name, total);
			return -1;
		}
	}
	return 0;
}

/* Compiles the pipeline and runs it on the inputs; the outputs go to
 * r->outs in ABI order. */
static int run_compiled(run *r)
{
	int64_t *ip = calloc((size_t)r->nparams + 1, sizeof(*ip));
	pt_buffer **outp = calloc((size_t)r->nouts + 1, sizeof(*outp));
	int rc = -1;
	for (int q = 0; ip && q < r->nparams; q++)
		/* a float param's value may be NaN or past any integer: only
		 * int params (range-checked when set) are converted */
		ip[q] = is_int_param(r->p, q) ? (int64_t)r->values[q] : 0;
	for (int i = 0; outp && i < r->nouts; i++)
		outp[i] = &r->outs[i];
	pt_program *prog = NULL;
	/* under mpi, the outputs are whole on rank 0 alone */
	bool ready = ip && outp && !pt_check_inputs(r->ctx, r->p, r->img, r->values) &&
		((r->mpi && !pt_cli_mpi_root()) || !alloc_outputs(r, ip));
	/* under mpi, rank 0 compiles first and the others then find its
	 * object in the compile cache (where it is on and they share it):
	 * one compile, not one per rank on the same cores */
	bool first = !r->mpi || pt_cli_mpi_root();
	if (ready && first)
		prog = pt_compile(r->ctx, r->p, &r->o->copt);
	bool stop = r->mpi && pt_cli_mpi_agree(first && !prog, "to compile");
	if (ready && !first && !stop)
		prog = pt_compile(r->ctx, r->p, &r->o->copt);
	if (r->mpi && !stop && pt_cli_mpi_agree(!prog, "to compile")) {
		pt_program_free(prog);
		prog = NULL;
	}
	int nt = r->o->copt.threads;
	if (prog && nt > 0) {
		/* started now, so that threads the system refuses are said here */
		pt_set_num_threads(nt);
		int got = pt_start_threads();
		if (got < nt)
			fprintf(stderr, "polytile: --threads %d: running on %d threads (%s)\n", nt, got,
				got == PT_MAX_THREADS ? "the most the runtime uses" : "the system refused to create more");
	}
	if (prog) {
		double t0 = now();
		int e = r->mpi ? pt_cli_mpi_run(prog, r->p, ip, r->values, r->img, r->generated, r->npy, r->outs,
			r->origin, &r->seconds, &r->scattered) : pt_program_run(prog, ip, r->values, r->img, outp);
		if (!r->mpi)
			r->seconds = now() - t0;
		pt_program_free(prog);
		if (e && (!r->mpi || pt_cli_mpi_root())) {
			const char *what = pt_rt_error_detail();
			fprintf(stderr, "polytile: the compiled pipeline failed: %s%s%s\n", pt_error_name(e), *what ? ": " : "", what);
		}
		rc = e ? -1 : 0;
	}
	free(ip);
	free(outp);
	return rc;
}

/* "ran NAME (N stages) ... in T s; params: R=.. C=.." */
static void print_ran(const run *r)
{
	int n = pt_pipeline_stage_count(r->p);
	printf("ran %s (%d stage%s) %s in %.3f s", pt_pipeline_name(r->p), n, n == 1 ? "" : "s",
		r->o->interp ? "with the interpreter" : r->o->copt.backend == PT_BACKEND_CUDA_EMU ? "compiled for the GPU, emulated on the CPU" :
		r->o->copt.backend == PT_BACKEND_CUDA ? "compiled for the GPU (CUDA)" : r->mpi ? "compiled for MPI ranks" :
		"compiled for the cpu", r->seconds);
	if (r->mpi)
		printf(" on %d rank%s", pt_cli_mpi_size(), pt_cli_mpi_size() == 1 ? "" : "s");
	printf("%s", r->nparams ? "; params:" : "");
	for (int q = 0; q < r->nparams; q++)
		if (is_int_param(r->p, q))   /* exact, not 3e+09 */
			printf(" %s=%lld", pt_pipeline_param_name(r->p, q), (long long)r->values[q]);
		else
			printf(" %s=%g", pt_pipeline_param_name(r->p, q), r->values[q]);
	printf("\n");
}

/* Writes stage to path: the interpreter's buffer with its defined points,
 * or a compiled output (points no case defines stay 0). */
static int write_output(const run *r, const char *stage, const char *path)
{
	const uint8_t *def = NULL;
	uint8_t *ones = NULL;
	int64_t origin[PT_MAX_DIMS] = {0};
	const pt_buffer *b = NULL;
	if (r->o->interp) {
		b = pt_interp_result(r->in, stage, &def, origin);
	} else {
		for (int k = 0; k < r->nouts; k++)
			if (!strcmp(pt_pipeline_output_name(r->p, k), stage)) {
				b = &r->outs[k];
				memcpy(origin, r->origin[k], sizeof(origin));
			}
		ones = malloc((size_t)pt_buffer_count(b) + 1);
		if (!ones) {
			fprintf(stderr, "polytile: --out %s: out of memory for the output's %lld points\n",
				stage, (long long)pt_buffer_count(b));
			return EXIT_USER;
		}
		memset(ones, 1, (size_t)pt_buffer_count(b) + 1);
		def = ones;
	}
	char err[8192] = "";
	int rc = pt_cli_save(path, b, def, stage_channel_dim(r->p, pt_pipeline_stage_index(r->p, stage)),
		r->o->normalize, err, sizeof(err));
	free(ones);
	if (rc) {
		fprintf(stderr, "polytile: --out %s: %s\n", stage, err);
		return EXIT_USER;
	}
	if (!r->o->quiet) {
		printf("wrote %s: %s", path, stage);
		for (int d = 0; d < b->ndim; d++)
			printf("%s%lld..%lld", d ? " x " : " ", (long long)origin[d],
				(long long)(origin[d] + b->extent[d] - 1));
		printf(" %s\n", pt_type_name(b->type));
	}
	return 0;
}

/* The --out files, or every output to STAGE.png (STAGE.npy where a PNG
 * cannot hold it). */
static int write_outputs(const run *r)
{
	const bindings *b = &r->o->outs;
	int rc = 0;
	for (int i = 0; i < b->n; i++)
		if (write_output(r, b->v[i].name, b->v[i].value))
			rc = EXIT_USER;
	for (int s = 0; !b->n && s < pt_pipeline_stage_count(r->p); s++) {
		if (!pt_pipeline_stage_is_output(r->p, s))
			continue;
		const char *stage = pt_pipeline_stage_name(r->p, s);
		char *path = malloc(strlen(stage) + 5);
		/* .npy where a PNG cannot hold it (3-D without channels, 4-D) */
		int nd = pt_pipeline_stage_ndim(r->p, s);
		sprintf(path, "%s.%s", stage, nd <= 2 || stage_channel_dim(r->p, s) >= 0 ? "png" : "npy");
		if (write_output(r, stage, path))
			rc = EXIT_USER;
		free(path);
	}
	return rc;
}

static int do_run(pt_ctx *ctx, const pt_pipeline *p, const run_opts *o)
{
	run r;
	run_init(&r, ctx, p, o);
	int rc = EXIT_USER;
	/* under mpi rank 0 alone reads the files; the others take their shapes */
	bool ready = !set_params(&r) && ((r.mpi && !pt_cli_mpi_root()) || !load_inputs(&r));
	if (r.mpi && (ready = !pt_cli_mpi_agree(!ready, "to read the inputs"))) {
		for (int k = 0; k < o->ins.n; k++) {
			int i = pt_pipeline_image_index(p, o->ins.v[k].name);
			r.given[i] = true;
			if (pt_cli_has_suffix(o->ins.v[k].value, ".npy"))
				r.npy[i] = o->ins.v[k].value;
		}
		pt_cli_mpi_shapes(r.bufs, r.img, r.given, r.nimages);
	}
	ready = ready && !pt_infer_params(ctx, p, r.img, r.values, r.known) && !check_memory(&r) &&
	    !generate_inputs(&r) && !check_outs(&r) && (o->interp || !check_nonempty(&r));
	if (r.mpi)
		ready = !pt_cli_mpi_agree(!ready, "before the run");
	if (ready && !(o->interp ? run_interp(&r) : run_compiled(&r))) {
		if (!o->quiet && r.scattered)
			printf("inputs scattered from rank 0: %lld bytes\n", (long long)r.scattered);
		if (!o->quiet)
			print_ran(&r);
		if (r.mpi)
			pt_cli_mpi_bytes(!o->quiet);
		/* the outputs are whole on rank 0 only */
		rc = r.mpi && !pt_cli_mpi_root() ? 0 : write_outputs(&r);
	}
	fputs(pt_ctx_diagnostics(ctx), stderr);
	pt_ctx_clear_diagnostics(ctx);
	run_free(&r);
	return rc;
}

static int cmd_compile(int argc, char **argv)
{
	const char *file = NULL, *out = NULL, *emit = NULL;
	pt_options opt = {0};
	for (int i = 0; i < argc; i++) {
		int r;
		if (is_help(argv[i])) {
			fputs(usage_compile, stdout);
			return 0;
		}
		if (!strcmp(argv[i], "-o")) {
			if (i + 1 >= argc)
				return pt_cli_usage_error(usage_compile, "-o needs a name%s", "");
			out = argv[++i];
		} else if (!strncmp(argv[i], "--emit=", 7)) {
			emit = argv[i] + 7;
			if (strcmp(emit, "llvm") && strcmp(emit, "c") && strcmp(emit, "ptx"))
				return pt_cli_usage_error(usage_compile, "--emit=%s: choose llvm, ptx or c", emit);
		} else if ((r = parse_compiler_opt(argc, argv, &i, &opt, usage_compile))) {
			if (r != 1)
				return r;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return pt_cli_usage_error(usage_compile, "unknown option '%s'", argv[i]);
		} else if (file) {
			return pt_cli_usage_error(usage_compile, "unexpected argument '%s'", argv[i]);
		} else {
			file = argv[i];
		}
	}
	if (!file)
		return pt_cli_usage_error(usage_compile, "missing FILE%s", "");
	if (opt.threads)
		return pt_cli_usage_error(usage_compile, "--threads is for `run`; a compiled function uses "
			"pt_set_num_threads() or OMP_NUM_THREADS%s", "");
	if (!out && !(emit && !strcmp(emit, "c")) && !opt.dump)
		return pt_cli_usage_error(usage_compile, "missing -o NAME%s", "");
	/* -o names the function (and NAME.h): refused before any work */
	const char *fname = out ? strrchr(out, '/') : NULL, *why;
	fname = fname ? fname + 1 : out;
	if (out && !(emit && !strcmp(emit, "c")) && (why = pt_function_name_reserved(fname))) {
		fprintf(stderr, "polytile: -o %s: the function would be named '%s', which is %s: "
			"name the output like -o out/harris\n", out, fname, why);
		return EXIT_USAGE;
	}
	if (opt.backend == PT_BACKEND_MPI)
		pt_cli_mpi_costs(&opt);
	pt_ctx *ctx = pt_ctx_new();
	double t0 = now();
	pt_pipeline *p = pt_cli_load(ctx, file, &opt);
	pt_ctx_clear_diagnostics(ctx);
	int rc = EXIT_USER;
	if (p && !out && !emit) {
		/* dumps only: the passes up to the last one asked for */
		rc = pt_run_passes(ctx, p, &opt, NULL) ? EXIT_USER : 0;
	} else if (p && emit && !strcmp(emit, "c")) {
		char *text = pt_emit_c(ctx, p, &opt);
		if (text) {
			fputs(text, stdout);
			rc = 0;
		}
		free(text);
	} else if (p && emit) {
		const char *slash = strrchr(out, '/');
		bool ptx = !strcmp(emit, "ptx");
		char *text = ptx ? pt_emit_ptx(ctx, p, &opt, slash ? slash + 1 : out) :
			pt_emit_llvm(ctx, p, &opt, slash ? slash + 1 : out);
		char *path = malloc(strlen(out) + 5);
		sprintf(path, "%s.%s", out, ptx ? "ptx" : "ll");
		if (text && !pt_cli_write_text(path, text))
			rc = 0;
		free(path);
		free(text);
	} else if (p) {
		rc = pt_compile_files(ctx, p, &opt, out) ? EXIT_USER : 0;
	}
	if (opt.time)
		fprintf(stderr, "polytile: %-10s %8.1f ms\n", "total", (now() - t0) * 1e3);
	fputs(pt_ctx_diagnostics(ctx), stderr);
	pt_ctx_free(ctx);
	return rc;
}

static int cmd_run(int argc, char **argv)
{
	run_opts o;
	memset(&o, 0, sizeof(o));
	o.copt.cache = true;   /* the compile cache, unless --no-cache */
	int r = parse_run_args(argc, argv, &o);
	if (r) {
		free_opts(&o);
		return r < 0 && r != EXIT_USAGE ? 0 : r;
	}
	bool mpi = !o.interp && o.copt.backend == PT_BACKEND_MPI;
	if (o.copt.mpi_local_outputs) {
		free_opts(&o);
		return pt_cli_usage_error(usage_run, "--mpi-outputs local: run gathers the outputs on rank 0 (the option "
			"is for compile and explain, for callers of NAME_local)%s", "");
	}
	if (mpi && pt_cli_mpi_begin()) {
		free_opts(&o);
		return EXIT_USER;
	}
	if (mpi && !pt_cli_mpi_root())
		o.quiet = true;   /* rank 0 speaks for all */
	if (mpi) {
		/* the auto strategy chooses for the ranks it runs on */
		o.copt.mpi_ranks = pt_cli_mpi_size();
		pt_cli_mpi_costs(&o.copt);
	}
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_cli_parse(ctx, o.file, &o.copt);
	int rc = EXIT_USER;
	bool go = !mpi || !pt_cli_mpi_agree(!p, "to load the pipeline");
	/* every rank reads the same file: its messages once, from rank 0 or
	 * from the one rank that failed */
	if (!mpi || pt_cli_mpi_speaks())
		fputs(pt_ctx_diagnostics(ctx), stderr);
	pt_ctx_clear_diagnostics(ctx);
	if (go)
		rc = p ? do_run(ctx, p, &o) : EXIT_USER;
	pt_ctx_free(ctx);
	free_opts(&o);
	if (mpi)
		pt_cli_mpi_end();
	return rc;
}

int main(int argc, char **argv)
{
	/* past `ulimit -f` a write fails with EFBIG, which names the file and
	 * lets the temporary be removed, instead of killing us mid-file */
	signal(SIGXFSZ, SIG_IGN);
	if (argc < 2)
		return pt_cli_usage_error(usage_main, "missing command%s", "");
	const char *cmd = argv[1];
	if (is_help(cmd)) {
		fputs(usage_main, stdout);
		return 0;
	}
	if (!strcmp(cmd, "check"))
		return cmd_check(argc - 2, argv + 2);
	if (!strcmp(cmd, "run"))
		return cmd_run(argc - 2, argv + 2);
	if (!strcmp(cmd, "compile"))
		return cmd_compile(argc - 2, argv + 2);
	if (!strcmp(cmd, "graph"))
		return cmd_graph(argc - 2, argv + 2);
	if (!strcmp(cmd, "explain"))
		return cmd_explain(argc - 2, argv + 2);
	if (!strcmp(cmd, "tune"))
		return pt_cli_tune(argc - 2, argv + 2);
	if (!strcmp(cmd, "calibrate"))
		return pt_cli_calibrate(argc - 2, argv + 2);
	return pt_cli_usage_error(usage_main, "unknown command '%s'", cmd);
}
