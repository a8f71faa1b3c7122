/* targets.c: the target of each backend, above every target (the
 * emulation shares cpu.c's hooks, so the choice lives in neither). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target.h"

const pt_target *pt_target_for(pt_backend b, char **err)
{
	static const char *const names[] = { "cpu", "cuda", "mpi" };
	if (b == PT_BACKEND_CPU)
		return &pt_target_cpu;
	if (b == PT_BACKEND_CUDA_EMU)
		return &pt_target_cuda_emu;
	if (b == PT_BACKEND_CUDA)
		return &pt_target_cuda;
#ifdef PT_HAVE_MPI
	if (b == PT_BACKEND_MPI)
		return &pt_target_mpi;
#endif
	char msg[160];
	snprintf(msg, sizeof(msg), "backend %s: this build has no %s target yet (the CPU's is `--backend cpu`)",
		b >= 0 && b <= PT_BACKEND_MPI ? names[b] : "?", b >= 0 && b <= PT_BACKEND_MPI ? names[b] : "such");
	*err = strdup(msg);
	return NULL;
}
