/* access.c: access relations, the points where each access is evaluated,
 * and dependence vectors (see access.h for the spaces and rules). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/local_space.h>
#include <isl/val.h>

#include "access.h"
#include "range.h"
#include "isl_expr.h"

/* ---- spaces and domains ---- */

/* A reduction's reduction domain seen as the domain of a stage. */
static pt_stage reduction_view(const pt_stage *s)
{
	pt_stage t = *s;
	t.ndim = s->nrdim;
	t.dom = s->rdom;
	t.vars = s->vars + s->ndim;
	t.red = PT_RED_NONE;
	t.nrdim = 0;
	return t;
}

/* The evaluation space: every variable of s (result ones first). */
static __isl_give isl_space *eval_space(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s)
{
	return pt_poly_stage_space(ctx, p, s, s->ndim + (s->red ? s->nrdim : 0));
}

/* The domain in the evaluation space (a reduction's result variables
 * unconstrained). */
static __isl_give isl_set *eval_domain(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s,
	__isl_keep isl_space *sp)
{
	if (!s->red)
		return pt_poly_domain_set(sp, s);
	pt_stage t = reduction_view(s);
	isl_space *rsp = pt_poly_stage_space(ctx, p, &t, t.ndim);
	isl_set *r = pt_poly_domain_set(rsp, &t);
	isl_space_free(rsp);
	if (!r)
		return NULL;
	r = isl_set_insert_dims(r, isl_dim_set, 0, (unsigned)s->ndim);
	for (int i = 0; i < s->ndim; i++)
		r = isl_set_set_dim_name(r, isl_dim_set, (unsigned)i, s->vars[i]);
	return r;
}

/* From the evaluation space to the iteration space. */
static __isl_give isl_set *to_iter_set(__isl_take isl_set *set, const pt_stage *s)
{
	if (s->red)
		set = isl_set_project_out(set, isl_dim_set, 0, (unsigned)s->ndim);
	return isl_set_set_tuple_name(set, s->name);
}

static __isl_give isl_map *to_iter_map(__isl_take isl_map *map, const pt_stage *s)
{
	if (s->red)
		map = isl_map_project_out(map, isl_dim_in, 0, (unsigned)s->ndim);
	return isl_map_set_tuple_name(map, isl_dim_in, s->name);
}

__isl_give isl_space *pt_poly_iter_space(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s)
{
	pt_stage t = s->red ? reduction_view(s) : *s;
	return isl_space_set_tuple_name(pt_poly_stage_space(ctx, p, &t, t.ndim), isl_dim_set, s->name);
}

__isl_give isl_set *pt_poly_iter_domain(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s)
{
	pt_stage t = s->red ? reduction_view(s) : *s;
	isl_space *sp = pt_poly_stage_space(ctx, p, &t, t.ndim);
	isl_set *dom = pt_poly_domain_set(sp, &t);
	isl_space_free(sp);
	return dom ? isl_set_set_tuple_name(dom, s->name) : NULL;
}

/* ---- value ranges of arguments that isl cannot represent exactly ---- */

/* Bounds of an int expression; NULL: unbounded on that side. */
typedef struct bounds {
	isl_pw_aff *lo, *hi;
} bounds;

static __isl_give isl_pw_aff *constant(__isl_keep isl_space *sp, int64_t v)
{
	return isl_pw_aff_val_on_domain(isl_set_universe(isl_space_copy(sp)),
		isl_val_int_from_si(isl_space_get_ctx(sp), (long)v));
}

/* The range of a type: for the narrow ones only in access relations (a
 * 32- or 64-bit range only adds pieces at +-2^31 to them: unbounded
 * instead), for every integer type when deciding (all). */
static bounds type_bounds(__isl_keep isl_space *sp, int t, bool all)
{
	bounds r = {NULL, NULL};
	if (pt_type_is_int(t) && (all || pt_type_bits(t) <= 16)) {
		int64_t lo, hi;
		pt_type_range(t, &lo, &hi);
		r.lo = constant(sp, lo);
		r.hi = constant(sp, hi);
	}
	return r;
}

