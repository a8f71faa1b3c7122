/* dist_model.c: the auto strategy's choice per split kernel: the time
 * of the bytes its readers would receive (latency per message and
 * bandwidth, on the rank that receives most; plus, for a kernel writing
 * outputs, rank 0's gather of them, which replicating saves) against the time of the
 * points a rank would compute again (its part widened: recompute; the
 * whole kernel: replicate), at the estimates on su->ranks ranks.
 * Greedy: a choice's effect on what the kernel itself reads is left to
 * the choices of its producers, made after it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist_priv.h"

pt_dist_costs pt_dist_costs_of(const pt_options *o)
{
	return (pt_dist_costs){ o->mpi_latency > 0 ? o->mpi_latency : PT_DIST_LATENCY,
		o->mpi_bandwidth > 0 ? o->mpi_bandwidth : PT_DIST_BANDWIDTH,
		o->mpi_point_time > 0 ? o->mpi_point_time : PT_DIST_POINT_TIME,
		o->mpi_stream_time > 0 ? o->mpi_stream_time : PT_DIST_STREAM_TIME };
}

double pt_dist_point_cost(const pt_kernel *k, const pt_dist_costs *c)
{
	return k->ngrid > 0 ? c->point_time : c->stream_time;
}

double pt_dist_kernel_points(const pt_kernel *k, const int64_t *ip)
{
	double total = 0;
	for (int i = 0; i < k->nstages; i++) {
		const pt_stage *s = k->stages[i];
		double n = 1;
		for (int d = 0; d < s->ndim; d++) {
			int64_t lo, hi;
			n *= pt_interval_eval(&s->dom[d], ip, &lo, &hi) && hi >= lo ? (double)(hi - lo + 1) : 0;
		}
		total += n;
	}
	return total;
}

typedef struct weigh {
	const pt_dist *d;
	const pt_model *m;
	const pt_kernels *ks;
	int k, R;
	const int64_t *ip;
	int64_t *parts;             /* R rows of PT_DIST_SLOTS * d->n + 1 */
	size_t stride;
} weigh;

/* Seconds on the rank that receives most, to exchange what kernel k's
 * readers read of it, and the bytes it receives.  Each box is evaluated
 * once per rank (512 ranks: R^2 isl evaluations per box took minutes). */
static double exchange_time(const weigh *w, const pt_dist_costs *c, int64_t *most)
{
	const pt_pipeline *p = w->m->p;
	int R = w->R;
	int64_t (*own)[2 * PT_MAX_DIMS] = calloc((size_t)R, sizeof(*own));
	int64_t (*need)[2 * PT_MAX_DIMS] = calloc((size_t)R, sizeof(*need));
	int64_t *bytes = calloc((size_t)R, sizeof(int64_t)), *msgs = calloc((size_t)R, sizeof(int64_t));
	*most = 0;
	for (int j = w->k + 1; j < w->d->n && own && need && bytes && msgs; j++)
		for (int i = 0; i < w->d->k[j].nneed; i++) {
			const pt_dist_box *nb = &w->d->k[j].need[i];
			const pt_dist_box *ob = pt_dist_own(&w->d->k[w->k], nb->stage);
			if (w->ks->of_stage[nb->stage->id] != w->k || !ob)
				continue;
			for (int r = 0; r < R; r++) {
				const int64_t *pr = w->parts + (size_t)r * w->stride;
				pt_dist_box_at(nb, p, w->ip, pr, need[r]);
				pt_dist_part_box(ob, p, w->ip, pr, w->k, own[r]);
			}
			int64_t es = (int64_t)pt_type_size((pt_type)nb->stage->type);
			for (int r = 0; r < R; r++)
				for (int q = 0; q < R; q++) {
					int64_t e = q == r ? 0 : pt_dist_meet(nb->ndim, own[q], need[r]);
					bytes[r] += e * es;
					msgs[r] += e > 0;
				}
		}
	double worst = 0;
	for (int r = 0; bytes && msgs && r < R; r++) {
		double t = (double)msgs[r] * c->latency + (double)bytes[r] / c->bandwidth;
		worst = t > worst ? t : worst;
		*most = bytes[r] > *most ? bytes[r] : *most;
	}
	free(own);
	free(need);
	free(bytes);
	free(msgs);
	return worst;
}

/* Seconds for rank 0 to receive the other ranks' parts of the outputs
 * kernel k writes, which a replicated kernel has whole on every rank:
 * a cost of splitting it (harris on 2 ranks: 82 MB). */
static double gather_time(const weigh *w, const pt_dist_costs *c)
{
	double bytes = 0;
	int msgs = 0;
	const pt_kernel *k = &w->ks->k[w->k];
	for (int i = 0; i < k->nstages; i++) {
		const pt_stage *s = k->stages[i];
		if (!s->is_output)
			continue;
		double n = 1;
		for (int d = 0; d < s->ndim; d++) {
			int64_t lo, hi;
			n *= pt_interval_eval(&s->dom[d], w->ip, &lo, &hi) && hi >= lo ? (double)(hi - lo + 1) : 0;
		}
		bytes += n * (double)pt_type_size((pt_type)s->type) * (w->R - 1) / w->R;
		msgs += w->R - 1;
	}
	return msgs * c->latency + bytes / c->bandwidth;
}

