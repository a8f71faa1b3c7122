/* test_rfactor.c: reductions factored into partials and a merge
 * (poly/rfactor.c): which are factored at the estimates and why not the
 * others, the shape of the factored form, and, with --reassociate, the
 * float ones compiled against the interpreter within a tolerance (the
 * exact operators are compared bit for bit by codegen_semantics'
 * factored.pipe). */
#define FLOAT_TOL 1e-5  /* reassociated float sums of <= 4096 terms */
#include "assoc.h"
#include "compiled.h"
#include "rfactor.h"
#include "run_suite.h"

#ifndef PIPES_DIR
#define PIPES_DIR "tests/codegen/pipes"
#endif

static pt_ctx *ctx;
static pt_pipeline *q;
static char *log_text;
static int nf;

static void setup(void)
{
	ctx = pt_ctx_new();
	q = NULL;
	log_text = NULL;
	nf = -1;
}

static void teardown(void)
{
	pt_pipeline_free(q);
	free(log_text);
	pt_ctx_free(ctx);
}

/* Factors p at the params' estimates, or at `at` for every int param. */
static void factor(const pt_pipeline *p, int64_t at, bool reassociate)
{
	int64_t ip[16] = {0};
	for (int i = 0; i < p->nparams; i++)
		ip[i] = at ? at : (int64_t)p->params[i].estimate;
	q = pt_poly_rfactor(p, ip, reassociate, &log_text, &nf);
	ck_assert_ptr_nonnull(q);
	ck_assert_ptr_nonnull(log_text);
}

static const pt_pipeline *parse_file(const char *name)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", PIPES_DIR, name);
	const pt_pipeline *p = pt_parse_file(ctx, path);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	return p;
}

static bool says(const char *line)
{
	return strstr(log_text, line) != NULL;
}

/* At 2048 x 2048 every exact reduction of factored.pipe is factored,
 * the float ones only with reassociation; the log says why. */
START_TEST(decisions_at_estimates)
{
	const pt_pipeline *p = parse_file("factored.pipe");
	factor(p, 0, false);
	ck_assert_int_eq(nf, 10);
	ck_assert_msg(says("reduction hist2: factored into 16 parts along x (blocks of 64)"), "%s", log_text);
	ck_assert_msg(says("reduction line: factored into 16 parts along i (blocks of 8192)"), "%s", log_text);
	/* split's first reduction dimension has 2 points: x (from 3) is split */
	ck_assert_msg(says("reduction split: factored into 16 parts along x"), "%s", log_text);
	ck_assert_msg(says("reduction fsum: not factored: a float sum or product changes with the order"), "%s", log_text);
	ck_assert_msg(says("reduction fmin: not factored: a float min or max"), "%s", log_text);
	pt_pipeline_free(q);
	free(log_text);
	factor(p, 0, true);
	ck_assert_int_eq(nf, 12);
	ck_assert_msg(says("reduction fsum: factored into 16 parts along x (blocks of 64), 1048576 reduction points per "
		"result point at the estimates, reassociated (--reassociate)"), "%s", log_text);
	ck_assert_int_eq(q->nstages, p->nstages + 12);
}
END_TEST

/* The factored form: h_part(part, D) over (x_part, x_blk, x_in, y), a sum
 * like h, then h a plain function of the same domain reading each part
 * at its own point; stage ids follow the order. */
