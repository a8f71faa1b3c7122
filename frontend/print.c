/* print.c: the IR of a pipeline as text (see print.h). */
#include <stdlib.h>

#include "print.h"
#include "update.h"

void pt_interval_print(const pt_interval *iv, const pt_stage *s, const pt_pipeline *p, pt_strbuf *b)
{
	pt_expr_print(iv->lo, s, p, b);
	pt_sb_printf(b, " .. ");
	pt_expr_print(iv->hi, s, p, b);
	if (iv->step != 1)
		pt_sb_printf(b, " step %lld", (long long)iv->step);
}

static void vars(pt_strbuf *b, const pt_pipeline *p, const pt_stage *s, int first, int n,
	const pt_interval *dom)
{
	for (int d = 0; d < n; d++) {
		pt_sb_printf(b, "%s%s : ", d ? ", " : "", s->vars[first + d]);
		pt_interval_print(&dom[d], s, p, b);
	}
}

static void stage(pt_strbuf *b, const pt_pipeline *p, const pt_stage *s)
{
	pt_sb_printf(b, "%s %s(", s->red != PT_RED_NONE ? "reduce" : "func", s->name);
	vars(b, p, s, 0, s->ndim, s->dom);
	pt_sb_printf(b, ")");
	if (s->red != PT_RED_NONE) {
		pt_sb_printf(b, " over (");
		vars(b, p, s, s->ndim, s->nrdim, s->rdom);
		pt_sb_printf(b, ") %s", pt_redop_name(s->red));
	}
	pt_sb_printf(b, " : %s%s\n", pt_ir_type_name(s->type), s->is_output ? "  # output" : "");
	if (s->init) {
		pt_sb_printf(b, "  init ");
		pt_expr_print(s->init, s, p, b);
		pt_sb_printf(b, "\n");
	}
	for (int k = 0; k < s->ncases; k++) {
		const pt_case *c = &s->cases[k];
		pt_sb_printf(b, "  | ");
		if (c->cond) {
			pt_expr_print(c->cond, s, p, b);
			pt_sb_printf(b, " : ");
		}
		if (c->target) {
			pt_sb_printf(b, "%s(", s->name);
			for (int d = 0; d < s->ndim; d++) {
				pt_sb_printf(b, "%s", d ? ", " : "");
				pt_expr_print(c->target[d], s, p, b);
			}
			pt_sb_printf(b, s->red == PT_RED_UPDATE ? ") = " : ") %s= ", pt_redop_token(s->red));
		}
		if (c->update) {        /* as written: the operator applied to h(t) and the value */
			pt_expr acc = {.kind = PT_E_CALL, .type = s->type, .name = s->name, .stage = (pt_stage *)s,
				.nargs = s->ndim, .args = c->target};
			pt_expr *e = pt_update_apply(c->update, &acc, c->value);
			pt_expr_print(e ? e : c->value, s, p, b);
			pt_expr_free(e);
		} else {
			pt_expr_print(c->value, s, p, b);
		}
		pt_sb_printf(b, "\n");
	}
}

char *pt_pipeline_print(const pt_pipeline *p)
{
	pt_strbuf b = {0};
	pt_sb_printf(&b, "pipeline %s\n", p->name ? p->name : "?");
	for (int i = 0; i < p->nparams; i++) {
		const pt_param *q = &p->params[i];
		pt_sb_printf(&b, "param %s : %s", q->name, pt_ir_type_name(q->type));
		if (q->has_estimate)
			pt_sb_printf(&b, " = %.17g", q->estimate);
		pt_sb_printf(&b, "\n");
	}
	for (int i = 0; i < p->nimages; i++) {
		const pt_image *im = p->images[i];
		pt_sb_printf(&b, "image %s : %s [", im->name, pt_ir_type_name(im->type));
		for (int d = 0; d < im->ndim; d++) {
			pt_sb_printf(&b, "%s", d ? ", " : "");
			pt_expr_print(im->extent[d], NULL, p, &b);
		}
		pt_sb_printf(&b, "]\n");
	}
	for (int i = 0; i < p->nstages; i++)
		stage(&b, p, p->stages[i]);
	return pt_sb_take(&b);
}
