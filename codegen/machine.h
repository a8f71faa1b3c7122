/* machine.h: target machines, optimization and object files. */
#ifndef PT_CODEGEN_MACHINE_H
#define PT_CODEGEN_MACHINE_H

#include <stdbool.h>

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

/* spec NULL: the host; else TRIPLE[:CPU[:FEATURES]], tried with
 * pt_machine_probe (target_spec.c).  NULL and *err set (caller frees) on
 * failure. */
LLVMTargetMachineRef pt_machine_create(const char *spec, char **err);
/* The same without the probe (machine.c). */
LLVMTargetMachineRef pt_machine_new(const char *spec, char **err);
/* The code generator's optimization level of every machine. */
LLVMCodeGenOptLevel pt_machine_level(void);
/* Triple, data layout and per-function CPU/features of the machine;
 * vector_bits > 0: the vectorizers' preferred width (LLVM keeps 256 on
 * many AVX-512 CPUs; the tile model plans for the widest registers). */
void pt_machine_configure(LLVMModuleRef m, LLVMTargetMachineRef tm, int vector_bits);
/* default<O3> with loop and SLP vectorization, then loop strength
 * reduction (which the code generator does not run: -disable-lsr);
 * default<O2> alone when every defined function of m is cold; 0 or -1
 * with *err. */
int pt_machine_optimize(LLVMModuleRef m, LLVMTargetMachineRef tm, char **err);
/* After pt_machine_optimize: the vector stores codegen tagged with
 * cg_stream_store become non-temporal, and functions with such a store
 * end with a fence (stream.c).  Returns how many stores it marked. */
int pt_machine_stream_stores(LLVMModuleRef m, LLVMTargetMachineRef tm);
/* Cold functions: the loops of a small share of the pipeline's work
 * (codegen/work.c), for which O3 and strength reduction are not worth
 * their time;
 * the mark is a string attribute on the function. */
void pt_machine_mark_cold(LLVMValueRef f);
bool pt_machine_is_cold(LLVMValueRef f);
/* Whether m defines a function that is not cold. */
bool pt_machine_any_hot(LLVMModuleRef m);
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
