/* split.h: a module optimized and compiled to machine code in
 * independent pieces, several at once, then one object file.
 *
 * The pieces depend only on the module (never on the number of threads),
 * so the object is the same bytes whatever the threads. */
#ifndef PT_CODEGEN_SPLIT_H
#define PT_CODEGEN_SPLIT_H

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

typedef struct pt_split pt_split;

/* The threads to compile with when the options say 0: the CPUs this
 * process may run on. */
int pt_split_default_threads(void);

/* Module m (configured for tm, not optimized) in pieces, taking m over:
 * its functions grouped by direct calls (a parallel loop's worker with
 * its kernel), the groups spread over up to 16 pieces of similar size,
 * each a module in a context of its own.  NULL when m is too small to
 * gain from it, or tm's object format cannot be merged (m is then left
 * to the caller, which compiles it whole). */
pt_split *pt_split_new(LLVMModuleRef m, LLVMTargetMachineRef tm);
int pt_split_count(const pt_split *s);
/* How many of its pieces hold only cold functions (machine.h). */
int pt_split_cold_count(const pt_split *s);
/* Optimizes the pieces (pt_machine_optimize) on up to `threads` threads;
 * 0 or -1 with *err. */
int pt_split_optimize(pt_split *s, int threads, char **err);
/* The pieces' machine code on up to `threads` threads, merged into one
 * relocatable object (caller disposes); NULL with *err. */
LLVMMemoryBufferRef pt_split_emit(pt_split *s, int threads, char **err);
void pt_split_free(pt_split *s);

#endif
