/* assoc_tuple.c: tuple operators proved associative and commutative by
 * expanding polynomials (assoc.h).  Three tuples A, B, C of n components
 * are 3n variables; a polynomial is a sorted list of monomials. */
#include "assoc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NV (3 * PT_MAX_TUPLE)
#define MAX_TERMS 4096
#define MAX_DEG 12

typedef struct term {
	uint8_t e[NV];
	uint64_t c;
} term;

typedef struct spoly {
	term *t;
	int n;
	bool bad;               /* too large, or (exact) past int64 */
} spoly;

typedef struct ring {
	bool exact;             /* floats: integer coefficients, no wrapping */
	uint64_t mask;          /* integers: the type's bits */
	int n;                  /* components */
	int type;
	const char *why;
} ring;

static void sp_free(spoly *p)
{
	free(p->t);
	p->t = NULL;
	p->n = 0;
}

static int cmp_term(const void *a, const void *b)
{
	return memcmp(((const term *)a)->e, ((const term *)b)->e, NV);
}

/* Sorts p's monomials, merges equal ones and drops zeros. */
static void normalize(const ring *r, spoly *p)
{
	if (p->n > 1)   /* t is NULL when there are no terms */
		qsort(p->t, (size_t)p->n, sizeof *p->t, cmp_term);
	int m = 0;
	for (int i = 0; i < p->n; i++) {
		if (m && !cmp_term(&p->t[m - 1], &p->t[i])) {
			int64_t s;
			if (r->exact && __builtin_add_overflow((int64_t)p->t[m - 1].c, (int64_t)p->t[i].c, &s))
				p->bad = true;
			p->t[m - 1].c += p->t[i].c;
		} else {
			p->t[m++] = p->t[i];
		}
		if (!r->exact)
			p->t[m - 1].c &= r->mask;
		if (!p->t[m - 1].c)
			m--;
	}
	p->n = m;
}

static bool sp_alloc(spoly *p, int n)
{
	p->n = 0;
	p->bad = false;
	p->t = n ? calloc((size_t)n, sizeof *p->t) : NULL;
	return !n || p->t;
}

static spoly sp_const(const ring *r, uint64_t c)
{
	spoly p;
	if (sp_alloc(&p, 1) && (c & r->mask)) {
		p.t[0].c = c;
		p.n = 1;
	}
	return p;
}

static spoly sp_var(int v)
{
	spoly p;
	if (sp_alloc(&p, 1)) {
		p.t[0].e[v] = 1;
		p.t[0].c = 1;
		p.n = 1;
	} else {
		p.bad = true;
	}
	return p;
}

static spoly sp_copy(const spoly *a)
{
	spoly p;
	if (sp_alloc(&p, a->n)) {
		if (a->n)   /* the zero polynomial has no terms (and t NULL) */
			memcpy(p.t, a->t, sizeof *p.t * (size_t)a->n);
		p.n = a->n;
		p.bad = a->bad;
	} else {
		p.bad = true;
	}
	return p;
}

/* a + b (a - b with sub), a and b freed. */
static spoly sp_add(const ring *r, spoly a, spoly b, bool sub)
{
	spoly p;
	bool bad = a.bad || b.bad || a.n + b.n > MAX_TERMS || !sp_alloc(&p, a.n + b.n);
	if (!bad) {
		if (a.n)
			memcpy(p.t, a.t, sizeof *p.t * (size_t)a.n);
		for (int i = 0; i < b.n; i++) {
			p.t[a.n + i] = b.t[i];
			if (sub) {
				if (r->exact && (int64_t)b.t[i].c == INT64_MIN)
					p.bad = true;
				p.t[a.n + i].c = (uint64_t)0 - b.t[i].c;
			}
		}
		p.n = a.n + b.n;
		normalize(r, &p);
	} else {
		p = (spoly){.bad = true};
	}
	sp_free(&a);
	sp_free(&b);
	return p;
}

