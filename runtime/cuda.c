/* cuda.c: the CUDA runtime's side of the CUDA target.  libcuda.so.1 (the
 * driver) is opened with dlopen at first use, so that polytile builds,
 * links and runs on machines without a GPU or a driver, where a
 * pipeline fails with PT_ERR_DEVICE and says why.
 *
 * What a compiled pipeline calls (codegen/cuda.c):
 *   pt_cuda_bind / pt_cuda_unbind   a pt_buffer's device address for
 *       the run: its own device copy (uploaded when the host's is
 *       newer), or a copy staged in for the run and back out after it;
 *   pt_cuda_alloc / pt_cuda_free    intermediate stages, from a pool
 *       (cuMemAlloc and cuMemFree synchronize and take milliseconds);
 *   pt_cuda_memset                  the stages' masks and pads;
 *   pt_cuda_cubin                   the module's cubin, when it has one
 *       and the GPU runs it, into that slot before the first launch;
 *   pt_cuda_launch (cuda_launch.c)  a kernel of the module's PTX, loaded
 *       once into a slot of the calling code's (pt_cuda_function);
 *   pt_cuda_finish                  waits for the kernels and takes the
 *       error a kernel recorded in the module's pt_error.
 * Copies of more than a MiB go through two pinned staging buffers, the
 * next chunk's host copy (on the pool's threads) overlapping the current
 * chunk's transfer: the host link moves several times more from pinned
 * memory than from pageable memory.  Every driver failure becomes a
 * pt_error code with the driver's name for it (docs/cuda.md). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_driver.h"
#include "pt_runtime.h"

struct driver pt_cuda_drv;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static CUcontext ctx;
static int init_code;              /* 0, or why the device cannot be used */
static char init_why[300];

/* Dry runs (pt_cuda_dry_run): no driver; addresses nothing reads;
 * launches recorded. */
static int dry;
static uint64_t dry_next;
static pt_cuda_launch_info *dry_rec;
static int dry_n, dry_cap;
static double dry_bytes;
static int dry_chunks;             /* the call's plan's chunks (streamed copies) */

/* A dry run's address for n bytes: distinct, aligned, never read. */
static uint64_t dry_address(int64_t n)
{
	uint64_t at = dry_next;
	dry_next += ((uint64_t)(n > 0 ? n : 1) + 4095) & ~(uint64_t)4095;
	dry_bytes += (double)n;
	return at;
}

/* Records code with "what: the driver's name and text for r". */
static int32_t fail(int32_t code, const char *what, CUresult r)
{
	const char *name = "?", *text = "";
	if (D.GetErrorName)
		D.GetErrorName(r, &name);
	if (D.GetErrorString)
		D.GetErrorString(r, &text);
	char msg[400];
	if (r)
		snprintf(msg, sizeof(msg), "%s: %s (%s)", what, name ? name : "?", text ? text : "");
	else
		snprintf(msg, sizeof(msg), "%s", what);
	pt_rt_fail_at(code, msg, 0, NULL);
	return code;
}

/* Each entry point by its field: a table of names in another order
 * would call one function through another's pointer. */
#define SYM(field, name) { name, offsetof(struct driver, field) }
static const struct {
	const char *name;
	size_t off;
} symbols[] = {
	SYM(Init, "cuInit"), SYM(DeviceGetCount, "cuDeviceGetCount"), SYM(DeviceGet, "cuDeviceGet"),
	SYM(DeviceGetName, "cuDeviceGetName"),
	SYM(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"), SYM(CtxSetCurrent, "cuCtxSetCurrent"),
	SYM(CtxSynchronize, "cuCtxSynchronize"), SYM(ModuleLoadDataEx, "cuModuleLoadDataEx"),
	SYM(ModuleGetFunction, "cuModuleGetFunction"), SYM(ModuleGetGlobal, "cuModuleGetGlobal_v2"),
	SYM(LaunchKernel, "cuLaunchKernel"), SYM(MemAlloc, "cuMemAlloc_v2"), SYM(MemFree, "cuMemFree_v2"),
	SYM(MemcpyHtoD, "cuMemcpyHtoD_v2"), SYM(MemcpyDtoH, "cuMemcpyDtoH_v2"),
	SYM(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2"), SYM(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2"),
	SYM(MemsetD8, "cuMemsetD8_v2"), SYM(MemHostAlloc, "cuMemHostAlloc"), SYM(EventCreate, "cuEventCreate"),
	SYM(EventRecord, "cuEventRecord"), SYM(EventSynchronize, "cuEventSynchronize"),
	SYM(GetErrorName, "cuGetErrorName"), SYM(GetErrorString, "cuGetErrorString"),
	SYM(FuncSetAttribute, "cuFuncSetAttribute"), SYM(StreamCreate, "cuStreamCreate"),
	SYM(StreamWaitEvent, "cuStreamWaitEvent"), SYM(Memcpy2DAsync, "cuMemcpy2DAsync_v2"),
	SYM(MemFreeHost, "cuMemFreeHost"),
};
_Static_assert(sizeof(symbols) / sizeof(symbols[0]) == sizeof(struct driver) / sizeof(void (*)(void)),
	"every entry point of struct driver is loaded");

static int load_symbols(void *lib)
{
	for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++) {
		void *f = dlsym(lib, symbols[i].name);
		if (!f) {
			snprintf(init_why, sizeof(init_why), "the CUDA driver (libcuda.so.1) has no %s: too old",
				symbols[i].name);
			return -1;
		}
		memcpy((char *)&D + symbols[i].off, &f, sizeof(f));
	}
	return 0;
}

