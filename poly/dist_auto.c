/* dist_auto.c: the auto strategy's plan (pt_dist_build).  Its choices
 * per kernel (dist_model.c) are greedy, from the last kernel back: a
 * kernel recomputed reads more of its producers, which its choice does
 * not weigh, and on local Laplacian the widenings compound level by
 * level (2 ranks: G[0]'s readers then need 20 MB of it, where each
 * level's ghost rows exchanged are 0.5 MB in all).  So auto also plans
 * every forced strategy and keeps the plan whose projected run
 * (dist_project.c: the busiest rank's points and exchanges, plus rank
 * 0's gather unless the outputs stay distributed) is shortest: under
 * the model, auto is never slower than a forced strategy. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dist_priv.h"

/* Seconds of d's run on R ranks as the model projects it. */
static double projected(const pt_dist *d, const pt_model *m, const pt_kernels *ks, const pt_dist_setup *su, int R)
{
	pt_dist_projection pr;
	if (!pt_dist_project(d, m, ks, su->ip, R, &su->costs, &pr))
		return INFINITY;
	return pr.time_s + (su->local_outputs ? 0 : (double)pr.gathered / su->costs.bandwidth);
}

/* A forced plan kept by auto: its texts say so ("exchanged (auto, as
 * --mpi-strategy communicate)"). */
static void relabel(char *text, size_t len)
{
	char *f = strstr(text, "(--mpi-strategy ");
	if (!f || strlen(text) + 9 >= len)
		return;
	memmove(f + 10, f + 1, strlen(f + 1) + 1);
	memcpy(f + 1, "auto, as ", 9);
}

pt_dist *pt_dist_build(const pt_model *m, const pt_kernels *ks, const pt_dist_setup *su)
{
	pt_dist *best = pt_dist_plan(m, ks, su);
	if (su->strategy != PT_MPI_AUTO || !best) {
		if (best)
			pt_dist_local_boxes(best, m, ks);
		return best;
	}
	static const char *const names[] = { "per kernel", "communicate", "recompute", "replicate" };
	int R = su->ranks > 0 ? su->ranks : 4, kept = 0;
	double t[4] = { projected(best, m, ks, su, R) };
	for (int s = PT_MPI_COMMUNICATE; s <= PT_MPI_REPLICATE; s++) {
		pt_dist_setup alt = *su;
		alt.strategy = (pt_mpi_strategy)s;
		pt_dist *d = pt_dist_plan(m, ks, &alt);
		t[s] = d ? projected(d, m, ks, su, R) : INFINITY;
		/* near ties keep the plan found first (per kernel first) */
		if (t[s] < 0.99 * t[kept]) {
			pt_dist_free(best);
			best = d;
			kept = s;
		} else {
			pt_dist_free(d);
		}
	}
	for (int k = 0; kept && k < best->n; k++) {
		relabel(best->k[k].choice, sizeof(best->k[k].choice));
		relabel(best->k[k].why, sizeof(best->k[k].why));
	}
	snprintf(best->plan, sizeof(best->plan), "auto on %d ranks, the plans' projected runs%s: per kernel %.3g ms, "
		"communicate %.3g ms, recompute %.3g ms, replicate %.3g ms; kept %s", R,
		su->local_outputs ? "" : " (with the outputs' gather)", t[0] * 1e3, t[1] * 1e3, t[2] * 1e3, t[3] * 1e3,
		names[kept]);
	pt_dist_local_boxes(best, m, ks);
	return best;
}
