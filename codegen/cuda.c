/* cuda.c: the CUDA target over the GPU mapping (gpu.c).  Kernels go into
 * an NVPTX module beside the host module: a kernel takes the closure's
 * values as its params and reads its block and thread indices from
 * the special registers; a barrier is bar.sync 0; a tile's scratchpads
 * are the block's dynamic shared memory (pt_shared), placed one after
 * the other, the launch asking for the most a tile places (known when
 * compiled; past 48 KiB the kernel opts in, up to 227 KiB); math calls
 * libdevice's __nv_ functions, linked in from the CUDA toolkit's
 * libdevice.10.bc; a failed run-time check stores its code in the
 * device global pt_error.  module_finish optimizes the NVPTX module,
 * turns it into PTX for sm_90 (PTX ISA 8.0) and embeds the text in the
 * host module as the constant "<function>.ptx", which
 * `polytile compile --backend cuda --emit=ptx` writes out.
 *
 * On the host (runtime/cuda.c does the work): the caller's buffers are
 * bound for the run (pt_cuda_bind / pt_cuda_unbind: copied in and out,
 * or used in place when resident on the device), intermediate stages
 * come from the device pool (pt_cuda_alloc), each kernel is launched
 * with pt_cuda_launch (its module and function cached in globals of the
 * host module), and pt_cuda_finish waits for them and takes pt_error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>

#include "gpu.h"
#include "machine.h"

#define CUDA_SPEC "nvptx64-nvidia-cuda:sm_90:+ptx80"
#define LIBDEVICE "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"

typedef struct cuda_state {
	LLVMModuleRef host, dev;
	LLVMTargetMachineRef tm;
	LLVMValueRef shared, error, ptx;  /* pt_shared, pt_error; the host's PTX text */
	LLVMValueRef cubin;               /* the host's cubin (driver/cubin.c fills it) */
	LLVMValueRef mod;                 /* the host's slot for the loaded module */
	LLVMValueRef off;                 /* shared bytes placed in the tile being emitted */
	int64_t coff;                     /* the same while the sizes are constants */
	int64_t smem;                     /* the kernel's most shared bytes in a tile */
	bool smem_var;                    /* ... not known when compiled: it gets them all */
	bool math;                        /* a libdevice function is called */
} cuda_state;

static cuda_state *state(pt_cg *cg)
{
	return cg->target_state;
}

/* A pointer-sized global of the host module, null at first: where the
 * runtime keeps a loaded module or function. */
static LLVMValueRef slot_global(pt_cg *cg, LLVMModuleRef m, const char *name)
{
	LLVMValueRef g = LLVMAddGlobal(m, cg->ptr, name);
	LLVMSetInitializer(g, LLVMConstPointerNull(cg->ptr));
	LLVMSetLinkage(g, LLVMInternalLinkage);
	return g;
}

static void cuda_module_begin(pt_cg *cg)
{
	cuda_state *st = calloc(1, sizeof(*st));
	cg->target_state = st;
	st->host = cg_add_module(cg, cg->fname, "host");
	char name[160];
	snprintf(name, sizeof(name), "%s.kernels", cg->fname);
	st->dev = cg_add_module(cg, name, "nvptx");
	char *err = NULL;
	st->tm = pt_machine_new(CUDA_SPEC, &err);
	free(err);
	if (st->tm) {
		char *triple = LLVMGetTargetMachineTriple(st->tm);
		LLVMSetTarget(st->dev, triple);
		LLVMDisposeMessage(triple);
		LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(st->tm);
		LLVMSetModuleDataLayout(st->dev, dl);
		LLVMDisposeTargetData(dl);
	}
	st->shared = LLVMAddGlobalInAddressSpace(st->dev, LLVMArrayType(cg->i8, 0), "pt_shared", 3);
	LLVMSetAlignment(st->shared, 16);
	st->error = LLVMAddGlobalInAddressSpace(st->dev, cg->i32, "pt_error", 1);
	LLVMSetInitializer(st->error, LLVMConstInt(cg->i32, 0, 0));
	snprintf(name, sizeof(name), "%s.ptx", cg->fname);
	st->ptx = LLVMAddGlobal(st->host, LLVMArrayType(cg->i8, 0), name);
	snprintf(name, sizeof(name), "%s.cubin", cg->fname);
	st->cubin = LLVMAddGlobal(st->host, LLVMArrayType(cg->i8, 0), name);
	snprintf(name, sizeof(name), "%s.cumodule", cg->fname);
	st->mod = slot_global(cg, st->host, name);
}

