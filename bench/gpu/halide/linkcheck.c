/* linkcheck.c: libhl_gpu.a links into a C program (static libstdc++) and,
 * without a GPU, fails cleanly: lists the variants built, then runs harris
 * on a small image and prints what Halide returns. */
#include <stdio.h>
#include <stdlib.h>

#include "hl_gpu.h"

static pt_buffer buf2(pt_type t, int64_t r, int64_t c, size_t esize)
{
	pt_buffer b = { 0 };
	b.data = calloc((size_t)(r * c), esize);
	b.type = t;
	b.ndim = 2;
	b.extent[0] = r, b.extent[1] = c;
	b.stride[0] = c, b.stride[1] = 1;
	return b;
}

int main(void)
{
	static const char *const apps[] = { "harris", "unsharp_mask", "blur", "sobel", "local_laplacian", "nope" };
	for (size_t i = 0; i < sizeof apps / sizeof *apps; i++) {
		printf("%s:", apps[i]);
		for (const char *const *v = hl_gpu_variants(apps[i]); *v; v++)
			printf(" %s", *v);
		printf("\n");
	}
	const int R = 509, C = 387;
	pt_buffer in = buf2(PT_F32, R + 2, C + 2, sizeof(float)), out = buf2(PT_F32, R + 2, C + 2, sizeof(float));
	if (!in.data || !out.data)
		return 1;
	for (const char *const *v = hl_gpu_variants("harris"); *v; v++) {
		int r = hl_gpu_harris(*v, HL_E2E, R, C, &in, &out);
		printf("hl_gpu_harris(%s, E2E, %d, %d) = %d: %s\n", *v, R, C, r, hl_gpu_last_error());
		r = hl_gpu_harris(*v, HL_RELEASE, R, C, &in, &out);
		printf("hl_gpu_harris(%s, RELEASE) = %d\n", *v, r);
	}
	/* A misuse is refused before Halide runs. */
	int r = hl_gpu_harris("hand", HL_E2E, R + 1, C, &in, &out);
	printf("hl_gpu_harris(hand, E2E, wrong R) = %d: %s\n", r, hl_gpu_last_error());
	free(in.data);
	free(out.data);
	return 0;
}
