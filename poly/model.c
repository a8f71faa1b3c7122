/* model.c: statements, accesses and flow dependences of a pipeline, and
 * the parallel-loop test in schedule space. */
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <isl/id.h>
#include <isl/map.h>
#include <isl/printer.h>
#include <isl/space.h>

#include "access.h"
#include "isl_expr.h"
#include "model.h"

/* What collects one stage's accesses into its statements. */
typedef struct collect {
	pt_model *m;
	const pt_stage *s;
	int first, last;           /* the stage's statements: [first, last) */
} collect;

/* An access relation moved onto statement t: its evaluation space's
 * result variables dropped for an update (they are unconstrained there),
 * the statement's id on the domain, restricted to t's instances (out of
 * tiles: pt_model_tile moves them in). */
static __isl_give isl_union_map *on_stmt(__isl_keep isl_map *acc, const pt_stmt *t)
{
	isl_map *m = isl_map_copy(acc);
	if (t->kind == PT_STMT_UPDATE)
		m = isl_map_project_out(m, isl_dim_in, 0, (unsigned)t->stage->ndim);
	m = isl_map_reset_tuple_id(m, isl_dim_in);
	m = isl_map_set_tuple_id(m, isl_dim_in, isl_set_get_tuple_id(t->domain));
	m = isl_map_intersect_domain(m, isl_set_copy(t->domain));
	return isl_union_map_from_map(m);
}

static bool add_access(const pt_poly_access *a, void *user)
{
	collect *c = user;
	pt_model *m = c->m;
	isl_map *acc = pt_poly_access_map_where(a);
	for (int i = c->first; i < c->last; i++) {
		const pt_stmt *t = &m->stmts->s[i];
		if (t->kind == PT_STMT_INIT)
			continue;
		/* an update's accesses are those of its own case */
		if (t->kind == PT_STMT_UPDATE && a->case_index != t->ncase)
			continue;
		isl_union_map *u = on_stmt(acc, t);
		if (a->is_target)
			m->writes = isl_union_map_union(m->writes, isl_union_map_copy(u));
		m->reads = isl_union_map_union(m->reads, u);
	}
	isl_map_free(acc);
	return true;
}

/* The write of a function or init instance: its own point of the stage. */
static __isl_give isl_union_map *own_point(const pt_stmt *t)
{
	isl_map *m = isl_map_identity(isl_space_map_from_set(isl_set_get_space(t->domain)));
	m = isl_map_set_tuple_name(m, isl_dim_out, t->stage->name);
	return isl_union_map_from_map(isl_map_intersect_domain(m, isl_set_copy(t->domain)));
}

static bool collect_accesses(isl_ctx *ctx, pt_model *m)
{
	const pt_stmts *st = m->stmts;
	for (int i = 0; i < st->n;) {
		collect c = {m, st->s[i].stage, i, i};
		while (c.last < st->n && st->s[c.last].stage == c.s)
			c.last++;
		for (int k = c.first; k < c.last; k++)
			if (st->s[k].kind != PT_STMT_UPDATE)
				m->writes = isl_union_map_union(m->writes, own_point(&st->s[k]));
		if (!pt_poly_walk_recording(m->accesses, c.s, add_access, &c))
			return false;
		i = c.last;
	}
	return true;
}

/* The pairs a -> b of statements of one reduction that its program
 * order allows: init before updates; update k at reduction point r before
 * update m at r' when (r, k) precedes (r', m). */
static __isl_give isl_map *in_order(__isl_take isl_map *pairs, const pt_stmt *a, const pt_stmt *b)
{
	if (a->kind == PT_STMT_INIT)
		return b->kind == PT_STMT_INIT ? isl_map_subtract(pairs, isl_map_copy(pairs)) : pairs;
	if (b->kind == PT_STMT_INIT)
		return isl_map_subtract(pairs, isl_map_copy(pairs));
	isl_space *sp = isl_set_get_space(a->domain);
	isl_map *order = a->ncase < b->ncase ? isl_map_lex_le(sp) : isl_map_lex_lt(sp);
	order = isl_map_set_tuple_id(order, isl_dim_out, isl_set_get_tuple_id(b->domain));
	return isl_map_intersect(pairs, order);
}

