/* tune.c: pt_tune, the search: each candidate compiled, checked against
 * the naive build, timed, until the budget is spent. */
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
		c->status = PT_TUNE_FAILED;
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
	double target = t->o->target_s > 0 ? t->o->target_s : 0.3;
	int k = ms > 0 ? (int)(target * 1e3 / ms) : 15;
	k = k < 3 ? 3 : k > 15 ? 15 : k;
	double times[15];
	for (int r = 0; r < k && !rc; r++)
		rc = pt_workload_run(t->w, prog, 1, &times[r]);
	pt_program_free(prog);
	if (rc) {
		c->status = PT_TUNE_FAILED;
		c->message = strdup(pt_error_name(rc));
		return;
	}
	c->median_ms = c->sweep_ms = median_of(times, k);
	c->runs = k;
	c->status = PT_TUNE_TIMED;
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
	int same = pt_tune_keys_lookup(&t->keys, s.key, i);
	free(s.key);
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
	free(s.key);
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

/* The inputs and the naive build's outputs in slot 0; false with a
 * message. */
static bool reference(tuner *t)
{
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

static int by_median(const void *a, const void *b)
{
	const pt_tune_cand *x = *(pt_tune_cand *const *)a, *y = *(pt_tune_cand *const *)b;
	return (x->median_ms > y->median_ms) - (x->median_ms < y->median_ms);
}

static void final_round(tuner *t)
{
	pt_tune_result *r = t->r;
	pt_tune_cand *fin[FINALISTS], **timed = malloc(sizeof(*timed) * (size_t)r->ncand);
	int nt = 0, n = 0;
	for (int i = 1; i < r->ncand; i++)
		if (r->cand[i].status == PT_TUNE_TIMED)
			timed[nt++] = &r->cand[i];
	qsort(timed, (size_t)nt, sizeof(*timed), by_median);
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
	final_round(&t);
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
	free(r->cand);
	free(r);
}

void pt_tune_cand_options(const pt_tune_cand *c, const pt_options *base, pt_options *out)
{
	*out = *base;
	out->opt_level = PT_OPT_GROUPED;
	out->ntile = c->ntile;
	memcpy(out->tile, c->tile, sizeof(c->tile));
	out->overlap = c->overlap;
}
