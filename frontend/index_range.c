/* index_range.c: the values a data-dependent index may take, as the
 * bounds check's error shows them (index_range.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "index_range.h"
#include "range.h"

/* The bounds for pt_range_of: affine forms in the params (nvars 0, div 1),
 * compared when their difference is a constant or a positive multiple of
 * a fact plus a constant.  The facts hold wherever the index is evaluated
 * (so the range shown never claims more than isl found): each stage's
 * result intervals and each image's extents are non-empty and i32 params
 * lie in their type (the admissible params, poly/isl_expr.h), and the
 * reading stage's own reduction intervals are non-empty. */
typedef struct facts {
	int np;
	int n;
	pt_affine *f;           /* each f[i] >= 0 */
} facts;

static pt_affine *aff_new(int np, int64_t cst)
{
	pt_affine *a = pt_mem_calloc(1, sizeof(*a));
	if (!a)
		return NULL;    /* an unknown bound, shown unbounded (alloc.h) */
	a->nparams = np;
	if (!(a->pcoef = pt_mem_calloc((size_t)np + 1, sizeof(int64_t)))) {
		free(a);
		return NULL;
	}
	a->cst = cst;
	a->div = 1;
	return a;
}

static void aff_free(void *a, void *user)
{
	(void)user;
	if (a)
		pt_affine_clear(a);
	free(a);
}

/* e as a bound: affine in params with no division, or NULL. */
static pt_affine *aff_from_expr(const pt_expr *e, int np)
{
	pt_affine a = {0};
	if (!pt_expr_affine(e, np, 0, &a) || a.div != 1) {
		pt_affine_clear(&a);
		return NULL;
	}
	pt_affine *r = aff_new(np, a.cst);
	if (r)
		memcpy(r->pcoef, a.pcoef, sizeof(int64_t) * (size_t)np);
	pt_affine_clear(&a);
	return r;
}

/* a - b in d; false on overflow, or when one is NULL (out of memory). */
static bool aff_diff(const pt_affine *a, const pt_affine *b, pt_affine *d)
{
	if (!a || !b || !d)
		return false;
	bool over = __builtin_sub_overflow(a->cst, b->cst, &d->cst);
	for (int i = 0; i < a->nparams; i++)
		over |= __builtin_sub_overflow(a->pcoef[i], b->pcoef[i], &d->pcoef[i]);
	return !over;
}

/* Whether d is k * fact + c with k >= 1 (so d >= c); gives c. */
static bool fact_offset(const facts *fs, const pt_affine *d, int64_t *c)
{
	int q = 0;
	while (q < d->nparams && !d->pcoef[q])
		q++;
	if (q == d->nparams) {
		*c = d->cst;
		return true;
	}
	for (int i = 0; i < fs->n; i++) {
		const pt_affine *f = &fs->f[i];
		if (!f->pcoef[q] || d->pcoef[q] % f->pcoef[q] || d->pcoef[q] / f->pcoef[q] < 1)
			continue;
		int64_t k = d->pcoef[q] / f->pcoef[q], kc;
		bool same = true;
		for (int j = 0; j < d->nparams && same; j++) {
			int64_t fk;
			same = !__builtin_mul_overflow(f->pcoef[j], k, &fk) && fk == d->pcoef[j];
		}
		if (same && !__builtin_mul_overflow(f->cst, k, &kc) && !__builtin_sub_overflow(d->cst, kc, c))
			return true;
	}
	return false;
}

/* A constant c with c <= a (or a <= c when upper), from the facts. */
static bool aff_const_bound(const facts *fs, const pt_affine *a, bool upper, int64_t *c)
{
	pt_affine *n = aff_new(fs->np, 0), *z = aff_new(fs->np, 0);
	bool ok = upper ? aff_diff(z, a, n) && fact_offset(fs, n, c) : fact_offset(fs, a, c);
	if (ok && upper) {
		ok = *c != INT64_MIN;
		*c = ok ? -*c : 0;
	}
	aff_free(n, NULL);
	aff_free(z, NULL);
	return ok;
}

