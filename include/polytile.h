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
/* Writes the `polytile check` listing (one line per stage, then "N
 * stages"); NULL, with a message in the ctx that owns p, when out of
 * memory (also pt_pipeline_dot). */
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
/* NULL, with a message in ctx, when out of memory. */
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
typedef enum pt_backend {
	PT_BACKEND_CPU,
	PT_BACKEND_CUDA,
	PT_BACKEND_MPI,
	/* the CUDA target's kernels and launches run on the CPU by an
	 * emulator (every build; for tests: see docs/cuda.md) */
	PT_BACKEND_CUDA_EMU
} pt_backend;

/* The MPI target's choice per kernel (docs/distributed.md). */
typedef enum pt_mpi_strategy {
	/* per kernel that can be split, the cheapest of the three below for
	 * its readers, by the model (bytes moved against redundant points;
	 * pt_options.mpi_latency and the two after it) */
	PT_MPI_AUTO = 0,
	/* each kernel that can be split is split among the ranks, which
	 * exchange the ghost zones its parts read; the others replicated */
	PT_MPI_COMMUNICATE = 1,
	/* each kernel that can be split is split, and its part on each rank
	 * widened to what later kernels there read of it: nothing exchanged
	 * but the outputs (a kernel a replicated one reads is replicated; a
	 * time-iterated stage split between its steps widens its first step
	 * by what the later ones read, and its readers receive its last) */
	PT_MPI_RECOMPUTE = 2,
	/* every kernel whole on every rank: nothing exchanged, for
	 * comparison */
	PT_MPI_REPLICATE = 3
} pt_mpi_strategy;

/* How the MPI target lays its ranks out (docs/distributed.md). */
typedef enum pt_mpi_grid {
	/* under the auto strategy, the model's choice between the two below
	 * (slabs under a forced strategy) */
	PT_MPI_GRID_AUTO = 0,
	/* each split kernel in slabs along one coordinate */
	PT_MPI_SLABS = 1,
	/* each split kernel that has a second coordinate no dependence
	 * crosses split along both, on a grid of P x Q ranks (Q the greatest
	 * divisor of the ranks not above their square root); a kernel that
	 * is recomputed stays in slabs */
	PT_MPI_GRID = 2
} pt_mpi_grid;

/* How much the compiler transforms the schedule.  The grouped schedule is
 * the default (zero): zero-initialized options get the optimizer. */
typedef enum pt_opt_level {
	PT_OPT_GROUPED = 0,     /* -O1: grouping, overlapped tiles, scratchpads */
	PT_OPT_NAIVE = 1        /* -O0: every stage over its whole domain in order (PolyMage base+vec) */
} pt_opt_level;

