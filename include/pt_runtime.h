/* pt_runtime.h: the ABI shared by generated code, the runtime and the tools.
 * Plain C, no compiler internals: a buffer type, element types, error codes. */
#ifndef PT_RUNTIME_H
#define PT_RUNTIME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this ABI (buffers, error codes, the runtime calls that
 * generated code makes).  A compiled pipeline exports NAME_abi_version
 * with the version it was generated for; its header refuses to compile
 * against another pt_runtime.h, and polytile refuses to link an object
 * (from its compile cache, say) made for another.  2: run-time check
 * failures with what and where (pt_rt_fail_at).  3: buffers that may
 * live in a device's memory too (device, flags, device_id).  4: CUDA
 * objects carry a cubin beside their PTX (pt_cuda_cubin).  5: streamed
 * copies (pt_gpu_stream).  6: a stream plan names its launch
 * (pt_gpu_stream.launch). */
#define PT_ABI_VERSION 6

/* Element types of the language, in this order everywhere. */
typedef enum pt_type {
	PT_U8, PT_U16, PT_U32, PT_I8, PT_I16, PT_I32, PT_I64, PT_F32, PT_F64,
	PT_NTYPES
} pt_type;

#define PT_MAX_DIMS 8

/* Which copy of a buffer is newer, when it has one in a device's memory
 * (pt_buffer.flags). */
enum pt_buffer_flags {
	PT_BUF_HOST_DIRTY = 1,     /* data was written after the device copy */
	PT_BUF_DEVICE_DIRTY = 2    /* the device copy was written after data */
};

/* A strided n-dimensional array. Strides are in elements; the last
 * dimension is the contiguous one for buffers the runtime allocates.
 * data is aligned to the element's size (compiled pipelines return
 * PT_ERR_ALIGN otherwise).
 *
 * A buffer may also have a copy in a device's memory: device is its
 * address there (a CUdeviceptr; 0: none) on device number device_id,
 * with the same extents and strides, and flags say which copy is newer.
 * Zero-initialised (as pt_buffer_alloc leaves them), a buffer is in host
 * memory only.  A target that runs on the host (cpu) reads and writes
 * data only: it refuses a buffer whose device copy is newer
 * (PT_BUF_DEVICE_DIRTY: PT_ERR_DEVICE, before anything is written) and
 * sets PT_BUF_HOST_DIRTY on the outputs it wrote.  A device target uses
 * device, copying data there when the host copy is newer or the only
 * one. */
typedef struct pt_buffer {
	void *data;
	pt_type type;
	int ndim;
	int64_t extent[PT_MAX_DIMS];
	int64_t stride[PT_MAX_DIMS];
	uint64_t device;
	uint32_t flags;            /* enum pt_buffer_flags */
	int32_t device_id;
} pt_buffer;

/* Error codes returned by runtime calls and generated pipelines (negative). */
enum pt_error {
	PT_OK = 0,
	PT_ERR_NULL = -1,          /* a buffer or its data is NULL */
	PT_ERR_TYPE = -2,          /* element type differs from the declared one */
	PT_ERR_NDIM = -3,          /* number of dimensions differs */
	PT_ERR_EXTENT = -4,        /* an extent differs from the expected one */
	PT_ERR_NOMEM = -5,         /* allocation failed */
	PT_ERR_IO = -6,            /* file could not be read or written */
	PT_ERR_FORMAT = -7,        /* file content is malformed or unsupported */
	PT_ERR_PARAM = -8,         /* a parameter value is out of range */
	PT_ERR_STRIDE = -9,        /* the last dimension is not contiguous (stride != 1) */
	PT_ERR_READ = -10,         /* a read or reduction target outside its image or stage */
	PT_ERR_CASES = -11,        /* two cases of a stage hold at one point */
	PT_ERR_UNDEFINED = -12,    /* a read of a point that no case defines */
	PT_ERR_ALIGN = -13,        /* a buffer's data is not aligned to its element's size */
	PT_ERR_DEVICE = -14        /* a device refused or failed: no driver or GPU, a launch over its limits, a kernel fault, PTX refused, a buffer whose newer copy is in device memory a target cannot use (details: pt_rt_error_detail) */
};

