/* access.h: the accesses of a stage as isl objects: PolyMage's access
 * relations, the points where each access is evaluated, and dependence
 * vectors (thesis section 3.1).
 *
 * Spaces.  The iteration space of a consumer s has the pipeline's params
 * (all of them, by name, as pt_poly_stage_space) and, as set dimensions,
 * s's domain variables for a function, or its reduction variables for a
 * reduction (the space its updates are evaluated in); the tuple is named
 * s->name.  The index space of a callee has one dimension per argument
 * and is named after the callee stage or image.
 *
 * Accesses.  An argument that isl can represent (pt_poly_pw_aff: affine
 * forms, floor division and modulo by constants, min, max, clamp) is
 * exact.  An argument that reads data is over-approximated by interval
 * arithmetic on its parts (calls count as their type's range), then cut
 * to the callee's box in that dimension, which the bounds check has
 * proved it stays in (bounds.c).  Any other argument (x * y,
 * x & 3, conversions) gets the interval bounds alone, possibly unbounded.
 *
 * Where a call is evaluated: the stage's domain (reductions: the
 * reduction domain), then
 *   - in a function's value: where case k's condition holds and no earlier
 *     case's does (cases are exclusive, so this is where case k applies);
 *   - in a reduction's target or value: where that update's condition
 *     holds (every update whose condition holds applies);
 *   - case conditions are evaluated everywhere in the domain;
 *   - inside `c ? a : b` / select: a where c holds, b where it does not;
 *     the right operand of `a && b` where a holds, of `a || b` where a
 *     does not.
 * Conditions that isl cannot represent are approximated so that the set
 * only grows: a non-affine comparison counts as "maybe" (for a guard it
 * is ignored), and `&&`, `||`, `!` combine such approximations soundly.
 *
 * Every function returns NULL when a domain bound cannot be converted
 * (never after pt_check_pipeline) or on an isl error. */
#ifndef PT_POLY_ACCESS_H
#define PT_POLY_ACCESS_H

#include <isl/aff.h>
#include <isl/ctx.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/space.h>

#include "ir.h"

/* The iteration space of s (see above). */
__isl_give isl_space *pt_poly_iter_space(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s);
/* The iteration domain of s: its domain box, or its reduction domain box,
 * steps included, in the iteration space. */
__isl_give isl_set *pt_poly_iter_domain(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s);

/* The access relation of call (a CALL node in one of s's case conditions,
 * values or targets): iteration space of s -> index space of the callee.
 * Defined on the whole iteration space (params unconstrained); intersect
 * its domain with pt_poly_call_domain for the accesses actually made. */
__isl_give isl_map *pt_poly_call_access(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s,
	const pt_expr *call);
/* The points of the iteration space where call is evaluated (see above);
 * NULL also when call is not in s. */
__isl_give isl_set *pt_poly_call_domain(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s,
	const pt_expr *call);

/* For reduction s, the target of update c (0-based): reduction space ->
 * the index space of s itself, on the whole reduction space; and the
 * points where it is evaluated (the reduction domain where the update's
 * condition holds).  NULL for a function or a bad c. */
__isl_give isl_map *pt_poly_target_access(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s, int c);
__isl_give isl_set *pt_poly_target_domain(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s, int c);

/* Bounds on the values of the integer expression e on space (a stage's
 * evaluation space, as a->space of pt_poly_walk), by the rules of
 * frontend/range.h: *lo <= e <= *hi wherever e is evaluated in context (a
 * set on space), NULL for a side that is unbounded.  The context decides
 * the comparisons the rules make (a conversion keeps its operand's values
 * where they provably fit its type). */
void pt_poly_index_range(__isl_keep isl_space *space, __isl_keep isl_set *context, const pt_expr *e,
	__isl_give isl_pw_aff **lo, __isl_give isl_pw_aff **hi);

/* Dependence vectors of the edge producer -> consumer: for every read of
 * the producer by the consumer, at every point where it is evaluated, the
 * consumer's point minus the producer's point it reads (the thesis's
 * convention: consumed minus produced, so g(x) = f(x-1) + f(x+1) gives
 * { [1]; [-1] }), for admissible params.  The set has the params and one
 * unnamed dimension per iteration dimension.  Empty when the consumer
 * does not read the producer; NULL when their dimension counts differ
 * (no common space without alignment and scaling). */
