/* npy_io.c: NumPy .npy files (format 1.0, 2.0 and 3.0).
 *
 * A .npy file is: the magic "\x93NUMPY", a major and a minor version
 * byte, the header length (2 bytes little-endian in 1.0, 4 bytes in 2.0
 * and 3.0), a header that is a Python dict literal such as
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
 * padded with spaces and ended by '\n', then the raw array data. The
 * reader treats every byte as hostile: it is fuzzed. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "image_io.h"

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
/* Longest header we accept (np.load refuses more than 10000 bytes by
 * default). */
#define NPY_MAX_HEADER ((uint32_t)1 << 20)
/* Largest product of the extents (zero extents counted as one): keeps
 * every product of extents, and the byte count, far from overflow. */
#define NPY_MAX_ELEMS ((int64_t)1 << 40)
/* Data starts at a multiple of this, as numpy writes it. */
#define NPY_ALIGN 64

/* Everything the header says about the array. */
struct npy_header {
	pt_type type;
	size_t itemsize;
	int swap;               /* data byte order differs from the host's */
	int fortran;
	int ndim;
	int64_t extent[PT_MAX_DIMS];
};

/* Cursor over the NUL-terminated header text, plus the first error. */
struct parser {
	const char *p;
	char msg[160];
};

/* Keys of the header dict, as bits of a "seen" mask. */
enum { KEY_DESCR = 1, KEY_FORTRAN = 2, KEY_SHAPE = 4 };

/* True on a little-endian host. */
static int host_is_little_endian(void)
{
	const uint16_t one = 1;
	return *(const unsigned char *)&one == 1;
}

/* Records the first parse error; returns -1 so callers can return it. */
static int parse_error(struct parser *ps, const char *what)
{
	if (!ps->msg[0])
		snprintf(ps->msg, sizeof(ps->msg), "malformed header: %s", what);
	return -1;
}

/* Skips the white space Python allows between tokens. */
static void skip_space(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n'
			|| *ps->p == '\r' || *ps->p == '\f' || *ps->p == '\v')
		ps->p++;
}

/* Consumes the character c (after white space) or fails. */
static int expect(struct parser *ps, char c, const char *what)
{
	skip_space(ps);
	if (*ps->p != c)
		return parse_error(ps, what);
	ps->p++;
	return 0;
}

/* Consumes c (after white space) if it is next; returns whether it was. */
static int accept(struct parser *ps, char c)
{
	skip_space(ps);
	if (*ps->p != c)
		return 0;
	ps->p++;
	return 1;
}

/* Reads a quoted string without escapes into buf (cap bytes); a longer
 * string is cut short but still consumed. */
static int parse_string(struct parser *ps, char *buf, size_t cap)
{
	skip_space(ps);
	char q = *ps->p;
	if (q != '\'' && q != '"')
		return parse_error(ps, "expected a quoted string");
	size_t n = 0;
	for (ps->p++; *ps->p != q; ps->p++) {
		unsigned char c = (unsigned char)*ps->p;
		if (c < 0x20 || c >= 0x7f || c == '\\')
			return parse_error(ps, "bad character in a string");
		if (n + 1 < cap)
			buf[n++] = *ps->p;
	}
	ps->p++;
	buf[n] = '\0';
	return 0;
}

/* Reads a non-negative integer (Python 2 headers may add an 'L'),
 * refusing values above NPY_MAX_ELEMS. */
static int parse_extent(struct parser *ps, int64_t *v)
{
	skip_space(ps);
	if (*ps->p < '0' || *ps->p > '9')
		return parse_error(ps, "shape must hold non-negative integers");
	int64_t x = 0;
	for (; *ps->p >= '0' && *ps->p <= '9'; ps->p++) {
		x = x * 10 + (*ps->p - '0');
		if (x > NPY_MAX_ELEMS)
			return parse_error(ps, "array is too large");
	}
	if (*ps->p == 'L' || *ps->p == 'l')
		ps->p++;
	*v = x;
	return 0;
}