/* The driver, device 0 (or $PT_CUDA_DEVICE) and its primary context. */
static void init(void)
{
	init_code = PT_ERR_DEVICE;
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(init_why, sizeof(init_why), "no CUDA driver on this machine (libcuda.so.1 could not be loaded); "
			"--backend cuda-emu runs the same kernels on the CPU");
		return;
	}
	if (load_symbols(lib))
		return;
	int n = 0, which = getenv("PT_CUDA_DEVICE") ? atoi(getenv("PT_CUDA_DEVICE")) : 0;
	CUresult r = D.Init(0);
	if (!r)
		r = D.DeviceGetCount(&n);
	const char *name = "?";
	if (r || n == 0) {
		D.GetErrorName(r ? r : CU_NO_DEVICE, &name);
		snprintf(init_why, sizeof(init_why), "the CUDA driver found no usable GPU (%s)", name ? name : "?");
		return;
	}
	if (which < 0 || which >= n) {
		snprintf(init_why, sizeof(init_why), "PT_CUDA_DEVICE=%d: this machine has %d CUDA device%s", which, n,
			n == 1 ? "" : "s");
		return;
	}
	CUdevice dev;
	if ((r = D.DeviceGet(&dev, which)) || (r = D.DevicePrimaryCtxRetain(&ctx, dev))) {
		D.GetErrorName(r, &name);
		snprintf(init_why, sizeof(init_why), "the CUDA device %d could not be opened (%s)", which, name ? name : "?");
		return;
	}
	init_code = 0;
}

/* 0 once the device is ready for the calling thread, else the error
 * (recorded). */
static int32_t ready(void)
{
	static __thread int current;
	pthread_once(&once, init);
	if (init_code)
		return fail(init_code, init_why, 0);
	if (!current) {
		CUresult r = D.CtxSetCurrent(ctx);
		if (r)
			return fail(PT_ERR_DEVICE, "the CUDA context could not be made current", r);
		current = 1;
	}
	return 0;
}

int32_t pt_cuda_ready(void)
{
	return ready();
}

int32_t pt_cuda_fail(int32_t code, const char *what, CUresult r)
{
	return fail(code, what, r);
}

int pt_cuda_is_dry(void)
{
	return dry;
}

/* ---- the device memory pool ---- */

/* Blocks freed, kept for reuse (the ones freed last), and the live ones
 * with their sizes. */
#define POOL_KEEP 32
typedef struct block {
	CUdeviceptr p;
	size_t n;
} block;
static block kept[POOL_KEEP], *live;
static int nkept, nlive, cap_live;

static void keep_locked(block b)
{
	if (nkept == POOL_KEEP) {
		D.MemFree(kept[0].p);
		memmove(kept, kept + 1, sizeof(kept[0]) * (POOL_KEEP - 1));
		nkept--;
	}
	kept[nkept++] = b;
}

static void release_locked(void)
{
	for (int i = 0; i < nkept; i++)
		D.MemFree(kept[i].p);
	nkept = 0;
}

