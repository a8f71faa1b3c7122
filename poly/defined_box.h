/* defined_box.h: the box of the points a stage's cases define
 * (defined_box.c). */
#ifndef PT_POLY_DEFINED_BOX_H
#define PT_POLY_DEFINED_BOX_H

#include <stdbool.h>

#include <isl/aff.h>

#include "ir.h"

/* Whether the points function s's cases define are exactly a box: then
 * its bounds along each dim d, lo[d] .. hi[d], over the params (caller
 * frees; undefined where s defines nothing); false (lo, hi NULL) for a
 * condition that is not affine, a reduction, or points that do not
 * fill their box. */
bool pt_poly_defined_box(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s, __isl_give isl_pw_aff **lo,
	__isl_give isl_pw_aff **hi);

#endif
