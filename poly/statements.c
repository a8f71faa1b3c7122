/* statements.c: stages split into statements by case, and PolyMage's
 * base schedule of them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/constraint.h>
#include <isl/id.h>
#include <isl/local_space.h>
#include <isl/map.h>
#include <isl/schedule_node.h>
#include <isl/union_set.h>
#include <isl/space.h>
#include <isl/val.h>

#include "access.h"
#include "isl_expr.h"
#include "recur_order.h"
#include "statements.h"
#include "tile.h"

/* The domain a stage's statements iterate over (reductions: the
 * reduction domain), unnamed like the case conditions' sets. */
static __isl_give isl_set *iter_box(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s)
{
	isl_set *set = pt_poly_iter_domain(ctx, p, s);
	return set ? isl_set_reset_tuple_id(set) : NULL;
}

/* The box of a reduction's result domain (its init statement's domain;
 * pt_poly_iter_domain gives the reduction domain). */
static __isl_give isl_set *result_box(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s)
{
	isl_space *sp = pt_poly_stage_space(ctx, p, s, s->ndim);
	isl_set *set = pt_poly_domain_set(sp, s);
	isl_space_free(sp);
	return set;
}

/* A case condition as a set on the (reduction) domain's space; NULL if it
 * is not affine.  Update conditions use VAR indices ndim.., so they are
 * built on the full space and the result dims projected out. */
static __isl_give isl_set *cond_set(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s,
	const pt_expr *cond, bool red)
{
	int n = red ? s->ndim + s->nrdim : s->ndim;
	isl_space *sp = pt_poly_stage_space(ctx, p, s, n);
	isl_set *set = pt_poly_cond_set(sp, cond);
	isl_space_free(sp);
	if (set && red)
		set = isl_set_project_out(set, isl_dim_set, 0, (unsigned)s->ndim);
	return set;
}

static void add_part(pt_stmts *st, isl_ctx *ctx, const pt_stage *s, pt_stmt_kind kind, int k,
	int split, int part, __isl_take isl_set *dom)
{
	pt_stmt *t = &st->s[st->n++];
	memset(t, 0, sizeof(*t));
	t->vcase = -1;
	t->kind = kind;
	t->stage = s;
	t->ncase = k;
	t->split = split;
	t->part = part;
	t->var0 = kind == PT_STMT_UPDATE ? s->ndim : 0;
	t->nvars = kind == PT_STMT_UPDATE ? s->nrdim : s->ndim;
	const char *pre = kind == PT_STMT_FUNC ? "S" : kind == PT_STMT_INIT ? "I" : "U";
	char sub[16] = "";
	if (split > 1)
		snprintf(sub, sizeof(sub), "p%d", part);
	if (k >= 0)
		snprintf(t->name, sizeof(t->name), "%s%d_%d%s", pre, s->id, k, sub);
	else
		snprintf(t->name, sizeof(t->name), "%s%d%s", pre, s->id, sub);
	/* dim names must not clash with isl's iterators or the params */
	for (int d = 0; d < t->nvars; d++)
		dom = isl_set_set_dim_name(dom, isl_dim_set, (unsigned)d, NULL);
	t->domain = isl_set_set_tuple_id(dom, isl_id_alloc(ctx, t->name, NULL));
}

static void add(pt_stmts *st, isl_ctx *ctx, const pt_stage *s, pt_stmt_kind kind, int k,
	__isl_take isl_set *dom)
{
	int d = kind == PT_STMT_FUNC ? pt_poly_split_of(s) : 0;
	if (d < 2) {
		add_part(st, ctx, s, kind, k, 0, 0, dom);
		return;
	}
	/* y = d * e + part */
	for (int part = 0; part < d; part++) {
		isl_set *pd = isl_set_copy(dom);
		unsigned y = (unsigned)(s->ndim - 1);
		pd = isl_set_add_dims(pd, isl_dim_set, 1);
		isl_constraint *c = isl_constraint_alloc_equality(isl_local_space_from_space(isl_set_get_space(pd)));
		c = isl_constraint_set_coefficient_si(c, isl_dim_set, y, 1);
		c = isl_constraint_set_coefficient_si(c, isl_dim_set, y + 1, -d);
		c = isl_constraint_set_constant_si(c, -part);
		pd = isl_set_add_constraint(pd, c);
		pd = isl_set_project_out(pd, isl_dim_set, y + 1, 1);
		if (isl_set_is_empty(pd) == isl_bool_true)
			isl_set_free(pd);
		else
			add_part(st, ctx, s, kind, k, d, part, pd);
	}
	isl_set_free(dom);
}

