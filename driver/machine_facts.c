/* machine_facts.c: what the tile model (grouping/tile_model.h) knows of
 * the machine: cache sizes from sysfs, threads, the vector width from
 * the target's features; PT_MACHINE overrides any of them (tests, and
 * planning for another machine). */
#ifndef _GNU_SOURCE   /* asprintf */
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#include "machine_facts.h"

/* When sysfs says nothing: a small modern core's caches (conservative:
 * a smaller L2 only makes tiles smaller). */
#define FALLBACK_L1 (32 << 10)
#define FALLBACK_L2 (256 << 10)
#define FALLBACK_L3 (8 << 20)
/* The most L3 one logical CPU can have to itself: 12 MiB is more than any
 * x86 part gives a core (96 MiB over 8 cores).  A virtual machine shows
 * its few vCPUs the host's whole L3 (480 MiB for 2 vCPUs here), shared
 * with tenants it cannot see; taken at its word, no output would ever be
 * streamed, though a 50 MB one written with cached stores ran 1.1-1.3x
 * slower (bench/results.md, "An L3 share per CPU"). */
#define L3_PER_CPU_MAX (12ll << 20)

/* "32K", "1M", "1048576" -> bytes; -1 if malformed. */
static int64_t parse_size(const char *s, const char **end)
{
	char *e;
	long long v = strtoll(s, &e, 10);
	if (e == s || v <= 0)
		return -1;
	int64_t m = 1;
	if (*e == 'K' || *e == 'k')
		m = 1 << 10, e++;
	else if (*e == 'M' || *e == 'm')
		m = 1 << 20, e++;
	else if (*e == 'G' || *e == 'g')
		m = 1 << 30, e++;
	if (*e == 'B' || *e == 'b')   /* "32KB" */
		e++;
	if (end)
		*end = e;
	return (int64_t)v * m;
}

static bool read_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	bool ok = fgets(buf, (int)n, f) != NULL;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return ok;
}

/* CPUs in a sysfs cpu list ("0-1,4,6-7"); 0 if malformed. */
static int count_cpus(const char *list)
{
	int n = 0;
	for (const char *s = list; *s;) {
		char *e;
		long a = strtol(s, &e, 10), b = a;
		if (e == s || a < 0)
			return 0;
		if (*e == '-') {
			s = e + 1;
			b = strtol(s, &e, 10);
			if (e == s || b < a)
				return 0;
		}
		if (*e && *e != ',')
			return 0;
		n += (int)(b - a + 1);
		s = *e == ',' ? e + 1 : e;
	}
	return n;
}

int64_t pt_machine_l3_share(int64_t bytes, const char *cpu_list)
{
	int n = cpu_list ? count_cpus(cpu_list) : 0;
	return n > 0 && bytes > n * L3_PER_CPU_MAX ? n * L3_PER_CPU_MAX : bytes;
}

/* cpu0's data/unified caches by level from sysfs, the L3 as
 * pt_machine_l3_share makes it (*capped: what sysfs said, if more);
 * false if none. */
static bool sysfs_caches(pt_machine *m, int64_t *capped)
{
	bool any = false;
	for (int i = 0; i < 16; i++) {
		char path[128], level[16], type[32], size[32];
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		if (!read_line(path, level, sizeof(level)))
			break;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
		if (!read_line(path, type, sizeof(type)) || !strcmp(type, "Instruction"))
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		int64_t b;
		if (!read_line(path, size, sizeof(size)) || (b = parse_size(size, NULL)) <= 0)
			continue;
		int l = atoi(level);
		if (l == 1)
			m->l1 = b;
		else if (l == 2)
			m->l2 = b;
		else if (l == 3) {
			char list[256];
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list", i);
			m->l3 = pt_machine_l3_share(b, read_line(path, list, sizeof(list)) ? list : NULL);
			if (m->l3 < b)
				*capped = b;
		} else
			continue;
		any = true;
	}
	return any;
}

/* The widest vectors the target's features give: AVX-512 64 bytes,
 * AVX/AVX2 32, else 16 (SSE2 is x86-64's baseline; NEON is 16). */
