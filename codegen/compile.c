/* compile.c: the compiler's passes in order, timed: inlining, statements
 * and isl's AST, LLVM IR, O3, then LLJIT or an object file and header. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <isl/ast_build.h>
#include <isl/id.h>
#include <isl/map.h>
#include <isl/options.h>
#include <isl/printer.h>
#include <isl/union_map.h>
#include <llvm-c/Analysis.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>

#include "polytile.h"
#include "ctx.h"
#include "entry.h"
#include "header.h"
#include "image_io.h"
#include "inline.h"
#include "isl_expr.h"
#include "machine.h"
#include "target.h"

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

typedef struct phase_timer {
	bool on;
	double t;
} phase_timer;

static void phase(phase_timer *pt, const char *name)
{
	double t = now_ms();
	if (pt->on && name)
		fprintf(stderr, "polytile: %-10s %8.1f ms\n", name, t - pt->t);
	pt->t = t;
}

static pt_loc noloc(void)
{
	pt_loc l = {0};
	return l;
}

/* A loop may run in parallel when no statement in it has a dependence
 * carried at this depth (band dim d is the statements' dim d). */
static isl_bool stmt_parallel(__isl_keep isl_map *m, void *user)
{
	int depth = *(int *)user;
	isl_id *id = isl_map_get_tuple_id(m, isl_dim_in);
	const pt_stmt *st = isl_id_get_user(id);
	isl_id_free(id);
	int d = depth;
	return (d >= st->nvars || pt_stmt_dim_parallel(st, d)) ? isl_bool_true : isl_bool_false;
}

static __isl_give isl_id *mark_loop(__isl_keep isl_ast_build *build, void *user)
{
	isl_union_map *sched = isl_ast_build_get_schedule(build);
	isl_space *sp = isl_ast_build_get_schedule_space(build);
	int depth = (int)isl_space_dim(sp, isl_dim_set) - 1;
	isl_space_free(sp);
	isl_bool par = isl_union_map_every_map(sched, &stmt_parallel, &depth);
	isl_union_map_free(sched);
	return pt_target_mark(isl_ast_build_get_ctx(build), par == isl_bool_true, depth);
}

/* The naive schedule's AST under the admissible params. */
static __isl_give isl_ast_node *build_ast(isl_ctx *ictx, const pt_pipeline *p, pt_stmts *st)
{
	isl_schedule *sched = pt_poly_stmts_naive_schedule(st);
	isl_space *sp = pt_poly_stage_space(ictx, p, NULL, 0);
	isl_set *context = isl_set_params(isl_set_universe(isl_space_copy(sp)));
	/* the params' type ranges stay out: their huge constants slow isl's
	 * AST generation down, and a weaker context is always safe */
	context = isl_set_intersect(context, pt_poly_nonempty(sp, p));
	isl_space_free(sp);
	isl_ast_build *build = isl_ast_build_from_context(context);
	build = isl_ast_build_set_before_each_for(build, &mark_loop, NULL);
	isl_ast_node *tree = isl_ast_build_node_from_schedule(build, sched);
	isl_ast_build_free(build);
	return tree;
}

/* A translation: the pipeline actually compiled (inlined or not), its
 * statements and AST, the LLVM module. */
typedef struct unit {
	pt_pipeline *owned;      /* the inlined copy, if any */
	const pt_pipeline *p;
	pt_stmts *st;
	isl_ast_node *tree;
	LLVMModuleRef mod;
	LLVMTargetMachineRef tm;
	phase_timer timer;
} unit;

static void unit_free(unit *u)
{
	isl_ast_node_free(u->tree);
	pt_poly_stmts_free(u->st);
	if (u->owned)
		pt_pipeline_free(u->owned);
	if (u->tm)
		LLVMDisposeTargetMachine(u->tm);
}

static int fail(pt_ctx *ctx, const char *what, char *msg)
{
	pt_error_at(&ctx->diag, noloc(), NULL, "%s: %s", what, msg ? msg : "failed");
	free(msg);
	return -1;
}