__isl_give isl_set *pt_poly_dependence_vectors(isl_ctx *ctx, const pt_pipeline *p,
	const pt_stage *producer, const pt_stage *consumer);

/* ---- the walk behind these functions (used by bounds.c) ---- */

/* One access met by pt_poly_walk.  Sets and maps are in the evaluation
 * space: pt_poly_stage_space with ndim + nrdim variables (for a
 * reduction the result variables come first and are unconstrained). */
typedef struct pt_poly_access {
	const pt_expr *call;    /* the CALL node; for a target, a CALL node of s
	                         * itself whose args are the target (valid only
	                         * during the callback) */
	int case_index;
	bool is_target;
	isl_space *space;       /* the evaluation space (borrowed) */
	isl_set *where;         /* where it is evaluated, within the domain (borrowed) */
	isl_map *map;           /* a read recorded by pt_poly_walk_recording
	                         * (met there or replayed): its access map
	                         * within where (borrowed); else NULL */
} pt_poly_access;

/* Calls fn on every call of s (case conditions, targets, values; inner
 * arguments before the call that contains them) and on every reduction
 * target, in source order, until fn returns false.  Returns false if
 * the walk could not be made (a bound isl cannot convert). */
bool pt_poly_walk(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s,
	bool (*fn)(const pt_poly_access *a, void *user), void *user);

/* The reads (not targets) of every stage of p, met by pt_poly_walk once
 * per stage and then replayed: grouping aligns many candidate groups over
 * the same stages, and building the sets is most of its time. */
typedef struct pt_poly_access_cache pt_poly_access_cache;
pt_poly_access_cache *pt_poly_access_cache_new(isl_ctx *ctx, const pt_pipeline *p);
void pt_poly_access_cache_free(pt_poly_access_cache *c);
/* pt_poly_nonempty of the cache's pipeline, computed once. */
__isl_give isl_set *pt_poly_access_cache_nonempty(pt_poly_access_cache *c);
/* A memo kept with the cache: the set stored under key (n bytes), or
 * NULL; and storing one (the grouping's aligned dependences of a stage
 * pair, which every candidate group holding the pair with the same
 * alignment would compute again). */
__isl_give isl_set *pt_poly_memo_get(pt_poly_access_cache *c, const void *key, size_t n);
void pt_poly_memo_put(pt_poly_access_cache *c, const void *key, size_t n, __isl_take isl_set *set);
/* The general form: an entry holds a set (or NULL) and a copy of ndata
 * bytes (the grouping's dependence boxes and the ties of each read).
 * find: false when nothing is stored under key; else a copy of the set
 * and the bytes (borrowed, valid while the cache lives).  store: the
 * first entry under a key stays. */
bool pt_poly_memo_find(pt_poly_access_cache *c, const void *key, size_t n,
	__isl_give isl_set **set, const void **data, size_t *ndata);
void pt_poly_memo_store(pt_poly_access_cache *c, const void *key, size_t n, __isl_take isl_set *set,
	const void *data, size_t ndata);
/* pt_poly_walk of s's reads from the cache (stage ids index it). */
bool pt_poly_walk_reads(pt_poly_access_cache *c, const pt_stage *s,
	bool (*fn)(const pt_poly_access *a, void *user), void *user);

/* pt_poly_walk of s (targets and reads to fn), recording its reads in c
 * on the way when c has not met s yet: a pass that walks every stage
 * anyway leaves the grouping nothing to walk again. */
bool pt_poly_walk_recording(pt_poly_access_cache *c, const pt_stage *s,
	bool (*fn)(const pt_poly_access *a, void *user), void *user);

/* The access relation of call in the evaluation space (see above). */
__isl_give isl_map *pt_poly_access_map(__isl_keep isl_space *space, const pt_expr *call);
/* a's access map within a->where: the one a recorded read keeps (the
 * model and every candidate the grouping aligns read the same maps),
 * else computed. */
__isl_give isl_map *pt_poly_access_map_where(const pt_poly_access *a);

#endif
