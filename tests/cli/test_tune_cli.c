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

/* Issue 42: the tuner writes each group's tiles (tile[NAME] lines, the
 * names explain gives), and --config reads them back: the same groups
 * and tiles as the tuning's best, outputs equal to the default's. */
START_TEST(tune_writes_per_group_tiles_config_reads_them)
{
	make_dir_named("pt_tune_groups");
	const char *pyr = APPS_DIR "/pyramid_blend.pipe --param R=160 --param C=200";
	char args[1000];
	snprintf(args, sizeof(args), "tune %s --tiles 16 --overlap 0.3 --threads 1 --budget 60s -o best.cfg", pyr);
	ck_assert_msg(run_polytile(args, true) == 0, "%s", slurp("err"));
	const char *cfg = slurp("best.cfg");
	ck_assert_msg(strstr(cfg, "\ntile["), "%s", cfg);
	/* read back: every tile[NAME] line names a group explain names */
	snprintf(args, sizeof(args), "explain %s --config best.cfg", pyr);
	ck_assert_msg(run_polytile(args, true) == 0, "%s", slurp("err"));
	static char expl[1 << 16];
	const char *out = slurp("out");
	size_t len = strlen(out) < sizeof(expl) - 1 ? strlen(out) : sizeof(expl) - 1;
	memcpy(expl, out, len);
	expl[len] = 0;
	cfg = slurp("best.cfg");
	int n = 0;
	for (const char *c = cfg; (c = strstr(c, "\ntile[")); c++, n++) {
		char want[120];
		const char *end = strstr(c, "] = ");
		ck_assert(end && end - c < 80);
		snprintf(want, sizeof(want), "name: %.*s\n", (int)(end - c - 6), c + 6);
		ck_assert_msg(strstr(expl, want), "%s not in %s", want, expl);
	}
	ck_assert_int_gt(n, 1);
	/* the tuned groups and tiles give the default's outputs */
	snprintf(args, sizeof(args), "run %s --quiet --config best.cfg --out 'Col[0]=tuned.npy'", pyr);
	ck_assert_msg(run_polytile(args, true) == 0, "%s", slurp("err"));
	snprintf(args, sizeof(args), "run %s --quiet --out 'Col[0]=default.npy'", pyr);
	ck_assert_int_eq(run_polytile(args, true), 0);
	ck_assert(same_file("tuned.npy", "default.npy"));
	/* a group's tiles edited alone: that group's tiles change */
	write_file("one.cfg", "tile[2] = 24x40\n");
	snprintf(args, sizeof(args), "explain %s --config one.cfg", pyr);
	ck_assert_msg(run_polytile(args, true) == 0, "%s", slurp("err"));
	ck_assert_msg(strstr(slurp("out"), "name: M[1]\n  tile: 24 along x (overlap 0, 0.000 of the tile), 40 along"),
		"%s", slurp("out"));
	/* naming no group: an error at the line */
	write_file("none.cfg", "tile = 16x16\n\ntile[nosuch] = 8x8\ntile[77] = 8x8\n");
	snprintf(args, sizeof(args), "run %s --config none.cfg", pyr);
	ck_assert_int_eq(run_polytile(args, true), 1);
	ck_assert_msg(strstr(slurp("err"), "none.cfg:3: no stage 'nosuch'"), "%s", slurp("err"));
	write_file("none.cfg", "tile[77] = 8x8\n");
	ck_assert_int_eq(run_polytile(args, true), 1);
	ck_assert_msg(strstr(slurp("err"), "none.cfg:1: no group 77"), "%s", slurp("err"));
	remove_dir();
}
END_TEST

/* The compile cache's key covers the per-group options: two configs
 * that differ in one group's tiles are two objects. */
