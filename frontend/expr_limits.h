/* expr_limits.h: the size of expressions that the compiler accepts.
 *
 * Every pass over expressions (checker, range analysis, printer,
 * interpreter, inliner, codegen) recurses along the tree, so the front
 * end refuses, with a located error, any tree deeper or larger than these
 * limits before a later pass meets it: the parser while it reads (and
 * substitutes `let`s), the checker for every tree a pipeline holds (the
 * builder API's included), the inliner for every tree it would build.
 * docs/language.md ("Limits") states them. */
#ifndef PT_EXPR_LIMITS_H
#define PT_EXPR_LIMITS_H

#include <stdbool.h>

#include "ir.h"

/* Nodes on the longest path from the root to a leaf (an n-ary min/max
 * counts as the n - 1 nested binary ones the checker makes of it); the
 * parser also counts each level of its own recursion (parentheses,
 * unary operators, arguments) against it.  The deepest app needs under
 * 50.  At this limit the deepest pass, the parser, needs 479 KB of stack
 * (1734 KB under AddressSanitizer) and the others under 300 KB (770 KB)
 * (tests/robustness/stack_depth.sh runs them all in 1 MiB, 4 MiB). */
#define PT_MAX_EXPR_DEPTH 1000
/* Nodes of one tree, after `let` substitution and stencil expansion. */
#define PT_MAX_EXPR_NODES 200000
/* Nodes of all the trees one parser builds (loops re-read their body, so
 * the file's length does not bound this). */
#define PT_MAX_TOTAL_NODES 4000000

/* Depth and node count of e (NULL: 0 and 0), measured without recursion
 * (e may be deeper than a recursion could follow); counting stops once
 * either passes its limit above.  False only when out of memory. */
bool pt_expr_measure(const pt_expr *e, int *depth, long *nodes);

/* Whether e (may be NULL) is within both limits; if not, reports at
 * e's location that `what` (e.g. "the value of 'f'") is too deep or too
 * large. */
bool pt_expr_check_limits(pt_diag *d, const pt_expr *e, const char *what);

/* The same for every expression of p: extents, domains, cases, updates,
 * initial values. */
bool pt_pipeline_check_limits(pt_diag *d, const pt_pipeline *p);

#endif