/* Reads the shape tuple: (), (n,), (n, m), (n, m,) ... */
static int parse_shape(struct parser *ps, struct npy_header *h)
{
	if (expect(ps, '(', "shape must be a tuple") != 0)
		return -1;
	int trailing_comma = 0;
	h->ndim = 0;
	while (!accept(ps, ')')) {
		if (h->ndim == PT_MAX_DIMS)
			return parse_error(ps, "more than 8 dimensions");
		if (parse_extent(ps, &h->extent[h->ndim]) != 0)
			return -1;
		h->ndim++;
		trailing_comma = accept(ps, ',');
		if (!trailing_comma && *ps->p != ')')
			return parse_error(ps, "expected ',' or ')' in shape");
	}
	if (h->ndim == 1 && !trailing_comma)
		return parse_error(ps, "shape must be a tuple");
	return 0;
}

/* Reads the Python literal True or False. */
static int parse_bool(struct parser *ps, int *v)
{
	skip_space(ps);
	if (strncmp(ps->p, "True", 4) == 0) {
		*v = 1;
		ps->p += 4;
	} else if (strncmp(ps->p, "False", 5) == 0) {
		*v = 0;
		ps->p += 5;
	} else {
		return parse_error(ps, "fortran_order must be True or False");
	}
	return 0;
}

/* Maps a dtype string like '<f4' to a pt_type and a byte-swap flag. */
static int decode_descr(const char *d, struct npy_header *h)
{
	static const struct { const char *code; pt_type type; } codes[] = {
		{ "u1", PT_U8 }, { "b1", PT_U8 }, { "u2", PT_U16 },
		{ "u4", PT_U32 }, { "i1", PT_I8 }, { "i2", PT_I16 },
		{ "i4", PT_I32 }, { "i8", PT_I64 }, { "f4", PT_F32 },
		{ "f8", PT_F64 },
	};
	char order = '=';
	if (*d == '<' || *d == '>' || *d == '=' || *d == '|')
		order = *d++;
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		if (strcmp(d, codes[i].code) != 0)
			continue;
		h->type = codes[i].type;
		h->itemsize = pt_type_size(h->type);
		if (order == '|' && h->itemsize != 1)
			return -1;
		int little = order == '<'
			|| (order == '=' && host_is_little_endian());
		h->swap = h->itemsize > 1 && order != '|'
			&& little != host_is_little_endian();
		return 0;
	}
	return -1;
}

/* Reads the value of 'descr' and checks that the dtype is supported. */
static int parse_descr(struct parser *ps, struct npy_header *h)
{
	char d[32];
	skip_space(ps);
	if (*ps->p == '[')
		return parse_error(ps, "structured dtypes are not supported");
	if (parse_string(ps, d, sizeof(d)) != 0)
		return -1;
	if (decode_descr(d, h) == 0)
		return 0;
	snprintf(ps->msg, sizeof(ps->msg), "unsupported dtype '%s' (supported:"
			" u1 u2 u4 i1 i2 i4 i8 f4 f8 b1)", d);
	return -1;
}

/* Reads one "key: value" entry and records which key it was. */
static int parse_item(struct parser *ps, struct npy_header *h, int *seen)
{
	char key[32];
	int bit;
	if (parse_string(ps, key, sizeof(key)) != 0
			|| expect(ps, ':', "expected ':' after a key") != 0)
		return -1;
	if (strcmp(key, "descr") == 0)
		bit = KEY_DESCR;
	else if (strcmp(key, "fortran_order") == 0)
		bit = KEY_FORTRAN;
	else if (strcmp(key, "shape") == 0)
		bit = KEY_SHAPE;
	else
		return parse_error(ps, "unexpected key");
	if (*seen & bit)
		return parse_error(ps, "duplicate key");
	*seen |= bit;
	if (bit == KEY_DESCR)
		return parse_descr(ps, h);
	if (bit == KEY_FORTRAN)
		return parse_bool(ps, &h->fortran);
	return parse_shape(ps, h);
}

/* Parses the whole header dict; only white space may follow it. */
static int parse_header(struct parser *ps, struct npy_header *h)
{
	int seen = 0;
	if (expect(ps, '{', "expected '{'") != 0)
		return -1;
	while (!accept(ps, '}')) {
		if (parse_item(ps, h, &seen) != 0)
			return -1;
		if (!accept(ps, ',') && *ps->p != '}')
			return parse_error(ps, "expected ',' or '}'");
	}
	skip_space(ps);
	if (*ps->p != '\0')
		return parse_error(ps, "unexpected text after the dict");
	if (seen != (KEY_DESCR | KEY_FORTRAN | KEY_SHAPE))
		return parse_error(ps, "'descr', 'fortran_order' or 'shape' "
				"is missing");
	return 0;
}

