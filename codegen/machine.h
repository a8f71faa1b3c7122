/* machine.h: target machines, optimization and object files. */
#ifndef PT_CODEGEN_MACHINE_H
#define PT_CODEGEN_MACHINE_H

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

/* spec NULL: the host; else TRIPLE[:CPU[:FEATURES]].  NULL and *err set
 * (caller frees) on failure. */
LLVMTargetMachineRef pt_machine_create(const char *spec, char **err);
/* The code generator's optimization level of every machine. */
LLVMCodeGenOptLevel pt_machine_level(void);
/* Triple, data layout and per-function CPU/features of the machine. */
void pt_machine_configure(LLVMModuleRef m, LLVMTargetMachineRef tm);
/* default<O3> with loop and SLP vectorization; 0 or -1 with *err. */
int pt_machine_optimize(LLVMModuleRef m, LLVMTargetMachineRef tm, char **err);
/* The object file in memory (caller disposes), or NULL with *err. */
LLVMMemoryBufferRef pt_machine_emit_object(LLVMModuleRef m, LLVMTargetMachineRef tm, char **err);
/* target_spec.c: tries machine tm in a child process (LLVM ends the
 * process on some CPUs, and ignores unknown ones with a warning): 0, or
 * -1 with *err (caller frees). */
int pt_machine_probe(LLVMTargetMachineRef tm, char **err);
/* Whether code for spec (TRIPLE[:CPU[:FEATURES]]) runs correctly on this
 * machine: same architecture and system, a CPU whose features are known
 * to be here, no feature this machine lacks or that changes the ABI.
 * 0, or -1 with *err (caller frees). */
int pt_machine_runs_here(const char *spec, char **err);

#endif