#define PT_MAX_TILE_DIMS 8
/* the most threads a GPU block may have (sm_90) */
#define PT_GPU_BLOCK_MAX 1024

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
	/* with ntile 0: the grouping's fixed sizes (256 for the innermost
	 * tiled dim, 32 and 8 further out) instead of the tile model's
	 * (--tile fixed; for comparisons) */
	bool fixed_tiles;
	/* grouping's overlap threshold (--overlap), redundant computation a
	 * group may add, as a fraction of its work, in [0, 1); 0 means the
	 * default (0.2) unless overlap_set is true (below) */
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
	/* pt_compile reuses the object of an earlier compile with the same
	 * pipeline, options, machine and polytile build from the cache
	 * directory ($PT_CACHE_DIR, else $XDG_CACHE_HOME/polytile, else
	 * ~/.cache/polytile), and stores the ones it makes there.  Off by
	 * default: a library writes into the user's files only when asked
	 * (the command line turns it on, --no-cache off). */
	bool cache;
	/* threads of LLVM's optimizer and code generator when compiling to
	 * an object (pt_compile, pt_compile_files; --compile-threads); 0:
	 * one per CPU this process may use.  The object is the same bytes
	 * whatever the number. */
	int compile_threads;
	/* -O1: each tiled group's full tiles (every stage's part of the tile
	 * inside its domain) generated apart from the partial ones at the
	 * borders, their loops with constant trip counts (--separate-tiles).
	 * Off by default: harris runs 3-4% faster, the other apps no faster,
	 * and its compile takes 3.6x as long (bench/results.md). */
	bool separate_tiles;
	/* (fields added after 0.x: a program built against the older, shorter
	 * struct must be rebuilt) overlap holds even when it is 0 (no
	 * redundant computation at all: only merges without overlap); false
	 * keeps 0 meaning the default, so zero-initialized options still get
	 * it.  --overlap and a configuration's `overlap =` set it. */
	bool overlap_set;
	/* per-group tile sizes and thresholds (--config's tile[G] and
	 * overlap[G]; docs/cli.md), overriding tile/ntile and overlap for
	 * the groups they name; borrowed.  NULL, 0: none. */
	const struct pt_group_options *groups;
	int ngroups;
	/* what pt_options_parse_config allocated for groups;
	 * pt_options_free_config frees it */
	void *config_mem;
	/* --backend mpi: how kernels are shared among ranks
	 * (--mpi-strategy; docs/distributed.md) */
	pt_mpi_strategy mpi_strategy;
	pt_mpi_grid mpi_grid;   /* --mpi-grid auto|slabs|grid */
	/* a time-iterated stage split between its steps exchanges its ghost
	 * zone every mpi_steps steps, that many steps deep (--mpi-steps N);
	 * -1 (all): never, each rank recomputing from the first step; 0:
	 * by the strategy (communicate: every step, recompute: all, auto:
	 * the model's choice) */
	int mpi_steps;
	/* pt_explain with backend mpi: the ranks whose bytes it predicts
	 * (--ranks; 0: 2, 3 and 4); compiling for mpi under auto: the ranks
	 * the model chooses for (0: 4; `run` sets the ranks it runs on) */
	int mpi_ranks;
	/* the auto strategy's model: seconds per message, bytes per second,
	 * seconds per stage point on one rank in a tiled kernel and in an
	 * untiled one (0: the defaults of docs/distributed.md; `polytile
	 * calibrate` measures them) */
	double mpi_latency, mpi_bandwidth, mpi_point_time, mpi_stream_time;
	/* the auto strategy plans for outputs that stay distributed (the
	 * local-part ABI, --mpi-outputs local): no gather on rank 0 to
	 * weigh, which replicating a kernel that writes outputs saved */
	bool mpi_local_outputs;
	/* float sum, product, min and max reductions may be factored into
	 * partial results, which changes the order of their operations
	 * (--reassociate; docs/language.md section 12).  Off: every float
	 * result is bit-identical to the interpreter's. */
	bool reassociate;
	/* -O1 on the CPU: a time-iterated stage runs its steps in blocks of
	 * time_tile steps, each block in trapezoid tiles in parallel
	 * (--time-tile K; docs/performance.md "Time tiling"); 1: step by
	 * step; 0: the time tile model's choice */
	int time_tile;
	/* --backend cuda and cuda-emu: the threads of a tiled group's block,
	 * x (a warp's lanes, along its innermost tiled dim) by y (along the
	 * next), at most 1,024 in all (--gpu-block 32x8); 0: the device
	 * model's choice, made with the tiles.  Per-group entries
	 * (block[G]) override it. */
	int gpu_block[2];
} pt_options;

/* One group's options.  A group is named by a stage of it (`explain`
 * names each group after its last stage, in topological order) or by
 * its index: the number `explain` gives it under the same options
 * without per-group entries.  Tiles apply to the group holding that
 * stage at the end of grouping; a threshold applies to every merge that
 * makes a group holding that stage (the smallest such threshold wins),
 * and to the tile model's choice for the final group.  An entry naming
 * no stage or group is an error (pt_compile and friends, at where). */
typedef struct pt_group_options {
	const char *group;      /* a stage's name; NULL: index */
	int index;
	int ntile;              /* 0: the sizes every group gets */
	int tile[PT_MAX_TILE_DIMS];
	double overlap;         /* with overlap_set: this group's threshold */
	bool overlap_set;
	int gpu_block[2];       /* its GPU block, x by y; 0: the one all get */
	const char *where;      /* "FILE:LINE" in messages; NULL: "group option N" */
} pt_group_options;

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
/* The MPI target's local-part ABI (a program compiled for backend mpi;
 * PT_ERR_PARAM otherwise).  pt_program_part: the box lo[d] .. hi[d]
 * (the array's own coordinates, inclusive; some lo[d] > hi[d]: nothing) that
 * rank's buffer of array (inputs in image order, then outputs in
 * pt_pipeline_output order) covers among nranks, for the params; with
 * array + PT_PART_OWN (pt_runtime.h), only the points of an output that
 * rank computes (the ranks' own parts tile the output, rank 0 owning
 * one that every rank computes whole; its buffer may
 * be larger, by ghost zones it reads); returns the array's dims.  pt_program_run_local: pt_program_run on every rank
 * with each buffer that rank's part (extents hi - lo + 1, element 0 the
 * point lo; data may be NULL for an empty part); the outputs are not
 * gathered: each rank's buffers hold its part (docs/distributed.md). */
