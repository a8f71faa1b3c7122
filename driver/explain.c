/* explain.c: `polytile explain`: the optimizer's groups, tiles and
 * storage at the estimates, in words and numbers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "greedy.h"
#include "inline.h"
#include "model.h"
#include "passes.h"
#include "recur_order.h"
#include "statements.h"
#include "storage.h"

/* The loop order of recurrence s (poly/recur_order.h), as the schedule
 * builds it from s's statements. */
static pt_recur_order recur_order_of(const pt_unit *u, const pt_stage *s)
{
	pt_recur_order o = { -1, 0, -1 };
	const pt_stmts *st = u->model ? u->model->stmts : NULL;
	int *idx = st ? malloc(sizeof(int) * ((size_t)st->n + 1)) : NULL, n = 0;
	for (int i = 0; idx && i < st->n; i++)
		if (st->s[i].stage == s)
			idx[n++] = i;
	if (n)
		o = pt_poly_recur_order(st->s, idx, n);
	free(idx);
	return o;
}

/* The loop order of a recurrence alone in its untiled group. */
static void recur_text(pt_strbuf *b, const pt_unit *u, const pt_stage *s)
{
	pt_recur_order o = recur_order_of(u, s);
	if (o.strip < 0)
		return;
	pt_sb_printf(b, "  recurrence: strips of %u along %s in parallel", o.width, s->vars[o.strip]);
	if (o.last >= 0)
		pt_sb_printf(b, ", %s innermost (across the recurrence along %s)", s->vars[o.last], s->vars[s->ndim - 1]);
	pt_sb_printf(b, "\n");
}

/* A tiled group's reductions and recurrences (grouping/align.h): what
 * each tile runs of them. */
static void in_tile_text(pt_strbuf *b, const pt_unit *u, const pt_group *g)
{
	for (int si = 0; si < g->nstages; si++) {
		const pt_stage *s = g->stages[si];
		if (s->red != PT_RED_NONE) {
			pt_sb_printf(b, "  %s: a reduction, each tile running the updates of its points (cell", s->name);
			for (int d = 0, n = 0; d < s->ndim; d++) {
				int v = pt_reduction_cell_var(s, d), k = pt_group_tile_of_dim(g, si, d);
				if (v >= 0 && k >= 0)
					pt_sb_printf(b, "%s %s along %s", n++ ? "," : "", s->vars[s->ndim + v], s->vars[d]);
			}
			pt_sb_printf(b, ")\n");
			continue;
		}
		if (!pt_stage_reads(s, s))
			continue;
		if (g->tsteps) {
			pt_sb_printf(b, "  %s: time tiled, blocks of %d steps one after another, each block's tiles in parallel; "
				"a tile's steps widened by", s->name, g->tsteps);
			for (int d = 1; d < s->ndim; d++)
				pt_sb_printf(b, "%s %lld along %s", d > 1 ? "," : "", (long long)g->tslope[d], s->vars[d]);
			pt_sb_printf(b, " per step before the block's last (trapezoids), the steps in between in the "
				"scratchpad, the block ends in its full buffer\n");
			continue;
		}
		pt_sb_printf(b, "  %s: a recurrence, run whole in each tile", s->name);
		pt_recur_order o = recur_order_of(u, s);
		if (o.last >= 0)
			pt_sb_printf(b, ", %s innermost in strips of %u (across the recurrence along %s)", s->vars[o.last],
				o.width, s->vars[s->ndim - 1]);
		pt_sb_printf(b, "\n");
	}
}

