/* inline.c: inlining of point-wise producers into their consumers.
 *
 * Works on a deep copy of the pipeline.  Stages are visited producers
 * first; a candidate f (see inline.h) is substituted at each call site of
 * each consumer into a copy of the consumer's cases, and the copies replace
 * the originals only when every call site was decided.  The points a call
 * site reads are the image, under its affine arguments, of the region where
 * the consumer evaluates it: for a case's value (and a reduction's target)
 * the consumer's evaluation domain where the case's affine condition holds
 * (for a function, minus earlier affine conditions: points where two cases
 * of a function hold are run-time errors of the reference interpreter, so
 * they need not agree; a reduction applies every case that holds), for a
 * condition the whole evaluation domain, narrowed inside `?:`/select and
 * `&&`/`||` by their affine conditions (the interpreter evaluates only the
 * taken branch). */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/space.h>

#include "inline.h"
#include "isl_expr.h"
#include "expr_limits.h"

/* At most this many nodes are added to one consumer: a chain of stages
 * that each read their producer twice would otherwise double per stage. */
#define MAX_GROWTH 100000

typedef struct inliner {
	isl_ctx *ctx;
	pt_pipeline *q;
	const pt_stage *f;      /* the stage being inlined */
	bool total;             /* some case of f holds at every point of its domain */
	isl_set **where;        /* per case of f: the points of its domain where it holds, or NULL */
	isl_space *cspace;      /* the space of the consumer being rewritten */
	int nsites;
	long grown;             /* nodes added to the consumer so far */
	bool fail;
} inliner;

/* ---- the candidate ---- */

/* Whether the last case's condition is !(c1 || ... || cn) over the earlier
 * conditions, which is what the parser makes of `else`. */
static bool last_is_else(const pt_stage *f)
{
	const pt_expr *e = f->cases[f->ncases - 1].cond;
	if (!e || e->kind != PT_E_UNARY || e->op != PT_OP_NOT)
		return false;
	const pt_expr *any = e->args[0];
	int left = 0;
	for (int c = 0; c < f->ncases - 1; c++)
		left += f->cases[c].cond != NULL;
	for (int c = f->ncases - 2; c >= 0; c--) {
		if (!f->cases[c].cond)
			continue;
		if (--left == 0)
			return pt_expr_equal(any, f->cases[c].cond);
		if (any->kind != PT_E_BINARY || any->op != PT_OP_OR || !pt_expr_equal(any->args[1], f->cases[c].cond))
			return false;
		any = any->args[0];
	}
	return false;
}

/* Every call in e reads its callee at the point (x0, .., xn-1) of f;
 * with select, constants may stand between the variables. */
static bool pointwise_at(const pt_stage *f, const pt_expr *e, bool select)
{
	if (!e)
		return true;
	if (e->kind == PT_E_CALL) {
		if (e->stage == f)
			return false;
		int rank = e->stage ? e->stage->ndim : e->image ? e->image->ndim : -1;
		if (rank != e->nargs || e->nargs < f->ndim || (!select && e->nargs != f->ndim))
			return false;
		int v = 0;
		for (int i = 0; i < e->nargs; i++) {
			const pt_expr *a = e->args[i];
			if (a->kind == PT_E_VAR && a->index == v)
				v++;
			else if (!select || a->kind != PT_E_INT)
				return false;
		}
		return v == f->ndim;
	}
	for (int i = 0; i < e->nargs; i++)
		if (!pointwise_at(f, e->args[i], select))
			return false;
	return true;
}

static bool pointwise(const pt_stage *f, const pt_expr *e)
{
	return pointwise_at(f, e, false);
}

/* A selection: e is one call (maybe converted) reading its callee at f's
 * point with constants between the variables, such as camera_pipe's
 * g_gr(x, y) = deinterleaved(0, x, y).  Inlined it costs the one load of
 * the copy it replaces and recomputes nothing. */
static bool selection(const pt_stage *f, const pt_expr *e)
{
	while (e && e->kind == PT_E_CAST)
		e = e->args[0];
	return e && e->kind == PT_E_CALL && pointwise_at(f, e, true);
}

/* A stage that reads nothing (a table such as camera_pipe's curve or
 * local_laplacian's remap) is not point-wise in PolyMage's sense: one point
 * in, one point out.  Inlining it would recompute the table per read. */
