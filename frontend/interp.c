/* interp.c: the reference interpreter.  It defines what a pipeline means:
 * stages are evaluated one after another in topological order over full
 * buffers, points in lexicographic order, with the value semantics of
 * docs/language.md (values.c).  Every read is checked: outside a domain or
 * image, at a point no case defines, or at a point of the stage itself not
 * yet computed is a run-time error naming the stage and the point. */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "polytile.h"
#include "ctx.h"
#include "exact_index.h"
#include "ir.h"
#include "values.h"

typedef struct stage_buf {
	pt_buffer buf;
	uint8_t *defined;
	int64_t lo[PT_MAX_DIMS], hi[PT_MAX_DIMS], step[PT_MAX_DIMS];
	bool done;
} stage_buf;

struct pt_interp {
	pt_ctx *ctx;
	const pt_pipeline *p;
	int64_t *pint;
	double *pflt;
	bool *pset;
	const pt_buffer **inputs;
	stage_buf *sb;
	const pt_stage *cur;
	int64_t vars[2 * PT_MAX_DIMS];
	pt_val operand[2];          /* a general update's accumulator and value */
	pt_index_cache *exact;      /* affine indices, computed exactly */
	bool failed;
};

pt_interp *pt_interp_new(pt_ctx *ctx, const pt_pipeline *p)
{
	long failures = pt_mem_failures();
	pt_interp *in = pt_mem_calloc(1, sizeof(*in));
	if (in) {
		in->ctx = ctx;
		in->p = p;
		in->pint = pt_mem_calloc((size_t)p->nparams + 1, sizeof(int64_t));
		in->pflt = pt_mem_calloc((size_t)p->nparams + 1, sizeof(double));
		in->pset = pt_mem_calloc((size_t)p->nparams + 1, sizeof(bool));
		in->inputs = pt_mem_calloc((size_t)p->nimages + 1, sizeof(pt_buffer *));
		in->sb = pt_mem_calloc((size_t)p->nstages + 1, sizeof(stage_buf));
		in->exact = pt_index_cache_new();
	}
	if (!pt_mem_check(&ctx->diag, failures, "starting the interpreter")) {
		pt_interp_free(in);
		return NULL;
	}
	return in;
}

void pt_interp_free(pt_interp *in)
{
	if (!in)
		return;
	for (int i = 0; in->sb && i < in->p->nstages; i++) {
		pt_buffer_free(&in->sb[i].buf);
		free(in->sb[i].defined);
	}
	free(in->sb);
	pt_index_cache_free(in->exact);
	free(in->pint);
	free(in->pflt);
	free(in->pset);
	free(in->inputs);
	free(in);
}

static pt_loc noloc(void)
{
	pt_loc l = {0};
	return l;
}

int pt_interp_set_param(pt_interp *in, const char *name, double value)
{
	double v;
	if (pt_param_check(in->ctx, in->p, name, value, &v))
		return -1;
	int i = pt_pipeline_find_param(in->p, name);
	if (pt_type_is_int(in->p->params[i].type))
		in->pint[i] = (int64_t)v;
	in->pflt[i] = v;
	in->pset[i] = true;
	return 0;
}

int pt_interp_get_param(pt_interp *in, const char *name, double *value)
{
	int i = pt_pipeline_find_param(in->p, name);
	if (i < 0 || !in->pset[i])
		return -1;
	*value = pt_type_is_int(in->p->params[i].type) ? (double)in->pint[i] : in->pflt[i];
	return 0;
}

int pt_interp_set_input(pt_interp *in, const char *name, const pt_buffer *buf)
{
	pt_image *im = pt_pipeline_find_image(in->p, name);
	if (!im) {
		pt_error_at(&in->ctx->diag, noloc(), "see `polytile check` for the images", "no image named '%s'", name);
		return -1;
	}
	if (pt_check_input(in->ctx, in->p, im->id, buf))
		return -1;
	in->inputs[im->id] = buf;
	return 0;
}