static LLVMValueRef sreg(pt_cg *cg, const char *name)
{
	return cg_call(cg, name, cg->i32, NULL, NULL, 0);
}

static void cuda_kernel_begin(pt_cg *cg, cg_closure *c, const char *name, cg_gpu_kernel *k)
{
	cuda_state *st = state(cg);
	/* on the host: the closure's values, and the array of pointers to
	 * them that a launch passes as the kernel's params */
	k->ctx = cg_closure_pack(cg, c, &k->sty);
	/* the closure's values, then the first block's index (0 but in a
	 * streamed run's chunks, pt_cuda_stream), then a null that ends the
	 * array for the runtime */
	LLVMTypeRef aty = LLVMArrayType(cg->ptr, (unsigned)(c->n + 2));
	k->params = cg_entry_alloca(cg, aty);
	LLVMValueRef zero = cg_entry_alloca(cg, cg->i64);
	LLVMBuildStore(cg->b, cg_i64(cg, 0), zero);
	for (int i = 0; i < c->n + 2; i++) {
		LLVMValueRef idx[] = { cg_i64(cg, 0), cg_i64(cg, i) };
		LLVMValueRef v = i < c->n ? LLVMBuildStructGEP2(cg->b, k->sty, k->ctx, (unsigned)i, "") :
			i == c->n ? zero : LLVMConstNull(cg->ptr);
		LLVMBuildStore(cg->b, v, LLVMBuildInBoundsGEP2(cg->b, aty, k->params, idx, 2, ""));
	}
	k->resume = LLVMGetInsertBlock(cg->b);
	k->nparams = c->n;
	cg->mod = st->dev;
	LLVMTypeRef extra[] = { cg->i64 };
	k->fn = cg_closure_function(cg, c, name, extra, 1);
	LLVMSetLinkage(k->fn, LLVMExternalLinkage);
	LLVMSetFunctionCallConv(k->fn, 71);     /* PTX_Kernel */
	k->block = LLVMBuildAdd(cg->b, LLVMBuildZExt(cg->b, sreg(cg, "llvm.nvvm.read.ptx.sreg.ctaid.x"), cg->i64, ""),
		LLVMGetParam(k->fn, (unsigned)c->n), "");
	k->tx = sreg(cg, "llvm.nvvm.read.ptx.sreg.tid.x");
	k->ty = sreg(cg, "llvm.nvvm.read.ptx.sreg.tid.y");
	st->off = NULL;
	st->coff = st->smem = 0;
	st->smem_var = false;
}

static void cuda_launch(pt_cg *cg, cg_gpu_kernel *k, LLVMValueRef blocks, const int64_t *bd)
{
	cuda_state *st = state(cg);
	cg->mod = st->host;
	char name[200];
	snprintf(name, sizeof(name), "%s.cufunction", LLVMGetValueName(k->fn));
	LLVMValueRef fn = slot_global(cg, st->host, name);
	int64_t shared = st->smem_var || st->smem > PT_CUDA_SHARED_MAX ? PT_CUDA_SHARED_MAX : st->smem;
	LLVMTypeRef p[] = { cg->ptr, cg->ptr, cg->ptr, cg->ptr, cg->i64, cg->i32, cg->i32, cg->i32, cg->ptr };
	k->id = LLVMBuildGlobalStringPtr(cg->b, LLVMGetValueName(k->fn), "kernel.name");
	LLVMValueRef args[] = { st->ptx, st->mod, k->id, fn, blocks, LLVMConstInt(cg->i32, (unsigned long long)bd[0], 0),
		LLVMConstInt(cg->i32, (unsigned long long)bd[1], 0), LLVMConstInt(cg->i32, (unsigned long long)shared, 0),
		k->params };
	cg_call(cg, "pt_cuda_launch", cg->i32, p, args, 9);
}

static void cuda_barrier(pt_cg *cg)
{
	cg_call(cg, "llvm.nvvm.barrier0", cg->vd, NULL, NULL, 0);
}

static const cg_gpu_flavour cuda = {
	.kernel_begin = cuda_kernel_begin,
	.launch = cuda_launch,
	.barrier = cuda_barrier,
};

static void cuda_parallel_for(pt_cg *cg, __isl_keep isl_ast_node *node)
{
	cg_gpu_launch(cg, node, &cuda);
}

