/* fill.h: the GPU bench's inputs, the same on every machine: prepare.c
 * writes the check cases' inputs with it, harness.c generates the bench
 * cases' with it (floats in [0, 1), u8 over its range, u16 0..1023 like
 * raw sensor data). */
#ifndef BENCH_GPU_FILL_H
#define BENCH_GPU_FILL_H

#include <string.h>

#include "pt_runtime.h"

static inline void gpu_bench_fill(pt_buffer *b, uint32_t seed)
{
	int64_t n = pt_buffer_count(b);
	uint32_t s = seed * 2654435761u + 12345u;
	size_t esz = pt_type_size(b->type);
	for (int64_t i = 0; i < n; i++) {
		s = s * 1664525u + 1013904223u;
		uint32_t r = s >> 8;
		char *at = (char *)b->data + (size_t)i * esz;
		switch (b->type) {
		case PT_F32: *(float *)at = (float)((double)r / 16777216.0); break;
		case PT_F64: *(double *)at = (double)r / 16777216.0; break;
		case PT_U8: *(uint8_t *)at = (uint8_t)r; break;
		case PT_U16: *(uint16_t *)at = (uint16_t)(r & 1023); break;
		default: memset(at, 0, esz); break;
		}
	}
}

#endif
