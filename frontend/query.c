/* query.c: the public view of a checked pipeline (its params, images and
 * stages by index and name) and what a caller needs to run it: param
 * values checked against their types, params inferred from the extents
 * of inputs, and inputs checked against the extents the params give.
 * The interpreter and the `polytile` command both go through these. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "polytile.h"
#include "ctx.h"
#include "ir.h"
#include "values.h"

static pt_loc noloc(void)
{
	pt_loc l = {0};
	return l;
}

/* ---- params ---- */

int pt_pipeline_param_count(const pt_pipeline *p) { return p->nparams; }

int pt_pipeline_param_index(const pt_pipeline *p, const char *name)
{
	return pt_pipeline_find_param(p, name);
}

const char *pt_pipeline_param_name(const pt_pipeline *p, int i)
{
	return i >= 0 && i < p->nparams ? p->params[i].name : NULL;
}

pt_type pt_pipeline_param_type(const pt_pipeline *p, int i)
{
	return i >= 0 && i < p->nparams ? (pt_type)p->params[i].type : PT_NTYPES;
}

bool pt_pipeline_param_estimate(const pt_pipeline *p, int i, double *value)
{
	if (i < 0 || i >= p->nparams || !p->params[i].has_estimate)
		return false;
	*value = p->params[i].estimate;
	return true;
}

/* ---- images ---- */

int pt_pipeline_image_count(const pt_pipeline *p) { return p->nimages; }

int pt_pipeline_image_index(const pt_pipeline *p, const char *name)
{
	const pt_image *im = pt_pipeline_find_image(p, name);
	return im ? im->id : -1;
}

const char *pt_pipeline_image_name(const pt_pipeline *p, int i)
{
	return i >= 0 && i < p->nimages ? p->images[i]->name : NULL;
}

pt_type pt_pipeline_image_type(const pt_pipeline *p, int i)
{
	return i >= 0 && i < p->nimages ? (pt_type)p->images[i]->type : PT_NTYPES;
}

int pt_pipeline_image_ndim(const pt_pipeline *p, int i)
{
	return i >= 0 && i < p->nimages ? p->images[i]->ndim : -1;
}

bool pt_pipeline_image_extent_const(const pt_pipeline *p, int i, int d, int64_t *value)
{
	if (i < 0 || i >= p->nimages || d < 0 || d >= p->images[i]->ndim)
		return false;
	const pt_expr *e = p->images[i]->extent[d];
	if (e->kind != PT_E_INT)
		return false;
	*value = e->ival;
	return true;
}

/* Int params as the IR evaluates them. */
static int64_t *int_params(const pt_pipeline *p, const double *values)
{
	int64_t *ip = pt_mem_calloc((size_t)p->nparams + 1, sizeof(*ip));
	for (int q = 0; ip && q < p->nparams; q++)
		ip[q] = pt_type_is_int(p->params[q].type) ? (int64_t)values[q] : 0;
	return ip;
}

int pt_pipeline_image_extents(const pt_pipeline *p, int i, const double *values, int64_t *ext)
{
	if (i < 0 || i >= p->nimages)
		return -1;
	int64_t *ip = int_params(p, values);
	int r = 0;
	for (int d = 0; ip && d < p->images[i]->ndim && !r; d++)
		if (!pt_expr_eval_params(p->images[i]->extent[d], ip, &ext[d]))
			r = -1;
	free(ip);
	return ip ? r : -1;
}

/* ---- stages ---- */

int pt_pipeline_stage_index(const pt_pipeline *p, const char *name)
{
	for (int i = 0; i < p->nstages; i++)
		if (!strcmp(p->stages[i]->name, name))
			return i;
	return -1;
}

const char *pt_pipeline_stage_name(const pt_pipeline *p, int i)
{
	return i >= 0 && i < p->nstages ? p->stages[i]->name : NULL;
}

pt_type pt_pipeline_stage_type(const pt_pipeline *p, int i)
{
	return i >= 0 && i < p->nstages ? (pt_type)p->stages[i]->type : PT_NTYPES;
}

int pt_pipeline_stage_ndim(const pt_pipeline *p, int i)
{
	return i >= 0 && i < p->nstages ? p->stages[i]->ndim : -1;
}

bool pt_pipeline_stage_is_output(const pt_pipeline *p, int i)
{
	return i >= 0 && i < p->nstages && p->stages[i]->is_output;
}

