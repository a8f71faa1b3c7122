/* cg.h: the state of one translation of a pipeline to LLVM IR.
 *
 * The core is target-independent: it turns isl's AST and the IR into
 * LLVM IR through the C API, in layers that call only down:
 *
 *   module.c, entry.c      the unit's modules, the entry function
 *   ast.c                  the AST walk (loops, guards, marks)
 *   version.c, closure.c   loop versions; outlining
 *   astexpr.c              isl's expressions, iterators, user nodes
 *   scratch.c              a tile's scratchpads
 *   stmt.c                 one statement instance
 *   size.c                 checked sizes
 *   expr.c                 the IR's expressions, addresses, checked reads
 *   rtcheck.c              what is proven; failures recorded at run time
 *   types.c                LLVM types, calls, blocks, counted loops
 *
 * What a target does differently (how a parallel loop runs, a tile's
 * nests, which machine code comes out) sits behind pt_target (target.h);
 * a target (cpu.c with nests.c, prefetch.c, stream.c, work.c, split.c)
 * is above the core and calls into it; the core calls a target only
 * through its hooks.  tests/layers.sh checks that no file calls up. */
#ifndef PT_CODEGEN_CG_H
#define PT_CODEGEN_CG_H

#include <stdbool.h>

#include <isl/ast.h>
#include <llvm-c/Core.h>

#include "ir.h"
#include "model.h"
#include "storage.h"
#include "statements.h"
#include "kernel.h"

struct pt_target;

/* Where an array (a stage's buffer or an input image) lives: base pointer,
 * strides in elements (the last is 1) and, for stages, the domain's lower
 * bounds (element 0 is the point lo). */
typedef struct cg_array {
	LLVMValueRef ptr;
	LLVMValueRef stride[PT_MAX_DIMS];
	int ndim;
	int type;
	/* a scratchpad: one tile of stage si of group (ptr bound inside the
	 * tile, at the group's "tile" mark); element 0 is the widened tile's
	 * first point */
	const pt_group *group;
	int si;
	/* a full buffer of the storage plan (storage.h): dimension 0 kept
	 * modulo fold (0: not folded); shared: another stage uses the same
	 * memory at another time, so its pointer is not noalias */
	int fold;
	int fold_steps;     /* > 1: folded by blocks of that many steps (storage.h) */
	bool shared;
	/* a rank's partition of a full buffer (PT_PLACE_PARTITION): per dim,
	 * the global index of element 0 (NULL: the domain's lower bound) */
	LLVMValueRef origin[PT_MAX_DIMS];
	/* an intermediate whose plane at dimension 0 = the plane output's
	 * index is stored in that output's buffer (storage.h plane_out), and
	 * the output whose own copy is then skipped */
	const pt_stage *plane_out;
	bool plane_skip;
	/* a scalar (an alloca): every element read is the one just written */
	bool scalar;
	/* a pipeline output written once per point and read by no stage, large
	 * against the caches: its vector stores bypass them (cg_stream_store) */
	bool stream;
	/* a stage whose undefined points only the run can tell (its cases'
	 * conditions read data): a byte per element, at the element's
	 * offset, 1 where a case defined it; NULL when not tracked */
	LLVMValueRef mask;
} cg_array;

/* An isl AST iterator bound to its current value (i64). */
typedef struct cg_iter {
	char *name;
	LLVMValueRef v;
} cg_iter;

#define CG_MAX_ITERS 64

/* One module of a compilation unit: the host module (entry functions and
 * what runs on the CPU) or one a target adds (an NVPTX module of
 * kernels). */
typedef struct cg_module {
	LLVMModuleRef mod;
	const char *role;           /* "host", "nvptx", ... */
} cg_module;

typedef struct cg_work cg_work;

/* Updates in one loop body that strips take (codegen/types.c; bilateral
 * grid's sum and count: two). */
#define CG_STRIP_STMTS 4

