/* values.h: the value semantics of the language, shared by the
 * interpreter and (as the specification) by every backend's tests.
 * Integers live in i (wrapped to their type), floats in f (f32 values
 * are rounded to float after every operation), bools are 0/1 in i. */
#ifndef PT_VALUES_H
#define PT_VALUES_H

#include <stdint.h>

#include "ir.h"

typedef union pt_val {
	int64_t i;
	double f;
} pt_val;

double pt_round_f32(double x);
/* C-like conversion: ints wrap, floats to ints truncate and saturate
 * (NaN gives 0), bool is 0/1. */
pt_val pt_val_convert(pt_val v, int from, int to);
/* Operands already converted to t (for shifts, y is an i64 count; for
 * comparisons t is the operands' type). */
pt_val pt_val_binary(int op, int t, pt_val x, pt_val y);
pt_val pt_val_unary(int op, int t, pt_val x);
pt_val pt_val_minmax(int t, pt_val x, pt_val y, int want_min);
pt_val pt_val_math(int intrin, int t, pt_val x, pt_val y);
/* Folds value v (of type vt) into the accumulator acc of type t. */
pt_val pt_val_reduce(int op, int t, pt_val acc, pt_val v, int vt);
pt_val pt_val_identity(int op, int t);
pt_val pt_val_load(const void *data, pt_type t, int64_t off);
void pt_val_store(void *data, pt_type t, int64_t off, pt_val v);

#endif
