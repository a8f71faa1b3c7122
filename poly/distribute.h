/* distribute.h: how the MPI target shares each kernel (kernel.h) among
 * ranks, decided once from the model (the "distribute" pass).
 *
 * Every rank holds every array at full size and runs every kernel, each
 * over its part: a kernel is split along one coordinate of its
 * statements' instances (a tile coordinate of a tiled group, a point
 * coordinate of an untiled stage), which no dependence inside the
 * kernel crosses; rank r of R owns the values mpi.lo.K .. mpi.hi.K of
 * it (K: the kernel's index) given by pt_mpi_slice (balanced contiguous
 * ranges).  On a grid of ranks (pt_dist_setup.grid) a kernel is split
 * along a second such coordinate too (coord2): rank r owns a rectangle,
 * its row's range of the first and its column's of the second
 * (pt_mpi_slice2_of), and what a part's readers need of it is
 * exchanged, never recomputed.  A kernel that cannot be split (a reduction, a recurrence
 * along every coordinate, a data-dependent case, a write that is not a
 * box) runs whole on every rank: it is replicated.
 *
 * A time-iterated stage (one that reads itself at earlier steps of its
 * leading variable, heat(t - 1, x + 1)) has no coordinate that no
 * dependence crosses; it is split *between its steps* (stepped) along a
 * coordinate that no dependence between instances of one step crosses:
 * the generated code runs its steps in a loop of its own, each step over
 * the rank's part (param "mpi.t.K" the step), and before each step
 * exchanges the ghost zone of the step before (step_need ∩ another
 * rank's step_own).  Storage folded along the steps is exchanged plane
 * by plane (dist_steps.c).
 *
 * What a split kernel's consumers on other ranks read of it is either
 *   exchanged   its ghost zone received from the ranks that own it, or
 *   recomputed  the kernel's part on each rank widened to the values of
 *               its coordinate whose instances write what later kernels
 *               on the rank read (like an overlapped tile: whole tiles of
 *               a tiled group), so that nothing of it is exchanged, or
 *   whole       the kernel replicated after all,
 * chosen per kernel by --mpi-strategy, or under auto by a model that sets
 * the time of the bytes moved (latency per message, bandwidth) against
 * the time of the redundant points (pt_dist_costs).
 *
 * What moves between ranks follows from boxes over the params and the
 * parts of the kernels (params "mpi.lo.K" and "mpi.hi.K", and for a
 * widened kernel "mpi.wlo.K" and "mpi.whi.K", which the generated code
 * computes from its readers' parts, last kernel first):
 *   own   per array a split kernel writes that lives outside it, the
 *         elements its own part writes (exact: a kernel whose writes are
 *         not a box is replicated);
 *   need  per array of an earlier kernel a kernel reads, the box hull of
 *         the elements the rank's instances of it read (a widened part
 *         included; a replicated kernel's whole footprint).
 * Before a kernel, each rank receives, for each array it reads that an
 * exchanged kernel wrote, need(its instances) ∩ own(another rank's part)
 * from that rank; after the last kernel, rank 0 receives every rank's
 * own part of each output.  The schedule's instances are limited to the
 * rank's (pt_dist_domain); the generated code binds the params from
 * pt_mpi_slice. */
#ifndef PT_POLY_DISTRIBUTE_H
#define PT_POLY_DISTRIBUTE_H

#include <stdbool.h>
#include <stdint.h>

#include <isl/aff.h>
#include <isl/union_set.h>

#include "kernel.h"
#include "model.h"
#include "polytile.h"
#include "storage.h"

/* A box of one array: per dim, its bounds over the params and mpi.lo,
 * mpi.hi, defined where the box is not empty. */
typedef struct pt_dist_box {
	const pt_stage *stage;      /* the array's stage */
	const pt_image *image;      /* or image (stage NULL) */
	int ndim;
	isl_pw_aff *lo[PT_MAX_DIMS], *hi[PT_MAX_DIMS];
} pt_dist_box;