START_TEST(cache_keys_per_group_options)
{
	make_dir_named("pt_tune_cache");
	write_file("a.cfg", "tile[out] = 16x64\n");
	write_file("b.cfg", "tile[out] = 16x32\n");
	write_file("c.cfg", "overlap[out] = 0\n");
	const char *cfgs[] = { "a", "a", "b", "c" }, *want[] = { "cache miss", "cache hit", "cache miss", "cache miss" };
	static char cmd[4096];
	for (int i = 0; i < 4; i++) {
		snprintf(cmd, sizeof(cmd), "cd '%s' && PT_CACHE_DIR='%s/cache' '%s' run " BLUR " --quiet --time --config %s.cfg "
			">'%s/out' 2>'%s/err'", dir, dir, POLYTILE, cfgs[i], dir, dir);
		ck_assert_int_eq(system(cmd), 0);
		ck_assert_msg(strstr(slurp("err"), want[i]), "config %s (run %d): no '%s' in %s", cfgs[i], i, want[i],
			slurp("err"));
	}
	remove_dir();
}
END_TEST

/* Issue 36, defect 7: the tuner's memory guard is run's; -o is checked
 * before the budget is spent; a candidate whose scratchpads do not fit
 * is skipped and logged, the table kept. */
START_TEST(tune_guards_memory_and_outputs)
{
	make_dir_named("pt_tune_guard");
	static char cmd[4096];
	/* run's guard and tune's: the same refusal */
	for (int i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd), "cd '%s' && PT_MEMORY_LIMIT=100000000 '%s' %s %s/blur.pipe --param R=8000 "
			"--param C=8000 %s >'%s/out' 2>'%s/err'", dir, POLYTILE, i ? "tune" : "run", APPS_DIR,
			i ? "--budget 5s" : "", dir, dir);
		int st = system(cmd);
		ck_assert_int_eq(WEXITSTATUS(st), 1);
		ck_assert_msg(strstr(slurp("err"), i ? "tune: this tuning needs 512.1 MB of memory, more than the 100.0 MB "
			"that PT_MEMORY_LIMIT leaves" : "this run needs 384.1 MB of memory, more than the 100.0 MB that "
			"PT_MEMORY_LIMIT leaves"), "%s", slurp("err"));
		ck_assert_ptr_null(strstr(slurp("err"), "tune: 1/"));
	}
	/* -o where nothing can be written: refused before any candidate */
	ck_assert_int_eq(run_polytile("tune " BLUR " --budget 60s -o /nonexistent/dir/best.cfg", true), 1);
	ck_assert_msg(strstr(slurp("err"), "-o /nonexistent/dir/best.cfg: cannot write there"), "%s", slurp("err"));
	ck_assert_ptr_null(strstr(slurp("err"), "tune: 1/"));
	ck_assert_int_eq(run_polytile("tune " BLUR " --budget 60s --csv .", true), 1);
	ck_assert_msg(strstr(slurp("err"), "--csv .: a directory"), "%s", slurp("err"));
	/* a tile whose scratchpads do not fit: skipped, logged (1048576 x
	 * 1048576 on 256 x 256: rows clipped to the image's 258, each of
	 * 2^20 + 2 u16, 541 MB over a 100 MB limit; the tuning itself needs
	 * less than 1 MB) */
	snprintf(cmd, sizeof(cmd), "cd '%s' && PT_MEMORY_LIMIT=100000000 '%s' tune %s/blur.pipe --param R=256 "
		"--param C=256 --tiles 16,1048576 --overlap 0.3 --threads 1 --budget 60s -o best.cfg >'%s/out' 2>'%s/err'",
		dir, POLYTILE, APPS_DIR, dir, dir);
	ck_assert_int_eq(WEXITSTATUS(system(cmd)), 0);
	ck_assert_msg(strstr(slurp("out"), "skipped: 1048576x1048576"), "%s", slurp("out"));
	ck_assert_ptr_nonnull(strstr(slurp("err"), "skipped: not run: with its scratchpads"));
	ck_assert_ptr_nonnull(strstr(slurp("out"), "wrote best.cfg"));
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
	tcase_add_test(tc, tune_writes_per_group_tiles_config_reads_them);
	tcase_add_test(tc, cache_keys_per_group_options);
	tcase_add_test(tc, tune_guards_memory_and_outputs);
	tcase_add_loop_test(tc, bad_arguments_exit_2, 0, (int)(sizeof(bad_args) / sizeof(bad_args[0])));
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
