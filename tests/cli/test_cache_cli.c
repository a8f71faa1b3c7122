/* test_cache_cli.c: `polytile run` and the compile cache end to end: a
 * second run hits and skips LLVM, a truncated or altered entry is
 * rebuilt, --no-cache writes nothing, processes started together all
 * succeed and leave one valid entry, other options get other entries,
 * and a directory that cannot be made only turns the cache off.  And
 * the cache under attack (issue 36): planted entries with well-formed
 * headers never run, a directory others can write or another user's is
 * refused, symlinks, FIFOs and directories at an entry's name neither
 * are followed nor block, `ulimit -f` leaves no temporary file. */
#define _GNU_SOURCE   /* setresuid */
#include <check.h>
#include <dirent.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hmac.h"
#include "sha256.h"

#include "run_suite.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

#include "cli_run.h"

static char cache[600];

/* A test directory and an empty cache inside it, named by PT_CACHE_DIR
 * for the runs (they inherit this process's environment). */
static void setup(void)
{
	make_dir_named("pt_cache_cli");
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	setenv("PT_CACHE_DIR", cache, 1);
}

static void teardown(void)
{
	unsetenv("PT_CACHE_DIR");
	remove_dir();
}

/* harris at a small size, its output to dir/NAME.npy; the exit status. */
static int run_harris(const char *name, const char *extra)
{
	char args[2048];
	snprintf(args, sizeof(args), "run %s/harris.pipe --param R=40 --param C=24 --out harris=%s/%s.npy --time %s",
		APPS_DIR, dir, name, extra);
	return run_polytile(args, false);
}

static void ok_harris(const char *name, const char *extra)
{
	ck_assert_msg(run_harris(name, extra) == 0, "%s", slurp("err"));
}

static bool same_files(const char *a, const char *b)
{
	char cmd[1400];
	snprintf(cmd, sizeof(cmd), "cmp -s '%s/%s' '%s/%s'", dir, a, dir, b);
	return system(cmd) == 0;
}

/* The entries in the cache (files NAME.obj); the other files too when
 * others is given. */
static int entries(char *first, size_t n, int *others)
{
	DIR *d = opendir(cache);
	int count = 0;
	if (others)
		*others = 0;
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (e->d_name[0] == '.' && (len == 1 || (len == 2 && e->d_name[1] == '.')))
			continue;
		if (!strcmp(e->d_name, "hmac-key"))
			continue;
		if (len > 4 && !strcmp(e->d_name + len - 4, ".obj")) {
			if (first && !count)
				snprintf(first, n, "%s/%s", cache, e->d_name);
			count++;
		} else if (others) {
			(*others)++;
		}
	}
	closedir(d);
	return count;
}

static bool said(const char *what)
{
	return strstr(slurp("err"), what) != NULL;
}

START_TEST(second_run_hits)
{
	ok_harris("a", "");
	ck_assert_msg(said("cache miss") && said("optimize") && said("cache store"), "%s", slurp("err"));
	int others;
	ck_assert_int_eq(entries(NULL, 0, &others), 1);
	ck_assert_int_eq(others, 0);
	ok_harris("b", "");
	/* no pass after checking ran: LLVM was skipped */
	ck_assert_msg(said("cache hit") && !said("optimize") && !said("llvm-ir") && !said("inline"), "%s", slurp("err"));
	ck_assert(same_files("a.npy", "b.npy"));
	/* and the result is the one compiled without the cache */
	ok_harris("c", "--no-cache");
	ck_assert(same_files("a.npy", "c.npy"));
}
END_TEST

/* Each damage is detected, the run still succeeds with the same output,
 * and the entry is rewritten (the next run hits). */
START_TEST(corrupt_entry_rebuilt)
{
	ok_harris("a", "");
	char path[1200];
	ck_assert_int_eq(entries(path, sizeof(path), NULL), 1);
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	for (int k = 0; k < 4; k++) {
		if (k == 0) {   /* truncated in the object */
			ck_assert_int_eq(truncate(path, st.st_size / 2), 0);
		} else if (k == 1) {   /* truncated in the header */
			ck_assert_int_eq(truncate(path, 10), 0);
		} else {   /* a byte flipped in the object, then in the header */
			FILE *f = fopen(path, "r+b");
			long off = k == 2 ? st.st_size - 100 : 50;
			fseek(f, off, SEEK_SET);
			int c = fgetc(f);
			fseek(f, off, SEEK_SET);
			fputc(c ^ 1, f);
			fclose(f);
		}
		ok_harris("b", "");
		ck_assert_msg(said("cache bad") && said("cache store"), "damage %d: %s", k, slurp("err"));
		ck_assert(same_files("a.npy", "b.npy"));
		ok_harris("b", "");
		ck_assert_msg(said("cache hit"), "damage %d: not rebuilt: %s", k, slurp("err"));
		ck_assert(same_files("a.npy", "b.npy"));
	}
}
END_TEST