/* Passes up to isl's AST. */
static int front(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt, unit *u)
{
	memset(u, 0, sizeof(*u));
	u->timer.on = opt && opt->time;
	phase(&u->timer, NULL);
	/* checking made ctx->isl (driver/api.c) */
	isl_ctx *ictx = ctx->isl;
	if (!p || !p->checked || !ictx)
		return fail(ctx, "compile", strdup("the pipeline has not been checked"));
	u->p = p;
	if (!(opt && opt->no_inline)) {
		int n = 0;
		u->owned = pt_poly_inline(ictx, p, &n);
		if (!u->owned)
			return fail(ctx, "compile", strdup("inlining failed"));
		u->p = u->owned;
		if (u->timer.on)
			fprintf(stderr, "polytile: inlined %d of %d stages\n", n, p->nstages);
	}
	phase(&u->timer, "inline");
	u->st = pt_poly_stmts(ictx, u->p);
	phase(&u->timer, "statements");
	u->tree = u->st ? build_ast(ictx, u->p, u->st) : NULL;
	if (!u->tree)
		return fail(ctx, "compile", strdup("isl could not build the schedule's AST"));
	phase(&u->timer, "ast");
	return 0;
}

/* LLVM reports loops it could not vectorize as warnings and remarks; the
 * naive schedule asks for every innermost loop, so they are expected. */
static void quiet_diagnostics(LLVMDiagnosticInfoRef di, void *user)
{
	(void)di;
	(void)user;
}

/* LLVM IR for the unit in context llc, optimized for the machine. */
static int back(pt_ctx *ctx, const pt_options *opt, unit *u, LLVMContextRef llc, const char *fname)
{
	char *err = NULL;
	u->tm = pt_machine_create(opt ? opt->target : NULL, &err);
	if (!u->tm) {
		pt_error_at(&ctx->diag, noloc(), "give TRIPLE[:CPU[:FEATURES]], like x86_64-linux-gnu:znver3 or aarch64-linux-gnu",
			"target %s: %s", opt && opt->target ? opt->target : "(host)", err);
		free(err);
		return -1;
	}
	pt_cg cg = {0};
	LLVMContextSetDiagnosticHandler(llc, quiet_diagnostics, NULL);
	cg.llc = llc;
	cg.b = LLVMCreateBuilderInContext(llc);
	cg.p = u->p;
	cg.target = &pt_target_cpu;
	cg.fname = fname;
	cg.param = calloc((size_t)u->p->nparams + 1, sizeof(LLVMValueRef));
	cg.stage = calloc((size_t)u->p->nstages + 1, sizeof(cg_array));
	cg.image = calloc((size_t)u->p->nimages + 1, sizeof(cg_array));
	cg_init_types(&cg);
	cg.target->module_begin(&cg);
	pt_entry_emit(&cg, u->tree);
	cg.target->module_finish(&cg);
	LLVMDisposeBuilder(cg.b);
	free(cg.param);
	free(cg.stage);
	free(cg.image);
	u->mod = cg.modules[0].mod;     /* the host module (module_finish folded any other in) */
	free(cg.modules);
	char *msg = NULL;
	if (LLVMVerifyModule(u->mod, LLVMReturnStatusAction, &msg)) {
		int r = fail(ctx, "internal error: invalid LLVM IR", strdup(msg));
		LLVMDisposeMessage(msg);
		return r;
	}
	LLVMDisposeMessage(msg);
	phase(&u->timer, "llvm-ir");
	pt_machine_configure(u->mod, u->tm);
	if (pt_machine_optimize(u->mod, u->tm, &err))
		return fail(ctx, "optimize", err);
	phase(&u->timer, "optimize");
	return 0;
}

/* ---- JIT ---- */

struct pt_program {
	LLVMOrcLLJITRef jit;
	int (*fn)(const int64_t *, const double *, const pt_buffer *const *, pt_buffer *const *);
	int threads;
};

static int jit_error(pt_ctx *ctx, LLVMErrorRef e)
{
	char *m = LLVMGetErrorMessage(e);
	fail(ctx, "jit", strdup(m));
	LLVMDisposeErrorMessage(m);
	return -1;
}

/* Whether a --target's architecture is this machine's (the JIT runs the
 * code here). */
static bool runs_here(const char *target)
{
	char *host = LLVMGetDefaultTargetTriple();
	size_t n = strcspn(host, "-"), m = strcspn(target, "-:");
	bool same = n == m && !strncmp(host, target, n);
	LLVMDisposeMessage(host);
	return same;
}