/* A kept block of n..2n bytes, the smallest; 0 if none. */
static CUdeviceptr reuse_locked(size_t n)
{
	int best = -1;
	for (int i = 0; i < nkept; i++)
		if (kept[i].n >= n && kept[i].n / 2 <= n && (best < 0 || kept[i].n < kept[best].n))
			best = i;
	if (best < 0)
		return 0;
	block b = kept[best];
	memmove(kept + best, kept + best + 1, sizeof(kept[0]) * (size_t)(nkept - best - 1));
	nkept--;
	live[nlive++] = b;
	return b.p;
}

uint64_t pt_cuda_alloc(int64_t bytes)
{
	if (dry)
		return dry_address(bytes);
	if (ready())
		return 0;
	size_t n = (size_t)(bytes < 1 ? 1 : bytes);
	n = (n + 255) & ~(size_t)255;
	pthread_mutex_lock(&lock);
	if (nlive == cap_live) {
		int cap = cap_live ? 2 * cap_live : 64;
		block *l = realloc(live, sizeof(*l) * (size_t)cap);
		if (!l) {
			pthread_mutex_unlock(&lock);
			fail(PT_ERR_NOMEM, "no host memory for the device pool's records", 0);
			return 0;
		}
		live = l;
		cap_live = cap;
	}
	CUdeviceptr p = reuse_locked(n);
	if (p) {
		pthread_mutex_unlock(&lock);
		return p;
	}
	CUresult r = D.MemAlloc(&p, n);
	if (r == CU_OUT_OF_MEMORY) {
		release_locked();
		r = D.MemAlloc(&p, n);
	}
	if (!p || r) {
		pthread_mutex_unlock(&lock);
		char what[120];
		snprintf(what, sizeof(what), "%zu bytes of device memory could not be allocated", n);
		fail(r == CU_OUT_OF_MEMORY ? PT_ERR_NOMEM : PT_ERR_DEVICE, what, r);
		return 0;
	}
	live[nlive++] = (block){ p, n };
	pthread_mutex_unlock(&lock);
	return p;
}

void pt_cuda_free(uint64_t p)
{
	if (!p || dry)
		return;
	pthread_mutex_lock(&lock);
	for (int i = nlive - 1; i >= 0; i--)
		if (live[i].p == p) {
			block b = live[i];
			live[i] = live[--nlive];
			keep_locked(b);
			break;
		}
	pthread_mutex_unlock(&lock);
}

void pt_cuda_release(void)
{
	if (init_code || !D.MemFree)
		return;
	pthread_mutex_lock(&lock);
	release_locked();
	pthread_mutex_unlock(&lock);
}

int32_t pt_cuda_memset(uint64_t p, int32_t byte, int64_t bytes)
{
	if (dry)
		return 0;
	if (ready())
		return PT_ERR_DEVICE;
	CUresult r = D.MemsetD8(p, (unsigned char)byte, (size_t)bytes);
	return r ? fail(PT_ERR_DEVICE, "device memory could not be set", r) : 0;
}

/* ---- copies ---- */

#define STAGE_BYTES ((size_t)8 << 20)
#define DIRECT_BELOW ((size_t)1 << 20)

static void *stage[2];
static CUevent staged[2];
static int staging = -1;           /* -1 unknown, 0 direct copies, 1 staged */
static pthread_mutex_t copy_lock = PTHREAD_MUTEX_INITIALIZER;

/* Two pinned buffers and their events, unless $PT_CUDA_COPY=direct or
 * the driver gives none (then copies are the driver's own). */
static int staging_ready(void)
{
	if (staging >= 0)
		return staging;
	const char *how = getenv("PT_CUDA_COPY");
	staging = 0;
	if (how && !strcmp(how, "direct"))
		return 0;
	for (int i = 0; i < 2; i++)
		if (D.MemHostAlloc(&stage[i], STAGE_BYTES, 0) || D.EventCreate(&staged[i], 0))
			return 0;
	return staging = 1;
}

typedef struct piece {
	char *dst;
	const char *src;
} piece;

#define PIECE ((int64_t)256 << 10)

static void copy_pieces(void *ctx, int64_t lo, int64_t hi)
{
	piece *p = ctx;
	memcpy(p->dst + lo * PIECE, p->src + lo * PIECE, (size_t)((hi - lo) * PIECE));
}

/* memcpy of n bytes on the pool's threads (whole pieces) and this one
 * (the rest). */
static void host_copy(void *dst, const void *src, size_t n)
{
	piece p = { dst, src };
	int64_t whole = (int64_t)(n / (size_t)PIECE);
	if (whole > 1)
		pt_parallel_for(whole, copy_pieces, &p);
	else
		whole = 0;
	memcpy((char *)dst + whole * PIECE, (const char *)src + whole * PIECE, n - (size_t)(whole * PIECE));
}

