/* gen_pipe.h: random valid pipelines from a seed (tests/fuzz/README.md,
 * "Random pipelines").  The text depends only on the seed. */
#ifndef PT_TEST_GEN_PIPE_H
#define PT_TEST_GEN_PIPE_H

#include <stdint.h>

#define GEN_MAX_DIMS 3

/* Kinds of stages the generator makes, for coverage counts. */
enum {
	GEN_POINT, GEN_STENCIL, GEN_DOWN, GEN_UP, GEN_LUT, GEN_PIECE,
	GEN_WINDOW, GEN_DIMRED, GEN_HIST, GEN_TABLE, GEN_RECUR, GEN_TUPLE, GEN_STEPS, GEN_NKINDS
};
extern const char *const gen_kind_name[GEN_NKINDS];

typedef struct gen_pipe {
	char *text;                      /* the .pipe source (malloc'd) */
	int ndims;                       /* int params, one per dimension */
	const char *param[GEN_MAX_DIMS]; /* their names: R, C, K */
	int estimate[GEN_MAX_DIMS];
	int min[GEN_MAX_DIMS];           /* smallest admissible value of each */
	int nstages, noutputs;
	int kinds[GEN_NKINDS];           /* stages made of each kind */
	int clamped, exact;              /* reads clamped at borders / affine */
} gen_pipe;

/* Fills g with the pipeline of seed; gen_pipe_free releases it. */
void gen_pipe_make(uint64_t seed, gen_pipe *g);
void gen_pipe_free(gen_pipe *g);

#endif
