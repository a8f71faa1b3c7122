/* target.h: what differs between targets, as function pointers over the
 * target-independent core (cg.h).  The core calls the hooks in this order:
 *
 *   module_begin      once per compilation unit, before anything is emitted
 *   alloc / free      for each intermediate stage, in the entry function
 *   exchange          at each for node the AST build marked PT_MARK_EXCHANGE
 *   parallel_for      at each outermost for node marked PT_MARK_PARALLEL
 *                     (a launch point)
 *   module_finish     once, after every function is emitted
 *
 * A hook left NULL is skipped.  The AST-build callback of driver/passes.c marks
 * the for nodes (pt_target_mark): a loop that carries no dependence is
 * parallel; the outermost loop of a stage's loop nest (depth 0 of the
 * naive schedule's sequence) is an exchange point, where a stage starts
 * reading what the stages before it wrote.
 *
 * The CPU target (cpu.c): one host module; intermediate stages from the
 * runtime's allocator; parallel loops through pt_parallel_for; nothing
 * to exchange (one shared memory).  What the planned targets put there:
 *
 *   CUDA  module_begin adds an NVPTX module next to the host module (the
 *         unit's list, cg->modules); parallel_for outlines the loop nest
 *         into a kernel in the NVPTX module and emits its launch in the
 *         host module; alloc/free give device memory; exchange copies
 *         between host and device where a stage's data lives elsewhere;
 *         module_finish turns the NVPTX module into PTX and embeds it in
 *         the host module with the code that loads it.
 *   MPI   module_begin declares the rank and communicator queries;
 *         parallel_for splits the loop among ranks (and threads within);
 *         alloc/free give each rank its part of a stage plus ghost zones;
 *         exchange sends and receives the ghost zones a stage reads;
 *         module_finish adds the initialization and gathering of outputs.
 */
#ifndef PT_CODEGEN_TARGET_H
#define PT_CODEGEN_TARGET_H

#include "cg.h"

typedef struct pt_target {
	const char *name;
	/* Adds the unit's modules (cg_add_module; the first is the host
	 * module, which becomes cg->mod) and declares what the target's code
	 * calls. */
	void (*module_begin)(pt_cg *cg);
	/* Completes the unit once every function is emitted; afterwards only
	 * the host module (cg->modules[0]) goes on to optimization and
	 * output, so a target folds its other modules into it here. */
	void (*module_finish)(pt_cg *cg);
	/* Memory for an intermediate stage of bytes (an i64 value): a pointer
	 * value, null when there is none; and its release. */
	LLVMValueRef (*alloc)(pt_cg *cg, LLVMValueRef bytes);
	void (*free)(pt_cg *cg, LLVMValueRef ptr);
	/* Memory of bytes for scratchpad slot (a stage of a tiled group) in
	 * the tile about to run (CPU: the thread's, reused across tiles;
	 * CUDA: shared memory of the block). */
	LLVMValueRef (*scratch)(pt_cg *cg, int slot, LLVMValueRef bytes);
	/* Emits what must happen before the loop nest node of a stage runs
	 * (marked PT_MARK_EXCHANGE); the core then emits the nest itself. */
	void (*exchange)(pt_cg *cg, __isl_keep isl_ast_node *node);
	/* Emits a for node marked parallel (cg->parallel_depth is set). */
	void (*parallel_for)(pt_cg *cg, __isl_keep isl_ast_node *node);
} pt_target;

extern const pt_target pt_target_cpu;

/* The marks of a for node, attached by the AST build's before-each-for
 * callback as the user pointer of an isl_id ("parallel" or "serial"). */
enum {
	PT_MARK_PARALLEL = 1,   /* no dependence carried: a launch point */
	PT_MARK_EXCHANGE = 2    /* the outermost loop of a stage's nest */
};
/* The annotation for a loop at depth (0: outermost) that is parallel or
 * not. */
__isl_give isl_id *pt_target_mark(isl_ctx *ctx, bool parallel, int depth);
/* The marks of a for node (0 when it has none). */
unsigned pt_target_marks(__isl_keep isl_ast_node *node);

#endif
