/* planted_payload.c: what an attacker plants in a compile cache (issue
 * 36): an object defining the entry point that polytile's JIT looks
 * up, pt_pipeline_argv, which proves that it ran by creating the file
 * $PT_TEST_MARKER.  Built as a plain object (tests/meson.build); the
 * cache tests wrap it in well-formed entry headers and check that it
 * never runs. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "pt_runtime.h"

int pt_pipeline_argv(const void *iparams, const void *fparams, const void *inputs, const void *outputs);

int pt_pipeline_argv(const void *iparams, const void *fparams, const void *inputs, const void *outputs)
{
	(void)iparams, (void)fparams, (void)inputs, (void)outputs;
	const char *marker = getenv("PT_TEST_MARKER");
	int fd = marker ? open(marker, O_WRONLY | O_CREAT, 0644) : -1;
	if (fd >= 0)
		close(fd);
	return 0;
}

/* and the ABI version polytile checks before calling (pt_runtime.h's
 * PT_ABI_VERSION): a payload that passes every check but the MAC */
int pt_pipeline_abi_version(void);

int pt_pipeline_abi_version(void)
{
	return PT_ABI_VERSION;
}
