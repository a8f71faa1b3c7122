/* passes.c: the compiler's passes, in order, in one list (see passes.h).
 * Each pass fills part of a pt_unit; each is timed (--time) and has a
 * dump of what it produced (--dump=PASS). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <isl/ast_build.h>
#include <isl/id.h>
#include <isl/options.h>
#include <isl/printer.h>
#include <isl/schedule.h>
#include <isl/union_set.h>

#include "access.h"
#include "bounds.h"
#include "case_overlap.h"
#include "codegen.h"
#include "distribute.h"
#include "align.h"
#include "greedy.h"
#include "gpu_tile.h"
#include "time_tile.h"
#include "inline.h"
#include "isl_expr.h"
#include "machine_facts.h"
#include "parser.h"
#include "passes.h"
#include "print.h"
#include "rfactor.h"
#include "cubin.h"
#include "split.h"
#include "target.h"
#include "typecheck.h"

typedef struct pt_pass {
	const char *name;
	int (*run)(pt_unit *u);
	char *(*dump)(pt_unit *u);   /* the pass's result as text; caller frees */
} pt_pass;

static pt_loc noloc(void)
{
	pt_loc l = {0};
	return l;
}

static int fail(pt_unit *u, const char *what, char *msg)
{
	pt_error_at(&u->ctx->diag, noloc(), NULL, "%s: %s", what, msg ? msg : "failed");
	free(msg);
	return -1;
}

/* ---- checking: the rules of the language, then the ones made with isl ---- */

static int run_parse(pt_unit *u)
{
	pt_parser *ps = pt_parser_new(&u->ctx->diag, u->input);
	bool ok = pt_parser_parse_file(ps, u->src);
	pt_parser_free(ps);
	return ok ? 0 : -1;
}

static int run_typecheck(pt_unit *u)
{
	if (!pt_check_pipeline(&u->ctx->diag, u->input))
		return -1;
	if (!u->ctx->isl) {
		u->ctx->isl = isl_ctx_alloc();
		isl_options_set_on_error(u->ctx->isl, ISL_ON_ERROR_CONTINUE);
	}
	return 0;
}

static int run_admissible(pt_unit *u)
{
	return pt_poly_check_admissible(u->ctx->isl, &u->ctx->diag, u->input) ? 0 : -1;
}

static int run_cases(pt_unit *u)
{
	return pt_poly_check_cases(u->ctx->isl, &u->ctx->diag, u->input) ? 0 : -1;
}

static int run_bounds(pt_unit *u)
{
	return pt_poly_check_bounds(u->ctx->isl, &u->ctx->diag, u->input) ? 0 : -1;
}

static char *dump_input(pt_unit *u)
{
	return pt_pipeline_print(u->input);
}

static char *printer_text(__isl_take isl_printer *pr)
{
	char *s = isl_printer_get_str(pr);
	isl_printer_free(pr);
	return s;
}

static char *dump_admissible(pt_unit *u)
{
	isl_space *sp = pt_poly_stage_space(u->ctx->isl, u->input, NULL, 0);
	isl_set *adm = isl_set_params(pt_poly_admissible(sp, u->input));
	isl_space_free(sp);
	isl_printer *pr = isl_printer_print_set(isl_printer_to_str(u->ctx->isl), adm);
	isl_set_free(adm);
	return printer_text(isl_printer_print_str(pr, "\n"));
}

/* Each function case's condition as a set on its stage's domain (what
 * the exclusive-cases check compares); conditions isl cannot represent
 * are said to be chosen at run time. */
