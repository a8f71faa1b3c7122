/* print.h: the IR of a pipeline as text close to the .pipe syntax, for
 * the dumps of the passes that produce or rewrite it. */
#ifndef PT_FRONTEND_PRINT_H
#define PT_FRONTEND_PRINT_H

#include "ir.h"

/* Params, images and stages in their current order (topological once
 * checked), each case with its condition; types as the checker inferred
 * them.  The caller frees. */
char *pt_pipeline_print(const pt_pipeline *p);

#endif
