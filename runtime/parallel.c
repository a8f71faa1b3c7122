/* parallel.c: the parallel-for that generated code calls, on a pool of
 * worker threads of our own (as Halide's runtime has).  A loop of n
 * iterations is cut into one contiguous region per taking-part thread
 * (the calling thread is one of them); each thread takes chunks from the
 * front of its own region, so that with no load its rows stay together
 * in cache as under a static split, and then takes chunks of the other
 * regions: a thread the kernel has descheduled (another process on the
 * core) holds back only the chunk it has, not its whole block.  Workers
 * spin a few tens of microseconds after a loop, for the next one, and
 * then sleep on a condition variable: libgomp's spinning at the barrier
 * of every statically split loop made local Laplacian 4x slower at 2
 * threads than at 1 under one competing process (issue 42).
 *
 * A parallel_for inside a body runs serially in the thread that calls
 * it; of application threads calling at once, one gets the pool and the
 * others run their loops serially: no deadlock, no mixed work. */
#define _GNU_SOURCE         /* sched_getaffinity, CPU_COUNT */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "pt_runtime.h"

/* The nanoseconds an idle worker spins before it sleeps: long enough to
 * catch the next loop of a pipeline, short enough to leave the core to
 * others between calls. */
#define SPIN_NS 50000
/* A thread takes 1/CHUNK_DIV of what is left of a region at a time. */
#define CHUNK_DIV 8

typedef struct region {
	_Alignas(64) atomic_llong next;     /* its first iteration not taken */
	long long end;
} region;

/* A loop.  Its memory goes with the last reference: the caller's, and
 * one per worker that joined, so that the caller waits only for the
 * iterations, not for a joined worker the system has descheduled
 * before it found nothing left to take. */
typedef struct job {
	void (*body)(void *ctx, int64_t lo, int64_t hi);
	void *ctx;
	int nparts;             /* regions: the threads that may take part */
	int joined;             /* workers that took a region (pool.lock) */
	atomic_int refs;
	atomic_llong left;      /* iterations not yet run */
	region part[];
} job;

static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake;    /* workers: a job was published */
	pthread_cond_t done;    /* the caller: a worker ran the last iterations */
	job *job;               /* the job workers may join, or NULL */
	atomic_uint gen;        /* bumped with every published job */
	int sleeping;           /* workers waiting on wake */
} pool = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER,
	NULL, 0, 0 };

/* Workers started, under create_lock; a failed pthread_create is not
 * tried again: loops run with the threads that exist. */
static pthread_mutex_t create_lock = PTHREAD_MUTEX_INITIALIZER;
static int nworkers;
static bool create_failed;

static atomic_int requested;            /* pt_set_num_threads; 0: the default */
static atomic_flag busy = ATOMIC_FLAG_INIT;     /* a top-level loop owns the pool */
static _Thread_local bool in_parallel;  /* a worker, or a caller inside its loop */

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

static long long now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Takes a chunk from the front of r: its size, 0 when r is used up. */
static long long take(region *r, long long *lo)
{
	long long c = atomic_load_explicit(&r->next, memory_order_relaxed);
	for (;;) {
		long long left = r->end - c;
		if (left <= 0)
			return 0;
		long long k = left / CHUNK_DIV > 0 ? left / CHUNK_DIV : 1;
		if (atomic_compare_exchange_weak_explicit(&r->next, &c, c + k,
				memory_order_relaxed, memory_order_relaxed)) {
			*lo = c;
			return k;
		}
	}
}

/* Thread self's region first, then the others'; the thread that runs
 * the last iterations wakes the caller. */
static void work(job *j, int self)
{
	long long lo, k;
	for (int i = 0; i < j->nparts; i++) {
		region *r = &j->part[(self + i) % j->nparts];
		while ((k = take(r, &lo)) > 0) {
			j->body(j->ctx, lo, lo + k);
			if (atomic_fetch_sub_explicit(&j->left, k, memory_order_acq_rel) == k && self) {
				pthread_mutex_lock(&pool.lock);
				pthread_cond_broadcast(&pool.done);
				pthread_mutex_unlock(&pool.lock);
			}
		}
	}
}

static void job_drop(job *j)
{
	if (atomic_fetch_sub_explicit(&j->refs, 1, memory_order_acq_rel) == 1)
		free(j);
}

/* Waits for a job after generation *seen: joins it (returns it and the
 * region's index in *self) or returns NULL when it needs no more. */
static job *next_job(unsigned *seen, int *self)
{
	long long t0 = now_ns();
	for (int i = 0; atomic_load_explicit(&pool.gen, memory_order_acquire) == *seen; i++) {
		if (i % 64 == 63 && now_ns() - t0 > SPIN_NS)
			break;
		cpu_relax();
	}
	pthread_mutex_lock(&pool.lock);
	while (atomic_load_explicit(&pool.gen, memory_order_relaxed) == *seen) {
		pool.sleeping++;
		pthread_cond_wait(&pool.wake, &pool.lock);
		pool.sleeping--;
	}
	*seen = atomic_load_explicit(&pool.gen, memory_order_relaxed);
	job *j = pool.job;
	if (j && j->joined < j->nparts - 1) {
		*self = ++j->joined;
		atomic_fetch_add_explicit(&j->refs, 1, memory_order_relaxed);
	} else {
		j = NULL;
	}
	pthread_mutex_unlock(&pool.lock);
	return j;
}

static void *worker_main(void *arg)
{
	unsigned seen = (unsigned)(uintptr_t)arg;
	in_parallel = true;
	for (;;) {
		int self;
		job *j = next_job(&seen, &self);
		if (!j)
			continue;
		work(j, self);
		job_drop(j);
	}
	return NULL;
}

