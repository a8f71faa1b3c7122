/* test_cuda_fake.c: the CUDA runtime's host side (runtime/cuda.c) and
 * the host code of compiled CUDA pipelines, against a fake driver
 * (fake_cuda.c, found as libcuda.so.1 through LD_LIBRARY_PATH) whose
 * device memory is host memory and whose kernels run nothing: copies
 * arrive where they should, whole or in staged chunks, for buffers with
 * negative strides too; the pool reuses freed blocks and returns them;
 * out of memory, PTX refused, a launch refused, a kernel fault and a
 * run-time check in a kernel each give their code and message; a kernel
 * past 48 KiB of shared memory opts in; a cubin is loaded before the
 * PTX, which is the fallback when the driver refuses it; a compiled pipeline binds,
 * launches, waits, reads the error flag, copies back and frees, and
 * leaves a device-resident output on the device.  Whether the kernels
 * compute the right values is bench/gpu's, on a GPU. */
#include <check.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_cuda.h"
#include "polytile.h"
#include "run_suite.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

static fake_cuda *fake;

static void setup(void)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	ck_assert_msg(lib != NULL, "the fake driver is not on LD_LIBRARY_PATH: %s", dlerror());
	fake_cuda *(*state)(void) = (fake_cuda * (*)(void)) dlsym(lib, "fake_cuda_state");
	ck_assert_msg(state != NULL, "libcuda.so.1 is not the fake driver");
	fake = state();
	ck_assert_str_eq(pt_cuda_device_name(), "Fake GPU");
}

static void fill_bytes(pt_buffer *b)
{
	size_t n = (size_t)pt_buffer_count(b) * pt_type_size(b->type);
	for (size_t i = 0; i < n; i++)
		((uint8_t *)b->data)[i] = (uint8_t)(i * 131 + 7);
}

START_TEST(copies_arrive_whole_and_staged)
{
	/* 1 KiB (a direct copy) and 20 MiB (three staged chunks) */
	int64_t sizes[] = { 1024, (int64_t)20 << 20 };
	for (int k = 0; k < 2; k++) {
		pt_buffer b = { 0 };
		ck_assert_int_eq(pt_buffer_alloc(&b, PT_U8, 1, &sizes[k]), PT_OK);
		fill_bytes(&b);
		long chunks = fake->staged_chunks;
		ck_assert_int_eq(pt_cuda_buffer_upload(&b), PT_OK);
		ck_assert_uint_ne(b.device, 0);
		ck_assert_int_eq(memcmp((void *)(uintptr_t)b.device, b.data, (size_t)sizes[k]), 0);
		ck_assert_int_eq(fake->staged_chunks - chunks, k ? 3 : 0);
		/* the device copy changes; download brings it back */
		memset((void *)(uintptr_t)b.device, 0x5a, (size_t)sizes[k]);
		b.flags = PT_BUF_DEVICE_DIRTY;
		ck_assert_int_eq(pt_cuda_buffer_download(&b), PT_OK);
		ck_assert_uint_eq(b.flags, 0);
		ck_assert_uint_eq(((uint8_t *)b.data)[sizes[k] - 1], 0x5a);
		pt_cuda_buffer_release(&b);
		ck_assert_uint_eq(b.device, 0);
		pt_buffer_free(&b);
	}
}
END_TEST

START_TEST(negative_strides_span_the_right_bytes)
{
	/* rows in reverse: data points at the last row of the allocation */
	pt_buffer b = { 0 };
	int64_t ext[2] = { 4, 6 };
	ck_assert_int_eq(pt_buffer_alloc(&b, PT_F32, 2, ext), PT_OK);
	fill_bytes(&b);
	pt_buffer r = b;
	r.data = (float *)b.data + 18;
	r.stride[0] = -6;
	uint64_t dev = pt_cuda_bind(&r, PT_BIND_INPUT);
	ck_assert_uint_ne(dev, 0);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 6; j++)
			ck_assert(((float *)(uintptr_t)dev)[-6 * i + j] == ((float *)r.data)[-6 * i + j]);
	pt_cuda_unbind(&r, 0, dev);
	ck_assert_int_eq(pt_rt_take_error(), 0);
	pt_buffer_free(&b);
}
END_TEST

