/* typecheck.h: resolution, typing and the static rules of the language. */
#ifndef PT_TYPECHECK_H
#define PT_TYPECHECK_H

#include "ir.h"

/* Resolves names, types every expression, checks domains, calls,
 * self-references and data-dependent indices, and sorts the stages
 * topologically.  Returns false after reporting into d. */
bool pt_check_pipeline(pt_diag *d, pt_pipeline *p);

/* The usual arithmetic conversion of two numeric types. */
int pt_promote(int a, int b);

#endif
