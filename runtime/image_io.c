/* image_io.c: PNG reading and writing through libpng, and the message
 * helper that the PNG and NPY readers and writers share (out_file.c
 * puts written files in place). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <png.h>

#include "image_io.h"

/* Largest decoded image we accept, in bytes: guards against a tiny file
 * whose header claims a gigantic image. */
#define PT_PNG_MAX_BYTES ((uint64_t)1 << 32)
/* PNG's own limit on width and height. */
#define PT_PNG_MAX_DIM 0x7fffffffu

/* ---- PNG ---- */

/* Everything one PNG read or write owns. It lives in the caller's frame
 * and is only reached through a pointer from the function that calls
 * setjmp, so its fields keep their values across libpng's longjmp. */
struct png_io {
	const char *path;
	FILE *fp;
	png_structp png;
	png_infop info;
	png_bytep *rows;        /* read: one pointer per output row */
	unsigned char *line;    /* write: one packed row */
	int code;               /* error code to return after a longjmp */
	int writing;            /* 1 while encoding */
	char msg[320];          /* what went wrong, without the file name */
};

/* True on a little-endian host (PNG stores 16-bit samples big-endian). */
static int host_is_little_endian(void)
{
	const uint16_t one = 1;
	return *(const unsigned char *)&one == 1;
}

/* Records a failure in io and returns its code. */
static int png_fail(struct png_io *io, int code, const char *what)
{
	io->code = code;
	if (!io->msg[0])
		snprintf(io->msg, sizeof(io->msg), "%s", what);
	return code;
}

/* libpng error callback: keeps the first message and unwinds to the
 * setjmp in png_decode / png_encode. */
static void on_png_error(png_structp png, png_const_charp msg)
{
	struct png_io *io = png_get_error_ptr(png);
	if (!io->msg[0])
		snprintf(io->msg, sizeof(io->msg), "%s (%s)", io->writing
				? "PNG encoder error" : "corrupt PNG", msg);
	png_longjmp(png, 1);
}

/* libpng warning callback: warnings are not errors; stay quiet. */
static void on_png_warning(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg;
}

/* libpng read callback: a short read means the file is truncated. */
static void on_png_read(png_structp png, png_bytep data, size_t n)
{
	struct png_io *io = png_get_io_ptr(png);
	if (fread(data, 1, n, io->fp) == n)
		return;
	if (ferror(io->fp))
		png_fail(io, PT_ERR_IO, "read error");
	else
		png_fail(io, PT_ERR_FORMAT, "truncated PNG (unexpected end "
				"of file)");
	png_error(png, io->msg);
}

/* libpng write callback. */
static void on_png_write(png_structp png, png_bytep data, size_t n)
{
	struct png_io *io = png_get_io_ptr(png);
	if (fwrite(data, 1, n, io->fp) == n)
		return;
	snprintf(io->msg, sizeof(io->msg), "write failed: %s",
			strerror(errno));
	io->code = PT_ERR_IO;
	png_error(png, io->msg);
}

/* libpng flush callback; the final flush happens in pt_io_tmp_commit. */
static void on_png_flush(png_structp png)
{
	(void)png;
}

/* Checks the 8-byte PNG signature before handing the file to libpng. */
static int read_signature(struct png_io *io)
{
	png_byte sig[8];
	size_t n = fread(sig, 1, sizeof(sig), io->fp);
	if (n != sizeof(sig) && ferror(io->fp))
		return png_fail(io, PT_ERR_IO, "read error");
	if (n != sizeof(sig) || png_sig_cmp(sig, 0, sizeof(sig)) != 0)
		return png_fail(io, PT_ERR_FORMAT, "not a PNG file");
	return PT_OK;
}

/* Asks libpng for 8- or 16-bit gray/GA/RGB/RGBA samples in host order. */
static void set_read_transforms(png_structp png, png_infop info)
{
	int ct = png_get_color_type(png, info);
	int bd = png_get_bit_depth(png, info);
	if (ct == PNG_COLOR_TYPE_PALETTE)
		png_set_palette_to_rgb(png);
	if (ct == PNG_COLOR_TYPE_GRAY && bd < 8)
		png_set_expand_gray_1_2_4_to_8(png);
	if (png_get_valid(png, info, PNG_INFO_tRNS))
		png_set_tRNS_to_alpha(png);
	if (bd == 16 && host_is_little_endian())
		png_set_swap(png);
	png_set_interlace_handling(png);
}

/* Allocates the output buffer for the transformed image and points the
 * row pointers into it. */
