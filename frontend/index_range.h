/* index_range.h: the values a data-dependent index may take, as people
 * read them ("-4 .. R - 5").
 *
 * Whether such an index stays inside its callee is decided with isl by
 * the bounds check (poly/bounds.c); this is the range its error shows:
 * the rules of range.h over bounds that are a constant plus int params
 * (an unbounded side: -inf or +inf), compared by what every admissible
 * param value satisfies (docs/language.md, section 11). */
#ifndef PT_INDEX_RANGE_H
#define PT_INDEX_RANGE_H

#include "diag.h"
#include "ir.h"

/* Appends "LO .. HI" for the integer expression e evaluated in stage s. */
void pt_index_range_print(pt_strbuf *sb, const pt_pipeline *p, const pt_stage *s, const pt_expr *e);

#endif
