/* entry.h: the pipeline's ABI functions (see entry.c). */
#ifndef PT_CODEGEN_ENTRY_H
#define PT_CODEGEN_ENTRY_H

#include "cg.h"

/* Number of ABI arguments: params, images, outputs. */
int pt_entry_nargs(const pt_pipeline *p);
/* Param indices in ABI order (ints, then floats); returns the count. */
int pt_entry_param_order(const pt_pipeline *p, int *order);
/* Emits NAME and NAME_argv around the schedule's AST. */
void pt_entry_emit(pt_cg *cg, __isl_keep isl_ast_node *tree);

#endif
