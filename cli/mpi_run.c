/* mpi_run.c: the data of `polytile run --backend mpi` (cli.h).  Rank 0
 * alone reads the --in PNG files and sends each rank the part of each
 * input its kernels read (pt_program_part); each rank reads its part of
 * a .npy file itself (raw rows after a header); a generated input is
 * made by each rank for its part alone; each rank runs its parts (the local-part ABI,
 * pt_program_run_local) and rank 0 gathers the points each rank computed
 * of each output.  No rank but 0 holds an input or an output whole. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "convert.h"
#include "pt_runtime.h"

#ifdef PT_HAVE_MPI
void pt_cli_mpi_shapes(pt_buffer *bufs, const pt_buffer **img, const bool *given, int n)
{
	for (int i = 0; i < n; i++) {
		if (!given[i])
			continue;
		pt_buffer h = bufs[i];
		pt_mpi_bcast(&h, (int32_t)sizeof(h));
		if (pt_mpi_rank() != 0) {
			h.data = NULL;   /* the shape only: its part comes later */
			bufs[i] = h;
			img[i] = &bufs[i];
		}
	}
}

/* This rank's box of array a (+ PT_PART_OWN: its own points) as a
 * pt_mpi box (lo, hi per dim) and lo, ext (0 along every dim when
 * empty); the array's dims, or an error. */
static int part_box(pt_program *t, const int64_t *ip, const double *fp, int a, int64_t *box, int64_t *lo,
	int64_t *ext)
{
	int64_t hi[PT_MAX_DIMS];
	int n = pt_program_part(t, ip, fp, pt_mpi_rank(), pt_mpi_size(), a, lo, hi);
	bool empty = false;
	for (int d = 0; d < n; d++)
		empty |= lo[d] > hi[d];
	for (int d = 0; d < n; d++) {
		ext[d] = empty ? 0 : hi[d] - lo[d] + 1;
		box[2 * d] = lo[d];
		box[2 * d + 1] = empty ? lo[d] - 1 : hi[d];
	}
	return n;
}


/* Image i's part on this rank into loc: generated, read from the .npy
 * file npy (its part alone), or sent by rank 0 (whole there, in img)
 * with one exchange in which rank 0 owns it all and every other rank
 * needs its part. */
static int image_part(pt_program *t, const int64_t *ip, const double *fp, const pt_buffer *img, bool generated,
	const char *npy, const int64_t *whole, int i, pt_buffer *loc)
{
	int64_t box[2 * PT_MAX_DIMS], lo[PT_MAX_DIMS], ext[PT_MAX_DIMS];
	int n = part_box(t, ip, fp, i, box, lo, ext);
	if (n < 0)
		return n;
	if (generated)
		return pt_cli_generate_box(img->type, n, whole, lo, ext, loc);
	if (npy) {
		char err[1024] = "";
		int rc = pt_cli_load_npy_box(npy, img->type, lo, ext, loc, err, sizeof(err));
		if (rc)
			fprintf(stderr, "polytile: rank %d: %s\n", pt_mpi_rank(), err);
		return rc;
	}
	int rc = pt_buffer_alloc(loc, img->type, n, ext);
	bool root = pt_mpi_rank() == 0;
	int64_t all[2 * PT_MAX_DIMS], none[2 * PT_MAX_DIMS], zero[PT_MAX_DIMS] = {0};
	for (int d = 0; d < n; d++) {
		all[2 * d] = 0;
		all[2 * d + 1] = img->extent[d] - 1;
		none[2 * d] = 0;
		none[2 * d + 1] = -1;
	}
	/* every rank takes part, even one whose buffer failed: it asks for nothing */
	pt_mpi_exchange(root ? img->data : loc->data, (int32_t)pt_type_size(img->type), n, root ? zero : lo,
		root ? img->stride : loc->stride, root || rc ? none : box, root ? all : none);
	if (root && !rc)
		pt_copy_box(loc->data, lo, loc->stride, img->data, zero, img->stride, img->ndim, (int)pt_type_size(img->type), box);
	return rc;
}

/* Output i (ABI array a) from every rank's own points into rank 0's
 * whole buffer out (element 0 at origin). */
