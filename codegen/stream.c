/* stream.c: non-temporal stores for large outputs.  A pipeline output
 * that no stage reads and that is much larger than the caches is written
 * once and not read again by this call: storing it through the caches
 * first reads every line it writes (write-allocate), a third of the
 * traffic of a memory-bound stage.  Codegen tags its stores with a TBAA
 * type of their own (which aliases nothing less: untagged accesses still
 * may alias it); after optimization, the vector stores that carry the
 * tag become non-temporal, and each function with one ends with a fence
 * so that the stores are visible before the threads join (a tile's nest,
 * nests.c, leaves it to its kernel). */
#include <stdio.h>
#include <string.h>

#include <llvm-c/Transforms/PassBuilder.h>

#include "cg.h"
#include "machine.h"

#define STREAM "polytile.stream"

void cg_stream_store(pt_cg *cg, LLVMValueRef st)
{
	LLVMContextRef c = cg->llc;
	LLVMMetadataRef root_ops[] = { LLVMMDStringInContext2(c, STREAM, sizeof(STREAM) - 1) };
	LLVMMetadataRef root = LLVMMDNodeInContext2(c, root_ops, 1);
	LLVMMetadataRef zero = LLVMValueAsMetadata(LLVMConstInt(LLVMInt64TypeInContext(c), 0, 0));
	LLVMMetadataRef type_ops[] = { LLVMMDStringInContext2(c, STREAM, sizeof(STREAM) - 1), root, zero };
	LLVMMetadataRef type = LLVMMDNodeInContext2(c, type_ops, 3);
	LLVMMetadataRef tag_ops[] = { type, type, zero };
	LLVMMetadataRef tag = LLVMMDNodeInContext2(c, tag_ops, 3);
	LLVMSetMetadata(st, LLVMGetMDKindIDInContext(c, "tbaa", 4), LLVMMetadataAsValue(c, tag));
	cg->streams++;
}

#define NEST "polytile-nest"

void cg_stream_mark_nest(pt_cg *cg, LLVMValueRef f)
{
	LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
		LLVMCreateStringAttribute(cg->llc, NEST, sizeof(NEST) - 1, "", 0));
}

static bool marked_nest(LLVMValueRef f)
{
	return LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, NEST, sizeof(NEST) - 1) != NULL;
}

void cg_stream_fence(pt_cg *cg)
{
	LLVMBuildFence(cg->b, LLVMAtomicOrderingSequentiallyConsistent, 0, "");
}

/* Whether store st carries the stream tag. */
static bool tagged(LLVMValueRef st, unsigned tbaa)
{
	LLVMValueRef tag = LLVMGetMetadata(st, tbaa);
	if (!tag || LLVMGetMDNodeNumOperands(tag) < 1)
		return false;
	LLVMValueRef ops[3];
	LLVMGetMDNodeOperands(tag, ops);
	if (!ops[0] || LLVMGetMDNodeNumOperands(ops[0]) < 1)
		return false;
	LLVMValueRef type_ops[3];
	LLVMGetMDNodeOperands(ops[0], type_ops);
	unsigned len = 0;
	const char *name = type_ops[0] ? LLVMGetMDString(type_ops[0], &len) : NULL;
	return name && len == sizeof(STREAM) - 1 && !memcmp(name, STREAM, len);
}

/* helper(ptr p, <N x T> v): a non-temporal store when p is aligned to the
 * vector's size (x86 has no unaligned one: LLVM would split it into
 * 8-byte stores, slower than plain ones), else the plain store.  The
 * branch goes the same way along a row; always inlined. */
