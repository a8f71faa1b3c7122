/* gpu_model.c: what the device model (gpu_tile.c) is asked of a group
 * as the CUDA target maps it (codegen/gpu.c): a 2-D tiled group's
 * tiles and block and their time, and an untiled stage's time, which
 * the grouping weighs to decide fusion (greedy.c).
 *
 * Traffic is counted from the estimates, so that stages at other
 * scales (a pyramid's levels) and dims the tiles do not cut (its
 * intensity levels) count what they move: a kernel writes its
 * live-outs' points, and reads each input (an image or a stage outside
 * it) at most once, and at most twice per point of its largest reader
 * (a down-sampling's two taps per point; more is served by the caches).
 * Work is counted per stage: the lanes of a block step over the stage's
 * points in a tile (its tile at its scale, widened), once per point of
 * its other dims, each weighted by the size of its expressions. */
#include <math.h>
#include <stdlib.h>

#include "gpu_model.h"
#include "tile_facts.h"
#include "target_desc.h"

enum { MAX_INPUTS = 64 };
/* a typical point's expression nodes (a 3-tap stencil's: its loads'
 * index arithmetic included), the unit of the device's rate */
#define TYPICAL_NODES 32
/* reads past this many per point of the reader hit the caches */
#define READS_PER_POINT 2

static double image_points(const pt_image *im, const int64_t *ip)
{
	double n = 1;
	for (int d = 0; d < im->ndim; d++) {
		int64_t v;
		n *= pt_expr_eval_params(im->extent[d], ip, &v) && v > 0 ? (double)v : 1;
	}
	return n;
}

/* A point of s in typical points: its cases' expression nodes over a
 * typical point's, at least 1. */
static double stage_weight(const pt_stage *s)
{
	long n = 0;
	for (int k = 0; k < s->ncases; k++)
		n += pt_expr_size(s->cases[k].cond) + pt_expr_size(s->cases[k].value);
	return n > TYPICAL_NODES ? (double)n / TYPICAL_NODES : 1;
}

/* The inputs a kernel of some stages reads: each image and each stage
 * not among them, with the largest reader's points. */
typedef struct reads {
	const pt_stage *const *own;
	int nown;
	const int64_t *ip;
	double reader;              /* the stage being walked: its points */
	const void *seen[MAX_INPUTS];
	double most[MAX_INPUTS], points[MAX_INPUTS];
	int size[MAX_INPUTS];
	int n;
} reads;

static void note_read(const pt_expr *e, void *user)
{
	reads *r = user;
	if (e->kind != PT_E_CALL || (!e->stage && !e->image))
		return;
	for (int s = 0; e->stage && s < r->nown; s++)
		if (r->own[s] == e->stage)
			return;
	const void *what = e->stage ? (const void *)e->stage : (const void *)e->image;
	int i = 0;
	while (i < r->n && r->seen[i] != what)
		i++;
	if (i == r->n) {
		if (r->n == MAX_INPUTS)
			return;
		r->seen[r->n++] = what;
		r->most[i] = 0;
		r->points[i] = e->stage ? pt_stage_points(e->stage, r->ip) : image_points(e->image, r->ip);
		r->size[i] = (int)pt_type_size((pt_type)(e->stage ? e->stage->type : e->image->type));
	}
	r->most[i] = r->reader > r->most[i] ? r->reader : r->most[i];
}

/* The bytes stages own[0..n) read from outside them. */
static double read_bytes(const pt_stage *const *own, int n, const int64_t *ip)
{
	reads r = { .own = own, .nown = n, .ip = ip };
	for (int s = 0; s < n; s++) {
		const pt_stage *st = own[s];
		r.reader = pt_stage_points(st, ip);
		/* no reduction is modelled: its initial value and targets
		 * are not walked */
		for (int k = 0; k < st->ncases; k++) {
			pt_expr_walk(st->cases[k].cond, note_read, &r);
			pt_expr_walk(st->cases[k].value, note_read, &r);
		}
	}
	double bytes = 0;
	for (int i = 0; i < r.n; i++) {
		double most = READS_PER_POINT * r.most[i];
		bytes += (r.points[i] < most ? r.points[i] : most) * r.size[i];
	}
	return bytes;
}

