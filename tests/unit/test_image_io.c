/* test_image_io.c: Check suite for the runtime's PNG and NPY file I/O
 * (runtime/image_io.c, runtime/npy_io.c) and pt_buffer_set's conversions.
 *
 * Every test works in its own directory made with mkdtemp under $TMPDIR
 * (or P_tmpdir). The fuzz tests take PT_FUZZ_ITERS (default 200) and
 * PT_FUZZ_SEED from the environment so longer runs are easy. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700       /* P_tmpdir */
#endif

#include <check.h>
#include <dirent.h>
#include <float.h>
#include <math.h>
#include <png.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image_io.h"
#include "pt_runtime.h"

#include "run_suite.h"

static char tmpdir[512];
static char err[512];

/* ---- fixture and small helpers ---- */

/* Makes a fresh directory for the test's files. */
static void setup(void)
{
	const char *base = getenv("TMPDIR");
	if (!base || !*base)
		base = P_tmpdir;
	snprintf(tmpdir, sizeof(tmpdir), "%s/pt_io_XXXXXX", base);
	ck_assert_msg(mkdtemp(tmpdir) != NULL, "mkdtemp under %s failed", base);
	err[0] = '\0';
}

/* Removes the test directory and everything in it (one level deep, plus
 * one subdirectory level for the tests that make one). */
static void remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	char p[1024];
	while ((e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (unlink(p) != 0)
			remove_tree(p);
	}
	closedir(d);
	rmdir(dir);
}

static void teardown(void)
{
	remove_tree(tmpdir);
}

/* Path of a file named name in the test directory. */
static const char *tpath(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", tmpdir, name);
	return buf;
}

/* Reads a whole file into a malloc'd buffer. */
static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *b = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return b;
}