START_TEST(factored_shape)
{
	const pt_pipeline *p = parse_file("factored.pipe");
	factor(p, 0, false);
	const pt_stage *t = pt_pipeline_find_stage(q, "hist2_part"), *h = pt_pipeline_find_stage(q, "hist2");
	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_nonnull(h);
	ck_assert_int_eq(t->id + 1, h->id);
	ck_assert_int_eq(t->red, PT_RED_SUM);
	ck_assert_int_eq(t->ndim, 3);
	ck_assert_int_eq(t->nrdim, 4);
	ck_assert_str_eq(t->vars[0], "part");
	ck_assert_str_eq(t->vars[3], "x_part");
	ck_assert_str_eq(t->vars[4], "x_blk");
	ck_assert_str_eq(t->vars[5], "x_in");
	ck_assert_str_eq(t->vars[6], "y");
	ck_assert_int_eq(h->red, PT_RED_NONE);
	ck_assert_int_eq(h->nrdim, 0);
	ck_assert_int_eq(h->ncases, 1);
	ck_assert(h->is_output && !t->is_output);
	bool own = false;
	ck_assert(pt_expr_reads_stage(h->cases[0].value, t, &own));
	for (int i = 0; i < q->nstages; i++)
		ck_assert_int_eq(q->stages[i]->id, i);
	/* the line's split: blocks of 8192 values of i (i_in) */
	const pt_stage *l = pt_pipeline_find_stage(q, "line_part");
	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(l->nrdim, 3);
	ck_assert_str_eq(l->vars[l->ndim + 2], "i_in");
}
END_TEST

/* Small at the estimates, parallel already, an and with an init, a
 * result as large as its domain: not factored, each with its reason. */
START_TEST(kept_serial)
{
	const pt_pipeline *p = parse_file("factored.pipe");
	factor(p, 16, false);
	ck_assert_int_eq(nf, 0);
	ck_assert_msg(says("reduction hist: not factored: its reduction domain is small at the estimates"), "%s", log_text);
	pt_pipeline_free(q);
	free(log_text);
	const pt_pipeline *r = pt_parse_string(ctx, "r.pipe",
		"pipeline r\nparam R : int = 4096\nimage I : u8 [R, R]\n"
		"reduce rowmax(r : 0 .. R-1) : u8 over (i : 0 .. R-1, y : 0 .. R-1)\n  | rowmax(i) max= I(i, y)\n"
		"reduce all(k : 0 .. 0) : u8 over (x : 0 .. R-1, y : 0 .. R-1) init 5\n  | all(0) &&= I(x, y) > 1\n"
		"reduce diag(k : 0 .. R+62) : int over (x : 0 .. R-1, y : 0 .. 63)\n  | diag(x + y) += I(x, y % R)\n"
		"output rowmax, all, diag\n");
	ck_assert_msg(r != NULL, "%s", pt_ctx_diagnostics(ctx));
	factor(r, 0, true);
	ck_assert_int_eq(nf, 0);
	ck_assert_msg(says("reduction rowmax: not factored: its outer reduction loop is parallel already"), "%s", log_text);
	ck_assert_msg(says("reduction all: not factored: an and/or reduction with an initial value"), "%s", log_text);
	ck_assert_msg(says("reduction diag: not factored: its reduction domain is not large against its result"), "%s",
		log_text);
}
END_TEST

/* Reassociated, the float reductions agree with the interpreter within
 * FLOAT_TOL, naive and grouped (two tile sizes), 1 and 2 threads; the
 * exact ones still bit for bit. */
START_TEST(reassociated_close)
{
	static const char *const names[2] = {"R", "C"};
	static const double sizes[2][2] = {{9, 67}, {70, 45}};
	const pt_options opts[3] = {
		{ .opt_level = PT_OPT_NAIVE, .compile_threads = 1, .reassociate = true },
		{ .opt_level = PT_OPT_GROUPED, .ntile = 2, .tile = { 8, 16 }, .overlap = 0.2, .compile_threads = 1,
			.reassociate = true },
		{ .opt_level = PT_OPT_GROUPED, .ntile = 2, .tile = { 64, 256 }, .overlap = 0.5, .compile_threads = 1,
			.reassociate = true },
	};
	cmp_file_opts(PIPES_DIR "/factored.pipe", 2, names, sizes, 1, opts, 3);
}
END_TEST

/* The proof of the general update `h(0) = expr` of a reduction of type
 * type (assoc.h); *a receives it. */
