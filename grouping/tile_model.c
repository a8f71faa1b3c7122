/* tile_model.c: a group's tile sizes from a cost model, solved as a
 * multiple-choice 0-1 program with PPL's MIP solver (see tile_model.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gmp.h>
#include <ppl_c.h>

#include "tile_model.h"
#include "gpu_model.h"
#include "tile_facts.h"
#include "target_desc.h"

/* Logs are scaled by this and rounded to integers (PPL's coefficients):
 * 1/1000 of a natural log is 0.1% of a factor, below timing noise. */
#define SCALE 1000.0
/* Scratchpads may fill this fraction of L2: the rest is for the tile's
 * inputs and live-out rows streaming through, and the other stages'
 * lines the fused nests touch (PolyMage sizes tiles for L2 likewise). */
#define L2_SHARE 0.5
/* Tiles along the parallel (outermost) dim per thread at least, so that
 * each thread has work even when the estimates overstate the extent. */
#define TILES_PER_THREAD 2
/* The gain when a tile's scratchpads also fit in L1 (z = 1 below): its
 * stages then read their producers from L1, not L2; ln(1.25), what the
 * tuner measured on blur (64x128, 17 KB of scratchpad, against 128x512
 * at 130 KB). */
#define L1_GAIN 0.223
#define BIG_M 1000000
/* A tile does at least this many points: each tile pays for its loop
 * nests' setup, every stage's rows restarting and the scratchpads'
 * bases, which the per-edge terms do not count. */
#define MIN_TILE_POINTS 1024
/* Scratchpads count as in L1 (z = 1) when they fill at most this share of
 * it: the tile's input rows and live-out rows pass through L1 too. */
#define L1_SHARE 0.5
/* Per outer tiled dim, ROWS_WEIGHT * ln(t_k + o_k): a tile streams
 * t_k + o_k rows of each input and t_k of each output at once (per row of
 * the outer dims), and fewer streams are faster to fetch.  In the tuner's
 * sweeps (1 and 2 threads) tiles 8 rows tall were the fastest or within
 * 6% of it on harris, blur and sobel, and 16 or more up to 1.4x slower on
 * blur and sobel; 0.4 makes 8 rows win over 16 against the overlap's
 * cost, ln((1 + 3/8) / (1 + 3/16)) = 0.15, with a margin.  Along a dim
 * where a stage is scaled (a pyramid's levels, s the largest scale) the
 * coarsest stage's rows count, and only past SCALED_ROWS of them:
 * ROWS_WEIGHT * ln(max(1, t_k / (SCALED_ROWS s))).  interpolate was about
 * 1.2x slower at 8 rows than at 32 to 128; camera_pipe (half-resolution
 * planes, s = 2) 1.06-1.12x faster at 64 rows than at 256 with the
 * same footprint bound. */
#define ROWS_WEIGHT 0.4
#define SCALED_ROWS 32
/* Per innermost point past ROW_POINTS per row of the group's finest
 * stage: INNER_WEIGHT * ln(t / (ROW_POINTS * scale)).  Longer rows were
 * slower in every sweep (8x256 against 8x128: harris 1.12x, sobel 1.07x,
 * blur 1.38x; 8x512: 1.2-1.6x), although their footprints fit the same
 * cache; groups with a stage at half resolution along the innermost dim
 * (pyramids) were fastest at 256, 128 points per row of their coarser
 * stages (pyramid_blend, local_laplacian, interpolate).  0.3 outweighs
 * the per-row term's gain from 128 to 256 (0.18 at 64 lanes). */
#define ROW_POINTS 128
#define INNER_WEIGHT 0.3
/* The bound on a tile's redundant work, whatever the grouping's
 * threshold: the objective prices the overlap, this keeps it from
 * trading more than half of the work again for other terms. */
#define MAX_OVERLAP 0.5

enum { C_VOLUME, C_OVERLAP, C_TILES, C_FOOTPRINT, C_L1, NCONSTR };
static const char *const constr_name[NCONSTR] = { "volume", "overlap", "tiles", "footprint", "L1" };

