/* gpu_emu.c: runs the CUDA target's kernels on the CPU, as a GPU would
 * run them, to test the mapping on machines without one.  A launch is a
 * grid of blocks, each of bdx x bdy threads; every thread of a block is
 * a coroutine on a stack of its own (ucontext), so that a barrier
 * (pt_gpu_barrier) really stops it until every thread of its block gets
 * there.  Between two barriers the threads run one after another, in
 * reversed order in one interval and shuffled in the next: a thread that
 * reads what another writes without a barrier in between sees the wrong
 * value in one of them, and the output differs from the interpreter's.
 * A block's scratchpads (pt_gpu_shared) go, in the order the kernel
 * asks, into its shared memory while they fit the device's per-block
 * limit, and past it into device memory of the block's own; both are
 * filled with a pattern before the block starts.  What the hardware
 * refuses, the launch refuses too: over 1,024 threads, a grid past
 * 2^31 - 1 blocks; and a barrier that some threads of a block reach and
 * others do not (undefined on a GPU) is an error here.  Blocks run one
 * at a time on the calling thread.  A kernel the compiler emitted no
 * barrier in runs without coroutines: each thread is one call, in the
 * same orders.  Switching between coroutines is a few instructions on
 * x86-64 (emu_switch below: callee-saved registers and the stack
 * pointer); elsewhere, and under AddressSanitizer (which must see the
 * stacks change), ucontext's swapcontext, which costs a system call
 * each (the signal mask): two thirds of an emulated run's time. */
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "gpu_stream.h"
#include "pt_runtime.h"

#define EMU_STACK (256 * 1024)
#define EMU_MAX_SLOTS 64

/* The device limits an emulated launch is checked against (an H100's
 * and H200's; shared memory per block without opting in to more, as the
 * tile model plans: grouping/target_desc.h). */
#define EMU_MAX_THREADS 1024
#define EMU_MAX_GRID 2147483647LL

#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define EMU_FAST 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EMU_FAST 0
#endif
#endif
#ifndef EMU_FAST
#define EMU_FAST 0
#endif

/* A coroutine's saved state: its stack pointer (the registers are on
 * its stack), or a ucontext. */
typedef struct emu_ctx {
#if EMU_FAST
	void *sp;
#else
	ucontext_t uc;
#endif
} emu_ctx;

#if EMU_FAST
/* emu_switch(save, to): pushes the System V callee-saved registers,
 * saves the stack pointer in *save, takes to's and pops its registers;
 * its ret returns where to last called emu_switch, or (a new coroutine)
 * to its entry (ctx_start). */
void pt_emu_switch(void **save, void *to);
__asm__(".text\n"
	".p2align 4\n"
	".globl pt_emu_switch\n"
	".hidden pt_emu_switch\n"
	".type pt_emu_switch, @function\n"
	"pt_emu_switch:\n"
	"\tpushq %rbp\n\tpushq %rbx\n\tpushq %r12\n\tpushq %r13\n\tpushq %r14\n\tpushq %r15\n"
	"\tmovq %rsp, (%rdi)\n"
	"\tmovq %rsi, %rsp\n"
	"\tpopq %r15\n\tpopq %r14\n\tpopq %r13\n\tpopq %r12\n\tpopq %rbx\n\tpopq %rbp\n"
	"\tret\n"
	".size pt_emu_switch, .-pt_emu_switch\n");

static void ctx_switch(emu_ctx *from, emu_ctx *to)
{
	pt_emu_switch(&from->sp, to->sp);
}

/* A coroutine that starts in entry (which never returns) on the stack
 * [stack, stack + size): its return address where a call would put it
 * (the stack 16-byte aligned before the call), six zeroed registers
 * below it. */
static void ctx_start(emu_ctx *c, char *stack, size_t size, void (*entry)(void))
{
	uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
	void **sp = (void **)(top - 16);
	sp[1] = NULL;
	memcpy(&sp[0], &entry, sizeof(entry));
	sp -= 6;
	memset(sp, 0, 6 * sizeof(void *));
	c->sp = sp;
}
#else
static void ctx_switch(emu_ctx *from, emu_ctx *to)
{
	swapcontext(&from->uc, &to->uc);
}

static void ctx_start(emu_ctx *c, char *stack, size_t size, void (*entry)(void))
{
	getcontext(&c->uc);
	c->uc.uc_stack.ss_sp = stack;
	c->uc.uc_stack.ss_size = size;
	c->uc.uc_link = NULL;
	makecontext(&c->uc, entry, 0);
}
#endif

