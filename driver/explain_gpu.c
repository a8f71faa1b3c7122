/* explain_gpu.c: `polytile explain --backend cuda`: every kernel of the
 * CUDA target at the estimates, with its grid, block, shared memory and
 * the occupancy they allow.  The pipeline is compiled for the CUDA
 * target and run as a dry run (pt_cuda_dry_run: no device, launches
 * recorded), so what is printed is what the compiled code launches, not
 * a model of it. */
#include <stdlib.h>
#include <string.h>

#include <isl/id.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/val.h>

#include "gpu_model.h"
#include "passes.h"
#include "stream_plan.h"
#include "target_desc.h"

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

/* set (no params) along dim d: its least and greatest coordinates. */
static bool dim_range(__isl_keep isl_set *set, int d, int64_t *lo, int64_t *hi)
{
	isl_size n = isl_set_dim(set, isl_dim_set);
	isl_set *one = isl_set_project_out(isl_set_copy(set), isl_dim_set, (unsigned)d + 1, (unsigned)(n - d - 1));
	one = isl_set_project_out(one, isl_dim_set, 0, (unsigned)d);
	isl_set *a = isl_set_lexmin(isl_set_copy(one)), *b = isl_set_lexmax(one);
	isl_val *va = isl_set_plain_get_val_if_fixed(a, isl_dim_set, 0);
	isl_val *vb = isl_set_plain_get_val_if_fixed(b, isl_dim_set, 0);
	bool ok = va && vb && isl_val_is_int(va) && isl_val_is_int(vb);
	if (ok) {
		*lo = isl_val_get_num_si(va);
		*hi = isl_val_get_num_si(vb);
	}
	isl_val_free(va);
	isl_val_free(vb);
	isl_set_free(a);
	isl_set_free(b);
	return ok;
}

/* The points of set's bounding box (0 when empty or unbounded), with
 * the box's middle point in mid (if given). */
static double box_points(__isl_take isl_set *set, int64_t *mid)
{
	double n = isl_set_is_empty(set) == isl_bool_false ? 1 : 0;
	isl_size nd = isl_set_dim(set, isl_dim_set);
	for (int d = 0; n > 0 && d < nd; d++) {
		int64_t lo = 0, hi = -1;
		if (!dim_range(set, d, &lo, &hi))
			n = 0;
		n *= (double)(hi - lo + 1);
		if (mid)
			mid[d] = lo + (hi - lo) / 2;
	}
	isl_set_free(set);
	return n;
}

/* The params' values at the estimates (p's int params at ip), a set
 * to intersect with, aligning by name. */
static __isl_give isl_set *estimates(isl_ctx *ctx, const pt_pipeline *p, const int64_t *ip)
{
	isl_set *at = isl_set_universe(isl_space_params_alloc(ctx, 0));
	for (int q = 0; q < p->nparams; q++) {
		if (pt_type_is_float(p->params[q].type))
			continue;
		isl_id *id = isl_id_alloc(ctx, p->params[q].name, NULL);
		at = isl_set_add_dims(at, isl_dim_param, 1);
		isl_size n = isl_set_dim(at, isl_dim_param);
		at = isl_set_set_dim_id(at, isl_dim_param, (unsigned)n - 1, id);
		at = isl_set_fix_si(at, isl_dim_param, (unsigned)n - 1, (int)ip[q]);
	}
	return at;
}

/* Bytes a kernel reads of input in at the estimates (at): its tiles'
 * footprints (the middle tile's box times the tiles), and of distinct
 * data (*once). */
static double input_bytes(const pt_pipeline *p, const pt_kernel_input *in, __isl_keep isl_set *at, double *once)
{
	pt_image *im = in->stage ? NULL : pt_pipeline_find_image(p, in->array);
	size_t esz = pt_type_size((pt_type)(in->stage ? in->stage->type : im ? im->type : PT_U8));
	*once = box_points(isl_set_intersect_params(isl_set_copy(in->footprint), isl_set_copy(at)), NULL) * (double)esz;
	if (!in->per_tile)
		return *once;
	isl_map *m = isl_map_intersect_params(isl_map_copy(in->per_tile), isl_set_copy(at));
	isl_set *tiles = isl_map_domain(isl_map_copy(m));
	int64_t mid[PT_MAX_DIMS] = { 0 };
	isl_size nt = isl_set_dim(tiles, isl_dim_set);
	double ntiles = nt <= PT_MAX_DIMS ? box_points(tiles, mid) : (isl_set_free(tiles), 0);
	for (int d = 0; d < nt && d < PT_MAX_DIMS; d++)
		m = isl_map_fix_si(m, isl_dim_in, (unsigned)d, (int)mid[d]);
	return ntiles * box_points(isl_map_range(m), NULL) * (double)esz;
}

/* What the optimizer's kernel k moves through device memory at the
 * estimates: each launch of its code reads its inputs and writes its
 * outputs (scratchpads stay in shared memory). */
/* What the device model predicts for kernel description k (launches
 * not included); -1 where it does not say. */
