/* rfactor.c: reductions factored into partial results and a merge
 * (rfactor.h says what and when). */
#include "rfactor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "rfactor_priv.h"

/* the builders of rfactor_build.c */
#define typed pt_rf_typed
#define lit pt_rf_lit
#define var pt_rf_var
#define bin pt_rf_bin
#define combine pt_rf_combine
#define fresh_var pt_rf_fresh_var
#define drop_updates pt_rf_drop_updates

/* Below this many reduction points the fork and join cost more than the
 * parts save. */
#define MIN_POINTS 65536.0
/* The partials' initialization and merge touch P points per result
 * point: factored only when the reduction visits at least this many
 * times more points, so that they add at most 1/4 of its work. */
#define MIN_RATIO (8.0 * PT_RFACTOR_PARTS)
/* The partials may take at most this many bytes at the estimates. */
#define MAX_PARTIAL_BYTES (64.0 * 1024 * 1024)
/* A part's block of the split dimension spans at least this many
 * reduction points (contiguous along x when x is innermost): a part
 * reading long runs of its input keeps the prefetcher streaming.
 * histogram 6400 x 6400 u8, 1 thread: blocks of 1 row (6.4 KB) 15-30 ms,
 * of 20 rows 12.4-16 ms, of 64 no better (a noisy machine). */
#define MIN_BLOCK_POINTS 131072.0

/* The GPU's rules.  The alternative there is the whole reduction in one
 * thread, so factoring pays far sooner: below this many points one
 * thread's loop (a few ns a point) costs about what the two more
 * launches (partials, merge) do. */
#define GPU_MIN_POINTS 16384.0
/* Fewer parts than this leave most of the device idle: not worth the
 * partials' memory and launches. */
#define GPU_MIN_PARTS 32

/* Points of iv at the estimates (0 when empty or not computable). */
static double extent(const pt_interval *iv, const int64_t *ip)
{
	int64_t lo, hi;
	if (!pt_interval_eval(iv, ip, &lo, &hi) || hi < lo)
		return 0;
	return (double)((hi - lo) / iv->step + 1);
}

/* Whether converting a value of type v to t and back gives it again. */
static bool round_trips(int v, int t)
{
	if (pt_type_is_int(v) && pt_type_is_int(t))
		return pt_type_bits(t) >= pt_type_bits(v);
	if (pt_type_is_float(t))
		return pt_type_is_float(v) ? pt_type_bits(t) >= pt_type_bits(v) :
			pt_type_bits(v) <= (t == PT_F32 ? 16 : 32);
	return false;
}

/* A copy of a general update's operator that combines two values of
 * s's type: a value operand of another type V becomes V(operand). */
static pt_expr *op_on_type(const pt_expr *op, int t);

static pt_expr *retype_val(pt_expr *e, void *user)
{
	int t = *(const int *)user;
	if (e->kind != PT_E_VAR || e->index != PT_UPD_VAL || e->type == t)
		return e;
	pt_expr *c = pt_expr_new(PT_E_CAST, e->loc);
	if (c)
		c->type = e->type;
	e->type = t;
	return pt_expr_with_args(c, 1, e, NULL, NULL);
}

static pt_expr *op_on_type(const pt_expr *op, int t)
{
	return pt_expr_map(pt_expr_copy(op), retype_val, &t);
}

/* Why s's general updates cannot be factored (into why), or NULL with
 * *a the proof of op_on_type(its operator). */