typedef struct emu_thread {
	emu_ctx ctx;
	char *stack;
	int32_t tx, ty;
	int state;                  /* 0 running, 1 at a barrier, 2 done */
} emu_thread;

typedef struct emu_global {
	char *p;
	int64_t cap;
	bool used;                  /* in the running block */
} emu_global;

typedef struct emu_launch {
	pt_gpu_kernel_fn fn;
	void *arg;
	int64_t block;
	int nthreads;
	emu_thread *t;
	emu_ctx sched;
	emu_thread *cur;
	char *shared;               /* the block's shared memory */
	int64_t shared_used;
	int64_t slot_off[EMU_MAX_SLOTS], slot_bytes[EMU_MAX_SLOTS];
	emu_global global[EMU_MAX_SLOTS];
	uint64_t seed;
} emu_launch;

/* A scratchpad past the block's shared memory, in device memory: a
 * block's own slice (blocks run one at a time here, so one buffer). */
static bool global_slot(emu_global *g, int64_t bytes)
{
	if (bytes > g->cap) {
		void *p = realloc(g->p, (size_t)bytes);
		if (!p)
			return false;
		g->p = p;
		g->cap = bytes;
	}
	/* garbage, as on a device: a pattern */
	memset(g->p, 0xA5, (size_t)bytes);
	g->used = true;
	return true;
}

/* the launch running on this thread (a kernel calls back into it) */
static _Thread_local emu_launch *running;

static void thread_main(void)
{
	emu_launch *l = running;
	emu_thread *t = l->cur;
	l->fn(l->arg, l->block, t->tx, t->ty);
	t->state = 2;
	ctx_switch(&t->ctx, &l->sched);   /* never resumed */
	abort();
}

void pt_gpu_barrier(void)
{
	emu_launch *l = running;
	emu_thread *t = l->cur;
	if (!t) {
		/* launched as a kernel without barriers: a code generator's bug */
		pt_rt_fail_at(PT_ERR_DEVICE, "a barrier in a kernel launched without barriers", 0, NULL);
		return;
	}
	t->state = 1;
	ctx_switch(&t->ctx, &l->sched);
}

void *pt_gpu_shared(int32_t slot, int64_t bytes)
{
	emu_launch *l = running;
	if (slot < 0 || slot >= EMU_MAX_SLOTS) {
		pt_rt_fail_at(PT_ERR_DEVICE, "a kernel asked for shared memory slot past the emulator's 64", 0, NULL);
		return NULL;
	}
	/* every thread of the block asks; the first one places the slot */
	if (l->slot_off[slot] < 0 && !l->global[slot].used) {
		int64_t off = (l->shared_used + 15) & ~(int64_t)15;
		if (bytes < 0)
			return NULL;
		l->slot_bytes[slot] = bytes;
		if (off + bytes <= PT_GPU_SHARED_BYTES) {
			l->slot_off[slot] = off;
			l->shared_used = off + bytes;
		} else if (!global_slot(&l->global[slot], bytes)) {
			pt_rt_fail_at(PT_ERR_NOMEM, "no memory for a block's scratchpad in the emulated device memory", 0, NULL);
			return NULL;
		}
	} else if (l->slot_bytes[slot] != bytes) {
		pt_rt_fail_at(PT_ERR_DEVICE, "the threads of a block asked for different scratchpad sizes", 0, NULL);
		return NULL;
	}
	return l->slot_off[slot] >= 0 ? l->shared + l->slot_off[slot] : l->global[slot].p;
}

/* The order threads run in during interval k of a block: reversed, then
 * a shuffle (xorshift), alternately. */
static void order(emu_launch *l, int *ord, int k)
{
	int n = l->nthreads;
	for (int i = 0; i < n; i++)
		ord[i] = k % 2 == 0 ? n - 1 - i : i;
	if (k % 2 == 0)
		return;
	for (int i = n - 1; i > 0; i--) {
		l->seed ^= l->seed << 13;
		l->seed ^= l->seed >> 7;
		l->seed ^= l->seed << 17;
		int j = (int)(l->seed % (uint64_t)(i + 1));
		int x = ord[i];
		ord[i] = ord[j];
		ord[j] = x;
	}
}

/* Block b about to run: no scratchpad placed, shared memory garbage
 * (what a kernel reads of it without writing it is garbage on a GPU: a
 * pattern here, not zeros that might happen to be right). */
static void block_start(emu_launch *l, int64_t b)
{
	l->block = b;
	for (int i = 0; i < EMU_MAX_SLOTS; i++) {
		l->slot_off[i] = -1;
		l->global[i].used = false;
	}
	l->shared_used = 0;
	memset(l->shared, 0xA5, PT_GPU_SHARED_BYTES);
}

