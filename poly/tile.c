/* tile.c: the tiling's queries, and a statement's instances in tiles. */
#include <stdlib.h>

#include <isl/aff.h>
#include <isl/constraint.h>
#include <isl/local_space.h>
#include <isl/id.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/val.h>

#include "access.h"
#include "isl_expr.h"
#include "tile.h"

void pt_group_clear(pt_group *g)
{
	free(g->stages);
	free(g->liveout);
	free(g->ext);
	free(g->gdim);
	free(g->scale);
}

void pt_tiling_free(pt_tiling *t)
{
	if (!t)
		return;
	for (int g = 0; g < t->ngroups; g++)
		pt_group_clear(&t->groups[g]);
	free(t->groups);
	free(t->group_of);
	free(t->index_in_group);
	free(t);
}

const pt_group *pt_tiling_group(const pt_tiling *t, const pt_stage *s)
{
	return t ? &t->groups[t->group_of[s->id]] : NULL;
}

bool pt_tiling_is_scratch(const pt_tiling *t, const pt_stage *s)
{
	const pt_group *g = pt_tiling_group(t, s);
	return g && g->ntile > 0 && !g->liveout[t->index_in_group[s->id]];
}

bool pt_tiling_is_time_tiled(const pt_tiling *t, const pt_stage *s)
{
	const pt_group *g = pt_tiling_group(t, s);
	return g && g->tsteps > 0;
}

int pt_group_tile_of_dim(const pt_group *g, int si, int d)
{
	for (int k = 0; k < g->ntile; k++)
		if (g->tdim[k] == g->gdim[si][d])
			return k;
	return -1;
}

const char *pt_group_dim_name(const pt_group *g, int gd)
{
	for (int i = g->nstages - 1; i >= 0; i--)
		for (int d = 0; d < g->stages[i]->ndim; d++)
			if (g->gdim[i][d] == gd && g->liveout[i])
				return g->stages[i]->vars[d];
	for (int i = 0; i < g->nstages; i++)
		for (int d = 0; d < g->stages[i]->ndim; d++)
			if (g->gdim[i][d] == gd)
				return g->stages[i]->vars[d];
	return "?";
}

bool pt_group_scratch_clipped(const pt_group *g, int si, int d)
{
	int n = g->stages[si]->ndim;
	return pt_group_scratch_extent(g, si, d) >= 0 && (d < n - 1 || n == 1);
}

double pt_group_scratch_bytes(const pt_group *g, int si, const int64_t *ip)
{
	const pt_stage *s = g->stages[si];
	double n = (double)pt_type_size((pt_type)s->type);
	for (int d = 0; d < s->ndim; d++) {
		int64_t lo, hi, e = pt_group_scratch_extent(g, si, d);
		double span = pt_interval_eval(&s->dom[d], ip, &lo, &hi) && hi >= lo ? (double)(hi - lo + 1) : 0;
		/* along a clipped dim, no more than the domain (codegen/scratch.c) */
		bool clip = pt_group_scratch_clipped(g, si, d);
		if (g->tsteps && d == 0)
			e = g->tsteps < 2 ? g->tsteps : 2;   /* two steps (kernel.c) */
		n *= e < 0 ? span : !clip || e < span ? (double)e : span > 1 ? span : 1;
	}
	return n;
}

bool pt_group_stage_is_scalar(const pt_group *g, int si, const int *nest)
{
	const pt_stage *s = g->stages[si];
	if (g->liveout[si] || nest[s->id] < 0)
		return false;
	for (int j = 0; j < g->nstages; j++) {
		const pt_stage *r = g->stages[j];
		bool own = true, any = pt_expr_reads_stage(r->init, s, &own);
		for (int c = 0; c < r->ncases; c++) {
			any |= pt_expr_reads_stage(r->cases[c].cond, s, &own) | pt_expr_reads_stage(r->cases[c].value, s, &own);
			for (int d = 0; r->cases[c].target && d < r->ndim; d++)
				any |= pt_expr_reads_stage(r->cases[c].target[d], s, &own);
		}
		if (any && (!own || nest[r->id] != nest[s->id] || r->red != PT_RED_NONE))
			return false;
	}
	return true;
}