static bool aff_le(const void *a, const void *b, void *user)
{
	const facts *fs = user;
	pt_affine *d = aff_new(fs->np, 0);
	int64_t c;
	bool le = aff_diff(b, a, d) && fact_offset(fs, d, &c) && c >= 0;
	aff_free(d, NULL);
	return le;
}

static void *aff_exact(const pt_expr *e, void *user)
{
	return aff_from_expr(e, ((facts *)user)->np);
}

static void *aff_constant(int64_t v, void *user)
{
	return aff_new(((facts *)user)->np, v);
}

static void *aff_copy(const void *a, void *user)
{
	const pt_affine *x = a;
	pt_affine *r = aff_new(((facts *)user)->np, x->cst);
	if (r)
		memcpy(r->pcoef, x->pcoef, sizeof(int64_t) * (size_t)x->nparams);
	return r;
}

static void *aff_type_bound(int t, bool hi, void *user)
{
	int64_t lo, up;
	pt_type_range(t, &lo, &up);
	return aff_constant(hi ? up : lo, user);
}

static void *aff_add(void *a, void *b, bool sub, void *user)
{
	pt_affine *x = a, *y = b;
	bool ok = x && y;
	if (ok && sub)
		ok = aff_diff(x, y, x);
	else if (ok) {
		ok = !__builtin_add_overflow(x->cst, y->cst, &x->cst);
		for (int i = 0; ok && i < x->nparams; i++)
			ok = !__builtin_add_overflow(x->pcoef[i], y->pcoef[i], &x->pcoef[i]);
	}
	aff_free(y, user);
	if (ok)
		return x;
	aff_free(x, user);
	return NULL;
}

static void *aff_scale(void *a, int64_t k, void *user)
{
	pt_affine *x = a;
	bool over = !x;
	for (int i = 0; x && i < x->nparams; i++)
		over |= __builtin_mul_overflow(x->pcoef[i], k, &x->pcoef[i]);
	over = over || __builtin_mul_overflow(x->cst, k, &x->cst);
	if (!over)
		return x;
	aff_free(x, user);
	return NULL;
}

/* Only constants divide exactly into a bound of this form. */
static void *aff_floordiv(void *a, int64_t k, void *user)
{
	pt_affine *x = a;
	for (int i = 0; x && i < x->nparams; i++)
		if (x->pcoef[i]) {
			aff_free(x, user);
			return NULL;
		}
	if (x)
		x->cst = pt_floordiv(x->cst, k);
	return x;
}

/* The lower or higher of two comparable bounds.  Otherwise: for the side
 * where either one bounds the result (min's high end), the later one (the
 * hi of clamp's min(max(v, lo), hi)); for the other side, the lower (or
 * higher) of the constants that bound each (min(1, R - 1) >= 0 when R >= 1
 * is a fact). */
static void *aff_minmax(void *a, void *b, bool min, bool need_both, void *user)
{
	if (!a || !b) {
		if (need_both) {
			aff_free(a, user);
			aff_free(b, user);
			return NULL;
		}
		return a ? a : b;
	}
	void *keep = NULL;
	int64_t ca, cb;
	if (aff_le(a, b, user))
		keep = min ? a : b;
	else if (aff_le(b, a, user))
		keep = min ? b : a;
	else if (!need_both)
		keep = b;
	else if (aff_const_bound(user, a, !min, &ca) && aff_const_bound(user, b, !min, &cb))
		keep = aff_constant(min ? (ca < cb ? ca : cb) : (ca > cb ? ca : cb), user);
	if (keep != a)
		aff_free(a, user);
	if (keep != b)
		aff_free(b, user);
	return keep;
}

static const pt_expr *var_bound(const pt_stage *s, int index, bool hi)
{
	const pt_interval *iv = index < s->ndim ? &s->dom[index] : &s->rdom[index - s->ndim];
	return hi ? iv->hi : iv->lo;
}

