/* assoc.c: associativity, commutativity and identities of general
 * update operators, decided per class (assoc.h says how). */
#include "assoc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the operator's shape ---- */

static bool is_operand(const pt_expr *e)
{
	return e->kind == PT_E_VAR && (e->index == PT_UPD_ACC || e->index == PT_UPD_VAL);
}

static bool has_operand(const pt_expr *e)
{
	if (is_operand(e))
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (has_operand(e->args[i]))
			return true;
	return false;
}

/* Which class node e (reading an operand) belongs to, NONE for those of
 * every class (operands, conversions), -1 when no class has it. */
static int node_class(const pt_expr *e)
{
	switch (e->kind) {
	case PT_E_VAR: case PT_E_CAST:
		return PT_ASSOC_NONE;
	case PT_E_UNARY:
		return e->op == PT_OP_NEG ? PT_ASSOC_RING : e->op == PT_OP_BNOT ? PT_ASSOC_BITWISE : -1;
	case PT_E_BINARY:
		if (e->op == PT_OP_ADD || e->op == PT_OP_SUB || e->op == PT_OP_MUL)
			return PT_ASSOC_RING;
		if (e->op == PT_OP_BAND || e->op == PT_OP_BOR || e->op == PT_OP_BXOR)
			return PT_ASSOC_BITWISE;
		return -1;
	case PT_E_INTRIN:
		return e->op == PT_IN_MIN || e->op == PT_IN_MAX ? PT_ASSOC_LATTICE : -1;
	default:
		return -1;
	}
}

/* The class of op (operand-free sub-trees are constants), or -1 with
 * *why set.  Every node that reads an operand has a type that keeps its
 * low t bits (integers at least as wide as t) or, for float t, a float
 * type. */
static int classify(const pt_expr *e, int t, const char **why)
{
	if (!has_operand(e))
		return PT_ASSOC_NONE;
	bool ok = pt_type_is_float(t) ? pt_type_is_float(e->type) :
		pt_type_is_int(e->type) && pt_type_bits(e->type) >= pt_type_bits(t);
	if (!ok) {
		*why = pt_type_is_float(t) ? "it converts the accumulator or the value to an integer" :
			"it converts the accumulator or the value to a narrower type or a float";
		return -1;
	}
	int c = node_class(e);
	if (c < 0) {
		*why = "its operator is not made of +, -, *, of min and max, or of &, |, ^ and ~ alone";
		return -1;
	}
	for (int i = 0; i < e->nargs; i++) {
		int k = classify(e->args[i], t, why);
		if (k < 0)
			return -1;
		if (k != PT_ASSOC_NONE && c != PT_ASSOC_NONE && k != c) {
			*why = "its operator mixes arithmetic, min/max and bitwise operations";
			return -1;
		}
		c = c == PT_ASSOC_NONE ? k : c;
	}
	if (c == PT_ASSOC_BITWISE && pt_type_is_float(t)) {
		*why = "a bitwise operator on floats";
		return -1;
	}
	return c;
}

/* ---- concrete values, as the interpreter computes them ---- */

static pt_val ev(const pt_expr *e, const pt_val *env)
{
	pt_val x, y;
	switch (e->kind) {
	case PT_E_INT:
		return pt_val_convert((pt_val){.i = e->ival}, PT_I64, e->type);
	case PT_E_FLOAT:
		return (pt_val){.f = e->type == PT_F32 ? pt_round_f32(e->fval) : e->fval};
	case PT_E_VAR:
		return env[e->index == PT_UPD_ACC ? 0 : 1];
	case PT_E_CAST:
		return pt_val_convert(ev(e->args[0], env), e->args[0]->type, e->type);
	case PT_E_UNARY:
		return pt_val_unary(e->op, e->type, ev(e->args[0], env));
	case PT_E_BINARY:
		x = ev(e->args[0], env);
		y = ev(e->args[1], env);
		return pt_val_binary(e->op, e->op >= PT_OP_LT && e->op <= PT_OP_NE ? e->args[0]->type : e->type, x, y);
	case PT_E_INTRIN:
		x = ev(e->args[0], env);
		for (int i = 1; i < e->nargs; i++)
			x = pt_val_minmax(e->type, x, ev(e->args[i], env), e->op == PT_IN_MIN);
		return x;
	default:
		return (pt_val){0};
	}
}

