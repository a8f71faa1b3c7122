/* test_gpu_emu.c: the runtime's GPU emulator (runtime/gpu_emu.c) on
 * hand-written kernels: every thread of every block runs once; a
 * barrier holds each thread until its whole block gets there; a read of
 * another thread's write without a barrier sees the wrong value (the
 * threads run in reversed and shuffled order), so a missing barrier in
 * generated code cannot pass; what a device refuses (over 1,024 threads
 * in a block, a barrier some threads skip) is PT_ERR_DEVICE with a
 * message; scratchpads past the block's shared memory still work. */
#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pt_runtime.h"
#include "run_suite.h"

typedef struct counts {
	int64_t nblocks;
	int bdx, bdy;
	int *ran;                   /* per block and thread */
	int *out;
	bool barrier;
	int order_pos;
	int *order;
} counts;

static void count_kernel(void *ctx, int64_t block, int32_t tx, int32_t ty)
{
	counts *c = ctx;
	c->ran[block * c->bdx * c->bdy + ty * c->bdx + tx]++;
}

START_TEST(every_thread_of_every_block_runs_once)
{
	counts c = { .nblocks = 7, .bdx = 32, .bdy = 3 };
	c.ran = calloc((size_t)(c.nblocks * c.bdx * c.bdy), sizeof(int));
	ck_assert_int_eq(pt_gpu_emu_launch(c.nblocks, c.bdx, c.bdy, 0, count_kernel, &c), 0);
	for (int64_t i = 0; i < c.nblocks * c.bdx * c.bdy; i++)
		ck_assert_int_eq(c.ran[i], 1);
	free(c.ran);
	ck_assert_int_eq(pt_gpu_emu_launch(0, 1, 1, 0, count_kernel, &c), 0);
}
END_TEST

/* Each thread writes its index into shared memory, then (after a
 * barrier, or not) reads its right neighbour's. */
static void neighbour_kernel(void *ctx, int64_t block, int32_t tx, int32_t ty)
{
	counts *c = ctx;
	(void)ty;
	int *sh = pt_gpu_shared(0, (int64_t)sizeof(int) * c->bdx);
	sh[tx] = tx + 1000 * (int)block;
	if (c->barrier)
		pt_gpu_barrier();
	c->out[block * c->bdx + tx] = sh[(tx + 1) % c->bdx];
}

static int neighbour_errors(bool barrier)
{
	counts c = { .nblocks = 3, .bdx = 64, .bdy = 1, .barrier = barrier };
	c.out = calloc((size_t)(c.nblocks * c.bdx), sizeof(int));
	ck_assert_int_eq(pt_gpu_emu_launch(c.nblocks, c.bdx, 1, 1, neighbour_kernel, &c), 0);
	int wrong = 0;
	for (int b = 0; b < c.nblocks; b++)
		for (int t = 0; t < c.bdx; t++)
			wrong += c.out[b * c.bdx + t] != (t + 1) % c.bdx + 1000 * b;
	free(c.out);
	return wrong;
}

START_TEST(a_barrier_makes_writes_visible_and_its_absence_shows)
{
	ck_assert_int_eq(neighbour_errors(true), 0);
	ck_assert_int_gt(neighbour_errors(false), 0);
}
END_TEST

/* Thread order differs between two barrier intervals: reversed, then
 * shuffled. */
static void order_kernel(void *ctx, int64_t block, int32_t tx, int32_t ty)
{
	counts *c = ctx;
	(void)block;
	(void)ty;
	c->order[c->order_pos++] = tx;
	pt_gpu_barrier();
	c->order[c->order_pos++] = tx;
}

START_TEST(threads_run_reversed_then_shuffled)
{
	counts c = { .nblocks = 1, .bdx = 16, .bdy = 1 };
	c.order = calloc(32, sizeof(int));
	ck_assert_int_eq(pt_gpu_emu_launch(1, 16, 1, 1, order_kernel, &c), 0);
	for (int i = 0; i < 16; i++)
		ck_assert_int_eq(c.order[i], 15 - i);
	bool reversed = true, ascending = true;
	int seen = 0;
	for (int i = 0; i < 16; i++) {
		reversed = reversed && c.order[16 + i] == 15 - i;
		ascending = ascending && c.order[16 + i] == i;
		seen |= 1 << c.order[16 + i];
	}
	ck_assert_int_eq(seen, 0xffff);
	ck_assert(!reversed && !ascending);
	free(c.order);
}
END_TEST