typedef struct pt_cg {
	LLVMContextRef llc;
	LLVMModuleRef mod;          /* the module being emitted into (host) */
	cg_module *modules;         /* the unit's modules, host first */
	int nmodules;
	LLVMBuilderRef b;
	const pt_pipeline *p;
	const pt_model *model;      /* the statements the AST's user nodes name */
	const pt_storage *storage;  /* where intermediate stages live */
	const struct pt_target *target;
	const pt_kernels *kernels;  /* what the target maps (poly/kernel.h) */
	/* the MPI target's split of the kernels (poly/distribute.h), NULL otherwise */
	const struct pt_dist *dist;
	bool *exchanged;            /* per kernel: its exchange emitted */
	bool in_steps;              /* inside a stepped kernel's loop (ast.c) */
	/* in the entry function of a target with NAME_local (target.h
	 * part_function): i1, whether the caller's buffers are the rank's
	 * parts; NULL otherwise */
	LLVMValueRef local_parts;
	const char *fname;          /* the pipeline function's name */
	/* values visible in the function being built */
	LLVMValueRef *param;        /* per pipeline param, its declared type */
	cg_array *stage;            /* per stage id */
	cg_array *image;            /* per image id */
	cg_iter iter[CG_MAX_ITERS];
	int niters;
	LLVMValueRef fn;
	/* the statement being emitted: its point as i64 and as the IR's i32 */
	const pt_stmt *stmt;
	LLVMValueRef var64[2 * PT_MAX_DIMS];
	LLVMValueRef var32[2 * PT_MAX_DIMS];
	/* a split statement (stmt->split > 1): its innermost point dim is
	 * split * k + part; k as i64 and i32, so that y / split is k */
	LLVMValueRef split_k64, split_k32;
	LLVMValueRef tile[PT_MAX_DIMS];  /* its tile coordinates (stmt->ntile) */
	LLVMValueRef operand[2];    /* a general update's accumulator and value (stmt.c) */
	/* in a tile of a time-tiled group (scratch.c): its stage's full
	 * buffer (tt_full; cg->stage holds the tile's scratchpad), and while
	 * a statement of one of its phases runs, the array it writes */
	cg_array tt_full_buf, tt_scratch;
	const cg_array *tt_full, *tt_write;
	int parallel_depth;         /* > 0 inside a parallel loop */
	int loop_depth;      /* for nodes around the node being emitted */
	/* inside a GPU kernel (gpu.c): the schedule dims whose loops are
	 * spread over the block's threads (thread_dim[0] along x), each
	 * thread's index (i64) and the block's extent along them, and how
	 * many such loops enclose the code being emitted (ast.c) */
	int nthread_dims;
	int thread_dim[2];
	LLVMValueRef thread_id[2];
	int64_t thread_n[2];
	int thread_bound[2];
	int barriers;               /* barriers emitted so far (target->barrier) */
	/* in a GPU kernel whose statements are all updates of reductions
	 * the device does atomically (gpu.c): every loop is parallel, each
	 * update an atomic read-modify-write (stmt.c) */
	bool atomic_updates;
	void *target_state;         /* the target's own, from module_begin */
	/* emitting the version of an innermost loop where every statement
	 * cg_version_candidate() accepts takes its version's case (version.c) */
	bool version_forced;
	/* i1, true in a run whose arrays all take less than 2 GiB (entry.c;
	 * NULL when the target does not narrow), and whether the loop being
	 * emitted is the version that relies on it */
	LLVMValueRef narrow_ok;
	bool narrow;
	/* ... and with version_first, the first case (version.c's whole
	 * loops where one disjunct of it holds) */
	bool version_first;
	/* a scatter's loop in strips (CG_VEC_STRIPS): 1 while the strip's
	 * first loop computes each iteration's target and value into
	 * strip_idx and strip_val (stmt.c allocates them), 2 while its
	 * second applies them; strip_j is the iteration's place in the strip */
	int strip_phase;
	LLVMValueRef strip_j;
	/* per update of the loop's body, in its order (strip_k counts them
	 * in each iteration): its arrays, and strip_val's element type */
	int strip_k;
	LLVMValueRef strip_idx[CG_STRIP_STMTS], strip_val[CG_STRIP_STMTS];
	LLVMTypeRef strip_vt[CG_STRIP_STMTS];
	int nfuncs;                 /* for unique names of outlined functions */
	int streams;                /* streamed stores emitted so far (stream.c) */
	bool nest_streams;          /* a nest of the kernel being built streams */
	double nest_points;         /* its nests' noted points (work.c; -1: unknown) */
	struct cg_work *work;       /* the parallel loops' shares (work.c) */
	int nwork;
	bool little_endian;         /* the target's byte order */
	bool streamed;              /* this run's copies go in chunks (copy_plan.c) */
	LLVMValueRef stream_launch; /* what names the streamed kernel's launch (gpu.c) */
	/* types */
	LLVMTypeRef i1, i8, i16, i32, i64, f32, f64, ptr, vd, buf_ty;
} pt_cg;