START_TEST(a_newer_host_copy_goes_up_unless_overwritten)
{
	pt_buffer b = { 0 };
	int64_t ext[2] = { 8, 8 };
	ck_assert_int_eq(pt_buffer_alloc(&b, PT_F32, 2, ext), PT_OK);
	ck_assert_int_eq(pt_cuda_buffer_upload(&b), PT_OK);
	int32_t roles[] = { PT_BIND_INPUT, PT_BIND_OUTPUT_PARTIAL, PT_BIND_OUTPUT };
	size_t up[] = { 256, 256, 0 };
	for (int k = 0; k < 3; k++) {
		b.flags = PT_BUF_HOST_DIRTY;
		size_t before = fake->bytes_in;
		ck_assert_uint_eq(pt_cuda_bind(&b, roles[k]), b.device);
		ck_assert_uint_eq(fake->bytes_in - before, up[k]);
		pt_cuda_unbind(&b, roles[k] != PT_BIND_INPUT, b.device);
		ck_assert_uint_eq(b.flags, roles[k] != PT_BIND_INPUT ? PT_BUF_DEVICE_DIRTY : 0);
	}
	pt_cuda_buffer_release(&b);
	pt_buffer_free(&b);
}
END_TEST

START_TEST(the_pool_reuses_and_out_of_memory_is_nomem)
{
	uint64_t a = pt_cuda_alloc(1 << 20);
	ck_assert_uint_ne(a, 0);
	pt_cuda_free(a);
	long allocs = fake->allocs;
	uint64_t b = pt_cuda_alloc(800 << 10);   /* fits the kept block, at least half of it */
	ck_assert_uint_eq(b, a);
	ck_assert_int_eq(fake->allocs, allocs);
	uint64_t c = pt_cuda_alloc(300 << 10);   /* less than half: a block of its own */
	ck_assert_uint_ne(c, a);
	pt_cuda_free(b);
	pt_cuda_free(c);
	pt_cuda_release();
	ck_assert_int_eq(fake->live, 0);
	fake->mem_limit = 1 << 20;
	ck_assert_uint_eq(pt_cuda_alloc(2 << 20), 0);
	ck_assert_int_eq(pt_rt_take_error(), PT_ERR_NOMEM);
	ck_assert_ptr_nonnull(strstr(pt_rt_error_detail(), "2097152 bytes of device memory could not be allocated: "
		"CUDA_ERROR_OUT_OF_MEMORY (out of memory)"));
	fake->mem_limit = (size_t)1 << 40;
}
END_TEST

