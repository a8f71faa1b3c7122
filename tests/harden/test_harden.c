/* test_harden.c: compiled code through its ABI (pt_program_run, the JIT
 * of NAME_argv) given sizes, params and buffers at the edges: each test
 * reproduces a defect of issue 12 and asserts an error code instead of a
 * fault, a wrong result or a write past a buffer. */
#include <check.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polytile.h"
#include "run_suite.h"

/* A 3-D intermediate of (R+1)^3 floats: at R = 4194303 that is 2^66
 * elements, 0 bytes after wrapping in i64. */
static const char *ovf3_src =
	"pipeline ovf\n"
	"param R : int = 4\n"
	"image I : float [2]\n"
	"func f(x : 0 .. R, y : 0 .. R, z : 0 .. R) : float = I(0) + float(x)\n"
	"func o(i : 0 .. 0) : float = f(0, 0, 0)\n"
	"output o\n";

static const char *ovf2_src =
	"pipeline ovf2\n"
	"param R : int = 4\n"
	"param C : int = 4\n"
	"image I : float [2]\n"
	"func f(x : 0 .. R, y : 0 .. C) : float = I(0) + float(x)\n"
	"func o(i : 0 .. 0) : float = f(0, 0)\n"
	"output o\n";

/* Compiles src with opt, runs it with int params ip and float params fp
 * on a 1-D input of extent ie and a 1-D output of extent oe; returns the
 * code and the output's first element in *o0. */
static int run_1d(const char *src, const pt_options *opt, const int64_t *ip, const double *fp,
	int64_t ie, int64_t oe, float *o0)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_string(ctx, "t.pipe", src);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	pt_program *prog = pt_compile(ctx, p, opt);
	ck_assert_msg(prog != NULL, "%s", pt_ctx_diagnostics(ctx));
	pt_buffer in, out;
	ck_assert_int_eq(pt_buffer_alloc(&in, PT_F32, 1, &ie), PT_OK);
	ck_assert_int_eq(pt_buffer_alloc(&out, PT_F32, 1, &oe), PT_OK);
	((float *)out.data)[0] = 42;
	const pt_buffer *ins[1] = { &in };
	pt_buffer *outs[1] = { &out };
	int r = pt_program_run(prog, ip, fp, ins, outs);
	if (o0)
		*o0 = ((float *)out.data)[0];
	pt_buffer_free(&in);
	pt_buffer_free(&out);
	pt_program_free(prog);
	pt_ctx_free(ctx);
	return r;
}

/* Buffers with a device copy (ABI 3, pt_runtime.h): the CPU target
 * refuses one whose device copy is newer (PT_ERR_DEVICE, nothing
 * written), at -O0 and -O1; it sets PT_BUF_HOST_DIRTY on the outputs it
 * wrote and leaves the inputs' flags, device and device_id alone; the
 * interpreter refuses such an input with a message. */
