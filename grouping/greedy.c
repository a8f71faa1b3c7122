/* greedy.c: Algorithm 2 of the PolyMage thesis with identity alignment
 * (see greedy.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "align.h"
#include "diag.h"
#include "greedy.h"
#include "slopes.h"

#define MAX_SCRATCH 64          /* pt_rt_scratch's slots */

/* What the grouping knows of the pipeline. */
typedef struct grouper {
	isl_ctx *ctx;
	const pt_pipeline *p;
	const pt_options *opt;
	int n;                      /* stages, by id (topological) */
	bool **reads;               /* reads[c][s]: stage c reads stage s */
	int64_t *ip;                /* int params at the estimates */
	double *size;               /* points at the estimates */
	const char **unfit;         /* why a stage cannot be in a tiled group, or NULL */
	int *gid;                   /* group of each stage */
	bool **refused;             /* candidate stage sets refused, by their bits */
	char **refused_why;         /* and why */
	pt_poly_access_cache *accesses;   /* every stage's reads as isl sets, built once */
	int nrefused;
	pt_strbuf log;
} grouper;

/* A candidate group: its stages and what tiling it would get; per-stage
 * arrays are indexed by stage id. */
typedef struct cand {
	bool *in;
	int ndim, ntile, tdim[PT_MAX_DIMS];
	int64_t tsize[PT_MAX_DIMS];
	int (*gdim)[PT_MAX_DIMS];
	int64_t (*scale)[PT_MAX_DIMS];
	int64_t (*ext)[PT_MAX_DIMS][2];
	bool *liveout;
	double overlap;
} cand;

static bool reads_stage(const pt_expr *e, const void *target)
{
	return e->kind == PT_E_CALL && e->stage == target;
}

static bool stage_reads(const pt_stage *c, const pt_stage *s)
{
	for (int k = 0; k < c->ncases; k++)
		if (pt_expr_any(c->cases[k].cond, reads_stage, s) || pt_expr_any(c->cases[k].value, reads_stage, s))
			return true;
	for (int k = 0; k < c->ncases && c->cases[k].target; k++)
		for (int d = 0; d < c->ndim; d++)
			if (pt_expr_any(c->cases[k].target[d], reads_stage, s))
				return true;
	return false;
}

static const char *why_unfit(const pt_stage *s)
{
	if (s->red != PT_RED_NONE)
		return "a reduction";
	if (stage_reads(s, s))
		return "time-iterated (reads itself)";
	for (int d = 0; d < s->ndim; d++)
		if (s->dom[d].step != 1)
			return "a domain with steps";
	return NULL;
}

void pt_group_estimates(const pt_pipeline *p, const pt_options *opt, int64_t *ip)
{
	for (int q = 0; q < p->nparams; q++)
		ip[q] = !pt_type_is_int(p->params[q].type) ? 0 :   /* a float may be NaN */
			opt && opt->estimates ? (int64_t)opt->estimates[q] :
			p->params[q].has_estimate ? (int64_t)p->params[q].estimate : 1024;
}

static void setup(grouper *g)
{
	const pt_pipeline *p = g->p;
	g->n = p->nstages;
	g->ip = calloc((size_t)p->nparams + 1, sizeof(int64_t));
	pt_group_estimates(p, g->opt, g->ip);
	g->accesses = pt_poly_access_cache_new(g->ctx, p);
	g->reads = calloc((size_t)g->n, sizeof(bool *));
	g->size = calloc((size_t)g->n, sizeof(double));
	g->unfit = calloc((size_t)g->n, sizeof(char *));
	g->gid = calloc((size_t)g->n, sizeof(int));
	for (int c = 0; c < g->n; c++) {
		const pt_stage *sc = p->stages[c];
		g->reads[c] = calloc((size_t)g->n, sizeof(bool));
		g->gid[c] = c;
		g->unfit[c] = why_unfit(sc);
		g->size[c] = 1;
		for (int d = 0; d < sc->ndim; d++) {
			int64_t lo, hi;
			g->size[c] *= pt_interval_eval(&sc->dom[d], g->ip, &lo, &hi) && hi >= lo ? (double)(hi - lo + 1) : 1;
		}
		for (int s = 0; s < c; s++)
			g->reads[c][s] = stage_reads(sc, p->stages[s]);
	}
}