START_TEST(no_cache_writes_nothing)
{
	ok_harris("a", "--no-cache");
	ck_assert_msg(!said("cache"), "%s", slurp("err"));
	int others;
	ck_assert_int_eq(entries(NULL, 0, &others), 0);
	ck_assert_int_eq(others, 0);
	/* dumps need the passes: a dumping run neither reads nor writes it */
	ok_harris("b", "--dump=optimize");
	ck_assert_int_eq(entries(NULL, 0, NULL), 0);
	ck_assert(same_files("a.npy", "b.npy"));
}
END_TEST

/* Four runs started together on an empty cache. */
START_TEST(concurrent_runs)
{
	char cmd[8000];
	snprintf(cmd, sizeof(cmd),
		"cd '%s' && for i in 1 2 3 4; do ( '%s' run %s/harris.pipe --param R=40 --param C=24 "
		"--out harris=o$i.npy >out$i 2>err$i; echo $? >rc$i ) & done; wait", dir, POLYTILE, APPS_DIR);
	ck_assert_int_eq(system(cmd), 0);
	for (int i = 1; i <= 4; i++) {
		char name[32];
		snprintf(name, sizeof(name), "rc%d", i);
		ck_assert_msg(atoi(slurp(name)) == 0, "run %d failed: %s", i, (snprintf(name, sizeof(name), "err%d", i), slurp(name)));
		snprintf(name, sizeof(name), "o%d.npy", i);
		ck_assert(same_files("o1.npy", name));
	}
	int others;
	ck_assert_int_eq(entries(NULL, 0, &others), 1);
	ck_assert_int_eq(others, 0);   /* no temporary file left */
	ok_harris("a", "");
	ck_assert_msg(said("cache hit"), "%s", slurp("err"));
	ck_assert(same_files("o1.npy", "a.npy"));
}
END_TEST

START_TEST(options_get_their_own_entries)
{
	ok_harris("a", "");
	ok_harris("b", "-O0");
	ck_assert_msg(said("cache miss"), "%s", slurp("err"));
	ok_harris("c", "--tile 16x64");
	ck_assert_msg(said("cache miss"), "%s", slurp("err"));
	ck_assert_int_eq(entries(NULL, 0, NULL), 3);
	/* threads change no code */
	ok_harris("d", "--threads 1");
	ck_assert_msg(said("cache hit"), "%s", slurp("err"));
	ck_assert_int_eq(entries(NULL, 0, NULL), 3);
	ck_assert(same_files("a.npy", "b.npy") && same_files("a.npy", "c.npy") && same_files("a.npy", "d.npy"));
}
END_TEST

START_TEST(no_directory_no_cache)
{
	write_file("file", "not a directory\n");
	snprintf(cache, sizeof(cache), "%s/file/cache", dir);
	setenv("PT_CACHE_DIR", cache, 1);
	ok_harris("a", "");
	ck_assert_msg(said("no cache directory") && !said("cache hit"), "%s", slurp("err"));
}
END_TEST

#ifndef PLANTED_OBJ
#define PLANTED_OBJ "planted_payload.o"
#endif

/* The bytes of file path (*n of them; caller frees). */
static uint8_t *read_all_of(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "%s", path);
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc((size_t)len + 1);
	ck_assert_uint_eq(fread(b, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	*n = (size_t)len;
	return b;
}

/* How an attacker writes an entry for key (hex) whose payload is the
 * planted object: the layout is public, only the MAC needs a secret.
 * 0: format 1, the payload's SHA-256 (the old scheme, which polytile
 * linked); 1: format 2, a SHA-256 of the fields and payload where the
 * MAC goes; 2: format 2, an HMAC under a key the attacker made up;
 * 3: format 2, an HMAC under secret (what only the user can do). */
/* Whether every directory above path lets other users through and path
 * is executable by them (a private temporary clone is not). */
static bool others_can_run(const char *path)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s", path);
	struct stat st;
	if (stat(p, &st) || !(st.st_mode & S_IXOTH))
		return false;
	for (char *slash = strrchr(p, '/'); slash && slash != p; slash = strrchr(p, '/')) {
		*slash = 0;
		if (stat(p, &st) || !(st.st_mode & S_IXOTH))
			return false;
	}
	return true;
}

/* The payload, read once: a child that plants as another user may not
 * be able to read the build directory (a private temporary clone). */