/* a op b, or NULL when either is unbounded. */
static __isl_give isl_pw_aff *add2(__isl_take isl_pw_aff *a, __isl_take isl_pw_aff *b, bool sub)
{
	if (!a || !b) {
		isl_pw_aff_free(a);
		isl_pw_aff_free(b);
		return NULL;
	}
	return sub ? isl_pw_aff_sub(a, b) : isl_pw_aff_add(a, b);
}

/* min or max of two bounds; with one unbounded: NULL if both are needed,
 * else the bounded one (min(a, b) <= a whatever b is). */
static __isl_give isl_pw_aff *pick(__isl_take isl_pw_aff *a, __isl_take isl_pw_aff *b, bool min,
	bool need_both)
{
	if (!a || !b) {
		if (need_both) {
			isl_pw_aff_free(a);
			isl_pw_aff_free(b);
			return NULL;
		}
		return a ? a : b;
	}
	return min ? isl_pw_aff_min(a, b) : isl_pw_aff_max(a, b);
}

static __isl_give isl_pw_aff *scale(__isl_take isl_pw_aff *a, int64_t k)
{
	if (!a)
		return NULL;
	return isl_pw_aff_scale_val(a, isl_val_int_from_si(isl_pw_aff_get_ctx(a), (long)k));
}

static __isl_give isl_pw_aff *floor_div(__isl_take isl_pw_aff *a, int64_t k)
{
	if (!a)
		return NULL;
	return isl_pw_aff_floor(isl_pw_aff_scale_down_val(a, isl_val_int_from_si(isl_pw_aff_get_ctx(a), (long)k)));
}

/* poly/'s bounds for pt_range_of (frontend/range.h): isl_pw_aff over the
 * evaluation space; parts that read no data and that isl represents are
 * exact.  With a context (a set on the space), bounds are compared on it
 * (a conversion keeps the values that provably fit its type). */
typedef struct isl_user {
	isl_space *sp;
	isl_set *context;       /* or NULL: nothing is compared */
} isl_user;

static void *isl_exact(const pt_expr *e, void *u)
{
	return pt_poly_pw_aff(((isl_user *)u)->sp, e);
}

static void *isl_var(int index, bool hi, void *u)
{
	(void)index, (void)hi, (void)u;
	return NULL;            /* isl_exact gives every variable of the space */
}

static void *isl_type_bound(int t, bool hi, void *u)
{
	isl_user *x = u;
	bounds b = type_bounds(x->sp, t, x->context != NULL);
	isl_pw_aff_free(hi ? b.lo : b.hi);
	return hi ? b.hi : b.lo;
}

static void *isl_constant(int64_t v, void *u)
{
	return constant(((isl_user *)u)->sp, v);
}

static void *isl_copy(const void *a, void *u)
{
	(void)u;
	return isl_pw_aff_copy((isl_pw_aff *)a);
}

static void *isl_add(void *a, void *b, bool sub, void *u)
{
	(void)u;
	return add2(a, b, sub);
}

static void *isl_scale(void *a, int64_t k, void *u)
{
	(void)u;
	return scale(a, k);
}

static void *isl_floordiv(void *a, int64_t k, void *u)
{
	(void)u;
	return floor_div(a, k);
}

static void *isl_minmax(void *a, void *b, bool min, bool need_both, void *u)
{
	(void)u;
	return pick(a, b, min, need_both);
}

/* Whether a <= b at every point of the context. */
static bool isl_le(const void *a, const void *b, void *u)
{
	isl_user *x = u;
	isl_set *gt = isl_pw_aff_gt_set(isl_pw_aff_copy((isl_pw_aff *)a), isl_pw_aff_copy((isl_pw_aff *)b));
	gt = isl_set_intersect(gt, isl_set_copy(x->context));
	bool le = isl_set_is_empty(gt) == isl_bool_true;
	isl_set_free(gt);
	return le;
}