static void cleanup(grouper *g)
{
	pt_poly_access_cache_free(g->accesses);
	for (int c = 0; c < g->n; c++)
		free(g->reads[c]);
	for (int i = 0; i < g->nrefused; i++) {
		free(g->refused[i]);
		free(g->refused_why[i]);
	}
	free(g->refused);
	free(g->refused_why);
	free(g->reads);
	free(g->ip);
	free(g->size);
	free(g->unfit);
	free(g->gid);
	pt_sb_free(&g->log);
}

/* The tiled dims of a candidate: group dims at least this long at the
 * estimates (smaller ones, like colour planes, run whole in each tile). */
#define MIN_TILED_EXTENT 64

/* Tile sizes: the user's, outermost tiled dim first, else 256 for the
 * innermost tiled dim (long unit-stride rows), 32 for the one outside it
 * and 8 further out. */
static void choose_tiles(grouper *g, cand *k, const pt_group_align *a)
{
	k->ntile = 0;
	for (int d = 0; d < a->ndim; d++) {
		int64_t lo, hi;
		if (pt_group_extent(g->p, a, d, g->ip, &lo, &hi) && hi - lo + 1 >= MIN_TILED_EXTENT)
			k->tdim[k->ntile++] = d;
	}
	static const int64_t defaults[] = { 256, 32, 8 };
	for (int t = 0; t < k->ntile; t++) {
		int from_inner = k->ntile - 1 - t;
		int64_t def = from_inner < 3 ? defaults[from_inner] : 8;
		const pt_options *o = g->opt;
		k->tsize[t] = o && t < o->ntile && o->tile[t] > 0 ? o->tile[t] : def;
	}
}

/* The stage's widening from the group's exact per-stage widths (the
 * slopes' need: the tightest region, tighter than equation 3.2's cone);
 * a live-out's tiles are exact, so one read at other points inside the
 * group refuses the group. */
static const char *widen(grouper *g, cand *k, const pt_group_align *a, const pt_group_slopes *sl)
{
	for (int i = 0; i < a->nstages; i++) {
		int s = a->st[i].stage->id;
		for (int d = 0; d < PT_MAX_DIMS; d++) {
			k->gdim[s][d] = d < a->st[i].ndim ? a->st[i].gdim[d] : -1;
			k->scale[s][d] = d < a->st[i].ndim ? a->st[i].scale[d] : 1;
		}
		for (int t = 0; t < k->ntile; t++) {
			int gd = k->tdim[t];
			int64_t lo = sl->st[i].need_l[gd], hi = sl->st[i].need_r[gd];
			if (k->liveout[s] && (lo || hi)) {
				static char why[300];
				snprintf(why, sizeof(why), "live-out '%s' is read at other points inside the group",
					a->st[i].stage->name);
				return why;
			}
			k->ext[s][gd][0] = lo;
			k->ext[s][gd][1] = hi;
		}
	}
	return NULL;
}

/* Aligns the candidate's stages, chooses its tiles and widens them. */
static const char *shape(grouper *g, cand *k)
{
	const pt_stage **st = malloc(sizeof(*st) * (size_t)g->n);
	int n = 0;
	for (int i = 0; i < g->n; i++)
		if (k->in[i])
			st[n++] = g->p->stages[i];
	pt_group_align a;
	const char *why = NULL;
	if (pt_group_align_compute(g->ctx, g->p, st, n, g->accesses, &a, &why)) {
		free(st);
		return why ? why : "not alignable";
	}
	free(st);
	k->ndim = a.ndim;
	choose_tiles(g, k, &a);
	pt_group_slopes sl;
	if (k->ntile == 0)
		why = "no dimension long enough to tile";
	else if (pt_group_slopes_compute(&a, &sl))
		why = "out of memory";
	else {
		why = widen(g, k, &a, &sl);
		pt_group_slopes_clear(&sl);
	}
	pt_group_align_clear(&a);
	return why;
}