static uint8_t *payload;
static size_t payload_len;

static const uint8_t *payload_bytes(void)
{
	if (!payload)
		payload = read_all_of(PLANTED_OBJ, &payload_len);
	return payload;
}

static void plant(const char *path, const char *key, int how, const uint8_t *secret)
{
	const uint8_t *bytes = payload_bytes();   /* sets payload_len: before it is used */
	size_t n = payload_len;
	uint8_t *obj = malloc(n), h[88] = "PTCACHE\n";
	ck_assert_ptr_nonnull(bytes);
	ck_assert_ptr_nonnull(obj);
	memcpy(obj, bytes, n);
	h[8] = how ? 2 : 1;
	for (int i = 0; i < 32; i++) {
		unsigned v;
		ck_assert_int_eq(sscanf(key + 2 * i, "%2x", &v), 1);
		h[16 + i] = (uint8_t)v;
	}
	for (int i = 0; i < 8; i++)
		h[48 + i] = (uint8_t)((uint64_t)n >> 8 * i);
	if (how < 2) {
		pt_sha256 s;
		pt_sha256_init(&s);
		if (how == 1)
			pt_sha256_update(&s, h, 56);
		pt_sha256_update(&s, obj, n);
		pt_sha256_final(&s, h + 56);
	} else {
		uint8_t made_up[32] = { 1 };
		pt_hmac m;
		pt_hmac_init(&m, how == 3 ? secret : made_up, 32);
		pt_hmac_update(&m, h, 56);
		pt_hmac_update(&m, obj, n);
		pt_hmac_final(&m, h + 56);
	}
	unlink(path);
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(h, 1, 88, f), 88);
	ck_assert_uint_eq(fwrite(obj, 1, n, f), n);
	ck_assert_int_eq(fclose(f), 0);
	free(obj);
}

/* The key (hex) of the entry at path (its file name less .obj). */
static const char *key_of_entry(const char *path)
{
	static char key[65];
	snprintf(key, sizeof(key), "%s", strrchr(path, '/') + 1);
	return key;
}

static char marker[700];

static bool marker_exists(void)
{
	return access(marker, F_OK) == 0;
}

/* A well-formed entry planted without the user's key is never linked:
 * the run recompiles, gives the right output and replaces it.  With the
 * key (the user's own doing) it is linked: the control that shows the
 * planted object would be seen if it ran. */
START_TEST(planted_entries_never_run)
{
	snprintf(marker, sizeof(marker), "%s/marker", dir);
	setenv("PT_TEST_MARKER", marker, 1);
	ok_harris("ref", "--no-cache");
	ok_harris("a", "");
	char path[1200];
	ck_assert_int_eq(entries(path, sizeof(path), NULL), 1);
	const char *key = key_of_entry(path);
	for (int how = 0; how < 3; how++) {
		plant(path, key, how, NULL);
		ok_harris("b", "");
		ck_assert_msg(!marker_exists(), "planted entry %d ran", how);
		ck_assert_msg(said("cache bad") && said("cache store"), "planted entry %d: %s", how, slurp("err"));
		ck_assert(same_files("ref.npy", "b.npy"));
		ok_harris("b", "");
		ck_assert_msg(said("cache hit") && !marker_exists(), "planted entry %d: not replaced: %s", how, slurp("err"));
		ck_assert(same_files("ref.npy", "b.npy"));
	}
	char keyfile[1200];
	snprintf(keyfile, sizeof(keyfile), "%s/hmac-key", cache);
	size_t n;
	uint8_t *secret = read_all_of(keyfile, &n);
	ck_assert_uint_eq(n, 32);
	plant(path, key, 3, secret);
	ok_harris("b", "");
	ck_assert_msg(said("cache hit") && marker_exists(), "the control did not run: %s", slurp("err"));
	free(secret);
	unsetenv("PT_TEST_MARKER");
}
END_TEST

/* A cache directory that group or others can write (a shared 0777 one,
 * a 0770 one) or that another user owns is refused with a message: the
 * run compiles without it, writes nothing there, and gives the right
 * output. */