double pt_gpu_model_stage_time(const pt_stage *s, const int64_t *ip, const pt_target_desc *m)
{
	/* a reduction's mapping (atomics, privatized, factored or serial:
	 * codegen/gpu_reduce.c, poly/rfactor.c) is not modelled */
	if (s->red != PT_RED_NONE)
		return -1;
	double points = pt_stage_points(s, ip);
	int64_t lo, hi, inner = 1;
	if (s->ndim > 0 && pt_interval_eval(&s->dom[s->ndim - 1], ip, &lo, &hi) && hi >= lo)
		inner = hi - lo + 1;
	/* one loop: spread over blocks of 256 lanes (codegen/gpu.c) */
	double blocks = s->ndim == 1 ? ceil(points / 256) : points / (double)inner;
	if (s->ndim == 1)
		inner = 256;
	pt_gpu_untiled_case c = { .blocks = blocks, .inner = inner, .weight = stage_weight(s),
		.bytes = read_bytes(&s, 1, ip) + points * (double)pt_type_size((pt_type)s->type) };
	return pt_gpu_untiled_time(m, &c);
}

double pt_gpu_model_stages_time(const pt_stage *const *st, int n, const int64_t *ip, const pt_target_desc *m)
{
	double t = 0;
	for (int s = 0; s < n; s++) {
		double ts = pt_gpu_model_stage_time(st[s], ip, m);
		if (ts < 0)
			return -1;
		t += ts;
	}
	return t;
}

typedef struct gpu_user {
	pt_group *g;
	const int64_t *ip;
	const bool *scratch;
} gpu_user;

/* The group dim the lanes of a block run along: tile dim 1's, or for a
 * group tiled along one dim, its innermost dim, whole (-1: that is the
 * tiled one; not modelled). */
static int lane_dim(const pt_group *g)
{
	if (g->ntile == 2)
		return g->tdim[1];
	return g->ntile == 1 && g->ndim > 1 && g->tdim[0] != g->ndim - 1 ? g->ndim - 1 : -1;
}

/* c's scratchpads and each stage's points in a tile at c->rows x
 * c->cols. */
static void gpu_shape(void *user, pt_gpu_tile_case *c)
{
	gpu_user *u = user;
	pt_group *g = u->g;
	int lane = lane_dim(g);
	g->tsize[0] = c->rows;
	if (g->ntile == 2)
		g->tsize[1] = c->cols;
	c->scratch = pt_tile_footprint(g, u->ip, u->scratch);
	for (int s = 0; s < g->nstages; s++) {
		const pt_stage *st = g->stages[s];
		pt_gpu_tile_stage *t = &c->st[s];
		t->points[0] = t->points[1] = 1;
		t->inner = 1;
		t->weight = stage_weight(st);
		for (int d = 0; d < st->ndim; d++) {
			int k = pt_group_tile_of_dim(g, s, d);
			int64_t lo, hi;
			if (k >= 0 && k < 2)
				t->points[k] = pt_group_scratch_extent(g, s, d);
			else if (!pt_interval_eval(&st->dom[d], u->ip, &lo, &hi) || hi < lo)
				continue;
			else if (g->ntile == 1 && g->gdim[s][d] == lane)
				t->points[1] = hi - lo + 1;
			else
				t->inner *= (double)(hi - lo + 1);
		}
	}
}