static LLVMValueRef helper(LLVMModuleRef m, LLVMTypeRef vt, unsigned align, LLVMValueRef nt_node, unsigned nt)
{
	LLVMContextRef c = LLVMGetModuleContext(m);
	unsigned long long size = LLVMABISizeOfType(LLVMGetModuleDataLayout(m), vt);
	char name[64];
	snprintf(name, sizeof(name), "pt.stream.%llu.%u.%d", size, align, (int)LLVMGetVectorSize(vt));
	LLVMValueRef f = LLVMGetNamedFunction(m, name);
	if (f)
		return f;
	LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0), i64 = LLVMInt64TypeInContext(c);
	LLVMTypeRef pt[] = { ptr, vt };
	f = LLVMAddFunction(m, name, LLVMFunctionType(LLVMVoidTypeInContext(c), pt, 2, 0));
	LLVMSetLinkage(f, LLVMInternalLinkage);
	unsigned inl = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
	LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(c, inl, 0));
	LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
	LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c, f, "entry");
	LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(c, f, "aligned");
	LLVMBasicBlockRef no = LLVMAppendBasicBlockInContext(c, f, "unaligned");
	LLVMPositionBuilderAtEnd(b, entry);
	LLVMValueRef low = LLVMBuildAnd(b, LLVMBuildPtrToInt(b, LLVMGetParam(f, 0), i64, ""),
		LLVMConstInt(i64, size - 1, 0), "");
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, low, LLVMConstInt(i64, 0, 0), ""), yes, no);
	LLVMPositionBuilderAtEnd(b, yes);
	LLVMValueRef st = LLVMBuildStore(b, LLVMGetParam(f, 1), LLVMGetParam(f, 0));
	LLVMSetAlignment(st, (unsigned)size);
	LLVMSetMetadata(st, nt, nt_node);
	LLVMBuildRetVoid(b);
	LLVMPositionBuilderAtEnd(b, no);
	st = LLVMBuildStore(b, LLVMGetParam(f, 1), LLVMGetParam(f, 0));
	LLVMSetAlignment(st, align);
	LLVMBuildRetVoid(b);
	LLVMDisposeBuilder(b);
	return f;
}

int pt_machine_stream_stores(LLVMModuleRef m, LLVMTargetMachineRef tm)
{
	LLVMContextRef c = LLVMGetModuleContext(m);
	unsigned tbaa = LLVMGetMDKindIDInContext(c, "tbaa", 4);
	unsigned nt = LLVMGetMDKindIDInContext(c, "nontemporal", 11);
	LLVMMetadataRef one = LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(c), 1, 0));
	LLVMValueRef nt_node = LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, &one, 1));
	LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
	int n = 0;
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		int here = 0;
		for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
			for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
				next = LLVMGetNextInstruction(i);
				if (!LLVMIsAStoreInst(i) || !tagged(i, tbaa))
					continue;
				LLVMValueRef v = LLVMGetOperand(i, 0);
				LLVMTypeRef vt = LLVMTypeOf(v);
				if (LLVMGetTypeKind(vt) != LLVMVectorTypeKind)
					continue;
				unsigned long long size = LLVMABISizeOfType(LLVMGetModuleDataLayout(m), vt);
				if (size < 16 || (size & (size - 1)))
					continue;
				LLVMValueRef h = helper(m, vt, LLVMGetAlignment(i), nt_node, nt);
				LLVMPositionBuilderBefore(b, i);
				LLVMValueRef args[] = { LLVMGetOperand(i, 1), v };
				LLVMBuildCall2(b, LLVMGlobalGetValueType(h), h, args, 2, "");
				LLVMInstructionEraseFromParent(i);
				here++;
			}
		n += here;
		/* a tile's nest runs once per tile: the kernel calling it
		 * fences once, after its tiles (cg_stream_fence) */
		if (!here || marked_nest(f))
			continue;
		for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb)) {
			LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
			if (t && LLVMGetInstructionOpcode(t) == LLVMRet) {
				LLVMPositionBuilderBefore(b, t);
				LLVMBuildFence(b, LLVMAtomicOrderingSequentiallyConsistent, 0, "");
			}
		}
	}
	LLVMDisposeBuilder(b);
	if (n) {
		LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
		LLVMErrorRef e = LLVMRunPasses(m, "always-inline,globaldce", tm, o);
		LLVMDisposePassBuilderOptions(o);
		if (e)   /* not inlined: the helper calls are still correct */
			LLVMConsumeError(e);
	}
	return n;
}
