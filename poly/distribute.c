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

#include "distribute.h"
#include "diag.h"

/* The statements of kernel k, in model order; *n of them. */
static const pt_stmt **kernel_stmts(const pt_model *m, const pt_kernels *ks, int k, int *n)
{
	const pt_stmt **out = calloc((size_t)m->stmts->n + 1, sizeof(*out));
	*n = 0;
	for (int i = 0; i < m->stmts->n; i++)
		if (ks->of_stage[m->stmts->s[i].stage->id] == k)
			out[(*n)++] = &m->stmts->s[i];
	return out;
}

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

/* The values of coordinate c over the statements (anonymous 1-D sets). */
static __isl_give isl_set *coord_values(const pt_stmt **st, int n, int c)
{
	isl_set *all = NULL;
	for (int i = 0; i < n; i++) {
		isl_set *s = isl_set_copy(st[i]->domain);
		isl_size nd = isl_set_dim(s, isl_dim_set);
		s = isl_set_project_out(s, isl_dim_set, (unsigned)c + 1, (unsigned)(nd - c - 1));
		s = isl_set_project_out(s, isl_dim_set, 0, (unsigned)c);
		s = isl_set_reset_tuple_id(s);
		all = all ? isl_set_union(all, s) : s;
	}
	return all;
}

static bool eval(__isl_keep isl_pw_aff *pa, const pt_pipeline *p, const int64_t *ip, int64_t lo, int64_t hi,
	int64_t *v);

/* How many values coordinate c takes at ip (0 when not known). */
static int64_t coord_extent(const pt_stmt **st, int n, int c, const pt_pipeline *p, const int64_t *ip)
{
	isl_set *v = coord_values(st, n, c);
	isl_pw_aff *lo = isl_set_dim_min(isl_set_copy(v), 0), *hi = isl_set_dim_max(v, 0);
	int64_t a, b, e = 0;
	if (eval(lo, p, ip, 0, 0, &a) && eval(hi, p, ip, 0, 0, &b))
		e = b - a + 1;
	isl_pw_aff_free(lo);
	isl_pw_aff_free(hi);
	return e;
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

/* The box hull of w (a set of one array's elements) as pw_affs; *exact:
 * whether w is that box. */
static void box_of(__isl_take isl_set *w, const pt_stage *s, pt_dist_box *b, bool *exact)
{
	isl_ctx *ctx = isl_set_get_ctx(w);
	isl_size n = isl_set_dim(w, isl_dim_set);
	b->stage = s;
	b->ndim = (int)n;
	isl_pw_aff_list *l1 = isl_pw_aff_list_alloc(ctx, n), *l2 = isl_pw_aff_list_alloc(ctx, n);
	for (int d = 0; d < n; d++) {
		b->lo[d] = isl_set_dim_min(isl_set_copy(w), d);
		b->hi[d] = isl_set_dim_max(isl_set_copy(w), d);
		l1 = isl_pw_aff_list_add(l1, isl_pw_aff_copy(b->lo[d]));
		l2 = isl_pw_aff_list_add(l2, isl_pw_aff_copy(b->hi[d]));
	}
	if (exact) {
		isl_multi_pw_aff *lo = isl_multi_pw_aff_from_pw_aff_list(isl_set_get_space(w), l1);
		isl_multi_pw_aff *hi = isl_multi_pw_aff_from_pw_aff_list(isl_set_get_space(w), l2);
		isl_set *box = isl_set_intersect_params(isl_set_universe(isl_set_get_space(w)), isl_set_params(isl_set_copy(w)));
		box = isl_set_upper_bound_multi_pw_aff(isl_set_lower_bound_multi_pw_aff(box, lo), hi);
		*exact = isl_set_is_equal(box, w) == isl_bool_true;
		isl_set_free(box);
	} else {
		isl_pw_aff_list_free(l1);
		isl_pw_aff_list_free(l2);
	}
	isl_set_free(w);
}

/* The elements of array name in the range of acc over the kernel's
 * parts (its statements sliced along c by mpi.lo, mpi.hi). */
static __isl_give isl_set *touched(__isl_keep isl_union_map *acc, const pt_stmt **st, int n, int c, const char *name,
	__isl_keep isl_space *space)
{
	isl_union_set *parts = NULL;
	for (int i = 0; i < n; i++) {
		isl_union_set *u = isl_union_set_from_set(slice(isl_set_copy(st[i]->domain), c, "mpi.lo", "mpi.hi"));
		parts = parts ? isl_union_set_union(parts, u) : u;
	}
	isl_union_set *r = isl_union_map_range(isl_union_map_intersect_domain(isl_union_map_copy(acc), parts));
	isl_set *out = isl_set_empty(isl_space_copy(space));
	isl_set_list *l = isl_union_set_get_set_list(r);
	for (int i = 0; i < isl_set_list_n_set(l); i++) {
		isl_set *s = isl_set_list_get_set(l, i);
		if (isl_set_has_tuple_name(s) == isl_bool_true && !strcmp(isl_set_get_tuple_name(s), name))
			out = isl_set_union(out, isl_set_align_params(s, isl_set_get_space(out)));
		else
			isl_set_free(s);
	}
	isl_set_list_free(l);
	isl_union_set_free(r);
	return out;
}

/* The space of stage s's elements with the params of m and mpi.lo, mpi.hi. */
static __isl_give isl_space *array_space(const pt_model *m, const pt_stage *s)
{
	isl_ctx *ctx = isl_set_get_ctx(m->context);
	isl_space *sp = isl_space_set_alloc(ctx, 0, (unsigned)s->ndim);
	sp = isl_space_set_tuple_name(sp, isl_dim_set, s->name);
	sp = isl_space_align_params(sp, isl_set_get_space(m->context));
	sp = isl_space_add_param_id(sp, isl_id_alloc(ctx, "mpi.lo", NULL));
	return isl_space_add_param_id(sp, isl_id_alloc(ctx, "mpi.hi", NULL));
}

static bool data_cond(const pt_stage *s)
{
	for (int i = 0; i < s->ncases; i++)
		if (s->cases[i].cond && pt_expr_has_call(s->cases[i].cond))
			return true;
	return false;
}

/* Why kernel k's statements cannot be split at all ("" when they can). */
static void refuse(const pt_kernel *k, const pt_stmt **st, int n, const int *fold, char *why, size_t len)
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
	for (int i = 0; i < k->noutputs && !why[0]; i++) {
		if (data_cond(k->outputs[i]))
			snprintf(why, len, "%s has cases decided by data", k->outputs[i]->name);
		else if (fold && fold[k->outputs[i]->id])
			snprintf(why, len, "%s is stored folded", k->outputs[i]->name);
	}
}