pt_program *pt_compile(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt)
{
	if (opt && opt->target && !runs_here(opt->target)) {
		pt_error_at(&ctx->diag, noloc(), "run on a machine of that kind, or write an object with `polytile compile --target`",
			"--target %s: code for another architecture cannot run on this machine", opt->target);
		return NULL;
	}
	unit u;
	if (front(ctx, p, opt, &u)) {
		unit_free(&u);
		return NULL;
	}
	LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
	const char *fname = "pt_pipeline";
	if (back(ctx, opt, &u, LLVMOrcThreadSafeContextGetContext(tsc), fname)) {
		if (u.mod)
			LLVMDisposeModule(u.mod);
		LLVMOrcDisposeThreadSafeContext(tsc);
		unit_free(&u);
		return NULL;
	}
	pt_program *prog = calloc(1, sizeof(*prog));
	prog->threads = opt ? opt->threads : 0;
	/* the JIT takes over the machine the module was optimized for */
	LLVMOrcLLJITBuilderRef jb = LLVMOrcCreateLLJITBuilder();
	LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(jb, LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(u.tm));
	u.tm = NULL;
	LLVMErrorRef e = LLVMOrcCreateLLJIT(&prog->jit, jb);
	LLVMOrcDefinitionGeneratorRef gen = NULL;
	if (!e)
		e = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(&gen,
			LLVMOrcLLJITGetGlobalPrefix(prog->jit), NULL, NULL);
	if (!e) {
		LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(prog->jit);
		LLVMOrcJITDylibAddGenerator(jd, gen);
		LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(u.mod, tsc);
		u.mod = NULL;
		e = LLVMOrcLLJITAddLLVMIRModule(prog->jit, jd, tsm);
		if (e)
			LLVMOrcDisposeThreadSafeModule(tsm);
	}
	LLVMOrcExecutorAddress addr = 0;
	if (!e)
		e = LLVMOrcLLJITLookup(prog->jit, &addr, "pt_pipeline_argv");
	if (u.mod)
		LLVMDisposeModule(u.mod);
	LLVMOrcDisposeThreadSafeContext(tsc);
	if (e) {
		jit_error(ctx, e);
		pt_program_free(prog);
		unit_free(&u);
		return NULL;
	}
	prog->fn = (int (*)(const int64_t *, const double *, const pt_buffer *const *, pt_buffer *const *))(uintptr_t)addr;
	phase(&u.timer, "jit");
	unit_free(&u);
	return prog;
}

int pt_program_run(pt_program *prog, const int64_t *iparams, const double *fparams,
	const pt_buffer *const *inputs, pt_buffer *const *outputs)
{
	if (prog->threads > 0)
		pt_set_num_threads(prog->threads);
	return prog->fn(iparams, fparams, inputs, outputs);
}

void pt_program_free(pt_program *prog)
{
	if (!prog)
		return;
	if (prog->jit)
		LLVMOrcDisposeLLJIT(prog->jit);
	free(prog);
}

/* ---- files and text ---- */

