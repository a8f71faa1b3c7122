/* cubin.c: the pass "cubin" (polytile compile --backend cuda): the
 * kernels' PTX assembled for sm_90 by the CUDA toolkit's ptxas and
 * embedded beside it, so that an H100 or H200 loads machine code and
 * the driver's JIT is only the fallback on other GPUs.
 *
 * Only for object files written by `polytile compile` (pt_unit.aot):
 * a run in process has no toolkit to count on, and the driver caches
 * its own JIT of the PTX.  ptxas is $PT_PTXAS ("none": no cubin), else
 * /usr/local/cuda/bin/ptxas, else the first on PATH; without one the
 * object carries the PTX alone (the dump says so).  PTX that ptxas
 * refuses is an error: the driver's JIT would refuse it too, at the
 * first launch, on the user's machine.
 *
 * The cubin goes in the host module's "<function>.cubin" (codegen/cuda.c
 * leaves it 8 zero bytes): its size as a little-endian int64, then its
 * bytes, which the runtime's pt_cuda_cubin loads. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "codegen.h"
#include "cubin.h"
#include "diag.h"

extern char **environ;

/* A message, malloc'ed (pt_strbuf's printf). */
static char *msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *msg(const char *fmt, ...)
{
	pt_strbuf b = { 0 };
	va_list ap;
	va_start(ap, fmt);
	pt_sb_vprintf(&b, fmt, ap);
	va_end(ap);
	return pt_sb_take(&b);
}

/* The ptxas to run, in path (empty: none, *why says why not). */
static void find_ptxas(char *path, size_t n, const char **why)
{
	const char *env = getenv("PT_PTXAS");
	path[0] = 0;
	if (env && *env) {
		if (!strcmp(env, "none"))
			*why = "PT_PTXAS=none";
		else if (access(env, X_OK))
			*why = "PT_PTXAS names no executable";
		else
			snprintf(path, n, "%s", env);
		return;
	}
	if (!access("/usr/local/cuda/bin/ptxas", X_OK)) {
		snprintf(path, n, "/usr/local/cuda/bin/ptxas");
		return;
	}
	const char *dirs = getenv("PATH");
	for (const char *s = dirs ? dirs : ""; *s;) {
		size_t k = strcspn(s, ":");
		snprintf(path, n, "%.*s/ptxas", (int)k, s);
		if (k && !access(path, X_OK))
			return;
		s += k + (s[k] == ':');
	}
	path[0] = 0;
	*why = "no ptxas (the CUDA toolkit's /usr/local/cuda/bin, PATH, or $PT_PTXAS)";
}

/* The whole of file path, malloc'ed, its size in *n; NULL if unreadable. */
static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t cap = 0;
	*n = 0;
	for (;;) {
		if (*n + 65536 > cap) {
			cap = 2 * cap + 65536;
			char *nb = realloc(buf, cap + 1);
			if (!nb)
				break;
			buf = nb;
		}
		size_t k = fread(buf + *n, 1, cap - *n, f);
		*n += k;
		if (k == 0)
			break;
	}
	fclose(f);
	if (buf)
		buf[*n] = 0;
	return buf;
}

/* ptxas -arch=sm_90 -O3 on ptx in a private directory: the cubin
 * (malloc'ed, *n bytes), or NULL with *err (ptxas's messages). */
static char *assemble(const char *ptxas, const char *ptx, size_t *n, char **err)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/polytile-ptxas-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		*err = msg("a temporary directory for ptxas could not be made in %s: %s", dir, strerror(errno));
		return NULL;
	}
	char src[4200], out[4200], log[4200];
	snprintf(src, sizeof(src), "%s/kernels.ptx", dir);
	snprintf(out, sizeof(out), "%s/kernels.cubin", dir);
	snprintf(log, sizeof(log), "%s/ptxas.log", dir);
	char *cubin = NULL;
	FILE *f = fopen(src, "w");
	bool written = f && fputs(ptx, f) >= 0;
	if (f && fclose(f))
		written = false;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	char *argv[] = { (char *)ptxas, "-arch=sm_90", "-O3", "-o", out, src, NULL };
	pid_t pid;
	int status = -1;
	if (!written)
		*err = msg("the PTX could not be written to %s", src);
	else if (posix_spawn(&pid, ptxas, &fa, NULL, argv, environ))
		*err = msg("%s could not be started", ptxas);
	else if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		status = -1;
	posix_spawn_file_actions_destroy(&fa);
	if (written && !*err && status == 0 && !(cubin = slurp(out, n)))
		*err = msg("%s wrote no cubin", ptxas);
	if (written && !*err && status != 0) {
		size_t k = 0;
		char *said = slurp(log, &k);
		if (said && k > 4000)
			said[4000] = 0;
		*err = msg("%s refused the kernels' PTX (set PT_PTXAS=none to leave the cubin out): %s", ptxas,
			said && *said ? said : "it said nothing");
		free(said);
	}
	unlink(src);
	unlink(out);
	unlink(log);
	rmdir(dir);
	return cubin;
}

/* The text of the host module's constant global name, or NULL. */
static const char *global_text(LLVMModuleRef mod, const char *name, size_t *len)
{
	LLVMValueRef g = LLVMGetNamedGlobal(mod, name);
	LLVMValueRef init = g ? LLVMGetInitializer(g) : NULL;
	*len = 0;
	return init && LLVMIsAConstantDataSequential(init) ? LLVMGetAsString(init, len) : NULL;
}

/* Global g given the size-prefixed image. */
static void set_image(LLVMValueRef g, const char *cubin, size_t n)
{
	char *img = malloc(n + 8);
	uint64_t size = n;
	for (int i = 0; i < 8; i++)
		img[i] = (char)(size >> (8 * i));
	memcpy(img + 8, cubin, n);
	pt_codegen_define_bytes(g, img, n + 8, false, 8);
	free(img);
}

int pt_cubin_embed(LLVMModuleRef mod, const char *fname, char **log, char **err)
{
	char name[300];
	snprintf(name, sizeof(name), "%s.cubin", fname);
	LLVMValueRef g = LLVMGetNamedGlobal(mod, name);
	snprintf(name, sizeof(name), "%s.ptx", fname);
	size_t len;
	const char *ptx = global_text(mod, name, &len);
	*err = NULL;
	if (!g || !ptx || len <= 1) {
		*log = strdup("no cubin: there is no PTX to assemble\n");
		return 0;
	}
	char ptxas[4096];
	const char *why = NULL;
	find_ptxas(ptxas, sizeof(ptxas), &why);
	if (!ptxas[0]) {
		*log = msg("no cubin: %s; the kernels load from their PTX, compiled by the driver\n", why);
		return 0;
	}
	size_t n = 0;
	char *cubin = assemble(ptxas, ptx, &n, err);
	if (!cubin)
		return -1;
	set_image(g, cubin, n);
	free(cubin);
	*log = msg("cubin for sm_90: %zu bytes, from %s (other GPUs load the PTX)\n", n, ptxas);
	return 0;
}
