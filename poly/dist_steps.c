/* dist_steps.c: a time-iterated kernel split between its steps
 * (distribute.h, "stepped").  heat(t, x) reads heat(t - 1, x +- 1): a
 * dependence crosses x, so no rank can run its part of every step alone;
 * but none crosses x between two instances of one step, so each step is
 * split along x and the ranks exchange the ghost planes of the step
 * before, per step.  The plan's step boxes are over the param mpi.t.K
 * (the step), which the generated code sets in a loop of its own around
 * the kernel's code for one step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/constraint.h>
#include <isl/ilp.h>
#include <isl/id.h>
#include <isl/map.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>

#include "dist_priv.h"

__isl_give isl_set *pt_dist_at_step(__isl_take isl_set *s, int k, int delta)
{
	isl_ctx *ctx = isl_set_get_ctx(s);
	char name[32];
	snprintf(name, sizeof(name), "mpi.t.%d", k);
	int pos = isl_set_find_dim_by_name(s, isl_dim_param, name);
	if (pos < 0) {
		pos = (int)isl_set_dim(s, isl_dim_param);
		s = isl_set_add_dims(s, isl_dim_param, 1);
		s = isl_set_set_dim_id(s, isl_dim_param, (unsigned)pos, isl_id_alloc(ctx, name, NULL));
	}
	/* dim 0 - mpi.t.K - delta = 0 */
	isl_constraint *c = isl_constraint_alloc_equality(isl_local_space_from_space(isl_set_get_space(s)));
	c = isl_constraint_set_coefficient_si(c, isl_dim_set, 0, 1);
	c = isl_constraint_set_coefficient_si(c, isl_dim_param, pos, -1);
	c = isl_constraint_set_constant_si(c, -delta);
	return isl_set_add_constraint(s, c);
}

typedef struct step_check {
	const pt_model *m;
	const pt_kernels *ks;
	int k, c;
	bool bad;
} step_check;

static bool of_kernel(const step_check *sc, __isl_take isl_id *id)
{
	const pt_stmt *s = pt_model_stmt(sc->m, id);
	isl_id_free(id);
	return s && sc->ks->of_stage[s->stage->id] == sc->k;
}

/* The distances of map's dependences along dims 0 (the step) and c:
 * pairs (a, b). */
static __isl_give isl_set *step_deltas_of(__isl_take isl_map *map, int c)
{
	isl_size n = isl_map_dim(map, isl_dim_in);
	map = isl_map_project_out(map, isl_dim_in, (unsigned)c + 1, (unsigned)(n - c - 1));
	map = isl_map_project_out(map, isl_dim_in, 1, (unsigned)(c - 1));
	map = isl_map_project_out(map, isl_dim_out, (unsigned)c + 1, (unsigned)(n - c - 1));
	map = isl_map_project_out(map, isl_dim_out, 1, (unsigned)(c - 1));
	map = isl_map_reset_tuple_id(isl_map_reset_tuple_id(map, isl_dim_in), isl_dim_out);
	return isl_map_deltas(map);
}

/* A dependence inside the kernel that goes back a step or skips one,
 * or links two instances of one step whose coordinate c differs: each
 * step's exchange brings the step before only. */
static isl_stat step_crosses(__isl_take isl_map *map, void *user)
{
	step_check *sc = user;
	if (!of_kernel(sc, isl_map_get_tuple_id(map, isl_dim_in)) || !of_kernel(sc, isl_map_get_tuple_id(map, isl_dim_out))) {
		isl_map_free(map);
		return isl_stat_ok;
	}
	isl_set *delta = step_deltas_of(map, sc->c);
	isl_ctx *ctx = isl_set_get_ctx(delta);
	isl_set *bad = isl_set_read_from_str(ctx, "{ [a, b] : a < 0 or a > 1 or (a = 0 and b < 0) or (a = 0 and b > 0) }");
	bad = isl_set_intersect(delta, bad);
	if (isl_set_is_empty(bad) != isl_bool_true)
		sc->bad = true;
	isl_set_free(bad);
	return sc->bad ? isl_stat_error : isl_stat_ok;
}

/* Whether every element of stage s that kernels other than k read is at
 * step tlast: a folded array holds its last steps only, and what the
 * others receive of it is that one plane. */
static bool read_at_last(const pt_model *m, const pt_kernels *ks, int k, const pt_stage *s,
	__isl_keep isl_pw_aff *tlast)
{
	isl_union_set *inst = isl_union_set_empty(isl_set_get_space(m->context));
	for (int i = 0; i < m->stmts->n; i++)
		if (ks->of_stage[m->stmts->s[i].stage->id] != k)
			inst = isl_union_set_union(inst, isl_union_set_from_set(isl_set_copy(m->stmts->s[i].domain)));
	isl_space *sp = pt_dist_array_space(m, s);
	isl_set *r = pt_dist_touched(m->reads, inst, s->name, sp);
	isl_space_free(sp);
	if (isl_set_is_empty(r) == isl_bool_true) {
		isl_set_free(r);
		return true;
	}
	isl_pw_aff *lo = isl_set_dim_min(isl_set_copy(r), 0), *hi = isl_set_dim_max(r, 0);
	isl_set *off = isl_set_union(isl_pw_aff_ne_set(lo, isl_pw_aff_copy(tlast)),
		isl_pw_aff_ne_set(hi, isl_pw_aff_copy(tlast)));
	off = isl_set_intersect_params(off, isl_set_copy(m->context));
	bool ok = isl_set_is_empty(off) == isl_bool_true;
	isl_set_free(off);
	return ok;
}

