/* update.h: general reduction updates, `h(t) = E`, normalized to an
 * operator of the accumulator and one value (docs/language.md §12).
 *
 * E reads the accumulator as h(t) (the target as written) and combines
 * it with one value: the sub-expressions of E that do not read h(t),
 * taken as large as possible, must all be the same expression v once
 * literals are set aside (a literal is part of the operator: the 7 of
 * `h(t) + v + 7 * h(t) * v`); when E has no such sub-expression but
 * literals, the literal (all the same) is the value: `h(b) = h(b) + 1`.
 * E becomes op(acc, val): E with h(t) replaced by a PT_UPD_ACC node and
 * v by a PT_UPD_VAL node (ir.h), so that every other pass sees v as the
 * update's value, as for the built-in operators. */
#ifndef PT_UPDATE_H
#define PT_UPDATE_H

#include "ir.h"

/* Splits e (taken; untyped, as parsed) for stage s at target[0..n)
 * (not taken): *value and *op set (caller owns), or an error at the
 * offending sub-expression reported into d and false. */
bool pt_update_split(pt_diag *d, const pt_stage *s, pt_expr *const *target, int n, pt_expr *e, pt_expr **value,
	pt_expr **op);

/* A copy of op with PT_UPD_ACC replaced by copies of acc and PT_UPD_VAL
 * by copies of val; NULL when out of memory. */
pt_expr *pt_update_apply(const pt_expr *op, const pt_expr *acc, const pt_expr *val);

#endif