/* entry.c: the params of an argv-style entry (ip, fp: i64 and f64
 * arrays in declaration order) loaded, range-checked and converted,
 * into args in ABI order; the module's flag (an i8 global) that makes
 * the entry's buffers a rank's parts (NAME_local). */
void cg_entry_argv_params(pt_cg *cg, LLVMValueRef ip, LLVMValueRef fp, LLVMValueRef *args);
LLVMValueRef cg_local_flag(pt_cg *cg);

/* Bytes past the end of every intermediate buffer, which a table
 * lookup's widened load may read (expr.c). */
#define CG_LOAD_PAD PT_STORAGE_PAD

/* Adds a module named name to the unit (the first one becomes cg->mod). */
LLVMModuleRef cg_add_module(pt_cg *cg, const char *name, const char *role);

/* types.c */
void cg_init_types(pt_cg *cg);
LLVMTypeRef cg_type(pt_cg *cg, int t);          /* a pt_type or PT_BOOL */
LLVMValueRef cg_i64(pt_cg *cg, int64_t v);
LLVMValueRef cg_call_intrinsic(pt_cg *cg, const char *name, LLVMTypeRef ty,
	LLVMValueRef *args, unsigned nargs);
LLVMValueRef cg_call_libm(pt_cg *cg, const char *name, LLVMTypeRef ty,
	LLVMValueRef *args, unsigned nargs);
/* A math function through the target (libm's when it has no hook). */
LLVMValueRef cg_call_math(pt_cg *cg, const char *name, LLVMTypeRef ty,
	LLVMValueRef *args, unsigned nargs);
LLVMValueRef cg_call(pt_cg *cg, const char *name, LLVMTypeRef ret,
	LLVMTypeRef *ptys, LLVMValueRef *args, unsigned nargs);
LLVMBasicBlockRef cg_block(pt_cg *cg, const char *name);

/* expr.c: IR expressions with the language's semantics (values.c) */
LLVMValueRef cg_expr(pt_cg *cg, const pt_expr *e);
LLVMValueRef cg_expr_as(pt_cg *cg, const pt_expr *e, int to);
LLVMValueRef cg_convert(pt_cg *cg, LLVMValueRef v, int from, int to);
/* min/max with the language's semantics (floats: a NaN is ignored). */
LLVMValueRef cg_minmax(pt_cg *cg, int t, LLVMValueRef x, LLVMValueRef y, bool want_min);
/* An int expression as an exact i64 index. */
LLVMValueRef cg_index(pt_cg *cg, const pt_expr *e);
/* Index i (from the origin) of dimension 0 of a folded array a at its
 * folded place. */
LLVMValueRef cg_fold_index(pt_cg *cg, const cg_array *a, LLVMValueRef i);
/* Address of element idx (i64 each) of an array. */
LLVMValueRef cg_address(pt_cg *cg, const cg_array *a, const pt_stage *s, LLVMValueRef *idx);
/* An affine bound (domain, extent) in params as i64. */
LLVMValueRef cg_param_expr(pt_cg *cg, const pt_expr *e);