/* The coordinate to split kernel k along: the outermost that no
 * dependence inside the kernel crosses and that has 64 values or more
 * at ip, else the one with the most values; -1 if none. */
static int choose_coord(const pt_model *m, const pt_kernels *ks, int k, const pt_stmt **st, int n, const int64_t *ip)
{
	int ncand = st[0]->ntile ? st[0]->ntile : (st[0]->nvars > 1 ? st[0]->nvars - 1 : 1);
	int best = -1;
	int64_t best_e = 0;
	for (int c = 0; c < ncand; c++) {
		deps_check dc = { m, ks, k, c, false };
		if (m->deps)
			isl_union_map_foreach_map(m->deps, &dep_crosses, &dc);
		if (dc.crosses)
			continue;
		int64_t e = coord_extent(st, n, c, m->p, ip);
		if (e >= 64)
			return c;
		if (best < 0 || e > best_e) {
			best = c;
			best_e = e;
		}
	}
	return best;
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
		isl_space *sp = array_space(m, s);
		bool exact = false;
		box_of(touched(m->writes, st, n, dk->coord, s->name, sp), s, &dk->own[dk->nown++], &exact);
		isl_space_free(sp);
		if (!exact) {
			snprintf(dk->why, sizeof(dk->why), "what a part writes of %s is not a box", s->name);
			return false;
		}
	}
	return true;
}

/* The need boxes of kernel k: what a part (split) or the whole kernel
 * (replicated) reads of each stage another kernel writes. */
static void need_boxes(pt_dist_kernel *dk, const pt_model *m, const pt_kernels *ks, const pt_kernel *k,
	const pt_stmt **st, int n)
{
	dk->need = calloc((size_t)k->ninputs + 1, sizeof(*dk->need));
	for (int i = 0; i < k->ninputs; i++) {
		const pt_stage *s = k->inputs[i].stage;
		if (!s || ks->of_stage[s->id] == k->index)
			continue;
		isl_set *w;
		if (dk->split) {
			isl_space *sp = array_space(m, s);
			w = touched(m->reads, st, n, dk->coord, s->name, sp);
			isl_space_free(sp);
		} else {
			w = isl_set_copy(k->inputs[i].footprint);
		}
		box_of(w, s, &dk->need[dk->nneed++], NULL);
	}
}

