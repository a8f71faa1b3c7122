/* recur_order.h: the loop order of a plain stage that reads itself (a
 * recurrence, docs/language.md §13), in its group's tiles or not: which of
 * the dimensions its self-reads keep is cut into strips run in parallel,
 * and which runs innermost, so that the recurrence runs inside a
 * parallel, vectorized loop across independent points. */
#ifndef PT_POLY_RECUR_ORDER_H
#define PT_POLY_RECUR_ORDER_H

#include "statements.h"

typedef struct pt_recur_order {
	int strip;      /* point dim cut into strips (the band's first member), or -1 */
	unsigned width; /* the strips' width along it */
	int last;       /* point dim moved to the band's end, or -1 (the domain's order) */
} pt_recur_order;

/* The order of the nest of statements s[idx[0..n)] (one stage's, in a
 * group, inside its tiles or not); strip -1 and last -1 unless they are
 * a recurrence's (not split) whose domain's order leaves a parallel loop
 * inside it or none. */
pt_recur_order pt_poly_recur_order(const pt_stmt *s, const int *idx, int n);

#endif