static bool reads_something(const pt_stage *f)
{
	for (int c = 0; c < f->ncases; c++)
		if ((f->cases[c].cond && pt_expr_has_call(f->cases[c].cond)) || pt_expr_has_call(f->cases[c].value))
			return true;
	return false;
}

static bool is_var(const pt_expr *e, const void *index)
{
	return e->kind == PT_E_VAR && e->index == *(const int *)index;
}

/* Whether e chooses among calls by conditions free of calls and of f's
 * innermost variable, each call reading that variable as its own last
 * argument and its other arguments not depending on it. */
static bool row_choice(const pt_stage *f, const pt_expr *e)
{
	int in = f->ndim - 1;
	while (e->kind == PT_E_CAST)
		e = e->args[0];
	if (e->kind == PT_E_SELECT)
		return !pt_expr_any(e->args[0], is_var, &in) && !pt_expr_has_call(e->args[0]) &&
			row_choice(f, e->args[1]) && row_choice(f, e->args[2]);
	if (e->kind != PT_E_CALL || !e->stage || e->stage == f || e->nargs < 1)
		return false;
	const pt_expr *last = e->args[e->nargs - 1];
	if (last->kind != PT_E_VAR || last->index != in)
		return false;
	for (int i = 0; i < e->nargs - 1; i++)
		if (pt_expr_any(e->args[i], is_var, &in) || pt_expr_has_call(e->args[i]))
			return false;
	return true;
}

/* A row selection: one unconditional case that is a row choice with at
 * least one choice, such as camera_pipe's
 * red(x, y) = x % 2 == 0 ? redX1(x/2, y) : redX2(x/2, y).  Kept in the
 * grouped schedule it is a copy of its callees' rows into a scratchpad
 * (a memcpy per row); inlined, its consumers' innermost loops read the
 * chosen row in place, the choice invariant along them.  A choice that
 * depends on the innermost variable (redX1's y % 2) is left: inlined it
 * became a choice per point between two strided reads (0.8x). */
static bool row_selection(const pt_stage *f)
{
	if (f->ncases != 1 || f->cases[0].cond || f->ndim < 2)
		return false;
	const pt_expr *e = f->cases[0].value;
	while (e->kind == PT_E_CAST)
		e = e->args[0];
	return e->kind == PT_E_SELECT && row_choice(f, e);
}

static bool candidate(const pt_stage *f, pt_inline_rule rule)
{
	if (f->is_output || f->red != PT_RED_NONE || f->ncases < 1 || !reads_something(f))
		return false;
	for (int d = 0; d < f->ndim; d++)
		if (f->dom[d].step > 1)
			return false;
	if (rule == PT_INLINE_CHEAP && row_selection(f))
		return true;
	for (int c = 0; c < f->ncases; c++)
		if (!pointwise(f, f->cases[c].cond) ||
		    !(pointwise(f, f->cases[c].value) || selection(f, f->cases[c].value)))
			return false;
	return true;
}

static bool is_call_to(const pt_expr *e, const void *f)
{
	return e->kind == PT_E_CALL && e->stage == f;
}

static bool calls(const pt_expr *e, const pt_stage *f)
{
	return pt_expr_any(e, is_call_to, f);
}

static bool stage_calls(const pt_stage *g, const pt_stage *f)
{
	for (int c = 0; c < g->ncases; c++) {
		if (calls(g->cases[c].cond, f) || calls(g->cases[c].value, f))
			return true;
		for (int d = 0; g->cases[c].target && d < g->ndim; d++)
			if (calls(g->cases[c].target[d], f))
				return true;
	}
	return calls(g->init, f);
}

/* ---- the cost rule of the grouped schedule ---- */

/* Distinct calls, compared by their arguments. */
typedef struct calls_seen {
	const void *callee;     /* the stage counted, or NULL: every callee */
	const pt_expr **seen;
	int n, cap;
} calls_seen;