/* Writes len bytes to path. */
static void spit(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	ck_assert_msg(f != NULL, "cannot create %s", path);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

/* Asserts that an error message names the file. */
static void assert_names(const char *msg, const char *path)
{
	ck_assert_msg(strstr(msg, path) != NULL,
			"message \"%s\" does not name %s", msg, path);
	ck_assert_msg(strchr(msg, '\n') == NULL, "message has a newline");
}

/* Number of entries in the test directory (to spot leftover temp files). */
static int dir_entries(void)
{
	DIR *d = opendir(tmpdir);
	ck_assert_ptr_nonnull(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* Asserts that two buffers have the same shape and element values. */
static void assert_same(const pt_buffer *a, const pt_buffer *b)
{
	ck_assert_int_eq(a->ndim, b->ndim);
	ck_assert_int_eq(a->type, b->type);
	for (int i = 0; i < a->ndim; i++)
		ck_assert_int_eq(a->extent[i], b->extent[i]);
	int64_t idx[PT_MAX_DIMS] = { 0 }, n = pt_buffer_count(a);
	for (int64_t k = 0; k < n; k++) {
		double x = pt_buffer_get(a, idx), y = pt_buffer_get(b, idx);
		ck_assert_msg(memcmp(&x, &y, sizeof(x)) == 0 || x == y,
				"element %lld differs: %g vs %g", (long long)k,
				x, y);
		for (int i = a->ndim - 1; i >= 0 && ++idx[i] == a->extent[i]; i--)
			idx[i] = 0;
	}
}

/* Deterministic pseudo-random numbers (xorshift64). */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ---- PNG round trips ---- */

/* Writes an h x w x c image of the given depth filled with a pattern
 * reaching 0 and the maximum, reads it back and compares every value. */
static void png_roundtrip(pt_type t, int64_t h, int64_t w, int64_t c,
		int ndim)
{
	char p[600];
	pt_buffer img, back;
	int64_t ext[3] = { h, w, c };
	ck_assert_int_eq(pt_buffer_alloc(&img, t, ndim, ext), PT_OK);
	double max = t == PT_U8 ? 255 : 65535;
	int64_t n = pt_buffer_count(&img);
	for (int64_t k = 0; k < n; k++) {
		double v = k == 0 ? 0 : k == 1 ? max
			: (double)((k * 7919 + 13) % ((int64_t)max + 1));
		if (t == PT_U8)
			((uint8_t *)img.data)[k] = (uint8_t)v;
		else
			((uint16_t *)img.data)[k] = (uint16_t)v;
	}
	tpath(p, sizeof(p), "img.png");
	ck_assert_int_eq(pt_png_write(p, &img, err, sizeof(err)), PT_OK);
	ck_assert_int_eq(pt_png_read(p, &back, err, sizeof(err)), PT_OK);
	ck_assert_int_eq(back.ndim, 3);
	ck_assert_int_eq(back.extent[2], c);
	if (ndim == 2) {        /* a 2-D gray image reads back as [h, w, 1] */
		img.ndim = 3;
		img.extent[2] = 1;
		img.stride[2] = 1;
	}
	assert_same(&img, &back);
	ck_assert_int_eq(dir_entries(), 1);
	pt_buffer_free(&img);
	pt_buffer_free(&back);
}

START_TEST(test_png_u8_gray)
{
	png_roundtrip(PT_U8, 7, 5, 1, 3);
	png_roundtrip(PT_U8, 3, 11, 1, 2);
}
END_TEST

START_TEST(test_png_u8_rgb)
{
	png_roundtrip(PT_U8, 6, 9, 3, 3);
}
END_TEST

START_TEST(test_png_u8_gray_alpha)
{
	png_roundtrip(PT_U8, 4, 4, 2, 3);
}
END_TEST

START_TEST(test_png_u16_gray)
{
	png_roundtrip(PT_U16, 9, 13, 1, 3);
}
END_TEST

START_TEST(test_png_u16_rgba)
{
	png_roundtrip(PT_U16, 5, 8, 4, 3);
}
END_TEST

/* A view of every other column with the channels reversed (negative
 * channel stride) is written and read back densely. */
START_TEST(test_png_strided)
{
	char p[600];
	pt_buffer big, back;
	int64_t ext[3] = { 4, 10, 3 };
	ck_assert_int_eq(pt_buffer_alloc(&big, PT_U16, 3, ext), PT_OK);
	for (int64_t k = 0; k < 4 * 10 * 3; k++)
		((uint16_t *)big.data)[k] = (uint16_t)(k * 1021);
	pt_buffer view = big;
	view.extent[1] = 5;
	view.stride[1] = 6;
	view.stride[2] = -1;
	view.data = (uint16_t *)big.data + 2;
	tpath(p, sizeof(p), "strided.png");
	ck_assert_int_eq(pt_png_write(p, &view, err, sizeof(err)), PT_OK);
	ck_assert_int_eq(pt_png_read(p, &back, err, sizeof(err)), PT_OK);
	assert_same(&view, &back);
	ck_assert_int_eq(back.stride[0], 15);
	pt_buffer_free(&big);
	pt_buffer_free(&back);
}
END_TEST

/* Writes a PNG with libpng directly, for layouts pt_png_write does not
 * produce: palettes, low bit depths, tRNS and interlacing. */
static void write_raw_png(const char *path, png_uint_32 w, png_uint_32 h,
		int depth, int ctype, int interlace, png_bytep *rows,
		const png_color *pal, int npal, const png_byte *trns, int ntrns,
		const png_color_16 *trns_color)
{
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL,
			NULL, NULL);
	png_infop info = png_create_info_struct(png);
	ck_assert_ptr_nonnull(info);
	if (setjmp(png_jmpbuf(png)))
		ck_abort_msg("libpng failed writing %s", path);
	png_init_io(png, f);
	png_set_IHDR(png, info, w, h, depth, ctype, interlace,
			PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	if (pal)
		png_set_PLTE(png, info, pal, npal);
	if (trns || trns_color)
		png_set_tRNS(png, info, trns, ntrns, trns_color);
	png_set_rows(png, info, rows);
	png_write_png(png, info, PNG_TRANSFORM_IDENTITY, NULL);
	png_destroy_write_struct(&png, &info);
	fclose(f);
}

/* A 2-bit palette image with tRNS reads back as 8-bit RGBA. */
START_TEST(test_png_palette_trns)
{
	char p[600];
	static const png_color pal[4] = { { 0, 0, 0 }, { 255, 0, 0 },
		{ 0, 255, 0 }, { 10, 20, 30 } };
	static const png_byte trns[2] = { 0, 128 };
	png_byte r0[1] = { 0x1b }, r1[1] = { 0xe4 };   /* 0123 / 3210 */
	png_bytep rows[2] = { r0, r1 };
	tpath(p, sizeof(p), "pal.png");
	write_raw_png(p, 4, 2, 2, PNG_COLOR_TYPE_PALETTE, PNG_INTERLACE_NONE,
			rows, pal, 4, trns, 2, NULL);
	pt_buffer b;
	ck_assert_int_eq(pt_png_read(p, &b, err, sizeof(err)), PT_OK);
	ck_assert_int_eq(b.type, PT_U8);
	ck_assert_int_eq(b.extent[0], 2);
	ck_assert_int_eq(b.extent[1], 4);
	ck_assert_int_eq(b.extent[2], 4);
	const uint8_t *d = b.data;
	static const uint8_t want0[16] = { 0, 0, 0, 0, 255, 0, 0, 128,
		0, 255, 0, 255, 10, 20, 30, 255 };
	ck_assert_mem_eq(d, want0, 16);
	ck_assert_mem_eq(d + 16, want0 + 12, 4);
	ck_assert_mem_eq(d + 28, want0, 4);
	pt_buffer_free(&b);
}
END_TEST

/* 1-bit gray expands to 0/255; gray with a tRNS colour gains alpha. */
START_TEST(test_png_low_depth_gray)
{
	char p[600];
	png_byte r0[1] = { 0xa0 };                      /* 1 0 1 0 */
	png_bytep rows[1] = { r0 };
	tpath(p, sizeof(p), "bits.png");
	write_raw_png(p, 4, 1, 1, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
			rows, NULL, 0, NULL, 0, NULL);
	pt_buffer b;
	ck_assert_int_eq(pt_png_read(p, &b, err, sizeof(err)), PT_OK);
	static const uint8_t want[4] = { 255, 0, 255, 0 };
	ck_assert_int_eq(b.extent[2], 1);
	ck_assert_mem_eq(b.data, want, 4);
	pt_buffer_free(&b);

	png_byte g[3] = { 7, 8, 7 };
	png_bytep grow[1] = { g };
	png_color_16 key = { .gray = 7 };
	write_raw_png(p, 3, 1, 8, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
			grow, NULL, 0, NULL, 0, &key);
	ck_assert_int_eq(pt_png_read(p, &b, err, sizeof(err)), PT_OK);
	static const uint8_t want_ga[6] = { 7, 0, 8, 255, 7, 0 };
	ck_assert_int_eq(b.extent[2], 2);
	ck_assert_mem_eq(b.data, want_ga, 6);
	pt_buffer_free(&b);
}
END_TEST

/* An Adam7-interlaced 16-bit RGB image reads back exactly, in host order. */
START_TEST(test_png_interlaced_u16)
{
	enum { W = 11, H = 9 };
	char p[600];
	png_byte raw[H][W * 6];
	png_bytep rows[H];
	for (int y = 0; y < H; y++) {
		rows[y] = raw[y];
		for (int i = 0; i < W * 3; i++) {
			unsigned v = (unsigned)(y * 4099 + i * 257) & 0xffff;
			raw[y][2 * i] = (png_byte)(v >> 8);
			raw[y][2 * i + 1] = (png_byte)v;
		}
	}
	tpath(p, sizeof(p), "adam7.png");
	write_raw_png(p, W, H, 16, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_ADAM7,
			rows, NULL, 0, NULL, 0, NULL);
	pt_buffer b;
	ck_assert_int_eq(pt_png_read(p, &b, err, sizeof(err)), PT_OK);
	ck_assert_int_eq(b.type, PT_U16);
	for (int y = 0; y < H; y++)
		for (int i = 0; i < W * 3; i++)
			ck_assert_uint_eq(((uint16_t *)b.data)[y * W * 3 + i],
					(unsigned)(y * 4099 + i * 257) & 0xffff);
	pt_buffer_free(&b);
}
END_TEST

/* ---- NPY round trips ---- */

/* Fills buffer element k of type t with values covering the type's
 * range: its minimum and maximum, negatives, and fractions for floats. */
static void fill_range(pt_buffer *b, int64_t k, uint64_t *seed)
{
	uint64_t r = rng_next(seed);
	double f = ((double)(r >> 11) / 9007199254740992.0 - 0.5)
		* pow(10, (double)(k % 13) - 4);
	switch (b->type) {
	case PT_U8: ((uint8_t *)b->data)[k] = k == 0 ? 0 : k == 1
		? UINT8_MAX : (uint8_t)r; break;
	case PT_U16: ((uint16_t *)b->data)[k] = k == 0 ? 0 : k == 1
		? UINT16_MAX : (uint16_t)r; break;
	case PT_U32: ((uint32_t *)b->data)[k] = k == 0 ? 0 : k == 1
		? UINT32_MAX : (uint32_t)r; break;
	case PT_I8: ((int8_t *)b->data)[k] = k == 0 ? INT8_MIN : k == 1
		? INT8_MAX : (int8_t)((int)(r % 256) - 128); break;
	case PT_I16: ((int16_t *)b->data)[k] = k == 0 ? INT16_MIN : k == 1
		? INT16_MAX : (int16_t)((int32_t)(r % 65536) - 32768); break;
	case PT_I32: ((int32_t *)b->data)[k] = k == 0 ? INT32_MIN : k == 1
		? INT32_MAX : (int32_t)((int64_t)(r % 4294967296u)
				- 2147483648); break;
	case PT_I64: {
		int64_t v;
		memcpy(&v, &r, sizeof(v));
		((int64_t *)b->data)[k] = k == 0 ? INT64_MIN : k == 1
			? INT64_MAX : v;
		break;
	}
	case PT_F32: ((float *)b->data)[k] = k == 0 ? -FLT_MAX : k == 1
		? FLT_MAX : k == 2 ? FLT_TRUE_MIN : k == 3 ? -0.0f
		: (float)f; break;
	case PT_F64: ((double *)b->data)[k] = k == 0 ? -DBL_MAX : k == 1
		? DBL_MAX : k == 2 ? DBL_TRUE_MIN : k == 3 ? -0.0 : f; break;
	default: break;
	}
}

/* Checks the header numpy expects: magic, version 1.0, the dtype, data
 * starting at a multiple of 64, header ended by '\n'. */
static void check_npy_header(const char *path, const char *descr)
{
	size_t len;
	unsigned char *f = slurp(path, &len);
	ck_assert_mem_eq(f, "\x93NUMPY\x01\x00", 8);
	size_t hlen = f[8] | (size_t)f[9] << 8;
	ck_assert_uint_eq((10 + hlen) % 64, 0);
	ck_assert_int_eq(f[10 + hlen - 1], '\n');
	char want[64];
	snprintf(want, sizeof(want), "{'descr': '%s', ", descr);
	ck_assert_mem_eq(f + 10, want, strlen(want));
	free(f);
}

/* Every pt_type survives a write and read of a 3-D array bit for bit. */
START_TEST(test_npy_roundtrip_types)
{
	static const char *descr[PT_NTYPES] = { "|u1", "<u2", "<u4", "|i1",
		"<i2", "<i4", "<i8", "<f4", "<f8" };
	pt_type t = (pt_type)_i;
	char p[600];
	pt_buffer a, b;
	int64_t ext[3] = { 3, 4, 5 };
	uint64_t seed = 0x9e3779b97f4a7c15u + (uint64_t)t;
	ck_assert_int_eq(pt_buffer_alloc(&a, t, 3, ext), PT_OK);
	for (int64_t k = 0; k < 60; k++)
		fill_range(&a, k, &seed);
	tpath(p, sizeof(p), "a.npy");
	ck_assert_int_eq(pt_npy_write(p, &a, err, sizeof(err)), PT_OK);
	check_npy_header(p, descr[t]);
	ck_assert_int_eq(pt_npy_read(p, &b, err, sizeof(err)), PT_OK);
	ck_assert_int_eq(b.type, t);
	ck_assert_int_eq(b.ndim, 3);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(b.extent[i], ext[i]);
	ck_assert_mem_eq(a.data, b.data, 60 * pt_type_size(t));
	ck_assert_int_eq(dir_entries(), 1);
	pt_buffer_free(&a);
	pt_buffer_free(&b);
}
END_TEST

/* A box of a .npy file read alone (an MPI rank's part), its shape
 * without data, and a box that leaves the array refused. */
START_TEST(test_npy_box)
{
	char p[600];
	pt_buffer a, b, s;
	int64_t ext[3] = { 4, 5, 6 }, lo[3] = { 1, 2, 3 }, bext[3] = { 2, 3, 2 };
	ck_assert_int_eq(pt_buffer_alloc(&a, PT_I16, 3, ext), PT_OK);
	for (int64_t k = 0; k < 120; k++)
		((int16_t *)a.data)[k] = (int16_t)(k * 37 - 1000);
	tpath(p, sizeof(p), "box.npy");
	ck_assert_int_eq(pt_npy_write(p, &a, err, sizeof(err)), PT_OK);
	ck_assert_int_eq(pt_npy_read_shape(p, &s, err, sizeof(err)), PT_OK);
	ck_assert(s.type == PT_I16 && s.ndim == 3 && s.extent[1] == 5 && s.stride[0] == 30 && !s.data);
	ck_assert_int_eq(pt_npy_read_box(p, lo, bext, &b, err, sizeof(err)), PT_OK);
	ck_assert(b.type == PT_I16 && b.extent[0] == 2 && b.extent[1] == 3 && b.extent[2] == 2);
	for (int64_t i = 0; i < 2; i++)
		for (int64_t j = 0; j < 3; j++)
			for (int64_t k = 0; k < 2; k++)
				ck_assert_int_eq(((int16_t *)b.data)[(i * 3 + j) * 2 + k],
					((int16_t *)a.data)[((lo[0] + i) * 5 + lo[1] + j) * 6 + lo[2] + k]);
	pt_buffer_free(&b);
	bext[2] = 4;   /* 3 + 4 > 6 */
	ck_assert_int_eq(pt_npy_read_box(p, lo, bext, &b, err, sizeof(err)), PT_ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(err, "leaves dim 2 of 6"));
	ck_assert_ptr_null(b.data);
	bext[2] = 0;   /* an empty part: no element read */
	ck_assert_int_eq(pt_npy_read_box(p, lo, bext, &b, err, sizeof(err)), PT_OK);
	ck_assert_int_eq(pt_buffer_count(&b), 0);
	pt_buffer_free(&b);
	pt_buffer_free(&a);
}
END_TEST

/* 0-d, 1-d and empty arrays keep their shapes. */
START_TEST(test_npy_shapes)
{
	char p[600];
	pt_buffer a, b;
	tpath(p, sizeof(p), "s.npy");
	ck_assert_int_eq(pt_buffer_alloc(&a, PT_F64, 0, NULL), PT_OK);
	*(double *)a.data = -2.75;
	ck_assert_int_eq(pt_npy_write(p, &a, err, sizeof(err)), PT_OK);
	ck_assert_int_eq(pt_npy_read(p, &b, err, sizeof(err)), PT_OK);
	ck_assert_int_eq(b.ndim, 0);
	ck_assert(*(double *)b.data == -2.75);
	pt_buffer_free(&a);
	pt_buffer_free(&b);

	int64_t e1[1] = { 7 };
	ck_assert_int_eq(pt_buffer_alloc(&a, PT_I16, 1, e1), PT_OK);
	((int16_t *)a.data)[6] = -300;
	ck_assert_int_eq(pt_npy_write(p, &a, err, sizeof(err)), PT_OK);
	ck_assert_int_eq(pt_npy_read(p, &b, err, sizeof(err)), PT_OK);
	assert_same(&a, &b);
	pt_buffer_free(&a);
	pt_buffer_free(&b);

	int64_t e0[3] = { 2, 0, 3 };
	ck_assert_int_eq(pt_buffer_alloc(&a, PT_U32, 3, e0), PT_OK);
	ck_assert_int_eq(pt_npy_write(p, &a, err, sizeof(err)), PT_OK);
	ck_assert_int_eq(pt_npy_read(p, &b, err, sizeof(err)), PT_OK);
	ck_assert_int_eq(b.ndim, 3);
	ck_assert_int_eq(b.extent[1], 0);
	ck_assert_int_eq(pt_buffer_count(&b), 0);
	pt_buffer_free(&a);
	pt_buffer_free(&b);
}
END_TEST

/* A transposed view with a step of two in its last dimension is written
 * in C order of the view and reads back densely. */
START_TEST(test_npy_strided)
{
	char p[600];
	pt_buffer big, back;
	int64_t ext[3] = { 3, 4, 6 };
	ck_assert_int_eq(pt_buffer_alloc(&big, PT_I32, 3, ext), PT_OK);
	for (int k = 0; k < 72; k++)
		((int32_t *)big.data)[k] = k * 1000 - 36000;
	pt_buffer view = big;          /* view[i][j][k] = big[j][i][2k+1] */
	view.extent[0] = 4;
	view.extent[1] = 3;
	view.extent[2] = 3;
	view.stride[0] = 6;
	view.stride[1] = 24;
	view.stride[2] = 2;
	view.data = (int32_t *)big.data + 1;
	tpath(p, sizeof(p), "view.npy");
	ck_assert_int_eq(pt_npy_write(p, &view, err, sizeof(err)), PT_OK);
	ck_assert_int_eq(pt_npy_read(p, &back, err, sizeof(err)), PT_OK);
	assert_same(&view, &back);
	ck_assert_int_eq(back.stride[0], 9);
	ck_assert_int_eq(back.stride[2], 1);
	pt_buffer_free(&big);
	pt_buffer_free(&back);
}
END_TEST

/* Writes a .npy file with the given version, header text (used as is,
 * without padding) and data bytes. */
static void make_npy(const char *path, int major, const char *header,
		const void *data, size_t dlen)
{
	size_t hlen = strlen(header), pre = major == 1 ? 10 : 12;
	unsigned char *f = malloc(pre + hlen + dlen + 1);
	ck_assert_ptr_nonnull(f);
	memcpy(f, "\x93NUMPY", 6);
	f[6] = (unsigned char)major;
	f[7] = 0;
	for (size_t i = 8; i < pre; i++)
		f[i] = (unsigned char)(hlen >> (8 * (i - 8)));
	memcpy(f + pre, header, hlen);
	if (dlen)
		memcpy(f + pre + hlen, data, dlen);
	spit(path, f, pre + hlen + dlen);
	free(f);
}

/* Headers as other writers produce them: double quotes, other key
 * orders, Python 2 longs, versions 2.0 and 3.0, big-endian and native
 * dtypes, bool, and Fortran order on a 1-D array. */
START_TEST(test_npy_read_variants)
{
	char p[600];
	pt_buffer b;
	tpath(p, sizeof(p), "v.npy");
	static const unsigned char be_i4[12] = { 0, 0, 0, 1, 0xff, 0xff, 0xff,
		0xfe, 0x7f, 0xff, 0xff, 0xff };
	make_npy(p, 1, "{\"shape\":(3L,),\"descr\":\">i4\",\"fortran_order\":"
			"False}\n", be_i4, 12);
	ck_assert_int_eq(pt_npy_read(p, &b, err, sizeof(err)), PT_OK);
	ck_assert_int_eq(b.type, PT_I32);
	ck_assert_int_eq(((int32_t *)b.data)[0], 1);
	ck_assert_int_eq(((int32_t *)b.data)[1], -2);
	ck_assert_int_eq(((int32_t *)b.data)[2], INT32_MAX);
	pt_buffer_free(&b);

	static const unsigned char be_f8[8] = { 0xbf, 0xf8, 0, 0, 0, 0, 0, 0 };
	make_npy(p, 2, "{'descr': '>f8', 'fortran_order': True, "
			"'shape': (1, 1), }     \n", be_f8, 8);
	ck_assert_int_eq(pt_npy_read(p, &b, err, sizeof(err)), PT_OK);
	ck_assert_int_eq(b.type, PT_F64);
	ck_assert(*(double *)b.data == -1.5);
	pt_buffer_free(&b);

	static const unsigned char bools[4] = { 1, 0, 0, 1 };
	make_npy(p, 3, "{'descr': '|b1', 'fortran_order': False, "
			"'shape': (2, 2), }\n", bools, 4);
	ck_assert_int_eq(pt_npy_read(p, &b, err, sizeof(err)), PT_OK);
	ck_assert_int_eq(b.type, PT_U8);
	ck_assert_mem_eq(b.data, bools, 4);
	pt_buffer_free(&b);

	make_npy(p, 1, "{'descr':'=i1','fortran_order':True,'shape':(4,)}",
			bools, 4);
	ck_assert_int_eq(pt_npy_read(p, &b, err, sizeof(err)), PT_OK);
	ck_assert_int_eq(b.type, PT_I8);
	pt_buffer_free(&b);

	make_npy(p, 1, "{'descr': 'u1', 'fortran_order': False, "
			"'shape': (0, 1099511627776), }\n", NULL, 0);
	ck_assert_int_eq(pt_npy_read(p, &b, err, sizeof(err)), PT_OK);
	ck_assert_int_eq(pt_buffer_count(&b), 0);
	ck_assert_int_eq(b.extent[1], 1099511627776);
	pt_buffer_free(&b);
}
END_TEST

/* ---- error cases ---- */

/* Reading a file that does not exist is an I/O error naming it. */
START_TEST(test_missing_file)
{
	char p[600];
	pt_buffer b;
	tpath(p, sizeof(p), "absent.png");
	ck_assert_int_eq(pt_png_read(p, &b, err, sizeof(err)), PT_ERR_IO);
	assert_names(err, p);
	ck_assert_ptr_null(b.data);
	tpath(p, sizeof(p), "absent.npy");
	ck_assert_int_eq(pt_npy_read(p, &b, err, sizeof(err)), PT_ERR_IO);
	assert_names(err, p);
	ck_assert_int_eq(pt_npy_read(p, &b, NULL, 0), PT_ERR_IO);
	ck_assert_int_eq(pt_npy_read(NULL, &b, err, sizeof(err)), PT_ERR_NULL);
}
END_TEST

START_TEST(test_not_png)
{
	char p[600];
	pt_buffer b;
	tpath(p, sizeof(p), "x.png");
	spit(p, "hello, this is text\n", 20);
	ck_assert_int_eq(pt_png_read(p, &b, err, sizeof(err)), PT_ERR_FORMAT);
	assert_names(err, p);
	ck_assert_ptr_nonnull(strstr(err, "not a PNG"));
	spit(p, "", 0);
	ck_assert_int_eq(pt_png_read(p, &b, err, sizeof(err)), PT_ERR_FORMAT);
	assert_names(err, p);
}
END_TEST

/* A PNG cut anywhere after its signature is a format error, never a
 * crash; the buffer is left empty. */
START_TEST(test_truncated_png)
{
	char p[600], q[600];
	pt_buffer img, b;
	int64_t ext[3] = { 20, 20, 3 };
	ck_assert_int_eq(pt_buffer_alloc(&img, PT_U8, 3, ext), PT_OK);
	for (int k = 0; k < 1200; k++)
		((uint8_t *)img.data)[k] = (uint8_t)(k * 37);
	tpath(p, sizeof(p), "full.png");
	tpath(q, sizeof(q), "cut.png");
	ck_assert_int_eq(pt_png_write(p, &img, err, sizeof(err)), PT_OK);
	size_t len;
	unsigned char *f = slurp(p, &len);
	for (size_t cut = 8; cut < len; cut += 7) {
		spit(q, f, cut);
		ck_assert_int_eq(pt_png_read(q, &b, err, sizeof(err)),
				PT_ERR_FORMAT);
		assert_names(err, q);
		ck_assert_ptr_null(b.data);
	}
	free(f);
	pt_buffer_free(&img);
}
END_TEST

START_TEST(test_npy_bad_magic)
{
	char p[600];
	pt_buffer b;
	tpath(p, sizeof(p), "bad.npy");
	spit(p, "\x93NUMPZ\x01\x00\x10\x00{}", 12);
	ck_assert_int_eq(pt_npy_read(p, &b, err, sizeof(err)), PT_ERR_FORMAT);
	assert_names(err, p);
	ck_assert_ptr_nonnull(strstr(err, "magic"));
	spit(p, "\x93NU", 3);
	ck_assert_int_eq(pt_npy_read(p, &b, err, sizeof(err)), PT_ERR_FORMAT);
	assert_names(err, p);
}
END_TEST

/* Too little data gives both byte counts; too much is refused too. */
START_TEST(test_npy_truncated)
{
	char p[600];
	pt_buffer b;
	static const unsigned char data[100];
	tpath(p, sizeof(p), "short.npy");
	make_npy(p, 1, "{'descr': '<f8', 'fortran_order': False, "
			"'shape': (3, 4), }\n", data, 50);
	ck_assert_int_eq(pt_npy_read(p, &b, err, sizeof(err)), PT_ERR_FORMAT);
	assert_names(err, p);
	ck_assert_ptr_nonnull(strstr(err, "96"));
	ck_assert_ptr_nonnull(strstr(err, "50"));
	ck_assert_ptr_null(b.data);
	make_npy(p, 1, "{'descr': '<u2', 'fortran_order': False, "
			"'shape': (3,), }\n", data, 7);
	ck_assert_int_eq(pt_npy_read(p, &b, err, sizeof(err)), PT_ERR_FORMAT);
	assert_names(err, p);
}
END_TEST

START_TEST(test_npy_fortran)
{
	char p[600];
	pt_buffer b;
	static const unsigned char data[48];
	tpath(p, sizeof(p), "f.npy");
	make_npy(p, 1, "{'descr': '<f4', 'fortran_order': True, "
			"'shape': (3, 4), }\n", data, 48);
	ck_assert_int_eq(pt_npy_read(p, &b, err, sizeof(err)), PT_ERR_FORMAT);
	assert_names(err, p);
	ck_assert_ptr_nonnull(strstr(err, "Fortran"));
}
END_TEST

START_TEST(test_npy_unsupported_dtype)
{
	char p[600];
	pt_buffer b;
	static const unsigned char data[64];
	tpath(p, sizeof(p), "c.npy");
	make_npy(p, 1, "{'descr': '<c8', 'fortran_order': False, "
			"'shape': (2,), }\n", data, 16);
	ck_assert_int_eq(pt_npy_read(p, &b, err, sizeof(err)), PT_ERR_FORMAT);
	assert_names(err, p);
	ck_assert_ptr_nonnull(strstr(err, "<c8"));
}
END_TEST

/* Malformed headers, one per loop iteration, are all format errors. */
static const char *const bad_headers[] = {
	"",
	"{",
	"{}",
	"[1, 2]",
	"{'descr': '<f4', 'fortran_order': False}",
	"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}",
	"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}",
	"{'descr': '<f4', 'fortran_order': false, 'shape': (2,)}",
	"{'descr': '<f4', 'fortran_order': False, 'shape': (2)}",
	"{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}",
	"{'descr': '<f4', 'fortran_order': False, 'shape': (2,,)}",
	"{'descr': '<f4', 'fortran_order': False, 'shape': (2 3)}",
	"{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1)}",
	"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}",
	"{'descr': '<f4', 'fortran_order': False, 'shape': (1048576, 1048576, 2)}",
	"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x",
	"{'descr': '<f4 , 'fortran_order': False, 'shape': (2,)}",
	"{'descr': '|u2', 'fortran_order': False, 'shape': (2,)}",
	"{'descr': '<u8', 'fortran_order': False, 'shape': (2,)}",
	"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}",
	"{'descr': '<f4' 'fortran_order': False, 'shape': (2,)}",
	"{'descr': '<f4', 'fortran_order': False, 'shape': (2,),,}",
	"{'descr': '<f\\4', 'fortran_order': False, 'shape': (2,)}",
};

START_TEST(test_npy_bad_headers)
{
	char p[600];
	pt_buffer b;
	static const unsigned char data[8];
	tpath(p, sizeof(p), "h.npy");
	make_npy(p, 1, bad_headers[_i], data, 8);
	ck_assert_int_eq(pt_npy_read(p, &b, err, sizeof(err)), PT_ERR_FORMAT);
	assert_names(err, p);
	ck_assert_ptr_null(b.data);
}
END_TEST

/* Odd preambles: unknown version, header length past the 1 MiB cap or
 * past the end of the file, and a NUL inside the header. */
START_TEST(test_npy_bad_preamble)
{
	char p[600];
	pt_buffer b;
	tpath(p, sizeof(p), "pre.npy");
	spit(p, "\x93NUMPY\x04\x00\x02\x00{}", 12);
	ck_assert_int_eq(pt_npy_read(p, &b, err, sizeof(err)), PT_ERR_FORMAT);
	assert_names(err, p);
	spit(p, "\x93NUMPY\x02\x00\x00\x00\x00\x01{}", 14);
	ck_assert_int_eq(pt_npy_read(p, &b, err, sizeof(err)), PT_ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(err, "limit"));
	spit(p, "\x93NUMPY\x01\x00\xff\x00{}", 12);
	ck_assert_int_eq(pt_npy_read(p, &b, err, sizeof(err)), PT_ERR_FORMAT);
	assert_names(err, p);
	spit(p, "\x93NUMPY\x01", 7);
	ck_assert_int_eq(pt_npy_read(p, &b, err, sizeof(err)), PT_ERR_FORMAT);
	spit(p, "\x93NUMPY\x01\x00\x04\x00{\0}\n", 14);
	ck_assert_int_eq(pt_npy_read(p, &b, err, sizeof(err)), PT_ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(err, "NUL"));
}
END_TEST

/* ---- failed writes ---- */

/* A path in a directory that does not exist is an I/O error. */
START_TEST(test_write_missing_dir)
{
	char p[600];
	pt_buffer a;
	int64_t ext[2] = { 2, 2 };
	ck_assert_int_eq(pt_buffer_alloc(&a, PT_U8, 2, ext), PT_OK);
	tpath(p, sizeof(p), "no/such/dir/x.png");
	ck_assert_int_eq(pt_png_write(p, &a, err, sizeof(err)), PT_ERR_IO);
	assert_names(err, p);
	tpath(p, sizeof(p), "no/such/dir/x.npy");
	ck_assert_int_eq(pt_npy_write(p, &a, err, sizeof(err)), PT_ERR_IO);
	assert_names(err, p);
	ck_assert_int_eq(dir_entries(), 0);
	pt_buffer_free(&a);
}
END_TEST

/* Writes a small valid file at path and returns its bytes. */
static unsigned char *existing_file(const char *path, int png, size_t *len)
{
	pt_buffer a;
	int64_t ext[3] = { 3, 3, 3 };
	ck_assert_int_eq(pt_buffer_alloc(&a, PT_U8, 3, ext), PT_OK);
	((uint8_t *)a.data)[4] = 99;
	int rc = png ? pt_png_write(path, &a, err, sizeof(err))
		: pt_npy_write(path, &a, err, sizeof(err));
	ck_assert_int_eq(rc, PT_OK);
	pt_buffer_free(&a);
	return slurp(path, len);
}

/* Asserts path still holds exactly the given bytes. */
static void assert_unchanged(const char *path, const unsigned char *old,
		size_t len)
{
	size_t n;
	unsigned char *now = slurp(path, &n);
	ck_assert_uint_eq(n, len);
	ck_assert_mem_eq(now, old, len);
	free(now);
}

/* Unwritable buffers are refused before anything touches the file. */
START_TEST(test_failed_write_keeps_file)
{
	char p[600], q[600];
	size_t len, qlen;
	unsigned char *old = existing_file(tpath(p, sizeof(p), "keep.png"), 1,
			&len);
	unsigned char *qold = existing_file(tpath(q, sizeof(q), "keep.npy"),
			0, &qlen);
	pt_buffer f;
	int64_t ext[3] = { 2, 2, 3 };
	ck_assert_int_eq(pt_buffer_alloc(&f, PT_F32, 3, ext), PT_OK);
	ck_assert_int_eq(pt_png_write(p, &f, err, sizeof(err)), PT_ERR_TYPE);
	assert_names(err, p);
	f.type = PT_U8;
	f.extent[2] = 5;
	ck_assert_int_eq(pt_png_write(p, &f, err, sizeof(err)), PT_ERR_EXTENT);
	f.ndim = 1;
	ck_assert_int_eq(pt_png_write(p, &f, err, sizeof(err)), PT_ERR_NDIM);
	assert_unchanged(p, old, len);
	f.type = PT_NTYPES;
	ck_assert_int_eq(pt_npy_write(q, &f, err, sizeof(err)), PT_ERR_TYPE);
	assert_names(err, q);
	f.type = PT_F32;
	f.ndim = 3;
	f.extent[1] = -1;
	ck_assert_int_eq(pt_npy_write(q, &f, err, sizeof(err)), PT_ERR_EXTENT);
	assert_unchanged(q, qold, qlen);
	ck_assert_int_eq(dir_entries(), 2);
	pt_buffer_free(&f);
	free(old);
	free(qold);
}
END_TEST

/* A write that fails half way (the file size limit is hit) leaves the old
 * file byte-identical and no temporary file behind. */
START_TEST(test_failed_write_midway)
{
	char p[600], q[600];
	size_t len, qlen;
	unsigned char *old = existing_file(tpath(p, sizeof(p), "big.png"), 1,
			&len);
	unsigned char *qold = existing_file(tpath(q, sizeof(q), "big.npy"), 0,
			&qlen);
	pt_buffer a;
	int64_t ext[3] = { 300, 300, 4 };
	uint64_t seed = 42;
	ck_assert_int_eq(pt_buffer_alloc(&a, PT_U16, 3, ext), PT_OK);
	for (int64_t k = 0; k < 300 * 300 * 4; k++)   /* incompressible */
		((uint16_t *)a.data)[k] = (uint16_t)rng_next(&seed);
	struct rlimit saved, small = { 16384, 0 };
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &saved), 0);
	small.rlim_max = saved.rlim_max;
	void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
	int rp = pt_png_write(p, &a, err, sizeof(err));
	char perr[sizeof(err)];
	memcpy(perr, err, sizeof(err));
	int rq = pt_npy_write(q, &a, err, sizeof(err));
	setrlimit(RLIMIT_FSIZE, &saved);
	signal(SIGXFSZ, old_handler);
	ck_assert_int_eq(rp, PT_ERR_IO);
	assert_names(perr, p);
	ck_assert_int_eq(rq, PT_ERR_IO);
	assert_names(err, q);
	assert_unchanged(p, old, len);
	assert_unchanged(q, qold, qlen);
	ck_assert_int_eq(dir_entries(), 2);
	pt_buffer_free(&a);
	free(old);
	free(qold);
}
END_TEST

/* A successful write replaces an existing file. */
START_TEST(test_write_replaces)
{
	char p[600];
	size_t len;
	unsigned char *old = existing_file(tpath(p, sizeof(p), "r.npy"), 0,
			&len);
	pt_buffer a, b;
	int64_t ext[1] = { 5 };
	ck_assert_int_eq(pt_buffer_alloc(&a, PT_I64, 1, ext), PT_OK);
	((int64_t *)a.data)[4] = -5;
	ck_assert_int_eq(pt_npy_write(p, &a, err, sizeof(err)), PT_OK);
	ck_assert_int_eq(pt_npy_read(p, &b, err, sizeof(err)), PT_OK);
	assert_same(&a, &b);
	ck_assert_int_eq(dir_entries(), 1);
	pt_buffer_free(&a);
	pt_buffer_free(&b);
	free(old);
}
END_TEST

/* ---- pt_buffer_set conversions ---- */

START_TEST(test_buffer_set_saturates)
{
	pt_buffer b;
	int64_t ext[1] = { 1 }, i0[1] = { 0 };
	static const struct { pt_type t; double in, out; } cases[] = {
		{ PT_U8, 300, 255 }, { PT_U8, -5, 0 }, { PT_U8, 2.9, 2 },
		{ PT_U8, -0.9, 0 }, { PT_U8, NAN, 0 }, { PT_U8, 255.99, 255 },
		{ PT_U8, 256, 255 }, { PT_I8, 128, 127 }, { PT_I8, -129, -128 },
		{ PT_U16, 65536, 65535 }, { PT_U32, 4294967296.0, 4294967295.0 },
		{ PT_I32, 2147483648.0, 2147483647.0 },
		{ PT_U16, 1e9, 65535 }, { PT_U16, -INFINITY, 0 },
		{ PT_U32, 5e9, 4294967295.0 }, { PT_U32, -1e9, 0 },
		{ PT_I8, -200, -128 }, { PT_I8, -2.9, -2 }, { PT_I8, 127.5, 127 },
		{ PT_I16, 1e6, 32767 }, { PT_I16, NAN, 0 },
		{ PT_I32, 1e30, 2147483647.0 }, { PT_I32, -1e30, -2147483648.0 },
		{ PT_I32, -7.5, -7 },
		{ PT_I64, INFINITY, 9223372036854775807.0 },
		{ PT_I64, -1e300, -9223372036854775808.0 },
		{ PT_I64, 1e15 + 0.5, 1e15 }, { PT_I64, NAN, 0 },
		{ PT_F32, 1e300, INFINITY }, { PT_F32, -1e300, -INFINITY },
		{ PT_F32, 0.1, (float)0.1 }, { PT_F64, -0.125, -0.125 },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		ck_assert_int_eq(pt_buffer_alloc(&b, cases[k].t, 1, ext), PT_OK);
		pt_buffer_set(&b, i0, cases[k].in);
		double got = pt_buffer_get(&b, i0);
		ck_assert_msg(got == cases[k].out, "case %zu: %s(%g) = %.17g",
				k, pt_type_name(cases[k].t), cases[k].in, got);
		pt_buffer_free(&b);
	}
	ck_assert_int_eq(pt_buffer_alloc(&b, PT_I64, 1, ext), PT_OK);
	pt_buffer_set(&b, i0, 1e300);
	ck_assert(*(int64_t *)b.data == INT64_MAX);
	pt_buffer_set(&b, i0, -9223372036854775808.0);
	ck_assert(*(int64_t *)b.data == INT64_MIN);
	pt_buffer_set(&b, i0, 9223372036854775808.0);
	ck_assert(*(int64_t *)b.data == INT64_MAX);
	pt_buffer_set(&b, i0, 9223372036854774784.0);   /* largest below 2^63 */
	ck_assert(*(int64_t *)b.data == INT64_C(9223372036854774784));
	pt_buffer_free(&b);
}
END_TEST

/* ---- fuzzing ---- */

/* Iterations and seed for the fuzz tests (environment overrides). */
static long fuzz_iters(void)
{
	const char *s = getenv("PT_FUZZ_ITERS");
	return s && atol(s) > 0 ? atol(s) : 200;
}

static uint64_t fuzz_seed(uint64_t salt)
{
	const char *s = getenv("PT_FUZZ_SEED");
	uint64_t seed = s ? strtoull(s, NULL, 0) : 1;
	return (seed + 1) * 0x2545f4914f6cdd1du ^ salt;
}

/* CRC-32 as PNG uses it (reflected polynomial 0xedb88320). */
static uint32_t crc32_png(const unsigned char *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
	}
	return ~c;
}

