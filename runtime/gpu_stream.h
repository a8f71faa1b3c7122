/* gpu_stream.h: what the CUDA runtime's streamed copies (cuda_launch.c)
 * and the emulator's (gpu_emu.c) share (gpu_stream.c): which buffers a
 * run streams, the layout that allows it, and a device copy's bytes. */
#ifndef PT_RUNTIME_GPU_STREAM_H
#define PT_RUNTIME_GPU_STREAM_H

#include <stdbool.h>

#include "pt_runtime.h"

#define PT_STREAM_SET_MAX 64

/* The buffers bound for streaming on a thread (its run's). */
typedef struct pt_stream_set {
	const pt_buffer *b[PT_STREAM_SET_MAX];
	int n;
} pt_stream_set;

/* Whether b can stream: a place left in s, its strides not negative,
 * its extents not empty, its last dim's elements adjacent (a box's
 * rows are then 2-D copies). */
__attribute__((visibility("hidden"))) bool pt_stream_layout_ok(const pt_stream_set *s, const pt_buffer *b);
/* Bytes from b's element 0 to past its last (strides not negative). */
__attribute__((visibility("hidden"))) int64_t pt_stream_span_bytes(const pt_buffer *b);
__attribute__((visibility("hidden"))) void pt_stream_set_add(pt_stream_set *s, const pt_buffer *b);
__attribute__((visibility("hidden"))) bool pt_stream_set_has(const pt_stream_set *s, const pt_buffer *b);
/* Removes b; whether it was there. */
__attribute__((visibility("hidden"))) bool pt_stream_set_forget(pt_stream_set *s, const pt_buffer *b);

#endif