static const char *general(const pt_stage *s, bool reassociate, pt_assoc *a, char *why, size_t n)
{
	const pt_expr *op = s->cases[0].update;
	for (int c = 1; c < s->ncases; c++)
		if (!pt_expr_equal(s->cases[c].update, op))
			return "its updates combine with different operators";
	if (pt_type_is_float(s->type) && !reassociate)
		return "a float general update changes with the order (--reassociate allows it)";
	pt_expr *on = op_on_type(op, s->type);
	bool ok = on && pt_assoc_prove(on, s->type, a);
	pt_expr_free(on);
	if (!ok) {
		snprintf(why, n, "%s", on ? a->why : "out of memory");
		return why;
	}
	int v = s->cases[0].value->type;
	bool ring = a->cls != PT_ASSOC_LATTICE && pt_type_is_int(v) && pt_type_is_int(s->type);
	if (v != s->type && !ring && !round_trips(v, s->type)) {
		snprintf(why, n, "its value (%s) does not convert to %s and back unchanged, and its operator is not "
			"arithmetic or bitwise on integers", pt_ir_type_name(v), pt_ir_type_name(s->type));
		return why;
	}
	if (2 * s->ndim + 1 > PT_MAX_DIMS)
		return "its merge would have more than 8 dimensions";
	return NULL;
}

/* Why op cannot be reordered on values of type t, or NULL. */
static const char *inexact(const pt_stage *s, bool reassociate)
{
	if (s->red == PT_RED_NONE)
		return "not a reduction";
	if ((s->red == PT_RED_AND || s->red == PT_RED_OR) && s->init)
		return "an and/or reduction with an initial value (the merge would lose a value other than 0 or 1)";
	if (pt_type_is_float(s->type) && !reassociate) {
		if (s->red == PT_RED_SUM || s->red == PT_RED_PROD)
			return "a float sum or product changes with the order (--reassociate allows it)";
		if (s->red == PT_RED_MIN || s->red == PT_RED_MAX)
			return "a float min or max may change the sign of a zero result with the order (--reassociate allows it)";
	}
	return NULL;
}

/* Whether every update's target has, at one position, the outer
 * reduction variable itself: its loop writes distinct points and is
 * parallel without factoring. */
static bool outer_loop_parallel(const pt_stage *s)
{
	for (int k = 0; k < s->ndim; k++) {
		bool all = true;
		for (int c = 0; c < s->ncases && all; c++) {
			const pt_expr *t = s->cases[c].target[k];
			all = t->kind == PT_E_VAR && t->index == s->ndim;
		}
		if (all)
			return true;
	}
	return false;
}

/* The split: for the CPU, the outermost reduction dimension of step 1
 * with i32 bounds and at least 2 P points at the estimates, B values of
 * it a block; for a GPU (gpu_split), P and the dimension chosen
 * together, B = 1. */
typedef struct split {
	int d;
	int parts;              /* P */
	int64_t block;
	pt_assoc proof;         /* general updates: the operator's */
	char why[400];          /* general updates: why not factored */
	pt_rf_tuple tup;        /* tuple reductions: the operator (rfactor_tuple.c) */
} split;

/* Whether the GPU updates s atomically, every loop parallel (gpu.c's
 * atomic launches, cg_stmt_atomic: integer words' sum, min and max that
 * read not the stage; rfactor's caller checked the reads). */
static bool gpu_atomic(const pt_stage *s)
{
	bool word = s->type == PT_I32 || s->type == PT_U32 || s->type == PT_I64;
	return !s->ntuple && word && (s->red == PT_RED_SUM || s->red == PT_RED_MIN || s->red == PT_RED_MAX);
}

static bool eligible(const pt_interval *iv)
{
	return iv->step == 1 && iv->lo->type == PT_I32 && iv->hi->type == PT_I32;
}

/* The GPU's split: P the largest power of two at most the parts a GPU
 * takes, the split dimension's points, sqrt(rsize) (a part's loop then
 * no shorter than the merge's over the parts), rsize / (8 osize) (the
 * partials' initialization and merge then add at most a quarter of the
 * work) and what 64 MiB of partials hold; the dimension the one that
 * allows the most parts (the outermost of those). */
