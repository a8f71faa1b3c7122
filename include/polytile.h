/* polytile.h: the public API of the polytile compiler.
 *
 * A pt_ctx holds the diagnostics and the isl context of checking and
 * compiling.
 * Pipelines come from .pipe text (pt_parse_file / pt_parse_string) or
 * from the builder calls below, which make the same IR; expressions given
 * to the builder are strings read by the same parser.  Every call that can
 * fail on user input returns NULL or a nonzero value and leaves a located
 * message in pt_ctx_diagnostics(). */
#ifndef POLYTILE_H
#define POLYTILE_H

#include <stdbool.h>
#include <stdint.h>

#include "pt_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pt_ctx pt_ctx;
typedef struct pt_pipeline pt_pipeline;

pt_ctx *pt_ctx_new(void);
void pt_ctx_free(pt_ctx *ctx);
/* All messages reported so far ("" if none); owned by ctx. */
const char *pt_ctx_diagnostics(pt_ctx *ctx);
int pt_ctx_error_count(pt_ctx *ctx);
void pt_ctx_clear_diagnostics(pt_ctx *ctx);

/* Parses and checks a pipeline.  The result is owned by ctx (freed with
 * it); NULL after an error. */
pt_pipeline *pt_parse_file(pt_ctx *ctx, const char *path);
pt_pipeline *pt_parse_string(pt_ctx *ctx, const char *name, const char *text);

/* ---- builder API ---- */
pt_pipeline *pt_build_begin(pt_ctx *ctx, const char *name);
int pt_build_param(pt_pipeline *p, const char *name, pt_type type, bool has_estimate, double estimate);
int pt_build_const(pt_pipeline *p, const char *name, double value, bool is_int);
/* extents: ndim expression strings, e.g. {"R+2", "C+2"} */
int pt_build_image(pt_pipeline *p, const char *name, pt_type type, int ndim, const char *const *extents);
/* A named condition usable in later expressions, like `cond` in a file. */
int pt_build_cond(pt_pipeline *p, const char *name, const char *expr);
/* A function stage over ndim variables with intervals lo[i] .. hi[i]. */
int pt_build_func(pt_pipeline *p, const char *name, pt_type type, int ndim,
	const char *const *vars, const char *const *lo, const char *const *hi);
/* A case of the last function: value where cond holds (cond NULL: always). */
int pt_build_case(pt_pipeline *p, const char *cond, const char *value);
/* A reduction stage: variable domain, then reduction domain; op is one of
 * "sum" "prod" "min" "max" "and" "or"; init may be NULL (identity). */
int pt_build_reduce(pt_pipeline *p, const char *name, pt_type type,
	int ndim, const char *const *vars, const char *const *lo, const char *const *hi,
	int nrdim, const char *const *rvars, const char *const *rlo, const char *const *rhi,
	const char *op, const char *init);
/* An update of the last reduction: target indices (ndim strings), value. */
int pt_build_update(pt_pipeline *p, const char *cond, const char *const *target, const char *value);
int pt_build_output(pt_pipeline *p, const char *name);
/* Checks the built pipeline; returns p, or NULL after an error (p is then
 * freed). */
pt_pipeline *pt_build_end(pt_pipeline *p);

/* ---- inspection ---- */
const char *pt_pipeline_name(const pt_pipeline *p);
int pt_pipeline_stage_count(const pt_pipeline *p);
/* Writes the `polytile check` listing (one line per stage, then "N stages"). */
char *pt_pipeline_describe(const pt_pipeline *p);
/* Graphviz source of the stage DAG. */
char *pt_pipeline_dot(const pt_pipeline *p);

/* Params, images and stages by index (params and images in declaration
 * order, stages in topological order once checked) and by name (-1 if
 * none).  Out of range: NULL, PT_NTYPES, -1 or false. */
