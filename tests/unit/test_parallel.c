/* test_parallel.c: the runtime's thread pool and parallel-for
 * (runtime/parallel.c), intermediate buffers (block_cache.c) and
 * scratchpads (scratch.c); grouped apps bit-identical at 1, 2 and 3
 * threads. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE         /* sched_yield, RLIMIT_AS */
#endif
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pt_runtime.h"

#include "compiled.h"
#include "run_suite.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

typedef struct hits {
	int64_t n;
	int *count;
} hits;

static void mark(void *ctx, int64_t lo, int64_t hi)
{
	hits *h = ctx;
	for (int64_t i = lo; i < hi; i++)
		__atomic_add_fetch(&h->count[i], 1, __ATOMIC_RELAXED);
}

static void check_once(const hits *h, int threads, const char *what)
{
	for (int64_t i = 0; i < h->n; i++)
		ck_assert_msg(h->count[i] == 1, "%s n=%lld threads=%d: iteration %lld ran %d times",
			what, (long long)h->n, threads, (long long)i, h->count[i]);
}

/* Every iteration runs exactly once, for any count and thread number
 * (fewer iterations than threads, none, one, many). */
START_TEST(parallel_for_covers_each_iteration_once)
{
	const int64_t ns[] = { 0, 1, 2, 3, 5, 7, 64, 1001, 100003 };
	const int ts[] = { 1, 2, 3, 4, 7, 16 };
	for (size_t ti = 0; ti < sizeof(ts) / sizeof(ts[0]); ti++) {
		int t = ts[ti];
		pt_set_num_threads(t);
		ck_assert_int_eq(pt_get_num_threads(), t);
		for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++)
			for (int rep = 0; rep < 2; rep++) {
				hits h = { ns[k], calloc((size_t)ns[k] + 1, sizeof(int)) };
				pt_parallel_for(ns[k], mark, &h);
				check_once(&h, t, "flat:");
				free(h.count);
			}
	}
	pt_parallel_for(-5, mark, NULL);    /* nothing to run, ctx unused */
}
END_TEST

/* A parallel_for inside a body runs serially in the thread that calls
 * it, as one chunk, and still covers its iterations once. */
typedef struct nest {
	int64_t inner;
	int *count;             /* outer * inner */
	atomic_int serial;      /* inner loops run as one chunk in the caller */
} nest;

typedef struct inner_ctx {
	nest *n;
	int64_t row;
	pthread_t self;
	int chunks;
} inner_ctx;

static void inner_body(void *ctx, int64_t lo, int64_t hi)
{
	inner_ctx *c = ctx;
	c->chunks++;
	if (pthread_equal(c->self, pthread_self()) && lo == 0 && hi == c->n->inner)
		atomic_fetch_add(&c->n->serial, 1);
	for (int64_t i = lo; i < hi; i++)
		__atomic_add_fetch(&c->n->count[c->row * c->n->inner + i], 1, __ATOMIC_RELAXED);
}

static void outer_body(void *ctx, int64_t lo, int64_t hi)
{
	for (int64_t r = lo; r < hi; r++) {
		inner_ctx c = { ctx, r, pthread_self(), 0 };
		pt_parallel_for(((nest *)ctx)->inner, inner_body, &c);
		ck_assert_int_eq(c.chunks, 1);
	}
}

START_TEST(parallel_for_nested_runs_serially)
{
	for (int t = 1; t <= 4; t++) {
		pt_set_num_threads(t);
		nest n = { 37, calloc(50 * 37, sizeof(int)), 0 };
		pt_parallel_for(50, outer_body, &n);
		for (int i = 0; i < 50 * 37; i++)
			ck_assert_int_eq(n.count[i], 1);
		ck_assert_int_eq(atomic_load(&n.serial), 50);
		free(n.count);
	}
}
END_TEST

/* Application threads calling at once: each loop covers its own
 * iterations once, none waits for ever, no work goes to another's. */
static void *caller(void *arg)
{
	intptr_t id = (intptr_t)arg;
	for (int rep = 0; rep < 200; rep++) {
		int64_t n = 1 + (id * 131 + rep * 17) % 300;
		hits h = { n, calloc((size_t)n, sizeof(int)) };
		pt_parallel_for(n, mark, &h);
		for (int64_t i = 0; i < n; i++)
			if (h.count[i] != 1) {
				free(h.count);
				return (void *)1;
			}
		free(h.count);
	}
	return NULL;
}