START_TEST(device_dirty_buffers_are_refused_on_the_host)
{
	static const char *src =
		"pipeline dev\nparam N : int = 64\nimage I : float [N]\n"
		"func f(x : 1 .. N-2) : float = I(x-1) + I(x) + I(x+1)\n"
		"func o(x : 2 .. N-3) : float = f(x-1) * f(x+1)\noutput o\n";
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_string(ctx, "dev.pipe", src);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	for (int level = 0; level < 2; level++) {
		pt_options o = { .opt_level = level ? PT_OPT_NAIVE : PT_OPT_GROUPED, .ntile = 1, .tile = { 16 } };
		pt_program *prog = pt_compile(ctx, p, &o);
		ck_assert_msg(prog != NULL, "%s", pt_ctx_diagnostics(ctx));
		int64_t ie = 64, oe = 60, ip[1] = { 64 };
		double fp[1] = { 64 };
		pt_buffer in, out;
		ck_assert_int_eq(pt_buffer_alloc(&in, PT_F32, 1, &ie), PT_OK);
		ck_assert_int_eq(pt_buffer_alloc(&out, PT_F32, 1, &oe), PT_OK);
		ck_assert_int_eq(in.flags | out.flags, 0);
		for (int i = 0; i < 64; i++)
			((float *)in.data)[i] = (float)i;
		((float *)out.data)[0] = 42;
		const pt_buffer *ins[1] = { &in };
		pt_buffer *outs[1] = { &out };
		in.flags = PT_BUF_DEVICE_DIRTY;
		in.device = 0x1000;
		ck_assert_int_eq(pt_program_run(prog, ip, fp, ins, outs), PT_ERR_DEVICE);
		ck_assert_float_eq(((float *)out.data)[0], 42);
		ck_assert_int_eq(out.flags, 0);
		in.flags = PT_BUF_HOST_DIRTY;   /* host newer: fine */
		out.flags = PT_BUF_DEVICE_DIRTY;
		ck_assert_int_eq(pt_program_run(prog, ip, fp, ins, outs), PT_ERR_DEVICE);
		ck_assert_float_eq(((float *)out.data)[0], 42);
		out.flags = 0;
		out.device_id = 3;
		ck_assert_int_eq(pt_program_run(prog, ip, fp, ins, outs), PT_OK);
		ck_assert_float_eq(((float *)out.data)[0], (0 + 1 + 2) * (2 + 3 + 4));
		ck_assert_int_eq(out.flags, PT_BUF_HOST_DIRTY);
		ck_assert_int_eq(out.device_id, 3);
		ck_assert_int_eq(in.flags, PT_BUF_HOST_DIRTY);
		ck_assert_uint_eq(in.device, 0x1000);
		pt_buffer_free(&out);
		if (level == 1) {
			in.flags = PT_BUF_DEVICE_DIRTY;
			pt_interp *it = pt_interp_new(ctx, p);
			ck_assert_int_eq(pt_interp_set_input(it, "I", &in), -1);
			ck_assert_msg(strstr(pt_ctx_diagnostics(ctx), "newer copy is in device memory"), "%s",
				pt_ctx_diagnostics(ctx));
			pt_interp_free(it);
		}
		pt_buffer_free(&in);
		pt_program_free(prog);
	}
	ck_assert_ptr_nonnull(strstr(pt_error_name(PT_ERR_DEVICE), "device memory"));
	pt_ctx_free(ctx);
}
END_TEST

/* The pipeline's name becomes the function's where the C API names no
 * other (pt_emit_llvm): a library's name is refused there as with -o,
 * and through pt_compile_files (issue 36). */
START_TEST(library_names_are_refused_through_the_api)
{
	const char *bad[] = { "malloc", "printf", "omp_get_num_threads", "assert", "stdio", "sqrtf" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char src[300];
		snprintf(src, sizeof(src), "pipeline %s\nparam N : int = 8\nfunc f(x : 0 .. N-1) : int = x\noutput f\n", bad[i]);
		pt_ctx *ctx = pt_ctx_new();
		pt_pipeline *p = pt_parse_string(ctx, "n.pipe", src);
		ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
		ck_assert_ptr_nonnull(pt_function_name_reserved(bad[i]));
		char *ir = pt_emit_llvm(ctx, p, NULL, NULL);
		ck_assert_msg(ir == NULL && strstr(pt_ctx_diagnostics(ctx), "pipeline"), "%s: %s", bad[i], pt_ctx_diagnostics(ctx));
		ck_assert_int_eq(pt_compile_files(ctx, p, NULL, bad[i]), -1);
		pt_ctx_free(ctx);
	}
	ck_assert_ptr_null(pt_function_name_reserved("blur"));
	ck_assert_ptr_null(pt_function_name_reserved("my_malloc"));
}
END_TEST

START_TEST(size_overflow_3d_is_nomem)
{
	pt_options opt = { .no_inline = true };
	int64_t ip[1] = { 4194303 };
	double fp[1] = { 0 };
	float o0;
	ck_assert_int_eq(run_1d(ovf3_src, &opt, ip, fp, 2, 1, &o0), PT_ERR_NOMEM);
	ck_assert_float_eq(o0, 42);   /* nothing written */
	opt.no_inline = false;
	ck_assert_int_eq(run_1d(ovf3_src, &opt, ip, fp, 2, 1, NULL), PT_ERR_NOMEM);
	ip[0] = 4;   /* and it still runs where it fits */
	ck_assert_int_eq(run_1d(ovf3_src, &opt, ip, fp, 2, 1, &o0), 0);
}
END_TEST