/* Whether the stages k->in can form a tiled group; fills k, or returns
 * why not. */
static const char *check(grouper *g, cand *k)
{
	int nscratch = 0;
	for (int i = 0; i < g->n; i++) {
		if (!k->in[i])
			continue;
		if (g->unfit[i]) {
			static char why[300];
			snprintf(why, sizeof(why), "'%s' is %s", g->p->stages[i]->name, g->unfit[i]);
			return why;
		}
		k->liveout[i] = g->p->stages[i]->is_output;
		for (int c = 0; c < g->n; c++)
			k->liveout[i] |= g->reads[c][i] && !k->in[c];
		nscratch += !k->liveout[i];
	}
	if (nscratch > MAX_SCRATCH)
		return "more scratchpads than the runtime's slots";
	const char *why = shape(g, k);
	if (why)
		return why;
	double tile = 1, widest = 1;
	for (int t = 0; t < k->ntile; t++) {
		int64_t o = 0;
		for (int i = 0; i < g->n; i++)
			if (k->in[i] && k->ext[i][k->tdim[t]][0] + k->ext[i][k->tdim[t]][1] > o)
				o = k->ext[i][k->tdim[t]][0] + k->ext[i][k->tdim[t]][1];
		tile *= (double)k->tsize[t];
		widest *= (double)(k->tsize[t] + o);
	}
	k->overlap = widest / tile - 1;
	return NULL;
}

static void cand_init(cand *k, int n)
{
	memset(k, 0, sizeof(*k));
	k->in = calloc((size_t)n, sizeof(bool));
	k->liveout = calloc((size_t)n, sizeof(bool));
	k->ext = calloc((size_t)n, sizeof(*k->ext));
	k->gdim = calloc((size_t)n, sizeof(*k->gdim));
	k->scale = calloc((size_t)n, sizeof(*k->scale));
}

static void cand_free(cand *k)
{
	free(k->in);
	free(k->liveout);
	free(k->ext);
	free(k->gdim);
	free(k->scale);
}

/* Why this exact set of stages was refused before, or NULL (the answer
 * does not change while the groups around it do not; the last pass, which
 * logs every refusal, reuses it instead of aligning the set again). */
static const char *was_refused(const grouper *g, const bool *in)
{
	for (int i = 0; i < g->nrefused; i++)
		if (!memcmp(g->refused[i], in, (size_t)g->n * sizeof(bool)))
			return g->refused_why[i];
	return NULL;
}

/* The one group, other than gi, that reads group gi; -1 if none or more. */
static int only_child(const grouper *g, int gi)
{
	int child = -1;
	for (int c = 0; c < g->n; c++)
		for (int s = 0; s < g->n; s++)
			if (g->gid[s] == gi && g->reads[c][s] && g->gid[c] != gi) {
				if (child >= 0 && child != g->gid[c])
					return -1;
				child = g->gid[c];
			}
	return child;
}

static double group_size(const grouper *g, int gi)
{
	double n = 0;
	for (int i = 0; i < g->n; i++)
		if (g->gid[i] == gi)
			n += g->size[i];
	return n;
}

static void names(const grouper *g, pt_strbuf *b, int gi)
{
	const char *sep = "";
	for (int i = 0; i < g->n; i++)
		if (g->gid[i] == gi) {
			pt_sb_printf(b, "%s%s", sep, g->p->stages[i]->name);
			sep = " ";
		}
}