static char *dump_cases(pt_unit *u)
{
	const pt_pipeline *p = u->input;
	isl_printer *pr = isl_printer_to_str(u->ctx->isl);
	for (int i = 0; i < p->nstages; i++) {
		const pt_stage *s = p->stages[i];
		if (s->red != PT_RED_NONE) {
			pr = isl_printer_print_str(pr, s->name);
			pr = isl_printer_print_str(pr, ": a reduction (every update whose condition holds applies)\n");
			continue;
		}
		isl_space *sp = pt_poly_stage_space(u->ctx->isl, p, s, s->ndim);
		isl_set *dom = pt_poly_domain_set(sp, s);
		for (int k = 0; k < s->ncases; k++) {
			isl_set *c = s->cases[k].cond ? pt_poly_cond_set(sp, s->cases[k].cond) :
				isl_set_universe(isl_space_copy(sp));
			pr = isl_printer_print_str(pr, s->name);
			pr = isl_printer_print_str(pr, " case ");
			pr = isl_printer_print_int(pr, k + 1);
			pr = isl_printer_print_str(pr, ": ");
			if (c) {
				c = isl_set_intersect(c, isl_set_copy(dom));
				pr = isl_printer_print_set(pr, c);
				isl_set_free(c);
			} else
				pr = isl_printer_print_str(pr, "(not affine: chosen at run time)");
			pr = isl_printer_print_str(pr, "\n");
		}
		isl_set_free(dom);
		isl_space_free(sp);
	}
	return printer_text(pr);
}

static bool print_access(const pt_poly_access *a, void *user)
{
	isl_printer **pr = user;
	isl_map *m = pt_poly_access_map_where(a);
	*pr = isl_printer_print_str(*pr, a->is_target ? "  write " : "  read ");
	*pr = isl_printer_print_map(*pr, m);
	*pr = isl_printer_print_str(*pr, "\n");
	isl_map_free(m);
	return true;
}

/* Every access of every stage where it is evaluated (what the bounds
 * check proves inside the callee's domain). */
static char *dump_bounds(pt_unit *u)
{
	isl_printer *pr = isl_printer_to_str(u->ctx->isl);
	for (int i = 0; i < u->input->nstages; i++) {
		pr = isl_printer_print_str(pr, u->input->stages[i]->name);
		pr = isl_printer_print_str(pr, ":\n");
		pt_poly_walk(u->ctx->isl, u->input, u->input->stages[i], print_access, &pr);
	}
	return printer_text(pr);
}

/* ---- compiling: the polyhedral model, a schedule, its AST, LLVM ---- */

static int run_inline(pt_unit *u)
{
	u->p = u->input;
	if (u->opt->no_inline)
		return 0;
	int n = 0;
	u->owned = pt_poly_inline(u->ctx->isl, u->input,
		u->opt->opt_level == PT_OPT_GROUPED ? PT_INLINE_CHEAP : PT_INLINE_ALL, &n);
	if (!u->owned)
		return fail(u, "compile", strdup("inlining failed"));
	u->p = u->owned;
	if (u->opt->time)
		fprintf(stderr, "polytile: inlined %d of %d stages\n", n, u->input->nstages);
	return 0;
}

static char *dump_inline(pt_unit *u)
{
	return pt_pipeline_print(u->p);
}

/* Whether u compiles for a GPU (the CUDA target or its emulation). */
static bool gpu_backend(const pt_unit *u)
{
	return u->opt->backend == PT_BACKEND_CUDA || u->opt->backend == PT_BACKEND_CUDA_EMU;
}

/* Reductions factored for the CPU's threads and the CUDA backends'
 * blocks (MPI distributes reductions its own way); float ones only under
 * --reassociate. */
static int run_rfactor(pt_unit *u)
{
	bool gpu = gpu_backend(u);
	if (u->opt->backend != PT_BACKEND_CPU && !gpu) {
		u->rfactor_log = strdup("reductions not factored: factoring is for the cpu and cuda backends\n");
		return 0;
	}
	int64_t *ip = calloc((size_t)u->p->nparams + 1, sizeof(int64_t));
	int n = 0;
	if (ip)
		pt_group_estimates(u->p, u->opt, ip);
	pt_pipeline *q = ip ? pt_poly_rfactor_for(u->p, ip, u->opt->reassociate,
		gpu ? PT_RF_GPU : PT_RF_CPU, &u->rfactor_log, &n) : NULL;
	free(ip);
	if (!q)
		return fail(u, "compile", strdup("factoring reductions failed (out of memory)"));
	if (!n) {
		pt_pipeline_free(q);
		return 0;
	}
	if (u->owned)
		pt_pipeline_free(u->owned);
	u->p = u->owned = q;
	return 0;
}

static char *dump_rfactor(pt_unit *u)
{
	char *prog = pt_pipeline_print(u->p);
	size_t n = strlen(u->rfactor_log ? u->rfactor_log : "") + strlen(prog ? prog : "") + 1;
	char *text = malloc(n);
	if (text)
		snprintf(text, n, "%s%s", u->rfactor_log ? u->rfactor_log : "", prog ? prog : "");
	free(prog);
	return text;
}

