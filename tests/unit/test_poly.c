/* test_poly.c: the isl-based parts of poly/: cases that provably overlap,
 * the naive schedule, access relations, where calls are evaluated, and
 * dependence vectors. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include <isl/ctx.h>
#include <isl/set.h>
#include <stdlib.h>

#include "polytile.h"
#include "ir.h"
#include "access.h"
#include "pt_mpi_grid.h"

#include "run_suite.h"

static const char *diag_of(const char *src, pt_pipeline **out)
{
	static char buf[8192];
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_string(ctx, "t.pipe", src);
	*out = p;
	snprintf(buf, sizeof(buf), "%s", pt_ctx_diagnostics(ctx));
	pt_ctx_free(ctx);
	return buf;
}

START_TEST(overlap_reported_with_point)
{
	pt_pipeline *p;
	const char *d = diag_of(
		"pipeline ov\n"
		"param R : int = 100\n"
		"image I : float [R]\n"
		"func f(x : 0 .. R-1) : float\n"
		"  | x <= 1 -> I(x)\n"
		"  | x >= R-2 -> I(x) * 2\n"
		"output f\n", &p);
	ck_assert_ptr_null(p);
	ck_assert_ptr_nonnull(strstr(d, "t.pipe:6:5: error: cases 1 and 2 of 'f' overlap: both hold at x = "));
	ck_assert_ptr_nonnull(strstr(d, " when R = "));
	ck_assert_ptr_nonnull(strstr(d, "hint: make the conditions exclusive"));
}
END_TEST

START_TEST(overlap_in_two_dimensions_with_steps)
{
	pt_pipeline *p;
	const char *d = diag_of(
		"pipeline ov\n"
		"param R : int = 100\n"
		"func f(x : 0 .. R step 2, y : 0 .. 9) : int\n"
		"  | x == 2 * (x / 2) && y < 5 -> 1\n"
		"  | y >= 4 -> 2\n"
		"output f\n", &p);
	ck_assert_ptr_null(p);
	ck_assert_ptr_nonnull(strstr(d, "t.pipe:5:5: error: cases 1 and 2 of 'f' overlap: both hold at x = "));
	ck_assert_ptr_nonnull(strstr(d, "y = 4"));
}
END_TEST

START_TEST(exclusive_cases_accepted)
{
	pt_pipeline *p;
	const char *d = diag_of(
		"pipeline ok\n"
		"param R : int = 100\n"
		"image I : float [R]\n"
		"func f(x : 0 .. R-1) : float\n"
		"  | x <= 1 -> I(x)\n"
		"  | x >= R-2 && x >= 2 -> I(x) * 2\n"
		"  | else -> 0.0\n"
		"func g(x : 0 .. R-1) : float\n"
		"  | x % 2 == 0 -> 1.0\n"
		"  | x % 2 == 1 -> 2.0\n"
		"output f, g\n", &p);
	ck_assert_msg(p != NULL, "%s", d);
}
END_TEST

START_TEST(data_conditions_left_to_run_time)
{
	pt_pipeline *p;
	const char *d = diag_of(
		"pipeline dyn\n"
		"param R : int = 10\n"
		"image I : float [R]\n"
		"func f(x : 0 .. R-1) : float\n"
		"  | I(x) > 0.5 -> 1.0\n"
		"  | I(x) > 0.25 -> 2.0\n"
		"output f\n", &p);
	ck_assert_msg(p != NULL, "%s", d);
}
END_TEST

/* The naive schedule as isl's AST (pt_emit_c over poly/statements.c):
 * stages in topological order, each over its domain (steps kept), a
 * reduction as an init then an update; every loop parallel but the
 * update's, whose iterations may hit one bin. */