START_TEST(launch_failures_have_their_messages)
{
	void *mod = NULL, *fn = NULL, *params[1] = { NULL };
	/* past 48 KiB the kernel opts in, once */
	ck_assert_int_eq(pt_cuda_launch(".version 8.0", &mod, "k_gpu0", &fn, 7, 32, 8, 64 << 10, params), 0);
	ck_assert_int_eq(fake->attributes_set, 1);
	ck_assert_uint_eq(fake->last_shared, 64 << 10);
	ck_assert_uint_eq(fake->last_blocks, 7);
	ck_assert_uint_eq(fake->last_threads, 256);
	ck_assert_str_eq(fake->last_kernel, "k_gpu0");
	ck_assert_int_eq(pt_cuda_launch(".version 8.0", &mod, "k_gpu0", &fn, 7, 32, 8, 64 << 10, params), 0);
	ck_assert_int_eq(fake->attributes_set, 1);
	ck_assert_int_eq(fake->modules_loaded, 1);
	/* the driver refuses the launch */
	fake->launch_error = 1;
	void *fn2 = NULL;
	ck_assert_int_eq(pt_cuda_launch(".version 8.0", &mod, "k_gpu1", &fn2, 7, 32, 8, 0, params), PT_ERR_DEVICE);
	ck_assert_int_eq(pt_rt_take_error(), PT_ERR_DEVICE);
	ck_assert_ptr_nonnull(strstr(pt_rt_error_detail(), "kernel k_gpu1 (7 blocks of 32 x 8 threads, 0 bytes of shared "
		"memory) could not be launched: CUDA_ERROR_INVALID_VALUE"));
	fake->launch_error = 0;
	/* PTX the driver refuses, with its log */
	void *mod2 = NULL, *fn3 = NULL;
	ck_assert_int_eq(pt_cuda_launch("FAIL", &mod2, "k_gpu2", &fn3, 1, 32, 1, 0, params), PT_ERR_DEVICE);
	ck_assert_int_eq(pt_rt_take_error(), PT_ERR_DEVICE);
	ck_assert_ptr_nonnull(strstr(pt_rt_error_detail(), "the driver refused the kernels' PTX: fake: bad ptx: "
		"CUDA_ERROR_INVALID_PTX"));
	/* a run-time check in a kernel: its code, once (the flag is cleared) */
	fake->pt_error = PT_ERR_READ;
	ck_assert_int_eq(pt_cuda_finish(&mod), PT_ERR_READ);
	ck_assert_int_eq(pt_rt_take_error(), PT_ERR_READ);
	ck_assert_int_eq(fake->pt_error, 0);
	ck_assert_int_eq(pt_cuda_finish(&mod), 0);
	/* a kernel that faulted */
	fake->sync_error = 700;
	ck_assert_int_eq(pt_cuda_finish(&mod), PT_ERR_DEVICE);
	ck_assert_int_eq(pt_rt_take_error(), PT_ERR_DEVICE);
	ck_assert_ptr_nonnull(strstr(pt_rt_error_detail(), "a kernel failed on the device (the context cannot be used "
		"again): CUDA_ERROR_ILLEGAL_ADDRESS"));
	fake->sync_error = 0;
}
END_TEST

/* apps/APP.pipe parsed into *p and compiled for the CUDA target (opt). */
static pt_program *compile_app(pt_ctx *ctx, const char *app, pt_opt_level opt, pt_pipeline **p)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s.pipe", APPS_DIR, app);
	*p = pt_parse_file(ctx, path);
	ck_assert_msg(*p != NULL, "%s", pt_ctx_diagnostics(ctx));
	pt_options o = { .opt_level = opt, .backend = PT_BACKEND_CUDA };
	pt_program *prog = pt_compile(ctx, *p, &o);
	ck_assert_msg(prog != NULL, "%s", pt_ctx_diagnostics(ctx));
	return prog;
}

/* blur at 37 x 29, compiled for the CUDA target (opt), run on the fake:
 * returns the call's code; *out is its output. */
static int run_blur(pt_opt_level opt, pt_buffer *in, pt_buffer *out, bool resident)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p;
	pt_program *prog = compile_app(ctx, "blur", opt, &p);
	int64_t ip[2] = { 37, 29 }, e_in[2] = { 39, 31 }, e_out[2] = { 37, 29 };
	double fp[2] = { 0, 0 };
	ck_assert_int_eq(pt_buffer_alloc(in, PT_U16, 2, e_in), PT_OK);
	ck_assert_int_eq(pt_buffer_alloc(out, PT_U16, 2, e_out), PT_OK);
	fill_bytes(in);
	if (resident) {
		ck_assert_int_eq(pt_cuda_buffer_upload(in), PT_OK);
		ck_assert_int_eq(pt_cuda_buffer_upload(out), PT_OK);
	}
	const pt_buffer *inputs[] = { in };
	pt_buffer *outputs[] = { out };
	int rc = pt_program_run(prog, ip, fp, inputs, outputs);
	pt_program_free(prog);
	pt_ctx_free(ctx);
	return rc;
}