static int run_statements(pt_unit *u)
{
	u->model = pt_model_new(u->ctx->isl, u->p);
	return u->model ? 0 : fail(u, "compile", strdup("the statements' accesses could not be built"));
}

static char *dump_statements(pt_unit *u)
{
	return pt_model_stmts_str(u->model);
}

/* Whether the tile model chooses the sizes: no --tile (nor a
 * configuration's), no --fixed-tiles. */
static bool model_sizes(const pt_unit *u)
{
	return u->opt->ntile == 0 && !u->opt->fixed_tiles;
}

/* What the grouping and the tile model plan for: the GPU for the CUDA
 * backends, else the CPU's facts (NULL without the tile model). */
static const pt_target_desc *target_desc(const pt_unit *u, pt_target_desc *buf)
{
	if (!u->machine)
		return NULL;
	if (gpu_backend(u)) {
		char err[400];
		pt_target_desc_gpu(buf);
		pt_target_desc_gpu_env(buf, err, sizeof(err));   /* run_group refused a bad one */
		return buf;
	}
	return pt_target_desc_cpu(u->machine, buf);
}

/* -O1: the stages grouped (grouping/greedy.c) with its fixed sizes,
 * and, with the tile model on, at the sizes the model would give each
 * candidate too; "tiles" chooses the final ones. */
static int run_group(pt_unit *u)
{
	if (u->opt->opt_level != PT_OPT_GROUPED)
		return 0;
	if (model_sizes(u)) {
		char *err = NULL;
		u->machine = calloc(1, sizeof(*u->machine));
		if (!u->machine || pt_machine_facts(u->opt, u->machine, &err))
			return fail(u, "compile", err ? err : strdup("out of memory"));
	}
	pt_target_desc td;
	char bad[400];
	if (gpu_backend(u) && (pt_target_desc_gpu(&td), pt_target_desc_gpu_env(&td, bad, sizeof(bad))))
		return fail(u, "compile", strdup(bad));
	u->tiling = pt_group_greedy(u->ctx->isl, u->p, u->opt, target_desc(u, &td),
		u->model ? u->model->accesses : NULL, &u->group_log);
	return u->tiling ? 0 : fail(u, "compile", u->group_log ? strdup(u->group_log) : strdup("grouping failed"));
}

static char *dump_group(pt_unit *u)
{
	if (!u->tiling)
		return strdup("no groups: the naive schedule (-O0)\n");
	char *t = pt_tiling_str(u->tiling);
	size_t n = strlen(t) + strlen(u->group_log ? u->group_log : "") + 1;
	char *s = malloc(n);
	snprintf(s, n, "%s%s", t, u->group_log ? u->group_log : "");
	free(t);
	return s;
}

/* -O1 on the CPU: each untiled group of one time-iterated stage time
 * tiled where grouping/time_tile.h's rule and model say so. */
static void time_tiles(pt_unit *u)
{
	if (u->opt->backend != PT_BACKEND_CPU)
		return;
	int64_t *ip = calloc((size_t)u->p->nparams + 1, sizeof(int64_t));
	pt_group_estimates(u->p, u->opt, ip);
	pt_strbuf b = {0};
	for (int i = 0; i < u->tiling->ngroups; i++) {
		pt_group *g = &u->tiling->groups[i];
		int64_t slope[PT_MAX_DIMS];
		if (g->ntile || g->nstages != 1 || !pt_stage_reads(g->stages[0], g->stages[0]) ||
		    pt_group_recurrence_fits(g->stages[0]))
			continue;
		const char *why = pt_time_tile_unfit(u->ctx->isl, u->p, g->stages[0], slope);
		if (why)
			pt_sb_printf(&b, "%s: step by step (not time tiled: %s)\n", g->stages[0]->name, why);
		else
			pt_time_tile_plan(g, ip, u->machine, u->opt, slope, &b);
	}
	free(ip);
	u->time_log = pt_sb_take(&b);
}

/* -O1: each tiled group's sizes from the tile model (grouping/
 * tile_model.c) unless --tile (or a configuration's) gave them; then the
 * model's statements of each tiled group moved into its tiles. */