/* Params are inferred by pt_infer_params (query.c), as for compiled code. */
int pt_interp_infer_params(pt_interp *in)
{
	const pt_pipeline *p = in->p;
	int r = pt_infer_params(in->ctx, p, in->inputs, in->pflt, in->pset);
	for (int q = 0; q < p->nparams; q++)
		if (in->pset[q] && pt_type_is_int(p->params[q].type))
			in->pint[q] = (int64_t)in->pflt[q];
	return r;
}

int pt_interp_image_extents(pt_interp *in, const char *name, int64_t *ext)
{
	pt_image *im = pt_pipeline_find_image(in->p, name);
	if (!im)
		return -1;
	for (int d = 0; d < im->ndim; d++)
		if (!pt_expr_eval_params(im->extent[d], in->pint, &ext[d]))
			return -1;
	return 0;
}

/* Checks that every image is bound with the extents the params give. */
static int check_inputs(pt_interp *in)
{
	return pt_check_inputs(in->ctx, in->p, in->inputs, in->pflt);
}

int pt_interp_check_inputs(pt_interp *in)
{
	return check_inputs(in);
}

/* ---- reads ---- */

static void point_str(pt_strbuf *b, const int64_t *idx, int n)
{
	pt_sb_printf(b, "(");
	for (int d = 0; d < n; d++)
		pt_sb_printf(b, "%s%lld", d ? ", " : "", (long long)idx[d]);
	pt_sb_printf(b, ")");
}

/* Reports a bad read by the current stage at loc. */
static void read_error(pt_interp *in, const pt_expr *at, const char *what, const int64_t *idx, int n,
	const char *why, const char *hint)
{
	if (in->failed)
		return;
	pt_strbuf pt = {0}, cur = {0};
	point_str(&pt, idx, n);
	point_str(&cur, in->vars, in->cur->ndim + in->cur->nrdim);
	pt_error_at(&in->ctx->diag, at->loc, hint, "stage '%s' at %s reads %s%s, %s",
		in->cur->name, cur.s, what, pt.s, why);
	pt_sb_free(&pt);
	pt_sb_free(&cur);
	in->failed = true;
}

static pt_val read_image(pt_interp *in, const pt_expr *e, const int64_t *idx)
{
	const pt_buffer *b = in->inputs[e->image->id];
	int64_t off = 0;
	for (int d = 0; d < b->ndim; d++) {
		if (idx[d] < 0 || idx[d] >= b->extent[d]) {
			char why[128];
			snprintf(why, sizeof(why), "outside its extent 0 .. %lld in dimension %d",
				(long long)b->extent[d] - 1, d + 1);
			read_error(in, e, e->image->name, idx, b->ndim, why,
				"clamp the index or narrow the stage's domain or case");
			return (pt_val){0};
		}
		off += idx[d] * b->stride[d];
	}
	return pt_val_load(b->data, b->type, off);
}

static pt_val read_stage(pt_interp *in, const pt_expr *e, const int64_t *idx)
{
	const pt_stage *s = e->stage;
	stage_buf *sb = &in->sb[s->id];
	int64_t off = 0;
	for (int d = 0; d < s->ndim; d++) {
		if (idx[d] < sb->lo[d] || idx[d] > sb->hi[d] || (idx[d] - sb->lo[d]) % sb->step[d]) {
			char why[160];
			snprintf(why, sizeof(why), "outside its domain %lld .. %lld%s in dimension %d",
				(long long)sb->lo[d], (long long)sb->hi[d], sb->step[d] > 1 ? " (with its step)" : "", d + 1);
			read_error(in, e, s->name, idx, s->ndim, why,
				"clamp the index, or restrict this case so that it reads only defined points");
			return (pt_val){0};
		}
		off += (idx[d] - sb->lo[d]) * sb->buf.stride[d];
	}
	if (!sb->defined[off]) {
		if (s == in->cur)
			read_error(in, e, s->name, idx, s->ndim, "a point of itself not computed yet",
				"read only points computed before, in the order its self-reads give (f(t-1, ..) or f(x+1, ..))");
		else
			read_error(in, e, s->name, idx, s->ndim, "a point that no case of it defines",
				"add a case covering that point, or restrict this case so that it reads only defined points");
		return (pt_val){0};
	}
	return pt_val_load(sb->buf.data, sb->buf.type, off);
}