bool pt_pipeline_stage_bounds_const(const pt_pipeline *p, int i, int d, int64_t *lo, int64_t *hi)
{
	if (i < 0 || i >= p->nstages || d < 0 || d >= p->stages[i]->ndim)
		return false;
	const pt_interval *iv = &p->stages[i]->dom[d];
	if (iv->lo->kind != PT_E_INT || iv->hi->kind != PT_E_INT)
		return false;
	*lo = iv->lo->ival;
	*hi = iv->hi->ival;
	return true;
}

/* ---- running ---- */

int pt_param_check(pt_ctx *ctx, const pt_pipeline *p, const char *name, double value, double *out)
{
	int i = pt_pipeline_find_param(p, name);
	if (i < 0) {
		pt_error_at(&ctx->diag, noloc(), "see `polytile check` for the params", "no param named '%s'", name);
		return -1;
	}
	const pt_param *q = &p->params[i];
	if (pt_type_is_int(q->type)) {
		int64_t lo, hi;
		pt_type_range(q->type, &lo, &hi);
		if (value != floor(value) || !(value >= (double)lo && value <= (double)hi)) {
			pt_error_at(&ctx->diag, noloc(), "give an integer in the range of the param's type",
				"param '%s' is %s and cannot be %.17g", name, pt_ir_type_name(q->type), value);
			return -1;
		}
		*out = value;
	} else {
		*out = q->type == PT_F32 ? pt_round_f32(value) : value;
	}
	return 0;
}

int pt_check_input(pt_ctx *ctx, const pt_pipeline *p, int i, const pt_buffer *buf)
{
	const pt_image *im = p->images[i];
	if (buf->flags & PT_BUF_DEVICE_DIRTY) {
		/* the interpreter, as the CPU target, reads data only */
		pt_error_at(&ctx->diag, noloc(), "copy the device's data back to the host first",
			"input '%s': its newer copy is in device memory (PT_BUF_DEVICE_DIRTY)", im->name);
		return -1;
	}
	if ((int)buf->type == im->type && buf->ndim == im->ndim)
		return 0;
	pt_error_at(&ctx->diag, noloc(), "convert the input to the declared type and rank",
		"input '%s' is %s with %d dimensions but the pipeline declares %s with %d",
		im->name, pt_type_name(buf->type), buf->ndim, pt_ir_type_name(im->type), im->ndim);
	return -1;
}

/* Why a param could not be inferred (the first reason seen): the image
 * and extent that did not give an integer in its type's range. */
typedef struct infer_miss {
	int image, dim;
	int64_t extent;
	bool range;              /* an integer, past the type's range */
} infer_miss;

/* One pass over the extents of the inputs given: an extent a*P + c with
 * one unknown P gives P = (e - c) / a when that is an integer of P's
 * type (else miss[P] says why).  Whether some param was found. */
static bool infer_pass(const pt_pipeline *p, const pt_buffer *const *inputs, double *values, bool *known,
	infer_miss *miss)
{
	bool progress = false;
	for (int i = 0; i < p->nimages; i++) {
		const pt_buffer *b = inputs[i];
		for (int d = 0; b && d < p->images[i]->ndim; d++) {
			pt_affine a = {0};
			if (!pt_expr_affine(p->images[i]->extent[d], p->nparams, 0, &a) || a.div != 1) {
				pt_affine_clear(&a);
				continue;
			}
			int unknown = -1, nunknown = 0;
			int64_t rest = a.cst, t;
			bool ovf = false;
			for (int q = 0; q < p->nparams; q++) {
				if (!a.pcoef[q])
					continue;
				if (known[q]) {
					ovf |= __builtin_mul_overflow(a.pcoef[q], (int64_t)values[q], &t) ||
						__builtin_add_overflow(rest, t, &rest);
				} else {
					unknown = q;
					nunknown++;
				}
			}
			int64_t e = b->extent[d], lo, hi;
			if (nunknown == 1 && !ovf) {
				pt_type_range(p->params[unknown].type, &lo, &hi);
				bool exact = !__builtin_sub_overflow(e, rest, &t) && t % a.pcoef[unknown] == 0;
				int64_t v = exact ? t / a.pcoef[unknown] : 0;
				if (exact && v >= lo && v <= hi) {
					values[unknown] = (double)v;
					known[unknown] = true;
					progress = true;
				} else if (miss[unknown].image < 0) {
					miss[unknown] = (infer_miss){ i, d, e, exact };
				}
			}
			pt_affine_clear(&a);
		}
	}
	return progress;
}