int pt_pipeline_param_count(const pt_pipeline *p);
int pt_pipeline_param_index(const pt_pipeline *p, const char *name);
const char *pt_pipeline_param_name(const pt_pipeline *p, int i);
pt_type pt_pipeline_param_type(const pt_pipeline *p, int i);   /* PT_I32 PT_I64 PT_F32 PT_F64 */
/* Whether param i has an estimate (`param N : int = 512`), and its value. */
bool pt_pipeline_param_estimate(const pt_pipeline *p, int i, double *value);
int pt_pipeline_image_count(const pt_pipeline *p);
int pt_pipeline_image_index(const pt_pipeline *p, const char *name);
const char *pt_pipeline_image_name(const pt_pipeline *p, int i);
pt_type pt_pipeline_image_type(const pt_pipeline *p, int i);
int pt_pipeline_image_ndim(const pt_pipeline *p, int i);
/* Whether extent d of image i is a literal (such as a channel count). */
bool pt_pipeline_image_extent_const(const pt_pipeline *p, int i, int d, int64_t *value);
/* Extents of image i under the params values[] (declaration order); 0 or -1. */
int pt_pipeline_image_extents(const pt_pipeline *p, int i, const double *values, int64_t *ext);
int pt_pipeline_stage_index(const pt_pipeline *p, const char *name);
const char *pt_pipeline_stage_name(const pt_pipeline *p, int i);
pt_type pt_pipeline_stage_type(const pt_pipeline *p, int i);
int pt_pipeline_stage_ndim(const pt_pipeline *p, int i);
bool pt_pipeline_stage_is_output(const pt_pipeline *p, int i);
/* Whether both bounds of dimension d of stage i are literals. */
bool pt_pipeline_stage_bounds_const(const pt_pipeline *p, int i, int d, int64_t *lo, int64_t *hi);

/* ---- running a pipeline: params and inputs ----
 * Params are doubles indexed by declaration order (ints hold integral
 * values); known[q] says whether param q has one.  Inputs are indexed by
 * image (NULL: not given).  The interpreter and compiled programs use
 * these; each reports a message in the ctx when it returns -1. */
/* The value param name takes for value: ints must be integral and in
 * their type's range, f32 is rounded; 0, or -1 (also for no such param). */
int pt_param_check(pt_ctx *ctx, const pt_pipeline *p, const char *name, double value, double *out);
/* Infers params not known from the extents of the inputs given (an
 * extent a*P + c with one unknown P), then falls back to estimates;
 * 0, or -1 naming a param left without a value. */
int pt_infer_params(pt_ctx *ctx, const pt_pipeline *p, const pt_buffer *const *inputs,
	double *values, bool *known);
/* Whether buf has image i's element type and rank; 0 or -1. */
int pt_check_input(pt_ctx *ctx, const pt_pipeline *p, int i, const pt_buffer *buf);
/* Whether every image is given with the extents the params give; 0, or
 * -1 with a message located at the image's declaration. */
int pt_check_inputs(pt_ctx *ctx, const pt_pipeline *p, const pt_buffer *const *inputs, const double *values);

/* ---- reference interpreter ---- */
typedef struct pt_interp pt_interp;
pt_interp *pt_interp_new(pt_ctx *ctx, const pt_pipeline *p);
void pt_interp_free(pt_interp *in);
/* Sets a parameter by name; ints must be integral. */
int pt_interp_set_param(pt_interp *in, const char *name, double value);
/* The value a param has (set, inferred or estimated); 0 or -1. */
int pt_interp_get_param(pt_interp *in, const char *name, double *value);
/* Binds an input image (borrowed until run returns). */
int pt_interp_set_input(pt_interp *in, const char *name, const pt_buffer *buf);
/* Infers params not set from the extents of bound inputs, then falls
 * back to estimates; 0, or -1 naming a param with no value. */
int pt_interp_infer_params(pt_interp *in);
/* Extents of an image under the current params (after inference). */
int pt_interp_image_extents(pt_interp *in, const char *image, int64_t *ext);
/* Checks that every image is bound with the extents the params give;
 * 0, or -1 with a located message (what pt_interp_run checks first). */
int pt_interp_check_inputs(pt_interp *in);
/* Evaluates every stage; 0 or -1 with a message in the ctx. */
int pt_interp_run(pt_interp *in);
/* An output (or any stage) after run: its buffer covers the box of its
 * domain, origin[d] is the domain's lower bound; defined[i] is nonzero for
 * points some case defined.  NULL if unknown. */
const pt_buffer *pt_interp_result(pt_interp *in, const char *stage,
	const uint8_t **defined, int64_t *origin);

/* ---- compiler (codegen/) ---- */

/* Where compiled code runs.  CUDA and MPI exist only in a build
 * configured with them (meson_options.txt); asking for one that is not
 * built is an error naming the option. */
typedef enum pt_backend { PT_BACKEND_CPU, PT_BACKEND_CUDA, PT_BACKEND_MPI } pt_backend;

/* How much the compiler transforms the schedule.  The grouped schedule is
 * the default (zero): zero-initialized options get the optimizer. */
typedef enum pt_opt_level {
	PT_OPT_GROUPED = 0,     /* -O1: grouping, overlapped tiles, scratchpads */
	PT_OPT_NAIVE = 1        /* -O0: every stage over its whole domain in order (PolyMage base+vec) */
} pt_opt_level;

#define PT_MAX_TILE_DIMS 8

