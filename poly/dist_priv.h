/* dist_priv.h: what the distribute pass's files share (distribute.c
 * builds the plan, dist_eval.c evaluates its boxes at given params and
 * parts, dist_model.c weighs the auto strategy's choices). */
#ifndef PT_POLY_DIST_PRIV_H
#define PT_POLY_DIST_PRIV_H

#include "distribute.h"

/* dist_sets.c, under dist_steps.c, dist_model.c and distribute.c (the
 * files' calls stay in layers: dist_eval.c, dist_sets.c, then
 * dist_steps.c and dist_model.c, then distribute.c, then dist_auto.c): */
/* The statements of kernel k, in model order (*n; the caller frees). */
const pt_stmt **pt_dist_kernel_stmts(const pt_model *m, const pt_kernels *ks, int k, int *n);
/* The values of instance coordinate c over the statements (1-D sets). */
__isl_give isl_set *pt_dist_coord_values(const pt_stmt **st, int n, int c);
/* The box hull of w (elements of s) into b; *exact (if given): whether w is it. */
void pt_dist_box_of(__isl_take isl_set *w, const pt_stage *s, pt_dist_box *b, bool *exact);
/* The elements of array name in acc's range over inst. */
__isl_give isl_set *pt_dist_touched(__isl_keep isl_union_map *acc, __isl_take isl_union_set *inst, const char *name,
	__isl_keep isl_space *space);
/* Among coordinates c0 .. c1 - 1 of kernel k that crossed() refuses
 * not, the first with 64 values or more at ip, else the one with the
 * most values; -1 if none. */
int pt_dist_pick_coord(const pt_model *m, const pt_kernels *ks, int k, const pt_stmt **st, int n, const int64_t *ip,
	int c0, int c1, bool (*crossed)(const pt_model *m, const pt_kernels *ks, int k, int c));
/* Box b at ip and a rank's parts row, empty where kernel k's part is. */
void pt_dist_part_box(const pt_dist_box *b, const pt_pipeline *p, const int64_t *ip, const int64_t *row, int k,
	int64_t *out);
/* The space of stage s's elements with m's params; of array name's. */
__isl_give isl_space *pt_dist_array_space(const pt_model *m, const pt_stage *s);
__isl_give isl_space *pt_dist_named_space(const pt_model *m, const char *name, int ndim);
/* Bytes (and messages) each of R ranks receives and sends over the steps
 * of stepped kernel k at ip (dist_eval.c); parts: R rows of stride values
 * (their step slot is used and left 0); received/sent/msgs may be NULL. */
void pt_dist_step_bytes(const pt_dist *d, int k, const pt_pipeline *p, const int64_t *ip, int R, int64_t *parts,
	size_t stride, int64_t *received, int64_t *sent, int64_t *msgs);

/* distribute.c, under dist_auto.c: the plan under su's strategy, each
 * kernel split or not and, from the last back, how its readers get it
 * (auto: per kernel, by pt_dist_weigh); then, for the plan kept, each
 * split kernel's local boxes. */
pt_dist *pt_dist_plan(const pt_model *m, const pt_kernels *ks, const pt_dist_setup *su);
void pt_dist_local_boxes(pt_dist *d, const pt_model *m, const pt_kernels *ks);

/* dist_steps.c: time-iterated kernels split between their steps. */
/* s (an instance set of kernel k) at the step param mpi.t.K + delta. */
__isl_give isl_set *pt_dist_at_step(__isl_take isl_set *s, int k, int delta);
/* Whether kernel k, which no coordinate splits (every one crossed by a
 * dependence, or stored folded), runs split between its steps: then
 * sets dk's stepped, coord, fold, tfirst and tlast; else why says why
 * not (when it is a time-iterated kernel at all). */
bool pt_dist_plan_steps(pt_dist_kernel *dk, const pt_model *m, const pt_kernels *ks, int k, const pt_stmt **st,
	int n, const pt_dist_setup *su, char *why, size_t len);

/* The names of kernel k's part bounds: "mpi.lo.K", "mpi.hi.K" (widened:
 * "mpi.wlo.K", "mpi.whi.K"). */
void pt_dist_names(int k, bool widened, char lo[32], char hi[32]);
/* pa at the int params ip and the parts (PT_DIST_SLOTS per kernel; NULL:
 * none); false where it is not defined. */
bool pt_dist_eval(__isl_keep isl_pw_aff *pa, const pt_pipeline *p, const int64_t *ip, const int64_t *parts,
	int64_t *v);
