/* statements.c: stages split into statements by case, with the loops that
 * carry their dependences. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/id.h>
#include <isl/local_space.h>
#include <isl/map.h>
#include <isl/schedule_node.h>
#include <isl/union_set.h>
#include <isl/space.h>
#include <isl/val.h>

#include "access.h"
#include "isl_expr.h"
#include "statements.h"

/* The stage whose self-reads self_read looks at, and the dims found. */
typedef struct self_reads {
	const pt_stage *s;
	unsigned carried;
} self_reads;

/* Domain dims carrying a self-read of s: a self-read equals the point in
 * dims < k and is strictly earlier in dim k (the typecheck rule). */
static void self_read(const pt_expr *e, void *user)
{
	self_reads *r = user;
	const pt_stage *s = r->s;
	if (e->kind != PT_E_CALL || e->stage != s)
		return;
	for (int d = 0; d < e->nargs; d++) {
		pt_affine a = {0};
		bool same = pt_expr_affine(e->args[d], 0, s->ndim + s->nrdim, &a) && a.div == 1 && a.cst == 0;
		for (int v = 0; same && v < s->ndim + s->nrdim; v++)
			same = a.vcoef[v] == (v == d ? 1 : 0);
		pt_affine_clear(&a);
		if (!same) {
			r->carried |= 1u << d;
			return;
		}
	}
}

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

