/* types.c: LLVM types of the language, intrinsic and libm calls, loop
 * metadata. */
#include <stdio.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "cg.h"
#include "target.h"

void cg_init_types(pt_cg *cg)
{
	LLVMContextRef c = cg->llc;
	cg->i1 = LLVMInt1TypeInContext(c);
	cg->i8 = LLVMInt8TypeInContext(c);
	cg->i16 = LLVMInt16TypeInContext(c);
	cg->i32 = LLVMInt32TypeInContext(c);
	cg->i64 = LLVMInt64TypeInContext(c);
	cg->f32 = LLVMFloatTypeInContext(c);
	cg->f64 = LLVMDoubleTypeInContext(c);
	cg->ptr = LLVMPointerTypeInContext(c, 0);
	cg->vd = LLVMVoidTypeInContext(c);
	/* pt_buffer: data, type, ndim, extent[8], stride[8], device, flags,
	 * device_id */
	LLVMTypeRef f[] = { cg->ptr, cg->i32, cg->i32,
		LLVMArrayType2(cg->i64, PT_MAX_DIMS), LLVMArrayType2(cg->i64, PT_MAX_DIMS), cg->i64, cg->i32, cg->i32 };
	cg->buf_ty = LLVMStructTypeInContext(c, f, 8, 0);
}

LLVMTypeRef cg_type(pt_cg *cg, int t)
{
	switch (t) {
	case PT_U8: case PT_I8: return cg->i8;
	case PT_U16: case PT_I16: return cg->i16;
	case PT_U32: case PT_I32: return cg->i32;
	case PT_I64: return cg->i64;
	case PT_F32: return cg->f32;
	case PT_F64: return cg->f64;
	default: return cg->i1;
	}
}

LLVMValueRef cg_i64(pt_cg *cg, int64_t v)
{
	return LLVMConstInt(cg->i64, (unsigned long long)v, 1);
}

LLVMBasicBlockRef cg_block(pt_cg *cg, const char *name)
{
	return LLVMAppendBasicBlockInContext(cg->llc, cg->fn, name);
}

LLVMValueRef cg_call(pt_cg *cg, const char *name, LLVMTypeRef ret,
	LLVMTypeRef *ptys, LLVMValueRef *args, unsigned nargs)
{
	LLVMTypeRef fty = LLVMFunctionType(ret, ptys, nargs, 0);
	LLVMValueRef f = LLVMGetNamedFunction(cg->mod, name);
	if (!f)
		f = LLVMAddFunction(cg->mod, name, fty);
	return LLVMBuildCall2(cg->b, fty, f, args, nargs, "");
}

LLVMValueRef cg_call_intrinsic(pt_cg *cg, const char *name, LLVMTypeRef ty,
	LLVMValueRef *args, unsigned nargs)
{
	unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
	LLVMTypeRef tys[] = { ty };
	LLVMValueRef f = LLVMGetIntrinsicDeclaration(cg->mod, id, tys, 1);
	LLVMTypeRef fty = LLVMIntrinsicGetType(cg->llc, id, tys, 1);
	return LLVMBuildCall2(cg->b, fty, f, args, nargs, "");
}

/* libm by name, float variants with an f suffix (expf, tanhf, ...). */
LLVMValueRef cg_call_libm(pt_cg *cg, const char *name, LLVMTypeRef ty,
	LLVMValueRef *args, unsigned nargs)
{
	char full[32];
	strcpy(full, name);
	if (ty == cg->f32)
		strcat(full, "f");
	LLVMTypeRef ptys[] = { ty, ty };
	return cg_call(cg, full, ty, ptys, args, nargs);
}

/* Without a hook of the target's: LLVM's intrinsics where it has one
 * (it vectorizes them, and lowers them to libm), libm's function
 * otherwise. */