static bool gpu_split(const pt_stage *s, const int64_t *ip, double rsize, double osize, split *sp,
	const char **why)
{
	if (gpu_atomic(s))
		return !(*why = "the GPU updates it atomically with every loop parallel (privatized in shared memory "
			"when small)");
	if (rsize < GPU_MIN_POINTS)
		return !(*why = "its reduction domain is small at the estimates");
	if (2 * s->ndim + 1 > PT_MAX_DIMS)
		return !(*why = "its merge would have more than 8 dimensions");
	if (s->ndim + s->nrdim + 2 > PT_MAX_DIMS)
		return !(*why = "the partials would have more than 8 dimensions");
	double cap = PT_RFACTOR_GPU_PARTS, ratio = rsize / (8 * osize);
	double mem = MAX_PARTIAL_BYTES / (osize * pt_type_bits(s->type) / 8);
	cap = cap < ratio ? cap : ratio;
	cap = cap < mem ? cap : mem;
	cap = cap < sqrt(rsize) ? cap : sqrt(rsize);
	int best = 0;
	for (int d = 0; d < s->nrdim; d++) {
		double e = extent(&s->rdom[d], ip), c = e < cap ? e : cap;
		int p = 1;
		while (2.0 * p <= c)
			p *= 2;
		if (eligible(&s->rdom[d]) && p > best) {
			best = p;
			sp->d = d;
		}
	}
	sp->parts = best;
	sp->block = 1;
	if (best >= GPU_MIN_PARTS)
		return true;
	*why = ratio < GPU_MIN_PARTS ? "its reduction domain is not large against its result at the estimates" :
		mem < GPU_MIN_PARTS ? "its partial results would take more than 64 MiB" :
		"no reduction dimension of step 1 spans 32 points at the estimates";
	return false;
}

/* Whether s is worth factoring (and can be) for target: *sp set; else
 * *why.  Which reductions may be reordered is the same for every
 * target. */
static bool choose(const pt_stage *s, const int64_t *ip, bool reassociate, pt_rf_target target, split *sp,
	const char **why, double *ratio)
{
	double rsize = 1, osize = 1;
	for (int i = 0; i < s->ndim; i++)
		osize *= extent(&s->dom[i], ip);
	for (int i = 0; i < s->nrdim; i++)
		rsize *= extent(&s->rdom[i], ip);
	*ratio = osize > 0 ? rsize / osize : 0;
	if (s->ntuple ? (*why = pt_rf_tuple_why(s, reassociate, &sp->tup)) != NULL :
		s->red == PT_RED_UPDATE ? (*why = general(s, reassociate, &sp->proof, sp->why, sizeof sp->why)) != NULL :
		(*why = inexact(s, reassociate)) != NULL)
		return false;
	if (!s->ntuple && pt_stage_reads(s, s))     /* a tuple reads its own slots at its target */
		return !(*why = "it reads itself");
	if (outer_loop_parallel(s))
		return !(*why = "its outer reduction loop is parallel already (each of its points updates its own result points)");
	if (target == PT_RF_GPU)
		return osize > 0 ? gpu_split(s, ip, rsize, osize, sp, why) :
			!(*why = "its result is empty at the estimates");
	sp->parts = PT_RFACTOR_PARTS;
	if (rsize < MIN_POINTS)
		return !(*why = "its reduction domain is small at the estimates");
	if (rsize < MIN_RATIO * osize)
		return !(*why = "its reduction domain is not large against its result at the estimates");
	if (osize * PT_RFACTOR_PARTS * pt_type_bits(s->type) / 8 > MAX_PARTIAL_BYTES)
		return !(*why = "its partial results would take more than 64 MiB");
	double inner = rsize;
	for (int d = 0; d < s->nrdim; d++) {
		const pt_interval *iv = &s->rdom[d];
		double e = extent(iv, ip);
		inner /= e > 0 ? e : 1;
		if (!eligible(iv) || e < 2 * PT_RFACTOR_PARTS)
			continue;
		/* blocks of B values of x: B x (points inside x) >= MIN_BLOCK_POINTS,
		 * and no more than one block per part at the estimates */
		int64_t b = inner >= MIN_BLOCK_POINTS ? 1 : (int64_t)(MIN_BLOCK_POINTS / inner + 0.5);
		int64_t per = (int64_t)((e + PT_RFACTOR_PARTS - 1) / PT_RFACTOR_PARTS);
		sp->d = d;
		sp->block = b < per ? b : per;
		/* part, and the split's part, block (and in) variables; blocks
		 * of one value of x where an in variable would not fit */
		if (s->ndim + s->nrdim + 3 > PT_MAX_DIMS)
			sp->block = 1;
		if (s->ndim + s->nrdim + (sp->block > 1 ? 3 : 2) > PT_MAX_DIMS)
			return !(*why = "the partials would have more than 8 dimensions");
		return true;
	}
	return !(*why = "no reduction dimension of step 1 spans 2 points per part at the estimates");
}

