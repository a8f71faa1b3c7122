/* api.c: the public entry points of include/polytile.h for the frontend:
 * contexts, parsing, the builder, and the textual views of a pipeline. */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polytile.h"
#include <isl/ctx.h>
#include <isl/options.h>

#include "alloc.h"
#include "ctx.h"
#include "parser.h"
#include "passes.h"

pt_ctx *pt_ctx_new(void)
{
	pt_ctx *ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return NULL;
	pt_diag_init(&ctx->diag);
	return ctx;
}

void pt_ctx_free(pt_ctx *ctx)
{
	if (!ctx)
		return;
	for (int i = 0; i < ctx->npipelines; i++) {
		pt_parser_free(ctx->pipelines[i]->parser);
		pt_pipeline_free(ctx->pipelines[i]->p);
		free(ctx->pipelines[i]);
	}
	free(ctx->pipelines);
	if (ctx->isl)
		isl_ctx_free(ctx->isl);
	pt_diag_clear(&ctx->diag);
	free(ctx);
}

const char *pt_ctx_diagnostics(pt_ctx *ctx)
{
	return ctx->diag.text.s ? ctx->diag.text.s : "";
}

int pt_ctx_error_count(pt_ctx *ctx)
{
	return ctx->diag.nerrors;
}

void pt_ctx_clear_diagnostics(pt_ctx *ctx)
{
	pt_sb_free(&ctx->diag.text);
	ctx->diag.nerrors = 0;
}

/* Registers p (and its builder parser) with ctx, which then owns them;
 * NULL, nothing taken, when out of memory. */
static pt_owned *own(pt_ctx *ctx, pt_pipeline *p, pt_parser *ps)
{
	pt_owned **v = pt_mem_realloc(ctx->pipelines, sizeof(*v) * (size_t)(ctx->npipelines + 1));
	if (v)
		ctx->pipelines = v;
	pt_owned *o = v ? pt_mem_calloc(1, sizeof(*o)) : NULL;
	if (!o)
		return NULL;
	o->p = p;
	o->parser = ps;
	o->ctx = ctx;
	o->errors_before = ctx->diag.nerrors;
	v[ctx->npipelines++] = o;
	return o;
}

/* Frees a pipeline that ctx owns and forgets it. */
static void disown(pt_ctx *ctx, pt_pipeline *p)
{
	for (int i = 0; i < ctx->npipelines; i++)
		if (ctx->pipelines[i]->p == p) {
			pt_parser_free(ctx->pipelines[i]->parser);
			pt_pipeline_free(p);
			free(ctx->pipelines[i]);
			ctx->pipelines[i] = ctx->pipelines[--ctx->npipelines];
			return;
		}
}

static pt_owned *owner_of(const pt_pipeline *p)
{
	return p ? p->owner : NULL;
}

/* The checks after parsing (passes.c: "typecheck" through "bounds"),
 * or parsing and checking when src is given. */
static bool check_all(pt_ctx *ctx, pt_pipeline *p, const pt_source *src)
{
	pt_unit u;
	pt_unit_init(&u, ctx, NULL);
	u.src = src;
	u.input = p;
	bool ok = !pt_passes_run(&u, src ? "parse" : "typecheck", "bounds");
	pt_unit_clear(&u);
	return ok;
}

/* Parses and checks a registered source (NULL: it could not be); ctx
 * owns the result.  An allocation of the front end that failed since
 * `failures` (alloc.h) fails the load with "out of memory". */
static pt_pipeline *parse_source(pt_ctx *ctx, const pt_source *src, long failures)
{
	pt_pipeline *p = src ? pt_pipeline_new(NULL) : NULL;
	pt_owned *o = NULL;
	if (!p || !check_all(ctx, p, src) || pt_mem_failures() != failures || !(o = own(ctx, p, NULL))) {
		pt_pipeline_free(p);
		pt_mem_check(&ctx->diag, failures, "loading the pipeline");
		return NULL;
	}
	p->owner = o;
	return p;
}

