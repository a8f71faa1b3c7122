/* kernel.h: what a target maps, described once from the optimizer's
 * groups, tiles and accesses (the "kernels" pass), after PPCG's
 * ppcg_kernel.  Targets read these descriptions; they never re-derive
 * groups, tile shapes, scratchpad sizes or footprints.
 *
 * A kernel is one group of the tiling (or, under the naive schedule, one
 * stage): the code between two points where a stage of another group
 * may start reading what this one wrote.  A tiled group's kernel has
 *   grid      its tile band: along tile dim k, the tiles lo[k] .. hi[k]
 *             (isl expressions of the params) of tsize[k] group
 *             coordinates each;
 *   block     each stage's points in one tile: its widened tile extent
 *             along a tiled dim, its domain box along any other;
 *   scratch   the stages that live only inside a tile, each with its
 *             size in one tile (fixed before code generation), or kept
 *             in a scalar when every read of it is in its own fused nest
 *             at its own point;
 *   nests     the loop nests of a tile in order (a fused run of stages is
 *             one nest), and before which nest a barrier is needed: it
 *             reads a scratchpad an earlier nest of the tile wrote (on a
 *             GPU, the threads of a block synchronize there).
 * Every kernel has
 *   inputs    per array (image, or stage of an earlier kernel) it reads:
 *             the footprint, the elements read over the whole kernel (a
 *             set over the params) and, for a tiled kernel, per tile (a
 *             map from tile coordinates to elements): the copies to a
 *             GPU, the ghost zones a rank receives;
 *   outputs   the stages it writes that live outside it.
 * The footprints come from the model's access relations (exact for
 * affine reads, the callee's whole domain for data-dependent ones). */
#ifndef PT_POLY_KERNEL_H
#define PT_POLY_KERNEL_H

#include <stdbool.h>

#include <isl/aff.h>
#include <isl/ast.h>
#include <isl/map.h>
#include <isl/set.h>

#include "ir.h"
#include "model.h"
#include "tile.h"

/* A stage of a kernel that lives only inside its tiles. */
typedef struct pt_kernel_scratch {
	const pt_stage *stage;
	int si;                     /* its index in the group */
	/* points per dim in one tile (-1: the domain box along an untiled
	 * dim, known at run time) */
	int64_t extent[PT_MAX_DIMS];
	bool scalar;                /* one value, no buffer (see above) */
} pt_kernel_scratch;

/* What a kernel reads of one array it does not write. */
typedef struct pt_kernel_input {
	const char *array;          /* the image's or stage's name */
	const pt_stage *stage;      /* NULL: an image */
	isl_set *footprint;         /* the elements read, over the params */
	isl_map *per_tile;          /* tile coordinates -> elements; NULL untiled */
} pt_kernel_input;

typedef struct pt_kernel {
	int index;
	const pt_group *group;      /* NULL: one stage of the naive schedule */
	int nstages;
	const pt_stage **stages;    /* in the order they run */
	/* grid: the tile band (0 dims: the group runs as loop nests over its
	 * stages' domains, no tiles) */
	int ngrid;
	isl_pw_aff *grid_lo[PT_MAX_DIMS], *grid_hi[PT_MAX_DIMS];
	/* block: per stage (as stages[]), points per dim in one tile (-1:
	 * the domain box) */
	int64_t (*block)[PT_MAX_DIMS];
	int nscratch;
	pt_kernel_scratch *scratch;
	/* per stage (as stages[]), the loop nest it runs in inside a tile;
	 * barrier[k]: nest k reads a scratchpad an earlier nest wrote */
	int *nest;
	int nnests;
	bool *barrier;
	int ninputs;
	pt_kernel_input *inputs;
	int noutputs;
	const pt_stage **outputs;
	/* the kernel's subtree of the AST, once built (the "tile" mark of a
	 * tiled kernel; NULL otherwise): set by the AST build's mark
	 * callback */
	isl_ast_node *ast;
} pt_kernel;

typedef struct pt_kernels {
	int n;
	pt_kernel *k;
	int *of_stage;              /* per stage id: its kernel */
	/* per stage id: for an output whose cases define only some of its
	 * points, when those are a box (defined_box.h), the box's bounds
	 * along each dim over the params; NULL otherwise.  A device target
	 * copies such an output back without copying it in first. */
	isl_pw_aff *(*defined_lo)[PT_MAX_DIMS], *(*defined_hi)[PT_MAX_DIMS];
	int nstages_boxed;          /* their length */
	/* a run whose copies to a GPU can go in chunks (stream_plan.h);
	 * NULL otherwise */
	struct pt_stream *stream;
} pt_kernels;

/* The kernels of m (its statements, accesses and, with m->tiling, its
 * tiled statements); NULL on an isl error. */
pt_kernels *pt_kernels_build(const pt_model *m);
void pt_kernels_free(pt_kernels *ks);
/* The kernel of tiled group g (NULL if none). */
const pt_kernel *pt_kernels_of_group(const pt_kernels *ks, const pt_group *g);
/* Index of the kernel's scratchpad for stage si of its group, or -1. */
int pt_kernel_scratch_index(const pt_kernel *k, int si);
/* Text for --dump=kernels; the caller frees. */
char *pt_kernels_str(const pt_kernels *ks, isl_ctx *ctx);

#endif
