/* tune.c: pt_tune, the search: each candidate compiled, checked against
 * the naive build, timed, until the budget is spent. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctx.h"
#include "diag.h"
#include "tune.h"

static const int default_tiles[] = { 8, 16, 32, 64, 128, 256, 512 };
static const double default_overlaps[] = { 0.2, 0.4, 0.5 };

/* What one tuning holds while it runs. */
typedef struct tuner {
	pt_ctx *ctx;
	const pt_pipeline *p;
	const pt_tune_options *o;
	pt_options base;
	pt_workload *w;
	pt_tune_result *r;
	pt_tune_keys keys;
	double t0;
	pt_program *def_prog;       /* the default, run in turn with each other candidate */
	double need;                /* the workload's bytes (inputs, outputs, the naive build's buffers) */
} tuner;

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The median of times[0 .. k) (sorted in place). */
static double median_of(double *times, int k)
{
	qsort(times, (size_t)k, sizeof(double), cmp_double);
	return k % 2 ? times[k / 2] : (times[k / 2 - 1] + times[k / 2]) / 2;
}

double pt_tune_spread(const double *times, int n)
{
	if (n < 2)
		return 0;
	double *a = malloc(sizeof(double) * (size_t)n);
	if (!a)
		return 0;
	memcpy(a, times, sizeof(double) * (size_t)n);
	double med = median_of(a, n);
	for (int i = 0; i < n; i++)
		a[i] = fabs(times[i] - med);
	double mad = median_of(a, n);
	free(a);
	return med > 0 ? mad / med : 0;
}

/* The messages ctx received since it held `before` bytes of them. */
static char *messages_since(pt_ctx *ctx, size_t before)
{
	const char *d = pt_ctx_diagnostics(ctx);
	return strdup(strlen(d) > before ? d + before : "no message");
}

static void failed(tuner *t, pt_tune_cand *c, size_t before)
{
	c->status = PT_TUNE_FAILED;
	c->message = messages_since(t->ctx, before);
}

/* Compiles c, checks its output against the naive build's (slot 0) and
 * times it: the median of as many runs (3 to 15) as fit in target_s. */
static void time_runs(tuner *t, int i, pt_program *prog, double ms);

static void measure(tuner *t, int i, const pt_options *opt)
{
	pt_tune_cand *c = &t->r->cand[i];
	size_t before = strlen(pt_ctx_diagnostics(t->ctx));
	pt_program *prog = pt_compile(t->ctx, t->p, opt);
	double ms = 0;
	int rc = -1, nout = 0;
	if (prog) {
		pt_workload_fill(t->w, 1, 0xa5);
		rc = pt_workload_run(t->w, prog, 1, &ms);
	}
	if (rc) {
		if (prog)
			c->message = strdup(pt_error_name(rc));
		else
			failed(t, c, before);
		/* a scratchpad the runtime could not allocate: skipped, logged */
		c->status = rc == PT_ERR_NOMEM ? PT_TUNE_SKIPPED : PT_TUNE_FAILED;
		t->r->skipped += rc == PT_ERR_NOMEM;
		pt_program_free(prog);
		return;
	}
	pt_buffer *outs = pt_workload_outputs(t->w, 1, &nout);
	if (t->o->check_hook)
		t->o->check_hook(i, outs, nout, t->o->user);
	size_t at = 0;
	int bad = pt_workload_compare(t->w, &at);
	if (bad >= 0) {
		char msg[512];
		snprintf(msg, sizeof(msg), "output '%s' differs from the naive (-O0) build's at byte %zu",
			pt_pipeline_output_name(t->p, bad), at);
		c->status = PT_TUNE_MISMATCH;
		c->message = strdup(msg);
		t->r->mismatches++;
		pt_program_free(prog);
		return;
	}
	time_runs(t, i, prog, ms);
}

/* Candidate i's timing runs (3 to 15, as many as fit in target_s).  Each
 * is followed by one of the default's (kept compiled), so that a busy
 * stretch of the machine slows both: vs_default is the median of the
 * pairs' ratios.  Under a competing process the sweep's medians moved
 * by up to 250x (issue 36), the pairs' ratios far less. */
