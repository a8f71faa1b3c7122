/* target.h: what differs between targets, as function pointers over the
 * target-independent core (cg.h).  The CPU target runs parallel loops
 * through libpolytile_rt's parallel-for; GPU and MPI targets will map
 * the same marked loops to kernels and ranks. */
#ifndef PT_CODEGEN_TARGET_H
#define PT_CODEGEN_TARGET_H

#include "cg.h"

typedef struct pt_target {
	const char *name;
	/* Emits a for node marked parallel (cg->parallel_depth is set). */
	void (*parallel_for)(pt_cg *cg, __isl_keep isl_ast_node *node);
} pt_target;

extern const pt_target pt_target_cpu;

#endif
