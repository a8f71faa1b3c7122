/* pt_io.h: reading and writing images (PNG) and arrays (NumPy .npy) as
 * pt_buffers, part of libpolytile_rt.
 *
 * Every function returns PT_OK (0) or a negative pt_error code. On failure
 * it writes a one-line message naming the file into err (errlen bytes,
 * err may be NULL) and leaves *out zeroed for the readers. Writers are
 * atomic: the data goes to a temporary file in path's directory
 * (".pt-XXXXXX", made by mkstemp) that is renamed over path only when
 * everything has been written, so a failed write never destroys an
 * existing file.  A new file's mode is 0666 less the umask; a replaced
 * file keeps its mode. */
#ifndef PT_IO_H
#define PT_IO_H

#include <stddef.h>

#include "pt_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads an 8- or 16-bit PNG of any colour type into a new buffer of type
 * PT_U8 or PT_U16, ndim 3, extents [height, width, channels], channels
 * 1 (gray), 2 (gray+alpha), 3 (RGB) or 4 (RGBA). Palettes become RGB,
 * low bit depths 8 bit, tRNS an alpha channel; 16-bit samples are in
 * native byte order. Free the result with pt_buffer_free. */
int pt_png_read(const char *path, pt_buffer *out, char *err, size_t errlen);

/* Writes img (PT_U8 or PT_U16; ndim 2 [h, w] gray, or ndim 3 [h, w, c]
 * with c = 1..4 as above) as a PNG. Strides are honoured. */
int pt_png_write(const char *path, const pt_buffer *img, char *err,
		size_t errlen);

/* Reads a .npy file (format 1.0, 2.0 or 3.0; C order; dtypes u1 u2 u4
 * i1 i2 i4 i8 f4 f8 and b1 as u8, either byte order) into a new dense
 * buffer of the matching pt_type. A 0-d array gives ndim 0. */
int pt_npy_read(const char *path, pt_buffer *out, char *err, size_t errlen);
/* A .npy file's type, dims and extents (dense strides; data NULL), its
 * header and size checked as pt_npy_read checks them, no data read. */
int pt_npy_read_shape(const char *path, pt_buffer *shape, char *err, size_t errlen);
/* Only the box lo .. lo + ext - 1 of a .npy file's array, into a new
 * dense buffer of extents ext (element 0 the point lo; a 0 extent: no
 * element), read run by run: what one MPI rank needs of a large input
 * (docs/distributed.md). */
int pt_npy_read_box(const char *path, const int64_t *lo, const int64_t *ext, pt_buffer *out, char *err,
		size_t errlen);

/* Writes buf as a C-order little-endian .npy file (format 1.0, or 2.0
 * if the header needs it), honouring its strides. */
int pt_npy_write(const char *path, const pt_buffer *buf, char *err,
		size_t errlen);

/* Writes n bytes of data to path, atomically as above: the temporary
 * file is made with mkstemp (it never follows a planted name or
 * symlink), and a new file gets mode 0666 less the umask. */
int pt_io_write_file(const char *path, const void *data, size_t n, char *err,
		size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