START_TEST(parallel_for_concurrent_callers)
{
	pt_set_num_threads(3);
	enum { NC = 6 };
	pthread_t th[NC];
	for (intptr_t i = 0; i < NC; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, caller, (void *)i), 0);
	for (int i = 0; i < NC; i++) {
		void *r;
		ck_assert_int_eq(pthread_join(th[i], &r), 0);
		ck_assert_msg(r == NULL, "caller %d: an iteration did not run exactly once", i);
	}
}
END_TEST

/* Chunks are shared: the thread that takes iteration 0 waits until the
 * others have run every other iteration, its own block's rest included,
 * which a static split (one block per thread) never does. */
typedef struct held {
	int64_t n;
	atomic_llong done;
	atomic_int timed_out;
} held;

static void hold_first(void *ctx, int64_t lo, int64_t hi)
{
	held *h = ctx;
	if (lo == 0) {
		struct timespec t0, t;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		while (atomic_load(&h->done) < h->n - hi) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if (t.tv_sec - t0.tv_sec > 20) {
				atomic_store(&h->timed_out, 1);
				break;
			}
			sched_yield();
		}
	}
	atomic_fetch_add(&h->done, hi - lo);
}

START_TEST(parallel_for_shares_a_held_block)
{
	pt_set_num_threads(2);
	ck_assert_int_eq(pt_start_threads(), 2);
	held h = { 1000, 0, 0 };
	pt_parallel_for(h.n, hold_first, &h);
	ck_assert_int_eq(atomic_load(&h.done), h.n);
	ck_assert_msg(!atomic_load(&h.timed_out), "the rest of a held block was not taken by the other thread");
}
END_TEST

/* A child forked after the workers started has none of them: its loops
 * start their own and cover their iterations once. */
START_TEST(parallel_for_in_a_forked_child)
{
	pt_set_num_threads(3);
	ck_assert_int_eq(pt_start_threads(), 3);
	hits h = { 5000, calloc(5000, sizeof(int)) };
	pt_parallel_for(h.n, mark, &h);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		memset(h.count, 0, 5000 * sizeof(int));
		int ok = pt_start_threads() == 3;
		pt_parallel_for(h.n, mark, &h);
		for (int64_t i = 0; i < h.n; i++)
			ok &= h.count[i] == 1;
		_exit(ok ? 0 : 1);
	}
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child's loop did not cover its iterations once");
	free(h.count);
}
END_TEST

/* The count is capped at PT_MAX_THREADS; 0 and negatives leave it. */
START_TEST(thread_count_capped)
{
	pt_set_num_threads(5);
	pt_set_num_threads(0);
	pt_set_num_threads(-3);
	ck_assert_int_eq(pt_get_num_threads(), 5);
	pt_set_num_threads(4096);
	ck_assert_int_eq(pt_get_num_threads(), PT_MAX_THREADS);
	pt_set_num_threads(1 << 30);
	ck_assert_int_eq(pt_get_num_threads(), PT_MAX_THREADS);
}
END_TEST

/* Threads the system refuses (an address-space cap that fits a few
 * thread stacks): loops run on those that exist, nothing exits.  Check
 * runs each test in a process of its own, so the cap stays here. */
START_TEST(thread_creation_failure_runs_on_the_threads_that_exist)
{
#ifdef UNDER_ASAN
	/* ASan's shadow mapping needs more than any cap that limits threads */
	return;
#else
	long used = 0;
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmSize: %ld kB", &used) == 1)
			break;
	if (f)
		fclose(f);
	ck_assert_int_gt(used, 0);
	/* about 8 MiB of stack per thread: room for a handful */
	struct rlimit rl = { (rlim_t)(used + 48 * 1024) * 1024, (rlim_t)(used + 48 * 1024) * 1024 };
	ck_assert_int_eq(setrlimit(RLIMIT_AS, &rl), 0);
	pt_set_num_threads(PT_MAX_THREADS);
	int got = pt_start_threads();
	ck_assert_int_ge(got, 1);
	ck_assert_int_lt(got, PT_MAX_THREADS);
	ck_assert_int_eq(pt_start_threads(), got);     /* not tried again */
	hits h = { 10007, calloc(10007, sizeof(int)) };
	ck_assert_ptr_nonnull(h.count);
	pt_parallel_for(h.n, mark, &h);
	check_once(&h, PT_MAX_THREADS, "capped address space:");
	free(h.count);
#endif
}
END_TEST

