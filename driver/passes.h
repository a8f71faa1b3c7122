/* passes.h: the compiler's passes, one list (passes.c), each timed and
 * each with a dump of what it produced.
 *
 * A compilation is a pt_unit that the passes fill in order.  Checking
 * (pt_parse_*, pt_build_end) runs the first passes, up to "bounds", on
 * the pipeline being read; compiling (pt_compile and friends) runs the
 * rest on a checked pipeline.  Which schedule the AST is built from is
 * one function chosen by the options (pt_unit.schedule_fn), so the
 * optimizer's schedule plugs in where the naive one is. */
#ifndef PT_DRIVER_PASSES_H
#define PT_DRIVER_PASSES_H

#include <stdbool.h>

#include <isl/ast.h>
#include <isl/schedule.h>
#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#include "polytile.h"
#include "ctx.h"
#include "model.h"
#include "storage.h"
#include "kernel.h"

/* A schedule of the model's instances (its domain must be the model's). */
typedef __isl_give isl_schedule *(*pt_schedule_fn)(const pt_model *m, const pt_options *opt,
	void *user);

typedef struct pt_unit {
	pt_ctx *ctx;
	const pt_options *opt;      /* never NULL */
	/* checking */
	const pt_source *src;       /* what "parse" reads (NULL: built by the API) */
	pt_pipeline *input;         /* the pipeline being checked */
	/* compiling */
	const pt_pipeline *p;       /* what is compiled: input, or its inlined copy */
	pt_pipeline *owned;         /* the inlined (and factored) copy */
	char *rfactor_log;          /* what "rfactor" factored and why, what not */
	pt_model *model;
	pt_tiling *tiling;          /* the groups (-O1), NULL: naive */
	char *group_log;            /* the merges made and refused */
	bool model_tiles;           /* the tile model chose the sizes (no --tile) */
	struct pt_machine *machine; /* what it planned for (grouping/tile_model.h) */
	char *tiles_log;            /* its programs and solutions */
	char *time_log;             /* the time tile model's reasoning (time_tile.h) */
	pt_schedule_fn schedule_fn;
	void *schedule_user;
	isl_schedule *schedule;
	pt_storage *storage;        /* where intermediate stages live */
	/* the target code is generated for (pt_unit_init: the options'
	 * backend's; a test may set its own before "kernels") */
	const struct pt_target *target;
	pt_kernels *kernels;        /* what the target maps */
	struct pt_dist *dist;       /* the MPI target's split (NULL: one memory) */
	isl_ast_node *tree;
	const char *fname;          /* the generated function's name */
	LLVMContextRef llc;         /* borrowed */
	LLVMTargetMachineRef tm;
	LLVMModuleRef mod;
	/* set by whoever wants an object, not the optimized module: the
	 * module may then be optimized in pieces (codegen/split.h) on this
	 * many threads, mod left as it was before "optimize" */
	int jobs;
	struct pt_split *split;
	bool aot;                   /* for an object file `compile` writes */
	char *cubin_log;            /* what "cubin" assembled, or why not */
	double t;                   /* when the last pass ended (ms) */
} pt_unit;

/* Sets u up for ctx with options opt (NULL: the context's) and the
 * schedule the options choose. */
void pt_unit_init(pt_unit *u, pt_ctx *ctx, const pt_options *opt);
void pt_unit_clear(pt_unit *u);

/* Runs the passes from first through last (names in the list), timing
 * and dumping each as the options ask; stops after the first failing one
 * (its message in ctx).  0 or -1. */
int pt_passes_run(pt_unit *u, const char *first, const char *last);

/* The dump of pass (run already) as text; caller frees. */
char *pt_passes_dump(pt_unit *u, const char *pass);
/* Prints, under --time, the time since the last pass as name's (steps
 * after the list: jit, object). */
void pt_unit_phase(pt_unit *u, const char *name);
/* Starts the clock of the next pt_unit_phase now. */
void pt_unit_mark(pt_unit *u);

/* Whether every name in list (comma-separated, or "all") is a pass; if
 * not, reports the first unknown one and returns false. */
bool pt_passes_check_dump(pt_ctx *ctx, const char *list);
/* Whether pass is one of the checking passes (before "inline"). */
bool pt_passes_checking(const char *pass);
/* The last pass a dump list names (NULL for an empty list). */
const char *pt_passes_last_dumped(const char *list);

/* pt_compile with schedule sched (NULL: the one the options choose)
 * instead: where a schedule made elsewhere (a test's, a tuner's) is
 * compiled. */
pt_program *pt_compile_with(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt,
	pt_schedule_fn sched, void *user);

/* The schedules pt_unit_init chooses from: the naive one, and the
 * model's own order (its tiling's schedule after "tiles"). */
__isl_give isl_schedule *pt_schedule_naive(const pt_model *m, const pt_options *opt, void *user);
__isl_give isl_schedule *pt_schedule_model(const pt_model *m, const pt_options *opt, void *user);

/* explain_gpu.c: `explain --backend cuda`'s kernels, compiled for the
 * CUDA target with opt and run dry at params ip / fp (declaration
 * order), appended to b, with the bytes each of u's kernel descriptions
 * (its passes run through "kernels" with opt) moves. */
void pt_explain_gpu(pt_strbuf *b, const pt_unit *u, const pt_pipeline *p, const pt_options *opt, const int64_t *ip,
	const double *fp);
/* explain_mpi.c: the split of u's kernels among ranks (its passes run
 * through "distribute") and the bytes each rank moves at int params ip
 * on ranks ranks (0: on 2, 3 and 4). */
void pt_explain_mpi(pt_strbuf *b, const pt_unit *u, const int64_t *ip, int ranks);

#endif
