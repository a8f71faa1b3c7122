/* naive_schedule.h: the baseline schedule (PolyMage's "base"): every stage
 * over its full domain, one after another in topological order, points in
 * lexicographic order.  This is what the interpreter does, written as an
 * isl schedule, and what codegen will start from. */
#ifndef PT_POLY_NAIVE_SCHEDULE_H
#define PT_POLY_NAIVE_SCHEDULE_H

#include <isl/ctx.h>
#include <isl/union_map.h>

#include "ir.h"

/* The schedule as a union map S<i>[x...] -> [i, x..., 0...] (reductions:
 * I<i> for the initialisation over the result's domain, then U<i> over
 * the reduction domain), domains intersected in; NULL if a bound is not
 * affine. */
__isl_give isl_union_map *pt_poly_naive_schedule(isl_ctx *ctx, const pt_pipeline *p);
/* isl's AST for that schedule, printed as C (for reading); caller frees. */
char *pt_poly_naive_ast_c(isl_ctx *ctx, const pt_pipeline *p);

#endif