static int alloc_image(struct png_io *io, pt_buffer *out)
{
	png_uint_32 w = png_get_image_width(io->png, io->info);
	png_uint_32 h = png_get_image_height(io->png, io->info);
	int ch = png_get_channels(io->png, io->info);
	int bd = png_get_bit_depth(io->png, io->info);
	if ((bd != 8 && bd != 16) || ch < 1 || ch > 4)
		return png_fail(io, PT_ERR_FORMAT, "unsupported PNG layout");
	size_t px = (size_t)ch * (size_t)(bd / 8);
	if (w == 0 || h == 0 || (uint64_t)w * h > PT_PNG_MAX_BYTES / px)
		return png_fail(io, PT_ERR_FORMAT, "image size is zero or "
				"too large");
	/* before decoding: a small file may declare a huge image */
	char why[160];
	if (pt_memory_check((double)w * h * px, why, sizeof(why)) != PT_OK) {
		char what[320];
		snprintf(what, sizeof(what), "the image is %lu x %lu with %d channel%s: decoding it %s",
			(unsigned long)h, (unsigned long)w, ch, ch == 1 ? "" : "s", why);
		return png_fail(io, PT_ERR_NOMEM, what);
	}
	size_t row = (size_t)w * px;
	if (png_get_rowbytes(io->png, io->info) != row)
		return png_fail(io, PT_ERR_FORMAT, "unexpected PNG row size");
	int64_t ext[3] = { h, w, ch };
	if (pt_buffer_alloc(out, bd == 16 ? PT_U16 : PT_U8, 3, ext) != PT_OK)
		return png_fail(io, PT_ERR_NOMEM, "out of memory");
	io->rows = malloc((size_t)h * sizeof(*io->rows));
	if (!io->rows)
		return png_fail(io, PT_ERR_NOMEM, "out of memory");
	for (png_uint_32 y = 0; y < h; y++)
		io->rows[y] = (png_bytep)out->data + (size_t)y * row;
	return PT_OK;
}

/* Runs libpng's decoder; every libpng error lands at the setjmp. */
static int png_decode(struct png_io *io, pt_buffer *out)
{
	if (setjmp(png_jmpbuf(io->png)))
		return io->code;
	png_set_read_fn(io->png, io, on_png_read);
	png_set_sig_bytes(io->png, 8);
	png_read_info(io->png, io->info);
	set_read_transforms(io->png, io->info);
	png_read_update_info(io->png, io->info);
	if (alloc_image(io, out) != PT_OK)
		return io->code;
	png_read_image(io->png, io->rows);
	png_read_end(io->png, NULL);
	return PT_OK;
}

/* Name to print for a path that may be NULL. */
static const char *shown(const char *path)
{
	return path ? path : "(null)";
}

int pt_png_read(const char *path, pt_buffer *out, char *err, size_t errlen)
{
	if (out)
		memset(out, 0, sizeof(*out));
	if (!path || !out) {
		pt_io_error(err, errlen, "%s: no file name or output buffer",
				shown(path));
		return PT_ERR_NULL;
	}
	struct png_io io = { .path = path, .code = PT_ERR_FORMAT };
	io.fp = fopen(path, "rb");
	if (!io.fp) {
		pt_io_error(err, errlen, "%s: cannot open: %s", path,
				strerror(errno));
		return PT_ERR_IO;
	}
	int rc = read_signature(&io);
	if (rc == PT_OK) {
		io.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &io,
				on_png_error, on_png_warning);
		io.info = io.png ? png_create_info_struct(io.png) : NULL;
		if (!io.info)
			rc = png_fail(&io, PT_ERR_NOMEM, "out of memory");
	}
	if (rc == PT_OK)
		rc = png_decode(&io, out);
	if (rc != PT_OK) {
		pt_io_error(err, errlen, "%s: %s", path, io.msg);
		pt_buffer_free(out);
	}
	png_destroy_read_struct(&io.png, &io.info, NULL);
	free(io.rows);
	fclose(io.fp);
	return rc;
}

/* Shape of an image to write, taken from a 2-D or 3-D buffer. */
struct img_shape {
	int64_t h, w, c;
	int64_t sy, sx, sc;     /* strides in elements */
	int depth;              /* 8 or 16 */
};

/* Stores the reason for a rejected image and returns its code. */
static int reject(const char **why, const char *reason, int code)
{
	*why = reason;
	return code;
}

