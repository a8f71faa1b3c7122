/* dist_sets.c: the isl sets and boxes the distribute pass's files
 * share: a kernel's statements and coordinates, the elements an access
 * touches, box hulls, and the choice of the coordinate to split. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/id.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/union_map.h>
#include <isl/union_set.h>

#include "dist_priv.h"

/* The statements of kernel k, in model order; *n of them. */
const pt_stmt **pt_dist_kernel_stmts(const pt_model *m, const pt_kernels *ks, int k, int *n)
{
	const pt_stmt **out = calloc((size_t)m->stmts->n + 1, sizeof(*out));
	*n = 0;
	for (int i = 0; i < m->stmts->n; i++)
		if (ks->of_stage[m->stmts->s[i].stage->id] == k)
			out[(*n)++] = &m->stmts->s[i];
	return out;
}

/* The values of coordinate c over the statements (anonymous 1-D sets). */
__isl_give isl_set *pt_dist_coord_values(const pt_stmt **st, int n, int c)
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

/* How many values coordinate c takes at ip (0 when not known). */
static int64_t coord_extent(const pt_stmt **st, int n, int c, const pt_pipeline *p, const int64_t *ip)
{
	isl_set *v = pt_dist_coord_values(st, n, c);
	isl_pw_aff *lo = isl_set_dim_min(isl_set_copy(v), 0), *hi = isl_set_dim_max(v, 0);
	int64_t a, b, e = 0;
	if (pt_dist_eval(lo, p, ip, NULL, &a) && pt_dist_eval(hi, p, ip, NULL, &b))
		e = b - a + 1;
	isl_pw_aff_free(lo);
	isl_pw_aff_free(hi);
	return e;
}

/* The box hull of w (a set of one array's elements) as pw_affs; *exact:
 * whether w is that box. */
void pt_dist_box_of(__isl_take isl_set *w, const pt_stage *s, pt_dist_box *b, bool *exact)
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

/* The elements of array name in the range of acc over the instances
 * (taken). */
__isl_give isl_set *pt_dist_touched(__isl_keep isl_union_map *acc, __isl_take isl_union_set *inst, const char *name,
	__isl_keep isl_space *space)
{
	isl_union_set *r = isl_union_map_range(isl_union_map_intersect_domain(isl_union_map_copy(acc), inst));
	isl_set *out = isl_set_empty(isl_space_copy(space));
	isl_set_list *l = isl_union_set_get_set_list(r);
	for (int i = 0; i < isl_set_list_n_set(l); i++) {
		isl_set *s = isl_set_list_get_set(l, i);
		if (isl_set_has_tuple_name(s) == isl_bool_true && !strcmp(isl_set_get_tuple_name(s), name))
			out = isl_set_union(out, s);
		else
			isl_set_free(s);
	}
	isl_set_list_free(l);
	isl_union_set_free(r);
	return isl_set_coalesce(out);
}

/* The space of stage s's elements with the params of m. */
__isl_give isl_space *pt_dist_array_space(const pt_model *m, const pt_stage *s)
{
	return pt_dist_named_space(m, s->name, s->ndim);
}

__isl_give isl_space *pt_dist_named_space(const pt_model *m, const char *name, int ndim)
{
	isl_ctx *ctx = isl_set_get_ctx(m->context);
	isl_space *sp = isl_space_set_alloc(ctx, 0, (unsigned)ndim);
	sp = isl_space_set_tuple_name(sp, isl_dim_set, name);
	return isl_space_align_params(sp, isl_set_get_space(m->context));
}

int pt_dist_pick_coord(const pt_model *m, const pt_kernels *ks, int k, const pt_stmt **st, int n, const int64_t *ip,
	int c0, int c1, bool (*crossed)(const pt_model *m, const pt_kernels *ks, int k, int c))
{
	int best = -1;
	int64_t best_e = 0;
	for (int c = c0; c < c1; c++) {
		if (crossed(m, ks, k, c))
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
