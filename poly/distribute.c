/* distribute.c: the MPI target's split of each kernel among ranks and
 * the boxes that move between them (distribute.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/constraint.h>
#include <isl/id.h>
#include <isl/map.h>
#include <isl/point.h>
#include <isl/union_map.h>
#include <isl/val.h>

#include "dist_priv.h"
#include "diag.h"

/* s with params lo, hi (added when absent) and lo <= coordinate c <= hi. */
static __isl_give isl_set *slice(__isl_take isl_set *s, int c, const char *lo, const char *hi)
{
	isl_ctx *ctx = isl_set_get_ctx(s);
	const char *name[2] = { lo, hi };
	int pos[2];
	for (int i = 0; i < 2; i++) {
		pos[i] = isl_set_find_dim_by_name(s, isl_dim_param, name[i]);
		if (pos[i] < 0) {
			pos[i] = (int)isl_set_dim(s, isl_dim_param);
			s = isl_set_add_dims(s, isl_dim_param, 1);
			s = isl_set_set_dim_id(s, isl_dim_param, (unsigned)pos[i], isl_id_alloc(ctx, name[i], NULL));
		}
	}
	isl_local_space *ls = isl_local_space_from_space(isl_set_get_space(s));
	isl_constraint *a = isl_constraint_alloc_inequality(isl_local_space_copy(ls));
	a = isl_constraint_set_coefficient_si(a, isl_dim_set, c, 1);
	a = isl_constraint_set_coefficient_si(a, isl_dim_param, pos[0], -1);
	isl_constraint *b = isl_constraint_alloc_inequality(ls);
	b = isl_constraint_set_coefficient_si(b, isl_dim_set, c, -1);
	b = isl_constraint_set_coefficient_si(b, isl_dim_param, pos[1], 1);
	return isl_set_add_constraint(isl_set_add_constraint(s, a), b);
}

static bool in_kernel(const pt_model *m, const pt_kernels *ks, int k, __isl_take isl_id *id)
{
	const pt_stmt *s = pt_model_stmt(m, id);
	isl_id_free(id);
	return s && ks->of_stage[s->stage->id] == k;
}

typedef struct deps_check {
	const pt_model *m;
	const pt_kernels *ks;
	int k, c;
	bool crosses;
} deps_check;

/* Whether a dependence of the map links two instances of the kernel
 * whose coordinate c differs. */
static isl_stat dep_crosses(__isl_take isl_map *map, void *user)
{
	deps_check *dc = user;
	if (!in_kernel(dc->m, dc->ks, dc->k, isl_map_get_tuple_id(map, isl_dim_in)) ||
		!in_kernel(dc->m, dc->ks, dc->k, isl_map_get_tuple_id(map, isl_dim_out))) {
		isl_map_free(map);
		return isl_stat_ok;
	}
	isl_size ni = isl_map_dim(map, isl_dim_in), no = isl_map_dim(map, isl_dim_out);
	int c = dc->c;
	map = isl_map_project_out(map, isl_dim_in, (unsigned)c + 1, (unsigned)(ni - c - 1));
	map = isl_map_project_out(map, isl_dim_in, 0, (unsigned)c);
	map = isl_map_project_out(map, isl_dim_out, (unsigned)c + 1, (unsigned)(no - c - 1));
	map = isl_map_project_out(map, isl_dim_out, 0, (unsigned)c);
	map = isl_map_reset_tuple_id(isl_map_reset_tuple_id(map, isl_dim_in), isl_dim_out);
	isl_set *delta = isl_map_deltas(map);
	isl_set *zero = isl_set_fix_si(isl_set_universe(isl_set_get_space(delta)), isl_dim_set, 0, 0);
	if (isl_set_is_subset(delta, zero) != isl_bool_true)
		dc->crosses = true;
	isl_set_free(delta);
	isl_set_free(zero);
	return dc->crosses ? isl_stat_error : isl_stat_ok;
}

void pt_dist_names(int k, bool widened, char lo[32], char hi[32])
{
	snprintf(lo, 32, "mpi.%slo.%d", widened ? "w" : "", k);
	snprintf(hi, 32, "mpi.%shi.%d", widened ? "w" : "", k);
}