static void note_call(const pt_expr *e, void *user)
{
	calls_seen *cs = user;
	if (e->kind != PT_E_CALL || (cs->callee && e->stage != cs->callee))
		return;
	for (int i = 0; i < cs->n; i++)
		if (pt_expr_equal(cs->seen[i], e))
			return;
	if (cs->n == cs->cap) {
		cs->cap = cs->cap ? 2 * cs->cap : 16;
		cs->seen = realloc(cs->seen, (size_t)cs->cap * sizeof(*cs->seen));
		assert(cs->seen);
	}
	cs->seen[cs->n++] = e;
}

static void note_stage_calls(calls_seen *cs, const pt_stage *g)
{
	for (int c = 0; c < g->ncases; c++) {
		pt_expr_walk(g->cases[c].cond, note_call, cs);
		pt_expr_walk(g->cases[c].value, note_call, cs);
		for (int d = 0; g->cases[c].target && d < g->ndim; d++)
			pt_expr_walk(g->cases[c].target[d], note_call, cs);
	}
	pt_expr_walk(g->init, note_call, cs);
}

static void count_op(const pt_expr *e, void *user)
{
	if (e->kind == PT_E_UNARY || e->kind == PT_E_BINARY || e->kind == PT_E_SELECT || e->kind == PT_E_INTRIN)
		++*(int *)user;
}

/* Whether substituting f costs more than keeping it.  Inlined, f's c
 * operations and r reads are repeated at each of the k distinct points its
 * consumers read (a consumer counts each distinct argument tuple once: the
 * code generator shares equal subexpressions); kept, it costs c + r, a
 * store, and k loads that a tile's scratchpad serves from cache.  So f is
 * kept when (k - 1)(c + r) > k + 1: Ixx = Ix * Ix read by a 3x3 box sum is
 * kept (k = 9, c = 1, r = 1), a cast or a copy is always substituted, and
 * so is anything read at one point. */
static bool costly(const pt_pipeline *q, int i, const bool *gone)
{
	const pt_stage *f = q->stages[i];
	calls_seen reads = {0};
	for (int c = 0; c < f->ncases; c++) {
		pt_expr_walk(f->cases[c].cond, note_call, &reads);
		pt_expr_walk(f->cases[c].value, note_call, &reads);
	}
	int ops = 0;
	for (int c = 0; c < f->ncases; c++) {
		pt_expr_walk(f->cases[c].cond, count_op, &ops);
		pt_expr_walk(f->cases[c].value, count_op, &ops);
	}
	long k = 0;
	for (int j = 0; j < q->nstages; j++) {
		if (j == i || gone[j])
			continue;
		calls_seen at = {.callee = f};
		note_stage_calls(&at, q->stages[j]);
		k += at.n;
		free(at.seen);
	}
	long work = ops + reads.n;
	free(reads.seen);
	return (k - 1) * work > k + 1;
}

/* Whether every call of f in e (may be NULL) satisfies ok(call, g). */
static bool calls_all(const pt_expr *e, const pt_stage *f, bool (*ok)(const pt_expr *call, const pt_stage *g),
	const pt_stage *g)
{
	if (!e)
		return true;
	if (e->kind == PT_E_CALL && e->stage == f)
		return e->nargs == f->ndim && ok(e, g);
	for (int i = 0; i < e->nargs; i++)
		if (!calls_all(e->args[i], f, ok, g))
			return false;
	return true;
}

/* A read at g's point (g's variables in order, each once, with
 * constants between them): such reads of distinct points of g, or by
 * calls with distinct constants, are of distinct points of f. */
static bool at_own_point(const pt_expr *call, const pt_stage *g)
{
	int v = 0;
	for (int i = 0; i < call->nargs; i++) {
		const pt_expr *a = call->args[i];
		if (a->kind == PT_E_VAR && a->index == v)
			v++;
		else if (a->kind != PT_E_INT)
			return false;
	}
	return v == g->ndim;
}

/* A read at the reduction g's reduction point (its reduction variables
 * in order). */
static bool at_reduction_point(const pt_expr *call, const pt_stage *g)
{
	if (call->nargs != g->nrdim)
		return false;
	for (int i = 0; i < call->nargs; i++)
		if (call->args[i]->kind != PT_E_VAR || call->args[i]->index != g->ndim + i)
			return false;
	return true;
}

/* f's one consumer, when f may be substituted into it whatever it reads
 * (not an output or reduction, reading something but not itself, no
 * domain step), or NULL. */