/* Small and large blocks are usable to their last byte; large ones are
 * 2 MiB aligned and come back from the cache after a free. */
START_TEST(alloc_sizes_alignment_and_reuse)
{
	const int64_t sizes[] = { 0, 1, 4096, (2 << 20) - 1, 2 << 20, (5 << 20) + 3 };
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		unsigned char *p = pt_rt_alloc(sizes[k]);
		ck_assert_ptr_nonnull(p);
		if (sizes[k]) {
			memset(p, 0xab, (size_t)sizes[k]);
			ck_assert_int_eq(p[sizes[k] - 1], 0xab);
		}
		if (sizes[k] >= (2 << 20))
			ck_assert_int_eq((uintptr_t)p % (2u << 20), 0);
		pt_rt_free(p);
	}
	void *a = pt_rt_alloc(8 << 20);
	pt_rt_free(a);
	void *b = pt_rt_alloc(8 << 20);
	ck_assert_ptr_eq(a, b);          /* the cached block */
	void *c = pt_rt_alloc(8 << 20);
	ck_assert_ptr_ne(b, c);          /* the cache handed it out once */
	pt_rt_free(b);
	pt_rt_free(c);
	pt_rt_release_cache();
	ck_assert_ptr_null(pt_rt_alloc(-1));
	pt_rt_free(NULL);
}
END_TEST

/* The block cache keeps the blocks freed last: one that does not fit
 * its 2 GiB or its 256 blocks evicts the oldest (the mappings are not
 * touched: no memory is used); blocks from 64 KiB are cached, smaller
 * ones are malloc's. */
START_TEST(alloc_cache_keeps_the_newest)
{
	pt_rt_release_cache();
	const int64_t mib = 1 << 20;
	void *a = pt_rt_alloc(900 * mib), *b = pt_rt_alloc(600 * mib), *c = pt_rt_alloc(700 * mib);
	ck_assert(a && b && c);
	pt_rt_free(a);
	pt_rt_free(b);
	pt_rt_free(c);                   /* 2.2 GiB: a goes */
	void *p = pt_rt_alloc(700 * mib);
	ck_assert_ptr_eq(p, c);          /* a (900 MiB) would fit too, were it kept */
	pt_rt_free(p);
	pt_rt_release_cache();

	void *s = pt_rt_alloc(100 << 10);   /* mapped, cached */
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq((uintptr_t)s % 64, 0);
	memset(s, 1, 100 << 10);
	pt_rt_free(s);
	void *t = pt_rt_alloc(90 << 10);
	ck_assert_ptr_eq(t, s);
	pt_rt_free(t);
	t = pt_rt_alloc(300 << 10);      /* more than twice 100 KiB: not that block */
	ck_assert_ptr_ne(t, s);
	pt_rt_free(t);
	pt_rt_release_cache();

	enum { N = 257 };
	void *blk[N], *got[N - 1];
	for (int i = 0; i < N; i++)
		ck_assert_ptr_nonnull(blk[i] = pt_rt_alloc(3 * mib));
	for (int i = 0; i < N; i++)
		pt_rt_free(blk[i]);          /* the 257th evicts the first */
	for (int i = 0; i < N - 1; i++) {
		got[i] = pt_rt_alloc(3 * mib);
		bool cached = false;
		for (int j = 1; j < N; j++)
			cached |= got[i] == blk[j];
		ck_assert_msg(cached, "block %d is not one of the 256 freed last", i);
	}
	for (int i = 0; i < N - 1; i++)
		pt_rt_free(got[i]);
	pt_rt_release_cache();
}
END_TEST

/* Scratchpads: one block per slot and thread, 64-byte aligned, kept
 * while requests fit and grown when they do not; bad slots refused. */