/* One pass over the candidates, largest first: merges the first that
 * fits (true), or logs every refusal when none does (false). */
static bool merge_one(grouper *g, double threshold, bool log_refusals)
{
	int *order = malloc(sizeof(int) * (size_t)g->n), n = 0;
	for (int gi = 0; gi < g->n; gi++) {
		bool used = false;
		for (int i = 0; i < g->n; i++)
			used |= g->gid[i] == gi;
		if (used && only_child(g, gi) >= 0)
			order[n++] = gi;
	}
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && group_size(g, order[j]) > group_size(g, order[j - 1]); j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	bool merged = false;
	for (int i = 0; i < n && !merged; i++) {
		int gi = order[i], child = only_child(g, gi);
		cand k;
		cand_init(&k, g->n);
		for (int s = 0; s < g->n; s++)
			k.in[s] = g->gid[s] == gi || g->gid[s] == child;
		const char *cached = was_refused(g, k.in);
		if (!log_refusals && cached) {
			cand_free(&k);
			continue;
		}
		const char *why = cached ? cached : check(g, &k);
		if (!cached && !why && k.overlap >= threshold) {
			static char over[200];
			snprintf(over, sizeof(over), "overlap %.3f over the threshold %.3f", k.overlap, threshold);
			why = over;
		}
		if (!why || log_refusals) {
			pt_sb_printf(&g->log, why ? "refused: [" : "merged: [");
			names(g, &g->log, gi);
			pt_sb_printf(&g->log, "] into [");
			names(g, &g->log, child);
			if (why)
				pt_sb_printf(&g->log, "]: %s\n", why);
			else
				pt_sb_printf(&g->log, "] (overlap %.3f)\n", k.overlap);
		}
		if (!why) {
			for (int s = 0; s < g->n; s++)
				if (g->gid[s] == gi)
					g->gid[s] = child;
			merged = true;
		} else if (!cached) {
			g->refused = realloc(g->refused, sizeof(bool *) * (size_t)(g->nrefused + 1));
			g->refused_why = realloc(g->refused_why, sizeof(char *) * (size_t)(g->nrefused + 1));
			g->refused[g->nrefused] = malloc((size_t)g->n * sizeof(bool));
			memcpy(g->refused[g->nrefused], k.in, (size_t)g->n * sizeof(bool));
			g->refused_why[g->nrefused++] = strdup(why);
		}
		cand_free(&k);
	}
	free(order);
	return merged;
}

/* The groups in an order that respects the DAG (Kahn's algorithm on the
 * groups, smallest stage id first for a stable order). */
static int *group_order(const grouper *g, int *ngroups)
{
	int *order = malloc(sizeof(int) * (size_t)g->n), n = 0;
	bool *placed = calloc((size_t)g->n, sizeof(bool)), *exists = calloc((size_t)g->n, sizeof(bool));
	for (int i = 0; i < g->n; i++)
		exists[g->gid[i]] = true;
	for (bool progress = true; progress;) {
		progress = false;
		for (int s = 0; s < g->n; s++) {
			int gi = g->gid[s];
			if (placed[gi])
				continue;
			bool ready = true;
			for (int c = 0; c < g->n && ready; c++)
				for (int p = 0; p < g->n && ready; p++)
					if (g->gid[c] == gi && g->reads[c][p] && g->gid[p] != gi && !placed[g->gid[p]])
						ready = false;
			if (ready) {
				placed[gi] = true;
				order[n++] = gi;
				progress = true;
			}
		}
	}
	free(placed);
	free(exists);
	*ngroups = n;
	return order;
}

