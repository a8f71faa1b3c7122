/* test_autotune.c: autotune/: configuration files (good, bad lines with
 * file:line, round trip), the candidates and their order, grouping keys
 * and their dedup, the workload's byte comparison, and pt_tune catching
 * a candidate whose output is wrong. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "polytile.h"
#include "run_suite.h"
#include "tune.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

static pt_options parsed(const char *text, int expect)
{
	pt_options o = {0};
	char err[512] = "";
	int r = pt_options_parse_config(&o, "best.cfg", text, err, sizeof(err));
	ck_assert_msg(r == expect, "%s: %d (%s)", text, r, err);
	return o;
}

START_TEST(config_good)
{
	pt_options o = parsed("# tuned\n  tile = 16x512   # trailing comment\n\noverlap=0.25\r\n", 0);
	ck_assert_int_eq(o.ntile, 2);
	ck_assert_int_eq(o.tile[0], 16);
	ck_assert_int_eq(o.tile[1], 512);
	ck_assert(o.overlap == 0.25);
	o = parsed("tile = default\noverlap = default\n", 0);
	ck_assert_int_eq(o.ntile, 0);
	ck_assert(o.overlap == 0);
	o = parsed("", 0);
	ck_assert_int_eq(o.ntile, 0);
	/* keys absent keep the options' values */
	o.ntile = 1;
	o.tile[0] = 7;
	char err[64];
	ck_assert_int_eq(pt_options_parse_config(&o, "c", "overlap = 0.3", err, sizeof(err)), 0);
	ck_assert_int_eq(o.ntile, 1);
	ck_assert_int_eq(o.tile[0], 7);
}
END_TEST

static const struct { const char *text, *msg; } bad_configs[] = {
	{ "tile = 32x256\ntiles = 8\n", "best.cfg:2: unknown key 'tiles'" },
	{ "\n\ntile 32x256\n", "best.cfg:3: expected `key = value`" },
	{ "tile = 32x0\n", "best.cfg:1: tile = 32x0: give sizes like 32x256" },
	{ "tile = 32x\n", "best.cfg:1: tile = 32x: give sizes" },
	{ "tile = 1x2x3x4x5x6x7x8x9\n", "best.cfg:1: tile = 1x2x3x4x5x6x7x8x9" },
	{ "tile = -32\n", "best.cfg:1: tile = -32" },
	{ "overlap = 1\n", "best.cfg:1: overlap = 1: give a fraction in [0, 1)" },
	{ "overlap = 0.4x\n", "best.cfg:1: overlap = 0.4x" },
	{ "overlap = nan\n", "best.cfg:1: overlap = nan" },
	{ "overlap = 0.4\noverlap = 0.5\n", "best.cfg:2: overlap given twice" },
	{ "tile =\n", "best.cfg:1: tile has no value" },
};

START_TEST(config_bad_lines)
{
	pt_options o = { .ntile = 1, .tile = { 5 }, .overlap = 0.1 };
	char err[512] = "";
	int r = pt_options_parse_config(&o, "best.cfg", bad_configs[_i].text, err, sizeof(err));
	ck_assert_int_eq(r, -1);
	ck_assert_msg(strstr(err, bad_configs[_i].msg), "got '%s', expected '%s'", err, bad_configs[_i].msg);
	/* all or nothing */
	ck_assert_int_eq(o.ntile, 1);
	ck_assert_int_eq(o.tile[0], 5);
	ck_assert(o.overlap == 0.1);
}
END_TEST

START_TEST(config_round_trip)
{
	static const pt_options cases[] = {
		{ .ntile = 2, .tile = { 32, 256 }, .overlap = 0.4 },
		{ .ntile = 3, .tile = { 8, 1, 1 << 20 }, .overlap = 0.1 + 0.2 },   /* not exact in %g */
		{ .ntile = 0, .overlap = 0 },
		{ .ntile = 1, .tile = { 64 } },
	};
	char path[512];
	const char *td = getenv("TMPDIR");
	snprintf(path, sizeof(path), "%s/pt_cfg_XXXXXX", td && *td ? td : P_tmpdir);
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char *text = pt_options_config_text(&cases[k], "tuned for a test\nsecond line");
		ck_assert_ptr_nonnull(strstr(text, "# tuned for a test\n# second line\n"));
		FILE *f = fopen(path, "w");
		fputs(text, f);
		fclose(f);
		free(text);
		pt_options o = { .ntile = 5, .overlap = 0.9 };
		char err[256];
		ck_assert_int_eq(pt_options_read_config(&o, path, err, sizeof(err)), 0);
		ck_assert_int_eq(o.ntile, cases[k].ntile);
		for (int d = 0; d < o.ntile; d++)
			ck_assert_int_eq(o.tile[d], cases[k].tile[d]);
		ck_assert(o.overlap == cases[k].overlap);
	}
	unlink(path);
	char err[256];
	pt_options o = {0};
	ck_assert_int_eq(pt_options_read_config(&o, path, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, path));
	ck_assert_ptr_nonnull(strstr(err, "cannot read"));
}
END_TEST