/* Number of elements, or -1 if the product of the extents (zero extents
 * counted as one, so that every sub-product is bounded too) exceeds
 * NPY_MAX_ELEMS. */
static int64_t element_count(const struct npy_header *h)
{
	int64_t n = 1, bound = 1;
	for (int i = 0; i < h->ndim; i++) {
		int64_t e = h->extent[i];
		if (e > 1) {
			if (bound > NPY_MAX_ELEMS / e)
				return -1;
			bound *= e;
		}
		n *= e;
	}
	return n;
}

/* State of one read: the file and the message for the caller. */
struct npy_reader {
	const char *path;
	FILE *fp;
	char *err;
	size_t errlen;
};

/* Reads exactly n bytes; a short read is reported as a truncation. */
static int read_exact(struct npy_reader *r, void *buf, size_t n,
		const char *part)
{
	size_t got = fread(buf, 1, n, r->fp);
	if (got == n)
		return PT_OK;
	if (ferror(r->fp)) {
		pt_io_error(r->err, r->errlen, "%s: read error: %s", r->path,
				strerror(errno));
		return PT_ERR_IO;
	}
	pt_io_error(r->err, r->errlen, "%s: truncated %s: expected %zu bytes,"
			" file has %zu", r->path, part, n, got);
	return PT_ERR_FORMAT;
}

/* Reads and checks the magic, the version and the header length. */
static int read_preamble(struct npy_reader *r, uint32_t *hlen)
{
	unsigned char pre[NPY_MAGIC_LEN + 2], len[4] = { 0 };
	size_t got = fread(pre, 1, sizeof(pre), r->fp);
	if (got < NPY_MAGIC_LEN || memcmp(pre, NPY_MAGIC, NPY_MAGIC_LEN) != 0) {
		pt_io_error(r->err, r->errlen, "%s: not a .npy file (bad magic)",
				r->path);
		return PT_ERR_FORMAT;
	}
	if (got < sizeof(pre)) {
		pt_io_error(r->err, r->errlen, "%s: truncated header: the file"
				" ends after %zu bytes", r->path, got);
		return PT_ERR_FORMAT;
	}
	int major = pre[NPY_MAGIC_LEN], minor = pre[NPY_MAGIC_LEN + 1];
	if (major < 1 || major > 3 || minor != 0) {
		pt_io_error(r->err, r->errlen, "%s: unsupported .npy format "
				"version %d.%d", r->path, major, minor);
		return PT_ERR_FORMAT;
	}
	int rc = read_exact(r, len, major == 1 ? 2 : 4, "header");
	if (rc != PT_OK)
		return rc;
	*hlen = len[0] | (uint32_t)len[1] << 8 | (uint32_t)len[2] << 16
		| (uint32_t)len[3] << 24;
	if (*hlen > NPY_MAX_HEADER) {
		pt_io_error(r->err, r->errlen, "%s: header length %u exceeds "
				"the limit of %u bytes", r->path,
				(unsigned)*hlen, (unsigned)NPY_MAX_HEADER);
		return PT_ERR_FORMAT;
	}
	return PT_OK;
}

/* Reads and parses the header text that follows the preamble. */
static int read_header(struct npy_reader *r, struct npy_header *h)
{
	uint32_t hlen = 0;
	int rc = read_preamble(r, &hlen);
	if (rc != PT_OK)
		return rc;
	char *text = malloc((size_t)hlen + 1);
	if (!text) {
		pt_io_error(r->err, r->errlen, "%s: out of memory", r->path);
		return PT_ERR_NOMEM;
	}
	rc = read_exact(r, text, hlen, "header");
	if (rc == PT_OK) {
		text[hlen] = '\0';
		struct parser ps = { .p = text, .msg = "" };
		int bad = strlen(text) != hlen
			? parse_error(&ps, "NUL byte in header")
			: parse_header(&ps, h);
		if (bad) {
			pt_io_error(r->err, r->errlen, "%s: %s", r->path,
					ps.msg);
			rc = PT_ERR_FORMAT;
		}
	}
	free(text);
	return rc;
}