static void isl_free(void *a, void *u)
{
	(void)u;
	isl_pw_aff_free(a);
}

static const pt_range_ops isl_ops = {
	isl_exact, isl_var, isl_type_bound, isl_constant, isl_copy, isl_add, isl_scale,
	isl_floordiv, isl_minmax, NULL, isl_free
};

static const pt_range_ops isl_ops_on_context = {
	isl_exact, isl_var, isl_type_bound, isl_constant, isl_copy, isl_add, isl_scale,
	isl_floordiv, isl_minmax, isl_le, isl_free
};

/* Over-approximates the values of e (wrap-around is not modelled). */
static bounds range_of(__isl_keep isl_space *sp, const pt_expr *e)
{
	isl_user u = {sp, NULL};
	pt_range r = pt_range_of(e, &isl_ops, &u);
	return (bounds){r.lo, r.hi};
}

void pt_poly_index_range(__isl_keep isl_space *space, __isl_keep isl_set *context, const pt_expr *e,
	__isl_give isl_pw_aff **lo, __isl_give isl_pw_aff **hi)
{
	isl_user u = {space, context};
	pt_range r = pt_range_of(e, &isl_ops_on_context, &u);
	*lo = r.lo;
	*hi = r.hi;
}

/* { space -> [i] : lo <= i <= hi } (a missing bound: no constraint). */
static __isl_give isl_map *bounds_map(__isl_keep isl_space *sp, bounds b)
{
	isl_space *one = isl_space_add_dims(isl_space_set_from_params(isl_space_params(isl_space_copy(sp))),
		isl_dim_set, 1);
	isl_map *m = isl_map_universe(isl_space_map_from_domain_and_range(isl_space_copy(sp),
		isl_space_copy(one)));
	if (b.lo)
		m = isl_map_intersect(m, isl_map_apply_range(isl_map_from_pw_aff(b.lo),
			isl_map_lex_le(isl_space_copy(one))));
	if (b.hi)
		m = isl_map_intersect(m, isl_map_apply_range(isl_map_from_pw_aff(b.hi),
			isl_map_lex_ge(isl_space_copy(one))));
	isl_space_free(one);
	return m;
}

/* The callee's box in dimension d (images: 0 .. extent - 1). */
static bounds callee_box(__isl_keep isl_space *sp, const pt_expr *call, int d)
{
	bounds r = {NULL, NULL};
	if (call->stage) {
		r.lo = pt_poly_pw_aff(sp, call->stage->dom[d].lo);
		r.hi = pt_poly_pw_aff(sp, call->stage->dom[d].hi);
	} else if (call->image) {
		r.lo = constant(sp, 0);
		r.hi = pt_poly_pw_aff(sp, call->image->extent[d]);
		if (r.hi)
			r.hi = isl_pw_aff_sub(r.hi, constant(sp, 1));
	}
	return r;
}

__isl_give isl_map *pt_poly_access_map_where(const pt_poly_access *a)
{
	if (a->map)
		return isl_map_copy(a->map);
	return isl_map_intersect_domain(pt_poly_access_map(a->space, a->call), isl_set_copy(a->where));
}

__isl_give isl_map *pt_poly_access_map(__isl_keep isl_space *space, const pt_expr *call)
{
	isl_map *m = NULL;
	for (int d = 0; d < call->nargs; d++) {
		const pt_expr *arg = call->args[d];
		bool data = pt_expr_has_call(arg);
		isl_pw_aff *pa = data ? NULL : pt_poly_pw_aff(space, arg);
		isl_map *md;
		if (pa) {
			md = isl_map_from_pw_aff(pa);
		} else {
			bounds b = range_of(space, arg);
			if (data) {
				/* proved inside the callee's box by the bounds check */
				bounds box = callee_box(space, call, d);
				b.lo = pick(b.lo, box.lo, false, false);
				b.hi = pick(b.hi, box.hi, true, false);
			}
			md = bounds_map(space, b);
		}
		m = m ? isl_map_flat_range_product(m, md) : md;
	}
	if (!m)
		return NULL;
	return isl_map_set_tuple_name(m, isl_dim_out, call->name);
}

