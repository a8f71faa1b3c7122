/* exact_index.c: index expressions as isl's bounds check and compiled
 * code (cg_index) compute them: an affine index without calls exactly in
 * i64, not in its type with wrapping (so `I(x * 100000 / 100000)` reads
 * I(x) everywhere).  The affine forms are found once per expression, in
 * a table keyed by the node. */
#include <stdint.h>
#include <stdlib.h>

#include "alloc.h"
#include "exact_index.h"

typedef struct slot {
	const pt_expr *e;
	bool affine;
	pt_affine a;
} slot;

struct pt_index_cache {
	slot *t;
	size_t cap, n;
};

pt_index_cache *pt_index_cache_new(void)
{
	return pt_mem_calloc(1, sizeof(pt_index_cache));
}

void pt_index_cache_free(pt_index_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->cap; i++)
		if (c->t[i].e)
			pt_affine_clear(&c->t[i].a);
	free(c->t);
	free(c);
}

static size_t hash(const pt_expr *e, size_t cap)
{
	return (size_t)(((uintptr_t)e >> 4) * 2654435761u) & (cap - 1);
}

static slot *find(pt_index_cache *c, const pt_expr *e)
{
	size_t i = hash(e, c->cap);
	while (c->t[i].e && c->t[i].e != e)
		i = (i + 1) & (c->cap - 1);
	return &c->t[i];
}

/* False, c unchanged, when out of memory. */
static bool grow(pt_index_cache *c)
{
	pt_index_cache old = *c;
	c->cap = old.cap ? old.cap * 2 : 64;
	c->t = pt_mem_calloc(c->cap, sizeof(slot));
	if (!c->t) {
		*c = old;
		return false;
	}
	for (size_t i = 0; i < old.cap; i++)
		if (old.t[i].e)
			*find(c, old.t[i].e) = old.t[i];
	free(old.t);
	return true;
}

bool pt_index_exact(pt_index_cache *c, const pt_expr *e, int nparams, int nvars,
	const int64_t *params, const int64_t *vars, int64_t *out)
{
	/* out of memory: not computed here (the caller's entry point fails) */
	if (2 * (c->n + 1) > c->cap && !grow(c))
		return false;
	slot *s = find(c, e);
	if (!s->e) {
		s->e = e;
		s->affine = !pt_expr_has_call(e) && pt_expr_affine(e, nparams, nvars, &s->a);
		c->n++;
	}
	if (!s->affine)
		return false;
	const pt_affine *a = &s->a;
	int64_t r = a->cst, t;
	bool ovf = false;
	for (int q = 0; q < a->nparams; q++)
		if (a->pcoef[q])
			ovf |= __builtin_mul_overflow(a->pcoef[q], params[q], &t) || __builtin_add_overflow(r, t, &r);
	for (int j = 0; j < a->nvars; j++)
		if (a->vcoef[j])
			ovf |= __builtin_mul_overflow(a->vcoef[j], vars[j], &t) || __builtin_add_overflow(r, t, &r);
	if (ovf)
		return false;   /* far outside anything: the typed value will fail the read */
	/* floor division by div > 0 */
	*out = r >= 0 || a->div == 1 ? r / a->div : -((-(r + 1)) / a->div) - 1;
	return true;
}
