/* main.c: the `polytile` command: check, run, graph.
 * Exit status: 0 success, 1 user error (bad pipeline, bad input file),
 * 2 usage error (bad command line). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "polytile.h"
#include "convert.h"
#include "image_io.h"
#include "ir.h"

#define EXIT_USER 1
#define EXIT_USAGE 2

static const char *const usage_main =
	"usage: polytile <command> [options]\n"
	"\n"
	"commands:\n"
	"  check FILE            validate a pipeline and list its stages\n"
	"  run FILE [options]    run a pipeline on inputs and write outputs\n"
	"  compile FILE -o NAME  compile to NAME.o and NAME.h (a C function NAME)\n"
	"  graph FILE -o OUT     draw the stage graph (OUT.svg, .png or .dot)\n"
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
	"  --normalize          map PNG output values from their min..max\n"
	"  --backend cpu|interp compiled code run in-process (cpu, the default) or\n"
	"                       the reference interpreter (interp)\n"
	"  --threads N          threads of parallel loops (default: OMP_NUM_THREADS,\n"
	"                       else every core)\n"
	"  --no-inline          keep point-wise stages as stages of their own\n"
	"  --target T           compile for TRIPLE[:CPU[:FEATURES]] (default: this CPU)\n"
	"  --dump=PASS[,PASS]   print what each compiler pass produced (see compile)\n"
	"  -O0 | -O1, --tile AxB, --overlap F   the optimizer's options (see compile)\n"
	"  --time               print the time of each compiler pass\n"
	"  --quiet              print nothing but errors\n"
	"\n"
	"Conversions are described in docs/cli.md.\n";

static const char *const usage_compile =
	"usage: polytile compile FILE -o NAME [options]\n"
	"\n"
	"Compiles FILE with the naive schedule (every stage over its domain,\n"
	"outer loops parallel, inner loops vectorized) to NAME.o and NAME.h: a C\n"
	"function NAME (NAME's file name must be a C identifier) that checks its\n"
	"buffers and runs the pipeline; link it with the runtime\n"
	"(pkg-config --libs polytile_rt).  The header documents each argument.\n"
	"\n"
	"  --emit=llvm          write the optimized LLVM IR to NAME.ll instead\n"
	"  --emit=c             print isl's AST of the schedule as C (for reading)\n"
	"  --dump=PASS[,PASS]   print what each pass produced (or all); without -o\n"
	"                       compiling stops after the last pass named.  Passes:\n"
	"                       parse typecheck admissible cases bounds inline\n"
	"                       statements dependences schedule ast llvm-ir optimize\n"
	"  --no-inline          keep point-wise stages as stages of their own\n"
	"  --target T           TRIPLE[:CPU[:FEATURES]] (default: this CPU)\n"
	"  --backend B          cpu (default); cuda and mpi in builds with them\n"
	"  -O0 | -O1            naive schedule (default) | the grouping optimizer\n"
	"  --tile AxB[x..]      tile sizes for the optimizer (default: its choice)\n"
	"  --overlap F          the optimizer's overlap threshold, in [0, 1)\n"
	"  --time               print the time of each pass\n";

static const char *const usage_graph =
	"usage: polytile graph FILE -o OUT\n"
	"\n"
	"Writes the stage DAG: OUT.dot as Graphviz source, OUT.svg or OUT.png\n"
	"drawn with Graphviz's `dot`.\n";

static int usage_error(const char *usage, const char *fmt, const char *arg)
{
	fprintf(stderr, "polytile: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n\n%s", usage);
	return EXIT_USAGE;
}

static bool is_help(const char *a)
{
	return !strcmp(a, "--help") || !strcmp(a, "-h");
}

/* Parses FILE and prints diagnostics; NULL on error. */
/* Parses and checks path under opt (its dumps and times cover the
 * checks too). */
static pt_pipeline *load(pt_ctx *ctx, const char *path, const pt_options *opt)
{
	pt_pipeline *p = pt_ctx_set_options(ctx, opt) ? NULL : pt_parse_file(ctx, path);
	fputs(pt_ctx_diagnostics(ctx), stderr);
	return p;
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
			return usage_error(usage_check, "unknown option '%s'", argv[i]);
		if (file)
			return usage_error(usage_check, "unexpected argument '%s'", argv[i]);
		file = argv[i];
	}
	if (!file)
		return usage_error(usage_check, "missing FILE%s", "");
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = load(ctx, file, &opt);
	int rc = p ? 0 : EXIT_USER;
	if (p && !opt.dump) {
		char *d = pt_pipeline_describe(p);
		fputs(d, stdout);
		free(d);
	}
	pt_ctx_free(ctx);
	return rc;
}

