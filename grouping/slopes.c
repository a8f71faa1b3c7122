/* slopes.c: levels, per-stage widths, tile slopes and relative overlap
 * of an aligned group (see slopes.h for the definitions). */
#include <stdlib.h>
#include <string.h>

#include "slopes.h"

static bool reads(const pt_group_align *a, int c, int p)
{
	return a->box[c * a->nstages + p].reads;
}

/* Levels: longest path from the group's inputs; live-outs at the top. */
static void levels(const pt_group_align *a, pt_group_slopes *s)
{
	int n = a->nstages;
	s->height = 0;
	for (int k = 0; k < n; k++) {
		pt_stage_ext *e = &s->st[k];
		e->level = 0;
		for (int p = 0; p < k; p++)
			if (reads(a, k, p) && s->st[p].level + 1 > e->level)
				e->level = s->st[p].level + 1;
		if (e->level > s->height)
			s->height = e->level;
		e->live_out = true;
	}
	for (int k = 0; k < n; k++)
		for (int c = k + 1; c < n; c++)
			if (reads(a, c, k))
				s->st[k].live_out = false;
	for (int k = 0; k < n; k++)
		if (s->st[k].live_out)
			s->st[k].level = s->height;
}

/* need_l / need_r of every stage, consumers before producers. */
static void widths(const pt_group_align *a, pt_group_slopes *s)
{
	int n = a->nstages;
	for (int k = n - 1; k >= 0; k--) {
		pt_stage_ext *e = &s->st[k];
		for (int d = 0; d < a->ndim; d++) {
			e->need_l[d] = e->need_r[d] = 0;
			for (int c = k + 1; c < n && !e->live_out; c++) {
				if (!reads(a, c, k))
					continue;
				const pt_dep_box *b = &a->box[c * n + k];
				int64_t l = s->st[c].need_l[d] + b->hi[d], r = s->st[c].need_r[d] - b->lo[d];
				e->need_l[d] = l > e->need_l[d] ? l : e->need_l[d];
				e->need_r[d] = r > e->need_r[d] ? r : e->need_r[d];
			}
		}
	}
}

/* The largest W(h) / (H - h) over levels h < H, as *num / *den, W(h)
 * the largest width at level h (left or right side). */
static void tight_slope(const pt_group_slopes *s, int d, bool left, int64_t *num, int64_t *den)
{
	*num = 0;
	*den = 1;
	for (int k = 0; k < s->nstages; k++) {
		const pt_stage_ext *e = &s->st[k];
		int64_t w = left ? e->need_l[d] : e->need_r[d], h = s->height - e->level;
		if (h > 0 && w * *den > *num * h) {
			*num = w;
			*den = h;
		}
	}
	int64_t a = *num, b = *den;
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	if (a > 1) {
		*num /= a;
		*den /= a;
	}
}

static int64_t ceil_div(int64_t num, int64_t den)
{
	return num <= 0 ? 0 : (num + den - 1) / den;
}

int64_t pt_group_overlap(const pt_dim_slopes *d, int height)
{
	return (int64_t)height * (d->left + d->right);
}

int pt_group_slopes_compute(const pt_group_align *a, pt_group_slopes *s)
{
	memset(s, 0, sizeof(*s));
	s->st = calloc((size_t)(a->nstages > 0 ? a->nstages : 1), sizeof(pt_stage_ext));
	if (!s->st)
		return -1;
	s->ndim = a->ndim;
	s->nstages = a->nstages;
	levels(a, s);
	widths(a, s);
	for (int d = 0; d < a->ndim; d++) {
		pt_dim_slopes *ds = &s->dim[d];
		tight_slope(s, d, true, &ds->lnum, &ds->lden);
		tight_slope(s, d, false, &ds->rnum, &ds->rden);
		ds->left = ceil_div(ds->lnum, ds->lden);
		ds->right = ceil_div(ds->rnum, ds->rden);
		ds->overlap = pt_group_overlap(ds, s->height);
		for (int k = 0; k < s->nstages; k++) {
			pt_stage_ext *e = &s->st[k];
			e->ext_l[d] = ds->left * (s->height - e->level);
			e->ext_r[d] = ds->right * (s->height - e->level);
		}
	}
	return 0;
}

void pt_group_slopes_clear(pt_group_slopes *s)
{
	if (!s)
		return;
	free(s->st);
	memset(s, 0, sizeof(*s));
}

/* ---- extents and relative overlap ---- */

typedef struct param_values {
	const int64_t *v;
	const bool *known;
} param_values;

static bool unknown_param(const pt_expr *e, const void *data)
{
	const param_values *pv = data;
	return e->kind == PT_E_PARAM && !pv->known[e->index];
}

static bool eval_bound(const pt_expr *e, const param_values *pv, int64_t *out)
{
	return !pt_expr_any(e, unknown_param, pv) && pt_expr_eval_params(e, pv->v, out);
}

/* Extent of dim k with the values pv. */
static bool extent_with(const pt_group_align *a, int k, const param_values *pv, int64_t *lo, int64_t *hi)
{
	bool any = false;
	for (int j = 0; j < a->nstages; j++) {
		const pt_stage_align *sa = &a->st[j];
		for (int i = 0; i < sa->ndim; i++) {
			int64_t l, h;
			if (sa->gdim[i] != k)
				continue;
			if (!eval_bound(sa->stage->dom[i].lo, pv, &l) || !eval_bound(sa->stage->dom[i].hi, pv, &h))
				return false;
			l = sa->scale[i] * l + sa->offset[i];
			h = sa->scale[i] * h + sa->offset[i];
			*lo = !any || l < *lo ? l : *lo;
			*hi = !any || h > *hi ? h : *hi;
			any = true;
		}
	}
	return any;
}

/* The values to use: params, or the estimates (known where given). */
static bool values(const pt_pipeline *p, const int64_t *params, int64_t **v, bool **known)
{
	size_t np = (size_t)(p->nparams > 0 ? p->nparams : 1);
	*v = calloc(np, sizeof(int64_t));
	*known = calloc(np, sizeof(bool));
	if (!*v || !*known)
		return false;
	for (int i = 0; i < p->nparams; i++) {
		(*known)[i] = params || p->params[i].has_estimate;
		(*v)[i] = params ? params[i] : p->params[i].has_estimate ? (int64_t)p->params[i].estimate : 0;
	}
	return true;
}

bool pt_group_extent(const pt_pipeline *p, const pt_group_align *a, int k, const int64_t *params,
	int64_t *lo, int64_t *hi)
{
	int64_t *v;
	bool *known;
	bool ok = values(p, params, &v, &known);
	param_values pv = {v, known};
	ok = ok && extent_with(a, k, &pv, lo, hi);
	free(v);
	free(known);
	return ok;
}

double pt_group_relative_overlap(const pt_pipeline *p, const pt_group_align *a,
	const pt_group_slopes *s, const int64_t *tile, const int64_t *params)
{
	double ratio = 1.0;
	for (int k = 0; k < a->ndim; k++) {
		int64_t lo, hi;
		if (tile[k] <= 0)
			continue;
		if (pt_group_extent(p, a, k, params, &lo, &hi) && hi - lo + 1 <= tile[k])
			continue;
		ratio *= (double)(tile[k] + s->dim[k].overlap) / (double)tile[k];
	}
	return ratio - 1.0;
}