typedef struct aff_user {
	facts fs;               /* first: the ops' user is also a facts * */
	const pt_stage *s;
} aff_user;

static void *aff_var(int index, bool hi, void *user)
{
	aff_user *u = user;
	return aff_from_expr(var_bound(u->s, index, hi), u->fs.np);
}

static const pt_range_ops aff_ops = {
	aff_exact, aff_var, aff_type_bound, aff_constant, aff_copy, aff_add, aff_scale,
	aff_floordiv, aff_minmax, aff_le, aff_free
};

static void add_fact(facts *fs, pt_affine *lo, pt_affine *hi)
{
	if (lo && hi && aff_diff(hi, lo, hi)) {
		pt_affine *f = pt_mem_realloc(fs->f, sizeof(*f) * (size_t)(fs->n + 1));
		if (!f) {       /* a fact lost: a wider range shown (alloc.h) */
			aff_free(lo, NULL);
			aff_free(hi, NULL);
			return;
		}
		fs->f = f;
		fs->f[fs->n++] = *hi;
		free(hi);
		hi = NULL;
	}
	aff_free(lo, NULL);
	aff_free(hi, NULL);
}

static void collect_facts(const pt_pipeline *p, const pt_stage *s, facts *fs)
{
	int np = p->nparams;
	*fs = (facts){np, 0, NULL};
	for (int i = 0; i < p->nstages; i++) {
		const pt_stage *t = p->stages[i];
		for (int d = 0; d < t->ndim + (t == s ? t->nrdim : 0); d++)
			add_fact(fs, aff_from_expr(var_bound(t, d, false), np), aff_from_expr(var_bound(t, d, true), np));
	}
	for (int i = 0; i < p->nimages; i++)
		for (int d = 0; d < p->images[i]->ndim; d++)
			add_fact(fs, aff_new(np, 1), aff_from_expr(p->images[i]->extent[d], np));
	for (int q = 0; q < np; q++)
		if (p->params[q].type == PT_I32) {
			pt_affine *v = aff_new(np, 0);
			if (!v)
				continue;
			v->pcoef[q] = 1;
			add_fact(fs, aff_new(np, INT32_MIN), aff_copy(v, fs));
			add_fact(fs, v, aff_new(np, INT32_MAX));
		}
}

static void free_facts(facts *fs)
{
	for (int i = 0; i < fs->n; i++)
		pt_affine_clear(&fs->f[i]);
	free(fs->f);
}

static void print_bound(pt_strbuf *sb, const pt_pipeline *p, const pt_affine *b, bool low)
{
	if (!b) {
		pt_sb_printf(sb, "%s", low ? "-inf" : "+inf");
		return;
	}
	bool any = false;
	for (int i = 0; i < p->nparams; i++) {
		int64_t c = b->pcoef[i];
		if (!c)
			continue;
		if (any)
			pt_sb_printf(sb, c < 0 ? " - " : " + ");
		else if (c < 0)
			pt_sb_printf(sb, "-");
		if (c != 1 && c != -1)
			pt_sb_printf(sb, "%lld*", (long long)(c < 0 ? -c : c));
		pt_sb_printf(sb, "%s", p->params[i].name);
		any = true;
	}
	if (!any)
		pt_sb_printf(sb, "%lld", (long long)b->cst);
	else if (b->cst)
		pt_sb_printf(sb, " %c %lld", b->cst < 0 ? '-' : '+',
			(long long)(b->cst < 0 ? -b->cst : b->cst));
}

void pt_index_range_print(pt_strbuf *sb, const pt_pipeline *p, const pt_stage *s, const pt_expr *e)
{
	aff_user u = {{p->nparams, 0, NULL}, s};
	collect_facts(p, s, &u.fs);
	pt_range r = pt_range_of(e, &aff_ops, &u);
	print_bound(sb, p, r.lo, true);
	pt_sb_printf(sb, " .. ");
	print_bound(sb, p, r.hi, false);
	aff_free(r.lo, NULL);
	aff_free(r.hi, NULL);
	free_facts(&u.fs);
}
