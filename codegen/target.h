/* target.h: what differs between targets, as hooks over the
 * target-independent core (cg.h).  The driver picks the target from the
 * options' backend (pt_target_for) and hands it to pt_codegen_module;
 * a test may hand in its own.  The core calls the hooks in this order:
 *
 *   module_begin      once per compilation unit, before anything is
 *                     emitted (NULL: one host module named after the
 *                     pipeline)
 *   alloc / free      for each full buffer of an intermediate stage, in
 *                     the entry function (NULL: there is no memory for
 *                     one, and the pipeline returns PT_ERR_NOMEM)
 *   exchange          before the first loop nest of each kernel
 *                     (poly/kernel.h), with the kernel, whose inputs are
 *                     the regions it reads of arrays written elsewhere:
 *                     a GPU's copies, an MPI rank's ghost zones
 *   parallel_for      at each outermost for node marked parallel (a
 *                     launch point; NULL: the loop runs serially)
 *   tile              at each tile of a tiled kernel, its body (NULL:
 *                     the scratchpads bound, the body emitted in place)
 *   scratch           for each scratchpad of a tile (NULL: none, the
 *                     tile is skipped and PT_ERR_NOMEM returned)
 *   math              for each call of a math function (NULL: libm's)
 *   fail              where a check made while the schedule runs fails
 *                     (NULL: not reported, the safe value used)
 *   module_finish     once, after every function is emitted
 *
 * Flags say which of the core's CPU-specific code shapes a target wants
 * (see each).  The CPU target (cpu.c): one host module; buffers from the
 * runtime's allocator; parallel loops through pt_parallel_for; tiles
 * with their next tile's inputs prefetched and each nest a function of
 * its own; nothing to exchange (one shared memory).  What the planned
 * targets put there:
 *
 *   CUDA  (cuda.c) module_begin adds an NVPTX module next to the host
 *         module; parallel_for outlines every outermost piece of the
 *         schedule into a kernel there (gpu.c: grid, block, threads)
 *         and emits its launch on the host; scratch gives shared
 *         memory, tile puts barriers between nests; alloc, free and
 *         fill give device memory (PT_PLACE_DEVICE); bind and unbind
 *         move the caller's buffers; run_end waits and reads the
 *         kernels' error flag, which fail sets; math calls libdevice;
 *         module_finish turns the NVPTX module into PTX and embeds it.
 *   MPI   module_begin declares the rank and communicator queries;
 *         parallel_for splits the tiles among ranks (and threads
 *         within); alloc/free give each rank its partition plus ghost
 *         zones (PT_PLACE_PARTITION); exchange receives the per-tile
 *         footprints of the rank's tiles that other ranks own;
 *         module_finish adds the initialization and gathering of
 *         outputs.
 */
#ifndef PT_CODEGEN_TARGET_H
#define PT_CODEGEN_TARGET_H

#include "cg.h"
#include "kernel.h"
#include "polytile.h"