START_TEST(size_overflow_2d_is_nomem)
{
	pt_options opt = { .no_inline = true };
	int64_t ip[2] = { 2147483646, 2147483646 };
	double fp[2] = { 0 };
	ck_assert_int_eq(run_1d(ovf2_src, &opt, ip, fp, 2, 1, NULL), PT_ERR_NOMEM);
}
END_TEST

/* -O1 sizes scratchpads from the same extents. */
START_TEST(size_overflow_grouped_is_nomem)
{
	pt_options opt = { .no_inline = true, .opt_level = PT_OPT_GROUPED };
	int64_t ip[1] = { 4194303 };
	double fp[1] = { 0 };
	ck_assert_int_eq(run_1d(ovf3_src, &opt, ip, fp, 2, 1, NULL), PT_ERR_NOMEM);
}
END_TEST

/* A domain bound that overflows i64 while computing hi - lo + 1. */
START_TEST(extent_overflow_is_param)
{
	static const char *src =
		"pipeline ext\n"
		"param N : long = 4\n"
		"image I : float [2]\n"
		"func f(x : -N .. N) : float = I(0)\n"
		"func o(i : 0 .. 0) : float = f(0)\n"
		"output o\n";
	pt_options opt = { .no_inline = true };
	int64_t ip[1] = { INT64_MAX / 2 + 7 };
	double fp[1] = { 0 };
	ck_assert_int_eq(run_1d(src, &opt, ip, fp, 2, 1, NULL), PT_ERR_PARAM);
}
END_TEST

/* The caller's strides are free, but an element whose offset does not
 * fit in i64 would be addressed by a wrapped offset. */
START_TEST(caller_stride_overflow_is_stride)
{
	static const char *src =
		"pipeline st\n"
		"param N : int = 4\n"
		"image I : float [N, N]\n"
		"func o(x : 0 .. N-1, y : 0 .. N-1) : float = I(x, y)\n"
		"output o\n";
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_string(ctx, "t.pipe", src);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	pt_program *prog = pt_compile(ctx, p, NULL);
	ck_assert_msg(prog != NULL, "%s", pt_ctx_diagnostics(ctx));
	int64_t e[2] = { 4, 4 };
	pt_buffer in, out;
	ck_assert_int_eq(pt_buffer_alloc(&in, PT_F32, 2, e), PT_OK);
	ck_assert_int_eq(pt_buffer_alloc(&out, PT_F32, 2, e), PT_OK);
	const pt_buffer *ins[1] = { &in };
	pt_buffer *outs[1] = { &out };
	int64_t ip[1] = { 4 };
	double fp[1] = { 0 };
	ck_assert_int_eq(pt_program_run(prog, ip, fp, ins, outs), 0);
	in.stride[0] = INT64_MAX / 3;
	ck_assert_int_eq(pt_program_run(prog, ip, fp, ins, outs), PT_ERR_STRIDE);
	in.stride[0] = INT64_MIN;
	ck_assert_int_eq(pt_program_run(prog, ip, fp, ins, outs), PT_ERR_STRIDE);
	in.stride[0] = -4;   /* negative strides stay allowed */
	in.data = (float *)in.data + 12;
	ck_assert_int_eq(pt_program_run(prog, ip, fp, ins, outs), 0);
	in.data = (float *)in.data - 12;
	pt_buffer_free(&in);
	pt_buffer_free(&out);
	pt_program_free(prog);
	pt_ctx_free(ctx);
}
END_TEST

/* Data not at a multiple of its element's size is refused before
 * anything is written; a byte buffer may start anywhere. */
