/* tune.c: `polytile tune`: pt_tune with a progress line, the table, the
 * best configuration written for `run/compile --config`, and the sweep's
 * CSV and plot (gnuplot). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define EXIT_MISMATCH 3
#define MAX_LIST 64

static const char *const usage_tune =
	"usage: polytile tune FILE [--param NAME=VALUE]... [--tiles 8,16,..] [--overlap 0.2,..]\n"
	"                     [--threads N] [--budget 10m] [-o BEST.cfg] [--csv F] [--plot PREFIX]\n"
	"\n"
	"Tries configurations of the optimizer on FILE at the params' estimates\n"
	"(or the --param values): a tile size per tiled dimension times an overlap\n"
	"threshold, the default first, then those nearest the default; one whose\n"
	"groups and tiles equal those of one tried before is not run again.  Each\n"
	"is compiled, run once on generated inputs and its outputs compared byte\n"
	"for byte with the naive (-O0) build's, then timed (the median of 3 to 15\n"
	"runs).  Prints the table sorted by time.\n"
	"\n"
	"  --tiles LIST     sizes tried per tiled dimension (default 8,16,32,64,128,256,512)\n"
	"  --overlap LIST   thresholds tried, each in (0, 1) (default 0.2,0.4,0.5)\n"
	"  --threads N      threads of the runs (default: OMP_NUM_THREADS, else every core)\n"
	"  --budget T       stop trying new candidates after T: 90s, 10m, 1h (default 10m)\n"
	"  -o FILE          write the best configuration (read by run/compile --config)\n"
	"  --csv FILE       write every candidate tried as CSV\n"
	"  --plot PREFIX    draw the sweep to PREFIX.png and PREFIX.svg with gnuplot\n"
	"                   (script PREFIX.gp, data PREFIX.csv unless --csv)\n"
	"\n"
	"Exit 0, 1 (user error), 2 (usage), 3 if a candidate's output differed\n"
	"from the naive build's (a compiler bug; never picked).\n";

typedef struct tune_args {
	const char *file, *out, *csv, *plot;
	const char **params;
	int nparams;
	int tiles[MAX_LIST], ntiles;
	double overlaps[MAX_LIST];
	int noverlaps;
	int threads;
	double budget;
} tune_args;

/* "8,16,32" into v (n of them, each in [lo, hi]); false if malformed. */
static bool parse_list(const char *s, double *v, int *n, double lo, double hi, bool ints)
{
	*n = 0;
	for (;;) {
		char *end;
		errno = 0;
		double x = ints ? (double)strtol(s, &end, 10) : strtod(s, &end);
		if (end == s || errno || !(x >= lo && x <= hi) || *n == MAX_LIST)
			return false;
		v[(*n)++] = x;
		if (!*end)
			return true;
		if (*end != ',')
			return false;
		s = end + 1;
	}
}

/* "90", "90s", "10m", "1h" into seconds; false if malformed. */
static bool parse_budget(const char *s, double *secs)
{
	char *end;
	double x = strtod(s, &end);
	double unit = !*end ? 1 : !strcmp(end, "s") ? 1 : !strcmp(end, "m") ? 60 : !strcmp(end, "h") ? 3600 : 0;
	*secs = x * unit;
	return end != s && unit > 0 && *secs >= 1 && *secs <= 7 * 86400;
}