/* Whether stages a and b of g run over the same points of a tile. */
static bool same_points(const pt_group *g, int a, int b, const int64_t *ip)
{
	const pt_stage *sa = g->stages[a], *sb = g->stages[b];
	if (sa->ndim != sb->ndim)
		return false;
	for (int d = 0; d < sa->ndim; d++) {
		int gd = g->gdim[a][d];
		int64_t la, ha, lb, hb;
		if (gd != g->gdim[b][d] || g->scale[a][d] != g->scale[b][d] ||
		    !pt_interval_eval(&sa->dom[d], ip, &la, &ha) || !pt_interval_eval(&sb->dom[d], ip, &lb, &hb) ||
		    la != lb || ha != hb)
			return false;
		if (gd >= 0 && (g->ext[a][gd][0] != g->ext[b][gd][0] || g->ext[a][gd][1] != g->ext[b][gd][1]))
			return false;
	}
	return true;
}

static bool one_case_func(const pt_stage *s)
{
	return s->red == PT_RED_NONE && s->ncases == 1 && s->ndim > 0 && !pt_stage_reads(s, s);
}

void pt_group_predicted_nests(const pt_group *g, const int64_t *ip, int *nest)
{
	int run0 = -1, nrun = 0, k = 0;
	for (int i = 0; i <= g->nstages; i++) {
		bool joins = false;
		if (i < g->nstages && nrun > 0 && one_case_func(g->stages[i]) && same_points(g, run0, i, ip))
			joins = pt_stage_reads_at_own_point(g->stages[i], g->stages + run0, nrun);
		if (joins) {
			nrun++;
			continue;
		}
		/* the run that ends here is a nest when it fused two or more */
		for (int r = run0; r >= 0 && r < run0 + nrun; r++)
			nest[g->stages[r]->id] = nrun > 1 ? k : -1;
		k += nrun > 1;
		if (i < g->nstages) {
			bool one = one_case_func(g->stages[i]);
			run0 = i;
			nrun = one ? 1 : 0;
			if (!one)
				nest[g->stages[i]->id] = -1;
		}
	}
}

int64_t pt_group_scratch_extent(const pt_group *g, int si, int d)
{
	int k = pt_group_tile_of_dim(g, si, d);
	if (k < 0)
		return -1;
	int gd = g->tdim[k];
	int64_t w = g->tsize[k] + g->ext[si][gd][0] + g->ext[si][gd][1];
	int64_t sc = g->scale[si][d];
	return sc == 1 ? w : (w - 1) / sc + 2;
}

/* The dim of stage si placed in group dim gd, or -1. */
static int stage_dim(const pt_group *g, int si, int gd)
{
	for (int d = 0; d < g->stages[si]->ndim; d++)
		if (g->gdim[si][d] == gd)
			return d;
	return -1;
}

/* The group coordinates of a live-out's points along group dim gd (a
 * set of one dim over the params). */
static __isl_give isl_set *liveout_coords(isl_ctx *ctx, const pt_pipeline *p, const pt_group *g, int i, int gd)
{
	const pt_stage *s = g->stages[i];
	isl_space *sp = pt_poly_stage_space(ctx, p, s, s->ndim);
	isl_set *dom = isl_set_reset_tuple_id(pt_poly_domain_set(sp, s));
	isl_space_free(sp);
	int d = stage_dim(g, i, gd);
	if (d < 0) {
		/* the stage sits at 0 in this group dim */
		dom = isl_set_project_out(dom, isl_dim_set, 0, (unsigned)s->ndim);
		dom = isl_set_add_dims(dom, isl_dim_set, 1);
		return isl_set_fix_si(dom, isl_dim_set, 0, 0);
	}
	dom = isl_set_project_out(dom, isl_dim_set, (unsigned)(d + 1), (unsigned)(s->ndim - d - 1));
	dom = isl_set_project_out(dom, isl_dim_set, 0, (unsigned)d);
	dom = isl_set_set_dim_name(dom, isl_dim_set, 0, NULL);
	isl_space *ds = isl_set_get_space(dom);
	isl_aff *a = isl_aff_var_on_domain(isl_local_space_from_space(ds), isl_dim_set, 0);
	a = isl_aff_scale_val(a, isl_val_int_from_si(ctx, g->scale[i][d]));
	return isl_set_apply(dom, isl_map_from_aff(a));
}