/* ---- evaluation ---- */

static pt_val eval(pt_interp *in, const pt_expr *e);

static pt_val eval_as(pt_interp *in, const pt_expr *e, int to)
{
	return pt_val_convert(eval(in, e), e->type, to);
}

/* Operands already have the operation's type (the checker converts
 * them; a shift count is an i64). */
static pt_val eval_binary(pt_interp *in, const pt_expr *e)
{
	const pt_expr *a = e->args[0], *b = e->args[1];
	if (e->op == PT_OP_AND || e->op == PT_OP_OR) {
		int64_t x = eval(in, a).i;
		if (in->failed || (e->op == PT_OP_AND ? !x : x))
			return (pt_val){.i = x != 0};
		return (pt_val){.i = eval(in, b).i != 0};
	}
	bool compare = e->op >= PT_OP_LT && e->op <= PT_OP_NE;
	pt_val x = eval(in, a);
	pt_val y = eval(in, b);
	return pt_val_binary(e->op, compare ? a->type : e->type, x, y);
}

/* Arguments already have the intrinsic's type; min and max are binary. */
static pt_val eval_intrin(pt_interp *in, const pt_expr *e)
{
	int t = e->type;
	pt_val v[2];
	for (int i = 0; i < e->nargs && i < 2; i++)
		v[i] = eval(in, e->args[i]);
	switch ((pt_intrin)e->op) {
	case PT_IN_MIN: case PT_IN_MAX:
		return pt_val_minmax(t, v[0], v[1], e->op == PT_IN_MIN);
	case PT_IN_ABS: case PT_IN_SQRT: case PT_IN_EXP: case PT_IN_LOG: case PT_IN_POW:
	case PT_IN_FLOOR: case PT_IN_CEIL: case PT_IN_ROUND: case PT_IN_SIN: case PT_IN_COS:
	case PT_IN_TAN: case PT_IN_ATAN2: case PT_IN_TANH:
		return pt_val_math(e->op, t, v[0], e->nargs > 1 ? v[1] : v[0]);
	case PT_IN_CLAMP: case PT_IN_COUNT:
		break;
	}
	assert(!"clamp is lowered by the checker");
	return (pt_val){0};
}

/* An index or target: exactly when affine, as the bounds check and
 * compiled code compute it (exact_index.c), else as written. */
static int64_t index_value(pt_interp *in, const pt_expr *e)
{
	int64_t v;
	int nvars = in->cur ? in->cur->ndim + in->cur->nrdim : 0;
	if (pt_index_exact(in->exact, e, in->p->nparams, nvars, in->pint, in->vars, &v))
		return v;
	return eval_as(in, e, PT_I64).i;
}

static pt_val eval(pt_interp *in, const pt_expr *e)
{
	if (in->failed)
		return (pt_val){0};
	switch (e->kind) {
	case PT_E_INT:
		return pt_val_convert((pt_val){.i = e->ival}, PT_I64, e->type);
	case PT_E_FLOAT:
		return (pt_val){.f = e->type == PT_F32 ? pt_round_f32(e->fval) : e->fval};
	case PT_E_PARAM:
		return pt_type_is_int(e->type) ? (pt_val){.i = in->pint[e->index]} : (pt_val){.f = in->pflt[e->index]};
	case PT_E_VAR:
		if (e->index == PT_UPD_ACC || e->index == PT_UPD_VAL)
			return in->operand[e->index == PT_UPD_ACC ? 0 : 1];
		return (pt_val){.i = in->vars[e->index]};
	case PT_E_CALL: {
		int64_t idx[PT_MAX_DIMS];
		for (int i = 0; i < e->nargs; i++)
			idx[i] = index_value(in, e->args[i]);
		if (in->failed)
			return (pt_val){0};
		return e->stage ? read_stage(in, e, idx) : read_image(in, e, idx);
	}
	case PT_E_UNARY:
		if (e->op == PT_OP_NOT)
			return (pt_val){.i = !eval(in, e->args[0]).i};
		return pt_val_unary(e->op, e->type, eval(in, e->args[0]));
	case PT_E_BINARY:
		return eval_binary(in, e);
	case PT_E_SELECT:
		return eval(in, e->args[eval(in, e->args[0]).i ? 1 : 2]);
	case PT_E_CAST:
		return eval_as(in, e->args[0], e->type);
	case PT_E_INTRIN:
		return eval_intrin(in, e);
	case PT_E_NAME: case PT_E_COUNT:
		break;
	}
	assert(!"unresolved expression in the interpreter");
	return (pt_val){0};
}

