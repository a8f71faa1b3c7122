/* cuda_profile.c: with PT_CUDA_PROFILE set (not "0"), each launch's time
 * on the device, by kernel, so that a GPU session can set each kernel's
 * measured time beside what the device model predicted for it
 * (docs/cuda.md, "Profiling").  A launch made from the default stream
 * (not a streamed run's chunks) is bracketed by two events; once the
 * run's kernels have finished (pt_cuda_finish), their elapsed times
 * are added to their kernel's totals, which pt_cuda_profile_report
 * prints, and the process prints to stderr when it exits. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_driver.h"
#include "pt_runtime.h"

typedef CUresult (*elapsed_fn)(float *, CUevent, CUevent);
typedef CUresult (*create_fn)(CUevent *, unsigned);
typedef CUresult (*record_fn)(CUevent, CUstream);

typedef struct total {
	char name[128];
	long launches;
	double ms;
} total;

typedef struct pending {
	CUevent start, end;
	int kernel;                 /* index in totals; -1: not timed */
	long id;                    /* begin's handle (its launch's) */
	int ended;                  /* its end recorded: collect may read it */
} pending;

static pthread_mutex_t plock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t ponce = PTHREAD_ONCE_INIT;
static int on;
/* the driver's event calls, looked up here (not through cuda.c's
 * table, which calls in here) */
static elapsed_fn elapsed;
static create_fn create;
static record_fn record;
static total *totals;
static int ntotals;
static pending *pend;
static int npend, cap;
static long seq;                /* the last handle given */
static CUevent *spare;          /* events of resolved launches, reused */
static int nspare;

static void report_at_exit(void)
{
	pt_cuda_profile_report(stderr);
}

/* The driver's timer: cuEventElapsedTime_v2 (CUDA 12.8 and later), else
 * cuEventElapsedTime; none: no profile. */
static void setup(void)
{
	const char *v = getenv("PT_CUDA_PROFILE");
	if (!v || !*v || !strcmp(v, "0"))
		return;
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	void *f = lib ? dlsym(lib, "cuEventElapsedTime_v2") : NULL;
	if (lib && !f)
		f = dlsym(lib, "cuEventElapsedTime");
	void *c = lib ? dlsym(lib, "cuEventCreate") : NULL, *r = lib ? dlsym(lib, "cuEventRecord") : NULL;
	if (!f || !c || !r) {
		fprintf(stderr, "polytile: PT_CUDA_PROFILE: no CUDA driver with cuEventElapsedTime: no profile\n");
		return;
	}
	memcpy(&elapsed, &f, sizeof(f));
	memcpy(&create, &c, sizeof(c));
	memcpy(&record, &r, sizeof(r));
	on = 1;
	atexit(report_at_exit);
}

static CUevent event(void)
{
	if (nspare > 0)
		return spare[--nspare];
	CUevent e = NULL;
	return create(&e, 0) ? NULL : e;
}

static int kernel_index(const char *name)
{
	for (int i = 0; i < ntotals; i++)
		if (!strcmp(totals[i].name, name))
			return i;
	total *t = realloc(totals, sizeof(*t) * (size_t)(ntotals + 1));
	if (!t)
		return -1;
	totals = t;
	memset(&totals[ntotals], 0, sizeof(*totals));
	snprintf(totals[ntotals].name, sizeof(totals[ntotals].name), "%s", name);
	return ntotals++;
}

/* The handle is an id, not a pointer: another thread's launch may move
 * pend, or collect another's finished launches, between a launch's
 * begin and end. */
void *pt_cuda_profile_begin(const char *kernel)
{
	pthread_once(&ponce, setup);
	if (!on)
		return NULL;
	pthread_mutex_lock(&plock);
	long id = 0;
	if (npend == cap) {
		pending *q = realloc(pend, sizeof(*q) * (size_t)(cap ? 2 * cap : 64));
		if (q) {
			pend = q;
			cap = cap ? 2 * cap : 64;
		}
	}
	int k = kernel_index(kernel);
	if (npend < cap && k >= 0) {
		pending *p = &pend[npend];
		*p = (pending){ .kernel = k, .start = event(), .end = event(), .id = ++seq };
		if (p->start && p->end && !record(p->start, NULL)) {
			id = p->id;
			npend++;
		}
	}
	pthread_mutex_unlock(&plock);
	return (void *)(intptr_t)id;
}

void pt_cuda_profile_end(void *launch)
{
	long id = (long)(intptr_t)launch;
	if (!id)
		return;
	pthread_mutex_lock(&plock);
	for (int i = npend - 1; i >= 0; i--)
		if (pend[i].id == id) {
			if (record(pend[i].end, NULL))
				pend[i].kernel = -1;
			pend[i].ended = 1;
			break;
		}
	pthread_mutex_unlock(&plock);
}

void pt_cuda_profile_collect(void)
{
	if (!on)
		return;
	pthread_mutex_lock(&plock);
	CUevent *s = realloc(spare, sizeof(*s) * (size_t)(nspare + 2 * npend + 1));
	if (s)
		spare = s;
	int kept = 0;
	for (int i = 0; i < npend; i++) {
		if (!pend[i].ended) {   /* a launch still being made */
			pend[kept++] = pend[i];
			continue;
		}
		float ms = 0;
		if (pend[i].kernel >= 0 && !elapsed(&ms, pend[i].start, pend[i].end)) {
			totals[pend[i].kernel].launches++;
			totals[pend[i].kernel].ms += ms;
		}
		if (s) {
			spare[nspare++] = pend[i].start;
			spare[nspare++] = pend[i].end;
		}
	}
	npend = kept;
	pthread_mutex_unlock(&plock);
}

static int by_time(const void *a, const void *b)
{
	const total *x = a, *y = b;
	return (x->ms < y->ms) - (x->ms > y->ms);
}

int pt_cuda_profile_report(FILE *f)
{
	pthread_mutex_lock(&plock);
	int n = ntotals;
	/* sorted on a copy: pending launches index totals */
	total *t = n > 0 ? malloc(sizeof(*t) * (size_t)n) : NULL;
	if (t) {
		memcpy(t, totals, sizeof(*t) * (size_t)n);
		qsort(t, (size_t)n, sizeof(*t), by_time);
		double all = 0;
		for (int i = 0; i < n; i++)
			all += t[i].ms;
		fprintf(f, "CUDA profile (PT_CUDA_PROFILE): device time by kernel, %.3f ms in all\n", all);
		fprintf(f, "  %-48s %9s %12s %14s\n", "kernel", "launches", "ms in all", "us per launch");
		for (int i = 0; i < n; i++)
			fprintf(f, "  %-48s %9ld %12.3f %14.2f\n", t[i].name, t[i].launches, t[i].ms,
				t[i].launches ? 1e3 * t[i].ms / (double)t[i].launches : 0.0);
	}
	free(t);
	pthread_mutex_unlock(&plock);
	return t ? n : 0;
}
