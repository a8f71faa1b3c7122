/* distribute.h: how the MPI target shares each kernel (kernel.h) among
 * ranks, decided once from the model (the "distribute" pass).
 *
 * Every rank holds every array at full size and runs every kernel, each
 * over its part: a kernel is split along one coordinate of its
 * statements' instances (a tile coordinate of a tiled group, a point
 * coordinate of an untiled stage), which no dependence inside the
 * kernel crosses; rank r of R runs the values lo .. hi of it given by
 * pt_mpi_slice (balanced contiguous ranges).  A kernel that cannot be
 * split (a reduction, a recurrence along every coordinate, a
 * data-dependent case, a write that is not a box) runs whole on every
 * rank: it is replicated.
 *
 * What moves between ranks follows from boxes over the params and the
 * part's range (params "mpi.lo" and "mpi.hi"):
 *   own   per array a split kernel writes that lives outside it, the
 *         elements a part writes (exact: a kernel whose writes are not a
 *         box is replicated);
 *   need  per array of an earlier kernel a kernel reads, the box hull of
 *         the elements a part reads (a replicated kernel's part is its
 *         whole range).
 * Before a kernel, each rank receives, for each array it reads that a
 * split kernel wrote, need(its part) ∩ own(another rank's part) from that
 * rank; after the last kernel, rank 0 receives every rank's own part of
 * each output.  The schedule's instances of a split kernel are limited to
 * the rank's part by params "mpi.lo.K" and "mpi.hi.K" (K: the kernel's
 * index), which the generated code binds from pt_mpi_slice. */
#ifndef PT_POLY_DISTRIBUTE_H
#define PT_POLY_DISTRIBUTE_H

#include <stdbool.h>
#include <stdint.h>

#include <isl/aff.h>
#include <isl/union_set.h>

#include "kernel.h"
#include "model.h"

/* A box of one array: per dim, its bounds over the params and mpi.lo,
 * mpi.hi, defined where the box is not empty. */
typedef struct pt_dist_box {
	const pt_stage *stage;      /* the array's stage */
	int ndim;
	isl_pw_aff *lo[PT_MAX_DIMS], *hi[PT_MAX_DIMS];
} pt_dist_box;

typedef struct pt_dist_kernel {
	bool split;
	char why[160];              /* why replicated, or where split */
	int coord;                  /* the instance coordinate split */
	isl_pw_aff *first, *last;   /* its values over the kernel, over the params */
	int nown;
	pt_dist_box *own;           /* per array the kernel writes (split only) */
	int nneed;
	pt_dist_box *need;          /* per stage the kernel reads from another kernel */
} pt_dist_kernel;

typedef struct pt_dist {
	int n;                      /* as the kernels */
	pt_dist_kernel *k;
} pt_dist;

/* The plan for kernels ks of m (never NULL); with replicate, every kernel whole on
 * every rank.  ip: the int params (declaration order) at which to
 * choose the coordinate (the estimates); fold: the storage plan's folding
 * per stage (a folded stage's kernel is replicated), or NULL.  isl errors are
 * not caught yet: a kernel isl fails on is described by what it returned. */
pt_dist *pt_dist_build(const pt_model *m, const pt_kernels *ks, bool replicate, const int64_t *ip,
	const int *fold);
void pt_dist_free(pt_dist *d);
/* The own box of stage s in dk (NULL: dk does not write it, or is
 * replicated). */
const pt_dist_box *pt_dist_own(const pt_dist_kernel *dk, const pt_stage *s);
/* The instances of m's split kernels limited to their parts (params
 * mpi.lo.K, mpi.hi.K), the others whole: the schedule's new domain. */
__isl_give isl_union_set *pt_dist_domain(const pt_dist *d, const pt_model *m, const pt_kernels *ks);

/* Bytes each rank sends and receives in one run of R ranks at int params
 * ip, as the runtime moves them (sent[r], received[r], R entries each);
 * false on an isl error. */
bool pt_dist_predict(const pt_dist *d, const pt_model *m, const pt_kernels *ks, const int64_t *ip, int R,
	int64_t *sent, int64_t *received);
/* Text for --dump=distribute and explain. */
char *pt_dist_str(const pt_dist *d, const pt_kernels *ks);

#endif