/* Harris at R x C (its output (R + 2) x (C + 2), defined on the interior
 * box [2, R - 1] x [2, C - 1]) from host buffers, its output filled with
 * a pattern first and compared with it after, outside the box. */
static void run_harris(int64_t R, int64_t C, size_t *in_bytes, bool *border_kept)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p;
	pt_program *prog = compile_app(ctx, "harris", PT_OPT_GROUPED, &p);
	int64_t ip[2] = { R, C }, ext[2] = { R + 2, C + 2 };
	double fp[2] = { 0, 0 };
	pt_buffer in, out;
	ck_assert_int_eq(pt_buffer_alloc(&in, PT_F32, 2, ext), PT_OK);
	ck_assert_int_eq(pt_buffer_alloc(&out, PT_F32, 2, ext), PT_OK);
	fill_bytes(&in);
	fill_bytes(&out);
	size_t n = (size_t)(ext[0] * ext[1]) * 4, before = fake->bytes_in;
	float *was = malloc(n);
	memcpy(was, out.data, n);
	const pt_buffer *inputs[] = { &in };
	pt_buffer *outputs[] = { &out };
	ck_assert_int_eq(pt_program_run(prog, ip, fp, inputs, outputs), 0);
	*in_bytes = fake->bytes_in - before;
	*border_kept = true;
	for (int64_t x = 0; x < ext[0]; x++)
		for (int64_t y = 0; y < ext[1]; y++)
			if (x < 2 || x > R - 1 || y < 2 || y > C - 1)
				*border_kept = *border_kept && !memcmp(&was[x * ext[1] + y], (float *)out.data + x * ext[1] + y, 4);
	free(was);
	pt_buffer_free(&in);
	pt_buffer_free(&out);
	pt_program_free(prog);
	pt_ctx_free(ctx);
}

/* An output defined on a box (harris's interior) is not copied in: the
 * elements outside the box keep the caller's values on the host; where
 * more than a quarter is outside, it is copied in as before. */
START_TEST(an_output_defined_on_a_box_is_not_copied_in)
{
	size_t in_bytes;
	bool kept;
	setenv("PT_CUDA_STREAM", "off", 1);   /* copied whole */
	run_harris(61, 45, &in_bytes, &kept);
	ck_assert_uint_eq(in_bytes, 63 * 47 * 4);   /* the input only */
	ck_assert(kept);
	run_harris(5, 6, &in_bytes, &kept);
	unsetenv("PT_CUDA_STREAM");
	ck_assert_uint_eq(in_bytes, 2 * 7 * 8 * 4);   /* the output too */
	ck_assert(kept);
	pt_cuda_release();
	ck_assert_int_eq(fake->live, 0);
}
END_TEST

/* Streamed copies (docs/cuda.md): harris (one tiled kernel) at 61 x 45
 * launches chunk by chunk on a stream, each chunk's first block after
 * the last one's, and copies its boxes in 2-D copies: of the input at
 * least all of it (the chunks' rows overlap by the stencil's reach), of
 * the output exactly its interior (the box each chunk writes), the
 * border left as the caller had it, nothing copied otherwise but the
 * kernels' error flag. */
START_TEST(one_kernel_streams_its_copies_in_chunks)
{
	long launches = fake->stream_launches;
	size_t in = fake->bytes_in, out = fake->bytes_out, in2 = fake->bytes_2d_in, out2 = fake->bytes_2d_out;
	size_t in_bytes;
	bool kept;
	run_harris(61, 45, &in_bytes, &kept);
	ck_assert(kept);
	long n = fake->stream_launches - launches;
	ck_assert_int_ge(n, 2);
	ck_assert_int_le(n, 8);
	ck_assert_int_eq(fake->first_blocks[launches], 0);
	for (long k = launches + 1; k < launches + n && k < 16; k++)
		ck_assert_int_gt(fake->first_blocks[k], fake->first_blocks[k - 1]);
	ck_assert_uint_eq(fake->bytes_in - in, 0);
	ck_assert_uint_eq(fake->bytes_out - out, 4);   /* the error flag */
	ck_assert_uint_eq(fake->bytes_2d_out - out2, 59 * 43 * 4);
	ck_assert_uint_ge(fake->bytes_2d_in - in2, 63 * 47 * 4);
	ck_assert_uint_lt(fake->bytes_2d_in - in2, 2 * 63 * 47 * 4);
	pt_cuda_release();
	ck_assert_int_eq(fake->live, 0);
}
END_TEST

