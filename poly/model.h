/* model.h: the polyhedral model of a pipeline, built once and shared by
 * every later pass: its statements (statements.h) with their instance
 * sets, the array elements each instance reads and writes, and the flow
 * dependences between instances, computed by isl from those accesses
 * (model.c says how).
 *
 * Arrays are named after their stage or image; statements after
 * statements.h's names (S<stage>_<case>, I<stage>, U<stage>_<case>).
 * Statement ids carry no user pointer, so a schedule written as text (a
 * test's, or one the optimizer builds from strings) names the same
 * statements as the model; pt_model_stmt finds a statement by id.
 *
 * Dependences.  Reads are every call a statement's instances may make
 * (exact for affine indices, over-approximated for data-dependent ones);
 * a function's or an init's write is exact ("must"), an update's write is
 * "may" and, being a read-modify-write, also a read of its target.  So
 * the flow dependences (source instance -> sink instance) order every
 * pair of instances that touch one element with a write: the write of a
 * point before its reads, and the updates of one reduction point among
 * themselves.  The language assigns every point once outside reductions,
 * so there are no other anti or output dependences. */
#ifndef PT_POLY_MODEL_H
#define PT_POLY_MODEL_H

#include <stdbool.h>

#include <isl/ast_build.h>
#include <isl/schedule.h>
#include <isl/set.h>
#include <isl/union_map.h>
#include <isl/union_set.h>

#include "access.h"
#include "ir.h"
#include "statements.h"
#include "tile.h"

typedef struct pt_model {
	const pt_pipeline *p;      /* borrowed */
	pt_stmts *stmts;
	isl_set *context;          /* the admissible params (every stage non-empty) */
	isl_union_set *domain;     /* every statement instance */
	isl_union_map *reads;      /* instance -> array element */
	isl_union_map *writes;     /* instance -> array element */
	isl_union_map *deps;       /* flow dependences, instance -> instance */
	const pt_tiling *tiling;   /* borrowed; NULL: every stage on its own */
	/* with separate (pt_model_tile): per group of the tiling, its full
	 * tiles, where every stage's box in the tile lies in its domain (tile
	 * coordinates; NULL for an untiled group); the schedule generates
	 * them apart (isl's isolate option), with loop bounds free of min
	 * and max.  NULL without separate. */
	bool separate;
	isl_set **full;
	/* the deps by source statement (index into stmts), and statement
	 * names hashed to their index: the parallel-loop test looks only
	 * at the deps of the statements under the loop (issue 13) */
	isl_union_map **deps_from;
	int *name_slot;            /* open addressing, nslot a power of 2; -1 empty */
	int nslot;
	/* every stage's reads, recorded while collecting the accesses: the
	 * grouping replays them (pt_poly_walk_reads) rather than walk the
	 * stages again */
	pt_poly_access_cache *accesses;
} pt_model;

/* Statements and accesses of checked pipeline p (deps still NULL); NULL
 * if a bound is not affine (never after checking) or on an isl error. */
pt_model *pt_model_new(isl_ctx *ctx, const pt_pipeline *p);
/* Model m (from pt_model_new, no deps yet) moved into the tiles of tl
 * (tile.h): a tiled group's statements get tile coordinates in front of
 * their points, and a scratchpad's elements are named by tile and point,
 * so that the flow dependences inside a tiled group stay within one
 * tile.  From m's own accesses: the stages' reads are not walked again.
 * With separate (--separate-tiles), also each group's full tiles
 * (m->full).  False on an isl error (m is then only fit to be freed). */
bool pt_model_tile(pt_model *m, const pt_tiling *tl, bool separate);
/* Computes m->deps; false on an isl error.  With own_nests, only those
 * between statements of one loop nest of the built-in schedules (one
 * stage's): all that their loops can carry; a tiled group's nest
 * carries none by construction, so none of its are computed. */
bool pt_model_compute_deps(pt_model *m, bool own_nests);
void pt_model_free(pt_model *m);

/* The statement named by id (a statement name), or NULL. */
const pt_stmt *pt_model_stmt(const pt_model *m, __isl_keep isl_id *id);
/* The statement an AST user node runs, or NULL. */
const pt_stmt *pt_model_stmt_of_node(const pt_model *m, __isl_keep isl_ast_node *node);

/* PolyMage's base schedule of the model (statements.h). */
__isl_give isl_schedule *pt_model_naive_schedule(const pt_model *m);
/* The order the model's instances run in: the tiling's schedule, or the
 * naive one (the dependences are computed under it). */
__isl_give isl_schedule *pt_model_schedule(const pt_model *m);

/* Whether the schedule dimension that build is about to generate a loop
 * for may run its iterations in parallel: no dependence between two
 * instances that this loop would execute in different iterations, with
 * all outer loops at the same iteration (PPCG's test).  Correct for any
 * schedule, tiled or fused: only the schedule seen by build matters. */
bool pt_model_loop_is_parallel(const pt_model *m, __isl_keep isl_ast_build *build);

/* Text of the model's parts for dumps; the caller frees. */
char *pt_model_stmts_str(const pt_model *m);
char *pt_model_deps_str(const pt_model *m);

#endif