/* Recomputes every chunk CRC so mutations reach libpng's parsers instead
 * of stopping at a checksum error. */
static void fix_png_crcs(unsigned char *f, size_t len)
{
	size_t pos = 8;
	while (pos + 12 <= len) {
		uint32_t n = (uint32_t)f[pos] << 24 | (uint32_t)f[pos + 1] << 16
			| (uint32_t)f[pos + 2] << 8 | f[pos + 3];
		if (n > len - pos - 12)
			break;
		uint32_t c = crc32_png(f + pos + 4, (size_t)n + 4);
		for (int k = 0; k < 4; k++)
			f[pos + 8 + n + k] = (unsigned char)(c >> (24 - 8 * k));
		pos += 12 + (size_t)n;
	}
}

/* Makes a mutated copy of seed: a few bytes changed, maybe cut short or
 * extended with junk. Returns its length. */
static size_t mutate(const unsigned char *seed, size_t len,
		unsigned char *out, uint64_t *rng)
{
	size_t n = len;
	memcpy(out, seed, len);
	int flips = (int)(rng_next(rng) % 6);
	for (int k = 0; k < flips; k++) {
		uint64_t r = rng_next(rng);
		size_t at = (size_t)(r % len);
		out[at] = (r >> 32) % 4 == 0 ? (unsigned char)(r >> 40)
			: (unsigned char)(out[at] ^ (1u << ((r >> 40) % 8)));
	}
	uint64_t r = rng_next(rng);
	if (r % 4 == 0 || flips == 0)
		n = (size_t)(rng_next(rng) % (len + 1));
	else if (r % 4 == 1)
		for (; n < len + 16; n++)
			out[n] = (unsigned char)rng_next(rng);
	return n;
}