static bool is_identifier(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

static int write_atomic(pt_ctx *ctx, const char *path, const char *data, size_t n)
{
	pt_io_tmpfile t;
	char err[1024];
	if (pt_io_tmp_open(&t, path, err, sizeof(err)) != PT_OK) {
		pt_error_at(&ctx->diag, noloc(), "check that the directory exists and is writable", "%s", err);
		return -1;
	}
	if (fwrite(data, 1, n, t.fp) != n) {
		pt_io_tmp_abort(&t);
		pt_error_at(&ctx->diag, noloc(), "check the free space", "cannot write %s", path);
		return -1;
	}
	if (pt_io_tmp_commit(&t, err, sizeof(err)) != PT_OK) {
		pt_error_at(&ctx->diag, noloc(), "check that the directory exists and is writable", "%s", err);
		return -1;
	}
	return 0;
}

int pt_compile_files(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt, const char *base)
{
	const char *slash = strrchr(base, '/');
	const char *fname = slash ? slash + 1 : base;
	if (!is_identifier(fname)) {
		pt_error_at(&ctx->diag, noloc(), "name the output like -o out/harris",
			"-o %s: the function would be named '%s', which is not a C identifier", base, fname);
		return -1;
	}
	unit u;
	LLVMContextRef llc = LLVMContextCreate();
	int r = front(ctx, p, opt, &u);
	if (!r)
		r = back(ctx, opt, &u, llc, fname);
	size_t n = strlen(base) + 3;
	char *obj = malloc(n), *hdr = malloc(n);
	snprintf(obj, n, "%s.o", base);
	snprintf(hdr, n, "%s.h", base);
	char *err = NULL;
	LLVMMemoryBufferRef code = NULL;
	if (!r && !(code = pt_machine_emit_object(u.mod, u.tm, &err)))
		r = fail(ctx, obj, err);
	if (!r) {
		/* each file appears whole or not at all (temporary, then rename),
		 * so a failed compile leaves an earlier build in place */
		char *text = pt_header_text(u.p, fname);
		r = write_atomic(ctx, obj, LLVMGetBufferStart(code), LLVMGetBufferSize(code));
		if (!r)
			r = write_atomic(ctx, hdr, text, strlen(text));
		free(text);
		phase(&u.timer, "object");
	}
	if (code)
		LLVMDisposeMemoryBuffer(code);
	free(obj);
	free(hdr);
	if (u.mod)
		LLVMDisposeModule(u.mod);
	unit_free(&u);
	LLVMContextDispose(llc);
	return r;
}

char *pt_emit_llvm(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt, const char *fname)
{
	unit u;
	LLVMContextRef llc = LLVMContextCreate();
	char *text = NULL;
	if (!front(ctx, p, opt, &u) && !back(ctx, opt, &u, llc, fname ? fname : p->name)) {
		char *s = LLVMPrintModuleToString(u.mod);
		text = strdup(s);
		LLVMDisposeMessage(s);
	}
	if (u.mod)
		LLVMDisposeModule(u.mod);
	unit_free(&u);
	LLVMContextDispose(llc);
	return text;
}

/* Prints a for loop, preceded by an OpenMP pragma when it is the
 * outermost parallel loop (the one the CPU target runs in parallel). */
static __isl_give isl_printer *print_for(__isl_take isl_printer *pr,
	__isl_take isl_ast_print_options *options, __isl_keep isl_ast_node *node, void *user)
{
	int *inside = user;
	bool par = (pt_target_marks(node) & PT_MARK_PARALLEL) && *inside == 0;
	if (par) {
		pr = isl_printer_start_line(pr);
		pr = isl_printer_print_str(pr, "#pragma omp parallel for");
		pr = isl_printer_end_line(pr);
	}
	*inside += par;
	pr = isl_ast_node_for_print(node, pr, options);
	*inside -= par;
	return pr;
}

char *pt_emit_c(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt)
{
	unit u;
	char *text = NULL;
	if (!front(ctx, p, opt, &u)) {
		isl_printer *pr = isl_printer_to_str(ctx->isl);
		pr = isl_printer_set_output_format(pr, ISL_FORMAT_C);
		int inside = 0;
		isl_ast_print_options *po = isl_ast_print_options_alloc(ctx->isl);
		po = isl_ast_print_options_set_print_for(po, &print_for, &inside);
		pr = isl_ast_node_print(u.tree, pr, po);
		text = isl_printer_get_str(pr);
		isl_printer_free(pr);
	}
	unit_free(&u);
	return text;
}

/* ---- outputs ---- */

int pt_pipeline_output_count(const pt_pipeline *p)
{
	int n = 0;
	for (int i = 0; i < p->nstages; i++)
		n += p->stages[i]->is_output;
	return n;
}

static const pt_stage *output(const pt_pipeline *p, int k)
{
	for (int i = 0; i < p->nstages; i++)
		if (p->stages[i]->is_output && k-- == 0)
			return p->stages[i];
	return NULL;
}

const char *pt_pipeline_output_name(const pt_pipeline *p, int i)
{
	const pt_stage *s = output(p, i);
	return s ? s->name : NULL;
}

int pt_pipeline_output_box(const pt_pipeline *p, int i, const int64_t *iparams,
	int64_t *lo, int64_t *extent)
{
	const pt_stage *s = output(p, i);
	if (!s)
		return -1;
	for (int d = 0; d < s->ndim; d++) {
		int64_t h;
		if (!pt_interval_eval(&s->dom[d], iparams, &lo[d], &h))
			return -1;
		extent[d] = h >= lo[d] ? h - lo[d] + 1 : 0;
	}
	return s->ndim;
}
