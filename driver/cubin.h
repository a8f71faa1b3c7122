/* cubin.h: the pass "cubin" (cubin.c): the kernels' PTX assembled for
 * sm_90 into the object `polytile compile --backend cuda` writes. */
#ifndef PT_DRIVER_CUBIN_H
#define PT_DRIVER_CUBIN_H

#include <llvm-c/Core.h>

/* In host module mod of function fname: "<fname>.ptx" through ptxas
 * into "<fname>.cubin".  *log says what was done or why not (no PTX, no
 * ptxas): 0.  ptxas refusing the PTX, or failing: -1 with *err.  Both
 * malloc'ed. */
int pt_cubin_embed(LLVMModuleRef mod, const char *fname, char **log, char **err);

#endif