static bool is_var(const pt_expr *e, const void *v)
{
	return e->kind == PT_E_VAR && e->index == *(const int *)v;
}

/* Whether e reads variable v. */
static bool uses_var(const pt_expr *e, int v)
{
	return pt_expr_any(e, is_var, &v);
}

typedef struct split_find {
	int var, d;
	bool bad;
} split_find;

/* A division or remainder of the variable: by one literal d. */
static bool split_div(const pt_expr *e, const void *data)
{
	split_find *f = (split_find *)data;
	if (e->kind != PT_E_BINARY || (e->op != PT_OP_DIV && e->op != PT_OP_MOD) || pt_type_is_float(e->type))
		return false;
	if (!uses_var(e->args[0], f->var) && !uses_var(e->args[1], f->var))
		return false;
	const pt_expr *n = e->args[0], *q = e->args[1];
	/* y or y +- literal, by a literal */
	bool plain = n->kind == PT_E_VAR || (n->kind == PT_E_BINARY && (n->op == PT_OP_ADD || n->op == PT_OP_SUB) &&
		n->args[0]->kind == PT_E_VAR && n->args[1]->kind == PT_E_INT);
	while (q->kind == PT_E_CAST)
		q = q->args[0];
	if (!plain || q->kind != PT_E_INT || q->ival < 2 || q->ival > 4 || (f->d && f->d != q->ival))
		f->bad = true;
	else
		f->d = (int)q->ival;
	return false;
}

int pt_poly_split_of(const pt_stage *s)
{
	/* (a backward innermost dimension would run a split pair's parts
	 * out of order) */
	if (s->red != PT_RED_NONE || s->ndim == 0 || s->dom[s->ndim - 1].step != 1 || s->backward[s->ndim - 1])
		return 0;
	split_find f = { s->ndim - 1, 0, false };
	for (int k = 0; k < s->ncases; k++) {
		pt_expr_any(s->cases[k].cond, split_div, &f);
		pt_expr_any(s->cases[k].value, split_div, &f);
	}
	return f.bad ? 0 : f.d;
}

static isl_stat count_eq(__isl_take isl_constraint *c, void *user)
{
	*(int *)user += isl_constraint_is_equality(c) == isl_bool_true;
	isl_constraint_free(c);
	return isl_stat_ok;
}

/* The case, of a stage's n cases with condition sets cs (NULL: else) on
 * domain dom, whose points form one convex polyhedron without divs, with
 * the fewest equalities (a border plane is a poor loop to version on),
 * and that polyhedron without what dom implies; NULL if none is.
 * heat3d's `t == 0 || border -> .. | else -> ..`: the else case, the
 * interior box. */
static __isl_give isl_basic_set *convex_case(__isl_keep isl_set *dom, isl_set *const *cs, int n, int *k)
{
	isl_basic_set *best = NULL;
	int best_eq = 0;
	isl_set *taken = isl_set_empty(isl_set_get_space(dom));
	isl_basic_set *hull = isl_set_n_basic_set(dom) == 1 ? isl_set_simple_hull(isl_set_copy(dom)) : NULL;
	for (int c = 0; c < n && hull; c++) {
		isl_set *d = isl_set_copy(dom);
		if (cs[c])
			d = isl_set_intersect(d, isl_set_copy(cs[c]));
		d = isl_set_coalesce(isl_set_subtract(d, isl_set_copy(taken)));
		taken = isl_set_union(taken, isl_set_copy(d));
		if (isl_set_n_basic_set(d) != 1) {
			isl_set_free(d);
			continue;
		}
		isl_basic_set *b = isl_basic_set_gist(isl_set_simple_hull(d), isl_basic_set_copy(hull));
		int eq = 0;
		if (isl_basic_set_foreach_constraint(b, &count_eq, &eq) < 0 || isl_basic_set_dim(b, isl_dim_div) != 0 || (best && eq >= best_eq)) {
			isl_basic_set_free(b);
			continue;
		}
		isl_basic_set_free(best);
		best = b;
		best_eq = eq;
		*k = c;
	}
	isl_basic_set_free(hull);
	isl_set_free(taken);
	return best;
}

