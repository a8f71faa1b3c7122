/* dist_project.c: the model's projection of one run on R ranks
 * (pt_dist_project): the points each rank computes (its parts, widened
 * where recomputed or between exchanges of steps, and replicated kernels whole), the bytes and
 * messages it receives between kernels and steps, and from them a
 * predicted time and efficiency, for `explain --backend mpi --ranks R`
 * at any params (docs/distributed.md: 16 to 512 ranks). */
#include <stdlib.h>
#include <string.h>

#include "dist_priv.h"

/* Points kernel k runs on a rank with parts row q: its (widened) range
 * of the split coordinate (on a grid, times its range of the second)
 * times the kernel's points per value (pv[k]; per pair on a grid), or
 * all of them (points[k]) when replicated. */
static double rank_points(const pt_dist *d, int k, const pt_pipeline *p, const int64_t *ip, const double *points,
	const double *pv, const int64_t *q)
{
	if (!d->k[k].split)
		return points[k];
	const int64_t *s = q + PT_DIST_SLOTS * k;
	double n = s[3] >= s[2] ? (double)(s[3] - s[2] + 1) : 0, run, own;
	/* a stepped kernel: its ranges' mean over its steps (both
	 * coordinates on a grid) */
	if (d->k[k].stepped && pt_dist_step_values(d, k, p, ip, q, &run, &own))
		return pv[k] * run;
	if (d->k[k].coord2 >= 0)
		n *= s[6] >= s[5] ? (double)(s[6] - s[5] + 1) : 0;
	return pv[k] * n;
}

/* Values of kernel k's split coordinates at ip (their product on a
 * grid); 0 when they cannot be evaluated. */
static double values(const pt_dist_kernel *dk, const pt_model *m, const int64_t *ip)
{
	int64_t a = 0, b = -1, a2 = 0, b2 = 0;
	if (!pt_dist_eval(dk->first, m->p, ip, NULL, &a) || !pt_dist_eval(dk->last, m->p, ip, NULL, &b))
		return 0;
	if (dk->coord2 >= 0 && (!pt_dist_eval(dk->first2, m->p, ip, NULL, &a2) ||
		!pt_dist_eval(dk->last2, m->p, ip, NULL, &b2)))
		return 0;
	return b >= a && b2 >= a2 ? (double)(b - a + 1) * (double)(b2 - a2 + 1) : 0;
}

bool pt_dist_project(const pt_dist *d, const pt_model *m, const pt_kernels *ks, const int64_t *ip, int R,
	const pt_dist_costs *c, pt_dist_projection *pr)
{
	memset(pr, 0, sizeof(*pr));
	size_t stride = (size_t)(PT_DIST_SLOTS * d->n + 1);
	int64_t *parts = calloc((size_t)R * stride, sizeof(int64_t));
	int64_t *sent = calloc((size_t)R, sizeof(int64_t)), *recv = calloc((size_t)R, sizeof(int64_t));
	int64_t *msgs = calloc((size_t)R, sizeof(int64_t));
	bool ok = parts && sent && recv && msgs && R > 0;
	for (int r = 0; ok && r < R; r++)
		pt_dist_parts(d, m->p, ip, r, R, parts + (size_t)r * stride);
	if (ok)
		pt_dist_exchanges(d, m, ks, ip, R, parts, stride, sent, recv, msgs);
	/* per kernel, its points, points per value of its split coordinate
	 * and seconds per point; work: every kernel's points once */
	double *points = calloc((size_t)d->n + 1, sizeof(double)), *pv = calloc((size_t)d->n + 1, sizeof(double));
	double *cost = calloc((size_t)d->n + 1, sizeof(double)), work = 0;
	ok = ok && points && pv && cost;
	for (int k = 0; ok && k < d->n; k++) {
		points[k] = pt_dist_kernel_points(&ks->k[k], ip);
		pr->points += points[k];
		double nv = d->k[k].split ? values(&d->k[k], m, ip) : 0;
		pv[k] = nv > 0 ? points[k] / nv : 0;
		cost[k] = pt_dist_point_cost(&ks->k[k], c);
		work += points[k] * cost[k];
	}
	for (int r = 0; ok && r < R; r++) {
		double pts = 0, tc = 0;
		for (int k = 0; k < d->n; k++) {
			double n = rank_points(d, k, m->p, ip, points, pv, parts + (size_t)r * stride);
			pts += n;
			tc += n * cost[k];
		}
		double tx = (double)msgs[r] * c->latency + (double)recv[r] / c->bandwidth;
		double t = tc + tx;
		if (pts > pr->most_points)
			pr->most_points = pts;
		if (recv[r] > pr->most_received) {
			pr->most_received = recv[r];
			pr->messages = msgs[r];
		}
		if (tx > pr->exchange_s)
			pr->exchange_s = tx;
		if (t > pr->time_s)
			pr->time_s = t;
	}
	if (ok) {
		memset(sent, 0, sizeof(int64_t) * (size_t)R);
		memset(recv, 0, sizeof(int64_t) * (size_t)R);
		pt_dist_gathered(d, m, ks, ip, R, parts, stride, sent, recv);
		pr->gathered = recv[0];
		pr->efficiency = pr->time_s > 0 ? work / R / pr->time_s : 1;
	}
	free(points);
	free(pv);
	free(cost);
	free(parts);
	free(sent);
	free(recv);
	free(msgs);
	return ok;
}