/* The error for param q, which could not be inferred for reason miss. */
static void infer_error(pt_ctx *ctx, const pt_pipeline *p, int q, const infer_miss *miss)
{
	const pt_param *pa = &p->params[q];
	const pt_image *im = p->images[miss->image];
	pt_strbuf m = {0};
	pt_expr_print(im->extent[miss->dim], NULL, p, &m);
	if (miss->range)
		pt_error_at(&ctx->diag, pa->loc, "give an input of a size the param's type can hold, or pass --param NAME=VALUE",
			"param '%s' cannot be inferred from input '%s': its extent %lld (%s) gives a value past the range of %s",
			pa->name, im->name, (long long)miss->extent, m.s, pt_ir_type_name(pa->type));
	else
		pt_error_at(&ctx->diag, pa->loc, "give an input of a size the pipeline allows, or pass --param NAME=VALUE",
			"param '%s' cannot be inferred from input '%s': its extent %lld is not %s for any integer %s",
			pa->name, im->name, (long long)miss->extent, m.s, pa->name);
	pt_sb_free(&m);
}

int pt_infer_params(pt_ctx *ctx, const pt_pipeline *p, const pt_buffer *const *inputs,
	double *values, bool *known)
{
	long failures = pt_mem_failures();
	infer_miss *miss = pt_mem_alloc(sizeof(*miss) * (size_t)(p->nparams + 1));
	if (!miss) {
		pt_mem_check(&ctx->diag, failures, "inferring the params");
		return -1;
	}
	int r = 0;
	for (int q = 0; q < p->nparams; q++)
		miss[q].image = -1;
	while (infer_pass(p, inputs, values, known, miss))
		;
	for (int q = 0; !r && q < p->nparams; q++) {
		if (known[q])
			continue;
		if (miss[q].image >= 0) {
			infer_error(ctx, p, q, &miss[q]);
			r = -1;
		} else if (!p->params[q].has_estimate) {
			pt_error_at(&ctx->diag, p->params[q].loc, "pass --param NAME=VALUE, or give an input it can be inferred from",
				"param '%s' has no value", p->params[q].name);
			r = -1;
		} else {
			r = pt_param_check(ctx, p, p->params[q].name, p->params[q].estimate, &values[q]);
			known[q] = !r;
		}
	}
	free(miss);
	return r;
}

/* "R x C (R + 2, C + 2 with R=4 C=5)": what the params give image im. */
static void expected_extents(pt_strbuf *m, const pt_pipeline *p, const pt_image *im,
	const int64_t *ext, const double *values)
{
	for (int d = 0; d < im->ndim; d++)
		pt_sb_printf(m, "%s%lld", d ? " x " : "", (long long)ext[d]);
	pt_sb_printf(m, " (");
	for (int d = 0; d < im->ndim; d++) {
		pt_sb_printf(m, "%s", d ? ", " : "");
		pt_expr_print(im->extent[d], NULL, p, m);
	}
	pt_sb_printf(m, " with");
	for (int q = 0; q < p->nparams; q++)
		if (pt_type_is_int(p->params[q].type))
			pt_sb_printf(m, " %s=%lld", p->params[q].name, (long long)values[q]);
	pt_sb_printf(m, ")");
}

int pt_check_inputs(pt_ctx *ctx, const pt_pipeline *p, const pt_buffer *const *inputs, const double *values)
{
	for (int i = 0; i < p->nimages; i++) {
		const pt_image *im = p->images[i];
		const pt_buffer *b = inputs[i];
		if (!b) {
			pt_error_at(&ctx->diag, im->loc, "bind it with --in NAME=FILE", "image '%s' has no input", im->name);
			return -1;
		}
		int64_t ext[PT_MAX_DIMS] = {0};
		bool same = !pt_pipeline_image_extents(p, i, values, ext);
		for (int d = 0; d < im->ndim; d++)
			same = same && ext[d] == b->extent[d];
		if (same)
			continue;
		pt_strbuf m = {0}, g = {0};
		expected_extents(&m, p, im, ext, values);
		for (int d = 0; d < im->ndim; d++)
			pt_sb_printf(&g, "%s%lld", d ? " x " : "", (long long)b->extent[d]);
		pt_error_at(&ctx->diag, im->loc, "give an input of the expected size, or set the params to match it",
			"input '%s' is %s but the pipeline expects %s", im->name, g.s, m.s);
		pt_sb_free(&m);
		pt_sb_free(&g);
		return -1;
	}
	return 0;
}
