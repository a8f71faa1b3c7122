/* align.h: alignment and scaling of a group of stages (PolyMage thesis,
 * section 3.3).
 *
 * A group's common space has ndim group dims.  Stage s of the group maps
 * its point x (its domain variables) to the group point g with
 *     g[gdim[i]] = scale[i] * x[i] + offset[i]   for each of its dims i,
 *     g[k] = 0                                   for every group dim k
 *                                                that none of its dims takes.
 * Dims of one stage take distinct group dims; scales are positive
 * integers, and over the stage dims placed in one group dim their gcd is
 * 1; offsets are 0 today (the field is kept for a tiler that wants to
 * shift stages).
 *
 * pt_group_align_compute finds such maps so that every dependence inside the
 * group (consumer point minus producer point, in group coordinates, for
 * every read of a group stage by a group stage where the read is
 * evaluated, for all params that make the pipeline non-empty) lies in a
 * box of constants in every group dim.
 *
 * How.  Every exactly represented index of a read (pt_poly_pw_aff, on the
 * points where the call is evaluated) whose pieces grow at a rate r with
 * one consumer variable x_i (r = a/d for (a*x_i + b)/d, floors and
 * min/max seen through; constant pieces say nothing) ties consumer dim i
 * and producer dim j to one group dim with scale(c,i) = r * scale(p,j).
 * Ties form classes (a union-find with rational weights); a class is a
 * group dim.  Data-dependent and non-affine indices (intervals in isl)
 * tie nothing.  Group dims are ordered so that each stage's dims keep
 * their order where possible, the live-outs' order first (their layout
 * is fixed).  Disconnected parts of a group share group dims.  The
 * dependence sets are then computed with isl from the access relations
 * (poly/access.h) and must be bounded: this is the proof, not the
 * heuristic above.
 *
 * A reduction joins a group only as a source (pt_group_reduction_fits):
 * its dims align like a function's, from its consumers' reads; the
 * grouping tiles only the group dims its cell dims take
 * (pt_reduction_cell_var), so that each tile runs the updates of its own
 * points.
 *
 * A stage that reads itself (a recurrence) joins a group when some dim
 * of it keeps its own coordinate in every self-read (self_fixed): its
 * self-reads tie and bound nothing (they stay inside its own loop
 * nest), and the grouping tiles only the group dims its fixed dims take.
 *
 * Refused, with a static reason in *why:
 *   - a reduction that does not fit, or a stage that reads itself along
 *     every dim (time-iterated): group boundaries;
 *   - stages not of p, repeated, or not in topological order;
 *   - an index mixing two consumer variables (g(x + y));
 *   - two dims of one stage tied to one group dim (f(x, y) = g(x, y) +
 *     g(y, x));
 *   - two rates for one tie (f(x) = g(x/2) + g(x/4)): no common scaling;
 *   - a reversed index (g(R - x)): negative scaling;
 *   - more than PT_MAX_DIMS group dims;
 *   - a dependence unbounded in some group dim: from a data-dependent
 *     read over a range that grows with the params (lut(I(x)) read from
 *     every x), or otherwise: g(x + R), or a broadcast (g(0, y) or g(y)
 *     read from f(x, y): g sits at 0 in f's x dim).  PolyMage would keep
 *     such a group and leave that dim untiled; here it is refused.
 * A group of one plain function is its identity alignment. */
#ifndef PT_GROUPING_ALIGN_H
#define PT_GROUPING_ALIGN_H

#include <stdbool.h>
#include <stdint.h>

#include <isl/aff.h>
#include <isl/ctx.h>
#include <isl/map.h>
#include <isl/set.h>

#include "access.h"
#include "ir.h"
#include "pt_runtime.h"

typedef struct pt_stage_align {
	const pt_stage *stage;
	int ndim;                   /* stage->ndim */
	int gdim[PT_MAX_DIMS];      /* group dim of each stage dim */
	int64_t scale[PT_MAX_DIMS]; /* group coordinate = scale * stage coordinate + offset */
	int64_t offset[PT_MAX_DIMS];
} pt_stage_align;

/* The dependences of one consumer on one producer, in group coordinates:
 * every component of every vector lies in lo[k] .. hi[k]. */
typedef struct pt_dep_box {
	bool reads;                 /* false: no read where evaluated (no box) */
	int64_t lo[PT_MAX_DIMS], hi[PT_MAX_DIMS];
} pt_dep_box;

typedef struct pt_group_align {
	int ndim;                   /* group dims */
	int nstages;
	pt_stage_align *st;         /* nstages, in the order given */
	/* Indexed [c * nstages + p] for consumer c and producer p (indices
	 * into st): the dependence vectors (consumer point minus producer
	 * point) as an isl set with the pipeline's params (constrained to
	 * pt_poly_nonempty) and ndim dims, NULL when c does not read p; and
	 * their box over all such params. */
	isl_set **deps;
	pt_dep_box *box;
	/* On failure, the edge found at fault (indices into stages), or
	 * the stage at fault in bad_consumer alone, or -1. */
	int bad_consumer, bad_producer;
} pt_group_align;

/* Aligns and scales stages[0 .. n-1] (stages of the checked pipeline p,
 * in topological order), their reads taken from cache when not NULL;
 * then the cache's memo also keeps, for the next candidate, each read's
 * ties and each pair's finished deps and box (under the pair's alignment).
 * Returns 0 with *a filled (free it with pt_group_align_clear), or -1
 * with *a holding only bad_consumer and bad_producer and *why a static
 * explanation. */
int pt_group_align_compute(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *const *stages, int n,
	pt_poly_access_cache *cache, pt_group_align *a, const char **why);
/* Whether reduction r may join a group of stages[0 .. n-1] (r among
 * them or not): it reads none of them nor itself (not even its own
 * accumulator), so its updates depend only on data outside the group,
 * and at least one of its dims has a cell variable. */
bool pt_group_reduction_fits(const pt_stage *r, const pt_stage *const *stages, int n);
/* Whether s, a plain stage that reads itself, may join a group: some
 * dim keeps its coordinate in every self-read (pt_stage.self_fixed), so
 * tiles along it hold whole recurrences. */
bool pt_group_recurrence_fits(const pt_stage *s);
/* Frees what *a holds (also after a failure); *a is zeroed. */
void pt_group_align_clear(pt_group_align *a);

/* Stage k's map to the group space: from pt_poly_iter_space (its tuple
 * named after the stage) to the unnamed space of a->ndim dims with p's
 * params.  NULL on a bad k. */
__isl_give isl_multi_aff *pt_group_align_map(isl_ctx *ctx, const pt_pipeline *p,
	const pt_group_align *a, int k);
/* The index of stage s in a, or -1. */
int pt_group_align_find(const pt_group_align *a, const pt_stage *s);

#endif
