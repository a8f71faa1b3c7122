/* describe.c: textual views of a checked pipeline: the `polytile check`
 * listing and the Graphviz source of its DAG. */
#include <stdlib.h>
#include <string.h>

#include "polytile.h"
#include "ctx.h"
#include "ir.h"
#include "print.h"

const char *pt_pipeline_name(const pt_pipeline *p)
{
	return p->name;
}

int pt_pipeline_stage_count(const pt_pipeline *p)
{
	return p->nstages;
}

static bool is_call_to(const pt_expr *e, const void *target)
{
	return e->kind == PT_E_CALL && (e->stage == target || (const void *)e->image == target);
}

/* Whether e (or a subtree) calls the named stage or image. */
static bool calls(const pt_expr *e, const void *target)
{
	return pt_expr_any(e, is_call_to, target);
}

static bool stage_calls(const pt_stage *s, const void *target)
{
	for (int c = 0; c < s->ncases; c++) {
		const pt_case *k = &s->cases[c];
		if ((k->cond && calls(k->cond, target)) || calls(k->value, target))
			return true;
		for (int d = 0; k->target && d < s->ndim; d++)
			if (calls(k->target[d], target))
				return true;
	}
	return false;
}

/* b's text; NULL when out of memory, said in the ctx that owns p. */
static char *taken(const pt_pipeline *p, pt_strbuf *b)
{
	char *s = pt_sb_take(b);
	if (!s && p->owner) {
		pt_loc none = {0};
		pt_error_at(&p->owner->ctx->diag, none, NULL, "out of memory describing the pipeline");
	}
	return s;
}

char *pt_pipeline_describe(const pt_pipeline *p)
{
	pt_strbuf b = {0};
	pt_sb_printf(&b, "pipeline %s\n", p->name);
	for (int i = 0; i < p->nparams; i++) {
		pt_sb_printf(&b, "  param %s : %s", p->params[i].name, pt_ir_type_name(p->params[i].type));
		if (p->params[i].has_estimate)
			pt_sb_printf(&b, " = %g", p->params[i].estimate);
		pt_sb_printf(&b, "\n");
	}
	for (int i = 0; i < p->nimages; i++) {
		const pt_image *im = p->images[i];
		pt_sb_printf(&b, "  image %s : %s [", im->name, pt_ir_type_name(im->type));
		for (int d = 0; d < im->ndim; d++) {
			if (d)
				pt_sb_printf(&b, ", ");
			pt_expr_print(im->extent[d], NULL, p, &b);
		}
		pt_sb_printf(&b, "]\n");
	}
	for (int i = 0; i < p->nstages; i++) {
		const pt_stage *s = p->stages[i];
		pt_sb_printf(&b, "  %s %s(", s->red ? "reduce" : "func", s->name);
		for (int d = 0; d < s->ndim; d++) {
			pt_sb_printf(&b, "%s%s : ", d ? ", " : "", s->vars[d]);
			pt_interval_print(&s->dom[d], NULL, p, &b);
		}
		pt_sb_printf(&b, ") : %s", pt_ir_type_name(s->type));
		if (s->red) {
			pt_sb_printf(&b, " %s over (", pt_redop_name(s->red));
			for (int d = 0; d < s->nrdim; d++) {
				pt_sb_printf(&b, "%s%s : ", d ? ", " : "", s->vars[s->ndim + d]);
				pt_interval_print(&s->rdom[d], NULL, p, &b);
			}
			pt_sb_printf(&b, ")");
		}
		pt_sb_printf(&b, ", %d case%s", s->ncases, s->ncases == 1 ? "" : "s");
		pt_sb_printf(&b, ", reads [");
		bool first = true;
		for (int j = 0; j < p->nimages; j++)
			if (stage_calls(s, p->images[j])) {
				pt_sb_printf(&b, "%s%s", first ? "" : ", ", p->images[j]->name);
				first = false;
			}
		for (int j = 0; j < p->nstages; j++)
			if (stage_calls(s, p->stages[j])) {
				pt_sb_printf(&b, "%s%s", first ? "" : ", ", p->stages[j]->name);
				first = false;
			}
		pt_sb_printf(&b, "]%s\n", s->is_output ? " output" : "");
	}
	pt_sb_printf(&b, "%d stages\n", p->nstages);
	return taken(p, &b);
}

char *pt_pipeline_dot(const pt_pipeline *p)
{
	pt_strbuf b = {0};
	pt_sb_printf(&b, "digraph \"%s\" {\n  rankdir=TB;\n  node [fontname=\"Helvetica\"];\n", p->name);
	for (int i = 0; i < p->nimages; i++)
		pt_sb_printf(&b, "  \"%s\" [shape=box, style=filled, fillcolor=\"#dde8f5\", label=\"%s\\n%s\"];\n",
			p->images[i]->name, p->images[i]->name, pt_ir_type_name(p->images[i]->type));
	for (int i = 0; i < p->nstages; i++) {
		const pt_stage *s = p->stages[i];
		pt_sb_printf(&b, "  \"%s\" [shape=%s%s, label=\"%s\\n%s\"];\n", s->name,
			s->red ? "hexagon" : "ellipse",
			s->is_output ? ", style=filled, fillcolor=\"#f5e0c0\"" : "",
			s->name, pt_ir_type_name(s->type));
	}
	for (int i = 0; i < p->nstages; i++) {
		const pt_stage *s = p->stages[i];
		for (int j = 0; j < p->nimages; j++)
			if (stage_calls(s, p->images[j]))
				pt_sb_printf(&b, "  \"%s\" -> \"%s\";\n", p->images[j]->name, s->name);
		for (int j = 0; j < p->nstages; j++)
			if (stage_calls(s, p->stages[j]))
				pt_sb_printf(&b, "  \"%s\" -> \"%s\";\n", p->stages[j]->name, s->name);
	}
	pt_sb_printf(&b, "}\n");
	return taken(p, &b);
}
