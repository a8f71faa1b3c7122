/* target_spec.c: whether a --target TRIPLE[:CPU[:FEATURES]] can be used.
 * LLVM's C API cannot list a target's CPUs or features, and LLVM ends
 * the process (report_fatal_error) when a CPU cannot produce the
 * triple's code (x86_64 with i386), so a machine is first tried in a
 * child process that compiles a small function; what it prints or how it
 * ends decides.  For `run`, the code must also suit this machine. */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <llvm-c/ErrorHandling.h>
#include <llvm-c/Target.h>

#include "machine.h"

/* A function with float, integer and vector-friendly work. */
static LLVMModuleRef probe_module(LLVMContextRef c)
{
	LLVMModuleRef m = LLVMModuleCreateWithNameInContext("probe", c);
	LLVMTypeRef f64 = LLVMDoubleTypeInContext(c), i64 = LLVMInt64TypeInContext(c);
	LLVMTypeRef ps[] = { f64, i64 };
	LLVMValueRef f = LLVMAddFunction(m, "probe", LLVMFunctionType(f64, ps, 2, 0));
	LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
	LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, f, "entry"));
	LLVMValueRef i = LLVMBuildMul(b, LLVMGetParam(f, 1), LLVMGetParam(f, 1), "");
	LLVMValueRef x = LLVMBuildFAdd(b, LLVMGetParam(f, 0), LLVMBuildSIToFP(b, i, f64, ""), "");
	LLVMBuildRet(b, LLVMBuildFMul(b, x, x, ""));
	LLVMDisposeBuilder(b);
	return m;
}

static void child_fatal(const char *reason)
{
	fprintf(stderr, "%s\n", reason);
	_exit(3);
}

/* In the child: compiles the probe with tm; LLVM's complaints go to fd. */
static void probe_child(LLVMTargetMachineRef tm, int fd)
{
	dup2(fd, 2);
	LLVMInstallFatalErrorHandler(child_fatal);
	LLVMContextRef c = LLVMContextCreate();
	LLVMModuleRef m = probe_module(c);
	pt_machine_configure(m, tm, 0);
	char *err = NULL;
	LLVMMemoryBufferRef buf = pt_machine_emit_object(m, tm, &err);
	if (!buf) {
		fprintf(stderr, "%s\n", err);
		_exit(3);
	}
	_exit(0);
}

int pt_machine_probe(LLVMTargetMachineRef tm, char **err)
{
	int fds[2];
	if (pipe(fds))
		return 0;   /* cannot tell: let LLVM decide later */
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return 0;
	}
	if (pid == 0) {
		close(fds[0]);
		probe_child(tm, fds[1]);
	}
	close(fds[1]);
	char text[1024];
	size_t n = 0;
	ssize_t k;
	while ((k = read(fds[0], text + n, sizeof(text) - 1 - n)) > 0)
		n += (size_t)k;
	text[n] = 0;
	close(fds[0]);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0)
		;
	/* LLVM says "'x' is not a recognized processor/feature ... (ignoring
	 * ...)" and goes on with something else: refuse that too */
	bool bad = !WIFEXITED(st) || WEXITSTATUS(st) != 0 || strstr(text, "not a recognized");
	if (!bad)
		return 0;
	text[strcspn(text, "\n")] = 0;
	char *t = text;
	if (!strncmp(t, "LLVM ERROR: ", 12))
		t += 12;
	if (!*t) {
		snprintf(text, sizeof(text), "LLVM cannot generate code for it (%s %d)",
			WIFSIGNALED(st) ? "signal" : "status", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		t = text;
	}
	*err = malloc(strlen(t) + 40);
	sprintf(*err, "LLVM refuses it: %s", t);
	return -1;
}

/* Whether the host's feature list ("+sse2,-avx512f,...") enables f. */
static bool host_has(const char *host, const char *f, size_t n)
{
	for (const char *h = host; *h; ) {
		size_t len = strcspn(h, ",");
		if (len == n + 1 && h[0] == '+' && !strncmp(h + 1, f, n))
			return true;
		h += len + (h[len] == ',');
	}
	return false;
}

/* Whether every comma-separated feature of list is enabled here. */
static bool host_has_all(const char *host, const char *list)
{
	for (const char *f = list; *f; ) {
		size_t len = strcspn(f, ",");
		if (!host_has(host, f, len))
			return false;
		f += len + (f[len] == ',');
	}
	return true;
}

