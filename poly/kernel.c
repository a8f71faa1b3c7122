/* kernel.c: the kernel descriptions of kernel.h, from the model. */
#include <stdlib.h>
#include <string.h>

#include <isl/id.h>
#include <isl/printer.h>
#include <isl/union_map.h>
#include <isl/union_set.h>

#include "diag.h"
#include "kernel.h"
#include "stream_plan.h"
#include "defined_box.h"

/* The stages' nests inside a tile (a fused run is one nest), and where
 * a nest must wait for the scratchpads earlier nests wrote. */
static void nests_and_barriers(pt_kernel *k, const pt_model *m, int gi)
{
	int n = m->p->nstages, *fused = malloc(sizeof(int) * ((size_t)n + 1));
	k->nest = calloc((size_t)k->nstages + 1, sizeof(int));
	k->barrier = calloc((size_t)k->nstages + 1, sizeof(bool));
	if (k->group)
		pt_poly_stmts_fused_nests(m->stmts, m->tiling, gi, fused);
	else
		for (int i = 0; i < n; i++)
			fused[i] = -1;
	int prev = -2;
	for (int i = 0; i < k->nstages; i++) {
		int f = fused[k->stages[i]->id];
		if (i == 0 || f < 0 || f != prev)
			k->nnests++;
		k->nest[i] = k->nnests - 1;
		prev = f;
	}
	for (int i = 0; i < k->nstages; i++)
		for (int j = 0; j < i && k->group; j++)
			if (k->nest[j] < k->nest[i] && !k->group->liveout[j] &&
			    pt_stage_reads(k->stages[i], k->stages[j]))
				k->barrier[k->nest[i]] = true;
	free(fused);
}

static void grid_and_block(pt_kernel *k, const pt_model *m)
{
	const pt_group *g = k->group;
	isl_ctx *ctx = isl_set_get_ctx(m->context);
	k->block = calloc((size_t)k->nstages + 1, sizeof(*k->block));
	for (int i = 0; i < k->nstages; i++)
		for (int d = 0; d < k->stages[i]->ndim; d++)
			k->block[i][d] = g ? pt_group_scratch_extent(g, i, d) : -1;
	if (!g)
		return;
	k->ngrid = g->ntile;
	for (int t = 0; t < g->ntile; t++) {
		isl_set *r = isl_set_intersect_params(pt_tile_range(ctx, m->p, g, t), isl_set_copy(m->context));
		k->grid_lo[t] = isl_pw_aff_gist_params(isl_pw_aff_coalesce(isl_set_dim_min(isl_set_copy(r), 0)),
			isl_set_copy(m->context));
		k->grid_hi[t] = isl_pw_aff_gist_params(isl_pw_aff_coalesce(isl_set_dim_max(r, 0)),
			isl_set_copy(m->context));
	}
	int *nest = malloc(sizeof(int) * ((size_t)m->p->nstages + 1));
	for (int i = 0; i < m->p->nstages; i++)
		nest[i] = -1;
	for (int i = 0; i < k->nstages; i++)
		if ((i > 0 && k->nest[i - 1] == k->nest[i]) ||
		    (i + 1 < k->nstages && k->nest[i + 1] == k->nest[i]))
			nest[k->stages[i]->id] = k->nest[i];
	k->scratch = calloc((size_t)g->nstages + 1, sizeof(*k->scratch));
	for (int i = 0; i < g->nstages; i++) {
		/* a time-tiled stage is live-out and, between the steps that
		 * end its blocks, in a scratchpad of two steps */
		if (g->liveout[i] && !g->tsteps)
			continue;
		pt_kernel_scratch *s = &k->scratch[k->nscratch++];
		s->stage = g->stages[i];
		s->si = i;
		for (int d = 0; d < s->stage->ndim; d++)
			s->extent[d] = k->block[i][d];
		if (g->tsteps)
			s->extent[0] = g->tsteps < 2 ? g->tsteps : 2;
		s->scalar = !g->tsteps && pt_group_stage_is_scalar(g, i, nest);
	}
	free(nest);
}

/* Collects the kernel's reads of arrays it does not write. */
typedef struct collect {
	pt_kernel *k;
	const pt_model *m;
} collect;

static bool in_kernel(const pt_kernel *k, const char *name)
{
	for (int i = 0; i < k->nstages; i++)
		if (!strcmp(k->stages[i]->name, name))
			return true;
	return false;
}

static pt_kernel_input *input_of(pt_kernel *k, const pt_pipeline *p, const char *name)
{
	for (int i = 0; i < k->ninputs; i++)
		if (!strcmp(k->inputs[i].array, name))
			return &k->inputs[i];
	pt_kernel_input *in = &k->inputs[k->ninputs++];
	memset(in, 0, sizeof(*in));
	in->stage = pt_pipeline_find_stage(p, name);
	for (int i = 0; !in->stage && i < p->nimages; i++)
		if (!strcmp(p->images[i]->name, name))
			in->array = p->images[i]->name;
	if (in->stage)
		in->array = in->stage->name;
	return in;
}