static bool prove(const char *type, const char *expr, pt_assoc *a)
{
	char text[1024];
	snprintf(text, sizeof text, "pipeline a\nparam N : int = 8\nimage I : u8 [N]\n"
		"reduce h(k : 0 .. 0) : %s over (x : 0 .. N-1) init 0\n  | h(0) = %s\noutput h\n", type, expr);
	const pt_pipeline *p = pt_parse_string(ctx, "a.pipe", text);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	const pt_stage *s = pt_pipeline_find_stage(p, "h");
	ck_assert_int_eq(s->red, PT_RED_UPDATE);
	ck_assert_int_eq(s->cases[0].value->type, s->type);
	return pt_assoc_prove(s->cases[0].update, s->type, a);
}

static void proved(const char *type, const char *expr, pt_assoc_class cls, int64_t id)
{
	pt_assoc a;
	ck_assert_msg(prove(type, expr, &a), "%s %s: %s", type, expr, a.why);
	ck_assert(a.associative && a.commutative && a.has_identity);
	ck_assert_int_eq(a.cls, cls);
	ck_assert_int_eq(a.identity.i, id);
}

static void refused(const char *type, const char *expr, bool assoc, bool comm, const char *why)
{
	pt_assoc a;
	ck_assert_msg(!prove(type, expr, &a), "%s %s proved", type, expr);
	ck_assert_int_eq(a.associative, assoc);
	ck_assert_int_eq(a.commutative, comm);
	ck_assert_msg(strstr(a.why, why), "%s %s: '%s' lacks '%s'", type, expr, a.why, why);
}

/* The prover (poly/assoc.c): the paper's x + y + 7xy in every integer
 * width (wrapping), sums, products, min/max, bitwise operators and
 * their identities; what is not associative or commutative or has no
 * identity, with a counterexample; what it does not decide. */
START_TEST(prover)
{
	proved("int", "h(0) + int(I(x)) + 7 * h(0) * int(I(x))", PT_ASSOC_RING, 0);
	proved("u8", "h(0) + I(x) + 7 * h(0) * I(x)", PT_ASSOC_RING, 0);
	proved("i64", "h(0) + i64(I(x)) + 7 * h(0) * i64(I(x))", PT_ASSOC_RING, 0);
	proved("u16", "h(0) * u16(I(x))", PT_ASSOC_RING, 1);
	proved("int", "int(I(x)) - 3 + h(0)", PT_ASSOC_RING, 0);
	/* a + b + 2^32 a b b is a + b modulo 2^32, not modulo 2^64 */
	proved("int", "h(0) + int(I(x)) + 4294967296 * h(0) * int(I(x)) * int(I(x))", PT_ASSOC_RING, 0);
	refused("i64", "h(0) + i64(I(x)) + 4294967296 * h(0) * i64(I(x)) * i64(I(x))", false, false, "not associative");
	proved("i16", "max(h(0), i16(I(x)))", PT_ASSOC_LATTICE, INT16_MIN);
	proved("u8", "min(I(x), h(0))", PT_ASSOC_LATTICE, 255);
	proved("int", "max(h(0), int(I(x)))", PT_ASSOC_LATTICE, INT32_MIN);
	proved("u16", "h(0) ^ u16(I(x))", PT_ASSOC_BITWISE, 0);
	proved("int", "h(0) & int(I(x))", PT_ASSOC_BITWISE, -1);
	proved("u8", "h(0) | I(x)", PT_ASSOC_BITWISE, 0);
	proved("int", "h(0) ^ int(I(x)) ^ 1", PT_ASSOC_BITWISE, 1);
	/* floats: in real arithmetic (--reassociate decides whether to use it) */
	pt_assoc a;
	ck_assert(prove("float", "h(0) + float(I(x)) + 7.0 * h(0) * float(I(x))", &a) && a.identity.f == 0);
	refused("int", "2 * h(0) + int(I(x))", false, false, "op(op(");
	refused("int", "h(0) - int(I(x))", false, false, "not associative: op(op(");
	refused("int", "int(I(x))", true, false, "not commutative");
	refused("int", "2 * h(0) * int(I(x))", true, true, "no identity");
	refused("i16", "min(max(h(0), i16(I(x))), 120)", true, true, "no identity");
	refused("int", "max(min(h(0), 1000), min(int(I(x)), 1000))", true, false, "not commutative");
	refused("int", "max(h(0), int(I(x))) + 1", false, false, "mixes");
	refused("int", "h(0) / int(I(x))", false, false, "not made of");
	refused("int", "h(0) + int(u8(h(0)) * I(x))", false, false, "narrower");
}
END_TEST

