/* rfactor.h: reductions factored into per-part partial results and a
 * merge (Halide's rfactor, chosen by the compiler).
 *
 * A reduction h over a result domain D and a reduction domain R whose
 * operator is associative and commutative in its type becomes two
 * stages:
 *
 *   reduce h_part(part : 0 .. P-1, D) over (x_part : 0 .. P-1, ..)
 *     | [cond ->] h_part(x_part, target) OP value     (x's P-th share)
 *   func h(D) = [init OP] h_part(0, D) OP .. OP h_part(P-1, D)
 *
 * One reduction dimension x (step 1) is split into P parts, each
 * visiting blocks of B consecutive values of x in turn (x = lo +
 * (x_blk * P + x_part) * B + x_in), so that x_part is an outer loop no
 * dependence crosses (each part writes its own partial result) and the
 * merge is a plain function over D, parallel and vectorized.  For a
 * GPU each part is one thread (P up to PT_RFACTOR_GPU_PARTS, B = 1;
 * codegen/gpu.c puts 32 of them in a block) and
 * the merge is a reduction over (D, part) whose loops over D are
 * parallel.  The choice is made at the param estimates: factored when the
 * reduction domain is large against the result and no reduction loop is
 * parallel already (a target index that is the outer reduction
 * variable).  Integer sums and products (wrapping), and, or, and integer
 * min and max give the same bits in any order; float sums, products, min
 * and max only with reassociation (float min/max: the sign of a zero
 * result may change).  A general update (`h(t) = E`) is factored when
 * assoc.h proves its operator associative and commutative with an
 * identity: the partials start at the identity and h becomes a
 * reduction over the parts that folds them with the same operator. */
#ifndef PT_POLY_RFACTOR_H
#define PT_POLY_RFACTOR_H

#include <stdbool.h>
#include <stdint.h>

#include "ir.h"

/* Parts of a factored reduction for the CPU: a constant, so that the
 * code and its listings do not depend on the machine compiling; 16 keeps
 * 2 to 16 threads balanced (their static shares differ by at most one
 * part). */
#define PT_RFACTOR_PARTS 16
/* At most this many parts for a GPU (one thread each, 32 to a block:
 * 128 blocks, about one per SM of an H100's 132); a constant of the
 * target, not of the device.  Chosen when parts were blocks of one
 * thread (4224 blocks fit at once); with warps the device could take
 * more, at the cost of the partials' memory and the merge. */
#define PT_RFACTOR_GPU_PARTS 4096

/* Whom the factored form is for: the CPU's threads (16 parts, a merge
 * unrolled over them) or a GPU's blocks (up to PT_RFACTOR_GPU_PARTS
 * parts, the merge a reduction over them; integer sums, mins and maxes
 * the GPU updates atomically are left to it). */
typedef enum pt_rf_target { PT_RF_CPU, PT_RF_GPU } pt_rf_target;

/* A new checked pipeline (owner NULL) equal to p with every reduction
 * worth factoring factored, or NULL (out of memory).  ip: the int params'
 * estimates (p->params order); reassociate: float reductions may be
 * reordered.  *log (if not NULL) receives one line per reduction: what
 * was factored and why, what was not and why (caller frees);
 * *nfactored (if not NULL) the number factored. */
pt_pipeline *pt_poly_rfactor_for(const pt_pipeline *p, const int64_t *ip, bool reassociate, pt_rf_target target,
	char **log, int *nfactored);
/* pt_poly_rfactor_for the CPU. */
pt_pipeline *pt_poly_rfactor(const pt_pipeline *p, const int64_t *ip, bool reassociate, char **log,
	int *nfactored);

#endif