START_TEST(scratch_slots_reuse_and_grow)
{
	char *a = pt_rt_scratch(0, 1000), *b = pt_rt_scratch(1, 1000);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_ne(a, b);
	ck_assert_uint_eq((uintptr_t)a % 64, 0);
	memset(a, 1, 1000);
	memset(b, 2, 1000);
	ck_assert_ptr_eq(pt_rt_scratch(0, 500), a);
	ck_assert_int_eq(a[999], 1);
	char *c = pt_rt_scratch(0, 1 << 20);
	ck_assert_ptr_nonnull(c);
	memset(c, 3, 1 << 20);
	ck_assert_int_eq(b[999], 2);
	ck_assert_ptr_null(pt_rt_scratch(-1, 10));
	ck_assert_ptr_null(pt_rt_scratch(64, 10));
	ck_assert_ptr_null(pt_rt_scratch(0, -1));
	pt_rt_release_scratch();
	ck_assert_ptr_nonnull(pt_rt_scratch(0, 16));
	pt_rt_release_scratch();
}
END_TEST

/* A scratchpad that cannot be had is NULL with PT_ERR_NOMEM recorded
 * (no abort): past the address space, or past PT_MEMORY_LIMIT. */
START_TEST(scratch_out_of_memory_is_an_error)
{
	ck_assert_int_eq(pt_rt_take_error(), PT_OK);
	ck_assert_ptr_null(pt_rt_scratch(3, (int64_t)1 << 62));
	ck_assert_int_eq(pt_rt_take_error(), PT_ERR_NOMEM);
	setenv("PT_MEMORY_LIMIT", "1000000", 1);
	ck_assert_ptr_null(pt_rt_scratch(3, 2000000));
	ck_assert_int_eq(pt_rt_take_error(), PT_ERR_NOMEM);
	ck_assert_ptr_nonnull(pt_rt_scratch(3, 1000));
	ck_assert_int_eq(pt_rt_take_error(), PT_OK);
	unsetenv("PT_MEMORY_LIMIT");
	pt_rt_release_scratch();
}
END_TEST

/* A tile of 2^20 x 2^20 (issue 42) on a 2000 x 2000 image: its
 * scratchpad, clipped to the domain (8 MB), exceeds PT_MEMORY_LIMIT and
 * the compiled function returns PT_ERR_NOMEM (no abort), at 1 and 2
 * threads. */
START_TEST(huge_tiles_out_of_memory)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/blur.pipe", APPS_DIR);
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_file(ctx, path);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	pt_options o = { .opt_level = PT_OPT_GROUPED, .ntile = 2, .tile = { 1 << 20, 1 << 20 } };
	pt_program *prog = pt_compile(ctx, p, &o);
	ck_assert_msg(prog != NULL, "%s", pt_ctx_diagnostics(ctx));
	/* 2002 rows of 2000 u16: 8 MB of scratchpad, over a 1 MB limit */
	setenv("PT_MEMORY_LIMIT", "1000000", 1);
	int64_t ip[2] = { 2000, 2000 };
	double fp[2] = { 2000, 2000 };
	int64_t in_ext[2] = { 2002, 2002 }, out_ext[2] = { 2000, 2000 };
	pt_buffer in, out;
	ck_assert_int_eq(pt_buffer_alloc(&in, PT_U16, 2, in_ext), PT_OK);
	ck_assert_int_eq(pt_buffer_alloc(&out, PT_U16, 2, out_ext), PT_OK);
	const pt_buffer *inp[] = { &in };
	pt_buffer *outp[] = { &out };
	for (int t = 1; t <= 2; t++) {
		pt_set_num_threads(t);
		ck_assert_int_eq(pt_program_run(prog, ip, fp, inp, outp), PT_ERR_NOMEM);
		ck_assert_int_eq(pt_rt_take_error(), PT_OK);   /* taken by the function */
	}
	unsetenv("PT_MEMORY_LIMIT");
	pt_buffer_free(&in);
	pt_buffer_free(&out);
	pt_program_free(prog);
	pt_ctx_free(ctx);
}
END_TEST

/* App name compiled with tiles t0 x t1, its outputs against the
 * interpreter's at two sizes (sizes[2][2]: R, C), at 1 .. threads
 * threads. */