/* The option at argv[*i] and its value; 0, or EXIT_USAGE. */
static int parse_opt(int argc, char **argv, int *i, tune_args *a)
{
	static const char *const valued[] = { "--param", "--tiles", "--overlap", "--threads", "--budget", "-o",
		"--csv", "--plot" };
	const char *o = argv[*i];
	size_t k = 0;
	while (k < sizeof(valued) / sizeof(valued[0]) && strcmp(o, valued[k]))
		k++;
	if (k == sizeof(valued) / sizeof(valued[0]))
		return pt_cli_usage_error(usage_tune, "unknown option '%s'", o);
	if (*i + 1 >= argc)
		return pt_cli_usage_error(usage_tune, "%s needs a value", o);
	const char *v = argv[++*i];
	double list[MAX_LIST], n;
	switch (k) {
	case 0:
		a->params[a->nparams++] = v;
		return 0;
	case 1:
		if (!parse_list(v, list, &a->ntiles, 1, 1 << 20, true))
			return pt_cli_usage_error(usage_tune, "--tiles %s: give sizes like 8,16,32 (1 to 64 of them, each >= 1)", v);
		for (int j = 0; j < a->ntiles; j++)
			a->tiles[j] = (int)list[j];
		return 0;
	case 2:
		if (!parse_list(v, a->overlaps, &a->noverlaps, 1e-9, 1 - 1e-9, false))
			return pt_cli_usage_error(usage_tune, "--overlap %s: give thresholds like 0.2,0.4 (each in (0, 1))", v);
		return 0;
	case 3:
		if (strchr(v, ',') || !parse_list(v, &n, &(int){0}, 1, 4096, true))
			return pt_cli_usage_error(usage_tune, "--threads %s: give a number of threads from 1 to 4096", v);
		a->threads = (int)n;
		return 0;
	case 4:
		if (!parse_budget(v, &a->budget))
			return pt_cli_usage_error(usage_tune, "--budget %s: give a time from 1s to 7 days, like 90s, 10m or 1h", v);
		return 0;
	default:
		*(k == 5 ? &a->out : k == 6 ? &a->csv : &a->plot) = v;
		return 0;
	}
}

static int parse_args(int argc, char **argv, tune_args *a)
{
	for (int i = 0; i < argc; i++) {
		int r;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_tune, stdout);
			return -1;
		}
		if (argv[i][0] == '-' && argv[i][1]) {
			if ((r = parse_opt(argc, argv, &i, a)))
				return r;
		} else if (a->file) {
			return pt_cli_usage_error(usage_tune, "unexpected argument '%s'", argv[i]);
		} else {
			a->file = argv[i];
		}
	}
	if (!a->file)
		return pt_cli_usage_error(usage_tune, "missing FILE%s", "");
	return 0;
}

static void duration(char *buf, size_t len, double s)
{
	if (s >= 60)
		snprintf(buf, len, "%dm%02ds", (int)s / 60, (int)s % 60);
	else
		snprintf(buf, len, "%.0fs", s);
}

/* After each candidate: a bar redrawn in place on a terminal, else a
 * line; a mismatch loudly either way. */
static void progress(const pt_tune_result *r, int i, double eta, void *user)
{
	bool tty = *(bool *)user;
	const pt_tune_cand *c = &r->cand[i];
	char name[160], left[32], best[200] = "none yet";
	pt_tune_cand_name(c, name, sizeof(name));
	duration(left, sizeof(left), eta);
	if (r->best >= 0) {
		char bn[160];
		snprintf(best, sizeof(best), "%.3f ms (%s)", r->cand[r->best].median_ms,
			pt_tune_cand_name(&r->cand[r->best], bn, sizeof(bn)));
	}
	if (c->status == PT_TUNE_MISMATCH)
		fprintf(stderr, "%spolytile: MISMATCH (a compiler bug): candidate %s: %s; it is never picked\n",
			tty ? "\r\033[K" : "", name, c->message);
	if (tty) {
		int width = 30, done = (int)lround((double)width * (i + 1) / r->ncand);
		fprintf(stderr, "\r\033[K[%.*s%*s] %d/%d  best %s  ETA %s", done, "##############################",
			width - done, "", i + 1, r->ncand, best, left);
		fflush(stderr);
		return;
	}
	fprintf(stderr, "tune: %d/%d %s: ", i + 1, r->ncand, name);
	if (c->status == PT_TUNE_TIMED)
		fprintf(stderr, "%.3f ms (median of %d)", c->median_ms, c->runs);
	else if (c->status == PT_TUNE_SAME)
		fprintf(stderr, "the groups and tiles of %s, not run again",
			pt_tune_cand_name(&r->cand[c->same_as], name, sizeof(name)));
	else if (c->status == PT_TUNE_SKIPPED)
		fprintf(stderr, "skipped: %s", c->message ? c->message : "out of memory");
	else
		fprintf(stderr, "%s", c->status == PT_TUNE_MISMATCH ? "MISMATCH" : "failed");
	fprintf(stderr, "; best %s; ETA %s\n", best, left);
}