START_TEST(naive_schedule_ast)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_string(ctx, "t.pipe",
		"pipeline n\n"
		"param R : int = 8\n"
		"image I : u8 [R, R]\n"
		"func a(x : 0 .. R-1, y : 0 .. R-1) : int = I(x, y) + 1\n"
		"func b(x : 0 .. R-1 step 2) : int = a(x, 0)\n"
		"reduce h(v : 0 .. 255) : int over (x : 0 .. R-1, y : 0 .. R-1)\n"
		"  | h(I(x, y)) += b(x - x % 2)\n"
		"output h\n");
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	pt_options opt = { .no_inline = true, .opt_level = PT_OPT_NAIVE };
	char *c = pt_emit_c(ctx, p, &opt);
	ck_assert_ptr_nonnull(c);
	/* a, then b with its step, then h's init and update, in that order */
	const char *sa = strstr(c, "S0_0(c0, c1);"), *sb = strstr(c, "S1_0(c0);");
	const char *si = strstr(c, "I2(c0);"), *su = strstr(c, "U2_0(c0, c1);");
	ck_assert_msg(sa && sb && si && su, "%s", c);
	ck_assert(sa < sb && sb < si && si < su);
	ck_assert_msg(strstr(c, "  #pragma omp parallel for\n  for (int c0 = 0; c0 < R; c0 += 2)") != NULL, "%s", c);
	ck_assert_msg(strstr(c, "  #pragma omp parallel for\n  for (int c0 = 0; c0 <= 255; c0 += 1)") != NULL, "%s", c);
	ck_assert_msg(strstr(c, "I2(c0);\n  for (int c0 = 0; c0 < R; c0 += 1)") != NULL, "%s", c);
	free(c);
	pt_ctx_free(ctx);
}
END_TEST

/* ---- access relations (poly/access.c) ---- */

/* The n-th call (0-based, inner arguments first, left to right) in e. */
static const pt_expr *nth_call(const pt_expr *e, int *n)
{
	for (int i = 0; i < e->nargs; i++) {
		const pt_expr *c = nth_call(e->args[i], n);
		if (c)
			return c;
	}
	if (e->kind == PT_E_CALL && (*n)-- == 0)
		return e;
	return NULL;
}

static const pt_expr *call_in(const pt_stage *s, int c, int n)
{
	const pt_expr *e = nth_call(s->cases[c].value, &n);
	ck_assert_ptr_nonnull(e);
	return e;
}

/* isl objects equal to the text, or fail showing both. */
static void map_is(__isl_take isl_map *m, const char *expect)
{
	ck_assert_ptr_nonnull(m);
	isl_map *e = isl_map_read_from_str(isl_map_get_ctx(m), expect);
	ck_assert_ptr_nonnull(e);
	char *got = isl_map_to_str(m);
	ck_assert_msg(isl_map_is_equal(m, e) == isl_bool_true, "got %s, expected %s", got, expect);
	free(got);
	isl_map_free(m);
	isl_map_free(e);
}

static void set_is(__isl_take isl_set *s, const char *expect)
{
	ck_assert_ptr_nonnull(s);
	isl_set *e = isl_set_read_from_str(isl_set_get_ctx(s), expect);
	ck_assert_ptr_nonnull(e);
	char *got = isl_set_to_str(s);
	ck_assert_msg(isl_set_is_equal(s, e) == isl_bool_true, "got %s, expected %s", got, expect);
	free(got);
	isl_set_free(s);
	isl_set_free(e);
}

static pt_ctx *actx;
static isl_ctx *ictx;
static pt_pipeline *ap;

static void access_setup(void)
{
	actx = pt_ctx_new();
	ictx = isl_ctx_alloc();
	ap = pt_parse_string(actx, "t.pipe",
		"pipeline acc\n"
		"param N : int = 16\n"
		"image I : u8 [N]\n"
		"image J : int [N]\n"
		"func f(x : 0 .. N-1) : float = float(I(x))\n"
		"func g(x : 1 .. N-2) : float = f(x - 1) + f(x + 1)\n"
		"func up(x : 0 .. 2*N-1) : float = f(x / 2)\n"
		"func cl(x : 0 .. N-1) : float = f(clamp(x - 1, 0, N - 1)) + f(max(x - 2, 0))\n"
		"func lut(v : 0 .. 255) : float = float(v)\n"
		"func dd(x : 0 .. N-3) : float = lut(I(x)) + f(clamp(J(x), x, x + 2))\n"
		"func sel(x : 0 .. N-1) : float = select(x > 0, f(x - 1), 0.0)\n"
		"func cs(x : 0 .. N-1) : float\n"
		"  | x == 0 -> f(0)\n"
		"  | x > 0 && f(x - 1) > 0.0 -> f(x - 1)\n"
		"  | else -> f(x)\n"
		"reduce h(b : 0 .. 2*N) : int over (i : 0 .. N-1)\n"
		"  | h(2 * i) += 1\n"
		"  | i < 3 -> h(i + 1) += I(i)\n"
		"output g, up, cl, dd, sel, cs, h\n");
	ck_assert_msg(ap != NULL, "%s", pt_ctx_diagnostics(actx));
}

