/* align.c: alignment and scaling of a group (see align.h for the rules).
 *
 * Three steps: tie stage dims together from the rates of the exact
 * indices (a union-find with rational weights), turn the classes into
 * ordered group dims with normalized scales, then prove the result with
 * isl's dependence sets in the group space. */
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/ilp.h>
#include <isl/local_space.h>
#include <isl/space.h>
#include <isl/val.h>

#include "align.h"
#include "access.h"
#include "isl_expr.h"

/* Weights beyond this are refused rather than risking overflow. */
#define MAX_WEIGHT ((int64_t)1 << 30)

static int64_t gcd64(int64_t a, int64_t b)
{
	if (a < 0)
		a = -a;
	if (b < 0)
		b = -b;
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* A fraction num/den with den > 0, reduced. */
typedef struct frac {
	int64_t num, den;
} frac;

static bool frac_ok(frac f)
{
	return f.den > 0 && f.num > -MAX_WEIGHT && f.num < MAX_WEIGHT && f.den < MAX_WEIGHT;
}

static frac frac_make(int64_t num, int64_t den)
{
	if (den < 0) {
		num = -num;
		den = -den;
	}
	int64_t g = gcd64(num, den);
	if (g > 1) {
		num /= g;
		den /= g;
	}
	return (frac){num, den};
}

static frac frac_mul(frac a, frac b)
{
	frac x = frac_make(a.num, b.den), y = frac_make(b.num, a.den);
	return frac_make(x.num * y.num, x.den * y.den);
}

static frac frac_div(frac a, frac b)
{
	return frac_mul(a, frac_make(b.den, b.num));
}

/* ---- the state of one alignment ---- */

typedef struct aligner {
	isl_ctx *ctx;
	const pt_pipeline *p;
	const pt_stage *const *stages;
	int n;
	/* union-find over nodes k * PT_MAX_DIMS + i: s_node = w * s_parent */
	int *parent;
	frac *w;
	int *comp;              /* stage union-find (connected parts) */
	bool *data_read;        /* [c * n + p]: a data-dependent index in a read */
	int consumer;           /* the stage being walked */
	bool *wanted;           /* per stage: its deps from the consumer are to be computed */
	int read_index;         /* the reads of the consumer met so far in its walk */
	pt_poly_access_cache *cache;   /* NULL: walk the stages afresh */
	const char *why;
	int bad_c, bad_p;
	pt_group_align *a;
} aligner;

static int stage_index(const aligner *al, const pt_stage *s)
{
	for (int k = 0; k < al->n; k++)
		if (al->stages[k] == s)
			return k;
	return -1;
}

int pt_group_align_find(const pt_group_align *a, const pt_stage *s)
{
	for (int k = 0; k < a->nstages; k++)
		if (a->st[k].stage == s)
			return k;
	return -1;
}

static bool fail(aligner *al, const char *why, int c, int p)
{
	if (!al->why) {
		al->why = why;
		al->bad_c = c;
		al->bad_p = p;
	}
	return false;
}

/* The root of node n and s_n / s_root. */
static int uf_find(const aligner *al, int n, frac *w)
{
	*w = (frac){1, 1};
	while (al->parent[n] != n) {
		*w = frac_mul(*w, al->w[n]);
		n = al->parent[n];
	}
	return n;
}

static int comp_find(const aligner *al, int k)
{
	while (al->comp[k] != k)
		k = al->comp[k];
	return k;
}

/* ---- validation ---- */

bool pt_group_reduction_fits(const pt_stage *r, const pt_stage *const *stages, int n)
{
	if (r->red == PT_RED_NONE || pt_stage_reads(r, r))
		return false;
	for (int k = 0; k < n; k++)
		if (stages[k] != r && pt_stage_reads(r, stages[k]))
			return false;
	for (int d = 0; d < r->ndim; d++)
		if (pt_reduction_cell_var(r, d) >= 0)
			return true;
	return false;
}

bool pt_group_recurrence_fits(const pt_stage *s)
{
	if (s->red != PT_RED_NONE || !pt_stage_reads(s, s))
		return false;
	for (int d = 0; d < s->ndim; d++)
		if (s->self_fixed[d])
			return true;
	return false;
}

static bool validate(aligner *al)
{
	const pt_pipeline *p = al->p;
	if (al->n < 1 || !p->checked)
		return fail(al, "an empty group or an unchecked pipeline", -1, -1);
	for (int k = 0; k < al->n; k++) {
		const pt_stage *s = al->stages[k];
		if (!s || s->id < 0 || s->id >= p->nstages || p->stages[s->id] != s)
			return fail(al, "a stage that is not one of the pipeline's", k, -1);
		if (k > 0 && s->id <= al->stages[k - 1]->id)
			return fail(al, "stages repeated or not in topological order", k, -1);
		if (s->red && !pt_group_reduction_fits(s, al->stages, al->n))
			return fail(al, "a reduction joins a group only as a source: it reads no stage of the group "
				"nor itself, and some update target index is a reduction variable alone", k, -1);
		if (!s->red && pt_stage_reads(s, s) && !pt_group_recurrence_fits(s))
			return fail(al, "a stage that reads itself along every dimension (time-iterated) is a "
				"group boundary", k, k);
	}
	return true;
}

/* ---- ties from the rates of exact indices ---- */

/* How fast aff grows with input dim i, floors seen through: its
 * coefficient plus, for each of its first ndiv divs, the div's coefficient
 * times the div's own rate. */
static __isl_give isl_val *aff_rate(__isl_keep isl_aff *aff, int i, int ndiv)
{
	isl_val *r = isl_aff_get_coefficient_val(aff, isl_dim_in, i);
	for (int k = 0; k < ndiv && r; k++) {
		isl_val *c = isl_aff_get_coefficient_val(aff, isl_dim_div, k);
		if (!c || isl_val_is_zero(c)) {
			isl_val_free(c);
			continue;
		}
		isl_aff *d = isl_aff_get_div(aff, k);
		r = isl_val_add(r, isl_val_mul(c, aff_rate(d, i, k)));
		isl_aff_free(d);
	}
	return r;
}

/* Ties consumer node nc to producer node np: s_c = r * s_p. */
static bool tie(aligner *al, int nc, int np, frac r, int c, int p)
{
	frac wc, wp;
	int rc = uf_find(al, nc, &wc), rp = uf_find(al, np, &wp);
	if (rc == rp) {
		frac want = frac_mul(wp, r);
		if (want.num != wc.num || want.den != wc.den)
			return fail(al, "no common scaling: one dimension is read at two rates "
				"(f(x) = g(x/2) + g(x/4))", c, p);
		return true;
	}
	frac w = frac_div(wc, frac_mul(r, wp));
	if (!frac_ok(w))
		return fail(al, "scaling factors too large", c, p);
	al->parent[rp] = rc;
	al->w[rp] = w;
	return true;
}

/* The reads of stage k (targets are ignored here). */
static bool walk(aligner *al, int k, bool (*fn)(const pt_poly_access *a, void *user))
{
	al->read_index = 0;
	if (al->cache)
		return pt_poly_walk_reads(al->cache, al->stages[k], fn, al);
	return pt_poly_walk(al->ctx, al->p, al->stages[k], fn, al);
}

/* What one read contributes to the ties, in the order met: every
 * candidate group holding its two stages would find the same with isl,
 * so with a cache they are found once per read and replayed (issue 13:
 * a long chain aligns each stage in every candidate that grows past
 * it).  Only tie() depends on the group. */
typedef enum tie_kind { TIE_DATA, TIE_TIE, TIE_ERR_ISL, TIE_ERR_MIX } tie_kind;

typedef struct tie_event {
	int kind, d, var;       /* arg d; a tie of the reader's var to it */
	int64_t num, den;       /* at this rate */
} tie_event;

typedef struct tie_events {
	tie_event *ev;
	int n;
	bool stop;              /* an error recorded: nothing after it */
} tie_events;

static void add_event(tie_events *t, tie_event e)
{
	t->ev = realloc(t->ev, sizeof(*t->ev) * (size_t)(t->n + 1));
	t->ev[t->n++] = e;
	t->stop |= e.kind == TIE_ERR_ISL || e.kind == TIE_ERR_MIX;
}

typedef struct piece_info {
	tie_events *t;
	int d;
} piece_info;

static isl_stat tie_piece(__isl_take isl_set *set, __isl_take isl_aff *aff, void *user)
{
	piece_info *pi = user;
	int nin = (int)isl_aff_dim(aff, isl_dim_in), ndiv = (int)isl_aff_dim(aff, isl_dim_div);
	int var = -1;
	frac r = {0, 1};
	bool empty = isl_set_is_empty(set) == isl_bool_true;
	for (int i = 0; i < nin && !empty && !pi->t->stop; i++) {
		isl_val *v = aff_rate(aff, i, ndiv);
		if (!v || !isl_val_is_rat(v)) {
			add_event(pi->t, (tie_event){TIE_ERR_ISL, pi->d, 0, 0, 1});
		} else if (!isl_val_is_zero(v)) {
			if (var >= 0)
				add_event(pi->t, (tie_event){TIE_ERR_MIX, pi->d, 0, 0, 1});
			var = i;
			r = frac_make(isl_val_get_num_si(v), isl_val_get_den_si(v));
		}
		isl_val_free(v);
	}
	if (!pi->t->stop && var >= 0)
		add_event(pi->t, (tie_event){TIE_TIE, pi->d, var, r.num, r.den});
	isl_set_free(set);
	isl_aff_free(aff);
	return pi->t->stop ? isl_stat_error : isl_stat_ok;
}

/* The events of one read (see tie_event). */
static void read_events(const pt_poly_access *acc, tie_events *t)
{
	for (int d = 0; d < acc->call->nargs && !t->stop; d++) {
		const pt_expr *arg = acc->call->args[d];
		if (pt_expr_has_call(arg)) {
			add_event(t, (tie_event){TIE_DATA, d, 0, 0, 1});
			continue;
		}
		isl_pw_aff *pa = pt_poly_pw_aff(acc->space, arg);
		if (!pa)
			continue;       /* an interval in isl: ties nothing */
		pa = isl_pw_aff_intersect_domain(pa, isl_set_copy(acc->where));
		piece_info pi = {t, d};
		isl_pw_aff_foreach_piece(pa, tie_piece, &pi);
		isl_pw_aff_free(pa);
	}
}

/* One read met in the consumer's walk: ties from its exact indices. */
static bool tie_read(const pt_poly_access *acc, void *user)
{
	aligner *al = user;
	int index = al->read_index++;
	int j = acc->is_target ? -1 : stage_index(al, acc->call->stage);
	if (j < 0 || j == al->consumer)
		return true;   /* a recurrence's self-reads tie nothing */
	int c = al->consumer;
	/* the parts a read joins share nothing else (see group dims) */
	int rc = comp_find(al, c), rj = comp_find(al, j);
	if (rc != rj)
		al->comp[rj] = rc;
	tie_events t = {0};
	const void *data = NULL;
	size_t ndata = 0;
	int64_t key[3] = { -1, al->stages[c]->id, index };
	bool owned = !al->cache || !pt_poly_memo_find(al->cache, key, sizeof(key), NULL, &data, &ndata);
	if (owned) {
		read_events(acc, &t);
		if (al->cache)
			pt_poly_memo_store(al->cache, key, sizeof(key), NULL, t.ev, sizeof(*t.ev) * (size_t)t.n);
	} else {
		t.ev = (tie_event *)data;
		t.n = (int)(ndata / sizeof(tie_event));
	}
	bool ok = true;
	for (int e = 0; e < t.n && ok; e++) {
		const tie_event *ev = &t.ev[e];
		switch (ev->kind) {
		case TIE_DATA:
			al->data_read[c * al->n + j] = true;
			break;
		case TIE_TIE:
			ok = tie(al, c * PT_MAX_DIMS + ev->var, j * PT_MAX_DIMS + ev->d,
				(frac){ev->num, ev->den}, c, j);
			break;
		case TIE_ERR_ISL:
			ok = fail(al, "an index isl could not analyze", c, j);
			break;
		default:
			ok = fail(al, "an index mixes two variables of its reader (g(x + y))", c, j);
			break;
		}
	}
	if (owned)
		free(t.ev);
	return ok;
}

static bool tie_all(aligner *al)
{
	for (int k = 0; k < al->n && !al->why; k++) {
		al->consumer = k;
		if (!walk(al, k, tie_read) && !al->why)
			return fail(al, "a domain isl could not represent", k, -1);
	}
	return !al->why;
}

/* ---- classes to group dims ---- */

/* Checks the classes, sets every node's root and normalized scale:
 * within a class, weights times the lcm of their denominators, divided
 * by the gcd of the results. */
static bool normalize(aligner *al, int *root, int64_t *scale)
{
	int nn = al->n * PT_MAX_DIMS;
	frac *w = calloc((size_t)nn, sizeof(*w));
	if (!w)
		return fail(al, "out of memory", -1, -1);
	for (int k = 0; k < al->n; k++)
		for (int i = 0; i < al->stages[k]->ndim; i++) {
			int x = k * PT_MAX_DIMS + i;
			root[x] = uf_find(al, x, &w[x]);
			for (int i2 = 0; i2 < i; i2++)
				if (root[k * PT_MAX_DIMS + i2] == root[x]) {
					free(w);
					return fail(al, "two dimensions of one stage fall in one group dimension "
						"(f(x, y) = g(x, y) + g(y, x))", k, -1);
				}
			if (w[x].num <= 0) {
				free(w);
				return fail(al, "a reversed index (g(R - x)) would need a negative scaling", k, -1);
			}
		}
	for (int r = 0; r < nn; r++) {
		if (!w[r].den || root[r] != r)
			continue;
		int64_t lcm = 1, g = 0;
		for (int x = 0; x < nn && lcm < MAX_WEIGHT; x++)
			if (w[x].den && root[x] == r)
				lcm = lcm / gcd64(lcm, w[x].den) * w[x].den;
		for (int x = 0; x < nn; x++)
			if (w[x].den && root[x] == r)
				g = gcd64(g, w[x].num * (lcm / w[x].den));
		for (int x = 0; x < nn; x++)
			if (w[x].den && root[x] == r)
				scale[x] = w[x].num * (lcm / w[x].den) / g;
		if (lcm >= MAX_WEIGHT) {
			free(w);
			return fail(al, "scaling factors too large", -1, -1);
		}
	}
	free(w);
	return true;
}

/* Whether class a must come before class b: some stage has a dim in a
 * just before a dim in b. */
static bool before(const aligner *al, const int *root, int a, int b)
{
	for (int k = 0; k < al->n; k++)
		for (int i = 0; i + 1 < al->stages[k]->ndim; i++)
			if (root[k * PT_MAX_DIMS + i] == a && root[k * PT_MAX_DIMS + i + 1] == b)
				return true;
	return false;
}

/* Orders the classes of one connected part into group dims 0, 1, ...:
 * each stage's dims in their order where the stages agree, ties (and
 * cycles, from transposed reads) broken by first appearance from the
 * last stage (live-outs) back.  Returns the number of group dims. */
static int order_part(const aligner *al, int part, const int *root, int *gdim_of)
{
	int cls[PT_MAX_DIMS + 1], ncls = 0, cap = (int)(sizeof(cls) / sizeof(cls[0]));
	for (int k = al->n - 1; k >= 0; k--) {
		if (comp_find(al, k) != part)
			continue;
		for (int i = 0; i < al->stages[k]->ndim; i++) {
			int r = root[k * PT_MAX_DIMS + i];
			if (gdim_of[r] != -1)
				continue;
			if (ncls == cap)
				return cap + 1;
			gdim_of[r] = -2;        /* listed */
			cls[ncls++] = r;
		}
	}
	if (ncls > PT_MAX_DIMS)
		return ncls;            /* refused: no need to order them */
	for (int g = 0; g < ncls; g++) {
		int pick = -1;
		for (int c = 0; c < ncls && pick < 0; c++) {
			if (gdim_of[cls[c]] != -2)
				continue;
			bool ready = true;
			for (int d = 0; d < ncls && ready; d++)
				ready = gdim_of[cls[d]] != -2 || d == c || !before(al, root, cls[d], cls[c]);
			if (ready)
				pick = c;
		}
		for (int c = 0; c < ncls && pick < 0; c++)
			if (gdim_of[cls[c]] == -2)
				pick = c;
		gdim_of[cls[pick]] = g;
	}
	return ncls;
}

static bool assign_dims(aligner *al)
{
	int nn = al->n * PT_MAX_DIMS;
	int *root = malloc((size_t)nn * sizeof(int)), *gdim_of = malloc((size_t)nn * sizeof(int));
	int64_t *scale = malloc((size_t)nn * sizeof(int64_t));
	bool ok = root && gdim_of && scale;
	if (!ok)
		fail(al, "out of memory", -1, -1);
	ok = ok && normalize(al, root, scale);
	for (int x = 0; ok && x < nn; x++)
		gdim_of[x] = -1;
	int ndim = 0;
	for (int k = 0; ok && k < al->n; k++)
		if (comp_find(al, k) == k) {
			int m = order_part(al, k, root, gdim_of);
			ndim = m > ndim ? m : ndim;
		}
	if (ok && ndim > PT_MAX_DIMS)
		ok = fail(al, "the group would need more than 8 dimensions", -1, -1);
	for (int k = 0; ok && k < al->n; k++) {
		pt_stage_align *sa = &al->a->st[k];
		sa->stage = al->stages[k];
		sa->ndim = al->stages[k]->ndim;
		for (int i = 0; i < sa->ndim; i++) {
			int x = k * PT_MAX_DIMS + i;
			sa->gdim[i] = gdim_of[root[x]];
			sa->scale[i] = scale[x];
			sa->offset[i] = 0;
		}
	}
	al->a->ndim = ndim;
	free(root);
	free(gdim_of);
	free(scale);
	return ok;
}

/* ---- dependences in the group space ---- */

/* The group space: the params of space and ndim dims. */
static __isl_give isl_space *group_space(__isl_take isl_space *space, int ndim)
{
	space = isl_space_set_from_params(isl_space_params(space));
	return isl_space_add_dims(space, isl_dim_set, (unsigned)ndim);
}

/* Stage sa's map from the set space `space` (its dims) to the group space. */
static __isl_give isl_multi_aff *align_ma(__isl_take isl_space *space, const pt_stage_align *sa, int ndim)
{
	isl_space *g = group_space(isl_space_copy(space), ndim);
	isl_multi_aff *ma = isl_multi_aff_zero(isl_space_map_from_domain_and_range(isl_space_copy(space), g));
	isl_local_space *ls = isl_local_space_from_space(space);
	for (int i = 0; i < sa->ndim; i++) {
		isl_aff *x = isl_aff_var_on_domain(isl_local_space_copy(ls), isl_dim_set, (unsigned)i);
		x = isl_aff_scale_val(x, isl_val_int_from_si(isl_local_space_get_ctx(ls), (long)sa->scale[i]));
		x = isl_aff_add_constant_si(x, (int)sa->offset[i]);
		ma = isl_multi_aff_set_aff(ma, (unsigned)sa->gdim[i], x);
	}
	isl_local_space_free(ls);
	return ma;
}

__isl_give isl_multi_aff *pt_group_align_map(isl_ctx *ctx, const pt_pipeline *p,
	const pt_group_align *a, int k)
{
	if (!a || k < 0 || k >= a->nstages)
		return NULL;
	isl_space *sp = pt_poly_iter_space(ctx, p, a->st[k].stage);
	return align_ma(sp, &a->st[k], a->ndim);
}

/* One read met in the consumer's walk: its dependences in the group space. */
static bool add_read_deps(const pt_poly_access *acc, void *user)
{
	aligner *al = user;
	int j = acc->is_target ? -1 : stage_index(al, acc->call->stage);
	if (j < 0 || j == al->consumer || !al->wanted[j])
		return true;   /* a recurrence's self-reads stay in its nest */
	pt_group_align *a = al->a;
	isl_map *m = pt_poly_access_map_where(acc);
	m = isl_map_reset_tuple_id(isl_map_reset_tuple_id(m, isl_dim_in), isl_dim_out);
	isl_space *sp = isl_map_get_space(m);
	isl_multi_aff *mc = align_ma(isl_space_domain(isl_space_copy(sp)), &a->st[al->consumer], a->ndim);
	isl_multi_aff *mp = align_ma(isl_space_range(sp), &a->st[j], a->ndim);
	m = isl_map_apply_domain(m, isl_map_from_multi_aff(mc));
	m = isl_map_apply_range(m, isl_map_from_multi_aff(mp));
	/* reversed: producer -> consumer, so deltas are consumer - producer */
	isl_set *d = isl_map_deltas(isl_map_reverse(m));
	isl_set **slot = &a->deps[al->consumer * al->n + j];
	*slot = *slot ? isl_set_union(*slot, d) : d;
	return true;
}

/* The box of deps over all params; false if unbounded in some dim. */
static bool dep_box(__isl_keep isl_set *deps, int ndim, pt_dep_box *b)
{
	isl_set *s = isl_set_copy(deps);
	s = isl_set_project_out(s, isl_dim_param, 0, (unsigned)isl_set_dim(s, isl_dim_param));
	bool ok = s != NULL;
	b->reads = true;
	for (int k = 0; k < ndim && ok; k++) {
		isl_val *lo = isl_set_dim_min_val(isl_set_copy(s), k);
		isl_val *hi = isl_set_dim_max_val(isl_set_copy(s), k);
		ok = lo && hi && isl_val_is_int(lo) && isl_val_is_int(hi);
		if (ok) {
			b->lo[k] = isl_val_get_num_si(lo);
			b->hi[k] = isl_val_get_num_si(hi);
		}
		isl_val_free(lo);
		isl_val_free(hi);
	}
	isl_set_free(s);
	return ok;
}

static bool note_read(const pt_poly_access *acc, void *user)
{
	aligner *al = user;
	int j = acc->is_target ? -1 : stage_index(al, acc->call->stage);
	if (j >= 0 && j != al->consumer)
		al->wanted[j] = true;
	return true;
}

/* The memo key of the deps of consumer k on producer j: both stages and
 * their alignments in a group of ndim dims. */
static size_t dep_key(const aligner *al, int k, int j, int64_t *key)
{
	size_t n = 0;
	key[n++] = al->a->ndim;
	for (int s = 0; s < 2; s++) {
		const pt_stage_align *sa = &al->a->st[s ? j : k];
		key[n++] = sa->stage->id;
		key[n++] = sa->ndim;
		for (int d = 0; d < sa->ndim; d++) {
			key[n++] = sa->gdim[d];
			key[n++] = sa->scale[d];
			key[n++] = sa->offset[d];
		}
	}
	return n * sizeof(int64_t);
}

/* A pair's deps as the group keeps them: restricted to the params
 * making the pipeline non-empty, coalesced, and their box. */
typedef enum dep_status { DEP_EMPTY, DEP_BOUNDED, DEP_UNBOUNDED } dep_status;

typedef struct dep_result {
	int status;
	pt_dep_box box;
} dep_result;

static dep_status finish_dep(isl_set **deps, __isl_keep isl_set *ctx_params, int ndim, pt_dep_box *box)
{
	*deps = isl_set_coalesce(isl_set_intersect_params(*deps, isl_set_copy(ctx_params)));
	if (isl_set_is_empty(*deps) == isl_bool_true) {
		*deps = isl_set_free(*deps);
		return DEP_EMPTY;
	}
	return dep_box(*deps, ndim, box) ? DEP_BOUNDED : DEP_UNBOUNDED;
}

/* Each consumer's deps on each producer in the group, finished, from the
 * memo when another candidate computed them with the same alignment. */
static bool compute_deps(aligner *al)
{
	pt_group_align *a = al->a;
	isl_set *ctx_params;
	if (al->cache) {
		ctx_params = pt_poly_access_cache_nonempty(al->cache);
	} else {
		isl_space *sp = pt_poly_stage_space(al->ctx, al->p, NULL, 0);
		ctx_params = pt_poly_nonempty(sp, al->p);
		isl_space_free(sp);
	}
	int *status = calloc((size_t)al->n * (size_t)al->n, sizeof(int));
	al->wanted = calloc((size_t)al->n, sizeof(bool));
	int64_t key[4 + 6 * PT_MAX_DIMS];
	for (int k = 0; k < al->n; k++) {
		al->consumer = k;
		memset(al->wanted, 0, sizeof(bool) * (size_t)al->n);
		if (al->cache)
			walk(al, k, note_read);
		else
			for (int j = 0; j < al->n; j++)
				al->wanted[j] = true;
		bool any = false;
		for (int j = 0; j < al->n && al->cache; j++) {
			const void *data;
			size_t kn = dep_key(al, k, j, key);
			if (al->wanted[j] && pt_poly_memo_find(al->cache, key, kn, &a->deps[k * al->n + j], &data, NULL)) {
				const dep_result *r = data;
				status[k * al->n + j] = r->status;
				a->box[k * al->n + j] = r->box;
				al->wanted[j] = false;
			}
		}
		for (int j = 0; j < al->n; j++)
			any |= al->wanted[j];
		if (any && !walk(al, k, add_read_deps)) {
			free(al->wanted);
			free(status);
			isl_set_free(ctx_params);
			return fail(al, "a domain isl could not represent", k, -1);
		}
		for (int j = 0; j < al->n; j++) {
			int x = k * al->n + j;
			if (!al->wanted[j] || !a->deps[x])
				continue;
			dep_result r = {0};
			r.status = status[x] = finish_dep(&a->deps[x], ctx_params, a->ndim, &r.box);
			a->box[x] = r.box;
			if (al->cache) {
				size_t kn = dep_key(al, k, j, key);
				pt_poly_memo_store(al->cache, key, kn, isl_set_copy(a->deps[x]), &r, sizeof(r));
			}
		}
	}
	free(al->wanted);
	al->wanted = NULL;
	isl_set_free(ctx_params);
	for (int x = 0; x < al->n * al->n && !al->why; x++)
		if (a->deps[x] && status[x] == DEP_UNBOUNDED)
			fail(al, al->data_read[x]
				? "a data-dependent read is not bounded relative to the reading point"
				: "a dependence is not bounded by constants in the group's space "
				  "(g(x + R), or g(0, y) read from every x)", x / al->n, x % al->n);
	free(status);
	return !al->why;
}

/* ---- the entry points ---- */

void pt_group_align_clear(pt_group_align *a)
{
	if (!a)
		return;
	for (int x = 0; a->deps && x < a->nstages * a->nstages; x++)
		isl_set_free(a->deps[x]);
	free(a->deps);
	free(a->box);
	free(a->st);
	memset(a, 0, sizeof(*a));
	a->bad_consumer = a->bad_producer = -1;
}

static bool alloc_state(aligner *al, pt_group_align *a, int n)
{
	size_t nn = (size_t)n * PT_MAX_DIMS;
	al->parent = malloc(nn * sizeof(int));
	al->w = malloc(nn * sizeof(frac));
	al->comp = malloc((size_t)n * sizeof(int));
	al->data_read = calloc((size_t)n * (size_t)n, sizeof(bool));
	a->st = calloc((size_t)n, sizeof(pt_stage_align));
	a->deps = calloc((size_t)n * (size_t)n, sizeof(isl_set *));
	a->box = calloc((size_t)n * (size_t)n, sizeof(pt_dep_box));
	if (!al->parent || !al->w || !al->comp || !al->data_read || !a->st || !a->deps || !a->box)
		return fail(al, "out of memory", -1, -1);
	for (size_t x = 0; x < nn; x++) {
		al->parent[x] = (int)x;
		al->w[x] = (frac){1, 1};
	}
	for (int k = 0; k < n; k++)
		al->comp[k] = k;
	a->nstages = n;
	return true;
}

int pt_group_align_compute(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *const *stages, int n,
	pt_poly_access_cache *cache, pt_group_align *a, const char **why)
{
	memset(a, 0, sizeof(*a));
	aligner al = {.ctx = ctx, .p = p, .stages = stages, .n = n, .bad_c = -1, .bad_p = -1, .a = a,
		.cache = cache};
	bool ok = validate(&al) && alloc_state(&al, a, n) && tie_all(&al) && assign_dims(&al) &&
		compute_deps(&al);
	free(al.parent);
	free(al.w);
	free(al.comp);
	free(al.data_read);
	if (ok)
		return 0;
	pt_group_align_clear(a);
	a->bad_consumer = al.bad_c;
	a->bad_producer = al.bad_p;
	if (why)
		*why = al.why ? al.why : "an isl error";
	return -1;
}