static const pt_stage *one_consumer(const pt_pipeline *q, int i, const bool *gone)
{
	const pt_stage *f = q->stages[i];
	if (f->is_output || f->red != PT_RED_NONE || f->ncases < 1 || !reads_something(f) ||
	    stage_calls(f, f))
		return NULL;
	for (int d = 0; d < f->ndim; d++)
		if (f->dom[d].step > 1)
			return NULL;
	const pt_stage *g = NULL;
	for (int j = 0; j < q->nstages; j++) {
		if (j == i || gone[j] || !stage_calls(q->stages[j], f))
			continue;
		if (g)
			return NULL;
		g = q->stages[j];
	}
	return g;
}

/* Planes read once: f is not point-wise (it may read its callees
 * anywhere), but its one consumer, a function, reads it only at its own
 * point (the selection form above) by two or more distinct calls, so each
 * point of f is read by one point of the consumer and one call (equal
 * calls share one evaluation).  Inlined, f recomputes nothing, saves a
 * store and a load per point, and what its planes have in common (all
 * that does not depend on the constants) is computed once: bilateral
 * grid's interpolated(c, x, y), read as interpolated(0, x, y) and
 * interpolated(1, x, y) by filtered, whose two channels share their index
 * arithmetic (1.1x).  With one call there is nothing to share, and
 * substituting stencils and samplings read once by one call (sobel's gx,
 * pyramid_blend's Uy, camera_pipe's corrected) ran 0.5-0.95x. */
static bool read_once(const pt_pipeline *q, int i, const bool *gone)
{
	const pt_stage *f = q->stages[i], *g = one_consumer(q, i, gone);
	if (!g || g->red != PT_RED_NONE || g->ndim > f->ndim)
		return false;
	for (int c = 0; c < g->ncases; c++)
		if (!calls_all(g->cases[c].cond, f, at_own_point, g) || !calls_all(g->cases[c].value, f, at_own_point, g))
			return false;
	calls_seen planes = {.callee = f};
	note_stage_calls(&planes, g);
	free(planes.seen);
	return planes.n >= 2;
}

/* Read once by a scatter: f's one consumer is a reduction every case of
 * which updates a data-dependent point (a histogram), and which reads f
 * only at its reduction point, where it is evaluated once.  Inlined, f
 * is computed inside the reduction's loop, not stored in full and read
 * back (a histogram of a filtered image); the code generator runs such
 * a loop in strips, f's values computed in a vectorized loop into an
 * array on the stack and then scattered (codegen/types.c). */
static bool read_once_by_scatter(const pt_pipeline *q, int i, const bool *gone)
{
	const pt_stage *f = q->stages[i], *g = one_consumer(q, i, gone);
	if (!g || g->red == PT_RED_NONE || calls(g->init, f) || f->ndim != g->nrdim)
		return false;
	for (int c = 0; c < g->ncases; c++) {
		const pt_case *k = &g->cases[c];
		bool scatter = false;
		for (int d = 0; k->target && d < g->ndim; d++)
			scatter = scatter || pt_expr_has_call(k->target[d]);
		if (!scatter || !calls_all(k->cond, f, at_reduction_point, g) || !calls_all(k->value, f, at_reduction_point, g))
			return false;
		for (int d = 0; d < g->ndim; d++)
			if (!calls_all(k->target[d], f, at_reduction_point, g))
				return false;
	}
	return true;
}

/* Fills in->where and in->total for in->f. */
static void analyse(inliner *in)
{
	const pt_stage *f = in->f;
	isl_space *sp = pt_poly_stage_space(in->ctx, in->q, NULL, f->ndim);
	isl_set *dom = pt_poly_domain_set(sp, f);
	isl_set *rest = dom ? isl_set_copy(dom) : NULL;
	in->where = calloc((size_t)f->ncases, sizeof(isl_set *));
	assert(in->where);
	for (int c = 0; c < f->ncases; c++) {
		const pt_expr *cond = f->cases[c].cond;
		isl_set *cs = dom && cond ? pt_poly_cond_set(sp, cond) : NULL;
		if (dom && !cond)
			in->where[c] = isl_set_copy(dom);
		else if (cs)
			in->where[c] = isl_set_intersect(isl_set_copy(dom), isl_set_copy(cs));
		if (rest && !cond)
			rest = isl_set_subtract(rest, isl_set_copy(dom));
		else if (rest && cs)
			rest = isl_set_subtract(rest, isl_set_copy(cs));
		else
			rest = isl_set_free(rest);
		isl_set_free(cs);
	}
	/* total: the last case holds everywhere or is `else`, or isl shows
	 * that the affine conditions cover the domain */
	in->total = !f->cases[f->ncases - 1].cond || last_is_else(f) ||
		(rest && isl_set_is_empty(rest) == isl_bool_true);
	isl_set_free(rest);
	isl_set_free(dom);
	isl_space_free(sp);
}

