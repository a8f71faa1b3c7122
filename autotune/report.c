/* report.c: a tuning's results as a table, a CSV and a gnuplot script
 * drawing the sweep (time against configuration, one series per
 * threshold, the default and the best marked, like the thesis's figure
 * 3.12). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "tune.h"

static void tiles_text(char *buf, size_t len, int ntile, const int *tile)
{
	size_t n = 0;
	buf[0] = 0;
	for (int k = 0; k < ntile && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, "%s%d", k ? "x" : "", tile[k]);
	if (!ntile)
		snprintf(buf, len, "-");
}

const char *pt_tune_cand_name(const pt_tune_cand *c, char *buf, size_t len)
{
	char t[128];
	if (!c->ntile && c->overlap <= 0) {
		snprintf(buf, len, "default");
		return buf;
	}
	tiles_text(t, sizeof(t), c->ntile, c->tile);
	if (c->overlap > 0)
		snprintf(buf, len, "%s %g", c->ntile ? t : "default", c->overlap);
	else
		snprintf(buf, len, "%s default", t);
	return buf;
}

/* A candidate's tiles and threshold, the default's written out. */
static void effective(const pt_tune_result *r, const pt_tune_cand *c, char *tiles, size_t len, double *overlap)
{
	if (c->ntile)
		tiles_text(tiles, len, c->ntile, c->tile);
	else
		tiles_text(tiles, len, r->ntiled, r->def_tile);
	*overlap = c->overlap > 0 ? c->overlap : r->def_overlap;
}

static const pt_tune_result *sort_r;

/* The finalists first (their medians from the final round), then the
 * others by their medians in the sweep. */
static int by_time(const void *a, const void *b)
{
	const pt_tune_cand *x = &sort_r->cand[*(const int *)a], *y = &sort_r->cand[*(const int *)b];
	if (x->final != y->final)
		return x->final ? -1 : 1;
	if (x->median_ms != y->median_ms)
		return x->median_ms < y->median_ms ? -1 : 1;
	return *(const int *)a - *(const int *)b;
}

char *pt_tune_table(const pt_tune_result *r)
{
	int *idx = calloc((size_t)r->ncand + 1, sizeof(int)), n = 0, same = 0, noisy = 0;
	for (int i = 0; i < r->ncand; i++) {
		if (r->cand[i].status == PT_TUNE_TIMED)
			idx[n++] = i;
		same += r->cand[i].status == PT_TUNE_SAME;
	}
	sort_r = r;
	qsort(idx, (size_t)n, sizeof(int), by_time);
	double def = r->cand[0].status == PT_TUNE_TIMED ? r->cand[0].median_ms : 0;
	pt_strbuf b = {0};
	pt_sb_printf(&b, "%5s  %-16s %8s %7s %11s %5s  %s\n", "rank", "tile", "overlap", "groups", "median ms",
		"runs", "vs default");
	for (int k = 0; k < n; k++) {
		const pt_tune_cand *c = &r->cand[idx[k]];
		char t[128];
		double ov;
		effective(r, c, t, sizeof(t), &ov);
		pt_sb_printf(&b, "%5d  %-16s %8g %7d %11.3f %5d  ", k + 1, t, ov, c->ngroups, c->median_ms, c->runs);
		/* a finalist against the default's final median, another
		 * against the default's runs interleaved with its own */
		if (def > 0 && c->final)
			pt_sb_printf(&b, "%.2fx", def / c->median_ms);
		else if (idx[k] == 0 || c->vs_default > 0)
			pt_sb_printf(&b, "%.2fx", idx[k] == 0 ? 1.0 : c->vs_default);
		else
			pt_sb_printf(&b, "-");
		pt_sb_printf(&b, "%s%s%s\n", idx[k] == 0 ? "  (default)" : "", c->final ? "  *" : "", c->noisy ? "  !" : "");
		noisy += c->noisy;
	}
	if (r->finalists)
		pt_sb_printf(&b, "* a finalist: the default and the fastest others of the sweep, timed again at the "
			"end in turn, %d rounds (ranked by those; the others by the sweep)\n", r->final_rounds);
	if (noisy)
		pt_sb_printf(&b, "! not to be trusted: its runs' times spread over %.0f%% (median absolute deviation "
			"over the median): the machine was busy\n", PT_TUNE_NOISY * 100);
	pt_sb_printf(&b, "%d of %d candidates tried (%d timed, %d with the grouping of one timed before%s)%s\n",
		r->tried, r->ncand, n, same, r->skipped ? ", some skipped: out of memory" : "",
		r->budget_spent ? "; the budget ran out" : "");
	for (int i = 0; i < r->ncand; i++) {
		const pt_tune_cand *c = &r->cand[i];
		char name[160];
		if (c->status == PT_TUNE_MISMATCH || c->status == PT_TUNE_FAILED || c->status == PT_TUNE_SKIPPED)
			pt_sb_printf(&b, "%s: %s: %s\n", c->status == PT_TUNE_MISMATCH ? "MISMATCH" :
				c->status == PT_TUNE_SKIPPED ? "skipped" : "failed",
				pt_tune_cand_name(c, name, sizeof(name)), c->message ? c->message : "");
	}
	free(idx);
	return pt_sb_take(&b);
}

