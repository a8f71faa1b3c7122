/* time_tile.c: which time-iterated stages are time tiled, and how deep
 * (time_tile.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>

#include "align.h"
#include "isl_expr.h"
#include "time_tile.h"

/* The constant c when e is var + c (var - c, c + var), else false. */
static bool offset_of(const pt_expr *e, int var, int64_t *c)
{
	if (e->kind == PT_E_CAST && pt_cast_keeps_value(e))
		return offset_of(e->args[0], var, c);
	if (e->kind == PT_E_VAR) {
		*c = 0;
		return e->index == var;
	}
	if (e->kind != PT_E_BINARY || (e->op != PT_OP_ADD && e->op != PT_OP_SUB))
		return false;
	const pt_expr *a = e->args[0], *b = e->args[1];
	if (b->kind == PT_E_INT && offset_of(a, var, c)) {
		*c += e->op == PT_OP_ADD ? b->ival : -b->ival;
		return true;
	}
	if (e->op == PT_OP_ADD && a->kind == PT_E_INT && offset_of(b, var, c)) {
		*c += a->ival;
		return true;
	}
	return false;
}

typedef struct reads_check {
	isl_ctx *ctx;
	const pt_pipeline *p;
	const pt_stage *s;
	const pt_stage *reader;
	int64_t *slope;
	const char *why;
} reads_check;

/* Whether e, an index without variables or calls, is s's last step for
 * every value of the params. */
static bool is_last_step(const reads_check *rc, const pt_expr *e)
{
	if (pt_expr_equal(e, rc->s->dom[0].hi))
		return true;
	isl_space *sp = pt_poly_stage_space(rc->ctx, rc->p, NULL, 0);
	isl_pw_aff *a = pt_poly_pw_aff(sp, e), *b = pt_poly_pw_aff(sp, rc->s->dom[0].hi);
	isl_space_free(sp);
	bool eq = a && b && isl_pw_aff_is_equal(a, b) == isl_bool_true;
	isl_pw_aff_free(a);
	isl_pw_aff_free(b);
	return eq;
}

static bool has_var_or_call(const pt_expr *e, const void *data)
{
	(void)data;
	return e->kind == PT_E_VAR || e->kind == PT_E_CALL;
}

static void check_call(const pt_expr *e, void *user)
{
	reads_check *rc = user;
	if (rc->why || e->kind != PT_E_CALL || e->stage != rc->s)
		return;
	const pt_stage *s = rc->s;
	if (rc->reader != s) {
		if (pt_expr_any(e->args[0], has_var_or_call, NULL) || !is_last_step(rc, e->args[0]))
			rc->why = "read by another stage at a step other than its last";
		return;
	}
	int64_t c;
	if (!offset_of(e->args[0], 0, &c) || c != -1) {
		rc->why = "a self-read not at the step before (t - 1)";
		return;
	}
	for (int d = 1; d < s->ndim; d++) {
		if (!offset_of(e->args[d], d, &c)) {
			rc->why = "a self-read not at a constant offset along some dimension";
			return;
		}
		int64_t a = c < 0 ? -c : c;
		rc->slope[d] = a > rc->slope[d] ? a : rc->slope[d];
	}
}

static void walk_stage(reads_check *rc, const pt_stage *r)
{
	rc->reader = r;
	if (r->init)
		pt_expr_walk(r->init, check_call, rc);
	for (int c = 0; c < r->ncases; c++) {
		if (r->cases[c].cond)
			pt_expr_walk(r->cases[c].cond, check_call, rc);
		pt_expr_walk(r->cases[c].value, check_call, rc);
		for (int d = 0; r->cases[c].target && d < r->ndim; d++)
			pt_expr_walk(r->cases[c].target[d], check_call, rc);
	}
}

