/* common.c: what the commands share (cli.h): usage errors, loading a
 * pipeline, --param, estimates, writing text files.  main.c and tune.c
 * both call it; it calls neither. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polytile.h"
#include "pt_runtime.h"
#include "pt_io.h"
#include "cli.h"

int pt_cli_usage_error(const char *usage, const char *fmt, const char *arg)
{
	char shown[600];   /* an argument echoed: no terminal escapes */
	fprintf(stderr, "polytile: ");
	fprintf(stderr, fmt, pt_text_escape(arg, shown, sizeof(shown)));
	fprintf(stderr, "\n\n%s", usage);
	return EXIT_USAGE;
}

pt_pipeline *pt_cli_parse(pt_ctx *ctx, const char *path, const pt_options *opt)
{
	return pt_ctx_set_options(ctx, opt) ? NULL : pt_parse_file(ctx, path);
}

pt_pipeline *pt_cli_load(pt_ctx *ctx, const char *path, const pt_options *opt)
{
	pt_pipeline *p = pt_cli_parse(ctx, path, opt);
	fputs(pt_ctx_diagnostics(ctx), stderr);
	return p;
}

double *pt_cli_estimates(const pt_pipeline *p)
{
	double *est = calloc((size_t)pt_pipeline_param_count(p) + 1, sizeof(double));
	for (int q = 0; q < pt_pipeline_param_count(p); q++)
		if (!pt_pipeline_param_estimate(p, q, &est[q]))
			est[q] = 1024;
	return est;
}

int pt_cli_param(pt_ctx *ctx, const pt_pipeline *p, const char *a, double *est, const char *usage)
{
	const char *eq = strchr(a, '=');
	char *end;
	if (!eq)
		return pt_cli_usage_error(usage, "expected NAME=VALUE after --param, not '%s'", a);
	char name[256];
	snprintf(name, sizeof(name), "%.*s", (int)(eq - a), a);
	int q = pt_pipeline_param_index(p, name);
	double v = strtod(eq + 1, &end);
	if (q < 0 || *end || end == eq + 1)
		return pt_cli_usage_error(usage, "--param %s: no such param, or not a number", a);
	/* ints integral and in range, as for run */
	if (pt_param_check(ctx, p, name, v, &est[q])) {
		fputs(pt_ctx_diagnostics(ctx), stderr);
		return EXIT_USER;
	}
	return 0;
}

/* Writes text to path atomically (pt_io_write_file: a mkstemp temporary
 * in path's directory, then rename). */
int pt_cli_write_bytes(const char *path, const char *text, size_t n)
{
	char err[8192];
	if (pt_io_write_file(path, text, n, err, sizeof(err)) == PT_OK)
		return 0;
	fprintf(stderr, "polytile: cannot write %s\n", err);
	return -1;
}

int pt_cli_write_text(const char *path, const char *text)
{
	return pt_cli_write_bytes(path, text, strlen(text));
}
