/* assoc.h: proofs that a general update's operator is associative and
 * commutative, and its identity (what factoring needs, rfactor.h).
 *
 * The operator op(a, b) (ir.h: PT_UPD_ACC is a, PT_UPD_VAL is b, both of
 * the reduction's type t) is decided in one of three classes, each by a
 * complete check:
 *  - ring: +, -, * and negation of a, b and literals (sum, product,
 *    a + b + 7ab, ...).  op is a polynomial; op(op(a,b),c) and
 *    op(a,op(b,c)) are expanded and compared coefficient by coefficient,
 *    modulo 2^bits for integer types (wrapping arithmetic is the ring of
 *    integers modulo 2^bits, and a polynomial identity over the integers
 *    holds there), exactly for float types (the real numbers: their
 *    rounding is what --reassociate allows).
 *  - lattice: min and max of a, b and literals.  The value depends only
 *    on how a, b, c and the literals are ordered, so every ordering is
 *    tried (each literal, the type's bounds, and up to three values
 *    between each two of them).
 *  - bitwise: &, |, ^ and ~ of a, b and literals, integers only.  Each
 *    bit of the result is a function of the same bit of a, b, c, so a, b
 *    and c set to 0 or all ones try every case of every bit at once.
 * Integer conversions are allowed where they keep the low bits (to a
 * type at least as wide as t); anything else (division, comparisons,
 * selects, mixing the classes) is not decided, and stays serial.
 * Identities are searched among 0, 1, -1, the type's bounds (infinities
 * for floats), all ones and the literals, each checked by the same
 * means. */
#ifndef PT_POLY_ASSOC_H
#define PT_POLY_ASSOC_H

#include <stdbool.h>

#include "ir.h"
#include "values.h"

typedef enum pt_assoc_class {
	PT_ASSOC_NONE, PT_ASSOC_RING, PT_ASSOC_LATTICE, PT_ASSOC_BITWISE
} pt_assoc_class;

typedef struct pt_assoc {
	pt_assoc_class cls;     /* NONE: not decided (why says so) */
	bool associative, commutative, has_identity;
	pt_val identity;        /* of type t, when has_identity */
	/* when not proved: why, with a counterexample where one was found */
	char why[400];
} pt_assoc;

/* Decides op on values of type t (an integer or float type); true when
 * op is proved associative and commutative with an identity. */
bool pt_assoc_prove(const pt_expr *op, int t, pt_assoc *out);

/* ---- tuples (assoc_tuple.c) ----
 * A tuple operator op_j(A, B), j < n, on tuples of n components of one
 * type t: VAR operands PT_TUP_A(k) and PT_TUP_B(k), of type t.  Decided
 * in the ring class only: each op_j a polynomial in the 2n operands
 * (complex multiplication, componentwise sums), op(op(A,B),C) and
 * op(A,op(B,C)), op(A,B) and op(B,A) expanded and compared component by
 * component (modulo 2^bits for integers, exactly for floats); the
 * identity searched among tuples of 0, 1 and -1. */
#define PT_TUP_A(k) (-200 - (k))
#define PT_TUP_B(k) (-300 - (k))
typedef struct pt_assoc_tuple {
	bool associative, commutative, has_identity;
	pt_val identity[PT_MAX_TUPLE];
	char why[400];
} pt_assoc_tuple;
bool pt_assoc_prove_tuple(pt_expr *const *op, int n, int t, pt_assoc_tuple *out);

#endif