/* The instances of statement st of kernel k a rank runs: all of them
 * (not split), its own part along the coordinate, or its part widened
 * to what later kernels on the rank read, or a stepped kernel's at a
 * step (its part widened by the steps left before an exchange). */
static __isl_give isl_set *rank_domain(const pt_dist_kernel *dk, int k, const pt_stmt *st, bool own_only)
{
	isl_set *s = isl_set_copy(st->domain);
	if (!dk->split)
		return s;
	char lo[32], hi[32];
	pt_dist_names(k, (dk->widened || dk->stepped) && !own_only, lo, hi);
	s = slice(s, dk->coord, lo, hi);
	if (dk->coord2 < 0)
		return s;
	/* a stepped kernel's widens along it too (deep ghost zones) */
	bool w = dk->stepped && !own_only;
	snprintf(lo, sizeof(lo), "mpi.%slo2.%d", w ? "w" : "", k);
	snprintf(hi, sizeof(hi), "mpi.%shi2.%d", w ? "w" : "", k);
	return slice(s, dk->coord2, lo, hi);
}

/* Kernel k's instances on a rank, as a union set. */
static __isl_give isl_union_set *rank_instances(const pt_dist_kernel *dk, int k, const pt_stmt **st, int n,
	bool own_only)
{
	isl_union_set *u = NULL;
	for (int i = 0; i < n; i++) {
		isl_union_set *x = isl_union_set_from_set(rank_domain(dk, k, st[i], own_only));
		u = u ? isl_union_set_union(u, x) : x;
	}
	return u;
}

static bool data_cond(const pt_stage *s)
{
	for (int i = 0; i < s->ncases; i++)
		if (s->cases[i].cond && pt_expr_has_call(s->cases[i].cond))
			return true;
	return false;
}

/* Why kernel k's statements cannot be split at all ("" when they can). */
static void refuse(const pt_kernel *k, const pt_stmt **st, int n, char *why, size_t len)
{
	why[0] = 0;
	if (n == 0)
		snprintf(why, len, "no statements");
	for (int i = 0; i < n && !why[0]; i++) {
		if (st[i]->kind != PT_STMT_FUNC)
			snprintf(why, len, "%s is a reduction (its updates of one element may fall in any part)", st[i]->stage->name);
		else if (st[i]->ntile != st[0]->ntile || st[i]->ntile + st[i]->nvars == 0)
			snprintf(why, len, "%s has no coordinate to split", st[i]->stage->name);
	}
	if (!why[0] && st[0]->ntile == 0 && k->nstages > 1)
		snprintf(why, len, "an untiled group of %d stages", k->nstages);
	for (int i = 0; i < k->noutputs && !why[0]; i++)
		if (data_cond(k->outputs[i]))
			snprintf(why, len, "%s has cases decided by data", k->outputs[i]->name);
}

static bool dep_crossed(const pt_model *m, const pt_kernels *ks, int k, int c)
{
	deps_check dc = { m, ks, k, c, false };
	if (m->deps)
		isl_union_map_foreach_map(m->deps, &dep_crosses, &dc);
	return dc.crosses;
}

/* The coordinate to split kernel k along: the outermost that no
 * dependence inside the kernel crosses and that has 64 values or more
 * at ip, else the one with the most values; -1 if none. */
static int choose_coord(const pt_model *m, const pt_kernels *ks, int k, const pt_stmt **st, int n, const int64_t *ip)
{
	int ncand = st[0]->ntile ? st[0]->ntile : (st[0]->nvars > 1 ? st[0]->nvars - 1 : 1);
	return pt_dist_pick_coord(m, ks, k, st, n, ip, 0, ncand, &dep_crossed);
}

/* On a grid, the second coordinate: by the same rule, among those after
 * the first (the innermost too: a rank's part of it stays long enough
 * to vectorize); -1 if none. */
static int choose_coord2(const pt_model *m, const pt_kernels *ks, int k, const pt_stmt **st, int n,
	const int64_t *ip, int c)
{
	int nall = st[0]->ntile ? st[0]->ntile : st[0]->nvars;
	return c + 1 < nall ? pt_dist_pick_coord(m, ks, k, st, n, ip, c + 1, nall, &dep_crossed) : -1;
}