typedef struct mdim {
	int gd;                     /* group dim */
	int64_t extent;             /* E_k at the estimates, group coordinates */
	int64_t overlap;            /* o_k: widest widening (l + r) */
	int64_t widen;              /* W_k: bounds every scratchpad's extra points */
	int ncand;
	int64_t cand[16];
	int var0;                   /* first variable of this dim */
} mdim;

typedef struct model {
	int ndim, nv, lanes;         /* variables: the sizes', then z (scratchpads in L1) */
	int64_t maxscale[PT_MAX_DIMS]; /* per tiled dim: the largest scale of a stage along it */
	mdim d[PT_MAX_DIMS];
	double bytes;               /* B: scratchpad bytes per point of prod (t_k + W_k) */
	int64_t obj[128], cons[NCONSTR][128], rhs[NCONSTR];
	bool ge[NCONSTR];           /* >= instead of <= */
	bool has[NCONSTR];
} model;

static bool fail_for_test;

void pt_tile_model_fail_for_test(bool fail)
{
	fail_for_test = fail;
}

void pt_machine_text(pt_strbuf *b, const pt_machine *m)
{
	pt_sb_printf(b, "L1d %lld KiB, L2 %lld KiB per core, L3 %lld KiB shared, %d thread%s, vectors of %d bytes (%s)",
		(long long)(m->l1 >> 10), (long long)(m->l2 >> 10), (long long)(m->l3 >> 10), m->threads,
		m->threads == 1 ? "" : "s", m->vector_bytes, m->source);
}

static int64_t up(double v)
{
	return (int64_t)ceil(v * SCALE - 1e-9);
}

/* The model's data for g: dims, candidates, B and W_k, lanes. */
static void setup(model *md, const pt_group *g, const int64_t *ip, const pt_target_desc *m, const bool *scratch)
{
	memset(md, 0, sizeof(*md));
	md->ndim = g->ntile;
	int minbytes = 8;
	for (int s = 0; s < g->nstages; s++) {
		int b = (int)pt_type_size((pt_type)g->stages[s]->type);
		minbytes = b < minbytes ? b : minbytes;
	}
	md->lanes = pt_target_vector_bytes(m) / (minbytes > 0 ? minbytes : 1);
	md->lanes = md->lanes > 0 ? md->lanes : 1;
	for (int k = 0; k < g->ntile; k++) {
		mdim *d = &md->d[k];
		d->gd = g->tdim[k];
		d->extent = pt_tile_dim_extent(g, d->gd, ip);
		for (int s = 0; s < g->nstages; s++) {
			int64_t o = g->ext[s][d->gd][0] + g->ext[s][d->gd][1];
			d->overlap = o > d->overlap ? o : d->overlap;
		}
		/* powers of two up to the first that holds the whole extent;
		 * the innermost a multiple of the vector's lanes */
		bool inner = k == g->ntile - 1;
		for (int64_t c = PT_TILE_MODEL_MIN; c <= PT_TILE_MODEL_MAX && d->ncand < 16; c *= 2) {
			if (inner && c % md->lanes)
				continue;
			d->cand[d->ncand++] = c;
			if (c >= d->extent)
				break;
		}
		if (d->ncand == 0)
			d->cand[d->ncand++] = md->lanes;
		d->var0 = md->nv;
		md->nv += d->ncand;
	}
	md->nv++;   /* z */
	for (int k = 0; k < g->ntile; k++)
		md->maxscale[k] = 1;
	for (int s = 0; s < g->nstages; s++)
		for (int dd = 0; dd < g->stages[s]->ndim; dd++) {
			int k = pt_group_tile_of_dim(g, s, dd);
			if (k >= 0 && g->scale[s][dd] > md->maxscale[k])
				md->maxscale[k] = g->scale[s][dd];
		}
	/* footprint(t) = sum_s bytes_s U_s prod_k ((t_k + w_sk - 1) / sc_sk
	 * + 1 + [sc_sk > 1]) <= B prod_k (t_k + W_k), with B = sum_s bytes_s
	 * U_s / prod_k sc_sk and W_k = max_s w_sk + (2 sc_sk - 1 if sc_sk > 1) */
	for (int s = 0; s < g->nstages; s++) {
		if (scratch ? !scratch[s] : g->liveout[s])
			continue;
		const pt_stage *st = g->stages[s];
		double b = (double)pt_type_size((pt_type)st->type);
		for (int dd = 0; dd < st->ndim; dd++) {
			int k = pt_group_tile_of_dim(g, s, dd);
			int64_t lo, hi;
			if (k < 0) {
				b *= pt_interval_eval(&st->dom[dd], ip, &lo, &hi) && hi >= lo ? (double)(hi - lo + 1) : 1;
				continue;
			}
			int64_t sc = g->scale[s][dd];
			int64_t w = g->ext[s][md->d[k].gd][0] + g->ext[s][md->d[k].gd][1] + (sc > 1 ? 2 * sc - 1 : 0);
			b /= (double)sc;
			md->d[k].widen = w > md->d[k].widen ? w : md->d[k].widen;
		}
		md->bytes += b;
	}
}