START_TEST(misaligned_data_is_align)
{
	static const char *src =
		"pipeline al\n"
		"param N : int = 4\n"
		"image I : double [N, N]\n"
		"image B : uchar [N, N]\n"
		"func o(x : 0 .. N-1, y : 0 .. N-1) : double = I(x, y) + B(x, y)\n"
		"output o\n";
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_string(ctx, "al.pipe", src);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	for (int level = 0; level < 2; level++) {
		pt_options opt = { .opt_level = level ? PT_OPT_GROUPED : PT_OPT_NAIVE };
		pt_program *prog = pt_compile(ctx, p, &opt);
		ck_assert_msg(prog != NULL, "%s", pt_ctx_diagnostics(ctx));
		int64_t e[2] = { 4, 4 }, ip[1] = { 4 };
		double fp[1] = { 0 };
		pt_buffer in, b, out;
		ck_assert_int_eq(pt_buffer_alloc(&in, PT_F64, 2, e), PT_OK);
		ck_assert_int_eq(pt_buffer_alloc(&b, PT_U8, 2, e), PT_OK);
		ck_assert_int_eq(pt_buffer_alloc(&out, PT_F64, 2, e), PT_OK);
		const pt_buffer *ins[2] = { &in, &b };
		pt_buffer *outs[1] = { &out };
		/* room for the shifted copies */
		char *mem = aligned_alloc(64, 256), *bmem = aligned_alloc(64, 64), *omem = aligned_alloc(64, 256);
		memset(mem, 0, 256);
		memset(bmem, 0, 64);
		memset(omem, 0x5a, 256);
		void *own_in = in.data, *own_b = b.data, *own_out = out.data;
		in.data = mem + 4;      /* doubles 4 bytes into an allocation */
		ck_assert_int_eq(pt_program_run(prog, ip, fp, ins, outs), PT_ERR_ALIGN);
		in.data = mem + 8;
		out.data = omem + 4;
		ck_assert_int_eq(pt_program_run(prog, ip, fp, ins, outs), PT_ERR_ALIGN);
		for (int i = 0; i < 256; i++)
			ck_assert_int_eq((unsigned char)omem[i], 0x5a);   /* nothing written */
		out.data = omem + 8;
		b.data = bmem + 3;      /* bytes: any address */
		ck_assert_int_eq(pt_program_run(prog, ip, fp, ins, outs), 0);
		in.data = own_in;
		b.data = own_b;
		out.data = own_out;
		free(mem);
		free(bmem);
		free(omem);
		pt_buffer_free(&in);
		pt_buffer_free(&b);
		pt_buffer_free(&out);
		pt_program_free(prog);
	}
	ck_assert_ptr_nonnull(strstr(pt_error_name(PT_ERR_ALIGN), "aligned"));
	pt_ctx_free(ctx);
}
END_TEST

static const char *copy_src =
	"pipeline cp\n"
	"param N : int = 4\n"
	"image I : float [N]\n"
	"func o(x : 0 .. N-1) : float = I(x)\n"
	"output o\n";

/* NAME_argv takes int params as i64: one past an i32 param's range is
 * refused, not truncated (2^32 + 4 ran as 4). */
START_TEST(argv_refuses_param_past_its_type)
{
	int64_t ip[1] = { 4294967296LL + 4 };
	double fp[1] = { 0 };
	float o0;
	ck_assert_int_eq(run_1d(copy_src, NULL, ip, fp, 4, 4, &o0), PT_ERR_PARAM);
	ck_assert_float_eq(o0, 42);
	ip[0] = -4294967296LL + 4;
	ck_assert_int_eq(run_1d(copy_src, NULL, ip, fp, 4, 4, NULL), PT_ERR_PARAM);
	ip[0] = 4;
	ck_assert_int_eq(run_1d(copy_src, NULL, ip, fp, 4, 4, NULL), 0);
}
END_TEST

/* NAME_argv(NULL, ...) returns PT_ERR_NULL instead of reading through
 * the null array. */
