/* test_tune_cli.c: `polytile tune` end to end on a small blur: the best
 * configuration written, accepted by `run --config` and `compile
 * --config` with outputs equal to the default's, the sweep's CSV and
 * plot; bad --tiles, --overlap, --budget and --config arguments refused
 * with exit status 2 and a message naming them. */
#define _XOPEN_SOURCE 700
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "run_suite.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

#include "cli_run.h"

#define BLUR APPS_DIR "/blur.pipe --param R=200 --param C=300"

static bool exists(const char *name)
{
	char path[600];
	struct stat st;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !stat(path, &st) && st.st_size > 0;
}

/* Whether two files in dir hold the same bytes. */
static bool same_file(const char *a, const char *b)
{
	char cmd[1400];
	snprintf(cmd, sizeof(cmd), "cmp -s '%s/%s' '%s/%s'", dir, a, dir, b);
	return system(cmd) == 0;
}

START_TEST(tune_writes_a_config_run_and_compile_read)
{
	make_dir_named("pt_tune");
	bool plot = system("command -v gnuplot >/dev/null 2>&1") == 0;
	char args[1000];
	snprintf(args, sizeof(args), "tune " BLUR " --tiles 16,64 --overlap 0.3,0.4 --threads 1 --budget 60s "
		"-o best.cfg --csv sweep.csv %s", plot ? "--plot sweep" : "");
	ck_assert_int_eq(run_polytile(args, true), 0);
	const char *out = slurp("out");
	ck_assert_ptr_nonnull(strstr(out, "blur at R=200 C=300, 1 thread; 2 tiled dimensions"));
	ck_assert_ptr_nonnull(strstr(out, "(default)"));
	ck_assert_ptr_nonnull(strstr(out, "9 of 9 candidates tried"));
	ck_assert_ptr_nonnull(strstr(out, "best: "));
	ck_assert_ptr_nonnull(strstr(out, "wrote best.cfg"));
	/* not a terminal: plain lines, one per candidate */
	const char *err = slurp("err");
	ck_assert_ptr_nonnull(strstr(err, "tune: 1/9 default: "));
	ck_assert_ptr_nonnull(strstr(err, "tune: 9/9 "));
	ck_assert_ptr_null(strstr(err, "\r"));
	const char *cfg = slurp("best.cfg");
	ck_assert_ptr_nonnull(strstr(cfg, "# polytile tune "));
	ck_assert_ptr_nonnull(strstr(cfg, "\ntile = "));
	ck_assert_ptr_nonnull(strstr(cfg, "\noverlap = "));
	ck_assert_ptr_nonnull(strstr(slurp("sweep.csv"), "x,tile,overlap,groups,median_ms,runs,status,default,best\n"));
	if (plot) {
		ck_assert(exists("sweep.png"));
		ck_assert(exists("sweep.svg"));
		ck_assert(exists("sweep.gp"));
	}
	/* run with the configuration and without: the same output */
	ck_assert_int_eq(run_polytile("run " BLUR " --quiet --config best.cfg --out out=tuned.npy", true), 0);
	ck_assert_int_eq(run_polytile("run " BLUR " --quiet --out out=default.npy", true), 0);
	ck_assert(exists("tuned.npy"));
	ck_assert(same_file("tuned.npy", "default.npy"));
	ck_assert_int_eq(run_polytile("compile " APPS_DIR "/blur.pipe --config best.cfg -o blur_tuned", true), 0);
	ck_assert(exists("blur_tuned.o"));
	ck_assert(exists("blur_tuned.h"));
	/* explain shows the configuration's tiles */
	write_file("wide.cfg", "tile = 16x64\n");
	ck_assert_int_eq(run_polytile("explain " BLUR " --config wide.cfg", true), 0);
	ck_assert_ptr_nonnull(strstr(slurp("out"), "tile: 16 along"));
	remove_dir();
}
END_TEST

static const struct { const char *args, *msg; } bad_args[] = {
	{ "tune " BLUR " --tiles 8,x", "--tiles 8,x: give sizes" },
	{ "tune " BLUR " --tiles 0", "--tiles 0: give sizes" },
	{ "tune " BLUR " --tiles ''", "--tiles : give sizes" },
	{ "tune " BLUR " --overlap 0.2,1.5", "--overlap 0.2,1.5: give thresholds" },
	{ "tune " BLUR " --budget 0", "--budget 0: give a time" },
	{ "tune " BLUR " --budget 10x", "--budget 10x: give a time" },
	{ "tune " BLUR " --budget", "--budget needs a value" },
	{ "tune " BLUR " --threads 2,3", "--threads 2,3: give a number" },
	{ "tune " BLUR " --fast", "unknown option '--fast'" },
	{ "tune --budget 1m", "missing FILE" },
	{ "tune " BLUR " --param Q=3", "--param Q=3: no such param" },
	{ "run " BLUR " --config missing.cfg", "--config: missing.cfg: cannot read the configuration" },
	{ "run " BLUR " --config bad.cfg", "--config: bad.cfg:2: unknown key 'tiles'" },
	{ "compile " APPS_DIR "/blur.pipe -o b --config bad.cfg", "--config: bad.cfg:2: unknown key" },
	{ "compile " APPS_DIR "/blur.pipe -o b --config range.cfg", "--config: range.cfg:1: overlap = 1.5: give a fraction" },
};

START_TEST(bad_arguments_exit_2)
{
	make_dir_named("pt_tune_bad");
	write_file("bad.cfg", "# tuned\ntiles = 32x256\n");
	write_file("range.cfg", "overlap = 1.5\n");
	ck_assert_int_eq(run_polytile(bad_args[_i].args, true), 2);
	const char *err = slurp("err");
	ck_assert_msg(strstr(err, bad_args[_i].msg), "%s: got '%s'", bad_args[_i].args, err);
	ck_assert_ptr_nonnull(strstr(err, "usage: polytile"));
	remove_dir();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tune_cli");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, tune_writes_a_config_run_and_compile_read);
	tcase_add_loop_test(tc, bad_arguments_exit_2, 0, (int)(sizeof(bad_args) / sizeof(bad_args[0])));
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
