/* module.c: one LLVM module for a schedule's AST (see codegen.h). */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>

#include "codegen.h"
#include "entry.h"
#include "target.h"

/* LLVM reports loops it could not vectorize as warnings and remarks; the
 * naive schedule asks for every innermost loop, so they are expected. */
static void quiet_diagnostics(LLVMDiagnosticInfoRef di, void *user)
{
	(void)di;
	(void)user;
}

LLVMModuleRef pt_codegen_module(LLVMContextRef llc, LLVMTargetMachineRef tm, const struct pt_target *target,
	const pt_pipeline *p, const pt_model *m, const pt_storage *storage, const pt_kernels *kernels,
	const struct pt_dist *dist, __isl_keep isl_ast_node *tree, const char *fname, char **err)
{
	pt_cg cg = {0};
	LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
	cg.little_endian = LLVMByteOrder(dl) == LLVMLittleEndian;
	LLVMDisposeTargetData(dl);
	LLVMContextSetDiagnosticHandler(llc, quiet_diagnostics, NULL);
	cg.llc = llc;
	cg.b = LLVMCreateBuilderInContext(llc);
	cg.p = p;
	cg.model = m;
	cg.storage = storage;
	cg.target = target;
	cg.kernels = kernels;
	cg.dist = dist;
	cg.exchanged = calloc((size_t)(kernels ? kernels->n : 0) + 1, sizeof(bool));
	cg.fname = fname;
	cg.param = calloc((size_t)p->nparams + 1, sizeof(LLVMValueRef));
	cg.stage = calloc((size_t)p->nstages + 1, sizeof(cg_array));
	cg.image = calloc((size_t)p->nimages + 1, sizeof(cg_array));
	cg_init_types(&cg);
	if (cg.target->module_begin)
		cg.target->module_begin(&cg);
	else
		cg_add_module(&cg, fname, "host");
	pt_entry_emit(&cg, tree);
	if (cg.target->module_finish)
		cg.target->module_finish(&cg);
	LLVMDisposeBuilder(cg.b);
	free(cg.exchanged);
	free(cg.param);
	free(cg.stage);
	free(cg.image);
	/* the host module (module_finish folded any other into it) */
	cg.mod = cg.modules[0].mod;
	free(cg.modules);
	char *msg = NULL;
	if (LLVMVerifyModule(cg.mod, LLVMReturnStatusAction, &msg)) {
		*err = strdup(msg);
		LLVMDisposeMessage(msg);
		LLVMDisposeModule(cg.mod);
		return NULL;
	}
	LLVMDisposeMessage(msg);
	return cg.mod;
}

LLVMModuleRef cg_add_module(pt_cg *cg, const char *name, const char *role)
{
	cg_module *v = realloc(cg->modules, sizeof(*v) * (size_t)(cg->nmodules + 1));
	assert(v);
	cg->modules = v;
	v[cg->nmodules].mod = LLVMModuleCreateWithNameInContext(name, cg->llc);
	v[cg->nmodules].role = role;
	if (cg->nmodules == 0)
		cg->mod = v[0].mod;
	return v[cg->nmodules++].mod;
}
