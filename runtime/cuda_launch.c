/* cuda_launch.c: the CUDA target's launches (pt_cuda_launch): one, or,
 * with streamed copies (pt_runtime.h's pt_gpu_stream), the launch the
 * plan names in chunks of its outermost block loop (once the launches
 * before it are done), on three streams of
 * the driver's, so that chunk c + 1's inputs go up while
 * chunk c computes and chunk c - 1's outputs come back (the device
 * copies in both directions at once):
 *   up      each chunk's input boxes, gathered on the host into a pinned
 *           buffer (two, alternately), then one 2-D copy per plane of a
 *           box into the device arrays (same strides as the host's);
 *   kernel  the chunk's blocks, once its inputs are up;
 *   down    its output boxes into a pinned buffer (two, alternately),
 *           once its blocks are done; the host scatters them into the
 *           caller's buffers while the next chunk runs.
 * A buffer is streamed only when bound so (pt_cuda_bind_streamed): it
 * has no device copy of its own and its last dim's elements are
 * adjacent; the others were copied whole when bound. */
#include <pthread.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_driver.h"
#include "gpu_stream.h"
#include "pt_runtime.h"

static _Thread_local pt_stream_set streamed;
static _Thread_local const pt_gpu_stream *next_plan;
/* launches made on the default stream while the plan waited for its own */
static _Thread_local bool launched_before;

static bool streamable(const pt_buffer *b)
{
	const char *env = getenv("PT_CUDA_STREAM");
	return !b->device && !(env && !strcmp(env, "off")) && !pt_cuda_is_dry() && pt_stream_layout_ok(&streamed, b);
}

uint64_t pt_cuda_bind_streamed(pt_buffer *b, int32_t role, const int64_t *box)
{
	if (!streamable(b))
		return box ? pt_cuda_bind_box(b, box) : pt_cuda_bind(b, role);
	uint64_t at = pt_cuda_alloc(pt_stream_span_bytes(b));
	if (at)
		pt_stream_set_add(&streamed, b);
	return at;
}

void pt_cuda_unbind_streamed(pt_buffer *b, int32_t output, uint64_t dev, const int64_t *box)
{
	if (pt_stream_set_forget(&streamed, b))
		pt_cuda_free(dev);
	else if (box)
		pt_cuda_unbind_box(b, dev, box);
	else
		pt_cuda_unbind(b, output, dev);
}

void pt_cuda_stream(const pt_gpu_stream *plan)
{
	if (pt_cuda_is_dry()) {
		/* recorded, not run: the launch is recorded whole */
		if (plan)
			pt_cuda_dry_note_stream(plan->nchunks);
		next_plan = NULL;
		return;
	}
	next_plan = plan;
	launched_before = false;
}

/* ---- boxes ---- */

/* Whether buffer i moves in the plan's chunks (in or out, as asked). */
static bool moves(const pt_gpu_stream *p, int i, bool out)
{
	return (p->output[i] != 0) == out && pt_stream_set_has(&streamed, p->buf[i]);
}

/* The dense layout of box (its elements row after row). */
static void dense_strides(const int64_t *box, int ndim, int64_t *stride)
{
	int64_t s = 1;
	for (int d = ndim - 1; d >= 0; d--) {
		stride[d] = s;
		s *= box[2 * d + 1] - box[2 * d] + 1;
	}
}

typedef struct box_copy {
	char *dense;                /* the box's elements, dense */
	const pt_buffer *b;
	const int64_t *box;
	bool out;                   /* dense -> the buffer */
} box_copy;

