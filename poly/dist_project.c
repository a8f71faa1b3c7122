/* dist_project.c: the model's projection of one run on R ranks
 * (pt_dist_project): the points each rank computes (its parts, widened
 * where recomputed, and replicated kernels whole), the bytes and
 * messages it receives between kernels and steps, and from them a
 * predicted time and efficiency, for `explain --backend mpi --ranks R`
 * at any params (docs/distributed.md: 16 to 512 ranks). */
#include <stdlib.h>
#include <string.h>

#include "dist_priv.h"

/* Points kernel k runs on a rank with parts row q: its (widened) range
 * of the split coordinate times the kernel's points per value, or all
 * of them when replicated. */
static double rank_points(const pt_dist *d, const pt_model *m, const pt_kernels *ks, int k, const int64_t *ip,
	const int64_t *q)
{
	const pt_dist_kernel *dk = &d->k[k];
	double points = pt_dist_kernel_points(&ks->k[k], ip);
	int64_t first = 0, last = -1;
	if (!dk->split)
		return points;
	if (!pt_dist_eval(dk->first, m->p, ip, NULL, &first) || !pt_dist_eval(dk->last, m->p, ip, NULL, &last) ||
		last < first)
		return 0;
	int64_t lo = q[PT_DIST_SLOTS * k + 2], hi = q[PT_DIST_SLOTS * k + 3];
	return hi >= lo ? points * (double)(hi - lo + 1) / (double)(last - first + 1) : 0;
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
	for (int k = 0; ok && k < d->n; k++)
		pr->points += pt_dist_kernel_points(&ks->k[k], ip);
	for (int r = 0; ok && r < R; r++) {
		double pts = 0;
		for (int k = 0; k < d->n; k++)
			pts += rank_points(d, m, ks, k, ip, parts + (size_t)r * stride);
		double tx = (double)msgs[r] * c->latency + (double)recv[r] / c->bandwidth;
		double t = pts * c->point_time + tx;
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
		pr->efficiency = pr->time_s > 0 ? pr->points * c->point_time / R / pr->time_s : 1;
	}
	free(parts);
	free(sent);
	free(recv);
	free(msgs);
	return ok;
}
