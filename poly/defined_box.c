/* defined_box.c: where an output's cases define only some of its points
 * (harris's border is left to the caller), whether the points they do
 * define are a box, and its bounds over the params.  A device target
 * then need not copy such an output in for the run only to keep the
 * points outside it: it keeps them on the host (runtime/cuda.c). */
#include <stdlib.h>

#include <isl/aff.h>
#include <isl/set.h>

#include "defined_box.h"
#include "isl_expr.h"

/* The points s defines (its domain where some case's condition holds),
 * at admissible params; NULL if a condition is not affine. */
static __isl_give isl_set *defined_points(__isl_keep isl_space *space, const pt_pipeline *p, const pt_stage *s)
{
	isl_set *dom = pt_poly_domain_set(space, s);
	isl_set *def = isl_set_empty(isl_space_copy(space));
	for (int k = 0; k < s->ncases && dom && def; k++) {
		isl_set *c = s->cases[k].cond ? pt_poly_cond_set(space, s->cases[k].cond) : isl_set_universe(isl_space_copy(space));
		def = c ? isl_set_union(def, isl_set_intersect(isl_set_copy(dom), c)) : isl_set_free(def);
	}
	isl_set_free(dom);
	return def ? isl_set_intersect_params(def, pt_poly_admissible(space, p)) : NULL;
}

/* def along dim d alone, as a cylinder on def's space, when that is an
 * interval (no holes: its polyhedral hull); NULL otherwise. */
static __isl_give isl_set *interval_along(__isl_keep isl_set *def, int d, int n)
{
	isl_set *c = isl_set_eliminate(isl_set_copy(def), isl_dim_set, (unsigned)d + 1, (unsigned)(n - d - 1));
	c = isl_set_eliminate(c, isl_dim_set, 0, (unsigned)d);
	c = isl_set_coalesce(c);
	isl_set *h = isl_set_from_basic_set(isl_set_polyhedral_hull(isl_set_copy(c)));
	bool whole = isl_set_is_equal(c, h) == isl_bool_true;
	isl_set_free(h);
	return whole ? c : isl_set_free(c);
}

bool pt_poly_defined_box(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s, isl_pw_aff **lo, isl_pw_aff **hi)
{
	for (int d = 0; d < s->ndim; d++)
		lo[d] = hi[d] = NULL;
	if (s->red || s->nrdim > 0 || s->ndim == 0)
		return false;
	isl_space *space = pt_poly_stage_space(ctx, p, s, s->ndim);
	isl_set *def = space ? defined_points(space, p, s) : NULL;
	isl_set *hull = def ? isl_set_universe(isl_space_copy(space)) : NULL;
	for (int d = 0; hull && d < s->ndim; d++) {
		isl_set *c = interval_along(def, d, s->ndim);
		hull = c ? isl_set_intersect(hull, c) : isl_set_free(hull);
	}
	/* the product of its intervals holds no point s leaves undefined */
	bool box = hull && isl_set_is_subset(hull, def) == isl_bool_true;
	for (int d = 0; box && d < s->ndim; d++) {
		lo[d] = isl_set_dim_min(isl_set_copy(def), d);
		hi[d] = isl_set_dim_max(isl_set_copy(def), d);
	}
	isl_set_free(hull);
	isl_set_free(def);
	isl_space_free(space);
	return box;
}