/* arch and OS of a triple (arch-vendor-os[-env]), normalized. */
static void arch_os(const char *triple, char *arch, char *os, size_t n)
{
	char *norm = LLVMNormalizeTargetTriple(triple);
	const char *a = norm, *v = a + strcspn(a, "-"), *o = *v ? v + 1 + strcspn(v + 1, "-") : v;
	snprintf(arch, n, "%.*s", (int)(v - a), a);
	if (*o)
		o++;
	snprintf(os, n, "%.*s", (int)strcspn(o, "-"), o);
	LLVMDisposeMessage(norm);
}

/* The x86-64 levels and what this machine needs for each. */
static const char *const levels[][2] = {
	{ "x86-64", "" },
	{ "x86-64-v2", "cx16,popcnt,sse3,sse4.1,sse4.2,ssse3" },
	{ "x86-64-v3", "cx16,popcnt,sse3,sse4.1,sse4.2,ssse3,avx,avx2,bmi,bmi2,f16c,fma,lzcnt,movbe" },
	{ "x86-64-v4", "cx16,popcnt,sse3,sse4.1,sse4.2,ssse3,avx,avx2,bmi,bmi2,f16c,fma,lzcnt,movbe,avx512f,avx512bw,avx512cd,avx512dq,avx512vl" },
};

/* Features that change the calling convention or float semantics. */
static const char *const abi_features[] = { "-sse", "-sse2", "-x87", "+soft-float", "-fxsr" };

static int why(char **out, const char *fmt, const char *a, const char *b)
{
	size_t n = strlen(fmt) + strlen(a) + strlen(b) + 1;
	*out = malloc(n);
	snprintf(*out, n, fmt, a, b);
	return -1;
}

int pt_machine_runs_here(const char *spec, char **err)
{
	char *copy = strdup(spec), *cpu = strchr(copy, ':'), *feat = NULL;
	if (cpu) {
		*cpu++ = 0;
		if ((feat = strchr(cpu, ':')))
			*feat++ = 0;
	}
	char *host = LLVMGetDefaultTargetTriple(), *hcpu = LLVMGetHostCPUName(), *hfeat = LLVMGetHostCPUFeatures();
	char ha[64], ho[64], ta[64], to[64];
	arch_os(host, ha, ho, sizeof(ha));
	arch_os(copy, ta, to, sizeof(ta));
	int r = 0;
	if (strcmp(ha, ta))
		r = why(err, "code for %s cannot run on this %s machine", ta, ha);
	else if (strcmp(ho, to))
		r = why(err, "code for the %s system cannot run here (%s)", to, ho);
	if (!r && cpu && *cpu && strcmp(cpu, "generic") && strcmp(cpu, hcpu)) {
		size_t k = 0;
		while (k < sizeof(levels) / sizeof(levels[0]) && strcmp(cpu, levels[k][0]))
			k++;
		if (k == sizeof(levels) / sizeof(levels[0]) || strcmp(ha, "x86_64"))
			r = why(err, "this machine's CPU is %s, and polytile cannot tell whether it has every feature of %s", hcpu, cpu);
		else if (!host_has_all(hfeat, levels[k][1]))
			r = why(err, "this machine lacks a feature of %s%s", cpu, "");
	}
	for (const char *f = feat ? feat : ""; !r && *f; ) {
		size_t len = strcspn(f, ",");
		char one[128];
		snprintf(one, sizeof(one), "%.*s", (int)len, f);
		for (size_t i = 0; i < sizeof(abi_features) / sizeof(abi_features[0]); i++)
			if (!strcmp(one, abi_features[i]))
				r = why(err, "%s changes how floats are passed and computed; the code would give wrong results%s", one, "");
		if (!r && one[0] == '+' && !host_has(hfeat, one + 1, strlen(one + 1)))
			r = why(err, "this machine lacks the feature %s%s", one + 1, "");
		else if (!r && one[0] != '+' && one[0] != '-')
			r = why(err, "feature '%s' must start with + or -%s", one, "");
		f += len + (f[len] == ',');
	}
	LLVMDisposeMessage(host);
	LLVMDisposeMessage(hcpu);
	LLVMDisposeMessage(hfeat);
	free(copy);
	return r;
}

LLVMTargetMachineRef pt_machine_create(const char *spec, char **err)
{
	LLVMTargetMachineRef tm = pt_machine_new(spec, err);
	if (tm && spec && pt_machine_probe(tm, err)) {
		LLVMDisposeTargetMachine(tm);
		tm = NULL;
	}
	return tm;
}