START_TEST(argv_refuses_null_arrays)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_string(ctx, "t.pipe", copy_src);
	pt_program *prog = pt_compile(ctx, p, NULL);
	ck_assert_msg(prog != NULL, "%s", pt_ctx_diagnostics(ctx));
	int64_t e = 4, ip[1] = { 4 };
	double fp[1] = { 0 };
	pt_buffer in, out;
	ck_assert_int_eq(pt_buffer_alloc(&in, PT_F32, 1, &e), PT_OK);
	ck_assert_int_eq(pt_buffer_alloc(&out, PT_F32, 1, &e), PT_OK);
	const pt_buffer *ins[1] = { &in };
	pt_buffer *outs[1] = { &out };
	ck_assert_int_eq(pt_program_run(prog, NULL, fp, ins, outs), PT_ERR_NULL);
	ck_assert_int_eq(pt_program_run(prog, ip, fp, NULL, outs), PT_ERR_NULL);
	ck_assert_int_eq(pt_program_run(prog, ip, fp, ins, NULL), PT_ERR_NULL);
	/* no float params: their array is not read */
	ck_assert_int_eq(pt_program_run(prog, ip, NULL, ins, outs), 0);
	pt_buffer_free(&in);
	pt_buffer_free(&out);
	pt_program_free(prog);
	pt_ctx_free(ctx);
}
END_TEST

/* Inference range-checks what it finds, and says why it found nothing. */
START_TEST(inference_checks_range_and_says_why)
{
	static const char *src =
		"pipeline inf\n"
		"param N : int\n"
		"param C : int\n"
		"image I : u8 [N]\n"
		"image J : u8 [2*C+1]\n"
		"func o(x : 0 .. 0) : u8 = I(0) + J(0)\n"
		"output o\n";
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_string(ctx, "t.pipe", src);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	/* only extents are read: no data needed */
	pt_buffer bi = { .type = PT_U8, .ndim = 1, .extent = { 4294967296LL + 7 }, .stride = { 1 } };
	pt_buffer bj = { .type = PT_U8, .ndim = 1, .extent = { 7 }, .stride = { 1 } };
	const pt_buffer *ins[2] = { &bi, &bj };
	double v[2] = { 0 };
	bool known[2] = { false };
	ck_assert_int_eq(pt_infer_params(ctx, p, ins, v, known), -1);
	ck_assert_msg(strstr(pt_ctx_diagnostics(ctx), "param 'N' cannot be inferred from input 'I': its extent 4294967303"),
		"%s", pt_ctx_diagnostics(ctx));
	ck_assert_ptr_nonnull(strstr(pt_ctx_diagnostics(ctx), "past the range of i32"));
	pt_ctx_free(ctx);
	ctx = pt_ctx_new();
	p = pt_parse_string(ctx, "t.pipe", src);
	bi.extent[0] = 5;
	bj.extent[0] = 6;
	known[0] = known[1] = false;
	ck_assert_int_eq(pt_infer_params(ctx, p, ins, v, known), -1);
	ck_assert_msg(strstr(pt_ctx_diagnostics(ctx), "param 'C' cannot be inferred from input 'J': its extent 6 is not 2 * C + 1"),
		"%s", pt_ctx_diagnostics(ctx));
	ck_assert_ptr_null(strstr(pt_ctx_diagnostics(ctx), "has no value"));
	pt_ctx_free(ctx);
}
END_TEST

/* Reads through an index isl cannot represent are checked by compiled
 * code: I(x * x * 100000) faulted, I(x * x) read past I. */
START_TEST(unproven_reads_are_checked)
{
	static const char *sq =
		"pipeline sq\n"
		"param N : int = 4\n"
		"image I : float [N]\n"
		"func o(x : 0 .. N-1) : float = I(x * x * 100000)\n"
		"output o\n";
	static const char *sq2 =
		"pipeline sq2\n"
		"param N : int = 4\n"
		"image I : float [N]\n"
		"func o(x : 0 .. N-1) : float = I(x * x)\n"
		"output o\n";
	int64_t ip[1] = { 64 };
	double fp[1] = { 0 };
	ck_assert_int_eq(run_1d(sq, NULL, ip, fp, 64, 64, NULL), PT_ERR_READ);
	ck_assert_int_eq(run_1d(sq2, NULL, ip, fp, 64, 64, NULL), PT_ERR_READ);
	ip[0] = 1;   /* x = 0 only: in bounds */
	ck_assert_int_eq(run_1d(sq, NULL, ip, fp, 1, 1, NULL), 0);
	ck_assert_int_eq(run_1d(sq2, NULL, ip, fp, 1, 1, NULL), 0);
	/* and a later, good call is not failed by the earlier one */
	ck_assert_int_eq(run_1d(copy_src, NULL, ip, fp, 1, 1, NULL), 0);
}
END_TEST