/* Options of the compiler, also the CLI's flags.  Zero-initialized
 * options are the defaults. */
typedef struct pt_options {
	bool no_inline;         /* keep point-wise stages (--no-inline) */
	int threads;            /* parallel loops' threads; 0: OMP_NUM_THREADS */
	const char *target;     /* NULL: the host CPU; else TRIPLE[:CPU[:FEATURES]] */
	bool time;              /* print each pass's time on stderr (--time) */
	pt_backend backend;     /* --backend cpu|cuda|mpi */
	pt_opt_level opt_level; /* -O1 (default), -O0 */
	/* tile sizes of a group's outer schedule dims (--tile 32x256); 0 or
	 * ntile 0: the optimizer's choice */
	int ntile;
	int tile[PT_MAX_TILE_DIMS];
	/* grouping's overlap threshold (--overlap), redundant computation a
	 * group may add, as a fraction of its work, in [0, 1); 0: default */
	double overlap;
	/* the values the optimizer plans for, one per param in declaration
	 * order (ints as values, floats ignored); NULL: the params' estimates
	 * (1024 for an int param without one).  Code is correct for every
	 * param value; these only steer grouping and tiling. */
	const double *estimates;
	/* passes whose result is printed (--dump=PASS[,PASS], or "all");
	 * pt_pass_list() names them.  Each dump goes to dump_fn, or to
	 * stdout after a line "---- PASS ----" when dump_fn is NULL. */
	const char *dump;
	void (*dump_fn)(const char *pass, const char *text, void *user);
	void *dump_user;
} pt_options;

/* The compiler's passes in order, comma-separated ("parse,typecheck,...");
 * a static string. */
const char *pt_pass_list(void);
/* Options for the passes pt_parse_* and pt_build_end run (checking) and
 * for pt_compile and friends given NULL options: dumps and times of the
 * checks come from here.  opt is copied (its strings must outlive ctx);
 * 0, or -1 with a message when an option is invalid. */
int pt_ctx_set_options(pt_ctx *ctx, const pt_options *opt);

/* A pipeline compiled in-process (LLJIT). */
typedef struct pt_program pt_program;
pt_program *pt_compile(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt);
/* Runs the program: iparams[q] / fparams[q] hold param q (declaration
 * order; ints in iparams, floats in fparams), inputs in image order,
 * outputs in pt_pipeline_output order.  0 or a negative pt_error code. */
int pt_program_run(pt_program *prog, const int64_t *iparams, const double *fparams,
	const pt_buffer *const *inputs, pt_buffer *const *outputs);
void pt_program_free(pt_program *prog);
/* Writes base.o and base.h; the function is named after base's file
 * name, which must be a C identifier.  0 or -1 with a message. */
int pt_compile_files(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt, const char *base);
/* The optimized LLVM IR (the function named fname, NULL: the pipeline's
 * name), or isl's AST as C with the parallel loops marked (for reading);
 * caller frees.  The passes' dumps (pt_options.dump) show these and
 * every other intermediate result. */
char *pt_emit_llvm(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt, const char *fname);
char *pt_emit_c(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt);

/* Runs the compiling passes on p through pass last (NULL: the last pass
 * opt->dump names), for their dumps and times; a checking pass as last
 * runs nothing (pt_parse_* ran it).  0 or -1 with a message. */
int pt_run_passes(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt, const char *last);

/* What the optimizer (-O1) does with p at the estimates (opt->estimates
 * or the params'): its groups with their stages, tiles, widening and
 * overlap per tiled dim, scratchpad bytes per group and per thread, the
 * merges it refused and why, and intermediate storage of the naive
 * schedule against the grouped one.  Caller frees; NULL with a message. */
char *pt_explain(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt);
/* Graphviz source of the pipeline -O1 compiles (after inlining), each
 * tiled group a cluster labelled with its tiles; caller frees. */
char *pt_pipeline_dot_grouped(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt);

/* Outputs in ABI order, and the box an output covers for int params
 * iparams (indexed like pt_program_run's): lo[d] and extent[d]; returns
 * ndim, or -1. */
int pt_pipeline_output_count(const pt_pipeline *p);
const char *pt_pipeline_output_name(const pt_pipeline *p, int i);
int pt_pipeline_output_box(const pt_pipeline *p, int i, const int64_t *iparams,
	int64_t *lo, int64_t *extent);
/* The same for stage i (pt_pipeline_stage_index's numbering). */
int pt_pipeline_stage_box(const pt_pipeline *p, int i, const int64_t *iparams,
	int64_t *lo, int64_t *extent);

#ifdef __cplusplus
}
#endif
#endif
