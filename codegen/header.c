/* header.c: the C header of a compiled pipeline: the ABI function with
 * each argument documented, its expected type and extents. */
#include <ctype.h>
#include <stdio.h>
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

/* C11's keywords and C23's new ones (a header using one as a function
 * name does not compile). */
static const char *const c_keywords[] = {
	"auto", "break", "case", "char", "const", "continue", "default", "do", "double",
	"else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
	"register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
	"switch", "typedef", "union", "unsigned", "void", "volatile", "while", "alignas",
	"alignof", "bool", "constexpr", "false", "nullptr", "static_assert", "thread_local",
	"true", "typeof", "typeof_unqual", "main",
};

/* Why name cannot name the compiled function or an argument, or NULL: a C keyword, a
 * name C reserves (_X..., __...), or one the header's includes may
 * define (POSIX's ..._t, the runtime's pt_... and PT_...). */
const char *pt_c_reserved_name(const char *name)
{
	for (size_t i = 0; i < sizeof(c_keywords) / sizeof(c_keywords[0]); i++)
		if (!strcmp(name, c_keywords[i]))
			return !strcmp(name, "main") ? "the name of a C program's entry point" : "a C keyword";
	size_t n = strlen(name);
	if (name[0] == '_' && (isupper((unsigned char)name[1]) || name[1] == '_'))
		return "a name C reserves for the implementation";
	if (n > 2 && !strcmp(name + n - 2, "_t"))
		return "a type name POSIX reserves";
	if (!strncmp(name, "pt_", 3) || !strncmp(name, "PT_", 3))
		return "in the runtime's namespace (pt_runtime.h)";
	return NULL;
}

/* The C names of the prototype's arguments, in order (params, images,
 * outputs): a stage named Col[0] is argument Col_0; a name that is
 * reserved, the function's, or an earlier argument's gets a '_' appended
 * until it is none of these, so the header always compiles. */
