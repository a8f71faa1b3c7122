/* machine.h: target machines, optimization and object files. */
#ifndef PT_CODEGEN_MACHINE_H
#define PT_CODEGEN_MACHINE_H

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

/* spec NULL: the host; else TRIPLE[:CPU[:FEATURES]].  NULL and *err set
 * (caller frees) on failure. */
LLVMTargetMachineRef pt_machine_create(const char *spec, char **err);
/* Triple, data layout and per-function CPU/features of the machine. */
void pt_machine_configure(LLVMModuleRef m, LLVMTargetMachineRef tm);
/* default<O3> with loop and SLP vectorization; 0 or -1 with *err. */
int pt_machine_optimize(LLVMModuleRef m, LLVMTargetMachineRef tm, char **err);
/* The object file in memory (caller disposes), or NULL with *err. */
LLVMMemoryBufferRef pt_machine_emit_object(LLVMModuleRef m, LLVMTargetMachineRef tm, char **err);

#endif
