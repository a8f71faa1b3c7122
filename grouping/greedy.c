/* greedy.c: Algorithm 2 of the PolyMage thesis with identity alignment
 * (see greedy.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "align.h"
#include "gpu_model.h"
#include "diag.h"
#include "greedy.h"
#include "isl_expr.h"
#include "group_options.h"
#include "slopes.h"
#include "tile_model.h"
#include "target_desc.h"

#define LITTLE 16               /* little_work: 1/16 of the largest stage */
#define LITTLE_SECOND 16        /* second_look: 1/16, of the merged-in group alone */

/* A candidate set refused: its stages (ascending), their key, why. */
typedef struct refusal {
	uint64_t hash;
	int n, *st;
	char *why;
	struct cand *shape;         /* refused in the first pass for its overlap
	                             * alone: its shape, for second_look */
} refusal;

/* What the grouping knows of the pipeline. */
typedef struct grouper {
	isl_ctx *ctx;
	const pt_pipeline *p;
	const pt_options *opt;
	const pt_target_desc *machine;   /* the tile model's target; NULL: fixed sizes */
	pt_group_sel sel;           /* opt's per-group entries by stage */
	int n;                      /* stages, by id (topological) */
	/* the DAG as lists, ascending ids, so that every step costs the
	 * edges it looks at, not n^2 (issue 13: 500-stage chains) */
	int **cons, *ncons;         /* cons[s]: the stages reading s (other than s) */
	int **prods, *nprods;       /* prods[c]: the stages c reads (other than c) */
	int **mem, *nmem;           /* mem[gi]: group gi's stages (empty: no group gi) */
	uint64_t *hash;             /* per stage, a random key; per group, their xor */
	uint64_t *ghash;
	int64_t *ip;                /* int params at the estimates */
	double *size;               /* points at the estimates */
	double largest;             /* the largest of them */
	const char **unfit;         /* why a stage cannot be in a tiled group, or NULL */
	int *gid;                   /* group of each stage */
	refusal *refused;           /* candidate stage sets refused */
	pt_poly_access_cache *accesses;   /* every stage's reads as isl sets, built once */
	bool own_accesses;
	int nrefused;
	bool second;                /* the second pass: second_look is asked */
	/* on a GPU, unless --overlap is given: the device model decides
	 * fusion (gpu_verdict; model_fuses), with each group's predicted
	 * time (NAN: not known yet; < 0: not modelled) */
	bool gpu_fuse;
	double *gtime;
	bool final;                 /* the final groups are filled */
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
	double threshold;           /* its threshold (per-group entries, else opt's) */
	const pt_group_options *given;   /* the entry giving its tiles, or NULL */
	bool over;                  /* check refused it for its overlap alone */
	bool looked;                /* second_look merged it (overlap: there) */
	int gi, child;              /* the merge it stands for (-1: none) */
	bool gpu;                   /* gpu_verdict merged it (why: gpu_said) */
} cand;

static void cand_init(cand *k, int n);
static void cand_free(cand *k);
static const char *little_work(const grouper *g, int gi, int child, bool second);

/* The stages a stage calls, marked in a per-stage array. */
static void mark_call(const pt_expr *e, void *user)
{
	if (e->kind == PT_E_CALL && e->stage)
		((bool *)user)[e->stage->id] = true;
}

static void mark_reads(const pt_stage *c, bool *mark)
{
	for (int k = 0; k < c->ncases; k++) {
		pt_expr_walk(c->cases[k].cond, mark_call, mark);
		pt_expr_walk(c->cases[k].value, mark_call, mark);
	}
	for (int k = 0; k < c->ncases && c->cases[k].target; k++)
		for (int d = 0; d < c->ndim; d++)
			pt_expr_walk(c->cases[k].target[d], mark_call, mark);
}

/* A reduction is tiled along its cell dims only, a recurrence along the
 * dims its self-reads keep (choose_tiles), and either on the CPU only:
 * the GPU and MPI targets map them on their own. */
