/* compile.c: compiling a checked pipeline: the options, the passes from
 * "inline" to "optimize" (passes.c), then LLJIT or an object file and a
 * header, and the text views (LLVM IR, the AST as C). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>

#include "polytile.h"
#include "ctx.h"
#include "cache.h"
#include "header.h"
#include "machine.h"
#include "image_io.h"
#include "passes.h"
#include "target.h"
#include "split.h"

static pt_loc noloc(void)
{
	pt_loc l = {0};
	return l;
}

static int fail(pt_ctx *ctx, const char *what, char *msg)
{
	pt_error_at(&ctx->diag, noloc(), NULL, "%s: %s", what, msg ? msg : "failed");
	free(msg);
	return -1;
}

/* Whether b is a GPU block: 0 x 0 (the model's), or x by y threads,
 * at most PT_GPU_BLOCK_MAX in all. */
static bool block_ok(const int *b)
{
	return (b[0] == 0 && b[1] == 0) || (b[0] > 0 && b[1] > 0 && (int64_t)b[0] * b[1] <= PT_GPU_BLOCK_MAX);
}

/* Per-group entries' values (the groups they name are checked by the
 * grouping, which knows them); 0, or -1 with a message at the entry. */
static int check_group_options(pt_ctx *ctx, const pt_options *o)
{
	if (o->ngroups < 0 || (o->ngroups > 0 && !o->groups)) {
		pt_error_at(&ctx->diag, noloc(), NULL, "per-group options: %d entries%s", o->ngroups,
			o->groups ? "" : " and no array");
		return -1;
	}
	for (int i = 0; i < o->ngroups; i++) {
		const pt_group_options *g = &o->groups[i];
		char where[64];
		snprintf(where, sizeof(where), "group option %d", i);
		const char *at = g->where ? g->where : where;
		bool bad_tile = g->ntile < 0 || g->ntile > PT_MAX_TILE_DIMS;
		for (int k = 0; k < g->ntile && !bad_tile; k++)
			bad_tile = g->tile[k] < 1 || g->tile[k] > 1 << 20;
		if (bad_tile || (!g->group && g->index < 0) || !(g->overlap >= 0 && g->overlap < 1) ||
		    !block_ok(g->gpu_block)) {
			pt_error_at(&ctx->diag, noloc(), "give 1 to 8 tile sizes, each 1 to 1048576, a threshold in [0, 1), "
				"a GPU block of at most 1024 threads and a group index >= 0", "%s: invalid per-group options", at);
			return -1;
		}
	}
	return 0;
}

/* Options a compilation can honour; a message naming the option if not. */
static int check_options(pt_ctx *ctx, const pt_options *o)
{
	if (!pt_passes_check_dump(ctx, o->dump))
		return -1;
	char *terr = NULL;
	const pt_target *target = pt_target_for(o->backend, &terr);
	free(terr);
	if (!target && o->backend == PT_BACKEND_MPI) {
		pt_error_at(&ctx->diag, noloc(), "use --backend cpu, or build with meson configure -Dmpi=enabled",
			"--backend mpi: this build of polytile has no mpi backend");
		return -1;
	}
	if ((unsigned)o->mpi_grid > PT_MPI_GRID) {
		pt_error_at(&ctx->diag, noloc(), "auto, slabs or grid", "mpi grid %d: unknown", (int)o->mpi_grid);
		return -1;
	}
	if (o->mpi_steps < -1) {
		pt_error_at(&ctx->diag, noloc(), "auto, all or a number of steps from 1", "mpi steps %d: not a depth",
			o->mpi_steps);
		return -1;
	}
	if ((unsigned)o->mpi_strategy > PT_MPI_REPLICATE) {
		pt_error_at(&ctx->diag, noloc(), "auto, communicate, recompute or replicate", "mpi strategy %d: unknown",
			(int)o->mpi_strategy);
		return -1;
	}
	if (!target)
		return fail(ctx, "backend", strdup("unknown backend"));
	if (o->compile_threads < 0) {
		pt_error_at(&ctx->diag, noloc(), "give 1 or more, or 0 for one per CPU", "compile threads %d: negative",
			o->compile_threads);
		return -1;
	}
	if (o->opt_level != PT_OPT_NAIVE && o->opt_level != PT_OPT_GROUPED)
		return fail(ctx, "-O", strdup("choose 0 or 1"));
	if (o->ntile < 0 || o->ntile > PT_MAX_TILE_DIMS) {
		pt_error_at(&ctx->diag, noloc(), NULL, "--tile: give 1 to %d sizes", PT_MAX_TILE_DIMS);
		return -1;
	}
	for (int i = 0; i < o->ntile; i++)
		if (o->tile[i] < 0) {
			pt_error_at(&ctx->diag, noloc(), "give sizes like 32x256", "--tile: size %d is negative (sizes are 1 to %d)",
				o->tile[i], 1 << 20);
			return -1;
		}
	if (!(o->overlap >= 0 && o->overlap < 1)) {
		pt_error_at(&ctx->diag, noloc(), "give a fraction like 0.4", "--overlap %g: must be in [0, 1)", o->overlap);
		return -1;
	}
	if (!block_ok(o->gpu_block)) {
		pt_error_at(&ctx->diag, noloc(), "give threads like 32x8, at most 1024 in all, or 0 x 0 for the model's",
			"--gpu-block %d x %d: not a GPU block", o->gpu_block[0], o->gpu_block[1]);
		return -1;
	}
	return check_group_options(ctx, o);
}

