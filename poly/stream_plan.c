/* stream_plan.c: a run whose copies to and from a GPU can go in chunks
 * of tile rows, overlapped with the kernel (stream_plan.h). */
#include <stdlib.h>
#include <string.h>

#include <isl/constraint.h>
#include <isl/id.h>
#include <isl/local_space.h>
#include <isl/space.h>
#include <isl/union_map.h>

#include "stream_plan.h"

/* T (tile coordinates -> elements) at the tiles whose coordinate along
 * tile dim 0 lies in [PT_STREAM_FIRST, PT_STREAM_LAST]: the elements, a
 * set over the params and those two. */
static __isl_give isl_set *chunk_elements(__isl_take isl_map *t)
{
	isl_ctx *ctx = isl_map_get_ctx(t);
	isl_space *ps = isl_space_params_alloc(ctx, 2);
	ps = isl_space_set_dim_id(ps, isl_dim_param, 0, isl_id_alloc(ctx, PT_STREAM_FIRST, NULL));
	ps = isl_space_set_dim_id(ps, isl_dim_param, 1, isl_id_alloc(ctx, PT_STREAM_LAST, NULL));
	t = isl_map_align_params(t, ps);
	isl_space *sp = isl_space_domain(isl_map_get_space(t));
	isl_set *rows = isl_set_universe(isl_space_copy(sp));
	int first = isl_space_find_dim_by_name(sp, isl_dim_param, PT_STREAM_FIRST);
	int last = isl_space_find_dim_by_name(sp, isl_dim_param, PT_STREAM_LAST);
	isl_local_space *ls = isl_local_space_from_space(sp);
	/* t0 - first >= 0, last - t0 >= 0 */
	isl_constraint *c = isl_constraint_alloc_inequality(isl_local_space_copy(ls));
	c = isl_constraint_set_coefficient_si(c, isl_dim_set, 0, 1);
	c = isl_constraint_set_coefficient_si(c, isl_dim_param, first, -1);
	rows = isl_set_add_constraint(rows, c);
	c = isl_constraint_alloc_inequality(ls);
	c = isl_constraint_set_coefficient_si(c, isl_dim_set, 0, -1);
	c = isl_constraint_set_coefficient_si(c, isl_dim_param, last, 1);
	rows = isl_set_add_constraint(rows, c);
	return isl_set_coalesce(isl_map_range(isl_map_intersect_domain(t, rows)));
}

/* Whether the box around w (its extent along each dim on its own) holds
 * no point that w lacks: copying the box back writes only w. */
static bool box_is_exact(__isl_keep isl_set *w)
{
	isl_size n = isl_set_dim(w, isl_dim_set);
	isl_set *box = NULL;
	for (int d = 0; d < n; d++) {
		isl_set *p = isl_set_project_out(isl_set_copy(w), isl_dim_set, (unsigned)d + 1, (unsigned)(n - d - 1));
		p = isl_set_project_out(p, isl_dim_set, 0, (unsigned)d);
		box = box ? isl_set_flat_product(box, p) : p;
	}
	if (!box)
		return false;
	isl_set *plain = isl_set_reset_tuple_id(isl_set_copy(w));
	isl_bool sub = isl_set_is_subset(box, plain);
	isl_set_free(box);
	isl_set_free(plain);
	return sub == isl_bool_true;
}

/* Buffer i's chunk boxes from w (taken). */
static bool set_box(pt_stream *s, int i, __isl_take isl_set *w, bool exact)
{
	bool ok = w && (!exact || box_is_exact(w));
	for (int d = 0; ok && d < s->ndim[i]; d++) {
		s->lo[i][d] = isl_set_dim_min(isl_set_copy(w), d);
		s->hi[i][d] = isl_set_dim_max(isl_set_copy(w), d);
		ok = s->lo[i][d] && s->hi[i][d];
	}
	isl_set_free(w);
	return ok;
}

/* The tiled writes of stage st: tile coordinates -> its elements. */
typedef struct writes_of {
	const pt_model *m;
	const pt_stage *st;
	int ntile;
	isl_map *t;
	bool untiled;
} writes_of;