/* Per-group entries: by name and by index, read, written and read back
 * equal; a second configuration adds to and overrides the first's;
 * `overlap = 0` is 0 (set), `default` unset. */
START_TEST(config_per_group_round_trip)
{
	pt_options o = parsed("tile = 16x64\noverlap = 0\ntile[blend_2] = 8x32\noverlap[blend_2] = 0.35\n"
		"overlap[3] = 0\ntile[3] = 24\n", 0);
	ck_assert(o.overlap == 0 && o.overlap_set);
	ck_assert_int_eq(o.ngroups, 2);
	ck_assert_str_eq(o.groups[0].group, "blend_2");
	ck_assert_int_eq(o.groups[0].ntile, 2);
	ck_assert_int_eq(o.groups[0].tile[1], 32);
	ck_assert(o.groups[0].overlap_set && o.groups[0].overlap == 0.35);
	ck_assert_str_eq(o.groups[0].where, "best.cfg:3");
	ck_assert_ptr_null(o.groups[1].group);
	ck_assert_int_eq(o.groups[1].index, 3);
	ck_assert(o.groups[1].overlap_set && o.groups[1].overlap == 0);
	ck_assert_int_eq(o.groups[1].tile[0], 24);
	char *text = pt_options_config_text(&o, NULL);
	pt_options b = parsed(text, 0);
	char *again = pt_options_config_text(&b, NULL);
	ck_assert_str_eq(text, again);
	ck_assert_ptr_nonnull(strstr(text, "overlap = 0\n"));
	ck_assert_ptr_nonnull(strstr(text, "tile[3] = 24\n"));
	free(text);
	free(again);
	/* a second file: blend_2's tiles replaced, a new entry added */
	char err[256];
	ck_assert_int_eq(pt_options_parse_config(&b, "two.cfg", "tile[blend_2] = 8x8\ntile[out] = 16\n", err, sizeof(err)), 0);
	ck_assert_int_eq(b.ngroups, 3);
	ck_assert_int_eq(b.groups[0].tile[1], 8);
	ck_assert(b.groups[0].overlap == 0.35);
	ck_assert_str_eq(b.groups[2].where, "two.cfg:2");
	/* a bad file leaves the entries as they were */
	ck_assert_int_eq(pt_options_parse_config(&b, "bad.cfg", "tile[x] = 8\ntile[x] = 9\n", err, sizeof(err)), -1);
	ck_assert_int_eq(b.ngroups, 3);
	pt_options_free_config(&o);
	pt_options_free_config(&b);
	ck_assert_int_eq(b.ngroups, 0);
	o = parsed("overlap = default\n", 0);
	ck_assert(o.overlap == 0 && !o.overlap_set);
}
END_TEST

/* GPU blocks: `block = XxY` for every tiled group, `block[G]` for one,
 * written and read back equal; two sizes, at most 1,024 threads. */
START_TEST(config_gpu_blocks)
{
	pt_options o = parsed("block = 64x4\nblock[blur_y] = 7x3\ntile[2] = 8x16\n", 0);
	ck_assert_int_eq(o.gpu_block[0], 64);
	ck_assert_int_eq(o.gpu_block[1], 4);
	ck_assert_int_eq(o.ngroups, 2);
	ck_assert_str_eq(o.groups[0].group, "blur_y");
	ck_assert_int_eq(o.groups[0].gpu_block[0], 7);
	ck_assert_int_eq(o.groups[0].gpu_block[1], 3);
	ck_assert_int_eq(o.groups[1].gpu_block[0], 0);
	char *text = pt_options_config_text(&o, NULL);
	ck_assert_msg(strstr(text, "block = 64x4\n") && strstr(text, "block[blur_y] = 7x3\n"), "%s", text);
	ck_assert_msg(!strstr(text, "block[2]"), "%s", text);
	pt_options b = parsed(text, 0);
	char *again = pt_options_config_text(&b, NULL);
	ck_assert_str_eq(text, again);
	free(text);
	free(again);
	pt_options_free_config(&o);
	pt_options_free_config(&b);
	o = parsed("block = 1024x1\nblock = default\n", -1);   /* given twice */
	o = parsed("block = default\n", 0);
	ck_assert_int_eq(o.gpu_block[0], 0);
	static const char *const bad[] = { "block = 64x32\n", "block = 32\n", "block = 8x8x2\n", "block = 0x8\n",
		"block[b] = 2048x1\n", "block = 32 x 8\n" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		pt_options e = {0};
		char err[512];
		ck_assert_int_eq(pt_options_parse_config(&e, "b.cfg", bad[i], err, sizeof(err)), -1);
		ck_assert_msg(strstr(err, "b.cfg:1: ") && strstr(err, "give a block of threads like 32x8"), "%s: %s", bad[i],
			err);
		pt_options_free_config(&e);
	}
}
END_TEST