/* Writes text to path (atomically: temp file then rename). */
static int write_text(const char *path, const char *text)
{
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.tmp-%ld", path, (long)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		fprintf(stderr, "polytile: cannot write '%s': %s\n", path, strerror(errno));
		if (f)
			remove(tmp);
		return -1;
	}
	if (rename(tmp, path)) {
		fprintf(stderr, "polytile: cannot write '%s': %s\n", path, strerror(errno));
		remove(tmp);
		return -1;
	}
	return 0;
}

/* Runs `dot -T<fmt> -o out dotfile`; 0 on success. */
static int run_dot(const char *fmt, const char *dotfile, const char *out)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char t[16];
		snprintf(t, sizeof(t), "-T%s", fmt);
		execlp("dot", "dot", t, "-o", out, dotfile, (char *)NULL);
		_exit(127);
	}
	int st;
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int cmd_graph(int argc, char **argv)
{
	const char *file = NULL, *out = NULL;
	for (int i = 0; i < argc; i++) {
		if (is_help(argv[i])) {
			fputs(usage_graph, stdout);
			return 0;
		}
		if (!strcmp(argv[i], "-o")) {
			if (i + 1 >= argc)
				return usage_error(usage_graph, "-o needs a file name%s", "");
			out = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return usage_error(usage_graph, "unknown option '%s'", argv[i]);
		} else if (file) {
			return usage_error(usage_graph, "unexpected argument '%s'", argv[i]);
		} else {
			file = argv[i];
		}
	}
	if (!file || !out)
		return usage_error(usage_graph, "%s", !file ? "missing FILE" : "missing -o OUT");
	const char *fmt = pt_cli_has_suffix(out, ".svg") ? "svg" : pt_cli_has_suffix(out, ".png") ? "png" :
		pt_cli_has_suffix(out, ".dot") ? "dot" : NULL;
	if (!fmt)
		return usage_error(usage_graph, "-o %s: name the output .svg, .png or .dot", out);
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = load(ctx, file, NULL);
	int rc = EXIT_USER;
	if (p) {
		char *dot = pt_pipeline_dot(p);
		if (!strcmp(fmt, "dot")) {
			rc = write_text(out, dot) ? EXIT_USER : 0;
		} else {
			char tmp[4096];
			snprintf(tmp, sizeof(tmp), "%s.dot-%ld", out, (long)getpid());
			if (!write_text(tmp, dot)) {
				int r = run_dot(fmt, tmp, out);
				if (r == 0)
					rc = 0;
				else
					fprintf(stderr, "polytile: graphviz `dot` failed (status %d); is the graphviz package installed?\n", r);
				remove(tmp);
			}
		}
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

/* Splits "NAME=VALUE"; false if there is no '=' or either side is empty. */
static bool split_binding(const char *arg, binding *b)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg || !eq[1])
		return false;
	b->name = strndup(arg, (size_t)(eq - arg));
	b->value = strdup(eq + 1);
	return true;
}

typedef struct run_opts {
	const char *file;
	binding params[64], ins[64], outs[64];
	int nparams, nins, nouts;
	bool normalize, quiet, interp;
	pt_options copt;
} run_opts;

/* "32x256" into o->tile; false if malformed. */
static bool parse_tiles(const char *v, pt_options *o)
{
	o->ntile = 0;
	for (const char *s = v;; s++) {
		char *end;
		long n = strtol(s, &end, 10);
		if (end == s || n < 1 || n > 1 << 20 || o->ntile == PT_MAX_TILE_DIMS)
			return false;
		o->tile[o->ntile++] = (int)n;
		if (!*end)
			return true;
		if (*end != 'x')
			return false;
		s = end;
	}
}