/* Camera pipe (the device model's fusion): its lookup tables' kernels
 * launch as they come, on the default stream, and then its one fused
 * kernel streams, after a synchronization that waits for them; no
 * whole copy is made but the error flag's, the raw image goes up in
 * 2-D boxes (what the pipeline reads of it, not its margins), and the
 * whole output comes back. */
START_TEST(the_last_kernel_streams_after_the_others)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p;
	pt_program *prog = compile_app(ctx, "camera_pipe", PT_OPT_GROUPED, &p);
	pt_interp *in = pt_interp_new(ctx, p);
	ck_assert_int_eq(pt_interp_set_param(in, "R", 198), 0);
	ck_assert_int_eq(pt_interp_set_param(in, "C", 262), 0);
	ck_assert_int_eq(pt_interp_infer_params(in), 0);
	int64_t ip[16] = { 0 }, iext[PT_MAX_DIMS], lo[PT_MAX_DIMS], oext[PT_MAX_DIMS];
	double fp[16] = { 0 };
	for (int q = 0; q < pt_pipeline_param_count(p) && q < 16; q++) {
		pt_interp_get_param(in, pt_pipeline_param_name(p, q), &fp[q]);
		ip[q] = (int64_t)fp[q];
	}
	ck_assert_int_eq(pt_pipeline_image_count(p), 1);
	ck_assert_int_eq(pt_interp_image_extents(in, "img", iext), 0);
	pt_buffer raw, out;
	ck_assert_int_eq(pt_buffer_alloc(&raw, PT_U16, 2, iext), PT_OK);
	int nd = pt_pipeline_output_box(p, 0, ip, lo, oext);
	ck_assert_int_eq(pt_buffer_alloc(&out, PT_U8, nd, oext), PT_OK);
	fill_bytes(&raw);
	long launches = fake->launches, streamed = fake->stream_launches;
	int syncs = fake->syncs;
	size_t bytes_in = fake->bytes_in, bytes_out = fake->bytes_out, in2 = fake->bytes_2d_in, out2 = fake->bytes_2d_out;
	const pt_buffer *inputs[] = { &raw };
	pt_buffer *outputs[] = { &out };
	ck_assert_int_eq(pt_program_run(prog, ip, fp, inputs, outputs), 0);
	long n = fake->stream_launches - streamed;
	ck_assert_int_ge(n, 2);
	ck_assert_int_le(n, 8);
	/* the 8 kernels of the tables (explain: gpu0 .. gpu7), all before */
	ck_assert_int_eq(fake->launches_before_stream - (int)launches - (int)n + 1, 8);
	ck_assert_int_gt(fake->syncs_before_stream, syncs);
	ck_assert_uint_eq(fake->bytes_in - bytes_in, 0);
	ck_assert_uint_eq(fake->bytes_out - bytes_out, 4);   /* the error flag */
	size_t raw_bytes = (size_t)pt_buffer_count(&raw) * pt_type_size(raw.type);
	/* the raw image's rows and columns the pipeline reads */
	ck_assert_uint_gt(fake->bytes_2d_in - in2, raw_bytes / 2);
	ck_assert_uint_lt(fake->bytes_2d_in - in2, raw_bytes);
	ck_assert_uint_eq(fake->bytes_2d_out - out2, (size_t)pt_buffer_count(&out) * pt_type_size(out.type));
	pt_buffer_free(&raw);
	pt_buffer_free(&out);
	pt_interp_free(in);
	pt_program_free(prog);
	pt_ctx_free(ctx);
	pt_cuda_release();
	ck_assert_int_eq(fake->live, 0);
}
END_TEST

