/* convert.c: between files (PNG, .npy) and the buffers of a pipeline's
 * images and stages, with the conversions docs/cli.md documents. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "pt_io.h"

bool pt_cli_has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

/* Largest value of an integer element type, as a double. */
static double type_max(pt_type t)
{
	switch (t) {
	case PT_U8: return 255;
	case PT_U16: return 65535;
	case PT_U32: return 4294967295.0;
	case PT_I8: return 127;
	case PT_I16: return 32767;
	case PT_I32: return 2147483647.0;
	default: return 9.2e18;
	}
}

static double type_min(pt_type t)
{
	switch (t) {
	case PT_I8: return -128;
	case PT_I16: return -32768;
	case PT_I32: return -2147483648.0;
	case PT_I64: return -9.2e18;
	default: return 0;
	}
}

static bool is_float(pt_type t) { return t == PT_F32 || t == PT_F64; }

/* The indices of linear element i of a dense row-major buffer. */
static void unravel(const pt_buffer *b, int64_t i, int64_t *idx)
{
	for (int d = b->ndim - 1; d >= 0; d--) {
		int64_t e = b->extent[d] ? b->extent[d] : 1;
		idx[d] = i % e;
		i /= e;
	}
}

/* Stores v into b at linear element index i, converting like a C cast
 * but saturating integers (NaN becomes 0). */
static void store(pt_buffer *b, int64_t i, double v)
{
	if (!is_float(b->type)) {
		if (v != v)
			v = 0;
		v = v < type_min(b->type) ? type_min(b->type) : v > type_max(b->type) ? type_max(b->type) : v;
	}
	int64_t idx[PT_MAX_DIMS];
	unravel(b, i, idx);
	pt_buffer_set(b, idx, v);
}

int pt_cli_load_png(const char *path, pt_type type, int ndim, int channel_dim, int channels,
	pt_buffer *out, char *err, size_t errlen)
{
	pt_buffer png;
	int r = pt_png_read(path, &png, err, errlen);
	if (r)
		return r;
	int64_t h = png.extent[0], w = png.extent[1], ch = png.extent[2];
	int64_t ext[3];
	/* a gray PNG fills every channel of an image that declares several */
	int64_t src_ch = ch;
	if (ndim == 3 && ch == 1 && channels > 1)
		ch = channels;
	if (ndim == 2) {
		if (ch > 2) {
			snprintf(err, errlen, "%s has %lld channels but the image is 2-D; convert it to grayscale",
				path, (long long)ch);
			pt_buffer_free(&png);
			return PT_ERR_FORMAT;
		}
		ext[0] = h;
		ext[1] = w;
	} else if (ndim == 3 && channel_dim == 0) {
		ext[0] = ch;
		ext[1] = h;
		ext[2] = w;
	} else if (ndim == 3 && channel_dim == 2) {
		ext[0] = h;
		ext[1] = w;
		ext[2] = ch;
	} else {
		snprintf(err, errlen, "%s: a PNG fits 2-D images, or 3-D ones whose first or last extent is the channel count; use .npy",
			path);
		pt_buffer_free(&png);
		return PT_ERR_NDIM;
	}
	r = pt_buffer_alloc(out, type, ndim, ext);
	if (r) {
		pt_buffer_free(&png);
		snprintf(err, errlen, "%s: out of memory", path);
		return r;
	}
	double scale = png.type == PT_U16 ? 65535.0 : 255.0;
	for (int64_t y = 0; y < h; y++)
		for (int64_t x = 0; x < w; x++)
			for (int64_t c = 0; c < (ndim == 2 ? 1 : ch); c++) {
				int64_t src[3] = {y, x, src_ch == 1 ? 0 : c};
				double v = pt_buffer_get(&png, src);
				if (is_float(type))
					v /= scale;
				int64_t i = ndim == 2 ? y * w + x : channel_dim == 0 ? (c * h + y) * w + x : (y * w + x) * ch + c;
				store(out, i, v);
			}
	pt_buffer_free(&png);
	return PT_OK;
}