/* Checks that img can be written as a PNG and extracts its shape. */
static int check_image(const pt_buffer *img, struct img_shape *s,
		const char **why)
{
	if (!img || !img->data)
		return reject(why, "no image data", PT_ERR_NULL);
	if (img->type != PT_U8 && img->type != PT_U16)
		return reject(why, "PNG holds only u8 or u16 images",
				PT_ERR_TYPE);
	if (img->ndim != 2 && img->ndim != 3)
		return reject(why, "a PNG image must have 2 or 3 dimensions",
				PT_ERR_NDIM);
	s->h = img->extent[0];
	s->w = img->extent[1];
	s->c = img->ndim == 3 ? img->extent[2] : 1;
	s->sy = img->stride[0];
	s->sx = img->stride[1];
	s->sc = img->ndim == 3 ? img->stride[2] : 0;
	s->depth = img->type == PT_U16 ? 16 : 8;
	if (s->c < 1 || s->c > 4)
		return reject(why, "a PNG image must have 1 to 4 channels",
				PT_ERR_EXTENT);
	if (s->h < 1 || s->w < 1 || s->h > PT_PNG_MAX_DIM
			|| s->w > PT_PNG_MAX_DIM
			|| (uint64_t)s->w * (uint64_t)s->c > SIZE_MAX / 2)
		return reject(why, "image width or height is zero or too "
				"large", PT_ERR_EXTENT);
	return PT_OK;
}

/* Copies row y of the image, whatever its strides, into a dense line. */
static void pack_row(const pt_buffer *img, const struct img_shape *s,
		int64_t y, unsigned char *line)
{
	int64_t k = 0;
	for (int64_t x = 0; x < s->w; x++) {
		for (int64_t c = 0; c < s->c; c++, k++) {
			int64_t o = y * s->sy + x * s->sx + c * s->sc;
			if (s->depth == 8)
				line[k] = ((const uint8_t *)img->data)[o];
			else
				((uint16_t *)(void *)line)[k] =
					((const uint16_t *)img->data)[o];
		}
	}
}

/* Runs libpng's encoder; every libpng error lands at the setjmp. */
static int png_encode(struct png_io *io, const pt_buffer *img,
		const struct img_shape *s)
{
	static const int color_types[5] = { 0, PNG_COLOR_TYPE_GRAY,
		PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
		PNG_COLOR_TYPE_RGB_ALPHA };
	if (setjmp(png_jmpbuf(io->png)))
		return io->code;
	png_set_write_fn(io->png, io, on_png_write, on_png_flush);
	png_set_user_limits(io->png, PT_PNG_MAX_DIM, PT_PNG_MAX_DIM);
	png_set_IHDR(io->png, io->info, (png_uint_32)s->w,
			(png_uint_32)s->h, s->depth, color_types[s->c],
			PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
			PNG_FILTER_TYPE_DEFAULT);
	png_write_info(io->png, io->info);
	if (s->depth == 16 && host_is_little_endian())
		png_set_swap(io->png);
	for (int64_t y = 0; y < s->h; y++) {
		pack_row(img, s, y, io->line);
		png_write_row(io->png, io->line);
	}
	png_write_end(io->png, NULL);
	return PT_OK;
}

/* Sets up libpng for writing into io->fp and encodes the image. */
static int png_write_stream(struct png_io *io, const pt_buffer *img,
		const struct img_shape *s)
{
	io->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, io,
			on_png_error, on_png_warning);
	io->info = io->png ? png_create_info_struct(io->png) : NULL;
	io->line = malloc((size_t)s->w * (size_t)s->c * (size_t)(s->depth / 8));
	int rc = PT_OK;
	if (!io->info || !io->line)
		rc = png_fail(io, PT_ERR_NOMEM, "out of memory");
	else
		rc = png_encode(io, img, s);
	png_destroy_write_struct(&io->png, &io->info);
	free(io->line);
	io->line = NULL;
	return rc;
}

int pt_png_write(const char *path, const pt_buffer *img, char *err,
		size_t errlen)
{
	struct img_shape s;
	const char *why = NULL;
	if (!path) {
		pt_io_error(err, errlen, "(null): no file name");
		return PT_ERR_NULL;
	}
	int rc = check_image(img, &s, &why);
	if (rc != PT_OK) {
		if (rc == PT_ERR_TYPE)
			pt_io_error(err, errlen, "%s: cannot write a %s image: "
					"%s", path, pt_type_name(img->type),
					why);
		else
			pt_io_error(err, errlen, "%s: %s", path, why);
		return rc;
	}
	pt_io_tmpfile t;
	rc = pt_io_tmp_open(&t, path, err, errlen);
	if (rc != PT_OK)
		return rc;
	struct png_io io = { .path = path, .fp = t.fp, .code = PT_ERR_IO,
		.writing = 1 };
	rc = png_write_stream(&io, img, &s);
	if (rc != PT_OK) {
		pt_io_error(err, errlen, "%s: %s", path, io.msg);
		pt_io_tmp_abort(&t);
		return rc;
	}
	return pt_io_tmp_commit(&t, err, errlen);
}