/* General updates in general.pipe: those proved are factored (the
 * partials start at the identity, the merge is a reduction over the
 * parts with the same operator), the others kept serial with the
 * prover's reason. */
START_TEST(general_updates)
{
	const pt_pipeline *p = parse_file("general.pipe");
	factor(p, 0, false);
	ck_assert_msg(says("reduction paper: factored into 16 parts along x (blocks of 64), 1048576 reduction points "
		"per result point at the estimates; its operator proved associative and commutative (as a polynomial), "
		"identity 0"), "%s", log_text);
	ck_assert_msg(says("reduction paper8: factored"), "%s", log_text);
	ck_assert_msg(says("reduction xor: factored") && says("(as a bitwise), identity 0"), "%s", log_text);
	ck_assert_msg(says("reduction gmax: factored") && says("(as a min/max), identity -32768"), "%s", log_text);
	ck_assert_msg(says("reduction count: factored"), "%s", log_text);
	ck_assert_msg(says("reduction clamped: not factored: its operator is associative and commutative but has no "
		"identity"), "%s", log_text);
	ck_assert_msg(says("reduction lin: not factored: its operator is not associative: op(op("), "%s", log_text);
	ck_assert_msg(says("reduction diff: not factored: its operator is not associative"), "%s", log_text);
	ck_assert_msg(says("reduction fpoly: not factored: a float general update changes with the order"), "%s",
		log_text);
	ck_assert_msg(says("reduction two: not factored: its updates combine with different operators"), "%s",
		log_text);
	ck_assert_int_eq(nf, 5);
	const pt_stage *t = pt_pipeline_find_stage(q, "paper_part"), *m = pt_pipeline_find_stage(q, "paper");
	ck_assert_int_eq(t->red, PT_RED_UPDATE);
	ck_assert(t->init && t->init->kind == PT_E_INT && t->init->ival == 0);
	ck_assert_int_eq(m->red, PT_RED_UPDATE);
	ck_assert_int_eq(m->nrdim, 2);
	ck_assert(m->init && m->init->ival == 0);
	ck_assert(pt_expr_equal(m->cases[0].update, t->cases[0].update));
	bool own = true;
	ck_assert(pt_expr_reads_stage(m->cases[0].value, t, &own));
}
END_TEST

/* Tuple reductions in tuples.pipe (frontend/tuple.c, poly/rfactor_tuple.c):
 * argmin/argmax, componentwise sums and the complex product on integers
 * factored; floats only with reassociation; the rest kept serial with
 * the prover's reason.  The partial is a tuple over (part, D, slot)
 * starting at the identity, the merge a tuple reduction over the parts. */