/* raw (taken: freed unless it is out) as type into out. */
static int as_type(const char *path, pt_buffer *raw, pt_type type, pt_buffer *out, char *err, size_t errlen)
{
	if (raw->type == type) {
		*out = *raw;
		return PT_OK;
	}
	int r = pt_buffer_alloc(out, type, raw->ndim, raw->extent);
	if (r) {
		pt_buffer_free(raw);
		snprintf(err, errlen, "%s: out of memory", path);
		return r;
	}
	int64_t n = pt_buffer_count(raw);
	for (int64_t i = 0; i < n; i++) {
		int64_t idx[PT_MAX_DIMS];
		unravel(raw, i, idx);
		store(out, i, pt_buffer_get(raw, idx));
	}
	pt_buffer_free(raw);
	return PT_OK;
}

int pt_cli_load_npy_box(const char *path, pt_type type, const int64_t *lo, const int64_t *ext, pt_buffer *out,
	char *err, size_t errlen)
{
	pt_buffer raw;
	int r = pt_npy_read_box(path, lo, ext, &raw, err, errlen);
	return r ? r : as_type(path, &raw, type, out, err, errlen);
}

int pt_cli_load_npy(const char *path, pt_type type, pt_buffer *out, char *err, size_t errlen)
{
	pt_buffer raw;
	int r = pt_npy_read(path, &raw, err, errlen);
	return r ? r : as_type(path, &raw, type, out, err, errlen);
}

/* A smooth deterministic test pattern in [0, 1): squares of 32 pixels
 * with a soft disc, shifted per channel, so that corners and edges show. */
static double pattern(int64_t y, int64_t x, int64_t c, int64_t h, int64_t w)
{
	int sq = (int)(((y / 32) + (x / 32)) & 1);
	double cy = (double)h / 2, cx = (double)w / 2;
	double r = sqrt((y - cy) * (y - cy) + (x - cx) * (x - cx));
	double rad = (h < w ? h : w) / 3.0;
	double disc = r < rad ? 0.35 : 0.0;
	double v = 0.15 + 0.4 * sq + disc + 0.03 * (double)c;
	return fmod(v, 1.0);
}

int pt_cli_generate(pt_type type, int ndim, const int64_t *ext, pt_buffer *out)
{
	int64_t zero[PT_MAX_DIMS] = {0};
	return pt_cli_generate_box(type, ndim, ext, zero, ext, out);
}

int pt_cli_generate_box(pt_type type, int ndim, const int64_t *whole, const int64_t *lo, const int64_t *ext,
	pt_buffer *out)
{
	int r = pt_buffer_alloc(out, type, ndim, ext);
	if (r)
		return r;
	int64_t n = pt_buffer_count(out);
	int64_t h = ndim >= 2 ? whole[ndim - 2] : 1, w = ndim >= 1 ? whole[ndim - 1] : 1;
	double top = is_float(type) ? 1.0 : type == PT_U16 ? 65535.0 : 255.0;
	for (int64_t i = 0; i < n; i++) {
		/* the point's index in the whole image, row-major */
		int64_t g = 0, k = i, idx[PT_MAX_DIMS];
		for (int d = ndim - 1; d >= 0; d--) {
			idx[d] = lo[d] + k % ext[d];
			k /= ext[d];
		}
		for (int d = 0; d < ndim; d++)
			g = g * whole[d] + idx[d];
		int64_t x = w ? g % w : 0, y = (h && w) ? (g / w) % h : 0, c = (h && w) ? g / (w * h) : 0;
		double v = pattern(y, x, c, h, w) * top;
		store(out, i, is_float(type) ? v : floor(v));
	}
	return PT_OK;
}

/* Range of the defined values, for --normalize. */
static void value_range(const pt_buffer *b, const uint8_t *defined, double *lo, double *hi)
{
	int64_t n = pt_buffer_count(b);
	*lo = INFINITY;
	*hi = -INFINITY;
	for (int64_t i = 0; i < n; i++) {
		if (!defined[i])
			continue;
		int64_t idx[PT_MAX_DIMS];
		unravel(b, i, idx);
		double v = pt_buffer_get(b, idx);
		if (v < *lo)
			*lo = v;
		if (v > *hi)
			*hi = v;
	}
}