START_TEST(unsafe_directories_are_refused)
{
	snprintf(marker, sizeof(marker), "%s/marker", dir);
	setenv("PT_TEST_MARKER", marker, 1);
	ok_harris("ref", "");
	char path[1200];
	ck_assert_int_eq(entries(path, sizeof(path), NULL), 1);
	char key[65];
	snprintf(key, sizeof(key), "%s", key_of_entry(path));
	/* the same cache, opened up to others, an attacker's entry in it */
	const mode_t modes[] = { 0777, 01777, 0770, 0720 };
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(chmod(cache, modes[i]), 0);
		plant(path, key, 0, NULL);
		ok_harris("b", "");
		ck_assert_msg(said("can be written by group or others") && said("compiling without the cache") &&
			!said("cache hit") && !said("cache store"), "mode %o: %s", (unsigned)modes[i], slurp("err"));
		ck_assert_msg(!marker_exists(), "mode %o: the planted entry ran", (unsigned)modes[i]);
		ck_assert(same_files("ref.npy", "b.npy"));
	}
	ck_assert_int_eq(chmod(cache, 0700), 0);
	if (geteuid() == 0) {   /* another owner: root can make one */
		ck_assert_int_eq(chown(cache, 4242, 4242), 0);
		ok_harris("b", "");
		ck_assert_msg(said("is owned by uid 4242, not by you") && !said("cache hit"), "%s", slurp("err"));
		ck_assert(!marker_exists());
		ck_assert_int_eq(chown(cache, 0, 0), 0);
	}
	unsetenv("PT_TEST_MARKER");
}
END_TEST

/* A symlink at an entry's name is not followed, even to a valid entry
 * (it could be anywhere); a FIFO does not block the run (it blocked
 * every run forever); a directory is reported once and moved aside.
 * Each run succeeds with the right output and the entry is rebuilt. */
START_TEST(odd_files_at_an_entry)
{
	ok_harris("ref", "");
	char path[1200], elsewhere[1200];
	ck_assert_int_eq(entries(path, sizeof(path), NULL), 1);
	snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere.obj", dir);
	const char *kinds[] = { "symbolic link", "FIFO", "directory" };
	for (int k = 0; k < 3; k++) {
		if (k == 0) {
			ck_assert_int_eq(rename(path, elsewhere), 0);
			ck_assert_int_eq(symlink(elsewhere, path), 0);
		} else {
			ck_assert_int_eq(unlink(path), 0);
			ck_assert_int_eq(k == 1 ? mkfifo(path, 0600) : mkdir(path, 0700), 0);
			if (k == 2) {
				char inside[1300];
				snprintf(inside, sizeof(inside), "%s/x", path);
				FILE *f = fopen(inside, "w");
				fclose(f);
			}
		}
		/* under a timeout: a run that blocks fails instead of hanging */
		char args[2048];
		snprintf(args, sizeof(args), "run %s/harris.pipe --param R=40 --param C=24 --out harris=%s/b.npy --time",
			APPS_DIR, dir);
		char cmd[4000];
		snprintf(cmd, sizeof(cmd), "timeout 60 '%s' %s >'%s/out' 2>'%s/err' </dev/null", POLYTILE, args, dir, dir);
		int st = system(cmd);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d: %s", kinds[k], st, slurp("err"));
		ck_assert_msg(said(kinds[k]) && said("cache bad") && said("cache store"), "%s: %s", kinds[k], slurp("err"));
		ck_assert(same_files("ref.npy", "b.npy"));
		struct stat s;
		ck_assert_int_eq(lstat(path, &s), 0);
		ck_assert_msg(S_ISREG(s.st_mode), "%s: not replaced", kinds[k]);
		ok_harris("b", "");
		ck_assert_msg(said("cache hit") && !said("warning"), "%s: %s", kinds[k], slurp("err"));
	}
}
END_TEST

/* Past `ulimit -f` the cache's write fails (EFBIG, not SIGXFSZ) and
 * leaves no temporary file; the run still succeeds (its output goes to
 * /dev/null through a link, which the limit does not cover; an object
 * is past 2 KiB). */
START_TEST(file_size_limit_leaves_no_temporaries)
{
	char cmd[2400], null[700];
	snprintf(null, sizeof(null), "%s/null.npy", dir);
	ck_assert_int_eq(symlink("/dev/null", null), 0);
	snprintf(cmd, sizeof(cmd), "exec '%s' run %s/harris.pipe --param R=40 --param C=24 "
		"--out harris=%s --time >'%s/out' 2>'%s/err' </dev/null", POLYTILE, APPS_DIR, null, dir, dir);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct rlimit r = { 2048, 2048 };
		if (setrlimit(RLIMIT_FSIZE, &r))
			_exit(126);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d: %s", st, slurp("err"));
	ck_assert_msg(said("cache miss") && !said("cache store"), "%s", slurp("err"));
	int others;
	ck_assert_int_eq(entries(NULL, 0, &others), 0);
	ck_assert_int_eq(others, 0);
}
END_TEST

/* An unused uid at or after from. */
static uid_t unused_uid(uid_t from)
{
	while (getpwuid(from))
		from++;
	return from;
}