static void time_runs(tuner *t, int i, pt_program *prog, double ms)
{
	pt_tune_cand *c = &t->r->cand[i];
	pt_program *def = i > 0 ? t->def_prog : NULL;
	double target = t->o->target_s > 0 ? t->o->target_s : 0.3;
	double per = ms + (def ? t->r->cand[0].sweep_ms : 0);
	int k = per > 0 ? (int)(target * 1e3 / per) : 15;
	k = k < 3 ? 3 : k > 15 ? 15 : k;
	double times[15], dtimes[15], ratio[15];
	int rc = 0;
	for (int r = 0; r < k && !rc; r++) {
		rc = pt_workload_run(t->w, prog, 1, &times[r]);
		if (!rc && def)
			rc = pt_workload_run(t->w, def, 1, &dtimes[r]);
		ratio[r] = def && times[r] > 0 ? dtimes[r] / times[r] : 1;
	}
	if (i == 0 && !rc)
		t->def_prog = prog;
	else
		pt_program_free(prog);
	if (rc) {
		c->status = rc == PT_ERR_NOMEM ? PT_TUNE_SKIPPED : PT_TUNE_FAILED;
		c->message = strdup(pt_error_name(rc));
		t->r->skipped += rc == PT_ERR_NOMEM;
		return;
	}
	c->spread = pt_tune_spread(times, k);
	if (def) {
		double ds = pt_tune_spread(dtimes, k);
		c->spread = ds > c->spread ? ds : c->spread;
	}
	c->noisy = c->spread > PT_TUNE_NOISY;
	c->vs_default = median_of(ratio, k);
	c->median_ms = c->sweep_ms = median_of(times, k);
	c->runs = k;
	c->status = PT_TUNE_TIMED;
}

/* Whether c's scratchpads (bytes per thread) and the workload fit in
 * memory (pt_memory_check, as `run` asks); else c is skipped, logged. */
static bool fits(tuner *t, pt_tune_cand *c, double bytes)
{
	int threads = t->o->threads > 0 ? t->o->threads : pt_get_num_threads();
	char why[256], msg[400];
	if (pt_memory_check(t->need + bytes * threads, why, sizeof(why)) == PT_OK)
		return true;
	snprintf(msg, sizeof(msg), "not run: with its scratchpads (%.4g MB per thread, %d threads) the run %s",
		bytes / 1e6, threads, why);
	c->status = PT_TUNE_SKIPPED;
	c->message = strdup(msg);
	t->r->skipped++;
	return false;
}

/* Candidate i: its grouping, then measured unless a candidate before it
 * had the same. */
static void try_candidate(tuner *t, int i)
{
	pt_tune_cand *c = &t->r->cand[i];
	pt_options opt;
	pt_group_summary s;
	pt_tune_cand_options(c, &t->base, &opt);
	size_t before = strlen(pt_ctx_diagnostics(t->ctx));
	if (pt_group_summarize(t->ctx, t->p, &opt, &s)) {
		failed(t, c, before);
		return;
	}
	c->ngroups = s.ngroups;
	if (!fits(t, c, s.scratch_bytes)) {
		pt_group_summary_clear(&s);
		return;
	}
	int same = pt_tune_keys_lookup(&t->keys, s.key, i);
	pt_group_summary_clear(&s);
	if (same >= 0) {
		c->status = PT_TUNE_SAME;
		c->same_as = same;
		c->median_ms = t->r->cand[same].median_ms;
		c->runs = 0;
		return;
	}
	measure(t, i, &opt);
}

/* The space around the default grouping; false with a message. */
static bool make_candidates(tuner *t)
{
	const pt_tune_options *o = t->o;
	pt_group_summary s;
	if (pt_group_summarize(t->ctx, t->p, &t->base, &s))
		return false;
	pt_group_summary_clear(&s);
	pt_tune_space sp = {
		.ntiled = s.ntiled, .def_tile = s.tile, .def_overlap = s.overlap,
		.tiles = o->tiles ? o->tiles : default_tiles,
		.ntiles = o->tiles ? o->ntiles : (int)(sizeof(default_tiles) / sizeof(int)),
		.overlaps = o->overlaps ? o->overlaps : default_overlaps,
		.noverlaps = o->overlaps ? o->noverlaps : (int)(sizeof(default_overlaps) / sizeof(double)),
	};
	t->r->ntiled = s.ntiled;
	memcpy(t->r->def_tile, s.tile, sizeof(s.tile));
	t->r->def_overlap = s.overlap;
	t->r->cand = pt_tune_candidates(&sp, &t->r->ncand);
	if (!t->r->cand) {
		pt_error_at(&t->ctx->diag, (pt_loc){0}, "give fewer sizes",
			"tune: %d tiled dims with %d sizes each and %d thresholds are over %d candidates",
			sp.ntiled, sp.ntiles, sp.noverlaps, PT_TUNE_MAX_CANDIDATES);
		return false;
	}
	return true;
}

/* The memory guard of `run` (pt_pipeline_run_bytes, pt_memory_check)
 * for the workload: its inputs, the naive build's buffers and a second
 * set of outputs; false with a message. */