/* work.c: notes the functions of parallel loop node and the statement
 * instances under it at the params' estimates; once every loop is
 * noted, cg_work_mark_cold marks those of the smallest shares cold
 * (machine.h), together at most 5% of the pipeline's instances (none
 * when a param has no estimate).  A tile's nest (nests.c) is noted with
 * worker NULL, before the kernel that calls it, whose share is then
 * what its nests do not run. */
void cg_work_note(pt_cg *cg, __isl_keep isl_ast_node *node, LLVMValueRef worker, LLVMValueRef kernel);
void cg_work_mark_cold(pt_cg *cg);

/* size.c: the extent of a stage's domain box in dim d (i64), as the
 * interpreter sizes it. */
LLVMValueRef cg_box_extent(pt_cg *cg, const pt_stage *s, int d);

/* size.c: sizes in i64 whose overflows are or-ed into *ovf (an i1, NULL
 * before the first): a op b for op "sadd", "ssub", "smul"; an affine
 * bound in params; a box extent; the bytes of a dense array of extents
 * ext (its strides into stride[] unless NULL). */
LLVMValueRef cg_checked(pt_cg *cg, const char *op, LLVMValueRef a, LLVMValueRef b, LLVMValueRef *ovf);
LLVMValueRef cg_checked_param_expr(pt_cg *cg, const pt_expr *e, LLVMValueRef *ovf);
LLVMValueRef cg_checked_box_extent(pt_cg *cg, const pt_stage *s, int d, LLVMValueRef *ovf);
LLVMValueRef cg_checked_bytes(pt_cg *cg, int ndim, LLVMValueRef *ext, int type, LLVMValueRef *stride, LLVMValueRef *ovf);
/* entry.c: an array of that many bytes (i64) in this run; narrow_ok
 * stays true while all are below 2 GiB (less a margin) */
void cg_note_narrow(pt_cg *cg, LLVMValueRef bytes);

/* rtcheck.c: checks made while the schedule runs (see there).  Whether
 * index e of a read is proven in bounds statically; whether a case's
 * condition is affine (its overlaps decided statically); records code
 * (pt_rt_fail) where bad holds.  expr.c: idx of call's dimension d,
 * checked when not proven (a safe index after the failure is
 * recorded). */
bool cg_index_proven(pt_cg *cg, const pt_expr *e);
bool cg_cond_decided(pt_cg *cg, const pt_expr *cond);
void cg_fail_at_run_time(pt_cg *cg, LLVMValueRef bad, int code, const char *what);
LLVMValueRef cg_checked_index(pt_cg *cg, const pt_expr *call, int d, LLVMValueRef idx);
/* Whether intermediate stage s gets a mask (cg_array.mask): a function
 * without an `else` some of whose conditions isl cannot decide. */
bool cg_stage_needs_mask(pt_cg *cg, const pt_stage *s);
/* rtcheck.c: whether a case of s holds at every point of its domain */
bool cg_stage_defines_all(const pt_stage *s);
/* expr.c: the address of the mask byte of element idx of stage s. */
LLVMValueRef cg_mask_address(pt_cg *cg, const pt_stage *s, LLVMValueRef *idx);

/* prefetch.c: at the start of a tile of g (cg->tile bound), prefetches
 * to L2 the image lines the next tile along the innermost tile dim reads */
void cg_prefetch_next_tile(pt_cg *cg, const pt_group *g);

/* scratch.c: scratchpads of a tiled group, bound at its "tile" mark */
/* Binds the scratchpads of g's inner stages at its "tile" mark, whose
 * body is tile; a stage read only in its own fused nest at its own point
 * gets a scalar instead (see scratch.c). */
LLVMBasicBlockRef cg_scratch_begin(pt_cg *cg, const pt_kernel *k);
/* skip: what cg_scratch_begin returned (where a tile whose scratchpad
 * the runtime refused goes), or NULL */
void cg_scratch_end(pt_cg *cg, const pt_kernel *k, LLVMBasicBlockRef skip);
/* Binds cg->tile at the start of one tile of k (body: what its mark
 * holds) when the tile's coordinates are computed from what is bound
 * outside the tile; false if not. */
