/* exact_index.h: affine indices evaluated exactly (exact_index.c). */
#ifndef PT_FRONTEND_EXACT_INDEX_H
#define PT_FRONTEND_EXACT_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "ir.h"

typedef struct pt_index_cache pt_index_cache;
pt_index_cache *pt_index_cache_new(void);
void pt_index_cache_free(pt_index_cache *c);
/* If e is affine in params and vars without calls, its exact value (i64,
 * floor division) into *out and true; else false (evaluate e as typed). */
bool pt_index_exact(pt_index_cache *c, const pt_expr *e, int nparams, int nvars,
	const int64_t *params, const int64_t *vars, int64_t *out);

#endif