static bool same(pt_val a, pt_val b, int t)
{
	return pt_type_is_float(t) ? a.f == b.f || (isnan(a.f) && isnan(b.f)) : a.i == b.i;
}

static pt_val op2(const pt_expr *op, pt_val a, pt_val b)
{
	pt_val env[2] = {a, b};
	return ev(op, env);
}

static void val_str(char *buf, size_t n, pt_val v, int t)
{
	if (pt_type_is_float(t))
		snprintf(buf, n, "%g", v.f);
	else
		snprintf(buf, n, "%lld", (long long)v.i);
}

/* *out's why: op(op(x, y), z) != op(x, op(y, z)). */
static void not_assoc(pt_assoc *out, const pt_expr *op, int t, pt_val x, pt_val y, pt_val z)
{
	char a[32], b[32], c[32], l[32], r[32];
	val_str(a, sizeof a, x, t);
	val_str(b, sizeof b, y, t);
	val_str(c, sizeof c, z, t);
	val_str(l, sizeof l, op2(op, op2(op, x, y), z), t);
	val_str(r, sizeof r, op2(op, x, op2(op, y, z)), t);
	snprintf(out->why, sizeof out->why, "its operator is not associative: op(op(%s, %s), %s) = %s but "
		"op(%s, op(%s, %s)) = %s", a, b, c, l, a, b, c, r);
}

static void not_comm(pt_assoc *out, const pt_expr *op, int t, pt_val x, pt_val y)
{
	char a[32], b[32], l[32], r[32];
	val_str(a, sizeof a, x, t);
	val_str(b, sizeof b, y, t);
	val_str(l, sizeof l, op2(op, x, y), t);
	val_str(r, sizeof r, op2(op, y, x), t);
	snprintf(out->why, sizeof out->why, "its operator is associative but not commutative (the parts would "
		"combine out of order): op(%s, %s) = %s but op(%s, %s) = %s", a, b, l, b, a, r);
}

/* A counterexample to associativity among vals[0..n) into *out's why;
 * whether one was found. */
static bool assoc_cex(pt_assoc *out, const pt_expr *op, int t, const pt_val *vals, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			for (int k = 0; k < n; k++)
				if (!same(op2(op, op2(op, vals[i], vals[j]), vals[k]),
					op2(op, vals[i], op2(op, vals[j], vals[k])), t)) {
					not_assoc(out, op, t, vals[i], vals[j], vals[k]);
					return true;
				}
	return false;
}

static bool comm_cex(pt_assoc *out, const pt_expr *op, int t, const pt_val *vals, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			if (!same(op2(op, vals[i], vals[j]), op2(op, vals[j], vals[i]), t)) {
				not_comm(out, op, t, vals[i], vals[j]);
				return true;
			}
	return false;
}

/* Over vals[0..n), a complete set for op's class: associative and
 * commutative (*out set), or why not. */
static bool search(pt_assoc *out, const pt_expr *op, int t, const pt_val *vals, int n)
{
	if (assoc_cex(out, op, t, vals, n))
		return false;
	out->associative = true;
	if (comm_cex(out, op, t, vals, n))
		return false;
	out->commutative = true;
	return true;
}

/* Whether e is an identity of op on every value of vals[0..n). */
static bool identity_on(const pt_expr *op, int t, pt_val e, const pt_val *vals, int n)
{
	for (int i = 0; i < n; i++)
		if (!same(op2(op, vals[i], e), vals[i], t) || !same(op2(op, e, vals[i]), vals[i], t))
			return false;
	return true;
}

/* ---- constants of the operator ---- */

#define MAX_VALS 64

typedef struct consts {
	pt_val v[MAX_VALS];
	int n;
	int t;
} consts;

static void add_val(consts *c, pt_val v)
{
	for (int i = 0; i < c->n; i++)
		if (same(c->v[i], v, c->t))
			return;
	if (c->n < MAX_VALS)
		c->v[c->n++] = v;
}

/* The values of op's operand-free sub-trees that t holds (as t). */
static void collect(const pt_expr *e, consts *c)
{
	if (has_operand(e)) {
		for (int i = 0; i < e->nargs; i++)
			collect(e->args[i], c);
		return;
	}
	pt_val v = ev(e, NULL);
	if (pt_type_is_float(c->t)) {
		double f = pt_type_is_float(e->type) ? v.f : (double)v.i;
		add_val(c, (pt_val){.f = c->t == PT_F32 ? pt_round_f32(f) : f});
	} else if (pt_type_is_int(e->type)) {
		int64_t lo, hi;
		pt_type_range(c->t, &lo, &hi);
		if (v.i >= lo && v.i <= hi)
			add_val(c, v);
	}
}