bool cg_bind_tile(pt_cg *cg, const pt_kernel *k, __isl_keep isl_ast_node *body);
/* nests.c: emits the body of a tile of g, each loop nest in a function
 * of its own when there are several */
void cg_tile_nests(pt_cg *cg, const pt_group *g, __isl_keep isl_ast_node *body);

/* expr.c: the first point of the current tile's scratchpad a in stage
 * dim d. */
LLVMValueRef cg_scratch_origin(pt_cg *cg, const cg_array *a, int d);

/* stmt.c: the body of one statement instance */
void cg_stmt(pt_cg *cg, const pt_stmt *st, LLVMValueRef *point);
/* Whether st is an update a GPU may do atomically, in any order: a sum,
 * min or max of 32- or 64-bit integers whose case reads not the stage
 * itself. */
bool cg_stmt_atomic(const pt_stmt *st);
/* The read-modify-write of such an update (stage s's reduction). */
LLVMAtomicRMWBinOp cg_atomic_op(const pt_stage *s);
/* The identity of s's reduction, in s's type. */
LLVMValueRef cg_reduce_identity(pt_cg *cg, const pt_stage *s);
/* Case k's condition (an i1) of st's stage at point. */
LLVMValueRef cg_stmt_cond(pt_cg *cg, const pt_stmt *st, LLVMValueRef *point, int k);

/* stmt.c: the case of st, which chooses its case at run time, that
 * holds at every point of a loop once it holds at its ends, or -1;
 * *region (kept by st): the set to test at the ends, NULL when it is the
 * case's own condition (the first case, a conjunction of comparisons) */
int cg_version_case(const pt_cg *cg, const pt_stmt *st, isl_basic_set **region);
bool cg_version_candidate(const pt_cg *cg, const pt_stmt *st);
/* For a candidate tested by its region (its first case a disjunction):
 * the disjuncts of the first case's condition into out (at most max),
 * each a conjunction of affine comparisons, and their number; 0 when
 * that is not so. */
int cg_version_first_disjuncts(const pt_cg *cg, const pt_stmt *st, const pt_expr **out, int max);
/* Condition e (of st's stage) at st's point. */
LLVMValueRef cg_stmt_expr_cond(pt_cg *cg, const pt_stmt *st, LLVMValueRef *point, const pt_expr *e);
/* version.c: innermost loops in two versions, one where those
 * statements take that case */
/* The test (an i1) that every candidate statement of for node's body
 * takes its version's case at the loop's first and last iterator values,
 * hence at all (NULL: no candidate). */
LLVMValueRef cg_version_test(pt_cg *cg, __isl_keep isl_ast_node *node, LLVMValueRef first, LLVMValueRef last);
/* When every candidate of for node's body is tested by its region: true,
 * with the iterations [*lo, *hi) of its n (iterator init + k inc) where
 * all of them take their version's case (the loop then runs in three
 * parts, the middle one that version); false otherwise. */
bool cg_version_range(pt_cg *cg, __isl_keep isl_ast_node *node, LLVMValueRef init, int64_t inc, LLVMValueRef n,
	LLVMValueRef *lo, LLVMValueRef *hi);
/* When every candidate of for node's body is tested by its region and
 * its first case is a disjunction of conjunctions of affine comparisons:
 * the test (an i1) that for each of them one disjunct holds at the
 * loop's first and last iterator values, hence at all, and the first
 * case with it (heat3d's rows at t == 0 and on border planes); NULL
 * otherwise. */
LLVMValueRef cg_version_whole_first(pt_cg *cg, __isl_keep isl_ast_node *node, LLVMValueRef first, LLVMValueRef last);

/* ast.c: isl AST to LLVM IR */
void cg_ast(pt_cg *cg, __isl_keep isl_ast_node *node);
/* An if node, its then and else nodes emitted by branch. */
void cg_if(pt_cg *cg, __isl_keep isl_ast_node *node, void (*branch)(pt_cg *cg, __isl_keep isl_ast_node *n, void *data),
	void *data);