/* Rows lo .. hi - 1 of the box's dim 0, between the buffer and dense. */
static void copy_rows(void *ctx, int64_t lo, int64_t hi)
{
	box_copy *k = ctx;
	const pt_buffer *b = k->b;
	int64_t part[2 * PT_MAX_DIMS], ds[PT_MAX_DIMS], zero[PT_MAX_DIMS] = { 0 }, org[PT_MAX_DIMS];
	memcpy(part, k->box, sizeof(part[0]) * 2 * (size_t)b->ndim);
	part[0] = k->box[0] + lo;
	part[1] = k->box[0] + hi - 1;
	dense_strides(k->box, b->ndim, ds);
	for (int d = 0; d < b->ndim; d++)
		org[d] = k->box[2 * d];
	int esz = (int)pt_type_size(b->type);
	if (k->out)
		pt_copy_box(b->data, zero, b->stride, k->dense, org, ds, b->ndim, esz, part);
	else
		pt_copy_box(k->dense, org, ds, b->data, zero, b->stride, b->ndim, esz, part);
}

/* Between buffer b and dense (its box's elements), on the pool's
 * threads by rows of dim 0. */
static void host_box(const pt_buffer *b, const int64_t *box, char *dense, bool out)
{
	box_copy k = { dense, b, box, out };
	if (b->ndim == 0) {
		if (out)
			memcpy(b->data, dense, pt_type_size(b->type));
		else
			memcpy(dense, b->data, pt_type_size(b->type));
		return;
	}
	int64_t rows = box[1] - box[0] + 1;
	if (rows > 1)
		pt_parallel_for(rows, copy_rows, &k);
	else
		copy_rows(&k, 0, rows);
}

/* The 2-D copies of box between the device array at dev (the buffer's
 * strides) and dense (pinned), one per plane of its last two dims. */
static CUresult device_box(const pt_buffer *b, uint64_t dev, const int64_t *box, char *dense, bool out, CUstream s)
{
	int n = b->ndim, esz = (int)pt_type_size(b->type);
	int64_t width = n ? box[2 * n - 1] - box[2 * n - 2] + 1 : 1, height = n > 1 ? box[2 * n - 3] - box[2 * n - 4] + 1 : 1;
	int64_t x[PT_MAX_DIMS];
	for (int d = 0; d < n; d++)
		x[d] = box[2 * d];
	size_t plane = (size_t)(width * height * esz);
	for (char *at = dense;; at += plane) {
		int64_t off = 0;
		for (int d = 0; d < n; d++)
			off += x[d] * b->stride[d];
		CUDA_MEMCPY2D m = { 0 };
		m.WidthInBytes = (size_t)(width * esz);
		m.Height = (size_t)height;
		size_t pitch = n > 1 ? (size_t)(b->stride[n - 2] * esz) : m.WidthInBytes;
		if (out) {
			m.srcMemoryType = CU_MEMORYTYPE_DEVICE;
			m.srcDevice = dev + (uint64_t)(off * esz);
			m.srcPitch = pitch;
			m.dstMemoryType = CU_MEMORYTYPE_HOST;
			m.dstHost = at;
			m.dstPitch = m.WidthInBytes;
		} else {
			m.srcMemoryType = CU_MEMORYTYPE_HOST;
			m.srcHost = at;
			m.srcPitch = m.WidthInBytes;
			m.dstMemoryType = CU_MEMORYTYPE_DEVICE;
			m.dstDevice = dev + (uint64_t)(off * esz);
			m.dstPitch = pitch;
		}
		CUresult r = D.Memcpy2DAsync(&m, s);
		if (r)
			return r;
		/* the next plane: the dims before the last two, odometer-wise */
		int d = n - 3;
		while (d >= 0 && x[d] == box[2 * d + 1]) {
			x[d] = box[2 * d];
			d--;
		}
		if (d < 0)
			return 0;
		x[d]++;
	}
}

/* ---- the pipeline ---- */

static pthread_mutex_t stream_lock = PTHREAD_MUTEX_INITIALIZER;
static CUstream s_up, s_kernel, s_down;
static CUevent up_done[2], kernel_done, down_done[2];
static bool made;
static void *pinned[2][2];          /* [up, down][slot] */
static size_t pinned_cap[2][2];

