/* group_options.h: per-group options (pt_options.groups: tiles and
 * thresholds for the groups named by a stage or an index) resolved to
 * the stages of the pipeline the grouping sees (after inlining).
 *
 * An entry names a stage S (its group is the one holding S) or an index
 * I: group I of the grouping under the same options without per-group
 * entries (what `explain` numbers then), which stands for the last stage
 * of that group.  Tiles go to the group holding the stage at the end of
 * grouping, replacing the tile model's (or --tile's) sizes; without
 * the tile model (--tile) a candidate merge holding the stage is judged
 * at them, as at --tile's, while with the model the merges are judged
 * as without the entry, so that writing each group's tiles back (the
 * tuner) gives the same groups; a threshold holds for every
 * merge that makes a group holding the stage, the smallest one when
 * several entries name stages of it.  A group with entries' tiles does
 * not ask the tile model for its sizes. */
#ifndef PT_GROUPING_GROUP_OPTIONS_H
#define PT_GROUPING_GROUP_OPTIONS_H

#include <stdbool.h>

#include "polytile.h"
#include "ir.h"
#include "tile.h"

/* The overlap threshold opt gives every group: opt->overlap when set
 * (overlap_set) or positive, else PT_GROUP_DEFAULT_OVERLAP. */
double pt_group_threshold(const pt_options *opt);

/* Whether overlap o is over threshold th: o >= th, and at th = 0 any
 * overlap above 0 (a threshold of 0 allows merges without overlap). */
bool pt_group_over(double o, double th);

/* opt's entries per stage id. */
typedef struct pt_group_sel {
	int n;                          /* stages */
	const pt_options *opt;
	int *tile;                      /* per stage: the entry giving tiles, or -1 */
	int *block;                     /* per stage: the entry giving a GPU block, or -1 */
	double *theta;                  /* per stage: the smallest threshold, or -1 */
	bool any;                       /* some entry */
} pt_group_sel;

/* sel of opt's entries for p; names[i] (ngroups of them; NULL when no
 * entry is an index) is group i's last stage in the grouping without
 * entries.  0, or -1 with *err (caller frees) "WHERE: what". */
int pt_group_sel_init(pt_group_sel *sel, const pt_pipeline *p, const pt_options *opt,
	const char *const *names, int ngroups, char **err);
void pt_group_sel_clear(pt_group_sel *sel);
/* Whether an entry of opt names a group by its index. */
bool pt_group_sel_has_index(const pt_options *opt);

/* The threshold of a group of the stages in[] (by id). */
double pt_group_sel_threshold(const pt_group_sel *sel, const bool *in);
/* The entry giving tiles to a group of the stages in[] (the last in
 * opt's order naming one of them), or NULL. */
const pt_group_options *pt_group_sel_tiles(const pt_group_sel *sel, const bool *in);
/* The entry giving a GPU block to a group of the stages in[] (the last
 * naming one of them), or NULL. */
const pt_group_options *pt_group_sel_block(const pt_group_sel *sel, const bool *in);

/* What the options say for each group of a tiling. */
typedef struct pt_group_choice {
	bool given;                     /* tiles from an entry: no tile model */
	double theta;                   /* its threshold */
} pt_group_choice;

/* choice[i] for group i of t (grouped from p by pt_group_greedy under
 * sel's options). */
void pt_group_sel_choices(const pt_group_sel *sel, const pt_tiling *t, pt_group_choice *choice);

/* A group's name: its last stage's (stages are in topological order). */
const char *pt_group_name(const pt_group *g);

#endif