static void cuda_tile(pt_cg *cg, const pt_kernel *k, __isl_keep isl_ast_node *body)
{
	state(cg)->off = NULL;
	state(cg)->coff = 0;
	cg_gpu_tile(cg, k, body, &cuda);
}

/* Records code in pt_error unless an earlier failure did. */
static void set_error(pt_cg *cg, int code)
{
	LLVMBuildAtomicCmpXchg(cg->b, state(cg)->error, LLVMConstInt(cg->i32, 0, 0),
		LLVMConstInt(cg->i32, (unsigned long long)(int64_t)code, 1), LLVMAtomicOrderingMonotonic,
		LLVMAtomicOrderingMonotonic, 0);
}

/* A scratchpad in the block's shared memory, after those placed before
 * it in this tile; NULL (PT_ERR_DEVICE recorded, the tile skipped) past
 * what a block can have (PT_CUDA_SHARED_MAX).  The launch asks for the
 * most any tile places, where every size has a bound when compiled, else
 * for all a block can have. */
static LLVMValueRef cuda_scratch(pt_cg *cg, int slot, LLVMValueRef bytes, int64_t most)
{
	(void)slot;
	cuda_state *st = state(cg);
	LLVMBuilderRef b = cg->b;
	if (most >= 0 && !st->smem_var) {
		st->coff = ((st->coff + 15) & ~(int64_t)15) + most;
		st->smem = st->coff > st->smem ? st->coff : st->smem;
	} else {
		st->smem_var = true;
	}
	LLVMValueRef off = st->off ? st->off : cg_i64(cg, 0);
	LLVMValueRef at = LLVMBuildAnd(b, LLVMBuildAdd(b, off, cg_i64(cg, 15), ""), cg_i64(cg, -16), "");
	LLVMValueRef end = LLVMBuildAdd(b, at, bytes, "");
	LLVMValueRef fits = LLVMBuildICmp(b, LLVMIntSLE, end, cg_i64(cg, PT_CUDA_SHARED_MAX), "");
	LLVMValueRef p = LLVMBuildInBoundsGEP2(b, cg->i8, st->shared, &at, 1, "");
	p = LLVMBuildAddrSpaceCast(b, p, cg->ptr, "");
	st->off = LLVMBuildSelect(b, fits, end, off, "");
	LLVMBasicBlockRef bad = cg_block(cg, "shared.over"), ok = cg_block(cg, "shared.ok");
	LLVMBuildCondBr(b, fits, ok, bad);
	LLVMPositionBuilderAtEnd(b, bad);
	set_error(cg, PT_ERR_DEVICE);
	LLVMBuildBr(b, ok);
	LLVMPositionBuilderAtEnd(b, ok);
	return LLVMBuildSelect(b, fits, p, LLVMConstPointerNull(cg->ptr), "");
}

static void cuda_fail(pt_cg *cg, LLVMValueRef bad, int code, const char *what, const LLVMValueRef *pt, int n)
{
	(void)what;
	(void)pt;
	(void)n;
	LLVMBasicBlockRef fail = cg_block(cg, "rt.fail"), ok = cg_block(cg, "rt.ok");
	LLVMBuildCondBr(cg->b, bad, fail, ok);
	LLVMPositionBuilderAtEnd(cg->b, fail);
	set_error(cg, code);
	LLVMBuildBr(cg->b, ok);
	LLVMPositionBuilderAtEnd(cg->b, ok);
}

/* libdevice's function for libm's name at ty: __nv_sinf, __nv_pow. */
static LLVMValueRef cuda_math(pt_cg *cg, const char *name, LLVMTypeRef ty, LLVMValueRef *args, unsigned nargs)
{
	char full[40];
	snprintf(full, sizeof(full), "__nv_%s%s", name, ty == cg->f32 ? "f" : "");
	state(cg)->math = true;
	LLVMTypeRef ptys[] = { ty, ty };
	return cg_call(cg, full, ty, ptys, args, nargs);
}

/* libdevice linked into the kernels' module (its functions internal, so
 * that what no kernel calls goes): false when it cannot be read. */
