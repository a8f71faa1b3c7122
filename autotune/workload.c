/* workload.c: generated inputs and two slots of outputs of a pipeline,
 * for running compiled variants against each other byte for byte. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "polytile.h"
#include "ctx.h"
#include "diag.h"

struct pt_workload {
	const pt_pipeline *p;
	int64_t *ip;            /* int params (floats 0) */
	double *fp;             /* every param as a double */
	int nin, nout;
	pt_buffer *in;
	const pt_buffer **inp;
	pt_buffer *out[2];
	pt_buffer **outp[2];
};

/* Deterministic inputs: floats in [0, 1), integers in 0 .. 255 (a linear
 * congruential generator per image, in element order). */
static void fill_random(pt_buffer *b, uint32_t seed)
{
	int64_t n = pt_buffer_count(b), idx[PT_MAX_DIMS];
	uint32_t s = seed * 2654435761u + 1u;
	for (int64_t k = 0; k < n; k++) {
		s = s * 1664525u + 1013904223u;
		int64_t r = k;
		for (int d = b->ndim - 1; d >= 0; d--) {
			idx[d] = r % b->extent[d];
			r /= b->extent[d];
		}
		double v = b->type == PT_F32 || b->type == PT_F64 ? (double)(s >> 8) / 16777216.0 : (double)(s >> 24);
		pt_buffer_set(b, idx, v);
	}
}

static bool is_float_param(const pt_pipeline *p, int q)
{
	pt_type t = pt_pipeline_param_type(p, q);
	return t == PT_F32 || t == PT_F64;
}

/* The buffers of w at its params; false with a message in ctx. */
static bool allocate(pt_ctx *ctx, pt_workload *w)
{
	const pt_pipeline *p = w->p;
	for (int i = 0; i < w->nin; i++) {
		int64_t ext[PT_MAX_DIMS];
		if (pt_pipeline_image_extents(p, i, w->fp, ext) < 0 ||
			pt_buffer_alloc(&w->in[i], pt_pipeline_image_type(p, i), pt_pipeline_image_ndim(p, i), ext) != PT_OK) {
			pt_error_at(&ctx->diag, (pt_loc){0}, NULL, "image '%s' cannot be made at these params (out of memory?)",
				pt_pipeline_image_name(p, i));
			return false;
		}
		fill_random(&w->in[i], (uint32_t)i + 7u);
		w->inp[i] = &w->in[i];
	}
	for (int v = 0; v < 2; v++)
		for (int i = 0; i < w->nout; i++) {
			int64_t lo[PT_MAX_DIMS], ext[PT_MAX_DIMS];
			int nd = pt_pipeline_output_box(p, i, w->ip, lo, ext);
			int si = pt_pipeline_stage_index(p, pt_pipeline_output_name(p, i));
			if (nd < 0 || pt_buffer_alloc(&w->out[v][i], pt_pipeline_stage_type(p, si), nd, ext) != PT_OK) {
				pt_error_at(&ctx->diag, (pt_loc){0}, NULL, "output '%s' cannot be made at these params (out of memory?)",
					pt_pipeline_output_name(p, i));
				return false;
			}
			w->outp[v][i] = &w->out[v][i];
		}
	return true;
}

pt_workload *pt_workload_new(pt_ctx *ctx, const pt_pipeline *p, const double *values)
{
	pt_workload *w = calloc(1, sizeof(*w));
	int np = pt_pipeline_param_count(p);
	w->p = p;
	w->ip = calloc((size_t)np + 1, sizeof(int64_t));
	w->fp = calloc((size_t)np + 1, sizeof(double));
	w->nin = pt_pipeline_image_count(p);
	w->nout = pt_pipeline_output_count(p);
	w->in = calloc((size_t)w->nin + 1, sizeof(pt_buffer));
	w->inp = calloc((size_t)w->nin + 1, sizeof(pt_buffer *));
	for (int v = 0; v < 2; v++) {
		w->out[v] = calloc((size_t)w->nout + 1, sizeof(pt_buffer));
		w->outp[v] = calloc((size_t)w->nout + 1, sizeof(pt_buffer *));
	}
	for (int q = 0; q < np; q++) {
		double v = 1024;
		if (values)
			v = values[q];
		else
			pt_pipeline_param_estimate(p, q, &v);
		w->fp[q] = v;
		w->ip[q] = is_float_param(p, q) ? 0 : (int64_t)v;
	}
	if (!allocate(ctx, w))
		w = (pt_workload_free(w), NULL);
	return w;
}

void pt_workload_free(pt_workload *w)
{
	if (!w)
		return;
	for (int i = 0; i < w->nin; i++)
		pt_buffer_free(&w->in[i]);
	for (int v = 0; v < 2; v++) {
		for (int i = 0; i < w->nout; i++)
			pt_buffer_free(&w->out[v][i]);
		free(w->out[v]);
		free(w->outp[v]);
	}
	free(w->in);
	free(w->inp);
	free(w->ip);
	free(w->fp);
	free(w);
}

static size_t bytes(const pt_buffer *b)
{
	return (size_t)pt_buffer_count(b) * pt_type_size(b->type);
}

void pt_workload_fill(pt_workload *w, int slot, uint8_t byte)
{
	for (int i = 0; i < w->nout; i++)
		memset(w->out[slot][i].data, byte, bytes(&w->out[slot][i]));
}

int pt_workload_run(pt_workload *w, pt_program *prog, int slot, double *ms)
{
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = pt_program_run(prog, w->ip, w->fp, w->inp, w->outp[slot]);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (ms)
		*ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	return rc;
}

int pt_workload_compare(const pt_workload *w, size_t *offset)
{
	for (int i = 0; i < w->nout; i++) {
		const unsigned char *a = w->out[0][i].data, *b = w->out[1][i].data;
		size_t n = bytes(&w->out[0][i]);
		if (!memcmp(a, b, n))
			continue;
		size_t k = 0;
		while (a[k] == b[k])
			k++;
		if (offset)
			*offset = k;
		return i;
	}
	return -1;
}

const pt_buffer *pt_workload_inputs(const pt_workload *w, int *n, const int64_t **ip, const double **fp)
{
	if (n)
		*n = w->nin;
	if (ip)
		*ip = w->ip;
	if (fp)
		*fp = w->fp;
	return w->in;
}

pt_buffer *pt_workload_outputs(pt_workload *w, int slot, int *n)
{
	if (n)
		*n = w->nout;
	return w->out[slot];
}