/* Fortran order is the same as C order when at most one extent
 * exceeds 1; otherwise it is refused. */
static int check_order(struct npy_reader *r, const struct npy_header *h)
{
	int big = 0;
	for (int i = 0; i < h->ndim; i++)
		big += h->extent[i] > 1;
	if (!h->fortran || big <= 1)
		return PT_OK;
	pt_io_error(r->err, r->errlen, "%s: Fortran-order arrays are not "
			"supported; save with np.ascontiguousarray", r->path);
	return PT_ERR_FORMAT;
}

/* Compares the data size with what the file holds, before allocating
 * anything (only possible for regular files). */
static int check_size(struct npy_reader *r, uint64_t bytes)
{
	struct stat st;
	if (fstat(fileno(r->fp), &st) != 0 || !S_ISREG(st.st_mode))
		return PT_OK;
	long pos = ftell(r->fp);
	if (pos < 0)
		return PT_OK;
	uint64_t have = (uint64_t)st.st_size > (uint64_t)pos
		? (uint64_t)st.st_size - (uint64_t)pos : 0;
	if (have == bytes)
		return PT_OK;
	pt_io_error(r->err, r->errlen, "%s: %s data: expected %llu bytes, "
			"file has %llu", r->path, have < bytes ? "truncated"
			: "unexpected extra", (unsigned long long)bytes,
			(unsigned long long)have);
	return PT_ERR_FORMAT;
}

/* Allocates a dense buffer for the array. An empty array gets a single
 * element of storage, not the product of its nonzero extents as
 * pt_buffer_alloc would give, so (0, 2^40) cannot exhaust memory; its
 * strides are the ones pt_buffer_alloc computes. */
static int alloc_array(pt_buffer *out, const struct npy_header *h,
		int64_t count)
{
	if (count > 0)
		return pt_buffer_alloc(out, h->type, h->ndim, h->extent);
	int64_t ones[PT_MAX_DIMS] = { 0 };
	for (int i = 0; i < h->ndim; i++)
		ones[i] = 1;
	int rc = pt_buffer_alloc(out, h->type, h->ndim, ones);
	int64_t s = 1;
	for (int i = h->ndim - 1; i >= 0; i--) {
		out->extent[i] = h->extent[i];
		out->stride[i] = s;
		s *= h->extent[i] > 1 ? h->extent[i] : 1;
	}
	return rc;
}

/* Reverses the bytes of each of n items of the given size. */
static void swap_items(unsigned char *p, int64_t n, size_t size)
{
	for (int64_t k = 0; k < n; k++, p += size)
		for (size_t i = 0; i < size / 2; i++) {
			unsigned char t = p[i];
			p[i] = p[size - 1 - i];
			p[size - 1 - i] = t;
		}
}

/* Makes sure nothing follows the data (for files check_size could not
 * measure, such as pipes). */
static int check_end(struct npy_reader *r)
{
	if (fgetc(r->fp) == EOF)
		return PT_OK;
	pt_io_error(r->err, r->errlen, "%s: unexpected extra data after the "
			"array", r->path);
	return PT_ERR_FORMAT;
}

/* Reads the array data that follows the header into out. */
static int read_data(struct npy_reader *r, const struct npy_header *h,
		pt_buffer *out)
{
	int64_t count = element_count(h);
	uint64_t bytes = (uint64_t)count * h->itemsize;
	if (count < 0 || bytes > SIZE_MAX) {
		pt_io_error(r->err, r->errlen, "%s: array is too large",
				r->path);
		return PT_ERR_FORMAT;
	}
	int rc = check_size(r, bytes);
	if (rc != PT_OK)
		return rc;
	char why[160];
	if (pt_memory_check((double)bytes, why, sizeof(why)) != PT_OK) {
		pt_io_error(r->err, r->errlen, "%s: the array of %llu bytes %s", r->path,
			(unsigned long long)bytes, why);
		return PT_ERR_NOMEM;
	}
	if (alloc_array(out, h, count) != PT_OK) {
		pt_io_error(r->err, r->errlen, "%s: out of memory for %llu "
				"bytes", r->path, (unsigned long long)bytes);
		return PT_ERR_NOMEM;
	}
	rc = read_exact(r, out->data, (size_t)bytes, "data");
	if (rc == PT_OK)
		rc = check_end(r);
	if (rc == PT_OK && h->swap)
		swap_items(out->data, count, h->itemsize);
	return rc;
}