static void access_teardown(void)
{
	isl_ctx_free(ictx);
	pt_ctx_free(actx);
}

static const pt_stage *st(const char *name)
{
	const pt_stage *s = pt_pipeline_find_stage(ap, name);
	ck_assert_ptr_nonnull(s);
	return s;
}

START_TEST(access_stencil_offsets)
{
	const pt_stage *g = st("g");
	map_is(pt_poly_call_access(ictx, ap, g, call_in(g, 0, 0)), "[N] -> { g[x] -> f[x - 1] }");
	map_is(pt_poly_call_access(ictx, ap, g, call_in(g, 0, 1)), "[N] -> { g[x] -> f[x + 1] }");
	set_is(pt_poly_call_domain(ictx, ap, g, call_in(g, 0, 1)), "[N] -> { g[x] : 1 <= x <= N - 2 }");
	set_is(pt_poly_iter_domain(ictx, ap, g), "[N] -> { g[x] : 1 <= x <= N - 2 }");
}
END_TEST

START_TEST(access_floor_division_and_clamps)
{
	const pt_stage *up = st("up"), *cl = st("cl");
	map_is(pt_poly_call_access(ictx, ap, up, call_in(up, 0, 0)), "[N] -> { up[x] -> f[floor(x / 2)] }");
	map_is(pt_poly_call_access(ictx, ap, cl, call_in(cl, 0, 0)),
		"[N] -> { cl[x] -> f[min(max(x - 1, 0), N - 1)] }");
	map_is(pt_poly_call_access(ictx, ap, cl, call_in(cl, 0, 1)), "[N] -> { cl[x] -> f[max(x - 2, 0)] }");
}
END_TEST

/* A data-dependent index is over-approximated by its range: a u8 read is
 * 0 .. 255 (also lut's box); a clamp keeps its affine bounds. */
START_TEST(access_data_dependent_over_approximated)
{
	const pt_stage *dd = st("dd");
	const pt_expr *lut = call_in(dd, 0, 1), *f = call_in(dd, 0, 3);
	ck_assert_str_eq(lut->name, "lut");
	ck_assert_str_eq(f->name, "f");
	map_is(pt_poly_call_access(ictx, ap, dd, lut), "[N] -> { dd[x] -> lut[v] : 0 <= v <= 255 }");
	isl_map *m = pt_poly_call_access(ictx, ap, dd, f);
	m = isl_map_intersect_domain(m, pt_poly_call_domain(ictx, ap, dd, f));
	map_is(m, "[N] -> { dd[x] -> f[o] : 0 <= x <= N - 3 and x <= o <= x + 2 }");
}
END_TEST

/* Where a call is evaluated: select and && guards, first-match cases. */
START_TEST(access_call_domains)
{
	const pt_stage *sel = st("sel"), *cs = st("cs");
	set_is(pt_poly_call_domain(ictx, ap, sel, call_in(sel, 0, 0)), "[N] -> { sel[x] : 1 <= x <= N - 1 }");
	int n = 0;
	const pt_expr *in_cond = nth_call(cs->cases[1].cond, &n);
	ck_assert_ptr_nonnull(in_cond);
	set_is(pt_poly_call_domain(ictx, ap, cs, in_cond), "[N] -> { cs[x] : 1 <= x <= N - 1 }");
	set_is(pt_poly_call_domain(ictx, ap, cs, call_in(cs, 0, 0)), "[N] -> { cs[0] : N >= 1 }");
	set_is(pt_poly_call_domain(ictx, ap, cs, call_in(cs, 1, 0)), "[N] -> { cs[x] : 1 <= x <= N - 1 }");
	/* else holds where neither x == 0 nor the data condition does: at
	 * least x >= 1 (the data condition cannot be decided) */
	set_is(pt_poly_call_domain(ictx, ap, cs, call_in(cs, 2, 0)), "[N] -> { cs[x] : 1 <= x <= N - 1 }");
	/* a call that is not in the stage */
	ck_assert_ptr_null(pt_poly_call_domain(ictx, ap, sel, call_in(cs, 0, 0)));
}
END_TEST