/* Messages show what they quote as text: control bytes and bytes that
 * are not UTF-8 as \xNN, UTF-8 as it is, long values cut. */
START_TEST(config_errors_escape_what_they_quote)
{
	pt_options o = {0};
	char err[512];
	ck_assert_int_eq(pt_options_parse_config(&o, "a\x1b]0;t\x07.cfg", "\x1b[31mtile = 8\n", err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "a\\x1b]0;t\\x07.cfg:1: unknown key '\\x1b[31mtile'"), "%s", err);
	ck_assert_int_eq(pt_options_parse_config(&o, "c", "tile = \xe2\x82\xac\xff\x80\n", err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "tile = \xe2\x82\xac\\xff\\x80:"), "%s", err);
	char buf[16];
	ck_assert_str_eq(pt_text_escape("\x01\x02\x03\x04\x05", buf, sizeof(buf)), "\\x01\\x02\\x03...");
	ck_assert_str_eq(pt_text_escape("\xed\xa0\x80", buf, sizeof(buf)), "\\xed\\xa0\\x80");
	ck_assert_str_eq(pt_text_escape("ok", buf, sizeof(buf)), "ok");
}
END_TEST

/* The C API: zero-initialized options keep the default threshold;
 * overlap 0 with overlap_set is 0, and blur's two stages, which
 * overlap, are not merged under it. */
START_TEST(overlap_zero_is_honoured)
{
	pt_ctx *ctx = pt_ctx_new();
	char path[512];
	snprintf(path, sizeof(path), "%s/blur.pipe", APPS_DIR);
	pt_pipeline *p = pt_parse_file(ctx, path);
	ck_assert_ptr_nonnull(p);
	pt_options o = { .fixed_tiles = true };
	pt_group_summary a, b;
	ck_assert_int_eq(pt_group_summarize(ctx, p, &o, &a), 0);
	ck_assert(a.overlap == 0.2);
	o.overlap_set = true;
	ck_assert_int_eq(pt_group_summarize(ctx, p, &o, &b), 0);
	ck_assert(b.overlap == 0);
	ck_assert_int_eq(a.ngroups, 1);
	ck_assert_int_eq(b.ngroups, 2);
	pt_group_summary_clear(&a);
	pt_group_summary_clear(&b);
	pt_ctx_free(ctx);
}
END_TEST

/* The timing flag on synthetic times: steady runs pass, one outlier
 * among many passes (the median absolute deviation ignores it), runs
 * split between a quiet and a busy machine are flagged. */
START_TEST(spread_flags_unsteady_times)
{
	const double steady[] = { 10.0, 10.1, 9.9, 10.2, 10.0 };
	const double outlier[] = { 10.0, 10.1, 9.9, 40.0, 10.0 };
	const double busy[] = { 10.0, 24.0, 10.5, 25.0, 11.0, 23.0 };
	const double two[] = { 1.0, 3.0 };
	ck_assert(pt_tune_spread(steady, 5) < PT_TUNE_NOISY);
	ck_assert(pt_tune_spread(outlier, 5) < PT_TUNE_NOISY);
	ck_assert(pt_tune_spread(busy, 6) > PT_TUNE_NOISY);
	ck_assert(pt_tune_spread(two, 2) > PT_TUNE_NOISY);
	ck_assert(pt_tune_spread(steady, 1) == 0);
	ck_assert(busy[1] == 24.0);   /* not sorted in place */
}
END_TEST