/* Size in bytes of one element of type t. */
size_t pt_type_size(pt_type t);
/* Name of t as written in the language ("u8", "f32", ...). */
const char *pt_type_name(pt_type t);

/* Allocates a zeroed dense row-major buffer, its data aligned to 64 bytes;
 * returns PT_OK or PT_ERR_NOMEM. */
int pt_buffer_alloc(pt_buffer *b, pt_type t, int ndim, const int64_t *extent);
/* Frees data of a buffer made by pt_buffer_alloc and clears it. */
void pt_buffer_free(pt_buffer *b);
/* Number of elements. */
int64_t pt_buffer_count(const pt_buffer *b);
/* Element at idx (ndim indices) read as double / written from double. */
double pt_buffer_get(const pt_buffer *b, const int64_t *idx);
void pt_buffer_set(pt_buffer *b, const int64_t *idx, double v);
/* Copies box (lo, hi per dim of ndim; nothing where it is empty) of
 * esize-byte elements from src (whose element 0 is at point sorigin,
 * strides sstride in elements) to dst (dorigin, dstride), a row of the
 * last dim at a time (its stride 1 in both). */
void pt_copy_box(void *dst, const int64_t *dorigin, const int64_t *dstride, const void *src, const int64_t *sorigin,
	const int64_t *sstride, int ndim, int esize, const int64_t *box);

/* ---- called by generated code ---- */

/* The most threads a parallel loop uses. */
#define PT_MAX_THREADS 256

/* Threads used by parallel loops, the calling one included: n (n > 0,
 * capped at PT_MAX_THREADS); by default OMP_NUM_THREADS's first number
 * if set, else the CPUs this process may run on. */
void pt_set_num_threads(int n);
int pt_get_num_threads(void);
/* Starts the worker threads pt_get_num_threads() asks for now rather
 * than at the first parallel loop; returns how many threads loops can
 * use: fewer when the system refused to create more (they then run on
 * those, and no creation is tried again). */
int pt_start_threads(void);
/* Runs body(ctx, lo, hi) over chunks that cover 0 .. n-1 once each, on
 * the pool's threads and the calling one: each thread first takes chunks
 * of its own contiguous block, then of the others' (a thread delayed by
 * the system delays only its chunk).  Called inside a body, or while
 * another application thread's loop holds the pool, it runs serially. */
void pt_parallel_for(int64_t n, void (*body)(void *ctx, int64_t lo, int64_t hi), void *ctx);
/* Memory for intermediate stages (NULL on failure; not zeroed), and its
 * free; large blocks are kept for reuse (up to 2 GiB and 32 blocks, the
 * ones freed last) until pt_rt_release_cache. */
void *pt_rt_alloc(int64_t bytes);
void pt_rt_free(void *p);
void pt_rt_release_cache(void);
/* The scratchpad slots a thread has: the most scratchpads one tiled
 * group may use (the grouping refuses a merge needing more). */
#define PT_RT_SCRATCH_SLOTS 64

/* A scratchpad of the calling thread: slot (0..63) of at least bytes,
 * 64-byte aligned, kept and reused by this thread (contents undefined);
 * NULL when it cannot be allocated or exceeds pt_memory_available(),
 * with PT_ERR_NOMEM recorded by pt_rt_fail (generated code skips the
 * tile; the pipeline function returns the code).
 * pt_rt_release_scratch frees the calling thread's. */
void *pt_rt_scratch(int32_t slot, int64_t bytes);
void pt_rt_release_scratch(void);
/* Bytes this process may still allocate: the tightest of the
 * environment's PT_MEMORY_LIMIT (bytes), the address-space limit (RLIMIT_AS less what is mapped), the cgroup's
 * memory limit less its usage, and the machine's available memory and
 * swap; *limit (if not NULL) names it.  INT64_MAX if none is known. */
