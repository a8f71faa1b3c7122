/* test_harden_cli.c: the `polytile` command given bad targets, params at
 * the edges and output paths that could be attacked (issue 12): each
 * test reproduces a defect and asserts a clean exit 1 or 2 with a
 * message that names the argument, or the right file contents. */
#define _GNU_SOURCE   /* makedev, mknod */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run_suite.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

#include "cli_run.h"

static void make_dir(void)
{
	make_dir_named("pt_harden");
}

/* polytile with args, run in dir. */
static int run(const char *args)
{
	return run_polytile(args, true);
}

/* Asserts polytile args exits with status and says want on stderr. */
#define EXPECT(status, want, ...) do { \
	static char a_[16384]; \
	snprintf(a_, sizeof(a_), __VA_ARGS__); \
	int s_ = run(a_); \
	ck_assert_msg(s_ == (status), "polytile %.500s: status %d, stderr: %.1000s", a_, s_, slurp("err")); \
	ck_assert_msg(strstr(slurp("err"), (want)) != NULL, "polytile %.500s: no '%s' in: %.1000s", a_, (want), slurp("err")); \
} while (0)

/* Targets LLVM aborts on or miscompiles for are refused up front, by
 * both commands, with LLVM's reason and no "LLVM ERROR". */
START_TEST(bad_targets_are_refused)
{
#if defined(__x86_64__)
	make_dir();
	const char *cpus[] = { "i386", "pentium4", "nonsensecpu" };
	for (int i = 0; i < 3; i++) {
		EXPECT(1, "LLVM refuses it", "run %s/blur.pipe --param R=8 --param C=8 --target x86_64-pc-linux-gnu:%s", APPS_DIR, cpus[i]);
		ck_assert_ptr_null(strstr(slurp("err"), "LLVM ERROR"));
		EXPECT(1, "LLVM refuses it", "compile %s/blur.pipe -o b --target x86_64-pc-linux-gnu:%s", APPS_DIR, cpus[i]);
	}
	EXPECT(1, "--target x86_64-pc-windows-msvc: code for the windows system cannot run here",
		"run %s/blur.pipe --param R=8 --param C=8 --target x86_64-pc-windows-msvc", APPS_DIR);
	EXPECT(1, "--target x86_64-pc-linux-gnu:x86-64:-sse", "run %s/blur.pipe --param R=8 --param C=8 --target x86_64-pc-linux-gnu:x86-64:-sse", APPS_DIR);
	EXPECT(1, "not a recognized feature", "compile %s/blur.pipe -o b --target x86_64-pc-linux-gnu:x86-64:+nonsense", APPS_DIR);
	/* what runs here still runs; another OS is fine for an object */
	EXPECT(0, "", "run %s/blur.pipe --param R=8 --param C=8 --target x86_64-pc-linux-gnu:x86-64 --out out=o.npy", APPS_DIR);
	EXPECT(0, "", "compile %s/blur.pipe -o w --target x86_64-pc-windows-msvc", APPS_DIR);
	remove_dir();
#endif
}
END_TEST

/* Params at the edges: a float param's NaN, inf or 1e30 runs (it was
 * converted to an integer, undefined behaviour that UBSan's
 * float-cast-overflow reports), a long param is printed exactly. */
START_TEST(params_at_the_edges)
{
	make_dir();
	const char *bad[] = { "nan", "inf", "-inf", "1e30" };
	for (int i = 0; i < 4; i++) {
		EXPECT(0, "", "run %s/unsharp_mask.pipe --param R=8 --param C=8 --param weight=%s --out mask=m.npy", APPS_DIR, bad[i]);
		EXPECT(0, "", "explain %s/unsharp_mask.pipe --param weight=%s", APPS_DIR, bad[i]);
	}
	write_file("long.pipe",
		"pipeline lp\n"
		"param N : long = 4\n"
		"func o(x : 0 .. 1) : long = N + x\n"
		"output o\n");
	EXPECT(0, "", "run long.pipe --param N=3000000001 --out o=o.npy");
	ck_assert_msg(strstr(slurp("out"), "params: N=3000000001\n") != NULL, "%s", slurp("out"));
	EXPECT(1, "param 'N' is i64 and cannot be", "run long.pipe --param N=1e19");
	EXPECT(1, "param 'R' is i32 and cannot be 3000000001", "run %s/blur.pipe --param R=3000000001", APPS_DIR);
	remove_dir();
}
END_TEST