int pt_ctx_set_options(pt_ctx *ctx, const pt_options *opt)
{
	pt_options zero = {0};
	if (!opt)
		opt = &zero;
	if (check_options(ctx, opt))
		return -1;
	ctx->opt = *opt;
	return 0;
}

/* What front_with compiles for. */
typedef enum unit_for { FOR_MODULE, FOR_OBJECT, FOR_FILE } unit_for;

/* The passes from inlining through last for checked pipeline p; object:
 * for an object (unit_object), not the optimized module, FOR_FILE one
 * that `compile` writes (with a cubin beside a CUDA target's PTX). */
static int front_with(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt, pt_unit *u,
	LLVMContextRef llc, const char *fname, const char *last, pt_schedule_fn sched, void *user, unit_for object)
{
	pt_unit_init(u, ctx, opt);
	u->aot = object == FOR_FILE;
	if (object != FOR_MODULE)
		u->jobs = u->opt->compile_threads > 0 ? u->opt->compile_threads : pt_split_default_threads();
	if (sched) {
		u->schedule_fn = sched;
		u->schedule_user = user;
	}
	u->llc = llc;
	u->fname = fname;
	if (!p || !p->checked || !ctx->isl)
		return fail(ctx, "compile", strdup("the pipeline has not been checked"));
	if (check_options(ctx, u->opt))
		return -1;
	u->input = (pt_pipeline *)p;
	return pt_passes_run(u, "inline", last);
}

static int front(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt, pt_unit *u,
	LLVMContextRef llc, const char *fname, const char *last)
{
	return front_with(ctx, p, opt, u, llc, fname, last, NULL, NULL, FOR_MODULE);
}

/* The object file of a unit compiled by front_with(object): its pieces
 * merged, or its whole module; NULL with *err. */
static LLVMMemoryBufferRef unit_object(pt_unit *u, char **err)
{
	if (u->split)
		return pt_split_emit(u->split, u->jobs, err);
	return pt_machine_emit_object(u->mod, u->tm, err);
}

/* ---- JIT ---- */

typedef int (*pt_argv_fn)(const int64_t *, const double *, const pt_buffer *const *, pt_buffer *const *);

struct pt_program {
	LLVMOrcLLJITRef jit;
	pt_argv_fn fn;
	/* the MPI target's local-part ABI (NAME_local_argv, NAME_part), or NULL */
	pt_argv_fn local;
	int32_t (*part)(const int64_t *, const double *, int32_t, int32_t, int32_t, int64_t *, int64_t *);
	int threads;
};

static int jit_error(pt_ctx *ctx, LLVMErrorRef e)
{
	char *m = LLVMGetErrorMessage(e);
	fail(ctx, "jit", strdup(m));
	LLVMDisposeErrorMessage(m);
	return -1;
}

pt_program *pt_compile(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt)
{
	return pt_compile_with(ctx, p, opt, NULL, NULL);
}

/* An LLJIT for machine tm (taken over) that finds the runtime's symbols
 * in this process. */
static LLVMErrorRef jit_create(LLVMOrcLLJITRef *jit, LLVMTargetMachineRef tm)
{
	LLVMOrcLLJITBuilderRef jb = LLVMOrcCreateLLJITBuilder();
	LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(jb, LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm));
	LLVMErrorRef e = LLVMOrcCreateLLJIT(jit, jb);
	LLVMOrcDefinitionGeneratorRef gen = NULL;
	if (!e)
		e = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(&gen,
			LLVMOrcLLJITGetGlobalPrefix(*jit), NULL, NULL);
	if (!e)
		LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(*jit), gen);
	return e;
}

/* The object of p compiled with opt (and schedule sched), from the
 * passes; NULL after an error in ctx. */