int64_t pt_memory_available(const char **limit);
/* PT_OK if bytes fit in pt_memory_available(), else PT_ERR_NOMEM with
 * "needs X of memory, more than the Y that LIMIT leaves" in msg. */
int pt_memory_check(double bytes, char *msg, size_t len);
/* Errors found while a compiled schedule runs (PT_ERR_READ,
 * PT_ERR_CASES, PT_ERR_UNDEFINED): pt_rt_fail keeps the first code; the pipeline function
 * takes it (clearing it) with pt_rt_take_error before returning.  One
 * flag per process: pipelines run concurrently share it. */
void pt_rt_fail(int32_t code);
int32_t pt_rt_take_error(void);
/* pt_rt_fail with what failed: what's "(@)" becomes the point (n
 * coordinates), as in "cases 1 and 2 of 'f' both hold at (0)". */
void pt_rt_fail_at(int32_t code, const char *what, int32_t n, const int64_t *point);
/* What failed, for the error the calling thread took last with
 * pt_rt_take_error ("" if it said nothing). */
const char *pt_rt_error_detail(void);
/* The GPU emulator (gpu_emu.c): the CUDA target's kernels run on the
 * CPU, each thread of a block a coroutine, for tests on machines
 * without a GPU (`--backend cuda-emu`).  A kernel is called once per
 * thread as fn(ctx, block, tx, ty); pt_gpu_emu_launch runs nblocks
 * blocks of bdx x bdy threads (barriers: 0 when the kernel has none, so
 * that its threads need no coroutines) and returns 0, or PT_ERR_DEVICE (recorded
 * with pt_rt_fail_at) for a launch a device refuses: over 1,024
 * threads, too many blocks, or a barrier only some threads of a block
 * reach.  Inside a kernel, pt_gpu_barrier is __syncthreads() and
 * pt_gpu_shared the block's scratchpad for slot: in its shared memory
 * while the slots asked so far fit the device's 48 KiB per block, past
 * that in device memory of the block's own (NULL, with PT_ERR_NOMEM
 * recorded, when there is none). */
/* The shared memory a block gets without opting in to more: what the
 * GPU targets place scratchpads in (codegen/cuda.c, the emulator), and
 * what the tile model plans for (grouping/target_desc.h). */
#define PT_GPU_SHARED_BYTES (48 * 1024)
/* The most a block of the CUDA target may opt in to (sm_90: 227 KiB):
 * a kernel whose tiles need more than PT_GPU_SHARED_BYTES asks for it
 * at its launch. */
#define PT_CUDA_SHARED_MAX (227 * 1024)
typedef void (*pt_gpu_kernel_fn)(void *ctx, int64_t block, int32_t tx, int32_t ty);
int32_t pt_gpu_emu_launch(int64_t nblocks, int32_t bdx, int32_t bdy, int32_t barriers, pt_gpu_kernel_fn fn,
	void *ctx);
void pt_gpu_barrier(void);
void *pt_gpu_shared(int32_t slot, int64_t bytes);
/* The CUDA runtime (cuda.c).  The driver (libcuda.so.1) is loaded at
 * the first call; without it, or without a GPU, every call fails with
 * PT_ERR_DEVICE and says why (pt_rt_error_detail).
 *
 * For applications that keep data on the GPU between calls: a buffer
 * with a device copy (pt_buffer.device) is used there by a CUDA
 * pipeline, uploaded first only when PT_BUF_HOST_DIRTY is set; the
 * outputs it writes are left on the device with PT_BUF_DEVICE_DIRTY.  A
 * buffer without one is copied in for the call and its outputs copied
 * back (the host ABI).  pt_cuda_buffer_upload gives b a device copy (if
 * it has none) and copies data there; pt_cuda_buffer_download copies a
 * newer device copy back to data; pt_cuda_buffer_release frees the
 * device copy.  pt_cuda_sync waits for the device.  pt_cuda_release
 * frees the device memory the pool keeps for reuse.
 * pt_cuda_device_name: the GPU's name, NULL without one. */