static void add(pt_stmts *st, isl_ctx *ctx, const pt_stage *s, pt_stmt_kind kind, int k,
	__isl_take isl_set *dom, unsigned carried)
{
	pt_stmt *t = &st->s[st->n++];
	memset(t, 0, sizeof(*t));
	t->kind = kind;
	t->stage = s;
	t->ncase = k;
	t->var0 = kind == PT_STMT_UPDATE ? s->ndim : 0;
	t->nvars = kind == PT_STMT_UPDATE ? s->nrdim : s->ndim;
	t->carried = carried;
	const char *pre = kind == PT_STMT_FUNC ? "S" : kind == PT_STMT_INIT ? "I" : "U";
	if (k >= 0)
		snprintf(t->name, sizeof(t->name), "%s%d_%d", pre, s->id, k);
	else
		snprintf(t->name, sizeof(t->name), "%s%d", pre, s->id);
	/* dim names must not clash with isl's iterators or the params */
	for (int d = 0; d < t->nvars; d++)
		dom = isl_set_set_dim_name(dom, isl_dim_set, (unsigned)d, NULL);
	t->domain = isl_set_set_tuple_id(dom, isl_id_alloc(ctx, t->name, t));
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

/* Plain stage: one statement per affine case, or one for all.  Split
 * statements put isl's guards around loops, which pays when the guards
 * depend on outer variables only; a condition on the innermost variable
 * would leave a branch inside the innermost loop either way, and there
 * the case is chosen at run time (simpler code for LLVM, and isl's AST
 * generation for split cases costs seconds on a large pipeline). */
static bool add_func(pt_stmts *st, isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s, unsigned carried)
{
	isl_set *dom = iter_box(ctx, p, s);
	if (!dom)
		return false;
	isl_set **cs = calloc((size_t)s->ncases + 1, sizeof(*cs));
	bool affine = true;
	for (int k = 0; k < s->ncases && s->ncases > 1 && s->ndim > 0; k++)
		if (uses_var(s->cases[k].cond, s->ndim - 1))
			affine = false;
	for (int k = 0; k < s->ncases && affine; k++)
		if (s->cases[k].cond && !(cs[k] = cond_set(ctx, p, s, s->cases[k].cond, false)))
			affine = false;
	if (!affine) {
		add(st, ctx, s, PT_STMT_FUNC, -1, dom, carried);
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
				add(st, ctx, s, PT_STMT_FUNC, k, d, carried);
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
	add(st, ctx, s, PT_STMT_INIT, -1, dom, 0);
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
		/* updates may hit one point from many iterations: no parallel loop */
		add(st, ctx, s, PT_STMT_UPDATE, k, d, ~0u);
		st->s[st->n - 1].cond_at_run_time = run_time;
	}
	isl_set_free(rdom);
	return true;
}

pt_stmts *pt_poly_stmts(isl_ctx *ctx, const pt_pipeline *p)
{
	int cap = 0;
	for (int i = 0; i < p->nstages; i++)
		cap += p->stages[i]->ncases + 1;
	pt_stmts *st = calloc(1, sizeof(*st));
	st->s = calloc((size_t)cap + 1, sizeof(pt_stmt));
	for (int i = 0; i < p->nstages; i++) {
		const pt_stage *s = p->stages[i];
		bool ok;
		if (s->red) {
			ok = add_reduction(st, ctx, p, s);
		} else {
			self_reads r = { s, 0 };
			for (int k = 0; k < s->ncases; k++) {
				pt_expr_walk(s->cases[k].cond, self_read, &r);
				pt_expr_walk(s->cases[k].value, self_read, &r);
			}
			ok = add_func(st, ctx, p, s, r.carried);
		}
		if (!ok) {
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
	for (int i = 0; i < st->n; i++)
		isl_set_free(st->s[i].domain);
	free(st->s);
	free(st);
}

bool pt_stmt_dim_parallel(const pt_stmt *st, int d)
{
	return d >= 0 && d < 32 && !(st->carried & (1u << d));
}

/* Statement t's band: its point, then for updates the case index (cases
 * of one update apply in order at each reduction point). */
static __isl_give isl_union_map *band_of(const pt_stmt *t, int width)
{
	isl_ctx *ctx = isl_set_get_ctx(t->domain);
	isl_space *dsp = isl_set_get_space(t->domain);
	isl_space *sp = isl_space_map_from_domain_and_range(isl_space_copy(dsp),
		isl_space_set_from_params(isl_space_params(isl_space_copy(dsp))));
	sp = isl_space_add_dims(sp, isl_dim_out, (unsigned)width);
	isl_local_space *ls = isl_local_space_from_space(dsp);
	isl_aff_list *list = isl_aff_list_alloc(ctx, width);
	for (int d = 0; d < width; d++)
		list = isl_aff_list_add(list, d < t->nvars ?
			isl_aff_var_on_domain(isl_local_space_copy(ls), isl_dim_set, (unsigned)d) :
			isl_aff_val_on_domain(isl_local_space_copy(ls),
				isl_val_int_from_si(ctx, t->kind == PT_STMT_UPDATE ? t->ncase : 0)));
	isl_local_space_free(ls);
	isl_map *m = isl_map_from_multi_aff(isl_multi_aff_from_aff_list(sp, list));
	return isl_union_map_from_map(isl_map_intersect_domain(m, isl_set_copy(t->domain)));
}

__isl_give isl_schedule *pt_poly_stmts_naive_schedule(const pt_stmts *st)
{
	if (!st->n)
		return NULL;
	isl_ctx *ctx = isl_set_get_ctx(st->s[0].domain);
	isl_union_set *all = isl_union_set_empty(isl_space_params_alloc(ctx, 0));
	isl_union_set_list *filters = isl_union_set_list_alloc(ctx, st->n);
	/* groups: the cases of one stage share a loop nest; init and updates
	 * are separate nests */
	int ngroups = 0, *first = calloc((size_t)st->n + 1, sizeof(int));
	for (int i = 0; i < st->n; i++) {
		const pt_stmt *t = &st->s[i];
		isl_union_set *d = isl_union_set_from_set(isl_set_copy(t->domain));
		all = isl_union_set_union(all, isl_union_set_copy(d));
		if (i == 0 || t->stage != st->s[i - 1].stage || t->kind != st->s[i - 1].kind) {
			first[ngroups++] = i;
			filters = isl_union_set_list_add(filters, d);
		} else {
			isl_union_set *f = isl_union_set_list_get_union_set(filters, ngroups - 1);
			filters = isl_union_set_list_set_union_set(filters, ngroups - 1, isl_union_set_union(f, d));
		}
	}
	first[ngroups] = st->n;
	isl_schedule *sch = isl_schedule_from_domain(all);
	isl_schedule_node *node = isl_schedule_node_child(isl_schedule_get_root(sch), 0);
	isl_schedule_free(sch);
	if (ngroups > 1)
		node = isl_schedule_node_insert_sequence(node, filters);
	else
		isl_union_set_list_free(filters);
	for (int g = 0; g < ngroups; g++) {
		const pt_stmt *t = &st->s[first[g]];
		int width = t->nvars + (t->kind == PT_STMT_UPDATE ? 1 : 0);
		if (width == 0)
			continue;
		isl_union_map *band = isl_union_map_empty(isl_space_params_alloc(ctx, 0));
		for (int i = first[g]; i < first[g + 1]; i++)
			band = isl_union_map_union(band, band_of(&st->s[i], width));
		if (ngroups > 1)
			node = isl_schedule_node_child(isl_schedule_node_child(node, g), 0);
		node = isl_schedule_node_insert_partial_schedule(node,
			isl_multi_union_pw_aff_from_union_map(band));
		/* one loop per statement and level: isl does not split loops
		 * into the pieces where different cases hold */
		node = isl_schedule_node_band_set_ast_build_options(node,
			isl_union_set_read_from_str(ctx, "{ atomic[x] }"));
		if (ngroups > 1)
			node = isl_schedule_node_parent(isl_schedule_node_parent(node));
	}
	free(first);
	sch = isl_schedule_node_get_schedule(node);
	isl_schedule_node_free(node);
	return sch;
}