/* Runs a shell command line in dir; its exit status. */
static int sh(const char *line)
{
	char cmd[8192];
	snprintf(cmd, sizeof(cmd), "cd '%s' && %s >'%s/out' 2>'%s/err' </dev/null", dir, line, dir, dir);
	int st = system(cmd);
	ck_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* The temporary file of an output had the predictable name OUT.tmp-PID
 * and was opened by following a planted symlink: symlinks planted for
 * the next PIDs must not be written through. */
START_TEST(outputs_do_not_follow_planted_symlinks)
{
	make_dir();
	write_file("victim", "precious\n");
	const char *outs[] = { "g.dot", "b" };
	const char *cmds[] = { "graph %s/blur.pipe -o g.dot", "compile %s/blur.pipe --emit=llvm -o b" };
	for (int k = 0; k < 2; k++) {
		long last = 0;
		FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "r");
		if (f) {
			ck_assert_int_eq(fscanf(f, "%ld", &last), 1);
			fclose(f);
		}
		char link[700], victim[600];
		snprintf(victim, sizeof(victim), "%s/victim", dir);
		for (long pid = last + 1; last && pid < last + 64; pid++) {
			snprintf(link, sizeof(link), "%s/%s%s.tmp-%ld", dir, outs[k], k ? ".ll" : "", pid);
			ck_assert_int_eq(symlink(victim, link), 0);
		}
		char args[600];
		snprintf(args, sizeof(args), cmds[k], APPS_DIR);
		ck_assert_msg(run(args) == 0, "%s", slurp("err"));
		ck_assert_str_eq(slurp("victim"), "precious\n");
	}
	remove_dir();
}
END_TEST

/* New outputs get 0666 less the umask (they were always 0644); a
 * replaced file keeps its mode. */