/* "harris at R=6400 C=6400, 2 threads" */
static void describe_run(char *buf, size_t len, const pt_pipeline *p, const double *est, int threads)
{
	size_t n = (size_t)snprintf(buf, len, "%s at", pt_pipeline_name(p));
	for (int q = 0; q < pt_pipeline_param_count(p) && n < len; q++)
		n += (size_t)snprintf(buf + n, len - n, " %s=%g", pt_pipeline_param_name(p, q), est[q]);
	if (n < len)
		snprintf(buf + n, len - n, ", %d thread%s", threads ? threads : pt_get_num_threads(),
			(threads ? threads : pt_get_num_threads()) == 1 ? "" : "s");
}

/* The first "model name" of /proc/cpuinfo, else the architecture. */
static void machine(char *buf, size_t len)
{
	struct utsname u;
	snprintf(buf, len, "%s", uname(&u) ? "?" : u.machine);
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			snprintf(buf, len, "%s", strchr(line, ':') + 2);
			buf[strcspn(buf, "\n")] = 0;
			break;
		}
	if (f)
		fclose(f);
	size_t n = strlen(buf);
	snprintf(buf + n, len - n, ", %ld cores", sysconf(_SC_NPROCESSORS_ONLN));
}

/* -o: the best candidate's options with where they come from. */
static int write_best(const tune_args *a, const pt_tune_result *r, const char *what)
{
	const pt_tune_cand *b = &r->cand[r->best], *d = &r->cand[0];
	pt_options o;
	char comment[2048], mach[256], vs[128] = "the default was not timed";
	pt_tune_best_options(r, &(pt_options){0}, &o);
	machine(mach, sizeof(mach));
	if (d->status == PT_TUNE_TIMED)
		snprintf(vs, sizeof(vs), "the default %.3f ms (%.2fx)", d->median_ms, d->median_ms / b->median_ms);
	time_t now = time(NULL);
	char date[64];
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M", localtime(&now));
	snprintf(comment, sizeof(comment), "polytile tune %s: %s\nmedian %.3f ms; %s; %d of %d candidates tried%s\n"
		"machine: %s; %s\ntile[G]: the tiles group G got (explain's names), to edit one group alone",
		a->file, what, b->median_ms, vs, r->tried, r->ncand, b->noisy ? " (its time not to be trusted: "
		"the machine was busy)" : "", mach, date);
	char *text = pt_options_config_text(&o, comment);
	int rc = pt_cli_write_text(a->out, text);
	free(text);
	return rc;
}

/* Runs gnuplot on script; 0, or -1 after a message. */
static int run_gnuplot(const char *script)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	int st = 0;
	while (pid > 0 && waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			break;
	if (pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	fprintf(stderr, "polytile: gnuplot %s failed%s; is the gnuplot package installed?\n", script,
		pid > 0 && WIFEXITED(st) ? "" : " (killed)");
	return -1;
}

/* --csv and --plot; 0, or -1 after a message. */
static int write_sweep(const tune_args *a, const pt_tune_result *r, const char *what)
{
	char *csv = pt_tune_csv(r), *csv_path = NULL;
	int rc = 0;
	if (a->csv || a->plot) {
		csv_path = a->csv ? strdup(a->csv) : malloc(strlen(a->plot) + 5);
		if (!a->csv)
			sprintf(csv_path, "%s.csv", a->plot);
		rc = pt_cli_write_text(csv_path, csv);
	}
	if (!rc && a->plot) {
		char title[1100], *gp = malloc(strlen(a->plot) + 4);
		snprintf(title, sizeof(title), "polytile tune: %s", what);
		sprintf(gp, "%s.gp", a->plot);
		char *script = pt_tune_gnuplot(r, title, csv_path, a->plot);
		rc = pt_cli_write_text(gp, script) || run_gnuplot(gp) ? -1 : 0;
		if (!rc)
			printf("wrote %s.png, %s.svg (%s, %s)\n", a->plot, a->plot, gp, csv_path);
		free(script);
		free(gp);
	}
	free(csv_path);
	free(csv);
	return rc;
}

/* Whether path can be written (a file made and removed beside it), so
 * that the budget is not spent for an output that cannot be kept; 0,
 * or EXIT_USER after a message naming the option. */
static int check_writable(const char *opt, const char *path)
{
	struct stat st;
	char shown[600];
	pt_text_escape(path, shown, sizeof(shown));
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "polytile: tune: %s %s: a directory, not a file\n", opt, shown);
		return EXIT_USER;
	}
	char *copy = strdup(path), *dir = copy ? dirname(copy) : NULL;
	char *probe = dir ? malloc(strlen(dir) + 32) : NULL;
	int fd = -1, err = ENOMEM;
	if (probe) {
		sprintf(probe, "%s/.polytile-tune-XXXXXX", dir);
		fd = mkstemp(probe);
		err = errno;
	}
	if (fd >= 0) {
		close(fd);
		unlink(probe);
	}
	free(probe);
	free(copy);
	if (fd < 0) {
		fprintf(stderr, "polytile: tune: %s %s: cannot write there: %s\n", opt, shown, strerror(err));
		return EXIT_USER;
	}
	if (!access(path, F_OK) && access(path, W_OK)) {
		fprintf(stderr, "polytile: tune: %s %s: cannot write it: %s\n", opt, shown, strerror(errno));
		return EXIT_USER;
	}
	return 0;
}