/* The partial's variables for the original ones: ndim result variables
 * (after part), the split one replaced by lo + (blk * P + q) * B + in. */
typedef struct remap {
	const pt_stage *s;
	split sp;
	int q, blk, in;         /* the new variables' indices (in: -1 when B = 1) */
} remap;

static int new_index(const remap *r, int j)
{
	int n = r->s->ndim, shift = r->in >= 0 ? 1 : 0;
	if (j < n)
		return j + 1;
	j -= n;
	return n + 1 + 1 + j + (j > r->sp.d ? shift : 0);
}

static pt_expr *split_value(const remap *r, pt_loc loc)
{
	int64_t pb = r->sp.parts * r->sp.block;
	const pt_expr *lo = r->s->rdom[r->sp.d].lo;
	pt_expr *e = bin(PT_OP_MUL, var(r->blk, loc), lit(pb, loc), PT_I32, loc);
	if (lo->kind != PT_E_INT || lo->ival != 0)
		e = bin(PT_OP_ADD, pt_expr_copy(lo), e, PT_I32, loc);
	pt_expr *q = var(r->q, loc);
	if (r->sp.block > 1)
		q = bin(PT_OP_MUL, q, lit(r->sp.block, loc), PT_I32, loc);
	e = bin(PT_OP_ADD, e, q, PT_I32, loc);
	return r->in >= 0 ? bin(PT_OP_ADD, e, var(r->in, loc), PT_I32, loc) : e;
}

static pt_expr *map_var(pt_expr *e, void *user)
{
	const remap *r = user;
	if (e->kind != PT_E_VAR)
		return e;
	if (e->index == r->s->ndim + r->sp.d) {
		pt_loc loc = e->loc;
		pt_expr_free(e);
		return split_value(r, loc);
	}
	e->index = new_index(r, e->index);
	return e;
}

static pt_expr *mapped(const remap *r, const pt_expr *e)
{
	return e ? pt_expr_map(pt_expr_copy(e), map_var, (void *)r) : NULL;
}

/* ---- the partial reduction ---- */

/* name, or name with the first free number appended, not yet in p. */
static char *fresh_stage_name(const pt_pipeline *p, const char *base)
{
	size_t n = strlen(base) + 24;
	char *s = malloc(n);
	if (!s)
		return NULL;
	snprintf(s, n, "%s", base);
	for (int k = 2; pt_pipeline_find_stage(p, s) || pt_pipeline_find_image(p, s) ||
		pt_pipeline_find_param(p, s) >= 0; k++)
		snprintf(s, n, "%s%d", base, k);
	return s;
}

static pt_interval range(int64_t lo, pt_expr *hi, pt_loc loc)
{
	return (pt_interval){.lo = lit(lo, loc), .hi = hi, .step = 1};
}

