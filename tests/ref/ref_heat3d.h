/* ref_heat3d.h: plain-C reference of apps/heat3d.pipe.
 * U, once and last are dense [N+2][N+2][N+2] float arrays, last index
 * contiguous.  once is written at the interior 1..N only; last is the
 * state after T steps (border held at U's values). */
#ifndef REF_HEAT3D_H
#define REF_HEAT3D_H

void ref_heat3d(int N, int T, float k, const float *U, float *once, float *last);

#endif