static spoly sp_mul(const ring *r, spoly a, spoly b)
{
	spoly p;
	long n = (long)a.n * b.n;
	bool bad = a.bad || b.bad || n > 4 * MAX_TERMS || !sp_alloc(&p, (int)n);
	for (int i = 0; !bad && i < a.n; i++)
		for (int j = 0; !bad && j < b.n; j++) {
			term *t = &p.t[p.n++];
			int deg = 0;
			for (int v = 0; v < NV; v++) {
				t->e[v] = (uint8_t)(a.t[i].e[v] + b.t[j].e[v]);
				deg += t->e[v];
			}
			int64_t m;
			bad = deg > MAX_DEG || (r->exact && __builtin_mul_overflow((int64_t)a.t[i].c, (int64_t)b.t[j].c, &m));
			t->c = a.t[i].c * b.t[j].c;
		}
	if (bad) {
		if (!(a.bad || b.bad || n > 4 * MAX_TERMS))
			sp_free(&p);
		p = (spoly){.bad = true};
	} else {
		normalize(r, &p);
		p.bad = p.bad || p.n > MAX_TERMS;
	}
	sp_free(&a);
	sp_free(&b);
	return p;
}

/* e as a polynomial, operand A_k = env[k], B_k = env[n + k]. */
static spoly sp_eval(ring *r, const pt_expr *e, const spoly *env)
{
	switch (e->kind) {
	case PT_E_INT:
		return sp_const(r, (uint64_t)e->ival);
	case PT_E_FLOAT:
		if (!(fabs(e->fval) < 9007199254740992.0) || e->fval != floor(e->fval)) {
			r->why = "its operator has a constant that is not an integer";
			return (spoly){.bad = true};
		}
		return sp_const(r, (uint64_t)(int64_t)e->fval);
	case PT_E_VAR: {
		int k = e->index <= PT_TUP_B(0) ? r->n + PT_TUP_B(0) - e->index : PT_TUP_A(0) - e->index;
		if (e->index > PT_TUP_A(0) || k < 0 || k >= 2 * r->n)
			break;
		return sp_copy(&env[k]);
	}
	case PT_E_CAST: {
		int t = e->type, f = e->args[0]->type;
		bool keeps = pt_type_is_float(r->type) ? pt_type_is_float(t) && (pt_type_is_float(f) || e->args[0]->kind == PT_E_INT) :
			pt_type_is_int(t) && pt_type_bits(t) >= pt_type_bits(r->type);
		if (!keeps) {
			r->why = "its operator converts a component to a narrower type or between floats and integers";
			return (spoly){.bad = true};
		}
		return sp_eval(r, e->args[0], env);
	}
	case PT_E_UNARY:
		if (e->op == PT_OP_NEG)
			return sp_add(r, sp_const(r, 0), sp_eval(r, e->args[0], env), true);
		break;
	case PT_E_BINARY:
		if (e->op == PT_OP_ADD || e->op == PT_OP_SUB)
			return sp_add(r, sp_eval(r, e->args[0], env), sp_eval(r, e->args[1], env), e->op == PT_OP_SUB);
		if (e->op == PT_OP_MUL)
			return sp_mul(r, sp_eval(r, e->args[0], env), sp_eval(r, e->args[1], env));
		break;
	default:
		break;
	}
	if (!r->why)
		r->why = "its operator is not made of +, -, * and literals alone (a polynomial)";
	return (spoly){.bad = true};
}

static bool sp_equal(const spoly *a, const spoly *b)
{
	if (a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++)
		if (cmp_term(&a->t[i], &b->t[i]) || a->t[i].c != b->t[i].c)
			return false;
	return true;
}

/* out[j] = op_j(x, y) for the tuples x, y of polynomials. */
static bool apply(ring *r, pt_expr *const *op, const spoly *x, const spoly *y, spoly *out)
{
	spoly env[2 * PT_MAX_TUPLE];
	for (int k = 0; k < r->n; k++) {
		env[k] = x[k];
		env[r->n + k] = y[k];
	}
	bool ok = true;
	for (int j = 0; j < r->n; j++) {
		out[j] = sp_eval(r, op[j], env);
		ok = ok && !out[j].bad;
	}
	return ok;
}

static void free_tuple(spoly *p, int n)
{
	for (int j = 0; j < n; j++)
		sp_free(&p[j]);
}