/* Flow dependences: each element's writer to each of its readers.  Every
 * point of a function is written once (a scratchpad's once per tile),
 * before any read of it (the language's rules), so this join is exact
 * there and needs none of isl_union_access_info_compute_flow's kill
 * analysis, which took seconds on 3-D pipelines of clamped reads; the
 * writes of one reduction point (its init, then its updates) are kept in
 * program order.  A statement instance reading what it writes (an update)
 * depends on nothing by that.
 *
 * With own_nests, only the pairs within one loop nest of the built-in
 * schedules (statements.h), one stage's (a tiled group's: none).  Nests run
 * one after another, so a pair across two is carried by no loop and the
 * parallel test never needs it; joining each nest's accesses on their
 * own kept local_laplacian's 82 stages from a 0.2 s join of everything. */
static int stmt_index(const pt_model *m, const char *name);
static void index_names(pt_model *m);

/* The statement whose instances are map's domain, or NULL (map freed
 * then, for the isl_union_map_foreach_map callbacks to fail with). */
static const pt_stmt *stmt_of(const pt_model *m, isl_map **map)
{
	int k = stmt_index(m, isl_map_get_tuple_name(*map, isl_dim_in));
	if (k >= 0)
		return &m->stmts->s[k];
	*map = isl_map_free(*map);
	return NULL;
}

/* The loop nest statement t runs in under the built-in schedules: its
 * stage's (numbered by stage id), or -1 in a tiled group.  A tiled
 * group's nest carries no dependence by construction: its tiles are
 * independent (a scratchpad's elements are named by tile, a live-out's
 * tiles do not overlap), its stages read no stage of theirs (why_unfit
 * in grouping/greedy.c), and a fused nest reads its producers at its own
 * point (pt_group_predicted_nests); so its loops are parallel without
 * isl joining its accesses (local_laplacian's dependences at -O1: 157
 * -> 2.5 ms; every app's AST and those of 600 random pipelines the same
 * both ways).  A reduction's or a recurrence's statements in a tiled
 * group (grouping/align.h) keep their own nest: they depend on one
 * another inside a tile (the writes to a scratchpad are named by tile,
 * and a tiled dim is one that no update or self-read crosses, so no pair
 * crosses two tiles). */
static int nest_of(const pt_model *m, const pt_stmt *t)
{
	const pt_tiling *tl = m->tiling;
	if (tl && tl->groups[tl->group_of[t->stage->id]].ntile > 0 && t->stage->red == PT_RED_NONE &&
		!pt_stage_reads(t->stage, t->stage))
		return -1;
	return t->stage->id;
}

typedef struct by_nest {
	const pt_model *m;
	isl_union_map **part;       /* per nest */
} by_nest;

static isl_stat add_to_nest(__isl_take isl_map *map, void *user)
{
	by_nest *b = user;
	const pt_stmt *t = stmt_of(b->m, &map);
	if (!t)
		return isl_stat_error;
	int nest = nest_of(b->m, t);
	if (nest < 0) {
		isl_map_free(map);
		return isl_stat_ok;
	}
	isl_union_map **slot = &b->part[nest];
	isl_union_map *u = isl_union_map_from_map(map);
	*slot = *slot ? isl_union_map_union(*slot, u) : u;
	return isl_stat_ok;
}

/* acc split by the nest of its statements (a tiled group's left out); NULL
 * on an error. */
static isl_union_map **split_by_nest(const pt_model *m, __isl_keep isl_union_map *acc, int n)
{
	by_nest b = { m, calloc((size_t)n, sizeof(isl_union_map *)) };
	if (isl_union_map_foreach_map(acc, add_to_nest, &b) >= 0)
		return b.part;
	for (int i = 0; i < n; i++)
		isl_union_map_free(b.part[i]);
	free(b.part);
	return NULL;
}