START_TEST(candidates_order)
{
	static const int tiles[] = { 8, 16, 32, 64, 128, 256, 512 };
	static const double ov[] = { 0.2, 0.4, 0.5 };
	static const int def[] = { 32, 256 };
	pt_tune_space s = { .ntiled = 2, .tiles = tiles, .ntiles = 7, .overlaps = ov, .noverlaps = 3,
		.def_tile = def, .def_overlap = 0.4 };
	int n = 0;
	pt_tune_cand *c = pt_tune_candidates(&s, &n);
	ck_assert_int_eq(n, 1 + 7 * 7 * 3);
	/* the default first, then its explicit twin, then one step away */
	ck_assert_int_eq(c[0].ntile, 0);
	ck_assert(c[0].overlap == 0);
	ck_assert_int_eq(c[1].ntile, 2);
	ck_assert_int_eq(c[1].tile[0], 32);
	ck_assert_int_eq(c[1].tile[1], 256);
	ck_assert(c[1].overlap == 0.4);
	ck_assert(c[2].overlap == 0.4 || c[2].overlap == 0.5);
	double last = 0;
	for (int i = 1; i < n; i++) {
		double d = fabs(c[i].overlap - 0.4) * 10 + fabs(log2(c[i].tile[0] / 32.0)) + fabs(log2(c[i].tile[1] / 256.0));
		ck_assert_msg(d >= last - 1e-9, "candidate %d out of order", i);
		last = d;
		/* each combination once */
		for (int j = 1; j < i; j++)
			ck_assert(c[j].tile[0] != c[i].tile[0] || c[j].tile[1] != c[i].tile[1] || c[j].overlap != c[i].overlap);
	}
	free(c);
	/* nothing tiled: the thresholds only */
	s.ntiled = 0;
	c = pt_tune_candidates(&s, &n);
	ck_assert_int_eq(n, 4);
	ck_assert_int_eq(c[3].ntile, 0);
	free(c);
	/* too many */
	s.ntiled = 8;
	ck_assert_ptr_null(pt_tune_candidates(&s, &n));
}
END_TEST

START_TEST(keys_dedup)
{
	pt_tune_keys k = {0};
	ck_assert_int_eq(pt_tune_keys_lookup(&k, "group 0: a b", 0), -1);
	ck_assert_int_eq(pt_tune_keys_lookup(&k, "group 0: a\ngroup 1: b", 3), -1);
	for (int i = 0; i < 40; i++) {
		char key[32];
		snprintf(key, sizeof(key), "k%d", i);
		ck_assert_int_eq(pt_tune_keys_lookup(&k, key, 10 + i), -1);
	}
	ck_assert_int_eq(pt_tune_keys_lookup(&k, "group 0: a b", 7), 0);
	ck_assert_int_eq(pt_tune_keys_lookup(&k, "group 0: a\ngroup 1: b", 8), 3);
	ck_assert_int_eq(pt_tune_keys_lookup(&k, "k39", 99), 49);
	pt_tune_keys_clear(&k);
}
END_TEST

static pt_pipeline *blur(pt_ctx *ctx)
{
	pt_pipeline *p = pt_parse_file(ctx, APPS_DIR "/blur.pipe");
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	return p;
}

static const double small[] = { 200, 300 };   /* blur's R, C */

START_TEST(summary_keys)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = blur(ctx);
	/* the grouping's fixed sizes (the tile model's depend on the machine) */
	pt_options o = { .estimates = small, .fixed_tiles = true };
	pt_group_summary a, b, c;
	ck_assert_int_eq(pt_group_summarize(ctx, p, &o, &a), 0);
	ck_assert_int_eq(a.ntiled, 2);
	ck_assert_int_eq(a.tile[0], 32);
	ck_assert_int_eq(a.tile[1], 256);
	ck_assert(a.overlap == 0.2);   /* PT_GROUP_DEFAULT_OVERLAP */
	/* the default's explicit twin and another threshold: the same key */
	o.ntile = 2;
	o.tile[0] = 32;
	o.tile[1] = 256;
	o.overlap = 0.4;
	ck_assert_int_eq(pt_group_summarize(ctx, p, &o, &b), 0);
	ck_assert_str_eq(a.key, b.key);
	o.tile[1] = 64;
	ck_assert_int_eq(pt_group_summarize(ctx, p, &o, &c), 0);
	ck_assert_str_ne(a.key, c.key);
	pt_group_summary_clear(&a);
	pt_group_summary_clear(&b);
	pt_group_summary_clear(&c);
	pt_ctx_free(ctx);
}
END_TEST