/* The partial's variables and intervals (r's indices set). */
static bool partial_vars(pt_stage *t, const pt_stage *s, remap *r)
{
	int n = s->ndim, m = s->nrdim, extra = r->sp.block > 1 ? 3 : 2;
	pt_loc loc = s->loc;
	t->ndim = n + 1;
	t->nrdim = m - 1 + extra;
	t->vars = pt_mem_calloc((size_t)(t->ndim + t->nrdim), sizeof(char *));
	t->dom = pt_mem_calloc((size_t)t->ndim, sizeof(pt_interval));
	t->rdom = pt_mem_calloc((size_t)t->nrdim, sizeof(pt_interval));
	if (!t->vars || !t->dom || !t->rdom)
		return false;
	r->q = n + 1;
	r->blk = n + 2 + r->sp.d;
	r->in = r->sp.block > 1 ? r->blk + 1 : -1;
	const char *x = s->vars[n + r->sp.d];
	char buf[PT_MAX_DIMS * 8 + 64];
	t->vars[0] = fresh_var(s, t->vars, 0, "part");
	t->dom[0] = range(0, lit(r->sp.parts - 1, loc), loc);
	for (int i = 0; i < n; i++) {
		t->vars[i + 1] = pt_mem_strdup(s->vars[i]);
		t->dom[i + 1] = (pt_interval){pt_expr_copy(s->dom[i].lo), pt_expr_copy(s->dom[i].hi), s->dom[i].step};
	}
	snprintf(buf, sizeof buf, "%.40s_part", x);
	t->vars[r->q] = fresh_var(s, t->vars, t->ndim + t->nrdim, buf);
	t->rdom[0] = range(0, lit(r->sp.parts - 1, loc), loc);
	for (int j = 0; j < m; j++) {
		if (j == r->sp.d)
			continue;
		int k = new_index(r, n + j);
		t->vars[k] = pt_mem_strdup(s->vars[n + j]);
		t->rdom[k - t->ndim] = (pt_interval){pt_expr_copy(s->rdom[j].lo), pt_expr_copy(s->rdom[j].hi),
			s->rdom[j].step};
	}
	/* blk : 0 .. (hi - lo) / (P B); in : 0 .. B - 1 */
	const pt_interval *iv = &s->rdom[r->sp.d];
	snprintf(buf, sizeof buf, "%.40s_blk", x);
	t->vars[r->blk] = fresh_var(s, t->vars, t->ndim + t->nrdim, buf);
	pt_expr *span = iv->lo->kind == PT_E_INT && iv->lo->ival == 0 ? pt_expr_copy(iv->hi) :
		bin(PT_OP_SUB, pt_expr_copy(iv->hi), pt_expr_copy(iv->lo), PT_I32, loc);
	t->rdom[r->blk - t->ndim] = range(0, bin(PT_OP_DIV, span, lit(r->sp.parts * r->sp.block, loc),
		PT_I32, loc), loc);
	if (r->in >= 0) {
		snprintf(buf, sizeof buf, "%.40s_in", x);
		t->vars[r->in] = fresh_var(s, t->vars, t->ndim + t->nrdim, buf);
		t->rdom[r->in - t->ndim] = range(0, lit(r->sp.block - 1, loc), loc);
	}
	for (int i = 0; i < t->ndim + t->nrdim; i++)
		if (!t->vars[i] || !(i < t->ndim ? t->dom[i].lo && t->dom[i].hi :
			t->rdom[i - t->ndim].lo && t->rdom[i - t->ndim].hi))
			return false;
	return true;
}

/* Update c of s for part q: where x is inside its interval (and c's
 * condition holds), target (q, c's target). */
static bool partial_case(pt_stage *t, const pt_stage *s, const remap *r, int c)
{
	const pt_case *sc = &s->cases[c];
	pt_case *tc = &t->cases[c];
	pt_loc loc = sc->loc;
	tc->loc = loc;
	pt_expr *inside = bin(PT_OP_LE, split_value(r, loc), pt_expr_copy(s->rdom[r->sp.d].hi), PT_BOOL, loc);
	tc->cond = sc->cond ? bin(PT_OP_AND, inside, mapped(r, sc->cond), PT_BOOL, loc) : inside;
	tc->value = mapped(r, sc->value);
	if (sc->update) {       /* op on two values of the type (op_on_type) */
		tc->update = op_on_type(sc->update, s->type);
		if (tc->value && tc->value->type != s->type) {
			pt_expr *c = typed(pt_expr_new(PT_E_CAST, loc), s->type);
			tc->value = pt_expr_with_args(c, 1, tc->value, NULL, NULL);
		}
		if (!tc->update)
			return false;
	}
	tc->target = pt_mem_calloc((size_t)t->ndim, sizeof(pt_expr *));
	if (!tc->target)
		return false;
	tc->target[0] = var(r->q, loc);
	for (int k = 0; k < s->ndim; k++)
		tc->target[k + 1] = mapped(r, sc->target[k]);
	for (int k = 0; k < t->ndim; k++)
		if (!tc->target[k])
			return false;
	return tc->cond && tc->value;
}