/* The program's coefficients: objective and constraints, per variable. */
static void coefficients(model *md, const pt_target_desc *m, double theta)
{
	int T = pt_target_workers(m);
	double cap = L2_SHARE * (double)pt_target_tile_bytes(m);
	md->has[C_VOLUME] = true;
	md->ge[C_VOLUME] = true;
	/* each size's log is rounded down: a tile of exactly the minimum
	 * (8 x 128) must pass, so the bound allows one unit of rounding per
	 * dim */
	md->rhs[C_VOLUME] = (int64_t)floor(SCALE * log((double)MIN_TILE_POINTS) + 1e-9) - md->ndim;
	md->has[C_OVERLAP] = true;
	md->rhs[C_OVERLAP] = (int64_t)floor(SCALE * log1p(theta > MAX_OVERLAP ? theta : MAX_OVERLAP));
	md->has[C_TILES] = true;
	md->ge[C_TILES] = true;
	md->rhs[C_TILES] = (int64_t)TILES_PER_THREAD * T;
	md->has[C_FOOTPRINT] = md->bytes > 0;
	md->rhs[C_FOOTPRINT] = md->bytes > 0 ? (int64_t)floor(SCALE * log(cap / md->bytes)) : 0;
	/* z = 1 only if the footprint fits L1's share: sum <= ln(share L1 / B) + M (1 - z) */
	int z = md->nv - 1;
	md->has[C_L1] = md->bytes > 0;
	md->rhs[C_L1] = md->bytes > 0 ? (int64_t)floor(SCALE * log(L1_SHARE * (double)pt_target_near_bytes(m) / md->bytes)) + BIG_M : 0;
	md->cons[C_L1][z] = BIG_M;
	md->obj[z] = md->has[C_L1] ? -(int64_t)llround(SCALE * L1_GAIN) : 0;
	for (int k = 0; k < md->ndim; k++) {
		mdim *d = &md->d[k];
		for (int j = 0; j < d->ncand; j++) {
			int v = d->var0 + j;
			double c = (double)d->cand[j];
			double o = log1p((double)d->overlap / c);
			/* one more row or column per tile edge in the cost: the
			 * inputs' halo lines and the loop's setup (so that a dim
			 * without overlap still prefers fewer, larger tiles) */
			double cost = log1p((double)(d->overlap + 1) / c);
			if (k == md->ndim - 1) {
				cost += log1p((double)md->lanes / c);
				double best = (double)ROW_POINTS * (double)md->maxscale[k];
				cost += c > best ? INNER_WEIGHT * log(c / best) : 0;
			} else if (md->maxscale[k] == 1) {
				cost += ROWS_WEIGHT * log(c + (double)d->overlap);
			} else {
				double free_rows = SCALED_ROWS * (double)md->maxscale[k];
				cost += c > free_rows ? ROWS_WEIGHT * log(c / free_rows) : 0;
			}
			if (k == 0) {
				double n = ceil((double)d->extent / c);
				cost += log((double)T * ceil(n / T) / n);
				md->cons[C_TILES][v] = (int64_t)n;
			}
			md->obj[v] = (int64_t)llround(SCALE * cost);
			md->cons[C_OVERLAP][v] = up(o);
			md->cons[C_VOLUME][v] = (int64_t)floor(SCALE * log(c) + 1e-9);
			md->cons[C_FOOTPRINT][v] = up(log(c + (double)d->widen));
			md->cons[C_L1][v] = md->cons[C_FOOTPRINT][v];
		}
	}
}