static void group_text(pt_strbuf *b, const pt_unit *u, int i, const int64_t *ip, double *slot)
{
	const pt_group *g = &u->tiling->groups[i];
	pt_sb_printf(b, "group %d:", i);
	for (int s = 0; s < g->nstages; s++)
		pt_sb_printf(b, " %s%s", g->stages[s]->name, g->ntile && g->liveout[s] ? "*" : "");
	if (!g->ntile) {
		pt_sb_printf(b, "  (untiled)\n");
		if (g->nstages == 1)
			recur_text(b, u, g->stages[0]);
		return;
	}
	/* the name a configuration's tile[NAME] and overlap[NAME] use */
	pt_sb_printf(b, "\n  name: %s", pt_group_name(g));
	pt_sb_printf(b, "\n  tile:");
	for (int k = 0; k < g->ntile; k++) {
		int d = g->tdim[k];
		int64_t o = 0;
		for (int s = 0; s < g->nstages; s++)
			o = g->ext[s][d][0] + g->ext[s][d][1] > o ? g->ext[s][d][0] + g->ext[s][d][1] : o;
		pt_sb_printf(b, "%s %lld along %s (overlap %lld, %.3f of the tile)", k ? "," : "",
			(long long)g->tsize[k], pt_group_dim_name(g, d), (long long)o, (double)o / (double)g->tsize[k]);
	}
	pt_sb_printf(b, "\n");
	/* the kernel's scratchpads, as the target gets them (poly/kernel.h) */
	const pt_kernel *kn = pt_kernels_of_group(u->kernels, g);
	double total = 0;
	for (int j = 0; kn && j < kn->nscratch; j++) {
		int s = kn->scratch[j].si;
		pt_sb_printf(b, "  %s: widened", g->stages[s]->name);
		for (int k = 0; k < g->ntile; k++)
			pt_sb_printf(b, " [%lld, %lld]", (long long)g->ext[s][g->tdim[k]][0], (long long)g->ext[s][g->tdim[k]][1]);
		if (kn->scratch[j].scalar) {
			pt_sb_printf(b, ", a scalar in its fused loop nest\n");
			continue;
		}
		double n = pt_group_scratch_bytes(g, s, ip);
		total += n;
		slot[s] = n > slot[s] ? n : slot[s];
		pt_sb_printf(b, ", scratchpad ");
		pt_storage_bytes_text(b, n);
		pt_sb_printf(b, "\n");
	}
	pt_sb_printf(b, "  scratchpads of a tile: ");
	pt_storage_bytes_text(b, total);
	pt_sb_printf(b, "\n");
	in_tile_text(b, u, g);
}

/* Full buffers of intermediate stages: every one in the naive schedule
 * (which inlines every point-wise stage, where -O1 keeps some), the
 * non-output live-outs of the groups in the grouped one. */
static void storage_text(pt_strbuf *b, const pt_unit *u, const int64_t *ip, const double *slot)
{
	double naive = 0, grouped = 0, per_thread = 0;
	pt_pipeline *q = u->opt->no_inline ? NULL : pt_poly_inline(u->ctx->isl, u->input, PT_INLINE_ALL, NULL);
	const pt_pipeline *p = q ? q : u->input;
	for (int i = 0; i < p->nstages; i++)
		if (!p->stages[i]->is_output)
			naive += pt_storage_box_bytes(p->stages[i], ip, 0);
	pt_pipeline_free(q);
	grouped = u->storage->peak_bytes;
	for (int i = 0; i < u->p->nstages; i++)
		if (u->storage->fold[i] && u->storage->fold_steps[i] > 1)
			pt_sb_printf(b, "%s: dimension 0 kept modulo %d by blocks of %d steps (the steps that end a block)\n",
				u->p->stages[i]->name, u->storage->fold[i], u->storage->fold_steps[i]);
		else if (u->storage->fold[i])
			pt_sb_printf(b, "%s: dimension 0 kept modulo %d (storage folding)\n", u->p->stages[i]->name,
				u->storage->fold[i]);
	for (int k = 0; k < u->p->nstages; k++)
		per_thread += slot[k];
	pt_sb_printf(b, "intermediate storage: naive ");
	pt_storage_bytes_text(b, naive);
	pt_sb_printf(b, "; grouped ");
	pt_storage_bytes_text(b, grouped);
	pt_sb_printf(b, " in %d full buffer%s (each reused once its last reader has run) + ", u->storage->nslots,
		u->storage->nslots == 1 ? "" : "s");
	pt_storage_bytes_text(b, per_thread);
	pt_sb_printf(b, " of scratchpads per thread\n");
	for (int i = 0; u->storage->stream && i < u->p->nstages; i++)
		if (u->storage->stream[i])
			pt_sb_printf(b, "%s: streamed (non-temporal stores: larger than L3 at the estimates, read by no stage)\n",
				u->p->stages[i]->name);
}