static LLVMMemoryBufferRef compile_object(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt,
	pt_schedule_fn sched, void *user, pt_unit *u)
{
	LLVMContextRef llc = LLVMContextCreate();
	LLVMMemoryBufferRef obj = NULL;
	char *err = NULL;
	if (!front_with(ctx, p, opt, u, llc, "pt_pipeline", "optimize", sched, user, FOR_OBJECT) &&
		!(obj = unit_object(u, &err)))
		fail(ctx, "object", err);
	if (obj)
		pt_unit_phase(u, "object");
	/* the unit's module lives in llc: gone before it */
	double t = u->t;
	pt_unit_clear(u);
	pt_unit_init(u, ctx, opt);
	u->t = t;
	LLVMContextDispose(llc);
	return obj;
}

/* The compile cache, or NULL: a directory that cannot be made only
 * turns it off (said under --time), one that is not safe to use is
 * said always, since someone may be trying to run their code as ours. */
static pt_cache *open_cache(const pt_options *opt)
{
	char *dir = pt_cache_dir(), *why = NULL;
	pt_cache *c = dir ? pt_cache_open(dir, &why) : NULL;
	if (why)
		fprintf(stderr, "polytile: warning: %s: compiling without the cache\n", why);
	else if (!dir && opt->time)
		fprintf(stderr, "polytile: no cache directory can be made (see PT_CACHE_DIR): compiling without it\n");
	free(why);
	free(dir);
	return c;
}

/* Compiling is the passes, then an object file that the JIT links: with
 * the cache on, that object comes from the cache when it holds one for
 * the same key, else it is stored there, so a hit and a miss run the
 * same object the same way. */
