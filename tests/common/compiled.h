/* compiled.h: runs a pipeline with the interpreter and compiled, and
 * asserts that every output agrees at every point the interpreter
 * defines.  The tolerance is zero: integers and floats must be identical
 * (infinities and NaN included), because the compiled code does the same
 * f32/f64 operations in the same order (no contraction, no reassociation:
 * only loops without a carried dependence are forced to vectorize) and
 * calls the same libm.  FLOAT_TOL is the relative slack allowed where a
 * test asks for reassociation (a test defines it before including). */
#ifndef PT_TEST_COMPILED_H
#define PT_TEST_COMPILED_H

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polytile.h"
#include "ir.h"

#ifndef FLOAT_TOL
#define FLOAT_TOL 0.0
#endif
#define MAX_IO 48

/* The index of element k of a dense row-major buffer. */
static void unravel(const pt_buffer *b, int64_t k, int64_t *idx)
{
	for (int d = b->ndim - 1; d >= 0; d--) {
		idx[d] = k % b->extent[d];
		k /= b->extent[d];
	}
}

/* Deterministic pseudo-random contents: floats in [0, 1), integers over
 * their type's range (or 0..1023 for u16/i16/u32/i32/i64, like raw
 * sensor data). */
static void fill_buffer(pt_buffer *b, uint32_t seed)
{
	int64_t n = pt_buffer_count(b);
	uint32_t s = seed * 2654435761u + 12345u;
	for (int64_t i = 0; i < n; i++) {
		s = s * 1664525u + 1013904223u;
		uint32_t r = s >> 8;
		double v;
		switch (b->type) {
		case PT_F32: case PT_F64: v = (double)r / 16777216.0; break;
		case PT_U8: v = r & 255; break;
		case PT_I8: v = (double)(int)(r & 255) - 128; break;
		default: v = r & 1023; break;
		}
		int64_t idx[PT_MAX_DIMS];
		unravel(b, i, idx);
		pt_buffer_set(b, idx, v);
	}
}

/* One comparison run: params set on an interpreter, inputs generated. */
typedef struct cmp_run {
	pt_ctx *ctx;
	const pt_pipeline *p;
	pt_interp *in;
	pt_buffer inputs[MAX_IO];
	int64_t ip[64];
	double fp[64];
} cmp_run;

/* Sets params (names[i] = values[i]), generates every image, runs the
 * interpreter. */
static void cmp_start(cmp_run *r, pt_ctx *ctx, const pt_pipeline *p, int nparams,
	const char *const *names, const double *values, uint32_t seed)
{
	memset(r, 0, sizeof(*r));
	r->ctx = ctx;
	r->p = p;
	r->in = pt_interp_new(ctx, p);
	for (int i = 0; i < nparams; i++)
		ck_assert_msg(pt_interp_set_param(r->in, names[i], values[i]) == 0, "%s", pt_ctx_diagnostics(ctx));
	ck_assert_int_eq(pt_interp_infer_params(r->in), 0);
	for (int i = 0; i < p->nimages; i++) {
		int64_t ext[PT_MAX_DIMS];
		ck_assert_int_eq(pt_interp_image_extents(r->in, p->images[i]->name, ext), 0);
		ck_assert_int_eq(pt_buffer_alloc(&r->inputs[i], (pt_type)p->images[i]->type, p->images[i]->ndim, ext), PT_OK);
		fill_buffer(&r->inputs[i], seed + (uint32_t)i);
		ck_assert_int_eq(pt_interp_set_input(r->in, p->images[i]->name, &r->inputs[i]), 0);
	}
	ck_assert_msg(pt_interp_run(r->in) == 0, "%s", pt_ctx_diagnostics(ctx));
	for (int q = 0; q < p->nparams; q++) {
		double v = 0;
		ck_assert_int_eq(pt_interp_get_param(r->in, p->params[q].name, &v), 0);
		r->ip[q] = (int64_t)v;
		r->fp[q] = v;
	}
}

static void cmp_finish(cmp_run *r)
{
	pt_interp_free(r->in);
	for (int i = 0; i < r->p->nimages; i++)
		pt_buffer_free(&r->inputs[i]);
}

/* Bytes past a 64-byte boundary where cmp_check's output buffers start
 * (pt_buffer_alloc aligns them; a caller's buffers need not be),
 * rounded up to a multiple of the element's size: a buffer of doubles
 * 4 bytes past a line is misaligned for its elements, which C and the
 * compiled code may assume (UBSan caught pt_buffer_get reading one). */
static int cmp_out_offset;