/* ---- the lattice class: every ordering of a, b, c and the constants ---- */

static int cmp_int(const void *a, const void *b)
{
	int64_t x = ((const pt_val *)a)->i, y = ((const pt_val *)b)->i;
	return (x > y) - (x < y);
}

static int cmp_flt(const void *a, const void *b)
{
	double x = ((const pt_val *)a)->f, y = ((const pt_val *)b)->f;
	return (x > y) - (x < y);
}

/* The constants, the type's bounds, and up to 3 values in each gap. */
static int lattice_values(const consts *k, int t, pt_val *out, int max)
{
	consts c = *k;
	bool f = pt_type_is_float(t);
	int64_t lo, hi;
	pt_type_range(t, &lo, &hi);
	add_val(&c, f ? (pt_val){.f = -INFINITY} : (pt_val){.i = lo});
	add_val(&c, f ? (pt_val){.f = INFINITY} : (pt_val){.i = hi});
	qsort(c.v, (size_t)c.n, sizeof(pt_val), f ? cmp_flt : cmp_int);
	int n = 0;
	for (int i = 0; i < c.n && n < max; i++) {
		out[n++] = c.v[i];
		for (int j = 1; j <= 3 && i + 1 < c.n && n < max; j++) {
			pt_val v;
			if (!f) {
				if (c.v[i].i + j >= c.v[i + 1].i)
					break;
				v.i = c.v[i].i + j;
			} else {
				double a = c.v[i].f, b = c.v[i + 1].f;
				v.f = isinf(a) && isinf(b) ? (j - 2) * 1e30 : isinf(a) ? b - j * fmax(1, fabs(b)) :
					isinf(b) ? a + j * fmax(1, fabs(a)) : a + (b - a) * j / 4;
				if (t == PT_F32)
					v.f = pt_round_f32(v.f);
				if (!(v.f > a && v.f < b))
					continue;
			}
			out[n++] = v;
		}
	}
	return n;
}

static bool prove_by_values(const pt_expr *op, int t, const pt_val *vals, int n, const pt_val *ids, int nids,
	pt_assoc *out)
{
	if (!search(out, op, t, vals, n))
		return false;
	for (int i = 0; i < nids; i++)
		if (identity_on(op, t, ids[i], vals, n)) {
			out->has_identity = true;
			out->identity = ids[i];
			return true;
		}
	snprintf(out->why, sizeof out->why, "its operator is associative and commutative but has no identity "
		"among those tried (the parts' partial results would have no start)");
	return false;
}

static bool prove_lattice(const pt_expr *op, int t, const consts *k, pt_assoc *out)
{
	pt_val vals[4 * MAX_VALS + 8];
	int n = lattice_values(k, t, vals, 4 * MAX_VALS + 8);
	return prove_by_values(op, t, vals, n, vals, n, out);
}

static bool prove_bitwise(const pt_expr *op, int t, const consts *k, pt_assoc *out)
{
	pt_val ones = pt_val_convert((pt_val){.i = -1}, PT_I64, t);
	pt_val vals[2] = {{.i = 0}, ones};
	pt_val ids[2 * MAX_VALS + 2];
	int n = 0;
	ids[n++] = vals[0];
	ids[n++] = ones;
	for (int i = 0; i < k->n; i++) {
		ids[n++] = k->v[i];
		ids[n++] = pt_val_convert((pt_val){.i = ~k->v[i].i}, PT_I64, t);
	}
	return prove_by_values(op, t, vals, 2, ids, n, out);
}

/* ---- the ring class: polynomials in a, b, c ---- */

#define DEG 6
typedef struct poly {
	uint64_t c[DEG + 1][DEG + 1][DEG + 1];
	bool bad;               /* past the degree, or (exact) past int64 */
} poly;

typedef struct ring {
	bool exact;             /* floats: integer coefficients, no wrapping */
	const char *why;
} ring;

static bool add_ok(const ring *r, uint64_t x, uint64_t y, uint64_t *z)
{
	if (!r->exact) {
		*z = x + y;
		return true;
	}
	int64_t s;
	bool bad = __builtin_add_overflow((int64_t)x, (int64_t)y, &s);
	*z = (uint64_t)s;
	return !bad;
}

