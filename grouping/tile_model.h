/* tile_model.h: tile sizes chosen by a cost model (issue 13), posed as a
 * small integer program and solved with PPL's MIP solver.
 *
 * After the greedy grouping (greedy.h, with its fixed provisional sizes),
 * each tiled group's sizes are chosen per tiled dim from the tuner's
 * candidates (8 .. 512, powers of two; the innermost a multiple of the
 * vector width in elements): one binary variable per (dim, size), exactly
 * one size per dim.  Every term of the model is written in log space so
 * that it is a sum of one term per dim, hence linear in the binaries:
 *   minimize   sum_k ln(1 + (o_k + 1) / t_k)   redundant work (overlap, and
 *                                              each edge's input halo)
 *            + ln(1 + lanes / t_inner)          per-row loop overhead
 *            + ln(T ceil(n_0 / T) / n_0)        threads idle at the end
 *   subject to sum_k ln(t_k + W_k) <= ln(L2 / 2 / B)   scratchpads in L2
 *              n_0 = ceil(E_0 / t_0) >= 2 T             tiles for T threads
 *              sum_k ln(1 + o_k / t_k) <= ln(1 + theta) the group's overlap
 *              sum_k ln(t_k) >= ln(2048)                 no tiny tiles
 * and a binary z, worth ln(1.25) in the objective, set only when the
 * footprint's bound fits L1 (a big-M constraint),
 * with B the scratchpads' bytes per point and W_k their widest widening
 * (footprint <= B prod (t_k + W_k)), the logs scaled by 1000 and rounded
 * so that the program stays conservative.  docs/architecture.md has the
 * constants and where each comes from. */
#ifndef PT_GROUPING_TILE_MODEL_H
#define PT_GROUPING_TILE_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "ir.h"
#include "tile.h"

/* What the model knows of the machine (driver/machine_facts.c fills it). */
typedef struct pt_machine {
	int64_t l1, l2, l3;         /* data cache bytes per core (L3: shared) */
	int threads;                /* threads the tiles are shared by */
	int vector_bytes;           /* the widest vector register the code uses */
	char source[160];           /* where the facts came from, for explain */
} pt_machine;

/* The target the model plans for (target_desc.h): the CPU's pt_machine
 * or, later, a GPU's description, asked through functions. */
typedef struct pt_target_desc pt_target_desc;

/* The sizes the model picks from, per dim (the tuner's range). */
#define PT_TILE_MODEL_MIN 8
#define PT_TILE_MODEL_MAX 512

/* Chooses g's tile sizes (g->tsize) for machine m at the int params ip
 * (the estimates), threshold theta (the grouping's).  Appends the program
 * (variables, constraints, objective) and its solution to text (may be
 * NULL).  0; -1 when PPL failed: g keeps its sizes (the fixed defaults)
 * and text says so. */
int pt_tile_model_choose(const pt_pipeline *p, pt_group *g, const int64_t *ip, double theta,
	const pt_target_desc *m, pt_strbuf *text);

/* The sizes pt_tile_model_choose would give g (g->tsize), found by
 * enumerating the program's 0-1 points (at most 16 sizes per dim, 3
 * dims, and z) instead of asking PPL: the same optimum, ties aside (the
 * first in enumeration order), in microseconds where PPL takes about
 * 5 ms.  For a question asked of many candidates (greedy.c's second
 * look); 0, -1 when no point is feasible even relaxed (g keeps its
 * sizes). */
int pt_tile_model_predict(pt_group *g, const int64_t *ip, double theta, const pt_target_desc *m);

/* The smallest tile the model picks for a group of two tiled dims,
 * 8 x 128 (its volume bound, 1024 points): per outer tiled dim
 * PT_TILE_MODEL_MIN, innermost this. */
#define PT_TILE_MODEL_MIN_INNER 128

/* Whether the scratchpads of one of g's tiles, at g's sizes, fit the
 * share of L1 the model counts as L1 (z = 1); *bytes: their size. */
bool pt_tile_model_fits_l1(const pt_group *g, const int64_t *ip, const pt_target_desc *m, double *bytes);

/* The machine as one line of text ("L1d 32 KiB, ..."). */
void pt_machine_text(pt_strbuf *b, const pt_machine *m);

/* For tests: makes every later solve fail as if PPL had (true), or not. */
void pt_tile_model_fail_for_test(bool fail);

#endif
