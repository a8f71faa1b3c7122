/* dist_eval.c: the distribute pass's boxes at given params and parts,
 * and the bytes each rank moves (pt_dist_predict), computed as the
 * runtime moves them so that its counts equal these. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/point.h>
#include <isl/val.h>

#include "dist_priv.h"
#include "pt_mpi_grid.h"

int pt_dist_slot(const char *name, int *k)
{
	static const char *const f[PT_DIST_SLOTS] = { "mpi.lo.%d%c", "mpi.hi.%d%c", "mpi.wlo.%d%c", "mpi.whi.%d%c",
		"mpi.t.%d%c", "mpi.lo2.%d%c", "mpi.hi2.%d%c", "mpi.wlo2.%d%c", "mpi.whi2.%d%c" };
	char end;
	for (int i = 0; i < PT_DIST_SLOTS; i++)
		if (sscanf(name, f[i], k, &end) == 1)
			return i;
	return -1;
}

const pt_dist_box *pt_dist_own(const pt_dist_kernel *dk, const pt_stage *s)
{
	for (int i = 0; i < dk->nown; i++)
		if (dk->own[i].stage == s)
			return &dk->own[i];
	return NULL;
}

bool pt_dist_eval(__isl_keep isl_pw_aff *pa, const pt_pipeline *p, const int64_t *ip, const int64_t *parts,
	int64_t *v)
{
	isl_ctx *ctx = isl_pw_aff_get_ctx(pa);
	isl_space *sp = isl_space_params(isl_pw_aff_get_domain_space(pa));
	isl_size np = isl_space_dim(sp, isl_dim_param);
	isl_point *pt = isl_point_zero(isl_space_copy(sp));
	for (int i = 0; i < np; i++) {
		const char *name = isl_space_get_dim_name(sp, isl_dim_param, (unsigned)i);
		int q = pt_pipeline_find_param(p, name), k, slot = parts ? pt_dist_slot(name, &k) : -1;
		int64_t x = slot >= 0 ? parts[PT_DIST_SLOTS * k + slot] : q >= 0 ? ip[q] : 0;
		pt = isl_point_set_coordinate_val(pt, isl_dim_param, i, isl_val_int_from_si(ctx, x));
	}
	isl_space_free(sp);
	isl_val *r = isl_pw_aff_eval(isl_pw_aff_copy(pa), pt);
	bool ok = r && isl_val_is_int(r);
	if (ok)
		*v = isl_val_get_num_si(r);
	isl_val_free(r);
	return ok;
}

void pt_dist_values(const pt_dist_kernel *dk, const pt_pipeline *p, const int64_t *ip, const int64_t *parts,
	int64_t *vlo, int64_t *vhi)
{
	*vlo = 1;
	*vhi = 0;
	bool some = false;
	for (int i = 0; i < dk->nv; i++) {
		int64_t a, b;
		if (!pt_dist_eval(dk->vmin[i], p, ip, parts, &a) || !pt_dist_eval(dk->vmax[i], p, ip, parts, &b))
			continue;
		*vlo = some && *vlo < a ? *vlo : a;
		*vhi = some && *vhi > b ? *vhi : b;
		some = true;
	}
}

void pt_dist_widen(int64_t lo, int64_t hi, int64_t vlo, int64_t vhi, int64_t *wlo, int64_t *whi)
{
	*wlo = lo;
	*whi = hi;
	if (vlo > vhi)
		return;
	*wlo = lo <= hi && lo < vlo ? lo : vlo;
	*whi = lo <= hi && hi > vhi ? hi : vhi;
}

int64_t pt_dist_steps_left(const pt_dist_kernel *dk, int64_t t, int64_t tlast)
{
	return dk->depth > 0 ? (tlast - t) % dk->depth : tlast - t;
}

bool pt_dist_step_exchanged(const pt_dist_kernel *dk, int64_t t, int64_t tfirst, int64_t tlast)
{
	return dk->depth > 0 && t > tfirst && pt_dist_steps_left(dk, t, tlast) == dk->depth - 1;
}

int64_t pt_dist_steps_most(const pt_dist_kernel *dk, int64_t tfirst, int64_t tlast)
{
	int64_t all = tlast > tfirst ? tlast - tfirst : 0;
	return dk->depth > 0 && dk->depth - 1 < all ? dk->depth - 1 : all;
}

void pt_dist_step_range(const pt_dist_kernel *dk, int64_t *q, int64_t m)
{
	/* a rank that owns nothing runs nothing */
	bool some = q[0] <= q[1] && (dk->coord2 < 0 || q[5] <= q[6]);
	bool grow = some && dk->grow[0] >= 0 && dk->grow[1] >= 0;
	q[2] = grow ? q[0] - m * dk->grow[0] : q[0];
	q[3] = grow ? q[1] + m * dk->grow[1] : q[1];
	grow = some && dk->coord2 >= 0 && dk->grow2[0] >= 0 && dk->grow2[1] >= 0;
	q[7] = grow ? q[5] - m * dk->grow2[0] : q[5];
	q[8] = grow ? q[6] + m * dk->grow2[1] : q[6];
}