void pt_cuda_host_copy(void *dst, const void *src, size_t n)
{
	host_copy(dst, src, n);
}

static CUresult copy_in(CUdeviceptr dst, const char *src, size_t n)
{
	if (n < DIRECT_BELOW || !staging_ready())
		return D.MemcpyHtoD(dst, src, n);
	CUresult r = 0;
	int used[2] = { 0, 0 };
	for (size_t off = 0, i = 0; off < n && !r; off += STAGE_BYTES, i ^= 1) {
		size_t m = n - off < STAGE_BYTES ? n - off : STAGE_BYTES;
		if (used[i] && (r = D.EventSynchronize(staged[i])))
			break;
		host_copy(stage[i], src + off, m);
		if (!(r = D.MemcpyHtoDAsync(dst + off, stage[i], m, NULL)))
			r = D.EventRecord(staged[i], NULL);
		used[i] = 1;
	}
	for (int i = 0; i < 2; i++)
		if (used[i] && !r)
			r = D.EventSynchronize(staged[i]);
	return r;
}

static CUresult copy_out(char *dst, CUdeviceptr src, size_t n)
{
	if (n < DIRECT_BELOW || !staging_ready())
		return D.MemcpyDtoH(dst, src, n);
	size_t chunks = (n + STAGE_BYTES - 1) / STAGE_BYTES;
	CUresult r = 0;
	/* chunk k + 1's transfer runs while chunk k is copied out of its
	 * staging buffer */
	for (size_t k = 0; k <= chunks && !r; k++) {
		if (k < chunks) {
			size_t off = k * STAGE_BYTES, m = n - off < STAGE_BYTES ? n - off : STAGE_BYTES;
			if (!(r = D.MemcpyDtoHAsync(stage[k & 1], src + off, m, NULL)))
				r = D.EventRecord(staged[k & 1], NULL);
		}
		if (k > 0 && !r) {
			size_t off = (k - 1) * STAGE_BYTES, m = n - off < STAGE_BYTES ? n - off : STAGE_BYTES;
			if (!(r = D.EventSynchronize(staged[(k - 1) & 1])))
				host_copy(dst + off, stage[(k - 1) & 1], m);
		}
	}
	return r;
}

/* The bytes a buffer's elements span around element 0: [*lo, *hi);
 * dense when they are just its elements. */
static void span(const pt_buffer *b, int64_t *lo, int64_t *hi, int *dense)
{
	int64_t esz = (int64_t)pt_type_size(b->type), l = 0, h = 0, count = 1;
	for (int i = 0; i < b->ndim; i++) {
		int64_t far = (b->extent[i] - 1) * b->stride[i];
		if (far < 0)
			l += far;
		else
			h += far;
		count *= b->extent[i];
	}
	*lo = l * esz;
	*hi = (h + 1) * esz;
	*dense = *hi - *lo == count * esz;
}

static int32_t upload(const pt_buffer *b, uint64_t dev, int64_t lo, int64_t hi)
{
	pthread_mutex_lock(&copy_lock);
	CUresult r = copy_in(dev + (uint64_t)lo, (const char *)b->data + lo, (size_t)(hi - lo));
	pthread_mutex_unlock(&copy_lock);
	return r ? fail(PT_ERR_DEVICE, "a buffer could not be copied to the device", r) : 0;
}

static int32_t download(pt_buffer *b, uint64_t dev, int64_t lo, int64_t hi)
{
	pthread_mutex_lock(&copy_lock);
	CUresult r = copy_out((char *)b->data + lo, dev + (uint64_t)lo, (size_t)(hi - lo));
	pthread_mutex_unlock(&copy_lock);
	return r ? fail(PT_ERR_DEVICE, "a buffer could not be copied back from the device", r) : 0;
}

/* ---- buffers ---- */