static const char *why_unfit(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s, const pt_options *opt)
{
	if (s->red != PT_RED_NONE && opt && opt->backend != PT_BACKEND_CPU)
		return "a reduction (grouped on the CPU target only)";
	if (s->red != PT_RED_NONE && !pt_group_reduction_fits(s, &s, 1))
		return "a reduction that reads itself, or whose target indices are no reduction variables";
	/* its reads are checked against a mask of the points defined,
	 * which only a full buffer has (a scratchpad would let a read of an
	 * undefined point through) */
	if (!s->is_output && pt_poly_stage_undecided(ctx, p, s))
		return "a stage whose cases are decided by data (its defined points are tracked in a full buffer)";
	if (pt_stage_reads(s, s) && !pt_group_recurrence_fits(s))
		return "time-iterated (reads itself along every dimension)";
	if (pt_stage_reads(s, s) && opt && opt->backend != PT_BACKEND_CPU)
		return "a recurrence (grouped on the CPU target only)";
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

/* A fixed pseudo-random key per stage id (splitmix64), so that runs
 * agree. */
static uint64_t stage_key(int id)
{
	uint64_t z = (uint64_t)id * 0x9e3779b97f4a7c15ull + 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void setup(grouper *g)
{
	const pt_pipeline *p = g->p;
	int n = g->n = p->nstages;
	g->ip = calloc((size_t)p->nparams + 1, sizeof(int64_t));
	pt_group_estimates(p, g->opt, g->ip);
	if (g->own_accesses)
		g->accesses = pt_poly_access_cache_new(g->ctx, p);
	g->size = calloc((size_t)n, sizeof(double));
	g->gtime = malloc(sizeof(double) * ((size_t)n + 1));
	for (int i = 0; i < n; i++)
		g->gtime[i] = NAN;
	g->gpu_fuse = g->machine && g->machine->kind == PT_TARGET_KIND_GPU &&
		!(g->opt && (g->opt->overlap > 0 || g->opt->overlap_set));
	g->unfit = calloc((size_t)n, sizeof(char *));
	g->gid = calloc((size_t)n, sizeof(int));
	g->cons = calloc((size_t)n, sizeof(int *));
	g->ncons = calloc((size_t)n, sizeof(int));
	g->prods = calloc((size_t)n, sizeof(int *));
	g->nprods = calloc((size_t)n, sizeof(int));
	g->mem = calloc((size_t)n, sizeof(int *));
	g->nmem = calloc((size_t)n, sizeof(int));
	g->hash = calloc((size_t)n, sizeof(uint64_t));
	g->ghash = calloc((size_t)n, sizeof(uint64_t));
	bool *mark = calloc((size_t)n + 1, sizeof(bool));
	for (int c = 0; c < n; c++) {
		const pt_stage *sc = p->stages[c];
		g->gid[c] = c;
		g->mem[c] = malloc(sizeof(int));
		g->mem[c][0] = c;
		g->nmem[c] = 1;
		g->hash[c] = g->ghash[c] = stage_key(c);
		g->unfit[c] = why_unfit(g->ctx, p, sc, g->opt);
		g->size[c] = pt_stage_points(sc, g->ip);
		g->largest = g->size[c] > g->largest ? g->size[c] : g->largest;
		/* producers come earlier (topological ids); a stage reading
		 * itself is not its own producer here */
		memset(mark, 0, (size_t)n * sizeof(bool));
		mark_reads(sc, mark);
		g->prods[c] = malloc(sizeof(int) * (size_t)(c + 1));
		for (int s = 0; s < c; s++)
			if (mark[s]) {
				g->prods[c][g->nprods[c]++] = s;
				g->cons[s] = realloc(g->cons[s], sizeof(int) * (size_t)(g->ncons[s] + 1));
				g->cons[s][g->ncons[s]++] = c;
			}
	}
	free(mark);
}

static void cleanup(grouper *g)
{
	if (g->own_accesses)
		pt_poly_access_cache_free(g->accesses);
	for (int c = 0; c < g->n; c++) {
		free(g->cons[c]);
		free(g->prods[c]);
		free(g->mem[c]);
	}
	for (int i = 0; i < g->nrefused; i++) {
		free(g->refused[i].st);
		free(g->refused[i].why);
		if (g->refused[i].shape)
			cand_free(g->refused[i].shape);
		free(g->refused[i].shape);
	}
	free(g->refused);
	free(g->cons);
	free(g->ncons);
	free(g->prods);
	free(g->nprods);
	free(g->mem);
	free(g->nmem);
	free(g->hash);
	free(g->ghash);
	free(g->ip);
	free(g->size);
	free(g->gtime);
	free(g->unfit);
	free(g->gid);
	pt_sb_free(&g->log);
}

/* The tiled dims of a candidate: group dims at least this long at the
 * estimates (smaller ones, like colour planes, run whole in each tile). */
#define MIN_TILED_EXTENT 64

/* Whether every reduction of a that takes group dim gd takes it with a
 * cell dim (pt_reduction_cell_var), and every recurrence with a dim its
 * self-reads keep (self_fixed): a tile then holds every update of the
 * reduction's points in it, and whole recurrences. */
static bool cell_dim(const pt_group_align *a, int gd)
{
	for (int i = 0; i < a->nstages; i++) {
		const pt_stage *s = a->st[i].stage;
		bool red = s->red != PT_RED_NONE, rec = !red && pt_stage_reads(s, s);
		for (int d = 0; d < a->st[i].ndim; d++)
			if (a->st[i].gdim[d] == gd && ((red && pt_reduction_cell_var(s, d) < 0) || (rec && !s->self_fixed[d])))
				return false;
	}
	return true;
}

/* Tile sizes: the user's, outermost tiled dim first, else 256 for the
 * innermost tiled dim (long unit-stride rows), 32 for the one outside it
 * and 8 further out. */
static void choose_tiles(grouper *g, cand *k, const pt_group_align *a)
{
	k->ntile = 0;
	for (int d = 0; d < a->ndim; d++) {
		int64_t lo, hi;
		if (pt_group_extent(g->p, a, d, g->ip, &lo, &hi) && hi - lo + 1 >= MIN_TILED_EXTENT &&
			cell_dim(a, d))
			k->tdim[k->ntile++] = d;
	}
	static const int64_t defaults[] = { 256, 32, 8 };
	for (int t = 0; t < k->ntile; t++) {
		int from_inner = k->ntile - 1 - t;
		int64_t def = from_inner < 3 ? defaults[from_inner] : 8;
		const pt_options *o = g->opt;
		/* an entry's tiles: a candidate's merge is judged at them as
		 * at --tile's; with the tile model on it is judged at the
		 * model's stand-ins (the entry replaces only the final sizes) */
		const pt_group_options *e = !g->machine || g->final ? k->given : NULL;
		k->tsize[t] = e && t < e->ntile && e->tile[t] > 0 ? e->tile[t]
			: o && t < o->ntile && o->tile[t] > 0 ? o->tile[t] : def;
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

/* torig: along each tile dim, the first group coordinate of the first
 * live-out (an output first) whose domain starts at a constant there;
 * 0 if none does. */
static void tile_origin(pt_group *gr)
{
	for (int k = 0; k < gr->ntile; k++) {
		gr->torig[k] = 0;
		for (int pass = 0; pass < 2; pass++) {
			bool found = false;
			for (int i = 0; i < gr->nstages && !found; i++) {
				const pt_stage *s = gr->stages[i];
				if (!gr->liveout[i] || s->is_output != !pass)
					continue;
				for (int d = 0; d < s->ndim; d++)
					if (gr->gdim[i][d] == gr->tdim[k] && s->dom[d].lo->kind == PT_E_INT) {
						gr->torig[k] = gr->scale[i][d] * s->dom[d].lo->ival;
						found = true;
					}
			}
			if (found)
				break;
		}
	}
}

/* A GPU block given for k's group (--gpu-block, or for the final
 * group an entry's block[G], as an entry's tiles under the tile model)
 * into gr: the device model then chooses its tiles alone. */
static void given_block(const grouper *g, const cand *k, pt_group *gr)
{
	const pt_options *o = g->opt;
	if (!o || (o->backend != PT_BACKEND_CUDA && o->backend != PT_BACKEND_CUDA_EMU))
		return;
	const pt_group_options *e = g->final ? pt_group_sel_block(&g->sel, k->in) : NULL;
	const int *b = e ? e->gpu_block : o->gpu_block;
	if (b[0] > 0 && b[1] > 0) {
		gr->gpu_block[0] = b[0];
		gr->gpu_block[1] = b[1];
		gr->gpu_block_given = true;
	}
}

/* k as a pt_group, its stages ascending by id: tiled with k's shape,
 * else each stage whole.  t (may be NULL) gets each stage's group slot
 * and index. */
static void cand_group(const grouper *g, const cand *k, bool tiled, pt_group *gr, pt_tiling *t, int slot)
{
	memset(gr, 0, sizeof(*gr));
	for (int s = 0; s < g->n; s++)
		gr->nstages += k->in[s];
	gr->stages = calloc((size_t)gr->nstages, sizeof(*gr->stages));
	gr->liveout = calloc((size_t)gr->nstages, sizeof(bool));
	gr->ext = calloc((size_t)gr->nstages, sizeof(*gr->ext));
	gr->gdim = calloc((size_t)gr->nstages, sizeof(*gr->gdim));
	gr->scale = calloc((size_t)gr->nstages, sizeof(*gr->scale));
	int i = 0;
	for (int s = 0; s < g->n; s++) {
		if (!k->in[s])
			continue;
		gr->stages[i] = g->p->stages[s];
		gr->liveout[i] = !tiled || k->liveout[s];
		memcpy(gr->ext[i], k->ext[s], sizeof(gr->ext[i]));
		for (int d = 0; d < PT_MAX_DIMS; d++) {
			gr->gdim[i][d] = tiled ? k->gdim[s][d] : d;
			gr->scale[i][d] = tiled ? k->scale[s][d] : 1;
		}
		if (t) {
			t->group_of[s] = slot;
			t->index_in_group[s] = i;
		}
		i++;
	}
	gr->ndim = tiled ? k->ndim : gr->stages[0]->ndim;
	if (tiled) {
		gr->ntile = k->ntile;
		memcpy(gr->tdim, k->tdim, sizeof(gr->tdim));
		memcpy(gr->tsize, k->tsize, sizeof(gr->tsize));
		tile_origin(gr);
		given_block(g, k, gr);
	}
}

/* The overlap of k at tile sizes tsize: the widest tile over the tile,
 * less one. */
static double overlap_at(const grouper *g, const cand *k, const int64_t *tsize)
{
	double tile = 1, widest = 1;
	for (int t = 0; t < k->ntile; t++) {
		int64_t o = 0;
		for (int i = 0; i < g->n; i++)
			if (k->in[i] && k->ext[i][k->tdim[t]][0] + k->ext[i][k->tdim[t]][1] > o)
				o = k->ext[i][k->tdim[t]][0] + k->ext[i][k->tdim[t]][1];
		tile *= (double)tsize[t];
		widest *= (double)(tsize[t] + o);
	}
	return widest / tile - 1;
}

/* With the tile model on: why k, within the threshold at the fixed
 * sizes, is refused all the same (NULL: it is not).  The model gives
 * most groups 8 rows (its rows term) and shrinks tiles until their
 * scratchpads fit L1 where it can.  A candidate whose scratchpads fit L1
 * at the model's smallest tile gains from that, whatever its overlap at
 * 8 rows (harris, blur: fused and fastest there).  One whose scratchpads
 * do not fit L1 even then keeps them in L2 at any size, and fusing pays
 * only if the overlap at 8 rows is within the threshold too: fused
 * pyramid levels looked cheap at 32 rows and ran up to 1.2x slower
 * than one level per group (local_laplacian, pyramid_blend;
 * bench/results.md). */
/* k at the tile model's smallest tile: that tile with the innermost
 * size fixed (rows), its scratchpads' bytes, whether they fit L1. */
typedef struct smallest {
	int64_t rows[PT_MAX_DIMS];
	double bytes;
	bool fits;
} smallest;

static void smallest_tile(grouper *g, cand *k, smallest *sm)
{
	pt_group gr;
	cand_group(g, k, true, &gr, NULL, 0);
	for (int t = 0; t < k->ntile; t++) {
		bool inner = t + 1 == k->ntile;
		gr.tsize[t] = inner ? PT_TILE_MODEL_MIN_INNER : PT_TILE_MODEL_MIN;
		sm->rows[t] = inner ? k->tsize[t] : PT_TILE_MODEL_MIN;
	}
	sm->fits = pt_tile_model_fits_l1(&gr, g->ip, g->machine, &sm->bytes);
	pt_group_clear(&gr);
}

/* A GPU block's scratchpads are its shared memory: a group whose
 * smallest tile overflows it runs nowhere (a hard limit, unlike the
 * overlap's). */
static const char *gpu_refuses(const grouper *g, const smallest *sm)
{
	if (sm->bytes <= (double)g->machine->gpu.shared_per_block)
		return NULL;
	static char text[200];
	snprintf(text, sizeof(text), "scratchpads of %.1f KiB at the tile model's smallest tile, beyond a GPU block's "
		"%lld KiB of shared memory", sm->bytes / 1024, (long long)(g->machine->gpu.shared_per_block >> 10));
	return text;
}

static const char *model_refuses(grouper *g, cand *k, const smallest *sm)
{
	double o = 0;
	bool refused = !sm->fits && pt_group_over(o = overlap_at(g, k, sm->rows), k->threshold);
	if (!refused)
		return NULL;
	static char text[300];
	int n = snprintf(text, sizeof(text), "overlap %.3f at ", o);
	for (int t = 0; t < k->ntile && n > 0 && (size_t)n < sizeof(text); t++)
		n += snprintf(text + n, sizeof(text) - (size_t)n, "%s%lld", t ? "x" : "", (long long)sm->rows[t]);
	if (n > 0 && (size_t)n < sizeof(text))
		snprintf(text + n, sizeof(text) - (size_t)n, " over the threshold %.3f, and scratchpads of "
			"%.1f KiB at the tile model's smallest tile, beyond L1", k->threshold, sm->bytes / 1024);
	return text;
}

static char looked[800];         /* second_look's verdict, for the log */

/* In the second pass (with the tile model on): k, refused for its
 * overlap (why) at the fixed sizes or at 8 rows, stand-ins for the tile
 * the model will choose, is judged at that tile: the model chooses the
 * merged group's sizes as it will after the grouping, and k merges
 * (NULL) if its overlap there is within the threshold.  Else why, with
 * that overlap.  camera_pipe: demosaic fused with its inputs, 0.215 at
 * 32 rows and 0.119 at the model's 64, runs 1.2x faster. */
static const char *second_look(grouper *g, cand *k, const char *why)
{
	pt_group gr;
	cand_group(g, k, true, &gr, NULL, 0);
	int fail = pt_tile_model_predict(&gr, g->ip, k->threshold, g->machine);
	if (fail) {
		pt_group_clear(&gr);
		return why;
	}
	double o = overlap_at(g, k, gr.tsize);
	char tile[64];
	int n = 0;
	for (int t = 0; t < k->ntile && n >= 0 && (size_t)n < sizeof(tile); t++)
		n += snprintf(tile + n, sizeof(tile) - (size_t)n, "%s%lld", t ? "x" : "", (long long)gr.tsize[t]);
	pt_group_clear(&gr);
	if (!pt_group_over(o, k->threshold)) {
		snprintf(looked, sizeof(looked), "overlap %.3f at the tile model's %s for the merged group "
			"(first refused: %s)", o, tile, why);
		k->overlap = o;
		k->looked = true;
		return NULL;
	}
	char *text = looked;
	snprintf(text, sizeof(looked), "%s; at the tile model's %s for the merged group, %.3f", why, tile, o);
	return text;
}

/* second_look for merging gi into child, if that is worth it: NULL
 * (merge), or why not. */
static const char *ask_again(grouper *g, cand *k, const char *why, int gi, int child)
{
	const char *little = little_work(g, gi, child, true);
	if (!little)
		return second_look(g, k, why);
	static char text[900];
	snprintf(text, sizeof(text), "%s; not asked again: %s", why, little);
	return text;
}

static const char *check(grouper *g, cand *k, bool judge);
static const char unmodelled[] = "not modelled";
static char gpu_said[300];       /* gpu_verdict's, for the log */

/* Whether the device model judges the merge k: on a GPU, neither
 * --overlap nor a threshold entry for one of k's stages given. */
static bool model_fuses(const grouper *g, const cand *k)
{
	for (int s = 0; g->gpu_fuse && g->sel.any && s < g->n; s++)
		if (k->in[s] && g->sel.theta[s] >= 0)
			return false;
	return g->gpu_fuse;
}

/* Group gi's predicted time alone on the GPU, its launch included (< 0:
 * not modelled: three or more tiled dims, a reduction). */
static double group_time(grouper *g, int gi)
{
	if (!isnan(g->gtime[gi]))
		return g->gtime[gi];
	double t = -1;
	if (g->nmem[gi] == 1) {
		t = pt_gpu_model_stage_time(g->p->stages[g->mem[gi][0]], g->ip, g->machine);
	} else {
		cand k;
		cand_init(&k, g->n);
		for (int i = 0; i < g->nmem[gi]; i++)
			k.in[g->mem[gi][i]] = true;
		if (!check(g, &k, false)) {
			pt_group gr;
			cand_group(g, &k, true, &gr, NULL, 0);
			if (pt_gpu_model_choose(&gr, g->ip, g->machine, NULL, &t))
				t = -1;
			pt_group_clear(&gr);
		}
		cand_free(&k);
	}
	return g->gtime[gi] = t < 0 ? -1 : t + PT_GPU_LAUNCH_COST;
}

/* On a GPU, the device model's verdict on k, the merge of groups k->gi
 * and k->child: NULL (merge) when the fused kernel's predicted time is
 * within the two kernels' with their launches, else why not;
 * unmodelled when it cannot say (the merge test is then the CPU's).
 * Fusion saves a launch and the device-memory traffic of what the
 * producer's kernel would write and its consumer read back; it costs
 * the overlap's redundant work, lanes left idle on stages at smaller
 * scales, and occupancy where scratchpads fill shared memory. */
static const char *gpu_verdict(grouper *g, cand *k)
{
	double a = group_time(g, k->gi), b = group_time(g, k->child), fused = 0;
	if (a < 0 || b < 0)
		return unmodelled;
	pt_group gr;
	cand_group(g, k, true, &gr, NULL, 0);
	int r = pt_gpu_model_choose(&gr, g->ip, g->machine, NULL, &fused);
	pt_group_clear(&gr);
	if (r > 0)
		return unmodelled;
	if (r < 0)
		return "no tile's scratchpads fit a GPU block";
	fused += PT_GPU_LAUNCH_COST;
	bool merge = fused <= a + b;
	snprintf(gpu_said, sizeof(gpu_said), "the GPU model predicts %.4f ms fused against %.4f ms apart (launches "
		"included)", 1e3 * fused, 1e3 * (a + b));
	k->gpu = merge;
	return merge ? NULL : gpu_said;
}

/* Whether the stages k->in can form a tiled group; fills k, or returns
 * why not.  judge: also hold k to the threshold (and, with the tile
 * model on, model_refuses); a group already merged is only shaped. */
static const char *check(grouper *g, cand *k, bool judge)
{
	int nscratch = 0;
	k->threshold = pt_group_sel_threshold(&g->sel, k->in);
	k->given = pt_group_sel_tiles(&g->sel, k->in);
	for (int i = 0; i < g->n; i++) {
		if (!k->in[i])
			continue;
		if (g->unfit[i]) {
			static char why[300];
			snprintf(why, sizeof(why), "'%s' is %s", g->p->stages[i]->name, g->unfit[i]);
			return why;
		}
		/* a stage nobody reads is a sink of its group too: its tiles
		 * are what the group's tile loops range over */
		k->liveout[i] = g->p->stages[i]->is_output || g->ncons[i] == 0;
		for (int j = 0; j < g->ncons[i]; j++)
			k->liveout[i] |= !k->in[g->cons[i][j]];
		nscratch += !k->liveout[i];
	}
	if (nscratch > PT_RT_SCRATCH_SLOTS)
		return "more scratchpads than the runtime's slots";
	const char *why = shape(g, k);
	if (why)
		return why;
	k->overlap = overlap_at(g, k, k->tsize);
	if (!judge)
		return NULL;
	k->over = false;
	/* the smallest tile, once: the GPU's limit and the model's test */
	smallest sm;
	bool gpu = g->machine && g->machine->kind == PT_TARGET_KIND_GPU;
	if (gpu) {
		smallest_tile(g, k, &sm);
		if ((why = gpu_refuses(g, &sm)))
			return why;
	}
	if (gpu && k->gi >= 0 && model_fuses(g, k)) {
		/* the model's verdict; where it has none, the CPU's tests,
		 * little_work's too (merge_one skipped it) */
		why = gpu_verdict(g, k);
		bool said = why != unmodelled;
		if (!said)
			why = little_work(g, k->gi, k->child, false);
		if (said || why) {
			k->over = false;
			return why;
		}
	}
	if (pt_group_over(k->overlap, k->threshold)) {
		static char over[200];
		snprintf(over, sizeof(over), "overlap %.3f over the threshold %.3f", k->overlap, k->threshold);
		why = over;
	} else if (g->machine) {
		if (!gpu)
			smallest_tile(g, k, &sm);
		why = model_refuses(g, k, &sm);
	}
	k->over = why != NULL;
	return why;
}

static void cand_init(cand *k, int n)
{
	memset(k, 0, sizeof(*k));
	k->gi = k->child = -1;
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

/* Why the stages of groups gi and gj together were refused before, or
 * NULL (the answer does not change while the groups around them do
 * not; the last pass, which logs every refusal, reuses it instead of
 * aligning the set again).  Sets are found by the xor of their stages'
 * keys and compared in full. */
static refusal *was_refused(const grouper *g, int gi, int gj)
{
	uint64_t h = g->ghash[gi] ^ g->ghash[gj];
	int n = g->nmem[gi] + g->nmem[gj];
	for (int r = 0; r < g->nrefused; r++) {
		refusal *f = &g->refused[r];
		if (f->hash != h || f->n != n)
			continue;
		bool same = true;
		for (int k = 0; k < n && same; k++)
			same = g->gid[f->st[k]] == gi || g->gid[f->st[k]] == gj;
		if (same)
			return f;
	}
	return NULL;
}

static void remember_refusal(grouper *g, int gi, int gj, const char *why, cand *shape)
{
	g->refused = realloc(g->refused, sizeof(refusal) * (size_t)(g->nrefused + 1));
	refusal *f = &g->refused[g->nrefused++];
	f->hash = g->ghash[gi] ^ g->ghash[gj];
	f->n = g->nmem[gi] + g->nmem[gj];
	f->st = malloc(sizeof(int) * (size_t)f->n);
	memcpy(f->st, g->mem[gi], sizeof(int) * (size_t)g->nmem[gi]);
	memcpy(f->st + g->nmem[gi], g->mem[gj], sizeof(int) * (size_t)g->nmem[gj]);
	f->why = strdup(why);
	f->shape = shape;
}

/* Moves group gi's stages into group child (lists kept ascending). */
static void move_group(grouper *g, int gi, int child)
{
	int na = g->nmem[gi], nb = g->nmem[child], *a = g->mem[gi], *b = g->mem[child];
	int *m = malloc(sizeof(int) * (size_t)(na + nb)), i = 0, j = 0, k = 0;
	while (i < na || j < nb)
		m[k++] = j == nb || (i < na && a[i] < b[j]) ? a[i++] : b[j++];
	for (i = 0; i < na; i++)
		g->gid[a[i]] = child;
	free(a);
	free(b);
	g->mem[gi] = NULL;
	g->nmem[gi] = 0;
	g->mem[child] = m;
	g->nmem[child] = na + nb;
	g->ghash[child] ^= g->ghash[gi];
	g->ghash[gi] = 0;
	g->gtime[gi] = g->gtime[child] = NAN;
}

/* The one group, other than gi, that reads group gi; -1 if none or more. */
static int only_child(const grouper *g, int gi)
{
	int child = -1;
	for (int i = 0; i < g->nmem[gi]; i++) {
		int s = g->mem[gi][i];
		for (int j = 0; j < g->ncons[s]; j++) {
			int c = g->cons[s][j];
			if (g->gid[c] == gi)
				continue;
			if (child >= 0 && child != g->gid[c])
				return -1;
			child = g->gid[c];
		}
	}
	return child;
}

static double group_size(const grouper *g, int gi)
{
	double n = 0;
	for (int i = 0; i < g->nmem[gi]; i++)
		n += g->size[g->mem[gi][i]];
	return n;
}

static void names(const grouper *g, pt_strbuf *b, int gi)
{
	for (int i = 0; i < g->nmem[gi]; i++)
		pt_sb_printf(b, "%s%s", i ? " " : "", g->p->stages[g->mem[gi][i]]->name);
}

/* With the tile model on: why fusing groups gi and child is not worth
 * its compile time (NULL: it may be).  A group with under 1/LITTLE of
 * the largest stage's points at the estimates (a pyramid's levels from
 * the third down) runs in a few percent of the time at most however
 * it is scheduled (pyramid_blend, interpolate and local_laplacian ran
 * as fast with such groups unfused: bench/results.md), but a fused
 * group costs isl's alignment, its tiled AST and
 * LLVM several times what its stages cost apart: local_laplacian's
 * coarse levels fused into one 22-stage group took 0.1 s of the AST
 * and 0.6 s of LLVM's CPU time for 0.1% of the work.  Asked before
 * check(), so that no alignment is computed for such a candidate.  In
 * the second pass the question is what the merge saves, gi's full
 * buffers: gi needs 1/LITTLE_SECOND of the largest stage's points (a
 * pyramid's level above the second one down).  Smaller, a merge the
 * first pass refused bought nothing measurable and a larger kernel:
 * local_laplacian's fifth level joined its fourth stage by stage (30 ms
 * of `group`), pyramid_blend's fourth joined its third (the kernel
 * 5842 -> 9390 lines, the one LLVM works on longest). */
static const char *little_work(const grouper *g, int gi, int child, bool second)
{
	static char why[200];
	if (second) {
		double pts = group_size(g, gi);
		if (pts * LITTLE_SECOND >= g->largest)
			return NULL;
		snprintf(why, sizeof(why), "too little to gain: %.0f points at the estimates, under 1/%d of "
			"the largest stage's %.0f", pts, LITTLE_SECOND, g->largest);
		return why;
	}
	double pts = group_size(g, gi) + group_size(g, child);
	if (!g->machine || pts * LITTLE >= g->largest)
		return NULL;
	snprintf(why, sizeof(why), "too little work to fuse: %.0f points at the estimates, under 1/%d of "
		"the largest stage's %.0f", pts, LITTLE, g->largest);
	return why;
}

/* Candidates by size, largest first, ties by group id (a stable order). */
typedef struct ranked {
	double size;
	int gi, child;
} ranked;

static int by_size(const void *pa, const void *pb)
{
	const ranked *a = pa, *b = pb;
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return (a->gi > b->gi) - (a->gi < b->gi);
}

/* One pass over the candidates, largest first: merges the first that
 * fits (true), or logs every refusal when none does (false). */
static bool merge_one(grouper *g, bool log_refusals)
{
	ranked *order = malloc(sizeof(ranked) * (size_t)g->n);
	int n = 0;
	for (int gi = 0; gi < g->n; gi++) {
		int child = g->nmem[gi] ? only_child(g, gi) : -1;
		if (child >= 0)
			order[n++] = (ranked){group_size(g, gi), gi, child};
	}
	qsort(order, (size_t)n, sizeof(ranked), by_size);
	bool merged = false;
	for (int i = 0; i < n && !merged; i++) {
		int gi = order[i].gi, child = order[i].child;
		refusal *f = was_refused(g, gi, child);
		const char *cached = f ? f->why : NULL, *why;
		cand k;
		if (f && f->shape && g->second && !log_refusals) {
			/* refused in the first pass for its overlap alone:
			 * asked again, on the shape it had then */
			k = *f->shape;
			free(f->shape);
			f->shape = NULL;
			why = ask_again(g, &k, f->why, gi, child);
			if (why) {
				char *again = strdup(why);   /* why may be f->why */
				free(f->why);
				f->why = again;
				cand_free(&k);
				continue;
			}
		} else {
			if (!log_refusals && cached)
				continue;
			cand_init(&k, g->n);
			k.gi = gi;
			k.child = child;
			for (int j = 0; j < g->nmem[gi]; j++)
				k.in[g->mem[gi][j]] = true;
			for (int j = 0; j < g->nmem[child]; j++)
				k.in[g->mem[child][j]] = true;
			/* on a GPU a small kernel costs its launch: the model
			 * weighs it */
			why = cached ? cached : model_fuses(g, &k) ? NULL : little_work(g, gi, child, false);
			why = why ? why : check(g, &k, true);
			if (why && !cached && k.over && g->second)
				why = ask_again(g, &k, why, gi, child);
		}
		if (!why || log_refusals) {
			pt_sb_printf(&g->log, why ? "refused: [" : k.looked ? "merged in the second pass: [" : "merged: [");
			names(g, &g->log, gi);
			pt_sb_printf(&g->log, "] into [");
			names(g, &g->log, child);
			if (why)
				pt_sb_printf(&g->log, "]: %s\n", why);
			else if (k.looked)
				pt_sb_printf(&g->log, "]: %s\n", looked);
			else if (k.gpu)
				pt_sb_printf(&g->log, "]: %s\n", gpu_said);
			else
				pt_sb_printf(&g->log, "] (overlap %.3f)\n", k.overlap);
		}
		if (!why) {
			move_group(g, gi, child);
			merged = true;
		} else if (!cached && k.over && !g->second && g->machine) {
			cand *keep = malloc(sizeof(*keep));
			*keep = k;
			remember_refusal(g, gi, child, why, keep);
			continue;
		} else if (!cached)
			remember_refusal(g, gi, child, why, NULL);
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
	bool *placed = calloc((size_t)g->n, sizeof(bool));
	for (bool progress = true; progress;) {
		progress = false;
		for (int s = 0; s < g->n; s++) {
			int gi = g->gid[s];
			if (placed[gi])
				continue;
			bool ready = true;
			for (int i = 0; i < g->nmem[gi] && ready; i++) {
				int c = g->mem[gi][i];
				for (int j = 0; j < g->nprods[c] && ready; j++) {
					int pg = g->gid[g->prods[c][j]];
					ready = pg == gi || placed[pg];
				}
			}
			if (ready) {
				placed[gi] = true;
				order[n++] = gi;
				progress = true;
			}
		}
	}
	free(placed);
	*ngroups = n;
	return order;
}

static void fill_group(grouper *g, pt_tiling *t, int gi, int slot)
{
	cand k;
	cand_init(&k, g->n);
	for (int i = 0; i < g->nmem[gi]; i++)
		k.in[g->mem[gi][i]] = true;
	bool tiled = g->nmem[gi] > 1 && !check(g, &k, false);
	cand_group(g, &k, tiled, &t->groups[slot], t, slot);
	cand_free(&k);
}

/* g->sel from opt's entries, an index standing for the last stage of
 * that group under opt without entries (grouped first for it); 0, or
 * -1 with *err. */
static int select_entries(grouper *g, char **err)
{
	const pt_options *opt = g->opt;
	pt_tiling *plain = NULL;
	const char **names = NULL;
	if (pt_group_sel_has_index(opt)) {
		pt_options o = *opt;
		o.groups = NULL;
		o.ngroups = 0;
		plain = pt_group_greedy(g->ctx, g->p, &o, g->machine, g->own_accesses ? NULL : g->accesses, NULL);
		names = calloc((size_t)(plain ? plain->ngroups : 0) + 1, sizeof(*names));
		for (int i = 0; plain && i < plain->ngroups; i++)
			names[i] = pt_group_name(&plain->groups[i]);
	}
	int rc = pt_group_sel_init(&g->sel, g->p, opt, names, plain ? plain->ngroups : 0, err);
	free(names);
	if (plain)
		pt_tiling_free(plain);
	return rc;
}

pt_tiling *pt_group_greedy(isl_ctx *ctx, const pt_pipeline *p, const pt_options *opt,
	const pt_target_desc *machine, pt_poly_access_cache *reads, char **log)
{
	grouper g = { .ctx = ctx, .p = p, .opt = opt, .machine = machine, .accesses = reads, .own_accesses = !reads };
	char *err = NULL;
	if (select_entries(&g, &err)) {
		if (log)
			*log = err;
		else
			free(err);
		return NULL;
	}
	setup(&g);
	while (merge_one(&g, false))
		;
	if (machine) {
		/* the second pass: candidates refused for their overlap alone
		 * are asked again (second_look), once the first pass's merges
		 * are made, so that they join whole groups: asked in the first
		 * pass, local_laplacian's levels fused stage by stage and left
		 * one stage between them over a full buffer, 3-5% slower */
		g.second = true;
		while (merge_one(&g, false))
			;
	}
	merge_one(&g, true);
	pt_tiling *t = calloc(1, sizeof(*t));
	int *order = group_order(&g, &t->ngroups);
	t->groups = calloc((size_t)t->ngroups, sizeof(pt_group));
	t->group_of = calloc((size_t)g.n, sizeof(int));
	t->index_in_group = calloc((size_t)g.n, sizeof(int));
	g.final = true;
	for (int i = 0; i < t->ngroups; i++)
		fill_group(&g, t, order[i], i);
	free(order);
	if (log)
		*log = pt_sb_take(&g.log);
	cleanup(&g);
	pt_group_sel_clear(&g.sel);
	return t;
}

int pt_group_greedy_choices(isl_ctx *ctx, const pt_pipeline *p, const pt_options *opt,
	const pt_target_desc *machine, pt_poly_access_cache *reads, const pt_tiling *t, pt_group_choice *choice)
{
	grouper g = { .ctx = ctx, .p = p, .opt = opt, .machine = machine, .accesses = reads, .own_accesses = !reads };
	char *err = NULL;
	if (select_entries(&g, &err)) {
		free(err);
		return -1;
	}
	pt_group_sel_choices(&g.sel, t, choice);
	pt_group_sel_clear(&g.sel);
	return 0;
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
		if (g->tsteps)
			pt_sb_printf(&b, " (time tiled: blocks of %d steps)", g->tsteps);
		pt_sb_printf(&b, "\n  tiles:");
		for (int k = 0; k < g->ntile; k++)
			pt_sb_printf(&b, "%s %lld (%s)", k ? " x" : "", (long long)g->tsize[k], pt_group_dim_name(g, g->tdim[k]));
		pt_sb_printf(&b, "\n");
		for (int s = 0; s < g->nstages; s++) {
			if (g->liveout[s] && !g->tsteps)
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