/* Runs block b to its end, each thread a coroutine: 0, or -1 when its
 * threads diverged at a barrier (the error recorded). */
static int run_block(emu_launch *l, int64_t b, int *ord)
{
	block_start(l, b);
	for (int i = 0; i < l->nthreads; i++) {
		emu_thread *t = &l->t[i];
		t->state = 0;
		ctx_start(&t->ctx, t->stack, EMU_STACK, thread_main);
	}
	for (int k = 0;; k++) {
		order(l, ord, k);
		int at_barrier = 0, done = 0;
		for (int i = 0; i < l->nthreads; i++) {
			emu_thread *t = &l->t[ord[i]];
			if (t->state == 2)
				continue;
			t->state = 0;
			l->cur = t;
			ctx_switch(&l->sched, &t->ctx);
		}
		for (int i = 0; i < l->nthreads; i++) {
			at_barrier += l->t[i].state == 1;
			done += l->t[i].state == 2;
		}
		if (done == l->nthreads)
			return 0;
		if (done) {
			char msg[200];
			snprintf(msg, sizeof(msg), "block %" PRId64 ": %d threads wait at a barrier that %d others never reach",
				l->block, at_barrier, done);
			pt_rt_fail_at(PT_ERR_DEVICE, msg, 0, NULL);
			return -1;
		}
	}
}

static int launch_error(const char *fmt, int64_t v)
{
	char msg[200];
	snprintf(msg, sizeof(msg), fmt, v);
	pt_rt_fail_at(PT_ERR_DEVICE, msg, 0, NULL);
	return PT_ERR_DEVICE;
}

/* A kernel without barriers: each thread runs to its end in one call,
 * on this stack, in the same orders (no coroutine to switch to). */
static void run_plain(emu_launch *l, int64_t b, int *ord, int bdx)
{
	block_start(l, b);
	order(l, ord, (int)(b % 2));
	l->cur = NULL;
	for (int i = 0; i < l->nthreads; i++)
		l->fn(l->arg, b, ord[i] % bdx, ord[i] / bdx);
}