/* Plain stage: one statement per affine case, or one for all.  Split
 * statements put isl's guards around loops, which pays when the guards
 * depend on outer variables only; a condition on the innermost variable
 * would leave a branch inside the innermost loop either way, and there
 * the case is chosen at run time (simpler code for LLVM, and isl's AST
 * generation for split cases costs seconds on a large pipeline). */
static bool add_func(pt_stmts *st, isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s)
{
	isl_set *dom = iter_box(ctx, p, s);
	if (!dom)
		return false;
	isl_set **cs = calloc((size_t)s->ncases + 1, sizeof(*cs));
	bool affine = true, inner = false;
	for (int k = 0; k < s->ncases && s->ncases > 1 && s->ndim > 0; k++)
		if (uses_var(s->cases[k].cond, s->ndim - 1))
			inner = true;
	for (int k = 0; k < s->ncases && affine; k++)
		if (s->cases[k].cond && !(cs[k] = cond_set(ctx, p, s, s->cases[k].cond, false)))
			affine = false;
	if (!affine || inner) {
		int first = st->n, vcase = -1;
		isl_basic_set *region = affine ? convex_case(dom, cs, s->ncases, &vcase) : NULL;
		add(st, ctx, s, PT_STMT_FUNC, -1, dom);
		for (int i = first; i < st->n; i++) {
			st->s[i].vcase = vcase;
			st->s[i].vregion = isl_basic_set_copy(region);
		}
		isl_basic_set_free(region);
	} else {
		isl_set *taken = isl_set_empty(isl_set_get_space(dom));
		for (int k = 0; k < s->ncases; k++) {
			isl_set *d = isl_set_copy(dom);
			if (cs[k])
				d = isl_set_intersect(d, isl_set_copy(cs[k]));
			d = isl_set_coalesce(isl_set_subtract(d, isl_set_copy(taken)));
			taken = isl_set_union(taken, isl_set_copy(d));
			if (isl_set_is_empty(d) == isl_bool_true)
				isl_set_free(d);
			else
				add(st, ctx, s, PT_STMT_FUNC, k, d);
		}
		isl_set_free(taken);
		isl_set_free(dom);
	}
	for (int k = 0; k < s->ncases; k++)
		isl_set_free(cs[k]);
	free(cs);
	return true;
}

static bool add_reduction(pt_stmts *st, isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s)
{
	isl_set *dom = result_box(ctx, p, s), *rdom = dom ? iter_box(ctx, p, s) : NULL;
	if (!rdom) {
		isl_set_free(dom);
		return false;
	}
	add(st, ctx, s, PT_STMT_INIT, -1, dom);
	for (int k = 0; k < s->ncases; k++) {
		isl_set *d = isl_set_copy(rdom);
		bool run_time = false;
		if (s->cases[k].cond) {
			isl_set *c = cond_set(ctx, p, s, s->cases[k].cond, true);
			if (c)
				d = isl_set_intersect(d, c);
			else
				run_time = true;
		}
		add(st, ctx, s, PT_STMT_UPDATE, k, d);
		st->s[st->n - 1].cond_at_run_time = run_time;
	}
	isl_set_free(rdom);
	return true;
}

pt_stmts *pt_poly_stmts(isl_ctx *ctx, const pt_pipeline *p)
{
	int cap = 0;
	for (int i = 0; i < p->nstages; i++)
		cap += (p->stages[i]->ncases + 1) * 4;
	pt_stmts *st = calloc(1, sizeof(*st));
	st->s = calloc((size_t)cap + 1, sizeof(pt_stmt));
	for (int i = 0; i < p->nstages; i++) {
		const pt_stage *s = p->stages[i];
		if (!(s->red ? add_reduction(st, ctx, p, s) : add_func(st, ctx, p, s))) {
			pt_poly_stmts_free(st);
			return NULL;
		}
	}
	return st;
}

void pt_poly_stmts_free(pt_stmts *st)
{
	if (!st)
		return;
	for (int i = 0; i < st->n; i++) {
		isl_set_free(st->s[i].domain);
		isl_basic_set_free(st->s[i].vregion);
	}
	free(st->s);
	free(st);
}

/* Statement t's band: its point (after its tile coordinates, if any),
 * then for updates the case index (cases of one update apply in order at
 * each reduction point).  A backward dimension (a self-read f(x+1),
 * docs/language.md §13) runs negated, from its last point down.  A
 * recurrence's order (ro, recur_order.h) may start the band with
 * floor(var_strip / width) and move var_last to its end. */
