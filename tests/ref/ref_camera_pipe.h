/*
 * ref_camera_pipe.h - plain-C reference for apps/camera_pipe.pipe
 * (PolyMage's camera pipeline), written from the specification with simple
 * loops and no code shared with the compiler.
 *
 * Layout: arrays are dense, row-major, C order, the last index contiguous
 * (as in ref_apps.h).  Coordinates are those of the input, as in the
 * pipeline: full-resolution stages are indexed by input row x and column y,
 * half-resolution planes by (x, y) standing for the 2x2 block at (2x, 2y).
 *
 *   img:        uint16 [R+48][C+64]  the raw mosaic, GRBG: green at (even,
 *                                    even), red at (even, odd), blue at
 *                                    (odd, even), green at (odd, odd).
 *   out:        uint8  [3][R][C]     out[(c*R + x-12)*C + y-16] =
 *                                    process(c, x, y) for c in 0..2 (red,
 *                                    green, blue), x in 12..R+11,
 *                                    y in 16..C+15.
 *   demosaiced: int16  [3][R][C] or NULL: red, green, blue(x, y), indexed
 *                                    like out.
 *   corrected:  int16  [3][R][C] or NULL: corrected(c, x, y), indexed like
 *                                    out.
 *   matrix:     int32  [3][4] or NULL: the Q8.8 colour matrix, row c gives
 *                                    channel c from (red, green, blue, 1).
 *   curve:      uint8  [65536] or NULL: curve[v + 32768] = curve(v) for v
 *                                    in -32768..32767.
 *
 * Arithmetic is the pipeline's: stage values are int16 (two's-complement
 * wrap on store), sums and differences of them int32, integer division
 * floors, float work is 32-bit float in the pipeline's operation order with
 * powf.  R >= 1 and C >= 1.
 */
#ifndef POLYTILE_REF_CAMERA_PIPE_H
#define POLYTILE_REF_CAMERA_PIPE_H

#include <stdint.h>

void ref_camera_pipe(int R, int C, float colour_temp, float gamma,
		float contrast, const uint16_t *img, uint8_t *out,
		int16_t *demosaiced, int16_t *corrected, int32_t *matrix,
		uint8_t *curve);

#endif /* POLYTILE_REF_CAMERA_PIPE_H */