int pt_program_part(pt_program *prog, const int64_t *iparams, const double *fparams, int rank, int nranks, int array,
	int64_t *lo, int64_t *hi);
/* The auto strategy's figures (o->mpi_latency, mpi_bandwidth,
 * mpi_point_time, mpi_stream_time) from the file `polytile calibrate`
 * writes, lines "latency S", "bandwidth B/s", "point_time S",
 * "stream_point_time S"; a value that is not a
 * positive number is left as it was.  Returns how many were set (-1:
 * the file does not open). */
int pt_mpi_model_read(const char *path, pt_options *o);
int pt_program_run_local(pt_program *prog, const int64_t *iparams, const double *fparams,
	const pt_buffer *const *inputs, pt_buffer *const *outputs);
void pt_program_free(pt_program *prog);
/* Writes base.o and base.h; the function is named after base's file
 * name, which must be a C identifier that pt_function_name_reserved
 * allows.  0 or -1 with a message. */
int pt_compile_files(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt, const char *base);
/* Why name cannot name a compiled pipeline's function (and its header
 * NAME.h), or NULL: not a C identifier, a C keyword, a name of the C
 * library, POSIX or OpenMP or a prefix they reserve, a standard
 * header's name, or in the runtime's namespace (pt_). */
const char *pt_function_name_reserved(const char *name);
/* The optimized LLVM IR (the function named fname, NULL: the pipeline's
 * name), or isl's AST as C with the parallel loops marked (for reading);
 * caller frees.  The passes' dumps (pt_options.dump) show these and
 * every other intermediate result. */
char *pt_emit_llvm(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt, const char *fname);
char *pt_emit_c(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt);
/* With backend PT_BACKEND_CUDA: the PTX of the pipeline's kernels (for
 * sm_90), as the compiled function embeds it; NULL with diagnostics on
 * an error, or when there is no PTX (another backend, no NVPTX target,
 * no libdevice for a math function).  The caller frees. */
char *pt_emit_ptx(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt, const char *fname);

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

/* What the optimizer's grouping of p under opt is, for a tuner: the
 * number of groups, the most tiled dims of one group and that group's
 * tile sizes (outermost first), the overlap threshold used, and key, a canonical text of every group
 * with its stages and tile shapes: two options with equal keys compile to
 * the same schedule.  key: caller frees.  0, or -1 with a message. */
typedef struct pt_group_summary {
	int ngroups;
	int ntiled;
	int tile[PT_MAX_TILE_DIMS];
	double overlap;
	char *key;
	/* the scratchpads one thread asks for, at most (every tiled group's
	 * at these tiles, the estimates' params) */
	double scratch_bytes;
	/* each tiled group (explain's order): its name (group, its last
	 * stage) and tiles, as per-group options that give the same groups
	 * and tiles back */
	int ntiled_groups;
	pt_group_options *tiled_groups;
} pt_group_summary;
int pt_group_summarize(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt, pt_group_summary *out);
/* Frees key and tiled_groups. */
void pt_group_summary_clear(pt_group_summary *s);

/* ---- configurations (autotune/config.c) ----
 * A configuration file holds the optimizer's options a tuner chose, one
 * `key = value` a line, `#` starting a comment (docs/cli.md):
 *   tile = 32x256       (or `default`: the optimizer's choice)
 *   overlap = 0.4       (in [0, 1), or `default`)
 *   tile[G] = 8x64      group G's tiles (G: a stage's name or an index)
 *   overlap[G] = 0.3    group G's threshold
 * Only these fields of pt_options are read or written. */
/* Sets option key ("tile" or "overlap") from its text; 0, or -1 with a
 * message in err (errlen bytes) saying what a valid value is. */
