/* explain_gpu.c: `polytile explain --backend cuda`: every kernel of the
 * CUDA target at the estimates, with its grid, block, shared memory and
 * the occupancy they allow.  The pipeline is compiled for the CUDA
 * target and run as a dry run (pt_cuda_dry_run: no device, launches
 * recorded), so what is printed is what the compiled code launches, not
 * a model of it. */
#include <stdlib.h>
#include <string.h>

#include "passes.h"

/* An H100 / H200 multiprocessor (sm_90): what bounds the blocks it runs
 * at once.  Registers are not counted. */
enum { SM_THREADS = 2048, SM_BLOCKS = 32, SM_SHARED = 228 * 1024, BLOCK_RESERVED = 1024 };

static int blocks_per_sm(const pt_cuda_launch_info *r)
{
	int threads = r->bdx * r->bdy, n = SM_BLOCKS;
	if (SM_THREADS / threads < n)
		n = SM_THREADS / threads;
	if (r->shared > 0 && SM_SHARED / (r->shared + BLOCK_RESERVED) < n)
		n = SM_SHARED / (r->shared + BLOCK_RESERVED);
	return n;
}

/* A buffer at its extents whose data is never read (a dry run binds
 * addresses, not contents). */
static void dry_buffer(pt_buffer *b, pt_type t, int ndim, const int64_t *ext)
{
	static _Alignas(64) unsigned char none[64];
	memset(b, 0, sizeof(*b));
	b->data = none;
	b->type = t;
	b->ndim = ndim;
	int64_t s = 1;
	for (int d = ndim - 1; d >= 0; d--) {
		b->extent[d] = ext[d];
		b->stride[d] = s;
		s *= ext[d];
	}
}

/* Runs prog dry with params ip / fp (declaration order). */
static int dry_call(pt_program *prog, const pt_pipeline *p, const int64_t *ip, const double *fp)
{
	int ni = pt_pipeline_image_count(p), no = pt_pipeline_output_count(p);
	pt_buffer *bufs = calloc((size_t)(ni + no) + 1, sizeof(*bufs));
	const pt_buffer **in = calloc((size_t)ni + 1, sizeof(*in));
	pt_buffer **out = calloc((size_t)no + 1, sizeof(*out));
	double *values = calloc((size_t)p->nparams + 1, sizeof(double));
	int rc = !bufs || !in || !out || !values ? PT_ERR_NOMEM : 0;
	for (int q = 0; !rc && q < p->nparams; q++)
		values[q] = pt_type_is_float(p->params[q].type) ? fp[q] : (double)ip[q];
	for (int i = 0; !rc && i < ni; i++) {
		int64_t ext[PT_MAX_DIMS];
		rc = pt_pipeline_image_extents(p, i, values, ext) ? PT_ERR_PARAM : 0;
		dry_buffer(&bufs[i], pt_pipeline_image_type(p, i), pt_pipeline_image_ndim(p, i), ext);
		in[i] = &bufs[i];
	}
	for (int o = 0; !rc && o < no; o++) {
		int64_t lo[PT_MAX_DIMS], ext[PT_MAX_DIMS];
		int nd = pt_pipeline_output_box(p, o, ip, lo, ext);
		rc = nd < 0 ? PT_ERR_PARAM : 0;
		pt_type t = pt_pipeline_stage_type(p, pt_pipeline_stage_index(p, pt_pipeline_output_name(p, o)));
		dry_buffer(&bufs[ni + o], t, nd < 0 ? 0 : nd, ext);
		out[o] = &bufs[ni + o];
	}
	if (!rc) {
		pt_cuda_dry_run(1);
		rc = pt_program_run(prog, ip, fp, in, out);
	}
	free(values);
	free(out);
	free(in);
	free(bufs);
	return rc;
}

void pt_explain_gpu(pt_strbuf *b, pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt, const int64_t *ip,
	const double *fp)
{
	pt_program *prog = pt_compile(ctx, p, opt);
	if (!prog) {
		pt_sb_printf(b, "GPU kernels: the pipeline did not compile for the CUDA target\n");
		return;
	}
	int rc = dry_call(prog, p, ip, fp);
	const pt_cuda_launch_info *r;
	double bytes = 0;
	int n = pt_cuda_dry_launches(&r, &bytes);
	pt_sb_printf(b, "GPU kernels at the estimates (an sm_90 multiprocessor runs up to %d threads, %d blocks and "
		"%d KiB of shared memory at once; registers not counted):\n", SM_THREADS, SM_BLOCKS, SM_SHARED / 1024);
	for (int i = 0; i < n; i++) {
		int per_sm = blocks_per_sm(&r[i]), threads = r[i].bdx * r[i].bdy;
		/* FUNCTION_gpuN: the kernel's number in the function */
		const char *k = strrchr(r[i].kernel, '_');
		pt_sb_printf(b, "  kernel %s: %lld block%s of %d x %d threads, ", k ? k + 1 : r[i].kernel,
			(long long)r[i].blocks, r[i].blocks == 1 ? "" : "s", r[i].bdx, r[i].bdy);
		if (r[i].shared)
			pt_storage_bytes_text(b, (double)r[i].shared);
		pt_sb_printf(b, "%s; %d block%s per multiprocessor (occupancy %.0f%%)", r[i].shared ? " of shared memory" :
			"no shared memory", per_sm,
			per_sm == 1 ? "" : "s", 100.0 * per_sm * threads / SM_THREADS);
		if (r[i].launches > 1)
			pt_sb_printf(b, "; launched %lld times", (long long)r[i].launches);
		pt_sb_printf(b, "\n");
	}
	pt_sb_printf(b, "device memory of a call (inputs, outputs and intermediate stages): ");
	pt_storage_bytes_text(b, bytes);
	pt_sb_printf(b, "\n");
	if (rc)
		pt_sb_printf(b, "the dry run stopped: %s: %s\n", pt_error_name(rc), pt_rt_error_detail());
	pt_cuda_dry_run(0);
	pt_program_free(prog);
}
