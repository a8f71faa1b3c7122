/* machine.c: the LLVM target machine (the host CPU and its features, or
 * --target TRIPLE[:CPU[:FEATURES]]), the O3 pipeline of the new pass
 * manager, and object files. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <llvm-c/ErrorHandling.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "machine.h"

/* LLVM ends the process after this; --target is probed beforehand
 * (target_spec.c) so that only an internal error can get here. */
static void fatal(const char *reason)
{
	fprintf(stderr, "polytile: internal error in LLVM: %s\n", reason);
}

static void init_llvm(bool all)
{
	static bool native, every;
	if (!native) {
		LLVMInstallFatalErrorHandler(fatal);
		LLVMInitializeNativeTarget();
		LLVMInitializeNativeAsmPrinter();
		/* Loops start on a 32-byte boundary (LLVM's x86 default is 16):
		 * a short hot loop then never straddles a 64-byte line of the
		 * op cache, which made histogram's counting loop 1.8x slower in
		 * one link of the same object than in another (Zen 5).  The
		 * option is process-wide; set once. */
		/* Loop strength reduction runs in pt_machine_optimize, on hot
		 * code only: in the code generator it took 30-70% of the
		 * object's time (local_laplacian -O1: 1.08 -> 0.57 s on 8
		 * pieces, harris 64 -> 18 ms) and made harris 7% faster, other
		 * apps within 3% either way (bench/results.md). */
		const char *const argv[] = { "polytile", "-align-loops=32", "-disable-lsr" };
		LLVMParseCommandLineOptions(3, argv, NULL);
		native = true;
	}
	if (all && !every) {
		LLVMInitializeAllTargetInfos();
		LLVMInitializeAllTargets();
		LLVMInitializeAllTargetMCs();
		LLVMInitializeAllAsmPrinters();
		every = true;
	}
}

LLVMCodeGenOptLevel pt_machine_level(void)
{
	return LLVMCodeGenLevelAggressive;
}

LLVMTargetMachineRef pt_machine_new(const char *spec, char **err)
{
	init_llvm(spec != NULL);
	char *triple, *cpu, *features;
	if (!spec) {
		triple = LLVMGetDefaultTargetTriple();
		cpu = LLVMGetHostCPUName();
		features = LLVMGetHostCPUFeatures();
	} else {
		/* TRIPLE[:CPU[:FEATURES]] */
		char *copy = strdup(spec), *c = strchr(copy, ':'), *f = NULL;
		if (c) {
			*c++ = 0;
			if ((f = strchr(c, ':')))
				*f++ = 0;
		}
		triple = LLVMCreateMessage(copy);
		cpu = LLVMCreateMessage(c && *c ? c : "generic");
		features = LLVMCreateMessage(f ? f : "");
		free(copy);
	}
	LLVMTargetRef t;
	LLVMTargetMachineRef tm = NULL;
	char *msg = NULL;
	if (LLVMGetTargetFromTriple(triple, &t, &msg)) {
		*err = strdup(msg ? msg : "unknown target");
	} else {
		/* LLVM warns on stderr about an unknown CPU or feature and goes
		 * on without it; pt_machine_create's probe refuses those with
		 * its words */
		int saved = -1;
		if (spec) {
			fflush(stderr);
			saved = dup(2);
			int null = open("/dev/null", O_WRONLY);
			if (null >= 0) {
				dup2(null, 2);
				close(null);
			}
		}
		tm = LLVMCreateTargetMachine(t, triple, cpu, features, pt_machine_level(),
			LLVMRelocPIC, LLVMCodeModelDefault);
		if (saved >= 0) {
			dup2(saved, 2);
			close(saved);
		}
		if (!tm)
			*err = strdup("LLVM could not create a machine for this target");
	}
	LLVMDisposeMessage(msg);
	LLVMDisposeMessage(triple);
	LLVMDisposeMessage(cpu);
	LLVMDisposeMessage(features);
	return tm;
}