static bool mul_ok(const ring *r, uint64_t x, uint64_t y, uint64_t *z)
{
	if (!r->exact) {
		*z = x * y;
		return true;
	}
	int64_t s;
	bool bad = __builtin_mul_overflow((int64_t)x, (int64_t)y, &s);
	*z = (uint64_t)s;
	return !bad;
}

#define EACH(i, j, k) \
	for (int i = 0; i <= DEG; i++) for (int j = 0; j <= DEG; j++) for (int k = 0; k <= DEG; k++)

static void p_add(const ring *r, poly *a, const poly *b, bool sub)
{
	a->bad |= b->bad;
	EACH(i, j, k) {
		uint64_t y = sub ? (uint64_t)0 - b->c[i][j][k] : b->c[i][j][k];
		if (sub && r->exact && (int64_t)b->c[i][j][k] == INT64_MIN)
			a->bad = true;
		a->bad |= !add_ok(r, a->c[i][j][k], y, &a->c[i][j][k]);
	}
}

static void p_mul(const ring *r, poly *out, const poly *a, const poly *b)
{
	memset(out, 0, sizeof *out);
	out->bad = a->bad || b->bad;
	EACH(i, j, k) {
		if (!a->c[i][j][k])
			continue;
		EACH(x, y, z) {
			if (!b->c[x][y][z])
				continue;
			uint64_t m;
			if (i + x > DEG || j + y > DEG || k + z > DEG) {
				out->bad = true;
				continue;
			}
			out->bad |= !mul_ok(r, a->c[i][j][k], b->c[x][y][z], &m);
			out->bad |= !add_ok(r, out->c[i + x][j + y][k + z], m, &out->c[i + x][j + y][k + z]);
		}
	}
}

/* e as a polynomial, its operands env[0] and env[1]. */
static void p_eval(ring *r, const pt_expr *e, const poly *env, poly *out)
{
	if (!has_operand(e)) {
		memset(out, 0, sizeof *out);
		pt_val v = ev(e, NULL);
		if (pt_type_is_float(e->type)) {
			if (!(fabs(v.f) < 9007199254740992.0) || v.f != floor(v.f)) {
				out->bad = true;
				r->why = "its operator has a constant that is not an integer";
			}
			out->c[0][0][0] = (uint64_t)(int64_t)v.f;
		} else {
			out->c[0][0][0] = (uint64_t)v.i;
		}
		return;
	}
	if (is_operand(e)) {
		*out = env[e->index == PT_UPD_ACC ? 0 : 1];
		return;
	}
	if (e->kind == PT_E_CAST) {
		p_eval(r, e->args[0], env, out);
		return;
	}
	p_eval(r, e->args[0], env, out);
	if (e->kind == PT_E_UNARY) {        /* negation */
		poly z;
		memset(&z, 0, sizeof z);
		p_add(r, &z, out, true);
		*out = z;
		return;
	}
	poly *b = malloc(sizeof *b), *m = malloc(sizeof *m);
	if (!b || !m) {
		out->bad = true;
	} else {
		p_eval(r, e->args[1], env, b);
		if (e->op == PT_OP_MUL) {
			p_mul(r, m, out, b);
			*out = *m;
		} else {
			p_add(r, out, b, e->op == PT_OP_SUB);
		}
	}
	free(b);
	free(m);
}

static bool p_equal(const poly *a, const poly *b, uint64_t mask)
{
	EACH(i, j, k)
		if ((a->c[i][j][k] ^ b->c[i][j][k]) & mask)
			return false;
	return true;
}

static void p_var(poly *p, int v)
{
	memset(p, 0, sizeof *p);
	p->c[v == 0][v == 1][v == 2] = 1;
}

static void p_const(poly *p, int64_t v)
{
	memset(p, 0, sizeof *p);
	p->c[0][0][0] = (uint64_t)v;
}

/* The small values a counterexample is searched among. */
static int small_values(int t, pt_val *v)
{
	int n = 0;
	for (int64_t x = -2; x <= 3; x++) {
		if (pt_type_is_float(t))
			v[n++] = (pt_val){.f = (double)x};
		else
			v[n++] = pt_val_convert((pt_val){.i = x}, PT_I64, t);
	}
	return n;
}

