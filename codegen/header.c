/* header.c: the C header of a compiled pipeline: the ABI function with
 * each argument documented, its expected type and extents. */
#include <stdlib.h>
#include <string.h>

#include "entry.h"
#include "header.h"

static const char *c_type(int t)
{
	static const char *const n[] = { "uint8_t", "uint16_t", "uint32_t", "int8_t", "int16_t",
		"int32_t", "int64_t", "float", "double" };
	return t >= 0 && t < PT_NTYPES ? n[t] : "?";
}

static void print_extent(pt_strbuf *sb, const pt_pipeline *p, const pt_interval *iv)
{
	pt_strbuf lo = {0}, hi = {0};
	pt_expr_print(iv->lo, NULL, p, &lo);
	pt_expr_print(iv->hi, NULL, p, &hi);
	if (iv->step > 1)
		pt_sb_printf(sb, "((%s) - (%s)) / %lld * %lld + 1", hi.s, lo.s, (long long)iv->step, (long long)iv->step);
	else if (!strcmp(lo.s, "0"))
		pt_sb_printf(sb, "%s + 1", hi.s);
	else
		pt_sb_printf(sb, "(%s) - (%s) + 1", hi.s, lo.s);
	pt_sb_free(&lo);
	pt_sb_free(&hi);
}

char *pt_header_text(const pt_pipeline *p, const char *fname)
{
	pt_strbuf sb = {0}, proto = {0};
	int *order = malloc(sizeof(int) * (size_t)(p->nparams + 1)), np = pt_entry_param_order(p, order);
	pt_sb_printf(&proto, "int %s(", fname);
	int nargs = 0;
	for (int i = 0; i < np; i++, nargs++)
		pt_sb_printf(&proto, "%s%s %s", nargs ? ", " : "", c_type(p->params[order[i]].type), p->params[order[i]].name);
	for (int i = 0; i < p->nimages; i++, nargs++)
		pt_sb_printf(&proto, "%sconst pt_buffer *%s", nargs ? ", " : "", p->images[i]->name);
	for (int i = 0; i < p->nstages; i++)
		if (p->stages[i]->is_output)
			pt_sb_printf(&proto, "%spt_buffer *%s", nargs++ ? ", " : "", p->stages[i]->name);
	pt_sb_printf(&proto, ")");

	pt_sb_printf(&sb, "/* %s.h: pipeline '%s', compiled by polytile.  Link %s.o with the\n"
		" * runtime (pkg-config --libs polytile_rt).\n *\n", fname, p->name, fname);
	pt_sb_printf(&sb, " * %s\n *\n", proto.s);
	for (int i = 0; i < np; i++) {
		const pt_param *q = &p->params[order[i]];
		pt_sb_printf(&sb, " *   %-12s %s param%s", q->name, pt_ir_type_name(q->type),
			q->has_estimate ? " (default in the .pipe: " : "");
		if (q->has_estimate)
			pt_sb_printf(&sb, "%g)", q->estimate);
		pt_sb_printf(&sb, "\n");
	}
	for (int i = 0; i < p->nimages; i++) {
		const pt_image *im = p->images[i];
		pt_sb_printf(&sb, " *   %-12s input, %s, extents [", im->name, pt_ir_type_name(im->type));
		for (int d = 0; d < im->ndim; d++) {
			pt_sb_printf(&sb, "%s", d ? ", " : "");
			pt_expr_print(im->extent[d], NULL, p, &sb);
		}
		pt_sb_printf(&sb, "]\n");
	}
	for (int i = 0; i < p->nstages; i++) {
		const pt_stage *s = p->stages[i];
		if (!s->is_output)
			continue;
		pt_sb_printf(&sb, " *   %-12s output, %s, extents [", s->name, pt_ir_type_name(s->type));
		for (int d = 0; d < s->ndim; d++) {
			pt_sb_printf(&sb, "%s", d ? ", " : "");
			print_extent(&sb, p, &s->dom[d]);
		}
		pt_sb_printf(&sb, "];\n *                element 0 is the point (");
		for (int d = 0; d < s->ndim; d++) {
			pt_sb_printf(&sb, "%s", d ? ", " : "");
			pt_expr_print(s->dom[d].lo, NULL, p, &sb);
		}
		pt_sb_printf(&sb, ") of its domain; points no case defines are left as they are\n");
	}
	pt_sb_printf(&sb,
		" *\n"
		" * The caller allocates every buffer (pt_buffer_alloc); the last dimension\n"
		" * must be contiguous (stride 1), other strides are free, and buffers must\n"
		" * not overlap.  Before anything is written, every buffer's type, number of\n"
		" * dimensions and extents are checked against the params: the result is 0,\n"
		" * or PT_ERR_NULL, PT_ERR_TYPE, PT_ERR_NDIM, PT_ERR_EXTENT, PT_ERR_STRIDE,\n"
		" * PT_ERR_PARAM (params that leave an image or a stage empty) or\n"
		" * PT_ERR_NOMEM (intermediate stages) with nothing written.  Parallel loops\n"
		" * use pt_set_num_threads(n) threads (OMP_NUM_THREADS by default).\n"
		" *\n"
		" * %s_argv is the same function with arrays: iparams[i] / fparams[i] hold\n"
		" * param i (declaration order, ints in iparams, floats in fparams),\n"
		" * inputs in image order, outputs in the order above. */\n", fname);
	pt_sb_printf(&sb, "#ifndef PT_GENERATED_%s_H\n#define PT_GENERATED_%s_H\n\n", fname, fname);
	pt_sb_printf(&sb, "#include <stdint.h>\n\n#include <pt_runtime.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
	pt_sb_printf(&sb, "%s;\n", proto.s);
	pt_sb_printf(&sb, "int %s_argv(const int64_t *iparams, const double *fparams,\n"
		"\tconst pt_buffer *const *inputs, pt_buffer *const *outputs);\n", fname);
	pt_sb_printf(&sb, "\n#ifdef __cplusplus\n}\n#endif\n#endif\n");
	pt_sb_free(&proto);
	free(order);
	return sb.s;
}