static int run_tiles(pt_unit *u)
{
	if (!u->tiling)
		return 0;
	if (model_sizes(u)) {
		u->model_tiles = true;
		int64_t *ip = calloc((size_t)u->p->nparams + 1, sizeof(int64_t));
		pt_group_estimates(u->p, u->opt, ip);
		/* per-group entries: their own thresholds, their tiles kept */
		pt_group_choice *ch = calloc((size_t)u->tiling->ngroups + 1, sizeof(*ch));
		pt_target_desc td;
		const pt_target_desc *target = target_desc(u, &td);
		pt_group_greedy_choices(u->ctx->isl, u->p, u->opt, target, u->model ? u->model->accesses : NULL,
			u->tiling, ch);
		pt_strbuf b = {0};
		pt_sb_printf(&b, "machine: ");
		pt_machine_text(&b, u->machine);
		pt_sb_printf(&b, "\n");
		for (int i = 0; i < u->tiling->ngroups; i++) {
			pt_group *g = &u->tiling->groups[i];
			if (!g->ntile)
				continue;
			pt_sb_printf(&b, "group %d:", i);
			for (int s = 0; s < g->nstages; s++)
				pt_sb_printf(&b, " %s", g->stages[s]->name);
			pt_sb_printf(&b, "\n");
			if (ch[i].given)
				pt_sb_printf(&b, "tiles given for group '%s' (--config)\n", pt_group_name(g));
			else
				pt_tile_model_choose(u->p, g, ip, ch[i].theta, target, &b);
		}
		free(ch);
		free(ip);
		u->tiles_log = pt_sb_take(&b);
	}
	time_tiles(u);
	if (!pt_model_tile(u->model, u->tiling, u->opt->separate_tiles))
		return fail(u, "compile", strdup("the grouped statements could not be built"));
	return 0;
}

static char *dump_tiles(pt_unit *u)
{
	if (!u->tiling)
		return strdup("no groups: the naive schedule (-O0)\n");
	pt_strbuf b = {0};
	if (u->model_tiles)
		pt_sb_printf(&b, "%s", u->tiles_log ? u->tiles_log : "");
	else
		pt_sb_printf(&b, "%s: the tile model not used\n", u->opt->ntile ? "sizes given (--tile or --config)" :
			"--tile fixed: the grouping's fixed sizes");
	pt_sb_printf(&b, "%s", u->time_log ? u->time_log : "");
	char *t = pt_tiling_str(u->tiling);
	pt_sb_printf(&b, "%s", t);
	free(t);
	return pt_sb_take(&b);
}

/* Under the built-in schedules only those inside a loop nest matter
 * (model.h); a schedule from the options may interleave any of them. */
static bool builtin_schedule(const pt_unit *u)
{
	return u->schedule_fn == pt_schedule_naive || u->schedule_fn == pt_schedule_model;
}

static int run_dependences(pt_unit *u)
{
	bool own = builtin_schedule(u);
	return pt_model_compute_deps(u->model, own) ? 0 : fail(u, "compile", strdup("isl could not compute the dependences"));
}

static char *dump_dependences(pt_unit *u)
{
	char *d = pt_model_deps_str(u->model);
	if (d && !*d) {
		free(d);
		d = strdup(!builtin_schedule(u) ? "none\n" :
			"none inside a loop nest (a tiled group's carries none by construction)\n");
	}
	return d;
}

__isl_give isl_schedule *pt_schedule_naive(const pt_model *m, const pt_options *opt, void *user)
{
	(void)opt;
	(void)user;
	return pt_model_naive_schedule(m);
}

__isl_give isl_schedule *pt_schedule_model(const pt_model *m, const pt_options *opt, void *user)
{
	(void)opt;
	(void)user;
	return pt_model_schedule(m);
}

static int run_schedule(pt_unit *u)
{
	u->schedule = u->schedule_fn(u->model, u->opt, u->schedule_user);
	if (!u->schedule)
		return fail(u, "compile", strdup("no schedule"));
	isl_union_set *d = isl_schedule_get_domain(u->schedule);
	isl_bool same = isl_union_set_is_equal(d, u->model->domain);
	isl_union_set_free(d);
	if (same != isl_bool_true)
		return fail(u, "internal error", strdup("the schedule does not cover exactly the statements' instances"));
	return 0;
}