/* Opens path and reads its header (C order checked) into h; r->fp
 * open after it on PT_OK, closed otherwise. */
static int open_npy(struct npy_reader *r, const char *path, pt_buffer *out, struct npy_header *h, char *err,
		size_t errlen)
{
	if (out)
		memset(out, 0, sizeof(*out));
	if (!path || !out) {
		pt_io_error(err, errlen, "%s: no file name or output buffer",
				path ? path : "(null)");
		return PT_ERR_NULL;
	}
	*r = (struct npy_reader){ .path = path, .err = err, .errlen = errlen };
	r->fp = fopen(path, "rb");
	if (!r->fp) {
		pt_io_error(err, errlen, "%s: cannot open: %s", path,
				strerror(errno));
		return PT_ERR_IO;
	}
	*h = (struct npy_header){ .type = PT_U8 };
	int rc = read_header(r, h);
	if (rc == PT_OK)
		rc = check_order(r, h);
	if (rc != PT_OK)
		fclose(r->fp);
	return rc;
}

int pt_npy_read(const char *path, pt_buffer *out, char *err, size_t errlen)
{
	struct npy_reader r;
	struct npy_header h;
	int rc = open_npy(&r, path, out, &h, err, errlen);
	if (rc != PT_OK)
		return rc;
	rc = read_data(&r, &h, out);
	if (rc != PT_OK)
		pt_buffer_free(out);
	fclose(r.fp);
	return rc;
}

/* The size check of the whole data (a regular file's), and the data's
 * offset into *at. */
static int whole_checked(struct npy_reader *r, const struct npy_header *h, int64_t *at)
{
	int64_t count = element_count(h);
	if (count < 0) {
		pt_io_error(r->err, r->errlen, "%s: array is too large", r->path);
		return PT_ERR_FORMAT;
	}
	long pos = ftell(r->fp);
	*at = pos;
	return pos < 0 ? PT_ERR_IO : check_size(r, (uint64_t)count * h->itemsize);
}

int pt_npy_read_shape(const char *path, pt_buffer *shape, char *err, size_t errlen)
{
	struct npy_reader r;
	struct npy_header h;
	int64_t at;
	int rc = open_npy(&r, path, shape, &h, err, errlen);
	if (rc != PT_OK)
		return rc;
	rc = whole_checked(&r, &h, &at);
	fclose(r.fp);
	if (rc != PT_OK)
		return rc;
	shape->type = h.type;
	shape->ndim = h.ndim;
	int64_t s = 1;
	for (int d = h.ndim - 1; d >= 0; d--) {
		shape->extent[d] = h.extent[d];
		shape->stride[d] = s;
		s *= h.extent[d] > 1 ? h.extent[d] : 1;
	}
	return PT_OK;
}

/* Reads the box into out, one run of the innermost dim at a time. */
static int read_runs(struct npy_reader *r, const struct npy_header *h, int64_t at, const int64_t *lo,
		const int64_t *ext, pt_buffer *out)
{
	int n = h->ndim;
	int64_t x[PT_MAX_DIMS] = { 0 }, count = pt_buffer_count(out);
	size_t run = n ? (size_t)ext[n - 1] * h->itemsize : h->itemsize;
	char *dst = out->data;
	for (int64_t done = 0; done < count; done += n ? ext[n - 1] : 1) {
		int64_t off = 0;   /* the run's first element in the file */
		for (int d = 0; d < n; d++)
			off = off * h->extent[d] + lo[d] + (d < n - 1 ? x[d] : 0);
		if (fseeko(r->fp, (off_t)(at + off * (int64_t)h->itemsize), SEEK_SET) != 0) {
			pt_io_error(r->err, r->errlen, "%s: seek: %s", r->path, strerror(errno));
			return PT_ERR_IO;
		}
		int rc = read_exact(r, dst, run, "data");
		if (rc != PT_OK)
			return rc;
		dst += run;
		for (int d = n - 2; d >= 0 && ++x[d] == ext[d]; d--)
			x[d] = 0;
	}
	if (h->swap)
		swap_items(out->data, count, h->itemsize);
	return PT_OK;
}

