/* fake_cuda.h: what the fake CUDA driver (fake_cuda.c) records and what
 * a test sets it to answer (its state, from fake_cuda_state()). */
#ifndef PT_TEST_FAKE_CUDA_H
#define PT_TEST_FAKE_CUDA_H

#include <stddef.h>

typedef struct fake_cuda {
	/* set by the test */
	int ndevices;
	size_t mem_limit;           /* a larger allocation is out of memory */
	int sync_error;             /* what cuCtxSynchronize returns (700: a fault) */
	int launch_error;
	/* recorded */
	int pt_error;               /* the kernels' error flag (the module's global) */
	int modules_loaded, launches, attributes_set, syncs;
	long allocs, live, staged_chunks;
	size_t bytes_in, bytes_out;
	unsigned last_blocks, last_threads, last_shared;
	char last_kernel[128];
	char last_image[16];        /* the start of the last module image */
	/* streamed runs: 2-D copies, their bytes each way, launches on a
	 * stream, and each such launch's first block (its last param) */
	long copies_2d, stream_launches;
	size_t bytes_2d_in, bytes_2d_out;
	long long first_blocks[16];
	/* at the last launch on a stream: launches and syncs made before */
	int launches_before_stream, syncs_before_stream;
} fake_cuda;

fake_cuda *fake_cuda_state(void);

#endif