/* The tile combinations tried, sorted (outermost size first): the x axis. */
typedef struct axis {
	char (*label)[128];
	int n;
} axis;

static int by_sizes(const void *a, const void *b)
{
	const char *x = a, *y = b;
	for (;;) {
		long u = strtol(x, (char **)&x, 10), v = strtol(y, (char **)&y, 10);
		if (u != v)
			return u < v ? -1 : 1;
		if (*x != 'x' || *y != 'x')
			return (*x == 'x') - (*y == 'x');
		x++;
		y++;
	}
}

static axis make_axis(const pt_tune_result *r)
{
	axis a = { calloc((size_t)r->ncand + 1, sizeof(*a.label)), 0 };
	for (int i = 0; i < r->ncand; i++) {
		double ov;
		char t[128];
		if (r->cand[i].status == PT_TUNE_PENDING)
			continue;
		effective(r, &r->cand[i], t, sizeof(t), &ov);
		bool seen = false;
		for (int k = 0; k < a.n && !seen; k++)
			seen = !strcmp(a.label[k], t);
		if (!seen)
			snprintf(a.label[a.n++], sizeof(a.label[0]), "%s", t);
	}
	qsort(a.label, (size_t)a.n, sizeof(a.label[0]), by_sizes);
	return a;
}

static int axis_x(const axis *a, const char *t)
{
	for (int k = 0; k < a->n; k++)
		if (!strcmp(a->label[k], t))
			return k + 1;
	return 0;
}

static const char *const status_names[] = { "pending", "timed", "same", "mismatch", "failed", "skipped" };

typedef struct row {
	int i, x;
	double overlap;
} row;

static int by_series(const void *a, const void *b)
{
	const row *u = a, *v = b;
	if (u->overlap != v->overlap)
		return u->overlap < v->overlap ? -1 : 1;
	return u->x != v->x ? u->x - v->x : u->i - v->i;
}

