/* alloc.c: the front end's allocations (alloc.h says why they return
 * NULL and how a failure is reported). */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"

/* Per thread: two threads may load pipelines at once. */
static _Thread_local long failures;
static _Thread_local long made;         /* since the last pt_mem_fail_at */
static _Thread_local long fail_at;      /* 0: never */
static _Thread_local bool fail_sticky;

/* Whether this allocation is one a test asked to fail. */
static bool injected(void)
{
	made++;
	return fail_at > 0 && (made == fail_at || (fail_sticky && made > fail_at));
}

static void *counted(void *p)
{
	if (!p)
		failures++;
	return p;
}

void *pt_mem_alloc(size_t n)
{
	return counted(injected() ? NULL : malloc(n ? n : 1));
}

void *pt_mem_calloc(size_t n, size_t size)
{
	return counted(injected() ? NULL : calloc(n ? n : 1, size ? size : 1));
}

void *pt_mem_realloc(void *p, size_t n)
{
	return counted(injected() ? NULL : realloc(p, n ? n : 1));
}

char *pt_mem_strdup(const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	char *c = pt_mem_alloc(n);
	if (c)
		memcpy(c, s, n);
	return c;
}

long pt_mem_failures(void)
{
	return failures;
}

long pt_mem_fail_at(long n, bool sticky)
{
	long m = made;
	made = 0;
	fail_at = n;
	fail_sticky = sticky;
	return m;
}
