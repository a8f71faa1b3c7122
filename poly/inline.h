/* inline.h: inlining of point-wise producers (PolyMage thesis, chapter 3).
 *
 * A stage f is substituted into every consumer and removed when it is not
 * an output, not a reduction, does not read itself, has no domain step
 * above 1, reads every callee at exactly its own point (arguments x0 ..
 * xn-1 in order, callee of the same rank), is called at least once, and
 * every call site is decided: isl proves that the points it reads lie in
 * one case k (case k's value is substituted), or f is total (its cases
 * become a select chain).  Producers go first, so chains collapse.  The
 * interpreter gives the same bits on the result at every defined point. */
#ifndef PT_POLY_INLINE_H
#define PT_POLY_INLINE_H

#include <isl/ctx.h>

#include "ir.h"

/* A new checked pipeline (owner NULL, freed with pt_pipeline_free) equal to
 * p with its point-wise producers inlined; p is untouched.  *ninlined (if
 * not NULL) receives the number of stages removed. */
pt_pipeline *pt_poly_inline(isl_ctx *ctx, const pt_pipeline *p, int *ninlined);

#endif