/* The identity v of type t as a literal. */
static pt_expr *identity(pt_val v, int t, pt_loc loc)
{
	return typed(pt_type_is_float(t) ? pt_expr_float(v.f, loc) : pt_expr_int(v.i, loc), t);
}

static pt_stage *partial(const pt_pipeline *p, const pt_stage *s, const split *spp)
{
	split sp = *spp;
	/* h_part, or h_part2 ... */
	char *full = malloc(strlen(s->name) + 8);
	if (full)
		sprintf(full, "%s_part", s->name);
	char *name = full ? fresh_stage_name(p, full) : NULL;
	free(full);
	pt_stage *t = name ? pt_stage_new(name, s->loc) : NULL;
	free(name);
	if (!t)
		return NULL;
	t->type = s->type;
	t->red = s->red;
	remap r = {.s = s, .sp = sp};
	if (!partial_vars(t, s, &r))
		return pt_stage_free(t);
	t->cases = pt_mem_calloc((size_t)s->ncases, sizeof(pt_case));
	if (!t->cases)
		return pt_stage_free(t);
	t->ncases = s->ncases;
	for (int c = 0; c < s->ncases; c++)
		if (!partial_case(t, s, &r, c))
			return pt_stage_free(t);
	/* a general update's partials start at its identity */
	if (s->red == PT_RED_UPDATE && !s->ntuple && !(t->init = identity(sp.proof.identity, s->type, s->loc)))
		return pt_stage_free(t);
	return t;
}

/* ---- the merge ---- */

/* [init OP] t(0, D) OP .. OP t(P-1, D). */
static pt_expr *merge_value(const pt_stage *s, const pt_stage *t, int parts)
{
	pt_loc loc = s->loc;
	pt_expr *acc = NULL;
	if (s->init) {
		acc = pt_expr_copy(s->init);
		if (acc && acc->type != s->type) {
			pt_expr *c = typed(pt_expr_new(PT_E_CAST, loc), s->type);
			acc = pt_expr_with_args(c, 1, acc, NULL, NULL);
		}
		if (!acc)
			return NULL;
	}
	for (int k = 0; k < parts; k++) {
		pt_expr *call = typed(pt_expr_new(PT_E_CALL, loc), s->type);
		if (!call || !(call->name = pt_mem_strdup(t->name)))
			return pt_expr_free(call), pt_expr_free(acc);
		call->stage = (pt_stage *)t;
		bool ok = pt_expr_push_arg(call, lit(k, loc));
		for (int i = 0; i < s->ndim && ok; i++)
			ok = pt_expr_push_arg(call, var(i, loc));
		if (!ok)
			return pt_expr_free(call), pt_expr_free(acc);
		acc = acc ? combine(s->red, acc, call, s->type, loc) : call;
		if (!acc)
			return NULL;
	}
	return acc;
}

/* s becomes the plain function whose value is v (taken). */
static void become_merge(pt_stage *s, pt_expr *v)
{
	drop_updates(s);
	s->ncases = 1;
	s->cases[0] = (pt_case){.cond = NULL, .value = v, .target = NULL, .loc = s->loc};
	s->init = pt_expr_free(s->init);
	s->red = PT_RED_NONE;
}

/* s (general updates) becomes the reduction that folds t's parts into
 * each point, from its initial value, with the operator op (taken):
 *   reduce h(D) over (D', part) init I | h(D') = op(h(D'), t(part, D'))
 * Its outer loop is parallel (each point of D' updates its own). */
