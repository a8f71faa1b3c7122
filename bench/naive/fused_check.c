/* fused_check.c: fused_harris against naive_harris, bit for bit, on sizes
 * that give partial tiles and empty output regions (1 x 1, 5 x 7, 1001 x
 * 803, ...), with padded row strides, at 1 and 2 threads. Outputs start
 * filled with a NaN pattern, and the whole buffers (points outside
 * `border` included) must be identical bytes. Exit status 0 when all
 * agree. Build (see bench/README.md):
 *
 *   gcc -std=c11 -O3 -march=native -fopenmp -I include -I bench \
 *       bench/naive/fused_check.c bench/naive/harris.c \
 *       bench/naive/harris_fused.c -o fused_check && ./fused_check */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "naive/naive.h"

/* a 2-d f32 buffer of the given extents with row stride C+2+pad */
static float *make(pt_buffer *b, int64_t r, int64_t c, int64_t pad)
{
	float *d = malloc((size_t)(r * (c + pad)) * sizeof(float));
	if (!d) {
		fputs("fused_check: out of memory\n", stderr);
		exit(2);
	}
	memset(b, 0, sizeof *b);
	b->data = d;
	b->type = PT_F32;
	b->ndim = 2;
	b->extent[0] = r, b->extent[1] = c;
	b->stride[0] = c + pad, b->stride[1] = 1;
	return d;
}

int main(void)
{
	static const int sizes[][2] = {
		{ 1, 1 }, { 2, 2 }, { 3, 3 }, { 5, 7 }, { 7, 5 }, { 3, 300 },
		{ 40, 3 }, { 33, 257 }, { 34, 258 }, { 35, 259 }, { 64, 512 },
		{ 66, 514 }, { 100, 1000 }, { 1001, 803 },
	};
	int fails = 0, n = 0;

	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
		for (int pad = 0; pad <= 5; pad += 5)
			for (int nt = 1; nt <= 2; nt++) {
				int32_t R = sizes[k][0], C = sizes[k][1];
				int64_t r = (int64_t)R + 2, c = (int64_t)C + 2;
				pt_buffer in, o1, o2;
				float *d = make(&in, r, c, pad);
				float *a = make(&o1, r, c, pad + 3);
				float *b = make(&o2, r, c, pad + 3);
				size_t nin = (size_t)(r * (c + pad));
				size_t nout = (size_t)(r * (c + pad + 3));
				/* deterministic values with varied magnitudes */
				unsigned s = 12345u + (unsigned)k;
				for (size_t i = 0; i < nin; i++) {
					s = s * 1103515245u + 12345u;
					d[i] = (float)((s >> 8) & 0xffff) / 65536.0f
						* (1 + (float)(i % 7));
				}
				memset(a, 0xff, nout * sizeof(float));
				memset(b, 0xff, nout * sizeof(float));
				omp_set_num_threads(nt);
				int e1 = naive_harris(R, C, &in, &o1);
				int e2 = fused_harris(R, C, &in, &o2);
				n++;
				if (e1 || e2 || memcmp(a, b, nout * sizeof(float))) {
					fails++;
					fprintf(stderr, "fused_check: %d x %d, pad %d, "
							"%d threads: differs (%d, %d)\n",
							R, C, pad, nt, e1, e2);
				}
				free(d), free(a), free(b);
			}

	/* the same argument checks as naive_harris */
	pt_buffer in, out;
	float *d = make(&in, 4, 4, 0), *o = make(&out, 4, 4, 0);
	int bad = fused_harris(0, 2, &in, &out) != naive_harris(0, 2, &in, &out)
		|| fused_harris(2, 2, NULL, &out) != naive_harris(2, 2, NULL, &out)
		|| fused_harris(3, 2, &in, &out) != naive_harris(3, 2, &in, &out)
		|| fused_harris(2, 2, &in, &out) != PT_OK;
	free(d), free(o);
	if (bad) {
		fails++;
		fputs("fused_check: argument checks differ from naive_harris\n", stderr);
	}

	printf("fused_check: %d of %d size/stride/thread cases bit for bit "
			"equal to naive_harris%s\n", n - (fails - bad), n,
			bad ? "; argument checks differ" : ", argument checks equal");
	return fails != 0;
}