/* The polynomials: A B C, op(A,B), op(B,A), op(op(A,B),C), op(A,op(B,C)),
 * op(A,e), op(e,A). */
enum { PA, PB, PC, PAB, PBA, PL, PR, PAE, PEA, PE, NPOLY };

static bool prove_ring(const pt_expr *op, int t, pt_assoc *out)
{
	ring r = {.exact = pt_type_is_float(t)};
	uint64_t mask = r.exact || pt_type_bits(t) >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << pt_type_bits(t)) - 1;
	poly *p = calloc(NPOLY, sizeof *p);
	if (!p) {
		snprintf(out->why, sizeof out->why, "out of memory proving its operator");
		return false;
	}
	p_var(&p[PA], 0);
	p_var(&p[PB], 1);
	p_var(&p[PC], 2);
	poly env[2] = {p[PA], p[PB]};
	p_eval(&r, op, env, &p[PAB]);
	env[0] = p[PB], env[1] = p[PA];
	p_eval(&r, op, env, &p[PBA]);
	env[0] = p[PAB], env[1] = p[PC];
	p_eval(&r, op, env, &p[PL]);
	env[0] = p[PB], env[1] = p[PC];
	poly bc;
	p_eval(&r, op, env, &bc);
	env[0] = p[PA], env[1] = bc;
	p_eval(&r, op, env, &p[PR]);
	bool ok = false;
	pt_val vals[8];
	int n = small_values(t, vals);
	if (p[PL].bad || p[PR].bad || p[PAB].bad || p[PBA].bad) {
		/* a counterexample still settles it; else undecided */
		if (!assoc_cex(out, op, t, vals, n) && !comm_cex(out, op, t, vals, n))
			snprintf(out->why, sizeof out->why, "%s", r.why ? r.why :
				"its operator's expansion is too large to decide (degree above 6 or coefficients past 64 bits)");
	} else if (!p_equal(&p[PL], &p[PR], mask)) {
		if (!assoc_cex(out, op, t, vals, n))
			snprintf(out->why, sizeof out->why, "its operator is not associative");
	} else if (!p_equal(&p[PAB], &p[PBA], mask)) {
		out->associative = true;
		if (!comm_cex(out, op, t, vals, n))
			snprintf(out->why, sizeof out->why, "its operator is associative but not commutative");
	} else {
		out->associative = out->commutative = true;
		static const int64_t cands[] = {0, 1, -1};
		for (size_t i = 0; i < sizeof cands / sizeof *cands && !ok; i++) {
			p_const(&p[PE], cands[i]);
			env[0] = p[PA], env[1] = p[PE];
			p_eval(&r, op, env, &p[PAE]);
			env[0] = p[PE], env[1] = p[PA];
			p_eval(&r, op, env, &p[PEA]);
			if (!p[PAE].bad && !p[PEA].bad && p_equal(&p[PAE], &p[PA], mask) && p_equal(&p[PEA], &p[PA], mask)) {
				ok = out->has_identity = true;
				out->identity = r.exact ? (pt_val){.f = (double)cands[i]} :
					pt_val_convert((pt_val){.i = cands[i]}, PT_I64, t);
			}
		}
		if (!ok)
			snprintf(out->why, sizeof out->why, "its operator is associative and commutative but has no identity "
				"(0, 1 and -1 tried), so the parts' partial results would have no start");
	}
	free(p);
	return ok;
}

bool pt_assoc_prove(const pt_expr *op, int t, pt_assoc *out)
{
	memset(out, 0, sizeof *out);
	const char *why = NULL;
	int c = classify(op, t, &why);
	if (c < 0) {
		snprintf(out->why, sizeof out->why, "%s", why);
		return false;
	}
	out->cls = c == PT_ASSOC_NONE ? PT_ASSOC_RING : (pt_assoc_class)c;
	consts k = {.n = 0, .t = t};
	collect(op, &k);
	if (out->cls == PT_ASSOC_LATTICE && k.n > 12) {
		snprintf(out->why, sizeof out->why, "its min/max operator has more than 12 constants");
		return false;
	}
	switch (out->cls) {
	case PT_ASSOC_LATTICE: return prove_lattice(op, t, &k, out);
	case PT_ASSOC_BITWISE: return prove_bitwise(op, t, &k, out);
	default: return prove_ring(op, t, out);
	}
}