static void forget(inliner *in)
{
	for (int c = 0; in->where && c < in->f->ncases; c++)
		isl_set_free(in->where[c]);
	free(in->where);
	in->where = NULL;
}

/* ---- substitution ---- */

/* e converted to type t by a CAST node (at e's location) unless it has it. */
static pt_expr *as_type(pt_expr *e, int t)
{
	if (e->type == t)
		return e;
	pt_expr *c = pt_expr_new(PT_E_CAST, e->loc);
	c->type = t;
	pt_expr_push_arg(c, e);
	return c;
}

/* Variable i of f becomes argument i of call, as the int variable f's
 * point has. */
static pt_expr *bind_var(pt_expr *e, void *call)
{
	const pt_expr *c = call;
	if (e->kind != PT_E_VAR)
		return e;
	assert(e->index >= 0 && e->index < c->nargs);
	pt_expr *a = as_type(pt_expr_copy(c->args[e->index]), PT_I32);
	pt_expr_free(e);
	return a;
}

/* e with every variable of f bound to the arguments of call. */
static pt_expr *bind_vars(pt_expr *e, const pt_expr *call)
{
	return pt_expr_map(e, bind_var, (void *)call);
}

/* Case k's value of f at the point call reads, converted as a store. */
static pt_expr *case_value(const pt_stage *f, int k, const pt_expr *call)
{
	pt_expr *v = bind_vars(pt_expr_copy(f->cases[k].value), call);
	return as_type(v, f->type);
}

/* c1 ? v1 : c2 ? v2 : .. : vn (the last condition holds when no other does). */
static pt_expr *select_chain(const pt_stage *f, const pt_expr *call)
{
	pt_expr *r = case_value(f, f->ncases - 1, call);
	for (int k = f->ncases - 2; k >= 0; k--) {
		if (!f->cases[k].cond) {
			/* holds everywhere: no other case may hold */
			pt_expr_free(r);
			r = case_value(f, k, call);
			continue;
		}
		pt_expr *c = bind_vars(pt_expr_copy(f->cases[k].cond), call);
		pt_expr *s = pt_expr_new(PT_E_SELECT, f->cases[k].loc);
		s->type = f->type;
		pt_expr_push_arg(s, c);
		pt_expr_push_arg(s, case_value(f, k, call));
		pt_expr_push_arg(s, r);
		r = s;
	}
	return r;
}

/* The points call reads when evaluated over region, or NULL when an
 * argument is not affine. */
static __isl_give isl_set *read_points(inliner *in, const pt_expr *call, __isl_keep isl_set *region)
{
	isl_map *m = NULL;
	for (int i = 0; i < call->nargs; i++) {
		isl_pw_aff *a = pt_poly_pw_aff(in->cspace, call->args[i]);
		if (!a) {
			isl_map_free(m);
			return NULL;
		}
		isl_map *mi = isl_map_from_pw_aff(a);
		m = m ? isl_map_flat_range_product(m, mi) : mi;
	}
	if (!m)
		return NULL;
	return isl_set_apply(isl_set_copy(region), m);
}

/* The case whose value a call site may take alone (>= 0), -1 for the
 * select chain, -2 when undecided. */
static int decide(inliner *in, const pt_expr *call, __isl_keep isl_set *region)
{
	isl_set *pts = region ? read_points(in, call, region) : NULL;
	for (int k = 0; pts && k < in->f->ncases; k++)
		if (in->where[k] && isl_set_is_subset(pts, in->where[k]) == isl_bool_true) {
			isl_set_free(pts);
			return k;
		}
	isl_set_free(pts);
	return in->total ? -1 : -2;
}

