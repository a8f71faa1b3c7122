/* naive_schedule.c: stages as isl statements in topological order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/ast.h>
#include <isl/ast_build.h>
#include <isl/local_space.h>
#include <isl/map.h>
#include <isl/printer.h>
#include <isl/val.h>

#include "isl_expr.h"
#include "naive_schedule.h"

/* The most dimensions any statement has, for a uniform schedule range. */
static int max_dims(const pt_pipeline *p)
{
	int m = 0;
	for (int i = 0; i < p->nstages; i++) {
		const pt_stage *s = p->stages[i];
		int n = s->red ? (s->ndim > s->nrdim ? s->ndim : s->nrdim) : s->ndim;
		m = n > m ? n : m;
	}
	return m;
}

/* domain -> [order, x0, ..., x(n-1), 0, ...] with 1 + width outputs. */
static __isl_give isl_map *schedule_of(__isl_take isl_set *domain, int order, int width)
{
	isl_space *dsp = isl_set_get_space(domain);
	isl_size n = isl_space_dim(dsp, isl_dim_set);
	isl_space *sp = isl_space_map_from_domain_and_range(isl_space_copy(dsp),
		isl_space_set_from_params(isl_space_params(isl_space_copy(dsp))));
	sp = isl_space_add_dims(sp, isl_dim_out, (unsigned)(1 + width));
	isl_local_space *ls = isl_local_space_from_space(dsp);
	isl_aff_list *list = isl_aff_list_alloc(isl_set_get_ctx(domain), 1 + width);
	isl_ctx *ctx = isl_set_get_ctx(domain);
	list = isl_aff_list_add(list, isl_aff_val_on_domain(isl_local_space_copy(ls), isl_val_int_from_si(ctx, order)));
	for (int d = 0; d < width; d++)
		list = isl_aff_list_add(list, d < n ?
			isl_aff_var_on_domain(isl_local_space_copy(ls), isl_dim_set, (unsigned)d) :
			isl_aff_val_on_domain(isl_local_space_copy(ls), isl_val_zero(ctx)));
	isl_local_space_free(ls);
	isl_multi_aff *ma = isl_multi_aff_from_aff_list(sp, list);
	return isl_map_intersect_domain(isl_map_from_multi_aff(ma), domain);
}

/* The box of n intervals (domain or reduction domain) named name. */
static __isl_give isl_set *box(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *s, bool red, const char *name)
{
	pt_stage tmp = *s;
	if (red) {
		/* view the reduction domain as a stage of its own for conversion */
		tmp.ndim = s->nrdim;
		tmp.dom = s->rdom;
		tmp.vars = s->vars + s->ndim;
	}
	isl_space *sp = pt_poly_stage_space(ctx, p, &tmp, tmp.ndim);
	isl_set *set = pt_poly_domain_set(sp, &tmp);
	isl_space_free(sp);
	return set ? isl_set_set_tuple_name(set, name) : NULL;
}

__isl_give isl_union_map *pt_poly_naive_schedule(isl_ctx *ctx, const pt_pipeline *p)
{
	int width = max_dims(p), order = 0;
	isl_union_map *sched = isl_union_map_empty(isl_space_params_alloc(ctx, 0));
	for (int i = 0; i < p->nstages && sched; i++) {
		const pt_stage *s = p->stages[i];
		char name[32];
		snprintf(name, sizeof(name), "%s%d", s->red ? "I" : "S", i);
		isl_set *dom = box(ctx, p, s, false, name);
		if (!dom)
			return isl_union_map_free(sched);
		sched = isl_union_map_add_map(sched, schedule_of(dom, order++, width));
		if (!s->red)
			continue;
		snprintf(name, sizeof(name), "U%d", i);
		isl_set *rdom = box(ctx, p, s, true, name);
		if (!rdom)
			return isl_union_map_free(sched);
		sched = isl_union_map_add_map(sched, schedule_of(rdom, order++, width));
	}
	return sched;
}

char *pt_poly_naive_ast_c(isl_ctx *ctx, const pt_pipeline *p)
{
	isl_union_map *sched = pt_poly_naive_schedule(ctx, p);
	if (!sched)
		return NULL;
	isl_space *sp = pt_poly_stage_space(ctx, p, NULL, 0);
	isl_set *context = isl_set_params(isl_set_universe(isl_space_copy(sp)));
	context = isl_set_intersect(context, pt_poly_admissible(sp, p));
	isl_space_free(sp);
	isl_ast_build *build = isl_ast_build_from_context(context);
	isl_ast_node *tree = isl_ast_build_node_from_schedule_map(build, sched);
	isl_ast_build_free(build);
	if (!tree)
		return NULL;
	isl_printer *pr = isl_printer_to_str(ctx);
	pr = isl_printer_set_output_format(pr, ISL_FORMAT_C);
	pr = isl_printer_print_ast_node(pr, tree);
	char *text = isl_printer_get_str(pr);
	isl_printer_free(pr);
	isl_ast_node_free(tree);
	return text;
}