/* writes followed by reads of the same elements, pairwise. */
static __isl_give isl_union_map *join(__isl_take isl_union_map *w, __isl_take isl_union_map *r)
{
	return isl_union_map_apply_range(w, isl_union_map_reverse(r));
}

static __isl_give isl_union_map *joined(pt_model *m, bool own_nests)
{
	if (!own_nests)
		return join(isl_union_map_copy(m->writes), isl_union_map_copy(m->reads));
	int n = m->p->nstages;
	isl_union_map **w = split_by_nest(m, m->writes, n), **r = split_by_nest(m, m->reads, n);
	isl_union_map *deps = w && r ? isl_union_map_empty(isl_union_map_get_space(m->writes)) : NULL;
	for (int i = 0; i < n; i++) {
		if (deps && w[i] && r[i])
			deps = isl_union_map_union(deps, join(w[i], r[i]));
		else {
			isl_union_map_free(w ? w[i] : NULL);
			isl_union_map_free(r ? r[i] : NULL);
		}
	}
	free(w);
	free(r);
	return deps;
}

static __isl_give isl_union_map *flow(pt_model *m, bool own_nests)
{
	isl_union_map *deps = joined(m, own_nests);
	if (!deps)
		return NULL;
	deps = isl_union_map_subtract(deps, isl_union_set_identity(isl_union_set_copy(m->domain)));
	const pt_stmts *st = m->stmts;
	for (int i = 0; i < st->n; i++)
		for (int j = 0; j < st->n && st->s[i].stage->red != PT_RED_NONE; j++) {
			const pt_stmt *a = &st->s[i], *b = &st->s[j];
			if (b->stage != a->stage)
				continue;
			isl_space *sp = isl_space_map_from_domain_and_range(isl_set_get_space(a->domain),
				isl_set_get_space(b->domain));
			isl_map *pairs = isl_union_map_extract_map(deps, sp);
			deps = isl_union_map_subtract(deps, isl_union_map_from_map(isl_map_copy(pairs)));
			deps = isl_union_map_union(deps, isl_union_map_from_map(in_order(pairs, a, b)));
		}
	return isl_union_map_coalesce(isl_union_map_gist_params(deps, isl_set_copy(m->context)));
}

/* m->full from each tiled stage's tile box and its statements' tiled
 * instances (both taken): a tile is partial for a stage where some
 * point of its box is not an instance; full tiles exist and are partial
 * for no stage of their group. */
static void full_tiles(pt_model *m, isl_set *(*ranges)[PT_MAX_DIMS], isl_set **box, isl_set **in)
{
	const pt_tiling *tl = m->tiling;
	m->full = calloc((size_t)tl->ngroups, sizeof(isl_set *));
	for (int id = 0; id < m->p->nstages; id++) {
		if (!box[id])
			continue;
		int gi = tl->group_of[id];
		unsigned nt = (unsigned)tl->groups[gi].ntile;
		isl_set *partial = isl_set_subtract(box[id], in[id]);
		isl_size nd = isl_set_dim(partial, isl_dim_set);
		partial = isl_set_project_out(partial, isl_dim_set, nt, nd < 0 ? 0 : (unsigned)nd - nt);
		if (!m->full[gi]) {
			isl_set *r = isl_set_copy(ranges[gi][0]);
			for (unsigned k = 1; k < nt; k++)
				r = isl_set_flat_product(r, isl_set_copy(ranges[gi][k]));
			m->full[gi] = isl_set_align_params(r, isl_set_get_space(partial));
		}
		m->full[gi] = isl_set_subtract(m->full[gi], partial);
	}
	for (int g = 0; g < tl->ngroups; g++)
		if (m->full[g])
			m->full[g] = isl_set_coalesce(isl_set_gist_params(m->full[g], isl_set_copy(m->context)));
}