static void box_free(pt_dist_box *b)
{
	for (int d = 0; d < b->ndim; d++) {
		isl_pw_aff_free(b->lo[d]);
		isl_pw_aff_free(b->hi[d]);
	}
}

/* Splits kernel k along dk->coord: its own boxes, false (dk->why set)
 * when a write is not a box. */
static bool own_boxes(pt_dist_kernel *dk, const pt_model *m, const pt_kernel *k, const pt_stmt **st, int n)
{
	dk->own = calloc((size_t)k->noutputs + 1, sizeof(*dk->own));
	for (int i = 0; i < k->noutputs; i++) {
		const pt_stage *s = k->outputs[i];
		isl_space *sp = pt_dist_array_space(m, s);
		bool exact = false;
		pt_dist_box *b = &dk->own[dk->nown++];
		pt_dist_box_of(pt_dist_touched(m->writes, rank_instances(dk, k->index, st, n, true), s->name, sp), s, b,
			&exact);
		isl_space_free(sp);
		if (!exact) {
			snprintf(dk->why, sizeof(dk->why), "what a part writes of %s is not a box", s->name);
			return false;
		}
		/* folded steps: the array keeps the last step's plane, which
		 * is all the other kernels read (pt_dist_plan_steps) */
		if (dk->stepped && dk->fold) {
			isl_pw_aff_free(b->lo[0]);
			b->lo[0] = isl_pw_aff_copy(b->hi[0]);
		}
	}
	return true;
}

/* The need boxes of kernel k: what its instances on a rank (split) or
 * the whole kernel (replicated) read of each stage another kernel
 * writes. */
static void need_boxes(pt_dist_kernel *dk, const pt_model *m, const pt_kernels *ks, const pt_kernel *k,
	const pt_stmt **st, int n)
{
	dk->need = calloc((size_t)k->ninputs + 1, sizeof(*dk->need));
	dk->image = calloc((size_t)k->ninputs + 1, sizeof(*dk->image));
	for (int i = 0; i < k->ninputs; i++) {
		const pt_stage *s = k->inputs[i].stage;
		const pt_image *im = s ? NULL : pt_pipeline_find_image(m->p, k->inputs[i].array);
		if ((s && ks->of_stage[s->id] == k->index) || (!s && !im))
			continue;
		isl_set *w;
		if (dk->split) {
			isl_space *sp = pt_dist_named_space(m, k->inputs[i].array, s ? s->ndim : im->ndim);
			w = pt_dist_touched(m->reads, rank_instances(dk, k->index, st, n, false), k->inputs[i].array, sp);
			isl_space_free(sp);
		} else {
			w = isl_set_copy(k->inputs[i].footprint);
		}
		pt_dist_box *b = s ? &dk->need[dk->nneed++] : &dk->image[dk->nimage++];
		pt_dist_box_of(w, s, b, NULL);
		b->image = im;
	}
}

/* Whether one of kernel k's outputs is stored folded (its name into why). */
static bool folded(const pt_kernel *k, const int *fold, char *why, size_t len)
{
	for (int i = 0; i < k->noutputs && fold; i++)
		if (fold[k->outputs[i]->id]) {
			snprintf(why, len, "%s is stored folded", k->outputs[i]->name);
			return true;
		}
	return false;
}

/* A stepped kernel's step boxes: what its part (widened at the step)
 * reads of its own array at step mpi.t.K, and what its own part wrote
 * at the step before. */