/* Seconds on the slowest rank for a stepped kernel's steps beyond its
 * own points: its exchanges between steps (every dk->depth steps) and
 * the points of its ranges widened for them; the bytes received by the
 * rank that receives most added to *most. */
static double step_time(const weigh *w, const pt_dist_costs *c, int64_t *most)
{
	const pt_dist_kernel *dk = &w->d->k[w->k];
	const pt_pipeline *p = w->m->p;
	int64_t first, last, first2 = 0, last2 = 0;
	if (!dk->stepped || !pt_dist_eval(dk->first, p, w->ip, NULL, &first) ||
		!pt_dist_eval(dk->last, p, w->ip, NULL, &last) || last < first)
		return 0;
	if (dk->coord2 >= 0 && (!pt_dist_eval(dk->first2, p, w->ip, NULL, &first2) ||
		!pt_dist_eval(dk->last2, p, w->ip, NULL, &last2) || last2 < first2))
		return 0;
	/* points per value of the coordinate (per pair on a grid), over all
	 * steps: times the extra values of a step's mean */
	double pv = pt_dist_kernel_points(&w->ks->k[w->k], w->ip) / (double)(last - first + 1) /
		(double)(last2 - first2 + 1);
	double pc = pt_dist_point_cost(&w->ks->k[w->k], c);
	int64_t *got = calloc((size_t)w->R, sizeof(int64_t)), *msgs = calloc((size_t)w->R, sizeof(int64_t));
	pt_dist_step_bytes(w->d, w->k, p, w->ip, w->R, w->parts, w->stride, got, NULL, msgs);
	double worst = 0;
	int64_t top = 0;
	for (int r = 0; got && msgs && r < w->R; r++) {
		double run, own;
		pt_dist_step_values(w->d, w->k, p, w->ip, w->parts + (size_t)r * w->stride, &run, &own);
		double t = (double)msgs[r] * c->latency + (double)got[r] / c->bandwidth + (run - own) * pv * pc;
		worst = t > worst ? t : worst;
		top = got[r] > top ? got[r] : top;
	}
	*most += top;
	free(got);
	free(msgs);
	return worst;
}

static weigh weigh_at(const pt_dist *d, const pt_model *m, const pt_kernels *ks, int k, const pt_dist_setup *su)
{
	int R = su->ranks > 0 ? su->ranks : 4;
	weigh w = { d, m, ks, k, R, su->ip, NULL, (size_t)(PT_DIST_SLOTS * d->n + 1) };
	w.parts = calloc((size_t)R * w.stride, sizeof(int64_t));
	for (int r = 0; w.parts && r < R; r++)
		pt_dist_parts(d, m->p, su->ip, r, R, w.parts + (size_t)r * w.stride);
	return w;
}

/* The depth the model takes for stepped kernel k: of 1 .. 8 steps (and
 * all of them, past 8), the one whose exchanges and widened points take
 * least on the slowest rank; near ties to the shallower. */
static int model_depth(pt_dist *d, const pt_model *m, const pt_kernels *ks, int k, const pt_dist_setup *su,
	char *why, size_t len)
{
	pt_dist_kernel *dk = &d->k[k];
	int64_t t0 = 0, t1 = 0;
	pt_dist_eval(dk->tfirst, m->p, su->ip, NULL, &t0);
	pt_dist_eval(dk->tlast, m->p, su->ip, NULL, &t1);
	int n = t1 - t0 + 1 < 8 ? (int)(t1 - t0 + 1) : 8, best = 1;
	double tbest = INFINITY, t1s = 0;
	weigh w = weigh_at(d, m, ks, k, su);
	for (int i = 1; w.parts && i <= n + (t1 - t0 + 1 > 8); i++) {
		dk->depth = i <= n ? i : 0;
		int64_t bytes = 0;
		double t = step_time(&w, &su->costs, &bytes);
		if (i == 1)
			t1s = t;
		if (t < 0.99 * tbest) {
			tbest = t;
			best = dk->depth;
		}
	}
	free(w.parts);
	snprintf(why, len, "by the model: %.3g ms between steps exchanging every step, %.3g ms %s", t1s * 1e3,
		tbest * 1e3, best == 1 ? "kept" : best == 0 ? "recomputing from the first step, kept" : "every few steps, kept");
	return best;
}

void pt_dist_step_depth(pt_dist *d, const pt_model *m, const pt_kernels *ks, int k, const pt_dist_setup *su,
	char *why, size_t len)
{
	pt_dist_kernel *dk = &d->k[k];
	if (dk->grow[0] < 0 || dk->grow[1] < 0 || (dk->coord2 >= 0 && (dk->grow2[0] < 0 || dk->grow2[1] < 0))) {
		dk->depth = 1;
		snprintf(why, len, "its reads of the step before are not at constant distances: every step");
	} else if (su->steps != 0) {
		dk->depth = su->steps > 0 ? su->steps : 0;
		if (su->steps > 0)
			snprintf(why, len, "--mpi-steps %d", su->steps);
		else
			snprintf(why, len, "--mpi-steps all");
	} else if (su->strategy != PT_MPI_AUTO) {
		dk->depth = su->strategy == PT_MPI_RECOMPUTE ? 0 : 1;
		snprintf(why, len, "--mpi-strategy %s", dk->depth ? "communicate" : "recompute");
	} else {
		dk->depth = model_depth(d, m, ks, k, su, why, len);
	}
}

