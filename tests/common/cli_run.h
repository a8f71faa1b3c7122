/* cli_run.h: running the `polytile` command from a Check test, in a
 * temporary directory of its own: its stdout and stderr go to dir/out and
 * dir/err, which slurp() reads back.  Define POLYTILE (the binary) and
 * include after <check.h>. */
#ifndef PT_TEST_CLI_RUN_H
#define PT_TEST_CLI_RUN_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#ifndef POLYTILE
#define POLYTILE "polytile"
#endif

static char dir[512];

/* A new temporary directory dir named after prefix. */
static void make_dir_named(const char *prefix)
{
	const char *t = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/%s_XXXXXX", t && *t ? t : P_tmpdir, prefix);
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Runs polytile with args (a shell fragment; in dir when in_dir, so that
 * relative output names land there); the exit status (a test fails if
 * polytile was killed by a signal). */
static int run_polytile(const char *args, bool in_dir)
{
	static char cmd[20000];
	snprintf(cmd, sizeof(cmd), "%s%s%s'%s' %s >'%s/out' 2>'%s/err' </dev/null", in_dir ? "cd '" : "",
		in_dir ? dir : "", in_dir ? "' && " : "", POLYTILE, args, dir, dir);
	int st = system(cmd);
	ck_assert_msg(WIFEXITED(st), "polytile %s: killed by a signal", args);
	return WEXITSTATUS(st);
}

/* Writes text to dir/name (inline: not every test writes files). */
static inline void write_file(const char *name, const char *text)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* The contents of dir/name (a static buffer of 1 MB, overwritten by the
 * next call). */
static char *slurp(const char *name)
{
	static char buf[1 << 20];
	char path[600];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

#endif