static void silent(enum ppl_enum_error_code code, const char *what)
{
	(void)code;
	(void)what;
}

/* sum coef[v] x_v + cst REL 0 added to mip; 0 or -1. */
static int add_constraint(ppl_MIP_Problem_t mip, int nv, const int64_t *coef, int64_t cst,
	enum ppl_enum_Constraint_Type rel)
{
	ppl_Linear_Expression_t le;
	ppl_Coefficient_t c;
	ppl_Constraint_t con;
	mpz_t z;
	int r = -1;
	mpz_init(z);
	if (ppl_new_Linear_Expression_with_dimension(&le, (ppl_dimension_type)nv) < 0)
		goto out_z;
	if (ppl_new_Coefficient(&c) < 0)
		goto out_le;
	for (int v = 0; v < nv; v++) {
		if (!coef[v])
			continue;
		mpz_set_si(z, (long)coef[v]);
		if (ppl_assign_Coefficient_from_mpz_t(c, z) < 0 ||
			ppl_Linear_Expression_add_to_coefficient(le, (ppl_dimension_type)v, c) < 0)
			goto out_c;
	}
	mpz_set_si(z, (long)cst);
	if (ppl_assign_Coefficient_from_mpz_t(c, z) < 0 || ppl_Linear_Expression_add_to_inhomogeneous(le, c) < 0)
		goto out_c;
	if (rel == (enum ppl_enum_Constraint_Type)-1) {   /* the objective */
		r = ppl_MIP_Problem_set_objective_function(mip, le) < 0 ? -1 : 0;
		goto out_c;
	}
	if (ppl_new_Constraint(&con, le, rel) < 0)
		goto out_c;
	r = ppl_MIP_Problem_add_constraint(mip, con) < 0 ? -1 : 0;
	ppl_delete_Constraint(con);
out_c:
	ppl_delete_Coefficient(c);
out_le:
	ppl_delete_Linear_Expression(le);
out_z:
	mpz_clear(z);
	return r;
}

/* Solves the program with the constraints use[] asks for: 1 and
 * choice[k] (index into dim k's candidates), 0 when infeasible, -1 when
 * PPL failed. */
static int solve_mip(const model *md, const bool *use, int *choice)
{
	int nv = md->nv, r = -1;
	ppl_MIP_Problem_t mip;
	if (ppl_new_MIP_Problem_from_space_dimension(&mip, (ppl_dimension_type)nv) < 0)
		return -1;
	int64_t *row = calloc((size_t)nv + 1, sizeof(int64_t));
	ppl_dimension_type *ds = calloc((size_t)nv + 1, sizeof(*ds));
	bool ok = row && ds;
	/* 0 <= x_v <= 1, integer: x_v says whether its size is chosen */
	for (int v = 0; v < nv && ok; v++) {
		memset(row, 0, sizeof(int64_t) * (size_t)nv);
		row[v] = 1;
		ok = !add_constraint(mip, nv, row, 0, PPL_CONSTRAINT_TYPE_GREATER_OR_EQUAL) &&
			!add_constraint(mip, nv, row, -1, PPL_CONSTRAINT_TYPE_LESS_OR_EQUAL);
		ds[v] = (ppl_dimension_type)v;
	}
	/* one size per dim */
	for (int k = 0; k < md->ndim && ok; k++) {
		memset(row, 0, sizeof(int64_t) * (size_t)nv);
		for (int j = 0; j < md->d[k].ncand; j++)
			row[md->d[k].var0 + j] = 1;
		ok = !add_constraint(mip, nv, row, -1, PPL_CONSTRAINT_TYPE_EQUAL);
	}
	for (int c = 0; c < NCONSTR && ok; c++)
		if (md->has[c] && use[c])
			ok = !add_constraint(mip, nv, md->cons[c], -md->rhs[c],
				md->ge[c] ? PPL_CONSTRAINT_TYPE_GREATER_OR_EQUAL : PPL_CONSTRAINT_TYPE_LESS_OR_EQUAL);
	ok = ok && !add_constraint(mip, nv, md->obj, 0, (enum ppl_enum_Constraint_Type)-1) &&
		ppl_MIP_Problem_set_optimization_mode(mip, PPL_OPTIMIZATION_MODE_MINIMIZATION) >= 0 &&
		ppl_MIP_Problem_add_to_integer_space_dimensions(mip, ds, (size_t)nv) >= 0;
	int status = ok ? ppl_MIP_Problem_solve(mip) : -1;
	if (status == PPL_MIP_PROBLEM_STATUS_UNFEASIBLE)
		r = 0;
	else if (status == PPL_MIP_PROBLEM_STATUS_OPTIMIZED) {
		ppl_const_Generator_t pt;
		ppl_Coefficient_t c;
		mpz_t z, div;
		mpz_inits(z, div, NULL);
		if (ppl_MIP_Problem_optimizing_point(mip, &pt) >= 0 && ppl_new_Coefficient(&c) >= 0) {
			r = ppl_Generator_divisor(pt, c) >= 0 && ppl_Coefficient_to_mpz_t(c, div) >= 0 ? 1 : -1;
			for (int k = 0; k < md->ndim && r == 1; k++) {
				choice[k] = -1;
				for (int j = 0; j < md->d[k].ncand && r == 1; j++) {
					if (ppl_Generator_coefficient(pt, (ppl_dimension_type)(md->d[k].var0 + j), c) < 0 ||
						ppl_Coefficient_to_mpz_t(c, z) < 0)
						r = -1;
					else if (mpz_cmp(z, div) == 0)
						choice[k] = j;
				}
				if (choice[k] < 0)
					r = -1;    /* not a 0-1 point: should not happen */
			}
			ppl_delete_Coefficient(c);
		}
		mpz_clears(z, div, NULL);
	}
	free(row);
	free(ds);
	ppl_delete_MIP_Problem(mip);
	return r;
}

