/* rfactor.c: reductions factored into partial results and a merge
 * (rfactor.h says what and when). */
#include "rfactor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"

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
 * reduction points (contiguous along x when x is innermost). */
#define MIN_BLOCK_POINTS 1024.0

/* Points of iv at the estimates (0 when empty or not computable). */
static double extent(const pt_interval *iv, const int64_t *ip)
{
	int64_t lo, hi;
	if (!pt_interval_eval(iv, ip, &lo, &hi) || hi < lo)
		return 0;
	return (double)((hi - lo) / iv->step + 1);
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

/* The split: the outermost reduction dimension of step 1 with i32
 * bounds and at least 2 P points at the estimates; *block: B. */
typedef struct split {
	int d;
	int64_t block;
} split;

/* Whether s is worth factoring (and can be): *sp set; else *why. */
static bool choose(const pt_stage *s, const int64_t *ip, bool reassociate, split *sp, const char **why,
	double *ratio)
{
	double rsize = 1, osize = 1;
	for (int i = 0; i < s->ndim; i++)
		osize *= extent(&s->dom[i], ip);
	for (int i = 0; i < s->nrdim; i++)
		rsize *= extent(&s->rdom[i], ip);
	*ratio = osize > 0 ? rsize / osize : 0;
	if ((*why = inexact(s, reassociate)))
		return false;
	if (pt_stage_reads(s, s))
		return !(*why = "it reads itself");
	if (outer_loop_parallel(s))
		return !(*why = "its outer reduction loop is parallel already (each of its points updates its own result points)");
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
		if (iv->step != 1 || iv->lo->type != PT_I32 || iv->hi->type != PT_I32 || e < 2 * PT_RFACTOR_PARTS)
			continue;
		/* blocks of B values of x: B x (points inside x) >= MIN_BLOCK_POINTS,
		 * and no more than one block per part at the estimates */
		int64_t b = inner >= MIN_BLOCK_POINTS ? 1 : (int64_t)(MIN_BLOCK_POINTS / inner + 0.5);
		int64_t per = (int64_t)((e + PT_RFACTOR_PARTS - 1) / PT_RFACTOR_PARTS);
		sp->d = d;
		sp->block = b < per ? b : per;
		/* part, and the split's part, block (and in) variables */
		if (s->ndim + s->nrdim + (sp->block > 1 ? 3 : 2) > PT_MAX_DIMS)
			return !(*why = "the partials would have more than 8 dimensions");
		return true;
	}
	return !(*why = "no reduction dimension of step 1 spans 2 points per part at the estimates");
}

/* ---- expression builders (typed as the checker would type them) ---- */

static pt_expr *typed(pt_expr *e, int type)
{
	if (e)
		e->type = type;
	return e;
}

static pt_expr *lit(int64_t v, pt_loc loc)
{
	return typed(pt_expr_int(v, loc), PT_I32);
}

static pt_expr *var(int index, pt_loc loc)
{
	pt_expr *e = typed(pt_expr_new(PT_E_VAR, loc), PT_I32);
	if (e)
		e->index = index;
	return e;
}