static bool become_merge_reduce(pt_stage *s, const pt_stage *t, pt_expr *op, int parts)
{
	int n = s->ndim;
	pt_loc loc = s->loc;
	char **vars = pt_mem_calloc((size_t)(2 * n + 1), sizeof(char *));
	pt_interval *rdom = pt_mem_calloc((size_t)(n + 1), sizeof(pt_interval));
	pt_expr **target = pt_mem_calloc((size_t)n, sizeof(pt_expr *));
	pt_expr *call = typed(pt_expr_new(PT_E_CALL, loc), s->type);
	bool ok = vars && rdom && target && call && (call->name = pt_mem_strdup(t->name));
	for (int i = 0; ok && i < n; i++) {
		char buf[80];
		snprintf(buf, sizeof buf, "%.60s_m", s->vars[i]);
		ok = (vars[i] = pt_mem_strdup(s->vars[i])) && (vars[n + i] = fresh_var(s, vars, n + i, buf)) &&
			(target[i] = var(n + i, loc));
		rdom[i] = (pt_interval){pt_expr_copy(s->dom[i].lo), pt_expr_copy(s->dom[i].hi), s->dom[i].step};
		ok = ok && rdom[i].lo && rdom[i].hi;
	}
	if (ok) {
		call->stage = (pt_stage *)t;
		vars[2 * n] = fresh_var(s, vars, 2 * n, "part");
		rdom[n] = range(0, lit(parts - 1, loc), loc);
		ok = vars[2 * n] && rdom[n].lo && rdom[n].hi && pt_expr_push_arg(call, var(2 * n, loc));
		for (int i = 0; ok && i < n; i++)
			ok = pt_expr_push_arg(call, var(n + i, loc));
	}
	pt_case *cs = ok ? pt_mem_calloc(1, sizeof(pt_case)) : NULL;
	if (!cs) {
		for (int i = 0; vars && i < 2 * n + 1; i++)
			free(vars[i]);
		for (int i = 0; rdom && i <= n; i++) {
			pt_expr_free(rdom[i].lo);
			pt_expr_free(rdom[i].hi);
		}
		for (int i = 0; target && i < n; i++)
			pt_expr_free(target[i]);
		free(vars), free(rdom), free(target), pt_expr_free(call), pt_expr_free(op);
		return false;
	}
	*cs = (pt_case){.cond = NULL, .value = call, .target = target, .update = op, .loc = loc};
	drop_updates(s);
	free(s->cases);
	for (int i = 0; i < n; i++)
		free(s->vars[i]);
	free(s->vars);
	s->vars = vars;
	s->rdom = rdom;
	s->nrdim = n + 1;
	s->cases = cs;
	s->ncases = 1;
	return true;
}

/* Inserts t into q before position i (ids renumbered). */
static bool insert_before(pt_pipeline *q, pt_stage *t, int i)
{
	if (!pt_pipeline_add_stage(q, t))
		return false;
	memmove(&q->stages[i + 1], &q->stages[i], (size_t)(q->nstages - 1 - i) * sizeof(pt_stage *));
	q->stages[i] = t;
	for (int k = 0; k < q->nstages; k++)
		q->stages[k]->id = k;
	return true;
}

/* A built-in operator as a general update's, op(PT_UPD_ACC, PT_UPD_VAL)
 * on values of s's type, with s's initial value (the operator's
 * identity without one): a merge over thousands of parts is a loop, not
 * an expression. */
static pt_expr *builtin_as_update(pt_stage *s)
{
	pt_expr *a = var(PT_UPD_ACC, s->loc), *v = var(PT_UPD_VAL, s->loc);
	if (a)
		a->type = s->type;
	if (v)
		v->type = s->type;
	pt_expr *init = s->init ? pt_expr_copy(s->init) : identity(pt_val_identity(s->red, s->type), s->type, s->loc);
	if (init && init->type != s->type)
		init = pt_expr_with_args(typed(pt_expr_new(PT_E_CAST, s->loc), s->type), 1, init, NULL, NULL);
	pt_expr *op = combine(s->red, a, v, s->type, s->loc);
	if (!op || !init)
		return pt_expr_free(init), pt_expr_free(op);
	pt_expr_free(s->init);
	s->init = init;
	s->red = PT_RED_UPDATE;
	return op;
}

/* Factors q->stages[i] as sp says; false: out of memory (q unchanged
 * but for a general update's merge, which the caller then drops). */