static __isl_give isl_union_map *band_of(const pt_stmt *t, int width, pt_recur_order ro)
{
	isl_ctx *ctx = isl_set_get_ctx(t->domain);
	isl_space *dsp = isl_set_get_space(t->domain);
	isl_space *sp = isl_space_map_from_domain_and_range(isl_space_copy(dsp),
		isl_space_set_from_params(isl_space_params(isl_space_copy(dsp))));
	sp = isl_space_add_dims(sp, isl_dim_out, (unsigned)(width + (ro.strip >= 0)));
	isl_local_space *ls = isl_local_space_from_space(dsp);
	isl_aff_list *list = isl_aff_list_alloc(ctx, width + 1);
	if (ro.strip >= 0)
		list = isl_aff_list_add(list, isl_aff_floor(isl_aff_scale_down_ui(
			isl_aff_var_on_domain(isl_local_space_copy(ls), isl_dim_set, (unsigned)(t->ntile + ro.strip)),
			ro.width)));
	for (int k = 0; k < width; k++) {
		/* dimension d at band position k: the domain's order, var_last
		 * taken out and put last */
		int d = ro.last < 0 ? k : k == width - 1 ? ro.last : k < ro.last ? k : k + 1;
		isl_aff *a = d < t->nvars ?
			isl_aff_var_on_domain(isl_local_space_copy(ls), isl_dim_set, (unsigned)(t->ntile + d)) :
			isl_aff_val_on_domain(isl_local_space_copy(ls),
				isl_val_int_from_si(ctx, t->kind == PT_STMT_UPDATE ? t->ncase : 0));
		if (t->split > 1 && d == t->nvars - 1)
			a = isl_aff_floor(isl_aff_scale_down_ui(a, (unsigned)t->split));
		if (d < t->nvars && t->kind == PT_STMT_FUNC && t->stage->backward[t->var0 + d])
			a = isl_aff_neg(a);
		list = isl_aff_list_add(list, a);
	}
	isl_local_space_free(ls);
	isl_map *m = isl_map_from_multi_aff(isl_multi_aff_from_aff_list(sp, list));
	/* a function on the whole space: the schedule's domain restricts
	 * it, and pieces repeating the domain only cost isl's AST
	 * generation (pyramid_blend: 1.5% of the instructions of an -O1
	 * compile, the same AST) */
	return isl_union_map_from_map(m);
}

static __isl_give isl_union_set *domain_of(const pt_stmt *t)
{
	return isl_union_set_from_set(isl_set_copy(t->domain));
}

/* Whether statement t (its stage's only one) may share the loop nest of
 * the statements run[0..nrun) (one per stage, in order) inside a tile:
 * plain functions over the same instances (same tile and point), t
 * reading each of them only at its own point, so that running them one
 * after the other at each point keeps every dependence. */
static bool fusable(const pt_stmt *t, const pt_stmt *const *run, int nrun)
{
	const pt_stmt *r0 = run[0];
	if (t->kind != PT_STMT_FUNC || r0->kind != PT_STMT_FUNC || t->nvars != r0->nvars || t->ntile != r0->ntile ||
	    t->nvars == 0)
		return false;
	/* a recurrence runs in its own order (backward dims negated,
	 * recur_order.h): no other stage shares its nest (the run's later
	 * members passed this test as t) */
	if (pt_stage_reads(t->stage, t->stage) || pt_stage_reads(r0->stage, r0->stage))
		return false;
	isl_set *same = isl_set_set_tuple_id(isl_set_copy(r0->domain), isl_set_get_tuple_id(t->domain));
	isl_bool eq = isl_set_is_equal(same, t->domain);
	isl_set_free(same);
	if (eq != isl_bool_true)
		return false;
	const pt_stage *stages[64];
	if (nrun > 64)
		return false;
	for (int r = 0; r < nrun; r++)
		stages[r] = run[r]->stage;
	return pt_stage_reads_at_own_point(t->stage, stages, nrun);
}

/* The loop nests of the statements idx[0..n): entries are a stage's
 * statements of one kind (entry e is idx[first[e] .. first[e + 1])),
 * nests runs of entries (nest k is entries nest[k] .. nest[k + 1]).  The
 * cases of one stage share a nest, a reduction's init and updates get
 * one each; with fuse (inside a tile), consecutive stages that fusable()
 * allows share one nest. */
