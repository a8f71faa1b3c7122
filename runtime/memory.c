/* memory.c: how much memory this process may still use, so that a run
 * too large for the machine is refused with a message instead of ending
 * in the kernel's OOM killer (or a failed malloc deep inside). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "pt_runtime.h"

/* The number after key in a "Key: value [kB]" file (/proc), in bytes;
 * -1 if absent. */
static int64_t proc_field(const char *path, const char *key)
{
	FILE *f = fopen(path, "r");
	char line[256];
	int64_t r = -1;
	size_t n = strlen(key);
	while (f && fgets(line, sizeof(line), f)) {
		long long v;
		if (!strncmp(line, key, n) && line[n] == ':' && sscanf(line + n + 1, "%lld", &v) == 1) {
			r = strstr(line, "kB") ? (int64_t)v * 1024 : (int64_t)v;
			break;
		}
	}
	if (f)
		fclose(f);
	return r;
}

/* A file holding one number ("max" or absent: -1). */
static int64_t file_number(const char *path)
{
	FILE *f = fopen(path, "r");
	long long v = -1;
	if (f && fscanf(f, "%lld", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return (int64_t)v;
}

static void tighter(int64_t *avail, const char **what, int64_t v, const char *name)
{
	if (v >= 0 && (*avail < 0 || v < *avail)) {
		*avail = v;
		*what = name;
	}
}

int64_t pt_memory_available(const char **limit)
{
	int64_t avail = -1;
	const char *what = "nothing";
	/* a cap of the user's (tests set it where RLIMIT_AS cannot be used,
	 * under AddressSanitizer) */
	const char *env = getenv("PT_MEMORY_LIMIT");
	char *end;
	long long cap = env ? strtoll(env, &end, 10) : -1;
	if (env && *env && !*end && cap >= 0)
		tighter(&avail, &what, cap, "PT_MEMORY_LIMIT");
	struct rlimit rl;
	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		/* the address space already mapped counts against the limit */
		int64_t used = proc_field("/proc/self/status", "VmSize");
		int64_t cap = rl.rlim_cur > (rlim_t)INT64_MAX ? INT64_MAX : (int64_t)rl.rlim_cur;
		tighter(&avail, &what, used >= 0 && used < cap ? cap - used : 0, "the address-space limit (RLIMIT_AS)");
	}
	int64_t max = file_number("/sys/fs/cgroup/memory.max"), cur = file_number("/sys/fs/cgroup/memory.current");
	if (max >= 0)
		tighter(&avail, &what, cur >= 0 && cur < max ? max - cur : 0, "the cgroup's memory.max");
	int64_t v1 = file_number("/sys/fs/cgroup/memory/memory.limit_in_bytes");
	if (v1 >= 0 && v1 < ((int64_t)1 << 60)) {
		int64_t u1 = file_number("/sys/fs/cgroup/memory/memory.usage_in_bytes");
		tighter(&avail, &what, u1 >= 0 && u1 < v1 ? v1 - u1 : 0, "the cgroup's memory limit");
	}
	int64_t mem = proc_field("/proc/meminfo", "MemAvailable"), swap = proc_field("/proc/meminfo", "SwapFree");
	if (mem >= 0)
		tighter(&avail, &what, mem + (swap > 0 ? swap : 0), "the machine's available memory and swap");
	if (limit)
		*limit = what;
	return avail < 0 ? INT64_MAX : avail;
}

/* "1.5 GB", "300.0 MB", "12.0 KB", "100 bytes" */
static void human(char *b, size_t n, double bytes)
{
	if (bytes >= 1e12)
		snprintf(b, n, "%.3g TB", bytes / 1e12);
	else if (bytes >= 1e9)
		snprintf(b, n, "%.1f GB", bytes / 1e9);
	else if (bytes >= 1e6)
		snprintf(b, n, "%.1f MB", bytes / 1e6);
	else if (bytes >= 1e3)
		snprintf(b, n, "%.1f KB", bytes / 1e3);
	else
		snprintf(b, n, "%.0f bytes", bytes);
}

int pt_memory_check(double bytes, char *msg, size_t len)
{
	const char *what;
	int64_t avail = pt_memory_available(&what);
	if (bytes <= (double)avail)
		return PT_OK;
	char need[32], have[32];
	human(need, sizeof(need), bytes);
	human(have, sizeof(have), (double)avail);
	if (msg && len)
		snprintf(msg, len, "needs %s of memory, more than the %s that %s leaves", need, have, what);
	return PT_ERR_NOMEM;
}