static bool link_libdevice(pt_cg *cg, cuda_state *st)
{
	const char *path = getenv("PT_LIBDEVICE") ? getenv("PT_LIBDEVICE") : LIBDEVICE;
	LLVMMemoryBufferRef buf = NULL;
	char *msg = NULL;
	LLVMModuleRef lib = NULL;
	if (LLVMCreateMemoryBufferWithContentsOfFile(path, &buf, &msg)) {
		LLVMDisposeMessage(msg);
		return false;
	}
	bool ok = !LLVMParseBitcodeInContext2(cg->llc, buf, &lib);
	LLVMDisposeMemoryBuffer(buf);
	if (!ok)
		return false;
	LLVMSetTarget(lib, LLVMGetTarget(st->dev));
	LLVMSetDataLayout(lib, LLVMGetDataLayoutStr(st->dev));
	if (LLVMLinkModules2(st->dev, lib))
		return false;
	for (LLVMValueRef f = LLVMGetFirstFunction(st->dev); f; f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f) && LLVMGetFunctionCallConv(f) != 71)
			LLVMSetLinkage(f, LLVMInternalLinkage);
	return true;
}

LLVMValueRef pt_codegen_define_bytes(LLVMValueRef g, const char *data, size_t n, bool nul, unsigned align)
{
	LLVMModuleRef mod = LLVMGetGlobalParent(g);
	LLVMValueRef str = LLVMConstStringInContext(LLVMGetModuleContext(mod), data, (unsigned)n, !nul);
	char *name = strdup(LLVMGetValueName(g));
	LLVMValueRef ng = LLVMAddGlobal(mod, LLVMTypeOf(str), "");
	LLVMSetInitializer(ng, str);
	LLVMSetGlobalConstant(ng, 1);
	LLVMSetLinkage(ng, LLVMInternalLinkage);
	LLVMSetAlignment(ng, align);
	LLVMReplaceAllUsesWith(g, ng);
	LLVMDeleteGlobal(g);
	LLVMSetValueName2(ng, name, strlen(name));
	free(name);
	return ng;
}

/* The kernels' PTX in the host module: a constant string named as the
 * declaration the launches use.  Without an NVPTX machine or libdevice
 * the text is empty and pt_cuda_launch refuses it. */
static void cuda_module_finish(pt_cg *cg)
{
	cuda_state *st = state(cg);
	LLVMMemoryBufferRef ptx = NULL;
	char *err = NULL;
	if (st->tm && (!st->math || link_libdevice(cg, st))) {
		/* libdevice's __nvvm_reflect("__CUDA_FTZ"): no flushing of
		 * denormals, as on the CPU */
		LLVMAddModuleFlag(st->dev, LLVMModuleFlagBehaviorOverride, "nvvm-reflect-ftz", 16,
			LLVMValueAsMetadata(LLVMConstInt(cg->i32, 0, 0)));
		if (!pt_machine_optimize(st->dev, st->tm, &err) &&
			LLVMTargetMachineEmitToMemoryBuffer(st->tm, st->dev, LLVMAssemblyFile, &err, &ptx))
			ptx = NULL;
	}
	free(err);
	const char *text = ptx ? LLVMGetBufferStart(ptx) : "";
	size_t len = ptx ? LLVMGetBufferSize(ptx) : 0;
	/* NUL-terminated: the driver's cuModuleLoadData reads a C string */
	pt_codegen_define_bytes(st->ptx, text, len, true, 1);
	/* no cubin: the pass "cubin" puts one there (8 bytes, its size, first) */
	pt_codegen_define_bytes(st->cubin, "\0\0\0\0\0\0\0", 8, false, 8);
	if (ptx)
		LLVMDisposeMemoryBuffer(ptx);
	LLVMDisposeModule(st->dev);
	cg->nmodules = 1;
	cg->mod = st->host;
	if (st->tm)
		LLVMDisposeTargetMachine(st->tm);
	free(st);
	cg->target_state = NULL;
}

/* ---- on the host: device memory, the caller's buffers, the run's end ---- */

static LLVMValueRef cuda_alloc(pt_cg *cg, LLVMValueRef bytes, pt_placement place)
{
	(void)place;
	LLVMTypeRef p[] = { cg->i64 };
	return LLVMBuildIntToPtr(cg->b, cg_call(cg, "pt_cuda_alloc", cg->i64, p, &bytes, 1), cg->ptr, "");
}

static void cuda_free(pt_cg *cg, LLVMValueRef ptr)
{
	LLVMTypeRef p[] = { cg->i64 };
	LLVMValueRef a = LLVMBuildPtrToInt(cg->b, ptr, cg->i64, "");
	cg_call(cg, "pt_cuda_free", cg->vd, p, &a, 1);
}

