/* stream_plan.h: a run whose copies to and from a GPU go in chunks of
 * tile rows, overlapped with a kernel: while the kernel computes one
 * chunk, the next one's inputs go up and the last one's outputs come
 * back (docs/cuda.md, "Streamed copies").  For a run whose last kernel
 * is tiled, reads every image the run reads and writes every output
 * and nothing else (blur, harris, sobel, unsharp mask, and camera pipe,
 * whose lookup tables come before): what a chunk of its tiles reads
 * and writes is then all that must move before and after it.
 *
 * For each buffer of the entry (the images, then the outputs, in ABI
 * order), the box of elements a chunk reads (an image) or writes (an
 * output), first and last along each dim, over the params and two more:
 * the chunk's first and last tile coordinate along tile dim 0
 * (PT_STREAM_FIRST, PT_STREAM_LAST).  An output's box is exactly the
 * elements the chunk writes (checked: else no streaming), so that
 * copying it back never overwrites an element the run leaves alone; an
 * image's box may hold more than the chunk reads. */
#ifndef PT_POLY_STREAM_PLAN_H
#define PT_POLY_STREAM_PLAN_H

#include <stdbool.h>

#include <isl/aff.h>
#include <isl/ast.h>

#include "kernel.h"
#include "model.h"

#define PT_STREAM_FIRST "pt.chunk_first"
#define PT_STREAM_LAST "pt.chunk_last"

typedef struct pt_stream {
	int kernel;                 /* the kernel whose launch streams (the last) */
	int nbuf;
	int *ndim;
	bool *output;
	/* per buffer, per dim (NULL for an image no chunk reads) */
	isl_pw_aff *(*lo)[PT_MAX_DIMS], *(*hi)[PT_MAX_DIMS];
} pt_stream;

/* The plan of ks's run, or NULL where it cannot stream. */
pt_stream *pt_stream_build(const pt_kernels *ks, const pt_model *m);
void pt_stream_free(pt_stream *s);
/* The streamed launch's outermost loop: tree's last piece (tree, or its
 * block's last child), the for node under its marks (NULL where it is
 * not a loop nest); and whether a run of ks (statements of m) whose AST
 * is tree streams its copies (for a target that streams them): that
 * piece is the streamed kernel's launch. */
__isl_give isl_ast_node *pt_stream_loop(__isl_keep isl_ast_node *tree);
bool pt_stream_runs(const pt_kernels *ks, const pt_model *m, __isl_keep isl_ast_node *tree);

#endif