START_TEST(workload_compare)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = blur(ctx);
	pt_options naive = { .opt_level = PT_OPT_NAIVE, .estimates = small }, grouped = { .estimates = small };
	pt_program *a = pt_compile(ctx, p, &naive), *b = pt_compile(ctx, p, &grouped);
	pt_workload *w = pt_workload_new(ctx, p, small);
	ck_assert_msg(a && b && w, "%s", pt_ctx_diagnostics(ctx));
	pt_workload_fill(w, 0, 0xa5);
	pt_workload_fill(w, 1, 0x00);
	size_t at = 0;
	ck_assert_int_eq(pt_workload_compare(w, &at), 0);
	ck_assert_int_eq(at, 0);
	double ms = -1;
	ck_assert_int_eq(pt_workload_run(w, a, 0, &ms), 0);
	ck_assert(ms >= 0);
	ck_assert_int_eq(pt_workload_run(w, b, 1, NULL), 0);
	ck_assert_int_eq(pt_workload_compare(w, NULL), -1);
	int n = 0;
	pt_buffer *out = pt_workload_outputs(w, 1, &n);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(out[0].extent[0], 200);
	((unsigned char *)out[0].data)[1001] ^= 1;
	ck_assert_int_eq(pt_workload_compare(w, &at), 0);
	ck_assert_int_eq(at, 1001);
	pt_workload_free(w);
	pt_program_free(a);
	pt_program_free(b);
	pt_ctx_free(ctx);
}
END_TEST

/* Flips a byte of candidate 2's output (tests only). */
static void corrupt(int i, pt_buffer *outputs, int n, void *user)
{
	ck_assert_int_eq(n, 1);
	if (i == *(int *)user)
		((unsigned char *)outputs[0].data)[17] ^= 0x40;
}

START_TEST(tune_catches_a_wrong_candidate)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = blur(ctx);
	static const int tiles[] = { 16, 64 };
	static const double ov[] = { 0.4 };
	int victim = 2;
	pt_tune_options o = { .values = small, .tiles = tiles, .ntiles = 2, .overlaps = ov, .noverlaps = 1,
		.threads = 1, .budget_s = 60, .target_s = 0.01, .check_hook = corrupt, .user = &victim };
	pt_tune_result *r = pt_tune(ctx, p, &o);
	ck_assert_msg(r != NULL, "%s", pt_ctx_diagnostics(ctx));
	ck_assert_int_eq(r->ncand, 5);
	ck_assert_int_eq(r->tried, 5);
	ck_assert_int_eq(r->ntiled, 2);
	ck_assert_int_eq(r->mismatches, 1);
	ck_assert_int_eq(r->cand[2].status, PT_TUNE_MISMATCH);
	ck_assert_ptr_nonnull(strstr(r->cand[2].message, "output 'out' differs from the naive (-O0) build's at byte 17"));
	ck_assert_int_ne(r->best, 2);
	ck_assert_int_ge(r->best, 0);
	ck_assert_int_eq(r->cand[r->best].status, PT_TUNE_TIMED);
	for (int i = 0; i < r->ncand; i++)
		if (i != 2)
			ck_assert_int_eq(r->cand[i].status, PT_TUNE_TIMED);
	/* the sweep's runs: 3 to 15; the final round's: 5 to 21 */
	ck_assert(r->cand[1].sweep_ms > 0);
	ck_assert(r->cand[0].final);
	ck_assert(!r->cand[2].final);
	ck_assert_int_eq(r->cand[0].runs, r->final_rounds);
	ck_assert_int_ge(r->final_rounds, 5);
	ck_assert_int_le(r->final_rounds, 21);
	for (int i = 0; i < r->ncand; i++)
		if (r->cand[i].status == PT_TUNE_TIMED && !r->cand[i].final) {
			ck_assert_int_ge(r->cand[i].runs, 3);
			ck_assert_int_le(r->cand[i].runs, 15);
		}
	/* the table names it; the CSV and the plot have every row */
	char *t = pt_tune_table(r), *csv = pt_tune_csv(r), *gp = pt_tune_gnuplot(r, "blur", "s.csv", "s");
	char name[64];
	ck_assert_ptr_nonnull(strstr(t, "MISMATCH: "));
	ck_assert_ptr_nonnull(strstr(t, pt_tune_cand_name(&r->cand[2], name, sizeof(name))));
	ck_assert_ptr_nonnull(strstr(t, "(default)"));
	int rows = 0;
	for (const char *s = csv; (s = strchr(s, '\n')); s++)
		rows++;
	ck_assert_int_eq(rows, 1 + 5);
	ck_assert_ptr_nonnull(strstr(csv, ",mismatch,"));
	ck_assert_ptr_nonnull(strstr(gp, "title \"overlap 0.4\""));
	ck_assert_ptr_nonnull(strstr(gp, "set output \"s.png\""));
	ck_assert_ptr_nonnull(strstr(gp, "set output \"s.svg\""));
	free(t);
	free(csv);
	free(gp);
	pt_tune_result_free(r);
	pt_ctx_free(ctx);
}
END_TEST