/* The passes of -O1 up to last on p into u (o: the options u keeps a
 * pointer to); false with a message. */
static bool grouped(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt, pt_options *o, pt_unit *u,
	const char *last)
{
	*o = opt ? *opt : ctx->opt;
	o->opt_level = PT_OPT_GROUPED;
	o->dump = NULL;
	pt_unit_init(u, ctx, o);
	u->input = (pt_pipeline *)p;
	if (p->checked && !pt_passes_run(u, "inline", last))
		return true;
	pt_unit_clear(u);
	return false;
}

char *pt_explain(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt)
{
	pt_options o;
	pt_unit u;
	bool mpi = opt && opt->backend == PT_BACKEND_MPI;
	if (!grouped(ctx, p, opt, &o, &u, mpi ? "distribute" : "kernels"))
		return NULL;
	int64_t *ip = calloc((size_t)p->nparams + 1, sizeof(int64_t));
	pt_strbuf b = {0};
	pt_group_estimates(p, &o, ip);
	pt_sb_printf(&b, "%s at", p->name);
	for (int q = 0; q < p->nparams; q++) {
		if (pt_type_is_float(p->params[q].type))
			pt_sb_printf(&b, " %s=%g", p->params[q].name, o.estimates ? o.estimates[q] : p->params[q].estimate);
		else
			pt_sb_printf(&b, " %s=%lld", p->params[q].name, (long long)ip[q]);
	}
	pt_sb_printf(&b, "; overlap threshold %g\n", pt_group_threshold(&o));
	/* the tile model's machine, programs and solutions (passes.c) */
	if (u.model_tiles)
		pt_sb_printf(&b, "tile model (no --tile): %s", u.tiles_log ? u.tiles_log : "");
	else
		pt_sb_printf(&b, "tile sizes: %s\n", o.ntile ? "given (--tile or --config)" : "the grouping's fixed ones (--tile fixed)");
	/* which time-iterated stages are time tiled, and why (passes.c) */
	if (u.time_log && *u.time_log)
		pt_sb_printf(&b, "time tiling: %s", u.time_log);
	/* what "rfactor" factored, and why not the other reductions */
	pt_sb_printf(&b, "%s", u.rfactor_log ? u.rfactor_log : "");
	double *slot = calloc((size_t)u.p->nstages + 1, sizeof(double));
	for (int i = 0; i < u.tiling->ngroups; i++)
		group_text(&b, &u, i, ip, slot);
	const char *log = u.group_log ? u.group_log : "";
	for (const char *l = log; *l;) {
		size_t n = strcspn(l, "\n");
		if (!strncmp(l, "refused", 7) || !strncmp(l, "merged in the second pass", 25))
			pt_sb_printf(&b, "%.*s\n", (int)n, l);
		l += n + (l[n] == '\n');
	}
	storage_text(&b, &u, ip, slot);
	if (o.backend == PT_BACKEND_CUDA) {
		double *fp = calloc((size_t)p->nparams + 1, sizeof(double));
		for (int q = 0; q < p->nparams; q++)
			fp[q] = o.estimates ? o.estimates[q] : p->params[q].estimate;
		pt_explain_gpu(&b, &u, p, &o, ip, fp);
		free(fp);
	}
	if (mpi)
		pt_explain_mpi(&b, &u, ip, o.mpi_ranks);
	free(slot);
	free(ip);
	pt_unit_clear(&u);
	return pt_sb_take(&b);
}