/* solve_mip with PPL initialized.  PPL sets the FPU's rounding mode
 * (upward, for its floating-point abstractions) in ppl_initialize and
 * keeps it: compiled pipelines run in this process afterwards (the JIT)
 * would round every float operation up and differ from the
 * interpreter.  The MIP solver computes with GMP integers, so the
 * process's rounding is restored at once and PPL's set only around the
 * solve. */
static int solve(const model *md, const bool *use, int *choice)
{
	static bool initialized;
	if (fail_for_test)
		return -1;
	if (!initialized) {
		int r = ppl_initialize();
		ppl_restore_pre_PPL_rounding();
		if (r < 0)
			return -1;
		ppl_set_error_handler(silent);
		initialized = true;
	}
	if (ppl_set_rounding_for_PPL() < 0)
		return -1;
	int r = solve_mip(md, use, choice);
	ppl_restore_pre_PPL_rounding();
	return r;
}

/* solve_mip by enumeration: every size per dim, with z = 0 and 1 (at
 * most 16^3 x 2 points); the first optimum in that order (dims
 * outermost first, sizes ascending, z = 0 first).  1, or 0 when
 * infeasible. */
static int solve_enum(const model *md, const bool *use, int *choice)
{
	int idx[PT_MAX_DIMS] = {0}, zv = md->nv - 1;
	bool found = false;
	int64_t best = 0;
	for (;;) {
		int64_t sum[NCONSTR] = {0}, obj = 0;
		for (int k = 0; k < md->ndim; k++) {
			int v = md->d[k].var0 + idx[k];
			obj += md->obj[v];
			for (int c = 0; c < NCONSTR; c++)
				sum[c] += md->cons[c][v];
		}
		for (int z = 0; z <= 1; z++) {
			bool ok = true;
			for (int c = 0; c < NCONSTR && ok; c++) {
				int64_t x = sum[c] + (z ? md->cons[c][zv] : 0);
				if (md->has[c] && use[c])
					ok = md->ge[c] ? x >= md->rhs[c] : x <= md->rhs[c];
			}
			int64_t o = obj + (z ? md->obj[zv] : 0);
			if (ok && (!found || o < best)) {
				found = true;
				best = o;
				memcpy(choice, idx, sizeof(int) * (size_t)md->ndim);
			}
		}
		int k = md->ndim - 1;
		while (k >= 0 && ++idx[k] == md->d[k].ncand)
			idx[k--] = 0;
		if (k < 0)
			break;
	}
	return found;
}