/* Cases whose conditions read data and overlap: the interpreter's
 * run-time error is PT_ERR_CASES in compiled code (it took the first). */
START_TEST(overlapping_data_cases_are_detected)
{
	static const char *ov =
		"pipeline ov\n"
		"param N : int = 4\n"
		"image I : float [N]\n"
		"func o(x : 0 .. N-1) : float\n"
		"  | I(x) >= 0.0 -> 1.0\n"
		"  | I(x) >= 1.0 -> 2.0\n"
		"output o\n";
	int64_t ip[1] = { 4 };
	double fp[1] = { 0 };
	pt_options opt = { .no_inline = true };
	/* the input is zeroed: only the first case holds */
	ck_assert_int_eq(run_1d(ov, &opt, ip, fp, 4, 4, NULL), 0);
	static const char *ov2 =
		"pipeline ov2\n"
		"param N : int = 4\n"
		"image I : float [N]\n"
		"func o(x : 0 .. N-1) : float\n"
		"  | I(x) >= 0.0 -> 1.0\n"
		"  | I(x) <= 0.0 -> 2.0\n"
		"output o\n";
	ck_assert_int_eq(run_1d(ov2, &opt, ip, fp, 4, 4, NULL), PT_ERR_CASES);
}
END_TEST

/* One arithmetic for indices: I(x * 100000 / 100000) is I(x) for the
 * static check, the interpreter (it wrapped in i32: I(-21475) at
 * N = 30000) and compiled code. */
START_TEST(affine_indices_are_exact_everywhere)
{
	static const char *src =
		"pipeline dv\n"
		"param N : int = 4\n"
		"image I : float [N]\n"
		"func o(x : 0 .. N-1) : float = I(x * 100000 / 100000)\n"
		"output o\n";
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_string(ctx, "t.pipe", src);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	int64_t n = 30000;
	pt_buffer in;
	ck_assert_int_eq(pt_buffer_alloc(&in, PT_F32, 1, &n), PT_OK);
	for (int64_t i = 0; i < n; i++)
		((float *)in.data)[i] = (float)i;
	pt_interp *it = pt_interp_new(ctx, p);
	ck_assert_int_eq(pt_interp_set_param(it, "N", 30000), 0);
	ck_assert_int_eq(pt_interp_set_input(it, "I", &in), 0);
	ck_assert_msg(pt_interp_run(it) == 0, "%s", pt_ctx_diagnostics(ctx));
	const uint8_t *def;
	int64_t origin[PT_MAX_DIMS];
	const pt_buffer *r = pt_interp_result(it, "o", &def, origin);
	ck_assert_ptr_nonnull(r);
	ck_assert_float_eq(((const float *)r->data)[29999], 29999.0f);
	pt_interp_free(it);
	pt_buffer_free(&in);
	pt_ctx_free(ctx);
	int64_t ip[1] = { 30000 };
	double fp[1] = { 0 };
	ck_assert_int_eq(run_1d(src, NULL, ip, fp, 30000, 30000, NULL), 0);
}
END_TEST

/* Variables are i32: domains past that range are refused (the
 * interpreter wrote 2147483648.., compiled code -2147483648..). */