/* The child of a fork has none of the parent's workers, and a lock one
 * of them held stays held: both start afresh. */
static void forked_child(void)
{
	pthread_mutex_init(&create_lock, NULL);
	pthread_mutex_init(&pool.lock, NULL);
	pthread_cond_init(&pool.wake, NULL);
	pthread_cond_init(&pool.done, NULL);
	nworkers = 0;
	create_failed = false;
	pool.sleeping = 0;
	pool.job = NULL;
	atomic_flag_clear(&busy);
}

/* Starts workers until there are want; returns how many there are. */
static int start_workers(int want)
{
	static bool at_fork;
	pthread_mutex_lock(&create_lock);
	if (!at_fork && want > nworkers)
		at_fork = pthread_atfork(NULL, NULL, forked_child) == 0;
	pthread_attr_t a;
	bool attr = !create_failed && nworkers < want && pthread_attr_init(&a) == 0;
	if (attr)
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	while (attr && nworkers < want) {
		pthread_t t;
		unsigned gen = atomic_load(&pool.gen);
		if (pthread_create(&t, &a, worker_main, (void *)(uintptr_t)gen) != 0) {
			create_failed = true;
			break;
		}
		nworkers++;
	}
	if (attr)
		pthread_attr_destroy(&a);
	int n = nworkers;
	pthread_mutex_unlock(&create_lock);
	return n;
}


static int cap(long long n)
{
	return n > PT_MAX_THREADS ? PT_MAX_THREADS : n < 1 ? 1 : (int)n;
}

/* OMP_NUM_THREADS's first number (as OpenMP reads it), else the CPUs
 * this process may run on. */
static int default_threads;

static void find_default(void)
{
	const char *e = getenv("OMP_NUM_THREADS");
	char *end;
	long long v = e ? strtoll(e, &end, 10) : 0;
	if (e && end != e && v > 0) {
		default_threads = cap(v);
	} else {
		cpu_set_t s;
		long n = sched_getaffinity(0, sizeof(s), &s) == 0 ? CPU_COUNT(&s) : sysconf(_SC_NPROCESSORS_ONLN);
		default_threads = cap(n > 0 ? n : 1);
	}
}

void pt_set_num_threads(int n)
{
	if (n > 0)
		atomic_store(&requested, cap(n));
}

int pt_get_num_threads(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	int n = atomic_load(&requested);
	if (n > 0)
		return n;
	pthread_once(&once, find_default);
	return default_threads;
}

int pt_start_threads(void)
{
	int n = pt_get_num_threads(), w = start_workers(n - 1);
	return w + 1 < n ? w + 1 : n;
}

/* Publishes j, works on it, and waits until every iteration has run. */
static void run_job(job *j)
{
	pthread_mutex_lock(&pool.lock);
	pool.job = j;
	atomic_fetch_add_explicit(&pool.gen, 1, memory_order_release);
	/* as many as can take part: waking every worker for a short loop
	 * would cost each a context switch */
	for (int i = 0; i < pool.sleeping && i < j->nparts - 1; i++)
		pthread_cond_signal(&pool.wake);
	pthread_mutex_unlock(&pool.lock);
	in_parallel = true;
	work(j, 0);
	in_parallel = false;
	pthread_mutex_lock(&pool.lock);
	pool.job = NULL;        /* no one joins now */
	pthread_mutex_unlock(&pool.lock);
	long long t0 = now_ns();
	for (int i = 0; atomic_load_explicit(&j->left, memory_order_acquire) > 0; i++) {
		if (i % 64 == 63 && now_ns() - t0 > SPIN_NS)
			break;
		cpu_relax();
	}
	pthread_mutex_lock(&pool.lock);
	while (atomic_load_explicit(&j->left, memory_order_acquire) > 0)
		pthread_cond_wait(&pool.done, &pool.lock);
	pthread_mutex_unlock(&pool.lock);
}

/* A job of n iterations in nt regions (one contiguous block each, the
 * split a static schedule makes), or NULL. */
static job *job_new(int64_t n, int nt, void (*body)(void *ctx, int64_t lo, int64_t hi), void *ctx)
{
	size_t bytes = sizeof(job) + (size_t)nt * sizeof(region);
	job *j = aligned_alloc(_Alignof(job), (bytes + _Alignof(job) - 1) / _Alignof(job) * _Alignof(job));
	if (!j)
		return NULL;
	j->body = body;
	j->ctx = ctx;
	j->nparts = nt;
	j->joined = 0;
	atomic_init(&j->refs, 1);
	atomic_init(&j->left, n);
	for (int t = 0; t < nt; t++) {
		long long lo = n / nt * t + (t < n % nt ? t : n % nt);
		atomic_init(&j->part[t].next, lo);
		j->part[t].end = lo + n / nt + (t < n % nt ? 1 : 0);
	}
	return j;
}

void pt_parallel_for(int64_t n, void (*body)(void *ctx, int64_t lo, int64_t hi), void *ctx)
{
	if (n <= 0)
		return;
	int nt = pt_get_num_threads();
	if (nt <= 1 || n == 1 || in_parallel || atomic_flag_test_and_set(&busy)) {
		body(ctx, 0, n);
		return;
	}
	if ((int64_t)nt > n)
		nt = (int)n;
	nt = 1 + start_workers(nt - 1);
	job *j = nt > 1 ? job_new(n, nt, body, ctx) : NULL;
	if (j)
		run_job(j);
	atomic_flag_clear(&busy);
	if (j)
		job_drop(j);
	else
		body(ctx, 0, n);
}
