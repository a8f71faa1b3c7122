/* test_cache_cli.c: `polytile run` and the compile cache end to end: a
 * second run hits and skips LLVM, a truncated or altered entry is
 * rebuilt, --no-cache writes nothing, processes started together all
 * succeed and leave one valid entry, other options get other entries,
 * and a directory that cannot be made only turns the cache off. */
#define _XOPEN_SOURCE 700
#include <check.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
