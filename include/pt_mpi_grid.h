/* pt_mpi_grid.h: the grid of R ranks that a kernel split along two
 * coordinates uses (docs/distributed.md), shared by the compiler's model
 * (poly/dist_eval.c) and the runtime (pt_mpi_slice2_of), which must
 * agree to the rank.  Not installed: generated code calls
 * pt_mpi_slice2_of. */
#ifndef PT_MPI_GRID_H
#define PT_MPI_GRID_H

#include <stdint.h>

/* R = P x Q with Q the greatest divisor of R whose square is at most R
 * (P >= Q; a prime R is R x 1: slabs); rank r is at row r / Q (of P,
 * along the first coordinate) and column r % Q (of Q, along the
 * second). */
static inline void pt_mpi_grid_shape(int32_t R, int32_t *P, int32_t *Q)
{
	int32_t q = 1;
	for (int32_t d = 1; (int64_t)d * d <= R; d++)
		if (R % d == 0)
			q = d;
	*Q = R > 0 ? q : 1;
	*P = R > 0 ? R / q : 0;
}

#endif