/* astexpr.c: isl's AST expressions in i64, names bound, user nodes */
LLVMValueRef cg_ast_expr(pt_cg *cg, __isl_keep isl_ast_expr *e);
/* The value of pa (over the params and the names bound) where it is
 * defined; *defined: whether it is (NULL: assumed). */
LLVMValueRef cg_pw_value(pt_cg *cg, __isl_keep isl_pw_aff *pa, LLVMValueRef *defined);
/* The first user node under node (a copy), or NULL. */
__isl_give isl_ast_node *cg_first_user(__isl_keep isl_ast_node *node);
/* A user node's statement, its tile coordinates bound (cg->tile) and its
 * point filled in. */
const pt_stmt *cg_user_point(pt_cg *cg, __isl_keep isl_ast_node *node, LLVMValueRef *point);
/* Whether isl AST expression e names the identifier called name. */
bool cg_ast_expr_mentions(__isl_keep isl_ast_expr *e, const char *name);
/* A for node's first value, last value (inclusive) and step. */
void cg_loop_bounds(pt_cg *cg, __isl_keep isl_ast_node *node, LLVMValueRef *init,
	LLVMValueRef *last, int64_t *inc);
LLVMValueRef cg_trip_count(pt_cg *cg, LLVMValueRef init, LLVMValueRef last, int64_t inc);
/* copy_plan.c: whether the run of tree streams its copies (the target
 * streams, the kernels have a plan, tree is the run's one launch), and
 * that plan (a pt_gpu_stream) over the nbuf bound buffers buf (their
 * device addresses dev), in the entry function. */
bool cg_copy_plan_possible(const pt_cg *cg, __isl_keep isl_ast_node *tree);
LLVMValueRef cg_copy_plan(pt_cg *cg, __isl_keep isl_ast_node *tree, int nbuf, const LLVMValueRef *buf,
	const LLVMValueRef *dev, const bool *output);
/* The statement of an AST user node. */
const pt_stmt *cg_user_stmt(const pt_cg *cg, __isl_keep isl_ast_node *node);
/* Case k's condition of a user node's statement at its point. */
LLVMValueRef cg_user_cond(pt_cg *cg, __isl_keep isl_ast_node *node, int k);
/* Iteration k of a for node: its iterator is init + k * inc. */
typedef struct cg_for_data {
	isl_ast_node *node;
	LLVMValueRef init;
	int64_t inc;
} cg_for_data;
void cg_for_step(pt_cg *cg, LLVMValueRef k, void *data);
/* The schedule dim a for node's iterator stands for (isl's c<k>: k),
 * or -1. */
int cg_for_dim(__isl_keep isl_ast_node *node);
/* Whether a for node has no loop inside (it gets vectorized). */
bool cg_for_innermost(__isl_keep isl_ast_node *node);
/* Binds name (an isl iterator, or a value a target carries into an
 * outlined function) to v; cg_unbind_iter drops the last one. */
void cg_push_iter(pt_cg *cg, const char *name, LLVMValueRef v);
/* Binds a for node's iterator to i (and the last bound one off). */
void cg_bind_iter(pt_cg *cg, __isl_keep isl_ast_node *node, LLVMValueRef i);
void cg_unbind_iter(pt_cg *cg);
/* The loop body of a for node with iterator value i (used by targets). */
void cg_for_body(pt_cg *cg, __isl_keep isl_ast_node *node, LLVMValueRef i);
/* What a loop asks of LLVM's loop vectorizer. */
typedef enum cg_vectorize {
	CG_VEC_DEFAULT,         /* nothing: LLVM's cost model decides */
	CG_VEC_FORCE,           /* vectorize (no carried dependence) */
	CG_VEC_OFF,             /* keep scalar */
	CG_VEC_UNROLL,          /* keep scalar, unrolled CG_UNROLL times */
	CG_VEC_STRIPS,          /* a scatter in strips of CG_STRIP iterations */
} cg_vectorize;
/* How many times a scatter's loop is unrolled (the one unrolling asked
 * of LLVM, whose own unroller is off: machine.c). */
