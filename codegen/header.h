/* header.h: the generated C header (header.c). */
#ifndef PT_CODEGEN_HEADER_H
#define PT_CODEGEN_HEADER_H

#include "ir.h"

/* The text of NAME.h for pipeline p compiled as fname; caller frees. */
char *pt_header_text(const pt_pipeline *p, const char *fname);

/* Why name cannot be a C name in a generated header (a C keyword, a
 * name C, POSIX or the runtime reserve), or NULL. */
const char *pt_c_reserved_name(const char *name);

#endif
