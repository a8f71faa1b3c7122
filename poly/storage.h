/* storage.h: where each intermediate stage's values live (PolyMage
 * thesis 3.6), decided once a schedule is chosen.
 *
 * Outputs live in the caller's buffers and the inner stages of a tiled
 * group in per-thread scratchpads (tile.h).  Every other intermediate
 * gets a full buffer, and two rules shrink them:
 *
 * Folding.  A stage f that reads itself only at f(t - d, ..) with
 * 0 <= d < m in its first dimension, computed by one statement in a nest
 * of its own (t sequential, outermost), keeps only m values of t: element
 * t lives at t mod m (t - lo mod m).  It is exact when its other readers,
 * which run after f, read only elements that no later t overwrites: for
 * every element e they read and every point w of f with w = e outside
 * dimension 0, w0 < e0 + m (isl proves it).  heat3d's `heat` over T + 1
 * steps, read by itself at t - 1 and by `last` at T, keeps 2.
 *
 * Reuse.  The schedule's top-level sequence runs its parts one after the
 * other; a buffer is live from the first part that writes it to the last
 * that reads it.  Buffers whose lifetimes do not overlap share a slot
 * (allocated once, as large as its largest stage), assigned greedily in
 * order of first write, best fit by size at the estimates.  A schedule
 * that is not a sequence at the top gives every buffer its own slot.
 *
 * Planes written in place.  An output o(X) = f(c, X) (one case, no
 * condition, X o's variables in order, c free of variables, the same
 * type) of an intermediate f with a full buffer, whose domain is f's
 * without dimension 0, and whose plane f(c, ..) no other statement
 * reads (isl proves it for all admissible params): f's statements write
 * that plane straight into o's buffer, and o's own statement is a copy
 * that is not run (plane_out[f] = o).  heat3d's last(x, y, z) =
 * heat(T, x, y, z): the last step lands in the output, one pass over
 * 512^3 less.  Only codegen for host memory uses it. */
#ifndef PT_POLY_STORAGE_H
#define PT_POLY_STORAGE_H

#include <stdint.h>

#include <isl/schedule.h>

#include "ir.h"
#include "model.h"

/* Where a stage's values live (kernel.h's targets): a tile's scratchpad
 * (memory of the thread or block running the tile), the host's memory,
 * a device's, or each rank's partition of the stage plus its ghost
 * zones. */
typedef enum pt_placement {
	PT_PLACE_SCRATCH, PT_PLACE_HOST, PT_PLACE_DEVICE, PT_PLACE_PARTITION
} pt_placement;

/* Bytes past the end of every full buffer, which a table lookup's
 * widened load may read (codegen/expr.c). */
#define PT_STORAGE_PAD 4

typedef struct pt_storage {
	int nstages;            /* of the pipeline compiled; arrays by stage id */
	int *fold;              /* 0, or m: dimension 0 kept modulo m */
	/* per stage: 0, or K: a time-tiled stage (tile.h tsteps) whose full
	 * buffer holds only the steps that end a block, folded by block:
	 * element t at ((t - lo) / K) mod fold (fold 2), so that a block's
	 * tiles write one plane while reading the other */
	int *fold_steps;
	/* per stage f: the output o written in f's place at one plane of
	 * f's dimension 0 (-1: none; below) */
	int *plane_out;
	int *slot;              /* the full buffer's slot, -1: none (output, scratchpad) */
	int *first, *last;      /* the top-level parts that write it first and read it last */
	int nslots;
	double *bytes;          /* per stage: its full buffer at the estimates (folded) */
	double naive_bytes;     /* every intermediate in a full buffer of its own */
	double peak_bytes;      /* the slots: sum of their largest stages */
	bool *stream;           /* per stage: an output written past the caches (below) */
	pt_placement *place;    /* per stage: where it lives (pt_storage_place) */
} pt_storage;

/* The storage of the model's intermediate stages under sched (a schedule
 * of m's instances), sized at ip (int params, declaration order); NULL
 * on an isl error. */
pt_storage *pt_storage_plan(const pt_model *m, __isl_keep isl_schedule *sched, const int64_t *ip);
void pt_storage_free(pt_storage *s);
/* Streamed outputs.  An output that no stage reads, written in whole
 * cache lines (its innermost dim untiled, or tiled by 64 bytes or more)
 * and of at least min_bytes at ip (the shared cache's size: it would
 * not stay there anyway), is stored around the caches: a cached store
 * first reads the line it writes, a third of a memory-bound stage's
 * traffic (codegen/stream.c).  Only under a tiling (-O1), whose tile
 * grid starts where such an output does (tile.h), so that its tiles'
 * rows start aligned. */
void pt_storage_mark_streams(pt_storage *s, const pt_pipeline *p, const pt_tiling *t,
	const int64_t *ip, double min_bytes);
/* Places every stage of p: a scratchpad stage of tiling t (NULL: none)
 * in its tiles, every other (outputs and full buffers) at full, the
 * target's placement. */
void pt_storage_place(pt_storage *s, const pt_pipeline *p, const pt_tiling *t, pt_placement full);
/* "scratch", "host", "device", "partition". */
const char *pt_placement_name(pt_placement pl);
/* Text for dumps and explain: a line per intermediate, then the totals. */
char *pt_storage_str(const pt_storage *s, const pt_pipeline *p);

/* Bytes of s's full buffer at the int params ip (its dim 0 kept modulo
 * fold when fold > 0). */
double pt_storage_box_bytes(const pt_stage *s, const int64_t *ip, int fold);
/* bytes as "12.3 KB" or "4.5 MB" (explain's and the storage dump's unit). */
void pt_storage_bytes_text(pt_strbuf *b, double bytes);

#endif
