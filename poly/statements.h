/* statements.h: the statements codegen emits, one per (stage, case).
 *
 * A plain stage whose case conditions are all affine becomes one statement
 * per case over domain ∩ cond_k minus the earlier cases (first match), so
 * the loops themselves select the case and the bodies have no branch.  A
 * stage with a data-dependent condition, or with several cases one of
 * which tests the innermost variable, stays one statement that picks its
 * case at run time.  A reduction is an init statement over its domain and
 * one update statement per case over the reduction domain (affine part of
 * the condition in the domain, the rest checked at run time). */
#ifndef PT_POLY_STATEMENTS_H
#define PT_POLY_STATEMENTS_H

#include <stdbool.h>

#include <isl/ctx.h>
#include <isl/set.h>
#include <isl/schedule.h>
#include <isl/union_map.h>

#include "ir.h"

typedef enum pt_stmt_kind { PT_STMT_FUNC, PT_STMT_INIT, PT_STMT_UPDATE } pt_stmt_kind;

typedef struct pt_stmt {
	char name[32];
	pt_stmt_kind kind;
	const pt_stage *stage;
	int ncase;              /* the case it computes; -1: chosen at run time */
	bool cond_at_run_time;  /* UPDATE: the case condition is not affine */
	int nvars;              /* dims of its point (after the ntile tile coordinates) */
	int var0;               /* IR VAR index of point dim 0 (ndim for updates) */
	int ntile;              /* leading domain dims that are tile coordinates */
	/* split > 1: the instances whose innermost point dim y has
	 * y mod split == part; the nest's band runs floor(y / split), so that
	 * the split statements of a stage share one loop in which reads
	 * f(y / split) are consecutive (PolyMage's up-sampling and Bayer
	 * interleaving; pt_poly_split_of says when) */
	int split, part;
	isl_set *domain;        /* tuple id named name (no user pointer) */
	/* ncase -1 with affine conditions: case vcase is taken exactly on
	 * vregion, one convex polyhedron on the stage's space (pipeline params,
	 * then the point) with no divs, so an innermost loop takes it at every
	 * point once it does at both ends (codegen/version.c); else -1, NULL */
	int vcase;
	isl_basic_set *vregion;
	/* a statement of a time-tiled stage (poly/tile.h tsteps; model.c
	 * splits each of its statements in four): PT_TPHASE_TILED, with
	 * FIRST where it reads the step before from the full buffer (the
	 * block's first step) rather than the tile's scratchpad, and LAST
	 * where it writes the full buffer (the block's last step); 0
	 * otherwise */
	int tphase;
} pt_stmt;

enum { PT_TPHASE_TILED = 1, PT_TPHASE_FIRST = 2, PT_TPHASE_LAST = 4 };

typedef struct pt_stmts {
	int n;
	pt_stmt *s;
} pt_stmts;

/* The divisor d (2 .. 4) by which a plain function s is split along its
 * innermost dim, or 0: every division or remainder of that dim's
 * variable in s's cases is by the literal d (y / 2, (y + 1) % 2), and
 * there is one. */
int pt_poly_split_of(const pt_stage *s);
/* The statements of p in topological order; NULL if a bound is not affine. */
pt_stmts *pt_poly_stmts(isl_ctx *ctx, const pt_pipeline *p);
void pt_poly_stmts_free(pt_stmts *st);
/* PolyMage's base schedule as a schedule tree: a sequence of stages in
 * topological order (a reduction: its init, then its updates), each a
 * band over the statement's point (updates: then the case index; a
 * backward dimension of a stage that reads itself negated, so that it
 * runs down). */
__isl_give isl_schedule *pt_poly_stmts_naive_schedule(const pt_stmts *st);
/* The schedule of a tiling: a sequence of its groups; a tiled group is a
 * band over the tile coordinates, a mark "tile" (user pointer: the
 * pt_group), then its stages' nests as above; a stage reading itself in
 * an untiled group runs in the order of recur_order.h (strips of a
 * dimension its self-reads keep, run in parallel, and that dimension
 * innermost when the innermost one carries the recurrence). */
struct pt_tiling;
__isl_give isl_schedule *pt_poly_stmts_tiled_schedule(const pt_stmts *st, const struct pt_tiling *tl,
	isl_set *const *full);

/* Per stage id of group g of tl: the index of the fused nest of several
 * stages it runs in inside a tile (the tiled schedule's), or -1 (also
 * every stage of an untiled group).  nest has room for every stage id of
 * st's statements. */
void pt_poly_stmts_fused_nests(const pt_stmts *st, const struct pt_tiling *tl, int g, int *nest);

#endif