/* x_k_c: dim k's size is c. */
static void var_name(pt_strbuf *b, const pt_group *g, const model *md, int v)
{
	if (v == md->nv - 1)
		pt_sb_printf(b, "z");
	for (int k = 0; k < md->ndim; k++)
		if (v >= md->d[k].var0 && v < md->d[k].var0 + md->d[k].ncand)
			pt_sb_printf(b, "%s%lld", pt_group_dim_name(g, md->d[k].gd), (long long)md->d[k].cand[v - md->d[k].var0]);
}

static void row_text(pt_strbuf *b, const pt_group *g, const model *md, const int64_t *row)
{
	bool first = true;
	for (int v = 0; v < md->nv; v++) {
		if (!row[v])
			continue;
		pt_sb_printf(b, "%s%lld ", first ? "" : row[v] < 0 ? " - " : " + ",
			(long long)(first ? row[v] : llabs(row[v])));
		var_name(b, g, md, v);
		first = false;
	}
	if (first)
		pt_sb_printf(b, "0");
}

static void program_text(pt_strbuf *b, const pt_group *g, const model *md, const pt_target_desc *m, double theta)
{
	pt_sb_printf(b, "  program: %d binary variables,", md->nv);
	for (int k = 0; k < md->ndim; k++) {
		const mdim *d = &md->d[k];
		const char *n = pt_group_dim_name(g, d->gd);
		pt_sb_printf(b, "%s %s%lld..%s%lld (t_%s = c when %s<c> = 1; extent %lld, overlap %lld)",
			k ? ";" : "", n, (long long)d->cand[0], n, (long long)d->cand[d->ncand - 1], n, n,
			(long long)d->extent, (long long)d->overlap);
	}
	pt_sb_printf(b, "; z\n  minimize 1000 * (sum_k ln(1 + (o_k + 1)/t_k) + ln(1 + %d/t_%s) + %g sum_(k<%s) (s_k = 1 ? ln(t_k + o_k) : ln(max(1, t_k / (%d s_k))))"
		" + %g ln(max(1, t_%s / %lld)) + ln(idle threads along %s) - %g z):\n    ",
		md->lanes, pt_group_dim_name(g, md->d[md->ndim - 1].gd), ROWS_WEIGHT,
		pt_group_dim_name(g, md->d[md->ndim - 1].gd), SCALED_ROWS, INNER_WEIGHT, pt_group_dim_name(g, md->d[md->ndim - 1].gd),
		(long long)(ROW_POINTS * md->maxscale[md->ndim - 1]), pt_group_dim_name(g, md->d[0].gd), L1_GAIN);
	row_text(b, g, md, md->obj);
	pt_sb_printf(b, "\n  subject to: one size per dim (sum of each dim's variables = 1), and\n");
	for (int c = 0; c < NCONSTR; c++) {
		if (!md->has[c])
			continue;
		pt_sb_printf(b, "    %s: ", constr_name[c]);
		row_text(b, g, md, md->cons[c]);
		pt_sb_printf(b, " %s %lld", md->ge[c] ? ">=" : "<=", (long long)md->rhs[c]);
		if (c == C_VOLUME)
			pt_sb_printf(b, "  (1000 sum_k ln(t_k) >= 1000 ln(%d): tiles of %d points or more)\n", MIN_TILE_POINTS,
				MIN_TILE_POINTS);
		else if (c == C_OVERLAP)
			pt_sb_printf(b, "  (1000 sum_k ln(1 + o_k/t_k) <= 1000 ln(1 + %g))\n", theta > MAX_OVERLAP ? theta : MAX_OVERLAP);
		else if (c == C_TILES)
			pt_sb_printf(b, "  (tiles along %s >= %d per thread)\n", pt_group_dim_name(g, md->d[0].gd),
				TILES_PER_THREAD);
		else if (c == C_L1)
			pt_sb_printf(b, "  (z = 1 only if 1000 sum_k ln(t_k + W_k) <= 1000 ln(L1 * %g / B), L1 %lld KiB)\n",
				L1_SHARE, (long long)(pt_target_near_bytes(m) >> 10));
		else {
			pt_sb_printf(b, "  (1000 sum_k ln(t_k + W_k) <= 1000 ln(L2 * %g / B); B = %.4g bytes, W =",
				L2_SHARE, md->bytes);
			for (int k = 0; k < md->ndim; k++)
				pt_sb_printf(b, " %lld", (long long)md->d[k].widen);
			pt_sb_printf(b, ", L2 %lld KiB)\n", (long long)(pt_target_tile_bytes(m) >> 10));
		}
	}
}

