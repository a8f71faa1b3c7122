/* case_overlap.h: the static check that the cases of a definition are
 * exclusive wherever isl can decide it (affine conditions). */
#ifndef PT_POLY_CASE_OVERLAP_H
#define PT_POLY_CASE_OVERLAP_H

#include <isl/ctx.h>

#include "ir.h"

/* Reports, for each function stage, the first pair of cases whose affine
 * conditions both hold at some point of its domain for some admissible
 * params, with that point as an example.  Returns false if any did. */
bool pt_poly_check_cases(isl_ctx *ctx, pt_diag *d, const pt_pipeline *p);

#endif