typedef struct pt_dist_kernel {
	bool split;                 /* in parts (exchanged or recomputed) */
	bool widened;               /* recomputed: never exchanged */
	char why[160];              /* why replicated, or where split */
	char choice[320];           /* how its readers get it, and why */
	int coord;                  /* the instance coordinate split */
	/* a second one (-1: none), on a grid of ranks (pt_mpi_grid.h): the
	 * part mpi.lo.K .. mpi.hi.K of coord on the rank's row, and
	 * mpi.lo2.K .. mpi.hi2.K of coord2 on its column; never widened */
	int coord2;
	isl_pw_aff *first2, *last2;
	/* widened: the least and greatest values of coord whose instances
	 * write what later kernels on the rank read (over the params and
	 * their parts; defined where there are any): the rank runs
	 * mpi.wlo.K .. mpi.whi.K, the hull of them and its own part; nv
	 * pairs, one per later kernel that reads it and statement of it
	 * that writes what that kernel reads, combined where they are
	 * evaluated (pt_dist_values): one pw_aff over their union has
	 * pieces for every ordering of the readers' parts, which isl's AST
	 * builder takes minutes over) */
	int nv;
	isl_pw_aff **vmin, **vmax;
	isl_pw_aff *first, *last;   /* its values over the kernel, over the params */
	int nown;
	pt_dist_box *own;           /* per array the kernel writes (split only) */
	int nneed;
	pt_dist_box *need;          /* per stage the kernel reads from another kernel */
	/* split: per array the kernel writes (as own), the box hull of what
	 * its instances on the rank (widened, every step) write and read of
	 * it: with the readers' need boxes, the rank's partition of it */
	int nlocal;
	pt_dist_box *local;
	/* per image the kernel reads, the box hull of what its instances on
	 * the rank read of it (the whole footprint when replicated): the
	 * rank's part of an input under the local-part ABI */
	int nimage;
	pt_dist_box *image;
	/* stepped (split and exchanged between its steps, dist_steps.c): its
	 * steps tfirst .. tlast (over the params); at step mpi.t.K the box of
	 * its own array the rank's part reads (step_need) and what its own
	 * part wrote at the step before (step_own); folded: its storage keeps
	 * fold steps, and own[] is the last step's plane only */
	bool stepped;
	int fold;
	isl_pw_aff *tfirst, *tlast;
	pt_dist_box step_need, step_own;
	/* stepped: the steps between two exchanges (depth: 1, every step; 0,
	 * none: every step recomputed from the first), and how far along
	 * coord a step's instances read the step before, below and above
	 * (grow; -1: not by constants, so depth 1), and along coord2 on a
	 * grid (grow2).  With m steps left before the next exchange
	 * (pt_dist_steps_left), the rank runs its part widened by m * grow
	 * (params mpi.wlo.K, mpi.whi.K; on a grid mpi.wlo2.K, mpi.whi2.K
	 * too): a ghost
	 * zone depth * grow deep, exchanged every depth steps
	 * (communication-avoiding), against the points run again. */
	int depth;
	int64_t grow[2], grow2[2];
	char depth_why[160];        /* how depth was chosen */
} pt_dist_kernel;

typedef struct pt_dist {
	int n;                      /* as the kernels */
	pt_dist_kernel *k;
	char plan[512];             /* auto: the plans compared, and the one kept */
} pt_dist;

/* What the auto strategy weighs (docs/distributed.md): seconds per
 * message, bytes per second between two ranks, seconds per point of a
 * stage computed on one rank: in a tiled kernel (its stages fused, in
 * scratchpads) and in an untiled one (read and written through memory:
 * 3.5 times as long on the test machine). */
typedef struct pt_dist_costs {
	double latency, bandwidth, point_time, stream_time;
} pt_dist_costs;
/* Defaults where nothing was measured (`polytile calibrate`). */
#define PT_DIST_LATENCY 5e-6
#define PT_DIST_BANDWIDTH 2e9
#define PT_DIST_POINT_TIME 2e-9
#define PT_DIST_STREAM_TIME 7e-9

/* o's figures, each not given (0) its default. */
pt_dist_costs pt_dist_costs_of(const pt_options *o);

/* What the distribute pass is given. */
typedef struct pt_dist_setup {
	pt_mpi_strategy strategy;
	int ranks;                  /* for the model's choice (auto) */
	pt_dist_costs costs;
	const int64_t *ip;          /* int params (declaration order): the estimates */
	const int *fold;            /* storage folding per stage (a folded stage's
	                             * kernel is replicated unless stepped), or NULL */
	bool local_outputs;         /* the outputs stay distributed: no gather */
	pt_mpi_grid grid;           /* PT_MPI_GRID: kernels split along a second
	                             * coordinate too; auto: pt_dist_build's choice */
	int steps;                  /* stepped kernels' depth (pt_options.mpi_steps):
	                             * 0 by the strategy, -1 all, N every N steps */
} pt_dist_setup;

/* The plan for kernels ks of m (never NULL).  isl errors are not caught
 * yet: a kernel isl fails on is described by what it returned. */