static void decide(pt_dist_kernel *dk, const pt_model *m, const pt_kernels *ks, int k, bool replicate,
	const int64_t *ip, const int *fold)
{
	int n;
	const pt_stmt **st = kernel_stmts(m, ks, k, &n);
	const pt_kernel *kn = &ks->k[k];
	if (replicate)
		snprintf(dk->why, sizeof(dk->why), "every kernel replicated (--mpi-strategy replicate)");
	else
		refuse(kn, st, n, fold, dk->why, sizeof(dk->why));
	if (!dk->why[0]) {
		dk->coord = choose_coord(m, ks, k, st, n, ip);
		if (dk->coord < 0)
			snprintf(dk->why, sizeof(dk->why), "a dependence crosses every coordinate");
	}
	dk->split = !dk->why[0] && own_boxes(dk, m, kn, st, n);
	if (!dk->split) {
		for (int i = 0; i < dk->nown; i++)
			box_free(&dk->own[i]);
		dk->nown = 0;
	} else {
		isl_set *v = coord_values(st, n, dk->coord);
		dk->first = isl_set_dim_min(isl_set_copy(v), 0);
		dk->last = isl_set_dim_max(v, 0);
		const pt_stmt *s0 = st[0];
		if (s0->ntile)
			snprintf(dk->why, sizeof(dk->why), "tile coordinate %d", dk->coord);
		else
			snprintf(dk->why, sizeof(dk->why), "%s", s0->stage->vars[s0->var0 + dk->coord]);
	}
	need_boxes(dk, m, ks, kn, st, n);
	free(st);
}

pt_dist *pt_dist_build(const pt_model *m, const pt_kernels *ks, bool replicate, const int64_t *ip, const int *fold)
{
	pt_dist *d = calloc(1, sizeof(*d));
	d->n = ks->n;
	d->k = calloc((size_t)ks->n + 1, sizeof(*d->k));
	for (int k = 0; k < ks->n; k++)
		decide(&d->k[k], m, ks, k, replicate, ip, fold);
	return d;
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
		free(dk->own);
		free(dk->need);
		isl_pw_aff_free(dk->first);
		isl_pw_aff_free(dk->last);
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
		isl_set *s = isl_set_copy(st->domain);
		if (d->k[k].split) {
			char lo[32], hi[32];
			snprintf(lo, sizeof(lo), "mpi.lo.%d", k);
			snprintf(hi, sizeof(hi), "mpi.hi.%d", k);
			s = slice(s, d->k[k].coord, lo, hi);
		}
		u = isl_union_set_union(u, isl_union_set_from_set(s));
	}
	return u;
}

/* pa at the int params ip and mpi.lo = lo, mpi.hi = hi; false where it
 * is not defined. */
static bool eval(__isl_keep isl_pw_aff *pa, const pt_pipeline *p, const int64_t *ip, int64_t lo, int64_t hi,
	int64_t *v)
{
	isl_ctx *ctx = isl_pw_aff_get_ctx(pa);
	isl_space *sp = isl_space_params(isl_pw_aff_get_domain_space(pa));
	isl_size np = isl_space_dim(sp, isl_dim_param);
	isl_point *pt = isl_point_zero(isl_space_copy(sp));
	for (int i = 0; i < np; i++) {
		const char *name = isl_space_get_dim_name(sp, isl_dim_param, (unsigned)i);
		int q = pt_pipeline_find_param(p, name);
		int64_t x = !strcmp(name, "mpi.lo") ? lo : !strcmp(name, "mpi.hi") ? hi : q >= 0 ? ip[q] : 0;
		pt = isl_point_set_coordinate_val(pt, isl_dim_param, i, isl_val_int_from_si(ctx, x));
	}
	isl_space_free(sp);
	isl_val *r = isl_pw_aff_eval(isl_pw_aff_copy(pa), pt);
	bool ok = r && isl_val_is_int(r);
	if (ok)
		*v = isl_val_get_num_si(r);
	isl_val_free(r);
	return ok;
}

/* Box b at ip for the part lo .. hi into out (lo > hi in dim 0: empty). */
static void box_at(const pt_dist_box *b, const pt_pipeline *p, const int64_t *ip, int64_t lo, int64_t hi, int64_t *out)
{
	for (int d = 0; d < b->ndim; d++)
		if (lo > hi || !eval(b->lo[d], p, ip, lo, hi, &out[2 * d]) || !eval(b->hi[d], p, ip, lo, hi, &out[2 * d + 1])) {
			out[0] = 1;
			out[1] = 0;
			return;
		}
}

static int64_t meet_count(int ndim, const int64_t *a, const int64_t *b)
{
	int64_t n = 1;
	for (int d = 0; d < ndim; d++) {
		int64_t lo = a[2 * d] > b[2 * d] ? a[2 * d] : b[2 * d];
		int64_t hi = a[2 * d + 1] < b[2 * d + 1] ? a[2 * d + 1] : b[2 * d + 1];
		if (lo > hi)
			return 0;
		n *= hi - lo + 1;
	}
	return n;
}