/* Feeds a reader a mutated file; it must return an error or a sane
 * buffer, never crash or leak (ASan checks the latter). */
static void fuzz_one(int (*reader)(const char *, pt_buffer *, char *,
			size_t), const char *path, const unsigned char *f,
		size_t n)
{
	pt_buffer b;
	spit(path, f, n);
	err[0] = '\0';
	int rc = reader(path, &b, err, sizeof(err));
	if (rc == PT_OK) {
		ck_assert_ptr_nonnull(b.data);
		ck_assert((unsigned)b.type < PT_NTYPES);
		ck_assert(b.ndim >= 0 && b.ndim <= PT_MAX_DIMS);
		pt_buffer_free(&b);
		return;
	}
	ck_assert_msg(rc == PT_ERR_FORMAT || rc == PT_ERR_NOMEM,
			"unexpected code %d (%s)", rc, err);
	assert_names(err, path);
	ck_assert_ptr_null(b.data);
}

START_TEST(test_fuzz_npy)
{
	char p[600], f[600];
	pt_buffer a;
	int64_t ext[3] = { 2, 3, 4 };
	ck_assert_int_eq(pt_buffer_alloc(&a, PT_F32, 3, ext), PT_OK);
	tpath(p, sizeof(p), "seed.npy");
	tpath(f, sizeof(f), "fuzz.npy");
	ck_assert_int_eq(pt_npy_write(p, &a, err, sizeof(err)), PT_OK);
	pt_buffer_free(&a);
	size_t len;
	unsigned char *seed = slurp(p, &len), *buf = malloc(len + 16);
	ck_assert_ptr_nonnull(buf);
	uint64_t rng = fuzz_seed(0x6e7079);
	for (long it = 0; it < fuzz_iters(); it++) {
		size_t n = mutate(seed, len, buf, &rng);
		/* aim most flips at the header, where the parser is */
		if (it % 2 && n > 10)
			buf[10 + rng_next(&rng) % (n - 10 < 118 ? n - 10 : 118)]
				= "{}(),:' 0123456789TrueFalse<>|=uifb"[
				rng_next(&rng) % 35];
		fuzz_one(pt_npy_read, f, buf, n);
	}
	free(seed);
	free(buf);
}
END_TEST

