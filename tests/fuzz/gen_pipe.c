/* gen_pipe.c: random pipelines that are valid by construction.
 *
 * A pipeline has 1 to 3 int params R, C, K, one per dimension.  Every box
 * (an image's extents, a stage's domain) is kept as one interval per
 * dimension, lo .. floor((a*P + b) / q) with lo constant, so the generator
 * knows, for any shift, downsample or upsample of an index, whether a read
 * stays inside its callee for every admissible P (then it is written as an
 * affine read) or not (then it is clamped to the callee's box).  Values
 * stay in [0, 1] (floats) or 0 .. 255 (integers) unless a node is marked
 * wide (sums, counts), and readers of wide nodes clamp them, so outputs
 * are finite and a LUT index is always in range. */
#include "gen_pipe.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 40        /* images, stages and tuples' components */
#define MAX_STAGES 12
#define MAX_TAPS 9      /* reads of one stencil or downsample */
#define PMIN_CAP 10    /* shrinking stops before the smallest size passes this */

const char *const gen_kind_name[GEN_NKINDS] = {
	"point-wise", "stencil", "downsample", "upsample", "lut", "piecewise",
	"window reduction", "dimension reduction", "histogram", "table", "recurrence", "tuple reduction",
	"time-iterated",
};

enum { TY_F32, TY_F64, TY_U8, TY_U16, TY_I16, TY_I32, TY_I64, TY_N };
static const char *const ty_name[TY_N] = { "float", "double", "u8", "u16", "i16", "int", "long" };
#define IS_FLOAT(t) ((t) <= TY_F64)

static const char *const pname[GEN_MAX_DIMS] = { "R", "C", "K" };
static const char *const var_out[GEN_MAX_DIMS] = { "x", "y", "z" };
static const char *const var_red[GEN_MAX_DIMS] = { "i", "j", "k" };

/* floor((a*P + b) / q), a >= 0, q >= 1: grows with P. */
typedef struct form {
	int a, b, q;
} form;

typedef struct node {
	char name[16];
	bool image, table, partial, wide, used;
	/* a tuple reduction, read only through its ncomp components: the
	 * nodes after it, NAME_0 .. */
	bool tuple;
	int ncomp;
	int type, ndim;
	int dim[GEN_MAX_DIMS]; /* the pipeline dimension of each; -1 in a table */
	int lo[GEN_MAX_DIMS];
	form hi[GEN_MAX_DIMS];
} node;

/* An index into a callee: floor((mul*var + pre) / div) + [olo, ohi]. */
typedef struct ix {
	const char *s;
	int mul, pre, div, olo, ohi;
} ix;

typedef struct gen {
	uint64_t s;
	int D;
	node n[MAXN];
	int nn, nstages;
	bool fparam;
	char *body;
	size_t len, cap;
	char **strs;
	int nstrs, capstrs;
	gen_pipe *out;
} gen;

/* ---- randomness and strings ---- */