int pt_cuda_buffer_upload(pt_buffer *b);
int pt_cuda_buffer_download(pt_buffer *b);
void pt_cuda_buffer_release(pt_buffer *b);
int pt_cuda_sync(void);
void pt_cuda_release(void);
const char *pt_cuda_device_name(void);
/* With PT_CUDA_PROFILE set (not "0"): each kernel's launches and device
 * time so far (launches from the default stream; not a streamed run's
 * chunks), longest first, printed on f; the number of kernels (0, and
 * nothing printed, without a profile).  The process prints it to stderr
 * when it exits. */
int pt_cuda_profile_report(FILE *f);
/* Called by generated code (codegen/cuda.c): a buffer's device address
 * for one run (0, with the error recorded, on failure) and its end (the
 * outputs copied back, staging memory freed); device memory for
 * intermediate stages from a pool (0 on failure) and its release; a
 * memset; the launch of kernel (in the PTX text ptx, whose module the
 * caller keeps in *mod and the function in *fn) on blocks blocks of
 * bdx x bdy threads with shared bytes of dynamic shared memory and
 * params (pointers to each value); and the end of a run: waits for the
 * kernels and takes the code a kernel stored in the module's pt_error.
 * Each returns 0 or an error code, recorded with pt_rt_fail_at. */
enum pt_bind_role {
	PT_BIND_INPUT = 0,            /* read: copied in */
	PT_BIND_OUTPUT = 1,           /* every element written: not copied in */
	PT_BIND_OUTPUT_PARTIAL = 2    /* some elements written: copied in and out */
};
/* Dry runs, for `polytile explain --backend cuda`: while on (one thread
 * at a time), CUDA pipelines run with no device: no driver is loaded,
 * buffers and device memory get addresses nothing reads, and each launch
 * is recorded, not run (equal ones counted).  pt_cuda_dry_run(1) starts
 * one (clearing the record), pt_cuda_dry_run(0) ends it;
 * pt_cuda_dry_launches gives the record and the device memory bound and
 * allocated (bytes). */
typedef struct pt_cuda_launch_info {
	char kernel[64];
	int64_t blocks, launches;
	int32_t bdx, bdy, shared;
} pt_cuda_launch_info;
void pt_cuda_dry_run(int on);
int pt_cuda_dry_launches(const pt_cuda_launch_info **out, double *bytes);
/* Whether the dry run's call streamed its copies: its plan's chunks (at
 * most; 0: none). */
int pt_cuda_dry_streamed(void);
uint64_t pt_cuda_bind(pt_buffer *b, int32_t role);
void pt_cuda_unbind(pt_buffer *b, int32_t output, uint64_t dev);
/* An output whose run defines only box (int64: its first element along
 * each dim, then its last), bound and ended: where it has no device
 * copy and is dense, with at most a quarter of its elements outside the
 * box, those are kept on the host (saved around the copy out), and
 * nothing is copied in; otherwise as PT_BIND_OUTPUT_PARTIAL. */
uint64_t pt_cuda_bind_box(pt_buffer *b, const int64_t *box);
void pt_cuda_unbind_box(pt_buffer *b, uint64_t dev, const int64_t *box);
uint64_t pt_cuda_alloc(int64_t bytes);
void pt_cuda_free(uint64_t p);
int32_t pt_cuda_memset(uint64_t p, int32_t byte, int64_t bytes);
/* Before a launch: the module's cubin (image: its size as a
 * little-endian int64, then its bytes; size 0: none) loaded into *mod if
 * it is empty and the driver takes the cubin (a GPU of sm_90's family);
 * otherwise, or with PT_CUDA_IMAGE=ptx, *mod stays empty and the launch
 * loads the PTX. */
void pt_cuda_cubin(void **mod, const uint8_t *image);
int32_t pt_cuda_launch(const char *ptx, void **mod, const char *kernel, void **fn, int64_t blocks, int32_t bdx,
	int32_t bdy, int32_t shared, void **params);
int32_t pt_cuda_finish(void **mod);