int pt_npy_read_box(const char *path, const int64_t *lo, const int64_t *ext, pt_buffer *out, char *err,
		size_t errlen)
{
	struct npy_reader r;
	struct npy_header h;
	int64_t at;
	int rc = open_npy(&r, path, out, &h, err, errlen);
	if (rc == PT_OK && (rc = whole_checked(&r, &h, &at)) == PT_OK) {
		bool empty = false;
		for (int d = 0; d < h.ndim; d++) {
			empty |= ext[d] == 0;
			if (ext[d] < 0 || lo[d] < 0 || (ext[d] > 0 && lo[d] + ext[d] > h.extent[d])) {
				pt_io_error(err, errlen, "%s: the box from %lld, %lld long, leaves dim %d of %lld", path,
					(long long)lo[d], (long long)ext[d], d, (long long)h.extent[d]);
				rc = PT_ERR_FORMAT;
				break;
			}
		}
		if (rc == PT_OK && pt_buffer_alloc(out, h.type, h.ndim, ext) != PT_OK) {
			pt_io_error(err, errlen, "%s: out of memory for its part", path);
			rc = PT_ERR_NOMEM;
		}
		if (rc == PT_OK && !empty)
			rc = read_runs(&r, &h, at, lo, ext, out);
		fclose(r.fp);
	}
	if (rc != PT_OK)
		pt_buffer_free(out);
	return rc;
}

/* ---- writing ---- */

/* Little-endian dtype strings, in pt_type order. */
static const char *const npy_descr[PT_NTYPES] = {
	"|u1", "<u2", "<u4", "|i1", "<i2", "<i4", "<i8", "<f4", "<f8"
};

/* Checks that buf can be written; sets *why on failure. */
static int check_array(const pt_buffer *buf, const char **why)
{
	if (!buf) {
		*why = "no buffer";
		return PT_ERR_NULL;
	}
	if ((unsigned)buf->type >= PT_NTYPES) {
		*why = "unknown element type";
		return PT_ERR_TYPE;
	}
	if (buf->ndim < 0 || buf->ndim > PT_MAX_DIMS) {
		*why = "bad number of dimensions";
		return PT_ERR_NDIM;
	}
	int64_t bound = 1, count = 1;
	for (int i = 0; i < buf->ndim; i++) {
		int64_t e = buf->extent[i];
		if (e < 0 || (e > 1 && bound > NPY_MAX_ELEMS / e)) {
			*why = "an extent is negative or the array too large";
			return PT_ERR_EXTENT;
		}
		bound *= e > 1 ? e : 1;
		count *= e;
	}
	if (!buf->data && count > 0) {
		*why = "no buffer data";
		return PT_ERR_NULL;
	}
	return PT_OK;
}

/* Builds the complete preamble and header: magic, version, length and
 * the dict padded with spaces and '\n' so the data starts at a multiple
 * of NPY_ALIGN. Returns its length. */
static size_t build_header(const pt_buffer *buf, char *out, size_t cap)
{
	char dict[512];
	int n = snprintf(dict, sizeof(dict), "{'descr': '%s', 'fortran_order'"
			": False, 'shape': (", npy_descr[buf->type]);
	for (int i = 0; i < buf->ndim; i++)
		n += snprintf(dict + n, sizeof(dict) - (size_t)n, "%s%lld",
				i ? ", " : "", (long long)buf->extent[i]);
	n += snprintf(dict + n, sizeof(dict) - (size_t)n, "%s), }",
			buf->ndim == 1 ? "," : "");
	if (n < 0 || (size_t)n >= sizeof(dict))
		return 0;                     /* cannot happen: 8 dims fit */
	size_t pre = NPY_MAGIC_LEN + 4;       /* version 1.0: 2-byte length */
	size_t total = (pre + (size_t)n + 1 + NPY_ALIGN - 1) / NPY_ALIGN
		* NPY_ALIGN;
	if (total - pre > 0xffff) {           /* version 2.0: 4-byte length */
		pre += 2;
		total = (pre + (size_t)n + 1 + NPY_ALIGN - 1) / NPY_ALIGN
			* NPY_ALIGN;
	}
	if (total > cap)
		return 0;
	uint32_t hlen = (uint32_t)(total - pre);
	memcpy(out, NPY_MAGIC, NPY_MAGIC_LEN);
	out[6] = pre == 10 ? 1 : 2;
	out[7] = 0;
	for (size_t i = 8; i < pre; i++)
		out[i] = (char)(hlen >> (8 * (i - 8)) & 0xff);
	memcpy(out + pre, dict, (size_t)n);
	memset(out + pre + n, ' ', total - pre - (size_t)n - 1);
	out[total - 1] = '\n';
	return total;
}