static uint64_t next(gen *g)
{
	uint64_t z = (g->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int rnd(gen *g, int n)
{
	return (int)(next(g) % (uint64_t)n);
}

static int between(gen *g, int lo, int hi)
{
	return lo + rnd(g, hi - lo + 1);
}

static bool chance(gen *g, int pct)
{
	return rnd(g, 100) < pct;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		abort();
	return p;
}

/* A formatted string owned by g (freed with it). */
static const char *fmt(gen *g, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int n = vsnprintf(NULL, 0, f, ap);
	va_end(ap);
	char *s = xrealloc(NULL, (size_t)n + 1);
	va_start(ap, f);
	vsnprintf(s, (size_t)n + 1, f, ap);
	va_end(ap);
	if (g->nstrs == g->capstrs) {
		g->capstrs = g->capstrs ? 2 * g->capstrs : 256;
		g->strs = xrealloc(g->strs, sizeof(char *) * (size_t)g->capstrs);
	}
	g->strs[g->nstrs++] = s;
	return s;
}

static void emit(gen *g, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int n = vsnprintf(NULL, 0, f, ap);
	va_end(ap);
	if (g->len + (size_t)n + 1 > g->cap) {
		g->cap = 2 * (g->len + (size_t)n + 1);
		g->body = xrealloc(g->body, g->cap);
	}
	va_start(ap, f);
	vsnprintf(g->body + g->len, (size_t)n + 1, f, ap);
	va_end(ap);
	g->len += (size_t)n;
}

/* ---- boxes ---- */

static int64_t fdiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static int64_t form_at(form f, int64_t P)
{
	return fdiv((int64_t)f.a * P + f.b, f.q);
}

static const char *form_str(gen *g, form f, int d)
{
	if (f.a == 0)
		return fmt(g, "%lld", (long long)fdiv(f.b, f.q));
	const char *s = f.a == 1 ? pname[d] : fmt(g, "%d*%s", f.a, pname[d]);
	if (f.b)
		s = fmt(g, "%s %c %d", s, f.b < 0 ? '-' : '+', abs(f.b));
	return f.q == 1 ? s : fmt(g, "(%s)/%d", s, f.q);
}

/* The smallest P that makes every box (and extra's) non-empty in
 * dimension d: the admissible values are P >= it, as bounds grow with P. */
static int pmin_of(const gen *g, int d, const node *extra)
{
	for (int P = -64; P < 100000; P++) {
		bool ok = true;
		for (int i = 0; i <= g->nn && ok; i++) {
			const node *n = i < g->nn ? &g->n[i] : extra;
			for (int k = 0; n && k < n->ndim; k++)
				if (n->dim[k] == d && form_at(n->hi[k], P) < n->lo[k])
					ok = false;
		}
		if (ok)
			return P;
	}
	return 100000;
}

static bool pmin_ok(const gen *g, const node *extra)
{
	for (int d = 0; d < g->D; d++)
		if (pmin_of(g, d, extra) > PMIN_CAP)
			return false;
	return true;
}

static int dim_index(const node *n, int d)
{
	for (int k = 0; k < n->ndim; k++)
		if (n->dim[k] == d)
			return k;
	return -1;
}

static unsigned dim_mask(const node *n)
{
	unsigned m = 0;
	for (int k = 0; k < n->ndim; k++)
		m |= n->dim[k] >= 0 ? 1u << n->dim[k] : 1u << 8;
	return m;
}

/* Whether index x over dimension bk of box stays inside dimension pk of p
 * for every admissible P (box is the reader's box, non-empty there). */
static bool inside(const gen *g, const node *box, int bk, const ix *x, const node *p, int pk)
{
	int64_t lo = fdiv((int64_t)x->mul * box->lo[bk] + x->pre, x->div) + x->olo;
	if (lo < p->lo[pk])
		return false;
	form h = box->hi[bk], ph = p->hi[pk];
	h.b = h.b * x->mul + x->pre * h.q;
	h.a *= x->mul;
	h.q *= x->div;
	if ((int64_t)h.a * ph.q > (int64_t)ph.a * h.q)
		return false;
	int pm = pmin_of(g, p->dim[pk], box);
	for (int P = pm; P < pm + 4096; P++)
		if (form_at(h, P) + x->ohi > form_at(ph, P))
			return false;
	return true;
}

static ix shift(gen *g, const char *var, int off)
{
	ix x = { var, 1, 0, 1, off, off };
	if (off)
		x.s = fmt(g, "%s %c %d", var, off < 0 ? '-' : '+', abs(off));
	return x;
}

/* p read from box at the indices xs (by pipeline dimension): affine where
 * the index stays inside p, clamped to p's box otherwise. */
static const char *read_at(gen *g, const node *box, node *p, const ix *xs)
{
	const char *args = "";
	for (int k = 0; k < p->ndim; k++) {
		int d = p->dim[k];
		const ix *x = &xs[d];
		const char *a = x->s;
		if (inside(g, box, dim_index(box, d), x, p, k)) {
			g->out->exact++;
		} else {
			a = fmt(g, "clamp(%s, %d, %s)", a, p->lo[k], form_str(g, p->hi[k], d));
			g->out->clamped++;
		}
		args = fmt(g, k ? "%s, %s" : "%s%s", args, a);
	}
	p->used = true;
	return fmt(g, "%s(%s)", p->name, args);
}

/* p read at the reader's own point (variables vars), shifted by off. */
static const char *read_pt(gen *g, const node *box, node *p, const char *const *vars, const int *off)
{
	ix xs[GEN_MAX_DIMS];
	for (int d = 0; d < g->D; d++)
		xs[d] = shift(g, vars[d], off ? off[d] : 0);
	return read_at(g, box, p, xs);
}

/* ---- values ---- */

/* A read of p as a float in [0, 1]. */
static const char *as_float(gen *g, const node *p, const char *r)
{
	if (IS_FLOAT(p->type))
		return p->wide ? fmt(g, "clamp(%s, 0.0, 1.0)", r) : r;
	if (p->wide)
		r = fmt(g, "clamp(%s, 0, 255)", r);
	return chance(g, 50) ? fmt(g, "float(%s) / 255.0", r) : fmt(g, "float(%s) * 0.00390625", r);
}

/* A read of p as an integer in 0 .. 255. */
static const char *as_int(gen *g, const node *p, const char *r)
{
	if (IS_FLOAT(p->type)) {
		if (p->wide)
			r = fmt(g, "clamp(%s, 0.0, 1.0)", r);
		return chance(g, 70) ? fmt(g, "int(%s * 255.0)", r) : fmt(g, "u8(round(%s * 200.0))", r);
	}
	return p->wide ? fmt(g, "clamp(%s, 0, 255)", r) : r;
}

static const char *as_type(gen *g, int type, const node *p, const char *r)
{
	return IS_FLOAT(type) ? as_float(g, p, r) : as_int(g, p, r);
}

static const char *fcombine(gen *g, const char *a, const char *b)
{
	switch (rnd(g, 16)) {
	case 0: return fmt(g, "((%s + %s) * 0.5)", a, b);
	case 1: return fmt(g, "(%s * %s)", a, b);
	case 2: return fmt(g, "clamp(%s - %s + 0.5, 0.0, 1.0)", a, b);
	case 3: return fmt(g, "select(%s > %s, %s, %s)", a, b, a, b);
	case 4: return fmt(g, "max(%s, %s)", a, b);
	case 5: return fmt(g, "min(%s, %s)", a, b);
	case 6: return fmt(g, "sqrt(abs(%s * %s))", a, b);
	case 7: return fmt(g, "(exp(-(%s)) * %s)", a, b);
	case 8: return fmt(g, "(sin(%s) * 0.5 + cos(%s) * 0.25)", a, b);
	case 9: return fmt(g, "(%s < 0.5 ? %s * 0.5 + 0.5 : %s * 0.5)", a, b, b);
	case 10: return fmt(g, "tanh(%s + %s)", a, b);
	case 11: return fmt(g, "(log(%s + %s + 1.0) * 0.7)", a, b);
	case 12: return fmt(g, "(pow(abs(%s), 1.5) * 0.5 + %s * 0.5)", a, b);
	case 13: return fmt(g, "atan2(%s, %s + 1.0)", a, b);
	case 14: return fmt(g, "(floor(%s * 8.0) * 0.0625 + round(%s * 4.0) * 0.125)", a, b);
	default:
		return g->fparam ? fmt(g, "(%s * g + %s * (1.0 - g))", a, b)
			: fmt(g, "(%s * 0.25 + %s * 0.75)", a, b);
	}
}

static const char *icombine(gen *g, const char *a, const char *b)
{
	switch (rnd(g, 14)) {
	case 0: return fmt(g, "((%s + %s) / 2)", a, b);
	case 1: return fmt(g, "((%s * %s) >> 8)", a, b);
	case 2: return fmt(g, "((%s ^ %s) & 255)", a, b);
	case 3: return fmt(g, "max(%s, %s)", a, b);
	case 4: return fmt(g, "min(%s, %s)", a, b);
	case 5: return fmt(g, "clamp(%s - %s + 128, 0, 255)", a, b);
	case 6: return fmt(g, "abs(%s - %s)", a, b);
	case 7: return fmt(g, "select(%s > %s, %s - %s, %s - %s)", a, b, a, b, b, a);
	case 8: return fmt(g, "((%s * 3 + %s) %% 256)", a, b);
	case 9: return fmt(g, "(%s | (%s & 15))", a, b);
	case 10: return fmt(g, "((%s << 1) & 255)", a);
	case 11: return fmt(g, "clamp((%s * 7 - %s * 3) / 5, 0, 255)", a, b);
	case 12: return fmt(g, "(%s / (%s %% 7 + 1))", a, b);
	default: return fmt(g, "(%s %% (%s + 1))", a, b);
	}
}

static const char *combine(gen *g, int type, const char *a, const char *b)
{
	return IS_FLOAT(type) ? fcombine(g, a, b) : icombine(g, a, b);
}

/* ---- nodes ---- */

static node *pick(gen *g, unsigned mask)
{
	int cand[MAXN], nc = 0;
	for (int i = 0; i < g->nn; i++) {
		const node *n = &g->n[i];
		if (!n->table && !n->partial && !n->tuple && !(dim_mask(n) & ~mask))
			cand[nc++] = i;
	}
	if (!nc)
		return NULL;
	int k = chance(g, 60) ? nc - 1 - rnd(g, nc < 3 ? nc : 3) : rnd(g, nc);
	return &g->n[cand[k]];
}

static int rand_type(gen *g, int like)
{
	if (like >= 0 && chance(g, 50))
		return IS_FLOAT(like) ? TY_F32 : TY_I32;
	static const int types[] = { TY_F32, TY_F32, TY_F32, TY_F64, TY_U8, TY_U16, TY_I16, TY_I32, TY_I64 };
	return types[rnd(g, (int)(sizeof(types) / sizeof(types[0])))];
}

/* The next stage at g->n[g->nn], over box's dimensions; add() commits it. */
static node *new_stage(gen *g, const node *box, int type)
{
	node *n = &g->n[g->nn];
	*n = *box;
	n->image = n->table = n->partial = n->wide = n->used = n->tuple = false;
	n->type = type;
	snprintf(n->name, sizeof(n->name), "s%d", g->nstages);
	return n;
}

static node *new_table(gen *g, int type, int size)
{
	node *n = &g->n[g->nn];
	memset(n, 0, sizeof(*n));
	n->table = true;
	n->type = type;
	n->ndim = 1;
	n->dim[0] = -1;
	n->hi[0] = (form){ 0, size - 1, 1 };
	snprintf(n->name, sizeof(n->name), "s%d", g->nstages);
	return n;
}

static void add(gen *g, int kind)
{
	g->nn++;
	g->nstages++;
	g->out->kinds[kind]++;
}

/* "func NAME(x : lo .. hi, ...)" with the variables vars (tables: t). */
static void emit_dims(gen *g, const char *kw, const node *n, const char *const *vars)
{
	emit(g, "%s %s(", kw, n->name);
	for (int k = 0; k < n->ndim; k++) {
		int d = n->dim[k];
		emit(g, "%s%s : %d .. %s", k ? ", " : "", d < 0 ? "t" : vars[d], n->lo[k], form_str(g, n->hi[k], d));
	}
	emit(g, ")");
}

/* emit_dims and ": TYPE". */
static void emit_head(gen *g, const char *kw, const node *n, const char *const *vars)
{
	emit_dims(g, kw, n, vars);
	emit(g, " : %s", ty_name[n->type]);
}

/* "(i : lo .. hi, ...)": box's dimensions as reduction variables. */
static const char *over_list(gen *g, const node *box)
{
	const char *s = "";
	for (int k = 0; k < box->ndim; k++)
		s = fmt(g, "%s%s%s : %d .. %s", s, k ? ", " : "", var_red[box->dim[k]], box->lo[k],
			form_str(g, box->hi[k], box->dim[k]));
	return s;
}

/* ---- stages, one function per kind ---- */

/* A stage over p's box reading p and up to two more nodes at its point
 * (sometimes shifted: clamped where that leaves them). */
static void mk_point(gen *g)
{
	node *p = pick(g, ~0u);
	node *n = new_stage(g, p, rand_type(g, p->type));
	int nr = between(g, 1, 3);
	const char *acc = NULL;
	for (int r = 0; r < nr; r++) {
		node *q = r == 0 ? p : pick(g, dim_mask(n));
		int off[GEN_MAX_DIMS] = { 0 };
		if (r > 0 && chance(g, 30))
			off[q->dim[rnd(g, q->ndim)]] = between(g, -2, 2);
		const char *v = as_type(g, n->type, q, read_pt(g, n, q, var_out, off));
		acc = acc ? combine(g, n->type, acc, v) : nr == 1 ? combine(g, n->type, v, v) : v;
	}
	emit_head(g, "func", n, var_out);
	emit(g, " = %s\n", acc);
	add(g, GEN_POINT);
}

/* A weighted window of p in one or more dimensions, on a domain shrunk so
 * that every read is affine, or on p's box with reads clamped at its
 * borders. */
static void mk_stencil(gen *g)
{
	node *p = pick(g, ~0u);
	node *n = new_stage(g, p, rand_type(g, p->type));
	/* at most two dimensions of window: isl's dependence analysis takes
	 * seconds on 3-D windows of clamped reads */
	int rad[GEN_MAX_DIMS] = { 0 };
	for (int k = n->ndim > 2; k < n->ndim; k++)
		if (chance(g, 60))
			rad[n->dim[k]] = between(g, 1, 2);
	if (!rad[n->dim[n->ndim - 1]])
		rad[n->dim[n->ndim - 1]] = 1;
	if (chance(g, 60)) {
		node save = *n;
		for (int k = 0; k < n->ndim; k++) {
			n->lo[k] += rad[n->dim[k]];
			n->hi[k].b -= rad[n->dim[k]] * n->hi[k].q;
		}
		if (!pmin_ok(g, n))
			*n = save;
	}
	const char *sum = NULL;
	int total = 0, ntaps = 0;
	int off[GEN_MAX_DIMS];
	/* every offset in the window, in order; some dropped (never the centre) */
	for (int t = 0;; t++) {
		int c = t;
		bool centre = true;
		for (int d = g->D - 1; d >= 0; d--) {
			int w = 2 * rad[d] + 1;
			off[d] = c % w - rad[d];
			c /= w;
			centre = centre && off[d] == 0;
		}
		if (c)
			break;
		if (!centre && (chance(g, 40) || ntaps >= MAX_TAPS))
			continue;
		int w = between(g, 1, 4);
		const char *v = as_type(g, n->type, p, read_pt(g, n, p, var_out, off));
		const char *term = w == 1 ? v : fmt(g, "%d * %s", w, v);
		sum = sum ? fmt(g, "%s + %s", sum, term) : term;
		total += w;
		ntaps++;
	}
	emit_head(g, "func", n, var_out);
	if (IS_FLOAT(n->type))
		emit(g, " = (%s) / %d.0\n", sum, total);
	else
		emit(g, " = (%s) / %d\n", sum, total);
	add(g, GEN_STENCIL);
}

/* The mean of p(2x + k) for k in k0 .. k1 in some dimensions, on the
 * domain where those reads are affine or on half of p's box (clamped). */
static void mk_down(gen *g)
{
	node *p = pick(g, ~0u);
	node *n = new_stage(g, p, rand_type(g, p->type));
	bool chosen[GEN_MAX_DIMS] = { false };
	int k0 = -rnd(g, 2), k1 = k0 + 1 + rnd(g, 2 + k0);
	bool exact = chance(g, 60), any = false;
	for (int k = 0; k < n->ndim; k++) {
		if (p->hi[k].q > 4 || !(chance(g, 60) || (k == n->ndim - 1 && !any)))
			continue;
		chosen[n->dim[k]] = any = true;
		form h = p->hi[k];
		if (exact) {
			n->lo[k] = (int)-fdiv(-(p->lo[k] - k0), 2);
			n->hi[k] = (form){ h.a, h.b - k1 * h.q, 2 * h.q };
		} else {
			n->lo[k] = (int)fdiv(p->lo[k], 2);
			n->hi[k] = (form){ h.a, h.b, 2 * h.q };
		}
	}
	if (!any || !pmin_ok(g, n))
		return;
	ix xs[GEN_MAX_DIMS];
	const char *sum = NULL;
	int ntaps = 0, span = k1 - k0 + 1;
	int nch = 0;
	for (int d = 0; d < g->D; d++)
		nch += chosen[d];
	int count = nch == 1 ? span : nch == 2 ? span * span : span * span * span;
	for (int t = 0; t < count && ntaps < MAX_TAPS; t++) {
		int c = t;
		for (int d = g->D - 1; d >= 0; d--) {
			if (!chosen[d]) {
				xs[d] = shift(g, var_out[d], 0);
				continue;
			}
			int kk = k0 + c % span;
			c /= span;
			xs[d] = (ix){ fmt(g, "2*%s%s", var_out[d], kk ? fmt(g, " %c %d", kk < 0 ? '-' : '+', abs(kk)) : ""),
				2, kk, 1, 0, 0 };
		}
		const char *v = as_type(g, n->type, p, read_at(g, n, p, xs));
		sum = sum ? fmt(g, "%s + %s", sum, v) : v;
		ntaps++;
	}
	emit_head(g, "func", n, var_out);
	emit(g, IS_FLOAT(n->type) ? " = (%s) / %d.0\n" : " = (%s) / %d\n", sum, ntaps);
	add(g, GEN_DOWN);
}

/* p(x/2), or the mean of p(x/2) and p((x+1)/2), in some dimensions, on
 * twice p's box. */
static void mk_up(gen *g)
{
	node *p = pick(g, ~0u);
	for (int k = 0; k < p->ndim; k++)
		if (p->hi[k].a > 2)
			return;
	node *n = new_stage(g, p, rand_type(g, p->type));
	bool lerp = chance(g, 50), any = false;
	ix xs[GEN_MAX_DIMS], xs1[GEN_MAX_DIMS];
	for (int d = 0; d < g->D; d++)
		xs[d] = xs1[d] = shift(g, var_out[d], 0);
	for (int k = 0; k < n->ndim; k++) {
		if (!(chance(g, 60) || (k == n->ndim - 1 && !any)))
			continue;
		any = true;
		int d = n->dim[k];
		form h = p->hi[k];
		n->lo[k] = 2 * p->lo[k];
		if (h.q == 1 && chance(g, 70))
			n->hi[k] = (form){ 2 * h.a, 2 * h.b + !lerp, 1 };
		else
			n->hi[k] = (form){ 2 * h.a, 2 * h.b, h.q };
		xs[d] = (ix){ fmt(g, "%s / 2", var_out[d]), 1, 0, 2, 0, 0 };
		xs1[d] = (ix){ fmt(g, "(%s + 1) / 2", var_out[d]), 1, 1, 2, 0, 0 };
	}
	if (!pmin_ok(g, n))
		return;
	const char *v = as_type(g, n->type, p, read_at(g, n, p, xs));
	if (lerp) {
		const char *w = as_type(g, n->type, p, read_at(g, n, p, xs1));
		v = IS_FLOAT(n->type) ? fmt(g, "(%s + %s) * 0.5", v, w) : fmt(g, "(%s + %s) / 2", v, w);
	}
	emit_head(g, "func", n, var_out);
	emit(g, " = %s\n", v);
	add(g, GEN_UP);
}

/* A table of 16, 64 or 256 entries computed from its index. */
static node *mk_table(gen *g)
{
	static const int sizes[] = { 16, 64, 256 };
	int size = sizes[rnd(g, 3)], m = size - 1;
	node *t = new_table(g, chance(g, 60) ? TY_F32 : TY_I32, size);
	const char *e;
	if (IS_FLOAT(t->type)) {
		switch (rnd(g, 4)) {
		case 0: e = fmt(g, "float(t) / %d.0", m); break;
		case 1: e = fmt(g, "sqrt(float(t) / %d.0)", m); break;
		case 2: e = fmt(g, "float((t * 37 + 11) %% %d) / %d.0", size, m); break;
		default: e = fmt(g, "sin(float(t) * %g) * 0.5 + 0.5", 6.0 / size); break;
		}
	} else {
		switch (rnd(g, 3)) {
		case 0: e = "(t * 7 + 3) % 256"; break;
		case 1: e = "(t * t) % 251"; break;
		default: e = fmt(g, "255 - t * %d", 256 / size); break;
		}
	}
	emit_head(g, "func", t, var_out);
	emit(g, " = %s\n", e);
	add(g, GEN_TABLE);
	return &g->n[g->nn - 1];
}

/* A table read at an index computed from data (clamped to the table). */
static void mk_lut(gen *g, int room)
{
	node *t = NULL;
	int tabs[MAXN], nt = 0;
	for (int i = 0; i < g->nn; i++)
		if (g->n[i].table && !g->n[i].tuple)
			tabs[nt++] = i;
	if (nt && (chance(g, 50) || room < 2))
		t = &g->n[tabs[rnd(g, nt)]];
	else if (room >= 2)
		t = mk_table(g);
	else
		return;
	node *p = pick(g, ~0u);
	node *n = new_stage(g, p, rand_type(g, t->type));
	int size = (int)t->hi[0].b + 1;
	const char *r = read_pt(g, n, p, var_out, NULL), *idx;
	if (size == 1)
		idx = "0";
	else if (IS_FLOAT(p->type))
		idx = fmt(g, "clamp(int(%s * %d.0), 0, %d)", as_float(g, p, r), size, size - 1);
	else if (size == 256 && p->type == TY_U8 && chance(g, 50))
		idx = r;
	else
		idx = fmt(g, "clamp(%s * %d / 256, 0, %d)", as_int(g, p, r), size, size - 1);
	t->used = true;
	const char *v = as_type(g, n->type, t, fmt(g, "%s(%s)", t->name, idx));
	if (chance(g, 40))
		v = combine(g, n->type, v, as_type(g, n->type, p, r));
	emit_head(g, "func", n, var_out);
	emit(g, " = %s\n", v);
	add(g, GEN_LUT);
}

/* A value of the stage n from p and maybe one more node, read at n's point. */
static const char *value_of(gen *g, node *n, node *p)
{
	const char *v = as_type(g, n->type, p, read_pt(g, n, p, var_out, NULL));
	node *q = pick(g, dim_mask(n));
	if (q && chance(g, 50))
		v = combine(g, n->type, v, as_type(g, n->type, q, read_pt(g, n, q, var_out, NULL)));
	return v;
}

/* A condition on n's point and its negation: affine in the variables and
 * params, or on the data of p. */
static void cond_pair(gen *g, node *n, node *p, const char **c, const char **nc)
{
	int k = rnd(g, n->ndim), d = n->dim[k];
	const char *v = var_out[d], *w = n->ndim > 1 ? var_out[n->dim[(k + 1) % n->ndim]] : v;
	switch (rnd(g, 7)) {
	case 0: *c = fmt(g, "%s < %s", v, form_str(g, (form){ 1, 0, 2 }, d)); *nc = fmt(g, "%s >= %s", v, form_str(g, (form){ 1, 0, 2 }, d)); break;
	case 1: *c = fmt(g, "%s %% 2 == 0", v); *nc = fmt(g, "%s %% 2 == 1", v); break;
	case 2: {
		int t = n->lo[k] + between(g, 0, 3);
		*c = fmt(g, "%s <= %d", v, t);
		*nc = fmt(g, "%s > %d", v, t);
		break;
	}
	case 3: *c = fmt(g, "%s + %s < %s", v, w, pname[d]); *nc = fmt(g, "%s + %s >= %s", v, w, pname[d]); break;
	case 4: *c = fmt(g, "2*%s > %s + 1", v, pname[d]); *nc = fmt(g, "2*%s <= %s + 1", v, pname[d]); break;
	case 5: *c = fmt(g, "%s < %s", v, w); *nc = fmt(g, "%s >= %s", v, w); break;
	default: {
		const char *r = as_float(g, p, read_pt(g, n, p, var_out, NULL));
		*c = fmt(g, "%s < 0.5", r);
		*nc = fmt(g, "%s >= 0.5", r);
		break;
	}
	}
}

/* Cases on conditions: total (ending in else, or a condition and its
 * negation), or partial (undefined points: an output nobody reads, whose
 * first case holds at the lower corner so it has defined points). */
static void mk_piece(gen *g)
{
	node *p = pick(g, ~0u);
	node *n = new_stage(g, p, rand_type(g, p->type));
	const char *c, *nc, *c2, *nc2;
	cond_pair(g, n, p, &c, &nc);
	cond_pair(g, n, p, &c2, &nc2);
	(void)nc2;
	emit_head(g, "func", n, var_out);
	emit(g, "\n");
	switch (rnd(g, 4)) {
	case 0:
		emit(g, "  | %s -> %s\n  | else -> %s\n", c, value_of(g, n, p), value_of(g, n, p));
		break;
	case 1:
		emit(g, "  | %s -> %s\n  | %s && %s -> %s\n  | else -> %s\n", c, value_of(g, n, p), nc, c2,
			value_of(g, n, p), value_of(g, n, p));
		break;
	case 2:
		emit(g, "  | %s -> %s\n  | %s -> %s\n", c, value_of(g, n, p), nc, value_of(g, n, p));
		break;
	default: {
		int t = n->lo[0] + between(g, 0, 3);
		const char *v = var_out[n->dim[0]];
		n->partial = true;
		emit(g, "  | %s <= %d -> %s\n  | %s > %d && %s -> %s\n", v, t, value_of(g, n, p), v, t, c2,
			value_of(g, n, p));
		break;
	}
	}
	add(g, GEN_PIECE);
}

/* A reduction over a window along one dimension: sum (scaled), max or
 * min of p(i, j + w), on a shrunk domain (affine reads) or p's box
 * (clamped reads); sometimes a second, conditional update. */
static void mk_window(gen *g)
{
	node *p = pick(g, ~0u);
	node *n = new_stage(g, p, rand_type(g, p->type));
	int k = rnd(g, n->ndim), d = n->dim[k], r = between(g, 1, 2);
	if (chance(g, 50)) {
		node save = *n;
		n->lo[k] += r;
		n->hi[k].b -= r * n->hi[k].q;
		if (!pmin_ok(g, n))
			*n = save;
	}
	ix xs[GEN_MAX_DIMS];
	for (int e = 0; e < g->D; e++)
		xs[e] = shift(g, var_red[e], 0);
	xs[d] = (ix){ fmt(g, "%s + w", var_red[d]), 1, 0, 1, -r, r };
	const char *v = as_type(g, n->type, p, read_at(g, n, p, xs));
	static const char *const ops[] = { "+=", "max=", "min=" };
	int op = rnd(g, 3);
	if (op == 0)
		v = IS_FLOAT(n->type) ? fmt(g, "%s * %g", v, 1.0 / (2 * r + 1)) : v;
	n->wide = op == 0 && !IS_FLOAT(n->type);
	const char *target = "";
	for (int e = 0; e < n->ndim; e++)
		target = fmt(g, "%s%s%s", target, e ? ", " : "", var_red[n->dim[e]]);
	emit_head(g, "reduce", n, var_out);
	emit(g, " over (%s, w : %d .. %d)", over_list(g, n), -r, r);
	if (chance(g, 25)) {
		emit(g, " init %s", IS_FLOAT(n->type) ? "0.25" : "3");
		n->wide = n->wide || op == 0;
	}
	emit(g, "\n  | %s(%s) %s %s\n", n->name, target, ops[op], v);
	if (chance(g, 30)) {
		node *q = pick(g, dim_mask(n));
		emit(g, "  | w == 0 && %s %% 2 == 0 -> %s(%s) %s %s\n", var_red[d], n->name, target, ops[op],
			as_type(g, n->type, q, read_pt(g, n, q, var_red, NULL)));
		n->wide = n->wide || op == 0;
	}
	add(g, GEN_WINDOW);
}

/* A reduction of p over one of its dimensions (or all, into one value). */
static void mk_dimred(gen *g)
{
	node *p = pick(g, ~0u);
	int drop = p->ndim > 1 && chance(g, 75) ? rnd(g, p->ndim) : -1;
	int type = rand_type(g, p->type), op = rnd(g, 3);
	node *n = drop < 0 ? new_table(g, type, 1) : new_stage(g, p, type);
	if (drop >= 0) {
		for (int k = drop; k + 1 < p->ndim; k++) {
			n->dim[k] = p->dim[k + 1];
			n->lo[k] = p->lo[k + 1];
			n->hi[k] = p->hi[k + 1];
		}
		n->ndim--;
	}
	const char *v = as_type(g, type, p, read_pt(g, p, p, var_red, NULL));
	static const char *const ops[] = { "+=", "max=", "min=" };
	if (op == 0) {
		n->wide = true;
		if (IS_FLOAT(type))
			v = fmt(g, "%s * 0.01", v);
	}
	const char *target = drop < 0 ? "0" : "";
	for (int k = 0; drop >= 0 && k < n->ndim; k++)
		target = fmt(g, "%s%s%s", target, k ? ", " : "", var_red[n->dim[k]]);
	emit_head(g, "reduce", n, var_out);
	emit(g, " over (%s)\n  | %s(%s) %s %s\n", over_list(g, p), n->name, target, ops[op], v);
	add(g, GEN_DIMRED);
}

/* A histogram of p in 8 to 32 bins, sometimes with its cumulative sum. */
static void mk_hist(gen *g, int room)
{
	node *p = pick(g, ~0u);
	static const int sizes[] = { 8, 16, 32 };
	int b = sizes[rnd(g, 3)];
	node *n = new_table(g, chance(g, 70) ? TY_I32 : TY_U16, b);
	n->wide = true;
	const char *v = as_float(g, p, read_pt(g, p, p, var_red, NULL));
	emit_head(g, "reduce", n, var_out);
	emit(g, " over (%s)\n  | %s(clamp(int(%s * %d.0), 0, %d)) += 1\n", over_list(g, p), n->name, v, b, b - 1);
	add(g, GEN_HIST);
	if (room >= 2 && chance(g, 50)) {
		node *h = &g->n[g->nn - 1];
		node *c = new_table(g, TY_I32, b);
		c->wide = true;
		h->used = true;
		emit_head(g, "reduce", c, var_out);
		emit(g, " over (i : 0 .. %d, j : 0 .. %d)\n  | j <= i -> %s(i) += %s(j)\n", b - 1, b - 1, c->name, h->name);
		add(g, GEN_HIST);
	}
}

/* A first-order recurrence over p's box along one dimension, forwards
 * (n(x-1)) or backwards (n(x+1), docs/language.md §13), starting from p
 * at the first point it computes; sometimes along a second dimension
 * too, in its own direction.  A mean of the previous value and p's keeps
 * values in range. */
static void mk_recur(gen *g)
{
	node *p = pick(g, ~0u);
	node *n = new_stage(g, p, rand_type(g, p->type));
	int k[2] = { rnd(g, n->ndim), -1 }, sign[2] = { chance(g, 50) ? 1 : -1, chance(g, 50) ? 1 : -1 };
	if (n->ndim > 1 && chance(g, 30))
		k[1] = (k[0] + 1 + rnd(g, n->ndim - 1)) % n->ndim;
	const char *start = "", *prev = NULL;
	for (int r = 0; r < 2 && k[r] >= 0; r++) {
		int d = n->dim[k[r]];
		const char *edge = sign[r] > 0 ? form_str(g, n->hi[k[r]], d) : fmt(g, "%d", n->lo[k[r]]);
		start = fmt(g, "%s%s%s == %s", start, r ? " || " : "", var_out[d], edge);
		const char *args = "";
		for (int j = 0; j < n->ndim; j++) {
			const char *v = var_out[n->dim[j]];
			args = fmt(g, j ? "%s, %s" : "%s%s", args, j == k[r] ? fmt(g, "%s %c 1", v, sign[r] > 0 ? '+' : '-') : v);
		}
		const char *self = fmt(g, "%s(%s)", n->name, args);
		prev = prev ? combine(g, n->type, prev, self) : self;
	}
	const char *v = as_type(g, n->type, p, read_pt(g, n, p, var_out, NULL));
	emit_head(g, "func", n, var_out);
	if (IS_FLOAT(n->type))
		emit(g, "\n  | %s -> %s\n  | else -> (%s + %s) * 0.5\n", start, v, prev, v);
	else
		emit(g, "\n  | %s -> %s\n  | else -> (%s + %s) / 2\n", start, v, prev, v);
	add(g, GEN_RECUR);
}

/* A time-iterated stage over p's box, S steps of a diffusion (the mean
 * of the step before at the point and its neighbours at distance 1 or 2
 * along some dimensions) from p, the box's border held at p; and its
 * last step as a stage of its own (what time tiling needs of its
 * readers, grouping/time_tile.h; sometimes a middle step as well, which
 * keeps the stage step by step). */
static void mk_steps(gen *g, int room)
{
	node *p = pick(g, ~0u);
	if (room < 2)
		return;
	node *n = new_stage(g, p, rand_type(g, p->type));
	int S = between(g, 1, 9), rad[GEN_MAX_DIMS] = { 0 };
	for (int k = 0; k < n->ndim; k++)
		rad[k] = chance(g, 70) ? between(g, 1, 2) : 0;
	rad[n->ndim - 1] = rad[n->ndim - 1] ? rad[n->ndim - 1] : 1;
	char tname[24];
	snprintf(tname, sizeof(tname), "%s_t", n->name);
	const char *dims = "t : 0 .. ", *border = "t == 0", *args = "t - 1", *sum;
	dims = fmt(g, "%s%d", dims, S);
	for (int k = 0; k < n->ndim; k++) {
		const char *v = var_out[n->dim[k]], *hi = form_str(g, n->hi[k], n->dim[k]);
		dims = fmt(g, "%s, %s : %d .. %s", dims, v, n->lo[k], hi);
		if (rad[k])
			border = fmt(g, "%s || %s < %d || %s > %s - %d", border, v, n->lo[k] + rad[k], v, hi, rad[k]);
		args = fmt(g, "%s, %s", args, v);
	}
	sum = fmt(g, "%s(%s)", tname, args);
	int terms = 1;
	for (int k = 0; k < n->ndim; k++)
		for (int s = -1; rad[k] && s <= 1; s += 2) {
			const char *a = "t - 1";
			for (int j = 0; j < n->ndim; j++)
				a = fmt(g, "%s, %s", a, j != k ? var_out[n->dim[j]] :
					fmt(g, "%s %c %d", var_out[n->dim[j]], s < 0 ? '-' : '+', rad[k]));
			sum = fmt(g, "%s + %s(%s)", sum, tname, a);
			terms++;
		}
	const char *v = as_type(g, n->type, p, read_pt(g, n, p, var_out, NULL));
	emit(g, "func %s(%s) : %s\n  | %s -> %s\n  | else -> (%s) / %d%s\n", tname, dims, ty_name[n->type], border, v,
		sum, terms, IS_FLOAT(n->type) ? ".0" : "");
	const char *args_last = fmt(g, "%d", S);
	for (int k = 0; k < n->ndim; k++)
		args_last = fmt(g, "%s, %s", args_last, var_out[n->dim[k]]);
	const char *mid = S > 1 && chance(g, 20) ? fmt(g, " + %s(%d%s)", tname, S / 2, args_last + strcspn(args_last, ",")) : "";
	emit_head(g, "func", n, var_out);
	emit(g, " = %s%s(%s)%s%s\n", *mid ? "(" : "", tname, args_last, mid, *mid ? (IS_FLOAT(n->type) ? ") / 2.0" : ") / 2") : "");
	g->nstages++;
	add(g, GEN_STEPS);
}

/* ---- tuple reductions (docs/language.md §12, tuples) ---- */

enum { TU_ARGMIN, TU_ARGMAX, TU_SUM, TU_MIN, TU_MAX, TU_COMPLEX, TU_PAIRSUM, TU_SERIAL };
enum { TS_ONE, TS_BINS, TS_ROW };

/* A tuple reduction being made: its domain, its target and components. */
typedef struct tup {
	node *p;                /* the node reduced */
	bool big;               /* over (u, v): 65536 points whatever the params */
	int U;                  /* big: the extent of u */
	const char *rvar[GEN_MAX_DIMS];
	int nrvar;              /* the reduction variables, outermost first */
	const char *over, *read; /* the domain; p at its point */
	int shape, bins;
	const char *target;
	int ncomp, ctype[8];
	int cvar[8];            /* argmin/argmax: the index of component j in rvar */
} tup;

/* The domain: p's box (small at the estimates: serial), or 65536 points
 * (u, v) reading p clamped, whatever the params: enough for rfactor
 * (poly/rfactor.c) at any estimate, at a cost that does not grow with
 * the run's sizes (the interpreter takes 1 to 2 us a point). */
static void tuple_domain(gen *g, tup *t)
{
	node *p = t->p;
	t->big = chance(g, 40);
	if (!t->big) {
		for (int k = 0; k < p->ndim; k++)
			t->rvar[t->nrvar++] = var_red[p->dim[k]];
		t->over = over_list(g, p);
		t->read = read_pt(g, p, p, var_red, NULL);
		return;
	}
	static const int us[] = { 32, 64, 256 };
	t->U = us[rnd(g, 3)];
	t->rvar[t->nrvar++] = "u";
	t->rvar[t->nrvar++] = "v";
	t->over = fmt(g, "u : 0 .. %d, v : 0 .. %d", t->U - 1, 65536 / t->U - 1);
	static const char *const ixs[] = { "u", "v", "v / 8", "u + v", "(u * 7 + v) %% 64" };
	const char *args = "";
	for (int k = 0; k < p->ndim; k++) {
		const char *a = k < 2 && chance(g, 70) ? (k ? "v" : "u") : fmt(g, ixs[rnd(g, 5)]);
		args = fmt(g, "%s%sclamp(%s, %d, %s)", args, k ? ", " : "", a, p->lo[k], form_str(g, p->hi[k], p->dim[k]));
		g->out->clamped++;
	}
	p->used = true;
	t->read = fmt(g, "%s(%s)", p->name, args);
}

/* An integer value 0 .. 255 at the reduction's point (second: another). */
static const char *tuple_int(gen *g, tup *t, bool second)
{
	const char *v = as_int(g, t->p, t->read);
	if (!second)
		return v;
	node *q = t->big ? NULL : pick(g, dim_mask(t->p));
	if (q && q != t->p)
		return icombine(g, v, as_int(g, q, read_pt(g, t->p, q, var_red, NULL)));
	return chance(g, 50) ? fmt(g, "((%s * 7 + %s) %% 256)", v, t->rvar[t->nrvar - 1]) : fmt(g, "(%s ^ 85)", v);
}

/* The result's box (a node at g->n[g->nn]) and the target: one point,
 * a data-dependent bin, or one per value of the outer reduction
 * variable (whose loop is then parallel: not factored). */
static node *tuple_target(gen *g, tup *t)
{
	int r = rnd(g, 100);
	t->shape = r < 40 ? TS_ONE : r < 75 ? TS_BINS : TS_ROW;
	node *n;
	if (t->shape == TS_ONE) {
		n = new_table(g, TY_I32, 1);
		t->target = "0";
	} else if (t->shape == TS_BINS) {
		static const int sizes[] = { 8, 16, 32 };
		t->bins = sizes[rnd(g, 3)];
		n = new_table(g, TY_I32, t->bins);
		t->target = fmt(g, "clamp(%s * %d / 256, 0, %d)", tuple_int(g, t, false), t->bins, t->bins - 1);
	} else if (t->big) {
		n = new_table(g, TY_I32, t->U);
		t->target = "u";
	} else {
		n = new_stage(g, t->p, TY_I32);
		n->ndim = 1;
		n->dim[0] = t->p->dim[0];
		n->lo[0] = t->p->lo[0];
		n->hi[0] = t->p->hi[0];
		t->target = var_red[n->dim[0]];
	}
	snprintf(n->name, sizeof(n->name), "s%d", g->nstages);
	n->tuple = true;
	return n;
}

/* "(T0, T1, ..)" of t's component types. */
static const char *tuple_types(gen *g, const tup *t)
{
	const char *s = "(";
	for (int j = 0; j < t->ncomp; j++)
		s = fmt(g, "%s%s%s", s, j ? ", " : "", ty_name[t->ctype[j]]);
	return fmt(g, "%s)", s);
}

/* "argmin= (v, i1, ..)" (argmax=): a value and the reduction variables
 * in a random order, some left out (ties between points whose indices
 * agree keep equal tuples). */
static const char *tuple_arg(gen *g, tup *t, bool max)
{
	static const int vtypes[] = { TY_U8, TY_U8, TY_U16, TY_I16, TY_I32, TY_F32 };
	static const int itypes[] = { TY_I32, TY_I32, TY_I16, TY_I64 };
	t->ctype[0] = vtypes[rnd(g, 6)];
	const char *vals = IS_FLOAT(t->ctype[0]) ? as_float(g, t->p, t->read) : tuple_int(g, t, chance(g, 30));
	int order[GEN_MAX_DIMS];
	for (int k = 0; k < t->nrvar; k++)
		order[k] = k;
	for (int k = t->nrvar - 1; k > 0; k--) {
		int o = rnd(g, k + 1), s = order[k];
		order[k] = order[o];
		order[o] = s;
	}
	int nidx = t->nrvar > 1 && chance(g, 25) ? t->nrvar - 1 : t->nrvar;
	t->ncomp = 1;
	for (int k = 0; k < nidx; k++) {
		int ty = itypes[rnd(g, 4)];
		t->cvar[t->ncomp] = order[k];
		t->ctype[t->ncomp++] = IS_FLOAT(t->ctype[0]) && ty == TY_I64 ? TY_I32 : ty;
		vals = fmt(g, "%s, %s", vals, t->rvar[order[k]]);
	}
	return fmt(g, "%s (%s)", max ? "argmax=" : "argmin=", vals);
}

/* "+= (v, 1)" and the like: sum and count, sum of squares; min= or max=
 * of two values.  Integers only: they wrap, so any order is exact. */
static const char *tuple_each(gen *g, tup *t, int kind)
{
	static const int stypes[] = { TY_I32, TY_I32, TY_I64, TY_U16, TY_U8 };
	static const int mtypes[] = { TY_U8, TY_I32, TY_I16, TY_U16 };
	const char *v = tuple_int(g, t, chance(g, 30)), *vals;
	if (kind == TU_SUM) {
		t->ncomp = between(g, 2, 3);
		vals = t->ncomp == 2 ? (chance(g, 60) ? fmt(g, "%s, 1", v) : fmt(g, "%s, %s", v, tuple_int(g, t, true)))
			: fmt(g, "%s, %s * %s, 1", v, v, v);
		for (int j = 0; j < t->ncomp; j++)
			t->ctype[j] = stypes[rnd(g, 5)];
	} else {
		t->ncomp = 2;
		vals = fmt(g, "%s, %s", v, tuple_int(g, t, true));
		for (int j = 0; j < t->ncomp; j++)
			t->ctype[j] = mtypes[rnd(g, 4)];
	}
	static const char *const ops[] = { "+=", "min=", "max=" };
	return fmt(g, "%s (%s)", ops[kind - TU_SUM], vals);
}

/* "= (E0, E1)": complex multiplication by a + bi (a odd, b even, so the
 * product stays odd modulo 2 and does not wrap to zero), the sums and
 * their pairwise products ((a0 + b0, a1 + b1 + a0 b0), associative too),
 * or one the prover refuses (3 a1 + b1: not associative; serial).  *init
 * is the start each needs. */
static const char *tuple_general(gen *g, tup *t, const char *acc, int kind, const char **init)
{
	t->ncomp = 2;
	t->ctype[0] = t->ctype[1] = chance(g, 70) ? TY_I32 : TY_I64;
	const char *a = fmt(g, "(%s %% 4 * 2 + 1)", tuple_int(g, t, false));
	const char *b = fmt(g, "(%s %% 3 * 2)", tuple_int(g, t, true));
	const char *a0 = fmt(g, "%s.0", acc), *a1 = fmt(g, "%s.1", acc);
	switch (kind) {
	case TU_COMPLEX:
		*init = "(1, 0)";
		return fmt(g, "= (%s * %s - %s * %s, %s * %s + %s * %s)", a0, a, a1, b, a0, b, a1, a);
	case TU_PAIRSUM:
		*init = chance(g, 50) ? "(0, 0)" : "(5, 2)";
		return fmt(g, "= (%s + %s, %s + %s + %s * %s)", a0, a, a1, b, a0, a);
	default:
		*init = "(1, 1)";
		return fmt(g, "= (%s + %s, %s * 3 + %s)", a0, a, a1, b);
	}
}

/* A condition on the reduction's point, for some updates. */
static const char *tuple_cond(gen *g, tup *t)
{
	const char *r = t->rvar[rnd(g, t->nrvar)];
	switch (rnd(g, 3)) {
	case 0: return fmt(g, "%s %% 3 != 0 -> ", r);
	case 1: return fmt(g, "%s %% 2 == 0 -> ", r);
	default: return fmt(g, "%s > 100 -> ", tuple_int(g, t, false));
	}
}

/* A point-wise stage over p's box combining p with one component of the
 * tuple head (h(b).j or h_j(b)); after an argmin over p's box, sometimes
 * marking the point it found. */
static void tuple_reader(gen *g, const tup *t, node *head, int kind)
{
	node *p = t->p;
	node *n = new_stage(g, p, rand_type(g, p->type));
	int j = rnd(g, t->ncomp);
	node *c = head + 1 + j;
	const char *b = "0";
	int d0 = p->dim[0];
	if (t->shape == TS_BINS)
		b = fmt(g, "clamp(%s * %d / 256, 0, %d)", as_int(g, p, read_pt(g, n, p, var_out, NULL)), t->bins, t->bins - 1);
	else if (t->shape == TS_ROW)
		b = t->big ? fmt(g, "clamp(%s, 0, %d)", var_out[d0], t->U - 1) : var_out[d0];
	const char *cr = chance(g, 50) ? fmt(g, "%s(%s).%d", head->name, b, j) : fmt(g, "%s(%s)", c->name, b);
	c->used = true;
	const char *v = as_type(g, n->type, p, read_pt(g, n, p, var_out, NULL)), *e;
	if (kind <= TU_ARGMAX && j > 0 && !t->big && chance(g, 50)) {
		/* component j is the reduction variable of p's dimension
		 * cvar[j]: compared with the same dimension's variable */
		const char *rv = var_out[p->dim[t->cvar[j]]];
		e = fmt(g, "select(%s == %s, %s, %s)", rv, cr, IS_FLOAT(n->type) ? "1.0" : "255", v);
	} else {
		e = combine(g, n->type, v, as_type(g, n->type, c, cr));
	}
	emit_head(g, "func", n, var_out);
	emit(g, " = %s\n", e);
	add(g, GEN_POINT);
}

/* A tuple reduction (argmin/argmax, componentwise += min= max=, or a
 * general update) of p, its components as nodes (tables, or a stage
 * along p's first dimension), and a stage reading one of them. */
static void mk_tuple(gen *g, int room)
{
	if (g->nn + 10 > MAXN)
		return;
	tup t = { .p = pick(g, ~0u) };
	static const int kinds[] = { TU_ARGMIN, TU_ARGMIN, TU_ARGMAX, TU_SUM, TU_SUM, TU_MIN, TU_MAX, TU_COMPLEX,
		TU_PAIRSUM, TU_SERIAL };
	int kind = kinds[rnd(g, 10)];
	tuple_domain(g, &t);
	node *head = tuple_target(g, &t);
	const char *acc = fmt(g, "%s(%s)", head->name, t.target), *upd, *init = NULL;
	if (kind <= TU_ARGMAX)
		upd = tuple_arg(g, &t, kind == TU_ARGMAX);
	else if (kind <= TU_MAX)
		upd = tuple_each(g, &t, kind);
	else
		upd = tuple_general(g, &t, acc, kind, &init);
	if (kind >= TU_SUM && kind <= TU_MAX && chance(g, 20)) {
		init = "(3";
		for (int j = 1; j < t.ncomp; j++)
			init = fmt(g, "%s, %d", init, j);
		init = fmt(g, "%s)", init);
	}
	emit_dims(g, "reduce", head, var_out);
	emit(g, " : %s over (%s)%s%s\n", tuple_types(g, &t), t.over, init ? " init " : "", init ? init : "");
	bool cond = chance(g, 20);
	emit(g, "  | %s%s %s\n", cond ? tuple_cond(g, &t) : "", acc, upd);
	/* a second update with the same operator, under a condition */
	if (kind < TU_COMPLEX && chance(g, 15)) {
		tup t2 = t;
		const char *u2 = kind <= TU_ARGMAX ? tuple_arg(g, &t2, kind == TU_ARGMAX) : tuple_each(g, &t2, kind);
		if (t2.ncomp == t.ncomp)
			emit(g, "  | %s%s %s\n", tuple_cond(g, &t), acc, u2);
	}
	head->ncomp = t.ncomp;
	head->used = true;
	add(g, GEN_TUPLE);
	char hname[sizeof(head->name)];
	memcpy(hname, head->name, sizeof(hname));
	for (int j = 0; j < t.ncomp; j++) {
		node *c = &g->n[g->nn++];
		*c = *head;
		c->tuple = false;
		c->ncomp = 0;
		c->type = t.ctype[j];
		c->wide = true;
		c->used = false;
		snprintf(c->name, sizeof(c->name), "%.12s_%d", hname, j);
	}
	if (room >= 2)
		tuple_reader(g, &t, head, kind);
}

static void make_stage(gen *g, int room)
{
	static const int weights[] = { 17, 13, 10, 8, 10, 10, 8, 6, 5, 0, 8, 5 };
	int w = rnd(g, 100);
	int kind = 0;
	while (w >= weights[kind])
		w -= weights[kind++];
	switch (kind) {
	case GEN_POINT: mk_point(g); break;
	case GEN_STENCIL: mk_stencil(g); break;
	case GEN_DOWN: mk_down(g); break;
	case GEN_UP: mk_up(g); break;
	case GEN_LUT: mk_lut(g, room); break;
	case GEN_PIECE: mk_piece(g); break;
	case GEN_WINDOW: mk_window(g); break;
	case GEN_DIMRED: mk_dimred(g); break;
	case GEN_RECUR: mk_recur(g); break;
	case GEN_TUPLE: mk_tuple(g, room); break;
	default: mk_hist(g, room); break;
	}
}

/* One time in three, a time-iterated stage (mk_steps) appended, drawn
 * from a stream of its own and leaving every node's marks as they were:
 * each seed's other stages and outputs stay what they were before this
 * kind existed (the seeds docs and notes name). */
static void mk_steps_apart(gen *g)
{
	uint64_t keep = g->s;
	bool used[MAXN];
	int nn = g->nn;
	for (int i = 0; i < nn; i++)
		used[i] = g->n[i].used;
	g->s = keep ^ 0x5deece66dull;
	if (g->nn + 1 < MAXN && chance(g, 33))
		mk_steps(g, 2);
	for (int i = 0; i < nn; i++)
		g->n[i].used = used[i];
	g->s = keep;
}

/* ---- the pipeline ---- */

static void make_images(gen *g)
{
	int nimg = between(g, 1, 3);
	for (int i = 0; i < nimg; i++) {
		node *n = &g->n[g->nn++];
		memset(n, 0, sizeof(*n));
		n->image = true;
		snprintf(n->name, sizeof(n->name), "I%d", i);
		static const int types[] = { TY_F32, TY_F32, TY_U8, TY_U8, TY_U16 };
		n->type = types[rnd(g, 5)];
		n->wide = n->type == TY_U16; /* generated inputs go to 1023 */
		if (i > 0 && g->D > 1 && chance(g, 30)) {
			n->ndim = 1;
			n->dim[0] = rnd(g, g->D);
		} else {
			n->ndim = g->D;
			for (int d = 0; d < g->D; d++)
				n->dim[d] = d;
		}
		emit(g, "image %s : %s [", n->name, ty_name[n->type]);
		for (int k = 0; k < n->ndim; k++) {
			static const int pads[] = { 0, 0, 1, 2, 4 };
			int e = pads[rnd(g, 5)];
			n->hi[k] = (form){ 1, e - 1, 1 };
			emit(g, "%s%s", k ? ", " : "", form_str(g, (form){ 1, e, 1 }, n->dim[k]));
		}
		emit(g, "]\n");
	}
}

/* Outputs: every stage nobody reads, and a few others. */
static void emit_outputs(gen *g)
{
	const char *sep = "output ";
	for (int i = 0; i < g->nn; i++) {
		node *n = &g->n[i];
		if (n->tuple) {
			/* the whole tuple (every component) where none is read */
			bool read = false;
			for (int j = 1; j <= n->ncomp; j++)
				read = read || n[j].used;
			if (read || chance(g, 50))
				continue;
			for (int j = 1; j <= n->ncomp; j++)
				n[j].used = true;
			emit(g, "%s%s", sep, n->name);
			sep = ", ";
			g->out->noutputs++;
			continue;
		}
		if (!n->image && (!n->used || chance(g, 15))) {
			emit(g, "%s%s", sep, n->name);
			sep = ", ";
			g->out->noutputs++;
		}
	}
	emit(g, "\n");
}

void gen_pipe_make(uint64_t seed, gen_pipe *out)
{
	gen *g = calloc(1, sizeof(*g));
	if (!g)
		abort();
	memset(out, 0, sizeof(*out));
	g->out = out;
	g->s = seed * 0x2545f4914f6cdd1dull + 1;
	g->D = between(g, 1, 3);
	g->fparam = chance(g, 30);
	make_images(g);
	int target = between(g, 3, MAX_STAGES);
	for (int tries = 0; g->nstages < target && tries < 200; tries++)
		make_stage(g, MAX_STAGES - g->nstages);
	mk_steps_apart(g);
	emit_outputs(g);

	char *head = NULL;
	size_t hlen = 0;
	FILE *f = open_memstream(&head, &hlen);
	fprintf(f, "pipeline rp%llu\n", (unsigned long long)seed);
	static const int est_lo[] = { 8, 8, 4 }, est_hi[] = { 48, 32, 12 };
	out->ndims = g->D;
	for (int d = 0; d < g->D; d++) {
		out->param[d] = pname[d];
		out->min[d] = pmin_of(g, d, NULL);
		int e = between(g, est_lo[g->D - 1], est_hi[g->D - 1]);
		out->estimate[d] = e > out->min[d] ? e : out->min[d];
		fprintf(f, "param %s : int = %d\n", pname[d], out->estimate[d]);
	}
	if (g->fparam)
		fprintf(f, "param g : float = 0.75\n");
	fwrite(g->body, 1, g->len, f);
	fclose(f);
	out->text = head;
	out->nstages = g->nstages;
	for (int i = 0; i < g->nstrs; i++)
		free(g->strs[i]);
	free(g->strs);
	free(g->body);
	free(g);
}

void gen_pipe_free(gen_pipe *g)
{
	free(g->text);
	g->text = NULL;
}