static isl_stat add_read(__isl_take isl_map *map, void *user)
{
	collect *c = user;
	const char *name = isl_map_get_tuple_name(map, isl_dim_out);
	isl_id *sid = isl_map_get_tuple_id(map, isl_dim_in);
	const pt_stmt *st = pt_model_stmt(c->m, sid);
	isl_id_free(sid);
	if (!name || !st || in_kernel(c->k, name)) {
		isl_map_free(map);
		return isl_stat_ok;
	}
	pt_kernel_input *in = input_of(c->k, c->m->p, name);
	isl_set *fp = isl_map_range(isl_map_copy(map));
	in->footprint = in->footprint ? isl_set_union(in->footprint, fp) : fp;
	if (st->ntile > 0 && c->k->ngrid == st->ntile) {
		isl_size nin = isl_map_dim(map, isl_dim_in);
		isl_map *t = isl_map_project_out(map, isl_dim_in, (unsigned)st->ntile, (unsigned)(nin - st->ntile));
		t = isl_map_set_tuple_name(t, isl_dim_in, "tile");
		in->per_tile = in->per_tile ? isl_map_union(in->per_tile, t) : t;
	} else {
		isl_map_free(map);
	}
	return isl_stat_ok;
}

/* s, as its simple hull (the bounding constraints of its pieces) when
 * that is exact (a union of reads is often a box that coalescing leaves
 * in pieces), else coalesced.  Not the convex hull: it took minutes on
 * camera_pipe's strided reads. */
static __isl_give isl_set *simplest(__isl_take isl_set *s)
{
	s = isl_set_coalesce(s);
	if (!s || isl_set_n_basic_set(s) <= 1)
		return s;
	isl_set *hull = isl_set_from_basic_set(isl_set_simple_hull(isl_set_copy(s)));
	if (isl_set_is_equal(hull, s) == isl_bool_true) {
		isl_set_free(s);
		return hull;
	}
	isl_set_free(hull);
	return s;
}

/* isl operations allowed to simplify one footprint: every app's and
 * tests/codegen/pipes' footprints are written the same under 200000
 * (camera_pipe's need more than 50000); a factored reduction's read at a
 * clamped (u * 7 + v) % 64 took 45 s unbounded (the gist's and the
 * simple hull's work on pieces with existential variables), 2 s with
 * this (tests/codegen/pipes/rfactor_mod.pipe). */
#define SIMPLIFY_OPS 500000ul

/* s gisted in context and made simplest, or s as it is (the same set,
 * less simply written) where that exceeds SIMPLIFY_OPS. */
static __isl_give isl_set *simplified(__isl_take isl_set *s, __isl_keep isl_set *context)
{
	isl_ctx *ctx = isl_set_get_ctx(context);
	isl_set *plain = isl_set_copy(s);
	unsigned long old = isl_ctx_get_max_operations(ctx);
	isl_ctx_set_max_operations(ctx, SIMPLIFY_OPS);
	isl_ctx_reset_operations(ctx);
	s = simplest(isl_set_gist_params(s, isl_set_copy(context)));
	isl_ctx_set_max_operations(ctx, old);
	if (!s && isl_ctx_last_error(ctx) == isl_error_quota) {
		isl_ctx_reset_error(ctx);
		return plain;
	}
	isl_set_free(plain);
	return s;
}

static bool inputs(pt_kernel *k, const pt_model *m)
{
	isl_ctx *ctx = isl_set_get_ctx(m->context);
	isl_union_set *dom = isl_union_set_empty(isl_space_params_alloc(ctx, 0));
	for (int i = 0; i < m->stmts->n; i++)
		for (int j = 0; j < k->nstages; j++)
			if (m->stmts->s[i].stage == k->stages[j])
				dom = isl_union_set_add_set(dom, isl_set_copy(m->stmts->s[i].domain));
	isl_union_map *r = isl_union_map_intersect_domain(isl_union_map_copy(m->reads), dom);
	k->inputs = calloc((size_t)(m->p->nstages + m->p->nimages) + 1, sizeof(*k->inputs));
	collect c = { k, m };
	isl_stat ok = isl_union_map_foreach_map(r, add_read, &c);
	isl_union_map_free(r);
	for (int i = 0; i < k->ninputs; i++) {
		pt_kernel_input *in = &k->inputs[i];
		in->footprint = simplified(in->footprint, m->context);
		if (in->per_tile)
			in->per_tile = isl_set_unwrap(simplified(isl_map_wrap(in->per_tile), m->context));
		if (!in->footprint)
			return false;
	}
	k->outputs = calloc((size_t)k->nstages + 1, sizeof(*k->outputs));
	for (int i = 0; i < k->nstages; i++)
		if (!k->group || k->group->liveout[i])
			k->outputs[k->noutputs++] = k->stages[i];
	return ok == isl_stat_ok;
}