static char *dump_schedule(pt_unit *u)
{
	isl_printer *pr = isl_printer_to_str(u->ctx->isl);
	pr = isl_printer_set_yaml_style(pr, ISL_YAML_STYLE_BLOCK);
	pr = isl_printer_print_schedule(pr, u->schedule);
	return printer_text(isl_printer_print_str(pr, "\n"));
}

/* Marks each loop parallel or serial from the dependences, in the space
 * of the schedule being generated. */
static __isl_give isl_id *mark_loop(__isl_keep isl_ast_build *build, void *user)
{
	const pt_model *m = user;
	isl_space *sp = isl_ast_build_get_schedule_space(build);
	int depth = (int)isl_space_dim(sp, isl_dim_set) - 1;
	isl_space_free(sp);
	return pt_target_mark(isl_ast_build_get_ctx(build), pt_model_loop_is_parallel(m, build), depth);
}

/* Where the intermediate stages live under the schedule (storage.h),
 * sized at the estimates for the dump and explain. */
static int run_storage(pt_unit *u)
{
	int64_t *ip = calloc((size_t)u->p->nparams + 1, sizeof(int64_t));
	pt_group_estimates(u->p, u->opt, ip);
	u->storage = pt_storage_plan(u->model, u->schedule, ip);
	if (u->storage && u->tiling) {
		/* outputs past the shared cache stream (storage.h) */
		pt_machine facts, *m = u->machine;
		char *err = NULL;
		if (!m && !pt_machine_facts(u->opt, &facts, &err))
			m = &facts;
		free(err);
		pt_storage_mark_streams(u->storage, u->p, u->tiling, ip, m ? (double)m->l3 : 0);
	}
	free(ip);
	return u->storage ? 0 : fail(u, "compile", strdup("isl could not plan the storage"));
}

static char *dump_storage(pt_unit *u)
{
	return pt_storage_str(u->storage, u->p);
}

/* The kernel descriptions (poly/kernel.h) and where the target puts
 * each stage (storage.h). */
static int run_kernels(pt_unit *u)
{
	char *err = NULL;
	if (!u->target && !(u->target = pt_target_for(u->opt->backend, &err)))
		return fail(u, "compile", err);
	pt_storage_place(u->storage, u->p, u->tiling, u->target->placement);
	u->kernels = pt_kernels_build(u->model);
	return u->kernels ? 0 : fail(u, "compile", strdup("isl could not describe the kernels"));
}

static char *dump_kernels(pt_unit *u)
{
	pt_strbuf b = {0};
	pt_sb_printf(&b, "target %s\n", u->target->name);
	char *k = pt_kernels_str(u->kernels, u->ctx->isl);
	pt_sb_printf(&b, "%s", k);
	free(k);
	pt_sb_printf(&b, "placement:");
	for (int i = 0; i < u->p->nstages; i++)
		pt_sb_printf(&b, " %s %s%s", u->p->stages[i]->name, pt_placement_name(u->storage->place[i]),
			i + 1 < u->p->nstages ? "," : "\n");
	return pt_sb_take(&b);
}

/* The MPI target's split of the kernels among ranks (poly/distribute.h):
 * the schedule's instances become a rank's parts. */
static int run_distribute(pt_unit *u)
{
	if (u->opt->backend != PT_BACKEND_MPI)
		return 0;
	int64_t *ip = calloc((size_t)u->p->nparams + 1, sizeof(int64_t));
	pt_group_estimates(u->p, u->opt, ip);
	const pt_options *o = u->opt;
	pt_dist_setup su = { o->mpi_strategy, o->mpi_ranks, pt_dist_costs_of(o), ip, u->storage->fold,
		o->mpi_local_outputs, o->mpi_grid, o->mpi_steps };
	u->dist = pt_dist_build(u->model, u->kernels, &su);
	free(ip);
	if (!u->dist)
		return fail(u, "compile", strdup("isl could not split the kernels among ranks"));
	pt_dist_place(u->dist, u->kernels, u->p, u->storage->slot, u->storage->place);
	u->schedule = isl_schedule_intersect_domain(u->schedule, pt_dist_domain(u->dist, u->model, u->kernels));
	return u->schedule ? 0 : fail(u, "compile", strdup("isl could not limit the schedule to a rank's parts"));
}