static bool workload_fits(tuner *t)
{
	const pt_pipeline *p = t->p;
	int np = pt_pipeline_param_count(p);
	double *v = calloc((size_t)np + 1, sizeof(double));
	int64_t *ip = calloc((size_t)np + 1, sizeof(int64_t));
	for (int q = 0; q < np; q++) {
		if (t->o->values)
			v[q] = t->o->values[q];
		else if (!pt_pipeline_param_estimate(p, q, &v[q]))
			v[q] = 1024;
		pt_type ty = pt_pipeline_param_type(p, q);
		ip[q] = ty == PT_F32 || ty == PT_F64 || !(fabs(v[q]) < 9.2e18) ? 0 : (int64_t)v[q];
	}
	double need = pt_pipeline_run_bytes(p, v, NULL, 0);
	for (int i = 0; need >= 0 && i < pt_pipeline_output_count(p); i++) {
		int64_t lo[PT_MAX_DIMS], ext[PT_MAX_DIMS];
		int s = pt_pipeline_stage_index(p, pt_pipeline_output_name(p, i));
		int nd = pt_pipeline_output_box(p, i, ip, lo, ext);
		double n = (double)pt_type_size(pt_pipeline_stage_type(p, s));
		for (int d = 0; d < nd; d++)
			n *= ext[d] > 0 ? (double)ext[d] : 0;
		need += nd >= 0 ? n : 0;
	}
	free(v);
	free(ip);
	char why[256];
	if (need < 0 || pt_memory_check(need, why, sizeof(why)) == PT_OK) {
		t->need = need > 0 ? need : 0;
		return true;   /* an extent that cannot be evaluated: pt_workload_new says so */
	}
	pt_error_at(&t->ctx->diag, (pt_loc){0}, "set smaller params (--param)", "tune: this tuning %s (its generated "
		"inputs, two sets of outputs and the naive build's intermediate stages at these params)", why);
	return false;
}

/* The inputs and the naive build's outputs in slot 0; false with a
 * message. */
static bool reference(tuner *t)
{
	if (!workload_fits(t))
		return false;
	t->w = pt_workload_new(t->ctx, t->p, t->o->values);
	pt_options naive = t->base;
	naive.opt_level = PT_OPT_NAIVE;
	pt_program *prog = t->w ? pt_compile(t->ctx, t->p, &naive) : NULL;
	if (!prog)
		return false;
	pt_workload_fill(t->w, 0, 0xa5);
	int rc = pt_workload_run(t->w, prog, 0, &t->r->naive_ms);
	pt_program_free(prog);
	if (rc)
		pt_error_at(&t->ctx->diag, (pt_loc){0}, NULL, "tune: the naive build failed: %s", pt_error_name(rc));
	return !rc;
}

/* The final round: the default and the fastest FINALISTS - 1 others,
 * compiled again and timed in turn, one run each per round, so that a
 * slow or fast stretch of the machine falls on all of them alike.  Timed
 * one after another in the sweep, the default (always first) came out
 * 1.18x slower than 8x32 on sobel; in turns, the two are within 5%.
 * Their medians replace the sweep's and the best is the fastest of
 * them (a candidate after them in the sweep was slower there). */
enum { FINALISTS = 4, MAX_ROUNDS = 21 };
/* the sweep stops at this share of the budget, leaving the rest to the
 * final round (4 compiles and at most 4 x 21 runs) */
#define FINAL_SHARE 0.9

/* The fastest against the default first (the pairs' ratios, vs_default). */
static int by_speedup(const void *a, const void *b)
{
	const pt_tune_cand *x = *(pt_tune_cand *const *)a, *y = *(pt_tune_cand *const *)b;
	return (x->vs_default < y->vs_default) - (x->vs_default > y->vs_default);
}

static void final_round(tuner *t)
{
	pt_tune_result *r = t->r;
	pt_tune_cand *fin[FINALISTS], **timed = malloc(sizeof(*timed) * (size_t)r->ncand);
	int nt = 0, n = 0;
	for (int i = 1; i < r->ncand; i++)
		if (r->cand[i].status == PT_TUNE_TIMED)
			timed[nt++] = &r->cand[i];
	qsort(timed, (size_t)nt, sizeof(*timed), by_speedup);
	if (r->cand[0].status == PT_TUNE_TIMED)
		fin[n++] = &r->cand[0];
	for (int i = 0; i < nt && n < FINALISTS; i++)
		fin[n++] = timed[i];
	free(timed);
	if (n < 2)
		return;
	pt_program *prog[FINALISTS] = {0};
	double slowest = 0, times[FINALISTS][MAX_ROUNDS];
	for (int k = 0; k < n; k++) {
		pt_options opt;
		pt_tune_cand_options(fin[k], &t->base, &opt);
		prog[k] = pt_compile(t->ctx, t->p, &opt);
		slowest = fin[k]->median_ms > slowest ? fin[k]->median_ms : slowest;
	}
	double target = t->o->target_s > 0 ? t->o->target_s : 0.3;
	int rounds = slowest > 0 ? (int)(2 * target * 1e3 / slowest) : MAX_ROUNDS;
	rounds = rounds < 5 ? 5 : rounds > MAX_ROUNDS ? MAX_ROUNDS : rounds;
	bool ok = true;
	for (int k = 0; k < n; k++)
		ok = ok && prog[k];
	for (int q = 0; q < rounds && ok; q++)
		for (int k = 0; k < n && ok; k++)
			ok = !pt_workload_run(t->w, prog[k], 1, &times[k][q]);
	for (int k = 0; k < n; k++)
		pt_program_free(prog[k]);
	if (ok) {
		r->finalists = n;
		r->final_rounds = rounds;
		r->best = (int)(fin[0] - r->cand);
		for (int k = 0; k < n; k++) {
			fin[k]->spread = pt_tune_spread(times[k], rounds);
			fin[k]->noisy = fin[k]->spread > PT_TUNE_NOISY;
			fin[k]->median_ms = median_of(times[k], rounds);
			fin[k]->runs = rounds;
			fin[k]->final = true;
			if (fin[k]->median_ms < r->cand[r->best].median_ms)
				r->best = (int)(fin[k] - r->cand);
		}
		for (int i = 0; i < r->ncand; i++)
			if (r->cand[i].status == PT_TUNE_SAME)
				r->cand[i].median_ms = r->cand[r->cand[i].same_as].median_ms;
	}
}