/* A reduction's accesses live in its reduction space. */
START_TEST(access_reduction_target)
{
	const pt_stage *h = st("h");
	set_is(pt_poly_iter_domain(ictx, ap, h), "[N] -> { h[i] : 0 <= i <= N - 1 }");
	map_is(pt_poly_target_access(ictx, ap, h, 0), "[N] -> { h[i] -> h[2i] }");
	set_is(pt_poly_target_domain(ictx, ap, h, 0), "[N] -> { h[i] : 0 <= i <= N - 1 }");
	map_is(pt_poly_target_access(ictx, ap, h, 1), "[N] -> { h[i] -> h[i + 1] }");
	set_is(pt_poly_target_domain(ictx, ap, h, 1), "[N] -> { h[i] : 0 <= i <= N - 1 and i < 3 }");
	map_is(pt_poly_call_access(ictx, ap, h, call_in(h, 1, 0)), "[N] -> { h[i] -> I[i] }");
	set_is(pt_poly_call_domain(ictx, ap, h, call_in(h, 1, 0)), "[N] -> { h[i] : 0 <= i <= N - 1 and i < 3 }");
	ck_assert_ptr_null(pt_poly_target_access(ictx, ap, h, 2));
	ck_assert_ptr_null(pt_poly_target_access(ictx, ap, st("g"), 0));
}
END_TEST

/* Dependence vectors, consumer point minus the producer point it reads
 * (PolyMage thesis 3.1): g(x) = f(x-1) + f(x+1) gives -1 and 1. */
/* The memo kept with the access cache: what is stored under a key comes
 * back (a copy), other keys miss, and 1000 entries survive its growth;
 * likewise the bytes stored with an entry (issue 13). */
START_TEST(access_cache_memo)
{
	isl_ctx *ictx = isl_ctx_alloc();
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_string(ctx, "t.pipe",
		"pipeline m\nparam N : int = 8\nimage I : float [N]\nfunc f(x : 0 .. N-1) : float = I(x)\noutput f\n");
	ck_assert_ptr_nonnull(p);
	pt_poly_access_cache *c = pt_poly_access_cache_new(ictx, p);
	int64_t key[3] = { 1, 2, 3 };
	ck_assert_ptr_null(pt_poly_memo_get(c, key, sizeof(key)));
	for (int i = 0; i < 1000; i++) {
		char s[64];
		snprintf(s, sizeof(s), "{ [x] : 0 <= x <= %d }", i);
		key[2] = i;
		pt_poly_memo_put(c, key, sizeof(key), isl_set_read_from_str(ictx, s));
	}
	for (int i = 0; i < 1000; i += 37) {
		char s[64];
		snprintf(s, sizeof(s), "{ [x] : 0 <= x <= %d }", i);
		key[2] = i;
		isl_set *got = pt_poly_memo_get(c, key, sizeof(key)), *want = isl_set_read_from_str(ictx, s);
		ck_assert_ptr_nonnull(got);
		ck_assert(isl_set_is_equal(got, want) == isl_bool_true);
		isl_set_free(got);
		isl_set_free(want);
	}
	key[2] = 1000;
	ck_assert_ptr_null(pt_poly_memo_get(c, key, sizeof(key)));
	ck_assert_ptr_null(pt_poly_memo_get(c, key, 2 * sizeof(int64_t)));
	ck_assert(!pt_poly_memo_find(c, key, sizeof(key), NULL, NULL, NULL));
	/* bytes stored with an entry (with a set or none) come back as
	 * stored, the first entry under a key stays, and a set-only entry
	 * has no bytes */
	int64_t dkey[2] = { -1, 0 };
	for (int i = 0; i < 600; i++) {
		int payload[3] = { i, 2 * i, 3 * i };
		dkey[1] = i;
		pt_poly_memo_store(c, dkey, sizeof(dkey), i % 2 ? isl_set_read_from_str(ictx, "{ [x] : x = 7 }") : NULL,
			payload, (size_t)(i % 3 + 1) * sizeof(int));
	}
	int other = 99;
	dkey[1] = 5;
	pt_poly_memo_store(c, dkey, sizeof(dkey), NULL, &other, sizeof(other));
	for (int i = 0; i < 600; i += 5) {
		dkey[1] = i;
		isl_set *set = NULL;
		const void *data = NULL;
		size_t nd = 0;
		ck_assert(pt_poly_memo_find(c, dkey, sizeof(dkey), &set, &data, &nd));
		ck_assert_uint_eq(nd, (size_t)(i % 3 + 1) * sizeof(int));
		const int *got = data;
		for (int k = 0; k <= i % 3; k++)
			ck_assert_int_eq(got[k], (k + 1) * i);
		ck_assert(i % 2 ? set != NULL : set == NULL);
		isl_set_free(set);
	}
	key[2] = 37;
	const void *data = &other;
	size_t nd = 1;
	isl_set *set = NULL;
	ck_assert(pt_poly_memo_find(c, key, sizeof(key), &set, &data, &nd));
	ck_assert_ptr_nonnull(set);
	ck_assert_ptr_null(data);
	ck_assert_uint_eq(nd, 0);
	isl_set_free(set);
	pt_poly_access_cache_free(c);
	pt_ctx_free(ctx);
	isl_ctx_free(ictx);
}
END_TEST