static void step_boxes(pt_dist_kernel *dk, const pt_model *m, int k, const pt_stmt **st, int n)
{
	const pt_stage *s = st[0]->stage;
	isl_union_set *at = isl_union_set_empty(isl_set_get_space(m->context));
	isl_union_set *before = isl_union_set_empty(isl_set_get_space(m->context));
	for (int i = 0; i < n; i++) {
		isl_set *x = rank_domain(dk, k, st[i], false), *o = rank_domain(dk, k, st[i], true);
		at = isl_union_set_union(at, isl_union_set_from_set(pt_dist_at_step(x, k, 0)));
		before = isl_union_set_union(before, isl_union_set_from_set(pt_dist_at_step(o, k, -1)));
	}
	isl_space *sp = pt_dist_array_space(m, s);
	pt_dist_box_of(pt_dist_touched(m->reads, at, s->name, sp), s, &dk->step_need, NULL);
	pt_dist_box_of(pt_dist_touched(m->writes, before, s->name, sp), s, &dk->step_own, NULL);
	isl_space_free(sp);
}

/* Where dk is split, as dump and explain print it: "tile coordinate 0",
 * "x and y, between the steps of t (a grid of ranks)". */
static void split_why(pt_dist_kernel *dk, const pt_stmt *s0)
{
	char c1[40], c2[48] = "";
	const char *const *v = (const char *const *)s0->stage->vars + s0->var0;
	if (s0->ntile) {
		snprintf(c1, sizeof(c1), "tile coordinate%s %d", dk->coord2 >= 0 ? "s" : "", dk->coord);
		if (dk->coord2 >= 0)
			snprintf(c2, sizeof(c2), " and %d", dk->coord2);
	} else {
		snprintf(c1, sizeof(c1), "%s", v[dk->coord]);
		if (dk->coord2 >= 0)
			snprintf(c2, sizeof(c2), " and %s", v[dk->coord2]);
	}
	snprintf(dk->why, sizeof(dk->why), "%s%s%s%s%s", c1, c2, dk->stepped ? ", between the steps of " : "",
		dk->stepped ? v[0] : "", dk->coord2 >= 0 ? " (a grid of ranks)" : "");
}

/* Phase one: whether kernel k can be split, along which coordinate, and
 * its own boxes. */
static void plan_split(pt_dist_kernel *dk, const pt_model *m, const pt_kernels *ks, int k, const pt_dist_setup *su)
{
	int n;
	const pt_stmt **st = pt_dist_kernel_stmts(m, ks, k, &n);
	const pt_kernel *kn = &ks->k[k];
	if (su->strategy == PT_MPI_REPLICATE)
		snprintf(dk->why, sizeof(dk->why), "every kernel replicated (--mpi-strategy replicate)");
	else
		refuse(kn, st, n, dk->why, sizeof(dk->why));
	dk->coord2 = -1;
	if (!dk->why[0]) {
		bool fold = folded(kn, su->fold, dk->why, sizeof(dk->why));
		dk->coord = fold ? -1 : choose_coord(m, ks, k, st, n, su->ip);
		if (dk->coord < 0 && !fold)
			snprintf(dk->why, sizeof(dk->why), "a dependence crosses every coordinate");
		else if (dk->coord >= 0 && su->grid == PT_MPI_GRID)
			dk->coord2 = choose_coord2(m, ks, k, st, n, su->ip, dk->coord);
		/* a time-iterated kernel: split between its steps */
		if (dk->coord < 0 && pt_dist_plan_steps(dk, m, ks, k, st, n, su, dk->why, sizeof(dk->why)))
			dk->why[0] = 0;
	}
	/* own_boxes slices the instances of a split kernel */
	dk->split = !dk->why[0];
	dk->split = dk->split && own_boxes(dk, m, kn, st, n);
	if (dk->split) {
		isl_set *v = pt_dist_coord_values(st, n, dk->coord);
		dk->first = isl_set_dim_min(isl_set_copy(v), 0);
		dk->last = isl_set_dim_max(v, 0);
		if (dk->coord2 >= 0) {
			v = pt_dist_coord_values(st, n, dk->coord2);
			dk->first2 = isl_set_dim_min(isl_set_copy(v), 0);
			dk->last2 = isl_set_dim_max(v, 0);
		}
		split_why(dk, st[0]);
		if (dk->stepped)
			step_boxes(dk, m, k, st, n);
	}
	free(st);
}


/* Whether dc (decided) reads an array of kernel k. */
static bool reads_of(const pt_dist_kernel *dc, const pt_kernels *ks, int k)
{
	for (int i = 0; i < dc->nneed; i++)
		if (ks->of_stage[dc->need[i].stage->id] == k)
			return true;
	return false;
}