typedef struct nests {
	int nent, *first;
	int nnest, *nest;
} nests;

static nests nests_of(const pt_stmts *st, const int *idx, int n, bool fuse)
{
	nests ns = { 0, calloc((size_t)n + 1, sizeof(int)), 0, NULL };
	for (int i = 0; i < n; i++) {
		const pt_stmt *t = &st->s[idx[i]], *prev = i ? &st->s[idx[i - 1]] : NULL;
		if (!prev || t->stage != prev->stage || t->kind != prev->kind)
			ns.first[ns.nent++] = i;
	}
	ns.first[ns.nent] = n;
	ns.nest = calloc((size_t)ns.nent + 1, sizeof(int));
	const pt_stmt **run = calloc((size_t)ns.nent + 1, sizeof(*run));
	int nrun = 0;
	for (int e = 0; e < ns.nent; e++) {
		const pt_stmt *t = &st->s[idx[ns.first[e]]];
		bool one = ns.first[e + 1] - ns.first[e] == 1;
		if (fuse && nrun > 0 && one && fusable(t, run, nrun)) {
			run[nrun++] = t;
			continue;
		}
		ns.nest[ns.nnest++] = e;
		nrun = 0;
		if (one)
			run[nrun++] = t;
	}
	ns.nest[ns.nnest] = ns.nent;
	free(run);
	return ns;
}

/* Below band node (of a split stage's statements idx[0..n)), a sequence
 * of its parts in order: an iteration of the band is floor(y / split),
 * and y = split * e + part, so that part order is y's order.  A
 * recurrence along y reads, in the same iteration, a lower part (s(y -
 * 1) at an odd y reads the even part's point): unordered, isl ran the
 * odd part first. */
static __isl_give isl_schedule_node *parts_in_order(__isl_take isl_schedule_node *node, const pt_stmts *st,
	const int *idx, int n, int split)
{
	isl_ctx *ctx = isl_schedule_node_get_ctx(node);
	isl_union_set_list *parts = isl_union_set_list_alloc(ctx, split);
	int used = 0;
	for (int part = 0; part < split; part++) {
		isl_union_set *f = isl_union_set_empty(isl_space_params_alloc(ctx, 0));
		bool any = false;
		for (int i = 0; i < n; i++)
			if (st->s[idx[i]].part == part) {
				f = isl_union_set_union(f, domain_of(&st->s[idx[i]]));
				any = true;
			}
		if (any) {
			parts = isl_union_set_list_add(parts, f);
			used++;
		} else {
			isl_union_set_free(f);
		}
	}
	if (used < 2) {
		isl_union_set_list_free(parts);
		return node;
	}
	node = isl_schedule_node_insert_sequence(isl_schedule_node_child(node, 0), parts);
	return isl_schedule_node_parent(node);
}

static void nests_free(nests *ns)
{
	free(ns->first);
	free(ns->nest);
}

/* Below node (a leaf over the statements idx[0..n)), a sequence of the
 * loop nests of nests_of(); each nest a band over the statements'
 * points, atomic so that isl does not split loops where cases change; in
 * a fused nest, a sequence of its stages at each point: harris's
 * gradients and products become one loop nest, its box sums and
 * response another.  With strips (an untiled group under the tiling's
 * schedule), a recurrence's nest is in its own order (recur_order.h).
 * Returns the node at the same position. */