/* The outputs asked for, checked before tuning. */
static int check_outputs(const tune_args *a)
{
	int rc = a->out ? check_writable("-o", a->out) : 0;
	rc = rc || !a->csv ? rc : check_writable("--csv", a->csv);
	rc = rc || !a->plot ? rc : check_writable("--plot", a->plot);
	return rc;
}

/* The tuning of the pipeline a names; the exit status. */
static int tune(pt_ctx *ctx, const pt_pipeline *p, const tune_args *a, double *est)
{
	bool tty = isatty(2);
	pt_tune_options o = {
		.values = est, .threads = a->threads, .budget_s = a->budget, .progress = progress, .user = &tty,
		.tiles = a->ntiles ? a->tiles : NULL, .ntiles = a->ntiles,
		.overlaps = a->noverlaps ? a->overlaps : NULL, .noverlaps = a->noverlaps,
	};
	pt_tune_result *r = pt_tune(ctx, p, &o);
	if (tty)
		fprintf(stderr, "\n");
	fputs(pt_ctx_diagnostics(ctx), stderr);
	if (!r)
		return EXIT_USER;
	if (r->noisy)
		fprintf(stderr, "polytile: tune: %d candidate%s' times spread over %.0f%% between runs (marked ! in the "
			"table): the machine was busy; tune again when it is idle\n", r->noisy, r->noisy == 1 ? "" : "s",
			PT_TUNE_NOISY * 100);
	char what[1024], took[32];
	describe_run(what, sizeof(what), p, est, a->threads);
	duration(took, sizeof(took), r->seconds);
	char *table = pt_tune_table(r);
	printf("%s; %d tiled dimension%s; tuned in %s\n%s", what, r->ntiled, r->ntiled == 1 ? "" : "s", took, table);
	free(table);
	int rc = 0;
	if (r->best < 0) {
		fprintf(stderr, "polytile: tune: no candidate compiled and ran correctly\n");
		rc = EXIT_USER;
	} else {
		char name[160];
		printf("best: %s\n", pt_tune_cand_name(&r->cand[r->best], name, sizeof(name)));
		if (a->out && !write_best(a, r, what))
			printf("wrote %s\n", a->out);
		else if (a->out)
			rc = EXIT_USER;
	}
	if (write_sweep(a, r, what))
		rc = EXIT_USER;
	if (r->mismatches) {
		fprintf(stderr, "polytile: MISMATCH: %d candidate%s gave outputs different from the naive build's "
			"(a compiler bug; listed above, never picked)\n", r->mismatches, r->mismatches == 1 ? "" : "s");
		rc = EXIT_MISMATCH;
	}
	pt_tune_result_free(r);
	return rc;
}

int pt_cli_tune(int argc, char **argv)
{
	tune_args a = { .params = calloc((size_t)argc + 1, sizeof(char *)), .budget = 600 };
	int rc = parse_args(argc, argv, &a);
	if (rc) {
		free(a.params);
		return rc < 0 ? 0 : rc;
	}
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_cli_load(ctx, a.file, NULL);
	rc = p ? 0 : EXIT_USER;
	double *est = p ? pt_cli_estimates(p) : NULL;
	for (int i = 0; p && !rc && i < a.nparams; i++)
		rc = pt_cli_param(ctx, p, a.params[i], est, usage_tune);
	if (p && !rc)
		rc = check_outputs(&a);
	if (p && !rc)
		rc = tune(ctx, p, &a, est);
	free(est);
	free(a.params);
	pt_ctx_free(ctx);
	return rc;
}