START_TEST(tuple_reductions)
{
	const pt_pipeline *p = parse_file("tuples.pipe");
	factor(p, 0, false);
	ck_assert_msg(says("reduction am: factored into 16 parts along x (blocks of 64)") &&
		says("argmin (lexicographic on the tuple: ties go to the least index"), "%s", log_text);
	ck_assert_msg(says("reduction ax: factored") && says("reduction am4: factored into 16 parts along a (blocks of 1)"),
		"%s", log_text);
	ck_assert_msg(says("reduction cmul: factored") && says("(as a polynomial tuple), identity (1, 0)"), "%s", log_text);
	ck_assert_msg(says("reduction mv: factored") && says("componentwise sum"), "%s", log_text);
	ck_assert_msg(says("reduction fam: not factored: an argmin/argmax with float components"), "%s", log_text);
	ck_assert_msg(says("reduction fmul: not factored: a float general update changes with the order"), "%s", log_text);
	ck_assert_msg(says("reduction fmv: not factored: a componentwise float reduction"), "%s", log_text);
	ck_assert_int_eq(nf, 5);
	const pt_stage *t = pt_pipeline_find_stage(q, "cmul_part"), *m = pt_pipeline_find_stage(q, "cmul");
	ck_assert_int_eq(t->ntuple, 2);
	ck_assert_int_eq(t->ndim, 3);           /* part, k, slot */
	ck_assert_int_eq(m->ntuple, 2);
	ck_assert_int_eq(m->nrdim, 2);          /* k_m, part */
	bool own = true;
	ck_assert(pt_expr_reads_stage(m->cases[m->ncases - 1].value, t, &own));
	pt_pipeline_free(q);
	free(log_text);
	factor(p, 0, true);
	ck_assert_msg(says("reduction fam: factored") && says("reduction fmul: factored") && says("reduction fmv: factored"),
		"%s", log_text);
	ck_assert_int_eq(nf, 8);
	pt_pipeline_free(q);
	free(log_text);
	factor(parse_file("tuples_serial.pipe"), 0, true);
	ck_assert_msg(says("reduction nc: not factored: its operator is not associative (component 1"), "%s", log_text);
	ck_assert_msg(says("reduction three: not factored: its update combines its accumulator with more values"), "%s",
		log_text);
	ck_assert_msg(says("reduction lit: not factored: its update combines its accumulator with fewer values"), "%s",
		log_text);
	ck_assert_int_eq(nf, 0);
}
END_TEST

/* The tuple prover (poly/assoc_tuple.c) on the first update of tuple
 * reduction h of type (T, T): complex multiplication, componentwise
 * sums and products; what is not associative, not commutative, has no
 * identity, or is no polynomial. */
static bool prove_tuple(const char *type, const char *e0, const char *e1, pt_assoc_tuple *a)
{
	char text[1024];
	snprintf(text, sizeof text, "pipeline a\nparam N : int = 8\nimage I : %s [N]\nimage J : %s [N]\n"
		"reduce h(k : 0 .. 0) : (%s, %s) over (x : 0 .. N-1) init (1, 0)\n  | h(0) = (%s, %s)\noutput h\n",
		type, type, type, type, e0, e1);
	const pt_pipeline *p = pt_parse_string(ctx, "a.pipe", text);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	int64_t ip[1] = {1 << 20};
	pt_pipeline_free(q);
	free(log_text);
	q = pt_poly_rfactor(p, ip, true, &log_text, &nf);
	ck_assert_ptr_nonnull(q);
	snprintf(a->why, sizeof a->why, "%s", log_text);
	return nf == 1;
}

START_TEST(tuple_prover)
{
	pt_assoc_tuple a;
	const char *ok[][3] = {
		{"int", "h(0).0 * I(x) - h(0).1 * J(x)", "h(0).0 * J(x) + h(0).1 * I(x)"},
		{"float", "h(0).0 * I(x) - h(0).1 * J(x)", "h(0).0 * J(x) + h(0).1 * I(x)"},
		{"u8", "h(0).0 * I(x) - h(0).1 * J(x)", "h(0).1 * I(x) + h(0).0 * J(x)"},
		{"int", "h(0).0 + I(x)", "h(0).1 + J(x)"},
		{"int", "h(0).0 * I(x)", "h(0).1 + J(x) + 3 * h(0).1 * J(x)"},
	};
	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
		ck_assert_msg(prove_tuple(ok[i][0], ok[i][1], ok[i][2], &a), "%s: %s", ok[i][1], a.why);
	const char *no[][4] = {
		{"int", "h(0).0 + I(x)", "h(0).1 + h(0).0 * J(x)", "not associative (component 1"},
		{"int", "I(x)", "h(0).1 + J(x)", "not commutative (component 0"},
		{"int", "h(0).0 * I(x) * 2", "h(0).1 + J(x)", "no identity"},
		{"int", "h(0).0 / I(x)", "h(0).1 + J(x)", "not made of +, -, *"},
	};
	for (size_t i = 0; i < sizeof no / sizeof *no; i++) {
		ck_assert_msg(!prove_tuple(no[i][0], no[i][1], no[i][2], &a), "%s proved", no[i][1]);
		ck_assert_msg(strstr(a.why, no[i][3]), "%s: '%s' lacks '%s'", no[i][1], a.why, no[i][3]);
	}
}
END_TEST

