/* harris_demo.c: an application that links a pipeline compiled ahead of
 * time, the way a user integrates polytile:
 *
 *   polytile compile apps/harris.pipe -o harris        # harris.o, harris.h
 *   cc -O2 harris_demo.c harris.o $(pkg-config --cflags --libs polytile_rt)
 *
 * It makes a synthetic image (a checkerboard of 8x8 squares), finds its
 * corners with the compiled harris() and counts the strong responses;
 * then it calls harris() with an input of the wrong size, which must fail
 * with PT_ERR_EXTENT and leave the output untouched.  Exit status 0 when
 * both behave. */
#include <stdio.h>
#include <stdlib.h>

#include "harris.h"

int main(int argc, char **argv)
{
	int32_t R = argc > 1 ? atoi(argv[1]) : 64, C = argc > 2 ? atoi(argv[2]) : 48;
	pt_buffer img, out, small;
	int64_t ext[2] = { R + 2, C + 2 }, oext[2] = { R + 2, C + 2 }, sext[2] = { R, C };
	if (pt_buffer_alloc(&img, PT_F32, 2, ext) || pt_buffer_alloc(&out, PT_F32, 2, oext) ||
	    pt_buffer_alloc(&small, PT_F32, 2, sext)) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	float *px = img.data;
	for (int x = 0; x < R + 2; x++)
		for (int y = 0; y < C + 2; y++)
			px[x * img.stride[0] + y] = ((x / 8 + y / 8) % 2) ? 1.0f : 0.0f;

	/* the object was made for the runtime this program links */
	if (harris_abi_version() != PT_ABI_VERSION || harris_ABI_VERSION != PT_ABI_VERSION) {
		fprintf(stderr, "harris.o was made for runtime ABI %d, this runtime's is %d\n",
			(int)harris_abi_version(), PT_ABI_VERSION);
		return 1;
	}
	int rc = harris(R, C, &img, &out);
	if (rc != PT_OK) {
		fprintf(stderr, "harris failed: %s\n", pt_error_name(rc));
		return 1;
	}
	const float *h = out.data;
	int corners = 0;
	for (int64_t i = 0; i < pt_buffer_count(&out); i++)
		corners += h[i] > 1e-3f;
	printf("harris %dx%d: %d strong corner responses\n", R, C, corners);

	/* the wrong input size: an error code and nothing written */
	for (int64_t i = 0; i < pt_buffer_count(&out); i++)
		((float *)out.data)[i] = -1.0f;
	rc = harris(R, C, &small, &out);
	int untouched = 1;
	for (int64_t i = 0; i < pt_buffer_count(&out); i++)
		untouched = untouched && ((float *)out.data)[i] == -1.0f;
	printf("input of %dx%d instead of %dx%d: %s (code %d), output %s\n", R, C, R + 2, C + 2,
		pt_error_name(rc), rc, untouched ? "untouched" : "MODIFIED");
	pt_buffer_free(&img);
	pt_buffer_free(&out);
	pt_buffer_free(&small);
	return (corners > 0 && rc == PT_ERR_EXTENT && untouched) ? 0 : 1;
}