static void cuda_fill(pt_cg *cg, LLVMValueRef ptr, LLVMValueRef byte, LLVMValueRef n)
{
	LLVMTypeRef p[] = { cg->i64, cg->i32, cg->i64 };
	LLVMValueRef args[] = { LLVMBuildPtrToInt(cg->b, ptr, cg->i64, ""), LLVMBuildZExt(cg->b, byte, cg->i32, ""), n };
	cg_call(cg, "pt_cuda_memset", cg->i32, p, args, 3);
}

static LLVMValueRef cuda_bind(pt_cg *cg, LLVMValueRef buf, int role, LLVMValueRef box)
{
	LLVMValueRef dev;
	if (cg->streamed) {
		LLVMTypeRef p[] = { cg->ptr, cg->i32, cg->ptr };
		LLVMValueRef args[] = { buf, LLVMConstInt(cg->i32, (unsigned long long)role, 0),
			box ? box : LLVMConstNull(cg->ptr) };
		dev = cg_call(cg, "pt_cuda_bind_streamed", cg->i64, p, args, 3);
	} else if (box) {
		LLVMTypeRef p[] = { cg->ptr, cg->ptr };
		LLVMValueRef args[] = { buf, box };
		dev = cg_call(cg, "pt_cuda_bind_box", cg->i64, p, args, 2);
	} else {
		LLVMTypeRef p[] = { cg->ptr, cg->i32 };
		LLVMValueRef args[] = { buf, LLVMConstInt(cg->i32, (unsigned long long)role, 0) };
		dev = cg_call(cg, "pt_cuda_bind", cg->i64, p, args, 2);
	}
	return LLVMBuildIntToPtr(cg->b, dev, cg->ptr, "");
}

static void cuda_unbind(pt_cg *cg, LLVMValueRef buf, bool output, LLVMValueRef dev, LLVMValueRef box)
{
	LLVMTypeRef p[] = { cg->ptr, cg->i32, cg->i64 };
	LLVMValueRef at = LLVMBuildPtrToInt(cg->b, dev, cg->i64, "");
	if (cg->streamed) {
		LLVMTypeRef ps[] = { cg->ptr, cg->i32, cg->i64, cg->ptr };
		LLVMValueRef args[] = { buf, LLVMConstInt(cg->i32, output, 0), at, box ? box : LLVMConstNull(cg->ptr) };
		cg_call(cg, "pt_cuda_unbind_streamed", cg->vd, ps, args, 4);
		return;
	}
	if (box) {
		LLVMTypeRef pb[] = { cg->ptr, cg->i64, cg->ptr };
		LLVMValueRef args[] = { buf, at, box };
		cg_call(cg, "pt_cuda_unbind_box", cg->vd, pb, args, 3);
		return;
	}
	LLVMValueRef args[] = { buf, LLVMConstInt(cg->i32, output, 0), at };
	cg_call(cg, "pt_cuda_unbind", cg->vd, p, args, 3);
}

/* Once a call, before its launches: the module's cubin, if it has one
 * and the GPU takes it, into the module's slot (pt_cuda_cubin). */
static void cuda_run_begin(pt_cg *cg)
{
	cuda_state *st = state(cg);
	LLVMTypeRef p[] = { cg->ptr, cg->ptr };
	LLVMValueRef args[] = { st->mod, st->cubin };
	cg_call(cg, "pt_cuda_cubin", cg->vd, p, args, 2);
}

static void cuda_stream(pt_cg *cg, LLVMValueRef plan)
{
	LLVMTypeRef p[] = { cg->ptr };
	cg_call(cg, "pt_cuda_stream", cg->vd, p, &plan, 1);
}

static void cuda_run_end(pt_cg *cg)
{
	LLVMTypeRef p[] = { cg->ptr };
	cg_call(cg, "pt_cuda_finish", cg->i32, p, &state(cg)->mod, 1);
}

const pt_target pt_target_cuda = {
	.name = "cuda",
	.placement = PT_PLACE_DEVICE,
	.launch_all = true,
	.module_begin = cuda_module_begin,
	.module_finish = cuda_module_finish,
	.alloc = cuda_alloc,
	.free = cuda_free,
	.fill = cuda_fill,
	.bind = cuda_bind,
	.unbind = cuda_unbind,
	.stream = cuda_stream,
	.run_begin = cuda_run_begin,
	.run_end = cuda_run_end,
	.scratch = cuda_scratch,
	.parallel_for = cuda_parallel_for,
	.tile = cuda_tile,
	.barrier = cuda_barrier,
	.math = cuda_math,
	.fail = cuda_fail,
};