/* The case of g at the estimates: extents, overlap, traffic per point. */
static void gpu_case(const pt_group *g, const int64_t *ip, pt_gpu_tile_case *c)
{
	for (int k = 0; k < 2; k++) {
		int gd = k == 0 ? g->tdim[0] : lane_dim(g);
		c->extent[k] = pt_tile_dim_extent(g, gd, ip);
		for (int s = 0; s < g->nstages && k < g->ntile; s++) {
			int64_t o = g->ext[s][gd][0] + g->ext[s][gd][1];
			c->overlap[k] = o > c->overlap[k] ? o : c->overlap[k];
		}
	}
	if (g->ntile == 1)
		c->fixed_cols = c->extent[1];
	double area = (double)c->extent[0] * (double)c->extent[1], out = 0;
	for (int s = 0; s < g->nstages; s++)
		if (g->liveout[s])
			out += pt_stage_points(g->stages[s], ip) * (double)pt_type_size((pt_type)g->stages[s]->type);
	c->in_bytes = read_bytes(g->stages, g->nstages, ip) / area;
	c->out_bytes = out / area;
	c->stages = g->nstages;
}

double pt_gpu_model_time(const pt_group *g, const int64_t *ip, const pt_target_desc *m)
{
	if (!m || m->kind != PT_TARGET_KIND_GPU || g->tsteps)
		return -1;
	double t = 0;
	if (g->ntile == 0)
		return pt_gpu_model_stages_time(g->stages, g->nstages, ip, m);
	if (lane_dim(g) < 0)
		return -1;
	pt_group w = *g;   /* gpu_shape sets the sizes: on a copy's */
	pt_gpu_tile_case c = { .nst = g->nstages, .st = calloc((size_t)g->nstages, sizeof(pt_gpu_tile_stage)),
		.rows = g->tsize[0], .cols = g->tsize[1], .bx = g->gpu_block[0], .by = g->gpu_block[1] };
	if (!c.st)
		return -1;
	gpu_case(g, ip, &c);
	if (g->ntile == 1)
		c.cols = c.fixed_cols;
	gpu_user u = { &w, ip, pt_tile_scratch_stages(g, ip) };
	gpu_shape(&u, &c);
	t = pt_gpu_tile_time(m, &c, NULL);
	free((void *)u.scratch);
	free(c.st);
	return isinf(t) ? -1 : t;
}

int pt_gpu_model_choose(pt_group *g, const int64_t *ip, const pt_target_desc *m, pt_strbuf *text, double *time)
{
	if (!m || m->kind != PT_TARGET_KIND_GPU || lane_dim(g) < 0 || g->tsteps)
		return 1;
	pt_gpu_tile_case c = { .nst = g->nstages, .st = calloc((size_t)g->nstages, sizeof(pt_gpu_tile_stage)),
		.fixed_block = g->gpu_block_given };
	if (!c.st)
		return 1;
	if (c.fixed_block) {
		c.bx = g->gpu_block[0];
		c.by = g->gpu_block[1];
	}
	gpu_case(g, ip, &c);
	int64_t keep[2] = { g->tsize[0], g->tsize[1] };
	gpu_user u = { g, ip, pt_tile_scratch_stages(g, ip) };
	pt_strbuf why = { 0 };
	int r = pt_gpu_tile_choose(m, &c, gpu_shape, &u, text ? &why : NULL);
	free((void *)u.scratch);
	if (r == 0) {
		g->tsize[0] = c.rows;
		if (g->ntile == 2)
			g->tsize[1] = c.cols;
		g->gpu_block[0] = c.bx;
		g->gpu_block[1] = c.by;
		if (time)
			*time = pt_gpu_tile_time(m, &c, NULL);
		if (text)
			pt_sb_printf(text, "  GPU (%d SMs, %.2f TB/s, %lld KiB of shared memory per SM; %s): t_%s = %lld, %s%s = "
				"%lld: %s\n", m->gpu.sms, m->gpu.bandwidth / 1e12, (long long)(m->gpu.shared_per_sm >> 10),
				m->gpu.source, pt_group_dim_name(g, g->tdim[0]), (long long)c.rows, g->ntile == 2 ? "t_" : "whole ",
				pt_group_dim_name(g, lane_dim(g)), (long long)c.cols, why.s ? why.s : "");
	} else {
		g->tsize[0] = keep[0];
		g->tsize[1] = keep[1];
	}
	pt_sb_free(&why);
	free(c.st);
	return r;
}