/* Runs prog on r's inputs with `threads` threads and compares. */
static void cmp_check(cmp_run *r, pt_program *prog, int threads, const char *label)
{
	const pt_pipeline *p = r->p;
	int nout = pt_pipeline_output_count(p);
	ck_assert_int_le(nout, MAX_IO);
	ck_assert_int_le(p->nimages, MAX_IO);
	pt_buffer outs[MAX_IO];
	pt_buffer *outp[MAX_IO];
	const pt_buffer *inp[MAX_IO];
	for (int i = 0; i < p->nimages; i++)
		inp[i] = &r->inputs[i];
	for (int i = 0; i < nout; i++) {
		int64_t lo[PT_MAX_DIMS], ext[PT_MAX_DIMS];
		const pt_stage *s = pt_pipeline_find_stage(p, pt_pipeline_output_name(p, i));
		ck_assert_int_eq(pt_pipeline_output_box(p, i, r->ip, lo, ext), s->ndim);
		ck_assert_int_eq(pt_buffer_alloc(&outs[i], (pt_type)s->type, s->ndim, ext), PT_OK);
		outp[i] = &outs[i];
	}
	void *own[MAX_IO], *base[MAX_IO];
	for (int i = 0; i < nout; i++) {
		own[i] = outs[i].data;
		base[i] = NULL;
		if (cmp_out_offset) {
			size_t bytes = (size_t)pt_buffer_count(&outs[i]) * pt_type_size(outs[i].type);
			char *m = aligned_alloc(64, (bytes + 64 + 63) / 64 * 64);
			ck_assert_ptr_nonnull(m);
			memset(m, 0, bytes + 64);
			base[i] = m;
			size_t esz = pt_type_size(outs[i].type);
			outs[i].data = m + ((size_t)cmp_out_offset + esz - 1) / esz * esz;
		}
	}
	pt_set_num_threads(threads);
	int rc = pt_program_run(prog, r->ip, r->fp, inp, outp);
	ck_assert_msg(rc == 0, "%s: compiled run failed: %s", label, pt_error_name(rc));
	for (int i = 0; i < nout; i++) {
		const char *name = pt_pipeline_output_name(p, i);
		const uint8_t *def;
		int64_t origin[PT_MAX_DIMS];
		const pt_buffer *ref = pt_interp_result(r->in, name, &def, origin);
		ck_assert_ptr_nonnull(ref);
		int64_t n = pt_buffer_count(ref), ndef = 0;
		ck_assert_int_eq(n, pt_buffer_count(&outs[i]));
		double maxmag = 0, maxdiff = 0;
		int64_t worst = -1;
		for (int64_t k = 0; k < n; k++) {
			if (!def[k])
				continue;
			ndef++;
			int64_t idx[PT_MAX_DIMS];
			unravel(ref, k, idx);
			double a = pt_buffer_get(&outs[i], idx), b = pt_buffer_get(ref, idx);
			if (pt_type_is_float((int)ref->type) && !isfinite(b)) {
				/* infinities and NaN must match exactly */
				if (!(a == b || (isnan(a) && isnan(b))))
					ck_abort_msg("%s: output %s differs at element %lld: compiled %g, interpreter %g",
						label, name, (long long)k, a, b);
			} else if (pt_type_is_float((int)ref->type)) {
				maxmag = fabs(b) > maxmag ? fabs(b) : maxmag;
				double d = fabs(a - b);
				if (!(d <= maxdiff)) {
					maxdiff = d;
					worst = k;
				}
			} else if (a != b) {
				ck_abort_msg("%s: output %s differs at element %lld: compiled %.17g, interpreter %.17g",
					label, name, (long long)k, a, b);
			}
		}
		ck_assert_msg(ndef > 0, "%s: output %s has no defined point", label, name);
		ck_assert_msg(maxdiff <= FLOAT_TOL * (maxmag > 1 ? maxmag : 1),
			"%s: output %s differs by %g at element %lld (largest magnitude %g)",
			label, name, maxdiff, (long long)worst, maxmag);
		if (cmp_out_offset) {
			free(base[i]);
			outs[i].data = own[i];
		}
		pt_buffer_free(&outs[i]);
	}
}

/* Parses path, compiles it with each of the nopts options and compares
 * it with the interpreter at two sizes (values of the nparams params
 * named names), with nseeds inputs each, on 1 and 2 threads. */
static inline void cmp_file_opts(const char *path, int nparams, const char *const *names,
	const double sizes[2][2], int nseeds, const pt_options *opts, int nopts)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_file(ctx, path);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	for (int k = 0; k < nopts; k++) {
		pt_program *prog = pt_compile(ctx, p, &opts[k]);
		ck_assert_msg(prog != NULL, "%s: %s", path, pt_ctx_diagnostics(ctx));
		char config[200];
		if (opts[k].opt_level == PT_OPT_GROUPED)
			snprintf(config, sizeof(config), "-O1 --tile %dx%d --overlap %g --time-tile %d%s", opts[k].tile[0],
				opts[k].tile[1], opts[k].overlap, opts[k].time_tile, opts[k].no_inline ? ", no inlining" : "");
		else
			snprintf(config, sizeof(config), "-O0, %s", opts[k].no_inline ? "no inlining" : "inlined");
		for (int sz = 0; sz < 2; sz++)
			for (uint32_t seed = 1; seed <= (uint32_t)nseeds; seed++) {
				cmp_run r;
				cmp_start(&r, ctx, p, nparams, names, sizes[sz], seed * 101u + (uint32_t)sz);
				for (int threads = 1; threads <= 2; threads++) {
					char label[1100];
					snprintf(label, sizeof(label), "%s, size %g x %g, seed %u, %d thread%s, %s",
						path, sizes[sz][0], sizes[sz][1], seed, threads, threads > 1 ? "s" : "",
						config);
					cmp_check(&r, prog, threads, label);
				}
				cmp_finish(&r);
			}
		pt_program_free(prog);
	}
	pt_ctx_free(ctx);
}

/* cmp_file_opts with the naive schedule (-O0), with and without inlining
 * (LLVM on 1 thread, then 2: the object is the same; both are run).  The
 * grouped schedule has its own sweep (test_grouped_apps). */
static inline void cmp_file(const char *path, int nparams, const char *const *names,
	const double sizes[2][2], int nseeds)
{
	const pt_options opts[2] = {
		{ .opt_level = PT_OPT_NAIVE, .compile_threads = 1 },
		{ .no_inline = true, .opt_level = PT_OPT_NAIVE, .compile_threads = 2 },
	};
	cmp_file_opts(path, nparams, names, sizes, nseeds, opts, 2);
}

#endif