/* Streamed copies (docs/cuda.md, "Streamed copies"): a launch whose
 * copies go in chunks of its outermost block loop, each chunk's inputs
 * copied in before it runs and its outputs out after, overlapped with
 * the other chunks' work.  The plan is for the run's launch of kernel
 * `launch` (its name under cuda, its function under cuda-emu; NULL: the
 * next launch); the launches before it, which read no streamed buffer,
 * run as they come, and the first chunk waits for them.  Chunk c runs that loop's
 * iterations first[c] .. first[c + 1] - 1 (of rows in all; every
 * iteration is blocks / rows blocks of the launch) and needs, of buffer
 * i (as bound, at device address dev[i]), the box at box + (c * nbuf +
 * i) * 2 * PT_MAX_DIMS: its first and last element along each dim,
 * empty where a first is past its last.  Where the launch's blocks are
 * not rows of equal blocks, its chunks' copies are made all before and
 * all after one launch. */
typedef struct pt_gpu_stream {
	int32_t nchunks, nbuf;
	int64_t rows;
	pt_buffer **buf;
	uint64_t *dev;
	int32_t *output;              /* copied out (1) or in (0) */
	int64_t *first;               /* nchunks + 1 */
	int64_t *box;
	const void *launch;
} pt_gpu_stream;
/* Buffer i's box in chunk c clamped to its extents (an image's box may
 * reach past what a chunk reads) into out; its bytes (0: empty). */
int64_t pt_gpu_stream_box(const pt_gpu_stream *p, int c, int i, int64_t *out);
/* A buffer whose copies a stream makes: bound with no copy where it can
 * (no device copy of its own; its last dim's elements adjacent), and
 * then the plan's chunks copy it; otherwise as pt_cuda_bind (or
 * pt_cuda_bind_box, with a box) and pt_cuda_unbind(_box), which then
 * copy it whole. */
uint64_t pt_cuda_bind_streamed(pt_buffer *b, int32_t role, const int64_t *box);
void pt_cuda_unbind_streamed(pt_buffer *b, int32_t output, uint64_t dev, const int64_t *box);
/* The plan of the next launch (the caller keeps it until then). */
void pt_cuda_stream(const pt_gpu_stream *plan);
/* The emulator's (gpu_emu.c): its device copy a separate allocation
 * filled with a pattern, so that an element no chunk copies in reads as
 * garbage and one no chunk copies out keeps the caller's value. */
uint64_t pt_gpu_emu_bind_streamed(pt_buffer *b);
void pt_gpu_emu_unbind_streamed(pt_buffer *b, uint64_t dev);
void pt_gpu_emu_stream(const pt_gpu_stream *plan);
/* Chunks the calling thread's emulated streamed launches ran in rows of
 * blocks (for tests). */
int64_t pt_gpu_emu_chunks_run(void);

/* The MPI runtime (mpi.c; only in builds with Open MPI, meson -Dmpi=enabled).
 * An MPI pipeline runs on every rank of MPI_COMM_WORLD (a duplicate of
 * it, so that its messages never meet the application's) with the same
 * params and full-size buffers; each rank computes its part of each
 * kernel and receives, before a kernel, what its part reads of parts
 * that other ranks computed; the outputs are complete on rank 0 after
 * the call, and hold the rank's own part elsewhere.  A failure on one
 * rank (a check, no memory, a run-time check) makes every rank return
 * the failing rank's code, lowest rank first, its message prefixed
 * "rank N: " (pt_rt_error_detail), never a hang.
 *
 * pt_mpi_init initializes MPI when the application has not (threads:
 * MPI_THREAD_FUNNELED, only the calling thread communicates) and
 * duplicates the communicator; every rank calls it, or the first
 * pipeline run does.  pt_mpi_finalize ends MPI when pt_mpi_init started
 * it.  pt_mpi_agree: every rank gives its status (0 or an error code)
 * and gets the lowest failing rank's (-1 in *rank when none failed),
 * for tools that fail before a run (an input that would not read). */