static isl_stat add_write(__isl_take isl_map *map, void *user)
{
	writes_of *w = user;
	const char *name = isl_map_get_tuple_name(map, isl_dim_out);
	isl_id *sid = isl_map_get_tuple_id(map, isl_dim_in);
	const pt_stmt *st = pt_model_stmt(w->m, sid);
	isl_id_free(sid);
	if (!name || strcmp(name, w->st->name) || !st) {
		isl_map_free(map);
		return isl_stat_ok;
	}
	if (st->ntile != w->ntile) {
		w->untiled = true;
		isl_map_free(map);
		return isl_stat_ok;
	}
	isl_size nin = isl_map_dim(map, isl_dim_in);
	map = isl_map_project_out(map, isl_dim_in, (unsigned)w->ntile, (unsigned)(nin - w->ntile));
	map = isl_map_set_tuple_name(map, isl_dim_in, "tile");
	w->t = w->t ? isl_map_union(w->t, map) : map;
	return isl_stat_ok;
}

static bool in_kernel(const pt_kernel *k, const pt_stage *s)
{
	for (int i = 0; i < k->nstages; i++)
		if (k->stages[i] == s)
			return true;
	return false;
}

/* Whether kernel k reads an image. */
static bool reads_image(const pt_kernel *k)
{
	for (int i = 0; i < k->ninputs; i++)
		if (!k->inputs[i].stage)
			return true;
	return false;
}

/* The kernel whose launch streams, or -1: the run's last kernel, tiled,
 * reading images only per tile and writing the outputs and nothing
 * else, after kernels that read no image and write no output (camera
 * pipe's lookup tables before its one fused kernel), whose arrays are
 * whole in device memory before it starts. */
static int streamed_kernel(const pt_kernels *ks, const pt_pipeline *p)
{
	const pt_kernel *k = ks->n > 0 ? &ks->k[ks->n - 1] : NULL;
	if (!k || !k->group || k->ngrid < 1)
		return -1;
	for (int i = 0; i < k->ninputs; i++)
		if (!k->inputs[i].stage && !k->inputs[i].per_tile)
			return -1;
	for (int i = 0; i < k->noutputs; i++)
		if (!k->outputs[i]->is_output)
			return -1;
	for (int i = 0; i < p->nstages; i++)
		if (p->stages[i]->is_output && !in_kernel(k, p->stages[i]))
			return -1;
	for (int j = 0; j + 1 < ks->n; j++)
		if (reads_image(&ks->k[j]))
			return -1;
	return ks->n - 1;
}

static int count_buffers(const pt_pipeline *p)
{
	int n = p->nimages;
	for (int i = 0; i < p->nstages; i++)
		n += p->stages[i]->is_output;
	return n;
}

/* Image i's chunk boxes: its per-tile reads (none read: no box). */
static bool image_box(pt_stream *s, const pt_kernel *k, const pt_image *im, int i)
{
	for (int j = 0; j < k->ninputs; j++)
		if (!strcmp(k->inputs[j].array, im->name))
			return set_box(s, i, chunk_elements(isl_map_copy(k->inputs[j].per_tile)), false);
	return true;
}

static bool output_box(pt_stream *s, const pt_kernel *k, const pt_model *m, const pt_stage *st, int i)
{
	writes_of w = { m, st, k->ngrid, NULL, false };
	if (isl_union_map_foreach_map(m->writes, add_write, &w) < 0 || w.untiled || !w.t) {
		isl_map_free(w.t);
		return false;
	}
	return set_box(s, i, chunk_elements(w.t), true);
}

