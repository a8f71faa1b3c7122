/* candidates.c: the configurations a tuner tries and in which order, and
 * the grouping keys that tell two of them apart. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tune.h"

typedef struct ranked {
	pt_tune_cand c;
	double dist;
	int order;
} ranked;

static int by_distance(const void *a, const void *b)
{
	const ranked *x = a, *y = b;
	if (x->dist != y->dist)
		return x->dist < y->dist ? -1 : 1;
	return x->order - y->order;
}

/* Good configurations tend to lie near the default: tiles an octave or
 * two off, a threshold a little higher or lower. */
static double distance(const pt_tune_space *s, const pt_tune_cand *c)
{
	double d = fabs(c->overlap - s->def_overlap) * 10;
	for (int k = 0; k < c->ntile; k++)
		d += fabs(log2((double)c->tile[k] / (double)s->def_tile[k]));
	return d;
}

pt_tune_cand *pt_tune_candidates(const pt_tune_space *s, int *n)
{
	double combos = pow((double)s->ntiles, (double)s->ntiled);
	if (combos * s->noverlaps > PT_TUNE_MAX_CANDIDATES || s->ntiled > PT_MAX_TILE_DIMS)
		return NULL;
	int ncombo = (int)combos, m = ncombo * s->noverlaps;
	ranked *r = calloc((size_t)m + 1, sizeof(*r));
	for (int o = 0; o < s->noverlaps; o++)
		for (int t = 0; t < ncombo; t++) {
			ranked *x = &r[o * ncombo + t];
			x->c.ntile = s->ntiled;
			/* t in base ntiles, the innermost dim's digit last */
			for (int k = s->ntiled - 1, v = t; k >= 0; k--, v /= s->ntiles)
				x->c.tile[k] = s->tiles[v % s->ntiles];
			x->c.overlap = s->overlaps[o];
			x->c.same_as = -1;
			x->order = o * ncombo + t;
			x->dist = distance(s, &x->c);
		}
	qsort(r, (size_t)m, sizeof(*r), by_distance);
	pt_tune_cand *c = calloc((size_t)m + 1, sizeof(*c));
	c[0].same_as = -1;      /* the default: ntile 0, overlap 0 */
	for (int i = 0; i < m; i++)
		c[i + 1] = r[i].c;
	free(r);
	*n = m + 1;
	return c;
}

int pt_tune_keys_lookup(pt_tune_keys *k, const char *key, int cand)
{
	for (int i = 0; i < k->n; i++)
		if (!strcmp(k->key[i], key))
			return k->cand[i];
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 16;
		k->key = realloc(k->key, sizeof(*k->key) * (size_t)k->cap);
		k->cand = realloc(k->cand, sizeof(*k->cand) * (size_t)k->cap);
	}
	k->key[k->n] = strdup(key);
	k->cand[k->n++] = cand;
	return -1;
}

void pt_tune_keys_clear(pt_tune_keys *k)
{
	for (int i = 0; i < k->n; i++)
		free(k->key[i]);
	free(k->key);
	free(k->cand);
	memset(k, 0, sizeof(*k));
}