/* Compiler options of a value given as --opt V or --opt=V. */
static int compiler_value_opt(const char *a, const char *v, pt_options *o, const char *usage)
{
	char *end;
	if (!strcmp(a, "--target")) {
		o->target = v;
	} else if (!strcmp(a, "--dump")) {
		o->dump = v;
	} else if (!strcmp(a, "--tile")) {
		if (!parse_tiles(v, o))
			return usage_error(usage, "--tile %s: give sizes like 32x256 (at most 8, each >= 1)", v);
	} else if (!strcmp(a, "--overlap")) {
		o->overlap = strtod(v, &end);
		if (*end || end == v || !(o->overlap >= 0 && o->overlap < 1))
			return usage_error(usage, "--overlap %s: give a fraction in [0, 1), like 0.4", v);
	} else if (!strcmp(a, "--backend")) {
		if (!strcmp(v, "cpu") || !strcmp(v, "cuda") || !strcmp(v, "mpi"))
			o->backend = !strcmp(v, "cpu") ? PT_BACKEND_CPU : !strcmp(v, "cuda") ? PT_BACKEND_CUDA : PT_BACKEND_MPI;
		else
			return usage_error(usage, "--backend %s: choose cpu, cuda or mpi", v);
	} else {
		long n = strtol(v, &end, 10);
		if (*end || end == v || n < 1 || n > 4096)
			return usage_error(usage, "--threads %s: give a number of threads from 1 to 4096", v);
		o->threads = (int)n;
	}
	return 1;
}

/* Compiler options shared by run and compile; 1 if a was one (and its
 * value consumed), 0 if not, or EXIT_USAGE. */
static int parse_compiler_opt(int argc, char **argv, int *i, pt_options *o, const char *usage)
{
	static const char *const valued[] = {"--threads", "--target", "--dump", "--tile", "--overlap", "--backend"};
	const char *a = argv[*i];
	if (!strcmp(a, "--no-inline")) {
		o->no_inline = true;
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
			return usage_error(usage, "%s needs a value", a);
		return compiler_value_opt(valued[k], argv[++*i], o, usage);
	}
	return 0;
}

static void free_opts(run_opts *o)
{
	for (int i = 0; i < o->nparams; i++)
		free(o->params[i].name), free(o->params[i].value);
	for (int i = 0; i < o->nins; i++)
		free(o->ins[i].name), free(o->ins[i].value);
	for (int i = 0; i < o->nouts; i++)
		free(o->outs[i].name), free(o->outs[i].value);
}

static int parse_run_args(int argc, char **argv, run_opts *o)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		binding *list = NULL;
		int *n = NULL, r;
		if (is_help(a)) {
			fputs(usage_run, stdout);
			return -1;
		}
		if (!strcmp(a, "--param")) {
			list = o->params;
			n = &o->nparams;
		} else if (!strcmp(a, "--in")) {
			list = o->ins;
			n = &o->nins;
		} else if (!strcmp(a, "--out")) {
			list = o->outs;
			n = &o->nouts;
		} else if (!strcmp(a, "--normalize")) {
			o->normalize = true;
			continue;
		} else if (!strcmp(a, "--quiet")) {
			o->quiet = true;
			continue;
		} else if (!strcmp(a, "--backend")) {
			if (i + 1 >= argc)
				return usage_error(usage_run, "--backend needs a value%s", "");
			if (!strcmp(argv[++i], "interp"))
				o->interp = true;
			else if (!strcmp(argv[i], "cpu") || !strcmp(argv[i], "cuda") || !strcmp(argv[i], "mpi"))
				o->interp = compiler_value_opt("--backend", argv[i], &o->copt, usage_run) != 1;
			else
				return usage_error(usage_run, "--backend %s: choose cpu, interp, cuda or mpi", argv[i]);
			continue;
		} else if ((r = parse_compiler_opt(argc, argv, &i, &o->copt, usage_run))) {
			if (r != 1)
				return r;
			continue;
		} else if (a[0] == '-' && a[1]) {
			return usage_error(usage_run, "unknown option '%s'", a);
		} else {
			if (o->file)
				return usage_error(usage_run, "unexpected argument '%s'", a);
			o->file = a;
			continue;
		}
		if (i + 1 >= argc)
			return usage_error(usage_run, "%s needs NAME=VALUE", a);
		if (*n == 64)
			return usage_error(usage_run, "too many %s options", a);
		if (!split_binding(argv[++i], &list[*n]))
			return usage_error(usage_run, "expected NAME=VALUE after %s", a);
		(*n)++;
	}
	if (!o->file)
		return usage_error(usage_run, "missing FILE%s", "");
	for (int i = 0; i < o->nouts; i++)
		if (!pt_cli_has_suffix(o->outs[i].value, ".png") && !pt_cli_has_suffix(o->outs[i].value, ".npy"))
			return usage_error(usage_run, "--out %s: name the file .png or .npy", o->outs[i].value);
	return 0;
}

/* Which dimension of a 3-D image holds PNG channels: 0 or 2 when that
 * extent is a literal 1..4, else -1. */
