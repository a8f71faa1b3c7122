/* ref_argmin.h: plain-C reference of apps/argmin.pipe.
 * V is a dense [N][N][N][N] u8 array, last index contiguous. */
#ifndef REF_ARGMIN_H
#define REF_ARGMIN_H

#include <stdint.h>

/* The least value of V and the first point (a, b, c, d) in lexicographic
 * order holding it: *val and idx[0..3].  N >= 1. */
void ref_argmin(int N, const uint8_t *V, uint8_t *val, int32_t idx[4]);

#endif