typedef struct pt_target {
	const char *name;
	/* where full buffers of intermediate stages live (storage.h) */
	pt_placement placement;
	/* x86 gathers 32-bit lanes, not bytes: a 1-D table of u8/u16 with
	 * constant bounds is read 32 bits wide (expr.c) */
	bool wide_table_loads;
	/* outputs past the caches stored non-temporally (stream.c) */
	bool stream_stores;
	/* the host module optimized in pieces on several threads, then
	 * merged into one object (split.c, objmerge.c); work.c marks the
	 * pieces' cold loops */
	bool split_objects;
	/* every outermost loop, tile and statement is a launch (parallel_for
	 * is called for it, parallel or not): a GPU runs all the schedule */
	bool launch_all;
	void (*module_begin)(pt_cg *cg);
	/* Completes the unit once every function is emitted; afterwards only
	 * the host module (cg->modules[0]) goes on to optimization and
	 * output, so a target folds its other modules into it here. */
	void (*module_finish)(pt_cg *cg);
	/* Memory for a full buffer of bytes (an i64 value) placed at place
	 * (the storage plan's, from the target's placement): a pointer
	 * value, null when there is none; and its release. */
	LLVMValueRef (*alloc)(pt_cg *cg, LLVMValueRef bytes, pt_placement place);
	void (*free)(pt_cg *cg, LLVMValueRef ptr);
	/* Sets n bytes (i64) of memory from alloc at ptr to byte (i8)
	 * (NULL: memset on the host). */
	void (*fill)(pt_cg *cg, LLVMValueRef ptr, LLVMValueRef byte, LLVMValueRef n);
	/* A device target's address of the caller's buffer buf (a pt_buffer
	 * *; role: enum pt_bind_role) for one run: a pointer value, null
	 * when there is none (the error recorded); unbind ends it (an output
	 * copied back) after the run.  NULL: the buffer's data. */
	LLVMValueRef (*bind)(pt_cg *cg, LLVMValueRef buf, int role);
	void (*unbind)(pt_cg *cg, LLVMValueRef buf, bool output, LLVMValueRef dev);
	/* After the schedule: waits for what it started and records what
	 * failed there (NULL: nothing to wait for). */
	void (*run_end)(pt_cg *cg);
	/* Memory of bytes for scratchpad slot (a stage of a tiled kernel) in
	 * the tile about to run (CPU: the thread's, reused across tiles;
	 * CUDA: shared memory of the block); null when there is none.  most:
	 * what bytes can be at most, known when compiled (-1: not known). */
	LLVMValueRef (*scratch)(pt_cg *cg, int slot, LLVMValueRef bytes, int64_t most);
	/* Emits what must happen before kernel k's first loop nest runs. */
	void (*exchange)(pt_cg *cg, const pt_kernel *k);
	/* Emits a for node marked parallel (cg->parallel_depth is set); with
	 * launch_all, any outermost for, mark or user node. */
	void (*parallel_for)(pt_cg *cg, __isl_keep isl_ast_node *node);
	/* Inside a GPU kernel: every thread of the block waits for the
	 * others (NULL: no such kernels). */
	void (*barrier)(pt_cg *cg);
	/* Emits one tile of k, whose body is body (cg->tile bound when
	 * cg_bind_tile could); it calls cg_scratch_begin / cg_scratch_end
	 * around its nests. */
	void (*tile)(pt_cg *cg, const pt_kernel *k, __isl_keep isl_ast_node *body);
	/* A math function of the language's intrinsics, libm's name (sinf
	 * is "sin" at f32: ty says which), applied to args. */
	LLVMValueRef (*math)(pt_cg *cg, const char *name, LLVMTypeRef ty, LLVMValueRef *args, unsigned nargs);
	/* Records failure code where bad (i1) holds, in the statement being
	 * emitted, whose point is point[0 .. n) (i64); what says what failed,
	 * "(@)" standing for the point ("cases 1 and 2 of 'f' both hold at
	 * (@)", as the interpreter says it). */
	void (*fail)(pt_cg *cg, LLVMValueRef bad, int code, const char *what, const LLVMValueRef *point, int n);
} pt_target;

extern const pt_target pt_target_cpu;
/* the CUDA target (cuda.c) and its emulation on the CPU (cuda_emu.c) */
extern const pt_target pt_target_cuda, pt_target_cuda_emu;

/* cpu.c's hooks, which the emulation shares */
LLVMValueRef cg_cpu_alloc(pt_cg *cg, LLVMValueRef bytes, pt_placement place);
void cg_cpu_free(pt_cg *cg, LLVMValueRef ptr);
void cg_cpu_fail(pt_cg *cg, LLVMValueRef bad, int code, const char *what, const LLVMValueRef *pt, int n);


/* The target of backend b, or NULL with *err (caller frees) when this
 * build has none. */
const pt_target *pt_target_for(pt_backend b, char **err);

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