static char *dump_distribute(pt_unit *u)
{
	if (!u->dist)
		return strdup("one address space: nothing to split (--backend mpi splits the kernels among ranks)\n");
	return pt_dist_str(u->dist, u->kernels);
}

/* The AST build's after-mark callback: a tiled kernel's "tile" mark records
 * its subtree in the kernel, for targets that map it as a whole. */
static __isl_give isl_ast_node *after_mark(__isl_take isl_ast_node *node, __isl_keep isl_ast_build *build,
	void *user)
{
	(void)build;
	pt_kernels *ks = user;
	isl_id *id = isl_ast_node_mark_get_id(node);
	const pt_group *g = id && !strcmp(isl_id_get_name(id), "tile") ? isl_id_get_user(id) : NULL;
	isl_id_free(id);
	pt_kernel *k = (pt_kernel *)pt_kernels_of_group(ks, g);
	if (k && !k->ast)
		k->ast = isl_ast_node_copy(node);
	return node;
}

static int run_ast(pt_unit *u)
{
	/* the params' type ranges stay out of the context: their huge
	 * constants slow isl's AST generation down, and a weaker context is
	 * always safe */
	isl_ast_build *build = isl_ast_build_from_context(isl_set_copy(u->model->context));
	build = isl_ast_build_set_before_each_for(build, &mark_loop, u->model);
	build = isl_ast_build_set_after_each_mark(build, &after_mark, u->kernels);
	u->tree = isl_ast_build_node_from_schedule(build, isl_schedule_copy(u->schedule));
	isl_ast_build_free(build);
	return u->tree ? 0 : fail(u, "compile", strdup("isl could not build the schedule's AST"));
}

/* A for loop: the outermost parallel loop (the one the CPU target runs
 * in parallel) gets an OpenMP pragma, other parallel loops a comment. */
static __isl_give isl_printer *print_for(__isl_take isl_printer *pr,
	__isl_take isl_ast_print_options *options, __isl_keep isl_ast_node *node, void *user)
{
	int *inside = user;
	bool par = pt_target_marks(node) & PT_MARK_PARALLEL;
	if (par) {
		pr = isl_printer_start_line(pr);
		pr = isl_printer_print_str(pr, *inside == 0 ? "#pragma omp parallel for" : "// parallel");
		pr = isl_printer_end_line(pr);
	}
	*inside += par;
	pr = isl_ast_node_for_print(node, pr, options);
	*inside -= par;
	return pr;
}

static char *dump_ast(pt_unit *u)
{
	isl_printer *pr = isl_printer_to_str(u->ctx->isl);
	pr = isl_printer_set_output_format(pr, ISL_FORMAT_C);
	int inside = 0;
	isl_ast_print_options *po = isl_ast_print_options_alloc(u->ctx->isl);
	po = isl_ast_print_options_set_print_for(po, &print_for, &inside);
	return printer_text(isl_ast_node_print(u->tree, pr, po));
}

static int run_llvm_ir(pt_unit *u)
{
	char *err = NULL;
	u->tm = pt_machine_create(u->opt->target, &err);
	if (!u->tm) {
		pt_error_at(&u->ctx->diag, noloc(), "give TRIPLE[:CPU[:FEATURES]], like x86_64-linux-gnu:znver3 or aarch64-linux-gnu",
			"target %s: %s", u->opt->target ? u->opt->target : "(host)", err);
		free(err);
		return -1;
	}
	u->mod = pt_codegen_module(u->llc, u->tm, u->target, u->p, u->model, u->storage, u->kernels, u->dist, u->tree,
		u->fname, &err);
	return u->mod ? 0 : fail(u, "internal error: invalid LLVM IR", err);
}

static char *dump_module(pt_unit *u)
{
	char *s = LLVMPrintModuleToString(u->mod);
	char *r = strdup(s);
	LLVMDisposeMessage(s);
	return r;
}

/* The kernels' cubin beside their PTX, for an object file (cubin.c). */
static int run_cubin(pt_unit *u)
{
	if (u->opt->backend != PT_BACKEND_CUDA)
		return 0;
	if (!u->aot) {
		u->cubin_log = strdup("no cubin: a run in process loads the PTX (the driver compiles it at the first "
			"launch); polytile compile adds one\n");
		return 0;
	}
	char *err = NULL;
	return pt_cubin_embed(u->mod, u->fname, &u->cubin_log, &err) ? fail(u, "cubin", err) : 0;
}

