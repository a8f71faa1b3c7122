/* case_overlap.c: cases that provably overlap are an error.  A pair of
 * cases overlaps when the intersection of the stage's domain, both
 * conditions and the admissible params is non-empty; conditions that read
 * data or are not affine cannot be decided statically and are left to the
 * interpreter's run-time check. */
#include <isl/point.h>
#include <isl/val.h>

#include "case_overlap.h"
#include "isl_expr.h"

/* Appends "x = 1, y = 2 when R = 3" for a sample point of set. */
static void describe_point(pt_strbuf *b, __isl_take isl_set *set, const pt_pipeline *p, const pt_stage *s)
{
	isl_point *pt = isl_set_sample_point(set);
	if (!pt)
		return;
	for (int d = 0; d < s->ndim; d++) {
		isl_val *v = isl_point_get_coordinate_val(pt, isl_dim_set, d);
		pt_sb_printf(b, "%s%s = %ld", d ? ", " : "", s->vars[d], isl_val_get_num_si(v));
		isl_val_free(v);
	}
	bool first = true;
	for (int q = 0; q < p->nparams; q++) {
		if (!pt_type_is_int(p->params[q].type))
			continue;
		isl_val *v = isl_point_get_coordinate_val(pt, isl_dim_param, q);
		pt_sb_printf(b, "%s%s = %ld", first ? " when " : ", ", p->params[q].name, isl_val_get_num_si(v));
		first = false;
		isl_val_free(v);
	}
	isl_point_free(pt);
}

/* Checks one stage; false after reporting an overlap. */
static bool check_stage(isl_ctx *ctx, pt_diag *d, const pt_pipeline *p, const pt_stage *s,
	__isl_keep isl_set *admissible)
{
	if (s->red || s->ncases < 2)
		return true;
	isl_space *sp = pt_poly_stage_space(ctx, p, s, s->ndim);
	isl_set *dom = pt_poly_domain_set(sp, s);
	if (!dom) {
		isl_space_free(sp);
		return true;
	}
	dom = isl_set_intersect_params(dom, isl_set_copy(admissible));
	isl_set **conds = calloc((size_t)s->ncases, sizeof(isl_set *));
	/* an `else` overlaps no case before it: its set is not needed */
	for (int c = 0; c < s->ncases; c++)
		conds[c] = pt_case_is_else(s, c) ? NULL : s->cases[c].cond ? pt_poly_cond_set(sp, s->cases[c].cond)
			: isl_set_universe(isl_space_copy(sp));
	bool ok = true;
	for (int i = 0; i < s->ncases && ok; i++)
		for (int j = i + 1; j < s->ncases && ok; j++) {
			if (!conds[i] || !conds[j])
				continue;
			isl_set *both = isl_set_intersect(isl_set_copy(dom),
				isl_set_intersect(isl_set_copy(conds[i]), isl_set_copy(conds[j])));
			isl_bool empty = isl_set_is_empty(both);
			if (empty == isl_bool_false) {
				pt_strbuf m = {0};
				describe_point(&m, isl_set_copy(both), p, s);
				pt_error_at(d, s->cases[j].loc,
					"make the conditions exclusive, for instance with `| else -> ...` for the rest",
					"cases %d and %d of '%s' overlap: both hold at %s", i + 1, j + 1, s->name,
					m.s ? m.s : "some point");
				pt_sb_free(&m);
				ok = false;
			}
			isl_set_free(both);
		}
	for (int c = 0; c < s->ncases; c++)
		isl_set_free(conds[c]);
	free(conds);
	isl_set_free(dom);
	isl_space_free(sp);
	return ok;
}

bool pt_poly_check_cases(isl_ctx *ctx, pt_diag *d, const pt_pipeline *p)
{
	/* the params' constraints are the same for every stage: build once */
	isl_space *sp = pt_poly_stage_space(ctx, p, NULL, 0);
	isl_set *admissible = pt_poly_admissible(sp, p);
	isl_space_free(sp);
	bool ok = true;
	for (int i = 0; i < p->nstages; i++)
		ok = check_stage(ctx, d, p, p->stages[i], admissible) && ok;
	isl_set_free(admissible);
	return ok;
}