static bool factor(pt_pipeline *q, int i, const split *sp)
{
	pt_stage *s = q->stages[i];
	pt_stage *t = partial(q, s, sp);
	if (s->ntuple) {
		if (!t || !insert_before(q, t, i)) {
			pt_stage_free(t);
			return false;
		}
		pt_rf_tuple tp = sp->tup;
		tp.parts = sp->parts;
		return pt_rf_tuple_factor(s, t, &tp);
	}
	if (s->red == PT_RED_UPDATE || sp->parts > PT_RFACTOR_PARTS) {
		pt_expr *op = !t ? NULL : s->red == PT_RED_UPDATE ? pt_expr_copy(t->cases[0].update) :
			builtin_as_update(s);
		if (!op || !insert_before(q, t, i)) {
			pt_expr_free(op);
			pt_stage_free(t);
			return false;
		}
		return become_merge_reduce(s, t, op, sp->parts);
	}
	pt_expr *v = t ? merge_value(s, t, sp->parts) : NULL;
	if (!v || !insert_before(q, t, i)) {
		pt_expr_free(v);
		pt_stage_free(t);
		return false;
	}
	become_merge(s, v);
	return true;
}

pt_pipeline *pt_poly_rfactor(const pt_pipeline *p, const int64_t *ip, bool reassociate, char **log,
	int *nfactored)
{
	return pt_poly_rfactor_for(p, ip, reassociate, PT_RF_CPU, log, nfactored);
}

pt_pipeline *pt_poly_rfactor_for(const pt_pipeline *p, const int64_t *ip, bool reassociate, pt_rf_target target,
	char **log, int *nfactored)
{
	pt_pipeline *q = pt_pipeline_copy(p);
	pt_strbuf b = {0};
	int n = 0;
	for (int i = 0; q && i < q->nstages; i++) {
		const pt_stage *s = q->stages[i];
		if (s->red == PT_RED_NONE)
			continue;
		split sp = {0};
		const char *why;
		double ratio;
		if (!choose(s, ip, reassociate, target, &sp, &why, &ratio)) {
			pt_sb_printf(&b, "reduction %s: not factored: %s\n", s->name, why);
			pt_rf_tuple_clear(&sp.tup);
			continue;
		}
		char x[64];     /* the split variable, gone from the merge */
		snprintf(x, sizeof x, "%s", s->vars[s->ndim + sp.d]);
		bool reassoc = pt_type_is_float(s->type) && s->red != PT_RED_AND && s->red != PT_RED_OR;
		char proof[320] = "";
		if (s->red == PT_RED_UPDATE) {
			pt_val e = sp.proof.identity;
			char id[40];
			if (pt_type_is_float(s->type))
				snprintf(id, sizeof id, "%g", e.f);
			else
				snprintf(id, sizeof id, "%lld", (long long)e.i);
			snprintf(proof, sizeof proof, "; its operator proved associative and commutative (as %s), identity %s",
				sp.proof.cls == PT_ASSOC_LATTICE ? "a min/max" : sp.proof.cls == PT_ASSOC_BITWISE ? "a bitwise" :
				"a polynomial", id);
		}
		if (s->ntuple)
			snprintf(proof, sizeof proof, "; %s", sp.tup.how);
		bool done = factor(q, i, &sp);
		pt_rf_tuple_clear(&sp.tup);
		if (!done) {
			q = pt_pipeline_free(q);
			break;
		}
		const pt_stage *t = q->stages[i], *m = q->stages[i + 1];
		char shape[64];
		snprintf(shape, sizeof shape, target == PT_RF_GPU ? "a GPU thread each" : "blocks of %lld",
			(long long)sp.block);
		pt_sb_printf(&b, "reduction %s: factored into %d parts along %s (%s), %.0f reduction "
			"points per result point at the estimates%s%s; partials %s, merged in %s\n", m->name,
			sp.parts, x, shape, ratio, proof,
			reassoc ? ", reassociated (--reassociate)" : "", t->name, m->name);
		n++;
		i++;    /* past the merge */
	}
	if (nfactored)
		*nfactored = n;
	if (log)
		*log = q ? pt_sb_take(&b) : NULL;
	pt_sb_free(&b);
	return q;
}