static void app_equals_interpreter(const char *app, int64_t t0, int64_t t1, const double (*sizes)[2],
	int threads, uint32_t seed)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s.pipe", APPS_DIR, app);
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_file(ctx, path);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	pt_options o = { .opt_level = PT_OPT_GROUPED, .ntile = 2, .tile = { t0, t1 } };
	pt_program *prog = pt_compile(ctx, p, &o);
	ck_assert_msg(prog != NULL, "%s: %s", path, pt_ctx_diagnostics(ctx));
	static const char *const rc[] = { "R", "C" };
	for (int sz = 0; sz < 2; sz++) {
		cmp_run r;
		cmp_start(&r, ctx, p, 2, rc, sizes[sz], seed + (uint32_t)sz);
		for (int t = 1; t <= threads; t++) {
			char label[600];
			snprintf(label, sizeof(label), "%s --tile %lldx%lld, %g x %g, %d threads", app,
				(long long)t0, (long long)t1, sizes[sz][0], sizes[sz][1], t);
			cmp_check(&r, prog, t, label);
		}
		cmp_finish(&r);
	}
	pt_program_free(prog);
	pt_ctx_free(ctx);
}

/* Grouped apps (tiles, scratchpads, several parallel loops) give the
 * interpreter's outputs bit for bit at 1, 2 and 3 threads, at a size
 * with fewer tiles than threads and one with more. */
START_TEST(grouped_apps_identical_at_1_2_3_threads)
{
	static const char *const names[] = { "harris", "local_laplacian", "unsharp_mask" };
	static const double sizes[][2] = { { 40, 35 }, { 260, 130 } };
	app_equals_interpreter(names[_i], 16, 32, sizes, 3, 7u);
}
END_TEST

/* Tiles of 2^20 rows on small images: a scratchpad's rows (and planes)
 * are clipped to the domain (codegen/scratch.c), so they run (no
 * terabytes asked) and equal the interpreter, at 1 and 2 threads; local
 * Laplacian has 3-D scratchpads of scaled stages (pyramid levels), its
 * columns 64 wide: a row is not clipped (pt_group_scratch_clipped), and
 * its 20 levels' scratchpads of 2^20-wide rows cost seconds of page
 * mapping. */
START_TEST(huge_tiles_clipped_to_the_domain)
{
	static const double sizes[][2] = { { 40, 35 }, { 75, 130 } };
	if (_i == 0)
		app_equals_interpreter("harris", 1 << 20, 1 << 20, sizes, 2, 11u);
	else
		app_equals_interpreter("local_laplacian", 1 << 20, 64, sizes, 2, 11u);
}
END_TEST

START_TEST(error_names)
{
	ck_assert_str_eq(pt_error_name(PT_OK), "ok");
	ck_assert_ptr_nonnull(strstr(pt_error_name(PT_ERR_EXTENT), "extent"));
	ck_assert_ptr_nonnull(strstr(pt_error_name(PT_ERR_STRIDE), "contiguous"));
	ck_assert_str_eq(pt_error_name(12345), "unknown error");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("parallel");
	TCase *tc = tcase_create("runtime");
	/* a loop waits for a chunk whose thread the system descheduled:
	 * on a loaded machine that is milliseconds per loop */
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, parallel_for_covers_each_iteration_once);
	tcase_add_test(tc, parallel_for_nested_runs_serially);
	tcase_add_test(tc, parallel_for_concurrent_callers);
	tcase_add_test(tc, parallel_for_shares_a_held_block);
	tcase_add_test(tc, parallel_for_in_a_forked_child);
	tcase_add_test(tc, thread_count_capped);
	tcase_add_test(tc, thread_creation_failure_runs_on_the_threads_that_exist);
	tcase_add_test(tc, scratch_out_of_memory_is_an_error);
	tcase_add_test(tc, alloc_sizes_alignment_and_reuse);
	tcase_add_test(tc, alloc_cache_keeps_the_newest);
	tcase_add_test(tc, scratch_slots_reuse_and_grow);
	tcase_add_test(tc, error_names);
	suite_add_tcase(s, tc);
	TCase *apps = tcase_create("grouped apps");
	tcase_set_timeout(apps, 300);
	tcase_add_loop_test(apps, grouped_apps_identical_at_1_2_3_threads, 0, 3);
	tcase_add_test(apps, huge_tiles_out_of_memory);
	tcase_add_loop_test(apps, huge_tiles_clipped_to_the_domain, 0, 2);
	suite_add_tcase(s, apps);
	return pt_test_run_suite(s);
}