__isl_give isl_set *pt_tile_range(isl_ctx *ctx, const pt_pipeline *p, const pt_group *g, int k)
{
	isl_set *pts = NULL;
	for (int i = 0; i < g->nstages; i++) {
		if (!g->liveout[i])
			continue;
		isl_set *c = liveout_coords(ctx, p, g, i, g->tdim[k]);
		pts = pts ? isl_set_union(pts, c) : c;
	}
	/* g -> floor((g - torig) / tsize) */
	isl_space *sp = isl_set_get_space(pts);
	isl_aff *a = isl_aff_var_on_domain(isl_local_space_from_space(sp), isl_dim_set, 0);
	a = isl_aff_add_constant_si(a, (int)-g->torig[k]);
	a = isl_aff_floor(isl_aff_scale_down_ui(a, (unsigned)g->tsize[k]));
	return isl_set_coalesce(isl_set_apply(pts, isl_map_from_aff(a)));
}

static __isl_give isl_set *trapezoid(const pt_group *g, __isl_take isl_set *dom);

/* c0 * T + c1 * x + cst >= 0 on the tiled domain space. */
static __isl_give isl_set *bound(__isl_take isl_set *set, int tpos, int64_t ct, int xpos, int64_t cx, int64_t cst)
{
	isl_local_space *ls = isl_local_space_from_space(isl_set_get_space(set));
	isl_constraint *c = isl_constraint_alloc_inequality(ls);
	c = isl_constraint_set_coefficient_si(c, isl_dim_set, tpos, (int)ct);
	c = isl_constraint_set_coefficient_si(c, isl_dim_set, xpos, (int)cx);
	c = isl_constraint_set_constant_si(c, (int)cst);
	return isl_set_add_constraint(set, c);
}

__isl_give isl_set *pt_tile_domain(const pt_group *g, int si, bool update, __isl_keep isl_set *const *ranges,
	__isl_take isl_set *dom)
{
	isl_id *id = isl_set_get_tuple_id(dom);
	dom = isl_set_reset_tuple_id(dom);
	int nt = g->ntile;
	dom = isl_set_insert_dims(dom, isl_dim_set, 0, (unsigned)nt);
	for (int k = 0; k < nt; k++) {
		int gd = g->tdim[k], d = stage_dim(g, si, gd);
		int64_t t = g->tsize[k], lo = g->ext[si][gd][0], hi = g->ext[si][gd][1], o = g->torig[k];
		int64_t sc = d >= 0 ? g->scale[si][d] : 0;
		/* an update's point is its reduction point: the coordinate of
		 * dim d is its cell variable's (the grouping tiles no other) */
		int x = d < 0 ? 0 : !update ? d : pt_reduction_cell_var(g->stages[si], d);
		if (x < 0) {
			isl_id_free(id);
			return isl_set_free(dom);
		}
		/* o + t*T - lo <= scale * x <= o + t*T + t - 1 + hi (x: 0 when the
		 * stage does not take this group dim) */
		dom = bound(dom, k, -t, d >= 0 ? nt + x : 0, d >= 0 ? sc : 0, lo - o);
		dom = bound(dom, k, t, d >= 0 ? nt + x : 0, d >= 0 ? -sc : 0, t - 1 + hi + o);
		isl_set *r = isl_set_copy(ranges[k]);
		int ndim = (int)isl_set_dim(dom, isl_dim_set);
		r = isl_set_insert_dims(r, isl_dim_set, 1, (unsigned)(ndim - k - 1));
		r = isl_set_insert_dims(r, isl_dim_set, 0, (unsigned)k);
		dom = isl_set_intersect(dom, isl_set_align_params(r, isl_set_get_space(dom)));
	}
	if (g->tsteps > 0)
		dom = trapezoid(g, dom);
	return isl_set_set_tuple_id(isl_set_coalesce(dom), id);
}