typedef struct reach {
	const pt_model *m;
	const pt_kernels *ks;
	int k, c;
	isl_set *deltas;            /* (1, b): a step's instance at x reads x - b */
} reach;

static isl_stat step_deltas(__isl_take isl_map *map, void *user)
{
	reach *rc = user;
	step_check sc = { rc->m, rc->ks, rc->k, rc->c, false };
	if (!of_kernel(&sc, isl_map_get_tuple_id(map, isl_dim_in)) || !of_kernel(&sc, isl_map_get_tuple_id(map, isl_dim_out))) {
		isl_map_free(map);
		return isl_stat_ok;
	}
	isl_set *d = isl_set_fix_si(step_deltas_of(map, rc->c), isl_dim_set, 0, 1);
	d = isl_set_project_out(d, isl_dim_set, 0, 1);
	rc->deltas = rc->deltas ? isl_set_union(rc->deltas, d) : d;
	return isl_stat_ok;
}

/* How far along coordinate c the instances of one step read the step
 * before, below (grow[0]) and above (grow[1]); -1 when the distances
 * are not bounded by constants (they depend on a param, or are
 * unbounded). */
static void step_grow(const pt_model *m, const pt_kernels *ks, int k, int c, int64_t *grow)
{
	reach rc = { m, ks, k, c, NULL };
	grow[0] = grow[1] = 0;
	if (m->deps)
		isl_union_map_foreach_map(m->deps, &step_deltas, &rc);
	if (!rc.deltas)
		return;
	isl_set *d = isl_set_project_out(rc.deltas, isl_dim_param, 0, (unsigned)isl_set_dim(rc.deltas, isl_dim_param));
	if (isl_set_is_empty(d) == isl_bool_true) {
		isl_set_free(d);
		return;
	}
	isl_val *lo = isl_set_dim_min_val(isl_set_copy(d), 0), *hi = isl_set_dim_max_val(d, 0);
	if (lo && hi && isl_val_is_int(lo) && isl_val_is_int(hi)) {
		/* distance b: an instance at x reads x - b */
		int64_t a = isl_val_get_num_si(lo), b = isl_val_get_num_si(hi);
		grow[0] = b > 0 ? b : 0;
		grow[1] = a < 0 ? -a : 0;
	} else {
		grow[0] = grow[1] = -1;
	}
	isl_val_free(lo);
	isl_val_free(hi);
}

static bool step_crossed(const pt_model *m, const pt_kernels *ks, int k, int c)
{
	step_check sc = { m, ks, k, c, false };
	if (m->deps)
		isl_union_map_foreach_map(m->deps, &step_crosses, &sc);
	return sc.bad;
}


bool pt_dist_plan_steps(pt_dist_kernel *dk, const pt_model *m, const pt_kernels *ks, int k, const pt_stmt **st,
	int n, const pt_dist_setup *su, char *why, size_t len)
{
	const pt_kernel *kn = &ks->k[k];
	if (kn->nstages != 1 || n == 0 || st[0]->ntile != 0 || st[0]->nvars < 2)
		return false;
	const pt_stage *s = st[0]->stage;
	for (int i = 0; i < n; i++)
		if (st[i]->kind != PT_STMT_FUNC || st[i]->nvars != st[0]->nvars || st[i]->split > 1)
			return false;
	if (s->backward[st[0]->var0]) {
		snprintf(why, len, "%s runs its steps downwards (not split between steps)", s->name);
		return false;
	}
	/* after the step, not the innermost (as choose_coord, distribute.c) */
	int nv = st[0]->nvars;
	int c = pt_dist_pick_coord(m, ks, k, st, n, su->ip, 1, nv > 2 ? nv - 1 : nv, &step_crossed);
	if (c < 0) {
		snprintf(why, len, "a dependence crosses every coordinate, within a step too");
		return false;
	}
	isl_set *v = pt_dist_coord_values(st, n, 0);
	isl_pw_aff *first = isl_set_dim_min(isl_set_copy(v), 0), *last = isl_set_dim_max(v, 0);
	int fold = su->fold ? su->fold[s->id] : 0;
	if (fold && !read_at_last(m, ks, k, s, last)) {
		snprintf(why, len, "%s is stored folded and read at other steps than its last", s->name);
		isl_pw_aff_free(first);
		isl_pw_aff_free(last);
		return false;
	}
	dk->stepped = true;
	dk->coord = c;
	/* on a grid, a second coordinate after it (the innermost too) */
	if (su->grid == PT_MPI_GRID && c + 1 < nv)
		dk->coord2 = pt_dist_pick_coord(m, ks, k, st, n, su->ip, c + 1, nv, &step_crossed);
	if (dk->coord2 >= 0)
		step_grow(m, ks, k, dk->coord2, dk->grow2);
	dk->fold = fold;
	dk->depth = 1;
	step_grow(m, ks, k, c, dk->grow);
	dk->tfirst = first;
	dk->tlast = last;
	return true;
}