/* Substitutes f at every call in *slot, evaluated (at most) over region
 * (NULL: unknown). */
static void walk(inliner *in, pt_expr **slot, __isl_keep isl_set *region)
{
	pt_expr *e = *slot;
	if (in->fail)
		return;
	bool branches = e->kind == PT_E_SELECT ||
		(e->kind == PT_E_BINARY && (e->op == PT_OP_AND || e->op == PT_OP_OR));
	if (branches) {
		isl_set *c = region ? pt_poly_cond_set(in->cspace, e->args[0]) : NULL;
		isl_set *yes = c ? isl_set_intersect(isl_set_copy(region), isl_set_copy(c)) : NULL;
		isl_set *no = c ? isl_set_subtract(isl_set_copy(region), c) : NULL;
		walk(in, &e->args[0], region);
		if (e->kind == PT_E_SELECT) {
			walk(in, &e->args[1], yes ? yes : region);
			walk(in, &e->args[2], no ? no : region);
		} else if (e->op == PT_OP_AND) {
			walk(in, &e->args[1], yes ? yes : region);
		} else {
			walk(in, &e->args[1], no ? no : region);
		}
		isl_set_free(yes);
		isl_set_free(no);
		return;
	}
	for (int i = 0; i < e->nargs; i++)
		walk(in, &e->args[i], region);
	if (in->fail || e->kind != PT_E_CALL || e->stage != in->f)
		return;
	in->nsites++;
	int k = decide(in, e, region);
	if (k == -2) {
		in->fail = true;
		return;
	}
	*slot = k >= 0 ? case_value(in->f, k, e) : select_chain(in->f, e);
	pt_expr_free(e);
	in->grown += pt_expr_size(*slot);
	if (in->grown > MAX_GROWTH)
		in->fail = true;
}

/* Where g evaluates its cases: its domain, or for a reduction its
 * reduction domain with the result variables at 0 (as the interpreter). */
static __isl_give isl_set *eval_domain(inliner *in, const pt_stage *g)
{
	if (g->red == PT_RED_NONE)
		return pt_poly_domain_set(in->cspace, g);
	pt_stage tmp = *g;
	pt_interval *dom = calloc((size_t)(g->ndim + g->nrdim) + 1, sizeof(*dom));
	assert(dom);
	pt_expr *zero = pt_expr_int(0, g->loc);
	zero->type = PT_I32;
	for (int d = 0; d < g->ndim; d++)
		dom[d] = (pt_interval){zero, zero, 1};
	for (int d = 0; d < g->nrdim; d++)
		dom[g->ndim + d] = g->rdom[d];
	tmp.ndim = g->ndim + g->nrdim;
	tmp.dom = dom;
	isl_set *s = pt_poly_domain_set(in->cspace, &tmp);
	pt_expr_free(zero);
	free(dom);
	return s;
}

static void free_cases(pt_case *cs, int n, int ndim)
{
	for (int c = 0; cs && c < n; c++) {
		pt_expr_free(cs[c].cond);
		pt_expr_free(cs[c].value);
		pt_expr_free(cs[c].update);
		for (int d = 0; cs[c].target && d < ndim; d++)
			pt_expr_free(cs[c].target[d]);
		free(cs[c].target);
	}
	free(cs);
}

/* Whether e (may be NULL), f substituted, stays within the limits on
 * expressions (expr_limits.h) that every later pass relies on: past them f
 * is not inlined and its consumers keep their calls. */
static bool small_enough(const pt_expr *e)
{
	int depth;
	long nodes;
	return pt_expr_measure(e, &depth, &nodes) && depth <= PT_MAX_EXPR_DEPTH &&
		nodes <= PT_MAX_EXPR_NODES;
}

/* g's cases with f substituted, or NULL when a call site is undecided or
 * a tree would grow past the limits. */