static char *dump_cubin(pt_unit *u)
{
	return strdup(u->cubin_log ? u->cubin_log : "no cubin: not the cuda backend\n");
}

static bool listed(const char *list, const char *pass);

static int run_optimize(pt_unit *u)
{
	char *err = NULL;
	/* the vectors the tile model planned for (-O0: what it would) */
	pt_machine facts;
	if (!u->machine && pt_machine_facts(u->opt, &facts, &err))
		return fail(u, "compile", err);
	pt_machine_configure(u->mod, u->tm, 8 * (u->machine ? u->machine : &facts)->vector_bytes);
	/* a dump of this pass prints the optimized module: whole then */
	if (u->jobs > 0 && u->target->split_objects && !listed(u->opt->dump, "optimize")) {
		u->split = pt_split_new(u->mod, u->tm);
		if (u->split) {
			u->mod = NULL;   /* now in the pieces */
			int n = pt_split_count(u->split), t = u->jobs < n ? u->jobs : n;
			int c = pt_split_cold_count(u->split);
			char cold[40] = "";
			if (c)
				snprintf(cold, sizeof(cold), " (%d of cold loops)", c);
			if (u->opt->time)
				fprintf(stderr, "polytile: LLVM on %d pieces%s, %d thread%s\n", n, cold, t, t > 1 ? "s" : "");
			return pt_split_optimize(u->split, u->jobs, &err) ? fail(u, "optimize", err) : 0;
		}
	}
	return pt_machine_optimize(u->mod, u->tm, &err) ? fail(u, "optimize", err) : 0;
}

/* The passes, in the order they run.  Checking (pt_parse_*) runs
 * "parse" through "bounds", the builder's pt_build_end "typecheck"
 * through "bounds"; compiling runs "inline" through "optimize", then
 * LLJIT or an object file (compile.c). */
static const pt_pass passes[] = {
	{ "parse",       run_parse,        dump_input },       /* text -> IR */
	{ "typecheck",   run_typecheck,    dump_input },       /* names, types, DAG order */
	{ "admissible",  run_admissible,   dump_admissible },  /* params where every stage is non-empty */
	{ "cases",       run_cases,        dump_cases },       /* affine cases exclusive */
	{ "bounds",      run_bounds,       dump_bounds },      /* every access inside its callee */
	{ "inline",      run_inline,       dump_inline },      /* point-wise producers substituted */
	{ "rfactor",     run_rfactor,      dump_rfactor },     /* reductions split into partials and a merge */
	{ "statements",  run_statements,   dump_statements },  /* statements, domains, accesses */
	{ "group",       run_group,        dump_group },       /* -O1: groups in overlapped tiles */
	{ "tiles",       run_tiles,        dump_tiles },       /* -O1: their sizes from the tile model */
	{ "dependences", run_dependences,  dump_dependences }, /* flow dependences (isl) */
	{ "schedule",    run_schedule,     dump_schedule },    /* the schedule tree the options choose */
	{ "storage",     run_storage,      dump_storage },     /* full buffers: folding, reuse */
	{ "kernels",     run_kernels,      dump_kernels },     /* what the target maps, where data lives */
	{ "distribute",  run_distribute,   dump_distribute },  /* MPI: each kernel's parts among ranks */
	{ "ast",         run_ast,          dump_ast },         /* isl's AST, loops marked parallel */
	{ "llvm-ir",     run_llvm_ir,      dump_module },      /* LLVM IR of the ABI functions */
	{ "cubin",       run_cubin,        dump_cubin },       /* CUDA objects: the PTX through ptxas */
	{ "optimize",    run_optimize,     dump_module },      /* O3 for the target machine */
};
enum { NPASSES = sizeof(passes) / sizeof(passes[0]) };

static int pass_index(const char *name, size_t len)
{
	for (int i = 0; i < NPASSES; i++)
		if (strlen(passes[i].name) == len && !strncmp(passes[i].name, name, len))
			return i;
	return -1;
}