int pt_options_set(pt_options *opt, const char *key, const char *value, char *err, size_t errlen);
/* Reads the configuration text (named name in messages) into opt; 0, or
 * -1 with "NAME:LINE: what" in err (bytes that are not printable text
 * shown as \xNN).  Keys absent keep their value; per-group entries are
 * added to opt's (allocated: pt_options_free_config frees them). */
int pt_options_parse_config(pt_options *opt, const char *name, const char *text, char *err, size_t errlen);
/* Frees what configurations read into opt allocated (opt->groups when
 * config_mem holds them) and clears the per-group entries. */
void pt_options_free_config(pt_options *opt);
/* s as printable text for a message: control bytes and bytes that are
 * not UTF-8 as \xNN, cut at about len - 8 bytes with "..."; returns buf. */
const char *pt_text_escape(const char *s, char *buf, size_t len);
/* The same for the file at path ("PATH: cannot read ..." if unreadable). */
int pt_options_read_config(pt_options *opt, const char *path, char *err, size_t errlen);
/* The configuration text of opt, each line of comment (NULL: none) as a
 * `# ` line first; caller frees.  Reading it back gives opt's tile,
 * overlap and per-group entries. */
char *pt_options_config_text(const pt_options *opt, const char *comment);

/* ---- workloads (autotune/workload.c) ----
 * Generated inputs of a pipeline at given params and two sets of outputs
 * (slots 0 and 1), for running compiled variants against each other
 * byte for byte (a tuner, benchmarks). */
typedef struct pt_workload pt_workload;
/* values: one per param, declaration order (NULL: the estimates, 1024 for
 * an int param without one).  Inputs are deterministic pseudo-random:
 * floats in [0, 1), integers 0 .. 255.  NULL with a message. */
pt_workload *pt_workload_new(pt_ctx *ctx, const pt_pipeline *p, const double *values);
void pt_workload_free(pt_workload *w);
/* Sets every byte of slot's outputs to byte, so that points a program
 * fails to write show in pt_workload_compare. */
void pt_workload_fill(pt_workload *w, int slot, uint8_t byte);
/* Runs prog on the inputs into slot's outputs; *ms (may be NULL) gets the
 * wall time.  0 or a negative pt_error code. */
int pt_workload_run(pt_workload *w, pt_program *prog, int slot, double *ms);
/* The first output (pt_pipeline_output order) whose bytes differ between
 * the slots, its first differing byte in *offset; -1 if all are equal. */
int pt_workload_compare(const pt_workload *w, size_t *offset);
/* The inputs (image order), their count, and the params as
 * pt_program_run takes them (ints in *ip, every param in *fp). */
const pt_buffer *pt_workload_inputs(const pt_workload *w, int *n, const int64_t **ip, const double **fp);
/* slot's output buffers (pt_pipeline_output order), and their count. */
pt_buffer *pt_workload_outputs(pt_workload *w, int slot, int *n);
/* The bytes a run of p at values (one per param, declaration order)
 * allocates at most: every image not given (given[i] true; given NULL:
 * none is) and every stage's full buffer, with extra bytes per stage
 * point (the interpreter's "defined" flags: 1).  `polytile run` and
 * pt_tune hold it to pt_memory_check before allocating; -1 when an
 * extent cannot be evaluated. */
double pt_pipeline_run_bytes(const pt_pipeline *p, const double *values, const bool *given, int extra);

/* ---- autotuning (autotune/) ----
 * pt_tune tries configurations of the optimizer (a tile size per tiled
 * dim x an overlap threshold), the default first, then the others nearest
 * the default first; skips one whose grouping (pt_group_summary.key)
 * equals that of one already tried; compiles each (JIT), runs it once and
 * compares its outputs with the naive (-O0) build's on the same inputs
 * byte for byte before timing it (the median of 3 to 15 runs, as many as
 * fit in about target_s); and stops when the budget is spent. */
typedef enum pt_tune_status {
	PT_TUNE_PENDING,        /* not tried (budget spent) */
	PT_TUNE_TIMED,
	PT_TUNE_SAME,           /* the grouping of candidate same_as */
	PT_TUNE_MISMATCH,       /* output differs from the naive build's: a compiler bug */
	PT_TUNE_FAILED,         /* did not compile or run */
	PT_TUNE_SKIPPED         /* its scratchpads would not fit in memory: not run */
} pt_tune_status;