LLVMValueRef cg_call_math(pt_cg *cg, const char *name, LLVMTypeRef ty,
	LLVMValueRef *args, unsigned nargs)
{
	if (cg->target && cg->target->math)
		return cg->target->math(cg, name, ty, args, nargs);
	static const char *const intrinsics[] = { "exp", "log", "pow", "sin", "cos" };
	for (size_t i = 0; i < sizeof(intrinsics) / sizeof(intrinsics[0]); i++)
		if (!strcmp(name, intrinsics[i])) {
			char full[32];
			snprintf(full, sizeof(full), "llvm.%s", name);
			return cg_call_intrinsic(cg, full, ty, args, nargs);
		}
	return cg_call_libm(cg, name, ty, args, nargs);
}

static LLVMMetadataRef loop_prop(LLVMContextRef c, const char *key, LLVMValueRef v)
{
	LLVMMetadataRef kv[] = { LLVMMDStringInContext2(c, key, strlen(key)), LLVMValueAsMetadata(v) };
	return LLVMMDNodeInContext2(c, kv, 2);
}

/* !llvm.loop !{self, !{"llvm.loop.vectorize.enable", i1}} and, under
 * CG_VEC_UNROLL, !{"llvm.loop.unroll.count", i32 CG_UNROLL}: the self
 * reference is made through a temporary node (the C API has no distinct
 * nodes), which keeps each loop's id unique.  A count is a forced
 * unrolling, done with LLVM's unroller otherwise off (machine.c). */
void cg_loop_vectorize(pt_cg *cg, LLVMValueRef br, cg_vectorize vectorize)
{
	LLVMContextRef c = cg->llc;
	LLVMMetadataRef tmp = LLVMTemporaryMDNode(c, NULL, 0);
	LLVMMetadataRef ops[] = { tmp,
		loop_prop(c, "llvm.loop.vectorize.enable", LLVMConstInt(cg->i1, vectorize == CG_VEC_FORCE, 0)),
		loop_prop(c, "llvm.loop.unroll.count", LLVMConstInt(LLVMInt32TypeInContext(c), CG_UNROLL, 0)) };
	LLVMMetadataRef id = LLVMMDNodeInContext2(c, ops, vectorize == CG_VEC_UNROLL ? 3 : 2);
	LLVMMetadataReplaceAllUsesWith(tmp, id);
	unsigned kind = LLVMGetMDKindIDInContext(c, "llvm.loop", 9);
	LLVMSetMetadata(br, kind, LLVMMetadataAsValue(c, id));
}

static void counted_loop(pt_cg *cg, LLVMValueRef lo, LLVMValueRef hi, cg_vectorize vectorize,
	void (*body)(pt_cg *cg, LLVMValueRef k, void *data), void *data);

/* A loop in strips of CG_STRIP iterations, each run twice (strip_phase). */
typedef struct strips {
	LLVMValueRef lo, hi, base, n;   /* n: the number of strips */
	void (*body)(pt_cg *cg, LLVMValueRef k, void *data);
	void *data;
} strips;

static void strip_body(pt_cg *cg, LLVMValueRef k, void *data)
{
	strips *sd = data;
	cg->strip_j = LLVMBuildNSWSub(cg->b, k, sd->base, "");
	cg->strip_k = 0;
	sd->body(cg, k, sd->data);
}

/* Strip s: its targets and values computed in a loop LLVM vectorizes
 * (phase 1), then applied in order in an unrolled one (phase 2).  The
 * arrays are the strip's own, allocated by phase 1 (stmt.c). */
static void strip_step(pt_cg *cg, LLVMValueRef s, void *data)
{
	strips *sd = data;
	LLVMBuilderRef b = cg->b;
	sd->base = LLVMBuildNSWAdd(b, sd->lo, LLVMBuildNSWMul(b, s, cg_i64(cg, CG_STRIP), ""), "");
	LLVMValueRef end = LLVMBuildNSWAdd(b, sd->base, cg_i64(cg, CG_STRIP), "");
	end = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, end, sd->hi, ""), end, sd->hi, "");
	for (int u = 0; u < CG_STRIP_STMTS; u++)
		cg->strip_idx[u] = cg->strip_val[u] = NULL;
	cg->strip_phase = 1;
	counted_loop(cg, sd->base, end, CG_VEC_FORCE, strip_body, sd);
	cg->strip_phase = 2;
	counted_loop(cg, sd->base, end, CG_VEC_UNROLL, strip_body, sd);
	cg->strip_phase = 0;
}