static int channel_dim(const pt_image *im)
{
	if (im->ndim != 3)
		return -1;
	for (int d = 0; d <= 2; d += 2)
		if (im->extent[d]->kind == PT_E_INT && im->extent[d]->ival >= 1 && im->extent[d]->ival <= 4)
			return d;
	return -1;
}

/* The same for a 3-D stage: the dimension whose bounds are literals
 * spanning 1 to 4 values. */
static int stage_channel_dim(const pt_stage *s)
{
	if (s->ndim != 3)
		return -1;
	for (int d = 0; d <= 2; d += 2) {
		const pt_interval *iv = &s->dom[d];
		if (iv->lo->kind == PT_E_INT && iv->hi->kind == PT_E_INT &&
		    iv->hi->ival - iv->lo->ival >= 0 && iv->hi->ival - iv->lo->ival <= 3)
			return d;
	}
	return -1;
}

static int load_input(pt_pipeline *p, const binding *b, pt_buffer *buf)
{
	pt_image *im = pt_pipeline_find_image(p, b->name);
	if (!im) {
		fprintf(stderr, "polytile: --in %s: pipeline '%s' has no image named '%s'\n", b->name, p->name, b->name);
		return -1;
	}
	char err[1024] = "";
	int r;
	if (pt_cli_has_suffix(b->value, ".png"))
	{
		int cd = channel_dim(im);
		int nch = cd >= 0 ? (int)im->extent[cd]->ival : 0;
		r = pt_cli_load_png(b->value, (pt_type)im->type, im->ndim, cd, nch, buf, err, sizeof(err));
	}
	else if (pt_cli_has_suffix(b->value, ".npy"))
		r = pt_cli_load_npy(b->value, (pt_type)im->type, buf, err, sizeof(err));
	else {
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

/* Compiles p and runs it on the bound inputs (params from in); the
 * outputs go to outs[] in ABI order. */
static int run_compiled(pt_ctx *ctx, pt_pipeline *p, pt_interp *in, run_opts *o,
	const pt_buffer **img, pt_buffer *outs, int64_t (*origin)[PT_MAX_DIMS])
{
	int64_t ip[256] = {0};
	double fp[256] = {0};
	if (p->nparams > 256 || p->nimages > 64 || pt_pipeline_output_count(p) > 64) {
		fprintf(stderr, "polytile: `run` takes at most 256 params, 64 images and 64 outputs; "
			"call the function of `polytile compile` from C instead\n");
		return -1;
	}
	for (int q = 0; q < p->nparams; q++) {
		double v = 0;
		pt_interp_get_param(in, p->params[q].name, &v);
		ip[q] = (int64_t)v;
		fp[q] = v;
	}
	if (pt_interp_check_inputs(in))
		return -1;
	int nout = pt_pipeline_output_count(p);
	for (int i = 0; i < nout; i++) {
		const pt_stage *s = pt_pipeline_find_stage(p, pt_pipeline_output_name(p, i));
		int64_t ext[PT_MAX_DIMS];
		double total = 1;
		pt_pipeline_output_box(p, i, ip, origin[i], ext);
		for (int d = 0; d < s->ndim; d++)
			total *= (double)(ext[d] > 0 ? ext[d] : 0);
		if (total > 4e9 || pt_buffer_alloc(&outs[i], (pt_type)s->type, s->ndim, ext)) {
			fprintf(stderr, "polytile: output '%s' (%.3g points) does not fit in memory; set smaller params\n",
				s->name, total);
			return -1;
		}
	}
	pt_program *prog = pt_compile(ctx, p, &o->copt);
	if (!prog)
		return -1;
	double t0 = now();
	pt_buffer *outp[64];
	for (int i = 0; i < nout; i++)
		outp[i] = &outs[i];
	int r = pt_program_run(prog, ip, fp, img, outp);
	double t1 = now();
	pt_program_free(prog);
	if (r) {
		fprintf(stderr, "polytile: the compiled pipeline failed: %s\n", pt_error_name(r));
		return -1;
	}
	if (!o->quiet)
		printf("ran %s (%d stage%s) compiled for the cpu in %.3f s", p->name, p->nstages,
			p->nstages == 1 ? "" : "s", t1 - t0);
	return 0;
}

static int do_run(pt_ctx *ctx, pt_pipeline *p, run_opts *o)
{
	pt_interp *in = pt_interp_new(ctx, p);
	pt_buffer bufs[64], outs[64];
	const pt_buffer *img[64] = {0};
	int64_t origin_of[64][PT_MAX_DIMS];
	uint8_t *ones = NULL;
	int nbufs = 0, nouts = 0, rc = EXIT_USER;
	memset(outs, 0, sizeof(outs));
	for (int i = 0; i < o->nparams; i++) {
		char *end;
		double v = strtod(o->params[i].value, &end);
		if (*end || end == o->params[i].value) {
			fprintf(stderr, "polytile: --param %s=%s: not a number\n", o->params[i].name, o->params[i].value);
			goto out;
		}
		if (pt_interp_set_param(in, o->params[i].name, v)) {
			fprintf(stderr, "polytile: --param %s=%s:\n", o->params[i].name, o->params[i].value);
			goto out;
		}
	}
	for (int i = 0; i < o->nins; i++) {
		if (load_input(p, &o->ins[i], &bufs[nbufs]))
			goto out;
		nbufs++;
		if (pt_interp_set_input(in, o->ins[i].name, &bufs[nbufs - 1]))
			goto out;
		int id = pt_pipeline_find_image(p, o->ins[i].name)->id;
		if (id < 64)
			img[id] = &bufs[nbufs - 1];
	}
	if (pt_interp_infer_params(in))
		goto out;
	for (int i = 0; i < p->nimages && nbufs < 64; i++) {
		pt_image *im = p->images[i];
		bool given = false;
		for (int k = 0; k < o->nins; k++)
			given = given || !strcmp(o->ins[k].name, im->name);
		if (given)
			continue;
		int64_t ext[PT_MAX_DIMS];
		if (pt_interp_image_extents(in, im->name, ext))
			goto out;
		double total = 1;
		for (int d = 0; d < im->ndim; d++)
			total *= (double)ext[d];
		if (total > 4e9) {
			fprintf(stderr, "polytile: image '%s' would have %.3g elements; set smaller params (--param)\n",
				im->name, total);
			goto out;
		}
		for (int d = 0; d < im->ndim; d++)
			if (ext[d] < 0 || ext[d] > (1 << 20)) {
				fprintf(stderr, "polytile: image '%s' would have extent %lld; set the params (--param)\n",
					im->name, (long long)ext[d]);
				goto out;
			}
		if (pt_cli_generate((pt_type)im->type, im->ndim, ext, &bufs[nbufs])) {
			fprintf(stderr, "polytile: out of memory generating '%s'\n", im->name);
			goto out;
		}
		nbufs++;
		pt_interp_set_input(in, im->name, &bufs[nbufs - 1]);
		if (im->id < 64)
			img[im->id] = &bufs[nbufs - 1];
		if (!o->quiet) {
			printf("input %s: generated pattern", im->name);
			for (int d = 0; d < im->ndim; d++)
				printf("%s%lld", d ? " x " : " ", (long long)ext[d]);
			printf(" %s\n", pt_ir_type_name(im->type));
		}
	}
	for (int i = 0; i < o->nouts; i++)
		if (!pt_pipeline_find_stage(p, o->outs[i].name)) {
			fprintf(stderr, "polytile: --out %s: pipeline '%s' has no stage named '%s'\n",
				o->outs[i].name, p->name, o->outs[i].name);
			goto out;
		}
	if (!o->interp)
		for (int i = 0; i < o->nouts; i++)
			if (!pt_pipeline_find_stage(p, o->outs[i].name)->is_output) {
				fprintf(stderr, "polytile: --out %s: '%s' is not an output; compiled code keeps only outputs "
					"(write it with --backend interp, or declare `output %s`)\n",
					o->outs[i].name, o->outs[i].name, o->outs[i].name);
				goto out;
			}
	if (o->interp) {
		double t0 = now();
		if (pt_interp_run(in))
			goto out;
		double t1 = now();
		if (!o->quiet)
			printf("ran %s (%d stage%s) with the interpreter in %.3f s", p->name, p->nstages,
				p->nstages == 1 ? "" : "s", t1 - t0);
	} else {
		nouts = pt_pipeline_output_count(p);
		if (run_compiled(ctx, p, in, o, img, outs, origin_of))
			goto out;
	}
	if (!o->quiet) {
		printf("%s", p->nparams ? "; params:" : "");
		for (int i = 0; i < p->nparams; i++) {
			double v = 0;
			pt_interp_get_param(in, p->params[i].name, &v);
			printf(" %s=%g", p->params[i].name, v);
		}
		printf("\n");
	}
	rc = 0;
	binding defaults[64];
	int ndef = 0;
	if (o->nouts == 0)
		for (int i = 0; i < p->nstages && ndef < 64; i++)
			if (p->stages[i]->is_output) {
				defaults[ndef].name = p->stages[i]->name;
				defaults[ndef].value = NULL;
				ndef++;
			}
	int nw = o->nouts ? o->nouts : ndef;
	for (int i = 0; i < nw; i++) {
		const char *stage = o->nouts ? o->outs[i].name : defaults[i].name;
		char path[4096];
		if (o->nouts)
			snprintf(path, sizeof(path), "%s", o->outs[i].value);
		else
			snprintf(path, sizeof(path), "%s.png", stage);
		const uint8_t *def = NULL;
		int64_t origin[PT_MAX_DIMS];
		const pt_buffer *b = NULL;
		if (o->interp) {
			b = pt_interp_result(in, stage, &def, origin);
		} else {
			/* compiled outputs: points no case defines stay 0 */
			for (int k = 0; k < nouts; k++)
				if (!strcmp(pt_pipeline_output_name(p, k), stage)) {
					b = &outs[k];
					memcpy(origin, origin_of[k], sizeof(origin));
				}
			free(ones);
			ones = malloc((size_t)pt_buffer_count(b) + 1);
			memset(ones, 1, (size_t)pt_buffer_count(b) + 1);
			def = ones;
		}
		char err[1024] = "";
		if (pt_cli_save(path, b, def, stage_channel_dim(pt_pipeline_find_stage(p, stage)),
				o->normalize, err, sizeof(err))) {
			fprintf(stderr, "polytile: --out %s: %s\n", stage, err);
			rc = EXIT_USER;
			continue;
		}
		if (!o->quiet) {
			printf("wrote %s: %s", path, stage);
			for (int d = 0; d < b->ndim; d++)
				printf("%s%lld..%lld", d ? " x " : " ", (long long)origin[d],
					(long long)(origin[d] + b->extent[d] - 1));
			printf(" %s\n", pt_type_name(b->type));
		}
	}
out:
	fputs(pt_ctx_diagnostics(ctx), stderr);
	pt_ctx_clear_diagnostics(ctx);
	pt_interp_free(in);
	for (int i = 0; i < nbufs; i++)
		pt_buffer_free(&bufs[i]);
	for (int i = 0; i < nouts; i++)
		pt_buffer_free(&outs[i]);
	free(ones);
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
				return usage_error(usage_compile, "-o needs a name%s", "");
			out = argv[++i];
		} else if (!strncmp(argv[i], "--emit=", 7)) {
			emit = argv[i] + 7;
			if (strcmp(emit, "llvm") && strcmp(emit, "c"))
				return usage_error(usage_compile, "--emit=%s: choose llvm or c", emit);
		} else if ((r = parse_compiler_opt(argc, argv, &i, &opt, usage_compile))) {
			if (r != 1)
				return r;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return usage_error(usage_compile, "unknown option '%s'", argv[i]);
		} else if (file) {
			return usage_error(usage_compile, "unexpected argument '%s'", argv[i]);
		} else {
			file = argv[i];
		}
	}
	if (!file)
		return usage_error(usage_compile, "missing FILE%s", "");
	if (opt.threads)
		return usage_error(usage_compile, "--threads is for `run`; a compiled function uses "
			"pt_set_num_threads() or OMP_NUM_THREADS%s", "");
	if (!out && !(emit && !strcmp(emit, "c")) && !opt.dump)
		return usage_error(usage_compile, "missing -o NAME%s", "");
	pt_ctx *ctx = pt_ctx_new();
	double t0 = now();
	pt_pipeline *p = load(ctx, file, &opt);
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
		char *text = pt_emit_llvm(ctx, p, &opt, slash ? slash + 1 : out);
		char path[4096];
		snprintf(path, sizeof(path), "%s.ll", out);
		if (text && !write_text(path, text))
			rc = 0;
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
	int r = parse_run_args(argc, argv, &o);
	if (r) {
		free_opts(&o);
		return r < 0 && r != EXIT_USAGE ? 0 : r;
	}
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = load(ctx, o.file, &o.copt);
	pt_ctx_clear_diagnostics(ctx);
	int rc = p ? do_run(ctx, p, &o) : EXIT_USER;
	pt_ctx_free(ctx);
	free_opts(&o);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage_error(usage_main, "missing command%s", "");
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
	return usage_error(usage_main, "unknown command '%s'", cmd);
}
