/* range.h: the one interval analysis of integer expressions.
 *
 * The rules (which expression gives which range) live here, once; the
 * bounds are the caller's: poly/'s are isl_pw_aff over the variables and
 * params (the bounds check of data-dependent indices and the access
 * relations, access.c), the error's are affine forms in the params
 * (index_range.c).  A bound is
 * an opaque pointer; NULL means unbounded on that side.  Wrap-around of
 * integer arithmetic is not modelled (see docs/language.md, §11). */
#ifndef PT_RANGE_H
#define PT_RANGE_H

#include <stdbool.h>

#include "ir.h"

typedef struct pt_range_ops {
	/* e's exact value when e reads no data and a bound represents it,
	 * else NULL */
	void *(*exact)(const pt_expr *e, void *user);
	/* the lower (hi false) or upper bound of variable index, or NULL */
	void *(*var)(int index, bool hi, void *user);
	/* the bounds of an integer type, or NULL where unbounded is preferred */
	void *(*type_bound)(int t, bool hi, void *user);
	void *(*constant)(int64_t v, void *user);
	void *(*copy)(const void *a, void *user);
	/* The following take their bound arguments (NULL: unbounded). */
	void *(*add)(void *a, void *b, bool sub, void *user);
	void *(*scale)(void *a, int64_t k, void *user);
	void *(*floordiv)(void *a, int64_t k, void *user);          /* k >= 1 */
	/* min or max of a and b; when one is unbounded: NULL if need_both,
	 * else the other (min(a, b) <= b whatever a is) */
	void *(*minmax)(void *a, void *b, bool min, bool need_both, void *user);
	/* Whether a <= b provably (arguments kept); NULL: never known. */
	bool (*le)(const void *a, const void *b, void *user);
	void (*free)(void *a, void *user);
} pt_range_ops;

typedef struct pt_range {
	void *lo, *hi;
} pt_range;

/* Over-approximates the values of the integer expression e (checked and
 * lowered: binary min/max, operands of their operation's type). */
pt_range pt_range_of(const pt_expr *e, const pt_range_ops *ops, void *user);

#endif