START_TEST(tune_dedups_and_stops_at_the_budget)
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = blur(ctx);
	static const int tiles[] = { 16, 64 };
	static const double ov[] = { 0.2, 0.4 };
	pt_tune_options o = { .values = small, .tiles = tiles, .ntiles = 2, .overlaps = ov, .noverlaps = 2,
		.threads = 1, .target_s = 0.01 };
	pt_tune_result *r = pt_tune(ctx, p, &o);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(r->ncand, 9);
	int same = 0;
	for (int i = 0; i < r->ncand; i++)
		if (r->cand[i].status == PT_TUNE_SAME) {
			same++;
			ck_assert_int_lt(r->cand[i].same_as, i);
			ck_assert(r->cand[i].median_ms == r->cand[r->cand[i].same_as].median_ms);
		}
	/* blur is one group at either threshold: 0.2 repeats 0.4 */
	ck_assert_int_eq(same, 4);
	/* the final round: the default and the 3 fastest others of the
	 * sweep, timed again; the best is the fastest of them */
	ck_assert_int_eq(r->finalists, 4);
	int fin = 0;
	/* finalists are chosen by their speedup over the default, timed in
	 * turns with it (vs_default), not by their sweep times alone: under
	 * load the two orders differ */
	double best_other = 0, weakest_final = 1e30;
	for (int i = 0; i < r->ncand; i++) {
		const pt_tune_cand *c = &r->cand[i];
		if (!c->final) {
			if (c->status == PT_TUNE_TIMED)
				best_other = c->vs_default > best_other ? c->vs_default : best_other;
			continue;
		}
		fin++;
		ck_assert_int_eq(c->status, PT_TUNE_TIMED);
		ck_assert_int_eq(c->runs, r->final_rounds);
		ck_assert(r->cand[r->best].median_ms <= c->median_ms);
		if (i > 0)
			weakest_final = c->vs_default < weakest_final ? c->vs_default : weakest_final;
	}
	ck_assert_int_eq(fin, 4);
	ck_assert(r->cand[0].final);
	ck_assert(r->cand[r->best].final);
	/* the one timed candidate left out gained no more over the default */
	ck_assert(best_other <= weakest_final);
	char *t = pt_tune_table(r);
	const char *row1 = strchr(t, '\n') + 1;
	ck_assert_ptr_nonnull(strstr(t, "* a finalist"));
	ck_assert_msg(strchr(row1, '*') && strchr(row1, '*') < strchr(row1, '\n'), "%s", t);
	free(t);
	pt_tune_result_free(r);
	/* a budget spent: the default alone */
	o.budget_s = 1e-9;
	r = pt_tune(ctx, p, &o);
	ck_assert_ptr_nonnull(r);
	ck_assert(r->budget_spent);
	ck_assert_int_eq(r->tried, 1);
	ck_assert_int_eq(r->best, 0);
	ck_assert_int_eq(r->cand[1].status, PT_TUNE_PENDING);
	pt_tune_result_free(r);
	pt_ctx_free(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("autotune");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, config_good);
	tcase_add_loop_test(tc, config_bad_lines, 0, (int)(sizeof(bad_configs) / sizeof(bad_configs[0])));
	tcase_add_test(tc, config_round_trip);
	tcase_add_test(tc, config_per_group_round_trip);
	tcase_add_test(tc, config_gpu_blocks);
	tcase_add_test(tc, config_errors_escape_what_they_quote);
	tcase_add_test(tc, overlap_zero_is_honoured);
	tcase_add_test(tc, spread_flags_unsteady_times);
	tcase_add_test(tc, candidates_order);
	tcase_add_test(tc, keys_dedup);
	tcase_add_test(tc, summary_keys);
	tcase_add_test(tc, workload_compare);
	tcase_add_test(tc, tune_catches_a_wrong_candidate);
	tcase_add_test(tc, tune_dedups_and_stops_at_the_budget);
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