static void gather_output(pt_program *t, const int64_t *ip, const double *fp, int a, pt_buffer *loc,
	const int64_t *llo, pt_buffer *out, const int64_t *origin)
{
	int64_t own[2 * PT_MAX_DIMS], lo[PT_MAX_DIMS], ext[PT_MAX_DIMS];
	int n = part_box(t, ip, fp, a + PT_PART_OWN, own, lo, ext);
	bool root = pt_mpi_rank() == 0;
	if (root)
		pt_copy_box(out->data, origin, out->stride, loc->data, llo, loc->stride, loc->ndim,
			(int)pt_type_size(loc->type), own);
	pt_mpi_gather(root ? out->data : loc->data, (int32_t)pt_type_size(loc->type), n, root ? origin : llo,
		root ? out->stride : loc->stride, own);
}

int pt_cli_mpi_run(pt_program *t, const pt_pipeline *p, const int64_t *ip, const double *fp, const pt_buffer **img,
	const bool *generated, const char *const *npy, pt_buffer *outs, int64_t (*origin)[PT_MAX_DIMS], double *seconds,
	int64_t *scattered)
{
	int ni = pt_pipeline_image_count(p), no = pt_pipeline_output_count(p), rc = -1;
	pt_buffer *loc = calloc((size_t)(ni + no) + 1, sizeof(*loc));
	const pt_buffer **in = calloc((size_t)ni + 1, sizeof(*in));
	pt_buffer **out = calloc((size_t)no + 1, sizeof(*out));
	int64_t (*lo)[PT_MAX_DIMS] = calloc((size_t)(ni + no) + 1, sizeof(*lo));
	if (pt_cli_mpi_agree(!loc || !in || !out || !lo, "to set up its parts"))
		goto out;
	/* every rank takes part in every image's scatter, even after a failure */
	bool failed = false;
	for (int i = 0; i < ni; i++) {
		int64_t whole[PT_MAX_DIMS] = {0};
		pt_pipeline_image_extents(p, i, fp, whole);
		failed |= image_part(t, ip, fp, img[i], generated[i], npy[i], whole, i, &loc[i]) != 0;
		in[i] = &loc[i];
	}
	for (int i = 0; i < no; i++) {
		int64_t box[2 * PT_MAX_DIMS], ext[PT_MAX_DIMS];
		int n = part_box(t, ip, fp, ni + i, box, lo[ni + i], ext);
		failed |= n < 0 || pt_buffer_alloc(&loc[ni + i], pt_pipeline_stage_type(p,
			pt_pipeline_stage_index(p, pt_pipeline_output_name(p, i))), n, ext) != PT_OK;
		out[i] = &loc[ni + i];
	}
	failed |= pt_rt_take_error() != 0;
	if (pt_cli_mpi_agree(failed, "to take its parts of the inputs"))
		goto out;
	/* what the scatter moved is not the run's: counted apart */
	pt_mpi_bytes(scattered, NULL, 1);
	double t0 = pt_mpi_wtime();
	rc = pt_program_run_local(t, ip, fp, in, out);
	for (int i = 0; i < no && !rc; i++)
		gather_output(t, ip, fp, ni + i, &loc[ni + i], lo[ni + i], &outs[i], origin[i]);
	*seconds = pt_mpi_wtime() - t0;
	if (!rc && pt_cli_mpi_agree(pt_rt_take_error() != 0, "to send its parts of the outputs"))
		rc = PT_ERR_NOMEM;
out:
	for (int i = 0; loc && i < ni + no; i++)
		pt_buffer_free(&loc[i]);
	free(loc);
	free(in);
	free(out);
	free(lo);
	return rc;
}
#else
void pt_cli_mpi_shapes(pt_buffer *bufs, const pt_buffer **img, const bool *given, int n)
{
	(void)bufs, (void)img, (void)given, (void)n;
}

int pt_cli_mpi_run(pt_program *t, const pt_pipeline *p, const int64_t *ip, const double *fp, const pt_buffer **img,
	const bool *generated, const char *const *npy, pt_buffer *outs, int64_t (*origin)[PT_MAX_DIMS], double *seconds,
	int64_t *scattered)
{
	(void)t, (void)p, (void)ip, (void)fp, (void)img, (void)generated, (void)npy, (void)outs, (void)origin;
	(void)seconds;
	(void)scattered;
	return PT_ERR_PARAM;
}
#endif