int pt_cli_save(const char *path, const pt_buffer *b, const uint8_t *defined, int channel_dim,
	bool normalize, char *err, size_t errlen)
{
	int64_t n = pt_buffer_count(b);
	if (pt_cli_has_suffix(path, ".npy")) {
		/* undefined points are written as 0 */
		pt_buffer o;
		if (pt_buffer_alloc(&o, b->type, b->ndim, b->extent)) {
			snprintf(err, errlen, "%s: out of memory", path);
			return PT_ERR_NOMEM;
		}
		size_t es = pt_type_size(b->type);
		for (int64_t i = 0; i < n; i++)
			if (defined[i])
				memcpy((char *)o.data + i * (int64_t)es, (const char *)b->data + i * (int64_t)es, es);
		int r = pt_npy_write(path, &o, err, errlen);
		pt_buffer_free(&o);
		return r;
	}
	if (!pt_cli_has_suffix(path, ".png")) {
		snprintf(err, errlen, "%s: unknown output format; name it .png or .npy", path);
		return PT_ERR_FORMAT;
	}
	int64_t h, w, ch;
	int layout;     /* 0: [h, w]; 1: [c, h, w]; 2: [h, w, c] */
	if (b->ndim == 1) {
		h = 1, w = b->extent[0], ch = 1, layout = 0;
	} else if (b->ndim == 2) {
		h = b->extent[0], w = b->extent[1], ch = 1, layout = 0;
	} else if (b->ndim == 3 && channel_dim == 0 && b->extent[0] >= 1 && b->extent[0] <= 4) {
		ch = b->extent[0], h = b->extent[1], w = b->extent[2], layout = 1;
	} else if (b->ndim == 3 && channel_dim == 2 && b->extent[2] >= 1 && b->extent[2] <= 4) {
		h = b->extent[0], w = b->extent[1], ch = b->extent[2], layout = 2;
	} else {
		snprintf(err, errlen, "%s: a %d-D output with these extents does not fit a PNG (channels are a first or last dimension with constant bounds and 1 to 4 values); write .npy", path, b->ndim);
		return PT_ERR_NDIM;
	}
	if (h == 0 || w == 0) {
		snprintf(err, errlen, "%s: the output is empty (its domain has no points)", path);
		return PT_ERR_EXTENT;
	}
	pt_type pt = b->type == PT_U16 ? PT_U16 : PT_U8;
	double top = pt == PT_U16 ? 65535.0 : 255.0;
	double lo = 0, hi = is_float(b->type) ? 1.0 : top;
	if (normalize) {
		value_range(b, defined, &lo, &hi);
		if (!(hi > lo)) {
			hi = lo + 1;
		}
	}
	int64_t ext[3] = {h, w, ch};
	pt_buffer img;
	if (pt_buffer_alloc(&img, pt, 3, ext)) {
		snprintf(err, errlen, "%s: out of memory", path);
		return PT_ERR_NOMEM;
	}
	for (int64_t y = 0; y < h; y++)
		for (int64_t x = 0; x < w; x++)
			for (int64_t c = 0; c < ch; c++) {
				int64_t i = layout == 0 ? y * w + x : layout == 1 ? (c * h + y) * w + x : (y * w + x) * ch + c;
				double v = 0;
				if (defined[i]) {
					int64_t idx[PT_MAX_DIMS];
					unravel(b, i, idx);
					v = (pt_buffer_get(b, idx) - lo) / (hi - lo) * top;
					v = v != v ? 0 : v < 0 ? 0 : v > top ? top : floor(v + 0.5);
				}
				int64_t o[3] = {y, x, c};
				pt_buffer_set(&img, o, v);
			}
	int r = pt_png_write(path, &img, err, errlen);
	pt_buffer_free(&img);
	return r;
}
