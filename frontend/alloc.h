/* alloc.h: the front end's allocations, which fail cleanly.
 *
 * Design: an allocation that fails returns NULL, as malloc does, and is
 * counted in a per-thread count of failures; callers unwind with NULL
 * or false like after a user error (the constructors of ir.c free what
 * they were given, isl's __isl_take), and each entry point of the front
 * end (parsing, checking, the builder's constructors, the interpreter,
 * the views) compares the count before and after and reports "out of
 * memory" then, so that a failure that a caller could survive (a lost
 * hint) still fails the call.  A setjmp at the entry points was the
 * alternative: it would leave half-built trees linked into a pipeline
 * that the caller still owns and frees, and would jump over isl's and
 * the driver's frames that hold resources; returning errors is what the
 * rest of the code (and isl) already does.
 *
 * A test can make the nth allocation of the thread fail from now on
 * (pt_mem_fail_at), to visit every failure point of a run. */
#ifndef PT_ALLOC_H
#define PT_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

void *pt_mem_alloc(size_t n);
void *pt_mem_calloc(size_t n, size_t size);
/* On failure p is left as it was (and still owned by the caller). */
void *pt_mem_realloc(void *p, size_t n);
/* s may be NULL (then NULL, not a failure). */
char *pt_mem_strdup(const char *s);

/* Allocations of this thread that failed so far (diag.h's pt_mem_check
 * reports them). */
long pt_mem_failures(void);

/* For tests: the nth allocation of this thread from now fails (n >= 1),
 * and every later one too when `sticky`; n = 0 turns this off.  Returns
 * the allocations made since the previous call. */
long pt_mem_fail_at(long n, bool sticky);

#endif