char *pt_pipeline_dot_grouped(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt)
{
	pt_options o;
	pt_unit u;
	if (!grouped(ctx, p, opt, &o, &u, "tiles"))
		return NULL;
	/* the graph of the pipeline compiled (after inlining), a cluster per
	 * tiled group inserted before its closing brace */
	char *dot = pt_pipeline_dot(u.p);
	size_t n = strlen(dot);
	while (n > 0 && dot[n - 1] != '}')
		n--;
	pt_strbuf b = {0};
	pt_sb_printf(&b, "%.*s", (int)(n > 0 ? n - 1 : 0), dot);
	free(dot);
	for (int i = 0; i < u.tiling->ngroups; i++) {
		const pt_group *g = &u.tiling->groups[i];
		if (!g->ntile)
			continue;
		pt_sb_printf(&b, "  subgraph cluster_%d {\n    label=\"group %d:", i, i);
		for (int k = 0; k < g->ntile; k++)
			pt_sb_printf(&b, "%s %lld (%s)", k ? " x" : "", (long long)g->tsize[k], pt_group_dim_name(g, g->tdim[k]));
		pt_sb_printf(&b, " tiles\";\n    style=rounded; color=\"#7a7a7a\"; fontname=\"Helvetica\";\n");
		for (int s = 0; s < g->nstages; s++)
			pt_sb_printf(&b, "    \"%s\";\n", g->stages[s]->name);
		pt_sb_printf(&b, "  }\n");
	}
	pt_sb_printf(&b, "}\n");
	pt_unit_clear(&u);
	return pt_sb_take(&b);
}

/* The tiled groups' names and tiles, and their scratchpads' bytes. */
static void summarize_groups(const pt_unit *u, const pt_pipeline *p, const pt_options *o, pt_group_summary *out)
{
	int64_t *ip = calloc((size_t)p->nparams + 1, sizeof(int64_t));
	pt_group_estimates(p, o, ip);
	out->tiled_groups = calloc((size_t)u->tiling->ngroups + 1, sizeof(pt_group_options));
	for (int i = 0; i < u->tiling->ngroups; i++) {
		const pt_group *g = &u->tiling->groups[i];
		if (!g->ntile)
			continue;
		pt_group_options *e = &out->tiled_groups[out->ntiled_groups++];
		e->group = strdup(pt_group_name(g));
		e->ntile = g->ntile < PT_MAX_TILE_DIMS ? g->ntile : PT_MAX_TILE_DIMS;
		for (int k = 0; k < e->ntile; k++)
			e->tile[k] = (int)g->tsize[k];
		for (int s = 0; s < g->nstages; s++)
			out->scratch_bytes += g->liveout[s] ? 0 : pt_group_scratch_bytes(g, s, ip);
	}
	free(ip);
}

void pt_group_summary_clear(pt_group_summary *s)
{
	for (int i = 0; i < s->ntiled_groups; i++)
		free((char *)s->tiled_groups[i].group);
	free(s->tiled_groups);
	free(s->key);
	s->tiled_groups = NULL;
	s->ntiled_groups = 0;
	s->key = NULL;
}

int pt_group_summarize(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt, pt_group_summary *out)
{
	pt_options o;
	pt_unit u;
	memset(out, 0, sizeof(*out));
	if (!grouped(ctx, p, opt, &o, &u, "tiles"))
		return -1;
	out->ngroups = u.tiling->ngroups;
	out->overlap = pt_group_threshold(&o);
	for (int i = 0; i < u.tiling->ngroups; i++) {
		const pt_group *g = &u.tiling->groups[i];
		if (g->ntile <= out->ntiled)
			continue;
		out->ntiled = g->ntile < PT_MAX_TILE_DIMS ? g->ntile : PT_MAX_TILE_DIMS;
		for (int k = 0; k < out->ntiled; k++)
			out->tile[k] = (int)g->tsize[k];
	}
	/* pt_tiling_str names every stage of every group with its tiles and
	 * widening, and nothing of the options: the schedule's whole input */
	out->key = pt_tiling_str(u.tiling);
	summarize_groups(&u, p, &o, out);
	pt_unit_clear(&u);
	return 0;
}