static __isl_give isl_schedule_node *stage_nests(__isl_take isl_schedule_node *node,
	const pt_stmts *st, const int *idx, int n, bool fuse, bool strips)
{
	isl_ctx *ctx = isl_schedule_node_get_ctx(node);
	nests ns = nests_of(st, idx, n, fuse);
	int nnest = ns.nnest, *nest = ns.nest, *first = ns.first;
	isl_union_set_list *filters = isl_union_set_list_alloc(ctx, nnest);
	for (int k = 0; k < nnest; k++) {
		isl_union_set *f = isl_union_set_empty(isl_space_params_alloc(ctx, 0));
		for (int i = first[nest[k]]; i < first[nest[k + 1]]; i++)
			f = isl_union_set_union(f, domain_of(&st->s[idx[i]]));
		filters = isl_union_set_list_add(filters, f);
	}
	if (nnest > 1)
		node = isl_schedule_node_insert_sequence(node, filters);
	else
		isl_union_set_list_free(filters);
	for (int k = 0; k < nnest; k++) {
		const pt_stmt *t = &st->s[idx[first[nest[k]]]];
		int width = t->nvars + (t->kind == PT_STMT_UPDATE ? 1 : 0);
		if (width == 0)
			continue;
		pt_recur_order ro = { -1, 0, -1 };
		if (strips && nest[k + 1] - nest[k] == 1)
			ro = pt_poly_recur_order(st->s, idx + first[nest[k]], first[nest[k + 1]] - first[nest[k]]);
		isl_union_map *band = isl_union_map_empty(isl_space_params_alloc(ctx, 0));
		for (int i = first[nest[k]]; i < first[nest[k + 1]]; i++)
			band = isl_union_map_union(band, band_of(&st->s[idx[i]], width, ro));
		if (nnest > 1)
			node = isl_schedule_node_child(isl_schedule_node_child(node, k), 0);
		node = isl_schedule_node_insert_partial_schedule(node,
			isl_multi_union_pw_aff_from_union_map(band));
		/* a split stage's innermost loop is separated, so that the parts
		 * run unguarded in the full iterations */
		char opts[80] = "{ atomic[x] }";
		if (t->split > 1)
			snprintf(opts, sizeof(opts), "{ atomic[x] : x < %d; separate[x] : x = %d }", width - 1, width - 1);
		node = isl_schedule_node_band_set_ast_build_options(node, isl_union_set_read_from_str(ctx, opts));
		int nfused = nest[k + 1] - nest[k];
		/* (only where it reads itself at another y: others keep isl's
		 * order, which the vectorized parts were measured in) */
		if (nfused == 1 && t->split > 1 && !t->stage->self_fixed[t->stage->ndim - 1])
			node = parts_in_order(node, st, idx + first[nest[k]], first[nest[k + 1]] - first[nest[k]], t->split);
		if (nfused > 1) {
			/* the fused stages in order at each point */
			isl_union_set_list *order = isl_union_set_list_alloc(ctx, nfused);
			for (int e = nest[k]; e < nest[k + 1]; e++)
				order = isl_union_set_list_add(order, domain_of(&st->s[idx[first[e]]]));
			node = isl_schedule_node_insert_sequence(isl_schedule_node_child(node, 0), order);
			node = isl_schedule_node_parent(node);
		}
		if (nnest > 1)
			node = isl_schedule_node_parent(isl_schedule_node_parent(node));
	}
	nests_free(&ns);
	return node;
}

static __isl_give isl_schedule *schedule_from(__isl_take isl_schedule_node *node)
{
	isl_schedule *sch = isl_schedule_node_get_schedule(node);
	isl_schedule_node_free(node);
	return sch;
}

static __isl_give isl_union_set *all_domains(const pt_stmts *st)
{
	isl_ctx *ctx = isl_set_get_ctx(st->s[0].domain);
	isl_union_set *all = isl_union_set_empty(isl_space_params_alloc(ctx, 0));
	for (int i = 0; i < st->n; i++)
		all = isl_union_set_union(all, domain_of(&st->s[i]));
	return all;
}

__isl_give isl_schedule *pt_poly_stmts_naive_schedule(const pt_stmts *st)
{
	if (!st->n)
		return NULL;
	isl_schedule *sch = isl_schedule_from_domain(all_domains(st));
	isl_schedule_node *node = isl_schedule_node_child(isl_schedule_get_root(sch), 0);
	isl_schedule_free(sch);
	int *idx = malloc(sizeof(int) * (size_t)st->n);
	for (int i = 0; i < st->n; i++)
		idx[i] = i;
	node = stage_nests(node, st, idx, st->n, false, false);
	free(idx);
	return schedule_from(node);
}

/* The band of a tiled group's statements over their tile coordinates. */
static __isl_give isl_multi_union_pw_aff *tile_band(const pt_stmts *st, const int *idx, int n, int ntile)
{
	isl_ctx *ctx = isl_set_get_ctx(st->s[idx[0]].domain);
	isl_union_map *band = isl_union_map_empty(isl_space_params_alloc(ctx, 0));
	for (int i = 0; i < n; i++) {
		const pt_stmt *t = &st->s[idx[i]];
		isl_space *sp = isl_set_get_space(t->domain);
		int nd = (int)isl_space_dim(sp, isl_dim_set);
		isl_map *m = isl_map_identity(isl_space_map_from_set(sp));
		m = isl_map_project_out(m, isl_dim_out, (unsigned)ntile, (unsigned)(nd - ntile));
		m = isl_map_reset_tuple_id(m, isl_dim_out);
		band = isl_union_map_union(band, isl_union_map_from_map(m));   /* as band_of */
	}
	return isl_multi_union_pw_aff_from_union_map(band);
}