START_TEST(outputs_honour_the_umask)
{
	make_dir();
	char line[1024], path[700];
	struct stat st;
	const char *files[] = { "o.npy", "o.png", "g.dot", "b.ll", "c.o", "c.h" };
	const char *cmds[] = {
		"run %s/blur.pipe --param R=8 --param C=8 --out out=o.npy --out out=o.png",
		"graph %s/blur.pipe -o g.dot",
		"compile %s/blur.pipe --emit=llvm -o b",
		"compile %s/blur.pipe -o c",
	};
	for (int i = 0; i < 4; i++) {
		char args[600];
		snprintf(args, sizeof(args), cmds[i], APPS_DIR);
		snprintf(line, sizeof(line), "umask 027 && '%s' %s", POLYTILE, args);
		ck_assert_msg(sh(line) == 0, "%s", slurp("err"));
	}
	for (int i = 0; i < 6; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		ck_assert_int_eq(stat(path, &st), 0);
		ck_assert_msg((st.st_mode & 0777) == 0640, "%s has mode %o", files[i], (unsigned)(st.st_mode & 0777));
	}
	snprintf(path, sizeof(path), "%s/g.dot", dir);
	ck_assert_int_eq(chmod(path, 0600), 0);
	snprintf(line, sizeof(line), "'%s' graph %s/blur.pipe -o g.dot", POLYTILE, APPS_DIR);
	ck_assert_int_eq(sh(line), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	remove_dir();
}
END_TEST

/* A valid 250-character file name can be written (the temporary name
 * added 11 characters, past NAME_MAX). */
START_TEST(long_file_names_can_be_written)
{
	make_dir();
	char name[256];
	memset(name, 'n', 246);
	strcpy(name + 246, ".npy");
	EXPECT(0, "", "run %s/blur.pipe --param R=8 --param C=8 --out out=%s", APPS_DIR, name);
	memcpy(name + 246, ".dot", 4);
	EXPECT(0, "", "graph %s/blur.pipe -o %s", APPS_DIR, name);
	remove_dir();
}
END_TEST

/* compile -o NAME: C keywords and reserved names would give a header
 * that does not compile; names of the C library, POSIX and OpenMP would
 * replace those functions in the application (`-o malloc` crashed it),
 * standard headers' names would shadow them (`-o assert` wrote
 * assert.h) (issue 36).  Refused as a usage error naming -o, before
 * anything is written; --emit=llvm names the function alike. */
START_TEST(compile_refuses_reserved_names)
{
	make_dir();
	const char *names[] = { "int", "while", "_Bool", "__x", "int32_t", "pt_buffer", "bool", "malloc", "free",
		"memcpy", "printf", "exit", "errno", "assert", "signal", "stdin", "NULL", "EOF", "omp_get_num_threads",
		"omp_anything", "pthread_blur", "stdio", "unistd", "sqrtf", "open", "ENOMEM", "SIGINT", "_Exit",
		"polytile", "atomic_blur" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char want[200];
		snprintf(want, sizeof(want), "-o out/%s: the function would be named '%s', which is", names[i], names[i]);
		EXPECT(2, want, "compile %s/blur.pipe -o out/%s", APPS_DIR, names[i]);
		EXPECT(2, "which is", "compile %s/blur.pipe --emit=llvm -o %s", APPS_DIR, names[i]);
	}
	EXPECT(2, "'int', which is a C keyword", "compile %s/blur.pipe -o int", APPS_DIR);
	EXPECT(2, "'malloc', which is a name of the C standard library", "compile %s/blur.pipe -o malloc", APPS_DIR);
	EXPECT(2, "'assert', which is a name of the C standard library", "compile %s/blur.pipe -o assert", APPS_DIR);
	EXPECT(2, "'stdio', which is the name of a standard header", "compile %s/blur.pipe -o stdio", APPS_DIR);
	EXPECT(2, "which is in a namespace the C library, POSIX or OpenMP reserves", "compile %s/blur.pipe -o omp_x", APPS_DIR);
	/* nothing was written */
	char cmd[700];
	snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s' | grep -v -x -e out -e err)\"", dir);
	ck_assert_int_eq(system(cmd), 0);
	/* names that merely contain one are fine */
	EXPECT(0, "", "compile %s/blur.pipe -o int_blur", APPS_DIR);
	EXPECT(0, "", "compile %s/blur.pipe -o my_malloc_blur", APPS_DIR);
	EXPECT(0, "", "compile %s/blur.pipe -o blur_exit", APPS_DIR);
	remove_dir();
}
END_TEST

/* Messages: an error about a 4,100-character path keeps its reason;
 * params that empty a stage name it, the params and the input. */
START_TEST(messages_name_what_is_wrong)
{
	make_dir();
	static char longp[4200];
	memset(longp, 'd', 4100);
	strcpy(longp + 4100, "/o.npy");
	EXPECT(1, "File name too long", "run %s/blur.pipe --param R=8 --param C=8 --out out=%s", APPS_DIR, longp);
	longp[4100] = 0;
	EXPECT(1, "File name too long", "compile %s/blur.pipe -o %s/b", APPS_DIR, longp);
	EXPECT(1, "stage 'bx' has no point in dimension 2 with params R=8 C=0",
		"run %s/blur.pipe --param R=8 --param C=0", APPS_DIR);
	remove_dir();
}
END_TEST

/* Runs args (polytile's) in dir under a file size limit of bytes (set
 * here, not with the shell's ulimit, whose unit varies); the exit
 * status, failing the test if polytile was killed (SIGXFSZ was). */
static int run_limited(const char *args, long bytes)
{
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), "cd '%s' && exec '%s' %s >'%s/out' 2>'%s/err' </dev/null", dir, POLYTILE, args, dir, dir);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct rlimit r = { (rlim_t)bytes, (rlim_t)bytes };
		if (setrlimit(RLIMIT_FSIZE, &r))
			_exit(126);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st), "polytile %s: killed by signal %d", args, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	return WEXITSTATUS(st);
}

/* Whether dir holds a temporary file of a writer (.pt-*). */
static bool temporaries_left(void)
{
	char cmd[700];
	snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -q '^\\.pt-'", dir);
	return system(cmd) == 0;
}