START_TEST(test_fuzz_png)
{
	char p[600], f[600];
	static const png_color pal[3] = { { 1, 2, 3 }, { 4, 5, 6 },
		{ 7, 8, 9 } };
	static const png_byte trns[1] = { 77 };
	png_byte raw[6][3];
	png_bytep rows[6];
	for (int y = 0; y < 6; y++) {
		rows[y] = raw[y];
		for (int x = 0; x < 3; x++)
			raw[y][x] = (png_byte)((x + y) % 3 * 0x50);
	}
	tpath(p, sizeof(p), "seed.png");
	tpath(f, sizeof(f), "fuzz.png");
	write_raw_png(p, 12, 6, 2, PNG_COLOR_TYPE_PALETTE, PNG_INTERLACE_ADAM7,
			rows, pal, 3, trns, 1, NULL);
	size_t len;
	unsigned char *seed = slurp(p, &len), *buf = malloc(len + 16);
	ck_assert_ptr_nonnull(buf);
	uint64_t rng = fuzz_seed(0x706e67);
	for (long it = 0; it < fuzz_iters(); it++) {
		size_t n = mutate(seed, len, buf, &rng);
		if (it % 4 != 3)
			fix_png_crcs(buf, n);
		fuzz_one(pt_png_read, f, buf, n);
	}
	free(seed);
	free(buf);
}
END_TEST

