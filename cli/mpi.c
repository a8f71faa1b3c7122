/* mpi.c: `polytile run --backend mpi` on every rank of an mpirun (cli.h):
 * each rank reads the inputs and compiles; the ranks agree after each
 * step that can fail on one of them alone, so that all stop together
 * and rank 0 says which failed; rank 0 alone prints and writes. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "pt_runtime.h"

#ifdef PT_HAVE_MPI
int pt_cli_mpi_begin(void)
{
	if (pt_mpi_init()) {
		fprintf(stderr, "polytile: --backend mpi: MPI did not start\n");
		return -1;
	}
	return 0;
}

void pt_cli_mpi_end(void)
{
	pt_mpi_finalize();
}

bool pt_cli_mpi_root(void)
{
	return pt_mpi_rank() == 0;
}

int pt_cli_mpi_size(void)
{
	return pt_mpi_size();
}

void pt_cli_mpi_bytes(bool print)
{
	int R = pt_mpi_size();
	int64_t *sent = calloc((size_t)R, sizeof(int64_t)), *recv = calloc((size_t)R, sizeof(int64_t));
	int64_t *held = calloc((size_t)R, sizeof(int64_t));
	if (sent && recv && held) {
		pt_mpi_bytes_all(sent, recv);
		pt_mpi_held_all(held);
	}
	for (int r = 0; print && sent && recv && held && r < R; r++)
		printf("rank %d sent %lld bytes, received %lld\n", r, (long long)sent[r], (long long)recv[r]);
	for (int r = 0; print && sent && recv && held && r < R; r++)
		printf("rank %d held %lld bytes of intermediate arrays\n", r, (long long)held[r]);
	free(sent);
	free(recv);
	free(held);
}

static int agreed_rank = -1;   /* the rank the last agreement named, or -1 */

bool pt_cli_mpi_speaks(void)
{
	return pt_mpi_rank() == 0 || agreed_rank == pt_mpi_rank();
}

int pt_cli_mpi_agree(int failed, const char *step)
{
	int rank;
	int32_t code = pt_mpi_agree(failed ? PT_ERR_PARAM : 0, &rank);
	agreed_rank = code ? rank : -1;
	if (code && rank != pt_mpi_rank() && pt_mpi_rank() == 0)
		fprintf(stderr, "polytile: rank %d of %d failed %s (its message above); every rank stops\n", rank,
			pt_mpi_size(), step);
	return code ? -1 : 0;
}
#else
int pt_cli_mpi_begin(void)
{
	fprintf(stderr, "polytile: --backend mpi: this build of polytile has no mpi backend "
		"(build with meson configure -Dmpi=enabled)\n");
	return -1;
}

void pt_cli_mpi_end(void)
{
}

bool pt_cli_mpi_root(void)
{
	return true;
}

int pt_cli_mpi_size(void)
{
	return 1;
}

void pt_cli_mpi_bytes(bool print)
{
	(void)print;
}

int pt_cli_mpi_agree(int failed, const char *step)
{
	(void)step;
	return failed ? -1 : 0;
}

bool pt_cli_mpi_speaks(void)
{
	return true;
}
#endif
