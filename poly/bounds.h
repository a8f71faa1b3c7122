/* bounds.h: the static bounds check (PolyMage's, through isl).
 *
 * Every access must stay inside the callee: a stage's domain, on its
 * steps, or an image's extents 0 .. extent-1; and every reduction target
 * inside the reduction's own domain.  This must hold for all params the
 * pipeline admits (pt_poly_admissible), at every point where the access is
 * evaluated (pt_poly_walk: the case that applies, enclosing selects and
 * short-circuit operators when their conditions are affine).
 *
 * Dimensions whose index isl represents exactly are checked exactly.  A
 * data-dependent index (one that reads data) must stay inside by the
 * bounds of its values (pt_poly_index_range: interval arithmetic with
 * calls at their type's range, everything else exact), at the same points
 * for the same params; it is not checked against the steps.  Other
 * non-affine indices (x * y, x & 3, conversions) are left to the
 * interpreter's and compiled code's run-time checks. */
#ifndef PT_POLY_BOUNDS_H
#define PT_POLY_BOUNDS_H

#include <isl/ctx.h>

#include "ir.h"

/* Reports, for each stage, its first access that can leave the callee
 * (source order), at the call's location (a target: at the target), as
 *
 *   'g' reads f(x - 1) outside the domain of 'f' in dimension 1 (0 .. N - 1):
 *       at x = 0 with N = 1 it reads f(-1)
 *   'g' reads I(x + 1) outside image 'I' in dimension 1 (0 .. 3): at x = 3 it reads I(4)
 *   reduction 'h' updates h(x) outside its domain in dimension 1 (0 .. 3):
 *       at x = 4 it updates h(4)
 *   data-dependent index 1 of 'f' may fall outside 0 .. R - 1: its values
 *       range over -4 .. R - 5
 *
 * (one line each) with a hint.  The example point has the smallest params
 * found (then the smallest point).  Returns false if any was reported. */
bool pt_poly_check_bounds(isl_ctx *ctx, pt_diag *d, const pt_pipeline *p);

#endif