/* A walk that records (the model's, model.h): its callback meets every
 * access, targets too, and the reads it recorded replay as a fresh
 * cache's own walk would give them; a walk its callback stops records
 * nothing, and the next reads come from a whole walk. */
typedef struct seen {
	int n, targets, stop_at, mapped;
	const pt_expr *call[32];
	char *where[32], *map[32];
} seen;

static bool see(const pt_poly_access *a, void *user)
{
	seen *v = user;
	if (v->n == v->stop_at)
		return false;
	v->targets += a->is_target;
	if (!a->is_target) {
		ck_assert_int_lt(v->n, 32);
		v->call[v->n] = a->call;
		v->mapped += a->map != NULL;
		isl_map *m = pt_poly_access_map_where(a);
		v->map[v->n] = isl_map_to_str(m);
		isl_map_free(m);
		v->where[v->n++] = isl_set_to_str(a->where);
	}
	return true;
}

static void seen_free(seen *v)
{
	for (int i = 0; i < v->n; i++) {
		free(v->where[i]);
		free(v->map[i]);
	}
}

/* the same reads, and their access maps (a recorded one as computed) */
static void same_reads(const seen *a, const seen *b)
{
	ck_assert_int_eq(a->n, b->n);
	for (int i = 0; i < a->n; i++) {
		ck_assert_ptr_eq(a->call[i], b->call[i]);
		ck_assert_str_eq(a->where[i], b->where[i]);
		ck_assert_str_eq(a->map[i], b->map[i]);
	}
}

START_TEST(access_walk_recording)
{
	const char *names[] = { "g", "cs", "dd", "h" };
	for (int i = 0; i < 4; i++) {
		const pt_stage *s = st(names[i]);
		pt_poly_access_cache *rec = pt_poly_access_cache_new(ictx, ap), *fresh = pt_poly_access_cache_new(ictx, ap);
		seen walked = { .stop_at = -1 }, replay = { .stop_at = -1 }, own = { .stop_at = -1 };
		ck_assert(pt_poly_walk_recording(rec, s, see, &walked));
		ck_assert(pt_poly_walk_reads(rec, s, see, &replay));
		ck_assert(pt_poly_walk_reads(fresh, s, see, &own));
		ck_assert_int_gt(own.n, 0);
		same_reads(&walked, &own);
		same_reads(&replay, &own);
		ck_assert_int_eq(replay.targets, 0);
		/* recorded reads carry their maps, to the recording walk's
		 * callback too; a walk that records nothing computes them */
		ck_assert_int_eq(walked.mapped, walked.n);
		ck_assert_int_eq(replay.mapped, replay.n);
		seen live = { .stop_at = -1 };
		ck_assert(pt_poly_walk_recording(rec, s, see, &live));
		ck_assert_int_eq(live.mapped, 0);
		same_reads(&live, &own);
		seen_free(&live);
		/* the reduction's targets reach the recording walk's callback */
		ck_assert_int_eq(walked.targets, s->red != PT_RED_NONE ? 2 : 0);
		seen_free(&walked);
		seen_free(&replay);
		pt_poly_access_cache_free(rec);
		/* stopped after the first read: nothing kept */
		rec = pt_poly_access_cache_new(ictx, ap);
		seen stopped = { .stop_at = 1 }, after = { .stop_at = -1 };
		pt_poly_walk_recording(rec, s, see, &stopped);
		ck_assert(pt_poly_walk_reads(rec, s, see, &after));
		same_reads(&after, &own);
		seen_free(&stopped);
		seen_free(&after);
		seen_free(&own);
		pt_poly_access_cache_free(rec);
		pt_poly_access_cache_free(fresh);
	}
}
END_TEST