/* ---- suite ---- */

static Suite *image_io_suite(void)
{
	Suite *s = suite_create("image_io");
	TCase *png = tcase_create("png");
	tcase_add_checked_fixture(png, setup, teardown);
	tcase_add_test(png, test_png_u8_gray);
	tcase_add_test(png, test_png_u8_rgb);
	tcase_add_test(png, test_png_u8_gray_alpha);
	tcase_add_test(png, test_png_u16_gray);
	tcase_add_test(png, test_png_u16_rgba);
	tcase_add_test(png, test_png_strided);
	tcase_add_test(png, test_png_palette_trns);
	tcase_add_test(png, test_png_low_depth_gray);
	tcase_add_test(png, test_png_interlaced_u16);
	suite_add_tcase(s, png);

	TCase *npy = tcase_create("npy");
	tcase_add_test(npy, test_npy_box);
	tcase_add_checked_fixture(npy, setup, teardown);
	tcase_add_loop_test(npy, test_npy_roundtrip_types, 0, PT_NTYPES);
	tcase_add_test(npy, test_npy_shapes);
	tcase_add_test(npy, test_npy_strided);
	tcase_add_test(npy, test_npy_read_variants);
	suite_add_tcase(s, npy);

	TCase *errs = tcase_create("errors");
	tcase_add_checked_fixture(errs, setup, teardown);
	tcase_add_test(errs, test_missing_file);
	tcase_add_test(errs, test_not_png);
	tcase_add_test(errs, test_truncated_png);
	tcase_add_test(errs, test_npy_bad_magic);
	tcase_add_test(errs, test_npy_truncated);
	tcase_add_test(errs, test_npy_fortran);
	tcase_add_test(errs, test_npy_unsupported_dtype);
	tcase_add_loop_test(errs, test_npy_bad_headers, 0,
			(int)(sizeof(bad_headers) / sizeof(bad_headers[0])));
	tcase_add_test(errs, test_npy_bad_preamble);
	tcase_add_test(errs, test_write_missing_dir);
	tcase_add_test(errs, test_failed_write_keeps_file);
	tcase_add_test(errs, test_failed_write_midway);
	tcase_add_test(errs, test_write_replaces);
	suite_add_tcase(s, errs);

	TCase *conv = tcase_create("convert");
	tcase_add_test(conv, test_buffer_set_saturates);
	suite_add_tcase(s, conv);

	TCase *fuzz = tcase_create("fuzz");
	tcase_add_checked_fixture(fuzz, setup, teardown);
	tcase_set_timeout(fuzz, 60);
	tcase_add_test(fuzz, test_fuzz_npy);
	tcase_add_test(fuzz, test_fuzz_png);
	suite_add_tcase(s, fuzz);
	return s;
}

int main(void)
{
	return pt_test_run_suite(image_io_suite());
}