char *pt_tune_csv(const pt_tune_result *r)
{
	axis a = make_axis(r);
	row *rows = calloc((size_t)r->ncand + 1, sizeof(row));
	int n = 0;
	for (int i = 0; i < r->ncand; i++) {
		char t[128];
		if (r->cand[i].status == PT_TUNE_PENDING)
			continue;
		effective(r, &r->cand[i], t, sizeof(t), &rows[n].overlap);
		rows[n].i = i;
		rows[n++].x = axis_x(&a, t);
	}
	/* each threshold's rows together, by tile: one line per series */
	qsort(rows, (size_t)n, sizeof(row), by_series);
	pt_strbuf b = {0};
	pt_sb_printf(&b, "x,tile,overlap,groups,median_ms,runs,status,default,best\n");
	for (int k = 0; k < n; k++) {
		const pt_tune_cand *c = &r->cand[rows[k].i];
		bool timed = c->status == PT_TUNE_TIMED ||
			(c->status == PT_TUNE_SAME && r->cand[c->same_as].status == PT_TUNE_TIMED);
		pt_sb_printf(&b, "%d,%s,%g,%d,", rows[k].x, a.label[rows[k].x - 1], rows[k].overlap, c->ngroups);
		if (timed)
			pt_sb_printf(&b, "%.4f", c->median_ms);
		pt_sb_printf(&b, ",%d,%s,%d,%d\n", c->runs, status_names[c->status], rows[k].i == 0, rows[k].i == r->best);
	}
	free(rows);
	free(a.label);
	return pt_sb_take(&b);
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* s as a gnuplot string in double quotes. */
static void quoted(pt_strbuf *b, const char *s)
{
	pt_sb_printf(b, "\"");
	for (; *s; s++)
		pt_sb_printf(b, "%s%c", *s == '"' || *s == '\\' ? "\\" : "", *s);
	pt_sb_printf(b, "\"");
}

char *pt_tune_gnuplot(const pt_tune_result *r, const char *title, const char *csv_path, const char *prefix)
{
	axis a = make_axis(r);
	pt_strbuf b = {0};
	pt_sb_printf(&b, "# the sweep of `polytile tune`: gnuplot FILE draws it\n"
		"set datafile separator \",\"\nset title ");
	quoted(&b, title);
	pt_sb_printf(&b, " noenhanced\nset xlabel \"tile sizes\"\nset ylabel \"median time (ms)\"\n"
		"set key outside right top noenhanced\nset grid ytics\nset yrange [0:*]\n"
		"set xrange [0:%d]\nset xtics rotate by 90 right font \",8\" (", a.n + 1);
	for (int k = 0; k < a.n; k++)
		pt_sb_printf(&b, "%s\"%s\" %d", k ? ", " : "", a.label[k], k + 1);
	pt_sb_printf(&b, ")\ndata = ");
	quoted(&b, csv_path);
	/* one series per threshold tried (the default's included) */
	double ov[64];
	int nov = 0;
	for (int i = 0; i < r->ncand && nov < 64; i++) {
		char t[128];
		double o;
		bool seen = false;
		if (r->cand[i].status == PT_TUNE_PENDING)
			continue;
		effective(r, &r->cand[i], t, sizeof(t), &o);
		for (int k = 0; k < nov; k++)
			seen |= ov[k] == o;
		if (!seen)
			ov[nov++] = o;
	}
	qsort(ov, (size_t)nov, sizeof(double), by_double);
	pt_sb_printf(&b, "\nplot ");
	/* later series drawn thinner, so that equal times stay visible */
	for (int k = 0; k < nov; k++)
		pt_sb_printf(&b, "data using 1:(abs($3 - %.17g) < 1e-9 ? $5 : 1/0) with linespoints pt 7 ps %.2f lw %.2f "
			"title \"overlap %g\", \\\n     ", ov[k], 1.4 - 0.9 * k / (nov > 1 ? nov - 1 : 1),
			2.5 - 1.5 * k / (nov > 1 ? nov - 1 : 1), ov[k]);
	pt_sb_printf(&b, "data using 1:($8 == 1 ? $5 : 1/0) with points pt 6 ps 3 lw 2 lc rgb \"black\" "
		"title \"default\", \\\n     data using 1:($9 == 1 ? $5 : 1/0) with points pt 8 ps 3 lw 2 "
		"lc rgb \"red\" title \"best\"\n");
	const char *terms[2][2] = { { "pngcairo size 1400,700 font \"Sans,10\"", ".png" },
		{ "svg size 1400,700 font \"Sans,10\" dynamic", ".svg" } };
	pt_strbuf out = {0};
	char *plot = pt_sb_take(&b);
	for (int t = 0; t < 2; t++) {
		pt_strbuf path = {0};
		pt_sb_printf(&path, "%s%s", prefix, terms[t][1]);
		char *p = pt_sb_take(&path);
		pt_sb_printf(&out, "set terminal %s noenhanced\nset output ", terms[t][0]);
		quoted(&out, p);
		pt_sb_printf(&out, "\n%s", t ? "replot\n" : plot);
		free(p);
	}
	pt_sb_printf(&out, "unset output\n");
	free(plot);
	free(a.label);
	return pt_sb_take(&out);
}