/* The MPI target's grid of ranks (include/pt_mpi_grid.h): P x Q = R,
 * Q the greatest divisor of R not above its square root. */
START_TEST(mpi_grid_shapes)
{
	static const int32_t want[][3] = { { 1, 1, 1 }, { 2, 2, 1 }, { 3, 3, 1 }, { 4, 2, 2 }, { 6, 3, 2 }, { 7, 7, 1 },
		{ 12, 4, 3 }, { 16, 4, 4 }, { 64, 8, 8 }, { 512, 32, 16 }, { 65536, 256, 256 } };
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		int32_t P = -1, Q = -1;
		pt_mpi_grid_shape(want[i][0], &P, &Q);
		ck_assert_msg(P == want[i][1] && Q == want[i][2], "R = %d: %d x %d", want[i][0], P, Q);
	}
}
END_TEST

START_TEST(dependence_vectors)
{
	const pt_stage *f = st("f");
	set_is(pt_poly_dependence_vectors(ictx, ap, f, st("g")), "[N] -> { [d] : 3 <= N <= 2147483647 and (d = 1 or d = -1) }");
	set_is(pt_poly_dependence_vectors(ictx, ap, f, st("sel")), "[N] -> { [1] : 3 <= N <= 2147483647 }");
	/* up(x) reads f(x/2): x - floor(x/2), not constant */
	isl_set *v = pt_poly_dependence_vectors(ictx, ap, f, st("up"));
	ck_assert_ptr_nonnull(v);
	v = isl_set_fix_si(v, isl_dim_param, 0, 4);
	set_is(v, "[N] -> { [d] : N = 4 and 0 <= d <= 4 }");
	set_is(pt_poly_dependence_vectors(ictx, ap, st("lut"), st("g")), "[N] -> { [d] : 1 = 0 }");
	/* a 2-d stencil */
	pt_pipeline *q = pt_parse_string(actx, "q.pipe",
		"pipeline q\n"
		"param R : int = 8\n"
		"image I : float [R, R]\n"
		"func a(x : 0 .. R-1, y : 0 .. R-1) : float = I(x, y)\n"
		"func b(x : 1 .. R-2, y : 1 .. R-2) : float = a(x - 1, y + 1) + a(x + 1, y)\n"
		"func c(x : 1 .. R-2) : float = b(x, 1)\n"
		"output b, c\n");
	ck_assert_msg(q != NULL, "%s", pt_ctx_diagnostics(actx));
	set_is(pt_poly_dependence_vectors(ictx, q, pt_pipeline_find_stage(q, "a"), pt_pipeline_find_stage(q, "b")),
		"[R] -> { [1, -1] : 3 <= R <= 2147483647; [-1, 0] : 3 <= R <= 2147483647 }");
	/* different dimension counts: no common space */
	ck_assert_ptr_null(pt_poly_dependence_vectors(ictx, q, pt_pipeline_find_stage(q, "b"),
		pt_pipeline_find_stage(q, "c")));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("poly");
	TCase *tc = tcase_create("case_overlap");
	tcase_add_test(tc, overlap_reported_with_point);
	tcase_add_test(tc, overlap_in_two_dimensions_with_steps);
	tcase_add_test(tc, exclusive_cases_accepted);
	tcase_add_test(tc, data_conditions_left_to_run_time);
	tcase_add_test(tc, naive_schedule_ast);
	suite_add_tcase(s, tc);
	tc = tcase_create("access");
	tcase_add_checked_fixture(tc, access_setup, access_teardown);
	tcase_add_test(tc, access_stencil_offsets);
	tcase_add_test(tc, access_floor_division_and_clamps);
	tcase_add_test(tc, access_data_dependent_over_approximated);
	tcase_add_test(tc, access_call_domains);
	tcase_add_test(tc, access_reduction_target);
	tcase_add_test(tc, access_cache_memo);
	tcase_add_test(tc, access_walk_recording);
	tcase_add_test(tc, dependence_vectors);
	tcase_add_test(tc, mpi_grid_shapes);
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