int pt_mpi_init(void);
void pt_mpi_finalize(void);
int pt_mpi_rank(void);
int pt_mpi_size(void);
int32_t pt_mpi_agree(int32_t status, int *rank);
/* Bytes this process sent and received in exchanges and gathers since
 * the last reset (the model's prediction is checked against them). */
void pt_mpi_bytes(int64_t *sent, int64_t *received, int reset);
/* Every rank's counts (a collective: every rank calls it), R entries
 * each. */
void pt_mpi_bytes_all(int64_t *sent, int64_t *received);
/* The bytes of intermediate arrays each rank held in its last run
 * (pt_mpi_alloc's: partitioned or whole, their masks included; a
 * collective, R entries). */
void pt_mpi_held_all(int64_t *held);
/* The rank whose failure the last run returned, -1 when none. */
int pt_mpi_failed_rank(void);
/* Seconds one way for a message of bytes between ranks 0 and 1, the
 * mean of reps round trips (collective: every rank calls it; -1 with
 * fewer than 2 ranks).  `polytile calibrate` measures the auto
 * strategy's latency and bandwidth with it. */
double pt_mpi_pingpong(int64_t bytes, int reps);
/* MPI_Wtime. */
double pt_mpi_wtime(void);
/* Rank 0's bytes at data, on every rank (for tools: `polytile run`
 * gives the other ranks the shapes of the inputs rank 0 read). */
void pt_mpi_bcast(void *data, int32_t bytes);
/* Called by generated code (codegen/mpi.c).  pt_mpi_begin: at the start
 * of a run.  pt_mpi_abandon: before a run returns code early (a check
 * failed), so that the other ranks return too.  pt_mpi_slice: this
 * rank's part lo .. hi of first .. last (lo > hi: none).  Boxes are
 * 2 * ndim coordinates, lo then hi per dim, empty when a lo > its hi;
 * an array is data with esize-byte elements, element x at
 * sum_d (x_d - origin_d) * stride_d.  pt_mpi_exchange: every rank gives
 * the box it needs and the box it owns of one array, and receives the
 * elements of its need that others own.  pt_mpi_gather: rank 0
 * receives every rank's own box of an output.  pt_mpi_finish: at the end
 * of a run, every rank's error agreed; returns the code to return. */
void pt_mpi_begin(void);
/* An intermediate array's memory (pt_rt_alloc's), counted for
 * pt_mpi_held_all. */
void *pt_mpi_alloc(int64_t bytes);
void pt_mpi_abandon(int32_t code);
void pt_mpi_slice(int64_t first, int64_t last, int64_t *lo, int64_t *hi);
/* NAME_part's array + PT_PART_OWN: an output's points the rank
 * computes, not its whole buffer (docs/distributed.md). */
#define PT_PART_OWN 0x10000
/* pt_mpi_slice for rank r of R (NAME_part: any rank's part; none when r
 * is not one of them). */
void pt_mpi_slice_of(int64_t first, int64_t last, int32_t r, int32_t R, int64_t *lo, int64_t *hi);
/* Rank r's part of a kernel split along two coordinates, on the grid of
 * R ranks (P x Q, P >= Q, Q the greatest divisor of R not above its
 * square root; rank r at row r / Q and column r % Q): part[0 .. 1] of
 * first .. last (P parts), part[2 .. 3] of first2 .. last2 (Q parts). */
void pt_mpi_slice2_of(int64_t first, int64_t last, int64_t first2, int64_t last2, int32_t r, int32_t R,
	int64_t *part);
void pt_mpi_exchange(void *data, int32_t esize, int32_t ndim, const int64_t *origin, const int64_t *stride,
	const int64_t *need, const int64_t *own);
void pt_mpi_gather(void *data, int32_t esize, int32_t ndim, const int64_t *origin, const int64_t *stride,
	const int64_t *own);
int32_t pt_mpi_finish(void);

/* Name of an error code, for messages. */
const char *pt_error_name(int code);

#ifdef __cplusplus
}
#endif
#endif