/* Each statement of a time-tiled stage (tile.h tsteps) split in four
 * by its phase in the block (statements.h tphase): the middle steps
 * keep its name, then "_f" (the first step), "_l" (the last) and "_fl"
 * (a block of one step), in that order; the accesses are split by
 * retile_access. */
static void split_time_tiled(pt_model *m)
{
	pt_stmts *st = m->stmts;
	int n = 0;
	for (int i = 0; i < st->n; i++)
		n += pt_tiling_is_time_tiled(m->tiling, st->s[i].stage) ? 4 : 1;
	if (n == st->n)
		return;
	pt_stmt *s = calloc((size_t)n, sizeof(pt_stmt));
	static const char *const suffix[4] = { "", "_f", "_l", "_fl" };
	int k = 0;
	for (int i = 0; i < st->n; i++) {
		pt_stmt *t = &st->s[i];
		if (!pt_tiling_is_time_tiled(m->tiling, t->stage)) {
			s[k++] = *t;
			continue;
		}
		const pt_group *g = pt_tiling_group(m->tiling, t->stage);
		isl_set *first = pt_time_tile_first(g, isl_set_get_space(t->domain));
		isl_set *last = pt_time_tile_last(g, isl_set_get_space(t->domain));
		for (int v = 0; v < 4; v++) {
			pt_stmt *u = &s[k++];
			*u = *t;
			snprintf(u->name, sizeof(u->name), "%s%s", t->name, suffix[v]);
			u->tphase = PT_TPHASE_TILED | (v & 1 ? PT_TPHASE_FIRST : 0) | (v & 2 ? PT_TPHASE_LAST : 0);
			isl_set *d = isl_set_copy(t->domain);
			d = v & 1 ? isl_set_intersect(d, isl_set_copy(first)) : isl_set_subtract(d, isl_set_copy(first));
			d = v & 2 ? isl_set_intersect(d, isl_set_copy(last)) : isl_set_subtract(d, isl_set_copy(last));
			u->domain = isl_set_set_tuple_name(isl_set_coalesce(d), u->name);
			u->vregion = isl_basic_set_copy(t->vregion);
		}
		isl_set_free(first);
		isl_set_free(last);
		isl_set_free(t->domain);
		isl_basic_set_free(t->vregion);
	}
	free(st->s);
	st->s = s;
	st->n = n;
	free(m->name_slot);
	index_names(m);
}

/* A tiled group's statements in its tiles; each group's tile ranges
 * computed once for all its statements. */