uint64_t pt_cuda_bind(pt_buffer *b, int32_t role)
{
	int64_t lo, hi;
	int dense;
	span(b, &lo, &hi, &dense);
	if (dry)
		return dry_address(hi - lo) - (uint64_t)lo;
	if (ready())
		return 0;
	if (b->device) {
		/* a newer host copy goes up, unless the run overwrites all of it */
		if ((role != PT_BIND_OUTPUT || !dense) && (b->flags & PT_BUF_HOST_DIRTY)) {
			if (upload(b, b->device, lo, hi))
				return 0;
			b->flags &= ~(uint32_t)PT_BUF_HOST_DIRTY;
		}
		return b->device;
	}
	uint64_t at = pt_cuda_alloc(hi - lo);
	if (!at)
		return 0;
	uint64_t dev = at - (uint64_t)lo;
	/* an output keeps what the run does not write: elements no case
	 * defines, and what lies between elements */
	if ((role != PT_BIND_OUTPUT || !dense) && upload(b, dev, lo, hi)) {
		pt_cuda_free(at);
		return 0;
	}
	return dev;
}

/* Whether output b, whose run defines only box (first then last
 * element along each dim), keeps its other elements on the host rather
 * than copying them in for the run: a buffer with no device copy whose
 * elements are all it spans (no gaps between rows to keep), and at most
 * a quarter of them outside the box (saved and put back around the
 * copy out: cheaper than the copy in then). */
static int keeps_outside(const pt_buffer *b, const int64_t *box)
{
	int64_t lo, hi, in = 1, all = 1;
	int dense;
	span(b, &lo, &hi, &dense);
	for (int d = 0; d < b->ndim; d++) {
		int64_t n = box[b->ndim + d] - box[d] + 1;
		in *= n > 0 ? n : 0;
		all *= b->extent[d];
	}
	return !b->device && dense && b->ndim > 0 && 4 * (all - in) <= all;
}

/* The elements of b outside box, copied out of b into save (save_out)
 * or back from save into b, row by row (the last dim's rows are
 * contiguous: pt_buffer's last stride is 1); the bytes moved. */
static size_t outside(pt_buffer *b, const int64_t *box, char *save, int save_out)
{
	int nd = b->ndim;
	size_t esz = pt_type_size(b->type), at = 0;
	int64_t row = b->extent[nd - 1], c[PT_MAX_DIMS] = { 0 };
	for (;;) {
		int inside = 1;
		char *p = (char *)b->data;
		for (int d = 0; d < nd - 1; d++) {
			inside = inside && c[d] >= box[d] && c[d] <= box[nd + d];
			p += c[d] * b->stride[d] * (int64_t)esz;
		}
		int64_t a = box[nd - 1], z = box[2 * nd - 1];
		if (!inside || a > z)
			a = z = row;   /* the whole row */
		/* [0, a) and (z, row) of the row */
		int64_t piece[2][2] = { { 0, a < row ? a : row }, { z < row ? z + 1 : row, row } };
		for (int k = 0; k < 2; k++) {
			size_t n = (size_t)(piece[k][1] - piece[k][0]) * esz;
			char *host = p + piece[k][0] * (int64_t)esz;
			if (save && n && save_out)
				memcpy(save + at, host, n);
			else if (save && n)
				memcpy(host, save + at, n);
			at += n;
		}
		int d = nd - 2;
		while (d >= 0 && ++c[d] == b->extent[d])
			c[d--] = 0;
		if (d < 0)
			break;
	}
	return at;
}

uint64_t pt_cuda_bind_box(pt_buffer *b, const int64_t *box)
{
	return pt_cuda_bind(b, keeps_outside(b, box) ? PT_BIND_OUTPUT : PT_BIND_OUTPUT_PARTIAL);
}

void pt_cuda_unbind_box(pt_buffer *b, uint64_t dev, const int64_t *box)
{
	if (!dev || dry || !keeps_outside(b, box)) {
		pt_cuda_unbind(b, 1, dev);
		return;
	}
	size_t n = outside(b, box, NULL, 1);
	char *save = n ? malloc(n) : NULL;
	if (n && !save) {
		fail(PT_ERR_NOMEM, "the elements an output keeps could not be saved", 0);
		pt_cuda_unbind(b, 0, dev);
		return;
	}
	outside(b, box, save, 1);
	pt_cuda_unbind(b, 1, dev);
	outside(b, box, save, 0);
	free(save);
}

void pt_cuda_unbind(pt_buffer *b, int32_t output, uint64_t dev)
{
	if (!dev || dry)
		return;
	if (b->device) {
		if (output)
			b->flags = (b->flags & ~(uint32_t)PT_BUF_HOST_DIRTY) | PT_BUF_DEVICE_DIRTY;
		return;
	}
	int64_t lo, hi;
	int dense;
	span(b, &lo, &hi, &dense);
	if (output)
		download(b, dev, lo, hi);
	pt_cuda_free(dev + (uint64_t)lo);
}