/* ---- stages ---- */

/* Evaluates the box of a domain; false if a bound is not computable. */
static bool eval_box(pt_interp *in, const pt_interval *dom, int n, int64_t *lo, int64_t *hi, int64_t *step)
{
	for (int d = 0; d < n; d++) {
		if (!pt_interval_eval(&dom[d], in->pint, &lo[d], &hi[d]))
			return false;
		step[d] = dom[d].step;
	}
	return true;
}

/* Advances an odometer over a box; false when done. */
static bool next_point(int64_t *v, const int64_t *lo, const int64_t *hi, const int64_t *step, int n)
{
	for (int d = n - 1; d >= 0; d--) {
		v[d] += step[d];
		if (v[d] <= hi[d])
			return true;
		v[d] = lo[d];
	}
	return false;
}

static bool box_empty(const int64_t *lo, const int64_t *hi, int n)
{
	for (int d = 0; d < n; d++)
		if (hi[d] < lo[d])
			return true;
	return false;
}

static int64_t offset_of(const stage_buf *sb, const int64_t *v, int n)
{
	int64_t off = 0;
	for (int d = 0; d < n; d++)
		off += (v[d] - sb->lo[d]) * sb->buf.stride[d];
	return off;
}

/* Variables are i32 (in compiled code too): a non-empty box past that
 * range is an error, not a wrapped variable. */
static bool vars_fit(pt_interp *in, const pt_stage *s, const int64_t *lo, const int64_t *hi, int n, int first)
{
	for (int d = 0; d < n; d++)
		if (hi[d] >= lo[d] && (lo[d] < INT32_MIN || hi[d] > INT32_MAX)) {
			pt_error_at(&in->ctx->diag, s->loc, "narrow the domain, or use smaller params",
				"stage '%s' has %s from %lld to %lld, past the range of its i32 variables", s->name,
				s->vars[first + d], (long long)lo[d], (long long)hi[d]);
			in->failed = true;
			return false;
		}
	return true;
}

static int alloc_stage(pt_interp *in, const pt_stage *s, stage_buf *sb)
{
	if (!eval_box(in, s->dom, s->ndim, sb->lo, sb->hi, sb->step) ||
	    !vars_fit(in, s, sb->lo, sb->hi, s->ndim, 0))
		return -1;
	int64_t ext[PT_MAX_DIMS];
	double total = 1;
	for (int d = 0; d < s->ndim; d++) {
		ext[d] = sb->hi[d] >= sb->lo[d] ? sb->hi[d] - sb->lo[d] + 1 : 0;
		total *= (double)ext[d];
	}
	if (total > 4e9) {
		pt_error_at(&in->ctx->diag, s->loc, "use smaller params", "stage '%s' would have %.0f points", s->name, total);
		return -1;
	}
	if (pt_buffer_alloc(&sb->buf, (pt_type)s->type, s->ndim, ext) != PT_OK ||
	    !(sb->defined = calloc((size_t)total + 1, 1))) {
		pt_error_at(&in->ctx->diag, s->loc, "use smaller params", "out of memory for stage '%s'", s->name);
		return -1;
	}
	return 0;
}