static void tile_statements(isl_ctx *ctx, pt_model *m)
{
	const pt_tiling *tl = m->tiling;
	if (!tl)
		return;
	isl_set *(*ranges)[PT_MAX_DIMS] = calloc((size_t)tl->ngroups, sizeof(*ranges));
	/* with separate, per stage: its tile box, and its statements' tiled
	 * instances */
	isl_set **box = calloc((size_t)m->p->nstages, sizeof(isl_set *));
	isl_set **in = calloc((size_t)m->p->nstages, sizeof(isl_set *));
	for (int i = 0; i < m->stmts->n; i++) {
		pt_stmt *t = &m->stmts->s[i];
		int gi = tl->group_of[t->stage->id], si = tl->index_in_group[t->stage->id], id = t->stage->id;
		const pt_group *g = &tl->groups[gi];
		if (g->ntile == 0)
			continue;
		for (int k = 0; k < g->ntile && !ranges[gi][k]; k++)
			ranges[gi][k] = pt_tile_range(ctx, m->p, g, k);
		t->ntile = g->ntile;
		bool upd = t->kind == PT_STMT_UPDATE;
		if (m->separate && g->tsteps == 0 && !box[id] && !upd) {
			isl_set *u = isl_set_universe(isl_set_get_space(t->domain));
			box[id] = isl_set_reset_tuple_id(pt_tile_domain(g, si, false, ranges[gi], u));
		}
		t->domain = pt_tile_domain(g, si, upd, ranges[gi], t->domain);
		/* an update's instances are no points of its stage: its
		 * result's (the init's) decide the full tiles */
		if (m->separate && g->tsteps == 0 && !upd) {
			isl_set *d = isl_set_reset_tuple_id(isl_set_copy(t->domain));
			in[id] = in[id] ? isl_set_union(in[id], d) : d;
		}
	}
	if (m->separate)
		full_tiles(m, ranges, box, in);
	split_time_tiled(m);
	for (int g = 0; g < tl->ngroups; g++)
		for (int k = 0; k < PT_MAX_DIMS; k++)
			isl_set_free(ranges[g][k]);
	free(box);
	free(in);
	free(ranges);
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;   /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* The index of the statement named name, or -1. */
static int stmt_index(const pt_model *m, const char *name)
{
	if (!name || !m->nslot)
		return -1;
	for (uint64_t i = name_hash(name) & (uint64_t)(m->nslot - 1);; i = (i + 1) & (uint64_t)(m->nslot - 1)) {
		int k = m->name_slot[i];
		if (k < 0 || !strcmp(m->stmts->s[k].name, name))
			return k;
	}
}

static void index_names(pt_model *m)
{
	m->nslot = 16;
	while (m->nslot < 2 * m->stmts->n)
		m->nslot *= 2;
	m->name_slot = malloc(sizeof(int) * (size_t)m->nslot);
	for (int i = 0; i < m->nslot; i++)
		m->name_slot[i] = -1;
	for (int k = 0; k < m->stmts->n; k++) {
		uint64_t i = name_hash(m->stmts->s[k].name) & (uint64_t)(m->nslot - 1);
		while (m->name_slot[i] >= 0)
			i = (i + 1) & (uint64_t)(m->nslot - 1);
		m->name_slot[i] = k;
	}
}

/* The union of the statements' instances. */
static __isl_give isl_union_set *all_instances(const pt_model *m)
{
	isl_union_set *d = isl_union_set_empty(isl_set_get_space(m->context));
	for (int i = 0; i < m->stmts->n; i++)
		d = isl_union_set_union(d, isl_union_set_from_set(isl_set_copy(m->stmts->s[i].domain)));
	return d;
}

pt_model *pt_model_new(isl_ctx *ctx, const pt_pipeline *p)
{
	pt_model *m = calloc(1, sizeof(*m));
	m->p = p;
	m->stmts = pt_poly_stmts(ctx, p);
	if (!m->stmts || !m->stmts->n) {
		pt_model_free(m);
		return NULL;
	}
	index_names(m);
	isl_space *sp = pt_poly_stage_space(ctx, p, NULL, 0);
	m->context = isl_set_params(pt_poly_nonempty(sp, p));
	isl_space_free(sp);
	m->domain = all_instances(m);
	isl_space *params = isl_set_get_space(m->context);
	m->reads = isl_union_map_empty(isl_space_copy(params));
	m->writes = isl_union_map_empty(params);
	m->accesses = pt_poly_access_cache_new(ctx, p);
	if (!collect_accesses(ctx, m)) {
		pt_model_free(m);
		return NULL;
	}
	return m;
}

/* What moves a model's accesses into the tiles. */
typedef struct retile {
	pt_model *m;
	isl_union_map *out;
	bool writes;
} retile;

static isl_stat retile_one(__isl_take isl_map *map, const pt_stmt *t, retile *r);

/* An access of a time-tiled statement, onto each of its four phases
 * (split_time_tiled): its own stage's elements are the tile's
 * scratchpad's but where the phase reads (FIRST) or writes (LAST) the
 * full buffer. */
static isl_stat retile_phases(__isl_take isl_map *map, const pt_stmt *t, retile *r)
{
	isl_stat ok = isl_stat_ok;
	for (int v = 0; v < 4 && ok == isl_stat_ok; v++) {
		const pt_stmt *u = t + v;
		ok = retile_one(isl_map_set_tuple_name(isl_map_copy(map), isl_dim_in, u->name), u, r);
	}
	isl_map_free(map);
	return ok;
}

static isl_stat retile_access(__isl_take isl_map *map, void *user)
{
	retile *r = user;
	const pt_stmt *t = stmt_of(r->m, &map);
	if (!t)
		return isl_stat_error;
	if (t->tphase)
		return retile_phases(map, t, r);
	return retile_one(map, t, r);
}

/* Access map of statement t moved into its tiles (one of retile's). */
static isl_stat retile_one(__isl_take isl_map *map, const pt_stmt *t, retile *r)
{
	if (t->ntile) {
		/* the tile in front of the point; a scratchpad holds one
		 * tile's values, so its elements are named by the tile too (a
		 * write of a live-out is to the point alone) */
		map = isl_map_reset_tuple_id(map, isl_dim_in);
		map = isl_map_insert_dims(map, isl_dim_in, 0, (unsigned)t->ntile);
		/* (no stage of that name: an image) */
		const pt_stage *callee = pt_pipeline_find_stage(r->m->p, isl_map_get_tuple_name(map, isl_dim_out));
		bool scratch = callee && pt_tiling_is_scratch(r->m->tiling, callee);
		if (callee && callee == t->stage && t->tphase)
			scratch = !(t->tphase & (r->writes ? PT_TPHASE_LAST : PT_TPHASE_FIRST));
		if (scratch) {
			isl_id *arr = isl_map_get_tuple_id(map, isl_dim_out);
			map = isl_map_insert_dims(map, isl_dim_out, 0, (unsigned)t->ntile);
			for (int j = 0; j < t->ntile; j++)
				map = isl_map_equate(map, isl_dim_in, j, isl_dim_out, j);
			map = isl_map_set_tuple_id(map, isl_dim_out, arr);
		}
		map = isl_map_set_tuple_id(map, isl_dim_in, isl_set_get_tuple_id(t->domain));
		map = isl_map_intersect_domain(map, isl_set_copy(t->domain));
	}
	r->out = isl_union_map_union(r->out, isl_union_map_from_map(map));
	return isl_stat_ok;
}

static __isl_give isl_union_map *retiled(pt_model *m, __isl_take isl_union_map *acc, bool writes)
{
	retile r = { m, isl_union_map_empty(isl_union_map_get_space(acc)), writes };
	if (isl_union_map_foreach_map(acc, retile_access, &r) < 0)
		r.out = isl_union_map_free(r.out);
	isl_union_map_free(acc);
	return r.out;
}

bool pt_model_tile(pt_model *m, const pt_tiling *tl, bool separate)
{
	if (m->tiling || m->deps)
		return false;
	isl_ctx *ctx = isl_set_get_ctx(m->context);
	m->tiling = tl;
	m->separate = separate;
	tile_statements(ctx, m);
	isl_union_set_free(m->domain);
	m->domain = all_instances(m);
	m->reads = retiled(m, m->reads, false);
	m->writes = retiled(m, m->writes, true);
	return m->domain && m->reads && m->writes;
}

static void free_deps_from(pt_model *m)
{
	for (int i = 0; m->deps_from && i < m->stmts->n; i++)
		isl_union_map_free(m->deps_from[i]);
	free(m->deps_from);
	m->deps_from = NULL;
}

static isl_stat add_dep_from(__isl_take isl_map *map, void *user)
{
	pt_model *m = user;
	const pt_stmt *t = stmt_of(m, &map);
	if (!t)
		return isl_stat_error;
	ptrdiff_t k = t - m->stmts->s;
	isl_union_map *u = isl_union_map_from_map(map);
	m->deps_from[k] = m->deps_from[k] ? isl_union_map_union(m->deps_from[k], u) : u;
	return isl_stat_ok;
}

bool pt_model_compute_deps(pt_model *m, bool own_nests)
{
	isl_union_map_free(m->deps);
	free_deps_from(m);
	m->deps = flow(m, own_nests);
	if (!m->deps)
		return false;
	m->deps_from = calloc((size_t)m->stmts->n, sizeof(isl_union_map *));
	if (isl_union_map_foreach_map(m->deps, add_dep_from, m) < 0)
		free_deps_from(m);      /* the test then looks at every dep */
	return true;
}

/* The deps whose source runs under sched (its domain), or all of them. */
static __isl_give isl_union_map *deps_under(const pt_model *m, __isl_keep isl_union_map *sched)
{
	if (!m->deps_from)
		return isl_union_map_copy(m->deps);
	isl_union_map *d = isl_union_map_empty(isl_union_map_get_space(m->deps));
	isl_map_list *list = isl_union_map_get_map_list(sched);
	int n = list ? (int)isl_map_list_n_map(list) : -1;
	for (int i = 0; i < n; i++) {
		isl_map *mp = isl_map_list_get_map(list, i);
		int k = stmt_index(m, isl_map_get_tuple_name(mp, isl_dim_in));
		isl_map_free(mp);
		if (k < 0) {
			isl_map_list_free(list);
			isl_union_map_free(d);
			return isl_union_map_copy(m->deps);
		}
		if (m->deps_from[k])
			d = isl_union_map_union(d, isl_union_map_copy(m->deps_from[k]));
	}
	isl_map_list_free(list);
	if (n < 0) {
		isl_union_map_free(d);
		return isl_union_map_copy(m->deps);
	}
	return d;
}

void pt_model_free(pt_model *m)
{
	if (!m)
		return;
	free_deps_from(m);      /* counted by the statements */
	for (int g = 0; m->full && g < m->tiling->ngroups; g++)
		isl_set_free(m->full[g]);
	free(m->full);
	pt_poly_stmts_free(m->stmts);
	isl_set_free(m->context);
	isl_union_set_free(m->domain);
	isl_union_map_free(m->reads);
	isl_union_map_free(m->writes);
	isl_union_map_free(m->deps);
	free(m->name_slot);
	pt_poly_access_cache_free(m->accesses);
	free(m);
}

const pt_stmt *pt_model_stmt(const pt_model *m, __isl_keep isl_id *id)
{
	int k = stmt_index(m, id ? isl_id_get_name(id) : NULL);
	return k >= 0 ? &m->stmts->s[k] : NULL;
}

const pt_stmt *pt_model_stmt_of_node(const pt_model *m, __isl_keep isl_ast_node *node)
{
	isl_ast_expr *call = isl_ast_node_user_get_expr(node);
	isl_ast_expr *f = isl_ast_expr_op_get_arg(call, 0);
	isl_id *id = isl_ast_expr_get_id(f);
	const pt_stmt *st = pt_model_stmt(m, id);
	isl_id_free(id);
	isl_ast_expr_free(f);
	isl_ast_expr_free(call);
	return st;
}

__isl_give isl_schedule *pt_model_naive_schedule(const pt_model *m)
{
	return pt_poly_stmts_naive_schedule(m->stmts);
}

__isl_give isl_schedule *pt_model_schedule(const pt_model *m)
{
	return m->tiling ? pt_poly_stmts_tiled_schedule(m->stmts, m->tiling, m->full) : pt_model_naive_schedule(m);
}

bool pt_model_loop_is_parallel(const pt_model *m, __isl_keep isl_ast_build *build)
{
	/* no dependence at all (every tiled group's and most pipelines'):
	 * not even the build's schedule is needed */
	if (isl_union_map_is_empty(m->deps) == isl_bool_true)
		return true;
	isl_union_map *sched = isl_ast_build_get_schedule(build);
	isl_space *sp = isl_ast_build_get_schedule_space(build);
	int depth = (int)isl_space_dim(sp, isl_dim_set) - 1;
	isl_union_map *du = deps_under(m, sched);
	if (isl_union_map_is_empty(du) == isl_bool_true) {
		/* most loops: no dependence among their statements at all */
		isl_union_map_free(du);
		isl_union_map_free(sched);
		isl_space_free(sp);
		return true;
	}
	/* dependences as pairs of schedule points of this build */
	isl_union_map *d = isl_union_map_apply_range(du, isl_union_map_copy(sched));
	d = isl_union_map_apply_domain(d, sched);
	if (isl_union_map_is_empty(d) == isl_bool_true) {
		isl_union_map_free(d);
		isl_space_free(sp);
		return true;
	}
	isl_map *pairs = isl_union_map_extract_map(d, isl_space_map_from_set(isl_space_copy(sp)));
	isl_union_map_free(d);
	/* same iteration of every outer loop, then the distance in this one */
	for (int i = 0; i < depth; i++)
		pairs = isl_map_equate(pairs, isl_dim_in, i, isl_dim_out, i);
	isl_set *delta = isl_map_deltas(pairs);
	delta = isl_set_project_out(delta, isl_dim_set, 0, (unsigned)depth);
	isl_set *zero = isl_set_universe(isl_set_get_space(delta));
	zero = isl_set_fix_si(zero, isl_dim_set, 0, 0);
	isl_bool sub = isl_set_is_subset(delta, zero);
	isl_set_free(delta);
	isl_set_free(zero);
	isl_space_free(sp);
	return sub == isl_bool_true;
}

static char *union_map_lines(__isl_keep isl_union_map *u)
{
	isl_printer *pr = isl_printer_to_str(isl_union_map_get_ctx(u));
	isl_map_list *list = isl_union_map_get_map_list(u);
	int n = (int)isl_map_list_n_map(list);
	for (int i = 0; i < n; i++) {
		isl_map *mp = isl_map_list_get_map(list, i);
		pr = isl_printer_print_map(pr, mp);
		pr = isl_printer_print_str(pr, "\n");
		isl_map_free(mp);
	}
	isl_map_list_free(list);
	char *s = isl_printer_get_str(pr);
	isl_printer_free(pr);
	return s;
}

char *pt_model_stmts_str(const pt_model *m)
{
	isl_printer *pr = isl_printer_to_str(isl_set_get_ctx(m->context));
	static const char *const kind[] = {"func", "init", "update"};
	for (int i = 0; i < m->stmts->n; i++) {
		const pt_stmt *t = &m->stmts->s[i];
		pr = isl_printer_print_str(pr, t->name);
		pr = isl_printer_print_str(pr, ": ");
		pr = isl_printer_print_str(pr, kind[t->kind]);
		pr = isl_printer_print_str(pr, " of ");
		pr = isl_printer_print_str(pr, t->stage->name);
		if (t->ncase >= 0) {
			pr = isl_printer_print_str(pr, ", case ");
			pr = isl_printer_print_int(pr, t->ncase + 1);
		} else if (t->kind != PT_STMT_INIT) {
			pr = isl_printer_print_str(pr, ", case chosen at run time");
		}
		pr = isl_printer_print_str(pr, "\n  ");
		pr = isl_printer_print_set(pr, t->domain);
		pr = isl_printer_print_str(pr, "\n");
	}
	char *s = isl_printer_get_str(pr);
	isl_printer_free(pr);
	char *r = union_map_lines(m->reads), *w = union_map_lines(m->writes);
	size_t n = strlen(s) + strlen(r) + strlen(w) + 32;
	char *out = malloc(n);
	snprintf(out, n, "%sreads:\n%swrites:\n%s", s, r, w);
	free(s);
	free(r);
	free(w);
	return out;
}

char *pt_model_deps_str(const pt_model *m)
{
	return union_map_lines(m->deps);
}