/* A factored reduction reading at a clamped (u * 7 + v) % 64 compiles in
 * seconds (the kernels pass bounds isl's work on its footprint; 45 s
 * before) and equals the interpreter. */
START_TEST(mod_read_compiles)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/rfactor_mod.pipe", PIPES_DIR);
	const pt_pipeline *p = parse_file("rfactor_mod.pipe");
	factor(p, 0, false);
	ck_assert_msg(says("reduction s4: factored into 16 parts along u"), "%s", log_text);
	const pt_options o = { .opt_level = PT_OPT_NAIVE, .compile_threads = 1 };
	pt_program *prog = pt_compile(ctx, p, &o);
	ck_assert_msg(prog != NULL, "%s", pt_ctx_diagnostics(ctx));
	static const char *const names[] = { "R", "C", "K" };
	static const double sizes[2][3] = { { 11, 8, 7 }, { 2, 1, 40 } };
	for (int sz = 0; sz < 2; sz++) {
		cmp_run r;
		cmp_start(&r, ctx, p, 3, names, sizes[sz], 7u + (uint32_t)sz);
		cmp_check(&r, prog, 2, path);
		cmp_finish(&r);
	}
	pt_program_free(prog);
}
END_TEST

static void keep_ir(const char *pass, const char *text, void *user)
{
	if (!strcmp(pass, "llvm-ir"))
		*(char **)user = strdup(text);
}

/* The LLVM IR before optimization of src's tiled schedule. */
static char *ir_of(const char *src)
{
	const pt_pipeline *p = pt_parse_string(ctx, "t.pipe", src);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	char *ir = NULL;
	const pt_options o = { .compile_threads = 1, .dump = "llvm-ir", .dump_fn = keep_ir, .dump_user = &ir };
	pt_program *prog = pt_compile(ctx, p, &o);
	ck_assert_msg(prog != NULL, "%s", pt_ctx_diagnostics(ctx));
	pt_program_free(prog);
	ck_assert_ptr_nonnull(ir);
	return ir;
}

/* src compiled (-O1) equals the interpreter at three sizes of R, C. */
static void compare_hist(const char *src, const double sizes[3][2])
{
	const pt_pipeline *p = pt_parse_string(ctx, "h.pipe", src);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	pt_program *prog = pt_compile(ctx, p, &(pt_options){ .compile_threads = 1 });
	ck_assert_msg(prog != NULL, "%s", pt_ctx_diagnostics(ctx));
	static const char *const names[] = { "R", "C" };
	for (int sz = 0; sz < 3; sz++) {
		cmp_run r;
		cmp_start(&r, ctx, p, 2, names, sizes[sz], 3u + (uint32_t)sz);
		cmp_check(&r, prog, 2, "h.pipe");
		cmp_finish(&r);
	}
	pt_program_free(prog);
}

/* A serial innermost loop that updates a reduction at data-dependent
 * points (a histogram's bins: no vector form) is unrolled 4 times, as
 * Halide's LLVM passes do (1.25x on the histogram's loop); the same
 * reduction at affine points, and a plain stencil, are left to LLVM.
 * A histogram of a filtered image runs in strips, and so does a loop of
 * two updates.  Compiled, they equal the interpreter at sizes that leave remainders (of the unrolled loop,
 * of a strip). */