/* ---- where each access is evaluated ---- */

/* A superset (over) or a subset (!over) of the points where condition e
 * holds. */
static __isl_give isl_set *cond_approx(__isl_keep isl_space *sp, const pt_expr *e, bool over)
{
	if (e->kind == PT_E_BINARY && (e->op == PT_OP_AND || e->op == PT_OP_OR) && e->type == PT_BOOL) {
		isl_set *a = cond_approx(sp, e->args[0], over);
		isl_set *b = cond_approx(sp, e->args[1], over);
		return e->op == PT_OP_AND ? isl_set_intersect(a, b) : isl_set_union(a, b);
	}
	if (e->kind == PT_E_UNARY && e->op == PT_OP_NOT)
		return isl_set_complement(cond_approx(sp, e->args[0], !over));
	isl_set *x = pt_expr_has_call(e) ? NULL : pt_poly_cond_set(sp, e);
	if (x)
		return x;
	return over ? isl_set_universe(isl_space_copy(sp)) : isl_set_empty(isl_space_copy(sp));
}

typedef struct walker {
	isl_space *sp;
	bool (*fn)(const pt_poly_access *a, void *user);
	void *user;
	int case_index;
	bool stop;
} walker;

static void visit(walker *w, const pt_expr *call, __isl_keep isl_set *where, bool target)
{
	if (w->stop)
		return;
	pt_poly_access a = {call, w->case_index, target, w->sp, where, NULL};
	if (!w->fn(&a, w->user))
		w->stop = true;
}

static void walk_expr(walker *w, const pt_expr *e, __isl_keep isl_set *where);

/* Walks e where where holds and guard holds (over-approximated), or,
 * with negate, where the guard does not provably hold. */
static void walk_guarded(walker *w, const pt_expr *e, __isl_keep isl_set *where, const pt_expr *guard,
	bool negate)
{
	if (w->stop || !pt_expr_has_call(e))
		return;
	isl_set *g = negate ? isl_set_complement(cond_approx(w->sp, guard, false))
		: cond_approx(w->sp, guard, true);
	g = isl_set_intersect(isl_set_copy(where), g);
	walk_expr(w, e, g);
	isl_set_free(g);
}

static void walk_expr(walker *w, const pt_expr *e, __isl_keep isl_set *where)
{
	if (w->stop || !pt_expr_has_call(e))
		return;
	if (e->kind == PT_E_SELECT) {
		walk_expr(w, e->args[0], where);
		walk_guarded(w, e->args[1], where, e->args[0], false);
		walk_guarded(w, e->args[2], where, e->args[0], true);
		return;
	}
	if (e->kind == PT_E_BINARY && (e->op == PT_OP_AND || e->op == PT_OP_OR)) {
		walk_expr(w, e->args[0], where);
		walk_guarded(w, e->args[1], where, e->args[0], e->op == PT_OP_OR);
		return;
	}
	for (int i = 0; i < e->nargs; i++)
		walk_expr(w, e->args[i], where);
	if (e->kind == PT_E_CALL && (e->stage || e->image))
		visit(w, e, where, false);
}