typedef struct pt_tune_cand {
	int ntile;              /* 0: the optimizer's tiles (the default) */
	int tile[PT_MAX_TILE_DIMS];
	double overlap;         /* 0: the default threshold */
	pt_tune_status status;
	int same_as;
	int ngroups;
	double median_ms;       /* TIMED (SAME: same_as's); a finalist's from the final round */
	int runs;
	bool final;             /* timed again in the final round (pt_tune) */
	double sweep_ms;        /* TIMED: the median in the sweep */
	char *message;          /* MISMATCH, FAILED: what happened */
	/* TIMED: the default's runs interleaved with this one's in the
	 * sweep, one each in turn; vs_default is the median of the pairs'
	 * ratios (default / this), what a slow or busy stretch of the
	 * machine changes least */
	double vs_default;
	/* the median absolute deviation of its runs over their median (the
	 * larger of its and the interleaved default's), and whether that is
	 * over PT_TUNE_NOISY: its time is not to be trusted */
	double spread;
	bool noisy;
} pt_tune_cand;

/* The spread over which a time is flagged (pt_tune_cand.noisy). */
#define PT_TUNE_NOISY 0.1

typedef struct pt_tune_result {
	int ncand;
	pt_tune_cand *cand;     /* in the order tried; cand[0] is the default */
	int best;               /* the fastest TIMED one; -1 if none */
	int ntiled;             /* tiled dims the candidates size */
	int def_tile[PT_MAX_TILE_DIMS];  /* the default's tiles (ntiled of them) */
	double def_overlap;
	int tried;              /* candidates not PENDING */
	int finalists;          /* timed again, interleaved, at the end */
	int final_rounds;
	int mismatches;
	bool budget_spent;
	double seconds;         /* the whole tuning */
	double naive_ms;        /* the naive build, one run */
	int noisy;              /* TIMED candidates flagged noisy */
	int skipped;            /* candidates whose scratchpads did not fit in memory */
	/* the best's groups with their tiles (pt_group_summary) */
	int nbest_groups;
	pt_group_options *best_groups;
} pt_tune_result;

typedef struct pt_tune_options {
	const double *values;   /* params, declaration order; NULL: estimates */
	const int *tiles;       /* sizes tried per tiled dim; NULL: 8 .. 512 */
	int ntiles;
	const double *overlaps; /* thresholds tried; NULL: 0.2 0.4 0.5 */
	int noverlaps;
	int threads;            /* 0: OMP_NUM_THREADS */
	double budget_s;        /* 0: 600 */
	double target_s;        /* time per candidate's timing; 0: 0.3 */
	/* after each candidate i is done (eta_s: the estimated time left) */
	void (*progress)(const pt_tune_result *r, int i, double eta_s, void *user);
	/* for tests only: sees (and may change) candidate i's outputs after
	 * its checking run, before they are compared */
	void (*check_hook)(int i, pt_buffer *outputs, int n, void *user);
	void *user;
} pt_tune_options;

/* Tunes p (checked); NULL with a message only when nothing could be
 * tried (the naive build or the inputs failed).  A mismatching candidate
 * is recorded, never best. */
pt_tune_result *pt_tune(pt_ctx *ctx, const pt_pipeline *p, const pt_tune_options *opt);
void pt_tune_result_free(pt_tune_result *r);
/* Candidate i's options: base with its tiles and threshold. */
void pt_tune_cand_options(const pt_tune_cand *c, const pt_options *base, pt_options *out);
/* The best's options: its tiles and threshold, and each of its groups'
 * tiles as per-group options (borrowed from r), which compile to the
 * same groups and tiles; 0, or -1 when there is no best. */
int pt_tune_best_options(const pt_tune_result *r, const pt_options *base, pt_options *out);
/* The candidate as text ("32x256 0.4", "default") in buf (len bytes);
 * returns buf. */
const char *pt_tune_cand_name(const pt_tune_cand *c, char *buf, size_t len);
/* The TIMED candidates sorted by time as a text table (config, groups,
 * median ms, runs, speedup over the default); caller frees. */
char *pt_tune_table(const pt_tune_result *r);
/* The sweep as CSV (one row per candidate tried) and a gnuplot script
 * drawing it from csv_path into prefix.png and prefix.svg; caller frees. */
char *pt_tune_csv(const pt_tune_result *r);
char *pt_tune_gnuplot(const pt_tune_result *r, const char *title, const char *csv_path, const char *prefix);

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