/* A kernel after k that reads one of its arrays and is replicated, or -1. */
static int whole_reader(const pt_dist *d, const pt_kernels *ks, int k)
{
	for (int c = k + 1; c < d->n; c++)
		if (!d->k[c].split && reads_of(&d->k[c], ks, k))
			return c;
	return -1;
}

/* The values of kernel k's coordinate whose instances write what the
 * later kernels on a rank read of it (1-D sets, over the params and
 * their parts, whose union it is); NULL when a replicated kernel reads
 * it. */
static __isl_give isl_set_list *read_later(const pt_dist *d, const pt_model *m, const pt_kernels *ks, int k,
	const pt_stmt **st, int n)
{
	if (whole_reader(d, ks, k) >= 0)
		return NULL;
	isl_set_list *v = isl_set_list_alloc(isl_set_get_ctx(m->context), 1);
	isl_union_set *all = rank_instances(&(pt_dist_kernel){ .split = false }, k, st, n, false);
	isl_union_map *w = isl_union_map_intersect_domain(isl_union_map_copy(m->writes), all);
	/* per reader: its pieces name only its own part, where one set over
	 * every reader has a piece for each ordering of their parts */
	for (int c = k + 1; c < d->n; c++) {
		if (!reads_of(&d->k[c], ks, k))
			continue;
		isl_union_set *read = isl_union_set_empty(isl_set_get_space(m->context));
		int nc;
		const pt_stmt **sc = pt_dist_kernel_stmts(m, ks, c, &nc);
		for (int i = 0; i < ks->k[k].noutputs; i++) {
			const pt_stage *s = ks->k[k].outputs[i];
			isl_space *sp = pt_dist_array_space(m, s);
			isl_set *t = pt_dist_touched(m->reads, rank_instances(&d->k[c], c, sc, nc, false), s->name, sp);
			isl_space_free(sp);
			read = isl_union_set_union(read, isl_union_set_from_set(t));
		}
		free(sc);
		isl_union_set *inst = isl_union_map_domain(isl_union_map_intersect_range(isl_union_map_copy(w), read));
		isl_set_list *l = isl_union_set_get_set_list(inst);
		isl_size n_set = isl_set_list_n_set(l);
		for (int i = 0; i < n_set; i++) {
			isl_set *x = isl_set_list_get_set(l, i);
			isl_size nd = isl_set_dim(x, isl_dim_set);
			x = isl_set_project_out(x, isl_dim_set, (unsigned)d->k[k].coord + 1,
				(unsigned)(nd - d->k[k].coord - 1));
			x = isl_set_project_out(x, isl_dim_set, 0, (unsigned)d->k[k].coord);
			v = isl_set_list_add(v, isl_set_coalesce(isl_set_reset_tuple_id(x)));
		}
		isl_set_list_free(l);
		isl_union_set_free(inst);
	}
	isl_union_map_free(w);
	return v;
}

/* dk's vmin and vmax: one pair per set of extra (taken). */
static void value_ranges(pt_dist_kernel *dk, __isl_take isl_set_list *extra)
{
	isl_size n = isl_set_list_n_set(extra);
	dk->nv = n > 0 ? n : 0;
	dk->vmin = calloc((size_t)dk->nv + 1, sizeof(*dk->vmin));
	dk->vmax = calloc((size_t)dk->nv + 1, sizeof(*dk->vmax));
	for (int i = 0; i < dk->nv; i++) {
		isl_set *x = isl_set_list_get_set(extra, i);
		dk->vmin[i] = isl_set_dim_min(isl_set_copy(x), 0);
		dk->vmax[i] = isl_set_dim_max(x, 0);
	}
	isl_set_list_free(extra);
}

static void unsplit(pt_dist_kernel *dk)
{
	for (int i = 0; i < dk->nown; i++)
		box_free(&dk->own[i]);
	dk->nown = 0;
	dk->split = false;
	if (dk->stepped) {
		box_free(&dk->step_need);
		box_free(&dk->step_own);
		dk->step_need.ndim = dk->step_own.ndim = 0;
		dk->stepped = false;
	}
}