bool pt_poly_walk(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s,
	bool (*fn)(const pt_poly_access *a, void *user), void *user)
{
	walker w = {eval_space(ctx, p, s), fn, user, 0, false};
	isl_set *dom = eval_domain(ctx, p, s, w.sp);
	if (!dom) {
		isl_space_free(w.sp);
		return false;
	}
	/* function cases: where no earlier condition (provably) holds */
	isl_set *rest = isl_set_copy(dom);
	for (int c = 0; c < s->ncases && !w.stop; c++) {
		const pt_case *k = &s->cases[c];
		w.case_index = c;
		if (k->cond)
			walk_expr(&w, k->cond, dom);
		if (k->target || pt_expr_has_call(k->value)) {
			isl_set *g = isl_set_copy(s->red ? dom : rest);
			if (k->cond)
				g = isl_set_intersect(g, cond_approx(w.sp, k->cond, true));
			if (k->target) {
				for (int d = 0; d < s->ndim; d++)
					walk_expr(&w, k->target[d], g);
				pt_expr call = {0};
				call.kind = PT_E_CALL;
				call.type = s->type;
				call.loc = k->loc;
				call.name = s->name;
				call.stage = (pt_stage *)s;
				call.nargs = s->ndim;
				call.args = k->target;
				visit(&w, &call, g, true);
			}
			walk_expr(&w, k->value, g);
			isl_set_free(g);
		}
		if (!s->red && k->cond && c + 1 < s->ncases)
			rest = isl_set_subtract(rest, cond_approx(w.sp, k->cond, false));
	}
	isl_set_free(rest);
	isl_set_free(dom);
	isl_space_free(w.sp);
	return true;
}

/* ---- the public accessors ---- */

__isl_give isl_map *pt_poly_call_access(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s,
	const pt_expr *call)
{
	isl_space *sp = eval_space(ctx, p, s);
	isl_map *m = pt_poly_access_map(sp, call);
	isl_space_free(sp);
	return m ? to_iter_map(m, s) : NULL;
}

typedef struct finder {
	const pt_expr *call;    /* the call looked for, or NULL for a target */
	int case_index;
	isl_set *where;
	isl_map *access;
} finder;

static bool find(const pt_poly_access *a, void *user)
{
	finder *f = user;
	if (f->call ? a->call != f->call : (!a->is_target || a->case_index != f->case_index))
		return true;
	f->where = isl_set_copy(a->where);
	if (a->is_target)
		f->access = pt_poly_access_map(a->space, a->call);
	return false;
}

__isl_give isl_set *pt_poly_call_domain(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s,
	const pt_expr *call)
{
	finder f = {call, 0, NULL, NULL};
	if (!call || !pt_poly_walk(ctx, p, s, find, &f))
		return NULL;
	return f.where ? to_iter_set(f.where, s) : NULL;
}

/* Finds update c's target: its domain and its access relation. */
static void find_target(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s, int c, finder *f)
{
	f->call = NULL;
	f->case_index = c;
	f->where = NULL;
	f->access = NULL;
	if (s->red && c >= 0 && c < s->ncases && s->cases[c].target)
		pt_poly_walk(ctx, p, s, find, f);
}

__isl_give isl_map *pt_poly_target_access(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s, int c)
{
	finder f;
	find_target(ctx, p, s, c, &f);
	isl_set_free(f.where);
	return f.access ? to_iter_map(f.access, s) : NULL;
}

__isl_give isl_set *pt_poly_target_domain(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s, int c)
{
	finder f;
	find_target(ctx, p, s, c, &f);
	isl_map_free(f.access);
	return f.where ? to_iter_set(f.where, s) : NULL;
}

/* ---- dependence vectors ---- */

typedef struct deps {
	const pt_stage *producer, *consumer;
	isl_set *vec;
} deps;

static bool add_deps(const pt_poly_access *a, void *user)
{
	deps *dp = user;
	if (a->is_target || a->call->stage != dp->producer)
		return true;
	isl_map *m = pt_poly_access_map_where(a);
	if (dp->consumer->red)
		m = isl_map_project_out(m, isl_dim_in, 0, (unsigned)dp->consumer->ndim);
	m = isl_map_reset_tuple_id(isl_map_reset_tuple_id(m, isl_dim_in), isl_dim_out);
	/* reversed: producer point -> consumer point, so deltas are consumer - producer */
	dp->vec = isl_set_union(dp->vec, isl_map_deltas(isl_map_reverse(m)));
	return true;
}