/* Rank r's part of split kernel dk at ip, as pt_mpi_slice gives it. */
static void part(const pt_dist_kernel *dk, const pt_pipeline *p, const int64_t *ip, int r, int R, int64_t *lo,
	int64_t *hi)
{
	int64_t first = 0, last = -1;
	if (!dk->split || !eval(dk->first, p, ip, 0, 0, &first) || !eval(dk->last, p, ip, 0, 0, &last))
		last = first - 1;
	int64_t n = last >= first ? last - first + 1 : 0;
	*lo = first + n * r / R;
	*hi = first + n * (r + 1) / R - 1;
}

const pt_dist_box *pt_dist_own(const pt_dist_kernel *dk, const pt_stage *s)
{
	for (int i = 0; i < dk->nown; i++)
		if (dk->own[i].stage == s)
			return &dk->own[i];
	return NULL;
}

bool pt_dist_predict(const pt_dist *d, const pt_model *m, const pt_kernels *ks, const int64_t *ip, int R,
	int64_t *sent, int64_t *received)
{
	const pt_pipeline *p = m->p;
	memset(sent, 0, sizeof(*sent) * (size_t)R);
	memset(received, 0, sizeof(*received) * (size_t)R);
	int64_t (*own)[2 * PT_MAX_DIMS] = calloc((size_t)R, sizeof(*own));
	int64_t (*need)[2 * PT_MAX_DIMS] = calloc((size_t)R, sizeof(*need));
	for (int k = 0; k < d->n; k++) {
		const pt_dist_kernel *dk = &d->k[k];
		for (int i = 0; i < dk->nneed; i++) {
			const pt_dist_box *nb = &dk->need[i];
			const pt_dist_kernel *pk = &d->k[ks->of_stage[nb->stage->id]];
			const pt_dist_box *ob = pt_dist_own(pk, nb->stage);
			if (!pk->split || !ob)
				continue;
			for (int r = 0; r < R; r++) {
				int64_t lo, hi;
				part(dk, p, ip, r, R, &lo, &hi);
				if (dk->split)
					box_at(nb, p, ip, lo, hi, need[r]);
				else
					box_at(nb, p, ip, 0, 0, need[r]);
				part(pk, p, ip, r, R, &lo, &hi);
				box_at(ob, p, ip, lo, hi, own[r]);
			}
			int64_t es = (int64_t)pt_type_size((pt_type)nb->stage->type);
			for (int r = 0; r < R; r++)
				for (int q = 0; q < R; q++)
					if (q != r) {
						int64_t b = meet_count(nb->ndim, own[r], need[q]) * es;
						sent[r] += b;
						received[q] += b;
					}
		}
	}
	/* the outputs gathered on rank 0 */
	for (int i = 0; i < p->nstages; i++) {
		const pt_stage *s = p->stages[i];
		const pt_dist_kernel *pk = &d->k[ks->of_stage[s->id]];
		const pt_dist_box *ob = s->is_output ? pt_dist_own(pk, s) : NULL;
		for (int r = 1; ob && r < R; r++) {
			int64_t lo, hi;
			part(pk, p, ip, r, R, &lo, &hi);
			box_at(ob, p, ip, lo, hi, own[r]);
			int64_t b = meet_count(ob->ndim, own[r], own[r]) * (int64_t)pt_type_size((pt_type)s->type);
			sent[r] += b;
			received[0] += b;
		}
	}
	free(own);
	free(need);
	return true;
}

char *pt_dist_str(const pt_dist *d, const pt_kernels *ks)
{
	pt_strbuf b = {0};
	for (int k = 0; k < d->n; k++) {
		const pt_dist_kernel *dk = &d->k[k];
		const pt_kernel *kn = &ks->k[k];
		pt_sb_printf(&b, "kernel %d (", k);
		for (int i = 0; i < kn->nstages; i++)
			pt_sb_printf(&b, "%s%s", i ? " " : "", kn->stages[i]->name);
		pt_sb_printf(&b, "): %s %s\n", dk->split ? "split along" : "replicated:", dk->why);
		for (int i = 0; i < dk->nneed; i++) {
			const pt_dist_kernel *pk = &d->k[ks->of_stage[dk->need[i].stage->id]];
			pt_sb_printf(&b, "  reads %s: %s\n", dk->need[i].stage->name,
				pk->split ? "its ghost zone exchanged" : "computed whole on every rank");
		}
	}
	return pt_sb_take(&b);
}