static void all_strips(pt_cg *cg, void *data)
{
	strips *sd = data;
	counted_loop(cg, cg_i64(cg, 0), sd->n, CG_VEC_OFF, strip_step, sd);
}

void cg_counted_loop(pt_cg *cg, LLVMValueRef lo, LLVMValueRef hi, cg_vectorize vectorize,
	void (*body)(pt_cg *cg, LLVMValueRef k, void *data), void *data)
{
	if (vectorize != CG_VEC_STRIPS) {
		counted_loop(cg, lo, hi, vectorize, body, data);
		return;
	}
	strips sd = { .lo = lo, .hi = hi, .body = body, .data = data };
	LLVMBuilderRef b = cg->b;
	LLVMValueRef n = LLVMBuildSDiv(b, LLVMBuildNSWAdd(b, LLVMBuildNSWSub(b, hi, lo, ""),
		cg_i64(cg, CG_STRIP - 1), ""), cg_i64(cg, CG_STRIP), "");
	sd.n = n;
	/* indices kept in 32 bits where every array is below 2 GiB (stmt.c),
	 * else in 64 (a strip's i64 stores cost 1.35x) */
	cg_narrow_versions(cg, all_strips, &sd);
}

void cg_narrow_versions(pt_cg *cg, void (*emit)(pt_cg *cg, void *data), void *data)
{
	if (!cg->narrow_ok || cg->narrow) {
		emit(cg, data);
		return;
	}
	LLVMBasicBlockRef narrow = cg_block(cg, "narrow"), wide = cg_block(cg, "wide"), join = cg_block(cg, "narrow.end");
	LLVMBuildCondBr(cg->b, cg->narrow_ok, narrow, wide);
	LLVMPositionBuilderAtEnd(cg->b, narrow);
	cg->narrow = true;
	emit(cg, data);
	cg->narrow = false;
	LLVMBuildBr(cg->b, join);
	LLVMPositionBuilderAtEnd(cg->b, wide);
	emit(cg, data);
	LLVMBuildBr(cg->b, join);
	LLVMPositionBuilderAtEnd(cg->b, join);
}

static void counted_loop(pt_cg *cg, LLVMValueRef lo, LLVMValueRef hi, cg_vectorize vectorize,
	void (*body)(pt_cg *cg, LLVMValueRef k, void *data), void *data)
{
	LLVMBuilderRef b = cg->b;
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
	LLVMBasicBlockRef head = cg_block(cg, "loop"), exit = cg_block(cg, "loop.end");
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, lo, hi, ""), head, exit);
	LLVMPositionBuilderAtEnd(b, head);
	LLVMValueRef k = LLVMBuildPhi(b, cg->i64, "k");
	body(cg, k, data);
	LLVMValueRef next = LLVMBuildNSWAdd(b, k, cg_i64(cg, 1), "");
	LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
	LLVMValueRef br = LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, next, hi, ""), head, exit);
	if (vectorize != CG_VEC_DEFAULT)
		cg_loop_vectorize(cg, br, vectorize);
	LLVMValueRef vals[] = { lo, next };
	LLVMBasicBlockRef bbs[] = { pre, latch };
	LLVMAddIncoming(k, vals, bbs, 2);
	LLVMPositionBuilderAtEnd(b, exit);
}

/* An alloca in the entry block, so that loops do not grow the stack. */
LLVMValueRef cg_entry_alloca(pt_cg *cg, LLVMTypeRef t)
{
	LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(cg->fn);
	LLVMBuilderRef b = LLVMCreateBuilderInContext(cg->llc);
	LLVMValueRef first = LLVMGetFirstInstruction(entry);
	if (first)
		LLVMPositionBuilderBefore(b, first);
	else
		LLVMPositionBuilderAtEnd(b, entry);
	LLVMValueRef a = LLVMBuildAlloca(b, t, "closure");
	LLVMDisposeBuilder(b);
	return a;
}
