/* objmerge.h: one relocatable object from several (what `ld -r` does,
 * for the objects LLVM writes). */
#ifndef PT_CODEGEN_OBJMERGE_H
#define PT_CODEGEN_OBJMERGE_H

#include <stddef.h>

/* Merges n relocatable 64-bit little-endian ELF objects with RELA
 * relocations (x86-64, AArch64) of one machine: every section kept as a
 * section of its own, local symbols kept, each global defined once with
 * the references of the others bound to it.  Returns the object
 * (malloc'd, *len bytes), or NULL with *err (caller frees) for input it
 * does not handle (section groups, REL relocations, a global defined
 * twice, malformed files). */
char *pt_objmerge(const void *const *obj, const size_t *len, int n, size_t *out_len, char **err);

#endif