static pt_expr *bin(int op, pt_expr *a, pt_expr *b, int type, pt_loc loc)
{
	return typed(pt_expr_binary(op, a, b, loc), type);
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
	int64_t pb = PT_RFACTOR_PARTS * r->sp.block;
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

/* base made distinct from s's variables names[0..n). */
static char *fresh_var(const pt_stage *s, char **names, int n, const char *base)
{
	size_t len = strlen(base) + 24;
	char *v = malloc(len);
	if (!v)
		return NULL;
	snprintf(v, len, "%s", base);
	for (int k = 2;; k++) {
		bool taken = false;
		for (int i = 0; i < s->ndim + s->nrdim && !taken; i++)
			taken = !strcmp(s->vars[i], v);
		for (int i = 0; i < n && !taken; i++)
			taken = names[i] && !strcmp(names[i], v);
		if (!taken)
			return v;
		snprintf(v, len, "%s%d", base, k);
	}
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
	t->dom[0] = range(0, lit(PT_RFACTOR_PARTS - 1, loc), loc);
	for (int i = 0; i < n; i++) {
		t->vars[i + 1] = pt_mem_strdup(s->vars[i]);
		t->dom[i + 1] = (pt_interval){pt_expr_copy(s->dom[i].lo), pt_expr_copy(s->dom[i].hi), s->dom[i].step};
	}
	snprintf(buf, sizeof buf, "%.40s_part", x);
	t->vars[r->q] = fresh_var(s, t->vars, t->ndim + t->nrdim, buf);
	t->rdom[0] = range(0, lit(PT_RFACTOR_PARTS - 1, loc), loc);
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
	t->rdom[r->blk - t->ndim] = range(0, bin(PT_OP_DIV, span, lit(PT_RFACTOR_PARTS * r->sp.block, loc),
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

static pt_stage *partial(const pt_pipeline *p, const pt_stage *s, split sp)
{
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
	return t;
}

/* ---- the merge ---- */

static pt_expr *combine(pt_redop op, pt_expr *a, pt_expr *b, int type, pt_loc loc)
{
	switch (op) {
	case PT_RED_SUM: return bin(PT_OP_ADD, a, b, type, loc);
	case PT_RED_PROD: return bin(PT_OP_MUL, a, b, type, loc);
	default: {
		/* and/or of 0/1 partials are their min/max */
		bool mn = op == PT_RED_MIN || op == PT_RED_AND;
		pt_expr *e = typed(pt_expr_new(PT_E_INTRIN, loc), type);
		if (e)
			e->op = mn ? PT_IN_MIN : PT_IN_MAX;
		return pt_expr_with_args(e, 2, a, b, NULL);
	}
	}
}

/* [init OP] t(0, D) OP .. OP t(P-1, D). */
static pt_expr *merge_value(const pt_stage *s, const pt_stage *t)
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
	for (int k = 0; k < PT_RFACTOR_PARTS; k++) {
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
	for (int i = 0; i < s->nrdim; i++) {
		free(s->vars[s->ndim + i]);
		pt_expr_free(s->rdom[i].lo);
		pt_expr_free(s->rdom[i].hi);
	}
	free(s->rdom);
	s->rdom = NULL;
	s->nrdim = 0;
	for (int c = 0; c < s->ncases; c++) {
		pt_expr_free(s->cases[c].cond);
		pt_expr_free(s->cases[c].value);
		for (int k = 0; k < s->ndim; k++)
			pt_expr_free(s->cases[c].target[k]);
		free(s->cases[c].target);
	}
	s->ncases = 1;
	s->cases[0] = (pt_case){.cond = NULL, .value = v, .target = NULL, .loc = s->loc};
	s->init = pt_expr_free(s->init);
	s->red = PT_RED_NONE;
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

/* Factors q->stages[i] as sp says; false: out of memory (q unchanged). */
static bool factor(pt_pipeline *q, int i, split sp)
{
	pt_stage *s = q->stages[i];
	pt_stage *t = partial(q, s, sp);
	pt_expr *v = t ? merge_value(s, t) : NULL;
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
	pt_pipeline *q = pt_pipeline_copy(p);
	pt_strbuf b = {0};
	int n = 0;
	for (int i = 0; q && i < q->nstages; i++) {
		const pt_stage *s = q->stages[i];
		if (s->red == PT_RED_NONE)
			continue;
		split sp;
		const char *why;
		double ratio;
		if (!choose(s, ip, reassociate, &sp, &why, &ratio)) {
			pt_sb_printf(&b, "reduction %s: not factored: %s\n", s->name, why);
			continue;
		}
		char x[64];     /* the split variable, gone from the merge */
		snprintf(x, sizeof x, "%s", s->vars[s->ndim + sp.d]);
		bool reassoc = pt_type_is_float(s->type) && s->red != PT_RED_AND && s->red != PT_RED_OR;
		if (!factor(q, i, sp)) {
			q = pt_pipeline_free(q);
			break;
		}
		const pt_stage *t = q->stages[i], *m = q->stages[i + 1];
		pt_sb_printf(&b, "reduction %s: factored into %d parts along %s (blocks of %lld), %.0f reduction "
			"points per result point at the estimates%s; partials %s, merged in %s\n", m->name,
			PT_RFACTOR_PARTS, x, (long long)sp.block, ratio,
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
