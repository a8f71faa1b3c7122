/* print.h: the IR of a pipeline as text close to the .pipe syntax, for
 * the dumps of the passes that produce or rewrite it. */
#ifndef PT_FRONTEND_PRINT_H
#define PT_FRONTEND_PRINT_H

#include "ir.h"

/* Params, images and stages in their current order (topological once
 * checked), each case with its condition; types as the checker inferred
 * them.  The caller frees. */
char *pt_pipeline_print(const pt_pipeline *p);
/* lo .. hi [step k], the bounds printed as in stage s (NULL: params only). */
void pt_interval_print(const pt_interval *iv, const pt_stage *s, const pt_pipeline *p, pt_strbuf *b);

#endif