/* Stepped kernel dk's steps at ip (false where they cannot be evaluated). */
static bool step_span(const pt_dist_kernel *dk, const pt_pipeline *p, const int64_t *ip, int64_t *first, int64_t *last)
{
	return dk->split && dk->stepped && pt_dist_eval(dk->tfirst, p, ip, NULL, first) &&
		pt_dist_eval(dk->tlast, p, ip, NULL, last);
}

/* Values lo .. hi within first .. last. */
static double clipped(int64_t lo, int64_t hi, int64_t first, int64_t last)
{
	lo = lo > first ? lo : first;
	hi = hi < last ? hi : last;
	return hi >= lo ? (double)(hi - lo + 1) : 0;
}

bool pt_dist_step_values(const pt_dist *d, int k, const pt_pipeline *p, const int64_t *ip, const int64_t *q,
	double *run, double *own)
{
	const pt_dist_kernel *dk = &d->k[k];
	int64_t t0, t1, first, last, first2 = 0, last2 = 0;
	*run = *own = 0;
	if (!step_span(dk, p, ip, &t0, &t1) || t1 < t0 || !pt_dist_eval(dk->first, p, ip, NULL, &first) ||
		!pt_dist_eval(dk->last, p, ip, NULL, &last))
		return false;
	bool grid = dk->coord2 >= 0;
	if (grid && (!pt_dist_eval(dk->first2, p, ip, NULL, &first2) || !pt_dist_eval(dk->last2, p, ip, NULL, &last2)))
		return false;
	int64_t s[PT_DIST_SLOTS];
	memcpy(s, q + PT_DIST_SLOTS * k, sizeof(s));
	/* values along coord (times coord2's on a grid), a step's mean */
	*own = clipped(s[0], s[1], first, last) * (grid ? clipped(s[5], s[6], first2, last2) : 1);
	for (int64_t t = t0; t <= t1; t++) {
		pt_dist_step_range(dk, s, pt_dist_steps_left(dk, t, t1));
		*run += clipped(s[2], s[3], first, last) * (grid ? clipped(s[7], s[8], first2, last2) : 1);
	}
	*run /= (double)(t1 - t0 + 1);
	return true;
}

/* Part i of n of first .. last into lo, hi, as pt_mpi_slice_of gives it
 * (balanced contiguous ranges; lo > hi: none). */
static void slice_of(int64_t first, int64_t last, int64_t i, int64_t n, int64_t *lo, int64_t *hi)
{
	int64_t v = last >= first ? last - first + 1 : 0;
	*lo = first + v * i / n;
	*hi = first + v * (i + 1) / n - 1;
}

void pt_dist_parts(const pt_dist *d, const pt_pipeline *p, const int64_t *ip, int r, int R, int64_t *parts)
{
	int32_t P, Q;
	pt_mpi_grid_shape(R, &P, &Q);
	for (int k = 0; k < d->n; k++) {
		const pt_dist_kernel *dk = &d->k[k];
		int64_t first = 0, last = -1, *q = parts + PT_DIST_SLOTS * k;
		if (!dk->split || !pt_dist_eval(dk->first, p, ip, NULL, &first) ||
			!pt_dist_eval(dk->last, p, ip, NULL, &last))
			last = first - 1;
		/* as pt_mpi_slice_of and pt_mpi_slice2_of: slabs of R, or the
		 * rank's row of P and column of Q */
		bool grid = dk->split && dk->coord2 >= 0;
		slice_of(first, last, grid ? r / Q : r, grid ? P : R, &q[0], &q[1]);
		q[2] = q[0];
		q[3] = q[1];
		q[4] = 0;
		q[5] = q[6] = q[7] = q[8] = 0;
		if (grid) {
			int64_t f2 = 0, l2 = -1;
			if (!pt_dist_eval(dk->first2, p, ip, NULL, &f2) || !pt_dist_eval(dk->last2, p, ip, NULL, &l2))
				l2 = f2 - 1;
			slice_of(f2, l2, r % Q, Q, &q[5], &q[6]);
			q[7] = q[5];
			q[8] = q[6];
		}
	}
	/* a stepped kernel's range: its widest, at the start of a block of
	 * steps (the boxes over all its steps hold for every step) */
	for (int k = 0; k < d->n; k++) {
		const pt_dist_kernel *dk = &d->k[k];
		int64_t t0, t1, *q = parts + PT_DIST_SLOTS * k;
		if (step_span(dk, p, ip, &t0, &t1))
			pt_dist_step_range(dk, q, pt_dist_steps_most(dk, t0, t1));
	}
	/* a widened kernel's range follows from its readers', later */
	for (int k = d->n - 1; k >= 0; k--) {
		const pt_dist_kernel *dk = &d->k[k];
		int64_t vlo, vhi, *q = parts + PT_DIST_SLOTS * k;
		if (!dk->split || !dk->widened)
			continue;
		pt_dist_values(dk, p, ip, parts, &vlo, &vhi);
		pt_dist_widen(q[0], q[1], vlo, vhi, &q[2], &q[3]);
	}
}