/* A stable order for the inputs: images first, then stages, by id. */
static int input_rank(const pt_kernel_input *in, const pt_pipeline *p)
{
	if (in->stage)
		return p->nimages + in->stage->id;
	for (int i = 0; i < p->nimages; i++)
		if (p->images[i]->name == in->array)
			return i;
	return 0;
}

static void sort_inputs(pt_kernel *k, const pt_pipeline *p)
{
	for (int i = 1; i < k->ninputs; i++)
		for (int j = i; j > 0 && input_rank(&k->inputs[j], p) < input_rank(&k->inputs[j - 1], p); j--) {
			pt_kernel_input t = k->inputs[j];
			k->inputs[j] = k->inputs[j - 1];
			k->inputs[j - 1] = t;
		}
}

/* The boxes of the outputs that define only some of their points. */
static void defined_boxes(pt_kernels *ks, const pt_model *m)
{
	const pt_pipeline *p = m->p;
	ks->nstages_boxed = p->nstages;
	ks->defined_lo = calloc((size_t)p->nstages + 1, sizeof(*ks->defined_lo));
	ks->defined_hi = calloc((size_t)p->nstages + 1, sizeof(*ks->defined_hi));
	for (int i = 0; i < p->nstages; i++) {
		const pt_stage *s = p->stages[i];
		bool all = false;
		for (int c = 0; c < s->ncases; c++)
			all = all || !s->cases[c].cond;
		if (s->is_output && !all)
			pt_poly_defined_box(isl_set_get_ctx(m->context), p, s, ks->defined_lo[s->id], ks->defined_hi[s->id]);
	}
}

pt_kernels *pt_kernels_build(const pt_model *m)
{
	const pt_pipeline *p = m->p;
	const pt_tiling *tl = m->tiling;
	pt_kernels *ks = calloc(1, sizeof(*ks));
	int n = tl ? tl->ngroups : p->nstages;
	ks->k = calloc((size_t)n + 1, sizeof(*ks->k));
	ks->of_stage = calloc((size_t)p->nstages + 1, sizeof(int));
	bool ok = true;
	for (int gi = 0; gi < n && ok; gi++) {
		pt_kernel *k = &ks->k[ks->n++];
		k->index = gi;
		if (tl) {
			const pt_group *g = &tl->groups[gi];
			k->group = g->ntile > 0 ? g : NULL;
			k->nstages = g->nstages;
			k->stages = malloc(sizeof(*k->stages) * (size_t)g->nstages);
			memcpy(k->stages, g->stages, sizeof(*k->stages) * (size_t)g->nstages);
		} else {
			k->nstages = 1;
			k->stages = malloc(sizeof(*k->stages));
			k->stages[0] = p->stages[gi];
		}
		for (int i = 0; i < k->nstages; i++)
			ks->of_stage[k->stages[i]->id] = gi;
		nests_and_barriers(k, m, gi);
		grid_and_block(k, m);
		ok = inputs(k, m);
		sort_inputs(k, p);
	}
	if (!ok) {
		pt_kernels_free(ks);
		return NULL;
	}
	defined_boxes(ks, m);
	ks->stream = pt_stream_build(ks, m);
	return ks;
}

void pt_kernels_free(pt_kernels *ks)
{
	if (!ks)
		return;
	for (int i = 0; i < ks->n; i++) {
		pt_kernel *k = &ks->k[i];
		for (int t = 0; t < k->ngrid; t++) {
			isl_pw_aff_free(k->grid_lo[t]);
			isl_pw_aff_free(k->grid_hi[t]);
		}
		for (int j = 0; j < k->ninputs; j++) {
			isl_set_free(k->inputs[j].footprint);
			isl_map_free(k->inputs[j].per_tile);
		}
		isl_ast_node_free(k->ast);
		free(k->stages);
		free(k->block);
		free(k->scratch);
		free(k->nest);
		free(k->barrier);
		free(k->inputs);
		free(k->outputs);
	}
	for (int i = 0; ks->defined_lo && i < ks->nstages_boxed; i++)
		for (int d = 0; d < PT_MAX_DIMS; d++) {
			isl_pw_aff_free(ks->defined_lo[i][d]);
			isl_pw_aff_free(ks->defined_hi[i][d]);
		}
	free(ks->defined_lo);
	free(ks->defined_hi);
	pt_stream_free(ks->stream);
	free(ks->k);
	free(ks->of_stage);
	free(ks);
}