pt_stream *pt_stream_build(const pt_kernels *ks, const pt_model *m)
{
	const pt_pipeline *p = m->p;
	int kk = streamed_kernel(ks, p);
	if (kk < 0)
		return NULL;
	const pt_kernel *k = &ks->k[kk];
	pt_stream *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->kernel = kk;
	int n = count_buffers(p);
	s->nbuf = n;
	s->ndim = calloc((size_t)n + 1, sizeof(*s->ndim));
	s->output = calloc((size_t)n + 1, sizeof(*s->output));
	s->lo = calloc((size_t)n + 1, sizeof(*s->lo));
	s->hi = calloc((size_t)n + 1, sizeof(*s->hi));
	bool ok = s->ndim && s->output && s->lo && s->hi;
	int i = 0;
	for (int j = 0; ok && j < p->nimages; j++, i++) {
		s->ndim[i] = p->images[j]->ndim;
		ok = image_box(s, k, p->images[j], i);
	}
	for (int j = 0; ok && j < p->nstages; j++) {
		const pt_stage *st = p->stages[j];
		if (!st->is_output)
			continue;
		s->ndim[i] = st->ndim;
		s->output[i] = true;
		ok = output_box(s, k, m, st, i++);
	}
	if (!ok) {
		isl_ctx *ctx = isl_set_get_ctx(m->context);
		if (isl_ctx_last_error(ctx) != isl_error_none)
			isl_ctx_reset_error(ctx);
		pt_stream_free(s);
		return NULL;
	}
	return s;
}

void pt_stream_free(pt_stream *s)
{
	if (!s)
		return;
	for (int i = 0; s->lo && s->hi && i < s->nbuf; i++)
		for (int d = 0; d < PT_MAX_DIMS; d++) {
			isl_pw_aff_free(s->lo[i][d]);
			isl_pw_aff_free(s->hi[i][d]);
		}
	free(s->lo);
	free(s->hi);
	free(s->ndim);
	free(s->output);
	free(s);
}

__isl_give isl_ast_node *pt_stream_loop(__isl_keep isl_ast_node *tree)
{
	isl_ast_node *n = isl_ast_node_copy(tree);
	if (n && isl_ast_node_get_type(n) == isl_ast_node_block) {
		/* kernels before it: the last piece */
		isl_ast_node_list *l = isl_ast_node_block_get_children(n);
		isl_size k = isl_ast_node_list_n_ast_node(l);
		isl_ast_node_free(n);
		n = k > 0 ? isl_ast_node_list_get_at(l, k - 1) : NULL;
		isl_ast_node_list_free(l);
	}
	while (n && isl_ast_node_get_type(n) == isl_ast_node_mark) {
		isl_ast_node *c = isl_ast_node_mark_get_node(n);
		isl_ast_node_free(n);
		n = c;
	}
	if (n && isl_ast_node_get_type(n) != isl_ast_node_for) {
		isl_ast_node_free(n);
		return NULL;
	}
	return n;
}

typedef struct in_streamed {
	const pt_kernels *ks;
	const pt_model *m;
	bool found;
} in_streamed;

static isl_bool find_streamed(__isl_keep isl_ast_node *node, void *user)
{
	in_streamed *f = user;
	if (f->found || isl_ast_node_get_type(node) != isl_ast_node_user)
		return f->found ? isl_bool_false : isl_bool_true;
	const pt_stmt *st = pt_model_stmt_of_node(f->m, node);
	f->found = st && f->ks->of_stage[st->stage->id] == f->ks->stream->kernel;
	return isl_bool_true;
}

/* Whether node holds a statement of the streamed kernel. */
static bool holds_streamed(const pt_kernels *ks, const pt_model *m, __isl_keep isl_ast_node *node)
{
	in_streamed f = { ks, m, false };
	isl_ast_node_foreach_descendant_top_down(node, &find_streamed, &f);
	return f.found;
}

bool pt_stream_runs(const pt_kernels *ks, const pt_model *m, __isl_keep isl_ast_node *tree)
{
	if (!ks || !ks->stream || !tree)
		return false;
	/* the streamed kernel's launch: the last piece, and no other (a
	 * launch of it before would read buffers not copied yet) */
	isl_ast_node *n = pt_stream_loop(tree);
	bool ok = n && holds_streamed(ks, m, n);
	isl_ast_node_free(n);
	if (ok && isl_ast_node_get_type(tree) == isl_ast_node_block) {
		isl_ast_node_list *l = isl_ast_node_block_get_children(tree);
		isl_size k = isl_ast_node_list_n_ast_node(l);
		for (int i = 0; ok && i + 1 < k; i++) {
			isl_ast_node *c = isl_ast_node_list_get_at(l, i);
			ok = !holds_streamed(ks, m, c);
			isl_ast_node_free(c);
		}
		isl_ast_node_list_free(l);
	}
	return ok;
}