const char *pt_time_tile_unfit(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s, int64_t *slope)
{
	memset(slope, 0, sizeof(int64_t) * PT_MAX_DIMS);
	if (s->red != PT_RED_NONE || !pt_stage_reads(s, s) || pt_group_recurrence_fits(s))
		return "not time-iterated";
	if (s->is_output)
		return "an output (each of its steps is kept)";
	if (s->ndim < 2 || s->dom[0].lo->kind != PT_E_INT)
		return "its first dimension (the step) does not start at a constant";
	for (int d = 0; d < s->ndim; d++)
		if (s->dom[d].step != 1 || s->backward[d])
			return "a domain with steps, or a dimension run backward";
	if (pt_poly_stage_undecided(ctx, p, s))
		return "cases decided by data";
	reads_check rc = { ctx, p, s, NULL, slope, NULL };
	for (int i = 0; i < p->nstages && !rc.why; i++)
		walk_stage(&rc, p->stages[i]);
	return rc.why;
}

/* What the model weighs for one choice of depth and sizes. */
typedef struct choice {
	int64_t K, size[PT_MAX_DIMS];
	double cost, scratch;
	bool fits;
} choice;

typedef struct shape {
	int n;
	int64_t ext[PT_MAX_DIMS];
	const int64_t *slope;
	double bytes;               /* per element */
	double lanes;
	double cache;               /* a thread's share of the shared cache */
	double byte_cost;           /* PT_TIME_TILE_BYTE_COST x threads */
	int threads;
} shape;

/* Points of a tile widened by w steps' worth of slope, clipped to the grid. */
static double widened(const shape *sh, const int64_t *size, int64_t w)
{
	double v = 1;
	for (int d = 1; d < sh->n; d++) {
		int64_t e = size[d] + 2 * sh->slope[d] * w;
		v *= (double)(e < sh->ext[d] ? e : sh->ext[d]);
	}
	return v;
}

/* Per point and step over all the steps: the trapezoids' points over
 * the tiles' (R), and the bytes from memory (the last block may be
 * shorter). */
static void weigh(const shape *sh, choice *c)
{
	int64_t S = sh->ext[0], nb = (S + c->K - 1) / c->K, L = S - (nb - 1) * c->K;
	double V = widened(sh, c->size, 0), R = 0, in = 0;
	for (int64_t j = 0; j < c->K; j++)
		R += widened(sh, c->size, j) * (double)(j < L ? nb : nb - 1);
	R /= (double)S * V;
	in = (double)(nb - 1) * widened(sh, c->size, c->K) + widened(sh, c->size, L);
	double mem = (in / V + 2 * (double)nb) * sh->bytes / (double)S;
	double row = 1 + sh->lanes / (double)c->size[sh->n - 1];
	c->cost = R * row + mem * sh->byte_cost;
	c->scratch = 2 * sh->bytes * widened(sh, c->size, c->K - 1);
	/* the threads share the outermost tile loop (codegen/cpu.c) */
	double tiles = ceil((double)sh->ext[1] / (double)c->size[1]);
	c->fits = c->scratch <= sh->cache && tiles >= 2 * sh->threads;
}

/* Better: fitting first, then cheaper. */
static bool better(const choice *a, const choice *b)
{
	return a->fits != b->fits ? a->fits : a->cost < b->cost;
}

/* The sizes of dims d.. enumerated into c, the best kept in *best. */
static void enumerate(const shape *sh, const pt_options *opt, choice *c, int d, choice *best)
{
	if (d == sh->n) {
		weigh(sh, c);
		if (best->K == 0 || better(c, best))
			*best = *c;
		return;
	}
	if (opt->ntile > 0) {
		int64_t t = d - 1 < opt->ntile ? opt->tile[d - 1] : sh->ext[d];
		c->size[d] = t < sh->ext[d] ? t : sh->ext[d];
		enumerate(sh, opt, c, d + 1, best);
		return;
	}
	for (int64_t t = PT_TILE_MODEL_MIN;; t *= 2) {
		bool whole = t >= sh->ext[d] || t > PT_TILE_MODEL_MAX;
		c->size[d] = whole ? sh->ext[d] : t;
		enumerate(sh, opt, c, d + 1, best);
		if (whole)
			break;
	}
}