void pt_machine_configure(LLVMModuleRef m, LLVMTargetMachineRef tm, int vector_bits)
{
	char width[16];
	snprintf(width, sizeof(width), "%d", vector_bits);
	char *triple = LLVMGetTargetMachineTriple(tm);
	LLVMSetTarget(m, triple);
	LLVMDisposeMessage(triple);
	LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
	LLVMSetModuleDataLayout(m, dl);
	LLVMDisposeTargetData(dl);
	/* every function is tuned for the machine's CPU and features */
	char *cpu = LLVMGetTargetMachineCPU(tm), *feat = LLVMGetTargetMachineFeatureString(tm);
	LLVMContextRef c = LLVMGetModuleContext(m);
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		if (LLVMIsDeclaration(f))
			continue;
		/* with -align-loops (init_llvm): a loop's offset in its function
		 * is then its offset in a line, whatever the link does */
		LLVMSetAlignment(f, 64);
		LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
			LLVMCreateStringAttribute(c, "target-cpu", 10, cpu, (unsigned)strlen(cpu)));
		if (*feat)
			LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
				LLVMCreateStringAttribute(c, "target-features", 15, feat, (unsigned)strlen(feat)));
		if (vector_bits > 0)
			LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
				LLVMCreateStringAttribute(c, "prefer-vector-width", 19, width, (unsigned)strlen(width)));
	}
	LLVMDisposeMessage(cpu);
	LLVMDisposeMessage(feat);
}

int pt_machine_optimize(LLVMModuleRef m, LLVMTargetMachineRef tm, char **err)
{
	LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
	LLVMPassBuilderOptionsSetLoopVectorization(o, 1);
	LLVMPassBuilderOptionsSetSLPVectorization(o, 1);
	/* no loop unrolling: the vectorizer's interleaving already widens the
	 * vector loops, and unrolling their scalar remainders and the tiles'
	 * many loops doubled LLVM's time on interpolate (5.6 -> 3.0 s) for
	 * run times within 3% either way (bench/results.md) */
	LLVMPassBuilderOptionsSetLoopUnrolling(o, 0);
	/* hot code: then canon-freeze and loop-reduce, as the code
	 * generator would run them first thing (llc -debug-pass=Structure);
	 * cold code (at most 5% of the work, work.c): O2, which compiled
	 * local_laplacian 7% faster and ran heat3d 1.1-1.15x slower when
	 * applied to all code (bench/results.md), and no strength reduction */
	bool o2 = !pt_machine_any_hot(m);
	LLVMErrorRef e = LLVMRunPasses(m, o2 ? "default<O2>" :
		"default<O3>,function(loop(canon-freeze,loop-reduce))", tm, o);
	LLVMDisposePassBuilderOptions(o);
	if (!e) {
		pt_machine_stream_stores(m, tm);
		return 0;
	}
	char *msg = LLVMGetErrorMessage(e);
	*err = strdup(msg);
	LLVMDisposeErrorMessage(msg);
	return -1;
}

#define COLD "polytile-cold"

void pt_machine_mark_cold(LLVMValueRef f)
{
	LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(f));
	LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
		LLVMCreateStringAttribute(c, COLD, sizeof(COLD) - 1, "", 0));
}

bool pt_machine_is_cold(LLVMValueRef f)
{
	return LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, COLD, sizeof(COLD) - 1) != NULL;
}

bool pt_machine_any_hot(LLVMModuleRef m)
{
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f) && !pt_machine_is_cold(f))
			return true;
	return false;
}

LLVMMemoryBufferRef pt_machine_emit_object(LLVMModuleRef m, LLVMTargetMachineRef tm, char **err)
{
	char *msg = NULL;
	LLVMMemoryBufferRef buf = NULL;
	if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMObjectFile, &msg, &buf)) {
		*err = strdup(msg ? msg : "LLVM could not make the object file");
		LLVMDisposeMessage(msg);
		return NULL;
	}
	return buf;
}