int pt_cuda_buffer_upload(pt_buffer *b)
{
	if (!b || !b->data)
		return PT_ERR_NULL;
	if (ready())
		return pt_rt_take_error();
	int64_t lo, hi;
	int dense;
	span(b, &lo, &hi, &dense);
	if (!b->device) {
		uint64_t at = pt_cuda_alloc(hi - lo);
		if (!at)
			return pt_rt_take_error();
		b->device = at - (uint64_t)lo;
	}
	if (upload(b, b->device, lo, hi))
		return pt_rt_take_error();
	b->flags = 0;
	return PT_OK;
}

int pt_cuda_buffer_download(pt_buffer *b)
{
	if (!b || !b->data)
		return PT_ERR_NULL;
	if (!b->device || !(b->flags & PT_BUF_DEVICE_DIRTY))
		return PT_OK;
	int64_t lo, hi;
	int dense;
	span(b, &lo, &hi, &dense);
	if (ready() || download(b, b->device, lo, hi))
		return pt_rt_take_error();
	b->flags = 0;
	return PT_OK;
}

void pt_cuda_buffer_release(pt_buffer *b)
{
	if (!b || !b->device)
		return;
	int64_t lo, hi;
	int dense;
	span(b, &lo, &hi, &dense);
	pt_cuda_free(b->device + (uint64_t)lo);
	b->device = 0;
	b->flags = 0;
}

/* ---- kernels ---- */

/* A dry run's launch: counted with an equal one before it. */
static int32_t dry_record(const char *kernel, int64_t blocks, int32_t bdx, int32_t bdy, int32_t shared)
{
	for (int i = 0; i < dry_n; i++) {
		pt_cuda_launch_info *r = &dry_rec[i];
		if (!strcmp(r->kernel, kernel) && r->blocks == blocks && r->bdx == bdx && r->bdy == bdy && r->shared == shared) {
			r->launches++;
			return 0;
		}
	}
	if (dry_n == dry_cap) {
		int cap = dry_cap ? 2 * dry_cap : 32;
		pt_cuda_launch_info *n = realloc(dry_rec, sizeof(*n) * (size_t)cap);
		if (!n)
			return fail(PT_ERR_NOMEM, "no memory to record a dry run's launches", 0);
		dry_rec = n;
		dry_cap = cap;
	}
	pt_cuda_launch_info *r = &dry_rec[dry_n++];
	snprintf(r->kernel, sizeof(r->kernel), "%s", kernel);
	r->blocks = blocks;
	r->bdx = bdx;
	r->bdy = bdy;
	r->shared = shared;
	r->launches = 1;
	return 0;
}

void pt_cuda_dry_run(int on)
{
	dry_chunks = 0;
	dry = on;
	dry_n = 0;
	dry_bytes = 0;
	dry_next = (uint64_t)1 << 40;
}

int pt_cuda_dry_launches(const pt_cuda_launch_info **out, double *bytes)
{
	*out = dry_rec;
	if (bytes)
		*bytes = dry_bytes;
	return dry_n;
}

void pt_cuda_cubin(void **slot, const uint8_t *image)
{
	int64_t n = 0;
	for (int i = 7; i >= 0 && image; i--)
		n = n << 8 | image[i];
	const char *env = getenv("PT_CUDA_IMAGE");
	if (*slot || dry || n <= 0 || (env && !strcmp(env, "ptx")) || ready())
		return;
	pthread_mutex_lock(&lock);
	if (!*slot) {
		/* refused (a GPU other than sm_90's family): the PTX's turn */
		CUmodule m = NULL;
		if (!D.ModuleLoadDataEx(&m, image + 8, 0, NULL, NULL))
			*slot = m;
	}
	pthread_mutex_unlock(&lock);
}

/* The module of ptx in *slot, loaded at the first launch. */
static int32_t module(const char *ptx, void **slot)
{
	if (*slot)
		return 0;
	pthread_mutex_lock(&lock);
	CUresult r = 0;
	char log[2048] = "";
	if (!*slot) {
		int opt[] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
		void *val[] = { log, (void *)(uintptr_t)sizeof(log) };
		CUmodule m = NULL;
		r = D.ModuleLoadDataEx(&m, ptx, 2, opt, val);
		if (!r)
			*slot = m;
	}
	pthread_mutex_unlock(&lock);
	if (!r)
		return 0;
	char what[2300];
	snprintf(what, sizeof(what), "the driver refused the kernels' PTX%s%s", log[0] ? ": " : "", log);
	return fail(PT_ERR_DEVICE, what, r);
}