static void overlap_error(pt_interp *in, const pt_stage *s, int a, int b)
{
	pt_strbuf pt = {0};
	point_str(&pt, in->vars, s->ndim);
	pt_error_at(&in->ctx->diag, s->cases[b].loc, "make the conditions exclusive",
		"cases %d and %d of '%s' both hold at %s", a + 1, b + 1, s->name, pt.s);
	pt_sb_free(&pt);
	in->failed = true;
}

/* The box of s's points in the order they are computed: a backward
 * dimension (a self-read f(x+1), docs/language.md §13) from its last
 * point on the step down to its first. */
static void func_order(const pt_stage *s, const stage_buf *sb, int64_t *first, int64_t *last, int64_t *inc)
{
	for (int d = 0; d < s->ndim; d++) {
		int64_t top = sb->lo[d] + (sb->hi[d] - sb->lo[d]) / sb->step[d] * sb->step[d];
		bool back = s->backward[d];
		first[d] = back ? top : sb->lo[d];
		last[d] = back ? sb->lo[d] : top;
		inc[d] = back ? -sb->step[d] : sb->step[d];
	}
}

/* Advances an odometer over the points of func_order; false when done. */
static bool next_in_order(int64_t *v, const int64_t *first, const int64_t *last, const int64_t *inc, int n)
{
	for (int d = n - 1; d >= 0; d--) {
		v[d] += inc[d];
		if (inc[d] > 0 ? v[d] <= last[d] : v[d] >= last[d])
			return true;
		v[d] = first[d];
	}
	return false;
}

static int run_func(pt_interp *in, const pt_stage *s, stage_buf *sb)
{
	if (box_empty(sb->lo, sb->hi, s->ndim))
		return 0;
	int64_t *v = in->vars;
	int64_t first[PT_MAX_DIMS], last[PT_MAX_DIMS], inc[PT_MAX_DIMS];
	func_order(s, sb, first, last, inc);
	memcpy(v, first, sizeof(int64_t) * (size_t)s->ndim);
	do {
		int chosen = -1;
		for (int c = 0; c < s->ncases && !in->failed; c++) {
			const pt_case *k = &s->cases[c];
			bool holds = !k->cond || eval(in, k->cond).i;
			if (in->failed)
				return -1;
			if (!holds)
				continue;
			if (chosen >= 0) {
				overlap_error(in, s, chosen, c);
				break;
			}
			chosen = c;
		}
		if (in->failed)
			return -1;
		if (chosen < 0)
			continue;
		pt_val x = eval_as(in, s->cases[chosen].value, s->type);
		if (in->failed)
			return -1;
		int64_t off = offset_of(sb, v, s->ndim);
		pt_val_store(sb->buf.data, sb->buf.type, off, x);
		sb->defined[off] = 1;
	} while (next_in_order(v, first, last, inc, s->ndim));
	return 0;
}