/* Buffered output of elements in C order and little-endian form. */
struct npy_writer {
	FILE *fp;
	unsigned char *chunk;
	size_t used, cap, size;
	int swap;
};

/* Writes out what has been collected in the chunk. */
static int flush_chunk(struct npy_writer *w)
{
	size_t n = w->used;
	w->used = 0;
	return fwrite(w->chunk, 1, n, w->fp) == n ? 0 : -1;
}

/* Appends one element, converted to little-endian. */
static int put_item(struct npy_writer *w, const unsigned char *src)
{
	unsigned char *dst = w->chunk + w->used;
	for (size_t i = 0; i < w->size; i++)
		dst[i] = src[w->swap ? w->size - 1 - i : i];
	w->used += w->size;
	return w->used + w->size > w->cap ? flush_chunk(w) : 0;
}

/* Steps idx to the next position in C order over all dimensions but the
 * last; returns 0 when it wraps around. */
static int next_row(const pt_buffer *b, int64_t *idx)
{
	for (int i = b->ndim - 2; i >= 0; i--) {
		if (++idx[i] < b->extent[i])
			return 1;
		idx[i] = 0;
	}
	return 0;
}

/* Writes every element of buf in C order, whatever its strides. */
static int write_elements(struct npy_writer *w, const pt_buffer *b)
{
	const unsigned char *base = b->data;
	int64_t idx[PT_MAX_DIMS] = { 0 };
	if (pt_buffer_count(b) == 0)
		return 0;
	if (b->ndim == 0)
		return put_item(w, base);
	int last = b->ndim - 1;
	do {
		int64_t off = 0;
		for (int i = 0; i < last; i++)
			off += idx[i] * b->stride[i];
		for (int64_t x = 0; x < b->extent[last]; x++) {
			int64_t o = off + x * b->stride[last];
			if (put_item(w, base + o * (int64_t)w->size) != 0)
				return -1;
		}
	} while (next_row(b, idx));
	return 0;
}

/* Writes header and data into the temporary file's stream. */
static int write_stream(FILE *fp, const pt_buffer *buf)
{
	char hdr[1024];
	size_t n = build_header(buf, hdr, sizeof(hdr));
	if (n == 0 || fwrite(hdr, 1, n, fp) != n)
		return -1;
	struct npy_writer w = { .fp = fp, .cap = 1 << 16,
		.size = pt_type_size(buf->type),
		.swap = !host_is_little_endian() };
	w.chunk = malloc(w.cap);
	if (!w.chunk)
		return -1;
	int rc = write_elements(&w, buf);
	if (rc == 0)
		rc = flush_chunk(&w);
	free(w.chunk);
	return rc;
}

int pt_npy_write(const char *path, const pt_buffer *buf, char *err,
		size_t errlen)
{
	const char *why = NULL;
	if (!path) {
		pt_io_error(err, errlen, "(null): no file name");
		return PT_ERR_NULL;
	}
	int rc = check_array(buf, &why);
	if (rc != PT_OK) {
		pt_io_error(err, errlen, "%s: cannot write: %s", path, why);
		return rc;
	}
	pt_io_tmpfile t;
	rc = pt_io_tmp_open(&t, path, err, errlen);
	if (rc != PT_OK)
		return rc;
	errno = 0;
	if (write_stream(t.fp, buf) != 0) {
		pt_io_error(err, errlen, "%s: write failed: %s", path,
				errno ? strerror(errno) : "out of memory");
		pt_io_tmp_abort(&t);
		return PT_ERR_IO;
	}
	return pt_io_tmp_commit(&t, err, errlen);
}