static double kernel_model(const pt_unit *u, int k, const int64_t *ip, const pt_target_desc *td)
{
	const pt_kernel *kn = &u->kernels->k[k];
	if (kn->group)
		return pt_gpu_model_time(kn->group, ip, td);
	return pt_gpu_model_stages_time(kn->stages, kn->nstages, ip, td);
}

static void kernel_bytes(pt_strbuf *b, const pt_unit *u, int k, const int64_t *ip, double *total, double model)
{
	const pt_kernel *kn = &u->kernels->k[k];
	double rd = 0, once = 0, wr = 0;
	isl_set *at = estimates(u->ctx->isl, u->p, ip);
	for (int i = 0; i < kn->ninputs; i++) {
		double o = 0;
		rd += input_bytes(u->p, &kn->inputs[i], at, &o);
		once += o;
	}
	isl_set_free(at);
	for (int i = 0; i < kn->noutputs; i++)
		wr += pt_storage_box_bytes(kn->outputs[i], ip, 0);
	pt_sb_printf(b, "    k%d (", k);
	for (int s = 0; s < kn->nstages; s++)
		pt_sb_printf(b, "%s%s", s ? ", " : "", kn->stages[s]->name);
	pt_sb_printf(b, "): reads ");
	pt_storage_bytes_text(b, rd);
	if (kn->ngrid > 0) {
		pt_sb_printf(b, " (its tiles' footprints; ");
		pt_storage_bytes_text(b, once);
		pt_sb_printf(b, " distinct)");
	}
	pt_sb_printf(b, ", writes ");
	pt_storage_bytes_text(b, wr);
	if (model >= 0)
		pt_sb_printf(b, "; the model: %.4f ms", 1e3 * model);
	pt_sb_printf(b, "\n");
	*total += rd + wr;
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

void pt_explain_gpu(pt_strbuf *b, const pt_unit *u, const pt_pipeline *p, const pt_options *opt, const int64_t *ip,
	const double *fp)
{
	pt_ctx *ctx = u->ctx;
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
		/* FUNCTION_gpuN_kK: launch N, of kernel description K */
		const char *k = strstr(r[i].kernel, "_gpu");
		int num = -1, kd = -1;
		if (k)
			sscanf(k, "_gpu%d_k%d", &num, &kd);
		pt_sb_printf(b, "  kernel gpu%d", num);
		if (kd >= 0)
			pt_sb_printf(b, " (k%d)", kd);
		pt_sb_printf(b, ": %lld block%s of %d x %d threads, ",
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
	double total = 0, model = n * PT_GPU_LAUNCH_COST;
	pt_target_desc td;
	char err[400];
	pt_target_desc_gpu(&td);
	pt_target_desc_gpu_env(&td, err, sizeof(err));
	pt_strbuf missing = { 0 };
	pt_sb_printf(b, "bytes each kernel moves through device memory at the estimates (reads count each tile's "
		"footprint, scratchpads stay in shared memory), and the device model's time for it:\n");
	for (int k = 0; u->kernels && k < u->kernels->n; k++) {
		double t = kernel_model(u, k, ip, &td);
		kernel_bytes(b, u, k, ip, &total, t);
		if (t < 0)
			pt_sb_printf(&missing, "%sk%d", missing.s ? ", " : "; not modelled (reductions, groups tiled along three dims or more): ", k);
		model += t < 0 ? 0 : t;
	}
	pt_sb_printf(b, "  in all ");
	pt_storage_bytes_text(b, total);
	pt_sb_printf(b, " a call: %.3f ms at 3.35 TB/s (an H100's memory)\n", total / 3.35e12 * 1e3);
	pt_sb_printf(b, "the device model (%s) predicts %.3f ms for the kernels, %d launch%s at %.0f us included%s\n",
		td.gpu.source, 1e3 * model, n, n == 1 ? "" : "es", 1e6 * PT_GPU_LAUNCH_COST, missing.s ? missing.s : "");
	pt_sb_free(&missing);
	pt_sb_printf(b, "device memory of a call (inputs, outputs and intermediate stages): ");
	pt_storage_bytes_text(b, bytes);
	pt_sb_printf(b, "\n");
	int chunks = pt_cuda_dry_streamed();
	int sk = u->kernels && u->kernels->stream ? u->kernels->stream->kernel : 0;
	if (chunks) {
		if (sk > 0)
			pt_sb_printf(b, "copies from and to host buffers: streamed (the last kernel, k%d; those before it read "
				"no image and write no output)", sk);
		else
			pt_sb_printf(b, "copies from and to host buffers: streamed (one tiled kernel)");
		pt_sb_printf(b, ": its tile rows in up to %d chunks, each chunk's input boxes copied in and output boxes out "
			"while the others run\n", chunks);
	} else
		pt_sb_printf(b, "copies from and to host buffers: whole, before and after the kernels\n");
	if (rc)
		pt_sb_printf(b, "the dry run stopped: %s: %s\n", pt_error_name(rc), pt_rt_error_detail());
	pt_cuda_dry_run(0);
	pt_program_free(prog);
}
