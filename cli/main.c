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
#include "ir.h"

#define EXIT_USER 1
#define EXIT_USAGE 2

static const char *const usage_main =
	"usage: polytile <command> [options]\n"
	"\n"
	"commands:\n"
	"  check FILE            validate a pipeline and list its stages\n"
	"  run FILE [options]    run a pipeline on inputs and write outputs\n"
	"  graph FILE -o OUT     draw the stage graph (OUT.svg, .png or .dot)\n"
	"\n"
	"`polytile <command> --help` describes each command.\n";

static const char *const usage_check =
	"usage: polytile check FILE\n"
	"\n"
	"Parses and checks FILE, prints each stage with its domain, type and\n"
	"producers, and a last line `N stages`.  Exit 0 if valid, 1 if not.\n";

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
	"  --backend interp     evaluate with the reference interpreter (the only\n"
	"                       backend in this version)\n"
	"  --quiet              print nothing but errors\n"
	"\n"
	"Conversions are described in docs/cli.md.\n";

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
static pt_pipeline *load(pt_ctx *ctx, const char *path)
{
	pt_pipeline *p = pt_parse_file(ctx, path);
	fputs(pt_ctx_diagnostics(ctx), stderr);
	return p;
}

static int cmd_check(int argc, char **argv)
{
	const char *file = NULL;
	for (int i = 0; i < argc; i++) {
		if (is_help(argv[i])) {
			fputs(usage_check, stdout);
			return 0;
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
	pt_pipeline *p = load(ctx, file);
	int rc = EXIT_USER;
	if (p) {
		char *d = pt_pipeline_describe(p);
		fputs(d, stdout);
		free(d);
		rc = 0;
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
	pt_pipeline *p = load(ctx, file);
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
	bool normalize, quiet;
} run_opts;

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
		int *n = NULL;
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
			if (strcmp(argv[++i], "interp"))
				return usage_error(usage_run, "--backend %s: this version has the `interp` backend only", argv[i]);
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

static int do_run(pt_ctx *ctx, pt_pipeline *p, run_opts *o)
{
	pt_interp *in = pt_interp_new(ctx, p);
	pt_buffer bufs[64];
	int nbufs = 0, rc = EXIT_USER;
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
	double t0 = now();
	if (pt_interp_run(in))
		goto out;
	double t1 = now();
	if (!o->quiet) {
		printf("ran %s (%d stage%s) with the interpreter in %.3f s%s", p->name, p->nstages,
			p->nstages == 1 ? "" : "s", t1 - t0, p->nparams ? "; params:" : "");
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
		const uint8_t *def;
		int64_t origin[PT_MAX_DIMS];
		const pt_buffer *b = pt_interp_result(in, stage, &def, origin);
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
	pt_pipeline *p = load(ctx, o.file);
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
	if (!strcmp(cmd, "graph"))
		return cmd_graph(argc - 2, argv + 2);
	return usage_error(usage_main, "unknown command '%s'", cmd);
}