static char **arg_names(const pt_pipeline *p, const int *order, int np, const char *fname, int *n)
{
	const char **src = malloc(sizeof(char *) * (size_t)(np + p->nimages + p->nstages + 1));
	int k = 0;
	for (int i = 0; i < np; i++)
		src[k++] = p->params[order[i]].name;
	for (int i = 0; i < p->nimages; i++)
		src[k++] = p->images[i]->name;
	for (int i = 0; i < p->nstages; i++)
		if (p->stages[i]->is_output)
			src[k++] = p->stages[i]->name;
	char **out = malloc(sizeof(char *) * (size_t)(k + 1));
	for (int i = 0; i < k; i++) {
		size_t len = strlen(src[i]), m = 0;
		char *s = malloc(len + 2 + (size_t)k + 1);
		for (size_t j = 0; j < len; j++) {
			char ch = src[i][j];
			if (isalnum((unsigned char)ch) || ch == '_')
				s[m++] = ch;
			else if (ch != ']' && ch != ' ')
				s[m++] = '_';
		}
		s[m] = 0;
		for (;;) {
			bool taken = pt_c_reserved_name(s) || !strcmp(s, fname) || isdigit((unsigned char)s[0]);
			for (int j = 0; j < i && !taken; j++)
				taken = !strcmp(s, out[j]);
			if (!taken)
				break;
			s[m++] = '_';
			s[m] = 0;
		}
		out[i] = s;
	}
	free(src);
	*n = k;
	return out;
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

/* The MPI target's local-part ABI (docs/distributed.md). */
static void local_part_decls(pt_strbuf *sb, const char *proto, const char *fname)
{
	size_t n = strlen("int ") + strlen(fname);
	pt_sb_printf(sb, "\n/* MPI: every rank calls %s_local with its parts of the arrays: each\n"
		" * buffer covers the box %s_part gives for it (extents hi - lo + 1,\n"
		" * element 0 the point lo; data may be NULL for an empty part).  Nothing\n"
		" * is gathered: each rank's output buffers hold what it computed, its own\n"
		" * points being the box of array + PT_PART_OWN.  %s_part: arrays are\n"
		" * numbered as the arguments, inputs first; it returns the array's dims,\n"
		" * or PT_ERR_PARAM. */\n", fname, fname, fname);
	pt_sb_printf(sb, "int %s_local%s;\n", fname, proto + n);
	pt_sb_printf(sb, "int %s_local_argv(const int64_t *iparams, const double *fparams,\n"
		"\tconst pt_buffer *const *inputs, pt_buffer *const *outputs);\n", fname);
	pt_sb_printf(sb, "int32_t %s_part(const int64_t *iparams, const double *fparams, int32_t rank,\n"
		"\tint32_t nranks, int32_t array, int64_t *lo, int64_t *hi);\n", fname);
}

char *pt_header_text(const pt_pipeline *p, const char *fname, bool local_parts)
{
	pt_strbuf sb = {0}, proto = {0};
	int *order = malloc(sizeof(int) * (size_t)(p->nparams + 1)), np = pt_entry_param_order(p, order);
	pt_sb_printf(&proto, "int %s(", fname);
	int nargs = 0, nnames;
	char **names = arg_names(p, order, np, fname, &nnames);
	for (int i = 0; i < np; i++, nargs++)
		pt_sb_printf(&proto, "%s%s %s", nargs ? ", " : "", c_type(p->params[order[i]].type), names[nargs]);
	for (int i = 0; i < p->nimages; i++, nargs++)
		pt_sb_printf(&proto, "%sconst pt_buffer *%s", nargs ? ", " : "", names[nargs]);
	for (; nargs < nnames; nargs++)
		pt_sb_printf(&proto, "%spt_buffer *%s", nargs ? ", " : "", names[nargs]);
	pt_sb_printf(&proto, ")");
	for (int i = 0; i < nnames; i++)
		free(names[i]);
	free(names);

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
		" * dimensions, extents and alignment are checked against the params: the\n"
		" * result is 0, or PT_ERR_NULL, PT_ERR_TYPE, PT_ERR_NDIM, PT_ERR_EXTENT,\n"
		" * PT_ERR_STRIDE, PT_ERR_ALIGN (data not a multiple of the element's size),\n"
		" * PT_ERR_PARAM (params that leave an image or a stage empty) or\n"
		" * PT_ERR_NOMEM (intermediate stages) with nothing written.  Parallel loops\n"
		" * use pt_set_num_threads(n) threads (OMP_NUM_THREADS by default).\n"
		" *\n"
		" * %s_argv is the same function with arrays: iparams[i] / fparams[i] hold\n"
		" * param i (declaration order, ints in iparams, floats in fparams),\n"
		" * inputs in image order, outputs in the order above. */\n", fname);
	pt_sb_printf(&sb, "#ifndef PT_GENERATED_%s_H\n#define PT_GENERATED_%s_H\n\n", fname, fname);
	pt_sb_printf(&sb, "#include <stdint.h>\n\n#include <pt_runtime.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
	pt_sb_printf(&sb, "#if PT_ABI_VERSION != %d\n#error \"%s.h was generated for runtime ABI %d: use that polytile's pt_runtime.h, or compile the pipeline again\"\n#endif\n"
		"#define %s_ABI_VERSION %d\n/* the version the object was made for (PT_ABI_VERSION) */\nint32_t %s_abi_version(void);\n\n",
		PT_ABI_VERSION, fname, PT_ABI_VERSION, fname, PT_ABI_VERSION, fname);
	pt_sb_printf(&sb, "%s;\n", proto.s);
	pt_sb_printf(&sb, "int %s_argv(const int64_t *iparams, const double *fparams,\n"
		"\tconst pt_buffer *const *inputs, pt_buffer *const *outputs);\n", fname);
	if (local_parts)
		local_part_decls(&sb, proto.s, fname);
	pt_sb_printf(&sb, "\n#ifdef __cplusplus\n}\n#endif\n#endif\n");
	pt_sb_free(&proto);
	free(order);
	return sb.s;
}