void pt_dist_box_at(const pt_dist_box *b, const pt_pipeline *p, const int64_t *ip, const int64_t *parts,
	int64_t *out)
{
	for (int d = 0; d < b->ndim; d++)
		if (!pt_dist_eval(b->lo[d], p, ip, parts, &out[2 * d]) ||
			!pt_dist_eval(b->hi[d], p, ip, parts, &out[2 * d + 1])) {
			out[0] = 1;
			out[1] = 0;
			return;
		}
}

int64_t pt_dist_meet(int ndim, const int64_t *a, const int64_t *b)
{
	int64_t n = 1;
	for (int d = 0; d < ndim; d++) {
		int64_t lo = a[2 * d] > b[2 * d] ? a[2 * d] : b[2 * d];
		int64_t hi = a[2 * d + 1] < b[2 * d + 1] ? a[2 * d + 1] : b[2 * d + 1];
		if (lo > hi)
			return 0;
		n *= hi - lo + 1;
	}
	return n;
}

/* An own box is empty where the part is (lo > hi): the generated code
 * passes it so (pt_mpi_exchange, pt_mpi_gather). */
void pt_dist_part_box(const pt_dist_box *b, const pt_pipeline *p, const int64_t *ip, const int64_t *parts, int k,
	int64_t *out)
{
	const int64_t *q = parts + PT_DIST_SLOTS * k;
	if (q[0] > q[1] || q[5] > q[6]) {
		out[0] = 1;
		out[1] = 0;
		return;
	}
	pt_dist_box_at(b, p, ip, parts, out);
}

void pt_dist_exchanges(const pt_dist *d, const pt_model *m, const pt_kernels *ks, const int64_t *ip, int R,
	int64_t *parts, size_t stride, int64_t *sent, int64_t *received, int64_t *msgs)
{
	const pt_pipeline *p = m->p;
	int64_t (*own)[2 * PT_MAX_DIMS] = calloc((size_t)R, sizeof(*own));
	int64_t (*need)[2 * PT_MAX_DIMS] = calloc((size_t)R, sizeof(*need));
#define PARTS(r) (parts + (size_t)(r) * stride)
	for (int k = 0; k < d->n && own && need; k++) {
		const pt_dist_kernel *dk = &d->k[k];
		for (int i = 0; i < dk->nneed; i++) {
			const pt_dist_box *nb = &dk->need[i];
			int pk = ks->of_stage[nb->stage->id];
			const pt_dist_box *ob = pt_dist_own(&d->k[pk], nb->stage);
			if (!d->k[pk].split || d->k[pk].widened || !ob)
				continue;
			for (int r = 0; r < R; r++) {
				pt_dist_box_at(nb, p, ip, PARTS(r), need[r]);
				pt_dist_part_box(ob, p, ip, PARTS(r), pk, own[r]);
			}
			int64_t es = (int64_t)pt_type_size((pt_type)nb->stage->type);
			for (int r = 0; r < R; r++)
				for (int q = 0; q < R; q++)
					if (q != r) {
						int64_t b = pt_dist_meet(nb->ndim, own[r], need[q]) * es;
						sent[r] += b;
						received[q] += b;
						if (msgs)
							msgs[q] += b > 0;
					}
		}
	}
#undef PARTS
	/* between the steps of stepped kernels */
	for (int k = 0; k < d->n; k++)
		if (d->k[k].split && d->k[k].stepped)
			pt_dist_step_bytes(d, k, p, ip, R, parts, stride, received, sent, msgs);
	free(own);
	free(need);
}