/* Seconds for a rank to receive the rest of what kernel k reads of the
 * kernels planned split: replicating k needs their arrays whole on every
 * rank (heat3d's last reads all of heat's last step), where its part
 * would read its own part of them and a ghost zone. */
static double inputs_time(const weigh *w, const pt_dist_costs *c)
{
	const pt_kernel *k = &w->ks->k[w->k];
	double bytes = 0;
	int msgs = 0;
	for (int i = 0; i < k->ninputs; i++) {
		const pt_stage *s = k->inputs[i].stage;
		if (!s || w->ks->of_stage[s->id] == w->k || !w->d->k[w->ks->of_stage[s->id]].split)
			continue;
		pt_dist_box b;
		int64_t box[2 * PT_MAX_DIMS];
		pt_dist_box_of(isl_set_copy(k->inputs[i].footprint), s, &b, NULL);
		pt_dist_box_at(&b, w->m->p, w->ip, NULL, box);
		for (int d = 0; d < b.ndim; d++) {
			isl_pw_aff_free(b.lo[d]);
			isl_pw_aff_free(b.hi[d]);
		}
		bytes += (double)pt_dist_meet(b.ndim, box, box) * (double)pt_type_size((pt_type)s->type) * (w->R - 1) / w->R;
		msgs += w->R - 1;
	}
	return msgs * c->latency + bytes / c->bandwidth;
}

/* The most coordinate values a rank would run beyond its own part if
 * widened. */
static int64_t widened_values(const weigh *w)
{
	const pt_pipeline *p = w->m->p;
	const pt_dist_kernel *dk = &w->d->k[w->k];
	int64_t most = 0;
	for (int r = 0; r < w->R; r++) {
		const int64_t *pr = w->parts + (size_t)r * w->stride;
		int64_t a = pr[PT_DIST_SLOTS * w->k], b = pr[PT_DIST_SLOTS * w->k + 1], vlo, vhi, wlo, whi;
		pt_dist_values(dk, p, w->ip, pr, &vlo, &vhi);
		if (vlo > vhi)
			continue;
		pt_dist_widen(a, b, vlo, vhi, &wlo, &whi);
		int64_t extra = (whi - wlo + 1) - (a <= b ? b - a + 1 : 0);
		if (extra > most)
			most = extra;
	}
	return most;
}

void pt_dist_weigh(const pt_dist *d, const pt_model *m, const pt_kernels *ks, int k,
	const pt_dist_setup *su, bool can_widen, bool *widen, bool *whole, char *why, size_t len)
{
	weigh w = weigh_at(d, m, ks, k, su);
	int R = w.R;
	const pt_dist_costs *c = &su->costs;
	int64_t first = 0, last = -1, bytes;
	pt_dist_eval(d->k[k].first, m->p, su->ip, NULL, &first);
	pt_dist_eval(d->k[k].last, m->p, su->ip, NULL, &last);
	double points = pt_dist_kernel_points(&ks->k[k], su->ip);
	double per_value = last >= first ? points / (double)(last - first + 1) : 0;
	double tg = su->local_outputs ? 0 : gather_time(&w, c);
	double tx = exchange_time(&w, c, &bytes) + tg + step_time(&w, c, &bytes);
	double pc = pt_dist_point_cost(&ks->k[k], c);
	double tw = points * (double)(R - 1) / R * pc + inputs_time(&w, c);
	double tr = can_widen ? (double)widened_values(&w) * per_value * pc + tg : tw + 1;
	/* near ties go to the choice that computes fewer points in all: a
	 * split output gathered costs rank 0 what replicating it costs every
	 * rank (heat3d's once: 2 ns a point either way at the defaults) */
	*widen = tr < tx && tr <= tw;
	*whole = !*widen && tw < 0.99 * tx;
	char gather[64] = "";
	if (tg > 0)
		snprintf(gather, sizeof(gather), " (each with %.3g ms of gathering outputs)", tg * 1e3);
	snprintf(why, len, "%s by the model on %d ranks: exchanging %lld B to a rank %.3g ms, recomputing %.3g ms%s%s, "
		"replicating %.3g ms", *widen ? "recomputed" : *whole ? "replicated" : "exchanged", R, (long long)bytes,
		tx * 1e3, can_widen ? tr * 1e3 : 0.0, can_widen ? "" : d->k[k].stepped ? " (not for the readers of a stepped kernel)" : d->k[k].coord2 >= 0 ?
		" (not done on a grid)" : " (cannot: a replicated kernel reads it)", gather,
		tw * 1e3);
	free(w.parts);
}