bool pt_tile_model_fits_l1(const pt_group *g, const int64_t *ip, const pt_target_desc *m, double *bytes)
{
	bool *scratch = pt_tile_scratch_stages(g, ip);
	*bytes = pt_tile_footprint(g, ip, scratch);
	free(scratch);
	return *bytes <= L1_SHARE * (double)pt_target_near_bytes(m);
}

/* pt_tile_model_choose, solved by PPL or (enumerate) solve_enum. */
static int choose(pt_group *g, const int64_t *ip, double theta, const pt_target_desc *m, pt_strbuf *text,
	bool enumerate)
{
	if (g->ntile <= 0)
		return 0;
	if (pt_gpu_model_choose(g, ip, m, text, NULL) == 0)
		return 0;
	model *md = calloc(1, sizeof(*md));
	if (!md) {
		if (text)
			pt_sb_printf(text, "  out of memory: the fixed default sizes kept\n");
		return -1;
	}
	bool *scratch = pt_tile_scratch_stages(g, ip);
	setup(md, g, ip, m, scratch);
	coefficients(md, m, theta);
	if (text)
		program_text(text, g, md, m, theta);
	/* relaxed in this order when infeasible: the smallest tile, the
	 * group's overlap bound (fusion was already decided), the tiles per
	 * thread, then the cache bound (nothing fits: the smallest overlap) */
	bool use[NCONSTR] = { true, true, true, true, true };
	int choice[PT_MAX_DIMS], r = 0;
	static const int drop[] = { C_VOLUME, C_OVERLAP, C_TILES, C_FOOTPRINT };
	for (int i = 0; i <= 4; i++) {
		r = enumerate ? solve_enum(md, use, choice) : solve(md, use, choice);
		if (r != 0 || i == 4)
			break;
		if (text && md->has[drop[i]])
			pt_sb_printf(text, "  infeasible: dropped %s\n", constr_name[drop[i]]);
		use[drop[i]] = false;
	}
	if (r <= 0) {
		if (text)
			pt_sb_printf(text, "  PPL's MIP solver failed: the fixed default sizes kept\n");
		free(scratch);
		free(md);
		return -1;
	}
	int64_t objective = 0, l1sum = 0;
	for (int k = 0; k < md->ndim; k++) {
		g->tsize[k] = md->d[k].cand[choice[k]];
		objective += md->obj[md->d[k].var0 + choice[k]];
		l1sum += md->cons[C_L1][md->d[k].var0 + choice[k]];
	}
	bool z = md->has[C_L1] && l1sum <= md->rhs[C_L1] - BIG_M;   /* minimizing sets z when it can */
	objective += z ? md->obj[md->nv - 1] : 0;
	if (text) {
		pt_sb_printf(text, "  solution:");
		double ovl = 1;
		for (int k = 0; k < md->ndim; k++) {
			pt_sb_printf(text, "%s t_%s = %lld", k ? "," : "", pt_group_dim_name(g, md->d[k].gd), (long long)g->tsize[k]);
			ovl *= (double)(g->tsize[k] + md->d[k].overlap) / (double)g->tsize[k];
		}
		pt_sb_printf(text, ", z = %d (objective %lld; overlap %.3f; %lld tiles along %s; scratchpads %.1f KiB)\n",
			z, (long long)objective, ovl - 1,
			(long long)((md->d[0].extent + g->tsize[0] - 1) / g->tsize[0]),
			pt_group_dim_name(g, md->d[0].gd), pt_tile_footprint(g, ip, scratch) / 1024);
	}
	free(scratch);
	free(md);
	return 0;
}

int pt_tile_model_choose(const pt_pipeline *p, pt_group *g, const int64_t *ip, double theta,
	const pt_target_desc *m, pt_strbuf *text)
{
	(void)p;
	return choose(g, ip, theta, m, text, false);
}

int pt_tile_model_predict(pt_group *g, const int64_t *ip, double theta, const pt_target_desc *m)
{
	return choose(g, ip, theta, m, NULL, true);
}
