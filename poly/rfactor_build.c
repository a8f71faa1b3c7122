/* rfactor_build.c: the expression builders rfactor.c and
 * rfactor_tuple.c share (rfactor_priv.h), typed as the checker would
 * type them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "rfactor_priv.h"

pt_expr *pt_rf_typed(pt_expr *e, int type)
{
	if (e)
		e->type = type;
	return e;
}

pt_expr *pt_rf_lit(int64_t v, pt_loc loc)
{
	return pt_rf_typed(pt_expr_int(v, loc), PT_I32);
}

pt_expr *pt_rf_var(int index, pt_loc loc)
{
	pt_expr *e = pt_rf_typed(pt_expr_new(PT_E_VAR, loc), PT_I32);
	if (e)
		e->index = index;
	return e;
}

pt_expr *pt_rf_bin(int op, pt_expr *a, pt_expr *b, int type, pt_loc loc)
{
	return pt_rf_typed(pt_expr_binary(op, a, b, loc), type);
}

/* base made distinct from s's variables names[0..n). */
char *pt_rf_fresh_var(const pt_stage *s, char **names, int n, const char *base)
{
	size_t len = strlen(base) + 24;
	char *v = malloc(len);
	if (!v)
		return NULL;
	snprintf(v, len, "%s", base);
	for (int k = 2;; k++) {
		bool taken = false;
		for (int i = 0; i < s->ndim + s->nrdim && !taken; i++)
			taken = !strcmp(s->vars[i], v);
		for (int i = 0; i < n && !taken; i++)
			taken = names[i] && !strcmp(names[i], v);
		if (!taken)
			return v;
		snprintf(v, len, "%s%d", base, k);
	}
}

pt_expr *pt_rf_combine(pt_redop op, pt_expr *a, pt_expr *b, int type, pt_loc loc)
{
	switch (op) {
	case PT_RED_SUM: return pt_rf_bin(PT_OP_ADD, a, b, type, loc);
	case PT_RED_PROD: return pt_rf_bin(PT_OP_MUL, a, b, type, loc);
	default: {
		/* and/or of 0/1 partials are their min/max */
		bool mn = op == PT_RED_MIN || op == PT_RED_AND;
		pt_expr *e = pt_rf_typed(pt_expr_new(PT_E_INTRIN, loc), type);
		if (e)
			e->op = mn ? PT_IN_MIN : PT_IN_MAX;
		return pt_expr_with_args(e, 2, a, b, NULL);
	}
	}
}

/* Frees s's reduction variables, their intervals and its updates. */
void pt_rf_drop_updates(pt_stage *s)
{
	for (int i = 0; i < s->nrdim; i++) {
		free(s->vars[s->ndim + i]);
		pt_expr_free(s->rdom[i].lo);
		pt_expr_free(s->rdom[i].hi);
	}
	free(s->rdom);
	s->rdom = NULL;
	s->nrdim = 0;
	for (int c = 0; c < s->ncases; c++) {
		pt_expr_free(s->cases[c].cond);
		pt_expr_free(s->cases[c].value);
		pt_expr_free(s->cases[c].update);
		for (int k = 0; k < s->ndim; k++)
			pt_expr_free(s->cases[c].target[k]);
		free(s->cases[c].target);
	}
	s->ncases = 0;
}