/* The domain's last step, on the tiled space sp (its params by name). */
static __isl_give isl_pw_aff *last_step(const pt_group *g, __isl_keep isl_space *sp)
{
	return pt_poly_pw_aff(sp, g->stages[0]->dom[0].hi);
}

/* Tiled dim i of space sp (tile coordinates, then the point) times c,
 * plus cst. */
static __isl_give isl_pw_aff *dim_times(__isl_keep isl_space *sp, int i, int64_t c, int64_t cst)
{
	isl_ctx *ctx = isl_space_get_ctx(sp);
	isl_aff *a = isl_aff_var_on_domain(isl_local_space_from_space(isl_space_copy(sp)), isl_dim_set, (unsigned)i);
	a = isl_aff_add_constant_si(isl_aff_scale_val(a, isl_val_int_from_si(ctx, c)), (int)cst);
	return isl_pw_aff_from_aff(a);
}

/* Time tiling's trapezoid (tile.h): along spatial tile dim k, a point x
 * of step t in block B is in tile T when
 *   o + s T - r (e - t) <= x <= o + s T + s - 1 + r (e - t),
 * e = min(o0 + K B + K - 1, last step). */
static __isl_give isl_set *trapezoid(const pt_group *g, __isl_take isl_set *dom)
{
	int nt = g->ntile;
	int64_t K = g->tsteps;
	isl_space *sp = isl_set_get_space(dom);
	isl_ctx *ctx = isl_space_get_ctx(sp);
	/* e - t */
	isl_pw_aff *e = isl_pw_aff_min(dim_times(sp, 0, K, g->torig[0] + K - 1), last_step(g, sp));
	isl_pw_aff *left = isl_pw_aff_sub(e, dim_times(sp, nt, 1, 0));
	for (int k = 1; k < nt && dom; k++) {
		int gd = g->tdim[k];
		int64_t s = g->tsize[k], o = g->torig[k];
		isl_pw_aff *w = isl_pw_aff_scale_val(isl_pw_aff_copy(left), isl_val_int_from_si(ctx, g->tslope[gd]));
		isl_pw_aff *lo = isl_pw_aff_sub(dim_times(sp, k, s, o), isl_pw_aff_copy(w));
		isl_pw_aff *hi = isl_pw_aff_add(dim_times(sp, k, s, o + s - 1), w);
		isl_pw_aff *x = dim_times(sp, nt + gd, 1, 0);
		dom = isl_set_intersect(dom, isl_pw_aff_ge_set(isl_pw_aff_copy(x), lo));
		dom = isl_set_intersect(dom, isl_pw_aff_le_set(x, hi));
	}
	isl_pw_aff_free(left);
	isl_space_free(sp);
	return dom;
}

/* t - o0 - K B - off == 0 on the tiled space sp */
static __isl_give isl_set *step_at(const pt_group *g, __isl_take isl_space *sp, int64_t off)
{
	isl_constraint *c = isl_constraint_alloc_equality(isl_local_space_from_space(sp));
	c = isl_constraint_set_coefficient_si(c, isl_dim_set, g->ntile, 1);
	c = isl_constraint_set_coefficient_si(c, isl_dim_set, 0, (int)-g->tsteps);
	c = isl_constraint_set_constant_si(c, (int)(-g->torig[0] - off));
	return isl_set_from_basic_set(isl_basic_set_from_constraint(c));
}

__isl_give isl_set *pt_time_tile_first(const pt_group *g, __isl_take isl_space *sp)
{
	return step_at(g, sp, 0);
}

__isl_give isl_set *pt_time_tile_last(const pt_group *g, __isl_take isl_space *sp)
{
	isl_pw_aff *tmax = last_step(g, sp);
	isl_local_space *ls = isl_local_space_from_space(isl_space_copy(sp));
	isl_pw_aff *t = isl_pw_aff_from_aff(isl_aff_var_on_domain(ls, isl_dim_set, (unsigned)g->ntile));
	isl_set *at_end = isl_pw_aff_eq_set(t, tmax);
	return isl_set_union(step_at(g, sp, g->tsteps - 1), at_end);
}