static void diverging_kernel(void *ctx, int64_t block, int32_t tx, int32_t ty)
{
	(void)ctx;
	(void)block;
	(void)ty;
	if (tx % 2)
		pt_gpu_barrier();
}

START_TEST(refused_launches_are_device_errors)
{
	counts c = { .nblocks = 1, .bdx = 1, .bdy = 1 };
	c.ran = calloc(2048, sizeof(int));
	ck_assert_int_eq(pt_gpu_emu_launch(1, 1025, 1, 0, count_kernel, &c), PT_ERR_DEVICE);
	ck_assert_int_eq(pt_rt_take_error(), PT_ERR_DEVICE);
	ck_assert_ptr_nonnull(strstr(pt_rt_error_detail(), "1025 threads"));
	ck_assert_int_eq(pt_gpu_emu_launch(1, 64, 32, 0, count_kernel, &c), PT_ERR_DEVICE);
	ck_assert_int_eq(pt_rt_take_error(), PT_ERR_DEVICE);
	ck_assert_int_eq(pt_gpu_emu_launch(1LL << 32, 1, 1, 0, count_kernel, &c), PT_ERR_DEVICE);
	ck_assert_int_eq(pt_rt_take_error(), PT_ERR_DEVICE);
	ck_assert_ptr_nonnull(strstr(pt_rt_error_detail(), "blocks"));
	ck_assert_int_eq(pt_gpu_emu_launch(2, 8, 1, 1, diverging_kernel, NULL), PT_ERR_DEVICE);
	ck_assert_int_eq(pt_rt_take_error(), PT_ERR_DEVICE);
	ck_assert_ptr_nonnull(strstr(pt_rt_error_detail(), "barrier"));
	/* a barrier in a kernel launched as having none */
	c.order = calloc(32, sizeof(int));
	c.order_pos = 0;
	ck_assert_int_eq(pt_gpu_emu_launch(1, 4, 1, 0, order_kernel, &c), 0);
	ck_assert_int_eq(pt_rt_take_error(), PT_ERR_DEVICE);
	ck_assert_ptr_nonnull(strstr(pt_rt_error_detail(), "launched without barriers"));
	free(c.order);
	free(c.ran);
}
END_TEST

/* Two scratchpads of 40 KiB: the second is past the 48 KiB of shared
 * memory, in the block's device memory; both hold what was written. */
static void big_kernel(void *ctx, int64_t block, int32_t tx, int32_t ty)
{
	counts *c = ctx;
	(void)ty;
	int n = 10240;
	int *a = pt_gpu_shared(0, (int64_t)sizeof(int) * n), *b = pt_gpu_shared(1, (int64_t)sizeof(int) * n);
	for (int i = tx; i < n; i += c->bdx) {
		a[i] = i;
		b[i] = 2 * i + (int)block;
	}
	pt_gpu_barrier();
	int bad = 0;
	for (int i = 0; i < n; i++)
		bad += a[i] != i || b[i] != 2 * i + (int)block;
	c->out[block * c->bdx + tx] = bad;
}

START_TEST(scratchpads_past_shared_memory_work)
{
	counts c = { .nblocks = 2, .bdx = 32, .bdy = 1 };
	c.out = calloc(64, sizeof(int));
	ck_assert_int_eq(pt_gpu_emu_launch(2, 32, 1, 1, big_kernel, &c), 0);
	for (int i = 0; i < 64; i++)
		ck_assert_int_eq(c.out[i], 0);
	free(c.out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("gpu_emu");
	TCase *tc = tcase_create("emulator");
	tcase_add_test(tc, every_thread_of_every_block_runs_once);
	tcase_add_test(tc, a_barrier_makes_writes_visible_and_its_absence_shows);
	tcase_add_test(tc, threads_run_reversed_then_shuffled);
	tcase_add_test(tc, refused_launches_are_device_errors);
	tcase_add_test(tc, scratchpads_past_shared_memory_work);
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
