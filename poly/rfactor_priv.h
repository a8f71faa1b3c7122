/* rfactor_priv.h: what rfactor.c shares with rfactor_tuple.c (tuple
 * reductions factored in the same form).  Private to the two. */
#ifndef PT_POLY_RFACTOR_PRIV_H
#define PT_POLY_RFACTOR_PRIV_H

#include "assoc.h"
#include "rfactor.h"

/* A tuple reduction's operator on two tuples, op_j(A, B) for each
 * component j (VAR operands PT_TUP_A(k), PT_TUP_B(k) of type k's), and
 * its identity; what explain says of it. */
typedef struct pt_rf_tuple {
	pt_expr *op[PT_MAX_TUPLE];
	/* argmin/argmax: whether B comes first, stored once in slot n and
	 * read by each op_j = select(flag, B_j, A_j) as a PT_TUP_FLAG operand */
	pt_expr *flag;
	pt_val identity[PT_MAX_TUPLE];  /* of each component's type */
	char how[200];
	char why[400];
	int parts;      /* of the factored form (set by rfactor.c) */
} pt_rf_tuple;

/* Why tuple reduction s cannot be factored, or NULL with *tp set (its
 * operators then owned by *tp: pt_rf_tuple_clear). */
const char *pt_rf_tuple_why(const pt_stage *s, bool reassociate, pt_rf_tuple *tp);
void pt_rf_tuple_clear(pt_rf_tuple *tp);
/* Makes t (s's partial, as rfactor.c's partial made it, already in the
 * pipeline) a tuple reduction that reads its own slots and starts at the
 * identity, and s the tuple reduction that folds t's parts into each
 * point with tp's operator; false when out of memory. */
bool pt_rf_tuple_factor(pt_stage *s, pt_stage *t, const pt_rf_tuple *tp);

/* rfactor_build.c's builders, typed as the checker would type them. */
pt_expr *pt_rf_typed(pt_expr *e, int type);
pt_expr *pt_rf_lit(int64_t v, pt_loc loc);
pt_expr *pt_rf_var(int index, pt_loc loc);
pt_expr *pt_rf_bin(int op, pt_expr *a, pt_expr *b, int type, pt_loc loc);
/* a op b for a built-in operator (min and max as intrinsics). */
pt_expr *pt_rf_combine(pt_redop op, pt_expr *a, pt_expr *b, int type, pt_loc loc);
/* base made distinct from s's variables and names[0..n). */
char *pt_rf_fresh_var(const pt_stage *s, char **names, int n, const char *base);
/* Frees s's reduction variables, their intervals and its updates. */
void pt_rf_drop_updates(pt_stage *s);

#endif