static int vector_bytes(const char *target, const char **how)
{
	char *host = NULL;
	const char *feat = NULL;
	if (!target) {
		feat = host = LLVMGetHostCPUFeatures();
		*how = "host features";
	} else {
		const char *c = strchr(target, ':');
		feat = c ? strchr(c + 1, ':') : NULL;
		feat = feat ? feat + 1 : "";
		*how = "--target's features";
	}
	int v = strstr(feat, "+avx512f") ? 64 : strstr(feat, "+avx2") || strstr(feat, "+avx,") ? 32 : 16;
	if (host)
		LLVMDisposeMessage(host);
	return v;
}

/* The threads compiled code will use: the options', else the runtime's
 * default (OMP_NUM_THREADS's first number, else the online CPUs). */
static int default_threads(const pt_options *opt, const char **how)
{
	if (opt && opt->threads > 0) {
		*how = "--threads";
		return opt->threads;
	}
	const char *e = getenv("OMP_NUM_THREADS");
	if (e && atoi(e) > 0) {
		*how = "OMP_NUM_THREADS";
		return atoi(e);
	}
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	*how = "online CPUs";
	return n > 0 ? (int)n : 1;
}

int pt_machine_facts(const pt_options *opt, pt_machine *m, char **err)
{
	memset(m, 0, sizeof(*m));
	const char *caches = "sysfs", *threads_how, *vec_how;
	int64_t l3_said = 0;
	if (!sysfs_caches(m, &l3_said))
		caches = "fallback constants";
	if (!m->l1)
		m->l1 = FALLBACK_L1;
	if (!m->l2)
		m->l2 = FALLBACK_L2;
	if (!m->l3)
		m->l3 = FALLBACK_L3;
	m->threads = default_threads(opt, &threads_how);
	m->vector_bytes = vector_bytes(opt ? opt->target : NULL, &vec_how);
	const char *env = getenv("PT_MACHINE");
	bool fixed[5] = {0};
	for (const char *s = env ? env : ""; *s;) {
		static const char *const keys[] = { "l1", "l2", "l3", "threads", "vector" };
		size_t k = strcspn(s, "=,");
		int key = -1;
		for (int i = 0; i < 5; i++)
			if (strlen(keys[i]) == k && !strncmp(s, keys[i], k))
				key = i;
		const char *end = s + k;
		int64_t v = -1;
		if (key >= 0 && s[k] == '=')
			v = key < 3 ? parse_size(s + k + 1, &end) : strtoll(s + k + 1, (char **)&end, 10);
		if (key < 0 || v <= 0 || (*end && *end != ',') || (key == 4 && (v & (v - 1))) || v > (1ll << 40)) {
			if (asprintf(err, "PT_MACHINE=%s: bad item '%.*s'; give l1=32K,l2=1M,l3=32M,threads=2,vector=64 "
				"(any of them; sizes in bytes with K, M or G, vector a power of two in bytes)",
				env, (int)strcspn(s, ","), s) < 0)
				*err = NULL;
			return -1;
		}
		fixed[key] = true;
		int64_t *sizes[3] = { &m->l1, &m->l2, &m->l3 };
		if (key < 3)
			*sizes[key] = v;
		else if (key == 3)
			m->threads = (int)v;
		else
			m->vector_bytes = (int)v;
		s = *end ? end + 1 : end;
	}
	bool caches_fixed = fixed[0] || fixed[1] || fixed[2];
	char cap[96] = "";
	if (l3_said && !fixed[2])
		snprintf(cap, sizeof(cap), ", L3 capped at %lld MiB a CPU (sysfs: %lld MiB)",
			(long long)(L3_PER_CPU_MAX >> 20), (long long)(l3_said >> 20));
	snprintf(m->source, sizeof(m->source), "caches: %s%s%s; threads: %s; vectors: %s",
		caches_fixed ? "PT_MACHINE" : caches, caches_fixed && !(fixed[0] && fixed[1] && fixed[2]) ? " and the machine" : "",
		cap, fixed[3] ? "PT_MACHINE" : threads_how, fixed[4] ? "PT_MACHINE" : vec_how);
	return 0;
}