void pt_dist_gathered(const pt_dist *d, const pt_model *m, const pt_kernels *ks, const int64_t *ip, int R,
	const int64_t *parts, size_t stride, int64_t *sent, int64_t *received)
{
	const pt_pipeline *p = m->p;
	int64_t own[2 * PT_MAX_DIMS];
	for (int i = 0; i < p->nstages; i++) {
		const pt_stage *s = p->stages[i];
		int pk = ks->of_stage[s->id];
		const pt_dist_box *ob = s->is_output ? pt_dist_own(&d->k[pk], s) : NULL;
		for (int r = 1; ob && d->k[pk].split && r < R; r++) {
			pt_dist_part_box(ob, p, ip, parts + (size_t)r * stride, pk, own);
			int64_t b = pt_dist_meet(ob->ndim, own, own) * (int64_t)pt_type_size((pt_type)s->type);
			sent[r] += b;
			received[0] += b;
		}
	}
}

bool pt_dist_predict(const pt_dist *d, const pt_model *m, const pt_kernels *ks, const int64_t *ip, int R,
	int64_t *sent, int64_t *received)
{
	memset(sent, 0, sizeof(*sent) * (size_t)R);
	memset(received, 0, sizeof(*received) * (size_t)R);
	size_t stride = (size_t)(PT_DIST_SLOTS * d->n + 1);
	int64_t *parts = calloc((size_t)R * stride, sizeof(int64_t));
	if (!parts)
		return false;
	for (int r = 0; r < R; r++)
		pt_dist_parts(d, m->p, ip, r, R, parts + (size_t)r * stride);
	pt_dist_exchanges(d, m, ks, ip, R, parts, stride, sent, received, NULL);
	/* the outputs gathered on rank 0 */
	pt_dist_gathered(d, m, ks, ip, R, parts, stride, sent, received);
	free(parts);
	return true;
}

/* Over the steps of a stepped kernel (distribute.h): before each step
 * that starts a block of its steps, step_need (over its part widened at
 * that step) against the other ranks' step_own, as pt_mpi_step
 * exchanges them. */
void pt_dist_step_bytes(const pt_dist *d, int k, const pt_pipeline *p, const int64_t *ip, int R, int64_t *parts,
	size_t stride, int64_t *received, int64_t *sent, int64_t *msgs)
{
	const pt_dist_kernel *dk = &d->k[k];
	int64_t first = 0, last = -1;
	if (!step_span(dk, p, ip, &first, &last))
		return;
	int64_t (*own)[2 * PT_MAX_DIMS] = calloc((size_t)R, sizeof(*own));
	int64_t (*need)[2 * PT_MAX_DIMS] = calloc((size_t)R, sizeof(*need));
	int64_t (*kept)[PT_DIST_SLOTS] = calloc((size_t)R, sizeof(*kept));
	int64_t es = (int64_t)pt_type_size((pt_type)dk->step_need.stage->type);
	for (int r = 0; r < R && kept; r++)
		memcpy(kept[r], parts + (size_t)r * stride + PT_DIST_SLOTS * k, sizeof(kept[r]));
	for (int64_t t = first; t <= last && own && need && kept; t++) {
		if (!pt_dist_step_exchanged(dk, t, first, last))
			continue;
		for (int r = 0; r < R; r++) {
			int64_t *row = parts + (size_t)r * stride, *q = row + PT_DIST_SLOTS * k;
			q[4] = t;
			pt_dist_step_range(dk, q, pt_dist_steps_left(dk, t, last));
			pt_dist_box_at(&dk->step_need, p, ip, row, need[r]);
			pt_dist_part_box(&dk->step_own, p, ip, row, k, own[r]);
		}
		for (int r = 0; r < R; r++)
			for (int q = 0; q < R; q++) {
				int64_t b = q == r ? 0 : pt_dist_meet(dk->step_need.ndim, own[q], need[r]) * es;
				if (received)
					received[r] += b;
				if (sent)
					sent[q] += b;
				if (msgs)
					msgs[r] += b > 0;
			}
	}
	for (int r = 0; r < R && kept; r++)
		memcpy(parts + (size_t)r * stride + PT_DIST_SLOTS * k, kept[r], sizeof(kept[r]));
	free(own);
	free(need);
	free(kept);
}
