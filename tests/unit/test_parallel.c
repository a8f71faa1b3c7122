/* test_parallel.c: the runtime's parallel-for and intermediate buffers
 * (runtime/parallel.c). */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pt_runtime.h"

#include "run_suite.h"

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

/* Every iteration runs exactly once, for any count and thread number. */
START_TEST(parallel_for_covers_each_iteration_once)
{
	const int64_t ns[] = { 0, 1, 2, 3, 7, 64, 1001 };
	for (int t = 1; t <= 4; t++) {
		pt_set_num_threads(t);
		ck_assert_int_eq(pt_get_num_threads(), t);
		for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
			hits h = { ns[k], calloc((size_t)ns[k] + 1, sizeof(int)) };
			pt_parallel_for(ns[k], mark, &h);
			for (int64_t i = 0; i < ns[k]; i++)
				ck_assert_msg(h.count[i] == 1, "n=%lld threads=%d: iteration %lld ran %d times",
					(long long)ns[k], t, (long long)i, h.count[i]);
			free(h.count);
		}
	}
	pt_parallel_for(-5, mark, NULL);    /* nothing to run, ctx unused */
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
 * its 2 GiB or its 32 blocks evicts the oldest (the mappings are not
 * touched: no memory is used). */
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

	enum { N = 33 };
	void *blk[N], *got[N - 1];
	for (int i = 0; i < N; i++)
		ck_assert_ptr_nonnull(blk[i] = pt_rt_alloc(3 * mib));
	for (int i = 0; i < N; i++)
		pt_rt_free(blk[i]);          /* the 33rd evicts the first */
	for (int i = 0; i < N - 1; i++) {
		got[i] = pt_rt_alloc(3 * mib);
		bool cached = false;
		for (int j = 1; j < N; j++)
			cached |= got[i] == blk[j];
		ck_assert_msg(cached, "block %d is not one of the 32 freed last", i);
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
	tcase_add_test(tc, parallel_for_covers_each_iteration_once);
	tcase_add_test(tc, alloc_sizes_alignment_and_reuse);
	tcase_add_test(tc, alloc_cache_keeps_the_newest);
	tcase_add_test(tc, scratch_slots_reuse_and_grow);
	tcase_add_test(tc, error_names);
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