static int run_reduce(pt_interp *in, const pt_stage *s, stage_buf *sb)
{
	pt_val init = s->init ? eval_as(in, s->init, s->type) : pt_val_identity(s->red, s->type);
	int64_t n = pt_buffer_count(&sb->buf);
	int last = s->ndim - 1;
	for (int64_t i = 0; i < n; i++) {
		if (s->ntuple) {        /* a tuple's start depends on its slot, the last dimension */
			in->vars[last] = sb->lo[last] + (i / sb->buf.stride[last]) % sb->buf.extent[last] * sb->step[last];
			init = eval_as(in, s->init, s->type);
		}
		pt_val_store(sb->buf.data, sb->buf.type, i, init);
		sb->defined[i] = 1;
	}
	/* only points on the domain's steps are defined */
	for (int d = 0; d < s->ndim; d++)
		if (sb->step[d] > 1)
			for (int64_t i = 0; i < n; i++)
				if ((i / sb->buf.stride[d]) % sb->buf.extent[d] % sb->step[d])
					sb->defined[i] = 0;
	int64_t rlo[PT_MAX_DIMS], rhi[PT_MAX_DIMS], rstep[PT_MAX_DIMS];
	if (!eval_box(in, s->rdom, s->nrdim, rlo, rhi, rstep) || !vars_fit(in, s, rlo, rhi, s->nrdim, s->ndim))
		return -1;
	if (box_empty(rlo, rhi, s->nrdim))
		return 0;
	int64_t *v = in->vars + s->ndim;
	memset(in->vars, 0, sizeof(int64_t) * (size_t)s->ndim);
	memcpy(v, rlo, sizeof(int64_t) * (size_t)s->nrdim);
	do {
		for (int c = 0; c < s->ncases; c++) {
			const pt_case *k = &s->cases[c];
			bool holds = !k->cond || eval(in, k->cond).i;
			if (in->failed)
				return -1;
			if (!holds)
				continue;
			int64_t t[PT_MAX_DIMS];
			for (int d = 0; d < s->ndim; d++)
				t[d] = index_value(in, k->target[d]);
			if (in->failed)
				return -1;
			bool inside = true;
			for (int d = 0; d < s->ndim; d++)
				inside = inside && t[d] >= sb->lo[d] && t[d] <= sb->hi[d] &&
					(t[d] - sb->lo[d]) % sb->step[d] == 0;
			if (!inside) {
				pt_strbuf tp = {0}, cur = {0};
				point_str(&tp, t, s->ndim);
				point_str(&cur, in->vars + s->ndim, s->nrdim);
				pt_error_at(&in->ctx->diag, k->loc, "clamp the target index into the reduction's domain",
					"reduction '%s' at reduction point %s updates %s%s, outside its domain",
					s->name, cur.s, s->name, tp.s);
				pt_sb_free(&tp);
				pt_sb_free(&cur);
				in->failed = true;
				return -1;
			}
			/* the value after the target's check: a tuple's value reads
			 * itself at the target (codegen checks it first too) */
			pt_val x = eval(in, k->value);
			if (in->failed)
				return -1;
			int64_t off = offset_of(sb, t, s->ndim);
			pt_val acc = pt_val_load(sb->buf.data, sb->buf.type, off);
			if (k->update) {
				in->operand[0] = acc;
				in->operand[1] = x;
				acc = eval(in, k->update);
			} else {
				acc = pt_val_reduce(s->red, s->type, acc, x, k->value->type);
			}
			pt_val_store(sb->buf.data, sb->buf.type, off, acc);
		}
	} while (next_point(v, rlo, rhi, rstep, s->nrdim));
	return 0;
}

static int run_stages(pt_interp *in);

int pt_interp_run(pt_interp *in)
{
	long failures = pt_mem_failures();
	int r = run_stages(in);
	/* the index cache out of memory: the run is not trusted (alloc.h) */
	return pt_mem_check(&in->ctx->diag, failures, "interpreting the pipeline") ? r : -1;
}

/* pt_interp_run's work. */
static int run_stages(pt_interp *in)
{
	if (pt_interp_infer_params(in) || check_inputs(in))
		return -1;
	in->failed = false;
	for (int i = 0; i < in->p->nstages; i++) {
		const pt_stage *s = in->p->stages[i];
		stage_buf *sb = &in->sb[s->id];
		pt_buffer_free(&sb->buf);
		free(sb->defined);
		sb->defined = NULL;
		if (alloc_stage(in, s, sb))
			return -1;
		in->cur = s;
		int r = s->red ? run_reduce(in, s, sb) : run_func(in, s, sb);
		if (r || in->failed)
			return -1;
		sb->done = true;
	}
	return 0;
}

const pt_buffer *pt_interp_result(pt_interp *in, const char *stage, const uint8_t **defined, int64_t *origin)
{
	pt_stage *s = pt_pipeline_find_stage(in->p, stage);
	if (!s || !in->sb[s->id].done)
		return NULL;
	stage_buf *sb = &in->sb[s->id];
	if (defined)
		*defined = sb->defined;
	if (origin)
		memcpy(origin, sb->lo, sizeof(int64_t) * (size_t)s->ndim);
	return &sb->buf;
}