/* Back to a split along dk->coord alone: a widened kernel is never on
 * a grid (its widening is along one coordinate). */
static void to_slabs(pt_dist_kernel *dk, const pt_model *m, const pt_kernels *ks, int k, const pt_stmt **st, int n)
{
	for (int i = 0; i < dk->nown; i++)
		box_free(&dk->own[i]);
	free(dk->own);
	dk->own = NULL;
	dk->nown = 0;
	dk->coord2 = -1;
	isl_pw_aff_free(dk->first2);
	isl_pw_aff_free(dk->last2);
	dk->first2 = dk->last2 = NULL;
	if (own_boxes(dk, m, &ks->k[k], st, n))
		split_why(dk, st[0]);
	else
		unsplit(dk);
}

/* Phase two, from the last kernel back: how kernel k's readers get it
 * (its readers decided), then its need boxes over its instances. */
static void choose(pt_dist *d, const pt_model *m, const pt_kernels *ks, int k, const pt_dist_setup *su)
{
	pt_dist_kernel *dk = &d->k[k];
	int n;
	const pt_stmt **st = pt_dist_kernel_stmts(m, ks, k, &n);
	if (!dk->split) {
		unsplit(dk);
		snprintf(dk->choice, sizeof(dk->choice), "replicated");
	} else if (dk->stepped) {
		/* between its steps: exchanged every depth steps; its readers
		 * get its last step exchanged */
		pt_dist_step_depth(d, m, ks, k, su, dk->depth_why, sizeof(dk->depth_why));
		bool widen = false, whole = false;
		if (su->strategy == PT_MPI_AUTO)
			pt_dist_weigh(d, m, ks, k, su, false, &widen, &whole, dk->choice, sizeof(dk->choice));
		else
			snprintf(dk->choice, sizeof(dk->choice), "its last step exchanged (--mpi-strategy %s)",
				su->strategy == PT_MPI_RECOMPUTE ? "recompute" : "communicate");
		if (whole)
			unsplit(dk);
	} else if (su->strategy == PT_MPI_COMMUNICATE) {
		snprintf(dk->choice, sizeof(dk->choice), "exchanged (--mpi-strategy communicate)");
	} else {
		/* on a grid: exchanged or replicated, or split in slabs to be
		 * recomputed */
		if (dk->coord2 >= 0 && su->strategy == PT_MPI_RECOMPUTE)
			to_slabs(dk, m, ks, k, st, n);
		isl_set_list *extra = dk->coord2 < 0 && dk->split ? read_later(d, m, ks, k, st, n) : NULL;
		bool widen = false, whole = false, can_widen = extra != NULL;
		if (extra)
			value_ranges(dk, extra);
		if (su->strategy == PT_MPI_RECOMPUTE) {
			widen = can_widen;
			whole = !widen;
			if (whole)
				snprintf(dk->choice, sizeof(dk->choice), "replicated: kernel %d, which is replicated, reads it "
					"(--mpi-strategy recompute)", whole_reader(d, ks, k));
			else
				snprintf(dk->choice, sizeof(dk->choice), "recomputed (--mpi-strategy recompute)");
		} else {
			pt_dist_weigh(d, m, ks, k, su, can_widen, &widen, &whole, dk->choice, sizeof(dk->choice));
		}
		dk->widened = widen;
		if (whole)
			unsplit(dk);
	}
	need_boxes(dk, m, ks, &ks->k[k], st, n);
	free(st);
}

/* A split kernel's local boxes: what its instances on a rank write and
 * read of each array it writes. */
static void local_boxes(pt_dist_kernel *dk, const pt_model *m, const pt_kernel *k, const pt_stmt **st, int n)
{
	dk->local = calloc((size_t)k->noutputs + 1, sizeof(*dk->local));
	isl_union_map *acc = isl_union_map_union(isl_union_map_copy(m->writes), isl_union_map_copy(m->reads));
	for (int i = 0; i < k->noutputs; i++) {
		const pt_stage *s = k->outputs[i];
		isl_space *sp = pt_dist_array_space(m, s);
		pt_dist_box_of(pt_dist_touched(acc, rank_instances(dk, k->index, st, n, false), s->name, sp), s,
			&dk->local[dk->nlocal++], NULL);
		isl_space_free(sp);
	}
	isl_union_map_free(acc);
}