START_TEST(domains_past_i32_are_refused)
{
	pt_ctx *ctx = pt_ctx_new();
	ck_assert_ptr_null(pt_parse_string(ctx, "t.pipe",
		"pipeline big\n"
		"func f(x : 2147483645 .. 2147483650) : long = x\n"
		"output f\n"));
	ck_assert_ptr_nonnull(strstr(pt_ctx_diagnostics(ctx), "past the i32 range"));
	pt_ctx_free(ctx);
	static const char *src =
		"pipeline big2\n"
		"param N : long = 4\n"
		"image I : float [2]\n"
		"func o(x : N .. N + 5) : float = I(0) + float(x)\n"
		"output o\n";
	int64_t ip[1] = { 2147483645 };
	double fp[1] = { 0 };
	ck_assert_int_eq(run_1d(src, NULL, ip, fp, 2, 6, NULL), PT_ERR_PARAM);
	ip[0] = 2147483642;
	ck_assert_int_eq(run_1d(src, NULL, ip, fp, 2, 6, NULL), 0);
	ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_string(ctx, "t.pipe", src);
	pt_interp *it = pt_interp_new(ctx, p);
	int64_t two = 2;
	pt_buffer in;
	ck_assert_int_eq(pt_buffer_alloc(&in, PT_F32, 1, &two), PT_OK);
	ck_assert_int_eq(pt_interp_set_param(it, "N", 2147483645), 0);
	ck_assert_int_eq(pt_interp_set_input(it, "I", &in), 0);
	ck_assert_int_ne(pt_interp_run(it), 0);
	ck_assert_ptr_nonnull(strstr(pt_ctx_diagnostics(ctx), "past the range of its i32 variables"));
	pt_interp_free(it);
	pt_buffer_free(&in);
	pt_ctx_free(ctx);
}
END_TEST

/* A read of a point no case defines, where isl cannot decide it (the
 * condition is not affine): compiled code returned heap garbage (-7.66e36,
 * NaN); now PT_ERR_UNDEFINED, and 0 rather than memory contents. */
START_TEST(undecided_undefined_reads_are_detected)
{
	static const char *src =
		"pipeline und\n"
		"param N : int = 8\n"
		"image I : float [N]\n"
		"func f(x : 0 .. N-1) : float\n"
		"  | x * x < 4 -> I(x)\n"
		"func o(x : 0 .. N-1) : float = f(x) + 1.0\n"
		"output o\n";
	pt_options opt = { .no_inline = true };
	int64_t ip[1] = { 64 };
	double fp[1] = { 0 };
	ck_assert_int_eq(run_1d(src, &opt, ip, fp, 64, 64, NULL), PT_ERR_UNDEFINED);
	opt.no_inline = false;
	ck_assert_int_eq(run_1d(src, &opt, ip, fp, 64, 64, NULL), PT_ERR_UNDEFINED);
	ip[0] = 2;   /* x < 2: every point read is defined */
	opt.no_inline = true;
	ck_assert_int_eq(run_1d(src, &opt, ip, fp, 2, 2, NULL), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("harden");
	TCase *tc = tcase_create("sizes");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, size_overflow_3d_is_nomem);
	tcase_add_test(tc, size_overflow_2d_is_nomem);
	tcase_add_test(tc, size_overflow_grouped_is_nomem);
	tcase_add_test(tc, extent_overflow_is_param);
	tcase_add_test(tc, caller_stride_overflow_is_stride);
	tcase_add_test(tc, misaligned_data_is_align);
	suite_add_tcase(s, tc);
	tc = tcase_create("params");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, argv_refuses_param_past_its_type);
	tcase_add_test(tc, argv_refuses_null_arrays);
	tcase_add_test(tc, inference_checks_range_and_says_why);
	suite_add_tcase(s, tc);
	tc = tcase_create("reads");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, unproven_reads_are_checked);
	tcase_add_test(tc, overlapping_data_cases_are_detected);
	tcase_add_test(tc, affine_indices_are_exact_everywhere);
	tcase_add_test(tc, domains_past_i32_are_refused);
	tcase_add_test(tc, undecided_undefined_reads_are_detected);
	tcase_add_test(tc, library_names_are_refused_through_the_api);
	tcase_add_test(tc, device_dirty_buffers_are_refused_on_the_host);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pt_test_run_suite(suite());
}
