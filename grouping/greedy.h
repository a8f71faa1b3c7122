/* greedy.h: PolyMage's greedy grouping (thesis 3.5, Algorithm 2) into
 * groups run in overlapped tiles (poly/tile.h).
 *
 * Every stage starts in a group of its own.  Repeatedly, among the groups
 * whose consumers all lie in one other group (their only child), the
 * largest at the param estimates is merged into its child when the
 * union can be tiled and its overlap, the recomputed fraction of a tile,
 * stays under the threshold; until no merge is made.  Merging a group
 * into its only child never makes a cycle between groups.
 *
 * A union can be tiled when its stages are functions (not reductions)
 * that do not read themselves (not time-iterated), have the same number
 * of dimensions and unit steps, have a dimension large enough to tile at
 * the estimates, and read each other at constant distances along the
 * tiled dimensions (alignment is the identity; data-dependent reads are
 * fine along dimensions that are not tiled).  A live-out (read after the
 * group, or an output) must not be read by the group at other points
 * than its own: its tiles are exact, never widened.  Every refusal is
 * recorded with its reason. */
#ifndef PT_GROUPING_GREEDY_H
#define PT_GROUPING_GREEDY_H

#include <isl/ctx.h>

#include "polytile.h"
#include "access.h"
#include "ir.h"
#include "tile.h"
#include "tile_model.h"
#include "target_desc.h"
#include "group_options.h"

/* The groups of p under opt's tile sizes (opt->tile, opt->ntile: sizes
 * of the tiled dims, outermost first; 0: defaults), overlap threshold
 * (opt->overlap; 0: PT_GROUP_DEFAULT_OVERLAP) and estimates.  machine
 * (NULL: none; target_desc.h, the CPU's pt_machine wrapped) is the tile
 * model's target when it will choose the sizes: a
 * merge whose scratchpads exceed L1 at the model's smallest tile must
 * then be within the threshold at 8 rows too, and one with under 1/16
 * of the largest stage's points is not fused; after these merges, a
 * second pass asks each candidate refused for its overlap alone again,
 * at the sizes the model picks for the merged group (with 1/16 of the
 * merged-in group alone as the bar for little work) (docs/architecture.md, "Merges with the tile
 * model").  *log (caller frees) receives one line per merge made
 * ("merged in the second pass: ..." for the second pass's) or refused.
 * A candidate isl cannot analyse is refused, so there is always a
 * tiling.  reads (borrowed; NULL: the grouping makes its own) holds the
 * stages' reads when a pass met them already (the model's, model.h). */
/* The overlap threshold when opt->overlap is 0 and not overlap_set. */
#define PT_GROUP_DEFAULT_OVERLAP 0.2

/* opt->groups (group_options.h) give some groups their own tiles and
 * thresholds; NULL when an entry names no stage or group, *log (when
 * not NULL) then holding "WHERE: what". */
pt_tiling *pt_group_greedy(isl_ctx *ctx, const pt_pipeline *p, const pt_options *opt,
	const pt_target_desc *machine, pt_poly_access_cache *reads, char **log);

/* What opt's per-group entries say for each group of t, the tiling
 * pt_group_greedy made under the same arguments; 0, or -1 (an entry
 * naming no group: pt_group_greedy failed on it first). */
int pt_group_greedy_choices(isl_ctx *ctx, const pt_pipeline *p, const pt_options *opt,
	const pt_target_desc *machine, pt_poly_access_cache *reads, const pt_tiling *t, pt_group_choice *choice);

/* The int params' values the grouping plans for (declaration order):
 * opt->estimates, else each param's estimate, else 1024. */
void pt_group_estimates(const pt_pipeline *p, const pt_options *opt, int64_t *ip);

/* The tiling as text: each group, its stages (live-outs marked), tile
 * sizes and each stage's widening; caller frees. */
char *pt_tiling_str(const pt_tiling *t);

#endif