/* Past `ulimit -f` (issue 36): SIGXFSZ killed polytile and left its
 * temporary file.  Now each writer reports EFBIG naming the file, exits
 * 1, removes the temporary, and the file it was to replace is intact. */
START_TEST(outputs_past_the_file_size_limit)
{
	make_dir();
	const char *files[] = { "b.npy", "b.png", "g.dot", "c.o" };
	const char *cmds[] = {
		"run %s/blur.pipe --param R=200 --param C=200 --out out=b.npy --no-cache",
		"run %s/blur.pipe --param R=200 --param C=200 --out out=b.png --no-cache",
		"graph %s/harris.pipe -o g.dot",
		"compile %s/harris.pipe -o c",
	};
	for (int i = 0; i < 4; i++) {
		write_file(files[i], "old\n");
		char args[600], want[100];
		snprintf(args, sizeof(args), cmds[i], APPS_DIR);
		int st = run_limited(args, 512);
		snprintf(want, sizeof(want), "%s: write failed: File too large", files[i]);
		ck_assert_msg(st == 1 && strstr(slurp("err"), want), "%s: status %d: %s", args, st, slurp("err"));
		ck_assert_str_eq(slurp(files[i]), "old\n");
		ck_assert_msg(!temporaries_left(), "%s: a temporary file is left", args);
	}
	remove_dir();
}
END_TEST

/* Issue 36, defect 6: --overlap 0 and `overlap = 0` mean no redundant
 * work at all (blur's two stages, which overlap, stay apart), not the
 * default 0.2; --tile's message gives the upper limit. */
START_TEST(overlap_zero_means_zero)
{
	make_dir();
	write_file("zero.cfg", "overlap = 0\n");
	const char *how[] = { "--overlap 0", "--config zero.cfg" };
	for (int i = 0; i < 2; i++) {
		EXPECT(0, "", "explain %s/blur.pipe %s", APPS_DIR, how[i]);
		ck_assert_msg(strstr(slurp("out"), "overlap threshold 0\n"), "%s", slurp("out"));
		ck_assert_msg(strstr(slurp("out"), "over the threshold 0.000"), "%s", slurp("out"));
	}
	EXPECT(0, "", "explain %s/blur.pipe", APPS_DIR);
	ck_assert_ptr_nonnull(strstr(slurp("out"), "overlap threshold 0.2\n"));
	ck_assert_ptr_nonnull(strstr(slurp("out"), "group 0: bx out*"));
	EXPECT(0, "", "run %s/blur.pipe --param R=40 --param C=300 --overlap 0 --out out=z.npy --no-cache", APPS_DIR);
	EXPECT(2, "--tile 2000000x8: give sizes like 32x256 (at most 8, each 1 to 1048576)",
		"run %s/blur.pipe --tile 2000000x8", APPS_DIR);
	remove_dir();
}
END_TEST

static bool is_link_to(const char *name, const char *target)
{
	char path[700], got[700];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ssize_t n = readlink(path, got, sizeof(got) - 1);
	if (n < 0)
		return false;
	got[n] = 0;
	return !strcmp(got, target);
}

/* Output paths that are not plain files (issue 36): a symlink to
 * /dev/full was replaced by a mode-0666 regular file.  A symlink is
 * written through (its target replaced, keeping its mode; the link
 * stays), a device is written in place (ENOSPC from /dev/full, said),
 * a link to nothing, a FIFO no one reads and a directory are refused. */
