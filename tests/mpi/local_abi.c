/* local_abi.c: the MPI target's local-part ABI as an application uses
 * it, through the header `polytile compile --backend mpi -o blur_mpi`
 * writes for apps/blur.pipe (tests/meson.build): every rank asks
 * blur_mpi_part for its boxes, fills only its part of the input from
 * a formula, calls blur_mpi_local, and checks its own points of the output
 * against the blur computed here in C.  With more than one rank, no
 * rank's input part is the whole image.  Run under mpirun; exit status
 * 0 when every rank's points are right. */
#include <stdio.h>
#include <stdlib.h>

#include "blur_mpi.h"

static uint16_t input(int64_t x, int64_t y)
{
	return (uint16_t)((x * 7 + y * 13) % 1000);   /* sums of 9 stay in u16 */
}

/* The app's blur at (x, y), in C. */
static uint16_t blur(int64_t x, int64_t y)
{
	unsigned bx[3];
	for (int i = 0; i < 3; i++)
		bx[i] = ((unsigned)input(x + i, y) + input(x + i, y + 1) + input(x + i, y + 2)) / 3;
	return (uint16_t)((bx[0] + bx[1] + bx[2]) / 3);
}

/* Rank's box of array a into lo, hi and a buffer of its extents. */
static int part(const int64_t *ip, int rank, int nranks, int a, int64_t *lo, int64_t *hi, pt_buffer *b)
{
	int nd = blur_mpi_part(ip, NULL, rank, nranks, a, lo, hi);
	if (nd != 2)
		return -1;
	int64_t ext[2];
	for (int d = 0; d < 2; d++)
		ext[d] = lo[0] > hi[0] ? 0 : hi[d] - lo[d] + 1;
	return pt_buffer_alloc(b, PT_U16, 2, ext);
}

int main(int argc, char **argv)
{
	int64_t R = argc > 2 ? atoll(argv[1]) : 61, C = argc > 2 ? atoll(argv[2]) : 47;
	if (pt_mpi_init())
		return 1;
	int rank = pt_mpi_rank(), nranks = pt_mpi_size(), bad = 0;
	int64_t ip[] = { R, C }, ilo[2], ihi[2], olo[2], ohi[2], own_lo[2], own_hi[2];
	pt_buffer in = {0}, out = {0};
	if (part(ip, rank, nranks, 0, ilo, ihi, &in) || part(ip, rank, nranks, 1, olo, ohi, &out) ||
		blur_mpi_part(ip, NULL, rank, nranks, 1 + PT_PART_OWN, own_lo, own_hi) != 2) {
		fprintf(stderr, "rank %d: no parts\n", rank);
		bad = 1;
	}
	if (!bad && nranks > 1 && in.extent[0] >= R + 2) {
		fprintf(stderr, "rank %d: its input part has every row (%lld)\n", rank, (long long)in.extent[0]);
		bad = 1;
	}
	for (int64_t i = 0; !bad && i < in.extent[0]; i++)
		for (int64_t j = 0; j < in.extent[1]; j++)
			((uint16_t *)in.data)[i * in.stride[0] + j] = input(ilo[0] + i, ilo[1] + j);
	int rc = blur_mpi_local((int32_t)R, (int32_t)C, &in, &out);   /* every rank, even one that failed */
	if (rc) {
		fprintf(stderr, "rank %d: blur_mpi_local: %s\n", rank, pt_error_name(rc));
		bad = 1;
	}
	int64_t checked = 0;
	for (int64_t x = own_lo[0]; !bad && x <= own_hi[0]; x++)
		for (int64_t y = own_lo[1]; y <= own_hi[1]; y++, checked++) {
			uint16_t got = ((uint16_t *)out.data)[(x - olo[0]) * out.stride[0] + (y - olo[1])];
			if (got != blur(x, y)) {
				fprintf(stderr, "rank %d: out(%lld, %lld) = %u, not %u\n", rank, (long long)x, (long long)y, got,
					blur(x, y));
				bad = 1;
				break;
			}
		}
	printf("rank %d of %d: input rows %lld .. %lld, output rows %lld .. %lld, %lld points checked%s\n", rank,
		nranks, (long long)ilo[0], (long long)ihi[0], (long long)own_lo[0], (long long)own_hi[0], (long long)checked,
		bad ? ": FAILED" : "");
	int who;
	int32_t code = pt_mpi_agree(bad ? PT_ERR_PARAM : 0, &who);
	pt_buffer_free(&in);
	pt_buffer_free(&out);
	pt_mpi_finalize();
	return code ? 1 : 0;
}