int32_t pt_cuda_function(const char *ptx, void **mod, const char *kernel, void **fn, int64_t blocks, int32_t bdx,
	int32_t bdy, int32_t shared)
{
	char msg[400];
	if ((!ptx || !ptx[0]) && !dry) {
		snprintf(msg, sizeof(msg), "kernel %s: no PTX was generated (no NVPTX target in this LLVM, or no libdevice "
			"for its math functions)", kernel);
		return fail(PT_ERR_DEVICE, msg, 0);
	}
	if ((int64_t)bdx * bdy > 1024 || blocks > INT32_MAX) {
		snprintf(msg, sizeof(msg), "kernel %s: %lld blocks of %d x %d threads: over the device's limits (2^31 - 1 "
			"blocks, 1024 threads)", kernel, (long long)blocks, bdx, bdy);
		return fail(PT_ERR_DEVICE, msg, 0);
	}
	if (blocks <= 0)
		return 1;
	if (dry) {
		int32_t code = dry_record(kernel, blocks, bdx, bdy, shared);
		return code ? code : 1;
	}
	int32_t code = ready();
	if (code || (code = module(ptx, mod)))
		return code;
	if (!*fn) {
		CUfunction f = NULL;
		CUresult r = D.ModuleGetFunction(&f, (CUmodule)*mod, kernel);
		if (r) {
			snprintf(msg, sizeof(msg), "kernel %s is not in the module's PTX", kernel);
			return fail(PT_ERR_DEVICE, msg, r);
		}
		/* past 48 KiB a kernel opts in; its shared size is fixed */
		if (shared > PT_GPU_SHARED_BYTES && (r = D.FuncSetAttribute(f, CU_FUNC_MAX_DYNAMIC_SHARED, shared))) {
			snprintf(msg, sizeof(msg), "kernel %s: %d bytes of shared memory per block were refused", kernel, shared);
			return fail(PT_ERR_DEVICE, msg, r);
		}
		*fn = f;
	}
	return 0;
}

void pt_cuda_dry_note_stream(int chunks)
{
	dry_chunks = chunks;
}

int pt_cuda_dry_streamed(void)
{
	return dry_chunks;
}

int32_t pt_cuda_finish(void **mod)
{
	if (dry)
		return 0;
	if (ready())
		return PT_ERR_DEVICE;
	CUresult r = D.CtxSynchronize();
	if (r)
		return fail(PT_ERR_DEVICE, "a kernel failed on the device (the context cannot be used again)", r);
	pt_cuda_profile_collect();
	if (!*mod)
		return 0;
	CUdeviceptr flag;
	size_t n;
	int32_t code = 0;
	if ((r = D.ModuleGetGlobal(&flag, &n, (CUmodule)*mod, "pt_error")) || (r = D.MemcpyDtoH(&code, flag, 4)))
		return fail(PT_ERR_DEVICE, "the kernels' error flag could not be read", r);
	if (!code)
		return 0;
	D.MemsetD8(flag, 0, 4);
	char what[200];
	snprintf(what, sizeof(what), code == PT_ERR_DEVICE ? "a tile's scratchpads need more than the %d bytes of shared "
		"memory a block can have" : "a run-time check failed in a kernel on the device (which point, the device "
		"does not say)", PT_CUDA_SHARED_MAX);
	return fail(code, what, 0);
}

int pt_cuda_sync(void)
{
	if (ready())
		return pt_rt_take_error();
	CUresult r = D.CtxSynchronize();
	if (r) {
		fail(PT_ERR_DEVICE, "a kernel failed on the device", r);
		return pt_rt_take_error();
	}
	pt_cuda_profile_collect();
	return PT_OK;
}

const char *pt_cuda_device_name(void)
{
	static char name[128];
	pthread_once(&once, init);
	if (init_code)
		return NULL;
	CUdevice dev;
	int which = getenv("PT_CUDA_DEVICE") ? atoi(getenv("PT_CUDA_DEVICE")) : 0;
	if (!name[0] && (D.DeviceGet(&dev, which) || D.DeviceGetName(name, sizeof(name), dev)))
		return NULL;
	return name;
}