/* Runs line (sh -c) as uid, with PT_CACHE_DIR=cachedir and its output
 * in dir/err; its exit status. */
static int run_as(uid_t uid, const char *cachedir, const char *line)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char err[700];
		snprintf(err, sizeof(err), "%s/err", dir);
		FILE *f = freopen(err, "w", stderr);
		if (!f || setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
			_exit(126);
		setenv("PT_CACHE_DIR", cachedir, 1);
		execl("/bin/sh", "sh", "-c", line, (char *)NULL);
		_exit(127);
	}
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* Two real users: an attacker plants entries in the victim's directory
 * opened to all (mode 1777) and in a directory of its own; the victim running with either as its
 * cache is told, runs uncached, and the attacker's code never runs.
 * Needs root (to become two unused uids); skipped with a message
 * elsewhere. */
START_TEST(two_users_share_nothing)
{
	if (geteuid() != 0) {
		fprintf(stderr, "two_users_share_nothing: skipped: not root, so the test cannot run as two users\n");
		return;
	}
	if (!others_can_run(POLYTILE)) {
		fprintf(stderr, "two_users_share_nothing: skipped: %s is in a directory other users cannot enter\n", POLYTILE);
		return;
	}
	uid_t attacker = unused_uid(61000), victim = unused_uid(attacker + 1);
	ok_harris("ref", "");
	char path[1200], key[65];
	ck_assert_int_eq(entries(path, sizeof(path), NULL), 1);
	snprintf(key, sizeof(key), "%s", key_of_entry(path));
	char shared[600], evil[600], home[600], line[3000];
	snprintf(shared, sizeof(shared), "%s/shared", dir);
	snprintf(evil, sizeof(evil), "%s/evil", dir);
	snprintf(home, sizeof(home), "%s/victim", dir);
	snprintf(marker, sizeof(marker), "%s/marker", home);
	ck_assert_int_eq(chmod(dir, 0755), 0);
	/* the victim's, opened to all (say, to share it), and the attacker's */
	ck_assert(!mkdir(shared, 0700) && !chmod(shared, 01777) && !chown(shared, victim, victim));
	ck_assert(!mkdir(evil, 0755) && !chown(evil, attacker, attacker));
	ck_assert(!mkdir(home, 0700) && !chown(home, victim, victim));
	/* the attacker plants, as itself, where it can write */
	payload_bytes();
	const char *dirs[] = { shared, evil };
	for (int i = 0; i < 2; i++) {
		char at[1300];
		snprintf(at, sizeof(at), "%s/%s.obj", dirs[i], key);
		pid_t pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			if (setgroups(0, NULL) || setresgid(attacker, attacker, attacker) || setresuid(attacker, attacker, attacker))
				_exit(126);
			plant(at, key, i ? 2 : 0, NULL);
			_exit(0);
		}
		int st;
		ck_assert(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	const char *want[] = { "can be written by group or others", "not by you" };
	for (int i = 0; i < 3; i++) {
		snprintf(line, sizeof(line), "PT_TEST_MARKER='%s' '%s' run %s/harris.pipe --param R=40 --param C=24 "
			"--out harris=%s/b.npy --time", marker, POLYTILE, APPS_DIR, home);
		char cachedir[800];
		snprintf(cachedir, sizeof(cachedir), "%s/cache", home);
		int st = run_as(victim, i < 2 ? dirs[i] : cachedir, line);
		ck_assert_msg(st == 0, "victim's run %d: status %d: %s", i, st, slurp("err"));
		ck_assert_msg(!marker_exists(), "victim's run %d ran the attacker's code", i);
		ck_assert(same_files("ref.npy", "victim/b.npy"));
		if (i < 2)
			ck_assert_msg(said(want[i]) && !said("cache hit"), "run %d: %s", i, slurp("err"));
		else   /* the control: the victim's own cache works */
			ck_assert_msg(said("cache store"), "%s", slurp("err"));
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cache_cli");
	TCase *tc = tcase_create("run");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, second_run_hits);
	tcase_add_test(tc, corrupt_entry_rebuilt);
	tcase_add_test(tc, no_cache_writes_nothing);
	tcase_add_test(tc, concurrent_runs);
	tcase_add_test(tc, options_get_their_own_entries);
	tcase_add_test(tc, no_directory_no_cache);
	tcase_add_test(tc, planted_entries_never_run);
	tcase_add_test(tc, unsafe_directories_are_refused);
	tcase_add_test(tc, odd_files_at_an_entry);
	tcase_add_test(tc, file_size_limit_leaves_no_temporaries);
	tcase_add_test(tc, two_users_share_nothing);
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