START_TEST(outputs_through_links_and_devices)
{
	make_dir();
	const char *blur = "run %s/blur.pipe --param R=8 --param C=8 --no-cache --out out=%s";
	char path[700];
	snprintf(path, sizeof(path), "%s/full.npy", dir);
	ck_assert_int_eq(symlink("/dev/full", path), 0);
	EXPECT(1, "full.npy: write failed: No space left on device", blur, APPS_DIR, "full.npy");
	ck_assert(is_link_to("full.npy", "/dev/full"));
	snprintf(path, sizeof(path), "%s/full.dot", dir);
	ck_assert_int_eq(symlink("/dev/full", path), 0);
	EXPECT(1, "full.dot: write failed: No space left on device", "graph %s/blur.pipe -o full.dot", APPS_DIR);
	ck_assert(is_link_to("full.dot", "/dev/full"));
	/* a device node itself (a copy of /dev/full's, where root can make
	 * one: a regression then replaces the copy, never /dev/full) */
	snprintf(path, sizeof(path), "%s/dev.npy", dir);
	if (!mknod(path, S_IFCHR | 0666, makedev(1, 7))) {
		EXPECT(1, "dev.npy: write failed: No space left on device", blur, APPS_DIR, "dev.npy");
		struct stat st;
		ck_assert(!lstat(path, &st) && S_ISCHR(st.st_mode));
	}
	/* a link to a file of mode 0640: the file is replaced, keeps 0640 */
	write_file("t.npy", "old\n");
	snprintf(path, sizeof(path), "%s/t.npy", dir);
	ck_assert_int_eq(chmod(path, 0640), 0);
	snprintf(path, sizeof(path), "%s/l.npy", dir);
	ck_assert_int_eq(symlink("t.npy", path), 0);
	EXPECT(0, "", blur, APPS_DIR, "l.npy");
	ck_assert(is_link_to("l.npy", "t.npy"));
	struct stat st;
	snprintf(path, sizeof(path), "%s/t.npy", dir);
	ck_assert(!stat(path, &st) && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0640 && st.st_size > 100);
	/* refused: a link to nothing, a FIFO no one reads, a directory */
	snprintf(path, sizeof(path), "%s/dangling.npy", dir);
	ck_assert_int_eq(symlink("nowhere/x.npy", path), 0);
	EXPECT(1, "dangling.npy: a symbolic link to a file that cannot be reached", blur, APPS_DIR, "dangling.npy");
	ck_assert(is_link_to("dangling.npy", "nowhere/x.npy"));
	snprintf(path, sizeof(path), "%s/fifo.npy", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	EXPECT(1, "fifo.npy: cannot open to write: a FIFO that no process reads", blur, APPS_DIR, "fifo.npy");
	snprintf(path, sizeof(path), "%s/d.npy", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	EXPECT(1, "d.npy: is a directory", blur, APPS_DIR, "d.npy");
	ck_assert(!temporaries_left());
	remove_dir();
}
END_TEST

/* Whether text is printable: no control byte but newline, no DEL, only
 * UTF-8 (what a config error may print). */
static bool printable(const char *text)
{
	for (const unsigned char *u = (const unsigned char *)text; *u; u++) {
		if ((*u < 0x20 && *u != '\n') || *u == 0x7f || *u >= 0xf5 || *u == 0xc0 || *u == 0xc1)
			return false;
	}
	return true;
}

static void write_bytes(const char *name, const char *data, size_t n)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, n, f), n);
	fclose(f);
}

static const struct { const char *text; size_t n; const char *want; } hostile[] = {
	{ "tile = 8\0x\n", 11, "h.cfg:1: not a configuration (a NUL byte" },
	{ "# ok\n\x1b[2J\x07tile = 8\n", 0, "h.cfg:2: unknown key '\\x1b[2J\\x07tile'" },
	{ "tile = 8\ntile = 16\n", 0, "h.cfg:2: tile given twice" },
	{ "tile[out] = 8\ntile[out] = 16\n", 0, "h.cfg:2: tile[out] given twice" },
	{ "overlap[out] = 0.1\n overlap[out]=0.2\n", 0, "h.cfg:2: overlap[out] given twice" },
	{ "tiles = 8\n", 0, "h.cfg:1: unknown key 'tiles'" },
	{ "bogus[x] = 1\n", 0, "h.cfg:1: unknown key 'bogus[x]'" },
	{ "tile = 99999999999999999999999\n", 0, "h.cfg:1: tile = 99999999999999999999999: give sizes" },
	{ "overlap = 1e400\n", 0, "h.cfg:1: overlap = 1e400: give a fraction" },
	{ "overlap = nan\n", 0, "h.cfg:1: overlap = nan: give a fraction" },
	{ "tile[9999999999] = 8\n", 0, "h.cfg:1: tile[9999999999]: give a group" },
	{ "tile[[[out]]] = 8\n", 0, "h.cfg:1: tile[[[out]]]: give a group" },
	{ "tile[out]] = 8\n", 0, "h.cfg:1: tile[out]]: give a group" },
	{ "tile]out[ = 8\n", 0, "h.cfg:1: unknown key 'tile]out['" },
	{ "tile = [[8x8]]\n", 0, "h.cfg:1: tile = [[8x8]]: give sizes" },
	{ "{\"tile\": [8, {\"x\": [[]]}]}\n", 0, "h.cfg:1: expected `key = value`" },
	{ "tile = \xff\xfe\xc3\xa9\n", 0, "h.cfg:1: tile = \\xff\\xfe\xc3\xa9: give sizes" },
	{ "tile = \xc2\x9b" "31m\n", 0, "h.cfg:1: tile = \\xc2\\x9b31m" },
	{ "= =\n", 0, "h.cfg:1: unknown key ''" },
	{ "tile =\n", 0, "h.cfg:1: tile has no value" },
};