pt_pipeline *pt_parse_string(pt_ctx *ctx, const char *name, const char *text)
{
	long failures = pt_mem_failures();
	size_t len = strlen(text);
	char *copy = pt_mem_alloc(len + 1);
	if (copy)
		memcpy(copy, text, len + 1);
	return parse_source(ctx, copy ? pt_diag_add_source(&ctx->diag, name, copy, len) : NULL, failures);
}

pt_pipeline *pt_parse_file(pt_ctx *ctx, const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		pt_loc none = {0};
		pt_error_at(&ctx->diag, none, "check the path", "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	long failures = pt_mem_failures();
	char chunk[65536];
	size_t n, len = 0;
	char *text = pt_mem_alloc(1);
	while (text && (n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		char *t = pt_mem_realloc(text, len + n + 1);
		if (!t)
			text = (free(text), NULL);
		else
			text = t;
		if (text)
			memcpy(text + len, chunk, n);
		len += n;
	}
	bool bad = ferror(f);
	int err = errno;
	fclose(f);
	if (!text)
		return parse_source(ctx, NULL, failures);
	if (bad) {
		pt_loc none = {0};
		free(text);
		pt_error_at(&ctx->diag, none, "give a readable .pipe file", "cannot read '%s': %s", path, strerror(err));
		return NULL;
	}
	text[len] = 0;
	return parse_source(ctx, pt_diag_add_source(&ctx->diag, path, text, len), failures);
}

/* ---- builder ---- */

pt_pipeline *pt_build_begin(pt_ctx *ctx, const char *name)
{
	long failures = pt_mem_failures();
	pt_pipeline *p = pt_pipeline_new(name);
	pt_parser *ps = p ? pt_parser_new(&ctx->diag, p) : NULL;
	pt_owned *o = ps ? own(ctx, p, ps) : NULL;
	if (!o) {
		pt_parser_free(ps);
		pt_pipeline_free(p);
		pt_mem_check(&ctx->diag, failures, "building a pipeline");
		return NULL;
	}
	p->owner = o;
	return p;
}

/* The result rc of a builder call on p: an allocation that failed since
 * `failures` (alloc.h) makes it an error, "out of memory". */
static int build_result(pt_pipeline *p, long failures, int rc)
{
	pt_owned *o = owner_of(p);
	if (o && !pt_mem_check(&o->ctx->diag, failures, "building the pipeline"))
		return -1;
	return rc;
}

/* Parses one builder expression string; its source is named after what
 * it is for so that messages point somewhere useful. */
static pt_expr *build_expr(pt_pipeline *p, const char *what, const char *text)
{
	pt_owned *o = owner_of(p);
	if (!o || !o->parser || !text) {
		pt_loc none = {0};
		if (o)
			pt_error_at(&o->ctx->diag, none, "pass an expression string", "%s: missing expression", what);
		return NULL;
	}
	char name[300];
	/* a long name is cut (the precision keeps gcc's truncation check
	 * quiet: what is only a label) */
	snprintf(name, sizeof(name), "<builder %.280s>", what);
	size_t len = strlen(text);
	char *copy = pt_mem_alloc(len + 1);
	if (!copy)
		return NULL;
	memcpy(copy, text, len + 1);
	const pt_source *src = pt_diag_add_source(&o->ctx->diag, name, copy, len);
	return src ? pt_parser_parse_expr(o->parser, src) : NULL;
}

static pt_loc builder_loc(void)
{
	pt_loc l = {0};
	return l;
}

/* The diagnostics of a pipeline being built, or NULL when p is not one. */
static pt_diag *build_diag(pt_pipeline *p)
{
	pt_owned *o = owner_of(p);
	return o && o->parser ? &o->ctx->diag : NULL;
}

/* Reports a builder misuse (not tied to a source). */
static int build_error(pt_pipeline *p, const char *hint, const char *msg, const char *name)
{
	pt_owned *o = owner_of(p);
	if (o)
		pt_error_at(&o->ctx->diag, builder_loc(), hint, msg, name);
	return -1;
}

/* The declarations go through the constructors of frontend/ir.c, which
 * apply the rules the parser applies, with the same messages. */
static int build_param_(pt_pipeline *p, const char *name, pt_type type, bool has_estimate, double estimate)
{
	pt_diag *d = build_diag(p);
	int i = d ? pt_pipeline_declare_param(d, p, name, (int)type, builder_loc(), builder_loc()) : -1;
	if (i < 0)
		return -1;
	p->params[i].has_estimate = has_estimate;
	p->params[i].estimate = estimate;
	return 0;
}

int pt_build_param(pt_pipeline *p, const char *name, pt_type type, bool has_estimate, double estimate)
{
	long failures = pt_mem_failures();
	return build_result(p, failures, build_param_(p, name, type, has_estimate, estimate));
}

static int build_const_(pt_pipeline *p, const char *name, double value, bool is_int)
{
	pt_owned *o = owner_of(p);
	if (!o || !o->parser)
		return -1;
	return pt_parser_define_const(o->parser, name, value, is_int) ? 0 : -1;
}

int pt_build_const(pt_pipeline *p, const char *name, double value, bool is_int)
{
	long failures = pt_mem_failures();
	return build_result(p, failures, build_const_(p, name, value, is_int));
}

static int build_image_(pt_pipeline *p, const char *name, pt_type type, int ndim, const char *const *extents)
{
	pt_diag *d = build_diag(p);
	pt_image *im = d ? pt_pipeline_declare_image(d, p, name, (int)type, builder_loc()) : NULL;
	if (!im)
		return -1;
	for (int i = 0; i < ndim; i++) {
		char what[300];
		snprintf(what, sizeof(what), "%s extent %d", name, i + 1);
		pt_expr *e = build_expr(p, what, extents[i]);
		if (!e || !pt_image_add_extent(d, im, e, builder_loc()))
			return -1;
	}
	return pt_image_check_shape(d, im, builder_loc()) ? 0 : -1;
}

int pt_build_image(pt_pipeline *p, const char *name, pt_type type, int ndim, const char *const *extents)
{
	long failures = pt_mem_failures();
	return build_result(p, failures, build_image_(p, name, type, ndim, extents));
}

static int build_cond_(pt_pipeline *p, const char *name, const char *expr)
{
	pt_owned *o = owner_of(p);
	pt_expr *e = build_expr(p, name, expr);
	if (!e)
		return -1;
	return pt_parser_define_cond(o->parser, name, e) ? 0 : -1;
}

int pt_build_cond(pt_pipeline *p, const char *name, const char *expr)
{
	long failures = pt_mem_failures();
	return build_result(p, failures, build_cond_(p, name, expr));
}

/* Adds n variables with their intervals, from name/lo/hi strings. */
static int build_dims(pt_pipeline *p, pt_stage *s, int n, const char *const *vars,
	const char *const *lo, const char *const *hi, bool red)
{
	pt_diag *d = build_diag(p);
	for (int i = 0; i < n; i++) {
		char what[300];
		if (!pt_stage_check_var(d, s, vars[i], builder_loc()))
			return -1;
		pt_interval iv = { NULL, NULL, 1 };
		snprintf(what, sizeof(what), "%s.%s lower bound", s->name, vars[i]);
		iv.lo = build_expr(p, what, lo[i]);
		snprintf(what, sizeof(what), "%s.%s upper bound", s->name, vars[i]);
		iv.hi = iv.lo ? build_expr(p, what, hi[i]) : NULL;
		if (!iv.hi) {
			pt_expr_free(iv.lo);
			return -1;
		}
		if (!pt_stage_add_var(d, s, vars[i], iv, red, builder_loc()))
			return -1;
	}
	return pt_stage_check_shape(d, s, red, builder_loc()) ? 0 : -1;
}

/* A new stage with its result variables; NULL after an error. */
static pt_stage *build_stage(pt_pipeline *p, const char *name, pt_type type, int ndim,
	const char *const *vars, const char *const *lo, const char *const *hi)
{
	pt_diag *d = build_diag(p);
	pt_stage *s = d ? pt_pipeline_declare_stage(d, p, name, builder_loc()) : NULL;
	if (!s)
		return NULL;
	owner_of(p)->last = s;
	if (!pt_stage_set_type(d, s, (int)type, builder_loc()) || build_dims(p, s, ndim, vars, lo, hi, false))
		return NULL;
	return s;
}

static int build_func_(pt_pipeline *p, const char *name, pt_type type, int ndim,
	const char *const *vars, const char *const *lo, const char *const *hi)
{
	return build_stage(p, name, type, ndim, vars, lo, hi) ? 0 : -1;
}

int pt_build_func(pt_pipeline *p, const char *name, pt_type type, int ndim,
	const char *const *vars, const char *const *lo, const char *const *hi)
{
	long failures = pt_mem_failures();
	return build_result(p, failures, build_func_(p, name, type, ndim, vars, lo, hi));
}

static int build_case_(pt_pipeline *p, const char *cond, const char *value)
{
	pt_owned *o = owner_of(p);
	if (!o || !o->last)
		return build_error(p, "call pt_build_func first", "pt_build_case without a function%s", "");
	char what[300];
	snprintf(what, sizeof(what), "%s case %d", o->last->name, o->last->ncases + 1);
	pt_expr *c = cond ? build_expr(p, what, cond) : NULL;
	if (cond && !c)
		return -1;
	pt_expr *v = build_expr(p, what, value);
	if (!v) {
		pt_expr_free(c);
		return -1;
	}
	return pt_stage_add_case(&o->ctx->diag, o->last, c, v, v->loc) ? 0 : -1;
}

int pt_build_case(pt_pipeline *p, const char *cond, const char *value)
{
	long failures = pt_mem_failures();
	return build_result(p, failures, build_case_(p, cond, value));
}

static int build_reduce_(pt_pipeline *p, const char *name, pt_type type,
	int ndim, const char *const *vars, const char *const *lo, const char *const *hi,
	int nrdim, const char *const *rvars, const char *const *rlo, const char *const *rhi,
	const char *op, const char *init)
{
	int red = -1;
	for (int r = PT_RED_SUM; r < PT_RED_COUNT; r++)
		if (op && !strcmp(op, pt_redop_name(r)))
			red = r;
	if (red < 0)
		return build_error(p, "use sum, prod, min, max, and or or", "reduction '%s' has an unknown operator", name);
	pt_stage *s = build_stage(p, name, type, ndim, vars, lo, hi);
	if (!s || build_dims(p, s, nrdim, rvars, rlo, rhi, true))
		return -1;
	s->red = red;
	if (init && !(s->init = build_expr(p, name, init)))
		return -1;
	return 0;
}

int pt_build_reduce(pt_pipeline *p, const char *name, pt_type type,
	int ndim, const char *const *vars, const char *const *lo, const char *const *hi,
	int nrdim, const char *const *rvars, const char *const *rlo, const char *const *rhi,
	const char *op, const char *init)
{
	long failures = pt_mem_failures();
	return build_result(p, failures, build_reduce_(p, name, type, ndim, vars, lo, hi, nrdim, rvars, rlo, rhi, op, init));
}

static int build_update_(pt_pipeline *p, const char *cond, const char *const *target, const char *value)
{
	pt_owned *o = owner_of(p);
	if (!o || !o->last)
		return build_error(p, "call pt_build_reduce first", "pt_build_update without a reduction%s", "");
	pt_stage *s = o->last;
	char what[300];
	snprintf(what, sizeof(what), "%s update %d", s->name, s->ncases + 1);
	int n = s->nrdim > 0 ? s->ndim : 0;
	pt_expr **t = pt_mem_calloc((size_t)n + 1, sizeof(pt_expr *));
	pt_expr *c = NULL, *v = NULL;
	bool ok = t != NULL;
	for (int d = 0; d < n && ok; d++)
		ok = (t[d] = build_expr(p, what, target[d])) != NULL;
	if (ok && cond)
		ok = (c = build_expr(p, what, cond)) != NULL;
	if (ok)
		ok = (v = build_expr(p, what, value)) != NULL;
	if (!ok) {
		for (int d = 0; t && d < n; d++)
			pt_expr_free(t[d]);
		free(t);
		pt_expr_free(c);
		return -1;
	}
	return pt_stage_add_update(&o->ctx->diag, s, c, t, n, builder_loc(), s->red, builder_loc(), v, v->loc) ? 0 : -1;
}

int pt_build_update(pt_pipeline *p, const char *cond, const char *const *target, const char *value)
{
	long failures = pt_mem_failures();
	return build_result(p, failures, build_update_(p, cond, target, value));
}

static int build_output_(pt_pipeline *p, const char *name)
{
	pt_diag *d = build_diag(p);
	return d && pt_pipeline_set_output(d, p, name, builder_loc()) ? 0 : -1;
}

int pt_build_output(pt_pipeline *p, const char *name)
{
	long failures = pt_mem_failures();
	return build_result(p, failures, build_output_(p, name));
}

pt_pipeline *pt_build_end(pt_pipeline *p)
{
	pt_owned *o = owner_of(p);
	if (!o)
		return NULL;
	pt_ctx *ctx = o->ctx;
	long failures = pt_mem_failures();
	pt_parser_free(o->parser);
	o->parser = NULL;
	bool ok = ctx->diag.nerrors <= o->errors_before && check_all(ctx, p, NULL);
	if (!pt_mem_check(&ctx->diag, failures, "checking the pipeline") || !ok) {
		disown(ctx, p);
		return NULL;
	}
	return p;
}

double pt_pipeline_run_bytes(const pt_pipeline *p, const double *values, const bool *given, int extra)
{
	double need = 0;
	for (int i = 0; i < pt_pipeline_image_count(p); i++) {
		int64_t ext[PT_MAX_DIMS];
		if (given && given[i])
			continue;
		if (pt_pipeline_image_extents(p, i, values, ext))
			return -1;
		double n = (double)pt_type_size(pt_pipeline_image_type(p, i));
		for (int d = 0; d < pt_pipeline_image_ndim(p, i); d++)
			n *= ext[d] > 0 ? (double)ext[d] : 0;
		need += n;
	}
	int nparams = pt_pipeline_param_count(p);
	int64_t *ip = calloc((size_t)nparams + 1, sizeof(*ip));
	if (!ip)
		return -1;
	for (int q = 0; q < nparams; q++) {
		pt_type t = pt_pipeline_param_type(p, q);
		/* an int param out of int64's range: no point counts */
		ip[q] = t == PT_F32 || t == PT_F64 || !(fabs(values[q]) < 9.2e18) ? 0 : (int64_t)values[q];
	}
	for (int s = 0; s < pt_pipeline_stage_count(p); s++) {
		int64_t lo[PT_MAX_DIMS], ext[PT_MAX_DIMS];
		int nd = pt_pipeline_stage_box(p, s, ip, lo, ext);
		double n = (double)pt_type_size(pt_pipeline_stage_type(p, s)) + extra;
		for (int d = 0; d < nd; d++)
			n *= ext[d] > 0 ? (double)ext[d] : 0;
		need += nd >= 0 ? n : 0;
	}
	free(ip);
	return need;
}

int pt_mpi_model_read(const char *path, pt_options *o)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char key[32];
	double v;
	int n = 0;
	while (fscanf(f, "%31s %lf", key, &v) == 2) {
		if (!(v > 0) || isinf(v))
			continue;   /* not a positive number: the default stays */
		double *at = !strcmp(key, "latency") ? &o->mpi_latency : !strcmp(key, "bandwidth") ? &o->mpi_bandwidth :
			!strcmp(key, "point_time") ? &o->mpi_point_time :
			!strcmp(key, "stream_point_time") ? &o->mpi_stream_time : NULL;
		if (at) {
			*at = v;
			n++;
		}
	}
	fclose(f);
	return n;
}