const pt_kernel *pt_kernels_of_group(const pt_kernels *ks, const pt_group *g)
{
	for (int i = 0; ks && i < ks->n; i++)
		if (ks->k[i].group == g)
			return &ks->k[i];
	return NULL;
}

int pt_kernel_scratch_index(const pt_kernel *k, int si)
{
	for (int i = 0; i < k->nscratch; i++)
		if (k->scratch[i].si == si)
			return i;
	return -1;
}

/* ---- the dump ---- */

static void extents(pt_strbuf *b, const int64_t *ext, int ndim)
{
	pt_sb_printf(b, "[");
	for (int d = 0; d < ndim; d++) {
		if (ext[d] < 0)
			pt_sb_printf(b, "%sbox", d ? ", " : "");
		else
			pt_sb_printf(b, "%s%lld", d ? ", " : "", (long long)ext[d]);
	}
	pt_sb_printf(b, "]");
}

static void isl_text(pt_strbuf *b, isl_ctx *ctx, isl_set *s, isl_map *m, isl_pw_aff *pa)
{
	isl_printer *pr = isl_printer_to_str(ctx);
	if (s)
		pr = isl_printer_print_set(pr, s);
	else if (m)
		pr = isl_printer_print_map(pr, m);
	else
		pr = isl_printer_print_pw_aff(pr, pa);
	char *t = isl_printer_get_str(pr);
	isl_printer_free(pr);
	pt_sb_printf(b, "%s", t ? t : "?");
	free(t);
}

static void kernel_text(pt_strbuf *b, const pt_kernel *k, isl_ctx *ctx)
{
	pt_sb_printf(b, "kernel %d:", k->index);
	for (int i = 0; i < k->nstages; i++)
		pt_sb_printf(b, " %s", k->stages[i]->name);
	pt_sb_printf(b, "\n");
	if (!k->ngrid)
		pt_sb_printf(b, "  grid: none (loop nests over the stages' domains)\n");
	for (int t = 0; t < k->ngrid; t++) {
		pt_sb_printf(b, "  grid %d: %lld-point tiles of %s from ", t, (long long)k->group->tsize[t],
			pt_group_dim_name(k->group, k->group->tdim[t]));
		isl_text(b, ctx, NULL, NULL, k->grid_lo[t]);
		pt_sb_printf(b, " to ");
		isl_text(b, ctx, NULL, NULL, k->grid_hi[t]);
		pt_sb_printf(b, "\n");
	}
	for (int i = 0; k->ngrid && i < k->nstages; i++) {
		pt_sb_printf(b, "  block %s: ", k->stages[i]->name);
		extents(b, k->block[i], k->stages[i]->ndim);
		pt_sb_printf(b, "\n");
	}
	for (int i = 0; i < k->nscratch; i++) {
		const pt_kernel_scratch *s = &k->scratch[i];
		pt_sb_printf(b, "  scratch %s: ", s->stage->name);
		if (s->scalar)
			pt_sb_printf(b, "a scalar\n");
		else {
			extents(b, s->extent, s->stage->ndim);
			pt_sb_printf(b, " x %zu bytes\n", pt_type_size((pt_type)s->stage->type));
		}
	}
	if (k->ngrid) {
		pt_sb_printf(b, "  nests:");
		for (int n = 0; n < k->nnests; n++) {
			pt_sb_printf(b, "%s%s", n ? " |" : "", k->barrier[n] ? " barrier" : "");
			for (int i = 0; i < k->nstages; i++)
				if (k->nest[i] == n)
					pt_sb_printf(b, " %s", k->stages[i]->name);
		}
		pt_sb_printf(b, "\n");
	}
	for (int i = 0; i < k->ninputs; i++) {
		pt_sb_printf(b, "  reads %s: ", k->inputs[i].array);
		isl_text(b, ctx, k->inputs[i].footprint, NULL, NULL);
		pt_sb_printf(b, "\n");
		if (k->inputs[i].per_tile) {
			pt_sb_printf(b, "    per tile: ");
			isl_text(b, ctx, NULL, k->inputs[i].per_tile, NULL);
			pt_sb_printf(b, "\n");
		}
	}
	pt_sb_printf(b, "  writes:");
	for (int i = 0; i < k->noutputs; i++)
		pt_sb_printf(b, " %s", k->outputs[i]->name);
	pt_sb_printf(b, "\n");
}

char *pt_kernels_str(const pt_kernels *ks, isl_ctx *ctx)
{
	pt_strbuf b = {0};
	for (int i = 0; i < ks->n; i++)
		kernel_text(&b, &ks->k[i], ctx);
	return pt_sb_take(&b);
}
