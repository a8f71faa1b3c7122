/* isl_expr.h: IR expressions and conditions as isl objects.
 * The space of a stage is its int params (by name) and its variables. */
#ifndef PT_POLY_ISL_EXPR_H
#define PT_POLY_ISL_EXPR_H

#include <isl/aff.h>
#include <isl/set.h>
#include <isl/space.h>

#include "diag.h"
#include "ir.h"

/* The parameter-and-variable space of stage s (nvars of its variables). */
__isl_give isl_space *pt_poly_stage_space(isl_ctx *ctx, const pt_pipeline *p,
	const pt_stage *s, int nvars);
/* An int expression as a piecewise affine function on space, or NULL when
 * it is not quasi-affine (calls, floats, products of variables, ...). */
__isl_give isl_pw_aff *pt_poly_pw_aff(__isl_keep isl_space *space, const pt_expr *e);
/* A condition as a set, or NULL when it is not affine. */
__isl_give isl_set *pt_poly_cond_set(__isl_keep isl_space *space, const pt_expr *e);
/* The box of a stage's domain (steps included) as a set on space. */
__isl_give isl_set *pt_poly_domain_set(__isl_keep isl_space *space, const pt_stage *s);
/* Parameter values for which the pipeline makes sense: every image extent
 * is at least 1 and every stage domain is non-empty. */
__isl_give isl_set *pt_poly_admissible(__isl_keep isl_space *space, const pt_pipeline *p);
/* The same without the int params' type ranges (a weaker set, cheaper
 * for isl's AST generation). */
__isl_give isl_set *pt_poly_nonempty(__isl_keep isl_space *space, const pt_pipeline *p);

/* Whether only the run can tell which points of s a case defines: a
 * case's condition is not affine (it reads data) and no `else` covers
 * the rest.  Compiled code then tracks the defined points of such an
 * intermediate stage in a mask beside its full buffer (never in a
 * scratchpad), to check every read of it. */
bool pt_poly_stage_undecided(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s);

/* Reports (false) an image or stage that is empty for every value of the
 * params, or params that can never make all of them non-empty: the
 * other checks and codegen reason "for all admissible params". */
bool pt_poly_check_admissible(isl_ctx *ctx, pt_diag *d, const pt_pipeline *p);

#endif