static CUresult make(void)
{
	if (made)
		return 0;
	CUresult r = D.StreamCreate(&s_up, CU_STREAM_NON_BLOCKING);
	if (!r)
		r = D.StreamCreate(&s_kernel, CU_STREAM_NON_BLOCKING);
	if (!r)
		r = D.StreamCreate(&s_down, CU_STREAM_NON_BLOCKING);
	for (int i = 0; i < 2 && !r; i++)
		if (!(r = D.EventCreate(&up_done[i], 0)))
			r = D.EventCreate(&down_done[i], 0);
	if (!r)
		r = D.EventCreate(&kernel_done, 0);
	made = !r;
	return r;
}

/* Pinned buffer [dir][slot] of at least n bytes (its copies done). */
static CUresult pinned_for(int dir, int slot, size_t n)
{
	if (pinned_cap[dir][slot] >= n)
		return 0;
	if (pinned[dir][slot])
		D.MemFreeHost(pinned[dir][slot]);
	pinned[dir][slot] = NULL;
	pinned_cap[dir][slot] = 0;
	CUresult r = D.MemHostAlloc(&pinned[dir][slot], n, 0);
	if (!r)
		pinned_cap[dir][slot] = n;
	return r;
}

/* The bytes chunks c0 .. c1 - 1 move in one direction. */
static size_t group_bytes(const pt_gpu_stream *p, int c0, int c1, bool out)
{
	size_t n = 0;
	int64_t box[2 * PT_MAX_DIMS];
	for (int c = c0; c < c1; c++)
		for (int i = 0; i < p->nbuf; i++)
			if (moves(p, i, out))
				n += (size_t)pt_gpu_stream_box(p, c, i, box);
	return n;
}

/* Chunks c0 .. c1 - 1's boxes between the host buffers and pinned,
 * and (with s) between pinned and the device, in one direction. */
static CUresult group_copies(const pt_gpu_stream *p, int c0, int c1, bool out, char *pin, CUstream s, bool host)
{
	int64_t box[2 * PT_MAX_DIMS];
	for (int c = c0; c < c1; c++)
		for (int i = 0; i < p->nbuf; i++) {
			int64_t n = moves(p, i, out) ? pt_gpu_stream_box(p, c, i, box) : 0;
			if (!n)
				continue;
			if (host)
				host_box(p->buf[i], box, pin, out);
			if (s) {
				CUresult r = device_box(p->buf[i], p->dev[i], box, pin, out, s);
				if (r)
					return r;
			}
			pin += n;
		}
	return 0;
}

typedef struct launch {
	CUfunction fn;
	int64_t per_row;            /* blocks per iteration; 0: one launch */
	int64_t blocks;
	int32_t bdx, bdy, shared;
	void **params;
	int slot;                   /* the params' block offset */
} launch;

/* Group g: chunk g (or, without rows of blocks, every chunk at once). */
static void group_range(const pt_gpu_stream *p, const launch *l, int g, int *c0, int *c1)
{
	*c0 = l->per_row ? g : 0;
	*c1 = l->per_row ? g + 1 : p->nchunks;
}

static CUresult run_group(const pt_gpu_stream *p, const launch *l, int g, const char **what)
{
	int c0, c1, slot = g & 1;
	group_range(p, l, g, &c0, &c1);
	CUresult r;
	/* up: this slot's last copies done before the host overwrites it */
	*what = "a chunk's inputs could not be copied to the device";
	if ((g >= 2 && (r = D.EventSynchronize(up_done[slot]))) ||
	    (r = pinned_for(0, slot, group_bytes(p, c0, c1, false))) ||
	    (r = group_copies(p, c0, c1, false, pinned[0][slot], s_up, true)) || (r = D.EventRecord(up_done[slot], s_up)))
		return r;
	*what = "a chunk of the kernel could not be launched";
	int64_t first = l->per_row ? p->first[c0] * l->per_row : 0;
	int64_t n = l->per_row ? (p->first[c1] - p->first[c0]) * l->per_row : l->blocks;
	void *saved = l->params[l->slot];
	l->params[l->slot] = &first;
	r = D.StreamWaitEvent(s_kernel, up_done[slot], 0);
	if (!r && n > 0)
		r = D.LaunchKernel(l->fn, (unsigned)n, 1, 1, (unsigned)l->bdx, (unsigned)l->bdy, 1, (unsigned)l->shared,
			s_kernel, l->params, NULL);
	l->params[l->slot] = saved;
	if (r || (r = D.EventRecord(kernel_done, s_kernel)))
		return r;
	*what = "a chunk's outputs could not be copied back from the device";
	if ((r = D.StreamWaitEvent(s_down, kernel_done, 0)) || (r = pinned_for(1, slot, group_bytes(p, c0, c1, true))) ||
	    (r = group_copies(p, c0, c1, true, pinned[1][slot], s_down, false)))
		return r;
	return D.EventRecord(down_done[slot], s_down);
}