#define CG_UNROLL 4
/* Iterations of a scatter's strip: its arrays stay in L1. */
#define CG_STRIP 256
/* Marks the branch br as the latch of a loop LLVM must vectorize
 * (CG_VEC_FORCE) or must leave scalar (CG_VEC_OFF, CG_VEC_UNROLL, the
 * last unrolled). */
void cg_loop_vectorize(pt_cg *cg, LLVMValueRef br, cg_vectorize vectorize);
/* The request for the for node with step inc, parallel or not: innermost
 * parallel unit-step loops are vectorized, unless a statement in them
 * reads along its innermost dim through a division or remainder of it
 * (f(y/2): one gather per lane); innermost serial unit-step loops that
 * update a reduction at data-dependent points (a histogram's
 * h(I(x, y)) += 1, which has no vector form) are unrolled, or, where the
 * target allows and the loop's one statement computes its target and
 * value with some arithmetic (a histogram of a filtered image), run in
 * strips. */
cg_vectorize cg_for_vectorize(const pt_cg *cg, __isl_keep isl_ast_node *node, bool parallel, int64_t inc);
/* Emits emit(cg, data) twice, under a branch on narrow_ok, with
 * cg->narrow set in the first (where every array is below 2 GiB, so
 * offsets fit in 32 bits), or once where the target has no narrow_ok or
 * the code is already inside such a version. */
void cg_narrow_versions(pt_cg *cg, void (*emit)(pt_cg *cg, void *data), void *data);
/* Emits a counted loop k = 0 .. n-1 calling body(cg, k, data). */
void cg_counted_loop(pt_cg *cg, LLVMValueRef lo, LLVMValueRef hi, cg_vectorize vectorize,
	void (*body)(pt_cg *cg, LLVMValueRef k, void *data), void *data);

/* Marks store st to a streamed array (cg_array.stream); after
 * optimization its vector form becomes non-temporal
 * (pt_machine_stream_stores). */
void cg_stream_store(pt_cg *cg, LLVMValueRef st);
/* Marks f as a tile's nest (nests.c): its streamed stores get no fence
 * of their own; its kernel ends with cg_stream_fence. */
void cg_stream_mark_nest(pt_cg *cg, LLVMValueRef f);
void cg_stream_fence(pt_cg *cg);

/* closure.c: the values a function sees, to outline code into a new
 * function (parallel loop bodies, the noalias kernel). */
typedef struct cg_closure {
	int n;
	LLVMValueRef **slot;        /* addresses of the cg fields bound */
	LLVMValueRef *saved;
	LLVMTypeRef *type;
	bool *noalias;              /* per slot: a pointer that may be noalias */
} cg_closure;
/* Captures params, iterators and the arrays that node's statements use
 * (node NULL: every array). */
void cg_closure_capture(pt_cg *cg, cg_closure *c, __isl_keep isl_ast_node *node);
/* An alloca of type t in the current function's entry block. */
LLVMValueRef cg_entry_alloca(pt_cg *cg, LLVMTypeRef t);
/* Drops the values that are constants: the outlined code uses them as
 * they are (a scratchpad's strides, known to LLVM only so). */
void cg_closure_drop_constants(cg_closure *c);
void cg_closure_restore(pt_cg *cg, cg_closure *c);
void cg_closure_free(cg_closure *c);
/* Starts function name(closure values..., extra...) and binds the closure
 * to its params; pointers are noalias (every array is its own buffer). */
LLVMValueRef cg_closure_function(pt_cg *cg, cg_closure *c, const char *name,
	LLVMTypeRef *extra, int nextra);
/* Stores the closure's current values in a stack struct; returns it. */
LLVMValueRef cg_closure_pack(pt_cg *cg, cg_closure *c, LLVMTypeRef *sty);
/* Loads a packed closure from ctx and binds it. */
void cg_closure_unpack(pt_cg *cg, cg_closure *c, LLVMTypeRef sty, LLVMValueRef ctx);

#endif
