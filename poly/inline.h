/* inline.h: inlining of point-wise producers (PolyMage thesis, chapter 3).
 *
 * A stage f is substituted into every consumer and removed when it is not
 * an output, not a reduction, does not read itself, has no domain step
 * above 1, reads every callee at exactly its own point (arguments x0 ..
 * xn-1 in order, callee of the same rank), is called at least once, and
 * every call site is decided: isl proves that the points it reads lie in
 * one case k (case k's value is substituted), or f is total (its cases
 * become a select chain).  Under PT_INLINE_CHEAP a row selection is a
 * candidate too: one unconditional case choosing among calls by
 * conditions free of calls and of the innermost variable, each call
 * reading the innermost variable as its last argument (camera_pipe's
 * red(x, y) = x % 2 == 0 ? redX1(x/2, y) : redX2(x/2, y)).  Producers go
 * first, so chains collapse.  The interpreter gives the same bits on the
 * result at every defined point. */
#ifndef PT_POLY_INLINE_H
#define PT_POLY_INLINE_H

#include <isl/ctx.h>

#include "ir.h"

/* Which candidates are substituted: all of them (the naive schedule, where
 * a kept stage is a full buffer in memory), or only those whose
 * recomputation at every point read costs less than a store and the loads
 * (the grouped schedule, where a kept stage lives in a tile's scratchpad;
 * the rule is costly() in inline.c). */
typedef enum pt_inline_rule { PT_INLINE_ALL, PT_INLINE_CHEAP } pt_inline_rule;

/* A new checked pipeline (owner NULL, freed with pt_pipeline_free) equal to
 * p with its point-wise producers inlined; p is untouched.  *ninlined (if
 * not NULL) receives the number of stages removed. */
pt_pipeline *pt_poly_inline(isl_ctx *ctx, const pt_pipeline *p, pt_inline_rule rule, int *ninlined);

#endif