/* A size-prefixed module image for pt_cuda_cubin. */
static const uint8_t *cubin_image(uint8_t *img, const char *bytes)
{
	size_t n = strlen(bytes) + 1;
	for (int i = 0; i < 8; i++)
		img[i] = (uint8_t)((uint64_t)n >> (8 * i));
	memcpy(img + 8, bytes, n);
	return img;
}

START_TEST(a_cubin_is_loaded_where_the_gpu_takes_it)
{
	void *mod = NULL, *fn = NULL, *params[1] = { NULL };
	uint8_t img[64] = { 0 };
	/* no cubin (size 0): the launch loads the PTX */
	pt_cuda_cubin(&mod, img);
	ck_assert_ptr_null(mod);
	ck_assert_int_eq(fake->modules_loaded, 0);
	/* a cubin the GPU runs: loaded once, before the launch, which uses it */
	pt_cuda_cubin(&mod, cubin_image(img, "\177ELF cubin"));
	ck_assert_ptr_nonnull(mod);
	ck_assert_str_eq(fake->last_image, "\177ELF cubin");
	ck_assert_int_eq(pt_cuda_launch(".version 8.0", &mod, "k_gpu0", &fn, 3, 32, 8, 0, params), 0);
	pt_cuda_cubin(&mod, img);
	ck_assert_int_eq(fake->modules_loaded, 1);
	ck_assert_str_eq(fake->last_image, "\177ELF cubin");
	/* one the driver refuses (another GPU): the PTX is loaded instead */
	void *mod2 = NULL, *fn2 = NULL;
	pt_cuda_cubin(&mod2, cubin_image(img, "\177ELF REFUSE"));
	ck_assert_ptr_null(mod2);
	ck_assert_int_eq(pt_rt_take_error(), PT_OK);
	ck_assert_int_eq(pt_cuda_launch(".version 8.0", &mod2, "k_gpu1", &fn2, 3, 32, 8, 0, params), 0);
	ck_assert_str_eq(fake->last_image, ".version 8.0");
	ck_assert_int_eq(fake->modules_loaded, 3);
	/* PT_CUDA_IMAGE=ptx: the cubin is left alone */
	void *mod3 = NULL;
	setenv("PT_CUDA_IMAGE", "ptx", 1);
	pt_cuda_cubin(&mod3, cubin_image(img, "\177ELF cubin"));
	unsetenv("PT_CUDA_IMAGE");
	ck_assert_ptr_null(mod3);
	ck_assert_int_eq(fake->modules_loaded, 3);
}
END_TEST

/* PT_CUDA_PROFILE: each launch timed between two events (the fake's
 * timer says 0.25 ms), by kernel, once the run's kernels finished:
 * blur at -O0 is two kernels of one launch each. */