pt_dist *pt_dist_plan(const pt_model *m, const pt_kernels *ks, const pt_dist_setup *su)
{
	pt_dist *d = calloc(1, sizeof(*d));
	d->n = ks->n;
	d->k = calloc((size_t)ks->n + 1, sizeof(*d->k));
	for (int k = 0; k < ks->n; k++)
		plan_split(&d->k[k], m, ks, k, su);
	for (int k = ks->n - 1; k >= 0; k--)
		choose(d, m, ks, k, su);
	return d;
}

void pt_dist_local_boxes(pt_dist *d, const pt_model *m, const pt_kernels *ks)
{
	for (int k = 0; k < ks->n; k++) {
		if (!d->k[k].split)
			continue;
		int n;
		const pt_stmt **st = pt_dist_kernel_stmts(m, ks, k, &n);
		local_boxes(&d->k[k], m, &ks->k[k], st, n);
		free(st);
	}
}

static const pt_dist_box *box_of_stage(const pt_dist_box *b, int n, const pt_stage *s)
{
	for (int i = 0; i < n; i++)
		if (b[i].stage == s)
			return &b[i];
	return NULL;
}

static bool on_parts(__isl_keep isl_pw_aff *pa)
{
	isl_size n = isl_pw_aff_dim(pa, isl_dim_param);
	for (int i = 0; i < n; i++) {
		const char *name = isl_pw_aff_get_dim_name(pa, isl_dim_param, (unsigned)i);
		if (name && !strncmp(name, "mpi.", 4) && isl_pw_aff_involves_dims(pa, isl_dim_param, (unsigned)i, 1))
			return true;
	}
	return false;
}

bool pt_dist_dim_split(const pt_dist_box **bs, int n, int d)
{
	for (int i = 0; i < n; i++)
		if (on_parts(bs[i]->lo[d]) || on_parts(bs[i]->hi[d]))
			return true;
	return false;
}

const pt_dist_box **pt_dist_image_boxes(const pt_dist *d, const pt_image *im, int *n)
{
	const pt_dist_box **out = calloc((size_t)d->n + 1, sizeof(*out));
	*n = 0;
	for (int k = 0; k < d->n; k++)
		for (int i = 0; i < d->k[k].nimage; i++)
			if (d->k[k].image[i].image == im)
				out[(*n)++] = &d->k[k].image[i];
	return out;
}

const pt_dist_box **pt_dist_partition_boxes(const pt_dist *d, const pt_kernels *ks, const pt_stage *s, int *n)
{
	const pt_dist_box **out = calloc((size_t)d->n + 2, sizeof(*out));
	const pt_dist_kernel *w = &d->k[ks->of_stage[s->id]];
	*n = 0;
	if (!w->split || !(out[*n] = box_of_stage(w->local, w->nlocal, s)))
		return out;
	(*n)++;
	for (int k = 0; k < d->n; k++)
		if ((out[*n] = box_of_stage(d->k[k].need, d->k[k].nneed, s)))
			(*n)++;
	return out;
}

void pt_dist_place(const pt_dist *d, const pt_kernels *ks, const pt_pipeline *p, const int *slot,
	pt_placement *place)
{
	for (int i = 0; i < p->nstages; i++) {
		const pt_stage *s = p->stages[i];
		const pt_dist_kernel *w = &d->k[ks->of_stage[s->id]];
		if (!s->is_output && slot[s->id] >= 0 && w->split && box_of_stage(w->local, w->nlocal, s))
			place[s->id] = PT_PLACE_PARTITION;
	}
}