/* Hostile configurations: each refused with exit 2 and its file:line,
 * printable text only, in bounded time (issue 36). */
START_TEST(hostile_configs_are_refused_cleanly)
{
	make_dir();
	size_t n = hostile[_i].n ? hostile[_i].n : strlen(hostile[_i].text);
	write_bytes("h.cfg", hostile[_i].text, n);
	time_t t0 = time(NULL);
	EXPECT(2, hostile[_i].want, "run %s/blur.pipe --config h.cfg", APPS_DIR);
	ck_assert_msg(printable(slurp("err")), "raw bytes in: %s", slurp("err"));
	ck_assert_int_lt(time(NULL) - t0, 10);
	remove_dir();
}
END_TEST

/* Huge configurations: over 1 MB, one line of 900 KB, 5,000 per-group
 * entries: each refused at a line, quickly, with a short message. */
START_TEST(huge_configs_are_refused_cleanly)
{
	make_dir();
	static char big[2200000];
	memcpy(big, "tile = ", 7);
	memset(big + 7, '9', sizeof(big) - 8);
	write_bytes("h.cfg", big, sizeof(big) - 1);
	time_t t0 = time(NULL);
	EXPECT(2, "h.cfg:1: not a configuration (over 1 MB)", "run %s/blur.pipe --config h.cfg", APPS_DIR);
	memcpy(big, "tile = 8x", 9);
	memset(big + 9, '\x1b', 900000);
	write_bytes("h.cfg", big, 900009);
	EXPECT(2, "h.cfg:1: tile = 8x\\x1b\\x1b", "run %s/blur.pipe --config h.cfg", APPS_DIR);
	ck_assert_int_lt(strlen(slurp("err")), 4000);
	size_t k = 0;
	for (int i = 0; i < 5000; i++)
		k += (size_t)sprintf(big + k, "tile[s%d] = 8\n", i);
	write_bytes("h.cfg", big, k);
	EXPECT(2, "h.cfg:4097: too many per-group entries", "run %s/blur.pipe --config h.cfg", APPS_DIR);
	ck_assert_int_lt(time(NULL) - t0, 20);
	remove_dir();
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("harden_cli");
	TCase *tc = tcase_create("cli");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, bad_targets_are_refused);
	tcase_add_test(tc, params_at_the_edges);
	tcase_add_test(tc, outputs_do_not_follow_planted_symlinks);
	tcase_add_test(tc, outputs_honour_the_umask);
	tcase_add_test(tc, long_file_names_can_be_written);
	tcase_add_test(tc, compile_refuses_reserved_names);
	tcase_add_test(tc, messages_name_what_is_wrong);
	tcase_add_test(tc, outputs_past_the_file_size_limit);
	tcase_add_test(tc, outputs_through_links_and_devices);
	tcase_add_test(tc, overlap_zero_means_zero);
	tcase_add_loop_test(tc, hostile_configs_are_refused_cleanly, 0, (int)(sizeof(hostile) / sizeof(hostile[0])));
	tcase_add_test(tc, huge_configs_are_refused_cleanly);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pt_test_run_suite(suite());
}