START_TEST(launches_are_profiled_by_kernel)
{
	setenv("PT_CUDA_PROFILE", "1", 1);
	pt_buffer in, out;
	for (int run = 0; run < 2; run++) {
		ck_assert_int_eq(run_blur(PT_OPT_NAIVE, &in, &out, true), 0);
		pt_buffer_free(&in);
		pt_buffer_free(&out);
	}
	char text[2000] = "";
	FILE *f = fmemopen(text, sizeof(text) - 1, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(pt_cuda_profile_report(f), 2);
	fclose(f);
	ck_assert_msg(strstr(text, "CUDA profile (PT_CUDA_PROFILE): device time by kernel, 1.000 ms in all\n"), "%s", text);
	ck_assert_msg(strstr(text, "  pt_pipeline_gpu0_k0 ") && strstr(text, "  pt_pipeline_gpu1_k1 "), "%s", text);
	ck_assert_msg(strstr(text, "        2        0.500         250.00\n"), "%s", text);
	unsetenv("PT_CUDA_PROFILE");
	pt_cuda_release();
}
END_TEST

START_TEST(a_compiled_pipeline_runs_its_host_side)
{
	for (int opt = 0; opt < 2; opt++) {
		pt_buffer in, out;
		int launches = fake->launches, syncs = fake->syncs;
		size_t bytes_in = fake->bytes_in, bytes_out = fake->bytes_out;
		size_t in2 = fake->bytes_2d_in, out2 = fake->bytes_2d_out;
		ck_assert_int_eq(run_blur(opt ? PT_OPT_GROUPED : PT_OPT_NAIVE, &in, &out, false), 0);
		ck_assert_int_eq(fake->syncs - syncs, 1);
		/* the input in, the output (blur defines every point) out only:
		 * whole (-O0: two kernels), or streamed (-O1: one kernel, its
		 * two tiles of 32 rows in two chunks at this size, each with
		 * its rows of the input and the two more its stencil reads) */
		int64_t rows_in = opt ? 39 + 2 : 39;
		ck_assert_int_eq(fake->launches - launches, 2);
		ck_assert_uint_eq(fake->bytes_in - bytes_in + fake->bytes_2d_in - in2, rows_in * 31 * 2);
		ck_assert_uint_eq(fake->bytes_out - bytes_out + fake->bytes_2d_out - out2, 37 * 29 * 2 + 4);   /* + the error flag */
		ck_assert_uint_eq(fake->bytes_2d_in - in2, opt ? rows_in * 31 * 2 : 0);
		ck_assert_uint_eq(out.flags, 0);
		pt_buffer_free(&in);
		pt_buffer_free(&out);
	}
	pt_cuda_release();
	ck_assert_int_eq(fake->live, 0);
}
END_TEST

START_TEST(resident_buffers_stay_on_the_device)
{
	pt_buffer in, out;
	size_t bytes_in = fake->bytes_in;
	ck_assert_int_eq(run_blur(PT_OPT_GROUPED, &in, &out, true), 0);
	/* only the uploads before the call */
	ck_assert_uint_eq(fake->bytes_in - bytes_in, 39 * 31 * 2 + 37 * 29 * 2);
	ck_assert_uint_eq(out.flags, PT_BUF_DEVICE_DIRTY);
	ck_assert_uint_eq(in.flags, 0);
	/* the CPU target refuses an output whose newer copy is on the device */
	pt_cuda_buffer_release(&in);
	pt_cuda_buffer_release(&out);
	pt_buffer_free(&in);
	pt_buffer_free(&out);
}
END_TEST

START_TEST(a_kernel_check_fails_the_call)
{
	pt_buffer in, out;
	fake->pt_error = PT_ERR_UNDEFINED;   /* as if a kernel had stored it */
	ck_assert_int_eq(run_blur(PT_OPT_GROUPED, &in, &out, false), PT_ERR_UNDEFINED);
	ck_assert_int_eq(fake->pt_error, 0);
	pt_buffer_free(&in);
	pt_buffer_free(&out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cuda_fake");
	TCase *tc = tcase_create("fake_driver");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, copies_arrive_whole_and_staged);
	tcase_add_test(tc, negative_strides_span_the_right_bytes);
	tcase_add_test(tc, a_newer_host_copy_goes_up_unless_overwritten);
	tcase_add_test(tc, the_pool_reuses_and_out_of_memory_is_nomem);
	tcase_add_test(tc, launch_failures_have_their_messages);
	tcase_add_test(tc, a_cubin_is_loaded_where_the_gpu_takes_it);
	tcase_add_test(tc, an_output_defined_on_a_box_is_not_copied_in);
	tcase_add_test(tc, one_kernel_streams_its_copies_in_chunks);
	tcase_add_test(tc, the_last_kernel_streams_after_the_others);
	tcase_add_test(tc, a_compiled_pipeline_runs_its_host_side);
	tcase_add_test(tc, launches_are_profiled_by_kernel);
	tcase_add_test(tc, resident_buffers_stay_on_the_device);
	tcase_add_test(tc, a_kernel_check_fails_the_call);
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