static pt_case *rewrite(inliner *in, const pt_stage *g)
{
	if (calls(g->init, in->f))
		return NULL;
	in->grown = 0;
	int nv = g->ndim + (g->red != PT_RED_NONE ? g->nrdim : 0);
	in->cspace = pt_poly_stage_space(in->ctx, in->q, g, nv);
	isl_set *dom = eval_domain(in, g);
	isl_set *earlier = NULL;
	pt_case *out = calloc((size_t)g->ncases + 1, sizeof(*out));
	assert(out);
	for (int c = 0; c < g->ncases && !in->fail; c++) {
		const pt_case *k = &g->cases[c];
		out[c] = *k;
		out[c].cond = pt_expr_copy(k->cond);
		out[c].value = pt_expr_copy(k->value);
		out[c].update = pt_expr_copy(k->update);
		out[c].target = NULL;
		if (k->target) {
			out[c].target = calloc((size_t)g->ndim + 1, sizeof(pt_expr *));
			assert(out[c].target);
			for (int d = 0; d < g->ndim; d++)
				out[c].target[d] = pt_expr_copy(k->target[d]);
		}
		isl_set *cs = dom && k->cond ? pt_poly_cond_set(in->cspace, k->cond) : NULL;
		isl_set *r = dom ? isl_set_copy(dom) : NULL;
		if (r && cs)
			r = isl_set_intersect(r, isl_set_copy(cs));
		if (r && earlier)
			r = isl_set_subtract(r, isl_set_copy(earlier));
		/* a function takes one case per point (two holding is an error);
		 * a reduction applies every case that holds */
		if (cs && g->red == PT_RED_NONE)
			earlier = earlier ? isl_set_union(earlier, cs) : cs;
		else
			isl_set_free(cs);
		/* every condition is evaluated over the whole domain */
		if (out[c].cond)
			walk(in, &out[c].cond, dom);
		walk(in, &out[c].value, r);
		for (int d = 0; out[c].target && d < g->ndim; d++)
			walk(in, &out[c].target[d], r);
		isl_set_free(r);
		if (!small_enough(out[c].cond) || !small_enough(out[c].value))
			in->fail = true;
	}
	isl_set_free(earlier);
	isl_set_free(dom);
	in->cspace = isl_space_free(in->cspace);
	if (in->fail) {
		free_cases(out, g->ncases, g->ndim);
		return NULL;
	}
	return out;
}

/* Substitutes f = q->stages[i] into all its consumers; false (nothing
 * changed) when a call site is undecided or there is none. */
static bool inline_stage(isl_ctx *ctx, pt_pipeline *q, int i, const bool *gone)
{
	inliner in = {.ctx = ctx, .q = q, .f = q->stages[i]};
	analyse(&in);
	pt_case **nc = calloc((size_t)q->nstages + 1, sizeof(*nc));
	assert(nc);
	bool ok = true;
	for (int j = 0; j < q->nstages && ok; j++) {
		if (j == i || gone[j] || !stage_calls(q->stages[j], in.f))
			continue;
		nc[j] = rewrite(&in, q->stages[j]);
		ok = nc[j] != NULL;
	}
	ok = ok && in.nsites > 0;
	for (int j = 0; j < q->nstages; j++) {
		if (!nc[j])
			continue;
		pt_stage *g = q->stages[j];
		if (ok) {
			pt_case *old = g->cases;
			g->cases = nc[j];
			nc[j] = old;
		}
		free_cases(nc[j], g->ncases, g->ndim);
	}
	free(nc);
	forget(&in);
	return ok;
}

pt_pipeline *pt_poly_inline(isl_ctx *ctx, const pt_pipeline *p, pt_inline_rule rule, int *ninlined)
{
	pt_pipeline *q = pt_pipeline_copy(p);
	q->owner = NULL;
	q->checked = true;
	bool *gone = calloc((size_t)q->nstages + 1, sizeof(bool));
	assert(gone);
	int n = 0;
	for (int i = 0; i < q->nstages; i++)
		if (((candidate(q->stages[i], rule) && !(rule == PT_INLINE_CHEAP && costly(q, i, gone))) ||
		     (rule == PT_INLINE_CHEAP && (read_once(q, i, gone) || read_once_by_scatter(q, i, gone)))) &&
		    inline_stage(ctx, q, i, gone)) {
			gone[i] = true;
			n++;
		}
	int m = 0;
	for (int i = 0; i < q->nstages; i++) {
		if (gone[i]) {
			pt_stage_free(q->stages[i]);
			continue;
		}
		q->stages[m] = q->stages[i];
		q->stages[m]->id = m;
		m++;
	}
	q->nstages = m;
	free(gone);
	if (ninlined)
		*ninlined = n;
	return q;
}