pt_dist *pt_dist_build(const pt_model *m, const pt_kernels *ks, const pt_dist_setup *su);
void pt_dist_free(pt_dist *d);
/* The own box of stage s in dk (NULL: dk does not write it, or is
 * replicated). */
const pt_dist_box *pt_dist_own(const pt_dist_kernel *dk, const pt_stage *s);
/* Partitioned memory: each intermediate array with a full buffer
 * (slot[id] >= 0) that a split kernel writes is held on each rank as
 * the box hull of that kernel's local box and every need box of it
 * (pt_dist_partition_boxes); its place becomes PT_PLACE_PARTITION.
 * Arrays a replicated kernel writes, and the caller's outputs, stay
 * whole. */
void pt_dist_place(const pt_dist *d, const pt_kernels *ks, const pt_pipeline *p, const int *slot,
	pt_placement *place);
/* The boxes whose hull is stage s's partition on a rank (*n of them,
 * the caller frees the array, not the boxes): the writer's local box,
 * then every kernel's need box of s. */
const pt_dist_box **pt_dist_partition_boxes(const pt_dist *d, const pt_kernels *ks, const pt_stage *s, int *n);
/* Whether dim d of any of boxes bs[0 .. n) depends on the ranks' parts
 * (a param "mpi.*"): only such dims are partitioned; along the others a
 * rank holds the whole domain (or image extent), whose bounds the
 * compiled code knows, so that addressing keeps constant offsets. */
bool pt_dist_dim_split(const pt_dist_box **bs, int n, int d);
/* The image need boxes of every kernel for image im (*n; the caller
 * frees the array): their hull is the rank's part of the input. */
const pt_dist_box **pt_dist_image_boxes(const pt_dist *d, const pt_image *im, int *n);
/* The bytes of intermediate arrays rank r of R holds at int params ip
 * (dist_memory.c): each storage slot as large as its largest stage's
 * partition (or whole array) plus PT_STORAGE_PAD, and the masks of
 * stages whose undefined points only the run can tell, as the generated
 * code allocates them (pt_mpi_held_all counts them). */
int64_t pt_dist_held(const pt_dist *d, const pt_model *m, const pt_kernels *ks, const pt_storage *st, const int64_t *ip,
	int r, int R);
/* The instances of m's kernels that a rank runs (split kernels: their
 * parts over params mpi.lo.K, mpi.hi.K, widened ones mpi.wlo.K,
 * mpi.whi.K), the others whole: the schedule's new domain. */
__isl_give isl_union_set *pt_dist_domain(const pt_dist *d, const pt_model *m, const pt_kernels *ks);

/* Slots per kernel in a rank's parts: lo, hi, wlo, whi, t (the step
 * a stepped kernel runs: "mpi.t.K"), lo2, hi2 (its second
 * coordinate's part on a grid: "mpi.lo2.K", "mpi.hi2.K"), and wlo2,
 * whi2 (a stepped kernel's on a grid, widened). */
#define PT_DIST_SLOTS 9
/* Which slot of a kernel's parts the param name is (kernel *k), or -1. */
int pt_dist_slot(const char *name, int *k);

/* Bytes each rank sends and receives in one run of R ranks at int params
 * ip, as the runtime moves them (sent[r], received[r], R entries each);
 * false on an isl error. */
bool pt_dist_predict(const pt_dist *d, const pt_model *m, const pt_kernels *ks, const int64_t *ip, int R,
	int64_t *sent, int64_t *received);
/* The model's projection of one run on R ranks at int params ip
 * (dist_project.c): every kernel's points once; on the busiest rank,
 * the points it computes (its parts, widened where recomputed, and
 * replicated kernels whole); the bytes and messages the rank that
 * receives most receives between kernels and steps; the slowest rank's
 * exchange seconds and its total (points x point time, tiled or
 * untiled per kernel, + messages x latency + bytes / bandwidth);
 * efficiency = every kernel's points x point time / R
 * over that; and the bytes of outputs rank 0 gathers (left out of the
 * time: an application holding its data distributed does not gather). */
typedef struct pt_dist_projection {
	double points, most_points;
	int64_t most_received, messages, gathered;
	double exchange_s, time_s, efficiency;
} pt_dist_projection;
bool pt_dist_project(const pt_dist *d, const pt_model *m, const pt_kernels *ks, const int64_t *ip, int R,
	const pt_dist_costs *c, pt_dist_projection *pr);
/* Text for --dump=distribute and explain. */
char *pt_dist_str(const pt_dist *d, const pt_kernels *ks);

#endif