/* Whether op(x, y) and op(y, x) equal x for the constant tuple e. */
static bool is_identity(ring *r, pt_expr *const *op, const spoly *A, const int64_t *e)
{
	spoly E[PT_MAX_TUPLE], L[PT_MAX_TUPLE], R[PT_MAX_TUPLE];
	for (int k = 0; k < r->n; k++)
		E[k] = sp_const(r, (uint64_t)e[k]);
	bool ok = apply(r, op, A, E, L) && apply(r, op, E, A, R);
	for (int j = 0; ok && j < r->n; j++)
		ok = sp_equal(&L[j], &A[j]) && sp_equal(&R[j], &A[j]);
	free_tuple(E, r->n);
	free_tuple(L, r->n);
	free_tuple(R, r->n);
	return ok;
}

static bool find_identity(ring *r, pt_expr *const *op, const spoly *A, pt_assoc_tuple *out)
{
	int64_t e[PT_MAX_TUPLE];
	long tries = 1;
	for (int k = 0; k < r->n; k++)
		tries *= 3;
	for (long c = 0; c < tries && c < 6561; c++) {
		long x = c;
		for (int k = 0; k < r->n; k++, x /= 3)
			e[k] = x % 3 == 0 ? 0 : x % 3 == 1 ? 1 : -1;
		if (is_identity(r, op, A, e)) {
			for (int k = 0; k < r->n; k++)
				out->identity[k] = r->exact ? (pt_val){.f = (double)e[k]} :
					pt_val_convert((pt_val){.i = e[k]}, PT_I64, r->type);
			return out->has_identity = true;
		}
	}
	snprintf(out->why, sizeof out->why, "its operator is associative and commutative but has no identity "
		"(tuples of 0, 1 and -1 tried), so the parts' partial results would have no start");
	return false;
}

/* The checks on the tuples A, B, C (variables 0..3n). */
static bool decide(ring *r, pt_expr *const *op, pt_assoc_tuple *out)
{
	int n = r->n;
	spoly A[PT_MAX_TUPLE] = {0}, B[PT_MAX_TUPLE] = {0}, C[PT_MAX_TUPLE] = {0}, AB[PT_MAX_TUPLE] = {0},
		BA[PT_MAX_TUPLE] = {0}, L[PT_MAX_TUPLE] = {0}, BC[PT_MAX_TUPLE] = {0}, R[PT_MAX_TUPLE] = {0};
	for (int k = 0; k < n; k++) {
		A[k] = sp_var(k);
		B[k] = sp_var(n + k);
		C[k] = sp_var(2 * n + k);
	}
	bool ok = apply(r, op, A, B, AB) & apply(r, op, B, A, BA) & apply(r, op, B, C, BC);
	ok = ok && apply(r, op, AB, C, L) & apply(r, op, A, BC, R);
	int bad = -1;
	if (!ok) {
		snprintf(out->why, sizeof out->why, "%s", r->why ? r->why :
			"its operator's expansion is too large to decide (degree above 12 or coefficients past 64 bits)");
	} else {
		for (int j = 0; j < n && bad < 0; j++)
			if (!sp_equal(&L[j], &R[j]))
				bad = j;
		if (bad >= 0) {
			snprintf(out->why, sizeof out->why, "its operator is not associative (component %d of "
				"op(op(A, B), C) and op(A, op(B, C)) differ)", bad);
		} else {
			out->associative = true;
			for (int j = 0; j < n && bad < 0; j++)
				if (!sp_equal(&AB[j], &BA[j]))
					bad = j;
			if (bad >= 0)
				snprintf(out->why, sizeof out->why, "its operator is associative but not commutative "
					"(component %d of op(A, B) and op(B, A) differ)", bad);
			else
				out->commutative = true;
		}
	}
	ok = ok && bad < 0 && find_identity(r, op, A, out);
	free_tuple(A, n), free_tuple(B, n), free_tuple(C, n), free_tuple(AB, n), free_tuple(BA, n);
	free_tuple(BC, n), free_tuple(L, n), free_tuple(R, n);
	return ok;
}

bool pt_assoc_prove_tuple(pt_expr *const *op, int n, int t, pt_assoc_tuple *out)
{
	memset(out, 0, sizeof *out);
	if (n < 1 || n > PT_MAX_TUPLE) {
		snprintf(out->why, sizeof out->why, "a tuple of %d components", n);
		return false;
	}
	ring r = {.exact = pt_type_is_float(t), .n = n, .type = t};
	r.mask = r.exact || pt_type_bits(t) >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << pt_type_bits(t)) - 1;
	return decide(&r, op, out);
}
