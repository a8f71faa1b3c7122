/* target.h: what differs between targets, as hooks over the
 * target-independent core (cg.h).  The driver picks the target from the
 * options' backend (pt_target_for) and hands it to pt_codegen_module;
 * a test may hand in its own.  The core calls the hooks in this order:
 *
 *   module_begin      once per compilation unit, before anything is
 *                     emitted (NULL: one host module named after the
 *                     pipeline)
 *   partition         in the entry function, before the intermediate
 *                     stages are sized: a rank's part of each
 *   alloc / free      for each full buffer of an intermediate stage, in
 *                     the entry function (NULL: there is no memory for
 *                     one, and the pipeline returns PT_ERR_NOMEM)
 *   run_begin         in the function that runs the schedule, first
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
 *   MPI   (mpi.c) the CPU's hooks within a rank; the schedule is limited
 *         to the rank's part of each kernel (poly/distribute.h), whose
 *         bounds run_begin binds; exchange receives what the kernel's
 *         part reads of parts other ranks wrote; run_end gathers the
 *         outputs on rank 0 and agrees on errors; early_return tells
 *         the other ranks.  partition binds the rank's parts and sizes
 *         each intermediate a split kernel writes to the box the rank
 *         writes and reads of it (PT_PLACE_PARTITION); the caller's
 *         inputs and outputs stay whole.
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
	/* a read at a data-dependent index computes its offset in 32 bits
	 * where every array is smaller than 2 GiB (expr.c, ast.c) */
	bool narrow_gathers;
	/* outputs past the caches stored non-temporally (stream.c) */
	bool stream_stores;
	/* a scatter's loop whose targets and values cost some arithmetic
	 * runs in strips: the values computed into arrays on the stack in a
	 * vectorized loop, then applied in a serial one (types.c, stmt.c) */
	bool strip_scatters;
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
	 * copied back) after the run.  NULL: the buffer's data.  box (NULL
	 * but for an output PT_BIND_OUTPUT_PARTIAL whose defined points are
	 * a box): an i64 array of that box, its first element along each
	 * dim then its last, in the buffer's elements. */
	LLVMValueRef (*bind)(pt_cg *cg, LLVMValueRef buf, int role, LLVMValueRef box);
	void (*unbind)(pt_cg *cg, LLVMValueRef buf, bool output, LLVMValueRef dev, LLVMValueRef box);
	/* In the entry function, once the params are checked and before the
	 * intermediate stages are sized (NULL: every full buffer whole): per
	 * stage placed PT_PLACE_PARTITION, the part of it this process holds,
	 * its extents into box[stage index] and its first point into
	 * cg->stage[id].origin (MPI: the rank's parts bound, then each
	 * partitioned stage's box); with part_function, also the caller's
	 * images' (iext, cg->image[].origin) and outputs' when NAME_local
	 * was called (cg->local_parts). */
	void (*partition)(pt_cg *cg, LLVMValueRef (*box)[PT_MAX_DIMS], LLVMValueRef (*iext)[PT_MAX_DIMS]);
	/* Emits NAME_part (MPI: the box of each input and output a rank's
	 * buffer covers under the local-part ABI, NAME_local, which the
	 * entry then has too; see header.c); NULL: neither. */
	void (*part_function)(pt_cg *cg);
	/* Streamed copies (poly/stream_plan.h; pt_runtime.h's
	 * pt_gpu_stream): in a run with a plan, bind and unbind see
	 * cg->streamed (the plan copies the buffers), and stream(plan) is
	 * called before the run's launch, stream(null) after.  NULL: no
	 * streaming.  bind_streamed_only: bind and unbind only then. */
	void (*stream)(pt_cg *cg, LLVMValueRef plan);
	bool bind_streamed_only;
	/* In the function that runs the schedule, before it (MPI: the
	 * rank's parts, which name_value then reads). */
	void (*run_begin)(pt_cg *cg);
	/* The value of a name the schedule's bounds use that is neither an
	 * iterator nor a param (an MPI rank's part), or NULL. */
	LLVMValueRef (*name_value)(pt_cg *cg, const char *name);
	/* After the schedule: waits for what it started and records what
	 * failed there (NULL: nothing to wait for). */
	void (*run_end)(pt_cg *cg);
	/* Before the pipeline function returns code (an i32) early, a check
	 * of its arguments or an allocation having failed (NULL: nothing to
	 * do; MPI: the other ranks are told). */
	void (*early_return)(pt_cg *cg, LLVMValueRef code);
	/* Memory of bytes for scratchpad slot (a stage of a tiled kernel) in
	 * the tile about to run (CPU: the thread's, reused across tiles;
	 * CUDA: shared memory of the block); null when there is none.  most:
	 * what bytes can be at most, known when compiled (-1: not known). */
	LLVMValueRef (*scratch)(pt_cg *cg, int slot, LLVMValueRef bytes, int64_t most);
	/* Emits what must happen before kernel k's first loop nest runs. */
	void (*exchange)(pt_cg *cg, const pt_kernel *k);
	/* Whether kernel k's code runs one of its steps (MPI: a time-iterated
	 * kernel split between its steps); then the code of the kernel runs
	 * in a loop over the steps step_range gives, each iteration after
	 * step(cg, k, t) (NULL: no such kernels). */
	bool (*stepped)(pt_cg *cg, int k);
	void (*step_range)(pt_cg *cg, int k, LLVMValueRef *first, LLVMValueRef *last);
	void (*step)(pt_cg *cg, int k, LLVMValueRef t);
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
/* the MPI target (mpi.c; only in builds with Open MPI) */
extern const pt_target pt_target_mpi;

/* cpu.c's hooks, which the emulation shares */
LLVMValueRef cg_cpu_alloc(pt_cg *cg, LLVMValueRef bytes, pt_placement place);
void cg_cpu_free(pt_cg *cg, LLVMValueRef ptr);
void cg_cpu_fail(pt_cg *cg, LLVMValueRef bad, int code, const char *what, const LLVMValueRef *pt, int n);
/* and the ones the MPI target (mpi.c) shares: within a rank, the CPU's */
void cg_cpu_module_begin(pt_cg *cg);
void cg_cpu_module_finish(pt_cg *cg);
LLVMValueRef cg_cpu_scratch(pt_cg *cg, int slot, LLVMValueRef bytes, int64_t most);
void cg_cpu_parallel_for(pt_cg *cg, __isl_keep isl_ast_node *node);
void cg_cpu_tile(pt_cg *cg, const pt_kernel *k, __isl_keep isl_ast_node *body);


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