void pt_dist_free(pt_dist *d)
{
	if (!d)
		return;
	for (int k = 0; k < d->n; k++) {
		pt_dist_kernel *dk = &d->k[k];
		for (int i = 0; i < dk->nown; i++)
			box_free(&dk->own[i]);
		for (int i = 0; i < dk->nneed; i++)
			box_free(&dk->need[i]);
		for (int i = 0; i < dk->nlocal; i++)
			box_free(&dk->local[i]);
		for (int i = 0; i < dk->nimage; i++)
			box_free(&dk->image[i]);
		free(dk->image);
		free(dk->own);
		free(dk->need);
		free(dk->local);
		isl_pw_aff_free(dk->first);
		isl_pw_aff_free(dk->last);
		isl_pw_aff_free(dk->first2);
		isl_pw_aff_free(dk->last2);
		for (int i = 0; i < dk->nv; i++) {
			isl_pw_aff_free(dk->vmin[i]);
			isl_pw_aff_free(dk->vmax[i]);
		}
		free(dk->vmin);
		free(dk->vmax);
		box_free(&dk->step_need);
		box_free(&dk->step_own);
		isl_pw_aff_free(dk->tfirst);
		isl_pw_aff_free(dk->tlast);
	}
	free(d->k);
	free(d);
}

__isl_give isl_union_set *pt_dist_domain(const pt_dist *d, const pt_model *m, const pt_kernels *ks)
{
	isl_union_set *u = isl_union_set_empty(isl_set_get_space(m->context));
	for (int i = 0; i < m->stmts->n; i++) {
		const pt_stmt *st = &m->stmts->s[i];
		int k = ks->of_stage[st->stage->id];
		isl_set *x = rank_domain(&d->k[k], k, st, false);
		/* a stepped kernel's code runs one step (generated code loops) */
		if (d->k[k].split && d->k[k].stepped)
			x = pt_dist_at_step(x, k, 0);
		u = isl_union_set_union(u, isl_union_set_from_set(x));
	}
	return u;
}

char *pt_dist_str(const pt_dist *d, const pt_kernels *ks)
{
	pt_strbuf b = {0};
	if (d->plan[0])
		pt_sb_printf(&b, "%s\n", d->plan);
	for (int k = 0; k < d->n; k++) {
		const pt_dist_kernel *dk = &d->k[k];
		const pt_kernel *kn = &ks->k[k];
		pt_sb_printf(&b, "kernel %d (", k);
		for (int i = 0; i < kn->nstages; i++)
			pt_sb_printf(&b, "%s%s", i ? " " : "", kn->stages[i]->name);
		/* one the choice replicated could have been split */
		if (!dk->split && strcmp(dk->choice, "replicated") && dk->why[0] && !strstr(dk->why, "replicat"))
			pt_sb_printf(&b, "): replicated (could split along %s)\n", dk->why);
		else
			pt_sb_printf(&b, "): %s %s\n", dk->split ? "split along" : "replicated:", dk->why);
		if (dk->split || strcmp(dk->choice, "replicated"))
			pt_sb_printf(&b, "  for its readers: %s\n", dk->choice);
		if (dk->split && dk->stepped && dk->depth == 1)
			pt_sb_printf(&b, "  between its steps: the ghost zone of %s at the step before exchanged every step (%s)\n",
				dk->step_need.stage->name, dk->depth_why);
		else if (dk->split && dk->stepped && dk->depth > 1)
			pt_sb_printf(&b, "  between its steps: the ghost zone of %s exchanged every %d steps, %d steps deep "
				"(%lld below, %lld above a step), the steps between recomputing it (%s)\n", dk->step_need.stage->name,
				dk->depth, dk->depth, (long long)dk->grow[0] * dk->depth, (long long)dk->grow[1] * dk->depth,
				dk->depth_why);
		else if (dk->split && dk->stepped)
			pt_sb_printf(&b, "  between its steps: nothing exchanged, each rank's part widened by what the later "
				"steps read, from the first (%s)\n", dk->depth_why);
		for (int i = 0; i < dk->nneed; i++) {
			const pt_dist_kernel *pk = &d->k[ks->of_stage[dk->need[i].stage->id]];
			pt_sb_printf(&b, "  reads %s: %s\n", dk->need[i].stage->name,
				!pk->split ? "computed whole on every rank" : pk->widened ? "recomputed on the rank" :
				"its ghost zone exchanged");
		}
	}
	return pt_sb_take(&b);
}