const char *pt_pass_list(void)
{
	return "parse,typecheck,admissible,cases,bounds,inline,rfactor,statements,group,tiles,dependences,"
		"schedule,storage,kernels,distribute,ast,llvm-ir,cubin,optimize";
}

/* Whether list names pass (or is "all"). */
static bool listed(const char *list, const char *pass)
{
	if (!list)
		return false;
	if (!strcmp(list, "all"))
		return true;
	size_t n = strlen(pass);
	for (const char *s = list; *s;) {
		size_t k = strcspn(s, ",");
		if (k == n && !strncmp(s, pass, n))
			return true;
		s += k + (s[k] == ',');
	}
	return false;
}

bool pt_passes_check_dump(pt_ctx *ctx, const char *list)
{
	if (!list || !strcmp(list, "all"))
		return true;
	for (const char *s = list; *s;) {
		size_t k = strcspn(s, ",");
		if (pass_index(s, k) < 0) {
			pt_error_at(&ctx->diag, noloc(), NULL, "--dump=%s: no pass named '%.*s'; the passes are %s, or all",
				list, (int)k, s, pt_pass_list());
			return false;
		}
		s += k + (s[k] == ',');
	}
	return true;
}

const char *pt_passes_last_dumped(const char *list)
{
	for (int i = NPASSES - 1; i >= 0; i--)
		if (listed(list, passes[i].name))
			return passes[i].name;
	return NULL;
}

bool pt_passes_checking(const char *pass)
{
	int i = pass_index(pass, strlen(pass));
	return i >= 0 && i < pass_index("inline", 6);
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void dump(pt_unit *u, const pt_pass *pass)
{
	char *text = pass->dump(u);
	if (u->opt->dump_fn) {
		u->opt->dump_fn(pass->name, text ? text : "", u->opt->dump_user);
	} else {
		printf("---- %s ----\n%s", pass->name, text ? text : "");
		fflush(stdout);
	}
	free(text);
}

int pt_passes_run(pt_unit *u, const char *first, const char *last)
{
	int i = pass_index(first, strlen(first)), j = pass_index(last, strlen(last));
	if (i < 0 || j < i)
		return fail(u, "internal error", strdup("bad pass range"));
	u->t = now_ms();
	for (; i <= j; i++) {
		if (passes[i].run(u))
			return -1;
		double t = now_ms();
		if (u->opt->time)
			fprintf(stderr, "polytile: %-12s %8.1f ms\n", passes[i].name, t - u->t);
		if (listed(u->opt->dump, passes[i].name))
			dump(u, &passes[i]);
		u->t = now_ms();
	}
	return 0;
}

char *pt_passes_dump(pt_unit *u, const char *pass)
{
	int i = pass_index(pass, strlen(pass));
	return i >= 0 ? passes[i].dump(u) : NULL;
}

void pt_unit_phase(pt_unit *u, const char *name)
{
	double t = now_ms();
	if (u->opt->time)
		fprintf(stderr, "polytile: %-12s %8.1f ms\n", name, t - u->t);
	u->t = t;
}

void pt_unit_mark(pt_unit *u)
{
	u->t = now_ms();
}

void pt_unit_init(pt_unit *u, pt_ctx *ctx, const pt_options *opt)
{
	memset(u, 0, sizeof(*u));
	u->ctx = ctx;
	u->opt = opt ? opt : &ctx->opt;
	/* the grouped model's schedule is its tiling's */
	u->schedule_fn = u->opt->opt_level == PT_OPT_GROUPED ? pt_schedule_model : pt_schedule_naive;
}

void pt_unit_clear(pt_unit *u)
{
	pt_split_free(u->split);
	if (u->mod)
		LLVMDisposeModule(u->mod);
	if (u->tm)
		LLVMDisposeTargetMachine(u->tm);
	isl_ast_node_free(u->tree);
	isl_schedule_free(u->schedule);
	pt_storage_free(u->storage);
	pt_kernels_free(u->kernels);
	pt_dist_free(u->dist);
	pt_model_free(u->model);
	pt_tiling_free(u->tiling);
	free(u->group_log);
	free(u->tiles_log);
	free(u->time_log);
	free(u->rfactor_log);
	free(u->cubin_log);
	free(u->machine);
	if (u->owned)
		pt_pipeline_free(u->owned);
	memset(u, 0, sizeof(*u));
}