__isl_give isl_schedule *pt_poly_stmts_tiled_schedule(const pt_stmts *st, const pt_tiling *tl,
	isl_set *const *full)
{
	if (!st->n)
		return NULL;
	isl_ctx *ctx = isl_set_get_ctx(st->s[0].domain);
	isl_schedule *sch = isl_schedule_from_domain(all_domains(st));
	isl_schedule_node *node = isl_schedule_node_child(isl_schedule_get_root(sch), 0);
	isl_schedule_free(sch);
	/* the statements of each group, in the groups' order */
	int **idx = calloc((size_t)tl->ngroups, sizeof(int *)), *n = calloc((size_t)tl->ngroups, sizeof(int));
	isl_union_set_list *filters = isl_union_set_list_alloc(ctx, tl->ngroups);
	for (int g = 0; g < tl->ngroups; g++) {
		idx[g] = malloc(sizeof(int) * (size_t)st->n);
		isl_union_set *f = isl_union_set_empty(isl_space_params_alloc(ctx, 0));
		for (int i = 0; i < st->n; i++)
			if (tl->group_of[st->s[i].stage->id] == g) {
				idx[g][n[g]++] = i;
				f = isl_union_set_union(f, domain_of(&st->s[i]));
			}
		filters = isl_union_set_list_add(filters, f);
	}
	if (tl->ngroups > 1)
		node = isl_schedule_node_insert_sequence(node, filters);
	else
		isl_union_set_list_free(filters);
	for (int g = 0; g < tl->ngroups; g++) {
		if (tl->ngroups > 1)
			node = isl_schedule_node_child(isl_schedule_node_child(node, g), 0);
		const pt_group *gr = &tl->groups[g];
		if (gr->ntile > 0 && n[g] > 0) {
			/* tiles, then inside each tile the stages' nests in order */
			node = isl_schedule_node_insert_partial_schedule(node, tile_band(st, idx[g], n[g], gr->ntile));
			node = isl_schedule_node_band_set_permutable(node, 1);
			if (full && full[g]) {
				/* the full tiles generated apart: their loops' bounds
				 * are then the tile's, with no min or max */
				isl_set *iso = isl_map_wrap(isl_map_from_range(isl_set_copy(full[g])));
				iso = isl_set_set_tuple_name(iso, "isolate");
				node = isl_schedule_node_band_set_ast_build_options(node, isl_union_set_from_set(iso));
			}
			node = isl_schedule_node_child(node, 0);
			node = isl_schedule_node_insert_mark(node, isl_id_alloc(ctx, "tile", (void *)gr));
			node = isl_schedule_node_child(node, 0);
			node = stage_nests(node, st, idx[g], n[g], true, true);
			node = isl_schedule_node_parent(isl_schedule_node_parent(node));
		} else if (n[g] > 0) {
			node = stage_nests(node, st, idx[g], n[g], false, true);
		}
		if (tl->ngroups > 1)
			node = isl_schedule_node_parent(isl_schedule_node_parent(node));
		free(idx[g]);
	}
	free(idx);
	free(n);
	return schedule_from(node);
}

void pt_poly_stmts_fused_nests(const pt_stmts *st, const pt_tiling *tl, int g, int *nest)
{
	for (int i = 0; i < st->n; i++)
		nest[st->s[i].stage->id] = -1;
	int n = 0, *idx = malloc(sizeof(int) * ((size_t)st->n + 1));
	for (int i = 0; i < st->n; i++)
		if (tl->group_of[st->s[i].stage->id] == g)
			idx[n++] = i;
	nests ns = nests_of(st, idx, n, tl->groups[g].ntile > 0);
	for (int k = 0; k < ns.nnest; k++)
		for (int e = ns.nest[k]; e < ns.nest[k + 1] && ns.nest[k + 1] - ns.nest[k] > 1; e++)
			nest[st->s[idx[ns.first[e]]].stage->id] = k;
	nests_free(&ns);
	free(idx);
}