static void fill_group(grouper *g, pt_tiling *t, int gi, int slot)
{
	pt_group *gr = &t->groups[slot];
	cand k;
	cand_init(&k, g->n);
	for (int s = 0; s < g->n; s++)
		if ((k.in[s] = g->gid[s] == gi))
			gr->nstages++;
	bool tiled = gr->nstages > 1 && !check(g, &k);
	gr->stages = calloc((size_t)gr->nstages, sizeof(*gr->stages));
	gr->liveout = calloc((size_t)gr->nstages, sizeof(bool));
	gr->ext = calloc((size_t)gr->nstages, sizeof(*gr->ext));
	gr->gdim = calloc((size_t)gr->nstages, sizeof(*gr->gdim));
	gr->scale = calloc((size_t)gr->nstages, sizeof(*gr->scale));
	int i = 0;
	for (int s = 0; s < g->n; s++) {
		if (!k.in[s])
			continue;
		gr->stages[i] = g->p->stages[s];
		gr->liveout[i] = !tiled || k.liveout[s];
		memcpy(gr->ext[i], k.ext[s], sizeof(gr->ext[i]));
		for (int d = 0; d < PT_MAX_DIMS; d++) {
			gr->gdim[i][d] = tiled ? k.gdim[s][d] : d;
			gr->scale[i][d] = tiled ? k.scale[s][d] : 1;
		}
		t->group_of[s] = slot;
		t->index_in_group[s] = i++;
	}
	gr->ndim = tiled ? k.ndim : gr->stages[0]->ndim;
	if (tiled) {
		gr->ntile = k.ntile;
		memcpy(gr->tdim, k.tdim, sizeof(gr->tdim));
		memcpy(gr->tsize, k.tsize, sizeof(gr->tsize));
	}
	cand_free(&k);
}

pt_tiling *pt_group_greedy(isl_ctx *ctx, const pt_pipeline *p, const pt_options *opt, char **log)
{
	grouper g = { .ctx = ctx, .p = p, .opt = opt };
	setup(&g);
	double threshold = opt && opt->overlap > 0 ? opt->overlap : PT_GROUP_DEFAULT_OVERLAP;
	while (merge_one(&g, threshold, false))
		;
	merge_one(&g, threshold, true);
	pt_tiling *t = calloc(1, sizeof(*t));
	int *order = group_order(&g, &t->ngroups);
	t->groups = calloc((size_t)t->ngroups, sizeof(pt_group));
	t->group_of = calloc((size_t)g.n, sizeof(int));
	t->index_in_group = calloc((size_t)g.n, sizeof(int));
	for (int i = 0; i < t->ngroups; i++)
		fill_group(&g, t, order[i], i);
	free(order);
	if (log)
		*log = pt_sb_take(&g.log);
	cleanup(&g);
	return t;
}

char *pt_tiling_str(const pt_tiling *t)
{
	pt_strbuf b = {0};
	for (int i = 0; i < t->ngroups; i++) {
		const pt_group *g = &t->groups[i];
		pt_sb_printf(&b, "group %d:", i);
		for (int s = 0; s < g->nstages; s++)
			pt_sb_printf(&b, " %s%s", g->stages[s]->name, g->ntile && g->liveout[s] ? "*" : "");
		if (!g->ntile) {
			pt_sb_printf(&b, " (untiled)\n");
			continue;
		}
		pt_sb_printf(&b, "\n  tiles:");
		for (int k = 0; k < g->ntile; k++)
			pt_sb_printf(&b, "%s %lld (%s)", k ? " x" : "", (long long)g->tsize[k], pt_group_dim_name(g, g->tdim[k]));
		pt_sb_printf(&b, "\n");
		for (int s = 0; s < g->nstages; s++) {
			if (g->liveout[s])
				continue;
			pt_sb_printf(&b, "  %s widened by", g->stages[s]->name);
			for (int k = 0; k < g->ntile; k++)
				pt_sb_printf(&b, " [%lld, %lld]", (long long)g->ext[s][g->tdim[k]][0],
					(long long)g->ext[s][g->tdim[k]][1]);
			pt_sb_printf(&b, "\n");
		}
	}
	return pt_sb_take(&b);
}