__isl_give isl_set *pt_poly_dependence_vectors(isl_ctx *ctx, const pt_pipeline *p,
	const pt_stage *producer, const pt_stage *consumer)
{
	int n = consumer->red ? consumer->nrdim : consumer->ndim;
	if (!producer || producer->ndim != n)
		return NULL;
	isl_space *sp = isl_space_reset_tuple_id(pt_poly_iter_space(ctx, p, consumer), isl_dim_set);
	deps dp = {producer, consumer, isl_set_empty(isl_space_copy(sp))};
	if (!pt_poly_walk(ctx, p, consumer, add_deps, &dp)) {
		isl_set_free(dp.vec);
		isl_space_free(sp);
		return NULL;
	}
	dp.vec = isl_set_intersect_params(dp.vec, pt_poly_admissible(sp, p));
	isl_space_free(sp);
	return isl_set_coalesce(dp.vec);
}

/* ---- a stage's reads, met once and replayed ---- */

typedef struct cached_stage {
	bool walked, ok;
	int n;
	pt_poly_access *acc;    /* space, where and map owned */
} cached_stage;

static void forget(cached_stage *cs)
{
	for (int k = 0; k < cs->n; k++) {
		isl_space_free(cs->acc[k].space);
		isl_set_free(cs->acc[k].where);
		isl_map_free(cs->acc[k].map);
	}
	free(cs->acc);
	cs->acc = NULL;
	cs->n = 0;
}

typedef struct memo_entry {
	uint64_t hash;
	size_t n;
	void *key;
	isl_set *set;           /* may be NULL when data is set */
	void *data;             /* a copy of the bytes stored with it, or NULL */
	size_t ndata;
} memo_entry;

struct pt_poly_access_cache {
	isl_ctx *ctx;
	const pt_pipeline *p;
	cached_stage *st;       /* by stage id */
	isl_set *nonempty;      /* pt_poly_nonempty of p, or NULL until asked */
	memo_entry *memo;       /* open addressing, cap a power of 2, at most half full */
	size_t nmemo, capmemo;
};

static uint64_t memo_hash(const void *key, size_t n)
{
	const unsigned char *b = key;
	uint64_t h = 1469598103934665603ull;   /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

static memo_entry *memo_slot(pt_poly_access_cache *c, uint64_t h, const void *key, size_t n)
{
	for (size_t i = h & (c->capmemo - 1);; i = (i + 1) & (c->capmemo - 1)) {
		memo_entry *e = &c->memo[i];
		if (!e->key || (e->hash == h && e->n == n && !memcmp(e->key, key, n)))
			return e;
	}
}

__isl_give isl_set *pt_poly_memo_get(pt_poly_access_cache *c, const void *key, size_t n)
{
	if (!c->capmemo)
		return NULL;
	memo_entry *e = memo_slot(c, memo_hash(key, n), key, n);
	return e->key ? isl_set_copy(e->set) : NULL;
}

bool pt_poly_memo_find(pt_poly_access_cache *c, const void *key, size_t n,
	__isl_give isl_set **set, const void **data, size_t *ndata)
{
	memo_entry *e = c->capmemo ? memo_slot(c, memo_hash(key, n), key, n) : NULL;
	if (!e || !e->key)
		return false;
	if (set)
		*set = isl_set_copy(e->set);
	if (data)
		*data = e->data;
	if (ndata)
		*ndata = e->ndata;
	return true;
}

void pt_poly_memo_store(pt_poly_access_cache *c, const void *key, size_t n, __isl_take isl_set *set,
	const void *data, size_t ndata)
{
	if (2 * (c->nmemo + 1) > c->capmemo) {
		size_t cap = c->capmemo ? 2 * c->capmemo : 256;
		memo_entry *old = c->memo;
		size_t oldcap = c->capmemo;
		c->memo = calloc(cap, sizeof(memo_entry));
		c->capmemo = cap;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].key)
				*memo_slot(c, old[i].hash, old[i].key, old[i].n) = old[i];
		free(old);
	}
	uint64_t h = memo_hash(key, n);
	memo_entry *e = memo_slot(c, h, key, n);
	if (e->key) {
		isl_set_free(set);
		return;
	}
	e->hash = h;
	e->n = n;
	e->key = malloc(n);
	memcpy(e->key, key, n);
	e->set = set;
	e->data = NULL;
	e->ndata = ndata;
	if (ndata) {
		e->data = malloc(ndata);
		memcpy(e->data, data, ndata);
	}
	c->nmemo++;
}