pt_program *pt_compile_with(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt,
	pt_schedule_fn sched, void *user)
{
	if (!opt)
		opt = &ctx->opt;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* LLVM's verdict on the target first (its words are the most
	 * precise), then whether its code can run here */
	char *why = NULL;
	LLVMTargetMachineRef tm = pt_machine_create(opt->target, &why);
	if (!tm) {
		pt_error_at(&ctx->diag, noloc(), opt->target ? "give TRIPLE[:CPU[:FEATURES]], like x86_64-linux-gnu:znver3" : NULL,
			"--target %s: %s", opt->target ? opt->target : "host", why);
		free(why);
		return NULL;
	}
	if (opt->target && pt_machine_runs_here(opt->target, &why)) {
		pt_error_at(&ctx->diag, noloc(), "run on a machine of that kind, or write an object with `polytile compile --target`",
			"--target %s: %s", opt->target, why);
		free(why);
		LLVMDisposeTargetMachine(tm);
		return NULL;
	}
	if (!p || !p->checked || !ctx->isl || check_options(ctx, opt)) {
		if (!p || !p->checked || !ctx->isl)
			fail(ctx, "compile", strdup("the pipeline has not been checked"));
		LLVMDisposeTargetMachine(tm);
		return NULL;
	}
	pt_unit u;
	pt_unit_init(&u, ctx, opt);
	pt_unit_mark(&u);
	/* a schedule from elsewhere is not in the key, and dumps need the
	 * passes to run */
	bool cached = opt->cache && !sched && !(opt->dump && *opt->dump);
	pt_cache *cache = cached ? open_cache(opt) : NULL;
	char key[65];
	LLVMMemoryBufferRef obj = NULL;
	if (cache) {
		void *data = NULL;
		size_t n = 0;
		char *why = NULL;
		pt_cache_key(p, opt, tm, "pt_pipeline", key);
		pt_cache_status st = pt_cache_get(cache, key, &data, &n, &why);
		if (why)
			fprintf(stderr, "polytile: warning: %s\n", why);
		free(why);
		if (st == PT_CACHE_HIT)
			obj = LLVMCreateMemoryBufferWithMemoryRangeCopy(data, n, "pt_pipeline");
		free(data);
		pt_unit_phase(&u, st == PT_CACHE_HIT ? "cache hit" : st == PT_CACHE_MISS ? "cache miss" : "cache bad");
	}
	if (!obj) {
		obj = compile_object(ctx, p, opt, sched, user, &u);
		if (obj && cache && !pt_cache_put(cache, key, LLVMGetBufferStart(obj), LLVMGetBufferSize(obj)))
			pt_unit_phase(&u, "cache store");
	}
	pt_cache_close(cache);
	if (!obj) {
		LLVMDisposeTargetMachine(tm);
		return NULL;
	}
	pt_program *prog = calloc(1, sizeof(*prog));
	prog->threads = opt->threads;
	LLVMErrorRef e = jit_create(&prog->jit, tm);
	if (!e)
		e = LLVMOrcLLJITAddObjectFile(prog->jit, LLVMOrcLLJITGetMainJITDylib(prog->jit), obj);
	else
		LLVMDisposeMemoryBuffer(obj);
	LLVMOrcExecutorAddress addr = 0;
	LLVMOrcExecutorAddress abi = 0;
	if (!e)
		e = LLVMOrcLLJITLookup(prog->jit, &abi, "pt_pipeline_abi_version");
	if (!e)
		e = LLVMOrcLLJITLookup(prog->jit, &addr, "pt_pipeline_argv");
	if (e) {
		jit_error(ctx, e);
		pt_program_free(prog);
		return NULL;
	}
	int32_t made_for = ((int32_t (*)(void))(uintptr_t)abi)();
	if (made_for != PT_ABI_VERSION) {
		pt_error_at(&ctx->diag, noloc(), "compile it again (--no-cache)",
			"the compiled pipeline was made for runtime ABI %d; this polytile's is %d", (int)made_for, PT_ABI_VERSION);
		pt_program_free(prog);
		return NULL;
	}
	prog->fn = (pt_argv_fn)(uintptr_t)addr;
	LLVMOrcExecutorAddress local = 0, part = 0;
	if (opt->backend == PT_BACKEND_MPI && !(e = LLVMOrcLLJITLookup(prog->jit, &local, "pt_pipeline_local_argv")) &&
		!(e = LLVMOrcLLJITLookup(prog->jit, &part, "pt_pipeline_part"))) {
		prog->local = (pt_argv_fn)(uintptr_t)local;
		prog->part = (int32_t (*)(const int64_t *, const double *, int32_t, int32_t, int32_t, int64_t *, int64_t *))
			(uintptr_t)part;
	}
	if (e) {
		jit_error(ctx, e);
		pt_program_free(prog);
		return NULL;
	}
	pt_unit_phase(&u, "jit");
	pt_unit_clear(&u);
	if (opt->time) {   /* the whole of it: what a cache hit saves */
		struct timespec t1;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		fprintf(stderr, "polytile: %-12s %8.1f ms\n", "compiled",
			(double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	}
	return prog;
}

int pt_program_run(pt_program *prog, const int64_t *iparams, const double *fparams,
	const pt_buffer *const *inputs, pt_buffer *const *outputs)
{
	if (prog->threads > 0)
		pt_set_num_threads(prog->threads);
	return prog->fn(iparams, fparams, inputs, outputs);
}

int pt_program_run_local(pt_program *prog, const int64_t *iparams, const double *fparams,
	const pt_buffer *const *inputs, pt_buffer *const *outputs)
{
	if (!prog->local)
		return PT_ERR_PARAM;
	if (prog->threads > 0)
		pt_set_num_threads(prog->threads);
	return prog->local(iparams, fparams, inputs, outputs);
}

int pt_program_part(pt_program *prog, const int64_t *iparams, const double *fparams, int rank, int nranks, int array,
	int64_t *lo, int64_t *hi)
{
	return prog->part ? prog->part(iparams, fparams, rank, nranks, array, lo, hi) : PT_ERR_PARAM;
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

/* An error when fname, given as what (an argument, or the pipeline's
 * name), cannot name the compiled function (fn_names.c). */
static bool bad_function_name(pt_ctx *ctx, const char *what, const char *given, const char *fname)
{
	const char *why = pt_function_name_reserved(fname);
	if (why)
		pt_error_at(&ctx->diag, noloc(), "name the output like -o out/harris",
			"%s %s: the function would be named '%s', which is %s", what, given, fname, why);
	return why != NULL;
}

static int write_atomic(pt_ctx *ctx, const char *path, const char *data, size_t n)
{
	char err[8192];
	if (pt_io_write_file(path, data, n, err, sizeof(err)) == PT_OK)
		return 0;
	pt_error_at(&ctx->diag, noloc(), "check that the directory exists and is writable, and the free space", "%s", err);
	return -1;
}

int pt_compile_files(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt, const char *base)
{
	const char *slash = strrchr(base, '/');
	const char *fname = slash ? slash + 1 : base;
	if (bad_function_name(ctx, "-o", base, fname))
		return -1;
	pt_unit u;
	LLVMContextRef llc = LLVMContextCreate();
	int r = front_with(ctx, p, opt, &u, llc, fname, "optimize", NULL, NULL, FOR_FILE);
	size_t n = strlen(base) + 3;
	char *obj = malloc(n), *hdr = malloc(n);
	snprintf(obj, n, "%s.o", base);
	snprintf(hdr, n, "%s.h", base);
	char *err = NULL;
	LLVMMemoryBufferRef code = NULL;
	if (!r && !(code = unit_object(&u, &err)))
		r = fail(ctx, obj, err);
	if (!r) {
		/* each file appears whole or not at all (temporary, then rename),
		 * so a failed compile leaves an earlier build in place */
		char *text = pt_header_text(u.p, fname, u.target && u.target->part_function);
		r = write_atomic(ctx, obj, LLVMGetBufferStart(code), LLVMGetBufferSize(code));
		if (!r)
			r = write_atomic(ctx, hdr, text, strlen(text));
		free(text);
		pt_unit_phase(&u, "object");
	}
	if (code)
		LLVMDisposeMemoryBuffer(code);
	free(obj);
	free(hdr);
	pt_unit_clear(&u);
	LLVMContextDispose(llc);
	return r;
}

char *pt_emit_llvm(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt, const char *fname)
{
	/* the pipeline's name is the function's when no other is given */
	if (bad_function_name(ctx, fname ? "function name" : "pipeline", fname ? fname : p->name, fname ? fname : p->name))
		return NULL;
	pt_unit u;
	LLVMContextRef llc = LLVMContextCreate();
	char *text = NULL;
	if (!front(ctx, p, opt, &u, llc, fname ? fname : p->name, "optimize"))
		text = pt_passes_dump(&u, "optimize");
	pt_unit_clear(&u);
	LLVMContextDispose(llc);
	return text;
}

char *pt_emit_ptx(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt, const char *fname)
{
	const char *name = fname ? fname : p->name;
	if (bad_function_name(ctx, fname ? "function name" : "pipeline", name, name))
		return NULL;
	if (!opt || opt->backend != PT_BACKEND_CUDA)
	{
		fail(ctx, "--emit=ptx", strdup("PTX comes from --backend cuda"));
		return NULL;
	}
	pt_unit u;
	LLVMContextRef llc = LLVMContextCreate();
	char *text = NULL;
	if (!front(ctx, p, opt, &u, llc, name, "llvm-ir")) {
		char gname[300];
		snprintf(gname, sizeof(gname), "%s.ptx", name);
		LLVMValueRef g = LLVMGetNamedGlobal(u.mod, gname);
		LLVMValueRef init = g ? LLVMGetInitializer(g) : NULL;
		size_t len = 0;
		const char *s = init && LLVMIsAConstantDataSequential(init) ? LLVMGetAsString(init, &len) : NULL;
		if (s && len > 1)
			text = strndup(s, len);
		else
			fail(ctx, "--emit=ptx", strdup("no PTX: this LLVM has no NVPTX target, or a math function needs "
				"libdevice (/usr/local/cuda/nvvm/libdevice/libdevice.10.bc, or $PT_LIBDEVICE)"));
	}
	pt_unit_clear(&u);
	LLVMContextDispose(llc);
	return text;
}

char *pt_emit_c(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt)
{
	pt_unit u;
	char *text = NULL;
	if (!front(ctx, p, opt, &u, NULL, p->name, "ast"))
		text = pt_passes_dump(&u, "ast");
	pt_unit_clear(&u);
	return text;
}

int pt_run_passes(pt_ctx *ctx, const pt_pipeline *p, const pt_options *opt, const char *last)
{
	const pt_options *o = opt ? opt : &ctx->opt;
	if (!last)
		last = pt_passes_last_dumped(o->dump);
	if (!last || pt_passes_checking(last))
		return 0;
	pt_unit u;
	LLVMContextRef llc = LLVMContextCreate();
	int r = front(ctx, p, opt, &u, llc, p->name, last);
	pt_unit_clear(&u);
	LLVMContextDispose(llc);
	return r;
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
	return s ? pt_pipeline_stage_box(p, s->id, iparams, lo, extent) : -1;
}

int pt_pipeline_stage_box(const pt_pipeline *p, int i, const int64_t *iparams,
	int64_t *lo, int64_t *extent)
{
	const pt_stage *s = i >= 0 && i < p->nstages ? p->stages[i] : NULL;
	if (!s)
		return -1;
	for (int d = 0; d < s->ndim; d++) {
		int64_t h;
		if (!pt_interval_eval(&s->dom[d], iparams, &lo[d], &h))
			return -1;
		int64_t span;
		if (h < lo[d])
			extent[d] = 0;
		else   /* a span past i64 saturates: it fits nowhere anyway */
			extent[d] = __builtin_sub_overflow(h, lo[d], &span) || span == INT64_MAX ? INT64_MAX : span + 1;
	}
	return s->ndim;
}