/* Rank r of R's parts of d's kernels at ip into parts (PT_DIST_SLOTS *
 * d->n values; a kernel not split: 0, -1), as pt_mpi_slice and the
 * generated code give them. */
void pt_dist_parts(const pt_dist *d, const pt_pipeline *p, const int64_t *ip, int r, int R, int64_t *parts);
/* Box b at ip and parts into out (lo, hi per dim; dim 0 from 1 to 0:
 * empty). */
void pt_dist_box_at(const pt_dist_box *b, const pt_pipeline *p, const int64_t *ip, const int64_t *parts,
	int64_t *out);
/* Elements in both boxes. */
int64_t pt_dist_meet(int ndim, const int64_t *a, const int64_t *b);
/* The values widened kernel dk's readers need at ip and parts, vlo ..
 * vhi (vlo > vhi: none), from its pieces. */
void pt_dist_values(const pt_dist_kernel *dk, const pt_pipeline *p, const int64_t *ip, const int64_t *parts,
	int64_t *vlo, int64_t *vhi);
/* A widened kernel's range on a rank from its own part lo .. hi and
 * the values its readers need vlo .. vhi (vlo > vhi: none). */
void pt_dist_widen(int64_t lo, int64_t hi, int64_t vlo, int64_t vhi, int64_t *wlo, int64_t *whi);
/* Stepped kernel dk at step t of its steps tfirst .. tlast: the steps
 * left before its next exchange (m: its range is its own part widened
 * by m * grow), whether an exchange comes before step t, the most steps
 * left at any step, and its own part (parts row q of the kernel: lo,
 * hi, and lo2, hi2 on a grid) widened by m into q's wlo, whi (wlo2,
 * whi2). */
int64_t pt_dist_steps_left(const pt_dist_kernel *dk, int64_t t, int64_t tlast);
bool pt_dist_step_exchanged(const pt_dist_kernel *dk, int64_t t, int64_t tfirst, int64_t tlast);
int64_t pt_dist_steps_most(const pt_dist_kernel *dk, int64_t tfirst, int64_t tlast);
void pt_dist_step_range(const pt_dist_kernel *dk, int64_t *q, int64_t m);
/* The values of stepped kernel k's split coordinate (on a grid, pairs
 * of its two) a rank with parts q runs in a step, their mean over its
 * steps (its widened ranges within the kernel's values), and those of
 * its own part (*own); false where its steps cannot be evaluated. */
bool pt_dist_step_values(const pt_dist *d, int k, const pt_pipeline *p, const int64_t *ip, const int64_t *q,
	double *run, double *own);
/* What R ranks with parts (R rows of stride values; a stepped kernel's
 * step slot is used and left 0) send and receive between kernels and
 * between steps (added to sent[r], received[r], and the messages each
 * receives to msgs[r] where given), and of the outputs gathered on
 * rank 0, as the runtime moves them. */
void pt_dist_exchanges(const pt_dist *d, const pt_model *m, const pt_kernels *ks, const int64_t *ip, int R,
	int64_t *parts, size_t stride, int64_t *sent, int64_t *received, int64_t *msgs);
void pt_dist_gathered(const pt_dist *d, const pt_model *m, const pt_kernels *ks, const int64_t *ip, int R,
	const int64_t *parts, size_t stride, int64_t *sent, int64_t *received);
/* Points of kernel k's stages at ip (dist_model.c). */
double pt_dist_kernel_points(const pt_kernel *k, const int64_t *ip);
/* Seconds per point of kernel k on one rank (tiled or not). */
double pt_dist_point_cost(const pt_kernel *k, const pt_dist_costs *c);
/* Stepped kernel k's depth (dk->depth): forced by su->steps, else by
 * the strategy (communicate: 1, recompute: 0, all), else the model's;
 * how it was chosen into why.  1 when grow (grow2) is not known. */
void pt_dist_step_depth(pt_dist *d, const pt_model *m, const pt_kernels *ks, int k, const pt_dist_setup *su,
	char *why, size_t len);
/* The auto strategy's choice for split kernel k of d, whose readers
 * (later kernels) are decided: *widen (recompute) or *whole, or neither
 * (exchange); the reason into why.  can_widen: false when a replicated
 * kernel reads it; else d->k[k].vmin and vmax are set. */
void pt_dist_weigh(const pt_dist *d, const pt_model *m, const pt_kernels *ks, int k,
	const pt_dist_setup *su, bool can_widen, bool *widen, bool *whole, char *why, size_t len);

#endif
