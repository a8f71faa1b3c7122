/* header.h: the generated C header (header.c). */
#ifndef PT_CODEGEN_HEADER_H
#define PT_CODEGEN_HEADER_H

#include <stdbool.h>

#include "ir.h"

/* The text of NAME.h for pipeline p compiled as fname (local_parts: the
 * MPI target's NAME_local, NAME_local_argv and NAME_part too); caller
 * frees. */
char *pt_header_text(const pt_pipeline *p, const char *fname, bool local_parts);

/* Why name cannot be a C name in a generated header (a C keyword, a
 * name C, POSIX or the runtime reserve), or NULL. */
const char *pt_c_reserved_name(const char *name);

#endif
