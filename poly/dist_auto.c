/* dist_auto.c: the auto strategy's plan (pt_dist_build).  Its choices
 * per kernel (dist_model.c) are greedy, from the last kernel back: a
 * kernel recomputed reads more of its producers, which its choice does
 * not weigh, and on local Laplacian the widenings compound level by
 * level (2 ranks: G[0]'s readers then need 20 MB of it, where each
 * level's ghost rows exchanged are 0.5 MB in all).  So auto also plans
 * every forced strategy and keeps the plan whose projected run
 * (dist_project.c: the busiest rank's points and exchanges, plus rank
 * 0's gather unless the outputs stay distributed) is shortest: under
 * the model, auto is never slower than a forced strategy.  Where the
 * ranks make a grid (pt_mpi_grid.h) and --mpi-grid is auto, the plans
 * per kernel and exchanging are also made on the grid. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist_priv.h"
#include "pt_mpi_grid.h"
#include "diag.h"

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
	int R = su->ranks > 0 ? su->ranks : 4;
	int32_t P, Q;
	pt_mpi_grid_shape(R, &P, &Q);
	/* the plans: (strategy, on a grid); the first is best's.  On 2 x Q
	 * ranks a grid moves as many bytes as slabs (each rank's two inner
	 * sides of half the length), in more messages: the grid's plans
	 * (each as long to make as a slab plan: local Laplacian's took 1.5
	 * s) are made from 3 x 3 on */
	bool grid = su->grid == PT_MPI_GRID, both = su->grid == PT_MPI_GRID_AUTO && Q >= 3;
	struct { pt_mpi_strategy s; bool grid; } plan[6] = { { PT_MPI_AUTO, grid }, { PT_MPI_COMMUNICATE, grid },
		{ PT_MPI_RECOMPUTE, grid }, { PT_MPI_REPLICATE, false }, { PT_MPI_AUTO, true }, { PT_MPI_COMMUNICATE, true } };
	int nplan = both ? 6 : 4, kept = 0;
	double t[6];
	t[0] = projected(best, m, ks, su, R);
	for (int i = 1; i < nplan; i++) {
		pt_dist_setup alt = *su;
		alt.strategy = plan[i].s;
		alt.grid = plan[i].grid ? PT_MPI_GRID : PT_MPI_SLABS;
		pt_dist *d = pt_dist_plan(m, ks, &alt);
		t[i] = d ? projected(d, m, ks, su, R) : INFINITY;
		/* near ties keep the plan found first (per kernel first) */
		if (t[i] < 0.99 * t[kept]) {
			pt_dist_free(best);
			best = d;
			kept = i;
		} else {
			pt_dist_free(d);
		}
	}
	for (int k = 0; plan[kept].s != PT_MPI_AUTO && k < best->n; k++) {
		relabel(best->k[k].choice, sizeof(best->k[k].choice));
		relabel(best->k[k].why, sizeof(best->k[k].why));
	}
	pt_strbuf b = {0};
	pt_sb_printf(&b, "auto on %d ranks, the plans' projected runs%s:", R,
		su->local_outputs ? "" : " (with the outputs' gather)");
	for (int i = 0; i < nplan; i++)
		pt_sb_printf(&b, "%s %s%s %.3g ms", i ? "," : "", names[plan[i].s], plan[i].grid ? " on a grid" : "",
			t[i] * 1e3);
	pt_sb_printf(&b, "; kept %s%s", names[plan[kept].s], plan[kept].grid ? " on a grid" : "");
	if (plan[kept].grid)
		pt_sb_printf(&b, " (%d x %d ranks)", P, Q);
	char *text = pt_sb_take(&b);
	snprintf(best->plan, sizeof(best->plan), "%s", text ? text : "");
	free(text);
	pt_dist_local_boxes(best, m, ks);
	return best;
}
