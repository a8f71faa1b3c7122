/* codegen.h: what the driver's passes call in codegen/: one LLVM module
 * for a schedule's AST (the target-independent core with a target), and
 * the machine (machine.h) that optimizes it and writes objects. */
#ifndef PT_CODEGEN_CODEGEN_H
#define PT_CODEGEN_CODEGEN_H

#include <isl/ast.h>
#include <llvm-c/Core.h>

#include "ir.h"
#include "machine.h"
#include "model.h"
#include "storage.h"
#include "kernel.h"

struct pt_target;
struct pt_dist;

/* The module holding the ABI functions fname and fname_argv of p, which
 * run tree (an AST of a schedule of m's statements, for nodes annotated
 * by pt_target_mark) on target (target.h), its kernels described by
 * kernels (and, for the MPI target, split among ranks by dist; NULL
 * otherwise), verified, for machine tm (its byte order).  NULL with *err
 * (caller frees) when LLVM rejects it (an internal error). */
LLVMModuleRef pt_codegen_module(LLVMContextRef llc, LLVMTargetMachineRef tm, const struct pt_target *target,
	const pt_pipeline *p, const pt_model *m, const pt_storage *storage, const pt_kernels *kernels,
	const struct pt_dist *dist, __isl_keep isl_ast_node *tree, const char *fname, char **err);

/* Global g (of its module) replaced by an internal constant of the n
 * bytes of data (and a NUL after them when nul) aligned to align, under
 * its name: the CUDA target's PTX and cubin (driver/cubin.c). */
LLVMValueRef pt_codegen_define_bytes(LLVMValueRef g, const char *data, size_t n, bool nul, unsigned align);

#endif