static bool shape_of(const pt_stage *s, const int64_t *ip, const pt_machine *m, const int64_t *slope, shape *sh)
{
	sh->n = s->ndim;
	sh->slope = slope;
	sh->bytes = (double)pt_type_size((pt_type)s->type);
	sh->lanes = m && m->vector_bytes > 0 ? (double)m->vector_bytes / sh->bytes : 8;
	sh->threads = m && m->threads > 0 ? m->threads : 1;
	sh->cache = (m && m->l3 > 0 ? (double)m->l3 : 8.0 * 1024 * 1024) / sh->threads;
	sh->byte_cost = PT_TIME_TILE_BYTE_COST * sh->threads;
	for (int d = 0; d < s->ndim; d++) {
		int64_t lo, hi;
		if (!pt_interval_eval(&s->dom[d], ip, &lo, &hi) || hi < lo)
			return false;
		sh->ext[d] = hi - lo + 1;
	}
	return true;
}

static void fill(pt_group *g, const shape *sh, const choice *c)
{
	const pt_stage *s = g->stages[0];
	g->tsteps = (int)c->K;
	g->ntile = sh->n;
	for (int d = 0; d < sh->n; d++) {
		g->tdim[d] = d;
		g->tsize[d] = d == 0 ? c->K : c->size[d];
		g->torig[d] = s->dom[d].lo->kind == PT_E_INT ? s->dom[d].lo->ival : 0;
		g->tslope[d] = d == 0 ? 0 : sh->slope[d];
		g->ext[0][d][0] = g->ext[0][d][1] = g->tslope[d] * (c->K - 1);
	}
}

bool pt_time_tile_plan(pt_group *g, const int64_t *ip, const pt_machine *m,
	const pt_options *opt, const int64_t *slope, pt_strbuf *text)
{
	const pt_stage *s = g->stages[0];
	shape sh;
	if (opt->time_tile == 1 || !shape_of(s, ip, m, slope, &sh) || sh.ext[0] < 2) {
		if (text)
			pt_sb_printf(text, "%s: step by step (%s)\n", s->name,
				opt->time_tile == 1 ? "--time-tile 1" : "fewer than 2 steps at the estimates");
		return false;
	}
	choice best = {0};
	int64_t kmax = opt->time_tile >= 2 ? opt->time_tile : sh.ext[0] < PT_TIME_TILE_MAX_STEPS ? sh.ext[0] :
		PT_TIME_TILE_MAX_STEPS;
	for (int64_t K = opt->time_tile >= 2 ? opt->time_tile : 2; K <= kmax; K++) {
		choice c = { .K = K };
		enumerate(&sh, opt, &c, 1, &best);
	}
	double plane = sh.bytes;
	for (int d = 1; d < sh.n; d++)
		plane *= (double)sh.ext[d];
	/* step by step: each step reads the grid and writes it (its lines
	 * read first) from memory, unless both steps stay in the shared cache */
	double base = 1 + (2 * plane > sh.cache * sh.threads ? 3 * sh.bytes * sh.byte_cost : 0);
	bool forced = opt->time_tile >= 2;
	bool take = forced || (best.fits && best.cost * 1.05 < base);
	if (text) {
		pt_sb_printf(text, "%s: step by step %.3g per point and step; blocks of %lld steps in tiles", s->name, base,
			(long long)best.K);
		for (int d = 1; d < sh.n; d++)
			pt_sb_printf(text, "%s%lld", d > 1 ? "x" : " ", (long long)best.size[d]);
		pt_sb_printf(text, " %.3g (scratchpad %.0f KiB%s)%s\n", best.cost, best.scratch / 1024,
			best.fits ? "" : ", over the cache or too few tiles", forced ? ", --time-tile" : take ? ", taken" : ", not taken");
	}
	if (take)
		fill(g, &sh, &best);
	return take;
}
