/* convert.h: files <-> pipeline buffers for the CLI. */
#ifndef PT_CLI_CONVERT_H
#define PT_CLI_CONVERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_runtime.h"

bool pt_cli_has_suffix(const char *s, const char *suffix);
/* Reads a PNG into a new buffer of the image's type and rank.  2-D images
 * take gray PNGs; 3-D images put channels first (channel_dim 0) or last
 * (2); a gray PNG is copied into each of `channels` channels there.
 * 8/16-bit samples become v/255 or v/65535 for float types and the
 * raw (saturated) value for integer types. */
int pt_cli_load_png(const char *path, pt_type type, int ndim, int channel_dim, int channels,
	pt_buffer *out, char *err, size_t errlen);
/* Reads a .npy and converts its elements to type (C casts, saturating). */
int pt_cli_load_npy(const char *path, pt_type type, pt_buffer *out, char *err, size_t errlen);
/* Only the box lo .. lo + ext - 1 of it (`run --backend mpi`: each rank
 * reads its own part). */
int pt_cli_load_npy_box(const char *path, pt_type type, const int64_t *lo, const int64_t *ext, pt_buffer *out,
	char *err, size_t errlen);
/* A deterministic test pattern for images not given on the command line. */
int pt_cli_generate(pt_type type, int ndim, const int64_t *ext, pt_buffer *out);
/* The part lo .. lo + ext - 1 of the pattern of an image of extents
 * whole (`run --backend mpi`: each rank makes its own part). */
int pt_cli_generate_box(pt_type type, int ndim, const int64_t *whole, const int64_t *lo, const int64_t *ext,
	pt_buffer *out);
/* Writes a stage's buffer: .npy holds exact values (undefined points 0);
 * .png maps floats from [0, 1] (ints from their 8/16-bit range, or the
 * values' min..max with normalize) to 8 bits (16 for u16 stages); a
 * 3-D stage keeps PNG channels in dimension channel_dim (0 or 2). */
int pt_cli_save(const char *path, const pt_buffer *b, const uint8_t *defined, int channel_dim,
	bool normalize, char *err, size_t errlen);

#endif