/* Group g's outputs, come back, into the caller's buffers. */
static CUresult scatter(const pt_gpu_stream *p, const launch *l, int g)
{
	int c0, c1;
	group_range(p, l, g, &c0, &c1);
	CUresult r = D.EventSynchronize(down_done[g & 1]);
	if (!r)
		group_copies(p, c0, c1, true, pinned[1][g & 1], NULL, true);
	return r;
}

static int32_t stream_launch(const pt_gpu_stream *p, CUfunction fn, int64_t blocks, int32_t bdx, int32_t bdy,
	int32_t shared, void **params, bool wait)
{
	launch l = { fn, p->rows > 0 && blocks % p->rows == 0 ? blocks / p->rows : 0, blocks, bdx, bdy, shared, params, 0 };
	while (params[l.slot + 1])
		l.slot++;
	/* the chunks with blocks (a prefix: first[] never decreases) */
	int groups = 1;
	if (l.per_row)
		for (groups = 0; groups < p->nchunks && p->first[groups + 1] > p->first[groups]; groups++)
			;
	const char *what = "the streams of a streamed run could not be made";
	pthread_mutex_lock(&stream_lock);
	CUresult r = make();
	/* the run's launches before this one, on the default stream, which
	 * the streams here do not wait for */
	if (!r && wait && (r = D.CtxSynchronize()))
		what = "the kernels before a streamed launch failed";
	for (int g = 0; g < groups && !r; g++) {
		r = run_group(p, &l, g, &what);
		/* the group before comes back while this one runs */
		if (!r && g > 0 && (r = scatter(p, &l, g - 1)))
			what = "a chunk's outputs could not be copied back from the device";
	}
	if (!r && groups > 0 && (r = scatter(p, &l, groups - 1)))
		what = "a chunk's outputs could not be copied back from the device";
	pthread_mutex_unlock(&stream_lock);
	return r ? pt_cuda_fail(PT_ERR_DEVICE, what, r) : 0;
}

int32_t pt_cuda_launch(const char *ptx, void **mod, const char *kernel, void **fn, int64_t blocks, int32_t bdx,
	int32_t bdy, int32_t shared, void **params)
{
	const pt_gpu_stream *plan = next_plan;
	if (plan && plan->launch && strcmp(plan->launch, kernel)) {
		plan = NULL;   /* a launch before the streamed one: as it comes */
		launched_before = true;
	} else {
		next_plan = NULL;
	}
	int32_t code = pt_cuda_function(ptx, mod, kernel, fn, blocks, bdx, bdy, shared);
	if (code)
		return code > 0 ? 0 : code;
	if (plan)
		return stream_launch(plan, (CUfunction)*fn, blocks, bdx, bdy, shared, params, launched_before);
	void *timed = pt_cuda_profile_begin(kernel);
	CUresult r = D.LaunchKernel((CUfunction)*fn, (unsigned)blocks, 1, 1, (unsigned)bdx, (unsigned)bdy, 1,
		(unsigned)shared, NULL, params, NULL);
	pt_cuda_profile_end(timed);
	if (r) {
		char msg[400];
		snprintf(msg, sizeof(msg), "kernel %s (%lld blocks of %d x %d threads, %d bytes of shared memory) could not "
			"be launched", kernel, (long long)blocks, bdx, bdy, shared);
		return pt_cuda_fail(PT_ERR_DEVICE, msg, r);
	}
	return 0;
}