/* The threads' coroutine stacks, NULL when the kernel has no barrier. */
static char *thread_stacks(emu_launch *l, int bdx)
{
	/* mapped, not malloc'ed: a thread touches a few pages of its stack,
	 * and malloc under MALLOC_PERTURB_ (meson test sets it) would write
	 * every byte of them at each launch */
	char *stacks = mmap(NULL, (size_t)l->nthreads * EMU_STACK, PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (stacks == MAP_FAILED)
		return NULL;
	for (int i = 0; stacks && i < l->nthreads; i++) {
		l->t[i].stack = stacks + (size_t)i * EMU_STACK;
		l->t[i].tx = i % bdx;
		l->t[i].ty = i / bdx;
	}
	return stacks;
}

static int32_t emu_launch_range(int64_t b0, int64_t b1, int32_t bdx, int32_t bdy, int32_t barriers,
	pt_gpu_kernel_fn fn, void *arg);

/* ---- streamed copies (pt_gpu_stream) ---- */

static _Thread_local pt_stream_set emu_streamed;
static _Thread_local const pt_gpu_stream *emu_plan;

uint64_t pt_gpu_emu_bind_streamed(pt_buffer *b)
{
	if (!pt_stream_layout_ok(&emu_streamed, b))   /* its copies are the host's own elements */
		return (uint64_t)(uintptr_t)b->data;
	size_t n = (size_t)pt_stream_span_bytes(b);
	char *dev = malloc(n);
	if (!dev) {
		pt_rt_fail_at(PT_ERR_NOMEM, "no memory for a buffer's emulated device copy", 0, NULL);
		return 0;
	}
	/* garbage, as on a device: a pattern */
	memset(dev, 0xA5, n);
	pt_stream_set_add(&emu_streamed, b);
	return (uint64_t)(uintptr_t)dev;
}

void pt_gpu_emu_unbind_streamed(pt_buffer *b, uint64_t dev)
{
	if (pt_stream_set_forget(&emu_streamed, b))
		free((void *)(uintptr_t)dev);
}

void pt_gpu_emu_stream(const pt_gpu_stream *plan)
{
	emu_plan = plan;
}

static _Thread_local int64_t chunks_run;

int64_t pt_gpu_emu_chunks_run(void)
{
	return chunks_run;
}

/* Chunks c0 .. c1 - 1's boxes of the streamed buffers, in (host to
 * device copy) or out, clamped to each buffer's extents. */
static void emu_copies(const pt_gpu_stream *p, int c0, int c1, bool out)
{
	for (int c = c0; c < c1; c++)
		for (int i = 0; i < p->nbuf; i++) {
			const pt_buffer *b = p->buf[i];
			if ((p->output[i] != 0) != out || !pt_stream_set_has(&emu_streamed, b))
				continue;
			int64_t cl[2 * PT_MAX_DIMS], zero[PT_MAX_DIMS] = { 0 };
			if (!pt_gpu_stream_box(p, c, i, cl))
				continue;
			char *dev = (char *)(uintptr_t)p->dev[i];
			if (out)
				pt_copy_box(b->data, zero, b->stride, dev, zero, b->stride, b->ndim, (int)pt_type_size(b->type), cl);
			else
				pt_copy_box(dev, zero, b->stride, b->data, zero, b->stride, b->ndim, (int)pt_type_size(b->type), cl);
		}
}

int32_t pt_gpu_emu_launch(int64_t nblocks, int32_t bdx, int32_t bdy, int32_t barriers, pt_gpu_kernel_fn fn, void *arg)
{
	const pt_gpu_stream *plan = emu_plan;
	if (plan && plan->launch && plan->launch != (const void *)fn)
		plan = NULL;   /* a launch before the streamed one: as it comes */
	else
		emu_plan = NULL;
	if (plan) {
		/* chunk by chunk: its inputs in, its blocks, its outputs out
		 * (all at once where the blocks are not rows of equal ones) */
		int64_t per_row = plan->rows > 0 && nblocks % plan->rows == 0 ? nblocks / plan->rows : 0;
		int groups = per_row ? plan->nchunks : 1;
		for (int g = 0; g < groups; g++) {
			int c0 = per_row ? g : 0, c1 = per_row ? g + 1 : plan->nchunks;
			emu_copies(plan, c0, c1, false);
			int64_t b0 = per_row ? plan->first[c0] * per_row : 0;
			int64_t b1 = per_row ? plan->first[c1] * per_row : nblocks;
			chunks_run += per_row && b1 > b0;
			int32_t rc = emu_launch_range(b0, b1, bdx, bdy, barriers, fn, arg);
			if (rc)
				return rc;
			emu_copies(plan, c0, c1, true);
		}
		return 0;
	}
	return emu_launch_range(0, nblocks, bdx, bdy, barriers, fn, arg);
}

/* Blocks b0 .. b1 - 1 of a launch. */
static int32_t emu_launch_range(int64_t b0, int64_t b1, int32_t bdx, int32_t bdy, int32_t barriers,
	pt_gpu_kernel_fn fn, void *arg)
{
	int64_t nblocks = b1;
	if (bdx < 1 || bdy < 1 || (int64_t)bdx * bdy > EMU_MAX_THREADS)
		return launch_error("a kernel's block of %" PRId64 " threads is over the device's 1024", (int64_t)bdx * bdy);
	if (nblocks > EMU_MAX_GRID)
		return launch_error("a kernel's grid of %" PRId64 " blocks is over the device's 2^31 - 1", nblocks);
	if (nblocks <= 0)
		return 0;
	emu_launch l = { .fn = fn, .arg = arg, .nthreads = bdx * bdy, .seed = 0x9E3779B97F4A7C15ull };
	l.t = calloc((size_t)l.nthreads, sizeof(*l.t));
	l.shared = malloc(PT_GPU_SHARED_BYTES);
	int *ord = malloc(sizeof(int) * (size_t)l.nthreads);
	char *stacks = l.t && barriers ? thread_stacks(&l, bdx) : NULL;
	int rc = 0;
	if (!l.t || !l.shared || !ord || (barriers && !stacks)) {
		pt_rt_fail_at(PT_ERR_NOMEM, "no memory for the GPU emulator's threads", 0, NULL);
		rc = PT_ERR_NOMEM;
	} else {
		emu_launch *outer = running;
		running = &l;
		for (int64_t b = b0; b < nblocks && rc == 0; b++)
			if (barriers)
				rc = run_block(&l, b, ord) ? PT_ERR_DEVICE : 0;
			else
				run_plain(&l, b, ord, bdx);
		running = outer;
	}
	for (int i = 0; i < EMU_MAX_SLOTS; i++)
		free(l.global[i].p);
	if (stacks)
		munmap(stacks, (size_t)l.nthreads * EMU_STACK);
	free(ord);
	free(l.shared);
	free(l.t);
	return rc;
}