void pt_poly_memo_put(pt_poly_access_cache *c, const void *key, size_t n, __isl_take isl_set *set)
{
	if (set)
		pt_poly_memo_store(c, key, n, set, NULL, 0);
}

pt_poly_access_cache *pt_poly_access_cache_new(isl_ctx *ctx, const pt_pipeline *p)
{
	pt_poly_access_cache *c = calloc(1, sizeof(*c));
	c->ctx = ctx;
	c->p = p;
	c->st = calloc((size_t)p->nstages + 1, sizeof(cached_stage));
	return c;
}

void pt_poly_access_cache_free(pt_poly_access_cache *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->p->nstages; i++)
		forget(&c->st[i]);
	free(c->st);
	isl_set_free(c->nonempty);
	for (size_t i = 0; i < c->capmemo; i++)
		if (c->memo[i].key) {
			free(c->memo[i].key);
			free(c->memo[i].data);
			isl_set_free(c->memo[i].set);
		}
	free(c->memo);
	free(c);
}

__isl_give isl_set *pt_poly_access_cache_nonempty(pt_poly_access_cache *c)
{
	if (!c->nonempty) {
		isl_space *sp = pt_poly_stage_space(c->ctx, c->p, NULL, 0);
		c->nonempty = pt_poly_nonempty(sp, c->p);
		isl_space_free(sp);
	}
	return isl_set_copy(c->nonempty);
}

static bool record(const pt_poly_access *a, void *user)
{
	cached_stage *cs = user;
	if (a->is_target)
		return true;
	cs->acc = realloc(cs->acc, sizeof(*cs->acc) * (size_t)(cs->n + 1));
	cs->acc[cs->n] = *a;
	cs->acc[cs->n].space = isl_space_copy(a->space);
	cs->acc[cs->n].where = isl_set_copy(a->where);
	cs->n++;
	return true;
}

typedef struct tee {
	cached_stage *cs;
	bool (*fn)(const pt_poly_access *a, void *user);
	void *user;
	bool stopped;
} tee;

static bool record_and_call(const pt_poly_access *a, void *user)
{
	tee *t = user;
	int n = t->cs->n;
	record(a, t->cs);
	/* a read as recorded, with the map fn (the model) needs anyway, kept
	 * for the grouping's replays */
	pt_poly_access *r = t->cs->n > n ? &t->cs->acc[n] : NULL;
	if (r)
		r->map = pt_poly_access_map_where(a);
	t->stopped = !t->fn(r ? r : a, t->user);
	return !t->stopped;
}

bool pt_poly_walk_recording(pt_poly_access_cache *c, const pt_stage *s,
	bool (*fn)(const pt_poly_access *a, void *user), void *user)
{
	cached_stage *cs = &c->st[s->id];
	if (cs->walked)
		return pt_poly_walk(c->ctx, c->p, s, fn, user);
	tee t = { cs, fn, user, false };
	bool ok = pt_poly_walk(c->ctx, c->p, s, record_and_call, &t);
	if (t.stopped) {
		/* a partial record would replay as the whole walk */
		forget(cs);
	} else {
		cs->walked = true;
		cs->ok = ok;
	}
	return ok;
}

bool pt_poly_walk_reads(pt_poly_access_cache *c, const pt_stage *s,
	bool (*fn)(const pt_poly_access *a, void *user), void *user)
{
	cached_stage *cs = &c->st[s->id];
	if (!cs->walked) {
		cs->walked = true;
		cs->ok = pt_poly_walk(c->ctx, c->p, s, record, cs);
	}
	if (!cs->ok)
		return false;
	for (int k = 0; k < cs->n; k++)
		if (!fn(&cs->acc[k], user))
			break;
	return true;
}