/* The best's groups and tiles, for a configuration per group. */
static void best_groups(tuner *t)
{
	pt_tune_result *r = t->r;
	pt_options opt;
	pt_group_summary s;
	if (r->best < 0)
		return;
	pt_tune_cand_options(&r->cand[r->best], &t->base, &opt);
	if (pt_group_summarize(t->ctx, t->p, &opt, &s))
		return;
	r->best_groups = s.tiled_groups;
	r->nbest_groups = s.ntiled_groups;
	s.tiled_groups = NULL;
	s.ntiled_groups = 0;
	pt_group_summary_clear(&s);
}

pt_tune_result *pt_tune(pt_ctx *ctx, const pt_pipeline *p, const pt_tune_options *o)
{
	pt_tune_options none = {0};
	tuner t = { .ctx = ctx, .p = p, .o = o ? o : &none, .t0 = now_s() };
	o = t.o;
	t.base.threads = o->threads;
	t.base.estimates = o->values;
	t.r = calloc(1, sizeof(*t.r));
	t.r->best = -1;
	if (o->threads > 0)
		pt_set_num_threads(o->threads);
	if (!make_candidates(&t) || !reference(&t)) {
		pt_workload_free(t.w);
		pt_tune_result_free(t.r);
		return NULL;
	}
	double budget = o->budget_s > 0 ? o->budget_s : 600, start = now_s();
	for (int i = 0; i < t.r->ncand; i++) {
		/* the default is always measured: the others are against it */
		if (i > 0 && now_s() - t.t0 >= FINAL_SHARE * budget) {
			t.r->budget_spent = true;
			break;
		}
		try_candidate(&t, i);
		t.r->tried++;
		pt_tune_cand *c = &t.r->cand[i];
		if (c->status == PT_TUNE_TIMED && (t.r->best < 0 || c->median_ms < t.r->cand[t.r->best].median_ms))
			t.r->best = i;
		double per = (now_s() - start) / (i + 1), left = budget - (now_s() - t.t0);
		double eta = per * (t.r->ncand - i - 1);
		if (o->progress)
			o->progress(t.r, i, eta < left ? eta : left > 0 ? left : 0, o->user);
	}
	pt_program_free(t.def_prog);
	final_round(&t);
	best_groups(&t);
	for (int i = 0; i < t.r->ncand; i++)
		t.r->noisy += t.r->cand[i].status == PT_TUNE_TIMED && t.r->cand[i].noisy;
	t.r->seconds = now_s() - t.t0;
	pt_tune_keys_clear(&t.keys);
	pt_workload_free(t.w);
	return t.r;
}

void pt_tune_result_free(pt_tune_result *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->ncand; i++)
		free(r->cand[i].message);
	for (int i = 0; i < r->nbest_groups; i++)
		free((char *)r->best_groups[i].group);
	free(r->best_groups);
	free(r->cand);
	free(r);
}

int pt_tune_best_options(const pt_tune_result *r, const pt_options *base, pt_options *out)
{
	if (!r || r->best < 0)
		return -1;
	pt_tune_cand_options(&r->cand[r->best], base, out);
	out->groups = r->best_groups;
	out->ngroups = r->nbest_groups;
	out->config_mem = NULL;
	return 0;
}

void pt_tune_cand_options(const pt_tune_cand *c, const pt_options *base, pt_options *out)
{
	*out = *base;
	out->opt_level = PT_OPT_GROUPED;
	out->ntile = c->ntile;
	memcpy(out->tile, c->tile, sizeof(c->tile));
	out->overlap = c->overlap;
}