START_TEST(scatter_loops_unrolled)
{
	const char *hist = "pipeline h\nparam R : int = 64\nparam C : int = 61\nimage I : u8 [R, C]\n"
		"reduce h(b : 0 .. 255) : int over (x : 0 .. R-1, y : 0 .. C-1)\n  | h(I(x, y)) += 1\noutput h\n";
	const char *count = "!\"llvm.loop.unroll.count\", i32 4";
	char *ir = ir_of(hist);
	ck_assert_msg(strstr(ir, count), "no unrolled loop");
	free(ir);
	ir = ir_of("pipeline s\nparam R : int = 64\nparam C : int = 61\nimage I : u8 [R, C]\n"
		"reduce s(x : 0 .. R-1) : int over (r : 0 .. R-1, y : 0 .. C-1)\n  | s(r) += int(I(r, y))\n"
		"func b(x : 1 .. R-2, y : 0 .. C-1) : int = int(I(x-1, y)) + int(I(x+1, y))\noutput s\noutput b\n");
	ck_assert_msg(!strstr(ir, count), "an affine update or a stencil unrolled");
	ck_assert_msg(!strstr(ir, "alloca [256 x i32]"), "a scatter in strips");
	free(ir);
	/* a histogram of a filtered image: the filter inlined into the
	 * scatter (poly/inline.c), whose loop runs in strips of 256 with
	 * their bins kept in an array */
	const char *filt = "pipeline hf\nparam R : int = 64\nparam C : int = 61\nimage I : u8 [R, C]\n"
		"func f(x : 1 .. R-2, y : 1 .. C-2) : float = (float(I(x-1, y)) + 2.0 * float(I(x, y)) + float(I(x, y+1))) / 4.5\n"
		"reduce h(b : 0 .. 127) : int over (x : 1 .. R-2, y : 1 .. C-2)\n  | h(clamp(int(f(x, y) * 0.5), 0, 127)) += 1\noutput h\n";
	ir = ir_of(filt);
	ck_assert_msg(strstr(ir, "alloca [256 x i32]") && strstr(ir, count), "no strips");
	free(ir);
	compare_hist(filt, (const double[3][2]){ { 3, 3 }, { 4, 258 }, { 5, 600 } });
	compare_hist(hist, (const double[3][2]){ { 7, 5 }, { 3, 1 }, { 130, 67 } });
	/* two updates in one loop (bilateral grid's sum and count, here in
	 * different bins): both in strips, each with its own index array
	 * (two dims: 512 entries), in the 32-bit and the 64-bit version;
	 * the float sum in order */
	const char *two = "pipeline two\nparam R : int = 64\nparam C : int = 61\nimage I : u8 [R, C]\n"
		"reduce g(c : 0 .. 1, b : 0 .. 15) : float over (x : 0 .. R-1, y : 0 .. C-1)\n"
		"  | g(0, clamp(int(float(I(x, y)) * 0.0625 + 0.5), 0, 15)) += float(I(x, y)) * 0.5\n"
		"  | g(1, clamp(int(float(I(x, y)) * 0.03125 + 0.25), 0, 15)) += 1.0\noutput g\n";
	ir = ir_of(two);
	int n32 = 0, n64 = 0;
	for (const char *q = ir; (q = strstr(q, "alloca [512 x i32]")); q++)
		n32++;
	for (const char *q = ir; (q = strstr(q, "alloca [512 x i64]")); q++)
		n64++;
	ck_assert_msg(n32 == 2 && n64 == 2, "index arrays: %d of i32, %d of i64", n32, n64);
	free(ir);
	compare_hist(two, (const double[3][2]){ { 3, 3 }, { 4, 258 }, { 9, 601 } });
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rfactor");
	TCase *tc = tcase_create("rfactor");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, decisions_at_estimates);
	tcase_add_test(tc, factored_shape);
	tcase_add_test(tc, kept_serial);
	tcase_add_test(tc, reassociated_close);
	tcase_add_test(tc, prover);
	tcase_add_test(tc, general_updates);
	tcase_add_test(tc, tuple_reductions);
	tcase_add_test(tc, tuple_prover);
	suite_add_tcase(s, tc);
	/* 20 s: about 2 s on the 2-core machine under load, 45 s unbounded */
	tc = tcase_create("footprints");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, mod_read_compiles);
	tcase_add_test(tc, scatter_loops_unrolled);
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
